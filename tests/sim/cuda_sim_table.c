/*
 * Simulated CUDA driver: the allocation table.  Device memory is host memory
 * (unified addressing: a device pointer is the host address of the bytes).
 *
 * - cuMemAlloc memory is an mmap (MAP_SHARED) of a POSIX shared-memory object
 *   named "/pwsim.<uid>.<pid>.<buffer id>", so that another process can map
 *   the same bytes through cuIpcOpenMemHandle.  The object is unlinked when
 *   the allocation is freed, or when the library unloads (process exit).
 * - cuMemAllocManaged memory is anonymous: it cannot be exported (docs/facts-cuda.md).
 * - IPC imports map the exporter's object by name.
 *
 * Entries are kept sorted by base address.  A freed range is not unmapped but
 * replaced by a PROT_NONE reservation and kept in the table, marked freed, for
 * the last PWSIM_FREED_KEEP frees: so a stale pointer is recognised (and
 * faults if dereferenced) instead of aliasing a later allocation.  Older
 * reservations are released to bound the number of mappings
 * (vm.max_map_count).  All functions here expect the caller to hold the lock.
 */
#include "sim_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PWSIM_FREED_KEEP 1024

static struct pwsim_alloc **g_tab;
static size_t g_n, g_cap;
static unsigned long long g_next_id;
static struct pwsim_alloc *g_freed_head, *g_freed_tail;
static size_t g_nfreed;

/* Index of the last entry whose base is <= p, or -1. */
static long tab_floor(uintptr_t p)
{
	long lo = 0, hi = (long)g_n - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (g_tab[mid]->base <= p) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

struct pwsim_alloc *pwsim_find(uintptr_t p)
{
	long i = tab_floor(p);

	if (i < 0 || p - g_tab[i]->base >= g_tab[i]->size)
		return NULL;
	return g_tab[i];
}

struct pwsim_alloc *pwsim_find_live(uintptr_t p)
{
	struct pwsim_alloc *a = pwsim_find(p);

	return a && !a->freed ? a : NULL;
}

struct pwsim_alloc *pwsim_find_range(uintptr_t p, size_t n)
{
	struct pwsim_alloc *a = pwsim_find_live(p);
	uintptr_t end;

	if (!a || n == 0 || pwsim_add_overflows(p, n, &end) || end > a->base + a->size)
		return NULL;
	return a;
}

struct pwsim_alloc *pwsim_find_import(pid_t pid, unsigned long long id, const struct CUctx_st *ctx)
{
	for (size_t i = 0; i < g_n; i++) {
		struct pwsim_alloc *a = g_tab[i];
		if (a->ctx != ctx)
			continue;

		if (a->kind == PWSIM_KIND_IPC && !a->freed && a->shm_pid == pid && a->shm_id == id)
			return a;
	}
	return NULL;
}

static int tab_insert(struct pwsim_alloc *a)
{
	long at;

	if (g_n == g_cap) {
		size_t cap = g_cap ? 2 * g_cap : 64;
		struct pwsim_alloc **t = realloc(g_tab, cap * sizeof(struct pwsim_alloc *));

		if (!t)
			return -1;
		g_tab = t;
		g_cap = cap;
	}
	at = tab_floor(a->base) + 1;
	memmove(&g_tab[at + 1], &g_tab[at], (g_n - (size_t)at) * sizeof(struct pwsim_alloc *));
	g_tab[at] = a;
	g_n++;
	return 0;
}

static void tab_remove(struct pwsim_alloc *a)
{
	long at = tab_floor(a->base);

	memmove(&g_tab[at], &g_tab[at + 1], (g_n - (size_t)at - 1) * sizeof(struct pwsim_alloc *));
	g_n--;
}

static int round_to_pages(size_t size, size_t *out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (size > SIZE_MAX - (page - 1))
		return -1;
	*out = (size + page - 1) & ~(page - 1);
	return 0;
}

/* A new shared-memory object of map_size bytes, mapped; NULL on failure.
 * posix_fallocate reserves the pages now, so a full /dev/shm is reported as
 * CUDA_ERROR_OUT_OF_MEMORY here rather than as SIGBUS on first touch. */
static void *map_new_shm(const char *name, size_t map_size)
{
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	void *p = MAP_FAILED;

	/* The name holds our pid: an object already there was left by a dead
	 * process that had our pid before (killed, or aborted by enforce mode). */
	if (fd < 0 && errno == EEXIST && shm_unlink(name) == 0)
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)map_size) == 0 && posix_fallocate(fd, 0, (off_t)map_size) == 0)
		p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		shm_unlink(name);
		return NULL;
	}
	return p;
}

static void *map_new(struct pwsim_alloc *a)
{
	void *p;

	if (a->kind == PWSIM_KIND_MANAGED) {
		p = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	return map_new_shm(a->shm_name, a->map_size);
}

/* The name fits PWSIM_SHM_NAME_MAX for any uid and pid and for ids below
 * 10^9; past that the allocation fails rather than truncate. */
static int name_shm(struct pwsim_alloc *a)
{
	int n = snprintf(a->shm_name, sizeof(a->shm_name), "/pwsim.%u.%d.%llu", (unsigned)getuid(),
	                 (int)getpid(), a->buffer_id);

	return n > 0 && (size_t)n < sizeof(a->shm_name) ? 0 : -1;
}

CUresult pwsim_alloc_new(enum pwsim_kind kind, size_t size, struct CUctx_st *ctx, struct pwsim_alloc **out)
{
	struct pwsim_alloc *a = calloc(1, sizeof(*a));
	void *p;

	if (!a || round_to_pages(size, &a->map_size))
		goto oom;
	a->size = size;
	a->kind = kind;
	a->ctx = ctx;
	a->device = ctx->device;
	a->buffer_id = ++g_next_id;
	a->shm_pid = getpid();
	a->shm_id = a->buffer_id;
	if (kind == PWSIM_KIND_DEVICE && name_shm(a))
		goto oom;
	p = map_new(a);
	if (!p)
		goto oom;
	a->base = (uintptr_t)p;
	if (tab_insert(a)) {
		munmap(p, a->map_size);
		if (a->shm_name[0])
			shm_unlink(a->shm_name);
		goto oom;
	}
	*out = a;
	return CUDA_SUCCESS;
oom:
	free(a);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult pwsim_alloc_import(const char *shm_name, size_t size, int device, struct CUctx_st *ctx,
                            struct pwsim_alloc **out)
{
	struct pwsim_alloc *a = calloc(1, sizeof(*a));
	int fd = shm_open(shm_name, O_RDWR | O_CLOEXEC, 0);
	void *p = MAP_FAILED;
	CUresult rc = CUDA_ERROR_INVALID_HANDLE;

	struct stat st;

	/* An object smaller than the handle claims would fault on access. */
	if (!a || fd < 0 || round_to_pages(size, &a->map_size) || fstat(fd, &st) ||
	    (size_t)st.st_size < a->map_size)
		goto fail;
	/* MAP_SHARED: writes are seen by the exporter and by every importer. */
	p = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = CUDA_ERROR_MAP_FAILED;
		goto fail;
	}
	a->base = (uintptr_t)p;
	a->size = size;
	a->kind = PWSIM_KIND_IPC;
	a->ctx = ctx;
	a->device = device;
	a->buffer_id = ++g_next_id;
	if (tab_insert(a)) {
		rc = CUDA_ERROR_OUT_OF_MEMORY;
		goto fail;
	}
	close(fd);
	*out = a;
	return CUDA_SUCCESS;
fail:
	if (p != MAP_FAILED)
		munmap(p, a->map_size);
	if (fd >= 0)
		close(fd);
	free(a);
	return rc;
}

CUresult pwsim_alloc_enter(enum pwsim_kind kind, uintptr_t base, size_t size, int device,
                           struct CUctx_st *ctx, struct pwsim_alloc **out)
{
	struct pwsim_alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	a->base = base;
	a->size = a->map_size = size;
	a->kind = kind;
	a->ctx = ctx;
	a->device = device;
	a->buffer_id = ++g_next_id;
	if (tab_insert(a)) {
		free(a);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*out = a;
	return CUDA_SUCCESS;
}

void pwsim_alloc_forget(struct pwsim_alloc *a)
{
	tab_remove(a);
	free(a);
}

static void freed_push(struct pwsim_alloc *a)
{
	if (g_freed_tail)
		g_freed_tail->next_freed = a;
	else
		g_freed_head = a;
	g_freed_tail = a;
	g_nfreed++;
}

static void freed_evict_oldest(void)
{
	struct pwsim_alloc *a = g_freed_head;

	g_freed_head = a->next_freed;
	if (!g_freed_head)
		g_freed_tail = NULL;
	g_nfreed--;
	tab_remove(a);
	munmap((void *)a->base, a->map_size);
	free(a);
}

void pwsim_alloc_retire(struct pwsim_alloc *a)
{
	/* MAP_FIXED replaces the mapping in one step: no other thread can be
	 * handed the range between an munmap and a new mmap. */
	(void)mmap((void *)a->base, a->map_size, PROT_NONE,
	           MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->kind == PWSIM_KIND_DEVICE)
		shm_unlink(a->shm_name);
	free(a->segs);
	a->segs = NULL;
	a->nsegs = 0;
	pwsim_um_forget(a);
	a->freed = 1;
	freed_push(a);
	if (g_nfreed > PWSIM_FREED_KEEP)
		freed_evict_oldest();
}

/* Unlink the objects this process created and still holds, so that a test
 * that forgets cuMemFree leaves nothing in /dev/shm.  A forked child that has
 * not exec'd inherits the table but not the objects: the pid check skips them. */
__attribute__((destructor)) static void pwsim_unlink_all(void)
{
	pid_t self = getpid();

	for (size_t i = 0; i < g_n; i++) {
		struct pwsim_alloc *a = g_tab[i];

		if (a->kind == PWSIM_KIND_DEVICE && !a->freed && a->shm_pid == self)
			shm_unlink(a->shm_name);
	}
}

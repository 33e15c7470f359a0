/*
 * Simulated HIP runtime: the allocation table.  Device memory is host memory
 * (a device pointer is the host address of the bytes).
 *
 * - hipMalloc memory is an mmap (MAP_SHARED) of a POSIX shared-memory object
 *   "/pwhip.<uid>.<pid>.<id>", so that another process can map the same bytes
 *   through hipIpcOpenMemHandle.  The object is unlinked by hipFree,
 *   hipDeviceReset, or when the library unloads.  (The CUDA simulator uses
 *   "/pwsim.": a process may load both.)
 * - hipMallocManaged memory is anonymous and carries per-page advice.
 * - IPC imports map the exporter's object by name.
 *
 * Entries are sorted by base address.  A freed range is replaced by a
 * PROT_NONE reservation and stays in the table, marked freed, for the last
 * HSIM_FREED_KEEP frees, so a stale pointer is recognised instead of aliasing
 * a later allocation.  The caller holds the lock.
 */
#include "hip_sim_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HSIM_FREED_KEEP 1024

static struct hsim_alloc **g_tab;
static size_t g_n, g_cap;
static unsigned long long g_next_id;
static struct hsim_alloc *g_freed_head, *g_freed_tail;
static size_t g_nfreed;

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

struct hsim_alloc *hsim_find(uintptr_t p)
{
	long i = tab_floor(p);

	if (i < 0 || p - g_tab[i]->base >= g_tab[i]->size)
		return NULL;
	return g_tab[i];
}

struct hsim_alloc *hsim_find_live(uintptr_t p)
{
	struct hsim_alloc *a = hsim_find(p);

	return a && !a->freed ? a : NULL;
}

struct hsim_alloc *hsim_find_range(uintptr_t p, size_t n)
{
	struct hsim_alloc *a = hsim_find_live(p);
	uintptr_t end;

	if (!a || n == 0 || hsim_add_overflows(p, n, &end) || end > a->base + a->size)
		return NULL;
	return a;
}

struct hsim_alloc *hsim_find_import(pid_t pid, unsigned long long id, int device)
{
	for (size_t i = 0; i < g_n; i++) {
		struct hsim_alloc *a = g_tab[i];

		if (a->kind == HSIM_KIND_IPC && !a->freed && a->shm_pid == pid && a->shm_id == id &&
		    a->device == device)
			return a;
	}
	return NULL;
}

static int tab_insert(struct hsim_alloc *a)
{
	long at;

	if (g_n == g_cap) {
		size_t cap = g_cap ? 2 * g_cap : 64;
		struct hsim_alloc **t = realloc(g_tab, cap * sizeof(struct hsim_alloc *));

		if (!t)
			return -1;
		g_tab = t;
		g_cap = cap;
	}
	at = tab_floor(a->base) + 1;
	memmove(&g_tab[at + 1], &g_tab[at], (g_n - (size_t)at) * sizeof(struct hsim_alloc *));
	g_tab[at] = a;
	g_n++;
	return 0;
}

static void tab_remove(struct hsim_alloc *a)
{
	long at = tab_floor(a->base);

	memmove(&g_tab[at], &g_tab[at + 1], (g_n - (size_t)at - 1) * sizeof(struct hsim_alloc *));
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

/* posix_fallocate reserves the pages now: a full /dev/shm is
 * hipErrorOutOfMemory here rather than SIGBUS on first touch. */
static void *map_new_shm(const char *name, size_t map_size)
{
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	void *p = MAP_FAILED;

	/* The name holds our pid: one already there was left by a dead process. */
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

static int name_shm(struct hsim_alloc *a)
{
	int n = snprintf(a->shm_name, sizeof(a->shm_name), "/pwhip.%u.%d.%llu", (unsigned)getuid(),
	                 (int)getpid(), a->id);

	return n > 0 && (size_t)n < sizeof(a->shm_name) ? 0 : -1;
}

hipError_t hsim_alloc_new(enum hsim_kind kind, size_t size, int device, struct hsim_alloc **out)
{
	struct hsim_alloc *a = calloc(1, sizeof(*a));
	void *p = NULL;

	if (!a || round_to_pages(size, &a->map_size))
		goto oom;
	a->size = size;
	a->kind = kind;
	a->device = device;
	a->id = ++g_next_id;
	a->shm_pid = getpid();
	a->shm_id = a->id;
	if (kind == HSIM_KIND_MANAGED) {
		p = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	} else if (name_shm(a) == 0) {
		p = map_new_shm(a->shm_name, a->map_size);
	}
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
	return hipSuccess;
oom:
	free(a);
	return hipErrorOutOfMemory;
}

/* Failures are hipErrorInvalidDevicePointer: clr's answer when the attach
 * fails (facts A7). */
hipError_t hsim_alloc_import(const char *shm_name, size_t size, int device, struct hsim_alloc **out)
{
	struct hsim_alloc *a = calloc(1, sizeof(*a));
	int fd = shm_open(shm_name, O_RDWR | O_CLOEXEC, 0);
	void *p = MAP_FAILED;
	hipError_t rc = hipErrorInvalidDevicePointer;
	struct stat st;

	if (!a || fd < 0 || round_to_pages(size, &a->map_size) || fstat(fd, &st) ||
	    (size_t)st.st_size < a->map_size)
		goto fail;
	p = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	a->base = (uintptr_t)p;
	a->size = size;
	a->kind = HSIM_KIND_IPC;
	a->device = device;
	a->id = ++g_next_id;
	if (tab_insert(a)) {
		rc = hipErrorOutOfMemory;
		goto fail;
	}
	close(fd);
	*out = a;
	return hipSuccess;
fail:
	if (p != MAP_FAILED)
		munmap(p, a->map_size);
	if (fd >= 0)
		close(fd);
	free(a);
	return rc;
}

static void freed_push(struct hsim_alloc *a)
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
	struct hsim_alloc *a = g_freed_head;

	g_freed_head = a->next_freed;
	if (!g_freed_head)
		g_freed_tail = NULL;
	g_nfreed--;
	tab_remove(a);
	munmap((void *)a->base, a->map_size);
	free(a);
}

void hsim_alloc_retire(struct hsim_alloc *a)
{
	(void)mmap((void *)a->base, a->map_size, PROT_NONE,
	           MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->kind == HSIM_KIND_DEVICE)
		shm_unlink(a->shm_name);
	free(a->pages);
	a->pages = NULL;
	a->freed = 1;
	freed_push(a);
	if (g_nfreed > HSIM_FREED_KEEP && g_freed_head != g_freed_tail)
		freed_evict_oldest();
}

void hsim_retire_device(int dev)
{
	/* Retiring never removes an entry but the oldest freed one, which is
	 * already freed: collect first, then retire. */
	for (size_t i = 0; i < g_n; i++) {
		struct hsim_alloc *a = g_tab[i];

		if (!a->freed && a->device == dev && a->kind != HSIM_KIND_MANAGED) {
			hsim_alloc_retire(a);
			i = (size_t)-1; /* the table may have shifted: start again */
		}
	}
}

__attribute__((destructor)) static void hsim_unlink_all(void)
{
	pid_t self = getpid();

	for (size_t i = 0; i < g_n; i++) {
		struct hsim_alloc *a = g_tab[i];

		if (a->kind == HSIM_KIND_DEVICE && !a->freed && a->shm_pid == self)
			shm_unlink(a->shm_name);
	}
}

/*
 * Simulated HIP runtime: virtual memory management (hipMemAddressReserve,
 * hipMemCreate, hipMemMap, hipMemSetAccess, ...) and the export of its
 * allocations to other processes as POSIX file descriptors.
 *
 * A physical allocation (hipMemGenericAllocationHandle_t) is a memfd named
 * "pwhip-vmm"; a reservation is PROT_NONE anonymous memory; hipMemMap maps
 * the memfd MAP_SHARED over part of a reservation, still PROT_NONE, and
 * hipMemSetAccess opens it (read, or read and write) for the devices it
 * names: on the host there is one protection for all of them, the widest
 * asked.  An export is a dup of the memfd; an import (in another process,
 * which inherits or is passed the fd) makes a handle of the same file, so
 * the two processes' mappings are the same bytes.
 *
 * References as HIP describes them: the handle of hipMemCreate, each
 * import and each hipMemRetainAllocationHandle is one, and so is each
 * mapping; hipMemRelease and hipMemUnmap drop one, and the memory goes
 * with the last.
 *
 * Return codes: the HIP header lists hipSuccess, hipErrorInvalidValue and
 * hipErrorNotSupported for each of these calls.  The simulator's choices
 * (README.md): "must be zero" flags and offsets, a type that is not
 * hipMemAllocationTypePinned or a location that is not a device, an
 * export as a type the allocation was not created for (or none), an fd
 * that is not one of ours, a range that is not inside one reservation or
 * not page-aligned, an unmap or an access change that is not exactly one
 * mapping, a release or retain of nothing we know -> InvalidValue; Win32
 * handle types -> NotSupported.
 */
#include "hip_sim_internal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define VMM_MAGIC 0x4d4d5650u /* "PVMM" */
#define VMM_NAME "pwhip-vmm"

struct ihipMemGenericAllocationHandle {
	uint32_t magic;
	int fd;
	size_t size;
	int device;
	hipMemAllocationHandleType types;
	int refs;
	struct ihipMemGenericAllocationHandle *next;
};

struct vmm_range { /* a reservation, or a mapping in one */
	uintptr_t base;
	size_t size;
	struct ihipMemGenericAllocationHandle *h; /* mappings only */
	struct vmm_range *next;
};

static struct ihipMemGenericAllocationHandle *g_handles;
static struct vmm_range *g_reserved, *g_mapped;

static size_t page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Caller holds the lock. */
static struct ihipMemGenericAllocationHandle *handle_check(hipMemGenericAllocationHandle_t h)
{
	for (struct ihipMemGenericAllocationHandle *q = g_handles; q; q = q->next)
		if (q == h && q->magic == VMM_MAGIC)
			return q;
	return NULL;
}

static struct ihipMemGenericAllocationHandle *handle_new(int fd, size_t size, int device,
                                                         hipMemAllocationHandleType types)
{
	struct ihipMemGenericAllocationHandle *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->magic = VMM_MAGIC;
	h->fd = fd;
	h->size = size;
	h->device = device;
	h->types = types;
	h->refs = 1;
	h->next = g_handles;
	g_handles = h;
	return h;
}

/* One reference less; the last one closes the memory. */
static void handle_put(struct ihipMemGenericAllocationHandle *h)
{
	if (--h->refs > 0)
		return;
	for (struct ihipMemGenericAllocationHandle **pp = &g_handles; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	close(h->fd);
	h->magic = 0;
	free(h);
}

static struct vmm_range *range_in(struct vmm_range *list, uintptr_t p, size_t n)
{
	for (struct vmm_range *r = list; r; r = r->next)
		if (p >= r->base && n <= r->size && p - r->base <= r->size - n)
			return r;
	return NULL;
}

static struct vmm_range *range_exact(struct vmm_range *list, uintptr_t p, size_t n)
{
	for (struct vmm_range *r = list; r; r = r->next)
		if (r->base == p && r->size == n)
			return r;
	return NULL;
}

static void range_drop(struct vmm_range **list, struct vmm_range *r)
{
	for (struct vmm_range **pp = list; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			free(r);
			return;
		}
}

static hipError_t range_add(struct vmm_range **list, uintptr_t p, size_t n,
                            struct ihipMemGenericAllocationHandle *h)
{
	struct vmm_range *r = calloc(1, sizeof(*r));
	if (!r)
		return hipErrorOutOfMemory;
	r->base = p;
	r->size = n;
	r->h = h;
	r->next = *list;
	*list = r;
	return hipSuccess;
}

hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                unsigned long long flags)
{
	void *p;
	hipError_t rc;

	(void)addr; /* a hint */
	if (!ptr || size == 0 || size % page() || flags != 0 || (alignment && alignment & (alignment - 1)) ||
	    alignment > page())
		return hipErrorInvalidValue;
	p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return hipErrorOutOfMemory;
	hsim_lock();
	rc = range_add(&g_reserved, (uintptr_t)p, size, NULL);
	hsim_unlock();
	if (rc != hipSuccess) {
		munmap(p, size);
		return rc;
	}
	*ptr = p;
	return hipSuccess;
}

hipError_t hipMemAddressFree(void *devPtr, size_t size)
{
	struct vmm_range *r;
	hipError_t rc = hipErrorInvalidValue;

	hsim_lock();
	r = range_exact(g_reserved, (uintptr_t)devPtr, size);
	if (r) {
		/* nothing may be mapped in it still */
		for (struct vmm_range *m = g_mapped; m; m = m->next)
			if (m->base >= r->base && m->base - r->base < r->size)
				goto out;
		munmap(devPtr, size);
		range_drop(&g_reserved, r);
		rc = hipSuccess;
	}
out:
	hsim_unlock();
	return rc;
}

hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
                        const hipMemAllocationProp *prop, unsigned long long flags)
{
	struct ihipMemGenericAllocationHandle *h;
	int fd;

	if (!handle || !prop || size == 0 || size % page() || flags != 0 ||
	    prop->type != hipMemAllocationTypePinned || prop->location.type != hipMemLocationTypeDevice ||
	    !hsim_valid_device(prop->location.id))
		return hipErrorInvalidValue;
	if (prop->requestedHandleType != hipMemHandleTypeNone &&
	    prop->requestedHandleType != hipMemHandleTypePosixFileDescriptor)
		return hipErrorNotSupported;
	fd = memfd_create(VMM_NAME, MFD_CLOEXEC);
	if (fd < 0)
		return hipErrorOutOfMemory;
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		return hipErrorOutOfMemory;
	}
	hsim_lock();
	h = handle_new(fd, size, prop->location.id, prop->requestedHandleType);
	hsim_unlock();
	if (!h) {
		close(fd);
		return hipErrorOutOfMemory;
	}
	*handle = h;
	return hipSuccess;
}

hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
	struct ihipMemGenericAllocationHandle *h;

	hsim_lock();
	h = handle_check(handle);
	if (h)
		handle_put(h);
	hsim_unlock();
	return h ? hipSuccess : hipErrorInvalidValue;
}

/* The fd written is the program's to close; it is not close-on-exec, so a
 * child can inherit it. */
hipError_t hipMemExportToShareableHandle(void *shareableHandle, hipMemGenericAllocationHandle_t handle,
                                         hipMemAllocationHandleType handleType, unsigned long long flags)
{
	struct ihipMemGenericAllocationHandle *h;
	int fd = -1;

	if (!shareableHandle || flags != 0)
		return hipErrorInvalidValue;
	hsim_lock();
	h = handle_check(handle);
	if (h && handleType != hipMemHandleTypeNone && handleType == h->types)
		fd = dup(h->fd);
	hsim_unlock();
	if (!h || handleType == hipMemHandleTypeNone || handleType != h->types)
		return hipErrorInvalidValue;
	if (fd < 0)
		return hipErrorOutOfMemory;
	*(int *)shareableHandle = fd;
	return hipSuccess;
}

/* Whether fd is a memfd this simulator made (its link names it). */
static int ours(int fd)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = 0;
	return strncmp(target, "/memfd:" VMM_NAME, strlen("/memfd:" VMM_NAME)) == 0;
}

hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *handle, void *osHandle,
                                           hipMemAllocationHandleType shHandleType)
{
	struct ihipMemGenericAllocationHandle *h;
	int fd = (int)(intptr_t)osHandle, mine;
	struct stat st;

	if (!handle)
		return hipErrorInvalidValue;
	if (shHandleType == hipMemHandleTypeWin32 || shHandleType == hipMemHandleTypeWin32Kmt)
		return hipErrorNotSupported;
	if (shHandleType != hipMemHandleTypePosixFileDescriptor || fd < 0 || !ours(fd) || fstat(fd, &st) ||
	    st.st_size <= 0)
		return hipErrorInvalidValue;
	mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (mine < 0)
		return hipErrorOutOfMemory;
	hsim_lock();
	h = handle_new(mine, (size_t)st.st_size, hsim_current(), shHandleType);
	hsim_unlock();
	if (!h) {
		close(mine);
		return hipErrorOutOfMemory;
	}
	*handle = h;
	return hipSuccess;
}

hipError_t hipMemMap(void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
                     unsigned long long flags)
{
	struct ihipMemGenericAllocationHandle *h;
	hipError_t rc = hipErrorInvalidValue;
	uintptr_t p = (uintptr_t)ptr;

	if (!ptr || size == 0 || size % page() || p % page() || offset != 0 || flags != 0)
		return hipErrorInvalidValue;
	hsim_lock();
	h = handle_check(handle);
	if (h && size <= h->size && range_in(g_reserved, p, size)) {
		rc = hipSuccess;
		for (struct vmm_range *m = g_mapped; m; m = m->next)
			if (p < m->base + m->size && m->base < p + size)
				rc = hipErrorInvalidValue; /* already mapped */
	}
	if (rc == hipSuccess && mmap(ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->fd, 0) == MAP_FAILED)
		rc = hipErrorOutOfMemory;
	if (rc == hipSuccess) {
		rc = range_add(&g_mapped, p, size, h);
		if (rc == hipSuccess)
			h->refs++;
	}
	hsim_unlock();
	return rc;
}

hipError_t hipMemUnmap(void *ptr, size_t size)
{
	struct vmm_range *m;
	hipError_t rc = hipErrorInvalidValue;

	hsim_lock();
	m = range_exact(g_mapped, (uintptr_t)ptr, size);
	if (m) {
		/* back to the reservation's PROT_NONE */
		void *back = mmap(ptr, size, PROT_NONE,
		                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		handle_put(m->h);
		range_drop(&g_mapped, m);
		rc = back == MAP_FAILED ? hipErrorOutOfMemory : hipSuccess;
	}
	hsim_unlock();
	return rc;
}

hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count)
{
	struct vmm_range *m;
	int prot = PROT_NONE;
	hipError_t rc = hipSuccess;

	if (!ptr || !desc || count == 0)
		return hipErrorInvalidValue;
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != hipMemLocationTypeDevice ||
		    !hsim_valid_device(desc[i].location.id))
			return hipErrorInvalidValue;
		if (desc[i].flags == hipMemAccessFlagsProtReadWrite)
			prot = PROT_READ | PROT_WRITE;
		else if (desc[i].flags == hipMemAccessFlagsProtRead)
			prot |= PROT_READ;
		else if (desc[i].flags != hipMemAccessFlagsProtNone)
			return hipErrorInvalidValue;
	}
	hsim_lock();
	m = range_exact(g_mapped, (uintptr_t)ptr, size);
	if (!m || mprotect(ptr, size, prot))
		rc = hipErrorInvalidValue;
	hsim_unlock();
	return rc;
}

hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t *handle, void *addr)
{
	struct vmm_range *m;

	if (!handle || !addr)
		return hipErrorInvalidValue;
	hsim_lock();
	m = range_in(g_mapped, (uintptr_t)addr, 1);
	if (m)
		m->h->refs++;
	hsim_unlock();
	if (!m)
		return hipErrorInvalidValue;
	*handle = m->h;
	return hipSuccess;
}

/*
 * Simulated ACL memory: aclrtMalloc on the current device with its policy
 * recorded, aclrtFree, and copies that move real bytes.  Device memory is
 * pages of this process, so copies between devices work only inside the
 * process (the document: threads of one process, never across processes);
 * other processes see an allocation only through an IPC key
 * (acl_sim_ipc.c).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl_sim_internal.h"

typedef struct pwsim_acl_alloc alloc_t;
static alloc_t *allocs;

/* The allocation holding [p, p+count), under the lock. */
static alloc_t *find_locked(uintptr_t p, size_t count)
{
	for (alloc_t *a = allocs; a; a = a->next)
		if (p >= a->base && p - a->base < a->size)
			return count <= a->size - (p - a->base) ? a : NULL;
	return NULL;
}

alloc_t *pwsim_acl_alloc_at(uintptr_t p, size_t count)
{
	return find_locked(p, count);
}

alloc_t *pwsim_acl_alloc_first(void)
{
	return allocs;
}

void pwsim_acl_alloc_insert(alloc_t *a)
{
	a->next = allocs;
	allocs = a;
}

bool pwsim_acl_alloc_unlink(alloc_t *a)
{
	for (alloc_t **pp = &allocs; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			return true;
		}
	return false;
}

bool pwsim_acl_find(uintptr_t p, size_t count, uintptr_t *base, size_t *size, int *dev, int *policy)
{
	pwsim_acl_lock();
	alloc_t *a = find_locked(p, count);
	bool mapped = false;
	if (a) {
		*base = a->base;
		*size = a->size;
		*dev = a->dev;
		*policy = a->policy;
	} else if ((mapped = pwsim_acl_vmm_mapped(p, count, base, size, dev))) {
		*policy = -1; /* device memory aclrtMapMem mapped: no aclrtMalloc policy */
	}
	pwsim_acl_unlock();
	return a != NULL || mapped;
}

/* For the self-test: what the simulator recorded for p (not an ACL API). */
PWSIM_ACL_API int pwsim_acl_alloc_info(const void *p, int *dev, size_t *size, int *policy)
{
	uintptr_t base;
	return pwsim_acl_find((uintptr_t)p, 1, &base, size, dev, policy) ? 0 : -1;
}

/* For the self-test: whether from -> to is enabled (not an ACL API). */
PWSIM_ACL_API int pwsim_acl_peer_on(int from, int to)
{
	pwsim_acl_lock();
	int on = pwsim_acl_valid(from) && pwsim_acl_valid(to) && (pwsim_acl.on[from] >> to & 1);
	pwsim_acl_unlock();
	return on;
}

static bool policy_ok(aclrtMemMallocPolicy policy)
{
	int base = policy & 0xff, bits = policy & ~0xff;
	int known =
	    ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;
	return policy >= 0 && base <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P && !(bits & ~known);
}

PWSIM_ACL_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!devPtr || size == 0 || !policy_ok(policy))
		return ACL_ERROR_INVALID_PARAM;
	int dev = pwsim_acl_current();
	if (dev < 0)
		return ACL_ERROR_RT_CONTEXT_NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), maplen = (size + page - 1) / page * page;
	alloc_t *a = calloc(1, sizeof *a);
	void *p = maplen < size
	              ? MAP_FAILED
	              : mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!a || p == MAP_FAILED) {
		free(a);
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	*a = (alloc_t){.base = (uintptr_t)p, .size = size, .maplen = maplen, .dev = dev, .policy = policy};
	pwsim_acl_lock();
	pwsim_acl_alloc_insert(a);
	pwsim_acl_unlock();
	*devPtr = p;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtFree(void *devPtr)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	alloc_t *a = NULL;
	pwsim_acl_lock();
	for (alloc_t **pp = &allocs; devPtr && *pp; pp = &(*pp)->next)
		if ((*pp)->base == (uintptr_t)devPtr &&
		    !(*pp)->imported) { /* an import is closed, not freed */
			a = *pp;
			*pp = a->next;
			break;
		}
	if (a && a->exp)
		pwsim_acl_export_freed(a);
	pwsim_acl_unlock();
	if (!a)
		return ACL_ERROR_INVALID_PARAM;
	munmap((void *)a->base, a->maplen);
	free(a);
	return ACL_SUCCESS;
}

/* Page-locked host memory (aclrtMallocHost): plain memory of the process,
 * remembered so that aclrtFreeHost frees only what it returned.  Copies
 * treat it as host memory, as any other. */
struct host_alloc {
	void *p;
	struct host_alloc *next;
};
static struct host_alloc *hosts;

PWSIM_ACL_API aclError aclrtMallocHost(void **hostPtr, size_t size)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!hostPtr || size == 0)
		return ACL_ERROR_INVALID_PARAM;
	struct host_alloc *h = malloc(sizeof *h);
	void *p = NULL;
	if (!h || posix_memalign(&p, 4096, size)) {
		free(h);
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	memset(p, 0, size);
	h->p = p;
	pwsim_acl_lock();
	h->next = hosts;
	hosts = h;
	pwsim_acl_unlock();
	*hostPtr = p;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtFreeHost(void *hostPtr)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	struct host_alloc *h = NULL;
	pwsim_acl_lock();
	for (struct host_alloc **pp = &hosts; hostPtr && *pp; pp = &(*pp)->next)
		if ((*pp)->p == hostPtr) {
			h = *pp;
			*pp = h->next;
			break;
		}
	pwsim_acl_unlock();
	if (!h)
		return ACL_ERROR_INVALID_PARAM;
	free(h->p);
	free(h);
	return ACL_SUCCESS;
}

/* An IPC key import of memory on another device than the calling
 * thread's (acl_sim_ipc.c): CANN 8.2.RC1's aclrtIpcMemGetExportKey page
 * restricts copies of such an address to device-to-device copies of a
 * named direction. */
static bool foreign_import(const void *p, size_t count)
{
	pwsim_acl_lock();
	const struct pwsim_acl_alloc *a = pwsim_acl_alloc_at((uintptr_t)p, count ? count : 1);
	bool foreign = a && a->imported && a->dev != pwsim_acl_current();
	pwsim_acl_unlock();
	return foreign;
}

static aclError copy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!dst || !src || count > destMax || kind < ACL_MEMCPY_HOST_TO_HOST ||
	    kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
		return ACL_ERROR_INVALID_PARAM;
	if (count == 0)
		return ACL_SUCCESS;
	uintptr_t b;
	size_t sz;
	int dd = -1, sd = -1, pol;
	bool dst_dev = pwsim_acl_find((uintptr_t)dst, count, &b, &sz, &dd, &pol);
	bool src_dev = pwsim_acl_find((uintptr_t)src, count, &b, &sz, &sd, &pol);
	bool need_dst = false, need_src = false;
	switch (kind) {
	case ACL_MEMCPY_HOST_TO_DEVICE:
	case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: need_dst = true; break;
	case ACL_MEMCPY_DEVICE_TO_HOST: need_src = true; break;
	case ACL_MEMCPY_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: need_dst = need_src = true; break;
	default: break; /* HOST_TO_HOST; DEFAULT: whatever the pointers are */
	}
	/* Device memory must hold the whole copy: a range past its end, or a
	 * pointer that is no allocation of ours, is refused. */
	if ((need_dst && !dst_dev) || (need_src && !src_dev))
		return ACL_ERROR_INVALID_PARAM;
	if ((kind == ACL_MEMCPY_DEFAULT || kind == ACL_MEMCPY_HOST_TO_DEVICE ||
	     kind == ACL_MEMCPY_DEVICE_TO_HOST) &&
	    (foreign_import(dst, count) || foreign_import(src, count)))
		return ACL_ERROR_INVALID_PARAM; /* no direction inferred, no host side for a shared address */
	memmove(dst, src, count);
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                   aclrtMemcpyKind kind)
{
	return copy(dst, destMax, src, count, kind);
}

/* Streams are synchronous: the copy is done when it is enqueued.  The
 * aclrtMemcpyAsync page: "This API does not support asynchronous memory copy
 * within the host. If the input kind is ACL_MEMCPY_HOST_TO_HOST, the API
 * returns ... ACL_ERROR_RT_FEATURE_NOT_SUPPORT". */
PWSIM_ACL_API aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                        aclrtMemcpyKind kind, aclrtStream stream)
{
	(void)stream;
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (kind == ACL_MEMCPY_HOST_TO_HOST)
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	return copy(dst, destMax, src, count, kind);
}

/* aclrtMemcpy2d and aclrtMemcpy2dAsync: height rows of width bytes, each
 * row dpitch (spitch) bytes after the one before.  CANN 8.0.0's pages:
 * "Currently, only memory copy of the ACL_MEMCPY_HOST_TO_DEVICE and
 * ACL_MEMCPY_DEVICE_TO_HOST types is supported"; the 2dAsync page: height
 * at most 5242880, "otherwise the API returns failure".  The codes are the
 * simulator's choice (README.md): ACL_ERROR_INVALID_PARAM, as for an
 * undefined kind, and for a width past a pitch or a device side that is no
 * allocation holding all its rows. */
#define PWSIM_ACL_2D_HEIGHT_MAX 5242880u
static aclError copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                       aclrtMemcpyKind kind)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!dst || !src || width > dpitch || width > spitch || height > PWSIM_ACL_2D_HEIGHT_MAX ||
	    (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST))
		return ACL_ERROR_INVALID_PARAM;
	if (width == 0 || height == 0)
		return ACL_SUCCESS;
	uintptr_t b;
	size_t sz;
	int dev, pol;
	size_t dspan = (height - 1) * dpitch + width, sspan = (height - 1) * spitch + width;
	if (kind == ACL_MEMCPY_HOST_TO_DEVICE ? !pwsim_acl_find((uintptr_t)dst, dspan, &b, &sz, &dev, &pol)
	                                      : !pwsim_acl_find((uintptr_t)src, sspan, &b, &sz, &dev, &pol))
		return ACL_ERROR_INVALID_PARAM;
	for (size_t i = 0; i < height; i++)
		memmove((char *)dst + i * dpitch, (const char *)src + i * spitch, width);
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, aclrtMemcpyKind kind)
{
	return copy2d(dst, dpitch, src, spitch, width, height, kind);
}

PWSIM_ACL_API aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                          size_t width, size_t height, aclrtMemcpyKind kind,
                                          aclrtStream stream)
{
	(void)stream; /* streams are synchronous */
	return copy2d(dst, dpitch, src, spitch, width, height, kind);
}

/*
 * Simulated CUDA driver: virtual memory management (cuMemCreate, cuMemMap,
 * cuMemSetAccess, shareable handles), stream-ordered pools shared between
 * processes, and the CUDA 13 batch prefetches.
 *
 * - A cuMemCreate allocation is a memfd of its size plus one page; the page
 *   after the memory holds a header (magic "PWSV", device, handle types,
 *   size), so a process that imports the fd knows what it holds.  Exporting
 *   as CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR hands out a dup of the memfd
 *   (close-on-exec, as any new fd of a library should be): another process
 *   that receives it (SCM_RIGHTS, or fork/exec inheritance once the sender
 *   clears FD_CLOEXEC) imports it and maps the same bytes.
 * - cuMemAddressReserve reserves PROT_NONE address space; cuMemMap maps the
 *   memfd there (MAP_SHARED | MAP_FIXED) and enters the range in the
 *   allocation table (KIND_VMM), so pointer queries, copies and peer copies
 *   work on it; cuMemUnmap puts the reservation back.
 * - Access set with cuMemSetAccess is checked and recorded, not enforced:
 *   device memory is host memory, readable and writable from the start.
 * - A stream-ordered allocation (cuMemAllocAsync, cuMemAllocFromPoolAsync)
 *   is a cuMemAlloc-like shared-memory object remembered with its pool
 *   (CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE).  A pool exported as a POSIX fd is
 *   a small memfd naming (exporter pid, pool id); cuMemPoolExportPointer's 64
 *   bytes name (magic "PWSP", exporter pid, pool id, buffer id, size,
 *   device), from which the importer opens the exporter's object.
 * - Streams are synchronous: "async" allocations and prefetches happen at
 *   the call.
 * What cuda.h leaves open is listed in README.md with the answer chosen.
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

/* What cuMemGetAllocationGranularity answers: 2 MiB, as on the H200s. */
#define PWSIM_VMM_GRANULARITY ((size_t)2 << 20)
#define PWSIM_VMEM_MAGIC 0x4d454d56u /* "VMEM" */
#define PWSIM_POOL_MAGIC 0x4c4f4f50u /* "POOL" */

struct vmem_header {
	char magic[4]; /* "PWSV" */
	int32_t device;
	uint32_t types;
	uint32_t pad;
	uint64_t size;
};

struct pwsim_vmem {
	uint32_t magic;
	int fd;
	size_t size;
	int device;
	unsigned types;
	int refs; /* create/import/retain minus releases */
	int maps; /* live cuMemMap ranges */
	struct pwsim_vmem *next;
};

struct reservation {
	uintptr_t base;
	size_t size;
	struct reservation *next;
};

struct CUmemPoolHandle_st {
	uint32_t magic;
	int device;
	unsigned types;
	int imported, destroyed, is_default;
	pid_t exporter_pid;
	unsigned long long id;
	uint64_t access; /* bit d: device d was granted access (cuMemPoolSetAccess) */
	struct CUmemPoolHandle_st *next;
};

struct pool_header {   /* the pool's exported memfd */
	char magic[4]; /* "PWSL" */
	int32_t pid;
	uint64_t id;
	int32_t device;
	uint32_t types;
};

struct ptr_export {    /* CUmemPoolPtrExportData */
	char magic[4]; /* "PWSP" */
	int32_t pid;
	uint64_t pool_id;
	uint64_t buffer_id;
	uint64_t size;
	int32_t device;
};

static struct pwsim_vmem *g_vmems;
static struct reservation *g_reserved;
static struct CUmemPoolHandle_st *g_pools;
static struct CUmemPoolHandle_st *g_default_pool[PWSIM_MAX_DEVICES];
static unsigned long long g_next_pool_id;

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* ======================================================================== */
/* allocations and handles                                                   */

static struct pwsim_vmem *vmem_check(CUmemGenericAllocationHandle h)
{
	for (struct pwsim_vmem *v = g_vmems; v; v = v->next)
		if ((CUmemGenericAllocationHandle)(uintptr_t)v == h && v->magic == PWSIM_VMEM_MAGIC)
			return v;
	return NULL;
}

static struct pwsim_vmem *vmem_new(int fd, size_t size, int device, unsigned types)
{
	struct pwsim_vmem *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->magic = PWSIM_VMEM_MAGIC;
	v->fd = fd;
	v->size = size;
	v->device = device;
	v->types = types;
	v->refs = 1;
	v->next = g_vmems;
	g_vmems = v;
	return v;
}

/* The memory goes when the last reference and the last mapping do (cuda.h :12841). */
static void vmem_maybe_destroy(struct pwsim_vmem *v)
{
	if (v->refs > 0 || v->maps > 0)
		return;
	for (struct pwsim_vmem **p = &g_vmems; *p; p = &(*p)->next)
		if (*p == v) {
			*p = v->next;
			break;
		}
	close(v->fd);
	v->magic = 0;
	free(v);
}

static int valid_single_type(CUmemAllocationHandleType t)
{
	return t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || t == CU_MEM_HANDLE_TYPE_FABRIC ||
	       t == CU_MEM_HANDLE_TYPE_WIN32 || t == CU_MEM_HANDLE_TYPE_WIN32_KMT;
}

/* A device location, as VMM allocations and access descriptors need. */
static CUresult device_location(const CUmemLocation *loc)
{
	if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	return pwsim_valid_device(loc->id) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!granularity || !prop ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		return CUDA_ERROR_INVALID_VALUE;
	rc = device_location(&prop->location);
	if (rc)
		return rc;
	*granularity = PWSIM_VMM_GRANULARITY;
	return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                     unsigned long long flags)
{
	CUresult rc = pwsim_ready();
	struct vmem_header h;
	struct pwsim_vmem *v;
	int fd;

	if (rc)
		return rc;
	/* cuda.h :12820: "flags - flags for future use, must be zero now" */
	if (!handle || !prop || flags || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	rc = device_location(&prop->location);
	if (rc)
		return rc;
	/* :12783: size a multiple of the granularity */
	if (size == 0 || size % PWSIM_VMM_GRANULARITY)
		return CUDA_ERROR_INVALID_VALUE;
	if ((unsigned)prop->requestedHandleTypes &
	    ~(unsigned)(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC |
	                CU_MEM_HANDLE_TYPE_WIN32 | CU_MEM_HANDLE_TYPE_WIN32_KMT))
		return CUDA_ERROR_INVALID_VALUE;
	/* Win32 handles do not exist on Linux; fabric handles need an IMEX
	 * channel the simulated machine does not have. */
	if (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	fd = memfd_create("pwsim-vmm", MFD_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "PWSV", 4);
	h.device = pwsim_cfg()->phys[prop->location.id]; /* physical: the importer may see others */
	h.types = (uint32_t)prop->requestedHandleTypes;
	h.size = size;
	if (ftruncate(fd, (off_t)(size + page_size())) || posix_fallocate(fd, 0, (off_t)size) ||
	    pwrite(fd, &h, sizeof(h), (off_t)size) != (ssize_t)sizeof(h)) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pwsim_lock();
	v = vmem_new(fd, size, prop->location.id, (unsigned)prop->requestedHandleTypes);
	pwsim_unlock();
	if (!v) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)v;
	return CUDA_SUCCESS;
}

/* cuda.h :12846: "If handle is not a valid handle the behavior is undefined":
 * the simulator answers INVALID_VALUE. */
CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	CUresult rc = pwsim_ready();
	struct pwsim_vmem *v;

	if (rc)
		return rc;
	pwsim_lock();
	v = vmem_check(handle);
	if (v && v->refs > 0) {
		v->refs--;
		vmem_maybe_destroy(v);
	} else {
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                CUmemGenericAllocationHandle handle)
{
	CUresult rc = pwsim_ready();
	struct pwsim_vmem *v;

	if (rc)
		return rc;
	if (!prop)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	v = vmem_check(handle);
	if (v) {
		memset(prop, 0, sizeof(*prop));
		prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop->requestedHandleTypes = (CUmemAllocationHandleType)v->types;
		prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop->location.id = v->device;
	} else {
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pwsim_unlock();
	return rc;
}

/* cuda.h :13243: any address of a mapped range; "If the address requested is
 * not mapped, the function will fail" (INVALID_VALUE). */
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)addr);
	if (a && a->kind == PWSIM_KIND_VMM && a->vmem) {
		a->vmem->refs++;
		*handle = (CUmemGenericAllocationHandle)(uintptr_t)a->vmem;
	} else {
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pwsim_unlock();
	return rc;
}

/* ======================================================================== */
/* address reservations and mappings                                         */

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags)
{
	CUresult rc = pwsim_ready();
	struct reservation *r;
	size_t align = alignment ? alignment : PWSIM_VMM_GRANULARITY, span;
	uintptr_t base;
	void *p;

	(void)addr; /* a hint: not honoured, as cuda.h allows */
	if (rc)
		return rc;
	if (!ptr || flags || size == 0 || size % PWSIM_VMM_GRANULARITY || (align & (align - 1)) ||
	    align % page_size() || __builtin_add_overflow(size, align, &span))
		return CUDA_ERROR_INVALID_VALUE;
	p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	base = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	if (base > (uintptr_t)p)
		munmap(p, base - (uintptr_t)p);
	if (base + size < (uintptr_t)p + span)
		munmap((void *)(base + size), (uintptr_t)p + span - (base + size));
	r = calloc(1, sizeof(*r));
	if (!r) {
		munmap((void *)base, size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r->base = base;
	r->size = size;
	pwsim_lock();
	r->next = g_reserved;
	g_reserved = r;
	pwsim_unlock();
	*ptr = (CUdeviceptr)base;
	return CUDA_SUCCESS;
}

static struct reservation *reservation_of(uintptr_t p, size_t n)
{
	for (struct reservation *r = g_reserved; r; r = r->next)
		if (p >= r->base && p - r->base < r->size && n <= r->size - (p - r->base))
			return r;
	return NULL;
}

/* Whether any mapping lies in [p, p+n). */
static int any_mapping(uintptr_t p, size_t n)
{
	for (size_t off = 0; off < n; off += PWSIM_VMM_GRANULARITY) {
		struct pwsim_alloc *a = pwsim_find_live(p + off);

		if (a && a->kind == PWSIM_KIND_VMM)
			return 1;
	}
	return 0;
}

/* Only a whole reservation with nothing mapped in it can be freed. */
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	pwsim_lock();
	rc = CUDA_ERROR_INVALID_VALUE;
	for (struct reservation **p = &g_reserved; *p; p = &(*p)->next) {
		struct reservation *r = *p;

		if (r->base != (uintptr_t)ptr || r->size != size)
			continue;
		if (!any_mapping(r->base, r->size)) {
			*p = r->next;
			munmap((void *)r->base, r->size);
			free(r);
			rc = CUDA_SUCCESS;
		}
		break;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags)
{
	CUresult rc = pwsim_ready();
	struct pwsim_vmem *v;
	struct pwsim_alloc *a;
	uintptr_t p = (uintptr_t)ptr;
	void *m;

	if (rc)
		return rc;
	/* cuda.h :12901-12903: offset "currently must be zero", flags "must be zero now" */
	if (flags || offset || size == 0 || size % PWSIM_VMM_GRANULARITY || p % PWSIM_VMM_GRANULARITY)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	v = vmem_check(handle);
	/* :12869: "offset + size must be less than the size of the memory allocation";
	 * :12867: "This range must be an address reservation previously reserved";
	 * :12894: "only ... on VA range reservations that are not currently mapped" */
	if (!v || v->refs <= 0 || size > v->size || !reservation_of(p, size) || any_mapping(p, size)) {
		pwsim_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	m = mmap((void *)p, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, v->fd, 0);
	if (m == MAP_FAILED) {
		pwsim_unlock();
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rc = pwsim_alloc_enter(PWSIM_KIND_VMM, p, size, v->device, pwsim_primary(v->device), &a);
	if (rc == CUDA_SUCCESS) {
		a->vmem = v;
		v->maps++;
	} else {
		(void)mmap((void *)p, size, PROT_NONE,
		           MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	pwsim_unlock();
	return rc;
}

/* cuda.h :13059: "The range must be the entire contiguous address range that
 * was mapped to" (one cuMemMap each in the simulator). */
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;
	struct pwsim_vmem *v;

	if (rc)
		return rc;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)ptr);
	if (!a || a->kind != PWSIM_KIND_VMM || a->base != (uintptr_t)ptr || a->size != size) {
		pwsim_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* Back to a reservation (:13064), in one step. */
	(void)mmap((void *)a->base, a->size, PROT_NONE,
	           MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	v = a->vmem;
	pwsim_alloc_forget(a);
	if (v) {
		v->maps--;
		vmem_maybe_destroy(v);
	}
	pwsim_unlock();
	return CUDA_SUCCESS;
}

/* Descriptors: device locations that exist, defined protections. */
static CUresult check_access(const CUmemAccessDesc *desc, size_t count, uint64_t *granted)
{
	*granted = 0;
	if (!desc || count == 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		CUresult rc = device_location(&desc[i].location);

		if (rc)
			return rc;
		if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
		    desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		    desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			return CUDA_ERROR_INVALID_VALUE;
		if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE)
			*granted |= (uint64_t)1 << desc[i].location.id;
	}
	return CUDA_SUCCESS;
}

/* cuda.h :13089: "The range must be a fully mapped address range". */
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
	CUresult rc = pwsim_ready();
	uint64_t granted;
	uintptr_t p = (uintptr_t)ptr, end;

	if (rc)
		return rc;
	rc = check_access(desc, count, &granted);
	if (rc)
		return rc;
	if (size == 0 || pwsim_add_overflows(p, size, &end))
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	while (p < end) {
		struct pwsim_alloc *a = pwsim_find_live(p);

		if (!a || a->kind != PWSIM_KIND_VMM) {
			rc = CUDA_ERROR_INVALID_VALUE;
			break;
		}
		p = a->base + a->size;
	}
	pwsim_unlock();
	return rc;
}

/* ======================================================================== */
/* shareable handles                                                         */

/* cuda.h leaves open what exporting a type the allocation was not created
 * for returns: INVALID_VALUE here (README.md). */
CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType, unsigned long long flags)
{
	CUresult rc = pwsim_ready();
	struct pwsim_vmem *v;

	if (rc)
		return rc;
	if (!shareableHandle || flags || !valid_single_type(handleType))
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	v = vmem_check(handle);
	if (!v || !(v->types & (unsigned)handleType)) {
		rc = CUDA_ERROR_INVALID_VALUE;
	} else {
		int fd = fcntl(v->fd, F_DUPFD_CLOEXEC, 0);

		if (fd < 0)
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		else
			*(int *)shareableHandle = fd;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                        CUmemAllocationHandleType shHandleType)
{
	CUresult rc = pwsim_ready();
	int fd = (int)(intptr_t)osHandle, mine;
	struct vmem_header h;
	struct pwsim_vmem *v;
	struct stat st;

	if (rc)
		return rc;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	/* :13173: what "the current process cannot support" is NOT_SUPPORTED */
	if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return valid_single_type(shHandleType) ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
	/* Not an fd of one of our allocations: INVALID_VALUE. */
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < page_size() ||
	    pread(fd, &h, sizeof(h), st.st_size - (off_t)page_size()) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, "PWSV", 4) || h.size != (uint64_t)st.st_size - page_size())
		return CUDA_ERROR_INVALID_VALUE;
	/* on a device this process does not see (a choice: not measured) */
	h.device = pwsim_ordinal_of(h.device);
	if (h.device < 0)
		return CUDA_ERROR_INVALID_DEVICE;
	mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (mine < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pwsim_lock();
	v = vmem_new(mine, (size_t)h.size, h.device, h.types);
	pwsim_unlock();
	if (!v) {
		close(mine);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)v;
	return CUDA_SUCCESS;
}

/* ======================================================================== */
/* stream-ordered pools                                                      */

static struct CUmemPoolHandle_st *pool_new(int device, unsigned types)
{
	struct CUmemPoolHandle_st *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->magic = PWSIM_POOL_MAGIC;
	p->device = device;
	p->types = types;
	p->id = ++g_next_pool_id;
	p->access = (uint64_t)1 << device;
	p->next = g_pools;
	g_pools = p;
	return p;
}

/* A live pool of ours, or NULL (caller holds the lock). */
static struct CUmemPoolHandle_st *pool_check(CUmemoryPool pool)
{
	for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next)
		if (p == pool && p->magic == PWSIM_POOL_MAGIC && !p->destroyed)
			return p;
	return NULL;
}

static struct CUmemPoolHandle_st *default_pool(int device)
{
	if (!g_default_pool[device]) {
		g_default_pool[device] = pool_new(device, CU_MEM_HANDLE_TYPE_NONE);
		if (g_default_pool[device])
			g_default_pool[device]->is_default = 1;
	}
	return g_default_pool[device];
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!pool_out)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pwsim_lock();
	*pool_out = default_pool(dev);
	pwsim_unlock();
	return *pool_out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	/* cuda.h :4497: allocType "Currently must be specified as CU_MEM_ALLOCATION_TYPE_PINNED" */
	if (!pool || !poolProps || poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	rc = device_location(&poolProps->location);
	if (rc)
		return rc;
	if (poolProps->handleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED; /* as cuMemCreate: no Win32, no IMEX */
	pwsim_lock();
	*pool = pool_new(poolProps->location.id, (unsigned)poolProps->handleTypes);
	pwsim_unlock();
	return *pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* The object stays (pointers may still name it); a default pool cannot go. */
CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	CUresult rc = pwsim_ready();
	struct CUmemPoolHandle_st *p;

	if (rc)
		return rc;
	pwsim_lock();
	p = pool_check(pool);
	if (p && !p->is_default)
		p->destroyed = 1;
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

static CUresult alloc_from(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream, int dflt)
{
	CUresult rc = pwsim_ready();
	struct CUmemPoolHandle_st *p;
	struct pwsim_alloc *a;
	struct CUctx_st *ctx;

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(hStream);
	if (rc)
		return rc;
	if (dflt && !pwsim_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	p = dflt ? default_pool(pwsim_current()->device) : pool_check(pool);
	/* cuda.h :13726: "Imported memory pools do not support creating new allocations" */
	if (!p || p->imported) {
		pwsim_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	ctx = pwsim_primary(p->device);
	rc = pwsim_alloc_new(PWSIM_KIND_DEVICE, bytesize, ctx, &a);
	if (rc == CUDA_SUCCESS) {
		a->pool = p;
		*dptr = (CUdeviceptr)a->base;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	return alloc_from(dptr, bytesize, NULL, hStream, 1);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	return alloc_from(dptr, bytesize, NULL, hStream ? hStream : CU_STREAM_PER_THREAD, 1);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
	return alloc_from(dptr, bytesize, pool, hStream, 0);
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
	return alloc_from(dptr, bytesize, pool, hStream ? hStream : CU_STREAM_PER_THREAD, 0);
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
	CUresult rc = pwsim_ready();
	struct CUmemPoolHandle_st *p;
	uint64_t granted;

	if (rc)
		return rc;
	rc = check_access(map, count, &granted);
	if (rc)
		return rc;
	pwsim_lock();
	p = pool_check(pool);
	if (p)
		p->access |= granted;
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

/* Only a pool created with the type can be exported as it; imported pools
 * are not re-exported. */
CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                          CUmemAllocationHandleType handleType, unsigned long long flags)
{
	CUresult rc = pwsim_ready();
	struct CUmemPoolHandle_st *p;
	struct pool_header h;
	int fd;

	if (rc)
		return rc;
	if (!handle_out || flags || !valid_single_type(handleType))
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	p = pool_check(pool);
	if (!p || p->imported || !(p->types & (unsigned)handleType)) {
		pwsim_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "PWSL", 4);
	h.pid = (int32_t)getpid();
	h.id = p->id;
	h.device = pwsim_cfg()->phys[p->device];
	h.types = p->types;
	pwsim_unlock();
	fd = memfd_create("pwsim-pool", MFD_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*(int *)handle_out = fd;
	return CUDA_SUCCESS;
}

CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                            CUmemAllocationHandleType handleType, unsigned long long flags)
{
	CUresult rc = pwsim_ready();
	int fd = (int)(intptr_t)handle;
	struct CUmemPoolHandle_st *p;
	struct pool_header h;

	if (rc)
		return rc;
	if (!pool_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return valid_single_type(handleType) ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
	if (fd < 0 || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h.magic, "PWSL", 4) ||
	    h.device < 0 || h.device >= pwsim_cfg()->nphys)
		return CUDA_ERROR_INVALID_VALUE;
	h.device = pwsim_ordinal_of(h.device); /* as for an allocation's fd above */
	if (h.device < 0)
		return CUDA_ERROR_INVALID_DEVICE;
	pwsim_lock();
	p = pool_new(h.device, h.types);
	if (p) {
		p->imported = 1;
		p->exporter_pid = h.pid;
		p->id = h.id;
	}
	pwsim_unlock();
	*pool_out = p;
	return p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* The allocation must come from a pool that can be shared (created with a
 * handle type); pointers inside it name the whole allocation. */
CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;
	struct ptr_export e;

	if (rc)
		return rc;
	if (!shareData_out)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)ptr);
	if (!a || a->kind != PWSIM_KIND_DEVICE || !a->pool || a->pool->imported || !a->pool->types) {
		pwsim_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	memset(&e, 0, sizeof(e));
	memcpy(e.magic, "PWSP", 4);
	e.pid = (int32_t)getpid();
	e.pool_id = a->pool->id;
	e.buffer_id = a->buffer_id;
	e.size = a->size;
	e.device = pwsim_cfg()->phys[a->device];
	memset(shareData_out, 0, sizeof(*shareData_out));
	memcpy(shareData_out->reserved, &e, sizeof(e));
	pwsim_unlock();
	return CUDA_SUCCESS;
}

/* Into an imported pool, data exported from the pool it was imported from. */
CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)
{
	CUresult rc = pwsim_ready();
	struct CUmemPoolHandle_st *p;
	struct pwsim_alloc *a;
	struct ptr_export e;
	char name[PWSIM_SHM_NAME_MAX];

	if (rc)
		return rc;
	if (!ptr_out || !shareData)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(&e, shareData->reserved, sizeof(e));
	pwsim_lock();
	p = pool_check(pool);
	if (!p || !p->imported || memcmp(e.magic, "PWSP", 4) || e.pid != p->exporter_pid ||
	    e.pool_id != p->id ||
	    snprintf(name, sizeof(name), "/pwsim.%u.%d.%llu", (unsigned)getuid(), (int)e.pid,
	             (unsigned long long)e.buffer_id) >= (int)sizeof(name)) {
		pwsim_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* The exporter's object is gone (freed, exited): INVALID_HANDLE, as for
	 * a stale cuIpcOpenMemHandle. */
	rc = pwsim_alloc_import(name, (size_t)e.size, p->device, pwsim_primary(p->device), &a);
	if (rc == CUDA_SUCCESS) {
		a->kind = PWSIM_KIND_POOL_IMPORT;
		a->pool = p;
		*ptr_out = (CUdeviceptr)a->base;
	}
	pwsim_unlock();
	return rc;
}

/* ======================================================================== */
/* batch prefetch (CUDA 13)                                                  */

#if PWSIM_MAX_VERSION >= 13000
/* cuda.h :14579-14594: the location indices start at 0, increase, stay
 * below count; numPrefetchLocs <= count; flags zero; "Must not be legacy
 * NULL stream".  Each range then prefetches as cuMemPrefetchAsync does. */
static CUresult batch(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idxs,
                      size_t nlocs, unsigned long long flags, CUstream hStream, int per_thread)
{
	CUresult rc = pwsim_ready();
	size_t k = 0;

	if (rc)
		return rc;
	if (!per_thread && (hStream == NULL || hStream == CU_STREAM_LEGACY))
		return CUDA_ERROR_INVALID_VALUE;
	if (per_thread && hStream == NULL)
		hStream = CU_STREAM_PER_THREAD;
	if (flags || !dptrs || !sizes || count == 0 || !locs || !idxs || nlocs == 0 || nlocs > count ||
	    idxs[0] != 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 1; i < nlocs; i++)
		if (idxs[i] <= idxs[i - 1] || idxs[i] >= count)
			return CUDA_ERROR_INVALID_VALUE;
	for (size_t j = 0; j < count; j++) {
		while (k + 1 < nlocs && idxs[k + 1] <= j)
			k++;
		rc = cuMemPrefetchAsync_v2(dptrs[j], sizes[j], locs[k], 0, hStream);
		if (rc)
			return rc;
	}
	return CUDA_SUCCESS;
}

CUresult cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
                                 size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags,
                                 CUstream hStream)
{
	return batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 0);
}

CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                      CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                      size_t numPrefetchLocs, unsigned long long flags, CUstream hStream)
{
	return batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 1);
}

/* The discard leaves the bytes as they are: "indeterminate" includes unchanged. */
CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                           CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                           size_t numPrefetchLocs, unsigned long long flags, CUstream hStream)
{
	return batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 0);
}

CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                                CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                size_t numPrefetchLocs, unsigned long long flags,
                                                CUstream hStream)
{
	return batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 1);
}
#endif

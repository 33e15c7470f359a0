/*
 * Simulated HIP runtime: stream-ordered memory pools shared between
 * processes (hipMemPoolCreate, hipMallocFromPoolAsync, the pool's OS
 * handle and the export of its allocations), over the shared-memory
 * objects hipMalloc's memory already is (hip_sim_table.c).
 *
 * A pool exported as hipMemHandleTypePosixFileDescriptor is a memfd holding
 * one record: magic "PWHP", the exporter's pid, the pool's id, the
 * physical device.  The importer reads it back through the fd it was given
 * (inherited across fork, or passed by the program); the import is a pool
 * of its own, marked imported, that names the exporter's.
 *
 * hipMemPoolPtrExportData (64 bytes) of an allocation is:
 *
 *   offset  size  field
 *        0     4  magic "PWHX"
 *        4     4  exporter's pid
 *        8     8  allocation size in bytes
 *       16     8  exporter's allocation id
 *       24     4  exporter's pool id
 *       28    36  shared-memory object name, NUL-terminated
 *
 * hipMemPoolImportPointer maps that object MAP_SHARED on the imported
 * pool's device: writes on either side are seen by the other.  HIP says
 * the pointer "may be freed with hipFree"; the same allocation imported
 * twice gives the same pointer and one more reference.
 *
 * Return codes that are clr's (hip_mempool.cpp): NULL arguments and flags
 * != 0 -> hipErrorInvalidValue; an export whose type is none or not the
 * pool's handleTypes -> hipErrorInvalidValue; hipMallocFromPoolAsync of 0
 * bytes gives NULL and hipSuccess.  The simulator's own choices (README.md):
 * a handle that names no exported pool -> hipErrorOutOfMemory (clr's answer
 * when its Import fails); hipMallocFromPoolAsync on an imported pool ->
 * hipErrorNotSupported (HIP: "Imported memory pools do not support creating
 * new allocations"; clr does not check it); hipMemPoolImportPointer on a
 * pool that was not imported, or with export data of another pool ->
 * hipErrorInvalidValue; export of an imported pool -> hipErrorInvalidValue;
 * hipMemPoolExportPointer of memory from no pool, or from a pool created
 * for no handle type -> hipErrorInvalidValue.
 */
#include "hip_sim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HSIM_POOL_MAGIC 0x4c4f4f50u /* "POOL" */

struct ihipMemPoolHandle_t {
	uint32_t magic;
	unsigned long long id; /* never reused */
	int device;
	hipMemAllocationHandleType types;
	int imported;
	pid_t exp_pid; /* imported: the exporter and its pool's id */
	uint32_t exp_id;
	struct ihipMemPoolHandle_t *next;
};

struct pool_record {
	char magic[4];
	uint32_t pid;
	uint32_t pool_id;
	int32_t phys;
};

struct ptr_export {
	char magic[4];
	uint32_t pid;
	uint64_t size;
	uint64_t id;
	uint32_t pool_id;
	char name[HSIM_SHM_NAME_MAX];
};
_Static_assert(sizeof(struct ptr_export) == sizeof(hipMemPoolPtrExportData), "export data layout");
_Static_assert(offsetof(struct ptr_export, name) == 28, "export data layout");

static const char POOL_MAGIC[4] = {'P', 'W', 'H', 'P'};
static const char PTR_MAGIC[4] = {'P', 'W', 'H', 'X'};

static struct ihipMemPoolHandle_t *g_pools;
static unsigned long long g_next_pool;

/* Caller holds the lock. */
static struct ihipMemPoolHandle_t *pool_check(hipMemPool_t p)
{
	for (struct ihipMemPoolHandle_t *q = g_pools; q; q = q->next)
		if (q == p && q->magic == HSIM_POOL_MAGIC)
			return q;
	return NULL;
}

static struct ihipMemPoolHandle_t *pool_new(int device)
{
	struct ihipMemPoolHandle_t *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->magic = HSIM_POOL_MAGIC;
	p->id = ++g_next_pool;
	p->device = device;
	p->next = g_pools;
	g_pools = p;
	return p;
}

hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *pool_props)
{
	struct ihipMemPoolHandle_t *p;

	if (!mem_pool || !pool_props || pool_props->allocType != hipMemAllocationTypePinned ||
	    pool_props->location.type != hipMemLocationTypeDevice ||
	    !hsim_valid_device(pool_props->location.id))
		return hipErrorInvalidValue;
	if (pool_props->handleTypes != hipMemHandleTypeNone &&
	    pool_props->handleTypes != hipMemHandleTypePosixFileDescriptor)
		return hipErrorNotSupported; /* Win32 handles: Linux only here */
	hsim_lock();
	p = pool_new(pool_props->location.id);
	if (p)
		p->types = pool_props->handleTypes;
	hsim_unlock();
	if (!p)
		return hipErrorOutOfMemory;
	*mem_pool = p;
	return hipSuccess;
}

hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool)
{
	hipError_t rc = hipErrorInvalidValue;

	hsim_lock();
	for (struct ihipMemPoolHandle_t **pp = &g_pools; *pp; pp = &(*pp)->next)
		if (*pp == mem_pool && mem_pool->magic == HSIM_POOL_MAGIC) {
			*pp = mem_pool->next;
			mem_pool->magic = 0;
			free(mem_pool);
			rc = hipSuccess;
			break;
		}
	hsim_unlock();
	return rc;
}

hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool, hipStream_t stream)
{
	struct ihipMemPoolHandle_t *p;
	struct hsim_alloc *a = NULL;
	hipError_t rc;

	if (!dev_ptr || !mem_pool)
		return hipErrorInvalidValue;
	rc = hsim_stream_check(stream);
	if (rc != hipSuccess)
		return rc;
	if (size == 0) {
		*dev_ptr = NULL;
		return hipSuccess;
	}
	hsim_lock();
	p = pool_check(mem_pool);
	if (!p)
		rc = hipErrorInvalidValue;
	else if (p->imported)
		rc = hipErrorNotSupported;
	else
		rc = hsim_alloc_new(HSIM_KIND_DEVICE, size, p->device, &a);
	if (rc == hipSuccess)
		a->pool_id = p->id;
	hsim_unlock();
	if (rc == hipSuccess)
		*dev_ptr = (void *)a->base;
	return rc;
}

hipError_t hipMemPoolExportToShareableHandle(void *shared_handle, hipMemPool_t mem_pool,
                                             hipMemAllocationHandleType handle_type, unsigned int flags)
{
	struct ihipMemPoolHandle_t *p;
	struct pool_record r;
	hipError_t rc = hipSuccess;

	if (!shared_handle || !mem_pool || flags != 0)
		return hipErrorInvalidValue;
	memset(&r, 0, sizeof(r));
	hsim_lock();
	p = pool_check(mem_pool);
	if (!p || p->imported || handle_type == hipMemHandleTypeNone || handle_type != p->types) {
		rc = hipErrorInvalidValue;
	} else {
		memcpy(r.magic, POOL_MAGIC, sizeof(r.magic));
		r.pid = (uint32_t)getpid();
		r.pool_id = (uint32_t)p->id;
		r.phys = hsim_topo()->phys[p->device];
	}
	hsim_unlock();
	if (rc != hipSuccess)
		return rc;
	int fd = memfd_create("pwhip-pool", 0);
	if (fd < 0)
		return hipErrorOutOfMemory;
	if (pwrite(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		close(fd);
		return hipErrorOutOfMemory;
	}
	*(int *)shared_handle = fd;
	return hipSuccess;
}

/* The fd is the pointer's value, as clr reads it. */
hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t *mem_pool, void *shared_handle,
                                               hipMemAllocationHandleType handle_type, unsigned int flags)
{
	struct ihipMemPoolHandle_t *p;
	struct pool_record r;
	int fd = (int)(intptr_t)shared_handle;
	int dev;

	if (!mem_pool || !shared_handle || flags != 0 || handle_type == hipMemHandleTypeNone)
		return hipErrorInvalidValue;
	if (handle_type != hipMemHandleTypePosixFileDescriptor ||
	    pread(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
	    memcmp(r.magic, POOL_MAGIC, sizeof(r.magic)) || r.phys < 0 || r.phys >= hsim_topo()->nphys)
		return hipErrorOutOfMemory;
	dev = hsim_ordinal_of(r.phys);
	hsim_lock();
	p = pool_new(dev >= 0 ? dev : hsim_current());
	if (p) {
		p->imported = 1;
		p->types = handle_type;
		p->exp_pid = (pid_t)r.pid;
		p->exp_id = r.pool_id;
	}
	hsim_unlock();
	if (!p)
		return hipErrorOutOfMemory;
	*mem_pool = p;
	return hipSuccess;
}

hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData *export_data, void *dev_ptr)
{
	struct hsim_alloc *a;
	struct ihipMemPoolHandle_t *p = NULL;
	struct ptr_export x;
	hipError_t rc = hipErrorInvalidValue;

	if (!export_data || !dev_ptr)
		return hipErrorInvalidValue;
	memset(&x, 0, sizeof(x));
	hsim_lock();
	a = hsim_find_live((uintptr_t)dev_ptr);
	if (a && a->kind == HSIM_KIND_DEVICE && a->pool_id)
		for (p = g_pools; p && p->id != a->pool_id; p = p->next)
			;
	if (p && p->types != hipMemHandleTypeNone) {
		memcpy(x.magic, PTR_MAGIC, sizeof(x.magic));
		x.pid = (uint32_t)a->shm_pid;
		x.size = a->size;
		x.id = a->shm_id;
		x.pool_id = (uint32_t)p->id;
		memcpy(x.name, a->shm_name, sizeof(x.name));
		rc = hipSuccess;
	}
	hsim_unlock();
	if (rc == hipSuccess)
		memcpy(export_data->reserved, &x, sizeof(x));
	return rc;
}

hipError_t hipMemPoolImportPointer(void **dev_ptr, hipMemPool_t mem_pool,
                                   hipMemPoolPtrExportData *export_data)
{
	struct ihipMemPoolHandle_t *p;
	struct hsim_alloc *a;
	struct ptr_export x;
	hipError_t rc = hipSuccess;

	if (!dev_ptr || !mem_pool || !export_data)
		return hipErrorInvalidValue;
	memcpy(&x, export_data->reserved, sizeof(x));
	if (memcmp(x.magic, PTR_MAGIC, sizeof(x.magic)) || x.size == 0 ||
	    !memchr(x.name, 0, sizeof(x.name)) || x.name[0] != '/')
		return hipErrorInvalidValue;
	hsim_lock();
	p = pool_check(mem_pool);
	if (!p || !p->imported || p->exp_pid != (pid_t)x.pid || p->exp_id != x.pool_id) {
		rc = hipErrorInvalidValue;
	} else {
		a = hsim_find_import((pid_t)x.pid, x.id, p->device);
		if (!a) {
			rc = hsim_alloc_import(x.name, (size_t)x.size, p->device, &a);
			if (rc == hipSuccess) {
				a->shm_pid = (pid_t)x.pid;
				a->shm_id = x.id;
				a->pool_import = 1;
			}
		}
		if (rc == hipSuccess) {
			a->ipc_refs++;
			*dev_ptr = (void *)a->base;
		}
	}
	hsim_unlock();
	return rc;
}

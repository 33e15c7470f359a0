/*
 * Simulated ACL virtual memory and shareable handles (CANN 8.x:
 * aclrtReserveMemAddress, aclrtReleaseMemAddress, aclrtMallocPhysical,
 * aclrtFreePhysical, aclrtMapMem, aclrtUnmapMem,
 * aclrtMemExportToShareableHandle, aclrtMemSetPidToShareableHandle,
 * aclrtMemImportFromShareableHandle; include/peerwatch/abi/acl.h).
 *
 * A physical allocation is a POSIX shared-memory object
 * "/pwaclvmm.<uid>.<pid>.<n>": one page of header, then its pages; its
 * aclrtDrvMemHandle is this process's record of it.  A reserved range is
 * anonymous PROT_NONE pages; aclrtMapMem maps the object's pages over part
 * of it (MAP_FIXED), aclrtUnmapMem puts PROT_NONE pages back.  The
 * shareable handle is (pid << 32 | n), which names the object, so an
 * importing process maps the same pages and both see each other's writes.
 * The header holds what an importer checks: the export flags, the trust
 * list, whether the exporter freed the memory.
 *
 * What follows CANN's pages (aclrtMemImportFromShareableHandle,
 * aclrtMemSetPidToShareableHandle, canncommercial 8.0.0): an import in the
 * exporting process, a second import of one shareable handle in a process,
 * an import after the exporter's aclrtFreePhysical, and an import by a
 * process not on the trust list (flags 0) fail.  The codes are the
 * simulator's choice (README.md): ACL_ERROR_RT_NO_PERMISSION for the trust
 * list, ACL_ERROR_RT_PARAM_INVALID for the others, and for a second export
 * of one handle, a handle type other than ACL_MEM_HANDLE_TYPE_NONE
 * (acl_rt.h: "reserved param, must be MEM_HANDLE_TYPE_NONE"), flags other
 * than 0 where acl_rt.h says "must be zero", a non-NULL expectPtr ("must be
 * nullptr"), a range outside a reservation.  NULL out-parameters are
 * ACL_ERROR_INVALID_PARAM, as the IPC calls' are.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl_sim_internal.h"

#define PIDS_MAX 64
#define HDR 4096

struct header {
	char magic[4];
	int32_t exporter;
	uint64_t size, flags;
	int32_t exported, freed, npids, pad_;
	int32_t pids[PIDS_MAX];
};
_Static_assert(sizeof(struct header) <= HDR, "the header fits its page");

static const char MAGIC[4] = {'P', 'W', 'A', 'V'};

struct phys {
	int fd;
	size_t size, maplen;
	int dev;
	bool imported, exported;
	uint64_t shareable; /* exported or imported: its shareable handle */
	struct header *hdr;
	char name[64];
	pid_t owner; /* a forked child inherits the record, not the handle */
	struct phys *next;
};

struct range { /* a reservation, or a mapping */
	uintptr_t base;
	size_t size;
	int dev; /* a mapping: its physical memory's device */
	struct range *next;
};

static struct phys *physs;
static struct range *resvs, *maps;
static unsigned next_id;

static void vmm_name(char *out, size_t len, uint64_t shareable)
{
	snprintf(out, len, "/pwaclvmm.%u.%u.%u", (unsigned)getuid(), (unsigned)(shareable >> 32),
	         (unsigned)(shareable & 0xffffffffu));
}

static size_t pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

/* Under the lock: this process's record of handle h, or one by shareable handle. */
static struct phys *phys_of(aclrtDrvMemHandle h)
{
	for (struct phys *p = physs; p; p = p->next)
		if (p == h && p->owner == getpid())
			return p;
	return NULL;
}

static struct phys *phys_shared(uint64_t shareable, bool imported)
{
	for (struct phys *p = physs; p; p = p->next)
		if ((p->exported || p->imported) && p->imported == imported && p->shareable == shareable &&
		    p->owner == getpid())
			return p;
	return NULL;
}

static struct range *range_in(struct range *list, uintptr_t p, size_t n)
{
	for (struct range *r = list; r; r = r->next)
		if (p >= r->base && n <= r->size && p - r->base <= r->size - n)
			return r;
	return NULL;
}

bool pwsim_acl_vmm_mapped(uintptr_t p, size_t n, uintptr_t *base, size_t *size, int *dev)
{
	const struct range *m = range_in(maps, p, n);
	if (m) {
		*base = m->base;
		*size = m->size;
		*dev = m->dev;
	}
	return m != NULL;
}

static void range_drop(struct range **list, struct range *r)
{
	for (struct range **q = list; *q; q = &(*q)->next)
		if (*q == r) {
			*q = r->next;
			free(r);
			return;
		}
}

PWSIM_ACL_API aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                              uint64_t flags)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!virPtr)
		return ACL_ERROR_INVALID_PARAM;
	if (size == 0 || expectPtr || (alignment & (alignment - 1)))
		return ACL_ERROR_RT_PARAM_INVALID;
	(void)flags; /* the page type: every page here is the host's */
	size_t len = pages(size), extra = alignment > (size_t)sysconf(_SC_PAGESIZE) ? alignment : 0;
	char *m = mmap(NULL, len + extra, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	char *b = extra ? (char *)(((uintptr_t)m + alignment - 1) & ~(uintptr_t)(alignment - 1)) : m;
	if (b > m)
		munmap(m, (size_t)(b - m));
	if (extra && (size_t)(m + len + extra - (b + len)) > 0)
		munmap(b + len, (size_t)(m + len + extra - (b + len)));
	struct range *v = calloc(1, sizeof *v);
	if (!v) {
		munmap(b, len);
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	v->base = (uintptr_t)b;
	v->size = len;
	pwsim_acl_lock();
	v->next = resvs;
	resvs = v;
	pwsim_acl_unlock();
	*virPtr = b;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtReleaseMemAddress(void *virPtr)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!virPtr)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct range *v = range_in(resvs, (uintptr_t)virPtr, 0);
	if (!v || v->base != (uintptr_t)virPtr) {
		r = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		for (struct range *m = maps, *n; m; m = n) { /* its mappings go with it */
			n = m->next;
			if (range_in(v, m->base, m->size))
				range_drop(&maps, m);
		}
		munmap((void *)v->base, v->size);
		range_drop(&resvs, v);
	}
	pwsim_acl_unlock();
	return r;
}

static void phys_free(struct phys *p)
{
	for (struct phys **q = &physs; *q; q = &(*q)->next)
		if (*q == p) {
			*q = p->next;
			break;
		}
	if (p->hdr)
		munmap(p->hdr, HDR);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

PWSIM_ACL_API aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                           const aclrtPhysicalMemProp *prop, uint64_t flags)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!handle || !prop)
		return ACL_ERROR_INVALID_PARAM;
	if (size == 0 || flags || prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return ACL_ERROR_RT_PARAM_INVALID;
	if (!pwsim_acl_valid((int32_t)prop->location.id))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	struct phys *p = calloc(1, sizeof *p);
	if (!p)
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	pwsim_acl_lock();
	uint64_t sh = (uint64_t)(uint32_t)getpid() << 32 | ++next_id;
	vmm_name(p->name, sizeof p->name, sh);
	p->fd = shm_open(p->name, O_RDWR | O_CREAT | O_EXCL, 0600);
	p->size = size;
	p->maplen = pages(size);
	p->dev = (int)prop->location.id;
	p->shareable = sh;
	p->owner = getpid();
	p->hdr = MAP_FAILED;
	if (p->fd >= 0 && ftruncate(p->fd, (off_t)(HDR + p->maplen)) == 0)
		p->hdr = mmap(NULL, HDR, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->hdr == MAP_FAILED) {
		if (p->fd >= 0) {
			close(p->fd);
			shm_unlink(p->name);
		}
		free(p);
		pwsim_acl_unlock();
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	memcpy(p->hdr->magic, MAGIC, sizeof MAGIC);
	p->hdr->exporter = (int32_t)getpid();
	p->hdr->size = size;
	p->next = physs;
	physs = p;
	*handle = p;
	pwsim_acl_unlock();
	return ACL_SUCCESS;
}

/* The exporter's free ends the object's name: no import can follow.  The
 * pages stay while a mapping or an importer's handle holds them (CANN: "The
 * handle is destroyed only when all processes that call this API destroy
 * the shareableHandle"). */
PWSIM_ACL_API aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!handle)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct phys *p = phys_of(handle);
	if (!p) {
		r = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		if (!p->imported) {
			p->hdr->freed = 1;
			shm_unlink(p->name);
		}
		phys_free(p);
	}
	pwsim_acl_unlock();
	return r;
}

PWSIM_ACL_API aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                   uint64_t flags)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!virPtr || !handle)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct phys *p = phys_of(handle);
	struct range *m = NULL;
	if (!p || flags || size == 0 || offset > p->maplen || size > p->maplen - offset ||
	    !range_in(resvs, (uintptr_t)virPtr, pages(size)) || range_in(maps, (uintptr_t)virPtr, 1))
		r = ACL_ERROR_RT_PARAM_INVALID;
	else if (!(m = calloc(1, sizeof *m)))
		r = ACL_ERROR_RT_MEMORY_ALLOCATION;
	else if (mmap(virPtr, pages(size), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->fd,
	              (off_t)(HDR + offset)) == MAP_FAILED)
		r = ACL_ERROR_RT_MEMORY_ALLOCATION;
	if (r == ACL_SUCCESS) {
		m->base = (uintptr_t)virPtr;
		m->size = pages(size);
		m->dev = p->dev;
		m->next = maps;
		maps = m;
	} else {
		free(m);
	}
	pwsim_acl_unlock();
	return r;
}

PWSIM_ACL_API aclError aclrtUnmapMem(void *virPtr)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!virPtr)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct range *m = range_in(maps, (uintptr_t)virPtr, 1);
	if (!m || m->base != (uintptr_t)virPtr) {
		r = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		/* back to the reservation's PROT_NONE; should that fail, the pages
		 * stay mapped, which no caller of an unmapped range can tell */
		if (mmap(virPtr, m->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		         -1, 0) == MAP_FAILED)
			r = ACL_ERROR_RT_PARAM_INVALID;
		range_drop(&maps, m);
	}
	pwsim_acl_unlock();
	return r;
}

PWSIM_ACL_API aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
                                                       aclrtMemHandleType handleType, uint64_t flags,
                                                       uint64_t *shareableHandle)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!handle || !shareableHandle)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct phys *p = phys_of(handle);
	if (!p || p->imported || p->exported || handleType != ACL_MEM_HANDLE_TYPE_NONE ||
	    flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
		r = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		p->exported = true;
		p->hdr->flags = flags;
		p->hdr->exported = 1;
		*shareableHandle = p->shareable;
	}
	pwsim_acl_unlock();
	return r;
}

PWSIM_ACL_API aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!pid)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct phys *p = phys_shared(shareableHandle, false);
	struct header *h = p ? p->hdr : NULL;
	if (!h || pidNum == 0 || pidNum > (size_t)(PIDS_MAX - h->npids)) {
		r = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		for (size_t i = 0; i < pidNum; i++)
			h->pids[h->npids + (int)i] = pid[i];
		h->npids += (int32_t)pidNum;
	}
	pwsim_acl_unlock();
	return r;
}

static bool trusted(const struct header *h)
{
	if (h->flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return true;
	for (int i = 0; i < h->npids && i < PIDS_MAX; i++)
		if (h->pids[i] == (int32_t)getpid())
			return true;
	return false;
}

PWSIM_ACL_API aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                         aclrtDrvMemHandle *handle)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!handle)
		return ACL_ERROR_INVALID_PARAM;
	if (!pwsim_acl_valid(deviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	pwsim_acl_lock();
	if (phys_shared(shareableHandle, false) || phys_shared(shareableHandle, true)) {
		pwsim_acl_unlock(); /* this process's own export, or imported already */
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	struct phys *p = calloc(1, sizeof *p);
	if (!p) {
		pwsim_acl_unlock();
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	vmm_name(p->name, sizeof p->name, shareableHandle);
	p->owner = getpid();
	p->fd = shm_open(p->name, O_RDWR, 0);
	p->hdr = p->fd < 0 ? MAP_FAILED : mmap(NULL, HDR, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->hdr == MAP_FAILED || memcmp(p->hdr->magic, MAGIC, sizeof MAGIC) || !p->hdr->exported ||
	    p->hdr->freed)
		r = ACL_ERROR_RT_PARAM_INVALID;
	else if (!trusted(p->hdr))
		r = ACL_ERROR_RT_NO_PERMISSION;
	if (r != ACL_SUCCESS) {
		if (p->hdr == MAP_FAILED)
			p->hdr = NULL;
		p->next = physs; /* so that phys_free finds it */
		physs = p;
		phys_free(p);
		pwsim_acl_unlock();
		return r;
	}
	p->size = p->hdr->size;
	p->maplen = pages(p->size);
	p->dev = deviceId;
	p->imported = true;
	p->shareable = shareableHandle;
	p->next = physs;
	physs = p;
	*handle = p;
	pwsim_acl_unlock();
	return ACL_SUCCESS;
}

/*
 * The V2 forms (CANN 8.5): the shareable handle by pointer, of the type
 * shareType names: a uint64_t for ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, the
 * handle within one AI Server, which these forms share as the first ones
 * do; ACL_MEM_SHARE_HANDLE_TYPE_FABRIC (across AI Servers, "only Atlas A3")
 * is refused as a feature this simulated machine lacks.  The V2 import
 * makes the handle on the thread's current device.
 */
static aclError share_type_ok(aclrtMemSharedHandleType shareType)
{
	if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	return shareType == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

PWSIM_ACL_API aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                         aclrtMemSharedHandleType shareType,
                                                         void *shareableHandle)
{
	aclError r = share_type_ok(shareType);
	return r != ACL_SUCCESS ? r
	                        : aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, flags,
	                                                          (uint64_t *)shareableHandle);
}

PWSIM_ACL_API aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
                                                         aclrtMemSharedHandleType shareType, int32_t *pid,
                                                         size_t pidNum)
{
	aclError r = share_type_ok(shareType);
	if (r == ACL_SUCCESS && !shareableHandle)
		r = ACL_ERROR_INVALID_PARAM;
	return r != ACL_SUCCESS
	           ? r
	           : aclrtMemSetPidToShareableHandle(*(const uint64_t *)shareableHandle, pid, pidNum);
}

PWSIM_ACL_API aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
                                                           aclrtMemSharedHandleType shareType, uint64_t flags,
                                                           aclrtDrvMemHandle *handle)
{
	aclError r = share_type_ok(shareType);
	if (r == ACL_SUCCESS && (!shareableHandle || flags))
		r = ACL_ERROR_INVALID_PARAM; /* flags: "reserved, fixed at 0" */
	return r != ACL_SUCCESS ? r
	                        : aclrtMemImportFromShareableHandle(*(const uint64_t *)shareableHandle,
	                                                            pwsim_acl_current(), handle);
}

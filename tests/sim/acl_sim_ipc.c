/*
 * Simulated ACL IPC memory by key (CANN 8.x: aclrtIpcMemGetExportKey,
 * aclrtIpcMemSetImportPid, aclrtIpcMemImportByKey, aclrtIpcMemClose;
 * include/peerwatch/abi/acl.h), and aclrtDeviceGetBareTgid.
 *
 * A key is the string "pwacl.<uid>.<pid>.<n>" (NUL-terminated, shorter than
 * the 65 bytes CANN fixes), and names the POSIX shared-memory object
 * "/pwacl.<uid>.<pid>.<n>": one page of header, then the allocation's pages.
 * The export moves the allocation's bytes into the object and maps its pages
 * at the same address (MAP_FIXED), so both sides see each other's writes.
 * The header holds what an importer checks: the trust list (the process ids
 * aclrtIpcMemSetImportPid named), the export flags, whether the exporter
 * closed the key, the device and size.
 *
 * Return codes: a NULL pointer argument is ACL_ERROR_INVALID_PARAM (hicann
 * runtime memory.cpp:1775-1867); a zero size or len and flags above 1 are
 * the runtime's invalid values, ACL_ERROR_RT_PARAM_INVALID (api_error.cc
 * :3747-3760).  The choices where CANN says nothing we could read are
 * listed in README.md: a len other than 65, a pointer that is no allocation
 * or a size past its end, a key this process did not export
 * (SetImportPid), neither imported nor exported (Close):
 * ACL_ERROR_RT_PARAM_INVALID; an import of a key whose object is gone (its
 * memory freed, or the exporter closed it): ACL_ERROR_RT_IPC_ERROR; by a
 * process not on the trust list: ACL_ERROR_RT_NO_PERMISSION.
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
	int32_t phys, policy;
	int32_t closed, npids;
	int32_t pids[PIDS_MAX];
};
_Static_assert(sizeof(struct header) <= HDR, "the header fits its page");

static const char MAGIC[4] = {'P', 'W', 'A', 'K'};

/* An export of this process: its key and header mapping. */
struct pwsim_acl_export {
	char key[PW_ACL_IPC_KEY_LEN];
	struct header *hdr;
	bool unlinked;
	pid_t owner; /* the process that exported it: a forked child inherits the record, not the key */
};

static unsigned next_id;

static void shm_name(char *out, size_t len, const char *key)
{
	snprintf(out, len, "/%s", key);
}

/* Under the lock: the allocation this process exported as key, or imported. */
static struct pwsim_acl_alloc *by_key(const char *key, bool imported)
{
	for (struct pwsim_acl_alloc *a = pwsim_acl_alloc_first(); a; a = a->next)
		if (a->imported == imported && a->exp && a->exp->owner == getpid() &&
		    !strncmp(a->exp->key, key, sizeof a->exp->key))
			return a;
	return NULL;
}

static void unlink_export(struct pwsim_acl_export *e)
{
	char name[PW_ACL_IPC_KEY_LEN + 2];
	if (e->unlinked || e->owner != getpid())
		return;
	shm_name(name, sizeof name, e->key);
	shm_unlink(name);
	e->unlinked = true;
}

void pwsim_acl_export_freed(struct pwsim_acl_alloc *a)
{
	unlink_export(a->exp);
	munmap(a->exp->hdr, HDR);
	free(a->exp);
	a->exp = NULL;
}

/* The allocation's pages into a new object, mapped back where they were. */
static aclError share(struct pwsim_acl_alloc *a, uint64_t flags)
{
	struct pwsim_acl_export *e = calloc(1, sizeof *e);
	char name[PW_ACL_IPC_KEY_LEN + 2];
	if (!e)
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	e->owner = getpid();
	snprintf(e->key, sizeof e->key, "pwacl.%u.%d.%u", (unsigned)getuid(), (int)getpid(), ++next_id);
	shm_name(name, sizeof name, e->key);
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		free(e);
		return ACL_ERROR_RT_IPC_ERROR;
	}
	void *tmp = MAP_FAILED, *hdr = MAP_FAILED;
	if (ftruncate(fd, (off_t)(HDR + a->maplen)) == 0) {
		hdr = mmap(NULL, HDR, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		tmp = mmap(NULL, a->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, HDR);
	}
	bool ok = hdr != MAP_FAILED && tmp != MAP_FAILED;
	if (ok) {
		memcpy(tmp, (void *)a->base, a->maplen);
		ok = mmap((void *)a->base, a->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		          HDR) != MAP_FAILED;
	}
	if (tmp != MAP_FAILED)
		munmap(tmp, a->maplen);
	close(fd);
	if (!ok) {
		if (hdr != MAP_FAILED)
			munmap(hdr, HDR);
		shm_unlink(name);
		free(e);
		return ACL_ERROR_RT_IPC_ERROR;
	}
	e->hdr = hdr;
	struct header *h = hdr;
	memcpy(h->magic, MAGIC, sizeof MAGIC);
	h->exporter = (int32_t)getpid();
	h->size = a->size;
	h->flags = flags;
	h->phys = pwsim_acl.phys[a->dev];
	h->policy = a->policy;
	a->exp = e;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
                                               uint64_t flags)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!devPtr || !key)
		return ACL_ERROR_INVALID_PARAM;
	if (size == 0 || len != PW_ACL_IPC_KEY_LEN ||
	    flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return ACL_ERROR_RT_PARAM_INVALID;
	pwsim_acl_lock();
	struct pwsim_acl_alloc *a = pwsim_acl_alloc_at((uintptr_t)devPtr, size);
	if (!a || a->imported)
		r = ACL_ERROR_RT_PARAM_INVALID;
	else if (!a->exp)
		r = share(a, flags);
	else
		a->exp->hdr->flags = flags; /* exported again: the same key */
	if (r == ACL_SUCCESS)
		snprintf(key, len, "%s", a->exp->key);
	pwsim_acl_unlock();
	return r;
}

PWSIM_ACL_API aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!key || !pid)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct pwsim_acl_alloc *a = by_key(key, false);
	struct header *h = a ? a->exp->hdr : NULL;
	if (!h || num == 0 || num > (size_t)(PIDS_MAX - h->npids)) {
		r = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		for (size_t i = 0; i < num; i++)
			h->pids[h->npids + (int)i] = pid[i];
		h->npids += (int32_t)num;
	}
	pwsim_acl_unlock();
	return r;
}

/* The device of this process that is physical device phys, else the current one. */
static int user_dev(int phys)
{
	for (int d = 0; d < pwsim_acl.ndev; d++)
		if (pwsim_acl.phys[d] == phys)
			return d;
	return pwsim_acl_current();
}

static bool trusted(const struct header *h)
{
	if (h->flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return true;
	for (int i = 0; i < h->npids && i < PIDS_MAX; i++)
		if (h->pids[i] == (int32_t)getpid())
			return true;
	return false;
}

PWSIM_ACL_API aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!devPtr || !key)
		return ACL_ERROR_INVALID_PARAM;
	if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS ||
	    strnlen(key, PW_ACL_IPC_KEY_LEN) == PW_ACL_IPC_KEY_LEN)
		return ACL_ERROR_RT_PARAM_INVALID;
	pwsim_acl_lock();
	struct pwsim_acl_alloc *a = by_key(key, true);
	if (a) { /* imported again: the same mapping, one more reference */
		a->refs++;
		*devPtr = (void *)a->base;
		pwsim_acl_unlock();
		return ACL_SUCCESS;
	}
	char name[PW_ACL_IPC_KEY_LEN + 2];
	shm_name(name, sizeof name, key);
	int fd = shm_open(name, O_RDWR, 0);
	struct header *h = fd < 0 ? MAP_FAILED : mmap(NULL, HDR, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	void *p = MAP_FAILED;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (h == MAP_FAILED || memcmp(h->magic, MAGIC, sizeof MAGIC) || h->closed)
		r = ACL_ERROR_RT_IPC_ERROR;
	else if (!trusted(h))
		r = ACL_ERROR_RT_NO_PERMISSION;
	else
		p = mmap(NULL, (h->size + page - 1) / page * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		         HDR);
	if (r == ACL_SUCCESS && p == MAP_FAILED)
		r = ACL_ERROR_RT_IPC_ERROR;
	if (r == ACL_SUCCESS) {
		a = calloc(1, sizeof *a);
		struct pwsim_acl_export *e = calloc(1, sizeof *e);
		if (!a || !e) {
			free(a);
			free(e);
			munmap(p, (h->size + page - 1) / page * page);
			r = ACL_ERROR_RT_MEMORY_ALLOCATION;
		} else {
			a->exp = e;
			a->base = (uintptr_t)p;
			a->size = h->size;
			a->maplen = (h->size + page - 1) / page * page;
			a->dev = user_dev(h->phys);
			a->policy = h->policy;
			a->imported = true;
			a->refs = 1;
			snprintf(a->exp->key, sizeof a->exp->key, "%s", key);
			a->exp->owner = getpid();
			a->exp->unlinked = true; /* the exporter's object: never this side's to remove */
			pwsim_acl_alloc_insert(a);
			*devPtr = p;
		}
	}
	if (h != MAP_FAILED)
		munmap(h, HDR);
	if (fd >= 0)
		close(fd);
	pwsim_acl_unlock();
	return r;
}

/* An importer's close drops one reference and unmaps at the last; the
 * exporter's ends the key: its object goes, no import can follow, and its
 * memory stays until aclrtFree.  (CANN: every importer closes first, "or an
 * exception may occur"; here the importers' mappings stay valid.) */
PWSIM_ACL_API aclError aclrtIpcMemClose(const char *key)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!key)
		return ACL_ERROR_INVALID_PARAM;
	pwsim_acl_lock();
	struct pwsim_acl_alloc *a = by_key(key, true);
	if (a) {
		if (--a->refs == 0 && pwsim_acl_alloc_unlink(a)) {
			munmap((void *)a->base, a->maplen);
			free(a->exp);
			free(a);
		}
	} else if ((a = by_key(key, false))) {
		a->exp->hdr->closed = 1;
		unlink_export(a->exp);
	} else {
		r = ACL_ERROR_RT_PARAM_INVALID;
	}
	pwsim_acl_unlock();
	return r;
}

/* acl_rt.h:3427: the process id the trust list takes; here getpid(). */
PWSIM_ACL_API aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!pid)
		return ACL_ERROR_INVALID_PARAM;
	*pid = (int32_t)getpid();
	return ACL_SUCCESS;
}

/*
 * Simulated CUDA driver: interprocess memory and event handles.
 *
 * A memory handle (CUipcMemHandle, 64 bytes, host byte order) is:
 *
 *   offset  size  field
 *        0     4  magic "PWSM"
 *        4     4  exporter's pid
 *        8     8  allocation size in bytes (as passed to cuMemAlloc)
 *       16     8  exporter's buffer id (its CU_POINTER_ATTRIBUTE_BUFFER_ID)
 *       24     4  physical device of the allocation (the same in every
 *                 process, whatever CUDA_VISIBLE_DEVICES lets each see)
 *       28     4  exporter's uid
 *       32    32  zeros, not read
 *
 * It always names the whole allocation, and is built from zeroed bytes, so two
 * calls on one allocation give byte-identical handles (docs/facts-cuda.md).
 * The importer shm_open()s the exporter's shared-memory object, named
 * "/pwsim.<uid>.<pid>.<buffer id>" from the handle's fields, and maps it
 * MAP_SHARED: writes on either side are seen by the other.  The real driver
 * maps a handle whose byte 40 was changed (docs/facts-cuda.md): it does not
 * read that byte, so neither does this one.  Which other bytes the driver
 * leaves unread was not measured; this one reads none past 32.
 *
 * An event handle (CUipcEventHandle) is: magic "PWSE", exporter's pid (4),
 * event id (8), event flags (4), zeros.  Streams are synchronous, so an
 * imported event is a new local event that is always complete.
 *
 * Choices where docs/facts-cuda.md has no measurement:
 * - a handle that is not ours (bad magic, size 0, bad device) ->
 *   CUDA_ERROR_INVALID_HANDLE;
 * - a handle whose object no longer exists (the exporter freed it or exited)
 *   -> CUDA_ERROR_INVALID_HANDLE (the HIP document calls use after the
 *   exporter's free undefined; a mapping opened before the free stays valid);
 * - opening in a context whose device has no peer link to the exporter's
 *   device -> CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, what UCX users saw the real
 *   driver answer ("peer access is not supported between these two devices",
 *   openucx/ucx#6360);
 * - the mapping lives on the importer's ordinal of the exporter's device
 *   (what the lazy flag enables access to), or, where the importer cannot
 *   see that device, on its current one; its pointer attributes name the
 *   importing context and that context's device, as measured
 *   (docs/facts-cuda.md);
 * - an event handle opened in its exporting process -> INVALID_CONTEXT, as
 *   for memory; one whose exporter has exited -> INVALID_HANDLE.
 */
#include "sim_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct ipc_mem {
	char magic[4];
	uint32_t pid;
	uint64_t size;
	uint64_t buffer_id;
	int32_t device;
	uint32_t uid;
	char unread[32];
};
_Static_assert(sizeof(struct ipc_mem) == CU_IPC_HANDLE_SIZE, "IPC memory handle layout");
_Static_assert(offsetof(struct ipc_mem, unread) == 32, "IPC memory handle layout");

struct ipc_event {
	char magic[4];
	uint32_t pid;
	uint64_t event_id;
	uint32_t flags;
};
_Static_assert(sizeof(struct ipc_event) <= CU_IPC_HANDLE_SIZE, "IPC event handle layout");

static const char MEM_MAGIC[4] = {'P', 'W', 'S', 'M'};
static const char EVENT_MAGIC[4] = {'P', 'W', 'S', 'E'};

/* ---- memory ---- */

static void mem_handle(const struct pwsim_alloc *a, CUipcMemHandle *h)
{
	struct ipc_mem m;

	memset(&m, 0, sizeof(m));
	memcpy(m.magic, MEM_MAGIC, sizeof(m.magic));
	m.pid = (uint32_t)a->shm_pid;
	m.size = a->size;
	m.buffer_id = a->shm_id;
	m.device = pwsim_cfg()->phys[a->device];
	m.uid = (uint32_t)getuid();
	memcpy(h->reserved, &m, sizeof(m));
}

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)dptr);
	/* docs/facts-cuda.md: managed memory, a host pointer, a freed allocation
	 * -> INVALID_VALUE.  An interior pointer is accepted (line 78). */
	/* Pool memory (cuMemAllocAsync) -> INVALID_VALUE, as reported in
	 * chelsea0x3b/cudarc#521 and openucx/ucx#10065; VMM mappings are not
	 * KIND_DEVICE and get the same answer (not measured). */
	if (a && a->kind == PWSIM_KIND_DEVICE && !a->pool)
		mem_handle(a, pHandle);
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

/* The handle's fields, and the name of the exporter's object in name. */
static int mem_parse(const CUipcMemHandle *h, struct ipc_mem *m, char name[PWSIM_SHM_NAME_MAX])
{
	memcpy(m, h->reserved, sizeof(*m));
	if (memcmp(m->magic, MEM_MAGIC, sizeof(m->magic)) || m->size == 0 || m->device < 0 ||
	    m->device >= pwsim_cfg()->nphys)
		return -1;
	int n = snprintf(name, PWSIM_SHM_NAME_MAX, "/pwsim.%u.%u.%llu", m->uid, m->pid,
	                 (unsigned long long)m->buffer_id);
	return n > 0 && n < PWSIM_SHM_NAME_MAX ? 0 : -1;
}

/* The same handle opened again in the same context gives the same pointer
 * and one more reference (cuda.h :9369-9371, measured on H100s and H200s);
 * opened in another device's context it is a second mapping at another
 * address (measured on H100s).  The lazy flag enables peer access from the
 * current context to the exporter's device's primary context "as if the user called
 * cuCtxEnablePeerAccess" (cuda.h), where the pair is peer-capable: a later
 * cuCtxEnablePeerAccess answers ALREADY_ENABLED. */
static CUresult mem_open(const struct ipc_mem *m, const char *name, CUdeviceptr *pdptr, unsigned int flags)
{
	struct pwsim_alloc *a;
	struct CUctx_st *cur = pwsim_current();
	CUresult rc = CUDA_SUCCESS;
	/* m->device is physical; dev its ordinal here (-1: not visible) */
	int dev = pwsim_ordinal_of(m->device);
	int here = pwsim_cfg()->phys[cur->device];

	if (here != m->device && !((pwsim_cfg()->link[here] >> m->device) & 1))
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	pwsim_lock();
	a = pwsim_find_import((pid_t)m->pid, m->buffer_id, cur);
	if (!a) {
		rc = pwsim_alloc_import(name, (size_t)m->size, dev >= 0 ? dev : cur->device, cur, &a);
		if (rc == CUDA_SUCCESS) {
			a->shm_pid = (pid_t)m->pid;
			a->shm_id = m->buffer_id;
		}
	}
	if (rc == CUDA_SUCCESS) {
		a->ipc_refs++;
		*pdptr = (CUdeviceptr)a->base;
		if ((flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) && dev >= 0 && cur->device != dev &&
		    pwsim_can_access(cur->device, dev))
			pwsim_peer_set(cur, pwsim_primary(dev), 1);
	}
	pwsim_unlock();
	return rc;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
	CUresult rc = pwsim_ready();
	struct ipc_mem m;
	char name[PWSIM_SHM_NAME_MAX];

	if (rc)
		return rc;
	if (!pdptr)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (mem_parse(&handle, &m, name))
		return CUDA_ERROR_INVALID_HANDLE;
	/* docs/facts-cuda.md: in the exporting process -> 201 */
	if (m.pid == (uint32_t)getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	/* line 82: without CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS -> INVALID_VALUE;
	 * line 83: other, undefined bits (7) are silently accepted */
	if (!(Flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
		return CUDA_ERROR_INVALID_VALUE;
	return mem_open(&m, name, pdptr, Flags);
}

/* Same signature and behaviour (cuda.h :25808). */
CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
	return cuIpcOpenMemHandle_v2(pdptr, handle, Flags);
}

/* Only a pointer cuIpcOpenMemHandle returned (still open) can be closed
 * (docs/facts-cuda.md); the last close unmaps it (cuda.h :9418-9419). */
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)dptr);
	if (!a || a->kind != PWSIM_KIND_IPC || a->base != (uintptr_t)dptr)
		rc = CUDA_ERROR_INVALID_VALUE;
	else if (--a->ipc_refs == 0)
		pwsim_alloc_retire(a);
	pwsim_unlock();
	return rc;
}

/* ---- events ---- */

CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
	CUresult rc = pwsim_ready();
	struct CUevent_st *e;
	struct ipc_event m;

	if (rc)
		return rc;
	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	memset(&m, 0, sizeof(m));
	pwsim_lock();
	e = pwsim_event_check(event);
	if (!e) {
		rc = CUDA_ERROR_INVALID_HANDLE;
	} else if (!(e->flags & CU_EVENT_INTERPROCESS)) {
		/* cuda.h :9243-9244 asks for both flags (cuEventCreate refuses
		 * the interprocess one alone); an event without it gets 400,
		 * INVALID_HANDLE, from the real driver and runtime (H100 and
		 * H200, driver 580; docs/facts-cuda.md), not INVALID_VALUE */
		rc = CUDA_ERROR_INVALID_HANDLE;
	} else {
		memcpy(m.magic, EVENT_MAGIC, sizeof(m.magic));
		m.pid = (uint32_t)getpid();
		m.event_id = e->id;
		m.flags = e->flags;
	}
	pwsim_unlock();
	if (rc == CUDA_SUCCESS) {
		memset(pHandle->reserved, 0, sizeof(pHandle->reserved));
		memcpy(pHandle->reserved, &m, sizeof(m));
	}
	return rc;
}

static int process_exists(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
	CUresult rc = pwsim_ready();
	struct ipc_event m;
	struct CUevent_st *e;

	if (rc)
		return rc;
	if (!phEvent)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	memcpy(&m, handle.reserved, sizeof(m));
	if (memcmp(m.magic, EVENT_MAGIC, sizeof(m.magic)) || !process_exists((pid_t)m.pid))
		return CUDA_ERROR_INVALID_HANDLE;
	if (m.pid == (uint32_t)getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	pwsim_lock();
	/* cuda.h :9271-9272: a locally created event with CU_EVENT_DISABLE_TIMING */
	e = pwsim_event_new(CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS, pwsim_current());
	pwsim_unlock();
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*phEvent = e;
	return CUDA_SUCCESS;
}

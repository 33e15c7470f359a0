/*
 * Simulated HIP runtime: interprocess memory and event handles.
 *
 * A memory handle (hipIpcMemHandle_t, 64 bytes, host byte order) is:
 *
 *   offset  size  field
 *        0     4  magic "PWHM"
 *        4     4  exporter's pid
 *        8     8  allocation size in bytes (as passed to hipMalloc): psize
 *       16     8  exporter's allocation id
 *       24     4  physical device of the allocation (sim_topo.h)
 *       28    36  shared-memory object name "/pwhip.<uid>.<pid>.<id>",
 *                 NUL-terminated, zero-padded
 *
 * It names the whole allocation and is built from zeroed bytes, so two calls
 * on one allocation give identical bytes.  The importer maps the object
 * MAP_SHARED: writes on either side are seen by the other.
 *
 * hipIpcOpenMemHandle checks, in clr's order (hip_memory.cpp; facts A7):
 * NULL devPtr or flags != hipIpcMemLazyEnablePeerAccess (0 in 5.x, 1 from
 * 6.0) -> InvalidValue; psize 0 -> InvalidValue; the exporting process ->
 * InvalidContext; a handle that cannot be attached (not ours, object gone) ->
 * InvalidDevicePointer.  The same handle opened twice gives the same pointer
 * and one more reference; hipIpcCloseMemHandle drops one, the last unmaps.
 *
 * An event handle is: magic "PWHE", exporter's pid (4), event id (8), zeros.
 * Streams are synchronous, so an opened event is a new local event, always
 * complete.  Choices: an event without hipEventInterprocess -> InvalidValue
 * (HIP documents that flag as required); opened in its exporter ->
 * InvalidContext, as for memory; a foreign handle -> InvalidValue.
 */
#include "hip_sim_internal.h"

#include <string.h>
#include <unistd.h>

struct ipc_mem {
	char magic[4];
	uint32_t pid;
	uint64_t size;
	uint64_t id;
	int32_t device;
	char name[HSIM_SHM_NAME_MAX];
};
_Static_assert(sizeof(struct ipc_mem) == HIP_IPC_HANDLE_SIZE, "IPC memory handle layout");
_Static_assert(offsetof(struct ipc_mem, name) == 28, "IPC memory handle layout");

struct ipc_event {
	char magic[4];
	uint32_t pid;
	uint64_t event_id;
};
_Static_assert(sizeof(struct ipc_event) <= HIP_IPC_HANDLE_SIZE, "IPC event handle layout");

static const char MEM_MAGIC[4] = {'P', 'W', 'H', 'M'};
static const char EVENT_MAGIC[4] = {'P', 'W', 'H', 'E'};

/* clr: NULL handle or pointer -> InvalidValue; not device memory (managed,
 * host, freed, an IPC mapping) -> InvalidDevicePointer.  An interior pointer
 * names its allocation. */
hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)
{
	struct hsim_alloc *a;
	struct ipc_mem m;
	hipError_t rc = hipSuccess;

	if (!handle || !devPtr)
		return hipErrorInvalidValue;
	memset(&m, 0, sizeof(m));
	hsim_lock();
	a = hsim_find_live((uintptr_t)devPtr);
	if (a && a->kind == HSIM_KIND_DEVICE) {
		memcpy(m.magic, MEM_MAGIC, sizeof(m.magic));
		m.pid = (uint32_t)a->shm_pid;
		m.size = a->size;
		m.id = a->shm_id;
		m.device = hsim_topo()->phys[a->device];
		memcpy(m.name, a->shm_name, sizeof(m.name));
	} else {
		rc = hipErrorInvalidDevicePointer;
	}
	hsim_unlock();
	if (rc == hipSuccess)
		memcpy(handle->reserved, &m, sizeof(m));
	return rc;
}

hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned int flags)
{
	struct ipc_mem m;
	struct hsim_alloc *a;
	hipError_t rc = hipSuccess;

	if (!devPtr || flags != hipIpcMemLazyEnablePeerAccess)
		return hipErrorInvalidValue;
	memcpy(&m, handle.reserved, sizeof(m));
	if (m.size == 0)
		return hipErrorInvalidValue;
	if (m.pid == (uint32_t)getpid())
		return hipErrorInvalidContext;
	if (memcmp(m.magic, MEM_MAGIC, sizeof(m.magic)) || !memchr(m.name, 0, sizeof(m.name)) ||
	    m.name[0] != '/' || m.device < 0 || m.device >= hsim_topo()->nphys)
		return hipErrorInvalidDevicePointer;
	hsim_lock();
	a = hsim_find_import((pid_t)m.pid, m.id, hsim_current());
	if (!a) {
		rc = hsim_alloc_import(m.name, (size_t)m.size, hsim_current(), &a);
		if (rc == hipSuccess) {
			a->shm_pid = (pid_t)m.pid;
			a->shm_id = m.id;
		}
	}
	if (rc == hipSuccess) {
		a->ipc_refs++;
		*devPtr = (void *)a->base;
	}
	hsim_unlock();
	if (rc == hipSuccess)
		hsim_lazy_enable(hsim_current(), m.device);
	return rc;
}

/* NULL or a pointer that is not an open IPC mapping -> InvalidValue. */
hipError_t hipIpcCloseMemHandle(void *devPtr)
{
	struct hsim_alloc *a;
	hipError_t rc = hipSuccess;

	if (!devPtr)
		return hipErrorInvalidValue;
	hsim_lock();
	a = hsim_find_live((uintptr_t)devPtr);
	if (!a || a->kind != HSIM_KIND_IPC || a->base != (uintptr_t)devPtr)
		rc = hipErrorInvalidValue;
	else if (--a->ipc_refs == 0)
		hsim_alloc_retire(a);
	hsim_unlock();
	return rc;
}

hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t event)
{
	struct ihipEvent_t *e;
	struct ipc_event m;
	hipError_t rc = hipSuccess;

	if (!handle)
		return hipErrorInvalidValue;
	memset(&m, 0, sizeof(m));
	hsim_lock();
	e = hsim_event_check(event);
	if (!e) {
		rc = hipErrorInvalidHandle;
	} else if (!(e->flags & hipEventInterprocess)) {
		rc = hipErrorInvalidValue;
	} else {
		memcpy(m.magic, EVENT_MAGIC, sizeof(m.magic));
		m.pid = (uint32_t)getpid();
		m.event_id = e->id;
	}
	hsim_unlock();
	if (rc == hipSuccess) {
		memset(handle->reserved, 0, sizeof(handle->reserved));
		memcpy(handle->reserved, &m, sizeof(m));
	}
	return rc;
}

hipError_t hipIpcOpenEventHandle(hipEvent_t *event, hipIpcEventHandle_t handle)
{
	struct ipc_event m;
	struct ihipEvent_t *e;

	if (!event)
		return hipErrorInvalidValue;
	memcpy(&m, handle.reserved, sizeof(m));
	if (memcmp(m.magic, EVENT_MAGIC, sizeof(m.magic)) || m.pid == 0)
		return hipErrorInvalidValue;
	if (m.pid == (uint32_t)getpid())
		return hipErrorInvalidContext;
	hsim_lock();
	e = hsim_event_new(hipEventDisableTiming | hipEventInterprocess);
	hsim_unlock();
	if (!e)
		return hipErrorOutOfMemory;
	*event = e;
	return hipSuccess;
}

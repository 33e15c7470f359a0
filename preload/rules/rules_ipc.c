/* Rules on IPC memory and event handles (CUDA Driver/Runtime API and HIP
 * Runtime API inter-process communication; the cross-process registry). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "peerwatch/abi/acl.h"
#include "state/devices.h"
#include "rules/rules.h"

/* HIP Runtime API, IPC: "Takes a pointer to the base of an existing device memory allocation". */
PW_RULE_FN(IPC_EXPORT_INTERIOR_POINTER)
{
	(void)s;
	const struct pw_mem *m = &op->dst;
	if (!m->known || m->managed || m->ptr == m->base)
		return false;
	snprintf(msg, len,
	         "%s is given 0x%" PRIx64 ", %" PRIu64 " bytes into the allocation at 0x%" PRIx64 " (%" PRIu64
	         " bytes): the handle names the whole allocation, so the importer maps 0x%" PRIx64
	         ", not the pointer passed",
	         op->api, m->ptr, m->ptr - m->base, m->base, m->size, m->base);
	return true;
}

PW_RULE_FN(IPC_EXPORT_MANAGED)
{
	(void)s;
	if (!op->dst.managed)
		return false;
	snprintf(msg, len,
	         "%s is given managed memory 0x%" PRIx64 "; only device allocations can be exported", op->api,
	         op->dst.ptr);
	return true;
}

/* cuIpcGetMemHandle: "dptr - Base pointer to previously allocated device
 * memory"; the driver refuses host memory with invalid value (H100, H200). */
PW_RULE_FN(IPC_EXPORT_HOST)
{
	(void)s;
	const struct pw_mem *m = &op->dst;
	if (m->managed || op->dst_freed || op->dst_pool || op->dst_vmm)
		return false;
	if (m->known && m->host) {
		snprintf(msg, len,
		         "%s is given 0x%" PRIx64 ", page-locked host memory (0x%" PRIx64 ", %" PRIu64
		         " bytes): only device memory can be exported",
		         op->api, m->ptr, m->base, m->size);
		return true;
	}
	if (m->known)
		return false;
	if (!m->ptr)
		snprintf(msg, len, "%s is given NULL: only device memory can be exported", op->api);
	else
		snprintf(msg, len,
		         "%s is given 0x%" PRIx64 ", which is no device allocation the runtime knows (host "
		         "memory, or no allocation at all): only device memory can be exported",
		         op->api, m->ptr);
	return true;
}

/* cuIpcGetMemHandle: "Base pointer to previously allocated device memory":
 * freed memory is none (the driver says invalid value, H100, H200). */
PW_RULE_FN(IPC_EXPORT_FREED)
{
	(void)s;
	if (!op->dst_freed || op->dst.known)
		return false;
	snprintf(msg, len,
	         "%s is given 0x%" PRIx64 ", in the allocation at 0x%" PRIx64
	         " that this process already freed: a handle to freed memory names nothing",
	         op->api, op->dst.ptr, op->freed_base);
	return true;
}

PW_RULE_FN(IPC_OPEN_SAME_PROCESS)
{
	bool mine = pw_state_export_of_handle(s, op->handle) != NULL ||
	            (op->reg_known && op->reg_exporter_pid == op->self_pid);
	if (!mine)
		return false;
	snprintf(msg, len, "%s opens a handle this process exported itself", op->api);
	return true;
}

/* 002/cuda.h: "Must be specified as ...LazyEnablePeerAccess". */
PW_RULE_FN(IPC_OPEN_FLAGS)
{
	(void)s;
	if (op->flags == op->ipc_lazy_flag)
		return false;
	snprintf(msg, len,
	         "%s passes flags 0x%llx; the only defined value is 0x%llx (lazy enable peer access)%s",
	         op->api, (unsigned long long)op->flags, (unsigned long long)op->ipc_lazy_flag,
	         op->flags_note ? op->flags_note : "");
	return true;
}

/* "cuIpcMemHandles from each CUdevice in a given process may only be opened
 * by one CUcontext per CUdevice per other process" (CUDA Driver API,
 * cuIpcOpenMemHandle; HIP says the same of hipIpcMemHandles).  Opening it
 * again in the same context is no break: "the reference count on the handle
 * is incremented by 1 and the existing device pointer is returned". */
PW_RULE_FN(IPC_OPEN_SECOND_CONTEXT)
{
	const struct pw_ipc_map *m = pw_state_map_other_ctx(s, op->handle, op->ctx, op->cur_dev,
	                                                    op->reg_known ? op->reg_exporter_pid : 0,
	                                                    op->reg_known ? op->reg_device : PW_NO_DEV);
	if (!m)
		return false;
	bool same = op->handle && !memcmp(m->handle, op->handle, PW_IPC_HANDLE_BYTES);
	if (same)
		snprintf(msg, len,
		         "%s opens a handle in context 0x%" PRIx64 " of device %d, but context 0x%" PRIx64
		         " of the same device already has it open (at 0x%" PRIx64
		         "): a handle may be opened by one context per device of a process",
		         op->api, op->ctx, op->cur_dev, m->ctx, m->ptr);
	else
		snprintf(msg, len,
		         "%s opens a handle of pid %d's device %d in context 0x%" PRIx64 " of device %d, but "
		         "context 0x%" PRIx64 " of the same device already has one of that device's handles "
		         "open (at 0x%" PRIx64
		         "): handles of one exporting device may be opened by one context "
		         "per device of a process",
		         op->api, m->exp_pid, m->exp_dev, op->ctx, op->cur_dev, m->ctx, m->ptr);
	return true;
}

/* An open of a handle no traced process of the run exported.  Only said
 * where it can be known: with the registry on, every export of every traced
 * process of the run is in it. */
PW_RULE_FN(IPC_OPEN_UNEXPORTED)
{
	(void)s;
	if (!op->reg_active || op->reg_known || !op->handle || pw_state_export_of_handle(s, op->handle))
		return false;
	snprintf(msg, len,
	         "%s opens a handle that no traced process of this run exported (the run's IPC registry "
	         "holds every export its traced processes made): either its exporter is not traced, or "
	         "these bytes are no handle any process exported (stale, or never sent)",
	         op->api);
	return true;
}

/* HIP Runtime API, IPC: hipFree on an exported region before every importer closed it is
 * undefined behaviour; opening after the free is the same mistake seen from
 * the importer's side. */
PW_RULE_FN(IPC_OPEN_STALE)
{
	(void)s;
	if (!op->reg_known || (!op->reg_freed && op->reg_exporter_alive))
		return false;
	snprintf(msg, len, "%s opens a handle whose exporter (pid %d) %s", op->api, op->reg_exporter_pid,
	         op->reg_freed ? "already freed the allocation" : "has exited");
	return true;
}

/* HIP Runtime API, IPC, hipIpcOpenMemHandle: "For contexts on different devices
 * hipIpcOpenMemHandle can attempt to enable peer access between the devices
 * ... hipDeviceCanAccessPeer can determine if a mapping is possible."  The
 * exporter's device is known by UUID (the registry), whatever this process
 * calls it. */
PW_RULE_FN(IPC_OPEN_UNREACHABLE)
{
	(void)s;
	if (!op->reg_known || !op->reg_dev_known || op->reg_can_access != 0 || op->reg_dev == op->cur_dev)
		return false;
	char here[128], there[128];
	pw_devices_name(op->vendor, op->cur_dev, here, sizeof here);
	pw_devices_name(op->vendor, op->reg_dev, there, sizeof there);
	snprintf(msg, len,
	         "%s opens, on %s, memory that pid %d exported from %s, but the runtime says the first "
	         "cannot access the second: no mapping is possible",
	         op->api, here, op->reg_exporter_pid, there);
	return true;
}

PW_RULE_FN(IPC_CLOSE_UNKNOWN)
{
	/* ACL's close names the key: "Processes that call both
	 * acl.rt.ipc_mem_import_by_key and acl.rt.ipc_mem_get_export_key also
	 * need to call this API" (aclrtIpcMemClose): a process that did neither
	 * with the key has nothing of it to close */
	if (op->close_by_key) {
		if (!op->handle || op->mapped || op->key_exported)
			return false;
		snprintf(
		    msg, len,
		    "%s closes key \"%.64s\", which this process neither imported (or every import of it "
		    "is closed already) nor exported",
		    op->api, (const char *)op->handle_buf);
		return true;
	}
	if (!op->dst.ptr || pw_state_map_at(s, op->dst.ptr, true))
		return false;
	snprintf(msg, len, "%s closes 0x%" PRIx64 ", which no IPC open in this process returned", op->api,
	         op->dst.ptr);
	return true;
}

/* A close of a mapping already closed as often as it was opened; a new
 * mapping the driver placed at the same address since is another mapping. */
PW_RULE_FN(IPC_CLOSE_TWICE)
{
	const struct pw_ipc_map *m = pw_state_map_at(s, op->dst.ptr, true);
	if (!m || m->refs > 0)
		return false;
	snprintf(msg, len, "%s closes 0x%" PRIx64 " once more than it was opened", op->api, op->dst.ptr);
	return true;
}

/* HIP Runtime API, IPC: "Calling hipFree on an exported memory region before calling
 * hipIpcCloseMemHandle in the importing context will result in undefined
 * behavior." */
PW_RULE_FN(IPC_FREE_WHILE_OPEN)
{
	(void)s;
	if (op->holders <= 0 || (op->kind == PW_OP_IPC_CLOSE && !op->key_exported))
		return false;
	char pids[64] = "";
	size_t n = 0;
	for (int i = 0; i < op->holders && i < 4; i++)
		n += (size_t)snprintf(pids + n, sizeof pids - n, "%s%d", i ? ", " : "", op->holder_pids[i]);
	/* ACL: "Only after process B calls aclrtIpcMemClose to disable IPC-based
	 * memory sharing can process A disable IPC-based memory sharing.
	 * Otherwise, exceptions may occur." (aclrtIpcMemGetExportKey): the
	 * exporter's close of the key, as its free, comes after every import's
	 * close. */
	if (op->kind == PW_OP_IPC_CLOSE) {
		snprintf(
		    msg, len,
		    "%s closes key \"%.64s\", which this process exported, while %d other process%s still "
		    "ha%s it open (pid %s%s)",
		    op->api, (const char *)op->handle_buf, op->holders, op->holders == 1 ? "" : "es",
		    op->holders == 1 ? "s" : "ve", pids, op->holders > 4 ? ", ..." : "");
		return true;
	}
	snprintf(msg, len,
	         "%s frees 0x%" PRIx64 " while %d other process%s still ha%s it open through IPC (pid %s%s)",
	         op->api, op->dst.ptr, op->holders, op->holders == 1 ? "" : "es",
	         op->holders == 1 ? "s" : "ve", pids, op->holders > 4 ? ", ..." : "");
	return true;
}

/* "Memory returned from cuIpcOpenMemHandle must be freed with
 * cuIpcCloseMemHandle" (HIP: hipIpcOpenMemHandle / hipIpcCloseMemHandle):
 * not with cuMemFree or hipFree. */
PW_RULE_FN(IPC_FREE_IMPORTED)
{
	(void)s;
	if (!op->mapped)
		return false;
	if (op->map_ptr == op->dst.ptr)
		snprintf(msg, len,
		         "%s frees 0x%" PRIx64 ", which an IPC open mapped in this process: such memory is "
		         "released with the IPC close, not freed",
		         op->api, op->dst.ptr);
	else
		snprintf(
		    msg, len,
		    "%s frees 0x%" PRIx64 ", inside the mapping at 0x%" PRIx64
		    " that an IPC open made in this process: such memory is released with the IPC close, "
		    "not freed",
		    op->api, op->dst.ptr, op->map_ptr);
	return true;
}

/* HIP Runtime API, IPC: "Memory returned from hipIpcOpenMemHandle must be freed with
 * hipIpcCloseMemHandle." Checked once per open mapping when the process ends:
 * op->dst.ptr names the mapping. */
PW_RULE_FN(IPC_LEAK)
{
	const struct pw_ipc_map *m = pw_state_map_at(s, op->dst.ptr, false);
	if (!m)
		return false;
	snprintf(msg, len, "the IPC mapping at 0x%" PRIx64 " is still open (%d open%s) as the process exits",
	         m->ptr, m->refs, m->refs == 1 ? "" : "s");
	return true;
}

/* CANN, aclrtIpcMemGetExportKey, len: "key的长度，固定配置为65" (the key's
 * length, fixed at 65). */
PW_RULE_FN(IPC_ACL_KEY_LENGTH)
{
	(void)s;
	if (op->key_len == PW_ACL_IPC_KEY_LEN)
		return false;
	snprintf(msg, len, "%s is given len %" PRIu64 " for the key: the key's length is fixed at %d",
	         op->api, op->key_len, PW_ACL_IPC_KEY_LEN);
	return true;
}

/* CANN, aclrtIpcMemGetExportKey: "If the verification is enabled, call
 * aclrtIpcMemSetImportPid separately to add the ID of process B to the
 * trustlist."  Said where the registry knows the export: exported with the
 * trust list on, and no call named any process before this import.  (Which
 * process was named is not compared: the list holds the ids
 * aclrtDeviceGetBareTgid gives, the host's in a container.) */
PW_RULE_FN(IPC_ACL_IMPORT_PID)
{
	(void)s;
	if (!op->reg_known || !op->reg_trust_list || op->reg_trust_named ||
	    op->reg_exporter_pid == op->self_pid)
		return false;
	snprintf(msg, len,
	         "%s imports key \"%.64s\", which pid %d exported with the trust list on (flags 0), but no "
	         "aclrtIpcMemSetImportPid named any process for it: only the processes it names may import",
	         op->api, (const char *)op->handle_buf, op->reg_exporter_pid);
	return true;
}

/* ---- events ---- */

/* cuIpcGetEventHandle: "The event must have been created with the
 * CU_EVENT_INTERPROCESS and CU_EVENT_DISABLE_TIMING flags set" (the runtime's
 * and HIP's the same, by their names). */
PW_RULE_FN(IPC_EVENT_FLAGS)
{
	(void)s;
	const unsigned need = 0x2 | 0x4; /* disable-timing | interprocess: the same values in all three */
	if (!op->event_known || (op->event_flags & need) == need)
		return false;
	snprintf(msg, len,
	         "%s is given event 0x%" PRIx64 ", created with flags 0x%x, without %s%s%s: an IPC event "
	         "needs both the interprocess and the disable-timing flag",
	         op->api, op->event, op->event_flags, op->event_flags & 0x4 ? "" : "the interprocess flag",
	         !(op->event_flags & 0x4) && !(op->event_flags & 0x2) ? " and " : "",
	         op->event_flags & 0x2 ? "" : "the disable-timing flag");
	return true;
}

/* cudaIpcOpenEventHandle: "Opens an interprocess event handle exported from
 * another process"; hipIpcOpenEventHandle: "If the function is called within
 * the same process where handle is returned by hipIpcGetEventHandle, it will
 * return hipErrorInvalidContext" (CUDA: 201, H100). */
PW_RULE_FN(IPC_EVENT_SAME_PROCESS)
{
	bool mine = pw_state_event_export(s, op->handle) != NULL ||
	            (op->reg_known && op->reg_exporter_pid == op->self_pid);
	if (!mine)
		return false;
	snprintf(msg, len, "%s opens an event handle this process exported itself", op->api);
	return true;
}

/* cudaIpcOpenEventHandle: "This event must be freed with cudaEventDestroy". */
PW_RULE_FN(IPC_EVENT_LEAK)
{
	const struct pw_ipc_event *e = pw_state_event_of(s, op->event);
	if (!e || !e->imported)
		return false;
	snprintf(msg, len,
	         "the event 0x%" PRIx64 " an IPC event open made is still there as the process exits",
	         op->event);
	return true;
}

/* cudaIpcGetEventHandle: "Performing operations on the imported event after
 * the exported event has been freed with cudaEventDestroy will result in
 * undefined behavior": the exporter destroys it while another process still
 * has it. */
PW_RULE_FN(IPC_EVENT_DESTROY_WHILE_OPEN)
{
	(void)s;
	if (!op->event_exported || op->holders <= 0)
		return false;
	char pids[64] = "";
	size_t n = 0;
	for (int i = 0; i < op->holders && i < 4; i++)
		n += (size_t)snprintf(pids + n, sizeof pids - n, "%s%d", i ? ", " : "", op->holder_pids[i]);
	snprintf(msg, len,
	         "%s destroys event 0x%" PRIx64 ", exported through IPC, while %d other process%s still "
	         "ha%s it open (pid %s%s): any use of it there from now on is undefined",
	         op->api, op->event, op->holders, op->holders == 1 ? "" : "es", op->holders == 1 ? "s" : "ve",
	         pids, op->holders > 4 ? ", ..." : "");
	return true;
}

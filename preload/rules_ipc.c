/* Rules on IPC memory handles (seed 002, cuda.h cuIpc*, the registry). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "devices.h"
#include "rules.h"

/* 002: "Takes a pointer to the base of an existing device memory allocation". */
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

/* 002: "may only be opened by one context per device per other process". */
PW_RULE_FN(IPC_OPEN_TWICE)
{
	const struct pw_ipc_open *o = pw_state_open_of_handle(s, op->handle);
	if (!o || o->refs <= 0)
		return false;
	snprintf(msg, len, "%s opens a handle this process already has open (at 0x%" PRIx64 ", %d open%s)",
	         op->api, o->ptr, o->refs, o->refs == 1 ? "" : "s");
	return true;
}

/* 002: hipFree on an exported region before every importer closed it is
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

/* 002 (hipIpcOpenMemHandle): "For contexts on different devices
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
	if (!op->dst.ptr || pw_state_open_of_ptr(s, op->dst.ptr))
		return false;
	snprintf(msg, len, "%s closes 0x%" PRIx64 ", which no IPC open in this process returned", op->api,
	         op->dst.ptr);
	return true;
}

PW_RULE_FN(IPC_CLOSE_TWICE)
{
	const struct pw_ipc_open *o = pw_state_open_of_ptr(s, op->dst.ptr);
	if (!o || o->refs > 0)
		return false;
	snprintf(msg, len, "%s closes 0x%" PRIx64 " once more than it was opened", op->api, op->dst.ptr);
	return true;
}

/* 002: "Calling hipFree on an exported memory region before calling
 * hipIpcCloseMemHandle in the importing context will result in undefined
 * behavior." */
PW_RULE_FN(IPC_FREE_WHILE_OPEN)
{
	(void)s;
	if (op->holders <= 0)
		return false;
	char pids[64] = "";
	size_t n = 0;
	for (int i = 0; i < op->holders && i < 4; i++)
		n += (size_t)snprintf(pids + n, sizeof pids - n, "%s%d", i ? ", " : "", op->holder_pids[i]);
	snprintf(msg, len,
	         "%s frees 0x%" PRIx64 " while %d other process%s still ha%s it open through IPC (pid %s%s)",
	         op->api, op->dst.ptr, op->holders, op->holders == 1 ? "" : "es",
	         op->holders == 1 ? "s" : "ve", pids, op->holders > 4 ? ", ..." : "");
	return true;
}

/* 002: "Memory returned from hipIpcOpenMemHandle must be freed with
 * hipIpcCloseMemHandle." Checked once per open mapping when the process ends:
 * op->dst.ptr names the mapping. */
PW_RULE_FN(IPC_LEAK)
{
	const struct pw_ipc_open *o = pw_state_open_of_ptr(s, op->dst.ptr);
	if (!o || o->refs <= 0)
		return false;
	snprintf(msg, len, "the IPC mapping at 0x%" PRIx64 " is still open (%d open%s) as the process exits",
	         o->ptr, o->refs, o->refs == 1 ? "" : "s");
	return true;
}

/* Rules on virtual memory and stream-ordered pools shared across
 * processes (cuda.h cuMem* VMM and pool functions; HIP's hipMemPool*).
 * Each reads only the op: cuda_ops_vmm.c and hip_ops.c copy in what the VMM
 * state, the pools imported, the registry and the runtime know. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"

static const char *type_name(unsigned t)
{
	switch (t) {
	case 0x0: return "none";
	case 0x1: return "posix_fd";
	case 0x2: return "win32";
	case 0x4: return "win32_kmt";
	case 0x8: return "fabric";
	}
	return "unknown";
}

/* requestedHandleTypes: the exports the allocation allows. */
PW_RULE_FN(VMM_EXPORT_HANDLE_TYPE)
{
	(void)s;
	if (!op->vmm_known || (op->handle_type && (op->vmm_types & op->handle_type) == op->handle_type))
		return false;
	char types[64] = "";
	size_t n = 0;
	for (unsigned bit = 1; bit <= 0x8; bit <<= 1)
		if (op->vmm_types & bit)
			n += (size_t)snprintf(types + n, sizeof types - n, "%s%s", n ? "|" : "",
			                      type_name(bit));
	snprintf(msg, len,
	         "%s exports allocation handle 0x%" PRIx64 " as %s, but it was created for %s "
	         "(CUmemAllocationProp::requestedHandleTypes)",
	         op->api, op->mem_handle, type_name(op->handle_type), n ? types : "no export at all");
	return true;
}

/* cuMemRelease: the shareable handle keeps the memory, not the owner's
 * intent.  CANN, aclrtMemImportFromShareableHandle: "Before calling this
 * API, ensure that the physical memory to be shared exists and cannot be
 * released in advance." */
PW_RULE_FN(VMM_IMPORT_RELEASED)
{
	(void)s;
	if (!op->reg_known || !op->reg_freed)
		return false;
	if (op->vendor == PW_VENDOR_ACL)
		snprintf(msg, len,
		         "%s imports shareable handle 0x%" PRIx64 ", whose exporter (pid %d) already freed "
		         "the physical memory (aclrtFreePhysical)%s",
		         op->api, op->vmm_shareable, op->reg_exporter_pid,
		         op->reg_exporter_alive ? "" : " and has exited");
	else
		snprintf(msg, len,
		         "%s imports a %s handle whose exporter (pid %d) already released the allocation "
		         "(cuMemRelease)%s",
		         op->api, type_name(op->handle_type), op->reg_exporter_pid,
		         op->reg_exporter_alive ? "" : " and has exited");
	return true;
}

/* "V2" where the call is one of the V2 forms (CANN 8.5), which pair with
 * each other: the names a message gives the other calls. */
static const char *acl_form(const struct pw_op *op)
{
	size_t n = op->api ? strlen(op->api) : 0;
	return n > 2 && !strcmp(op->api + n - 2, "V2") ? "V2" : "";
}

/* CANN, aclrtMemImportFromShareableHandle: "The
 * aclrtMemImportFromShareableHandle and aclrtMemExportToShareableHandle APIs
 * cannot be called in the same process. Only cross-process calling is
 * supported."  This process exported the shareable handle (its own table:
 * no registry needed). */
PW_RULE_FN(VMM_ACL_SAME_PROCESS)
{
	(void)s;
	if (!op->vmm_own_export)
		return false;
	snprintf(msg, len,
	         "%s imports shareable handle 0x%" PRIx64 " in the process that exported it "
	         "(aclrtMemExportToShareableHandle%s): only another process may import it",
	         op->api, op->vmm_shareable, acl_form(op));
	return true;
}

/* CANN, aclrtMemImportFromShareableHandle: "There is a one-to-one mapping
 * between handles and shareableHandles. In the same process, one-to-many or
 * many-to-one mapping is not allowed. ... if this API is repeatedly called
 * to import data, an error is reported."  An import of a shareable handle
 * this process still holds an import of, or an export of a handle this
 * process exported already (while neither was freed: aclrtFreePhysical). */
PW_RULE_FN(VMM_ACL_ONE_TO_ONE)
{
	(void)s;
	if (!op->vmm_again)
		return false;
	if (op->kind == PW_OP_VMM_IMPORT)
		snprintf(msg, len,
		         "%s imports shareable handle 0x%" PRIx64 " again: this process holds a handle "
		         "from an earlier import of it (aclrtFreePhysical ends that one)",
		         op->api, op->vmm_shareable);
	else
		snprintf(msg, len,
		         "%s exports handle 0x%" PRIx64
		         " again: it was exported already, as shareable handle "
		         "0x%" PRIx64,
		         op->api, op->mem_handle, op->vmm_shareable);
	return true;
}

/* CANN, aclrtMemSetPidToShareableHandle: "Only the processes configured
 * with the trustlist can use shareableHandle exported by
 * aclrtMemExportToShareableHandle."  Said where the registry knows the
 * export: exported with the trust list on (flags 0), and no
 * aclrtMemSetPidToShareableHandle named any process before this import.
 * (Which process was named is not compared: the list holds the ids
 * aclrtDeviceGetBareTgid gives, the host's in a container.) */
PW_RULE_FN(VMM_ACL_IMPORT_PID)
{
	(void)s;
	if (!op->reg_known || !op->reg_trust_list || op->reg_trust_named ||
	    op->reg_exporter_pid == op->self_pid)
		return false;
	snprintf(msg, len,
	         "%s imports shareable handle 0x%" PRIx64 ", which pid %d exported with the trust list on "
	         "(flags 0), but no aclrtMemSetPidToShareableHandle%s named any process for it: only the "
	         "processes it names may import",
	         op->api, op->vmm_shareable, op->reg_exporter_pid, acl_form(op));
	return true;
}

static bool dev_bit(uint64_t mask, int d)
{
	return d >= 0 && d < 64 && (mask >> d & 1);
}

/* The other side's device: where it lives, or the device the call names. */
static int side_dev(const struct pw_mem *m)
{
	return m->dev != PW_NO_DEV ? m->dev : m->named_dev;
}

/* cuMemMap: "does not make the address accessible ... cuMemSetAccess". */
PW_RULE_FN(VMM_COPY_NO_ACCESS)
{
	(void)s;
	int dd = side_dev(&op->dst), sd = side_dev(&op->src);
	bool dst_bad = op->vmm_dst_mapped && sd >= 0 && sd != dd && !dev_bit(op->vmm_dst_rw, sd);
	bool src_bad = op->vmm_src_mapped && dd >= 0 && dd != sd && !dev_bit(op->vmm_src_read, dd);
	if (!dst_bad && !src_bad)
		return false;
	if (dst_bad)
		snprintf(
		    msg, len,
		    "%s writes %" PRIu64 " bytes into the mapping at 0x%" PRIx64
		    " (device %d), which device %d was not granted read-write access to (cuMemSetAccess)%s",
		    op->api, op->bytes, op->dst.ptr, dd, sd,
		    src_bad ? "; nor may the destination's device read the source mapping" : "");
	else
		snprintf(msg, len,
		         "%s reads %" PRIu64 " bytes out of the mapping at 0x%" PRIx64
		         " (device %d), which device %d was not granted access to (cuMemSetAccess)",
		         op->api, op->bytes, op->src.ptr, sd, dd);
	return true;
}

/* Checked once per mapping still there when the process ends. */
PW_RULE_FN(VMM_LEAK)
{
	(void)s;
	snprintf(msg, len,
	         "the virtual-memory mapping at 0x%" PRIx64 " (%" PRIu64 " bytes of handle 0x%" PRIx64
	         ") is still mapped as the process exits",
	         op->dst.ptr, op->vmm_map_size, op->mem_handle);
	return true;
}

PW_RULE_FN(IPC_EXPORT_POOL_OR_VMM)
{
	(void)s;
	if (op->dst_pool)
		snprintf(
		    msg, len,
		    "%s is given 0x%" PRIx64 ", memory from a stream-ordered pool (cuMemAllocAsync / "
		    "cuMemAllocFromPoolAsync), which legacy IPC cannot share: allocate from a pool created "
		    "with an IPC handle type (CUmemPoolProps::handleTypes) and share it with "
		    "cuMemPoolExportToShareableHandle + cuMemPoolExportPointer",
		    op->api, op->dst.ptr);
	else if (op->dst_vmm)
		snprintf(msg, len,
		         "%s is given 0x%" PRIx64
		         ", a virtual-memory mapping (cuMemMap), which legacy IPC cannot "
		         "share: export its allocation handle with cuMemExportToShareableHandle",
		         op->api, op->dst.ptr);
	else
		return false;
	return true;
}

/* HIP Runtime API, hipMemPoolExportToShareableHandle and
 * hipMemPoolImportFromShareableHandle: "[in] flags Must be 0". */
PW_RULE_FN(POOL_FLAGS)
{
	(void)s;
	if (!op->flags)
		return false;
	snprintf(msg, len, "%s with flags 0x%" PRIx64 ": the flags of a pool's %s must be 0", op->api,
	         op->flags, op->kind == PW_OP_POOL_EXPORT ? "export" : "import");
	return true;
}

/* HIP Runtime API, hipMemPoolImportFromShareableHandle: "Imported memory
 * pools do not support creating new allocations". */
PW_RULE_FN(POOL_IMPORTED_ALLOC)
{
	(void)s;
	if (!op->pool_imported)
		return false;
	snprintf(msg, len,
	         "%s asks %" PRIu64 " bytes of pool 0x%" PRIx64
	         ", which this process imported from another one: an imported pool makes no new "
	         "allocations, only imports the exporter's (hipMemPoolImportPointer)",
	         op->api, op->bytes, op->pool);
	return true;
}

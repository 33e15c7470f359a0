/*
 * The trace format (docs/trace-format.md), defined once: the library writes
 * it, the analyzer reads it, the docs and the JSON Schema are generated
 * from it.
 */
#ifndef PEERWATCH_TRACE_FORMAT_H
#define PEERWATCH_TRACE_FORMAT_H

/* The header's "format" and "version".  A change of meaning of a member,
 * or the removal of one, bumps the version; added members and event types
 * do not (docs/trace-format.md, Compatibility). */
#define PW_FORMAT_NAME "peerwatch"
#define PW_FORMAT_VERSION 1

/*
 * The operation of a call: what it does, whatever the vendor calls it.
 * Every row of every hook table names one (its "op" in the trace); the
 * rules say which ops they apply to (rules_table.h), and reports group
 * calls by op, never by API name.
 *
 *   X(NAME, "name", WHEN, "what a call of this op does")
 *
 * "name" is the call event's "op": stable, lower case.  WHEN is CALL for
 * the ops of hooked functions and END for those the layer makes up when the
 * process ends (what is still held then); END ops never appear in a call
 * event, only as the "api":"exit" of a violation.  Each text is one string
 * literal (scripts/gen-hooks-doc.sh reads them).
 */
#define PW_OPS(X)                                                                                           \
	X(CAN_ACCESS, "peer_query", CALL, "asks whether one device can access another's memory")            \
	X(PEER_ATTR, "peer_attr", CALL,                                                                     \
	  "asks an attribute of a pair of devices (performance rank, atomics)")                             \
	X(PEER_ENABLE, "peer_enable", CALL, "enables access from the current device to a peer's memory")    \
	X(PEER_DISABLE, "peer_disable", CALL, "disables access from the current device to a peer's memory") \
	X(PEER_COPY, "peer_copy", CALL, "copies between two devices, each named by the call")               \
	X(IMPLICIT_COPY, "implicit_copy", CALL, "copies between pointers whose devices the runtime infers") \
	X(IPC_EXPORT, "ipc_export", CALL, "makes an IPC handle of device memory for another process")       \
	X(IPC_OPEN, "ipc_open", CALL, "maps memory of another process from its IPC handle")                 \
	X(IPC_CLOSE, "ipc_close", CALL, "unmaps memory an IPC open mapped")                                 \
	X(IPC_EVENT_EXPORT, "ipc_event_export", CALL, "makes an IPC handle of an event")                    \
	X(IPC_EVENT_OPEN, "ipc_event_open", CALL, "opens an event of another process from its IPC handle")  \
	X(ALLOC_MANAGED, "managed_alloc", CALL, "allocates managed (unified) memory")                       \
	X(ADVISE, "managed_advise", CALL, "advises the runtime how a managed range will be used")           \
	X(PREFETCH, "managed_prefetch", CALL, "migrates a managed range to a device or the host")           \
	X(PREFETCH_BATCH, "managed_prefetch_batch", CALL,                                                   \
	  "migrates a batch of managed ranges (the discard variant drops their contents first)")            \
	X(RANGE_ATTR, "managed_range_attr", CALL, "asks attributes of a managed range")                     \
	X(ATTACH, "managed_attach", CALL, "attaches a managed range to a stream")                           \
	X(ALLOC, "alloc", CALL, "allocates device memory")                                                  \
	X(FREE, "free", CALL, "frees device memory")                                                        \
	X(DEVICE_SET, "device_set", CALL, "makes a device the calling thread's current one")                \
	X(DEVICE_GET, "device_get", CALL, "asks the calling thread's current device")                       \
	X(DEVICE_RESET, "device_reset", CALL, "resets a device: its peer access and memory are gone")       \
	X(RUNTIME_INIT, "runtime_init", CALL, "initializes the runtime")                                    \
	X(RUNTIME_FINI, "runtime_fini", CALL, "finalizes the runtime")                                      \
	X(VMM_CREATE, "vmm_create", CALL, "creates a physical allocation (virtual memory management)")      \
	X(VMM_RELEASE, "vmm_release", CALL, "releases a physical allocation's handle")                      \
	X(VMM_MAP, "vmm_map", CALL, "maps a physical allocation into a reserved address range")             \
	X(VMM_UNMAP, "vmm_unmap", CALL, "unmaps an address range")                                          \
	X(VMM_SET_ACCESS, "vmm_set_access", CALL, "grants devices access to a mapped range")                \
	X(VMM_EXPORT, "vmm_export", CALL, "exports a physical allocation as an OS handle")                  \
	X(VMM_IMPORT, "vmm_import", CALL, "imports a physical allocation from an OS handle")                \
	X(VMM_RETAIN, "vmm_retain", CALL, "gets the handle of the allocation mapped at an address")         \
	X(POOL_EXPORT, "pool_export", CALL, "exports a memory pool as an OS handle")                        \
	X(POOL_IMPORT, "pool_import", CALL, "imports a memory pool from an OS handle")                      \
	X(POOL_EXPORT_PTR, "pool_export_ptr", CALL, "exports an allocation of a shared pool")               \
	X(POOL_IMPORT_PTR, "pool_import_ptr", CALL, "imports an allocation of a shared pool")               \
	X(POOL_SET_ACCESS, "pool_set_access", CALL, "grants devices access to a memory pool")               \
	X(EXIT, "exit", END, "the process ends with an IPC mapping still open")                             \
	X(VMM_EXIT, "vmm_exit", END, "the process ends with a virtual-memory mapping still there")

/* PW_OP_NONE (0) is no op: a call no rule looks at has it in the rules'
 * view (preload/op.h), never in a table row or the trace. */
#define PW_OP_ENUM_ROW(name, str, when, doc) PW_OP_##name,
enum pw_op_kind { PW_OP_NONE, PW_OPS(PW_OP_ENUM_ROW) PW_OP_KINDS };
#undef PW_OP_ENUM_ROW

/* The trace's name of an op ("peer_copy"), or NULL. */
static inline const char *pw_op_name(int op)
{
#define PW_OP_NAME_ROW(name, str, when, doc) str,
	static const char *const names[] = {"none", PW_OPS(PW_OP_NAME_ROW)};
#undef PW_OP_NAME_ROW
	return op > PW_OP_NONE && op < PW_OP_KINDS ? names[op] : NULL;
}

/* A set of ops, for the rules: PW_OPBIT(PEER_COPY) | PW_OPBIT(IMPLICIT_COPY). */
#define PW_OPBIT(name) (1ull << PW_OP_##name)
_Static_assert(PW_OP_KINDS <= 64, "an op set is a 64-bit mask");

#endif

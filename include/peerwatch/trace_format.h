/*
 * The trace format (docs/trace-format.md), defined once: the library writes
 * it, the analyzer reads it, the docs' member tables and the JSON Schema
 * (docs/trace.schema.json) are generated from it (scripts/trace-doc.c), and
 * tests/integration/trace_keys.sh checks every member of every line the
 * library writes on the simulators against it, both ways.
 *
 * Nothing here allocates or depends on anything: the library, the analyzer
 * and the generators include it alike.
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
	X(IPC_IMPORT_PID, "ipc_import_pid", CALL,                                                           \
	  "names the processes that may open an IPC key or shareable handle (ACL's trust lists)")           \
	X(PROCESS_ID, "process_id", CALL, "asks the id the calling process has on the trust lists (ACL)")   \
	X(IPC_EVENT_EXPORT, "ipc_event_export", CALL, "makes an IPC handle of an event")                    \
	X(IPC_EVENT_OPEN, "ipc_event_open", CALL, "opens an event of another process from its IPC handle")  \
	X(EVENT_CREATE, "event_create", CALL, "creates an event, with its flags")                           \
	X(EVENT_DESTROY, "event_destroy", CALL, "destroys an event (its own, or one an IPC open made)")     \
	X(ALLOC_MANAGED, "managed_alloc", CALL, "allocates managed (unified) memory")                       \
	X(ADVISE, "managed_advise", CALL, "advises the runtime how a managed range will be used")           \
	X(PREFETCH, "managed_prefetch", CALL, "migrates a managed range to a device or the host")           \
	X(PREFETCH_BATCH, "managed_prefetch_batch", CALL,                                                   \
	  "migrates a batch of managed ranges (the discard variant drops their contents first)")            \
	X(RANGE_ATTR, "managed_range_attr", CALL, "asks attributes of a managed range")                     \
	X(ATTACH, "managed_attach", CALL, "attaches a managed range to a stream")                           \
	X(ALLOC, "alloc", CALL, "allocates device memory")                                                  \
	X(FREE, "free", CALL, "frees device memory")                                                        \
	X(ALLOC_HOST, "host_alloc", CALL, "allocates page-locked host memory")                              \
	X(FREE_HOST, "host_free", CALL, "frees page-locked host memory")                                    \
	X(CTX_CREATE, "context_create", CALL,                                                               \
	  "creates a context, or retains a device's primary one (not recorded)")                            \
	X(CTX_DESTROY, "context_destroy", CALL,                                                             \
	  "destroys a context, or releases or resets a device's primary one (not recorded)")                \
	X(DEVICE_SET, "device_set", CALL, "makes a device the calling thread's current one")                \
	X(DEVICE_GET, "device_get", CALL, "asks the calling thread's current device")                       \
	X(DEVICE_ATTR, "device_attr", CALL, "asks an attribute of a device (what it supports)")             \
	X(DEVICE_RESET, "device_reset", CALL, "resets a device: its peer access and memory are gone")       \
	X(RUNTIME_INIT, "runtime_init", CALL, "initializes the runtime")                                    \
	X(RUNTIME_FINI, "runtime_fini", CALL, "finalizes the runtime")                                      \
	X(LAST_ERROR, "last_error", CALL,                                                                   \
	  "returns the calling thread's last runtime error (the get form also resets it to success)")       \
	X(VMM_CREATE, "vmm_create", CALL, "creates a physical allocation (virtual memory management)")      \
	X(VMM_RELEASE, "vmm_release", CALL, "releases a physical allocation's handle")                      \
	X(VMM_MAP, "vmm_map", CALL, "maps a physical allocation into a reserved address range")             \
	X(VMM_UNMAP, "vmm_unmap", CALL, "unmaps an address range")                                          \
	X(VMM_SET_ACCESS, "vmm_set_access", CALL, "grants devices access to a mapped range")                \
	X(VMM_EXPORT, "vmm_export", CALL, "exports a physical allocation as an OS handle")                  \
	X(VMM_IMPORT, "vmm_import", CALL, "imports a physical allocation from an OS handle")                \
	X(VMM_RETAIN, "vmm_retain", CALL, "gets the handle of the allocation mapped at an address")         \
	X(VMM_RESERVE, "vmm_reserve", CALL, "reserves a virtual address range (no memory behind it yet)")   \
	X(VMM_UNRESERVE, "vmm_unreserve", CALL, "releases a reserved virtual address range")                \
	X(POOL_EXPORT, "pool_export", CALL, "exports a memory pool as an OS handle")                        \
	X(POOL_IMPORT, "pool_import", CALL, "imports a memory pool from an OS handle")                      \
	X(POOL_EXPORT_PTR, "pool_export_ptr", CALL, "exports an allocation of a shared pool")               \
	X(POOL_IMPORT_PTR, "pool_import_ptr", CALL, "imports an allocation of a shared pool")               \
	X(POOL_SET_ACCESS, "pool_set_access", CALL, "grants devices access to a memory pool")               \
	X(POOL_ALLOC, "pool_alloc", CALL, "allocates from a given memory pool, stream-ordered")             \
	X(POOL_DESTROY, "pool_destroy", CALL, "destroys a memory pool (one created, or one imported)")      \
	X(EXIT, "exit", END, "the process ends with an IPC mapping still open")                             \
	X(IPC_EVENT_EXIT, "ipc_event_exit", END,                                                            \
	  "the process ends with an event an IPC open made still there")                                    \
	X(VMM_EXIT, "vmm_exit", END, "the process ends with a virtual-memory mapping still there")

/* PW_OP_NONE (0) is no op: a call no rule looks at has it in the rules'
 * view (preload/state/op.h), never in a table row or the trace. */
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

/*
 * The JSON kind of a member: what its value may be.
 *
 *   X(KIND, "how docs/trace-format.md says it", "its JSON Schema")
 */
#define PW_JSON_KINDS(X)                                                                           \
	X(STR, "string", "{\"type\":\"string\"}")                                                  \
	X(STR_NULL, "string or null", "{\"type\":[\"string\",\"null\"]}")                          \
	X(HEX, "hex string", "{\"type\":\"string\",\"pattern\":\"^0x[0-9a-f]{1,16}$\"}")           \
	X(HEXBYTES, "hex digits", "{\"type\":\"string\",\"pattern\":\"^([0-9a-f][0-9a-f])*$\"}")   \
	X(HEX128, "128 hex digits", "{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{128}$\"}")       \
	X(HEXBYTES_NULL, "hex digits or null",                                                     \
	  "{\"type\":[\"string\",\"null\"],\"pattern\":\"^([0-9a-f][0-9a-f])*$\"}")                \
	X(UINT, "integer", "{\"type\":\"integer\",\"minimum\":0}")                                 \
	X(INT, "signed integer", "{\"type\":\"integer\"}")                                         \
	X(INT_NULL, "integer or null", "{\"type\":[\"integer\",\"null\"]}")                        \
	X(DEV, "device ordinal or null",                                                           \
	  "{\"type\":[\"integer\",\"null\"],\"minimum\":-2147483648,\"maximum\":2147483647}")      \
	X(ORDINAL, "device ordinal",                                                               \
	  "{\"type\":\"integer\",\"minimum\":-2147483648,\"maximum\":2147483647}")                 \
	X(NAME, "name or null", "{\"type\":[\"string\",\"null\"]}")                                \
	X(NAME_OR_INT, "name, or a number", "{\"type\":[\"string\",\"integer\"]}")                 \
	X(INT_STR_NULL, "integer, string or null", "{\"type\":[\"integer\",\"string\",\"null\"]}") \
	X(BOOL, "boolean", "{\"type\":\"boolean\"}")                                               \
	X(NIL, "null", "{\"type\":\"null\"}")                                                      \
	X(OBJECT, "object", "{\"type\":\"object\"}")                                               \
	X(OBJECTS, "array of objects", "{\"type\":\"array\",\"items\":{\"type\":\"object\"}}")     \
	X(STRS, "array of strings", "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}")        \
	X(HEXES, "array of hex strings",                                                           \
	  "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^0x[0-9a-f]+$\"}}")    \
	X(NAMES, "array of names or numbers",                                                      \
	  "{\"type\":\"array\",\"items\":{\"type\":[\"string\",\"integer\"]}}")                    \
	X(INTS_NULL, "array of integers or nulls, or null",                                        \
	  "{\"type\":[\"array\",\"null\"],\"items\":{\"type\":[\"integer\",\"null\"]}}")

#define PW_JSON_KIND_ENUM(kind, doc, schema) PW_J_##kind,
enum pw_json_kind { PW_JSON_KINDS(PW_JSON_KIND_ENUM) PW_J_COUNT };
#undef PW_JSON_KIND_ENUM

/*
 * Where a member lives: an event (its "type"), or an object inside one.
 *
 *   X(SCOPE, "path", "type of the event, or \"\" for a nested object", "title")
 */
#define PW_TRACE_SCOPES(X)                                                                   \
	X(HEADER, "header", "header", "Header")                                              \
	X(OPTIONS, "header.options", "", "the header's options")                             \
	X(VENDORS, "header.vendors", "", "the header's vendors")                             \
	X(VENDOR_CUDA, "header.vendors.cuda", "", "the CUDA driver")                         \
	X(VENDOR_HIP, "header.vendors.hip", "", "the HIP runtime")                           \
	X(VENDOR_ACL, "header.vendors.acl", "", "the ACL runtime")                           \
	X(MODULE, "modules[]", "", "a loaded object (header and footer)")                    \
	X(ENV, "header.environment[]", "", "an environment variable")                        \
	X(CALL, "call", "call", "Call event")                                                \
	X(ARGS, "call.args", "", "the call's arguments")                                     \
	X(LOCATION, "call.args.location", "", "a memory location")                           \
	X(COPY, "call.args.copies[]", "", "one copy of a batch")                             \
	X(RANGE, "call.args.ranges[]", "", "one range of a batch prefetch")                  \
	X(GRANT, "call.args.access[]", "", "one access grant")                               \
	X(VIOLATION, "violation", "violation", "Violation event")                            \
	X(GPU_TIME, "gpu_time", "gpu_time", "GPU time event")                                \
	X(UM, "um", "um", "Unified-memory event")                                            \
	X(DEVICE, "device", "device", "Device line")                                         \
	X(PEER, "device.peers[]", "", "a pair: the device and a peer")                       \
	X(FOOTER, "footer", "footer", "Footer")                                              \
	X(SUPPRESSION, "footer.suppressions[]", "", "a suppression that matched")            \
	X(DROPPED_BY, "footer.dropped_by", "", "the causes of dropped events")               \
	X(REPEAT, "footer.repeats_by[]", "", "a rule and call site whose findings repeated") \
	X(LIMIT, "footer.limit", "", "where the size limit stopped the trace")

#define PW_TRACE_SCOPE_ENUM(id, path, type, title) PW_SC_##id,
enum pw_trace_scope { PW_SC_NONE, PW_TRACE_SCOPES(PW_TRACE_SCOPE_ENUM) PW_SC_COUNT };
#undef PW_TRACE_SCOPE_ENUM

/* Whether a member is there: in every object of its scope (REQ), in some
 * (OPT), or in some that the key test's traces on the simulated runtimes
 * do not reach (RARE: a NULL struct pointer, a host location or host
 * destination, a fabric or Windows handle, the real driver's fds), which
 * the key test does not ask for.  OLD: a shape earlier writers of this
 * version wrote and this library no longer does; readers accept it
 * (docs/trace-format.md, Compatibility), the key test refuses it from the
 * library. */
enum pw_presence { PW_REQ, PW_OPT, PW_RARE, PW_OLD };

/*
 * Every member of every line:
 *
 *   X(SCOPE, "key", KIND, PRESENCE, CHILD, "meaning")
 *
 * CHILD is the scope of an OBJECT's or OBJECTS' members (NONE for the
 * others).  A key may have more than one row in a scope when it is written
 * with more than one kind (an IPC handle's 128 hex digits or a VMM handle's
 * hex value): a value is right when one of its rows' kinds fits it.  Adding
 * a member to any line means adding its row here (HACKING.md).
 */
#define PW_TRACE_FIELDS(X)                                                                                     \
	X(HEADER, "type", STR, REQ, NONE, "`\"header\"`")                                                      \
	X(HEADER, "format", STR, REQ, NONE, "`\"peerwatch\"`")                                                 \
	X(HEADER, "version", UINT, REQ, NONE, "`1`, the version of this format")                               \
	X(HEADER, "peerwatch_version", STR, REQ, NONE,                                                         \
	  "version of the library that wrote the file, e.g. `\"0.1.0\"`")                                      \
	X(HEADER, "pid", UINT, REQ, NONE, "process id")                                                        \
	X(HEADER, "ppid", UINT, REQ, NONE, "parent process id, when the header was written")                   \
	X(HEADER, "host", STR, REQ, NONE,                                                                      \
	  "host name (up to 255 bytes; not shortened or changed as in the file name)")                         \
	X(HEADER, "rank", INT_STR_NULL, REQ, NONE,                                                             \
	  "the rank from the first of the environment variables `RANK`, `OMPI_COMM_WORLD_RANK`, "              \
	  "`PMI_RANK`, `PMIX_RANK`, `SLURM_PROCID`, `MV2_COMM_WORLD_RANK` that is set and not empty: an "      \
	  "integer when the whole value is a decimal integer (strtoll(3)), else the value as a string "        \
	  "(non-ASCII bytes of a value that is not UTF-8 written as `?`); `null` when none is set")            \
	X(HEADER, "run_id", STR, REQ, NONE,                                                                    \
	  "the run this process belongs to: `PEERWATCH_RUN_ID` (the launcher sets it to `<launcher "           \
	  "pid>-<seconds since the epoch>` unless it is already set), or, without it, "                        \
	  "`<pid>-<CLOCK_REALTIME ns>` of the first process of the tree that needed one (it sets "             \
	  "`PEERWATCH_RUN_ID` so that its later children inherit it). Processes with the same `run_id` "       \
	  "share the IPC registry (peerwatch(1))")                                                             \
	X(HEADER, "argv", STRS, REQ, NONE,                                                                     \
	  "the command line, from /proc/self/cmdline (its first 16 KiB). In an argument that is not valid "    \
	  "UTF-8, every non-ASCII byte is written as `?`")                                                     \
	X(HEADER, "t0_mono_ns", UINT, REQ, NONE,                                                               \
	  "CLOCK_MONOTONIC, ns, when the library started in this process (or at the fork, in a child)")        \
	X(HEADER, "t0_real_ns", UINT, REQ, NONE,                                                               \
	  "CLOCK_REALTIME, ns since the epoch, taken right after `t0_mono_ns`")                                \
	X(HEADER, "options", OBJECT, REQ, OPTIONS, "the options in effect (see peerwatch(1))")                 \
	X(HEADER, "vendors", OBJECT, REQ, VENDORS,                                                             \
	  "one member per vendor library found; empty when none was identified")                               \
	X(HEADER, "modules", OBJECTS, REQ, MODULE,                                                             \
	  "the objects loaded when the header was written, for symbolizing addresses")                         \
	X(HEADER, "environment", OBJECTS, REQ, ENV,                                                            \
	  "the environment variables that decide which devices the process sees and how they are reached, "    \
	  "when the header was written: every `*_VISIBLE_DEVICES`, `CUDA_DEVICE_ORDER`, "                      \
	  "`GPU_DEVICE_ORDINAL` "                                                                              \
	  "and those starting `NCCL_`, `HSA_`, `HIP_`, `ROCR_`, `ASCEND_` (no others: nothing else of the "    \
	  "environment is recorded), in the order of the environment, at most 128 of them")                    \
	X(ENV, "name", STR, REQ, NONE, "the variable's name")                                                  \
	X(ENV, "value", STR, REQ, NONE,                                                                        \
	  "its value (its first 1024 bytes; non-ASCII bytes of a value that is not UTF-8 written as `?`)")     \
	X(OPTIONS, "out", STR, REQ, NONE, "the trace directory, absolute")                                     \
	X(OPTIONS, "mode", STR, REQ, NONE,                                                                     \
	  "`\"observe\"`, `\"warn\"` or `\"enforce\"`; `\"observe\"` when `PEERWATCH_OPTIONS` had a bad "      \
	  "item")                                                                                              \
	X(OPTIONS, "buffer_kb", UINT, REQ, NONE, "size of each per-thread buffer, KiB")                        \
	X(OPTIONS, "halt_on", STR, REQ, NONE, "`\"error\"`, `\"warning\"` or `\"performance\"`")               \
	X(OPTIONS, "stacks", STR, REQ, NONE, "`\"none\"`, `\"violations\"` or `\"all\"`")                      \
	X(OPTIONS, "stack_depth", UINT, REQ, NONE, "frames per recorded stack")                                \
	X(OPTIONS, "suppressions", STR, REQ, NONE, "the suppressions file as given, `\"\"` for none")          \
	X(OPTIONS, "default_suppressions", BOOL, OPT, NONE,                                                    \
	  "whether the default suppressions are on (`default_suppressions=1`, the default; "                   \
	  "`peerwatch-analyze "                                                                                \
	  "rules --suppressions` lists them)")                                                                 \
	X(OPTIONS, "registry", BOOL, REQ, NONE,                                                                \
	  "whether this process is using the cross-process IPC registry: false in observe mode, with "         \
	  "`registry=0`, or when it could not be opened")                                                      \
	X(OPTIONS, "gpu_timing", BOOL, REQ, NONE,                                                              \
	  "whether asynchronous copies and prefetches are timed on the device (`gpu_timing=1`, `events` or "   \
	  "`cupti`)")                                                                                          \
	X(OPTIONS, "gpu_timing_method", STR, OPT, NONE,                                                        \
	  "how they are timed: `\"events\"` (a pair of timing events around each timed call) or "              \
	  "`\"cupti\"` (CUPTI's copy records); `\"none\"` with `gpu_timing=0`")                                \
	X(OPTIONS, "um_counters", BOOL, OPT, NONE,                                                             \
	  "whether CUPTI's unified-memory counters are recorded as `um` events (`um_counters=1`)")             \
	X(VENDORS, "cuda", OBJECT, OPT, VENDOR_CUDA, "the CUDA driver library, once identified")               \
	X(VENDORS, "hip", OBJECT, OPT, VENDOR_HIP, "the HIP runtime library, once identified")                 \
	X(VENDORS, "acl", OBJECT, OPT, VENDOR_ACL, "the Ascend ACL library, once identified")                  \
	X(VENDOR_CUDA, "library", STR, REQ, NONE, "path of the driver library as loaded")                      \
	X(VENDOR_CUDA, "driver_version", INT_NULL, REQ, NONE,                                                  \
	  "cuDriverGetVersion's value (e.g. 13000 for 13.0), or null")                                         \
	X(VENDOR_CUDA, "pageable_memory_access", INTS_NULL, REQ, NONE,                                         \
	  "one entry per device ordinal: its `CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS` (1 where the "       \
	  "device accesses system memory, HMM or ATS; 0 on the measured H100 host), or null for a device "     \
	  "that could not be asked; null when the devices could not be counted (the driver not initialized "   \
	  "when the header was written). The managed-memory rules judge memory the driver did not allocate "   \
	  "(advice, prefetch and stream attach of malloc'd memory) by these values, asked once per device "    \
	  "and cached: a call on system memory is right only where the device its location names (for a "      \
	  "host location, and for a stream attach, every device) says 1")                                      \
	X(VENDOR_HIP, "library", STR, REQ, NONE, "path of libamdhip64 as loaded")                              \
	X(VENDOR_HIP, "runtime_version", INT_NULL, REQ, NONE,                                                  \
	  "hipRuntimeGetVersion's value (e.g. 50221153 for 5.2.3), or null")                                   \
	X(VENDOR_ACL, "library", STR, REQ, NONE, "path of libascendcl as loaded")                              \
	X(MODULE, "path", STR, REQ, NONE,                                                                      \
	  "the object's path; the first entry of the header's list is the program, from /proc/self/exe")       \
	X(MODULE, "base", HEX, REQ, NONE, "the load bias, `\"0x0\"` for a non-PIE program")                    \
	X(MODULE, "build_id", HEXBYTES_NULL, REQ, NONE, "lowercase hex of the GNU build id, or null")          \
	X(CALL, "type", STR, REQ, NONE, "`\"call\"`")                                                          \
	X(CALL, "seq", UINT, REQ, NONE,                                                                        \
	  "number of the call in this process, from 1: unique, increasing along each thread (see "             \
	  "[order](#lines-and-their-order))")                                                                  \
	X(CALL, "tid", UINT, REQ, NONE, "kernel thread id (gettid(2)) of the calling thread")                  \
	X(CALL, "vendor", STR, REQ, NONE, "`\"cuda\"`, `\"hip\"` or `\"acl\"`")                                \
	X(CALL, "layer", STR, OPT, NONE,                                                                       \
	  "present only on CUDA runtime API calls (libcudart, the second table of docs/hooks.md): "            \
	  "`\"runtime\"`. Their `ret` is a `cudaError_t` and `ret_name` its name "                             \
	  "(`\"cudaErrorPeerAccessAlreadyEnabled\"`); device arguments are ordinals (`dst_device`), "          \
	  "pointers are recorded with their devices as for the driver. The driver calls a runtime call "       \
	  "makes carry `\"parent\"`: its `seq`. Findings are reported on the runtime call only, and only "     \
	  "it updates the state the rules read")                                                               \
	X(CALL, "api", STR, REQ, NONE, "function name without the ABI suffix, e.g. `\"cuMemcpyPeerAsync\"`")   \
	X(CALL, "variant", STR, REQ, NONE,                                                                     \
	  "the ABI suffix of the exported symbol the program called: `\"\"`, `\"_v2\"`, `\"_ptds\"`, "         \
	  "`\"_ptsz\"` or `\"_v2_ptsz\"`. `api` + `variant` is the symbol")                                    \
	X(CALL, "family", STR, REQ, NONE,                                                                      \
	  "`\"peer\"`, `\"copy\"`, `\"ipc\"`, `\"managed\"` or `\"support\"`")                                 \
	X(CALL, "op", STR, REQ, NONE,                                                                          \
	  "what the call does, with one name for every vendor and ABI variant: `\"peer_enable\"`, "            \
	  "`\"peer_copy\"`, `\"implicit_copy\"`, `\"ipc_open\"`, `\"managed_prefetch\"`, … (docs/hooks.md "  \
	  "lists each op, and the op of each hooked function). Group and match calls by `op`, not by `api`")   \
	X(CALL, "t_ns", UINT, REQ, NONE, "CLOCK_MONOTONIC, ns, just before the real function was called")      \
	X(CALL, "dur_ns", UINT, REQ, NONE,                                                                     \
	  "ns spent in the real function (host time; for asynchronous calls, not the time of the work on "     \
	  "the device)")                                                                                       \
	X(CALL, "ret", INT, REQ, NONE,                                                                         \
	  "the result code returned (`CUresult`, `cudaError_t`, `hipError_t`, `aclError`)")                    \
	X(CALL, "ret_name", STR_NULL, REQ, NONE,                                                               \
	  "its name, e.g. `\"CUDA_SUCCESS\"`, `\"CUDA_ERROR_INVALID_VALUE\"`; from the runtime "               \
	  "(cuGetErrorName) for codes peerwatch does not list; `null` if neither knows it")                    \
	X(CALL, "parent", UINT, OPT, NONE,                                                                     \
	  "present only for a nested call: the `seq` of the hooked call, on the same thread, inside which "    \
	  "this call was made (for example a library's hooked function calling another hooked function)")      \
	X(CALL, "parent_time", BOOL, OPT, NONE,                                                                \
	  "present, and `true`, on a driver call made inside a CUDA runtime call (its `parent`) when it "      \
	  "was "                                                                                               \
	  "not timed on its own: its `t_ns` and `dur_ns` are the runtime call's. Timing it would add two "     \
	  "clock reads and a record to every runtime call; it is timed (no `parent_time`) with "               \
	  "`gpu_timing=1` or `stacks=all`. Its line comes just before its parent's")                           \
	X(CALL, "cur_dev", DEV, OPT, NONE,                                                                     \
	  "present only for functions that act on the calling thread's current context (`cur_dev` column "     \
	  "of docs/hooks.md): that context's device, asked before the call; `null` when there is no "          \
	  "current context or its device is not known")                                                        \
	X(CALL, "implicit", BOOL, OPT, NONE,                                                                   \
	  "present, and `true`, only on an implicit copy (see [Implicit copies](#implicit-copies))")           \
	X(CALL, "suppressed", STRS, OPT, NONE,                                                                 \
	  "present only when a suppression took findings of this call: their rule ids (the analyzer does "     \
	  "not derive them again)")                                                                            \
	X(CALL, "stack", HEXES, OPT, NONE,                                                                     \
	  "present only with the option `stacks=all` (in every mode, observe included): the caller's "         \
	  "stack, see [Stacks](#stacks)")                                                                      \
	X(CALL, "args", OBJECT, REQ, ARGS,                                                                     \
	  "the arguments, see [Kinds of arguments](#kinds-of-arguments) and [Argument "                        \
	  "keys](#argument-keys)")                                                                             \
	X(ARGS, "ptr", HEX, OPT, NONE,                                                                         \
	  "a pointer: the memory the call acts on, or (outputs) the one it wrote")                             \
	X(ARGS, "ptr_dev", DEV, OPT, NONE, "the device `ptr` lives on")                                        \
	X(ARGS, "dst", HEX, OPT, NONE, "a copy's destination")                                                 \
	X(ARGS, "dst_dev", DEV, OPT, NONE,                                                                     \
	  "the device `dst` lives on (the P2P attribute queries: the destination device they name)")           \
	X(ARGS, "src", HEX, OPT, NONE, "a copy's source")                                                      \
	X(ARGS, "src_dev", DEV, OPT, NONE,                                                                     \
	  "the device `src` lives on (the P2P attribute queries: the source device they name)")                \
	X(ARGS, "dst_ctx", HEX, OPT, NONE, "the destination's context (cuMemcpyPeer)")                         \
	X(ARGS, "dst_ctx_dev", DEV, OPT, NONE, "its device")                                                   \
	X(ARGS, "src_ctx", HEX, OPT, NONE, "the source's context")                                             \
	X(ARGS, "src_ctx_dev", DEV, OPT, NONE, "its device")                                                   \
	X(ARGS, "dst_device", DEV, OPT, NONE,                                                                  \
	  "the destination device a runtime peer copy names (hipMemcpyPeer, cudaMemcpyPeer)")                  \
	X(ARGS, "src_device", DEV, OPT, NONE, "the source device it names")                                    \
	X(ARGS, "dst_type", STR, OPT, NONE,                                                                    \
	  "a copy side's memory type when it is not plain device memory: `\"host\"`, `\"array\"`, "            \
	  "`\"device\"`, `\"unified\"`, `\"invalid\"`")                                                        \
	X(ARGS, "src_type", STR, OPT, NONE, "the same for the source")                                         \
	X(ARGS, "peer_ctx", HEX, OPT, NONE,                                                                    \
	  "the peer's context (cuCtxEnablePeerAccess, hipCtxEnablePeerAccess)")                                \
	X(ARGS, "peer_ctx_dev", DEV, OPT, NONE, "its device")                                                  \
	X(ARGS, "peer_dev", DEV, OPT, NONE, "the peer device")                                                 \
	X(ARGS, "dev", DEV, OPT, NONE, "a device the call names")                                              \
	X(ARGS, "device", DEV, OPT, NONE, "a device the call names, or (aclrtGetDevice) the one it wrote")     \
	X(ARGS, "can_access", INT, OPT, NONE, "the answer the call wrote: 1 or 0")                             \
	X(ARGS, "value", INT, OPT, NONE,                                                                       \
	  "the value the call wrote (a P2P attribute, a range attribute of 4 bytes)")                          \
	X(ARGS, "bytes", UINT, OPT, NONE, "a size in bytes")                                                   \
	X(ARGS, "dest_max", UINT, OPT, NONE, "the destination's capacity (aclrtMemcpy)")                       \
	X(ARGS, "width", UINT, OPT, NONE, "a 2D/3D copy's width in bytes")                                     \
	X(ARGS, "height", UINT, OPT, NONE, "its height")                                                       \
	X(ARGS, "depth", UINT, OPT, NONE, "its depth")                                                         \
	X(ARGS, "offset", UINT, OPT, NONE, "an offset in bytes (cuMemMap)")                                    \
	X(ARGS, "count", UINT, OPT, NONE, "how many elements an array argument has")                           \
	X(ARGS, "num_attrs", UINT, OPT, NONE, "how many attributes")                                           \
	X(ARGS, "num_locations", UINT, OPT, NONE, "how many locations")                                        \
	X(ARGS, "data_size", UINT, OPT, NONE, "the size of a range-attribute query's buffer")                  \
	X(ARGS, "flags", UINT, OPT, NONE, "flags, as a number")                                                \
	X(ARGS, "flags_names", STR, OPT, NONE, "the names of the flags' bits, see [Flags](#flags)")            \
	X(ARGS, "advice", INT, OPT, NONE, "a memory advice, as a number")                                      \
	X(ARGS, "advice_name", NAME, OPT, NONE, "its name, see [Enums](#enums)")                               \
	X(ARGS, "attr", INT, OPT, NONE, "an attribute, as a number")                                           \
	X(ARGS, "attr_name", NAME, OPT, NONE, "its name")                                                      \
	X(ARGS, "attrs", NAMES, OPT, NONE,                                                                     \
	  "range attributes (cuMemRangeGetAttributes): each by name, or as a number")                          \
	X(ARGS, "attrs", HEX, OPT, NONE,                                                                       \
	  "the attributes array of a batch copy (cuMemcpyBatchAsync), address only")                           \
	X(ARGS, "location", OBJECT, OPT, LOCATION, "a memory location, see [Locations](#locations)")           \
	X(ARGS, "stream", HEX, OPT, NONE, "a stream; `\"0x0\"` is the default one")                            \
	X(ARGS, "event", HEX, OPT, NONE, "an event")                                                           \
	X(ARGS, "data", HEX, OPT, NONE, "the caller's buffer of a range-attribute query")                      \
	X(ARGS, "data_sizes", HEX, OPT, NONE, "its sizes' array")                                              \
	X(ARGS, "handle", HEX128, OPT, NONE, "an IPC handle: the 128 hex digits of its 64 bytes")              \
	X(ARGS, "handle", HEX, OPT, NONE, "a virtual-memory allocation handle")                                \
	X(ARGS, "handle_type", NAME_OR_INT, OPT, NONE,                                                         \
	  "a shareable handle type: `\"none\"`, `\"posix_fd\"`, `\"win32\"`, `\"win32_kmt\"`, "                \
	  "`\"fabric\"`, or the number")                                                                       \
	X(ARGS, "handle_types", NAMES, OPT, NONE, "the handle types an allocation was created for")            \
	X(ARGS, "share_type", NAME_OR_INT, RARE, NONE,                                                         \
	  "ACL's V2 shareable-handle type: `\"ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT\"`, "                          \
	  "`\"ACL_MEM_SHARE_HANDLE_TYPE_FABRIC\"`, or the number")                                             \
	X(ARGS, "location_type", STR, RARE, NONE, "an allocation's location type, when it is not a device")    \
	X(ARGS, "prop", NIL, RARE, NONE, "an allocation's properties pointer, when NULL")                      \
	X(ARGS, "shareable", INT, OPT, NONE, "an OS handle of type `posix_fd`: the fd")                        \
	X(ARGS, "shareable", HEXBYTES, RARE, NONE, "an OS handle of type `fabric`: its bytes")                 \
	X(ARGS, "shareable", HEX, RARE, NONE, "an OS handle of another type")                                  \
	X(ARGS, "file_id", STR_NULL, OPT, NONE,                                                                \
	  "`<st_dev>:<st_ino>` of the fd's file; null if it could not be asked")                               \
	X(ARGS, "file_id_unique", BOOL, RARE, NONE,                                                            \
	  "`false` where the fd is a character device and `file_id` pairs nothing (the real driver's fds)")    \
	X(ARGS, "access", OBJECTS, OPT, GRANT,                                                                 \
	  "access grants (cuMemSetAccess, cuMemPoolSetAccess): the first 16")                                  \
	X(ARGS, "pool", HEX, OPT, NONE, "a memory pool")                                                       \
	X(ARGS, "pool", NIL, OLD, NONE, "null: no pool (earlier writers)")                                     \
	X(ARGS, "export_data", HEX128, OPT, NONE, "a pool pointer's export data: 128 hex digits")              \
	X(ARGS, "export_data", NIL, OLD, NONE, "null: none could be read (earlier writers)")                   \
	X(ARGS, "ranges", OBJECTS, OPT, RANGE, "a batch prefetch's ranges: the first 16")                      \
	X(ARGS, "copies", OBJECTS, OPT, COPY, "a batch copy's copies: the first 16")                           \
	X(ARGS, "copy", NIL, RARE, NONE, "a copy-description pointer, when NULL")                              \
	X(ARGS, "operations", NAMES, OPT, NONE,                                                                \
	  "atomic operations asked about (cuDeviceGetP2PAtomicCapabilities): the first 16, each by name or "   \
	  "number")                                                                                            \
	X(ARGS, "capabilities", STRS, OPT, NONE,                                                               \
	  "what the link supports of each operation, as the call wrote it: the names of its capability "       \
	  "bits "                                                                                              \
	  "joined by `|`, as [Flags](#flags) are")                                                             \
	X(ARGS, "kind", NAME_OR_INT, OPT, NONE,                                                                \
	  "a copy kind: ACL's by name (`\"ACL_MEMCPY_DEVICE_TO_DEVICE\"` …) or number; HIP's hipMemcpyKind " \
	  "as its number")                                                                                     \
	X(ARGS, "policy", NAME_OR_INT, OPT, NONE,                                                              \
	  "an ACL allocation policy (`\"ACL_MEM_MALLOC_HUGE_FIRST_P2P\"` …), or the number")                   \
	X(ARGS, "p2p", BOOL, OPT, NONE, "whether the policy is a *_P2P one")                                   \
	X(ARGS, "config", STR_NULL, OPT, NONE, "aclInit's configuration path, or null")                        \
	X(ARGS, "key", STR_NULL, OPT, NONE,                                                                    \
	  "an ACL IPC key (aclrtIpcMem*): the string; null where the pointer is NULL or the export failed")    \
	X(ARGS, "len", UINT, OPT, NONE, "the length of the buffer an ACL IPC key is written to")               \
	X(ARGS, "pids", INTS_NULL, OPT, NONE,                                                                  \
	  "the process ids of an ACL IPC trust list (aclrtIpcMemSetImportPid): the first 16; null if NULL")    \
	X(ARGS, "num", UINT, OPT, NONE, "how many process ids the trust list has")                             \
	X(ARGS, "pid", INT, OPT, NONE, "the process id aclrtDeviceGetBareTgid gave (the trust lists' id)")     \
	X(ARGS, "dpitch", UINT, OPT, NONE,                                                                     \
	  "an ACL 2D copy's destination pitch: bytes from one row to the next")                                \
	X(ARGS, "spitch", UINT, OPT, NONE, "its source pitch")                                                 \
	X(ARGS, "alignment", UINT, OPT, NONE,                                                                  \
	  "a reserved address range's alignment (aclrtReserveMemAddress)")                                     \
	X(ARGS, "hint", HEX, OPT, NONE, "the address a reservation asks for (aclrtReserveMemAddress)")         \
	X(ARGS, "hint_dev", DEV, OPT, NONE, "the device `hint` lives on (null: none)")                         \
	X(ARGS, "mem_attr", INT, OPT, NONE, "an ACL physical allocation's memory attribute (aclrtMemAttr)")    \
	X(LOCATION, "type", NAME_OR_INT, REQ, NONE,                                                            \
	  "`\"invalid\"`, `\"device\"`, `\"host\"`, `\"host_numa\"`, `\"host_numa_current\"`, or the "         \
	  "number")                                                                                            \
	X(LOCATION, "id", INT, REQ, NONE,                                                                      \
	  "a device ordinal for `\"device\"`, a NUMA node for `\"host_numa\"`")                                \
	X(COPY, "dst", HEX, REQ, NONE, "the copy's destination")                                               \
	X(COPY, "dst_dev", DEV, REQ, NONE, "its device")                                                       \
	X(COPY, "dst_type", STR, RARE, NONE, "`\"host\"` when it is host memory")                              \
	X(COPY, "src", HEX, REQ, NONE, "the copy's source")                                                    \
	X(COPY, "src_dev", DEV, REQ, NONE, "its device")                                                       \
	X(COPY, "src_type", STR, OPT, NONE, "`\"host\"` when it is host memory")                               \
	X(COPY, "bytes", UINT, REQ, NONE, "its size")                                                          \
	X(RANGE, "ptr", HEX, REQ, NONE, "the range's start")                                                   \
	X(RANGE, "bytes", UINT, REQ, NONE, "its size")                                                         \
	X(RANGE, "dev", DEV, REQ, NONE,                                                                        \
	  "the device it goes to, -1 for the host, null if no location applies")                               \
	X(GRANT, "dev", ORDINAL, REQ, NONE, "the device granted, -1 for a host location")                      \
	X(GRANT, "flags", NAME_OR_INT, REQ, NONE, "`\"none\"`, `\"read\"`, `\"readwrite\"`, or the number")    \
	X(GRANT, "type", STR, RARE, NONE, "a host location's type")                                            \
	X(VIOLATION, "type", STR, REQ, NONE, "`\"violation\"`")                                                \
	X(VIOLATION, "seq", UINT, REQ, NONE,                                                                   \
	  "number of this event in the process (see [order](#lines-and-their-order)); higher than the "        \
	  "`seq` of the call it concerns")                                                                     \
	X(VIOLATION, "call", UINT, OPT, NONE,                                                                  \
	  "the `seq` of the call the finding is about: the call event with that `seq` follows in the file, "   \
	  "unless enforce mode stopped the call. Absent for findings made outside any call (`ipc.leak`, "      \
	  "made when the process ends)")                                                                       \
	X(VIOLATION, "tid", UINT, REQ, NONE,                                                                   \
	  "kernel thread id of the thread that made the call (for `ipc.leak`: the thread ending the "          \
	  "process)")                                                                                          \
	X(VIOLATION, "t_ns", UINT, REQ, NONE,                                                                  \
	  "CLOCK_MONOTONIC, ns, when the finding was made: before the real function was called, so earlier "   \
	  "than the `t_ns` of its call")                                                                       \
	X(VIOLATION, "vendor", STR, REQ, NONE, "`\"cuda\"`, `\"hip\"` or `\"acl\"`")                           \
	X(VIOLATION, "api", STR, REQ, NONE,                                                                    \
	  "the function the finding is about, without the ABI suffix, as in the call event's `api` (e.g. "     \
	  "`\"cuMemFree\"` for a call of `cuMemFree_v2`); `\"exit\"` for `ipc.leak`")                          \
	X(VIOLATION, "op", STR, REQ, NONE,                                                                     \
	  "what the call does, as in the call event's `op` (`\"peer_copy\"`, `\"ipc_open\"`, …); for a "     \
	  "finding made when the process ends, what was still held: `\"exit\"` (an IPC mapping), "             \
	  "`\"ipc_event_exit\"`, `\"vmm_exit\"`. Absent in traces of earlier writers: readers take the op "    \
	  "of the call event whose `seq` is `call`")                                                           \
	X(VIOLATION, "rule", STR, REQ, NONE,                                                                   \
	  "the rule id, e.g. `\"ipc.export.interior-pointer\"` (docs/rules.md)")                               \
	X(VIOLATION, "severity", STR, REQ, NONE,                                                               \
	  "the rule's severity: `\"error\"`, `\"warning\"` or `\"performance\"`")                              \
	X(VIOLATION, "message", STR, REQ, NONE,                                                                \
	  "one sentence saying what is wrong with this call, with its pointers, sizes and devices (at most "   \
	  "639 bytes); the same sentence as the second line of the stderr report. For "                        \
	  "`peer.enable.unsupported` "                                                                         \
	  "and `copy.peer.no-peer-access` it ends, where the vendor's management library can say, with "       \
	  "both "                                                                                              \
	  "devices' UUID and bus id and why they cannot be peers (NVML's P2P status and common ancestor, "     \
	  "or "                                                                                                \
	  "ROCm SMI's answer)")                                                                                \
	X(VIOLATION, "stack", HEXES, OPT, NONE,                                                                \
	  "present with `stacks=violations` (the default) or `stacks=all`, when a stack could be taken: "      \
	  "the caller's stack, see [Stacks](#stacks)")                                                         \
	X(GPU_TIME, "type", STR, REQ, NONE, "`\"gpu_time\"`")                                                  \
	X(GPU_TIME, "call", UINT, REQ, NONE, "the `seq` of the call event it times")                           \
	X(GPU_TIME, "gpu_ns", UINT, REQ, NONE,                                                                 \
	  "the copy's duration on the device, from a pair of timing events recorded on the call's own "        \
	  "stream just before and after it")                                                                   \
	X(GPU_TIME, "t_gpu_ns", UINT, REQ, NONE,                                                               \
	  "when it started on the device, placed on the CLOCK_MONOTONIC clock of `t_ns` through a "            \
	  "reference event per context (recorded and waited for when the context is first timed); accurate "   \
	  "to a few microseconds")                                                                             \
	X(GPU_TIME, "method", STR, OPT, NONE,                                                                  \
	  "`\"events\"` or `\"cupti\"` (`gpu_timing`); absent in traces written before the choice existed, "   \
	  "which used events")                                                                                 \
	X(UM, "type", STR, REQ, NONE, "`\"um\"`")                                                              \
	X(UM, "kind", STR, REQ, NONE,                                                                          \
	  "what CUPTI's unified-memory counter recorded: `\"htod\"`, `\"dtoh\"`, `\"dtod\"` (a migration, "    \
	  "bytes from `src` to `dst`), `\"cpu_fault\"`, `\"gpu_fault\"` (a page fault on `proc`), "            \
	  "`\"thrashing\"` (`procs` fighting over a range), `\"throttling\"` (the driver held `proc` "         \
	  "back), "                                                                                            \
	  "`\"remote_map\"` (a range mapped from `src` into `dst` instead of migrating)")                      \
	X(UM, "t_ns", UINT, REQ, NONE,                                                                         \
	  "when it started (a migration on the device, a fault when the driver began to handle it), on the "   \
	  "CLOCK_MONOTONIC clock of the calls' `t_ns`")                                                        \
	X(UM, "end_ns", UINT, OPT, NONE,                                                                       \
	  "migrations, GPU faults (when the replay was queued) and throttling: when it ended")                 \
	X(UM, "addr", HEX, REQ, NONE,                                                                          \
	  "the virtual address of the first page moved, mapped or fought over, or of the page that faulted")   \
	X(UM, "bytes", UINT, OPT, NONE, "migrations, thrashing and remote maps: the bytes of the range")       \
	X(UM, "groups", UINT, OPT, NONE, "GPU faults: the fault groups CUPTI counted for the page")            \
	X(UM, "pc", HEX, OPT, NONE, "CPU faults: the program counter of the instruction that faulted")         \
	X(UM, "proc", NAME_OR_INT, OPT, NONE,                                                                  \
	  "faults and throttling: the processor, a device ordinal of the process or `\"cpu\"`")                \
	X(UM, "src", NAME_OR_INT, OPT, NONE,                                                                   \
	  "migrations and remote maps: where the pages were, a device ordinal or `\"cpu\"`")                   \
	X(UM, "dst", NAME_OR_INT, OPT, NONE,                                                                   \
	  "migrations and remote maps: where they went or were mapped into, a device ordinal or `\"cpu\"`")    \
	X(UM, "procs", NAMES, OPT, NONE, "thrashing: the processors fighting over the range")                  \
	X(UM, "cause", STR, OPT, NONE,                                                                         \
	  "migrations: `\"user\"`, `\"coherence\"`, `\"prefetch\"`, `\"eviction\"`, `\"access_counters\"` "    \
	  "or "                                                                                                \
	  "`\"unknown\"`; remote maps: `\"coherence\"`, `\"thrashing\"`, `\"policy\"`, "                       \
	  "`\"out_of_memory\"`, "                                                                              \
	  "`\"eviction\"` or `\"unknown\"`")                                                                   \
	X(UM, "access", STR, OPT, NONE,                                                                        \
	  "GPU faults: `\"read\"`, `\"write\"`, `\"atomic\"`, `\"prefetch\"` or `\"unknown\"`")                \
	X(DEVICE, "type", STR, REQ, NONE, "`\"device\"`")                                                      \
	X(DEVICE, "vendor", STR, REQ, NONE, "`\"cuda\"`, `\"hip\"` or `\"acl\"`: whose ordinals these are")    \
	X(DEVICE, "ordinal", UINT, REQ, NONE,                                                                  \
	  "the device's ordinal in this process: what the calls' device members (`cur_dev`, `dst_dev`, …) "  \
	  "name it by")                                                                                        \
	X(DEVICE, "count", UINT, REQ, NONE, "how many devices the process sees (one line each)")               \
	X(DEVICE, "uuid", STR_NULL, REQ, NONE,                                                                 \
	  "the device's UUID, the same in every process: `\"GPU-\"` and the runtime's 16 bytes in the form "   \
	  "`nvidia-smi -L` prints (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`), or, where they are 16 hex "        \
	  "digits (ROCm), those digits; null where the runtime has no such call")                              \
	X(DEVICE, "bus_id", STR_NULL, REQ, NONE,                                                               \
	  "its PCI bus id, `\"dddd:bb:dd.f\"` in lower case; null where the runtime gives none (ACL)")         \
	X(DEVICE, "name", STR_NULL, REQ, NONE, "the runtime's name of the device (ACL: the chip's)")           \
	X(DEVICE, "physical_id", UINT, OPT, NONE,                                                              \
	  "ACL only: the runtime's physical device id (aclrtGetPhyDevIdByUserDevId), where it has the call")   \
	X(DEVICE, "nvswitch_links", INT_NULL, OPT, NONE,                                                       \
	  "CUDA with the management library only: the device's active NVLinks that end at an NVSwitch")        \
	X(DEVICE, "peers", OBJECTS, REQ, PEER, "every other device the process sees, in ordinal order")        \
	X(PEER, "ordinal", UINT, REQ, NONE, "the peer's ordinal")                                              \
	X(PEER, "can_access", INT_NULL, REQ, NONE,                                                             \
	  "whether the device can access the peer's memory (cuDeviceCanAccessPeer, hipDeviceCanAccessPeer, "   \
	  "aclrtDeviceCanAccessPeer): 1 or 0; null if the runtime did not answer")                             \
	X(PEER, "performance_rank", INT_NULL, REQ, NONE,                                                       \
	  "the P2P attribute performance rank of device -> peer (lower is better); null where there is "       \
	  "none "                                                                                              \
	  "(ACL)")                                                                                             \
	X(PEER, "access_supported", INT_NULL, REQ, NONE, "the P2P attribute access supported")                 \
	X(PEER, "native_atomics", INT_NULL, REQ, NONE, "the P2P attribute native atomics supported")           \
	X(PEER, "array_access", INT_NULL, REQ, NONE, "the P2P attribute array access supported")               \
	X(PEER, "link", STR, REQ, NONE,                                                                        \
	  "the pair's link, from the vendor's management library: `\"nvlink\"` (NVLinks from one to the "      \
	  "other), `\"nvswitch\"` (NVLinks through NVSwitches), `\"xgmi\"` (AMD Infinity Fabric, from ROCm "   \
	  "SMI), `\"pcie\"`, or `\"unknown\"` (no management library: ACL, or NVML or ROCm SMI absent)")       \
	X(PEER, "nvlinks", INT_NULL, REQ, NONE,                                                                \
	  "how many: direct links, or, through the switches, the fewer of the two devices' switch links; "     \
	  "null when unknown")                                                                                 \
	X(PEER, "topology", NAME, REQ, NONE,                                                                   \
	  "where the two devices' PCIe paths meet (nvmlDeviceGetTopologyCommonAncestor): "                     \
	  "`\"internal\"`, `\"single_switch\"`, `\"multiple_switches\"`, `\"host_bridge\"`, "                  \
	  "`\"numa_node\"`, "                                                                                  \
	  "`\"system\"` (across CPU sockets); null when unknown")                                              \
	X(PEER, "p2p_read", NAME, REQ, NONE,                                                                   \
	  "NVML's P2P status for reads (nvmlDeviceGetP2PStatus): `\"ok\"`, `\"chipset_not_supported\"`, "      \
	  "`\"gpu_not_supported\"`, `\"topology_not_supported\"`, `\"disabled_by_regkey\"`, "                  \
	  "`\"not_supported\"`, `\"unknown\"`; null without NVML")                                             \
	X(PEER, "p2p_write", NAME, REQ, NONE, "the same for writes")                                           \
	X(PEER, "p2p_nvlink", NAME, REQ, NONE, "the same for P2P over NVLink")                                 \
	X(PEER, "p2p_atomics", NAME, REQ, NONE, "the same for atomics")                                        \
	X(FOOTER, "type", STR, REQ, NONE, "`\"footer\"`")                                                      \
	X(FOOTER, "events", UINT, REQ, NONE,                                                                   \
	  "the number of event lines in the file between the header and the footer, of every type")            \
	X(FOOTER, "dropped", UINT, REQ, NONE,                                                                  \
	  "events that were made but are not in the file, for any cause (`0` when none); the sum of "          \
	  "`dropped_by`")                                                                                      \
	X(FOOTER, "dropped_by", OBJECT, REQ, DROPPED_BY,                                                       \
	  "`dropped` by cause, only the causes that occurred; `{}` when none")                                 \
	X(FOOTER, "violations", UINT, REQ, NONE, "the number of `\"type\":\"violation\"` lines in the file")   \
	X(FOOTER, "repeats", UINT, REQ, NONE,                                                                  \
	  "findings counted but not written, because the same rule had already fired at the same call site "   \
	  "(its first finding is a violation event); `0` in observe mode")                                     \
	X(FOOTER, "repeats_by", OBJECTS, REQ, REPEAT,                                                          \
	  "the (rule, call site) pairs behind `repeats`, most repeats first, at most 64 (8 in a compact "      \
	  "footer)")                                                                                           \
	X(FOOTER, "suppressed", UINT, REQ, NONE,                                                               \
	  "number of findings suppressed, by a suppressions file or by the default suppressions (not "         \
	  "written, "                                                                                          \
	  "not reported; their calls list them as `suppressed`)")                                              \
	X(FOOTER, "suppressed_default", UINT, OPT, NONE,                                                       \
	  "of them, the number the default suppressions took (findings inside third-party libraries)")         \
	X(FOOTER, "suppressions", OBJECTS, OPT, SUPPRESSION,                                                   \
	  "each suppression that matched (absent in a compact footer)")                                        \
	X(FOOTER, "gpu_timing_skipped", UINT, OPT, NONE,                                                       \
	  "with `gpu_timing=1` only: timed calls that got no `gpu_time` event (enqueued during stream "        \
	  "capture, no event could be created, or the context was gone when read)")                            \
	X(FOOTER, "um_events", UINT, OPT, NONE,                                                                \
	  "with `um_counters=1` only: the `um` events written (those the trace dropped are in `dropped`)")     \
	X(FOOTER, "um_lost", UINT, OPT, NONE,                                                                  \
	  "with `um_counters=1` only: unified-memory records CUPTI itself dropped (its buffers were full) "    \
	  "or that could not be read")                                                                         \
	X(FOOTER, "um_off", STR, OPT, NONE,                                                                    \
	  "with `um_counters=1` only, when the counters could not be had: why (libcupti not found, CUPTI "     \
	  "refused, another profiler holds it: the same sentence as the one warning on stderr; or the "        \
	  "program made no CUDA call)")                                                                        \
	X(FOOTER, "limit", OBJECT, RARE, LIMIT, "present only when `max_trace_mb` stopped call events")        \
	X(FOOTER, "write_error", STR, RARE, NONE,                                                              \
	  "present only when writing the file failed: the errno's name and text, e.g. `\"ENOSPC: No space "    \
	  "left on device\"`, `\"EFBIG: File too large (the file-size limit, ulimit -f, is 2048000 "           \
	  "bytes)\"`, "                                                                                        \
	  "`\"EIO: Input/output error\"`. Tracing stopped there; the process ran on")                          \
	X(FOOTER, "report_error", STR, RARE, NONE,                                                             \
	  "present only when peerwatch gave up writing to stderr: why (a closed pipe, `EPIPE`; a pipe "        \
	  "nobody read for 1 s; stderr closed when the program started) and how many messages were not "       \
	  "written")                                                                                           \
	X(FOOTER, "t_end_ns", UINT, REQ, NONE, "CLOCK_MONOTONIC, ns, when the footer was written")             \
	X(FOOTER, "reason", STR, REQ, NONE,                                                                    \
	  "why the trace ended: `\"exit\"` (the process exited normally: `exit(3)`, a return from `main`, "    \
	  "or its last thread ending), `\"_exit\"` (it called `_exit(2)` or `_Exit(2)`), `\"exec\"` (it "      \
	  "was "                                                                                               \
	  "about to exec) or `\"enforce\"` (enforce mode stopped it; the last violation event says why)")      \
	X(FOOTER, "modules", OBJECTS, OPT, MODULE,                                                             \
	  "as in the header, as loaded at the end (objects loaded later with dlopen(3) appear here); "         \
	  "absent "                                                                                            \
	  "in a compact footer")                                                                               \
	X(DROPPED_BY, "in_flight_at_exit", UINT, RARE, NONE,                                                   \
	  "call events being recorded by another thread at the moment the trace was finished (exit, exec, "    \
	  "enforce): at most one a thread. No finding is lost with them: a call is checked before it runs, "   \
	  "and its findings are violation events written before it (`peerwatch-analyze check` passes "         \
	  "them). A call that returns after that moment makes no event")                                       \
	X(DROPPED_BY, "finding_in_flight_at_exit", UINT, RARE, NONE,                                           \
	  "violation events being written by another thread at the moment the trace was finished: those "      \
	  "findings are not in the trace")                                                                     \
	X(DROPPED_BY, "size_limit", UINT, RARE, NONE,                                                          \
	  "events after `max_trace_mb` was reached (calls and `gpu_time` events; findings and device lines "   \
	  "are still written)")                                                                                \
	X(DROPPED_BY, "write_error", UINT, RARE, NONE,                                                         \
	  "events made but not written because writing had failed (`write_error` says how)")                   \
	X(DROPPED_BY, "writer_behind", UINT, RARE, NONE,                                                       \
	  "events that found all their thread's buffers full: the trace writer thread was behind, and "        \
	  "threads never wait for it")                                                                         \
	X(DROPPED_BY, "too_long", UINT, RARE, NONE, "events whose line would be longer than 8191 bytes")       \
	X(DROPPED_BY, "no_memory", UINT, RARE, NONE,                                                           \
	  "events that found no memory for their thread's buffer")                                             \
	X(DROPPED_BY, "after_thread_exit", UINT, RARE, NONE,                                                   \
	  "events a thread made in its last moments, after it had handed its buffer over (another "            \
	  "library's thread-exit handler making a traced call)")                                               \
	X(DROPPED_BY, "signal_handler", UINT, RARE, NONE,                                                      \
	  "events of calls a signal handler made while its thread was writing another event: they would "      \
	  "have "                                                                                              \
	  "been written over it, so they are left out and the interrupted one is kept")                        \
	X(REPEAT, "rule", STR, REQ, NONE, "the rule id")                                                       \
	X(REPEAT, "site", HEX, REQ, NONE,                                                                      \
	  "the program's return address of the call (symbolize it with `\"modules\"` like a stack frame); "    \
	  "`\"0x0\"` when no stack could be taken, or for pairs beyond the first 4096 of the process")         \
	X(REPEAT, "count", UINT, REQ, NONE, "the findings after the first")                                    \
	X(LIMIT, "bytes", UINT, REQ, NONE, "the limit, bytes")                                                 \
	X(LIMIT, "seq", UINT, REQ, NONE,                                                                       \
	  "the `seq` of the first event left out (events of other threads with higher `seq` may be in the "    \
	  "file: lines are not in `seq` order; an event without `seq` gives the next number)")                 \
	X(LIMIT, "t_ns", UINT, REQ, NONE, "when it was reached (CLOCK_MONOTONIC)")                             \
	X(SUPPRESSION, "line", UINT, REQ, NONE, "its line in the suppressions file")                           \
	X(SUPPRESSION, "suppression", STR, REQ, NONE, "its text")                                              \
	X(SUPPRESSION, "hits", UINT, REQ, NONE, "how many findings it suppressed")                             \
	X(SUPPRESSION, "default", STR, OPT, NONE,                                                              \
	  "present for a default suppression: its name (`peerwatch-analyze rules --suppressions`); its "       \
	  "`line` is 0")

struct pw_trace_field {
	int scope; /* PW_SC_* */
	const char *key;
	int kind;     /* PW_J_* */
	int presence; /* enum pw_presence */
	int child;    /* PW_SC_* of an object's members, PW_SC_NONE */
	const char *doc;
};
#define PW_TRACE_FIELD_INIT(scope, key, kind, presence, child, doc) \
	{PW_SC_##scope, key, PW_J_##kind, PW_##presence, PW_SC_##child, doc},

#endif

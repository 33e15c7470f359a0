/*
 * The rule catalog: one row per documented contract peerwatch checks.
 * The preload's checks (preload/rules_*.c, one function pw_rule_<NAME> per
 * row), `peerwatch-analyze rules` and docs/rules.md all read this table.
 *
 *   X(NAME, "id", SEVERITY, VENDORS, OPS, "source", "summary")
 *
 * OPS: the ops (peerwatch/trace_format.h) whose calls the rule looks at,
 * a set of PW_OPBIT; a call of any other op never reaches the rule.
 *
 * source:  the vendor documents (name, section, function) the contract
 *          comes from, all the rule's vendors' (docs/rules.md's
 *          "documents");
 * summary: what breaks the contract, in words no vendor owns.
 *
 * What a report says is each vendor's own, in rules_cites.h: one row per
 * vendor the rule applies to, with that vendor's sentence, its public page,
 * what its runtime does and the fix, in its names and codes.
 */
#ifndef PEERWATCH_RULES_TABLE_H
#define PEERWATCH_RULES_TABLE_H

#include "peerwatch/trace_format.h"

#define PW_V_CUDA 0x1
#define PW_V_HIP 0x2
#define PW_V_ACL 0x4
#define PW_V_ALL (PW_V_CUDA | PW_V_HIP | PW_V_ACL)

/* Every copy: between named devices, and between pointers' devices. */
#define PW_OPS_COPY (PW_OPBIT(PEER_COPY) | PW_OPBIT(IMPLICIT_COPY))

/* Severities, most serious first (halt_on compares them). */
#define PW_SEV_ERROR 0
#define PW_SEV_WARNING 1
#define PW_SEV_PERFORMANCE 2

#define PW_RULES(X)                                                                                          \
	X(PEER_ENABLE_SELF, "peer.enable.self", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(PEER_ENABLE),               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess "                              \
	  "(CUDA_ERROR_INVALID_CONTEXT ... if the current context is peerContext); HIP Runtime API, "        \
	  "PeerToPeer Device Memory Access, hipDeviceCanAccessPeer (a device is not a peer of itself); "     \
	  "CANN AscendCL, Inter-Device Data Transfer",                                                       \
	  "peer access enabled from a device to itself")                                                     \
	X(PEER_ENABLE_FLAGS, "peer.enable.flags", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(PEER_ENABLE),             \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess (Flags ... must be set "       \
	  "to 0); HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceEnablePeerAccess (flags "       \
	  "... must be zero); CANN AscendCL, Inter-Device Data Transfer",                                    \
	  "peer access enabled with flags other than 0")                                                     \
	X(PEER_ENABLE_UNSUPPORTED, "peer.enable.unsupported", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(PEER_ENABLE), \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess "                              \
	  "(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED); HIP Runtime API, PeerToPeer Device Memory Access, "         \
	  "hipDeviceCanAccessPeer; CANN AscendCL, Inter-Device Data Transfer",                               \
	  "peer access enabled between devices that cannot access each other")                               \
	X(PEER_ENABLE_TWICE, "peer.enable.twice", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,                      \
	  PW_OPBIT(PEER_ENABLE),                                                                             \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess "                              \
	  "(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED); HIP Runtime API, PeerToPeer Device Memory Access, "     \
	  "hipDeviceEnablePeerAccess (hipErrorPeerAccessAlreadyEnabled)",                                    \
	  "peer access enabled again while it is already on (CUDA: from the same context to the same peer "  \
	  "context; a second context of the device, or its primary context after a reset, enables anew)")    \
	X(PEER_ENABLE_UNQUERIED, "peer.enable.unqueried", PW_SEV_WARNING, PW_V_ALL, PW_OPBIT(PEER_ENABLE),   \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceCanAccessPeer; HIP Runtime API, "            \
	  "PeerToPeer Device Memory Access, hipDeviceCanAccessPeer; CANN AscendCL, Inter-Device Data "       \
	  "Transfer (query, then enable)",                                                                   \
	  "peer access enabled without asking first whether the pair supports it")                           \
	X(PEER_ENABLE_ONE_DIRECTION, "peer.enable.one-direction", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,       \
	  "CANN AscendCL, Inter-Device Data Transfer (two enables, one per direction)",                      \
	  "a device-to-device copy between devices whose peer access is enabled in one direction only "      \
	  "(or in neither)")                                                                                 \
	X(PEER_DISABLE_NOT_ENABLED, "peer.disable.not-enabled", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,          \
	  PW_OPBIT(PEER_DISABLE),                                                                            \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxDisablePeerAccess "                             \
	  "(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED); HIP Runtime API, PeerToPeer Device Memory Access, "         \
	  "hipDeviceDisablePeerAccess (hipErrorPeerAccessNotEnabled)",                                       \
	  "peer access disabled although it was not enabled")                                                \
	X(PEER_QUERY_SELF, "peer.query.self", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(CAN_ACCESS),                  \
	  "CANN AscendCL, Runtime API, aclrtDeviceCanAccessPeer (deviceId, peerDeviceId: must be "           \
	  "different)",                                                                                      \
	  "a peer query of a device against itself")                                                         \
	X(PEER_QUERY_NULL, "peer.query.null", PW_SEV_ERROR, PW_V_HIP, PW_OPBIT(CAN_ACCESS),                  \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer (canAccessPeer[out] - "  \
	  "Returns the peer access capability)",                                                             \
	  "a peer query with no place for its answer (canAccessPeer NULL)")                                  \
	X(PEER_ENABLE_NO_DEVICE, "peer.enable.no-device", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(PEER_ENABLE),     \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess (enables data exchange between the "      \
	  "current device and a specified device)",                                                          \
	  "peer access enabled by a thread that has no current device (no aclrtSetDevice before it)")        \
	X(PEER_DISABLE_SELF, "peer.disable.self", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(PEER_DISABLE),            \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess and aclrtDeviceDisablePeerAccess "        \
	  "(peerDeviceId: must be different from the current device ID)",                                    \
	  "peer access disabled from a device to itself")                                                    \
	X(PEER_LIMIT, "peer.limit", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(PEER_ENABLE),               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess: "                             \
	  "CUDA_ERROR_TOO_MANY_PEERS if direct peer access is not possible because hardware resources "      \
	  "required for peer access have been exhausted; CUDA C++ Programming Guide, Peer-to-Peer "          \
	  "Memory Access: each device can support a system-wide maximum of eight peer connections "          \
	  "(counted over all the run's processes, by device UUID; on NVSwitch systems, where the guide "     \
	  "says nothing, reported but never stopped); HIP Runtime API, Peer to peer device memory "          \
	  "access, hipDeviceEnablePeerAccess (no limit documented, no error defined for one)",               \
	  "peer access enabled to a ninth peer of one device")                                               \
	X(PEER_ATTR_SELF, "peer.attr.self", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(PEER_ATTR),                    \
	  "cuda.h :23966 cuDeviceGetP2PAttribute and :24002 cuDeviceGetP2PAtomicCapabilities: Returns "      \
	  "CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid or if they represent the "      \
	  "same device",                                                                                     \
	  "a peer attribute or atomics query for a device and itself")                                       \
	X(PEER_CONTEXT_INVALID, "peer.context.invalid", PW_SEV_ERROR, PW_V_CUDA,                             \
	  PW_OPBIT(PEER_ENABLE) | PW_OPBIT(PEER_DISABLE),                                                    \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess and "                          \
	  "cuCtxDisablePeerAccess (CUDA_ERROR_INVALID_CONTEXT if there is no current context, "              \
	  "peerContext is not a valid context); Context Management, cuCtxDestroy (a destroyed context "      \
	  "must not be passed in subsequent API calls)",                                                     \
	  "peer access enabled or disabled with no current context, or naming a peer context that was "      \
	  "destroyed")                                                                                       \
	X(COPY_PEER_DEVICE_MISMATCH, "copy.peer.device-mismatch", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,        \
	  PW_OPS_COPY,                                                                                       \
	  "CUDA Driver API, Memory Management, cuMemcpyPeer (dstContext - Destination context: the "         \
	  "context the memory lives in); HIP Runtime API, PeerToPeer Device Memory Access, "                 \
	  "hipMemcpyPeer (dstDeviceId - Destination device)",                                                \
	  "a peer copy names a device or context other than the one its pointer lives on")                   \
	X(COPY_PEER_OUT_OF_BOUNDS, "copy.peer.out-of-bounds", PW_SEV_ERROR, PW_V_ALL, PW_OPS_COPY,           \
	  "cuda.h cuMemcpyPeer: ByteCount - Size of memory copy in bytes (within the allocations)",          \
	  "a peer copy runs past the end of its source or destination allocation")                           \
	X(COPY_PEER_NULL, "copy.peer.null", PW_SEV_ERROR, PW_V_ALL, PW_OPS_COPY,                             \
	  "cuda.h cuMemcpyPeer: dstDevice/srcDevice - device memory",                                        \
	  "a peer copy of more than 0 bytes from or to a NULL pointer")                                      \
	X(COPY_PEER_NO_PEER_ACCESS, "copy.peer.no-peer-access", PW_SEV_PERFORMANCE, PW_V_CUDA | PW_V_HIP,    \
	  PW_OPS_COPY,                                                                                       \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess (on success all "              \
	  "allocations from peerContext will immediately be accessible; without it, copies are staged "      \
	  "through host memory); HIP Runtime API, PeerToPeer Device Memory Access, "                         \
	  "hipDeviceEnablePeerAccess",                                                                       \
	  "a copy between two devices while peer access between them is off (CUDA: between the "             \
	  "contexts the copy names, each primary one for the runtime; a reset or destroyed context has "     \
	  "none left): staged through the host")                                                             \
	X(COPY_PEER_HOST, "copy.peer.host", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(PEER_COPY),         \
	  "CUDA Driver API, Memory Management, cuMemcpyPeer: Copies from device memory in one context to "   \
	  "device memory in another context; HIP Runtime API, PeerToPeer Device Memory Access, "             \
	  "hipMemcpyPeer (dst, src: device pointers)",                                                       \
	  "a peer copy to or from host memory that is no allocation of the runtime (malloc'd, stack, "       \
	  "static)")                                                                                         \
	X(COPY_PEER_FREED, "copy.peer.freed", PW_SEV_ERROR, PW_V_ALL, PW_OPS_COPY,                           \
	  "CUDA Driver API, Memory Management, cuMemcpyPeer: Copies from device memory in one context to "   \
	  "device memory in another context (memory cuMemFree freed is device memory no more); HIP Runtime " \
	  "API, PeerToPeer Device Memory Access, hipMemcpyPeer (dst, src: device pointers); CANN AscendCL, " \
	  "Inter-Device Data Transfer (copy, then free)",                                                    \
	  "a peer copy from or to memory this process already freed")                                        \
	X(COPY_PEER_CONTEXT_DESTROYED, "copy.peer.context-destroyed", PW_SEV_ERROR, PW_V_CUDA,               \
	  PW_OPBIT(PEER_COPY),                                                                               \
	  "CUDA Driver API, Context Management, cuCtxDestroy: It is the caller's responsibility to "         \
	  "ensure that the context or its resources are not accessed or passed in subsequent API "           \
	  "calls; cuMemcpyPeer: dstContext - Destination context, srcContext - Source context",              \
	  "a peer copy naming a context that cuCtxDestroy destroyed")                                        \
	X(COPY_ACL_P2P_POLICY, "copy.acl.p2p-policy", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                   \
	  "CANN AscendCL, Inter-Device Data Transfer (Allocate P2P memory: acl.rt.malloc(size, "             \
	  "ACL_MEM_MALLOC_NORMAL_ONLY_P2P) before device-to-device copies)",                                 \
	  "a copy between two devices of memory not allocated with a *_P2P policy")                          \
	X(IPC_EXPORT_INTERIOR_POINTER, "ipc.export.interior-pointer", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,    \
	  PW_OPBIT(IPC_EXPORT),                                                                              \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle; HIP Runtime API, Device Management, "      \
	  "hipIpcGetMemHandle (Takes a pointer to the base of an existing device memory allocation)",        \
	  "an IPC handle taken from a pointer inside an allocation, not its base")                           \
	X(IPC_EXPORT_MANAGED, "ipc.export.managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                      \
	  PW_OPBIT(IPC_EXPORT),                                                                              \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle (created with cuMemAlloc); HIP "            \
	  "Runtime API, Device Management, hipIpcGetMemHandle (created with hipMalloc): not managed "        \
	  "memory",                                                                                          \
	  "an IPC handle asked for managed memory")                                                          \
	X(IPC_EXPORT_HOST, "ipc.export.host", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_EXPORT),      \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle: \"dptr - Base pointer to previously "      \
	  "allocated device memory\"; HIP Runtime API, hipIpcGetMemHandle: \"Takes a pointer to the base "   \
	  "of an existing device memory allocation created with hipMalloc\"",                                \
	  "an IPC handle asked for host memory (malloc'd, page-locked, or no allocation at all)")            \
	X(IPC_EXPORT_FREED, "ipc.export.freed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_EXPORT),    \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle: \"dptr - Base pointer to previously "      \
	  "allocated device memory\"; HIP Runtime API, hipIpcGetMemHandle: \"an existing device memory "     \
	  "allocation\"",                                                                                    \
	  "an IPC handle asked for memory this process already freed")                                       \
	X(IPC_OPEN_SAME_PROCESS, "ipc.open.same-process", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Opens an interprocess memory handle exported from another process)",         \
	  "an IPC handle opened in the process that exported it")                                            \
	X(IPC_OPEN_FLAGS, "ipc.open.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_OPEN),          \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle (Must be specified as "                    \
	  "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS); HIP Runtime API, Device Management, "                        \
	  "hipIpcOpenMemHandle (Must be specified as hipIpcMemLazyEnablePeerAccess: 0 before ROCm 6.0, "     \
	  "1 after)",                                                                                        \
	  "an IPC handle opened with flags other than the lazy-enable-peer-access flag")                     \
	X(IPC_OPEN_SECOND_CONTEXT, "ipc.open.second-context", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,            \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle: \"CUipcMemHandles from each CUdevice "    \
	  "in a given process may only be opened by one CUcontext per CUdevice per other process\"; HIP "    \
	  "Runtime API, hipIpcOpenMemHandle: \"hipIpcMemHandles from each device in a given process may "    \
	  "only be opened by one context per device per other process\"",                                    \
	  "an IPC handle opened in a second context of one device, while another context of that "           \
	  "device has it (or another handle of the same exporting device) open")                             \
	X(IPC_OPEN_UNEXPORTED, "ipc.open.unexported", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,                  \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle: \"Opens an interprocess memory "          \
	  "handle exported from another process\"; HIP Runtime API, hipIpcOpenMemHandle: \"Maps memory "     \
	  "exported from another process with hipIpcGetMemHandle\"",                                         \
	  "an IPC handle opened that no traced process of the run exported (said only where it is "          \
	  "known: the run's registry holds every export of its traced processes)")                           \
	X(IPC_OPEN_STALE, "ipc.open.stale", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(IPC_OPEN),                      \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Calling cuMemFree / hipFree on an exported memory region before "            \
	  "calling the close in the importing context will result in undefined behavior); CANN "             \
	  "AscendCL, aclrtIpcMemGetExportKey (the memory to be shared exists before the import)",            \
	  "an IPC handle opened after its exporter freed the allocation")                                    \
	X(IPC_OPEN_UNREACHABLE, "ipc.open.unreachable", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                  \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "HIP Runtime API, IPC, hipIpcOpenMemHandle: For contexts on different devices "                    \
	  "hipIpcOpenMemHandle can attempt to enable peer access between the devices ... "                   \
	  "hipDeviceCanAccessPeer can determine if a mapping is possible",                                   \
	  "an IPC handle opened on a device that cannot access the exporter's device")                       \
	X(IPC_CLOSE_UNKNOWN, "ipc.close.unknown", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(IPC_CLOSE),               \
	  "CUDA Driver API, Memory Management, cuIpcCloseMemHandle; HIP Runtime API, Device "                \
	  "Management, hipIpcCloseMemHandle (Device pointer returned by the open); CANN AscendCL, "          \
	  "aclrtIpcMemClose (a key this process imported or exported)",                                      \
	  "an IPC close of a pointer that no IPC open returned (ACL: of a key the process holds no import "  \
	  "or export of)")                                                                                   \
	X(IPC_CLOSE_TWICE, "ipc.close.twice", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_CLOSE),       \
	  "CUDA Driver API, Memory Management, cuIpcCloseMemHandle (Decrements the reference count ... "     \
	  "by 1); HIP Runtime API, Device Management, hipIpcCloseMemHandle",                                 \
	  "an IPC mapping closed more times than it was opened")                                             \
	X(IPC_FREE_WHILE_OPEN, "ipc.free-while-open", PW_SEV_ERROR, PW_V_ALL,                                \
	  PW_OPBIT(FREE) | PW_OPBIT(IPC_CLOSE),                                                              \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Calling cuMemFree / hipFree on an exported memory region before "            \
	  "calling the close in the importing context will result in undefined behavior); CANN "             \
	  "AscendCL, aclrtIpcMemGetExportKey (every importer closes the key before the exporter closes "     \
	  "it and frees the memory)",                                                                        \
	  "the exporter frees (ACL: or closes) an allocation another process still has open")                \
	X(IPC_FREE_IMPORTED, "ipc.free-imported", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(FREE),        \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle: \"Memory returned from "                  \
	  "cuIpcOpenMemHandle must be freed with cuIpcCloseMemHandle\"; HIP Runtime API, "                   \
	  "hipIpcOpenMemHandle: \"Memory returned from hipIpcOpenMemHandle must be freed with "              \
	  "hipIpcCloseMemHandle\"",                                                                          \
	  "a cuMemFree / cudaFree / hipFree of memory an IPC open mapped")                                   \
	X(IPC_LEAK, "ipc.leak", PW_SEV_WARNING, PW_V_ALL, PW_OPBIT(EXIT),                                    \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Memory returned from the open must be freed with the close); CANN "          \
	  "AscendCL, aclrtIpcMemGetExportKey (the importer closes the key)",                                 \
	  "an IPC mapping still open when the process exits")                                                \
	X(IPC_ACL_IMPORT_PID, "ipc.acl.import-pid", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(IPC_OPEN),              \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (flags: with the trust list on, "             \
	  "aclrtIpcMemSetImportPid names the importers)",                                                    \
	  "an IPC key imported while its export admits only named processes and none was named")             \
	X(IPC_ACL_KEY_LENGTH, "ipc.acl.key-length", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(IPC_EXPORT),            \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (len: the key's length, fixed at 65)",        \
	  "an IPC key exported with a key length other than the one the runtime fixes")                      \
	X(MANAGED_ALLOC_SIZE_ZERO, "managed.alloc.size-zero", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,          \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "CUDA Driver API, Memory Management, cuMemAllocManaged: \"If bytesize is 0, cuMemAllocManaged "    \
	  "returns CUDA_ERROR_INVALID_VALUE\"; HIP Runtime API, Managed Memory, hipMallocManaged: \"size "   \
	  "- requested allocation size in bytes\"",                                                          \
	  "a managed allocation of 0 bytes")                                                                 \
	X(MANAGED_ALLOC_UNQUERIED, "managed.alloc.unqueried", PW_SEV_WARNING, PW_V_HIP,                      \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "HIP Runtime API, Managed Memory, hipMallocManaged (Note: do the capability check before call "    \
	  "this API: hipDeviceGetAttribute, hipDeviceAttributeManagedMemory)",                               \
	  "managed memory allocated without asking first whether the device supports it")                    \
	X(MANAGED_ALLOC_GRANULARITY, "managed.alloc.granularity", PW_SEV_WARNING, PW_V_HIP,                  \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "HIP Runtime API, Managed Memory, hipMallocManaged: \"size - requested allocation size in "        \
	  "bytes, it should be granularity of 4KB\"",                                                        \
	  "a managed allocation whose size is not a multiple of 4 KiB")                                      \
	X(MANAGED_ALLOC_FLAGS, "managed.alloc.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                    \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "CUDA Driver API, Memory Management, cuMemAllocManaged: \"flags - Must be one of "                 \
	  "CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST\"; HIP Runtime API, Managed Memory, "                  \
	  "hipMallocManaged: \"flags - must be either hipMemAttachGlobal or hipMemAttachHost\"",             \
	  "a managed allocation with flags other than attach-global or attach-host")                         \
	X(MANAGED_ADVISE_NOT_MANAGED, "managed.advise.not-managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,      \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: \"The memory range must refer to managed "      \
	  "memory allocated via cuMemAllocManaged or declared via __managed__ variables. The memory "        \
	  "range could also refer to system-allocated pageable memory\" (on a device location only "         \
	  "where \"the device attribute CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS\" is non-zero); HIP "     \
	  "Runtime API, Managed Memory, hipMemAdvise: \"The memory range must refer to managed memory "      \
	  "allocated via the API hipMallocManaged\"",                                                        \
	  "memory advice on memory that is not managed (device, pool, freed, or system memory the "          \
	  "devices cannot access)")                                                                          \
	X(MANAGED_ADVISE_UNALIGNED, "managed.advise.unaligned", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,        \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "HIP Runtime API, Managed Memory, hipMemAdvise: \"count - size in bytes of the memory range, "     \
	  "it should be CPU page size alligned\"; CUDA Driver API, Unified Addressing, cuMemAdvise: "        \
	  "\"The start address and end address of the memory range will be rounded down and rounded up "     \
	  "respectively to be aligned to CPU page size before the advice is applied\"",                      \
	  "memory advice on a range that does not start and end on page boundaries")                         \
	X(MANAGED_ADVISE_OUT_OF_RANGE, "managed.advise.out-of-range", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,    \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: \"the memory range starting at devPtr with "    \
	  "a size of count bytes ... must refer to managed memory allocated via cuMemAllocManaged\"; "       \
	  "HIP Runtime API, Managed Memory, hipMemAdvise: \"in the range starting from the pointer "         \
	  "address devPtr, with the size of count bytes. The memory range must refer to managed memory "     \
	  "allocated via the API hipMallocManaged\"",                                                        \
	  "memory advice on an empty range or one that runs past the end of its managed allocation "         \
	  "(into the next one too)")                                                                         \
	X(MANAGED_ADVISE_INVALID, "managed.advise.invalid", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,              \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: \"The advice parameter can take the "           \
	  "following values\"; \"If CUmemLocation::type is a CU_MEM_LOCATION_TYPE_DEVICE, then "             \
	  "CUmemLocation::id must be a valid device ordinal\"; HIP Runtime API, Managed Memory, "            \
	  "hipMemAdvise: \"advice - advice to be applied\", \"device - device to apply the advice for\"",    \
	  "memory advice with an unknown advice value, or for a device that does not exist (in a "           \
	  "location, {device, -1} is no device: the CPU id -1 is only a plain device number)")               \
	X(MANAGED_ADVISE_LOCATION, "managed.advise.location", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,            \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: for CU_MEM_ADVISE_SET_ACCESSED_BY \"The "       \
	  "CUmemLocation::type must be either CU_MEM_LOCATION_TYPE_DEVICE with CUmemLocation::id "           \
	  "representing a valid device ordinal or CU_MEM_LOCATION_TYPE_HOST ... All other location "         \
	  "types are invalid\"; for CU_MEM_ADVISE_SET_PREFERRED_LOCATION \"CUmemLocation::id must "          \
	  "specify the NUMA ID of the host NUMA node\"; HIP (hipMemAdvise_v2: \"location - location to "     \
	  "apply the advice for\"): a hipMemLocationType",                                                   \
	  "memory advice for a location the advice does not take: type invalid or undefined, a host "        \
	  "NUMA node for accessed-by (CUDA), or a NUMA node the host does not have (CUDA)")                  \
	X(MANAGED_PREFETCH_NOT_MANAGED, "managed.prefetch.not-managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,  \
	  PW_OPBIT(PREFETCH),                                                                                \
	  "CUDA Runtime API, Memory Management, cudaMemPrefetchAsync: \"The memory range must refer to "     \
	  "managed memory allocated via cudaMallocManaged or declared via __managed__ variables, or it "     \
	  "may also refer to system-allocated memory on systems with non-zero "                              \
	  "cudaDevAttrPageableMemoryAccess\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync: "        \
	  "\"dev_ptr - pointer to be prefetched\" (clr refuses memory it did not allocate, for a device, "   \
	  "without pageable memory access)",                                                                 \
	  "a prefetch of memory that is not managed (device, pool, freed, or system memory the devices "     \
	  "cannot access)")                                                                                  \
	X(MANAGED_PREFETCH_INVALID_DEVICE, "managed.prefetch.invalid-device", PW_SEV_ERROR,                  \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(PREFETCH),                                                          \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"Specifying "                           \
	  "CU_MEM_LOCATION_TYPE_DEVICE for CUmemLocation::type will prefetch memory to GPU specified "       \
	  "by device ordinal CUmemLocation::id\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync: "    \
	  "\"device - destination device to prefetch to\"",                                                  \
	  "a prefetch to a device that does not exist (in a location, {device, -1} is no device: the "       \
	  "CPU id -1 is only a plain device number)")                                                        \
	X(MANAGED_PREFETCH_LOCATION, "managed.prefetch.location", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,        \
	  PW_OPBIT(PREFETCH),                                                                                \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"Specifying "                           \
	  "CU_MEM_LOCATION_TYPE_HOST as CUmemLocation::type will prefetch data to host memory. "             \
	  "Applications can request prefetching memory to a specific host NUMA node by specifying "          \
	  "CU_MEM_LOCATION_TYPE_HOST_NUMA for CUmemLocation::type and a valid host NUMA node id\"; HIP "     \
	  "Runtime API, Managed Memory, hipMemPrefetchAsync_v2: \"location - destination location to "       \
	  "prefetch to\" (a hipMemLocationType)",                                                            \
	  "a prefetch to a location that names no processor: type invalid or undefined, or a NUMA node "     \
	  "the host does not have (CUDA)")                                                                   \
	X(MANAGED_PREFETCH_FLAGS, "managed.prefetch.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,              \
	  PW_OPBIT(PREFETCH),                                                                                \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"flags - flags for future use, "        \
	  "must be zero now\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync_v2 (ROCm 7.1) and "      \
	  "hipMemPrefetchBatchAsync (ROCm 7.2): "                                                            \
	  "\"flags - flags for future use, must be zero now\"",                                              \
	  "a prefetch with flags other than 0")                                                              \
	X(MANAGED_PREFETCH_OUT_OF_RANGE, "managed.prefetch.out-of-range", PW_SEV_ERROR,                      \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(PREFETCH),                                                          \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"count specifies the number of "        \
	  "bytes to copy ... The memory range must refer to managed memory allocated via "                   \
	  "cuMemAllocManaged\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync: \"count - size in "    \
	  "bytes for prefetching\"",                                                                         \
	  "a prefetch of 0 bytes or of a range past the end of its managed allocation (into the next "       \
	  "one too)")                                                                                        \
	X(MANAGED_RANGE_ATTR_DATA_SIZE, "managed.range-attr.data-size", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,  \
	  PW_OPBIT(RANGE_ATTR),                                                                              \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute: \"data will be interpreted as a "    \
	  "32-bit integer, and dataSize must be 4\"; for CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY \"dataSize "     \
	  "must be a non-zero multiple of 4\"; HIP Runtime API, Managed Memory, "                            \
	  "hipMemRangeGetAttribute: \"data_size - the size of data\"",                                       \
	  "a range attribute query with a data size the attribute does not have")                            \
	X(MANAGED_RANGE_ATTR_INVALID, "managed.range-attr.invalid", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,      \
	  PW_OPBIT(RANGE_ATTR),                                                                              \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute: \"The attribute parameter can "      \
	  "take the following values\"; \"data - A pointers to a memory location where the result of "       \
	  "each attribute query will be written to\"; cuMemRangeGetAttributes: \"numAttributes - Number "    \
	  "of attributes to query\"; HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s): "          \
	  "\"attribute - the attribute to query\"",                                                          \
	  "a range attribute query for an attribute that does not exist, with no place to write the "        \
	  "answer (NULL data or arrays), or with no attribute at all")                                       \
	X(MANAGED_RANGE_ATTR_NOT_MANAGED, "managed.range-attr.not-managed", PW_SEV_ERROR,                    \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(RANGE_ATTR),                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute(s): \"The memory range must "         \
	  "refer to managed memory allocated via cuMemAllocManaged or declared via __managed__ "             \
	  "variables\"; HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s): \"dev_ptr - start "     \
	  "of the range to query\" (clr refuses memory that is not hipMallocManaged memory)",                \
	  "a range attribute query over memory that is not managed (device, pool, freed or system "          \
	  "memory)")                                                                                         \
	X(MANAGED_RANGE_ATTR_OUT_OF_RANGE, "managed.range-attr.out-of-range", PW_SEV_ERROR,                  \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(RANGE_ATTR),                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute: \"Query an attribute about the "     \
	  "memory range starting at devPtr with a size of count bytes. The memory range must refer to "      \
	  "managed memory allocated via cuMemAllocManaged\"; HIP Runtime API, Managed Memory, "              \
	  "hipMemRangeGetAttribute: \"count - size of the range to query\"",                                 \
	  "a range attribute query over 0 bytes or past the end of its managed allocation")                  \
	X(MANAGED_ATTACH_LENGTH, "managed.attach.length", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(ATTACH),         \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync: \"For managed allocations, "          \
	  "length must be either zero or the entire allocation's size\"; \"For pageable host "               \
	  "allocations, length must be non-zero\"",                                                          \
	  "a stream attach of a length that is neither 0 nor the whole managed allocation, or of 0 "         \
	  "bytes of pageable memory")                                                                        \
	X(MANAGED_ATTACH_FLAGS, "managed.attach.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                  \
	  PW_OPBIT(ATTACH),                                                                                  \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync: \"flags - Must be one of "            \
	  "CUmemAttach_flags\"; \"It is illegal to attach singly to the NULL stream, because the NULL "      \
	  "stream is a virtual global stream and not a specific stream\"; HIP Runtime API, Managed "         \
	  "Memory, hipStreamAttachMemAsync: \"flags - must be one of hipMemAttachGlobal, "                   \
	  "hipMemAttachHost or hipMemAttachSingle\"",                                                        \
	  "a stream attach with undefined flags, or (CUDA) attach-single on the legacy NULL stream")         \
	X(MANAGED_ATTACH_NOT_MANAGED, "managed.attach.not-managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,      \
	  PW_OPBIT(ATTACH),                                                                                  \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync: \"dptr must point to one of the "     \
	  "following types of memories: managed memory ... a valid host-accessible region of "               \
	  "system-allocated pageable memory. This type of memory may only be specified if the device "       \
	  "associated with the stream reports a non-zero value for the device attribute "                    \
	  "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS\"; HIP Runtime API, Managed Memory, "                  \
	  "hipStreamAttachMemAsync: \"dev_ptr - pointer to memory (must be a pointer to managed memory "     \
	  "or to a valid host-accessible region of system-allocated memory)\"",                              \
	  "a stream attach of memory that is neither managed nor (where the device can access it) "          \
	  "system memory: device, pool or freed memory")                                                     \
	X(MANAGED_ATTACH_PORTABILITY, "managed.attach.portability", PW_SEV_WARNING, PW_V_HIP,                \
	  PW_OPBIT(ATTACH),                                                                                  \
	  "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync: \"length - length of memory "           \
	  "(defaults to zero)\" and flags \"(defaults to hipMemAttachSingle)\", with no condition on "       \
	  "either; CUDA Runtime API, Stream Management, cudaStreamAttachMemAsync: \"For managed "            \
	  "allocations, length must be either zero or the entire allocation's size\"; \"It is illegal to "   \
	  "attach singly to the NULL stream\"",                                                              \
	  "a HIP stream attach that CUDA would refuse: part of a managed allocation, or attach-single "      \
	  "on the NULL stream")                                                                              \
	X(COPY_ACL_KIND, "copy.acl.kind", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                               \
	  "CANN AscendCL, Inter-Device Data Transfer: \"ACL_MEMCPY_DEVICE_TO_DEVICE = 3 # Data exchange "    \
	  "within a device or between devices\", and acl_rt.h's aclrtMemcpyKind, which names each "          \
	  "direction (HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT, "             \
	  "INNER_/INTER_DEVICE_TO_DEVICE)",                                                                  \
	  "a copy whose kind says host memory where it is given device memory aclrtMalloc returned, or "     \
	  "device memory where it is given memory that no aclrtMalloc returned")                             \
	X(COPY_PEER_MANAGED, "copy.peer.managed", PW_SEV_WARNING, PW_V_HIP, PW_OPBIT(PEER_COPY),             \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync (dst, src: "  \
	  "device pointers)",                                                                                \
	  "a peer copy from or to managed memory (hipMallocManaged), which is no device pointer")            \
	X(COPY_ACL_2D_KIND, "copy.acl.2d-kind", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                         \
	  "CANN AscendCL, aclrtMemcpy2d and aclrtMemcpy2dAsync (host to device and device to host only)",    \
	  "a 2D copy of a kind other than host to device or device to host (between devices among them)")    \
	X(COPY_ACL_DEST_MAX, "copy.acl.dest-max", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                       \
	  "CANN AscendCL, Runtime API, aclrtMemcpy and aclrtMemcpyAsync (destMax: the memory size of the "   \
	  "destination; count: the bytes to copy)",                                                          \
	  "a copy of more bytes than destMax, or a destMax larger than what is left of the destination's "   \
	  "allocation")                                                                                      \
	X(COPY_ACL_KIND_UNDEFINED, "copy.acl.kind-undefined", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,           \
	  "CANN AscendCL, Runtime API, aclrtMemcpy and aclrtMemcpyAsync (kind: typedef enum "                \
	  "aclrtMemcpyKind)",                                                                                \
	  "a copy with a kind aclrtMemcpyKind does not define")                                              \
	X(COPY_ACL_ASYNC_HOST_TO_HOST, "copy.acl.async-host-to-host", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,   \
	  "CANN AscendCL, Runtime API, aclrtMemcpyAsync (Restrictions: no asynchronous memory copy within "  \
	  "the host)",                                                                                       \
	  "an asynchronous copy of kind ACL_MEMCPY_HOST_TO_HOST")                                            \
	X(COPY_ACL_ASYNC_PAGEABLE, "copy.acl.async-pageable", PW_SEV_WARNING, PW_V_ACL, PW_OPS_COPY,         \
	  "CANN AscendCL (CANN 8.0.0 commercial), Runtime API, aclrtMemcpyAsync (Restrictions: host memory " \
	  "not allocated by aclrtMallocHost); CANN 8.5 allows non-page-locked memory and copies it "         \
	  "synchronously",                                                                                   \
	  "an asynchronous copy between the host and a device whose host memory no aclrtMallocHost "         \
	  "returned (pageable memory): unpredictable on CANN 8.0")                                           \
	X(COPY_ACL_IPC_DIRECTION, "copy.acl.ipc-direction", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,             \
	  "CANN AscendCL (CANN 8.2.RC1), Runtime API, aclrtIpcMemGetExportKey (Restrictions: in the "        \
	  "importing process on another device, no copy direction inferred from the pointers)",              \
	  "a copy of kind ACL_MEMCPY_DEFAULT on an address an IPC key import mapped from another device")    \
	X(COPY_ACL_IPC_HOST, "copy.acl.ipc-host", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                       \
	  "CANN AscendCL (CANN 8.2.RC1), Runtime API, aclrtIpcMemGetExportKey (Restrictions: no "            \
	  "host-to-device or device-to-host copy of the shared address, synchronous or asynchronous)",       \
	  "a copy between the host and an address an IPC key import mapped from another device")             \
	X(VMM_EXPORT_HANDLE_TYPE, "vmm.export.handle-type", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(VMM_EXPORT),   \
	  "cuda.h :4308 (CUmemAllocationProp): requestedHandleTypes - requested "                            \
	  "CUmemAllocationHandleType; :13168 cuMemExportToShareableHandle: handleType - Type of "            \
	  "shareable handle requested",                                                                      \
	  "a virtual-memory allocation exported with a handle type it was not created for")                  \
	X(VMM_IMPORT_RELEASED, "vmm.import.released", PW_SEV_WARNING, PW_V_CUDA | PW_V_ACL,                  \
	  PW_OPBIT(VMM_IMPORT),                                                                              \
	  "cuda.h :12841 (cuMemRelease): The memory allocation will be freed when all outstanding "          \
	  "mappings to the memory are unmapped and when all outstanding references to the handle "           \
	  "(including it's shareable counterparts) are also released; CANN AscendCL, "                       \
	  "aclrtMemImportFromShareableHandle (the physical memory to be shared exists)",                     \
	  "a shareable handle imported after the exporting process released its allocation")                 \
	X(VMM_ACL_SAME_PROCESS, "vmm.acl.same-process", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(VMM_IMPORT),        \
	  "CANN AscendCL, aclrtMemImportFromShareableHandle (export and import only across processes)",      \
	  "a shareable handle imported by the process that exported it")                                     \
	X(VMM_ACL_ONE_TO_ONE, "vmm.acl.one-to-one", PW_SEV_ERROR, PW_V_ACL,                                  \
	  PW_OPBIT(VMM_IMPORT) | PW_OPBIT(VMM_EXPORT),                                                       \
	  "CANN AscendCL, aclrtMemImportFromShareableHandle (one handle per shareable handle in a "          \
	  "process)",                                                                                        \
	  "a shareable handle imported again, or a physical allocation exported again, in one process")      \
	X(VMM_ACL_IMPORT_PID, "vmm.acl.import-pid", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(VMM_IMPORT),            \
	  "CANN AscendCL, aclrtMemSetPidToShareableHandle (only the processes on the trust list use the "    \
	  "shareable handle)",                                                                               \
	  "a shareable handle imported while its export admits only named processes and none was named")     \
	X(VMM_COPY_NO_ACCESS, "vmm.copy.no-access", PW_SEV_ERROR, PW_V_CUDA, PW_OPS_COPY,                    \
	  "cuda.h :12885 (cuMemMap): calling cuMemMap does not make the address accessible, the caller "     \
	  "needs to update accessibility of a contiguous mapped VA range by calling cuMemSetAccess",         \
	  "a peer copy into or out of a mapped range the other device was not granted access to")            \
	X(VMM_LEAK, "vmm.leak", PW_SEV_WARNING, PW_V_CUDA, PW_OPBIT(VMM_EXIT),                               \
	  "cuda.h :13060 (cuMemUnmap): Any backing memory allocations will be freed if there are no "        \
	  "existing mappings and there are no unreleased memory handles",                                    \
	  "a virtual-memory mapping still there when the process exits")                                     \
	X(POOL_FLAGS, "pool.flags", PW_SEV_ERROR, PW_V_HIP, PW_OPBIT(POOL_EXPORT) | PW_OPBIT(POOL_IMPORT),   \
	  "HIP Runtime API, Stream Ordered Memory Allocator, hipMemPoolExportToShareableHandle and "         \
	  "hipMemPoolImportFromShareableHandle (flags: Must be 0)",                                          \
	  "a memory pool exported to, or imported from, an OS handle with flags other than 0")               \
	X(POOL_IMPORTED_ALLOC, "pool.imported.alloc", PW_SEV_ERROR, PW_V_HIP, PW_OPBIT(POOL_ALLOC),          \
	  "HIP Runtime API, Stream Ordered Memory Allocator, hipMemPoolImportFromShareableHandle (note: "    \
	  "imported memory pools do not support creating new allocations)",                                  \
	  "an allocation asked of a memory pool this process imported from another process")                 \
	X(IPC_EXPORT_POOL_OR_VMM, "ipc.export.pool-or-vmm", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(IPC_EXPORT),   \
	  "cuda.h :9333 (cuIpcGetMemHandle): dptr - Base pointer to previously allocated device memory "     \
	  "(cuMemAlloc); pool memory is shared with cuMemPoolExportPointer, virtual memory with "            \
	  "cuMemExportToShareableHandle",                                                                    \
	  "legacy IPC (cuIpcGetMemHandle) on stream-ordered pool memory or virtual-memory mappings")         \
	X(IPC_EVENT_FLAGS, "ipc.event.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                            \
	  PW_OPBIT(IPC_EVENT_EXPORT),                                                                        \
	  "CUDA Driver API, Memory Management, cuIpcGetEventHandle: \"The event must have been created "     \
	  "with the CU_EVENT_INTERPROCESS and CU_EVENT_DISABLE_TIMING flags set\"; HIP Runtime API, "        \
	  "hipIpcGetEventHandle: \"event - Event allocated with hipEventInterprocess and "                   \
	  "hipEventDisableTiming flags\"",                                                                   \
	  "an IPC handle asked for an event created without the interprocess and disable-timing flags")      \
	X(IPC_EVENT_SAME_PROCESS, "ipc.event.same-process", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,              \
	  PW_OPBIT(IPC_EVENT_OPEN),                                                                          \
	  "CUDA Driver API, Memory Management, cuIpcOpenEventHandle: \"Opens an interprocess event "         \
	  "handle exported from another process\"; HIP Runtime API, hipIpcOpenEventHandle: \"If the "        \
	  "function is called within the same process where handle is returned by "                          \
	  "hipIpcGetEventHandle, it will return hipErrorInvalidContext\"",                                   \
	  "an IPC event handle opened in the process that exported it")                                      \
	X(IPC_EVENT_LEAK, "ipc.event.leak", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_EVENT_EXIT),  \
	  "CUDA Runtime API, Device Management, cudaIpcOpenEventHandle: \"This event must be freed with "    \
	  "cudaEventDestroy\"; HIP Runtime API, hipIpcOpenEventHandle: \"This event need be freed with "     \
	  "hipEventDestroy\"",                                                                               \
	  "an event an IPC open made still there when the process exits")                                    \
	X(IPC_EVENT_DESTROY_WHILE_OPEN, "ipc.event.destroy-while-open", PW_SEV_WARNING,                      \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(EVENT_DESTROY),                                                     \
	  "CUDA Runtime API, Device Management, cudaIpcGetEventHandle: \"Performing operations on the "      \
	  "imported event after the exported event has been freed with cudaEventDestroy will result in "     \
	  "undefined behavior\"; HIP Runtime API, hipIpcGetEventHandle: \"Operations on the imported "       \
	  "event after the exported event has been freed with hipEventDestroy will result in undefined "     \
	  "behavior\"",                                                                                      \
	  "the exporter destroys an event another process still has open through IPC")                       \
	X(PEER_INVALID_DEVICE, "peer.invalid-device", PW_SEV_ERROR, PW_V_ALL,                                \
	  PW_OPBIT(CAN_ACCESS) | PW_OPBIT(PEER_ATTR) | PW_OPBIT(PEER_ENABLE) | PW_OPBIT(PEER_DISABLE) |      \
	      PW_OPBIT(PEER_COPY),                                                                           \
	  "HIP Runtime API, Peer to Peer Device Memory Access, hipDeviceCanAccessPeer: \"Returns "           \
	  "hipErrorInvalidDevice if deviceId or peerDeviceId are not valid devices\"; CUDA Runtime API, "    \
	  "cudaDeviceCanAccessPeer and cudaMemcpyPeer: cudaErrorInvalidDevice; CANN AscendCL, "              \
	  "aclrtDeviceCanAccessPeer: the device IDs of the devices present",                                 \
	  "a peer call naming a device ordinal the process does not have")                                   \
	X(ERROR_STICKY, "error.sticky", PW_SEV_PERFORMANCE, PW_V_CUDA | PW_V_HIP, PW_OPBIT(LAST_ERROR),      \
	  "CUDA Runtime API, Error Handling, cudaGetLastError and cudaPeekAtLastError (the last error of "   \
	  "any runtime call in the host thread; cudaGetLastError resets it to cudaSuccess); HIP Runtime "    \
	  "API, Error Handling, hipGetLastError and hipPeekAtLastError",                                     \
	  "a last-error getter returns an error that an earlier traced call of the thread left, not the "    \
	  "call just before it: an explanation naming that call (the lowest severity, and it never "         \
	  "stops a run)")

#define PW_RULE_ENUM_ROW(name, id, sev, vendors, ops, source, summary) PW_RULE_##name,
enum pw_rule_id { PW_RULES(PW_RULE_ENUM_ROW) PW_RULE_COUNT };

#endif

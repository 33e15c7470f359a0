/*
 * The rule catalog: one row per documented contract peerwatch checks.
 * The preload's checks (preload/rules_*.c, one function pw_rule_<NAME> per
 * row), `peerwatch-analyze rules` and docs/rules.md all read this table.
 *
 *   X(NAME, "id", SEVERITY, VENDORS, OPS, "source", "runtime", "summary", "advice")
 *
 * OPS: the ops (peerwatch/trace_format.h) whose calls the rule looks at,
 * a set of PW_OPBIT; a call of any other op never reaches the rule.
 *
 * source:  the vendor documents (name, section, function) the contract
 *          comes from, or the vendor header; each vendor's own sentence,
 *          quoted, and its public page are in rules_cites.h, one row per
 *          vendor the rule applies to (what reports quote);
 * runtime: what the real runtime does when the contract is broken
 *          (measured on H100s and H200s, tests/gpu/RESULTS.md) — "rejects"
 *          rules still matter, since the program then usually ignores an
 *          error code; "silent" ones are where a checker adds the most.
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
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess (CUDA_ERROR_INVALID_CONTEXT "  \
	  "... if the current context is peerContext); HIP Runtime API, PeerToPeer Device Memory Access, "   \
	  "hipDeviceCanAccessPeer (a device is not a peer of itself); CANN AscendCL, Inter-Device Data "     \
	  "Transfer",                                                                                        \
	  "rejects: CUDA 201 (runtime API 217), HIP error, ACL error",                                       \
	  "peer access enabled from a device to itself",                                                     \
	  "a device always reaches its own memory; drop the call")                                           \
	X(PEER_ENABLE_FLAGS, "peer.enable.flags", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(PEER_ENABLE),             \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess (Flags ... must be set to "    \
	  "0); "                                                                                             \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceEnablePeerAccess (flags ... must be "  \
	  "zero); CANN AscendCL, Inter-Device Data Transfer",                                                \
	  "rejects: CUDA 1 invalid value; HIP invalid value; ACL feature unsupported",                       \
	  "peer access enabled with flags other than 0", "pass 0")                                           \
	X(PEER_ENABLE_UNSUPPORTED, "peer.enable.unsupported", PW_SEV_ERROR, PW_V_ALL, PW_OPBIT(PEER_ENABLE), \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess "                              \
	  "(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED); HIP Runtime API, PeerToPeer Device Memory Access, "         \
	  "hipDeviceCanAccessPeer; CANN AscendCL, Inter-Device Data Transfer",                               \
	  "rejects: CUDA 217 peer access unsupported",                                                       \
	  "peer access enabled between devices that cannot access each other",                               \
	  "check cuDeviceCanAccessPeer first and copy through the host (or another path) when it says 0")    \
	X(PEER_ENABLE_TWICE, "peer.enable.twice", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,                      \
	  PW_OPBIT(PEER_ENABLE),                                                                             \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess "                              \
	  "(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED); HIP Runtime API, PeerToPeer Device Memory Access, "     \
	  "hipDeviceEnablePeerAccess (hipErrorPeerAccessAlreadyEnabled)",                                    \
	  "rejects: CUDA 704; through the runtime API the 704 also stays as the thread's last error, so a "  \
	  "later cudaGetLastError() reports it after unrelated calls (meta-pytorch/torchcomms#2399)",        \
	  "peer access enabled again while it is already on (CUDA: from the same context to the same peer "  \
	  "context; a second context of the device, or its primary context after a reset, enables anew)",    \
	  "enable once, or treat 704 as success and clear it (cudaGetLastError)")                            \
	X(PEER_ENABLE_UNQUERIED, "peer.enable.unqueried", PW_SEV_WARNING, PW_V_ALL, PW_OPBIT(PEER_ENABLE),   \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceCanAccessPeer; HIP Runtime API, PeerToPeer " \
	  "Device Memory Access, hipDeviceCanAccessPeer; CANN AscendCL, Inter-Device Data Transfer (query, " \
	  "then enable)",                                                                                    \
	  "silent when the pair happens to support it; otherwise 217",                                       \
	  "peer access enabled without asking first whether the pair supports it",                           \
	  "call cuDeviceCanAccessPeer / hipDeviceCanAccessPeer / aclrtDeviceCanAccessPeer for the pair "     \
	  "first")                                                                                           \
	X(PEER_ENABLE_ONE_DIRECTION, "peer.enable.one-direction", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,       \
	  "CANN AscendCL, Inter-Device Data Transfer (two enables, one per direction)",                      \
	  "rejects the copy at run time on Ascend (not measured here)",                                      \
	  "a device-to-device copy between devices whose peer access is enabled in one direction only (or "  \
	  "in neither)",                                                                                     \
	  "enable peer access from each device to the other before copying")                                 \
	X(PEER_DISABLE_NOT_ENABLED, "peer.disable.not-enabled", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,          \
	  PW_OPBIT(PEER_DISABLE),                                                                            \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxDisablePeerAccess "                             \
	  "(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED); HIP Runtime API, PeerToPeer Device Memory Access, "         \
	  "hipDeviceDisablePeerAccess (hipErrorPeerAccessNotEnabled)",                                       \
	  "rejects: CUDA 705, HIP 705", "peer access disabled although it was not enabled",                  \
	  "disable only what was enabled (from the same current device)")                                    \
	X(PEER_QUERY_SELF, "peer.query.self", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(CAN_ACCESS),                  \
	  "CANN AscendCL, Runtime API, aclrtDeviceCanAccessPeer (deviceId, peerDeviceId: must be "           \
	  "different)",                                                                                      \
	  "rejects: ACL 100000 ACL_ERROR_INVALID_PARAM (unlike HIP, which answers 0)",                       \
	  "a peer query of a device against itself",                                                         \
	  "query pairs of two different devices; a device always reaches its own memory")                    \
	X(PEER_QUERY_NULL, "peer.query.null", PW_SEV_ERROR, PW_V_HIP, PW_OPBIT(CAN_ACCESS),                  \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer (canAccessPeer[out] - "  \
	  "Returns the peer access capability)",                                                             \
	  "rejects: HIP hipErrorInvalidValue (clr hip_peer.cpp), nothing written",                           \
	  "a peer query with no place for its answer (canAccessPeer NULL)",                                  \
	  "pass the address of an int for the answer")                                                       \
	X(PEER_ENABLE_NO_DEVICE, "peer.enable.no-device", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(PEER_ENABLE),     \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess (enables data exchange between the "      \
	  "current device and a specified device)",                                                          \
	  "rejects: ACL 107002 ACL_ERROR_RT_CONTEXT_NULL (no current device)",                               \
	  "peer access enabled by a thread that has no current device (no aclrtSetDevice before it)",        \
	  "call aclrtSetDevice with the device to enable from, then enable")                                 \
	X(PEER_DISABLE_SELF, "peer.disable.self", PW_SEV_ERROR, PW_V_ACL, PW_OPBIT(PEER_DISABLE),            \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess and aclrtDeviceDisablePeerAccess "        \
	  "(peerDeviceId: must be different from the current device ID)",                                    \
	  "rejects: ACL 100000 ACL_ERROR_INVALID_PARAM", "peer access disabled from a device to itself",     \
	  "a device always reaches its own memory: disable only a peer that was enabled")                    \
	X(PEER_LIMIT, "peer.limit", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(PEER_ENABLE),               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess: CUDA_ERROR_TOO_MANY_PEERS "   \
	  "if "                                                                                              \
	  "direct peer access is not possible because hardware resources required for peer access have "     \
	  "been exhausted; CUDA C++ Programming Guide, Peer-to-Peer Memory Access: each device can support " \
	  "a system-wide maximum of eight peer connections (counted over all the run's processes, by "       \
	  "device "                                                                                          \
	  "UUID; on NVSwitch systems, where the guide says nothing, reported but never stopped; "            \
	  "ggml-org/llama.cpp#21883); HIP Runtime API, hipIpcOpenMemHandle (hipErrorTooManyPeers)",          \
	  "rejects: CUDA 711 too many peers", "peer access enabled to a ninth peer of one device",           \
	  "enable peer access only between the devices that exchange data; NVSwitch systems route without "  \
	  "it")                                                                                              \
	X(PEER_ATTR_SELF, "peer.attr.self", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(PEER_ATTR),                    \
	  "cuda.h :23966 cuDeviceGetP2PAttribute and :24002 cuDeviceGetP2PAtomicCapabilities: Returns "      \
	  "CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid or if they represent the same " \
	  "device",                                                                                          \
	  "rejects: CUDA 101 invalid device", "a peer attribute or atomics query for a device and itself",   \
	  "a device is no peer of itself: query pairs of two devices, and take a device's own atomics "      \
	  "from cuDeviceGetAttribute")                                                                       \
	X(PEER_CONTEXT_INVALID, "peer.context.invalid", PW_SEV_ERROR, PW_V_CUDA,                             \
	  PW_OPBIT(PEER_ENABLE) | PW_OPBIT(PEER_DISABLE),                                                    \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess and cuCtxDisablePeerAccess "   \
	  "(CUDA_ERROR_INVALID_CONTEXT if there is no current context, peerContext is not a valid "          \
	  "context); Context Management, cuCtxDestroy (a destroyed context must not be passed in "           \
	  "subsequent API calls)",                                                                           \
	  "rejects: CUDA 201 invalid context with no current context, 709 context is destroyed naming a "    \
	  "destroyed peer context (H200, driver 580: tests/gpu/contract_ctx.c)",                             \
	  "peer access enabled or disabled with no current context, or naming a peer context that was "      \
	  "destroyed",                                                                                       \
	  "make a context current first (cuCtxSetCurrent, or any runtime call); forget a context's peer "    \
	  "access when it is destroyed")                                                                     \
	X(COPY_PEER_DEVICE_MISMATCH, "copy.peer.device-mismatch", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,        \
	  PW_OPS_COPY,                                                                                       \
	  "CUDA Driver API, Memory Management, cuMemcpyPeer (dstContext - Destination context: the context " \
	  "the memory lives in); HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer "           \
	  "(dstDeviceId - Destination device)",                                                              \
	  "silent: the H200 driver copies anyway; an IPC mapping it reports on the importing context's "     \
	  "device and copies naming the exporter's (driver 580): either is accepted for it, a third is not", \
	  "a peer copy names a device or context other than the one its pointer lives on",                   \
	  "pass the context/device the memory was allocated in (for an IPC mapping: the importing or the "   \
	  "exporting one)")                                                                                  \
	X(COPY_PEER_OUT_OF_BOUNDS, "copy.peer.out-of-bounds", PW_SEV_ERROR, PW_V_ALL, PW_OPS_COPY,           \
	  "cuda.h cuMemcpyPeer: ByteCount - Size of memory copy in bytes (within the allocations)",          \
	  "rejects: CUDA 1 invalid value",                                                                   \
	  "a peer copy runs past the end of its source or destination allocation",                           \
	  "copy at most the bytes left in each allocation from the given pointer")                           \
	X(COPY_PEER_NULL, "copy.peer.null", PW_SEV_ERROR, PW_V_ALL, PW_OPS_COPY,                             \
	  "cuda.h cuMemcpyPeer: dstDevice/srcDevice - device memory", "rejects: CUDA 1 invalid value",       \
	  "a peer copy of more than 0 bytes from or to a NULL pointer", "check the allocation succeeded")    \
	X(COPY_PEER_NO_PEER_ACCESS, "copy.peer.no-peer-access", PW_SEV_PERFORMANCE, PW_V_CUDA | PW_V_HIP,    \
	  PW_OPS_COPY,                                                                                       \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess (on success all allocations "  \
	  "from peerContext will immediately be accessible; without it, copies are staged through host "     \
	  "memory); HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceEnablePeerAccess",            \
	  "silent: 37.8 GB/s instead of 394.9 GB/s on NVLink H200s (256 MiB copies)",                        \
	  "a copy between two devices while peer access between them is off (CUDA: between the contexts "    \
	  "the copy names, each primary one for the runtime; a reset or destroyed context has none left): "  \
	  "staged through the host",                                                                         \
	  "enable peer access between the devices (both directions for copies both ways) before copying, "   \
	  "in the contexts the copy names, and again after a reset")                                         \
	X(COPY_PEER_HOST, "copy.peer.host", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(PEER_COPY),         \
	  "CUDA Driver API, Memory Management, cuMemcpyPeer: Copies from device memory in one context to "   \
	  "device memory in another context; HIP Runtime API, PeerToPeer Device Memory Access, "             \
	  "hipMemcpyPeer (dst, src: device pointers)",                                                       \
	  "rejects: CUDA 1 invalid value for malloc'd memory on either side (H200, driver 580); "            \
	  "page-locked host memory (cuMemAllocHost) it copies, and that is not reported",                    \
	  "a peer copy to or from host memory that is no CUDA allocation (malloc'd, stack, static)",         \
	  "copy between host and device with cuMemcpyHtoD / cuMemcpyDtoH (cudaMemcpy), not a peer copy")     \
	X(COPY_PEER_FREED, "copy.peer.freed", PW_SEV_ERROR, PW_V_ALL, PW_OPS_COPY,                           \
	  "CUDA Driver API, Memory Management, cuMemcpyPeer: Copies from device memory in one context to "   \
	  "device memory in another context (memory cuMemFree freed is device memory no more); HIP Runtime " \
	  "API, PeerToPeer Device Memory Access, hipMemcpyPeer (dst, src: device pointers); CANN AscendCL, " \
	  "Inter-Device Data Transfer (copy, then free)",                                                    \
	  "rejects: CUDA 1 invalid value on either side (H200, driver 580: tests/gpu/contract_ctx.c)",       \
	  "a peer copy from or to memory this process already freed",                                        \
	  "copy before the free, and free only after the copies that read or write it")                      \
	X(COPY_PEER_CONTEXT_DESTROYED, "copy.peer.context-destroyed", PW_SEV_ERROR, PW_V_CUDA,               \
	  PW_OPBIT(PEER_COPY),                                                                               \
	  "CUDA Driver API, Context Management, cuCtxDestroy: It is the caller's responsibility to ensure "  \
	  "that the context or its resources are not accessed or passed in subsequent API calls; "           \
	  "cuMemcpyPeer: dstContext - Destination context, srcContext - Source context",                     \
	  "crashes: the driver faults (SIGSEGV) in cuMemcpyPeer naming a destroyed context, on either side " \
	  "(H200, driver 580); the simulated driver answers 709 context is destroyed",                       \
	  "a peer copy naming a context that cuCtxDestroy destroyed",                                        \
	  "name the contexts the memory lives in, while they exist")                                         \
	X(COPY_ACL_P2P_POLICY, "copy.acl.p2p-policy", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                   \
	  "CANN AscendCL, Inter-Device Data Transfer (Allocate P2P memory: acl.rt.malloc(size, "             \
	  "ACL_MEM_MALLOC_NORMAL_ONLY_P2P) before device-to-device copies)",                                 \
	  "not measured", "a copy between two devices of memory not allocated with a *_P2P policy",          \
	  "allocate both buffers with ACL_MEM_MALLOC_*_P2P")                                                 \
	X(IPC_EXPORT_INTERIOR_POINTER, "ipc.export.interior-pointer", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,    \
	  PW_OPBIT(IPC_EXPORT),                                                                              \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle; HIP Runtime API, Device Management, "      \
	  "hipIpcGetMemHandle (Takes a pointer to the base of an existing device memory allocation)",        \
	  "silent: the handle names the whole allocation, so the importer maps the base, not the pointer "   \
	  "passed",                                                                                          \
	  "an IPC handle taken from a pointer inside an allocation, not its base",                           \
	  "export the allocation's base and send the offset along with the handle")                          \
	X(IPC_EXPORT_MANAGED, "ipc.export.managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                      \
	  PW_OPBIT(IPC_EXPORT),                                                                              \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle (created with cuMemAlloc); HIP Runtime "    \
	  "API, Device Management, hipIpcGetMemHandle (created with hipMalloc): not managed memory",         \
	  "rejects: CUDA 1 invalid value", "an IPC handle asked for managed memory",                         \
	  "share managed memory another way, or allocate with cuMemAlloc/hipMalloc")                         \
	X(IPC_EXPORT_HOST, "ipc.export.host", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_EXPORT),      \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle: \"dptr - Base pointer to previously "      \
	  "allocated device memory\"; HIP Runtime API, hipIpcGetMemHandle: \"Takes a pointer to the base "   \
	  "of an existing device memory allocation created with hipMalloc\"",                                \
	  "rejects: CUDA 1 invalid value for a host pointer (H200)",                                         \
	  "an IPC handle asked for host memory (malloc'd, page-locked, or no allocation at all)",            \
	  "export device memory (cuMemAlloc / cudaMalloc / hipMalloc); share host memory through the OS")    \
	X(IPC_EXPORT_FREED, "ipc.export.freed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_EXPORT),    \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle: \"dptr - Base pointer to previously "      \
	  "allocated device memory\"; HIP Runtime API, hipIpcGetMemHandle: \"an existing device memory "     \
	  "allocation\"",                                                                                    \
	  "rejects: CUDA 1 invalid value after cudaFree (H200)",                                             \
	  "an IPC handle asked for memory this process already freed",                                       \
	  "export before freeing, and free only after every importer closed its mapping")                    \
	X(IPC_OPEN_SAME_PROCESS, "ipc.open.same-process", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Opens an interprocess memory handle exported from another process)",         \
	  "rejects: CUDA 201, HIP invalid context", "an IPC handle opened in the process that exported it",  \
	  "use the pointer you already have")                                                                \
	X(IPC_OPEN_FLAGS, "ipc.open.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_OPEN),          \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle (Must be specified as "                    \
	  "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS); HIP Runtime API, Device Management, hipIpcOpenMemHandle "    \
	  "(Must be specified as hipIpcMemLazyEnablePeerAccess: 0 before ROCm 6.0, 1 after)",                \
	  "flags 0: rejects (CUDA 1); undefined bits: silent on CUDA",                                       \
	  "an IPC handle opened with flags other than the lazy-enable-peer-access flag",                     \
	  "pass CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS / hipIpcMemLazyEnablePeerAccess")                         \
	X(IPC_OPEN_SECOND_CONTEXT, "ipc.open.second-context", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,            \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle: \"CUipcMemHandles from each CUdevice in " \
	  "a given process may only be opened by one CUcontext per CUdevice per other process\"; HIP "       \
	  "Runtime API, hipIpcOpenMemHandle: \"hipIpcMemHandles from each device in a given process may "    \
	  "only be opened by one context per device per other process\"",                                    \
	  "not measured (a second open in the same context is success, the same pointer, counted; in "       \
	  "another device's context a second mapping: H100)",                                                \
	  "an IPC handle opened in a second context of one device, while another context of that device "    \
	  "has it (or another handle of the same exporting device) open",                                    \
	  "open the handles of one exporting device in one context per device (the primary one), and "       \
	  "reopen them there: the driver counts the opens")                                                  \
	X(IPC_OPEN_UNEXPORTED, "ipc.open.unexported", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,                  \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle: \"Opens an interprocess memory handle "   \
	  "exported from another process\"; HIP Runtime API, hipIpcOpenMemHandle: \"Maps memory exported "   \
	  "from another process with hipIpcGetMemHandle\"",                                                  \
	  "not measured: bytes that are no handle are refused; a handle of an untraced exporter maps",       \
	  "an IPC handle opened that no traced process of the run exported (said only where it is known: "   \
	  "the run's registry holds every export of its traced processes)",                                  \
	  "send the handle the exporter's cuIpcGetMemHandle wrote, and trace the exporting process too")     \
	X(IPC_OPEN_STALE, "ipc.open.stale", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_OPEN),          \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Calling cuMemFree / hipFree on an exported memory region before calling "    \
	  "the "                                                                                             \
	  "close in the importing context will result in undefined behavior)",                               \
	  "not measured: the mapping, if any, no longer names the exporter's data",                          \
	  "an IPC handle opened after its exporter freed the allocation",                                    \
	  "keep the allocation alive until every importer has opened and closed it")                         \
	X(IPC_OPEN_UNREACHABLE, "ipc.open.unreachable", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                  \
	  PW_OPBIT(IPC_OPEN),                                                                                \
	  "HIP Runtime API, IPC, hipIpcOpenMemHandle: For contexts on different devices "                    \
	  "hipIpcOpenMemHandle can attempt to "                                                              \
	  "enable peer access between the devices ... hipDeviceCanAccessPeer can determine if a mapping is " \
	  "possible",                                                                                        \
	  "rejects: CUDA 217 peer access unsupported (openucx/ucx#6360); HIP not measured",                  \
	  "an IPC handle opened on a device that cannot access the exporter's device",                       \
	  "open the handle on the exporter's device or one that can access it (cuDeviceCanAccessPeer), "     \
	  "or copy through the host")                                                                        \
	X(IPC_CLOSE_UNKNOWN, "ipc.close.unknown", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_CLOSE),   \
	  "CUDA Driver API, Memory Management, cuIpcCloseMemHandle; HIP Runtime API, Device Management, "    \
	  "hipIpcCloseMemHandle (Device pointer returned by the open)",                                      \
	  "rejects: CUDA 1 invalid value", "an IPC close of a pointer that no IPC open returned",            \
	  "close the pointer the open returned; free ordinary memory with cuMemFree/hipFree")                \
	X(IPC_CLOSE_TWICE, "ipc.close.twice", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_CLOSE),       \
	  "CUDA Driver API, Memory Management, cuIpcCloseMemHandle (Decrements the reference count ... by "  \
	  "1); HIP Runtime API, Device Management, hipIpcCloseMemHandle",                                    \
	  "rejects: CUDA 1 invalid value", "an IPC mapping closed more times than it was opened",            \
	  "close once per successful open")                                                                  \
	X(IPC_FREE_WHILE_OPEN, "ipc.free-while-open", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(FREE),    \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Calling cuMemFree / hipFree on an exported memory region before calling "    \
	  "the "                                                                                             \
	  "close in the importing context will result in undefined behavior; pytorch/pytorch#114534)",       \
	  "undefined behaviour by both vendors' documents; measured (H100, driver 580): the driver keeps "   \
	  "the memory until the importer closes: the importer still reads the exporter's bytes, and the "    \
	  "device's memory is not returned (NCCL's legacy IPC teardown does this on every run: its "         \
	  "findings are suppressed by default)",                                                             \
	  "the exporter frees an allocation another process still has open",                                 \
	  "free only after every importer closed its mapping (a barrier, or a reference count across "       \
	  "processes)")                                                                                      \
	X(IPC_FREE_IMPORTED, "ipc.free-imported", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP, PW_OPBIT(FREE),        \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle: \"Memory returned from "                  \
	  "cuIpcOpenMemHandle must be freed with cuIpcCloseMemHandle\"; HIP Runtime API, "                   \
	  "hipIpcOpenMemHandle: \"Memory returned from hipIpcOpenMemHandle must be freed with "              \
	  "hipIpcCloseMemHandle\"",                                                                          \
	  "not measured (the simulators refuse it with invalid value)",                                      \
	  "a cuMemFree / cudaFree / hipFree of memory an IPC open mapped",                                   \
	  "close IPC mappings with cuIpcCloseMemHandle / cudaIpcCloseMemHandle / hipIpcCloseMemHandle")      \
	X(IPC_LEAK, "ipc.leak", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP, PW_OPBIT(EXIT),                        \
	  "CUDA Driver API, Memory Management, cuIpcOpenMemHandle; HIP Runtime API, Device Management, "     \
	  "hipIpcOpenMemHandle (Memory returned from the open must be freed with the close; "                \
	  "openucx/ucx#3030)",                                                                               \
	  "silent: the mapping lives until the process ends",                                                \
	  "an IPC mapping still open when the process exits", "close every mapping when done with it")       \
	X(MANAGED_ALLOC_SIZE_ZERO, "managed.alloc.size-zero", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,          \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "CUDA Driver API, Memory Management, cuMemAllocManaged: \"If bytesize is 0, cuMemAllocManaged "    \
	  "returns CUDA_ERROR_INVALID_VALUE\"; HIP Runtime API, Managed Memory, hipMallocManaged: \"size - " \
	  "requested allocation size in bytes\"",                                                            \
	  "CUDA runtime API: success, no memory behind the pointer; driver API: 1 invalid value (H200)",     \
	  "a managed allocation of 0 bytes", "skip the allocation, or allocate at least one page")           \
	X(MANAGED_ALLOC_UNQUERIED, "managed.alloc.unqueried", PW_SEV_WARNING, PW_V_HIP,                      \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "HIP Runtime API, Managed Memory, hipMallocManaged (Note: do the capability check before call "    \
	  "this API: hipDeviceGetAttribute, hipDeviceAttributeManagedMemory)",                               \
	  "succeeds where the device has managed memory; hipErrorNotSupported where it has not",             \
	  "managed memory allocated without asking first whether the device supports it",                    \
	  "ask hipDeviceGetAttribute(&v, hipDeviceAttributeManagedMemory, device) first, and allocate "      \
	  "managed memory only where it says 1")                                                             \
	X(MANAGED_ALLOC_GRANULARITY, "managed.alloc.granularity", PW_SEV_WARNING, PW_V_HIP,                  \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "HIP Runtime API, Managed Memory, hipMallocManaged: \"size - requested allocation size in bytes, " \
	  "it should be granularity of 4KB\"",                                                               \
	  "silent", "a managed allocation whose size is not a multiple of 4 KiB",                            \
	  "round the size up to 4 KiB")                                                                      \
	X(MANAGED_ALLOC_FLAGS, "managed.alloc.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                    \
	  PW_OPBIT(ALLOC_MANAGED),                                                                           \
	  "CUDA Driver API, Memory Management, cuMemAllocManaged: \"flags - Must be one of "                 \
	  "CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST\"; HIP Runtime API, Managed Memory, "                  \
	  "hipMallocManaged: "                                                                               \
	  "\"flags - must be either hipMemAttachGlobal or hipMemAttachHost\"",                               \
	  "rejects: CUDA 1 invalid value (0 and ATTACH_SINGLE too)",                                         \
	  "a managed allocation with flags other than attach-global or attach-host",                         \
	  "pass CU_MEM_ATTACH_GLOBAL / hipMemAttachGlobal")                                                  \
	X(MANAGED_ADVISE_NOT_MANAGED, "managed.advise.not-managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,      \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: \"The memory range must refer to managed "      \
	  "memory allocated via cuMemAllocManaged or declared via __managed__ variables. The memory range "  \
	  "could also refer to system-allocated pageable memory\" (on a device location only where \"the "   \
	  "device attribute CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS\" is non-zero); HIP Runtime API, "    \
	  "Managed Memory, hipMemAdvise: \"The memory range must refer to managed memory allocated via the " \
	  "API hipMallocManaged\"",                                                                          \
	  "rejects: CUDA 1 invalid value for device, pool and freed memory, and for malloc'd memory where "  \
	  "the devices report no pageable memory access (H100, driver 580: attribute 0); HIP invalid value", \
	  "memory advice on memory that is not managed (device, pool, freed, or system memory the devices "  \
	  "cannot access)",                                                                                  \
	  "advise only memory from cuMemAllocManaged/hipMallocManaged (system memory only on HMM/ATS "       \
	  "systems, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS 1)")                                          \
	X(MANAGED_ADVISE_UNALIGNED, "managed.advise.unaligned", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP,        \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "HIP Runtime API, Managed Memory, hipMemAdvise: \"count - size in bytes of the memory range, it "  \
	  "should be CPU page size alligned\"; CUDA Driver API, Unified Addressing, cuMemAdvise: \"The "     \
	  "start address and end address of the memory range will be rounded down and rounded up "           \
	  "respectively to be aligned to CPU page size before the advice is applied\"",                      \
	  "silent: the advice applies to the whole pages around the range",                                  \
	  "memory advice on a range that does not start and end on page boundaries",                         \
	  "align the start down and the end up to the page size, knowing the advice covers those pages")     \
	X(MANAGED_ADVISE_OUT_OF_RANGE, "managed.advise.out-of-range", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,    \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: \"the memory range starting at devPtr with a "  \
	  "size of count bytes ... must refer to managed memory allocated via cuMemAllocManaged\"; HIP "     \
	  "Runtime API, Managed Memory, hipMemAdvise: \"in the range starting from the pointer address "     \
	  "devPtr, with the size of count bytes. The memory range must refer to managed memory allocated "   \
	  "via the API hipMallocManaged\"",                                                                  \
	  "rejects: CUDA 1 invalid value for count 0, a range past the end, and a range over two "           \
	  "contiguous managed allocations (H100, driver 580); HIP (clr) invalid value when count exceeds "   \
	  "what is left of the allocation at devPtr",                                                        \
	  "memory advice on an empty range or one that runs past the end of its managed allocation (into "   \
	  "the next one too)",                                                                               \
	  "advise each allocation on its own, at most the bytes left in it")                                 \
	X(MANAGED_ADVISE_INVALID, "managed.advise.invalid", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,              \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: \"The advice parameter can take the following " \
	  "values\"; \"If CUmemLocation::type is a CU_MEM_LOCATION_TYPE_DEVICE, then CUmemLocation::id "     \
	  "must be a valid device ordinal\"; HIP Runtime API, Managed Memory, hipMemAdvise: \"advice - "     \
	  "advice to be applied\", \"device - device to apply the advice for\"",                             \
	  "rejects: CUDA 1 invalid value (advice 99; {device, -1} and device 9 on H100 and H200); HIP "      \
	  "invalid device",                                                                                  \
	  "memory advice with an unknown advice value, or for a device that does not exist (in a location, " \
	  "{device, -1} is no device: the CPU id -1 is only a plain device number)",                         \
	  "use a defined advice and a valid device; in a location the host is {host, 0}")                    \
	X(MANAGED_ADVISE_LOCATION, "managed.advise.location", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,            \
	  PW_OPBIT(ADVISE),                                                                                  \
	  "CUDA Driver API, Unified Addressing, cuMemAdvise: for CU_MEM_ADVISE_SET_ACCESSED_BY \"The "       \
	  "CUmemLocation::type must be either CU_MEM_LOCATION_TYPE_DEVICE with CUmemLocation::id "           \
	  "representing a valid device ordinal or CU_MEM_LOCATION_TYPE_HOST ... All other location types "   \
	  "are invalid\"; for CU_MEM_ADVISE_SET_PREFERRED_LOCATION \"CUmemLocation::id must specify the "    \
	  "NUMA ID of the host NUMA node\"; HIP (hipMemAdvise_v2: \"location - location to apply the "       \
	  "advice for\"): a hipMemLocationType",                                                             \
	  "rejects: CUDA 1 invalid value (type invalid for set-preferred-location, {host_numa, 0} for "      \
	  "set-accessed-by: H100, driver 580); HIP (clr) invalid value for type invalid",                    \
	  "memory advice for a location the advice does not take: type invalid or undefined, a host NUMA "   \
	  "node for accessed-by (CUDA), or a NUMA node the host does not have (CUDA)",                       \
	  "a device or {host, 0} for accessed-by; for the preferred location a device, the host or an "      \
	  "online NUMA node")                                                                                \
	X(MANAGED_PREFETCH_NOT_MANAGED, "managed.prefetch.not-managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,  \
	  PW_OPBIT(PREFETCH),                                                                                \
	  "CUDA Runtime API, Memory Management, cudaMemPrefetchAsync: \"The memory range must refer to "     \
	  "managed memory allocated via cudaMallocManaged or declared via __managed__ variables, or it may " \
	  "also refer to system-allocated memory on systems with non-zero "                                  \
	  "cudaDevAttrPageableMemoryAccess\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync: "        \
	  "\"dev_ptr - pointer to be prefetched\" (clr refuses memory it did not allocate, for a device, "   \
	  "without pageable memory access)",                                                                 \
	  "rejects: CUDA 1 invalid value for device, pool and freed memory, and for malloc'd memory where "  \
	  "the devices report no pageable memory access (H100, driver 580: attribute 0)",                    \
	  "a prefetch of memory that is not managed (device, pool, freed, or system memory the devices "     \
	  "cannot access)",                                                                                  \
	  "prefetch only managed memory (system memory only on HMM/ATS systems); copy device memory "        \
	  "instead")                                                                                         \
	X(MANAGED_PREFETCH_INVALID_DEVICE, "managed.prefetch.invalid-device", PW_SEV_ERROR,                  \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(PREFETCH),                                                          \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"Specifying "                           \
	  "CU_MEM_LOCATION_TYPE_DEVICE for CUmemLocation::type will prefetch memory to GPU specified by "    \
	  "device ordinal CUmemLocation::id\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync: "       \
	  "\"device - destination device to prefetch to\"",                                                  \
	  "rejects: CUDA 101 invalid device ({device, -1} and device 9: H100, H200); HIP invalid device",    \
	  "a prefetch to a device that does not exist (in a location, {device, -1} is no device: the CPU "   \
	  "id -1 is only a plain device number)",                                                            \
	  "prefetch to a valid device, or to the host: {host, 0} in a location, -1 as a plain device "       \
	  "number")                                                                                          \
	X(MANAGED_PREFETCH_LOCATION, "managed.prefetch.location", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,        \
	  PW_OPBIT(PREFETCH),                                                                                \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"Specifying "                           \
	  "CU_MEM_LOCATION_TYPE_HOST as CUmemLocation::type will prefetch data to host memory. "             \
	  "Applications can request prefetching memory to a specific host NUMA node by specifying "          \
	  "CU_MEM_LOCATION_TYPE_HOST_NUMA for CUmemLocation::type and a valid host NUMA node id\"; HIP "     \
	  "Runtime API, Managed Memory, hipMemPrefetchAsync_v2: \"location - destination location to "       \
	  "prefetch to\" (a hipMemLocationType)",                                                            \
	  "rejects: CUDA 1 invalid value for type invalid (H100, driver 580); HIP (clr) invalid value",      \
	  "a prefetch to a location that names no processor: type invalid or undefined, or a NUMA node "     \
	  "the host does not have (CUDA)",                                                                   \
	  "prefetch to {device, N}, {host, 0}, {host_numa_current, 0} or an online {host_numa, N}")          \
	X(MANAGED_PREFETCH_FLAGS, "managed.prefetch.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,              \
	  PW_OPBIT(PREFETCH),                                                                                \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"flags - flags for future use, must "   \
	  "be zero now\"; HIP Runtime API, Managed Memory, hipMemPrefetchAsync_v2 (ROCm 7.1): \"flags - "    \
	  "flags for future use, must be zero now\"",                                                        \
	  "rejects: CUDA 1 invalid value (flags 1: H100, driver 580); HIP invalid value",                    \
	  "a prefetch with flags other than 0", "pass 0")                                                    \
	X(MANAGED_PREFETCH_OUT_OF_RANGE, "managed.prefetch.out-of-range", PW_SEV_ERROR,                      \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(PREFETCH),                                                          \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync: \"count specifies the number of bytes "  \
	  "to copy ... The memory range must refer to managed memory allocated via cuMemAllocManaged\"; "    \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync: \"count - size in bytes for prefetching\"", \
	  "rejects: CUDA 1 invalid value for count 0, a range past the end, and a range over two "           \
	  "contiguous managed allocations (H100, driver 580); HIP (clr) invalid value",                      \
	  "a prefetch of 0 bytes or of a range past the end of its managed allocation (into the next one "   \
	  "too)",                                                                                            \
	  "prefetch each allocation on its own, between 1 and the bytes left in it")                         \
	X(MANAGED_RANGE_ATTR_DATA_SIZE, "managed.range-attr.data-size", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,  \
	  PW_OPBIT(RANGE_ATTR),                                                                              \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute: \"data will be interpreted as a "    \
	  "32-bit integer, and dataSize must be 4\"; for CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY \"dataSize "     \
	  "must "                                                                                            \
	  "be a non-zero multiple of 4\"; HIP Runtime API, Managed Memory, hipMemRangeGetAttribute: "        \
	  "\"data_size - the size of data\"",                                                                \
	  "rejects: CUDA 1 invalid value; HIP invalid value",                                                \
	  "a range attribute query with a data size the attribute does not have",                            \
	  "pass 4 (an int), or a multiple of 4 for accessed-by")                                             \
	X(MANAGED_RANGE_ATTR_INVALID, "managed.range-attr.invalid", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,      \
	  PW_OPBIT(RANGE_ATTR),                                                                              \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute: \"The attribute parameter can take " \
	  "the following values\"; \"data - A pointers to a memory location where the result of each "       \
	  "attribute query will be written to\"; cuMemRangeGetAttributes: \"numAttributes - Number of "      \
	  "attributes to query\"; HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s): "             \
	  "\"attribute - the attribute to query\"",                                                          \
	  "rejects: CUDA 1 invalid value (attribute 9 with 4 bytes: H100, driver 580); HIP invalid value",   \
	  "a range attribute query for an attribute that does not exist, with no place to write the answer " \
	  "(NULL data or arrays), or with no attribute at all",                                              \
	  "ask for a defined attribute, with a buffer for each")                                             \
	X(MANAGED_RANGE_ATTR_NOT_MANAGED, "managed.range-attr.not-managed", PW_SEV_ERROR,                    \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(RANGE_ATTR),                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute(s): \"The memory range must refer "   \
	  "to "                                                                                              \
	  "managed memory allocated via cuMemAllocManaged or declared via __managed__ variables\"; HIP "     \
	  "Runtime API, Managed Memory, hipMemRangeGetAttribute(s): \"dev_ptr - start of the range to "      \
	  "query\" (clr refuses memory that is not hipMallocManaged memory)",                                \
	  "rejects: CUDA 1 invalid value; HIP invalid value",                                                \
	  "a range attribute query over memory that is not managed (device, pool, freed or system memory)",  \
	  "query only memory from cuMemAllocManaged/hipMallocManaged")                                       \
	X(MANAGED_RANGE_ATTR_OUT_OF_RANGE, "managed.range-attr.out-of-range", PW_SEV_ERROR,                  \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(RANGE_ATTR),                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute: \"Query an attribute about the "     \
	  "memory range starting at devPtr with a size of count bytes. The memory range must refer to "      \
	  "managed memory allocated via cuMemAllocManaged\"; HIP Runtime API, Managed Memory, "              \
	  "hipMemRangeGetAttribute: \"count - size of the range to query\"",                                 \
	  "rejects: CUDA 1 invalid value (count 0: H100, driver 580); HIP invalid value",                    \
	  "a range attribute query over 0 bytes or past the end of its managed allocation",                  \
	  "query between 1 and the bytes left in the allocation")                                            \
	X(MANAGED_ATTACH_LENGTH, "managed.attach.length", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(ATTACH),         \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync: \"For managed allocations, length "   \
	  "must be either zero or the entire allocation's size\"; \"For pageable host allocations, length "  \
	  "must be non-zero\"",                                                                              \
	  "rejects: CUDA 1 invalid value (4096 of 65536 bytes: H200)",                                       \
	  "a stream attach of a length that is neither 0 nor the whole managed allocation, or of 0 bytes "   \
	  "of "                                                                                              \
	  "pageable memory",                                                                                 \
	  "pass 0 (the whole allocation); for pageable memory the length of the range")                      \
	X(MANAGED_ATTACH_FLAGS, "managed.attach.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                  \
	  PW_OPBIT(ATTACH),                                                                                  \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync: \"flags - Must be one of "            \
	  "CUmemAttach_flags\"; \"It is illegal to attach singly to the NULL stream, because the NULL "      \
	  "stream is a virtual global stream and not a specific stream\"; HIP Runtime API, Managed Memory, " \
	  "hipStreamAttachMemAsync: \"flags - must be one of hipMemAttachGlobal, hipMemAttachHost or "       \
	  "hipMemAttachSingle\"",                                                                            \
	  "rejects: CUDA 1 invalid value (attach-single on the legacy NULL stream: H100; on "                \
	  "cudaStreamPerThread it succeeds); HIP: success (ROCm 5-7 do nothing)",                            \
	  "a stream attach with undefined flags, or (CUDA) attach-single on the legacy NULL stream",         \
	  "pass one of the attach flags; attach-single needs a specific stream (cudaStreamPerThread is "     \
	  "one)")                                                                                            \
	X(MANAGED_ATTACH_NOT_MANAGED, "managed.attach.not-managed", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,      \
	  PW_OPBIT(ATTACH),                                                                                  \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync: \"dptr must point to one of the "     \
	  "following types of memories: managed memory ... a valid host-accessible region of "               \
	  "system-allocated pageable memory. This type of memory may only be specified if the device "       \
	  "associated with the stream reports a non-zero value for the device attribute "                    \
	  "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS\"; HIP Runtime API, Managed Memory, "                  \
	  "hipStreamAttachMemAsync: \"dev_ptr - pointer to memory (must be a pointer to managed memory or "  \
	  "to a valid host-accessible region of system-allocated memory)\"",                                 \
	  "rejects: CUDA 1 invalid value for cudaMalloc memory and for malloc'd memory without pageable "    \
	  "memory access (H100, driver 580); HIP: success (ROCm 5-7 do nothing)",                            \
	  "a stream attach of memory that is neither managed nor (where the device can access it) system "   \
	  "memory: device, pool or freed memory",                                                            \
	  "attach only managed memory (system memory only on HMM/ATS systems)")                              \
	X(MANAGED_ATTACH_PORTABILITY, "managed.attach.portability", PW_SEV_WARNING, PW_V_HIP,                \
	  PW_OPBIT(ATTACH),                                                                                  \
	  "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync: \"length - length of memory (defaults " \
	  "to zero)\" and flags \"(defaults to hipMemAttachSingle)\", with no condition on either; CUDA "    \
	  "Runtime API, Stream Management, cudaStreamAttachMemAsync: \"For managed allocations, length "     \
	  "must be either zero or the entire allocation's size\"; \"It is illegal to attach singly to the "  \
	  "NULL stream\"",                                                                                   \
	  "HIP: success on ROCm 5-7 (a no-op; the development runtime, clr's hip_hmm.cpp, now refuses "      \
	  "both with invalid value); the same call is 1 invalid value on CUDA",                              \
	  "a HIP stream attach that CUDA would refuse: part of a managed allocation, or attach-single on "   \
	  "the NULL stream",                                                                                 \
	  "attach the whole allocation (length 0) to a specific stream, as CUDA requires")                   \
	X(COPY_ACL_KIND, "copy.acl.kind", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                               \
	  "CANN AscendCL, Inter-Device Data Transfer: \"ACL_MEMCPY_DEVICE_TO_DEVICE = 3 # Data exchange "    \
	  "within a device or between devices\", and acl_rt.h's aclrtMemcpyKind, which names each "          \
	  "direction (HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT, "             \
	  "INNER_/INTER_DEVICE_TO_DEVICE)",                                                                  \
	  "not measured on Ascend; the simulator refuses a host buffer where the kind says device and "      \
	  "copies device memory passed as host",                                                             \
	  "a copy whose kind says host memory where it is given device memory aclrtMalloc returned, or "     \
	  "device memory where it is given memory that no aclrtMalloc returned",                             \
	  "pass the kind of the direction (ACL_MEMCPY_DEVICE_TO_DEVICE between devices), or "                \
	  "ACL_MEMCPY_DEFAULT to let the runtime tell")                                                      \
	X(COPY_PEER_MANAGED, "copy.peer.managed", PW_SEV_WARNING, PW_V_HIP, PW_OPBIT(PEER_COPY),             \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync (dst, src: "  \
	  "device pointers)",                                                                                \
	  "not measured: clr copies it as a device-to-device copy on the null stream",                       \
	  "a peer copy from or to managed memory (hipMallocManaged), which is no device pointer",            \
	  "copy managed memory with hipMemcpy (hipMemcpyDefault), or prefetch it (hipMemPrefetchAsync)")     \
	X(COPY_ACL_DEST_MAX, "copy.acl.dest-max", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,                       \
	  "CANN AscendCL, Runtime API, aclrtMemcpy and aclrtMemcpyAsync (destMax: the memory size of the "   \
	  "destination; count: the bytes to copy)",                                                          \
	  "count > destMax: rejects (the simulator: ACL_ERROR_INVALID_PARAM); destMax past the "             \
	  "destination's allocation: not measured, the runtime trusts destMax",                              \
	  "a copy of more bytes than destMax, or a destMax larger than what is left of the destination's "   \
	  "allocation",                                                                                      \
	  "pass as destMax the bytes left in the destination from dst, and copy at most that")               \
	X(COPY_ACL_KIND_UNDEFINED, "copy.acl.kind-undefined", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,           \
	  "CANN AscendCL, Runtime API, aclrtMemcpy and aclrtMemcpyAsync (kind: typedef enum "                \
	  "aclrtMemcpyKind)",                                                                                \
	  "rejects (the simulator: ACL_ERROR_INVALID_PARAM); not measured on Ascend",                        \
	  "a copy with a kind aclrtMemcpyKind does not define",                                              \
	  "pass one of the aclrtMemcpyKind values (ACL_MEMCPY_DEFAULT lets the runtime tell)")               \
	X(COPY_ACL_ASYNC_HOST_TO_HOST, "copy.acl.async-host-to-host", PW_SEV_ERROR, PW_V_ACL, PW_OPS_COPY,   \
	  "CANN AscendCL, Runtime API, aclrtMemcpyAsync (Restrictions: no asynchronous memory copy within "  \
	  "the host)",                                                                                       \
	  "rejects: ACL 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT",                                            \
	  "an asynchronous copy of kind ACL_MEMCPY_HOST_TO_HOST",                                            \
	  "copy within the host with memcpy, or with aclrtMemcpy")                                           \
	X(COPY_ACL_ASYNC_PAGEABLE, "copy.acl.async-pageable", PW_SEV_WARNING, PW_V_ACL, PW_OPS_COPY,         \
	  "CANN AscendCL (CANN 8.0.0 commercial), Runtime API, aclrtMemcpyAsync (Restrictions: host memory " \
	  "not allocated by aclrtMallocHost); CANN 8.5 allows non-page-locked memory and copies it "         \
	  "synchronously",                                                                                   \
	  "CANN 8.0: no error, \"an unpredictable error may occur when the task is executed\"; CANN 8.5: "   \
	  "the call returns only after the copy is complete",                                                \
	  "an asynchronous copy between the host and a device whose host memory no aclrtMallocHost "         \
	  "returned (pageable memory): unpredictable on CANN 8.0",                                           \
	  "allocate the host side with aclrtMallocHost (page-locked), or use aclrtMemcpy")                   \
	X(VMM_EXPORT_HANDLE_TYPE, "vmm.export.handle-type", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(VMM_EXPORT),   \
	  "cuda.h :4308 (CUmemAllocationProp): requestedHandleTypes - requested CUmemAllocationHandleType; " \
	  ":13168 cuMemExportToShareableHandle: handleType - Type of shareable handle requested",            \
	  "rejects: CUDA 1 invalid value (H200, driver 580: fabric export of a posix_fd allocation, "        \
	  "posix_fd export of one created for none; tests/gpu/vmm_probe.md)",                                \
	  "a virtual-memory allocation exported with a handle type it was not created for",                  \
	  "name the type in CUmemAllocationProp::requestedHandleTypes at cuMemCreate (NCCL: posix_fd, or "   \
	  "fabric on NVSwitch systems)")                                                                     \
	X(VMM_IMPORT_RELEASED, "vmm.import.released", PW_SEV_WARNING, PW_V_CUDA, PW_OPBIT(VMM_IMPORT),       \
	  "cuda.h :12841 (cuMemRelease): The memory allocation will be freed when all outstanding mappings " \
	  "to the memory are unmapped and when all outstanding references to the handle (including it's "    \
	  "shareable counterparts) are also released",                                                       \
	  "silent: the fd keeps the memory, the import and map succeed and read the bytes (H200); "          \
	  "the real driver's fds are all /dev/nvidiactl, which names no allocation, so the check runs "      \
	  "only where the fd is the allocation's own file (the simulator), never guessing on GPUs",          \
	  "a shareable handle imported after the exporting process released its allocation",                 \
	  "release in the exporter only after every importer has imported (and mapped) it")                  \
	X(VMM_COPY_NO_ACCESS, "vmm.copy.no-access", PW_SEV_ERROR, PW_V_CUDA, PW_OPS_COPY,                    \
	  "cuda.h :12885 (cuMemMap): calling cuMemMap does not make the address accessible, the caller "     \
	  "needs to update accessibility of a contiguous mapped VA range by calling cuMemSetAccess",         \
	  "cuMemcpyPeer: silent, the copy happens (H200: device 1 into a device-0 mapping only device 0 "    \
	  "may access); cuMemcpyDtoD issued in device 1's context: 1 invalid value; kernels fault",          \
	  "a peer copy into or out of a mapped range the other device was not granted access to",            \
	  "cuMemSetAccess the range for every device that reads or writes it (readwrite for a destination)") \
	X(VMM_LEAK, "vmm.leak", PW_SEV_WARNING, PW_V_CUDA, PW_OPBIT(VMM_EXIT),                               \
	  "cuda.h :13060 (cuMemUnmap): Any backing memory allocations will be freed if there are no "        \
	  "existing mappings and there are no unreleased memory handles",                                    \
	  "silent: the mapping and its memory live until the process ends",                                  \
	  "a virtual-memory mapping still there when the process exits",                                     \
	  "cuMemUnmap every mapping (then cuMemRelease and cuMemAddressFree) when done with it")             \
	X(IPC_EXPORT_POOL_OR_VMM, "ipc.export.pool-or-vmm", PW_SEV_ERROR, PW_V_CUDA, PW_OPBIT(IPC_EXPORT),   \
	  "cuda.h :9333 (cuIpcGetMemHandle): dptr - Base pointer to previously allocated device memory "     \
	  "(cuMemAlloc); pool memory is shared with cuMemPoolExportPointer, virtual memory with "            \
	  "cuMemExportToShareableHandle (chelsea0x3b/cudarc#521, openucx/ucx#7110)",                         \
	  "rejects: CUDA 1 invalid value for cuMemAllocAsync memory, IPC-capable pool memory and VMM "       \
	  "mappings alike (H200, driver 580; cudarc#521, ucx#10065)",                                        \
	  "legacy IPC (cuIpcGetMemHandle) on stream-ordered pool memory or virtual-memory mappings",         \
	  "pool memory: cuMemPoolExportPointer from a pool created with an IPC handle type; virtual "        \
	  "memory: cuMemExportToShareableHandle")                                                            \
	X(IPC_EVENT_FLAGS, "ipc.event.flags", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,                            \
	  PW_OPBIT(IPC_EVENT_EXPORT),                                                                        \
	  "CUDA Driver API, Memory Management, cuIpcGetEventHandle: \"The event must have been created "     \
	  "with the CU_EVENT_INTERPROCESS and CU_EVENT_DISABLE_TIMING flags set\"; HIP Runtime API, "        \
	  "hipIpcGetEventHandle: \"event - Event allocated with hipEventInterprocess and "                   \
	  "hipEventDisableTiming flags\"",                                                                   \
	  "rejects: CUDA 400 invalid resource handle without the interprocess flag (H100)",                  \
	  "an IPC handle asked for an event created without the interprocess and disable-timing flags",      \
	  "create the event with both flags (cudaEventInterprocess | cudaEventDisableTiming)")               \
	X(IPC_EVENT_SAME_PROCESS, "ipc.event.same-process", PW_SEV_ERROR, PW_V_CUDA | PW_V_HIP,              \
	  PW_OPBIT(IPC_EVENT_OPEN),                                                                          \
	  "CUDA Driver API, Memory Management, cuIpcOpenEventHandle: \"Opens an interprocess event handle "  \
	  "exported from another process\"; HIP Runtime API, hipIpcOpenEventHandle: \"If the function is "   \
	  "called within the same process where handle is returned by hipIpcGetEventHandle, it will return " \
	  "hipErrorInvalidContext\"",                                                                        \
	  "rejects: CUDA 201 (H100); HIP invalid context",                                                   \
	  "an IPC event handle opened in the process that exported it", "use the event you already have")    \
	X(IPC_EVENT_LEAK, "ipc.event.leak", PW_SEV_WARNING, PW_V_CUDA | PW_V_HIP, PW_OPBIT(IPC_EVENT_EXIT),  \
	  "CUDA Runtime API, Device Management, cudaIpcOpenEventHandle: \"This event must be freed with "    \
	  "cudaEventDestroy\"; HIP Runtime API, hipIpcOpenEventHandle: \"This event need be freed with "     \
	  "hipEventDestroy\"",                                                                               \
	  "silent: the event lives until the process ends",                                                  \
	  "an event an IPC open made still there when the process exits",                                    \
	  "destroy every imported event when done with it")                                                  \
	X(IPC_EVENT_DESTROY_WHILE_OPEN, "ipc.event.destroy-while-open", PW_SEV_WARNING,                      \
	  PW_V_CUDA | PW_V_HIP, PW_OPBIT(EVENT_DESTROY),                                                     \
	  "CUDA Runtime API, Device Management, cudaIpcGetEventHandle: \"Performing operations on the "      \
	  "imported event after the exported event has been freed with cudaEventDestroy will result in "     \
	  "undefined behavior\"; HIP Runtime API, hipIpcGetEventHandle: \"Operations on the imported event " \
	  "after the exported event has been freed with hipEventDestroy will result in undefined "           \
	  "behavior\"",                                                                                      \
	  "not measured: undefined behaviour once the importer uses it",                                     \
	  "the exporter destroys an event another process still has open through IPC",                       \
	  "destroy the exported event only after every importer destroyed its copy (a barrier)")             \
	X(PEER_INVALID_DEVICE, "peer.invalid-device", PW_SEV_ERROR, PW_V_ALL,                                \
	  PW_OPBIT(CAN_ACCESS) | PW_OPBIT(PEER_ATTR) | PW_OPBIT(PEER_ENABLE) | PW_OPBIT(PEER_DISABLE) |      \
	      PW_OPBIT(PEER_COPY),                                                                           \
	  "HIP Runtime API, Peer to Peer Device Memory Access, hipDeviceCanAccessPeer: \"Returns "           \
	  "hipErrorInvalidDevice if deviceId or peerDeviceId are not valid devices\"; CUDA Runtime API, "    \
	  "cudaDeviceCanAccessPeer and cudaMemcpyPeer: cudaErrorInvalidDevice; CANN AscendCL, "              \
	  "aclrtDeviceCanAccessPeer: the device IDs of the devices present",                                 \
	  "rejects: CUDA 101 invalid device (device 9 of 2 in a peer query, an enable and a peer copy: "     \
	  "H200); HIP invalid device; ACL invalid device id",                                                \
	  "a peer call naming a device ordinal the process does not have",                                   \
	  "name devices between 0 and the device count - 1 (cudaGetDeviceCount; CUDA_VISIBLE_DEVICES "       \
	  "renumbers them)")

#define PW_RULE_ENUM_ROW(name, id, sev, vendors, ops, source, runtime, summary, advice) PW_RULE_##name,
enum pw_rule_id { PW_RULES(PW_RULE_ENUM_ROW) PW_RULE_COUNT };

#endif

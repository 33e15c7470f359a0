/*
 * Each rule's words, per vendor (the catalog is rules_table.h): where the
 * contract is written (the vendor's document, its section and function,
 * with peerwatch's own note in parentheses where one is needed), the
 * sentence the rule enforces, quoted word for word, the public page that
 * has it, what that vendor's runtime does when the contract is broken, and
 * the fix, in that vendor's names and codes.  A rule has one row per vendor
 * it applies to: a finding's report (contract, runtime and fix lines), the
 * analyzer and docs/rules.md give the finding's own vendor's words, never
 * another's (an ACL finding names aclrt* calls and ACL_ERROR_* codes).
 * tests/unit/test_rules.c fails on a vendor of a rule without its row or
 * with an empty field.
 *
 *   C(NAME, VENDOR, "document, section, function", "the sentence", "url",
 *     "what the runtime does", "the fix")
 *
 * runtime: what the real runtime does when the contract is broken, measured
 *          where it says so (H100s and H200s, tests/gpu/RESULTS.md);
 *          "rejects" rules still matter, since the program then usually
 *          ignores an error code; "silent" ones are where a checker adds the
 *          most; "not measured" says what is not known.
 *
 * Sources: CUDA 13.0 cuda.h and cuda_runtime_api.h (the text of NVIDIA's
 * reference pages); HIP's hip_runtime_api.h (ROCm 5.2.3 to 7.x, the text of
 * AMD's reference pages: the peer and managed-memory sentences as the
 * docs-develop pages give them); CANN 8.5.0's Inter-Device Data Transfer
 * (pyACL) and its aclrt* reference pages.
 */
#ifndef PEERWATCH_RULES_CITES_H
#define PEERWATCH_RULES_CITES_H

#include "peerwatch/rules_table.h"

#define PW_RULE_CITES(C)                                                                                     \
	C(PEER_ENABLE_SELF, PW_V_CUDA, "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess", \
	  "Returns CUDA_ERROR_INVALID_CONTEXT if there is no current context, peerContext is not a "         \
	  "valid context, or if the current context is peerContext.",                                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_INVALID_CONTEXT (201) from cuCtxEnablePeerAccess; the runtime API's "         \
	  "cudaDeviceEnablePeerAccess: cudaErrorPeerAccessUnsupported (217)",                                \
	  "a device always reaches its own memory; drop the call")                                           \
	C(PEER_ENABLE_SELF, PW_V_HIP,                                                                        \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceCanAccessPeer",                      \
	  "Returns \"0\" if deviceId == peerDeviceId, both are valid devices, however, a device is not a "   \
	  "peer of itself.",                                                                                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipDeviceEnablePeerAccess answers hipErrorInvalidDevice (101): the runtime (clr) "       \
	  "enables only a pair hipDeviceCanAccessPeer says 1 for",                                           \
	  "a device always reaches its own memory; drop the call")                                           \
	C(PEER_ENABLE_SELF, PW_V_ACL,                                                                        \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess (peerDeviceId)",                          \
	  "Device ID, which must be different from the current device ID.",                                  \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0052.html",                                                                         \
	  "rejects: ACL_ERROR_INVALID_PARAM (100000), as aclrtDeviceCanAccessPeer and "                      \
	  "aclrtDeviceDisablePeerAccess do for a device and itself",                                         \
	  "a device always reaches its own memory; drop the call")                                           \
	C(PEER_ENABLE_FLAGS, PW_V_CUDA,                                                                      \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "Flags - Reserved for future use and must be set to 0",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1); cudaDeviceEnablePeerAccess: cudaErrorInvalidValue",        \
	  "pass 0")                                                                                          \
	C(PEER_ENABLE_FLAGS, PW_V_HIP,                                                                       \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceEnablePeerAccess",                   \
	  "flags[in] - Reserved for future use, must be zero",                                               \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorInvalidValue (1)", "pass 0")                                                     \
	C(PEER_ENABLE_FLAGS, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess (flags)",    \
	  "This parameter is reserved and must be set to 0.",                                                \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0052.html",                                                                         \
	  "rejects: ACL_ERROR_FEATURE_UNSUPPORTED (200006)", "pass 0")                                       \
	C(PEER_ENABLE_UNSUPPORTED, PW_V_CUDA,                                                                \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "Returns CUDA_ERROR_PEER_ACCESS_UNSUPPORTED if cuDeviceCanAccessPeer() indicates that the "        \
	  "CUdevice of the current context cannot directly access memory from the CUdevice of "              \
	  "peerContext.",                                                                                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217); cudaDeviceEnablePeerAccess: "                  \
	  "cudaErrorPeerAccessUnsupported",                                                                  \
	  "check cuDeviceCanAccessPeer (cudaDeviceCanAccessPeer) first and copy through the host (or "       \
	  "another path) when it says 0")                                                                    \
	C(PEER_ENABLE_UNSUPPORTED, PW_V_HIP,                                                                 \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceCanAccessPeer",                      \
	  "Returns \"0\" if the specified deviceId is not capable of directly accessing memory "             \
	  "physically located on peerDeviceId",                                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorInvalidDevice (101): the runtime (clr) answers so for a pair without a "         \
	  "peer link",                                                                                       \
	  "check hipDeviceCanAccessPeer first and copy through the host (or another path) when it says "     \
	  "0")                                                                                               \
	C(PEER_ENABLE_UNSUPPORTED, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (pyACL)",            \
	  "Call acl.rt.device_can_access_peer to query whether data exchange between two devices is "        \
	  "supported. If data exchange is supported, use two acl.rt.device_enable_peer_access calls",        \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "rejects with the runtime's own code: ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) in the "           \
	  "simulated runtime; not measured on Ascend",                                                       \
	  "check aclrtDeviceCanAccessPeer first: only devices under one PCIe switch (or in an AI "           \
	  "Server) exchange data; copy through the host otherwise")                                          \
	C(PEER_ENABLE_TWICE, PW_V_CUDA,                                                                      \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "Returns CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED if direct access of peerContext from the "         \
	  "current context has already been enabled.",                                                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (704); through the runtime API the error "        \
	  "also stays as the thread's last error, so a later cudaGetLastError() reports it after "           \
	  "unrelated calls",                                                                                 \
	  "enable once, or treat 704 as success and clear it (cudaGetLastError)")                            \
	C(PEER_ENABLE_TWICE, PW_V_HIP,                                                                       \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceEnablePeerAccess",                   \
	  "hipErrorPeerAccessAlreadyEnabled if peer access is already enabled for this device.",             \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorPeerAccessAlreadyEnabled (704), which hipGetLastError then reports",             \
	  "enable once, or treat hipErrorPeerAccessAlreadyEnabled as success and clear it "                  \
	  "(hipGetLastError)")                                                                               \
	C(PEER_ENABLE_UNQUERIED, PW_V_CUDA,                                                                  \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceCanAccessPeer",                              \
	  "If direct access of peerDev from dev is possible, then access may be enabled on two "             \
	  "specific contexts by calling cuCtxEnablePeerAccess().",                                           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "silent when the pair happens to support it; otherwise CUDA_ERROR_PEER_ACCESS_UNSUPPORTED "        \
	  "(217)",                                                                                           \
	  "call cuDeviceCanAccessPeer (cudaDeviceCanAccessPeer) for the pair first")                         \
	C(PEER_ENABLE_UNQUERIED, PW_V_HIP,                                                                   \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceCanAccessPeer",                      \
	  "Returns \"1\" if the specified deviceId is capable of directly accessing memory physically "      \
	  "located on peerDeviceId",                                                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "silent when the pair happens to support it; otherwise hipErrorInvalidDevice (101)",               \
	  "call hipDeviceCanAccessPeer for the pair first")                                                  \
	C(PEER_ENABLE_UNQUERIED, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (pyACL)",              \
	  "Call acl.rt.device_can_access_peer to query whether data exchange between two devices is "        \
	  "supported. If data exchange is supported, use two acl.rt.device_enable_peer_access calls to "     \
	  "enable data exchange",                                                                            \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "silent when the pair happens to support it; otherwise the enable fails with the runtime's "       \
	  "code (ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000, in the simulated runtime)",                       \
	  "call aclrtDeviceCanAccessPeer for the pair first")                                                \
	C(PEER_ENABLE_ONE_DIRECTION, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (pyACL)",          \
	  "use two acl.rt.device_enable_peer_access calls to enable data exchange: one for enabling "        \
	  "data exchange from device 0 to device 1, and the other for enabling data exchange from "          \
	  "device 1 to device 0",                                                                            \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "not measured on Ascend: the document enables both directions before any copy, and enabling "      \
	  "is one-way (aclrtDeviceEnablePeerAccess)",                                                        \
	  "enable peer access from each device to the other (aclrtSetDevice, then "                          \
	  "aclrtDeviceEnablePeerAccess) before copying")                                                     \
	C(PEER_DISABLE_NOT_ENABLED, PW_V_CUDA,                                                               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxDisablePeerAccess",                             \
	  "Returns CUDA_ERROR_PEER_ACCESS_NOT_ENABLED if direct peer access has not yet been enabled "       \
	  "from peerContext to the current context.",                                                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_PEER_ACCESS_NOT_ENABLED (705)",                                               \
	  "disable only what was enabled (from the same current context)")                                   \
	C(PEER_DISABLE_NOT_ENABLED, PW_V_HIP,                                                                \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceDisablePeerAccess",                  \
	  "If direct access to memory allocations on peer device has not been enabled yet from the "         \
	  "current device, it returns hipErrorPeerAccessNotEnabled.",                                        \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorPeerAccessNotEnabled (705)",                                                     \
	  "disable only what hipDeviceEnablePeerAccess enabled, from the same current device")               \
	C(PEER_LIMIT, PW_V_CUDA, "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",       \
	  "Returns CUDA_ERROR_TOO_MANY_PEERS if direct peer access is not possible because hardware "        \
	  "resources required for peer access have been exhausted.",                                         \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_TOO_MANY_PEERS (711)",                                                        \
	  "enable peer access only between the devices that exchange data; NVSwitch systems route "          \
	  "without it")                                                                                      \
	C(PEER_LIMIT, PW_V_HIP,                                                                              \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceEnablePeerAccess (its errors: "      \
	  "HIP documents no limit of peers and defines no error for it)",                                    \
	  "hipSuccess, hipErrorInvalidDevice, hipErrorInvalidValue",                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "not measured on AMD GPUs: no hipError_t of any HIP version says too many peers "                  \
	  "(hipErrorTooManyPeers, named in hipIpcOpenMemHandle's comment, is defined nowhere); the "         \
	  "runtime (clr) refuses an enable it cannot make with hipErrorInvalidDevice (101)",                 \
	  "enable peer access only between the devices that exchange data")                                  \
	C(PEER_ATTR_SELF, PW_V_CUDA,                                                                         \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceGetP2PAttribute, "                           \
	  "cuDeviceGetP2PAtomicCapabilities",                                                                \
	  "Returns CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid or if they "            \
	  "represent the same device.",                                                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_INVALID_DEVICE (101)",                                                        \
	  "a device is no peer of itself: query pairs of two devices, and take a device's own atomics "      \
	  "from cuDeviceGetAttribute")                                                                       \
	C(PEER_CONTEXT_INVALID, PW_V_CUDA,                                                                   \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxDisablePeerAccess (and "                        \
	  "cuCtxEnablePeerAccess)",                                                                          \
	  "Returns CUDA_ERROR_INVALID_CONTEXT if there is no current context, or if peerContext is not "     \
	  "a valid context.",                                                                                \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_INVALID_CONTEXT (201) with no current context, "                              \
	  "CUDA_ERROR_CONTEXT_IS_DESTROYED (709) naming a destroyed peer context (H200, driver 580)",        \
	  "make a context current first (cuCtxSetCurrent, or any runtime call); forget a context's "         \
	  "peer access when it is destroyed")                                                                \
	C(PEER_INVALID_DEVICE, PW_V_CUDA,                                                                    \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceGetP2PAttribute (and the runtime's "         \
	  "cudaDeviceCanAccessPeer, cudaDeviceEnablePeerAccess, cudaMemcpyPeer)",                            \
	  "Returns CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid",                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "rejects: CUDA_ERROR_INVALID_DEVICE (101), cudaErrorInvalidDevice (device 9 of 2 in a peer "       \
	  "query, an enable and a peer copy: H200)",                                                         \
	  "name devices between 0 and the device count - 1 (cuDeviceGetCount, cudaGetDeviceCount; "          \
	  "CUDA_VISIBLE_DEVICES renumbers them)")                                                            \
	C(PEER_INVALID_DEVICE, PW_V_HIP,                                                                     \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceCanAccessPeer",                      \
	  "Returns hipErrorInvalidDevice if deviceId or peerDeviceId are not valid devices",                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorInvalidDevice (101)",                                                            \
	  "name devices between 0 and the device count - 1 (hipGetDeviceCount; HIP_VISIBLE_DEVICES "         \
	  "renumbers them)")                                                                                 \
	C(PEER_INVALID_DEVICE, PW_V_ACL,                                                                     \
	  "CANN AscendCL, Runtime API, aclrtDeviceCanAccessPeer (deviceId, peerDeviceId)",                   \
	  "Must be in the range of [0, Device count – 1]. Call aclrtGetDeviceCount to obtain the "         \
	  "device count.",                                                                                   \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0051.html",                                                                         \
	  "rejects: ACL_ERROR_RT_INVALID_DEVICEID (107001)",                                                 \
	  "name devices between 0 and the device count - 1 (aclrtGetDeviceCount; "                           \
	  "ASCEND_RT_VISIBLE_DEVICES renumbers them)")                                                       \
	C(COPY_PEER_DEVICE_MISMATCH, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",          \
	  "dstDevice is the base device pointer of the destination memory and dstContext is the "            \
	  "destination context. srcDevice is the base device pointer of the source memory and "              \
	  "srcContext is the source pointer.",                                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "silent: the H200 driver copies anyway; an IPC mapping it reports on the importing context's "     \
	  "device and copies naming the exporter's (driver 580): either is accepted for it, a third is "     \
	  "not",                                                                                             \
	  "pass the context the memory was allocated in (for an IPC mapping: the importing or the "          \
	  "exporting one)")                                                                                  \
	C(COPY_PEER_DEVICE_MISMATCH, PW_V_HIP,                                                               \
	  "HIP Runtime API, Peer to peer device memory access, hipMemcpyPeer",                               \
	  "dst[out] - Destination device pointer ... dstDeviceId[in] - Destination device ... src[in] "      \
	  "- Source device pointer ... srcDeviceId[in] - Source device",                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "not measured on AMD GPUs; the simulated runtime copies as the pointers say, like CUDA's "         \
	  "driver; an IPC mapping may be named by the importing or the exporting device",                    \
	  "pass the device the memory was allocated on (for an IPC mapping: the importing or the "           \
	  "exporting one)")                                                                                  \
	C(COPY_PEER_OUT_OF_BOUNDS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",            \
	  "ByteCount - Size of memory copy in bytes",                                                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)",                                                           \
	  "copy at most the bytes left in each allocation from the given pointer")                           \
	C(COPY_PEER_OUT_OF_BOUNDS, PW_V_HIP,                                                                 \
	  "HIP Runtime API, Peer to peer device memory access, hipMemcpyPeer",                               \
	  "sizeBytes[in] - Size of memory copy in bytes",                                                    \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorInvalidValue (1)",                                                               \
	  "copy at most the bytes left in each allocation from the given pointer")                           \
	C(COPY_PEER_OUT_OF_BOUNDS, PW_V_ACL,                                                                 \
	  "CANN AscendCL, Inter-Device Data Transfer (pyACL) (the count and destMax are the size of "        \
	  "both allocations)",                                                                               \
	  "ret = acl.rt.memcpy(dev0_mem, size, dev1_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE)",                \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "rejects: ACL_ERROR_INVALID_PARAM (100000) (the simulated runtime; not measured on Ascend)",       \
	  "copy at most the bytes left in each allocation from the given pointer, and pass the "             \
	  "destination's size as destMax")                                                                   \
	C(COPY_PEER_NULL, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",                     \
	  "dstDevice - Destination device pointer ... srcDevice - Source device pointer",                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)", "check the allocation succeeded")                         \
	C(COPY_PEER_NULL, PW_V_HIP, "HIP Runtime API, Peer to peer device memory access, hipMemcpyPeer",     \
	  "dst[out] - Destination device pointer ... src[in] - Source device pointer",                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "rejects: hipErrorInvalidValue (1)", "check that hipMalloc returned hipSuccess")                   \
	C(COPY_PEER_NULL, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (pyACL)",                     \
	  "dev0_mem, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY_P2P)",                             \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "rejects: ACL_ERROR_INVALID_PARAM (100000) (the simulated runtime; not measured on Ascend)",       \
	  "check that aclrtMalloc returned ACL_SUCCESS")                                                     \
	C(COPY_PEER_NO_PEER_ACCESS, PW_V_CUDA,                                                               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "on success all allocations from peerContext will immediately be accessible by the current "       \
	  "context.",                                                                                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html",                     \
	  "silent: 37.8 GB/s instead of 394.9 GB/s on NVLink H200s (256 MiB copies)",                        \
	  "enable peer access between the devices (both directions for copies both ways) before "            \
	  "copying, in the contexts the copy names, and again after a reset")                                \
	C(COPY_PEER_NO_PEER_ACCESS, PW_V_HIP,                                                                \
	  "HIP Runtime API, Peer to peer device memory access, hipDeviceEnablePeerAccess",                   \
	  "When this API is successful, all memory allocations on peer device will be mapped into the "      \
	  "address space of the current device.",                                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/reference/hip_runtime_api/modules/"        \
	  "peer_to_peer_device_memory_access.html",                                                          \
	  "silent: the copy is staged through host memory (not measured on AMD GPUs)",                       \
	  "hipDeviceEnablePeerAccess between the devices (both directions for copies both ways) before "     \
	  "copying, and again after hipDeviceReset")                                                         \
	C(COPY_PEER_HOST, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",                     \
	  "Copies from device memory in one context to device memory in another context.",                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for malloc'd memory on either side (H200, driver "          \
	  "580); page-locked host memory (cuMemAllocHost) it copies, and that is not reported",              \
	  "copy between host and device with cuMemcpyHtoD / cuMemcpyDtoH (cudaMemcpy), not a peer copy")     \
	C(COPY_PEER_FREED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer (after cuMemFree)",  \
	  "Copies from device memory in one context to device memory in another context.",                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) on either side (H200, driver 580)",                         \
	  "copy before the free, and free only after the copies that read or write it")                      \
	C(COPY_PEER_CONTEXT_DESTROYED, PW_V_CUDA, "CUDA Driver API, Context Management, cuCtxDestroy",       \
	  "It is the caller's responsibility to ensure that the context or its resources are not "           \
	  "accessed or passed in subsequent API calls and doing so will result in undefined behavior.",      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html",                              \
	  "crashes: the driver faults (SIGSEGV) in cuMemcpyPeer naming a destroyed context, on either "      \
	  "side (H200, driver 580); the simulated driver answers CUDA_ERROR_CONTEXT_IS_DESTROYED (709)",     \
	  "name the contexts the memory lives in, while they exist")                                         \
	C(COPY_ACL_P2P_POLICY, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (pyACL)",                \
	  "ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5 # Allocate P2P memory.",                                       \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "not measured on Ascend",                                                                          \
	  "allocate both buffers with an ACL_MEM_MALLOC_*_P2P policy (aclrtMalloc)")                         \
	C(COPY_ACL_2D_KIND, PW_V_ACL,                                                                        \
	  "CANN AscendCL, Runtime API, Memory Management, aclrtMemcpy2d and aclrtMemcpy2dAsync "             \
	  "(Restrictions)",                                                                                  \
	  "Currently, only memory copy of the ACL_MEMCPY_HOST_TO_DEVICE and ACL_MEMCPY_DEVICE_TO_HOST "      \
	  "types is supported.",                                                                             \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0108.html",                                                                         \
	  "not measured on Ascend devices (the page gives no code); the simulated runtime refuses the "      \
	  "copy with ACL_ERROR_INVALID_PARAM (100000)",                                                      \
	  "between two devices, copy row by row with aclrtMemcpy (ACL_MEMCPY_DEVICE_TO_DEVICE) after "       \
	  "enabling peer access both ways, or stage the rows through the host with two 2D copies")           \
	C(COPY_ACL_KIND, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (pyACL)",                      \
	  "ACL_MEMCPY_DEVICE_TO_DEVICE = 3 # Data exchange within a device or between devices.",             \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "not measured on Ascend; the simulated runtime refuses a host buffer where the kind says "         \
	  "device and copies device memory passed as host",                                                  \
	  "pass the kind of the direction (ACL_MEMCPY_DEVICE_TO_DEVICE between devices), or "                \
	  "ACL_MEMCPY_DEFAULT to let the runtime tell")                                                      \
	C(IPC_EXPORT_INTERIOR_POINTER, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",   \
	  "Takes a pointer to the base of an existing device memory allocation created with cuMemAlloc "     \
	  "and exports it for use in another process.",                                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "silent: the handle names the whole allocation, so the importer maps the base, not the "           \
	  "pointer passed",                                                                                  \
	  "export the allocation's base and send the offset along with the handle")                          \
	C(IPC_EXPORT_INTERIOR_POINTER, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",   \
	  "Takes a pointer to the base of an existing device memory allocation created with hipMalloc "      \
	  "and exports it for use in another process.",                                                      \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "silent: the handle names the whole allocation, so the importer maps the base, not the "           \
	  "pointer passed",                                                                                  \
	  "export the allocation's base and send the offset along with the handle")                          \
	C(IPC_EXPORT_MANAGED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",            \
	  "an existing device memory allocation created with cuMemAlloc",                                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)",                                                           \
	  "share managed memory another way, or allocate with cuMemAlloc (cudaMalloc)")                      \
	C(IPC_EXPORT_MANAGED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",            \
	  "an existing device memory allocation created with hipMalloc",                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidValue (1) in the simulated runtime; not measured on AMD GPUs",            \
	  "share managed memory another way, or allocate with hipMalloc")                                    \
	C(IPC_EXPORT_HOST, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",               \
	  "dptr - Base pointer to previously allocated device memory",                                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for a host pointer (H200)",                                 \
	  "export device memory (cuMemAlloc / cudaMalloc); share host memory through the OS")                \
	C(IPC_EXPORT_HOST, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",               \
	  "devPtr - Base pointer to previously allocated device memory",                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidValue (1) in the simulated runtime; not measured on AMD GPUs",            \
	  "export device memory (hipMalloc); share host memory through the OS")                              \
	C(IPC_EXPORT_FREED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",              \
	  "Takes a pointer to the base of an existing device memory allocation created with cuMemAlloc",     \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) after cudaFree (H200)",                                     \
	  "export before freeing, and free only after every importer closed its mapping")                    \
	C(IPC_EXPORT_FREED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",              \
	  "Takes a pointer to the base of an existing device memory allocation created with hipMalloc",      \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidValue (1) in the simulated runtime; not measured on AMD GPUs",            \
	  "export before hipFree, and free only after every importer closed its mapping")                    \
	C(IPC_EXPORT_POOL_OR_VMM, PW_V_CUDA,                                                                 \
	  "CUDA Driver API, Memory Management, cuIpcGetMemHandle (pool memory is shared with "               \
	  "cuMemPoolExportPointer, virtual memory with cuMemExportToShareableHandle)",                       \
	  "Takes a pointer to the base of an existing device memory allocation created with cuMemAlloc "     \
	  "and exports it for use in another process.",                                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for cuMemAllocAsync memory, IPC-capable pool memory "       \
	  "and VMM mappings alike (H200, driver 580)",                                                       \
	  "pool memory: cuMemPoolExportPointer from a pool created with an IPC handle type; virtual "        \
	  "memory: cuMemExportToShareableHandle")                                                            \
	C(IPC_OPEN_SAME_PROCESS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",        \
	  "Opens an interprocess memory handle exported from another process and returns a device "          \
	  "pointer usable in the local process.",                                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_CONTEXT (201)", "use the pointer you already have")                   \
	C(IPC_OPEN_SAME_PROCESS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",        \
	  "Opens an interprocess memory handle exported from another process and returns a device "          \
	  "pointer usable in the local process.",                                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidContext (201)", "use the pointer you already have")                       \
	C(IPC_OPEN_FLAGS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",               \
	  "Flags - Flags for this operation. Must be specified as CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS",       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "flags 0: rejects (CUDA_ERROR_INVALID_VALUE, 1); undefined bits: silent",                          \
	  "pass CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (cudaIpcMemLazyEnablePeerAccess)")                        \
	C(IPC_OPEN_FLAGS, PW_V_HIP,                                                                          \
	  "HIP Runtime API, Device Management, hipIpcOpenMemHandle (hipIpcMemLazyEnablePeerAccess is 0 "     \
	  "before ROCm 6.0, 1 from 6.0)",                                                                    \
	  "flags - Flags for this operation. Must be specified as hipIpcMemLazyEnablePeerAccess",            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidValue (1) for any other flags: a program built against ROCm 5 (flag "     \
	  "0) fails on ROCm 6 and later",                                                                    \
	  "pass hipIpcMemLazyEnablePeerAccess from the headers of the runtime the program runs on")          \
	C(IPC_OPEN_SECOND_CONTEXT, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",      \
	  "CUipcMemHandles from each CUdevice in a given process may only be opened by one CUcontext "       \
	  "per CUdevice per other process. If the memory handle has already been opened by the current "     \
	  "context, the reference count on the handle is incremented by 1 and the existing device "          \
	  "pointer is returned.",                                                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "not measured (a second open in the same context is success, the same pointer, counted; in "       \
	  "another device's context a second mapping: H100)",                                                \
	  "open the handles of one exporting device in one context per device (the primary one), and "       \
	  "reopen them there: the driver counts the opens")                                                  \
	C(IPC_OPEN_SECOND_CONTEXT, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",      \
	  "Contexts that may open hipIpcMemHandles are restricted in the following way. "                    \
	  "hipIpcMemHandles from each device in a given process may only be opened by one context per "      \
	  "device per other process.",                                                                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "cannot be broken in ROCm's runtime (clr): a device has one context, which hipCtxCreate and "      \
	  "hipDevicePrimaryCtxRetain both return, so a second open on a device is that context's, counted; " \
	  "not measured on AMD GPUs",                                                                        \
	  "open the handles of one exporting device in one context per device, and reopen them there")       \
	C(IPC_OPEN_UNREACHABLE, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",         \
	  "For contexts on different devices cuIpcOpenMemHandle can attempt to enable peer access "          \
	  "between the devices as if the user called cuCtxEnablePeerAccess. This behavior is "               \
	  "controlled by the CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS flag. cuDeviceCanAccessPeer can "            \
	  "determine if a mapping is possible.",                                                             \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)",                                               \
	  "open the handle on the exporter's device or one that can access it (cuDeviceCanAccessPeer), "     \
	  "or copy through the host")                                                                        \
	C(IPC_OPEN_UNREACHABLE, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",         \
	  "For contexts on different devices hipIpcOpenMemHandle can attempt to enable peer access "         \
	  "between the devices as if the user called hipDeviceEnablePeerAccess. This behavior is "           \
	  "controlled by the hipIpcMemLazyEnablePeerAccess flag. hipDeviceCanAccessPeer can determine "      \
	  "if a mapping is possible.",                                                                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "not measured on AMD GPUs",                                                                        \
	  "open the handle on the exporter's device or one that can access it "                              \
	  "(hipDeviceCanAccessPeer), or copy through the host")                                              \
	C(IPC_OPEN_UNEXPORTED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",          \
	  "Maps memory exported from another process with cuIpcGetMemHandle into the current device "        \
	  "address space.",                                                                                  \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "not measured: bytes that are no handle are refused; a handle of an untraced exporter maps",       \
	  "send the handle the exporter's cuIpcGetMemHandle (cudaIpcGetMemHandle) wrote, and trace the "     \
	  "exporting process too")                                                                           \
	C(IPC_OPEN_UNEXPORTED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",          \
	  "Maps memory exported from another process with hipIpcGetMemHandle into the current device "       \
	  "address space.",                                                                                  \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "not measured on AMD GPUs: bytes that are no handle are refused; a handle of an untraced "         \
	  "exporter maps",                                                                                   \
	  "send the handle the exporter's hipIpcGetMemHandle wrote, and trace the exporting process too")    \
	C(IPC_OPEN_STALE, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",               \
	  "Calling cuMemFree on an exported memory region before calling cuIpcCloseMemHandle in the "        \
	  "importing context will result in undefined behavior.",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "not measured: the mapping, if any, no longer names the exporter's data",                          \
	  "keep the allocation alive until every importer has opened and closed it")                         \
	C(IPC_OPEN_STALE, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",               \
	  "Calling hipFree on an exported memory region before calling hipIpcCloseMemHandle in the "         \
	  "importing context will result in undefined behavior.",                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "not measured: the mapping, if any, no longer names the exporter's data",                          \
	  "keep the allocation alive until every importer has opened and closed it")                         \
	C(IPC_OPEN_STALE, PW_V_ACL,                                                                          \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (the memory sharing flow, process B)",        \
	  "Before calling aclrtIpcMemImportByKey, ensure that the memory to be shared exists and cannot be " \
	  "freed in advance.",                                                                               \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "not measured on Ascend devices; the simulated runtime refuses the import with "                   \
	  "ACL_ERROR_RT_IPC_ERROR (507022)",                                                                 \
	  "keep the allocation alive (no aclrtFree) until every importer has imported and closed the key")   \
	C(IPC_CLOSE_UNKNOWN, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcCloseMemHandle",           \
	  "dptr - Device pointer returned by cuIpcOpenMemHandle",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)",                                                           \
	  "close the pointer the open returned; free ordinary memory with cuMemFree (cudaFree)")             \
	C(IPC_CLOSE_UNKNOWN, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcCloseMemHandle",           \
	  "devPtr - Device pointer returned by hipIpcOpenMemHandle",                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidValue (1) in the simulated runtime; not measured on AMD GPUs",            \
	  "close the pointer hipIpcOpenMemHandle returned; free ordinary memory with hipFree")               \
	C(IPC_CLOSE_UNKNOWN, PW_V_ACL,                                                                       \
	  "CANN AscendCL, pyACL API, acl.rt.ipc_mem_close (the C page, aclrtIpcMemClose, says the same "     \
	  "in Chinese)",                                                                                     \
	  "Processes that call both acl.rt.ipc_mem_import_by_key and acl.rt.ipc_mem_get_export_key also "    \
	  "need to call this API.",                                                                          \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclpythondevg_01_1073.html",                                                                      \
	  "not measured on Ascend devices; the simulated runtime refuses it with "                           \
	  "ACL_ERROR_RT_PARAM_INVALID (107000)",                                                             \
	  "close a key once per successful aclrtIpcMemImportByKey in the importer, and once in the "         \
	  "exporter after every importer closed it")                                                         \
	C(IPC_CLOSE_TWICE, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcCloseMemHandle",             \
	  "Decrements the reference count of the memory returned by cuIpcOpenMemHandle by 1. When the "      \
	  "reference count reaches 0, this API unmaps the memory.",                                          \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)", "close once per successful open")                         \
	C(IPC_CLOSE_TWICE, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcCloseMemHandle",             \
	  "Unmaps memory returnd by hipIpcOpenMemHandle.",                                                   \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidValue (1) in the simulated runtime; not measured on AMD GPUs",            \
	  "close once per successful open")                                                                  \
	C(IPC_FREE_WHILE_OPEN, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",          \
	  "Calling cuMemFree on an exported memory region before calling cuIpcCloseMemHandle in the "        \
	  "importing context will result in undefined behavior.",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "undefined behaviour by the document; measured (H100, driver 580): the driver keeps the "          \
	  "memory until the importer closes: the importer still reads the exporter's bytes, and the "        \
	  "device's memory is not returned (NCCL's legacy IPC teardown does this on every run: its "         \
	  "findings are suppressed by default)",                                                             \
	  "free only after every importer closed its mapping (a barrier, or a reference count across "       \
	  "processes)")                                                                                      \
	C(IPC_FREE_WHILE_OPEN, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",          \
	  "Calling hipFree on an exported memory region before calling hipIpcCloseMemHandle in the "         \
	  "importing context will result in undefined behavior.",                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "undefined behaviour by the document; not measured on AMD GPUs",                                   \
	  "hipFree only after every importer closed its mapping (a barrier, or a reference count "           \
	  "across processes)")                                                                               \
	C(IPC_FREE_WHILE_OPEN, PW_V_ACL,                                                                     \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (the memory sharing flow, process A: close "  \
	  "the key, then aclrtFree)",                                                                        \
	  "Only after process B calls aclrtIpcMemClose to disable IPC-based memory sharing can process A "   \
	  "disable IPC-based memory sharing. Otherwise, exceptions may occur.",                              \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "exceptions may occur, by the document; not measured on Ascend devices (the simulated runtime "    \
	  "keeps the importer's mapping)",                                                                   \
	  "close the key (aclrtIpcMemClose) and aclrtFree it in the exporter only after every importer "     \
	  "called aclrtIpcMemClose (a barrier, or a reference count across processes)")                      \
	C(IPC_FREE_IMPORTED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",            \
	  "Memory returned from cuIpcOpenMemHandle must be freed with cuIpcCloseMemHandle.",                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "not measured (the simulated driver refuses it with CUDA_ERROR_INVALID_VALUE)",                    \
	  "close IPC mappings with cuIpcCloseMemHandle / cudaIpcCloseMemHandle")                             \
	C(IPC_FREE_IMPORTED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",            \
	  "Memory returned from hipIpcOpenMemHandle must be freed with hipIpcCloseMemHandle.",               \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "not measured on AMD GPUs (the simulated runtime refuses it with hipErrorInvalidValue)",           \
	  "close IPC mappings with hipIpcCloseMemHandle")                                                    \
	C(IPC_LEAK, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",                     \
	  "Memory returned from cuIpcOpenMemHandle must be freed with cuIpcCloseMemHandle.",                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "silent: the mapping lives until the process ends",                                                \
	  "close every mapping when done with it (cuIpcCloseMemHandle)")                                     \
	C(IPC_LEAK, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",                     \
	  "Memory returned from hipIpcOpenMemHandle must be freed with hipIpcCloseMemHandle.",               \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "silent: the mapping lives until the process ends",                                                \
	  "close every mapping when done with it (hipIpcCloseMemHandle)")                                    \
	C(IPC_LEAK, PW_V_ACL,                                                                                \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (the memory sharing flow, process B)",        \
	  "Call aclrtIpcMemClose to disable IPC-based memory sharing.",                                      \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "not measured on Ascend devices: the mapping lives until the process ends, and the exporter "      \
	  "cannot know when it may close the key",                                                           \
	  "call aclrtIpcMemClose with the key once per successful aclrtIpcMemImportByKey")                   \
	C(IPC_ACL_IMPORT_PID, PW_V_ACL,                                                                      \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (the memory sharing flow, process A)",        \
	  "Call aclrtIpcMemGetExportKey to specify whether to enable process trustlist verification. If "    \
	  "the verification is enabled, call aclrtIpcMemSetImportPid separately to add the ID of process "   \
	  "B to the trustlist.",                                                                             \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "not measured on Ascend devices; the simulated runtime refuses the import with "                   \
	  "ACL_ERROR_RT_NO_PERMISSION (207006)",                                                             \
	  "in the exporter, call aclrtIpcMemSetImportPid with the id aclrtDeviceGetBareTgid gave the "       \
	  "importer before it imports, or export with ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION")    \
	C(IPC_ACL_KEY_LENGTH, PW_V_ACL,                                                                      \
	  "CANN AscendCL, Runtime API, aclrtIpcMemGetExportKey (len; the sentence is the Chinese "           \
	  "page's, in English: the key's length, fixed at 65; the English page's parameter table was "       \
	  "not read)",                                                                                       \
	  "key的长度，固定配置为65。",                                                                       \
	  "https://www.hiascend.com/document/detail/zh/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "not measured on Ascend devices; hicann/runtime's API layer refuses only a len of 0 "              \
	  "(ACL_ERROR_RT_PARAM_INVALID, 107000), what the layers below it do with another len was not "      \
	  "read; the simulated runtime refuses every len but 65 with ACL_ERROR_RT_PARAM_INVALID",            \
	  "give the key a buffer of 65 bytes and pass len 65")                                               \
	C(IPC_EVENT_FLAGS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetEventHandle",             \
	  "This event must have been created with the CU_EVENT_INTERPROCESS and "                            \
	  "CU_EVENT_DISABLE_TIMING flags set.",                                                              \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_HANDLE (400) without the interprocess flag (H100)",                   \
	  "create the event with both flags (CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING; "              \
	  "cudaEventInterprocess | cudaEventDisableTiming)")                                                 \
	C(IPC_EVENT_FLAGS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetEventHandle",             \
	  "Event allocated with hipEventInterprocess and hipEventDisableTiming flags",                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "not measured on AMD GPUs; the errors it documents are hipErrorInvalidConfiguration and "          \
	  "hipErrorInvalidValue",                                                                            \
	  "create the event with both flags (hipEventInterprocess | hipEventDisableTiming)")                 \
	C(IPC_EVENT_SAME_PROCESS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenEventHandle",     \
	  "Opens an interprocess event handle exported from another process with cuIpcGetEventHandle.",      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_CONTEXT (201) (H100)", "use the event you already have")              \
	C(IPC_EVENT_SAME_PROCESS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenEventHandle",     \
	  "If the function is called within the same process where handle is returned by "                   \
	  "hipIpcGetEventHandle, it will return hipErrorInvalidContext.",                                    \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "rejects: hipErrorInvalidContext (201)", "use the event you already have")                         \
	C(IPC_EVENT_LEAK, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenEventHandle",             \
	  "This event must be freed with cuEventDestroy.",                                                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "silent: the event lives until the process ends",                                                  \
	  "cuEventDestroy (cudaEventDestroy) every imported event when done with it")                        \
	C(IPC_EVENT_LEAK, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenEventHandle",             \
	  "This event need be freed with hipEventDestroy.",                                                  \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "silent: the event lives until the process ends",                                                  \
	  "hipEventDestroy every imported event when done with it")                                          \
	C(IPC_EVENT_DESTROY_WHILE_OPEN, PW_V_CUDA,                                                           \
	  "CUDA Driver API, Memory Management, cuIpcGetEventHandle",                                         \
	  "Performing operations on the imported event after the exported event has been freed with "        \
	  "cuEventDestroy will result in undefined behavior.",                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "not measured: undefined behaviour once the importer uses it",                                     \
	  "destroy the exported event only after every importer destroyed its copy (a barrier)")             \
	C(IPC_EVENT_DESTROY_WHILE_OPEN, PW_V_HIP,                                                            \
	  "HIP Runtime API, Device Management, hipIpcGetEventHandle",                                        \
	  "Operations on the imported event after the exported event has been freed with "                   \
	  "hipEventDestroy will result in undefined behavior.",                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html",               \
	  "not measured: undefined behaviour once the importer uses it",                                     \
	  "hipEventDestroy the exported event only after every importer destroyed its copy (a barrier)")     \
	C(MANAGED_ALLOC_SIZE_ZERO, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemAllocManaged",       \
	  "If bytesize is 0, cuMemAllocManaged returns CUDA_ERROR_INVALID_VALUE.",                           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "cudaMallocManaged: success, no memory behind the pointer; cuMemAllocManaged: "                    \
	  "CUDA_ERROR_INVALID_VALUE (1) (H200)",                                                             \
	  "skip the allocation, or allocate at least one page")                                              \
	C(MANAGED_ALLOC_SIZE_ZERO, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",            \
	  "size - requested allocation size in bytes",                                                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) in the simulated runtime; not measured on AMD GPUs",            \
	  "skip the allocation, or allocate at least one page")                                              \
	C(MANAGED_ALLOC_GRANULARITY, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",          \
	  "size - requested allocation size in bytes, it should be granularity of 4KB",                      \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "silent", "round the size up to 4 KiB")                                                            \
	C(MANAGED_ALLOC_FLAGS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemAllocManaged",           \
	  "flags - Must be one of CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST",                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",                              \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (0 and CU_MEM_ATTACH_SINGLE too)",                          \
	  "pass CU_MEM_ATTACH_GLOBAL (cudaMemAttachGlobal)")                                                 \
	C(MANAGED_ALLOC_FLAGS, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",                \
	  "flags - must be either hipMemAttachGlobal or hipMemAttachHost",                                   \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1)", "pass hipMemAttachGlobal")                                    \
	C(MANAGED_ADVISE_NOT_MANAGED, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",         \
	  "The memory range must refer to managed memory allocated via cuMemAllocManaged or declared "       \
	  "via __managed__ variables. The memory range could also refer to system-allocated pageable "       \
	  "memory provided it represents a valid, host-accessible region of memory and all additional "      \
	  "constraints imposed by advice as outlined below are also satisfied.",                             \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for device, pool and freed memory, and for malloc'd "       \
	  "memory where the devices report no pageable memory access (H100, driver 580: attribute 0)",       \
	  "advise only memory from cuMemAllocManaged / cudaMallocManaged (system memory only on "            \
	  "HMM/ATS systems, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS 1)")                                  \
	C(MANAGED_ADVISE_NOT_MANAGED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise",             \
	  "The memory range must refer to managed memory allocated via the API hipMallocManaged",            \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1)", "advise only memory from hipMallocManaged")                   \
	C(MANAGED_ADVISE_UNALIGNED, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",           \
	  "The start address and end address of the memory range will be rounded down and rounded up "       \
	  "respectively to be aligned to CPU page size before the advice is applied.",                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "silent: the advice applies to the whole pages around the range",                                  \
	  "align the start down and the end up to the page size, knowing the advice covers those pages")     \
	C(MANAGED_ADVISE_UNALIGNED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise (count)",       \
	  "size in bytes of the memory range, it should be CPU page size alligned.",                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "silent: the runtime rounds the range out to whole pages, so the advice covers them",              \
	  "align the start down and the end up to the page size, knowing the advice covers those pages")     \
	C(MANAGED_ADVISE_OUT_OF_RANGE, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",        \
	  "Advise the Unified Memory subsystem about the usage pattern for the memory range starting "       \
	  "at devPtr with a size of count bytes.",                                                           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for count 0, a range past the end, and a range over "       \
	  "two contiguous managed allocations (H100, driver 580)",                                           \
	  "advise each allocation on its own, at most the bytes left in it")                                 \
	C(MANAGED_ADVISE_OUT_OF_RANGE, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise",            \
	  "in the range starting from the pointer address devPtr, with the size of count bytes. The "        \
	  "memory range must refer to managed memory allocated via the API hipMallocManaged",                \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) when count exceeds what is left of the allocation at "          \
	  "dev_ptr (clr)",                                                                                   \
	  "advise each allocation on its own, at most the bytes left in it")                                 \
	C(MANAGED_ADVISE_INVALID, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",             \
	  "The advice parameter can take the following values ... If CUmemLocation::type is a "              \
	  "CU_MEM_LOCATION_TYPE_DEVICE, then CUmemLocation::id must be a valid device ordinal",              \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (advice 99; {device, -1} and device 9 on H100 and "         \
	  "H200)",                                                                                           \
	  "use a defined advice and a valid device; in a location the host is {host, 0}")                    \
	C(MANAGED_ADVISE_INVALID, PW_V_HIP,                                                                  \
	  "HIP Runtime API, Managed Memory, hipMemAdvise (advice, device)",                                  \
	  "advice to be applied for the specified memory range ... device to apply the advice for",          \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidDevice (101) for a device the process does not have, "                    \
	  "hipErrorInvalidValue (1) for an undefined advice",                                                \
	  "use a defined hipMemoryAdvise value and a valid device (hipCpuDeviceId for the host)")            \
	C(MANAGED_ADVISE_LOCATION, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",            \
	  "The CUmemLocation::type must be either CU_MEM_LOCATION_TYPE_DEVICE with CUmemLocation::id "       \
	  "representing a valid device ordinal or CU_MEM_LOCATION_TYPE_HOST and CUmemLocation::id will "     \
	  "be ignored. All other location types are invalid.",                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (type invalid for set-preferred-location, {host_numa, "     \
	  "0} for set-accessed-by: H100, driver 580)",                                                       \
	  "a device or {host, 0} for accessed-by; for the preferred location a device, the host or an "      \
	  "online NUMA node")                                                                                \
	C(MANAGED_ADVISE_LOCATION, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise_v2 (location)",  \
	  "location to apply the advice for",                                                                \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) for hipMemLocationTypeInvalid (clr)",                           \
	  "name a device or the host in the hipMemLocation")                                                 \
	C(MANAGED_PREFETCH_NOT_MANAGED, PW_V_CUDA,                                                           \
	  "CUDA Runtime API, Memory Management, cudaMemPrefetchAsync",                                       \
	  "The memory range must refer to managed memory allocated via cudaMallocManaged or declared "       \
	  "via __managed__ variables, or it may also refer to system-allocated memory on systems with "      \
	  "non-zero cudaDevAttrPageableMemoryAccess.",                                                       \
	  "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__MEMORY.html",                        \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for device, pool and freed memory, and for malloc'd "       \
	  "memory where the devices report no pageable memory access (H100, driver 580: attribute 0)",       \
	  "prefetch only managed memory (system memory only on HMM/ATS systems); copy device memory "        \
	  "instead")                                                                                         \
	C(MANAGED_PREFETCH_NOT_MANAGED, PW_V_HIP,                                                            \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync (dev_ptr; the runtime, clr, refuses "        \
	  "memory it did not allocate, for a device, without pageable memory access)",                       \
	  "pointer to be prefetched",                                                                        \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) (clr)",                                                         \
	  "prefetch only memory from hipMallocManaged; copy device memory instead")                          \
	C(MANAGED_PREFETCH_INVALID_DEVICE, PW_V_CUDA,                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",                                         \
	  "Specifying CU_MEM_LOCATION_TYPE_DEVICE for CUmemLocation::type will prefetch memory to GPU "      \
	  "specified by device ordinal CUmemLocation::id",                                                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_DEVICE (101) ({device, -1} and device 9: H100, H200)",                \
	  "prefetch to a valid device, or to the host: {host, 0} in a location, CU_DEVICE_CPU "              \
	  "(cudaCpuDeviceId) as a plain device number")                                                      \
	C(MANAGED_PREFETCH_INVALID_DEVICE, PW_V_HIP,                                                         \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync (device)",                                   \
	  "destination device to prefetch to",                                                               \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidDevice (101)",                                                            \
	  "prefetch to a valid device, or to the host: hipCpuDeviceId as a plain device number")             \
	C(MANAGED_PREFETCH_LOCATION, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",   \
	  "Applications can request prefetching memory to a specific host NUMA node by specifying "          \
	  "CU_MEM_LOCATION_TYPE_HOST_NUMA for CUmemLocation::type and a valid host NUMA node id in "         \
	  "CUmemLocation::id",                                                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for type invalid (H100, driver 580)",                       \
	  "prefetch to {device, N}, {host, 0}, {host_numa_current, 0} or an online {host_numa, N}")          \
	C(MANAGED_PREFETCH_LOCATION, PW_V_HIP,                                                               \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync_v2 (location)",                              \
	  "destination location to prefetch to",                                                             \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) (clr)", "prefetch to a hipMemLocation of a device or the host") \
	C(MANAGED_PREFETCH_FLAGS, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",      \
	  "flags - flags for future use, must be zero now.",                                                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (flags 1: H100, driver 580)", "pass 0")                     \
	C(MANAGED_PREFETCH_FLAGS, PW_V_HIP,                                                                  \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync_v2 (ROCm 7.1) and hipMemPrefetchBatchAsync " \
	  "(ROCm 7.2) (flags)",                                                                              \
	  "flags for future use, must be zero now.",                                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) (hipMemPrefetchAsync_v2; hipMemPrefetchBatchAsync not "         \
	  "measured, the simulated runtime rejects it the same)",                                            \
	  "pass 0")                                                                                          \
	C(MANAGED_PREFETCH_OUT_OF_RANGE, PW_V_CUDA,                                                          \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",                                         \
	  "count specifies the number of bytes to copy ... The memory range must refer to managed "          \
	  "memory allocated via cuMemAllocManaged",                                                          \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for count 0, a range past the end, and a range over "       \
	  "two contiguous managed allocations (H100, driver 580)",                                           \
	  "prefetch each allocation on its own, between 1 and the bytes left in it")                         \
	C(MANAGED_PREFETCH_OUT_OF_RANGE, PW_V_HIP,                                                           \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync (count)", "size in bytes for prefetching",   \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1) (clr)",                                                         \
	  "prefetch each allocation on its own, between 1 and the bytes left in it")                         \
	C(MANAGED_RANGE_ATTR_DATA_SIZE, PW_V_CUDA,                                                           \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute (read-mostly and preferred "          \
	  "location; accessed-by)",                                                                          \
	  "data will be interpreted as a 32-bit integer, and dataSize must be 4 ... data will be "           \
	  "interpreted as an array of 32-bit integers, and dataSize must be a non-zero multiple of 4",       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)", "pass 4 (an int), or a multiple of 4 for accessed-by")    \
	C(MANAGED_RANGE_ATTR_DATA_SIZE, PW_V_HIP,                                                            \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute (data_size)", "the size of data",        \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1)",                                                               \
	  "pass the size the attribute has: 4 (an int), a multiple of 4 for accessed-by")                    \
	C(MANAGED_RANGE_ATTR_INVALID, PW_V_CUDA,                                                             \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute(s)",                                  \
	  "The attribute parameter can take the following values ... data - A pointers to a memory "         \
	  "location where the result of each attribute query will be written to ... numAttributes - "        \
	  "Number of attributes to query",                                                                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (attribute 9 with 4 bytes: H100, driver 580)",              \
	  "ask for a defined attribute, with a buffer for each")                                             \
	C(MANAGED_RANGE_ATTR_INVALID, PW_V_HIP,                                                              \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s) (attribute)",                         \
	  "the attribute to query",                                                                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1)",                                                               \
	  "ask for a defined hipMemRangeAttribute, with a buffer for each")                                  \
	C(MANAGED_RANGE_ATTR_NOT_MANAGED, PW_V_CUDA,                                                         \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute(s)",                                  \
	  "The memory range must refer to managed memory allocated via cuMemAllocManaged or declared "       \
	  "via __managed__ variables.",                                                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1)",                                                           \
	  "query only memory from cuMemAllocManaged (cudaMallocManaged)")                                    \
	C(MANAGED_RANGE_ATTR_NOT_MANAGED, PW_V_HIP,                                                          \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s) (dev_ptr; the runtime, clr, "         \
	  "refuses memory that is not hipMallocManaged memory)",                                             \
	  "start of the range to query",                                                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1)", "query only memory from hipMallocManaged")                    \
	C(MANAGED_RANGE_ATTR_OUT_OF_RANGE, PW_V_CUDA,                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute",                                     \
	  "Query an attribute about the memory range starting at devPtr with a size of count bytes. "        \
	  "The memory range must refer to managed memory allocated via cuMemAllocManaged",                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html",                          \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (count 0: H100, driver 580)",                               \
	  "query between 1 and the bytes left in the allocation")                                            \
	C(MANAGED_RANGE_ATTR_OUT_OF_RANGE, PW_V_HIP,                                                         \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute (count)", "size of the range to query",  \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "rejects: hipErrorInvalidValue (1)", "query between 1 and the bytes left in the allocation")       \
	C(MANAGED_ATTACH_LENGTH, PW_V_CUDA, "CUDA Driver API, Stream Management, cuStreamAttachMemAsync",    \
	  "For managed allocations, length must be either zero or the entire allocation's size. ... "        \
	  "For pageable host allocations, length must be non-zero.",                                         \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html",                           \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (4096 of 65536 bytes: H200)",                               \
	  "pass 0 (the whole allocation); for pageable memory the length of the range")                      \
	C(MANAGED_ATTACH_FLAGS, PW_V_CUDA, "CUDA Driver API, Stream Management, cuStreamAttachMemAsync",     \
	  "flags - Must be one of CUmemAttach_flags ... It is illegal to attach singly to the NULL "         \
	  "stream, because the NULL stream is a virtual global stream and not a specific stream.",           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html",                           \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (attach-single on the legacy NULL stream: H100; on "        \
	  "cudaStreamPerThread it succeeds)",                                                                \
	  "pass one of the attach flags; attach-single needs a specific stream (cudaStreamPerThread is "     \
	  "one)")                                                                                            \
	C(MANAGED_ATTACH_FLAGS, PW_V_HIP, "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync",        \
	  "flags - must be one of hipMemAttachGlobal, hipMemAttachHost or hipMemAttachSingle",               \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "success: ROCm 5 to 7 do nothing in hipStreamAttachMemAsync",                                      \
	  "pass one of hipMemAttachGlobal, hipMemAttachHost, hipMemAttachSingle")                            \
	C(MANAGED_ATTACH_NOT_MANAGED, PW_V_CUDA,                                                             \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync",                                      \
	  "dptr must point to one of the following types of memories: managed memory ... a valid "           \
	  "host-accessible region of system-allocated pageable memory. This type of memory may only be "     \
	  "specified if the device associated with the stream reports a non-zero value for the device "      \
	  "attribute CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS.",                                           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html",                           \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) for cudaMalloc memory and for malloc'd memory without "     \
	  "pageable memory access (H100, driver 580)",                                                       \
	  "attach only managed memory (system memory only on HMM/ATS systems)")                              \
	C(MANAGED_ATTACH_NOT_MANAGED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync",  \
	  "dev_ptr - pointer to memory (must be a pointer to managed memory or to a valid "                  \
	  "host-accessible region of system-allocated memory)",                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "success: ROCm 5 to 7 do nothing in hipStreamAttachMemAsync",                                      \
	  "attach only memory from hipMallocManaged (or system memory the device can access)")               \
	C(MANAGED_ATTACH_PORTABILITY, PW_V_HIP,                                                              \
	  "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync (no condition on either; CUDA "          \
	  "requires a length of 0 or the whole allocation, and no attach-single on the NULL stream)",        \
	  "length - length of memory (defaults to zero) ... flags - must be one of hipMemAttachGlobal, "     \
	  "hipMemAttachHost or hipMemAttachSingle (defaults to hipMemAttachSingle)",                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/docs-develop/doxygen/html/group___memory_m.html",       \
	  "success on ROCm 5 to 7 (a no-op; the development runtime, clr's hip_hmm.cpp, now refuses "        \
	  "both with hipErrorInvalidValue); CUDA refuses the same call",                                     \
	  "attach the whole allocation (length 0) to a specific stream, as CUDA requires")                   \
	C(VMM_EXPORT_HANDLE_TYPE, PW_V_CUDA,                                                                 \
	  "CUDA Driver API, Virtual Memory Management, cuMemExportToShareableHandle (the type must be "      \
	  "one CUmemAllocationProp::requestedHandleTypes named at cuMemCreate)",                             \
	  "handleType - Type of shareable handle requested (defines type and size of the "                   \
	  "shareableHandle output parameter)",                                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html",                               \
	  "rejects: CUDA_ERROR_INVALID_VALUE (1) (H200, driver 580: fabric export of a posix_fd "            \
	  "allocation, posix_fd export of one created for none)",                                            \
	  "name the type in CUmemAllocationProp::requestedHandleTypes at cuMemCreate (NCCL: posix_fd, "      \
	  "or fabric on NVSwitch systems)")                                                                  \
	C(VMM_IMPORT_RELEASED, PW_V_CUDA, "CUDA Driver API, Virtual Memory Management, cuMemRelease",        \
	  "The memory allocation will be freed when all outstanding mappings to the memory are "             \
	  "unmapped and when all outstanding references to the handle (including it's shareable "            \
	  "counterparts) are also released.",                                                                \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html",                               \
	  "silent: the fd keeps the memory, the import and map succeed and read the bytes (H200); the "      \
	  "real driver's fds are all /dev/nvidiactl, which names no allocation, so the check runs only "     \
	  "where the fd is the allocation's own file (the simulator), never guessing on GPUs",               \
	  "release in the exporter only after every importer has imported (and mapped) it")                  \
	C(VMM_IMPORT_RELEASED, PW_V_ACL,                                                                     \
	  "CANN AscendCL, Runtime API, Memory Management, aclrtMemImportFromShareableHandle "                \
	  "(Restrictions)",                                                                                  \
	  "Before calling this API, ensure that the physical memory to be shared exists and cannot be "      \
	  "released in advance.",                                                                            \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0121.html",                                                                         \
	  "not measured on Ascend devices; the simulated runtime refuses the import with "                   \
	  "ACL_ERROR_RT_PARAM_INVALID (107000) after the exporter's aclrtFreePhysical",                      \
	  "call aclrtFreePhysical in the exporter only after every importer has called "                     \
	  "aclrtMemImportFromShareableHandle (say so over the channel the shareable handle went by)")        \
	C(VMM_ACL_SAME_PROCESS, PW_V_ACL,                                                                    \
	  "CANN AscendCL, Runtime API, Memory Management, aclrtMemImportFromShareableHandle "                \
	  "(Restrictions)",                                                                                  \
	  "The aclrtMemImportFromShareableHandle and aclrtMemExportToShareableHandle APIs cannot be "        \
	  "called in the same process. Only cross-process calling is supported.",                            \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0121.html",                                                                         \
	  "not measured on Ascend devices; the simulated runtime refuses the import with "                   \
	  "ACL_ERROR_RT_PARAM_INVALID (107000)",                                                             \
	  "within one process, map the handle aclrtMallocPhysical returned again (aclrtMapMem); import "     \
	  "the shareable handle only in another process")                                                    \
	C(VMM_ACL_ONE_TO_ONE, PW_V_ACL,                                                                      \
	  "CANN AscendCL, Runtime API, Memory Management, aclrtMemImportFromShareableHandle "                \
	  "(Restrictions)",                                                                                  \
	  "There is a one-to-one mapping between handles and shareableHandles. In the same process, "        \
	  "one-to-many or many-to-one mapping is not allowed. Otherwise, an error is reported. For "         \
	  "example, if this API is repeatedly called to import data, an error is reported.",                 \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0121.html",                                                                         \
	  "reports an error, the page says (code not given; not measured on Ascend devices); the "           \
	  "simulated runtime refuses with ACL_ERROR_RT_PARAM_INVALID (107000)",                              \
	  "import a shareable handle once per process and map the handle it gave as often as needed; "       \
	  "export a physical allocation's handle once and hand the same shareable handle to every importer") \
	C(VMM_ACL_IMPORT_PID, PW_V_ACL,                                                                      \
	  "CANN AscendCL, Runtime API, Memory Management, aclrtMemSetPidToShareableHandle (Description)",    \
	  "Only the processes configured with the trustlist can use shareableHandle exported by "            \
	  "aclrtMemExportToShareableHandle.",                                                                \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0120.html",                                                                         \
	  "not measured on Ascend devices; the simulated runtime refuses the import with "                   \
	  "ACL_ERROR_RT_NO_PERMISSION (207006)",                                                             \
	  "in the exporter, call aclrtMemSetPidToShareableHandle with the id aclrtDeviceGetBareTgid gave "   \
	  "the importer before it imports, or export with "                                                  \
	  "ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION")                                                   \
	C(VMM_COPY_NO_ACCESS, PW_V_CUDA, "CUDA Driver API, Virtual Memory Management, cuMemMap",             \
	  "calling cuMemMap does not make the address accessible, the caller needs to update "               \
	  "accessibility of a contiguous mapped VA range by calling cuMemSetAccess.",                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html",                               \
	  "cuMemcpyPeer: silent, the copy happens (H200: device 1 into a device-0 mapping only device "      \
	  "0 may access); cuMemcpyDtoD issued in device 1's context: CUDA_ERROR_INVALID_VALUE (1); "         \
	  "kernels fault",                                                                                   \
	  "cuMemSetAccess the range for every device that reads or writes it (readwrite for a "              \
	  "destination)")                                                                                    \
	C(VMM_LEAK, PW_V_CUDA, "CUDA Driver API, Virtual Memory Management, cuMemUnmap",                     \
	  "Any backing memory allocations will be freed if there are no existing mappings and there "        \
	  "are no unreleased memory handles.",                                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html",                               \
	  "silent: the mapping and its memory live until the process ends",                                  \
	  "cuMemUnmap every mapping (then cuMemRelease and cuMemAddressFree) when done with it")             \
	C(POOL_FLAGS, PW_V_HIP,                                                                              \
	  "HIP Runtime API, Stream Ordered Memory Allocator, hipMemPoolExportToShareableHandle and "         \
	  "hipMemPoolImportFromShareableHandle (parameter flags)",                                           \
	  "[in] flags Must be 0",                                                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/.doxygen/docBin/html/group___stream_o.html",     \
	  "rejects: hipErrorInvalidValue (1) from both (clr hip_mempool.cpp), no handle written and no "     \
	  "pool imported",                                                                                   \
	  "pass 0 as flags: the handle type alone says what the OS handle is")                               \
	C(POOL_IMPORTED_ALLOC, PW_V_HIP,                                                                     \
	  "HIP Runtime API, Stream Ordered Memory Allocator, hipMemPoolImportFromShareableHandle",           \
	  "Imported memory pools do not support creating new allocations. As such imported memory pools "    \
	  "may not be used in hipDeviceSetMemPool or hipMallocFromPoolAsync calls.",                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/.doxygen/docBin/html/group___stream_o.html",     \
	  "not measured: clr's hipMallocFromPoolAsync does not ask whether the pool was imported "           \
	  "(hip_mempool.cpp), so what the allocation is depends on the runtime's version",                   \
	  "allocate in the exporting process and share each allocation with hipMemPoolExportPointer and "    \
	  "hipMemPoolImportPointer; allocate here from a pool this process created (hipMemPoolCreate)")      \
	C(PEER_QUERY_SELF, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtDeviceCanAccessPeer",                 \
	  "deviceId: ID of the specified device, which must be different from peerDeviceId.",                \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0051.html",                                                                         \
	  "rejects: ACL_ERROR_INVALID_PARAM (100000)",                                                       \
	  "query pairs of two different devices; a device always reaches its own memory")                    \
	C(PEER_QUERY_NULL, PW_V_HIP,                                                                         \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer",                        \
	  "canAccessPeer[out] - Returns the peer access capability (0 or 1)",                                \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html",         \
	  "rejects: HIP hipErrorInvalidValue (clr hip_peer.cpp), nothing written",                           \
	  "pass the address of an int for the answer")                                                       \
	C(PEER_ENABLE_NO_DEVICE, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess",        \
	  "Enables data exchange between the current device and a specified device.",                        \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0052.html",                                                                         \
	  "rejects: ACL 107002 ACL_ERROR_RT_CONTEXT_NULL (no current device)",                               \
	  "call aclrtSetDevice with the device to enable from, then enable")                                 \
	C(PEER_DISABLE_SELF, PW_V_ACL,                                                                       \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess (peerDeviceId; "                          \
	  "aclrtDeviceDisablePeerAccess takes it alike)",                                                    \
	  "peerDeviceId: Device ID, which must be different from the current device ID.",                    \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0052.html",                                                                         \
	  "rejects: ACL_ERROR_INVALID_PARAM (100000)",                                                       \
	  "a device always reaches its own memory: disable only a peer that was enabled")                    \
	C(COPY_PEER_HOST, PW_V_HIP,                                                                          \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync",             \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html",         \
	  "not measured on AMD GPUs: the document names device pointers only",                               \
	  "copy between host and device with hipMemcpy (hipMemcpyHostToDevice, hipMemcpyDeviceToHost), not " \
	  "a peer copy")                                                                                     \
	C(COPY_PEER_FREED, PW_V_HIP,                                                                         \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync (after "      \
	  "hipFree)",                                                                                        \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html",         \
	  "not measured on AMD GPUs: hipFree ended the allocation the pointer named",                        \
	  "copy before hipFree, and free only after the copies that read or write the memory")               \
	C(COPY_PEER_FREED, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (copy, then free)",          \
	  "ret = acl.rt.memcpy(dev1_mem, size, dev0_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE) ... ret = "      \
	  "acl.rt.free(dev1_mem)",                                                                           \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/appdevg/acldevg/"                  \
	  "aclpythondevg_0100.html",                                                                         \
	  "rejects: ACL_ERROR_INVALID_PARAM (100000) (the simulated runtime; not measured on Ascend)",       \
	  "copy before aclrtFree, and free only after the copies that read or write the memory")             \
	C(COPY_PEER_MANAGED, PW_V_HIP,                                                                       \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync",             \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html",         \
	  "not measured: clr copies it as a device-to-device copy on the null stream",                       \
	  "copy managed memory with hipMemcpy (hipMemcpyDefault), or prefetch it (hipMemPrefetchAsync)")     \
	C(COPY_ACL_DEST_MAX, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtMemcpyAsync (and aclrtMemcpy)",     \
	  "destMax: Memory size in bytes in the destination address. count: Size in bytes to copy.",         \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0106.html",                                                                         \
	  "count > destMax: rejects (the simulator: ACL_ERROR_INVALID_PARAM); destMax past the "             \
	  "destination's allocation: not measured, the runtime trusts destMax",                              \
	  "pass as destMax the bytes left in the destination from dst, and copy at most that")               \
	C(COPY_ACL_KIND_UNDEFINED, PW_V_ACL,                                                                 \
	  "CANN AscendCL, Runtime API, aclrtMemcpyAsync (and aclrtMemcpy)",                                  \
	  "kind: Memory copy kind. typedef enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_HOST, "                 \
	  "ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE, "              \
	  "ACL_MEMCPY_DEFAULT, } aclrtMemcpyKind;",                                                          \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0106.html",                                                                         \
	  "rejects (the simulator: ACL_ERROR_INVALID_PARAM); not measured on Ascend",                        \
	  "pass one of the aclrtMemcpyKind values (ACL_MEMCPY_DEFAULT lets the runtime tell)")               \
	C(COPY_ACL_ASYNC_HOST_TO_HOST, PW_V_ACL,                                                             \
	  "CANN AscendCL, Runtime API, aclrtMemcpyAsync, Restrictions",                                      \
	  "This API does not support asynchronous memory copy within the host. If the input kind is "        \
	  "ACL_MEMCPY_HOST_TO_HOST, the API returns the error message "                                      \
	  "\"ACL_ERROR_RT_FEATURE_NOT_SUPPORT\".",                                                           \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0106.html",                                                                         \
	  "rejects: ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000)",                                              \
	  "copy within the host with memcpy, or with aclrtMemcpy")                                           \
	C(COPY_ACL_ASYNC_PAGEABLE, PW_V_ACL,                                                                 \
	  "CANN AscendCL (CANN 8.0.0 commercial), Runtime API, aclrtMemcpyAsync, Restrictions",              \
	  "If the value of kind passed by this API is ACL_MEMCPY_HOST_TO_DEVICE or "                         \
	  "ACL_MEMCPY_DEVICE_TO_HOST and the host memory is not allocated by aclrtMallocHost, this API "     \
	  "does not report an error, but an unpredictable error may occur when the task is executed.",       \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0106.html",                                                                         \
	  "CANN 8.0: no error, \"an unpredictable error may occur when the task is executed\"; CANN 8.5: "   \
	  "the call returns only after the copy is complete",                                                \
	  "allocate the host side with aclrtMallocHost (page-locked), or use aclrtMemcpy")                   \
	C(COPY_ACL_IPC_DIRECTION, PW_V_ACL,                                                                  \
	  "CANN AscendCL (CANN 8.2.RC1), Runtime API, aclrtIpcMemGetExportKey (Restrictions; the "           \
	  "sentence is the Chinese page's, in English: when a process on device 1 uses memory a process "    \
	  "on device 0 shared by IPC, a copy's direction is not determined from the source and "             \
	  "destination pointers)",                                                                           \
	  "内存复制时，不支持根据源内存地址指针、目的内存地址指针自动判断复制方向。",                        \
	  "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1/API/appdevgapi/"           \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "not measured on Ascend devices (the page gives no code); the simulated runtime refuses the copy " \
	  "with ACL_ERROR_INVALID_PARAM (100000)",                                                           \
	  "name the direction: ACL_MEMCPY_DEVICE_TO_DEVICE for a copy between the shared memory and "        \
	  "device memory")                                                                                   \
	C(COPY_ACL_IPC_HOST, PW_V_ACL,                                                                       \
	  "CANN AscendCL (CANN 8.2.RC1), Runtime API, aclrtIpcMemGetExportKey (Restrictions; the "           \
	  "sentence is the Chinese page's, in English: host-to-device and device-to-host copies of the "     \
	  "shared address are not supported, synchronous or asynchronous)",                                  \
	  "不支持Host->Device或Device->Host方向的内存复制操作，同步复制、异步复制都不支持；",                \
	  "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1/API/appdevgapi/"           \
	  "aclcppdevg_03_1934.html",                                                                         \
	  "not measured on Ascend devices (the page gives no code); the simulated runtime refuses the copy " \
	  "with ACL_ERROR_INVALID_PARAM (100000)",                                                           \
	  "copy the shared memory into device memory of this process's device first "                        \
	  "(ACL_MEMCPY_DEVICE_TO_DEVICE), then between that and the host")                                   \
	C(MANAGED_ALLOC_UNQUERIED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",            \
	  "It is recommend to do the capability check before call this API.",                                \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html",             \
	  "succeeds where the device has managed memory; hipErrorNotSupported where it has not",             \
	  "ask hipDeviceGetAttribute(&v, hipDeviceAttributeManagedMemory, device) first, and allocate "      \
	  "managed memory only where it says 1")                                                             \
	C(ERROR_STICKY, PW_V_CUDA, "CUDA Runtime API, Error Handling, cudaGetLastError",                     \
	  "Returns the last error that has been produced by any of the runtime calls in the same instance "  \
	  "of the CUDA Runtime library in the host thread and resets it to cudaSuccess.",                    \
	  "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__ERROR.html",                         \
	  "the error stays: a call that succeeds does not reset it, so cudaGetLastError and "                \
	  "cudaPeekAtLastError return it after any number of unrelated calls (a 704, "                       \
	  "cudaErrorPeerAccessAlreadyEnabled, of an enable the program meant to ignore, is the usual one)",  \
	  "handle the error where the named call returned it, then clear it with cudaGetLastError; an "      \
	  "error the program means to ignore (704 after peer access was enabled already) is cleared there "  \
	  "too")                                                                                             \
	C(ERROR_STICKY, PW_V_HIP, "HIP Runtime API, Error Handling, hipGetLastError",                        \
	  "Returns the last error that has been returned by any of the runtime calls in the same host "      \
	  "thread, and then resets the saved error to hipSuccess.",                                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/"              \
	  "error_handling.html",                                                                             \
	  "from ROCm 7 the error stays until hipGetLastError: a call that succeeds does not reset it, so "   \
	  "hipGetLastError and hipPeekAtLastError return it after unrelated calls (before ROCm 7 the last "  \
	  "call's result, which the next call replaces)",                                                    \
	  "handle the error where the named call returned it, then clear it with hipGetLastError; an error " \
	  "the program means to ignore (hipErrorPeerAccessAlreadyEnabled after peer access was enabled "     \
	  "already) is cleared there too")

#endif

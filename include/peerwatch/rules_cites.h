/*
 * Where the contract of each rule is written, per vendor (the catalog is
 * rules_table.h): the vendor's document, its section and function, the
 * sentence the rule enforces, quoted, and the public page that has it
 * ("" where none is known).  A rule has one row per vendor it applies to:
 * a report quotes the text of the finding's own vendor, never another's (an
 * ACL finding quotes ACL's document).
 *
 *   C(NAME, VENDOR, "document, section, function", "the sentence", "url")
 *
 * Sources: CUDA 13.0 cuda.h and cuda_runtime_api.h (the text of NVIDIA's
 * reference pages); HIP's hip_runtime_api.h (ROCm 5.2.3 to 7.x, the text of
 * AMD's reference pages); CANN AscendCL's Inter-Device Data Transfer
 * (pyACL) and acl_rt.h.
 */
#ifndef PEERWATCH_RULES_CITES_H
#define PEERWATCH_RULES_CITES_H

#include "peerwatch/rules_table.h"

#define PW_RULE_CITES(C)                                                                                     \
	C(PEER_ENABLE_SELF, PW_V_CUDA, "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess", \
	  "Returns CUDA_ERROR_INVALID_CONTEXT if there is no current context, peerContext is not a valid "   \
	  "context, or if the current context is peerContext.",                                              \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_ENABLE_SELF, PW_V_HIP,                                                                        \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer",                        \
	  "Returns \"0\" in canAccessPeer if deviceId == peerDeviceId, and both are valid devices : a "      \
	  "device is not a peer of itself.",                                                                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_ENABLE_SELF, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                           \
	  "use two acl.rt.device_enable_peer_access calls to enable data exchange: one for enabling data "   \
	  "exchange from device 0 to device 1, and the other for enabling data exchange from device 1 to "   \
	  "device 0",                                                                                        \
	  "")                                                                                                \
	C(PEER_ENABLE_FLAGS, PW_V_CUDA,                                                                      \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "Flags - Reserved for future use and must be set to 0",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_ENABLE_FLAGS, PW_V_HIP,                                                                       \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceEnablePeerAccess",                     \
	  "flags[in] - Reserved for future use, must be zero",                                               \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_ENABLE_FLAGS, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                          \
	  "ret = acl.rt.device_enable_peer_access(dev1, 0) (the flags argument is 0 in every call of the "   \
	  "document)",                                                                                       \
	  "")                                                                                                \
	C(PEER_ENABLE_UNSUPPORTED, PW_V_CUDA,                                                                \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "Returns CUDA_ERROR_PEER_ACCESS_UNSUPPORTED if cuDeviceCanAccessPeer() indicates that the "        \
	  "CUdevice of the current context cannot directly access memory from the CUdevice of peerContext.", \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_ENABLE_UNSUPPORTED, PW_V_HIP,                                                                 \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer",                        \
	  "Returns \"0\" if the specified deviceId is not capable of directly accessing memory physically "  \
	  "located on peerDeviceId",                                                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_ENABLE_UNSUPPORTED, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                    \
	  "Call acl.rt.device_can_access_peer to query whether data exchange between two devices is "        \
	  "supported. If data exchange is supported, use two acl.rt.device_enable_peer_access calls",        \
	  "")                                                                                                \
	C(PEER_ENABLE_TWICE, PW_V_CUDA,                                                                      \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "Returns CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED if direct access of peerContext from the current " \
	  "context has already been enabled.",                                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_ENABLE_TWICE, PW_V_HIP,                                                                       \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceEnablePeerAccess",                     \
	  "hipErrorPeerAccessAlreadyEnabled if peer access is already enabled for this device.",             \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_ENABLE_UNQUERIED, PW_V_CUDA,                                                                  \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceCanAccessPeer",                              \
	  "If direct access of peerDev from dev is possible, then access may be enabled on two specific "    \
	  "contexts by calling cuCtxEnablePeerAccess().",                                                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_ENABLE_UNQUERIED, PW_V_HIP,                                                                   \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer",                        \
	  "Returns \"1\" if the specified deviceId is capable of directly accessing memory physically "      \
	  "located on peerDeviceId",                                                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_ENABLE_UNQUERIED, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                      \
	  "Call acl.rt.device_can_access_peer to query whether data exchange between two devices is "        \
	  "supported. If data exchange is supported, use two acl.rt.device_enable_peer_access calls to "     \
	  "enable data exchange",                                                                            \
	  "")                                                                                                \
	C(PEER_ENABLE_ONE_DIRECTION, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                  \
	  "use two acl.rt.device_enable_peer_access calls to enable data exchange: one for enabling data "   \
	  "exchange from device 0 to device 1, and the other for enabling data exchange from device 1 to "   \
	  "device 0",                                                                                        \
	  "")                                                                                                \
	C(PEER_DISABLE_NOT_ENABLED, PW_V_CUDA,                                                               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxDisablePeerAccess",                             \
	  "Returns CUDA_ERROR_PEER_ACCESS_NOT_ENABLED if direct peer access has not yet been enabled from "  \
	  "peerContext to the current context.",                                                             \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_DISABLE_NOT_ENABLED, PW_V_HIP,                                                                \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceDisablePeerAccess",                    \
	  "If direct access to memory allocations on peer device has not been enabled yet from the current " \
	  "device, it returns hipErrorPeerAccessNotEnabled.",                                                \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_QUERY_SELF, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtDeviceCanAccessPeer",                 \
	  "deviceId: ID of the specified device, which must be different from peerDeviceId.",                \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0051.html")                                                                         \
	C(PEER_QUERY_NULL, PW_V_HIP,                                                                         \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer",                        \
	  "canAccessPeer[out] - Returns the peer access capability (0 or 1)",                                \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_ENABLE_NO_DEVICE, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess",        \
	  "Enables data exchange between the current device and a specified device.",                        \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0052.html")                                                                         \
	C(PEER_DISABLE_SELF, PW_V_ACL,                                                                       \
	  "CANN AscendCL, Runtime API, aclrtDeviceEnablePeerAccess (peerDeviceId; "                          \
	  "aclrtDeviceDisablePeerAccess takes it alike)",                                                    \
	  "peerDeviceId: Device ID, which must be different from the current device ID.",                    \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0052.html")                                                                         \
	C(PEER_LIMIT, PW_V_CUDA, "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",       \
	  "Returns CUDA_ERROR_TOO_MANY_PEERS if direct peer access is not possible because hardware "        \
	  "resources required for peer access have been exhausted.",                                         \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_LIMIT, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",                   \
	  "@returns hipSuccess, hipErrorMapFailed, hipErrorInvalidHandle, hipErrorTooManyPeers (the limit "  \
	  "HIP shares with CUDA: 8 peers per device)",                                                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(PEER_ATTR_SELF, PW_V_CUDA,                                                                         \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceGetP2PAttribute, "                           \
	  "cuDeviceGetP2PAtomicCapabilities",                                                                \
	  "Returns CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid or if they represent "  \
	  "the same device.",                                                                                \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_CONTEXT_INVALID, PW_V_CUDA,                                                                   \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxDisablePeerAccess (and cuCtxEnablePeerAccess)", \
	  "Returns CUDA_ERROR_INVALID_CONTEXT if there is no current context, or if peerContext is not a "   \
	  "valid context.",                                                                                  \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_INVALID_DEVICE, PW_V_CUDA,                                                                    \
	  "CUDA Driver API, Peer Context Memory Access, cuDeviceGetP2PAttribute (and the runtime's "         \
	  "cudaDeviceCanAccessPeer, cudaDeviceEnablePeerAccess, cudaMemcpyPeer)",                            \
	  "Returns CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid",                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(PEER_INVALID_DEVICE, PW_V_HIP,                                                                     \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceCanAccessPeer",                        \
	  "Returns hipErrorInvalidDevice if deviceId or peerDeviceId are not valid devices",                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(PEER_INVALID_DEVICE, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                        \
	  "dev0, dev1 = 0, 1 ... acl.rt.device_can_access_peer(dev0, dev1) (the devices of the machine, by " \
	  "their IDs)",                                                                                      \
	  "")                                                                                                \
	C(COPY_PEER_DEVICE_MISMATCH, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",          \
	  "dstDevice is the base device pointer of the destination memory and dstContext is the "            \
	  "destination context. srcDevice is the base device pointer of the source memory and srcContext "   \
	  "is the source pointer.",                                                                          \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(COPY_PEER_DEVICE_MISMATCH, PW_V_HIP,                                                               \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer",                                 \
	  "dst[out] - Destination device pointer; dstDeviceId[in] - Destination device; src[in] - Source "   \
	  "device pointer; srcDeviceId[in] - Source device",                                                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_PEER_OUT_OF_BOUNDS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",            \
	  "ByteCount - Size of memory copy in bytes",                                                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(COPY_PEER_OUT_OF_BOUNDS, PW_V_HIP,                                                                 \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer",                                 \
	  "sizeBytes[in] - Size of memory copy in bytes",                                                    \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_PEER_OUT_OF_BOUNDS, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                    \
	  "acl.rt.memcpy(dev0_mem, size, dev1_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE) with size the size "   \
	  "of both allocations",                                                                             \
	  "")                                                                                                \
	C(COPY_PEER_NULL, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",                     \
	  "dstDevice - Destination device pointer; srcDevice - Source device pointer",                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(COPY_PEER_NULL, PW_V_HIP, "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer",       \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_PEER_NULL, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                             \
	  "dev0_mem, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY_P2P) ... acl.rt.memcpy(dev0_mem, " \
	  "size, dev1_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE)",                                              \
	  "")                                                                                                \
	C(COPY_PEER_NO_PEER_ACCESS, PW_V_CUDA,                                                               \
	  "CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess",                              \
	  "on success all allocations from peerContext will immediately be accessible by the current "       \
	  "context.",                                                                                        \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html")                     \
	C(COPY_PEER_NO_PEER_ACCESS, PW_V_HIP,                                                                \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipDeviceEnablePeerAccess",                     \
	  "When this API is successful, all memory allocations on peer device will be mapped into the "      \
	  "address space of the current device.",                                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_PEER_HOST, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer",                     \
	  "Copies from device memory in one context to device memory in another context.",                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(COPY_PEER_HOST, PW_V_HIP,                                                                          \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync",             \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_PEER_FREED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemcpyPeer (after cuMemFree)",  \
	  "Copies from device memory in one context to device memory in another context.",                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(COPY_PEER_FREED, PW_V_HIP,                                                                         \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync (after "      \
	  "hipFree)",                                                                                        \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_PEER_FREED, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer (copy, then free)",          \
	  "ret = acl.rt.memcpy(dev1_mem, size, dev0_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE) ... ret = "      \
	  "acl.rt.free(dev1_mem)",                                                                           \
	  "")                                                                                                \
	C(COPY_PEER_CONTEXT_DESTROYED, PW_V_CUDA, "CUDA Driver API, Context Management, cuCtxDestroy",       \
	  "It is the caller's responsibility to ensure that the context or its resources are not accessed "  \
	  "or passed in subsequent API calls and doing so will result in undefined behavior.",               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html")                              \
	C(COPY_ACL_P2P_POLICY, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                        \
	  "ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5 # Allocate P2P memory.", "")                                   \
	C(COPY_ACL_KIND, PW_V_ACL, "CANN AscendCL, Inter-Device Data Transfer",                              \
	  "ACL_MEMCPY_DEVICE_TO_DEVICE = 3 # Data exchange within a device or between devices.", "")         \
	C(COPY_PEER_MANAGED, PW_V_HIP,                                                                       \
	  "HIP Runtime API, PeerToPeer Device Memory Access, hipMemcpyPeer, hipMemcpyPeerAsync",             \
	  "dst[out] - Destination device pointer; src[in] - Source device pointer",                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___peer_to_peer.html")         \
	C(COPY_ACL_DEST_MAX, PW_V_ACL, "CANN AscendCL, Runtime API, aclrtMemcpyAsync (and aclrtMemcpy)",     \
	  "destMax: Memory size in bytes in the destination address. count: Size in bytes to copy.",         \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0106.html")                                                                         \
	C(COPY_ACL_KIND_UNDEFINED, PW_V_ACL,                                                                 \
	  "CANN AscendCL, Runtime API, aclrtMemcpyAsync (and aclrtMemcpy)",                                  \
	  "kind: Memory copy kind. typedef enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_HOST, "                 \
	  "ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE, "              \
	  "ACL_MEMCPY_DEFAULT, } aclrtMemcpyKind;",                                                          \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0106.html")                                                                         \
	C(COPY_ACL_ASYNC_HOST_TO_HOST, PW_V_ACL,                                                             \
	  "CANN AscendCL, Runtime API, aclrtMemcpyAsync, Restrictions",                                      \
	  "This API does not support asynchronous memory copy within the host. If the input kind is "        \
	  "ACL_MEMCPY_HOST_TO_HOST, the API returns the error message "                                      \
	  "\"ACL_ERROR_RT_FEATURE_NOT_SUPPORT\".",                                                           \
	  "https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/"                   \
	  "aclcppdevg_03_0106.html")                                                                         \
	C(COPY_ACL_ASYNC_PAGEABLE, PW_V_ACL,                                                                 \
	  "CANN AscendCL (CANN 8.0.0 commercial), Runtime API, aclrtMemcpyAsync, Restrictions",              \
	  "If the value of kind passed by this API is ACL_MEMCPY_HOST_TO_DEVICE or "                         \
	  "ACL_MEMCPY_DEVICE_TO_HOST and the host memory is not allocated by aclrtMallocHost, this API "     \
	  "does not report an error, but an unpredictable error may occur when the task is executed.",       \
	  "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/"                \
	  "aclcppdevg_03_0106.html")                                                                         \
	C(IPC_EXPORT_INTERIOR_POINTER, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",   \
	  "Takes a pointer to the base of an existing device memory allocation created with cuMemAlloc and " \
	  "exports it for use in another process.",                                                          \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EXPORT_INTERIOR_POINTER, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",   \
	  "Takes a pointer to the base of an existing device memory allocation created with hipMalloc and "  \
	  "exports it for use in another process.",                                                          \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EXPORT_MANAGED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",            \
	  "an existing device memory allocation created with cuMemAlloc",                                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EXPORT_MANAGED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",            \
	  "an existing device memory allocation created with hipMalloc",                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EXPORT_HOST, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",               \
	  "dptr - Base pointer to previously allocated device memory",                                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EXPORT_HOST, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",               \
	  "devPtr - Base pointer to previously allocated device memory",                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EXPORT_FREED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",              \
	  "Takes a pointer to the base of an existing device memory allocation created with cuMemAlloc",     \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EXPORT_FREED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetMemHandle",              \
	  "Takes a pointer to the base of an existing device memory allocation created with hipMalloc",      \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EXPORT_POOL_OR_VMM, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetMemHandle",        \
	  "Takes a pointer to the base of an existing device memory allocation created with cuMemAlloc "     \
	  "(pool memory is shared with cuMemPoolExportPointer, virtual memory with "                         \
	  "cuMemExportToShareableHandle)",                                                                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_SAME_PROCESS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",        \
	  "Opens an interprocess memory handle exported from another process and returns a device pointer "  \
	  "usable in the local process.",                                                                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_SAME_PROCESS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",        \
	  "Opens an interprocess memory handle exported from another process and returns a device pointer "  \
	  "usable in the local process.",                                                                    \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_OPEN_FLAGS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",               \
	  "Flags - Flags for this operation. Must be specified as CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS",       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_FLAGS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",               \
	  "flags - Flags for this operation. Must be specified as hipIpcMemLazyEnablePeerAccess (0 before "  \
	  "ROCm 6.0, 1 from 6.0)",                                                                           \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_OPEN_SECOND_CONTEXT, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",      \
	  "CUipcMemHandles from each CUdevice in a given process may only be opened by one CUcontext per "   \
	  "CUdevice per other process. If the memory handle has already been opened by the current "         \
	  "context, the reference count on the handle is incremented by 1 and the existing device pointer "  \
	  "is returned.",                                                                                    \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_SECOND_CONTEXT, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",      \
	  "Contexts that may open hipIpcMemHandles are restricted in the following way. hipIpcMemHandles "   \
	  "from each device in a given process may only be opened by one context per device per other "      \
	  "process.",                                                                                        \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_OPEN_UNREACHABLE, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",         \
	  "For contexts on different devices cuIpcOpenMemHandle can attempt to enable peer access between "  \
	  "the devices as if the user called cuCtxEnablePeerAccess. This behavior is controlled by the "     \
	  "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS flag. cuDeviceCanAccessPeer can determine if a mapping is "    \
	  "possible.",                                                                                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_UNREACHABLE, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",         \
	  "For contexts on different devices hipIpcOpenMemHandle can attempt to enable peer access between " \
	  "the devices as if the user called hipDeviceEnablePeerAccess. This behavior is controlled by the " \
	  "hipIpcMemLazyEnablePeerAccess flag. hipDeviceCanAccessPeer can determine if a mapping is "        \
	  "possible.",                                                                                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_OPEN_UNEXPORTED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",          \
	  "Maps memory exported from another process with cuIpcGetMemHandle into the current device "        \
	  "address space.",                                                                                  \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_UNEXPORTED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",          \
	  "Maps memory exported from another process with hipIpcGetMemHandle into the current device "       \
	  "address space.",                                                                                  \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_OPEN_STALE, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",               \
	  "Calling cuMemFree on an exported memory region before calling cuIpcCloseMemHandle in the "        \
	  "importing context will result in undefined behavior.",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_OPEN_STALE, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",               \
	  "Calling hipFree on an exported memory region before calling hipIpcCloseMemHandle in the "         \
	  "importing context will result in undefined behavior.",                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_CLOSE_UNKNOWN, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcCloseMemHandle",           \
	  "dptr - Device pointer returned by cuIpcOpenMemHandle",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_CLOSE_UNKNOWN, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcCloseMemHandle",           \
	  "devPtr - Device pointer returned by hipIpcOpenMemHandle",                                         \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_CLOSE_TWICE, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcCloseMemHandle",             \
	  "Decrements the reference count of the memory returned by cuIpcOpenMemHandle by 1. When the "      \
	  "reference count reaches 0, this API unmaps the memory.",                                          \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_CLOSE_TWICE, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcCloseMemHandle",             \
	  "Unmaps memory returnd by hipIpcOpenMemHandle.",                                                   \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_FREE_WHILE_OPEN, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",          \
	  "Calling cuMemFree on an exported memory region before calling cuIpcCloseMemHandle in the "        \
	  "importing context will result in undefined behavior.",                                            \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_FREE_WHILE_OPEN, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",          \
	  "Calling hipFree on an exported memory region before calling hipIpcCloseMemHandle in the "         \
	  "importing context will result in undefined behavior.",                                            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_FREE_IMPORTED, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",            \
	  "Memory returned from cuIpcOpenMemHandle must be freed with cuIpcCloseMemHandle.",                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_FREE_IMPORTED, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",            \
	  "Memory returned from hipIpcOpenMemHandle must be freed with hipIpcCloseMemHandle.",               \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_LEAK, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenMemHandle",                     \
	  "Memory returned from cuIpcOpenMemHandle must be freed with cuIpcCloseMemHandle.",                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_LEAK, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenMemHandle",                     \
	  "Memory returned from hipIpcOpenMemHandle must be freed with hipIpcCloseMemHandle.",               \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EVENT_FLAGS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcGetEventHandle",             \
	  "This event must have been created with the CU_EVENT_INTERPROCESS and CU_EVENT_DISABLE_TIMING "    \
	  "flags set.",                                                                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EVENT_FLAGS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcGetEventHandle",             \
	  "event Event allocated with cudaEventInterprocess and cudaEventDisableTiming flags "               \
	  "(hipEventInterprocess, hipEventDisableTiming)",                                                   \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EVENT_SAME_PROCESS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenEventHandle",     \
	  "Opens an interprocess event handle exported from another process with cuIpcGetEventHandle.",      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EVENT_SAME_PROCESS, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenEventHandle",     \
	  "If the function is called within the same process where handle is returned by "                   \
	  "hipIpcGetEventHandle, it will return hipErrorInvalidContext.",                                    \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EVENT_LEAK, PW_V_CUDA, "CUDA Driver API, Memory Management, cuIpcOpenEventHandle",             \
	  "This event must be freed with cuEventDestroy.",                                                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EVENT_LEAK, PW_V_HIP, "HIP Runtime API, Device Management, hipIpcOpenEventHandle",             \
	  "This event need be freed with hipEventDestroy.",                                                  \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(IPC_EVENT_DESTROY_WHILE_OPEN, PW_V_CUDA,                                                           \
	  "CUDA Driver API, Memory Management, cuIpcGetEventHandle",                                         \
	  "Performing operations on the imported event after the exported event has been freed with "        \
	  "cuEventDestroy will result in undefined behavior.",                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(IPC_EVENT_DESTROY_WHILE_OPEN, PW_V_HIP,                                                            \
	  "HIP Runtime API, Device Management, hipIpcGetEventHandle",                                        \
	  "Operations on the imported event after the exported event has been freed with hipEventDestroy "   \
	  "will result in undefined behavior.",                                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html")               \
	C(MANAGED_ALLOC_SIZE_ZERO, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemAllocManaged",       \
	  "If bytesize is 0, cuMemAllocManaged returns CUDA_ERROR_INVALID_VALUE.",                           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(MANAGED_ALLOC_SIZE_ZERO, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",            \
	  "size - requested allocation size in bytes",                                                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ALLOC_UNQUERIED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",            \
	  "It is recommend to do the capability check before call this API.",                                \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ALLOC_GRANULARITY, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",          \
	  "size - requested allocation size in bytes, it should be granularity of 4KB",                      \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ALLOC_FLAGS, PW_V_CUDA, "CUDA Driver API, Memory Management, cuMemAllocManaged",           \
	  "flags - Must be one of CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST",                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html")                              \
	C(MANAGED_ALLOC_FLAGS, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMallocManaged",                \
	  "flags - must be either hipMemAttachGlobal or hipMemAttachHost",                                   \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ADVISE_NOT_MANAGED, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",         \
	  "The memory range must refer to managed memory allocated via cuMemAllocManaged or declared via "   \
	  "__managed__ variables. The memory range could also refer to system-allocated pageable memory "    \
	  "provided it represents a valid, host-accessible region of memory and all additional constraints " \
	  "imposed by advice as outlined below are also satisfied.",                                         \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_ADVISE_NOT_MANAGED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise",             \
	  "The memory range must refer to managed memory allocated via the API hipMallocManaged",            \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ADVISE_UNALIGNED, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",           \
	  "The start address and end address of the memory range will be rounded down and rounded up "       \
	  "respectively to be aligned to CPU page size before the advice is applied.",                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_ADVISE_UNALIGNED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise",               \
	  "count - size in bytes of the memory range, it should be CPU page size alligned.",                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ADVISE_OUT_OF_RANGE, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",        \
	  "Advise the Unified Memory subsystem about the usage pattern for the memory range starting at "    \
	  "devPtr with a size of count bytes.",                                                              \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_ADVISE_OUT_OF_RANGE, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise",            \
	  "in the range starting from the pointer address devPtr, with the size of count bytes. The memory " \
	  "range must refer to managed memory allocated via the API hipMallocManaged",                       \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ADVISE_INVALID, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",             \
	  "The advice parameter can take the following values; If CUmemLocation::type is a "                 \
	  "CU_MEM_LOCATION_TYPE_DEVICE, then CUmemLocation::id must be a valid device ordinal",              \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_ADVISE_INVALID, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise",                 \
	  "advice - advice to be applied for the specified memory range; device - device to apply the "      \
	  "advice for",                                                                                      \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ADVISE_LOCATION, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemAdvise",            \
	  "The CUmemLocation::type must be either CU_MEM_LOCATION_TYPE_DEVICE with CUmemLocation::id "       \
	  "representing a valid device ordinal or CU_MEM_LOCATION_TYPE_HOST and CUmemLocation::id will be "  \
	  "ignored. All other location types are invalid.",                                                  \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_ADVISE_LOCATION, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemAdvise_v2",             \
	  "location - location to apply the advice for",                                                     \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_PREFETCH_NOT_MANAGED, PW_V_CUDA,                                                           \
	  "CUDA Runtime API, Memory Management, cudaMemPrefetchAsync",                                       \
	  "The memory range must refer to managed memory allocated via cudaMallocManaged or declared via "   \
	  "__managed__ variables, or it may also refer to system-allocated memory on systems with non-zero " \
	  "cudaDevAttrPageableMemoryAccess.",                                                                \
	  "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__MEMORY.html")                        \
	C(MANAGED_PREFETCH_NOT_MANAGED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemPrefetchAsync",    \
	  "dev_ptr - pointer to be prefetched",                                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_PREFETCH_INVALID_DEVICE, PW_V_CUDA,                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",                                         \
	  "Specifying CU_MEM_LOCATION_TYPE_DEVICE for CUmemLocation::type will prefetch memory to GPU "      \
	  "specified by device ordinal CUmemLocation::id",                                                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_PREFETCH_INVALID_DEVICE, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemPrefetchAsync", \
	  "device - destination device to prefetch to",                                                      \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_PREFETCH_LOCATION, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",   \
	  "Applications can request prefetching memory to a specific host NUMA node by specifying "          \
	  "CU_MEM_LOCATION_TYPE_HOST_NUMA for CUmemLocation::type and a valid host NUMA node id in "         \
	  "CUmemLocation::id",                                                                               \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_PREFETCH_LOCATION, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemPrefetchAsync_v2",    \
	  "location - destination location to prefetch to",                                                  \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_PREFETCH_FLAGS, PW_V_CUDA, "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",      \
	  "flags - flags for future use, must be zero now.",                                                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_PREFETCH_FLAGS, PW_V_HIP,                                                                  \
	  "HIP Runtime API, Managed Memory, hipMemPrefetchAsync_v2 (ROCm 7.1)",                              \
	  "flags - flags for future use, must be zero now.",                                                 \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_PREFETCH_OUT_OF_RANGE, PW_V_CUDA,                                                          \
	  "CUDA Driver API, Unified Addressing, cuMemPrefetchAsync",                                         \
	  "count specifies the number of bytes to copy ... The memory range must refer to managed memory "   \
	  "allocated via cuMemAllocManaged",                                                                 \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_PREFETCH_OUT_OF_RANGE, PW_V_HIP, "HIP Runtime API, Managed Memory, hipMemPrefetchAsync",   \
	  "count - size in bytes for prefetching",                                                           \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_RANGE_ATTR_DATA_SIZE, PW_V_CUDA,                                                           \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute",                                     \
	  "data will be interpreted as a 32-bit integer, and dataSize must be 4 (for "                       \
	  "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, dataSize must be a non-zero multiple of 4)",                  \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_RANGE_ATTR_DATA_SIZE, PW_V_HIP,                                                            \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute", "data_size - the size of data",        \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_RANGE_ATTR_INVALID, PW_V_CUDA,                                                             \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute(s)",                                  \
	  "The attribute parameter can take the following values; data - A pointers to a memory location "   \
	  "where the result of each attribute query will be written to; numAttributes - Number of "          \
	  "attributes to query",                                                                             \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_RANGE_ATTR_INVALID, PW_V_HIP,                                                              \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s)",                                     \
	  "attribute - the attribute to query",                                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_RANGE_ATTR_NOT_MANAGED, PW_V_CUDA,                                                         \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute(s)",                                  \
	  "The memory range must refer to managed memory allocated via cuMemAllocManaged or declared via "   \
	  "__managed__ variables.",                                                                          \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_RANGE_ATTR_NOT_MANAGED, PW_V_HIP,                                                          \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute(s)",                                     \
	  "dev_ptr - start of the range to query",                                                           \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_RANGE_ATTR_OUT_OF_RANGE, PW_V_CUDA,                                                        \
	  "CUDA Driver API, Unified Addressing, cuMemRangeGetAttribute",                                     \
	  "Query an attribute about the memory range starting at devPtr with a size of count bytes. The "    \
	  "memory range must refer to managed memory allocated via cuMemAllocManaged",                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html")                          \
	C(MANAGED_RANGE_ATTR_OUT_OF_RANGE, PW_V_HIP,                                                         \
	  "HIP Runtime API, Managed Memory, hipMemRangeGetAttribute", "count - size of the range to query",  \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ATTACH_LENGTH, PW_V_CUDA, "CUDA Driver API, Stream Management, cuStreamAttachMemAsync",    \
	  "For managed allocations, length must be either zero or the entire allocation's size. ... For "    \
	  "pageable host allocations, length must be non-zero.",                                             \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html")                           \
	C(MANAGED_ATTACH_FLAGS, PW_V_CUDA, "CUDA Driver API, Stream Management, cuStreamAttachMemAsync",     \
	  "flags - Must be one of CUmemAttach_flags; It is illegal to attach singly to the NULL stream, "    \
	  "because the NULL stream is a virtual global stream and not a specific stream.",                   \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html")                           \
	C(MANAGED_ATTACH_FLAGS, PW_V_HIP, "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync",        \
	  "flags - must be one of hipMemAttachGlobal, hipMemAttachHost or hipMemAttachSingle",               \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ATTACH_NOT_MANAGED, PW_V_CUDA,                                                             \
	  "CUDA Driver API, Stream Management, cuStreamAttachMemAsync",                                      \
	  "dptr must point to one of the following types of memories: managed memory ... a valid "           \
	  "host-accessible region of system-allocated pageable memory. This type of memory may only be "     \
	  "specified if the device associated with the stream reports a non-zero value for the device "      \
	  "attribute CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS.",                                           \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html")                           \
	C(MANAGED_ATTACH_NOT_MANAGED, PW_V_HIP, "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync",  \
	  "dev_ptr - pointer to memory (must be a pointer to managed memory or to a valid host-accessible "  \
	  "region of system-allocated memory)",                                                              \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(MANAGED_ATTACH_PORTABILITY, PW_V_HIP, "HIP Runtime API, Managed Memory, hipStreamAttachMemAsync",  \
	  "length - length of memory (defaults to zero); flags - (defaults to hipMemAttachSingle) (no "      \
	  "condition on either; CUDA Runtime API, Stream Management, cudaStreamAttachMemAsync: \"For "       \
	  "managed allocations, length must be either zero or the entire allocation's size\")",              \
	  "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory_m.html")             \
	C(VMM_EXPORT_HANDLE_TYPE, PW_V_CUDA,                                                                 \
	  "CUDA Driver API, Virtual Memory Management, cuMemExportToShareableHandle",                        \
	  "handleType - Type of shareable handle requested (defines type and size of the shareableHandle "   \
	  "output parameter); CUmemAllocationProp::requestedHandleTypes - requested "                        \
	  "CUmemAllocationHandleType",                                                                       \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html")                               \
	C(VMM_IMPORT_RELEASED, PW_V_CUDA, "CUDA Driver API, Virtual Memory Management, cuMemRelease",        \
	  "The memory allocation will be freed when all outstanding mappings to the memory are unmapped "    \
	  "and when all outstanding references to the handle (including it's shareable counterparts) are "   \
	  "also released.",                                                                                  \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html")                               \
	C(VMM_COPY_NO_ACCESS, PW_V_CUDA, "CUDA Driver API, Virtual Memory Management, cuMemMap",             \
	  "calling cuMemMap does not make the address accessible, the caller needs to update accessibility " \
	  "of a contiguous mapped VA range by calling cuMemSetAccess.",                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html")                               \
	C(VMM_LEAK, PW_V_CUDA, "CUDA Driver API, Virtual Memory Management, cuMemUnmap",                     \
	  "Any backing memory allocations will be freed if there are no existing mappings and there are no " \
	  "unreleased memory handles.",                                                                      \
	  "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html")

#endif

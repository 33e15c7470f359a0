/*
 * The HIP runtime functions peerwatch hooks (libamdhip64.so.5/.6/.7): one
 * row per exported symbol, as in cuda_table.h:
 *
 *   X(api, suffix, family, op, flags, (signature))
 *
 * The real exports are versioned (hipFree@@hip_4.2, the 7.1 _v2 calls
 * @@hip_7.1); our unversioned definitions satisfy the programs' versioned
 * references (glibc binds a versioned reference to an unversioned definition
 * in an earlier object: tests/integration/hip_real.sh shows it with the real
 * 5.2.3 library).  Wrappers (hip_hooks.c), descriptors, the export list and
 * the HIP table of docs/hooks.md are generated from this file.
 *
 * Signatures are [H52]'s /usr/include/hip/hip_runtime_api.h (line numbers
 * beside each; the same in 6.2 and 7.x),
 * the _v2, 3D peer and batch copy rows ROCm 7.1's, the batch prefetch
 * 7.2's (abi/hip.h's [HRS], [HRD]: by name; the 7.x header's lines are not
 * cited).  Kinds are cuda_table.h's, decoded in hip_encode.c
 * with HIP's names: PTR is a void * recorded with its device (from an
 * untraced hipPointerGetAttributes), CTX a hipCtx_t, DEV an int device id,
 * and a function without arguments has the signature PW_SIG_VOID (pp.h).
 * Flags are hooks.h's (PW_CUR_DEV: the current device, hipGetDevice).
 */
#ifndef PW_HIP_TABLE_H
#define PW_HIP_TABLE_H

#include "core/hooks.h"
#include "core/pp.h"

/* Short names for flag pairs, so that the rows keep their width. */
#define PW_CTX_RNG (PW_CUR_DEV | PW_RANGE_NOTE)

/* :4027 */
#define PW_HIP_SIG_CAN_ACCESS_PEER (OUT_INT, int *, can_access), (DEV, int, dev), (DEV, int, peer_dev)
/* :4044, :4056 */
#define PW_HIP_SIG_ENABLE_PEER (DEV, int, peer_dev), (UINT, unsigned int, flags)
#define PW_HIP_SIG_DISABLE_PEER (DEV, int, peer_dev)
/* :4330, :4348 */
#define PW_HIP_SIG_CTX_ENABLE_PEER (CTX, hipCtx_t, peer_ctx), (UINT, unsigned int, flags)
#define PW_HIP_SIG_CTX_DISABLE_PEER (CTX, hipCtx_t, peer_ctx)
/* ROCm 7.1 (exported at hip_7.1, rocm-systems projects/clr/hipamd/src/hip_hcc.map.in):
 * hipMemcpy3DPeer, hipMemcpy3DPeerAsync ([HRS] hip_runtime_api.h; the struct
 * [HRD] driver_types.h, abi/hip.h: each side names its device by id, and a
 * pointer or an array).  COPY3D is cuda_table.h's kind with HIP's struct:
 * "src"/"dst" and their devices, "src_device"/"dst_device" as named,
 * "width", "height", "depth", "bytes" (hip_encode.c). */
#define PW_HIP_SIG_MEMCPY_3D_PEER (COPY3D, hipMemcpy3DPeerParms *, copy)
#define PW_HIP_SIG_MEMCPY_3D_PEER_ASYNC (COPY3D, hipMemcpy3DPeerParms *, copy), (STREAM, hipStream_t, stream)
/* :1297 */
#define PW_HIP_SIG_P2P_ATTR \
	(OUT_INT, int *, value), (P2PATTR, hipDeviceP2PAttr, attr), (DEV, int, src_dev), (DEV, int, dst_dev)
/* :4085, :4099 */
#define PW_HIP_SIG_MEMCPY_PEER                                                                        \
	(PTR, void *, dst), (DEV, int, dst_device), (PTR, const void *, src), (DEV, int, src_device), \
	    (SIZE, size_t, bytes)
#define PW_HIP_SIG_MEMCPY_PEER_ASYNC                                                                  \
	(PTR, void *, dst), (DEV, int, dst_device), (PTR, const void *, src), (DEV, int, src_device), \
	    (SIZE, size_t, bytes), (STREAM, hipStream_t, stream)
/* :1634, :1671 (the handle by value), :1690, :1706, :1723 */
#define PW_HIP_SIG_IPC_GET_MEM (OUT_IPCMEM, hipIpcMemHandle_t *, handle), (PTR, void *, ptr)
#define PW_HIP_SIG_IPC_OPEN_MEM \
	(OUT_PTR, void **, ptr), (IPCMEM, hipIpcMemHandle_t, handle), (IPCFLAGS, unsigned int, flags)
#define PW_HIP_SIG_IPC_CLOSE_MEM (PTR, void *, ptr)
#define PW_HIP_SIG_IPC_GET_EVENT (OUT_IPCEVT, hipIpcEventHandle_t *, handle), (EVENT, hipEvent_t, event)
#define PW_HIP_SIG_IPC_OPEN_EVENT (OUT_EVENT, hipEvent_t *, event), (IPCEVT, hipIpcEventHandle_t, handle)
/* :2217, :2229, :2278 */
#define PW_HIP_SIG_EVENT_CREATE (OUT_EVENT, hipEvent_t *, event)
#define PW_HIP_SIG_EVENT_CREATE_FLAGS (OUT_EVENT, hipEvent_t *, event), (UINT, unsigned int, flags)
#define PW_HIP_SIG_EVENT_DESTROY (EVENT, hipEvent_t, event)
/* :2587 */
#define PW_HIP_SIG_MALLOC_MANAGED \
	(OUT_PTR, void **, ptr), (SIZE, size_t, bytes), (ATTACHFLAGS, unsigned int, flags)
/* :2600, :2614; 7.1 _v2 ([HRS]) */
#define PW_HIP_SIG_PREFETCH \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (DEV, int, dst_dev), (STREAM, hipStream_t, stream)
#define PW_HIP_SIG_PREFETCH_V2                                                            \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (LOC, hipMemLocation, location), \
	    (UINT, unsigned int, flags), (STREAM, hipStream_t, stream)
/* ROCm 7.2 hipMemPrefetchBatchAsync ([HRS]; exported at hip_7.2 in
 * rocm-systems projects/clr/hipamd/src/hip_hcc.map.in, the node after
 * hip_7.1): cuda_table.h's PBATCH, a hipMemLocation per range by index. */
#define PW_HIP_SIG_PREFETCH_BATCH                                                    \
	(PBATCH, void **, ranges), (SKIP, size_t *, sizes), (SIZE, size_t, count),   \
	    (SKIP, hipMemLocation *, locations), (SKIP, size_t *, location_indices), \
	    (SIZE, size_t, num_locations), (ULL, unsigned long long, flags), (STREAM, hipStream_t, stream)
#define PW_HIP_SIG_ADVISE \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (ADVICE, hipMemoryAdvise, advice), (DEV, int, dev)
#define PW_HIP_SIG_ADVISE_V2                                                                \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (ADVICE, hipMemoryAdvise, advice), \
	    (LOC, hipMemLocation, location)
/* :2630, :2649 */
#define PW_HIP_SIG_RANGE_ATTR                                                                  \
	(RDATA, void *, data), (SIZE, size_t, data_size), (RATTR, hipMemRangeAttribute, attr), \
	    (PTR, const void *, ptr), (SIZE, size_t, bytes)
#define PW_HIP_SIG_RANGE_ATTRS                                                                        \
	(HPTR, void **, data), (HPTR, size_t *, data_sizes), (RATTRS, hipMemRangeAttribute *, attrs), \
	    (SIZE, size_t, num_attrs), (PTR, const void *, ptr), (SIZE, size_t, bytes)
/* :2667 */
#define PW_HIP_SIG_ATTACH_MEM                                                     \
	(STREAM, hipStream_t, stream), (PTR, void *, ptr), (SIZE, size_t, bytes), \
	    (ATTACHFLAGS, unsigned int, flags)
/* :3208 (hipDeviceReset, :1355, takes no argument) */
#define PW_HIP_SIG_FREE (PTR, void *, ptr)
/* Implicit copies: :3263 hipMemcpy, :3516 hipMemcpyAsync, :3320 hipMemcpyDtoD,
 * :3374 hipMemcpyDtoDAsync (hipDeviceptr_t is void *, driver_types.h:40); the
 * kind (hipMemcpyKind) is recorded as its number.  :2510 hipMalloc feeds the
 * range cache that classifies them. */
#define PW_HIP_SIG_MEMCPY \
	(PTR, void *, dst), (PTR, const void *, src), (SIZE, size_t, bytes), (UINT, hipMemcpyKind, kind)
#define PW_HIP_SIG_MEMCPY_ASYNC                                                                           \
	(PTR, void *, dst), (PTR, const void *, src), (SIZE, size_t, bytes), (UINT, hipMemcpyKind, kind), \
	    (STREAM, hipStream_t, stream)
#define PW_HIP_SIG_MEMCPY_DTOD (PTR, hipDeviceptr_t, dst), (PTR, hipDeviceptr_t, src), (SIZE, size_t, bytes)
#define PW_HIP_SIG_MEMCPY_DTOD_ASYNC                                                   \
	(PTR, hipDeviceptr_t, dst), (PTR, hipDeviceptr_t, src), (SIZE, size_t, bytes), \
	    (STREAM, hipStream_t, stream)
#define PW_HIP_SIG_MALLOC (OUT_PTR, void **, ptr), (SIZE, size_t, bytes)
/* :3770 hipMemcpy2D, :3810 hipMemcpy2DAsync (hip_4.2): two pitched pointers,
 * the devices of dst (argument 0) and src (argument 2) found before the
 * call; :3963 hipMemcpy3D, :3975 hipMemcpy3DAsync: COPY3DL is cuda_table.h's
 * kind with HIP's hipMemcpy3DParms (driver_types.h:369, abi/hip.h). */
#define PW_HIP_SIG_MEMCPY_2D                                                                          \
	(PTR, void *, dst), (SIZE, size_t, dpitch), (PTR, const void *, src), (SIZE, size_t, spitch), \
	    (SIZE, size_t, width), (SIZE, size_t, height), (UINT, hipMemcpyKind, kind)
#define PW_HIP_SIG_MEMCPY_2D_ASYNC PW_HIP_SIG_MEMCPY_2D, (STREAM, hipStream_t, stream)
#define PW_HIP_SIG_MEMCPY_3D (COPY3DL, const hipMemcpy3DParms *, copy)
#define PW_HIP_SIG_MEMCPY_3D_ASYNC (COPY3DL, const hipMemcpy3DParms *, copy), (STREAM, hipStream_t, stream)
/* ROCm 7.1 hipMemcpy3DBatchAsync ([HRS]; hip_7.1): (numOps, opList, failIdx,
 * flags, stream), CUDA 12.8's cuMemcpy3DBatchAsync's shape and
 * cuda_table.h's BATCH3D kind with HIP's hipMemcpy3DBatchOp ([HRD],
 * abi/hip.h): recorded when one operation is between pointers on two
 * devices (hip_implicit.c). */
#define PW_HIP_SIG_BATCH3D                                                                       \
	(SKIP, size_t, count), (BATCH3D, hipMemcpy3DBatchOp *, ops), (SKIP, size_t *, fail_idx), \
	    (ULL, unsigned long long, flags), (STREAM, hipStream_t, stream)
/* The per-thread default stream forms (_spt), which a program built with
 * HIP_API_PER_THREAD_DEFAULT_STREAM calls in place of the plain names
 * ([H52] amd_detail/amd_hip_runtime_pt_api.h :38-48 maps them): hipMemcpy_spt
 * :65, hipMemcpy2D_spt :73, hipMemcpy3D_spt :82, hipMemcpyAsync_spt :90,
 * exported at hip_5.2; hipMemcpy2DAsync_spt and hipMemcpy3DAsync_spt at
 * hip_5.3 (rocm-systems projects/clr/hipamd/src/hip_hcc.map.in).  Each has
 * its plain form's signature; a NULL stream is the calling thread's own
 * default stream there, not the null stream. */
/* ROCm 7.1 hipMemcpyBatchAsync ([HRS]; hip_7.1): cuda_table.h's BATCH with
 * failIdx (CUDA 12.8's ABI); attrs a hipMemcpyAttributes array ([HRD]). */
#define PW_HIP_SIG_BATCH                                                                                  \
	(BATCH, void **, dsts), (SKIP, void **, srcs), (SKIP, size_t *, sizes), (SKIP, size_t, count),    \
	    (HPTR, hipMemcpyAttributes *, attrs), (SKIP, size_t *, attr_idxs), (SIZE, size_t, num_attrs), \
	    (SKIP, size_t *, fail_idx), (STREAM, hipStream_t, stream)
/* :1424 hipDeviceGetAttribute: the capability check hipMallocManaged's note asks for */
#define PW_HIP_SIG_DEVICE_ATTR (OUT_INT, int *, value), (UINT, hipDeviceAttribute_t, attr), (DEV, int, dev)
/* :1796 hipGetLastError, :1807 hipPeekAtLastError: no argument (PW_SIG_VOID) */
/* Pools shared between processes (5.2, exported at hip_5.1): :2931
 * hipMemPoolDestroy, :2963 hipMallocFromPoolAsync, :2988
 * hipMemPoolExportToShareableHandle, :3014 hipMemPoolImportFromShareableHandle,
 * :3036 hipMemPoolExportPointer, :3063 hipMemPoolImportPointer.  Their flags
 * are an unsigned int (CUDA's are unsigned long long); kinds as cuda_table.h's:
 * POOL / OUT_POOL a hipMemPool_t, HTYPE a hipMemAllocationHandleType,
 * SHAREABLE / OUT_SHAREABLE the OS handle (the fd itself on import, where
 * the fd is cast to the pointer; an int * on export), EXPORTDATA /
 * OUT_EXPORTDATA the 64 bytes of hipMemPoolPtrExportData. */
#define PW_HIP_SIG_POOL_DESTROY (POOL, hipMemPool_t, pool)
#define PW_HIP_SIG_POOL_ALLOC                                                       \
	(OUT_PTR, void **, ptr), (SIZE, size_t, bytes), (POOL, hipMemPool_t, pool), \
	    (STREAM, hipStream_t, stream)
#define PW_HIP_SIG_POOL_EXPORT                                          \
	(OUT_SHAREABLE, void *, shareable), (POOL, hipMemPool_t, pool), \
	    (HTYPE, hipMemAllocationHandleType, handle_type), (UINT, unsigned int, flags)
#define PW_HIP_SIG_POOL_IMPORT                                            \
	(OUT_POOL, hipMemPool_t *, pool), (SHAREABLE, void *, shareable), \
	    (HTYPE, hipMemAllocationHandleType, handle_type), (UINT, unsigned int, flags)
#define PW_HIP_SIG_POOL_EXPORT_PTR \
	(OUT_EXPORTDATA, hipMemPoolPtrExportData *, export_data), (PTR, void *, ptr)
#define PW_HIP_SIG_POOL_IMPORT_PTR                           \
	(OUT_PTR, void **, ptr), (POOL, hipMemPool_t, pool), \
	    (EXPORTDATA, hipMemPoolPtrExportData *, export_data)

/* Virtual memory (5.2, exported at hip_5.1): :6314 hipMemCreate, :6327
 * hipMemExportToShareableHandle, :6374 hipMemImportFromShareableHandle,
 * :6388 hipMemMap, :6410 hipMemRelease, :6421 hipMemRetainAllocationHandle,
 * :6434 hipMemSetAccess, :6445 hipMemUnmap.  Kinds as cuda_table.h's: VA an
 * address of a reservation, MEMHANDLE / OUT_MEMHANDLE a
 * hipMemGenericAllocationHandle_t, ALLOCPROP the hipMemAllocationProp
 * ("dev", "handle_types"; its layout changed in 5.3, read by the runtime's
 * version), ACCESS the hipMemAccessDesc array, ULL the
 * unsigned long long flags. */
#define PW_HIP_SIG_MEM_CREATE                                                              \
	(OUT_MEMHANDLE, hipMemGenericAllocationHandle_t *, handle), (SIZE, size_t, bytes), \
	    (ALLOCPROP, const hipMemAllocationProp *, prop), (ULL, unsigned long long, flags)
#define PW_HIP_SIG_MEM_EXPORT                                                                     \
	(OUT_SHAREABLE, void *, shareable), (MEMHANDLE, hipMemGenericAllocationHandle_t, handle), \
	    (HTYPE, hipMemAllocationHandleType, handle_type), (ULL, unsigned long long, flags)
#define PW_HIP_SIG_MEM_IMPORT                                                                       \
	(OUT_MEMHANDLE, hipMemGenericAllocationHandle_t *, handle), (SHAREABLE, void *, shareable), \
	    (HTYPE, hipMemAllocationHandleType, handle_type)
#define PW_HIP_SIG_MEM_MAP                                                \
	(VA, void *, ptr), (SIZE, size_t, bytes), (SIZE, size_t, offset), \
	    (MEMHANDLE, hipMemGenericAllocationHandle_t, handle), (ULL, unsigned long long, flags)
#define PW_HIP_SIG_MEM_RELEASE (MEMHANDLE, hipMemGenericAllocationHandle_t, handle)
#define PW_HIP_SIG_MEM_RETAIN (OUT_MEMHANDLE, hipMemGenericAllocationHandle_t *, handle), (HPTR, void *, ptr)
#define PW_HIP_SIG_MEM_SET_ACCESS                                                              \
	(PTR, void *, ptr), (SIZE, size_t, bytes), (ACCESS, const hipMemAccessDesc *, access), \
	    (SIZE, size_t, count)
#define PW_HIP_SIG_MEM_UNMAP (VA, void *, ptr), (SIZE, size_t, bytes)

#define PW_HIP_FUNCS(X)                                                                                 \
	/* peer */                                                                                      \
	X(hipDeviceCanAccessPeer, , PEER, CAN_ACCESS, 0, (PW_HIP_SIG_CAN_ACCESS_PEER))                  \
	X(hipDeviceEnablePeerAccess, , PEER, PEER_ENABLE, PW_CUR_DEV, (PW_HIP_SIG_ENABLE_PEER))         \
	X(hipDeviceDisablePeerAccess, , PEER, PEER_DISABLE, PW_CUR_DEV, (PW_HIP_SIG_DISABLE_PEER))      \
	X(hipCtxEnablePeerAccess, , PEER, PEER_ENABLE, PW_CUR_DEV, (PW_HIP_SIG_CTX_ENABLE_PEER))        \
	X(hipCtxDisablePeerAccess, , PEER, PEER_DISABLE, PW_CUR_DEV, (PW_HIP_SIG_CTX_DISABLE_PEER))     \
	X(hipDeviceGetP2PAttribute, , PEER, PEER_ATTR, 0, (PW_HIP_SIG_P2P_ATTR))                        \
	/* copy */                                                                                      \
	X(hipMemcpyPeer, , COPY, PEER_COPY, 0, (PW_HIP_SIG_MEMCPY_PEER))                                \
	X(hipMemcpyPeerAsync, , COPY, PEER_COPY, 0, (PW_HIP_SIG_MEMCPY_PEER_ASYNC))                     \
	X(hipMemcpy3DPeer, , COPY, PEER_COPY, 0, (PW_HIP_SIG_MEMCPY_3D_PEER))                           \
	X(hipMemcpy3DPeerAsync, , COPY, PEER_COPY, 0, (PW_HIP_SIG_MEMCPY_3D_PEER_ASYNC))                \
	/* ipc */                                                                                       \
	X(hipIpcGetMemHandle, , IPC, IPC_EXPORT, PW_CUR_DEV, (PW_HIP_SIG_IPC_GET_MEM))                  \
	X(hipIpcOpenMemHandle, , IPC, IPC_OPEN, PW_CTX_RNG, (PW_HIP_SIG_IPC_OPEN_MEM))                  \
	X(hipIpcCloseMemHandle, , IPC, IPC_CLOSE, PW_CTX_RNG, (PW_HIP_SIG_IPC_CLOSE_MEM))               \
	X(hipIpcGetEventHandle, , IPC, IPC_EVENT_EXPORT, 0, (PW_HIP_SIG_IPC_GET_EVENT))                 \
	X(hipIpcOpenEventHandle, , IPC, IPC_EVENT_OPEN, PW_CUR_DEV, (PW_HIP_SIG_IPC_OPEN_EVENT))        \
	/* events: the flags an IPC event needs, and the end of imported ones */                        \
	X(hipEventCreate, , SUPPORT, EVENT_CREATE, 0, (PW_HIP_SIG_EVENT_CREATE))                        \
	X(hipEventCreateWithFlags, , SUPPORT, EVENT_CREATE, 0, (PW_HIP_SIG_EVENT_CREATE_FLAGS))         \
	X(hipEventDestroy, , SUPPORT, EVENT_DESTROY, 0, (PW_HIP_SIG_EVENT_DESTROY))                     \
	/* managed */                                                                                   \
	X(hipMallocManaged, , MANAGED, ALLOC_MANAGED, PW_CTX_RNG, (PW_HIP_SIG_MALLOC_MANAGED))          \
	X(hipMemPrefetchAsync, , MANAGED, PREFETCH, 0, (PW_HIP_SIG_PREFETCH))                           \
	X(hipMemPrefetchAsync, _v2, MANAGED, PREFETCH, 0, (PW_HIP_SIG_PREFETCH_V2))                     \
	X(hipMemPrefetchBatchAsync, , MANAGED, PREFETCH_BATCH, 0, (PW_HIP_SIG_PREFETCH_BATCH))          \
	X(hipMemAdvise, , MANAGED, ADVISE, 0, (PW_HIP_SIG_ADVISE))                                      \
	X(hipMemAdvise, _v2, MANAGED, ADVISE, 0, (PW_HIP_SIG_ADVISE_V2))                                \
	X(hipMemRangeGetAttribute, , MANAGED, RANGE_ATTR, 0, (PW_HIP_SIG_RANGE_ATTR))                   \
	X(hipMemRangeGetAttributes, , MANAGED, RANGE_ATTR, 0, (PW_HIP_SIG_RANGE_ATTRS))                 \
	X(hipStreamAttachMemAsync, , MANAGED, ATTACH, 0, (PW_HIP_SIG_ATTACH_MEM))                       \
	/* support: the life of exported allocations, and the reset that drops peer access */           \
	X(hipFree, , SUPPORT, FREE, PW_RANGE_NOTE, (PW_HIP_SIG_FREE))                                   \
	X(hipDeviceReset, , SUPPORT, DEVICE_RESET, PW_CUR_DEV, (PW_SIG_VOID))                           \
	X(hipDeviceGetAttribute, , SUPPORT, DEVICE_ATTR, 0, (PW_HIP_SIG_DEVICE_ATTR))                   \
	/* implicit copies, recorded only between two devices (hip_implicit.c) */                       \
	X(hipMemcpy, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY))                           \
	X(hipMemcpyAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_ASYNC))                \
	X(hipMemcpyDtoD, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_DTOD))                  \
	X(hipMemcpyDtoDAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_DTOD_ASYNC))       \
	X(hipMemcpy2D, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_2D))                      \
	X(hipMemcpy2DAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_2D_ASYNC))           \
	X(hipMemcpy3D, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_3D))                      \
	X(hipMemcpy3DAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_3D_ASYNC))           \
	X(hipMemcpy, _spt, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY))                       \
	X(hipMemcpyAsync, _spt, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_ASYNC))            \
	X(hipMemcpy2D, _spt, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_2D))                  \
	X(hipMemcpy2DAsync, _spt, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_2D_ASYNC))       \
	X(hipMemcpy3D, _spt, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_3D))                  \
	X(hipMemcpy3DAsync, _spt, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_MEMCPY_3D_ASYNC))       \
	X(hipMemcpyBatchAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_BATCH))                  \
	X(hipMemcpy3DBatchAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_HIP_SIG_BATCH3D))              \
	/* allocations: not recorded, they feed the range cache */                                      \
	X(hipMalloc, , SUPPORT, ALLOC, PW_NO_EVENT, (PW_HIP_SIG_MALLOC))                                \
	/* the thread's last error (no argument): error.sticky names who left it */                     \
	X(hipGetLastError, , SUPPORT, LAST_ERROR, PW_ERR_RESET, (PW_SIG_VOID))                          \
	X(hipPeekAtLastError, , SUPPORT, LAST_ERROR, 0, (PW_SIG_VOID))                                  \
	/* pools shared between processes, and what says a pool was imported */                         \
	X(hipMemPoolExportToShareableHandle, , IPC, POOL_EXPORT, 0, (PW_HIP_SIG_POOL_EXPORT))           \
	X(hipMemPoolImportFromShareableHandle, , IPC, POOL_IMPORT, 0, (PW_HIP_SIG_POOL_IMPORT))         \
	X(hipMemPoolExportPointer, , IPC, POOL_EXPORT_PTR, 0, (PW_HIP_SIG_POOL_EXPORT_PTR))             \
	X(hipMemPoolImportPointer, , IPC, POOL_IMPORT_PTR, PW_RANGE_NOTE, (PW_HIP_SIG_POOL_IMPORT_PTR)) \
	X(hipMallocFromPoolAsync, , SUPPORT, POOL_ALLOC, PW_RANGE_NOTE, (PW_HIP_SIG_POOL_ALLOC))        \
	X(hipMemPoolDestroy, , SUPPORT, POOL_DESTROY, 0, (PW_HIP_SIG_POOL_DESTROY))                     \
	/* virtual memory, and its allocations shared between processes */                              \
	X(hipMemCreate, , SUPPORT, VMM_CREATE, 0, (PW_HIP_SIG_MEM_CREATE))                              \
	X(hipMemRelease, , SUPPORT, VMM_RELEASE, 0, (PW_HIP_SIG_MEM_RELEASE))                           \
	X(hipMemMap, , SUPPORT, VMM_MAP, 0, (PW_HIP_SIG_MEM_MAP))                                       \
	X(hipMemUnmap, , SUPPORT, VMM_UNMAP, 0, (PW_HIP_SIG_MEM_UNMAP))                                 \
	X(hipMemSetAccess, , PEER, VMM_SET_ACCESS, 0, (PW_HIP_SIG_MEM_SET_ACCESS))                      \
	X(hipMemExportToShareableHandle, , IPC, VMM_EXPORT, 0, (PW_HIP_SIG_MEM_EXPORT))                 \
	X(hipMemImportFromShareableHandle, , IPC, VMM_IMPORT, 0, (PW_HIP_SIG_MEM_IMPORT))               \
	X(hipMemRetainAllocationHandle, , SUPPORT, VMM_RETAIN, 0, (PW_HIP_SIG_MEM_RETAIN))

/* Symbol ids: PW_HIP_ID(hipMemAdvise_v2) */
#define PW_HIP_ID(sym) PW_HIP_ID_##sym
#define PW_HIP_ENUM_ROW(api, sfx, fam, op, flags, sig) PW_HIP_ID(api##sfx),
enum pw_hip_id { PW_HIP_FUNCS(PW_HIP_ENUM_ROW) PW_HIP_NFUNCS };

#endif

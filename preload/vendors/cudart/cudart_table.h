/*
 * The CUDA runtime (libcudart) functions peerwatch hooks: one row per
 * exported symbol, in the same X-macro shape as cuda_table.h:
 *
 *   X(api, suffix, family, op, flags, (signature))
 *
 * Hooked by symbol interposition only: a program that links libcudart.so
 * dynamically (PyTorch does) binds these names to our exports, and dlsym of a
 * cuda* name is answered with our wrapper too.  Static cudart
 * (libcudart_static.a, nvcc's default) has no symbols to interpose: its calls
 * are seen only as the driver calls it makes (docs/hooks.md says so).
 *
 * Signatures are CUDA 13.0 cuda_runtime_api.h's (line numbers beside each),
 * types in include/peerwatch/abi/cudart.h; argument names are the JSON keys
 * of the trace.  Kinds mean what they mean in cuda_table.h, for runtime
 * types (cudart_encode.c decodes them): PTR is a void * device pointer
 * (recorded with the device it lives on), DEV an int device ordinal the call
 * names, COPY3D a const struct cudaMemcpy3DPeerParms *, OUT_PTR a void **.
 * Enum values are written with the runtime's names (cudaMemAdviseSetReadMostly).
 *
 * libcudart.so.13 exports only the CUDA 13 cudaMemAdvise / cudaMemPrefetchAsync
 * (cudaMemLocation by value); libcudart.so.12 (12.2+) also exports the _v2
 * names with that signature, and its base names take an int device instead
 * (cudart_hooks.c tells the two apart by the library that answers).  The
 * prefetch wrapper declares its flags register-wide (unsigned long) so that a
 * CUDA 12 caller's stream, which travels in that register, reaches the real
 * function whole; only the low 32 bits are the CUDA 13 flags.
 */
#ifndef PW_CUDART_TABLE_H
#define PW_CUDART_TABLE_H

#include "core/hooks.h"
#include "peerwatch/abi/cudart.h"

/* Flags of a row: hooks.h's (PW_CUR_DEV: the runtime's current device), and */
#define PW_ABI12 0x1000 /* a CUDA 12 libcudart gives this name the older, int-device ABI */

/* :8487, :8529, :8551, :1525 */
#define PW_RT_SIG_CAN_ACCESS_PEER (OUT_INT, int *, can_access), (DEV, int, dev), (DEV, int, peer_dev)
#define PW_RT_SIG_ENABLE_PEER (DEV, int, peer_dev), (UINT, unsigned int, flags)
#define PW_RT_SIG_DISABLE_PEER (DEV, int, peer_dev)
#define PW_RT_SIG_P2P_ATTR                                                                  \
	(OUT_INT, int *, value), (P2PATTR, cudaDeviceP2PAttr_t, attr), (DEV, int, src_dev), \
	    (DEV, int, dst_dev)
/* :5992, :6367 */
#define PW_RT_SIG_MEMCPY_PEER                                                                         \
	(PTR, void *, dst), (DEV, int, dst_device), (PTR, const void *, src), (DEV, int, src_device), \
	    (SIZE, size_t, bytes)
#define PW_RT_SIG_MEMCPY_PEER_ASYNC                                                                   \
	(PTR, void *, dst), (DEV, int, dst_device), (PTR, const void *, src), (DEV, int, src_device), \
	    (SIZE, size_t, bytes), (STREAM, cudaStream_t, stream)
/* :5573, :5718 */
#define PW_RT_SIG_MEMCPY_3D_PEER (COPY3D, const struct cudaMemcpy3DPeerParms *, copy)
#define PW_RT_SIG_MEMCPY_3D_PEER_ASYNC \
	(COPY3D, const struct cudaMemcpy3DPeerParms *, copy), (STREAM, cudaStream_t, stream)
/* :809, :876, :915, :720, :764 */
#define PW_RT_SIG_IPC_GET_MEM (OUT_IPCMEM, cudaIpcMemHandle_t *, handle), (PTR, void *, ptr)
#define PW_RT_SIG_IPC_OPEN_MEM \
	(OUT_PTR, void **, ptr), (IPCMEM, cudaIpcMemHandle_t, handle), (IPCFLAGS, unsigned int, flags)
#define PW_RT_SIG_IPC_CLOSE_MEM (PTR, void *, ptr)
#define PW_RT_SIG_IPC_GET_EVENT (OUT_IPCEVT, cudaIpcEventHandle_t *, handle), (EVENT, cudaEvent_t, event)
#define PW_RT_SIG_IPC_OPEN_EVENT (OUT_EVENT, cudaEvent_t *, event), (IPCEVT, cudaIpcEventHandle_t, handle)
/* :2761, :2798, :2981 */
#define PW_RT_SIG_EVENT_CREATE (OUT_EVENT, cudaEvent_t *, event)
#define PW_RT_SIG_EVENT_CREATE_FLAGS (OUT_EVENT, cudaEvent_t *, event), (UINT, unsigned int, flags)
#define PW_RT_SIG_EVENT_DESTROY (EVENT, cudaEvent_t, event)
/* :4550 */
#define PW_RT_SIG_MALLOC_MANAGED \
	(OUT_PTR, void **, ptr), (SIZE, size_t, bytes), (ATTACHFLAGS, unsigned int, flags)
/* :7399 */
#define PW_RT_SIG_ADVISE                                                                       \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (ADVICE, cudaMemoryAdvise_t, advice), \
	    (LOC, struct cudaMemLocation, location)
/* :7152 (flags register-wide: see above) */
#define PW_RT_SIG_PREFETCH                                                                        \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (LOC, struct cudaMemLocation, location), \
	    (UINT, unsigned long, flags), (STREAM, cudaStream_t, stream)
#define PW_RT_SIG_PREFETCH_V2                                                                     \
	(PTR, const void *, ptr), (SIZE, size_t, bytes), (LOC, struct cudaMemLocation, location), \
	    (UINT, unsigned int, flags), (STREAM, cudaStream_t, stream)
/* :7481, :7524 */
#define PW_RT_SIG_RANGE_ATTR                                                                      \
	(RDATA, void *, data), (SIZE, size_t, data_size), (RATTR, cudaMemRangeAttribute_t, attr), \
	    (PTR, const void *, ptr), (SIZE, size_t, bytes)
#define PW_RT_SIG_RANGE_ATTRS                                                                            \
	(HPTR, void **, data), (HPTR, size_t *, data_sizes), (RATTRS, cudaMemRangeAttribute_t *, attrs), \
	    (SIZE, size_t, num_attrs), (PTR, const void *, ptr), (SIZE, size_t, bytes)
/* :2431 */
#define PW_RT_SIG_ATTACH_MEM                                                       \
	(STREAM, cudaStream_t, stream), (PTR, void *, ptr), (SIZE, size_t, bytes), \
	    (ATTACHFLAGS, unsigned int, flags)
/* :4752, :7865; :330 (cudaDeviceReset, no argument: PW_SIG_VOID) */
#define PW_RT_SIG_FREE (PTR, void *, ptr)
#define PW_RT_SIG_FREE_ASYNC (PTR, void *, ptr), (STREAM, cudaStream_t, stream)
/* :1165 cudaGetLastError, :1216 cudaPeekAtLastError: no argument (PW_SIG_VOID) */

#define PW_CUDART_FUNCS(X)                                                                         \
	/* peer */                                                                                 \
	X(cudaDeviceCanAccessPeer, , PEER, CAN_ACCESS, 0, (PW_RT_SIG_CAN_ACCESS_PEER))             \
	X(cudaDeviceEnablePeerAccess, , PEER, PEER_ENABLE, PW_CUR_DEV, (PW_RT_SIG_ENABLE_PEER))    \
	X(cudaDeviceDisablePeerAccess, , PEER, PEER_DISABLE, PW_CUR_DEV, (PW_RT_SIG_DISABLE_PEER)) \
	X(cudaDeviceGetP2PAttribute, , PEER, PEER_ATTR, 0, (PW_RT_SIG_P2P_ATTR))                   \
	/* copy */                                                                                 \
	X(cudaMemcpyPeer, , COPY, PEER_COPY, 0, (PW_RT_SIG_MEMCPY_PEER))                           \
	X(cudaMemcpyPeerAsync, , COPY, PEER_COPY, 0, (PW_RT_SIG_MEMCPY_PEER_ASYNC))                \
	X(cudaMemcpy3DPeer, , COPY, PEER_COPY, 0, (PW_RT_SIG_MEMCPY_3D_PEER))                      \
	X(cudaMemcpy3DPeer, _ptds, COPY, PEER_COPY, 0, (PW_RT_SIG_MEMCPY_3D_PEER))                 \
	X(cudaMemcpy3DPeerAsync, , COPY, PEER_COPY, 0, (PW_RT_SIG_MEMCPY_3D_PEER_ASYNC))           \
	X(cudaMemcpy3DPeerAsync, _ptsz, COPY, PEER_COPY, 0, (PW_RT_SIG_MEMCPY_3D_PEER_ASYNC))      \
	/* ipc */                                                                                  \
	X(cudaIpcGetMemHandle, , IPC, IPC_EXPORT, PW_CUR_DEV, (PW_RT_SIG_IPC_GET_MEM))             \
	X(cudaIpcOpenMemHandle, , IPC, IPC_OPEN, PW_CUR_DEV, (PW_RT_SIG_IPC_OPEN_MEM))             \
	X(cudaIpcCloseMemHandle, , IPC, IPC_CLOSE, PW_CUR_DEV, (PW_RT_SIG_IPC_CLOSE_MEM))          \
	X(cudaIpcGetEventHandle, , IPC, IPC_EVENT_EXPORT, 0, (PW_RT_SIG_IPC_GET_EVENT))            \
	X(cudaIpcOpenEventHandle, , IPC, IPC_EVENT_OPEN, PW_CUR_DEV, (PW_RT_SIG_IPC_OPEN_EVENT))   \
	/* events: the flags an IPC event needs, and the end of imported ones */                   \
	X(cudaEventCreate, , SUPPORT, EVENT_CREATE, 0, (PW_RT_SIG_EVENT_CREATE))                   \
	X(cudaEventCreateWithFlags, , SUPPORT, EVENT_CREATE, 0, (PW_RT_SIG_EVENT_CREATE_FLAGS))    \
	X(cudaEventDestroy, , SUPPORT, EVENT_DESTROY, 0, (PW_RT_SIG_EVENT_DESTROY))                \
	/* managed */                                                                              \
	X(cudaMallocManaged, , MANAGED, ALLOC_MANAGED, PW_CUR_DEV, (PW_RT_SIG_MALLOC_MANAGED))     \
	X(cudaMemAdvise, , MANAGED, ADVISE, PW_ABI12, (PW_RT_SIG_ADVISE))                          \
	X(cudaMemAdvise, _v2, MANAGED, ADVISE, 0, (PW_RT_SIG_ADVISE))                              \
	X(cudaMemPrefetchAsync, , MANAGED, PREFETCH, PW_ABI12, (PW_RT_SIG_PREFETCH))               \
	X(cudaMemPrefetchAsync, _ptsz, MANAGED, PREFETCH, PW_ABI12, (PW_RT_SIG_PREFETCH))          \
	X(cudaMemPrefetchAsync, _v2, MANAGED, PREFETCH, 0, (PW_RT_SIG_PREFETCH_V2))                \
	X(cudaMemPrefetchAsync, _v2_ptsz, MANAGED, PREFETCH, 0, (PW_RT_SIG_PREFETCH_V2))           \
	X(cudaMemRangeGetAttribute, , MANAGED, RANGE_ATTR, 0, (PW_RT_SIG_RANGE_ATTR))              \
	X(cudaMemRangeGetAttributes, , MANAGED, RANGE_ATTR, 0, (PW_RT_SIG_RANGE_ATTRS))            \
	X(cudaStreamAttachMemAsync, , MANAGED, ATTACH, 0, (PW_RT_SIG_ATTACH_MEM))                  \
	X(cudaStreamAttachMemAsync, _ptsz, MANAGED, ATTACH, 0, (PW_RT_SIG_ATTACH_MEM))             \
	/* support: the life of allocations and of the device's state that later rules follow */   \
	X(cudaDeviceReset, , SUPPORT, DEVICE_RESET, PW_CUR_DEV, (PW_SIG_VOID))                     \
	X(cudaFree, , SUPPORT, FREE, 0, (PW_RT_SIG_FREE))                                          \
	X(cudaFreeAsync, , SUPPORT, FREE, 0, (PW_RT_SIG_FREE_ASYNC))                               \
	X(cudaFreeAsync, _ptsz, SUPPORT, FREE, 0, (PW_RT_SIG_FREE_ASYNC))                          \
	/* the thread's last error (no argument): error.sticky names who left it */                \
	X(cudaGetLastError, , SUPPORT, LAST_ERROR, PW_ERR_RESET, (PW_SIG_VOID))                    \
	X(cudaPeekAtLastError, , SUPPORT, LAST_ERROR, 0, (PW_SIG_VOID))

/* Symbol ids: PW_CUDART_ID(cudaMemcpy3DPeer_ptds) */
#define PW_CUDART_ID(sym) PW_CUDART_ID_##sym
#define PW_CUDART_ENUM_ROW(api, sfx, fam, op, flags, sig) PW_CUDART_ID(api##sfx),
enum pw_cudart_id { PW_CUDART_FUNCS(PW_CUDART_ENUM_ROW) PW_CUDART_NFUNCS };

#endif

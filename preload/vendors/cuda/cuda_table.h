/*
 * The CUDA driver functions peerwatch hooks: one row per exported symbol.
 *
 *   X(api, suffix, family, op, flags, (signature))
 *
 * The exported symbol is api##suffix (cuMemcpyPeer_ptds); the trace records
 * "api" and "variant" (the suffix, "" for the base symbol).  Rows that share
 * an ABI share a signature.  Wrappers (cuda_hooks.c), the descriptor table the
 * trace encoder and the rules read, the export list and docs/hooks.md are all
 * generated from this file, so hooking another function is one row here.
 *
 * Signatures are CUDA 13.0 cuda.h's (line numbers beside each); argument
 * names are the JSON keys of the trace.  Kinds are decoded in cuda_encode.c:
 *   PTR      CUdeviceptr, recorded with the device it lives on   (x, x_dev)
 *   PTR32    legacy 32-bit CUdeviceptr_v1
 *   CTX      CUcontext, recorded with its device ordinal        (x, x_dev)
 *   DEV      CUdevice ordinal          SIZE    size_t
 *   STREAM   CUstream                  EVENT   CUevent
 *   UINT     unsigned flags (numeric)  IPCFLAGS / ATTACHFLAGS  flags as names
 *   ADVICE   CUmem_advise name         RATTR   CUmem_range_attribute name
 *   P2PATTR  CUdevice_P2PAttribute name LOC    CUmemLocation by value
 *   IPCMEM / IPCEVT        IPC handle by value, full hex
 *   OUT_INT  int *, value after the call
 *   OUT_PTR  CUdeviceptr *, value (and its device) after the call
 *   OUT_IPCMEM / OUT_IPCEVT  handle written by the call, full hex
 *   OUT_EVENT CUevent *, value after the call
 *   HPTR     a host pointer, address only
 *   RDATA    cuMemRangeGetAttribute's data: its int value when dataSize is 4
 *   RATTRS   cuMemRangeGetAttributes' attribute array (count is the next argument)
 *   COPY3D   const CUDA_MEMCPY3D_PEER *, its devices, contexts and bytes
 *   COPY2D / COPY3DL  const CUDA_MEMCPY2D * / const CUDA_MEMCPY3D *: sides, devices, bytes
 *   BATCH    cuMemcpyBatchAsync's dsts: with the srcs, sizes and count after it,
 *            the batch as "count", "bytes" and "copies" (cuda_implicit.c)
 *   BATCH3D  cuMemcpy3DBatchAsync's opList (the count is the argument before)
 *   SKIP     captured for another argument's sake, not recorded itself
 *   U64      unsigned long long        OUT_SIZE  size_t *, value after the call
 *
 * Implicit copies (PW_IMPLICIT) are recorded only when their two sides are on
 * different devices; the wrapper decides that from the range cache
 * (rangecache.h) before anything else, and a copy within one device or
 * to/from the host goes straight to the driver without an event.
 * Allocations (PW_NO_EVENT) are not recorded: they feed the range cache only.
 * Recording them would put an event in the trace for every cudaMalloc of a
 * program for no rule or analysis that reads it (frees are recorded already,
 * for the IPC rules); cuMemAllocManaged stays recorded (the managed rules).
 *
 * Virtual memory, pools and batch prefetch:
 *   ULL      unsigned long long flags (numeric)
 *   VA       a virtual address of a reservation, address only (no device)
 *   MEMHANDLE / OUT_MEMHANDLE  CUmemGenericAllocationHandle (value / written by the call), hex
 *   ALLOCPROP const CUmemAllocationProp *: "dev" (location id) and "handle_types"
 *            (array of names: posix_fd, fabric, win32, win32_kmt)
 *   HTYPE    CUmemAllocationHandleType, as its name ("posix_fd", ...) or a number
 *   SHAREABLE / OUT_SHAREABLE  the OS handle (import: passed in; export: written):
 *            "shareable" is the fd (posix_fd) or the hex of the 64 bytes (fabric),
 *            and "file_id" "<st_dev>:<st_ino>" of the fd, the key that is the
 *            same in every process holding that file.  The handle type is the
 *            row's HTYPE argument.
 *   ACCESS   const CUmemAccessDesc *: "access": [{dev, flags}] (count is the next argument)
 *   POOL / OUT_POOL  CUmemoryPool, hex
 *   EXPORTDATA / OUT_EXPORTDATA  CUmemPoolPtrExportData, hex of its 64 bytes
 *   PBATCH   batch prefetch's dptrs: reads sizes, count, locations and their
 *            indices from the arguments after it; "ranges": [{ptr, bytes, dev}]
 *            (the first 16) and the total "bytes"
 *
 * Atomics across a link (CUDA 13):
 *   ATOMICOPS      const CUatomicOperation *, count the next argument: "operations",
 *                  the first 16 by name (CU_ATOMIC_OPERATION_INTEGER_ADD) or number
 *   OUT_ATOMICCAPS unsigned int * written by the call, count two arguments on:
 *                  "capabilities", the first 16 bitmasks, each its bits' names
 *                  joined with '|' as flags are ("0x0" for none)
 */
#ifndef PW_CUDA_TABLE_H
#define PW_CUDA_TABLE_H

#include "core/hooks.h"

/* Flags of a row (hooks.h): PW_CUR_DEV (here: the device of the current
 * context), PW_IMPLICIT, PW_NO_EVENT, PW_RANGE_NOTE (the call changes the
 * range cache: free, managed alloc, IPC open/close, VMM map/unmap).  Short
 * names, so that the rows keep their width: */
#define PW_RNG PW_RANGE_NOTE
#define PW_CTX_RNG (PW_CUR_DEV | PW_RANGE_NOTE)

/* :23842 */
#define PW_SIG_CAN_ACCESS_PEER (OUT_INT, int *, can_access), (DEV, CUdevice, dev), (DEV, CUdevice, peer_dev)
/* :23895, :23922 */
#define PW_SIG_ENABLE_PEER (CTX, CUcontext, peer_ctx), (UINT, unsigned int, flags)
#define PW_SIG_DISABLE_PEER (CTX, CUcontext, peer_ctx)
/* :23966 */
#define PW_SIG_P2P_ATTR                                                                            \
	(OUT_INT, int *, value), (P2PATTR, CUdevice_P2PAttribute, attr), (DEV, CUdevice, src_dev), \
	    (DEV, CUdevice, dst_dev)
/* :24002 (CUDA 13.0) */
#define PW_SIG_P2P_ATOMIC_CAPS                                                                              \
	(OUT_ATOMICCAPS, unsigned int *, capabilities), (ATOMICOPS, const CUatomicOperation *, operations), \
	    (UINT, unsigned int, count), (DEV, CUdevice, src_dev), (DEV, CUdevice, dst_dev)
/* :9637, :10530 */
#define PW_SIG_MEMCPY_PEER                                                           \
	(PTR, CUdeviceptr, dst), (CTX, CUcontext, dst_ctx), (PTR, CUdeviceptr, src), \
	    (CTX, CUcontext, src_ctx), (SIZE, size_t, bytes)
#define PW_SIG_MEMCPY_PEER_ASYNC                                                     \
	(PTR, CUdeviceptr, dst), (CTX, CUcontext, dst_ctx), (PTR, CUdeviceptr, src), \
	    (CTX, CUcontext, src_ctx), (SIZE, size_t, bytes), (STREAM, CUstream, stream)
/* :10452, :11106 */
#define PW_SIG_MEMCPY_3D_PEER (COPY3D, const CUDA_MEMCPY3D_PEER *, copy)
#define PW_SIG_MEMCPY_3D_PEER_ASYNC (COPY3D, const CUDA_MEMCPY3D_PEER *, copy), (STREAM, CUstream, stream)
/* :9352, :9413 (and the unversioned :25808), :9450, :9265, :9308 */
#define PW_SIG_IPC_GET_MEM (OUT_IPCMEM, CUipcMemHandle *, handle), (PTR, CUdeviceptr, ptr)
#define PW_SIG_IPC_OPEN_MEM \
	(OUT_PTR, CUdeviceptr *, ptr), (IPCMEM, CUipcMemHandle, handle), (IPCFLAGS, unsigned int, flags)
#define PW_SIG_IPC_CLOSE_MEM (PTR, CUdeviceptr, ptr)
#define PW_SIG_IPC_GET_EVENT (OUT_IPCEVT, CUipcEventHandle *, handle), (EVENT, CUevent, event)
#define PW_SIG_IPC_OPEN_EVENT (OUT_EVENT, CUevent *, event), (IPCEVT, CUipcEventHandle, handle)
/* :15946, :16131 (cuEventDestroy_v2; the unversioned name :25680) */
#define PW_SIG_EVENT_CREATE (OUT_EVENT, CUevent *, event), (UINT, unsigned int, flags)
#define PW_SIG_EVENT_DESTROY (EVENT, CUevent, event)
/* :9096 */
#define PW_SIG_ALLOC_MANAGED \
	(OUT_PTR, CUdeviceptr *, ptr), (SIZE, size_t, bytes), (ATTACHFLAGS, unsigned int, flags)
/* legacy :25772, current :14555 */
#define PW_SIG_ADVISE \
	(PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes), (ADVICE, CUmem_advise, advice), (DEV, CUdevice, dev)
#define PW_SIG_ADVISE_V2                                                                \
	(PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes), (ADVICE, CUmem_advise, advice), \
	    (LOC, CUmemLocation, location)
/* legacy :25769, current :14434 */
#define PW_SIG_PREFETCH \
	(PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes), (DEV, CUdevice, dst_dev), (STREAM, CUstream, stream)
#define PW_SIG_PREFETCH_V2                                                              \
	(PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes), (LOC, CUmemLocation, location), \
	    (UINT, unsigned int, flags), (STREAM, CUstream, stream)
/* :14760, :14804 */
#define PW_SIG_RANGE_ATTR                                                                       \
	(RDATA, void *, data), (SIZE, size_t, data_size), (RATTR, CUmem_range_attribute, attr), \
	    (PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes)
#define PW_SIG_RANGE_ATTRS                                                                             \
	(HPTR, void **, data), (HPTR, size_t *, data_sizes), (RATTRS, CUmem_range_attribute *, attrs), \
	    (SIZE, size_t, num_attrs), (PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes)
/* :15736 */
#define PW_SIG_ATTACH_MEM                                                           \
	(STREAM, CUstream, stream), (PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes), \
	    (ATTACHFLAGS, unsigned int, flags)
/* :8697 (cuMemFree_v2), legacy 32-bit :25700s, :13319 */
#define PW_SIG_FREE (PTR, CUdeviceptr, ptr)
#define PW_SIG_FREE_V1 (PTR32, CUdeviceptr_v1, ptr)
#define PW_SIG_FREE_ASYNC (PTR, CUdeviceptr, ptr), (STREAM, CUstream, stream)
/* virtual memory :12834, :12861, :12918, :13082, :13116, :13168, :13199, :13262 */
#define PW_SIG_MEM_CREATE                                                               \
	(OUT_MEMHANDLE, CUmemGenericAllocationHandle *, handle), (SIZE, size_t, bytes), \
	    (ALLOCPROP, const CUmemAllocationProp *, prop), (ULL, unsigned long long, flags)
#define PW_SIG_MEM_RELEASE (MEMHANDLE, CUmemGenericAllocationHandle, handle)
#define PW_SIG_MEM_MAP                                                         \
	(VA, CUdeviceptr, ptr), (SIZE, size_t, bytes), (SIZE, size_t, offset), \
	    (MEMHANDLE, CUmemGenericAllocationHandle, handle), (ULL, unsigned long long, flags)
#define PW_SIG_MEM_UNMAP (VA, CUdeviceptr, ptr), (SIZE, size_t, bytes)
#define PW_SIG_MEM_SET_ACCESS                                                                      \
	(PTR, CUdeviceptr, ptr), (SIZE, size_t, bytes), (ACCESS, const CUmemAccessDesc *, access), \
	    (SIZE, size_t, count)
#define PW_SIG_MEM_EXPORT                                                                      \
	(OUT_SHAREABLE, void *, shareable), (MEMHANDLE, CUmemGenericAllocationHandle, handle), \
	    (HTYPE, CUmemAllocationHandleType, handle_type), (ULL, unsigned long long, flags)
#define PW_SIG_MEM_IMPORT                                                                        \
	(OUT_MEMHANDLE, CUmemGenericAllocationHandle *, handle), (SHAREABLE, void *, shareable), \
	    (HTYPE, CUmemAllocationHandleType, handle_type)
#define PW_SIG_MEM_RETAIN (OUT_MEMHANDLE, CUmemGenericAllocationHandle *, handle), (HPTR, void *, ptr)
/* pools :13714, :13743, :13767, :13796, :13485 */
#define PW_SIG_POOL_EXPORT                                              \
	(OUT_SHAREABLE, void *, shareable), (POOL, CUmemoryPool, pool), \
	    (HTYPE, CUmemAllocationHandleType, handle_type), (ULL, unsigned long long, flags)
#define PW_SIG_POOL_IMPORT                                                \
	(OUT_POOL, CUmemoryPool *, pool), (SHAREABLE, void *, shareable), \
	    (HTYPE, CUmemAllocationHandleType, handle_type), (ULL, unsigned long long, flags)
#define PW_SIG_POOL_EXPORT_PTR \
	(OUT_EXPORTDATA, CUmemPoolPtrExportData *, export_data), (PTR, CUdeviceptr, ptr)
#define PW_SIG_POOL_IMPORT_PTR                                     \
	(OUT_PTR, CUdeviceptr *, ptr), (POOL, CUmemoryPool, pool), \
	    (EXPORTDATA, CUmemPoolPtrExportData *, export_data)
#define PW_SIG_POOL_SET_ACCESS \
	(POOL, CUmemoryPool, pool), (ACCESS, const CUmemAccessDesc *, access), (SIZE, size_t, count)
/* batch prefetch (13.0) :14596, :14677, per-thread variants :101, :103 */
#define PW_SIG_PREFETCH_BATCH                                                            \
	(PBATCH, CUdeviceptr *, ranges), (SKIP, size_t *, sizes), (SIZE, size_t, count), \
	    (SKIP, CUmemLocation *, locations), (SKIP, size_t *, location_indices),      \
	    (SIZE, size_t, num_locations), (ULL, unsigned long long, flags), (STREAM, CUstream, stream)

/* Implicit copies. :9607 (cuMemcpy, _ptds :184), :10497 (cuMemcpyAsync, _ptsz :185),
 * :9745/:25688 (cuMemcpyDtoD_v2, _v2_ptds :106), :10653/:25701 (cuMemcpyDtoDAsync_v2,
 * _v2_ptsz :119).  The 32-bit CUdeviceptr_v1 ABIs (cuMemcpyDtoD, :25645) cannot
 * name UVA device memory and are not hooked. */
#define PW_SIG_MEMCPY (PTR, CUdeviceptr, dst), (PTR, CUdeviceptr, src), (SIZE, size_t, bytes)
#define PW_SIG_MEMCPY_ASYNC \
	(PTR, CUdeviceptr, dst), (PTR, CUdeviceptr, src), (SIZE, size_t, bytes), (STREAM, CUstream, stream)
/* :10097/:25696 (cuMemcpy2D_v2, _v2_ptds :114), :10906/:25702 (cuMemcpy2DAsync_v2, _v2_ptsz :120),
 * :10428 (cuMemcpy3D_v2, _v2_ptds :116), :11080/:25703 (cuMemcpy3DAsync_v2, _v2_ptsz :121) */
#define PW_SIG_MEMCPY_2D (COPY2D, const CUDA_MEMCPY2D *, copy)
#define PW_SIG_MEMCPY_2D_ASYNC (COPY2D, const CUDA_MEMCPY2D *, copy), (STREAM, CUstream, stream)
#define PW_SIG_MEMCPY_3D (COPY3DL, const CUDA_MEMCPY3D *, copy)
#define PW_SIG_MEMCPY_3D_ASYNC (COPY3DL, const CUDA_MEMCPY3D *, copy), (STREAM, CUstream, stream)
/* Batches.  CUDA 12.8's ABI with failIdx: :25716 (cuMemcpyBatchAsync), :25721 (_ptsz),
 * :25719, :25723 (cuMemcpy3DBatchAsync[_ptsz]); CUDA 13.0's without it: :11176
 * (cuMemcpyBatchAsync_v2, _v2_ptsz :122), :11243 (cuMemcpy3DBatchAsync_v2, _v2_ptsz :123). */
#define PW_SIG_BATCH_HEAD                                                                   \
	(BATCH, CUdeviceptr *, dsts), (SKIP, CUdeviceptr *, srcs), (SKIP, size_t *, sizes), \
	    (SKIP, size_t, count), (HPTR, CUmemcpyAttributes *, attrs), (SKIP, size_t *, attr_idxs)
#define PW_SIG_BATCH_12080 \
	PW_SIG_BATCH_HEAD, (SIZE, size_t, num_attrs), (SKIP, size_t *, fail_idx), (STREAM, CUstream, stream)
#define PW_SIG_BATCH PW_SIG_BATCH_HEAD, (SIZE, size_t, num_attrs), (STREAM, CUstream, stream)
#define PW_SIG_BATCH3D_12080                                                                         \
	(SKIP, size_t, count), (BATCH3D, CUDA_MEMCPY3D_BATCH_OP *, ops), (SKIP, size_t *, fail_idx), \
	    (U64, unsigned long long, flags), (STREAM, CUstream, stream)
#define PW_SIG_BATCH3D                                                                                     \
	(SKIP, size_t, count), (BATCH3D, CUDA_MEMCPY3D_BATCH_OP *, ops), (U64, unsigned long long, flags), \
	    (STREAM, CUstream, stream)
/* Allocations, for the range cache: :8609 (cuMemAlloc_v2, #define :93), :8671
 * (cuMemAllocPitch_v2, :94), :13352 (cuMemAllocAsync, _ptsz :233), :13685
 * (cuMemAllocFromPoolAsync, _ptsz :234) */
#define PW_SIG_ALLOC (OUT_PTR, CUdeviceptr *, ptr), (SIZE, size_t, bytes)
#define PW_SIG_ALLOC_PITCH                                                                 \
	(OUT_PTR, CUdeviceptr *, ptr), (OUT_SIZE, size_t *, pitch), (SIZE, size_t, width), \
	    (SIZE, size_t, height), (UINT, unsigned int, element_bytes)
#define PW_SIG_ALLOC_ASYNC (OUT_PTR, CUdeviceptr *, ptr), (SIZE, size_t, bytes), (STREAM, CUstream, stream)
/* :6325 (cuCtxDestroy, as cuCtxDestroy_v2), legacy :25676; :5937 and :6100
 * (cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxReset, as _v2), legacy
 * :25682-25683: one argument each */
#define PW_SIG_CTX_DESTROY (CTX, CUcontext, ctx)
/* :6275 (cuCtxCreate, as cuCtxCreate_v4: the creation parameters, a
 * CUctxCreateParams *, before the flags), legacy :25632-25633 (cuCtxCreate,
 * cuCtxCreate_v2) */
#define PW_SIG_CTX_CREATE (HPTR, CUcontext *, pctx), (UINT, unsigned int, flags), (DEV, CUdevice, dev)
#define PW_SIG_CTX_CREATE_V4 \
	(HPTR, CUcontext *, pctx), (HPTR, void *, params), (UINT, unsigned int, flags), (DEV, CUdevice, dev)
#define PW_SIG_PRIMARY (DEV, CUdevice, dev)
/* :5896 (cuDevicePrimaryCtxRetain) */
#define PW_SIG_PRIMARY_RETAIN (HPTR, CUcontext *, pctx), (DEV, CUdevice, dev)
#define PW_SIG_ALLOC_POOL                                                                 \
	(OUT_PTR, CUdeviceptr *, ptr), (SIZE, size_t, bytes), (HPTR, CUmemoryPool, pool), \
	    (STREAM, CUstream, stream)

/* The implicit copies and the allocations (cuda_implicit.c, rangecache.h). */
#define PW_CUDA_FUNCS_IMPLICIT(X)                                                                \
	X(cuMemcpy, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY))                         \
	X(cuMemcpy, _ptds, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY))                    \
	X(cuMemcpyAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_ASYNC))              \
	X(cuMemcpyAsync, _ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_ASYNC))         \
	X(cuMemcpyDtoD, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY))                  \
	X(cuMemcpyDtoD, _v2_ptds, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY))             \
	X(cuMemcpyDtoDAsync, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_ASYNC))       \
	X(cuMemcpyDtoDAsync, _v2_ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_ASYNC))  \
	X(cuMemcpy2D, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_2D))                 \
	X(cuMemcpy2D, _v2_ptds, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_2D))            \
	X(cuMemcpy2DAsync, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_2D_ASYNC))      \
	X(cuMemcpy2DAsync, _v2_ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_2D_ASYNC)) \
	X(cuMemcpy3D, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_3D))                 \
	X(cuMemcpy3D, _v2_ptds, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_3D))            \
	X(cuMemcpy3DAsync, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_3D_ASYNC))      \
	X(cuMemcpy3DAsync, _v2_ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_MEMCPY_3D_ASYNC)) \
	X(cuMemcpyBatchAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH_12080))          \
	X(cuMemcpyBatchAsync, _ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH_12080))     \
	X(cuMemcpyBatchAsync, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH))             \
	X(cuMemcpyBatchAsync, _v2_ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH))        \
	X(cuMemcpy3DBatchAsync, , COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH3D_12080))      \
	X(cuMemcpy3DBatchAsync, _ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH3D_12080)) \
	X(cuMemcpy3DBatchAsync, _v2, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH3D))         \
	X(cuMemcpy3DBatchAsync, _v2_ptsz, COPY, IMPLICIT_COPY, PW_IMPLICIT, (PW_SIG_BATCH3D))    \
	/* allocations: not recorded, they feed the range cache */                               \
	X(cuMemAlloc, _v2, SUPPORT, ALLOC, PW_NO_EVENT, (PW_SIG_ALLOC))                          \
	X(cuMemAllocPitch, _v2, SUPPORT, ALLOC, PW_NO_EVENT, (PW_SIG_ALLOC_PITCH))               \
	X(cuMemAllocAsync, , SUPPORT, ALLOC, PW_NO_EVENT, (PW_SIG_ALLOC_ASYNC))                  \
	X(cuMemAllocAsync, _ptsz, SUPPORT, ALLOC, PW_NO_EVENT, (PW_SIG_ALLOC_ASYNC))             \
	X(cuMemAllocFromPoolAsync, , SUPPORT, ALLOC, PW_NO_EVENT, (PW_SIG_ALLOC_POOL))           \
	X(cuMemAllocFromPoolAsync, _ptsz, SUPPORT, ALLOC, PW_NO_EVENT, (PW_SIG_ALLOC_POOL))      \
	/* contexts made and ending: not recorded; they feed the context -> device look-up */    \
	/* and the state's peer access per context (state.h) */                                  \
	X(cuCtxCreate, , SUPPORT, CTX_CREATE, PW_NO_EVENT, (PW_SIG_CTX_CREATE))                  \
	X(cuCtxCreate, _v2, SUPPORT, CTX_CREATE, PW_NO_EVENT, (PW_SIG_CTX_CREATE))               \
	X(cuCtxCreate, _v4, SUPPORT, CTX_CREATE, PW_NO_EVENT, (PW_SIG_CTX_CREATE_V4))            \
	X(cuDevicePrimaryCtxRetain, , SUPPORT, CTX_CREATE, PW_NO_EVENT, (PW_SIG_PRIMARY_RETAIN)) \
	X(cuCtxDestroy, _v2, SUPPORT, CTX_DESTROY, PW_NO_EVENT, (PW_SIG_CTX_DESTROY))            \
	X(cuCtxDestroy, , SUPPORT, CTX_DESTROY, PW_NO_EVENT, (PW_SIG_CTX_DESTROY))               \
	X(cuDevicePrimaryCtxRelease, _v2, SUPPORT, CTX_DESTROY, PW_NO_EVENT, (PW_SIG_PRIMARY))   \
	X(cuDevicePrimaryCtxRelease, , SUPPORT, CTX_DESTROY, PW_NO_EVENT, (PW_SIG_PRIMARY))      \
	X(cuDevicePrimaryCtxReset, _v2, SUPPORT, CTX_DESTROY, PW_NO_EVENT, (PW_SIG_PRIMARY))     \
	X(cuDevicePrimaryCtxReset, , SUPPORT, CTX_DESTROY, PW_NO_EVENT, (PW_SIG_PRIMARY))

#define PW_CUDA_FUNCS(X)                                                                    \
	/* peer */                                                                          \
	X(cuDeviceCanAccessPeer, , PEER, CAN_ACCESS, 0, (PW_SIG_CAN_ACCESS_PEER))           \
	X(cuCtxEnablePeerAccess, , PEER, PEER_ENABLE, PW_CUR_DEV, (PW_SIG_ENABLE_PEER))     \
	X(cuCtxDisablePeerAccess, , PEER, PEER_DISABLE, PW_CUR_DEV, (PW_SIG_DISABLE_PEER))  \
	X(cuDeviceGetP2PAttribute, , PEER, PEER_ATTR, 0, (PW_SIG_P2P_ATTR))                 \
	X(cuDeviceGetP2PAtomicCapabilities, , PEER, PEER_ATTR, 0, (PW_SIG_P2P_ATOMIC_CAPS)) \
	/* copy */                                                                          \
	X(cuMemcpyPeer, , COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_PEER))                         \
	X(cuMemcpyPeer, _ptds, COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_PEER))                    \
	X(cuMemcpyPeerAsync, , COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_PEER_ASYNC))              \
	X(cuMemcpyPeerAsync, _ptsz, COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_PEER_ASYNC))         \
	X(cuMemcpy3DPeer, , COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_3D_PEER))                    \
	X(cuMemcpy3DPeer, _ptds, COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_3D_PEER))               \
	X(cuMemcpy3DPeerAsync, , COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_3D_PEER_ASYNC))         \
	X(cuMemcpy3DPeerAsync, _ptsz, COPY, PEER_COPY, 0, (PW_SIG_MEMCPY_3D_PEER_ASYNC))    \
	PW_CUDA_FUNCS_IMPLICIT(X)                                                           \
	/* ipc */                                                                           \
	X(cuIpcGetMemHandle, , IPC, IPC_EXPORT, PW_CUR_DEV, (PW_SIG_IPC_GET_MEM))           \
	X(cuIpcOpenMemHandle, , IPC, IPC_OPEN, PW_CTX_RNG, (PW_SIG_IPC_OPEN_MEM))           \
	X(cuIpcOpenMemHandle, _v2, IPC, IPC_OPEN, PW_CTX_RNG, (PW_SIG_IPC_OPEN_MEM))        \
	X(cuIpcCloseMemHandle, , IPC, IPC_CLOSE, PW_CTX_RNG, (PW_SIG_IPC_CLOSE_MEM))        \
	X(cuIpcGetEventHandle, , IPC, IPC_EVENT_EXPORT, 0, (PW_SIG_IPC_GET_EVENT))          \
	X(cuIpcOpenEventHandle, , IPC, IPC_EVENT_OPEN, PW_CUR_DEV, (PW_SIG_IPC_OPEN_EVENT)) \
	/* events: the flags an IPC event needs, and the end of imported ones */            \
	X(cuEventCreate, , SUPPORT, EVENT_CREATE, 0, (PW_SIG_EVENT_CREATE))                 \
	X(cuEventDestroy, , SUPPORT, EVENT_DESTROY, 0, (PW_SIG_EVENT_DESTROY))              \
	X(cuEventDestroy, _v2, SUPPORT, EVENT_DESTROY, 0, (PW_SIG_EVENT_DESTROY))           \
	/* managed */                                                                       \
	X(cuMemAllocManaged, , MANAGED, ALLOC_MANAGED, PW_CTX_RNG, (PW_SIG_ALLOC_MANAGED))  \
	X(cuMemAdvise, , MANAGED, ADVISE, 0, (PW_SIG_ADVISE))                               \
	X(cuMemAdvise, _v2, MANAGED, ADVISE, 0, (PW_SIG_ADVISE_V2))                         \
	X(cuMemPrefetchAsync, , MANAGED, PREFETCH, 0, (PW_SIG_PREFETCH))                    \
	X(cuMemPrefetchAsync, _ptsz, MANAGED, PREFETCH, 0, (PW_SIG_PREFETCH))               \
	X(cuMemPrefetchAsync, _v2, MANAGED, PREFETCH, 0, (PW_SIG_PREFETCH_V2))              \
	X(cuMemPrefetchAsync, _v2_ptsz, MANAGED, PREFETCH, 0, (PW_SIG_PREFETCH_V2))         \
	X(cuMemRangeGetAttribute, , MANAGED, RANGE_ATTR, 0, (PW_SIG_RANGE_ATTR))            \
	X(cuMemRangeGetAttributes, , MANAGED, RANGE_ATTR, 0, (PW_SIG_RANGE_ATTRS))          \
	X(cuStreamAttachMemAsync, , MANAGED, ATTACH, 0, (PW_SIG_ATTACH_MEM))                \
	X(cuStreamAttachMemAsync, _ptsz, MANAGED, ATTACH, 0, (PW_SIG_ATTACH_MEM))           \
	/* support: the life of allocations that later rules follow */                      \
	X(cuMemFree, , SUPPORT, FREE, PW_RNG, (PW_SIG_FREE_V1))                             \
	X(cuMemFree, _v2, SUPPORT, FREE, PW_RNG, (PW_SIG_FREE))                             \
	X(cuMemFreeAsync, , SUPPORT, FREE, PW_RNG, (PW_SIG_FREE_ASYNC))                     \
	X(cuMemFreeAsync, _ptsz, SUPPORT, FREE, PW_RNG, (PW_SIG_FREE_ASYNC))                \
	PW_CUDA_FUNCS_VMM(X)

/* Virtual memory, stream-ordered pools across processes, CUDA 13 batch
 * prefetch: appended to PW_CUDA_FUNCS. */
#define PW_CUDA_FUNCS_VMM(X)                                                                        \
	/* virtual memory */                                                                        \
	X(cuMemCreate, , SUPPORT, VMM_CREATE, 0, (PW_SIG_MEM_CREATE))                               \
	X(cuMemRelease, , SUPPORT, VMM_RELEASE, 0, (PW_SIG_MEM_RELEASE))                            \
	X(cuMemMap, , SUPPORT, VMM_MAP, PW_RNG, (PW_SIG_MEM_MAP))                                   \
	X(cuMemUnmap, , SUPPORT, VMM_UNMAP, PW_RNG, (PW_SIG_MEM_UNMAP))                             \
	X(cuMemSetAccess, , PEER, VMM_SET_ACCESS, 0, (PW_SIG_MEM_SET_ACCESS))                       \
	X(cuMemExportToShareableHandle, , IPC, VMM_EXPORT, 0, (PW_SIG_MEM_EXPORT))                  \
	X(cuMemImportFromShareableHandle, , IPC, VMM_IMPORT, 0, (PW_SIG_MEM_IMPORT))                \
	X(cuMemRetainAllocationHandle, , SUPPORT, VMM_RETAIN, 0, (PW_SIG_MEM_RETAIN))               \
	/* stream-ordered pools across processes */                                                 \
	X(cuMemPoolExportToShareableHandle, , IPC, POOL_EXPORT, 0, (PW_SIG_POOL_EXPORT))            \
	X(cuMemPoolImportFromShareableHandle, , IPC, POOL_IMPORT, 0, (PW_SIG_POOL_IMPORT))          \
	X(cuMemPoolExportPointer, , IPC, POOL_EXPORT_PTR, 0, (PW_SIG_POOL_EXPORT_PTR))              \
	X(cuMemPoolImportPointer, , IPC, POOL_IMPORT_PTR, 0, (PW_SIG_POOL_IMPORT_PTR))              \
	X(cuMemPoolSetAccess, , PEER, POOL_SET_ACCESS, 0, (PW_SIG_POOL_SET_ACCESS))                 \
	/* managed: CUDA 13 batch prefetch */                                                       \
	X(cuMemPrefetchBatchAsync, , MANAGED, PREFETCH_BATCH, 0, (PW_SIG_PREFETCH_BATCH))           \
	X(cuMemPrefetchBatchAsync, _ptsz, MANAGED, PREFETCH_BATCH, 0, (PW_SIG_PREFETCH_BATCH))      \
	X(cuMemDiscardAndPrefetchBatchAsync, , MANAGED, PREFETCH_BATCH, 0, (PW_SIG_PREFETCH_BATCH)) \
	X(cuMemDiscardAndPrefetchBatchAsync, _ptsz, MANAGED, PREFETCH_BATCH, 0, (PW_SIG_PREFETCH_BATCH))

/* Symbol ids: PW_CUDA_ID(cuMemcpyPeer_ptds) */
#define PW_CUDA_ID(sym) PW_CUDA_ID_##sym
#define PW_CUDA_ENUM_ROW(api, sfx, fam, op, flags, sig) PW_CUDA_ID(api##sfx),
enum pw_cuda_id { PW_CUDA_FUNCS(PW_CUDA_ENUM_ROW) PW_CUDA_NFUNCS };

#endif

/*
 * Every function the simulated driver (libcuda.so.1) exports, with CUDA 13.0
 * cuda.h's signatures (line numbers beside each; legacy ABIs are the ones that
 * cuda.h only declares under __CUDA_API_VERSION_INTERNAL, :25600 onwards).
 * The simulator's sources include this header so the compiler checks each
 * definition against it; the self-test includes it to call the simulator.
 *
 * PWSIM_MAX_VERSION is the newest CUDA version the build exports: 13000 for
 * the normal build, 11080 for the "legacy driver" build, which must not export
 * anything introduced after 11.8 (the version in each comment is the one in
 * cudaTypedefs.h's PFN_ name).
 */
#ifndef PWSIM_CUDA_SIM_API_H
#define PWSIM_CUDA_SIM_API_H

#include "peerwatch/abi/cuda.h"

#ifndef PWSIM_MAX_VERSION
#define PWSIM_MAX_VERSION 13000
#endif

#define PWSIM_API __attribute__((visibility("default")))

/* errors :5149, :5170 */
PWSIM_API CUresult cuGetErrorString(CUresult error, const char **pStr);
PWSIM_API CUresult cuGetErrorName(CUresult error, const char **pStr);

/* init and devices :5207, :5245, :5288, :5317, :5349, :5436 (_v2), :5498 */
PWSIM_API CUresult cuInit(unsigned int Flags);
PWSIM_API CUresult cuDriverGetVersion(int *driverVersion);
PWSIM_API CUresult cuDeviceGet(CUdevice *device, int ordinal);
PWSIM_API CUresult cuDeviceGetCount(int *count);
PWSIM_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
PWSIM_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
PWSIM_API CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev);
/* identity :5378 (cuDeviceGetUuid, _v2 by :153; legacy :25685), :9217 */
PWSIM_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
PWSIM_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
PWSIM_API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);

/* contexts :5896, :5937 (and legacy :25682), :6359/:6393 (legacy :25677-25678),
 * :6423, :6446, :6476, :6499, :6621, :6653 */
PWSIM_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
PWSIM_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
PWSIM_API CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
PWSIM_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
PWSIM_API CUresult cuDevicePrimaryCtxReset(CUdevice dev);
PWSIM_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active);
PWSIM_API CUresult cuCtxPushCurrent_v2(CUcontext ctx);
PWSIM_API CUresult cuCtxPushCurrent(CUcontext ctx);
PWSIM_API CUresult cuCtxPopCurrent_v2(CUcontext *pctx);
PWSIM_API CUresult cuCtxPopCurrent(CUcontext *pctx);
PWSIM_API CUresult cuCtxSetCurrent(CUcontext ctx);
PWSIM_API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
PWSIM_API CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
PWSIM_API CUresult cuCtxDestroy_v2(CUcontext ctx);
PWSIM_API CUresult cuCtxDestroy(CUcontext ctx);
#if PWSIM_MAX_VERSION >= 13000
PWSIM_API CUresult cuCtxCreate_v4(CUcontext *pctx, void *params, unsigned int flags, CUdevice dev);
#endif
PWSIM_API CUresult cuCtxGetCurrent(CUcontext *pctx);
PWSIM_API CUresult cuCtxGetDevice(CUdevice *device);
PWSIM_API CUresult cuCtxSynchronize(void);
#if PWSIM_MAX_VERSION >= 13000
PWSIM_API CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
PWSIM_API CUresult cuCtxSynchronize_v2(CUcontext ctx);
#endif

/* memory :8609 (_v2), :8708 (_v2; legacy 32-bit :25639), :8742 (_v2),
 * :9673/:9709/:9745 (_v2, _v2_ptds), :11278 (_v2, _v2_ptds), :13319 (FreeAsync),
 * :14357, :14896 */
PWSIM_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
PWSIM_API CUresult cuMemFree_v2(CUdeviceptr dptr);
PWSIM_API CUresult cuMemFree(CUdeviceptr_v1 dptr);
PWSIM_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
PWSIM_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
PWSIM_API CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
PWSIM_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
PWSIM_API CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
PWSIM_API CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
PWSIM_API CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
PWSIM_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
PWSIM_API CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
PWSIM_API CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N);
PWSIM_API CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N);
PWSIM_API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr);
PWSIM_API CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                          void **data, CUdeviceptr ptr);

/* streams and events :14949, :15766, :15795, :15825, :15946, :15989, :16071, :16102,
 * :16131, :16179 (legacy :25679-25681) */
PWSIM_API CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags);
PWSIM_API CUresult cuStreamDestroy_v2(CUstream hStream);
PWSIM_API CUresult cuStreamDestroy(CUstream hStream);
PWSIM_API CUresult cuStreamSynchronize(CUstream hStream);
PWSIM_API CUresult cuStreamSynchronize_ptsz(CUstream hStream);
PWSIM_API CUresult cuStreamQuery(CUstream hStream);
PWSIM_API CUresult cuStreamQuery_ptsz(CUstream hStream);
PWSIM_API CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
PWSIM_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
PWSIM_API CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
PWSIM_API CUresult cuEventQuery(CUevent hEvent);
PWSIM_API CUresult cuEventSynchronize(CUevent hEvent);
PWSIM_API CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
#if PWSIM_MAX_VERSION >= 12080
PWSIM_API CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd);
#endif
PWSIM_API CUresult cuEventDestroy_v2(CUevent hEvent);
PWSIM_API CUresult cuEventDestroy(CUevent hEvent);

/* peer access :23842, :23895, :23922, :23966 */
PWSIM_API CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
PWSIM_API CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags);
PWSIM_API CUresult cuCtxDisablePeerAccess(CUcontext peerContext);
PWSIM_API CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                           CUdevice dstDevice);
PWSIM_API CUresult cuDeviceGetP2PAtomicCapabilities(unsigned int *capabilities,
                                                    const CUatomicOperation *operations, unsigned int count,
                                                    CUdevice srcDevice, CUdevice dstDevice);

/* peer copies :9637, :10530, :10452, :11106 and the per-thread variants :186-189 */
PWSIM_API CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                CUcontext srcContext, size_t ByteCount);
PWSIM_API CUresult cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                     CUcontext srcContext, size_t ByteCount);
PWSIM_API CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                     CUcontext srcContext, size_t ByteCount, CUstream hStream);
PWSIM_API CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                          CUcontext srcContext, size_t ByteCount, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy);
PWSIM_API CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy);
PWSIM_API CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream);

/* IPC :9265, :9308, :9352, :9413 (_v2; unversioned :25808), :9450 */
PWSIM_API CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event);
PWSIM_API CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle);
PWSIM_API CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr);
PWSIM_API CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags);
PWSIM_API CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags);
PWSIM_API CUresult cuIpcCloseMemHandle(CUdeviceptr dptr);

/* managed memory :9096, :14434 (_v2; legacy :25769), :14555 (_v2; legacy :25772),
 * :14760, :14804, :15736 */
PWSIM_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
PWSIM_API CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);
PWSIM_API CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);
PWSIM_API CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                           CUstream hStream);
#if PWSIM_MAX_VERSION >= 12020
PWSIM_API CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                  CUmemLocation location);
PWSIM_API CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                         unsigned int flags, CUstream hStream);
PWSIM_API CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                              unsigned int flags, CUstream hStream);
#endif
PWSIM_API CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                          CUdeviceptr devPtr, size_t count);
PWSIM_API CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                           size_t numAttributes, CUdeviceptr devPtr, size_t count);
PWSIM_API CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                          unsigned int flags);
PWSIM_API CUresult cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length,
                                               unsigned int flags);

/* virtual memory management :12747, :12768, :12834, :12861, :12918, :13082, :13116,
 * :13168, :13199, :13221, :13238, :13262 (cuda_sim_vmm.c) */
PWSIM_API CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                       unsigned long long flags);
PWSIM_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
PWSIM_API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags);
PWSIM_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
PWSIM_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                            unsigned long long flags);
PWSIM_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
PWSIM_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count);
PWSIM_API CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                                CUmemAllocationHandleType handleType,
                                                unsigned long long flags);
PWSIM_API CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                                  CUmemAllocationHandleType shHandleType);
PWSIM_API CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                                 CUmemAllocationGranularity_flags option);
PWSIM_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                          CUmemGenericAllocationHandle handle);
PWSIM_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr);

/* stream-ordered pools :5646, :13352, :13485, :13553, :13576, :13685, :13714, :13743,
 * :13767, :13796 (cuda_sim_vmm.c) */
PWSIM_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev);
PWSIM_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
PWSIM_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
PWSIM_API CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count);
PWSIM_API CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps);
PWSIM_API CUresult cuMemPoolDestroy(CUmemoryPool pool);
PWSIM_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                           CUstream hStream);
PWSIM_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                                CUstream hStream);
PWSIM_API CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                                    CUmemAllocationHandleType handleType,
                                                    unsigned long long flags);
PWSIM_API CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                                      CUmemAllocationHandleType handleType,
                                                      unsigned long long flags);
PWSIM_API CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr);
PWSIM_API CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                          CUmemPoolPtrExportData *shareData);

/* batch prefetch (13.0) :14596, :14677 and the per-thread variants :101, :103 */
#if PWSIM_MAX_VERSION >= 13000
PWSIM_API CUresult cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                           CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                           size_t numPrefetchLocs, unsigned long long flags,
                                           CUstream hStream);
PWSIM_API CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                                CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                size_t numPrefetchLocs, unsigned long long flags,
                                                CUstream hStream);
PWSIM_API CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                                     CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                     size_t numPrefetchLocs, unsigned long long flags,
                                                     CUstream hStream);
PWSIM_API CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                                          CUmemLocation *prefetchLocs,
                                                          size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                                          unsigned long long flags, CUstream hStream);
#endif

/* driver entry points :25830 (4 arguments, 11030), :24347 (_v2, 12000) */
PWSIM_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
#if PWSIM_MAX_VERSION >= 12000
PWSIM_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *symbolStatus);
#endif

/* implicit copies and allocations (cuda_sim_copy.c): :9607 cuMemcpy (_ptds :184),
 * :10497 cuMemcpyAsync (_ptsz :185), :10653 cuMemcpyDtoDAsync_v2 (_v2_ptsz :119),
 * :10097/:10906 cuMemcpy2D[Async]_v2 (:114, :120), :10428/:11080 cuMemcpy3D[Async]_v2
 * (:116, :121), batches :25716-25726 (12.8) and :11176/:11243 (13.0),
 * :8671 cuMemAllocPitch_v2, :13352 cuMemAllocAsync, :13685 cuMemAllocFromPoolAsync */
PWSIM_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
PWSIM_API CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
PWSIM_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
PWSIM_API CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
PWSIM_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                        CUstream hStream);
PWSIM_API CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                             CUstream hStream);
PWSIM_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy);
PWSIM_API CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy);
PWSIM_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream);
PWSIM_API CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream);
PWSIM_API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy);
PWSIM_API CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy);
PWSIM_API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream);
#if PWSIM_MAX_VERSION >= 12080
PWSIM_API CUresult cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                      CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                      size_t *failIdx, CUstream hStream);
PWSIM_API CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                           CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                           size_t *failIdx, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DBatchAsync(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx,
                                        unsigned long long flags, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DBatchAsync_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx,
                                             unsigned long long flags, CUstream hStream);
#endif
#if PWSIM_MAX_VERSION >= 13000
PWSIM_API CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                         CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                         CUstream hStream);
PWSIM_API CUresult cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                              size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs,
                                              size_t numAttrs, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DBatchAsync_v2(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
                                           unsigned long long flags, CUstream hStream);
PWSIM_API CUresult cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
                                                unsigned long long flags, CUstream hStream);
#endif
PWSIM_API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                                      unsigned int ElementSizeBytes);

#endif

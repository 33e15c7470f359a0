/*
 * The functions the simulated libcudart.so.13 exports, with CUDA 13.0
 * cuda_runtime_api.h's signatures (line numbers beside each), for the
 * programs that link against it (its self-test, tests/integration/rt.c).
 */
#ifndef PWSIM_CUDART_SIM_API_H
#define PWSIM_CUDART_SIM_API_H

#include "peerwatch/abi/cudart.h"

/* :1165, :1216, :1232, :1659, :1681, devices and errors */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);                                            /* :330 */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags); /* :2798 */
cudaError_t cudaEventCreate(cudaEvent_t *event);                              /* :2761 */
cudaError_t cudaEventDestroy(cudaEvent_t event);                              /* :2981 */
/* :8487, :8529, :8551, :1525 */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr_t attr, int srcDevice, int dstDevice);
/* :5992, :6367, :5573, :5718 and the per-thread variants (:179, :201) */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream);
cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p);
cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p);
cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream);
cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream);
/* :809, :876, :915, :720, :764 */
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr);
cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags);
cudaError_t cudaIpcCloseMemHandle(void *devPtr);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle);
/* :4581, :4550, :4752, :7865, :5957 */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind_t kind);
/* :7399, :7152, :7481, :7524, :2431 */
#ifndef PWSIM_CUDART_12
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise_t advice,
                          struct cudaMemLocation location);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, struct cudaMemLocation location,
                                      unsigned int flags, cudaStream_t stream);
#else
/* CUDA 12.2+: the base names with a device ordinal, the _v2 names with a location */
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise_t advice, int device);
cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, cudaMemoryAdvise_t advice,
                             struct cudaMemLocation location);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count, struct cudaMemLocation location,
                                    unsigned int flags, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void *devPtr, size_t count, struct cudaMemLocation location,
                                         unsigned int flags, cudaStream_t stream);
#endif
cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, cudaMemRangeAttribute_t attribute,
                                     const void *devPtr, size_t count);
cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, cudaMemRangeAttribute_t *attributes,
                                      size_t numAttributes, const void *devPtr, size_t count);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags);
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                          unsigned int flags);

#endif

/*
 * The driver functions the integration programs call, as one table of
 * pointers filled in one of the three ways a program can reach the driver:
 * linked symbols, dlsym on a dlopen'ed libcuda.so.1, or cuGetProcAddress.
 */
#ifndef PW_TEST_DRV_H
#define PW_TEST_DRV_H

#include <stdio.h>
#include <stdlib.h>

#include "peerwatch/abi/cuda.h"

struct drv {
	/* untraced support */
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*EventCreate)(CUevent *, unsigned);
	/* traced */
	CUresult (*DeviceCanAccessPeer)(int *, CUdevice, CUdevice);
	CUresult (*CtxEnablePeerAccess)(CUcontext, unsigned);
	CUresult (*CtxDisablePeerAccess)(CUcontext);
	CUresult (*DeviceGetP2PAttribute)(int *, CUdevice_P2PAttribute, CUdevice, CUdevice);
	CUresult (*MemcpyPeer)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
	CUresult (*MemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
	CUresult (*Memcpy3DPeer)(const CUDA_MEMCPY3D_PEER *);
	CUresult (*Memcpy3DPeerAsync)(const CUDA_MEMCPY3D_PEER *, CUstream);
	CUresult (*IpcGetMemHandle)(CUipcMemHandle *, CUdeviceptr);
	CUresult (*IpcOpenMemHandle)(CUdeviceptr *, CUipcMemHandle, unsigned);
	CUresult (*IpcCloseMemHandle)(CUdeviceptr);
	CUresult (*IpcGetEventHandle)(CUipcEventHandle *, CUevent);
	CUresult (*IpcOpenEventHandle)(CUevent *, CUipcEventHandle);
	CUresult (*MemAllocManaged)(CUdeviceptr *, size_t, unsigned);
	CUresult (*MemAdvise)(CUdeviceptr, size_t, CUmem_advise, CUdevice);         /* legacy ABI */
	CUresult (*MemAdvise_v2)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation); /* 12.2+ */
	CUresult (*MemPrefetchAsync)(CUdeviceptr, size_t, CUdevice, CUstream);      /* legacy ABI */
	CUresult (*MemPrefetchAsync_v2)(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream);
	CUresult (*MemRangeGetAttribute)(void *, size_t, CUmem_range_attribute, CUdeviceptr, size_t);
	CUresult (*MemRangeGetAttributes)(void **, size_t *, CUmem_range_attribute *, size_t, CUdeviceptr,
	                                  size_t);
	CUresult (*StreamAttachMemAsync)(CUstream, CUdeviceptr, size_t, unsigned);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemFreeAsync)(CUdeviceptr, CUstream);
	/* the variant suffix each traced pointer is expected to be recorded with */
	const char *sfx_ptds, *sfx_ptsz, *sfx_prefetch_v2;
};

#define CHECK(call)                                                                          \
	do {                                                                                 \
		CUresult r_ = (call);                                                        \
		if (r_ != CUDA_SUCCESS) {                                                    \
			fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, r_); \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

#endif

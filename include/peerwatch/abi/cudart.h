/*
 * The few CUDA runtime API (libcudart) types, values and error codes
 * peerwatch needs, so that the build needs no CUDA SDK.  Every value below is
 * copied from CUDA 13.0's driver_types.h (DT:line) or cuda_runtime_api.h
 * (RT:line); names are the vendor's so a reader can grep for each one.
 */
#ifndef PEERWATCH_ABI_CUDART_H
#define PEERWATCH_ABI_CUDART_H

#include <stddef.h>

typedef int cudaError_t;                  /* enum cudaError, DT:192 */
typedef struct CUstream_st *cudaStream_t; /* DT:2998 (the driver's CUstream) */
typedef struct CUevent_st *cudaEvent_t;   /* DT:3003 (the driver's CUevent) */
typedef struct cudaArray *cudaArray_t;    /* DT: opaque */
typedef int cudaMemoryAdvise_t;           /* enum cudaMemoryAdvise, DT:1857 */
typedef int cudaMemRangeAttribute_t;      /* enum cudaMemRangeAttribute, DT:1870 */
typedef int cudaDeviceP2PAttr_t;          /* enum cudaDeviceP2PAttr, DT:2408 */
typedef int cudaMemcpyKind_t;             /* enum cudaMemcpyKind, DT:1245 */

#define CUDA_IPC_HANDLE_SIZE 64 /* DT:2567 */
typedef struct cudaIpcEventHandle_st {
	char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcEventHandle_t; /* DT:2572 */
typedef struct cudaIpcMemHandle_st {
	char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcMemHandle_t; /* DT:2580 */

struct cudaMemLocation {
	int type; /* enum cudaMemLocationType, DT:2132 */
	int id;
}; /* DT:2147 */

struct cudaPitchedPtr {
	void *ptr;
	size_t pitch, xsize, ysize;
}; /* DT:1259 */
struct cudaExtent {
	size_t width, height, depth;
}; /* DT:1272 */
struct cudaPos {
	size_t x, y, z;
}; /* DT:1284 */
struct cudaMemcpy3DPeerParms {
	cudaArray_t srcArray;
	struct cudaPos srcPos;
	struct cudaPitchedPtr srcPtr;
	int srcDevice;
	cudaArray_t dstArray;
	struct cudaPos dstPos;
	struct cudaPitchedPtr dstPtr;
	int dstDevice;
	struct cudaExtent extent;
}; /* DT:1320 */

/* cudaError values (DT:199 onwards) that peerwatch names or the simulator returns. */
enum {
	cudaSuccess = 0,                         /* DT:199 */
	cudaErrorInvalidValue = 1,               /* DT:205 */
	cudaErrorMemoryAllocation = 2,           /* DT:211 */
	cudaErrorInitializationError = 3,        /* DT:217 */
	cudaErrorCudartUnloading = 4,            /* DT:224 */
	cudaErrorInvalidDevicePointer = 17,      /* DT:289 */
	cudaErrorInsufficientDriver = 35,        /* DT:399 */
	cudaErrorNoDevice = 100,                 /* DT:530 */
	cudaErrorInvalidDevice = 101,            /* DT:537 */
	cudaErrorDeviceUninitialized = 201,      /* DT:571 */
	cudaErrorMapBufferObjectFailed = 205,    /* DT:576 */
	cudaErrorAlreadyMapped = 208,            /* DT:592 */
	cudaErrorPeerAccessUnsupported = 217,    /* DT:646 */
	cudaErrorInvalidResourceHandle = 400,    /* DT:738 */
	cudaErrorSymbolNotFound = 500,           /* DT:759 */
	cudaErrorNotReady = 600,                 /* DT:767 */
	cudaErrorIllegalAddress = 700,           /* DT:775 */
	cudaErrorPeerAccessAlreadyEnabled = 704, /* DT:808 */
	cudaErrorPeerAccessNotEnabled = 705,     /* DT:815 */
	cudaErrorTooManyPeers = 711,             /* DT:849 */
	cudaErrorNotPermitted = 800,             /* DT:939 */
	cudaErrorNotSupported = 801,             /* DT:945 */
	cudaErrorStreamCaptureUnsupported = 900, /* DT:1016 */
	cudaErrorUnknown = 999,                  /* DT:1115 */
};

#define cudaStreamLegacy ((cudaStream_t)0x1)    /* DT:111 */
#define cudaStreamPerThread ((cudaStream_t)0x2) /* DT:121 */
#define cudaEventDisableTiming 0x02             /* DT:125 */
#define cudaEventInterprocess 0x04              /* DT:126 */
#define cudaIpcMemLazyEnablePeerAccess 0x01     /* DT:156 */
#define cudaMemAttachGlobal 0x01                /* DT:158 */
#define cudaMemAttachHost 0x02                  /* DT:159 */
#define cudaMemAttachSingle 0x04                /* DT:160 */
#define cudaCpuDeviceId ((int)-1)               /* DT:165 */
#define cudaInvalidDeviceId ((int)-2)           /* DT:166 */

/* enum cudaMemcpyKind, DT:1247-1251 */
#define cudaMemcpyHostToHost 0
#define cudaMemcpyHostToDevice 1
#define cudaMemcpyDeviceToHost 2
#define cudaMemcpyDeviceToDevice 3
#define cudaMemcpyDefault 4

/* enum cudaMemoryAdvise, DT:1857-1865, and enum cudaMemRangeAttribute,
 * DT:1870-1880: the same values as the driver's CUmem_advise and
 * CUmem_range_attribute. */
#define cudaMemAdviseSetReadMostly 1
#define cudaMemAdviseUnsetReadMostly 2
#define cudaMemAdviseSetPreferredLocation 3
#define cudaMemAdviseUnsetPreferredLocation 4
#define cudaMemAdviseSetAccessedBy 5
#define cudaMemAdviseUnsetAccessedBy 6
#define cudaMemRangeAttributeReadMostly 1
#define cudaMemRangeAttributePreferredLocation 2
#define cudaMemRangeAttributeAccessedBy 3
#define cudaMemRangeAttributeLastPrefetchLocation 4

/* enum cudaMemLocationType, DT:2133-2138 */
#define cudaMemLocationTypeInvalid 0
#define cudaMemLocationTypeDevice 1
#define cudaMemLocationTypeHost 2
#define cudaMemLocationTypeHostNuma 3
#define cudaMemLocationTypeHostNumaCurrent 4

/* enum cudaMemoryAdvise DT:1859-1864, cudaMemRangeAttribute DT:1872-1879 and
 * cudaDeviceP2PAttr DT:2409-2414 have the driver's values (abi/cuda.h). */

#endif

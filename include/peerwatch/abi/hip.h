/*
 * The few HIP runtime types, values and error codes peerwatch needs, so that
 * the build needs no ROCm SDK.  Names are the vendor's, so each can be
 * grepped in the vendor header.  Sources:
 *   [H52] Debian bookworm libamdhip64-dev 5.2.3: /usr/include/hip/hip_runtime_api.h
 *         (line numbers below are that file's)
 *   [H62] ROCm/HIP rocm-6.x include/hip/hip_runtime_api.h
 *   [HRS] ROCm/rocm-systems projects/hip/include/hip/hip_runtime_api.h (7.x)
 *   [HRD] ROCm/rocm-systems projects/hip/include/hip/driver_types.h (7.x)
 * Values that changed between versions are given for each version, and the
 * layer picks the one of the runtime it runs on (hipRuntimeGetVersion).
 */
#ifndef PEERWATCH_ABI_HIP_H
#define PEERWATCH_ABI_HIP_H

#include <stddef.h>
#include <stdint.h>

typedef int hipError_t;                      /* enum hipError_t, 4 bytes, [H52]:231 (facts A3) */
typedef int hipDevice_t;                     /* [H52]:538 */
typedef struct ihipCtx_t *hipCtx_t;          /* [H52]:536 */
typedef struct ihipStream_t *hipStream_t;    /* [H52]:545 */
typedef struct ihipEvent_t *hipEvent_t;      /* [H52]:573 */
typedef int hipDeviceP2PAttr;                /* enum, [H52]:539 */
typedef int hipMemoryAdvise;                 /* enum, [H52]:710 */
typedef int hipMemRangeAttribute;            /* enum, [H52]:747 */
typedef int hipMemoryType;                   /* enum, [H52]:159; renumbered in 6.0 (below) */
typedef int hipMemLocationType;              /* enum, [H52]:825 */
typedef int hipDriverProcAddressQueryResult; /* enum, [H62] 6.2 (facts A4) */
typedef int hipMemcpyKind;                   /* enum, [H52] driver_types.h:344-351 */
typedef int hipDeviceAttribute_t;            /* enum, [H52]:355 */
typedef void *hipDeviceptr_t;                /* [H52] driver_types.h:40 */
/* hipMemcpyKind values, [H52] driver_types.h:345-350 */
#define hipMemcpyHostToHost 0
#define hipMemcpyHostToDevice 1
#define hipMemcpyDeviceToHost 2
#define hipMemcpyDeviceToDevice 3
#define hipMemcpyDefault 4

#define HIP_IPC_HANDLE_SIZE 64 /* [H52]:547, same in [H62], [HRS] */
typedef struct hipIpcMemHandle_st {
	char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcMemHandle_t; /* [H52]:548 */
typedef struct hipIpcEventHandle_st {
	char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcEventHandle_t; /* [H52]:551 */

/* 8 bytes, passed by value to the 7.1 _v2 calls; [H52]:834, [HRS]. */
typedef struct hipMemLocation {
	hipMemLocationType type;
	int id;
} hipMemLocation;

/* 32 bytes; field 0 is "memoryType" in 5.x, "type" from 6.0 ([H52]:197, facts A3). */
typedef struct hipPointerAttribute_t {
	hipMemoryType type;
	int device;
	void *devicePointer;
	void *hostPointer;
	int isManaged;
	unsigned allocationFlags;
} hipPointerAttribute_t;

/* hipError_t values used by name, [H52]:231-345 (identical to 6.2, facts A6). */
#define hipSuccess 0
#define hipErrorInvalidValue 1
#define hipErrorOutOfMemory 2
#define hipErrorNotInitialized 3
#define hipErrorDeinitialized 4
#define hipErrorInvalidDevicePointer 17
#define hipErrorInvalidMemcpyDirection 21
#define hipErrorInsufficientDriver 35
#define hipErrorNoDevice 100
#define hipErrorInvalidDevice 101
#define hipErrorInvalidImage 200
#define hipErrorInvalidContext 201
#define hipErrorContextAlreadyCurrent 202
#define hipErrorMapFailed 205
#define hipErrorUnmapFailed 206
#define hipErrorAlreadyMapped 208
#define hipErrorNotMapped 211
#define hipErrorContextAlreadyInUse 216
#define hipErrorPeerAccessUnsupported 217
#define hipErrorSharedObjectSymbolNotFound 302
#define hipErrorInvalidHandle 400
#define hipErrorIllegalState 401
#define hipErrorNotFound 500
#define hipErrorNotReady 600
#define hipErrorIllegalAddress 700
#define hipErrorPeerAccessAlreadyEnabled 704
#define hipErrorPeerAccessNotEnabled 705
#define hipErrorSetOnActiveProcess 708
#define hipErrorContextIsDestroyed 709
#define hipErrorNotSupported 801
#define hipErrorStreamCaptureUnsupported 900
#define hipErrorUnknown 999
#define hipErrorRuntimeMemory 1052
#define hipErrorRuntimeOther 1053

/* hipIpcMemLazyEnablePeerAccess: 0 in 5.x ([H52]:546), 0x01 from 6.0.0 ([H62], [HRS]). */
#define PW_HIP_IPC_LAZY_5 0x0
#define PW_HIP_IPC_LAZY_6 0x1

/* [H52]:636-642, same in all. */
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipMemAttachSingle 0x04

/* Event flags, [H52]:597, :600: an IPC event needs both. */
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4

/* [H52]:692-693, same in all. */
#define hipCpuDeviceId ((int)-1)
#define hipInvalidDeviceId ((int)-2)

/* [H52]:76-78: what hipDeviceGetUuid writes (ROCm: the 16 ASCII hex digits
 * of the device's unique id).  The identity calls peerwatch asks once
 * ([H52] :1275, :1287, :1307):
 *   hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
 *   hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device);
 *   hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device); */
typedef struct hipUUID_t {
	char bytes[16];
} hipUUID;

/* hipDeviceP2PAttr, [H52]:539-544. */
#define hipDevP2PAttrPerformanceRank 0
#define hipDevP2PAttrAccessSupported 1
#define hipDevP2PAttrNativeAtomicSupported 2
#define hipDevP2PAttrHipArrayAccessSupported 3

/* hipMemoryAdvise, [H52]:710-727 (CoarseGrain is already in 5.2). */
#define hipMemAdviseSetReadMostly 1
#define hipMemAdviseUnsetReadMostly 2
#define hipMemAdviseSetPreferredLocation 3
#define hipMemAdviseUnsetPreferredLocation 4
#define hipMemAdviseSetAccessedBy 5
#define hipMemAdviseUnsetAccessedBy 6
#define hipMemAdviseSetCoarseGrain 100
#define hipMemAdviseUnsetCoarseGrain 101

/* hipDeviceAttribute_t, [H52]:384 "Device supports allocating managed memory
 * on this system" (24, counted from hipDeviceAttributeCudaCompatibleBegin 0;
 * the same in 6.x and 7.x). */
#define hipDeviceAttributeManagedMemory 24

/* hipMemRangeAttribute, [H52]:747-756. */
#define hipMemRangeAttributeReadMostly 1
#define hipMemRangeAttributePreferredLocation 2
#define hipMemRangeAttributeAccessedBy 3
#define hipMemRangeAttributeLastPrefetchLocation 4
#define hipMemRangeAttributeCoherencyMode 100

/* hipMemoryType before 6.0: [H52]:159-166 (5.3-5.7 add Managed = 4, facts A4). */
#define PW_HIP5_MEMORY_TYPE_HOST 0
#define PW_HIP5_MEMORY_TYPE_DEVICE 1
#define PW_HIP5_MEMORY_TYPE_ARRAY 2
#define PW_HIP5_MEMORY_TYPE_UNIFIED 3
#define PW_HIP5_MEMORY_TYPE_MANAGED 4
/* From 6.0 ([H62], [HRS], facts A4). */
#define PW_HIP6_MEMORY_TYPE_UNREGISTERED 0
#define PW_HIP6_MEMORY_TYPE_HOST 1
#define PW_HIP6_MEMORY_TYPE_DEVICE 2
#define PW_HIP6_MEMORY_TYPE_MANAGED 3
#define PW_HIP6_MEMORY_TYPE_ARRAY 10
#define PW_HIP6_MEMORY_TYPE_UNIFIED 11

/* hipMemLocationType: Invalid 0, Device 1 ([H52]:825-828).  Host 2, HostNuma 3,
 * HostNumaCurrent 4 come from secondary bindings of 7.x (facts D: not
 * confirmed in a primary header). */
#define hipMemLocationTypeInvalid 0
#define hipMemLocationTypeDevice 1
#define hipMemLocationTypeHost 2
#define hipMemLocationTypeHostNuma 3
#define hipMemLocationTypeHostNumaCurrent 4

/* Stream-ordered pools shared between processes (the pool IPC calls came
 * in 5.2, exported at hip_5.1).  hipMemPool_t is [H52]:559; the handle
 * types [H52]:873-878, the same in [H62] and in 7.x through 7.2 (a fabric
 * type announced for later releases is written as its number); the export
 * data [H52]:895-897, 64 opaque bytes.  hipMemPoolProps (not read here)
 * gained maxSize in 6.x, inside its reserved bytes. */
typedef struct ihipMemPoolHandle_t *hipMemPool_t;
typedef int hipMemAllocationHandleType; /* enum */
#define hipMemHandleTypeNone 0x0
#define hipMemHandleTypePosixFileDescriptor 0x1
#define hipMemHandleTypeWin32 0x2
#define hipMemHandleTypeWin32Kmt 0x4
typedef struct hipMemPoolPtrExportData {
	unsigned char reserved[64];
} hipMemPoolPtrExportData;

/* Virtual memory (5.2, exported at hip_5.1): [H52]:6191 the allocation
 * handle; :843-855 the access descriptor, the same in [H62] and [HRS].
 * hipMemAllocationProp (32 bytes) was reordered in 5.3 (ROCm/HIP
 * rocm-5.3.0, the same in [H62] and [HRS]): hipMemAllocationProp here is
 * that layout, struct pw_hip52_mem_allocation_prop the one of 5.2
 * ([H52]:6179-6186); the layer decodes it by the runtime's version. */
typedef struct ihipMemGenericAllocationHandle *hipMemGenericAllocationHandle_t;
typedef struct hipMemAllocationProp {
	int type; /* hipMemAllocationType: hipMemAllocationTypePinned 1 */
	hipMemAllocationHandleType requestedHandleType;
	hipMemLocation location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
	} allocFlags;
} hipMemAllocationProp;
struct pw_hip52_mem_allocation_prop {
	unsigned char compressionType;
	hipMemLocation location;
	hipMemAllocationHandleType requestedHandleType;
	int type;
	unsigned short usage;
	void *win32HandleMetaData;
};
_Static_assert(sizeof(hipMemAllocationProp) == 32 && sizeof(struct pw_hip52_mem_allocation_prop) == 32,
               "hipMemAllocationProp is 32 bytes in 5.2 and after");
/* The first runtime (HIP_VERSION) with the 5.3 layout. */
#define PW_HIP_ALLOCPROP_53 50300000
#define hipMemAccessFlagsProtNone 0
#define hipMemAccessFlagsProtRead 1
#define hipMemAccessFlagsProtReadWrite 3
typedef struct hipMemAccessDesc {
	hipMemLocation location;
	int flags; /* hipMemAccessFlags */
} hipMemAccessDesc;

/* The 3D peer copy and the batch copy of 7.1 (exported at hip_7.1) and the
 * batch prefetch of 7.2 (hip_7.2).  [HRD]: hipPitchedPtr, hipExtent, hipPos
 * (the same in [H52] driver_types.h), hipMemcpy3DPeerParms (7.1: devices by
 * id, no contexts), hipMemcpySrcAccessOrder and hipMemcpyAttributes. */
typedef struct hipArray *hipArray_t; /* [H52] driver_types.h: opaque */
/* [H52] driver_types.h:352, :358, :364 */
typedef struct hipPitchedPtr {
	void *ptr;
	size_t pitch;
	size_t xsize;
	size_t ysize;
} hipPitchedPtr;
typedef struct hipExtent {
	size_t width; /* bytes, for linear memory */
	size_t height;
	size_t depth;
} hipExtent;
typedef struct hipPos {
	size_t x;
	size_t y;
	size_t z;
} hipPos;
typedef struct hipMemcpy3DPeerParms {
	hipArray_t srcArray;
	hipPos srcPos;
	hipPitchedPtr srcPtr;
	int srcDevice;
	hipArray_t dstArray;
	hipPos dstPos;
	hipPitchedPtr dstPtr;
	int dstDevice;
	hipExtent extent;
} hipMemcpy3DPeerParms;
/* [H52] driver_types.h:369-378 (the same in [HRD]): hipMemcpy3D's */
typedef struct hipMemcpy3DParms {
	hipArray_t srcArray;
	hipPos srcPos;
	hipPitchedPtr srcPtr;
	hipArray_t dstArray;
	hipPos dstPos;
	hipPitchedPtr dstPtr;
	hipExtent extent;
	hipMemcpyKind kind;
} hipMemcpy3DParms;
_Static_assert(sizeof(hipMemcpy3DParms) == 2 * (8 + 24 + 32) + 24 + 8, "hipMemcpy3DParms");
/* each side: array 8, pos 24, pitched ptr 32, device 4 and 4 of padding */
_Static_assert(sizeof(hipMemcpy3DPeerParms) == 2 * (8 + 24 + 32 + 8) + 24,
               "hipMemcpy3DPeerParms: two {array, pos, pitched ptr, device} sides and the extent");
typedef int hipMemcpySrcAccessOrder; /* enum */
#define hipMemcpySrcAccessOrderInvalid 0x0
#define hipMemcpySrcAccessOrderStream 0x1
#define hipMemcpySrcAccessOrderDuringApiCall 0x2
#define hipMemcpySrcAccessOrderAny 0x3
typedef struct hipMemcpyAttributes {
	hipMemcpySrcAccessOrder srcAccessOrder;
	hipMemLocation srcLocHint;
	hipMemLocation dstLocHint;
	unsigned int flags; /* hipMemcpyFlags */
} hipMemcpyAttributes;
/* 7.1 hipMemcpy3DBatchAsync's operations ([HRD]): each side a pointer
 * (rowLength and layerHeight in elements, 0: packed) or an array with an
 * offset; the extent's width in bytes for two pointers.  The layout is
 * CUDA's CUDA_MEMCPY3D_BATCH_OP's (abi/cuda.h), member for member. */
typedef int hipMemcpy3DOperandType;
#define hipMemcpyOperandTypePointer 0x1
#define hipMemcpyOperandTypeArray 0x2
typedef struct hipOffset3D {
	size_t x;
	size_t y;
	size_t z;
} hipOffset3D;
typedef struct hipMemcpy3DOperand {
	hipMemcpy3DOperandType type;
	union {
		struct {
			void *ptr;
			size_t rowLength;
			size_t layerHeight;
			hipMemLocation locHint;
		} ptr;
		struct {
			hipArray_t array;
			hipOffset3D offset;
		} array;
	} op;
} hipMemcpy3DOperand;
typedef struct hipMemcpy3DBatchOp {
	hipMemcpy3DOperand src;
	hipMemcpy3DOperand dst;
	hipExtent extent;
	hipMemcpySrcAccessOrder srcAccessOrder;
	unsigned int flags;
} hipMemcpy3DBatchOp;

/* hipDriverProcAddressQueryResult, [H62] 6.2 (facts A4). */
#define HIP_GET_PROC_ADDRESS_SUCCESS 0
#define HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
#define HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT 2

#endif

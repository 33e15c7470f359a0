/*
 * The few CUDA driver API types, values and error codes peerwatch needs, so that
 * the build needs no CUDA SDK.  Every value below is copied from CUDA 13.0's
 * cuda.h (line numbers in the comments); names are the vendor's so a reader can
 * grep the vendor header for each one.
 */
#ifndef PEERWATCH_ABI_CUDA_H
#define PEERWATCH_ABI_CUDA_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;                       /* enum cudaError_enum, :2511 */
typedef int CUdevice;                       /* CUdevice_v1, :280 */
typedef unsigned long long CUdeviceptr;     /* CUdeviceptr_v2 on 64-bit, :274 */
typedef unsigned int CUdeviceptr_v1;        /* legacy 32-bit ABI, :25556 */
typedef uint64_t cuuint64_t;                /* :63 */
typedef struct CUctx_st *CUcontext;         /* :282 */
typedef struct CUevent_st *CUevent;         /* :291 */
typedef struct CUstream_st *CUstream;       /* :292 */
typedef struct CUarray_st *CUarray;         /* :287 */
typedef int CUmem_advise;                   /* enum CUmem_advise_enum, :1129 */
typedef int CUmem_range_attribute;          /* enum CUmem_range_attribute_enum, :1138 */
typedef int CUpointer_attribute;            /* enum CUpointer_attribute_enum, :900 */
typedef int CUdevice_P2PAttribute;          /* enum CUdevice_P2PAttribute_enum, :3184 */
typedef int CUatomicOperation;              /* enum CUatomicOperation_enum, :3197 */
typedef int CUmemorytype;                   /* enum CUmemorytype_enum, :1110 */
typedef int CUmemLocationType;              /* enum CUmemLocationType_enum, :4157 */
typedef int CUdriverProcAddressQueryResult; /* :2419 */

#define CU_IPC_HANDLE_SIZE 64 /* :325 */
typedef struct CUipcMemHandle_st {
	char reserved[CU_IPC_HANDLE_SIZE];
} CUipcMemHandle; /* :349 */
typedef struct CUipcEventHandle_st {
	char reserved[CU_IPC_HANDLE_SIZE];
} CUipcEventHandle; /* :341 */
typedef struct CUuuid_st {
	char bytes[16];
} CUuuid; /* :317, what cuDeviceGetUuid_v2 (:5378 with :153) writes */

typedef struct CUmemLocation_st {
	CUmemLocationType type;
	int id;
} CUmemLocation; /* :4278 */

typedef struct CUDA_MEMCPY3D_PEER_st {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	CUcontext srcContext;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	CUcontext dstContext;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D_PEER; /* :3367 */

/* CUresult values (:2517 onwards) that peerwatch names or the simulator returns. */
enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_MAP_FAILED = 205,
	CUDA_ERROR_ALREADY_MAPPED = 208,
	CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
	CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
	CUDA_ERROR_TOO_MANY_PEERS = 711,
	CUDA_ERROR_NOT_PERMITTED = 800,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_UNKNOWN = 999,
};

/* :358 */
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 0x1
/* :366-368 */
#define CU_MEM_ATTACH_GLOBAL 0x1
#define CU_MEM_ATTACH_HOST 0x2
#define CU_MEM_ATTACH_SINGLE 0x4
/* :440, :450 */
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)
/* :4955, :4960 */
#define CU_DEVICE_CPU ((CUdevice)-1)
#define CU_DEVICE_INVALID ((CUdevice)-2)

/* CUmemorytype, :1111-1114 */
#define CU_MEMORYTYPE_HOST 0x01
#define CU_MEMORYTYPE_DEVICE 0x02
#define CU_MEMORYTYPE_ARRAY 0x03
#define CU_MEMORYTYPE_UNIFIED 0x04

/* CUpointer_attribute, :901-913 */
#define CU_POINTER_ATTRIBUTE_CONTEXT 1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_DEVICE_POINTER 3
#define CU_POINTER_ATTRIBUTE_HOST_POINTER 4
#define CU_POINTER_ATTRIBUTE_BUFFER_ID 7
#define CU_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE 12
#define CU_POINTER_ATTRIBUTE_MAPPED 13

/* CUmem_advise, :1130-1135 */
#define CU_MEM_ADVISE_SET_READ_MOSTLY 1
#define CU_MEM_ADVISE_UNSET_READ_MOSTLY 2
#define CU_MEM_ADVISE_SET_PREFERRED_LOCATION 3
#define CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION 4
#define CU_MEM_ADVISE_SET_ACCESSED_BY 5
#define CU_MEM_ADVISE_UNSET_ACCESSED_BY 6

/* CUmem_range_attribute, :1139-1146 */
#define CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY 1
#define CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION 2
#define CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY 3
#define CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION 4
#define CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE 5
#define CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID 6
#define CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE 7
#define CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID 8

/* CUdevice_P2PAttribute, :3185-3191 */
#define CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK 0x01
#define CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED 0x02
#define CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED 0x03
#define CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED 0x04
#define CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED 0x05

/* CUatomicOperation, :3198-3210 (CUDA 13.0) */
#define CU_ATOMIC_OPERATION_INTEGER_ADD 0
#define CU_ATOMIC_OPERATION_INTEGER_MIN 1
#define CU_ATOMIC_OPERATION_INTEGER_MAX 2
#define CU_ATOMIC_OPERATION_INTEGER_INCREMENT 3
#define CU_ATOMIC_OPERATION_INTEGER_DECREMENT 4
#define CU_ATOMIC_OPERATION_AND 5
#define CU_ATOMIC_OPERATION_OR 6
#define CU_ATOMIC_OPERATION_XOR 7
#define CU_ATOMIC_OPERATION_EXCHANGE 8
#define CU_ATOMIC_OPERATION_CAS 9
#define CU_ATOMIC_OPERATION_FLOAT_ADD 10
#define CU_ATOMIC_OPERATION_FLOAT_MIN 11
#define CU_ATOMIC_OPERATION_FLOAT_MAX 12

/* CUatomicOperationCapability, :3217-3225 (bits) */
#define CU_ATOMIC_CAPABILITY_SIGNED (1u << 0)
#define CU_ATOMIC_CAPABILITY_UNSIGNED (1u << 1)
#define CU_ATOMIC_CAPABILITY_REDUCTION (1u << 2)
#define CU_ATOMIC_CAPABILITY_SCALAR_32 (1u << 3)
#define CU_ATOMIC_CAPABILITY_SCALAR_64 (1u << 4)
#define CU_ATOMIC_CAPABILITY_SCALAR_128 (1u << 5)
#define CU_ATOMIC_CAPABILITY_VECTOR_32x4 (1u << 6)

/* CUmemLocationType, :4158-4163 */
#define CU_MEM_LOCATION_TYPE_INVALID 0x0
#define CU_MEM_LOCATION_TYPE_DEVICE 0x1
#define CU_MEM_LOCATION_TYPE_HOST 0x2
#define CU_MEM_LOCATION_TYPE_HOST_NUMA 0x3
#define CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT 0x4

/* cuGetProcAddress flags and status, :2411-2413, :2420-2422 */
#define CU_GET_PROC_ADDRESS_DEFAULT 0
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM (1 << 0)
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (1 << 1)
#define CU_GET_PROC_ADDRESS_SUCCESS 0
#define CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
#define CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT 2

/* cuStreamCreate / cuEventCreate flags, :428-429, :456-459 */
#define CU_STREAM_DEFAULT 0x0
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_BLOCKING_SYNC 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_EVENT_INTERPROCESS 0x4

/* Appended for the simulated driver (tests/sim). */
typedef int CUdevice_attribute; /* enum CUdevice_attribute_enum, :723 */

/* CUdevice_attribute, :741, :744, :761-762, :769, :778, :803-804, :811, :816-817 */
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY 19
#define CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING 41
#define CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY 83
#define CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS 88
#define CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS 89

/* CUpointer_attribute, :906 */
#define CU_POINTER_ATTRIBUTE_SYNC_MEMOPS 6

/* ---- implicit copies and allocations (cuda.h of CUDA 13.0) ---- */
typedef struct CUmemPoolHandle_st *CUmemoryPool; /* :303 */

typedef struct CUDA_MEMCPY2D_st {
	size_t srcXInBytes, srcY;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} CUDA_MEMCPY2D; /* CUDA_MEMCPY2D_v2, :3306 */

typedef struct CUDA_MEMCPY3D_st {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	void *reserved0;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	void *reserved1;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D; /* CUDA_MEMCPY3D_v2, :3333 */

typedef int CUmemcpySrcAccessOrder;                    /* enum CUmemcpySrcAccessOrder_enum, :4537 */
#define CU_MEMCPY_SRC_ACCESS_ORDER_INVALID 0x0         /* :4541 */
#define CU_MEMCPY_SRC_ACCESS_ORDER_STREAM 0x1          /* :4546 */
#define CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL 0x2 /* :4557 */
#define CU_MEMCPY_SRC_ACCESS_ORDER_ANY 0x3             /* :4566 */
#define CU_MEMCPY_FLAG_DEFAULT 0x0                     /* :4525 */
#define CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE 0x1 /* :4530 */

typedef struct CUmemcpyAttributes_st {
	CUmemcpySrcAccessOrder srcAccessOrder;
	CUmemLocation srcLocHint;
	CUmemLocation dstLocHint;
	unsigned int flags;
} CUmemcpyAttributes; /* CUmemcpyAttributes_v1, :4574 */

typedef int CUmemcpy3DOperandType;         /* enum CUmemcpy3DOperandType_enum, :4585 */
#define CU_MEMCPY_OPERAND_TYPE_POINTER 0x1 /* :4586 */
#define CU_MEMCPY_OPERAND_TYPE_ARRAY 0x2   /* :4587 */

typedef struct CUoffset3D_st {
	size_t x, y, z;
} CUoffset3D; /* :4594 */
typedef struct CUextent3D_st {
	size_t width, height, depth;
} CUextent3D; /* :4604 */

typedef struct CUmemcpy3DOperand_st {
	CUmemcpy3DOperandType type;
	union {
		struct {
			CUdeviceptr ptr;
			size_t rowLength;   /* elements (bytes for pointer-to-pointer copies) */
			size_t layerHeight; /* elements */
			CUmemLocation locHint;
		} ptr;
		struct {
			CUarray array;
			CUoffset3D offset;
		} array;
	} op;
} CUmemcpy3DOperand; /* CUmemcpy3DOperand_v1, :4614 */

typedef struct CUDA_MEMCPY3D_BATCH_OP_st {
	CUmemcpy3DOperand src;
	CUmemcpy3DOperand dst;
	CUextent3D extent;
	CUmemcpySrcAccessOrder srcAccessOrder;
	unsigned int flags;
} CUDA_MEMCPY3D_BATCH_OP; /* CUDA_MEMCPY3D_BATCH_OP_v1, :4638 */

/* ---- Virtual memory management, stream-ordered pools, batch prefetch ---- */
typedef unsigned long long CUmemGenericAllocationHandle; /* :4129-4130 */
typedef int CUmemAllocationHandleType;                   /* enum CUmemAllocationHandleType_enum, :4135 */
typedef int CUmemAccess_flags;                           /* enum CUmemAccess_flags_enum, :4147 */
typedef int CUmemAllocationType;                         /* enum CUmemAllocationType_enum, :4170 */
typedef int CUmemAllocationGranularity_flags;            /* :4186 */

/* CUmemAllocationHandleType, :4136-4140 */
#define CU_MEM_HANDLE_TYPE_NONE 0x0
#define CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR 0x1
#define CU_MEM_HANDLE_TYPE_WIN32 0x2
#define CU_MEM_HANDLE_TYPE_WIN32_KMT 0x4
#define CU_MEM_HANDLE_TYPE_FABRIC 0x8
/* CUmemAccess_flags, :4148-4150 */
#define CU_MEM_ACCESS_FLAGS_PROT_NONE 0x0
#define CU_MEM_ACCESS_FLAGS_PROT_READ 0x1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 0x3
/* CUmemAllocationType, :4171-4178 */
#define CU_MEM_ALLOCATION_TYPE_INVALID 0x0
#define CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define CU_MEM_ALLOCATION_TYPE_MANAGED 0x2
/* CUmemAllocationGranularity_flags, :4187-4188 */
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0x0
#define CU_MEM_ALLOC_GRANULARITY_RECOMMENDED 0x1
/* CUpointer_attribute, :910, :917 */
#define CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE 10
#define CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE 17

typedef struct CUmemFabricHandle_st {
	unsigned char data[CU_IPC_HANDLE_SIZE];
} CUmemFabricHandle; /* :333 */

typedef struct CUmemAllocationProp_st {
	CUmemAllocationType type;
	CUmemAllocationHandleType requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp; /* :4305 */

typedef struct CUmemAccessDesc_st {
	CUmemLocation location;
	CUmemAccess_flags flags;
} CUmemAccessDesc; /* :4377 */

typedef struct CUmemPoolProps_st {
	CUmemAllocationType allocType;
	CUmemAllocationHandleType handleTypes;
	CUmemLocation location;
	void *win32SecurityAttributes;
	size_t maxSize;
	unsigned short usage;
	unsigned char reserved[54];
} CUmemPoolProps; /* :4496 */

typedef struct CUmemPoolPtrExportData_st {
	unsigned char reserved[64];
} CUmemPoolPtrExportData; /* :4516 */

#endif

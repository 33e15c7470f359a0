/*
 * The simulated HIP runtime's own declarations (no ROCm header): types,
 * constants and every exported function, with the signatures and values of
 * docs/facts-hip-acl.md (A2 declarations, A3 types, A4 constants,
 * A6 error codes).  The simulator's sources include it so that the compiler
 * checks each definition; the self-test includes it to call the simulator.
 *
 * PWSIM_HIP_MAJOR (5, 6 or 7) selects the ROCm major the build imitates:
 * hipIpcMemLazyEnablePeerAccess and hipMemoryType values (A4), and which
 * functions exist (hipGetProcAddress from 6, the _v2 functions from 7.1).
 */
#ifndef PWSIM_HIP_SIM_API_H
#define PWSIM_HIP_SIM_API_H

#include <stddef.h>
#include <stdint.h>

#ifndef PWSIM_HIP_MAJOR
#define PWSIM_HIP_MAJOR 6
#endif

#define PWSIM_HIP_API __attribute__((visibility("default")))

/* A6: hipError_t (4 bytes; identical 5.2.3 through 6.2.0).  709 is
 * hipErrorContextIsDestroyed, what clr's hipMemcpyPeerAsync returns for a
 * stream that is not valid (hip_peer.cpp). */
typedef enum hipError_t {
	hipSuccess = 0,
	hipErrorInvalidValue = 1,
	hipErrorOutOfMemory = 2,
	hipErrorNotInitialized = 3,
	hipErrorInvalidDevicePointer = 17,
	hipErrorNoDevice = 100,
	hipErrorInvalidDevice = 101,
	hipErrorInvalidContext = 201,
	hipErrorMapFailed = 205,
	hipErrorPeerAccessUnsupported = 217,
	hipErrorInvalidHandle = 400,
	hipErrorNotReady = 600,
	hipErrorPeerAccessAlreadyEnabled = 704,
	hipErrorPeerAccessNotEnabled = 705,
	hipErrorContextIsDestroyed = 709,
	hipErrorNotSupported = 801,
	hipErrorUnknown = 999,
} hipError_t;
#define hipErrorMemoryAllocation hipErrorOutOfMemory

/* A3: opaque handles and the 64-byte IPC handles */
typedef struct ihipStream_t *hipStream_t;
typedef void *hipDeviceptr_t; /* hip_runtime_api.h (5.2.3): typedef void* hipDeviceptr_t */
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipCtx_t *hipCtx_t;
typedef int hipDevice_t;
/* [H52] hip_runtime_api.h :76: the 16 bytes hipDeviceGetUuid writes (ROCm:
 * the 16 ASCII hex digits of the device's unique id) */
typedef struct hipUUID_t {
	char bytes[16];
} hipUUID;
#define HIP_IPC_HANDLE_SIZE 64
typedef struct hipIpcMemHandle_st {
	char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcMemHandle_t;
typedef struct hipIpcEventHandle_st {
	char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcEventHandle_t;

/* hipMemcpyKind: the CUDA-compatible values of hip_runtime_api.h */
typedef enum hipMemcpyKind {
	hipMemcpyHostToHost = 0,
	hipMemcpyHostToDevice = 1,
	hipMemcpyDeviceToHost = 2,
	hipMemcpyDeviceToDevice = 3,
	hipMemcpyDefault = 4,
} hipMemcpyKind;

/* A4: hipMemoryType was renumbered in 6.0 */
#if PWSIM_HIP_MAJOR >= 6
typedef enum hipMemoryType {
	hipMemoryTypeUnregistered = 0,
	hipMemoryTypeHost = 1,
	hipMemoryTypeDevice = 2,
	hipMemoryTypeManaged = 3,
	hipMemoryTypeArray = 10,
	hipMemoryTypeUnified = 11,
} hipMemoryType;
#else
typedef enum hipMemoryType {
	hipMemoryTypeHost = 0,
	hipMemoryTypeDevice = 1,
	hipMemoryTypeArray = 2,
	hipMemoryTypeUnified = 3,
} hipMemoryType;
#endif

/* A3: 32 bytes; field 0 is memoryType (<= 5.4) or type (>= 6.0) */
typedef struct hipPointerAttribute_t {
	hipMemoryType type;
	int device;
	void *devicePointer;
	void *hostPointer;
	int isManaged;
	unsigned allocationFlags;
} hipPointerAttribute_t;
_Static_assert(sizeof(hipPointerAttribute_t) == 32, "A3: hipPointerAttribute_t is 32 bytes");

/* A4 */
#if PWSIM_HIP_MAJOR >= 6
#define hipIpcMemLazyEnablePeerAccess 0x01
#else
#define hipIpcMemLazyEnablePeerAccess 0
#endif
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipMemAttachSingle 0x04
#define hipCpuDeviceId ((int)-1)
#define hipInvalidDeviceId ((int)-2)

/* Event flags: the CUDA-compatible values of hip_runtime_api.h */
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4

typedef enum hipMemoryAdvise {
	hipMemAdviseSetReadMostly = 1,
	hipMemAdviseUnsetReadMostly = 2,
	hipMemAdviseSetPreferredLocation = 3,
	hipMemAdviseUnsetPreferredLocation = 4,
	hipMemAdviseSetAccessedBy = 5,
	hipMemAdviseUnsetAccessedBy = 6,
	hipMemAdviseSetCoarseGrain = 100,
	hipMemAdviseUnsetCoarseGrain = 101,
} hipMemoryAdvise;

typedef enum hipMemRangeAttribute {
	hipMemRangeAttributeReadMostly = 1,
	hipMemRangeAttributePreferredLocation = 2,
	hipMemRangeAttributeAccessedBy = 3,
	hipMemRangeAttributeLastPrefetchLocation = 4,
	hipMemRangeAttributeCoherencyMode = 100,
} hipMemRangeAttribute;

typedef enum hipMemRangeCoherencyMode {
	hipMemRangeCoherencyModeFineGrain = 0,
	hipMemRangeCoherencyModeCoarseGrain = 1,
	hipMemRangeCoherencyModeIndeterminate = 2,
} hipMemRangeCoherencyMode;

typedef enum hipDeviceP2PAttr {
	hipDevP2PAttrPerformanceRank = 0,
	hipDevP2PAttrAccessSupported = 1,
	hipDevP2PAttrNativeAtomicSupported = 2,
	hipDevP2PAttrHipArrayAccessSupported = 3,
} hipDeviceP2PAttr;

/* A4 (6.2+) */
typedef enum hipDriverProcAddressQueryResult {
	HIP_GET_PROC_ADDRESS_SUCCESS = 0,
	HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
	HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
} hipDriverProcAddressQueryResult;

/* A2 (7.1+): hipMemLocation, 8 bytes by value.  The type values are not in
 * the facts' primary headers (facts D); these are the CUDA-compatible ones
 * that HIP's bindings give (Invalid 0, Device 1, Host 2, HostNuma 3,
 * HostNumaCurrent 4). */
typedef enum hipMemLocationType {
	hipMemLocationTypeInvalid = 0,
	hipMemLocationTypeDevice = 1,
	hipMemLocationTypeHost = 2,
	hipMemLocationTypeHostNuma = 3,        /* secondary bindings of 7.x (facts D) */
	hipMemLocationTypeHostNumaCurrent = 4, /* likewise */
} hipMemLocationType;
typedef struct hipMemLocation {
	hipMemLocationType type;
	int id;
} hipMemLocation;

/* Stream-ordered pools shared between processes ([H52] hip_runtime_api.h
 * :559, :860-897; the same in 6.x and 7.x). */
typedef struct ihipMemPoolHandle_t *hipMemPool_t;
typedef enum hipMemAllocationType {
	hipMemAllocationTypeInvalid = 0x0,
	hipMemAllocationTypePinned = 0x1,
	hipMemAllocationTypeMax = 0x7FFFFFFF,
} hipMemAllocationType;
typedef enum hipMemAllocationHandleType {
	hipMemHandleTypeNone = 0x0,
	hipMemHandleTypePosixFileDescriptor = 0x1,
	hipMemHandleTypeWin32 = 0x2,
	hipMemHandleTypeWin32Kmt = 0x4,
} hipMemAllocationHandleType;
typedef struct hipMemPoolProps {
	hipMemAllocationType allocType;
	hipMemAllocationHandleType handleTypes;
	hipMemLocation location;
	void *win32SecurityAttributes;
	unsigned char reserved[64];
} hipMemPoolProps;
typedef struct hipMemPoolPtrExportData {
	unsigned char reserved[64];
} hipMemPoolPtrExportData;

/* Virtual memory ([H52] :843-855, :6179-6191). */
typedef enum hipMemAccessFlags {
	hipMemAccessFlagsProtNone = 0,
	hipMemAccessFlagsProtRead = 1,
	hipMemAccessFlagsProtReadWrite = 3,
} hipMemAccessFlags;
typedef struct hipMemAccessDesc {
	hipMemLocation location;
	hipMemAccessFlags flags;
} hipMemAccessDesc;
/* Reordered in 5.3 (ROCm/HIP rocm-5.3.0; the same in 6.x and 7.x): the .so.5
 * build is 5.2.3's ([H52] :6179). */
#if PWSIM_HIP_MAJOR >= 6
typedef struct hipMemAllocationProp {
	hipMemAllocationType type;
	hipMemAllocationHandleType requestedHandleType;
	hipMemLocation location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
	} allocFlags;
} hipMemAllocationProp;
#else
typedef struct hipMemAllocationProp {
	unsigned char compressionType;
	hipMemLocation location;
	hipMemAllocationHandleType requestedHandleType;
	hipMemAllocationType type;
	unsigned short usage;
	void *win32HandleMetaData;
} hipMemAllocationProp;
#endif
_Static_assert(sizeof(hipMemAllocationProp) == 32, "hipMemAllocationProp is 32 bytes");
typedef struct ihipMemGenericAllocationHandle *hipMemGenericAllocationHandle_t;

/* ---- version, devices, errors ---- */
PWSIM_HIP_API hipError_t hipInit(unsigned int flags);
PWSIM_HIP_API hipError_t hipRuntimeGetVersion(int *runtimeVersion);
PWSIM_HIP_API hipError_t hipDriverGetVersion(int *driverVersion);
PWSIM_HIP_API hipError_t hipGetDeviceCount(int *count);
PWSIM_HIP_API hipError_t hipSetDevice(int deviceId);
PWSIM_HIP_API hipError_t hipGetDevice(int *deviceId);
PWSIM_HIP_API hipError_t hipDeviceReset(void);
PWSIM_HIP_API hipError_t hipDeviceSynchronize(void);
/* [H52] :1275, :1287, :1307 */
PWSIM_HIP_API hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
/* hipDeviceAttribute_t: an int here; the one attribute the simulator answers */
typedef int hipDeviceAttribute_t;
#define hipDeviceAttributeManagedMemory 24
PWSIM_HIP_API hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId);
PWSIM_HIP_API hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device);
PWSIM_HIP_API hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device);
PWSIM_HIP_API const char *hipGetErrorName(hipError_t hip_error);
PWSIM_HIP_API const char *hipGetErrorString(hipError_t hipError);

/* ---- contexts (deprecated API, for hipCtx*PeerAccess) ---- */
PWSIM_HIP_API hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev);
PWSIM_HIP_API hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev);
PWSIM_HIP_API hipError_t hipCtxGetCurrent(hipCtx_t *ctx);
PWSIM_HIP_API hipError_t hipCtxSetCurrent(hipCtx_t ctx);
PWSIM_HIP_API hipError_t hipCtxGetDevice(hipDevice_t *device);

/* ---- peer access (A2) ---- */
PWSIM_HIP_API hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId);
PWSIM_HIP_API hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags);
PWSIM_HIP_API hipError_t hipDeviceDisablePeerAccess(int peerDeviceId);
PWSIM_HIP_API hipError_t hipCtxEnablePeerAccess(hipCtx_t peerCtx, unsigned int flags);
PWSIM_HIP_API hipError_t hipCtxDisablePeerAccess(hipCtx_t peerCtx);
PWSIM_HIP_API hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int srcDevice,
                                                  int dstDevice);

/* ---- memory and copies ---- */
PWSIM_HIP_API hipError_t hipMalloc(void **ptr, size_t size);
PWSIM_HIP_API hipError_t hipFree(void *ptr);
PWSIM_HIP_API hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind);
PWSIM_HIP_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                                        hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes);
PWSIM_HIP_API hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                                            hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemset(void *dst, int value, size_t sizeBytes);
typedef struct hipArray *hipArray_t;
typedef struct hipPitchedPtr {
	void *ptr;
	size_t pitch;
	size_t xsize;
	size_t ysize;
} hipPitchedPtr;
typedef struct hipExtent {
	size_t width;
	size_t height;
	size_t depth;
} hipExtent;
typedef struct hipPos {
	size_t x;
	size_t y;
	size_t z;
} hipPos;
/* [H52] driver_types.h:369 (the same in 7.x) */
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
/* hip_runtime_api.h (5.2.3) :3770, :3810, :3963, :3975 (hip_4.2) */
PWSIM_HIP_API hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, hipMemcpyKind kind);
PWSIM_HIP_API hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                          size_t width, size_t height, hipMemcpyKind kind,
                                          hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpy3D(const hipMemcpy3DParms *p);
PWSIM_HIP_API hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms *p, hipStream_t stream);
/* the per-thread default stream forms: [H52] amd_detail/amd_hip_runtime_pt_api.h
 * :65, :73, :82, :90 (hip_5.2); 2DAsync and 3DAsync hip_5.3 (6.x and later here) */
PWSIM_HIP_API hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind);
PWSIM_HIP_API hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                                            hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t height, hipMemcpyKind kind);
PWSIM_HIP_API hipError_t hipMemcpy3D_spt(const hipMemcpy3DParms *p);
PWSIM_HIP_API hipError_t hipMemcpy2DAsync_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                              size_t width, size_t height, hipMemcpyKind kind,
                                              hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpy3DAsync_spt(const hipMemcpy3DParms *p, hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId,
                                       size_t sizeBytes);
PWSIM_HIP_API hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
                                            size_t sizeBytes, hipStream_t stream);
PWSIM_HIP_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr);
/* pools ([H52] :2906, :2931, :2963, :2988, :3014, :3036, :3063; hip_5.1) */
PWSIM_HIP_API hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *pool_props);
PWSIM_HIP_API hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool);
PWSIM_HIP_API hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool,
                                                hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemPoolExportToShareableHandle(void *shared_handle, hipMemPool_t mem_pool,
                                                           hipMemAllocationHandleType handle_type,
                                                           unsigned int flags);
PWSIM_HIP_API hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t *mem_pool, void *shared_handle,
                                                             hipMemAllocationHandleType handle_type,
                                                             unsigned int flags);
PWSIM_HIP_API hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData *export_data, void *dev_ptr);
PWSIM_HIP_API hipError_t hipMemPoolImportPointer(void **dev_ptr, hipMemPool_t mem_pool,
                                                 hipMemPoolPtrExportData *export_data);
/* virtual memory ([H52] :6287, :6301, :6314, :6327, :6374, :6388, :6410, :6421,
 * :6434, :6445; hip_5.1) */
PWSIM_HIP_API hipError_t hipMemAddressFree(void *devPtr, size_t size);
PWSIM_HIP_API hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                              unsigned long long flags);
PWSIM_HIP_API hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
                                      const hipMemAllocationProp *prop, unsigned long long flags);
PWSIM_HIP_API hipError_t hipMemExportToShareableHandle(void *shareableHandle,
                                                       hipMemGenericAllocationHandle_t handle,
                                                       hipMemAllocationHandleType handleType,
                                                       unsigned long long flags);
PWSIM_HIP_API hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *handle,
                                                         void *osHandle,
                                                         hipMemAllocationHandleType shHandleType);
PWSIM_HIP_API hipError_t hipMemMap(void *ptr, size_t size, size_t offset,
                                   hipMemGenericAllocationHandle_t handle, unsigned long long flags);
PWSIM_HIP_API hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle);
PWSIM_HIP_API hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t *handle, void *addr);
PWSIM_HIP_API hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count);
PWSIM_HIP_API hipError_t hipMemUnmap(void *ptr, size_t size);
/* hip_runtime_api.h (5.2.3) :1796, :1807 */
PWSIM_HIP_API hipError_t hipGetLastError(void);
PWSIM_HIP_API hipError_t hipPeekAtLastError(void);
/* hip_runtime_api.h (5.2.3) :4069 */
PWSIM_HIP_API hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr);

/* ---- IPC ---- */
PWSIM_HIP_API hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr);
PWSIM_HIP_API hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned int flags);
PWSIM_HIP_API hipError_t hipIpcCloseMemHandle(void *devPtr);
PWSIM_HIP_API hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t event);
PWSIM_HIP_API hipError_t hipIpcOpenEventHandle(hipEvent_t *event, hipIpcEventHandle_t handle);

/* ---- streams and events ---- */
PWSIM_HIP_API hipError_t hipStreamCreate(hipStream_t *stream);
PWSIM_HIP_API hipError_t hipStreamDestroy(hipStream_t stream);
PWSIM_HIP_API hipError_t hipStreamSynchronize(hipStream_t stream);
PWSIM_HIP_API hipError_t hipEventCreate(hipEvent_t *event);
PWSIM_HIP_API hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags);
PWSIM_HIP_API hipError_t hipEventDestroy(hipEvent_t event);
PWSIM_HIP_API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
PWSIM_HIP_API hipError_t hipEventSynchronize(hipEvent_t event);
PWSIM_HIP_API hipError_t hipEventQuery(hipEvent_t event);

/* ---- managed memory (A2, A5, A7) ---- */
PWSIM_HIP_API hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags);
PWSIM_HIP_API hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device,
                                             hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemAdvise(const void *dev_ptr, size_t count, hipMemoryAdvise advice, int device);
PWSIM_HIP_API hipError_t hipMemRangeGetAttribute(void *data, size_t data_size, hipMemRangeAttribute attribute,
                                                 const void *dev_ptr, size_t count);
PWSIM_HIP_API hipError_t hipMemRangeGetAttributes(void **data, size_t *data_sizes,
                                                  hipMemRangeAttribute *attributes, size_t num_attributes,
                                                  const void *dev_ptr, size_t count);
PWSIM_HIP_API hipError_t hipStreamAttachMemAsync(hipStream_t stream, void *dev_ptr, size_t length,
                                                 unsigned int flags);
#if PWSIM_HIP_MAJOR >= 7
/* ROCm 7.1 (hip_7.1): the 3D peer copy and the batch copy; rocm-systems
 * projects/hip/include/hip/hip_runtime_api.h and driver_types.h (7.x). */
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
typedef enum hipMemcpySrcAccessOrder {
	hipMemcpySrcAccessOrderInvalid = 0x0,
	hipMemcpySrcAccessOrderStream = 0x1,
	hipMemcpySrcAccessOrderDuringApiCall = 0x2,
	hipMemcpySrcAccessOrderAny = 0x3,
} hipMemcpySrcAccessOrder;
typedef struct hipMemcpyAttributes {
	hipMemcpySrcAccessOrder srcAccessOrder;
	hipMemLocation srcLocHint;
	hipMemLocation dstLocHint;
	unsigned int flags;
} hipMemcpyAttributes;
/* hipMemcpy3DBatchAsync's operations (driver_types.h, 7.x): a pointer with
 * its row length and layer height in elements (0: packed), or an array */
typedef enum hipMemcpy3DOperandType {
	hipMemcpyOperandTypePointer = 0x1,
	hipMemcpyOperandTypeArray = 0x2,
} hipMemcpy3DOperandType;
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
PWSIM_HIP_API hipError_t hipMemcpy3DBatchAsync(size_t numOps, hipMemcpy3DBatchOp *opList, size_t *failIdx,
                                               unsigned long long flags, hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpy3DPeer(hipMemcpy3DPeerParms *p);
PWSIM_HIP_API hipError_t hipMemcpy3DPeerAsync(hipMemcpy3DPeerParms *p, hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                                             hipMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                             size_t *failIdx, hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemPrefetchAsync_v2(const void *dev_ptr, size_t count, hipMemLocation location,
                                                unsigned int flags, hipStream_t stream);
PWSIM_HIP_API hipError_t hipMemAdvise_v2(const void *dev_ptr, size_t count, hipMemoryAdvise advice,
                                         hipMemLocation location);
/* ROCm 7.2 (hip_7.2) */
PWSIM_HIP_API hipError_t hipMemPrefetchBatchAsync(void **dev_ptrs, size_t *sizes, size_t count,
                                                  hipMemLocation *prefetch_locs, size_t *prefetch_loc_idxs,
                                                  size_t num_prefetch_locs, unsigned long long flags,
                                                  hipStream_t stream);
#endif

/* ---- hipGetProcAddress (A2, A4, A7; 6.2+) ---- */
#if PWSIM_HIP_MAJOR >= 6
PWSIM_HIP_API hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                                           hipDriverProcAddressQueryResult *symbolStatus);
#endif

#endif

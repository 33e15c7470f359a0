/*
 * The few Huawei Ascend ACL (CANN) runtime types, values and error codes
 * peerwatch needs, so that the build needs no CANN SDK.  Names are the
 * vendor's.  Sources (keys of docs/facts-hip-acl.md):
 *   [A-UP]  hicann/runtime acl_base_rt.h, acl_rt.h, error_codes/rt_error_codes.h
 *   [A-PT]  Ascend/pytorch third_party/acl/inc/acl/ (v2.10.0-26.0.0), same values
 *   [A-IPC] CANN's aclrtIpcMemGetExportKey page (hiascend.com canncommercial/850
 *           API/appdevgapi/aclcppdevg_03_1934, en and zh; CANNCommunityEdition/900beta2
 *           the same), and its pyACL pages aclpythondevg_01_1070 to _1073
 *   [A-VMM] CANN's virtual-memory pages (hiascend.com canncommercial/800
 *           apiref/appdevgapi: aclrtMemImportFromShareableHandle aclcppdevg_03_0121,
 *           aclrtMemSetPidToShareableHandle aclcppdevg_03_0120, en; the V2 forms
 *           CANNCommunityEdition/900 API/runtimeapi aclcppdevg_03_2007, _2008)
 * Facts file sections: B1 (types), B2 (signatures), B3 (enums), B4 (codes),
 * B6 (IPC memory by key), B7 (virtual memory and shareable handles).
 */
#ifndef PEERWATCH_ABI_ACL_H
#define PEERWATCH_ABI_ACL_H

#include <stddef.h>
#include <stdint.h>

typedef int aclError;      /* acl_base_rt.h:46-55 "typedef int aclError;" (B1) */
typedef void *aclrtStream; /* acl_base_rt.h: typedef void *aclrtStream (B1) */

/* enum aclrtMemcpyKind, acl_rt.h (B3): 4 bytes.  The v2.1.0 copy has 0-3 only. */
typedef int aclrtMemcpyKind;
#define ACL_MEMCPY_HOST_TO_HOST 0
#define ACL_MEMCPY_HOST_TO_DEVICE 1
#define ACL_MEMCPY_DEVICE_TO_HOST 2
#define ACL_MEMCPY_DEVICE_TO_DEVICE 3
#define ACL_MEMCPY_DEFAULT 4
#define ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE 5
#define ACL_MEMCPY_INNER_DEVICE_TO_DEVICE 6
#define ACL_MEMCPY_INTER_DEVICE_TO_DEVICE 7

/* enum aclrtMemMallocPolicy, acl_rt.h (B3): 4 bytes. */
typedef int aclrtMemMallocPolicy;
#define ACL_MEM_MALLOC_HUGE_FIRST 0
#define ACL_MEM_MALLOC_HUGE_ONLY 1
#define ACL_MEM_MALLOC_NORMAL_ONLY 2
#define ACL_MEM_MALLOC_HUGE_FIRST_P2P 3
#define ACL_MEM_MALLOC_HUGE_ONLY_P2P 4
#define ACL_MEM_MALLOC_NORMAL_ONLY_P2P 5
#define ACL_MEM_MALLOC_HUGE1G_ONLY 6
#define ACL_MEM_MALLOC_HUGE1G_ONLY_P2P 7
/* Bits OR-able with policies 0-2 (acl_rt.h, B3). */
#define ACL_MEM_TYPE_LOW_BAND_WIDTH 0x100
#define ACL_MEM_TYPE_HIGH_BAND_WIDTH 0x1000
#define ACL_MEM_ACCESS_USER_SPACE_READONLY 0x100000

/* aclError values: acl_base_rt.h (ACL_*) and rt_error_codes.h (ACL_ERROR_RT_*), B4. */
#define ACL_SUCCESS 0
#define ACL_ERROR_NONE 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_REPEAT_FINALIZE 100037
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_API_NOT_SUPPORT 200001
#define ACL_ERROR_INVALID_DEVICE 200002
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define ACL_ERROR_INTERNAL_ERROR 500000
#define ACL_ERROR_FAILURE 500001
#define ACL_ERROR_RT_FAILURE 500003
#define ACL_ERROR_DRV_FAILURE 500004
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_NO_DEVICE 207004
#define ACL_ERROR_RT_NO_PERMISSION 207006
#define ACL_ERROR_RT_DEVICE_OOM 207018
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#define ACL_ERROR_RT_IPC_ERROR 507022

/*
 * IPC memory by key (CANN 8.x; acl_rt.h of [A-UP] HEAD 681ef761).
 * Export flags, acl_rt.h:65-66 (the [A-IPC] page lists the same two macros):
 * 0, the default, keeps the process trust list ("whitelist") on, so the
 * exporter must name the importers with aclrtIpcMemSetImportPid; the other
 * turns it off.  Import flags, acl_rt.h:68-69.
 */
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL
/* The key's length: "len ... key的长度，固定配置为65" (the length of the key,
 * fixed at 65), [A-IPC] aclrtIpcMemGetExportKey, parameter len.  No macro in
 * acl_rt.h names it; the name here is peerwatch's. */
#define PW_ACL_IPC_KEY_LEN 65

/*
 * Signatures (acl_rt.h; aclInit/aclFinalize in acl.h of older CANN), B2:
 *   aclError aclInit(const char *configPath);
 *   aclError aclFinalize(void);
 *   aclError aclrtSetDevice(int32_t deviceId);
 *   aclError aclrtResetDevice(int32_t deviceId);
 *   aclError aclrtGetDevice(int32_t *deviceId);
 *   aclError aclrtGetDeviceCount(uint32_t *count);
 *   aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);
 *   aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
 *   aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
 *   aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
 *   aclError aclrtFree(void *devPtr);
 *   aclError aclrtMallocHost(void **hostPtr, size_t size);
 *   aclError aclrtFreeHost(void *hostPtr);
 *   aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
 *   aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
 *                             aclrtMemcpyKind kind, aclrtStream stream);
 *   aclError aclrtSynchronizeStream(aclrtStream stream);
 *   aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
 *                          size_t width, size_t height, aclrtMemcpyKind kind);      :2411
 *   aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
 *                               size_t width, size_t height, aclrtMemcpyKind kind,
 *                               aclrtStream stream);                                 :2430
 *   (acl_rt.h of [A-UP] HEAD 681ef761; CANN 8.0.0's aclrtMemcpy2d and
 *   aclrtMemcpy2dAsync pages, aclcppdevg_03_0108 and _0109, the same)
 *
 * IPC memory by key (acl_rt.h of [A-UP] HEAD 681ef761; [A-IPC] gives the same
 * prototypes, the pyACL pages name the last parameter "flag"):
 *   aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key,
 *                                    size_t len, uint64_t flags);           :4583
 *   aclError aclrtIpcMemClose(const char *key);                            :4592
 *   aclError aclrtIpcMemImportByKey(void **devPtr, const char *key,
 *                                   uint64_t flags);                       :4606
 *   aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num); :4617
 *   aclError aclrtDeviceGetBareTgid(int32_t *pid);                          :3427
 * (the last, the importer's own process id for the trust lists, is hooked
 * as op process_id).  [A-UP] memory.cpp:1775-1867: NULL devPtr or
 * key -> ACL_ERROR_INVALID_PARAM; the rest is the runtime's (rts), whose
 * invalid values (a zero size or len, flags above 1) are
 * ACL_ERROR_RT_PARAM_INVALID (api_error.cc:3747-3760, errcode_manage.cc:314).
 *
 * The device's identity, in newer CANN only (hicann/runtime acl_rt.h), asked
 * once per process when peerwatch records the devices:
 *   aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);            :3985
 *   aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId,
 *                                        int32_t *const phyDevId);             :5163
 *   const char *aclrtGetSocName(void);                                 acl_base_rt.h :377
 */
/*
 * Virtual memory and shareable handles (acl_rt.h of [A-UP] HEAD 681ef761; the
 * [A-VMM] pages give the same prototypes; B7):
 *   aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
 *                                   void *expectPtr, uint64_t flags);       :2586
 *   aclError aclrtReleaseMemAddress(void *virPtr);                         :2600
 *   aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
 *                                const aclrtPhysicalMemProp *prop, uint64_t flags); :2618
 *   aclError aclrtFreePhysical(aclrtDrvMemHandle handle);                  :2633
 *   aclError aclrtMapMem(void *virPtr, size_t size, size_t offset,
 *                        aclrtDrvMemHandle handle, uint64_t flags);         :2650
 *   aclError aclrtUnmapMem(void *virPtr);                                  :2664
 *   aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
 *            aclrtMemHandleType handleType, uint64_t flags, uint64_t *shareableHandle); :3336
 *   aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle,
 *            int32_t deviceId, aclrtDrvMemHandle *handle);                  :3363
 *   aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle,
 *            int32_t *pid, size_t pidNum);                                  :3390
 *   aclError aclrtDeviceGetBareTgid(int32_t *pid);                          :3427
 * and their V2 forms (:3350, :3377, :3403), whose shareableHandle is a
 * pointer to the handle, a uint64_t for ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
 * an aclrtMemFabricHandle for _FABRIC (CANN 8.5 runtime docs,
 * aclrtMemExportToShareableHandleV2's shareableHandle); hooked:
 *   aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
 *            aclrtMemSharedHandleType shareType, void *shareableHandle);
 *   aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
 *            aclrtMemSharedHandleType shareType, uint64_t flags, aclrtDrvMemHandle *handle);
 *   aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
 *            aclrtMemSharedHandleType shareType, int32_t *pid, size_t pidNum);
 */
typedef void *aclrtDrvMemHandle; /* acl_rt.h :383 */
typedef int aclrtMemHandleType;  /* enum aclrtMemHandleType, acl_rt.h :355-358 */
#define ACL_MEM_HANDLE_TYPE_NONE 0
#define ACL_MEM_HANDLE_TYPE_POSIX 2
typedef int aclrtMemSharedHandleType; /* enum, acl_rt.h :360-363 */
#define ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT 0x1
#define ACL_MEM_SHARE_HANDLE_TYPE_FABRIC 0x2
/* aclrtMemFabricHandle, acl_rt.h: typedef struct { uint8_t data[128]; }: what a
 * V2 shareable handle of the FABRIC type points to */
#define PW_ACL_FABRIC_HANDLE_BYTES 128
typedef int aclrtMemAllocationType; /* enum, acl_rt.h :351-353 */
#define ACL_MEM_ALLOCATION_TYPE_PINNED 0
typedef int aclrtMemLocationType; /* enum, acl_rt.h :314-320 */
#define ACL_MEM_LOCATION_TYPE_HOST 0
#define ACL_MEM_LOCATION_TYPE_DEVICE 1
typedef int aclrtMemAttr; /* enum aclrtMemAttr, acl_rt.h :227-246: ACL_DDR_MEM 0 ... ACL_HBM_MEM 1 ... */
#define ACL_HBM_MEM_HUGE 4
typedef struct aclrtMemLocation { /* acl_rt.h :322-325 */
	uint32_t id;
	aclrtMemLocationType type;
} aclrtMemLocation;
typedef struct aclrtPhysicalMemProp { /* acl_rt.h :369-375 */
	aclrtMemHandleType handleType;
	aclrtMemAllocationType allocationType;
	aclrtMemAttr memAttr;
	aclrtMemLocation location;
	uint64_t reserve;
} aclrtPhysicalMemProp;
/* aclrtMemExportToShareableHandle's flags, acl_rt.h :71-72: 0 keeps the
 * process trust list on (the exporter names the importers with
 * aclrtMemSetPidToShareableHandle); the other "Remove[s] whitelist
 * verification for PID" (acl_rt.h :3330). */
#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL

typedef struct aclrtUuid {
	char bytes[16];
} aclrtUuid; /* acl_rt.h :885-887 */

#endif

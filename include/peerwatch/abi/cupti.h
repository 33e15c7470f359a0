/*
 * The few CUPTI (CUDA Profiling Tools Interface) types, values and functions
 * peerwatch uses, so that the build needs no CUPTI header.  Every value and
 * record layout is CUDA 13.0's (cupti_activity.h, cupti_result.h,
 * cupti_common.h; line numbers in the comments); names are the vendor's.
 *
 * peerwatch never links against CUPTI: with um_counters=1 or
 * gpu_timing=cupti it loads libcupti privately (dlopen with RTLD_LOCAL) and
 * finds each function with dlsym.  Only the activity API is used: buffers
 * handed to CUPTI, filled with records, given back on CUPTI's own thread.
 */
#ifndef PEERWATCH_ABI_CUPTI_H
#define PEERWATCH_ABI_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#include "peerwatch/abi/cuda.h"

typedef int CUptiResult;                             /* cupti_result.h :80-318 */
typedef int CUpti_ActivityKind;                      /* cupti_activity.h :183-560 */
typedef int CUpti_ActivityUnifiedMemoryCounterKind;  /* :1366-1431 */
typedef int CUpti_ActivityUnifiedMemoryCounterScope; /* :1339-1358 */
typedef int CUpti_ExternalCorrelationKind;           /* :5985-6024 */

/* CUptiResult, cupti_result.h */
#define CUPTI_SUCCESS 0
#define CUPTI_ERROR_INVALID_PARAMETER 1                              /* :88 */
#define CUPTI_ERROR_INVALID_DEVICE 2                                 /* :92 */
#define CUPTI_ERROR_INVALID_CONTEXT 3                                /* :96 */
#define CUPTI_ERROR_INVALID_OPERATION 7                              /* :113 */
#define CUPTI_ERROR_MAX_LIMIT_REACHED 12                             /* :135 */
#define CUPTI_ERROR_NOT_COMPATIBLE 14                                /* :144 */
#define CUPTI_ERROR_NOT_INITIALIZED 15                               /* :149 */
#define CUPTI_ERROR_QUEUE_EMPTY 18                                   /* :161 */
#define CUPTI_ERROR_INVALID_STREAM 20                                /* :169 */
#define CUPTI_ERROR_INVALID_KIND 21                                  /* :173 */
#define CUPTI_ERROR_NOT_SUPPORTED 27                                 /* :198 */
#define CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED 28                    /* :203 */
#define CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE 29          /* :207 */
#define CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES 30 /* :212 */
#define CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS 31           /* :218 */
#define CUPTI_ERROR_INSUFFICIENT_PRIVILEGES 35                       /* :245 */
#define CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 39            /* :282 */
#define CUPTI_ERROR_UNKNOWN 999                                      /* :316 */

/* CUpti_ActivityKind, cupti_activity.h */
#define CUPTI_ACTIVITY_KIND_MEMCPY 1                  /* :199 */
#define CUPTI_ACTIVITY_KIND_MEMCPY2 22                /* :355: peer-to-peer copies */
#define CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER 25 /* :381 */
#define CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION 39   /* :498 */

/* CUpti_ActivityFlag, :960 */
#define CUPTI_ACTIVITY_FLAG_FLUSH_FORCED (1 << 0)

/* The processor id of the CPU in a unified-memory record, :73 */
#define CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID ((uint32_t)0xFFFFFFFFU)

/* CUpti_ActivityUnifiedMemoryCounterScope, :1343-1353 (deprecated, still a member) */
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES 2

/* CUpti_ActivityUnifiedMemoryCounterKind, :1371-1428 */
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN 0
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD 1
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH 2
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT 3
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT 4
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING 5
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING 6
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP 7
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD 8
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT 9

/* CUpti_ActivityUnifiedMemoryAccessType (a GPU fault's flags), :1443-1463 */
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_UNKNOWN 0
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ 1
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE 2
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC 3
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH 4

/* CUpti_ActivityUnifiedMemoryMigrationCause (a transfer's flags), :1476-1508 */
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_UNKNOWN 0
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER 1
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE 2
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH 3
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION 4
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS 5

/* CUpti_ActivityUnifiedMemoryRemoteMapCause (a remote map's flags), :1520-1550 */
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_UNKNOWN 0
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_COHERENCE 1
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_THRASHING 2
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_POLICY 3
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_OUT_OF_MEMORY 4
#define CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_EVICTION 5

/* CUpti_ActivityMemcpyKind, :1121-1171 */
#define CUPTI_ACTIVITY_MEMCPY_KIND_HTOD 1
#define CUPTI_ACTIVITY_MEMCPY_KIND_DTOH 2
#define CUPTI_ACTIVITY_MEMCPY_KIND_DTOD 8
#define CUPTI_ACTIVITY_MEMCPY_KIND_HTOH 9
#define CUPTI_ACTIVITY_MEMCPY_KIND_PTOP 10

/* Activity records are 8-byte aligned and packed (cupti_common.h :77, :84). */
#define PW_CUPTI_RECORD __attribute__((__packed__)) __attribute__((aligned(8)))

/* Every record starts with its kind (cupti_activity.h :2122-2127, CUpti_Activity). */
typedef struct PW_CUPTI_RECORD {
	CUpti_ActivityKind kind;
} CUpti_Activity;

/* :2028-2050 */
typedef struct PW_CUPTI_RECORD {
	CUpti_ActivityUnifiedMemoryCounterScope scope;
	CUpti_ActivityUnifiedMemoryCounterKind kind;
	uint32_t deviceId;
	uint32_t enable;
} CUpti_ActivityUnifiedMemoryCounterConfig;

/* :4679-4809, what CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER records are */
typedef struct PW_CUPTI_RECORD {
	CUpti_ActivityKind kind;
	CUpti_ActivityUnifiedMemoryCounterKind counterKind;
	uint64_t value; /* bytes, fault groups, or a CPU fault's program counter */
	uint64_t start;
	uint64_t end;
	uint64_t address;
	uint32_t srcId; /* a device, CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID, or thrashing's mask */
	uint32_t dstId;
	uint32_t streamId;
	uint32_t processId;
	uint32_t flags; /* access type, migration or remote-map cause */
	uint32_t pad;
	uint64_t processors[5]; /* thrashing: one bit per device */
} CUpti_ActivityUnifiedMemoryCounter3;

/* :2135-2266, CUPTI_ACTIVITY_KIND_MEMCPY records (CUPTILP64 on 64-bit Linux,
 * cupti_common.h) */
typedef struct PW_CUPTI_RECORD {
	CUpti_ActivityKind kind;
	uint8_t copyKind;
	uint8_t srcKind;
	uint8_t dstKind;
	uint8_t flags;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint32_t deviceId;
	uint32_t contextId;
	uint32_t streamId;
	uint32_t correlationId;
	uint32_t runtimeCorrelationId;
	uint32_t pad;
	void *reserved0;
	uint64_t graphNodeId;
	uint32_t graphId;
	uint32_t channelID;
	int channelType;
	uint8_t isDeviceLaunched;
	uint8_t pad2[3];
	uint64_t copyCount;
} CUpti_ActivityMemcpy6;

/* :2275-2400, CUPTI_ACTIVITY_KIND_MEMCPY2 records (peer to peer) */
typedef struct PW_CUPTI_RECORD {
	CUpti_ActivityKind kind;
	uint8_t copyKind;
	uint8_t srcKind;
	uint8_t dstKind;
	uint8_t flags;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint32_t deviceId;
	uint32_t contextId;
	uint32_t streamId;
	uint32_t srcDeviceId;
	uint32_t srcContextId;
	uint32_t dstDeviceId;
	uint32_t dstContextId;
	uint32_t correlationId;
	void *reserved0;
	uint64_t graphNodeId;
	uint32_t graphId;
	uint32_t channelID;
	int channelType;
} CUpti_ActivityMemcpyPtoP4;

/* :7609-7612, :7641-7646 */
typedef void (*CUpti_BuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size, size_t *maxNumRecords);
typedef void (*CUpti_BuffersCallbackCompleteFunc)(CUcontext context, uint32_t streamId, uint8_t *buffer,
                                                  size_t size, size_t validSize);
/* :8109 */
typedef uint64_t (*CUpti_TimestampCallbackFunc)(void);

/* The functions, by the names dlsym finds them */
typedef CUptiResult (*cuptiActivityRegisterCallbacks_fn)(CUpti_BuffersCallbackRequestFunc,
                                                         CUpti_BuffersCallbackCompleteFunc);   /* :7668 */
typedef CUptiResult (*cuptiActivityRegisterTimestampCallback_fn)(CUpti_TimestampCallbackFunc); /* :8150 */
typedef CUptiResult (*cuptiActivityConfigureUnifiedMemoryCounter_fn)(
    CUpti_ActivityUnifiedMemoryCounterConfig *, uint32_t);                                  /* :7812 */
typedef CUptiResult (*cuptiActivityEnable_fn)(CUpti_ActivityKind);                          /* :7424 */
typedef CUptiResult (*cuptiActivityDisable_fn)(CUpti_ActivityKind);                         /* :7477 */
typedef CUptiResult (*cuptiActivityFlushAll_fn)(uint32_t);                                  /* :7747 */
typedef CUptiResult (*cuptiActivityGetNextRecord_fn)(uint8_t *, size_t, CUpti_Activity **); /* :7588 */
typedef CUptiResult (*cuptiActivityGetNumDroppedRecords_fn)(CUcontext, uint32_t, size_t *); /* :7543 */
typedef CUptiResult (*cuptiGetTimestamp_fn)(uint64_t *);                                    /* :7283 */
typedef CUptiResult (*cuptiGetStreamIdEx_fn)(CUcontext, CUstream, uint8_t, uint32_t *);     /* :7346 */
typedef CUptiResult (*cuptiGetResultString_fn)(CUptiResult, const char **); /* cupti_result.h :333 */

#endif

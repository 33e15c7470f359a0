/*
 * The functions the simulated libcupti exports (cupti_sim.c), with CUDA
 * 13.0's signatures (cupti_activity.h and cupti_result.h lines, as
 * include/peerwatch/abi/cupti.h's typedefs give them).  The simulator
 * includes it so the compiler checks each definition; the self-test, to
 * call them.
 */
#ifndef PWSIM_CUPTI_SIM_API_H
#define PWSIM_CUPTI_SIM_API_H

#include "peerwatch/abi/cupti.h"

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                           CUpti_BuffersCallbackCompleteFunc funcBufferCompleted); /* :7668 */
CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp);     /* :8150 */
CUptiResult cuptiActivityConfigureUnifiedMemoryCounter(CUpti_ActivityUnifiedMemoryCounterConfig *config,
                                                       uint32_t count); /* :7812 */
CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind);               /* :7424 */
CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind);              /* :7477 */
CUptiResult cuptiActivityFlushAll(uint32_t flag);                       /* :7747 */
CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes,
                                       CUpti_Activity **record); /* :7588 */
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
                                              size_t *dropped); /* :7543 */
CUptiResult cuptiGetTimestamp(uint64_t *timestamp);             /* :7283 */
CUptiResult cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream,
                               uint32_t *streamId);                     /* :7346 */
CUptiResult cuptiGetResultString(CUptiResult result, const char **str); /* cupti_result.h :333 */
CUptiResult cuptiFinalize(void);                                        /* :8007 */

#endif

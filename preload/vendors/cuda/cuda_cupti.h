/*
 * CUPTI, for um_counters=1 (unified-memory counters as "um" events) and
 * gpu_timing=cupti (CUDA's copy records as device times).  libcupti is
 * loaded privately on the thread of the program's first CUDA call, before
 * that call; its activity buffers are handed back on CUPTI's own thread and
 * written by the trace writer.  Nothing here runs on the hot path but
 * pw_cuda_cupti_stream, on a timed call with gpu_timing=cupti.
 */
#ifndef PW_CUDA_CUPTI_H
#define PW_CUDA_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peerwatch/abi/cuda.h"

/* The program's first CUDA call: loads and starts CUPTI if an option asks. */
void pw_cuda_cupti_begin(void);
/* Every round of the trace writer; final: flushed and written, once. */
void pw_cuda_cupti_collect(bool final);
/* The footer's um_events, um_lost and um_off (NULL: on or not asked). */
bool pw_cuda_cupti_um_footer(uint64_t *events, uint64_t *lost, const char **off);
void pw_cuda_cupti_after_fork(void);

/* gpu_timing=cupti: CUPTI's id of a stream (cuptiGetStreamIdEx), false if
 * CUPTI cannot say (not started, or refused). */
bool pw_cuda_cupti_stream(CUcontext ctx, CUstream stream, bool per_thread, uint32_t *id);

/* A copy record CUPTI gave: what matching it to a traced call needs. */
struct pw_cupti_copy {
	uint32_t stream; /* CUPTI's stream id */
	uint8_t kind;    /* CUPTI_ACTIVITY_MEMCPY_KIND_* */
	uint64_t bytes;
	uint64_t start, end; /* CLOCK_MONOTONIC ns */
};
/* The copy records that came since the last call, oldest first, at most cap. */
size_t pw_cuda_cupti_take_copies(struct pw_cupti_copy *out, size_t cap);

#endif

/*
 * gpu_timing=1: device-side start and end of asynchronous copies and
 * prefetches, measured with a pair of timing events recorded on the call's
 * own stream around it.  The application never waits for them: completed
 * pairs are collected by the trace writer thread (and at exit) and written as
 * "gpu_time" events.  Cost: two cuEventRecord per timed call (2 x 2.9 us on
 * an H200, docs/facts-cuda.md, "What the driver's calls cost"), which is why it is off by default.
 */
#ifndef PW_CUDA_GPU_TIMING_H
#define PW_CUDA_GPU_TIMING_H

#include <stdbool.h>

#include "core/hooks.h"

struct pw_gt_pair;

/* Before the real call: records the start event if the call is timed. */
struct pw_gt_pair *pw_cuda_gt_begin(const struct pw_call *c);
/* After it: records the end event, or gives the pair back if the call failed. */
void pw_cuda_gt_end(const struct pw_call *c, struct pw_gt_pair *p);
/* Writes gpu_time events for the pairs that completed; with final, waits for all. */
void pw_cuda_gt_collect(bool final);
uint64_t pw_cuda_gt_skipped(void);
void pw_cuda_gt_after_fork(void); /* calls not timed: stream capture, no events */

#endif

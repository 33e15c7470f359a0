/*
 * The simulated CUDA driver's unified-memory test entry point
 * (tests/sim/cuda_sim_um.c): what a kernel or CPU code touching managed
 * memory would do to its pages, for tests that check the fault and
 * migration records a CUPTI consumer receives (tests/sim/cupti_sim.c).
 * Exported by build/sim/libcuda.so.1 (both builds); not a CUDA function.
 */
#ifndef PWSIM_UM_H
#define PWSIM_UM_H

#include <stddef.h>

#include "peerwatch/abi/cuda.h"

/* The granule of the residency model: 64 KiB pages. */
#define PWSIM_UM_PAGE ((size_t)64 << 10)

/* A kernel on device ordinal proc (the process's visible ordinal), or CPU
 * code (proc == -1), reads (write 0) or writes (write 1) [p, p+bytes).
 * 0, or -1 for a range that is not inside one live managed allocation,
 * bytes 0, or a processor that does not exist. */
int pwsim_um_touch(CUdeviceptr p, size_t bytes, int proc, int write);

#endif

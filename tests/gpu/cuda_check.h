/*
 * CUDA_CHECK(call): the runtime call, or a line naming the call, its place
 * and the runtime's words, and exit 1.  For the CUDA C++ test programs
 * (peer_bw.cu, um_effects.cu, copy_cost.cu).
 */
#ifndef PW_CUDA_CHECK_H
#define PW_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(x)                                                                                       \
	do {                                                                                                \
		cudaError_t e_ = (x);                                                                       \
		if (e_ != cudaSuccess) {                                                                    \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                            \
		}                                                                                           \
	} while (0)

#endif

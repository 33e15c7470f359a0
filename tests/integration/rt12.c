/*
 * The runtime layer on a CUDA 12 runtime (the simulated libcudart.so.12):
 * its base cudaMemAdvise / cudaMemPrefetchAsync[_ptsz] take an int device
 * where CUDA 13's take a cudaMemLocation, under the same names, and its _v2
 * names take the location.  peerwatch must pass every argument through whole
 * and record each call by the ABI the library answering it has.
 * Run by tests/integration/cudart.sh; exits non-zero when a call does not
 * answer what the runtime documents.
 */
/* the CUDA 12 declarations of cudart_sim_api.h */
#ifndef PWSIM_CUDART_12
#define PWSIM_CUDART_12 1
#endif

#include <stdint.h>
#include <stdio.h>

#include "cudart_sim_api.h"

static int failures;
#define EXPECT(call, want)                                                                          \
	do {                                                                                        \
		cudaError_t r_ = (call);                                                            \
		if (r_ != (want)) {                                                                 \
			fprintf(stderr, "rt12: %s gave %d, expected %d\n", #call, r_, (int)(want)); \
			failures++;                                                                 \
		}                                                                                   \
	} while (0)

int main(void)
{
	void *m;
	struct cudaMemLocation one = {cudaMemLocationTypeDevice, 1};
	/* 64-bit: a wrapper that cut it to 32 bits would hand the driver the valid per-thread stream */
	cudaStream_t bogus = (cudaStream_t)(uintptr_t)0x100000002ull;
	EXPECT(cudaMallocManaged(&m, 65536, cudaMemAttachGlobal), cudaSuccess);
	EXPECT(cudaMemAdvise(m, 65536, 3, 1), cudaSuccess);
	EXPECT(cudaMemAdvise_v2(m, 65536, 5, one), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync(m, 65536, 1, NULL), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync_ptsz(m, 65536, cudaCpuDeviceId, cudaStreamPerThread), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync(m, 65536, 0, bogus), cudaErrorInvalidResourceHandle);
	EXPECT(cudaMemPrefetchAsync_v2(m, 65536, one, 0, NULL), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync_v2_ptsz(m, 65536, one, 0, NULL), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync(m, 65536, 9, NULL), cudaErrorInvalidDevice); /* the one finding */
	EXPECT(cudaFree(m), cudaSuccess);
	return failures != 0;
}

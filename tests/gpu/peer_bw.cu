// Peer bandwidth and latency between every ordered pair of GPUs, peer access
// off and on, 4 KiB to 256 MiB: the program's own measurement (CUDA events
// around a batch of cudaMemcpyPeerAsync on one stream), one line per case:
//   bw src dst peer bytes reps us_per_copy GB/s
// bw_compare.py runs it with and without peerwatch and compares.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include <stdio.h>
#include <stdlib.h>


static const size_t sizes[] = {4096, 65536, 1 << 20, 16 << 20, 256 << 20};
static const int reps[] = {2000, 1000, 200, 50, 10};

static void set_peer(int a, int b, bool on)
{
	int can = 0;
	CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
	if (!can)
		return;
	CUDA_CHECK(cudaSetDevice(a));
	cudaError_t e = on ? cudaDeviceEnablePeerAccess(b, 0) : cudaDeviceDisablePeerAccess(b);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled && e != cudaErrorPeerAccessNotEnabled)
		CUDA_CHECK(e);
	(void)cudaGetLastError();
}

int main(void)
{
	int n = 0;
	CUDA_CHECK(cudaGetDeviceCount(&n));
	if (n < 2) {
		printf("need 2 GPUs\n");
		return 77;
	}
	void **buf = (void **)calloc((size_t)n, sizeof *buf);
	for (int d = 0; d < n; d++) {
		CUDA_CHECK(cudaSetDevice(d));
		CUDA_CHECK(cudaMalloc(&buf[d], sizes[4] * 2));
		CUDA_CHECK(cudaMemset(buf[d], d, sizes[4] * 2));
	}
	for (int peer = 0; peer <= 1; peer++) {
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++)
				if (a != b)
					set_peer(a, b, peer);
		for (int src = 0; src < n; src++)
			for (int dst = 0; dst < n; dst++) {
				if (src == dst)
					continue;
				CUDA_CHECK(cudaSetDevice(src));
				cudaStream_t s;
				cudaEvent_t e0, e1;
				CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
				CUDA_CHECK(cudaEventCreate(&e0));
				CUDA_CHECK(cudaEventCreate(&e1));
				for (int k = 0; k < 5; k++) {
					char *d = (char *)buf[dst] + sizes[4], *sp = (char *)buf[src];
					CUDA_CHECK(cudaMemcpyPeerAsync(d, dst, sp, src, sizes[k], s)); /* warm-up */
					CUDA_CHECK(cudaStreamSynchronize(s));
					CUDA_CHECK(cudaEventRecord(e0, s));
					for (int r = 0; r < reps[k]; r++)
						CUDA_CHECK(cudaMemcpyPeerAsync(d, dst, sp, src, sizes[k], s));
					CUDA_CHECK(cudaEventRecord(e1, s));
					CUDA_CHECK(cudaEventSynchronize(e1));
					float ms = 0;
					CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
					double us = ms * 1e3 / reps[k];
					printf("bw %d %d %d %zu %d %.3f %.2f\n", src, dst, peer, sizes[k], reps[k], us,
					       sizes[k] / (us * 1e3));
				}
				CUDA_CHECK(cudaEventDestroy(e0));
				CUDA_CHECK(cudaEventDestroy(e1));
				CUDA_CHECK(cudaStreamDestroy(s));
			}
	}
	for (int d = 0; d < n; d++) {
		CUDA_CHECK(cudaSetDevice(d));
		CUDA_CHECK(cudaFree(buf[d]));
	}
	return 0;
}

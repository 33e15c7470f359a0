// Peer bandwidth and latency between every ordered pair of GPUs, peer access
// off and on, 4 KiB to 256 MiB: the program's own measurement (CUDA events
// around a batch of cudaMemcpyPeerAsync on one stream), one line per case:
//   bw src dst peer bytes reps us_per_copy GB/s
// bw_compare.py runs it with and without peerwatch and compares.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static const size_t sizes[] = {4096, 65536, 1 << 20, 16 << 20, 256 << 20};
static const int reps[] = {2000, 1000, 200, 50, 10};

static void set_peer(int a, int b, bool on)
{
	int can = 0;
	CK(cudaDeviceCanAccessPeer(&can, a, b));
	if (!can)
		return;
	CK(cudaSetDevice(a));
	cudaError_t e = on ? cudaDeviceEnablePeerAccess(b, 0) : cudaDeviceDisablePeerAccess(b);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled && e != cudaErrorPeerAccessNotEnabled)
		CK(e);
	(void)cudaGetLastError();
}

int main(void)
{
	int n = 0;
	CK(cudaGetDeviceCount(&n));
	if (n < 2) {
		printf("need 2 GPUs\n");
		return 77;
	}
	void **buf = (void **)calloc((size_t)n, sizeof *buf);
	for (int d = 0; d < n; d++) {
		CK(cudaSetDevice(d));
		CK(cudaMalloc(&buf[d], sizes[4] * 2));
		CK(cudaMemset(buf[d], d, sizes[4] * 2));
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
				CK(cudaSetDevice(src));
				cudaStream_t s;
				cudaEvent_t e0, e1;
				CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
				CK(cudaEventCreate(&e0));
				CK(cudaEventCreate(&e1));
				for (int k = 0; k < 5; k++) {
					char *d = (char *)buf[dst] + sizes[4], *sp = (char *)buf[src];
					CK(cudaMemcpyPeerAsync(d, dst, sp, src, sizes[k], s)); /* warm-up */
					CK(cudaStreamSynchronize(s));
					CK(cudaEventRecord(e0, s));
					for (int r = 0; r < reps[k]; r++)
						CK(cudaMemcpyPeerAsync(d, dst, sp, src, sizes[k], s));
					CK(cudaEventRecord(e1, s));
					CK(cudaEventSynchronize(e1));
					float ms = 0;
					CK(cudaEventElapsedTime(&ms, e0, e1));
					double us = ms * 1e3 / reps[k];
					printf("bw %d %d %d %zu %d %.3f %.2f\n", src, dst, peer, sizes[k], reps[k], us,
					       sizes[k] / (us * 1e3));
				}
				CK(cudaEventDestroy(e0));
				CK(cudaEventDestroy(e1));
				CK(cudaStreamDestroy(s));
			}
	}
	for (int d = 0; d < n; d++) {
		CK(cudaSetDevice(d));
		CK(cudaFree(buf[d]));
	}
	return 0;
}

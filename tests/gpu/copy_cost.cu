/*
 * What device timing costs a copy: N small device-to-device copies on one
 * stream, timed on the host from the first enqueue to the stream's end.
 *
 *   copy_cost traced|untraced [N] [BYTES] [cupti]
 *
 * traced: cudaMemcpyPeerAsync between two buffers of device 0 (a peer copy
 * peerwatch traces and, with gpu_timing, times); untraced: cudaMemcpyAsync
 * device to device (one peerwatch does not trace, which CUPTI's copy
 * records see all the same).  With "cupti", the program itself turns on
 * CUPTI's copy records (MEMCPY and MEMCPY2, buffers thrown away): what
 * CUPTI costs a copy without peerwatch.  Prints "per_copy_ns <ns>".
 */
#include <cuda_runtime.h>

#include "cuda_check.h"
#include <dlfcn.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* CUPTI's activity API by dlsym, as peerwatch finds it (no CUPTI header). */
typedef void (*req_fn)(uint8_t **, size_t *, size_t *);
typedef void (*done_fn)(void *, uint32_t, uint8_t *, size_t, size_t);
static void req(uint8_t **b, size_t *size, size_t *max)
{
	*size = 8 << 20;
	*b = (uint8_t *)aligned_alloc(8, *size);
	*max = 0;
}
static void done(void *ctx, uint32_t stream, uint8_t *b, size_t size, size_t valid)
{
	(void)ctx, (void)stream, (void)size, (void)valid;
	free(b);
}
static void cupti_on(void)
{
	void *h = dlopen("libcupti.so.13", RTLD_NOW);
	if (!h)
		h = dlopen("libcupti.so", RTLD_NOW);
	int (*reg)(req_fn, done_fn) =
	    h ? (int (*)(req_fn, done_fn))dlsym(h, "cuptiActivityRegisterCallbacks") : NULL;
	int (*en)(int) = h ? (int (*)(int))dlsym(h, "cuptiActivityEnable") : NULL;
	if (!reg || !en || reg(req, done) || en(1 /* MEMCPY */) || en(22 /* MEMCPY2 */)) {
		fprintf(stderr, "copy_cost: CUPTI's copy records cannot be turned on\n");
		exit(1);
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "traced") && strcmp(argv[1], "untraced"))) {
		fprintf(stderr, "usage: copy_cost traced|untraced [N] [BYTES]\n");
		return 2;
	}
	int traced = !strcmp(argv[1], "traced");
	long n = argc > 2 ? atol(argv[2]) : 100000;
	size_t bytes = argc > 3 ? strtoul(argv[3], NULL, 10) : 4;
	void *a, *b;
	cudaStream_t s;
	CUDA_CHECK(cudaSetDevice(0));
	if (argc > 4 && !strcmp(argv[4], "cupti"))
		cupti_on();
	CUDA_CHECK(cudaMalloc(&a, bytes));
	CUDA_CHECK(cudaMalloc(&b, bytes));
	CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	/* One traced copy whatever the mode: peerwatch starts CUPTI (and its
	 * other first-call work) at the program's first traced call. */
	CUDA_CHECK(cudaMemcpyPeerAsync(b, 0, a, 0, bytes, s));
	for (int i = 0; i < 100; i++) /* warm: the first calls load and resolve */
		CUDA_CHECK(traced ? cudaMemcpyPeerAsync(b, 0, a, 0, bytes, s)
		             : cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	double t0 = now();
	for (long i = 0; i < n; i++)
		CUDA_CHECK(traced ? cudaMemcpyPeerAsync(b, 0, a, 0, bytes, s)
		             : cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	double t1 = now();
	printf("per_copy_ns %.0f\n", (t1 - t0) / (double)n);
	CUDA_CHECK(cudaFree(a));
	CUDA_CHECK(cudaFree(b));
	return 0;
}

/*
 * Unified-memory advice and prefetches whose effect CUPTI's counters show
 * (um_counters=1; peerwatch-analyze managed --effects).  One GPU serves.
 *
 *   um_effects CASE [MIB]      CASE: prefetch-late | preferred-thrash |
 *                              read-mostly-written | accessed-by-faults | clean
 *   um_effects list
 *
 * prefetch-late enqueues the reading kernel before the prefetch on one stream
 * (a prefetch queued on a stream other than the kernel's, behind other work,
 * measured on an H200 on 2026-12-03, was not overtaken: the kernel waited).
 * Each case but "clean" commits the one finding its name says; "clean"
 * prefetches before each processor's turn and waits for it, so that no
 * processor faults on a page it was given.  At the end each prints
 * "bytes <allocation bytes>" and "ok", and the range's address as
 * "range 0x...", so a script can compare CUPTI's records with what the
 * program did.
 */
#include <cuda_runtime.h>

#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* One int per 4 KiB page: every page of the range is touched. */
#define STRIDE 1024

__global__ void touch(int *p, size_t n, int write, int *sink)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * STRIDE;
	for (; i < n; i += (size_t)gridDim.x * blockDim.x * STRIDE) {
		if (write)
			p[i] = (int)i;
		else if (p[i] == -12345)
			*sink = 1;
	}
}

static int *sink;

/* Holds its stream for this many clock cycles. */
__global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}

static void gpu(int *p, size_t n, int write, cudaStream_t s)
{
	touch<<<256, 128, 0, s>>>(p, n, write, sink);
	CUDA_CHECK(cudaGetLastError());
}

static volatile int cpu_sink;

static void cpu(int *p, size_t n, int write)
{
	for (size_t i = 0; i < n; i += STRIDE)
		if (write)
			p[i] = (int)i + 1;
		else
			cpu_sink += p[i];
}

static cudaMemLocation dev0(void)
{
	cudaMemLocation l;
	memset(&l, 0, sizeof l);
	l.type = cudaMemLocationTypeDevice;
	l.id = 0;
	return l;
}

static cudaMemLocation host(void)
{
	cudaMemLocation l;
	memset(&l, 0, sizeof l);
	l.type = cudaMemLocationTypeHost;
	l.id = 0;
	return l;
}

int main(int argc, char **argv)
{
	const char *cases[] = {"prefetch-late", "preferred-thrash", "read-mostly-written",
	                       "accessed-by-faults", "clean"};
	if (argc < 2) {
		fprintf(stderr, "usage: um_effects list | um_effects CASE [MIB]\n");
		return 2;
	}
	if (!strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
			printf("%s\n", cases[i]);
		return 0;
	}
	const char *c = argv[1];
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
	size_t bytes = mib << 20, n = bytes / sizeof(int);
	int *p;
	CUDA_CHECK(cudaSetDevice(0));
	CUDA_CHECK(cudaMalloc(&sink, sizeof *sink));
	CUDA_CHECK(cudaMallocManaged(&p, bytes));
	cudaStream_t a, b;
	CUDA_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CUDA_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	cpu(p, n, 1); /* populated on the host */

	if (!strcmp(c, "prefetch-late")) {
		/* The kernel that reads the range is enqueued before the prefetch
		 * meant for it: the prefetch runs after the kernel (stream order),
		 * whose reads fault the pages over first.  The kernel waits 20 ms
		 * before it reads, so that its faults come after the prefetch call. */
		int khz = 0;
		CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
		spin<<<1, 1, 0, a>>>((long long)(khz ? khz : 1500000) * 20);
		CUDA_CHECK(cudaGetLastError());
		gpu(p, n, 0, a);
		CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, dev0(), 0, a));
		CUDA_CHECK(cudaDeviceSynchronize());
	} else if (!strcmp(c, "preferred-thrash")) {
		CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, dev0()));
		for (int round = 0; round < 6; round++) {
			gpu(p, n, 1, a);
			CUDA_CHECK(cudaStreamSynchronize(a));
			cpu(p, n, 1); /* the host cannot map the device's pages: they move */
		}
	} else if (!strcmp(c, "read-mostly-written")) {
		CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetReadMostly, dev0()));
		gpu(p, n, 0, a); /* read: a copy on the device */
		CUDA_CHECK(cudaStreamSynchronize(a));
		gpu(p, n, 1, a); /* written: the copies collapse */
		CUDA_CHECK(cudaStreamSynchronize(a));
	} else if (!strcmp(c, "accessed-by-faults")) {
		CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, host()));
		CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, dev0(), 0, a));
		CUDA_CHECK(cudaStreamSynchronize(a));
		cpu(p, n, 0); /* the host still faults on pages on the device */
	} else if (!strcmp(c, "clean")) {
		CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, dev0(), 0, a));
		gpu(p, n, 1, a); /* same stream: after the prefetch */
		CUDA_CHECK(cudaStreamSynchronize(a));
		CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, host(), 0, a));
		CUDA_CHECK(cudaStreamSynchronize(a));
		cpu(p, n, 0);
	} else {
		fprintf(stderr, "um_effects: no case %s\n", c);
		return 2;
	}
	printf("range %p\nbytes %zu\n", (void *)p, bytes);
	CUDA_CHECK(cudaFree(p));
	CUDA_CHECK(cudaFree(sink));
	printf("ok\n");
	return 0;
}

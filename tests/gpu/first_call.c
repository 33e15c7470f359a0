/*
 * What the first traced call of a process costs, on the real driver: the
 * driver API by dlopen, cuInit and the primary context untimed, then the
 * first cuDeviceCanAccessPeer timed alone (under peerwatch it asks the
 * management library about the devices' links before the call), then
 * 10000 more, their median.  Prints one line:
 *
 *   first N ns, then median M ns
 *
 * fd_gpu.sh runs it untraced and traced (tests/gpu/README.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "peerwatch/abi/cuda.h"

enum { N = 10000 };
static long long t[N];

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	CUresult (*retain)(CUcontext *, CUdevice) =
	    h ? (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain") : NULL;
	CUresult (*set_current)(CUcontext) = h ? (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent") : NULL;
	CUresult (*can)(int *, CUdevice, CUdevice) =
	    h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	CUcontext ctx;
	if (!init || !retain || !set_current || !can || init(0) != CUDA_SUCCESS ||
	    retain(&ctx, 0) != CUDA_SUCCESS || set_current(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "first_call: no driver\n");
		return 3;
	}
	int v = 0;
	long long a = now_ns();
	can(&v, 0, 0);
	long long first = now_ns() - a;
	for (int i = 0; i < N; i++) {
		a = now_ns();
		can(&v, 0, 0);
		t[i] = now_ns() - a;
	}
	qsort(t, N, sizeof *t, by_value);
	printf("first %lld ns, then median %lld ns\n", first, t[N / 2]);
	return 0;
}

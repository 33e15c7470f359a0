/* 8 threads x 10 000 calls through a dlsym'ed driver function: the test
 * checks that every one of the 80 000 events is in the trace exactly once. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "peerwatch/abi/cuda.h"

#define THREADS 8
#define CALLS 10000

static CUresult (*can_access)(int *, CUdevice, CUdevice);

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < CALLS; i++) {
		int v;
		if (can_access(&v, i & 1, !(i & 1)) != CUDA_SUCCESS || v != 1) {
			fprintf(stderr, "threads: call %d failed\n", i);
			exit(1);
		}
	}
	return NULL;
}

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	can_access = h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	if (!init || !can_access || init(0) != CUDA_SUCCESS) {
		fprintf(stderr, "threads: no driver\n");
		return 1;
	}
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/*
 * Many calls, and one contract broken many times from one call site.
 *
 *   flood CALLS BAD [SITES]
 *
 * CALLS correct calls (cuDeviceCanAccessPeer), then BAD calls of
 * cuCtxEnablePeerAccess on the current context itself (peer.enable.self:
 * the driver refuses it and nothing changes), made from SITES different call
 * sites in turn (1 to 4; default 1).  Prints how many calls it made of each
 * kind.  Under peerwatch the first finding at each site is reported in full
 * and the rest counted.
 *
 * FLOOD_PRINT=1: print a line on stdout after each correct call (a program
 * whose stdout may be a closed pipe).  FLOOD_OUT=FILE: the closing line goes
 * to FILE, opened at the start: with stderr closed it gets descriptor 2, and
 * nothing but the program's own line may end up in it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"

static CUresult (*can_access)(int *, CUdevice, CUdevice);
static CUresult (*enable)(CUcontext, unsigned);
static CUcontext ctx;

/* Each its own call site: not inlined, not merged with one another (each
 * adds its own number), not a tail call (the result is used after). */
static volatile long sink;
__attribute__((noinline)) static void bad0(void)
{
	sink += enable(ctx, 0) + 0;
}
__attribute__((noinline)) static void bad1(void)
{
	sink += enable(ctx, 0) + 1;
}
__attribute__((noinline)) static void bad2(void)
{
	sink += enable(ctx, 0) + 2;
}
__attribute__((noinline)) static void bad3(void)
{
	sink += enable(ctx, 0) + 3;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: flood CALLS BAD [SITES]\n");
		return 2;
	}
	long calls = atol(argv[1]), bad = atol(argv[2]);
	int sites = argc > 3 ? atoi(argv[3]) : 1;
	if (calls < 0 || bad < 0 || sites < 1 || sites > 4) {
		fprintf(stderr, "flood: bad arguments\n");
		return 2;
	}
	const char *out_path = getenv("FLOOD_OUT");
	int out = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : STDOUT_FILENO;
	const char *print_env = getenv("FLOOD_PRINT");
	bool print = print_env && !strcmp(print_env, "1");
	if (out < 0) {
		perror("flood: FLOOD_OUT");
		return 1;
	}
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	CUresult (*retain)(CUcontext *, CUdevice) =
	    h ? (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain") : NULL;
	CUresult (*set_current)(CUcontext) = h ? (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent") : NULL;
	can_access = h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	enable = h ? (CUresult(*)(CUcontext, unsigned))dlsym(h, "cuCtxEnablePeerAccess") : NULL;
	if (!init || !retain || !set_current || !can_access || !enable || init(0) != CUDA_SUCCESS ||
	    retain(&ctx, 0) != CUDA_SUCCESS || set_current(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "flood: no driver\n");
		return 1;
	}
	for (long i = 0; i < calls; i++) {
		int v;
		if (can_access(&v, 0, 1) != CUDA_SUCCESS) {
			fprintf(stderr, "flood: call failed\n");
			return 1;
		}
		if (print)
			printf("flood: call %ld\n", i);
	}
	static void (*const bads[])(void) = {bad0, bad1, bad2, bad3};
	for (long i = 0; i < bad; i++)
		bads[i % sites]();
	if (out == STDOUT_FILENO)
		printf("flood: %ld calls, %ld bad from %d site%s\n", calls, bad, sites,
		       sites == 1 ? "" : "s");
	else
		dprintf(out, "flood: %ld calls, %ld bad from %d site%s\n", calls, bad, sites,
		        sites == 1 ? "" : "s");
	return 0;
}

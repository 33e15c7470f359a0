/*
 * Unified-memory advice and prefetches whose effect the counters show, on
 * the simulated driver: the cases of tests/gpu/um_effects.cu, with the
 * simulator's pwsim_um_touch standing for the kernels and the CPU loops
 * (tests/sim/cuda_sim_um.c has the model).
 *
 *   um_effects CASE   prefetch-late | preferred-thrash | read-mostly-written |
 *                     accessed-by-faults | clean
 *   um_effects list
 *
 * prefetch-late needs PWSIM_UM_PREFETCH=deferred (the prefetch takes effect
 * at the synchronize, as one queued behind other work does).  Prints
 * "range 0x... bytes N" and "ok".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/cuda.h"
#include "pwsim_um.h"

CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuMemAllocManaged(CUdeviceptr *, size_t, unsigned);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemAdvise_v2(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream);

#define BYTES ((size_t)1 << 20) /* 16 of the model's pages */
#define CPU (-1)

static void need(int rc, const char *what)
{
	if (rc != 0) {
		fprintf(stderr, "um_effects: %s failed (%d)\n", what, rc);
		exit(1);
	}
}

static CUmemLocation dev0(void)
{
	CUmemLocation l = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
	return l;
}

static CUmemLocation host(void)
{
	CUmemLocation l = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
	return l;
}

static void touch(CUdeviceptr p, int proc, int write)
{
	need(pwsim_um_touch(p, BYTES, proc, write), "pwsim_um_touch");
}

int main(int argc, char **argv)
{
	static const char *const cases[] = {"prefetch-late", "preferred-thrash", "read-mostly-written",
	                                    "accessed-by-faults", "clean"};
	if (argc < 2) {
		fprintf(stderr, "usage: um_effects list | um_effects CASE\n");
		return 2;
	}
	if (!strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
			printf("%s\n", cases[i]);
		return 0;
	}
	const char *c = argv[1];
	CUdevice d;
	CUcontext ctx;
	CUstream s;
	CUdeviceptr p;
	need(cuInit(0), "cuInit");
	need(cuDeviceGet(&d, 0), "cuDeviceGet");
	need(cuDevicePrimaryCtxRetain(&ctx, d), "cuDevicePrimaryCtxRetain");
	need(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	need(cuStreamCreate(&s, 0), "cuStreamCreate");
	need(cuMemAllocManaged(&p, BYTES, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
	touch(p, CPU, 1); /* populated on the host */

	if (!strcmp(c, "prefetch-late")) {
		need(cuMemPrefetchAsync_v2(p, BYTES, dev0(), 0, s), "prefetch");
		touch(p, 0, 0); /* before the prefetch has moved anything */
		need(cuStreamSynchronize(s), "cuStreamSynchronize");
	} else if (!strcmp(c, "preferred-thrash")) {
		need(cuMemAdvise_v2(p, BYTES, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0()), "advise");
		for (int round = 0; round < 6; round++) {
			touch(p, 0, 1);
			touch(p, CPU, 1); /* the host cannot map the device's pages: they move */
		}
	} else if (!strcmp(c, "read-mostly-written")) {
		need(cuMemAdvise_v2(p, BYTES, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0()), "advise");
		touch(p, 0, 0);
		touch(p, 0, 1);
	} else if (!strcmp(c, "accessed-by-faults")) {
		need(cuMemAdvise_v2(p, BYTES, CU_MEM_ADVISE_SET_ACCESSED_BY, host()), "advise");
		need(cuMemPrefetchAsync_v2(p, BYTES, dev0(), 0, s), "prefetch");
		need(cuStreamSynchronize(s), "cuStreamSynchronize");
		touch(p, CPU, 0);
	} else if (!strcmp(c, "clean")) {
		need(cuMemPrefetchAsync_v2(p, BYTES, dev0(), 0, s), "prefetch");
		need(cuStreamSynchronize(s), "cuStreamSynchronize");
		touch(p, 0, 1);
		need(cuMemPrefetchAsync_v2(p, BYTES, host(), 0, s), "prefetch");
		need(cuStreamSynchronize(s), "cuStreamSynchronize");
		touch(p, CPU, 0);
	} else {
		fprintf(stderr, "um_effects: no case %s\n", c);
		return 2;
	}
	printf("range 0x%llx bytes %zu\n", (unsigned long long)p, BYTES);
	need(cuMemFree_v2(p), "cuMemFree");
	printf("ok\n");
	return 0;
}

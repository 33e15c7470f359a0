/*
 * One peer copy from device ordinal 0 to ordinal 1 through one vendor's
 * runtime, loaded with dlopen, for tests/integration/devices.sh: run twice
 * with the devices seen in two orders (CUDA_VISIBLE_DEVICES=1,0 and the
 * like), the two copies go between the same two GPUs in opposite directions.
 *
 *   visible cuda|hip|acl BYTES [late-init]
 *   visible cuda-peers HOLD FROM TO...
 *
 * late-init (cuda): asks the driver a traced question before cuInit, so
 * that the first traced call finds the driver not initialized.
 * Prints "visible: copied BYTES from <id of 0> to <id of 1>" (the runtime's
 * own view of the two devices' bus ids; ACL has none: "-").
 *
 * cuda-peers: enables peer access from ordinal FROM to each TO (printing
 * each result), prints "ready", then waits until the file HOLD exists
 * (at most 60 s) so that its connections stay while another process
 * makes its own.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peerwatch/abi/acl.h"
#include "peerwatch/abi/cuda.h"
#include "peerwatch/abi/hip.h"

static void *lib;

static void *fn(const char *name)
{
	void *f = dlsym(lib, name);
	if (!f) {
		fprintf(stderr, "visible: %s missing\n", name);
		exit(2);
	}
	return f;
}

#define FN(type, name) ((type)fn(name))
#define MUST(call)                                                                \
	do {                                                                      \
		long long r_ = (long long)(call);                                 \
		if (r_ != 0) {                                                    \
			fprintf(stderr, "visible: %s failed: %lld\n", #call, r_); \
			exit(1);                                                  \
		}                                                                 \
	} while (0)

static void cuda(size_t n, int late)
{
	lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib)
		exit(2);
	if (late) { /* a traced call before cuInit: CUDA_ERROR_NOT_INITIALIZED */
		int can = 0;
		FN(CUresult(*)(int *, CUdevice, CUdevice), "cuDeviceCanAccessPeer")(&can, 0, 1);
	}
	MUST(FN(CUresult(*)(unsigned), "cuInit")(0));
	CUcontext c[2];
	CUdeviceptr p[2];
	char bus[2][32];
	for (int d = 0; d < 2; d++) {
		MUST(FN(CUresult(*)(CUcontext *, CUdevice), "cuDevicePrimaryCtxRetain")(&c[d], d));
		MUST(FN(CUresult(*)(CUcontext), "cuCtxSetCurrent")(c[d]));
		MUST(FN(CUresult(*)(CUdeviceptr *, size_t), "cuMemAlloc_v2")(&p[d], n));
		MUST(FN(CUresult(*)(char *, int, CUdevice), "cuDeviceGetPCIBusId")(bus[d], 32, d));
	}
	MUST(FN(CUresult(*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t),
	        "cuMemcpyPeer")(p[1], c[1], p[0], c[0], n));
	printf("visible: copied %zu from %s to %s\n", n, bus[0], bus[1]);
}

static void cuda_peers(const char *hold, int from, char **to, int n)
{
	lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib)
		exit(2);
	MUST(FN(CUresult(*)(unsigned), "cuInit")(0));
	CUcontext me, peer;
	MUST(FN(CUresult(*)(CUcontext *, CUdevice), "cuDevicePrimaryCtxRetain")(&me, from));
	for (int i = 0; i < n; i++) {
		MUST(FN(CUresult(*)(CUcontext *, CUdevice), "cuDevicePrimaryCtxRetain")(&peer, atoi(to[i])));
		MUST(FN(CUresult(*)(CUcontext), "cuCtxSetCurrent")(me));
		int r = FN(CUresult(*)(CUcontext, unsigned), "cuCtxEnablePeerAccess")(peer, 0);
		printf("enable %d -> %s: %d\n", from, to[i], r);
	}
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 6000 && access(hold, F_OK) != 0; i++)
		usleep(10000);
}

static void hip(size_t n)
{
	lib = dlopen("libamdhip64.so.6", RTLD_NOW);
	if (!lib)
		exit(2);
	void *p[2];
	char bus[2][32];
	for (int d = 0; d < 2; d++) {
		MUST(FN(hipError_t(*)(int), "hipSetDevice")(d));
		MUST(FN(hipError_t(*)(void **, size_t), "hipMalloc")(&p[d], n));
		MUST(FN(hipError_t(*)(char *, int, int), "hipDeviceGetPCIBusId")(bus[d], 32, d));
	}
	MUST(FN(hipError_t(*)(void *, int, const void *, int, size_t), "hipMemcpyPeer")(p[1], 1, p[0], 0, n));
	printf("visible: copied %zu from %s to %s\n", n, bus[0], bus[1]);
}

static void acl(size_t n)
{
	lib = dlopen("libascendcl.so", RTLD_NOW);
	if (!lib)
		exit(2);
	void *p[2];
	MUST(FN(aclError(*)(const char *), "aclInit")(NULL));
	for (int d = 0; d < 2; d++) {
		MUST(FN(aclError(*)(int32_t), "aclrtSetDevice")(d));
		MUST(FN(aclError(*)(int32_t, uint32_t), "aclrtDeviceEnablePeerAccess")(1 - d, 0));
		MUST(FN(aclError(*)(void **, size_t, aclrtMemMallocPolicy),
		        "aclrtMalloc")(&p[d], n, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	}
	MUST(FN(aclError(*)(void *, size_t, const void *, size_t, aclrtMemcpyKind),
	        "aclrtMemcpy")(p[1], n, p[0], n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	printf("visible: copied %zu from - to -\n", n);
}

int main(int argc, char **argv)
{
	if (argc > 4 && !strcmp(argv[1], "cuda-peers")) {
		cuda_peers(argv[2], atoi(argv[3]), argv + 4, argc - 4);
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: visible cuda|hip|acl BYTES [late-init]\n");
		return 2;
	}
	size_t n = strtoul(argv[2], NULL, 0);
	if (!strcmp(argv[1], "cuda"))
		cuda(n, argc > 3 && !strcmp(argv[3], "late-init"));
	else if (!strcmp(argv[1], "hip"))
		hip(n);
	else if (!strcmp(argv[1], "acl"))
		acl(n);
	else
		return 2;
	return 0;
}

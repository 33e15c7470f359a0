/*
 * Makes the library write what the other test programs do not: the
 * extremes of every kind of argument, through the simulated CUDA driver,
 * CUDA runtime, HIP and ACL in one process, so that the analyzer's reader
 * can be shown to take every line the library writes
 * (tests/analyze/roundtrip.sh).
 *
 *   - size_t and unsigned long long values of 2^63 and above (a copy of
 *     SIZE_MAX bytes, a prefetch of 2^63+7, flags ~0), negative ints (device
 *     -1 and INT_MIN, a negative advice and attribute, an unknown location);
 *   - batch copies (cuMemcpyBatchAsync, cuMemcpy3DBatchAsync) and batch
 *     prefetches, one of them failing: three ranges to device 1;
 *   - advice whose range runs past its allocation;
 *   - IPC: a memory handle exported from an interior pointer and again from
 *     the base, an event handle; a child that opens both and exits without
 *     closing (ipc.leak at exit, a finding with no call); the exporter frees
 *     after the child has exited;
 *   - a virtual-memory mapping never unmapped (vmm.leak at exit).
 *
 *   roundtrip                   the parent (starts the child itself)
 *   roundtrip child MEMHEX EVHEX  the importer
 * Calls are expected to fail where their arguments are impossible; any
 * other surprise exits 1 with file:line.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/acl.h"
#include "peerwatch/abi/cuda.h"
#include "peerwatch/abi/cudart.h"
#include "peerwatch/abi/hip.h"

#define BIG ((size_t)1 << 63)
#define MIB ((size_t)1 << 20)
#define GRAN ((size_t)2 << 20)

static int line_failed;

/* The call must return 0 (ok) or must not (fail). */
#define OK(call) expect((call) == 0, #call, __LINE__)
#define FAILS(call) expect((call) != 0, #call, __LINE__)

static void expect(int as_wanted, const char *what, int line)
{
	if (!as_wanted) {
		fprintf(stderr, "roundtrip.c:%d: %s: unexpected result\n", line, what);
		line_failed = line;
	}
}

typedef CUresult (*getproc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
static getproc_fn getproc;

/* By the name without its ABI suffix, as the runtime asks (CUDA 13: the _v2 ABIs). */
static void *drv(const char *name)
{
	void *f = NULL;
	char base[64];
	CUdriverProcAddressQueryResult st;
	snprintf(base, sizeof base, "%.*s", (int)strcspn(name, "_"), name);
	if (getproc(base, &f, 13000, 0, &st) != CUDA_SUCCESS || !f) {
		fprintf(stderr, "roundtrip: no %s in the driver\n", name);
		exit(1);
	}
	return f;
}

static void *sym(void *lib, const char *name)
{
	void *f = lib ? dlsym(lib, name) : NULL;
	if (!f) {
		fprintf(stderr, "roundtrip: no %s\n", name);
		exit(1);
	}
	return f;
}

#define DRV_FUNCS(X)                                                                                       \
	X(CUresult, cuInit, (unsigned))                                                                    \
	X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                     \
	X(CUresult, cuCtxSetCurrent, (CUcontext))                                                          \
	X(CUresult, cuMemAlloc, (CUdeviceptr *, size_t))                                                   \
	X(CUresult, cuMemFree, (CUdeviceptr))                                                              \
	X(CUresult, cuStreamCreate, (CUstream *, unsigned))                                                \
	X(CUresult, cuStreamSynchronize, (CUstream))                                                       \
	X(CUresult, cuEventCreate, (CUevent *, unsigned))                                                  \
	X(CUresult, cuDeviceCanAccessPeer, (int *, CUdevice, CUdevice))                                    \
	X(CUresult, cuDeviceGetP2PAttribute, (int *, CUdevice_P2PAttribute, CUdevice, CUdevice))           \
	X(CUresult, cuCtxEnablePeerAccess, (CUcontext, unsigned))                                          \
	X(CUresult, cuMemcpyPeer, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t))                \
	X(CUresult, cuMemcpyPeerAsync, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream)) \
	X(CUresult, cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *))                                          \
	X(CUresult, cuMemAllocManaged, (CUdeviceptr *, size_t, unsigned))                                  \
	X(CUresult, cuMemAdvise_v2, (CUdeviceptr, size_t, CUmem_advise, CUmemLocation))                    \
	X(CUresult, cuMemPrefetchAsync_v2, (CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream))       \
	X(CUresult, cuMemRangeGetAttribute, (void *, size_t, CUmem_range_attribute, CUdeviceptr, size_t))  \
	X(CUresult, cuMemRangeGetAttributes,                                                               \
	  (void **, size_t *, CUmem_range_attribute *, size_t, CUdeviceptr, size_t))                       \
	X(CUresult, cuStreamAttachMemAsync, (CUstream, CUdeviceptr, size_t, unsigned))                     \
	X(CUresult, cuMemPrefetchBatchAsync,                                                               \
	  (CUdeviceptr *, size_t *, size_t, CUmemLocation *, size_t *, size_t, unsigned long long,         \
	   CUstream))                                                                                      \
	X(CUresult, cuMemDiscardAndPrefetchBatchAsync,                                                     \
	  (CUdeviceptr *, size_t *, size_t, CUmemLocation *, size_t *, size_t, unsigned long long,         \
	   CUstream))                                                                                      \
	X(CUresult, cuMemcpyBatchAsync,                                                                    \
	  (CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *, size_t *, size_t,         \
	   CUstream))                                                                                      \
	X(CUresult, cuIpcGetMemHandle, (CUipcMemHandle *, CUdeviceptr))                                    \
	X(CUresult, cuIpcOpenMemHandle, (CUdeviceptr *, CUipcMemHandle, unsigned))                         \
	X(CUresult, cuIpcGetEventHandle, (CUipcEventHandle *, CUevent))                                    \
	X(CUresult, cuIpcOpenEventHandle, (CUevent *, CUipcEventHandle))                                   \
	X(CUresult, cuMemAddressReserve, (CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long)) \
	X(CUresult, cuMemCreate,                                                                           \
	  (CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long))       \
	X(CUresult, cuMemMap,                                                                              \
	  (CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long))                 \
	X(CUresult, cuMemSetAccess, (CUdeviceptr, size_t, const CUmemAccessDesc *, size_t))
#define DECL(ret, name, args) static ret(*name) args;
#define LOOKUP(ret, name, args) *(void **)&name = drv(#name);
DRV_FUNCS(DECL)

static CUcontext ctx[2];

static void drv_init(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	getproc = lib ? (getproc_fn)dlsym(lib, "cuGetProcAddress_v2") : NULL;
	if (!getproc) {
		fprintf(stderr, "roundtrip: no cuGetProcAddress_v2\n");
		exit(1);
	}
	DRV_FUNCS(LOOKUP)
	OK(cuInit(0));
	OK(cuDevicePrimaryCtxRetain(&ctx[0], 0));
	OK(cuDevicePrimaryCtxRetain(&ctx[1], 1));
	OK(cuCtxSetCurrent(ctx[0]));
}

static void hex(const void *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void unhex(const char *s, void *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;
		sscanf(s + 2 * i, "%2x", &v);
		((unsigned char *)p)[i] = (unsigned char)v;
	}
}

static CUmemLocation loc(int type, int id)
{
	CUmemLocation l;
	memset(&l, 0, sizeof l);
	l.type = type;
	l.id = id;
	return l;
}

/* ---- the CUDA driver ---- */

static void peer_and_copies(CUdeviceptr a0, CUdeviceptr a1, CUstream s)
{
	int v = 0;
	/* the first traced call, and unqueried: the trace's first event is
	 * its violation, written before the call starts */
	OK(cuCtxEnablePeerAccess(ctx[1], 0));
	FAILS(cuDeviceCanAccessPeer(&v, -1, INT_MIN));
	FAILS(cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)-5, 0, 1));
	FAILS(cuCtxEnablePeerAccess(ctx[1], 0xffffffffu));
	FAILS(cuMemcpyPeer(a1, ctx[1], a0, ctx[0], SIZE_MAX));
	FAILS(cuMemcpyPeerAsync(a1, ctx[1], a0, ctx[0], BIG, s));
	OK(cuMemcpyPeerAsync(a1, ctx[1], a0, ctx[0], 4096, s));
	CUDA_MEMCPY3D_PEER p;
	memset(&p, 0, sizeof p);
	p.srcMemoryType = p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	p.srcDevice = a0;
	p.dstDevice = a1;
	p.srcContext = ctx[0];
	p.dstContext = ctx[1];
	p.WidthInBytes = BIG + 1;
	p.Height = p.Depth = 1;
	FAILS(cuMemcpy3DPeer(&p));
	/* a batch across devices (recorded: implicit), and one of impossible sizes */
	CUdeviceptr dsts[2] = {a1, a1 + 4096}, srcs[2] = {a0, a0 + 8192};
	size_t sizes[2] = {100, 300}, idx[1] = {0}, huge[2] = {BIG, SIZE_MAX};
	CUmemcpyAttributes attr;
	memset(&attr, 0, sizeof attr);
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	OK(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, idx, 1, s));
	FAILS(cuMemcpyBatchAsync(dsts, srcs, huge, 2, &attr, idx, 1, s));
	OK(cuStreamSynchronize(s));
}

static void managed(CUstream s)
{
	CUdeviceptr m = 0;
	int rm = 0, rms[2];
	void *data[2] = {&rms[0], &rms[1]};
	size_t dsz[2] = {4, 4};
	CUmem_range_attribute attrs[2] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
	                                  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};
	OK(cuMemAllocManaged(&m, MIB, CU_MEM_ATTACH_GLOBAL));
	FAILS(cuMemAdvise_v2(m, SIZE_MAX, (CUmem_advise)-2, loc(99, -5)));
	/* a range that runs past the allocation's end */
	FAILS(cuMemAdvise_v2(m + MIB / 2, MIB, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
	                     loc(CU_MEM_LOCATION_TYPE_DEVICE, 1)));
	OK(cuMemAdvise_v2(m, MIB, CU_MEM_ADVISE_SET_READ_MOSTLY, loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)));
	FAILS(cuMemPrefetchAsync_v2(m, BIG + 7, loc(CU_MEM_LOCATION_TYPE_DEVICE, 1), 0, s));
	FAILS(cuMemPrefetchAsync_v2(m, SIZE_MAX, loc(CU_MEM_LOCATION_TYPE_DEVICE, 1), 0xffffffffu, s));
	OK(cuMemPrefetchAsync_v2(m, 4096, loc(CU_MEM_LOCATION_TYPE_DEVICE, 1), 0, s));
	OK(cuMemRangeGetAttribute(&rm, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096));
	FAILS(cuMemRangeGetAttribute(&rm, SIZE_MAX, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096));
	FAILS(cuMemRangeGetAttributes(data, dsz, attrs, 2, m, SIZE_MAX));
	FAILS(cuStreamAttachMemAsync(s, m, SIZE_MAX, 0xffffffffu));
	/* batches of three ranges to device 1: one that works, one that cannot */
	CUdeviceptr r[3] = {m, m + 4096, m + 8192};
	size_t ok_sizes[3] = {4096, 4096, 4096}, bad_sizes[3] = {BIG, SIZE_MAX, 4096}, li[1] = {0};
	CUmemLocation l1[1] = {loc(CU_MEM_LOCATION_TYPE_DEVICE, 1)};
	OK(cuMemPrefetchBatchAsync(r, ok_sizes, 3, l1, li, 1, 0, s));
	FAILS(cuMemPrefetchBatchAsync(r, bad_sizes, 3, l1, li, 1, ~0ULL, s));
	OK(cuMemDiscardAndPrefetchBatchAsync(r, ok_sizes, 3, l1, li, 1, 0, s));
	OK(cuStreamSynchronize(s));
	OK(cuMemFree(m));
}

/* Mapped and never unmapped: vmm.leak when the process exits. */
static void vmm(void)
{
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h = 0;
	CUdeviceptr va = 0;
	CUmemAccessDesc a;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location = loc(CU_MEM_LOCATION_TYPE_DEVICE, 0);
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	FAILS(cuMemCreate(&h, GRAN, &prop, ~0ULL));
	OK(cuMemCreate(&h, GRAN, &prop, 0));
	OK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	FAILS(cuMemMap(va, SIZE_MAX, BIG, h, ~0ULL));
	OK(cuMemMap(va, GRAN, 0, h, 0));
	memset(&a, 0, sizeof a);
	a.location = loc(CU_MEM_LOCATION_TYPE_DEVICE, 1);
	a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	OK(cuMemSetAccess(va, GRAN, &a, 1));
}

/* ---- the CUDA runtime, HIP and ACL ---- */

static void runtime(void)
{
	void *rt = dlopen("libcudart.so.13", RTLD_NOW);
	cudaError_t (*setdev)(int) = sym(rt, "cudaSetDevice");
	cudaError_t (*enable)(int, unsigned) = sym(rt, "cudaDeviceEnablePeerAccess");
	cudaError_t (*disable)(int) = sym(rt, "cudaDeviceDisablePeerAccess");
	cudaError_t (*copy)(void *, int, const void *, int, size_t) = sym(rt, "cudaMemcpyPeer");
	cudaError_t (*alloc)(void **, size_t) = sym(rt, "cudaMalloc");
	cudaError_t (*free_async)(void *, cudaStream_t) = sym(rt, "cudaFreeAsync");
	void *p = NULL;
	OK(setdev(1));
	enable(0, 0); /* the driver's cuCtxEnablePeerAccess of this context may have done it */
	OK(disable(0));
	FAILS(copy(p, -1, p, INT_MIN, SIZE_MAX));
	OK(alloc(&p, 4096));
	OK(free_async(p, NULL));
	OK(setdev(0));
}

static void hip(void)
{
	void *h = dlopen("libamdhip64.so.6", RTLD_NOW | RTLD_LOCAL);
	hipError_t (*setdev)(int) = sym(h, "hipSetDevice");
	hipError_t (*can)(int *, int, int) = sym(h, "hipDeviceCanAccessPeer");
	hipError_t (*copy)(void *, int, const void *, int, size_t) = sym(h, "hipMemcpyPeer");
	int v = 0;
	OK(setdev(0));
	FAILS(can(&v, -3, INT_MAX));
	FAILS(copy(NULL, -1, NULL, INT_MIN, SIZE_MAX));
}

static void acl(void)
{
	void *a = dlopen("libascendcl.so", RTLD_NOW | RTLD_LOCAL);
	aclError (*init)(const char *) = sym(a, "aclInit");
	aclError (*setdev)(int32_t) = sym(a, "aclrtSetDevice");
	aclError (*getdev)(int32_t *) = sym(a, "aclrtGetDevice");
	aclError (*mal)(void **, size_t, aclrtMemMallocPolicy) = sym(a, "aclrtMalloc");
	aclError (*cpy)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = sym(a, "aclrtMemcpy");
	aclError (*fre)(void *) = sym(a, "aclrtFree");
	aclError (*reset)(int32_t) = sym(a, "aclrtResetDevice");
	aclError (*fin)(void) = sym(a, "aclFinalize");
	int32_t d = -1;
	void *p = NULL;
	OK(init(NULL));
	OK(setdev(1));
	OK(getdev(&d));
	FAILS(mal(&p, SIZE_MAX, (aclrtMemMallocPolicy)0x7fff));
	OK(mal(&p, 4096, (aclrtMemMallocPolicy)0));
	FAILS(cpy(p, SIZE_MAX, p, BIG, (aclrtMemcpyKind)99));
	OK(fre(p));
	OK(reset(1));
	OK(fin());
}

/* ---- IPC ---- */

static int child(const char *memhex, const char *evhex)
{
	CUipcMemHandle mh;
	CUipcEventHandle eh;
	CUdeviceptr p = 0;
	CUevent e = NULL;
	drv_init();
	OK(cuCtxSetCurrent(ctx[1]));
	unhex(memhex, &mh, sizeof mh);
	unhex(evhex, &eh, sizeof eh);
	OK(cuIpcOpenMemHandle(&p, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	OK(cuIpcOpenEventHandle(&e, eh));
	return line_failed ? 1 : 0; /* exits with the mapping open */
}

static void ipc(const char *self, CUdeviceptr a0)
{
	CUipcMemHandle inner, base;
	CUipcEventHandle eh;
	CUevent e = NULL;
	char memhex[2 * sizeof base + 1], evhex[2 * sizeof eh + 1];
	OK(cuIpcGetMemHandle(&inner, a0 + 256)); /* ipc.export.interior-pointer */
	OK(cuIpcGetMemHandle(&base, a0));
	OK(cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	OK(cuIpcGetEventHandle(&eh, e));
	hex(&base, sizeof base, memhex);
	hex(&eh, sizeof eh, evhex);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, "child", memhex, evhex, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "roundtrip: the child failed\n");
		line_failed = __LINE__;
	}
	/* the importer has exited: this free is not a free while open */
	OK(cuMemFree(a0));
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "child"))
		return child(argv[2], argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: roundtrip\n");
		return 2;
	}
	CUdeviceptr a0 = 0, a1 = 0;
	CUstream s = NULL;
	drv_init();
	OK(cuMemAlloc(&a0, MIB));
	OK(cuCtxSetCurrent(ctx[1]));
	OK(cuMemAlloc(&a1, MIB));
	OK(cuCtxSetCurrent(ctx[0]));
	OK(cuStreamCreate(&s, 0));
	peer_and_copies(a0, a1, s);
	managed(s);
	vmm();
	runtime();
	hip();
	acl();
	/* the legacy 32-bit ABI (PTR32), of an address no allocation has */
	CUresult (*free_v1)(CUdeviceptr_v1) = sym(dlopen("libcuda.so.1", RTLD_NOW), "cuMemFree");
	FAILS(free_v1(0xfffffff0u));
	OK(cuCtxSetCurrent(ctx[0]));
	ipc(argv[0], a0);
	OK(cuMemFree(a1));
	return line_failed ? 1 : 0;
}

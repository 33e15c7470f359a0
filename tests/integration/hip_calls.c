/*
 * The documents' own HIP sequences, done right, against the simulated HIP
 * runtime: the peer calls of the HIP peer document, the IPC calls of the HIP IPC document (two
 * processes), the managed-memory calls of the HIP managed-memory document; and the cases around
 * them that tests/integration/rules_hip.sh looks at in the trace:
 *
 *   hip_calls [--getproc] peer|ipc|managed|reset|vmm|vmm-released|all
 *   hip_calls [--getproc] skew FLAGS     (an IPC open with these flags)
 *
 * The runtime is reached one of three ways, as programs do: linked symbols
 * (built with -DHIP_LINKED), dlsym on a dlopen'ed library ($PW_HIP_LIB,
 * default libamdhip64.so.6), or, with --getproc, pointers handed out by
 * hipGetProcAddress (ROCm >= 6.2).  Every way must reach peerwatch.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hip_api.h"

/* name, return type, parameter types */
#define HIP_FNS(X)                                                                                       \
	X(hipGetDeviceCount, (int *))                                                                    \
	X(hipSetDevice, (int))                                                                           \
	X(hipRuntimeGetVersion, (int *))                                                                 \
	X(hipMalloc, (void **, size_t))                                                                  \
	X(hipMemcpy, (void *, const void *, size_t, int))                                                \
	X(hipStreamCreate, (hipStream_t *))                                                              \
	X(hipStreamSynchronize, (hipStream_t))                                                           \
	X(hipEventCreateWithFlags, (hipEvent_t *, unsigned))                                             \
	X(hipEventDestroy, (hipEvent_t))                                                                 \
	X(hipDeviceCanAccessPeer, (int *, int, int))                                                     \
	X(hipDeviceEnablePeerAccess, (int, unsigned))                                                    \
	X(hipDeviceDisablePeerAccess, (int))                                                             \
	X(hipCtxEnablePeerAccess, (hipCtx_t, unsigned))                                                  \
	X(hipCtxDisablePeerAccess, (hipCtx_t))                                                           \
	X(hipDevicePrimaryCtxRetain, (hipCtx_t *, int))                                                  \
	X(hipGetDevice, (int *))                                                                         \
	X(hipDeviceGetP2PAttribute, (int *, hipDeviceP2PAttr, int, int))                                 \
	X(hipMemcpyPeer, (void *, int, const void *, int, size_t))                                       \
	X(hipMemcpyPeerAsync, (void *, int, const void *, int, size_t, hipStream_t))                     \
	X(hipMemcpy2D, (void *, size_t, const void *, size_t, size_t, size_t, hipMemcpyKind))            \
	X(hipMemcpy3D, (const hipMemcpy3DParms *))                                                       \
	X(hipIpcGetMemHandle, (hipIpcMemHandle_t *, void *))                                             \
	X(hipIpcOpenMemHandle, (void **, hipIpcMemHandle_t, unsigned))                                   \
	X(hipIpcCloseMemHandle, (void *))                                                                \
	X(hipIpcGetEventHandle, (hipIpcEventHandle_t *, hipEvent_t))                                     \
	X(hipIpcOpenEventHandle, (hipEvent_t *, hipIpcEventHandle_t))                                    \
	X(hipDeviceGetAttribute, (int *, hipDeviceAttribute_t, int))                                     \
	X(hipMallocManaged, (void **, size_t, unsigned))                                                 \
	X(hipMemPrefetchAsync, (const void *, size_t, int, hipStream_t))                                 \
	X(hipMemAdvise, (const void *, size_t, hipMemoryAdvise, int))                                    \
	X(hipMemRangeGetAttribute, (void *, size_t, hipMemRangeAttribute, const void *, size_t))         \
	X(hipMemRangeGetAttributes,                                                                      \
	  (void **, size_t *, hipMemRangeAttribute *, size_t, const void *, size_t))                     \
	X(hipStreamAttachMemAsync, (hipStream_t, void *, size_t, unsigned))                              \
	X(hipFree, (void *))                                                                             \
	X(hipDeviceReset, (void))                                                                        \
	X(hipMemAddressReserve, (void **, size_t, size_t, void *, unsigned long long))                   \
	X(hipMemAddressFree, (void *, size_t))                                                           \
	X(hipMemCreate,                                                                                  \
	  (hipMemGenericAllocationHandle_t *, size_t, const hipMemAllocationProp *, unsigned long long)) \
	X(hipMemExportToShareableHandle,                                                                 \
	  (void *, hipMemGenericAllocationHandle_t, hipMemAllocationHandleType, unsigned long long))     \
	X(hipMemImportFromShareableHandle,                                                               \
	  (hipMemGenericAllocationHandle_t *, void *, hipMemAllocationHandleType))                       \
	X(hipMemMap, (void *, size_t, size_t, hipMemGenericAllocationHandle_t, unsigned long long))      \
	X(hipMemUnmap, (void *, size_t))                                                                 \
	X(hipMemSetAccess, (void *, size_t, const hipMemAccessDesc *, size_t))                           \
	X(hipMemRelease, (hipMemGenericAllocationHandle_t))                                              \
	X(hipMemRetainAllocationHandle, (hipMemGenericAllocationHandle_t *, void *))

/* ROCm 7.1 only: looked up, called when present. */
typedef hipError_t (*prefetch_v2_fn)(const void *, size_t, hipMemLocation, unsigned, hipStream_t);
typedef hipError_t (*advise_v2_fn)(const void *, size_t, hipMemoryAdvise, hipMemLocation);
typedef hipError_t (*copy3d_peer_fn)(hipMemcpy3DPeerParms *);
typedef hipError_t (*copy3d_peer_async_fn)(hipMemcpy3DPeerParms *, hipStream_t);
typedef hipError_t (*batch_fn)(void **, void **, size_t *, size_t, hipMemcpyAttributes *, size_t *, size_t,
                               size_t *, hipStream_t);
typedef hipError_t (*batch3d_fn)(size_t, hipMemcpy3DBatchOp *, size_t *, unsigned long long, hipStream_t);
typedef hipError_t (*prefetch_batch_fn)(void **, size_t *, size_t, hipMemLocation *, size_t *, size_t,
                                        unsigned long long, hipStream_t);
typedef hipError_t (*getproc_fn)(const char *, void **, int, uint64_t, hipDriverProcAddressQueryResult *);

#define FIELD(name, params) hipError_t(*name) params;
static struct {
	HIP_FNS(FIELD)
	prefetch_v2_fn hipMemPrefetchAsync_v2;
	advise_v2_fn hipMemAdvise_v2;
	copy3d_peer_fn hipMemcpy3DPeer;
	copy3d_peer_async_fn hipMemcpy3DPeerAsync;
	batch_fn hipMemcpyBatchAsync;
	batch3d_fn hipMemcpy3DBatchAsync;
	prefetch_batch_fn hipMemPrefetchBatchAsync;
} H;

static const char *self;
static int getproc;
static unsigned lazy;

#define CK(call)                                                                             \
	do {                                                                                 \
		hipError_t r_ = (call);                                                      \
		if (r_ != hipSuccess) {                                                      \
			fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, r_); \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

#ifdef HIP_LINKED
hipError_t hipGetProcAddress(const char *, void **, int, uint64_t, hipDriverProcAddressQueryResult *)
    __attribute__((weak));
#define LINKED(name, params) H.name = name;
#endif

static void *find(void *lib, getproc_fn gp, const char *name)
{
	void *f = NULL;
	if (gp) {
		hipDriverProcAddressQueryResult st = -1;
		if (gp(name, &f, 60200000, 0, &st) != hipSuccess || st != HIP_GET_PROC_ADDRESS_SUCCESS)
			f = NULL;
	} else {
		f = dlsym(lib, name);
	}
	return f;
}

static void resolve(void)
{
	void *lib = NULL;
	getproc_fn gp = NULL;
#ifdef HIP_LINKED
	HIP_FNS(LINKED)
	gp = getproc ? hipGetProcAddress : NULL;
	lib = RTLD_DEFAULT;
#else
	const char *path = getenv("PW_HIP_LIB");
	lib = dlopen(path && *path ? path : "libamdhip64.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "hip_calls: %s\n", dlerror());
		exit(1);
	}
	if (getproc)
		gp = (getproc_fn)dlsym(lib, "hipGetProcAddress");
#endif
	if (getproc && !gp) {
		fprintf(stderr, "hip_calls: this runtime has no hipGetProcAddress\n");
		exit(3);
	}
#define LOOKUP(name, params)                                  \
	if (gp || !H.name)                                    \
		*(void **)&H.name = find(lib, gp, #name);     \
	if (!H.name) {                                        \
		fprintf(stderr, "hip_calls: no %s\n", #name); \
		exit(1);                                      \
	}
	HIP_FNS(LOOKUP)
	*(void **)&H.hipMemPrefetchAsync_v2 = find(lib, gp, "hipMemPrefetchAsync_v2");
	*(void **)&H.hipMemAdvise_v2 = find(lib, gp, "hipMemAdvise_v2");
	*(void **)&H.hipMemcpy3DPeer = find(lib, gp, "hipMemcpy3DPeer");
	*(void **)&H.hipMemcpy3DPeerAsync = find(lib, gp, "hipMemcpy3DPeerAsync");
	*(void **)&H.hipMemcpyBatchAsync = find(lib, gp, "hipMemcpyBatchAsync");
	*(void **)&H.hipMemcpy3DBatchAsync = find(lib, gp, "hipMemcpy3DBatchAsync");
	*(void **)&H.hipMemPrefetchBatchAsync = find(lib, gp, "hipMemPrefetchBatchAsync");
}

static int ndev;
static hipStream_t stream;
static int runtime_version;

static void init(void)
{
	int v = 0;
	resolve();
	CK(H.hipGetDeviceCount(&ndev));
	CK(H.hipRuntimeGetVersion(&v));
	runtime_version = v;
	lazy = v >= 60000000 ? PW_HIP_IPC_LAZY_6 : PW_HIP_IPC_LAZY_5;
	CK(H.hipSetDevice(0));
	CK(H.hipStreamCreate(&stream));
}

static void *alloc_on(int d, size_t n)
{
	void *p;
	CK(H.hipSetDevice(d));
	CK(H.hipMalloc(&p, n));
	CK(H.hipSetDevice(0));
	return p;
}

/* ROCm 7.1's 3D batch: a 16 x 2 x 2 box from device 0 (rows 64 bytes
 * apart, layers of 4 rows) packed into device 1, and one row to the host. */
static void batch3d(char *a0, char *a1)
{
	static char host[16], want[64];
	hipMemcpy3DBatchOp ops[2];
	memset(ops, 0, sizeof ops);
	ops[0].src.type = ops[0].dst.type = hipMemcpyOperandTypePointer;
	ops[0].src.op.ptr.ptr = a0;
	ops[0].src.op.ptr.rowLength = 64;
	ops[0].src.op.ptr.layerHeight = 4;
	ops[0].dst.op.ptr.ptr = a1 + 16384;
	ops[0].extent = (hipExtent){16, 2, 2};
	ops[1] = ops[0];
	ops[1].dst.op.ptr.ptr = host;
	ops[1].extent = (hipExtent){16, 1, 1};
	size_t fail = 0;
	CK(H.hipMemcpy3DBatchAsync(2, ops, &fail, 0, stream));
	CK(H.hipStreamSynchronize(stream));
	static char got[64], src[512];
	CK(H.hipMemcpy(src, a0, sizeof src, hipMemcpyDeviceToHost));
	CK(H.hipMemcpy(got, a1 + 16384, sizeof got, hipMemcpyDeviceToHost));
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 2; y++)
			memcpy(want + (z * 2 + y) * 16, src + z * 256 + y * 64, 16);
	if (memcmp(got, want, sizeof got) || memcmp(host, src, sizeof host)) {
		fprintf(stderr, "hip_calls: the 3D batch copied other bytes\n");
		exit(1);
	}
}

/* ROCm 7.1's copies between the two devices, where the runtime has them: a
 * 3D box each way (hipMemcpy3DPeer[Async]), a batch of a cross-device
 * copy and a copy to the host (hipMemcpyBatchAsync), and a 3D batch
 * (hipMemcpy3DBatchAsync). */
static void copies71(char *a0, char *a1)
{
	if (!H.hipMemcpy3DPeer || !H.hipMemcpy3DPeerAsync || !H.hipMemcpyBatchAsync ||
	    !H.hipMemcpy3DBatchAsync)
		return;
	hipMemcpy3DPeerParms p = {0};
	p.srcPtr = (hipPitchedPtr){a0, 256, 256, 16};
	p.srcDevice = 0;
	p.dstPtr = (hipPitchedPtr){a1, 256, 256, 16};
	p.dstDevice = 1;
	p.extent = (hipExtent){128, 4, 2};
	CK(H.hipMemcpy3DPeer(&p));
	p.srcPtr.ptr = a1;
	p.srcDevice = 1;
	p.dstPtr.ptr = a0;
	p.dstDevice = 0;
	CK(H.hipMemcpy3DPeerAsync(&p, stream));
	CK(H.hipStreamSynchronize(stream));
	static char ref[8192], got[4096], host[256];
	CK(H.hipMemcpy(ref, a0, sizeof ref, hipMemcpyDeviceToHost));
	void *dsts[2] = {a1 + 8192, host}, *srcs[2] = {a0, a0 + 4096};
	size_t sizes[2] = {sizeof got, sizeof host}, fail = 0;
	CK(H.hipMemcpyBatchAsync(dsts, srcs, sizes, 2, NULL, NULL, 0, &fail, stream));
	CK(H.hipStreamSynchronize(stream));
	CK(H.hipMemcpy(got, a1 + 8192, sizeof got, hipMemcpyDeviceToHost));
	if (memcmp(got, ref, sizeof got) || memcmp(host, ref + 4096, sizeof host)) {
		fprintf(stderr, "hip_calls: the batch copied other bytes\n");
		exit(1);
	}
	batch3d(a0, a1);
}

/* ---- the HIP peer document: ask, enable both ways, copy both ways, disable ---- */
static void peer(void)
{
	int can01 = 0, can10 = 0, rank = -1;
	CK(H.hipDeviceCanAccessPeer(&can01, 0, 1));
	CK(H.hipDeviceCanAccessPeer(&can10, 1, 0));
	CK(H.hipDeviceGetP2PAttribute(&rank, hipDevP2PAttrPerformanceRank, 0, 1));
	if (!can01 || !can10) {
		fprintf(stderr, "hip_calls: devices 0 and 1 are not peers\n");
		exit(1);
	}
	CK(H.hipSetDevice(0));
	CK(H.hipDeviceEnablePeerAccess(1, 0));
	CK(H.hipSetDevice(1));
	CK(H.hipDeviceEnablePeerAccess(0, 0));
	size_t n = 1u << 20;
	char *a0 = alloc_on(0, n), *a1 = alloc_on(1, n);
	char *host = malloc(n), *back = malloc(n);
	for (size_t i = 0; i < n; i++)
		host[i] = (char)(i * 7);
	CK(H.hipMemcpy(a0, host, n, hipMemcpyHostToDevice));
	CK(H.hipMemcpyPeer(a1, 1, a0, 0, n));
	CK(H.hipMemcpyPeerAsync(a0, 0, a1, 1, n, stream));
	CK(H.hipStreamSynchronize(stream));
	CK(H.hipMemcpy(back, a0, n, hipMemcpyDeviceToHost));
	if (memcmp(host, back, n)) {
		fprintf(stderr, "hip_calls: the bytes did not survive the round trip\n");
		exit(1);
	}
	/* hipMemcpy2D and hipMemcpy3D between the devices: implicit peer copies */
	CK(H.hipMemcpy2D(a1, 512, a0, 256, 128, 8, hipMemcpyDeviceToDevice));
	hipMemcpy3DParms p3 = {0};
	p3.srcPtr = (hipPitchedPtr){a0, 256, 256, 16};
	p3.dstPtr = (hipPitchedPtr){a1, 256, 256, 16};
	p3.extent = (hipExtent){64, 4, 2};
	p3.kind = hipMemcpyDeviceToDevice;
	CK(H.hipMemcpy3D(&p3));
	copies71(a0, a1);
	CK(H.hipSetDevice(1));
	CK(H.hipDeviceDisablePeerAccess(0));
	CK(H.hipSetDevice(0));
	CK(H.hipDeviceDisablePeerAccess(1));
	CK(H.hipFree(a0));
	CK(H.hipFree(a1));
	free(host);
	free(back);
}

/* ---- the HIP IPC document: export in one process, open/use/close in another, then free ---- */
static void hex(const void *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static int unhex(const char *s, char *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (char)v;
	}
	return 0;
}

static int ipc_child(const char *hh, const char *eh_hex, unsigned flags, int expect_ok)
{
	hipIpcMemHandle_t h;
	hipIpcEventHandle_t eh;
	if (unhex(hh, h.reserved, sizeof h.reserved) || unhex(eh_hex, eh.reserved, sizeof eh.reserved))
		return 2;
	init();
	CK(H.hipSetDevice(1));
	/* the exporter's event, opened here and destroyed again */
	hipEvent_t ev;
	CK(H.hipIpcOpenEventHandle(&ev, eh));
	CK(H.hipEventDestroy(ev));
	void *p = NULL;
	hipError_t r = H.hipIpcOpenMemHandle(&p, h, flags);
	printf("hip_calls: hipIpcOpenMemHandle(flags %u) -> %d\n", flags, (int)r);
	if (r != hipSuccess)
		return expect_ok ? 1 : 0;
	char buf[16];
	CK(H.hipMemcpy(buf, p, sizeof buf, hipMemcpyDeviceToHost));
	if (memcmp(buf, "peerwatch-ipc", 14))
		return 1;
	CK(H.hipIpcCloseMemHandle(p));
	return 0;
}

static void ipc(int use_flags, unsigned flags)
{
	void *a = alloc_on(0, 1u << 20);
	CK(H.hipMemcpy(a, "peerwatch-ipc", 14, hipMemcpyHostToDevice));
	hipIpcMemHandle_t h;
	CK(H.hipIpcGetMemHandle(&h, a));
	hipEvent_t ev;
	hipIpcEventHandle_t eh;
	CK(H.hipEventCreateWithFlags(&ev, hipEventDisableTiming | hipEventInterprocess));
	CK(H.hipIpcGetEventHandle(&eh, ev));
	char hh[129], ehh[129], fl[16];
	hex(&h, sizeof h, hh);
	hex(&eh, sizeof eh, ehh);
	snprintf(fl, sizeof fl, "%u", use_flags ? flags : lazy);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, getproc ? "--getproc" : "--", "child", hh, ehh, fl,
		      use_flags ? "any" : "ok", (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "hip_calls: the importer failed\n");
		exit(1);
	}
	CK(H.hipFree(a));
}

/* ---- virtual memory shared with another process: create, export, map
 * and grant here; import, map, grant, read there; then unmap and release ---- */
#define VMM_BYTES (2u << 20)

static void *vmm_map(hipMemGenericAllocationHandle_t h, int dev)
{
	void *va = NULL;
	hipMemAccessDesc acc;
	memset(&acc, 0, sizeof acc);
	acc.location.type = hipMemLocationTypeDevice;
	acc.location.id = dev;
	acc.flags = hipMemAccessFlagsProtReadWrite;
	CK(H.hipMemAddressReserve(&va, VMM_BYTES, 0, NULL, 0));
	CK(H.hipMemMap(va, VMM_BYTES, 0, h, 0));
	CK(H.hipMemSetAccess(va, VMM_BYTES, &acc, 1));
	return va;
}

static void vmm_unmap(void *va)
{
	CK(H.hipMemUnmap(va, VMM_BYTES));
	CK(H.hipMemAddressFree(va, VMM_BYTES));
}

static int vmm_child(const char *fdarg)
{
	hipMemGenericAllocationHandle_t h;
	init();
	CK(H.hipSetDevice(1));
	CK(H.hipMemImportFromShareableHandle(&h, (void *)(intptr_t)atoi(fdarg),
	                                     hipMemHandleTypePosixFileDescriptor));
	void *va = vmm_map(h, 1);
	int same = !memcmp(va, "peerwatch-vmm", 14);
	vmm_unmap(va);
	CK(H.hipMemRelease(h));
	return same ? 0 : 1;
}

/* released: the exporter releases its handle (the last reference: nothing
 * mapped) before the importer imports; the fd it keeps holds the memory */
static void vmm(int released)
{
	/* the properties in the layout of the runtime's version (reordered in 5.3) */
	hipMemAllocationProp prop;
	struct pw_hip52_mem_allocation_prop prop52;
	hipMemGenericAllocationHandle_t h, again;
	int fd = -1;
	memset(&prop, 0, sizeof prop);
	memset(&prop52, 0, sizeof prop52);
	prop.type = prop52.type = hipMemAllocationTypePinned;
	prop.location.type = prop52.location.type = hipMemLocationTypeDevice;
	prop.location.id = prop52.location.id = 0;
	prop.requestedHandleType = prop52.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
	const void *props =
	    runtime_version < PW_HIP_ALLOCPROP_53 ? (const void *)&prop52 : (const void *)&prop;
	CK(H.hipMemCreate(&h, VMM_BYTES, (const hipMemAllocationProp *)props, 0));
	void *va = vmm_map(h, 0);
	memcpy(va, "peerwatch-vmm", 14); /* the simulator's memory is the host's */
	CK(H.hipMemRetainAllocationHandle(&again, va));
	CK(H.hipMemRelease(again));
	CK(H.hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
	if (released) {
		vmm_unmap(va);
		CK(H.hipMemRelease(h));
	}
	char fa[16];
	snprintf(fa, sizeof fa, "%d", fd);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, getproc ? "--getproc" : "--", "vmmchild", fa, (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "hip_calls: the importer failed\n");
		exit(1);
	}
	close(fd);
	if (!released) {
		vmm_unmap(va);
		CK(H.hipMemRelease(h));
	}
}

/* ---- the HIP managed-memory document: allocate, advise, prefetch, query, attach, free ---- */
static void managed(void)
{
	size_t n = 16 * 4096;
	char *m;
	int supported = 0;
	/* "It is recommend to do the capability check before call this API" */
	CK(H.hipDeviceGetAttribute(&supported, hipDeviceAttributeManagedMemory, 0));
	if (!supported) {
		fprintf(stderr, "hip_calls: device 0 has no managed memory\n");
		exit(1);
	}
	CK(H.hipMallocManaged((void **)&m, n, hipMemAttachGlobal));
	memset(m, 1, n);
	CK(H.hipMemAdvise(m, n, hipMemAdviseSetReadMostly, 0));
	CK(H.hipMemAdvise(m, n, hipMemAdviseSetPreferredLocation, 1));
	CK(H.hipMemAdvise(m, n, hipMemAdviseSetAccessedBy, 0));
	CK(H.hipMemPrefetchAsync(m, n, 1, stream));
	CK(H.hipStreamSynchronize(stream));
	int read_mostly = -1, last = -2;
	CK(H.hipMemRangeGetAttribute(&read_mostly, sizeof read_mostly, hipMemRangeAttributeReadMostly, m, n));
	int pref = -3, by[4];
	void *data[3] = {&pref, by, &last};
	size_t sizes[3] = {sizeof pref, sizeof by, sizeof last};
	hipMemRangeAttribute attrs[3] = {hipMemRangeAttributePreferredLocation,
	                                 hipMemRangeAttributeAccessedBy,
	                                 hipMemRangeAttributeLastPrefetchLocation};
	CK(H.hipMemRangeGetAttributes(data, sizes, attrs, 3, m, n));
	printf("hip_calls: read_mostly %d preferred %d last_prefetch %d\n", read_mostly, pref, last);
	CK(H.hipStreamAttachMemAsync(stream, m, 0, hipMemAttachSingle));
	CK(H.hipStreamSynchronize(stream));
	if (H.hipMemPrefetchAsync_v2 && H.hipMemAdvise_v2) { /* ROCm 7.1 */
		hipMemLocation d0 = {hipMemLocationTypeDevice, 0};
		CK(H.hipMemAdvise_v2(m, n, hipMemAdviseUnsetReadMostly, d0));
		CK(H.hipMemPrefetchAsync_v2(m, n, d0, 0, stream));
		CK(H.hipStreamSynchronize(stream));
	}
	if (H.hipMemPrefetchBatchAsync) { /* ROCm 7.2: the halves to device 1 and to the host */
		void *ptrs[2] = {m, m + n / 2};
		size_t lens[2] = {n / 2, n / 2}, idx[2] = {0, 1};
		hipMemLocation locs[2] = {{hipMemLocationTypeDevice, 1}, {hipMemLocationTypeHost, 0}};
		CK(H.hipMemPrefetchBatchAsync(ptrs, lens, 2, locs, idx, 2, 0, stream));
		CK(H.hipStreamSynchronize(stream));
	}
	CK(H.hipFree(m));
}

/* hipDeviceReset drops device 0's peer access (000: "until ... device is
 * reset using hipDeviceReset"): enabling again afterwards is no second enable. */
static void reset(void)
{
	int can;
	CK(H.hipDeviceCanAccessPeer(&can, 0, 1));
	CK(H.hipSetDevice(0));
	CK(H.hipDeviceEnablePeerAccess(1, 0));
	CK(H.hipDeviceReset());
	CK(H.hipSetDevice(0));
	CK(H.hipDeviceEnablePeerAccess(1, 0));
	CK(H.hipDeviceDisablePeerAccess(1));
}

/* Every hooked function once, answers ignored (the encoding is checked). */
static void all(void)
{
	int v = 0;
	(void)H.hipCtxEnablePeerAccess(NULL, 0);
	(void)H.hipCtxDisablePeerAccess(NULL);
	/* the context flavour from device 0 to device 1's context; the thread stays on device 0 */
	hipCtx_t c1;
	int can, cur = -1;
	CK(H.hipDevicePrimaryCtxRetain(&c1, 1));
	CK(H.hipSetDevice(0));
	CK(H.hipDeviceCanAccessPeer(&can, 0, 1));
	CK(H.hipCtxEnablePeerAccess(c1, 0));
	CK(H.hipGetDevice(&cur));
	if (cur != 0) {
		fprintf(stderr, "hip_calls: the current device moved to %d\n", cur);
		exit(1);
	}
	CK(H.hipCtxDisablePeerAccess(c1));
	(void)H.hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, 1);
	peer();
	managed();
	reset();
}

int main(int argc, char **argv)
{
	self = argv[0];
	int i = 1;
	if (i < argc && !strcmp(argv[i], "--getproc")) {
		getproc = 1;
		i++;
	} else if (i < argc && !strcmp(argv[i], "--")) {
		i++;
	}
	if (argc - i == 5 && !strcmp(argv[i], "child"))
		return ipc_child(argv[i + 1], argv[i + 2], (unsigned)strtoul(argv[i + 3], NULL, 0),
		                 !strcmp(argv[i + 4], "ok"));
	if (argc - i == 2 && !strcmp(argv[i], "vmmchild"))
		return vmm_child(argv[i + 1]);
	if (argc - i < 1) {
		fprintf(
		    stderr,
		    "usage: hip_calls [--getproc] peer|ipc|managed|reset|vmm|vmm-released|all|skew FLAGS\n");
		return 2;
	}
	const char *what = argv[i];
	init();
	if (!strcmp(what, "peer"))
		peer();
	else if (!strcmp(what, "ipc"))
		ipc(0, 0);
	else if (!strcmp(what, "managed"))
		managed();
	else if (!strcmp(what, "reset"))
		reset();
	else if (!strcmp(what, "vmm"))
		vmm(0);
	else if (!strcmp(what, "vmm-released"))
		vmm(1);
	else if (!strcmp(what, "all"))
		all();
	else if (!strcmp(what, "skew") && argc - i == 2)
		ipc(1, (unsigned)strtoul(argv[i + 1], NULL, 0));
	else
		return 2;
	return 0;
}

/*
 * peer_all — exercises, through the CUDA runtime API on two GPUs, every driver
 * function peerwatch hooks, and checks every byte it moves.
 *
 * Built three ways by tests/gpu/gpu.mk: peer_static (static cudart, nvcc's
 * default), peer_shared (-cudart shared) and peer_ptds (--default-stream
 * per-thread).  The runtime reaches the driver through the cuGetProcAddress_v2
 * it looked up at start-up; a few driver functions are also fetched with
 * cudaGetDriverEntryPointByVersion and called directly ("entry" below), which
 * goes through cudart's cached cuGetProcAddress_v2 as well.
 *
 * stdout is deterministic (no pointers, no timings): a run with and a run
 * without peerwatch must print the same bytes.  Diagnostics go to stderr.
 * Exit status: 0 all checks passed, 1 a check or a CUDA call failed (the
 * message names file:line), 77 fewer than two peer-capable GPUs.
 *
 * Driver calls made, as (api, variant): count.  "rt" = made by cudart on
 * behalf of a runtime call, "entry" = made by this program through a pointer
 * from cudaGetDriverEntryPointByVersion.  The rt numbers and variants were
 * measured with CUPTI (tests/gpu/cupti_count.c) for cudart 13.0 on driver 580;
 * "ptds build" = what they become in peer_ptds.
 * Parent process:
 *   cuDeviceCanAccessPeer       4 = 3 rt + 1 entry (v4000)
 *   cuDeviceGetP2PAttribute     4 = 3 rt + 1 entry (v8000)
 *   cuCtxEnablePeerAccess       3 = 2 rt + 1 entry (v4000, returns 704 ALREADY_ENABLED)
 *   cuCtxDisablePeerAccess      3 = 2 rt + 1 entry (v4000, returns 705 NOT_ENABLED)
 *   cuMemcpyPeer                6 = 4 rt "" + 1 entry "" (v4000 legacy) + 1 entry _ptds (v7000 per-thread)
 *                                 (cudaMemcpyPeer has no per-thread runtime variant: "" in every build)
 *   cuMemcpyPeerAsync           4 = 2 rt "" (every build, as above) + 1 entry "" (v4000)
 *                                 + 1 entry _ptsz (v7000)
 *   cuMemcpy3DPeer              2 = 1 rt "" (_ptds in ptds build) + 1 entry "" (v4000)
 *   cuMemcpy3DPeerAsync         2 = 1 rt "" (_ptsz in ptds build) + 1 entry "" (v4000)
 *   cuIpcGetMemHandle           2 = 1 rt + 1 entry (v4010)
 *   cuIpcGetEventHandle         1 rt
 *   cuMemAllocManaged           2 = 1 rt + 1 entry (v6000)
 *   cuMemAdvise                 5 = 3 rt _v2 + 1 entry "" (v8000, CUdevice ABI) + 1 entry _v2 (v12020)
 *   cuMemPrefetchAsync          3 = 2 rt _v2 (_v2_ptsz in ptds build) + 1 entry "" (v8000, CUdevice ABI)
 *   cuMemRangeGetAttribute      4 = 3 rt + 1 entry (v8000)
 *   cuMemRangeGetAttributes     1 rt
 *   cuStreamAttachMemAsync      3 = 2 rt "" (_ptsz in ptds build) + 1 entry "" (v6000)
 *   cuMemFree                   7 = 6 rt _v2 + 1 entry _v2 (v3020)
 *   cuMemFreeAsync              2 = 1 rt "" (_ptsz in ptds build) + 1 entry "" (v11020)
 * IPC child process (the same binary, exec'd with --ipc-child):
 *   cuIpcOpenMemHandle          2 = 1 rt _v2 + 1 entry "" (v4010), one after the other: the
 *                                 driver refuses a second live mapping of one handle (208)
 *   cuIpcCloseMemHandle         2 = 1 rt + 1 entry (v4010)
 *   cuIpcOpenEventHandle        1 rt
 * Other driver calls (cuMemAlloc, cuMemcpy*, cuStreamCreate, cuEvent*, launches,
 * cuGetProcAddress itself) are not listed.
 */
#include <cuda.h> /* driver types for the entry points; libcuda is not linked */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "gpu_common.h"

/* The legacy cuIpcOpenMemHandle has the _v2 signature; cudaTypedefs.h only
 * declares its PFN type for the driver's own build. */
typedef CUresult(CUDAAPI *PFN_ipc_open_v4010)(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int flags);

static const char *g_role = "peer_all";
static struct pwg_child g_child = {-1, -1, -1};

[[noreturn]] static void fail(const char *file, int line, const char *what, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "%s: FAIL at %s:%d: %s: %s\n", g_role, file, line, what, why);
	pwg_dismiss_child(&g_child);
	exit(1);
}

[[noreturn]] static void fail_rt(const char *file, int line, const char *what, cudaError_t e)
{
	char why[256];
	snprintf(why, sizeof why, "%s (%d): %s", cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
	fail(file, line, what, why);
}

[[noreturn]] static void fail_cu(const char *file, int line, const char *what, CUresult got, CUresult want)
{
	char why[128];
	snprintf(why, sizeof why, "CUresult %d, expected %d", (int)got, (int)want);
	fail(file, line, what, why);
}

/* Runtime call that must succeed. */
#define CK(call)                                                \
	do {                                                    \
		cudaError_t e_ = (call);                        \
		if (e_ != cudaSuccess)                          \
			fail_rt(__FILE__, __LINE__, #call, e_); \
	} while (0)

/* Driver call (through an entry point) that must return want. */
#define CK_CU_IS(call, want)                                            \
	do {                                                            \
		CUresult r_ = (call);                                   \
		if (r_ != (want))                                       \
			fail_cu(__FILE__, __LINE__, #call, r_, (want)); \
	} while (0)
#define CK_CU(call) CK_CU_IS(call, CUDA_SUCCESS)

#define CHECK(cond, why)                                      \
	do {                                                  \
		if (!(cond))                                  \
			fail(__FILE__, __LINE__, #cond, why); \
	} while (0)

/* Fetches a driver function through cudart.  flags: cudaEnableLegacyStream or
 * cudaEnablePerThreadDefaultStream, so the variant does not depend on how
 * this file was compiled. */
template <typename T>
static T entry_point(const char *sym, unsigned version, unsigned long long flags, const char *file, int line)
{
	void *fn = nullptr;
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	cudaError_t e = cudaGetDriverEntryPointByVersion(sym, &fn, version, flags, &q);
	if (e != cudaSuccess)
		fail_rt(file, line, sym, e);
	if (q != cudaDriverEntryPointSuccess || fn == nullptr) {
		char why[96];
		snprintf(why, sizeof why, "entry point query result %d at version %u", (int)q, version);
		fail(file, line, sym, why);
	}
	return reinterpret_cast<T>(fn);
}
#define ENTRY(type, sym, version, flags) entry_point<type>(sym, version, flags, __FILE__, __LINE__)

static const unsigned long long kLegacy = cudaEnableLegacyStream;
static const unsigned long long kPerThread = cudaEnablePerThreadDefaultStream;

/* 1 MiB buffers, also seen as a 3D volume of 8 slices x 128 rows x 1024 bytes. */
static const size_t kWords = 1u << 18;
static const size_t kBytes = kWords * sizeof(uint32_t);
static const size_t kPitch = 1024, kRows = 128, kSlices = 8;
static_assert(kPitch * kRows * kSlices == kBytes, "the 3D view must cover the buffer");
static const size_t kManagedBytes = 2u << 20;   /* cudaMallocManaged */
static const size_t kManaged2Bytes = 64u << 10; /* cuMemAllocManaged, attached to host */

static CUdeviceptr dptr(const void *p)
{
	return (CUdeviceptr)(uintptr_t)p;
}

__global__ void k_ipc_transform(uint32_t *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = pwg_ipc_transform(p[i]);
}

__global__ void k_add(uint32_t *p, size_t n, uint32_t v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] += v;
}

__global__ void k_fill(uint32_t *p, size_t n, uint32_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = pwg_pattern(i, seed);
}

/* ------------------------------------------------------------------------ */
/* Host-side helpers                                                         */

/* Waits for all work on both devices; the current device is kept. */
static void sync_both()
{
	int cur = 0;
	CK(cudaGetDevice(&cur));
	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		CK(cudaDeviceSynchronize());
	}
	CK(cudaSetDevice(cur));
}

/* A copy from pageable memory may return before the data lands on the
 * device, and work on our non-blocking streams does not wait for it. */
static void upload(uint32_t *dev, uint32_t seed)
{
	std::vector<uint32_t> h(kWords);
	pwg_fill(h.data(), kWords, seed);
	CK(cudaMemcpy(dev, h.data(), kBytes, cudaMemcpyHostToDevice));
	sync_both();
}

static std::vector<uint32_t> download(const uint32_t *dev, size_t words = kWords)
{
	std::vector<uint32_t> h(words);
	CK(cudaMemcpy(h.data(), dev, words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	return h;
}

static std::vector<uint32_t> pattern(uint32_t seed, size_t words = kWords)
{
	std::vector<uint32_t> h(words);
	pwg_fill(h.data(), words, seed);
	return h;
}

#define EXPECT_SAME(got, want, what)                                                        \
	do {                                                                                \
		size_t at_ = pwg_first_diff((got).data(), (want).data(), (want).size());    \
		if (at_ != (want).size()) {                                                 \
			char why_[128];                                                     \
			snprintf(why_, sizeof why_, "word %zu is %08x, expected %08x", at_, \
			         (unsigned)(got)[at_], (unsigned)(want)[at_]);              \
			fail(__FILE__, __LINE__, what, why_);                               \
		}                                                                           \
	} while (0)

static unsigned long long fnv_words(const std::vector<uint32_t> &v)
{
	return (unsigned long long)pwg_fnv(v.data(), v.size() * sizeof(uint32_t));
}

/* Driver functions this program calls directly. */
struct Entries {
	PFN_cuCtxGetCurrent_v4000 ctx_get_current;
	PFN_cuDeviceCanAccessPeer_v4000 can_access_peer;
	PFN_cuDeviceGetP2PAttribute_v8000 p2p_attribute;
	PFN_cuCtxEnablePeerAccess_v4000 enable_peer;
	PFN_cuCtxDisablePeerAccess_v4000 disable_peer;
	PFN_cuMemcpyPeer_v4000 memcpy_peer;
	PFN_cuMemcpyPeer_v7000_ptds memcpy_peer_ptds;
	PFN_cuMemcpyPeerAsync_v4000 memcpy_peer_async;
	PFN_cuMemcpyPeerAsync_v7000_ptsz memcpy_peer_async_ptsz;
	PFN_cuMemcpy3DPeer_v4000 memcpy_3d_peer;
	PFN_cuMemcpy3DPeerAsync_v4000 memcpy_3d_peer_async;
	PFN_cuIpcGetMemHandle_v4010 ipc_get_mem;
	PFN_cuMemAllocManaged_v6000 alloc_managed;
	PFN_cuMemAdvise_v8000 advise_legacy;
	PFN_cuMemAdvise_v12020 advise_v2;
	PFN_cuMemPrefetchAsync_v8000 prefetch_legacy;
	PFN_cuMemRangeGetAttribute_v8000 range_attribute;
	PFN_cuStreamAttachMemAsync_v6000 attach_mem;
	PFN_cuMemFree_v3020 mem_free;
	PFN_cuMemFreeAsync_v11020 mem_free_async;
};

static Entries fetch_entries()
{
	Entries e;
	e.ctx_get_current = ENTRY(PFN_cuCtxGetCurrent_v4000, "cuCtxGetCurrent", 4000, kLegacy);
	e.can_access_peer = ENTRY(PFN_cuDeviceCanAccessPeer_v4000, "cuDeviceCanAccessPeer", 4000, kLegacy);
	e.p2p_attribute = ENTRY(PFN_cuDeviceGetP2PAttribute_v8000, "cuDeviceGetP2PAttribute", 8000, kLegacy);
	e.enable_peer = ENTRY(PFN_cuCtxEnablePeerAccess_v4000, "cuCtxEnablePeerAccess", 4000, kLegacy);
	e.disable_peer = ENTRY(PFN_cuCtxDisablePeerAccess_v4000, "cuCtxDisablePeerAccess", 4000, kLegacy);
	e.memcpy_peer = ENTRY(PFN_cuMemcpyPeer_v4000, "cuMemcpyPeer", 4000, kLegacy);
	e.memcpy_peer_ptds = ENTRY(PFN_cuMemcpyPeer_v7000_ptds, "cuMemcpyPeer", 7000, kPerThread);
	e.memcpy_peer_async = ENTRY(PFN_cuMemcpyPeerAsync_v4000, "cuMemcpyPeerAsync", 4000, kLegacy);
	e.memcpy_peer_async_ptsz =
	    ENTRY(PFN_cuMemcpyPeerAsync_v7000_ptsz, "cuMemcpyPeerAsync", 7000, kPerThread);
	e.memcpy_3d_peer = ENTRY(PFN_cuMemcpy3DPeer_v4000, "cuMemcpy3DPeer", 4000, kLegacy);
	e.memcpy_3d_peer_async = ENTRY(PFN_cuMemcpy3DPeerAsync_v4000, "cuMemcpy3DPeerAsync", 4000, kLegacy);
	e.ipc_get_mem = ENTRY(PFN_cuIpcGetMemHandle_v4010, "cuIpcGetMemHandle", 4010, kLegacy);
	e.alloc_managed = ENTRY(PFN_cuMemAllocManaged_v6000, "cuMemAllocManaged", 6000, kLegacy);
	e.advise_legacy = ENTRY(PFN_cuMemAdvise_v8000, "cuMemAdvise", 8000, kLegacy);
	e.advise_v2 = ENTRY(PFN_cuMemAdvise_v12020, "cuMemAdvise", 12020, kLegacy);
	e.prefetch_legacy = ENTRY(PFN_cuMemPrefetchAsync_v8000, "cuMemPrefetchAsync", 8000, kLegacy);
	e.range_attribute = ENTRY(PFN_cuMemRangeGetAttribute_v8000, "cuMemRangeGetAttribute", 8000, kLegacy);
	e.attach_mem = ENTRY(PFN_cuStreamAttachMemAsync_v6000, "cuStreamAttachMemAsync", 6000, kLegacy);
	e.mem_free = ENTRY(PFN_cuMemFree_v3020, "cuMemFree", 3020, kLegacy);
	e.mem_free_async = ENTRY(PFN_cuMemFreeAsync_v11020, "cuMemFreeAsync", 11020, kLegacy);
	return e;
}

struct State {
	Entries cu;
	CUcontext ctx[2];
	cudaStream_t stream[2];
	uint32_t *a[2], *b[2]; /* two 1 MiB buffers on each device */
};

/* ------------------------------------------------------------------------ */
/* Peer queries and peer access                                              */

static void peer_queries(State &s)
{
	int c01 = -1, c10 = -1, c00 = -1, e10 = -1;
	CK(cudaDeviceCanAccessPeer(&c01, 0, 1));
	CK(cudaDeviceCanAccessPeer(&c10, 1, 0));
	CK(cudaDeviceCanAccessPeer(&c00, 0, 0));
	CK_CU(s.cu.can_access_peer(&e10, 1, 0));
	CHECK(e10 == c10, "cuDeviceCanAccessPeer and cudaDeviceCanAccessPeer disagree");
	printf("can_access_peer 0->1=%d 1->0=%d 0->0=%d\n", c01, c10, c00);
	if (c01 != 1 || c10 != 1) {
		printf("SKIP: devices 0 and 1 are not peer-capable\n");
		pwg_dismiss_child(&g_child);
		exit(PWG_EXIT_SKIP);
	}

	int a01 = -1, a10 = -1, rank = -1, ea10 = -1;
	CK(cudaDeviceGetP2PAttribute(&a01, cudaDevP2PAttrAccessSupported, 0, 1));
	CK(cudaDeviceGetP2PAttribute(&a10, cudaDevP2PAttrAccessSupported, 1, 0));
	CK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 1));
	CK_CU(s.cu.p2p_attribute(&ea10, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 0));
	CHECK(ea10 == a10, "driver and runtime P2P attributes disagree");
	fprintf(stderr, "%s: p2p performance rank 0->1 = %d\n", g_role, rank);
	printf("p2p_attr access_supported 0->1=%d 1->0=%d\n", a01, a10);
}

static void enable_peer_access(State &s)
{
	CK(cudaSetDevice(0));
	CK(cudaDeviceEnablePeerAccess(1, 0));
	CK(cudaSetDevice(1));
	CK(cudaDeviceEnablePeerAccess(0, 0));
	/* Device 1's context is current: access to device 0 is on already. */
	CK_CU_IS(s.cu.enable_peer(s.ctx[0], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	printf("enable_peer_access 0->1 OK 1->0 OK, again through the driver: %d\n",
	       (int)CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
}

static void disable_peer_access(State &s)
{
	CK(cudaSetDevice(0));
	CK(cudaDeviceDisablePeerAccess(1));
	CK(cudaSetDevice(1));
	CK(cudaDeviceDisablePeerAccess(0));
	CK_CU_IS(s.cu.disable_peer(s.ctx[0]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	printf("disable_peer_access 0->1 OK 1->0 OK, again through the driver: %d\n",
	       (int)CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}

/* ------------------------------------------------------------------------ */
/* Linear peer copies                                                        */

static void peer_copies_sync(State &s, const char *label)
{
	/* a0 -> a1 (runtime), a1 -> b0 (runtime), checked each time. */
	upload(s.a[0], 11);
	CK(cudaMemcpyPeer(s.a[1], 1, s.a[0], 0, kBytes));
	EXPECT_SAME(download(s.a[1]), pattern(11), "cudaMemcpyPeer 0->1");
	CK(cudaMemcpyPeer(s.b[0], 0, s.a[1], 1, kBytes));
	EXPECT_SAME(download(s.b[0]), pattern(11), "cudaMemcpyPeer 1->0");
	printf("memcpy_peer %s: 0->1 OK 1->0 OK fnv=%016llx\n", label, fnv_words(pattern(11)));
}

static void peer_copies_entry(State &s)
{
	upload(s.a[0], 12);
	CK_CU(s.cu.memcpy_peer(dptr(s.b[1]), s.ctx[1], dptr(s.a[0]), s.ctx[0], kBytes));
	EXPECT_SAME(download(s.b[1]), pattern(12), "cuMemcpyPeer 0->1");
	CK_CU(s.cu.memcpy_peer_ptds(dptr(s.b[0]), s.ctx[0], dptr(s.b[1]), s.ctx[1], kBytes));
	EXPECT_SAME(download(s.b[0]), pattern(12), "cuMemcpyPeer_ptds 1->0");
	printf("memcpy_peer driver: legacy 0->1 OK ptds 1->0 OK fnv=%016llx\n", fnv_words(pattern(12)));
}

static void peer_copies_async(State &s)
{
	const size_t half = kBytes / 2;
	upload(s.a[0], 13);
	upload(s.b[0], 14);

	/* Whole buffer on an explicit stream.  Each stream is used with its own
	 * device current. */
	CK(cudaSetDevice(0));
	CK(cudaMemcpyPeerAsync(s.a[1], 1, s.a[0], 0, kBytes, s.stream[0]));
	CK(cudaStreamSynchronize(s.stream[0]));
	EXPECT_SAME(download(s.a[1]), pattern(13), "cudaMemcpyPeerAsync 0->1");

	/* First half only, on the default stream. */
	CK(cudaMemcpyPeerAsync(s.b[0], 0, s.a[1], 1, half, 0));
	CK(cudaDeviceSynchronize());
	std::vector<uint32_t> want = pattern(14);
	std::vector<uint32_t> p13 = pattern(13);
	std::copy(p13.begin(), p13.begin() + kWords / 2, want.begin());
	EXPECT_SAME(download(s.b[0]), want, "cudaMemcpyPeerAsync 1->0, half");

	/* Driver: legacy b0 -> b1, per-thread b1 -> a0. */
	CK(cudaSetDevice(1));
	CK_CU(s.cu.memcpy_peer_async(dptr(s.b[1]), s.ctx[1], dptr(s.b[0]), s.ctx[0], kBytes,
	                             (CUstream)s.stream[1]));
	CK(cudaStreamSynchronize(s.stream[1]));
	EXPECT_SAME(download(s.b[1]), want, "cuMemcpyPeerAsync 0->1");
	CK(cudaSetDevice(0));
	CK_CU(s.cu.memcpy_peer_async_ptsz(dptr(s.a[0]), s.ctx[0], dptr(s.b[1]), s.ctx[1], kBytes,
	                                  (CUstream)s.stream[0]));
	CK(cudaStreamSynchronize(s.stream[0]));
	EXPECT_SAME(download(s.a[0]), want, "cuMemcpyPeerAsync_ptsz 1->0");
	printf("memcpy_peer_async: runtime x2 OK driver legacy OK driver ptsz OK fnv=%016llx\n",
	       fnv_words(want));
}

/* ------------------------------------------------------------------------ */
/* 3D peer copies                                                            */

struct Box {
	size_t sx, sy, sz; /* source position: x in bytes */
	size_t dx, dy, dz; /* destination position */
	size_t w, h, d;    /* extent: width in bytes */
};

/* What dst holds after copying box b of src into it. */
static std::vector<uint32_t> model_3d(std::vector<uint32_t> dst, const std::vector<uint32_t> &src,
                                      const Box &b)
{
	const char *s = reinterpret_cast<const char *>(src.data());
	char *d = reinterpret_cast<char *>(dst.data());
	for (size_t z = 0; z < b.d; z++)
		for (size_t y = 0; y < b.h; y++)
			memcpy(d + ((b.dz + z) * kRows + b.dy + y) * kPitch + b.dx,
			       s + ((b.sz + z) * kRows + b.sy + y) * kPitch + b.sx, b.w);
	return dst;
}

static cudaMemcpy3DPeerParms rt_3d(uint32_t *dst, int dst_dev, const uint32_t *src, int src_dev, const Box &b)
{
	cudaMemcpy3DPeerParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = make_cudaPitchedPtr(const_cast<uint32_t *>(src), kPitch, kPitch, kRows);
	p.srcPos = make_cudaPos(b.sx, b.sy, b.sz);
	p.srcDevice = src_dev;
	p.dstPtr = make_cudaPitchedPtr(dst, kPitch, kPitch, kRows);
	p.dstPos = make_cudaPos(b.dx, b.dy, b.dz);
	p.dstDevice = dst_dev;
	p.extent = make_cudaExtent(b.w, b.h, b.d);
	return p;
}

static CUDA_MEMCPY3D_PEER cu_3d(uint32_t *dst, CUcontext dst_ctx, const uint32_t *src, CUcontext src_ctx,
                                const Box &b)
{
	CUDA_MEMCPY3D_PEER p;
	memset(&p, 0, sizeof p);
	p.srcXInBytes = b.sx;
	p.srcY = b.sy;
	p.srcZ = b.sz;
	p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	p.srcDevice = dptr(src);
	p.srcContext = src_ctx;
	p.srcPitch = kPitch;
	p.srcHeight = kRows;
	p.dstXInBytes = b.dx;
	p.dstY = b.dy;
	p.dstZ = b.dz;
	p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	p.dstDevice = dptr(dst);
	p.dstContext = dst_ctx;
	p.dstPitch = kPitch;
	p.dstHeight = kRows;
	p.WidthInBytes = b.w;
	p.Height = b.h;
	p.Depth = b.d;
	return p;
}

static void peer_copies_3d(State &s)
{
	static const Box boxes[4] = {
	    {128, 16, 2, 256, 64, 3, 512, 32, 4},
	    {0, 0, 0, 512, 100, 1, 512, 28, 7},
	    {1000, 127, 7, 0, 0, 0, 24, 1, 1},
	    {64, 8, 0, 64, 8, 0, 960, 120, 8},
	};
	unsigned long long digest = 0;
	for (int i = 0; i < 4; i++) {
		const Box &b = boxes[i];
		/* Alternate directions: 0->1, 1->0, 0->1, 1->0. */
		int src_dev = i % 2, dst_dev = 1 - src_dev;
		uint32_t *src = s.a[src_dev], *dst = s.b[dst_dev];
		uint32_t src_seed = 20 + 2 * i, dst_seed = 21 + 2 * i;
		upload(src, src_seed);
		upload(dst, dst_seed);
		if (i == 0) {
			cudaMemcpy3DPeerParms p = rt_3d(dst, dst_dev, src, src_dev, b);
			CK(cudaMemcpy3DPeer(&p));
		} else if (i == 1) {
			CK(cudaSetDevice(src_dev));
			cudaMemcpy3DPeerParms p = rt_3d(dst, dst_dev, src, src_dev, b);
			CK(cudaMemcpy3DPeerAsync(&p, s.stream[src_dev]));
			CK(cudaStreamSynchronize(s.stream[src_dev]));
		} else if (i == 2) {
			CUDA_MEMCPY3D_PEER p = cu_3d(dst, s.ctx[dst_dev], src, s.ctx[src_dev], b);
			CK_CU(s.cu.memcpy_3d_peer(&p));
		} else {
			CK(cudaSetDevice(dst_dev));
			CUDA_MEMCPY3D_PEER p = cu_3d(dst, s.ctx[dst_dev], src, s.ctx[src_dev], b);
			CK_CU(s.cu.memcpy_3d_peer_async(&p, (CUstream)s.stream[dst_dev]));
			CK(cudaStreamSynchronize(s.stream[dst_dev]));
		}
		std::vector<uint32_t> want = model_3d(pattern(dst_seed), pattern(src_seed), b);
		EXPECT_SAME(download(dst), want, "3D peer copy");
		digest ^= fnv_words(want) + (unsigned long long)i;
	}
	printf("memcpy_3d_peer: runtime sync OK runtime async OK driver sync OK driver async OK "
	       "digest=%016llx\n",
	       digest);
}

/* ------------------------------------------------------------------------ */
/* IPC: export here, import in the exec'd child                              */

static void ipc_parent(State &s)
{
	const uint32_t seed = 31;
	uint32_t *buf = nullptr;
	cudaEvent_t ev;
	cudaIpcMemHandle_t mh;
	cudaIpcEventHandle_t eh;
	CUipcMemHandle mh2;
	struct pwg_go go;

	CK(cudaSetDevice(1));
	CK(cudaMalloc(&buf, kBytes));
	CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventInterprocess));
	k_fill<<<256, 256, 0, s.stream[1]>>>(buf, kWords, seed);
	CK(cudaGetLastError());
	CK(cudaEventRecord(ev, s.stream[1]));
	CK(cudaIpcGetMemHandle(&mh, buf));
	CK_CU(s.cu.ipc_get_mem(&mh2, dptr(buf)));
	if (memcmp(&mh, &mh2, sizeof mh) != 0)
		fprintf(stderr, "%s: note: runtime and driver IPC handles of one buffer differ\n", g_role);
	CK(cudaIpcGetEventHandle(&eh, ev));
	CK(cudaStreamSynchronize(s.stream[1]));

	static_assert(sizeof mh == PWG_HANDLE_BYTES && sizeof eh == PWG_HANDLE_BYTES, "IPC handle size");
	go.seed = seed;
	go.words = kWords;
	memcpy(go.mem, &mh, sizeof mh);
	memcpy(go.event, &eh, sizeof eh);
	CHECK(pwg_send_go(&g_child, &go) == 0, "cannot send the IPC handles to the child");
	uint64_t before = 0, after = 0;
	CHECK(pwg_recv_done(&g_child, &before, &after) == 0,
	      "the IPC child did not report DONE (its stderr says why)");
	int status = pwg_reap_child(&g_child);
	CHECK(status == 0, "the IPC child exited with a non-zero status");

	std::vector<uint32_t> want = pattern(seed);
	CHECK(before == pwg_fnv(want.data(), kBytes), "the child read other data than we exported");
	for (auto &w : want)
		w = pwg_ipc_transform(w);
	EXPECT_SAME(download(buf), want, "buffer written by the IPC child");
	CHECK(after == pwg_fnv(want.data(), kBytes), "the child's checksum of its write is wrong");
	printf("ipc: child opened the buffer and event, read fnv=%016llx, wrote fnv=%016llx: OK\n",
	       (unsigned long long)before, (unsigned long long)after);
	CK(cudaEventDestroy(ev));
	CK(cudaFree(buf));
}

/* The child: imports on device 0 the buffer that lives on device 1. */
static int ipc_child(int rfd, int wfd)
{
	g_role = "peer_all[ipc-child]";
	struct pwg_go go;
	int r = pwg_recv_go(rfd, &go);
	if (r == 0)
		return 0; /* the parent gave up before exporting anything */
	if (r < 0) {
		fprintf(stderr, "%s: no valid GO message from the parent\n", g_role);
		return 1;
	}
	cudaIpcMemHandle_t mh;
	cudaIpcEventHandle_t eh;
	memcpy(&mh, go.mem, sizeof mh);
	memcpy(&eh, go.event, sizeof eh);

	CK(cudaSetDevice(0));
	PFN_ipc_open_v4010 ipc_open = ENTRY(PFN_ipc_open_v4010, "cuIpcOpenMemHandle", 4010, kLegacy);
	PFN_cuIpcCloseMemHandle_v4010 ipc_close =
	    ENTRY(PFN_cuIpcCloseMemHandle_v4010, "cuIpcCloseMemHandle", 4010, kLegacy);

	void *p = nullptr;
	CUdeviceptr p2 = 0;
	cudaEvent_t ev;
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cudaIpcOpenMemHandle(&p, mh, cudaIpcMemLazyEnablePeerAccess));
	CK(cudaIpcOpenEventHandle(&ev, eh));
	CK(cudaStreamWaitEvent(st, ev, 0));
	CK(cudaStreamSynchronize(st));

	uint32_t *buf = static_cast<uint32_t *>(p);
	std::vector<uint32_t> seen(go.words);
	CK(cudaMemcpy(seen.data(), buf, go.words * 4, cudaMemcpyDeviceToHost));
	std::vector<uint32_t> want = pattern(go.seed, go.words);
	EXPECT_SAME(seen, want, "data read through the IPC mapping");
	uint64_t before = pwg_fnv(seen.data(), go.words * 4);

	/* Device 0 rewrites device 1's memory over the peer mapping. */
	k_ipc_transform<<<256, 256, 0, st>>>(buf, go.words);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(st));
	CK(cudaIpcCloseMemHandle(p));

	/* The driver refuses a second mapping of one handle in one process
	 * (CUDA_ERROR_ALREADY_MAPPED), so the direct driver call maps it again
	 * only now, and reads back what the kernel wrote. */
	CUipcMemHandle cmh;
	memcpy(&cmh, &mh, sizeof cmh);
	CK_CU(ipc_open(&p2, cmh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CK(cudaMemcpy(seen.data(), reinterpret_cast<void *>((uintptr_t)p2), go.words * 4,
	              cudaMemcpyDeviceToHost));
	for (auto &w : want)
		w = pwg_ipc_transform(w);
	EXPECT_SAME(seen, want, "data after the child's kernel, through a second mapping");
	uint64_t after = pwg_fnv(seen.data(), go.words * 4);
	CK_CU(ipc_close(p2));
	CK(cudaEventDestroy(ev));
	CK(cudaStreamDestroy(st));
	if (pwg_send_done(wfd, before, after) != 0) {
		fprintf(stderr, "%s: cannot report to the parent\n", g_role);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Managed memory                                                            */

static cudaMemLocation on_device(int dev)
{
	cudaMemLocation l;
	memset(&l, 0, sizeof l);
	l.type = cudaMemLocationTypeDevice;
	l.id = dev;
	return l;
}

static void managed(State &s)
{
	const size_t words = kManagedBytes / 4, words2 = kManaged2Bytes / 4;
	uint32_t *m = nullptr;
	CUdeviceptr m2 = 0;
	cudaStream_t st = s.stream[0];

	CK(cudaSetDevice(0));
	CK(cudaMallocManaged(&m, kManagedBytes, cudaMemAttachGlobal));
	CK_CU(s.cu.alloc_managed(&m2, kManaged2Bytes, CU_MEM_ATTACH_HOST));
	pwg_fill(m, words, 41);

	CK(cudaMemAdvise(m, kManagedBytes, cudaMemAdviseSetReadMostly, on_device(0)));
	CK(cudaMemAdvise(m, kManagedBytes, cudaMemAdviseSetPreferredLocation, on_device(1)));
	CK(cudaMemAdvise(m, kManagedBytes, cudaMemAdviseSetAccessedBy, on_device(0)));
	CK_CU(s.cu.advise_legacy(dptr(m), kManagedBytes, CU_MEM_ADVISE_UNSET_READ_MOSTLY, 0));
	CUmemLocation dev1;
	memset(&dev1, 0, sizeof dev1);
	dev1.type = CU_MEM_LOCATION_TYPE_DEVICE;
	dev1.id = 1;
	CK_CU(s.cu.advise_v2(dptr(m), kManagedBytes, CU_MEM_ADVISE_SET_ACCESSED_BY, dev1));

	cudaMemLocation host;
	memset(&host, 0, sizeof host);
	host.type = cudaMemLocationTypeHost;
	CK(cudaMemPrefetchAsync(m, kManagedBytes, on_device(1), 0, st));
	CK(cudaMemPrefetchAsync(m, kManagedBytes, host, 0, st));
	CK_CU(s.cu.prefetch_legacy(dptr(m), kManagedBytes, 0, (CUstream)st));
	CK(cudaStreamSynchronize(st));

	int read_mostly = -1, preferred = -9, last_prefetch = -9, preferred_drv = -9;
	CK(cudaMemRangeGetAttribute(&read_mostly, sizeof read_mostly, cudaMemRangeAttributeReadMostly, m,
	                            kManagedBytes));
	CK(cudaMemRangeGetAttribute(&preferred, sizeof preferred, cudaMemRangeAttributePreferredLocation, m,
	                            kManagedBytes));
	CK(cudaMemRangeGetAttribute(&last_prefetch, sizeof last_prefetch,
	                            cudaMemRangeAttributeLastPrefetchLocation, m, kManagedBytes));
	CK_CU(s.cu.range_attribute(&preferred_drv, sizeof preferred_drv,
	                           CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, dptr(m), kManagedBytes));
	CHECK(preferred_drv == preferred, "driver and runtime disagree on the preferred location");

	int rm2 = -1, pl2 = -9, accessed_by[4] = {-9, -9, -9, -9};
	void *data[3] = {&rm2, &pl2, accessed_by};
	size_t sizes[3] = {sizeof rm2, sizeof pl2, sizeof accessed_by};
	cudaMemRangeAttribute attrs[3] = {cudaMemRangeAttributeReadMostly,
	                                  cudaMemRangeAttributePreferredLocation,
	                                  cudaMemRangeAttributeAccessedBy};
	CK(cudaMemRangeGetAttributes(data, sizes, attrs, 3, m, kManagedBytes));
	CHECK(rm2 == read_mostly && pl2 == preferred, "cudaMemRangeGetAttributes disagrees");
	char by[64] = "";
	for (int i = 0; i < 4; i++)
		if (accessed_by[i] != cudaInvalidDeviceId)
			snprintf(by + strlen(by), sizeof by - strlen(by), "%s%d", *by ? "," : "",
			         accessed_by[i]);
	printf("managed: read_mostly=%d preferred=%d last_prefetch=%d accessed_by=%s\n", read_mostly,
	       preferred, last_prefetch, by);

	/* Both devices update the managed buffer; the host checks. */
	k_add<<<256, 256, 0, s.stream[0]>>>(m, words, 1);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(s.stream[0]));
	CK(cudaSetDevice(1));
	k_add<<<256, 256, 0, s.stream[1]>>>(m, words, 2);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(s.stream[1]));
	CK(cudaSetDevice(0));
	std::vector<uint32_t> want = pattern(41, words);
	for (auto &w : want)
		w += 3;
	CHECK(pwg_first_diff(m, want.data(), words) == words, "managed buffer after two kernels");

	/* Host-attached allocation: attach to one stream, use, give back. */
	uint32_t *p2 = reinterpret_cast<uint32_t *>((uintptr_t)m2);
	CK(cudaStreamAttachMemAsync(st, p2, 0, cudaMemAttachSingle));
	k_fill<<<64, 256, 0, st>>>(p2, words2, 42);
	CK(cudaGetLastError());
	CK(cudaStreamAttachMemAsync(st, p2, 0, cudaMemAttachGlobal));
	CK_CU(s.cu.attach_mem((CUstream)st, m2, 0, CU_MEM_ATTACH_HOST));
	CK(cudaStreamSynchronize(st));
	std::vector<uint32_t> want2 = pattern(42, words2);
	CHECK(pwg_first_diff(p2, want2.data(), words2) == words2, "attached managed buffer");
	printf("managed: kernels on both devices OK fnv=%016llx, stream-attached OK fnv=%016llx\n",
	       (unsigned long long)pwg_fnv(m, kManagedBytes),
	       (unsigned long long)pwg_fnv(p2, kManaged2Bytes));
	CK(cudaFree(m));
	CK(cudaFree(p2));
}

/* ------------------------------------------------------------------------ */
/* Stream-ordered frees                                                      */

static void free_async(State &s)
{
	const size_t bytes = 64u << 10;
	void *p = nullptr, *q = nullptr;
	CK(cudaSetDevice(0));
	CK(cudaMallocAsync(&p, bytes, s.stream[0]));
	CK(cudaMemsetAsync(p, 0x5a, bytes, s.stream[0]));
	CK(cudaFreeAsync(p, s.stream[0]));
	CK(cudaMallocAsync(&q, bytes, s.stream[0]));
	CK(cudaMemsetAsync(q, 0xa5, bytes, s.stream[0]));
	unsigned char probe[16];
	CK(cudaMemcpyAsync(probe, q, sizeof probe, cudaMemcpyDeviceToHost, s.stream[0]));
	CK_CU(s.cu.mem_free_async(dptr(q), (CUstream)s.stream[0]));
	CK(cudaStreamSynchronize(s.stream[0]));
	for (unsigned char c : probe)
		CHECK(c == 0xa5, "stream-ordered allocation content");
	printf("free_async: runtime OK driver OK\n");
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	alarm(PWG_ALARM_SECONDS);
	if (argc >= 2 && strcmp(argv[1], "--ipc-child") == 0) {
		int rfd, wfd;
		if (pwg_child_fds(argc, argv, &rfd, &wfd) != 0) {
			fprintf(stderr, "usage: %s --ipc-child READ_FD WRITE_FD\n", argv[0]);
			return 2;
		}
		return ipc_child(rfd, wfd);
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s   (no arguments)\n", argv[0]);
		return 2;
	}

	/* Before the first CUDA call: the IPC importer must be another process. */
	if (pwg_spawn_ipc_child(argv[0], &g_child) != 0)
		return 1;

	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && n < 2)) {
		printf("SKIP: need 2 GPUs (found %d: %s)\n", e == cudaSuccess ? n : 0, cudaGetErrorName(e));
		pwg_dismiss_child(&g_child);
		return PWG_EXIT_SKIP;
	}
	CK(e);
	printf("peer_all: %d devices visible, using 0 and 1\n", n);

	State s;
	memset(&s, 0, sizeof s);
	s.cu = fetch_entries();
	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d)); /* makes the primary context current (CUDA >= 12) */
		CK_CU(s.cu.ctx_get_current(&s.ctx[d]));
		CHECK(s.ctx[d] != nullptr, "no current context after cudaSetDevice");
		CK(cudaStreamCreateWithFlags(&s.stream[d], cudaStreamNonBlocking));
		CK(cudaMalloc(&s.a[d], kBytes));
		CK(cudaMalloc(&s.b[d], kBytes));
	}

	peer_queries(s);
	peer_copies_sync(s, "peer access off");
	enable_peer_access(s);
	peer_copies_sync(s, "peer access on");
	peer_copies_entry(s);
	peer_copies_async(s);
	peer_copies_3d(s);
	disable_peer_access(s);
	ipc_parent(s);
	managed(s);
	free_async(s);

	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		CK(cudaFree(s.a[d]));
		CK(cudaStreamDestroy(s.stream[d]));
	}
	CK(cudaFree(s.b[0]));
	CK_CU(s.cu.mem_free(dptr(s.b[1])));
	printf("peer_all: ALL OK\n");
	return 0;
}

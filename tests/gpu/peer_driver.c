/*
 * peer_driver — the CUDA driver API called directly, through the symbols
 * libcuda.so.1 exports (the program is linked with -lcuda): the "exported
 * wrappers" path of peerwatch's interception.  Two GPUs; every byte moved is
 * checked.
 *
 * Besides the names cuda.h gives (cuMemAdvise -> cuMemAdvise_v2 and so on),
 * the legacy and per-thread-default-stream variants are called by their
 * exported names through asm labels, so one binary covers every ABI variant.
 *
 * stdout is deterministic (no pointers, no timings).  Exit status: 0 all
 * checks passed, 1 a check or a CUDA call failed (the message names
 * file:line), 77 fewer than two peer-capable GPUs.
 *
 * Driver calls made, as (api, variant): count.  All are made by this program
 * itself, so the trace must show exactly these numbers.
 * Parent process:
 *   cuDeviceCanAccessPeer       3
 *   cuDeviceGetP2PAttribute     3
 *   cuCtxEnablePeerAccess       3 (one returns 704 PEER_ACCESS_ALREADY_ENABLED)
 *   cuCtxDisablePeerAccess      3 (one returns 705 PEER_ACCESS_NOT_ENABLED)
 *   cuMemcpyPeer                7 = 6 "" + 1 _ptds
 *   cuMemcpyPeerAsync           3 = 2 "" + 1 _ptsz
 *   cuMemcpy3DPeer              2 = 1 "" + 1 _ptds
 *   cuMemcpy3DPeerAsync         2 = 1 "" + 1 _ptsz
 *   cuIpcGetMemHandle           2
 *   cuIpcGetEventHandle         1
 *   cuMemAllocManaged           2
 *   cuMemAdvise                 5 = 4 _v2 + 1 "" (CUdevice ABI)
 *   cuMemPrefetchAsync          5 = 2 _v2 + 1 _v2_ptsz + 1 "" + 1 _ptsz
 *   cuMemRangeGetAttribute      3
 *   cuMemRangeGetAttributes     1
 *   cuStreamAttachMemAsync      3 = 2 "" + 1 _ptsz
 *   cuMemFree                   7 _v2
 *   cuMemFreeAsync              2 = 1 "" + 1 _ptsz
 * IPC child process (the same binary, exec'd with --ipc-child):
 *   cuIpcOpenMemHandle          2 = 1 _v2 + 1 "", one after the other (the driver
 *                                 refuses a second live mapping of one handle: 208)
 *   cuIpcOpenEventHandle        1
 *   cuIpcCloseMemHandle         2
 */
#define _GNU_SOURCE /* gpu_common.h pins threads: sched_getaffinity, CPU_SET */
#include <cuda.h>

#include "gpu_common.h"

/* Exported variants that cuda.h names only by macro, or not at all here. */
extern CUresult pw_cuMemAdvise_legacy(CUdeviceptr p, size_t n, CUmem_advise advice,
                                      CUdevice dev) __asm__("cuMemAdvise");
extern CUresult pw_cuMemPrefetchAsync_legacy(CUdeviceptr p, size_t n, CUdevice dev,
                                             CUstream s) __asm__("cuMemPrefetchAsync");
extern CUresult pw_cuMemPrefetchAsync_legacy_ptsz(CUdeviceptr p, size_t n, CUdevice dev,
                                                  CUstream s) __asm__("cuMemPrefetchAsync_ptsz");
extern CUresult pw_cuMemPrefetchAsync_v2_ptsz(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned flags,
                                              CUstream s) __asm__("cuMemPrefetchAsync_v2_ptsz");
extern CUresult pw_cuIpcOpenMemHandle_legacy(CUdeviceptr *p, CUipcMemHandle h,
                                             unsigned flags) __asm__("cuIpcOpenMemHandle");
extern CUresult pw_cuMemcpyPeer_ptds(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                                     size_t n) __asm__("cuMemcpyPeer_ptds");
extern CUresult pw_cuMemcpyPeerAsync_ptsz(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                                          size_t n, CUstream s) __asm__("cuMemcpyPeerAsync_ptsz");
extern CUresult pw_cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *p) __asm__("cuMemcpy3DPeer_ptds");
extern CUresult pw_cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *p,
                                            CUstream s) __asm__("cuMemcpy3DPeerAsync_ptsz");
extern CUresult pw_cuStreamAttachMemAsync_ptsz(CUstream s, CUdeviceptr p, size_t n,
                                               unsigned flags) __asm__("cuStreamAttachMemAsync_ptsz");
extern CUresult pw_cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) __asm__("cuMemFreeAsync_ptsz");

static const char *g_role = "peer_driver";
static struct pwg_child g_child = {-1, -1, -1};

static void fail(const char *file, int line, const char *what, const char *why) __attribute__((noreturn));
static void fail(const char *file, int line, const char *what, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "%s: FAIL at %s:%d: %s: %s\n", g_role, file, line, what, why);
	pwg_dismiss_child(&g_child);
	exit(1);
}

static void fail_cu(const char *file, int line, const char *what, CUresult got, CUresult want)
    __attribute__((noreturn));
static void fail_cu(const char *file, int line, const char *what, CUresult got, CUresult want)
{
	const char *name = NULL, *text = NULL;
	char why[256];
	if (cuGetErrorName(got, &name) != CUDA_SUCCESS)
		name = "?";
	if (cuGetErrorString(got, &text) != CUDA_SUCCESS)
		text = "?";
	snprintf(why, sizeof why, "%s (%d): %s; expected %d", name, (int)got, text, (int)want);
	fail(file, line, what, why);
}

#define CK_IS(call, want)                                               \
	do {                                                            \
		CUresult r_ = (call);                                   \
		if (r_ != (want))                                       \
			fail_cu(__FILE__, __LINE__, #call, r_, (want)); \
	} while (0)
#define CK(call) CK_IS(call, CUDA_SUCCESS)

#define CHECK(cond, why)                                      \
	do {                                                  \
		if (!(cond))                                  \
			fail(__FILE__, __LINE__, #cond, why); \
	} while (0)

/* 1 MiB buffers, also seen as a 3D volume of 8 slices x 128 rows x 1024 bytes. */
#define WORDS ((size_t)1 << 18)
#define BYTES (WORDS * sizeof(uint32_t))
#define PITCH ((size_t)1024)
#define ROWS ((size_t)128)
#define MANAGED_BYTES ((size_t)2 << 20)
#define MANAGED2_BYTES ((size_t)64 << 10)

struct state {
	CUdevice dev[2];
	CUcontext ctx[2];
	CUstream stream[2];
	CUdeviceptr a[2], b[2];
	uint32_t *host, *want; /* WORDS each */
};

static void use(struct state *s, int d)
{
	CK(cuCtxSetCurrent(s->ctx[d]));
}

/* Waits for all work in both contexts; the current context is kept. */
static void sync_both(struct state *s)
{
	CUcontext cur;
	CK(cuCtxGetCurrent(&cur));
	for (int d = 0; d < 2; d++) {
		CK(cuCtxSetCurrent(s->ctx[d]));
		CK(cuCtxSynchronize());
	}
	CK(cuCtxSetCurrent(cur));
}

/* A copy from pageable memory may return before the data lands on the
 * device, and work on our non-blocking streams does not wait for it. */
static void upload(struct state *s, CUdeviceptr p, uint32_t seed, uint32_t *scratch)
{
	pwg_fill(scratch, WORDS, seed);
	CK(cuMemcpyHtoD(p, scratch, BYTES));
	sync_both(s);
}

/* Fails unless device buffer p holds want[0..words). */
#define EXPECT_DEVICE(s, p, want_, words, what)                                             \
	do {                                                                                \
		CK(cuMemcpyDtoH((s)->host, (p), (words) * sizeof(uint32_t)));               \
		size_t at_ = pwg_first_diff((s)->host, (want_), (words));                   \
		if (at_ != (words)) {                                                       \
			char why_[128];                                                     \
			snprintf(why_, sizeof why_, "word %zu is %08x, expected %08x", at_, \
			         (unsigned)(s)->host[at_], (unsigned)(want_)[at_]);         \
			fail(__FILE__, __LINE__, what, why_);                               \
		}                                                                           \
	} while (0)

static unsigned long long fnv_words(const uint32_t *w, size_t words)
{
	return (unsigned long long)pwg_fnv(w, words * sizeof(uint32_t));
}

/* ------------------------------------------------------------------------ */

static void peer_queries(struct state *s)
{
	int c01 = -1, c10 = -1, c00 = -1, a01 = -1, a10 = -1, rank = -1;
	CK(cuDeviceCanAccessPeer(&c01, s->dev[0], s->dev[1]));
	CK(cuDeviceCanAccessPeer(&c10, s->dev[1], s->dev[0]));
	CK(cuDeviceCanAccessPeer(&c00, s->dev[0], s->dev[0]));
	printf("can_access_peer 0->1=%d 1->0=%d 0->0=%d\n", c01, c10, c00);
	if (c01 != 1 || c10 != 1) {
		printf("SKIP: devices 0 and 1 are not peer-capable\n");
		pwg_dismiss_child(&g_child);
		exit(PWG_EXIT_SKIP);
	}
	CK(cuDeviceGetP2PAttribute(&a01, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, s->dev[0], s->dev[1]));
	CK(cuDeviceGetP2PAttribute(&a10, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, s->dev[1], s->dev[0]));
	CK(cuDeviceGetP2PAttribute(&rank, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, s->dev[0], s->dev[1]));
	fprintf(stderr, "%s: p2p performance rank 0->1 = %d\n", g_role, rank);
	printf("p2p_attr access_supported 0->1=%d 1->0=%d\n", a01, a10);
}

static void peer_access(struct state *s, int enable)
{
	if (enable) {
		use(s, 0);
		CK(cuCtxEnablePeerAccess(s->ctx[1], 0));
		CK_IS(cuCtxEnablePeerAccess(s->ctx[1], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
		use(s, 1);
		CK(cuCtxEnablePeerAccess(s->ctx[0], 0));
		printf("enable_peer_access 0->1 OK (again: %d) 1->0 OK\n",
		       (int)CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	} else {
		use(s, 0);
		CK(cuCtxDisablePeerAccess(s->ctx[1]));
		CK_IS(cuCtxDisablePeerAccess(s->ctx[1]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
		use(s, 1);
		CK(cuCtxDisablePeerAccess(s->ctx[0]));
		printf("disable_peer_access 0->1 OK (again: %d) 1->0 OK\n",
		       (int)CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	}
	use(s, 0);
}

/* a0 -> a1 -> b0 with cuMemcpyPeer; 2 calls. */
static void copies_sync(struct state *s, uint32_t seed, const char *label)
{
	upload(s, s->a[0], seed, s->want);
	CK(cuMemcpyPeer(s->a[1], s->ctx[1], s->a[0], s->ctx[0], BYTES));
	EXPECT_DEVICE(s, s->a[1], s->want, WORDS, "cuMemcpyPeer 0->1");
	CK(cuMemcpyPeer(s->b[0], s->ctx[0], s->a[1], s->ctx[1], BYTES));
	EXPECT_DEVICE(s, s->b[0], s->want, WORDS, "cuMemcpyPeer 1->0");
	printf("memcpy_peer %s: 0->1 OK 1->0 OK fnv=%016llx\n", label, fnv_words(s->want, WORDS));
}

static void copies_ptds(struct state *s)
{
	upload(s, s->a[0], 12, s->want);
	CK(pw_cuMemcpyPeer_ptds(s->b[1], s->ctx[1], s->a[0], s->ctx[0], BYTES));
	EXPECT_DEVICE(s, s->b[1], s->want, WORDS, "cuMemcpyPeer_ptds 0->1");
	printf("memcpy_peer ptds 0->1 OK fnv=%016llx\n", fnv_words(s->want, WORDS));
}

static void copies_async(struct state *s)
{
	upload(s, s->a[0], 13, s->want);
	upload(s, s->b[0], 14, s->host);

	use(s, 0);
	CK(cuMemcpyPeerAsync(s->a[1], s->ctx[1], s->a[0], s->ctx[0], BYTES, s->stream[0]));
	CK(cuStreamSynchronize(s->stream[0]));
	EXPECT_DEVICE(s, s->a[1], s->want, WORDS, "cuMemcpyPeerAsync 0->1");

	/* First half, on the legacy NULL stream: b0 = 13 | 14. */
	CK(cuMemcpyPeerAsync(s->b[0], s->ctx[0], s->a[1], s->ctx[1], BYTES / 2, NULL));
	CK(cuCtxSynchronize());
	for (size_t i = WORDS / 2; i < WORDS; i++)
		s->want[i] = pwg_pattern(i, 14);
	EXPECT_DEVICE(s, s->b[0], s->want, WORDS, "cuMemcpyPeerAsync 1->0, half");

	/* Per-thread default stream (handle 0 in the _ptsz variant) of device 1. */
	use(s, 1);
	CK(pw_cuMemcpyPeerAsync_ptsz(s->b[1], s->ctx[1], s->b[0], s->ctx[0], BYTES, NULL));
	CK(cuCtxSynchronize());
	EXPECT_DEVICE(s, s->b[1], s->want, WORDS, "cuMemcpyPeerAsync_ptsz 0->1");
	use(s, 0);
	printf("memcpy_peer_async: stream OK legacy default OK per-thread default OK fnv=%016llx\n",
	       fnv_words(s->want, WORDS));
}

struct box {
	size_t sx, sy, sz, dx, dy, dz, w, h, d;
};

static void model_3d(uint32_t *dst, const uint32_t *src, const struct box *b)
{
	const char *sp = (const char *)src;
	char *dp = (char *)dst;
	for (size_t z = 0; z < b->d; z++)
		for (size_t y = 0; y < b->h; y++)
			memcpy(dp + ((b->dz + z) * ROWS + b->dy + y) * PITCH + b->dx,
			       sp + ((b->sz + z) * ROWS + b->sy + y) * PITCH + b->sx, b->w);
}

static void copies_3d(struct state *s)
{
	static const struct box boxes[4] = {
	    {128, 16, 2, 256, 64, 3, 512, 32, 4},
	    {0, 0, 0, 512, 100, 1, 512, 28, 7},
	    {1000, 127, 7, 0, 0, 0, 24, 1, 1},
	    {64, 8, 0, 64, 8, 0, 960, 120, 8},
	};
	uint32_t *src_host = malloc(BYTES);
	CHECK(src_host != NULL, "out of host memory");
	unsigned long long digest = 0;
	for (int i = 0; i < 4; i++) {
		const struct box *b = &boxes[i];
		int sd = i % 2, dd = 1 - sd;
		uint32_t src_seed = 20 + 2 * (uint32_t)i, dst_seed = 21 + 2 * (uint32_t)i;
		upload(s, s->a[sd], src_seed, src_host);
		upload(s, s->b[dd], dst_seed, s->want);
		CUDA_MEMCPY3D_PEER p;
		memset(&p, 0, sizeof p);
		p.srcXInBytes = b->sx;
		p.srcY = b->sy;
		p.srcZ = b->sz;
		p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		p.srcDevice = s->a[sd];
		p.srcContext = s->ctx[sd];
		p.srcPitch = PITCH;
		p.srcHeight = ROWS;
		p.dstXInBytes = b->dx;
		p.dstY = b->dy;
		p.dstZ = b->dz;
		p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		p.dstDevice = s->b[dd];
		p.dstContext = s->ctx[dd];
		p.dstPitch = PITCH;
		p.dstHeight = ROWS;
		p.WidthInBytes = b->w;
		p.Height = b->h;
		p.Depth = b->d;
		use(s, dd);
		switch (i) {
		case 0: CK(cuMemcpy3DPeer(&p)); break;
		case 1: CK(pw_cuMemcpy3DPeer_ptds(&p)); break;
		case 2:
			CK(cuMemcpy3DPeerAsync(&p, s->stream[dd]));
			CK(cuStreamSynchronize(s->stream[dd]));
			break;
		default:
			CK(pw_cuMemcpy3DPeerAsync_ptsz(&p, s->stream[dd]));
			CK(cuStreamSynchronize(s->stream[dd]));
			break;
		}
		model_3d(s->want, src_host, b);
		EXPECT_DEVICE(s, s->b[dd], s->want, WORDS, "3D peer copy");
		digest ^= fnv_words(s->want, WORDS) + (unsigned long long)i;
	}
	use(s, 0);
	free(src_host);
	printf("memcpy_3d_peer: legacy OK ptds OK async OK async ptsz OK digest=%016llx\n", digest);
}

/* ------------------------------------------------------------------------ */
/* IPC                                                                       */

static void ipc_parent(struct state *s)
{
	const uint32_t seed = 31;
	CUdeviceptr buf;
	CUevent ev;
	CUipcMemHandle mh, mh2;
	CUipcEventHandle eh;
	struct pwg_go go;

	use(s, 1);
	CK(cuMemAlloc(&buf, BYTES));
	upload(s, buf, seed, s->want);
	CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS));
	CK(cuEventRecord(ev, s->stream[1]));
	CK(cuIpcGetMemHandle(&mh, buf));
	CK(cuIpcGetMemHandle(&mh2, buf));
	if (memcmp(&mh, &mh2, sizeof mh) != 0)
		fprintf(stderr, "%s: note: two IPC handles of one buffer differ\n", g_role);
	CK(cuIpcGetEventHandle(&eh, ev));
	CK(cuStreamSynchronize(s->stream[1]));

	_Static_assert(sizeof(CUipcMemHandle) == PWG_HANDLE_BYTES, "IPC handle size");
	_Static_assert(sizeof(CUipcEventHandle) == PWG_HANDLE_BYTES, "IPC handle size");
	go.seed = seed;
	go.words = WORDS;
	memcpy(go.mem, &mh, sizeof mh);
	memcpy(go.event, &eh, sizeof eh);
	CHECK(pwg_send_go(&g_child, &go) == 0, "cannot send the IPC handles to the child");
	uint64_t before = 0, after = 0;
	CHECK(pwg_recv_done(&g_child, &before, &after) == 0,
	      "the IPC child did not report DONE (its stderr says why)");
	CHECK(pwg_reap_child(&g_child) == 0, "the IPC child exited with a non-zero status");

	CHECK(before == pwg_fnv(s->want, BYTES), "the child read other data than we exported");
	for (size_t i = 0; i < WORDS; i++)
		s->want[i] = pwg_ipc_transform(s->want[i]);
	EXPECT_DEVICE(s, buf, s->want, WORDS, "buffer written by the IPC child");
	CHECK(after == pwg_fnv(s->want, BYTES), "the child's checksum of its write is wrong");
	printf("ipc: child opened the buffer and event, read fnv=%016llx, wrote fnv=%016llx: OK\n",
	       (unsigned long long)before, (unsigned long long)after);
	CK(cuEventDestroy(ev));
	CK(cuMemFree(buf));
	use(s, 0);
}

static int ipc_child(int rfd, int wfd)
{
	struct pwg_go go;
	CUdevice dev;
	CUcontext ctx;
	CUstream st;
	CUevent ev;
	CUdeviceptr p = 0, p2 = 0;
	CUipcMemHandle mh;
	CUipcEventHandle eh;

	g_role = "peer_driver[ipc-child]";
	int r = pwg_recv_go(rfd, &go);
	if (r == 0)
		return 0;
	if (r < 0) {
		fprintf(stderr, "%s: no valid GO message from the parent\n", g_role);
		return 1;
	}
	memcpy(&mh, go.mem, sizeof mh);
	memcpy(&eh, go.event, sizeof eh);
	size_t bytes = go.words * sizeof(uint32_t);
	uint32_t *host = malloc(bytes), *want = malloc(bytes);
	CHECK(host != NULL && want != NULL, "out of host memory");

	/* Import on device 0 what lives on device 1. */
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	CK(cuIpcOpenMemHandle(&p, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CK(cuIpcOpenEventHandle(&ev, eh));
	CK(cuStreamWaitEvent(st, ev, 0));
	CK(cuStreamSynchronize(st));

	pwg_fill(want, go.words, go.seed);
	CK(cuMemcpyDtoH(host, p, bytes));
	CHECK(pwg_first_diff(host, want, go.words) == go.words, "data read through the IPC mapping");
	uint64_t before = pwg_fnv(host, bytes);
	for (size_t i = 0; i < go.words; i++)
		want[i] = pwg_ipc_transform(want[i]);
	CK(cuMemcpyHtoD(p, want, bytes));
	CK(cuCtxSynchronize());
	CK(cuIpcCloseMemHandle(p));

	/* The driver refuses a second mapping of one handle in one process
	 * (CUDA_ERROR_ALREADY_MAPPED): map it again through the legacy entry
	 * point only now, and read back what we wrote. */
	CK(pw_cuIpcOpenMemHandle_legacy(&p2, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CK(cuMemcpyDtoH(host, p2, bytes));
	CHECK(pwg_first_diff(host, want, go.words) == go.words,
	      "data after the child's write, through a second mapping");
	uint64_t after = pwg_fnv(host, bytes);
	CK(cuIpcCloseMemHandle(p2));
	CK(cuEventDestroy(ev));
	CK(cuStreamDestroy(st));
	CK(cuDevicePrimaryCtxRelease(dev));
	free(host);
	free(want);
	if (pwg_send_done(wfd, before, after) != 0) {
		fprintf(stderr, "%s: cannot report to the parent\n", g_role);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Managed memory                                                            */

static CUmemLocation location(CUmemLocationType type, int id)
{
	CUmemLocation l;
	memset(&l, 0, sizeof l);
	l.type = type;
	l.id = id;
	return l;
}

static void managed(struct state *s)
{
	const size_t words = MANAGED_BYTES / 4, words2 = MANAGED2_BYTES / 4;
	CUdeviceptr m, m2;
	CUstream st = s->stream[0];
	CUmemLocation dev0 = location(CU_MEM_LOCATION_TYPE_DEVICE, 0);
	CUmemLocation dev1 = location(CU_MEM_LOCATION_TYPE_DEVICE, 1);
	CUmemLocation host = location(CU_MEM_LOCATION_TYPE_HOST, 0);

	use(s, 0);
	CK(cuMemAllocManaged(&m, MANAGED_BYTES, CU_MEM_ATTACH_GLOBAL));
	CK(cuMemAllocManaged(&m2, MANAGED2_BYTES, CU_MEM_ATTACH_HOST));
	uint32_t *mp = (uint32_t *)(uintptr_t)m, *mp2 = (uint32_t *)(uintptr_t)m2;
	pwg_fill(mp, words, 41);

	CK(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	CK(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev1));
	CK(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_ACCESSED_BY, dev0));
	CK(pw_cuMemAdvise_legacy(m, MANAGED_BYTES, CU_MEM_ADVISE_UNSET_READ_MOSTLY, s->dev[0]));
	CK(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_ACCESSED_BY, dev1));

	CK(cuMemPrefetchAsync(m, MANAGED_BYTES, dev1, 0, st));
	CK(cuMemPrefetchAsync(m, MANAGED_BYTES, host, 0, st));
	CK(pw_cuMemPrefetchAsync_legacy(m, MANAGED_BYTES, s->dev[1], st));
	CK(pw_cuMemPrefetchAsync_legacy_ptsz(m, MANAGED_BYTES, s->dev[1], st));
	CK(pw_cuMemPrefetchAsync_v2_ptsz(m, MANAGED_BYTES, dev0, 0, st));
	CK(cuStreamSynchronize(st));

	int read_mostly = -1, preferred = -9, last_prefetch = -9;
	CK(cuMemRangeGetAttribute(&read_mostly, sizeof read_mostly, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m,
	                          MANAGED_BYTES));
	CK(cuMemRangeGetAttribute(&preferred, sizeof preferred, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m,
	                          MANAGED_BYTES));
	CK(cuMemRangeGetAttribute(&last_prefetch, sizeof last_prefetch,
	                          CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, MANAGED_BYTES));
	int rm2 = -1, pl2 = -9, accessed_by[4] = {-9, -9, -9, -9};
	void *data[3] = {&rm2, &pl2, accessed_by};
	size_t sizes[3] = {sizeof rm2, sizeof pl2, sizeof accessed_by};
	CUmem_range_attribute attrs[3] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
	                                  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
	                                  CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY};
	CK(cuMemRangeGetAttributes(data, sizes, attrs, 3, m, MANAGED_BYTES));
	CHECK(rm2 == read_mostly && pl2 == preferred,
	      "cuMemRangeGetAttributes disagrees with cuMemRangeGetAttribute");
	char by[64] = "";
	for (int i = 0; i < 4; i++)
		if (accessed_by[i] != CU_DEVICE_INVALID)
			snprintf(by + strlen(by), sizeof by - strlen(by), "%s%d", *by ? "," : "",
			         accessed_by[i]);
	printf("managed: read_mostly=%d preferred=%d last_prefetch=%d accessed_by=%s\n", read_mostly,
	       preferred, last_prefetch, by);

	/* The data survived the migrations. */
	pwg_fill(s->want, WORDS, 41);
	CHECK(pwg_first_diff(mp, s->want, WORDS) == WORDS && words == 2 * WORDS,
	      "managed data after prefetches");
	for (size_t i = WORDS; i < words; i++)
		CHECK(mp[i] == pwg_pattern(i, 41), "managed data after prefetches");

	/* Host-attached allocation: attach to one stream, write on it, give back. */
	CK(cuStreamAttachMemAsync(st, m2, 0, CU_MEM_ATTACH_SINGLE));
	CK(cuMemsetD32Async(m2, 0x600df00d, words2, st));
	CK(cuStreamAttachMemAsync(st, m2, 0, CU_MEM_ATTACH_GLOBAL));
	CK(pw_cuStreamAttachMemAsync_ptsz(st, m2, 0, CU_MEM_ATTACH_HOST));
	CK(cuStreamSynchronize(st));
	for (size_t i = 0; i < words2; i++)
		CHECK(mp2[i] == 0x600df00du, "attached managed buffer");
	printf("managed: data intact after prefetches fnv=%016llx, stream-attached OK fnv=%016llx\n",
	       (unsigned long long)pwg_fnv(mp, MANAGED_BYTES),
	       (unsigned long long)pwg_fnv(mp2, MANAGED2_BYTES));
	CK(cuMemFree(m));
	CK(cuMemFree(m2));
}

static void free_async(struct state *s)
{
	const size_t bytes = 64u << 10;
	CUdeviceptr p, q;
	unsigned char probe[16];
	CUstream st = s->stream[0];
	use(s, 0);
	CK(cuMemAllocAsync(&p, bytes, st));
	CK(cuMemsetD8Async(p, 0x5a, bytes, st));
	CK(cuMemFreeAsync(p, st));
	CK(cuMemAllocAsync(&q, bytes, st));
	CK(cuMemsetD8Async(q, 0xa5, bytes, st));
	CK(cuMemcpyDtoHAsync(probe, q, sizeof probe, st));
	CK(pw_cuMemFreeAsync_ptsz(q, st));
	CK(cuStreamSynchronize(st));
	for (size_t i = 0; i < sizeof probe; i++)
		CHECK(probe[i] == 0xa5, "stream-ordered allocation content");
	printf("free_async: legacy OK ptsz OK\n");
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
	if (pwg_spawn_ipc_child(argv[0], &g_child) != 0)
		return 1;

	struct state st;
	memset(&st, 0, sizeof st);
	struct state *s = &st;
	int n = 0;
	CUresult r = cuInit(0);
	if (r == CUDA_SUCCESS)
		r = cuDeviceGetCount(&n);
	if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && n < 2)) {
		printf("SKIP: need 2 GPUs (found %d)\n", r == CUDA_SUCCESS ? n : 0);
		pwg_dismiss_child(&g_child);
		return PWG_EXIT_SKIP;
	}
	CK(r);
	printf("peer_driver: %d devices visible, using 0 and 1\n", n);

	s->host = malloc(BYTES);
	s->want = malloc(BYTES);
	CHECK(s->host != NULL && s->want != NULL, "out of host memory");
	for (int d = 0; d < 2; d++) {
		CK(cuDeviceGet(&s->dev[d], d));
		CK(cuDevicePrimaryCtxRetain(&s->ctx[d], s->dev[d]));
		use(s, d);
		CK(cuStreamCreate(&s->stream[d], CU_STREAM_NON_BLOCKING));
		CK(cuMemAlloc(&s->a[d], BYTES));
		CK(cuMemAlloc(&s->b[d], BYTES));
	}
	use(s, 0);

	peer_queries(s);
	copies_sync(s, 11, "peer access off");
	peer_access(s, 1);
	copies_sync(s, 11, "peer access on");
	copies_ptds(s);
	copies_async(s);
	copies_3d(s);
	peer_access(s, 0);
	copies_sync(s, 15, "peer access off again");
	ipc_parent(s);
	managed(s);
	free_async(s);

	for (int d = 0; d < 2; d++) {
		use(s, d);
		CK(cuMemFree(s->a[d]));
		CK(cuMemFree(s->b[d]));
		CK(cuStreamDestroy(s->stream[d]));
	}
	CK(cuCtxSetCurrent(NULL));
	for (int d = 0; d < 2; d++)
		CK(cuDevicePrimaryCtxRelease(s->dev[d]));
	free(s->host);
	free(s->want);
	printf("peer_driver: ALL OK\n");
	return 0;
}

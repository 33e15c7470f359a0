/*
 * Self-test of the simulated CUPTI (cupti_sim.c) and of the simulated
 * driver's unified-memory model (cuda_sim_um.c): each rule of the model
 * touched through pwsim_um_touch, the advice and prefetch calls, the records
 * received through the activity API's buffers checked field by field, then
 * the copy records, the clock, the delivery thread, and the environment
 * knobs (in child runs of this program, which read them at their first
 * call).  Host: 3 devices, 0 and 1 peers, 2 a peer of neither.
 * Last line: "cupti_selftest: N passed, M failed".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_sim_api.h"
#include "cupti_sim_api.h"
#include "peerwatch/abi/cupti.h"
#include "pwsim_um.h"

#define PG PWSIM_UM_PAGE
#define CPU CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID
#define ANY UINT64_MAX /* a value that is only required to be non-zero */
#define MAXREC 4096

#define K(x) CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_##x
#define READ CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ
#define WRITE CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE
#define COHERENCE CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE
/* a prefetch call's migrations: cause "user", as measured on an H200 */
#define PREFETCH CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER
#define POLICY CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_POLICY

static int g_pass, g_fail;

static void check(int ok, const char *what)
{
	if (ok)
		g_pass++;
	else
		g_fail++;
	printf("%s - %s\n", ok ? "ok" : "FAIL", what);
}

/* ---- the client's buffers ---- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static union {
	CUpti_Activity any;
	CUpti_ActivityUnifiedMemoryCounter3 um;
	CUpti_ActivityMemcpy6 cp;
	CUpti_ActivityMemcpyPtoP4 p2p;
} g_rec[MAXREC];
static size_t g_nrec;
static int g_bad_end;    /* a buffer's walk did not end with MAX_LIMIT_REACHED */
static int g_misaligned; /* a record not 8-byte aligned */
static pthread_t g_main;
static int g_off_main; /* a buffer completed on another thread */
static size_t g_bufsize = 1 << 16;

static void on_request(uint8_t **buffer, size_t *size, size_t *max)
{
	*buffer = aligned_alloc(8, g_bufsize);
	*size = g_bufsize;
	*max = 0;
}

static void on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	CUpti_Activity *r = NULL;
	CUptiResult rc;

	(void)ctx;
	(void)stream;
	(void)size;
	pthread_mutex_lock(&g_mu);
	if (!pthread_equal(pthread_self(), g_main))
		g_off_main = 1;
	while ((rc = cuptiActivityGetNextRecord(buffer, valid, &r)) == CUPTI_SUCCESS) {
		size_t n = r->kind == CUPTI_ACTIVITY_KIND_MEMCPY ? sizeof(CUpti_ActivityMemcpy6)
		           : r->kind == CUPTI_ACTIVITY_KIND_MEMCPY2
		               ? sizeof(CUpti_ActivityMemcpyPtoP4)
		               : sizeof(CUpti_ActivityUnifiedMemoryCounter3);

		if ((uintptr_t)r % 8)
			g_misaligned = 1;
		if (g_nrec < MAXREC)
			memcpy(&g_rec[g_nrec++], r, n);
	}
	if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED)
		g_bad_end = 1;
	pthread_mutex_unlock(&g_mu);
	free(buffer);
}

static void reset(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&g_mu);
	g_nrec = 0;
	pthread_mutex_unlock(&g_mu);
}

static void flush(void)
{
	cuptiActivityFlushAll(0);
}

/* ---- expected unified-memory records ---- */

struct exp {
	uint64_t value;
	uintptr_t addr;
	int ck;
	uint32_t src, dst;
	uint32_t flags;
};

static int um_matches(const CUpti_ActivityUnifiedMemoryCounter3 *r, const struct exp *e)
{
	if (r->kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER || r->counterKind != e->ck ||
	    r->address != e->addr || r->processId != (uint32_t)getpid() || r->end < r->start)
		return 0;
	if (e->value == ANY ? r->value == 0 : r->value != e->value)
		return 0;
	switch (e->ck) {
	case K(CPU_PAGE_FAULT_COUNT): return 1;
	case K(GPU_PAGE_FAULT): return r->srcId == e->src && r->flags == e->flags;
	case K(THRASHING): return r->srcId == e->src && r->processors[0] == e->src;
	/* host and device: the device at both ends, as CUPTI on an H200 */
	case K(BYTES_TRANSFER_HTOD): return r->srcId == e->dst && r->dstId == e->dst && r->flags == e->flags;
	case K(BYTES_TRANSFER_DTOH): return r->srcId == e->src && r->dstId == e->src && r->flags == e->flags;
	default: return r->srcId == e->src && r->dstId == e->dst && r->flags == e->flags;
	}
}

static void expect(const char *what, const struct exp *e, size_t n)
{
	char msg[256];
	size_t bad = n + 1;

	flush();
	pthread_mutex_lock(&g_mu);
	for (size_t i = 0; i < n && i < g_nrec && bad > n; i++)
		if (!um_matches(&g_rec[i].um, &e[i]))
			bad = i;
	if (g_nrec != n) {
		snprintf(msg, sizeof msg, "%s: %zu records, expected %zu", what, g_nrec, n);
		bad = 0;
	} else if (bad <= n) {
		const CUpti_ActivityUnifiedMemoryCounter3 *r = &g_rec[bad].um;

		snprintf(msg, sizeof msg,
		         "%s: record %zu is counter %d src %u dst %u value %llu flags %u address +%#llx",
		         what, bad, r->counterKind, r->srcId, r->dstId, (unsigned long long)r->value,
		         r->flags, (unsigned long long)(r->address - (e[bad].addr ? e[bad].addr : 0)));
	} else {
		snprintf(msg, sizeof msg, "%s", what);
	}
	g_nrec = 0;
	pthread_mutex_unlock(&g_mu);
	check(bad > n, msg);
}

#define EXPECT(what, ...)                                     \
	do {                                                  \
		const struct exp e_[] = {__VA_ARGS__};        \
		expect(what, e_, sizeof(e_) / sizeof(e_[0])); \
	} while (0)

static void expect_none(const char *what)
{
	expect(what, NULL, 0);
}

#define GF(dev, acc, a)                                                                        \
	{                                                                                      \
		.value = 1, .addr = (a), .ck = K(GPU_PAGE_FAULT), .src = (dev), .flags = (acc) \
	}
#define CF(a)                                                            \
	{                                                                \
		.value = ANY, .addr = (a), .ck = K(CPU_PAGE_FAULT_COUNT) \
	}
#define MIG(k, s, d, bytes, cause, a)                                                               \
	{                                                                                           \
		.value = (bytes), .addr = (a), .ck = K(k), .src = (s), .dst = (d), .flags = (cause) \
	}
#define MAP(s, d, bytes, a)                                                                                 \
	{                                                                                                   \
		.value = (bytes), .addr = (a), .ck = K(REMOTE_MAP), .src = (s), .dst = (d), .flags = POLICY \
	}
#define THRASH(mask, bytes, a)                                                   \
	{                                                                        \
		.value = (bytes), .addr = (a), .ck = K(THRASHING), .src = (mask) \
	}

static void configure(int without_gpu_faults)
{
	CUpti_ActivityUnifiedMemoryCounterConfig c[8];
	int n = 0;

	for (int k = K(BYTES_TRANSFER_HTOD); k < K(COUNT); k++) {
		c[n].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES;
		c[n].kind = k;
		c[n].deviceId = 0;
		c[n].enable = !(without_gpu_faults && k == K(GPU_PAGE_FAULT));
		n++;
	}
	check(cuptiActivityConfigureUnifiedMemoryCounter(c, (uint32_t)n) == CUPTI_SUCCESS,
	      "ConfigureUnifiedMemoryCounter after cuInit: success");
}

static uint64_t realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static CUcontext g_ctx[3];

static void set_dev(int d)
{
	cuCtxSetCurrent(g_ctx[d]);
}

static void setup_driver(void)
{
	cuInit(0);
	for (int d = 0; d < 3; d++)
		cuDevicePrimaryCtxRetain(&g_ctx[d], d);
	set_dev(0);
}

static CUdeviceptr managed(size_t pages)
{
	CUdeviceptr p = 0;

	cuMemAllocManaged(&p, pages * PG, CU_MEM_ATTACH_GLOBAL);
	return p;
}

/* ---- the rules ---- */

static void test_first_touch_and_migration(CUdeviceptr p)
{
	pwsim_um_touch(p, 2 * PG, 0, 1);
	EXPECT("first touch by device 0: a write fault per page, no migration", GF(0, WRITE, p),
	       GF(0, WRITE, p + PG));
	pwsim_um_touch(p, 2 * PG, 0, 0);
	expect_none("device 0 reads pages it holds: nothing");
	pwsim_um_touch(p, 2 * PG, -1, 0);
	EXPECT("CPU reads two pages of device 0: a fault each, one DtoH of both (coherence)", CF(p),
	       CF(p + PG), MIG(BYTES_TRANSFER_DTOH, 0, CPU, 2 * PG, COHERENCE, p));
	pwsim_um_touch(p, 1, 1, 1);
	EXPECT("device 1 writes a CPU page: write fault, HtoD to 1", GF(1, WRITE, p),
	       MIG(BYTES_TRANSFER_HTOD, CPU, 1, PG, COHERENCE, p));
	pwsim_um_touch(p + PG - 1, 2, 0, 0);
	EXPECT("device 0 reads across two pages (device 1's, the CPU's): two faults, two migrations",
	       GF(0, READ, p), GF(0, READ, p + PG), MIG(BYTES_TRANSFER_DTOD, 1, 0, PG, COHERENCE, p),
	       MIG(BYTES_TRANSFER_HTOD, CPU, 0, PG, COHERENCE, p + PG));
	check(pwsim_um_touch(p, 0, 0, 0) == -1, "touch of 0 bytes: -1");
	check(pwsim_um_touch(p, PG, 3, 0) == -1, "touch by device 3 of 3: -1");
	check(pwsim_um_touch(p, PG, -2, 0) == -1, "touch by processor -2: -1");
	check(pwsim_um_touch((CUdeviceptr)(uintptr_t)&g_pass, 4, 0, 0) == -1, "touch of host memory: -1");
	expect_none("refused touches make no record");
}

static void test_read_mostly(CUdeviceptr p)
{
	check(cuMemAdvise(p, PG, CU_MEM_ADVISE_SET_READ_MOSTLY, 0) == CUDA_SUCCESS,
	      "advise read-mostly (legacy)");
	pwsim_um_touch(p, PG, -1, 1);
	EXPECT("read-mostly, first touch by the CPU: a CPU fault", CF(p));
	pwsim_um_touch(p, PG, 0, 0);
	EXPECT("read-mostly read by device 0: read fault, HtoD duplicate", GF(0, READ, p),
	       MIG(BYTES_TRANSFER_HTOD, CPU, 0, PG, COHERENCE, p));
	pwsim_um_touch(p, PG, 1, 0);
	EXPECT("read-mostly read by device 1: read fault, HtoD from the original", GF(1, READ, p),
	       MIG(BYTES_TRANSFER_HTOD, CPU, 1, PG, COHERENCE, p));
	pwsim_um_touch(p, PG, 0, 0);
	pwsim_um_touch(p, PG, -1, 0);
	expect_none("read-mostly reads by holders of a copy: nothing");
	pwsim_um_touch(p, PG, 0, 1);
	EXPECT("read-mostly write by a holder of a duplicate: write fault, no migration", GF(0, WRITE, p));
	pwsim_um_touch(p, PG, 0, 1);
	expect_none("read-mostly write by the only holder: nothing");
	pwsim_um_touch(p, PG, 1, 0);
	EXPECT("device 1's copy was invalidated: read fault, DtoD from 0", GF(1, READ, p),
	       MIG(BYTES_TRANSFER_DTOD, 0, 1, PG, COHERENCE, p));
	pwsim_um_touch(p, PG, -1, 0);
	EXPECT("CPU reads: fault, DtoH duplicate", CF(p), MIG(BYTES_TRANSFER_DTOH, 0, CPU, PG, COHERENCE, p));
	pwsim_um_touch(p, PG, -1, 1);
	EXPECT("CPU writes its read-only duplicate: CPU fault, no migration", CF(p));
	pwsim_um_touch(p, PG, 2, 1);
	EXPECT("device 2 writes, no copy: write fault, HtoD", GF(2, WRITE, p),
	       MIG(BYTES_TRANSFER_HTOD, CPU, 2, PG, COHERENCE, p));
	pwsim_um_touch(p, PG, -1, 0);
	EXPECT("the CPU's copy was invalidated by device 2's write", CF(p),
	       MIG(BYTES_TRANSFER_DTOH, 2, CPU, PG, COHERENCE, p));
}

static void test_accessed_by(CUdeviceptr p)
{
	pwsim_um_touch(p, 2 * PG, 0, 1);
	EXPECT("first touch by device 0", GF(0, WRITE, p), GF(0, WRITE, p + PG));
	check(cuMemAdvise(p, 2 * PG, CU_MEM_ADVISE_SET_ACCESSED_BY, 1) == CUDA_SUCCESS,
	      "advise accessed-by 1");
	EXPECT("accessed-by device 1 of device 0's pages: one remote map of both (policy)",
	       MAP(0, 1, 2 * PG, p));
	pwsim_um_touch(p, 2 * PG, 1, 1);
	expect_none("device 1 (accessed-by, a peer) touches them: no fault, no migration");
	cuMemAdvise(p, 2 * PG, CU_MEM_ADVISE_SET_ACCESSED_BY, 2);
	expect_none("accessed-by device 2, no peer of 0: no mapping, no record");
	pwsim_um_touch(p, PG, 2, 0);
	EXPECT("device 2 (accessed-by, cannot map device 0) reads: fault and DtoD", GF(2, READ, p),
	       MIG(BYTES_TRANSFER_DTOD, 0, 2, PG, COHERENCE, p));
	cuMemAdvise(p + PG, PG, CU_MEM_ADVISE_SET_ACCESSED_BY, CU_DEVICE_CPU);
	expect_none("accessed-by the CPU: no remote map record");
	pwsim_um_touch(p + PG, PG, -1, 0);
	EXPECT("CPU (accessed-by, no HMM) reads device 0's page: fault and DtoH", CF(p + PG),
	       MIG(BYTES_TRANSFER_DTOH, 0, CPU, PG, COHERENCE, p + PG));
	pwsim_um_touch(p + PG, PG, 1, 0);
	expect_none("device 1 (accessed-by) reads the page now on the CPU: mapped, nothing");
}

static void test_preferred(CUdeviceptr p)
{
	CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0};

	check(cuMemAdvise_v2(p, 2 * PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0) == CUDA_SUCCESS,
	      "advise preferred location device 0 (_v2)");
	pwsim_um_touch(p, 2 * PG, 0, 1);
	EXPECT("first touch at the preferred location", GF(0, WRITE, p), GF(0, WRITE, p + PG));
	pwsim_um_touch(p, PG, 1, 0);
	EXPECT("peer device 1 reads a page at its preferred location: fault, remote map, no migration",
	       GF(1, READ, p), MAP(0, 1, PG, p));
	pwsim_um_touch(p, PG, 1, 1);
	expect_none("device 1 again: mapped, nothing");
	for (int round = 1; round <= 3; round++) {
		pwsim_um_touch(p, PG, -1, 0);
		if (round < 3)
			EXPECT(round == 1
			           ? "CPU reads (1st move away from the preferred location): fault, DtoH"
			           : "CPU reads (2nd move away): fault, DtoH, no thrashing",
			       CF(p), MIG(BYTES_TRANSFER_DTOH, 0, CPU, PG, COHERENCE, p));
		else
			EXPECT("CPU reads (3rd move away): fault, DtoH, thrashing of device 0", CF(p),
			       MIG(BYTES_TRANSFER_DTOH, 0, CPU, PG, COHERENCE, p), THRASH(1u << 0, PG, p));
		pwsim_um_touch(p, PG, 0, 0);
		EXPECT("device 0 takes it back: fault, HtoD", GF(0, READ, p),
		       MIG(BYTES_TRANSFER_HTOD, CPU, 0, PG, COHERENCE, p));
	}
	for (int round = 1; round <= 3; round++) {
		pwsim_um_touch(p + PG, PG, 2, 1);
		if (round < 3)
			EXPECT("device 2 (no peer) writes: fault, DtoD away from the preferred location",
			       GF(2, WRITE, p + PG), MIG(BYTES_TRANSFER_DTOD, 0, 2, PG, COHERENCE, p + PG));
		else
			EXPECT("device 2's 3rd move away: thrashing of devices 0 and 2", GF(2, WRITE, p + PG),
			       MIG(BYTES_TRANSFER_DTOD, 0, 2, PG, COHERENCE, p + PG),
			       THRASH((1u << 0) | (1u << 2), PG, p + PG));
		pwsim_um_touch(p + PG, PG, 0, 1);
		flush();
		reset();
	}
}

static void test_prefetch(CUdeviceptr p, CUdeviceptr rm)
{
	CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0}, dev2 = {CU_MEM_LOCATION_TYPE_DEVICE, 2};
	CUstream s = NULL;

	check(cuMemPrefetchAsync(p, 2 * PG, 1, NULL) == CUDA_SUCCESS, "prefetch to device 1 (legacy)");
	expect_none("prefetch of never-touched pages: populated, no record");
	pwsim_um_touch(p, 2 * PG, 1, 0);
	expect_none("device 1 reads the prefetched pages: no fault");
	check(cuMemPrefetchAsync_v2(p, 4 * PG, host, 0, NULL) == CUDA_SUCCESS, "prefetch to the host (_v2)");
	EXPECT("prefetch to the host: one DtoH of the two device pages (prefetch), none for new pages",
	       MIG(BYTES_TRANSFER_DTOH, 1, CPU, 2 * PG, PREFETCH, p));
	cuMemPrefetchAsync(p, 4 * PG, 0, NULL);
	EXPECT("prefetch of 4 CPU pages to device 0: one HtoD (prefetch)",
	       MIG(BYTES_TRANSFER_HTOD, CPU, 0, 4 * PG, PREFETCH, p));
	cuMemPrefetchAsync(p, 4 * PG, 0, NULL);
	expect_none("prefetch to where the pages are: nothing");
	cuMemPrefetchAsync_v2(rm, PG, dev2, 0, NULL);
	expect_none("prefetch of a read-mostly page to device 2, which has it: nothing");
	cuMemPrefetchAsync(rm, PG, 1, NULL);
	EXPECT("prefetch of a read-mostly page (on device 2) to device 1: a DtoD duplicate (prefetch)",
	       MIG(BYTES_TRANSFER_DTOD, 2, 1, PG, PREFETCH, rm));
	pwsim_um_touch(rm, PG, 1, 0);
	pwsim_um_touch(rm, PG, 2, 0);
	pwsim_um_touch(rm, PG, -1, 0);
	expect_none("every copy stays: reads on devices 1, 2 and the CPU fault nowhere");
	{
		CUdeviceptr ptrs[1] = {p};
		size_t sizes[1] = {PG}, idx[1] = {0};
		CUmemLocation locs[1] = {dev2};

		cuStreamCreate(&s, 0);
		check(cuMemPrefetchBatchAsync(ptrs, sizes, 1, locs, idx, 1, 0, s) == CUDA_SUCCESS,
		      "batch prefetch");
		EXPECT("batch prefetch to device 2: DtoD (prefetch)",
		       MIG(BYTES_TRANSFER_DTOD, 0, 2, PG, PREFETCH, p));
		cuStreamDestroy_v2(s);
	}
}

static void test_counters_configured(CUdeviceptr p)
{
	CUpti_ActivityUnifiedMemoryCounterConfig c = {
	    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES, K(GPU_PAGE_FAULT), 0, 0};

	check(cuptiActivityConfigureUnifiedMemoryCounter(&c, 1) == CUPTI_ERROR_INVALID_OPERATION,
	      "configure while the kind is enabled: CUPTI_ERROR_INVALID_OPERATION");
	c.kind = 99;
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	check(cuptiActivityConfigureUnifiedMemoryCounter(&c, 1) == CUPTI_ERROR_INVALID_PARAMETER,
	      "configure counter kind 99: CUPTI_ERROR_INVALID_PARAMETER");
	pwsim_um_touch(p, PG, 0, 1);
	expect_none("unified-memory kind disabled: no records");
	configure(1);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	pwsim_um_touch(p, PG, 1, 1);
	EXPECT("GPU faults not configured: the migration alone",
	       MIG(BYTES_TRANSFER_DTOD, 0, 1, PG, COHERENCE, p));
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	configure(0);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
}

/* ---- copies ---- */

static void test_memcpy(void)
{
	CUdeviceptr d0 = 0, d0b = 0, d1 = 0;
	CUstream s = NULL;
	char host[4096] = {0};
	uint32_t sid = 0, legacy = 0, pt = 0, cid = 0;
	int ok;

	set_dev(1);
	cuMemAlloc_v2(&d1, 8192);
	set_dev(0);
	cuMemAlloc_v2(&d0, 8192);
	cuMemAlloc_v2(&d0b, 8192);
	cuStreamCreate(&s, 0);
	check(cuptiGetStreamIdEx(NULL, s, 0, &sid) == CUPTI_SUCCESS && sid, "cuptiGetStreamIdEx of a stream");
	check(cuptiGetStreamIdEx(NULL, NULL, 0, &legacy) == CUPTI_SUCCESS && legacy && legacy != sid,
	      "cuptiGetStreamIdEx of the NULL stream: its own id");
	check(cuptiGetStreamIdEx(NULL, NULL, 1, &pt) == CUPTI_SUCCESS && pt && pt != sid && pt != legacy,
	      "cuptiGetStreamIdEx of the per-thread stream: its own id");
	check(cuptiGetStreamIdEx(NULL, (CUstream)&host, 0, &cid) == CUPTI_ERROR_INVALID_STREAM,
	      "cuptiGetStreamIdEx of a made-up stream: CUPTI_ERROR_INVALID_STREAM");
	check(cuptiGetStreamIdEx(g_ctx[1], s, 0, &cid) == CUPTI_ERROR_INVALID_STREAM,
	      "cuptiGetStreamIdEx of a stream of another context: CUPTI_ERROR_INVALID_STREAM");
	check(cuptiGetStreamIdEx(g_ctx[0], s, 0, &cid) == CUPTI_SUCCESS && cid == sid,
	      "cuptiGetStreamIdEx with its own context: the same id");
	reset();
	cuMemcpyPeerAsync(d1, g_ctx[1], d0, g_ctx[0], 4096, s);
	cuMemcpyAsync(d0, (CUdeviceptr)(uintptr_t)host, 4096, NULL);
	cuMemcpyAsync_ptsz((CUdeviceptr)(uintptr_t)host, d0, 2048, NULL);
	cuMemcpyDtoDAsync_v2(d0b, d0, 1024, CU_STREAM_LEGACY);
	cuMemcpy3DPeerAsync(&(CUDA_MEMCPY3D_PEER){.srcMemoryType = CU_MEMORYTYPE_DEVICE,
	                                          .srcDevice = d1,
	                                          .srcContext = g_ctx[1],
	                                          .dstMemoryType = CU_MEMORYTYPE_DEVICE,
	                                          .dstDevice = d0,
	                                          .dstContext = g_ctx[0],
	                                          .WidthInBytes = 512,
	                                          .Height = 2,
	                                          .Depth = 1},
	                    s);
	cuMemcpy(d0b, d0, 512);
	cuMemcpyPeer(d1, g_ctx[1], d0, g_ctx[0], 512);
	flush();
	pthread_mutex_lock(&g_mu);
	ok = g_nrec == 5;
	check(ok, "five asynchronous copies: five records; the synchronous copies none");
	if (ok) {
		const CUpti_ActivityMemcpyPtoP4 *a = &g_rec[0].p2p, *e = &g_rec[4].p2p;
		const CUpti_ActivityMemcpy6 *b = &g_rec[1].cp, *c = &g_rec[2].cp, *d = &g_rec[3].cp;

		check(a->kind == CUPTI_ACTIVITY_KIND_MEMCPY2 &&
		          a->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP && a->bytes == 4096 &&
		          a->srcDeviceId == 0 && a->dstDeviceId == 1 && a->streamId == sid &&
		          a->srcContextId != a->dstContextId && a->deviceId == 0 && a->end >= a->start,
		      "cuMemcpyPeerAsync: MEMCPY2, PTOP, 4096 bytes, device 0 to 1, the stream's id");
		check(b->kind == CUPTI_ACTIVITY_KIND_MEMCPY &&
		          b->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD && b->bytes == 4096 &&
		          b->deviceId == 0 && b->streamId == legacy,
		      "cuMemcpyAsync host to device on NULL: MEMCPY, HTOD, the NULL stream's id");
		check(c->kind == CUPTI_ACTIVITY_KIND_MEMCPY &&
		          c->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH && c->bytes == 2048 &&
		          c->streamId == pt,
		      "cuMemcpyAsync_ptsz device to host on NULL: DTOH, the per-thread stream's id");
		check(d->kind == CUPTI_ACTIVITY_KIND_MEMCPY &&
		          d->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD && d->bytes == 1024 &&
		          d->streamId == legacy && d->contextId == b->contextId,
		      "cuMemcpyDtoDAsync_v2 on CU_STREAM_LEGACY: DTOD, the NULL stream's id");
		check(e->kind == CUPTI_ACTIVITY_KIND_MEMCPY2 && e->bytes == 1024 && e->srcDeviceId == 1 &&
		          e->dstDeviceId == 0 && e->streamId == sid,
		      "cuMemcpy3DPeerAsync device 1 to 0: MEMCPY2, 1024 bytes");
		check(a->correlationId < b->correlationId && b->correlationId < c->correlationId &&
		          c->correlationId < d->correlationId && d->correlationId < e->correlationId,
		      "correlation ids increase");
	}
	g_nrec = 0;
	pthread_mutex_unlock(&g_mu);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY2);
	cuMemcpyPeerAsync(d1, g_ctx[1], d0, g_ctx[0], 4096, s);
	flush();
	pthread_mutex_lock(&g_mu);
	check(g_nrec == 0, "MEMCPY2 disabled: a peer copy gives no record");
	pthread_mutex_unlock(&g_mu);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2);
	cuStreamDestroy_v2(s);
	cuMemFree_v2(d0);
	cuMemFree_v2(d0b);
	cuMemFree_v2(d1);
}

/* ---- clock, thread, knobs ---- */

static uint64_t g_fake;
static uint64_t fake_clock(void)
{
	return __atomic_add_fetch(&g_fake, 1000, __ATOMIC_SEQ_CST);
}

static void test_clock_and_thread(CUdeviceptr p)
{
	uint64_t t0, t1, ts = 0;
	int ok = 1;

	reset();
	cuptiGetTimestamp(&t0);
	check(t0 >= realtime() - 1000000000ull && t0 <= realtime(), "cuptiGetTimestamp: CLOCK_REALTIME ns");
	pwsim_um_touch(p, PG, 0, 1);
	t1 = realtime();
	flush();
	pthread_mutex_lock(&g_mu);
	ok = g_nrec == 1 && g_rec[0].um.start >= t0 && g_rec[0].um.start <= t1 &&
	     g_rec[0].um.end == g_rec[0].um.start + 20000;
	g_nrec = 0;
	pthread_mutex_unlock(&g_mu);
	check(ok, "no timestamp callback: records in CLOCK_REALTIME, a GPU fault lasts 20 us");

	check(cuptiFinalize() == CUPTI_SUCCESS, "cuptiFinalize");
	pwsim_um_touch(p, PG, 1, 1);
	flush();
	pthread_mutex_lock(&g_mu);
	check(g_nrec == 0, "after cuptiFinalize: no records");
	pthread_mutex_unlock(&g_mu);
	check(cuptiActivityRegisterTimestampCallback(NULL) == CUPTI_ERROR_INVALID_PARAMETER,
	      "timestamp callback NULL: CUPTI_ERROR_INVALID_PARAMETER");
	g_fake = 5000000;
	cuptiActivityRegisterTimestampCallback(fake_clock);
	cuptiActivityRegisterCallbacks(on_request, on_complete);
	configure(0);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	pwsim_um_touch(p, PG, 0, 1);
	flush();
	pthread_mutex_lock(&g_mu);
	ok = g_nrec == 2 && g_rec[0].um.start == 5001000 && g_rec[1].um.start == 5002000 &&
	     g_rec[1].um.end == 5002000 + PG / 50;
	g_nrec = 0;
	pthread_mutex_unlock(&g_mu);
	check(ok, "timestamp callback: the clock of every record (migration: bytes at 50 GB/s)");
	cuptiGetTimestamp(&ts);
	check(ts == 5003000, "cuptiGetTimestamp with a callback: the callback's time");

	/* the delivery thread, without a flush */
	g_off_main = 0;
	pwsim_um_touch(p, PG, 1, 1);
	for (int i = 0; i < 200; i++) {
		int n;

		pthread_mutex_lock(&g_mu);
		n = (int)g_nrec;
		pthread_mutex_unlock(&g_mu);
		if (n == 2)
			break;
		usleep(10000);
	}
	pthread_mutex_lock(&g_mu);
	check(g_nrec == 2 && g_off_main, "records delivered without a flush, on CUPTI's thread");
	g_nrec = 0;
	pthread_mutex_unlock(&g_mu);
}

static void test_api(void)
{
	const char *s = NULL;
	uint8_t buf[64] = {0};
	CUpti_Activity *r = NULL;

	check(cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &s) == CUPTI_SUCCESS &&
	          s && !strcmp(s, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
	      "cuptiGetResultString(39)");
	check(cuptiGetResultString(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED, &s) == CUPTI_SUCCESS &&
	          !strcmp(s, "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"),
	      "cuptiGetResultString(28)");
	check(cuptiGetResultString(123456, &s) == CUPTI_ERROR_INVALID_PARAMETER,
	      "cuptiGetResultString of an unknown value: CUPTI_ERROR_INVALID_PARAMETER");
	check(cuptiActivityGetNextRecord(buf, 0, &r) == CUPTI_ERROR_MAX_LIMIT_REACHED,
	      "GetNextRecord of an empty buffer: CUPTI_ERROR_MAX_LIMIT_REACHED");
	check(cuptiActivityEnable(12345) == CUPTI_ERROR_NOT_COMPATIBLE,
	      "enable of an unsupported kind: refused");
}

/* ---- child runs, with an environment knob ---- */

static void child_busy(void)
{
	check(cuptiActivityRegisterCallbacks(on_request, on_complete) ==
	          CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
	      "PWSIM_CUPTI=busy: RegisterCallbacks answers MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
	check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) ==
	          CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
	      "PWSIM_CUPTI=busy: Enable answers MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
}

static void child_noum(void)
{
	CUpti_ActivityUnifiedMemoryCounterConfig c = {
	    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES, K(GPU_PAGE_FAULT), 0, 1};

	setup_driver();
	check(cuptiActivityConfigureUnifiedMemoryCounter(&c, 1) == CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED,
	      "PWSIM_CUPTI=noum: configure answers UM_PROFILING_NOT_SUPPORTED");
	check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS,
	      "PWSIM_CUPTI=noum: copies can still be enabled");
}

static void child_queue(void)
{
	CUdeviceptr p;
	size_t dropped = 0;

	setup_driver();
	configure(0);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	p = managed(10);
	/* 10 faults, queued until a client registers its buffers */
	pwsim_um_touch(p, 10 * PG, 0, 1);
	cuptiActivityRegisterCallbacks(on_request, on_complete);
	flush();
	cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
	pthread_mutex_lock(&g_mu);
	check(g_nrec == 4 && dropped == 6, "PWSIM_CUPTI_QUEUE=4: 4 records delivered, 6 dropped");
	pthread_mutex_unlock(&g_mu);
}

static void child_pageable(void)
{
	CUdeviceptr p;

	setup_driver();
	cuptiActivityRegisterCallbacks(on_request, on_complete);
	configure(0);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	p = managed(2);
	pwsim_um_touch(p, 2 * PG, 0, 1);
	reset();
	cuMemAdvise(p, PG, CU_MEM_ADVISE_SET_ACCESSED_BY, CU_DEVICE_CPU);
	pwsim_um_touch(p, PG, -1, 0);
	expect_none("PWSIM_PAGEABLE=1: CPU accessed-by reads a device page: mapped, no fault");
	cuMemAdvise(p + PG, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 0);
	pwsim_um_touch(p + PG, PG, -1, 0);
	EXPECT("PWSIM_PAGEABLE=1: CPU reads a page at its preferred device: fault, remote map", CF(p + PG),
	       MAP(0, CPU, PG, p + PG));
}

static void run_child(const char *self, const char *env, const char *mode)
{
	char cmd[1024], line[512];
	FILE *f;
	int p = 0, fl = 0, got = 0;

	snprintf(cmd, sizeof cmd, "%s '%s' %s", env, self, mode);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "child: %d passed, %d failed", &p, &fl) == 2)
			got = 1;
		else
			fputs(line, stdout);
	}
	if (f)
		pclose(f);
	g_pass += p;
	g_fail += fl;
	if (!got)
		check(0, mode);
}

int main(int argc, char **argv)
{
	CUpti_ActivityUnifiedMemoryCounterConfig c = {
	    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES, K(GPU_PAGE_FAULT), 0, 1};
	char self[512];
	ssize_t n;
	CUdeviceptr p;

	g_main = pthread_self();
	setenv("PWSIM_DEVICES", "3", 1);
	setenv("PWSIM_PEERS", "0-1", 1);
	unsetenv("CUDA_VISIBLE_DEVICES");
	if (argc > 1) {
		if (!strcmp(argv[1], "busy"))
			child_busy();
		else if (!strcmp(argv[1], "noum"))
			child_noum();
		else if (!strcmp(argv[1], "queue"))
			child_queue();
		else if (!strcmp(argv[1], "pageable"))
			child_pageable();
		printf("child: %d passed, %d failed\n", g_pass, g_fail);
		return g_fail != 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	unsetenv("PWSIM_CUPTI");
	unsetenv("PWSIM_CUPTI_QUEUE");
	unsetenv("PWSIM_PAGEABLE");

	check(cuptiActivityConfigureUnifiedMemoryCounter(&c, 1) == CUPTI_ERROR_NOT_INITIALIZED,
	      "ConfigureUnifiedMemoryCounter before cuInit: CUPTI_ERROR_NOT_INITIALIZED");
	setup_driver();
	check(cuptiActivityRegisterCallbacks(on_request, on_complete) == CUPTI_SUCCESS, "RegisterCallbacks");
	configure(0);
	check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) == CUPTI_SUCCESS &&
	          cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS &&
	          cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2) == CUPTI_SUCCESS,
	      "enable the unified-memory and copy kinds");
	p = managed(16);
	check(p != 0, "cuMemAllocManaged of 16 pages");
	test_first_touch_and_migration(p);
	test_read_mostly(p + 2 * PG);
	test_accessed_by(p + 4 * PG);
	test_preferred(p + 6 * PG);
	test_prefetch(p + 8 * PG, p + 2 * PG);
	test_counters_configured(p + 12 * PG);
	test_memcpy();
	test_api();
	pthread_mutex_lock(&g_mu);
	check(!g_bad_end && !g_misaligned,
	      "every buffer walked to CUPTI_ERROR_MAX_LIMIT_REACHED, records aligned");
	pthread_mutex_unlock(&g_mu);
	test_clock_and_thread(p + 14 * PG);
	cuMemFree_v2(p);

	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		run_child(self, "PWSIM_CUPTI=busy", "busy");
		run_child(self, "PWSIM_CUPTI=noum", "noum");
		run_child(self, "PWSIM_CUPTI_QUEUE=4", "queue");
		run_child(self, "PWSIM_PAGEABLE=1", "pageable");
	}
	printf("cupti_selftest: %d passed, %d failed\n", g_pass, g_fail);
	return g_fail != 0;
}

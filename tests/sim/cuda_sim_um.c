/*
 * Simulated CUDA driver: where managed memory's pages are, and the records a
 * CUPTI activity consumer receives about them (unified-memory counters) and
 * about asynchronous copies (memcpy records).  The bytes never move (all of
 * them are host memory); what this file keeps is which processor each
 * 64 KiB page (PWSIM_UM_PAGE) lives on, so that a test can touch pages
 * (pwsim_um_touch, tests/sim/pwsim_um.h) and get the faults and migrations a
 * real driver would report, deterministically.
 *
 * Sources: the CUDA Programming Guide's unified memory section ("Unified
 * Memory Programming": first touch populates, faults migrate pages to the
 * accessing processor; "Performance Tuning / Data Usage Hints": the
 * advice), cuda.h's cuMemAdvise text (:14449-14528) and cuMemPrefetchAsync
 * text (:14384-14401), and CUPTI's record (cupti_activity.h :4679-4809).
 * The advice is cuda_sim_managed.c's, per CPU page; a 64 KiB page follows
 * the advice of its first CPU page (choice).
 *
 * The rules, for a touch of page q by processor P (a device ordinal, or the
 * CPU):
 * - q never touched: a fault on P (CPU or GPU fault), q populated on P, no
 *   migration (guide: pages are populated on first touch).
 * - read-mostly q (cuda.h :14449-14457; it overrides the other advice,
 *   :14495, :14522): a read by a processor with no copy faults and gets a
 *   read-only duplicate (a migration record, cause coherence, from where q
 *   lives; the original stays).  A write invalidates every other copy
 *   (:14455); the writer faults (GPU: access type write) and, if it held no
 *   copy, q migrates to it (cause coherence).  Choice: while copies exist,
 *   every copy is write-protected, so a write by a processor that holds one
 *   (the CPU's read-only duplicate included) faults too; a write by the only
 *   holder does not.
 * - q held by P: nothing.
 * - accessed-by P (cuda.h :14509-14520): a device in the set maps q where it
 *   is, if it can (q on the CPU, or on a peer device, PWSIM_PEERS): no
 *   fault, no migration.  The CPU in the set maps device memory only with
 *   PWSIM_PAGEABLE=1 (HMM/ATS); without it "the data may be migrated to host
 *   memory because the CPU typically cannot access device memory directly"
 *   (:14518): fault and migration.  When ACCESSED_BY is set for device d,
 *   one remote-map record (src: where the pages are, dst: d, cause policy)
 *   per run of pages resident elsewhere that d can map.
 * - preferred location X, q at X, P can map X (cuda.h :14484-14488: "if the
 *   faulting processor can establish a mapping without requiring the data to
 *   be migrated, then data migration will be avoided"): the first touch by P
 *   faults and makes a mapping (remote-map record, cause policy); later
 *   touches by P do not fault.  Otherwise q migrates to P.
 * - anything else: a fault on P and a migration of q to P (cause
 *   coherence); mappings to the old place are gone.
 * - thrashing (choice, a deterministic stand-in for the driver's detection,
 *   cuda.h :14491-14494): the 3rd migration of q away from its preferred
 *   location by a touch, and every 3rd after, gives a thrashing record
 *   (srcId and processors[0]: the bit of each device among X and P; value:
 *   the page's bytes).
 * - prefetch to D (cuMemPrefetchAsync[_v2][_ptsz], the batch prefetch):
 *   never-touched pages are populated at D without a record; read-mostly
 *   pages D has no copy of get one (migration record, cuda.h :14394-14395);
 *   other pages not at D migrate.  The cause is "user": what CUPTI gave for
 *   cudaMemPrefetchAsync's migrations on an H200 (driver 580, 2026-12-03;
 *   its "prefetch" cause is the driver's own speculative prefetching, which
 *   is not modelled).  No faults.  A host location (any NUMA node) is the
 *   CPU.  With PWSIM_UM_PREFETCH=deferred a prefetch takes effect at the
 *   next stream or context synchronize of the process instead of at the
 *   call: a prefetch enqueued behind other work (choice: the simulator's
 *   streams have no work to wait behind otherwise).
 * - UNSET_READ_MOSTLY collapses the copies (cuda.h :14469-14473): to the
 *   preferred location if it held one, else where q lived; no record.
 *
 * Records (CUpti_ActivityUnifiedMemoryCounter3): one fault record per page;
 * one migration record (BYTES_TRANSFER_HTOD, _DTOH or _DTOD by its ends, value
 * the bytes, flags the cause) per run of contiguous pages with the same
 * source, destination and cause, and the same for remote maps, emitted when
 * the run ends (after the faults of its pages; a thrashing record follows
 * the migration it is about).  A page's
 * bytes stop at the allocation's size.  srcId/dstId: the visible ordinal, or
 * CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID; a migration between the host and a
 * device names the device at both ends, as CUPTI did on an H200.  A CPU fault's value is the program
 * counter of pwsim_um_touch's caller; a GPU fault's value is 1 (one fault
 * group) and its flags the access type.  streamId is 0 (the header says the
 * field "is invalid", :4770).  Durations (choices): a migration bytes at
 * 50 GB/s, a GPU fault 20 us, a CPU fault 5 us; where the header says to
 * ignore the end (CPU faults, thrashing, remote maps, :4727-4731), end =
 * start.
 *
 * Copy records: while CUPTI_ACTIVITY_KIND_MEMCPY or _MEMCPY2 is enabled, each
 * asynchronous copy gives one: MEMCPY2 (CUpti_ActivityMemcpyPtoP4, copy kind
 * PTOP) when both sides are memory of two different devices, else MEMCPY
 * (CUpti_ActivityMemcpy6: HTOD, DTOH, DTOD or HTOH; managed memory counts as
 * its allocating device's).  The duration: bytes at 50 GB/s (choice).
 *
 * Records exist only while a consumer has asked for them
 * (pwsim_cupti_configure, from the simulated libcupti); the queue is
 * bounded and what does not fit is counted as dropped.  The model runs under
 * the driver's lock; the queue has its own, taken inside it.
 */
#include "sim_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pwsim_cupti.h"
#include "pwsim_um.h"

#define UM_NONE (-2) /* never touched */
#define UM_CPU (-1)

#define GPU_FAULT_NS 20000ull
#define CPU_FAULT_NS 5000ull
#define BYTES_PER_NS 50ull /* 50 GB/s */
#define QUEUE_DEFAULT 65536

struct pwsim_um_page {
	int loc;             /* UM_NONE, UM_CPU or a device ordinal */
	uint64_t dup;        /* devices holding a read-only duplicate */
	int dup_cpu;         /* the CPU holds one */
	uint64_t mapped;     /* devices that mapped the page at its preferred location */
	int mapped_cpu;      /* the CPU did (PWSIM_PAGEABLE=1) */
	unsigned moves_away; /* migrations away from the preferred location by a touch */
};

/* ======================================================================== */
/* the record queue                                                         */

static pthread_mutex_t g_qmu = PTHREAD_MUTEX_INITIALIZER;
static struct pwsim_cupti_config g_cfg;
static union pwsim_cupti_record *g_q;
static size_t g_qcap, g_qhead, g_qlen;
static uint64_t g_dropped;
static uint32_t g_correlation;

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (g_cfg.clock)
		return g_cfg.clock();
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Caller holds g_qmu. */
static void q_push(const union pwsim_cupti_record *r)
{
	if (g_qlen == g_qcap) {
		g_dropped++;
		return;
	}
	g_q[(g_qhead + g_qlen) % g_qcap] = *r;
	g_qlen++;
}

__attribute__((visibility("default"))) void pwsim_cupti_configure(const struct pwsim_cupti_config *c)
{
	size_t cap = c->queue ? c->queue : QUEUE_DEFAULT;

	pthread_mutex_lock(&g_qmu);
	g_cfg = *c;
	g_cfg.queue = cap;
	/* A new size takes effect once the queue is empty. */
	if (cap != g_qcap && g_qlen == 0) {
		union pwsim_cupti_record *q = realloc(g_q, cap * sizeof(*q));

		if (q) {
			g_q = q;
			g_qcap = cap;
			g_qhead = 0;
		}
	}
	pthread_mutex_unlock(&g_qmu);
}

__attribute__((visibility("default"))) int pwsim_cupti_ready(void)
{
	return pwsim_ready() == CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int pwsim_cupti_pop(union pwsim_cupti_record *r)
{
	int got = 0;

	pthread_mutex_lock(&g_qmu);
	if (g_qlen) {
		*r = g_q[g_qhead];
		g_qhead = (g_qhead + 1) % g_qcap;
		g_qlen--;
		got = 1;
	}
	pthread_mutex_unlock(&g_qmu);
	return got;
}

__attribute__((visibility("default"))) size_t pwsim_cupti_pending(void)
{
	size_t n;

	pthread_mutex_lock(&g_qmu);
	n = g_qlen;
	pthread_mutex_unlock(&g_qmu);
	return n;
}

__attribute__((visibility("default"))) uint64_t pwsim_cupti_dropped(void)
{
	uint64_t n;

	pthread_mutex_lock(&g_qmu);
	n = g_dropped;
	pthread_mutex_unlock(&g_qmu);
	return n;
}

__attribute__((visibility("default"))) int pwsim_cupti_stream_id(CUcontext ctx, CUstream s, int per_thread,
                                                                 uint32_t *id)
{
	struct CUctx_st *c = NULL;
	int rc;

	if (!pwsim_cupti_ready())
		return -1;
	pwsim_lock();
	if (ctx && !pwsim_ctx_check(ctx)) {
		pwsim_unlock();
		return -1;
	}
	rc = pwsim_stream_cupti(s, per_thread, ctx, &c, id);
	if (rc == 0 && ctx && c != ctx)
		rc = -1;
	pwsim_unlock();
	return rc;
}

/* ======================================================================== */
/* unified-memory records                                                   */

static uint32_t proc_id(int proc)
{
	return proc == UM_CPU ? CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID : (uint32_t)proc;
}

static uint64_t dev_bit(int proc)
{
	return proc >= 0 ? 1ull << proc : 0;
}

/* Whether records of this counter kind are wanted (caller holds g_qmu). */
static int um_wanted(int counter)
{
	return g_cfg.um && ((g_cfg.um_counters >> counter) & 1) && g_qcap;
}

static void um_record(int counter, uint64_t value, uintptr_t addr, uint32_t src, uint32_t dst, uint32_t flags,
                      uint64_t duration, uint64_t procs)
{
	union pwsim_cupti_record r;

	pthread_mutex_lock(&g_qmu);
	if (um_wanted(counter)) {
		memset(&r, 0, sizeof(r));
		r.um.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
		r.um.counterKind = counter;
		r.um.value = value;
		r.um.start = now_ns();
		r.um.end = r.um.start + duration;
		r.um.address = addr;
		r.um.srcId = src;
		r.um.dstId = dst;
		/* Between the host and a device, CUPTI names the device at both
		 * ends: srcId = dstId = the device (H200, driver 580, CUDA 13.0's
		 * CUPTI, 2026-12-03); the kind says the direction. */
		if (counter == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD)
			r.um.srcId = dst;
		else if (counter == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH)
			r.um.dstId = src;
		r.um.streamId = 0;
		r.um.processId = (uint32_t)getpid();
		r.um.flags = flags;
		r.um.processors[0] = procs;
		q_push(&r);
	}
	pthread_mutex_unlock(&g_qmu);
}

/* A run of contiguous pages with the same ends and cause, to be one record. */
struct um_run {
	int open;
	int remote; /* a remote map, else a migration */
	int src, dst;
	uint32_t cause;
	uintptr_t addr;
	uint64_t bytes;
};

/* What one call does: its open runs and the program counter of a CPU fault. */
struct um_op {
	struct um_run mig, map;
	uintptr_t pc;
};

static void run_flush(struct um_run *r)
{
	int counter;

	if (!r->open)
		return;
	r->open = 0;
	if (r->remote) {
		um_record(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP, r->bytes, r->addr,
		          proc_id(r->src), proc_id(r->dst), r->cause, 0, 0);
		return;
	}
	if (r->src == UM_CPU)
		counter = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
	else if (r->dst == UM_CPU)
		counter = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
	else
		counter = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD;
	um_record(counter, r->bytes, r->addr, proc_id(r->src), proc_id(r->dst), r->cause,
	          r->bytes / BYTES_PER_NS, 0);
}

static void run_add(struct um_run *r, int remote, int src, int dst, uint32_t cause, uintptr_t addr,
                    uint64_t bytes)
{
	if (r->open && r->src == src && r->dst == dst && r->cause == cause && r->addr + r->bytes == addr) {
		r->bytes += bytes;
		return;
	}
	run_flush(r);
	*r = (struct um_run){1, remote, src, dst, cause, addr, bytes};
}

static void op_end(struct um_op *op)
{
	run_flush(&op->mig);
	run_flush(&op->map);
}

static void fault(struct um_op *op, int proc, uintptr_t addr, int write)
{
	if (proc == UM_CPU)
		um_record(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT, op->pc, addr,
		          CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID, 0, 0, 0, 0);
	else
		um_record(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, 1, addr, (uint32_t)proc,
		          0,
		          write ? CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE
		                : CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ,
		          GPU_FAULT_NS, 0);
}

/* ======================================================================== */
/* residency                                                                */

/* The pages' state, made on first use (lock held); NULL if out of memory. */
static struct pwsim_um_page *pages_of(struct pwsim_alloc *a)
{
	size_t n = (a->size + PWSIM_UM_PAGE - 1) / PWSIM_UM_PAGE;

	if (a->um)
		return a->um;
	a->um = calloc(n, sizeof(*a->um));
	if (!a->um)
		return NULL;
	a->um_npages = n;
	for (size_t i = 0; i < n; i++)
		a->um[i].loc = UM_NONE;
	return a->um;
}

void pwsim_um_forget(struct pwsim_alloc *a)
{
	free(a->um);
	a->um = NULL;
	a->um_npages = 0;
}

static size_t cpu_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* The advice of 64 KiB page i: that of its first CPU page. */
static const struct pwsim_seg *advice_of(const struct pwsim_alloc *a, size_t i)
{
	return pwsim_managed_seg(a, i * PWSIM_UM_PAGE / cpu_page_size());
}

static uint64_t page_bytes(const struct pwsim_alloc *a, size_t i)
{
	size_t off = i * PWSIM_UM_PAGE;

	return a->size - off < PWSIM_UM_PAGE ? a->size - off : PWSIM_UM_PAGE;
}

/* A location of the advice as a processor: UM_CPU, a device, or UM_NONE. */
static int loc_proc(CUmemLocation l)
{
	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE: return l.id;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return UM_CPU;
	default: return UM_NONE;
	}
}

/* Whether processor p can map memory that lives on processor at. */
static int can_map(int p, int at)
{
	if (p == at)
		return 1;
	if (p == UM_CPU)
		return pwsim_cfg()->pageable;
	if (at == UM_CPU)
		return 1;
	return pwsim_can_access(p, at);
}

static int holds(const struct pwsim_um_page *q, int p)
{
	if (q->loc == p)
		return 1;
	return p == UM_CPU ? q->dup_cpu : (int)(q->dup >> p & 1);
}

static int has_other_copies(const struct pwsim_um_page *q, int p)
{
	uint64_t devs = q->dup | dev_bit(q->loc);
	int cpu = q->dup_cpu || q->loc == UM_CPU;

	devs &= ~dev_bit(p);
	if (p == UM_CPU)
		cpu = 0;
	return devs || cpu;
}

static void add_copy(struct pwsim_um_page *q, int p)
{
	if (p == UM_CPU)
		q->dup_cpu = 1;
	else if (p >= 0)
		q->dup |= 1ull << p;
}

/* q now lives on p alone. */
static void settle(struct pwsim_um_page *q, int p)
{
	q->loc = p;
	q->dup = 0;
	q->dup_cpu = 0;
	q->mapped = 0;
	q->mapped_cpu = 0;
}

static int mapped(const struct pwsim_um_page *q, int p)
{
	return p == UM_CPU ? q->mapped_cpu : (int)(q->mapped >> p & 1);
}

static void set_mapped(struct pwsim_um_page *q, int p)
{
	if (p == UM_CPU)
		q->mapped_cpu = 1;
	else if (p >= 0)
		q->mapped |= 1ull << p;
}

static int accessed_by(const struct pwsim_seg *s, int p)
{
	return p == UM_CPU ? s->accessed_by_host : (int)(s->accessed_by >> p & 1);
}

/* A touch of page i by p. */
static void touch_page(struct um_op *op, struct pwsim_alloc *a, size_t i, int p, int write)
{
	struct pwsim_um_page *q = &a->um[i];
	const struct pwsim_seg *s = advice_of(a, i);
	uintptr_t addr = a->base + i * PWSIM_UM_PAGE;
	uint64_t bytes = page_bytes(a, i);
	int from = q->loc, pref = loc_proc(s->preferred);

	if (from == UM_NONE) {
		fault(op, p, addr, write);
		settle(q, p);
		return;
	}
	if (s->read_mostly) {
		int had = holds(q, p);

		if (!write) {
			if (!had) {
				fault(op, p, addr, write);
				run_add(&op->mig, 0, from, p,
				        CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE, addr, bytes);
				add_copy(q, p);
			}
			return;
		}
		if (had && !has_other_copies(q, p))
			return;
		fault(op, p, addr, write);
		if (!had)
			run_add(&op->mig, 0, from, p, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE,
			        addr, bytes);
		settle(q, p);
		return;
	}
	if (holds(q, p))
		return;
	if (accessed_by(s, p) && can_map(p, from))
		return;
	if (pref == from && can_map(p, from)) {
		if (!mapped(q, p)) {
			fault(op, p, addr, write);
			run_add(&op->map, 1, from, p, CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_POLICY,
			        addr, bytes);
			set_mapped(q, p);
		}
		return;
	}
	fault(op, p, addr, write);
	run_add(&op->mig, 0, from, p, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE, addr, bytes);
	settle(q, p);
	if (pref == from && ++q->moves_away % 3 == 0) {
		run_flush(&op->mig); /* the migration, then what it was */
		um_record(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, bytes, addr,
		          (uint32_t)(dev_bit(from) | dev_bit(p)), 0, 0, 0, dev_bit(from) | dev_bit(p));
	}
}

/* The 64 KiB pages [*first, *end) that [p, p+n) touches in a. */
static void page_span(const struct pwsim_alloc *a, uintptr_t p, size_t n, size_t *first, size_t *end)
{
	*first = (p - a->base) / PWSIM_UM_PAGE;
	*end = (p - a->base + n + PWSIM_UM_PAGE - 1) / PWSIM_UM_PAGE;
	if (*end > a->um_npages)
		*end = a->um_npages;
}

__attribute__((visibility("default"))) int pwsim_um_touch(CUdeviceptr p, size_t bytes, int proc, int write)
{
	struct um_op op = {.pc = (uintptr_t)__builtin_return_address(0)};
	struct pwsim_alloc *a;
	size_t first, end;
	int rc = -1;

	if (!bytes || (proc != UM_CPU && (pwsim_ready() || !pwsim_valid_device(proc))))
		return -1;
	pwsim_lock();
	a = pwsim_find_range((uintptr_t)p, bytes);
	if (a && a->kind == PWSIM_KIND_MANAGED && pages_of(a)) {
		page_span(a, (uintptr_t)p, bytes, &first, &end);
		for (size_t i = first; i < end; i++)
			touch_page(&op, a, i, proc, write);
		op_end(&op);
		rc = 0;
	}
	pwsim_unlock();
	return rc;
}

/* PWSIM_UM_PREFETCH=deferred: prefetches wait for the next synchronize. */
#define UM_DEFERRED_MAX 256
static struct {
	uintptr_t p;
	size_t count;
	CUmemLocation loc;
} deferred[UM_DEFERRED_MAX];
static size_t ndeferred;

static bool defer_prefetches(void)
{
	static int on = -1;
	if (on < 0) {
		const char *v = getenv("PWSIM_UM_PREFETCH");
		on = v && !strcmp(v, "deferred");
		if (v && !on && strcmp(v, "now") != 0)
			fprintf(stderr, "pwsim: PWSIM_UM_PREFETCH=%s: not now or deferred; now is used\n", v);
	}
	return on;
}

static void prefetch_now(struct pwsim_alloc *a, uintptr_t p, size_t count, CUmemLocation loc);

void pwsim_um_prefetch(struct pwsim_alloc *a, uintptr_t p, size_t count, CUmemLocation loc)
{
	if (defer_prefetches() && ndeferred < UM_DEFERRED_MAX) {
		deferred[ndeferred].p = p;
		deferred[ndeferred].count = count;
		deferred[ndeferred].loc = loc;
		ndeferred++;
		return;
	}
	prefetch_now(a, p, count, loc);
}

void pwsim_um_synchronized(void)
{
	pwsim_lock();
	for (size_t i = 0; i < ndeferred; i++) {
		struct pwsim_alloc *a = pwsim_find_range(deferred[i].p, deferred[i].count);
		if (a && a->kind == PWSIM_KIND_MANAGED) /* freed since: nothing to move */
			prefetch_now(a, deferred[i].p, deferred[i].count, deferred[i].loc);
	}
	ndeferred = 0;
	pwsim_unlock();
}

static void prefetch_now(struct pwsim_alloc *a, uintptr_t p, size_t count, CUmemLocation loc)
{
	struct um_op op = {.pc = 0};
	int d = loc_proc(loc);
	size_t first, end;

	if (d == UM_NONE || !pages_of(a))
		return; /* a normalised location is always a processor */
	page_span(a, p, count, &first, &end);
	for (size_t i = first; i < end; i++) {
		struct pwsim_um_page *q = &a->um[i];
		uintptr_t addr = a->base + i * PWSIM_UM_PAGE;

		if (q->loc == UM_NONE) {
			settle(q, d);
		} else if (advice_of(a, i)->read_mostly) {
			if (!holds(q, d)) {
				run_add(&op.mig, 0, q->loc, d,
				        CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER, addr,
				        page_bytes(a, i));
				add_copy(q, d);
			}
		} else if (q->loc != d) {
			run_add(&op.mig, 0, q->loc, d, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER,
			        addr, page_bytes(a, i));
			settle(q, d);
		}
	}
	op_end(&op);
}

void pwsim_um_advised(struct pwsim_alloc *a, size_t first, size_t end, CUmem_advise advice, CUmemLocation loc)
{
	struct um_op op = {.pc = 0};
	size_t pg = cpu_page_size(), ufirst, uend;
	int d = loc_proc(loc);

	if (!a->um)
		return; /* nothing was touched yet: nothing to map or collapse */
	ufirst = first * pg / PWSIM_UM_PAGE;
	uend = (end * pg + PWSIM_UM_PAGE - 1) / PWSIM_UM_PAGE;
	if (uend > a->um_npages)
		uend = a->um_npages;
	for (size_t i = ufirst; i < uend; i++) {
		struct pwsim_um_page *q = &a->um[i];

		if (q->loc == UM_NONE)
			continue;
		if (advice == CU_MEM_ADVISE_SET_ACCESSED_BY && d >= 0 && q->loc != d && can_map(d, q->loc))
			run_add(&op.map, 1, q->loc, d, CUPTI_ACTIVITY_UNIFIED_MEMORY_REMOTE_MAP_CAUSE_POLICY,
			        a->base + i * PWSIM_UM_PAGE, page_bytes(a, i));
		if (advice == CU_MEM_ADVISE_UNSET_READ_MOSTLY) {
			int pref = loc_proc(advice_of(a, i)->preferred);

			settle(q, pref != UM_NONE && holds(q, pref) ? pref : q->loc);
		}
	}
	op_end(&op);
}

/* ======================================================================== */
/* copy records                                                             */

static uint32_t ctx_id(const struct CUctx_st *c)
{
	return c ? (uint32_t)pwsim_ctx_index(c) + 1 : 0;
}

void pwsim_cupti_copy(CUstream s, int per_thread, uintptr_t dst, uintptr_t src, size_t n, CUcontext dctx,
                      CUcontext sctx)
{
	struct pwsim_alloc *da = pwsim_find_live(dst), *sa = pwsim_find_live(src);
	struct CUctx_st *sc = NULL;
	union pwsim_cupti_record r;
	uint32_t sid = 0;
	uint64_t t;

	pthread_mutex_lock(&g_qmu);
	if ((!g_cfg.memcpy && !g_cfg.memcpy2) || !g_qcap ||
	    pwsim_stream_cupti(s, per_thread, NULL, &sc, &sid)) {
		pthread_mutex_unlock(&g_qmu);
		return;
	}
	memset(&r, 0, sizeof(r));
	t = now_ns();
	if (da && sa && da->device != sa->device) {
		if (!g_cfg.memcpy2)
			goto out;
		r.p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
		r.p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
		r.p2p.bytes = n;
		r.p2p.start = t;
		r.p2p.end = t + n / BYTES_PER_NS;
		r.p2p.deviceId = (uint32_t)sc->device;
		r.p2p.contextId = ctx_id(sc);
		r.p2p.streamId = sid;
		r.p2p.srcDeviceId = (uint32_t)sa->device;
		r.p2p.srcContextId = ctx_id(sctx ? sctx : sa->ctx);
		r.p2p.dstDeviceId = (uint32_t)da->device;
		r.p2p.dstContextId = ctx_id(dctx ? dctx : da->ctx);
		r.p2p.correlationId = ++g_correlation;
	} else {
		if (!g_cfg.memcpy)
			goto out;
		r.memcpy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		if (da && sa)
			r.memcpy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
		else if (da)
			r.memcpy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
		else if (sa)
			r.memcpy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
		else
			r.memcpy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
		r.memcpy.bytes = n;
		r.memcpy.start = t;
		r.memcpy.end = t + n / BYTES_PER_NS;
		r.memcpy.deviceId = (uint32_t)(da ? da->device : sa ? sa->device : sc->device);
		r.memcpy.contextId = ctx_id(sc);
		r.memcpy.streamId = sid;
		r.memcpy.correlationId = ++g_correlation;
	}
	q_push(&r);
out:
	pthread_mutex_unlock(&g_qmu);
}

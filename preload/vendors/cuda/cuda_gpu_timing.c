/*
 * Device timing of asynchronous CUDA copies and prefetches (cuda_gpu_timing.h).
 *
 * Event pairs come from a pool; a pair is recorded on the call's stream
 * (the per-thread default stream for _ptsz variants), pushed onto a
 * lock-free list, and collected by the writer thread once the end event has
 * completed (cuEventQuery, never a wait).  A device time is placed on the
 * host clock through a reference event per context, recorded and waited for
 * once, when its context is first timed: start_host = t_ref + elapsed(ref, start).
 * Work enqueued while its stream is being captured into a graph is skipped
 * (an event record would become part of the graph) and counted.
 *
 * gpu_timing=cupti records no event: the call notes its stream's CUPTI id,
 * its size and when it was made, and the writer matches it with the first
 * copy record CUPTI gives on that stream, of that size, that started after
 * the call (a stream runs its work in order; untraced copies on the same
 * stream are told apart by size and time).  Prefetches make no copy record
 * and are counted as skipped with this method.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_cupti.h"
#include "vendors/cuda/cuda_gpu_timing.h"
#include "core/forkgate.h"
#include "peerwatch/abi/cupti.h"
#include "peerwatch/trace_format.h"
#include "core/pw.h"
#include "record/trace.h"

typedef CUresult (*event_create_fn)(CUevent *, unsigned);
typedef CUresult (*event_record_fn)(CUevent, CUstream);
typedef CUresult (*event_query_fn)(CUevent);
typedef CUresult (*event_elapsed_fn)(float *, CUevent, CUevent);
typedef CUresult (*stream_ctx_fn)(CUstream, CUcontext *);
typedef CUresult (*stream_capturing_fn)(CUstream, int *);
typedef CUresult (*ctx_fn)(CUcontext);
typedef CUresult (*ctx_get_fn)(CUcontext *);

static struct {
	pthread_once_t once;
	event_create_fn create;
	event_record_fn record, record_ptsz;
	event_query_fn query, sync;
	event_elapsed_fn elapsed;
	stream_ctx_fn stream_ctx, stream_ctx_ptsz;
	stream_capturing_fn capturing, capturing_ptsz;
	ctx_fn push;
	ctx_get_fn pop, current;
} gt = {.once = PTHREAD_ONCE_INIT};

static void resolve(void)
{
	gt.create = (event_create_fn)pw_cuda_aux("cuEventCreate");
	gt.record = (event_record_fn)pw_cuda_aux("cuEventRecord");
	gt.record_ptsz = (event_record_fn)pw_cuda_aux("cuEventRecord_ptsz");
	gt.query = (event_query_fn)pw_cuda_aux("cuEventQuery");
	gt.sync = (event_query_fn)pw_cuda_aux("cuEventSynchronize");
	gt.elapsed = (event_elapsed_fn)pw_cuda_aux("cuEventElapsedTime_v2");
	if (!gt.elapsed)
		gt.elapsed = (event_elapsed_fn)pw_cuda_aux("cuEventElapsedTime");
	gt.stream_ctx = (stream_ctx_fn)pw_cuda_aux("cuStreamGetCtx");
	gt.stream_ctx_ptsz = (stream_ctx_fn)pw_cuda_aux("cuStreamGetCtx_ptsz");
	gt.capturing = (stream_capturing_fn)pw_cuda_aux("cuStreamIsCapturing");
	gt.capturing_ptsz = (stream_capturing_fn)pw_cuda_aux("cuStreamIsCapturing_ptsz");
	gt.push = (ctx_fn)pw_cuda_aux("cuCtxPushCurrent_v2");
	gt.pop = (ctx_get_fn)pw_cuda_aux("cuCtxPopCurrent_v2");
	gt.current = (ctx_get_fn)pw_cuda_aux("cuCtxGetCurrent");
}

struct pw_gt_pair {
	struct pw_gt_pair *next;
	CUcontext ctx;
	CUevent start, end;
	uint64_t call_seq;
	/* gpu_timing=cupti */
	uint32_t cupti_stream;
	uint64_t bytes; /* 0: not known (a 3D copy) */
	uint64_t t_call;
};

/* A context's reference point and its pool of idle pairs. */
#define PW_GT_CTXS 64
struct ctx_slot {
	CUcontext ctx;
	CUevent ref;
	uint64_t ref_host_ns;
	_Atomic(struct pw_gt_pair *) idle;
};
static struct ctx_slot slots[PW_GT_CTXS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER; /* new contexts only */
static _Atomic(struct pw_gt_pair *) pending;
static _Atomic(struct pw_gt_pair *) cupti_idle;
static struct pw_gt_pair *cupti_waiting; /* in call order; the collector's alone */
static atomic_uint_fast64_t skipped;
static pthread_mutex_t collect_lock = PTHREAD_MUTEX_INITIALIZER; /* one collector at a time */

uint64_t pw_cuda_gt_skipped(void)
{
	return atomic_load(&skipped);
}

static void push(_Atomic(struct pw_gt_pair *) *list, struct pw_gt_pair *p)
{
	struct pw_gt_pair *head = atomic_load_explicit(list, memory_order_relaxed);
	do
		p->next = head;
	while (!atomic_compare_exchange_weak_explicit(list, &head, p, memory_order_release,
	                                              memory_order_relaxed));
}

static _Atomic(struct pw_gt_pair *) *idle_list(int i)
{
	return i < PW_GT_CTXS ? &slots[i].idle : &cupti_idle;
}

/* The slot of ctx, set up (reference event recorded and waited for) on first use. */
static struct ctx_slot *slot_of(CUcontext ctx)
{
	for (int i = 0; i < PW_GT_CTXS; i++) {
		CUcontext c = __atomic_load_n(&slots[i].ctx, __ATOMIC_ACQUIRE);
		if (c == ctx)
			return &slots[i];
		if (!c)
			break;
	}
	struct ctx_slot *s = NULL;
	pthread_mutex_lock(&slots_lock);
	for (int i = 0; i < PW_GT_CTXS && !s; i++) {
		if (slots[i].ctx == ctx)
			s = &slots[i];
		else if (!slots[i].ctx && gt.push(ctx) == CUDA_SUCCESS) {
			CUcontext popped;
			CUevent ref = NULL;
			if (gt.create(&ref, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
			    gt.record(ref, NULL) == CUDA_SUCCESS && gt.sync(ref) == CUDA_SUCCESS) {
				slots[i].ref = ref;
				slots[i].ref_host_ns = pw_now_ns();
				__atomic_store_n(&slots[i].ctx, ctx, __ATOMIC_RELEASE);
				s = &slots[i];
			}
			gt.pop(&popped);
			break;
		}
	}
	pthread_mutex_unlock(&slots_lock);
	return s;
}

/*
 * Idle pairs are popped by the calling threads and given back by the
 * collector.  A lock-free stack cannot pop one entry safely with many
 * poppers (ABA), so a thread takes a whole list at once and pops from it
 * alone; what it holds when it ends goes back (give_back_held).  Taking the
 * list and pushing the rest back one by one, as this did before, cost each
 * timed call a push per idle pair: about 70 us a copy once the collector
 * had given back a round's worth (100 000 copies, gpu_timing=cupti, H200,
 * 2026-12-03; tests/gpu/RESULTS.md).
 */
static PW_TLS struct pw_gt_pair *held[PW_GT_CTXS + 1]; /* per slot; the last: gpu_timing=cupti */
static pthread_key_t held_key;
static pthread_once_t held_once = PTHREAD_ONCE_INIT;

static void give_back_held(void *unused)
{
	(void)unused;
	for (int i = 0; i <= PW_GT_CTXS; i++)
		while (held[i]) {
			struct pw_gt_pair *p = held[i];
			held[i] = p->next;
			push(idle_list(i), p);
		}
}

static void make_held_key(void)
{
	pthread_key_create(&held_key, give_back_held);
}

/* An idle pair of list i, or NULL. */
static struct pw_gt_pair *pop_idle(int i)
{
	if (!held[i]) {
		held[i] = atomic_exchange_explicit(idle_list(i), NULL, memory_order_acquire);
		if (!held[i])
			return NULL;
		pthread_once(&held_once, make_held_key);
		pthread_setspecific(held_key, (void *)1); /* so that the destructor runs */
	}
	struct pw_gt_pair *p = held[i];
	held[i] = p->next;
	return p;
}

static struct pw_gt_pair *take_pair(struct ctx_slot *s)
{
	struct pw_gt_pair *p = pop_idle((int)(s - slots));
	if (p)
		return p;
	p = pw_fg_calloc(1, sizeof *p); /* see forkgate.h */
	if (!p)
		return NULL;
	p->ctx = s->ctx;
	CUcontext popped;
	bool ok = gt.push(s->ctx) == CUDA_SUCCESS;
	ok = ok && gt.create(&p->start, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
	     gt.create(&p->end, CU_EVENT_DEFAULT) == CUDA_SUCCESS;
	gt.pop(&popped);
	if (!ok) {
		pw_fg_free(p);
		return NULL;
	}
	return p;
}

/* The stream argument of a timed call, or -1 if the call is not timed. */
static int stream_arg(const struct pw_call *c)
{
	bool timed = c->fn->op == PW_OP_PEER_COPY || c->fn->op == PW_OP_IMPLICIT_COPY ||
	             c->fn->op == PW_OP_PREFETCH; /* those with a stream: the asynchronous ones */
	for (int i = 0; timed && i < c->fn->nargs; i++)
		if (c->fn->args[i].kind == PW_K_STREAM)
			return i;
	return -1;
}

static bool per_thread(const struct pw_call *c)
{
	return strstr(c->fn->variant, "_ptsz") != NULL;
}

/*
 * The CUDA runtime destroys its contexts in an atexit handler, before our
 * destructor runs: pairs still pending then could not be read.  A handler
 * registered at the first timed call runs before the runtime's (atexit is
 * last in, first out) and collects them while the contexts live.
 */
static void collect_at_exit(void)
{
	if (pw_g.opt.gpu_timing == PW_GT_CUPTI)
		pw_cuda_cupti_collect(true); /* CUPTI's last records first */
	pw_cuda_gt_collect(true);
}

static void register_exit(void)
{
	atexit(collect_at_exit);
}

/* The size argument of a copy, 0 if it has none (a 3D copy's is in a struct). */
static uint64_t copy_bytes(const struct pw_call *c)
{
	for (int i = 0; i < c->fn->nargs; i++)
		if (c->fn->args[i].kind == PW_K_SIZE)
			return c->a[i];
	return 0;
}

static struct pw_gt_pair *cupti_begin(const struct pw_call *c, CUcontext ctx, CUstream stream, bool pt)
{
	uint32_t id;
	if (c->fn->op == PW_OP_PREFETCH || !pw_cuda_cupti_stream(ctx, stream, pt, &id)) {
		atomic_fetch_add(&skipped, 1);
		return NULL;
	}
	struct pw_gt_pair *p = pop_idle(PW_GT_CTXS);
	if (!p && !(p = pw_fg_calloc(1, sizeof *p))) {
		atomic_fetch_add(&skipped, 1);
		return NULL;
	}
	p->ctx = NULL; /* no events: a cupti pair */
	p->cupti_stream = id;
	p->bytes = copy_bytes(c);
	p->t_call = pw_now_ns();
	return p;
}

struct pw_gt_pair *pw_cuda_gt_begin(const struct pw_call *c)
{
	static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
	int si = stream_arg(c);
	if (si < 0)
		return NULL;
	pthread_once(&gt.once, resolve);
	pthread_once(&exit_once, register_exit);
	if (pw_g.opt.gpu_timing != PW_GT_CUPTI &&
	    (!gt.create || !gt.record || !gt.query || !gt.elapsed || !gt.push || !gt.pop))
		return NULL;
	if (!gt.current)
		return NULL;
	CUstream stream = (CUstream)(uintptr_t)c->a[si];
	bool pt = per_thread(c);
	pw_tls_internal++;
	struct pw_gt_pair *p = NULL;
	int capture = 0;
	stream_capturing_fn is_capturing = pt && gt.capturing_ptsz ? gt.capturing_ptsz : gt.capturing;
	if (is_capturing && is_capturing(stream, &capture) == CUDA_SUCCESS && capture != 0) {
		atomic_fetch_add(&skipped, 1);
		goto out;
	}
	CUcontext ctx = NULL;
	stream_ctx_fn get_ctx = pt && gt.stream_ctx_ptsz ? gt.stream_ctx_ptsz : gt.stream_ctx;
	if (!get_ctx || get_ctx(stream, &ctx) != CUDA_SUCCESS || !ctx)
		gt.current(&ctx);
	if (pw_g.opt.gpu_timing == PW_GT_CUPTI) {
		p = cupti_begin(c, ctx, stream, pt);
		goto out;
	}
	struct ctx_slot *s = ctx ? slot_of(ctx) : NULL;
	p = s ? take_pair(s) : NULL;
	event_record_fn record = pt && gt.record_ptsz ? gt.record_ptsz : gt.record;
	if (p && record(p->start, stream) != CUDA_SUCCESS) {
		push(&s->idle, p);
		p = NULL;
	}
	if (!p)
		atomic_fetch_add(&skipped, 1);
out:
	pw_tls_internal--;
	return p;
}

static struct ctx_slot *slot_known(CUcontext ctx)
{
	for (int i = 0; i < PW_GT_CTXS; i++)
		if (__atomic_load_n(&slots[i].ctx, __ATOMIC_ACQUIRE) == ctx)
			return &slots[i];
	return NULL;
}

void pw_cuda_gt_end(const struct pw_call *c, struct pw_gt_pair *p)
{
	if (!p)
		return;
	if (!p->ctx) { /* gpu_timing=cupti */
		p->call_seq = c->seq;
		push(c->ret == CUDA_SUCCESS ? &pending : &cupti_idle, p);
		return;
	}
	CUstream stream = (CUstream)(uintptr_t)c->a[stream_arg(c)];
	event_record_fn record = per_thread(c) && gt.record_ptsz ? gt.record_ptsz : gt.record;
	pw_tls_internal++;
	bool ok = c->ret == CUDA_SUCCESS && record(p->end, stream) == CUDA_SUCCESS;
	pw_tls_internal--;
	if (!ok) {
		if (c->ret == CUDA_SUCCESS) /* timed, but its end could not be recorded */
			atomic_fetch_add(&skipped, 1);
		push(&slot_known(p->ctx)->idle, p);
		return;
	}
	p->call_seq = c->seq;
	push(&pending, p);
}

static void emit_line(uint64_t call, uint64_t gpu_ns, uint64_t t_gpu_ns, const char *method)
{
	struct pw_jw w;
	if (!pw_trace_event_begin(&w)) {
		/* Not taken: the trace counted it as dropped, unless tracing is
		 * off (the trace finished): then the call got no device time. */
		if (!atomic_load(&pw_g.enabled))
			atomic_fetch_add(&skipped, 1);
		return;
	}
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "type", "gpu_time");
	pw_jw_kv_u64(&w, "call", call);
	pw_jw_kv_u64(&w, "gpu_ns", gpu_ns);
	pw_jw_kv_u64(&w, "t_gpu_ns", t_gpu_ns);
	pw_jw_kv_str(&w, "method", method);
	pw_jw_obj_close(&w);
	pw_trace_event_end(&w);
}

static void emit(const struct pw_gt_pair *p, const struct ctx_slot *s, float gpu_ms, float since_ref_ms)
{
	emit_line(p->call_seq, (uint64_t)((double)gpu_ms * 1e6 + 0.5),
	          s->ref_host_ns + (uint64_t)((double)since_ref_ms * 1e6), "events");
}

/* One pair: written and given back if complete (or waited for when final). */
static bool settle(struct pw_gt_pair *p, bool final)
{
	struct ctx_slot *s = slot_known(p->ctx);
	CUcontext popped;
	if (gt.push(p->ctx) != CUDA_SUCCESS) { /* the context is gone */
		atomic_fetch_add(&skipped, 1);
		return true;
	}
	CUresult q = final ? gt.sync(p->end) : gt.query(p->end);
	float ms = 0, since = 0;
	bool timed = q == CUDA_SUCCESS && gt.elapsed(&ms, p->start, p->end) == CUDA_SUCCESS &&
	             gt.elapsed(&since, s->ref, p->start) == CUDA_SUCCESS;
	gt.pop(&popped);
	if (q == CUDA_ERROR_NOT_READY)
		return false;
	if (timed)
		emit(p, s, ms, since);
	else
		atomic_fetch_add(&skipped, 1);
	push(&s->idle, p);
	return true;
}

/* A stream's copy records start no earlier than the calls that made them;
 * CUPTI places device times on the host clock by interpolation, so allow
 * it this much error. */
#define PW_GT_CUPTI_SLACK_NS 50000
/* How many of the oldest waiting calls a copy record is compared with. */
#define PW_GT_CUPTI_LOOK 4096

static bool fits(const struct pw_gt_pair *p, const struct pw_cupti_copy *r)
{
	if (p->cupti_stream != r->stream || r->start + PW_GT_CUPTI_SLACK_NS < p->t_call)
		return false;
	if (p->bytes)
		return p->bytes == r->bytes;
	return r->kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD || r->kind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
}

/* gpu_timing=cupti: the calls that completed, matched with the copy
 * records that came; final: the calls left over got none. */
static void collect_cupti(bool final)
{
	struct pw_gt_pair *list = atomic_exchange_explicit(&pending, NULL, memory_order_acquire), *rev = NULL;
	while (list) { /* pushed newest first */
		struct pw_gt_pair *p = list;
		list = p->next;
		p->next = rev;
		rev = p;
	}
	struct pw_gt_pair **tail = &cupti_waiting;
	while (*tail)
		tail = &(*tail)->next;
	*tail = rev;
	static struct pw_cupti_copy recs[1024];
	size_t n;
	while ((n = pw_cuda_cupti_take_copies(recs, sizeof recs / sizeof *recs)) > 0)
		for (size_t i = 0; i < n; i++) {
			/* A stream's copies complete in order: a record is its call's
			 * among the oldest calls waiting, or an untraced copy's. */
			int looked = 0;
			for (struct pw_gt_pair **pp = &cupti_waiting; *pp && looked < PW_GT_CUPTI_LOOK;
			     pp = &(*pp)->next, looked++)
				if (fits(*pp, &recs[i])) {
					struct pw_gt_pair *p = *pp;
					*pp = p->next;
					emit_line(p->call_seq, recs[i].end - recs[i].start, recs[i].start,
					          "cupti");
					push(&cupti_idle, p);
					break;
				}
		}
	while (final && cupti_waiting) {
		struct pw_gt_pair *p = cupti_waiting;
		cupti_waiting = p->next;
		atomic_fetch_add(&skipped, 1);
		push(&cupti_idle, p);
	}
}

/*
 * Every round of the writer (final false) and once before the footer (final
 * true).  The final collection waits for one in progress: the writer may
 * hold the pending pairs at that moment, and those it finds not yet
 * complete it puts back, after which only a final collection sees them.
 * (Without the wait, a final collection that found the list empty returned
 * at once, and the pairs the writer held were written after the trace was
 * finished, or never: lost without being counted.)
 */
void pw_cuda_gt_collect(bool final)
{
	if (pw_g.opt.gpu_timing == PW_GT_CUPTI) {
		pthread_mutex_lock(&collect_lock);
		collect_cupti(final);
		pthread_mutex_unlock(&collect_lock);
		return;
	}
	if (!final && !atomic_load_explicit(&pending, memory_order_relaxed))
		return;
	pthread_mutex_lock(&collect_lock);
	pw_tls_internal++;
	struct pw_gt_pair *list = atomic_exchange_explicit(&pending, NULL, memory_order_acquire),
	                  *keep = NULL;
	while (list) {
		struct pw_gt_pair *p = list;
		list = p->next;
		if (!settle(p, final)) {
			p->next = keep;
			keep = p;
		}
	}
	while (keep) { /* not done yet: back for the next round */
		struct pw_gt_pair *p = keep;
		keep = p->next;
		push(&pending, p);
	}
	pw_tls_internal--;
	pthread_mutex_unlock(&collect_lock);
}

/* A forked child has none of its parent's contexts or pending pairs (the
 * parent writes those). */
void pw_cuda_gt_after_fork(void)
{
	atomic_store(&pending, NULL);
	atomic_store(&cupti_idle, NULL);
	cupti_waiting = NULL;
	memset(held, 0, sizeof held); /* the forking thread's, of the parent's contexts */
	memset(slots, 0, sizeof slots);
	atomic_store(&skipped, 0);
	pthread_mutex_init(&slots_lock, NULL);
	pthread_mutex_init(&collect_lock, NULL);
}

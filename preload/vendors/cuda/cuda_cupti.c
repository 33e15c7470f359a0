/*
 * CUPTI's activity records as trace events (cuda_cupti.h).
 *
 * Started once, on the thread of the program's first CUDA call and before
 * it (as the management library is: state/devices.c), when um_counters=1 or
 * gpu_timing=cupti asks: libcupti loaded privately, the driver initialized
 * (CUPTI configures its unified-memory counters only after cuInit,
 * cupti_activity.h :7794), our clock given to CUPTI for its timestamps, the
 * buffer callbacks registered, the kinds enabled.  Any refusal is said once,
 * on stderr and in the footer's "um_off", and the program runs on without.
 *
 * CUPTI asks for an empty buffer and hands a full one back on a thread of
 * its own; the full ones wait on a lock-free list for the trace writer's
 * round, which writes a "um" event per unified-memory record and keeps the
 * copy records for device timing (cuda_gpu_timing.c takes them).  Buffers
 * outstanding are capped (PW_CUPTI_MAX_BUFS): past it CUPTI gets no buffer
 * and drops records, which it counts and we report as um_lost.
 *
 * At exit, a handler registered when CUPTI starts (before the runtime's,
 * so it runs after it: handlers run last in, first out) flushes CUPTI and
 * writes what it held; after that nothing here calls CUPTI again, whose
 * library may be torn down before the trace's final round.
 */
#include "vendors/cuda/cuda_cupti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/intercept.h"
#include "core/pw.h"
#include "core/vendor_lib.h"
#include "peerwatch/abi/cupti.h"
#include "record/trace.h"
#include "vendors/cuda/cuda.h"

#define PW_CUPTI_BUF_BYTES (1u << 20) /* CUPTI's own examples use 1-8 MiB */
#define PW_CUPTI_MAX_BUFS 64          /* 64 MiB waiting at most */
#define PW_CUPTI_COPIES 16384         /* copy records kept for matching */

struct buf {
	struct buf *next;
	size_t valid;
	_Alignas(8) uint8_t records[]; /* what CUPTI fills */
};

static struct {
	pthread_once_t once;
	cuptiActivityRegisterCallbacks_fn register_callbacks;
	cuptiActivityRegisterTimestampCallback_fn register_clock;
	cuptiActivityConfigureUnifiedMemoryCounter_fn configure_um;
	cuptiActivityEnable_fn enable;
	cuptiActivityFlushAll_fn flush;
	cuptiActivityGetNextRecord_fn next;
	cuptiActivityGetNumDroppedRecords_fn dropped;
	cuptiGetTimestamp_fn timestamp;
	cuptiGetStreamIdEx_fn stream_id;
	cuptiGetResultString_fn result_string;
	atomic_bool started, um_on, copies_on, closed; /* closed: after the exit flush */
	int64_t clock_offset; /* CUPTI's clock minus ours, when it took no callback */
	char off[400];        /* why the counters are off, "" if they are not */
	_Atomic(struct buf *) full;
	atomic_int bufs;
	atomic_uint_fast64_t um_events, um_lost;
	pthread_mutex_t collect_lock;
	pthread_mutex_t copies_lock;
	struct pw_cupti_copy copies[PW_CUPTI_COPIES];
	size_t copies_head, copies_n;
} K = {
    .once = PTHREAD_ONCE_INIT,
    .collect_lock = PTHREAD_MUTEX_INITIALIZER,
    .copies_lock = PTHREAD_MUTEX_INITIALIZER,
};

static const char *result_name(CUptiResult r, char *buf, size_t len)
{
	const char *s = NULL;
	if (K.result_string && K.result_string(r, &s) == CUPTI_SUCCESS && s)
		return s;
	snprintf(buf, len, "CUPTI error %d", r);
	return buf;
}

/* The one warning: stderr and the footer. */
__attribute__((format(printf, 1, 2))) static void turn_off(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(K.off, sizeof K.off, fmt, ap);
	va_end(ap);
	pw_log("%s; the program runs on without them", K.off);
}

static uint64_t our_clock(void)
{
	return pw_now_ns();
}

static void *find(void *h, const char *name)
{
	return pw_real_dlsym(h, name);
}

/* libcupti by the names the CUDA 13 and 12 toolkits give it, then where the
 * toolkit puts it when it is not on the loader's path ($CUDA_HOME, else
 * /usr/local/cuda). */
static void *load(void)
{
	static const char *const names[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
	void *h = NULL;
	pw_loader_lock();
	if (pw_g.opt.cupti[0]) {
		h = dlopen(pw_g.opt.cupti, RTLD_NOW | RTLD_LOCAL);
		pw_loader_unlock();
		return h;
	}
	for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	const char *home = getenv("CUDA_HOME");
	static const char *const sub[] = {"lib64/libcupti.so", "extras/CUPTI/lib64/libcupti.so"};
	for (size_t i = 0; !h && i < 2; i++) {
		char path[PW_PATH_CAP];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", home && *home ? home : "/usr/local/cuda",
		                     sub[i]) < sizeof path)
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	pw_loader_unlock();
	return h;
}

static void on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = NULL;
	*size = 0;
	*max_records = 0;
	if (atomic_fetch_add(&K.bufs, 1) >= PW_CUPTI_MAX_BUFS) { /* the writer is behind: CUPTI drops */
		atomic_fetch_sub(&K.bufs, 1);
		return;
	}
	struct buf *b = aligned_alloc(8, sizeof *b + PW_CUPTI_BUF_BYTES);
	if (!b) {
		atomic_fetch_sub(&K.bufs, 1);
		return;
	}
	*buffer = b->records;
	*size = PW_CUPTI_BUF_BYTES;
	/* CUPTI hands it back to on_complete, which queues it for the writer to free */
	/* cppcheck-suppress memleak */
}

static void on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)size;
	size_t lost = 0;
	if (K.dropped && K.dropped(ctx, stream, &lost) == CUPTI_SUCCESS && lost)
		atomic_fetch_add(&K.um_lost, lost);
	if (!buffer)
		return;
	struct buf *b = (struct buf *)(void *)(buffer - offsetof(struct buf, records));
	b->valid = valid;
	struct buf *head = atomic_load_explicit(&K.full, memory_order_relaxed);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak_explicit(&K.full, &head, b, memory_order_release,
	                                              memory_order_relaxed));
}

static bool resolve(void *h)
{
	K.register_callbacks = (cuptiActivityRegisterCallbacks_fn)find(h, "cuptiActivityRegisterCallbacks");
	K.register_clock =
	    (cuptiActivityRegisterTimestampCallback_fn)find(h, "cuptiActivityRegisterTimestampCallback");
	K.configure_um = (cuptiActivityConfigureUnifiedMemoryCounter_fn)find(
	    h, "cuptiActivityConfigureUnifiedMemoryCounter");
	K.enable = (cuptiActivityEnable_fn)find(h, "cuptiActivityEnable");
	K.flush = (cuptiActivityFlushAll_fn)find(h, "cuptiActivityFlushAll");
	K.next = (cuptiActivityGetNextRecord_fn)find(h, "cuptiActivityGetNextRecord");
	K.dropped = (cuptiActivityGetNumDroppedRecords_fn)find(h, "cuptiActivityGetNumDroppedRecords");
	K.timestamp = (cuptiGetTimestamp_fn)find(h, "cuptiGetTimestamp");
	K.stream_id = (cuptiGetStreamIdEx_fn)find(h, "cuptiGetStreamIdEx");
	K.result_string = (cuptiGetResultString_fn)find(h, "cuptiGetResultString");
	return K.register_callbacks && K.configure_um && K.enable && K.flush && K.next && K.timestamp;
}

static void flush_at_exit(void)
{
	pw_cuda_cupti_collect(true);
}

/* Our clock, or the offset from CUPTI's (CLOCK_REALTIME on Linux by
 * default, cupti_activity.h :8117), taken as the middle of two readings of ours. */
static void set_clock(void)
{
	if (K.register_clock && K.register_clock(our_clock) == CUPTI_SUCCESS) {
		K.clock_offset = 0;
		return;
	}
	uint64_t a = pw_now_ns(), c = 0;
	K.timestamp(&c);
	uint64_t b = pw_now_ns();
	K.clock_offset = (int64_t)(c - (a + (b - a) / 2));
}

static void start(void)
{
	bool um = pw_g.opt.um_counters, copies = pw_g.opt.gpu_timing == PW_GT_CUPTI;
	const char *what = um ? "the unified-memory counters (um_counters=1)" : "gpu_timing=cupti";
	void *h = load();
	if (!h && pw_g.opt.cupti[0]) {
		turn_off("%s: cupti=%s cannot be loaded: %s", what, pw_g.opt.cupti, dlerror());
		return;
	}
	if (!h) {
		turn_off("%s: libcupti cannot be found (libcupti.so.13, .12 or .so on the loader's path, or "
		         "under $CUDA_HOME; the cupti option names it)",
		         what);
		return;
	}
	if (!resolve(h)) {
		turn_off("%s: this libcupti lacks the activity API's functions", what);
		return;
	}
	typedef CUresult (*init_fn)(unsigned);
	init_fn init = (init_fn)pw_cuda_aux("cuInit");
	if (init)
		init(0); /* the program's own next call initializes it anyway */
	set_clock();
	char name[40];
	CUptiResult r = K.register_callbacks(on_request, on_complete);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		turn_off("%s: CUPTI is held by another profiler (%s)", what,
		         result_name(r, name, sizeof name));
		return;
	}
	if (r != CUPTI_SUCCESS) {
		turn_off("%s: CUPTI refused its buffers (cuptiActivityRegisterCallbacks: %s)", what,
		         result_name(r, name, sizeof name));
		return;
	}
	if (um) {
		CUpti_ActivityUnifiedMemoryCounterConfig cfg[8];
		for (int i = 0; i < 8; i++)
			cfg[i] = (CUpti_ActivityUnifiedMemoryCounterConfig){
			    .scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES,
			    .kind = i + 1,
			    .deviceId = 0,
			    .enable = 1};
		r = K.configure_um(cfg, 8);
		if (r == CUPTI_SUCCESS)
			r = K.enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
		if (r != CUPTI_SUCCESS)
			turn_off("the unified-memory counters (um_counters=1): CUPTI refused them (%s)",
			         result_name(r, name, sizeof name));
		else
			atomic_store(&K.um_on, true);
	}
	if (copies) {
		r = K.enable(CUPTI_ACTIVITY_KIND_MEMCPY);
		if (r == CUPTI_SUCCESS)
			r = K.enable(CUPTI_ACTIVITY_KIND_MEMCPY2);
		if (r != CUPTI_SUCCESS) {
			pw_log("gpu_timing=cupti: CUPTI refused its copy records (%s): copies get no device "
			       "time",
			       result_name(r, name, sizeof name));
		} else
			atomic_store(&K.copies_on, true);
	}
	atomic_store(&K.started, true);
	atexit(flush_at_exit);
}

void pw_cuda_cupti_begin(void)
{
	if (!pw_g.opt.um_counters && pw_g.opt.gpu_timing != PW_GT_CUPTI)
		return;
	pw_tls_internal++;
	pthread_once(&K.once, start);
	pw_tls_internal--;
}

/* ---- writing ---- */

static void put_proc(struct pw_jw *w, const char *key, uint32_t id)
{
	if (id == CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID)
		pw_jw_kv_str(w, key, "cpu");
	else
		pw_jw_kv_u64(w, key, id);
}

static const char *cause_name(uint32_t kind, uint32_t flags)
{
	static const char *const migration[] = {"unknown",  "user",     "coherence",
	                                        "prefetch", "eviction", "access_counters"};
	static const char *const remote[] = {"unknown", "coherence",     "thrashing",
	                                     "policy",  "out_of_memory", "eviction"};
	if (kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP)
		return flags < sizeof remote / sizeof *remote ? remote[flags] : "unknown";
	return flags < sizeof migration / sizeof *migration ? migration[flags] : "unknown";
}

static uint64_t ours(uint64_t t)
{
	return (uint64_t)((int64_t)t - K.clock_offset);
}

static void write_um(const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
	static const char *const kinds[] = {NULL,        "htod",       "dtoh",       "cpu_fault", "gpu_fault",
	                                    "thrashing", "throttling", "remote_map", "dtod"};
	static const char *const access[] = {"unknown", "read", "write", "atomic", "prefetch"};
	uint32_t k = (uint32_t)u->counterKind;
	if (k == 0 || k >= sizeof kinds / sizeof *kinds) {
		atomic_fetch_add(&K.um_lost, 1); /* a kind this version does not know */
		return;
	}
	struct pw_jw w;
	if (!pw_trace_event_begin(&w))
		return; /* counted as dropped by the trace */
	bool move = k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ||
	            k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH ||
	            k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD;
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "type", "um");
	pw_jw_kv_str(&w, "kind", kinds[k]);
	pw_jw_kv_u64(&w, "t_ns", ours(u->start));
	if ((move || k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT ||
	     k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING) &&
	    u->end >= u->start)
		pw_jw_kv_u64(&w, "end_ns", ours(u->end));
	pw_jw_kv_hex(&w, "addr", u->address);
	switch (k) {
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
		pw_jw_kv_hex(&w, "pc", u->value);
		pw_jw_kv_str(&w, "proc", "cpu");
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
		pw_jw_kv_u64(&w, "groups", u->value);
		put_proc(&w, "proc", u->srcId);
		pw_jw_kv_str(&w, "access",
		             u->flags < sizeof access / sizeof *access ? access[u->flags] : "unknown");
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING: put_proc(&w, "proc", u->srcId); break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING:
		pw_jw_kv_u64(&w, "bytes", u->value);
		pw_jw_key(&w, "procs");
		pw_jw_ch(&w, '[');
		for (int i = 0, n = 0; i < 64; i++)
			if (u->processors[0] & (1ull << i)) {
				if (n++)
					pw_jw_ch(&w, ',');
				pw_jw_u64(&w, (uint64_t)i);
			}
		pw_jw_ch(&w, ']');
		break;
	default: /* migrations and remote maps */
		pw_jw_kv_u64(&w, "bytes", u->value);
		/* Between the host and a device CUPTI named the device at both
		 * ends (H200, driver 580, CUDA 13.0, 2026-12-03): the kind says
		 * which end is the host. */
		if (k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD) {
			pw_jw_kv_str(&w, "src", "cpu");
			put_proc(&w, "dst",
			         u->dstId != CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID ? u->dstId : u->srcId);
		} else if (k == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH) {
			put_proc(&w, "src",
			         u->srcId != CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID ? u->srcId : u->dstId);
			pw_jw_kv_str(&w, "dst", "cpu");
		} else {
			put_proc(&w, "src", u->srcId);
			put_proc(&w, "dst", u->dstId);
		}
		pw_jw_kv_str(&w, "cause", cause_name(k, u->flags));
		break;
	}
	pw_jw_obj_close(&w);
	pw_trace_event_end(&w);
	atomic_fetch_add(&K.um_events, 1);
}

static void keep_copy(uint32_t stream, uint8_t kind, uint64_t bytes, uint64_t start, uint64_t end)
{
	pthread_mutex_lock(&K.copies_lock);
	size_t at = (K.copies_head + K.copies_n) % PW_CUPTI_COPIES;
	if (K.copies_n == PW_CUPTI_COPIES) /* the oldest goes: its call, if traced, is skipped */
		K.copies_head = (K.copies_head + 1) % PW_CUPTI_COPIES;
	else
		K.copies_n++;
	K.copies[at] = (struct pw_cupti_copy){stream, kind, bytes, ours(start), ours(end)};
	pthread_mutex_unlock(&K.copies_lock);
}

size_t pw_cuda_cupti_take_copies(struct pw_cupti_copy *out, size_t cap)
{
	pthread_mutex_lock(&K.copies_lock);
	size_t n = K.copies_n < cap ? K.copies_n : cap;
	for (size_t i = 0; i < n; i++)
		out[i] = K.copies[(K.copies_head + i) % PW_CUPTI_COPIES];
	K.copies_head = (K.copies_head + n) % PW_CUPTI_COPIES;
	K.copies_n -= n;
	pthread_mutex_unlock(&K.copies_lock);
	return n;
}

static void write_buffer(struct buf *b)
{
	CUpti_Activity *rec = NULL;
	while (K.next(b->records, b->valid, &rec) == CUPTI_SUCCESS && rec) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
			write_um((const CUpti_ActivityUnifiedMemoryCounter3 *)(void *)rec);
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			const CUpti_ActivityMemcpy6 *m = (const void *)rec;
			keep_copy(m->streamId, m->copyKind, m->bytes, m->start, m->end);
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
			const CUpti_ActivityMemcpyPtoP4 *m = (const void *)rec;
			keep_copy(m->streamId, m->copyKind, m->bytes, m->start, m->end);
		}
	}
}

void pw_cuda_cupti_collect(bool final)
{
	if (!atomic_load(&K.started))
		return;
	pthread_mutex_lock(&K.collect_lock);
	pw_tls_internal++;
	if (final && !atomic_exchange(&K.closed, true))
		K.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); /* hands back every buffer, on this thread */
	struct buf *list = atomic_exchange_explicit(&K.full, NULL, memory_order_acquire), *fifo = NULL;
	while (list) { /* pushed newest first */
		struct buf *b = list;
		list = b->next;
		b->next = fifo;
		fifo = b;
	}
	while (fifo) {
		struct buf *b = fifo;
		fifo = b->next;
		write_buffer(b);
		free(b);
		atomic_fetch_sub(&K.bufs, 1);
	}
	pw_tls_internal--;
	pthread_mutex_unlock(&K.collect_lock);
}

bool pw_cuda_cupti_um_footer(uint64_t *events, uint64_t *lost, const char **off)
{
	if (!pw_g.opt.um_counters)
		return false;
	*events = atomic_load(&K.um_events);
	*lost = atomic_load(&K.um_lost);
	*off = K.off[0] ? K.off : NULL;
	if (!*off && !atomic_load(&K.started)) /* a HIP or ACL program, or none */
		*off = "the program made no CUDA call: the counters are CUDA's (CUPTI)";
	return true;
}

/*
 * A stream's CUPTI id does not change while it lives, so each thread
 * remembers the streams it asked about last rather than calling into CUPTI
 * on every timed copy (that call's own cost was not measured apart; the
 * H200's figures in tests/gpu/RESULTS.md are with this cache).  A stream
 * destroyed and another made at the same address keeps the old id here:
 * its copies then find no record and are counted as skipped, never matched
 * with another stream's.
 */
#define PW_CUPTI_STREAMS 8
static PW_TLS struct {
	CUcontext ctx;
	CUstream stream;
	bool per_thread;
	uint32_t id;
} known[PW_CUPTI_STREAMS];
static PW_TLS unsigned known_next;

bool pw_cuda_cupti_stream(CUcontext ctx, CUstream stream, bool per_thread, uint32_t *id)
{
	if (!atomic_load_explicit(&K.copies_on, memory_order_acquire) || !K.stream_id)
		return false;
	for (int i = 0; i < PW_CUPTI_STREAMS; i++)
		if (known[i].ctx == ctx && known[i].stream == stream && known[i].per_thread == per_thread &&
		    known[i].ctx) {
			*id = known[i].id;
			return true;
		}
	if (K.stream_id(ctx, stream, per_thread, id) != CUPTI_SUCCESS)
		return false;
	unsigned at = known_next++ % PW_CUPTI_STREAMS;
	known[at].ctx = ctx;
	known[at].stream = stream;
	known[at].per_thread = per_thread;
	known[at].id = *id;
	return true;
}

/* CUPTI's thread does not survive fork, nor its buffers' owner: a child
 * that uses CUDA (after exec, or one that never touched it before fork) is
 * told once that it has no counters. */
void pw_cuda_cupti_after_fork(void)
{
	bool was = atomic_load(&K.started);
	atomic_store(&K.started, false);
	atomic_store(&K.um_on, false);
	atomic_store(&K.copies_on, false);
	atomic_store(&K.full, NULL);
	atomic_store(&K.bufs, 0);
	atomic_store(&K.um_events, 0);
	atomic_store(&K.um_lost, 0);
	K.copies_n = 0;
	pthread_mutex_init(&K.collect_lock, NULL);
	pthread_mutex_init(&K.copies_lock, NULL);
	if (was && pw_g.opt.um_counters)
		snprintf(K.off, sizeof K.off,
		         "CUPTI was started by the parent before fork: a forked child has none");
}

/*
 * Per-thread event buffers and the thread that writes them out.
 *
 * Hot path (pw_record_call, pw_record_call_folded, pw_trace_event_begin/end,
 * and their common case written out inline in each wrapper: trace_hot.h's
 * pw_record_row, which shares rec_room's busy steps and rec_commit_buf's
 * publication): the calling thread appends one record (record.h: a call's
 * binary record, or a line made elsewhere) to its own buffer and publishes it with a release store.
 * No lock, no system call, no allocation except when a buffer fills (then
 * it is handed to the writer and a spare, a recycled or a new one takes its
 * place; with PW_MAX_OUTSTANDING out, the writer is behind and the event is
 * dropped and counted: the calling thread never waits for the writer).
 *
 * Ownership.  Every buffer is, at any moment, in exactly one of these hands:
 *
 *   - its thread's alone: a spare, or a recycled buffer not yet installed;
 *   - its thread's as the current buffer, published in cur_pub: the thread
 *     appends and advances `st` (committed bytes); the writer role only
 *     reads [flushed, committed) and advances `flushed`.  Past the
 *     committed end the thread may hold a fold tail (record.h), records
 *     not yet published, which the writer never reads;
 *   - the writer role's, from the moment the thread pushes it onto the full
 *     list until the writer role hands it back (recycle) or frees it.
 *
 * The writer role is one thread at a time: the writer thread while it runs;
 * the thread finishing the trace once the writer has been joined; a forked
 * child's only thread.  Three rules make a stale pointer harmless:
 *
 *   1. A thread pushes its old buffer before it publishes the next one, and
 *      never touches the old one again.  A cur_pub read before the switch
 *      may name a buffer already on the full list: its gen is then behind
 *      the writer's, and it is only compared, not written.
 *   2. The writer role recycles and frees the buffers it took from the full
 *      list only at the end of its round, after its last read of any
 *      cur_pub: a pointer read in the round stays valid to the round's end.
 *   3. Nothing is freed once the trace is finishing (exit, exec, enforce):
 *      threads still running may write into their buffers until the process
 *      is gone, and nobody reads them any more.
 *
 * A buffer is freed only by the writer role, only after taking it from the
 * full list, and only when its thread has exited (so it is published
 * nowhere).
 *
 * The cut at exit.  pw_trace_finish turns tracing off (a seq_cst store),
 * passes the heavy side of an asymmetric fence (fence.h) and then reads each
 * thread's current buffer's `st` once: events committed by then are
 * written; a thread between begin and end (BUSY) is counted in the footer as
 * in flight and its event is not written, wherever its thread gets to after.
 * begin sets BUSY, passes the light side of the fence and then checks that
 * tracing is on, so a thread either sees tracing off or is seen busy.
 *
 * Writer thread: wakes when a buffer fills or every PW_FLUSH_MS, decodes the
 * full buffers' records into JSON lines in each thread's order and writes
 * them, then whatever complete records the threads' current buffers hold, so
 * a crash loses at most the last PW_FLUSH_MS of events.  The file is created, with its header, by the
 * thread making the process's first traced call, so a process that dies
 * right after still leaves a .partial file with a header.
 *
 * The file: every line written is counted (events, violations) so the footer
 * says exactly what the file holds.  Space for the footer is kept: blocks
 * are preallocated PW_RESERVE_BYTES ahead of the end (fallocate with
 * FALLOC_FL_KEEP_SIZE, released when the file is closed), and below a
 * file-size limit (RLIMIT_FSIZE) events stop that much short of it.  A failed
 * write turns tracing off with one warning; the file is cut back to its last
 * complete line and the footer says "write_error".  Writes never raise
 * SIGXFSZ or SIGPIPE in the program (log.c).
 *
 * A trace that cannot be kept (no directory or file could be made, a
 * write failed, the writer thread could not start) stops the records
 * (file_state FAILED or STOPPED: checked before anything else, no lock),
 * not the wrappers: in warn and enforce mode they go on checking every
 * call (pw_disable), and at exit one line says that no trace was kept and
 * why.
 */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/fd.h"
#include "record/fence.h"
#include "core/forkgate.h"
#include "record/header.h"
#include "core/pw.h"
#include "record/record.h"
#include "record/record_write.h"
#include "record/trace.h"
#include "record/trace_hot.h"
#include "core/stack.h"

#define PW_FLUSH_MS 100
/* Buffers a thread may have out (its current one, full ones the writer has
 * not given back): 4 MiB at the default buffer_kb, about 30 000 calls, or
 * 15 ms of a thread calling at 2 million a second while the writer is held
 * up; past that its events are dropped and counted. */
#define PW_MAX_OUTSTANDING 16
/* A writer that completed no round and no write for this long is taken to
 * be stuck: at exit it is given up on.  Long enough for a writer starved of
 * CPU on a loaded machine (or under a sanitizer) to still be waited for. */
#define PW_WRITER_STALL_NS (3000ull * 1000000)
#define PW_FINISH_STALL_NS PW_WRITER_STALL_NS
/* Room kept for the footer: preallocated past the end, and left below a
 * file-size limit. */
#define PW_RESERVE_BYTES (256u * 1024)
#define PW_PREALLOC_STEP (1024u * 1024)
/* A footer without its lists (modules, suppressions) is at most this long;
 * the full one, modules and all, at most PW_FOOTER_BYTES. */
#define PW_COMPACT_FOOTER_MAX (16u * 1024)
#define PW_FOOTER_BYTES (1024u * 1024)
/* A second thread finishing waits at most this long for the first. */
#define PW_FINISH_WAIT_NS (10000ull * 1000000)
/* Rounds with nothing to write before a writer whose main thread left ends. */
#define PW_RETIRE_ROUNDS 3

enum { TH_LIVE = 1, TH_EXITED = 2 };

struct pw_thread {
	struct pw_thread *next; /* the registry: never unlinked; an exited record is reused */
	atomic_int state;
	struct pw_buf *cur;                /* producer only */
	struct pw_buf *spare;              /* producer only */
	_Atomic(struct pw_buf *) cur_pub;  /* cur, for the writer role */
	_Atomic(struct pw_buf *) returned; /* recycled by the writer role */
	atomic_int outstanding;            /* buffers allocated and not freed */
	uint64_t next_gen;                 /* producer only */
	uint64_t writer_gen;               /* writer role only: next buffer to write */
	bool exited_seen, final_done;      /* writer role only, while finishing */
	/* producer: a violation event is being written (a signal handler's may
	 * nest in it); the cut at exit tells a finding in flight from a call */
	atomic_int findings_open;
};

/* The gate (trace_hot.h): every call reads it. */
struct pw_trace_gate pw_trace_gate;

static struct {
	pthread_key_t key;
	pthread_key_t writer_key; /* set while the writer runs: its destructor hears of its end */
	_Atomic(struct pw_thread *) threads;
	_Atomic(struct pw_buf *) full;
	atomic_int wake;
	atomic_bool stop_writer;
	atomic_bool writer_creating; /* pthread_create called, writer_main not yet in its loop */
	atomic_int opening;          /* threads creating the file (open_once), who start the writer */
	atomic_bool writer_died;     /* it ended without being asked to (it was cancelled) */
	atomic_bool closing;         /* finishing began: threads stop waiting for buffers */
	atomic_bool main_exited;     /* the main thread called pthread_exit: see retire() */
	atomic_bool finished;        /* the finisher is done */
	bool enabled_at_finish;
	_Atomic long finisher;     /* tid of the thread finishing, 0 before */
	_Atomic uint64_t progress; /* writer rounds and writes: others watch it move */
	_Atomic uint64_t progress_ns;
	pthread_mutex_t start_lock;
	pthread_t writer;
	_Atomic uint64_t dropped_by[PW_DROP_N];
	struct pw_buf *kept; /* taken by the final drain, recycled if an exec fails */
	/* the file: writer role only.  Its descriptor and its directory's are
	 * the program's to take (core/fd.h): the file's is kept above its
	 * numbers and checked before each use, the directory's is opened only
	 * to create and to rename the file. */
	struct pw_fd file, dir;
	bool have_file;            /* created, not finished: file may be opened again by path */
	char name[256];            /* final file name inside the directory */
	char path[PATH_MAX + 300]; /* final path, for messages */
	char dir_path[PATH_MAX];   /* the directory, absolute */
	uint64_t file_bytes;       /* complete lines written: the file's size */
	uint64_t header_bytes;
	uint64_t event_bytes; /* of which events */
	uint64_t lines, violations;
	uint64_t reserved_to; /* blocks preallocated up to here */
	bool prealloc_off;    /* the file system has no fallocate */
	uint64_t fsize_limit; /* RLIMIT_FSIZE, or UINT64_MAX */
	int write_err;        /* errno of the write that failed, 0 */
	char write_err_text[200];
	bool limited;
	uint64_t limit_seq, limit_t_ns;
} T = {.start_lock = PTHREAD_MUTEX_INITIALIZER,
       .file = PW_FD_NONE,
       .dir = PW_FD_NONE,
       .fsize_limit = UINT64_MAX};

static PW_TLS struct pw_thread *tls_thread;
static PW_TLS bool tls_thread_gone;
static PW_TLS bool tls_opening;
static int main_marker;          /* the main thread's key value until it registers */
static void (*tick)(bool final); /* run by the writer each round, and once at the end */

void pw_trace_set_tick(void (*fn)(bool final))
{
	tick = fn;
}

static void drop(int cause, uint64_t n)
{
	atomic_fetch_add_explicit(&T.dropped_by[cause], n, memory_order_relaxed);
}

void pw_trace_drop(int cause, uint64_t n)
{
	if (atomic_load_explicit(&pw_g.enabled, memory_order_relaxed))
		drop(cause, n);
}

const char *pw_trace_path(void)
{
	return T.path;
}

static bool file_off(int st)
{
	return st == PW_FILE_FAILED || st == PW_FILE_STOPPED;
}

bool pw_trace_kept(void)
{
	return !file_off(atomic_load_explicit(&pw_trace_gate.file_state, memory_order_acquire));
}

static void futex_wake(atomic_int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wake_writer(void)
{
	if (atomic_exchange(&T.wake, 1) == 0)
		futex_wake(&T.wake);
}

bool pw_trace_wake_writer(void)
{
	if (atomic_load_explicit(&pw_trace_gate.writer_started, memory_order_acquire)) {
		wake_writer();
		return true;
	}
	return atomic_load(&T.writer_creating) || atomic_load(&T.opening) > 0;
}

static void note_progress(void)
{
	atomic_fetch_add_explicit(&T.progress, 1, memory_order_relaxed);
	atomic_store_explicit(&T.progress_ns, pw_now_ns(), memory_order_relaxed);
}

/* ---- the producer side ---- */

/*
 * A new buffer's pages, made present at once, for a thread that already
 * has one out (a heavy producer: its first buffer faults in page by page,
 * so that a thread making a few calls does not hold a whole buffer
 * resident).  A buffer is fresh memory (malloc maps one this size anew),
 * and left to fault in as the records reach them, a page every few dozen
 * records, the calling thread took one page fault after another: a thread
 * that calls faster than the writer writes, and so keeps taking new
 * buffers, paid 60 ns a call more on the H200 host than one whose buffers
 * come back recycled.  One madvise at the buffer switch makes them present
 * for 15-19 ns a call less there in one call of 40 rounds, though not in
 * every line of another, this regime's spread being about as large
 * (tests/gpu/RESULTS.md, 2026-11-28); what is left is the kernel clearing
 * fresh pages.  MADV_POPULATE_WRITE is
 * Linux 5.14; before, it fails and the pages fault in as before.  (Having
 * the writer thread allocate and populate a buffer for a thread that ran
 * short was tried as well: no further gain measured, and not kept.)
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* linux/mman.h (asm-generic/mman-common.h) */
#endif
static void buf_populate(struct pw_buf *b)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)b->data + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)b->data + b->cap) & ~(page - 1);
	if (page > 1 && to > from)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

static struct pw_buf *buf_new(struct pw_thread *t)
{
	size_t cap = pw_g.opt.buffer_bytes;
	struct pw_buf *b = pw_fg_malloc(sizeof *b + cap); /* see forkgate.h */
	if (!b)
		return NULL;
	memset(b, 0, sizeof *b);
	b->owner = t;
	b->cap = cap;
	if (atomic_load(&t->outstanding) > 0)
		buf_populate(b);
	atomic_fetch_add(&t->outstanding, 1);
	return b;
}

static void buf_free(struct pw_buf *b)
{
	atomic_fetch_sub(&b->owner->outstanding, 1);
	pw_fg_free(b);
}

/* Publish b as the thread's current buffer.  seq_cst: see the cut. */
static void buf_install(struct pw_thread *t, struct pw_buf *b)
{
	b->next = NULL;
	b->used = 0;
	b->flushed = 0;
	atomic_store_explicit(&b->st, 0, memory_order_relaxed);
	b->gen = t->next_gen++;
	t->cur = b;
	pw_tls_fold.cur = b; /* (buffers are installed by their own thread) */
	if (!pw_tls_tid)
		pw_tls_tid = pw_gettid(); /* set wherever cur is (pw_record_row) */
	atomic_store(&t->cur_pub, b);
	/* The thread's unpublished bytes begin here: an open fold tail, even an
	 * empty one, moves with the buffer (rotate copied its bytes here).  Left
	 * in the old buffer, an empty tail's next record was written there,
	 * past what the writer reads and maybe past its end, and its owner's
	 * record then published that many unwritten bytes of the new one. */
	pw_tls_fold.base = b->data;
	pw_tls_fold.end = b->data + b->cap;
}

static void push_full(struct pw_buf *b)
{
	struct pw_buf *head = atomic_load_explicit(&T.full, memory_order_relaxed);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak_explicit(&T.full, &head, b, memory_order_release,
	                                              memory_order_relaxed));
}

static void free_list(struct pw_buf *b)
{
	while (b) {
		struct pw_buf *next = b->next;
		buf_free(b);
		b = next;
	}
}

/* A spare, a recycled or a new buffer, without waiting; NULL if none.
 * *oom: none because malloc failed. */
static struct pw_buf *take_buffer(struct pw_thread *t, bool *oom)
{
	struct pw_buf *b = t->spare;
	if (!b)
		b = atomic_exchange_explicit(&t->returned, NULL, memory_order_acquire);
	if (b) {
		t->spare = b->next;
		return b;
	}
	if (atomic_load(&t->outstanding) >= PW_MAX_OUTSTANDING)
		return NULL;
	b = buf_new(t);
	*oom = !b;
	return b;
}

/* Thread exit (the key's destructor): the current buffer goes to the writer,
 * the record to the next thread that registers. */
static void thread_gone(void *arg)
{
	struct pw_thread *t = arg;
	tls_thread = NULL;
	tls_thread_gone = true;
	pw_tls_fold.base = NULL; /* no buffer: no fold tail */
	pw_tls_fold.cur = NULL;
	/* Key destructors run in the main thread only when it calls pthread_exit:
	 * the process now ends with its last thread (see retire). */
	if (pw_gettid() == getpid())
		atomic_store(&T.main_exited, true);
	if (!t || arg == &main_marker) {
		wake_writer();
		return;
	}
	free_list(t->spare);
	t->spare = NULL;
	free_list(atomic_exchange_explicit(&t->returned, NULL, memory_order_acquire));
	struct pw_buf *b = t->cur;
	t->cur = NULL;
	atomic_store(&t->cur_pub, NULL); /* unpublished before handed over (rule 1) */
	if (b)
		push_full(b);
	atomic_store_explicit(&t->state, TH_EXITED, memory_order_release);
	wake_writer();
}

static PW_TLS bool tls_registering;
static struct pw_thread *thread_register_(void);

/* (A signal handler's call that came in the middle of it, maybe in
 * calloc, is dropped: it would allocate too.) */
static struct pw_thread *thread_register(void)
{
	if (PW_UNLIKELY(tls_registering)) {
		drop(PW_DROP_SIGNAL_HANDLER, 1);
		return NULL;
	}
	tls_registering = true;
	atomic_signal_fence(memory_order_seq_cst);
	struct pw_thread *t = thread_register_();
	atomic_signal_fence(memory_order_seq_cst);
	tls_registering = false;
	return t;
}

static struct pw_thread *thread_register_(void)
{
	if (tls_thread_gone) {
		drop(PW_DROP_AFTER_THREAD_EXIT, 1);
		return NULL;
	}
	/* An exited thread's record, once the writer has written and freed all
	 * its buffers (until then they count against the record's limit). */
	struct pw_thread *t = NULL;
	for (struct pw_thread *r = atomic_load(&T.threads); r && !t; r = r->next) {
		int exited = TH_EXITED;
		if (atomic_load_explicit(&r->state, memory_order_relaxed) == TH_EXITED &&
		    atomic_load(&r->outstanding) == 0 &&
		    atomic_compare_exchange_strong(&r->state, &exited, TH_LIVE))
			t = r;
	}
	bool fresh = !t;
	if (fresh) {
		t = pw_fg_calloc(1, sizeof *t);
		if (!t) {
			drop(PW_DROP_NO_MEMORY, 1);
			return NULL;
		}
		atomic_init(&t->state, TH_LIVE);
	}
	bool oom = false;
	struct pw_buf *b = take_buffer(t, &oom);
	if (!b) {
		drop(PW_DROP_NO_MEMORY, 1);
		if (fresh) {
			pw_fg_free(t);
		} else {
			atomic_store(&t->state, TH_EXITED);
		}
		return NULL;
	}
	buf_install(t, b);
	if (fresh) {
		struct pw_thread *head = atomic_load(&T.threads);
		do
			t->next = head;
		while (!atomic_compare_exchange_weak(&T.threads, &head, t));
	}
	pthread_setspecific(T.key, t);
	tls_thread = t;
	return t;
}

/*
 * The current buffer is full: install another, then hand the old one over.
 * With no buffer to be had, the old one stays current (full) and NULL is
 * returned: the event is dropped and counted, the next one tries again.
 * The thread never waits for the writer (whose pace is the disk's).
 *
 * The open fold tail (record.h), `tail` bytes past the old buffer's
 * committed end, moves to the start of the new one: it is not published,
 * so the writer never saw it.  Its callers hold the thread's busy flag
 * (pw_tls_fold.busy): a signal handler's call that comes in the middle,
 * maybe in malloc, is dropped before it gets here.
 */
static struct pw_buf *rotate(struct pw_thread *t, uint64_t events, size_t tail)
{
	bool oom = false;
	struct pw_buf *nb = take_buffer(t, &oom);
	if (!nb || nb->cap < tail + PW_EVENT_MAX) {
		if (nb) { /* a buffer_kb this small cannot hold the tail and a record: keep it */
			nb->next = t->spare;
			t->spare = nb;
		}
		wake_writer();
		/* After the cut (or with tracing off) the event was never made. */
		if (atomic_load_explicit(&pw_g.enabled, memory_order_relaxed) &&
		    !atomic_load_explicit(&T.closing, memory_order_relaxed))
			drop(oom ? PW_DROP_NO_MEMORY : PW_DROP_WRITER_BEHIND, events);
		return NULL;
	}
	struct pw_buf *old = t->cur;
	if (tail) /* before the push: rule 1 (buf_install moves the tail's base) */
		memcpy(nb->data, old->data + old->used, tail);
	/* not busy when handed over (rec_room marked it so for the record
	 * that now goes into nb) */
	atomic_store_explicit(&old->st, (uint64_t)old->used << 1, memory_order_release);
	push_full(old); /* rule 1: pushed first, then the next one published */
	buf_install(t, nb);
	wake_writer();
	return nb;
}

static bool open_once(void);
static void restart_writer(void);

/* Room for need bytes of records holding `events` events in the calling
 * thread's buffer, the buffer marked busy: where to write them, and the
 * buffer in *bp; NULL when none is made (the events counted as dropped
 * when tracing is on).  While a runtime call's fold tail is open
 * (record.h), records go after it, into the tail (rec_commit_buf). */
static inline __attribute__((always_inline)) char *rec_room(size_t need, uint64_t events, struct pw_buf **bp)
{
	if (!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed))
		return NULL;
	/* no trace is kept: no record, no buffer for the thread, no lock */
	int st = atomic_load_explicit(&pw_trace_gate.file_state, memory_order_acquire);
	if (PW_UNLIKELY(st != PW_FILE_OPEN) && file_off(st))
		return NULL;
	struct pw_thread *t = tls_thread;
	if (PW_UNLIKELY(!t) && !(t = thread_register()))
		return NULL;
	if (PW_UNLIKELY(st != PW_FILE_OPEN) && !open_once())
		return NULL;
	if (PW_UNLIKELY(!atomic_load_explicit(&pw_trace_gate.writer_started, memory_order_relaxed)))
		restart_writer();
	/* A record being written on this thread already: this is a signal
	 * handler's call that interrupted it.  Its record would be written over
	 * the other one: it is dropped (counted), the interrupted one kept. */
	if (!pw_rec_claim()) {
		drop(PW_DROP_SIGNAL_HANDLER, events);
		return NULL;
	}
	struct pw_buf *b = t->cur; /* (trace_hot.h: the order of the steps) */
	bool in_tail = PW_UNLIKELY(pw_tls_fold.owner != 0);
	pw_rec_busy(b);
	if (PW_UNLIKELY(!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed)))
		goto off;
	size_t tail = in_tail ? pw_tls_fold.used : 0;
	if (PW_UNLIKELY(b->cap - b->used - tail < need)) {
		/* Failing, it drops this record's events only: an open tail stays,
		 * and its owner's record writes it or drops it with its own. */
		struct pw_buf *nb = rotate(t, events, tail); /* b handed over not busy */
		if (!nb)
			goto off;
		b = nb;
		pw_rec_busy(b);
		if (PW_UNLIKELY(!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed)))
			goto off;
	}
	*bp = b;
	return b->data + b->used + tail;
off:
	pw_rec_unbusy(b);
	return NULL;
}

/* Whether the CPU has PREFETCHW (CPUID 0x80000001 ECX bit 8; trace_hot.h).
 * Set once at start (pw_trace_init). */
static void prefetch_probe(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	pw_trace_gate.prefetchw = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c >> 8 & 1);
#endif
}

/* Publish size more bytes of buffer b (the thread's current one), not
 * busy; while a fold tail is open, they join the tail instead (published
 * with the runtime call's own record). */
static inline __attribute__((always_inline)) void rec_commit_buf(struct pw_buf *b, size_t size)
{
	if (PW_UNLIKELY(pw_tls_fold.owner)) {
		pw_tls_fold.used += (uint32_t)size;
		pw_tls_fold.n += size > 0;
		atomic_signal_fence(memory_order_seq_cst);
		pw_tls_fold.busy = 0;
		atomic_store_explicit(&b->st, (uint64_t)b->used << 1, memory_order_release);
		return;
	}
	pw_rec_publish(b, size);
}

/* The record of call c, in the calling thread's buffer (record_write.h:
 * reserve, write and publish in this one function). */
__attribute__((hot)) void pw_record_call(const struct pw_call *c)
{
	struct pw_buf *b;
	char *rec = rec_room(PW_EVENT_MAX, 1, &b);
	if (rec)
		rec_commit_buf(b, pw_record_write(rec, PW_EVENT_MAX, c));
}

bool pw_trace_thread_ready(void)
{
	return tls_thread || (pw_trace_kept() && thread_register());
}

/* The tail moved to a fresh buffer (rotate leaves PW_EVENT_MAX past it);
 * false (the event dropped and counted) when there is none. */
bool pw_fold_grow(void)
{
	struct pw_thread *t = tls_thread;
	if (!t || !atomic_load_explicit(&pw_g.enabled, memory_order_relaxed))
		return false;
	return rotate(t, 1, pw_tls_fold.used) != NULL; /* the tail stays, the one event is dropped */
}

/* The runtime call c's own record after its tail, and all of it
 * published (record.h: the writer gives the folded calls its times). */
__attribute__((hot)) void pw_record_call_folded(const struct pw_call *c)
{
	if (PW_UNLIKELY(pw_tls_fold.owner != c->seq)) { /* the tail was taken from it (a fork in between) */
		pw_record_call(c);
		return;
	}
	struct pw_buf *b;
	char *rec = rec_room(PW_EVENT_MAX, 1 + pw_tls_fold.n, &b); /* dropped: the tail's events with it */
	size_t used = pw_tls_fold.used;
	/* From here records are published again (rec_commit_buf); a signal
	 * handler's record finds the buffer busy until this one is. */
	pw_tls_fold.owner = 0;
	pw_tls_fold.used = pw_tls_fold.n = 0;
	if (!rec)
		return;
	rec_commit_buf(b, used + pw_record_write(rec, PW_EVENT_MAX, c));
}

static PW_TLS char *tls_line; /* the record pw_trace_event_begin gave */
static PW_TLS struct pw_buf *tls_line_buf;

bool pw_trace_event_begin(struct pw_jw *w)
{
	struct pw_buf *b;
	char *rec = rec_room(PW_EVENT_MAX, 1, &b);
	if (!rec)
		return false;
	tls_line = rec;
	tls_line_buf = b;
	pw_jw_init(w, rec + sizeof(struct pw_rec_hdr), PW_EVENT_MAX - sizeof(struct pw_rec_hdr) - 1);
	return true;
}

void pw_trace_event_end(struct pw_jw *w)
{
	char *start = tls_line;
	if (PW_UNLIKELY(w->overflow)) {
		drop(PW_DROP_TOO_LONG, 1);
		rec_commit_buf(tls_line_buf, 0);
		return;
	}
	size_t len = (size_t)(w->p - start) - sizeof(struct pw_rec_hdr);
	struct pw_rec_hdr h = {
	    .size = (uint32_t)((sizeof h + len + 7) & ~(size_t)7), .type = PW_REC_LINE, .len = (uint16_t)len};
	memcpy(start, &h, sizeof h);
	rec_commit_buf(tls_line_buf, h.size);
}

/* The thread marked as writing a finding before its buffer is made busy
 * (rec_room), so that the cut at exit, seeing the buffer busy, sees the
 * mark too: a finding cut off there is counted apart from a call. */
bool pw_trace_finding_begin(struct pw_jw *w)
{
	if (!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed) || !pw_trace_thread_ready())
		return false;
	struct pw_thread *t = tls_thread;
	atomic_fetch_add_explicit(&t->findings_open, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	if (pw_trace_event_begin(w))
		return true;
	atomic_fetch_sub_explicit(&t->findings_open, 1, memory_order_relaxed);
	return false;
}

void pw_trace_finding_end(struct pw_jw *w)
{
	pw_trace_event_end(w);
	atomic_fetch_sub_explicit(&tls_thread->findings_open, 1, memory_order_relaxed);
}

/* ---- the file (writer role) ---- */

static const char violation_prefix[] = "{\"type\":\"violation\"";

static bool is_violation(const char *line, size_t len)
{
	return len >= sizeof violation_prefix - 1 &&
	       !memcmp(line, violation_prefix, sizeof violation_prefix - 1);
}

/* A device line (devices.c): at most one per device, and what the trace's
 * ordinals mean; kept past the size limit like the findings. */
static const char device_prefix[] = "{\"type\":\"device\"";
static bool is_device(const char *line, size_t len)
{
	return len >= sizeof device_prefix - 1 && !memcmp(line, device_prefix, sizeof device_prefix - 1);
}

static void count_lines(const char *p, const char *end, uint64_t *lines, uint64_t *viol)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		(*lines)++;
		*viol += is_violation(p, (size_t)(next - p));
		p = next;
	}
}

/* pwrite at off, all of it; raises no signal in the program. */
static int pwrite_all(int fd, const char *p, size_t n, uint64_t off)
{
	struct pw_sigguard g;
	pw_sig_block(&g);
	int err = 0;
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	pw_sig_restore(&g, err);
	errno = err;
	return err ? -1 : 0;
}

static void refresh_fsize_limit(void)
{
	struct rlimit rl;
	T.fsize_limit = getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
	                    ? (uint64_t)rl.rlim_cur
	                    : UINT64_MAX;
}

/* Why the file cannot be reached any more (file_fd), for messages. */
static const char lost_text[] =
    " (the program closed the trace file's descriptor or put another file on its number, and the "
    "file could not be opened again)";

/*
 * The trace file's descriptor, still ours (core/fd.h).  If the program
 * closed it or put another file on its number, the file is opened again by
 * its path, where it must still be the same file; -1 (errno) if it cannot
 * be: the caller's write fails, never into the program's file.
 */
static int file_fd(void)
{
	int fd = pw_fd_get(&T.file);
	if (fd >= 0 || !T.have_file)
		return fd;
	char partial[sizeof T.path + 8];
	snprintf(partial, sizeof partial, "%s.partial", T.path);
	fd = pw_fd_reopen(&T.file, AT_FDCWD, partial, O_WRONLY | O_NOFOLLOW);
	if (fd < 0) {
		T.have_file = false;
		errno = EBADF;
		return -1;
	}
	pw_debug("the program closed the trace's descriptor or put another file on its number: %s "
	         "opened again (descriptor %d)",
	         partial, fd);
	return fd;
}

/* Writing failed: no more events, the file cut back to its last complete
 * line, one warning; the footer will say why. */
static void set_write_error_in_use(int e, const char *detail)
{
	if (T.write_err)
		return;
	T.write_err = e ? e : EIO;
	int fd = file_fd();
	if (fd < 0 && !detail)
		detail = lost_text;
	snprintf(T.write_err_text, sizeof T.write_err_text, "%s: %s%s", pw_errno_name(T.write_err),
	         strerror(T.write_err), detail ? detail : "");
	if (fd >= 0 && ftruncate(fd, (off_t)T.file_bytes) != 0) {
		/* a partial line may stay after the last complete one: the footer
		 * is written over it, at file_bytes, and the file cut there */
	}
	/* without the file, no footer either */
	const char *then = fd < 0                    ? "; it stays .partial"
	                   : atomic_load(&T.closing) ? " (its footer says what was lost)"
	                                             : " (its footer will say what was lost)";
	if (atomic_load(&T.closing)) { /* the final drain: tracing is off already, say it here */
		pw_log("writing the trace %s stopped: %s%s", T.path, T.write_err_text, then);
	} else {
		atomic_store(&pw_trace_gate.file_state, PW_FILE_STOPPED); /* no more records */
		pw_disable("writing the trace %s stopped: %s%s", T.path, T.write_err_text, then);
	}
}

static void set_write_error(int e, const char *detail)
{
	pw_fd_use_begin(); /* its descriptor, against the program's dup2 (core/fd.h) */
	set_write_error_in_use(e, detail);
	pw_fd_use_end();
}

/* Blocks for n more bytes and the footer's room, ahead of the end. */
static bool reserve(int fd, size_t n)
{
	if (T.prealloc_off)
		return true;
	uint64_t need = T.file_bytes + n + PW_RESERVE_BYTES;
	if (need <= T.reserved_to)
		return true;
	uint64_t lens[2] = {need - T.file_bytes + PW_PREALLOC_STEP, need - T.file_bytes};
	for (int i = 0; i < 2; i++) {
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)T.file_bytes, (off_t)lens[i]) == 0) {
			T.reserved_to = T.file_bytes + lens[i];
			return true;
		}
		if (errno != ENOSPC && errno != EDQUOT) {
			T.prealloc_off = true; /* not supported here: no reserve */
			return true;
		}
	}
	return false;
}

/* Appends n bytes of complete lines; -1 after a write error. */
static int file_append_in_use(const char *p, size_t n)
{
	if (T.write_err || !T.have_file)
		return -1;
	if (T.fsize_limit != UINT64_MAX && T.file_bytes + n + PW_RESERVE_BYTES > T.fsize_limit) {
		char detail[96];
		snprintf(detail, sizeof detail, " (the file-size limit, ulimit -f, is %llu bytes)",
		         (unsigned long long)T.fsize_limit);
		set_write_error(EFBIG, detail);
		return -1;
	}
	int fd = file_fd();
	if (fd < 0) {
		set_write_error(EBADF, lost_text);
		return -1;
	}
	if (!reserve(fd, n)) {
		set_write_error(errno, NULL);
		return -1;
	}
	if (pwrite_all(fd, p, n, T.file_bytes)) {
		set_write_error(errno, NULL);
		return -1;
	}
	T.file_bytes += n;
	note_progress();
	return 0;
}

static int file_append(const char *p, size_t n)
{
	pw_fd_use_begin();
	int rc = file_append_in_use(p, n);
	pw_fd_use_end();
	return rc;
}

/* The seq of an event line, 0 if it has none. */
static uint64_t line_seq(const char *p, size_t len)
{
	static const char key[] = "\"seq\":";
	size_t scan = len < 96 ? len : 96;
	for (size_t i = 0; i + sizeof key - 1 < scan; i++)
		if (!memcmp(p + i, key, sizeof key - 1)) {
			uint64_t v = 0;
			for (size_t k = i + sizeof key - 1; k < len && p[k] >= '0' && p[k] <= '9'; k++)
				v = v * 10 + (uint64_t)(p[k] - '0');
			return v;
		}
	return 0;
}

static void note_limit(const char *line, size_t len)
{
	if (T.limited)
		return;
	T.limited = true;
	T.limit_t_ns = pw_now_ns();
	T.limit_seq = line_seq(line, len);
	if (!T.limit_seq)
		T.limit_seq = atomic_load(&pw_g.seq) + 1;
	if (pw_g.opt.verbosity >= 1)
		pw_log("the trace %s reached max_trace_mb=%llu: events from seq %llu on are counted, not "
		       "written, except findings",
		       T.path, (unsigned long long)pw_g.opt.max_trace_mb, (unsigned long long)T.limit_seq);
}

/* Lines [p, end) that go in: one write, counted. */
static void append_run(const char *p, const char *end)
{
	if (p >= end)
		return;
	uint64_t lines = 0, viol = 0;
	count_lines(p, end, &lines, &viol);
	if (file_append(p, (size_t)(end - p))) {
		drop(PW_DROP_WRITE_ERROR, lines);
		return;
	}
	T.lines += lines;
	T.violations += viol;
	T.event_bytes += (uint64_t)(end - p);
}

/*
 * Writes complete lines [p, end): all of them while under the size limit,
 * then only findings; after a write error, none (each counted).
 */
static void write_lines(const char *p, const char *end)
{
	if (p >= end)
		return;
	uint64_t limit = pw_g.opt.max_trace_mb * 1024 * 1024;
	if (T.write_err || !T.have_file) {
		uint64_t lines = 0, viol = 0;
		count_lines(p, end, &lines, &viol);
		drop(PW_DROP_WRITE_ERROR, lines);
	} else if (!limit || (!T.limited && T.event_bytes + (uint64_t)(end - p) <= limit)) {
		append_run(p, end);
	} else {
		/* Line by line, a run of the lines that go in written at once. */
		const char *run = p;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *next = nl ? nl + 1 : end;
			size_t len = (size_t)(next - p);
			bool keep = is_violation(p, len) || is_device(p, len) ||
			            (!T.limited && T.event_bytes + (uint64_t)(p - run) + len <= limit);
			if (!keep) {
				append_run(run, p);
				note_limit(p, len);
				drop(PW_DROP_SIZE_LIMIT, 1);
				run = next;
			}
			p = next;
		}
		append_run(run, end);
	}
}

/* The lines the writer role decodes records into, before they are written
 * (static: the final drain may run in exit() called from a signal handler,
 * and allocates nothing). */
static char out_lines[256 * 1024];

/* Decodes the committed records of b up to `to` into lines and writes them. */
static void write_span(struct pw_buf *b, size_t to)
{
	if (to <= b->flushed)
		return;
	const char *p = b->data + b->flushed, *end = b->data + to;
	while (p < end) {
		struct pw_decode_out o = {.buf = out_lines, .cap = sizeof out_lines};
		p += pw_record_decode_span(p, end, &o);
		write_lines(o.buf, o.buf + o.len);
		if (o.too_long + o.bad)
			drop(PW_DROP_TOO_LONG, o.too_long + o.bad);
	}
	b->flushed = to;
}

static void recycle(struct pw_buf *b)
{
	struct pw_thread *t = b->owner;
	if (atomic_load(&t->state) != TH_LIVE) {
		buf_free(b);
		return;
	}
	struct pw_buf *head = atomic_load_explicit(&t->returned, memory_order_relaxed);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak_explicit(&t->returned, &head, b, memory_order_release,
	                                              memory_order_relaxed));
}

/* The full buffers, oldest first; writer role. */
static struct pw_buf *take_full(void)
{
	struct pw_buf *list = atomic_exchange_explicit(&T.full, NULL, memory_order_acquire);
	struct pw_buf *fifo = NULL;
	while (list) { /* the stack is newest first: reverse it */
		struct pw_buf *next = list->next;
		list->next = fifo;
		fifo = list;
		list = next;
	}
	return fifo;
}

/* One round of the writer: the full buffers, then what the current ones hold. */
static void drain(void)
{
	struct pw_buf *done = NULL;
	for (struct pw_buf *b = take_full(), *next; b; b = next) {
		next = b->next;
		write_span(b, (size_t)(atomic_load_explicit(&b->st, memory_order_acquire) >> 1));
		b->owner->writer_gen = b->gen + 1;
		b->next = done;
		done = b;
	}
	for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next) {
		struct pw_buf *b = atomic_load_explicit(&t->cur_pub, memory_order_acquire);
		if (b && b->gen == t->writer_gen)
			write_span(b, (size_t)(atomic_load_explicit(&b->st, memory_order_acquire) >> 1));
	}
	/* Rule 2: only now, after the last cur_pub read of this round. */
	while (done) {
		struct pw_buf *b = done;
		done = b->next;
		recycle(b);
	}
}

/*
 * The last drain, by the finishing thread after the writer stopped, with
 * tracing already off: every buffer, and each thread's current one read
 * once (the cut).  Buffers are kept (rule 3).
 */
static void final_drain(void)
{
	for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next)
		t->final_done = false;
	for (int round = 0;; round++) {
		for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next)
			t->exited_seen = atomic_load_explicit(&t->state, memory_order_acquire) == TH_EXITED;
		for (struct pw_buf *b = take_full(), *next; b; b = next) {
			next = b->next;
			write_span(b, (size_t)(atomic_load_explicit(&b->st, memory_order_acquire) >> 1));
			b->owner->writer_gen = b->gen + 1;
			b->next = T.kept;
			T.kept = b;
		}
		bool pending = false;
		for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next) {
			if (t->final_done)
				continue;
			struct pw_buf *b = atomic_load(&t->cur_pub);
			if (!b || b->gen > t->writer_gen) {
				/* exited: its last buffer was on the full list; else a
				 * buffer handed over after we took the list: next round */
				if (!b && t->exited_seen)
					t->final_done = true;
				else
					pending = true;
				continue;
			}
			if (b->gen == t->writer_gen) {
				uint64_t st = atomic_load(&b->st); /* the cut */
				write_span(b, (size_t)(st >> 1));
				/* busy: a call's record, or a finding's line
				 * (pw_trace_finding_begin marked it before) */
				atomic_thread_fence(memory_order_acquire);
				if (st & PW_ST_BUSY)
					drop(atomic_load_explicit(&t->findings_open, memory_order_relaxed)
					         ? PW_DROP_FINDING_IN_FLIGHT
					         : PW_DROP_IN_FLIGHT,
					     1);
			}
			/* gen behind: already written, the thread is between pushing it
			 * and publishing the next, which it will find tracing off in */
			t->final_done = true;
		}
		if (!pending || round >= 1000)
			break;
		sched_yield();
	}
}

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -1;
	return 0;
}

/* Creates <host>.<pid>[.<n>].pw.jsonl.partial with a name no earlier file
 * took.  The directory stays open (T.dir) until the header is written. */
static int open_trace_file(void)
{
	const char *dir = pw_g.opt.out;
	if (mkdir_p(dir)) {
		pw_disable("cannot create the trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (pw_fd_keep(&T.dir, open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC))) {
		pw_disable("cannot open the trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	char host[128];
	if (gethostname(host, sizeof host))
		strcpy(host, "localhost");
	host[sizeof host - 1] = 0;
	for (char *c = host; *c; c++)
		if (*c == '/')
			*c = '_';
	for (int n = 0; n < 1000; n++) {
		char partial[sizeof T.name + 8];
		if (n == 0)
			snprintf(T.name, sizeof T.name, "%s.%d.pw.jsonl", host, (int)getpid());
		else
			snprintf(T.name, sizeof T.name, "%s.%d.%d.pw.jsonl", host, (int)getpid(), n);
		snprintf(partial, sizeof partial, "%s.partial", T.name);
		if (faccessat(T.dir.fd, T.name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		int fd =
		    openat(T.dir.fd, partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			break;
		if (pw_fd_keep(&T.file, fd)) {
			int e = errno;
			unlinkat(T.dir.fd, partial, 0);
			pw_fd_close(&T.dir);
			pw_disable("cannot keep the trace file's descriptor at %d or above, out of the "
			           "program's way: %s",
			           pw_fd_floor(), strerror(e));
			return -1;
		}
		if (!realpath(dir, T.dir_path))
			snprintf(T.dir_path, sizeof T.dir_path, "%s", dir);
		snprintf(T.path, sizeof T.path, "%s/%s", T.dir_path, T.name);
		T.have_file = true;
		return 0;
	}
	pw_disable("cannot create a trace file in '%s': %s", dir, strerror(errno));
	pw_fd_close(&T.dir);
	return -1;
}

static void discard_file(void)
{
	char partial[sizeof T.name + 8];
	snprintf(partial, sizeof partial, "%s.partial", T.name);
	if (pw_fd_get(&T.dir) >= 0)
		unlinkat(T.dir.fd, partial, 0);
	pw_fd_close(&T.file);
	pw_fd_close(&T.dir);
	T.have_file = false;
}

static int write_header(void)
{
	char *line = pw_header_json();
	if (!line) {
		pw_disable("cannot encode the trace header");
		discard_file();
		return -1;
	}
	size_t n = strlen(line);
	line[n] = '\n'; /* replaces the terminating NUL: written by length */
	refresh_fsize_limit();
	int rc = 0, fd = file_fd();
	if (T.fsize_limit != UINT64_MAX && n + 1 + PW_RESERVE_BYTES > T.fsize_limit) {
		pw_disable(
		    "cannot write the trace %s: the file-size limit (ulimit -f) of %llu bytes leaves no room",
		    T.path, (unsigned long long)T.fsize_limit);
		rc = -1;
	} else if (fd < 0 || !reserve(fd, n + 1) || pwrite_all(fd, line, n + 1, 0)) {
		pw_disable("cannot write the trace %s: %s", T.path, strerror(errno));
		rc = -1;
	}
	free(line);
	if (rc) { /* a file without its header would be unreadable */
		discard_file();
		return -1;
	}
	T.file_bytes = T.header_bytes = n + 1;
	pw_fd_close(&T.dir); /* opened again to rename the file at the end */
	return 0;
}

static void futex_wait_ms(atomic_int *w, int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

/*
 * The writer does its work (drain, tick) holding round_lock, and fork waits
 * for it (pw_trace_fork_prepare, from pthread_atfork): a child is never
 * forked while our thread is inside malloc or the loader, whose locks it
 * would inherit held (a hang seen under ASan, whose allocator does not lock
 * itself across fork).
 */
static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;

void pw_trace_fork_prepare(void)
{
	/* A writer that was created but has not taken round_lock yet is still
	 * starting: the thread library and a sanitizer's allocator set up its
	 * stack and TLS, under their own locks.  Wait until it is in its loop.
	 * start_lock (after round_lock, the writer's order in retire): no
	 * thread is writing the header (malloc, the loader) or starting the
	 * writer.  Then the gate: no thread of the program is in our malloc or
	 * free (forkgate.h).
	 *
	 * A signal handler's fork on the thread that is opening the file (its
	 * first traced call) finds start_lock held by that same thread: no
	 * other thread can be inside it then, so it is not taken again (that
	 * would never return).  The writer it may have started is past
	 * pthread_create (start_writer blocks signals around it) and reaches
	 * its loop without us. */
	bool take = !tls_opening;
	for (;;) {
		pthread_mutex_lock(&round_lock);
		if (take)
			pthread_mutex_lock(&T.start_lock);
		if (!atomic_load(&T.writer_creating))
			break;
		if (take)
			pthread_mutex_unlock(&T.start_lock);
		pthread_mutex_unlock(&round_lock);
		sched_yield();
	}
	pw_forkgate_close();
}

void pw_trace_fork_parent(void)
{
	pw_forkgate_open_parent();
	if (!tls_opening) /* the forking thread's, as in prepare */
		pthread_mutex_unlock(&T.start_lock);
	pthread_mutex_unlock(&round_lock);
}

static PW_TLS bool tls_in_round;

/* The writer ended without being asked (cancelled, or pthread_exit from
 * something it called): its round's lock is released, and the finishing
 * thread will write what it left.  A key destructor (the key is cleared when
 * the writer ends normally), not a cleanup handler: that would longjmp. */
static void writer_gone(void *arg)
{
	(void)arg;
	pw_fd_use_abandon(); /* it may have ended inside a write */
	if (tls_in_round)
		pthread_mutex_unlock(&round_lock);
	atomic_store(&T.writer_creating, false);
	if (!atomic_exchange(&T.writer_died, true))
		pw_log("the trace writer thread ended unexpectedly: events wait in memory (as much as "
		       "%d buffers a thread) until the process ends, then the trace is written",
		       PW_MAX_OUTSTANDING);
}

/*
 * The main thread has left with pthread_exit, and nothing came to write for
 * a few rounds: the writer ends too.  glibc ends such a process when its
 * last thread ends, and the writer (which blocks every signal) must never be
 * the one keeping it alive, or unkillable by SIGTERM.  The next event starts
 * a writer again.  Not while finishing: then the finisher joins it.  Nor
 * while another thread holds start_lock: the writer holds round_lock here,
 * and a fork from a signal handler on the thread opening the file holds
 * start_lock and waits for round_lock (see pw_trace_fork_prepare); the
 * writer tries again after its next round.
 */
static bool retire(void)
{
	bool done = false;
	if (pthread_mutex_trylock(&T.start_lock) != 0)
		return false;
	if (!atomic_load(&T.closing) && !atomic_load(&T.stop_writer) && !atomic_load(&T.full)) {
		atomic_store(&pw_trace_gate.writer_started, false);
		pthread_detach(pthread_self());
		done = true;
	}
	pthread_mutex_unlock(&T.start_lock);
	return done;
}

static void *writer_main(void *arg)
{
	(void)arg;
#ifdef __GLIBC__
	pthread_setname_np(pthread_self(), "peerwatch-wr");
#endif
	pw_tls_internal = 1;
	pthread_setspecific(T.writer_key, &main_marker);
	pthread_mutex_lock(&round_lock);
	tls_in_round = true;
	atomic_store(&T.writer_creating, false);
	int idle = 0;
	while (!atomic_load(&T.stop_writer)) {
		if (tick)
			tick(false);
		refresh_fsize_limit();
		uint64_t before = T.file_bytes;
		drain();
		note_progress();
		idle = T.file_bytes == before ? idle + 1 : 0;
		if (atomic_load(&T.main_exited) && idle >= PW_RETIRE_ROUNDS && retire())
			break;
		tls_in_round = false;
		pthread_mutex_unlock(&round_lock);
		futex_wait_ms(&T.wake, PW_FLUSH_MS);
		atomic_store(&T.wake, 0);
		pthread_mutex_lock(&round_lock);
		tls_in_round = true;
	}
	tls_in_round = false;
	pthread_mutex_unlock(&round_lock);
	pthread_setspecific(T.writer_key, NULL); /* a normal end */
	return NULL;
}

/* false: it could not be started, and no trace is kept (said). */
static bool start_writer(void)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	atomic_store(&T.stop_writer, false);
	atomic_store(&T.writer_died, false);
	atomic_store(&T.writer_creating, true);
	note_progress();
	int rc = pthread_create(&T.writer, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		atomic_store(&T.writer_creating, false);
		pw_disable("cannot start the trace writer thread: %s", strerror(rc));
		return false;
	}
	atomic_store_explicit(&pw_trace_gate.writer_started, true, memory_order_release);
	return true;
}

/*
 * The process's first event: create the file and write its header here, on
 * the calling thread, so that a process that dies right after still leaves a
 * .partial file saying who it was; then the writer thread takes over.
 */
static bool open_once(void)
{
	if (tls_opening) /* a signal handler's call while this thread opens it */
		return false;
	pthread_mutex_lock(&T.start_lock);
	int st = atomic_load(&pw_trace_gate.file_state);
	if (st == PW_FILE_NONE && !atomic_load(&T.closing)) {
		atomic_fetch_add(&T.opening, 1);
		tls_opening = true;
		pw_tls_internal++;
		pw_fd_use_begin();
		st = open_trace_file() == 0 && write_header() == 0 ? PW_FILE_OPEN : PW_FILE_FAILED;
		pw_fd_use_end();
		if (st == PW_FILE_OPEN) {
			if (pw_g.opt.verbosity >= 1)
				pw_log("tracing to %s", T.path);
			if (!start_writer())
				st = PW_FILE_STOPPED; /* finished at exit with its header */
		}
		pw_tls_internal--;
		tls_opening = false;
		atomic_store_explicit(&pw_trace_gate.file_state, st, memory_order_release);
		atomic_fetch_sub(&T.opening, 1);
	}
	pthread_mutex_unlock(&T.start_lock);
	return st == PW_FILE_OPEN && atomic_load(&pw_g.enabled);
}

/* A writer that retired (see retire) is wanted again. */
static void restart_writer(void)
{
	pthread_mutex_lock(&T.start_lock);
	if (!atomic_load(&pw_trace_gate.writer_started) && !atomic_load(&T.closing) &&
	    atomic_load(&pw_trace_gate.file_state) == PW_FILE_OPEN && atomic_load(&pw_g.enabled) &&
	    !start_writer())
		atomic_store(&pw_trace_gate.file_state, PW_FILE_STOPPED);
	pthread_mutex_unlock(&T.start_lock);
}

/* Stop the writer thread; false if it is stuck (then nothing may touch the
 * file or the buffers). */
static bool stop_writer(void)
{
	if (!atomic_load(&pw_trace_gate.writer_started))
		return true;
	atomic_store(&T.stop_writer, true);
	wake_writer();
	uint64_t seen = atomic_load(&T.progress), since = pw_now_ns();
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		int rc = pthread_timedjoin_np(T.writer, NULL, &ts);
		if (rc == 0 || rc == ESRCH || rc == EINVAL || rc == EDEADLK)
			break;
		uint64_t p = atomic_load(&T.progress), now = pw_now_ns();
		if (p != seen) {
			seen = p;
			since = now;
		} else if (now - since > PW_FINISH_STALL_NS) {
			return false;
		}
	}
	atomic_store(&pw_trace_gate.writer_started, false);
	return true;
}

/* Cut whole lines off the end until the file ends at or before `end`,
 * counting them; false if that would reach into the header. */
static bool make_room(int fd, uint64_t end)
{
	char chunk[65536];
	while (T.file_bytes > end) {
		uint64_t lo = T.file_bytes > sizeof chunk ? T.file_bytes - sizeof chunk : 0;
		if (lo < T.header_bytes)
			lo = T.header_bytes;
		if (lo >= T.file_bytes)
			return false;
		size_t n = (size_t)(T.file_bytes - lo);
		if (pread(fd, chunk, n, (off_t)lo) != (ssize_t)n)
			return false;
		/* the last line is (its start, file_bytes); lines end in '\n' */
		size_t i = n - 1;
		while (i > 0 && chunk[i - 1] != '\n')
			i--;
		if (i == 0 && lo != T.header_bytes)
			return false; /* no line start in the chunk: lines are shorter than that */
		T.lines--;
		T.violations -= is_violation(chunk + i, n - i);
		drop(PW_DROP_WRITE_ERROR, 1);
		T.file_bytes = lo + i;
	}
	return ftruncate(fd, (off_t)T.file_bytes) == 0;
}

static void stats(struct pw_trace_stats *s)
{
	memset(s, 0, sizeof *s);
	s->events = T.lines;
	s->violations = T.violations;
	for (int i = 0; i < PW_DROP_N; i++)
		s->dropped_by[i] = atomic_load(&T.dropped_by[i]);
	s->limited = T.limited;
	s->limit_bytes = pw_g.opt.max_trace_mb * 1024 * 1024;
	s->limit_seq = T.limit_seq;
	s->limit_t_ns = T.limit_t_ns;
	snprintf(s->write_error, sizeof s->write_error, "%s", T.write_err ? T.write_err_text : "");
}

/* One footer at file_bytes; *err: why not.  The buffer is static: one
 * thread finishes, and nothing here may allocate (see header.c). */
static bool put_footer(int fd, const char *why, bool compact, const struct pw_footer_in *in, int *err)
{
	static char footer[PW_FOOTER_BYTES];
	struct pw_trace_stats s;
	stats(&s);
	size_t n = pw_footer_write(footer, sizeof footer - 1, &s, why, compact, in);
	if (!n) {
		*err = ENOBUFS;
		return false;
	}
	footer[n++] = '\n';
	if (T.fsize_limit != UINT64_MAX && T.file_bytes + n > T.fsize_limit) {
		*err = EFBIG;
		return false;
	}
	if (pwrite_all(fd, footer, n, T.file_bytes)) {
		*err = errno;
		return false;
	}
	T.file_bytes += n;
	return true;
}

/* The footer: in full, else without its lists, else after cutting lines
 * off the end to make room for it.  false: the file stays .partial. */
static bool write_footer(int fd, const char *why, const struct pw_footer_in *in)
{
	int err = 0;
	refresh_fsize_limit();
	if (put_footer(fd, why, false, in, &err) || put_footer(fd, why, true, in, &err))
		return true;
	if (!T.write_err)
		set_write_error(err, " (writing the footer)");
	if (err != EFBIG && err != ENOSPC && err != EDQUOT)
		return false;
	/* A compact footer is a few KiB at most. */
	uint64_t want = PW_COMPACT_FOOTER_MAX;
	uint64_t end = err == EFBIG ? (T.fsize_limit > want ? T.fsize_limit - want : 0)
	                            : (T.file_bytes > want ? T.file_bytes - want : 0);
	return make_room(fd, end) && put_footer(fd, why, true, in, &err);
}

static void finish_file_in_use(const char *why, bool was_enabled, const struct pw_footer_in *in)
{
	int fd = file_fd();
	if (fd < 0) {
		/* the program took its descriptor and the file cannot be opened
		 * again: said once, where it was found (or here) */
		set_write_error(EBADF, lost_text);
		pw_fd_close(&T.dir);
		return;
	}
	/* whatever a writer that died mid-write left past the last complete line */
	struct stat st;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size != T.file_bytes &&
	    ftruncate(fd, (off_t)T.file_bytes)) {
		/* the footer still goes at file_bytes */
	}
	bool ok = write_footer(fd, why, in);
	/* the preallocated blocks past the end go back */
	if (ftruncate(fd, (off_t)T.file_bytes)) {
		/* nothing more to do: a file system without them */
	}
	pw_fd_close(&T.file);
	T.have_file = false;
	char partial[sizeof T.name + 8];
	snprintf(partial, sizeof partial, "%s.partial", T.name);
	int dir = ok ? pw_fd_reopen(&T.dir, AT_FDCWD, T.dir_path, O_RDONLY | O_DIRECTORY) : -1;
	if (!ok)
		pw_log("cannot write the footer of %s.partial (%s): it stays .partial", T.path,
		       T.write_err ? T.write_err_text : strerror(errno));
	else if (dir < 0)
		pw_log("cannot rename %s.partial: %s", T.path,
		       errno == ESTALE ? "its directory's path now names another directory"
		                       : strerror(errno));
	else if (renameat(dir, partial, dir, T.name))
		pw_log("cannot rename %s.partial: %s", T.path, strerror(errno));
	pw_fd_close(&T.dir);
	if (ok && was_enabled && pw_g.opt.verbosity >= 1 && strcmp(why, "exec") != 0) {
		/* what was lost, and why; the calls in flight at exit lose nothing */
		uint64_t by[PW_DROP_N];
		for (int i = 0; i < PW_DROP_N; i++)
			by[i] = atomic_load(&T.dropped_by[i]);
		char lines[32], lost[600];
		pw_fmt_count(lines, sizeof lines, T.lines);
		pw_drop_sentence(lost, sizeof lost, T.lines, by, 0);
		pw_log("trace written: %s (%s event%s%s%s%s; %s)", T.path, lines, T.lines == 1 ? "" : "s",
		       T.write_err ? ", then writing stopped: see its footer" : "", *lost ? "; " : "", lost,
		       in ? in->counts : "no findings");
	}
}

static void finish_file(const char *why, bool was_enabled, const struct pw_footer_in *in)
{
	pw_fd_use_begin();
	finish_file_in_use(why, was_enabled, in);
	pw_fd_use_end();
}

void pw_trace_finish(const char *why, const struct pw_footer_in *in)
{
	long me = pw_gettid(), none = 0;
	if (!atomic_compare_exchange_strong(&T.finisher, &none, me)) {
		if (none == me) /* a signal handler's exit during our own finish */
			return;
		/* Another thread is finishing: let it, rather than leave under it. */
		uint64_t deadline = pw_now_ns() + PW_FINISH_WAIT_NS;
		while (!atomic_load(&T.finished) && pw_now_ns() < deadline) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		return;
	}
	if (tick && atomic_load(&pw_g.enabled) && pw_trace_kept())
		tick(true); /* last events, while events are still taken */
	bool was_enabled = atomic_exchange(&pw_g.enabled, false); /* the cut (seq_cst) */
	pw_fence_heavy(); /* the full fence for every thread's begin (fence.h) */
	T.enabled_at_finish = was_enabled;
	atomic_store(&T.closing, true);
	/* A thread creating the file right now finishes doing so first (and
	 * then starts the writer); none starts after this. */
	int file = PW_FILE_NONE;
	if (!tls_opening) {
		pthread_mutex_lock(&T.start_lock);
		file = atomic_load(&pw_trace_gate.file_state);
		pthread_mutex_unlock(&T.start_lock);
	}
	if (!stop_writer()) {
		pw_log("the trace writer is stuck writing %s: it stays .partial", T.path);
	} else if ((file == PW_FILE_OPEN || file == PW_FILE_STOPPED) && T.have_file) {
		final_drain();
		finish_file(why, was_enabled, in);
	} else if (file == PW_FILE_FAILED && was_enabled && pw_g.opt.verbosity >= 1 &&
	           strcmp(why, "exec") != 0) {
		/* checked all the same (warn, enforce): what it found, said here */
		const char *off = pw_disabled_why();
		pw_log("no trace was kept (%s): %s", off ? off : "tracing was turned off",
		       in ? in->counts : "no findings");
	}
	atomic_store(&T.finished, true);
}

/* exec failed: the process goes on, so tracing goes on in a new file. */
void pw_trace_after_failed_exec(void)
{
	if (atomic_load(&T.finisher) != pw_gettid())
		return;
	/* What threads still committed after the cut was counted in flight in
	 * the finished file: it does not go into the new one. */
	for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next) {
		struct pw_buf *b = atomic_load(&t->cur_pub);
		if (b && b->gen == t->writer_gen)
			b->flushed = (size_t)(atomic_load(&b->st) >> 1);
	}
	while (T.kept) {
		struct pw_buf *b = T.kept;
		T.kept = b->next;
		recycle(b);
	}
	for (int i = 0; i < PW_DROP_N; i++)
		atomic_store(&T.dropped_by[i], 0);
	T.lines = T.violations = T.event_bytes = T.file_bytes = T.header_bytes = T.reserved_to = 0;
	T.write_err = 0;
	T.limited = false;
	T.limit_seq = T.limit_t_ns = 0;
	T.path[0] = 0;
	atomic_store(&pw_trace_gate.file_state, PW_FILE_NONE);
	atomic_store(&T.closing, false);
	atomic_store(&T.finished, false);
	atomic_store(&T.finisher, 0);
	atomic_store(&pw_g.enabled, T.enabled_at_finish);
}

/*
 * In a forked child only the forking thread exists: forget every thread
 * record and buffer of the parent (the parent writes those; the memory is
 * left alone), and start a file of our own at the first event.
 */
void pw_trace_after_fork_child(void)
{
	pw_fence_init(); /* a new process: its own registration */
	pw_forkgate_open_child();
	pw_fd_after_fork_child();
	pthread_mutex_init(&round_lock, NULL);
	pthread_mutex_init(&T.start_lock, NULL);
	pw_fd_close(&T.file); /* the child's copies, if still ours */
	pw_fd_close(&T.dir);
	T.have_file = false;
	T.path[0] = 0;
	T.lines = T.violations = T.event_bytes = T.file_bytes = T.header_bytes = T.reserved_to = 0;
	T.write_err = 0;
	T.limited = false;
	T.limit_seq = T.limit_t_ns = 0;
	atomic_store(&T.threads, NULL);
	atomic_store(&T.full, NULL);
	T.kept = NULL;
	atomic_store(&pw_trace_gate.file_state, PW_FILE_NONE);
	atomic_store(&pw_trace_gate.writer_started, false);
	atomic_store(&T.writer_creating, false);
	atomic_store(&T.writer_died, false);
	atomic_store(&T.stop_writer, false);
	atomic_store(&T.closing, false);
	atomic_store(&T.finished, false);
	atomic_store(&T.finisher, 0);
	for (int i = 0; i < PW_DROP_N; i++)
		atomic_store(&T.dropped_by[i], 0);
	atomic_store(&T.wake, 0);
	tls_thread = NULL;
	pw_tls_fold.base = NULL; /* the parent's buffer: not this process's to write */
	pw_tls_fold.cur = NULL;
	tls_opening = false;
	tls_in_round = false;
	atomic_store(&T.main_exited, false);
	pthread_setspecific(T.key, &main_marker);
}

void pw_trace_init(void)
{
	pw_fence_init();
	prefetch_probe();
	if (pthread_key_create(&T.key, thread_gone) || pthread_key_create(&T.writer_key, writer_gone)) {
		atomic_store(&pw_trace_gate.file_state, PW_FILE_FAILED);
		pw_disable("cannot create a thread key");
	} else if (pw_gettid() == getpid())
		pthread_setspecific(T.key, &main_marker); /* to hear of its pthread_exit */
}

/* A wrapper's call after the real one (call.h): its stack, where stacks=all,
 * then its record. */
void pw_event_post(struct pw_call *c)
{
	uintptr_t ips[64];
	if (PW_UNLIKELY(pw_g.opt.stacks == PW_STACKS_ALL)) {
		pw_tls_internal++;
		c->nstack = pw_stack_app(ips, pw_g.opt.stack_depth);
		pw_tls_internal--;
		c->stack = ips;
	}
	pw_record_call(c);
}

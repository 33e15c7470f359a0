/*
 * What a wrapper needs to write its call's record into its thread's trace
 * buffer itself, inline (pw_record_row), with the row a constant there: the
 * buffer's layout, the trace's gate, and the publication of a record.  The
 * protocol is trace.c's (its opening comment: ownership, the cut at exit,
 * signal handlers); anything but the common case (no buffer yet, the file
 * not open, the writer not started, a fold tail open, a full buffer, a row
 * the inline writer does not cover) takes trace.c's general path,
 * pw_record_call, which does it all.
 */
#ifndef PW_TRACE_HOT_H
#define PW_TRACE_HOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/fence.h"
#include "core/pw.h"
#include "record/record.h"
#include "record/record_write.h"
#include "record/trace.h"

#define PW_ST_BUSY 1u /* in pw_buf.st: the thread is between begin and end */

struct pw_buf {
	struct pw_buf *next; /* full list, returned list, spare list */
	struct pw_thread *owner;
	uint64_t gen;        /* the owner's n-th buffer; set before it is published */
	size_t cap, used;    /* used: producer only */
	_Atomic uint64_t st; /* committed bytes << 1 | PW_ST_BUSY */
	size_t flushed;      /* writer role only */
	char data[];
};

/* The file: none yet (the first record makes it), open, none could be made,
 * or open but writing stopped (a write failed, no writer thread).  In the
 * last two no trace is kept: no record is made, and the process goes on
 * checking its calls in warn and enforce mode (pw_disable). */
enum { PW_FILE_NONE, PW_FILE_OPEN, PW_FILE_FAILED, PW_FILE_STOPPED };

/* Read by every call, written a few times in the process's life: a cache
 * line of its own (trace.c).  On the line of what every buffer switch
 * writes, each switch of any thread took the line from the others (8
 * threads calling). */
struct pw_trace_gate {
	_Alignas(64) atomic_int file_state; /* PW_FILE_* */
	atomic_bool writer_started;
	bool prefetchw; /* the CPU has PREFETCHW (set once at start) */
	char line_[64 - sizeof(atomic_int) - 2 * sizeof(bool)];
};
extern struct pw_trace_gate pw_trace_gate;

/*
 * The next record's lines (from p on, four), for writing: fetched while the
 * program runs on, so that the next call's stores do not wait for them.
 * The buffer's next lines were last read by the writer's thread, on
 * another core, so they are shared there: a plain prefetch brings them in
 * shared and the record's stores still wait for the other core to let go;
 * PREFETCHW (CPUID 0x80000001 ECX bit 8) starts that while the program runs
 * on.  (A record is 120-200 bytes; where the buffer ends, the addresses are
 * still its own or harmlessly past it: a prefetch never faults.)
 */
__attribute__((always_inline)) static inline void pw_prefetch_next(const char *p)
{
#if defined(__x86_64__) || defined(__i386__)
	if (PW_LIKELY(pw_trace_gate.prefetchw)) {
		__asm__ volatile("prefetchw %0" : : "m"(p[0]));
		__asm__ volatile("prefetchw %0" : : "m"(p[64]));
		__asm__ volatile("prefetchw %0" : : "m"(p[128]));
		__asm__ volatile("prefetchw %0" : : "m"(p[192]));
		return;
	}
#endif
	__builtin_prefetch(p, 1, 3);
	__builtin_prefetch(p + 64, 1, 3);
	__builtin_prefetch(p + 128, 1, 3);
	__builtin_prefetch(p + 192, 1, 3);
}

/* Publish size more bytes of b, the thread's current buffer, busy until
 * now, with no fold tail open. */
__attribute__((always_inline)) static inline void pw_rec_publish(struct pw_buf *b, size_t size)
{
	b->used += size;
	atomic_store_explicit(&b->st, (uint64_t)b->used << 1, memory_order_release);
	pw_tls_fold.base = b->data + b->used; /* where a fold tail would begin (pw_fold_open) */
	atomic_signal_fence(memory_order_seq_cst);
	pw_tls_fold.busy = 0;
	pw_prefetch_next(b->data + b->used);
}

/*
 * The thread busy (pw_tls_fold.busy), false if it was already: first of
 * all, before anything the write depends on is read, its buffer above
 * all, so that a signal handler's call from here on finds it so and drops
 * its record (it then moves the thread to no other buffer, opens no fold
 * tail, folds nothing) while one that came before is done.  Read first and
 * claimed after, a handler's call in between could fill the buffer and
 * hand it to the writer, and the record went into a buffer no longer the
 * thread's, lost.
 */
__attribute__((always_inline)) static inline bool pw_rec_claim(void)
{
	if (PW_UNLIKELY(pw_tls_fold.busy))
		return false;
	pw_tls_fold.busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return true;
}

/* Not busy again: nothing was written, nothing published. */
__attribute__((always_inline)) static inline void pw_rec_unclaim(void)
{
	atomic_signal_fence(memory_order_seq_cst);
	pw_tls_fold.busy = 0;
}

/*
 * b, the thread's current buffer (read after pw_rec_claim), busy for the
 * cut at exit, then the fence, so that either pw_trace_finish sees the
 * thread busy or the thread sees tracing off (fence.h: the full fence is
 * on its side where membarrier is there, so no locked instruction here).
 * The caller checks pw_g.enabled next.
 */
__attribute__((always_inline)) static inline void pw_rec_busy(struct pw_buf *b)
{
	atomic_store_explicit(&b->st, (uint64_t)b->used << 1 | PW_ST_BUSY, memory_order_relaxed);
	pw_fence_light();
}

/* b not busy again, nothing written: tracing was turned off, or no record
 * is made after all. */
__attribute__((always_inline)) static inline void pw_rec_unbusy(struct pw_buf *b)
{
	atomic_store_explicit(&b->st, (uint64_t)b->used << 1, memory_order_release);
	pw_rec_unclaim();
}

/*
 * The calling thread's buffer, made busy, with room for one record after
 * the open fold tail's bytes (*tail) when `owner` (0, or the seq of the
 * call whose tail it is) owns the tail: the steps of rec_room (trace.c) for
 * the common case: the thread claimed (pw_rec_claim), its buffer busy
 * (pw_rec_busy), then tracing checked (the cut at exit), then the room.
 * NULL, nothing changed, when the general path must do it.
 */
__attribute__((always_inline)) static inline struct pw_buf *pw_rec_take_inline(const struct pw_call *c,
                                                                               uint64_t owner, size_t *tail)
{
	if (!pw_rec_claim())
		return NULL;
	struct pw_buf *b = pw_tls_fold.cur;
	if (PW_UNLIKELY(!b) || PW_UNLIKELY(pw_tls_fold.owner != owner) || /* (b: pw_tls_tid is set) */
	    PW_UNLIKELY(c->nstack) || PW_UNLIKELY(pw_tls_suppressed.n) ||
	    PW_UNLIKELY(atomic_load_explicit(&pw_trace_gate.file_state, memory_order_acquire) !=
	                PW_FILE_OPEN) ||
	    PW_UNLIKELY(!atomic_load_explicit(&pw_trace_gate.writer_started, memory_order_relaxed))) {
		pw_rec_unclaim();
		return NULL;
	}
	pw_rec_busy(b);
	*tail = owner ? pw_tls_fold.used : 0;
	if (PW_UNLIKELY(!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed) ||
	                b->cap - b->used - *tail < PW_EVENT_MAX)) {
		/* tracing was turned off (the cut), or the buffer is full: the
		 * general path says what happens */
		pw_rec_unbusy(b);
		return NULL;
	}
	return b;
}

/*
 * The record of call c, of the wrapper's row fn (a constant there), in the
 * calling thread's buffer: written inline as a run of stores when the row
 * allows it (pw_row_inline) and the thread's buffer is ready with room,
 * else by pw_record_call.  (c->fn is fn unless the vendor's pre described
 * the call by another row: the CUDA runtime's other ABI, cudart_hooks.c.)
 */
__attribute__((always_inline)) static inline void pw_record_row(const struct pw_call *c,
                                                                const struct pw_fn_desc *fn)
{
	size_t tail;
	struct pw_buf *b;
#ifdef __clang_analyzer__
	pw_record_call(c); /* the analyzer does not read the row (pw_record_fold_row) */
	return;
#endif
	if (!pw_row_inline(fn) || PW_UNLIKELY(c->fn != fn) || !(b = pw_rec_take_inline(c, 0, &tail))) {
		pw_record_call(c);
		return;
	}
	struct pw_rec_call *r = (struct pw_rec_call *)(void *)(b->data + b->used);
	pw_rec_publish(b, pw_rec_row_write(r, c, fn, *(const volatile uint64_t *)&c->t0,
	                                   *(const volatile uint64_t *)&c->t1, 0));
}

/*
 * The same for a runtime call c that owns the fold tail (record.h): its
 * record after the tail, the lot published at once (pw_record_call_folded's
 * steps; the writer gives the folded calls its times).
 */
__attribute__((always_inline)) static inline void pw_record_row_folded(const struct pw_call *c,
                                                                       const struct pw_fn_desc *fn)
{
	size_t tail;
	struct pw_buf *b;
#ifdef __clang_analyzer__
	pw_record_call_folded(c);
	return;
#endif
	if (!pw_row_inline(fn) || PW_UNLIKELY(c->fn != fn) || !(b = pw_rec_take_inline(c, c->seq, &tail))) {
		pw_record_call_folded(c);
		return;
	}
	/* From here records are published again; a signal handler's record
	 * finds the buffer busy until this one is. */
	pw_tls_fold.owner = 0;
	pw_tls_fold.used = pw_tls_fold.n = 0;
	struct pw_rec_call *r = (struct pw_rec_call *)(void *)(b->data + b->used + tail);
	pw_rec_publish(b, tail + pw_rec_row_write(r, c, fn, *(const volatile uint64_t *)&c->t0,
	                                          *(const volatile uint64_t *)&c->t1, 0));
}

#endif

/*
 * Writing a call's record (record.h), inline: the trace buffer's own
 * pw_record_call (trace.c) and the fold area (record.c) both store records
 * with it, so that a traced call reserves room, writes its record and
 * publishes it in one function of one file (one call from the wrapper, the
 * code on a few cache lines), instead of a chain of calls across files.
 */
#ifndef PW_RECORD_WRITE_H
#define PW_RECORD_WRITE_H

#include "record/record.h"
#include "record/trace.h"
#include "core/vendor.h"

static inline size_t pw_rec_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The first n (at most PW_MAX_ARGS) of src to dst, one load and one store
 * each: a wider load across the wrapper's separate stores would wait for
 * them (a store-forwarding stall). */
#define PW_REC_COPY_RUN(n, dst, src)                   \
	switch (n) {                                   \
	case 12: dst[11] = src[11]; /* fall through */ \
	case 11: dst[10] = src[10]; /* fall through */ \
	case 10: dst[9] = src[9];   /* fall through */ \
	case 9: dst[8] = src[8];    /* fall through */ \
	case 8: dst[7] = src[7];    /* fall through */ \
	case 7: dst[6] = src[6];    /* fall through */ \
	case 6: dst[5] = src[5];    /* fall through */ \
	case 5: dst[4] = src[4];    /* fall through */ \
	case 4: dst[3] = src[3];    /* fall through */ \
	case 3: dst[2] = src[2];    /* fall through */ \
	case 2: dst[1] = src[1];    /* fall through */ \
	case 1: dst[0] = src[0];    /* fall through */ \
	default: break;                                \
	}
_Static_assert(PW_MAX_ARGS == 12, "PW_REC_COPY_RUN copies up to 12");

static inline void pw_rec_copy_words(uint64_t *dst, const uint64_t *src, unsigned n)
{
	PW_REC_COPY_RUN(n, dst, src)
}

static inline void pw_rec_copy_devs(int32_t *dst, const int32_t *src, unsigned n)
{
	PW_REC_COPY_RUN(n, dst, src)
}

/* Argument i's snapshot: what every vendor saves for an int the call wrote
 * (the commonest out-parameter: queries) here, anything else by the
 * vendor's snap_arg (vendor.h). */
static inline void pw_record_snap(struct pw_snapw *s, const struct pw_call *c, int i)
{
	const struct pw_fn_desc *fn = c->fn;
	if (fn->args[i].kind == PW_K_OUT_INT) {
		const int32_t *out = (const int32_t *)(uintptr_t)c->a[i];
		if (c->ret == fn->lib->ret_success && out)
			pw_snap_copy(s, i, out, sizeof *out);
		return;
	}
	fn->lib->snap_arg(s, c, i);
}

/* The record of call c into buf (cap bytes, at least PW_EVENT_MAX): its size. */
__attribute__((always_inline)) static inline size_t pw_record_write(void *buf, size_t cap,
                                                                    const struct pw_call *c)
{
	const struct pw_fn_desc *fn = c->fn;
	struct pw_rec_call *r = buf;
	unsigned nargs = fn->nargs, ndev = fn->wide ? PW_MAX_ARGS : nargs;
	unsigned nstack = c->nstack > 0 ? (unsigned)c->nstack : 0;
	if (PW_UNLIKELY(!pw_tls_tid))
		pw_tls_tid = pw_gettid();
	/* One load per field: the wrapper stored them one by one a moment ago,
	 * and a wider load that spans two stores still in the store buffer
	 * waits for both (a store-forwarding stall: the largest part of this
	 * function's time in a profile of the simulated benchmark). */
	r->fn = fn;
	r->seq = *(const volatile uint64_t *)&c->seq;
	r->parent = *(const volatile uint64_t *)&c->parent;
	r->t0 = *(const volatile uint64_t *)&c->t0;
	r->t1 = *(const volatile uint64_t *)&c->t1;
	r->ret = *(const volatile int64_t *)&c->ret;
	r->tid = (int32_t)pw_tls_tid;
	r->cur_dev = *(const volatile int32_t *)&c->cur_dev;
	uint8_t *p = (uint8_t *)(r + 1);
	/* word by word, the call's own (most calls have 2 to 6 arguments), by a
	 * jump into a run of copies: a loop cost 5-6 instructions a word */
	uint64_t *pa = (uint64_t *)(void *)p;
	pw_rec_copy_words(pa, c->a, nargs);
	p += nargs * sizeof c->a[0];
	int32_t *pd = (int32_t *)(void *)p;
	pw_rec_copy_devs(pd, c->dev, ndev);
	if (ndev & 1)
		pd[ndev] = 0; /* the padding, written: the record is copied whole */
	p += pw_rec_round8(ndev * sizeof c->dev[0]);
	if (nstack) {
		memcpy(p, c->stack, nstack * sizeof(uint64_t));
		p += nstack * sizeof(uint64_t);
	}
	struct pw_snapw s = {p, (uint8_t *)buf + cap};
	for (unsigned m = fn->snap; m; m &= m - 1)
		pw_record_snap(&s, c, __builtin_ctz(m));
	if (PW_UNLIKELY(pw_tls_suppressed.n) && pw_tls_suppressed.seq == c->seq) {
		int32_t rules[PW_SUPPRESSED_MAX];
		int n = pw_tls_suppressed.n;
		for (int i = 0; i < n; i++)
			rules[i] = pw_tls_suppressed.rule[i];
		pw_snap_copy(&s, PW_SNAP_SUPPRESSED, rules, (size_t)n * sizeof rules[0]);
		pw_tls_suppressed.n = 0;
	}
	size_t size = (size_t)(s.p - (uint8_t *)buf);
	r->h.size = (uint32_t)size;
	r->h.type = PW_REC_CALL;
	r->h.len = (uint16_t)(nstack | ndev << 8);
	return size;
}

/* Room in the fold tail (record.h) for one folded record, the tail taken
 * (busy): where to write it; NULL when the record is dropped (counted): a
 * signal handler's call that came while a record was being written, or no
 * room and no buffer to move the tail to.  pw_fold_put gives it back. */
__attribute__((always_inline)) static inline char *pw_fold_take(void)
{
	if (PW_UNLIKELY(pw_tls_fold.busy)) {
		pw_trace_drop(PW_DROP_SIGNAL_HANDLER, 1);
		return NULL;
	}
	pw_tls_fold.busy = 1; /* before used and room are read: a signal handler's call now finds it */
	atomic_signal_fence(memory_order_seq_cst);
	if (PW_UNLIKELY((size_t)(pw_tls_fold.end - pw_tls_fold.base) - pw_tls_fold.used < PW_FOLD_ROOM) &&
	    !pw_fold_grow()) {
		atomic_signal_fence(memory_order_seq_cst);
		pw_tls_fold.busy = 0;
		return NULL;
	}
	return pw_tls_fold.base + pw_tls_fold.used;
}

/* The record of size bytes written where pw_fold_take said joins the tail. */
__attribute__((always_inline)) static inline void pw_fold_put(uint32_t size)
{
	pw_tls_fold.used += size;
	pw_tls_fold.n++;
	atomic_signal_fence(memory_order_seq_cst);
	pw_tls_fold.busy = 0;
}

/*
 * Whether the record of a call of row fn can be written inline in its
 * wrapper (pw_rec_row_write), where fn is a constant and the record of a
 * row with no wide devices and no snapshot but an int out-parameter (most
 * rows: the queries, copies and enables) is a few stores: the call's own
 * (pw_record_row, trace_hot.h) and, nested in the fold tail's owner
 * (record.h), the folded one (pw_record_fold_row), whose times are the
 * owner's, which the writer takes from the owner's record (it follows in
 * the same publication).  Any other row goes through the general writer
 * (pw_record_write, pw_record_fold).  (Written out, not pw_record_write
 * with a constant row: that one's stack, suppression and bounded-snapshot
 * steps cost the nested pair 57 more instructions, 1.5x one layer became
 * 1.7x.)
 */
static inline bool pw_row_inline(const struct pw_fn_desc *fn)
{
	if (fn->wide || (fn->flags & PW_IMPLICIT)) /* devices past the arguments; set by the classification */
		return false;
#pragma GCC unroll 12 /* PW_MAX_ARGS: folds for a constant row */
	for (int i = 0; i < fn->nargs; i++)
		if ((fn->snap >> i & 1) && fn->args[i].kind != PW_K_OUT_INT)
			return false;
	return true;
}

/*
 * The record of call c of row fn (for which pw_row_inline holds: a
 * constant in a wrapper, so that this is a run of stores) at r, with times
 * t0 and t1 and len flags `flags` (PW_REC_PARENT_TIME or 0): its size.  The
 * same bytes as pw_record_write (test_record compares them for every such
 * row of every vendor), without its stack, suppression and bounded-snapshot
 * steps, which a caller rules out first.
 */
__attribute__((always_inline)) static inline uint32_t
pw_rec_row_write(struct pw_rec_call *r, const struct pw_call *c, const struct pw_fn_desc *fn, uint64_t t0,
                 uint64_t t1, uint16_t flags)
{
	unsigned nargs = fn->nargs;
	r->fn = fn;
	r->seq = *(const volatile uint64_t *)&c->seq;
	r->parent = *(const volatile uint64_t *)&c->parent;
	r->t0 = t0;
	r->t1 = t1;
	r->ret = *(const volatile int64_t *)&c->ret;
	r->tid = (int32_t)pw_tls_tid;
	r->cur_dev = *(const volatile int32_t *)&c->cur_dev;
	uint64_t *pa = (uint64_t *)(void *)(r + 1);
#pragma GCC unroll 12
	for (unsigned i = 0; i < nargs; i++)
		pa[i] = c->a[i];
	int32_t *pd = (int32_t *)(void *)(pa + nargs);
#pragma GCC unroll 12
	for (unsigned i = 0; i < nargs; i++)
		pd[i] = c->dev[i];
	if (nargs & 1)
		pd[nargs] = 0;
	uint64_t *ps = (uint64_t *)(void *)((uint8_t *)pd + pw_rec_round8(nargs * 4));
	bool ok = c->ret == fn->lib->ret_success;
#pragma GCC unroll 12
	for (unsigned i = 0; i < nargs; i++) {
		const int32_t *out = (const int32_t *)(uintptr_t)c->a[i];
		if ((fn->snap >> i & 1) && ok && out) {
			/* the snapshot of an int: { arg, 0, len 4, 0 } and the value */
			ps[0] = (uint64_t)i | (uint64_t)4 << 16;
			ps[1] = (uint32_t)*out;
			ps += 2;
		}
	}
	uint32_t size = (uint32_t)((uint8_t *)ps - (uint8_t *)r);
	r->h.size = size;
	r->h.type = PW_REC_CALL;
	r->h.len = (uint16_t)(nargs << 8 | flags);
	return size;
}

__attribute__((always_inline)) static inline void pw_record_fold_row(struct pw_call *c,
                                                                     const struct pw_fn_desc *fn)
{
#ifdef __clang_analyzer__
	/* The static analyzer does not read the row, so it cannot tell that
	 * the slots copied are those the wrapper filled: it is shown the
	 * general writer, which writes the same bytes (test_record). */
	pw_record_fold(c);
	return;
#endif
	if (!pw_row_inline(fn) || PW_UNLIKELY(c->fn != fn) || PW_UNLIKELY(!pw_tls_tid)) {
		pw_record_fold(c);
		return;
	}
	char *at = pw_fold_take();
	if (!at)
		return;
	pw_fold_put(pw_rec_row_write((struct pw_rec_call *)(void *)at, c, fn, 0, 0, PW_REC_PARENT_TIME));
}

#endif

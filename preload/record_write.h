/*
 * Writing a call's record (record.h), inline: the trace buffer's own
 * pw_record_call (trace.c) and the fold area (record.c) both store records
 * with it, so that a traced call reserves room, writes its record and
 * publishes it in one function of one file (one call from the wrapper, the
 * code on a few cache lines), instead of a chain of calls across files.
 */
#ifndef PW_RECORD_WRITE_H
#define PW_RECORD_WRITE_H

#include "record.h"
#include "vendor.h"

static inline size_t pw_rec_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
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
static inline size_t pw_record_write(void *buf, size_t cap, const struct pw_call *c)
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
	/* word by word, the call's own: most calls have 2 to 6 arguments */
	uint64_t *pa = (uint64_t *)(void *)p;
	for (unsigned i = 0; i < nargs; i++)
		pa[i] = c->a[i];
	p += nargs * sizeof c->a[0];
	int32_t *pd = (int32_t *)(void *)p;
	for (unsigned i = 0; i < ndev; i++)
		pd[i] = c->dev[i];
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

#endif

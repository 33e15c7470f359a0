/* Call records: made on the calling thread, decoded by the writer (record.h). */
#include "record.h"

#include <stdatomic.h>

#include "clock.h"
#include "event.h"
#include "jsonw.h"
#include "phase.h"
#include "pw.h"
#include "trace.h"
#include "vendor.h"

_Static_assert(sizeof(uintptr_t) == sizeof(uint64_t), "stacks are recorded as 64-bit words");

static inline size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

_Static_assert(sizeof(struct pw_rec_call) + PW_MAX_ARGS * 12 + 64 * 8 < PW_EVENT_MAX / 2,
               "a record's fixed parts leave room for its snapshots");

size_t pw_record_call_into(void *buf, size_t cap, const struct pw_call *c)
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
	p += round8(ndev * sizeof c->dev[0]);
	if (nstack) {
		memcpy(p, c->stack, nstack * sizeof(uint64_t));
		p += nstack * sizeof(uint64_t);
	}
	struct pw_snapw s = {p, (uint8_t *)buf + cap};
	for (unsigned m = fn->snap; m; m &= m - 1)
		fn->lib->snap_arg(&s, c, __builtin_ctz(m));
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

void pw_record_call(const struct pw_call *c)
{
	void *rec = pw_trace_rec_begin();
	if (!rec)
		return;
	pw_trace_rec_end(rec, pw_record_call_into(rec, PW_EVENT_MAX, c));
}

PW_TLS struct pw_fold pw_tls_fold;

void pw_record_fold(struct pw_call *c)
{
	struct pw_fold *f = &pw_tls_fold;
	if (PW_UNLIKELY(f->busy || PW_FOLD_BYTES - f->used < PW_FOLD_ROOM)) {
		c->t0 = c->t1 = pw_ticks();
		pw_record_call(c);
		return;
	}
	f->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint8_t *rec = f->buf + f->used;
	size_t n = pw_record_call_into(rec, PW_FOLD_BYTES - f->used, c);
	struct pw_rec_hdr h;
	memcpy(&h, rec, sizeof h);
	h.len |= PW_REC_PARENT_TIME;
	memcpy(rec, &h, sizeof h);
	f->used += (uint32_t)n;
	f->n++;
	atomic_signal_fence(memory_order_seq_cst);
	f->busy = 0;
}

void pw_record_call_folded(const struct pw_call *c)
{
	struct pw_fold *f = &pw_tls_fold;
	size_t used = f->used;
	uint8_t *rec = pw_trace_rec_begin_n(used, 1 + f->n);
	if (rec)
		memcpy(rec, f->buf, used);
	/* free only once copied: a signal handler's runtime call may take it */
	atomic_signal_fence(memory_order_seq_cst);
	f->used = f->n = 0;
	f->owner = 0;
	if (!rec)
		return;
	/* the folded calls, with the parent's times, then the parent */
	for (size_t off = 0; off + sizeof(struct pw_rec_call) <= used;) {
		struct pw_rec_call *r = (struct pw_rec_call *)(void *)(rec + off);
		if (r->h.size < sizeof *r || r->h.size > used - off)
			break; /* never seen: the writer counts what is not a whole record */
		r->t0 = c->t0;
		r->t1 = c->t1;
		off += r->h.size;
	}
	pw_trace_rec_end(rec, used + pw_record_call_into(rec + used, PW_EVENT_MAX, c));
}

/* ---- decoding ---- */

static size_t decode_call(struct pw_jw *w, const uint8_t *p, size_t size)
{
	const struct pw_rec_call *r = (const struct pw_rec_call *)p;
	struct pw_rcall d;
	unsigned nstack = r->h.len & 0xff, ndev = (r->h.len & ~PW_REC_PARENT_TIME) >> 8;
	const struct pw_fn_desc *fn = r->fn;
	unsigned nargs = fn->nargs;
	size_t fixed = sizeof *r + nargs * 8 + round8(ndev * 4) + nstack * 8;
	if (ndev > PW_MAX_ARGS || nargs > PW_MAX_ARGS || fixed > size)
		return 0;
	d.c.fn = fn;
	d.c.seq = r->seq;
	d.c.parent = r->parent;
	d.c.t0 = pw_ticks_ns(r->t0);
	d.c.t1 = d.c.t0 + pw_ticks_dur_ns(r->t0, r->t1);
	d.c.ret = r->ret;
	d.c.cur_dev = r->cur_dev;
	d.tid = r->tid;
	const uint8_t *q = (const uint8_t *)(r + 1);
	/* past nargs and ndev nothing is read (put_arg reads the slots past the
	 * arguments only of "wide" rows, whose devices are all recorded) */
	memcpy(d.c.a, q, nargs * 8);
	q += nargs * 8;
	memcpy(d.c.dev, q, ndev * 4);
	q += round8(ndev * 4);
	d.c.stack = (const uintptr_t *)(const void *)q;
	d.c.nstack = (int)nstack;
	q += nstack * 8;
	d.has_snap = 0;
	d.supp = NULL;
	d.nsupp = 0;
	d.parent_time = (r->h.len & PW_REC_PARENT_TIME) != 0;
	const uint8_t *end = p + size;
	while (q + 8 <= end) {
		uint16_t len;
		memcpy(&len, q + 2, 2);
		if (round8(len) > (size_t)(end - q - 8))
			return 0;
		if (q[0] == PW_SNAP_SUPPRESSED && len <= PW_SUPPRESSED_MAX * 4) {
			d.supp = q + 8;
			d.nsupp = len / 4;
			q += 8 + round8(len);
			continue;
		}
		if (q[0] >= PW_MAX_ARGS)
			return 0;
		d.snap[q[0]] = q + 8;
		d.snap_len[q[0]] = len;
		d.has_snap |= (uint16_t)(1u << q[0]);
		q += 8 + round8(len);
	}
	pw_event_write(w, &d);
	return size;
}

size_t pw_record_decode(struct pw_jw *w, const void *rec, size_t avail)
{
	struct pw_rec_hdr h;
	const uint8_t *p = rec;
	if (avail < sizeof h)
		return 0;
	memcpy(&h, p, sizeof h);
	if (h.size < sizeof h || h.size > avail || h.size % 8)
		return 0;
	switch (h.type) {
	case PW_REC_LINE:
		if (h.len > h.size - sizeof h)
			return 0;
		pw_jw_raw(w, (const char *)p + sizeof h, h.len);
		return h.size;
	case PW_REC_CALL:
		if (h.size < sizeof(struct pw_rec_call))
			return 0;
		return decode_call(w, p, h.size);
	default: return 0;
	}
}

size_t pw_record_decode_span(const char *p, const char *end, struct pw_decode_out *o)
{
	const char *start = p;
	PW_PHASE_START(t);
	uint64_t n0 = o->lines + o->too_long;
	pw_clock_anchor();
	while (p < end && o->cap - o->len >= PW_EVENT_MAX) {
		struct pw_jw w;
		pw_jw_init(&w, o->buf + o->len, PW_EVENT_MAX - 1);
		size_t n = pw_record_decode(&w, p, (size_t)(end - p));
		if (!n) { /* not a whole record: nothing after it can be trusted */
			o->bad++;
			p = end;
			break;
		}
		if (w.overflow) {
			o->too_long++;
		} else {
			*w.p++ = '\n';
			o->len = (size_t)(w.p - o->buf);
			o->lines++;
		}
		p += n;
	}
	PW_PHASE_ADD_N(PW_PH_DECODE, t, o->lines + o->too_long - n0);
	pw_phase_flush();
	return (size_t)(p - start);
}

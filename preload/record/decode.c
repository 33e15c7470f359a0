/* Call records decoded into event lines, on the trace writer's thread
 * (record.h); record.c makes them on the calling thread. */
#include "record/record.h"
#include "record/record_write.h"

#include <stdatomic.h>

#include "record/clock.h"
#include "record/event.h"
#include "record/jsonw.h"
#include "record/phase.h"
#include "core/pw.h"
#include "record/trace.h"
#include "core/vendor.h"

/* A folded call's times: its owner's, whose record follows it in the
 * same publication (record.h); 0 if it is not there (never seen). */
static void owner_times(const struct pw_rec_call *r, const uint8_t *q, const uint8_t *end, uint64_t *t0,
                        uint64_t *t1)
{
	*t0 = *t1 = 0;
	while ((size_t)(end - q) >= sizeof *r) {
		const struct pw_rec_call *o = (const struct pw_rec_call *)(const void *)q;
		if (o->h.size < sizeof o->h || o->h.size % 8 || o->h.size > (size_t)(end - q))
			return;
		if (o->h.type == PW_REC_CALL && o->h.size >= sizeof *o && !(o->h.len & PW_REC_PARENT_TIME) &&
		    o->seq == r->parent) {
			*t0 = o->t0;
			*t1 = o->t1;
			return;
		}
		q += o->h.size;
	}
}

static size_t decode_call(struct pw_jw *w, const uint8_t *p, size_t size, size_t avail)
{
	const struct pw_rec_call *r = (const struct pw_rec_call *)p;
	struct pw_rcall d;
	unsigned nstack = r->h.len & 0xff, ndev = (r->h.len & ~PW_REC_PARENT_TIME) >> 8;
	const struct pw_fn_desc *fn = r->fn;
	unsigned nargs = fn->nargs;
	size_t fixed = sizeof *r + nargs * 8 + pw_rec_round8(ndev * 4) + nstack * 8;
	if (ndev > PW_MAX_ARGS || nargs > PW_MAX_ARGS || fixed > size)
		return 0;
	d.c.fn = fn;
	d.c.seq = r->seq;
	d.c.parent = r->parent;
	uint64_t t0 = r->t0, t1 = r->t1;
	if (r->h.len & PW_REC_PARENT_TIME)
		owner_times(r, p + size, p + avail, &t0, &t1);
	d.c.t0 = pw_ticks_ns(t0);
	d.c.t1 = d.c.t0 + pw_ticks_dur_ns(t0, t1);
	d.c.ret = r->ret;
	d.c.cur_dev = r->cur_dev;
	d.tid = r->tid;
	const uint8_t *q = (const uint8_t *)(r + 1);
	/* past nargs and ndev nothing is read (put_arg reads the slots past the
	 * arguments only of "wide" rows, whose devices are all recorded) */
	memcpy(d.c.a, q, nargs * 8);
	q += nargs * 8;
	memcpy(d.c.dev, q, ndev * 4);
	q += pw_rec_round8(ndev * 4);
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
		if (pw_rec_round8(len) > (size_t)(end - q - 8))
			return 0;
		if (q[0] == PW_SNAP_SUPPRESSED && len <= PW_SUPPRESSED_MAX * 4) {
			d.supp = q + 8;
			d.nsupp = len / 4;
			q += 8 + pw_rec_round8(len);
			continue;
		}
		if (q[0] >= PW_MAX_ARGS)
			return 0;
		d.snap[q[0]] = q + 8;
		d.snap_len[q[0]] = len;
		d.has_snap |= (uint16_t)(1u << q[0]);
		q += 8 + pw_rec_round8(len);
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
		return decode_call(w, p, h.size, avail);
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

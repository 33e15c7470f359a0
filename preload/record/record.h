/*
 * The binary record of a traced call, and its decoding into the trace's
 * JSON line.
 *
 * The calling thread stores what the call was and nothing more: ids,
 * timestamps in ticks (clock.h), the result, the raw argument words, the
 * devices its look-ups found, and a snapshot of the bytes the event needs
 * that will not outlive the call (values written through out-parameters,
 * by-value IPC handles, the fields of structs passed by pointer, the first
 * entries of arrays, the devices of returned pointers, file ids of fds).
 * The trace writer's thread decodes records into JSON lines: names, hex,
 * number formatting and escaping all happen there.
 *
 * A record is variable-length so that the common call stays small: a
 * 64-byte fixed part, 8 bytes per argument and 4 per device, the stack
 * (stacks=all) and a snapshot area that only calls with out-parameters or
 * structs have.  cuDeviceCanAccessPeer takes 120 bytes, cuMemcpyPeerAsync
 * 136, against 230-350 bytes of JSON built on the calling thread before.
 * A fixed size able to hold every call (12 arguments, a 64-frame stack, 16
 * batch entries) would have been over 1 KiB for each of them.
 *
 *   header   uint32 size (a multiple of 8), uint16 type, uint16 len
 *   call     fn, seq, parent, t0, t1, ret, tid, cur_dev     (64 bytes)
 *            a[nargs]  dev[ndev] (padded to 8)  stack[nstack]
 *            snapshots: { uint8 arg, uint8 0, uint16 len, uint32 0, bytes padded to 8 } ...
 *            (arg PW_SNAP_SUPPRESSED: the suppressed rules, int32 each)
 *   line     a JSON line made elsewhere (findings, gpu_time), its text
 *
 * Records live in the per-thread buffers of trace.c, 8-byte aligned; a
 * record is never longer than PW_EVENT_MAX.
 */
#ifndef PW_RECORD_H
#define PW_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/hooks.h"
#include "core/pw.h"

struct pw_jw;

enum pw_rec_type { PW_REC_CALL = 1, PW_REC_LINE = 2 };

struct pw_rec_hdr {
	uint32_t size; /* bytes of the record, this header included; a multiple of 8 */
	uint16_t type; /* enum pw_rec_type */
	uint16_t len;  /* line: bytes of its text; call: nstack | ndev << 8 | PW_REC_PARENT_TIME */
};

/* A call folded into its parent's record (below): its times are the parent's. */
#define PW_REC_PARENT_TIME 0x8000u

struct pw_rec_call {
	struct pw_rec_hdr h;
	const struct pw_fn_desc *fn; /* static descriptors: valid for the life of the process */
	uint64_t seq, parent;
	uint64_t t0, t1; /* ticks */
	int64_t ret;
	int32_t tid, cur_dev;
	/* a[], dev[], stack[], snapshots */
};

_Static_assert(sizeof(struct pw_rec_call) == 64, "the fixed part of a call record is 64 bytes");

/* ---- the calling thread: snapshots ---- */

/* Where a vendor's snap_arg (vendor.h) puts what argument i's encoder will
 * need: pw_snap_add reserves len bytes tagged with the argument, or gives
 * NULL when the record is full (the encoder then writes the argument as if
 * nothing were known of it). */
struct pw_snapw {
	uint8_t *p, *end;
};

static inline void *pw_snap_add(struct pw_snapw *s, int arg, size_t len)
{
	size_t need = 8 + ((len + 7) & ~(size_t)7);
	if (len > UINT16_MAX || (size_t)(s->end - s->p) < need)
		return NULL;
	uint8_t *h = s->p;
	uint16_t l = (uint16_t)len;
	h[0] = (uint8_t)arg;
	h[1] = 0;
	memcpy(h + 2, &l, 2);
	memset(h + 4, 0, 4);
	if (len & 7) /* the padding written: the same bytes, whatever the buffer held */
		memset(h + need - 8, 0, 8);
	s->p += need;
	return h + 8;
}

static inline void pw_snap_copy(struct pw_snapw *s, int arg, const void *src, size_t len)
{
	void *d = pw_snap_add(s, arg, len);
	if (d)
		memcpy(d, src, len);
}

/* The device of a pointer an out-parameter returned: its value and device. */
struct pw_snap_ptr {
	uint64_t ptr;
	int32_t dev;
};

/* ---- the writer: a decoded call record ---- */

struct pw_rcall {
	struct pw_call c; /* fn, seq, parent, t0/t1 in ns, ret, cur_dev, a[], dev[], stack */
	long tid;
	uint16_t has_snap; /* bit i: snap[i] and snap_len[i] are set */
	const uint8_t *snap[PW_MAX_ARGS];
	uint16_t snap_len[PW_MAX_ARGS];
	const uint8_t *supp; /* the rules a suppression took: nsupp int32 indices */
	int nsupp;
	bool parent_time; /* folded: t0/t1 are the parent's (PW_REC_PARENT_TIME) */
};

/* The snapshot tag (in place of an argument's index) of the rules whose
 * findings of this call a suppression took (report.c marks them on the
 * calling thread; the writer names them in the call's "suppressed"). */
#define PW_SNAP_SUPPRESSED 0xfe

/* The bytes the calling thread saved for argument i, if it saved at least
 * len of them; else NULL. */
static inline const void *pw_rec_snap(const struct pw_rcall *r, int i, size_t len)
{
	return (r->has_snap >> i & 1) && r->snap_len[i] >= len ? r->snap[i] : NULL;
}

/* The same, with how many bytes there are (*len). */
static inline const uint8_t *pw_rec_snap_n(const struct pw_rcall *r, int i, size_t *len)
{
	bool has = r->has_snap >> i & 1;
	*len = has ? r->snap_len[i] : 0;
	return has ? r->snap[i] : NULL;
}

/* ---- producing ---- */

/* The record of call c into buf (at least PW_EVENT_MAX bytes): its size. */
size_t pw_record_call_into(void *buf, size_t cap, const struct pw_call *c);
/* The record of call c into the calling thread's trace buffer (trace.c). */
void pw_record_call(const struct pw_call *c);

/*
 * Folding: the driver calls a runtime call makes (nested, "parent") are
 * recorded with no clock reads of their own and published together with
 * the runtime call's record, once it returns; their events carry the
 * runtime call's t_ns and dur_ns and "parent_time": true.  Timing them
 * separately would add two clock reads and a record of their own to every
 * runtime call (a read is 16 ns on the H200 host's CPU and 20 ns on the
 * H100 host's: a nested pair cost 1.8x one layer alone on the H200s;
 * docs/design-notes.md).
 *
 * Where they go: the fold tail, the thread's trace buffer from its first
 * unpublished byte on (trace.c).  The runtime call opens it before its
 * real call (pw_fold_open: owner is its seq) unless another call has it
 * open; the calls nested in it write their records there, and so does
 * any other record the thread makes meanwhile; the runtime call's own
 * record, written after them, publishes the lot.  Nothing is copied.
 * A call that finds a record being written into the tail (busy) is a
 * signal handler's: it is dropped and counted, never written over it.
 */
#define PW_FOLD_ROOM 512 /* a call record's fixed parts (at most 64 + 12 x 12) and its snapshots */
struct pw_fold {
	uint64_t owner; /* seq of the call whose nested calls are folded; 0: none */
	char *base;    /* where the thread's unpublished bytes begin (kept by trace.c; NULL: no buffer yet) */
	uint32_t used; /* bytes of records in the tail */
	char *end;     /* the end of the buffer base is in */
	uint16_t n;    /* records in the tail */
	uint16_t busy; /* a record is being written on this thread (a signal handler's call must not) */
	struct pw_buf *cur; /* the thread's current trace buffer (trace.c; NULL: none), for pw_record_row */
};
/* Reached by name (pw_tls_fold.x), never through a pointer: GCC 12 with
 * -fsanitize=address,undefined turned the null check of such a pointer
 * into a jump on stale flags and reported a null pointer that was not. */
extern PW_TLS struct pw_fold pw_tls_fold;

/* The calling thread's buffer, made if it has none yet (its first traced
 * call): false when none can be had (trace.c). */
bool pw_trace_thread_ready(void);
/* Open the fold tail for runtime call seq, unless it is open. */
static inline void pw_fold_open(uint64_t seq)
{
	if (pw_tls_fold.owner || PW_UNLIKELY(pw_tls_fold.busy) ||
	    (PW_UNLIKELY(!pw_tls_fold.base) && !pw_trace_thread_ready()))
		return; /* busy: a signal handler's call, the thread in the middle of a record */
	pw_tls_fold.used = 0;
	pw_tls_fold.n = 0;
	/* Emptied, then owned, in that order: GCC stored the owner first, and a
	 * signal handler's call in between put its records into the tail, which
	 * the next two stores then emptied (written, never published, never
	 * counted). */
	atomic_signal_fence(memory_order_seq_cst);
	pw_tls_fold.owner = seq;
}
/* The tail moved to a fresh buffer, with room for PW_EVENT_MAX past it;
 * false, the event dropped and counted, when there is none (trace.c). */
bool pw_fold_grow(void);
/* Call c (nested in the fold's owner, returned) into the tail. */
void pw_record_fold(struct pw_call *c);
/* The owner's own record after its tail, all published (trace.c). */
void pw_record_call_folded(const struct pw_call *c);

/* ---- decoding (the writer role) ---- */

/* The record at p (avail bytes there) as one JSON line (no newline) into w.
 * Returns the record's size, or 0 when it is not a whole record. */
size_t pw_record_decode(struct pw_jw *w, const void *p, size_t avail);
/* The event of c as the writer would write it, made now on this thread
 * (tests; c's pointers must still be valid): record.c. */
void pw_event_call(struct pw_jw *w, const struct pw_call *c);

/* Decoding a run of records into lines, for the trace writer. */
struct pw_decode_out {
	char *buf;
	size_t cap, len;   /* lines are appended at buf + len */
	uint64_t lines;    /* lines made */
	uint64_t too_long; /* records whose line was longer than PW_EVENT_MAX: dropped */
	uint64_t bad;      /* records that were not whole (never seen: a bug) */
};
/* Decodes whole records of [p, end) while their lines fit in o; returns the
 * bytes of records consumed (all of them, or up to a record that needs more
 * room: call again after emptying o->buf). */
size_t pw_record_decode_span(const char *p, const char *end, struct pw_decode_out *o);

#endif

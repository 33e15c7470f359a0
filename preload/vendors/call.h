/*
 * The one skeleton every generated wrapper runs (PW_WRAPPER): capture the
 * arguments, then
 *
 *   before:  sequence number, the vendor's look-ups (pre), its bookkeeping,
 *            the rules (enforce mode may stop here), device timing, t0
 *   the real call
 *   after:   t1, result, device timing, bookkeeping, the event, the state
 *            model learns what the call did
 *
 * Each step asks the row's vendor descriptor (vendor.h).  The wrappers of
 * one vendor are generated in the file that defines its descriptor, so
 * the compiler sees every hook and calls it directly.
 */
#ifndef PW_CALL_H
#define PW_CALL_H

#include <string.h>

#include "rules/check.h"
#include "record/clock.h"
#include "record/event.h"
#include "core/hooks.h"
#include "state/op.h"
#include "record/phase.h"
#include "core/pp.h"
#include "record/record.h"
#include "record/record_write.h"
#include "core/pw.h"
#include "record/trace_hot.h"
#include "core/vendor.h"

/* peerwatch is on (pw_g.enabled: checking, tracing or both) and this is
 * not our own call. */
static inline bool pw_call_active(void)
{
	return !PW_UNLIKELY(pw_tls_internal) && atomic_load_explicit(&pw_g.enabled, memory_order_relaxed);
}

/* False when the call must go straight through: peerwatch off, or our own call. */
static inline bool pw_call_begin(struct pw_call *c, const struct pw_fn_desc *fn)
{
	if (PW_UNLIKELY(pw_tls_internal) || !atomic_load_explicit(&pw_g.enabled, memory_order_relaxed))
		return false;
	c->fn = fn;
	c->seq = pw_seq_next();
	c->parent = pw_tls_parent;
	c->cur_dev = PW_NO_DEV;
	c->nstack = 0;
	pw_tls_parent = c->seq;
	return true;
}

static inline void pw_call_end(struct pw_call *c)
{
	pw_tls_parent = c->parent;
}

/* One call in flight, on the wrapper's stack. */
struct pw_wrap {
	struct pw_call c;
	struct pw_op op;
	uint64_t token; /* the vendor's state_before, for its state_after */
	struct pw_gt_pair *gt;
	bool checked;
#ifdef PW_PHASES
	uint64_t ph_enter, ph_t, ph_real;
#endif
};

#ifdef PW_PHASES
#define PW_WRAP_PHASE_ENTER(w) ((w).ph_enter = (w).ph_t = PW_PHASE_NOW())
#define PW_WRAP_PHASE(w, ph) PW_PHASE_ADD(ph, (w)->ph_t)
#define PW_WRAP_PHASE_REAL0(w) ((w)->ph_real = PW_PHASE_NOW())
#define PW_WRAP_PHASE_REAL1(w) ((w)->ph_t = PW_PHASE_NOW(), (w)->ph_real = (w)->ph_t - (w)->ph_real)
#define PW_WRAP_PHASE_END(w) PW_PHASE_CALL_END((w)->ph_enter, (w)->ph_real)
#else
#define PW_WRAP_PHASE_ENTER(w) (void)0
#define PW_WRAP_PHASE(w, ph) (void)0
#define PW_WRAP_PHASE_REAL0(w) (void)0
#define PW_WRAP_PHASE_REAL1(w) (void)0
#define PW_WRAP_PHASE_END(w) (void)0
#endif

/*
 * Measurement builds only (make ABLATE=N; never in a release): leave a
 * stage of the skeleton out, so that timing builds side by side on the real
 * machine, where no hardware counters can be read, says what each stage
 * costs (docs/design-notes.md).  The trace of such a build is not complete.
 */
#ifndef PW_ABLATE
#define PW_ABLATE 0
#endif
#define PW_ABLATE_ALL 1    /* the wrapper passes every call straight through */
#define PW_ABLATE_RECORD 2 /* no record of the call */
#define PW_ABLATE_CLOCK 4  /* no counter reads (t0 = t1 = 0) */
#define PW_ABLATE_LOOKUP 8 /* no vendor look-ups before the call (pre) */

enum pw_step {
	PW_STEP_PASS,  /* straight to the real function, nothing recorded */
	PW_STEP_FEED,  /* the real function, then its result to the vendor's table (PW_NO_EVENT) */
	PW_STEP_TRACE, /* traced and checked */
	PW_STEP_FOLD,  /* nested in a runtime call: recorded into its fold area, untimed (record.h) */
};

/* Whether the vendor's state_before/after run for the row (vendor.h); row
 * is the wrapper's own, a constant there, so this folds away.  (Not c->fn:
 * a runtime's pre may change that to its other ABI's row.) */
static inline bool pw_state_row(const struct pw_vendor *v, const struct pw_fn_desc *row)
{
	return !v->state_rows || (row->flags & v->state_rows);
}

/* Whether call c, just begun, is folded into its parent's record: the
 * parent (a call of the layer above) opened the fold tail (which it does
 * only when its calls need nothing a fold leaves out: a stack, device
 * timing; record.h). */
__attribute__((always_inline)) static inline bool pw_fold_ok(const struct pw_vendor *v,
                                                             const struct pw_call *c)
{
	return !v->upper && c->parent && pw_tls_fold.owner == c->parent;
}

/* fn: the wrapper's row (c->fn), a constant there, which lets every test
 * of its flags and argument kinds fold away where the wrapper is compiled. */
__attribute__((always_inline)) static inline enum pw_step
pw_wrap_before(const struct pw_vendor *v, struct pw_wrap *w, const struct pw_fn_desc *fn)
{
	struct pw_call *c = &w->c;
	if (PW_ABLATE & PW_ABLATE_ALL)
		return PW_STEP_PASS;
	if (fn->flags & PW_NO_EVENT)
		return PW_STEP_FEED;
	if ((fn->flags & PW_IMPLICIT) &&
	    (!v->implicit_cross || !pw_call_active() || PW_LIKELY(!v->implicit_cross(c))))
		return PW_STEP_PASS;
	if (!pw_call_begin(c, fn))
		return PW_STEP_PASS;
	PW_WRAP_PHASE(w, PW_PH_CAPTURE);
	if (v->pre && !(PW_ABLATE & PW_ABLATE_LOOKUP))
		v->pre(c, fn);
	w->token = v->state_before && pw_state_row(v, fn) ? v->state_before(c) : 0;
	PW_WRAP_PHASE(w, PW_PH_LOOKUP);
	if (PW_UNLIKELY(pw_tls_upper) && pw_fold_ok(v, c)) {
		PW_WRAP_PHASE_REAL0(w);
		return PW_STEP_FOLD; /* not checked: the call above is */
	}
	/* Inside a call of a layer above (the runtime over the driver), that call is checked. */
	w->checked =
	    !pw_tls_upper && pw_g.opt.mode != PW_MODE_OBSERVE && v->op_before && v->op_before(c, &w->op);
	if (w->checked && !pw_op_on_result(fn->op) && !(v->check_before && v->check_before(c, &w->op)))
		pw_check_before(c, &w->op);
	PW_WRAP_PHASE(w, PW_PH_RULES);
	w->gt = v->gt_begin && PW_UNLIKELY(pw_g.opt.gpu_timing) ? v->gt_begin(c) : NULL;
	if (v->upper) {
		pw_tls_upper++;
		/* the calls it makes below fold into its record (none needs a stack
		 * or device timing of its own) */
		if (!pw_tls_fold.owner && pw_g.opt.stacks != PW_STACKS_ALL && !pw_g.opt.gpu_timing)
			pw_fold_open(c->seq);
	}
	PW_WRAP_PHASE_REAL0(w);
	c->t0 = PW_ABLATE & PW_ABLATE_CLOCK ? 0 : pw_ticks();
	return PW_STEP_TRACE;
}

/* The seq this thread's next call takes if nothing takes one before it;
 * 0 at the end of a block, where the next one is not known. */
static inline uint64_t pw_left_next(void)
{
	return pw_tls_seq_next < pw_tls_seq_end ? pw_tls_seq_next : 0;
}

/*
 * A runtime with a last error per host thread (v->last_error): the traced
 * call that failed is remembered for this thread (pw_tls_left), on the
 * error path only: no lock, no allocation, nothing when it succeeded.  A
 * getter leaves the memory as it is, but the one that resets the error
 * (PW_ERR_RESET) forgets it, as the runtime does.  Inlined into the
 * wrapper, so that the return address is the program's call site.
 */
__attribute__((always_inline)) static inline void
pw_wrap_left(const struct pw_vendor *v, const struct pw_call *c, const struct pw_fn_desc *row, int64_t ret)
{
	struct pw_left *l = &pw_tls_left[v->vendor];
	if (row->op == PW_OP_LAST_ERROR) {
		if (row->flags & PW_ERR_RESET)
			l->api = NULL;
		else if (l->api && l->next == c->seq)
			l->next = pw_left_next(); /* a peek right after the call: still right after */
	} else if (PW_UNLIKELY(ret != v->ret_success)) {
		*l = (struct pw_left){.api = c->fn->api,
		                      .seq = c->seq,
		                      .next = pw_left_next(),
		                      .code = ret,
		                      .site = (uintptr_t)__builtin_return_address(0)};
	}
}

__attribute__((always_inline)) static inline void pw_wrap_after(const struct pw_vendor *v, struct pw_wrap *w,
                                                                const struct pw_fn_desc *row,
                                                                enum pw_step step, int64_t ret)
{
	struct pw_call *c = &w->c;
	if (step == PW_STEP_FEED) {
		if (v->note_alloc && ret == v->ret_success && pw_call_active())
			v->note_alloc(c);
		return;
	}
	if (step == PW_STEP_FOLD) {
		PW_WRAP_PHASE_REAL1(w);
		c->t0 = c->t1 = 0; /* the parent's, set when its record is written */
		c->ret = ret;
		if (v->state_after && pw_state_row(v, row))
			v->state_after(c, w->token);
		PW_WRAP_PHASE(w, PW_PH_LOOKUP);
		pw_record_fold_row(c, row);
		PW_WRAP_PHASE(w, PW_PH_RECORD);
		pw_call_end(c);
		PW_WRAP_PHASE_END(w);
		return;
	}
	c->t1 = PW_ABLATE & PW_ABLATE_CLOCK ? 0 : pw_ticks();
	PW_WRAP_PHASE_REAL1(w);
	if (v->upper)
		pw_tls_upper--;
	c->ret = ret;
	if (w->gt && v->gt_end)
		v->gt_end(c, w->gt);
	if (v->state_after && pw_state_row(v, row))
		v->state_after(c, w->token);
	PW_WRAP_PHASE(w, PW_PH_LOOKUP);
	if (v->upper && pw_tls_fold.owner == c->seq)
		pw_record_row_folded(c, row);
	else if (PW_UNLIKELY(pw_g.opt.stacks == PW_STACKS_ALL))
		pw_event_post(c); /* its stack first */
	else if (!(PW_ABLATE & PW_ABLATE_RECORD))
		pw_record_row(c, row);
	PW_WRAP_PHASE(w, PW_PH_RECORD);
	if (v->last_error)
		pw_wrap_left(v, c, row, ret);
	if (w->checked && pw_op_on_result(row->op)) {
		pw_check_result(c, &w->op, ret, v->error_name);
		PW_WRAP_PHASE(w, PW_PH_RULES);
	}
	if (w->checked && pw_op_has_after(&w->op)) {
		if (v->op_after)
			v->op_after(c, &w->op);
		pw_check_after(&w->op, ret, ret == v->ret_already_enabled);
		PW_WRAP_PHASE(w, PW_PH_RULES);
	}
	pw_call_end(c);
	PW_WRAP_PHASE_END(w);
}

/*
 * Argument capture: every argument in a uint64_t, by its kind's class.
 *   VAL    integers, unsigned or pointer-sized, and pointers: the value
 *   SVAL   signed integers and enums: sign-extended
 *   ADDR   structs passed by value whose bytes are recorded (IPC handles):
 *          the address of the wrapper's own copy
 *   BYTES8 structs passed by value of 8 bytes (locations): their bytes
 *   NONE   f(void): nothing
 * A kind a vendor adds says its class in the vendor's table header.
 */
#define PW_CAP_VAL(slot, n) (slot) = (uint64_t)(uintptr_t)(n)
#define PW_CAP_SVAL(slot, n) (slot) = (uint64_t)(int64_t)(n)
#define PW_CAP_ADDR(slot, n) (slot) = (uint64_t)(uintptr_t) & (n)
#define PW_CAP_BYTES8(slot, n)                                                  \
	do {                                                                    \
		_Static_assert(sizeof(n) == 8, "a BYTES8 argument is 8 bytes"); \
		memcpy(&(slot), &(n), 8);                                       \
	} while (0)
#define PW_CAP_NONE(slot, n) (void)0

#define PW_CAP_PTR PW_CAP_VAL
#define PW_CAP_PTR32 PW_CAP_VAL
#define PW_CAP_CTX PW_CAP_VAL
#define PW_CAP_DEV PW_CAP_SVAL
#define PW_CAP_SIZE PW_CAP_VAL
#define PW_CAP_STREAM PW_CAP_VAL
#define PW_CAP_EVENT PW_CAP_VAL
#define PW_CAP_UINT PW_CAP_VAL
#define PW_CAP_IPCFLAGS PW_CAP_VAL
#define PW_CAP_ATTACHFLAGS PW_CAP_VAL
#define PW_CAP_ADVICE PW_CAP_SVAL
#define PW_CAP_RATTR PW_CAP_SVAL
#define PW_CAP_P2PATTR PW_CAP_SVAL
#define PW_CAP_LOC PW_CAP_BYTES8
#define PW_CAP_IPCMEM PW_CAP_ADDR
#define PW_CAP_IPCEVT PW_CAP_ADDR
#define PW_CAP_OUT_INT PW_CAP_VAL
#define PW_CAP_OUT_PTR PW_CAP_VAL
#define PW_CAP_OUT_IPCMEM PW_CAP_VAL
#define PW_CAP_OUT_IPCEVT PW_CAP_VAL
#define PW_CAP_OUT_EVENT PW_CAP_VAL
#define PW_CAP_HPTR PW_CAP_VAL
#define PW_CAP_RDATA PW_CAP_VAL
#define PW_CAP_RATTRS PW_CAP_VAL
#define PW_CAP_COPY3D PW_CAP_VAL
#define PW_CAP_COPY2D PW_CAP_VAL
#define PW_CAP_COPY3DL PW_CAP_VAL
#define PW_CAP_BATCH PW_CAP_VAL
#define PW_CAP_BATCH3D PW_CAP_VAL
#define PW_CAP_SKIP PW_CAP_VAL
#define PW_CAP_U64 PW_CAP_VAL
#define PW_CAP_OUT_SIZE PW_CAP_VAL
#define PW_CAP_ULL PW_CAP_VAL
#define PW_CAP_VA PW_CAP_VAL
#define PW_CAP_MEMHANDLE PW_CAP_VAL
#define PW_CAP_OUT_MEMHANDLE PW_CAP_VAL
#define PW_CAP_ALLOCPROP PW_CAP_VAL
#define PW_CAP_HTYPE PW_CAP_SVAL
#define PW_CAP_SHAREABLE PW_CAP_VAL
#define PW_CAP_OUT_SHAREABLE PW_CAP_VAL
#define PW_CAP_ACCESS PW_CAP_VAL
#define PW_CAP_POOL PW_CAP_VAL
#define PW_CAP_OUT_POOL PW_CAP_VAL
#define PW_CAP_EXPORTDATA PW_CAP_VAL
#define PW_CAP_OUT_EXPORTDATA PW_CAP_VAL
#define PW_CAP_PBATCH PW_CAP_VAL
#define PW_CAP_ATOMICOPS PW_CAP_VAL
#define PW_CAP_OUT_ATOMICCAPS PW_CAP_VAL

/*
 * What the event needs of an argument beyond its word (event.h, record.h):
 *   PW_SNAP_<KIND> 1  the vendor's snap_arg saves bytes for it after the call
 *                     (out-parameters, by-value handles, structs and arrays
 *                     behind pointers, devices of returned pointers); 0 none
 *   PW_WIDE_<KIND> 1  its event reads the device slots past the arguments
 *                     (PW_DEV_COPY3D_DST, the batch slots): all are recorded
 * A kind a vendor adds says both in the vendor's table header.
 */
#define PW_SNAP_PTR 0
#define PW_SNAP_PTR32 0
#define PW_SNAP_CTX 0
#define PW_SNAP_DEV 0
#define PW_SNAP_SIZE 0
#define PW_SNAP_STREAM 0
#define PW_SNAP_EVENT 0
#define PW_SNAP_UINT 0
#define PW_SNAP_IPCFLAGS 1 /* HIP: the runtime's version names the lazy flag */
#define PW_SNAP_ATTACHFLAGS 0
#define PW_SNAP_ADVICE 0
#define PW_SNAP_RATTR 0
#define PW_SNAP_P2PATTR 0
#define PW_SNAP_LOC 0
#define PW_SNAP_IPCMEM 1
#define PW_SNAP_IPCEVT 1
#define PW_SNAP_OUT_INT 1
#define PW_SNAP_OUT_PTR 1
#define PW_SNAP_OUT_IPCMEM 1
#define PW_SNAP_OUT_IPCEVT 1
#define PW_SNAP_OUT_EVENT 1
#define PW_SNAP_HPTR 0
#define PW_SNAP_RDATA 1
#define PW_SNAP_RATTRS 1
#define PW_SNAP_COPY3D 1
#define PW_SNAP_COPY2D 1
#define PW_SNAP_COPY3DL 1
#define PW_SNAP_BATCH 1
#define PW_SNAP_BATCH3D 1
#define PW_SNAP_SKIP 0
#define PW_SNAP_U64 0
#define PW_SNAP_OUT_SIZE 1
#define PW_SNAP_ULL 0
#define PW_SNAP_VA 0
#define PW_SNAP_MEMHANDLE 0
#define PW_SNAP_OUT_MEMHANDLE 1
#define PW_SNAP_ALLOCPROP 1
#define PW_SNAP_HTYPE 0
#define PW_SNAP_SHAREABLE 1
#define PW_SNAP_OUT_SHAREABLE 1
#define PW_SNAP_ACCESS 1
#define PW_SNAP_POOL 0
#define PW_SNAP_OUT_POOL 1
#define PW_SNAP_EXPORTDATA 1
#define PW_SNAP_OUT_EXPORTDATA 1
#define PW_SNAP_PBATCH 1
#define PW_SNAP_ATOMICOPS 1
#define PW_SNAP_OUT_ATOMICCAPS 1
#define PW_SNAP_NONE 0

#define PW_WIDE_COPY3D 1
#define PW_WIDE_COPY2D 1
#define PW_WIDE_COPY3DL 1
#define PW_WIDE_BATCH 1
#define PW_WIDE_BATCH3D 1
/* every other kind: 0 (PW_WIDE_OF below) */

#define PW_ARG_SNAPBIT(i, t) PW_ARG_SNAPBIT_(i, PW_EXPAND(PW_ARG_KIND_ t))
#define PW_ARG_SNAPBIT_(i, k) PW_ARG_SNAPBIT__(i, k)
#define PW_ARG_SNAPBIT__(i, k) | (PW_SNAP_##k << (i))
#define PW_ARG_WIDE(i, t) PW_ARG_WIDE_(PW_EXPAND(PW_ARG_KIND_ t))
#define PW_ARG_WIDE_(k) PW_ARG_WIDE__(k)
#define PW_ARG_WIDE__(k) | PW_WIDE_OF(PW_WIDE_##k)
/* PW_WIDE_<KIND> is 1 where defined; an undefined one stays a name, which
 * PW_WIDE_OF turns into 0 (the probe trick of pp.h's PW_IS_VOID). */
#define PW_WIDE_OF(x) PW_SECOND_(PW_CAT(PW_WIDE_PROBE_, x), 0, ~)
#define PW_WIDE_PROBE_1 ~, 1
#define PW_NOSEP()

#define PW_ARG_CAPTURE(i, t) PW_ARG_CAPTURE_(i, PW_EXPAND(PW_ARG_CAPTURE_T t))
#define PW_ARG_CAPTURE_T(k, ty, n) k, n
#define PW_ARG_CAPTURE_(i, ...) PW_ARG_CAPTURE__(i, __VA_ARGS__)
#define PW_ARG_CAPTURE__(i, k, n) PW_CAP_##k(w.c.a[i], n)

/*
 * The exported function sym with the vendor's exact signature sig (a row of
 * its table), running the skeleton above around the real function of row
 * id of vendor descriptor V.  ret_t is the vendor's result type; uninit
 * what it returns when the library has no such function.
 */
#define PW_WRAPPER(V, id, ret_t, uninit, sym, sig)                                   \
	PW_EXPORT ret_t sym(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig));           \
	ret_t sym(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig))                      \
	{                                                                            \
		typedef ret_t (*fn_t)(PW_MAP(PW_ARG_TYPE, PW_COMMA, PW_EXPAND sig)); \
		fn_t real = (fn_t)pw_real(&V, id);                                   \
		if (PW_UNLIKELY(!real))                                              \
			return uninit;                                               \
		struct pw_wrap w;                                                    \
		PW_WRAP_PHASE_ENTER(w);                                              \
		w.c.fn = &V.fns[id];                                                 \
		PW_MAP(PW_ARG_CAPTURE, PW_SEMI, PW_EXPAND sig);                      \
		enum pw_step step = pw_wrap_before(&V, &w, &V.fns[id]);              \
		if (step == PW_STEP_PASS)                                            \
			return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));   \
		ret_t r = real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));        \
		pw_wrap_after(&V, &w, &V.fns[id], step, (int64_t)r);                 \
		return r;                                                            \
	}

/* The row's descriptor (hooks.h), for the table of vendor descriptor V. */
#define PW_FN_DESC(V, api_, sfx_, fam_, op_, flg_, sig_)                                                   \
	{                                                                                                  \
		.symbol = #api_ #sfx_, .api = #api_, .variant = #sfx_, .lib = &V, .family = PW_FAM_##fam_, \
		.op = PW_OP_##op_, .nargs = PW_NARGS(PW_EXPAND sig_), .flags = flg_,                       \
		.snap = 0 PW_MAP(PW_ARG_SNAPBIT, PW_NOSEP, PW_EXPAND sig_),                                \
		.wide = 0 PW_MAP(PW_ARG_WIDE, PW_NOSEP, PW_EXPAND sig_), .args = {                         \
			PW_MAP(PW_ARG_DESC, PW_COMMA, PW_EXPAND sig_)                                      \
		}                                                                                          \
	}

#endif

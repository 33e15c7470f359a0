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

#include "check.h"
#include "event.h"
#include "hooks.h"
#include "op.h"
#include "pp.h"
#include "pw.h"
#include "vendor.h"

/* Tracing is on and this is not our own call. */
static inline bool pw_call_active(void)
{
	return !PW_UNLIKELY(pw_tls_internal) && atomic_load_explicit(&pw_g.enabled, memory_order_relaxed);
}

/* False when the call must go straight through: tracing off, or our own call. */
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
};

enum pw_step {
	PW_STEP_PASS,  /* straight to the real function, nothing recorded */
	PW_STEP_FEED,  /* the real function, then its result to the vendor's table (PW_NO_EVENT) */
	PW_STEP_TRACE, /* traced and checked */
};

__attribute__((always_inline)) static inline enum pw_step pw_wrap_before(const struct pw_vendor *v,
                                                                         struct pw_wrap *w)
{
	struct pw_call *c = &w->c;
	const struct pw_fn_desc *fn = c->fn;
	if (fn->flags & PW_NO_EVENT)
		return PW_STEP_FEED;
	if ((fn->flags & PW_IMPLICIT) &&
	    (!v->implicit_cross || !pw_call_active() || PW_LIKELY(!v->implicit_cross(c))))
		return PW_STEP_PASS;
	if (!pw_call_begin(c, fn))
		return PW_STEP_PASS;
	if (v->pre)
		v->pre(c);
	w->token = v->state_before ? v->state_before(c) : 0;
	/* Inside a call of a layer above (the runtime over the driver), that call is checked. */
	w->checked = !pw_tls_upper && pw_checking() && v->op_before && v->op_before(c, &w->op);
	if (w->checked && !(v->check_before && v->check_before(c, &w->op)))
		pw_check_before(c, &w->op);
	w->gt = v->gt_begin && PW_UNLIKELY(pw_g.opt.gpu_timing) ? v->gt_begin(c) : NULL;
	c->t0 = pw_now_ns();
	if (v->upper)
		pw_tls_upper++;
	return PW_STEP_TRACE;
}

__attribute__((always_inline)) static inline void pw_wrap_after(const struct pw_vendor *v, struct pw_wrap *w,
                                                                enum pw_step step, int64_t ret)
{
	struct pw_call *c = &w->c;
	if (step == PW_STEP_FEED) {
		if (v->note_alloc && ret == v->ret_success && pw_call_active())
			v->note_alloc(c);
		return;
	}
	if (v->upper)
		pw_tls_upper--;
	c->t1 = pw_now_ns();
	c->ret = ret;
	if (w->gt && v->gt_end)
		v->gt_end(c, w->gt);
	if (v->state_after)
		v->state_after(c, w->token);
	pw_event_post(c);
	if (w->checked) {
		if (v->op_after)
			v->op_after(c, &w->op);
		pw_check_after(&w->op, ret, ret == v->ret_already_enabled);
	}
	pw_call_end(c);
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
		w.c.fn = &V.fns[id];                                                 \
		PW_MAP(PW_ARG_CAPTURE, PW_SEMI, PW_EXPAND sig);                      \
		enum pw_step step = pw_wrap_before(&V, &w);                          \
		if (step == PW_STEP_PASS)                                            \
			return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));   \
		ret_t r = real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));        \
		pw_wrap_after(&V, &w, step, (int64_t)r);                             \
		return r;                                                            \
	}

/* The row's descriptor (hooks.h), for the table of vendor descriptor V. */
#define PW_FN_DESC(V, api_, sfx_, fam_, op_, flg_, sig_)                                                   \
	{                                                                                                  \
		.symbol = #api_ #sfx_, .api = #api_, .variant = #sfx_, .lib = &V, .family = PW_FAM_##fam_, \
		.op = PW_OP_##op_, .nargs = PW_NARGS(PW_EXPAND sig_), .flags = flg_, .args = {             \
			PW_MAP(PW_ARG_DESC, PW_COMMA, PW_EXPAND sig_)                                      \
		}                                                                                          \
	}

#endif

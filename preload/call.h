/* The steps every generated wrapper takes around the real call. */
#ifndef PW_CALL_H
#define PW_CALL_H

#include "hooks.h"
#include "pw.h"

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

#endif

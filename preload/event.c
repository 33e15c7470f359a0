/* The common part of every vendor's "call" event (event.h). */
#include "event.h"

#include <stdio.h>

#include "report.h"
#include "rules.h"
#include "jsonw.h"
#include "peerwatch/trace_format.h"
#include "pw.h"
#include "trace.h"
#include "vendor.h"

void pw_event_put_dev(struct pw_jw *w, const char *key, const char *suffix, int32_t dev)
{
	pw_jw_key2(w, key, suffix);
	if (dev == PW_NO_DEV)
		pw_jw_raw(w, "null", 4);
	else
		pw_jw_i64(w, dev);
}

void pw_event_flag_names(char *buf, size_t cap, uint64_t v, const struct pw_flag_name *names)
{
	size_t len = 0;
	uint64_t rest = v;
	buf[0] = 0;
	for (const struct pw_flag_name *f = names; f->name; f++) {
		if (!(v & f->bit))
			continue;
		len +=
		    (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? "|" : "", f->name);
		rest &= ~(uint64_t)f->bit;
	}
	if ((rest || !v) && len < cap)
		snprintf(buf + len, cap - len, "%s0x%llx", len ? "|" : "", (unsigned long long)rest);
}

void pw_event_put_flags(struct pw_jw *w, const char *key, uint64_t v, const struct pw_flag_name *names)
{
	char buf[160];
	pw_jw_key(w, key);
	pw_jw_u64(w, v);
	pw_jw_key2(w, key, "_names");
	pw_event_flag_names(buf, sizeof buf, v, names);
	pw_jw_str(w, buf);
}

void pw_event_put_enum(struct pw_jw *w, const char *key, int64_t v, const char *name)
{
	pw_jw_key(w, key);
	pw_jw_i64(w, v);
	pw_jw_key2(w, key, "_name");
	if (name)
		pw_jw_str(w, name);
	else
		pw_jw_raw(w, "null", 4);
}

void pw_event_put_range_data(struct pw_jw *w, const char *key, uint64_t data, uint64_t size, bool ok)
{
	pw_jw_kv_hex(w, key, data);
	if (ok && data && size == sizeof(int))
		pw_jw_kv_i64(w, "value", *(const int *)(uintptr_t)data);
}

void pw_event_put_range_attrs(struct pw_jw *w, const char *key, const int *attrs, uint64_t n,
                              const char *(*name)(int64_t))
{
	pw_jw_key(w, key);
	pw_jw_ch(w, '[');
	for (uint64_t j = 0; attrs && j < n && j < 16; j++) {
		if (j)
			pw_jw_ch(w, ',');
		const char *s = name(attrs[j]);
		if (s)
			pw_jw_str(w, s);
		else
			pw_jw_i64(w, attrs[j]);
	}
	pw_jw_ch(w, ']');
}

void pw_event_call(struct pw_jw *w, const struct pw_call *c)
{
	const struct pw_fn_desc *fn = c->fn;
	const struct pw_vendor *v = fn->lib;
	const char *ret_name = v->error_name ? v->error_name((int)c->ret) : NULL;
	if (!pw_tls_tid)
		pw_tls_tid = pw_gettid();
	pw_jw_obj_open(w);
	pw_jw_raw(w, "\"type\":\"call\"", 13);
	w->need_comma = true;
	pw_jw_kv_u64(w, "seq", c->seq);
	pw_jw_kv_i64(w, "tid", pw_tls_tid);
	pw_jw_kv_str(w, "vendor", pw_vendor_name(v->vendor));
	if (v->layer)
		pw_jw_kv_str(w, "layer", v->layer);
	pw_jw_kv_str(w, "api", fn->api);
	pw_jw_kv_str(w, "variant", fn->variant);
	pw_jw_kv_str(w, "family", pw_family_name(fn->family));
	const char *op = pw_op_name(fn->op);
	pw_jw_kv_str(w, "op", op ? op : "none"); /* every row has one (tests/unit/test_ops.c) */
	pw_jw_kv_u64(w, "t_ns", c->t0);
	pw_jw_kv_u64(w, "dur_ns", c->t1 - c->t0);
	pw_jw_kv_i64(w, "ret", c->ret);
	pw_jw_key(w, "ret_name");
	if (ret_name)
		pw_jw_str(w, ret_name);
	else
		pw_jw_raw(w, "null", 4);
	if (c->parent)
		pw_jw_kv_u64(w, "parent", c->parent);
	if (fn->flags & PW_CUR_DEV)
		pw_event_put_dev(w, "cur", "_dev", c->cur_dev);
	if (fn->flags & PW_IMPLICIT)
		pw_jw_raw(w, ",\"implicit\":true", 16);
	if (PW_UNLIKELY(pw_tls_suppressed.seq == c->seq) && pw_tls_suppressed.n) {
		pw_jw_key(w, "suppressed");
		pw_jw_ch(w, '[');
		for (int i = 0; i < pw_tls_suppressed.n; i++) {
			if (i)
				pw_jw_ch(w, ',');
			pw_jw_str(w, pw_rules[pw_tls_suppressed.rule[i]].id);
		}
		pw_jw_ch(w, ']');
		pw_tls_suppressed.n = 0;
	}
	if (c->nstack > 0) {
		pw_jw_key(w, "stack");
		pw_jw_ch(w, '[');
		for (int i = 0; i < c->nstack; i++) {
			if (i)
				pw_jw_ch(w, ',');
			pw_jw_hex(w, c->stack[i]);
		}
		pw_jw_ch(w, ']');
	}
	pw_jw_key(w, "args");
	pw_jw_obj_open(w);
	for (int i = 0; i < fn->nargs; i++)
		if (fn->args[i].kind != PW_K_NONE)
			v->put_arg(w, c, i);
	pw_jw_obj_close(w);
	pw_jw_obj_close(w);
}

void pw_event_post(struct pw_call *c)
{
	uintptr_t ips[64];
	if (PW_UNLIKELY(pw_g.opt.stacks == PW_STACKS_ALL)) {
		pw_tls_internal++;
		c->nstack = pw_report_app_stack(ips, pw_g.opt.stack_depth);
		pw_tls_internal--;
		c->stack = ips;
	}
	struct pw_jw w;
	if (!pw_trace_event_begin(&w))
		return;
	pw_event_call(&w, c);
	pw_trace_event_end(&w);
}

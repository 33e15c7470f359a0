/* The common part of every vendor's "call" event (event.h). */
#include "record/event.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/jsonw.h"
#include "peerwatch/rules_table.h"
#include "peerwatch/trace_format.h"
#include "core/pw.h"
#include "record/record.h"
#include "record/trace.h"
#include "core/vendor.h"

/* The catalog's rule ids (include/peerwatch/rules_table.h), for the
 * "suppressed" member: read from the table, not from the rules' room. */
#define PW_RULE_ID_ROW(name, id, ...) [PW_RULE_##name] = id,
static const char *const rule_ids[PW_RULE_COUNT] = {PW_RULES(PW_RULE_ID_ROW)};

/* ---- the calling thread: snapshots ---- */

void pw_event_snap_deref(struct pw_snapw *s, int i, uint64_t p, size_t len)
{
	if (p)
		pw_snap_copy(s, i, (const void *)(uintptr_t)p, len);
}

bool pw_event_snap_common(struct pw_snapw *s, const struct pw_call *c, int i, bool ok,
                          const struct pw_snap_sizes *z)
{
	uint64_t v = c->a[i];
	switch ((enum pw_kind)c->fn->args[i].kind) {
	case PW_K_IPCMEM:
	case PW_K_IPCEVT: pw_event_snap_deref(s, i, v, z->ipc_handle); return true;
	case PW_K_OUT_PTR:
		if (ok)
			pw_event_snap_out_ptr(s, i, v, z->dev_of);
		return true;
	case PW_K_OUT_IPCMEM:
	case PW_K_OUT_IPCEVT:
		if (ok)
			pw_event_snap_deref(s, i, v, z->ipc_handle);
		return true;
	case PW_K_OUT_EVENT:
		if (ok)
			pw_event_snap_deref(s, i, v, z->event);
		return true;
	case PW_K_RDATA: pw_event_snap_range_data(s, c, i, ok); return true;
	case PW_K_RATTRS: pw_event_snap_ints(s, i, v, c->a[i + 1]); return true;
	default: return false;
	}
}

void pw_event_snap_ints(struct pw_snapw *s, int i, uint64_t p, uint64_t n)
{
	if (p)
		pw_snap_copy(s, i, (const void *)(uintptr_t)p,
		             (n < PW_EVENT_LISTED ? (size_t)n : PW_EVENT_LISTED) * sizeof(int));
}

void pw_event_snap_out_ptr(struct pw_snapw *s, int i, uint64_t p, int (*dev_of)(uint64_t ptr))
{
	if (!p)
		return;
	struct pw_snap_ptr *o = pw_snap_add(s, i, sizeof *o);
	if (!o)
		return;
	o->ptr = *(const uint64_t *)(uintptr_t)p;
	o->dev = dev_of(o->ptr);
}

void pw_event_snap_range_data(struct pw_snapw *s, const struct pw_call *c, int i, bool ok)
{
	if (ok && c->a[i] && c->a[i + 1] == sizeof(int))
		pw_snap_copy(s, i, (const void *)(uintptr_t)c->a[i], sizeof(int));
}

/* ---- the writer ---- */

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

void pw_event_put_bytes(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i, size_t len)
{
	const void *b = pw_rec_snap(r, i, len);
	if (!b)
		return;
	pw_jw_key(w, key);
	pw_jw_bytes(w, b, len);
}

void pw_event_put_range_data(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i)
{
	const void *v = pw_rec_snap(r, i, sizeof(int));
	pw_jw_kv_hex(w, key, r->c.a[i]);
	if (v) {
		int x;
		memcpy(&x, v, sizeof x);
		pw_jw_kv_i64(w, "value", x);
	}
}

void pw_event_put_range_attrs(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i,
                              const char *(*name)(int64_t))
{
	size_t n;
	const uint8_t *b = pw_rec_snap_n(r, i, &n);
	n /= sizeof(int);
	pw_jw_key(w, key);
	pw_jw_ch(w, '[');
	for (size_t j = 0; j < n; j++) {
		int a;
		memcpy(&a, b + j * sizeof a, sizeof a);
		if (j)
			pw_jw_ch(w, ',');
		const char *s = name(a);
		if (s)
			pw_jw_str(w, s);
		else
			pw_jw_i64(w, a);
	}
	pw_jw_ch(w, ']');
}

void pw_event_put_out_ptr(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i)
{
	const struct pw_snap_ptr *o = pw_rec_snap(r, i, sizeof *o);
	if (!o)
		return;
	pw_jw_kv_hex(w, key, o->ptr);
	pw_event_put_dev(w, key, "_dev", o->dev);
}

void pw_event_put_out_word(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i)
{
	const void *b = pw_rec_snap(r, i, sizeof(uint64_t));
	uint64_t x;
	if (!b)
		return;
	memcpy(&x, b, sizeof x);
	pw_jw_kv_hex(w, key, x);
}

const char *pw_event_loc_type_name(int type)
{
	static const char *const n[] = {"invalid", "device", "host", "host_numa", "host_numa_current"};
	return type >= 0 && type < 5 ? n[type] : NULL;
}

void pw_event_put_loc(struct pw_jw *w, const char *key, int type, int id)
{
	const char *t = pw_event_loc_type_name(type);
	pw_jw_key(w, key);
	pw_jw_obj_open(w);
	pw_jw_key(w, "type");
	if (t)
		pw_jw_str(w, t);
	else
		pw_jw_i64(w, type);
	pw_jw_kv_i64(w, "id", id);
	pw_jw_obj_close(w);
}

bool pw_event_put_common(struct pw_jw *w, const struct pw_rcall *r, int i, const struct pw_arg_names *n)
{
	const struct pw_call *c = &r->c;
	const char *k = c->fn->args[i].name;
	uint64_t v = c->a[i];
	const void *b;
	switch ((enum pw_kind)c->fn->args[i].kind) {
	case PW_K_PTR:
	case PW_K_CTX:
		pw_jw_kv_hex(w, k, v);
		pw_event_put_dev(w, k, "_dev", c->dev[i]);
		return true;
	case PW_K_STREAM:
	case PW_K_EVENT:
	case PW_K_HPTR: pw_jw_kv_hex(w, k, v); return true;
	case PW_K_DEV: pw_jw_kv_i64(w, k, (int64_t)v); return true;
	case PW_K_SIZE: pw_jw_kv_u64(w, k, v); return true;
	case PW_K_IPCFLAGS:
		if (!n->ipc_flags)
			return false;
		pw_event_put_flags(w, k, v, n->ipc_flags);
		return true;
	case PW_K_ATTACHFLAGS:
		if (!n->attach_flags)
			return false;
		pw_event_put_flags(w, k, v, n->attach_flags);
		return true;
	case PW_K_ADVICE: pw_event_put_enum(w, k, (int64_t)v, n->advice((int64_t)v)); return true;
	case PW_K_RATTR: pw_event_put_enum(w, k, (int64_t)v, n->range_attr((int64_t)v)); return true;
	case PW_K_P2PATTR: pw_event_put_enum(w, k, (int64_t)v, n->p2p_attr((int64_t)v)); return true;
	case PW_K_IPCMEM:
	case PW_K_IPCEVT:
	case PW_K_OUT_IPCMEM:
	case PW_K_OUT_IPCEVT: pw_event_put_bytes(w, k, r, i, n->ipc_handle); return true;
	case PW_K_OUT_INT:
		if ((b = pw_rec_snap(r, i, sizeof(int)))) {
			int x;
			memcpy(&x, b, sizeof x);
			pw_jw_kv_i64(w, k, x);
		}
		return true;
	case PW_K_OUT_PTR: pw_event_put_out_ptr(w, k, r, i); return true;
	case PW_K_OUT_EVENT: pw_event_put_out_word(w, k, r, i); return true;
	case PW_K_RDATA: pw_event_put_range_data(w, k, r, i); return true;
	case PW_K_RATTRS: pw_event_put_range_attrs(w, k, r, i, n->range_attr); return true;
	default: return false;
	}
}

/*
 * The members of a call event that depend on its row alone, from "vendor"
 * to "op", and those of a successful result ("ret", "ret_name"), made once
 * per row and kept: most of a short event's bytes.  The writer role reads
 * the table without a lock; a row is filled in once, under one (should a
 * second thread ever decode at the same time, as when the trace is finished
 * while a stuck writer thread is still in a write).
 */
#define ROW_SLOTS 1024
struct row_text {
	_Atomic(const struct pw_fn_desc *) fn; /* set last: the texts are whole once it is */
	char *members, *success;
	size_t members_len, success_len;
};
static struct row_text rows[ROW_SLOTS];
static pthread_mutex_t rows_lock = PTHREAD_MUTEX_INITIALIZER;

static char *dup_text(const char *p, size_t n)
{
	char *d = malloc(n ? n : 1);
	if (d)
		memcpy(d, p, n);
	return d;
}

static void put_row_members(struct pw_jw *w, const struct pw_fn_desc *fn)
{
	const struct pw_vendor *v = fn->lib;
	pw_jw_kv_str(w, "vendor", pw_vendor_name(v->vendor));
	if (v->layer)
		pw_jw_kv_str(w, "layer", v->layer);
	pw_jw_kv_str(w, "api", fn->api);
	pw_jw_kv_str(w, "variant", fn->variant);
	pw_jw_kv_str(w, "family", pw_family_name(fn->family));
	const char *op = pw_op_name(fn->op);
	pw_jw_kv_str(w, "op", op ? op : "none"); /* every row has one (tests/unit/test_ops.c) */
}

static void put_ret(struct pw_jw *w, const struct pw_vendor *v, int64_t ret)
{
	const char *ret_name = v->error_name ? v->error_name((int)ret) : NULL;
	pw_jw_kv_i64(w, "ret", ret);
	pw_jw_key(w, "ret_name");
	if (ret_name)
		pw_jw_str(w, ret_name);
	else
		pw_jw_raw(w, "null", 4);
}

/* Slot t (empty) filled in for fn, under rows_lock; false when it cannot be. */
static bool fill_row(struct row_text *t, const struct pw_fn_desc *fn)
{
	char buf[512];
	struct pw_jw w;
	pw_jw_init(&w, buf, sizeof buf);
	w.need_comma = true;
	put_row_members(&w, fn);
	if (w.overflow || !(t->members = dup_text(buf, (size_t)(w.p - buf))))
		return false;
	t->members_len = (size_t)(w.p - buf);
	pw_jw_init(&w, buf, sizeof buf);
	w.need_comma = true;
	put_ret(&w, fn->lib, fn->lib->ret_success);
	if (w.overflow || !(t->success = dup_text(buf, (size_t)(w.p - buf)))) {
		free(t->members);
		t->members = NULL;
		return false;
	}
	t->success_len = (size_t)(w.p - buf);
	atomic_store_explicit(&t->fn, fn, memory_order_release);
	return true;
}

/* The row's kept text, made on first use; NULL when it cannot be kept. */
static const struct row_text *row_text(const struct pw_fn_desc *fn)
{
	unsigned h = (unsigned)(((uintptr_t)fn >> 3) * 2654435761u) % ROW_SLOTS;
	for (unsigned i = 0; i < ROW_SLOTS; i++) {
		struct row_text *t = &rows[(h + i) % ROW_SLOTS];
		const struct pw_fn_desc *k = atomic_load_explicit(&t->fn, memory_order_acquire);
		if (k == fn)
			return t;
		if (k)
			continue;
		pthread_mutex_lock(&rows_lock);
		k = atomic_load_explicit(&t->fn, memory_order_relaxed);
		bool ok = k == fn || (!k && fill_row(t, fn));
		pthread_mutex_unlock(&rows_lock);
		if (ok)
			return t;
		if (!k)
			return NULL; /* out of memory: written member by member */
		                     /* another row took the slot meanwhile: look further */
	}
	return NULL;
}

void pw_event_write(struct pw_jw *w, const struct pw_rcall *r)
{
	const struct pw_call *c = &r->c;
	const struct pw_fn_desc *fn = c->fn;
	const struct pw_vendor *v = fn->lib;
	const struct row_text *t = row_text(fn);
	pw_jw_obj_open(w);
	pw_jw_raw(w, "\"type\":\"call\"", 13);
	w->need_comma = true;
	pw_jw_kv_u64(w, "seq", c->seq);
	pw_jw_kv_i64(w, "tid", r->tid);
	if (t)
		pw_jw_raw(w, t->members, t->members_len);
	else
		put_row_members(w, fn);
	pw_jw_kv_u64(w, "t_ns", c->t0);
	pw_jw_kv_u64(w, "dur_ns", c->t1 - c->t0);
	if (t && c->ret == v->ret_success)
		pw_jw_raw(w, t->success, t->success_len);
	else
		put_ret(w, v, c->ret);
	if (c->parent)
		pw_jw_kv_u64(w, "parent", c->parent);
	if (r->parent_time)
		pw_jw_raw(w, ",\"parent_time\":true", 19);
	if (fn->flags & PW_CUR_DEV)
		pw_event_put_dev(w, "cur", "_dev", c->cur_dev);
	if (fn->flags & PW_IMPLICIT)
		pw_jw_raw(w, ",\"implicit\":true", 16);
	if (PW_UNLIKELY(r->nsupp)) {
		pw_jw_key(w, "suppressed");
		pw_jw_ch(w, '[');
		for (int i = 0; i < r->nsupp; i++) {
			int32_t rule;
			memcpy(&rule, r->supp + 4 * i, 4);
			if (i)
				pw_jw_ch(w, ',');
			pw_jw_str(w, rule >= 0 && rule < PW_RULE_COUNT ? rule_ids[rule] : "?");
		}
		pw_jw_ch(w, ']');
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
			v->put_arg(w, r, i);
	pw_jw_obj_close(w);
	pw_jw_obj_close(w);
}

/*
 * managed: managed allocations and their frees, the history of advice,
 * prefetches and stream attachment per allocation, and prefetch volume per
 * vendor and destination (model/managed.h says what counts and how).
 */
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/devices.h"
#include "model/managed.h"
#include "model/procs.h"
#include "model/umfx.h"
#include "read/files.h"
#include "read/reader.h"

/* The physical devices of the traces (devices.h). */
static const struct pw_devmap *dm;

/* "GPU0 (dev1)" for a device the trace identified, "dev1" otherwise. */
static void alloc_dev(char *buf, size_t len, const struct m_alloc *a)
{
	int64_t key = pw_devkey(dm, a->file, a->vendor, a->dev);
	char phys[24], own[24];
	fmt_dev(own, sizeof own, a->dev);
	if (key >= PW_PHYS_BASE) {
		pw_devkey_fmt(dm, key, phys, sizeof phys);
		snprintf(buf, len, "%.20s (%.20s)", phys, own);
	} else {
		snprintf(buf, len, "%s", own);
	}
}

/* The tables below are as long as the managed calls: their rows are made
 * twice (table_print_rows), not held. */
struct rows {
	const struct managed *m;
	const struct pw_input *in;
	const size_t *idx; /* print_ops: the rows' ops, in order */
	char *label;
	char seq[24], ptr[24], bytes[32], dev[64], freed[32], range[64];
};

static void alloc_row(void *ctx, size_t i, const char **cells)
{
	struct rows *x = ctx;
	const struct m_alloc *a = vec_at(&x->m->allocs, i);
	free(x->label);
	x->label = proc_label(&x->in->files[a->file]);
	snprintf(x->seq, sizeof x->seq, "%llu", (unsigned long long)a->seq);
	snprintf(x->ptr, sizeof x->ptr, "0x%llx", (unsigned long long)a->ptr);
	fmt_bytes(x->bytes, sizeof x->bytes, a->bytes);
	alloc_dev(x->dev, sizeof x->dev, a);
	snprintf(x->freed, sizeof x->freed, a->freed ? "seq %llu" : "no", (unsigned long long)a->free_seq);
	const char *row[] = {x->label, x->seq, a->vendor, x->ptr, x->bytes, a->flags, x->dev, x->freed};
	memcpy(cells, row, sizeof row);
}

static void print_allocs(const struct managed *m, const struct pw_input *in)
{
	static const char *const heads[] = {"PROCESS", "SEQ",   "VENDOR", "PTR",
	                                    "BYTES",   "FLAGS", "DEV",    "FREED"};
	printf("managed allocations (%zu, %llu failed)\n", m->allocs.len,
	       (unsigned long long)m->failed_allocs);
	struct rows x = {.m = m, .in = in};
	if (m->allocs.len)
		table_print_rows(stdout, "  ", "lrllrlll", heads, m->allocs.len, alloc_row, &x);
	free(x.label);
}

static void op_row(void *ctx, size_t i, const char **cells)
{
	struct rows *x = ctx;
	const struct m_op *op = vec_at(&x->m->ops, x->idx[i]);
	snprintf(x->seq, sizeof x->seq, "%llu", (unsigned long long)op->seq);
	fmt_bytes(x->bytes, sizeof x->bytes, op->bytes);
	snprintf(x->range, sizeof x->range, "0x%llx %s", (unsigned long long)op->ptr, x->bytes);
	/* a free has no length; an attach of length 0 means the whole allocation */
	if (!strcmp(op->what, "free") || (!op->bytes && strstr(op->api, "StreamAttachMemAsync")))
		snprintf(x->range, sizeof x->range, "0x%llx%s", (unsigned long long)op->ptr,
		         op->bytes                  ? ""
		         : strcmp(op->what, "free") ? " (all)"
		                                    : "");
	const char *row[] = {x->seq, op->api, x->range, op->what, op->target, op->result};
	memcpy(cells, row, sizeof row);
}

/* The ops idx[0 .. n) of one allocation (or of none), under its title. */
static void print_ops(const struct managed *m, const size_t *idx, size_t n, const char *title)
{
	static const char *const heads[] = {"SEQ", "CALL", "RANGE", "WHAT", "TARGET", "RESULT"};
	if (!n)
		return;
	printf("\n  %s\n", title);
	struct rows x = {.m = m, .idx = idx};
	table_print_rows(stdout, "    ", "rlllll", heads, n, op_row, &x);
}

/* The ops by owner (own[i]: 0 none, a + 1 allocation a), each owner's in
 * their order: owner o's are idx[first[o] .. first[o + 1]).  One pass, not
 * one over every op per allocation. */
static size_t *ops_by_owner(const struct managed *m, const size_t *own, size_t **first_out)
{
	size_t owners = m->allocs.len + 1;
	size_t *first = xcalloc(owners + 1, sizeof *first), *idx = xcalloc(m->ops.len, sizeof *idx);
	for (size_t i = 0; i < m->ops.len; i++)
		first[own[i] + 1]++;
	for (size_t o = 1; o <= owners; o++)
		first[o] += first[o - 1];
	size_t *at = xcalloc(owners, sizeof *at);
	for (size_t i = 0; i < m->ops.len; i++)
		idx[first[own[i]] + at[own[i]]++] = i;
	free(at);
	*first_out = first;
	return idx;
}

static void print_history(const struct managed *m, const struct pw_input *in, const size_t *own)
{
	printf("\nadvice, prefetch, attachment and free per allocation\n");
	if (!m->ops.len) {
		printf("(none)\n");
		return;
	}
	size_t *first, *idx = ops_by_owner(m, own, &first);
	for (size_t a = 0; a < m->allocs.len; a++) {
		const struct m_alloc *al = vec_at(&m->allocs, a);
		char *label = proc_label(&in->files[al->file]), bytes[32];
		fmt_bytes(bytes, sizeof bytes, al->bytes);
		char *title = xasprintf("%s 0x%llx (%s, allocated at seq %llu)", label,
		                        (unsigned long long)al->ptr, bytes, (unsigned long long)al->seq);
		print_ops(m, idx + first[a + 1], first[a + 2] - first[a + 1], title);
		free(title);
		free(label);
	}
	print_ops(m, idx + first[0], first[1] - first[0], "ranges in no managed allocation of these traces");
	free(first);
	free(idx);
}

static void print_dests(const struct managed *m)
{
	struct table t;
	table_init(&t, "lllrrr", "HOST", "VENDOR", "DESTINATION", "PREFETCHES", "FAILED", "BYTES");
	struct m_dest **v = managed_sorted_dests(m);
	for (size_t i = 0; v[i]; i++) {
		char n[24], fl[24], by[32];
		snprintf(n, sizeof n, "%llu", (unsigned long long)v[i]->count);
		snprintf(fl, sizeof fl, "%llu", (unsigned long long)v[i]->failed);
		fmt_bytes(by, sizeof by, v[i]->bytes);
		table_row(&t, v[i]->host, v[i]->vendor, v[i]->dest, n, fl, by);
	}
	free(v);
	printf("\nprefetch volume by destination\n");
	if (t.rows.len)
		table_print(&t, stdout, "  ");
	else
		printf("(none)\n");
	table_free(&t);
}

static void print_text(const struct managed *m, const struct pw_input *in, const size_t *own)
{
	print_allocs(m, in);
	print_history(m, in, own);
	print_dests(m);
	printf("\nrange attribute queries: %llu\n", (unsigned long long)m->queries);
	if (pw_devmap_note(dm))
		printf("\n%s.\n", pw_devmap_note(dm));
	if (m->not_kept)
		printf("(%llu %s beyond %d per trace not kept)\n", (unsigned long long)m->not_kept,
		       plural(m->not_kept, "record", "records"), HISTORY_MAX);
}

static json_t *op_json(const struct m_op *op, const struct pw_input *in)
{
	json_t *j = json_object();
	json_object_set_new(j, "process", proc_json(&in->files[op->file]));
	json_object_set_new(j, "seq", json_u64(op->seq));
	json_object_set_new(j, "api", json_string(op->api));
	json_object_set_new(j, "ptr", json_hex(op->ptr));
	json_object_set_new(j, "bytes", json_u64(op->bytes));
	json_object_set_new(j, "what", json_string(op->what));
	json_object_set_new(j, "target", json_string(op->target));
	json_object_set_new(j, "result", json_string(op->result));
	return j;
}

/* Written as it goes (base/show.h): the history of every range is as long
 * as the trace's managed calls, never held whole. */
static void print_json(const struct managed *m, const struct pw_input *in, const size_t *own)
{
	struct jout o = {0};
	size_t *first, *idx = ops_by_owner(m, own, &first);
	jout_open(&o, NULL, '{');
	jout_open(&o, "allocations", '[');
	for (size_t a = 0; a < m->allocs.len; a++) {
		const struct m_alloc *al = vec_at(&m->allocs, a);
		jout_open(&o, NULL, '{');
		jout_put(&o, "process", proc_json(&in->files[al->file]));
		jout_put(&o, "seq", json_u64(al->seq));
		jout_put(&o, "vendor", json_string(al->vendor));
		jout_put(&o, "ptr", json_hex(al->ptr));
		jout_put(&o, "bytes", json_u64(al->bytes));
		jout_put(&o, "flags", json_string(al->flags));
		jout_put(&o, "dev", json_dev(al->dev));
		jout_put(&o, "device", pw_devkey_json(dm, pw_devkey(dm, al->file, al->vendor, al->dev)));
		jout_put(&o, "free_seq", al->freed ? json_u64(al->free_seq) : json_null());
		jout_open(&o, "history", '[');
		for (size_t k = first[a + 1]; k < first[a + 2]; k++)
			jout_put(&o, NULL, op_json(vec_at(&m->ops, idx[k]), in));
		jout_close(&o, ']');
		jout_close(&o, '}');
	}
	jout_close(&o, ']');
	jout_put(&o, "failed_allocations", json_u64(m->failed_allocs));
	jout_open(&o, "other_ranges", '[');
	for (size_t k = first[0]; k < first[1]; k++)
		jout_put(&o, NULL, op_json(vec_at(&m->ops, idx[k]), in));
	jout_close(&o, ']');
	free(first);
	free(idx);
	jout_open(&o, "prefetch", '[');
	struct m_dest **v = managed_sorted_dests(m);
	for (size_t i = 0; v[i]; i++) {
		json_t *j = json_object();
		json_object_set_new(j, "host", json_string(v[i]->host));
		json_object_set_new(j, "vendor", json_string(v[i]->vendor));
		json_object_set_new(j, "destination", json_string(v[i]->dest));
		json_object_set_new(j, "prefetches", json_u64(v[i]->count));
		json_object_set_new(j, "failed", json_u64(v[i]->failed));
		json_object_set_new(j, "bytes", json_u64(v[i]->bytes));
		jout_put(&o, NULL, j);
	}
	free(v);
	jout_close(&o, ']');
	jout_put(&o, "range_queries", json_u64(m->queries));
	jout_put(&o, "not_kept", json_u64(m->not_kept));
	jout_close(&o, '}');
}

/* ---- --effects: the unified-memory events after each advice and prefetch ---- */

static const char no_counters[] = "no unified-memory counters in these traces (run with um_counters=1)";

/* "cpu_fault cpu", "htod cpu->dev0", "thrashing cpu,dev0" */
static void where_text(char *buf, size_t len, const struct umfx_count *c)
{
	char a[16], b[16];
	umfx_proc_name(a, sizeof a, c->a);
	umfx_proc_name(b, sizeof b, c->b);
	switch (c->kind) {
	case PW_UM_HTOD:
	case PW_UM_DTOH:
	case PW_UM_DTOD:
	case PW_UM_REMOTE_MAP: snprintf(buf, len, "%s->%s", a, b); return;
	case PW_UM_THRASHING: break;
	default: snprintf(buf, len, "%s", a); return;
	}
	size_t n = 0;
	buf[0] = 0;
	for (int p = -1; p < 63 && n + 8 < len; p++) {
		if (!(c->procs & PW_UM_PROC_BIT(p)))
			continue;
		umfx_proc_name(a, sizeof a, p);
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", a);
	}
	if (!n)
		snprintf(buf, len, "-");
}

static bool has_bytes(enum pw_um_kind k)
{
	return k == PW_UM_HTOD || k == PW_UM_DTOH || k == PW_UM_DTOD || k == PW_UM_REMOTE_MAP ||
	       k == PW_UM_THRASHING;
}

static void add_total(struct vec *tot, const struct umfx_count *c)
{
	for (size_t i = 0; i < tot->len; i++) {
		struct umfx_count *t = vec_at(tot, i);
		if (t->kind == c->kind && t->a == c->a && t->b == c->b) {
			t->n = sat_add(t->n, c->n);
			t->bytes = sat_add(t->bytes, c->bytes);
			t->procs |= c->procs;
			return;
		}
	}
	*(struct umfx_count *)vec_push(tot) = *c;
}

static struct vec totals(const struct umfx *u)
{
	struct vec tot;
	vec_init(&tot, sizeof(struct umfx_count));
	for (size_t i = 0; i < u->allocs.len; i++) {
		const struct umfx_alloc *a = vec_at(&u->allocs, i);
		for (size_t k = 0; k < a->calls.len; k++) {
			const struct umfx_call *c = vec_at(&a->calls, k);
			for (size_t j = 0; j < c->counts.len; j++)
				add_total(&tot, vec_at(&c->counts, j));
		}
	}
	vec_sort(&tot, umfx_count_cmp);
	return tot;
}

static void call_target(char *buf, size_t len, const struct umfx_call *c)
{
	if (c->kind == FX_ALLOC || (c->proc == UMFX_PROC_UNKNOWN && c->kind == FX_OTHER_ADVICE))
		snprintf(buf, len, "-");
	else
		umfx_proc_name(buf, len, c->proc);
}

static void effects_rows(struct table *t, const struct umfx_call *c)
{
	char seq[24], range[64], bytes[32], target[16];
	snprintf(seq, sizeof seq, "%llu", (unsigned long long)c->seq);
	fmt_bytes(bytes, sizeof bytes, c->bytes);
	snprintf(range, sizeof range, "0x%llx %s", (unsigned long long)c->ptr, bytes);
	call_target(target, sizeof target, c);
	if (!c->counts.len)
		table_row(t, seq, c->api, range, c->what, target, "-", "-", "-", "-", "-", c->rule);
	for (size_t j = 0; j < c->counts.len; j++) {
		const struct umfx_count *x = vec_at(&c->counts, j);
		char where[96], n[24], by[32], after[32] = "+";
		where_text(where, sizeof where, x);
		snprintf(n, sizeof n, "%llu", (unsigned long long)x->n);
		fmt_bytes(by, sizeof by, x->bytes);
		fmt_ns(after + 1, sizeof after - 1, (double)((uint64_t)x->first_t_ns - c->t_ns));
		if (j)
			table_row(t, "", "", "", "", "", pw_um_kind_name(x->kind), where, n,
			          has_bytes(x->kind) ? by : "-", after, "");
		else
			table_row(t, seq, c->api, range, c->what, target, pw_um_kind_name(x->kind), where, n,
			          has_bytes(x->kind) ? by : "-", after, c->rule);
	}
}

static void effects_notes(const struct pw_input *in)
{
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		if (!f->footer || (!f->um_off && f->um_lost <= 0))
			continue;
		char *label = proc_label(f), *why = f->um_off ? sanitize(f->um_off) : NULL;
		if (why)
			printf("%s: unified-memory counters were off: %s\n", label, why);
		if (f->um_lost > 0)
			printf("%s: %lld unified-memory %s lost by CUPTI (counts below are short)\n", label,
			       (long long)f->um_lost, plural((uint64_t)f->um_lost, "record", "records"));
		free(label);
		free(why);
	}
}

static void print_effects_text(const struct umfx *u, const struct pw_input *in)
{
	printf("unified-memory effects of advice and prefetches\n"
	       "(each call's row counts the um events on its pages from the call to the next advice or\n"
	       "prefetch on them; AFTER: the first of them, from the call)\n\n");
	effects_notes(in);
	if (!u->events) {
		printf("%s\n", no_counters);
		return;
	}
	for (size_t i = 0; i < u->allocs.len; i++) {
		const struct umfx_alloc *a = vec_at(&u->allocs, i);
		char *label = proc_label(&in->files[a->file]), bytes[32];
		fmt_bytes(bytes, sizeof bytes, a->bytes);
		printf("%s 0x%llx (%s, allocated at seq %llu): %llu um %s\n", label,
		       (unsigned long long)a->ptr, bytes, (unsigned long long)a->seq,
		       (unsigned long long)a->events, plural(a->events, "event", "events"));
		free(label);
		if (!a->events) {
			printf("  no unified-memory events in this range\n\n");
			continue;
		}
		struct table t;
		table_init(&t, "rllllllrrrl", "SEQ", "CALL", "RANGE", "WHAT", "TARGET", "EFFECT", "WHERE",
		           "COUNT", "BYTES", "AFTER", "FINDING");
		for (size_t k = 0; k < a->calls.len; k++)
			effects_rows(&t, vec_at(&a->calls, k));
		table_print(&t, stdout, "  ");
		table_free(&t);
		printf("\n");
	}
	struct vec tot = totals(u);
	struct table t;
	table_init(&t, "llrr", "EFFECT", "WHERE", "COUNT", "BYTES");
	for (size_t i = 0; i < tot.len; i++) {
		const struct umfx_count *x = vec_at(&tot, i);
		char where[96], n[24], by[32];
		where_text(where, sizeof where, x);
		snprintf(n, sizeof n, "%llu", (unsigned long long)x->n);
		fmt_bytes(by, sizeof by, x->bytes);
		table_row(&t, pw_um_kind_name(x->kind), where, n, has_bytes(x->kind) ? by : "-");
	}
	printf("totals: %llu um %s, %llu in no managed allocation of these traces\n",
	       (unsigned long long)u->events, plural(u->events, "event", "events"),
	       (unsigned long long)u->outside);
	if (t.rows.len)
		table_print(&t, stdout, "  ");
	table_free(&t);
	vec_free(&tot);
	printf("\nfindings (%zu)\n", u->findings.len);
	for (size_t i = 0; i < u->findings.len; i++) {
		const struct umfx_finding *f = vec_at(&u->findings, i);
		char *label = proc_label(&in->files[f->file]), *msg = sanitize(f->message);
		printf("  performance: %s: %s call %llu %s: %s\n", f->rule, label,
		       (unsigned long long)f->call, f->api, msg);
		free(label);
		free(msg);
	}
	if (u->not_kept)
		printf("(%llu managed %s beyond %d per trace not kept)\n", (unsigned long long)u->not_kept,
		       plural(u->not_kept, "call", "calls"), UMFX_CALLS_MAX);
	if (u->too_wide)
		printf("(%llu %s wider than %d pages: the rules looked at their first pages only)\n",
		       (unsigned long long)u->too_wide, plural(u->too_wide, "event", "events"), 4096);
}

static json_t *proc_value(int32_t p)
{
	return p == PW_UM_CPU ? json_string("cpu") : p >= 0 ? json_integer(p) : json_null();
}

static json_t *count_json(const struct umfx_count *x, const struct umfx_call *c)
{
	json_t *j = json_object();
	json_object_set_new(j, "kind", json_string(pw_um_kind_name(x->kind)));
	if (x->kind == PW_UM_THRASHING) {
		json_t *ps = json_array();
		for (int p = -1; p < 63; p++)
			if (x->procs & PW_UM_PROC_BIT(p))
				json_array_append_new(ps, proc_value(p));
		json_object_set_new(j, "procs", ps);
	} else if (has_bytes(x->kind)) {
		json_object_set_new(j, "src", proc_value(x->a));
		json_object_set_new(j, "dst", proc_value(x->b));
	} else {
		json_object_set_new(j, "proc", proc_value(x->a));
	}
	json_object_set_new(j, "count", json_u64(x->n));
	json_object_set_new(j, "bytes", has_bytes(x->kind) ? json_u64(x->bytes) : json_null());
	json_object_set_new(j, "first_after_ns",
	                    c ? json_integer((json_int_t)((uint64_t)x->first_t_ns - c->t_ns)) : json_null());
	return j;
}

static json_t *call_json(const struct umfx_call *c)
{
	json_t *j = json_object(), *fx = json_array();
	json_object_set_new(j, "seq", json_u64(c->seq));
	json_object_set_new(j, "api", json_string(c->api));
	json_object_set_new(j, "what", json_string(c->what));
	json_object_set_new(j, "ptr", json_hex(c->ptr));
	json_object_set_new(j, "bytes", json_u64(c->bytes));
	json_object_set_new(j, "target", c->kind == FX_ALLOC ? json_null() : proc_value(c->proc));
	json_object_set_new(j, "um_events", json_u64(c->events));
	for (size_t k = 0; k < c->counts.len; k++)
		json_array_append_new(fx, count_json(vec_at(&c->counts, k), c));
	json_object_set_new(j, "effects", fx);
	if (c->rule) {
		json_t *f = json_object();
		json_object_set_new(f, "rule", json_string(c->rule));
		json_object_set_new(f, "severity", json_string("performance"));
		json_object_set_new(f, "message", json_string(c->message));
		json_object_set_new(f, "events", json_u64(c->rule_events));
		json_object_set_new(f, "pages", json_u64(c->rule_pages));
		json_object_set_new(f, "thrashing", json_u64(c->thrashing));
		json_object_set_new(f, "first_after_ns",
		                    json_integer((json_int_t)((uint64_t)c->rule_first_t_ns - c->t_ns)));
		json_object_set_new(j, "finding", f);
	} else {
		json_object_set_new(j, "finding", json_null());
	}
	return j;
}

static void print_effects_json(const struct umfx *u, const struct pw_input *in)
{
	struct jout o = {0};
	jout_open(&o, NULL, '{');
	jout_put(&o, "um_events", json_u64(u->events));
	jout_put(&o, "counters", json_boolean(u->events != 0));
	jout_put(&o, "note", u->events ? json_null() : json_string(no_counters));
	jout_open(&o, "traces", '[');
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		if (!f->footer || (!f->um_off && f->um_lost < 0))
			continue;
		json_t *j = json_object();
		json_object_set_new(j, "process", proc_json(f));
		json_object_set_new(j, "um_off", f->um_off ? json_text(f->um_off) : json_null());
		json_object_set_new(j, "um_lost", f->um_lost >= 0 ? json_integer(f->um_lost) : json_null());
		jout_put(&o, NULL, j);
	}
	jout_close(&o, ']');
	jout_open(&o, "allocations", '[');
	for (size_t i = 0; i < u->allocs.len; i++) {
		const struct umfx_alloc *a = vec_at(&u->allocs, i);
		jout_open(&o, NULL, '{');
		jout_put(&o, "process", proc_json(&in->files[a->file]));
		jout_put(&o, "seq", json_u64(a->seq));
		jout_put(&o, "ptr", json_hex(a->ptr));
		jout_put(&o, "bytes", json_u64(a->bytes));
		jout_put(&o, "um_events", json_u64(a->events));
		jout_open(&o, "calls", '[');
		for (size_t k = 0; k < a->calls.len; k++)
			jout_put(&o, NULL, call_json(vec_at(&a->calls, k)));
		jout_close(&o, ']');
		jout_close(&o, '}');
	}
	jout_close(&o, ']');
	jout_open(&o, "totals", '[');
	struct vec tot = totals(u);
	for (size_t i = 0; i < tot.len; i++)
		jout_put(&o, NULL, count_json(vec_at(&tot, i), NULL));
	vec_free(&tot);
	jout_close(&o, ']');
	jout_put(&o, "outside", json_u64(u->outside));
	jout_open(&o, "findings", '[');
	for (size_t i = 0; i < u->findings.len; i++) {
		const struct umfx_finding *f = vec_at(&u->findings, i);
		json_t *j = json_object();
		json_object_set_new(j, "rule", json_string(f->rule));
		json_object_set_new(j, "severity", json_string("performance"));
		json_object_set_new(j, "derived", json_true());
		json_object_set_new(j, "process", proc_json(&in->files[f->file]));
		json_object_set_new(j, "call", json_u64(f->call));
		json_object_set_new(j, "api", json_string(f->api));
		json_object_set_new(j, "message", json_string(f->message));
		jout_put(&o, NULL, j);
	}
	jout_close(&o, ']');
	jout_put(&o, "not_kept", json_u64(u->not_kept));
	jout_put(&o, "too_wide", json_u64(u->too_wide));
	jout_close(&o, '}');
}

static int effects(const struct pw_opts *o)
{
	struct umfx u;
	struct pw_input in = {0};
	umfx_init(&u);
	struct pw_sink sink = {&umfx_ops, &u};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n) {
		umfx_order(&u, &in);
		if (o->json)
			print_effects_json(&u, &in);
		else
			print_effects_text(&u, &in);
	}
	umfx_free(&u);
	pw_input_free(&in);
	return an_exit(st);
}

int cmd_managed(const struct pw_opts *o)
{
	if (o->effects)
		return effects(o);
	struct managed m;
	struct pw_input in = {0};
	managed_init(&m);
	struct pw_sink sink = {&managed_ops, &m};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n) {
		struct pw_devmap map;
		pw_devmap_build(&map, &in);
		dm = &map;
		size_t *own = managed_order(&m, &in, &map);
		if (o->json)
			print_json(&m, &in, own);
		else
			print_text(&m, &in, own);
		free(own);
		pw_devmap_free(&map);
		dm = NULL;
	}
	managed_free(&m);
	pw_input_free(&in);
	return an_exit(st);
}

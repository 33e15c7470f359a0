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

static void print_allocs(const struct managed *m, const struct pw_input *in)
{
	struct table t;
	table_init(&t, "lrllrlll", "PROCESS", "SEQ", "VENDOR", "PTR", "BYTES", "FLAGS", "DEV", "FREED");
	for (size_t i = 0; i < m->allocs.len; i++) {
		const struct m_alloc *a = vec_at(&m->allocs, i);
		char *label = proc_label(&in->files[a->file]);
		char seq[24], ptr[24], bytes[32], dev[64], freed[32];
		snprintf(seq, sizeof seq, "%llu", (unsigned long long)a->seq);
		snprintf(ptr, sizeof ptr, "0x%llx", (unsigned long long)a->ptr);
		fmt_bytes(bytes, sizeof bytes, a->bytes);
		alloc_dev(dev, sizeof dev, a);
		snprintf(freed, sizeof freed, a->freed ? "seq %llu" : "no", (unsigned long long)a->free_seq);
		table_row(&t, label, seq, a->vendor, ptr, bytes, a->flags, dev, freed);
		free(label);
	}
	printf("managed allocations (%zu, %llu failed)\n", m->allocs.len,
	       (unsigned long long)m->failed_allocs);
	if (m->allocs.len)
		table_print(&t, stdout, "  ");
	table_free(&t);
}

static void print_ops(const struct managed *m, const struct pw_input *in, const size_t *own, size_t owner_ix,
                      const char *title)
{
	struct table t;
	table_init(&t, "rlllll", "SEQ", "CALL", "RANGE", "WHAT", "TARGET", "RESULT");
	for (size_t i = 0; i < m->ops.len; i++) {
		if (own[i] != owner_ix)
			continue;
		const struct m_op *op = vec_at(&m->ops, i);
		char seq[24], range[64], bytes[32];
		snprintf(seq, sizeof seq, "%llu", (unsigned long long)op->seq);
		fmt_bytes(bytes, sizeof bytes, op->bytes);
		snprintf(range, sizeof range, "0x%llx %s", (unsigned long long)op->ptr, bytes);
		/* a free has no length; an attach of length 0 means the whole allocation */
		if (!strcmp(op->what, "free") || (!op->bytes && strstr(op->api, "StreamAttachMemAsync")))
			snprintf(range, sizeof range, "0x%llx%s", (unsigned long long)op->ptr,
			         op->bytes                  ? ""
			         : strcmp(op->what, "free") ? " (all)"
			                                    : "");
		table_row(&t, seq, op->api, range, op->what, op->target, op->result);
		(void)in;
	}
	if (t.rows.len) {
		printf("\n  %s\n", title);
		table_print(&t, stdout, "    ");
	}
	table_free(&t);
}

static void print_history(const struct managed *m, const struct pw_input *in, const size_t *own)
{
	printf("\nadvice, prefetch, attachment and free per allocation\n");
	if (!m->ops.len) {
		printf("(none)\n");
		return;
	}
	for (size_t a = 0; a < m->allocs.len; a++) {
		const struct m_alloc *al = vec_at(&m->allocs, a);
		char *label = proc_label(&in->files[al->file]), bytes[32];
		fmt_bytes(bytes, sizeof bytes, al->bytes);
		char *title = xasprintf("%s 0x%llx (%s, allocated at seq %llu)", label,
		                        (unsigned long long)al->ptr, bytes, (unsigned long long)al->seq);
		print_ops(m, in, own, a + 1, title);
		free(title);
		free(label);
	}
	print_ops(m, in, own, 0, "ranges in no managed allocation of these traces");
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
		for (size_t i = 0; i < m->ops.len; i++)
			if (own[i] == a + 1)
				jout_put(&o, NULL, op_json(vec_at(&m->ops, i), in));
		jout_close(&o, ']');
		jout_close(&o, '}');
	}
	jout_close(&o, ']');
	jout_put(&o, "failed_allocations", json_u64(m->failed_allocs));
	jout_open(&o, "other_ranges", '[');
	for (size_t i = 0; i < m->ops.len; i++)
		if (!own[i])
			jout_put(&o, NULL, op_json(vec_at(&m->ops, i), in));
	jout_close(&o, ']');
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

int cmd_managed(const struct pw_opts *o)
{
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

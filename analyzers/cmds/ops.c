/*
 * ops: what the program did, by op (include/peerwatch/trace_format.h: peer
 * enable, peer copy, implicit copy, IPC export/open/close, managed advice,
 * ...), whatever the vendor or API: calls, failed calls, findings, and the
 * host time of the calls (total and median), per process and in all.
 *
 * Calls are grouped by their "op" only (the reader gives the calls of older
 * traces the op of their API).  A call nested in a recorded call (the
 * runtime's cudaMemcpyPeer and the cuMemcpyPeer it made) is counted only
 * through that call, as matrix, ipc and managed count.  Findings are counted
 * under their own op: their call's, or for findings made when the process
 * ends, what was still held then ("exit", "vmm_exit").
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/procs.h"
#include "read/files.h"
#include "read/reader.h"

/* Slot 0 is for an op this reader does not know (a later writer's), or none. */
#define NSLOTS PW_OP_KINDS

struct op_stat {
	uint64_t calls, errors, findings;
	struct hist host;
};

struct proc_ops {
	struct op_stat op[NSLOTS];
};

/* The report and each worker's partial: file index -> struct proc_ops. */
struct ops_report {
	struct hmap procs;
};

static const char *slot_name(int i)
{
	return i ? pw_op_name(i) : "(other)";
}

/* The op names, sorted, with their slots: for a binary search per event. */
static struct name_slot {
	const char *name;
	int slot;
} by_name[NSLOTS - 1];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_slot *)a)->name, ((const struct name_slot *)b)->name);
}

static void sort_names(void)
{
	for (int i = 1; i < NSLOTS; i++)
		by_name[i - 1] = (struct name_slot){pw_op_name(i), i};
	qsort(by_name, NSLOTS - 1, sizeof *by_name, name_cmp);
}

static int slot_of(const char *op)
{
	pthread_once(&by_name_once, sort_names);
	struct name_slot key = {op, 0}, *r;
	r = op ? bsearch(&key, by_name, NSLOTS - 1, sizeof *by_name, name_cmp) : NULL;
	return r ? r->slot : 0;
}

static struct proc_ops *proc_of(struct ops_report *r, size_t file)
{
	struct proc_ops **p = (struct proc_ops **)hmap_put_u64(&r->procs, file);
	if (!*p)
		*p = xcalloc(1, sizeof **p);
	return *p;
}

static void proc_free(void *v)
{
	struct proc_ops *p = v;
	for (int i = 0; i < NSLOTS; i++)
		hist_free(&p->op[i].host);
	free(p);
}

static void stat_add(struct op_stat *to, const struct op_stat *from)
{
	to->calls += from->calls;
	to->errors += from->errors;
	to->findings += from->findings;
	hist_merge(&to->host, &from->host);
}

/* ---- the sink ---- */

static void *ops_partial_new(void *report)
{
	(void)report;
	struct ops_report *r = xmalloc(sizeof *r);
	hmap_init(&r->procs);
	return r;
}

static void ops_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)fctx;
	struct ops_report *r = partial;
	if (ev->type == PW_EV_VIOLATION) {
		proc_of(r, f->index)->op[slot_of(ev->op)].findings++;
		return;
	}
	if (ev->type != PW_EV_CALL || ev->parent_recorded)
		return;
	struct op_stat *s = &proc_of(r, f->index)->op[slot_of(ev->op)];
	s->calls++;
	s->errors += ev->ret != 0;
	hist_add(&s->host, (uint64_t)ev->dur_ns);
}

static void ops_partial_merge(void *report, void *partial)
{
	struct ops_report *r = report, *p = partial;
	for (size_t i = 0; i < p->procs.cap; i++) {
		if (!p->procs.slots[i].key)
			continue;
		struct proc_ops *from = p->procs.slots[i].val,
		                *to = proc_of(r, *(uint64_t *)p->procs.slots[i].key);
		for (int k = 0; k < NSLOTS; k++)
			stat_add(&to->op[k], &from->op[k]);
	}
	hmap_free(&p->procs, proc_free);
	free(p);
}

static const struct pw_sink_ops ops_sink = {
    .partial_new = ops_partial_new,
    .partial_merge = ops_partial_merge,
    .event = ops_event,
    .nesting = true,
};

/* ---- output ---- */

static bool used(const struct op_stat *s)
{
	return s->calls || s->findings;
}

/* The ops of one process (or of all), in the order of the op table. */
static void print_table(const struct proc_ops *p, const char *indent)
{
	struct table t;
	table_init(&t, "lrrrrr", "OP", "CALLS", "FAILED", "FINDINGS", "HOST TOTAL", "HOST P50");
	for (int k = 1; k <= NSLOTS; k++) {
		int i = k % NSLOTS; /* (other) last */
		const struct op_stat *s = &p->op[i];
		if (!used(s))
			continue;
		char n[24], e[24], fd[24], tot[24], p50[24];
		snprintf(n, sizeof n, "%llu", (unsigned long long)s->calls);
		snprintf(e, sizeof e, "%llu", (unsigned long long)s->errors);
		snprintf(fd, sizeof fd, "%llu", (unsigned long long)s->findings);
		fmt_ns(tot, sizeof tot, (double)s->host.total);
		fmt_ns(p50, sizeof p50, (double)hist_percentile(&s->host, 50));
		table_row(&t, slot_name(i), n, e, fd, s->calls ? tot : "-", s->calls ? p50 : "-");
	}
	table_print(&t, stdout, indent);
	table_free(&t);
}

static json_t *ops_json(const struct proc_ops *p)
{
	json_t *a = json_array();
	for (int k = 1; k <= NSLOTS; k++) {
		int i = k % NSLOTS;
		const struct op_stat *s = &p->op[i];
		if (!used(s))
			continue;
		json_t *h = json_null();
		if (s->calls)
			h = json_pack("{s:o,s:o}", "total", json_u64(s->host.total), "p50",
			              json_u64(hist_percentile(&s->host, 50)));
		json_array_append_new(a, json_pack("{s:s?,s:o,s:o,s:o,s:o}", "op", i ? slot_name(i) : NULL,
		                                   "calls", json_u64(s->calls), "errors", json_u64(s->errors),
		                                   "findings", json_u64(s->findings), "host_ns", h));
	}
	return a;
}

static void print_report(const struct ops_report *r, const struct pw_input *in, bool json)
{
	struct proc_ops all;
	memset(&all, 0, sizeof all);
	size_t *order = file_order(in), shown = 0;
	json_t *per = json_array();
	for (size_t k = 0; k < in->n; k++) {
		const struct pw_file *f = &in->files[order[k]];
		const struct proc_ops *p = hmap_get_u64(&r->procs, f->index);
		static const struct proc_ops none;
		if (!f->header_ok)
			continue;
		if (!p)
			p = &none;
		for (int i = 0; i < NSLOTS; i++)
			stat_add(&all.op[i], &p->op[i]);
		if (json) {
			json_t *j = proc_json(f);
			json_object_set_new(j, "ops", ops_json(p));
			json_array_append_new(per, j);
			continue;
		}
		char *label = proc_label(f), *host = sanitize(f->host);
		printf("%sprocess %s on %s\n", shown++ ? "\n" : "", label, host);
		print_table(p, "  ");
		free(label);
		free(host);
	}
	if (json) {
		json_t *doc = json_object();
		json_object_set_new(doc, "ops", ops_json(&all));
		json_object_set_new(doc, "per_process", per);
		json_print(doc);
	} else {
		json_decref(per);
		if (shown > 1) {
			printf("\nall %zu processes\n", shown);
			print_table(&all, "  ");
		}
	}
	for (int i = 0; i < NSLOTS; i++)
		hist_free(&all.op[i].host);
	free(order);
}

int cmd_ops(const struct pw_opts *o)
{
	struct ops_report r;
	struct pw_input in = {0};
	hmap_init(&r.procs);
	struct pw_sink sink = {&ops_sink, &r};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n)
		print_report(&r, &in, o->json);
	hmap_free(&r.procs, proc_free);
	pw_input_free(&in);
	return an_exit(st);
}

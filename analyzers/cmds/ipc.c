/*
 * ipc: every IPC handle's life across processes — the export (process,
 * allocation), the opens and closes in other processes, the exporter's
 * free (an event's destroy) — and the findings those lives prove
 * (ipclife.h): a free while another process had the handle open, an open
 * after the free, a mapping never closed, an open of a handle no traced
 * process exported, an imported event never destroyed, an event destroyed
 * while another process had it.  Times are relative to the host's earliest
 * event.
 */
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/devices.h"
#include "model/ipclife.h"
#include "model/procs.h"
#include "read/files.h"
#include "read/reader.h"

/* The physical devices of the traces (devices.h): a record's device is
 * shown as the host's GPU its ordinal names, where its trace says. */
static const struct pw_devmap *dm;
/* Each trace's process label, made once: a listing's rows name a process
 * each, twice (measured, then printed). */
static char **labels;

static const char *label_of(const struct pw_input *in, size_t file)
{
	if (!labels[file])
		labels[file] = proc_label(&in->files[file]);
	return labels[file];
}

/* v in decimal, as "%llu" writes it (a row's seq, for every IPC call). */
static void fmt_u64(char *buf, uint64_t v)
{
	char t[24];
	size_t n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	for (size_t i = 0; i < n; i++)
		buf[i] = t[n - 1 - i];
	buf[n] = 0;
}

static const char *op_name(enum ipc_op op)
{
	static const char *const n[] = {"export", "open",   "close",  "free",   "export", "open",  "destroy",
	                                "create", "export", "import", "map",    "access", "unmap", "release",
	                                "retain", "export", "import", "access", "export", "import"};
	_Static_assert(sizeof n / sizeof *n == OP_PTR_IMPORT + 1, "a name for every op");
	return (size_t)op < sizeof n / sizeof *n ? n[op] : "?";
}

/* What one record says beyond its api: the pointer, the result. */
static void detail(const struct ipc_rec *r, char *buf, size_t len)
{
	char dev[48] = "", phys[24];
	int64_t key = pw_devkey(dm, r->file, r->vendor, r->dev);
	pw_devkey_fmt(dm, key, phys, sizeof phys);
	if (key >= PW_PHYS_BASE)
		snprintf(dev, sizeof dev, " (dev %lld = %s)", (long long)r->dev, phys);
	else if (r->dev != PW_DEV_NONE)
		snprintf(dev, sizeof dev, " (dev %lld)", (long long)r->dev);
	if (r->ret != 0)
		snprintf(buf, len, "failed: %s", r->ret_name ? r->ret_name : "?");
	else if (r->op == OP_OPEN && r->has_ptr)
		snprintf(buf, len, "mapped at 0x%llx%s", (unsigned long long)r->ptr, dev);
	else if (r->op == OP_EV_OPEN && r->has_ptr)
		snprintf(buf, len, "event 0x%llx", (unsigned long long)r->ptr);
	else if ((r->op == OP_EV_EXPORT || r->op == OP_EV_DESTROY) && r->has_ptr)
		snprintf(buf, len, "event 0x%llx", (unsigned long long)r->ptr);
	else if (r->has_ptr)
		snprintf(buf, len, "0x%llx%s", (unsigned long long)r->ptr, dev);
	else if (r->op == OP_CLOSE && !r->close_of)
		snprintf(buf, len, "the exporter's close of the key"); /* ACL: a close names the key */
	else
		snprintf(buf, len, "ok");
}

/* The listings are as long as the IPC calls: their rows are made twice
 * (table_print_rows), not held. */
struct rows {
	const struct ipc_report *r;
	const struct pw_input *in;
	const struct vec *recs; /* struct ipc_rec * */
	bool shared;            /* VMM and pool: the record's own detail first */
	char when[32], seq[24], det[96], ptr[24];
	const char *label;
};

/* Record i of the rows, its process, time and seq made. */
static const struct ipc_rec *row_rec(struct rows *x, size_t i)
{
	const struct ipc_rec *rec = *(struct ipc_rec **)vec_at(x->recs, i);
	x->label = label_of(x->in, rec->file);
	fmt_rel(x->when, sizeof x->when, rec->t_ns, x->r->origin[rec->file]);
	fmt_u64(x->seq, rec->seq);
	return rec;
}

static void call_row(void *ctx, size_t i, const char **cells)
{
	struct rows *x = ctx;
	const struct ipc_rec *rec = row_rec(x, i);
	if (x->shared && rec->vmm->detail)
		snprintf(x->det, sizeof x->det, "%s", rec->vmm->detail);
	else
		detail(rec, x->det, sizeof x->det);
	const char *row[] = {x->when, op_name(rec->op), x->label, x->seq, rec->api, x->det};
	memcpy(cells, row, sizeof row);
}

static void print_calls(const struct ipc_report *r, const struct pw_input *in, const struct vec *recs,
                        bool shared)
{
	static const char *const heads[] = {"TIME", "WHAT", "PROCESS", "SEQ", "CALL", "DETAIL"};
	struct rows x = {.r = r, .in = in, .recs = recs, .shared = shared};
	table_print_rows(stdout, "  ", "lllrll", heads, recs->len, call_row, &x);
}

static void print_handle(const struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h)
{
	char *host = sanitize(h->host);
	printf("\n%s handle %.16s... on %s\n", h->event ? "event" : "memory", h->handle, host);
	free(host);
	print_calls(r, in, &h->recs, false);
	if (!h->event && h->export && !h->free)
		printf("  (the exporter's trace shows no free of the allocation exported at 0x%llx)\n",
		       (unsigned long long)h->export->ptr);
}

static void stray_row(void *ctx, size_t i, const char **cells)
{
	struct rows *x = ctx;
	const struct ipc_rec *rec = row_rec(x, i);
	snprintf(x->ptr, sizeof x->ptr, "0x%llx", (unsigned long long)rec->ptr);
	const char *row[] = {x->when, x->label, x->seq, x->ptr,
	                     rec->ret ? (rec->ret_name ? rec->ret_name : "failed") : "ok"};
	memcpy(cells, row, sizeof row);
}

static void print_stray(const struct ipc_report *r, const struct pw_input *in)
{
	if (!r->stray.len)
		return;
	printf("\nIPC closes of pointers no open in these traces returned\n");
	static const char *const heads[] = {"TIME", "PROCESS", "SEQ", "PTR", "RESULT"};
	struct rows x = {.r = r, .in = in, .recs = &r->stray};
	table_print_rows(stdout, "  ", "llrll", heads, r->stray.len, stray_row, &x);
}

/* The processes that exported (or imported) a shared allocation, as text. */
static char *sharers(const struct pw_input *in, const struct ipc_shared *sh, bool import)
{
	char *out = xstrdup("");
	size_t last = (size_t)-1;
	for (size_t i = 0; i < sh->recs.len; i++) {
		const struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&sh->recs, i);
		bool exp = rec->op == OP_VMM_EXPORT || rec->op == OP_POOL_EXPORT || rec->op == OP_PTR_EXPORT;
		bool imp = rec->op == OP_VMM_IMPORT || rec->op == OP_POOL_IMPORT || rec->op == OP_PTR_IMPORT;
		if (rec->ret != 0 || (import ? !imp : !exp) || rec->file == last)
			continue;
		char *label = proc_label(&in->files[rec->file]);
		char *n = xasprintf("%s%s%s", out, *out ? ", " : "", label);
		free(out);
		free(label);
		out = n;
		last = rec->file;
	}
	return out;
}

static void print_shared(const struct ipc_report *r, const struct pw_input *in)
{
	for (size_t k = 0; k < r->shared.len; k++) {
		const struct ipc_shared *sh = *(struct ipc_shared **)vec_at(&r->shared, k);
		/* the key without the prefix that keeps kinds apart: "pool ", "ptr " */
		const char *shown = !strncmp(sh->key, "pool ", 5)  ? sh->key + 5
		                    : !strncmp(sh->key, "ptr ", 4) ? sh->key + 4
		                                                   : sh->key;
		char *key = sanitize(shown), *e = sharers(in, sh, false), *im = sharers(in, sh, true);
		printf("\nshared %s%s %.48s%s\n  exported by %s; imported by %s\n", sh->kind,
		       strcmp(sh->kind, "vmm") ? "" : " allocation", key, strlen(key) > 48 ? "..." : "",
		       *e ? e : "(no traced process)", *im ? im : "(none)");
		free(key);
		free(e);
		free(im);
		print_calls(r, in, &sh->recs, true);
	}
}

static void print_findings(const struct ipc_report *r, const struct pw_input *in)
{
	printf("\nfindings\n");
	if (!r->findings.len) {
		printf("(none)\n");
		return;
	}
	for (size_t i = 0; i < r->findings.len; i++) {
		const struct ipc_finding *f = vec_at(&r->findings, i);
		char *label = proc_label(&in->files[f->file]), *msg = sanitize(f->message),
		     *api = sanitize(f->api);
		printf("  %s: %s: %s call %llu %s\n      %s\n", sev_name(f->sev), f->rule, label,
		       (unsigned long long)f->seq, api, msg);
		free(label);
		free(msg);
		free(api);
	}
}

static void count(const struct ipc_report *r, size_t *mem, size_t *ev)
{
	*mem = *ev = 0;
	for (size_t i = 0; i < r->handles.len; i++)
		(*(struct ipc_handle **)vec_at(&r->handles, i))->event ? (*ev)++ : (*mem)++;
}

static void print_text(const struct ipc_report *r, const struct pw_input *in)
{
	size_t mem, ev;
	count(r, &mem, &ev);
	printf("%zu memory handle%s, %zu event handle%s, ", mem, mem == 1 ? "" : "s", ev, ev == 1 ? "" : "s");
	if (r->shared.len)
		printf("%zu shared VMM/pool allocation%s, ", r->shared.len, r->shared.len == 1 ? "" : "s");
	printf("%zu finding%s\n", r->findings.len, r->findings.len == 1 ? "" : "s");
	for (size_t i = 0; i < r->handles.len; i++)
		print_handle(r, in, *(struct ipc_handle **)vec_at(&r->handles, i));
	print_shared(r, in);
	print_stray(r, in);
	print_findings(r, in);
}

/* ---- JSON ---- */

static json_t *rec_json(const struct ipc_report *r, const struct pw_input *in, const struct ipc_rec *rec)
{
	json_t *j = json_object();
	json_object_set_new(j, "op", json_string(op_name(rec->op)));
	json_object_set_new(j, "vendor", json_string(rec->vendor));
	json_object_set_new(j, "process", proc_json(&in->files[rec->file]));
	json_object_set_new(j, "seq", json_u64(rec->seq));
	json_object_set_new(j, "api", json_string(rec->api));
	json_object_set_new(j, "t_ns", json_integer(rec->t_ns));
	json_object_set_new(j, "t_rel_ns", json_integer(rec->t_ns - r->origin[rec->file]));
	json_object_set_new(j, "ret", json_integer(rec->ret));
	json_object_set_new(j, "ret_name", rec->ret_name ? json_string(rec->ret_name) : json_null());
	json_object_set_new(j, "ptr", rec->has_ptr ? json_hex(rec->ptr) : json_null());
	json_object_set_new(j, "dev", json_dev(rec->dev));
	json_object_set_new(j, "device", pw_devkey_json(dm, pw_devkey(dm, rec->file, rec->vendor, rec->dev)));
	if (rec->op >= OP_VMM_CREATE) {
		json_object_set_new(j, "handle", rec->vmm->has_vh ? json_hex(rec->vmm->vh) : json_null());
		json_object_set_new(j, "detail", json_string(rec->vmm->detail ? rec->vmm->detail : ""));
	}
	return j;
}

static json_t *procs_of(const struct pw_input *in, const struct ipc_shared *sh, bool import)
{
	json_t *a = json_array();
	size_t last = (size_t)-1;
	for (size_t i = 0; i < sh->recs.len; i++) {
		const struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&sh->recs, i);
		bool exp = rec->op == OP_VMM_EXPORT || rec->op == OP_POOL_EXPORT || rec->op == OP_PTR_EXPORT;
		bool imp = rec->op == OP_VMM_IMPORT || rec->op == OP_POOL_IMPORT || rec->op == OP_PTR_IMPORT;
		if (rec->ret != 0 || (import ? !imp : !exp) || rec->file == last)
			continue;
		json_array_append_new(a, proc_json(&in->files[rec->file]));
		last = rec->file;
	}
	return a;
}

/* The members of a handle or a shared allocation are few; its life is as
 * long as the trace: written an entry at a time. */
static void life_out(struct jout *o, const struct ipc_report *r, const struct pw_input *in,
                     const struct vec *recs)
{
	jout_open(o, "life", '[');
	for (size_t i = 0; i < recs->len; i++)
		jout_put(o, NULL, rec_json(r, in, *(struct ipc_rec **)vec_at(recs, i)));
	jout_close(o, ']');
}

static void shared_out(struct jout *o, const struct ipc_report *r, const struct pw_input *in,
                       const struct ipc_shared *sh)
{
	jout_open(o, NULL, '{');
	jout_put(o, "kind", json_string(sh->kind));
	jout_put(o, "key", json_string(sh->key));
	jout_put(o, "host", json_string(sh->host));
	jout_put(o, "exporters", procs_of(in, sh, false));
	jout_put(o, "importers", procs_of(in, sh, true));
	life_out(o, r, in, &sh->recs);
	jout_close(o, '}');
}

static void handle_out(struct jout *o, const struct ipc_report *r, const struct pw_input *in,
                       const struct ipc_handle *h)
{
	jout_open(o, NULL, '{');
	jout_put(o, "kind", json_string(h->event ? "event" : "memory"));
	jout_put(o, "vendor",
	         json_string(h->export     ? h->export->vendor
	                     : h->recs.len ? (*(struct ipc_rec **)vec_at(&h->recs, 0))->vendor
	                                   : "?"));
	jout_put(o, "host", json_string(h->host));
	jout_put(o, "handle", json_string(h->handle));
	jout_put(o, "exported", json_boolean(h->export != NULL));
	/* memory: the exporter freed the allocation; an event: it destroyed the event */
	jout_put(o, "freed", json_boolean(h->free != NULL));
	life_out(o, r, in, &h->recs);
	jout_close(o, '}');
}

/* Written as it goes (base/show.h): a trace of many IPC calls makes a long
 * report, never held whole. */
static void print_json(const struct ipc_report *r, const struct pw_input *in)
{
	struct jout o = {0};
	jout_open(&o, NULL, '{');
	jout_open(&o, "handles", '[');
	for (size_t i = 0; i < r->handles.len; i++)
		handle_out(&o, r, in, *(struct ipc_handle **)vec_at(&r->handles, i));
	jout_close(&o, ']');
	jout_open(&o, "shared", '[');
	for (size_t i = 0; i < r->shared.len; i++)
		shared_out(&o, r, in, *(struct ipc_shared **)vec_at(&r->shared, i));
	jout_close(&o, ']');
	jout_open(&o, "unmatched_closes", '[');
	for (size_t i = 0; i < r->stray.len; i++)
		jout_put(&o, NULL, rec_json(r, in, *(struct ipc_rec **)vec_at(&r->stray, i)));
	jout_close(&o, ']');
	jout_open(&o, "findings", '[');
	for (size_t i = 0; i < r->findings.len; i++) {
		const struct ipc_finding *f = vec_at(&r->findings, i);
		json_t *j = json_object();
		json_object_set_new(j, "rule", json_string(f->rule));
		json_object_set_new(j, "severity", json_string(sev_name(f->sev)));
		json_object_set_new(j, "process", proc_json(&in->files[f->file]));
		json_object_set_new(j, "call", json_u64(f->seq));
		json_object_set_new(j, "api", json_string(f->api));
		json_object_set_new(j, "message", json_string(f->message));
		jout_put(&o, NULL, j);
	}
	jout_close(&o, ']');
	jout_close(&o, '}');
}

int cmd_ipc(const struct pw_opts *o)
{
	struct ipc_report r;
	struct pw_input in = {0};
	ipc_init(&r);
	struct pw_sink sink = {&ipc_ops, &r};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n) {
		struct pw_devmap map;
		pw_devmap_build(&map, &in);
		dm = &map;
		labels = xcalloc(in.n, sizeof *labels);
		ipc_derive(&r, &in);
		if (o->json)
			print_json(&r, &in);
		else
			print_text(&r, &in);
		pw_devmap_free(&map);
		dm = NULL;
		for (size_t i = 0; i < in.n; i++)
			free(labels[i]);
		free(labels);
		labels = NULL;
	}
	ipc_free(&r);
	pw_input_free(&in);
	return an_exit(st);
}

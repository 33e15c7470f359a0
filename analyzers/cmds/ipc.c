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
#include "model/ipclist.h"
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

/* A record the findings' report kept (VMM and pool sharing) as a row. */
static struct ipc_row row_of(const struct ipc_rec *rec)
{
	return (struct ipc_row){
	    .t_ns = rec->t_ns,
	    .seq = rec->seq,
	    .file = rec->file,
	    .op = rec->op,
	    .flags = (uint8_t)((rec->has_ptr ? ROW_PTR : 0) | (rec->close_of ? ROW_ENDS : 0)),
	    .ret = rec->ret,
	    .dev = rec->dev,
	    .ptr = rec->ptr,
	    .api = rec->api,
	    .ret_name = rec->ret_name,
	    .vendor = rec->vendor,
	};
}

/* A row's detail is made for every IPC call, twice (the table's widths,
 * then the row): put together here rather than by snprintf, which was a
 * tenth of the listing's instructions.  Cut at the buffer's end as
 * snprintf would. */
struct put {
	char *p, *end; /* end: the last byte, kept for the NUL */
};

static void put_s(struct put *o, const char *s)
{
	while (*s && o->p < o->end)
		*o->p++ = *s++;
}

static void put_hex(struct put *o, uint64_t v)
{
	char t[17];
	size_t n = 0;
	do
		t[n++] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	put_s(o, "0x");
	while (n && o->p < o->end)
		*o->p++ = t[--n];
}

static void put_dec(struct put *o, int64_t v)
{
	char t[24];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	if (v < 0)
		put_s(o, "-");
	fmt_u64(t, u);
	put_s(o, t);
}

/* " (dev 1 = GPU3)": the pointer's device, and the host's GPU it is where
 * the trace says. */
static void put_dev(struct put *o, const struct ipc_row *r)
{
	int64_t key = pw_devkey(dm, r->file, r->vendor, r->dev);
	if (key < PW_PHYS_BASE && r->dev == PW_DEV_NONE)
		return;
	put_s(o, " (dev ");
	put_dec(o, r->dev);
	if (key >= PW_PHYS_BASE) {
		char phys[24];
		pw_devkey_fmt(dm, key, phys, sizeof phys);
		put_s(o, " = ");
		put_s(o, phys);
	}
	put_s(o, ")");
}

/* What one call says beyond its api: the pointer, the result. */
static void detail(const struct ipc_row *r, char *buf, size_t len)
{
	struct put o = {buf, buf + len - 1};
	bool has_ptr = r->flags & ROW_PTR;
	if (r->ret != 0) {
		put_s(&o, "failed: ");
		put_s(&o, r->ret_name ? r->ret_name : "?");
	} else if (r->op == OP_OPEN && has_ptr) {
		put_s(&o, "mapped at ");
		put_hex(&o, r->ptr);
		put_dev(&o, r);
	} else if ((r->op == OP_EV_OPEN || r->op == OP_EV_EXPORT || r->op == OP_EV_DESTROY) && has_ptr) {
		put_s(&o, "event ");
		put_hex(&o, r->ptr);
	} else if (has_ptr) {
		put_hex(&o, r->ptr);
		put_dev(&o, r);
	} else if (r->op == OP_CLOSE && !(r->flags & ROW_ENDS)) {
		put_s(&o, "the exporter's close of the key"); /* ACL: a close names the key */
	} else {
		put_s(&o, "ok");
	}
	*o.p = 0;
}

/* The listings are as long as the IPC calls: their rows are made twice
 * (table_print_rows), read from the sorted listing (a handle's, the stray
 * closes) or from a shared allocation's records, not held. */
struct rows {
	const struct ipc_report *r;
	const struct pw_input *in;
	struct ipc_list *l;
	size_t row0;            /* the listing's rows from row0 ... */
	const struct vec *recs; /* ... or these (struct ipc_rec *): VMM and pool, detail their own */
	struct ipc_row tmp;
	char when[32], seq[24], det[96], ptr[24];
	const char *label;
};

/* Row i, its process, time and seq made; *vmm its VMM part, or NULL. */
static const struct ipc_row *row_at(struct rows *x, size_t i, const struct ipc_vmm **vmm)
{
	const struct ipc_row *w;
	*vmm = NULL;
	if (x->recs) {
		const struct ipc_rec *rec = *(struct ipc_rec **)vec_at(x->recs, i);
		x->tmp = row_of(rec);
		*vmm = rec->vmm;
		w = &x->tmp;
	} else {
		w = ipc_list_row(x->l, x->row0 + i);
	}
	x->label = label_of(x->in, w->file);
	fmt_rel(x->when, sizeof x->when, w->t_ns, x->r->origin[w->file]);
	fmt_u64(x->seq, w->seq);
	return w;
}

static void call_row(void *ctx, size_t i, const char **cells)
{
	struct rows *x = ctx;
	const struct ipc_vmm *vmm;
	const struct ipc_row *w = row_at(x, i, &vmm);
	if (vmm && vmm->detail)
		snprintf(x->det, sizeof x->det, "%s", vmm->detail);
	else
		detail(w, x->det, sizeof x->det);
	const char *row[] = {x->when, op_name(w->op), x->label, x->seq, w->api, x->det};
	memcpy(cells, row, sizeof row);
}

static void print_calls(struct rows *x, size_t n)
{
	static const char *const heads[] = {"TIME", "WHAT", "PROCESS", "SEQ", "CALL", "DETAIL"};
	table_print_rows(stdout, "  ", "lllrll", heads, n, call_row, x);
}

static void print_handle(const struct ipc_report *r, const struct pw_input *in, struct ipc_list *l,
                         const struct ipc_lhandle *h)
{
	char *host = sanitize(h->host);
	printf("\n%s handle %.16s... on %s\n", h->event ? "event" : "memory", h->handle, host);
	free(host);
	struct rows x = {.r = r, .in = in, .l = l, .row0 = h->row0};
	print_calls(&x, h->nrows);
	if (!h->event && h->exported && !h->freed)
		printf("  (the exporter's trace shows no free of the allocation exported at 0x%llx)\n",
		       (unsigned long long)h->ex_ptr);
}

static void stray_row(void *ctx, size_t i, const char **cells)
{
	struct rows *x = ctx;
	const struct ipc_vmm *vmm;
	const struct ipc_row *w = row_at(x, i, &vmm);
	snprintf(x->ptr, sizeof x->ptr, "0x%llx", (unsigned long long)w->ptr);
	const char *row[] = {x->when, x->label, x->seq, x->ptr,
	                     w->ret ? (w->ret_name ? w->ret_name : "failed") : "ok"};
	memcpy(cells, row, sizeof row);
}

static void print_stray(const struct ipc_report *r, const struct pw_input *in, struct ipc_list *l)
{
	size_t n = xsort_len(&l->rows) - l->stray0;
	if (!n)
		return;
	printf("\nIPC closes of pointers no open in these traces returned\n");
	static const char *const heads[] = {"TIME", "PROCESS", "SEQ", "PTR", "RESULT"};
	struct rows x = {.r = r, .in = in, .l = l, .row0 = l->stray0};
	table_print_rows(stdout, "  ", "llrll", heads, n, stray_row, &x);
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
		struct rows x = {.r = r, .in = in, .recs = &sh->recs};
		print_calls(&x, sh->recs.len);
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

static void count(const struct ipc_list *l, size_t *mem, size_t *ev)
{
	*mem = *ev = 0;
	for (size_t i = 0; i < l->handles.len; i++)
		((const struct ipc_lhandle *)vec_at(&l->handles, i))->event ? (*ev)++ : (*mem)++;
}

static void print_text(const struct ipc_report *r, const struct pw_input *in, struct ipc_list *l)
{
	size_t mem, ev;
	count(l, &mem, &ev);
	printf("%zu memory handle%s, %zu event handle%s, ", mem, mem == 1 ? "" : "s", ev, ev == 1 ? "" : "s");
	if (r->shared.len)
		printf("%zu shared VMM/pool allocation%s, ", r->shared.len, r->shared.len == 1 ? "" : "s");
	printf("%zu finding%s\n", r->findings.len, r->findings.len == 1 ? "" : "s");
	for (size_t i = 0; i < l->handles.len; i++)
		print_handle(r, in, l, vec_at(&l->handles, i));
	print_shared(r, in);
	print_stray(r, in, l);
	print_findings(r, in);
}

/* ---- JSON ---- */

static json_t *row_json(const struct ipc_report *r, const struct pw_input *in, const struct ipc_row *w,
                        const struct ipc_vmm *vmm)
{
	json_t *j = json_object();
	json_object_set_new(j, "op", json_string(op_name(w->op)));
	json_object_set_new(j, "vendor", json_string(w->vendor));
	json_object_set_new(j, "process", proc_json(&in->files[w->file]));
	json_object_set_new(j, "seq", json_u64(w->seq));
	json_object_set_new(j, "api", json_string(w->api));
	json_object_set_new(j, "t_ns", json_integer(w->t_ns));
	json_object_set_new(j, "t_rel_ns", json_integer(w->t_ns - r->origin[w->file]));
	json_object_set_new(j, "ret", json_integer(w->ret));
	json_object_set_new(j, "ret_name", w->ret_name ? json_string(w->ret_name) : json_null());
	json_object_set_new(j, "ptr", w->flags & ROW_PTR ? json_hex(w->ptr) : json_null());
	json_object_set_new(j, "dev", json_dev(w->dev));
	json_object_set_new(j, "device", pw_devkey_json(dm, pw_devkey(dm, w->file, w->vendor, w->dev)));
	if (vmm && w->op >= OP_VMM_CREATE) {
		json_object_set_new(j, "handle", vmm->has_vh ? json_hex(vmm->vh) : json_null());
		json_object_set_new(j, "detail", json_string(vmm->detail ? vmm->detail : ""));
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

/* A life is as long as the trace: written an entry at a time. */
static void rows_out(struct jout *o, struct rows *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ipc_vmm *vmm;
		const struct ipc_row *w = row_at(x, i, &vmm);
		jout_put(o, NULL, row_json(x->r, x->in, w, vmm));
	}
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
	struct rows x = {.r = r, .in = in, .recs = &sh->recs};
	jout_open(o, "life", '[');
	rows_out(o, &x, sh->recs.len);
	jout_close(o, ']');
	jout_close(o, '}');
}

static void handle_out(struct jout *o, const struct ipc_report *r, const struct pw_input *in,
                       struct ipc_list *l, const struct ipc_lhandle *h)
{
	jout_open(o, NULL, '{');
	jout_put(o, "kind", json_string(h->event ? "event" : "memory"));
	jout_put(o, "vendor", json_string(h->vendor));
	jout_put(o, "host", json_string(h->host));
	jout_put(o, "handle", json_string(h->handle));
	jout_put(o, "exported", json_boolean(h->exported));
	/* memory: the exporter freed the allocation; an event: it destroyed the event */
	jout_put(o, "freed", json_boolean(h->freed));
	struct rows x = {.r = r, .in = in, .l = l, .row0 = h->row0};
	jout_open(o, "life", '[');
	rows_out(o, &x, h->nrows);
	jout_close(o, ']');
	jout_close(o, '}');
}

/* Written as it goes (base/show.h): a trace of many IPC calls makes a long
 * report, never held whole. */
static void print_json(const struct ipc_report *r, const struct pw_input *in, struct ipc_list *l)
{
	struct jout o = {0};
	jout_open(&o, NULL, '{');
	jout_open(&o, "handles", '[');
	for (size_t i = 0; i < l->handles.len; i++)
		handle_out(&o, r, in, l, vec_at(&l->handles, i));
	jout_close(&o, ']');
	jout_open(&o, "shared", '[');
	for (size_t i = 0; i < r->shared.len; i++)
		shared_out(&o, r, in, *(struct ipc_shared **)vec_at(&r->shared, i));
	jout_close(&o, ']');
	jout_open(&o, "unmatched_closes", '[');
	struct rows x = {.r = r, .in = in, .l = l, .row0 = l->stray0};
	rows_out(&o, &x, xsort_len(&l->rows) - l->stray0);
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

/* The findings in the listing's order: ipc_derive gives them handle by
 * handle in the order of the calls it kept, the listing orders the handles
 * by every call (check's reading lets go of opens no finding names).
 * Within a handle, and the VMM and pool findings after, as derived. */
struct fplace {
	uint32_t rank;
	size_t idx;
};

static int by_place(const void *a, const void *b)
{
	const struct fplace *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void order_findings(struct ipc_report *r, const struct ipc_list *l, const struct pw_input *in)
{
	size_t n = r->findings.len;
	if (!n)
		return;
	struct fplace *pl = xcalloc(n + 1, sizeof *pl);
	for (size_t i = 0; i < n; i++) {
		const struct ipc_handle *h = ((const struct ipc_finding *)vec_at(&r->findings, i))->handle;
		pl[i] = (struct fplace){IPC_ROW_STRAY, i};
		if (!h || !h->recs.len)
			continue;
		const struct ipc_rec *first = *(struct ipc_rec **)vec_at(&h->recs, 0);
		size_t len;
		char *k = ipc_handle_key(ipc_run_of(in, first->file), h->host, first->vendor, h->handle,
		                         h->event, &len);
		pl[i].rank = ipc_list_rank(l, k, len);
		free(k);
	}
	qsort(pl, n, sizeof *pl, by_place);
	struct ipc_finding *sorted = xcalloc(n + 1, sizeof *sorted);
	for (size_t i = 0; i < n; i++)
		sorted[i] = *(struct ipc_finding *)vec_at(&r->findings, pl[i].idx);
	memcpy(r->findings.data, sorted, n * sizeof *sorted);
	free(sorted);
	free(pl);
}

/* The findings come from check's reading (ipc_findings_ops), the listing
 * from ipc_list_ops: neither holds every IPC call. */
int cmd_ipc(const struct pw_opts *o)
{
	struct ipc_report r;
	struct ipc_list l;
	struct pw_input in = {0};
	ipc_init(&r);
	ipc_report_findings_only(&r);
	r.vmm_detail = true;
	ipc_list_init(&l);
	struct pw_sink sinks[] = {{&ipc_findings_ops, &r}, {&ipc_list_ops, &l}};
	int st = an_read(o, &in, sinks, 2);
	if (st != PW_READ_FATAL && in.n) {
		struct pw_devmap map;
		pw_devmap_build(&map, &in);
		dm = &map;
		labels = xcalloc(in.n, sizeof *labels);
		ipc_derive(&r, &in);
		ipc_list_done(&l, &in);
		order_findings(&r, &l, &in);
		if (o->json)
			print_json(&r, &in, &l);
		else
			print_text(&r, &in, &l);
		pw_devmap_free(&map);
		dm = NULL;
		for (size_t i = 0; i < in.n; i++)
			free(labels[i]);
		free(labels);
		labels = NULL;
	}
	ipc_list_free(&l);
	ipc_free(&r);
	pw_input_free(&in);
	return an_exit(st);
}

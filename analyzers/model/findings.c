/*
 * Violation events and derived findings (findings.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "model/catalog.h"
#include "model/findings.h"
#include "model/ipclife.h"
#include "model/procs.h"
#include "model/symbols.h"
#include "model/umfx.h"
#include "read/files.h"
#include "read/reader.h"

struct fnd_partial {
	struct vec list;       /* struct finding */
	struct vec suppressed; /* struct suppressed_mark */
};

struct fnd_fctx {
	struct hmap calls; /* seq of a call a violation names -> its "api+variant" */
};

static void *fnd_partial_new(void *report)
{
	(void)report;
	struct fnd_partial *p = xcalloc(1, sizeof *p);
	vec_init(&p->list, sizeof(struct finding));
	vec_init(&p->suppressed, sizeof(struct suppressed_mark));
	return p;
}

static void fnd_partial_merge(void *report, void *partial)
{
	struct findings *fs = report;
	struct fnd_partial *p = partial;
	vec_append(&fs->list, &p->list);
	vec_free(&p->list);
	vec_append(&fs->suppressed, &p->suppressed);
	vec_free(&p->suppressed);
	free(p);
}

static void *fnd_file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct fnd_fctx *c = xcalloc(1, sizeof *c);
	hmap_init(&c->calls);
	return c;
}

static const char *const pre_keys[] = {"\"violation\"", NULL};

/* Pre-phase: remember which calls the violations name. */
static void fnd_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct fnd_fctx *c = fctx;
	if (ev->type != PW_EV_VIOLATION || !ev->has_call)
		return;
	char **slot = (char **)hmap_put_u64(&c->calls, ev->call);
	if (!*slot)
		*slot = xstrdup(""); /* named, not yet seen */
}

static void fnd_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct fnd_partial *p = partial;
	struct fnd_fctx *c = fctx;
	if (ev->type == PW_EV_CALL) {
		const char *rule;
		for (size_t k = 0; pw_ev_suppressed(ev, k, &rule); k++) {
			if (!rule)
				continue;
			struct suppressed_mark *m = vec_push(&p->suppressed);
			m->file = f->index;
			m->call = ev->seq;
			m->rule = xstrdup(rule);
		}
		if (c->calls.len && hmap_get_u64(&c->calls, ev->seq)) {
			char **slot = (char **)hmap_put_u64(&c->calls, ev->seq);
			free(*slot);
			*slot = xasprintf("%s%s", ev->api, ev->variant);
		}
		return;
	}
	if (ev->type != PW_EV_VIOLATION)
		return;
	struct finding *fd = vec_push(&p->list);
	fd->file = f->index;
	fd->seq = ev->seq;
	fd->call = ev->call;
	fd->has_call = ev->has_call;
	fd->rule = xstrdup(ev->rule);
	fd->severity = xstrdup(ev->severity);
	fd->message = xstrdup(ev->message);
	fd->sev = sev_rank(ev->severity);
	fd->api = ev->api ? xstrdup(ev->api) : NULL; /* replaced by the call's, with its variant */
	/* the violation's vendor; a trace from before violations had one: the api's */
	snprintf(fd->vendor, sizeof fd->vendor, "%s",
	         ev->vendor                       ? ev->vendor
	         : catalog_vendor_of_api(ev->api) ? catalog_vendor_of_api(ev->api)
	                                          : "");
	if (ev->nstack) {
		fd->stack = xcalloc(ev->nstack, sizeof *fd->stack);
		memcpy(fd->stack, ev->stack, ev->nstack * sizeof *fd->stack);
		fd->nstack = ev->nstack;
	}
}

static void fnd_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct fnd_partial *p = partial;
	struct fnd_fctx *c = fctx;
	/* the file's findings: the last of the list (a worker hands one file's
	 * events to the sinks from its first to its end, and a staged run may
	 * have begun the file on another worker) */
	for (size_t i = p->list.len; i-- > 0 && ((struct finding *)vec_at(&p->list, i))->file == f->index;) {
		struct finding *fd = vec_at(&p->list, i);
		const char *api = fd->has_call ? hmap_get_u64(&c->calls, fd->call) : NULL;
		if (api && *api) {
			free(fd->api);
			fd->api = xstrdup(api);
		}
	}
	hmap_free(&c->calls, free);
	free(c);
}

const struct pw_sink_ops findings_ops = {
    .partial_new = fnd_partial_new,
    .partial_merge = fnd_partial_merge,
    .file_begin = fnd_file_begin,
    .pre_keys = pre_keys,
    .pre_by_op = true, /* violations: no call line is one */
    .pre_event = fnd_pre_event,
    .event = fnd_event,
    .file_end = fnd_file_end,
};

void findings_init(struct findings *fs)
{
	vec_init(&fs->list, sizeof(struct finding));
	vec_init(&fs->suppressed, sizeof(struct suppressed_mark));
	fs->derived_suppressed = 0;
	fs->seen = NULL;
}

/* A key of the library's findings and suppressions, by what a derived
 * finding is matched on: 'c' a finding on a call, 'x' one made at exit
 * (no call), 's' a suppression of a rule on a call. */
static size_t seen_key(char *k, size_t len, char kind, size_t file, uint64_t call, const char *rule)
{
	k[0] = kind;
	memcpy(k + 1, &file, sizeof file);
	memcpy(k + 1 + sizeof file, &call, sizeof call);
	size_t head = 1 + sizeof file + sizeof call, n = strnlen(rule, len - head);
	memcpy(k + head, rule, n);
	return head + n;
}

/* The library's findings and suppressions, indexed once every trace is
 * read (a derived finding is matched against them, not against the
 * derived ones before it). */
static void index_seen(struct findings *fs)
{
	char k[256];
	fs->seen = xcalloc(1, sizeof *fs->seen);
	hmap_init(fs->seen);
	for (size_t i = 0; i < fs->list.len; i++) {
		const struct finding *fd = vec_at(&fs->list, i);
		if (!fd->derived)
			*hmap_put(fs->seen, k,
			          seen_key(k, sizeof k, fd->has_call ? 'c' : 'x', fd->file,
			                   fd->has_call ? fd->call : 0, fd->rule)) = (void *)1;
	}
	for (size_t i = 0; i < fs->suppressed.len; i++) {
		const struct suppressed_mark *m = vec_at(&fs->suppressed, i);
		*hmap_put(fs->seen, k, seen_key(k, sizeof k, 's', m->file, m->call, m->rule)) = (void *)1;
	}
}

void findings_add_derived(struct findings *fs, size_t file, uint64_t call, const char *api, const char *rule,
                          enum sev sev, const char *message)
{
	char k[256];
	if (!fs->seen)
		index_seen(fs);
	/* what is still open at exit: the library's finding has no call */
	bool leak = !strcmp(rule, "ipc.leak") || !strcmp(rule, "ipc.event.leak");
	if (hmap_get(fs->seen, k, seen_key(k, sizeof k, 'c', file, call, rule)) ||
	    (leak && hmap_get(fs->seen, k, seen_key(k, sizeof k, 'x', file, 0, rule))))
		return; /* the online registry caught it already */
	if (hmap_get(fs->seen, k, seen_key(k, sizeof k, 's', file, call, rule))) {
		fs->derived_suppressed++; /* the library's suppression took it */
		return;
	}
	struct finding *fd = vec_push(&fs->list);
	fd->file = file;
	fd->call = call;
	fd->has_call = true;
	fd->api = api ? xstrdup(api) : NULL;
	const char *vendor = catalog_vendor_of_api(api);
	snprintf(fd->vendor, sizeof fd->vendor, "%s", vendor ? vendor : "");
	fd->rule = xstrdup(rule);
	fd->severity = xstrdup(sev_name(sev));
	fd->sev = sev;
	fd->message = xstrdup(message);
	fd->derived = true;
}

static const size_t *sort_rank; /* qsort has no context argument */

static int by_place(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	if (x->file != y->file)
		return sort_rank[x->file] < sort_rank[y->file] ? -1 : 1;
	if (x->has_call != y->has_call)
		return x->has_call ? -1 : 1;
	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->rule, y->rule) ? strcmp(x->rule, y->rule) : strcmp(x->message, y->message);
}

void findings_sort(struct findings *fs, const struct pw_input *in)
{
	size_t *rank = file_ranks(in);
	sort_rank = rank;
	vec_sort(&fs->list, by_place);
	free(rank);
}

void findings_free(struct findings *fs)
{
	for (size_t i = 0; i < fs->list.len; i++) {
		struct finding *fd = vec_at(&fs->list, i);
		free(fd->api);
		free(fd->rule);
		free(fd->severity);
		free(fd->message);
		free(fd->stack);
	}
	vec_free(&fs->list);
	for (size_t i = 0; i < fs->suppressed.len; i++)
		free(((struct suppressed_mark *)vec_at(&fs->suppressed, i))->rule);
	vec_free(&fs->suppressed);
	if (fs->seen)
		hmap_free(fs->seen, NULL);
	free(fs->seen);
	fs->seen = NULL;
}

int findings_read(const struct pw_opts *o, struct pw_input *in, struct findings *fs)
{
	return findings_read_with(o, in, fs, NULL, NULL, 0);
}

int findings_read_with(const struct pw_opts *o, struct pw_input *in, struct findings *fs,
                       struct ipc_report *ipc, const struct pw_sink *more, size_t nmore)
{
	struct ipc_report own; /* check's: for the findings alone */
	ipc_init(&own);
	struct ipc_report *ip = ipc ? ipc : &own;
	ipc_report_findings_only(ip);
	struct umfx um;
	umfx_init(&um);
	um.findings_only = true;
	struct pw_sink *sinks = xcalloc(3 + nmore, sizeof *sinks);
	size_t n = 0;
	sinks[n++] = (struct pw_sink){&findings_ops, fs};
	if (o->derived || ipc)
		sinks[n++] = (struct pw_sink){&ipc_findings_ops, ip};
	if (o->derived)
		sinks[n++] = (struct pw_sink){&umfx_findings_ops, &um};
	for (size_t i = 0; i < nmore; i++)
		sinks[n++] = more[i];
	int st = an_read(o, in, sinks, n);
	free(sinks);
	if (o->derived || ipc)
		ipc_derive(ip, in);
	if (o->derived) {
		for (size_t i = 0; i < ip->findings.len; i++) {
			const struct ipc_finding *f = vec_at(&ip->findings, i);
			findings_add_derived(fs, f->file, f->seq, f->api, f->rule, f->sev, f->message);
		}
		for (size_t i = 0; i < um.findings.len; i++) {
			const struct umfx_finding *f = vec_at(&um.findings, i);
			findings_add_derived(fs, f->file, f->call, f->api, f->rule, SEV_PERFORMANCE,
			                     f->message);
		}
	}
	ipc_free(&own);
	umfx_free(&um);
	findings_sort(fs, in);
	return st;
}

static json_t *stack_json(const struct finding *fd, const struct pw_file *f, struct symbolizer *sym)
{
	json_t *a = json_array();
	for (size_t i = 0; i < fd->nstack; i++) {
		json_t *fr = json_object();
		json_object_set_new(fr, "pc", json_hex(fd->stack[i]));
		if (sym) {
			struct sym_frame sf;
			sym_lookup(sym, &f->modules, fd->stack[i], &sf);
			json_object_set_new(fr, "module", sf.module ? json_text(sf.module) : json_null());
			json_object_set_new(fr, "module_offset",
			                    sf.module ? json_hex(sf.module_off) : json_null());
			json_object_set_new(fr, "function", sf.func ? json_text(sf.func) : json_null());
			json_object_set_new(fr, "function_offset",
			                    sf.func ? json_hex(sf.func_off) : json_null());
			json_object_set_new(fr, "file", sf.file ? json_text(sf.file) : json_null());
			json_object_set_new(fr, "line", sf.file ? json_integer(sf.line) : json_null());
			json_object_set_new(fr, "note", sf.note ? json_string(sf.note) : json_null());
			sym_frame_free(&sf);
		}
		json_array_append_new(a, fr);
	}
	return a;
}

json_t *finding_json(const struct finding *fd, const struct pw_input *in, struct symbolizer *sym)
{
	const struct pw_file *f = &in->files[fd->file];
	json_t *j = json_object();
	json_object_set_new(j, "rule", json_string(fd->rule));
	json_object_set_new(j, "severity", json_string(fd->severity));
	json_object_set_new(j, "message", json_string(fd->message));
	json_object_set_new(j, "derived", json_boolean(fd->derived));
	json_object_set_new(j, "process", proc_json(f));
	json_object_set_new(j, "seq", fd->seq ? json_u64(fd->seq) : json_null());
	json_object_set_new(j, "call", fd->has_call ? json_u64(fd->call) : json_null());
	json_object_set_new(j, "api", fd->api ? json_string(fd->api) : json_null());
	json_object_set_new(j, "stack", stack_json(fd, f, sym));
	return j;
}

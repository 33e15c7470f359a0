/*
 * IPC handle lifecycles across processes (ipclife.h).
 */
#include <stdlib.h>
#include <string.h>

#include "ipclife.h"

/* ---- collecting: the sink ---- */

struct ipc_partial {
	struct vec recs; /* struct ipc_rec * */
};

struct ipc_fctx {
	struct hmap exported; /* pointers this file exported (pre-phase) */
};

static void *ipc_partial_new(void *report)
{
	(void)report;
	struct ipc_partial *p = xcalloc(1, sizeof *p);
	vec_init(&p->recs, sizeof(struct ipc_rec *));
	return p;
}

static void ipc_partial_merge(void *report, void *partial)
{
	struct ipc_report *r = report;
	struct ipc_partial *p = partial;
	vec_append(&r->recs, &p->recs);
	vec_free(&p->recs);
	free(p);
}

static void *ipc_file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct ipc_fctx *c = xcalloc(1, sizeof *c);
	hmap_init(&c->exported);
	return c;
}

static void ipc_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct ipc_fctx *c = fctx;
	hmap_free(&c->exported, NULL);
	free(c);
}

static bool ipc_pre_filter(const char *line, size_t len)
{
	return memmem(line, len, "\"cuIpcGetMemHandle\"", 19) != NULL;
}

static void ipc_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct ipc_fctx *c = fctx;
	uint64_t ptr;
	if (ev->type == PW_EV_CALL && !strcmp(ev->api, "cuIpcGetMemHandle") && ev->ret == 0 &&
	    pw_arg_hex(ev, "ptr", &ptr))
		*hmap_put_u64(&c->exported, ptr) = (void *)1;
}

static bool op_of(const struct pw_event *ev, enum ipc_op *op)
{
	static const struct {
		const char *api;
		enum ipc_op op;
	} ops[] = {{"cuIpcGetMemHandle", OP_EXPORT},     {"cuIpcOpenMemHandle", OP_OPEN},
	           {"cuIpcCloseMemHandle", OP_CLOSE},    {"cuIpcGetEventHandle", OP_EV_EXPORT},
	           {"cuIpcOpenEventHandle", OP_EV_OPEN}, {"cuMemFree", OP_FREE},
	           {"cuMemFreeAsync", OP_FREE}};
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (!strcmp(ev->api, ops[i].api)) {
			*op = ops[i].op;
			return true;
		}
	return false;
}

static struct ipc_rec *new_rec(enum ipc_op op, const struct pw_file *f, const struct pw_event *ev)
{
	struct ipc_rec *r = xcalloc(1, sizeof *r);
	r->op = op;
	r->file = f->index;
	r->seq = ev->seq;
	r->t_ns = ev->t_ns;
	r->ret = ev->ret;
	r->api = xasprintf("%s%s", ev->api, ev->variant);
	r->ret_name = ev->ret_name ? xstrdup(ev->ret_name) : NULL;
	r->dev = PW_DEV_NONE;
	return r;
}

static void ipc_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct ipc_partial *p = partial;
	struct ipc_fctx *c = fctx;
	enum ipc_op op;
	uint64_t ptr = 0;
	if (ev->type != PW_EV_CALL || strcmp(ev->vendor, "cuda") || !op_of(ev, &op))
		return;
	bool has_ptr = pw_arg_hex(ev, op == OP_EV_EXPORT || op == OP_EV_OPEN ? "event" : "ptr", &ptr);
	/* frees are kept only when they free what this process exported */
	if (op == OP_FREE && (ev->ret != 0 || !has_ptr || !hmap_get_u64(&c->exported, ptr)))
		return;
	struct ipc_rec *r = new_rec(op, f, ev);
	r->has_ptr = has_ptr;
	r->ptr = ptr;
	r->dev = pw_arg_dev(ev, "ptr_dev");
	r->has_handle = pw_arg_handle(ev, "handle", r->handle);
	*(struct ipc_rec **)vec_push(&p->recs) = r;
}

const struct pw_sink_ops ipc_ops = {
    .partial_new = ipc_partial_new,
    .partial_merge = ipc_partial_merge,
    .file_begin = ipc_file_begin,
    .pre_filter = ipc_pre_filter,
    .pre_event = ipc_pre_event,
    .event = ipc_event,
    .file_end = ipc_file_end,
};

/* ---- deriving ---- */

void ipc_init(struct ipc_report *r)
{
	memset(r, 0, sizeof *r);
	vec_init(&r->recs, sizeof(struct ipc_rec *));
	vec_init(&r->handles, sizeof(struct ipc_handle *));
	vec_init(&r->stray, sizeof(struct ipc_rec *));
	vec_init(&r->findings, sizeof(struct ipc_finding));
}

static const struct pw_input *sort_in; /* qsort has no context argument */

static int by_time(const void *a, const void *b)
{
	const struct ipc_rec *x = *(struct ipc_rec *const *)a, *y = *(struct ipc_rec *const *)b;
	int h = strcmp(sort_in->files[x->file].host, sort_in->files[y->file].host);
	if (h)
		return h;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Key of a handle: its kind, its bytes, its host. */
static char *key_handle(const char *host, const char *handle, bool event, size_t *len)
{
	size_t hl = strlen(host);
	char *k = xmalloc(1 + 128 + hl + 1);
	k[0] = event ? 'e' : 'm';
	memcpy(k + 1, handle, 128);
	memcpy(k + 129, host, hl + 1);
	*len = 129 + hl;
	return k;
}

static struct ipc_handle *handle_of(struct ipc_report *r, struct hmap *map, const struct pw_input *in,
                                    const struct ipc_rec *rec, bool event)
{
	size_t len;
	const char *host = in->files[rec->file].host;
	char *k = key_handle(host, rec->handle, event, &len);
	struct ipc_handle **h = (struct ipc_handle **)hmap_put(map, k, len);
	free(k);
	if (!*h) {
		*h = xcalloc(1, sizeof **h);
		(*h)->host = host;
		memcpy((*h)->handle, rec->handle, sizeof rec->handle);
		(*h)->event = event;
		vec_init(&(*h)->recs, sizeof(struct ipc_rec *));
		*(struct ipc_handle **)vec_push(&r->handles) = *h;
	}
	return *h;
}

struct fptr {
	size_t file;
	uint64_t ptr;
};

/* Per (file, pointer): the records that name it, in time order. */
static struct vec *by_fptr(struct hmap *map, size_t file, uint64_t ptr)
{
	struct fptr k = {file, ptr};
	struct vec **v = (struct vec **)hmap_put(map, &k, sizeof k);
	if (!*v) {
		*v = xcalloc(1, sizeof **v);
		vec_init(*v, sizeof(void *));
	}
	return *v;
}

static void free_vec(void *p)
{
	vec_free(p);
	free(p);
}

/* An open ended by this close: the latest open of the pointer not yet closed. */
static void match_close(struct ipc_report *r, struct hmap *opens, struct ipc_rec *c)
{
	struct vec *v = c->has_ptr && c->ret == 0 ? by_fptr(opens, c->file, c->ptr) : NULL;
	for (size_t i = v ? v->len : 0; i-- > 0;) {
		struct ipc_rec *o = *(struct ipc_rec **)vec_at(v, i);
		if (!o->closed_by && o->t_ns <= c->t_ns) {
			o->closed_by = c;
			c->close_of = o;
			*(struct ipc_rec **)vec_push(&o->owner->recs) = c;
			return;
		}
	}
	*(struct ipc_rec **)vec_push(&r->stray) = c;
}

/* A free ends the export of that pointer by that process, if not ended. */
static void match_free(struct hmap *exports, struct ipc_rec *fr)
{
	struct vec *v = by_fptr(exports, fr->file, fr->ptr);
	for (size_t i = 0; i < v->len; i++) {
		struct ipc_handle *h = *(struct ipc_handle **)vec_at(v, i);
		if (!h->free && h->export && h->export->t_ns <= fr->t_ns) {
			h->free = fr;
			*(struct ipc_rec **)vec_push(&h->recs) = fr;
		}
	}
}

static void place(struct ipc_report *r, struct hmap *handles, struct hmap *opens, struct hmap *exports,
                  const struct pw_input *in, struct ipc_rec *rec)
{
	bool ev = rec->op == OP_EV_EXPORT || rec->op == OP_EV_OPEN;
	if (rec->op == OP_CLOSE) {
		match_close(r, opens, rec);
		return;
	}
	if (rec->op == OP_FREE) {
		match_free(exports, rec);
		return;
	}
	if (!rec->has_handle)
		return; /* a failed export has no handle: nothing to follow */
	struct ipc_handle *h = handle_of(r, handles, in, rec, ev);
	rec->owner = h;
	*(struct ipc_rec **)vec_push(&h->recs) = rec;
	if (rec->op == OP_EXPORT && rec->ret == 0 && !h->export) {
		h->export = rec;
		if (rec->has_ptr)
			*(struct ipc_handle **)vec_push(by_fptr(exports, rec->file, rec->ptr)) = h;
	}
	if (rec->op == OP_OPEN && rec->ret == 0 && rec->has_ptr)
		*(struct ipc_rec **)vec_push(by_fptr(opens, rec->file, rec->ptr)) = rec;
}

static void add_finding(struct ipc_report *r, const char *rule, enum sev sev, const struct ipc_rec *at,
                        char *message)
{
	struct ipc_finding *f = vec_push(&r->findings);
	f->rule = rule;
	f->sev = sev;
	f->file = at->file;
	f->seq = at->seq;
	f->api = xstrdup(at->api);
	f->message = message;
}

static char *short_handle(const char *h)
{
	return xasprintf("%.16s...", h);
}

static void findings_of_open(struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h,
                             const struct ipc_rec *o)
{
	char t_open[32], t_free[32], t_close[32];
	const struct pw_file *imp = &in->files[o->file],
	                     *exp = h->export ? &in->files[h->export->file] : NULL;
	char *hs = short_handle(h->handle), *il = proc_label(imp), *el = exp ? proc_label(exp) : xstrdup("?");
	int64_t origin = r->origin[o->file];
	fmt_rel(t_open, sizeof t_open, o->t_ns, origin);
	if (h->free)
		fmt_rel(t_free, sizeof t_free, h->free->t_ns, origin);
	if (o->closed_by)
		fmt_rel(t_close, sizeof t_close, o->closed_by->t_ns, origin);
	if (h->free && o->t_ns < h->free->t_ns && (!o->closed_by || o->closed_by->t_ns > h->free->t_ns))
		add_finding(
		    r, "ipc.free-while-open", SEV_ERROR, h->free,
		    xasprintf("%s freed 0x%llx at %s while %s still had it open through IPC handle %s "
		              "(opened at %s, %s%s)",
		              el, (unsigned long long)h->free->ptr, t_free, il, hs, t_open,
		              o->closed_by ? "closed at " : "never closed", o->closed_by ? t_close : ""));
	if (h->free && o->t_ns > h->free->t_ns)
		add_finding(r, "ipc.open.stale", SEV_ERROR, o,
		            xasprintf("%s opened IPC handle %s at %s, after %s freed the allocation at %s",
		                      il, hs, t_open, el, t_free));
	if (!o->closed_by)
		add_finding(
		    r, "ipc.leak", SEV_WARNING, o,
		    xasprintf("%s opened IPC handle %s (exported by %s) at %s and never closed it%s", il, hs,
		              el, t_open,
		              imp->partial ? "; its trace ends early (.partial: the process died)" : ""));
	free(hs);
	free(il);
	free(el);
}

static void derive_findings(struct ipc_report *r, const struct pw_input *in)
{
	if (!in->files)
		return;
	for (size_t i = 0; i < r->handles.len; i++) {
		struct ipc_handle *h = *(struct ipc_handle **)vec_at(&r->handles, i);
		if (h->event)
			continue;
		for (size_t j = 0; j < h->recs.len; j++) {
			struct ipc_rec *o = *(struct ipc_rec **)vec_at(&h->recs, j);
			/* an open in the exporting process itself is refused by CUDA: skip */
			if (o->op == OP_OPEN && o->ret == 0 && (!h->export || o->file != h->export->file))
				findings_of_open(r, in, h, o);
		}
	}
}

static int by_first_time(const void *a, const void *b)
{
	const struct ipc_handle *x = *(struct ipc_handle *const *)a, *y = *(struct ipc_handle *const *)b;
	const struct ipc_rec *rx = *(struct ipc_rec **)vec_at(&x->recs, 0),
	                     *ry = *(struct ipc_rec **)vec_at(&y->recs, 0);
	return by_time(&rx, &ry);
}

void ipc_derive(struct ipc_report *r, const struct pw_input *in)
{
	struct hmap handles, opens, exports;
	hmap_init(&handles);
	hmap_init(&opens);
	hmap_init(&exports);
	r->origin = host_origins(in);
	if (!in->n)
		return;
	sort_in = in;
	vec_sort(&r->recs, by_time);
	for (size_t i = 0; i < r->recs.len; i++)
		place(r, &handles, &opens, &exports, in, *(struct ipc_rec **)vec_at(&r->recs, i));
	vec_sort(&r->handles, by_first_time);
	derive_findings(r, in);
	hmap_free(&handles, NULL);
	hmap_free(&opens, free_vec);
	hmap_free(&exports, free_vec);
}

void ipc_free(struct ipc_report *r)
{
	for (size_t i = 0; i < r->recs.len; i++) {
		struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&r->recs, i);
		free(rec->api);
		free(rec->ret_name);
		free(rec);
	}
	vec_free(&r->recs);
	for (size_t i = 0; i < r->handles.len; i++) {
		struct ipc_handle *h = *(struct ipc_handle **)vec_at(&r->handles, i);
		vec_free(&h->recs);
		free(h);
	}
	vec_free(&r->handles);
	vec_free(&r->stray);
	for (size_t i = 0; i < r->findings.len; i++) {
		struct ipc_finding *f = vec_at(&r->findings, i);
		free(f->api);
		free(f->message);
	}
	vec_free(&r->findings);
	free(r->origin);
}

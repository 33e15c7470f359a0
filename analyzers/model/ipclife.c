/*
 * IPC handle lifecycles across processes (ipclife.h): the records the sink
 * (ipcsink.c) kept, matched into handles and shared allocations in time
 * order, and the findings derived from them.
 */
#include <stdlib.h>
#include <string.h>

#include "base/show.h"
#include "model/catalog.h"
#include "model/ipclife.h"
#include "model/procs.h"
#include "read/trace.h"

/* ---- deriving ---- */

void ipc_init(struct ipc_report *r)
{
	memset(r, 0, sizeof *r);
	vec_init(&r->recs, sizeof(struct ipc_rec *));
	vec_init(&r->pools, sizeof(struct ipc_pool *));
	vec_init(&r->handles, sizeof(struct ipc_handle *));
	vec_init(&r->stray, sizeof(struct ipc_rec *));
	vec_init(&r->findings, sizeof(struct ipc_finding));
	vec_init(&r->shared, sizeof(struct ipc_shared *));
	hmap_init(&r->decided);
	hmap_init(&r->more_opens);
}

void ipc_report_findings_only(struct ipc_report *r)
{
	r->findings_only = true;
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

/* Key of a handle: its kind, its bytes, its run, host and vendor.  Two runs
 * in one directory (containers sharing a volume and a host name) reuse pids,
 * and so make byte-identical handles that are not one allocation. */
char *ipc_handle_key(const char *run, const char *host, const char *vendor, const char *handle, bool event,
                     size_t *len)
{
	char *k = xasprintf("%c%.128s%s%c%s%c%s", event ? 'e' : 'm', handle, run, 0, host, 0, vendor);
	*len = 1 + 128 + strlen(run) + 1 + strlen(host) + 1 + strlen(vendor);
	return k;
}

static struct ipc_handle *handle_of(struct ipc_report *r, struct hmap *map, const struct pw_input *in,
                                    const struct ipc_rec *rec, bool event)
{
	size_t len;
	const char *host = in->files[rec->file].host;
	char *k = ipc_handle_key(ipc_run_of(in, rec->file), host, rec->vendor, rec->handle, event, &len);
	struct ipc_handle **h = (struct ipc_handle **)hmap_put(map, k, len);
	free(k);
	if (!*h) {
		*h = xcalloc(1, sizeof **h);
		(*h)->host = host;
		(*h)->handle = rec->handle;
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

/* ... or NULL when nothing named it (nothing made). */
static struct vec *fptr_get(const struct hmap *map, size_t file, uint64_t ptr)
{
	struct fptr k = {file, ptr};
	return hmap_get(map, &k, sizeof k);
}

static void free_vec(void *p)
{
	vec_free(p);
	free(p);
}

/* An open that returned a pointer (or gave an event), as its close or
 * destroy looks for it: one array sorted by (file, pointer, the order
 * placed), 16 bytes an open, not a map entry and a vector per pointer —
 * with an open and a close of every handle a fifth of a trace's calls, the
 * maps were as large as the records they pointed at. */
struct open_at {
	uint64_t ptr;
	uint32_t file;
	uint32_t idx; /* in r->recs, sorted by time: the order placed */
};

static int by_open_at(const void *a, const void *b)
{
	const struct open_at *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->ptr != y->ptr)
		return x->ptr < y->ptr ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The first entry of v not before k. */
static size_t open_at_bound(const struct vec *v, const struct open_at *k)
{
	size_t lo = 0, hi = v->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_open_at(vec_at(v, mid), k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What matching needs while the records are placed, in time order. */
struct places {
	const struct vec *recs; /* the report's, sorted by time */
	struct hmap handles;    /* key_handle -> struct ipc_handle * */
	struct vec opens;       /* struct open_at: the memory opens that returned a pointer */
	struct hmap exports;    /* (file, pointer) -> the handles it was exported under */
	struct vec ev_opens;    /* struct open_at: the event opens that gave an event */
	struct hmap ev_exports; /* (file, event) -> the event handles it was exported under */
};

/* The latest open of (file, ptr) placed before record idx that is still
 * open at t and not yet ended, or NULL. */
static struct ipc_rec *open_to_end(const struct places *pl, const struct vec *opens, uint32_t file,
                                   uint64_t ptr, uint32_t idx, int64_t t)
{
	struct open_at lo = {ptr, file, 0}, hi = {ptr, file, idx};
	for (size_t i = open_at_bound(opens, &hi), first = open_at_bound(opens, &lo); i-- > first;) {
		const struct open_at *e = vec_at(opens, i);
		struct ipc_rec *o = *(struct ipc_rec **)vec_at(pl->recs, e->idx);
		if (!ipc_open_ended(o) && o->t_ns <= t)
			return o;
	}
	return NULL;
}

static bool is_kept_open(const struct ipc_rec *rec)
{
	return (rec->op == OP_OPEN || rec->op == OP_EV_OPEN) && rec->ret == 0 && rec->has_ptr &&
	       rec->has_handle;
}

/* The opens a close or destroy may end, before any is placed. */
static void opens_sorted(struct places *pl)
{
	for (size_t i = 0; i < pl->recs->len; i++) {
		const struct ipc_rec *rec = *(struct ipc_rec **)vec_at(pl->recs, i);
		if (is_kept_open(rec))
			*(struct open_at *)vec_push(rec->op == OP_OPEN ? &pl->opens : &pl->ev_opens) =
			    (struct open_at){rec->ptr, rec->file, (uint32_t)i};
	}
	vec_sort(&pl->opens, by_open_at);
	vec_sort(&pl->ev_opens, by_open_at);
}

/* ACL closes a key, not a pointer (aclrtIpcMemClose): the latest open of
 * the handle in the closing process not yet closed; else, in the process
 * that exported it, the exporter's own close, listed with the handle.
 * False when the handle is none of these (a stray close). */
static bool match_close_key(struct hmap *handles, const struct pw_input *in, struct ipc_rec *c)
{
	size_t len;
	char *k = ipc_handle_key(ipc_run_of(in, c->file), in->files[c->file].host, c->vendor, c->handle,
	                         false, &len);
	struct ipc_handle *h = hmap_get(handles, k, len);
	free(k);
	for (size_t i = h ? h->recs.len : 0; i-- > 0;) {
		struct ipc_rec *o = *(struct ipc_rec **)vec_at(&h->recs, i);
		if (o->op == OP_OPEN && o->ret == 0 && o->file == c->file && !ipc_open_ended(o) &&
		    o->t_ns <= c->t_ns) {
			o->closed_by = c;
			c->close_of = o;
			c->ptr = o->ptr; /* the mapping it ends */
			c->has_ptr = o->has_ptr;
			*(struct ipc_rec **)vec_push(&h->recs) = c;
			return true;
		}
	}
	if (h && h->export && h->export->file == c->file && h->export->t_ns <= c->t_ns) {
		c->owner = h;
		if (!h->closed)
			h->closed = c;
		*(struct ipc_rec **)vec_push(&h->recs) = c;
		return true;
	}
	return false;
}

/* An open ended by this close: the latest open of the pointer not yet closed. */
static void match_close(struct ipc_report *r, struct places *pl, const struct pw_input *in, struct ipc_rec *c,
                        uint32_t idx)
{
	if (!c->has_ptr && c->has_handle && c->ret == 0 && match_close_key(&pl->handles, in, c))
		return;
	struct ipc_rec *o =
	    c->has_ptr && c->ret == 0 ? open_to_end(pl, &pl->opens, c->file, c->ptr, idx, c->t_ns) : NULL;
	if (o) {
		o->closed_by = c;
		c->close_of = o;
		*(struct ipc_rec **)vec_push(&o->owner->recs) = c;
		return;
	}
	*(struct ipc_rec **)vec_push(&r->stray) = c;
}

/* A free ends the exports of the allocation it frees, in the process that
 * exported it.  The handle names the whole allocation (an export of an
 * interior pointer gives the same bytes as one of its base), so every
 * pointer that process exported under the handle stands for it; a
 * successful free of any of them, after the first export, is its free. */
static void match_free(struct hmap *exports, struct ipc_rec *fr)
{
	struct vec *v = fptr_get(exports, fr->file, fr->ptr);
	for (size_t i = 0; v && i < v->len; i++) {
		struct ipc_handle *h = *(struct ipc_handle **)vec_at(v, i);
		if (!h->free && h->export && h->export->t_ns <= fr->t_ns &&
		    !strcmp(h->export->vendor, fr->vendor)) {
			h->free = fr;
			*(struct ipc_rec **)vec_push(&h->recs) = fr;
		}
	}
}

/* Registers an export's pointer as one of its allocation's, once. */
static void note_export(struct hmap *exports, struct ipc_handle *h, const struct ipc_rec *rec)
{
	struct vec *v = by_fptr(exports, rec->file, rec->ptr);
	for (size_t i = 0; i < v->len; i++)
		if (*(struct ipc_handle **)vec_at(v, i) == h)
			return;
	*(struct ipc_handle **)vec_push(v) = h;
}

/* A destroy ends the imported event it destroys (the latest open that gave
 * it, not yet destroyed), else the exports of the event. */
static void match_destroy(struct places *pl, struct ipc_rec *d, uint32_t idx)
{
	struct ipc_rec *o = open_to_end(pl, &pl->ev_opens, d->file, d->ptr, idx, d->t_ns);
	if (o) {
		o->closed_by = d;
		d->close_of = o;
		*(struct ipc_rec **)vec_push(&o->owner->recs) = d;
		return;
	}
	struct vec *v = fptr_get(&pl->ev_exports, d->file, d->ptr);
	for (size_t i = 0; v && i < v->len; i++) {
		struct ipc_handle *h = *(struct ipc_handle **)vec_at(v, i);
		if (!h->free && h->export && h->export->t_ns <= d->t_ns) {
			h->free = d;
			*(struct ipc_rec **)vec_push(&h->recs) = d;
		}
	}
}

/* Record idx of pl->recs, in time order. */
static void place(struct ipc_report *r, struct places *pl, const struct pw_input *in, uint32_t idx)
{
	struct ipc_rec *rec = *(struct ipc_rec **)vec_at(pl->recs, idx);
	bool ev = rec->op == OP_EV_EXPORT || rec->op == OP_EV_OPEN;
	if (rec->op >= OP_VMM_CREATE)
		return; /* derive_shared */
	if (rec->op == OP_CLOSE) {
		match_close(r, pl, in, rec, idx);
		return;
	}
	if (rec->op == OP_FREE) {
		match_free(&pl->exports, rec);
		return;
	}
	if (rec->op == OP_EV_DESTROY) {
		match_destroy(pl, rec, idx);
		return;
	}
	if (!rec->has_handle)
		return; /* a failed export has no handle: nothing to follow */
	struct ipc_handle *h = handle_of(r, &pl->handles, in, rec, ev);
	rec->owner = h;
	*(struct ipc_rec **)vec_push(&h->recs) = rec;
	bool exported = (rec->op == OP_EXPORT || rec->op == OP_EV_EXPORT) && rec->ret == 0;
	if (exported && !h->export)
		h->export = rec;
	/* the same process's later exports of the allocation (its base after an
	 * interior pointer, say) name it too */
	if (exported && rec->has_ptr && rec->file == h->export->file)
		note_export(rec->op == OP_EXPORT ? &pl->exports : &pl->ev_exports, h, rec);
	/* an open that returned a pointer is in pl->opens (pl->ev_opens) from the start */
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

/* A mapping is per process and context, counted: the opens of one handle
 * that returned one pointer in one process, left open at the end, are one
 * leak; its first open names it. */
struct mapping_left {
	size_t file;
	uint64_t ptr;
	const struct ipc_rec *first;
	int opens;
};

/* " (the open failed: CUDA_ERROR_INVALID_HANDLE)" for a call the runtime
 * refused, "" for one it took. */
static const char *refused(const struct ipc_rec *x, const char *what, char *buf, size_t len)
{
	if (!x->ret)
		return "";
	snprintf(buf, len, " (%s: %s)", what, x->ret_name ? x->ret_name : "an error");
	return buf;
}

static void findings_of_open(struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h,
                             const struct ipc_rec *o)
{
	char t_open[32], t_free[32], t_close[32], why[96];
	const struct pw_file *imp = &in->files[o->file],
	                     *exp = h->export ? &in->files[h->export->file] : NULL;
	char *hs = short_handle(h->handle), *il = proc_label(imp), *el = exp ? proc_label(exp) : xstrdup("?");
	int64_t origin = r->origin[o->file];
	fmt_rel(t_open, sizeof t_open, o->t_ns, origin);
	if (h->free)
		fmt_rel(t_free, sizeof t_free, h->free->t_ns, origin);
	bool ended = ipc_open_ended(o);
	if (ended)
		fmt_rel(t_close, sizeof t_close, ipc_open_end_t(o), origin);
	/* open at the free: closed after it, or never closed by a process still running then */
	if (o->ret == 0 && h->free && o->t_ns < h->free->t_ns &&
	    (ended ? ipc_open_end_t(o) > h->free->t_ns : ipc_alive_at(imp, h->free->t_ns)))
		add_finding(
		    r, "ipc.free-while-open", SEV_ERROR, h->free,
		    xasprintf("%s freed 0x%llx at %s while %s still had it open through IPC handle %s "
		              "(opened at %s, %s%s)",
		              el, (unsigned long long)h->free->ptr, t_free, il, hs, t_open,
		              ended ? "closed at " : "never closed", ended ? t_close : ""));
	/* ACL: "Only after process B calls aclrtIpcMemClose ... can process A
	 * disable IPC-based memory sharing": an import open at the exporter's
	 * close of the key, as at a free */
	if (o->ret == 0 && h->closed && o->t_ns < h->closed->t_ns &&
	    (ended ? ipc_open_end_t(o) > h->closed->t_ns : ipc_alive_at(imp, h->closed->t_ns))) {
		char t_kc[32];
		fmt_rel(t_kc, sizeof t_kc, h->closed->t_ns, origin);
		add_finding(r, "ipc.free-while-open", SEV_ERROR, h->closed,
		            xasprintf("%s closed the key of IPC handle %s at %s while %s still had it open "
		                      "(opened at %s, %s%s)",
		                      el, hs, t_kc, il, t_open, ended ? "closed at " : "never closed",
		                      ended ? t_close : ""));
	}
	/* stale whether or not the runtime refused it (a refusal is what a
	 * stale handle mostly gets) */
	if (h->free && o->t_ns > h->free->t_ns)
		add_finding(r, "ipc.open.stale", SEV_ERROR, o,
		            xasprintf("%s opened IPC handle %s at %s, after %s freed the allocation at %s%s",
		                      il, hs, t_open, el, t_free,
		                      refused(o, "the open failed", why, sizeof why)));
	free(hs);
	free(il);
	free(el);
}

/* The mappings of h left open: grouped by (process, pointer) in open order. */
static void leaks_of(struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h)
{
	struct vec left;
	vec_init(&left, sizeof(struct mapping_left));
	for (size_t j = 0; j < h->recs.len; j++) {
		const struct ipc_rec *o = *(struct ipc_rec **)vec_at(&h->recs, j);
		if (o->op != OP_OPEN || o->ret != 0 || ipc_open_ended(o) ||
		    (h->export && o->file == h->export->file))
			continue;
		/* a process whose trace ends early died: its mappings went with it */
		if (in->files[o->file].partial)
			continue;
		struct mapping_left *m = NULL;
		for (size_t k = 0; k < left.len && !m; k++) {
			struct mapping_left *c = vec_at(&left, k);
			if (c->file == o->file && c->ptr == o->ptr)
				m = c;
		}
		if (!m) {
			m = vec_push(&left);
			*m = (struct mapping_left){o->file, o->ptr, o, 0};
		}
		uintptr_t key = (uintptr_t)o;
		void *more = r->more_opens.len ? hmap_get(&r->more_opens, &key, sizeof key) : NULL;
		m->opens += 1 + (int)(uintptr_t)more; /* and the mapping's opens let go (ipcsink.c) */
	}
	for (size_t k = 0; k < left.len; k++) {
		const struct mapping_left *m = vec_at(&left, k);
		const struct pw_file *imp = &in->files[m->file];
		char t_open[32];
		char *hs = short_handle(h->handle), *il = proc_label(imp),
		     *el = h->export ? proc_label(&in->files[h->export->file]) : xstrdup("no traced process");
		fmt_rel(t_open, sizeof t_open, m->first->t_ns, r->origin[m->file]);
		add_finding(
		    r, "ipc.leak", SEV_WARNING, m->first,
		    xasprintf("%s opened IPC handle %s (exported by %s) at %s and never closed the mapping "
		              "at 0x%llx (%d open%s)",
		              il, hs, el, t_open, (unsigned long long)m->ptr, m->opens,
		              m->opens == 1 ? "" : "s"));
		free(hs);
		free(il);
		free(el);
	}
	vec_free(&left);
}

/* The opens of a handle no traced process of the run exported. */
static void unexported(struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h)
{
	for (size_t j = 0; j < h->recs.len; j++) {
		const struct ipc_rec *o = *(struct ipc_rec **)vec_at(&h->recs, j);
		if (o->op != OP_OPEN)
			continue;
		const struct pw_file *f = &in->files[o->file];
		char *hs = short_handle(h->handle), *il = proc_label(f),
		     *run = sanitize(ipc_run_of(in, o->file));
		add_finding(
		    r, "ipc.open.unexported", SEV_WARNING, o,
		    xasprintf("%s opened IPC handle %s, which no trace of run %s on this host exported%s: "
		              "whether an untraced process exported it cannot be known from these traces",
		              il, hs, *run ? run : "(none)",
		              o->ret == 0 ? " (the driver mapped it)" : " (the driver refused it)"));
		free(hs);
		free(il);
		free(run);
	}
}

/* Imported events never destroyed, and the exporter's destroy of an event
 * another process still had. */
static void event_findings(struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h)
{
	const struct ipc_rec *d = h->free;
	for (size_t j = 0; j < h->recs.len; j++) {
		const struct ipc_rec *o = *(struct ipc_rec **)vec_at(&h->recs, j);
		if (o->op != OP_EV_OPEN || o->ret != 0 || (h->export && o->file == h->export->file))
			continue;
		const struct pw_file *imp = &in->files[o->file];
		char t_open[32], t_d[32];
		char *hs = short_handle(h->handle), *il = proc_label(imp),
		     *el = h->export ? proc_label(&in->files[h->export->file]) : xstrdup("?");
		fmt_rel(t_open, sizeof t_open, o->t_ns, r->origin[o->file]);
		if (d && o->t_ns < d->t_ns &&
		    (o->closed_by ? o->closed_by->t_ns > d->t_ns : ipc_alive_at(imp, d->t_ns))) {
			fmt_rel(t_d, sizeof t_d, d->t_ns, r->origin[o->file]);
			add_finding(
			    r, "ipc.event.destroy-while-open", SEV_WARNING, d,
			    xasprintf(
			        "%s destroyed event 0x%llx at %s while %s still had it open through IPC "
			        "handle %s (opened at %s, %s)",
			        el, (unsigned long long)d->ptr, t_d, il, hs, t_open,
			        o->closed_by ? "destroyed after" : "never destroyed"));
		}
		if (!o->closed_by && !imp->partial)
			add_finding(
			    r, "ipc.event.leak", SEV_WARNING, o,
			    xasprintf(
			        "%s opened IPC event handle %s (exported by %s) at %s and never destroyed "
			        "the event 0x%llx it gave",
			        il, hs, el, t_open, (unsigned long long)o->ptr));
		free(hs);
		free(il);
		free(el);
	}
}

/*
 * ipc.open.unreachable, from the two processes' device lines: the exporter's
 * device by UUID, the importer's name for it, and whether the importer's
 * device can access it (its "peers" answer).  An open whose devices either
 * trace does not identify cannot be checked (counted).
 */

static void unreachable(struct ipc_report *r, const struct pw_input *in, const struct ipc_handle *h,
                        const struct ipc_rec *o)
{
	const struct ipc_rec *e = h->export;
	const struct pw_file *fe = &in->files[e->file], *fo = &in->files[o->file];
	const struct pw_device *de, *dc, *di = NULL;
	enum ipc_reach reach = ipc_reach(in, e, o, &de, &dc, &di);
	if (reach == IPC_REACH_UNKNOWN)
		r->unreachable_unknown++;
	if (reach != IPC_REACH_NOT)
		return;
	char t_open[32];
	char *il = proc_label(fo), *el = proc_label(fe);
	fmt_rel(t_open, sizeof t_open, o->t_ns, r->origin[o->file]);
	add_finding(r, "ipc.open.unreachable", SEV_ERROR, o,
	            xasprintf("%s opened at %s, on its device %lld (%s), memory that %s exported from its "
	                      "device %lld (%s, the importer's device %lld), but the importer's device "
	                      "lines say the first cannot access the second: no mapping is possible",
	                      il, t_open, (long long)dc->ordinal, dc->uuid, el, (long long)de->ordinal,
	                      de->uuid, (long long)di->ordinal));
	free(il);
	free(el);
}

/* The findings of one handle's life. */
static void derive_handle(struct ipc_report *r, const struct pw_input *in, struct ipc_handle *h)
{
	if (h->event) {
		event_findings(r, in, h);
		return;
	}
	if (!h->export)
		unexported(r, in, h);
	for (size_t j = 0; j < h->recs.len; j++) {
		struct ipc_rec *o = *(struct ipc_rec **)vec_at(&h->recs, j);
		/* an open in the exporting process itself is refused by CUDA: skip */
		if (o->op != OP_OPEN || (h->export && o->file == h->export->file))
			continue;
		findings_of_open(r, in, h, o);
		if (h->export)
			unreachable(r, in, h, o);
		else
			r->open_no_export++;
	}
	leaks_of(r, in, h);
}

static void derive_findings(struct ipc_report *r, const struct pw_input *in)
{
	if (!in->files)
		return;
	for (size_t i = 0; i < r->handles.len; i++) {
		struct ipc_handle *h = *(struct ipc_handle **)vec_at(&r->handles, i);
		size_t from = r->findings.len;
		derive_handle(r, in, h);
		for (size_t k = from; k < r->findings.len; k++)
			((struct ipc_finding *)vec_at(&r->findings, k))->handle = h;
	}
}

static int by_first_time_shared(const void *a, const void *b)
{
	const struct ipc_shared *x = *(struct ipc_shared *const *)a, *y = *(struct ipc_shared *const *)b;
	const struct ipc_rec *rx = *(struct ipc_rec **)vec_at(&x->recs, 0),
	                     *ry = *(struct ipc_rec **)vec_at(&y->recs, 0);
	int c = by_time(&rx, &ry);
	return c ? c : strcmp(x->key, y->key);
}

static int by_first_time(const void *a, const void *b)
{
	const struct ipc_handle *x = *(struct ipc_handle *const *)a, *y = *(struct ipc_handle *const *)b;
	const struct ipc_rec *rx = *(struct ipc_rec **)vec_at(&x->recs, 0),
	                     *ry = *(struct ipc_rec **)vec_at(&y->recs, 0);
	return by_time(&rx, &ry);
}

/* ---- VMM and pool IPC: one life per shared allocation ---- */

/* Per process, in call order: t_ns, then seq (threads take seq numbers in
 * blocks: between threads seq alone is not the order of the calls). */
static int by_file_seq(const void *a, const void *b)
{
	const struct ipc_rec *x = *(struct ipc_rec *const *)a, *y = *(struct ipc_rec *const *)b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct span {
	uint64_t ptr, bytes;
	const char *key;
};

/* The key of the mapping a pointer is in (the latest such). */
static const char *key_at(const struct hmap *p2k, const struct vec *spans, uint64_t ptr)
{
	const char *k = hmap_get_u64(p2k, ptr);
	for (size_t i = spans->len; !k && i-- > 0;) {
		const struct span *sp = vec_at(spans, i);
		if (ptr >= sp->ptr && ptr - sp->ptr < sp->bytes)
			k = sp->key;
	}
	return k;
}

static struct ipc_shared *shared_of(struct ipc_report *r, struct hmap *map, const struct pw_input *in,
                                    const struct ipc_rec *rec, const char *key)
{
	/* one allocation per run: the same key in two runs is two allocations */
	const char *run = ipc_run_of(in, rec->file);
	char *mk = xasprintf("%s%c%s", run, 0, key);
	struct ipc_shared **sh = (struct ipc_shared **)hmap_put(map, mk, strlen(run) + 1 + strlen(key));
	free(mk);
	if (!*sh) {
		*sh = xcalloc(1, sizeof **sh);
		(*sh)->key = xstrdup(key);
		(*sh)->kind = !strncmp(key, "ptr ", 4)    ? "pool pointer"
		              : !strncmp(key, "pool ", 5) ? "pool"
		                                          : "vmm";
		(*sh)->host = in->files[rec->file].host;
		vec_init(&(*sh)->recs, sizeof(struct ipc_rec *));
		*(struct ipc_shared **)vec_push(&r->shared) = *sh;
	}
	return *sh;
}

/* The key a record of one process belongs to, following handles and pointers. */
static const char *link_rec(struct ipc_rec *rec, struct hmap *h2k, struct hmap *pool2k, struct hmap *p2k,
                            struct vec *spans)
{
	const char *k = NULL;
	switch (rec->op) {
	case OP_VMM_EXPORT:
	case OP_VMM_IMPORT:
	case OP_POOL_EXPORT:
	case OP_POOL_IMPORT: return rec->vmm->key;
	case OP_PTR_EXPORT:
	case OP_PTR_IMPORT:
		if (rec->vmm->key && rec->has_ptr)
			*hmap_put_u64(p2k, rec->ptr) = rec->vmm->key;
		return rec->vmm->key;
	case OP_VMM_CREATE:
	case OP_VMM_RELEASE: return rec->vmm->has_vh ? hmap_get_u64(h2k, rec->vmm->vh) : NULL;
	case OP_POOL_ACCESS: return rec->vmm->has_vh ? hmap_get_u64(pool2k, rec->vmm->vh) : NULL;
	case OP_VMM_MAP:
		k = rec->vmm->has_vh ? hmap_get_u64(h2k, rec->vmm->vh) : NULL;
		if (k && rec->has_ptr && rec->ret == 0) {
			*hmap_put_u64(p2k, rec->ptr) = (void *)k;
			struct span *sp = vec_push(spans);
			sp->ptr = rec->ptr;
			sp->bytes = rec->vmm->bytes;
			sp->key = k;
		}
		return k;
	case OP_VMM_RETAIN:
		k = rec->has_ptr ? key_at(p2k, spans, rec->ptr) : NULL;
		if (k && rec->vmm->has_vh)
			*hmap_put_u64(h2k, rec->vmm->vh) = (void *)k;
		return k;
	default: return rec->has_ptr ? key_at(p2k, spans, rec->ptr) : NULL;
	}
}

/*
 * vmm.import.released: the exporter's allocation handle counts its create
 * and retains, less its releases (cuMemRelease); an import by another
 * process of the same host after that count reached 0 imports an
 * allocation its exporter gave up.
 */
static void released_imports(struct ipc_report *r, const struct pw_input *in, const struct ipc_shared *sh)
{
	const struct ipc_rec *exp = NULL, *rel = NULL;
	if (strcmp(sh->kind, "vmm") != 0)
		return;
	for (size_t i = 0; i < sh->recs.len && !exp; i++) {
		const struct ipc_rec *x = *(struct ipc_rec **)vec_at(&sh->recs, i);
		if (x->op == OP_VMM_EXPORT && x->ret == 0 && x->vmm->has_vh)
			exp = x;
	}
	/* only where the rule has the exporter's vendor's words (rules_cites.h):
	 * CUDA's cuMemRelease sentence and CANN's import page; HIP's
	 * hipMemRelease page says nothing of the shareable handles */
	struct rule_cite words;
	if (!exp || !an_rule_words("vmm.import.released", exp->vendor, &words))
		return;
	int refs = 1;
	for (size_t i = 0; i < sh->recs.len; i++) {
		const struct ipc_rec *x = *(struct ipc_rec **)vec_at(&sh->recs, i);
		if (x->file == exp->file && x->vmm->has_vh && x->vmm->vh == exp->vmm->vh && x->ret == 0) {
			if (x->op == OP_VMM_RETAIN)
				refs++;
			else if (x->op == OP_VMM_RELEASE && --refs == 0 && !rel)
				rel = x;
		}
		if (!rel || x->op != OP_VMM_IMPORT || x->file == exp->file || x->t_ns <= rel->t_ns ||
		    strcmp(in->files[x->file].host, in->files[exp->file].host) != 0)
			continue;
		char t_imp[32], t_rel[32], why[96];
		char *il = proc_label(&in->files[x->file]), *el = proc_label(&in->files[exp->file]);
		fmt_rel(t_imp, sizeof t_imp, x->t_ns, r->origin[x->file]);
		fmt_rel(t_rel, sizeof t_rel, rel->t_ns, r->origin[x->file]);
		add_finding(r, "vmm.import.released", SEV_WARNING, x,
		            xasprintf("%s imported at %s a shareable handle of an allocation that %s had "
		                      "released (%s at %s)%s",
		                      il, t_imp, el, rel->api, t_rel,
		                      refused(x, "the import failed", why, sizeof why)));
		free(il);
		free(el);
	}
}

static void derive_shared(struct ipc_report *r, const struct pw_input *in)
{
	struct vec v;
	struct hmap shared;
	vec_init(&v, sizeof(struct ipc_rec *));
	hmap_init(&shared);
	for (size_t i = 0; i < r->recs.len; i++) {
		struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&r->recs, i);
		if (rec->op >= OP_VMM_CREATE || rec->op == OP_FREE)
			*(struct ipc_rec **)vec_push(&v) = rec;
	}
	vec_sort(&v, by_file_seq);
	for (size_t from = 0; from < v.len;) {
		size_t to = from;
		size_t file = (*(struct ipc_rec **)vec_at(&v, from))->file;
		while (to < v.len && (*(struct ipc_rec **)vec_at(&v, to))->file == file)
			to++;
		struct hmap h2k, pool2k, p2k;
		struct vec spans;
		hmap_init(&h2k);
		hmap_init(&pool2k);
		hmap_init(&p2k);
		vec_init(&spans, sizeof(struct span));
		for (size_t i = from; i < to; i++) { /* the handles first: a create comes before its export */
			struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&v, i);
			if (rec->vmm->key && rec->vmm->has_vh &&
			    (rec->op == OP_VMM_EXPORT || rec->op == OP_VMM_IMPORT))
				*hmap_put_u64(&h2k, rec->vmm->vh) = rec->vmm->key;
			if (rec->vmm->key && rec->vmm->has_vh &&
			    (rec->op == OP_POOL_EXPORT || rec->op == OP_POOL_IMPORT))
				*hmap_put_u64(&pool2k, rec->vmm->vh) = rec->vmm->key;
		}
		for (size_t i = from; i < to; i++) {
			struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&v, i);
			const char *k = link_rec(rec, &h2k, &pool2k, &p2k, &spans);
			if (k)
				*(struct ipc_rec **)vec_push(&shared_of(r, &shared, in, rec, k)->recs) = rec;
		}
		hmap_free(&h2k, NULL);
		hmap_free(&pool2k, NULL);
		hmap_free(&p2k, NULL);
		vec_free(&spans);
		from = to;
	}
	for (size_t i = 0; i < r->shared.len; i++)
		vec_sort(&(*(struct ipc_shared **)vec_at(&r->shared, i))->recs, by_time);
	vec_sort(&r->shared, by_first_time_shared);
	/* in the order the report lists the allocations */
	for (size_t i = 0; i < r->shared.len; i++)
		released_imports(r, in, *(struct ipc_shared **)vec_at(&r->shared, i));
	hmap_free(&shared, NULL);
	vec_free(&v);
}

void ipc_derive(struct ipc_report *r, const struct pw_input *in)
{
	struct places pl;
	hmap_free(&r->decided, free); /* the reading's (ipcsink.c), done with */
	hmap_init(&r->decided);
	r->origin = host_origins(in);
	if (!in->n)
		return;
	if (r->recs.len > UINT32_MAX) { /* 480 GiB of records: out of memory long before */
		fprintf(stderr, "peerwatch-analyze: more than %u IPC calls to match\n", UINT32_MAX);
		exit(2);
	}
	pl.recs = &r->recs;
	hmap_init(&pl.handles);
	vec_init(&pl.opens, sizeof(struct open_at));
	hmap_init(&pl.exports);
	vec_init(&pl.ev_opens, sizeof(struct open_at));
	hmap_init(&pl.ev_exports);
	sort_in = in;
	vec_sort(&r->recs, by_time);
	opens_sorted(&pl);
	for (size_t i = 0; i < r->recs.len; i++)
		place(r, &pl, in, (uint32_t)i);
	vec_sort(&r->handles, by_first_time);
	derive_findings(r, in);
	derive_shared(r, in);
	hmap_free(&pl.handles, NULL);
	vec_free(&pl.opens);
	hmap_free(&pl.exports, free_vec);
	vec_free(&pl.ev_opens);
	hmap_free(&pl.ev_exports, free_vec);
}

void ipc_free(struct ipc_report *r)
{
	for (size_t i = 0; i < r->recs.len; i++) {
		const struct ipc_rec *rec = *(struct ipc_rec **)vec_at(&r->recs, i);
		if (rec->vmm != &ipc_vmm_none) {
			free(rec->vmm->key);
			free(rec->vmm->detail);
		}
	}
	vec_free(&r->recs);
	for (size_t i = 0; i < r->pools.len; i++)
		ipc_pool_free(*(struct ipc_pool **)vec_at(&r->pools, i));
	vec_free(&r->pools);
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
	for (size_t i = 0; i < r->shared.len; i++) {
		struct ipc_shared *sh = *(struct ipc_shared **)vec_at(&r->shared, i);
		vec_free(&sh->recs);
		free(sh->key);
		free(sh);
	}
	vec_free(&r->shared);
	hmap_free(&r->decided, free);
	hmap_free(&r->more_opens, NULL);
	free(r->origin);
}

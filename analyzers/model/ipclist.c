/*
 * The listing of the handles' lives (ipclist.h): each file's IPC calls
 * matched in the file's time order, the rows spooled per reading worker,
 * then decided, ranked and sorted into the listing.
 */
#include <stdlib.h>
#include <string.h>

#include "model/ipclist.h"

/* Records of a file held in memory before they are sorted on disk; rows of
 * a worker before they are spooled; rows sorted in memory at the end. */
enum { FILE_RECS = 32 * 1024, PART_ROWS = 16 * 1024, SORT_ROWS = 64 * 1024 };

/* A reading worker's handles and rows. */
struct ipc_lpart {
	struct ipc_list *l;
	struct ipc_pool *pool; /* the records' strings, as long as the listing */
	struct hmap hidx;      /* handle key -> index + 1 in handles */
	struct vec handles;    /* struct ipc_lhandle: first call and first export of this worker's files */
	struct xsort rows;     /* struct ipc_row, spooled */
	struct vec gid;        /* uint32_t: a handle's index in the listing's */
};

/* One file's first successful export of a handle, and whether the file
 * freed it after (its destroy, for an event). */
struct lexp {
	int64_t t_ns;
	uint64_t seq, ptr;
	bool has_ptr, freed;
};

/* An open not yet ended: its handle, its number in the file. */
struct lopen {
	uint32_t hid, serial;
	uint64_t ptr, seq;
	bool has_ptr;
};

struct lfile {
	struct xsort recs; /* struct ipc_rec: the file's IPC calls */
	bool key_close;    /* it closes an ACL key (a close that names a handle, no pointer) */
	/* matching, in time order */
	struct hmap lexp;       /* handle index -> struct lexp */
	struct hmap exports;    /* pointer -> struct vec of uint32_t handle indexes */
	struct hmap ev_exports; /* event -> ... */
	struct hmap live;       /* pointer -> struct vec of struct lopen */
	struct hmap ev_live;    /* event -> ... */
	struct hmap keyed;      /* key_close: handle index -> struct vec of struct lopen */
	struct hmap ended;      /* key_close: serials of opens ended */
	struct hmap hids;       /* struct hkey -> handle index + 1: the file's run and host are one */
	uint32_t serial;
};

static int by_file_time(const void *a, const void *b)
{
	const struct ipc_rec *x = a, *y = b;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The listing's order: handle, host, time, file, seq; then what tells
 * apart the calls of a trace that repeats a seq (one order at any -j). */
static int by_listing(const void *a, const void *b)
{
	const struct ipc_row *x = a, *y = b;
#define CMP(f)            \
	if (x->f != y->f) \
	return x->f < y->f ? -1 : 1
	CMP(grank);
	CMP(hrank);
	CMP(t_ns);
	CMP(file);
	CMP(seq);
	CMP(op);
	CMP(ptr);
	CMP(ret);
	CMP(dev);
	CMP(flags);
#undef CMP
	int c = strcmp(x->api, y->api);
	return c ? c : strcmp(x->ret_name ? x->ret_name : "", y->ret_name ? y->ret_name : "");
}

void ipc_list_init(struct ipc_list *l)
{
	memset(l, 0, sizeof *l);
	vec_init(&l->parts, sizeof(struct ipc_lpart *));
	hmap_init(&l->index);
	vec_init(&l->handles, sizeof(struct ipc_lhandle));
	xsort_init(&l->rows, sizeof(struct ipc_row), SORT_ROWS, by_listing);
}

static void *part_new(void *report)
{
	struct ipc_lpart *p = xcalloc(1, sizeof *p);
	p->l = report;
	p->pool = ipc_pool_new();
	hmap_init(&p->hidx);
	vec_init(&p->handles, sizeof(struct ipc_lhandle));
	xsort_init(&p->rows, sizeof(struct ipc_row), PART_ROWS, NULL);
	vec_init(&p->gid, sizeof(uint32_t));
	return p;
}

static bool earlier(int64_t xt, uint32_t xf, uint64_t xs, int64_t yt, uint32_t yf, uint64_t ys)
{
	if (xt != yt)
		return xt < yt;
	if (xf != yf)
		return xf < yf;
	return xs < ys;
}

/* Folds a worker's handle h into the listing's, returning its index. */
static uint32_t merge_handle(struct ipc_list *l, struct ipc_lhandle *h)
{
	void **at = hmap_put(&l->index, h->key, h->klen);
	if (!*at) {
		struct ipc_lhandle *m = vec_push(&l->handles);
		*m = *h;
		m->key = hmap_key_of(at); /* the index's copy: the worker's goes with its map */
		*at = (void *)(uintptr_t)l->handles.len;
		return (uint32_t)(l->handles.len - 1);
	}
	uint32_t g = (uint32_t)((uintptr_t)*at - 1);
	struct ipc_lhandle *m = vec_at(&l->handles, g);
	if (earlier(h->first_t, h->first_file, h->first_seq, m->first_t, m->first_file, m->first_seq)) {
		m->first_t = h->first_t;
		m->first_file = h->first_file;
		m->first_seq = h->first_seq;
	}
	if (h->exported &&
	    (!m->exported || earlier(h->ex_t, h->ex_file, h->ex_seq, m->ex_t, m->ex_file, m->ex_seq))) {
		m->exported = true;
		m->freed = h->freed;
		m->ex_t = h->ex_t;
		m->ex_file = h->ex_file;
		m->ex_seq = h->ex_seq;
		m->ex_ptr = h->ex_ptr;
	}
	return g;
}

static void part_merge(void *report, void *partial)
{
	struct ipc_list *l = report;
	struct ipc_lpart *p = partial;
	for (size_t i = 0; i < p->handles.len; i++) {
		struct ipc_lhandle *h = vec_at(&p->handles, i);
		*(uint32_t *)vec_push(&p->gid) = merge_handle(l, h);
	}
	vec_free(&p->handles);
	hmap_free(&p->hidx, NULL);
	*(struct ipc_lpart **)vec_push(&l->parts) = p;
}

static void *file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct lfile *c = xcalloc(1, sizeof *c);
	xsort_init(&c->recs, sizeof(struct ipc_rec), FILE_RECS, by_file_time);
	hmap_init(&c->lexp);
	hmap_init(&c->exports);
	hmap_init(&c->ev_exports);
	hmap_init(&c->live);
	hmap_init(&c->ev_live);
	hmap_init(&c->keyed);
	hmap_init(&c->ended);
	hmap_init(&c->hids);
	return c;
}

/* The calls the listing follows: of memory and event handles (VMM and
 * pool sharing is the findings' report's), a free or destroy only when it
 * worked and names what it ends. */
static void list_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct ipc_lpart *p = partial;
	struct lfile *c = fctx;
	enum ipc_op op;
	if (!ipc_call_of(ev, &op) || op >= OP_VMM_CREATE)
		return;
	if ((op == OP_FREE || op == OP_EV_DESTROY) && ev->ret != 0)
		return;
	struct ipc_rec r;
	ipc_rec_fill(&r, p->pool, op, f, ev);
	if ((op == OP_FREE || op == OP_EV_DESTROY) && !r.has_ptr)
		return;
	if (op != OP_CLOSE && op != OP_FREE && op != OP_EV_DESTROY && !r.has_handle)
		return; /* an export or open that names no handle: nothing to follow */
	if (op == OP_CLOSE && !r.has_ptr && r.has_handle && r.ret == 0)
		c->key_close = true;
	xsort_push(&c->recs, &r);
}

/* ---- matching one file ---- */

/* r, a call of h's, may be its first (a file read later can hold an earlier one). */
static void first_call(struct ipc_lhandle *h, const struct ipc_rec *r)
{
	if (earlier(r->t_ns, r->file, r->seq, h->first_t, h->first_file, h->first_seq)) {
		h->first_t = r->t_ns;
		h->first_file = r->file;
		h->first_seq = r->seq;
	}
}

/* The worker's index of r's handle, made when asked (else IPC_ROW_STRAY). */
static uint32_t handle_lookup(struct ipc_lpart *p, const struct pw_file *f, const struct ipc_rec *r,
                              bool event, bool make)
{
	size_t len;
	char *k = ipc_handle_key(f->run_id ? f->run_id : "", f->host, r->vendor, r->handle, event, &len);
	if (!make) {
		void *v = hmap_get(&p->hidx, k, len);
		free(k);
		return v ? (uint32_t)((uintptr_t)v - 1) : IPC_ROW_STRAY;
	}
	void **at = hmap_put(&p->hidx, k, len);
	free(k);
	if (*at) {
		uint32_t hid = (uint32_t)((uintptr_t)*at - 1);
		first_call(vec_at(&p->handles, hid), r);
		return hid;
	}
	struct ipc_lhandle *h = vec_push(&p->handles);
	h->key = hmap_key_of(at); /* the map's copy, as long as the worker's handles */
	h->klen = len;
	h->handle = r->handle;
	h->host = f->host;
	h->vendor = r->vendor;
	h->event = event;
	h->first_t = r->t_ns;
	h->first_file = r->file;
	h->first_seq = r->seq;
	*at = (void *)(uintptr_t)p->handles.len;
	return (uint32_t)(p->handles.len - 1);
}

/* A handle in one file: its bytes and vendor (the worker's interned copies). */
struct hkey {
	const char *handle, *vendor;
	uint64_t event;
};

static uint32_t handle_index(struct ipc_lpart *p, struct lfile *c, const struct pw_file *f,
                             const struct ipc_rec *r, bool event, bool make)
{
	struct hkey hk = {r->handle, r->vendor, event};
	void **cached = hmap_put(&c->hids, &hk, sizeof hk);
	if (*cached) {
		uint32_t hid = (uint32_t)((uintptr_t)*cached - 1);
		if (make)
			first_call(vec_at(&p->handles, hid), r);
		return hid;
	}
	uint32_t hid = handle_lookup(p, f, r, event, make);
	if (hid != IPC_ROW_STRAY)
		*cached = (void *)(uintptr_t)(hid + 1);
	return hid;
}

/* of_seq: with ROW_ENDS, the open it ended. */
static void emit_end(struct ipc_lpart *p, const struct ipc_rec *r, uint32_t group, uint8_t flags,
                     uint64_t of_seq)
{
	struct ipc_row w = {
	    .of_seq = of_seq,
	    .t_ns = r->t_ns,
	    .seq = r->seq,
	    .file = r->file,
	    .group = group,
	    .op = r->op,
	    .flags = (uint8_t)(flags | (r->has_ptr ? ROW_PTR : 0)),
	    .ret = r->ret,
	    .dev = r->dev,
	    .ptr = r->ptr,
	    .api = r->api,
	    .ret_name = r->ret_name,
	    .vendor = r->vendor,
	};
	xsort_push(&p->rows, &w);
}

static void emit(struct ipc_lpart *p, const struct ipc_rec *r, uint32_t group, uint8_t flags)
{
	emit_end(p, r, group, flags, 0);
}

static struct vec *vec_of(struct hmap *m, uint64_t k, size_t esz)
{
	struct vec **v = (struct vec **)hmap_put_u64(m, k);
	if (!*v) {
		*v = xcalloc(1, sizeof **v);
		vec_init(*v, esz);
	}
	return *v;
}

static void free_vec(void *v)
{
	vec_free(v);
	free(v);
}

/* The latest open of v not yet ended, taken out of v; false if none. */
static bool take_open(struct lfile *c, struct vec *v, struct lopen *out)
{
	for (size_t i = v ? v->len : 0; i-- > 0;) {
		struct lopen *o = vec_at(v, i);
		if (c->key_close && hmap_get_u64(&c->ended, o->serial))
			continue;
		*out = *o;
		memmove(o, o + 1, (v->len - i - 1) * sizeof *o);
		v->len--;
		if (c->key_close)
			*hmap_put_u64(&c->ended, out->serial) = (void *)1;
		return true;
	}
	return false;
}

/* An export or open: its handle's row; an export's pointer noted for the
 * free that ends it, an open's for its close. */
static void place_handle_call(struct ipc_lpart *p, struct lfile *c, const struct pw_file *f,
                              const struct ipc_rec *r)
{
	bool event = r->op == OP_EV_EXPORT || r->op == OP_EV_OPEN;
	uint32_t hid = handle_index(p, c, f, r, event, true);
	emit(p, r, hid, 0);
	if (r->ret != 0)
		return;
	if (r->op == OP_EXPORT || r->op == OP_EV_EXPORT) {
		struct lexp **e = (struct lexp **)hmap_put_u64(&c->lexp, hid);
		if (!*e) {
			*e = xcalloc(1, sizeof **e);
			**e = (struct lexp){r->t_ns, r->seq, r->ptr, r->has_ptr, false};
		}
		if (!r->has_ptr)
			return;
		struct vec *v =
		    vec_of(r->op == OP_EXPORT ? &c->exports : &c->ev_exports, r->ptr, sizeof(uint32_t));
		for (size_t i = 0; i < v->len; i++)
			if (*(uint32_t *)vec_at(v, i) == hid)
				return;
		*(uint32_t *)vec_push(v) = hid;
		return;
	}
	struct lopen o = {hid, c->serial++, r->ptr, r->seq, r->has_ptr};
	if (r->has_ptr)
		*(struct lopen *)vec_push(
		    vec_of(r->op == OP_OPEN ? &c->live : &c->ev_live, r->ptr, sizeof o)) = o;
	if (c->key_close && r->op == OP_OPEN)
		*(struct lopen *)vec_push(vec_of(&c->keyed, hid, sizeof o)) = o;
}

/* A free (destroy) ends the exports of its pointer (event) in the file
 * that first exported their handle, once, after that export. */
static void place_free(struct ipc_lpart *p, struct lfile *c, const struct ipc_rec *r)
{
	const struct vec *v = hmap_get_u64(r->op == OP_FREE ? &c->exports : &c->ev_exports, r->ptr);
	for (size_t i = 0; v && i < v->len; i++) {
		uint32_t hid = *(uint32_t *)vec_at(v, i);
		struct lexp *e = hmap_get_u64(&c->lexp, hid);
		const struct ipc_lhandle *h = vec_at(&p->handles, hid);
		if (e->freed || e->t_ns > r->t_ns || (r->op == OP_FREE && strcmp(h->vendor, r->vendor)))
			continue;
		e->freed = true;
		emit(p, r, hid, ROW_IF_EXPORTER);
	}
}

/* An ACL close of a key: the file's latest open of the handle not yet
 * ended, else the exporter's own close.  False: neither. */
static bool place_key_close(struct ipc_lpart *p, struct lfile *c, const struct pw_file *f, struct ipc_rec *r)
{
	uint32_t hid = handle_index(p, c, f, r, false, false);
	if (hid == IPC_ROW_STRAY)
		return false;
	struct lopen o;
	if (take_open(c, hmap_get_u64(&c->keyed, hid), &o)) {
		r->ptr = o.ptr; /* the mapping it ends */
		r->has_ptr = o.has_ptr;
		emit_end(p, r, hid, ROW_ENDS, o.seq);
		return true;
	}
	if (!hmap_get_u64(&c->lexp, hid))
		return false;
	emit(p, r, hid, ROW_IF_EXPORTER | ROW_ELSE_STRAY);
	return true;
}

static void place(struct ipc_lpart *p, struct lfile *c, const struct pw_file *f, struct ipc_rec *r)
{
	struct lopen o;
	switch (r->op) {
	case OP_CLOSE:
		if (!r->has_ptr && r->has_handle && r->ret == 0 && place_key_close(p, c, f, r))
			return;
		if (r->has_ptr && r->ret == 0 && take_open(c, hmap_get_u64(&c->live, r->ptr), &o))
			emit_end(p, r, o.hid, ROW_ENDS, o.seq);
		else
			emit(p, r, IPC_ROW_STRAY, 0);
		return;
	case OP_FREE: place_free(p, c, r); return;
	case OP_EV_DESTROY:
		if (take_open(c, hmap_get_u64(&c->ev_live, r->ptr), &o))
			emit_end(p, r, o.hid, ROW_ENDS, o.seq);
		else
			place_free(p, c, r);
		return;
	default: place_handle_call(p, c, f, r);
	}
}

static void file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct ipc_lpart *p = partial;
	struct lfile *c = fctx;
	xsort_done(&c->recs);
	for (size_t i = 0; i < xsort_len(&c->recs); i++) {
		struct ipc_rec r = *(const struct ipc_rec *)xsort_at(&c->recs, i);
		place(p, c, f, &r);
	}
	/* the file's first exports, each of its handle's the earliest so far */
	for (size_t i = 0; i < c->lexp.cap; i++) {
		if (!c->lexp.slots[i].key)
			continue;
		uint32_t hid = (uint32_t) * (uint64_t *)c->lexp.slots[i].key;
		const struct lexp *e = c->lexp.slots[i].val;
		struct ipc_lhandle *h = vec_at(&p->handles, hid);
		uint32_t file = (uint32_t)f->index;
		if (h->exported && !earlier(e->t_ns, file, e->seq, h->ex_t, h->ex_file, h->ex_seq))
			continue;
		h->exported = true;
		h->freed = e->freed;
		h->ex_t = e->t_ns;
		h->ex_file = file;
		h->ex_seq = e->seq;
		h->ex_ptr = e->has_ptr ? e->ptr : 0;
	}
	xsort_free(&c->recs);
	hmap_free(&c->lexp, free);
	hmap_free(&c->exports, free_vec);
	hmap_free(&c->ev_exports, free_vec);
	hmap_free(&c->live, free_vec);
	hmap_free(&c->ev_live, free_vec);
	hmap_free(&c->keyed, free_vec);
	hmap_free(&c->ended, NULL);
	hmap_free(&c->hids, NULL);
	free(c);
}

const struct pw_sink_ops ipc_list_ops = {
    .partial_new = part_new,
    .partial_merge = part_merge,
    .file_begin = file_begin,
    .event = list_event,
    .file_end = file_end,
    .nesting = true,
};

/* ---- the listing ---- */

static int by_first_call(const void *a, const void *b)
{
	const struct ipc_lhandle *x = a, *y = b;
	int h = strcmp(x->host, y->host);
	if (h)
		return h;
	if (x->first_t != y->first_t)
		return x->first_t < y->first_t ? -1 : 1;
	if (x->first_file != y->first_file)
		return x->first_file < y->first_file ? -1 : 1;
	if (x->first_seq != y->first_seq)
		return x->first_seq < y->first_seq ? -1 : 1;
	return x->klen != y->klen ? (x->klen < y->klen ? -1 : 1) : memcmp(x->key, y->key, x->klen);
}

static const char *const *host_names; /* qsort has no context argument */

static int by_host(const void *a, const void *b)
{
	return strcmp(host_names[*(const uint32_t *)a], host_names[*(const uint32_t *)b]);
}

/* Each file's host's place among the hosts, by name. */
static uint32_t *host_ranks(const struct pw_input *in)
{
	uint32_t *order = xcalloc(in->n + 1, sizeof *order), *rank = xcalloc(in->n + 1, sizeof *rank);
	const char **names = xcalloc(in->n + 1, sizeof *names);
	for (size_t i = 0; i < in->n; i++) {
		order[i] = (uint32_t)i;
		names[i] = in->files[i].host;
	}
	host_names = names;
	qsort(order, in->n, sizeof *order, by_host);
	for (size_t i = 0, r = 0; i < in->n; i++) {
		if (i && strcmp(names[order[i]], names[order[i - 1]]))
			r++;
		rank[order[i]] = (uint32_t)r;
	}
	free(order);
	free(names);
	return rank;
}

void ipc_list_done(struct ipc_list *l, const struct pw_input *in)
{
	/* the handles in the listing's order; a worker's index to the place */
	size_t nh = l->handles.len;
	uint32_t *place_of = xcalloc(nh + 1, sizeof *place_of);
	struct ipc_lhandle *hs = l->handles.data;
	for (size_t i = 0; i < nh; i++)
		hs[i].row0 = i; /* its index before the sort */
	/* hs is NULL without a handle: no qsort of it */
	if (nh)
		qsort(hs, nh, sizeof *hs, by_first_call);
	for (size_t i = 0; i < nh; i++) {
		place_of[hs[i].row0] = (uint32_t)i;
		hs[i].row0 = 0;
		*hmap_put(&l->index, hs[i].key, hs[i].klen) = (void *)(uintptr_t)(i + 1);
	}
	uint32_t *hrank = host_ranks(in);
	for (size_t k = 0; k < l->parts.len; k++) {
		struct ipc_lpart *p = *(struct ipc_lpart **)vec_at(&l->parts, k);
		xsort_done(&p->rows);
		for (size_t i = 0; i < xsort_len(&p->rows); i++) {
			struct ipc_row w = *(const struct ipc_row *)xsort_at(&p->rows, i);
			uint32_t g = w.group == IPC_ROW_STRAY
			                 ? IPC_ROW_STRAY
			                 : place_of[*(uint32_t *)vec_at(&p->gid, w.group)];
			if (g != IPC_ROW_STRAY && (w.flags & ROW_IF_EXPORTER) &&
			    !(hs[g].exported && hs[g].ex_file == w.file)) {
				if (!(w.flags & ROW_ELSE_STRAY))
					continue;
				g = IPC_ROW_STRAY;
			}
			w.grank = g;
			w.hrank = hrank[w.file];
			xsort_push(&l->rows, &w);
		}
		xsort_free(&p->rows);
	}
	free(hrank);
	free(place_of);
	xsort_done(&l->rows);
	/* each handle's rows: one pass in order */
	size_t n = xsort_len(&l->rows);
	l->stray0 = n;
	for (size_t i = 0; i < n; i++) {
		const struct ipc_row *w = xsort_at(&l->rows, i);
		if (w->grank == IPC_ROW_STRAY) {
			l->stray0 = i;
			break;
		}
		if (!hs[w->grank].nrows++)
			hs[w->grank].row0 = i;
	}
}

uint32_t ipc_list_rank(const struct ipc_list *l, const char *k, size_t klen)
{
	void *at = hmap_get(&l->index, k, klen);
	return at ? (uint32_t)((uintptr_t)at - 1) : IPC_ROW_STRAY;
}

void ipc_list_free(struct ipc_list *l)
{
	for (size_t k = 0; k < l->parts.len; k++) {
		struct ipc_lpart *p = *(struct ipc_lpart **)vec_at(&l->parts, k);
		ipc_pool_free(p->pool);
		xsort_free(&p->rows);
		vec_free(&p->gid);
		free(p);
	}
	vec_free(&l->parts);
	vec_free(&l->handles);
	hmap_free(&l->index, NULL);
	xsort_free(&l->rows);
}

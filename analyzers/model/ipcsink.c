/*
 * The IPC calls of the traces kept as records (ipclife.h, ipc_ops): which
 * calls the report follows, by op, and what each record holds; the
 * pointers and events whose frees and destroys matter are learnt in each
 * file's pre-phase.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/ipclife.h"
#include "read/reader.h"

/* ---- a worker's records: an arena and interned strings ---- */

const struct ipc_vmm ipc_vmm_none;

enum { ARENA_CHUNK = 64 * 1024 };

/* Records and VMM parts, carved from chunks, freed with the report. */
/* What a record's strings were last interned as, by kind: a worker's
 * calls mostly repeat their vendor, api and result. */
enum { LAST_VENDOR, LAST_API, LAST_RET, NLAST };

struct ipc_pool {
	struct vec chunks; /* char * */
	size_t used;       /* in the last chunk */
	struct hmap strs;  /* text -> its one copy (the map's own) */
	const char *last[NLAST];
};

static void *pool_alloc(struct ipc_pool *p, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!p->chunks.len || p->used + n > ARENA_CHUNK) {
		*(char **)vec_push(&p->chunks) = xmalloc(ARENA_CHUNK);
		p->used = 0;
	}
	char *at = *(char **)vec_at(&p->chunks, p->chunks.len - 1) + p->used;
	p->used += n;
	memset(at, 0, n);
	return at;
}

static const char *intern(struct ipc_pool *p, const char *s)
{
	void **v = hmap_put_str(&p->strs, s);
	if (!*v)
		*v = (void *)hmap_key_of(v); /* the map's copy is the one */
	return *v;
}

/* intern, first trying the string of this kind interned last (a compare
 * of a few bytes against a hash of them and a probe). */
static const char *intern_as(struct ipc_pool *p, int kind, const char *s)
{
	if (p->last[kind] && !strcmp(p->last[kind], s))
		return p->last[kind];
	return p->last[kind] = intern(p, s);
}

/* The vendor as the record keeps it: its first 7 bytes, interned (no
 * snprintf: two for every IPC call were a tenth of the sink's time). */
static const char *vendor_of(struct ipc_pool *pool, const struct pw_event *ev)
{
	const char *v = ev->vendor ? ev->vendor : "(null)";
	char vendor[8];
	size_t vn = strnlen(v, sizeof vendor - 1);
	memcpy(vendor, v, vn);
	vendor[vn] = 0;
	return intern_as(pool, LAST_VENDOR, vendor);
}

void ipc_pool_free(struct ipc_pool *p)
{
	for (size_t i = 0; i < p->chunks.len; i++)
		free(*(char **)vec_at(&p->chunks, i));
	vec_free(&p->chunks);
	hmap_free(&p->strs, NULL);
	free(p);
}

/* ---- collecting: the sink ---- */

/* check's pre-phase (ipc_findings_ops): a successful memory export, the
 * earliest of its handle, vendor and pointer in its file, and a successful
 * free of a pointer the file exported; nested ones until the file's seqs
 * say whether their parent is in it. */
struct pre_export {
	const char *handle, *vendor; /* the partial's interned copies */
	uint64_t ptr, seq, parent;
	int64_t t_ns, dev;
	uint32_t file;
	bool has_ptr, has_parent;
};

struct pre_free {
	const char *vendor;
	uint64_t ptr, seq, parent;
	int64_t t_ns;
	uint32_t file;
	bool has_parent;
};

/* A memory handle's export and its exporter's free, as ipc_derive will
 * find them (match_free), learnt before any event phase. */
struct ipc_decided {
	int64_t t_ns, dev; /* the export's */
	uint64_t seq;
	const char *vendor;
	uint32_t file;
	bool exact; /* the exporter's exports and frees were in time order in its file */
	bool has_free;
	int64_t free_t;
	uint64_t free_seq;
};

/* The decided map's key of a memory handle (ipclife.c's key's parts: run,
 * host, vendor, the handle), its 128 hex digits as 64 bytes: a run of
 * thousands of processes has a key per exported handle.  Returns its
 * length in k (DECIDED_KEY bytes). */
enum { DECIDED_KEY = 512 };
static size_t decided_key(char *k, const struct pw_input *in, uint32_t file, const char *vendor,
                          const char *handle)
{
	int n = snprintf(k, DECIDED_KEY - 64, "%.128s%c%.128s%c%.16s%c", ipc_run_of(in, file), 0,
	                 in->files[file].host, 0, vendor, 0);
	size_t at = n > 0 ? (size_t)n : 0, hl = strnlen(handle, 128);
	for (size_t i = 0; i + 1 < hl; i += 2) {
		int hi = hex_digit(handle[i]), lo = hex_digit(handle[i + 1]);
		if (hi < 0 || lo < 0) { /* not hex (pw_arg_handle's are): the text */
			memcpy(k + at, handle, hl);
			return at + hl;
		}
		k[at++] = (char)(hi << 4 | lo);
	}
	return at;
}

struct ipc_partial {
	struct ipc_report *report;
	struct vec recs; /* struct ipc_rec * */
	struct ipc_pool *pool;
	/* deciding (ipc_findings_ops) */
	struct vec pexports;     /* struct pre_export, every file's this worker pre-read */
	struct vec pfrees;       /* struct pre_free */
	struct vec xf_unordered; /* uint32_t: files whose exports and frees are not in time order */
	bool key_close;          /* a file closes an ACL key */
	struct vec spare;        /* struct ipc_rec *: opens let go, for the next */
	size_t not_kept, unreachable_unknown;
	struct hmap more; /* a mapping's first open kept -> its later opens let go */
};

struct ipc_fctx {
	struct hmap exported; /* pointers this file exported (pre-phase) */
	struct hmap events;   /* events this file exported or an event open gave it (pre-phase) */
	struct hmap first;    /* findings only: (op, vendor, handle, pointer) -> the earliest export */
	/* the pre-phase: are the file's memory opens and closes in time order
	 * (t_ns, then seq), and does it close no ACL key?  Then (findings only)
	 * its closes are folded into their opens as they are read */
	bool unordered;
	bool any;
	int64_t last_t;
	uint64_t last_seq;
	struct vec nested; /* the pre-phase: the parents of nested opens and closes (uint64_t) */
	struct hmap live;  /* folding: pointer -> struct vec of its opens not yet closed, in order */
	/* deciding: the pre-phase's exports (deduplicated: key -> index + 1)
	 * and frees, and whether they come in time order */
	struct hmap pexp;
	struct vec pexports, pfrees;
	struct vec pnested; /* struct pre_export: nested exports, until pre_done */
	bool xf_any, xf_unordered, key_close;
	int64_t xf_t;
	uint64_t xf_seq;
	bool decide; /* the event phase decides this file's opens (its closes fold) */
};

/* ---- deciding an open as it ends (ipc_findings_ops) ---- */

/* What becomes of an open decided: kept (a finding may name it), one more
 * open of a mapping left open (counted with the mapping's first open, which
 * is kept: ipc.leak), or let go. */
enum fate { KEEP, LEFT_OPEN, GO };

/*
 * The fate of the open o, ended (its close folded into it), refused, or
 * still open at the end of its file f: kept where ipc_derive may name it —
 * its handle exported by no traced process (ipc.open.unexported), open at
 * the exporter's free or opened after it (ipc.free-while-open,
 * ipc.open.stale), or devices that say it could not reach the memory
 * (ipc.open.unreachable; where they do not say, *unknown, which ipc_derive
 * counts).  An open in the exporting process itself is named by none, and
 * a mapping a process killed left open is no leak.
 */
static enum fate fate_of(const struct ipc_partial *p, const struct ipc_rec *o, const struct pw_file *f,
                         bool *unknown)
{
	const struct ipc_report *r = p->report;
	const struct pw_input *in = r->in;
	char k[DECIDED_KEY];
	const struct ipc_decided *d =
	    hmap_get(&r->decided, k, decided_key(k, in, o->file, o->vendor, o->handle));
	*unknown = false;
	if (!d)
		return KEEP;
	if (d->file == o->file)
		return GO;
	if (!d->exact)
		return KEEP;
	bool at_free = o->folded ? o->folded_t > d->free_t : ipc_alive_at(f, d->free_t);
	if (d->has_free && (o->t_ns > d->free_t || (o->ret == 0 && o->t_ns < d->free_t && at_free)))
		return KEEP;
	const struct pw_device *de, *dc, *di;
	struct ipc_rec e = {.file = d->file, .dev = d->dev, .vendor = d->vendor};
	enum ipc_reach reach = ipc_reach(in, &e, o, &de, &dc, &di);
	if (reach == IPC_REACH_NOT)
		return KEEP;
	*unknown = reach == IPC_REACH_UNKNOWN;
	return !o->folded && o->ret == 0 && !f->partial ? LEFT_OPEN : GO;
}

static void let_go(struct ipc_partial *p, struct ipc_rec *o, bool unknown)
{
	*(struct ipc_rec **)vec_push(&p->spare) = o;
	p->not_kept++;
	p->unreachable_unknown += unknown;
}

/* An open ended (its close folded) or refused, decided. */
static void decided(struct ipc_partial *p, struct ipc_rec *o, const struct pw_file *f)
{
	bool unknown;
	if (fate_of(p, o, f, &unknown) == KEEP)
		*(struct ipc_rec **)vec_push(&p->recs) = o;
	else
		let_go(p, o, unknown);
}

/* The opens of one pointer left open at the end of file f, in the order
 * read (time order: the file is in order), decided: of each handle's, the
 * first is kept as its mapping's, and the others only if a finding may
 * name them (else counted with the first). */
static void left_open(struct ipc_partial *p, struct vec *v, const struct pw_file *f)
{
	enum { FIRSTS = 8 }; /* handles of one pointer's (more: their opens kept) */
	struct ipc_rec *firsts[FIRSTS];
	size_t nfirst = 0;
	for (size_t k = 0; k < v->len; k++) {
		struct ipc_rec *o = *(struct ipc_rec **)vec_at(v, k), *first = NULL;
		bool unknown;
		enum fate fa = fate_of(p, o, f, &unknown);
		for (size_t i = 0; i < nfirst && !first; i++)
			if (firsts[i]->handle == o->handle && firsts[i]->vendor == o->vendor)
				first = firsts[i];
		if (fa == GO) {
			let_go(p, o, unknown);
		} else if (fa == LEFT_OPEN && first) {
			uintptr_t key = (uintptr_t)first;
			void **n = hmap_put(&p->more, &key, sizeof key);
			*n = (void *)((uintptr_t)*n + 1);
			let_go(p, o, unknown);
		} else {
			*(struct ipc_rec **)vec_push(&p->recs) = o;
			if (!first && nfirst < FIRSTS)
				firsts[nfirst++] = o;
		}
	}
}

/* A record for an open, in a slot let go if there is one. */
static struct ipc_rec *open_rec(struct ipc_partial *p)
{
	if (!p->spare.len)
		return pool_alloc(p->pool, sizeof(struct ipc_rec));
	struct ipc_rec *o = *(struct ipc_rec **)vec_at(&p->spare, --p->spare.len);
	memset(o, 0, sizeof *o);
	return o;
}

struct ipc_pool *ipc_pool_new(void)
{
	struct ipc_pool *pool = xcalloc(1, sizeof *pool);
	vec_init(&pool->chunks, sizeof(char *));
	hmap_init(&pool->strs);
	return pool;
}

static void *ipc_partial_new(void *report)
{
	struct ipc_partial *p = xcalloc(1, sizeof *p);
	p->report = report;
	vec_init(&p->recs, sizeof(struct ipc_rec *));
	p->pool = ipc_pool_new();
	vec_init(&p->pexports, sizeof(struct pre_export));
	vec_init(&p->pfrees, sizeof(struct pre_free));
	vec_init(&p->xf_unordered, sizeof(uint32_t));
	vec_init(&p->spare, sizeof(struct ipc_rec *));
	hmap_init(&p->more);
	return p;
}

static void ipc_partial_merge(void *report, void *partial)
{
	struct ipc_report *r = report;
	struct ipc_partial *p = partial;
	vec_append(&r->recs, &p->recs);
	vec_free(&p->recs);
	*(struct ipc_pool **)vec_push(&r->pools) = p->pool;
	vec_free(&p->pexports);
	vec_free(&p->pfrees);
	vec_free(&p->xf_unordered);
	vec_free(&p->spare);
	r->not_kept += p->not_kept;
	r->unreachable_unknown += p->unreachable_unknown;
	for (size_t i = 0; i < p->more.cap; i++)
		if (p->more.slots[i].key)
			*hmap_put(&r->more_opens, p->more.slots[i].key, p->more.slots[i].klen) =
			    p->more.slots[i].val;
	hmap_free(&p->more, NULL);
	free(p);
}

static void *ipc_file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct ipc_fctx *c = xcalloc(1, sizeof *c);
	hmap_init(&c->exported);
	hmap_init(&c->events);
	hmap_init(&c->first);
	hmap_init(&c->live);
	vec_init(&c->nested, sizeof(uint64_t));
	hmap_init(&c->pexp);
	vec_init(&c->pexports, sizeof(struct pre_export));
	vec_init(&c->pfrees, sizeof(struct pre_free));
	vec_init(&c->pnested, sizeof(struct pre_export));
	return c;
}

static void ipc_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct ipc_partial *p = partial;
	struct ipc_fctx *c = fctx;
	hmap_free(&c->exported, NULL);
	hmap_free(&c->events, NULL);
	hmap_free(&c->first, NULL);
	for (size_t i = 0; i < c->live.cap; i++)
		if (c->live.slots[i].key) {
			struct vec *v = c->live.slots[i].val;
			if (c->decide)
				left_open(p, v, f);
			vec_free(v);
			free(v);
		}
	hmap_free(&c->live, NULL);
	vec_free(&c->nested); /* when the pre-phase did not end */
	hmap_free(&c->pexp, NULL);
	vec_free(&c->pexports);
	vec_free(&c->pfrees);
	vec_free(&c->pnested);
	free(c);
}

/* The lines the pre-phase reads, by their op or (older traces) their API
 * name: deciding (ipc_findings_ops), every export of memory and every free
 * too (the hook tables' calls whose op is "ipc_export" or "free"); and
 * always (pre_keys, the rest of the list) exports of pointers and events,
 * event opens, and memory opens and closes (their order). */
enum { DECIDE_ONLY = 4 };
static const char *const decide_keys[] = {"IpcMemGetExportKey\"",
                                          "\"free\"",
                                          "Free\"",
                                          "FreeAsync\"",
                                          "\"ipc_export\"",
                                          "\"ipc_open\"",
                                          "\"ipc_close\"",
                                          "IpcOpenMemHandle\"",
                                          "IpcCloseMemHandle\"",
                                          "IpcMemImportByKey\"",
                                          "IpcMemClose\"",
                                          "\"pool_export_ptr\"",
                                          "\"pool_import_ptr\"",
                                          "\"ipc_event_export\"",
                                          "\"ipc_event_open\"",
                                          "IpcGetMemHandle\"",
                                          "PoolExportPointer\"",
                                          "PoolImportPointer\"",
                                          "IpcGetEventHandle\"",
                                          "IpcOpenEventHandle\"",
                                          NULL};

/* The calls this report follows, by op. */
static const struct {
	const char *op;
	enum ipc_op ipc;
} by_op[] = {
    {"ipc_export", OP_EXPORT},
    {"ipc_open", OP_OPEN},
    {"ipc_close", OP_CLOSE},
    {"ipc_event_export", OP_EV_EXPORT},
    {"ipc_event_open", OP_EV_OPEN},
    {"event_destroy", OP_EV_DESTROY},
    {"free", OP_FREE},
    {"vmm_create", OP_VMM_CREATE},
    {"vmm_export", OP_VMM_EXPORT},
    {"vmm_import", OP_VMM_IMPORT},
    {"vmm_map", OP_VMM_MAP},
    {"vmm_set_access", OP_VMM_ACCESS},
    {"vmm_unmap", OP_VMM_UNMAP},
    {"vmm_release", OP_VMM_RELEASE},
    {"vmm_retain", OP_VMM_RETAIN},
    {"pool_export", OP_POOL_EXPORT},
    {"pool_import", OP_POOL_IMPORT},
    {"pool_set_access", OP_POOL_ACCESS},
    {"pool_export_ptr", OP_PTR_EXPORT},
    {"pool_import_ptr", OP_PTR_IMPORT},
};

/* The first two bytes of the table's ops, each once ("ip", "ev", "fr",
 * "vm", "po"): made when the program starts. */
static char prefix[sizeof by_op / sizeof *by_op][2];
static size_t nprefix;

__attribute__((constructor)) static void op_prefixes(void)
{
	for (size_t i = 0; i < sizeof by_op / sizeof *by_op; i++) {
		size_t k = 0;
		while (k < nprefix && memcmp(prefix[k], by_op[i].op, 2))
			k++;
		if (k == nprefix)
			memcpy(prefix[nprefix++], by_op[i].op, 2);
	}
}

/* Every call comes here: two bytes that start no op in the table (most
 * calls: copies, peer queries, launches: "peer_...") are answered after a
 * few compares of them. */
static bool op_of(const struct pw_event *ev, enum ipc_op *op)
{
	const char *s = ev->op;
	if (!s)
		return false;
	bool may = false;
	for (size_t i = 0; i < nprefix && !may; i++)
		may = s[0] == prefix[i][0] && s[1] == prefix[i][1];
	if (!may)
		return false;
	for (size_t i = 0; i < sizeof by_op / sizeof *by_op; i++)
		if (by_op[i].op[0] == s[0] && by_op[i].op[1] == s[1] && !strcmp(s, by_op[i].op)) {
			*op = by_op[i].ipc;
			return true;
		}
	return false;
}

/* Pointers whose free matters: exported through an IPC handle or as a pool
 * pointer, or imported pool pointers. */
static bool shares_ptr(enum ipc_op op)
{
	return op == OP_EXPORT || op == OP_PTR_EXPORT || op == OP_PTR_IMPORT;
}

/* Every memory open and close the event phase will see, in the file's
 * order: any (failed or not) out of time order, or a close of an ACL key
 * (matched at the end against the handle's opens, not a pointer's), and the
 * file's closes are kept as records. */
static void note_order(struct ipc_fctx *c, const struct pw_event *ev, enum ipc_op op)
{
	uint64_t v;
	if (op == OP_CLOSE && !pw_arg_hex(ev, "ptr", &v))
		c->unordered = true;
	if (c->any && (ev->t_ns < c->last_t || (ev->t_ns == c->last_t && ev->seq <= c->last_seq)))
		c->unordered = true;
	c->any = true;
	c->last_t = ev->t_ns;
	c->last_seq = ev->seq;
}

/* Folding: the open r of ptr is open until a close of ptr ends it. */
static void live_push(struct ipc_fctx *c, uint64_t ptr, struct ipc_rec *r)
{
	struct vec **v = (struct vec **)hmap_put_u64(&c->live, ptr);
	if (!*v) {
		*v = xcalloc(1, sizeof **v);
		vec_init(*v, sizeof(struct ipc_rec *));
	}
	*(struct ipc_rec **)vec_push(*v) = r;
}

/* Folding: a successful close of ptr at t ends the latest open of ptr not
 * yet ended — the one ipc_derive's match_close would give it, the file
 * being in time order — and is kept as that open's end.  False when no
 * open is left to end (a stray close: kept as a record). */
static bool fold_close(struct ipc_partial *p, struct ipc_fctx *c, const struct pw_file *f, uint64_t ptr,
                       int64_t t)
{
	struct vec *v = hmap_get_u64(&c->live, ptr);
	if (!v || !v->len)
		return false;
	struct ipc_rec *o = *(struct ipc_rec **)vec_at(v, --v->len);
	o->folded = true;
	o->folded_t = t;
	if (c->decide)
		decided(p, o, f);
	return true;
}

/* Exports and frees in time order (t_ns, then seq) in the file, as the
 * pre-phase reads them (nested ones apart). */
static void note_xf(struct ipc_fctx *c, const struct pw_event *ev)
{
	if (c->xf_any && (ev->t_ns < c->xf_t || (ev->t_ns == c->xf_t && ev->seq <= c->xf_seq)))
		c->xf_unordered = true;
	c->xf_any = true;
	c->xf_t = ev->t_ns;
	c->xf_seq = ev->seq;
}

/* Keeps e as the file's export of its handle, vendor and pointer unless
 * the file has one at or before it (time, then seq). */
static void pre_export_add(struct ipc_fctx *c, const struct pre_export *e)
{
	char k[256];
	int n = snprintf(k, sizeof k, "%d%s%c%s", e->has_ptr, e->vendor, 0, e->handle);
	if (n < 0 || (size_t)n + sizeof e->ptr > sizeof k)
		n = (int)(sizeof k - sizeof e->ptr);
	memcpy(k + n, &e->ptr, sizeof e->ptr);
	void **at = hmap_put(&c->pexp, k, (size_t)n + sizeof e->ptr);
	if (!*at) {
		*(struct pre_export *)vec_push(&c->pexports) = *e;
		*at = (void *)(uintptr_t)c->pexports.len;
		return;
	}
	struct pre_export *kept = vec_at(&c->pexports, (uintptr_t)*at - 1);
	if (e->t_ns < kept->t_ns || (e->t_ns == kept->t_ns && e->seq < kept->seq))
		*kept = *e;
}

/* Deciding, the pre-phase: a successful memory export of a handle, or a
 * successful free of a pointer the file has exported so far (a free read
 * before its pointer's export is before it in time where the file's
 * exports and frees are in time order; where they are not, its handles
 * are not decided). */
static void pre_decide(struct ipc_partial *p, struct ipc_fctx *c, const struct pw_file *f,
                       const struct pw_event *ev, enum ipc_op op)
{
	uint64_t ptr = 0;
	char handle[129];
	bool has_ptr = pw_arg_hex(ev, "ptr", &ptr);
	if (op == OP_FREE) {
		if (!has_ptr)
			return;
		if (!ev->has_parent)
			note_xf(c, ev);
		if (hmap_get_u64(&c->exported, ptr))
			*(struct pre_free *)vec_push(&c->pfrees) = (struct pre_free){
			    .vendor = vendor_of(p->pool, ev),
			    .ptr = ptr,
			    .seq = ev->seq,
			    .parent = ev->parent,
			    .t_ns = ev->t_ns,
			    .file = (uint32_t)f->index,
			    .has_parent = ev->has_parent,
			};
		return;
	}
	if (!pw_arg_handle(ev, "handle", handle))
		return;
	struct pre_export e = {
	    .handle = intern(p->pool, handle),
	    .vendor = vendor_of(p->pool, ev),
	    .ptr = ptr,
	    .seq = ev->seq,
	    .parent = ev->parent,
	    .t_ns = ev->t_ns,
	    .dev = pw_arg_dev(ev, "ptr_dev"),
	    .file = (uint32_t)f->index,
	    .has_ptr = has_ptr,
	    .has_parent = ev->has_parent,
	};
	if (e.has_parent) {
		*(struct pre_export *)vec_push(&c->pnested) = e;
		return;
	}
	note_xf(c, ev);
	pre_export_add(c, &e);
}

/* Deciding, the file's pre-phase over: its nested exports and frees whose
 * parent the trace lacks count as its own (and out of order: their place
 * was not tested), the others go; what is left goes to the partial. */
static void pre_decide_done(struct ipc_partial *p, struct ipc_fctx *c, const struct pw_file *f,
                            const struct seqset *seqs)
{
	for (size_t i = 0; i < c->pnested.len; i++) {
		const struct pre_export *e = vec_at(&c->pnested, i);
		if (seqset_has(seqs, e->parent))
			continue;
		c->xf_unordered = true;
		pre_export_add(c, e);
	}
	for (size_t i = 0; i < c->pfrees.len; i++) {
		const struct pre_free *fr = vec_at(&c->pfrees, i);
		if (fr->has_parent && seqset_has(seqs, fr->parent))
			continue;
		c->xf_unordered |= fr->has_parent;
		*(struct pre_free *)vec_push(&p->pfrees) = *fr;
	}
	vec_append(&p->pexports, &c->pexports);
	if (c->xf_unordered)
		*(uint32_t *)vec_push(&p->xf_unordered) = (uint32_t)f->index;
	p->key_close |= c->key_close;
	hmap_free(&c->pexp, NULL);
	hmap_init(&c->pexp);
	vec_free(&c->pexports);
	vec_free(&c->pfrees);
	vec_free(&c->pnested);
}

static void ipc_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct ipc_partial *p = partial;
	struct ipc_fctx *c = fctx;
	enum ipc_op op;
	uint64_t v;
	if (ev->type != PW_EV_CALL || !op_of(ev, &op))
		return;
	if (op == OP_CLOSE && !pw_arg_hex(ev, "ptr", &v))
		c->key_close = true;
	if (op == OP_OPEN || op == OP_CLOSE) {
		if (ev->has_parent) /* the event phase sees it if its parent is not recorded */
			*(uint64_t *)vec_push(&c->nested) = ev->parent;
		else
			note_order(c, ev, op);
		return;
	}
	if (ev->ret != 0)
		return;
	if (p->report->findings_only && (op == OP_EXPORT || op == OP_FREE))
		pre_decide(p, c, f, ev, op);
	if (shares_ptr(op) && pw_arg_hex(ev, "ptr", &v))
		*hmap_put_u64(&c->exported, v) = (void *)1;
	if ((op == OP_EV_EXPORT || op == OP_EV_OPEN) && pw_arg_hex(ev, "event", &v))
		*hmap_put_u64(&c->events, v) = (void *)1;
}

/* The pre-phase is over: a nested open or close whose parent is not in
 * the file is one the event phase sees, whose place among the others the
 * order test did not take; such a file keeps its closes as records (the
 * runtime's opens and closes, whose driver calls are nested in them, are
 * in order as before). */
static void ipc_pre_done(void *partial, void *fctx, const struct pw_file *f, const struct seqset *seqs)
{
	struct ipc_partial *p = partial;
	struct ipc_fctx *c = fctx;
	for (size_t i = 0; i < c->nested.len && !c->unordered; i++)
		if (!seqset_has(seqs, *(uint64_t *)vec_at(&c->nested, i)))
			c->unordered = true;
	vec_free(&c->nested);
	if (p->report->findings_only)
		pre_decide_done(p, c, f, seqs);
}

static void fill_rec(struct ipc_rec *r, struct ipc_pool *pool, enum ipc_op op, const struct pw_file *f,
                     const struct pw_event *ev)
{
	char api[256];
	r->op = (uint8_t)op;
	r->vendor = vendor_of(pool, ev);
	r->file = (uint32_t)f->index;
	r->seq = ev->seq;
	r->t_ns = ev->t_ns;
	r->ret = ev->ret;
	const char *a = ev->api ? ev->api : "(null)", *b = ev->variant ? ev->variant : "(null)";
	size_t an = strlen(a), bn = strlen(b);
	if (an + bn < sizeof api) {
		memcpy(api, a, an);
		memcpy(api + an, b, bn);
		api[an + bn] = 0;
		r->api = intern_as(pool, LAST_API, api);
	} else {
		char *long_api = xasprintf("%s%s", a, b);
		r->api = intern(pool, long_api);
		free(long_api);
	}
	r->ret_name = ev->ret_name ? intern_as(pool, LAST_RET, ev->ret_name) : NULL;
	r->dev = PW_DEV_NONE;
	r->cur_dev = ev->cur_dev;
	r->vmm = &ipc_vmm_none;
}

/* The pointer a call names: an event's for the event calls. */
static bool call_ptr(const struct pw_event *ev, enum ipc_op op, uint64_t *ptr)
{
	return pw_arg_hex(ev, op == OP_EV_EXPORT || op == OP_EV_OPEN || op == OP_EV_DESTROY ? "event" : "ptr",
	                  ptr);
}

static void fill_call(struct ipc_rec *r, struct ipc_pool *pool, enum ipc_op op, const struct pw_file *f,
                      const struct pw_event *ev, bool has_ptr, uint64_t ptr)
{
	char handle[129];
	fill_rec(r, pool, op, f, ev);
	r->has_ptr = has_ptr;
	r->ptr = ptr;
	r->dev = pw_arg_dev(ev, "ptr_dev");
	r->has_handle = op < OP_VMM_CREATE && op != OP_EV_DESTROY && pw_arg_handle(ev, "handle", handle);
	if (r->has_handle)
		r->handle = intern(pool, handle);
}

bool ipc_call_of(const struct pw_event *ev, enum ipc_op *op)
{
	return ev->type == PW_EV_CALL && !ev->parent_recorded && op_of(ev, op);
}

void ipc_rec_fill(struct ipc_rec *r, struct ipc_pool *pool, enum ipc_op op, const struct pw_file *f,
                  const struct pw_event *ev)
{
	uint64_t ptr = 0;
	bool has_ptr = call_ptr(ev, op, &ptr);
	memset(r, 0, sizeof *r);
	fill_call(r, pool, op, f, ev, has_ptr, ptr);
}

/* ---- VMM and pool IPC records ---- */

/* The cross-process key of an export or import: "file <dev:ino> on <host>",
 * "fabric <hex>", or "ptr <export_data>"; NULL when the call has none.  A
 * file that cannot name one allocation (args.file_id_unique false: the real
 * driver's fds are all of one character device) or no file_id pairs nothing:
 * such a POSIX fd gets a key of its own process and handle, so that each
 * process's chain is still listed. */
static char *share_key(const struct pw_file *f, const struct pw_event *ev, enum ipc_op op)
{
	const char *fid = pw_arg_str(ev, "file_id"), *sh = pw_arg_str(ev, "shareable"),
	           *ht = pw_arg_str(ev, "handle_type"), *ed = pw_arg_str(ev, "export_data");
	const char *pool = op == OP_POOL_EXPORT || op == OP_POOL_IMPORT ? "pool " : "";
	json_t *uq = json_object_get(pw_ev_args(ev), "file_id_unique");
	uint64_t h = 0;
	if (op == OP_PTR_EXPORT || op == OP_PTR_IMPORT)
		return ed ? xasprintf("ptr %s", ed) : NULL;
	if (fid && !json_is_false(uq))
		return xasprintf("%sfile %s on %s", pool, fid, f->host);
	if (sh && ht && !strcmp(ht, "fabric"))
		return xasprintf("%sfabric %s", pool, sh);
	/* ACL's shareable handle (aclrtMemExportToShareableHandle[V2]): a
	 * number every process of the host imports by, as the exporter wrote
	 * it; a V2 fabric handle's digest, by which other hosts import too */
	if (sh && !*pool && ev->vendor && !strcmp(ev->vendor, "acl")) {
		const char *st = pw_arg_str(ev, "share_type");
		if (st && !strcmp(st, "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC"))
			return xasprintf("acl fabric %s", sh);
		return xasprintf("acl %s on %s", sh, f->host);
	}
	if (ht && !strcmp(ht, "posix_fd") && pw_arg_hex(ev, *pool ? "pool" : "handle", &h))
		return xasprintf("%sunpaired fd of pid %lld on %s, %s 0x%llx", pool, (long long)f->pid,
		                 f->host, *pool ? "pool" : "handle", (unsigned long long)h);
	return NULL;
}

static void access_text(const struct pw_event *ev, char *buf, size_t len)
{
	json_t *a = json_object_get(pw_ev_args(ev), "access"), *g;
	size_t i, n = 0;
	buf[0] = 0;
	json_array_foreach(a, i, g)
	{
		json_t *fl = json_object_get(g, "flags");
		char one[64];
		if (json_is_string(fl))
			snprintf(one, sizeof one, "%sdev%lld %s", i ? ", " : "",
			         (long long)json_integer_value(json_object_get(g, "dev")),
			         json_string_value(fl));
		else
			snprintf(one, sizeof one, "%sdev%lld flags %lld", i ? ", " : "",
			         (long long)json_integer_value(json_object_get(g, "dev")),
			         (long long)json_integer_value(fl));
		if (n + strlen(one) + 1 >= len)
			break;
		memcpy(buf + n, one, strlen(one) + 1);
		n += strlen(one);
	}
}

static char *vmm_detail(const struct pw_event *ev, const struct ipc_rec *r, const struct ipc_vmm *m)
{
	char b[160] = "", sz[32];
	const char *ht = pw_arg_str(ev, "handle_type");
	fmt_bytes(sz, sizeof sz, m->bytes);
	if (ev->ret != 0)
		return xasprintf("failed: %s", ev->ret_name ? ev->ret_name : "?");
	switch (r->op) {
	case OP_VMM_CREATE:
		snprintf(b, sizeof b, "handle 0x%llx, %s", (unsigned long long)m->vh, sz);
		if (r->dev != PW_DEV_NONE)
			snprintf(b + strlen(b), sizeof b - strlen(b), " on dev%lld", (long long)r->dev);
		break;
	case OP_VMM_EXPORT:
	case OP_VMM_IMPORT:
	case OP_POOL_EXPORT:
	case OP_POOL_IMPORT:
		if (!ht && pw_arg_str(ev, "shareable")) /* ACL: the shareable handle, no type name */
			snprintf(b, sizeof b, "%s handle 0x%llx as shareable %s",
			         r->op == OP_VMM_EXPORT ? "of" : "to", (unsigned long long)m->vh,
			         pw_arg_str(ev, "shareable"));
		else
			snprintf(b, sizeof b, "%s %s 0x%llx as %s",
			         r->op == OP_VMM_EXPORT || r->op == OP_POOL_EXPORT ? "of" : "to",
			         r->op == OP_POOL_EXPORT || r->op == OP_POOL_IMPORT ? "pool" : "handle",
			         (unsigned long long)m->vh, ht ? ht : "?");
		break;
	case OP_VMM_MAP:
		snprintf(b, sizeof b, "0x%llx %s, handle 0x%llx", (unsigned long long)r->ptr, sz,
		         (unsigned long long)m->vh);
		break;
	case OP_VMM_ACCESS:
	case OP_POOL_ACCESS: access_text(ev, b, sizeof b); break;
	case OP_VMM_RELEASE:
	case OP_VMM_RETAIN: snprintf(b, sizeof b, "handle 0x%llx", (unsigned long long)m->vh); break;
	default:
		snprintf(b, sizeof b, "0x%llx", (unsigned long long)r->ptr);
		if (r->dev != PW_DEV_NONE)
			snprintf(b + strlen(b), sizeof b - strlen(b), " (dev %lld)", (long long)r->dev);
	}
	return xstrdup(b);
}

static void vmm_fill(struct ipc_rec *r, struct ipc_pool *pool, bool with_detail, const struct pw_file *f,
                     const struct pw_event *ev)
{
	uint64_t v;
	struct ipc_vmm *m = pool_alloc(pool, sizeof *m);
	r->vmm = m;
	const char *vh_key = r->op == OP_POOL_EXPORT || r->op == OP_POOL_IMPORT || r->op == OP_POOL_ACCESS ||
	                             r->op == OP_PTR_IMPORT
	                         ? "pool"
	                         : "handle";
	m->has_vh = pw_arg_hex(ev, vh_key, &v);
	m->vh = m->has_vh ? v : 0;
	pw_arg_u64(ev, "bytes", &m->bytes);
	if (r->op == OP_VMM_CREATE)
		r->dev = pw_arg_dev(ev, "dev");
	/* an ACL import the runtime refused still names its allocation: its shareable handle */
	bool acl_import = r->op == OP_VMM_IMPORT && !strcmp(r->vendor, "acl");
	if ((r->ret == 0 || acl_import) &&
	    (r->op == OP_VMM_EXPORT || r->op == OP_VMM_IMPORT || r->op == OP_POOL_EXPORT ||
	     r->op == OP_POOL_IMPORT || r->op == OP_PTR_EXPORT || r->op == OP_PTR_IMPORT))
		m->key = share_key(f, ev, r->op);
	if (with_detail)
		m->detail = vmm_detail(ev, r, m);
}

/* Findings only: keeps a successful export (r, on the caller's stack) as the
 * file's record of its handle, vendor and pointer unless the file has one at
 * or before it (time, then seq); an earlier one takes the record's place. */
static void first_export(struct ipc_fctx *c, const struct ipc_rec *r, struct ipc_pool *pool, struct vec *recs)
{
	char k[256];
	int n = snprintf(k, sizeof k, "%c%d%s%c%s", (char)('a' + r->op), r->has_ptr, r->vendor, 0, r->handle);
	if (n < 0 || (size_t)n + sizeof r->ptr > sizeof k)
		n = (int)(sizeof k - sizeof r->ptr); /* a handle is 128 hex digits: never */
	memcpy(k + n, &r->ptr, sizeof r->ptr);
	struct ipc_rec **kept = (struct ipc_rec **)hmap_put(&c->first, k, (size_t)n + sizeof r->ptr);
	if (!*kept) {
		*kept = pool_alloc(pool, sizeof **kept);
		**kept = *r;
		*(struct ipc_rec **)vec_push(recs) = *kept;
	} else if (r->t_ns < (*kept)->t_ns || (r->t_ns == (*kept)->t_ns && r->seq < (*kept)->seq)) {
		**kept = *r;
	}
}

static void ipc_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct ipc_partial *p = partial;
	struct ipc_fctx *c = fctx;
	enum ipc_op op;
	uint64_t ptr = 0;
	if (ev->type != PW_EV_CALL || ev->parent_recorded || !op_of(ev, &op))
		return;
	bool findings_only = p->report->findings_only;
	bool export = op == OP_EXPORT || op == OP_EV_EXPORT;
	/* a failed export names no handle the findings follow */
	if (findings_only && export && ev->ret != 0)
		return;
	bool has_ptr = call_ptr(ev, op, &ptr);
	/* frees are kept only when they free what this process exported, event
	 * destructions when they end an event it exported or imported */
	if (op == OP_FREE && (ev->ret != 0 || !has_ptr || !hmap_get_u64(&c->exported, ptr)))
		return;
	if (op == OP_EV_DESTROY && (ev->ret != 0 || !has_ptr || !hmap_get_u64(&c->events, ptr)))
		return;
	bool fold = findings_only && !c->unordered;
	c->decide = fold && p->report->deciding;
	if (fold && op == OP_CLOSE && ev->ret == 0 && has_ptr && fold_close(p, c, f, ptr, ev->t_ns))
		return;
	struct ipc_rec tmp = {0}, *r = findings_only && export      ? &tmp
	                               : c->decide && op == OP_OPEN ? open_rec(p)
	                                                            : pool_alloc(p->pool, sizeof *r);
	fill_call(r, p->pool, op, f, ev, has_ptr, ptr);
	if (op >= OP_VMM_CREATE)
		vmm_fill(r, p->pool, !findings_only || p->report->vmm_detail, f, ev);
	if (c->decide && op == OP_OPEN) {
		if (r->ret == 0 && r->has_ptr && r->has_handle)
			live_push(c, ptr, r); /* decided at its close, or kept at the file's end */
		else if (r->ret != 0 && r->has_handle)
			decided(p, r, f);
		else if (r->has_handle)
			*(struct ipc_rec **)vec_push(&p->recs) = r; /* open until the process ends */
		else
			*(struct ipc_rec **)vec_push(&p->spare) = r; /* nothing to follow */
		return;
	}
	if (r != &tmp) {
		*(struct ipc_rec **)vec_push(&p->recs) = r;
		if (fold && op == OP_OPEN && r->ret == 0 && r->has_ptr && r->has_handle)
			live_push(c, ptr, r);
		return;
	}
	if (r->has_handle) /* else: nothing to follow */
		first_export(c, r, p->pool, &p->recs);
}

/* ---- every file's pre-phase over: the handles decided ---- */

/* (t_ns, then seq) of x before y's, in one file. */
static bool before(int64_t xt, uint64_t xs, int64_t yt, uint64_t ys)
{
	return xt < yt || (xt == yt && xs < ys);
}

struct reg {
	struct ipc_decided *d;
	int64_t t_ns;
	uint64_t seq;
};

static struct ipc_decided *decided_of(struct ipc_report *r, const struct pw_input *in,
                                      const struct pre_export *e, bool make)
{
	char k[DECIDED_KEY];
	size_t len = decided_key(k, in, e->file, e->vendor, e->handle);
	if (!make)
		return hmap_get(&r->decided, k, len);
	struct ipc_decided **slot = (struct ipc_decided **)hmap_put(&r->decided, k, len);
	if (!*slot)
		*slot = xcalloc(1, sizeof **slot); /* no export yet: vendor NULL */
	return *slot;
}

/*
 * Each memory handle's export: the earliest successful one of any file
 * (time, file, seq: ipc_derive's order); and its free: in the exporting
 * file, the earliest successful free of a pointer that file exported under
 * the handle, after that export of the pointer and not before the
 * handle's export, of the export's vendor — match_free's, as ipc_derive
 * places the records.
 */
static void ipc_pre_all_done(void *report, void *const *partials, size_t n, const struct pw_input *in)
{
	struct ipc_report *r = report;
	r->in = in;
	r->deciding = r->findings_only;
	for (size_t i = 0; i < n; i++)
		r->deciding &= !((struct ipc_partial *)partials[i])->key_close;
	bool *unordered = xcalloc(in->n + 1, sizeof *unordered);
	for (size_t i = 0; i < n; i++) {
		const struct ipc_partial *p = partials[i];
		for (size_t k = 0; k < p->xf_unordered.len; k++)
			unordered[*(uint32_t *)vec_at(&p->xf_unordered, k)] = true;
		for (size_t k = 0; r->deciding && k < p->pexports.len; k++) {
			const struct pre_export *e = vec_at(&p->pexports, k);
			struct ipc_decided *d = decided_of(r, in, e, true);
			bool earlier = !d->vendor           ? true
			               : e->t_ns != d->t_ns ? e->t_ns < d->t_ns
			               : e->file != d->file ? e->file < d->file
			                                    : e->seq < d->seq;
			if (!earlier)
				continue;
			d->t_ns = e->t_ns;
			d->dev = e->dev;
			d->seq = e->seq;
			d->vendor = e->vendor;
			d->file = e->file;
		}
	}
	struct hmap regs; /* (file, pointer) -> struct vec of struct reg */
	hmap_init(&regs);
	for (size_t i = 0; i < n && r->deciding; i++) {
		const struct ipc_partial *p = partials[i];
		for (size_t k = 0; k < p->pexports.len; k++) {
			const struct pre_export *e = vec_at(&p->pexports, k);
			struct ipc_decided *d = decided_of(r, in, e, false);
			if (!e->has_ptr || e->file != d->file)
				continue;
			uint64_t key[2] = {e->file, e->ptr};
			struct vec **v = (struct vec **)hmap_put(&regs, key, sizeof key);
			if (!*v) {
				*v = xcalloc(1, sizeof **v);
				vec_init(*v, sizeof(struct reg));
			}
			*(struct reg *)vec_push(*v) = (struct reg){d, e->t_ns, e->seq};
		}
	}
	for (size_t i = 0; i < n && r->deciding; i++) {
		const struct ipc_partial *p = partials[i];
		for (size_t k = 0; k < p->pfrees.len; k++) {
			const struct pre_free *fr = vec_at(&p->pfrees, k);
			uint64_t key[2] = {fr->file, fr->ptr};
			const struct vec *v = hmap_get(&regs, key, sizeof key);
			for (size_t j = 0; v && j < v->len; j++) {
				const struct reg *g = vec_at(v, j);
				struct ipc_decided *d = g->d;
				if (strcmp(d->vendor, fr->vendor) ||
				    !before(g->t_ns, g->seq, fr->t_ns, fr->seq) || fr->t_ns < d->t_ns)
					continue;
				if (!d->has_free || before(fr->t_ns, fr->seq, d->free_t, d->free_seq)) {
					d->has_free = true;
					d->free_t = fr->t_ns;
					d->free_seq = fr->seq;
				}
			}
		}
	}
	for (size_t i = 0; i < regs.cap; i++)
		if (regs.slots[i].key) {
			vec_free(regs.slots[i].val);
			free(regs.slots[i].val);
		}
	hmap_free(&regs, NULL);
	for (size_t i = 0; i < r->decided.cap; i++)
		if (r->decided.slots[i].key) {
			struct ipc_decided *d = r->decided.slots[i].val;
			d->exact = !unordered[d->file];
		}
	free(unordered);
	for (size_t i = 0; i < n; i++) {
		struct ipc_partial *p = partials[i];
		vec_free(&p->pexports);
		vec_free(&p->pfrees);
	}
}

const struct pw_sink_ops ipc_findings_ops = {
    .partial_new = ipc_partial_new,
    .partial_merge = ipc_partial_merge,
    .file_begin = ipc_file_begin,
    .pre_keys = decide_keys,
    .pre_event = ipc_pre_event,
    .pre_done = ipc_pre_done,
    .event = ipc_event,
    .file_end = ipc_file_end,
    .nesting = true,
    .pre_all_done = ipc_pre_all_done,
    .pre_by_op = true,
};

const struct pw_sink_ops ipc_ops = {
    .partial_new = ipc_partial_new,
    .partial_merge = ipc_partial_merge,
    .file_begin = ipc_file_begin,
    .pre_keys = decide_keys + DECIDE_ONLY,
    .pre_event = ipc_pre_event,
    .pre_done = ipc_pre_done,
    .event = ipc_event,
    .file_end = ipc_file_end,
    .nesting = true,
    .pre_by_op = true,
};

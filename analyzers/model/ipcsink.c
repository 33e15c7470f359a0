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
struct ipc_pool {
	struct vec chunks; /* char * */
	size_t used;       /* in the last chunk */
	struct hmap strs;  /* text -> its one copy */
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
		*v = xstrdup(s);
	return *v;
}

void ipc_pool_free(struct ipc_pool *p)
{
	for (size_t i = 0; i < p->chunks.len; i++)
		free(*(char **)vec_at(&p->chunks, i));
	vec_free(&p->chunks);
	hmap_free(&p->strs, free);
	free(p);
}

/* ---- collecting: the sink ---- */

struct ipc_partial {
	struct ipc_report *report;
	struct vec recs; /* struct ipc_rec * */
	struct ipc_pool *pool;
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
};

static void *ipc_partial_new(void *report)
{
	struct ipc_partial *p = xcalloc(1, sizeof *p);
	p->report = report;
	vec_init(&p->recs, sizeof(struct ipc_rec *));
	p->pool = xcalloc(1, sizeof *p->pool);
	vec_init(&p->pool->chunks, sizeof(char *));
	hmap_init(&p->pool->strs);
	return p;
}

static void ipc_partial_merge(void *report, void *partial)
{
	struct ipc_report *r = report;
	struct ipc_partial *p = partial;
	vec_append(&r->recs, &p->recs);
	vec_free(&p->recs);
	*(struct ipc_pool **)vec_push(&r->pools) = p->pool;
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
	return c;
}

static void ipc_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct ipc_fctx *c = fctx;
	hmap_free(&c->exported, NULL);
	hmap_free(&c->events, NULL);
	hmap_free(&c->first, NULL);
	for (size_t i = 0; i < c->live.cap; i++)
		if (c->live.slots[i].key) {
			vec_free(c->live.slots[i].val);
			free(c->live.slots[i].val);
		}
	hmap_free(&c->live, NULL);
	vec_free(&c->nested); /* when the pre-phase did not end */
	free(c);
}

/* The lines the pre-phase reads: exports of pointers and events, event
 * opens, and memory opens and closes (their order), by their op or (older
 * traces) their API name. */
static const char *const pre_keys[] = {"\"ipc_export\"",
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

/* Every call comes here: two bytes that start no op in the table (most
 * calls: copies, peer queries, launches: "peer_...") are answered without
 * a string compare. */
static bool op_of(const struct pw_event *ev, enum ipc_op *op)
{
	const char *s = ev->op;
	if (!s || !s[0])
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
static bool fold_close(struct ipc_fctx *c, uint64_t ptr, int64_t t)
{
	struct vec *v = hmap_get_u64(&c->live, ptr);
	if (!v || !v->len)
		return false;
	struct ipc_rec *o = *(struct ipc_rec **)vec_at(v, --v->len);
	o->folded = true;
	o->folded_t = t;
	return true;
}

static void ipc_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct ipc_fctx *c = fctx;
	enum ipc_op op;
	uint64_t v;
	if (ev->type != PW_EV_CALL || !op_of(ev, &op))
		return;
	if (op == OP_OPEN || op == OP_CLOSE) {
		if (ev->has_parent) /* the event phase sees it if its parent is not recorded */
			*(uint64_t *)vec_push(&c->nested) = ev->parent;
		else
			note_order(c, ev, op);
		return;
	}
	if (ev->ret != 0)
		return;
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
	(void)partial;
	(void)f;
	struct ipc_fctx *c = fctx;
	for (size_t i = 0; i < c->nested.len && !c->unordered; i++)
		if (!seqset_has(seqs, *(uint64_t *)vec_at(&c->nested, i)))
			c->unordered = true;
	vec_free(&c->nested);
}

static void fill_rec(struct ipc_rec *r, struct ipc_pool *pool, enum ipc_op op, const struct pw_file *f,
                     const struct pw_event *ev)
{
	char api[256];
	r->op = (uint8_t)op;
	/* the vendor as the record kept it before: its first 7 bytes (no
	 * snprintf: two for every IPC call were a tenth of the sink's time) */
	const char *v = ev->vendor ? ev->vendor : "(null)";
	char vendor[8];
	size_t vn = strnlen(v, sizeof vendor - 1);
	memcpy(vendor, v, vn);
	vendor[vn] = 0;
	r->vendor = intern(pool, vendor);
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
		r->api = intern(pool, api);
	} else {
		char *long_api = xasprintf("%s%s", a, b);
		r->api = intern(pool, long_api);
		free(long_api);
	}
	r->ret_name = ev->ret_name ? intern(pool, ev->ret_name) : NULL;
	r->dev = PW_DEV_NONE;
	r->cur_dev = ev->cur_dev;
	r->vmm = &ipc_vmm_none;
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
	char handle[129];
	if (ev->type != PW_EV_CALL || ev->parent_recorded || !op_of(ev, &op))
		return;
	bool findings_only = p->report->findings_only;
	bool export = op == OP_EXPORT || op == OP_EV_EXPORT;
	/* a failed export names no handle the findings follow */
	if (findings_only && export && ev->ret != 0)
		return;
	bool has_ptr = pw_arg_hex(
	    ev, op == OP_EV_EXPORT || op == OP_EV_OPEN || op == OP_EV_DESTROY ? "event" : "ptr", &ptr);
	/* frees are kept only when they free what this process exported, event
	 * destructions when they end an event it exported or imported */
	if (op == OP_FREE && (ev->ret != 0 || !has_ptr || !hmap_get_u64(&c->exported, ptr)))
		return;
	if (op == OP_EV_DESTROY && (ev->ret != 0 || !has_ptr || !hmap_get_u64(&c->events, ptr)))
		return;
	bool fold = findings_only && !c->unordered;
	if (fold && op == OP_CLOSE && ev->ret == 0 && has_ptr && fold_close(c, ptr, ev->t_ns))
		return;
	struct ipc_rec tmp = {0}, *r = findings_only && export ? &tmp : pool_alloc(p->pool, sizeof *r);
	fill_rec(r, p->pool, op, f, ev);
	r->has_ptr = has_ptr;
	r->ptr = ptr;
	r->dev = pw_arg_dev(ev, "ptr_dev");
	r->has_handle = op < OP_VMM_CREATE && op != OP_EV_DESTROY && pw_arg_handle(ev, "handle", handle);
	if (r->has_handle)
		r->handle = intern(p->pool, handle);
	if (op >= OP_VMM_CREATE)
		vmm_fill(r, p->pool, !findings_only, f, ev);
	if (r != &tmp) {
		*(struct ipc_rec **)vec_push(&p->recs) = r;
		if (fold && op == OP_OPEN && r->ret == 0 && r->has_ptr && r->has_handle)
			live_push(c, ptr, r);
		return;
	}
	if (r->has_handle) /* else: nothing to follow */
		first_export(c, r, p->pool, &p->recs);
}

const struct pw_sink_ops ipc_ops = {
    .partial_new = ipc_partial_new,
    .partial_merge = ipc_partial_merge,
    .file_begin = ipc_file_begin,
    .pre_keys = pre_keys,
    .pre_event = ipc_pre_event,
    .pre_done = ipc_pre_done,
    .event = ipc_event,
    .file_end = ipc_file_end,
    .nesting = true,
};

/*
 * The copies between devices, per host, vendor and pair: bytes, copies and
 * bandwidth, peer-access state, and the copies made while peer access
 * between the two devices was off.  matrix prints them; report draws them.
 *
 * Copies: every copy-family call of any vendor that names a peer copy
 * (cuMemcpyPeer[Async], cuMemcpy3DPeer[Async], cudaMemcpyPeer[Async],
 * hipMemcpyPeer[Async]), that the preload marked "implicit" (a cross-device
 * cuMemcpy, DtoD, 2D/3D or batch copy), that lists its entries ("copies":
 * each entry in its own pair), or whose two sides are different devices
 * (aclrtMemcpy device to device).  A call nested in a recorded call (the
 * driver calls of cudaMemcpyPeer) is counted only through that call.
 *
 * Devices of different vendors are never in one cell: a cell is (host,
 * vendor, source, destination), and each vendor of a host has its own grid.
 * The CUDA runtime and driver share one (the runtime runs on the driver's
 * primary contexts).
 *
 * Bandwidth is bytes over host time (dur_ns: for an asynchronous copy only
 * the time to enqueue it; a batch's time is shared among its entries by
 * bytes) and, when the trace has gpu_time events, bytes over
 * device time for the copies that have one (a copy timed inside a recorded
 * call, the driver copy under cudaMemcpyPeerAsync, lends its time to it).
 *
 * Peer access is a property of a process's contexts, so a copy is judged
 * against the state of its own process when it was made (its t_ns, then
 * seq: threads take seq numbers in blocks, so between threads seq alone is
 * not the order of the calls): it counts as made with
 * peer access when either device had access to the other then (a copy
 * between two devices is staged through host memory unless one of them can
 * reach the other).  What turns access on: a successful (or "already
 * enabled") cuCtx/cudaDevice/hipDevice/hipCtx/aclrtDevice EnablePeerAccess
 * from cur_dev to the peer, and a cuMemSetAccess/cuMemPoolSetAccess grant
 * to a device of memory on another (counted as SRC = the memory's device,
 * DST = the granted device; a pool's grant only when the call names the
 * pool's device, args.pool_dev or ptr_dev — the ipc report lists them all).  What turns it off: the Disable
 * calls, a grant of "none", and hipDeviceReset/cudaDeviceReset/aclrtResetDevice of either device.  These
 * changes of a file, and its gpu_time events, are read in the file's pre-phase, so the order in which
 * threads' lines reached the file does not matter.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/copies.h"
#include "read/json.h"

/* -1 is CU_DEVICE_CPU, and how host memory of a copy is kept here. */
#define DEV_HOST (-1)
/* Pairs kept per trace: one naming more device pairs than any machine has
 * (66 ends each way — 64 devices, the host and an unknown one — make 4 356
 * pairs) is counted in an "unknown" pair
 * rather than growing without end.  Per trace, so that which pairs are
 * kept follows the trace's own order alone: a cap over a worker's traces
 * depended on which traces the worker read first, and the hash order of
 * the partials' merge (2 000 traces of 56 pairs gave other counts on every
 * run). */
#define MAX_FILE_CELLS 8192

/* Where a call is in its process's order: t_ns, then seq. */
struct at {
	uint64_t t, seq;
};

static int at_cmp(struct at x, struct at y)
{
	if (x.t != y.t)
		return x.t < y.t ? -1 : 1;
	return x.seq < y.seq ? -1 : x.seq > y.seq;
}

static struct at at_of(const struct pw_event *ev)
{
	return (struct at){(uint64_t)ev->t_ns, ev->seq};
}

struct change {
	struct at at;
	size_t order; /* among the changes of one call (a grant's entries): the line's */
	bool on;
};

struct pair_log {
	struct vec changes; /* struct change */
	bool sorted;
};

struct reset {
	int vendor;
	int64_t dev;
	struct at at;
};

/* A file's calls move between few pairs of devices: the cell (and the
 * access log, fixed once the pre-phase is over) of a (vendor, from, to)
 * looked up last, so that a copy finds its own without a key made and
 * hashed.  Direct-mapped, by a hash of the three. */
#define PAIR_MEMO 64
struct pair_memo {
	int64_t from, to;
	int vendor;
	bool has_log;           /* log is what log_of says (NULL: none) */
	struct copy_cell *cell; /* NULL: not looked up yet */
	struct pair_log *log;
};

struct mx_fctx {
	struct hmap pairs; /* (vendor, from, to) -> struct pair_log: from has access to to */
	struct vec resets; /* struct reset: a device reset drops its peer access */
	struct hmap gpu;   /* call seq -> gpu_ns + 1 */
	/* parent seq -> seq + 1 of the copy nested in it (cudaMemcpyPeerAsync's cuMemcpyPeerAsync) */
	struct hmap timed_child;
	struct pair_memo memo[PAIR_MEMO];
	size_t ncells; /* the trace's cells (MAX_FILE_CELLS) */
};

static const char *const vendors[] = {"cuda", "hip", "acl"};

static int vendor_ix(const char *v)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(v, vendors[i]))
			return i;
	return 0; /* the reader lets no other vendor through */
}

/* The key of a cell: host "\0" vendor "\0" file src dst. */
static char *cell_key(const char *host, const char *vendor, size_t file, int64_t src, int64_t dst,
                      size_t *len)
{
	size_t hl = strlen(host), vl = strlen(vendor);
	uint64_t fi = file;
	char *k = xmalloc(hl + vl + 2 + 24);
	memcpy(k, host, hl + 1);
	memcpy(k + hl + 1, vendor, vl + 1);
	memcpy(k + hl + vl + 2, &fi, 8);
	memcpy(k + hl + vl + 10, &src, 8);
	memcpy(k + hl + vl + 18, &dst, 8);
	*len = hl + vl + 26;
	return k;
}

/* The cell of a trace's pair (`made`: the trace's count of its cells, so
 * that past MAX_FILE_CELLS a new pair is the "unknown" one); NULL where
 * cells are merged, not made by a trace. */
static struct copy_cell *cell_of(struct copy_matrix *m, const char *host, const char *vendor, size_t file,
                                 int64_t src, int64_t dst, size_t *made)
{
	size_t len;
	char *k = cell_key(host, vendor, file, src, dst, &len);
	if (made && *made >= MAX_FILE_CELLS && !hmap_get(&m->cells, k, len)) {
		made = NULL; /* the unknown pair, counted in no trace's cells */
		free(k);
		host = "?";
		src = dst = PW_DEV_NONE;
		file = COPIES_MERGED;
		k = cell_key(host, vendor, file, src, dst, &len);
	}
	struct copy_cell **c = (struct copy_cell **)hmap_put(&m->cells, k, len);
	free(k);
	if (!*c) {
		*c = xcalloc(1, sizeof **c);
		(*c)->host = xstrdup(host);
		snprintf((*c)->vendor, sizeof(*c)->vendor, "%s", vendor);
		(*c)->file = file;
		(*c)->src = src;
		(*c)->dst = dst;
		if (made)
			(*made)++;
	}
	return *c;
}

/* side is "src" or "dst": obj.<side>_type "host", else obj.<side>_dev (of
 * one copy of a batch) */
static int64_t entry_dev(json_t *obj, const char *side)
{
	char type[16], dev[16];
	snprintf(type, sizeof type, "%s_type", side);
	snprintf(dev, sizeof dev, "%s_dev", side);
	json_t *t = json_object_get(obj, type), *d = json_object_get(obj, dev);
	if (json_is_string(t) && !strcmp(json_string_value(t), "host"))
		return DEV_HOST;
	if (!json_is_integer(d) || json_integer_value(d) < INT32_MIN || json_integer_value(d) > INT32_MAX)
		return PW_DEV_NONE;
	return json_integer_value(d);
}

/* The same of the call's args. */
static int64_t side_dev(const struct pw_event *ev, const char *side)
{
	bool src = side[0] == 's';
	const char *t = pw_arg_str(ev, src ? "src_type" : "dst_type");
	if (t && !strcmp(t, "host"))
		return DEV_HOST;
	return pw_arg_dev(ev, src ? "src_dev" : "dst_dev");
}

/* The call's op (docs/trace-format.md; the reader gives the calls of traces
 * written before "op" theirs). */
static bool op_is(const struct pw_event *ev, const char *op)
{
	return ev->op && !strcmp(ev->op, op);
}

static bool is_peer_copy(const struct pw_event *ev)
{
	return op_is(ev, "peer_copy");
}

/* A copy of any kind: a peer copy or one whose devices the runtime infers. */
static bool copy_op(const struct pw_event *ev)
{
	return op_is(ev, "peer_copy") || op_is(ev, "implicit_copy");
}

static bool is_copy(const struct pw_event *ev)
{
	if (!copy_op(ev) || ev->parent_recorded)
		return false;
	if (ev->implicit || is_peer_copy(ev) || pw_arg_is_array(ev, "copies"))
		return true;
	int64_t s = side_dev(ev, "src"), d = side_dev(ev, "dst");
	return s >= 0 && d >= 0 && s != d;
}

/* ---- per file: the peer-access log and gpu times (pre-phase) ---- */

static struct pair_log *log_of(struct hmap *pairs, int vendor, int64_t from, int64_t to, bool create)
{
	int64_t k[3] = {vendor, from, to};
	if (!create)
		return hmap_get(pairs, k, sizeof k);
	struct pair_log **l = (struct pair_log **)hmap_put(pairs, k, sizeof k);
	if (!*l) {
		*l = xcalloc(1, sizeof **l);
		vec_init(&(*l)->changes, sizeof(struct change));
	}
	return *l;
}

/* The memo's entry for (vendor, from, to), emptied if another pair had it. */
static struct pair_memo *memo_of(struct mx_fctx *c, int vendor, int64_t from, int64_t to)
{
	uint64_t h = ((uint64_t)from * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)to * 0xc2b2ae3d27d4eb4full) ^
	             (uint64_t)vendor;
	struct pair_memo *e = &c->memo[(h ^ h >> 29) % PAIR_MEMO];
	if (e->from != from || e->to != to || e->vendor != vendor)
		*e = (struct pair_memo){.from = from, .to = to, .vendor = vendor};
	return e;
}

static bool already_enabled(const struct pw_event *ev)
{
	if (ev->ret_name)
		return strstr(ev->ret_name, "AlreadyEnabled") || strstr(ev->ret_name, "ALREADY_ENABLED");
	return !strcmp(ev->vendor, "cuda") && ev->ret == 704; /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
}

/* The devices of a top-level enable or disable of peer access: from cur_dev
 * to the peer. */
static bool peer_call(const struct pw_event *ev, int64_t *from, int64_t *to, bool *on)
{
	bool enable = op_is(ev, "peer_enable");
	if (!enable && !op_is(ev, "peer_disable"))
		return false;
	*from = ev->cur_dev;
	*to = pw_arg_dev(ev, "peer_dev");
	if (*to == PW_DEV_NONE)
		*to = pw_arg_dev(ev, "peer_ctx_dev");
	*on = enable;
	return *from != PW_DEV_NONE && *to != PW_DEV_NONE && !ev->parent_recorded;
}

/* An enable or disable of peer access from cur_dev to the peer: an enable
 * that succeeded, or found access already on, leaves it on. */
static bool peer_change(const struct pw_event *ev, int64_t *from, int64_t *to, bool *on)
{
	if (!peer_call(ev, from, to, on))
		return false;
	return ev->ret == 0 || (*on && already_enabled(ev));
}

/* An enable the runtime refused (too many peers, unsupported, ...). */
static bool enable_refused(const struct pw_event *ev, int64_t *from, int64_t *to)
{
	bool on;
	return peer_call(ev, from, to, &on) && on && ev->ret != 0 && !already_enabled(ev);
}

static bool is_grant(const struct pw_event *ev)
{
	bool grant = op_is(ev, "vmm_set_access") || op_is(ev, "pool_set_access");
	return grant && ev->ret == 0 && !ev->parent_recorded && pw_arg_is_array(ev, "access");
}

/* The device of the memory a grant is about (a pool's only when named). */
static int64_t grant_mem_dev(const struct pw_event *ev)
{
	int64_t d = pw_arg_dev(ev, "ptr_dev");
	return d != PW_DEV_NONE ? d : pw_arg_dev(ev, "pool_dev");
}

static bool grant_on(json_t *g)
{
	json_t *fl = json_object_get(g, "flags");
	if (json_is_integer(fl))
		return json_integer_value(fl) != 0; /* CU_MEM_ACCESS_FLAGS_PROT_NONE is 0 */
	return !json_is_string(fl) || strcmp(json_string_value(fl), "none");
}

/* A device reset (args.device, else the current device) drops its peer access. */
static bool reset_of(const struct pw_event *ev, int64_t *dev)
{
	if (!op_is(ev, "device_reset"))
		return false;
	*dev = pw_arg_dev(ev, "device");
	if (*dev == PW_DEV_NONE)
		*dev = ev->cur_dev;
	return ev->ret == 0 && *dev != PW_DEV_NONE && !ev->parent_recorded;
}

/* the ops (and, for traces without them, the API names) of the peer-access
 * changes, device times, nested copies — not "peer_copy", a trace's most
 * common op: a key that matched it parsed every copy twice */
static const char *const pre_keys[] = {"\"op\":\"peer_enable\"",
                                       "\"op\":\"peer_disable\"",
                                       "_set_access\"",
                                       "\"op\":\"device_reset\"",
                                       "PeerAccess\"",
                                       "\"gpu_time\"",
                                       "SetAccess\"",
                                       "DeviceReset\"",
                                       "aclrtResetDevice",
                                       "\"parent\":",
                                       NULL};

static const char *const also_ops[] = {"peer_copy", "implicit_copy", NULL};
static const char *const also_keys[] = {"\"parent\":", NULL};

static void log_change(struct mx_fctx *c, int vendor, int64_t from, int64_t to, struct at at, bool on)
{
	struct vec *v = &log_of(&c->pairs, vendor, from, to, true)->changes;
	struct change *ch = vec_push(v);
	ch->at = at;
	ch->order = v->len;
	ch->on = on;
}

static void mx_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct mx_fctx *c = fctx;
	int64_t from, to, dev;
	bool on;
	if (ev->type == PW_EV_GPU_TIME) {
		*hmap_put_u64(&c->gpu, ev->call) = (void *)(uintptr_t)(ev->gpu_ns + 1);
		return;
	}
	if (ev->type != PW_EV_CALL)
		return;
	/* The device time of a copy the preload timed inside a recorded call
	 * (the runtime's cudaMemcpyPeerAsync reaching cuMemcpyPeerAsync) is
	 * that call's: the copy is counted through its parent.  Whether the
	 * parent is recorded is not known yet (the pre-phase gathers the
	 * seqs): a copy whose parent is not names a seq no call has, which no
	 * copy looks up. */
	if (ev->has_parent && copy_op(ev)) {
		*hmap_put_u64(&c->timed_child, ev->parent) = (void *)(uintptr_t)(ev->seq + 1);
		return;
	}
	int v = vendor_ix(ev->vendor);
	if (peer_change(ev, &from, &to, &on)) {
		log_change(c, v, from, to, at_of(ev), on);
	} else if (reset_of(ev, &dev)) {
		struct reset *r = vec_push(&c->resets);
		r->vendor = v;
		r->dev = dev;
		r->at = at_of(ev);
	} else if (is_grant(ev) && (from = grant_mem_dev(ev)) != PW_DEV_NONE) {
		size_t i;
		json_t *g;
		json_array_foreach(json_object_get(pw_ev_args(ev), "access"), i, g)
		{
			to = json_integer_value(json_object_get(g, "dev"));
			if (to != from && to >= 0) /* not the memory's own device, not the host */
				log_change(c, v, from, to, at_of(ev), grant_on(g));
		}
	}
}

static int by_seq(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int o = at_cmp(x->at, y->at);
	if (o)
		return o;
	return x->order < y->order ? -1 : x->order > y->order; /* qsort is not stable */
}

/* Was access from -> to on just before the call at `at`? */
static bool access_at(struct mx_fctx *c, int vendor, int64_t from, int64_t to, struct at at)
{
	struct pair_memo *e = memo_of(c, vendor, from, to);
	if (!e->has_log) {
		e->log = log_of(&c->pairs, vendor, from, to, false);
		e->has_log = true;
	}
	struct pair_log *l = e->log;
	if (!l)
		return false;
	if (!l->sorted) {
		vec_sort(&l->changes, by_seq);
		l->sorted = true;
	}
	size_t lo = 0, hi = l->changes.len; /* first change at or after `at` */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (at_cmp(((struct change *)vec_at(&l->changes, mid))->at, at) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const struct change *last = vec_at(&l->changes, lo - 1);
	if (!last->on)
		return false;
	for (size_t i = 0; i < c->resets.len; i++) {
		const struct reset *r = vec_at(&c->resets, i);
		if (r->vendor == vendor && (r->dev == from || r->dev == to) && at_cmp(r->at, last->at) > 0 &&
		    at_cmp(r->at, at) < 0)
			return false;
	}
	return true;
}

/* ---- the sink ---- */

static void *mx_partial_new(void *report)
{
	(void)report;
	struct copy_matrix *m = xcalloc(1, sizeof *m);
	hmap_init(&m->cells);
	return m;
}

void copies_free_cell(void *p)
{
	struct copy_cell *c = p;
	free(c->host);
	free(c);
}

static void add_cell(struct copy_cell *b, const struct copy_cell *a)
{
	b->copies = sat_add(b->copies, a->copies);
	b->failed = sat_add(b->failed, a->failed);
	b->bytes = sat_add(b->bytes, a->bytes);
	b->host_ns = sat_add(b->host_ns, a->host_ns);
	b->gpu_copies = sat_add(b->gpu_copies, a->gpu_copies);
	b->gpu_bytes = sat_add(b->gpu_bytes, a->gpu_bytes);
	b->gpu_ns = sat_add(b->gpu_ns, a->gpu_ns);
	b->no_peer = sat_add(b->no_peer, a->no_peer);
	b->no_peer_bytes = sat_add(b->no_peer_bytes, a->no_peer_bytes);
	b->implicit = sat_add(b->implicit, a->implicit);
	b->implicit_bytes = sat_add(b->implicit_bytes, a->implicit_bytes);
	b->batch = sat_add(b->batch, a->batch);
	b->enables = sat_add(b->enables, a->enables);
	b->disables = sat_add(b->disables, a->disables);
	b->grants = sat_add(b->grants, a->grants);
	b->on_at_end = sat_add(b->on_at_end, a->on_at_end);
	b->enable_failed = sat_add(b->enable_failed, a->enable_failed);
}

static void mx_partial_merge(void *report, void *partial)
{
	struct copy_matrix *m = report, *p = partial;
	for (size_t i = 0; i < p->cells.cap; i++) {
		const struct copy_cell *a = p->cells.slots[i].val;
		if (p->cells.slots[i].key)
			add_cell(cell_of(m, a->host, a->vendor, a->file, a->src, a->dst, NULL), a);
	}
	hmap_free(&p->cells, copies_free_cell);
	free(p);
}

static void *mx_file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct mx_fctx *c = xcalloc(1, sizeof *c);
	hmap_init(&c->pairs);
	vec_init(&c->resets, sizeof(struct reset));
	hmap_init(&c->gpu);
	hmap_init(&c->timed_child);
	return c;
}

/* The cell of a pair of the file's, through the memo. */
static struct copy_cell *file_cell(struct copy_matrix *m, struct mx_fctx *c, const struct pw_file *f,
                                   int vendor, int64_t src, int64_t dst)
{
	struct pair_memo *e = memo_of(c, vendor, src, dst);
	if (!e->cell)
		e->cell = cell_of(m, f->host, vendors[vendor], f->index, src, dst, &c->ncells);
	return e->cell;
}

/* One copy (a call, or an entry of a batch) into its cell. */
struct one_copy {
	int64_t src, dst;
	uint64_t bytes, host_ns, copies;
	bool batch;
};

static void put_copy(struct copy_matrix *m, struct mx_fctx *c, const struct pw_file *f,
                     const struct pw_event *ev, const struct one_copy *k)
{
	int v = vendor_ix(ev->vendor);
	struct copy_cell *cl = file_cell(m, c, f, v, k->src, k->dst);
	cl->copies = sat_add(cl->copies, k->copies);
	cl->bytes = sat_add(cl->bytes, k->bytes);
	cl->host_ns = sat_add(cl->host_ns, k->host_ns);
	cl->batch = sat_add(cl->batch, k->batch ? k->copies : 0);
	if (ev->implicit) {
		cl->implicit = sat_add(cl->implicit, k->copies);
		cl->implicit_bytes = sat_add(cl->implicit_bytes, k->bytes);
	}
	uintptr_t g = !k->batch && c->gpu.len ? (uintptr_t)hmap_get_u64(&c->gpu, ev->seq) : 0;
	if (!g && !k->batch && c->gpu.len && c->timed_child.len) {
		uintptr_t child = (uintptr_t)hmap_get_u64(&c->timed_child, ev->seq);
		if (child)
			g = (uintptr_t)hmap_get_u64(&c->gpu, child - 1);
	}
	if (g) {
		cl->gpu_copies++;
		cl->gpu_bytes = sat_add(cl->gpu_bytes, k->bytes);
		cl->gpu_ns = sat_add(cl->gpu_ns, g - 1);
	}
	if (k->src >= 0 && k->dst >= 0 && k->src != k->dst && !access_at(c, v, k->src, k->dst, at_of(ev)) &&
	    !access_at(c, v, k->dst, k->src, at_of(ev))) {
		cl->no_peer = sat_add(cl->no_peer, k->copies);
		cl->no_peer_bytes = sat_add(cl->no_peer_bytes, k->bytes);
	}
}

/* A batch: each listed entry in its own pair, its share of the call's time
 * by bytes; entries beyond the listed ones (the preload lists the first
 * few) go to the call's own pair, with the bytes the list does not have. */
static void add_batch(struct copy_matrix *m, struct mx_fctx *c, const struct pw_file *f,
                      const struct pw_event *ev, json_t *list)
{
	uint64_t total = 0, listed = 0, count = 0, dur = (uint64_t)ev->dur_ns;
	size_t i;
	json_t *e;
	pw_arg_u64(ev, "bytes", &total);
	json_array_foreach(list, i, e)
	{
		uint64_t b;
		listed = sat_add(listed, pw_json_u64(json_object_get(e, "bytes"), &b) ? b : 0);
	}
	uint64_t denom = total > listed ? total : listed;
	json_array_foreach(list, i, e)
	{
		struct one_copy k = {entry_dev(e, "src"), entry_dev(e, "dst"), 0, 0, 1, true};
		if (!pw_json_u64(json_object_get(e, "bytes"), &k.bytes))
			k.bytes = 0;
		k.host_ns = denom ? (uint64_t)((double)dur * (double)k.bytes / (double)denom)
		                  : dur / json_array_size(list); /* no bytes: equal shares */
		put_copy(m, c, f, ev, &k);
	}
	if (pw_arg_u64(ev, "count", &count) && count > json_array_size(list)) {
		struct one_copy k = {side_dev(ev, "src"), side_dev(ev, "dst"), 0, 0, 0, true};
		k.copies = count - json_array_size(list);
		k.bytes = total > listed ? total - listed : 0;
		k.host_ns = denom ? (uint64_t)((double)dur * (double)k.bytes / (double)denom) : 0;
		put_copy(m, c, f, ev, &k);
	}
}

static void add_copy(struct copy_matrix *m, struct mx_fctx *c, const struct pw_file *f,
                     const struct pw_event *ev)
{
	/* the args as JSON only for a batch's list: most copies have none */
	json_t *list = pw_arg_is_array(ev, "copies") ? json_object_get(pw_ev_args(ev), "copies") : NULL;
	if (ev->ret != 0) {
		cell_of(m, f->host, ev->vendor, f->index, side_dev(ev, "src"), side_dev(ev, "dst"),
		        &c->ncells)
		    ->failed++;
		return;
	}
	if (json_is_array(list) && json_array_size(list)) {
		add_batch(m, c, f, ev, list);
		return;
	}
	struct one_copy k = {side_dev(ev, "src"), side_dev(ev, "dst"), 0, (uint64_t)ev->dur_ns, 1,
	                     json_is_array(list)};
	pw_arg_u64(ev, "bytes", &k.bytes);
	put_copy(m, c, f, ev, &k);
}

static void mx_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct copy_matrix *m = partial;
	struct mx_fctx *c = fctx;
	int64_t from, to;
	bool on;
	if (ev->type != PW_EV_CALL)
		return;
	if (is_copy(ev)) {
		add_copy(m, c, f, ev);
	} else if (peer_change(ev, &from, &to, &on) && ev->ret == 0) {
		struct copy_cell *cl = cell_of(m, f->host, ev->vendor, f->index, from, to, &c->ncells);
		cl->enables += on;
		cl->disables += !on;
	} else if (enable_refused(ev, &from, &to)) {
		cell_of(m, f->host, ev->vendor, f->index, from, to, &c->ncells)->enable_failed++;
	} else if (is_grant(ev) && (from = grant_mem_dev(ev)) != PW_DEV_NONE) {
		size_t i;
		json_t *g;
		json_array_foreach(json_object_get(pw_ev_args(ev), "access"), i, g)
		{
			to = json_integer_value(json_object_get(g, "dev"));
			if (to != from && to >= 0 && to <= INT32_MAX)
				cell_of(m, f->host, ev->vendor, f->index, from, to, &c->ncells)->grants++;
		}
	}
}

static void free_log(void *p)
{
	struct pair_log *l = p;
	vec_free(&l->changes);
	free(l);
}

static int by_pair_key(const void *a, const void *b)
{
	const int64_t *x = *(const int64_t *const *)a, *y = *(const int64_t *const *)b;
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The state each pair was left in when the trace ends. */
static void mx_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct copy_matrix *m = partial;
	struct mx_fctx *c = fctx;
	/* in the keys' order, not the hash's: a pair with no cell yet makes
	 * one, and past MAX_FILE_CELLS which ones do must not vary by run */
	const int64_t **keys = xcalloc(c->pairs.len + 1, sizeof *keys);
	size_t n = 0;
	for (size_t i = 0; i < c->pairs.cap; i++)
		if (c->pairs.slots[i].key)
			keys[n++] = c->pairs.slots[i].key;
	qsort(keys, n, sizeof *keys, by_pair_key);
	for (size_t i = 0; i < n; i++) {
		const int64_t *k = keys[i];
		if (access_at(c, (int)k[0], k[1], k[2], (struct at){UINT64_MAX, UINT64_MAX}))
			cell_of(m, f->host, vendors[k[0]], f->index, k[1], k[2], &c->ncells)->on_at_end++;
	}
	free(keys);
	hmap_free(&c->pairs, free_log);
	vec_free(&c->resets);
	hmap_free(&c->gpu, NULL);
	hmap_free(&c->timed_child, NULL);
	free(c);
}

const struct pw_sink_ops copies_ops = {
    .partial_new = mx_partial_new,
    .partial_merge = mx_partial_merge,
    .file_begin = mx_file_begin,
    .pre_keys = pre_keys,
    .pre_event = mx_pre_event,
    .event = mx_event,
    .file_end = mx_file_end,
    .nesting = true,
    /* a call line acts by its op (peer access, resets, grants), and a copy
     * when it is nested: by its "parent" member, searched in copies only */
    .pre_by_op = true,
    .pre_also_ops = also_ops,
    .pre_also_keys = also_keys,
};

/* ---- merged onto the physical devices ---- */

void copies_regroup(struct copy_matrix *to, const struct copy_matrix *from, const struct pw_devmap *dm)
{
	for (size_t i = 0; i < from->cells.cap; i++) {
		const struct copy_cell *a = from->cells.slots[i].val;
		if (!from->cells.slots[i].key)
			continue;
		int64_t s = a->file == COPIES_MERGED ? a->src : pw_devkey(dm, a->file, a->vendor, a->src),
		        d = a->file == COPIES_MERGED ? a->dst : pw_devkey(dm, a->file, a->vendor, a->dst);
		add_cell(cell_of(to, a->host, a->vendor, COPIES_MERGED, s, d, NULL), a);
	}
}

static int by_cell(const void *a, const void *b)
{
	const struct copy_cell *x = *(void *const *)a, *y = *(void *const *)b;
	int h = strcmp(x->host, y->host);
	if (h)
		return h;
	h = strcmp(x->vendor, y->vendor);
	if (h)
		return h;
	int s = pw_devkey_cmp(x->src, y->src);
	return s ? s : pw_devkey_cmp(x->dst, y->dst);
}

struct copy_cell **copies_sorted(const struct copy_matrix *m)
{
	struct copy_cell **v = xcalloc(m->cells.len + 1, sizeof(void *));
	size_t n = 0;
	for (size_t i = 0; i < m->cells.cap; i++)
		if (m->cells.slots[i].key)
			v[n++] = m->cells.slots[i].val;
	if (n > 1)
		qsort(v, n, sizeof(void *), by_cell);
	return v;
}

static int by_dev(const void *a, const void *b)
{
	return pw_devkey_cmp(*(const int64_t *)a, *(const int64_t *)b);
}

int64_t *copies_devices(struct copy_cell **cells, size_t from, size_t to, size_t *n)
{
	int64_t *d = xcalloc(2 * (to - from) + 1, sizeof *d);
	size_t k = 0;
	for (size_t i = from; i < to; i++) {
		d[k++] = cells[i]->src;
		d[k++] = cells[i]->dst;
	}
	qsort(d, k, sizeof *d, by_dev);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || d[u - 1] != d[i])
			d[u++] = d[i];
	*n = u;
	return d;
}

const struct copy_cell *copies_find(struct copy_cell **cells, size_t from, size_t to, int64_t s, int64_t d)
{
	for (size_t i = from; i < to; i++)
		if (cells[i]->src == s && cells[i]->dst == d)
			return cells[i];
	return NULL;
}

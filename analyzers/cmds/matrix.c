/*
 * matrix: per host and vendor, device x device — bytes, copies and
 * bandwidth of the copies between devices, peer-access state, and the
 * copies made while peer access between the two devices was off.
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
 * The text report draws three grids per host and vendor: bytes, peer access
 * at exit (on / off / refused) and device GB/s, then the pair table.
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
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/devices.h"
#include "read/files.h"
#include "read/json.h"
#include "read/reader.h"

/* -1 is CU_DEVICE_CPU, and how host memory of a copy is kept here. */
#define DEV_HOST (-1)
/* Pairs kept per partial: a trace naming more device pairs than any machine
 * has is counted in an "unknown" pair rather than growing without end. */
#define MAX_CELLS 65536

struct cell {
	char *host;
	char vendor[8];
	size_t file;      /* the process, while reading; MERGED once devices are physical */
	int64_t src, dst; /* ordinals while reading; device keys (devices.h) once merged */
	uint64_t copies, failed, bytes, host_ns;
	uint64_t gpu_copies, gpu_bytes, gpu_ns;
	uint64_t no_peer, no_peer_bytes;
	uint64_t implicit, implicit_bytes, batch;
	uint64_t enables, disables, grants, on_at_end;
	uint64_t enable_failed; /* enables the runtime refused (not "already enabled") */
};

struct matrix {
	struct hmap cells; /* host "\0" vendor "\0" file src dst -> struct cell */
};

#define MERGED ((size_t)-1)

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

struct mx_fctx {
	struct hmap pairs; /* (vendor, from, to) -> struct pair_log: from has access to to */
	struct vec resets; /* struct reset: a device reset drops its peer access */
	struct hmap gpu;   /* call seq -> gpu_ns + 1 */
	/* parent seq -> seq + 1 of the copy nested in it (cudaMemcpyPeerAsync's cuMemcpyPeerAsync) */
	struct hmap timed_child;
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

static struct cell *cell_of(struct matrix *m, const char *host, const char *vendor, size_t file, int64_t src,
                            int64_t dst)
{
	size_t len;
	char *k = cell_key(host, vendor, file, src, dst, &len);
	if (m->cells.len >= MAX_CELLS && !hmap_get(&m->cells, k, len)) {
		free(k);
		host = "?";
		src = dst = PW_DEV_NONE;
		file = MERGED;
		k = cell_key(host, vendor, file, src, dst, &len);
	}
	struct cell **c = (struct cell **)hmap_put(&m->cells, k, len);
	free(k);
	if (!*c) {
		*c = xcalloc(1, sizeof **c);
		(*c)->host = xstrdup(host);
		snprintf((*c)->vendor, sizeof(*c)->vendor, "%s", vendor);
		(*c)->file = file;
		(*c)->src = src;
		(*c)->dst = dst;
	}
	return *c;
}

static int64_t side_dev(json_t *obj, const char *side)
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
	if (ev->implicit || is_peer_copy(ev) || json_is_array(json_object_get(ev->args, "copies")))
		return true;
	int64_t s = side_dev(ev->args, "src"), d = side_dev(ev->args, "dst");
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
	return grant && ev->ret == 0 && !ev->parent_recorded &&
	       json_is_array(json_object_get(ev->args, "access"));
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

static bool mx_pre_filter(const char *line, size_t len)
{
	/* the ops (and, for traces without them, the API names) of the
	 * peer-access changes, device times, nested copies */
#define HAS(lit) (memmem(line, len, lit, sizeof lit - 1) != NULL)
	return HAS("\"op\":\"peer_") || HAS("_set_access\"") || HAS("\"op\":\"device_reset\"") ||
	       HAS("PeerAccess\"") || HAS("\"gpu_time\"") || HAS("SetAccess\"") || HAS("Reset") ||
	       HAS("\"parent\":");
#undef HAS
}

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
	 * that call's: the copy is counted through its parent. */
	if (ev->parent_recorded && copy_op(ev)) {
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
		json_array_foreach(json_object_get(ev->args, "access"), i, g)
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
	struct pair_log *l = log_of(&c->pairs, vendor, from, to, false);
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
	struct matrix *m = xcalloc(1, sizeof *m);
	hmap_init(&m->cells);
	return m;
}

static void free_cell(void *p)
{
	struct cell *c = p;
	free(c->host);
	free(c);
}

static void add_cell(struct cell *b, const struct cell *a)
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
	struct matrix *m = report, *p = partial;
	for (size_t i = 0; i < p->cells.cap; i++) {
		const struct cell *a = p->cells.slots[i].val;
		if (p->cells.slots[i].key)
			add_cell(cell_of(m, a->host, a->vendor, a->file, a->src, a->dst), a);
	}
	hmap_free(&p->cells, free_cell);
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

/* One copy (a call, or an entry of a batch) into its cell. */
struct one_copy {
	int64_t src, dst;
	uint64_t bytes, host_ns, copies;
	bool batch;
};

static void put_copy(struct matrix *m, struct mx_fctx *c, const struct pw_file *f, const struct pw_event *ev,
                     const struct one_copy *k)
{
	struct cell *cl = cell_of(m, f->host, ev->vendor, f->index, k->src, k->dst);
	int v = vendor_ix(ev->vendor);
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
static void add_batch(struct matrix *m, struct mx_fctx *c, const struct pw_file *f, const struct pw_event *ev,
                      json_t *list)
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
		struct one_copy k = {side_dev(e, "src"), side_dev(e, "dst"), 0, 0, 1, true};
		if (!pw_json_u64(json_object_get(e, "bytes"), &k.bytes))
			k.bytes = 0;
		k.host_ns = denom ? (uint64_t)((double)dur * (double)k.bytes / (double)denom)
		                  : dur / json_array_size(list); /* no bytes: equal shares */
		put_copy(m, c, f, ev, &k);
	}
	if (pw_arg_u64(ev, "count", &count) && count > json_array_size(list)) {
		struct one_copy k = {side_dev(ev->args, "src"), side_dev(ev->args, "dst"), 0, 0, 0, true};
		k.copies = count - json_array_size(list);
		k.bytes = total > listed ? total - listed : 0;
		k.host_ns = denom ? (uint64_t)((double)dur * (double)k.bytes / (double)denom) : 0;
		put_copy(m, c, f, ev, &k);
	}
}

static void add_copy(struct matrix *m, struct mx_fctx *c, const struct pw_file *f, const struct pw_event *ev)
{
	json_t *list = json_object_get(ev->args, "copies");
	if (ev->ret != 0) {
		cell_of(m, f->host, ev->vendor, f->index, side_dev(ev->args, "src"),
		        side_dev(ev->args, "dst"))
		    ->failed++;
		return;
	}
	if (json_is_array(list) && json_array_size(list)) {
		add_batch(m, c, f, ev, list);
		return;
	}
	struct one_copy k = {side_dev(ev->args, "src"), side_dev(ev->args, "dst"), 0, (uint64_t)ev->dur_ns, 1,
	                     json_is_array(list)};
	pw_arg_u64(ev, "bytes", &k.bytes);
	put_copy(m, c, f, ev, &k);
}

static void mx_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct matrix *m = partial;
	int64_t from, to;
	bool on;
	if (ev->type != PW_EV_CALL)
		return;
	if (is_copy(ev)) {
		add_copy(m, fctx, f, ev);
	} else if (peer_change(ev, &from, &to, &on) && ev->ret == 0) {
		struct cell *cl = cell_of(m, f->host, ev->vendor, f->index, from, to);
		cl->enables += on;
		cl->disables += !on;
	} else if (enable_refused(ev, &from, &to)) {
		cell_of(m, f->host, ev->vendor, f->index, from, to)->enable_failed++;
	} else if (is_grant(ev) && (from = grant_mem_dev(ev)) != PW_DEV_NONE) {
		size_t i;
		json_t *g;
		json_array_foreach(json_object_get(ev->args, "access"), i, g)
		{
			to = json_integer_value(json_object_get(g, "dev"));
			if (to != from && to >= 0 && to <= INT32_MAX)
				cell_of(m, f->host, ev->vendor, f->index, from, to)->grants++;
		}
	}
}

static void free_log(void *p)
{
	struct pair_log *l = p;
	vec_free(&l->changes);
	free(l);
}

/* The state each pair was left in when the trace ends. */
static void mx_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct matrix *m = partial;
	struct mx_fctx *c = fctx;
	for (size_t i = 0; i < c->pairs.cap; i++) {
		if (!c->pairs.slots[i].key)
			continue;
		const int64_t *k = c->pairs.slots[i].key;
		if (access_at(c, (int)k[0], k[1], k[2], (struct at){UINT64_MAX, UINT64_MAX}))
			cell_of(m, f->host, vendors[k[0]], f->index, k[1], k[2])->on_at_end++;
	}
	hmap_free(&c->pairs, free_log);
	vec_free(&c->resets);
	hmap_free(&c->gpu, NULL);
	hmap_free(&c->timed_child, NULL);
	free(c);
}

static const struct pw_sink_ops matrix_ops = {
    .partial_new = mx_partial_new,
    .partial_merge = mx_partial_merge,
    .file_begin = mx_file_begin,
    .pre_filter = mx_pre_filter,
    .pre_event = mx_pre_event,
    .event = mx_event,
    .file_end = mx_file_end,
    .nesting = true,
};

/* ---- output ---- */

/* The physical devices of the traces; the cells below are merged onto them. */
static const struct pw_devmap *dm;

/* Devices in order: host memory, ordinals, physical devices, unknown. */
static int dev_cmp(int64_t a, int64_t b)
{
	return pw_devkey_cmp(a, b);
}

static void fmt_key(char *buf, size_t len, int64_t key)
{
	pw_devkey_fmt(dm, key, buf, len);
}

/* Each process's cells onto the physical devices its ordinals name (a
 * process without device lines keeps its ordinals, merged by number). */
static void regroup(struct matrix *to, const struct matrix *from)
{
	for (size_t i = 0; i < from->cells.cap; i++) {
		const struct cell *a = from->cells.slots[i].val;
		if (!from->cells.slots[i].key)
			continue;
		int64_t s = a->file == MERGED ? a->src : pw_devkey(dm, a->file, a->vendor, a->src),
		        d = a->file == MERGED ? a->dst : pw_devkey(dm, a->file, a->vendor, a->dst);
		add_cell(cell_of(to, a->host, a->vendor, MERGED, s, d), a);
	}
}

static int by_cell(const void *a, const void *b)
{
	const struct cell *x = *(void *const *)a, *y = *(void *const *)b;
	int h = strcmp(x->host, y->host);
	if (h)
		return h;
	h = strcmp(x->vendor, y->vendor);
	if (h)
		return h;
	int s = dev_cmp(x->src, y->src);
	return s ? s : dev_cmp(x->dst, y->dst);
}

static struct cell **sorted_cells(const struct matrix *m)
{
	struct cell **v = xcalloc(m->cells.len + 1, sizeof(void *));
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
	return dev_cmp(*(const int64_t *)a, *(const int64_t *)b);
}

/* The devices of one host's cells [from, to), sorted, without repeats. */
static int64_t *devices_of(struct cell **cells, size_t from, size_t to, size_t *n)
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

static const struct cell *find_cell(struct cell **cells, size_t from, size_t to, int64_t s, int64_t d)
{
	for (size_t i = from; i < to; i++)
		if (cells[i]->src == s && cells[i]->dst == d)
			return cells[i];
	return NULL;
}

/* Beyond this many devices on a host the grid would not fit a screen; the
 * pair table below it says everything anyway. */
#define GRID_MAX 32

/* What one grid shows in a cell; false: "-". */
typedef bool (*grid_fmt)(char *buf, size_t len, const struct cell *c);

static bool grid_bytes(char *buf, size_t len, const struct cell *c)
{
	if (!c->copies)
		return false;
	fmt_bytes(buf, len, c->bytes);
	return true;
}

/* Peer access from SRC to DST as the processes left it: "on" where one
 * left it on, "off" where it was turned on (or granted) and off again,
 * "refused" where every enable failed (llama.cpp#21883's too many peers). */
static bool grid_peer(char *buf, size_t len, const struct cell *c)
{
	if (c->on_at_end)
		snprintf(buf, len, "on");
	else if (c->enables || c->grants)
		snprintf(buf, len, "off");
	else if (c->enable_failed)
		snprintf(buf, len, "refused");
	else
		return false;
	return true;
}

static bool grid_gpu(char *buf, size_t len, const struct cell *c)
{
	if (!c->gpu_ns)
		return false;
	fmt_gbps(buf, len, c->gpu_bytes, c->gpu_ns);
	return true;
}

static void print_grid(struct cell **cells, size_t from, size_t to, const char *title, grid_fmt fmt)
{
	size_t nd;
	int64_t *dev = devices_of(cells, from, to, &nd);
	if (nd > GRID_MAX) {
		printf("  %s: %zu devices, too many for a grid, see the table\n", title, nd);
		free(dev);
		return;
	}
	char(*buf)[32] = xcalloc(nd + 1, sizeof *buf);
	const char **cell = xcalloc(nd + 1, sizeof *cell);
	char align[GRID_MAX + 2] = "l";
	cell[0] = "SRC\\DST";
	for (size_t j = 0; j < nd; j++) {
		fmt_key(buf[j + 1], sizeof buf[j + 1], dev[j]);
		cell[j + 1] = buf[j + 1];
		align[j + 1] = 'r';
	}
	align[nd + 1] = 0;
	struct table t;
	table_initv(&t, align, cell);
	for (size_t i = 0; i < nd; i++) {
		fmt_key(buf[0], sizeof buf[0], dev[i]);
		cell[0] = buf[0];
		for (size_t j = 0; j < nd; j++) {
			const struct cell *c = find_cell(cells, from, to, dev[i], dev[j]);
			if (!c || !fmt(buf[j + 1], sizeof buf[j + 1], c))
				snprintf(buf[j + 1], sizeof buf[j + 1], "-");
		}
		table_rowv(&t, cell);
	}
	printf("  %s\n", title);
	table_print(&t, stdout, "  ");
	table_free(&t);
	free(buf);
	free(cell);
	free(dev);
}

/* The grids of one host and vendor: bytes, peer access where any was
 * turned on, device bandwidth where any copy was timed on the device. */
static void print_grids(struct cell **cells, size_t from, size_t to)
{
	bool peer = false, gpu = false, copies = false;
	for (size_t i = from; i < to; i++) {
		copies |= cells[i]->copies > 0;
		peer |= cells[i]->enables || cells[i]->grants || cells[i]->enable_failed;
		gpu |= cells[i]->gpu_ns > 0;
	}
	if (copies)
		print_grid(cells, from, to, "bytes copied (row: source, column: destination)", grid_bytes);
	if (peer) {
		if (copies)
			printf("\n");
		print_grid(cells, from, to,
		           "peer access at exit (row: the device that has access, column: its peer)",
		           grid_peer);
	}
	if (gpu) {
		printf("\n");
		print_grid(cells, from, to,
		           "device-measured GB/s (gpu_timing=1; row: source, column: destination)", grid_gpu);
	}
}

static void print_pairs(struct cell **cells, size_t from, size_t to)
{
	struct table t;
	table_init(&t, "lllrrrrrrrrrrr", "SRC", "DST", "LINK", "COPIES", "FAILED", "BYTES", "HOST TIME",
	           "HOST GB/S", "GPU GB/S", "NO PEER", "IMPLICIT", "PEER ON/OFF", "GRANTS", "ON AT END");
	for (size_t i = from; i < to; i++) {
		const struct cell *c = cells[i];
		char s[32], d[32], ln[48], n[24], fl[24], by[32], ht[32], hg[32], gg[32], np[24], im[24],
		    oo[48], gr[24], end[24];
		fmt_key(s, sizeof s, c->src);
		fmt_key(d, sizeof d, c->dst);
		pw_link_fmt(pw_devmap_link(dm, c->src, c->dst), ln, sizeof ln);
		snprintf(n, sizeof n, "%llu", (unsigned long long)c->copies);
		snprintf(fl, sizeof fl, "%llu", (unsigned long long)c->failed);
		fmt_bytes(by, sizeof by, c->bytes);
		fmt_ns(ht, sizeof ht, (double)c->host_ns);
		fmt_gbps(hg, sizeof hg, c->bytes, c->host_ns);
		fmt_gbps(gg, sizeof gg, c->gpu_bytes, c->gpu_ns);
		bool judged = c->src >= 0 && c->dst >= 0 && c->src != c->dst;
		snprintf(np, sizeof np, judged ? "%llu" : "-", (unsigned long long)c->no_peer);
		snprintf(oo, sizeof oo, "%llu/%llu", (unsigned long long)c->enables,
		         (unsigned long long)c->disables);
		snprintf(end, sizeof end, "%llu", (unsigned long long)c->on_at_end);
		snprintf(im, sizeof im, "%llu", (unsigned long long)c->implicit);
		snprintf(gr, sizeof gr, "%llu", (unsigned long long)c->grants);
		table_row(&t, s, d, ln, n, fl, by, ht, hg, gg, np, im, oo, gr, end);
	}
	printf("\n");
	table_print(&t, stdout, "  ");
	table_free(&t);
}

static void print_text(const struct matrix *m, const struct pw_input *in)
{
	struct cell **cells = sorted_cells(m);
	size_t n = m->cells.len;
	if (!n)
		printf("no copies between devices or peer-access changes in the traces\n");
	for (size_t from = 0; from < n;) {
		size_t to = from;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host) &&
		       !strcmp(cells[to]->vendor, cells[from]->vendor))
			to++;
		char *h = sanitize(cells[from]->host);
		printf("%shost %s, %s devices\n", from ? "\n" : "", h, cells[from]->vendor);
		free(h);
		pw_devmap_legend(dm, in, cells[from]->host, cells[from]->vendor, "  ");
		print_grids(cells, from, to);
		print_pairs(cells, from, to);
		from = to;
	}
	if (n)
		printf(
		    "\nGB/s: 10^9 bytes/s.  HOST TIME: time in the call (an async copy returns before it is "
		    "done).\nNO PEER: copies between two devices while neither had peer access to the other "
		    "enabled (staged through the host).\nIMPLICIT: copies the program did not name as peer "
		    "copies (cuMemcpy and the like across devices; batch entries each count).\nPEER ON/OFF: "
		    "successful enables/disables from SRC's context to DST's; GRANTS: cuMemSetAccess/"
		    "cuMemPoolSetAccess\ngrants to DST of memory on SRC; ON AT END: processes that left "
		    "access "
		    "on.\nA call made inside another recorded call counts only through that call.\nGPUn: a "
		    "device by its UUID, numbered by PCI bus id among those the traces name (the legend "
		    "gives each process's ordinal of it); LINK: NVn (NVLinks), via NVSwitch, PCIe, as the "
		    "management library told the traced process.\n");
	if (n && pw_devmap_note(dm))
		printf("%s.\n", pw_devmap_note(dm));
	free(cells);
}

static json_t *gbps_json(uint64_t bytes, uint64_t ns)
{
	return ns ? json_real((double)bytes / (double)ns) : json_null();
}

static json_t *dev_json(int64_t d)
{
	return pw_devkey_json(dm, d);
}

static json_t *cell_json(const struct cell *c)
{
	json_t *j = json_object();
	json_object_set_new(j, "src", dev_json(c->src));
	json_object_set_new(j, "dst", dev_json(c->dst));
	json_object_set_new(j, "link", pw_link_json(pw_devmap_link(dm, c->src, c->dst)));
	json_object_set_new(j, "copies", json_u64(c->copies));
	json_object_set_new(j, "failed", json_u64(c->failed));
	json_object_set_new(j, "bytes", json_u64(c->bytes));
	json_object_set_new(j, "host_ns", json_u64(c->host_ns));
	json_object_set_new(j, "host_gbps", gbps_json(c->bytes, c->host_ns));
	json_object_set_new(j, "gpu_copies", json_u64(c->gpu_copies));
	json_object_set_new(j, "gpu_bytes", json_u64(c->gpu_bytes));
	json_object_set_new(j, "gpu_ns", json_u64(c->gpu_ns));
	json_object_set_new(j, "gpu_gbps", gbps_json(c->gpu_bytes, c->gpu_ns));
	bool judged = c->src >= 0 && c->dst >= 0 && c->src != c->dst;
	json_object_set_new(j, "no_peer_copies", judged ? json_u64(c->no_peer) : json_null());
	json_object_set_new(j, "no_peer_bytes", judged ? json_u64(c->no_peer_bytes) : json_null());
	json_object_set_new(j, "implicit_copies", json_u64(c->implicit));
	json_object_set_new(j, "implicit_bytes", json_u64(c->implicit_bytes));
	json_object_set_new(j, "batch_copies", json_u64(c->batch));
	json_object_set_new(j, "peer_enables", json_u64(c->enables));
	json_object_set_new(j, "peer_enable_failures", json_u64(c->enable_failed));
	json_object_set_new(j, "peer_disables", json_u64(c->disables));
	json_object_set_new(j, "access_grants", json_u64(c->grants));
	json_object_set_new(j, "peer_on_at_end", json_u64(c->on_at_end));
	return j;
}

static void print_json(const struct matrix *m, const struct pw_input *in)
{
	struct cell **cells = sorted_cells(m);
	size_t n = m->cells.len;
	json_t *doc = json_object(), *hosts = json_array();
	for (size_t from = 0; from < n;) {
		size_t to = from, nd;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host) &&
		       !strcmp(cells[to]->vendor, cells[from]->vendor))
			to++;
		json_t *h = json_object(), *devs = json_array(), *pairs = json_array();
		int64_t *dev = devices_of(cells, from, to, &nd);
		for (size_t i = 0; i < nd; i++)
			json_array_append_new(devs, dev_json(dev[i]));
		free(dev);
		for (size_t i = from; i < to; i++)
			json_array_append_new(pairs, cell_json(cells[i]));
		json_object_set_new(h, "host", json_string(cells[from]->host));
		json_object_set_new(h, "vendor", json_string(cells[from]->vendor));
		json_object_set_new(h, "devices", devs);
		json_object_set_new(h, "identities",
		                    pw_devmap_json(dm, in, cells[from]->host, cells[from]->vendor));
		json_object_set_new(h, "pairs", pairs);
		json_array_append_new(hosts, h);
		from = to;
	}
	json_object_set_new(doc, "hosts", hosts);
	json_object_set_new(doc, "traces_without_devices", json_integer((json_int_t)dm->unidentified));
	json_print(doc);
	free(cells);
}

int cmd_matrix(const struct pw_opts *o)
{
	struct matrix m;
	struct pw_input in = {0};
	hmap_init(&m.cells);
	struct pw_sink sink = {&matrix_ops, &m};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n) {
		struct pw_devmap map;
		struct matrix merged;
		pw_devmap_build(&map, &in);
		dm = &map;
		hmap_init(&merged.cells);
		regroup(&merged, &m);
		if (o->json)
			print_json(&merged, &in);
		else
			print_text(&merged, &in);
		hmap_free(&merged.cells, free_cell);
		pw_devmap_free(&map);
		dm = NULL;
	}
	hmap_free(&m.cells, free_cell);
	pw_input_free(&in);
	return an_exit(st);
}

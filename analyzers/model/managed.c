/*
 * Managed memory in the traces: managed allocations (cuMemAllocManaged,
 * cudaMallocManaged, hipMallocManaged) and their frees, the history of
 * advice, prefetches and stream attachment per allocation, and prefetch volume per
 * vendor and destination
 * (cu/cuda/hipMemPrefetchAsync, hipMemPrefetchAsync_v2, and each listed
 * range of cuMemPrefetchBatchAsync / cuMemDiscardAndPrefetchBatchAsync).
 * A call nested in a recorded call (cudaMallocManaged's cuMemAllocManaged)
 * counts only through that call.
 *
 * Which pointers are managed is learnt in each file's pre-phase, so that a
 * free is recognised whatever thread wrote it first.  A process that
 * advises in a loop could make the history endless: at most HISTORY_MAX
 * records per trace are kept, and the rest counted.  managed prints them;
 * report draws them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/managed.h"
#include "model/procs.h"
#include "read/json.h"

/* Process order: by t_ns, then seq (threads take seq numbers in blocks, so
 * between threads seq alone is not the order of the calls). */
static int ord_cmp(uint64_t t1, uint64_t s1, uint64_t t2, uint64_t s2)
{
	if (t1 != t2)
		return t1 < t2 ? -1 : 1;
	return s1 < s2 ? -1 : s1 > s2;
}

struct m_fctx {
	struct hmap managed; /* pointers cuMemAllocManaged returned in this file */
	size_t kept;
};

void managed_init(struct managed *m)
{
	memset(m, 0, sizeof *m);
	vec_init(&m->allocs, sizeof(struct m_alloc));
	vec_init(&m->ops, sizeof(struct m_op));
	hmap_init(&m->dests);
}

static void free_dest(void *p)
{
	struct m_dest *d = p;
	free(d->host);
	free(d->vendor);
	free(d->dest);
	free(d);
}

void managed_free(struct managed *m)
{
	for (size_t i = 0; i < m->allocs.len; i++)
		free(((struct m_alloc *)vec_at(&m->allocs, i))->flags);
	for (size_t i = 0; i < m->ops.len; i++) {
		struct m_op *op = vec_at(&m->ops, i);
		free(op->api);
		free(op->what);
		free(op->target);
		free(op->result);
	}
	vec_free(&m->allocs);
	vec_free(&m->ops);
	hmap_free(&m->dests, free_dest);
}

/* A destination: a device of one process (file, dev), or by its name. */
static struct m_dest *dest_at(struct managed *m, const char *host, const char *vendor, size_t file,
                              int64_t dev, const char *dest)
{
	size_t hl = strlen(host), vl = strlen(vendor), dl = strlen(dest);
	uint64_t fi = dev == PW_DEV_NONE ? 0 : file;
	char *k = xmalloc(hl + vl + dl + 19);
	memcpy(k, host, hl + 1);
	memcpy(k + hl + 1, vendor, vl + 1);
	memcpy(k + hl + vl + 2, dest, dl + 1);
	memcpy(k + hl + vl + dl + 3, &fi, 8);
	memcpy(k + hl + vl + dl + 11, &dev, 8);
	struct m_dest **d = (struct m_dest **)hmap_put(&m->dests, k, hl + vl + dl + 19);
	free(k);
	if (!*d) {
		*d = xcalloc(1, sizeof **d);
		(*d)->host = xstrdup(host);
		(*d)->vendor = xstrdup(vendor);
		(*d)->dest = xstrdup(dest);
		(*d)->file = (size_t)fi;
		(*d)->dev = dev;
	}
	return *d;
}

static struct m_dest *dest_of(struct managed *m, const char *host, const char *vendor, const char *dest)
{
	return dest_at(m, host, vendor, 0, PW_DEV_NONE, dest);
}

/* ---- decoding the calls ---- */

/* A device as a destination or target: "dev1", "host" (-1, CU_DEVICE_CPU),
 * "unknown" when the trace names none (docs/analyze-json.md, managed). */
static void dev_label(char *buf, size_t len, int64_t dev)
{
	if (dev == PW_DEV_NONE)
		snprintf(buf, len, "unknown");
	else
		fmt_dev(buf, len, dev);
}

/* "dev1", "host", "host_numa 0" from a location object or a device arg. */
static void target_of(const struct pw_event *ev, const char *dev_key, char *buf, size_t len)
{
	struct pw_location loc;
	if (pw_arg_location(ev, &loc)) {
		long long i = (long long)loc.id;
		if (loc.type && !strcmp(loc.type, "device"))
			snprintf(buf, len, "dev%lld", i);
		else if (loc.type && !strcmp(loc.type, "host"))
			snprintf(buf, len, "host");
		else if (loc.type)
			snprintf(buf, len, "%s %lld", loc.type, i);
		else
			snprintf(buf, len, "type %lld id %lld", (long long)loc.type_num, i);
		return;
	}
	int64_t d;
	if (pw_arg_i64(ev, dev_key, &d) || pw_arg_i64(ev, "device", &d) || pw_arg_i64(ev, "dev", &d))
		dev_label(buf, len, d < INT32_MIN || d > INT32_MAX ? PW_DEV_NONE : d);
	else
		dev_label(buf, len, PW_DEV_NONE);
}

static char *result_of(const struct pw_event *ev)
{
	if (ev->ret == 0)
		return xstrdup("ok");
	return ev->ret_name ? xstrdup(ev->ret_name) : xasprintf("%lld", (long long)ev->ret);
}

static void add_op(struct managed *m, struct m_fctx *c, const struct pw_file *f, const struct pw_event *ev,
                   const char *what, const char *target)
{
	if (c->kept >= HISTORY_MAX) {
		m->not_kept++;
		return;
	}
	c->kept++;
	struct m_op *op = vec_push(&m->ops);
	op->file = f->index;
	op->seq = ev->seq;
	op->t_ns = ev->t_ns;
	pw_arg_hex(ev, "ptr", &op->ptr);
	pw_arg_u64(ev, "bytes", &op->bytes);
	op->api = xasprintf("%s%s", ev->api, ev->variant);
	op->what = xstrdup(what);
	op->target = xstrdup(target);
	op->result = result_of(ev);
}

static void on_alloc(struct managed *m, struct m_fctx *c, const struct pw_file *f, const struct pw_event *ev)
{
	if (ev->ret != 0) {
		m->failed_allocs++;
		return;
	}
	if (c->kept >= HISTORY_MAX) {
		m->not_kept++;
		return;
	}
	c->kept++;
	struct m_alloc *a = vec_push(&m->allocs);
	const char *flags = pw_arg_str(ev, "flags_names");
	int64_t fl;
	a->file = f->index;
	snprintf(a->vendor, sizeof a->vendor, "%s", ev->vendor);
	a->seq = ev->seq;
	a->t_ns = ev->t_ns;
	pw_arg_hex(ev, "ptr", &a->ptr);
	pw_arg_u64(ev, "bytes", &a->bytes);
	if (flags)
		a->flags = xstrdup(flags);
	else if (pw_arg_i64(ev, "flags", &fl))
		a->flags = xasprintf("0x%llx", (unsigned long long)fl);
	else
		a->flags = xstrdup("?");
	a->dev = ev->cur_dev;
}

static void on_advise(struct managed *m, struct m_fctx *c, const struct pw_file *f, const struct pw_event *ev)
{
	char what[64], target[64];
	const char *name = pw_arg_str(ev, "advice_name");
	int64_t advice = 0;
	pw_arg_i64(ev, "advice", &advice);
	if (name)
		snprintf(what, sizeof what, "%s", name);
	else
		snprintf(what, sizeof what, "advice %lld", (long long)advice);
	target_of(ev, "dev", target, sizeof target);
	add_op(m, c, f, ev, what, target);
}

static void on_attach(struct managed *m, struct m_fctx *c, const struct pw_file *f, const struct pw_event *ev)
{
	char target[48];
	uint64_t stream = 0;
	const char *flags = pw_arg_str(ev, "flags_names");
	pw_arg_hex(ev, "stream", &stream);
	snprintf(target, sizeof target, "stream 0x%llx", (unsigned long long)stream);
	add_op(m, c, f, ev, flags ? flags : "?", target);
}

/* The device a prefetch goes to, or PW_DEV_NONE when it is not a device. */
static int64_t target_dev(const struct pw_event *ev, const char *dev_key)
{
	struct pw_location loc;
	int64_t d;
	if (pw_arg_location(ev, &loc))
		return loc.type && !strcmp(loc.type, "device") && loc.id >= 0 && loc.id <= INT32_MAX
		           ? loc.id
		           : PW_DEV_NONE;
	if (pw_arg_i64(ev, dev_key, &d) || pw_arg_i64(ev, "device", &d) || pw_arg_i64(ev, "dev", &d))
		return d >= 0 && d <= INT32_MAX ? d : PW_DEV_NONE;
	return PW_DEV_NONE;
}

/* A prefetch of one range: in its allocation's history, and counted by
 * destination (a batch's ranges only by destination). */
static void on_prefetch(struct managed *m, struct m_fctx *c, const struct pw_file *f,
                        const struct pw_event *ev)
{
	char dest[64];
	uint64_t bytes = 0;
	target_of(ev, "dst_dev", dest, sizeof dest);
	add_op(m, c, f, ev, "prefetch", dest);
	struct m_dest *d = dest_at(m, f->host, ev->vendor, f->index, target_dev(ev, "dst_dev"), dest);
	d->count++;
	if (ev->ret != 0) {
		d->failed++;
		return;
	}
	pw_arg_u64(ev, "bytes", &bytes);
	d->bytes = sat_add(d->bytes, bytes);
}

/* A batch: each listed range to its device, as one prefetch there (failed
 * ones too: a failed batch of three ranges to device 1 is three failed
 * prefetches to dev1); what the list leaves out (the preload lists the
 * first 16) to "? (unlisted ranges)". */
static void on_prefetch_batch(struct managed *m, const struct pw_file *f, const struct pw_event *ev)
{
	json_t *ranges = json_object_get(pw_ev_args(ev), "ranges"), *r;
	uint64_t total = 0, listed = 0, count = 0, b;
	bool ok = ev->ret == 0;
	size_t i;
	pw_arg_u64(ev, "bytes", &total);
	pw_arg_u64(ev, "count", &count);
	json_array_foreach(ranges, i, r)
	{
		char dest[32];
		json_t *dv = json_object_get(r, "dev");
		int64_t dev = json_is_integer(dv) ? json_integer_value(dv) : PW_DEV_NONE;
		dev = dev < INT32_MIN || dev > INT32_MAX ? PW_DEV_NONE : dev;
		dev_label(dest, sizeof dest, dev);
		struct m_dest *d =
		    dest_at(m, f->host, ev->vendor, f->index, dev >= 0 ? dev : PW_DEV_NONE, dest);
		if (!pw_json_u64(json_object_get(r, "bytes"), &b))
			b = 0;
		d->count++;
		d->failed += !ok;
		d->bytes = sat_add(d->bytes, ok ? b : 0);
		listed = sat_add(listed, b);
	}
	size_t n = json_is_array(ranges) ? json_array_size(ranges) : 0;
	if (count > n || total > listed) {
		struct m_dest *d = dest_of(m, f->host, ev->vendor, "? (unlisted ranges)");
		uint64_t more = count > n ? count - n : 0;
		d->count = sat_add(d->count, more);
		d->failed = sat_add(d->failed, ok ? 0 : more);
		d->bytes = sat_add(d->bytes, ok && total > listed ? total - listed : 0);
	}
}

/* ---- the sink ---- */

static void *mg_partial_new(void *report)
{
	(void)report;
	struct managed *m = xmalloc(sizeof *m);
	managed_init(m);
	return m;
}

static void mg_partial_merge(void *report, void *partial)
{
	struct managed *m = report, *p = partial;
	vec_append(&m->allocs, &p->allocs);
	vec_append(&m->ops, &p->ops);
	for (size_t i = 0; i < p->dests.cap; i++) {
		const struct m_dest *a = p->dests.slots[i].val;
		if (!p->dests.slots[i].key)
			continue;
		struct m_dest *b = dest_at(m, a->host, a->vendor, a->file, a->dev, a->dest);
		b->count = sat_add(b->count, a->count);
		b->failed = sat_add(b->failed, a->failed);
		b->bytes = sat_add(b->bytes, a->bytes);
	}
	m->failed_allocs += p->failed_allocs;
	m->queries += p->queries;
	m->not_kept += p->not_kept;
	managed_free(p);
	free(p);
}

static void *mg_file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct m_fctx *c = xcalloc(1, sizeof *c);
	hmap_init(&c->managed);
	return c;
}

/* What a call does, by its op (the reader gives the calls of traces written
 * before "op" theirs). */
enum mg_kind { MG_OTHER, MG_ALLOC, MG_ADVISE, MG_ATTACH, MG_PREFETCH, MG_BATCH, MG_QUERY, MG_FREE };

static enum mg_kind kind_of(const struct pw_event *ev)
{
	static const struct {
		const char *op;
		enum mg_kind kind;
	} ops[] = {{"managed_alloc", MG_ALLOC},
	           {"managed_advise", MG_ADVISE},
	           {"managed_attach", MG_ATTACH},
	           {"managed_prefetch", MG_PREFETCH},
	           {"managed_prefetch_batch", MG_BATCH},
	           {"managed_range_attr", MG_QUERY},
	           {"free", MG_FREE}};
	for (size_t i = 0; ev->op && i < sizeof ops / sizeof *ops; i++)
		if (!strcmp(ev->op, ops[i].op))
			return ops[i].kind;
	return MG_OTHER;
}

static const char *const pre_keys[] = {"\"op\":\"managed_alloc\"", "MallocManaged\"", "MemAllocManaged\"",
                                       NULL};

static void mg_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct m_fctx *c = fctx;
	uint64_t ptr;
	if (ev->type == PW_EV_CALL && kind_of(ev) == MG_ALLOC && ev->ret == 0 && pw_arg_hex(ev, "ptr", &ptr))
		*hmap_put_u64(&c->managed, ptr) = (void *)1;
}

static void on_free(struct managed *m, struct m_fctx *c, const struct pw_file *f, const struct pw_event *ev)
{
	uint64_t ptr;
	if (ev->ret != 0 || !pw_arg_hex(ev, "ptr", &ptr) || !hmap_get_u64(&c->managed, ptr))
		return;
	char target[8] = "";
	add_op(m, c, f, ev, "free", target);
}

static void mg_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct managed *m = partial;
	struct m_fctx *c = fctx;
	if (ev->type != PW_EV_CALL || ev->parent_recorded)
		return;
	switch (kind_of(ev)) {
	case MG_ALLOC: on_alloc(m, c, f, ev); break;
	case MG_ADVISE: on_advise(m, c, f, ev); break;
	case MG_ATTACH: on_attach(m, c, f, ev); break;
	case MG_PREFETCH: on_prefetch(m, c, f, ev); break;
	case MG_BATCH: on_prefetch_batch(m, f, ev); break;
	case MG_QUERY: m->queries++; break;
	case MG_FREE: on_free(m, c, f, ev); break;
	case MG_OTHER: break;
	}
}

static void mg_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct m_fctx *c = fctx;
	hmap_free(&c->managed, NULL);
	free(c);
}

const struct pw_sink_ops managed_ops = {
    .partial_new = mg_partial_new,
    .partial_merge = mg_partial_merge,
    .file_begin = mg_file_begin,
    .pre_keys = pre_keys,
    .pre_event = mg_pre_event,
    .event = mg_event,
    .file_end = mg_file_end,
    .nesting = true,
    .pre_by_op = true,
};

/* ---- putting history under its allocation ---- */

static const size_t *sort_rank; /* qsort has no context argument */

static int alloc_cmp(const void *a, const void *b)
{
	const struct m_alloc *x = a, *y = b;
	if (x->file != y->file)
		return sort_rank[x->file] < sort_rank[y->file] ? -1 : 1;
	return ord_cmp(x->t_ns, x->seq, y->t_ns, y->seq);
}

static int op_cmp(const void *a, const void *b)
{
	const struct m_op *x = a, *y = b;
	if (x->file != y->file)
		return sort_rank[x->file] < sort_rank[y->file] ? -1 : 1;
	return ord_cmp(x->t_ns, x->seq, y->t_ns, y->seq);
}

/* Allocations by (process, pointer), to find the one an op's range is in. */
static int by_ptr(const void *a, const void *b)
{
	const struct m_alloc *x = *(struct m_alloc *const *)a, *y = *(struct m_alloc *const *)b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->ptr != y->ptr)
		return x->ptr < y->ptr ? -1 : 1;
	return ord_cmp(x->t_ns, x->seq, y->t_ns, y->seq);
}

/* Candidates looked at below an op's pointer: reused addresses make a short
 * chain; a longer one is not worth following. */
#define OWNER_SCAN 64

/* The allocation an op's pointer lies in: of the same process, made before
 * it, not freed before it, the latest such. */
static struct m_alloc *owner(struct m_alloc **idx, size_t n, const struct m_op *op)
{
	size_t lo = 0, hi = n; /* first allocation after (file, ptr) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct m_alloc *a = idx[mid];
		if (a->file < op->file || (a->file == op->file && a->ptr <= op->ptr))
			lo = mid + 1;
		else
			hi = mid;
	}
	struct m_alloc *best = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < OWNER_SCAN; k++) {
		struct m_alloc *a = idx[i];
		if (a->file != op->file)
			break;
		/* the whole range [ptr, ptr + bytes) in the allocation (a length of 0,
		 * an attachment of the whole allocation, or a free: its start) */
		uint64_t off = op->ptr - a->ptr, size = a->bytes ? a->bytes : 1;
		if (ord_cmp(a->t_ns, a->seq, op->t_ns, op->seq) > 0 || off >= size || op->bytes > size - off)
			continue;
		if (a->freed && ord_cmp(a->free_t_ns, a->free_seq, op->t_ns, op->seq) < 0)
			continue;
		if (!best || ord_cmp(a->t_ns, a->seq, best->t_ns, best->seq) > 0)
			best = a;
	}
	return best;
}

/* Frees mark their allocation; ops get their owner (index+1, 0: none).
 * Ops are in process order (ord_cmp), so a free is marked before the ops
 * after it are placed. */
static size_t *assign(struct managed *m)
{
	size_t *own = xcalloc(m->ops.len + 1, sizeof *own);
	struct m_alloc **idx = xcalloc(m->allocs.len + 1, sizeof(void *));
	for (size_t i = 0; i < m->allocs.len; i++)
		idx[i] = vec_at(&m->allocs, i);
	if (m->allocs.len > 1)
		qsort(idx, m->allocs.len, sizeof(void *), by_ptr);
	for (size_t i = 0; i < m->ops.len; i++) {
		struct m_op *op = vec_at(&m->ops, i);
		struct m_alloc *a = owner(idx, m->allocs.len, op);
		own[i] = a ? (size_t)(a - (struct m_alloc *)m->allocs.data) + 1 : 0;
		if (a && !strcmp(op->what, "free") && op->ptr == a->ptr && !a->freed) {
			a->freed = true;
			a->free_seq = op->seq;
			a->free_t_ns = op->t_ns;
		}
	}
	free(idx);
	return own;
}

/* Destinations that are a process's device onto the physical device its
 * ordinal names ("GPU0"), or "dev1" where the trace has no device lines. */
static void regroup_dests(struct managed *m, const struct pw_devmap *dm)
{
	struct hmap old = m->dests;
	hmap_init(&m->dests);
	for (size_t i = 0; i < old.cap; i++) {
		const struct m_dest *a = old.slots[i].val;
		if (!old.slots[i].key)
			continue;
		char label[32];
		if (a->dev != PW_DEV_NONE)
			pw_devkey_fmt(dm, pw_devkey(dm, a->file, a->vendor, a->dev), label, sizeof label);
		struct m_dest *b = dest_of(m, a->host, a->vendor, a->dev != PW_DEV_NONE ? label : a->dest);
		b->count = sat_add(b->count, a->count);
		b->failed = sat_add(b->failed, a->failed);
		b->bytes = sat_add(b->bytes, a->bytes);
	}
	hmap_free(&old, free_dest);
}

static int by_dest(const void *a, const void *b)
{
	const struct m_dest *x = *(void *const *)a, *y = *(void *const *)b;
	int h = strcmp(x->host, y->host);
	if (!h)
		h = strcmp(x->vendor, y->vendor);
	return h ? h : strcmp(x->dest, y->dest);
}

struct m_dest **managed_sorted_dests(const struct managed *m)
{
	struct m_dest **v = xcalloc(m->dests.len + 1, sizeof(void *));
	size_t n = 0;
	for (size_t i = 0; i < m->dests.cap; i++)
		if (m->dests.slots[i].key)
			v[n++] = m->dests.slots[i].val;
	if (n > 1)
		qsort(v, n, sizeof(void *), by_dest);
	return v;
}

size_t *managed_order(struct managed *m, const struct pw_input *in, const struct pw_devmap *dm)
{
	regroup_dests(m, dm);
	size_t *rank = file_ranks(in);
	sort_rank = rank;
	vec_sort(&m->allocs, alloc_cmp);
	vec_sort(&m->ops, op_cmp);
	size_t *own = assign(m);
	sort_rank = NULL;
	free(rank);
	return own;
}

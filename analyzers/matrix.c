/*
 * matrix: per host, device x device — bytes, copies and bandwidth of the
 * peer copies (cuMemcpyPeer[Async], cuMemcpy3DPeer[Async]), peer-access
 * state from cuCtxEnablePeerAccess / cuCtxDisablePeerAccess, and the copies
 * made while peer access between the two devices was off.
 *
 * Bandwidth is bytes over host time (dur_ns: for an asynchronous copy only
 * the time to enqueue it) and, when the trace has gpu_time events (issue 6),
 * bytes over device time for the copies that have one.
 *
 * Peer access is a property of a process's contexts, so a copy is judged
 * against the state of its own process at its seq: it counts as made with
 * peer access when either device had access to the other enabled then
 * (cuMemcpyPeer between two devices is staged through host memory unless
 * one of them can reach the other).  The state changes of a file, and its
 * gpu_time events, are read in the file's pre-phase, so the order in which
 * threads' lines reached the file does not matter.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "table.h"

/* -1 is CU_DEVICE_CPU, and how host memory of a 3D copy is kept here. */
#define DEV_HOST (-1)
/* Pairs kept per partial: a trace naming more device pairs than any machine
 * has is counted in an "unknown" pair rather than growing without end. */
#define MAX_CELLS 65536

struct cell {
	char *host;
	int64_t src, dst;
	uint64_t copies, failed, bytes, host_ns;
	uint64_t gpu_copies, gpu_bytes, gpu_ns;
	uint64_t no_peer, no_peer_bytes;
	uint64_t enables, disables, on_at_end;
};

struct matrix {
	struct hmap cells; /* host "\0" src dst -> struct cell */
};

struct change {
	uint64_t seq;
	bool on;
};

struct pair_log {
	struct vec changes; /* struct change */
	bool sorted;
};

struct mx_fctx {
	struct hmap pairs; /* (from, to) -> struct pair_log: cur_dev enabled access to peer */
	struct hmap gpu;   /* call seq -> gpu_ns + 1 */
};

/* The key of a cell: host "\0" src dst. */
static char *cell_key(const char *host, int64_t src, int64_t dst, size_t *len)
{
	size_t hl = strlen(host);
	char *k = xmalloc(hl + 1 + 16);
	memcpy(k, host, hl + 1);
	memcpy(k + hl + 1, &src, 8);
	memcpy(k + hl + 9, &dst, 8);
	*len = hl + 17;
	return k;
}

static struct cell *cell_of(struct matrix *m, const char *host, int64_t src, int64_t dst)
{
	size_t len;
	char *k = cell_key(host, src, dst, &len);
	if (m->cells.len >= MAX_CELLS && !hmap_get(&m->cells, k, len)) {
		free(k);
		host = "?";
		src = dst = PW_DEV_NONE;
		k = cell_key(host, src, dst, &len);
	}
	struct cell **c = (struct cell **)hmap_put(&m->cells, k, len);
	free(k);
	if (!*c) {
		*c = xcalloc(1, sizeof **c);
		(*c)->host = xstrdup(host);
		(*c)->src = src;
		(*c)->dst = dst;
	}
	return *c;
}

static bool is_copy(const char *api)
{
	return !strcmp(api, "cuMemcpyPeer") || !strcmp(api, "cuMemcpyPeerAsync") ||
	       !strcmp(api, "cuMemcpy3DPeer") || !strcmp(api, "cuMemcpy3DPeerAsync");
}

/* ---- per file: the peer-access log and gpu times (pre-phase) ---- */

static struct pair_log *log_of(struct hmap *pairs, int64_t from, int64_t to, bool create)
{
	int64_t k[2] = {from, to};
	if (!create)
		return hmap_get(pairs, k, sizeof k);
	struct pair_log **l = (struct pair_log **)hmap_put(pairs, k, sizeof k);
	if (!*l) {
		*l = xcalloc(1, sizeof **l);
		vec_init(&(*l)->changes, sizeof(struct change));
	}
	return *l;
}

/* An enable that succeeded, or found access already on, leaves it on. */
static bool peer_change(const struct pw_event *ev, int64_t *from, int64_t *to, bool *on)
{
	bool enable = !strcmp(ev->api, "cuCtxEnablePeerAccess");
	if (!enable && strcmp(ev->api, "cuCtxDisablePeerAccess"))
		return false;
	*from = ev->cur_dev;
	*to = pw_arg_dev(ev, "peer_ctx_dev");
	*on = enable;
	if (*from == PW_DEV_NONE || *to == PW_DEV_NONE)
		return false;
	return ev->ret == 0 || (enable && ev->ret == 704 /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */);
}

static bool mx_pre_filter(const char *line, size_t len)
{
	return memmem(line, len, "PeerAccess\"", 11) || memmem(line, len, "\"gpu_time\"", 10);
}

static void mx_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct mx_fctx *c = fctx;
	int64_t from, to;
	bool on;
	if (ev->type == PW_EV_GPU_TIME) {
		*hmap_put_u64(&c->gpu, ev->call) = (void *)(uintptr_t)(ev->gpu_ns + 1);
	} else if (ev->type == PW_EV_CALL && peer_change(ev, &from, &to, &on)) {
		struct change *ch = vec_push(&log_of(&c->pairs, from, to, true)->changes);
		ch->seq = ev->seq;
		ch->on = on;
	}
}

static int by_seq(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Was access from -> to on just before call seq? */
static bool access_at(struct hmap *pairs, int64_t from, int64_t to, uint64_t seq)
{
	struct pair_log *l = log_of(pairs, from, to, false);
	if (!l)
		return false;
	if (!l->sorted) {
		vec_sort(&l->changes, by_seq);
		l->sorted = true;
	}
	size_t lo = 0, hi = l->changes.len; /* first change with seq >= seq */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (((struct change *)vec_at(&l->changes, mid))->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ((struct change *)vec_at(&l->changes, lo - 1))->on;
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

static void mx_partial_merge(void *report, void *partial)
{
	struct matrix *m = report, *p = partial;
	for (size_t i = 0; i < p->cells.cap; i++) {
		const struct cell *a = p->cells.slots[i].val;
		if (!p->cells.slots[i].key)
			continue;
		struct cell *b = cell_of(m, a->host, a->src, a->dst);
		b->copies += a->copies;
		b->failed += a->failed;
		b->bytes += a->bytes;
		b->host_ns += a->host_ns;
		b->gpu_copies += a->gpu_copies;
		b->gpu_bytes += a->gpu_bytes;
		b->gpu_ns += a->gpu_ns;
		b->no_peer += a->no_peer;
		b->no_peer_bytes += a->no_peer_bytes;
		b->enables += a->enables;
		b->disables += a->disables;
		b->on_at_end += a->on_at_end;
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
	hmap_init(&c->gpu);
	return c;
}

static int64_t copy_dev(const struct pw_event *ev, const char *side)
{
	char type[16], dev[16];
	snprintf(type, sizeof type, "%s_type", side);
	snprintf(dev, sizeof dev, "%s_dev", side);
	const char *t = pw_arg_str(ev, type);
	if (t && !strcmp(t, "host"))
		return DEV_HOST;
	return pw_arg_dev(ev, dev);
}

static void add_copy(struct matrix *m, struct mx_fctx *c, const struct pw_file *f, const struct pw_event *ev)
{
	int64_t src = copy_dev(ev, "src"), dst = copy_dev(ev, "dst");
	struct cell *cl = cell_of(m, f->host, src, dst);
	uint64_t bytes = 0;
	if (ev->ret != 0) {
		cl->failed++;
		return;
	}
	pw_arg_u64(ev, "bytes", &bytes);
	cl->copies++;
	cl->bytes += bytes;
	cl->host_ns += (uint64_t)ev->dur_ns;
	uintptr_t g = c->gpu.len ? (uintptr_t)hmap_get_u64(&c->gpu, ev->seq) : 0;
	if (g) {
		cl->gpu_copies++;
		cl->gpu_bytes += bytes;
		cl->gpu_ns += g - 1;
	}
	if (src >= 0 && dst >= 0 && src != dst && !access_at(&c->pairs, src, dst, ev->seq) &&
	    !access_at(&c->pairs, dst, src, ev->seq)) {
		cl->no_peer++;
		cl->no_peer_bytes += bytes;
	}
}

static void mx_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct matrix *m = partial;
	int64_t from, to;
	bool on;
	if (ev->type != PW_EV_CALL || strcmp(ev->vendor, "cuda"))
		return;
	if (is_copy(ev->api))
		add_copy(m, fctx, f, ev);
	else if (peer_change(ev, &from, &to, &on) && ev->ret == 0) {
		struct cell *cl = cell_of(m, f->host, from, to);
		cl->enables += on;
		cl->disables += !on;
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
		if (access_at(&c->pairs, k[0], k[1], UINT64_MAX))
			cell_of(m, f->host, k[0], k[1])->on_at_end++;
	}
	hmap_free(&c->pairs, free_log);
	hmap_free(&c->gpu, NULL);
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
};

/* ---- output ---- */

/* Devices in order: host memory, then ordinals, then unknown (PW_DEV_NONE
 * is INT64_MIN, so it is moved last by hand). */
static int dev_cmp(int64_t a, int64_t b)
{
	if (a == b)
		return 0;
	if (a == PW_DEV_NONE || b == PW_DEV_NONE)
		return a == PW_DEV_NONE ? 1 : -1;
	return a < b ? -1 : 1;
}

static int by_cell(const void *a, const void *b)
{
	const struct cell *x = *(void *const *)a, *y = *(void *const *)b;
	int h = strcmp(x->host, y->host);
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

static void print_grid(struct cell **cells, size_t from, size_t to)
{
	size_t nd;
	int64_t *dev = devices_of(cells, from, to, &nd);
	if (nd > GRID_MAX) {
		printf("  %zu devices: too many for a grid, see the table\n", nd);
		free(dev);
		return;
	}
	char(*buf)[32] = xcalloc(nd + 1, sizeof *buf);
	const char **cell = xcalloc(nd + 1, sizeof *cell);
	char align[GRID_MAX + 2] = "l";
	cell[0] = "SRC\\DST";
	for (size_t j = 0; j < nd; j++) {
		fmt_dev(buf[j + 1], sizeof buf[j + 1], dev[j]);
		cell[j + 1] = buf[j + 1];
		align[j + 1] = 'r';
	}
	align[nd + 1] = 0;
	struct table t;
	table_initv(&t, align, cell);
	for (size_t i = 0; i < nd; i++) {
		fmt_dev(buf[0], sizeof buf[0], dev[i]);
		cell[0] = buf[0];
		for (size_t j = 0; j < nd; j++) {
			const struct cell *c = find_cell(cells, from, to, dev[i], dev[j]);
			if (c && c->copies)
				fmt_bytes(buf[j + 1], sizeof buf[j + 1], c->bytes);
			else
				snprintf(buf[j + 1], sizeof buf[j + 1], "-");
		}
		table_rowv(&t, cell);
	}
	printf("  bytes copied (row: source, column: destination)\n");
	table_print(&t, stdout, "  ");
	table_free(&t);
	free(buf);
	free(cell);
	free(dev);
}

static void print_pairs(struct cell **cells, size_t from, size_t to)
{
	struct table t;
	table_init(&t, "llrrrrrrrrr", "SRC", "DST", "COPIES", "FAILED", "BYTES", "HOST TIME", "HOST GB/S",
	           "GPU GB/S", "NO PEER", "PEER ON/OFF", "ON AT END");
	for (size_t i = from; i < to; i++) {
		const struct cell *c = cells[i];
		char s[32], d[32], n[24], fl[24], by[32], ht[32], hg[32], gg[32], np[24], oo[48], end[24];
		fmt_dev(s, sizeof s, c->src);
		fmt_dev(d, sizeof d, c->dst);
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
		table_row(&t, s, d, n, fl, by, ht, hg, gg, np, oo, end);
	}
	printf("\n");
	table_print(&t, stdout, "  ");
	table_free(&t);
}

static void print_text(const struct matrix *m)
{
	struct cell **cells = sorted_cells(m);
	size_t n = m->cells.len;
	if (!n)
		printf("no peer copies or peer-access changes in the traces\n");
	for (size_t from = 0; from < n;) {
		size_t to = from;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host))
			to++;
		char *h = sanitize(cells[from]->host);
		printf("%shost %s\n", from ? "\n" : "", h);
		free(h);
		print_grid(cells, from, to);
		print_pairs(cells, from, to);
		from = to;
	}
	if (n)
		printf(
		    "\nGB/s: 10^9 bytes/s.  HOST TIME: time in the call (an async copy returns before it is "
		    "done).\nNO PEER: copies between two devices while neither had peer access to the other "
		    "enabled.\nPEER ON/OFF: successful enables/disables from SRC's context to DST's; ON AT "
		    "END: "
		    "processes that left it on.\n");
	free(cells);
}

static json_t *gbps_json(uint64_t bytes, uint64_t ns)
{
	return ns ? json_real((double)bytes / (double)ns) : json_null();
}

static json_t *dev_json(int64_t d)
{
	return d == DEV_HOST ? json_string("host") : json_dev(d);
}

static json_t *cell_json(const struct cell *c)
{
	json_t *j = json_object();
	json_object_set_new(j, "src", dev_json(c->src));
	json_object_set_new(j, "dst", dev_json(c->dst));
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
	json_object_set_new(j, "peer_enables", json_u64(c->enables));
	json_object_set_new(j, "peer_disables", json_u64(c->disables));
	json_object_set_new(j, "peer_on_at_end", json_u64(c->on_at_end));
	return j;
}

static void print_json(const struct matrix *m)
{
	struct cell **cells = sorted_cells(m);
	size_t n = m->cells.len;
	json_t *doc = json_object(), *hosts = json_array();
	for (size_t from = 0; from < n;) {
		size_t to = from, nd;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host))
			to++;
		json_t *h = json_object(), *devs = json_array(), *pairs = json_array();
		int64_t *dev = devices_of(cells, from, to, &nd);
		for (size_t i = 0; i < nd; i++)
			json_array_append_new(devs, dev_json(dev[i]));
		free(dev);
		for (size_t i = from; i < to; i++)
			json_array_append_new(pairs, cell_json(cells[i]));
		json_object_set_new(h, "host", json_string(cells[from]->host));
		json_object_set_new(h, "devices", devs);
		json_object_set_new(h, "pairs", pairs);
		json_array_append_new(hosts, h);
		from = to;
	}
	json_object_set_new(doc, "hosts", hosts);
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
		if (o->json)
			print_json(&m);
		else
			print_text(&m);
	}
	hmap_free(&m.cells, free_cell);
	pw_input_free(&in);
	return an_exit(st);
}

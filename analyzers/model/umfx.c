/*
 * Unified-memory effects (umfx.h).
 *
 * Each file is read in two phases.  The pre-phase keeps its managed
 * allocations (cuMemAllocManaged, cudaMallocManaged, hipMallocManaged),
 * advice (cu/cuda/hipMemAdvise and their _v2) and single-range prefetches
 * that succeeded; a call nested in one of those (cudaMemAdvise's
 * cuMemAdvise) is dropped for its parent.  Before the main phase hands out
 * the first event, the calls are put in time order under their allocation.
 * Then every "um" event, in whatever order the file has it (CUPTI writes
 * them in batches), is placed by its address and t_ns:
 *
 *   - its row: the latest call (the allocation, an advice, a prefetch)
 *     whose range holds the event's first page and that was made at or
 *     before it: what happened between that call and the next on those
 *     pages is counted there, by kind and processors;
 *   - the rules (derived_rules.h), each from the calls that set what it
 *     looks at, on every page the event covers:
 *       um.prefetch.faults-after: the row of the page is a prefetch to P;
 *         per page, the earliest fault on P and the earliest touch by any
 *         other processor (a fault there, a migration or remote map to
 *         it) are kept; a page whose fault on P came first counts;
 *       um.preferred.thrashing: the latest SetPreferredLocation or its
 *         unset on the page is a set to X: migrations out of X are counted
 *         per page (two of one page fire), a thrashing record fires;
 *       um.read-mostly.written: the latest SetReadMostly or its unset is a
 *         set, and a GPU fault with access "write" or "atomic" came;
 *       um.accessed-by.faults: the latest SetAccessedBy for the faulting
 *         processor, or its unset, is a set.
 *     Faults whose access is "prefetch" are the prefetch's own and count
 *     for no rule.  Every rule is a function of minima and counts, so the
 *     order of the um lines in the file changes nothing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/procs.h"
#include "model/umfx.h"
#include "peerwatch/derived_rules.h"
#include "read/json.h"

/* Pages of one event the rules look at; a wider migration counts whole in
 * its row, and its pages past this bound are counted in too_wide. */
#define PAGES_MAX 4096
/* Allocations looked at below an address (reused addresses make a chain). */
#define OWNER_SCAN 64

struct fx_page_key {
	uint64_t call, page;
};
/* Per (call, page): a prefetch's earliest fault on its processor and the
 * earliest touch by another (-1: none); a preferred location's migrations
 * out of it. */
struct fx_page {
	int64_t fault, other;
	uint64_t away;
};

struct fx_pre {
	struct umfx_call c;
	bool is_alloc, has_parent;
	uint64_t parent;
};

struct fx_fctx {
	struct vec pre;    /* struct fx_pre, from the pre-phase */
	struct vec allocs; /* struct umfx_alloc, once ready */
	struct vec byptr;  /* size_t: allocs by ptr */
	struct hmap pages; /* struct fx_page_key -> struct fx_page */
	bool ready;
	size_t kept;
	bool any_um; /* umfx_findings_ops: the pre-phase saw a um line */
};

void umfx_init(struct umfx *u)
{
	memset(u, 0, sizeof *u);
	vec_init(&u->allocs, sizeof(struct umfx_alloc));
	vec_init(&u->findings, sizeof(struct umfx_finding));
}

static void call_free(struct umfx_call *c)
{
	free(c->api);
	free(c->what);
	free(c->message);
	vec_free(&c->counts);
}

static void alloc_free(struct umfx_alloc *a)
{
	for (size_t i = 0; i < a->calls.len; i++)
		call_free(vec_at(&a->calls, i));
	vec_free(&a->calls);
}

void umfx_free(struct umfx *u)
{
	for (size_t i = 0; i < u->allocs.len; i++)
		alloc_free(vec_at(&u->allocs, i));
	vec_free(&u->allocs);
	for (size_t i = 0; i < u->findings.len; i++) {
		struct umfx_finding *f = vec_at(&u->findings, i);
		free(f->api);
		free(f->message);
	}
	vec_free(&u->findings);
}

void umfx_proc_name(char *buf, size_t len, int32_t proc)
{
	if (proc == PW_UM_CPU)
		snprintf(buf, len, "cpu");
	else if (proc >= 0)
		snprintf(buf, len, "dev%d", proc);
	else
		snprintf(buf, len, "?");
}

/* ---- the calls ---- */

/* The processor a call names: a location object ("device", "host",
 * "host_numa"...), or a device argument where -1 is the CPU
 * (CU_DEVICE_CPU, cudaCpuDeviceId, hipCpuDeviceId). */
static int32_t call_proc(const struct pw_event *ev, const char *dev_key)
{
	struct pw_location loc;
	int64_t d;
	if (pw_arg_location(ev, &loc)) {
		const char *ts = loc.type ? loc.type : "";
		if (!strcmp(ts, "device") && loc.has_id && loc.id >= 0 && loc.id <= INT32_MAX)
			return (int32_t)loc.id;
		if (!strncmp(ts, "host", 4))
			return PW_UM_CPU;
		return UMFX_PROC_UNKNOWN;
	}
	if ((dev_key && pw_arg_i64(ev, dev_key, &d)) || pw_arg_i64(ev, "device", &d) ||
	    pw_arg_i64(ev, "dev", &d))
		return d == -1 ? PW_UM_CPU : d >= 0 && d <= INT32_MAX ? (int32_t)d : UMFX_PROC_UNKNOWN;
	return UMFX_PROC_UNKNOWN;
}

/* The advice by its value, the same in the driver, the runtime and HIP
 * (CU_MEM_ADVISE_SET_READ_MOSTLY = 1 ... UNSET_ACCESSED_BY = 6). */
static enum umfx_what advice_kind(const struct pw_event *ev)
{
	int64_t a = 0;
	if (!pw_arg_i64(ev, "advice", &a) || a < 1 || a > 6)
		return FX_OTHER_ADVICE;
	static const enum umfx_what k[] = {FX_SET_READ_MOSTLY, FX_UNSET_READ_MOSTLY, FX_SET_PREFERRED,
	                                   FX_UNSET_PREFERRED, FX_SET_ACCESSED_BY,   FX_UNSET_ACCESSED_BY};
	return k[a - 1];
}

static void *fx_partial_new(void *report)
{
	struct umfx *u = xmalloc(sizeof *u);
	umfx_init(u);
	u->findings_only = ((const struct umfx *)report)->findings_only;
	return u;
}

static void fx_partial_merge(void *report, void *partial)
{
	struct umfx *u = report, *p = partial;
	vec_append(&u->allocs, &p->allocs);
	vec_append(&u->findings, &p->findings);
	u->events += p->events;
	u->outside += p->outside;
	u->not_kept += p->not_kept;
	u->too_wide += p->too_wide;
	vec_free(&p->allocs);
	vec_free(&p->findings);
	free(p);
}

static void *fx_file_begin(void *partial, const struct pw_file *f)
{
	(void)partial;
	(void)f;
	struct fx_fctx *c = xcalloc(1, sizeof *c);
	vec_init(&c->pre, sizeof(struct fx_pre));
	vec_init(&c->allocs, sizeof(struct umfx_alloc));
	vec_init(&c->byptr, sizeof(size_t));
	hmap_init(&c->pages);
	return c;
}

/* The pre-phase's lines: (umfx_findings_ops) every um line, and the
 * managed calls (umfx_ops: the rest of the list). */
static const char *const pre_keys[] = {"\"um\"",
                                       "\"op\":\"managed_alloc\"",
                                       "\"op\":\"managed_advise\"",
                                       "\"op\":\"managed_prefetch\"",
                                       "Managed\"",
                                       "MemAdvise",
                                       "MemPrefetchAsync",
                                       NULL};

static void fx_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct umfx *u = partial;
	struct fx_fctx *c = fctx;
	(void)f;
	c->any_um |= ev->type == PW_EV_UM;
	if (ev->type != PW_EV_CALL || ev->ret != 0 || !ev->op)
		return;
	bool alloc = !strcmp(ev->op, "managed_alloc"), advise = !strcmp(ev->op, "managed_advise"),
	     prefetch = !strcmp(ev->op, "managed_prefetch");
	if (!alloc && !advise && !prefetch)
		return;
	if (c->kept >= UMFX_CALLS_MAX) {
		u->not_kept++;
		return;
	}
	c->kept++;
	struct fx_pre *p = vec_push(&c->pre);
	memset(p, 0, sizeof *p);
	p->is_alloc = alloc;
	p->has_parent = ev->has_parent;
	p->parent = ev->parent;
	struct umfx_call *k = &p->c;
	k->seq = ev->seq;
	k->t_ns = (uint64_t)ev->t_ns;
	pw_arg_hex(ev, "ptr", &k->ptr);
	pw_arg_u64(ev, "bytes", &k->bytes);
	k->api = xasprintf("%s%s", ev->api, ev->variant);
	k->rule_first_t_ns = -1;
	vec_init(&k->counts, sizeof(struct umfx_count));
	if (alloc) {
		k->kind = FX_ALLOC;
		k->what = xstrdup("allocated");
		k->proc = UMFX_PROC_UNKNOWN;
	} else if (prefetch) {
		k->kind = FX_PREFETCH;
		k->what = xstrdup("prefetch");
		k->proc = call_proc(ev, "dst_dev");
	} else {
		const char *name = pw_arg_str(ev, "advice_name");
		int64_t a = 0;
		pw_arg_i64(ev, "advice", &a);
		k->kind = advice_kind(ev);
		k->what = name ? xstrdup(name) : xasprintf("advice %lld", (long long)a);
		k->proc = call_proc(ev, NULL);
	}
}

/* ---- ready: the calls under their allocations ---- */

static int pre_cmp(const void *a, const void *b)
{
	const struct fx_pre *x = a, *y = b;
	if (x->c.t_ns != y->c.t_ns)
		return x->c.t_ns < y->c.t_ns ? -1 : 1;
	return x->c.seq < y->c.seq ? -1 : x->c.seq > y->c.seq;
}

static const struct vec *sort_allocs; /* qsort has no context argument */

static int byptr_cmp(const void *a, const void *b)
{
	const struct umfx_alloc *x = vec_at(sort_allocs, *(const size_t *)a),
	                        *y = vec_at(sort_allocs, *(const size_t *)b);
	if (x->ptr != y->ptr)
		return x->ptr < y->ptr ? -1 : 1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* The allocation whose range holds [addr, addr + len): the latest made at
 * or before t, else any; NULL for none. */
static struct umfx_alloc *owner(struct fx_fctx *c, uint64_t addr, uint64_t len, uint64_t t)
{
	size_t lo = 0, hi = c->byptr.len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct umfx_alloc *a = vec_at(&c->allocs, *(size_t *)vec_at(&c->byptr, mid));
		if (a->ptr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct umfx_alloc *best = NULL, *any = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < OWNER_SCAN; k++) {
		struct umfx_alloc *a = vec_at(&c->allocs, *(size_t *)vec_at(&c->byptr, i));
		uint64_t off = addr - a->ptr, size = a->bytes ? a->bytes : 1;
		if (off >= size || len > size - off)
			continue;
		if (!any)
			any = a;
		if (a->t_ns <= t && (!best || a->t_ns > best->t_ns))
			best = a;
	}
	return best ? best : any;
}

static void make_ready(struct fx_fctx *c, size_t file)
{
	if (c->ready)
		return;
	c->ready = true;
	/* a nested call of a kept call is that call (cudaMemAdvise's cuMemAdvise) */
	struct hmap seqs;
	hmap_init(&seqs);
	for (size_t i = 0; i < c->pre.len; i++)
		*hmap_put_u64(&seqs, ((struct fx_pre *)vec_at(&c->pre, i))->c.seq) = (void *)1;
	vec_sort(&c->pre, pre_cmp);
	for (size_t i = 0; i < c->pre.len; i++) {
		struct fx_pre *p = vec_at(&c->pre, i);
		if (!p->is_alloc || (p->has_parent && hmap_get_u64(&seqs, p->parent)))
			continue;
		struct umfx_alloc *a = vec_push(&c->allocs);
		memset(a, 0, sizeof *a);
		a->file = file;
		a->seq = p->c.seq;
		a->t_ns = p->c.t_ns;
		a->ptr = p->c.ptr;
		a->bytes = p->c.bytes;
		vec_init(&a->calls, sizeof(struct umfx_call));
		*(size_t *)vec_push(&c->byptr) = c->allocs.len - 1;
	}
	sort_allocs = &c->allocs;
	vec_sort(&c->byptr, byptr_cmp);
	sort_allocs = NULL;
	size_t next_alloc = 0; /* the allocations were made in this order */
	for (size_t i = 0; i < c->pre.len; i++) {
		struct fx_pre *p = vec_at(&c->pre, i);
		struct umfx_alloc *a = NULL;
		if (!(p->has_parent && hmap_get_u64(&seqs, p->parent)))
			a = p->is_alloc ? vec_at(&c->allocs, next_alloc++)
			                : owner(c, p->c.ptr, p->c.bytes, p->c.t_ns);
		if (a)
			*(struct umfx_call *)vec_push(&a->calls) = p->c;
		else
			call_free(&p->c);
	}
	hmap_free(&seqs, NULL);
	vec_free(&c->pre);
}

/* ---- placing an event ---- */

static uint64_t page_of(uint64_t addr)
{
	return addr >> UMFX_PAGE_SHIFT;
}

static bool covers(const struct umfx_call *k, const struct umfx_alloc *a, uint64_t page)
{
	if (k->kind == FX_ALLOC)
		return true;
	uint64_t len = k->bytes ? k->bytes : 1;
	if (k->ptr > UINT64_MAX - len)
		return false;
	(void)a;
	return page >= page_of(k->ptr) && page <= page_of(k->ptr + len - 1);
}

/* The latest call of the allocation at or before t that holds the page and
 * is one of the kinds (a mask of 1 << enum umfx_what); with want_proc,
 * only a call that names proc. */
static struct umfx_call *latest(struct umfx_alloc *a, uint64_t page, uint64_t t, unsigned kinds,
                                bool want_proc, int32_t proc)
{
	size_t lo = 0, hi = a->calls.len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (((struct umfx_call *)vec_at(&a->calls, mid))->t_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		struct umfx_call *k = vec_at(&a->calls, i);
		if ((kinds & (1u << k->kind)) && covers(k, a, page) && (!want_proc || k->proc == proc))
			return k;
	}
	return NULL;
}

#define ALL_CALLS 0xffffu

static void count_into(struct umfx_call *k, const struct pw_event *ev)
{
	const struct pw_um *u = &ev->um;
	int32_t a = UMFX_PROC_UNKNOWN, b = UMFX_PROC_UNKNOWN;
	switch (u->kind) {
	case PW_UM_CPU_FAULT: a = PW_UM_CPU; break;
	case PW_UM_GPU_FAULT:
	case PW_UM_THROTTLING: a = u->has_proc ? u->proc : UMFX_PROC_UNKNOWN; break;
	case PW_UM_HTOD:
	case PW_UM_DTOH:
	case PW_UM_DTOD:
	case PW_UM_REMOTE_MAP:
		a = u->has_src ? u->src : UMFX_PROC_UNKNOWN;
		b = u->has_dst ? u->dst : UMFX_PROC_UNKNOWN;
		break;
	case PW_UM_THRASHING:
	case PW_UM_KINDS: break;
	}
	struct umfx_count *c = NULL;
	for (size_t i = 0; i < k->counts.len && !c; i++) {
		struct umfx_count *x = vec_at(&k->counts, i);
		c = x->kind == u->kind && x->a == a && x->b == b ? x : NULL;
	}
	if (!c) {
		c = vec_push(&k->counts);
		*c = (struct umfx_count){.kind = u->kind, .a = a, .b = b, .first_t_ns = ev->t_ns};
	}
	c->n++;
	c->bytes = sat_add(c->bytes, u->bytes);
	c->procs |= u->procs;
	if (ev->t_ns < c->first_t_ns)
		c->first_t_ns = ev->t_ns;
	k->events++;
}

static struct fx_page *page_state(struct fx_fctx *c, const struct umfx_call *k, uint64_t page)
{
	struct fx_page_key key = {(uint64_t)(uintptr_t)k, page};
	struct fx_page **s = (struct fx_page **)hmap_put(&c->pages, &key, sizeof key);
	if (!*s) {
		*s = xmalloc(sizeof **s);
		**s = (struct fx_page){.fault = -1, .other = -1};
	}
	return *s;
}

static void min_t(int64_t *slot, int64_t t)
{
	if (*slot < 0 || t < *slot)
		*slot = t;
}

static bool is_migration(enum pw_um_kind k)
{
	return k == PW_UM_HTOD || k == PW_UM_DTOH || k == PW_UM_DTOD;
}

/* The processor that faulted, or UMFX_PROC_UNKNOWN for no fault (or the
 * prefetch's own access). */
static int32_t fault_proc(const struct pw_um *u)
{
	if (u->kind == PW_UM_CPU_FAULT)
		return PW_UM_CPU;
	if (u->kind == PW_UM_GPU_FAULT && u->has_proc && u->access != PW_UMA_PREFETCH)
		return u->proc;
	return UMFX_PROC_UNKNOWN;
}

/* The rules on one page of the event (umfx.c's head says what each keeps). */
static void rules_on_page(struct fx_fctx *c, struct umfx_alloc *a, const struct pw_event *ev, uint64_t page,
                          struct umfx_call **away_seen)
{
	const struct pw_um *u = &ev->um;
	uint64_t t = (uint64_t)ev->t_ns;
	int32_t fp = fault_proc(u);
	struct umfx_call *w = latest(a, page, t, ALL_CALLS, false, 0);
	if (w && w->kind == FX_PREFETCH && w->proc != UMFX_PROC_UNKNOWN) {
		int32_t to = u->has_dst ? u->dst : UMFX_PROC_UNKNOWN;
		if (fp != UMFX_PROC_UNKNOWN && fp == w->proc)
			min_t(&page_state(c, w, page)->fault, ev->t_ns);
		else if ((fp != UMFX_PROC_UNKNOWN) ||
		         ((is_migration(u->kind) || u->kind == PW_UM_REMOTE_MAP) && to != w->proc))
			min_t(&page_state(c, w, page)->other, ev->t_ns);
	}
	struct umfx_call *pl =
	    latest(a, page, t, 1u << FX_SET_PREFERRED | 1u << FX_UNSET_PREFERRED, false, 0);
	if (pl && pl->kind == FX_SET_PREFERRED && pl->proc != UMFX_PROC_UNKNOWN) {
		if (is_migration(u->kind) && u->has_src && u->src == pl->proc) {
			page_state(c, pl, page)->away++;
			if (*away_seen != pl) { /* the event once per call, however many pages */
				*away_seen = pl;
				pl->rule_events++;
				if (pl->rule_first_t_ns < 0 || ev->t_ns < pl->rule_first_t_ns)
					pl->rule_first_t_ns = ev->t_ns;
			}
		}
	}
	(void)a;
}

/* The rules that one page decides: faults (and thrashing, once). */
static void rules_once(struct umfx_alloc *a, const struct pw_event *ev, uint64_t first, uint64_t last)
{
	const struct pw_um *u = &ev->um;
	uint64_t t = (uint64_t)ev->t_ns;
	int32_t fp = fault_proc(u);
	if (u->kind == PW_UM_GPU_FAULT && (u->access == PW_UMA_WRITE || u->access == PW_UMA_ATOMIC)) {
		struct umfx_call *rm =
		    latest(a, first, t, 1u << FX_SET_READ_MOSTLY | 1u << FX_UNSET_READ_MOSTLY, false, 0);
		if (rm && rm->kind == FX_SET_READ_MOSTLY) {
			rm->rule_events++;
			if (rm->rule_first_t_ns < 0 || ev->t_ns < rm->rule_first_t_ns)
				rm->rule_first_t_ns = ev->t_ns;
		}
	}
	if (fp != UMFX_PROC_UNKNOWN) {
		struct umfx_call *ab =
		    latest(a, first, t, 1u << FX_SET_ACCESSED_BY | 1u << FX_UNSET_ACCESSED_BY, true, fp);
		if (ab && ab->kind == FX_SET_ACCESSED_BY) {
			ab->rule_events++;
			if (ab->rule_first_t_ns < 0 || ev->t_ns < ab->rule_first_t_ns)
				ab->rule_first_t_ns = ev->t_ns;
		}
	}
	if (u->kind == PW_UM_THRASHING) {
		/* a thrashing record on any page of the range under a preferred location */
		struct umfx_call *seen = NULL;
		for (uint64_t p = first; p <= last && p - first < PAGES_MAX; p++) {
			struct umfx_call *pl =
			    latest(a, p, t, 1u << FX_SET_PREFERRED | 1u << FX_UNSET_PREFERRED, false, 0);
			if (!pl || pl->kind != FX_SET_PREFERRED || pl == seen)
				continue;
			seen = pl;
			pl->thrashing++;
			if (pl->rule_first_t_ns < 0 || ev->t_ns < pl->rule_first_t_ns)
				pl->rule_first_t_ns = ev->t_ns;
		}
	}
}

static void on_um(struct umfx *u, struct fx_fctx *c, const struct pw_event *ev)
{
	const struct pw_um *m = &ev->um;
	u->events++;
	/* the range: a fault's page, a migration's or remote map's bytes */
	uint64_t len = m->has_bytes && m->bytes ? m->bytes : 1;
	if (m->addr > UINT64_MAX - len)
		len = UINT64_MAX - m->addr;
	struct umfx_alloc *a = owner(c, m->addr, 1, (uint64_t)ev->t_ns);
	if (!a) {
		u->outside++;
		return;
	}
	a->events++;
	uint64_t end = m->addr + (len ? len : 1) - 1, a_end = a->ptr + (a->bytes ? a->bytes : 1) - 1;
	if (end > a_end)
		end = a_end;
	uint64_t first = page_of(m->addr), last = page_of(end);
	struct umfx_call *row = latest(a, first, (uint64_t)ev->t_ns, ALL_CALLS, false, 0);
	if (row)
		count_into(row, ev);
	struct umfx_call *away_seen = NULL;
	if (last - first >= PAGES_MAX)
		u->too_wide++;
	for (uint64_t p = first; p <= last && p - first < PAGES_MAX; p++)
		rules_on_page(c, a, ev, p, &away_seen);
	rules_once(a, ev, first, last);
}

static void fx_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct fx_fctx *c = fctx;
	if (ev->type != PW_EV_UM)
		return;
	make_ready(c, f->index);
	on_um(partial, c, ev);
}

/* ---- the findings ---- */

static void range_text(char *buf, size_t len, const struct umfx_call *k)
{
	char b[32];
	fmt_bytes(b, sizeof b, k->bytes);
	snprintf(buf, len, "0x%llx (%s)", (unsigned long long)k->ptr, b);
}

static void after_text(char *buf, size_t len, const struct umfx_call *k)
{
	fmt_ns(buf, len, (double)((uint64_t)k->rule_first_t_ns - k->t_ns));
}

static uint64_t faults_of(const struct umfx_call *k, int32_t proc)
{
	uint64_t n = 0;
	for (size_t i = 0; i < k->counts.len; i++) {
		const struct umfx_count *x = vec_at(&k->counts, i);
		if ((x->kind == PW_UM_CPU_FAULT || x->kind == PW_UM_GPU_FAULT) && x->a == proc)
			n += x->n;
	}
	return n;
}

static void judge(struct fx_fctx *c, struct umfx_call *k)
{
	char range[64], p[16], after[32];
	range_text(range, sizeof range, k);
	umfx_proc_name(p, sizeof p, k->proc);
	if (k->kind == FX_PREFETCH && k->rule_pages) {
		after_text(after, sizeof after, k);
		k->rule = "um.prefetch.faults-after";
		k->rule_events = faults_of(k, k->proc);
		k->message = xasprintf(
		    "%s (seq %llu) prefetched %s to %s, yet %s then faulted on %llu of its 64 KiB pages "
		    "(%llu %s on %s before the next advice or prefetch, the first %s after the call) before "
		    "any other processor touched them: the prefetch came too late, or on a stream the work "
		    "on %s did not wait for",
		    k->api, (unsigned long long)k->seq, range, p, p, (unsigned long long)k->rule_pages,
		    (unsigned long long)k->rule_events, plural(k->rule_events, "fault", "faults"), p, after,
		    p);
	} else if (k->kind == FX_SET_PREFERRED && (k->rule_pages || k->thrashing)) {
		after_text(after, sizeof after, k);
		k->rule = "um.preferred.thrashing";
		k->message = xasprintf(
		    "%s (seq %llu) set the preferred location of %s to %s, yet %llu of its 64 KiB pages "
		    "migrated away from %s twice or more (%llu %s out of %s in all) and the driver "
		    "reported %llu thrashing %s on the range, the first %s after the advice: the pages "
		    "keep leaving their preferred location",
		    k->api, (unsigned long long)k->seq, range, p, (unsigned long long)k->rule_pages, p,
		    (unsigned long long)k->rule_events, plural(k->rule_events, "migration", "migrations"), p,
		    (unsigned long long)k->thrashing, plural(k->thrashing, "record", "records"), after);
	} else if (k->kind == FX_SET_READ_MOSTLY && k->rule_events) {
		after_text(after, sizeof after, k);
		k->rule = "um.read-mostly.written";
		k->message =
		    xasprintf("%s (seq %llu) marked %s read-mostly, yet a GPU wrote to it %llu %s after the "
		              "advice (GPU "
		              "faults with access write or atomic, the first %s after the call): every write "
		              "collapses the read-only copies on the other processors",
		              k->api, (unsigned long long)k->seq, range, (unsigned long long)k->rule_events,
		              plural(k->rule_events, "time", "times"), after);
	} else if (k->kind == FX_SET_ACCESSED_BY && k->rule_events) {
		after_text(after, sizeof after, k);
		k->rule = "um.accessed-by.faults";
		k->message = xasprintf(
		    "%s (seq %llu) set %s accessed by %s, yet %s faulted on it %llu %s before the advice was "
		    "unset (the first %s after the call): the mapping it asked for did not spare %s the "
		    "faults",
		    k->api, (unsigned long long)k->seq, range, p, p, (unsigned long long)k->rule_events,
		    plural(k->rule_events, "time", "times"), after, p);
	}
	(void)c;
}

int umfx_count_cmp(const void *x, const void *y)
{
	const struct umfx_count *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static void fx_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct umfx *u = partial;
	struct fx_fctx *c = fctx;
	make_ready(c, f->index);
	/* the pages: a prefetch's faults first, a preferred location's twice-moved */
	for (size_t i = 0; i < c->pages.cap; i++) {
		const struct fx_page_key *key = c->pages.slots[i].key;
		const struct fx_page *pg = c->pages.slots[i].val;
		if (!key)
			continue;
		struct umfx_call *k = (struct umfx_call *)(uintptr_t)key->call;
		if (k->kind == FX_PREFETCH && pg->fault >= 0 && (pg->other < 0 || pg->fault < pg->other)) {
			k->rule_pages++;
			if (k->rule_first_t_ns < 0 || pg->fault < k->rule_first_t_ns)
				k->rule_first_t_ns = pg->fault;
		}
		if (k->kind == FX_SET_PREFERRED && pg->away >= 2)
			k->rule_pages++;
	}
	hmap_free(&c->pages, free);
	for (size_t i = 0; i < c->allocs.len; i++) {
		struct umfx_alloc *a = vec_at(&c->allocs, i);
		for (size_t k = 0; k < a->calls.len; k++) {
			struct umfx_call *call = vec_at(&a->calls, k);
			vec_sort(&call->counts, umfx_count_cmp); /* not the order of the lines */
			judge(c, call);
			if (!call->rule)
				continue;
			struct umfx_finding *fd = vec_push(&u->findings);
			fd->file = f->index;
			fd->call = call->seq;
			fd->api = xstrdup(call->api);
			fd->message = xstrdup(call->message);
			fd->rule = call->rule;
		}
		if (u->findings_only)
			alloc_free(a);
		else
			*(struct umfx_alloc *)vec_push(&u->allocs) = *a;
	}
	vec_free(&c->allocs);
	vec_free(&c->byptr);
	free(c);
}

const struct pw_sink_ops umfx_ops = {
    .partial_new = fx_partial_new,
    .partial_merge = fx_partial_merge,
    .file_begin = fx_file_begin,
    .pre_keys = pre_keys + 1,
    .pre_event = fx_pre_event,
    .event = fx_event,
    .file_end = fx_file_end,
    .pre_by_op = true,
};

/* umfx_findings_ops: a file without um events makes no finding, and
 * keeps none of its managed calls past its pre-phase (a run that reads
 * every pre-phase first holds every file's). */
static void fx_pre_done(void *partial, void *fctx, const struct pw_file *f, const struct seqset *seqs)
{
	(void)partial;
	(void)f;
	(void)seqs;
	struct fx_fctx *c = fctx;
	if (c->any_um)
		return;
	for (size_t i = 0; i < c->pre.len; i++)
		call_free(&((struct fx_pre *)vec_at(&c->pre, i))->c);
	vec_free(&c->pre);
}

const struct pw_sink_ops umfx_findings_ops = {
    .partial_new = fx_partial_new,
    .partial_merge = fx_partial_merge,
    .file_begin = fx_file_begin,
    .pre_keys = pre_keys,
    .pre_by_op = true,
    .pre_event = fx_pre_event,
    .pre_done = fx_pre_done,
    .event = fx_event,
    .file_end = fx_file_end,
};

/* ---- after reading ---- */

static const size_t *sort_rank;

static int alloc_cmp(const void *a, const void *b)
{
	const struct umfx_alloc *x = a, *y = b;
	if (x->file != y->file)
		return sort_rank[x->file] < sort_rank[y->file] ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void umfx_order(struct umfx *u, const struct pw_input *in)
{
	size_t *rank = file_ranks(in);
	sort_rank = rank;
	vec_sort(&u->allocs, alloc_cmp);
	sort_rank = NULL;
	free(rank);
}

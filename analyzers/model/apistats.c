/*
 * The calls per API: counts, errors (by return name) and host time (a
 * histogram: total, mean, p50, p99, max); per process; violations per
 * rule.  summary prints them; report draws the host time.
 *
 * Every call is counted under its own name, so a CUDA runtime call
 * (cudaMemcpyPeer, "layer": "runtime") and the driver calls it made
 * (cuMemcpyPeer with "parent") are both listed: NESTED says how many calls
 * of an API were made inside another hooked call, and the vendor totals
 * count "top-level" calls (those with no parent) beside all calls.  Host
 * time of a nested call is also inside its parent's.  A nested call that
 * was not timed on its own ("parent_time": its times are its parent's)
 * is counted but left out of the time columns, which would otherwise
 * give a driver call its runtime call's time; TIMED says how many calls
 * the times are of, and an API none of whose calls was timed shows "-".
 *
 * Host time percentiles come from a log-linear histogram per API (hist.h):
 * memory stays the same however many calls there are.  A trace could name
 * any number of different APIs, rules or return names; past the limits
 * below (far beyond any real runtime) the rest are counted together.
 */
#include <stdlib.h>
#include <string.h>

#include "model/apistats.h"

#define MAX_APIS 1024 /* a histogram is 15 KiB */
#define MAX_RULES 4096
#define MAX_RETS 64 /* return names per API */

void summary_init(struct summary *s)
{
	hmap_init(&s->apis);
	hmap_init(&s->rules);
	hmap_init(&s->procs);
}

static void *pair_key(const char *a, const char *b, size_t *len)
{
	size_t la = strlen(a), lb = strlen(b);
	char *k = xmalloc(la + lb + 2);
	memcpy(k, a, la + 1);
	memcpy(k + la + 1, b, lb + 1);
	*len = la + lb + 1; /* the key: "a\0b", without the last NUL */
	return k;
}

/* Is (a, b) a key of h already? */
static bool has_pair(const struct hmap *h, const char *a, const char *b)
{
	size_t len;
	void *k = pair_key(a, b, &len);
	bool has = hmap_get(h, k, len) != NULL;
	free(k);
	return has;
}

static struct api_stat *api_of(struct summary *s, const char *vendor, const char *api)
{
	size_t len;
	if (s->apis.len >= MAX_APIS && !has_pair(&s->apis, vendor, api)) {
		vendor = "?";
		api = "(other APIs)";
	}
	void *k = pair_key(vendor, api, &len);
	struct api_stat **a = (struct api_stat **)hmap_put(&s->apis, k, len);
	free(k);
	if (!*a) {
		*a = xcalloc(1, sizeof **a);
		(*a)->vendor = xstrdup(vendor);
		(*a)->api = xstrdup(api);
		hmap_init(&(*a)->rets);
	}
	return *a;
}

static struct rule_stat *rule_of(struct summary *s, const char *rule, const char *severity)
{
	size_t len;
	if (s->rules.len >= MAX_RULES && !has_pair(&s->rules, rule, severity)) {
		rule = "(other rules)";
		severity = "unknown";
	}
	void *k = pair_key(rule, severity, &len);
	struct rule_stat **r = (struct rule_stat **)hmap_put(&s->rules, k, len);
	free(k);
	if (!*r) {
		*r = xcalloc(1, sizeof **r);
		(*r)->rule = xstrdup(rule);
		(*r)->severity = xstrdup(severity);
	}
	return *r;
}

static struct proc_stat *proc_of(struct summary *s, size_t file)
{
	struct proc_stat **p = (struct proc_stat **)hmap_put_u64(&s->procs, file);
	if (!*p)
		*p = xcalloc(1, sizeof **p);
	return *p;
}

static void count_ret(struct hmap *rets, const char *name, uint64_t n)
{
	if (rets->len >= MAX_RETS && !hmap_get_str(rets, name))
		name = "(other)";
	uint64_t **c = (uint64_t **)hmap_put_str(rets, name);
	if (!*c)
		*c = xcalloc(1, sizeof **c);
	**c += n;
}

/* ---- the sink ---- */

static void *sum_partial_new(void *report)
{
	(void)report;
	struct summary *s = xmalloc(sizeof *s);
	summary_init(s);
	return s;
}

static void ret_name_of(const struct pw_event *ev, char *buf, size_t len)
{
	if (ev->ret_name)
		snprintf(buf, len, "%s", ev->ret_name);
	else
		snprintf(buf, len, "%lld", (long long)ev->ret);
}

static void sum_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)fctx;
	struct summary *s = partial;
	if (ev->type == PW_EV_VIOLATION) {
		rule_of(s, ev->rule, ev->severity)->count++;
		proc_of(s, f->index)->violations++;
		return;
	}
	if (ev->type != PW_EV_CALL)
		return;
	struct api_stat *a = api_of(s, ev->vendor, ev->api);
	struct proc_stat *p = proc_of(s, f->index);
	a->count++;
	a->nested += ev->has_parent;
	a->runtime |= ev->layer && !strcmp(ev->layer, "runtime");
	p->calls++;
	if (!ev->parent_time) {
		a->timed++;
		hist_add(&a->host, (uint64_t)ev->dur_ns);
	}
	if (ev->ret == 0)
		return;
	char name[256];
	ret_name_of(ev, name, sizeof name);
	a->errors++;
	p->errors++;
	count_ret(&a->rets, name, 1);
}

static void free_api(void *p)
{
	struct api_stat *a = p;
	free(a->vendor);
	free(a->api);
	hist_free(&a->host);
	hmap_free(&a->rets, free);
	free(a);
}

static void free_rule(void *p)
{
	struct rule_stat *r = p;
	free(r->rule);
	free(r->severity);
	free(r);
}

void summary_free(struct summary *s)
{
	hmap_free(&s->apis, free_api);
	hmap_free(&s->rules, free_rule);
	hmap_free(&s->procs, free);
}

static void sum_partial_merge(void *report, void *partial)
{
	struct summary *s = report, *p = partial;
	for (size_t i = 0; i < p->apis.cap; i++) {
		if (!p->apis.slots[i].key)
			continue;
		struct api_stat *from = p->apis.slots[i].val, *to = api_of(s, from->vendor, from->api);
		to->count += from->count;
		to->errors += from->errors;
		to->nested += from->nested;
		to->timed += from->timed;
		to->runtime |= from->runtime;
		hist_merge(&to->host, &from->host);
		for (size_t j = 0; j < from->rets.cap; j++)
			if (from->rets.slots[j].key)
				count_ret(&to->rets, from->rets.slots[j].key,
				          *(uint64_t *)from->rets.slots[j].val);
	}
	for (size_t i = 0; i < p->rules.cap; i++) {
		struct rule_stat *from = p->rules.slots[i].val;
		if (p->rules.slots[i].key)
			rule_of(s, from->rule, from->severity)->count += from->count;
	}
	for (size_t i = 0; i < p->procs.cap; i++) {
		struct proc_stat *from = p->procs.slots[i].val;
		if (!p->procs.slots[i].key)
			continue;
		struct proc_stat *to = proc_of(s, *(uint64_t *)p->procs.slots[i].key);
		to->calls += from->calls;
		to->errors += from->errors;
		to->violations += from->violations;
	}
	summary_free(p);
	free(p);
}

const struct pw_sink_ops summary_ops = {
    .partial_new = sum_partial_new,
    .partial_merge = sum_partial_merge,
    .event = sum_event,
};

/* ---- sorted views ---- */

void **sorted_values(const struct hmap *h, int (*cmp)(const void *, const void *))
{
	void **v = xcalloc(h->len + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].key)
			v[n++] = h->slots[i].val;
	if (n > 1)
		qsort(v, n, sizeof *v, cmp);
	return v;
}

int summary_by_api(const void *a, const void *b)
{
	const struct api_stat *x = *(void *const *)a, *y = *(void *const *)b;
	int c = strcmp(x->vendor, y->vendor);
	return c ? c : strcmp(x->api, y->api);
}

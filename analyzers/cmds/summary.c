/*
 * summary: per API calls, errors (by return name) and host time (total,
 * mean, p50, p99, max); per vendor; per process; violations per rule.
 *
 * (model/apistats.h counts them.)
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
 * of model/apistats.c (far beyond any real runtime) the rest are counted
 * together.
 */
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/apistats.h"
#include "model/devices.h"
#include "model/footer.h"
#include "model/procs.h"
#include "read/files.h"
#include "read/reader.h"

static int by_rule(const void *a, const void *b)
{
	const struct rule_stat *x = *(void *const *)a, *y = *(void *const *)b;
	enum sev sx = sev_rank(x->severity), sy = sev_rank(y->severity);
	if (sx != sy)
		return sx > sy ? -1 : 1; /* most severe first */
	int c = strcmp(x->rule, y->rule);
	return c ? c : strcmp(x->severity, y->severity);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The return names of an API's failures, sorted. */
static const char **sorted_rets(const struct hmap *rets)
{
	const char **k = xcalloc(rets->len + 1, sizeof *k);
	size_t n = 0;
	for (size_t i = 0; i < rets->cap; i++)
		if (rets->slots[i].key)
			k[n++] = rets->slots[i].key;
	if (n > 1)
		qsort(k, n, sizeof *k, by_key);
	return k;
}

struct totals {
	size_t processes, partial;
	uint64_t calls, errors, violations, bad_lines, nested;
};

static struct totals totals_of(const struct summary *s, const struct pw_input *in)
{
	struct totals t = {0};
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		t.processes += f->header_ok;
		t.partial += f->header_ok && f->partial;
		t.bad_lines += f->bad_lines;
	}
	for (size_t i = 0; i < s->apis.cap; i++) {
		const struct api_stat *a = s->apis.slots[i].val;
		if (s->apis.slots[i].key) {
			t.calls += a->count;
			t.errors += a->errors;
			t.nested += a->nested;
		}
	}
	for (size_t i = 0; i < s->rules.cap; i++)
		if (s->rules.slots[i].key)
			t.violations += ((const struct rule_stat *)s->rules.slots[i].val)->count;
	return t;
}

/* Each file's footer members beyond the reader's (repeats, limit, write
 * error), by file index. */
static struct an_footer *footers_of(const struct pw_input *in)
{
	struct an_footer *ft = xcalloc(in->n ? in->n : 1, sizeof *ft);
	for (size_t i = 0; i < in->n; i++)
		an_footer_read(&in->files[i], &ft[i]);
	return ft;
}

static void footers_free(struct an_footer *ft, size_t n)
{
	for (size_t i = 0; i < n; i++)
		an_footer_free(&ft[i]);
	free(ft);
}

static uint64_t repeats_total(const struct an_footer *ft, size_t n)
{
	uint64_t r = 0;
	for (size_t i = 0; i < n; i++)
		r += ft[i].repeats;
	return r;
}

/* The findings each default suppression took, summed over every footer:
 * {"name": n}, sorted by name. */
static json_t *suppressed_default(const struct an_footer *ft, size_t n)
{
	json_t *by = json_object();
	for (size_t i = 0; i < n; i++) {
		const char *name;
		json_t *v;
		json_object_foreach(ft[i].suppressed_default, name, v)
		{
			json_t *old = json_object_get(by, name);
			json_object_set_new(
			    by, name,
			    json_integer(json_integer_value(v) + (old ? json_integer_value(old) : 0)));
		}
	}
	return by;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "96 findings in libnccl.so suppressed by the default suppressions (name)" */
static void print_suppressed_default(const struct an_footer *ft, size_t n)
{
	json_t *by = suppressed_default(ft, n);
	const char **names = xcalloc(json_object_size(by) + 1, sizeof *names);
	size_t k = 0;
	const char *name;
	json_t *v;
	json_object_foreach(by, name, v) names[k++] = name;
	qsort(names, k, sizeof *names, by_name);
	for (size_t i = 0; i < k; i++) {
		json_int_t c = json_integer_value(json_object_get(by, names[i]));
		printf("%lld finding%s in %s suppressed by the default suppressions (%s; "
		       "peerwatch-analyze rules --suppressions says why)\n",
		       (long long)c, c == 1 ? "" : "s", an_default_suppression_library(names[i]), names[i]);
	}
	free(names);
	json_decref(by);
}

/* Findings of rule counted as repeats, over every footer. */
static uint64_t rule_repeats(const struct an_footer *ft, size_t n, const char *rule)
{
	uint64_t r = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k;
		json_t *e;
		json_array_foreach(ft[i].repeats_by, k, e)
		{
			json_t *id = json_object_get(e, "rule"), *c = json_object_get(e, "count");
			if (json_is_string(id) && json_is_integer(c) && json_integer_value(c) > 0 &&
			    !strcmp(json_string_value(id), rule))
				r += (uint64_t)json_integer_value(c);
		}
	}
	return r;
}

/* The TRACE column: how the file ended. */
static const char *trace_state(const struct pw_file *f, const struct an_footer *ft)
{
	if (f->partial)
		return "partial (the process died)";
	if (!f->footer)
		return "no footer";
	if (ft->write_error)
		return ft->write_error[1] == 'N'               ? "stopped writing: disk full"
		       : !strncmp(ft->write_error, "EFBIG", 5) ? "stopped writing: file-size limit"
		                                               : "stopped writing: write error";
	return ft->limited ? "clean, size limit reached" : "clean";
}

/* Per vendor: calls, top-level calls (no parent), failed calls. */
struct vendor_total {
	const char *vendor;
	uint64_t calls, top, errors;
};

static struct vendor_total *vendor_totals(const struct summary *s, size_t *n)
{
	void **v = sorted_values(&s->apis, summary_by_api);
	struct vendor_total *t = xcalloc(s->apis.len + 1, sizeof *t);
	*n = 0;
	for (size_t i = 0; v[i]; i++) {
		const struct api_stat *a = v[i];
		if (!*n || strcmp(t[*n - 1].vendor, a->vendor))
			t[(*n)++].vendor = a->vendor;
		t[*n - 1].calls += a->count;
		t[*n - 1].top += a->count - a->nested;
		t[*n - 1].errors += a->errors;
	}
	free(v);
	return t;
}

/* ---- text ---- */

static void print_apis(const struct summary *s)
{
	struct table t;
	table_init(&t, "llrrrrrrrrr", "API", "VENDOR", "CALLS", "ERRORS", "NESTED", "TIMED", "TOTAL", "MEAN",
	           "P50", "P99", "MAX");
	void **v = sorted_values(&s->apis, summary_by_api);
	for (size_t i = 0; v[i]; i++) {
		const struct api_stat *a = v[i];
		char n[24], e[24], ne[24], ti[24], tot[24], mean[24], p50[24], p99[24], max[24], vendor[40];
		snprintf(n, sizeof n, "%llu", (unsigned long long)a->count);
		snprintf(ne, sizeof ne, "%llu", (unsigned long long)a->nested);
		snprintf(ti, sizeof ti, "%llu", (unsigned long long)a->timed);
		snprintf(vendor, sizeof vendor, "%s%s", a->vendor, a->runtime ? " runtime" : "");
		snprintf(e, sizeof e, "%llu", (unsigned long long)a->errors);
		if (a->timed) {
			fmt_ns(tot, sizeof tot, (double)a->host.total);
			fmt_ns(mean, sizeof mean, hist_mean(&a->host));
			fmt_ns(p50, sizeof p50, (double)hist_percentile(&a->host, 50));
			fmt_ns(p99, sizeof p99, (double)hist_percentile(&a->host, 99));
			fmt_ns(max, sizeof max, (double)a->host.max);
			table_row(&t, a->api, vendor, n, e, ne, ti, tot, mean, p50, p99, max);
		} else { /* every call folded into its parent: no time of its own */
			table_row(&t, a->api, vendor, n, e, ne, ti, "-", "-", "-", "-", "-");
		}
	}
	table_print(&t, stdout, "");
	table_free(&t);
	free(v);
}

static void print_errors(const struct summary *s)
{
	struct table t;
	table_init(&t, "llr", "API", "RETURN", "COUNT");
	void **v = sorted_values(&s->apis, summary_by_api);
	for (size_t i = 0; v[i]; i++) {
		const struct api_stat *a = v[i];
		const char **rets = sorted_rets(&a->rets);
		for (size_t j = 0; rets[j]; j++) {
			char n[24];
			snprintf(n, sizeof n, "%llu",
			         (unsigned long long)*(uint64_t *)hmap_get_str(&a->rets, rets[j]));
			table_row(&t, a->api, rets[j], n);
		}
		free(rets);
	}
	free(v);
	printf("\nfailed calls by return value\n");
	if (t.rows.len)
		table_print(&t, stdout, "");
	else
		printf("(none)\n");
	table_free(&t);
}

static void print_procs(const struct summary *s, const struct pw_input *in, const struct an_footer *ft)
{
	struct table t;
	table_init(&t, "lrrlrrrl", "HOST", "PID", "RANK", "PROGRAM", "CALLS", "ERRORS", "VIOLATIONS",
	           "TRACE");
	size_t *order = file_order(in);
	for (size_t k = 0; k < in->n; k++) {
		const struct pw_file *f = &in->files[order[k]];
		if (!f->header_ok)
			continue;
		const struct proc_stat *p = hmap_get_u64(&s->procs, f->index);
		struct proc_stat zero = {0};
		if (!p)
			p = &zero;
		char pid[24], rank[24], c[24], e[24], v[24];
		snprintf(pid, sizeof pid, "%lld", (long long)f->pid);
		snprintf(rank, sizeof rank, f->has_rank ? "%lld" : "-", (long long)f->rank);
		snprintf(c, sizeof c, "%llu", (unsigned long long)p->calls);
		snprintf(e, sizeof e, "%llu", (unsigned long long)p->errors);
		snprintf(v, sizeof v, "%llu", (unsigned long long)p->violations);
		table_row(&t, f->host, pid, rank, pw_file_program(f), c, e, v, trace_state(f, &ft[order[k]]));
	}
	free(order);
	printf("\nprocesses\n");
	table_print(&t, stdout, "");
	table_free(&t);
}

static void print_rules(const struct summary *s, const struct an_footer *ft, size_t nft)
{
	struct table t;
	table_init(&t, "llrr", "RULE", "SEVERITY", "COUNT", "REPEATS");
	void **v = sorted_values(&s->rules, by_rule);
	for (size_t i = 0; v[i]; i++) {
		const struct rule_stat *r = v[i];
		char n[24], rep[24];
		snprintf(n, sizeof n, "%llu", (unsigned long long)r->count);
		snprintf(rep, sizeof rep, "%llu", (unsigned long long)rule_repeats(ft, nft, r->rule));
		table_row(&t, r->rule, r->severity, n, rep);
	}
	free(v);
	printf("\nviolations per rule (REPEATS: more findings of it at a call site already reported, "
	       "counted in the footers, not written)\n");
	if (t.rows.len)
		table_print(&t, stdout, "");
	else
		printf("(none)\n");
	table_free(&t);
}

static void print_text(const struct summary *s, const struct pw_input *in)
{
	struct totals t = totals_of(s, in);
	struct an_footer *ft = footers_of(in);
	uint64_t rep = repeats_total(ft, in->n);
	printf("%zu process%s (%zu left .partial), %llu %s, %llu failed, %llu %s", t.processes,
	       t.processes == 1 ? "" : "es", t.partial, (unsigned long long)t.calls,
	       plural(t.calls, "call", "calls"), (unsigned long long)t.errors,
	       (unsigned long long)t.violations, plural(t.violations, "violation", "violations"));
	if (rep)
		printf(" (and %llu %s counted)", (unsigned long long)rep, plural(rep, "repeat", "repeats"));
	if (t.bad_lines)
		printf(", %llu bad %s skipped", (unsigned long long)t.bad_lines,
		       plural(t.bad_lines, "line", "lines"));
	if (t.nested)
		printf(", %llu of them nested in another hooked call", (unsigned long long)t.nested);
	printf("\n");
	size_t nv;
	struct vendor_total *vt = vendor_totals(s, &nv);
	for (size_t i = 0; nv > 1 && i < nv; i++)
		printf("  %s: %llu calls (%llu top-level), %llu failed\n", vt[i].vendor,
		       (unsigned long long)vt[i].calls, (unsigned long long)vt[i].top,
		       (unsigned long long)vt[i].errors);
	free(vt);
	print_suppressed_default(ft, in->n);
	printf("\n");
	print_apis(s);
	print_errors(s);
	print_procs(s, in, ft);
	print_rules(s, ft, in->n);
	footers_free(ft, in->n);
	struct pw_devmap m;
	pw_devmap_build(&m, in);
	pw_devmap_print_all(&m, in);
	pw_devmap_free(&m);
}

/* ---- JSON ---- */

static json_t *host_ns_json(const struct hist *h)
{
	json_t *j = json_object();
	json_object_set_new(j, "total", json_u64(h->total));
	json_object_set_new(j, "mean", json_real(hist_mean(h)));
	json_object_set_new(j, "p50", json_u64(hist_percentile(h, 50)));
	json_object_set_new(j, "p99", json_u64(hist_percentile(h, 99)));
	json_object_set_new(j, "max", json_u64(h->max));
	return j;
}

static json_t *calls_json(const struct summary *s)
{
	json_t *arr = json_array();
	void **v = sorted_values(&s->apis, summary_by_api);
	for (size_t i = 0; v[i]; i++) {
		const struct api_stat *a = v[i];
		json_t *j = json_object(), *rets = json_object();
		const char **names = sorted_rets(&a->rets);
		for (size_t k = 0; names[k]; k++)
			json_object_set_new(rets, names[k],
			                    json_u64(*(uint64_t *)hmap_get_str(&a->rets, names[k])));
		free(names);
		json_object_set_new(j, "api", json_string(a->api));
		json_object_set_new(j, "vendor", json_string(a->vendor));
		json_object_set_new(j, "layer", a->runtime ? json_string("runtime") : json_null());
		json_object_set_new(j, "count", json_u64(a->count));
		json_object_set_new(j, "errors", json_u64(a->errors));
		json_object_set_new(j, "nested", json_u64(a->nested));
		json_object_set_new(j, "errors_by_return", rets);
		json_object_set_new(j, "timed", json_u64(a->timed));
		json_object_set_new(j, "host_ns", a->timed ? host_ns_json(&a->host) : json_null());
		json_array_append_new(arr, j);
	}
	free(v);
	return arr;
}

static json_t *procs_json(const struct summary *s, const struct pw_input *in, const struct an_footer *ft)
{
	json_t *arr = json_array();
	size_t *order = file_order(in);
	for (size_t k = 0; k < in->n; k++) {
		const struct pw_file *f = &in->files[order[k]];
		if (!f->header_ok)
			continue;
		const struct proc_stat *p = hmap_get_u64(&s->procs, f->index);
		json_t *j = proc_json(f);
		json_object_set_new(j, "calls", json_u64(p ? p->calls : 0));
		json_object_set_new(j, "errors", json_u64(p ? p->errors : 0));
		json_object_set_new(j, "violations", json_u64(p ? p->violations : 0));
		json_object_set_new(j, "partial", json_boolean(f->partial));
		json_object_set_new(j, "footer", json_boolean(f->footer));
		json_object_set_new(j, "repeats", json_u64(ft[order[k]].repeats));
		json_object_set_new(j, "limited", json_boolean(ft[order[k]].limited));
		json_object_set_new(j, "write_error",
		                    ft[order[k]].write_error ? json_text(ft[order[k]].write_error)
		                                             : json_null());
		json_array_append_new(arr, j);
	}
	free(order);
	return arr;
}

static json_t *rules_json(const struct summary *s, const struct an_footer *ft, size_t nft)
{
	json_t *arr = json_array();
	void **v = sorted_values(&s->rules, by_rule);
	for (size_t i = 0; v[i]; i++) {
		const struct rule_stat *r = v[i];
		json_t *j = json_object();
		json_object_set_new(j, "rule", json_string(r->rule));
		json_object_set_new(j, "severity", json_string(r->severity));
		json_object_set_new(j, "count", json_u64(r->count));
		json_object_set_new(j, "repeats", json_u64(rule_repeats(ft, nft, r->rule)));
		json_array_append_new(arr, j);
	}
	free(v);
	return arr;
}

static void print_json(const struct summary *s, const struct pw_input *in)
{
	struct totals t = totals_of(s, in);
	struct an_footer *ft = footers_of(in);
	json_t *doc = json_object();
	json_object_set_new(doc, "processes", json_integer((json_int_t)t.processes));
	json_object_set_new(doc, "partial", json_integer((json_int_t)t.partial));
	json_object_set_new(doc, "calls_total", json_u64(t.calls));
	json_object_set_new(doc, "errors_total", json_u64(t.errors));
	json_object_set_new(doc, "violations_total", json_u64(t.violations));
	json_object_set_new(doc, "repeats_total", json_u64(repeats_total(ft, in->n)));
	json_object_set_new(doc, "suppressed_default", suppressed_default(ft, in->n));
	json_object_set_new(doc, "bad_lines", json_u64(t.bad_lines));
	json_object_set_new(doc, "nested_total", json_u64(t.nested));
	size_t nv;
	struct vendor_total *vt = vendor_totals(s, &nv);
	json_t *vendors = json_array();
	for (size_t i = 0; i < nv; i++) {
		json_t *j = json_object();
		json_object_set_new(j, "vendor", json_string(vt[i].vendor));
		json_object_set_new(j, "calls", json_u64(vt[i].calls));
		json_object_set_new(j, "top_level", json_u64(vt[i].top));
		json_object_set_new(j, "errors", json_u64(vt[i].errors));
		json_array_append_new(vendors, j);
	}
	free(vt);
	json_object_set_new(doc, "vendors", vendors);
	json_object_set_new(doc, "calls", calls_json(s));
	json_object_set_new(doc, "per_process", procs_json(s, in, ft));
	json_object_set_new(doc, "violations", rules_json(s, ft, in->n));
	footers_free(ft, in->n);
	struct pw_devmap m;
	pw_devmap_build(&m, in);
	json_object_set_new(doc, "devices", pw_devmap_all_json(&m, in));
	json_object_set_new(doc, "traces_without_devices", json_integer((json_int_t)m.unidentified));
	pw_devmap_free(&m);
	json_print(doc);
}

int cmd_summary(const struct pw_opts *o)
{
	struct summary s;
	struct pw_input in = {0};
	summary_init(&s);
	struct pw_sink sink = {&summary_ops, &s};
	int st = an_read(o, &in, &sink, 1);
	if (st != PW_READ_FATAL && in.n) {
		if (o->json)
			print_json(&s, &in);
		else
			print_text(&s, &in);
	}
	summary_free(&s);
	pw_input_free(&in);
	return an_exit(st);
}

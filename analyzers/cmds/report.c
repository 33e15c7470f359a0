/*
 * report: one self-contained HTML page of a run, for a bug report or a CI
 * artifact.  Everything is inline (styles and pictures; no script, font or
 * address it must fetch), it reads without JavaScript, follows the reader's
 * light or dark theme, and prints.
 *
 * The page is made from the same model as the other commands, not a second
 * computation: the verdict is check's (model/gate.h and --fail-on), the
 * findings are violations' (model/findings.h, the vendor's words from
 * model/catalog.h, stacks from model/symbols.h), the devices are matrix's
 * (model/devices.h); the other sections come from the sinks of matrix,
 * ipc, managed and summary (model/copies.h, ipclife.h, managed.h,
 * apistats.h), in one second read of the traces.
 *
 * Sections: the run (processes, verdict, counts by severity), the findings
 * grouped by rule and call site, the devices with their links as a picture
 * and a table, the copies between devices as a heat map of bytes and a
 * table of pairs, the IPC handles' lifetimes as bars, each managed
 * allocation's history, and the host time per API with its histogram.
 * Its size is bounded on large runs: the first REPORT_GROUPS groups,
 * REPORT_EXAMPLES findings of each, REPORT_HANDLES handles, REPORT_ALLOCS
 * allocations, and the count of the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/show.h"
#include "cmds/cmds.h"
#include "model/apistats.h"
#include "model/catalog.h"
#include "model/copies.h"
#include "model/devices.h"
#include "model/findings.h"
#include "model/gate.h"
#include "model/ipclife.h"
#include "model/ipclist.h"
#include "model/managed.h"
#include "model/procs.h"
#include "model/symbols.h"
#include "read/files.h"
#include "read/reader.h"

#define REPORT_GROUPS 200  /* finding groups shown; the rest counted */
#define REPORT_EXAMPLES 10 /* findings listed per group; the rest counted */
#define REPORT_FRAMES 16   /* frames of a group's stack */

/* Text into HTML: made printable first (sanitize), then escaped. */
static void esc(FILE *out, const char *s)
{
	markup_put(out, s);
}

/* An address to link to: only http(s), so that a trace cannot put a
 * javascript: or data: link in the page. */
static bool linkable(const char *url)
{
	return url && (!strncmp(url, "https://", 8) || !strncmp(url, "http://", 7));
}

/* One group of findings: one rule, one vendor, one call site. */
struct group {
	char *key;  /* rule NUL vendor NUL site: the map's key */
	char *site; /* the first frame symbolized, or "(no stack recorded)" */
	const struct finding *first;
	enum sev sev;
	size_t count;
	struct vec members; /* size_t: indexes into the findings */
	struct vec files;   /* size_t: the processes, each once */
};

static char *site_of(const struct finding *fd, const struct pw_input *in, struct symbolizer *sym)
{
	if (!fd->nstack)
		return xstrdup(fd->has_call ? "(no stack recorded)" : "(at exit)");
	struct sym_frame fr;
	sym_lookup(sym, &in->files[fd->file].modules, fd->stack[0], &fr);
	char *s = sym_format(&fr);
	sym_frame_free(&fr);
	return s;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;
	if (x->sev != y->sev)
		return x->sev > y->sev ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->first->rule, y->first->rule);
	return c ? c : strcmp(x->site, y->site);
}

/* The findings by rule, vendor and site, most severe and most frequent first. */
static struct vec group_findings(const struct findings *fs, const struct pw_input *in, struct symbolizer *sym)
{
	struct hmap map;
	struct vec groups; /* struct group * */
	hmap_init(&map);
	vec_init(&groups, sizeof(struct group *));
	for (size_t i = 0; i < fs->list.len; i++) {
		const struct finding *fd = vec_at(&fs->list, i);
		char *site = site_of(fd, in, sym);
		size_t lr = strlen(fd->rule), lv = strlen(fd->vendor), ls = strlen(site);
		char *key = xmalloc(lr + lv + ls + 3);
		memcpy(key, fd->rule, lr + 1);
		memcpy(key + lr + 1, fd->vendor, lv + 1);
		memcpy(key + lr + lv + 2, site, ls + 1);
		size_t klen = lr + lv + ls + 2;
		void **slot = hmap_put(&map, key, klen);
		struct group *g = *slot;
		if (!g) {
			g = xcalloc(1, sizeof *g);
			g->key = key;
			g->site = site;
			g->first = fd;
			g->sev = fd->sev;
			vec_init(&g->members, sizeof(size_t));
			vec_init(&g->files, sizeof(size_t));
			*slot = g;
			*(struct group **)vec_push(&groups) = g;
		} else {
			free(key);
			free(site);
		}
		g->count++;
		*(size_t *)vec_push(&g->members) = i;
		bool seen = false;
		for (size_t k = 0; k < g->files.len && !seen; k++)
			seen = *(size_t *)vec_at(&g->files, k) == fd->file;
		if (!seen)
			*(size_t *)vec_push(&g->files) = fd->file;
	}
	hmap_free(&map, NULL);
	vec_sort(&groups, group_cmp);
	return groups;
}

static void groups_free(struct vec *groups)
{
	for (size_t i = 0; i < groups->len; i++) {
		struct group *g = *(struct group **)vec_at(groups, i);
		free(g->key);
		free(g->site);
		vec_free(&g->members);
		vec_free(&g->files);
		free(g);
	}
	vec_free(groups);
}

static const char style[] =
    ":root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;"
    "--card:#f6f8fa;--error:#c62828;--warning:#b26a00;--performance:#1565c0;--pass:#2e7d32;"
    "--nvlink:#2e7d32;--pcie:#1565c0;--xgmi:#6a1b9a;--unknown:#9e9e9e;--none:#eceff1}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;"
    "--line:#30363d;--card:#161b22;--error:#ff7b72;--warning:#e3b341;--performance:#79c0ff;"
    "--pass:#56d364;--none:#21262d}}\n"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);"
    "background:var(--bg);margin:0 auto;max-width:72rem;padding:1rem 1.5rem}\n"
    "h1{font-size:1.6rem;margin:.2rem 0}h2{border-bottom:1px solid var(--line);padding-bottom:.2rem;"
    "margin-top:2rem}\n"
    "nav a{margin-right:1rem}a{color:var(--performance)}\n"
    "table{border-collapse:collapse;margin:.5rem 0;max-width:100%}"
    "th,td{border:1px solid var(--line);"
    "padding:.2rem .5rem;text-align:left;vertical-align:top}th{background:var(--card)}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}th{white-space:nowrap}"
    "td.cmd,td.path{overflow-wrap:anywhere}td.proc{white-space:nowrap}\n"
    "code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}\n"
    "pre{background:var(--card);padding:.5rem;overflow-x:auto;white-space:pre-wrap}\n"
    ".verdict{font-size:1.2rem;font-weight:600;padding:.4rem .7rem;border-radius:.3rem;"
    "display:inline-block;border:2px solid}\n"
    ".pass{color:var(--pass)}.fail{color:var(--error)}\n"
    ".sev-error{color:var(--error)}.sev-warning{color:var(--warning)}"
    ".sev-performance{color:var(--performance)}\n"
    "details.finding{border:1px solid var(--line);border-radius:.3rem;margin:.6rem 0;"
    "padding:.3rem .8rem;background:var(--card)}\n"
    "details.finding>summary{cursor:pointer;font-weight:600}\n"
    "dl.words{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}"
    "dl.words dt{color:var(--muted)}dl.words dd{margin:0}\n"
    "blockquote{margin:0;border-left:3px solid var(--line);padding-left:.6rem}\n"
    ".muted{color:var(--muted)}\n"
    "svg .link-nvlink{fill:var(--nvlink)}svg .link-nvswitch{fill:var(--nvlink)}"
    "svg .link-pcie{fill:var(--pcie)}svg .link-xgmi{fill:var(--xgmi)}"
    "svg .link-unknown{fill:var(--unknown)}svg .link-none{fill:var(--none)}"
    "svg .self{fill:var(--card);stroke:var(--line)}svg text{fill:var(--fg);font-size:12px}"
    "svg .nopeer{fill:none;stroke:var(--error);stroke-width:2}\n"
    "svg .heat-0{fill:var(--none)}svg .heat-1{fill:#c6dbef}svg .heat-2{fill:#6baed6}"
    "svg .heat-3{fill:#2171b5}svg .heat-4{fill:#08306b}\n"
    "svg .held{fill:var(--nvlink)}svg .open-at-end{fill:var(--warning);fill-opacity:.6;"
    "stroke:var(--warning);stroke-dasharray:4 2}svg .refused{fill:var(--error)}"
    "svg .mark{stroke:var(--bg);stroke-width:1.5}svg circle.sev-error{fill:var(--error)}"
    "svg circle.sev-warning{fill:var(--warning)}svg circle.sev-performance{fill:var(--performance)}"
    "svg circle.sev-unknown{fill:var(--muted)}svg.hist rect{fill:var(--performance)}\n"
    "@media print{nav{display:none}details.finding{break-inside:avoid}body{max-width:none}}\n"
    /* report.html#ipc: that section alone (a link to one part of the page) */
    "main:has(section:target) section:not(:target){display:none}"
    "section:target{scroll-margin-top:100vh}\n";

static void write_verdict(FILE *out, const struct findings *fs, const struct pw_input *in,
                          const struct vec *ps, const struct pw_opts *o, bool unread)
{
	size_t failing = 0, bad = unread, by[SEV_ERROR + 1] = {0};
	for (size_t i = 0; i < fs->list.len; i++) {
		const struct finding *fd = vec_at(&fs->list, i);
		failing += fd->sev >= o->fail_on;
		by[fd->sev <= SEV_ERROR ? fd->sev : SEV_UNKNOWN]++;
	}
	for (size_t i = 0; i < ps->len; i++) {
		const struct problem *p = vec_at(ps, i);
		bad += !p->note && !(p->allowed && o->allow_partial);
	}
	bool passed = !failing && !bad;
	fprintf(out,
	        "<p class=\"verdict %s\" id=\"verdict\">check: %s: %zu finding%s at or above %s, %zu "
	        "below, in %zu trace%s",
	        passed ? "pass" : "fail", passed ? "pass" : "FAIL", failing, failing == 1 ? "" : "s",
	        sev_name(o->fail_on), fs->list.len - failing, in->n, in->n == 1 ? "" : "s");
	if (bad)
		fprintf(out, "; input not verified: %zu problem%s", bad, bad == 1 ? "" : "s");
	fputs("</p>\n<table id=\"severities\"><tr><th>severity</th><th>findings</th></tr>\n", out);
	for (int s = SEV_ERROR; s >= SEV_UNKNOWN; s--)
		if (s != SEV_UNKNOWN || by[s])
			fprintf(out, "<tr><td class=\"sev-%s\">%s</td><td class=\"n\">%zu</td></tr>\n",
			        sev_name((enum sev)s), sev_name((enum sev)s), by[s]);
	fputs("</table>\n", out);
	if (ps->len) {
		fputs("<p>What the traces say of themselves:</p>\n<ul id=\"input-problems\">\n", out);
		for (size_t i = 0; i < ps->len; i++) {
			const struct problem *p = vec_at(ps, i);
			fputs("<li><code>", out);
			esc(out, in->files[p->file].path);
			fputs("</code>: ", out);
			esc(out, p->message);
			fputs(p->note                          ? ""
			      : p->allowed && o->allow_partial ? " (accepted: --allow-partial)"
			      : p->allowed                     ? " (--allow-partial accepts this)"
			                                       : " (fails the gate)",
			      out);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
}

/* An argument as the page shows it: a long one (an IPC handle in hex) by
 * its ends. */
static void write_arg(FILE *out, const char *arg)
{
	size_t n = strlen(arg);
	if (n <= 48) {
		esc(out, arg);
		return;
	}
	char head[33], tail[13];
	snprintf(head, sizeof head, "%.32s", arg);
	snprintf(tail, sizeof tail, "%s", arg + n - 12);
	esc(out, head);
	fprintf(out, "&hellip;(%zu characters)&hellip;", n);
	esc(out, tail);
}

/* The vendors' libraries and versions the header names ("cuda:
 * libcuda.so.1, driver 13000"), else the driver the header names. */
static void write_runtimes(FILE *out, const struct pw_file *f)
{
	json_t *v = f->vendors ? json_loads(f->vendors, 0, NULL) : NULL, *e;
	const char *name;
	bool any = false;
	json_object_foreach(v, name, e)
	{
		json_t *lib = json_object_get(e, "library"), *dv = json_object_get(e, "driver_version"),
		       *rv = json_object_get(e, "runtime_version");
		if (any)
			fputs("<br>", out);
		any = true;
		esc(out, name);
		if (json_is_string(lib)) {
			const char *l = json_string_value(lib), *slash = strrchr(l, '/');
			fputs(": ", out);
			esc(out, slash ? slash + 1 : l);
		}
		if (json_is_integer(dv))
			fprintf(out, ", driver %lld", (long long)json_integer_value(dv));
		if (json_is_integer(rv))
			fprintf(out, ", runtime %lld", (long long)json_integer_value(rv));
	}
	json_decref(v);
	if (!any && f->driver_lib) {
		esc(out, f->driver_lib);
		if (f->has_driver_version)
			fprintf(out, " %lld", (long long)f->driver_version);
	}
}

/* peerwatch's options for the process (the header's), folded. */
static void write_options(FILE *out, const struct pw_file *f)
{
	json_t *o = f->options ? json_loads(f->options, 0, NULL) : NULL, *e;
	const char *key;
	if (!json_object_size(o)) {
		json_decref(o);
		return;
	}
	fputs("<details><summary>options</summary><code class=\"options\">", out);
	json_object_foreach(o, key, e)
	{
		char *val = json_is_string(e) ? xstrdup(json_string_value(e))
		                              : json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT);
		esc(out, key);
		fputc('=', out);
		esc(out, val ? val : "?");
		fputc(' ', out);
		free(val);
	}
	fputs("</code></details>", out);
	json_decref(o);
}

static void write_processes(FILE *out, const struct pw_input *in, const struct findings *fs)
{
	size_t *nf = xcalloc(in->n + 1, sizeof *nf);
	for (size_t i = 0; i < fs->list.len; i++)
		nf[((const struct finding *)vec_at(&fs->list, i))->file]++;
	fputs("<table id=\"processes\"><tr><th>process</th><th>host</th><th>rank</th><th>command</th>"
	      "<th>mode</th><th>runtimes</th><th>peerwatch</th><th>events</th><th>findings</th>"
	      "<th>ended</th></tr>\n",
	      out);
	size_t *order = file_order(in);
	for (size_t k = 0; k < in->n; k++) {
		const struct pw_file *f = &in->files[order[k]];
		if (!f->header_ok)
			continue;
		char *label = proc_label(f);
		fputs("<tr><td class=\"mono proc\">", out);
		esc(out, label);
		fputs("</td><td>", out);
		esc(out, f->host);
		fputs("</td><td class=\"n\">", out);
		if (f->has_rank)
			fprintf(out, "%lld", (long long)f->rank);
		fputs("</td><td class=\"mono cmd\">", out);
		for (size_t a = 0; a < f->argc && a < 16; a++) {
			if (a)
				fputc(' ', out);
			write_arg(out, f->argv[a]);
		}
		if (f->argc > 16)
			fprintf(out, " &hellip; (%zu more)", f->argc - 16);
		fputs("</td><td>", out);
		esc(out, f->mode);
		fputs("</td><td class=\"path\">", out);
		write_runtimes(out, f);
		fputs("</td><td>", out);
		esc(out, f->pw_version);
		write_options(out, f);
		fprintf(out, "</td><td class=\"n\">%llu</td><td class=\"n\">%zu</td><td>",
		        (unsigned long long)f->events, nf[f->index]);
		esc(out, f->partial ? "did not finish its trace" : f->footer ? f->reason : "no footer");
		fputs("</td></tr>\n", out);
		free(label);
	}
	free(order);
	free(nf);
	fputs("</table>\n", out);
}

static void write_stack(FILE *out, const struct finding *fd, const struct pw_input *in,
                        struct symbolizer *sym)
{
	if (!fd->nstack)
		return;
	fputs("<pre class=\"stack\">", out);
	for (size_t i = 0; i < fd->nstack && i < REPORT_FRAMES; i++) {
		struct sym_frame fr;
		sym_lookup(sym, &in->files[fd->file].modules, fd->stack[i], &fr);
		char *s = sym_format(&fr);
		fprintf(out, "#%-2zu ", i);
		esc(out, s);
		fputc('\n', out);
		free(s);
		sym_frame_free(&fr);
	}
	if (fd->nstack > REPORT_FRAMES)
		fprintf(out, "&hellip; %zu more frames\n", fd->nstack - REPORT_FRAMES);
	fputs("</pre>\n", out);
}

static void write_group(FILE *out, const struct group *g, size_t n, const struct findings *fs,
                        const struct pw_input *in, struct symbolizer *sym)
{
	const struct finding *fd = g->first;
	const char *sev = sev_name(g->sev);
	fprintf(out, "<details class=\"finding\" open id=\"group-%zu\"><summary><span class=\"sev-%s\">", n,
	        sev);
	esc(out, fd->severity);
	fputs("</span> <code class=\"rule\">", out);
	esc(out, fd->rule);
	fprintf(out, "</code> &times;%zu in %zu process%s at <code>", g->count, g->files.len,
	        g->files.len == 1 ? "" : "es");
	esc(out, g->site);
	fputs("</code></summary>\n<p class=\"message\">", out);
	esc(out, fd->message);
	fputs("</p>\n", out);
	struct rule_cite w; /* in the finding's own vendor's words */
	if (an_rule_words(fd->rule, fd->vendor, &w)) {
		fputs("<dl class=\"words\"><dt>contract</dt><dd>", out);
		if (linkable(w.url)) {
			fputs("<a href=\"", out);
			esc(out, w.url);
			fputs("\">", out);
			esc(out, w.document);
			fputs("</a>", out);
		} else {
			esc(out, w.document);
		}
		fputs("<blockquote>", out);
		esc(out, w.quote);
		fputs("</blockquote></dd>\n<dt>runtime</dt><dd>", out);
		esc(out, w.runtime);
		fputs("</dd>\n<dt>fix</dt><dd>", out);
		esc(out, w.fix);
		fputs("</dd></dl>\n", out);
	} else if (fd->derived) {
		fputs("<p class=\"muted\">Derived from the traces by the analyzer.</p>\n", out);
	}
	write_stack(out, fd, in, sym);
	fputs("<table class=\"occurrences\"><tr><th>process</th><th>host</th><th>call</th><th>API</th>"
	      "<th>message</th></tr>\n",
	      out);
	for (size_t k = 0; k < g->members.len && k < REPORT_EXAMPLES; k++) {
		const struct finding *m = vec_at(&fs->list, *(size_t *)vec_at(&g->members, k));
		const struct pw_file *f = &in->files[m->file];
		char *label = proc_label(f);
		fputs("<tr class=\"occurrence\"><td class=\"mono\">", out);
		esc(out, label);
		fputs("</td><td>", out);
		esc(out, f->host);
		if (m->has_call)
			fprintf(out, "</td><td class=\"n call\">%llu</td><td>", (unsigned long long)m->call);
		else
			fputs("</td><td>at exit</td><td>", out);
		esc(out, m->api ? m->api : "");
		fputs("</td><td>", out);
		esc(out, m->message);
		fputs(m->derived ? " <span class=\"muted\">[derived from the trace]</span>" : "", out);
		fputs("</td></tr>\n", out);
		free(label);
	}
	fputs("</table>\n", out);
	if (g->members.len > REPORT_EXAMPLES)
		fprintf(out, "<p class=\"muted\">and %zu more of this rule at this site</p>\n",
		        g->members.len - REPORT_EXAMPLES);
	fputs("</details>\n", out);
}

static void write_findings(FILE *out, const struct findings *fs, const struct pw_input *in,
                           struct symbolizer *sym)
{
	struct vec groups = group_findings(fs, in, sym);
	fprintf(out, "<p>%zu finding%s in %zu group%s (rule and call site).</p>\n", fs->list.len,
	        fs->list.len == 1 ? "" : "s", groups.len, groups.len == 1 ? "" : "s");
	for (size_t i = 0; i < groups.len && i < REPORT_GROUPS; i++)
		write_group(out, *(struct group **)vec_at(&groups, i), i, fs, in, sym);
	if (groups.len > REPORT_GROUPS) {
		size_t rest = 0;
		for (size_t i = REPORT_GROUPS; i < groups.len; i++)
			rest += (*(struct group **)vec_at(&groups, i))->count;
		fprintf(out,
		        "<p class=\"muted\">and %zu more groups, %zu findings (peerwatch-analyze "
		        "violations lists them all)</p>\n",
		        groups.len - REPORT_GROUPS, rest);
	}
	groups_free(&groups);
	if (fs->suppressed.len || fs->derived_suppressed) {
		fputs("<h3 id=\"suppressed\">Suppressed findings</h3>\n<p>Findings a suppression took: "
		      "not reported, listed here by the call they were on (the suppressions that matched "
		      "are below).</p>\n<table><tr><th>rule</th><th>process</th>"
		      "<th>call</th></tr>\n",
		      out);
		for (size_t i = 0; i < fs->suppressed.len && i < REPORT_GROUPS; i++) {
			const struct suppressed_mark *m = vec_at(&fs->suppressed, i);
			char *label = proc_label(&in->files[m->file]);
			fputs("<tr><td><code>", out);
			esc(out, m->rule);
			fputs("</code></td><td class=\"mono\">", out);
			esc(out, label);
			fprintf(out, "</td><td class=\"n\">%llu</td></tr>\n", (unsigned long long)m->call);
			free(label);
		}
		fputs("</table>\n", out);
		if (fs->suppressed.len > REPORT_GROUPS)
			fprintf(out, "<p class=\"muted\">and %zu more</p>\n",
			        fs->suppressed.len - REPORT_GROUPS);
		if (fs->derived_suppressed)
			fprintf(out, "<p>%llu derived finding%s left out: a suppression took %s.</p>\n",
			        (unsigned long long)fs->derived_suppressed,
			        fs->derived_suppressed == 1 ? "" : "s",
			        fs->derived_suppressed == 1 ? "it" : "them");
	}
	/* the suppressions that matched, per process (the footer's list) */
	bool head = false;
	size_t *order = file_order(in);
	for (size_t k = 0; k < in->n; k++) {
		const struct pw_file *f = &in->files[order[k]];
		json_t *list = f->suppressions ? json_loads(f->suppressions, 0, NULL) : NULL, *e;
		size_t i;
		if (json_array_size(list) && !head) {
			fputs("<h3 id=\"suppressions\">Suppressions that matched</h3>\n<table "
			      "class=\"suppressions\">"
			      "<tr><th>process</th><th>suppression</th><th>findings it took</th></tr>\n",
			      out);
			head = true;
		}
		char *label = proc_label(f);
		json_array_foreach(list, i, e)
		{
			json_t *d = json_object_get(e, "default"), *t = json_object_get(e, "suppression"),
			       *ln = json_object_get(e, "line"), *n = json_object_get(e, "hits");
			fputs("<tr><td class=\"mono proc\">", out);
			esc(out, label);
			fputs("</td><td>", out);
			if (json_is_string(d)) {
				fputs("default <code>", out);
				esc(out, json_string_value(d));
				fputs("</code> (a third-party library; <code>peerwatch-analyze rules "
				      "--suppressions</code>)",
				      out);
			} else {
				if (json_is_integer(ln))
					fprintf(out, "line %lld: ", (long long)json_integer_value(ln));
				fputs("<code>", out);
				esc(out, json_is_string(t) ? json_string_value(t) : "?");
				fputs("</code>", out);
			}
			fprintf(out, "</td><td class=\"n\">%lld</td></tr>\n",
			        json_is_integer(n) ? (long long)json_integer_value(n) : 0LL);
		}
		free(label);
		json_decref(list);
	}
	free(order);
	if (head)
		fputs("</table>\n", out);
}

static const char *link_class(const struct pw_peer_info *p)
{
	if (!p)
		return "none";
	if (!strcmp(p->link, "nvlink") || !strcmp(p->link, "nvswitch") || !strcmp(p->link, "pcie") ||
	    !strcmp(p->link, "xgmi"))
		return p->link;
	return "unknown";
}

/* One host's devices of one vendor: a grid of pairs, coloured by link, and
 * the same as a table. */
static void write_host_devices(FILE *out, const struct pw_devmap *m, const size_t *idx, size_t n)
{
	const int cell = 52, left = 70, top = 24;
	const struct pw_phys *first = vec_at(&m->phys, idx[0]);
	fputs("<h3>", out);
	esc(out, first->host);
	fputs(" (", out);
	esc(out, first->vendor);
	fputs(")</h3>\n<table class=\"devices\"><tr><th>device</th><th>name</th><th>UUID</th>"
	      "<th>bus id</th><th>processes</th></tr>\n",
	      out);
	char name[32];
	for (size_t i = 0; i < n; i++) {
		const struct pw_phys *p = vec_at(&m->phys, idx[i]);
		pw_devkey_fmt(m, PW_PHYS_BASE + (int64_t)idx[i], name, sizeof name);
		fputs("<tr><td>", out);
		esc(out, name);
		fputs("</td><td>", out);
		esc(out, p->name ? p->name : "");
		fputs("</td><td class=\"mono\">", out);
		esc(out, p->uuid);
		fputs("</td><td class=\"mono\">", out);
		esc(out, p->bus_id ? p->bus_id : "");
		fprintf(out, "</td><td class=\"n\">%zu</td></tr>\n", p->ordinals.len);
	}
	fputs("</table>\n", out);
	if (n < 2)
		return;
	int side = left + (int)n * cell + 8;
	fprintf(out,
	        "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"topology\" width=\"%d\" "
	        "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"links between the "
	        "devices\">\n",
	        side, top + (int)n * cell + 8, side, top + (int)n * cell + 8);
	for (size_t i = 0; i < n; i++) {
		pw_devkey_fmt(m, PW_PHYS_BASE + (int64_t)idx[i], name, sizeof name);
		fprintf(out, "<text x=\"%d\" y=\"%d\">", 4, top + (int)i * cell + cell / 2 + 4);
		esc(out, name);
		fprintf(out, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
		        left + (int)i * cell + cell / 2, 14);
		esc(out, name);
		fputs("</text>\n", out);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int x = left + (int)j * cell, y = top + (int)i * cell;
			if (i == j) {
				fprintf(
				    out,
				    "<rect class=\"self\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
				    x + 1, y + 1, cell - 2, cell - 2);
				continue;
			}
			int64_t a = PW_PHYS_BASE + (int64_t)idx[i], b = PW_PHYS_BASE + (int64_t)idx[j];
			const struct pw_peer_info *p = pw_devmap_link(m, a, b);
			char lk[64], from[32], to[32];
			pw_link_fmt(p, lk, sizeof lk);
			pw_devkey_fmt(m, a, from, sizeof from);
			pw_devkey_fmt(m, b, to, sizeof to);
			fprintf(
			    out,
			    "<rect class=\"link-%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>",
			    link_class(p), x + 1, y + 1, cell - 2, cell - 2);
			esc(out, from);
			fputs(" to ", out);
			esc(out, to);
			fputs(": ", out);
			esc(out, lk);
			fprintf(out, ", peer access %s</title></rect>\n",
			        !p || p->can_access < 0 ? "not asked"
			        : p->can_access         ? "possible"
			                                : "not possible");
			if (p && p->can_access == 0)
				fprintf(out,
				        "<line class=\"nopeer\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
				        x + 4, y + 4, x + cell - 4, y + cell - 4);
		}
	fputs("</svg><figcaption class=\"muted\">Each square: the link from the row's device to the "
	      "column's (green NVLink, blue PCIe, purple XGMI, grey unknown, pale: not recorded); "
	      "crossed: the runtime said peer access is not possible.</figcaption></figure>\n"
	      "<table class=\"pairs\"><tr><th>from</th><th>to</th><th>link</th><th>peer access</th>"
	      "<th>P2P read</th></tr>\n",
	      out);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (i == j)
				continue;
			int64_t a = PW_PHYS_BASE + (int64_t)idx[i], b = PW_PHYS_BASE + (int64_t)idx[j];
			const struct pw_peer_info *p = pw_devmap_link(m, a, b);
			char lk[64], from[32], to[32];
			pw_link_fmt(p, lk, sizeof lk);
			pw_devkey_fmt(m, a, from, sizeof from);
			pw_devkey_fmt(m, b, to, sizeof to);
			fputs("<tr><td>", out);
			esc(out, from);
			fputs("</td><td>", out);
			esc(out, to);
			fputs("</td><td>", out);
			esc(out, lk);
			fprintf(out, "</td><td>%s</td><td>",
			        !p || p->can_access < 0 ? "not asked"
			        : p->can_access         ? "possible"
			                                : "not possible");
			esc(out, p && p->p2p_read ? p->p2p_read : "");
			fputs("</td></tr>\n", out);
		}
	fputs("</table>\n", out);
}

static void write_devices(FILE *out, const struct pw_devmap *m)
{
	if (!m->phys.len) {
		fputs("<p>No trace has device lines (written before peerwatch recorded them, or the "
		      "runtime said nothing): devices are known only by each process's ordinals.</p>\n",
		      out);
		return;
	}
	size_t *idx = xcalloc(m->phys.len, sizeof *idx);
	for (size_t i = 0; i < m->phys.len;) { /* the map is ordered by host and vendor */
		const struct pw_phys *p = vec_at(&m->phys, i);
		size_t n = 0;
		while (i < m->phys.len) {
			const struct pw_phys *q = vec_at(&m->phys, i);
			if (strcmp(q->host, p->host) || strcmp(q->vendor, p->vendor))
				break;
			idx[n++] = i++;
		}
		write_host_devices(out, m, idx, n);
	}
	free(idx);
	if (m->unidentified)
		fprintf(out,
		        "<p class=\"muted\">%zu trace%s without device lines: %s devices are known "
		        "only by ordinal.</p>\n",
		        m->unidentified, m->unidentified == 1 ? "" : "s",
		        m->unidentified == 1 ? "its" : "their");
}

/* ---- copies between devices: matrix's cells as a heat map ---- */

/* 0..4: how many bytes a pair copied, against the most any pair of the
 * grid copied (log scale: a pair with a thousandth of the most still
 * shows). */
static int heat(uint64_t bytes, uint64_t most)
{
	if (!bytes || !most)
		return 0;
	int level = 4;
	for (uint64_t m = most; level > 1 && bytes <= m / 32; m /= 32)
		level--;
	return level;
}

static void cell_words(FILE *out, const struct pw_devmap *m, const struct copy_cell *c)
{
	char from[32], to[32], by[32], hg[32], gg[32];
	pw_devkey_fmt(m, c->src, from, sizeof from);
	pw_devkey_fmt(m, c->dst, to, sizeof to);
	fmt_bytes(by, sizeof by, c->bytes);
	fmt_gbps(hg, sizeof hg, c->bytes, c->host_ns);
	fmt_gbps(gg, sizeof gg, c->gpu_bytes, c->gpu_ns);
	esc(out, from);
	fputs(" to ", out);
	esc(out, to);
	fprintf(out, ": %s in %llu cop%s, host %s GB/s", by, (unsigned long long)c->copies,
	        c->copies == 1 ? "y" : "ies", hg);
	if (c->gpu_ns)
		fprintf(out, ", device %s GB/s", gg);
	if (c->no_peer)
		fprintf(out, ", %llu without peer access", (unsigned long long)c->no_peer);
}

static void write_copy_grid(FILE *out, const struct pw_devmap *dm, struct copy_cell **cells, size_t from,
                            size_t to)
{
	size_t nd;
	int64_t *dev = copies_devices(cells, from, to, &nd);
	uint64_t most = 0;
	for (size_t i = from; i < to; i++)
		most = cells[i]->bytes > most ? cells[i]->bytes : most;
	const int cell = 52, left = 70, top = 24;
	char name[32];
	if (most && nd <= 32) {
		int side = left + (int)nd * cell + 8, h = top + (int)nd * cell + 8;
		fprintf(out,
		        "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"heat\" width=\"%d\" "
		        "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"bytes copied "
		        "between devices\">\n",
		        side, h, side, h);
		for (size_t i = 0; i < nd; i++) {
			pw_devkey_fmt(dm, dev[i], name, sizeof name);
			fprintf(out, "<text x=\"4\" y=\"%d\">", top + (int)i * cell + cell / 2 + 4);
			esc(out, name);
			fprintf(out, "</text><text x=\"%d\" y=\"14\" text-anchor=\"middle\">",
			        left + (int)i * cell + cell / 2);
			esc(out, name);
			fputs("</text>\n", out);
		}
		for (size_t i = 0; i < nd; i++)
			for (size_t j = 0; j < nd; j++) {
				const struct copy_cell *c = copies_find(cells, from, to, dev[i], dev[j]);
				int x = left + (int)j * cell, y = top + (int)i * cell;
				fprintf(out,
				        "<rect class=\"heat-%d\" x=\"%d\" y=\"%d\" width=\"%d\" "
				        "height=\"%d\">",
				        c ? heat(c->bytes, most) : 0, x + 1, y + 1, cell - 2, cell - 2);
				if (c && c->copies) {
					fputs("<title>", out);
					cell_words(out, dm, c);
					fputs("</title>", out);
				}
				fputs("</rect>\n", out);
				if (c && c->no_peer)
					fprintf(out,
					        "<line class=\"nopeer\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
					        "y2=\"%d\"/>\n",
					        x + 4, y + 4, x + cell - 4, y + cell - 4);
			}
		fputs("</svg><figcaption class=\"muted\">Bytes copied from the row's device to the "
		      "column's, darker for more (log scale); crossed: copies made while neither device "
		      "had peer access to the other (staged through host memory).  The numbers are on "
		      "hover and in the table.</figcaption></figure>\n",
		      out);
	}
	free(dev);
	fputs("<table class=\"copies\"><tr><th>from</th><th>to</th><th>link</th><th>copies</th>"
	      "<th>failed</th><th>bytes</th><th>host GB/s</th><th>device GB/s</th>"
	      "<th>without peer access</th><th>implicit</th><th>peer access at exit</th></tr>\n",
	      out);
	for (size_t i = from; i < to; i++) {
		const struct copy_cell *c = cells[i];
		char s[32], d[32], ln[48], by[32], hg[32], gg[32];
		pw_devkey_fmt(dm, c->src, s, sizeof s);
		pw_devkey_fmt(dm, c->dst, d, sizeof d);
		pw_link_fmt(pw_devmap_link(dm, c->src, c->dst), ln, sizeof ln);
		fmt_bytes(by, sizeof by, c->bytes);
		fmt_gbps(hg, sizeof hg, c->bytes, c->host_ns);
		fmt_gbps(gg, sizeof gg, c->gpu_bytes, c->gpu_ns);
		fputs("<tr class=\"pair\" data-src=\"", out);
		esc(out, s);
		fputs("\" data-dst=\"", out);
		esc(out, d);
		fprintf(out, "\" data-bytes=\"%llu\" data-copies=\"%llu\"><td>", (unsigned long long)c->bytes,
		        (unsigned long long)c->copies);
		esc(out, s);
		fputs("</td><td>", out);
		esc(out, d);
		fputs("</td><td>", out);
		esc(out, ln);
		bool judged = c->src >= 0 && c->dst >= 0 && c->src != c->dst;
		fprintf(out,
		        "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
		        "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">",
		        (unsigned long long)c->copies, (unsigned long long)c->failed, by,
		        c->host_ns ? hg : "-", c->gpu_ns ? gg : "-");
		if (judged)
			fprintf(out, "%llu", (unsigned long long)c->no_peer);
		else
			fputs("-", out);
		fprintf(out, "</td><td class=\"n\">%llu</td><td>%s</td></tr>\n",
		        (unsigned long long)c->implicit,
		        c->on_at_end              ? "on"
		        : c->enables || c->grants ? "off"
		        : c->enable_failed        ? "refused"
		                                  : "-");
	}
	fputs("</table>\n", out);
}

/* ---- IPC lifetimes: a bar per process and handle ---- */

#define REPORT_HANDLES 50 /* handles drawn; the rest counted */

/* One bar: an export until its free, an open until its close, or a mark. */
struct bar {
	const struct ipc_row *from, *to; /* to: NULL when it lasted to the process's end */
	const char *what;                /* "exported", "opened", "open refused" */
};

static int64_t file_end(const struct pw_input *in, size_t file, int64_t t)
{
	const struct pw_file *f = &in->files[file];
	return f->any_t && f->last_t_ns > t ? f->last_t_ns : t;
}

static void bar_label(FILE *out, const struct pw_input *in, const struct ipc_row *r, const char *what)
{
	char *label = proc_label(&in->files[r->file]);
	esc(out, label);
	fputc(' ', out);
	esc(out, what);
	free(label);
}

/* The findings of fs on one of the handle's calls, as marks on its bars. */
static void write_marks(FILE *out, const struct findings *fs, const struct ipc_row *r, int x, int y)
{
	for (size_t i = 0; i < fs->list.len; i++) {
		const struct finding *fd = vec_at(&fs->list, i);
		if (!fd->has_call || fd->file != r->file || fd->call != r->seq)
			continue;
		fprintf(out, "<circle class=\"mark sev-%s\" cx=\"%d\" cy=\"%d\" r=\"6\"><title>",
		        sev_name(fd->sev), x, y);
		esc(out, fd->rule);
		fputs(": ", out);
		esc(out, fd->message);
		fputs("</title></circle>\n", out);
	}
}

/* A handle's bars, from its calls in the listing (ipclist.h): its first
 * export until the exporter's free (destroy), each open until the close
 * (destroy) that ended it. */
static void handle_bars(const struct ipc_lhandle *h, const struct vec *rows, struct vec *bars)
{
	const struct ipc_row *end = NULL;
	struct hmap ends; /* (file, the open's seq) -> the row that ended it */
	hmap_init(&ends);
	for (size_t i = 0; i < rows->len; i++) {
		const struct ipc_row *r = vec_at(rows, i);
		if (r->flags & ROW_ENDS) {
			uint64_t k[2] = {r->file, r->of_seq};
			*hmap_put(&ends, k, sizeof k) = (void *)r;
		} else if (r->op == OP_FREE || r->op == OP_EV_DESTROY) {
			end = r; /* the exporter's: one kept a handle */
		}
	}
	for (size_t i = 0; i < rows->len; i++) {
		const struct ipc_row *r = vec_at(rows, i);
		bool open = r->op == OP_OPEN || r->op == OP_EV_OPEN;
		uint64_t k[2] = {r->file, r->seq};
		if ((r->op == OP_EXPORT || r->op == OP_EV_EXPORT) && h->exported && r->ret == 0 &&
		    r->file == h->ex_file && r->seq == h->ex_seq && r->t_ns == h->ex_t)
			*(struct bar *)vec_push(bars) = (struct bar){
			    r, h->freed ? end : NULL, h->event ? "exported the event" : "exported"};
		else if (open && r->ret == 0)
			*(struct bar *)vec_push(bars) =
			    (struct bar){r, hmap_get(&ends, k, sizeof k), "opened"};
		else if (open)
			*(struct bar *)vec_push(bars) = (struct bar){r, r, "open refused"};
	}
	hmap_free(&ends, NULL);
}

static void write_handle(FILE *out, struct ipc_list *l, const struct ipc_lhandle *h, size_t n,
                         const struct pw_input *in, const struct findings *fs)
{
	struct vec rows, bars; /* one handle's calls: read from the listing, held while drawn */
	vec_init(&rows, sizeof(struct ipc_row));
	vec_init(&bars, sizeof(struct bar));
	for (size_t i = 0; i < h->nrows; i++)
		*(struct ipc_row *)vec_push(&rows) = *ipc_list_row(l, h->row0 + i);
	handle_bars(h, &rows, &bars);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < rows.len; i++) {
		const struct ipc_row *r = vec_at(&rows, i);
		t0 = r->t_ns < t0 ? r->t_ns : t0;
		t1 = r->t_ns > t1 ? r->t_ns : t1;
	}
	for (size_t i = 0; i < bars.len; i++) {
		const struct bar *b = vec_at(&bars, i);
		int64_t e = b->to ? b->to->t_ns : file_end(in, b->from->file, b->from->t_ns);
		t1 = e > t1 ? e : t1;
	}
	if (t1 <= t0)
		t1 = t0 + 1;
	const int left = 250, width = 560, row = 22, top = 8;
	int hgt = top + (int)bars.len * row + 20;
	fprintf(out, "<div class=\"handle\" id=\"handle-%zu\" data-handle=\"%s\"><p><code>", n, h->handle);
	fprintf(out, "%.32s&hellip;</code> %s, ", h->handle, h->event ? "event" : "memory");
	esc(out, h->host);
	fprintf(out, ", over %.3f ms</p>\n", (double)(t1 - t0) / 1e6);
	fprintf(out,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"life\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"who held the handle when\">\n",
	        left + width + 10, hgt, left + width + 10, hgt);
	for (size_t i = 0; i < bars.len; i++) {
		const struct bar *b = vec_at(&bars, i);
		int y = top + (int)i * row;
		int64_t e = b->to ? b->to->t_ns : file_end(in, b->from->file, b->from->t_ns);
		int x0 = left + (int)((double)(b->from->t_ns - t0) * width / (double)(t1 - t0)),
		    x1 = left + (int)((double)(e - t0) * width / (double)(t1 - t0));
		if (x1 < x0 + 3)
			x1 = x0 + 3;
		const struct pw_file *f = &in->files[b->from->file];
		fprintf(out, "<g class=\"bar\" data-pid=\"%lld\"><text x=\"4\" y=\"%d\">", (long long)f->pid,
		        y + 14);
		bar_label(out, in, b->from, b->what);
		const char *cls = !strcmp(b->what, "open refused") ? "refused"
		                  : b->to                          ? "held"
		                                                   : "open-at-end";
		fprintf(out, "</text><rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>",
		        cls, x0, y + 3, x1 - x0, row - 8);
		esc(out, b->from->api);
		fprintf(out, " (call %llu) at +%.3f ms", (unsigned long long)b->from->seq,
		        (double)(b->from->t_ns - t0) / 1e6);
		if (b->to && b->to != b->from) {
			fputs(", until ", out);
			esc(out, b->to->api);
			fprintf(out, " (call %llu) at +%.3f ms", (unsigned long long)b->to->seq,
			        (double)(b->to->t_ns - t0) / 1e6);
		} else if (!b->to) {
			fputs(", until the process's trace ends", out);
		}
		fputs("</title></rect>\n", out);
		write_marks(out, fs, b->from, x0, y + row / 2);
		if (b->to && b->to != b->from)
			write_marks(out, fs, b->to, x1, y + row / 2);
		fputs("</g>\n", out);
	}
	/* findings on a call of the handle that is no bar's end (a free after a close, a stray close) */
	fputs("</svg></div>\n", out);
	vec_free(&bars);
	vec_free(&rows);
}

static void write_ipc(FILE *out, const struct ipc_report *r, struct ipc_list *l, const struct pw_input *in,
                      const struct findings *fs)
{
	if (!l->handles.len && !r->shared.len) {
		fputs("<p>No IPC handle was exported or opened in the traces.</p>\n", out);
		return;
	}
	if (l->handles.len)
		fputs(
		    "<p>Per handle, a bar for each process that held it: the exporter from its export to "
		    "its free, each importer from its open to its close (to the end of its trace when it "
		    "never closed, dashed and orange); a refused open is a short red bar; findings are dots "
		    "on the call they name.  The words are on hover.</p>\n",
		    out);
	for (size_t i = 0; i < l->handles.len && i < REPORT_HANDLES; i++)
		write_handle(out, l, vec_at(&l->handles, i), i, in, fs);
	if (l->handles.len > REPORT_HANDLES)
		fprintf(
		    out,
		    "<p class=\"muted\">and %zu more handles (peerwatch-analyze ipc lists them all)</p>\n",
		    l->handles.len - REPORT_HANDLES);
	if (!r->shared.len)
		return;
	fputs(
	    "<h3>Virtual-memory and pool sharing</h3>\n<table class=\"shared\"><tr><th>kind</th><th>key</th>"
	    "<th>host</th><th>calls</th><th>processes</th></tr>\n",
	    out);
	for (size_t i = 0; i < r->shared.len && i < REPORT_HANDLES; i++) {
		const struct ipc_shared *sh = *(struct ipc_shared **)vec_at(&r->shared, i);
		size_t procs = 0;
		for (size_t k = 0; k < sh->recs.len; k++) {
			const struct ipc_rec *a = *(struct ipc_rec **)vec_at(&sh->recs, k);
			bool seen = false;
			for (size_t j = 0; j < k && !seen; j++)
				seen = (*(struct ipc_rec **)vec_at(&sh->recs, j))->file == a->file;
			procs += !seen;
		}
		fputs("<tr><td>", out);
		esc(out, sh->kind);
		fputs("</td><td class=\"mono\">", out);
		esc(out, sh->key);
		fputs("</td><td>", out);
		esc(out, sh->host);
		fprintf(out, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>\n", sh->recs.len,
		        procs);
	}
	fputs("</table>\n", out);
	if (r->shared.len > REPORT_HANDLES)
		fprintf(out, "<p class=\"muted\">and %zu more</p>\n", r->shared.len - REPORT_HANDLES);
}

/* ---- host time per API: summary's figures and histogram ---- */

/* The distribution of one API's host times, a bar per power of two. */
static void write_hist(FILE *out, const struct hist *h)
{
	uint64_t oct[64], most = 0;
	hist_octaves(h, oct);
	int lo = 64, hi = -1;
	for (int k = 0; k < 64; k++)
		if (oct[k]) {
			lo = k < lo ? k : lo;
			hi = k;
			most = oct[k] > most ? oct[k] : most;
		}
	if (hi < 0)
		return;
	const int bw = 6, ht = 18;
	int n = hi - lo + 1;
	fprintf(out,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hist\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"host time distribution\">",
	        n * bw, ht, n * bw, ht);
	for (int k = lo; k <= hi; k++) {
		int bh = oct[k] ? 1 + (int)((double)oct[k] * (ht - 1) / (double)most) : 0;
		char a[24], b[24];
		fmt_ns(a, sizeof a, (double)(k ? 1ull << k : 0));
		fmt_ns(b, sizeof b, (double)(1ull << (k + 1 < 64 ? k + 1 : 63)));
		fprintf(out,
		        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>%s to %s: %llu "
		        "call%s</title></rect>",
		        (k - lo) * bw, ht - bh, bw - 1, bh, a, b, (unsigned long long)oct[k],
		        oct[k] == 1 ? "" : "s");
	}
	fputs("</svg>", out);
}

static void write_host_time(FILE *out, const struct summary *s)
{
	void **v = sorted_values(&s->apis, summary_by_api);
	if (!v[0]) {
		fputs("<p>No call in the traces.</p>\n", out);
		free(v);
		return;
	}
	fputs("<p>Time in the call on the calling thread, per API (as <code>summary</code> gives it): an "
	      "asynchronous call's is the time to enqueue it; a call made inside another recorded call "
	      "is nested and its time is also its parent's.  The histogram has a bar per power of two "
	      "of nanoseconds, its range on hover.</p>\n"
	      "<table class=\"apis\"><tr><th>API</th><th>vendor</th><th>calls</th><th>errors</th>"
	      "<th>nested</th><th>total</th><th>mean</th><th>p50</th><th>p99</th><th>max</th>"
	      "<th>distribution</th></tr>\n",
	      out);
	for (size_t i = 0; v[i]; i++) {
		const struct api_stat *a = v[i];
		fputs("<tr class=\"api\" data-api=\"", out);
		esc(out, a->api);
		fputs("\" data-vendor=\"", out);
		esc(out, a->vendor);
		fprintf(out, "\" data-calls=\"%llu\" data-errors=\"%llu\"><td class=\"mono\">",
		        (unsigned long long)a->count, (unsigned long long)a->errors);
		esc(out, a->api);
		fputs("</td><td>", out);
		esc(out, a->vendor);
		fprintf(out,
		        "%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>",
		        a->runtime ? " runtime" : "", (unsigned long long)a->count,
		        (unsigned long long)a->errors, (unsigned long long)a->nested);
		if (a->timed) {
			char tot[24], mean[24], p50[24], p99[24], max[24];
			fmt_ns(tot, sizeof tot, (double)a->host.total);
			fmt_ns(mean, sizeof mean, hist_mean(&a->host));
			fmt_ns(p50, sizeof p50, (double)hist_percentile(&a->host, 50));
			fmt_ns(p99, sizeof p99, (double)hist_percentile(&a->host, 99));
			fmt_ns(max, sizeof max, (double)a->host.max);
			fprintf(out,
			        "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			        "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
			        tot, mean, p50, p99, max);
			write_hist(out, &a->host);
			fputs("</td></tr>\n", out);
		} else {
			fputs("<td colspan=\"6\" class=\"muted\">timed only with its parent</td></tr>\n",
			      out);
		}
	}
	fputs("</table>\n", out);
	free(v);
}

/* ---- managed memory: each allocation's advice, prefetches and attachments ---- */

#define REPORT_ALLOCS 50 /* allocations shown; the rest counted */
#define REPORT_OPS 20    /* history shown per allocation */

static void write_managed(FILE *out, struct managed *m, const struct pw_input *in, const struct pw_devmap *dm)
{
	if (!m->allocs.len && !m->ops.len && !m->dests.len) {
		fputs("<p>No managed memory in the traces.</p>\n", out);
		return;
	}
	size_t *own = managed_order(m, in, dm);
	size_t *nops = xcalloc(m->allocs.len + 1, sizeof *nops);
	for (size_t i = 0; i < m->ops.len; i++)
		nops[own[i]]++;
	fprintf(out,
	        "<p>%zu managed allocation%s (%llu failed), each with the advice, prefetches and stream "
	        "attachments of its range and its free, as <code>managed</code> gives them (a batch "
	        "prefetch's ranges are counted by destination below).  Page faults and migrations are "
	        "not in the traces.</p>\n",
	        m->allocs.len, m->allocs.len == 1 ? "" : "s", (unsigned long long)m->failed_allocs);
	for (size_t a = 0; a < m->allocs.len && a < REPORT_ALLOCS; a++) {
		const struct m_alloc *al = vec_at(&m->allocs, a);
		char *label = proc_label(&in->files[al->file]), bytes[32], dev[48];
		fmt_bytes(bytes, sizeof bytes, al->bytes);
		pw_devkey_fmt(dm, pw_devkey(dm, al->file, al->vendor, al->dev), dev, sizeof dev);
		fprintf(out,
		        "<details class=\"finding alloc\" open data-ptr=\"0x%llx\" data-bytes=\"%llu\" "
		        "data-ops=\"%zu\"><summary><code>0x%llx</code> ",
		        (unsigned long long)al->ptr, (unsigned long long)al->bytes, nops[a + 1],
		        (unsigned long long)al->ptr);
		esc(out, bytes);
		fputs(" in ", out);
		esc(out, label);
		fputs(" (", out);
		esc(out, al->vendor);
		fputs(", ", out);
		esc(out, dev);
		fputs(", ", out);
		esc(out, al->flags ? al->flags : "");
		if (al->freed)
			fprintf(out, "), freed at call %llu", (unsigned long long)al->free_seq);
		else
			fputs("), not freed in the trace", out);
		fprintf(out, "</summary>\n");
		free(label);
		if (!nops[a + 1]) {
			fputs("<p class=\"muted\">No advice, prefetch, attachment or free.</p></details>\n",
			      out);
			continue;
		}
		fputs("<table class=\"history\"><tr><th>call</th><th>API</th><th>what</th><th>range</th>"
		      "<th>target</th><th>result</th></tr>\n",
		      out);
		size_t shown = 0;
		for (size_t i = 0; i < m->ops.len; i++) {
			if (own[i] != a + 1)
				continue;
			if (shown++ == REPORT_OPS)
				break;
			const struct m_op *op = vec_at(&m->ops, i);
			char by[32];
			fmt_bytes(by, sizeof by, op->bytes);
			fprintf(out, "<tr><td class=\"n\">%llu</td><td class=\"mono\">",
			        (unsigned long long)op->seq);
			esc(out, op->api);
			fputs("</td><td>", out);
			esc(out, op->what);
			fprintf(out, "</td><td class=\"mono\">+0x%llx, %s</td><td>",
			        (unsigned long long)(op->ptr - al->ptr), op->bytes ? by : "all");
			esc(out, op->target);
			fputs("</td><td>", out);
			esc(out, op->result);
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
		if (nops[a + 1] > REPORT_OPS)
			fprintf(out, "<p class=\"muted\">and %zu more</p>\n", nops[a + 1] - REPORT_OPS);
		fputs("</details>\n", out);
	}
	if (m->allocs.len > REPORT_ALLOCS)
		fprintf(out,
		        "<p class=\"muted\">and %zu more allocations (peerwatch-analyze managed lists them "
		        "all)</p>\n",
		        m->allocs.len - REPORT_ALLOCS);
	if (nops[0])
		fprintf(out,
		        "<p>%zu call%s on ranges in no managed allocation of these traces "
		        "(<code>managed</code> lists them).</p>\n",
		        nops[0], nops[0] == 1 ? "" : "s");
	struct m_dest **v = managed_sorted_dests(m);
	if (v[0]) {
		fputs("<h3>Prefetches by destination</h3>\n<table "
		      "class=\"dests\"><tr><th>host</th><th>vendor</th>"
		      "<th>destination</th><th>prefetches</th><th>failed</th><th>bytes</th></tr>\n",
		      out);
		for (size_t i = 0; v[i]; i++) {
			char by[32];
			fmt_bytes(by, sizeof by, v[i]->bytes);
			fputs("<tr><td>", out);
			esc(out, v[i]->host);
			fputs("</td><td>", out);
			esc(out, v[i]->vendor);
			fputs("</td><td>", out);
			esc(out, v[i]->dest);
			fprintf(out,
			        "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td "
			        "class=\"n\">%s</td></tr>\n",
			        (unsigned long long)v[i]->count, (unsigned long long)v[i]->failed, by);
		}
		fputs("</table>\n", out);
	}
	free(v);
	free(nops);
	free(own);
}

/* What the page lists beyond the findings: matrix's, ipc's, managed's and
 * summary's reports, read in the findings' read (findings_read_with). */
struct listings {
	struct copy_matrix m;
	struct ipc_report ipc; /* the findings' (check's reading): VMM and pool sharing */
	struct ipc_list list;  /* the handles' lives */
	struct summary sum;
	struct managed mg;
};

static void listings_init(struct listings *ls)
{
	summary_init(&ls->sum);
	managed_init(&ls->mg);
	hmap_init(&ls->m.cells);
	ipc_init(&ls->ipc);
	ipc_list_init(&ls->list);
}

static void listings_free(struct listings *ls)
{
	managed_free(&ls->mg);
	summary_free(&ls->sum);
	hmap_free(&ls->m.cells, copies_free_cell);
	ipc_free(&ls->ipc);
	ipc_list_free(&ls->list);
}

static void write_copies_ipc(FILE *out, struct pw_input *in, const struct pw_devmap *dm,
                             const struct findings *fs, struct listings *ls)
{
	struct copy_matrix merged;
	hmap_init(&merged.cells);
	copies_regroup(&merged, &ls->m, dm);
	struct copy_cell **cells = copies_sorted(&merged);
	size_t n = merged.cells.len;
	fputs("<section id=\"copies\"><h2>Copies between devices</h2>\n", out);
	if (!n)
		fputs("<p>No copies between devices and no peer-access changes in the traces.</p>\n", out);
	for (size_t from = 0; from < n;) {
		size_t to = from;
		while (to < n && !strcmp(cells[to]->host, cells[from]->host) &&
		       !strcmp(cells[to]->vendor, cells[from]->vendor))
			to++;
		fputs("<h3>", out);
		esc(out, cells[from]->host);
		fputs(" (", out);
		esc(out, cells[from]->vendor);
		fputs(")</h3>\n", out);
		write_copy_grid(out, dm, cells, from, to);
		from = to;
	}
	fputs("</section>\n<section id=\"ipc\"><h2>IPC lifetimes</h2>\n", out);
	write_ipc(out, &ls->ipc, &ls->list, in, fs);
	fputs("</section>\n<section id=\"managed\"><h2>Managed memory</h2>\n", out);
	write_managed(out, &ls->mg, in, dm);
	fputs("</section>\n<section id=\"time\"><h2>Host time per API</h2>\n", out);
	write_host_time(out, &ls->sum);
	fputs("</section>\n", out);
	free(cells);
	hmap_free(&merged.cells, copies_free_cell);
}

static bool write_page(FILE *out, const struct pw_opts *o, struct pw_input *in, const struct findings *fs,
                       const struct vec *ps, bool unread, struct listings *ls)
{
	struct symbolizer *sym = sym_new();
	struct pw_devmap map;
	pw_devmap_build(&map, in);
	size_t procs = 0;
	const struct pw_file *one = NULL;
	for (size_t i = 0; i < in->n; i++)
		if (in->files[i].header_ok) {
			procs++;
			one = one ? one : &in->files[i];
		}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"peerwatch-analyze report\">\n<title>peerwatch: ",
	      out);
	esc(out, one ? pw_file_program(one) : "no process");
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header><h1>peerwatch: ", style);
	esc(out, one ? pw_file_program(one) : "no process");
	fprintf(out, "</h1><p class=\"muted\">%zu process%s, %zu trace%s</p></header>\n", procs,
	        procs == 1 ? "" : "es", in->n, in->n == 1 ? "" : "s");
	fputs("<nav><a href=\"#summary\">Summary</a><a href=\"#findings\">Findings</a>"
	      "<a href=\"#devices\">Devices</a><a href=\"#copies\">Copies</a><a href=\"#ipc\">IPC</a>"
	      "<a href=\"#managed\">Managed</a><a href=\"#time\">Host time</a></nav>\n<main>\n<section "
	      "id=\"summary\"><h2>Summary</h2>\n",
	      out);
	write_verdict(out, fs, in, ps, o, unread);
	write_processes(out, in, fs);
	fputs("</section>\n<section id=\"findings\"><h2>Findings</h2>\n", out);
	write_findings(out, fs, in, sym);
	fputs("</section>\n<section id=\"devices\"><h2>Devices</h2>\n", out);
	write_devices(out, &map);
	fputs("</section>\n", out);
	write_copies_ipc(out, in, &map, fs, ls);
	fputs("</main>\n<footer class=\"muted\"><p>Made by peerwatch-analyze report from "
	      "the traces named above; the same findings as <code>peerwatch-analyze check</code> and "
	      "<code>violations</code>.</p></footer>\n</body>\n</html>\n",
	      out);
	pw_devmap_free(&map);
	sym_free(sym);
	return !ferror(out);
}

int cmd_report(const struct pw_opts *o)
{
	if (o->format != FMT_TEXT) {
		fprintf(stderr, "peerwatch-analyze: report writes HTML; --json and --format are not its "
		                "options (check --json has the same findings)\n");
		return EXIT_BAD;
	}
	struct findings fs;
	struct pw_input in = {0};
	struct listings ls;
	findings_init(&fs);
	listings_init(&ls);
	/* one read: the findings (the IPC ones as check reads them, which
	 * also gives the VMM and pool sharing) and the listings, the handles'
	 * lives among them */
	const struct pw_sink more[] = {
	    {&copies_ops, &ls.m}, {&managed_ops, &ls.mg}, {&summary_ops, &ls.sum}, {&ipc_list_ops, &ls.list}};
	int st = findings_read_with(o, &in, &fs, &ls.ipc, more, sizeof more / sizeof *more);
	if (st != PW_READ_FATAL && in.n)
		ipc_list_done(&ls.list, &in);
	if (st == PW_READ_FATAL || !in.n) {
		listings_free(&ls);
		findings_free(&fs);
		pw_input_free(&in);
		return an_exit(st);
	}
	const char *output = o->output && strcmp(o->output, "-") ? o->output : NULL; /* "-": stdout */
	if (output && pw_input_has(&in, output)) {
		char *p = sanitize(output);
		fprintf(stderr,
		        "peerwatch-analyze: report: -o %s is one of the traces read; not "
		        "overwriting it\n",
		        p);
		free(p);
		listings_free(&ls);
		findings_free(&fs);
		pw_input_free(&in);
		return EXIT_BAD;
	}
	struct vec ps;
	vec_init(&ps, sizeof(struct problem));
	gate_problems(&in, &ps);
	bool ok;
	char *tmp = NULL;
	if (output) { /* beside the final name, renamed when complete */
		tmp = xasprintf("%s.tmp.%ld", output, (long)getpid());
		errno = 0;
		FILE *out = fopen(tmp, "w");
		ok = out && write_page(out, o, &in, &fs, &ps, st != PW_READ_OK, &ls);
		ok &= out && !fclose(out);
		ok = ok && !rename(tmp, output);
		if (!ok) {
			char *p = sanitize(output);
			fprintf(stderr, "peerwatch-analyze: %s: cannot write the report: %s\n", p,
			        errno ? strerror(errno) : "write error");
			free(p);
			unlink(tmp);
		} else {
			char *p = sanitize(output);
			printf("wrote %s: %zu finding%s, %zu trace%s; open it in a browser\n", p, fs.list.len,
			       fs.list.len == 1 ? "" : "s", in.n, in.n == 1 ? "" : "s");
			free(p);
		}
	} else {
		ok = write_page(stdout, o, &in, &fs, &ps, st != PW_READ_OK, &ls) && !fflush(stdout);
	}
	free(tmp);
	gate_problems_free(&ps);
	listings_free(&ls);
	findings_free(&fs);
	pw_input_free(&in);
	return ok ? an_exit(st) : EXIT_BAD;
}

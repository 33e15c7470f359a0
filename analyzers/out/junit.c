/*
 * JUnit XML (junit.h): one <testsuite> per traced process, one <testcase>
 * per finding (a <failure> when it fails: every finding for violations, a
 * finding at or above --fail-on for check), and for check one <testcase>
 * per trace that says whether it could be verified against its footer (an
 * <error> when it cannot and --allow-partial does not accept it).  A
 * process without a finding has a passing "no findings" <testcase>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/util.h"
#include "model/catalog.h"
#include "model/procs.h"
#include "out/junit.h"
#include "out/place.h"

/* ---- JUnit XML ----------------------------------------------------------- */

/* Text safe in XML 1.0 content and attributes: base/show.h's markup_put. */
static void xml_put(FILE *out, const char *s)
{
	markup_put(out, s);
}

/* Multi-line text for an element's content: each line sanitized. */
static void xml_put_lines(FILE *out, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *line = xstrndup(s, n);
		xml_put(out, line);
		free(line);
		s += n;
		if (*s == '\n') {
			fputc('\n', out);
			s++;
		}
	}
}

struct suite_count {
	size_t tests, failures, errors;
};

/* The finding's full text: message, where, rule, contract and fix, stack. */
static char *finding_body(const struct finding *fd, const struct pw_file *f, struct symbolizer *sym,
                          const struct place *p, const char *root)
{
	struct rule_desc d;
	bool known = rule_describe(fd->rule, fd->vendor, &d);
	char *where = where_text(fd, f);
	size_t cap = 1024;
	char *b = xmalloc(cap);
	size_t len = 0;
#define ADD(...)                                       \
	do {                                           \
		char *piece_ = xasprintf(__VA_ARGS__); \
		size_t n_ = strlen(piece_);            \
		if (len + n_ + 1 > cap) {              \
			cap = 2 * (len + n_ + 1);      \
			b = xrealloc(b, cap);          \
		}                                      \
		memcpy(b + len, piece_, n_ + 1);       \
		len += n_;                             \
		free(piece_);                          \
	} while (0)
	b[0] = 0;
	ADD("%s: %s\n%s\n", fd->severity, fd->rule, fd->message);
	ADD("in %s%s\n", where, fd->derived ? " (derived from the trace by the analyzer)" : "");
	if (p->line > 0)
		ADD("at %s:%d\n", shown_path(p->path, root), p->line);
	if (known && d.has_words) /* in the finding's own vendor's words */
		ADD("contract: %s: \"%s\"\nruntime: %s\nfix: %s\n", d.words.document, d.words.quote,
		    d.words.runtime, d.words.fix);
	else if (known && d.source)
		ADD("contract: %s\n", d.source);
	for (size_t i = 0; i < fd->nstack; i++) {
		struct sym_frame fr;
		sym_lookup(sym, &f->modules, fd->stack[i], &fr);
		char *s = sym_format(&fr);
		ADD("  #%-2zu 0x%llx %s\n", i, (unsigned long long)fd->stack[i], s);
		free(s);
		sym_frame_free(&fr);
	}
#undef ADD
	free(where);
	return b;
}

static void junit_finding(FILE *out, const struct ci_report *r, const struct finding *fd,
                          struct symbolizer *sym, const char *root, struct suite_count *c)
{
	const struct pw_file *f = &r->in->files[fd->file];
	struct place p;
	place_of(sym, f, fd, &p);
	bool fail = ci_fails(r, fd);
	char *at = p.line > 0 ? xasprintf(" at %s:%d", base_name(p.path), p.line) : xstrdup("");
	char *name = fd->has_call ? xasprintf("%s%s, call %llu %s", fd->rule, at,
	                                      (unsigned long long)fd->call, fd->api ? fd->api : "?")
	                          : xasprintf("%s%s, at exit", fd->rule, at);
	free(at);
	char *body = finding_body(fd, f, sym, &p, root);
	fputs("    <testcase classname=\"peerwatch.", out);
	xml_put(out, fd->rule);
	fputs("\" name=\"", out);
	xml_put(out, name);
	fputs("\"", out);
	if (p.path) {
		fputs(" file=\"", out);
		xml_put(out, shown_path(p.path, root));
		fputs("\"", out);
	}
	if (p.line > 0)
		fprintf(out, " line=\"%d\"", p.line);
	fputs(" time=\"0\">\n", out);
	if (fail) {
		fputs("      <failure type=\"", out);
		xml_put(out, fd->rule);
		fputs("\" message=\"", out);
		xml_put(out, fd->message);
		fputs("\">", out);
		xml_put_lines(out, body);
		fputs("</failure>\n", out);
		c->failures++;
	} else {
		fprintf(out, "      <system-out>below --fail-on %s: ", sev_name(r->fail_on));
		xml_put_lines(out, body);
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
	c->tests++;
	free(name);
	free(body);
	place_free(&p);
}

/* check: the trace verified against its footer, or why not. */
static void junit_trace(FILE *out, const struct ci_report *r, size_t file, struct suite_count *c)
{
	const struct pw_file *f = &r->in->files[file];
	fputs(
	    "    <testcase classname=\"peerwatch.trace\" name=\"trace verified against its footer\" file=\"",
	    out);
	xml_put(out, f->path);
	fputs("\" time=\"0\">\n", out);
	bool failed = false;
	for (size_t i = 0; i < r->problems->len; i++) {
		const struct problem *pb = vec_at(r->problems, i);
		if (pb->file != file)
			continue;
		if (ci_problem_fails(r, pb)) {
			fputs("      <error type=\"", out);
			xml_put(out, pb->kind);
			fputs("\" message=\"", out);
			xml_put(out, pb->message);
			fputs("\">", out);
			xml_put(out, pb->message);
			fputs("</error>\n", out);
			failed = true;
		} else {
			fputs("      <system-out>", out);
			xml_put(out, pb->message);
			fputs(pb->note ? "" : " (accepted: --allow-partial)", out);
			fputs("</system-out>\n", out);
		}
	}
	fputs("    </testcase>\n", out);
	c->tests++;
	c->errors += failed;
}

static void iso_time(char *buf, size_t len, int64_t real_ns)
{
	time_t t = (time_t)(real_ns / 1000000000);
	struct tm tm;
	if (real_ns <= 0 || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		buf[0] = 0;
}

void junit_write(const struct ci_report *r, const char *root, struct symbolizer *sym)
{
	FILE *out = stdout;
	size_t *order = file_order(r->in);
	struct suite_count total = {0, 0, 0};
	/* Each suite is written to memory first: its counts come before its cases. */
	struct vec suites;
	vec_init(&suites, sizeof(char *));
	size_t next = 0; /* findings are sorted by process, in this same order */
	for (size_t k = 0; k < r->in->n; k++) {
		const struct pw_file *f = &r->in->files[order[k]];
		char *buf = NULL;
		size_t blen = 0;
		FILE *m = open_memstream(&buf, &blen);
		if (!m) {
			fprintf(stderr, "peerwatch-analyze: out of memory\n");
			exit(EXIT_BAD);
		}
		struct suite_count c = {0, 0, 0};
		if (r->problems)
			junit_trace(m, r, order[k], &c);
		size_t mine = 0;
		for (; next < r->fs->list.len; next++, mine++) {
			const struct finding *fd = vec_at(&r->fs->list, next);
			if (fd->file != order[k])
				break;
			junit_finding(m, r, fd, sym, root, &c);
		}
		if (!mine) {
			fputs("    <testcase classname=\"peerwatch.findings\" name=\"no findings\" "
			      "time=\"0\"/>\n",
			      m);
			c.tests++;
		}
		fclose(m);
		char *label = proc_label(f), ts[32];
		iso_time(ts, sizeof ts, f->t0_real_ns);
		char *head = NULL;
		size_t hlen = 0;
		FILE *h = open_memstream(&head, &hlen);
		if (!h) {
			fprintf(stderr, "peerwatch-analyze: out of memory\n");
			exit(EXIT_BAD);
		}
		fputs("  <testsuite name=\"", h);
		xml_put(h, f->header_ok ? label : f->path);
		fprintf(h, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"0\"",
		        c.tests, c.failures, c.errors);
		if (f->host) {
			fputs(" hostname=\"", h);
			xml_put(h, f->host);
			fputs("\"", h);
		}
		if (ts[0])
			fprintf(h, " timestamp=\"%s\"", ts);
		fputs(">\n    <properties>\n      <property name=\"trace\" value=\"", h);
		xml_put(h, f->path);
		fputs("\"/>\n", h);
		if (f->header_ok)
			fprintf(h, "      <property name=\"pid\" value=\"%lld\"/>\n", (long long)f->pid);
		if (f->has_rank)
			fprintf(h, "      <property name=\"rank\" value=\"%lld\"/>\n", (long long)f->rank);
		fputs("    </properties>\n", h);
		fclose(h);
		char *whole = xasprintf("%s%s  </testsuite>\n", head, buf);
		*(char **)vec_push(&suites) = whole;
		free(head);
		free(buf);
		free(label);
		total.tests += c.tests;
		total.failures += c.failures;
		total.errors += c.errors;
	}
	if (r->unread) {
		const char *s =
		    "  <testsuite name=\"input\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" "
		    "time=\"0\">\n"
		    "    <testcase classname=\"peerwatch.input\" name=\"every path read\" time=\"0\">\n"
		    "      <error type=\"unread\" message=\"not every path could be read (messages on "
		    "standard error)\"/>\n"
		    "    </testcase>\n"
		    "  </testsuite>\n";
		*(char **)vec_push(&suites) = xstrdup(s);
		total.tests++;
		total.errors++;
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out,
	        "<testsuites name=\"peerwatch\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"0\">\n",
	        total.tests, total.failures, total.errors);
	for (size_t i = 0; i < suites.len; i++) {
		char *s = *(char **)vec_at(&suites, i);
		fputs(s, out);
		free(s);
	}
	fputs("</testsuites>\n", out);
	vec_free(&suites);
	free(order);
}

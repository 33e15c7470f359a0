/*
 * SARIF 2.1.0 and JUnit XML (ci.h).
 *
 * SARIF: one run whose tool is peerwatch, the rules the findings name (from
 * the rule catalog: summary, contract, runtime behaviour, advice), one
 * result per finding at the program's own frame, with the whole stack
 * symbolized; the gate's input problems are the invocation's notifications.
 * The property names are those of the OASIS SARIF 2.1.0 standard and its
 * schema (sarif-schema-2.1.0.json), which allows no others outside the
 * property bags ("properties").
 *
 * JUnit: one <testsuite> per traced process, one <testcase> per finding
 * (a <failure> when it fails: every finding for violations, a finding at or
 * above --fail-on for check), and for check one <testcase> per trace that
 * says whether it could be verified against its footer (an <error> when it
 * cannot and --allow-partial does not accept it).  A process without a
 * finding has a passing "no findings" <testcase>.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/show.h"
#include "model/catalog.h"
#include "model/findings.h"
#include "model/procs.h"
#include "model/symbols.h"
#include "out/ci.h"
#include "read/trace.h"

#ifndef PW_VERSION
#define PW_VERSION "0.0.0"
#endif

/* Frames in these modules are not the program's own: the C and C++
 * runtimes, the dynamic loader, the vendor runtimes and libraries built on
 * them that a user does not write, and peerwatch.  Matched on the start of
 * the file name. */
static const char *const not_own[] = {
    "libpeerwatch.so", "libcuda.so", "libcudart.so", "libamdhip64.so", "libascendcl.so", "libnccl.so",
    "librccl.so",      "libhccl.so", "libc.so",      "libc-",          "ld-linux",       "ld64.so",
    "libpthread.so",   "libdl.so",   "libstdc++.so", "libgcc_s.so",    "linux-vdso.so",  "libm.so",
};

static bool own_module(const char *path)
{
	const char *b = base_name(path);
	for (size_t i = 0; i < sizeof not_own / sizeof *not_own; i++)
		if (!strncmp(b, not_own[i], strlen(not_own[i])))
			return false;
	return true;
}

/* ---- paths and URIs ------------------------------------------------------ */

/* An absolute path without "." and ".." components or repeated slashes. */
static char *norm_path(const char *p)
{
	size_t n = strlen(p);
	char *out = xmalloc(n + 2);
	size_t o = 0;
	while (*p) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = 0;
	return out;
}

char *ci_source_root(const struct pw_opts *o)
{
	char *root = o->source_root ? realpath(o->source_root, NULL) : getcwd(NULL, 0);
	if (!root) {
		char *p = sanitize(o->source_root ? o->source_root : ".");
		fprintf(stderr, "peerwatch-analyze: --source-root %s: %s\n", p, strerror(errno));
		free(p);
	}
	return root;
}

/* path relative to root when it lies under it, else NULL. */
static const char *under_root(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return path[1] ? path + 1 : NULL;
	if (!strncmp(path, root, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return NULL;
}

/* Percent-encodes everything but the unreserved characters and '/'. */
static char *pct(const char *s)
{
	char *d = xmalloc(3 * strlen(s) + 1), *o = d;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			*o++ = (char)*p;
		else
			o += sprintf(o, "%%%02X", *p);
	}
	*o = 0;
	return d;
}

/* ---- where a finding is ------------------------------------------------ */

struct place {
	struct sym_frame fr; /* the frame chosen; fr.pc == 0 and no module when none */
	bool have;           /* a frame was chosen */
	size_t index;        /* its place in the stack */
	char *path;          /* its source file (absolute when known), or a module; NULL: none */
	int line;            /* > 0: path is a source file and this its line */
};

/* A frame's source file: absolute when the file or its compile unit's
 * directory is; relative (to the source root, as with
 * -fdebug-prefix-map=DIR=.) when both are relative; NULL without line
 * information or when a relative path climbs out of its directory. */
static char *frame_source(const struct sym_frame *fr)
{
	if (!fr->file)
		return NULL;
	if (fr->file[0] == '/')
		return norm_path(fr->file);
	char *j = fr->comp_dir ? xasprintf("%s/%s", fr->comp_dir, fr->file) : xasprintf("/%s", fr->file);
	char *n = norm_path(j);
	free(j);
	if (fr->comp_dir)
		return n;
	/* a relative path must not climb out of its directory */
	int depth = 0;
	for (const char *c = fr->file; *c && depth >= 0;) {
		size_t len = strcspn(c, "/");
		depth += len == 2 && !strncmp(c, "..", 2) ? -1 : len && !(len == 1 && *c == '.') ? 1 : 0;
		c += len + (c[len] == '/');
	}
	if (depth < 0) {
		free(n);
		return NULL;
	}
	memmove(n, n + 1, strlen(n));
	return n;
}

/* The program's executable, where the header's first module names it (the
 * library lists the program first), else the trace itself: absolute. */
static char *program_path(const struct pw_file *f)
{
	if (f->modules.len) {
		const struct pw_module *m = vec_at(&f->modules, 0);
		if (m->path && m->path[0] == '/')
			return norm_path(m->path);
	}
	char *abs = realpath(f->path, NULL);
	return abs ? abs : xstrdup(f->path);
}

static void place_of(struct symbolizer *sym, const struct pw_file *f, const struct finding *fd,
                     struct place *p)
{
	memset(p, 0, sizeof *p);
	int best = 0; /* 3: own frame with a source line; 2: own frame; 1: any frame */
	for (size_t i = 0; i < fd->nstack && best < 3; i++) {
		struct sym_frame fr;
		sym_lookup(sym, &f->modules, fd->stack[i], &fr);
		bool own = fr.module && own_module(fr.module);
		char *src = frame_source(&fr);
		int rank = own && src ? 3 : own ? 2 : 1;
		free(src);
		if (rank > best) {
			if (p->have)
				sym_frame_free(&p->fr);
			p->fr = fr;
			p->have = true;
			p->index = i;
			best = rank;
		} else {
			sym_frame_free(&fr);
		}
	}
	if (p->have && (p->path = frame_source(&p->fr)))
		p->line = p->fr.line;
	else if (p->have && p->fr.module)
		p->path = xstrdup(p->fr.module);
	else
		p->path = program_path(f);
}

static void place_free(struct place *p)
{
	if (p->have)
		sym_frame_free(&p->fr);
	free(p->path);
}

/* The path as a person reads it: relative to the root when under it. */
static const char *shown_path(const char *path, const char *root)
{
	const char *rel = path[0] == '/' ? under_root(path, root) : NULL;
	return rel ? rel : path;
}

/* "program[pid] on host, call 12 cuMemcpyPeer" or "..., at exit" */
static char *where_text(const struct finding *fd, const struct pw_file *f)
{
	char *label = proc_label(f), *host = sanitize(f->host ? f->host : "?"),
	     *api = sanitize(fd->api ? fd->api : "?"), *s;
	if (fd->has_call)
		s = xasprintf("%s on %s, call %llu %s", label, host, (unsigned long long)fd->call, api);
	else
		s = xasprintf("%s on %s, at exit (%s)", label, host, api);
	free(label);
	free(host);
	free(api);
	return s;
}

static bool fails(const struct ci_report *r, const struct finding *fd)
{
	return !r->gate || fd->sev >= r->fail_on;
}

/* ---- SARIF ----------------------------------------------------------------- */

static const char *sarif_level(enum sev s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

static json_t *text_msg(const char *text)
{
	json_t *m = json_object();
	json_object_set_new(m, "text", json_text(text));
	return m;
}

static json_t *artifact(const char *path, const char *root)
{
	json_t *a = json_object();
	const char *rel = path[0] != '/' ? path : under_root(path, root);
	char *enc = pct(rel ? rel : path);
	if (rel) {
		json_object_set_new(a, "uri", json_string(enc));
		json_object_set_new(a, "uriBaseId", json_string("%SRCROOT%"));
	} else {
		char *uri = xasprintf("file://%s", enc);
		json_object_set_new(a, "uri", json_string(uri));
		free(uri);
	}
	free(enc);
	return a;
}

static json_t *logical_function(const char *func)
{
	json_t *arr = json_array(), *l = json_object();
	json_object_set_new(l, "name", json_text(func));
	json_object_set_new(l, "kind", json_string("function"));
	json_array_append_new(arr, l);
	return arr;
}

static json_t *result_location(const struct place *p, const char *root)
{
	json_t *loc = json_object(), *phys = json_object();
	json_object_set_new(phys, "artifactLocation", artifact(p->path, root));
	if (p->line > 0) {
		json_t *region = json_object();
		json_object_set_new(region, "startLine", json_integer(p->line));
		json_object_set_new(phys, "region", region);
	}
	json_object_set_new(loc, "physicalLocation", phys);
	if (p->have && p->fr.func)
		json_object_set_new(loc, "logicalLocations", logical_function(p->fr.func));
	return loc;
}

static json_t *stack_frame(struct symbolizer *sym, const struct pw_file *f, uint64_t pc, const char *root)
{
	struct sym_frame fr;
	sym_lookup(sym, &f->modules, pc, &fr);
	json_t *frame = json_object(), *loc = json_object(), *phys = json_object(), *addr = json_object();
	char *text = sym_format(&fr), *src = frame_source(&fr);
	if (src) {
		json_t *region = json_object();
		json_object_set_new(phys, "artifactLocation", artifact(src, root));
		json_object_set_new(region, "startLine", json_integer(fr.line));
		json_object_set_new(phys, "region", region);
		free(src);
	}
	json_object_set_new(addr, "absoluteAddress", json_u64(pc));
	json_object_set_new(phys, "address", addr);
	json_object_set_new(loc, "physicalLocation", phys);
	if (fr.func)
		json_object_set_new(loc, "logicalLocations", logical_function(fr.func));
	json_object_set_new(loc, "message", text_msg(text));
	json_object_set_new(frame, "location", loc);
	if (fr.module)
		json_object_set_new(frame, "module", json_text(base_name(fr.module)));
	free(text);
	sym_frame_free(&fr);
	return frame;
}

static json_t *rule_descriptor(const char *id, const struct finding *first)
{
	struct rule_desc d;
	bool known = rule_describe(id, &d);
	json_t *r = json_object(), *conf = json_object(), *props = json_object(), *tags = json_array();
	json_object_set_new(r, "id", json_text(id));
	json_object_set_new(r, "shortDescription", text_msg(known && d.summary ? d.summary : id));
	if (known && (d.source || d.runtime)) {
		char *full = xasprintf("%s%s%s%s%s", d.source ? "Contract: " : "", d.source ? d.source : "",
		                       d.source && d.runtime ? " " : "", d.runtime ? "Runtime: " : "",
		                       d.runtime ? d.runtime : "");
		json_object_set_new(r, "fullDescription", text_msg(full));
		free(full);
	}
	if (known && d.advice) {
		char *help = xasprintf("Fix: %s", d.advice);
		json_object_set_new(r, "help", text_msg(help));
		free(help);
	}
	json_object_set_new(conf, "level",
	                    json_string(sarif_level(known ? sev_rank(d.severity) : first->sev)));
	json_object_set_new(r, "defaultConfiguration", conf);
	json_array_append_new(tags, json_string("peerwatch"));
	if (known && d.cuda)
		json_array_append_new(tags, json_string("cuda"));
	if (known && d.hip)
		json_array_append_new(tags, json_string("hip"));
	if (known && d.acl)
		json_array_append_new(tags, json_string("acl"));
	json_object_set_new(props, "tags", tags);
	json_object_set_new(props, "severity", json_string(known ? d.severity : first->severity));
	json_object_set_new(r, "properties", props);
	return r;
}

static json_t *sarif_result(const struct ci_report *r, const struct finding *fd, size_t rule_index,
                            struct symbolizer *sym, const char *root)
{
	const struct pw_file *f = &r->in->files[fd->file];
	json_t *res = json_object(), *locs = json_array(), *props = json_object();
	struct place p;
	place_of(sym, f, fd, &p);
	char *where = where_text(fd, f);
	char *text =
	    xasprintf("%s (%s)%s", fd->message, where, fd->derived ? " [derived from the trace]" : "");
	json_object_set_new(res, "ruleId", json_text(fd->rule));
	json_object_set_new(res, "ruleIndex", json_integer((json_int_t)rule_index));
	json_object_set_new(res, "level", json_string(sarif_level(fd->sev)));
	json_object_set_new(res, "message", text_msg(text));
	if (p.path)
		json_array_append_new(locs, result_location(&p, root));
	json_object_set_new(res, "locations", locs);
	if (fd->nstack) {
		json_t *stacks = json_array(), *stack = json_object(), *frames = json_array();
		for (size_t i = 0; i < fd->nstack; i++)
			json_array_append_new(frames, stack_frame(sym, f, fd->stack[i], root));
		json_object_set_new(stack, "message", text_msg("the call's stack"));
		json_object_set_new(stack, "frames", frames);
		json_array_append_new(stacks, stack);
		json_object_set_new(res, "stacks", stacks);
	}
	json_object_set_new(props, "severity", json_text(fd->severity));
	json_object_set_new(props, "derived", json_boolean(fd->derived));
	json_object_set_new(props, "api", fd->api ? json_text(fd->api) : json_null());
	json_object_set_new(props, "call", fd->has_call ? json_u64(fd->call) : json_null());
	json_object_set_new(props, "process", proc_json(f));
	if (p.have)
		json_object_set_new(props, "frame", json_integer((json_int_t)p.index));
	if (r->gate)
		json_object_set_new(props, "failsGate", json_boolean(fails(r, fd)));
	json_object_set_new(res, "properties", props);
	free(where);
	free(text);
	place_free(&p);
	return res;
}

/* A notification id from a problem's kind: "trace.cut-short". */
static char *problem_id(const char *kind)
{
	char *id = xasprintf("trace.%s", kind);
	for (char *c = id; *c; c++)
		if (*c == ' ')
			*c = '-';
	return id;
}

static bool problem_fails(const struct ci_report *r, const struct problem *pb)
{
	return !pb->note && !(pb->allowed && r->allow_partial);
}

static json_t *sarif_notification(const struct ci_report *r, const struct problem *pb)
{
	const char *path = r->in->files[pb->file].path;
	json_t *n = json_object(), *desc = json_object(), *locs = json_array(), *loc = json_object(),
	       *phys = json_object(), *art = json_object();
	char *id = problem_id(pb->kind), *abs = realpath(path, NULL);
	char *enc = pct(abs ? abs : path), *uri = abs || path[0] == '/' ? xasprintf("file://%s", enc) : NULL;
	const char *tail = pb->note                          ? ""
	                   : pb->allowed && r->allow_partial ? " (accepted: --allow-partial)"
	                   : pb->allowed                     ? " (--allow-partial accepts this)"
	                                                     : "";
	char *text = xasprintf("%s: %s%s", path, pb->message, tail);
	json_object_set_new(desc, "id", json_string(id));
	json_object_set_new(n, "descriptor", desc);
	json_object_set_new(n, "level",
	                    json_string(problem_fails(r, pb) ? "error"
	                                : pb->note           ? "note"
	                                                     : "warning"));
	json_object_set_new(n, "message", text_msg(text));
	json_object_set_new(art, "uri", json_string(uri ? uri : enc));
	json_object_set_new(phys, "artifactLocation", art);
	json_object_set_new(loc, "physicalLocation", phys);
	json_array_append_new(locs, loc);
	json_object_set_new(n, "locations", locs);
	free(id);
	free(abs);
	free(enc);
	free(uri);
	free(text);
	return n;
}

static void write_sarif(const struct ci_report *r, const char *root, struct symbolizer *sym)
{
	json_t *log = json_object(), *runs = json_array(), *run = json_object(), *tool = json_object(),
	       *driver = json_object(), *rules = json_array(), *results = json_array(), *inv = json_array(),
	       *invocation = json_object(), *notes = json_array(), *bases = json_object(),
	       *rootloc = json_object(), *props = json_object();
	struct hmap index; /* rule id -> its index + 1 */
	hmap_init(&index);
	for (size_t i = 0; i < r->fs->list.len; i++) {
		const struct finding *fd = vec_at(&r->fs->list, i);
		void **slot = hmap_put_str(&index, fd->rule);
		if (!*slot) {
			*slot = (void *)(uintptr_t)(json_array_size(rules) + 1);
			json_array_append_new(rules, rule_descriptor(fd->rule, fd));
		}
		size_t ri = (size_t)(uintptr_t)*slot - 1;
		json_array_append_new(results, sarif_result(r, fd, ri, sym, root));
	}
	hmap_free(&index, NULL);

	json_object_set_new(driver, "name", json_string("peerwatch"));
	json_object_set_new(driver, "fullName", json_string("peerwatch-analyze"));
	json_object_set_new(driver, "version", json_string(PW_VERSION));
	json_object_set_new(driver, "semanticVersion", json_string(PW_VERSION));
	json_object_set_new(driver, "rules", rules);
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);

	bool input_ok = true;
	for (size_t i = 0; r->problems && i < r->problems->len; i++) {
		const struct problem *pb = vec_at(r->problems, i);
		input_ok &= !problem_fails(r, pb);
		json_array_append_new(notes, sarif_notification(r, pb));
	}
	input_ok &= !r->unread;
	json_object_set_new(invocation, "executionSuccessful", json_boolean(input_ok));
	json_object_set_new(invocation, "exitCode", json_integer(r->exit_code));
	json_object_set_new(invocation, "toolExecutionNotifications", notes);
	json_array_append_new(inv, invocation);
	json_object_set_new(run, "invocations", inv);

	char *enc = pct(root), *uri = xasprintf("file://%s%s", enc, strcmp(root, "/") ? "/" : "");
	json_object_set_new(rootloc, "uri", json_string(uri));
	json_object_set_new(bases, "%SRCROOT%", rootloc);
	json_object_set_new(run, "originalUriBaseIds", bases);
	free(enc);
	free(uri);
	json_object_set_new(run, "results", results);

	json_object_set_new(props, "traces", json_integer((json_int_t)r->in->n));
	if (r->gate) {
		json_object_set_new(props, "failOn", json_string(sev_name(r->fail_on)));
		json_object_set_new(props, "passed", json_boolean(r->exit_code == EXIT_FINE));
	}
	json_object_set_new(run, "properties", props);
	json_array_append_new(runs, run);
	json_object_set_new(log, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(log, "version", json_string("2.1.0"));
	json_object_set_new(log, "runs", runs);
	json_print(log);
}

/* ---- JUnit XML ----------------------------------------------------------- */

/* Text safe in XML 1.0 content and attributes: sanitized (no control
 * characters, valid UTF-8), then the five markup characters escaped. */
static void xml_put(FILE *out, const char *s)
{
	char *safe = sanitize(s);
	for (const char *p = safe; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(*p, out);
		}
	}
	free(safe);
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
	bool known = rule_describe(fd->rule, &d);
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
	if (known && d.source)
		ADD("contract: %s\n", d.source);
	if (known && d.advice)
		ADD("fix: %s\n", d.advice);
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
	bool fail = fails(r, fd);
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
		if (problem_fails(r, pb)) {
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

static void write_junit(const struct ci_report *r, const char *root, struct symbolizer *sym)
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

int ci_write(const struct pw_opts *o, const struct ci_report *r)
{
	char *root = ci_source_root(o);
	if (!root)
		return EXIT_BAD;
	struct symbolizer *sym = sym_new();
	if (o->format == FMT_SARIF)
		write_sarif(r, root, sym);
	else
		write_junit(r, root, sym);
	sym_free(sym);
	free(root);
	return 0;
}

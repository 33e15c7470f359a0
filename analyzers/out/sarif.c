/*
 * SARIF 2.1.0 (sarif.h): one run whose tool is peerwatch, the rules the
 * findings name (from the rule catalog: summary, contract, runtime
 * behaviour, advice), one result per finding at the program's own frame
 * (place.h), with the whole stack symbolized; the gate's input problems are
 * the invocation's notifications.  The property names are those of the
 * OASIS SARIF 2.1.0 standard and its schema (sarif-schema-2.1.0.json),
 * which allows no others outside the property bags ("properties").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/util.h"
#include "model/catalog.h"
#include "model/procs.h"
#include "out/place.h"
#include "out/sarif.h"

#ifndef PW_VERSION
#define PW_VERSION "0.0.0"
#endif

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

/*
 * Where a result's files are named from.  Under the source root, relative
 * to %SRCROOT%, as code scanning expects; elsewhere (a library, a program
 * built outside the tree) by name, relative to a base of its own directory
 * (%DIR1%, %DIR2%, ... in the run's originalUriBaseIds), so that the
 * results themselves name no absolute path of the machine that ran it.
 */
struct bases {
	const char *root;
	struct vec dirs; /* char *, the directory of %DIR<i+1>% */
};

static json_t *artifact(const char *path, struct bases *b)
{
	json_t *a = json_object();
	const char *rel = path[0] != '/' ? path : under_root(path, b->root);
	if (rel) {
		char *enc = pct(rel);
		json_object_set_new(a, "uri", json_string(enc));
		json_object_set_new(a, "uriBaseId", json_string("%SRCROOT%"));
		free(enc);
		return a;
	}
	const char *name = base_name(path);
	size_t dlen = (size_t)(name - path), i = 0;
	for (; i < b->dirs.len; i++) {
		const char *d = *(char **)vec_at(&b->dirs, i);
		if (strlen(d) == dlen && !strncmp(d, path, dlen))
			break;
	}
	if (i == b->dirs.len)
		*(char **)vec_push(&b->dirs) = xstrndup(path, dlen);
	char *enc = pct(name), *base = xasprintf("%%DIR%zu%%", i + 1);
	json_object_set_new(a, "uri", json_string(enc));
	json_object_set_new(a, "uriBaseId", json_string(base));
	free(enc);
	free(base);
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

static json_t *result_location(const struct place *p, struct bases *b)
{
	json_t *loc = json_object(), *phys = json_object();
	json_object_set_new(phys, "artifactLocation", artifact(p->path, b));
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

static json_t *stack_frame(struct symbolizer *sym, const struct pw_file *f, uint64_t pc, struct bases *b)
{
	struct sym_frame fr;
	sym_lookup(sym, &f->modules, pc, &fr);
	json_t *frame = json_object(), *loc = json_object(), *phys = json_object(), *addr = json_object();
	char *text = sym_format(&fr), *src = frame_source(&fr);
	if (src) {
		json_t *region = json_object();
		json_object_set_new(phys, "artifactLocation", artifact(src, b));
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

/*
 * partialFingerprints: what code scanning matches a result by across runs
 * (SARIF 2.1.0 3.27.17), so that a finding keeps its identity (opened,
 * still there, fixed) from one run to the next.  Nothing of one run goes
 * in: no pid, no address (ASLR moves them), no absolute path of the
 * machine that ran it.  Two, FNV-1a 64-bit in hex, each over the rule:
 *   peerwatchCallSite/v1  the API and the program's place: its source file
 *                         (relative to the source root, else its name) and
 *                         line, or its module's name and function;
 *   peerwatchStack/v1     the API and every frame as module!function (the
 *                         module's name and offset where no function).
 */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static void fnv_add(uint64_t *h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		*h = (*h ^ *p) * FNV_PRIME;
	*h = (*h ^ 0x1f) * FNV_PRIME; /* a separator no name holds */
}

static json_t *fnv_hex(uint64_t h)
{
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
	return json_string(hex);
}

static uint64_t call_site_hash(const struct finding *fd, const struct place *p, const char *root)
{
	uint64_t h = FNV_OFFSET;
	fnv_add(&h, fd->rule);
	fnv_add(&h, fd->api);
	if (p->path && p->line > 0) {
		const char *rel = p->path[0] != '/' ? p->path : under_root(p->path, root);
		char line[24];
		snprintf(line, sizeof line, "%d", p->line);
		fnv_add(&h, rel ? rel : base_name(p->path));
		fnv_add(&h, line);
	} else if (p->have) {
		fnv_add(&h, p->fr.module ? base_name(p->fr.module) : NULL);
		fnv_add(&h, p->fr.func);
	} else {
		fnv_add(&h, p->path ? base_name(p->path) : NULL);
	}
	return h;
}

static uint64_t stack_hash(struct symbolizer *sym, const struct pw_file *f, const struct finding *fd)
{
	uint64_t h = FNV_OFFSET;
	fnv_add(&h, fd->rule);
	fnv_add(&h, fd->api);
	for (size_t i = 0; i < fd->nstack; i++) {
		struct sym_frame fr;
		sym_lookup(sym, &f->modules, fd->stack[i], &fr);
		fnv_add(&h, fr.module ? base_name(fr.module) : "?");
		if (fr.func) {
			fnv_add(&h, fr.func);
		} else {
			char off[24];
			snprintf(off, sizeof off, "+0x%llx",
			         (unsigned long long)(fr.module ? fr.module_off : 0));
			fnv_add(&h, off);
		}
		sym_frame_free(&fr);
	}
	return h;
}

static json_t *rule_descriptor(const char *id, const struct finding *first)
{
	struct rule_desc d;
	bool known = rule_describe(id, first->vendor, &d); /* in the words of its first finding's vendor */
	json_t *r = json_object(), *conf = json_object(), *props = json_object(), *tags = json_array();
	json_object_set_new(r, "id", json_text(id));
	json_object_set_new(r, "shortDescription", text_msg(known && d.summary ? d.summary : id));
	if (known && d.has_words) {
		char *full = xasprintf("Contract: %s: \"%s\" Runtime: %s", d.words.document, d.words.quote,
		                       d.words.runtime);
		json_object_set_new(r, "fullDescription", text_msg(full));
		free(full);
	} else if (known && d.source) {
		char *full = xasprintf("Contract: %s", d.source);
		json_object_set_new(r, "fullDescription", text_msg(full));
		free(full);
	}
	if (known && d.has_words) {
		char *help = xasprintf("Fix: %s", d.words.fix);
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
                            struct symbolizer *sym, struct bases *b)
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
		json_array_append_new(locs, result_location(&p, b));
	json_object_set_new(res, "locations", locs);
	if (fd->nstack) {
		json_t *stacks = json_array(), *stack = json_object(), *frames = json_array();
		for (size_t i = 0; i < fd->nstack; i++)
			json_array_append_new(frames, stack_frame(sym, f, fd->stack[i], b));
		json_object_set_new(stack, "message", text_msg("the call's stack"));
		json_object_set_new(stack, "frames", frames);
		json_array_append_new(stacks, stack);
		json_object_set_new(res, "stacks", stacks);
	}
	json_t *prints = json_object();
	json_object_set_new(prints, "peerwatchCallSite/v1", fnv_hex(call_site_hash(fd, &p, b->root)));
	json_object_set_new(prints, "peerwatchStack/v1", fnv_hex(stack_hash(sym, f, fd)));
	json_object_set_new(res, "partialFingerprints", prints);
	json_object_set_new(props, "severity", json_text(fd->severity));
	json_object_set_new(props, "derived", json_boolean(fd->derived));
	json_object_set_new(props, "api", fd->api ? json_text(fd->api) : json_null());
	json_object_set_new(props, "call", fd->has_call ? json_u64(fd->call) : json_null());
	json_object_set_new(props, "process", proc_json(f));
	if (p.have)
		json_object_set_new(props, "frame", json_integer((json_int_t)p.index));
	if (r->gate)
		json_object_set_new(props, "failsGate", json_boolean(ci_fails(r, fd)));
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
	                    json_string(ci_problem_fails(r, pb) ? "error"
	                                : pb->note              ? "note"
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

void sarif_write(const struct ci_report *r, const char *root, struct symbolizer *sym)
{
	json_t *log = json_object(), *runs = json_array(), *run = json_object(), *tool = json_object(),
	       *driver = json_object(), *rules = json_array(), *results = json_array(), *inv = json_array(),
	       *invocation = json_object(), *notes = json_array(), *bases = json_object(),
	       *rootloc = json_object(), *props = json_object();
	struct hmap index; /* rule id -> its index + 1 */
	struct bases b = {.root = root};
	vec_init(&b.dirs, sizeof(char *));
	hmap_init(&index);
	for (size_t i = 0; i < r->fs->list.len; i++) {
		const struct finding *fd = vec_at(&r->fs->list, i);
		void **slot = hmap_put_str(&index, fd->rule);
		if (!*slot) {
			*slot = (void *)(uintptr_t)(json_array_size(rules) + 1);
			json_array_append_new(rules, rule_descriptor(fd->rule, fd));
		}
		size_t ri = (size_t)(uintptr_t)*slot - 1;
		json_array_append_new(results, sarif_result(r, fd, ri, sym, &b));
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
		input_ok &= !ci_problem_fails(r, pb);
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
	free(enc);
	free(uri);
	for (size_t i = 0; i < b.dirs.len; i++) {
		char *d = *(char **)vec_at(&b.dirs, i), *id = xasprintf("%%DIR%zu%%", i + 1);
		json_t *loc = json_object();
		enc = pct(d);
		uri = xasprintf("file://%s", enc);
		json_object_set_new(loc, "uri", json_string(uri));
		json_object_set_new(bases, id, loc);
		free(id);
		free(enc);
		free(uri);
		free(d);
	}
	vec_free(&b.dirs);
	json_object_set_new(run, "originalUriBaseIds", bases);
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

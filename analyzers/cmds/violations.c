/*
 * violations: every finding with its rule, message, process and call, and
 * its stack symbolized offline (symbols.h) from the process's module list.
 */
#include <stdlib.h>

#include "base/opts.h"
#include "base/show.h"
#include "cmds/cmds.h"
#include "model/catalog.h"
#include "model/findings.h"
#include "model/procs.h"
#include "model/symbols.h"
#include "out/ci.h"
#include "read/files.h"
#include "read/reader.h"

static void print_stack(const struct finding *fd, const struct pw_file *f, struct symbolizer *sym)
{
	for (size_t i = 0; i < fd->nstack; i++) {
		struct sym_frame fr;
		sym_lookup(sym, &f->modules, fd->stack[i], &fr);
		char *s = sym_format(&fr), *safe = sanitize(s);
		printf("      #%-2zu 0x%llx %s\n", i, (unsigned long long)fd->stack[i], safe);
		free(s);
		free(safe);
		sym_frame_free(&fr);
	}
}

static void print_one(const struct finding *fd, const struct pw_input *in, struct symbolizer *sym)
{
	const struct pw_file *f = &in->files[fd->file];
	char *label = proc_label(f), *host = sanitize(f->host), *rule = sanitize(fd->rule),
	     *msg = sanitize(fd->message), *sev = sanitize(fd->severity),
	     *api = sanitize(fd->api ? fd->api : "(call not in the trace)");
	printf("%s%s%s  %s%s%s\n", paint(stdout, sev_paint(fd->severity)), sev, paint_end(stdout),
	       paint(stdout, PAINT_BOLD), rule, paint_end(stdout));
	printf("    %s\n", msg);
	if (fd->has_call)
		printf("    process %s on %s, call %llu %s", label, host, (unsigned long long)fd->call, api);
	else
		printf("    process %s on %s, at exit (%s)", label, host, api);
	if (fd->seq)
		printf(", event %llu", (unsigned long long)fd->seq);
	printf("%s\n", fd->derived ? " (derived from the trace by the analyzer)" : "");
	struct rule_cite w; /* in the finding's own vendor's words */
	if (an_rule_words(fd->rule, fd->vendor, &w)) {
		printf("    contract: %s: \"%s\"%s%s\n", w.document, w.quote,
		       *w.url ? "\n              " : "", w.url);
		printf("    runtime:  %s\n    fix:      %s\n", w.runtime, w.fix);
	}
	if (fd->nstack)
		print_stack(fd, f, sym);
	else
		printf("      (no stack recorded)\n");
	free(label);
	free(host);
	free(rule);
	free(msg);
	free(sev);
	free(api);
}

int cmd_violations(const struct pw_opts *o)
{
	struct findings fs;
	struct pw_input in = {0};
	findings_init(&fs);
	int st = findings_read(o, &in, &fs);
	struct symbolizer *sym = sym_new();
	int code = an_exit(st);
	if (st != PW_READ_FATAL && in.n) {
		if (o->format == FMT_SARIF || o->format == FMT_JUNIT) {
			struct ci_report r = {&in, &fs, false, SEV_UNKNOWN, false, NULL, st != PW_READ_OK,
			                      code};
			if (ci_write(o, &r))
				code = EXIT_BAD;
		} else if (o->json) {
			json_t *doc = json_object(), *arr = json_array();
			for (size_t i = 0; i < fs.list.len; i++) {
				const struct finding *fd = vec_at(&fs.list, i);
				json_t *j = finding_json(fd, &in, sym), *c = json_null();
				struct rule_cite w;
				bool known = an_rule_words(fd->rule, fd->vendor, &w);
				if (known) {
					c = json_object();
					json_object_set_new(c, "document", json_string(w.document));
					json_object_set_new(c, "quote", json_string(w.quote));
					json_object_set_new(c, "url",
					                    *w.url ? json_string(w.url) : json_null());
				}
				json_object_set_new(j, "contract", c);
				json_object_set_new(j, "runtime",
				                    known ? json_string(w.runtime) : json_null());
				json_object_set_new(j, "fix", known ? json_string(w.fix) : json_null());
				json_array_append_new(arr, j);
			}
			json_object_set_new(doc, "findings", arr);
			json_print(doc);
		} else {
			printf("%zu finding%s\n", fs.list.len, fs.list.len == 1 ? "" : "s");
			for (size_t i = 0; i < fs.list.len; i++) {
				printf("\n");
				print_one(vec_at(&fs.list, i), &in, sym);
			}
		}
	}
	sym_free(sym);
	findings_free(&fs);
	pw_input_free(&in);
	return code;
}

/*
 * check: the CI gate.  One line per finding, then the verdict.
 *
 * A gate that reads damaged input and finds nothing must not pass: the
 * findings it did not read are the ones it would have failed on.  So every
 * trace is first checked against what it says about itself (its footer;
 * docs/trace-format.md, Footer): the footer is there (the process finished
 * its trace), it counts exactly the event and violation lines the file has,
 * no line is unreadable, and no event was dropped.  A trace that fails this
 * fails the gate with its own exit status (3), naming the file and what
 * disagrees; --allow-partial accepts traces that are only incomplete (left
 * .partial, cut short, events dropped) and checks what they hold.  Counts
 * that disagree and unreadable lines or files are damage, never accepted.
 *
 * The call events other threads were recording when the process ended
 * ("dropped_by": in_flight_at_exit) are not a loss to the gate: their calls
 * were checked before they ran, and their findings are violation events
 * written then.  Whether a thread is in that instant is chance, and a gate
 * that failed on it would not say the same thing twice; info shows them.
 *
 * A footer whose "limit" says the trace size limit stopped recording is not
 * incomplete for the gate: the library never drops a finding for the limit
 * (its violation events are all there), only calls; the findings derived
 * from calls may then miss some, and a note says so.
 */
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "cmds/cmds.h"
#include "model/findings.h"
#include "model/gate.h"
#include "model/procs.h"
#include "out/ci.h"
#include "read/files.h"
#include "read/reader.h"

static void print_problem(const struct problem *p, const struct pw_input *in, bool allow_partial)
{
	char *path = sanitize(in->files[p->file].path), *msg = sanitize(p->message);
	const char *tail = p->note                       ? ""
	                   : p->allowed && allow_partial ? " (accepted: --allow-partial)"
	                   : p->allowed                  ? " (--allow-partial accepts this)"
	                                                 : "";
	fprintf(stderr, "peerwatch-analyze: check: %s: %s%s\n", path, msg, tail);
	free(path);
	free(msg);
}

static void print_line(const struct finding *fd, const struct pw_input *in)
{
	const struct pw_file *f = &in->files[fd->file];
	char *label = proc_label(f), *host = sanitize(f->host), *rule = sanitize(fd->rule),
	     *msg = sanitize(fd->message), *sev = sanitize(fd->severity);
	char *api = sanitize(fd->api ? fd->api : "?");
	printf("%s%s%s: %s%s%s: %s %s ", paint(stdout, sev_paint(fd->severity)), sev, paint_end(stdout),
	       paint(stdout, PAINT_BOLD), rule, paint_end(stdout), host, label);
	if (fd->has_call)
		printf("call %llu %s: %s%s\n", (unsigned long long)fd->call, api, msg,
		       fd->derived ? " [derived from the trace]" : "");
	else
		printf("at exit: %s\n", msg);
	free(label);
	free(host);
	free(rule);
	free(msg);
	free(sev);
	free(api);
}

static json_t *problem_json(const struct problem *p, const struct pw_input *in)
{
	json_t *j = json_object();
	json_object_set_new(j, "file", json_text(in->files[p->file].path));
	json_object_set_new(j, "problem", json_string(p->kind));
	json_object_set_new(j, "message", json_text(p->message));
	json_object_set_new(j, "fails", json_boolean(!p->note && !p->allowed));
	json_object_set_new(j, "allowed", json_boolean(p->allowed));
	return j;
}

int cmd_check(const struct pw_opts *o)
{
	struct findings fs;
	struct pw_input in = {0};
	struct vec ps;
	findings_init(&fs);
	vec_init(&ps, sizeof(struct problem));
	int st = findings_read(o, &in, &fs);
	if (!in.n) { /* nothing to check: said on stderr already */
		findings_free(&fs);
		pw_input_free(&in);
		vec_free(&ps);
		return EXIT_BAD;
	}
	size_t failing = 0, bad_input = 0;
	for (size_t i = 0; i < fs.list.len; i++)
		failing += ((struct finding *)vec_at(&fs.list, i))->sev >= o->fail_on;
	gate_problems(&in, &ps);
	for (size_t i = 0; i < ps.len; i++) {
		const struct problem *p = vec_at(&ps, i);
		bad_input += !p->note && !(p->allowed && o->allow_partial);
		print_problem(p, &in, o->allow_partial);
	}
	/* a path that is missing, or a read stopped by --strict: not all input was read */
	bool unread = st != PW_READ_OK && !bad_input;
	bad_input += unread;
	bool passed = !failing && !bad_input;
	int code = failing ? EXIT_FINDINGS : bad_input ? EXIT_INPUT : EXIT_FINE;
	if (o->format == FMT_SARIF || o->format == FMT_JUNIT) {
		struct ci_report r = {&in, &fs, true, o->fail_on, o->allow_partial, &ps, unread, code};
		if (ci_write(o, &r))
			code = EXIT_BAD;
	} else if (o->json) {
		json_t *doc = json_object(), *arr = json_array(), *probs = json_array();
		for (size_t i = 0; i < fs.list.len; i++)
			json_array_append_new(arr, finding_json(vec_at(&fs.list, i), &in, NULL));
		for (size_t i = 0; i < ps.len; i++)
			json_array_append_new(probs, problem_json(vec_at(&ps, i), &in));
		json_object_set_new(doc, "fail_on", json_string(sev_name(o->fail_on)));
		json_object_set_new(doc, "passed", json_boolean(passed));
		json_object_set_new(doc, "input_ok", json_boolean(!bad_input));
		json_object_set_new(doc, "failing", json_integer((json_int_t)failing));
		json_object_set_new(doc, "traces", json_integer((json_int_t)in.n));
		json_object_set_new(doc, "input_problems", probs);
		json_object_set_new(doc, "findings", arr);
		json_print(doc);
	} else {
		for (size_t i = 0; i < fs.list.len; i++)
			print_line(vec_at(&fs.list, i), &in);
		printf("check: %s%s%s: %zu finding%s at or above %s, %zu below, in %zu trace%s",
		       paint(stdout, passed ? PAINT_PASS : PAINT_ERROR), passed ? "pass" : "FAIL",
		       paint_end(stdout), failing, failing == 1 ? "" : "s", sev_name(o->fail_on),
		       fs.list.len - failing, in.n, in.n == 1 ? "" : "s");
		if (bad_input)
			printf("; input not verified: %zu problem%s (on stderr)", bad_input,
			       bad_input == 1 ? "" : "s");
		printf("\n");
	}
	gate_problems_free(&ps);
	findings_free(&fs);
	pw_input_free(&in);
	return code;
}

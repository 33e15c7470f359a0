/*
 * check: the CI gate.  Exit 0 when no finding is at or above --fail-on
 * (default error), 1 otherwise, 2 when the input could not be read; one
 * line per finding, then the verdict.
 */
#include <stdlib.h>

#include "findings.h"

static void print_line(const struct finding *fd, const struct pw_input *in)
{
	const struct pw_file *f = &in->files[fd->file];
	char *label = proc_label(f), *host = sanitize(f->host), *rule = sanitize(fd->rule),
	     *msg = sanitize(fd->message), *sev = sanitize(fd->severity);
	char *api = sanitize(fd->api ? fd->api : "?");
	printf("%s: %s: %s %s call %llu %s: %s%s\n", sev, rule, host, label, (unsigned long long)fd->call,
	       api, msg, fd->derived ? " [derived from the trace]" : "");
	free(label);
	free(host);
	free(rule);
	free(msg);
	free(sev);
	free(api);
}

int cmd_check(const struct pw_opts *o)
{
	struct findings fs;
	struct pw_input in = {0};
	findings_init(&fs);
	int st = findings_read(o, &in, &fs);
	size_t failing = 0;
	for (size_t i = 0; i < fs.list.len; i++)
		failing += ((struct finding *)vec_at(&fs.list, i))->sev >= o->fail_on;
	bool show = st != PW_READ_FATAL && in.n;
	if (show && o->json) {
		json_t *doc = json_object(), *arr = json_array();
		for (size_t i = 0; i < fs.list.len; i++)
			json_array_append_new(arr, finding_json(vec_at(&fs.list, i), &in, NULL));
		json_object_set_new(doc, "fail_on", json_string(sev_name(o->fail_on)));
		json_object_set_new(doc, "passed", json_boolean(!failing && st == PW_READ_OK));
		json_object_set_new(doc, "input_ok", json_boolean(st == PW_READ_OK));
		json_object_set_new(doc, "failing", json_integer((json_int_t)failing));
		json_object_set_new(doc, "findings", arr);
		json_print(doc);
	} else if (show) {
		for (size_t i = 0; i < fs.list.len; i++)
			print_line(vec_at(&fs.list, i), &in);
		printf("check: %s: %zu finding%s at or above %s, %zu below, in %zu trace%s%s\n",
		       failing ? "FAIL" : "pass", failing, failing == 1 ? "" : "s", sev_name(o->fail_on),
		       fs.list.len - failing, in.n, in.n == 1 ? "" : "s",
		       st == PW_READ_OK ? "" : " (some input could not be read)");
	}
	findings_free(&fs);
	pw_input_free(&in);
	if (st != PW_READ_OK)
		return EXIT_BAD;
	return failing ? EXIT_FINDINGS : EXIT_FINE;
}

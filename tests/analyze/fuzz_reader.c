/*
 * libFuzzer target for the trace reader's line validation (read/parse.c):
 * every input is one line as the reader hands it to pw_parse_line, and, if
 * it is a header or footer, to pw_file_header / pw_file_footer; every
 * argument accessor a report may call is then called on the event.  An
 * input with several lines is also read as a whole trace file (a memfd)
 * through pw_input_read, with a pre-phase: line splitting, the header
 * rules, .partial tails; and by check's IPC sink (model/ipcsink.c), which
 * reads every pre-phase first (a staged read), decides opens as they end
 * and derives its findings.  Any crash, leak or sanitizer report is a bug:
 * traces are untrusted input.  A line the fast path takes (a call of the
 * plain shape, parse.c) is parsed again by the full parse, which must take
 * it too and give the same event: every member, the stack and the args.
 *
 *   make analyze-fuzz FUZZ_SECONDS=60
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/ipclife.h"
#include "read/files.h"
#include "read/json.h"
#include "read/lines.h"
#include "read/parse.h"
#include "read/reader.h"

static void use_event(const struct pw_event *ev)
{
	static const char *const keys[] = {
	    "ptr",          "dst",      "src",         "bytes",       "handle",   "src_dev", "dst_dev",
	    "peer_ctx_dev", "location", "flags_names", "advice_name", "peer_dev", "device",  "dev",
	    "count",        "file_id",  "export_data", "pool",        "copies",   "ranges",  "access"};
	char h[129];
	uint64_t u;
	int64_t i;
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		pw_arg_u64(ev, keys[k], &u);
		pw_arg_i64(ev, keys[k], &i);
		pw_arg_hex(ev, keys[k], &u);
		pw_arg_dev(ev, keys[k]);
		pw_arg_str(ev, keys[k]);
		pw_arg_handle(ev, keys[k], h);
	}
	for (size_t k = 0; k < ev->nstack; k++)
		u ^= ev->stack[k];
	/* what reader.h promises each type has */
	if (ev->type == PW_EV_CALL)
		u ^= strlen(ev->api) + strlen(ev->vendor) + strlen(ev->variant) + strlen(ev->family) +
		     (ev->layer ? strlen(ev->layer) : 0) + ev->implicit + ev->parent_recorded;
	if (ev->type == PW_EV_UM)
		u ^= strlen(pw_um_kind_name(ev->um.kind)) + strlen(pw_um_cause_name(ev->um.cause)) +
		     strlen(pw_um_access_name(ev->um.access)) + ev->um.addr + ev->um.procs +
		     (uint64_t)(ev->um.end_ns - ev->t_ns);
	if (ev->type == PW_EV_VIOLATION)
		u ^= strlen(ev->rule) + strlen(ev->severity) + strlen(ev->message) +
		     (ev->api ? strlen(ev->api) : 0);
	(void)u;
}

/* ---- the whole-file path ---- */

static void *f_new(void *report)
{
	return report;
}
static void f_merge(void *report, void *partial)
{
	(void)report;
	(void)partial;
}
static const char *const f_keys[] = {"call", NULL};
static void f_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)fctx;
	(void)f;
	use_event(ev);
}
/* with nesting: the raw scan for call seqs and parent_recorded run too,
 * in the pre-phase's own pass (as the commands have it) and in a pass of
 * its own (pre_nesting), by the input's first byte */
static const struct pw_sink_ops file_ops = {.partial_new = f_new,
                                            .partial_merge = f_merge,
                                            .pre_keys = f_keys,
                                            .pre_event = f_event,
                                            .event = f_event,
                                            .nesting = true};
static const struct pw_sink_ops file_ops_pre_nesting = {.partial_new = f_new,
                                                        .partial_merge = f_merge,
                                                        .pre_keys = f_keys,
                                                        .pre_event = f_event,
                                                        .event = f_event,
                                                        .nesting = true,
                                                        .pre_nesting = true};

static void as_file(const uint8_t *data, size_t size)
{
	int fd = memfd_create("trace.pw.jsonl.partial", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	char *paths[] = {path};
	struct pw_input in = {0};
	if (pw_input_find(&in, paths, 1) == PW_READ_OK) {
		struct ipc_report r;
		ipc_init(&r);
		ipc_report_findings_only(&r);
		struct pw_sink sinks[] = {{size && data[0] & 1 ? &file_ops_pre_nesting : &file_ops, NULL},
		                          {&ipc_findings_ops, &r}};
		struct pw_read_opts o = {.jobs = 1, .quiet = true};
		pw_input_read(&in, &o, sinks, size && data[0] & 2 ? 2 : 1);
		ipc_derive(&r, &in);
		ipc_free(&r);
	}
	pw_input_free(&in);
	close(fd);
}

/* ---- the fast path against the full parse ---- */

struct seen {
	char *text; /* the event's members and args, as one string */
	uint64_t *stack;
	size_t nstack;
};

static char *describe(const struct pw_event *ev)
{
	char *args = json_dumps(pw_ev_args(ev), JSON_COMPACT | JSON_SORT_KEYS), *out = NULL;
	if (asprintf(&out, "%llu %lld %s %s %s %s %s %lld %lld %lld %s %d %llu %d %d %s %lld %d %s",
	             (unsigned long long)ev->seq, (long long)ev->tid, ev->vendor, ev->api, ev->variant,
	             ev->family, ev->op ? ev->op : "-", (long long)ev->t_ns, (long long)ev->dur_ns,
	             (long long)ev->ret, ev->ret_name ? ev->ret_name : "-", ev->has_parent,
	             (unsigned long long)ev->parent, ev->parent_time, ev->implicit,
	             ev->layer ? ev->layer : "-", (long long)ev->cur_dev, (int)ev->type,
	             args ? args : "-") < 0)
		abort();
	free(args);
	const char *rule;
	for (size_t i = 0; pw_ev_suppressed(ev, i, &rule); i++) {
		char *more = NULL;
		if (asprintf(&more, "%s %s", out, rule ? rule : "(not a string)") < 0)
			abort();
		free(out);
		out = more;
	}
	return out;
}

static void same_as_full(const uint8_t *data, size_t size, const struct pw_event *fast)
{
	struct seen a = {describe(fast), NULL, fast->nstack};
	a.stack = malloc((fast->nstack + 1) * sizeof *a.stack);
	if (!a.stack)
		abort();
	if (fast->nstack)
		memcpy(a.stack, fast->stack, fast->nstack * sizeof *a.stack);
	struct pw_event ev;
	struct vec stack;
	json_t *root;
	char err[512];
	vec_init(&stack, sizeof(uint64_t));
	pw_parse_fast = false;
	enum pw_line_kind k = pw_parse_line((const char *)data, size, &ev, &stack, &root, err, sizeof err);
	pw_parse_fast = true;
	if (k != PW_LINE_EVENT) {
		fprintf(stderr, "the fast path took a line the full parse refuses: %s\n", err);
		abort();
	}
	char *b = describe(&ev);
	if (strcmp(a.text, b) || a.nstack != ev.nstack ||
	    (a.nstack && memcmp(a.stack, ev.stack, a.nstack * sizeof *a.stack))) {
		fprintf(stderr, "the fast path and the full parse differ:\n  %s\n  %s\n", a.text, b);
		abort();
	}
	free(b);
	free(a.text);
	free(a.stack);
	json_decref(root);
	vec_free(&stack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int seeded;
	if (!seeded) {
		pw_reader_init(); /* the arena is off under ASan: frees stay real */
		seeded = 1;
	}
	if (size > PW_MAX_LINE)
		return 0;
	struct pw_event ev;
	struct vec stack;
	json_t *root;
	char err[512];
	vec_init(&stack, sizeof(uint64_t));
	enum pw_line_kind k = pw_parse_line((const char *)data, size, &ev, &stack, &root, err, sizeof err);
	if (k == PW_LINE_EVENT)
		use_event(&ev);
	if (k == PW_LINE_EVENT && pw_parse_was_fast())
		same_as_full(data, size, &ev);
	if (k == PW_LINE_HEADER || k == PW_LINE_FOOTER) {
		struct pw_file f;
		memset(&f, 0, sizeof f);
		vec_init(&f.modules, sizeof(struct pw_module));
		if (k == PW_LINE_HEADER)
			pw_file_header(&f, root, err, sizeof err);
		else
			pw_file_footer(&f, root, err, sizeof err);
		(void)pw_file_program(&f);
		pw_file_clear(&f);
		vec_free(&f.modules);
	}
	json_decref(root);
	vec_free(&stack);
	if (memchr(data, '\n', size))
		as_file(data, size);
	return 0;
}

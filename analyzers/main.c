/*
 * peerwatch-analyze COMMAND [options] PATH...
 *
 * Dispatch, the options every command shares, usage, exit codes.  Each
 * command lives in its own file (cmds/summary.c, cmds/check.c, ...).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/show.h"
#include "cmds/cmds.h"
#include "read/json.h"
#include "read/parse.h"
#include "read/reader.h"
#include "read/scan.h"

#ifndef PW_VERSION
#define PW_VERSION "0.0.0"
#endif

/* Options beyond the common ones that a command accepts. */
enum {
	OPT_FAIL_ON = 1,
	OPT_OUTPUT = 2,
	OPT_DERIVED = 4,
	OPT_PARTIAL = 8,
	OPT_CI = 16,
	OPT_SUPPRESSIONS = 32,
	OPT_EFFECTS = 64
};

struct command {
	const char *name;
	int (*run)(const struct pw_opts *o);
	bool needs_paths;
	unsigned extra;
	const char *what;
};

static const struct command commands[] = {
    {"summary", cmd_summary, true, 0, "per API: calls, errors, host time; per process; violations per rule"},
    {"check", cmd_check, true, OPT_FAIL_ON | OPT_DERIVED | OPT_PARTIAL | OPT_CI,
     "the CI gate: exit 1 on a finding at or above --fail-on, 3 on damaged input"},
    {"violations", cmd_violations, true, OPT_DERIVED | OPT_CI,
     "every finding with its process, call and stack"},
    {"matrix", cmd_matrix, true, 0, "device x device: bytes, copies, GB/s, peer access, copies without it"},
    {"ipc", cmd_ipc, true, 0, "IPC handles across processes: export, opens, closes, free; findings"},
    {"managed", cmd_managed, true, OPT_EFFECTS,
     "managed allocations, advice per range, prefetch per destination; --effects: their faults"},
    {"timeline", cmd_timeline, true, OPT_OUTPUT, "Chrome trace event JSON (Perfetto) into -o FILE"},
    {"rules", cmd_rules, false, OPT_SUPPRESSIONS,
     "the rule catalog; --suppressions: the default suppressions"},
    {"info", cmd_info, true, 0, "per trace file: process, host, argv, options, driver, events, end"},
    {"ops", cmd_ops, true, 0, "per op (peer copy, IPC open, ...): calls, failed, findings, host time"},
    {"report", cmd_report, true, OPT_OUTPUT | OPT_FAIL_ON | OPT_DERIVED | OPT_PARTIAL,
     "one self-contained HTML page of the run: findings, devices, copies, IPC, ... (-o FILE)"},
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: peerwatch-analyze COMMAND [options] PATH...\n\n"
	        "Reads the traces peerwatch writes of a program's CUDA (driver and runtime),\n"
	        "HIP and Ascend ACL peer-access, IPC, peer-copy and managed-memory calls.\n"
	        "PATH: trace files (*.pw.jsonl, *.pw.jsonl.partial) or directories, searched recursively.\n\n"
	        "commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].what);
	fprintf(out, "\noptions:\n"
	             "  --json              print one JSON document (docs/analyze-json.md)\n"
	             "  --format FORMAT     text (default) or json; check and violations also\n"
	             "                      sarif (SARIF 2.1.0, for code scanning) or junit (JUnit XML)\n"
	             "  --source-root DIR   sarif, junit: source paths under DIR are written relative\n"
	             "                      to it (default: the working directory)\n"
	             "  --color[=WHEN]      auto (default: on a terminal, unless NO_COLOR is set),\n"
	             "                      always or never\n"
	             "  -j, --jobs N        read with N workers (default: one per CPU): files in\n"
	             "                      parallel, a large one shared; the result does not\n"
	             "                      depend on N\n"
	             "  --strict            a bad line is fatal (exit 2; check: 3) instead of skipped\n"
	             "  --no-progress       no progress on stderr, even on a terminal\n"
	             "  --fail-on LEVEL     check, report: error (default), warning or performance\n"
	             "  --allow-partial     check, report: accept traces that are only incomplete (left\n"
	             "                      .partial, cut short, events dropped) and check what they hold\n"
	             "  --no-derived        check, violations, report: only the preload's violation events,\n"
	             "                      not the findings derived from the calls and um events\n"
	             "  -o, --output FILE   timeline: where to write the Chrome trace JSON;\n"
	             "                      report: the HTML page (default: standard output);\n"
	             "                      - is standard output\n"
	             "  --effects           managed: per advice and prefetch, the faults and migrations\n"
	             "                      that followed it (um events, um_counters=1) and the findings\n"
	             "  --suppressions      rules: the default suppressions (findings inside\n"
	             "                      third-party libraries the library leaves out), and why\n"
	             "  -h, --help          this text\n"
	             "  -V, --version       the version\n\n"
	             "exit status:\n"
	             "  check    0 no finding at or above --fail-on, and every trace verified\n"
	             "           against its footer; 1 a finding at or above --fail-on; 2 usage\n"
	             "           error, or no trace found; 3 a trace unreadable, damaged (counts\n"
	             "           that differ from its footer, bad lines) or incomplete (.partial,\n"
	             "           cut short, events dropped; --allow-partial accepts these), or a\n"
	             "           path missing; the same in every format (calls in flight at\n"
	             "           exit are no loss: they were checked before they ran)\n"
	             "  others   0 done (bad lines skipped); 2 usage error, no trace found, a path\n"
	             "           or trace that could not be read, a bad line under --strict, or\n"
	             "           (timeline) the file could not be written\n"
	             "See peerwatch-analyze(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "peerwatch-analyze: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'peerwatch-analyze --help'.\n");
	return EXIT_BAD;
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static bool parse_jobs(const char *s, int *out)
{
	char *end;
	long n = strtol(s, &end, 10);
	if (*end || end == s || n < 1 || n > 1024)
		return false;
	*out = (int)n;
	return true;
}

enum {
	O_JSON = 256,
	O_STRICT,
	O_NO_PROGRESS,
	O_FAIL_ON,
	O_NO_DERIVED,
	O_ALLOW_PARTIAL,
	O_FORMAT,
	O_COLOR,
	O_SOURCE_ROOT,
	O_SUPPRESSIONS,
	O_EFFECTS
};

static const struct option long_opts[] = {
    {"json", no_argument, NULL, O_JSON},
    {"jobs", required_argument, NULL, 'j'},
    {"strict", no_argument, NULL, O_STRICT},
    {"no-progress", no_argument, NULL, O_NO_PROGRESS},
    {"fail-on", required_argument, NULL, O_FAIL_ON},
    {"no-derived", no_argument, NULL, O_NO_DERIVED},
    {"allow-partial", no_argument, NULL, O_ALLOW_PARTIAL},
    {"format", required_argument, NULL, O_FORMAT},
    {"color", optional_argument, NULL, O_COLOR},
    {"colour", optional_argument, NULL, O_COLOR},
    {"source-root", required_argument, NULL, O_SOURCE_ROOT},
    {"suppressions", no_argument, NULL, O_SUPPRESSIONS},
    {"effects", no_argument, NULL, O_EFFECTS},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char *const format_names[] = {"text", "json", "sarif", "junit"};

/* --format NAME: -1 when unknown. */
static int parse_format(const char *s)
{
	for (int i = 0; i < (int)(sizeof format_names / sizeof *format_names); i++)
		if (!strcmp(s, format_names[i]))
			return i;
	return -1;
}

/* --color[=WHEN]: no WHEN is always, as in GNU ls; -1 when unknown. */
static int parse_color(const char *s)
{
	if (!s || !strcmp(s, "always") || !strcmp(s, "yes") || !strcmp(s, "force"))
		return COLOR_ALWAYS;
	if (!strcmp(s, "auto") || !strcmp(s, "tty") || !strcmp(s, "if-tty"))
		return COLOR_AUTO;
	if (!strcmp(s, "never") || !strcmp(s, "no") || !strcmp(s, "none"))
		return COLOR_NEVER;
	return -1;
}

/* Returns -1 when parsing succeeded, else the exit code. */
static int parse_opts(int argc, char **argv, const struct command *c, struct pw_opts *o)
{
	bool no_progress = false, json = false, format_given = false;
	struct stat st;
	int ch, color = COLOR_AUTO;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:o:hV", long_opts, NULL)) != -1) {
		switch (ch) {
		case O_JSON: json = true; break;
		case O_FORMAT: {
			int f = parse_format(optarg);
			if (f < 0)
				return usage_error("--format takes text, json, sarif or junit, not '%s'",
				                   optarg);
			if ((f == FMT_SARIF || f == FMT_JUNIT) && !(c->extra & OPT_CI))
				return usage_error(
				    "--format sarif and junit are formats of check and violations, "
				    "not of %s",
				    c->name);
			o->format = (enum pw_format)f;
			format_given = true;
			break;
		}
		case O_COLOR:
			color = parse_color(optarg);
			if (color < 0)
				return usage_error("--color takes auto, always or never, not '%s'", optarg);
			break;
		case O_SOURCE_ROOT:
			if (!(c->extra & OPT_CI))
				return usage_error(
				    "--source-root is an option of check and violations, not of %s", c->name);
			if (stat(optarg, &st) || !S_ISDIR(st.st_mode))
				return usage_error("--source-root needs a directory, and '%s' is not one",
				                   optarg);
			o->source_root = optarg;
			break;
		case O_STRICT: o->strict = true; break;
		case O_NO_PROGRESS: no_progress = true; break;
		case 'j':
			if (!parse_jobs(optarg, &o->jobs))
				return usage_error("-j needs a number of jobs from 1 to 1024, not '%s'",
				                   optarg);
			break;
		case O_FAIL_ON:
			if (!(c->extra & OPT_FAIL_ON))
				return usage_error("--fail-on is an option of check and report, not of %s",
				                   c->name);
			o->fail_on = sev_rank(optarg);
			if (o->fail_on == SEV_UNKNOWN)
				return usage_error("--fail-on takes error, warning or performance, not '%s'",
				                   optarg);
			break;
		case O_NO_DERIVED:
			if (!(c->extra & OPT_DERIVED))
				return usage_error(
				    "--no-derived is an option of check, violations and report, not of %s",
				    c->name);
			o->derived = false;
			break;
		case O_ALLOW_PARTIAL:
			if (!(c->extra & OPT_PARTIAL))
				return usage_error(
				    "--allow-partial is an option of check and report, not of %s", c->name);
			o->allow_partial = true;
			break;
		case O_EFFECTS:
			if (!(c->extra & OPT_EFFECTS))
				return usage_error("--effects is an option of managed, not of %s", c->name);
			o->effects = true;
			break;
		case O_SUPPRESSIONS:
			if (!(c->extra & OPT_SUPPRESSIONS))
				return usage_error("--suppressions is an option of rules, not of %s",
				                   c->name);
			o->suppressions = true;
			break;
		case 'o':
			if (!(c->extra & OPT_OUTPUT))
				return usage_error("-o is an option of timeline and report, not of %s",
				                   c->name);
			o->output = optarg;
			break;
		case 'h': usage(stdout); return EXIT_FINE;
		case 'V': printf("peerwatch-analyze %s\n", PW_VERSION); return EXIT_FINE;
		default: return usage_error("%s", "bad option");
		}
	}
	if (json && format_given && o->format != FMT_JSON)
		return usage_error("--json and --format %s ask for two formats", format_names[o->format]);
	if (json)
		o->format = FMT_JSON;
	o->json = o->format == FMT_JSON;
	color_init((enum color_when)color);
	o->paths = argv + optind;
	o->npaths = argc - optind;
	o->progress = o->format == FMT_TEXT && !no_progress && isatty(STDERR_FILENO);
	if (c->needs_paths && o->npaths == 0)
		return usage_error("%s needs a trace file or directory", c->name);
	if (!c->needs_paths && o->npaths)
		return usage_error("%s takes no path", c->name);
	if (c->run == cmd_timeline && !o->output) /* report writes to stdout without -o */
		return usage_error("%s needs -o FILE (-o - for standard output)", c->name);
	if (c->run == cmd_timeline && o->json && o->output && !strcmp(o->output, "-"))
		return usage_error("%s -o - writes the timeline on standard output, where --json would "
		                   "write its summary: name a file",
		                   c->name);
	return -1;
}

/* Options may come before the paths or mixed with them: move the command
 * word out, then let getopt permute the rest. */
int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr), EXIT_BAD;
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout), EXIT_FINE;
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return printf("peerwatch-analyze %s\n", PW_VERSION), EXIT_FINE;
	const struct command *c = find_command(argv[1]);
	if (!c)
		return usage_error("unknown command '%s'", argv[1]);
	struct pw_opts o = {.command = c->name, .derived = true, .fail_on = SEV_ERROR};
	argv[1] = argv[0];
	int r = parse_opts(argc - 1, argv + 1, c, &o);
	if (r >= 0)
		return r;
	pw_reader_init(); /* before any thread */
	const char *parse = getenv("PEERWATCH_ANALYZE_PARSE");
	if (parse && !strcmp(parse, "full"))
		pw_parse_fast = false;
	if (parse && !strcmp(parse, "scan"))
		pw_scan_shapes = false;
	if (parse && !strcmp(parse, "keys"))
		pw_pre_by_op = false;
	return c->run(&o);
}

/*
 * peerwatch-analyze: what the command files share — the common options,
 * reading the input, exit codes, severities, how a process is named, and
 * printing the one JSON document a --json run writes.
 */
#ifndef PW_AN_ANALYZE_H
#define PW_AN_ANALYZE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"

/* Exit codes: 0 fine, 1 findings (check), 2 usage or unreadable input
 * (check: usage, or no trace found), 3 check only: a trace is unreadable,
 * damaged or incomplete, so the verdict cannot stand. */
enum { EXIT_FINE = 0, EXIT_FINDINGS = 1, EXIT_BAD = 2, EXIT_INPUT = 3 };

/* Severities, lowest first; a finding "at or above" --fail-on counts. */
enum sev { SEV_UNKNOWN = 0, SEV_PERFORMANCE = 1, SEV_WARNING = 2, SEV_ERROR = 3 };

/* --format: what a command writes on standard output. */
enum pw_format { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_JUNIT };

struct pw_opts {
	const char *command;
	enum pw_format format;   /* --format, --json */
	bool json;               /* --json, or --format json */
	bool strict;             /* --strict */
	bool progress;           /* stderr is a terminal, no --json, no --no-progress */
	bool derived;            /* check, violations: include findings derived offline (ipc) */
	int jobs;                /* -j N; 0: one per CPU */
	const char *output;      /* timeline -o FILE */
	enum sev fail_on;        /* check --fail-on */
	bool allow_partial;      /* check --allow-partial */
	bool suppressions;       /* rules --suppressions */
	const char *source_root; /* --source-root (sarif, junit); NULL: the working directory */
	char *const *paths;
	int npaths;
};

/* The commands, one file each. */
int cmd_summary(const struct pw_opts *o);
int cmd_check(const struct pw_opts *o);
int cmd_violations(const struct pw_opts *o);
int cmd_matrix(const struct pw_opts *o);
int cmd_ipc(const struct pw_opts *o);
int cmd_managed(const struct pw_opts *o);
int cmd_timeline(const struct pw_opts *o);
int cmd_rules(const struct pw_opts *o);
int cmd_info(const struct pw_opts *o);
int cmd_ops(const struct pw_opts *o);

/* Finds and reads the input once with these sinks; PW_READ_* (reader.h). */
int an_read(const struct pw_opts *o, struct pw_input *in, struct pw_sink *sinks, size_t nsinks);
/* The exit code for a read's result when the report found nothing to fail. */
int an_exit(int read_status);

enum sev sev_rank(const char *name);
const char *sev_name(enum sev s);

/* Colour on a terminal (--color, NO_COLOR): decided once, per stream. */
enum color_when { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
/* auto: a stream has colour when it is a terminal, NO_COLOR is unset or
 * empty and TERM is not "dumb"; always and never: whatever the stream. */
void color_init(enum color_when when);
enum paint { PAINT_ERROR, PAINT_WARNING, PAINT_NOTE, PAINT_PASS, PAINT_BOLD, PAINT_DIM };
/* The escape sequence that starts `p` on f (stdout or stderr), and the one
 * that ends it: both "" when f has no colour. */
const char *paint(FILE *f, enum paint p);
const char *paint_end(FILE *f);
/* The paint of a severity name: error, warning, anything else a note. */
enum paint sev_paint(const char *severity);

/* The order processes are shown in: by host, start time (t0_mono_ns), pid,
 * path; rank[i] is file i's place.  free() the result. */
size_t *file_ranks(const struct pw_input *in);
/* The same order as a list: order[k] is the k-th file shown. */
size_t *file_order(const struct pw_input *in);

/* How a process is shown in text: "calls[18003]", safe to print; free() it. */
char *proc_label(const struct pw_file *f);
/* How a process is shown in JSON: {"file","host","pid","program","rank"}. */
json_t *proc_json(const struct pw_file *f);

/* The earliest event time of each host, per file (index by file): times in
 * reports are shown relative to it.  free() the result. */
int64_t *host_origins(const struct pw_input *in);
/* "+1.25ms" relative to the origin; "-" for no time. */
void fmt_rel(char *buf, size_t len, int64_t t_ns, int64_t origin);

/* Prints doc (indented, keys in insertion order) and a newline; frees it. */
void json_print(json_t *doc);
/* A string that may not be UTF-8 (a path, a name from an ELF file): as is
 * when it is, else with every byte above 0x7f made '?'. */
json_t *json_text(const char *s);
/* json_integer for a uint64 that could exceed json_int_t: saturates. */
json_t *json_u64(uint64_t v);
/* "0x..." */
json_t *json_hex(uint64_t v);
/* a device: its ordinal, or null */
json_t *json_dev(int64_t dev);
/* a device as text: "dev1", "host" (-1, CU_DEVICE_CPU), "?" for none */
void fmt_dev(char *buf, size_t len, int64_t dev);

#endif

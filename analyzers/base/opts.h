/*
 * peerwatch-analyze's command line as main.c parses it: the options a
 * command reads, the output formats and the exit codes.  Nothing here
 * knows what a trace is.
 */
#ifndef PW_AN_OPTS_H
#define PW_AN_OPTS_H

#include <stdbool.h>

#include "base/show.h"

/* Exit codes: 0 fine, 1 findings (check), 2 usage or unreadable input
 * (check: usage, or no trace found), 3 check only: a trace is unreadable,
 * damaged or incomplete, so the verdict cannot stand. */
enum { EXIT_FINE = 0, EXIT_FINDINGS = 1, EXIT_BAD = 2, EXIT_INPUT = 3 };

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
	bool effects;            /* managed --effects */
	const char *source_root; /* --source-root (sarif, junit); NULL: the working directory */
	char *const *paths;
	int npaths;
};

#endif

/*
 * Findings in the formats CI systems read: SARIF 2.1.0 (GitHub code
 * scanning, GitLab, most IDEs) and JUnit XML (GitLab's test report, Jenkins,
 * most CI dashboards).  check and violations write them (--format).
 *
 * Each finding is placed at the program's own frame: the innermost frame of
 * its stack that has a source line and lies outside the C runtime, the
 * vendor runtimes and peerwatch itself; failing that, the innermost frame
 * outside them; failing that, the innermost frame.  A source file under the
 * source root (--source-root, default the working directory) is named
 * relative to it, as code scanning expects; one outside it absolutely.  A
 * finding without a stack (derived from the calls, or recorded with
 * stacks=none) is placed at the program's executable (or, when the trace
 * does not name it, at the trace).
 */
#ifndef PW_AN_CI_H
#define PW_AN_CI_H

#include "base/opts.h"
#include "base/show.h"
#include "model/findings.h"
#include "read/trace.h"

struct ci_report {
	const struct pw_input *in;
	const struct findings *fs;
	bool gate;                  /* check: a finding fails only at or above fail_on */
	enum sev fail_on;           /* check --fail-on */
	bool allow_partial;         /* check --allow-partial */
	const struct vec *problems; /* struct problem: check's input problems; NULL for violations */
	bool unread;                /* not every path could be read (missing, --strict) */
	int exit_code;              /* what the command exits with */
};

/* Writes the report to standard output in o->format (FMT_SARIF or
 * FMT_JUNIT).  Returns 0, or EXIT_BAD after a message when the source root
 * cannot be used. */
int ci_write(const struct pw_opts *o, const struct ci_report *r);

/* The source root as an absolute path (free() it), or NULL after a message. */
char *ci_source_root(const struct pw_opts *o);

#endif

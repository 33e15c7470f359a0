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
#include "out/report.h"

/* Writes the report to standard output in o->format (FMT_SARIF or
 * FMT_JUNIT).  Returns 0, or EXIT_BAD after a message when the source root
 * cannot be used. */
int ci_write(const struct pw_opts *o, const struct ci_report *r);

/* The source root as an absolute path (free() it), or NULL after a message. */
char *ci_source_root(const struct pw_opts *o);

#endif

/*
 * What a CI format writes (ci.h): the findings, the gate they are judged
 * by, and the input's problems.
 */
#ifndef PW_AN_REPORT_H
#define PW_AN_REPORT_H

#include <stdbool.h>

#include "base/show.h"
#include "base/util.h"
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

/* Does the finding fail: every one for violations, one at or above
 * --fail-on for check? */
static inline bool ci_fails(const struct ci_report *r, const struct finding *fd)
{
	return !r->gate || fd->sev >= r->fail_on;
}

/* Does the input problem fail the gate (a note never; an incomplete trace
 * not under --allow-partial)? */
static inline bool ci_problem_fails(const struct ci_report *r, const struct problem *pb)
{
	return !pb->note && !(pb->allowed && r->allow_partial);
}

#endif

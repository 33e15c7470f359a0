/* What happens to a finding (report.c): a violation event, a report, and in enforce mode the end. */
#ifndef PW_REPORT_H
#define PW_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h"
#include "state/op.h"

void pw_report_finding(const struct pw_call *c, const struct pw_op *op, int rule, const char *msg);
void pw_report_after_fork(void);
uint64_t pw_report_violations(void);
/* Findings counted, not written, because the same rule had fired at the
 * same call site before (the first is reported in full). */
uint64_t pw_report_repeats(void);
struct pw_repeat {
	int rule;
	uintptr_t site; /* the program's return address of the call; 0: unknown */
	uint64_t count; /* repeats after the first */
};
/* The (rule, site) pairs that repeated, most repeats first, at most max. */
size_t pw_report_repeats_by(struct pw_repeat *out, size_t max);
/* Findings of each severity (PW_SEV_*: error, warning, performance) so far,
 * repeats included, suppressed ones not; out[3]. */
void pw_report_by_severity(uint64_t out[3]);
/* "3 findings: 1 error, 2 warnings", "1 error" or "no findings", with ", N suppressed"
 * where some were, into buf; colour (color.h) around the severities when
 * color is true. */
void pw_report_counts_text(char *buf, size_t cap, bool color);
/* What the findings add to the trace's footer (record/header.h), now: for
 * pw_trace_finish. */
struct pw_footer_in;
const struct pw_footer_in *pw_report_footer(void);
/* At exit: one line on stderr saying how many findings were counted only. */
void pw_report_summary(void);
/* The caller's stack without peerwatch's own frames, at most max deep. */

#endif

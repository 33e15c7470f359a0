/* What happens to a finding (report.c): a violation event, a report, and in enforce mode the end. */
#ifndef PW_REPORT_H
#define PW_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "hooks.h"
#include "op.h"

void pw_report_finding(const struct pw_call *c, const struct pw_op *op, int rule, const char *msg);
void pw_report_init(void);
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
/* At exit: one line on stderr saying how many findings were counted only. */
void pw_report_summary(void);
/* The caller's stack without peerwatch's own frames, at most max deep. */
int pw_report_app_stack(uintptr_t *ips, int max);

#endif

/* What happens to a finding (report.c): a violation event, a report, and in enforce mode the end. */
#ifndef PW_REPORT_H
#define PW_REPORT_H

#include <stdint.h>

#include "hooks.h"
#include "op.h"

void pw_report_finding(const struct pw_call *c, const struct pw_op *op, int rule, const char *msg);
void pw_report_init(void);
void pw_report_after_fork(void);
uint64_t pw_report_violations(void);
/* The caller's stack without peerwatch's own frames, at most max deep. */
int pw_report_app_stack(uintptr_t *ips, int max);

#endif

/*
 * The commands, one file each; main.c's table runs them.
 */
#ifndef PW_AN_CMDS_H
#define PW_AN_CMDS_H

#include "base/opts.h"

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
int cmd_report(const struct pw_opts *o);

#endif

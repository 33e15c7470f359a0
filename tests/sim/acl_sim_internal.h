/*
 * Internal state of the simulated Ascend ACL runtime (libascendcl.so over
 * host memory), shared by acl_sim.c and acl_sim_mem.c.  A test double: it
 * follows the facts file (docs/facts-hip-acl.md B2-B5) and the
 * ACL document (the ACL inter-device transfer document), and says where it had to choose (README.md).
 * One mutex guards everything; the current device is per thread.
 */
#ifndef PWSIM_ACL_SIM_INTERNAL_H
#define PWSIM_ACL_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peerwatch/abi/acl.h"

#define PWSIM_ACL_API __attribute__((visibility("default")))
#define PWSIM_ACL_MAX_DEVICES 64

struct pwsim_acl {
	int ndev;                             /* devices visible (ASCEND_RT_VISIBLE_DEVICES) */
	int phys[PWSIM_ACL_MAX_DEVICES];      /* user device id -> physical device */
	uint64_t link[PWSIM_ACL_MAX_DEVICES]; /* bit j of link[i]: i can access j (PWSIM_PEERS) */
	uint64_t on[PWSIM_ACL_MAX_DEVICES];   /* bit j of on[i]: i -> j enabled */
	int init;                             /* 0 never, 1 initialized, 2 finalized */
};
extern struct pwsim_acl pwsim_acl;

void pwsim_acl_lock(void);
void pwsim_acl_unlock(void);
/* Reads the environment once. */
void pwsim_acl_config(void);
/* ACL_SUCCESS once aclInit ran (and no aclFinalize since). */
aclError pwsim_acl_ready(void);
bool pwsim_acl_valid(int32_t dev);
/* The calling thread's current device, -1 if none. */
int pwsim_acl_current(void);

/* acl_sim_mem.c: every allocation's device and policy. */
bool pwsim_acl_find(uintptr_t p, size_t count, uintptr_t *base, size_t *size, int *dev, int *policy);

#endif

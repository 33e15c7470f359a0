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

/* acl_sim_mem.c: every allocation's device and policy.  Device memory is
 * anonymous pages of the process (maplen bytes, whole pages), which an IPC
 * export turns into pages of a shared-memory object at the same address;
 * an import is an allocation too (imported), the object's pages. */
struct pwsim_acl_export;
struct pwsim_acl_alloc {
	uintptr_t base;
	size_t size, maplen;
	int dev, policy;
	bool imported;                /* made by aclrtIpcMemImportByKey (acl_sim_ipc.c) */
	int refs;                     /* imported: imports of the key not closed yet */
	struct pwsim_acl_export *exp; /* exported: the key's object (acl_sim_ipc.c), or NULL */
	struct pwsim_acl_alloc *next;
};
/* Under the lock: the allocation holding [p, p+count), or NULL; a new one
 * put in the list; one taken out of it (false if it is not there). */
struct pwsim_acl_alloc *pwsim_acl_alloc_at(uintptr_t p, size_t count);
struct pwsim_acl_alloc *pwsim_acl_alloc_first(void);
void pwsim_acl_alloc_insert(struct pwsim_acl_alloc *a);
bool pwsim_acl_alloc_unlink(struct pwsim_acl_alloc *a);
/* acl_sim_ipc.c: an exported allocation is freed (under the lock): its
 * object goes, so that no import can follow. */
void pwsim_acl_export_freed(struct pwsim_acl_alloc *a);
bool pwsim_acl_find(uintptr_t p, size_t count, uintptr_t *base, size_t *size, int *dev, int *policy);
/* acl_sim_vmm.c, under the lock: the aclrtMapMem mapping holding [p, p+n),
 * its range and its physical memory's device; false if none. */
bool pwsim_acl_vmm_mapped(uintptr_t p, size_t n, uintptr_t *base, size_t *size, int *dev);

#endif

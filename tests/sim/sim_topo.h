/*
 * The simulated topology, shared by the simulated CUDA driver, HIP runtime,
 * ACL runtime and management library: how many devices the host has
 * (PWSIM_DEVICES), which pairs have a peer link (PWSIM_PEERS), and which of
 * them a process sees, in which order (the vendor's VISIBLE_DEVICES
 * variables).  Every physical device has a stable UUID and PCI bus id, the
 * same in every process of the host.  See README.md for the accepted forms.
 * Nothing here is exported: the libraries are built with hidden visibility.
 */
#ifndef PWSIM_SIM_TOPO_H
#define PWSIM_SIM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define PWSIM_TOPO_MAX_DEVICES 64

/* Whose VISIBLE_DEVICES rules a process's ordinals follow. */
enum pwsim_vis {
	PWSIM_VIS_NONE, /* every physical device, in order (the management library) */
	PWSIM_VIS_CUDA, /* CUDA_VISIBLE_DEVICES */
	PWSIM_VIS_HIP,  /* ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES) */
	PWSIM_VIS_ACL,  /* ASCEND_RT_VISIBLE_DEVICES */
};

struct pwsim_topo {
	int ndev;                              /* devices the process sees */
	int nphys;                             /* PWSIM_DEVICES, 1..64, default 2 */
	int phys[PWSIM_TOPO_MAX_DEVICES];      /* ordinal -> physical index */
	uint64_t peer[PWSIM_TOPO_MAX_DEVICES]; /* bit j of peer[i]: ordinal i can access ordinal j */
	uint64_t link[PWSIM_TOPO_MAX_DEVICES]; /* the same by physical index (PWSIM_PEERS) */
};

/* Reads PWSIM_DEVICES, PWSIM_PEERS and the visibility variables of vis; a
 * bad value prints one line on stderr and the default is used. */
void pwsim_topo_load(struct pwsim_topo *t, enum pwsim_vis vis);

/* The 16 bytes of physical device p's UUID for vendor vis (HIP: 16 ASCII
 * hex digits, as ROCm reports them; the others: binary). */
void pwsim_topo_uuid(enum pwsim_vis vis, int p, unsigned char out[16]);
/* Its text as the vendor's VISIBLE_DEVICES and tools write it: CUDA and ACL
 * "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", HIP "GPU-<16 hex digits>". */
void pwsim_topo_uuid_text(enum pwsim_vis vis, int p, char *buf, size_t len);
/* Its PCI bus id, "0000:10:00.0" (upper-case hex digits, as the CUDA driver
 * writes them). */
void pwsim_topo_bus_id(int p, char *buf, size_t len);

/* Removes the shared-memory objects "/<prefix><uid>.<pid>.<id>" of this
 * user's processes that are gone (killed: the library's destructor did not
 * run), as the real driver frees a dead process's device memory.  An
 * object of a live process, of another user, or named otherwise is left. */
void pwsim_reap_dead(const char *prefix);

/* The line printed for a bad environment value. */
void pwsim_bad_env(const char *var, const char *val, const char *expected, const char *fallback);

/* A decimal integer in [lo, hi] and nothing else: 0, or -1. */
int pwsim_parse_int(const char *s, long lo, long hi, long *out);

#endif

/*
 * The simulated topology, shared by the simulated CUDA driver and the
 * simulated HIP runtime: how many devices (PWSIM_DEVICES) and which pairs
 * have a peer link (PWSIM_PEERS).  See README.md for the accepted forms.
 * Nothing here is exported: both libraries are built with hidden visibility.
 */
#ifndef PWSIM_SIM_TOPO_H
#define PWSIM_SIM_TOPO_H

#include <stdint.h>

#define PWSIM_TOPO_MAX_DEVICES 64

struct pwsim_topo {
	int ndev;                              /* PWSIM_DEVICES, 1..64, default 2 */
	uint64_t peer[PWSIM_TOPO_MAX_DEVICES]; /* bit j of peer[i]: i can access j (PWSIM_PEERS) */
};

/* Reads PWSIM_DEVICES and PWSIM_PEERS; a bad value prints one line on stderr
 * and the default is used. */
void pwsim_topo_load(struct pwsim_topo *t);

/* The line printed for a bad environment value. */
void pwsim_bad_env(const char *var, const char *val, const char *expected, const char *fallback);

/* A decimal integer in [lo, hi] and nothing else: 0, or -1. */
int pwsim_parse_int(const char *s, long lo, long hi, long *out);

#endif

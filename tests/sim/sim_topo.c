/*
 * The simulated topology from the environment (sim_topo.h), shared by the
 * simulated CUDA driver and the simulated HIP runtime.
 */
#include "sim_topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PWSIM_DEFAULT_DEVICES 2
#define STR_(x) #x
#define STR(x) STR_(x)

void pwsim_bad_env(const char *var, const char *val, const char *expected, const char *fallback)
{
	fprintf(stderr, "pwsim: %s='%s' is not valid: expected %s; using %s\n", var, val, expected, fallback);
}

int pwsim_parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void topo_devices(struct pwsim_topo *t)
{
	const char *s = getenv("PWSIM_DEVICES");
	long v;

	t->ndev = PWSIM_DEFAULT_DEVICES;
	if (!s)
		return;
	if (pwsim_parse_int(s, 1, PWSIM_TOPO_MAX_DEVICES, &v) == 0)
		t->ndev = (int)v;
	else
		pwsim_bad_env("PWSIM_DEVICES", s, "an integer 1.." STR(PWSIM_TOPO_MAX_DEVICES),
		              STR(PWSIM_DEFAULT_DEVICES));
}

static void peers_all(struct pwsim_topo *t)
{
	for (int i = 0; i < t->ndev; i++) {
		uint64_t all = t->ndev == 64 ? ~0ull : (1ull << t->ndev) - 1;
		t->peer[i] = all & ~(1ull << i); /* a device is not its own peer */
	}
}

/* "a-b[,c-d...]": each pair can access each other in both directions. */
static int parse_pairs(const char *s, int ndev, uint64_t *peer)
{
	while (*s) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(s, &end, 10);
		if (errno || end == s || *end != '-' || a < 0 || a >= ndev)
			return -1;
		s = end + 1;
		b = strtol(s, &end, 10);
		if (errno || end == s || (*end && *end != ',') || b < 0 || b >= ndev || a == b)
			return -1;
		peer[a] |= 1ull << b;
		peer[b] |= 1ull << a;
		s = *end ? end + 1 : end;
		if (*end == ',' && !*s)
			return -1;
	}
	return 0;
}

static void topo_peers(struct pwsim_topo *t)
{
	const char *s = getenv("PWSIM_PEERS");
	uint64_t peer[PWSIM_TOPO_MAX_DEVICES] = {0};

	if (!s || strcmp(s, "all") == 0) {
		peers_all(t);
	} else if (strcmp(s, "none") == 0) {
		memset(t->peer, 0, sizeof(t->peer));
	} else if (*s && parse_pairs(s, t->ndev, peer) == 0) {
		memcpy(t->peer, peer, sizeof(peer));
	} else {
		pwsim_bad_env("PWSIM_PEERS", s,
		              "'all', 'none' or pairs of distinct device ordinals like '0-1,2-3'", "all");
		peers_all(t);
	}
}

void pwsim_topo_load(struct pwsim_topo *t)
{
	memset(t, 0, sizeof(*t));
	topo_devices(t);
	topo_peers(t);
}

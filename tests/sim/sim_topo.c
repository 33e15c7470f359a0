/*
 * The simulated topology from the environment (sim_topo.h), shared by the
 * simulated CUDA driver, HIP runtime, ACL runtime and management library.
 */
#include "sim_topo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

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

	t->nphys = PWSIM_DEFAULT_DEVICES;
	if (!s)
		return;
	if (pwsim_parse_int(s, 1, PWSIM_TOPO_MAX_DEVICES, &v) == 0)
		t->nphys = (int)v;
	else
		pwsim_bad_env("PWSIM_DEVICES", s, "an integer 1.." STR(PWSIM_TOPO_MAX_DEVICES),
		              STR(PWSIM_DEFAULT_DEVICES));
}

static void links_all(struct pwsim_topo *t)
{
	for (int i = 0; i < t->nphys; i++) {
		uint64_t all = t->nphys == 64 ? ~0ull : (1ull << t->nphys) - 1;
		t->link[i] = all & ~(1ull << i); /* a device is not its own peer */
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

static void topo_links(struct pwsim_topo *t)
{
	const char *s = getenv("PWSIM_PEERS");
	uint64_t link[PWSIM_TOPO_MAX_DEVICES] = {0};

	if (!s || strcmp(s, "all") == 0) {
		links_all(t);
	} else if (strcmp(s, "none") == 0) {
		memset(t->link, 0, sizeof(t->link));
	} else if (*s && parse_pairs(s, t->nphys, link) == 0) {
		memcpy(t->link, link, sizeof(link));
	} else {
		pwsim_bad_env("PWSIM_PEERS", s,
		              "'all', 'none' or pairs of distinct device numbers like '0-1,2-3'", "all");
		links_all(t);
	}
}

/* ---- identity ---- */

void pwsim_topo_uuid(enum pwsim_vis vis, int p, unsigned char out[16])
{
	if (vis == PWSIM_VIS_HIP) {
		/* ROCm's 16 characters: the hex digits of a 64-bit unique id */
		char text[17];
		snprintf(text, sizeof(text), "7077686970%06x", (unsigned)p);
		memcpy(out, text, 16);
		return;
	}
	/* "pwsm"/"pwan", the device number, then a version-4-like layout */
	static const unsigned char cuda[16] = {0x70, 0x77, 0x73, 0x6d, 0x00, 0x00, 0x40, 0x00,
	                                       0x80, 0x00, 0x5e, 0x1d, 0x00, 0x00, 0x00, 0x00};
	memcpy(out, cuda, 16);
	if (vis == PWSIM_VIS_ACL) {
		out[2] = 0x61; /* "pwan": an NPU, not one of the GPUs */
		out[3] = 0x6e;
	}
	out[4] = (unsigned char)(p >> 8);
	out[5] = (unsigned char)p;
}

void pwsim_topo_uuid_text(enum pwsim_vis vis, int p, char *buf, size_t len)
{
	unsigned char u[16];

	pwsim_topo_uuid(vis, p, u);
	if (vis == PWSIM_VIS_HIP) {
		snprintf(buf, len, "GPU-%.16s", (const char *)u);
		return;
	}
	snprintf(buf, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
	         u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
	         u[15]);
}

/* Fifteen buses per PCI domain, 0x10 apart: unique for 64 devices. */
void pwsim_topo_bus_id(int p, char *buf, size_t len)
{
	snprintf(buf, len, "%04X:%02X:00.0", p / 15, 0x10 * (1 + p % 15));
}

/* ---- which devices a process sees ---- */

/* One entry of a VISIBLE_DEVICES list: the physical device (or, for a
 * second-level list, the position in the first), or -1 where the list
 * stops.  Indices are read as strtoul does ("1gpu" is 1: PyTorch found the
 * driver accepts it); a UUID, or enough of its first characters to name one
 * device, starts with "GPU-" (CUDA Programming Guide, CUDA Environment
 * Variables; ROCm, GPU isolation techniques). */
static int entry(const char *tok, size_t n, int count, enum pwsim_vis uuids)
{
	while (n && isspace((unsigned char)*tok))
		tok++, n--;
	while (n && isspace((unsigned char)tok[n - 1]))
		n--;
	if (uuids != PWSIM_VIS_NONE && n > 4 && !strncasecmp(tok, "GPU-", 4)) {
		int found = -1;
		for (int p = 0; p < count; p++) {
			char text[64];
			pwsim_topo_uuid_text(uuids, p, text, sizeof(text));
			if (n <= strlen(text) && !strncasecmp(text, tok, n)) {
				if (found >= 0)
					return -1; /* not enough of it to name one */
				found = p;
			}
		}
		return found;
	}
	if (!n || !isdigit((unsigned char)*tok))
		return -1;
	long v = 0;
	for (size_t i = 0; i < n && isdigit((unsigned char)tok[i]) && v < 1000; i++)
		v = v * 10 + (tok[i] - '0');
	return v < count ? (int)v : -1;
}

/* Applies list s (NULL: unset) to the n entries of order, in place.  The
 * list stops at its first entry that names no device, or one named before
 * (CUDA: "If one of the indices is invalid, only the devices whose index
 * precedes the invalid index are visible"). */
static int apply(const char *s, int *order, int n, enum pwsim_vis uuids)
{
	if (!s)
		return n;
	int out[PWSIM_TOPO_MAX_DEVICES] = {0}, k = 0;
	uint64_t seen = 0;
	for (const char *p = s; *p && k < PWSIM_TOPO_MAX_DEVICES;) {
		size_t len = strcspn(p, ",");
		int e = entry(p, len, n, uuids);
		if (e < 0 || (seen >> e) & 1)
			break;
		seen |= 1ull << e;
		out[k++] = order[e];
		p += len;
		if (*p == ',')
			p++;
	}
	memcpy(order, out, sizeof(int) * (size_t)k);
	return k;
}

static void topo_visible(struct pwsim_topo *t, enum pwsim_vis vis)
{
	for (int p = 0; p < t->nphys; p++)
		t->phys[p] = p;
	t->ndev = t->nphys;
	switch (vis) {
	case PWSIM_VIS_NONE: break;
	case PWSIM_VIS_CUDA: t->ndev = apply(getenv("CUDA_VISIBLE_DEVICES"), t->phys, t->ndev, vis); break;
	case PWSIM_VIS_HIP: {
		/* ROCr's list first; HIP's (or CUDA's) indices then count in what it left */
		const char *hip = getenv("HIP_VISIBLE_DEVICES");
		t->ndev = apply(getenv("ROCR_VISIBLE_DEVICES"), t->phys, t->ndev, vis);
		t->ndev = apply(hip ? hip : getenv("CUDA_VISIBLE_DEVICES"), t->phys, t->ndev, PWSIM_VIS_NONE);
		break;
	}
	case PWSIM_VIS_ACL:
		t->ndev = apply(getenv("ASCEND_RT_VISIBLE_DEVICES"), t->phys, t->ndev, PWSIM_VIS_NONE);
		break;
	}
	for (int i = 0; i < t->ndev; i++)
		for (int j = 0; j < t->ndev; j++)
			if ((t->link[t->phys[i]] >> t->phys[j]) & 1)
				t->peer[i] |= 1ull << j;
}

void pwsim_topo_load(struct pwsim_topo *t, enum pwsim_vis vis)
{
	memset(t, 0, sizeof(*t));
	topo_devices(t);
	topo_links(t);
	topo_visible(t, vis);
}

void pwsim_reap_dead(const char *prefix)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	size_t plen = strlen(prefix);
	unsigned uid = (unsigned)getuid();
	pid_t self = getpid();
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (strncmp(n, prefix, plen))
			continue;
		char *end;
		unsigned long u = strtoul(n + plen, &end, 10);
		if (*end != '.' || u != uid)
			continue;
		long pid = strtol(end + 1, &end, 10);
		if (*end != '.' || pid <= 0 || pid == self)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* running (or not ours to ask): its objects are its own */
		char name[300];
		if ((size_t)snprintf(name, sizeof name, "/%s", n) < sizeof name)
			shm_unlink(name);
	}
	closedir(d);
}

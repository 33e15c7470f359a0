/*
 * The devices a process sees, who they are, and what each pair can do
 * (docs/trace-format.md, Device lines).
 *
 * A device ordinal is private to a process: CUDA_VISIBLE_DEVICES (and
 * ROCm's and Ascend's variables) decide which of the host's devices it sees
 * and in which order.  So, once per vendor, when its runtime has been used
 * (the first traced call marks it), the writer thread asks the runtime
 * about every visible device (UUID, PCI bus id, name) and every pair (can
 * access, P2P attributes) and, for CUDA, the management library about each
 * pair's link; then it writes one "device" line per device into the trace.
 * Nothing here runs on the hot path but pw_devices_note_use(), a load and,
 * the first time only, a store.
 *
 * The answers stay in memory for the rules and reports that speak of
 * physical devices (the IPC registry, the peer limit across processes, why
 * two devices cannot be peers); a slow path that needs them before the
 * writer got to it may ask for them at once (pw_devices_get).
 */
#ifndef PW_DEVICES_H
#define PW_DEVICES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h"
#include "state/state.h"

#define PW_UUID_LEN 48 /* "GPU-" + 36 characters + NUL, with room */
#define PW_BUS_LEN 24  /* "0000:18:00.0", or a longer domain */
#define PW_DEVNAME_LEN 96

/* The capabilities the management library gives a status for. */
enum pw_p2p_cap { PW_P2P_READ, PW_P2P_WRITE, PW_P2P_NVLINK, PW_P2P_ATOMICS, PW_P2P_CAPS };

struct pw_pair_info {
	/* the runtime's answers, -1 where it gave none */
	int can_access;   /* dev -> peer (cuDeviceCanAccessPeer and the like) */
	int perf_rank;    /* P2P attribute: performance rank */
	int access;       /* P2P attribute: access supported */
	int atomics;      /* P2P attribute: native atomics */
	int array_access; /* P2P attribute: array access */
	/* the management library's, -1 without it */
	int nvlinks;  /* active NVLinks from dev to peer: direct, or through the switches */
	int nvswitch; /* 1: those go through NVSwitches, 0: direct (or none) */
	/* the trace's names (docs/trace-format.md), NULL where unknown */
	const char *link;             /* "nvlink", "nvswitch", "xgmi", "pcie" */
	const char *topology;         /* the PCIe paths' common ancestor: "numa_node", … */
	const char *p2p[PW_P2P_CAPS]; /* each capability's status: "ok", "disabled_by_regkey", … */
};

struct pw_dev_info {
	char uuid[PW_UUID_LEN];  /* "GPU-…"; "" when the runtime gave none */
	char bus_id[PW_BUS_LEN]; /* lower-case "dddd:bb:dd.f"; "" when none */
	char name[PW_DEVNAME_LEN];
	int physical_id;  /* the runtime's own number of the device (ACL), -1 */
	int switch_links; /* active NVLinks to NVSwitches (management library), -1 */
};

struct pw_devset {
	int vendor; /* PW_VENDOR_* */
	int n;      /* visible devices, at most PW_MAX_DEV */
	bool links; /* the management library answered for the pairs */
	struct pw_dev_info dev[PW_MAX_DEV];
	/* room for PW_MAX_DEV squared; [dev * n + peer] (pw_devset_pair, once n
	 * is set); the diagonal unused */
	struct pw_pair_info *pair;
};

static inline struct pw_pair_info *pw_devset_pair(const struct pw_devset *s, int d, int p)
{
	return &s->pair[d * s->n + p];
}

/* A runtime was used: from now on its devices may be asked about. */
extern atomic_bool pw_devices_used[PW_VENDOR_COUNT];
/* The first use of vendor's runtime (once per vendor, off the fast path). */
void pw_devices_first_use(int vendor);
static inline void pw_devices_note_use(int vendor)
{
	if (__builtin_expect(!atomic_load_explicit(&pw_devices_used[vendor], memory_order_relaxed), 0))
		pw_devices_first_use(vendor);
}

/* The writer's round (and, final, the end of the trace): identify what
 * is ready and write the lines this trace file does not have yet. */
void pw_devices_tick(bool final);
/* The vendor's devices, identified now if they were not yet (without the
 * management library's links), or NULL when the runtime cannot say (not
 * used or not initialised yet).  Never on the hot path. */
const struct pw_devset *pw_devices_get(int vendor);
/* In a forked child: its new trace file gets the lines again. */
void pw_devices_after_fork(void);
/* Why devices dev and peer of vendor cannot be peers ("the devices are on
 * different CPU sockets (NVML: ...)"), asked of the vendor's management
 * library once per pair and remembered; NULL when nothing can say.  For a
 * finding's report only: it may load that library. */
const char *pw_devices_why_not(int vendor, int dev, int peer);
/* "device 1 (GPU-…, 0000:18:00.0)", or "device 1" when its identity is not
 * known yet: how a finding names a device. */
void pw_devices_name(int vendor, int dev, char *buf, size_t len);
/* Device dev's UUID into out ("" and false when not known); identifies the
 * devices first if need be (pw_devices_get).  For the IPC registry. */
bool pw_devices_uuid_of(int vendor, int dev, char *out, size_t len);
/* Device dev's active links to NVSwitches, asked of the vendor's management
 * library once and remembered; -1 when unknown.  For a finding's report
 * only: it may load that library. */
int pw_devices_switch_links(int vendor, int dev);
/* This process's ordinal of the device with that UUID, or -1. */
int pw_devices_ordinal_of(int vendor, const char *uuid);
/* What the runtime said: can dev access peer's memory (1, 0; -1 unknown). */
int pw_devices_can_access(int vendor, int dev, int peer);

/* Helpers for the vendors' identify hooks. */
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from 16 bytes; bytes that are
 * 16 printable hex digits (ROCm's) give "GPU-" and those digits. */
void pw_devices_uuid_text(const unsigned char bytes[16], char *out, size_t len);
/* A bus id as "dddd:bb:dd.f", lower case, from what the runtime wrote. */
void pw_devices_bus_text(const char *in, char *out, size_t len);

#endif

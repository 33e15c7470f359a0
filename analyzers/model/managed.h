/*
 * Managed memory in the traces (managed.c says which calls count and how a
 * call's range finds its allocation): the allocations, the history of
 * advice, prefetches and attachments, and prefetch volume per destination.
 * managed prints them; report draws them.
 */
#ifndef PW_AN_MANAGED_H
#define PW_AN_MANAGED_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "model/devices.h"
#include "read/reader.h"

/* History records kept per trace; the rest are counted (not_kept). */
#define HISTORY_MAX 100000

struct m_alloc {
	size_t file;
	char vendor[8];
	uint64_t seq, t_ns, ptr, bytes, free_seq, free_t_ns;
	char *flags;
	int64_t dev;
	bool freed;
};

struct m_op {
	size_t file;
	uint64_t seq, t_ns, ptr, bytes;
	char *api, *what, *target, *result;
};

struct m_dest {
	char *host, *vendor, *dest;
	size_t file; /* while reading: the process whose ordinal dev is */
	int64_t dev; /* a device ordinal, or PW_DEV_NONE for the others (dest) */
	uint64_t count, failed, bytes;
};

struct managed {
	struct vec allocs; /* struct m_alloc */
	struct vec ops;    /* struct m_op */
	struct hmap dests; /* host "\0" destination -> struct m_dest */
	uint64_t failed_allocs, queries, not_kept;
};

/* The sink: its report is a managed_init'ed struct managed. */
extern const struct pw_sink_ops managed_ops;
void managed_init(struct managed *m);
void managed_free(struct managed *m);

/* After reading: the destinations onto the physical devices, allocations
 * and ops in process order (file_ranks, then time), and each op's
 * allocation: the returned array (free() it) has, per op, the index + 1 of
 * the allocation its range lies in, 0 for none. */
size_t *managed_order(struct managed *m, const struct pw_input *in, const struct pw_devmap *dm);
/* The destinations by host, vendor, name; NULL-terminated, free() the array. */
struct m_dest **managed_sorted_dests(const struct managed *m);

#endif

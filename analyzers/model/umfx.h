/*
 * Unified-memory effects (umfx.c): the "um" events of a trace (CUPTI's
 * unified-memory counters: faults, migrations, thrashing, throttling,
 * remote maps) tied to the managed allocation whose range holds their
 * address, and within it to the advice or prefetch that governed the page
 * when they happened; and the performance findings derived from them
 * (include/peerwatch/derived_rules.h: um.*).  managed --effects prints
 * them; check, violations and report add the findings (findings.c).
 *
 * Memory is bounded by the managed calls and the pages their effects
 * touched, never by the number of um events: each event is counted into
 * its call's row and into small per-page state, and dropped.
 */
#ifndef PW_AN_UMFX_H
#define PW_AN_UMFX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/show.h"
#include "base/util.h"
#include "read/reader.h"

/* A processor not named by the call (a location this reader cannot place). */
#define UMFX_PROC_UNKNOWN (-2)
/* The pages the rules look at: 64 KiB granules of the address space. */
#define UMFX_PAGE_SHIFT 16
/* Calls (allocations, advice, prefetches) kept per trace; the rest counted. */
#define UMFX_CALLS_MAX 100000

enum umfx_what {
	FX_ALLOC,
	FX_PREFETCH,
	FX_SET_READ_MOSTLY,
	FX_UNSET_READ_MOSTLY,
	FX_SET_PREFERRED,
	FX_UNSET_PREFERRED,
	FX_SET_ACCESSED_BY,
	FX_UNSET_ACCESSED_BY,
	FX_OTHER_ADVICE
};

/* What followed a call: events of one kind between two processors. */
struct umfx_count {
	enum pw_um_kind kind;
	int32_t a, b;       /* faults, throttling: a the processor; migrations, remote maps: a src,
	                       b dst; thrashing: neither (UMFX_PROC_UNKNOWN) */
	uint64_t n, bytes;  /* events, and the bytes of those that have them */
	uint64_t procs;     /* thrashing: the processors fighting (PW_UM_PROC_BIT) */
	int64_t first_t_ns; /* the earliest */
};

/* qsort order of counts: by kind, then the processors (the reports' order). */
int umfx_count_cmp(const void *x, const void *y);

/* One row of an allocation's history: its allocation, an advice, a prefetch. */
struct umfx_call {
	uint64_t seq, t_ns, ptr, bytes;
	char *api;  /* api + variant */
	char *what; /* the advice's name, "prefetch", "allocated" */
	enum umfx_what kind;
	int32_t proc;      /* the processor it names (PW_UM_CPU, a device, UMFX_PROC_UNKNOWN) */
	struct vec counts; /* struct umfx_count, in the order first seen */
	uint64_t events;   /* um events attributed to it */
	/* its rule's evidence (a prefetch, SetReadMostly, SetPreferredLocation, SetAccessedBy) */
	uint64_t rule_events, rule_pages, thrashing;
	int64_t rule_first_t_ns; /* -1: none */
	const char *rule;        /* the rule it broke, NULL for none */
	char *message;           /* its finding's sentence, NULL for none */
};

/* One managed allocation of one trace, with its history. */
struct umfx_alloc {
	size_t file;
	uint64_t seq, t_ns, ptr, bytes;
	struct vec calls; /* struct umfx_call, in time order; the first is the allocation */
	uint64_t events;  /* um events in its range */
};

struct umfx_finding {
	size_t file;
	uint64_t call;
	char *api, *message;
	const char *rule;
};

struct umfx {
	struct vec allocs;   /* struct umfx_alloc, by file then time (umfx_order) */
	struct vec findings; /* struct umfx_finding */
	uint64_t events;     /* um events read */
	uint64_t outside;    /* of them, in no managed allocation of their trace */
	uint64_t not_kept;   /* calls beyond UMFX_CALLS_MAX per trace */
	uint64_t too_wide;   /* events whose pages were looked at only up to a bound */
	/* check's: the findings alone (a file's allocations are let go once its
	 * findings are made: allocs stays empty), read with umfx_findings_ops */
	bool findings_only;
};

extern const struct pw_sink_ops umfx_ops;
extern const struct pw_sink_ops umfx_findings_ops;
void umfx_init(struct umfx *u);
void umfx_free(struct umfx *u);
/* After reading: allocations in process order (file_ranks, then time). */
void umfx_order(struct umfx *u, const struct pw_input *in);
/* "cpu", "dev1", "?" */
void umfx_proc_name(char *buf, size_t len, int32_t proc);

#endif

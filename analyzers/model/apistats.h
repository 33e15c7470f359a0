/*
 * The calls of the traces per API (apistats.c says how nested and untimed
 * calls count): counts, errors by return name and a host-time histogram;
 * per process; violations per rule.  summary prints them, report draws the
 * host time.
 */
#ifndef PW_AN_APISTATS_H
#define PW_AN_APISTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hist.h"
#include "base/util.h"
#include "read/reader.h"

struct api_stat {
	char *vendor, *api;
	bool runtime; /* "layer": "runtime" */
	uint64_t count, errors, nested;
	uint64_t timed; /* calls timed on their own (no "parent_time"): those in host */
	struct hist host;
	struct hmap rets; /* return name of a failed call -> uint64_t count */
};

struct rule_stat {
	char *rule, *severity;
	uint64_t count;
};

struct proc_stat {
	uint64_t calls, errors, violations;
};

/* The report and each worker's partial have the same shape. */
struct summary {
	struct hmap apis;  /* "vendor\0api" -> struct api_stat */
	struct hmap rules; /* "rule\0severity" -> struct rule_stat */
	struct hmap procs; /* file index -> struct proc_stat */
};

/* The sink: its report is a summary_init'ed struct summary. */
extern const struct pw_sink_ops summary_ops;
void summary_init(struct summary *s);
void summary_free(struct summary *s);

/* The values of a map, sorted by cmp, NULL-terminated; free() the array. */
void **sorted_values(const struct hmap *h, int (*cmp)(const void *, const void *));
/* struct api_stat * by vendor, then API. */
int summary_by_api(const void *a, const void *b);

#endif

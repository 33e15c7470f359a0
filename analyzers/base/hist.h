/*
 * Host-time distributions with memory that does not grow with the number of
 * calls: a log-linear histogram (HDR-style) of 32 linear sub-buckets per
 * power of two.  Values below 32 ns are exact; above, a percentile is the
 * middle of its bucket, within 1.6 % of the true value.  Count, total, mean,
 * min and max are exact.  Two histograms merge by adding their buckets, so
 * each worker keeps its own and the report adds them up.
 */
#ifndef PW_AN_HIST_H
#define PW_AN_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 5
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t *bucket;            /* HIST_BUCKETS counters, allocated at the first value */
	uint64_t n, total, min, max; /* total saturates at UINT64_MAX */
};

void hist_add(struct hist *h, uint64_t v);
void hist_merge(struct hist *into, const struct hist *from);
/* The p-th percentile (0 < p <= 100), by nearest rank; 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/* The counts per power of two: out[k] counts the values in [2^k, 2^(k+1))
 * (out[0] also 0). */
void hist_octaves(const struct hist *h, uint64_t out[64]);
void hist_free(struct hist *h);

#endif

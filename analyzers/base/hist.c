/*
 * Log-linear histogram (hist.h).
 */
#include <math.h>
#include <stdlib.h>

#include "base/hist.h"
#include "base/util.h"

#define SUB (1u << HIST_SUB_BITS)

static unsigned bucket_of(uint64_t v)
{
	if (v < SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= HIST_SUB_BITS */
	unsigned shift = e - HIST_SUB_BITS;
	return SUB + shift * SUB + (unsigned)((v >> shift) & (SUB - 1));
}

/* The middle of bucket b: the value a percentile in it is reported as. */
static uint64_t bucket_mid(unsigned b)
{
	if (b < SUB)
		return b;
	unsigned shift = (b - SUB) / SUB, sub = (b - SUB) % SUB;
	uint64_t lo = (uint64_t)(SUB + sub) << shift;
	return lo + ((1ull << shift) >> 1);
}

void hist_add(struct hist *h, uint64_t v)
{
	if (!h->bucket)
		h->bucket = xcalloc(HIST_BUCKETS, sizeof *h->bucket);
	h->bucket[bucket_of(v)]++;
	h->total = h->total > UINT64_MAX - v ? UINT64_MAX : h->total + v;
	if (!h->n || v < h->min)
		h->min = v;
	if (!h->n || v > h->max)
		h->max = v;
	h->n++;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	if (!from->n)
		return;
	if (!into->bucket)
		into->bucket = xcalloc(HIST_BUCKETS, sizeof *into->bucket);
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
	into->total = into->total > UINT64_MAX - from->total ? UINT64_MAX : into->total + from->total;
	if (!into->n || from->min < into->min)
		into->min = from->min;
	if (!into->n || from->max > into->max)
		into->max = from->max;
	into->n += from->n;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (!h->n)
		return 0;
	double r = ceil(p / 100.0 * (double)h->n);
	uint64_t rank = r < 1 ? 1 : (uint64_t)r, seen = 0;
	/* the ends are known exactly */
	if (rank >= h->n)
		return h->max;
	if (rank == 1)
		return h->min;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen < rank)
			continue;
		uint64_t v = bucket_mid(b);
		return v < h->min ? h->min : v > h->max ? h->max : v;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->n ? (double)h->total / (double)h->n : 0;
}

void hist_free(struct hist *h)
{
	free(h->bucket);
	h->bucket = NULL;
	h->n = 0;
}

void hist_octaves(const struct hist *h, uint64_t out[64])
{
	for (unsigned k = 0; k < 64; k++)
		out[k] = 0;
	for (unsigned b = 0; h->bucket && b < HIST_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		unsigned k =
		    b < SUB ? (b ? 63u - (unsigned)__builtin_clzll(b) : 0) : (b - SUB) / SUB + HIST_SUB_BITS;
		out[k < 64 ? k : 63] += h->bucket[b];
	}
}

/*
 * Sorting more records than memory should hold: fixed-size records are
 * pushed, kept in memory up to a bound, and beyond it written out in
 * sorted runs to an unlinked temporary file ($TMPDIR, else /tmp), merged
 * into one sorted file when the pushing is done.  Read back by index, in
 * order (sequential reads are buffered; a jump back seeks).
 *
 * A record is copied as bytes, so pointers in it must outlive the sort
 * (the analyzer's interned strings do).  A temporary file that cannot be
 * made or written ends the program with a message that names it.
 */
#ifndef PW_AN_XSORT_H
#define PW_AN_XSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct xsort {
	size_t size;                            /* of a record */
	size_t cap;                             /* records held in memory */
	int (*cmp)(const void *, const void *); /* qsort's */
	char *buf;                              /* up to cap records */
	size_t n, have;                         /* in buf; its room */
	size_t total;                           /* pushed */
	int runs_fd;                            /* the sorted runs, or -1 */
	size_t nruns, runs_cap, *run_len;       /* records in each run */
	int out_fd;                             /* merged, or -1 (all in buf) */
	char *rd;                               /* the read window of out_fd */
	size_t rd_first, rd_n;                  /* its records */
	bool done;
};

/* Tests: when not 0, every sort holds at most this many records in memory. */
extern size_t xsort_cap_override;

/* mem: how many records to hold before writing a run (at least 2); cmp
 * NULL: a spool, read back in the order pushed. */
void xsort_init(struct xsort *x, size_t size, size_t mem, int (*cmp)(const void *, const void *));
void xsort_push(struct xsort *x, const void *rec);
/* No more records: sorted (and merged) for reading. */
void xsort_done(struct xsort *x);
static inline size_t xsort_len(const struct xsort *x)
{
	return x->total;
}
/* Record i (< xsort_len), after xsort_done; valid until the next call. */
const void *xsort_at(struct xsort *x, size_t i);
void xsort_free(struct xsort *x);

#endif

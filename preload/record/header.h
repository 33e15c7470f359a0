/* The first and last lines of a trace file (docs/trace-format.md). */
#ifndef PW_HEADER_H
#define PW_HEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "peerwatch/drop_causes.h"

/* At most this many entries of "repeats_by" (8 in a compact footer). */
#define PW_FOOTER_REPEATS_MAX 64

/* Why an event made is not in the file (the footer's "dropped_by"):
 * enum pw_drop_cause, PW_DROP_<ID> of each cause. */
const char *pw_drop_cause_name(int cause);

/* What the file says about itself in its footer (docs/trace-format.md). */
struct pw_trace_stats {
	uint64_t events;     /* event lines in the file */
	uint64_t violations; /* of which "type":"violation" */
	uint64_t dropped_by[PW_DROP_N];
	bool limited; /* max_trace_mb stopped call events */
	uint64_t limit_bytes, limit_seq, limit_t_ns;
	char write_error[200]; /* "ENOSPC: No space left on device", or "" */
};

/*
 * What the rooms above the trace add to its footer ("repeats" through
 * "suppressions" in docs/trace-format.md: the findings counted and not
 * reported again, the suppressions that matched), as JSON members ready to
 * go in, in full and compact; and the findings in words, for the line
 * logged when the trace is written.  Whoever ends the trace fills it
 * (rules/report.c's pw_report_footer) and passes it to pw_trace_finish:
 * the footer allocates nothing, and reads nothing of a room above its own.
 */
#define PW_FOOTER_IN_BYTES (512u * 1024)
struct pw_footer_in {
	char full[PW_FOOTER_IN_BYTES]; /* "repeats":..,...,"suppressions":[..] */
	char compact[4096];            /* the same, 8 repeats, no "suppressions" list */
	char counts[300];              /* "2 errors, 1 warning": report.h */
};

/* A malloc'd single-line JSON object, or NULL. */
char *pw_header_json(void);
/* The footer into buf (no newline, no NUL): its length, 0 if it does not fit
 * in cap.  Allocates nothing (it may run in exit() from a signal handler).
 * A compact footer leaves out the lists that can be long (modules,
 * suppressions): it is the one written when a full disk or a file-size limit
 * leaves little room, or when the full one does not fit. */
size_t pw_footer_write(char *buf, size_t cap, const struct pw_trace_stats *s, const char *why, bool compact,
                       const struct pw_footer_in *in);

/* pthread_atfork handlers: no fork while the writer lists the modules. */
void pw_header_fork_prepare(void);
void pw_header_fork_parent(void);
void pw_header_fork_child(void);

#endif

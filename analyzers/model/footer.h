/*
 * What a trace says about itself in its footer beyond the counts the reader
 * keeps (docs/trace-format.md, Footer): events dropped by cause, findings
 * counted as repeats, where the size limit stopped recording, why writing
 * stopped, why stderr was given up.  info and summary show them.
 */
#ifndef AN_FOOTER_H
#define AN_FOOTER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "read/trace.h"

struct an_footer {
	bool ok;                    /* the footer was read again */
	uint64_t repeats;           /* findings counted, not written */
	json_t *repeats_by;         /* [{"rule","site","count"}], or NULL */
	json_t *dropped_by;         /* {"cause": n}, or NULL */
	json_t *suppressed_default; /* {"name": n}: findings each default suppression took, or NULL */
	bool limited;               /* max_trace_mb stopped call events */
	int64_t limit_bytes, limit_seq;
	char *write_error;  /* "ENOSPC: No space left on device", or NULL */
	char *report_error; /* why stderr was given up, or NULL */
};

/* f's footer as the reader kept it; ft->ok false when the file has none. */
void an_footer_read(const struct pw_file *f, struct an_footer *ft);
void an_footer_free(struct an_footer *ft);
/* "disk full", "file-size limit reached", "write error", for an errno name. */
const char *an_write_error_words(const char *write_error);
/* Where the findings of a default suppression come from ("libnccl.so"), or
 * "a third-party library" for a name this analyzer does not know. */
const char *an_default_suppression_library(const char *name);
/* The events f's footer says were lost, in words into buf ("1,234 of
 * 50,000 events dropped: the writer was behind"; "" when none was), and
 * how many: every cause of "dropped_by" but in_flight_at_exit, the calls
 * other threads were recording when the trace ended, which lose no finding
 * (include/peerwatch/drop_causes.h); *in_flight gets those.  buf may be
 * NULL. */
uint64_t an_drops(const struct pw_file *f, char *buf, size_t cap, uint64_t *in_flight);
/* The footer's members as JSON (nulls where absent), added to obj. */
void an_footer_json(const struct an_footer *ft, json_t *obj);

#endif

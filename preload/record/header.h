/* The first and last lines of a trace file (docs/trace-format.md). */
#ifndef PW_HEADER_H
#define PW_HEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "record/trace.h"

/* At most this many entries of "repeats_by" (8 in a compact footer). */
#define PW_FOOTER_REPEATS_MAX 64

/* A malloc'd single-line JSON object, or NULL. */
char *pw_header_json(void);
/* The footer into buf (no newline, no NUL): its length, 0 if it does not fit
 * in cap.  Allocates nothing (it may run in exit() from a signal handler).
 * A compact footer leaves out the lists that can be long (modules,
 * suppressions): it is the one written when a full disk or a file-size limit
 * leaves little room, or when the full one does not fit. */
size_t pw_footer_write(char *buf, size_t cap, const struct pw_trace_stats *s, const char *why, bool compact);

/* pthread_atfork handlers: no fork while the writer lists the modules. */
void pw_header_fork_prepare(void);
void pw_header_fork_parent(void);
void pw_header_fork_child(void);

#endif

/*
 * The trace writer: per-thread buffers on the hot path, one background
 * thread that drains them into <out>/<host>.<pid>.pw.jsonl.partial, renamed
 * without .partial when the process ends cleanly.
 */
#ifndef PW_TRACE_H
#define PW_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/header.h"
#include "record/jsonw.h"

/* Largest single event line; longer events are dropped and counted. */
#define PW_EVENT_MAX 8192

struct pw_thread;

/*
 * Start writing one event: returns a JSON writer over the calling thread's
 * buffer, or false when tracing is off.  Must be followed by
 * pw_trace_event_end() on the same thread.
 */
bool pw_trace_event_begin(struct pw_jw *w);
/* Publish the event written into w (a JSON object, no newline). */
void pw_trace_event_end(struct pw_jw *w);
/* The same for a finding's violation event: one cut off by the end of the
 * trace is counted as finding_in_flight_at_exit, not as a call in flight. */
bool pw_trace_finding_begin(struct pw_jw *w);
void pw_trace_finding_end(struct pw_jw *w);

/*
 * A call's binary record instead (record.h) goes in through
 * pw_record_call and pw_record_call_folded (and pw_fold_grow, for the
 * calls folded into a runtime call), which this file defines: room
 * in the calling thread's buffer, the record written, published; dropped and
 * counted when the writer is behind.  The writer decodes records into lines
 * (pw_record_decode_span).
 */

/* Process life cycle (init.c calls these). */
void pw_trace_init(void); /* from the constructor: no I/O */
/* Flush, footer, rename; once.  Safe with any number of threads still
 * calling: what they finish after this is not in the file (the footer
 * counts what was in flight).  A second caller waits for the first.  in:
 * what the rooms above add to the footer (header.h), or NULL for none. */
void pw_trace_finish(const char *why, const struct pw_footer_in *in);
void pw_trace_after_fork_child(void);
/* pthread_atfork: fork waits until the writer thread is between rounds. */
void pw_trace_fork_prepare(void);
void pw_trace_fork_parent(void);
void pw_trace_after_failed_exec(void);

/* A function the writer thread runs every round (final=false) and that
 * pw_trace_finish runs once before the footer (final=true). */
void pw_trace_set_tick(void (*fn)(bool final));
/* Asks the writer thread for a round now; false when none runs nor is
 * being started.  Async-signal-safe (an exit handler may run in the
 * program's signal handler). */
bool pw_trace_wake_writer(void);

/* After a wrapper's real call: the caller's stack (stacks=all), then the
 * record (call.h). */
struct pw_call;
void pw_event_post(struct pw_call *c);

/* Count n events dropped for cause (while tracing is on). */
void pw_trace_drop(int cause, uint64_t n);
const char *pw_trace_path(void); /* final path of this process's trace, "" if none */
/* False once no trace is kept: none could be made, or writing it stopped
 * (pw_disable said why); records are then no longer made. */
bool pw_trace_kept(void);

#endif

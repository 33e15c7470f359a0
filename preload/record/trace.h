/*
 * The trace writer: per-thread buffers on the hot path, one background
 * thread that drains them into <out>/<host>.<pid>.pw.jsonl.partial, renamed
 * without .partial when the process ends cleanly.
 */
#ifndef PW_TRACE_H
#define PW_TRACE_H

#include <stddef.h>
#include <stdint.h>

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
 * counts what was in flight).  A second caller waits for the first. */
void pw_trace_finish(const char *why);
void pw_trace_after_fork_child(void);
/* pthread_atfork: fork waits until the writer thread is between rounds. */
void pw_trace_fork_prepare(void);
void pw_trace_fork_parent(void);
void pw_trace_after_failed_exec(void);

/* A function the writer thread runs every round (final=false) and that
 * pw_trace_finish runs once before the footer (final=true). */
void pw_trace_set_tick(void (*fn)(bool final));

/* Why an event made is not in the file (the footer's "dropped_by"). */
enum pw_drop_cause {
	PW_DROP_WRITER_BEHIND,     /* no buffer: the writer thread fell behind or stopped */
	PW_DROP_NO_MEMORY,         /* no memory for a thread's record or buffer */
	PW_DROP_TOO_LONG,          /* one event longer than PW_EVENT_MAX - 1 bytes */
	PW_DROP_AFTER_THREAD_EXIT, /* made in a thread's TLS destructors, after its buffer was handed over */
	PW_DROP_IN_FLIGHT,         /* being recorded when the trace was finished (exit, exec, ...) */
	PW_DROP_SIZE_LIMIT,        /* a call or other event past max_trace_mb */
	PW_DROP_WRITE_ERROR,       /* writing the file failed (full disk, file-size limit, I/O error) */
	PW_DROP_SIGNAL_HANDLER,    /* a signal handler's call while its thread was writing a record */
	PW_DROP_N
};
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

uint64_t pw_trace_dropped(void);
/* Count n events dropped for cause (while tracing is on). */
void pw_trace_drop(int cause, uint64_t n);
const char *pw_trace_path(void); /* final path of this process's trace, "" if none */

#endif

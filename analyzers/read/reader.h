/*
 * The one streaming reader of peerwatch traces (docs/trace-format.md).
 *
 * It finds trace files, reads each line by line with a bound on the line
 * length, validates every line (traces are untrusted input), and hands the
 * events, as typed and checked structs, to the report modules ("sinks").
 * Files are read in parallel by worker threads (-j); a large file is split
 * into chunks at line starts and read by all of them, when no sink keeps
 * state per file.  When one does, a large file is still read by all of
 * them: one worker hands its events to the sinks in the file's order while
 * the others parse its later segments into batches, a bounded number
 * ahead (reader.c, "a file read whole, in segments").  Nothing of an event outlives the callback it is handed
 * to, so memory does not grow with the number of events beyond what a
 * report keeps.
 *
 * Reports are map/reduce shaped: each worker owns a partial state per sink
 * (partial_new), fills it from what that worker reads, and the partials are
 * merged into the report (partial_merge) when reading is done.  A report
 * therefore never takes a lock, and must not depend on which worker read
 * which file: reports sort what they print.
 *
 * Order.  Lines of one file are not in time order (threads interleave, a
 * nested call is written before its parent), so the reader does not pretend
 * to merge streams: a report that needs order keeps compact records of the
 * events it needs and sorts them, per host by t_ns or per process by seq.
 * A report that must know something about a whole file before it can use
 * the file's events (the seqs that violations point at, the peer-access
 * changes a copy is judged against) asks for a pre-phase: the worker first
 * scans that file for lines holding one of the report's pre_keys (a
 * substring test on the raw line, no JSON parse for the others) and hands those to
 * pre_event, then reads the whole file again for event.  A report that must
 * know something of every file before it reads any file's events (the IPC
 * exports an open is judged against) asks for pre_all_done: the run then
 * reads every file's pre-phase first, in a stage of its own.
 */
#ifndef PW_AN_READER_H
#define PW_AN_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "read/trace.h"

struct pw_read_opts {
	int jobs;      /* worker threads; 0: one per online CPU */
	bool strict;   /* the first bad line ends the run */
	bool quiet;    /* count bad lines but print nothing (a second read) */
	bool progress; /* show progress on stderr (the caller checked isatty) */
};

struct pw_sink_ops {
	void *(*partial_new)(void *report);
	/* Merges a partial into the report and frees it. */
	void (*partial_merge)(void *report, void *partial);
	/* Per file, after its header: returns the report's per-file state or NULL. */
	void *(*file_begin)(void *partial, const struct pw_file *f);
	/* Optional pre-phase: the lines in which any of these strings occurs
	 * (NULL-terminated) are parsed and given to pre_event.  A test on the
	 * raw line, for all sinks in one pass (base/util.h, needles): a line
	 * pre_event wants must hold one of them as the library writes it. */
	const char *const *pre_keys;
	void (*pre_event)(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev);
	void (*event)(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev);
	/* After the file's last line (the footer, if any, is in f); frees fctx. */
	void (*file_end)(void *partial, void *fctx, const struct pw_file *f);
	/* Wants ev->parent_recorded in event: the reader gathers the seqs of
	 * the file's calls from its raw lines before the event phase — in the
	 * pre-phase's own pass, where a run has one, so that pre_event sees
	 * parent_recorded false (the seqs are still coming) unless some sink
	 * asks for pre_nesting, which costs a pass of its own. */
	bool nesting;
	bool pre_nesting;
	/* Optional: the file's pre-phase is over; seqs are the seqs of its
	 * calls when the run follows nesting (seqset_has). */
	void (*pre_done)(void *partial, void *fctx, const struct pw_file *f, const struct seqset *seqs);
	/* Optional: wants every file's pre-phase over before any file's event
	 * phase.  The run then reads in two stages — the pre-phases of all
	 * files, then their event phases, each file's state (fctx, seqs) kept
	 * between them — and calls this once between the stages, on the calling
	 * thread, with every worker's partial.  What it builds in the report is
	 * read-only in the event phase; the files' device lines are all in by
	 * then and do not change. */
	void (*pre_all_done)(void *report, void *const *partials, size_t n, const struct pw_input *in);
	/* pre_event acts on a call line that has an op only by its op, and only
	 * for ops one of pre_keys names as the op's value ("\"free\"",
	 * "\"op\":\"ipc_open\""); its other keys are for lines of other types
	 * and for traces written before calls had an op.  Then a call line as
	 * the library writes it is given to it by its op, from a table made
	 * once, not by a search of the whole line for its keys. */
	bool pre_by_op;
	/* With pre_by_op: the ops (NULL-ended names) whose call lines it wants
	 * only when one of pre_also_keys (among pre_keys, each starting with a
	 * quote; a few) is in the line — copies: a copy, for its "parent"
	 * member (a nested copy's device time is its parent's). */
	const char *const *pre_also_ops;
	const char *const *pre_also_keys;
};

/* Whether a sink's pre_by_op is taken (PEERWATCH_ANALYZE_PARSE=keys turns
 * it off, for comparing: every line searched for every key). */
extern bool pw_pre_by_op;

/* Reads and validates every line and keeps nothing: for info, and for a
 * first pass that only needs the files' own facts. */
extern const struct pw_sink_ops pw_sink_validate_only;

struct pw_sink {
	const struct pw_sink_ops *ops;
	void *report;
};

/* Results of pw_input_find (files.h) and pw_input_read, worst first. */
enum { PW_READ_OK = 0, PW_READ_BAD_INPUT = 1, PW_READ_FATAL = 2 };

/* Reads every file once, handing its events to the sinks. */
int pw_input_read(struct pw_input *in, const struct pw_read_opts *o, struct pw_sink *sinks, size_t nsinks);

#endif

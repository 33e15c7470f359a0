/*
 * The one streaming reader of peerwatch traces (docs/trace-format.md).
 *
 * It finds trace files, reads each line by line with a bound on the line
 * length, validates every line (traces are untrusted input), and hands the
 * events, as typed and checked structs, to the report modules ("sinks").
 * Files are read in parallel by worker threads (-j); a large file is split
 * into chunks at line starts and read by all of them, when no sink keeps
 * state per file.  Nothing of an event outlives the callback it is handed
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
 * scans that file for lines the report's pre_filter accepts (a substring
 * test on the raw line, no JSON parse for the others) and hands those to
 * pre_event, then reads the whole file again for event.
 */
#ifndef PW_AN_READER_H
#define PW_AN_READER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

/* Longest line accepted; a header with a long module list is ~10 KiB, an
 * event at most 8 KiB (the writer drops longer ones). */
#define PW_MAX_LINE (1u << 20)
/* The trace format version this reader knows: PW_FORMAT_VERSION, the
 * library's own (one definition for both). */
#include "peerwatch/trace_format.h"
/* A device member that is null or absent. */
#define PW_DEV_NONE INT64_MIN

enum pw_ev_type { PW_EV_CALL, PW_EV_VIOLATION, PW_EV_GPU_TIME };

struct pw_event {
	enum pw_ev_type type;
	uint64_t line;
	json_t *root; /* the whole line, valid only during the callback */
	/* call (a violation may have api too: its call's) */
	uint64_t seq;
	int64_t tid;
	const char *vendor, *api, *variant, *family;
	const char *op;       /* what the call does ("ipc_open"): its "op", or in a trace written before
	                         "op", the op of its api (pw_op_of_api); NULL when neither says */
	const char *ret_name; /* NULL when null */
	int64_t t_ns, dur_ns, ret;
	bool has_parent;
	uint64_t parent;
	bool parent_time; /* "parent_time": t_ns and dur_ns are the parent's, not its own */
	/* the parent is a call recorded in the same file: set only for sinks of
	 * a run where one asks for `nesting`; such an event is counted through
	 * its parent (a runtime call and the driver calls it made are one call) */
	bool parent_recorded;
	const char *layer; /* "runtime" for the CUDA runtime layer, NULL when absent */
	bool implicit;     /* a copy the program did not name as one (cross-device) */
	int64_t cur_dev;   /* PW_DEV_NONE when null or absent */
	json_t *args;
	/* violation (seq is its own number; t_ns and tid when it has them) */
	bool has_time;
	bool has_call; /* false for a finding made outside any call (at exit) */
	uint64_t call;
	const char *rule, *severity, *message;
	/* gpu_time (call is the call's seq) */
	uint64_t gpu_ns;
	/* call and violation: raw return addresses, possibly none */
	const uint64_t *stack;
	size_t nstack;
};

struct pw_module {
	char *path;
	uint64_t base;
	char *build_id; /* NULL when null */
};

/* What a "device" line says of a pair: the device and one of its peers. */
struct pw_peer_info {
	int64_t ordinal;
	int64_t can_access; /* -1: null */
	char *link;         /* "nvlink", "nvswitch", "pcie", "unknown" */
	int64_t nvlinks;    /* -1: null */
	char *topology;     /* NULL when null */
	char *p2p_read;     /* NULL when null */
};

/* One device of one process, from its "device" line. */
struct pw_device {
	char vendor[8];
	int64_t ordinal;
	char *uuid, *bus_id, *name; /* NULL when null */
	int64_t physical_id;        /* -1 when absent */
	struct vec peers;           /* struct pw_peer_info */
};

/* One trace file: one program image of one process. */
struct pw_file {
	size_t index; /* in pw_input.files, sorted by path */
	char *path;   /* as found; print with sanitize() */
	bool partial; /* named .partial: the process did not finish its trace */
	/* header */
	bool header_ok;
	char *host;
	int64_t pid, ppid;
	bool has_rank;
	int64_t rank;
	char **argv;
	size_t argc;
	int64_t t0_mono_ns, t0_real_ns;
	char *options; /* the options object as compact JSON */
	char *mode, *pw_version;
	char *driver_lib;
	bool has_driver_version;
	int64_t driver_version;
	char *vendors;      /* the header's "vendors" object as compact JSON, or NULL */
	char *run_id;       /* the header's run_id, or NULL */
	struct vec modules; /* struct pw_module: the header's, then the footer's new ones */
	char *environment;  /* the header's "environment" as compact JSON, or NULL */
	struct vec devices; /* struct pw_device: the "device" lines (devices.h) */
	/* footer */
	bool footer;
	int64_t footer_events, dropped, t_end_ns;
	int64_t footer_violations, suppressed; /* -1: not in the footer */
	int64_t repeats;                       /* -1: not in the footer */
	bool has_t_end;                        /* the footer has t_end_ns */
	char *reason;
	char *dropped_by;            /* the footer's "dropped_by" object as compact JSON, or NULL */
	char *repeats_by;            /* the footer's "repeats_by" array as compact JSON, or NULL when empty */
	char *suppressed_by_default; /* {"name": hits} of the default suppressions that took
	                                findings (footer "suppressions"), compact JSON, or NULL */
	char *write_error;           /* the footer's "write_error", or NULL */
	char *report_error;          /* the footer's "report_error", or NULL */
	bool has_limit;              /* the footer's "limit": the size limit stopped recording */
	int64_t limit_bytes, limit_seq, limit_t_ns;
	/* what the last read found */
	uint64_t lines, events, calls, violations, gpu_times, unknown, bad_lines;
	bool tail_cut; /* a last line without its newline */
	bool any_t;
	int64_t first_t_ns, last_t_ns;
	char *unreadable; /* why the file could not be read at all, or NULL */
};

struct pw_input {
	struct pw_file *files;
	size_t n;
};

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
	/* Optional pre-phase: lines it accepts are parsed and given to pre_event. */
	bool (*pre_filter)(const char *line, size_t len);
	void (*pre_event)(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev);
	void (*event)(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev);
	/* After the file's last line (the footer, if any, is in f); frees fctx. */
	void (*file_end)(void *partial, void *fctx, const struct pw_file *f);
	/* Wants ev->parent_recorded (in pre_event and event): the reader first
	 * scans the file's raw lines for the seqs of its calls. */
	bool nesting;
};

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

/* Once, before any reading: jansson's hash seed and the per-thread parse
 * arena (validate.c).  Without it the reader works, with plain malloc. */
void pw_reader_init(void);
/* A reading thread that ends frees its arena. */
void pw_reader_thread_done(void);

/* Parses and validates one line without a file (the fuzz target, the unit
 * tests): the kind of line, *ev filled for an event; the caller must
 * json_decref(*root) before the thread parses its next line (the objects
 * live in the thread's arena).  PW_LINE_BAD: a message in err. */
enum pw_line_kind {
	PW_LINE_BAD,
	PW_LINE_HEADER,
	PW_LINE_FOOTER,
	PW_LINE_EVENT,
	PW_LINE_DEVICE,
	PW_LINE_OTHER
};
enum pw_line_kind pw_parse_line(const char *line, size_t len, struct pw_event *ev, struct vec *stack,
                                json_t **root, char *err, size_t errlen);
/* Header and footer members into the file; -1 with a message when invalid. */
int pw_file_header(struct pw_file *f, json_t *root, char *err, size_t errlen);
int pw_file_footer(struct pw_file *f, json_t *root, char *err, size_t errlen);
/* A "device" line into f->devices (a second line for the same vendor and
 * ordinal replaces the first); -1 with a message when invalid. */
int pw_file_add_device(struct pw_file *f, json_t *root, char *err, size_t errlen);
void pw_devices_free(struct vec *devices);
void pw_file_clear(struct pw_file *f);

/* An unsigned member of a validated event: a non-negative integer, or one
 * beyond 2^63-1 (which jansson cannot hold; validate.c keeps it aside). */
bool pw_json_u64(const json_t *v, uint64_t *out);
/* Is v such a number beyond 2^63-1? */
bool pw_json_is_big(const json_t *v);

/* Arguments of a validated call (types were checked by the reader). */
bool pw_arg_u64(const struct pw_event *ev, const char *key, uint64_t *out);
bool pw_arg_i64(const struct pw_event *ev, const char *key, int64_t *out);
bool pw_arg_hex(const struct pw_event *ev, const char *key, uint64_t *out);
int64_t pw_arg_dev(const struct pw_event *ev, const char *key);
const char *pw_arg_str(const struct pw_event *ev, const char *key);
/* An IPC handle's 128 hex digits, lowercased, into out[129]. */
bool pw_arg_handle(const struct pw_event *ev, const char *key, char out[129]);

/* cuda, hip, acl: the vendors of the trace format; a call of another is a bad line. */
bool pw_vendor_known(const char *vendor);

/* The op of a hooked function by its API name ("cuMemcpyPeerAsync" ->
 * "peer_copy"), from the hook tables; NULL for a name none has
 * (read/apiop.c).  For traces written before events had "op". */
const char *pw_op_of_api(const char *api);

/* "calls" (argv[0]'s base name), or "?" */
const char *pw_file_program(const struct pw_file *f);

#endif

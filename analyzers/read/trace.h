/*
 * A trace as the reports read it (docs/trace-format.md): its files, with
 * what their header, device lines and footer say, and its events, typed
 * and validated by the reader (parse.h, schema.h), so that a report reads
 * their members without checking them again.
 */
#ifndef PW_AN_TRACE_H
#define PW_AN_TRACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

/* The trace format version this reader knows: PW_FORMAT_VERSION, the
 * library's own (one definition for both). */
#include "peerwatch/trace_format.h"
/* A device member that is null or absent. */
#define PW_DEV_NONE INT64_MIN

enum pw_ev_type { PW_EV_CALL, PW_EV_VIOLATION, PW_EV_GPU_TIME, PW_EV_UM };

/* A "um" line's "kind" (docs/trace-format.md, Unified-memory event). */
enum pw_um_kind {
	PW_UM_HTOD,
	PW_UM_DTOH,
	PW_UM_DTOD,
	PW_UM_CPU_FAULT,
	PW_UM_GPU_FAULT,
	PW_UM_THRASHING,
	PW_UM_THROTTLING,
	PW_UM_REMOTE_MAP,
	PW_UM_KINDS
};
/* Its "cause": a migration's or a remote map's (PW_UMC_NONE: absent). */
enum pw_um_cause {
	PW_UMC_NONE,
	PW_UMC_USER,
	PW_UMC_COHERENCE,
	PW_UMC_PREFETCH,
	PW_UMC_EVICTION,
	PW_UMC_ACCESS_COUNTERS,
	PW_UMC_THRASHING,
	PW_UMC_POLICY,
	PW_UMC_OUT_OF_MEMORY,
	PW_UMC_UNKNOWN,
	PW_UMC_COUNT
};
/* A GPU fault's "access" (PW_UMA_NONE: absent). */
enum pw_um_access {
	PW_UMA_NONE,
	PW_UMA_READ,
	PW_UMA_WRITE,
	PW_UMA_ATOMIC,
	PW_UMA_PREFETCH,
	PW_UMA_UNKNOWN,
	PW_UMA_COUNT
};

/* A processor of a um event: a device ordinal of the process, or the CPU. */
#define PW_UM_CPU (-1)
/* "procs" as a mask: bit 0 the CPU, bit d+1 device d (devices past 62 are
 * not in it). */
#define PW_UM_PROC_BIT(p) ((p) < 0 ? 1ull : (p) < 63 ? 1ull << ((p) + 1) : 0)

/* The strings of the enums above ("htod", "coherence", "write"). */
const char *pw_um_kind_name(enum pw_um_kind k);
const char *pw_um_cause_name(enum pw_um_cause c);
const char *pw_um_access_name(enum pw_um_access a);

struct pw_um {
	enum pw_um_kind kind;
	bool has_end, has_proc, has_src, has_dst, has_bytes, has_groups;
	int32_t proc, src, dst; /* PW_UM_CPU or a device ordinal, when has_* */
	int64_t end_ns;         /* when has_end; never before t_ns */
	uint64_t addr, bytes, groups, procs;
	enum pw_um_cause cause;
	enum pw_um_access access;
};

struct pw_event {
	enum pw_ev_type type;
	uint64_t line;
	json_t *root; /* the whole line, valid only during the callback; NULL for a call read by
	                 the fast path (parse.h): read its members with the accessors below */
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
	const char *layer;          /* "runtime" for the CUDA runtime layer, NULL when absent */
	bool implicit;              /* a copy the program did not name as one (cross-device) */
	int64_t cur_dev;            /* PW_DEV_NONE when null or absent */
	json_t *args;               /* read it with pw_ev_args (or the pw_arg_* of one member): NULL for a
	                               call the fast path read until something asks */
	const struct pw_flat *flat; /* such a call's tokens (scan.h), NULL otherwise */
	size_t flat_args;           /* the index of its args object there */
	size_t flat_supp;           /* ... of its "suppressed" array, PW_FLAT_NONE when it has none */
	/* violation (seq is its own number; t_ns and tid when it has them) */
	bool has_time;
	bool has_call; /* false for a finding made outside any call (at exit) */
	uint64_t call;
	const char *rule, *severity, *message;
	/* gpu_time (call is the call's seq) */
	uint64_t gpu_ns;
	/* um (t_ns is its start) */
	struct pw_um um;
	/* call and violation: raw return addresses, possibly none */
	const uint64_t *stack;
	size_t nstack;
};

#define PW_FLAT_NONE SIZE_MAX

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
	char *suppressions;          /* the footer's "suppressions" (each that matched, with its
	                                line, text and hits) as compact JSON, or NULL when none */
	char *write_error;           /* the footer's "write_error", or NULL */
	char *report_error;          /* the footer's "report_error", or NULL */
	int64_t um_events, um_lost;  /* the footer's, -1 when absent */
	char *um_off;                /* the footer's "um_off": why there are no um events, or NULL */
	bool has_limit;              /* the footer's "limit": the size limit stopped recording */
	int64_t limit_bytes, limit_seq, limit_t_ns;
	/* what the last read found */
	uint64_t lines, events, calls, violations, gpu_times, ums, unknown, bad_lines;
	bool tail_cut; /* a last line without its newline */
	bool any_t;
	int64_t first_t_ns, last_t_ns;
	char *unreadable; /* why the file could not be read at all, or NULL */
};

struct pw_input {
	struct pw_file *files;
	size_t n;
};

/* A call's args as JSON (types were checked by the reader): for a call the
 * fast path read, built on the first ask from its tokens, and valid until
 * the thread's next line, as the rest of the event. */
json_t *pw_ev_args(const struct pw_event *ev);
/* Drops the args built for the thread's last line (the parse calls it). */
void pw_ev_args_done(void);

/* Entry i of a call's "suppressed" array: false past its end (or when it
 * has none); *out is NULL for an entry that is no string. */
bool pw_ev_suppressed(const struct pw_event *ev, size_t i, const char **out);

/* Arguments of a validated call (types were checked by the reader). */
/* Whether args has key, and it is an array. */
bool pw_arg_is_array(const struct pw_event *ev, const char *key);
bool pw_arg_u64(const struct pw_event *ev, const char *key, uint64_t *out);
bool pw_arg_i64(const struct pw_event *ev, const char *key, int64_t *out);
bool pw_arg_hex(const struct pw_event *ev, const char *key, uint64_t *out);
int64_t pw_arg_dev(const struct pw_event *ev, const char *key);
const char *pw_arg_str(const struct pw_event *ev, const char *key);
/* An IPC handle's 128 hex digits, lowercased, into out[129]. */
bool pw_arg_handle(const struct pw_event *ev, const char *key, char out[129]);

/* A location object (args.location: CUmemLocation, hipMemLocation), read
 * without building the args: its "type" as a string (NULL when it is none)
 * or as an integer (type_num, 0 when it is none), its "id" (0 when it is no
 * integer).  False when args has no location object. */
struct pw_location {
	const char *type;
	int64_t type_num;
	bool has_id;
	int64_t id;
};
bool pw_arg_location(const struct pw_event *ev, struct pw_location *out);

/* "calls" (argv[0]'s base name), or "?" */
const char *pw_file_program(const struct pw_file *f);

/* cuda, hip, acl: the vendors of the trace format; a call of another is a bad line. */
bool pw_vendor_known(const char *vendor);

void pw_device_free(struct pw_device *d);
void pw_devices_free(struct vec *devices);
/* Everything a read fills in, so that a second read starts clean. */
void pw_file_clear(struct pw_file *f);

#endif

/*
 * Internal declarations shared by the files of libpeerwatch.so.
 *
 * Everything here has hidden visibility (the library is built with
 * -fvisibility=hidden); the only symbols the library exports are the hooks
 * declared with PW_EXPORT.
 */
#ifndef PW_H
#define PW_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_EXPORT __attribute__((visibility("default")))
#define PW_TLS __thread __attribute__((tls_model("initial-exec")))
#define PW_LIKELY(x) __builtin_expect(!!(x), 1)
#define PW_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum pw_mode { PW_MODE_OBSERVE, PW_MODE_WARN, PW_MODE_ENFORCE };
enum pw_stacks { PW_STACKS_NONE, PW_STACKS_VIOLATIONS, PW_STACKS_ALL };
/* gpu_timing: off, a pair of timing events around each timed call, CUPTI's copy records. */
enum pw_gpu_timing { PW_GT_NONE, PW_GT_EVENTS, PW_GT_CUPTI };

/* Exit status when enforcement was asked for but the options are unusable. */
#define PW_EXIT_BAD_OPTIONS 64 /* EX_USAGE, sysexits.h */

/* A path option holds any path the system takes: PATH_MAX bytes with the
 * terminating NUL.  A longer value is a bad option, said so. */
#define PW_PATH_CAP PATH_MAX

struct pw_options {
	char out[PW_PATH_CAP];      /* trace directory, expanded for this process (launch.h) */
	char out_tmpl[PW_PATH_CAP]; /* as given: a forked child expands it again; "": none */
	char ranks[256];            /* trace only these ranks (launch.h); empty: all */
	int color;                  /* enum pw_color (color.h): the reports' colour */
	enum pw_mode mode;
	int verbosity;       /* 0 errors only, 1 +startup/summary lines, 2 +debug */
	size_t buffer_bytes; /* per-thread buffer size */
	int help;            /* help=1: list the options at start */
	int halt_on;         /* enforce: stop at findings of this severity or worse (PW_SEV_*) */
	int exitcode;        /* enforce: exit with it instead of abort() when non-zero */
	enum pw_stacks stacks;
	int stack_depth;
	char log_path[PW_PATH_CAP];     /* reports to <log_path>.<pid> instead of stderr */
	char suppressions[PW_PATH_CAP]; /* suppressions file */
	int default_suppressions;       /* the default suppressions on */
	int registry;                   /* cross-process IPC registry on */
	int gpu_timing;                 /* device-side timing of asynchronous copies (PW_GT_*) */
	int um_counters;                /* CUPTI's unified-memory counters as um events */
	char cupti[PW_PATH_CAP];        /* the libcupti to load, "" to look for it */
	uint64_t max_trace_mb;          /* call events stop at this many MiB of trace; 0: no limit */
};

/* The process-wide state that every file may read. */
struct pw_global {
	struct pw_options opt;
	/* The wrappers do their work: true from the end of the constructor
	 * until the trace is finished.  A trace that cannot be kept (pw_disable)
	 * leaves it on in warn and enforce mode, whose wrappers go on checking
	 * every call; in observe mode, where tracing is all there is, it turns
	 * off and every call goes straight through. */
	atomic_bool enabled;
	/* the last sequence number of the blocks handed out (pw_seq_next): on a
	 * cache line of its own, so that threads taking blocks do not also
	 * evict `enabled` from each other's caches */
	_Alignas(64) atomic_uint_fast64_t seq;
	char seq_line_[64 - sizeof(atomic_uint_fast64_t)];
	uint64_t t0_mono_ns, t0_real_ns;
	/* the IPC registry is open (state/registry.c sets it; the header says it) */
	atomic_bool registry_active;
};
extern struct pw_global pw_g;

/* Per-thread state reached through one TLS pointer plus small counters. */
struct pw_thread;
extern PW_TLS int pw_tls_internal;    /* >0: peerwatch itself is calling the runtime */
extern PW_TLS uint64_t pw_tls_parent; /* seq of the hooked call this thread is inside, 0 if none */
/* The findings a suppression took on this thread's call `seq` (its call
 * event lists them as "suppressed"): report.c fills it, event.c reads it. */
#define PW_SUPPRESSED_MAX 4
struct pw_suppressed_mark {
	uint64_t seq;
	int n;
	int rule[PW_SUPPRESSED_MAX];
};
extern PW_TLS struct pw_suppressed_mark pw_tls_suppressed;
extern PW_TLS long pw_tls_tid; /* cached gettid(), 0 until asked */
/* >0 while this thread is inside a hooked call of a library that sits over
 * another hooked one (the CUDA runtime over the driver): the calls it makes
 * below are traced (with "parent") but neither checked nor fed to the state
 * model, which the call above updates once. */
extern PW_TLS int pw_tls_upper;
/* The traced call of each vendor's runtime (PW_VENDOR_*, a vendor with
 * last_error: vendor.h) that last returned an error on this thread: its
 * API, its event's seq, the code and the program's call site.  Written by
 * the wrapper on the error path only; api NULL: none, or a getter that
 * resets the error (cudaGetLastError) ran since.  next: the seq this
 * thread's next traced call takes if nothing else takes one first (0:
 * not known, at the end of a block): a getter of that seq asks right
 * after the call, which returned the error itself. */
struct pw_left {
	const char *api;
	uint64_t seq, next;
	int64_t code;
	uintptr_t site;
};
#define PW_LEFT_VENDORS 3 /* PW_VENDOR_COUNT (core/hooks.h) */
extern PW_TLS struct pw_left pw_tls_left[PW_LEFT_VENDORS];

/*
 * Sequence numbers: unique in the process, increasing along each thread.
 * A thread takes them from the shared counter PW_SEQ_BLOCK at a time, so
 * that a call does not take the counter's cache line: measured on the
 * H100 host (tests/gpu/RESULTS.md, hostprobe), a relaxed fetch_add costs
 * 9 ns alone and 150 ns with 8 threads taking numbers at once, 7 ns in
 * blocks of 64; and its lock waits for the stores of the last record.
 * Between threads, numbers follow the order the blocks were taken, not
 * the order of the calls: t_ns orders those (docs/trace-format.md).
 *
 * A signal handler's traced call can come anywhere in its thread's call,
 * so a number is taken in one instruction (x86-64: xadd, without lock; a
 * plain ++ is a load and a store, and a handler's call between them took
 * the same number: the trace held two events with one seq).  The end of
 * the block is read before: a handler that moved the thread to a new block
 * in between leaves this call a number past the end it read, so it takes a
 * block of its own.  A refill stores next before end, and what a handler
 * leaves either way is a block or a gap, never a number handed out twice.
 */
#define PW_SEQ_BLOCK 64
extern PW_TLS uint64_t pw_tls_seq_next, pw_tls_seq_end;

uint64_t pw_seq_refill(void); /* globals.c */

static inline uint64_t pw_seq_next(void)
{
	/* read once (volatile: never read again after the xadd, when a handler
	 * may have moved it), and an input of the xadd: read before it */
	uint64_t end = *(volatile uint64_t *)&pw_tls_seq_end, v = 1;
#if defined(__x86_64__)
	__asm__ volatile("xaddq %0, %1 # end %2" : "+r"(v), "+m"(pw_tls_seq_next) : "r"(end));
#else /* one instruction with LSE; else a load/store-exclusive loop, which an interrupt restarts */
	atomic_signal_fence(memory_order_seq_cst);
	v = __atomic_fetch_add(&pw_tls_seq_next, 1, __ATOMIC_RELAXED);
#endif
	if (__builtin_expect(v < end, 1))
		return v;
	return pw_seq_refill();
}

uint64_t pw_now_ns(void);      /* CLOCK_MONOTONIC */
uint64_t pw_realtime_ns(void); /* CLOCK_REALTIME */
long pw_gettid(void);

/* log.c: one line to stderr prefixed "peerwatch[pid]: ", no stdio, no malloc,
 * control bytes in it escaped. */
void pw_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pw_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Tracing is off for good: says why, once, and keeps the reason for the
 * exit line (pw_disabled_why).  Checking goes on in warn and enforce mode;
 * in observe mode pw_g.enabled turns off.  The trace (record/trace.c)
 * stops making records itself. */
void pw_disable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Why tracing was turned off, NULL while it is on. */
const char *pw_disabled_why(void);
/* A forked child tries a trace of its own, and says so if it fails too. */
void pw_disable_after_fork(void);

/*
 * Writes into the program's files that cannot change its outcome (log.c).
 * SIGPIPE and SIGXFSZ are blocked around the write and the one the write
 * raised is taken back; a pipe, socket or terminal is never waited on longer
 * than PW_OUT_WAIT_MS.  Each returns 0, or -1 with errno.
 */
#define PW_OUT_WAIT_MS 1000
struct pw_sigguard {
	sigset_t old, pending;
};
void pw_sig_block(struct pw_sigguard *g);
void pw_sig_restore(struct pw_sigguard *g, int err);
/* A regular file: all of buf, *done (if not NULL) says how much got written. */
int pw_write_file(int fd, const void *buf, size_t len, size_t *done);
/* Any descriptor: a regular file as above, anything else without waiting long. */
int pw_write_out(int fd, const void *buf, size_t len);
/* stderr: off for good after its first failure, or when it was closed at start. */
void pw_log_init(void);
int pw_stderr_write(const char *buf, size_t len);
/* Why stderr is off (NULL while it works); *lost: messages not written. */
const char *pw_stderr_error(uint64_t *lost);
/* Copies n bytes of src (up to a NUL) into dst, control bytes and malformed
 * UTF-8 as \xNN; always NUL-terminated; returns the length written. */
size_t pw_escape(char *dst, size_t cap, const char *src, size_t n);
/* The length of the UTF-8 sequence of a non-ASCII byte at s (n bytes there),
 * 0 if it is malformed, overlong, a surrogate or a C1 control. */
size_t pw_utf8_len(const unsigned char *s, size_t n);
/* "ENOSPC" for ENOSPC, and so on for the errors a write can meet. */
const char *pw_errno_name(int e);

/* options.c */
int pw_options_parse(struct pw_options *o, const char *text, char *err, size_t errlen);
void pw_options_defaults(struct pw_options *o);
void pw_options_print_help(int fd);
/* Option i of the table (key, allowed values, default, help line); false past the last.
 * scripts/options-doc.c writes README's and peerwatch(1)'s lists from it. */
bool pw_options_entry(size_t i, const char **key, const char **values, const char **def, const char **help);
const char *pw_mode_name(enum pw_mode m);
/* "error", "warning", "performance": a rule's severity, and halt_on's. */
const char *pw_severity_name(int severity);

#endif

/*
 * Internal declarations shared by the files of libpeerwatch.so.
 *
 * Everything here has hidden visibility (the library is built with
 * -fvisibility=hidden); the only symbols the library exports are the hooks
 * declared with PW_EXPORT.
 */
#ifndef PW_H
#define PW_H

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

/* Exit status when enforcement was asked for but the options are unusable. */
#define PW_EXIT_BAD_OPTIONS 64 /* EX_USAGE, sysexits.h */

struct pw_options {
	char out[512]; /* trace directory */
	enum pw_mode mode;
	int verbosity;       /* 0 errors only, 1 +startup/summary lines, 2 +debug */
	size_t buffer_bytes; /* per-thread buffer size */
	int help;            /* help=1: list the options at start */
	int halt_on;         /* enforce: stop at findings of this severity or worse (PW_SEV_*) */
	int exitcode;        /* enforce: exit with it instead of abort() when non-zero */
	enum pw_stacks stacks;
	int stack_depth;
	char log_path[512];     /* reports to <log_path>.<pid> instead of stderr */
	char suppressions[512]; /* suppressions file */
	int registry;           /* cross-process IPC registry on */
	int gpu_timing;         /* device-side timing of asynchronous copies and prefetches */
};

/* The process-wide state that every file may read. */
struct pw_global {
	struct pw_options opt;
	/* false until the constructor ran and when tracing was turned off */
	atomic_bool enabled;
	/* last event sequence number handed out: on a cache line of its own, so
	 * that threads taking numbers do not also evict `enabled` from each
	 * other's caches */
	_Alignas(64) atomic_uint_fast64_t seq;
	char seq_line_[64 - sizeof(atomic_uint_fast64_t)];
	uint64_t t0_mono_ns, t0_real_ns;
};
extern struct pw_global pw_g;

/* Per-thread state reached through one TLS pointer plus small counters. */
struct pw_thread;
extern PW_TLS int pw_tls_internal;    /* >0: peerwatch itself is calling the runtime */
extern PW_TLS uint64_t pw_tls_parent; /* seq of the hooked call this thread is inside, 0 if none */
extern PW_TLS long pw_tls_tid;        /* cached gettid(), 0 until asked */
/* >0 while this thread is inside a hooked call of a library that sits over
 * another hooked one (the CUDA runtime over the driver): the calls it makes
 * below are traced (with "parent") but neither checked nor fed to the state
 * model, which the call above updates once. */
extern PW_TLS int pw_tls_upper;

static inline uint64_t pw_seq_next(void)
{
	return atomic_fetch_add_explicit(&pw_g.seq, 1, memory_order_relaxed) + 1;
}

uint64_t pw_now_ns(void);      /* CLOCK_MONOTONIC */
uint64_t pw_realtime_ns(void); /* CLOCK_REALTIME */
long pw_gettid(void);

/* log.c: one line to stderr prefixed "peerwatch[pid]: ", no stdio, no malloc. */
void pw_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pw_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Turn tracing off for good, once, saying why. */
void pw_disable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* options.c */
int pw_options_parse(struct pw_options *o, const char *text, char *err, size_t errlen);
void pw_options_defaults(struct pw_options *o);
void pw_options_print_help(int fd);
/* Option i of the table (key, allowed values, default, help line); false past the last.
 * scripts/options-doc.c writes README's and peerwatch(1)'s lists from it. */
bool pw_options_entry(size_t i, const char **key, const char **values, const char **def, const char **help);
const char *pw_mode_name(enum pw_mode m);

#endif

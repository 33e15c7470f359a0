/*
 * Process life cycle: options at load, the trace finished at exit and before
 * exec, a fresh trace in each forked child.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "rules/check.h"
#include "record/clock.h"
#include "rules/report.h"
#include "record/header.h"
#include "core/intercept.h"
#include "core/launch.h"
#include "core/runid.h"
#include "record/phase.h"
#include "core/pw.h"
#include "record/record.h"
#include "state/devices.h"
#include "state/registry.h"
#include "core/stack.h"
#include "state/state.h"
#include "rules/suppress.h"
#include "record/trace.h"
#include "core/vendor.h"

static pid_t pw_pid;
/* The working directory at start: a relative out template is made absolute
 * against it, in a forked child too (it may have changed directory since). */
static char start_cwd[sizeof pw_g.opt.out];

/*
 * The out option's template (%p, %h, %r, %q{VAR}, %%) for this process, made
 * absolute: 0, or -1 with the reason already said.
 */
static int expand_out(void)
{
	char err[700], dir[sizeof pw_g.opt.out];
	if (pw_outname_expand(pw_g.opt.out_tmpl, dir, sizeof dir, err, sizeof err)) {
		pw_log("out=%s: %s", pw_g.opt.out_tmpl, err);
		return -1;
	}
	if (dir[0] != '/' && start_cwd[0]) {
		char abs[sizeof pw_g.opt.out];
		if (snprintf(abs, sizeof abs, "%s/%s", start_cwd, dir) >= (int)sizeof abs) {
			pw_log("out=%s: the trace directory's path is longer than %zu bytes",
			       pw_g.opt.out_tmpl, sizeof abs - 1);
			return -1;
		}
		memcpy(dir, abs, sizeof dir);
	}
	memcpy(pw_g.opt.out, dir, sizeof dir);
	return 0;
}

/* No fork while our writer thread works: see pw_trace_fork_prepare. */
static void before_fork(void)
{
	pw_trace_fork_prepare();
	pw_header_fork_prepare();
}

static void after_fork_parent(void)
{
	pw_header_fork_parent();
	pw_trace_fork_parent();
}

static void after_fork_child(void)
{
	pw_header_fork_child();
	/* The child starts with no peer access and no IPC mappings of its own:
	 * CUDA contexts do not survive fork. */
	pw_state_reset(&pw_state);
	pw_devices_after_fork();
	pw_vendors_after_fork(); /* nor what the vendors track (vendor.h) */
	pw_report_after_fork();
	pw_disable_after_fork(); /* its own trace: its own try, its own warning */
	pw_tls_tid = 0;
	pw_tls_parent = 0;
	pw_pid = getpid();
	/* %p names this process now; a template that cannot be expanded here
	 * leaves the child the parent's directory (its file has its own pid) */
	if (strchr(pw_g.opt.out_tmpl, '%'))
		expand_out();
	atomic_store(&pw_g.seq, 0);
	pw_tls_seq_next = pw_tls_seq_end = 0; /* this thread's block was the parent's */
	pw_tls_fold.owner = 0;                /* and so was the fold tail (in the parent's buffer) */
	pw_tls_fold.used = pw_tls_fold.n = pw_tls_fold.busy = 0;
	pw_g.t0_mono_ns = pw_now_ns();
	pw_g.t0_real_ns = pw_realtime_ns();
	pw_trace_after_fork_child();
	if (pw_registry_active())
		pw_registry_open(NULL); /* the child holds its own place in it */
}

/* A bad suppressions file is a bad option: fatal when enforcing.  The
 * default suppressions are loaded after the file's, or alone. */
static void load_suppressions(void)
{
	char err[700];
	bool defaults = pw_g.opt.default_suppressions;
	if (pw_suppress_load(pw_g.opt.suppressions, defaults, err, sizeof err) == 0)
		return;
	pw_log("%s", err);
	if (pw_g.opt.mode == PW_MODE_ENFORCE) {
		pw_log("enforce mode was asked for: exiting with status %d rather than run unchecked",
		       PW_EXIT_BAD_OPTIONS);
		_exit(PW_EXIT_BAD_OPTIONS);
	}
	if (defaults && pw_suppress_load(NULL, true, err, sizeof err) == 0)
		pw_log("going on with the default suppressions only");
	else
		pw_log("going on without suppressions");
}

__attribute__((constructor)) static void pw_init(void)
{
	pw_options_defaults(&pw_g.opt);
	pw_pid = getpid();
	pw_log_init();
	/* A setuid program must not write files where its caller says. */
	if (getauxval(AT_SECURE)) {
		pw_log("secure-execution program: peerwatch stays off");
		return;
	}
	char err[800];
	if (pw_options_parse(&pw_g.opt, getenv("PEERWATCH_OPTIONS"), err, sizeof err)) {
		pw_log("%s", err);
		if (pw_g.opt.mode == PW_MODE_ENFORCE) {
			pw_log("enforce mode was asked for: exiting with status %d rather than run unchecked",
			       PW_EXIT_BAD_OPTIONS);
			_exit(PW_EXIT_BAD_OPTIONS);
		}
		/* a bad out names no directory: no trace rather than one where
		 * nobody asked, and observe mode without one has nothing to do */
		if (!pw_g.opt.out_tmpl[0]) {
			pw_log("tracing is off; the program runs on untraced");
			return;
		}
		pw_log("going on in observe mode");
		pw_g.opt.mode = PW_MODE_OBSERVE;
	}
	if (pw_g.opt.help)
		pw_options_print_help(STDERR_FILENO);
	/* ranks=LIST: another rank runs as if we were not here (the wrappers
	 * pass every call through while tracing is off) */
	if (pw_g.opt.ranks[0]) {
		const char *rank = pw_rank_env();
		if (!rank) { /* a launcher (mpirun, torchrun's agent) has none: said at -v only */
			if (pw_g.opt.verbosity >= 2)
				pw_log(
				    "ranks=%s, but no rank variable (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, "
				    "PMIX_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK) is set: not traced",
				    pw_g.opt.ranks);
			return;
		}
		if (!pw_ranks_has(pw_g.opt.ranks, rank)) {
			if (pw_g.opt.verbosity >= 2)
				pw_log("rank %.32s is not in ranks=%s: not traced", rank, pw_g.opt.ranks);
			return;
		}
	}
	/* Children may change directory: the trace directory must not move
	 * with them. */
	if (!getcwd(start_cwd, sizeof start_cwd))
		start_cwd[0] = 0;
	if (expand_out()) {
		if (pw_g.opt.mode == PW_MODE_ENFORCE) {
			pw_log("enforce mode was asked for: exiting with status %d rather than run unchecked",
			       PW_EXIT_BAD_OPTIONS);
			_exit(PW_EXIT_BAD_OPTIONS);
		}
		pw_log("tracing is off; the program runs on untraced");
		return;
	}
	pw_g.t0_mono_ns = pw_now_ns();
	pw_g.t0_real_ns = pw_realtime_ns();
	pw_clock_init();
	pw_trace_init();
	pw_stack_find_self();
	load_suppressions();
	/* The unwinder is loaded where stacks are recorded or matched, and
	 * wherever rules run: a finding's call site (its first frame) decides
	 * whether it is a repeat, with stacks=none too. */
	if (pw_checking() || pw_g.opt.stacks == PW_STACKS_ALL)
		pw_stack_init();
	if (pw_g.opt.registry && pw_checking())
		pw_registry_open(pw_run_id());
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	/* off only where tracing was all there was to do (pw_disable) */
	atomic_store(&pw_g.enabled, pw_checking() || !pw_disabled_why());
}

/* Findings still to make (ipc.leak), then the trace's last lines. */
static void process_end(const char *why)
{
	if (pw_checking() && atomic_load(&pw_g.enabled))
		pw_check_exit();
	pw_report_summary();
	pw_trace_finish(why, pw_report_footer());
	pw_registry_close();
	pw_phase_report(); /* make PHASES=1 only */
}

__attribute__((destructor)) static void pw_fini(void)
{
	if (getpid() == pw_pid)
		process_end("exit");
}

/*
 * exec replaces the process image and with it every buffer not yet written:
 * finish the trace first.  A vfork child shares our memory (its pid differs
 * from ours) and must not touch the parent's trace.
 */
static bool before_exec(void)
{
	if (getpid() != pw_pid)
		return false;
	pw_trace_finish("exec", pw_report_footer());
	pw_registry_close(); /* the new image opens it again, under the same run id */
	return true;
}

static void after_exec_failed(bool finished)
{
	if (!finished)
		return;
	pw_trace_after_failed_exec();
	if (pw_g.opt.registry && pw_checking())
		pw_registry_open(NULL);
}

#define PW_REAL(fn, type) ((type)pw_real_dlsym(RTLD_NEXT, fn))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

PW_EXPORT int execve(const char *path, char *const argv[], char *const envp[]);
int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = PW_REAL("execve", execve_fn);
	bool f = before_exec();
	int r = real(path, argv, envp);
	after_exec_failed(f);
	return r;
}

PW_EXPORT int execv(const char *path, char *const argv[]);
int execv(const char *path, char *const argv[])
{
	execv_fn real = PW_REAL("execv", execv_fn);
	bool f = before_exec();
	int r = real(path, argv);
	after_exec_failed(f);
	return r;
}

PW_EXPORT int execvp(const char *file, char *const argv[]);
int execvp(const char *file, char *const argv[])
{
	execv_fn real = PW_REAL("execvp", execv_fn);
	bool f = before_exec();
	int r = real(file, argv);
	after_exec_failed(f);
	return r;
}

PW_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]);
int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn real = PW_REAL("execvpe", execve_fn);
	bool f = before_exec();
	int r = real(file, argv, envp);
	after_exec_failed(f);
	return r;
}

PW_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]);
int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*real)(int, char *const[], char *const[]) =
	    (int (*)(int, char *const[], char *const[]))pw_real_dlsym(RTLD_NEXT, "fexecve");
	bool f = before_exec();
	int r = real(fd, argv, envp);
	after_exec_failed(f);
	return r;
}

/* The execl family: collect the list, then go through the v forms above. */
#define PW_EXECL_MAX 4096
static int collect(const char *arg0, va_list ap, char **argv, char ***envp)
{
	int n = 0;
	argv[n++] = (char *)arg0;
	while (arg0 && n < PW_EXECL_MAX) {
		char *a = va_arg(ap, char *);
		argv[n++] = a;
		if (!a)
			break;
	}
	if (n >= PW_EXECL_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (envp)
		*envp = va_arg(ap, char **);
	return 0;
}

PW_EXPORT int execl(const char *path, const char *arg, ...);
int execl(const char *path, const char *arg, ...)
{
	char *argv[PW_EXECL_MAX];
	va_list ap;
	va_start(ap, arg);
	int bad = collect(arg, ap, argv, NULL);
	va_end(ap);
	return bad ? -1 : execv(path, argv);
}

PW_EXPORT int execlp(const char *file, const char *arg, ...);
int execlp(const char *file, const char *arg, ...)
{
	char *argv[PW_EXECL_MAX];
	va_list ap;
	va_start(ap, arg);
	int bad = collect(arg, ap, argv, NULL);
	va_end(ap);
	return bad ? -1 : execvp(file, argv);
}

PW_EXPORT int execle(const char *path, const char *arg, ...);
int execle(const char *path, const char *arg, ...)
{
	char *argv[PW_EXECL_MAX];
	char **envp;
	va_list ap;
	va_start(ap, arg);
	int bad = collect(arg, ap, argv, &envp);
	va_end(ap);
	return bad ? -1 : execve(path, argv, envp);
}

/*
 * _exit skips the destructors: forked workers (Python multiprocessing among
 * them) leave this way, and their traces must still be finished.
 */
PW_EXPORT void _exit(int status);
void _exit(int status)
{
	void (*real)(int) = (void (*)(int))pw_real_dlsym(RTLD_NEXT, "_exit");
	if (getpid() == pw_pid)
		process_end("_exit");
	real(status);
	__builtin_unreachable();
}

PW_EXPORT void _Exit(int status);
void _Exit(int status)
{
	_exit(status);
}

/*
 * peerwatch-reap: the launcher's helper for the IPC registry's segments in
 * /dev/shm (preload/state/registry.c), which a run whose processes are all
 * killed leaves behind.  It lies beside libpeerwatch.so; scripts/peerwatch.in
 * runs it, nobody else needs to.
 *
 *   peerwatch-reap watch PID     returns at once, leaving a watcher behind
 *   peerwatch-reap clean [-q|-v] peerwatch --clean
 *   peerwatch-reap report ANALYZE FILE DIR PRELOAD [-q] -- PROGRAM ARGS...
 *                                peerwatch --report FILE
 *
 * watch: the launcher runs it just before it execs the program, which keeps
 * the launcher's pid: so the program stays what its caller started (its pid,
 * parent, process group, terminal, file descriptors, signals and exit status
 * are untouched) and the watcher is nobody's child but init's (or a
 * subreaper's).  The watcher holds nothing of the program's: a session of
 * its own (no terminal, no job-control signal), /dev/null for 0, 1 and 2, no
 * other descriptor, the root as its directory.  It waits for PID to end (a
 * pidfd; where the kernel has none, a poll each second of the pid and its
 * start time, so that a reused pid is not taken for the program), then for
 * every other process still using the run's segments (the program's
 * children), and removes the run's segments (PEERWATCH_RUN_ID names them, the
 * environment carries it: it never shows in ps) once nobody uses them.
 *
 * clean: removes every segment of the user's that nobody uses and says what
 * it removed.
 *
 * report: the launcher's --report, the one case where the program is not
 * exec'd in the launcher's place: something must run after it.  The
 * program runs as the child, with LD_PRELOAD=PRELOAD and the signal
 * dispositions the launcher was given; the parent ignores SIGINT and SIGQUIT
 * while it waits (the terminal sends them to the program too, as for
 * system(3)) and passes SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 on to it.  When
 * the program has ended, ANALYZE (peerwatch-analyze) writes FILE from the
 * traces under DIR whose header names this run (PEERWATCH_RUN_ID; without
 * one, those written since the start), its words on stderr, never on the
 * program's stdout.  Then the helper ends as the program did: its exit
 * status, or the same signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "state/registry.h"

static const char *prog = "peerwatch";

/* A pidfd for pid (Linux 5.3), or -1. */
static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* The start time of process pid (clock ticks since boot, /proc/<pid>/stat's
 * 22nd field), or 0 when it is gone or has ended (a zombie). */
static unsigned long long start_time(pid_t pid)
{
	char path[48], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the command name may hold ')' */
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	p += 2; /* the state, field 3 */
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
	}
	return strtoull(p, NULL, 10);
}

/* Until process pid ends: its pidfd readable, else the same start time
 * polled each second.  fd: its pidfd, or -1. */
static void wait_end(pid_t pid, int fd, unsigned long long start)
{
	if (fd >= 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		close(fd);
		return;
	}
	while (start && start_time(pid) == start)
		sleep(1);
}

/* Until the process of pid, one of the run's, ends; or a second, where it
 * cannot be followed (no pidfd, no start time): the caller looks again. */
static void wait_pid(pid_t pid)
{
	int fd = pidfd_of(pid);
	if (fd >= 0) {
		wait_end(pid, fd, 0);
		return;
	}
	if (errno == ESRCH)
		return;
	unsigned long long start = start_time(pid);
	if (start)
		wait_end(pid, -1, start);
	else
		sleep(1);
}

/* Close every descriptor from lo up, but keep. */
static void close_from(int lo)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, ~0u, 0) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = lo; fd < max; fd++)
		close(fd);
}

static int watch(const char *arg)
{
	char *end;
	long pid = strtol(arg, &end, 10);
	const char *run = getenv("PEERWATCH_RUN_ID");
	char names[PW_REG_NAMES][PW_REG_NAME_MAX];
	if (*end || pid <= 1 || pid > INT32_MAX) {
		fprintf(stderr, "%s-reap: watch needs a pid, not '%s'\n", prog, arg);
		return 2;
	}
	if (!run || !*run)
		return 0; /* the library makes its own id, which only its processes know */
	for (int a = 0; a < PW_REG_NAMES; a++)
		if (pw_registry_shm_name_n(run, a, names[a], sizeof names[a]) != 0)
			return 0;
	/* Taken while the launcher waits for us, so that it is the program's:
	 * once we return it execs. */
	int fd = pidfd_of((pid_t)pid);
	unsigned long long start = fd < 0 ? start_time((pid_t)pid) : 0;
	if (fd < 0 && !start)
		return 1;
	pid_t w = fork();
	if (w != 0) {
		if (fd >= 0)
			close(fd);
		return w < 0 ? 1 : 0;
	}
	setsid();
	if (chdir("/") != 0)
		_exit(1);
	int null = open("/dev/null", O_RDWR);
	if (null < 0)
		_exit(1);
	for (int i = 0; i < 3; i++)
		dup2(null, i);
	if (fd >= 0 && fd != 3) {
		dup2(fd, 3);
		fd = 3;
	}
	close_from(fd >= 0 ? 4 : 3);
	wait_end((pid_t)pid, fd, start);
	for (int a = 0; a < PW_REG_NAMES; a++) {
		int live = 0;
		/* each process still using it (the program's children) is waited for */
		while (pw_registry_reap(names[a], true, &live, NULL) == PW_REAP_LIVE && live > 0)
			wait_pid(live);
	}
	_exit(0);
}

static void say_removed(const char *name, uint64_t bytes, void *arg)
{
	(void)arg;
	printf("%s: removed /dev/shm/%s (%.1f MiB)\n", prog, name, (double)bytes / (1024.0 * 1024.0));
}

static int clean(int verbosity)
{
	struct pw_reg_sweep sw;
	if (pw_registry_sweep(true, &sw, verbosity >= 2 ? say_removed : NULL, NULL) != 0) {
		fprintf(stderr, "%s: cannot read /dev/shm: %s\n", prog, strerror(errno));
		return 1;
	}
	if (verbosity < 1)
		return 0;
	if (sw.removed)
		printf("%s: removed %d stale registry segment%s (%.1f MiB)", prog, sw.removed,
		       sw.removed == 1 ? "" : "s", (double)sw.bytes / (1024.0 * 1024.0));
	else
		printf("%s: no stale registry segments", prog);
	if (sw.live)
		printf("; %d in use, left alone", sw.live);
	if (sw.other)
		printf("; %d that this version cannot read, left alone", sw.other);
	printf("\n");
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- report: run the program, then write the HTML report of its run ---- */

static volatile sig_atomic_t child_pid;

static void pass_on(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* The traces of this run, found under the directory. */
static struct {
	const char *run;    /* "run_id":"<id>" in the header, or NULL */
	struct timespec t0; /* without a run id: written since */
	char **paths;
	size_t n, cap;
} found;

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = strlen(s), lt = strlen(tail);
	return ls >= lt && !strcmp(s + ls - lt, tail);
}

/* Is the header (the first line) of this file the run's? */
static bool of_this_run(const char *path, const struct stat *st)
{
	if (!found.run)
		return st->st_mtim.tv_sec > found.t0.tv_sec ||
		       (st->st_mtim.tv_sec == found.t0.tv_sec && st->st_mtim.tv_nsec >= found.t0.tv_nsec);
	char line[8192], want[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n <= 0)
		return false;
	line[n] = 0;
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = 0;
	snprintf(want, sizeof want, "\"run_id\":\"%s\"", found.run);
	return strstr(line, want) != NULL;
}

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) ||
	    !(ends_with(path, ".pw.jsonl") || ends_with(path, ".pw.jsonl.partial")) || !of_this_run(path, st))
		return 0;
	if (found.n == found.cap) {
		size_t cap = found.cap ? found.cap * 2 : 64;
		char **p = realloc(found.paths, cap * sizeof *p);
		if (!p)
			return 1;
		found.paths = p;
		found.cap = cap;
	}
	found.paths[found.n] = strdup(path);
	return found.paths[found.n++] ? 0 : 1;
}

/* Runs ANALYZE report -o FILE on the run's traces; its stdout goes to our
 * stderr.  0 when the report was written. */
static int write_report(const char *analyze, const char *file, const char *dir, bool quiet)
{
	if (nftw(dir, collect, 16, FTW_PHYS) != 0 && !found.n && errno != ENOENT) {
		fprintf(stderr, "%s: --report: cannot read the trace directory %s: %s; no report written\n",
		        prog, dir, strerror(errno));
		return 1;
	}
	if (!found.n) {
		fprintf(stderr, "%s: --report: no trace of this run under %s; no report written\n", prog,
		        dir);
		return 1;
	}
	char **argv = calloc(found.n + 5, sizeof *argv);
	if (!argv)
		return 1;
	size_t k = 0;
	argv[k++] = (char *)analyze;
	argv[k++] = "report";
	argv[k++] = "-o";
	argv[k++] = (char *)file;
	for (size_t i = 0; i < found.n; i++)
		argv[k++] = found.paths[i];
	argv[k] = NULL;
	pid_t a = fork();
	if (a == 0) {
		if (quiet) {
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0)
				dup2(null, 1);
		} else {
			dup2(2, 1); /* the program's stdout is its own */
		}
		unsetenv("LD_PRELOAD");
		execv(analyze, argv);
		fprintf(stderr, "%s: --report: cannot run %s: %s\n", prog, analyze, strerror(errno));
		_exit(127);
	}
	free(argv);
	int st = 0;
	while (a > 0 && waitpid(a, &st, 0) < 0 && errno == EINTR)
		;
	if (a < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "%s: --report: %s report did not write %s\n", prog, analyze, file);
		return 1;
	}
	return 0;
}

static int run_report(int argc, char **argv)
{
	/* report ANALYZE FILE DIR PRELOAD [-q] -- PROGRAM ARGS... */
	int i = 6;
	bool quiet = argc > 6 && !strcmp(argv[6], "-q");
	i += quiet;
	if (argc < i + 2 || strcmp(argv[i], "--")) {
		fprintf(stderr, "usage: %s-reap report ANALYZE FILE DIR PRELOAD [-q] -- PROGRAM ARGS...\n",
		        prog);
		return 2;
	}
	const char *analyze = argv[2], *file = argv[3], *dir = argv[4], *preload = argv[5];
	char **program = argv + i + 1;
	const char *run = getenv("PEERWATCH_RUN_ID");
	found.run = run && *run && strlen(run) < 200 && !strpbrk(run, "\"\\") ? run : NULL;
	clock_gettime(CLOCK_REALTIME, &found.t0);
	found.t0.tv_sec -= 1; /* file times have the file system's granularity */

	static const int passed[] = {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
	struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = pass_on}, old_int, old_quit,
	                 old[sizeof passed / sizeof *passed];
	sigemptyset(&ign.sa_mask);
	sigemptyset(&fwd.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	for (size_t k = 0; k < sizeof passed / sizeof *passed; k++)
		sigaction(passed[k], &fwd, &old[k]);
	pid_t c = fork();
	if (c == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		for (size_t k = 0; k < sizeof passed / sizeof *passed; k++)
			sigaction(passed[k], &old[k], NULL);
		if (*preload)
			setenv("LD_PRELOAD", preload, 1);
		execvp(program[0], program);
		int e = errno;
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, program[0], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}
	if (c < 0) {
		fprintf(stderr, "%s: cannot start %s: %s\n", prog, program[0], strerror(errno));
		return 126;
	}
	child_pid = c;
	int st = 0;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
	write_report(analyze, file, dir, quiet);
	for (size_t k = 0; k < found.n; k++)
		free(found.paths[k]);
	free(found.paths);
	if (WIFSIGNALED(st)) { /* end as the program did */
		int sig = WTERMSIG(st);
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		fflush(NULL);
		raise(sig);
		return 128 + sig;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "watch"))
		return watch(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "clean"))
		return clean(1);
	if (argc == 3 && !strcmp(argv[1], "clean") && !strcmp(argv[2], "-q"))
		return clean(0);
	if (argc == 3 && !strcmp(argv[1], "clean") && !strcmp(argv[2], "-v"))
		return clean(2);
	if (argc >= 8 && !strcmp(argv[1], "report"))
		return run_report(argc, argv);
	fprintf(stderr, "usage: %s-reap watch PID | %s-reap clean [-q|-v] | %s-reap report ...\n", prog, prog,
	        prog);
	return 2;
}

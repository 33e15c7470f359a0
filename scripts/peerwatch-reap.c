/*
 * peerwatch-reap: the launcher's helper for the IPC registry's segments in
 * /dev/shm (preload/state/registry.c), which a run whose processes are all
 * killed leaves behind.  It lies beside libpeerwatch.so; scripts/peerwatch.in
 * runs it, nobody else needs to.
 *
 *   peerwatch-reap watch PID     returns at once, leaving a watcher behind
 *   peerwatch-reap clean [-q|-v] peerwatch --clean
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
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
	fprintf(stderr, "usage: %s-reap watch PID | %s-reap clean [-q|-v]\n", prog, prog);
	return 2;
}

/*
 * dup2, dup3, close, close_range and closefrom, interposed: a program may
 * put its file on any number, peerwatch's own included (the trace file's,
 * the log_path file's), and may close any number, as a daemon closes
 * 3..1023 once started.  Onto a number of ours, ours moves out of the way
 * first, with none of our writes in flight; a close of a number of ours
 * leaves it open and says EBADF, as the program would hear without us
 * (the number holds nothing of its own), so that we never open the file
 * again while the program opens its own (core/fd.h).  Every other call
 * goes straight through.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fd.h"
#include "core/intercept.h"
#include "core/pw.h"

typedef int (*dup3_fn)(int, int, int);
typedef int (*dup2_fn)(int, int);

/* The next definition of name after ours (libc's), looked up once. */
static void *next_fn(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
	if (!f) {
		f = pw_real_dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

static int real_dup3(int oldfd, int newfd, int flags)
{
	static void *real;
	dup3_fn f = (dup3_fn)next_fn(&real, "dup3");
	return f ? f(oldfd, newfd, flags) : (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

/* dup2 as dup3's shape (flags unused), so that one body serves both. */
static int real_dup2(int oldfd, int newfd, int flags)
{
	static void *real;
	(void)flags;
	dup2_fn f = (dup2_fn)next_fn(&real, "dup2");
	if (f)
		return f(oldfd, newfd);
	if (oldfd == newfd) /* dup3 refuses what dup2 allows */
		return fcntl(oldfd, F_GETFD) < 0 ? -1 : newfd;
	return (int)syscall(SYS_dup3, oldfd, newfd, 0);
}

/* The program's call, with ours moved off newfd first where it is there. */
static int onto(int oldfd, int newfd, int flags, dup3_fn real)
{
	int e = errno; /* the program's, whatever moving ours sets */
	int how = oldfd == newfd ? PW_FD_NOT_OURS : pw_fd_vacate(newfd);
	if (how == PW_FD_NOT_OURS)
		return real(oldfd, newfd, flags);
	errno = e;
	int rc = real(oldfd, newfd, flags);
	e = rc < 0 ? errno : e;
	pw_fd_vacate_end(newfd, how, rc);
	errno = e;
	return rc;
}

PW_EXPORT int dup2(int oldfd, int newfd);
int dup2(int oldfd, int newfd)
{
	return onto(oldfd, newfd, 0, real_dup2);
}

PW_EXPORT int dup3(int oldfd, int newfd, int flags);
int dup3(int oldfd, int newfd, int flags)
{
	return onto(oldfd, newfd, flags, real_dup3);
}

typedef int (*close_fn)(int);
typedef int (*close_range_fn)(unsigned, unsigned, int);

static void *close_real, *close_range_real;

static int real_close(int fd)
{
	close_fn f = (close_fn)next_fn(&close_real, "close");
	return f ? f(fd) : (int)syscall(SYS_close, fd);
}

/* libc's, looked up before the program runs: a close in a signal handler
 * must not be the one to call dlsym. */
__attribute__((constructor)) static void look_up_early(void)
{
	next_fn(&close_real, "close");
	next_fn(&close_range_real, "close_range");
}

PW_EXPORT int close(int fd);
int close(int fd)
{
	if (pw_fd_is_kept(fd)) {
		errno = EBADF;
		return -1;
	}
	return real_close(fd);
}

/* close_range(2) over [first, last], flags as given; a libc without it
 * (before glibc 2.34): the system call, or close() number by number where
 * the kernel lacks it too (before Linux 5.9) and flags ask nothing else. */
static int real_close_range(unsigned first, unsigned last, int flags)
{
	close_range_fn f = (close_range_fn)next_fn(&close_range_real, "close_range");
	int rc = -1;
	if (f)
		rc = f(first, last, flags);
	else {
#ifdef SYS_close_range
		rc = (int)syscall(SYS_close_range, first, last, flags);
#else
		errno = ENOSYS;
#endif
	}
	if (rc < 0 && errno == ENOSYS && flags == 0) {
		/* numbers past the soft limit cannot be open */
		long max = sysconf(_SC_OPEN_MAX);
		for (long n = first; n <= (long)last && (max < 0 || n < max); n++)
			real_close((int)n);
		rc = 0;
	}
	return rc;
}

/* [first, last] but the numbers of ours in it, each part with flags.
 * CLOSE_RANGE_CLOEXEC (marking, not closing) goes through whole: ours are
 * close-on-exec already. */
#define PW_CLOSE_RANGE_CLOEXEC 4u /* linux/close_range.h */
static int close_around_ours(unsigned first, unsigned last, int flags)
{
	int ours[PW_FD_KEPT_MAX];
	int n = first > last || (flags & PW_CLOSE_RANGE_CLOEXEC) ? 0 : pw_fd_kept_in(first, last, ours);
	if (n == 0)
		return real_close_range(first, last, flags);
	unsigned from = first;
	for (int i = 0; i < n; i++) {
		unsigned k = (unsigned)ours[i];
		if (k > from && real_close_range(from, k - 1, flags))
			return -1;
		from = k + 1;
	}
	if (from <= last && real_close_range(from, last, flags))
		return -1;
	return 0;
}

PW_EXPORT int close_range(unsigned first, unsigned last, int flags);
int close_range(unsigned first, unsigned last, int flags)
{
	int e = errno;
	int rc = close_around_ours(first, last, flags);
	if (rc == 0)
		errno = e;
	return rc;
}

PW_EXPORT void closefrom(int lowfd);
void closefrom(int lowfd)
{
	int e = errno;
	close_around_ours(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u, 0);
	errno = e;
}

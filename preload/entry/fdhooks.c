/*
 * dup2 and dup3, interposed: a program may put its file on any number,
 * peerwatch's own included (the trace file's, the log_path file's); ours
 * moves out of the way first, with none of our writes in flight
 * (core/fd.h).  Every other dup2 and dup3 goes straight through.
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

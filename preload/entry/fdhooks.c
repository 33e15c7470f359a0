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

static int real_dup3(int oldfd, int newfd, int flags)
{
	static dup3_fn real;
	dup3_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (dup3_fn)pw_real_dlsym(RTLD_NEXT, "dup3");
		__atomic_store_n(&real, f, __ATOMIC_RELEASE);
	}
	return f ? f(oldfd, newfd, flags) : (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

static int real_dup2(int oldfd, int newfd)
{
	static dup2_fn real;
	dup2_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (dup2_fn)pw_real_dlsym(RTLD_NEXT, "dup2");
		__atomic_store_n(&real, f, __ATOMIC_RELEASE);
	}
	if (f)
		return f(oldfd, newfd);
	if (oldfd == newfd) /* dup3 refuses what dup2 allows */
		return fcntl(oldfd, F_GETFD) < 0 ? -1 : newfd;
	return (int)syscall(SYS_dup3, oldfd, newfd, 0);
}

PW_EXPORT int dup2(int oldfd, int newfd);
int dup2(int oldfd, int newfd)
{
	int e = errno; /* the program's, whatever moving ours sets */
	int how = oldfd == newfd ? PW_FD_NOT_OURS : pw_fd_vacate(newfd);
	if (how == PW_FD_NOT_OURS)
		return real_dup2(oldfd, newfd);
	errno = e;
	int rc = real_dup2(oldfd, newfd);
	e = rc < 0 ? errno : e;
	pw_fd_vacate_end(newfd, how, rc);
	errno = e;
	return rc;
}

PW_EXPORT int dup3(int oldfd, int newfd, int flags);
int dup3(int oldfd, int newfd, int flags)
{
	int e = errno; /* the program's, whatever moving ours sets */
	int how = oldfd == newfd ? PW_FD_NOT_OURS : pw_fd_vacate(newfd);
	if (how == PW_FD_NOT_OURS)
		return real_dup3(oldfd, newfd, flags);
	errno = e;
	int rc = real_dup3(oldfd, newfd, flags);
	e = rc < 0 ? errno : e;
	pw_fd_vacate_end(newfd, how, rc);
	errno = e;
	return rc;
}

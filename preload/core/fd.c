/*
 * Descriptors kept above the program's numbers, checked before each use
 * (see fd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fd.h"

/* Where kept descriptors go when the soft limit allows 1024 or more; a
 * limit above that only raises the numbers a program may have, not the
 * ones it gets first. */
#define PW_FD_HIGH 1000
/* Below a soft limit under 1024: this many numbers from its top. */
#define PW_FD_TOP 24

int pw_fd_floor(void)
{
	struct rlimit rl;
	rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	if (lim == RLIM_INFINITY || lim >= PW_FD_HIGH + PW_FD_TOP)
		return PW_FD_HIGH;
	/* a small limit: its top quarter at most, never 0, 1 or 2 */
	int top = (int)lim / 4 < PW_FD_TOP ? (int)lim / 4 : PW_FD_TOP;
	return (int)lim - top > 3 ? (int)lim - top : 3;
}

int pw_fd_keep(struct pw_fd *k, int fd)
{
	struct stat st;
	int floor = pw_fd_floor(), high = fd;
	if (fd < 0)
		return -1;
	if (fd < floor) {
		high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
		int e = errno;
		close(fd);
		if (high < 0) {
			errno = e == EINVAL ? EMFILE : e; /* EINVAL: the floor is at the limit */
			return -1;
		}
	}
	if (fstat(high, &st)) {
		int e = errno;
		close(high);
		errno = e;
		return -1;
	}
	k->fd = high;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	return 0;
}

static bool same(int fd, const struct pw_fd *k)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == k->dev && st.st_ino == k->ino;
}

int pw_fd_get(struct pw_fd *k)
{
	if (k->fd < 0)
		return -1;
	if (same(k->fd, k))
		return k->fd;
	k->fd = -1; /* closed, or another file on its number: the program's */
	errno = EBADF;
	return -1;
}

int pw_fd_reopen(struct pw_fd *k, int dirfd, const char *path, int flags)
{
	int fd = openat(dirfd, path, flags | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!same(fd, k)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	struct pw_fd again;
	if (pw_fd_keep(&again, fd))
		return -1;
	*k = again;
	return k->fd;
}

void pw_fd_close(struct pw_fd *k)
{
	if (pw_fd_get(k) >= 0)
		close(k->fd);
	k->fd = -1;
}

/*
 * Descriptors kept above the program's numbers, checked before each use
 * (see fd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fd.h"
#include "core/pw.h"

/* The kept descriptors, so that a dup2 onto one's number finds it.  A
 * struct pw_fd is listed from pw_fd_keep to pw_fd_close (its owner's
 * static, in the library); more than PW_FD_SLOTS at once would go unseen
 * by dup2 and rely on the fstat check alone.  Their fd fields are written
 * atomically (by their owners, within a use) and read by pw_fd_vacate's
 * first look without the lock. */
#define PW_FD_SLOTS PW_FD_KEPT_MAX
static struct pw_fd *_Atomic slots[PW_FD_SLOTS];

/* One use at a time of any kept descriptor, against the program's dup2:
 * a lock of our own (an atomic flag), so that a child after fork can drop
 * one its parent's thread held, and a nested use on one thread (a report
 * written while finishing the trace) is one use.  A use waits for it at
 * most PW_FD_USE_WAIT_NS: a write stuck for good (a hung file system) must
 * not hang the program's dup2 or a report; past that, the use goes on
 * without it, guarded by the fstat check alone. */
#define PW_FD_USE_WAIT_NS 1000000000LL
static atomic_int use_lock;
static PW_TLS int use_depth;
static PW_TLS bool use_owner; /* this thread holds use_lock */

static bool use_take(void)
{
	int free_ = 0;
	return atomic_compare_exchange_strong_explicit(&use_lock, &free_, 1, memory_order_acquire,
	                                               memory_order_relaxed);
}

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void pw_fd_use_begin(void)
{
	if (use_depth++)
		return;
	for (int i = 0; i < 64; i++) {
		if ((use_owner = use_take()))
			return;
		sched_yield();
	}
	const struct timespec nap = {0, 50000};
	long long until = mono_ns() + PW_FD_USE_WAIT_NS;
	while (!(use_owner = use_take()) && mono_ns() < until)
		nanosleep(&nap, NULL); /* a write of the trace in flight: milliseconds */
}

void pw_fd_use_end(void)
{
	if (use_depth > 0 && --use_depth == 0 && use_owner) {
		use_owner = false;
		atomic_store_explicit(&use_lock, 0, memory_order_release);
	}
}

void pw_fd_use_abandon(void)
{
	if (use_depth > 0) {
		use_depth = 1;
		pw_fd_use_end();
	}
}

void pw_fd_after_fork_child(void)
{
	atomic_store(&use_lock, 0);
	use_depth = 0;
	use_owner = false;
}

static void set_fd(struct pw_fd *k, int fd)
{
	__atomic_store_n(&k->fd, fd, __ATOMIC_RELAXED);
}

static void enlist(struct pw_fd *k)
{
	for (int i = 0; i < PW_FD_SLOTS; i++)
		if (atomic_load(&slots[i]) == k)
			return;
	for (int i = 0; i < PW_FD_SLOTS; i++) {
		struct pw_fd *none = NULL;
		if (atomic_compare_exchange_strong(&slots[i], &none, k))
			return;
	}
}

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
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	set_fd(k, high);
	enlist(k);
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
	set_fd(k, -1); /* closed, or another file on its number: the program's */
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
	if (pw_fd_keep(k, fd))
		return -1;
	return k->fd;
}

void pw_fd_close(struct pw_fd *k)
{
	int fd = pw_fd_get(k);
	set_fd(k, -1); /* first: the interposed close leaves a kept number open */
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < PW_FD_SLOTS; i++) {
		struct pw_fd *was = k;
		if (atomic_compare_exchange_strong(&slots[i], &was, NULL))
			break;
	}
}

/* The kept descriptor on number n, or NULL. */
static struct pw_fd *kept_on(int n)
{
	for (int i = 0; i < PW_FD_SLOTS; i++) {
		struct pw_fd *k = atomic_load(&slots[i]);
		if (k && __atomic_load_n(&k->fd, __ATOMIC_RELAXED) == n)
			return k;
	}
	return NULL;
}

bool pw_fd_is_kept(int fd)
{
	if (fd < 0)
		return false;
	struct pw_fd *k = kept_on(fd);
	return k && same(fd, k);
}

int pw_fd_kept_in(unsigned first, unsigned last, int out[PW_FD_KEPT_MAX])
{
	int n = 0;
	for (int i = 0; i < PW_FD_SLOTS; i++) {
		struct pw_fd *k = atomic_load(&slots[i]);
		int fd = k ? __atomic_load_n(&k->fd, __ATOMIC_RELAXED) : -1;
		if (fd < 0 || (unsigned)fd < first || (unsigned)fd > last || !same(fd, k))
			continue;
		int j = n++; /* in order: a few at most */
		for (; j > 0 && out[j - 1] > fd; j--)
			out[j] = out[j - 1];
		out[j] = fd;
	}
	return n;
}

int pw_fd_vacate(int newfd)
{
	if (newfd < 0 || !kept_on(newfd))
		return PW_FD_NOT_OURS;
	pw_fd_use_begin();
	struct pw_fd *k = kept_on(newfd); /* again, now that no use is in flight */
	if (!k) {
		pw_fd_use_end();
		return PW_FD_NOT_OURS;
	}
	if (!same(newfd, k)) { /* the program's already (a raw dup2 or close) */
		set_fd(k, -1);
		return PW_FD_WAS_THEIRS;
	}
	/* -1: no number free up there, forgotten (its owner opens it again) */
	set_fd(k, fcntl(newfd, F_DUPFD_CLOEXEC, pw_fd_floor()));
	return PW_FD_MOVED;
}

void pw_fd_vacate_end(int newfd, int how, int rc)
{
	if (how == PW_FD_NOT_OURS)
		return;
	/* the program's dup2 failed: our old copy would stay on a number
	 * nobody knows of; it is free again, as it was for the program */
	if (how == PW_FD_MOVED && rc < 0)
		close(newfd);
	pw_fd_use_end();
}

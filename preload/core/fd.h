/*
 * The descriptors peerwatch keeps open while the program runs (the trace
 * file, the log_path file), kept out of the program's way.
 *
 * A program counts on its descriptor numbers: open(2) returns the lowest
 * free one, so a program started with 0, 1 or 2 closed gets them from its
 * first opens, and a daemon that closes 3..1023 expects its next opens to
 * get 3, 4, ...; a program may also close, or dup2 onto, any number at all.
 * So a descriptor of ours is
 *
 *   - moved above the numbers programs use as soon as it is opened
 *     (F_DUPFD_CLOEXEC from pw_fd_floor(): 1000 where the soft
 *     RLIMIT_NOFILE allows 1024 or more, a little below the limit where it
 *     is lower), as valgrind keeps its own at the top;
 *   - checked to still be the file it was (fstat: st_dev, st_ino) before
 *     every use, since the program may have closed it or put another file
 *     on its number: such a number is the program's now, neither written
 *     into nor closed by us.  The owner then opens its file again by path
 *     (pw_fd_reopen, which takes it only if it is the same file) or gives
 *     it up.
 *
 * A descriptor opened and closed within one call of ours (a file read at
 * start, a directory looked at) takes the lowest free number for that
 * moment only: nothing of ours stays there when the call returns.
 */
#ifndef PW_FD_H
#define PW_FD_H

#include <sys/types.h>

struct pw_fd {
	int fd; /* -1: none */
	dev_t dev;
	ino_t ino;
};
#define PW_FD_NONE       \
	{                \
		.fd = -1 \
	}

/* The lowest number a kept descriptor may have. */
int pw_fd_floor(void);

/* Keeps fd, just opened: moves it to pw_fd_floor() or above (close-on-exec)
 * and remembers which file it is.  0; or -1 with errno (EMFILE: no number
 * free up there), fd closed. */
int pw_fd_keep(struct pw_fd *k, int fd);

/* k's descriptor if it still is the file kept, else -1: k forgets it, and
 * the number, which is the program's now, stays as it is. */
int pw_fd_get(struct pw_fd *k);

/* Opens path again (relative to dirfd, or AT_FDCWD) with flags and keeps
 * it, if it is still the file k had: its descriptor, or -1 (errno ESTALE
 * when path now names another file). */
int pw_fd_reopen(struct pw_fd *k, int dirfd, const char *path, int flags);

/* Closes k's descriptor if it still is the file kept; forgets it either way. */
void pw_fd_close(struct pw_fd *k);

#endif

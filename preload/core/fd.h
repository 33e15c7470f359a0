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
 *   - moved again when the program calls dup2 or dup3 onto its number
 *     (we interpose them: pw_fd_vacate): ours goes to another number
 *     above the floor, with no use of ours in flight (pw_fd_use_begin),
 *     and the program's dup2 then does what it asked, on a number that
 *     holds nothing of ours any more;
 *   - left open when the program closes its number (close, close_range,
 *     closefrom: interposed too): the program hears EBADF, as it would
 *     without us, for the number holds nothing of its own.  Opening our
 *     file again instead would take the lowest free number for a moment,
 *     the one a daemon's next open after its close loop expects;
 *   - checked to still be the file it was (fstat: st_dev, st_ino) before
 *     every use, since the program may have closed it or put another file
 *     on its number by other means (a raw system call, libc's own close
 *     inside another of its functions): such a number is the program's
 *     now, neither written into nor closed by us.  The owner then opens
 *     its file again by path (pw_fd_reopen, which takes it only if it is
 *     the same file) or gives it up.  This check alone cannot stop a raw
 *     dup2 syscall landing between it and the write after it; the
 *     interposed dup2 and dup3 can, and do.
 *
 * A descriptor opened and closed within one call of ours (a file read at
 * start, a directory looked at) takes the lowest free number for that
 * moment only: nothing of ours stays there when the call returns.
 */
#ifndef PW_FD_H
#define PW_FD_H

#include <stdbool.h>
#include <sys/types.h>

/* How many kept descriptors the interposed calls know of at once. */
#define PW_FD_KEPT_MAX 8

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
 * and remembers which file it is; k is listed for the interposed dup2 until
 * pw_fd_close(k), so it must live that long (a static).  0; or -1 with
 * errno (EMFILE: no number free up there), fd closed. */
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

/* Around every use of a kept descriptor, from pw_fd_get or pw_fd_reopen to
 * the last call that uses the number: a dup2 or dup3 of the program onto
 * one of our numbers waits for the end.  Nested uses on one thread are
 * one use.  Not a hot-path lock: the trace writer's writes, the finish,
 * a report to the log_path file.  A use waits at most 1 s for another
 * (one stuck in a write for good), then goes on without it. */
void pw_fd_use_begin(void);
void pw_fd_use_end(void);
/* The calling thread ends inside a use (the trace writer, ended by
 * pthread_exit from something it called): the use ends with it. */
void pw_fd_use_abandon(void);

/* The program is about to put a file on newfd (dup2, dup3): if a kept
 * descriptor has that number, it moves to another one first (and is
 * forgotten if none is free), with no use in flight.  Returns how it was:
 * PW_FD_NOT_OURS (nothing of ours there, nothing held), PW_FD_MOVED (ours
 * moved away), PW_FD_WAS_THEIRS (the number had become the program's by
 * other means; ours forgotten).  The caller makes its dup2 and then calls
 * pw_fd_vacate_end with that and what its dup2 returned. */
enum { PW_FD_NOT_OURS, PW_FD_MOVED, PW_FD_WAS_THEIRS };
int pw_fd_vacate(int newfd);
void pw_fd_vacate_end(int newfd, int how, int rc);

/* fd is a kept descriptor's number, still its file: the program's close
 * of it is refused (EBADF) and ours stays open. */
bool pw_fd_is_kept(int fd);

/* The kept descriptors' numbers in [first, last], still their files, in
 * ascending order into out: how many. */
int pw_fd_kept_in(unsigned first, unsigned last, int out[PW_FD_KEPT_MAX]);

/* In a child after fork: no use is in flight there (the thread that held
 * one is the parent's). */
void pw_fd_after_fork_child(void);

#endif

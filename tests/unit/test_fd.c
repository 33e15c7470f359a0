/*
 * The descriptors peerwatch keeps (core/fd.h): moved above the program's
 * numbers, close-on-exec, and given up, neither used nor closed, once the
 * program closes them or puts another file on their number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fd.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/pw-unit-fd.%d", (int)getpid());
	return mkdir(dir, 0700);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd);
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static int make_file(const char *name, const char *text)
{
	char p[128];
	path_of(p, sizeof p, name);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* The lowest number open(2) would give now. */
static int lowest_free(void)
{
	int fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	return fd;
}

static void set_soft_limit(rlim_t n)
{
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = n;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

static void floor_below_the_soft_limit(void **state)
{
	(void)state;
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	if (was.rlim_max < 1024) {
		print_message("hard descriptor limit below 1024\n");
		skip();
	}
	set_soft_limit(1024);
	assert_int_equal(pw_fd_floor(), 1000);
	if (was.rlim_max >= 65536) {
		set_soft_limit(65536); /* a higher limit does not move it up */
		assert_int_equal(pw_fd_floor(), 1000);
	}
	set_soft_limit(256);
	assert_int_equal(pw_fd_floor(), 232);
	set_soft_limit(16);
	assert_int_equal(pw_fd_floor(), 12);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
}

static void kept_above_the_programs_numbers(void **state)
{
	(void)state;
	int low = lowest_free();
	static struct pw_fd k = PW_FD_NONE; /* listed for dup2 while kept */
	k = (struct pw_fd)PW_FD_NONE;
	int fd = make_file("a", "ours");
	assert_int_equal(fd, low);
	assert_int_equal(pw_fd_keep(&k, fd), 0);
	assert_true(k.fd >= pw_fd_floor());
	assert_int_equal(lowest_free(), low); /* the number the program gets next is free again */
	assert_true(fcntl(k.fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(pw_fd_get(&k), k.fd);
	pw_fd_close(&k);
	assert_int_equal(k.fd, -1);
}

/* Closed by a raw system call (the interposed close refuses: below). */
static void closed_by_the_program(void **state)
{
	(void)state;
	static struct pw_fd k = PW_FD_NONE; /* listed for dup2 while kept */
	k = (struct pw_fd)PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, make_file("b", "ours")), 0);
	int n = k.fd;
	assert_int_equal(syscall(SYS_close, n), 0);
	assert_int_equal(pw_fd_get(&k), -1);
	assert_int_equal(k.fd, -1);
	/* the program's next file on that number is its own */
	int theirs = make_file("c", "theirs");
	assert_int_equal(dup2(theirs, n), n);
	close(theirs);
	pw_fd_close(&k);
	assert_true(is_open(n));
	close(n);
}

/* Another file put on its number by a raw system call (the interposed dup2
 * would have moved ours first: below). */
static void another_file_on_its_number(void **state)
{
	(void)state;
	static struct pw_fd k = PW_FD_NONE; /* listed for dup2 while kept */
	k = (struct pw_fd)PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, make_file("d", "ours")), 0);
	int n = k.fd, theirs = make_file("e", "theirs");
	assert_int_equal(syscall(SYS_dup3, theirs, n, 0), n);
	assert_int_equal(pw_fd_get(&k), -1);
	pw_fd_close(&k);
	assert_true(is_open(n)); /* not closed: it is the program's now */
	char buf[16] = "";
	assert_int_equal(pread(n, buf, sizeof buf - 1, 0), 6);
	assert_string_equal(buf, "theirs");
	close(n);
	close(theirs);
}

static void opened_again_only_if_the_same_file(void **state)
{
	(void)state;
	char p[128], q[128];
	path_of(p, sizeof p, "f");
	path_of(q, sizeof q, "g");
	static struct pw_fd k = PW_FD_NONE; /* listed for dup2 while kept */
	k = (struct pw_fd)PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, make_file("f", "ours")), 0);
	syscall(SYS_close, k.fd);
	assert_int_equal(pw_fd_get(&k), -1);
	int fd = pw_fd_reopen(&k, AT_FDCWD, p, O_RDONLY);
	assert_true(fd >= pw_fd_floor());
	assert_int_equal(pw_fd_get(&k), fd);
	/* another file now has the name: not ours */
	syscall(SYS_close, k.fd);
	close(make_file("g", "theirs"));
	assert_int_equal(rename(q, p), 0);
	assert_int_equal(pw_fd_reopen(&k, AT_FDCWD, p, O_RDONLY), -1);
	assert_int_equal(errno, ESTALE);
	assert_int_equal(pw_fd_get(&k), -1);
}

static void no_number_free_up_there(void **state)
{
	(void)state;
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	int fd = make_file("h", "ours");
	set_soft_limit(16);
	int floor = pw_fd_floor();
	assert_int_equal(floor, 12);
	assert_true(fd < floor);
	for (int i = floor; i < 16; i++) /* the program's, all of them */
		assert_int_equal(dup2(fd, i), i);
	static struct pw_fd k = PW_FD_NONE; /* listed for dup2 while kept */
	k = (struct pw_fd)PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, fd), -1);
	assert_int_equal(errno, EMFILE);
	assert_int_equal(k.fd, -1);
	assert_false(is_open(fd)); /* not left on the program's numbers */
	for (int i = floor; i < 16; i++)
		close(i);
	/* a limit of 3: the floor is 3, with nothing free above it */
	set_soft_limit(3);
	assert_int_equal(pw_fd_floor(), 3);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
}

/* The file open on fd: its st_dev and st_ino are those of fd2's. */
static bool same_file(int fd, int fd2)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstat(fd2, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The program's dup2 and dup3 onto a kept number (entry/fdhooks.c, linked in
 * here as in the library): the number is the program's, with its file, and
 * ours goes on at another number, still ours. */
static void dup2_onto_a_kept_number_moves_ours(void **state)
{
	(void)state;
	static struct pw_fd k = PW_FD_NONE;
	k = (struct pw_fd)PW_FD_NONE;
	int copy = make_file("m", "ours");
	assert_int_equal(pw_fd_keep(&k, dup(copy)), 0);
	int n = k.fd, theirs = make_file("n", "theirs");
	errno = ENOTTY; /* the program's errno: untouched by a dup2 that succeeds */
	assert_int_equal(dup2(theirs, n), n);
	assert_int_equal(errno, ENOTTY);
	assert_true(same_file(n, theirs));
	int moved = pw_fd_get(&k);
	assert_true(moved >= pw_fd_floor() && moved != n);
	assert_true(same_file(moved, copy));
	assert_true(fcntl(moved, F_GETFD) & FD_CLOEXEC);
	/* dup3, with its flags, the same way */
	assert_int_equal(dup3(theirs, moved, O_CLOEXEC), moved);
	assert_true(same_file(moved, theirs) && (fcntl(moved, F_GETFD) & FD_CLOEXEC));
	int again = pw_fd_get(&k);
	assert_true(again >= pw_fd_floor() && again != moved && again != n);
	assert_true(same_file(again, copy));
	pw_fd_close(&k);
	assert_false(is_open(again));
	assert_true(is_open(n) && is_open(moved)); /* the program's */
	close(n);
	close(moved);
	close(theirs);
	close(copy);
}

/* A dup2 that fails (a bad source) leaves nothing of ours on the number it
 * named, and says why as it would untraced; a number the program had
 * already taken by a raw system call is neither moved nor closed. */
static void failed_dup2_onto_a_kept_number(void **state)
{
	(void)state;
	static struct pw_fd k = PW_FD_NONE;
	k = (struct pw_fd)PW_FD_NONE;
	int copy = make_file("o", "ours");
	assert_int_equal(pw_fd_keep(&k, dup(copy)), 0);
	int n = k.fd, closed = lowest_free();
	errno = 0;
	assert_int_equal(dup2(closed, n), -1);
	assert_int_equal(errno, EBADF);
	assert_false(is_open(n)); /* free, as the program found it */
	int moved = pw_fd_get(&k);
	assert_true(moved >= 0 && same_file(moved, copy));

	int theirs = make_file("p", "theirs");
	assert_int_equal(syscall(SYS_dup3, theirs, moved, 0), moved);
	closed = lowest_free();
	errno = 0;
	assert_int_equal(dup2(closed, moved), -1);
	assert_int_equal(errno, EBADF);
	assert_true(is_open(moved) && same_file(moved, theirs)); /* the program's, untouched */
	assert_int_equal(pw_fd_get(&k), -1);
	pw_fd_close(&k);
	close(moved);
	close(theirs);
	close(copy);
}

/* The program's close, close_range and closefrom (entry/fdhooks.c, linked
 * in here as in the library) over a kept number, as a daemon's close loop
 * goes over 3..1023: the number stays ours, open and the same file, the
 * program hears EBADF from close as it would untraced, and every number
 * of its own in the range is closed. */
static void the_programs_close_leaves_ours(void **state)
{
	(void)state;
	static struct pw_fd k = PW_FD_NONE;
	k = (struct pw_fd)PW_FD_NONE;
	int copy = make_file("s", "ours");
	assert_int_equal(pw_fd_keep(&k, dup(copy)), 0);
	int n = k.fd;
	errno = 0;
	assert_int_equal(close(n), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(pw_fd_get(&k), n);
	assert_true(same_file(n, copy));
	/* a number of the program's next to ours: closed as asked */
	int theirs = make_file("t", "theirs");
	assert_int_equal(dup2(theirs, n - 1), n - 1);
	assert_int_equal(dup2(theirs, n + 1), n + 1);
	errno = ENOTTY;
	assert_int_equal(close_range((unsigned)n - 1, (unsigned)n + 1, 0), 0);
	assert_int_equal(errno, ENOTTY);
	assert_false(is_open(n - 1) || is_open(n + 1));
	assert_int_equal(pw_fd_get(&k), n);
	/* close_range's own errors are the program's to hear */
	errno = 0;
	assert_int_equal(close_range((unsigned)n + 1, (unsigned)n - 1, 0), -1);
	assert_int_equal(errno, EINVAL);
	/* CLOSE_RANGE_CLOEXEC marks, closes nothing: ours is marked already */
	assert_int_equal(dup2(theirs, n + 2), n + 2);
	assert_int_equal(close_range((unsigned)n, (unsigned)n + 2, CLOSE_RANGE_CLOEXEC), 0);
	assert_true(fcntl(n + 2, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(pw_fd_get(&k), n);
	/* closefrom from below ours: the program's above and below it go */
	int below = dup(theirs);
	assert_true(below > copy && below > theirs);
	assert_int_equal(dup2(theirs, n + 3), n + 3);
	closefrom(below);
	assert_false(is_open(below) || is_open(n + 2) || is_open(n + 3));
	assert_int_equal(pw_fd_get(&k), n);
	assert_true(same_file(n, copy));
	pw_fd_close(&k); /* our own close still closes it */
	assert_false(is_open(n));
	close(copy);
	close(theirs);
}

/* A writer appends through a kept descriptor (as the trace writer does,
 * between pw_fd_use_begin and pw_fd_use_end) while the program puts its
 * file on that number again and again (64 times; the writer goes on until
 * then): not a byte of ours in its file, every byte of ours in our file. */
enum { DUPS = 64, LINE = 64 };
static struct pw_fd racing = PW_FD_NONE;
static atomic_int racing_stop, racing_failed;
static atomic_long racing_lines;

static void *append_lines(void *arg)
{
	(void)arg;
	char line[LINE];
	memset(line, 'x', sizeof line);
	long i = 0;
	for (; !atomic_load(&racing_stop); i++) {
		pw_fd_use_begin();
		int fd = pw_fd_get(&racing);
		ssize_t w = fd >= 0 ? pwrite(fd, line, sizeof line, (off_t)i * LINE) : -1;
		pw_fd_use_end();
		if (w != LINE) {
			atomic_store(&racing_failed, 1);
			break;
		}
	}
	atomic_store(&racing_lines, i);
	return NULL;
}

static void dup2_while_writing(void **state)
{
	(void)state;
	int copy = make_file("q", "");
	int theirs = make_file("r", "theirs");
	racing = (struct pw_fd)PW_FD_NONE;
	atomic_store(&racing_stop, 0);
	atomic_store(&racing_failed, 0);
	assert_int_equal(pw_fd_keep(&racing, dup(copy)), 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, append_lines, NULL), 0);
	int took[DUPS], n = 0;
	while (n < DUPS && !atomic_load(&racing_failed)) {
		int at = __atomic_load_n(&racing.fd, __ATOMIC_RELAXED);
		if (at >= 0 && dup2(theirs, at) == at)
			took[n++] = at;
		sched_yield();
	}
	atomic_store(&racing_stop, 1);
	pthread_join(t, NULL);
	assert_false(atomic_load(&racing_failed)); /* every write of ours went to our file */
	assert_int_equal(n, DUPS);
	struct stat st;
	assert_int_equal(fstat(theirs, &st), 0);
	assert_int_equal(st.st_size, 6); /* "theirs", nothing more */
	assert_int_equal(fstat(copy, &st), 0);
	assert_int_equal(st.st_size, (off_t)atomic_load(&racing_lines) * LINE);
	pw_fd_close(&racing);
	for (int i = 0; i < n; i++)
		close(took[i]);
	close(theirs);
	close(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(floor_below_the_soft_limit),
	    cmocka_unit_test(kept_above_the_programs_numbers),
	    cmocka_unit_test(closed_by_the_program),
	    cmocka_unit_test(another_file_on_its_number),
	    cmocka_unit_test(opened_again_only_if_the_same_file),
	    cmocka_unit_test(no_number_free_up_there),
	    cmocka_unit_test(dup2_onto_a_kept_number_moves_ours),
	    cmocka_unit_test(failed_dup2_onto_a_kept_number),
	    cmocka_unit_test(the_programs_close_leaves_ours),
	    cmocka_unit_test(dup2_while_writing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

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
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
	struct pw_fd k = PW_FD_NONE;
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

static void closed_by_the_program(void **state)
{
	(void)state;
	struct pw_fd k = PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, make_file("b", "ours")), 0);
	int n = k.fd;
	close(n);
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

static void another_file_on_its_number(void **state)
{
	(void)state;
	struct pw_fd k = PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, make_file("d", "ours")), 0);
	int n = k.fd, theirs = make_file("e", "theirs");
	assert_int_equal(dup2(theirs, n), n);
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
	struct pw_fd k = PW_FD_NONE;
	assert_int_equal(pw_fd_keep(&k, make_file("f", "ours")), 0);
	close(k.fd);
	assert_int_equal(pw_fd_get(&k), -1);
	int fd = pw_fd_reopen(&k, AT_FDCWD, p, O_RDONLY);
	assert_true(fd >= pw_fd_floor());
	assert_int_equal(pw_fd_get(&k), fd);
	/* another file now has the name: not ours */
	close(k.fd);
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
	struct pw_fd k = PW_FD_NONE;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(floor_below_the_soft_limit),
	    cmocka_unit_test(kept_above_the_programs_numbers),
	    cmocka_unit_test(closed_by_the_program),
	    cmocka_unit_test(another_file_on_its_number),
	    cmocka_unit_test(opened_again_only_if_the_same_file),
	    cmocka_unit_test(no_number_free_up_there),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

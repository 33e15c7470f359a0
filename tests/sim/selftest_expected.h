/*
 * A self-test's child that makes the simulator complain on purpose (a
 * malformed PWSIM_* variable): its stderr comes back through a pipe, each
 * line passed on to the self-test's stderr labelled "(expected) ", so that a
 * reader of the log is not misled, and kept for the test to check.
 *
 *   struct expected_err e;
 *   expected_open(&e);            before fork
 *   expected_child(&e);           in the child
 *   expected_read(&e);            in the parent, before waitpid: e.text
 */
#ifndef PWSIM_SELFTEST_EXPECTED_H
#define PWSIM_SELFTEST_EXPECTED_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct expected_err {
	int fd[2];
	char text[4096];
};

static inline int expected_open(struct expected_err *e)
{
	e->text[0] = '\0';
	fflush(stderr);
	return pipe(e->fd);
}

static inline void expected_child(const struct expected_err *e)
{
	dup2(e->fd[1], STDERR_FILENO);
	close(e->fd[0]);
	close(e->fd[1]);
}

static inline void expected_read(struct expected_err *e)
{
	char line[1024];
	size_t n = 0;
	close(e->fd[1]);
	FILE *f = fdopen(e->fd[0], "r");
	if (!f) {
		close(e->fd[0]);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		size_t len = strlen(line);
		fprintf(stderr, "(expected) %s", line);
		if (n + len < sizeof e->text) {
			memcpy(e->text + n, line, len + 1);
			n += len;
		}
	}
	fclose(f);
}

#endif

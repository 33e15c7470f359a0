/*
 * subreaper COMMAND [ARGS...]: runs COMMAND and waits for it and for every
 * process it leaves behind (it adopts them: PR_SET_CHILD_SUBREAPER), then
 * exits with COMMAND's status as a shell reports it (128 + N for death by
 * signal N).  tests/fault/run.sh runs the launcher under it: when it returns,
 * the launcher's watcher, which outlives the program, has finished too.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: subreaper COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("subreaper: prctl");
		return 2;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("subreaper: fork");
		return 2;
	}
	if (child == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int status = 0, st;
	pid_t p;
	while ((p = wait(&st)) > 0 || (p < 0 && errno == EINTR))
		if (p == child)
			status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	return status;
}

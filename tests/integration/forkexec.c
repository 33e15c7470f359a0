/*
 * A process that calls the driver, forks a child that calls it and exits,
 * and forks another that execs this program again (which calls it too):
 * each of the three must get its own complete trace.
 *   parent: 3 calls before forking, 1 after   -> 4
 *   forked child: 2 calls, then _exit         -> 2
 *   exec'ed child: 5 calls                    -> 5
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"

static CUresult (*can_access)(int *, CUdevice, CUdevice);

static void calls(int n)
{
	for (int i = 0; i < n; i++) {
		int v;
		if (can_access(&v, 0, 1) != CUDA_SUCCESS) {
			fprintf(stderr, "forkexec: call failed\n");
			exit(1);
		}
	}
}

static int wait_ok(pid_t pid)
{
	int st;
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	can_access = h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	if (!init || !can_access || init(0) != CUDA_SUCCESS) {
		fprintf(stderr, "forkexec: no driver\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "exec-child")) {
		calls(5);
		return 0;
	}
	calls(3);
	pid_t a = fork();
	if (a == 0) {
		calls(2);
		_exit(0); /* as forked workers leave: no destructors */
	}
	/* one child after the other, so that the reports list them in one order */
	if (!wait_ok(a)) {
		fprintf(stderr, "forkexec: a child failed\n");
		return 1;
	}
	pid_t b = fork();
	if (b == 0) {
		execl(argv[0], argv[0], "exec-child", (char *)NULL);
		_exit(127);
	}
	if (!wait_ok(b)) {
		fprintf(stderr, "forkexec: a child failed\n");
		return 1;
	}
	calls(1);
	printf("%d %d %d\n", (int)getpid(), (int)a, (int)b);
	return 0;
}

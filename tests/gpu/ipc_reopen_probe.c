/*
 * Measures what the driver answers when one process opens the same IPC
 * memory handle twice (docs/facts-cuda.md, "Every contract case" says "success, same pointer",
 * which may have been the runtime API's answer).  Prints one line per step.
 * Built with: cc -I$CUDA_HOME/include ipc_reopen_probe.c -lcuda
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static CUcontext ctx_on(int ordinal)
{
	CUdevice d;
	CUcontext c;
	cuDeviceGet(&d, ordinal);
	cuDevicePrimaryCtxRetain(&c, d);
	cuCtxSetCurrent(c);
	return c;
}

int main(void)
{
	int fds[2], back[2];
	if (pipe(fds) || pipe(back))
		return 1;
	pid_t pid = fork(); /* before any CUDA call */
	if (pid == 0) {
		CUipcMemHandle h;
		if (read(fds[0], &h, sizeof h) != (ssize_t)sizeof h)
			_exit(1);
		cuInit(0);
		ctx_on(1);
		CUdeviceptr p1 = 0, p2 = 0;
		CUresult r1 = cuIpcOpenMemHandle(&p1, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
		CUresult r2 = cuIpcOpenMemHandle(&p2, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
		printf("open #1: %d; open #2 of the same handle: %d; same pointer: %s\n", r1, r2,
		       r2 == CUDA_SUCCESS && p1 == p2 ? "yes" : "no");
		printf("close #1: %d\n", cuIpcCloseMemHandle(p1));
		printf("close #2: %d\n", cuIpcCloseMemHandle(p1));
		fflush(stdout);
		char ok = 1;
		if (write(back[1], &ok, 1) != 1)
			_exit(1);
		_exit(0);
	}
	cuInit(0);
	ctx_on(0);
	CUdeviceptr a;
	cuMemAlloc(&a, 1 << 20);
	CUipcMemHandle h;
	printf("export: %d\n", cuIpcGetMemHandle(&h, a));
	fflush(stdout);
	if (write(fds[1], &h, sizeof h) != (ssize_t)sizeof h)
		return 1;
	char ok;
	if (read(back[0], &ok, 1) != 1)
		return 1;
	waitpid(pid, NULL, 0);
	cuMemFree(a);
	return 0;
}

/*
 * Test programs for the analyzer, against the simulated driver (or a real
 * one), run under peerwatch by tests/analyze/run.sh.
 *
 *   ipc_free_while_open
 *       The exporter allocates on device 0, exports an IPC handle, and
 *       forks+execs an importer.  The importer (device 1) opens the handle
 *       and says so through a pipe; the exporter then frees the allocation
 *       while the importer still has it open, and tells it; the importer
 *       closes its mapping and exits.  The traces must show the free
 *       between the open and the close: ipc.free-while-open.
 *   ipc_free_while_open interior
 *       The same, with the handle asked first for a pointer 256 bytes into
 *       the allocation, then for its base (the same handle): the free of the
 *       base is the free of what was exported, so the free while open is
 *       found all the same.
 *   ipc_free_while_open exit-first
 *       The importer opens the handle and exits without closing it; the
 *       exporter frees only after that: no free while open (the mapping went
 *       with the importer), but a leak.
 *   ipc_free_while_open killed-first
 *       The importer opens the handle and is killed (SIGKILL, its trace left
 *       .partial) before the exporter frees: no free while open either.
 *   ipc_free_while_open crash
 *       Makes a few calls, prints "ready", and waits to be killed (kill -9
 *       by the script), so its trace is left .partial.
 *
 * Every step is checked; a surprise exits 1 with the line.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"

#define IMPORTER_RFD 100
#define IMPORTER_WFD 101

static struct {
	CUresult (*init)(unsigned);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*set_current)(CUcontext);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*free)(CUdeviceptr);
	CUresult (*get_handle)(CUipcMemHandle *, CUdeviceptr);
	CUresult (*open_handle)(CUdeviceptr *, CUipcMemHandle, unsigned);
	CUresult (*close_handle)(CUdeviceptr);
	CUresult (*can_access)(int *, CUdevice, CUdevice);
} cu;

#define CHECK(x)                                                                              \
	do {                                                                                  \
		if (!(x)) {                                                                   \
			fprintf(stderr, "ipc_free_while_open:%d: %s failed\n", __LINE__, #x); \
			exit(1);                                                              \
		}                                                                             \
	} while (0)
#define OK(call) CHECK((call) == CUDA_SUCCESS)

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "ipc_free_while_open: no %s in libcuda.so.1\n", name);
		exit(1);
	}
	return p;
}

/* The driver, through dlopen as a program without -lcuda reaches it. */
static void load(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CHECK(h != NULL);
	*(void **)&cu.init = sym(h, "cuInit");
	*(void **)&cu.device_get = sym(h, "cuDeviceGet");
	*(void **)&cu.retain = sym(h, "cuDevicePrimaryCtxRetain");
	*(void **)&cu.set_current = sym(h, "cuCtxSetCurrent");
	*(void **)&cu.alloc = sym(h, "cuMemAlloc_v2");
	*(void **)&cu.free = sym(h, "cuMemFree_v2");
	*(void **)&cu.get_handle = sym(h, "cuIpcGetMemHandle");
	*(void **)&cu.open_handle = sym(h, "cuIpcOpenMemHandle_v2");
	*(void **)&cu.close_handle = sym(h, "cuIpcCloseMemHandle");
	*(void **)&cu.can_access = sym(h, "cuDeviceCanAccessPeer");
	OK(cu.init(0));
}

static void use_device(int ordinal)
{
	CUdevice dev;
	CUcontext ctx;
	OK(cu.device_get(&dev, ordinal));
	OK(cu.retain(&ctx, dev));
	OK(cu.set_current(ctx));
}

static void hex(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void unhex(const char *s, unsigned char *b, size_t n)
{
	CHECK(strlen(s) == 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		CHECK(sscanf(s + 2 * i, "%2x", &v) == 1);
		b[i] = (unsigned char)v;
	}
}

static void say(int fd, char c)
{
	CHECK(write(fd, &c, 1) == 1);
}

static void expect(int fd, char want)
{
	char c;
	CHECK(read(fd, &c, 1) == 1 && c == want);
}

/* importer MODE HANDLE READ_FD WRITE_FD */
static int importer(char **argv)
{
	CUipcMemHandle h;
	CUdeviceptr p;
	const char *mode = argv[2];
	int rfd = atoi(argv[4]), wfd = atoi(argv[5]);
	unhex(argv[3], (unsigned char *)h.reserved, sizeof h.reserved);
	load();
	use_device(1);
	OK(cu.open_handle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	say(wfd, 'o');
	if (!strcmp(mode, "exit-first"))
		return 0; /* with the mapping open */
	if (!strcmp(mode, "killed-first"))
		for (;;)
			pause();
	expect(rfd, 'f'); /* the exporter freed it: the mapping is still open here */
	OK(cu.close_handle(p));
	say(wfd, 'c');
	return 0;
}

static int exporter(const char *self, const char *mode)
{
	int to_child[2], to_parent[2];
	CUdeviceptr p;
	CUipcMemHandle h;
	char hh[2 * sizeof h.reserved + 1], rfd[16], wfd[16];
	load();
	use_device(0);
	OK(cu.alloc(&p, 1 << 20));
	if (!strcmp(mode, "interior"))
		OK(cu.get_handle(&h, p + 256)); /* the same handle as the base's */
	OK(cu.get_handle(&h, p));
	hex((unsigned char *)h.reserved, sizeof h.reserved, hh);
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
	/* fixed descriptors in the importer, so its command line is the same each run */
	snprintf(rfd, sizeof rfd, "%d", IMPORTER_RFD);
	snprintf(wfd, sizeof wfd, "%d", IMPORTER_WFD);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (dup2(to_child[0], IMPORTER_RFD) < 0 || dup2(to_parent[1], IMPORTER_WFD) < 0)
			_exit(127);
		execl("/proc/self/exe", self, "importer", mode, hh, rfd, wfd, (char *)NULL);
		_exit(127);
	}
	expect(to_parent[0], 'o');
	int st;
	if (!strcmp(mode, "exit-first")) {
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		OK(cu.free(p)); /* the importer is gone, and its mapping with it */
		return 0;
	}
	if (!strcmp(mode, "killed-first")) {
		usleep(400 * 1000); /* its trace writer flushes at least every 100 ms */
		CHECK(kill(pid, SIGKILL) == 0);
		CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
		OK(cu.free(p));
		return 0;
	}
	OK(cu.free(p)); /* while the importer has it open */
	say(to_child[1], 'f');
	expect(to_parent[0], 'c');
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return 0;
}

/* A few calls, then wait for SIGKILL. */
static int crash(void)
{
	int v;
	load();
	use_device(0);
	for (int i = 0; i < 5; i++)
		OK(cu.can_access(&v, 0, 1));
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "importer"))
		return importer(argv);
	if (argc == 2 && !strcmp(argv[1], "crash"))
		return crash();
	if (argc == 1)
		return exporter(argv[0], "free");
	if (argc == 2 && (!strcmp(argv[1], "interior") || !strcmp(argv[1], "exit-first") ||
	                  !strcmp(argv[1], "killed-first")))
		return exporter(argv[0], argv[1]);
	fprintf(stderr, "usage: ipc_free_while_open [interior|exit-first|killed-first|crash]\n");
	return 2;
}

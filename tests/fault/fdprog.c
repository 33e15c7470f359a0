/*
 * A program that counts on its descriptor numbers: under peerwatch it must
 * get the same numbers, read the same bytes and write the same files as
 * untraced (tests/fault/run.sh, "descriptors").
 *
 *   fdprog std OUT           meant to start with some of 0, 1, 2 closed:
 *                            traced calls, then its first fopen (of OUT),
 *                            a read of stdin and a write of stdout; OUT
 *                            says what each gave.  Status 1 if the write
 *                            failed (as echo), else 0.
 *   fdprog daemon IN OUT     traced calls with findings, then as a daemon:
 *                            closes 3..1023, opens IN and OUT, more traced
 *                            calls with findings from call sites not seen
 *                            before, then copies IN into OUT.
 *   fdprog dup2 OUT LIST     traced calls with findings, then puts OUT's
 *                            file with dup2 on every descriptor it did not
 *                            open itself nor have at start (/proc/self/fd:
 *                            peerwatch's),
 *                            more traced calls, then writes its data into
 *                            OUT through its own descriptor.  The numbers
 *                            it found go into LIST (not compared: untraced
 *                            there are none).
 *
 * Every line a mode writes into OUT is the same traced and untraced when
 * peerwatch keeps out of the program's descriptors.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"

static CUresult (*can_access)(int *, CUdevice, CUdevice);
static CUresult (*enable)(CUcontext, unsigned);
static CUcontext ctx;
static volatile long sink;

static void driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	CUresult (*retain)(CUcontext *, CUdevice) =
	    h ? (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain") : NULL;
	CUresult (*set_current)(CUcontext) = h ? (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent") : NULL;
	can_access = h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	enable = h ? (CUresult(*)(CUcontext, unsigned))dlsym(h, "cuCtxEnablePeerAccess") : NULL;
	if (!init || !retain || !set_current || !can_access || !enable || init(0) != CUDA_SUCCESS ||
	    retain(&ctx, 0) != CUDA_SUCCESS || set_current(ctx) != CUDA_SUCCESS) {
		dprintf(2, "fdprog: no driver\n");
		exit(3);
	}
}

static void good_calls(int n)
{
	for (int i = 0; i < n; i++) {
		int v = 0;
		sink += can_access(&v, 0, 1) + v;
	}
}

/* Peer access enabled on the current context itself (peer.enable.self): the
 * driver refuses it and nothing changes.  Each function is a call site of
 * its own, whose first finding takes a stack. */
#define BAD(name)                                        \
	__attribute__((noinline)) static void name(void) \
	{                                                \
		sink += enable(ctx, 0) + __LINE__;       \
	}
BAD(bad_before0)
BAD(bad_after0)
BAD(bad_after1)
BAD(bad_after2)

static int std_mode(const char *out_path)
{
	driver();
	good_calls(20);
	FILE *f = fopen(out_path, "w");
	if (!f)
		return 4;
	fprintf(f, "first fopen: descriptor %d\n", fileno(f));
	char c;
	ssize_t r = read(0, &c, 1);
	fprintf(f, "read(0): %zd%s%s\n", r, r < 0 ? " " : "", r < 0 ? strerrorname_np(errno) : "");
	ssize_t w = write(1, "hello\n", 6);
	int e = errno;
	fprintf(f, "write(1): %zd%s%s\n", w, w < 0 ? " " : "", w < 0 ? strerrorname_np(e) : "");
	good_calls(20);
	fclose(f);
	return w == 6 ? 0 : 1;
}

static int daemon_mode(const char *in_path, const char *out_path)
{
	driver();
	good_calls(20);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int in = open(in_path, O_RDONLY), out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		return 4;
	dprintf(out, "in on %d, out on %d\n", in, out);
	good_calls(20);
	bad_after0();
	bad_after1();
	bad_after2();
	good_calls(20);
	char buf[4096];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			return 5;
	close(in);
	close(out);
	return 0;
}

/* The descriptors open now, but the directory's own, into fds: how many. */
static int open_now(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			fds[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* Those inherited from whoever started the program (main's first act). */
static int inherited[64], n_inherited;

/* Every descriptor open but those inherited and `own`. */
static int others(int own, int *fds, int max)
{
	int now[256], n = 0, k = open_now(now, 256);
	for (int i = 0; i < k && n < max; i++) {
		int mine = now[i] == own;
		for (int j = 0; j < n_inherited && !mine; j++)
			mine = now[i] == inherited[j];
		if (!mine)
			fds[n++] = now[i];
	}
	return k < 0 ? -1 : n;
}

static int dup2_mode(const char *out_path, const char *list_path)
{
	driver();
	good_calls(20);
	bad_before0();
	int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return 4;
	int fds[64];
	int n = others(out, fds, 64);
	if (n < 0)
		return 4;
	FILE *list = fopen(list_path, "w");
	if (!list)
		return 4;
	for (int i = 0; i < n; i++) {
		char what[256] = "";
		char link[64];
		snprintf(link, sizeof link, "/proc/self/fd/%d", fds[i]);
		ssize_t len = readlink(link, what, sizeof what - 1);
		what[len > 0 ? len : 0] = 0;
		fprintf(list, "%d %s\n", fds[i], what);
	}
	fclose(list);
	for (int i = 0; i < n; i++)
		if (dup2(out, fds[i]) < 0)
			return 5;
	good_calls(50);
	bad_after0();
	bad_after1();
	good_calls(50);
	for (int i = 0; i < 100; i++)
		dprintf(out, "line %d of the program's own data\n", i);
	close(out);
	return 0;
}

int main(int argc, char **argv)
{
	n_inherited = open_now(inherited, 64);
	if (argc == 3 && !strcmp(argv[1], "std"))
		return std_mode(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "daemon"))
		return daemon_mode(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "dup2"))
		return dup2_mode(argv[2], argv[3]);
	dprintf(2, "usage: fdprog std OUT | daemon IN OUT | dup2 OUT LIST\n");
	return 2;
}

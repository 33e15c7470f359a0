/*
 * The IPC, peer and event contract cases on real GPUs, one case per run:
 *
 *   contract list        the cases, one a line
 *   contract CASE        run it (an IPC case starts an importer: this program
 *                        again, `contract child CASE HEX...`)
 *
 * Each case does what a program does when it meets (or breaks) one documented
 * contract, and prints what the driver answered, one line per call:
 * "CASE: what -> result".  The answers are measurements in their own right
 * (second contexts, address reuse, the lazy flag's peer access, a free of
 * an IPC mapping are not in the vendors' documents); tests/gpu/before_after.sh
 * runs every case under two peerwatch bundles and counts the findings each
 * reports per rule.  Which finding each case should give is in `list`'s
 * second column ("-" for none).
 *
 * Built by tests/gpu/gpu.mk against the toolkit's headers, the driver (its
 * stub at link time) and the shared libcudart.  Exit 0 unless a call a case
 * needs to go on fails (then 1), 2 on usage, 77 with fewer than two GPUs.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static const char *self, *name;
static CUcontext ctx[2];

#define MUST(x)                                                                                   \
	do {                                                                                      \
		CUresult r_ = (x);                                                                \
		if (r_ != CUDA_SUCCESS) {                                                         \
			fprintf(stderr, "contract: %s: %s -> %d (line %d)\n", name, #x, (int)r_, \
			        __LINE__);                                                        \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

/* A call whose answer is what the case measures: printed, not checked. */
static int said(const char *what, int r)
{
	printf("%s: %s -> %d\n", name, what, r);
	fflush(stdout);
	return r;
}
#define SAY(x) said(#x, (int)(x))

static void init(void)
{
	int n = 0;
	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&n));
	if (n < 2) {
		printf("contract: needs two GPUs, found %d\n", n);
		exit(77);
	}
	for (int d = 0; d < 2; d++) {
		CUdevice dev;
		MUST(cuDeviceGet(&dev, d));
		MUST(cuDevicePrimaryCtxRetain(&ctx[d], dev));
	}
	MUST(cuCtxSetCurrent(ctx[0]));
}

static CUdeviceptr alloc_on(int d, size_t n)
{
	CUdeviceptr p;
	MUST(cuCtxSetCurrent(ctx[d]));
	MUST(cuMemAlloc(&p, n));
	MUST(cuCtxSetCurrent(ctx[0]));
	return p;
}

static void hex(const void *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void unhex(const char *s, void *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			exit(2);
		((unsigned char *)p)[i] = (unsigned char)v;
	}
}

/* ---- the importer ---- */

struct child {
	pid_t pid;
	int to, from;
};

/* The child gets the case, two 64-byte handles as hex and its pipes. */
static struct child spawn(const void *h1, const void *h2)
{
	int a[2], b[2];
	char x1[129], x2[129], fa[16], fb[16];
	if (pipe(a) || pipe(b))
		exit(1);
	hex(h1, 64, x1);
	hex(h2 ? h2 : h1, 64, x2);
	snprintf(fa, sizeof fa, "%d", a[0]);
	snprintf(fb, sizeof fb, "%d", b[1]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		execl(self, self, "child", name, x1, x2, fa, fb, (char *)NULL);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	return (struct child){pid, a[1], b[0]};
}

static void say(int fd)
{
	char c = 1;
	if (write(fd, &c, 1) != 1)
		exit(1);
}

static int hear(int fd)
{
	char c;
	return read(fd, &c, 1) == 1;
}

static void reap(struct child c)
{
	int st;
	close(c.to);
	close(c.from);
	if (waitpid(c.pid, &st, 0) != c.pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "contract: %s: the importer failed\n", name);
		exit(1);
	}
}

static const unsigned lazy = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;

static int child(const char *x1, const char *x2, int in, int out)
{
	CUipcMemHandle h, h2;
	CUipcEventHandle eh;
	CUdeviceptr p = 0, q = 0, r = 0;
	CUevent e = NULL;
	unhex(x1, &h, sizeof h);
	unhex(x2, &h2, sizeof h2);
	memcpy(&eh, &h, sizeof eh);
	init();
	MUST(cuCtxSetCurrent(ctx[1])); /* the exporter's memory is on device 0 */
	if (!strcmp(name, "reopen") || !strcmp(name, "reopen-leak")) {
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		MUST(cuIpcOpenMemHandle(&q, h, lazy));
		said("second open in device 1's context returned the same pointer", p == q);
		MUST(cuCtxSetCurrent(ctx[0]));
		MUST(cuIpcOpenMemHandle(&r, h, lazy));
		said("open in device 0's context returned another pointer", r != p);
		SAY(cuIpcCloseMemHandle(r));
		MUST(cuCtxSetCurrent(ctx[1]));
		SAY(cuIpcCloseMemHandle(q));
		if (!strcmp(name, "reopen"))
			SAY(cuIpcCloseMemHandle(p));
	} else if (!strcmp(name, "second-context")) {
		CUcontext mine;
		CUdevice d1;
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		MUST(cuDeviceGet(&d1, 1));
#if CUDA_VERSION >= 13000
		MUST(cuCtxCreate(&mine, NULL, 0, d1));
#else
		MUST(cuCtxCreate(&mine, 0, d1));
#endif
		if (SAY(cuIpcOpenMemHandle(&q, h, lazy)) == CUDA_SUCCESS) {
			said("open in a second context of device 1 returned another pointer", q != p);
			SAY(cuIpcCloseMemHandle(q));
		}
		MUST(cuCtxDestroy(mine));
		MUST(cuCtxSetCurrent(ctx[1]));
		SAY(cuIpcCloseMemHandle(p));
	} else if (!strcmp(name, "address-reuse")) {
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		SAY(cuIpcCloseMemHandle(p));
		MUST(cuIpcOpenMemHandle(&q, h2, lazy));
		said("another handle opened after the close got the closed mapping's address", p == q);
		SAY(cuIpcCloseMemHandle(q));
	} else if (!strcmp(name, "lazy-enable")) {
		int can = -1;
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		MUST(cuDeviceCanAccessPeer(&can, 1, 0));
		SAY(cuCtxEnablePeerAccess(ctx[0], 0)); /* already, by the lazy flag? */
		SAY(cuIpcCloseMemHandle(p));
		SAY(cuCtxEnablePeerAccess(ctx[0], 0)); /* and after the last close? */
	} else if (!strcmp(name, "lazy-copy")) {
		/* which device and context the driver names for the mapping (and
		 * inside it), and a copy naming either device's context for it */
		CUdeviceptr mine;
		CUcontext owner = NULL;
		int ord = -1;
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		MUST(cuMemAlloc(&mine, MIB));
		MUST(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p + 4096));
		said("the device ordinal attribute inside the mapping", ord);
		MUST(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p + 4096));
		said("the context attribute inside the mapping is device 1's (the importing one)",
		     owner == ctx[1]);
		said("... is device 0's (the exporter's)", owner == ctx[0]);
		SAY(cuMemcpyPeer(mine, ctx[1], p, ctx[1], MIB));
		SAY(cuMemcpyPeer(mine, ctx[1], p, ctx[0], MIB));
		MUST(cuCtxSynchronize());
		MUST(cuMemFree(mine));
		SAY(cuIpcCloseMemHandle(p));
	} else if (!strcmp(name, "killed-importer")) {
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		say(out);
		for (;;)
			pause(); /* the exporter kills us holding the mapping */
	} else if (!strcmp(name, "free-imported")) {
		MUST(cuIpcOpenMemHandle(&p, h, lazy));
		SAY(cuMemFree(p));
		SAY(cuIpcCloseMemHandle(p));
	} else if (!strcmp(name, "open-unexported")) {
		h.reserved[40] ^= 0x5a; /* bytes no process exported */
		if (SAY(cuIpcOpenMemHandle(&p, h, lazy)) == CUDA_SUCCESS)
			SAY(cuIpcCloseMemHandle(p));
	} else if (!strcmp(name, "event-leak") || !strcmp(name, "event-destroy-while-open")) {
		MUST(cuIpcOpenEventHandle(&e, eh));
		if (!strcmp(name, "event-destroy-while-open")) {
			say(out);
			hear(in); /* the exporter destroys its event now */
			SAY(cuEventDestroy(e));
		}
	} else {
		return 2;
	}
	say(out);
	return 0;
}

/* ---- the cases (the exporter's side) ---- */

/* Export a 1 MiB allocation of device 0, run the importer, free. */
static void with_importer(void)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	MUST(cuIpcGetMemHandle(&h, a));
	struct child c = spawn(&h, NULL);
	hear(c.from);
	reap(c);
	MUST(cuMemFree(a));
}

static void address_reuse(void)
{
	CUdeviceptr a = alloc_on(0, MIB), b = alloc_on(0, MIB);
	CUipcMemHandle ha, hb;
	MUST(cuIpcGetMemHandle(&ha, a));
	MUST(cuIpcGetMemHandle(&hb, b));
	struct child c = spawn(&ha, &hb);
	hear(c.from);
	reap(c);
	MUST(cuMemFree(a));
	MUST(cuMemFree(b));
}

/* The importer dies holding the mapping; the exporter frees before reaping it. */
static void killed_importer(void)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	MUST(cuIpcGetMemHandle(&h, a));
	struct child c = spawn(&h, NULL);
	hear(c.from);
	kill(c.pid, SIGKILL);
	usleep(200 * 1000); /* dead, not yet reaped: a zombie */
	SAY(cuMemFree(a));
	int st;
	waitpid(c.pid, &st, 0);
	close(c.to);
	close(c.from);
}

static void invalid_ordinal(void)
{
	int can = -1, v = -1;
	void *a, *b;
	cudaSetDevice(0);
	cudaFree(0); /* the runtime's context first */
	SAY(cudaDeviceCanAccessPeer(&can, 0, 9));
	SAY(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 9));
	SAY(cudaDeviceEnablePeerAccess(9, 0));
	if (cudaMalloc(&a, MIB) || cudaMalloc(&b, MIB))
		exit(1);
	SAY(cudaMemcpyPeer(b, 9, a, 0, MIB));
	cudaGetLastError();
	cudaFree(a);
	cudaFree(b);
}

static void export_host(void)
{
	static char buf[1 << 16];
	CUipcMemHandle h;
	SAY(cuIpcGetMemHandle(&h, (CUdeviceptr)(uintptr_t)buf));
}

static void export_freed(void)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	MUST(cuMemFree(a));
	SAY(cuIpcGetMemHandle(&h, a));
}

static void event_flags(void)
{
	CUevent e;
	CUipcEventHandle h;
	MUST(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	SAY(cuIpcGetEventHandle(&h, e));
	MUST(cuEventDestroy(e));
}

static void event_same_process(void)
{
	CUevent e, o;
	CUipcEventHandle h;
	MUST(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS));
	MUST(cuIpcGetEventHandle(&h, e));
	if (SAY(cuIpcOpenEventHandle(&o, h)) == CUDA_SUCCESS)
		MUST(cuEventDestroy(o));
	MUST(cuEventDestroy(e));
}

static void event_child(int destroy_while_open)
{
	CUevent e;
	CUipcEventHandle h;
	MUST(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS));
	MUST(cuIpcGetEventHandle(&h, e));
	struct child c = spawn(&h, NULL);
	hear(c.from);
	if (destroy_while_open) {
		SAY(cuEventDestroy(e));
		say(c.to);
		hear(c.from);
	}
	reap(c);
	if (!destroy_while_open)
		MUST(cuEventDestroy(e));
}

static void event_leak(void)
{
	event_child(0);
}

static void event_destroy_while_open(void)
{
	event_child(1);
}

static const struct {
	const char *name, *expect;
	void (*run)(void);
} cases[] = {
    /* item 1: the driver's IPC mappings */
    {"reopen", "-", with_importer},
    {"reopen-leak", "ipc.leak", with_importer},
    {"second-context", "ipc.open.second-context", with_importer},
    {"address-reuse", "-", address_reuse},
    {"lazy-enable", "peer.enable.twice x2", with_importer},
    {"lazy-copy", "-", with_importer},
    {"killed-importer", "-", killed_importer},
    /* item 2: documented breaks */
    {"invalid-ordinal", "peer.invalid-device x4", invalid_ordinal},
    {"export-host", "ipc.export.host", export_host},
    {"export-freed", "ipc.export.freed", export_freed},
    {"free-imported", "ipc.free-imported", with_importer},
    {"open-unexported", "ipc.open.unexported", with_importer},
    {"event-flags", "ipc.event.flags", event_flags},
    {"event-same-process", "ipc.event.same-process", event_same_process},
    {"event-leak", "ipc.event.leak", event_leak},
    {"event-destroy-while-open", "ipc.event.destroy-while-open", event_destroy_while_open},
};

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 7 && !strcmp(argv[1], "child")) {
		name = argv[2];
		return child(argv[3], argv[4], atoi(argv[5]), atoi(argv[6]));
	}
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
			printf("%s %s\n", cases[i].name, cases[i].expect);
		return 0;
	}
	for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof *cases; i++)
		if (!strcmp(argv[1], cases[i].name)) {
			name = cases[i].name;
			init();
			cases[i].run();
			return 0;
		}
	fprintf(stderr, "usage: contract list | contract CASE\n");
	return 2;
}

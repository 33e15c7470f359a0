/*
 * Peer access per context, and the context and pointer breaks of peer calls,
 * asked of the real driver: one case per process, most on ONE GPU.
 *
 *   contract_ctx list        the cases: name, GPUs needed, the findings
 *                            peerwatch should give on two GPUs ("-" for none)
 *   contract_ctx CASE        run it
 *   contract_ctx all         run every case, each in a process of its own
 *                            (a case needing two GPUs on one: "skipped")
 *
 * Each case prints what the driver answered, one line per call: "CASE:
 * what -> result" (a CUresult, or cudaError_t for the runtime's calls).
 * The questions (CUDA Driver API, Peer Context Memory Access and Memory
 * Management; docs/facts-cuda.md lists what is measured): is peer access
 * per pair of contexts (a second context of a device enabling what its
 * primary context enabled; the primary context after cuDevicePrimaryCtxReset,
 * its last release, or cudaDeviceReset; a context at a destroyed one's
 * address), what do enable and disable answer with no current context or a
 * destroyed peer context, what does cuMemcpyPeer answer for host memory
 * (malloc'd and page-locked), freed memory, a destroyed context, two
 * contexts of one device, and does a copy between contexts without peer
 * access run at the staged speed (copy-*-bw: GB/s of 256 MiB copies).
 *
 * Built by tests/gpu/gpu.mk against the toolkit's headers, the driver (its
 * stub at link time) and the shared libcudart (one case).  Exit 0 unless a
 * call a case needs to go on fails (then 1); 2 on usage.  Run it untraced
 * for the driver's answers, and under peerwatch (warn mode) to see the
 * findings next to `list`'s column.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define BW_BYTES (256 * MIB)

static const char *name;
static CUcontext ctx[2];
static int ngpu;

#define MUST(x)                                                                                      \
	do {                                                                                         \
		CUresult r_ = (x);                                                                   \
		if (r_ != CUDA_SUCCESS) {                                                            \
			fprintf(stderr, "contract_ctx: %s: %s -> %d (line %d)\n", name, #x, (int)r_, \
			        __LINE__);                                                           \
			exit(1);                                                                     \
		}                                                                                    \
	} while (0)

/* A call whose answer is what the case measures: printed, not checked. */
static int said(const char *what, int r)
{
	printf("%s: %s -> %d\n", name, what, r);
	fflush(stdout);
	return r;
}
#define SAY(x) said(#x, (int)(x))

/* A second context of device d, not left current (CUDA 13's cuCtxCreate
 * takes creation parameters, NULL for none). */
static CUcontext made_on(int d)
{
	CUcontext c, popped;
	CUdevice dev;
	MUST(cuDeviceGet(&dev, d));
#if CUDA_VERSION >= 13000
	MUST(cuCtxCreate(&c, NULL, 0, dev));
#else
	MUST(cuCtxCreate(&c, 0, dev));
#endif
	MUST(cuCtxPopCurrent(&popped));
	return c;
}

static void init(void)
{
	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&ngpu));
	for (int d = 0; d < ngpu && d < 2; d++) {
		CUdevice dev;
		MUST(cuDeviceGet(&dev, d));
		MUST(cuDevicePrimaryCtxRetain(&ctx[d], dev));
	}
	MUST(cuCtxSetCurrent(ctx[0]));
}

static CUdeviceptr alloc_on(CUcontext c, size_t n)
{
	CUdeviceptr p;
	MUST(cuCtxPushCurrent(c));
	MUST(cuMemAlloc(&p, n));
	MUST(cuCtxPopCurrent(&c));
	return p;
}

/* The peer of a case on one GPU or two: device 1's primary context, or on
 * one GPU a second context of device 0 (which the driver may refuse as a
 * peer of its own device: that answer is worth having too). */
static CUcontext the_peer(CUcontext *made)
{
	*made = ngpu >= 2 ? NULL : made_on(0);
	return ngpu >= 2 ? ctx[1] : *made;
}

static void enable_from(CUcontext from, CUcontext to, const char *what)
{
	MUST(cuCtxSetCurrent(from));
	said(what, (int)cuCtxEnablePeerAccess(to, 0));
	MUST(cuCtxSetCurrent(ctx[0]));
}

/* GB/s of BW_BYTES synchronous cuMemcpyPeer copies, dst's context to src's. */
static void bandwidth(const char *what, CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc)
{
	struct timespec a, b;
	if (cuMemcpyPeer(dst, dc, src, sc, BW_BYTES) != CUDA_SUCCESS) { /* warm-up */
		printf("%s: %s -> copy failed\n", name, what);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 4; i++)
		MUST(cuMemcpyPeer(dst, dc, src, sc, BW_BYTES));
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%s: %s -> %.1f GB/s\n", name, what, 4.0 * (double)BW_BYTES / s / 1e9);
	fflush(stdout);
}

/* ---- peer access per pair of contexts (two GPUs) ---- */

static void enable_second_context(void)
{
	CUcontext m = made_on(0);
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1)");
	enable_from(m, ctx[1], "enable second context of 0 -> primary(1)");
	enable_from(m, ctx[1], "the same again");
	enable_from(ctx[0], ctx[1], "primary(0) -> primary(1) again");
	MUST(cuCtxDestroy(m));
}

/* A primary context after cuDevicePrimaryCtxReset is inactive (709) until
 * retained again (one H200, driver 580): reset, then retained. */
static void reset_primary(int d)
{
	CUcontext again;
	SAY(cuDevicePrimaryCtxReset(d));
	MUST(cuDevicePrimaryCtxRetain(&again, d));
	printf("%s: retained again, the same handle -> %d\n", name, again == ctx[d]);
	ctx[d] = again;
}

static void enable_after_reset(void)
{
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1)");
	reset_primary(0);
	enable_from(ctx[0], ctx[1], "the same after cuDevicePrimaryCtxReset(0)");
}

static void enable_after_peer_reset(void)
{
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1)");
	reset_primary(1);
	enable_from(ctx[0], ctx[1], "the same after cuDevicePrimaryCtxReset(1), the peer's");
}

/* A reset primary context used before it is retained again. */
static void use_after_reset(void)
{
	CUdeviceptr p;
	unsigned flags;
	int active = -1;
	SAY(cuDevicePrimaryCtxReset(0));
	SAY(cuDevicePrimaryCtxGetState(0, &flags, &active));
	printf("%s: active after the reset -> %d\n", name, active);
	SAY(cuMemAlloc(&p, MIB));
	if (ngpu >= 2)
		SAY(cuCtxEnablePeerAccess(ctx[1], 0));
}

static void enable_after_release(void)
{
	CUcontext again;
	unsigned flags;
	int active = -1;
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1)");
	MUST(cuCtxSetCurrent(NULL));
	SAY(cuDevicePrimaryCtxRelease(0)); /* the last reference: "automatically reset" */
	SAY(cuDevicePrimaryCtxGetState(0, &flags, &active));
	printf("%s: active after the last release -> %d\n", name, active);
	MUST(cuDevicePrimaryCtxRetain(&again, 0));
	printf("%s: retained again, the same handle -> %d\n", name, again == ctx[0]);
	ctx[0] = again;
	enable_from(again, ctx[1], "the same after the last release and a retain");
}

static void enable_after_destroy(void)
{
	CUcontext a = made_on(0), b;
	enable_from(a, ctx[1], "enable second context A of 0 -> primary(1)");
	MUST(cuCtxDestroy(a));
	b = made_on(0);
	printf("%s: a new context at A's address -> %d\n", name, a == b);
	enable_from(b, ctx[1], "enable new context B of 0 -> primary(1)");
	MUST(cuCtxDestroy(b));
}

static void runtime_reset(void)
{
	MUST(cuCtxSetCurrent(NULL));
	said("cudaSetDevice(0)", (int)cudaSetDevice(0));
	said("cudaDeviceEnablePeerAccess(1, 0)", (int)cudaDeviceEnablePeerAccess(1, 0));
	said("cudaDeviceReset()", (int)cudaDeviceReset());
	said("cudaDeviceEnablePeerAccess(1, 0) after the reset", (int)cudaDeviceEnablePeerAccess(1, 0));
	said("cudaGetLastError()", (int)cudaGetLastError());
}

/* A copy 0 -> 1 naming the primary contexts, peer access on both ways; then
 * device 1 reset and the same copy (memory allocated anew). */
static void copy_after_reset_bw(void)
{
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1)");
	enable_from(ctx[1], ctx[0], "enable primary(1) -> primary(0)");
	CUdeviceptr a0 = alloc_on(ctx[0], BW_BYTES), a1 = alloc_on(ctx[1], BW_BYTES);
	bandwidth("copy 0 -> 1, peer access on", a1, ctx[1], a0, ctx[0]);
	MUST(cuMemFree(a0));
	MUST(cuCtxSetCurrent(ctx[1]));
	MUST(cuMemFree(a1));
	MUST(cuCtxSetCurrent(ctx[0]));
	reset_primary(1);
	a0 = alloc_on(ctx[0], BW_BYTES);
	a1 = alloc_on(ctx[1], BW_BYTES);
	bandwidth("the same after cuDevicePrimaryCtxReset(1)", a1, ctx[1], a0, ctx[0]);
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1) again");
}

/* Peer access between the primary contexts; a copy naming a second context
 * of device 0 for the source, which enabled nothing. */
static void copy_second_context_bw(void)
{
	CUcontext m = made_on(0);
	enable_from(ctx[0], ctx[1], "enable primary(0) -> primary(1)");
	enable_from(ctx[1], ctx[0], "enable primary(1) -> primary(0)");
	CUdeviceptr a0 = alloc_on(ctx[0], BW_BYTES), a1 = alloc_on(ctx[1], BW_BYTES);
	bandwidth("copy naming the primary contexts", a1, ctx[1], a0, ctx[0]);
	bandwidth("copy naming the second context of 0 for the source", a1, ctx[1], a0, m);
	enable_from(m, ctx[1], "enable second context of 0 -> primary(1)");
	bandwidth("the same after it enabled access", a1, ctx[1], a0, m);
	MUST(cuCtxDestroy(m));
}

/* ---- context breaks (one GPU) ---- */

static void enable_no_current(void)
{
	CUcontext made, peer = the_peer(&made), c;
	while (cuCtxPopCurrent(&c) == CUDA_SUCCESS)
		;
	SAY(cuCtxGetCurrent(&c));
	printf("%s: current context -> %p\n", name, (void *)c);
	SAY(cuCtxEnablePeerAccess(peer, 0));
	SAY(cuCtxDisablePeerAccess(peer));
}

static void enable_destroyed_peer(void)
{
	CUcontext m = made_on(ngpu >= 2 ? 1 : 0);
	MUST(cuCtxDestroy(m));
	SAY(cuCtxEnablePeerAccess(m, 0));
	SAY(cuCtxDisablePeerAccess(m));
}

/* On one GPU the peer is a second context of device 0, which the enable may
 * refuse (then the disable has nothing to undo either way). */
static void disable_destroyed_peer(void)
{
	CUcontext made = made_on(ngpu >= 2 ? 1 : 0);
	enable_from(ctx[0], made, "enable primary(0) -> a second context");
	MUST(cuCtxDestroy(made));
	SAY(cuCtxDisablePeerAccess(made));
}

static void enable_self_second_context(void)
{
	CUcontext m = made_on(0);
	enable_from(m, ctx[0], "enable second context of 0 -> primary(0)");
	enable_from(ctx[0], m, "enable primary(0) -> second context of 0");
	MUST(cuCtxDestroy(m));
}

static void ctx_address_reuse(void)
{
	CUcontext a = made_on(0);
	MUST(cuCtxDestroy(a));
	CUcontext b = made_on(0);
	printf("%s: a new context at a destroyed one's address -> %d\n", name, a == b);
	MUST(cuCtxDestroy(b));
}

/* ---- cuMemcpyPeer's pointers and contexts (one GPU: device 0 both ways) ---- */

static int dev_b(void)
{
	return ngpu >= 2 ? 1 : 0;
}

static void copy_same_context(void)
{
	CUdeviceptr a = alloc_on(ctx[0], MIB), b = alloc_on(ctx[0], MIB);
	SAY(cuMemcpyPeer(b, ctx[0], a, ctx[0], MIB));
}

static void copy_two_contexts_one_device(void)
{
	CUcontext m = made_on(0);
	CUdeviceptr a = alloc_on(ctx[0], MIB), b = alloc_on(m, MIB);
	SAY(cuMemcpyPeer(b, m, a, ctx[0], MIB));
	SAY(cuMemcpyPeer(a, ctx[0], b, m, MIB));
	MUST(cuCtxDestroy(m));
}

/* malloc'd memory (1 on an H200, driver 580: reported), page-locked memory
 * (copied: not reported) */
static void copy_host(void)
{
	static char host[MIB];
	void *pinned = NULL;
	CUdeviceptr a = alloc_on(ctx[dev_b()], MIB);
	SAY(cuMemcpyPeer((CUdeviceptr)(uintptr_t)host, ctx[0], a, ctx[dev_b()], 4096));
	SAY(cuMemcpyPeer(a, ctx[dev_b()], (CUdeviceptr)(uintptr_t)host, ctx[0], 4096));
	MUST(cuMemAllocHost(&pinned, MIB));
	SAY(cuMemcpyPeer((CUdeviceptr)(uintptr_t)pinned, ctx[0], a, ctx[dev_b()], 4096));
	SAY(cuMemcpyPeer(a, ctx[dev_b()], (CUdeviceptr)(uintptr_t)pinned, ctx[0], 4096));
	MUST(cuMemFreeHost(pinned));
}

static void copy_freed(void)
{
	CUdeviceptr a = alloc_on(ctx[0], MIB), b = alloc_on(ctx[dev_b()], MIB);
	MUST(cuMemFree(a));
	SAY(cuMemcpyPeer(b, ctx[dev_b()], a, ctx[0], 4096));
	SAY(cuMemcpyPeer(a, ctx[0], b, ctx[dev_b()], 4096));
}

static void copy_destroyed_context(void)
{
	CUcontext m = made_on(0);
	CUdeviceptr a = alloc_on(ctx[0], MIB), b = alloc_on(ctx[dev_b()], MIB);
	if (ngpu >= 2)
		enable_from(m, ctx[1], "enable second context of 0 -> primary(1)");
	SAY(cuMemcpyPeer(b, ctx[dev_b()], a, m, 4096)); /* m alive, naming device 0's memory */
	MUST(cuCtxDestroy(m));
	SAY(cuMemcpyPeer(b, ctx[dev_b()], a, m, 4096));
	SAY(cuMemcpyPeerAsync(b, ctx[dev_b()], a, m, 4096, NULL));
}

static const struct {
	const char *name;
	int gpus;
	const char *expect;
	void (*run)(void);
} cases[] = {
    {"enable-second-context", 2, "peer.enable.twice x2", enable_second_context},
    {"enable-after-reset", 2, "-", enable_after_reset},
    {"enable-after-peer-reset", 2, "-", enable_after_peer_reset},
    {"enable-after-release", 2, "-", enable_after_release},
    {"enable-after-destroy", 2, "-", enable_after_destroy},
    {"runtime-reset", 2, "-", runtime_reset},
    {"copy-after-reset-bw", 2, "copy.peer.no-peer-access x5", copy_after_reset_bw},
    {"copy-second-context-bw", 2, "copy.peer.no-peer-access x5", copy_second_context_bw},
    {"enable-no-current", 1, "peer.context.invalid x2", enable_no_current},
    {"enable-destroyed-peer", 1, "peer.context.invalid x2", enable_destroyed_peer},
    {"disable-destroyed-peer", 1, "peer.context.invalid", disable_destroyed_peer},
    {"enable-self-second-context", 1, "peer.enable.self x2", enable_self_second_context},
    {"ctx-address-reuse", 1, "-", ctx_address_reuse},
    {"use-after-reset", 1, "-", use_after_reset},
    {"copy-same-context", 1, "-", copy_same_context},
    {"copy-two-contexts-one-device", 1, "-", copy_two_contexts_one_device},
    {"copy-host", 1, "copy.peer.host x2", copy_host},
    {"copy-freed", 1, "copy.peer.freed x2", copy_freed},
    {"copy-destroyed-context", 1, "copy.peer.context-destroyed x2", copy_destroyed_context},
};
#define NCASES (sizeof cases / sizeof *cases)

static int run_case(size_t i)
{
	name = cases[i].name;
	init();
	if (ngpu < cases[i].gpus) {
		printf("%s: skipped (needs %d GPUs, found %d)\n", name, cases[i].gpus, ngpu);
		return 0;
	}
	cases[i].run();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < NCASES; i++)
			printf("%s %d %s\n", cases[i].name, cases[i].gpus, cases[i].expect);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "all")) {
		int rc = 0;
		for (size_t i = 0; i < NCASES; i++) {
			fflush(stdout);
			pid_t pid = fork(); /* before any CUDA call: each case in a fresh process */
			if (pid == 0) {
				int r = run_case(i);
				fflush(stdout);
				_exit(r);
			}
			int st = 0;
			waitpid(pid, &st, 0);
			if (WIFSIGNALED(st))
				printf("%s: killed by signal %d\n", cases[i].name, WTERMSIG(st));
			else if (WEXITSTATUS(st))
				printf("%s: exit %d\n", cases[i].name, WEXITSTATUS(st));
			rc |= !WIFEXITED(st) || WEXITSTATUS(st);
		}
		return rc;
	}
	for (size_t i = 0; argc == 2 && i < NCASES; i++)
		if (!strcmp(argv[1], cases[i].name))
			return run_case(i);
	fprintf(stderr, "usage: contract_ctx list | contract_ctx all | contract_ctx CASE\n");
	return 2;
}

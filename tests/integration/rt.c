/*
 * The runtime API layer, end to end: a program linked against the
 * simulated libcudart.so.13 (which reaches the simulated driver only through
 * cuGetProcAddress), run under the launcher by tests/integration/cudart.sh.
 *
 *   rt clean              every hooked runtime call used correctly, plus
 *                         peer access enabled through the runtime and
 *                         disabled through the driver, then enabled again:
 *                         no finding
 *   rt enable-twice       cudaDeviceEnablePeerAccess twice
 *   rt ipc-same-process   cudaIpcOpenMemHandle of the process's own handle
 *   rt no-peer-access     cudaMemcpyPeer between devices, peer access off
 *   rt advise-not-managed cudaMemAdvise on cudaMalloc memory
 *   rt reset-enable       cudaDeviceEnablePeerAccess, cudaDeviceReset, the
 *                         same enable again: no finding (the reset ended it)
 *   rt reset-copy         peer access both ways, device 1 reset, then
 *                         cudaMemcpyPeer 0 -> 1: staged (no peer access left)
 *   rt reset-copy-enabled the same, enabled again after the reset: no finding
 *   rt ipc-mixed          a child opens a handle through the runtime and
 *                         closes it through the driver: no finding (not a leak)
 *   rt sticky             cudaFree of memory already freed (ignored), other
 *                         calls that succeed, then cudaGetLastError: its
 *                         error.sticky names the cudaFree; cudaGetLastError
 *                         again: success, nothing
 *   rt sticky-peek        peer access enabled twice (704, ignored), other
 *                         calls, then cudaPeekAtLastError and
 *                         cudaGetLastError: each names the enable (and
 *                         peer.enable.twice); a second cudaGetLastError:
 *                         nothing
 *   rt sticky-clean       the same calls, each error cleared by
 *                         cudaGetLastError right after the call that
 *                         returned it: no finding
 *   rt lazy-copy          a child opens device 0's memory on device 1 and
 *                         copies from it naming device 0: no finding
 *   rt lazy-copy-third    the same naming device 2 (PWSIM_DEVICES=3)
 *   rt signal-calls       the main thread calls cudaDeviceCanAccessPeer in
 *                         bursts while a timer signals it every 20 us and
 *                         the handler makes the same call; prints
 *                         "calls=N" (loop and handler), so that the trace
 *                         can be held to it: every call's two events (the
 *                         runtime's and its driver call's) are in it or
 *                         counted as dropped, and the file is whole
 *
 * Exits non-zero when a call does not answer what the runtime documents.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cudart_sim_api.h"
#include "peerwatch/abi/cuda.h"

#define MIB (1u << 20)

static int failures;
#define EXPECT(call, want)                                                               \
	do {                                                                             \
		cudaError_t r_ = (call);                                                 \
		if (r_ != (want)) {                                                      \
			fprintf(stderr, "rt: %s gave %d (%s), expected %d\n", #call, r_, \
			        cudaGetErrorName(r_), (int)(want));                      \
			failures++;                                                      \
		}                                                                        \
	} while (0)

static struct cudaMemLocation dev_loc(int d)
{
	struct cudaMemLocation l = {cudaMemLocationTypeDevice, d};
	return l;
}

/* The driver, reached the way a program that also uses the driver API would. */
static void *drv(const char *name)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	void *f = h ? dlsym(h, name) : NULL;
	if (!f) {
		fprintf(stderr, "rt: no driver function %s\n", name);
		exit(2);
	}
	return f;
}

static void enable_both(void)
{
	int v;
	EXPECT(cudaDeviceCanAccessPeer(&v, 0, 1), cudaSuccess);
	EXPECT(cudaDeviceCanAccessPeer(&v, 1, 0), cudaSuccess);
	EXPECT(cudaSetDevice(1), cudaSuccess);
	EXPECT(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
	EXPECT(cudaSetDevice(0), cudaSuccess);
	EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
}

static void alloc_pair(void **a, void **b)
{
	EXPECT(cudaSetDevice(1), cudaSuccess);
	EXPECT(cudaMalloc(b, MIB), cudaSuccess);
	EXPECT(cudaSetDevice(0), cudaSuccess);
	EXPECT(cudaMalloc(a, MIB), cudaSuccess);
}

/* A child process opens h through the runtime and closes it (through the driver if by_driver). */
/* Wait for the IPC child; a failure of its own counts as one of ours. */
static void reap(pid_t kid)
{
	int st = -1;
	waitpid(kid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "rt: the IPC child failed\n");
		failures++;
	}
}

static void child_opens(cudaIpcMemHandle_t h, const cudaIpcEventHandle_t *eh, int by_driver)
{
	/* A real CUDA cannot be used in a child forked after initialisation:
	 * RT_NO_FORK=1 (real GPUs) leaves the importer out. */
	if (getenv("RT_NO_FORK"))
		return;
	pid_t kid = fork();
	if (kid == 0) {
		void *p = NULL;
		int bad = cudaSetDevice(1) != cudaSuccess;
		bad |= cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess;
		if (eh) {
			cudaEvent_t e;
			bad |= cudaIpcOpenEventHandle(&e, *eh) != cudaSuccess;
			bad |= cudaEventDestroy(e) != cudaSuccess; /* an imported event must be destroyed */
		}
		if (by_driver) {
			CUresult (*close_fn)(CUdeviceptr) =
			    (CUresult(*)(CUdeviceptr))drv("cuIpcCloseMemHandle");
			bad |= close_fn((uintptr_t)p) != CUDA_SUCCESS;
		} else {
			bad |= cudaIpcCloseMemHandle(p) != cudaSuccess;
		}
		_exit(bad);
	}
	reap(kid);
}

static void clean(void)
{
	void *a, *b, *m;
	int v;
	enable_both();
	alloc_pair(&a, &b);
	EXPECT(cudaMemcpyPeer(b, 1, a, 0, MIB), cudaSuccess);
	EXPECT(cudaMemcpyPeerAsync(a, 0, b, 1, 4096, NULL), cudaSuccess);
	struct cudaMemcpy3DPeerParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = (struct cudaPitchedPtr){a, 1024, 1024, 64};
	p.dstPtr = (struct cudaPitchedPtr){b, 1024, 1024, 64};
	p.srcDevice = 0;
	p.dstDevice = 1;
	p.extent = (struct cudaExtent){1024, 64, 1};
	EXPECT(cudaMemcpy3DPeer(&p), cudaSuccess);
	EXPECT(cudaMemcpy3DPeer_ptds(&p), cudaSuccess);
	EXPECT(cudaMemcpy3DPeerAsync(&p, NULL), cudaSuccess);
	EXPECT(cudaMemcpy3DPeerAsync_ptsz(&p, NULL), cudaSuccess);
	EXPECT(cudaDeviceGetP2PAttribute(&v, 2, 0, 1), cudaSuccess);
	/* through dlsym, as a library that looks the runtime up would */
	void *rh = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
	cudaError_t (*p2p)(int *, cudaDeviceP2PAttr_t, int, int) = (cudaError_t(*)(
	    int *, cudaDeviceP2PAttr_t, int, int))(rh ? dlsym(rh, "cudaDeviceGetP2PAttribute") : NULL);
	if (!p2p || p2p(&v, 1, 1, 0) != cudaSuccess) {
		fprintf(stderr, "rt: cudaDeviceGetP2PAttribute through dlsym failed\n");
		failures++;
	}
	/* managed memory */
	EXPECT(cudaMallocManaged(&m, 64 * 1024, cudaMemAttachGlobal), cudaSuccess);
	EXPECT(cudaMemAdvise(m, 64 * 1024, 1, dev_loc(0)), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync(m, 64 * 1024, dev_loc(1), 0, NULL), cudaSuccess);
	EXPECT(cudaMemPrefetchAsync_ptsz(m, 64 * 1024, dev_loc(0), 0, NULL), cudaSuccess);
	EXPECT(cudaMemRangeGetAttribute(&v, 4, 1, m, 64 * 1024), cudaSuccess);
	int rm = 0, pl = 0;
	void *data[2] = {&rm, &pl};
	size_t sizes[2] = {4, 4};
	cudaMemRangeAttribute_t attrs[2] = {1, 4};
	EXPECT(cudaMemRangeGetAttributes(data, sizes, attrs, 2, m, 64 * 1024), cudaSuccess);
	EXPECT(cudaStreamAttachMemAsync(NULL, m, 0, cudaMemAttachGlobal), cudaSuccess);
	EXPECT(cudaStreamAttachMemAsync_ptsz(NULL, m, 0, cudaMemAttachHost), cudaSuccess);
	/* IPC: memory and an event, opened and closed in a child */
	cudaIpcMemHandle_t h;
	cudaIpcEventHandle_t eh;
	cudaEvent_t ev;
	EXPECT(cudaIpcGetMemHandle(&h, a), cudaSuccess);
	EXPECT(cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming), cudaSuccess);
	EXPECT(cudaIpcGetEventHandle(&eh, ev), cudaSuccess);
	child_opens(h, &eh, 0);
	/* peer access enabled through the runtime, disabled through the driver, enabled again */
	CUresult (*retain)(CUcontext *, CUdevice) =
	    (CUresult(*)(CUcontext *, CUdevice))drv("cuDevicePrimaryCtxRetain");
	CUresult (*disable)(CUcontext) = (CUresult(*)(CUcontext))drv("cuCtxDisablePeerAccess");
	CUcontext c1;
	if (retain(&c1, 1) != CUDA_SUCCESS || disable(c1) != CUDA_SUCCESS) {
		fprintf(stderr, "rt: cuCtxDisablePeerAccess failed\n");
		failures++;
	}
	EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
	EXPECT(cudaMemcpyPeer(b, 1, a, 0, MIB), cudaSuccess);
	EXPECT(cudaFree(m), cudaSuccess);
	EXPECT(cudaFree(a), cudaSuccess);
	EXPECT(cudaFree(b), cudaSuccess);
}

/* ---- signal-calls ---- */

static atomic_long handler_calls;

static void on_timer(int sig)
{
	(void)sig;
	int v;
	if (cudaDeviceCanAccessPeer(&v, 0, 1) == cudaSuccess) /* what the test is about */
		atomic_fetch_add_explicit(&handler_calls, 1, memory_order_relaxed);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* For 0.1 s: bursts of 64 calls, 50 us apart, while a timer signals this
 * thread every 20 us and its handler makes the same call: the signals
 * land anywhere in the calls, records being written among them. */
static void signal_calls(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	int v;
	long loop = 0;
	loop += cudaDeviceCanAccessPeer(&v, 0, 1) == cudaSuccess; /* set up before the storm */
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR1;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t t;
	struct itimerspec its = {{0, 20000}, {0, 20000}};
	if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0 || timer_settime(t, 0, &its, NULL) != 0) {
		fprintf(stderr, "rt: cannot start the timer\n");
		exit(1);
	}
	long made = 1;
	for (double end = now_s() + 0.1; now_s() < end;) {
		for (int i = 0; i < 64; i++, made++)
			loop += cudaDeviceCanAccessPeer(&v, 0, 1) == cudaSuccess;
		struct timespec pause = {0, 50000};
		nanosleep(&pause, NULL); /* cut short by the signals: no matter */
	}
	timer_delete(t);
	signal(SIGUSR1, SIG_IGN); /* one may still be pending */
	long h = atomic_load(&handler_calls);
	printf("calls=%ld handler=%ld\n", loop + h, h);
	if (loop != made)
		failures++;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "clean";
	void *a, *b;
	if (!strcmp(what, "clean")) {
		clean();
	} else if (!strcmp(what, "signal-calls")) {
		signal_calls();
	} else if (!strcmp(what, "enable-twice")) {
		int v;
		EXPECT(cudaDeviceCanAccessPeer(&v, 0, 1), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
		EXPECT(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
	} else if (!strcmp(what, "ipc-same-process")) {
		cudaIpcMemHandle_t h;
		void *p = NULL;
		EXPECT(cudaMalloc(&a, MIB), cudaSuccess);
		EXPECT(cudaIpcGetMemHandle(&h, a), cudaSuccess);
		EXPECT(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess),
		       cudaErrorDeviceUninitialized);
		EXPECT(cudaFree(a), cudaSuccess);
	} else if (!strcmp(what, "no-peer-access")) {
		alloc_pair(&a, &b);
		EXPECT(cudaMemcpyPeer(b, 1, a, 0, MIB), cudaSuccess);
		EXPECT(cudaFree(a), cudaSuccess);
		EXPECT(cudaFree(b), cudaSuccess);
	} else if (!strcmp(what, "advise-not-managed")) {
		EXPECT(cudaMalloc(&a, MIB), cudaSuccess);
		EXPECT(cudaMemAdvise(a, MIB, 1, dev_loc(0)), cudaErrorInvalidValue);
		EXPECT(cudaFree(a), cudaSuccess);
	} else if (!strcmp(what, "invalid-enable")) {
		int v;
		EXPECT(cudaDeviceCanAccessPeer(&v, 0, 1), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(9, 0), cudaErrorInvalidDevice);
	} else if (!strcmp(what, "invalid-copy")) {
		enable_both();
		alloc_pair(&a, &b);
		EXPECT(cudaMemcpyPeer(b, 9, a, 0, MIB), cudaErrorInvalidDevice);
		EXPECT(cudaFree(a), cudaSuccess);
		EXPECT(cudaFree(b), cudaSuccess);
	} else if (!strcmp(what, "lazy-enable")) {
		/* the importer's lazy open enabled 1 -> 0; its explicit enable after is 704 */
		cudaIpcMemHandle_t h;
		EXPECT(cudaMalloc(&a, MIB), cudaSuccess);
		EXPECT(cudaIpcGetMemHandle(&h, a), cudaSuccess);
		pid_t kid = fork();
		if (kid == 0) {
			void *p = NULL;
			int v, bad = cudaSetDevice(1) != cudaSuccess;
			bad |= cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess;
			bad |= cudaDeviceCanAccessPeer(&v, 1, 0) != cudaSuccess;
			bad |= cudaDeviceEnablePeerAccess(0, 0) != cudaErrorPeerAccessAlreadyEnabled;
			bad |= cudaGetLastError() != cudaErrorPeerAccessAlreadyEnabled;
			bad |= cudaIpcCloseMemHandle(p) != cudaSuccess;
			_exit(bad);
		}
		reap(kid);
		EXPECT(cudaFree(a), cudaSuccess);
	} else if (!strcmp(what, "lazy-copy") || !strcmp(what, "lazy-copy-third")) {
		/* the mapping is on device 1 for the runtime; its memory on device 0 */
		cudaIpcMemHandle_t h;
		int named = strcmp(what, "lazy-copy") ? 2 : 0;
		EXPECT(cudaMalloc(&a, MIB), cudaSuccess);
		EXPECT(cudaIpcGetMemHandle(&h, a), cudaSuccess);
		pid_t kid = fork();
		if (kid == 0) {
			void *p = NULL, *mine = NULL;
			int bad = cudaSetDevice(1) != cudaSuccess;
			bad |= cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess;
			bad |= cudaMalloc(&mine, MIB) != cudaSuccess;
			bad |= cudaMemcpyPeer(mine, 1, p, named, MIB) != cudaSuccess;
			bad |= cudaFree(mine) != cudaSuccess;
			bad |= cudaIpcCloseMemHandle(p) != cudaSuccess;
			_exit(bad);
		}
		reap(kid);
		EXPECT(cudaFree(a), cudaSuccess);
	} else if (!strcmp(what, "reset-enable")) {
		/* cudaDeviceReset ends device 0's peer access: enabled again, success */
		int v;
		EXPECT(cudaDeviceCanAccessPeer(&v, 0, 1), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
		EXPECT(cudaDeviceReset(), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
	} else if (!strcmp(what, "reset-copy") || !strcmp(what, "reset-copy-enabled")) {
		/* device 1's reset ends the access both ways: a copy after it is
		 * staged, unless enabled again (allocated after the reset, which
		 * destroys the device's allocations) */
		enable_both();
		EXPECT(cudaSetDevice(1), cudaSuccess);
		EXPECT(cudaDeviceReset(), cudaSuccess);
		EXPECT(cudaSetDevice(0), cudaSuccess);
		if (!strcmp(what, "reset-copy-enabled"))
			enable_both();
		alloc_pair(&a, &b);
		EXPECT(cudaMemcpyPeer(b, 1, a, 0, MIB), cudaSuccess);
		EXPECT(cudaFree(a), cudaSuccess);
		EXPECT(cudaFree(b), cudaSuccess);
	} else if (!strcmp(what, "sticky") || !strcmp(what, "sticky-clean")) {
		bool clean = !strcmp(what, "sticky-clean");
		EXPECT(cudaMalloc(&a, MIB), cudaSuccess);
		EXPECT(cudaFree(a), cudaSuccess);
		EXPECT(cudaFree(a), cudaErrorInvalidValue); /* freed already */
		if (clean)                                  /* its own error, cleared right away */
			EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
		/* the calls between use device 0 only, so that one GPU runs it */
		EXPECT(cudaMalloc(&b, MIB), cudaSuccess);
		EXPECT(cudaFree(b), cudaSuccess);
		EXPECT(cudaGetLastError(), clean ? cudaSuccess : cudaErrorInvalidValue);
		EXPECT(cudaGetLastError(), cudaSuccess);
		EXPECT(cudaPeekAtLastError(), cudaSuccess);
	} else if (!strcmp(what, "sticky-peek")) {
		int v;
		EXPECT(cudaDeviceCanAccessPeer(&v, 0, 1), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
		EXPECT(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
		alloc_pair(&a, &b);
		EXPECT(cudaDeviceCanAccessPeer(&v, 1, 0), cudaSuccess);
		EXPECT(cudaPeekAtLastError(), cudaErrorPeerAccessAlreadyEnabled);
		EXPECT(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
		EXPECT(cudaGetLastError(), cudaSuccess);
		EXPECT(cudaFree(a), cudaSuccess);
		EXPECT(cudaFree(b), cudaSuccess);
	} else if (!strcmp(what, "ipc-mixed")) {
		cudaIpcMemHandle_t h;
		EXPECT(cudaMalloc(&a, MIB), cudaSuccess);
		EXPECT(cudaIpcGetMemHandle(&h, a), cudaSuccess);
		child_opens(h, NULL, 1);
		EXPECT(cudaFree(a), cudaSuccess);
	} else {
		fprintf(stderr, "rt: unknown scenario %s\n", what);
		return 2;
	}
	return failures != 0;
}

/*
 * Per-call overhead of peerwatch on the simulated driver.
 *
 * Calls one cheap driver function through a dlsym'd pointer, N times on each
 * of T threads, and prints one line of key=value figures.  The same binary is
 * run with and without LD_PRELOAD=libpeerwatch.so (bench/run.sh does both in
 * one run): the difference is what peerwatch adds, the run without it is what
 * the simulated driver itself costs.
 *
 *   overhead [-c OP] [-t THREADS] [-n CALLS] [-b BURST -p PAUSE_US] [-f]
 *
 *   -c   can     cuDeviceCanAccessPeer(&v, 0, 1)
 *        async4  cuMemcpyPeerAsync(dev 1 <- dev 0, 4 bytes, stream 0)
 *        sync4   cuMemcpyPeer(dev 1 <- dev 0, 4 bytes)
 *        copy0   cuMemcpyPeer(dev 1 <- dev 0, 0 bytes)
 *        copy4k  cuMemcpyPeer(dev 1 <- dev 0, 4 KiB), peer access enabled both ways
 *        same4k  cuMemcpyDtoD_v2(dev 0 <- dev 0, 4 KiB): an implicit copy within one
 *                device, which peerwatch does not record
 *        cross4k cuMemcpyDtoD_v2(dev 1 <- dev 0, 4 KiB): an implicit copy across
 *                devices, recorded and checked like a peer copy
 *        rtcan   cudaDeviceCanAccessPeer(&v, 0, 1) of the (simulated) shared
 *                libcudart.so.13: a runtime call with its driver call nested in it
 *        rtasync4 cudaMemcpyPeerAsync(dev 1 <- dev 0, 4 bytes, stream 0), the same way
 *        (can, async4 and sync4 are what a program built with static cudart
 *        reaches: the driver's functions through cuGetProcAddress's pointers)
 *   -t   threads making the calls (default 1)
 *   -n   measured calls per thread (default 200000); each thread first makes
 *        n/20 (at least 1000) unmeasured calls
 *   -b, -p  calls in bursts of BURST, each followed by a sleep of PAUSE_US
 *        microseconds (not in the thread's CPU time): a pace the trace writer
 *        keeps up with, so that every call is recorded (default: no pause)
 *   -r   calls per second on each thread: bursts of 256 calls, each thread
 *        sleeping until its schedule says the next burst is due (the trace
 *        writer's throughput: the highest rate it writes without drops)
 *   -f   whole process: fork a child that sets up, makes the calls and exits
 *        normally (so peerwatch writes the rest of its trace at exit); report
 *        the child's wall and CPU time (all its threads, the trace writer
 *        included) from fork to reaped, and its getrusage(RUSAGE_SELF) at the
 *        end of its loop
 *
 * Output (one line):
 *   op= threads= calls=(measured, all threads)
 *   thr_cpu_ns=   mean over threads of CLOCK_THREAD_CPUTIME_ID / calls: the
 *                 per-call cost on the calling thread (meaningful with more
 *                 threads than cores, where wall time is shared)
 *   thr_wall_ns=  mean over threads of the loop's CLOCK_MONOTONIC / calls
 *   span_ns=      wall time from the first thread's start to the last one's end,
 *                 divided by all calls (throughput of the process)
 *   rss_kb= hwm_kb=  VmRSS and VmHWM of /proc/self/status, read while every
 *                 thread is still alive after its loop
 *   with -f, also: proc_wall_ns= proc_cpu_ns= proc_user_ns= proc_sys_ns=
 *                 (per measured call, fork to reaped), self_cpu_ns= (per call,
 *                 getrusage(RUSAGE_SELF) at the end of the loop), maxrss_kb=
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"

enum op {
	OP_CAN,
	OP_ASYNC4,
	OP_SYNC4,
	OP_COPY0,
	OP_COPY4K,
	OP_SAME4K,
	OP_CROSS4K,
	OP_RTCAN,
	OP_RTASYNC4,
	OP_N
};
static const char *const op_names[] = {"can",    "async4",  "sync4", "copy0",   "copy4k",
                                       "same4k", "cross4k", "rtcan", "rtasync4"};

static struct {
	enum op op;
	int threads;
	long calls;
	int whole;
	long burst, pause_us;
	double rate;
} cfg = {OP_CAN, 1, 200000, 0, 0, 0, 0};

/* The driver functions, from dlsym: peerwatch's wrappers when it is preloaded. */
static CUresult (*can_access)(int *, CUdevice, CUdevice);
static CUresult (*memcpy_peer)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
static CUresult (*memcpy_dtod)(CUdeviceptr, CUdeviceptr, size_t);
static CUresult (*memcpy_peer_async)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
/* the simulated runtime's, for rtcan and rtasync4 (int, not cudaError_t: 0 is success) */
static int (*rt_can_access)(int *, int, int);
static int (*rt_memcpy_peer_async)(void *, int, const void *, int, size_t, void *);
static CUresult (*set_ctx)(CUcontext);
static CUcontext ctx[2];
static CUdeviceptr buf[2], buf0b; /* buf0b: a second buffer on device 0 */

static pthread_barrier_t start_bar, done_bar, exit_bar;

struct worker {
	pthread_t th;
	uint64_t cpu_ns, wall_ns, t_start, t_end;
	int failed;
};

static void die(const char *what)
{
	fprintf(stderr, "overhead: %s\n", what);
	exit(1);
}

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "overhead: %s -> %d\n", what, (int)r);
		exit(1);
	}
}

static uint64_t now(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "overhead: no %s in the driver\n", name);
		exit(1);
	}
	return p;
}

/*
 * Two devices, a 4 KiB allocation on each, peer access enabled both ways
 * after asking (so that warn mode finds nothing to report in the loop).
 */
static void setup(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	if (!h)
		die("cannot dlopen libcuda.so.1 (LD_LIBRARY_PATH=build/sim?)");
	CUresult (*init)(unsigned) = (CUresult(*)(unsigned))sym(h, "cuInit");
	CUresult (*dev_get)(CUdevice *, int) = (CUresult(*)(CUdevice *, int))sym(h, "cuDeviceGet");
	CUresult (*retain)(CUcontext *, CUdevice) =
	    (CUresult(*)(CUcontext *, CUdevice))sym(h, "cuDevicePrimaryCtxRetain");
	CUresult (*set_current)(CUcontext) = (CUresult(*)(CUcontext))sym(h, "cuCtxSetCurrent");
	CUresult (*alloc)(CUdeviceptr *, size_t) =
	    (CUresult(*)(CUdeviceptr *, size_t))sym(h, "cuMemAlloc_v2");
	CUresult (*enable)(CUcontext, unsigned) =
	    (CUresult(*)(CUcontext, unsigned))sym(h, "cuCtxEnablePeerAccess");
	can_access = (CUresult(*)(int *, CUdevice, CUdevice))sym(h, "cuDeviceCanAccessPeer");
	memcpy_peer =
	    (CUresult(*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t))sym(h, "cuMemcpyPeer");
	memcpy_dtod = (CUresult(*)(CUdeviceptr, CUdeviceptr, size_t))sym(h, "cuMemcpyDtoD_v2");
	memcpy_peer_async = (CUresult(*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t,
	                                 CUstream))sym(h, "cuMemcpyPeerAsync");
	set_ctx = set_current;
	if (cfg.op == OP_RTCAN || cfg.op == OP_RTASYNC4) {
		void *rt = dlopen("libcudart.so.13", RTLD_NOW);
		if (!rt)
			die("cannot dlopen libcudart.so.13 (LD_LIBRARY_PATH=build/sim?)");
		rt_can_access = (int (*)(int *, int, int))sym(rt, "cudaDeviceCanAccessPeer");
		rt_memcpy_peer_async =
		    (int (*)(void *, int, const void *, int, size_t, void *))sym(rt, "cudaMemcpyPeerAsync");
	}

	check(init(0), "cuInit");
	for (int d = 0; d < 2; d++) {
		CUdevice dev;
		check(dev_get(&dev, d), "cuDeviceGet");
		check(retain(&ctx[d], dev), "cuDevicePrimaryCtxRetain");
	}
	for (int d = 0; d < 2; d++) {
		int v = 0;
		check(set_current(ctx[d]), "cuCtxSetCurrent");
		check(alloc(&buf[d], 4096), "cuMemAlloc_v2");
		check(can_access(&v, d, !d), "cuDeviceCanAccessPeer");
		if (!v)
			die("the simulated devices cannot access each other (PWSIM_PEERS?)");
		check(enable(ctx[!d], 0), "cuCtxEnablePeerAccess");
	}
	check(set_current(ctx[0]), "cuCtxSetCurrent");
	check(alloc(&buf0b, 4096), "cuMemAlloc_v2");
}

static int calls_of(long n)
{
	int bad = 0;
	switch (cfg.op) {
	case OP_CAN:
		for (long i = 0; i < n; i++) {
			int v;
			bad |= can_access(&v, 0, 1) != CUDA_SUCCESS;
		}
		break;
	case OP_ASYNC4:
		for (long i = 0; i < n; i++)
			bad |= memcpy_peer_async(buf[1], ctx[1], buf[0], ctx[0], 4, NULL) != CUDA_SUCCESS;
		break;
	case OP_SYNC4:
	case OP_COPY0:
	case OP_COPY4K: {
		size_t bytes = cfg.op == OP_COPY0 ? 0 : cfg.op == OP_SYNC4 ? 4 : 4096;
		for (long i = 0; i < n; i++)
			bad |= memcpy_peer(buf[1], ctx[1], buf[0], ctx[0], bytes) != CUDA_SUCCESS;
		break;
	}
	case OP_SAME4K:
	case OP_CROSS4K: {
		CUdeviceptr dst = cfg.op == OP_SAME4K ? buf0b : buf[1];
		for (long i = 0; i < n; i++)
			bad |= memcpy_dtod(dst, buf[0], 4096) != CUDA_SUCCESS;
		break;
	}
	case OP_RTCAN:
		for (long i = 0; i < n; i++) {
			int v;
			bad |= rt_can_access(&v, 0, 1) != 0;
		}
		break;
	case OP_RTASYNC4:
		for (long i = 0; i < n; i++)
			bad |= rt_memcpy_peer_async((void *)(uintptr_t)buf[1], 1,
			                            (const void *)(uintptr_t)buf[0], 0, 4, NULL) != 0;
		break;
	case OP_N: break;
	}
	return bad;
}

/* n calls at cfg.rate a second: bursts of 256, each due at start + done / rate. */
static int calls_at_rate(long n)
{
	int bad = 0;
	uint64_t t0 = now(CLOCK_MONOTONIC);
	for (long done = 0; done < n; done += 256) {
		uint64_t due = t0 + (uint64_t)((double)done / cfg.rate * 1e9);
		struct timespec ts = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		bad |= calls_of(n - done < 256 ? n - done : 256);
	}
	return bad;
}

/* n calls, in bursts with pauses between them if asked (-b, -p), or at a rate (-r). */
static int calls(long n)
{
	if (cfg.rate > 0)
		return calls_at_rate(n);
	if (!cfg.burst || !cfg.pause_us)
		return calls_of(n);
	int bad = 0;
	for (long done = 0; done < n; done += cfg.burst) {
		bad |= calls_of(n - done < cfg.burst ? n - done : cfg.burst);
		struct timespec ts = {cfg.pause_us / 1000000, (cfg.pause_us % 1000000) * 1000};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	return bad;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	if (set_ctx(ctx[0]) != CUDA_SUCCESS) /* cuMemcpyDtoD needs a current context */
		w->failed = 1;
	long warm = cfg.calls / 20 < 1000 ? 1000 : cfg.calls / 20;
	w->failed |= calls(warm);
	pthread_barrier_wait(&start_bar);
	uint64_t c0 = now(CLOCK_THREAD_CPUTIME_ID);
	w->t_start = now(CLOCK_MONOTONIC);
	w->failed |= calls(cfg.calls);
	w->t_end = now(CLOCK_MONOTONIC);
	w->cpu_ns = now(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_ns = w->t_end - w->t_start;
	pthread_barrier_wait(&done_bar);
	/* Alive until the main thread has read the memory figures. */
	pthread_barrier_wait(&exit_bar);
	return NULL;
}

/* A "Key:   123 kB" line of /proc/self/status, in KiB. */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t klen = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtol(line + klen + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

struct result {
	double thr_cpu, thr_wall, span;
	long rss_kb, hwm_kb;
	uint64_t self_cpu_ns; /* getrusage(RUSAGE_SELF) user+sys at the end */
};

static void run(struct result *r)
{
	int T = cfg.threads;
	struct worker *w = calloc((size_t)T, sizeof *w);
	if (!w)
		die("out of memory");
	setup();
	pthread_barrier_init(&start_bar, NULL, (unsigned)T + 1);
	pthread_barrier_init(&done_bar, NULL, (unsigned)T + 1);
	pthread_barrier_init(&exit_bar, NULL, (unsigned)T + 1);
	for (int i = 0; i < T; i++) {
		int e = pthread_create(&w[i].th, NULL, worker_main, &w[i]);
		if (e) {
			fprintf(stderr, "overhead: pthread_create: %s\n", strerror(e));
			exit(1);
		}
	}
	pthread_barrier_wait(&start_bar);
	pthread_barrier_wait(&done_bar);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	r->self_cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	r->rss_kb = status_kb("VmRSS");
	r->hwm_kb = status_kb("VmHWM");
	pthread_barrier_wait(&exit_bar);
	uint64_t cpu = 0, wall = 0, t0 = UINT64_MAX, t_end = 0;
	int failed = 0;
	for (int i = 0; i < T; i++) {
		pthread_join(w[i].th, NULL);
		cpu += w[i].cpu_ns;
		wall += w[i].wall_ns;
		if (w[i].t_start < t0)
			t0 = w[i].t_start;
		if (w[i].t_end > t_end)
			t_end = w[i].t_end;
		failed |= w[i].failed;
	}
	if (failed)
		die("a driver call failed");
	double n = (double)cfg.calls;
	r->thr_cpu = (double)cpu / T / n;
	r->thr_wall = (double)wall / T / n;
	r->span = (double)(t_end - t0) / (n * T);
	free(w);
}

static void print_common(const struct result *r)
{
	printf(
	    "op=%s threads=%d calls=%ld thr_cpu_ns=%.1f thr_wall_ns=%.1f span_ns=%.1f rss_kb=%ld hwm_kb=%ld",
	    op_names[cfg.op], cfg.threads, cfg.calls * cfg.threads, r->thr_cpu, r->thr_wall, r->span,
	    r->rss_kb, r->hwm_kb);
}

/* -f: the child does everything and exits; the parent times it from outside. */
static int whole_process(void)
{
	struct result *shared =
	    mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap failed");
	fflush(NULL);
	uint64_t t0 = now(CLOCK_MONOTONIC);
	pid_t pid = fork();
	if (pid < 0)
		die("fork failed");
	if (pid == 0) {
		run(shared);
		exit(0); /* destructors: peerwatch flushes and finishes its trace */
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4 failed");
	uint64_t wall = now(CLOCK_MONOTONIC) - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("the child failed");
	double n = (double)cfg.calls * cfg.threads;
	uint64_t user = tv_ns(ru.ru_utime), sys = tv_ns(ru.ru_stime);
	print_common(shared);
	printf(" proc_wall_ns=%.1f proc_cpu_ns=%.1f proc_user_ns=%.1f proc_sys_ns=%.1f self_cpu_ns=%.1f "
	       "maxrss_kb=%ld\n",
	       (double)wall / n, (double)(user + sys) / n, (double)user / n, (double)sys / n,
	       (double)shared->self_cpu_ns / n, ru.ru_maxrss);
	return 0;
}

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: overhead [-c can|async4|sync4|copy0|copy4k|same4k|cross4k|rtcan|rtasync4] [-t THREADS]\n"
	    "                [-n CALLS] [-b BURST -p PAUSE_US | -r CALLS_PER_S] [-f]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c;
	while ((c = getopt(argc, argv, "c:t:n:b:p:r:f")) != -1) {
		switch (c) {
		case 'c': {
			int k = 0;
			while (k < OP_N && strcmp(optarg, op_names[k]))
				k++;
			if (k == OP_N)
				usage();
			cfg.op = (enum op)k;
			break;
		}
		case 't': cfg.threads = atoi(optarg); break;
		case 'n': cfg.calls = atol(optarg); break;
		case 'b': cfg.burst = atol(optarg); break;
		case 'p': cfg.pause_us = atol(optarg); break;
		case 'r': cfg.rate = atof(optarg); break;
		case 'f': cfg.whole = 1; break;
		default: usage();
		}
	}
	if (cfg.threads < 1 || cfg.threads > 1024 || cfg.calls < 1 || optind != argc)
		usage();
	if (cfg.whole)
		return whole_process();
	struct result r;
	run(&r);
	print_common(&r);
	printf("\n");
	return 0;
}

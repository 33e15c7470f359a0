/*
 * What a traced call costs on the calling thread, on real GPUs: the CUDA
 * runtime calls of the hot-path budget, made by 1 and by 8 threads, each
 * thread's CPU time per call measured around its calls only.  latency.sh runs
 * it plain and under one or more peerwatch bundles, alternating.
 *
 * Built twice by gpu.mk: latency_static (nvcc's default static cudart: the
 * runtime reaches the driver through cuGetProcAddress's pointers, which
 * peerwatch hands out, so each call is one traced driver call) and
 * latency_shared (-cudart shared: the runtime's own exported functions are
 * traced too, with the driver call each makes nested in it).
 *
 *   latency [--ops can,async4,sync4] [--threads 1,8] [--calls N] [--burst B]
 *           [--pause-us P] [--pace equal|scaled|spin|none] [--reps R] [--pin 0|1]
 *
 *   can     cudaDeviceCanAccessPeer(&v, 0, 1)
 *   async4  cudaMemcpyPeerAsync(dev 1 <- dev 0, 4 bytes) on the thread's own
 *           non-blocking stream, a cudaStreamSynchronize after every 256
 *           (not timed: the calls are timed in bursts between the waits)
 *   sync4   cudaMemcpyPeer(dev 1 <- dev 0, 4 bytes)
 *   can-ab  the query traced and untraced in one process (below): lines
 *           op=can-ab-one (one layer) and, with the shared runtime,
 *           op=can-ab-pair (the runtime call with its nested driver call),
 *           whose thr_cpu_ns is the ns per call added, not a call's cost
 *   async4-ab  the same for the 4-byte async copy: async4-ab-one, -pair
 *
 * Each thread makes --calls calls of each op (a fifth of them for sync4,
 * which takes microseconds) after a warm-up of a tenth of them, in bursts of
 * --burst (at most 256 for async4).  cudaDeviceCanAccessPeer is faster than
 * the trace writer can write its events, so after each burst of it a thread
 * sleeps --pause-us times the largest thread count of --threads (default
 * 1000: 8 ms with --threads 1,8), with 1 thread as with 8 (--pace, below,
 * says why and what else it can be); the copies take microseconds each and
 * are not paced.
 * Sleeps and waits are not in the figure.  Peer access is enabled both ways
 * first (when the devices allow it), so warn mode has nothing to report.
 *
 * --reps R measures each (op, threads) R times in the process and reports the
 * median: a process's figure then depends less on one moment of the machine.
 * --pin 1 fixes worker i on the (i+2)-th CPU the process may use, so that no
 * worker moves between CPUs while it is timed (the first two are left to the
 * main thread and peerwatch's writer, which are not pinned).
 *
 * Output, one line per (op, threads):
 *   op=can threads=8 calls=400000 reps=3 thr_cpu_ns=123.4 min_thr_ns=120.1 max_thr_ns=130.2
 *   rep_lo_ns=119.0 rep_hi_ns=131.7 peer=1
 * thr_cpu_ns is the mean over threads of CLOCK_THREAD_CPUTIME_ID per call, of
 * the median repetition; min/max that repetition's threads' extremes,
 * rep_lo/rep_hi the lowest and highest repetition.  Exit 0, or 1 with a message when CUDA fails,
 * 77 with fewer than two devices.
 *
 * Built with -DPW_LATENCY_SIM as plain C against the simulated runtime
 * (tests/sim: no streams of its own, so async4 uses the default stream and
 * cudaDeviceSynchronize), it runs without a GPU: tests/integration's
 * latency check runs latency.sh that way, to try the script, not to time.
 */
#ifdef PW_LATENCY_SIM
#include "cudart_sim_api.h"
#define cudaStreamNonBlocking 1u
static cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
	(void)f;
	*s = NULL;
	return cudaSuccess;
}
static cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	(void)s;
	return cudaDeviceSynchronize();
}
static cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	(void)s;
	return cudaSuccess;
}
static cudaError_t cudaMemset(void *p, int v, size_t n)
{
	(void)p;
	(void)v;
	(void)n;
	return cudaSuccess;
}
#else
#include <cuda_runtime.h>
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_common.h"

#define CK(x)                                                                           \
	do {                                                                            \
		cudaError_t e_ = (x);                                                   \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "latency: %s: %s\n", #x, cudaGetErrorName(e_)); \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

enum op { OP_CAN, OP_ASYNC4, OP_SYNC4, OP_CANAB, OP_ASYNCAB, OP_N };
static const char *const op_names[OP_N] = {"can", "async4", "sync4", "can-ab", "async4-ab"};

/*
 * can-ab, async4-ab: the traced and the untraced call side by side in one
 * process, bursts alternating, so that what differs between processes
 * (where the loader put things, the driver's own state) is the same for
 * both.  Four ways to the same call (can: the peer query; async4: the
 * 4-byte peer copy on the thread's stream, a wait after each burst of at
 * most 256, not timed):
 *   rt        cudaDeviceCanAccessPeer / cudaMemcpyPeerAsync, the program's
 *             own symbol (under peerwatch, its wrapper: the runtime call
 *             with the driver call nested in it)
 *   rt_real   the same function of libcudart itself, through glibc's own
 *             dlsym (its driver call is still traced: a top-level driver
 *             call, one layer)
 *   drv       cuDeviceCanAccessPeer / cuMemcpyPeerAsync (the devices'
 *             primary contexts) as dlsym gives it: peerwatch's wrapper
 *   drv_real  the driver's own, through glibc's own dlsym
 * one layer = drv - drv_real; the nested pair = (rt - rt_real) + one layer
 * (rt_real holds one layer that rt does not; for the copy, the driver call
 * libcudart makes is taken to cost what cuMemcpyPeerAsync's does).
 * Untraced, all four differences are the method's own error, which
 * latency.sh subtracts.  Static cudart has no libcudart to find: there
 * only one layer is timed.
 */
enum ab_kind { AB_RT, AB_RT_REAL, AB_DRV, AB_DRV_REAL, AB_N };
enum ab_op { AB_CAN, AB_ASYNC4, AB_OPS };
typedef int (*can_fn)(int *, int, int); /* cudaDeviceCanAccessPeer, cuDeviceCanAccessPeer */
typedef int (*rt_copy_fn)(void *, int, const void *, int, size_t, cudaStream_t);
typedef struct pwl_ctx *pwl_context; /* CUcontext (cuda.h: struct CUctx_st *) */
typedef int (*drv_copy_fn)(unsigned long long, pwl_context, unsigned long long, pwl_context, size_t,
                           cudaStream_t); /* cuMemcpyPeerAsync (CUdeviceptr, CUstream = cudaStream_t) */
typedef int (*retain_fn)(pwl_context *, int); /* cuDevicePrimaryCtxRetain */
static void *ab_fn[AB_OPS][AB_N];
static pwl_context ab_ctx[2]; /* the devices' primary contexts */

/*
 * How a paced burst is followed (--pace; only the query is paced):
 *   equal   every thread count sleeps as long as the largest one needs
 *           (pause_us times the largest count): 1 and 8 threads then differ
 *           only in how many call at once, not in how long each thread sits
 *           idle between bursts, which moves a call's cost by itself (its
 *           caches and the CPU's state cool while it sleeps)
 *   scaled  pause_us times this run's thread count (before 2026-11-28: the
 *           8-thread runs slept eight times as long as the 1-thread ones)
 *   spin    as equal, busy-waiting on the clock instead of sleeping (the
 *           thread keeps its CPU; its caches stay as the calls left them)
 *   none    no pause: every thread calls on, as the copies do
 * The writer keeps up with the first three: the events per second of all
 * threads together are at most those of one thread under scaled.  With
 * none it falls behind, and the thread's buffers must hold all its events
 * until the writer catches up after the loop (peerwatch's buffer_kb; can-ab
 * with --calls 10000 makes about 45 000 events per thread and repetition),
 * or events are dropped, which latency.sh reports.
 */
enum pace { PACE_EQUAL, PACE_SCALED, PACE_SPIN, PACE_NONE, PACE_N };
static const char *const pace_names[PACE_N] = {"equal", "scaled", "spin", "none"};

static struct {
	int ops[OP_N], nops;
	int threads[8], nthreads;
	long calls, burst, pause_us, reps;
	int pin;
	int pace; /* enum pace */
} cfg;

static void *buf[2];
static int peer_on;

static uint64_t now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct worker {
	pthread_t th;
	enum op op;
	int threads, cpu;
	pthread_barrier_t *bar;
	uint64_t cpu_ns;
	uint64_t ab_ns[AB_N]; /* can-ab, async4-ab: per way */
	long calls;
};

/* n calls of op; returns the thread CPU ns they took (waits excluded). */
static uint64_t burst_of(enum op op, long n, cudaStream_t s)
{
	uint64_t c0 = now(CLOCK_THREAD_CPUTIME_ID);
	int v = 0;
	switch (op) {
	case OP_CAN:
		for (long i = 0; i < n; i++)
			CK(cudaDeviceCanAccessPeer(&v, 0, 1));
		break;
	case OP_ASYNC4:
		for (long i = 0; i < n; i++)
			CK(cudaMemcpyPeerAsync(buf[1], 1, buf[0], 0, 4, s));
		break;
	case OP_SYNC4:
		for (long i = 0; i < n; i++)
			CK(cudaMemcpyPeer(buf[1], 1, buf[0], 0, 4));
		break;
	case OP_CANAB: /* ab_burst */
	case OP_ASYNCAB:
	case OP_N: break;
	}
	uint64_t c1 = now(CLOCK_THREAD_CPUTIME_ID);
	if (op == OP_ASYNC4)
		CK(cudaStreamSynchronize(s));
	return c1 - c0;
}

static void ab_failed(enum ab_op a, enum ab_kind k, int rc)
{
	fprintf(stderr, "latency: %s: way %d failed (%d)\n", a == AB_CAN ? "can-ab" : "async4-ab", (int)k, rc);
	exit(1);
}

/* The pause after a burst (none for 0), whatever signals come meanwhile:
 * slept, or with --pace spin spent reading the clock. */
static void sleep_us(long us)
{
	if (cfg.pace == PACE_SPIN) {
		uint64_t end = now(CLOCK_MONOTONIC) + (uint64_t)us * 1000u;
		while (us > 0 && now(CLOCK_MONOTONIC) < end)
			;
		return;
	}
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (us > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The pause after a paced burst of a run of `threads` threads (--pace). */
static long pause_for(int threads)
{
	if (cfg.pace == PACE_NONE)
		return 0;
	int most = 1;
	for (int i = 0; i < cfg.nthreads; i++)
		if (cfg.threads[i] > most)
			most = cfg.threads[i];
	return cfg.pause_us * (cfg.pace == PACE_SCALED ? threads : most);
}

/* n calls of one of the ways of a; the thread CPU ns they took (a copy's
 * wait after them not counted) */
static uint64_t ab_burst(enum ab_op a, enum ab_kind k, long n, cudaStream_t s)
{
	void *f = ab_fn[a][k];
	int v = 0, rc = 0;
	uint64_t c0 = now(CLOCK_THREAD_CPUTIME_ID);
	if (a == AB_CAN)
		for (long i = 0; i < n && !rc; i++)
			rc = ((can_fn)f)(&v, 0, 1);
	else if (k == AB_RT || k == AB_RT_REAL)
		for (long i = 0; i < n && !rc; i++)
			rc = ((rt_copy_fn)f)(buf[1], 1, buf[0], 0, 4, s);
	else
		for (long i = 0; i < n && !rc; i++)
			rc = ((drv_copy_fn)f)((unsigned long long)(uintptr_t)buf[1], ab_ctx[1],
			                      (unsigned long long)(uintptr_t)buf[0], ab_ctx[0], 4, s);
	uint64_t c1 = now(CLOCK_THREAD_CPUTIME_ID);
	if (rc)
		ab_failed(a, k, rc);
	if (a == AB_ASYNC4)
		CK(cudaStreamSynchronize(s));
	return c1 - c0;
}

/* n calls of each way of a, a burst of each in turn (the order turning
 * each round, so that no way always follows the same one); ns[k] their CPU ns */
static void ab_calls(enum ab_op a, long n, int threads, cudaStream_t s, uint64_t ns[AB_N])
{
	/* the query: a round of the four ways makes twice the events of a
	 * round of can on the shared runtime (four, against two): twice the
	 * pause, so that the trace writer keeps up as it does there; copies
	 * take microseconds and are not paced (as async4) */
	long b = cfg.burst, pause = a == AB_CAN ? 2 * pause_for(threads) : 0;
	if (a == AB_ASYNC4 && b > 256)
		b = 256;
	unsigned turn = 0;
	for (long done = 0; done < n; done += b, turn++) {
		long m = n - done < b ? n - done : b;
		for (unsigned j = 0; j < AB_N; j++) {
			enum ab_kind k = (enum ab_kind)((j + turn) % AB_N);
			if (ab_fn[a][k])
				ns[k] += ab_burst(a, k, m, s);
		}
		sleep_us(pause);
	}
}

static uint64_t run_calls(enum op op, long n, cudaStream_t s, int threads)
{
	long b = cfg.burst;
	if (op == OP_ASYNC4 && b > 256)
		b = 256;
	long pause = op == OP_CAN ? pause_for(threads) : 0;
	uint64_t cpu = 0;
	for (long done = 0; done < n; done += b) {
		cpu += burst_of(op, n - done < b ? n - done : b, s);
		sleep_us(pause);
	}
	return cpu;
}

static void *worker_main(void *arg)
{
	struct worker *w = (struct worker *)arg;
	cudaStream_t s;
	if (w->cpu >= 0 && pwg_pin_self(w->cpu) != 0)
		fprintf(stderr, "latency: could not pin a worker to CPU %d (not pinned)\n", w->cpu);
	CK(cudaSetDevice(0));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	if (w->op == OP_CANAB || w->op == OP_ASYNCAB) {
		enum ab_op a = w->op == OP_CANAB ? AB_CAN : AB_ASYNC4;
		uint64_t warm[AB_N] = {0};
		ab_calls(a, w->calls / 10 < 256 ? 256 : w->calls / 10, w->threads, s, warm);
		pthread_barrier_wait(w->bar);
		memset(w->ab_ns, 0, sizeof w->ab_ns);
		ab_calls(a, w->calls, w->threads, s, w->ab_ns);
		CK(cudaStreamDestroy(s));
		return NULL;
	}
	run_calls(w->op, w->calls / 10 < 256 ? 256 : w->calls / 10, s, w->threads);
	pthread_barrier_wait(w->bar);
	w->cpu_ns = run_calls(w->op, w->calls, s, w->threads);
	CK(cudaStreamDestroy(s));
	return NULL;
}

struct figure {
	double mean, lo, hi; /* thread CPU ns per call: mean over the threads, extremes */
	double way[AB_N];    /* -ab: ns per call of each way, mean over the threads */
	double one, pair;    /* -ab: one layer, the nested pair (ns added per call) */
};

static int by_mean(const void *a, const void *b)
{
	double x = ((const struct figure *)a)->mean, y = ((const struct figure *)b)->mean;
	return (x > y) - (x < y);
}

static struct figure measure_once(enum op op, int threads, long calls)
{
	struct worker w[64];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++) {
		w[i].op = op;
		w[i].threads = threads;
		w[i].cpu = cfg.pin ? pwg_nth_cpu(i + 2) : -1;
		w[i].bar = &bar;
		w[i].calls = calls;
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i])) {
			fprintf(stderr, "latency: pthread_create failed\n");
			exit(1);
		}
	}
	struct figure f = {0, 1e30, 0, {0}, 0, 0};
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].th, NULL);
		if (op == OP_CANAB || op == OP_ASYNCAB) {
			for (int k = 0; k < AB_N; k++)
				f.way[k] += (double)w[i].ab_ns[k] / (double)calls / threads;
			continue;
		}
		double per = (double)w[i].cpu_ns / (double)calls;
		f.mean += per / threads;
		f.lo = per < f.lo ? per : f.lo;
		f.hi = per > f.hi ? per : f.hi;
	}
	pthread_barrier_destroy(&bar);
	if (op == OP_CANAB || op == OP_ASYNCAB) {
		f.one = f.way[AB_DRV] - f.way[AB_DRV_REAL];
		f.pair = f.way[AB_RT] - f.way[AB_RT_REAL] + f.one;
	}
	return f;
}

static int by_one(const void *a, const void *b)
{
	double x = ((const struct figure *)a)->one, y = ((const struct figure *)b)->one;
	return (x > y) - (x < y);
}

static int by_pair(const void *a, const void *b)
{
	double x = ((const struct figure *)a)->pair, y = ((const struct figure *)b)->pair;
	return (x > y) - (x < y);
}

/* can-ab, async4-ab: the two figures, each the median of the
 * repetitions, and the ways of that repetition */
static void measure_ab(enum op op, int threads)
{
	struct figure f[64];
	long reps = cfg.reps;
	const char *name = op_names[op];
	for (long r = 0; r < reps; r++)
		f[r] = measure_once(op, threads, cfg.calls);
	qsort(f, (size_t)reps, sizeof f[0], by_one);
	const struct figure *m = &f[reps / 2];
	printf("op=%s-one threads=%d calls=%ld reps=%ld thr_cpu_ns=%.1f drv_ns=%.1f drv_real_ns=%.1f "
	       "rep_lo_ns=%.1f rep_hi_ns=%.1f peer=%d\n",
	       name, threads, cfg.calls * threads, reps, m->one, m->way[AB_DRV], m->way[AB_DRV_REAL], f[0].one,
	       f[reps - 1].one, peer_on);
	if (ab_fn[op == OP_CANAB ? AB_CAN : AB_ASYNC4][AB_RT_REAL]) {
		qsort(f, (size_t)reps, sizeof f[0], by_pair);
		m = &f[reps / 2];
		printf("op=%s-pair threads=%d calls=%ld reps=%ld thr_cpu_ns=%.1f rt_ns=%.1f rt_real_ns=%.1f "
		       "drv_ns=%.1f drv_real_ns=%.1f rep_lo_ns=%.1f rep_hi_ns=%.1f peer=%d\n",
		       name, threads, cfg.calls * threads, reps, m->pair, m->way[AB_RT], m->way[AB_RT_REAL],
		       m->way[AB_DRV], m->way[AB_DRV_REAL], f[0].pair, f[reps - 1].pair, peer_on);
	}
	fflush(stdout);
}

/* The four ways of a (above); 0, or 1 with a message.  The untraced ones
 * come from glibc's own dlsym, which dlvsym finds: peerwatch interposes
 * dlsym (to hand out its wrappers of driver functions), not dlvsym. */
static int ab_setup(enum ab_op a)
{
	typedef void *(*dlsym_fn)(void *, const char *);
	const char *rt_name = a == AB_CAN ? "cudaDeviceCanAccessPeer" : "cudaMemcpyPeerAsync";
	const char *drv_name = a == AB_CAN ? "cuDeviceCanAccessPeer" : "cuMemcpyPeerAsync";
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	dlsym_fn real_dlsym = NULL;
	if (libc && !(real_dlsym = (dlsym_fn)dlvsym(libc, "dlsym", "GLIBC_2.34")))
		real_dlsym = (dlsym_fn)dlvsym(libc, "dlsym", "GLIBC_2.2.5");
	if (!real_dlsym) {
		fprintf(stderr, "latency: -ab: glibc's dlsym not found: %s\n", dlerror());
		return 1;
	}
	ab_fn[a][AB_RT] = a == AB_CAN ? (void *)cudaDeviceCanAccessPeer : (void *)cudaMemcpyPeerAsync;
	void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
	if (rt) { /* the shared runtime; static cudart loads none */
		ab_fn[a][AB_RT_REAL] = real_dlsym(rt, rt_name);
		if (!ab_fn[a][AB_RT_REAL]) {
			fprintf(stderr, "latency: -ab: no %s in libcudart.so.13: %s\n", rt_name, dlerror());
			return 1;
		}
	}
	void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!drv) {
		fprintf(stderr, "latency: -ab: libcuda.so.1 is not loaded: %s\n", dlerror());
		return 1;
	}
	ab_fn[a][AB_DRV] = dlsym(drv, drv_name);
	ab_fn[a][AB_DRV_REAL] = real_dlsym(drv, drv_name);
	if (!ab_fn[a][AB_DRV] || !ab_fn[a][AB_DRV_REAL]) {
		fprintf(stderr, "latency: -ab: %s not found in libcuda.so.1: %s\n", drv_name, dlerror());
		return 1;
	}
	if (a == AB_ASYNC4) {
		retain_fn retain = (retain_fn)real_dlsym(drv, "cuDevicePrimaryCtxRetain");
		for (int d = 0; d < 2; d++)
			if (!retain || retain(&ab_ctx[d], d) != 0) {
				fprintf(stderr, "latency: async4-ab: no primary context of device %d\n", d);
				return 1;
			}
	}
	return 0;
}

static void measure(enum op op, int threads)
{
	if (op == OP_CANAB || op == OP_ASYNCAB) {
		measure_ab(op, threads);
		return;
	}
	long calls = op == OP_SYNC4 ? (cfg.calls + 4) / 5 : cfg.calls;
	struct figure f[64];
	long reps = cfg.reps;
	for (long r = 0; r < reps; r++)
		f[r] = measure_once(op, threads, calls);
	qsort(f, (size_t)reps, sizeof f[0], by_mean);
	const struct figure *m = &f[reps / 2]; /* the median (upper, for an even count) */
	printf("op=%s threads=%d calls=%ld reps=%ld thr_cpu_ns=%.1f min_thr_ns=%.1f max_thr_ns=%.1f "
	       "rep_lo_ns=%.1f rep_hi_ns=%.1f peer=%d\n",
	       op_names[op], threads, calls * threads, reps, m->mean, m->lo, m->hi, f[0].mean,
	       f[reps - 1].mean, peer_on);
	fflush(stdout);
}

static int parse_list(const char *s, const char *const *names, int n, int *out, int max)
{
	int k = 0;
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s", s);
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int v = -1;
		if (names) {
			for (int i = 0; i < n; i++)
				if (!strcmp(t, names[i]))
					v = i;
		} else {
			v = atoi(t);
			if (v < 1 || v > 64)
				v = -1;
		}
		if (v < 0 || k == max)
			return -1;
		out[k++] = v;
	}
	return k;
}

static void usage(void)
{
	fprintf(stderr, "usage: latency [--ops can,async4,sync4,can-ab,async4-ab] [--threads 1,8] [--calls N] [--burst B] "
	                "[--pause-us P] [--pace equal|scaled|spin|none] [--reps R] [--pin 0|1]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	cfg.nops = 3; /* can-ab only when asked */
	cfg.ops[0] = OP_CAN;
	cfg.ops[1] = OP_ASYNC4;
	cfg.ops[2] = OP_SYNC4;
	cfg.nthreads = 2;
	cfg.threads[0] = 1;
	cfg.threads[1] = 8;
	cfg.calls = 50000;
	cfg.burst = 1024;
	cfg.pause_us = 1000;
	cfg.reps = 1;
	for (int i = 1; i < argc; i += 2) { /* options come in pairs: NAME VALUE */
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		if (!strcmp(a, "--ops"))
			cfg.nops = parse_list(v, op_names, OP_N, cfg.ops, OP_N);
		else if (!strcmp(a, "--threads"))
			cfg.nthreads = parse_list(v, NULL, 0, cfg.threads, 8);
		else if (!strcmp(a, "--calls"))
			cfg.calls = atol(v);
		else if (!strcmp(a, "--burst"))
			cfg.burst = atol(v);
		else if (!strcmp(a, "--pause-us"))
			cfg.pause_us = atol(v);
		else if (!strcmp(a, "--pace")) {
			int k[1];
			if (parse_list(v, pace_names, PACE_N, k, 1) != 1)
				usage();
			cfg.pace = k[0];
		} else if (!strcmp(a, "--reps"))
			cfg.reps = atol(v);
		else if (!strcmp(a, "--pin"))
			cfg.pin = atoi(v) != 0;
		else
			usage();
	}
	if (cfg.nops < 1 || cfg.nthreads < 1 || cfg.calls < 1 || cfg.burst < 1 || cfg.pause_us < 0 ||
	    cfg.reps < 1 || cfg.reps > 64)
		usage();
	int n = 0;
	CK(cudaGetDeviceCount(&n));
	if (n < 2) {
		fprintf(stderr, "latency: %d device(s); two are needed\n", n);
		return 77;
	}
	for (int d = 0; d < 2; d++) {
		int can = 0;
		CK(cudaSetDevice(d));
		CK(cudaMalloc(&buf[d], 4096));
		CK(cudaMemset(buf[d], 0, 4096));
		CK(cudaDeviceCanAccessPeer(&can, d, !d));
		if (can) {
			cudaError_t e = cudaDeviceEnablePeerAccess(!d, 0);
			if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
				fprintf(stderr, "latency: cudaDeviceEnablePeerAccess: %s\n",
				        cudaGetErrorName(e));
				return 1;
			}
			(void)cudaGetLastError();
			peer_on++;
		}
	}
	peer_on = peer_on == 2;
	CK(cudaSetDevice(0));
	CK(cudaDeviceSynchronize());
	for (int o = 0; o < cfg.nops; o++)
		if ((cfg.ops[o] == OP_CANAB && ab_setup(AB_CAN) != 0) ||
		    (cfg.ops[o] == OP_ASYNCAB && ab_setup(AB_ASYNC4) != 0))
			return 1;
	for (int o = 0; o < cfg.nops; o++)
		for (int t = 0; t < cfg.nthreads; t++)
			measure((enum op)cfg.ops[o], cfg.threads[t]);
	for (int d = 0; d < 2; d++)
		CK(cudaFree(buf[d]));
	return 0;
}

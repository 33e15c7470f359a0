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
 *           [--pause-us P] [--reps R] [--pin 0|1]
 *
 *   can     cudaDeviceCanAccessPeer(&v, 0, 1)
 *   async4  cudaMemcpyPeerAsync(dev 1 <- dev 0, 4 bytes) on the thread's own
 *           non-blocking stream, a cudaStreamSynchronize after every 256
 *           (not timed: the calls are timed in bursts between the waits)
 *   sync4   cudaMemcpyPeer(dev 1 <- dev 0, 4 bytes)
 *
 * Each thread makes --calls calls of each op (a fifth of them for sync4,
 * which takes microseconds) after a warm-up of a tenth of them, in bursts of
 * --burst (at most 256 for async4).  cudaDeviceCanAccessPeer is faster than
 * the trace writer can write its events, so after each burst of it a thread
 * sleeps --pause-us times the number of threads (default 1000: 1 ms, 8 ms
 * with 8 threads); the copies take microseconds each and are not paced.
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

enum op { OP_CAN, OP_ASYNC4, OP_SYNC4, OP_N };
static const char *const op_names[OP_N] = {"can", "async4", "sync4"};

static struct {
	int ops[OP_N], nops;
	int threads[8], nthreads;
	long calls, burst, pause_us, reps;
	int pin;
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
	case OP_N: break;
	}
	uint64_t c1 = now(CLOCK_THREAD_CPUTIME_ID);
	if (op == OP_ASYNC4)
		CK(cudaStreamSynchronize(s));
	return c1 - c0;
}

static uint64_t run_calls(enum op op, long n, cudaStream_t s, int threads)
{
	long b = cfg.burst;
	if (op == OP_ASYNC4 && b > 256)
		b = 256;
	long pause = op == OP_CAN ? cfg.pause_us * threads : 0;
	uint64_t cpu = 0;
	for (long done = 0; done < n; done += b) {
		cpu += burst_of(op, n - done < b ? n - done : b, s);
		if (pause > 0) {
			struct timespec ts = {pause / 1000000, (pause % 1000000) * 1000};
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
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
	run_calls(w->op, w->calls / 10 < 256 ? 256 : w->calls / 10, s, w->threads);
	pthread_barrier_wait(w->bar);
	w->cpu_ns = run_calls(w->op, w->calls, s, w->threads);
	CK(cudaStreamDestroy(s));
	return NULL;
}

struct figure {
	double mean, lo, hi; /* thread CPU ns per call: mean over the threads, extremes */
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
	struct figure f = {0, 1e30, 0};
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].th, NULL);
		double per = (double)w[i].cpu_ns / (double)calls;
		f.mean += per / threads;
		f.lo = per < f.lo ? per : f.lo;
		f.hi = per > f.hi ? per : f.hi;
	}
	pthread_barrier_destroy(&bar);
	return f;
}

static void measure(enum op op, int threads)
{
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
	fprintf(stderr, "usage: latency [--ops can,async4,sync4] [--threads 1,8] [--calls N] [--burst B] "
	                "[--pause-us P] [--reps R] [--pin 0|1]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	cfg.nops = 3;
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
		else if (!strcmp(a, "--reps"))
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
		for (int t = 0; t < cfg.nthreads; t++)
			measure((enum op)cfg.ops[o], cfg.threads[t]);
	for (int d = 0; d < 2; d++)
		CK(cudaFree(buf[d]));
	return 0;
}

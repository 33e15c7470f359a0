/*
 * What the hot path's building blocks cost on this host, and which of them
 * the kernel offers: the facts the wrapper's design rests on (clock.h,
 * fence.h, the sequence counter of pw.h), measured where the GPUs are.
 *
 *   hostprobe [THREADS]     (default 8: the contended counter's threads)
 *
 * Prints, one "key: value" per line:
 *   kernel, clocksource (current and available), the CPU's TSC flags, the
 *   process's PR_GET_TSC, what membarrier(2) offers and whether registering
 *   for MEMBARRIER_CMD_PRIVATE_EXPEDITED works;
 *   ns per operation (median of 9 runs of 2^20): rdtsc, rdtscp, lfence+rdtsc,
 *   clock_gettime MONOTONIC and THREAD_CPUTIME_ID, a seq_cst fence, a
 *   locked add to a private line, a relaxed fetch_add on one shared counter
 *   by 1 and by THREADS threads at once (per thread), and the same with a
 *   counter per thread taken in blocks of 64; and work that shares nothing
 *   (two counter reads and a 128-byte store into the thread's own 1 MiB
 *   ring, about what a traced call does) by 1 and by THREADS threads at
 *   once, each pinned to a CPU of its own as latency.cu pins its workers:
 *   what the host itself charges when more of its CPUs are busy.
 * No GPU is needed: plain C, built by gpu.mk with the other programs.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "gpu_common.h"

#define N (1u << 20)
#define RUNS 9

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void file_line(const char *key, const char *path)
{
	char buf[512] = "";
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	printf("%s: %s\n", key, f ? buf : "(none)");
}

static void cpu_flags(void)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	const char *want[] = {"constant_tsc", "nonstop_tsc", "tsc_reliable", "rdtscp", "tsc_known_freq"};
	bool have[5] = {false};
	char model[256] = "?";
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "model name", 10) && model[0] == '?') {
			char *c = strchr(line, ':');
			snprintf(model, sizeof model, "%.200s", c ? c + 2 : line);
			model[strcspn(model, "\n")] = 0;
		}
		if (strncmp(line, "flags", 5))
			continue;
		for (int i = 0; i < 5; i++) {
			char pat[64];
			snprintf(pat, sizeof pat, " %s", want[i]);
			char *p = strstr(line, pat);
			if (p && (p[strlen(pat)] == ' ' || p[strlen(pat)] == '\n'))
				have[i] = true;
		}
		break;
	}
	if (f)
		fclose(f);
	printf("cpu: %s\n", model);
	printf("cpu_tsc_flags:");
	for (int i = 0; i < 5; i++)
		printf(" %s=%d", want[i], have[i]);
	printf("\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef void (*bench_fn)(unsigned n);
static volatile uint64_t sink;
static void b_rdtsc(unsigned n)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < n; i++)
		s += __rdtsc();
	sink = s;
}
static void b_rdtscp(unsigned n)
{
	uint64_t s = 0;
	unsigned aux;
	for (unsigned i = 0; i < n; i++)
		s += __rdtscp(&aux);
	sink = s;
}
static void b_lfence_rdtsc(unsigned n)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < n; i++) {
		_mm_lfence();
		s += __rdtsc();
	}
	sink = s;
}
static void b_mono(unsigned n)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < n; i++)
		s += now_ns(CLOCK_MONOTONIC);
	sink = s;
}
static void b_thread_cpu(unsigned n)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < n; i++)
		s += now_ns(CLOCK_THREAD_CPUTIME_ID);
	sink = s;
}
static void b_fence(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		atomic_thread_fence(memory_order_seq_cst);
}
static _Alignas(64) atomic_uint_fast64_t private_word;
static void b_locked(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		atomic_fetch_add_explicit(&private_word, 1, memory_order_relaxed);
}
static void b_signal_fence(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		atomic_signal_fence(memory_order_seq_cst);
}

static double time_one(bench_fn f)
{
	double r[RUNS];
	f(N / 8);
	for (int k = 0; k < RUNS; k++) {
		uint64_t t = now_ns(CLOCK_MONOTONIC);
		f(N);
		r[k] = (double)(now_ns(CLOCK_MONOTONIC) - t) / N;
	}
	qsort(r, RUNS, sizeof r[0], cmp_double);
	return r[RUNS / 2];
}

/* ---- the shared counter, by T threads at once ---- */
static _Alignas(64) atomic_uint_fast64_t shared_seq;
static atomic_int go;
enum work { W_SHARED, W_BLOCKS, W_PRIVATE };
static enum work work;
struct thr {
	pthread_t t;
	double ns;
	int cpu;
	char pad[64];
};

/* Two counter reads and a record-sized store into a private ring, n times. */
static uint64_t private_records(unsigned n)
{
	enum { RING = 1u << 20, REC = 128 };
	uint64_t *ring = aligned_alloc(64, RING), s = 0;
	if (!ring)
		return 0;
	memset(ring, 0, RING);
	size_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = __rdtsc();
		uint64_t *r = ring + at / 8;
		for (int k = 0; k < REC / 8; k++)
			r[k] = t0 + (uint64_t)k;
		r[1] = __rdtsc();
		at = (at + REC) % RING;
	}
	s = ring[0] + ring[RING / 8 - 1];
	free(ring);
	return s;
}

static void *counter_thread(void *arg)
{
	struct thr *me = arg;
	if (me->cpu >= 0)
		pwg_pin_self(me->cpu);
	while (!atomic_load(&go))
		;
	uint64_t t = now_ns(CLOCK_THREAD_CPUTIME_ID), s = 0;
	if (work == W_PRIVATE) {
		s = private_records(N);
	} else if (work == W_BLOCKS) {
		uint64_t next = 0, end = 0;
		for (unsigned i = 0; i < N; i++) {
			if (next == end) {
				next = atomic_fetch_add_explicit(&shared_seq, 64, memory_order_relaxed);
				end = next + 64;
			}
			s += next++;
		}
	} else {
		for (unsigned i = 0; i < N; i++)
			s += atomic_fetch_add_explicit(&shared_seq, 1, memory_order_relaxed);
	}
	sink = s;
	me->ns = (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - t) / N;
	return NULL;
}

static double contended(int threads, enum work w)
{
	double r[5];
	struct thr *th = calloc((size_t)threads, sizeof *th);
	work = w;
	for (int k = 0; k < 5; k++) {
		atomic_store(&go, 0);
		for (int i = 0; i < threads; i++) {
			th[i].cpu = w == W_PRIVATE ? pwg_nth_cpu(i + 2) : -1;
			pthread_create(&th[i].t, NULL, counter_thread, &th[i]);
		}
		atomic_store(&go, 1);
		double sum = 0;
		for (int i = 0; i < threads; i++) {
			pthread_join(th[i].t, NULL);
			sum += th[i].ns;
		}
		r[k] = sum / threads;
	}
	free(th);
	qsort(r, 5, sizeof r[0], cmp_double);
	return r[2];
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	if (threads < 1 || threads > 256) {
		fprintf(stderr, "hostprobe: THREADS must be 1 to 256\n");
		return 2;
	}
	struct utsname u;
	if (uname(&u) == 0)
		printf("kernel: %s %s\n", u.sysname, u.release);
	file_line("clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	file_line("clocksources", "/sys/devices/system/clocksource/clocksource0/available_clocksource");
	cpu_flags();
	printf("nproc: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	int tsc_mode = -1;
	prctl(PR_GET_TSC, &tsc_mode, 0, 0, 0);
	printf("pr_get_tsc: %d (1 = enabled)\n", tsc_mode);
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	printf("membarrier_query: %ld private_expedited=%d\n", q,
	       q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ? 1 : 0);
	long reg = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
	printf("membarrier_register: %ld\n", reg);
	if (reg == 0) {
		uint64_t t = now_ns(CLOCK_MONOTONIC);
		long e = syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		printf("membarrier_expedited: %ld in %llu ns\n", e,
		       (unsigned long long)(now_ns(CLOCK_MONOTONIC) - t));
	}
	struct {
		const char *name;
		bench_fn f;
	} b[] = {
	    {"rdtsc", b_rdtsc},
	    {"rdtscp", b_rdtscp},
	    {"lfence_rdtsc", b_lfence_rdtsc},
	    {"clock_gettime_monotonic", b_mono},
	    {"clock_gettime_thread_cputime", b_thread_cpu},
	    {"fence_seq_cst", b_fence},
	    {"signal_fence", b_signal_fence},
	    {"locked_add_private", b_locked},
	};
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		printf("ns_%s: %.1f\n", b[i].name, time_one(b[i].f));
	printf("ns_fetch_add_shared_1: %.1f\n", contended(1, W_SHARED));
	printf("ns_fetch_add_shared_%d: %.1f\n", threads, contended(threads, W_SHARED));
	printf("ns_fetch_add_blocks64_%d: %.1f\n", threads, contended(threads, W_BLOCKS));
	printf("ns_private_record_1: %.1f\n", contended(1, W_PRIVATE));
	printf("ns_private_record_%d: %.1f\n", threads, contended(threads, W_PRIVATE));
	return 0;
}

/*
 * The process leaves while its threads are making traced calls.
 *
 *   exitrace MODE THREADS [COUNTS_FILE]
 *
 * THREADS workers call cuDeviceCanAccessPeer in a loop; each counts the calls
 * that returned.  After a short while the main thread leaves in the way MODE
 * says, with the workers still calling.  Just before it does, it writes each
 * worker's count of returned calls to COUNTS_FILE ("tid count" lines): every
 * one of those calls returned before the process left, so each must be in
 * the trace (the test compares).  What the program prints and its exit
 * status never depend on tracing, so a run with peerwatch must be
 * byte-identical to one without.
 *
 * MODE:
 *   exit          exit(7)
 *   _exit         _exit(7)
 *   exec          execl(self, "exec-child") -> the new image prints and exits 7
 *   exec-fail     execl of a path that does not exist (the counts written
 *                 before: tracing stops while the exec is tried), the
 *                 threads calling on for 20 ms, then exit(7)
 *   fork          fork a child that makes calls of its own and exit(3)s while
 *                 the parent's threads run; the parent then exit(7)s
 *   pthread_exit  main calls pthread_exit; the workers make 2000 calls each
 *                 and return, the last one ending the process (status 0)
 *   thread_exit   the workers leave one by one while main exits(7)
 *   signal        raise(SIGTERM) with the default action (status 143)
 *   handler       the program's own SIGTERM handler calls exit(5)
 *   fork-handler  the program's SIGUSR1 handler forks a child that makes
 *                 calls of its own and exit(3)s, and waits for it; main
 *                 makes one call and raises SIGUSR1 if nothing did during
 *                 that call (tests/fault/faultshim.c raises it while the
 *                 first call writes the trace's header), then exit(7)s
 *   quick         one call, then exit(7) at once
 *   crash         one call, then SIGSEGV (default action: status 139)
 *   wait          the workers call until the process is killed from outside;
 *                 main prints "ready" once they all made a call (SIGINT
 *                 back to its default first: a shell starts background
 *                 jobs with it ignored)
 */
#include <dlfcn.h>
#include <pthread.h>
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

#include "peerwatch/abi/cuda.h"

#define MAX_THREADS 64

static CUresult (*can_access)(int *, CUdevice, CUdevice);
static atomic_long done[MAX_THREADS];
static long tids[MAX_THREADS];
static atomic_int started;
static int nthreads;
static const char *mode = "exit";
static const char *counts_path;

static atomic_bool leaving; /* main has begun to leave */

/* A failed call is a failure, except once main has begun to leave: the real
 * driver tears itself down in exit() and answers the calls still being made
 * with an error (CUDA_ERROR_DEINITIALIZED); the thread then waits to end with
 * the process, as it would in a program that checks its calls. */
static void call(void)
{
	int v;
	CUresult rc = can_access(&v, 0, 1);
	if (rc == CUDA_SUCCESS)
		return;
	if (atomic_load(&leaving))
		for (;;)
			pause();
	fprintf(stderr, "exitrace: call failed (%d)\n", (int)rc);
	_exit(1);
}

static void *worker(void *arg)
{
	long me = (long)arg;
	tids[me] = syscall(SYS_gettid);
	atomic_fetch_add(&started, 1);
	long limit = !strcmp(mode, "pthread_exit") ? 2000 : !strcmp(mode, "thread_exit") ? 50 * (me + 1) : -1;
	for (long i = 0; limit < 0 || i < limit; i++) {
		call();
		atomic_fetch_add(&done[me], 1);
	}
	return NULL;
}

/* The calls that returned so far, each thread's: all of them must be traced. */
static void write_counts(void)
{
	if (!counts_path)
		return;
	FILE *f = fopen(counts_path, "w");
	if (!f)
		return;
	for (int i = 0; i < nthreads; i++)
		fprintf(f, "%ld %ld\n", tids[i], atomic_load(&done[i]));
	fclose(f);
}

/* What programs do, though exit() is not async-signal-safe: peerwatch must
 * finish its trace from here too. */
static void on_term(int sig)
{
	(void)sig;
	exit(5); // NOLINT(bugprone-signal-handler): the case under test
}

static volatile sig_atomic_t forked_status = -1;

/* fork-handler: a child from inside a signal handler (fork is
 * async-signal-safe), made while a traced call may be under way. */
static void on_usr1(int sig)
{
	(void)sig;
	pid_t pid = fork();
	if (pid == 0) {
		int v;
		for (int i = 0; i < 100; i++)
			(void)can_access(&v, 0, 1);
		exit(3); // NOLINT(bugprone-signal-handler): the child leaves as programs do
	}
	int st = 0;
	forked_status = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fork-handler"))
		signal(SIGUSR1, on_usr1); /* before the first traced call, cuInit's */
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
	can_access = h ? (CUresult(*)(int *, CUdevice, CUdevice))dlsym(h, "cuDeviceCanAccessPeer") : NULL;
	if (!init || !can_access || init(0) != CUDA_SUCCESS) {
		fprintf(stderr, "exitrace: no driver\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "exec-child")) {
		call();
		printf("exitrace: exec'ed image\n");
		fflush(stdout);
		exit(7);
	}
	if (argc < 3) {
		fprintf(stderr, "usage: exitrace MODE THREADS [COUNTS_FILE]\n");
		return 2;
	}
	mode = argv[1];
	nthreads = atoi(argv[2]);
	counts_path = argc > 3 ? argv[3] : NULL;
	if (nthreads < 0 || nthreads > MAX_THREADS) {
		fprintf(stderr, "exitrace: 0..%d threads\n", MAX_THREADS);
		return 2;
	}
	printf("exitrace: %s with %d threads\n", mode, nthreads);
	fflush(stdout);
	if (!strcmp(mode, "quick")) {
		call();
		exit(7);
	}
	if (!strcmp(mode, "fork-handler")) {
		call();
		if (forked_status < 0)
			raise(SIGUSR1);
		printf("exitrace: the child forked in the handler left with %d\n", (int)forked_status);
		exit(7);
	}
	if (!strcmp(mode, "crash")) {
		call();
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 1;
	}
	if (!strcmp(mode, "handler"))
		signal(SIGTERM, on_term);
	if (!strcmp(mode, "wait"))
		signal(SIGINT, SIG_DFL);
	pthread_t t;
	pthread_attr_t detached; /* never joined: the process leaves under them */
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t, &detached, worker, (void *)i) != 0) {
			fprintf(stderr, "exitrace: pthread_create failed\n");
			return 1;
		}
	while (atomic_load(&started) < nthreads)
		pause_ms(1);
	pause_ms(1 + (long)(getpid() % 4));
	/* After main's pthread_exit the process lives on with its workers, and
	 * a failed call is a failure again (it must end the run, not hang it). */
	atomic_store(&leaving, strcmp(mode, "pthread_exit") != 0);
	if (!strcmp(mode, "exit") || !strcmp(mode, "thread_exit")) {
		write_counts();
		exit(7);
	}
	if (!strcmp(mode, "_exit")) {
		write_counts();
		_exit(7);
	}
	if (!strcmp(mode, "exec")) {
		write_counts();
		execl(argv[0], argv[0], "exec-child", (char *)NULL);
		_exit(126);
	}
	if (!strcmp(mode, "exec-fail")) {
		write_counts();
		execl("/nonexistent/exitrace", "exitrace", (char *)NULL);
		pause_ms(20);
		exit(7);
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			/* The real driver refuses CUDA in a child forked after cuInit
			 * (the CUDA Programming Guide: not supported); the calls are
			 * made, traced and their answers ignored. */
			int v;
			for (int i = 0; i < 100; i++)
				(void)can_access(&v, 0, 1);
			exit(3);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 3) {
			fprintf(stderr, "exitrace: forked child failed\n");
			_exit(1);
		}
		write_counts();
		exit(7);
	}
	if (!strcmp(mode, "pthread_exit"))
		pthread_exit(NULL);
	if (!strcmp(mode, "wait")) {
		for (int i = 0; i < nthreads; i++)
			while (!atomic_load(&done[i]))
				pause_ms(1);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "signal")) {
		raise(SIGTERM);
		return 1;
	}
	if (!strcmp(mode, "handler")) {
		write_counts();
		raise(SIGTERM);
		return 1;
	}
	fprintf(stderr, "exitrace: unknown mode '%s'\n", mode);
	return 2;
}

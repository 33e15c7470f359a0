/*
 * Helpers shared by the real-GPU test programs (peer_all.cu, peer_driver.c):
 * the data pattern and checksum they verify, hex encoding of IPC handles, and
 * the parent/child pipe protocol of the IPC test; and (latency.cu,
 * hostprobe.c) the CPUs timed threads are pinned to.
 *
 * Why a child that is exec'd: an IPC handle can only be opened in a process
 * other than the exporter, and CUDA must not be used in a forked copy of a
 * process that has initialised it.  So main() forks before its first CUDA
 * call; the child immediately execs /proc/self/exe with
 *     --ipc-child <read-fd> <write-fd>
 * and waits on the pipe for the handles.  Protocol, one line each way:
 *     parent -> child   "GO <seed> <words> <mem-handle hex> <event-handle hex>\n"
 *                       or "QUIT\n" (the parent gave up; the child exits 0)
 *     child  -> parent  "DONE <fnv before> <fnv after>\n" (both 16 hex digits)
 *                       or nothing, and a non-zero exit status, on failure.
 *
 * Plain C that also compiles as C++ (nvcc), everything static.
 */
#ifndef PW_GPU_COMMON_H
#define PW_GPU_COMMON_H

#if !defined(__cplusplus) && !defined(_GNU_SOURCE)
#error "define _GNU_SOURCE before the first #include (the CPU pinning here needs sched_getaffinity)"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Functions that kernels also use (peer_all.cu). */
#ifdef __CUDACC__
#define PWG_HD __host__ __device__
#else
#define PWG_HD
#endif

/* Every process of a test arms this alarm: a hang becomes a SIGALRM death. */
#define PWG_ALARM_SECONDS 90
#define PWG_HANDLE_BYTES 64 /* CU_IPC_HANDLE_SIZE / CUDA_IPC_HANDLE_SIZE */
#define PWG_LINE_MAX 512
#define PWG_EXIT_SKIP 77

/* Deterministic 32-bit pattern: word i of a buffer filled with seed. */
PWG_HD static inline uint32_t pwg_pattern(size_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ seed;
	x ^= x >> 15;
	x *= 2246822519u;
	x ^= x >> 13;
	return x;
}

/* What the IPC child does to every word of the shared buffer. */
PWG_HD static inline uint32_t pwg_ipc_transform(uint32_t v)
{
	return v * 3u + 7u;
}

static inline void pwg_fill(uint32_t *p, size_t words, uint32_t seed)
{
	for (size_t i = 0; i < words; i++)
		p[i] = pwg_pattern(i, seed);
}

/* FNV-1a, 64 bit, over bytes. */
static inline uint64_t pwg_fnv(const void *data, size_t len)
{
	const unsigned char *b = (const unsigned char *)data;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Index of the first word where a and b differ, or words when equal. */
static inline size_t pwg_first_diff(const uint32_t *a, const uint32_t *b, size_t words)
{
	size_t i = 0;
	while (i < words && a[i] == b[i])
		i++;
	return i;
}

static inline void pwg_hex_encode(const void *src, size_t len, char *dst /* 2*len+1 */)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = (const unsigned char *)src;
	for (size_t i = 0; i < len; i++) {
		dst[2 * i] = digits[b[i] >> 4];
		dst[2 * i + 1] = digits[b[i] & 15];
	}
	dst[2 * len] = '\0';
}

static inline int pwg_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Returns 0 when src is exactly 2*len hex digits. */
static inline int pwg_hex_decode(const char *src, void *dst, size_t len)
{
	unsigned char *b = (unsigned char *)dst;
	if (strlen(src) != 2 * len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int hi = pwg_hex_digit(src[2 * i]), lo = pwg_hex_digit(src[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static inline int pwg_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads one '\n'-terminated line (newline stripped).  Byte by byte, so nothing
 * past the line is consumed.  Returns 0, or -1 on EOF/error/overlong line. */
static inline int pwg_read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (c == '\n')
			break;
		if (n + 1 >= cap)
			return -1;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

/* The parent's end of the IPC child.  pid < 0: no child. */
struct pwg_child {
	pid_t pid;
	int to_child;   /* parent writes */
	int from_child; /* parent reads */
};

/*
 * Forks and execs "/proc/self/exe --ipc-child R W".  Must run before the first
 * CUDA call.  Returns 0, or -1 with a message on stderr.  argv0 is only used
 * as the child's argv[0].
 */
static inline int pwg_spawn_ipc_child(const char *argv0, struct pwg_child *c)
{
	int down[2], up[2];
	c->pid = -1;
	c->to_child = c->from_child = -1;
	/* A child that dies must make our write fail with EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (pipe(down) != 0 || pipe(up) != 0) {
		perror("pipe");
		return -1;
	}
	fflush(NULL); /* nothing buffered may be written twice */
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (pid == 0) {
		char rfd[16], wfd[16];
		close(down[1]);
		close(up[0]);
		snprintf(rfd, sizeof rfd, "%d", down[0]);
		snprintf(wfd, sizeof wfd, "%d", up[1]);
		execl("/proc/self/exe", argv0, "--ipc-child", rfd, wfd, (char *)NULL);
		fprintf(stderr, "ipc-child: exec /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	close(down[0]);
	close(up[1]);
	fcntl(down[1], F_SETFD, FD_CLOEXEC);
	fcntl(up[0], F_SETFD, FD_CLOEXEC);
	c->pid = pid;
	c->to_child = down[1];
	c->from_child = up[0];
	return 0;
}

/* Waits for the child; returns its exit status, 128+signal, or -1. */
static inline int pwg_reap_child(struct pwg_child *c)
{
	int st = 0;
	if (c->to_child >= 0)
		close(c->to_child);
	if (c->from_child >= 0)
		close(c->from_child);
	c->to_child = c->from_child = -1;
	if (c->pid < 0)
		return -1;
	while (waitpid(c->pid, &st, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			c->pid = -1;
			return -1;
		}
	}
	c->pid = -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

/* Tells a child that will never get handles to leave, and reaps it. */
static inline void pwg_dismiss_child(struct pwg_child *c)
{
	if (c->pid < 0)
		return;
	(void)pwg_write_all(c->to_child, "QUIT\n", 5);
	(void)pwg_reap_child(c);
}

/* Parses "--ipc-child R W".  Returns 0 and the two descriptors. */
static inline int pwg_child_fds(int argc, char **argv, int *rfd, int *wfd)
{
	char *end1, *end2;
	if (argc != 4)
		return -1;
	long r = strtol(argv[2], &end1, 10), w = strtol(argv[3], &end2, 10);
	if (*end1 || *end2 || r < 0 || w < 0 || r > 1 << 20 || w > 1 << 20)
		return -1;
	*rfd = (int)r;
	*wfd = (int)w;
	return 0;
}

/* The GO message, parsed. */
struct pwg_go {
	uint32_t seed;
	size_t words;
	unsigned char mem[PWG_HANDLE_BYTES];
	unsigned char event[PWG_HANDLE_BYTES];
};

static inline int pwg_send_go(struct pwg_child *c, const struct pwg_go *go)
{
	char mem[2 * PWG_HANDLE_BYTES + 1], ev[2 * PWG_HANDLE_BYTES + 1], line[PWG_LINE_MAX];
	pwg_hex_encode(go->mem, PWG_HANDLE_BYTES, mem);
	pwg_hex_encode(go->event, PWG_HANDLE_BYTES, ev);
	int n = snprintf(line, sizeof line, "GO %u %zu %s %s\n", go->seed, go->words, mem, ev);
	if (n <= 0 || (size_t)n >= sizeof line)
		return -1;
	return pwg_write_all(c->to_child, line, (size_t)n);
}

/* Child side.  Returns 1 for GO (filled in), 0 for QUIT, -1 for garbage/EOF. */
static inline int pwg_recv_go(int rfd, struct pwg_go *go)
{
	char line[PWG_LINE_MAX], mem[PWG_LINE_MAX], ev[PWG_LINE_MAX];
	unsigned seed;
	size_t words;
	if (pwg_read_line(rfd, line, sizeof line) != 0)
		return -1;
	if (strcmp(line, "QUIT") == 0)
		return 0;
	if (sscanf(line, "GO %u %zu %511s %511s", &seed, &words, mem, ev) != 4)
		return -1;
	if (pwg_hex_decode(mem, go->mem, PWG_HANDLE_BYTES) != 0 ||
	    pwg_hex_decode(ev, go->event, PWG_HANDLE_BYTES) != 0 || words == 0 || words > (64u << 20) / 4)
		return -1;
	go->seed = seed;
	go->words = words;
	return 1;
}

static inline int pwg_send_done(int wfd, uint64_t before, uint64_t after)
{
	char line[64];
	int n = snprintf(line, sizeof line, "DONE %016llx %016llx\n", (unsigned long long)before,
	                 (unsigned long long)after);
	return pwg_write_all(wfd, line, (size_t)n);
}

/* Parent side: waits for DONE.  Returns 0 and the two checksums. */
static inline int pwg_recv_done(struct pwg_child *c, uint64_t *before, uint64_t *after)
{
	char line[PWG_LINE_MAX];
	unsigned long long b, a;
	if (pwg_read_line(c->from_child, line, sizeof line) != 0)
		return -1;
	if (sscanf(line, "DONE %16llx %16llx", &b, &a) != 2)
		return -1;
	*before = b;
	*after = a;
	return 0;
}

/* The n-th CPU (from 0) this process may run on, or -1. */
static inline int pwg_nth_cpu(int n)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && n-- == 0)
			return c;
	return -1;
}

/* Keeps the calling thread on cpu: 0, or an error number. */
static inline int pwg_pin_self(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

#endif

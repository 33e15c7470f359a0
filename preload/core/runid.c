/* The run's identity (runid.h): the id the processes of one run share. */
#include "core/runid.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/pw.h"

/* ---- small text helpers the run id and the registry's names share ---- */

uint64_t pw_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

char *pw_put_str(char *p, char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	return p;
}

char *pw_put_uint(char *p, char *end, uint64_t v, unsigned base, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v || n < width);
	while (n > 0 && p < end)
		*p++ = tmp[--n];
	return p;
}

/* ---- the run id ---- */

static char run_id_buf[256];
static pthread_once_t run_id_once = PTHREAD_ONCE_INIT;

/* 128 bits nobody else can guess: getrandom, else /dev/urandom. */
static bool random_bytes(unsigned char *out, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = getrandom(out + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == n)
		return true;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, out, n);
	close(fd);
	return r == (ssize_t)n;
}

static void run_id_init(void)
{
	char *p = run_id_buf, *end = run_id_buf + sizeof run_id_buf - 1;
	const char *env = getenv("PEERWATCH_RUN_ID");
	if (env && *env) {
		size_t n = strlen(env);
		if (n < sizeof run_id_buf) {
			memcpy(run_id_buf, env, n + 1);
			return;
		}
		/* Too long to keep: its head and a hash, the same in every process. */
		memcpy(run_id_buf, env, 200);
		p = pw_put_str(run_id_buf + 200, end, "-");
		p = pw_put_uint(p, end, pw_fnv1a(0xcbf29ce484222325ull, env, n), 16, 16);
		*p = '\0';
		return;
	}
	unsigned char r[16];
	int saved = errno;
	if (!random_bytes(r, sizeof r)) {
		/* No randomness to be had: still unique, though guessable. */
		uint64_t a = pw_realtime_ns(), b = (uint64_t)(uintptr_t)&r ^ pw_now_ns();
		memcpy(r, &a, 8);
		memcpy(r + 8, &b, 8);
		pw_log(
		    "IPC registry: no random bytes for a run id (getrandom and /dev/urandom failed): another "
		    "local user could guess it; set PEERWATCH_RUN_ID to a secret");
	}
	errno = saved;
	p = pw_put_uint(p, end, (uint64_t)getpid(), 10, 1);
	p = pw_put_str(p, end, "-");
	for (size_t i = 0; i < sizeof r; i++)
		p = pw_put_uint(p, end, r[i], 16, 2);
	*p = '\0';
	/* Children of this process tree inherit it and share our registry. */
	setenv("PEERWATCH_RUN_ID", run_id_buf, 1);
}

const char *pw_run_id(void)
{
	pthread_once(&run_id_once, run_id_init);
	return run_id_buf;
}

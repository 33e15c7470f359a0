/*
 * Messages to stderr.  A preloaded library must not disturb the program's
 * stdio buffers or locks, so a message is formatted on the stack and written
 * with one write(2).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pw.h"

uint64_t pw_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t pw_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long pw_gettid(void)
{
	return syscall(SYS_gettid);
}

static void pw_vlog(const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "peerwatch[%d]: ", (int)getpid());
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}

void pw_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pw_vlog(fmt, ap);
	va_end(ap);
}

void pw_debug(const char *fmt, ...)
{
	if (pw_g.opt.verbosity < 2)
		return;
	va_list ap;
	va_start(ap, fmt);
	pw_vlog(fmt, ap);
	va_end(ap);
}

void pw_disable(const char *fmt, ...)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	bool was = atomic_exchange(&pw_g.enabled, false);
	if (!was || atomic_flag_test_and_set(&said))
		return;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	pw_log("%s; tracing is off for this process, which runs on unchanged", msg);
}

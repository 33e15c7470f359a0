/*
 * A preloaded fault injector for the trace file (tests/fault/run.sh).
 *
 *   LD_PRELOAD=faultshim.so PWFAULT=KIND:BYTES program...
 *
 * Only files whose name ends in ".pw.jsonl.partial" are touched; everything
 * else the program and peerwatch write goes through untouched.
 *
 *   enospc:BYTES   a disk with room for BYTES bytes of trace: a write or a
 *                  fallocate(2) that needs blocks past that fails with
 *                  ENOSPC (a write that fits in part writes that part),
 *                  blocks preallocated with fallocate stay usable, and
 *                  ftruncate gives back what lies past the new end, as
 *                  ext4 and tmpfs do
 *   eio:BYTES      writes past BYTES fail with EIO
 *   kill-writer:BYTES    peerwatch's writer thread ("peerwatch-wr") ends
 *                  (pthread_exit) inside the write that would pass BYTES,
 *                  saying so on stderr first
 *   stall-writer:BYTES   that write never returns (a hung file system)
 *   signal-header:0      the first write of a trace by a thread other than
 *                  the writer (the header, written by the process's first
 *                  traced call) raises SIGUSR1 first, on that thread
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum kind { NONE, ENOSPC_, EIO_, KILL_WRITER, STALL_WRITER, SIGNAL_HEADER };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static enum kind kind = NONE;
static long long cap;       /* BYTES */
static long long allocated; /* the trace files' blocks, written or preallocated */
static int inited;
static int signalled; /* signal-header: raised once */

/* KIND:BYTES, as in PWFAULT (a unit test that links this file in sets it). */
void pwfault_set(const char *spec)
{
	inited = 1;
	kind = NONE;
	allocated = 0;
	if (!spec)
		return;
	const char *colon = strchr(spec, ':');
	cap = colon ? atoll(colon + 1) : 0;
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	if (n == 6 && !strncmp(spec, "enospc", 6))
		kind = ENOSPC_;
	else if (n == 3 && !strncmp(spec, "eio", 3))
		kind = EIO_;
	else if (n == 11 && !strncmp(spec, "kill-writer", 11))
		kind = KILL_WRITER;
	else if (n == 12 && !strncmp(spec, "stall-writer", 12))
		kind = STALL_WRITER;
	else if (n == 13 && !strncmp(spec, "signal-header", 13))
		kind = SIGNAL_HEADER;
}

static void init(void)
{
	if (!inited)
		pwfault_set(getenv("PWFAULT"));
}

static int is_trace(int fd)
{
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return 0;
	path[n] = 0;
	static const char tail[] = ".pw.jsonl.partial";
	return (size_t)n >= sizeof tail - 1 && !strcmp(path + n - (sizeof tail - 1), tail);
}

static int on_writer(void)
{
	char name[32] = "";
	prctl(PR_GET_NAME, name, 0, 0, 0);
	return !strcmp(name, "peerwatch-wr");
}

/* How much of a write of len at off may go through; -1 with errno: none. */
static ssize_t admit(int fd, off_t off, size_t len)
{
	pthread_mutex_lock(&lock);
	init();
	if (kind == NONE || !is_trace(fd)) {
		pthread_mutex_unlock(&lock);
		return (ssize_t)len;
	}
	ssize_t ok = (ssize_t)len;
	long long end = (long long)off + (long long)len;
	switch (kind) {
	case ENOSPC_:
		if (end > allocated) {
			long long room = cap - allocated;
			if (room <= 0) {
				errno = ENOSPC;
				ok = -1;
			} else if (end - allocated > room) {
				ok = (ssize_t)(allocated + room - off);
				allocated = cap;
			} else {
				allocated = end;
			}
		}
		break;
	case EIO_:
		if (end > cap) {
			errno = EIO;
			ok = -1;
		}
		break;
	case KILL_WRITER:
	case STALL_WRITER:
		if (end > cap && on_writer()) {
			enum kind k = kind;
			pthread_mutex_unlock(&lock);
			if (k == KILL_WRITER) {
				/* the test checks it came here */
				static const char said[] = "faultshim: the writer thread ends in a write\n";
				ssize_t w = write(2, said, sizeof said - 1);
				(void)w;
				pthread_exit(NULL);
			}
			for (;;)
				pause();
		}
		break;
	case SIGNAL_HEADER:
		if (!signalled && !on_writer()) {
			signalled = 1;
			pthread_mutex_unlock(&lock); /* the handler may fork and write */
			static const char said[] = "faultshim: SIGUSR1 raised in a trace's header write\n";
			ssize_t w = write(2, said, sizeof said - 1); /* the test checks it came here */
			(void)w;
			raise(SIGUSR1);
			return (ssize_t)len;
		}
		break;
	default: break;
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

/* The next definition of name (libc's), looked up once; threads may race
 * to the first look-up, which is why the slot is read and written as an
 * atomic (the trace writer's thread and the program's call these alike). */
static void *next_sym(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static void *real_;
	ssize_t (*real)(int, const void *, size_t, off_t) =
	    (ssize_t(*)(int, const void *, size_t, off_t))next_sym(&real_, "pwrite");
	ssize_t ok = admit(fd, off, len);
	if (ok < 0)
		return -1;
	return real(fd, buf, (size_t)ok, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite(fd, buf, len, off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static void *real_;
	ssize_t (*real)(int, const void *, size_t) =
	    (ssize_t(*)(int, const void *, size_t))next_sym(&real_, "write");
	pthread_mutex_lock(&lock);
	init();
	enum kind k = kind;
	pthread_mutex_unlock(&lock);
	if (k == NONE)
		return real(fd, buf, len);
	off_t off = lseek(fd, 0, SEEK_CUR);
	ssize_t ok = off < 0 ? (ssize_t)len : admit(fd, off, len);
	if (ok < 0)
		return -1;
	return real(fd, buf, (size_t)ok);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	static void *real_;
	int (*real)(int, int, off_t, off_t) = (int (*)(int, int, off_t, off_t))next_sym(&real_, "fallocate");
	pthread_mutex_lock(&lock);
	init();
	if (kind == ENOSPC_ && is_trace(fd)) {
		long long end = (long long)off + (long long)len;
		if (end > cap) {
			pthread_mutex_unlock(&lock);
			errno = ENOSPC;
			return -1;
		}
		if (end > allocated)
			allocated = end;
	}
	pthread_mutex_unlock(&lock);
	return real(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len)
{
	return fallocate(fd, mode, off, len);
}

int ftruncate(int fd, off_t len)
{
	static void *real_;
	int (*real)(int, off_t) = (int (*)(int, off_t))next_sym(&real_, "ftruncate");
	pthread_mutex_lock(&lock);
	init();
	if (kind == ENOSPC_ && is_trace(fd))
		allocated = len; /* blocks past the end go back */
	pthread_mutex_unlock(&lock);
	return real(fd, len);
}

int ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

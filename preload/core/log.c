/*
 * Messages to stderr, and every write peerwatch makes into the program's
 * files, made so that they cannot change the program's outcome.
 *
 * A preloaded library must not disturb the program's stdio buffers or locks,
 * so a message is formatted on the stack and written with write(2).  Three
 * things a plain write(2) can do to the program are prevented here:
 *
 *   - raise a signal: a write to a pipe nobody reads raises SIGPIPE, a write
 *     past the file-size limit (ulimit -f) raises SIGXFSZ, and either kills
 *     the program by default.  SIGPIPE and SIGXFSZ are blocked in the writing
 *     thread around the write; the one our write raised (the kernel directs it
 *     at the writing thread) is then taken back with sigtimedwait, unless one
 *     was already pending before, which is the program's and stays.
 *   - block it: a pipe nobody reads fills up.  stderr is not ours, so its
 *     file status flags (O_NONBLOCK) are not ours to change either; a write
 *     to a pipe, socket or terminal is made without waiting (pwritev2 with
 *     RWF_NOWAIT, or poll(2) and at most PIPE_BUF bytes where the kernel
 *     lacks it) and waits at most PW_OUT_WAIT_MS in all.
 *   - write into one of its files: a program started with stderr closed
 *     gets descriptor 2 from its first open(2); we never write there.
 *
 * When stderr fails, peerwatch stops writing to it for the rest of the
 * process and keeps the reason for the trace's footer ("report_error"), the
 * one place it can still be seen.
 *
 * Text that came from outside (suppressions files, option values, paths,
 * symbol names) reaches the terminal with control bytes and malformed UTF-8
 * escaped as \xNN: a file cannot move the cursor or retitle the window.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/pw.h"

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

/* ---- writes that raise no signal in the program ---- */

void pw_sig_block(struct pw_sigguard *g)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	sigaddset(&s, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &s, &g->old);
	sigemptyset(&g->pending);
	sigpending(&g->pending);
}

/* Take back the signal our failed write raised (err: its errno), not one
 * that was pending before, then restore the thread's mask. */
void pw_sig_restore(struct pw_sigguard *g, int err)
{
	int sig = err == EPIPE ? SIGPIPE : err == EFBIG ? SIGXFSZ : 0;
	if (sig && !sigismember(&g->pending, sig)) {
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		struct timespec zero = {0, 0};
		while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

int pw_write_file(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	size_t n = 0;
	int err = 0;
	struct pw_sigguard g;
	pw_sig_block(&g);
	while (n < len) {
		ssize_t w = write(fd, p + n, len - n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		n += (size_t)w;
	}
	pw_sig_restore(&g, err);
	if (done)
		*done = n;
	errno = err;
	return err ? -1 : 0;
}

static bool nowait_unsupported; /* pwritev2(RWF_NOWAIT) refused once: poll + PIPE_BUF */

static int wait_writable(int fd, uint64_t deadline)
{
	for (;;) {
		uint64_t now = pw_now_ns();
		if (now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int ms = (int)((deadline - now + 999999) / 1000000);
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (p.revents & POLLNVAL) {
			errno = EBADF;
			return -1;
		}
		return 0; /* writable, or an error the write will name */
	}
}

/* A pipe, socket or terminal: never wait longer than until deadline. */
static int write_bounded(int fd, const char *p, size_t len, uint64_t deadline)
{
	while (len) {
		ssize_t w;
		if (!__atomic_load_n(&nowait_unsupported, __ATOMIC_RELAXED)) {
			struct iovec v = {(void *)p, len};
			w = pwritev2(fd, &v, 1, -1, RWF_NOWAIT);
			if (w < 0 && (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL)) {
				__atomic_store_n(&nowait_unsupported, true, __ATOMIC_RELAXED);
				continue;
			}
		} else {
			if (wait_writable(fd, deadline))
				return -1;
			w = write(fd, p, len < PIPE_BUF ? len : PIPE_BUF);
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_writable(fd, deadline))
				return -1;
			continue;
		}
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int pw_write_out(int fd, const void *buf, size_t len)
{
	struct stat st;
	if (fstat(fd, &st))
		return -1;
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return pw_write_file(fd, buf, len, NULL);
	struct pw_sigguard g;
	pw_sig_block(&g);
	int r = write_bounded(fd, buf, len, pw_now_ns() + PW_OUT_WAIT_MS * 1000000ull);
	int err = r ? errno : 0;
	pw_sig_restore(&g, err);
	errno = err;
	return r;
}

/* ---- stderr ---- */

static atomic_bool stderr_off; /* closed at start, or a write failed */
static atomic_flag stderr_reason_set = ATOMIC_FLAG_INIT;
static char stderr_reason[192];
static _Atomic uint64_t stderr_lost; /* messages not written once off */

void pw_log_init(void)
{
	/* Descriptor 2 closed at start: the program's first open(2) gets it,
	 * and what we wrote there would land in the program's own file. */
	if (fcntl(STDERR_FILENO, F_GETFD) < 0) {
		atomic_store(&stderr_off, true);
		if (!atomic_flag_test_and_set(&stderr_reason_set))
			snprintf(stderr_reason, sizeof stderr_reason,
			         "stderr was closed when the program started");
	}
}

const char *pw_stderr_error(uint64_t *lost)
{
	if (lost)
		*lost = atomic_load(&stderr_lost);
	return atomic_load(&stderr_off) ? stderr_reason : NULL;
}

int pw_stderr_write(const char *buf, size_t len)
{
	if (atomic_load_explicit(&stderr_off, memory_order_relaxed)) {
		atomic_fetch_add(&stderr_lost, 1);
		return -1;
	}
	if (pw_write_out(STDERR_FILENO, buf, len) == 0)
		return 0;
	int e = errno;
	if (!atomic_exchange(&stderr_off, true) && !atomic_flag_test_and_set(&stderr_reason_set)) {
		if (e == ETIMEDOUT)
			snprintf(
			    stderr_reason, sizeof stderr_reason,
			    "writing to stderr did not finish in %d ms (nobody reads it?): nothing more was "
			    "written there",
			    PW_OUT_WAIT_MS);
		else
			snprintf(stderr_reason, sizeof stderr_reason,
			         "writing to stderr failed (%s: %s): nothing more was written there",
			         pw_errno_name(e), strerror(e));
	}
	atomic_fetch_add(&stderr_lost, 1);
	return -1;
}

/* ---- escaping ---- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
size_t pw_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
	if (!len || len > n || (len == 3 && c >= 0xf0))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three- and four-byte forms, surrogates, beyond U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] >= 0x90))
		return 0;
	/* C1 controls, U+0080..U+009F, act on some terminals too */
	if (c == 0xc2 && s[1] < 0xa0)
		return 0;
	return len;
}

size_t pw_escape(char *dst, size_t cap, const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t k = 0;
	if (!cap)
		return 0;
	for (size_t i = 0; i < n && s[i];) {
		unsigned c = s[i];
		size_t ulen = c >= 0x80 ? pw_utf8_len(s + i, n - i) : 0;
		if ((c >= 0x20 && c < 0x7f) || c == '\t' || ulen) {
			size_t take = ulen ? ulen : 1;
			if (k + take >= cap)
				break;
			memcpy(dst + k, s + i, take);
			k += take;
			i += take;
			continue;
		}
		if (k + 4 >= cap)
			break;
		dst[k++] = '\\';
		dst[k++] = 'x';
		dst[k++] = hex[c >> 4];
		dst[k++] = hex[c & 15];
		i++;
	}
	dst[k] = 0;
	return k;
}

const char *pw_errno_name(int e)
{
	switch (e) {
	case ENOSPC: return "ENOSPC";
	case EDQUOT: return "EDQUOT";
	case EFBIG: return "EFBIG";
	case EIO: return "EIO";
	case EPIPE: return "EPIPE";
	case EBADF: return "EBADF";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EROFS: return "EROFS";
	case ENOENT: return "ENOENT";
	case ENOTDIR: return "ENOTDIR";
	case EEXIST: return "EEXIST";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case ENXIO: return "ENXIO";
	case ESTALE: return "ESTALE";
	case ECONNRESET: return "ECONNRESET";
	default: return "errno";
	}
}

/* ---- messages ---- */

static void pw_vlog(const char *fmt, va_list ap)
{
	char msg[PW_PATH_CAP + 512], line[sizeof msg + 64]; /* a path, and what is said of it */
	int m = vsnprintf(msg, sizeof msg, fmt, ap);
	size_t mlen = m < 0 ? 0 : (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1;
	int n = snprintf(line, sizeof line, "peerwatch[%d]: ", (int)getpid());
	size_t len = (size_t)n + pw_escape(line + n, sizeof line - (size_t)n - 1, msg, mlen);
	line[len++] = '\n';
	pw_stderr_write(line, len);
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

/* Why tracing is off: written once, before off_why_set (release). */
static atomic_flag off_said = ATOMIC_FLAG_INIT;
static atomic_bool off_why_set;
static char off_why[PW_PATH_CAP + 256];

void pw_disable(const char *fmt, ...)
{
	if (atomic_flag_test_and_set(&off_said))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(off_why, sizeof off_why, fmt, ap);
	va_end(ap);
	atomic_store_explicit(&off_why_set, true, memory_order_release);
	enum pw_mode m = pw_g.opt.mode;
	if (m == PW_MODE_OBSERVE) { /* nothing is left to do: every call goes straight through */
		atomic_store(&pw_g.enabled, false);
		pw_log("%s; tracing is off for this process, which runs on unchanged", off_why);
	} else {
		pw_log("%s; tracing is off for this process, which runs on with every call still checked "
		       "(mode=%s)",
		       off_why, m == PW_MODE_ENFORCE ? "enforce" : "warn");
	}
}

const char *pw_disabled_why(void)
{
	return atomic_load_explicit(&off_why_set, memory_order_acquire) ? off_why : NULL;
}

void pw_disable_after_fork(void)
{
	atomic_store(&off_why_set, false);
	off_why[0] = 0;
	atomic_flag_clear(&off_said);
}

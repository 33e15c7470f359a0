/*
 * Per-thread event buffers and the thread that writes them out.
 *
 * Hot path (pw_trace_rec_begin/end, pw_trace_event_begin/end): the calling
 * thread appends one record (record.h: a call's binary record, or a line
 * made elsewhere) to its own buffer and publishes the new length with a
 * release store.  No lock, no system call, no allocation except when a
 * buffer fills (then it is pushed onto a lock-free list and, if no spare
 * buffer came back yet, a new one is allocated; past PW_MAX_OUTSTANDING the
 * writer is behind, and the event is dropped and counted: the thread never
 * waits for the writer).
 *
 * Writer thread: wakes when a buffer fills or every PW_FLUSH_MS, decodes the
 * full buffers' records into JSON lines in each thread's order and writes
 * them, then whatever complete records the threads' current buffers hold, so
 * a crash loses at most the last PW_FLUSH_MS of events.  Only the writer
 * reads `flushed` and recycles buffers, so a buffer is never reused while it
 * is being written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fence.h"
#include "header.h"
#include "pw.h"
#include "record.h"
#include "trace.h"

#define PW_FLUSH_MS 100
/* Buffers a thread may have out (its current one, full ones the writer has
 * not given back): 4 MiB at the default buffer_kb, about 30 000 calls, or
 * 15 ms of a thread calling at 2 million a second while the writer is held
 * up; past that its events are dropped and counted. */
#define PW_MAX_OUTSTANDING 16

struct pw_buf {
	struct pw_buf *next;
	struct pw_thread *owner;
	uint64_t gen;             /* the owner's n-th buffer */
	size_t cap, used;         /* used: producer only */
	_Atomic size_t committed; /* bytes of complete events */
	size_t flushed;           /* writer only */
	char data[];
};

struct pw_thread {
	struct pw_thread *next; /* registry, never unlinked */
	long tid;
	struct pw_buf *cur;                /* producer only */
	struct pw_buf *spare;              /* producer only */
	_Atomic(struct pw_buf *) cur_pub;  /* cur, for the writer's partial flush */
	_Atomic(struct pw_buf *) returned; /* recycled by the writer */
	atomic_int outstanding;            /* buffers allocated and not freed */
	uint64_t next_gen;                 /* producer only */
	uint64_t writer_gen;               /* writer only: next buffer to write */
	atomic_bool busy;                  /* inside begin..end */
	atomic_bool exited;
};

static struct {
	pthread_key_t key;
	_Atomic(struct pw_thread *) threads;
	_Atomic(struct pw_buf *) full;
	atomic_int wake;
	atomic_bool stop_writer;
	atomic_bool writer_started;
	atomic_bool writer_creating; /* pthread_create called, writer_main not yet in its loop */
	atomic_bool finished;
	pthread_mutex_t start_lock;
	pthread_t writer;
	int fd;
	int dirfd;
	char name[256];            /* final file name inside the directory */
	char path[PATH_MAX + 300]; /* final path, for messages */
	_Atomic uint64_t dropped;
	uint64_t events; /* lines written: the writer role only */
	uint64_t written_bytes;
	bool enabled_at_finish;
} T = {.start_lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .dirfd = -1};

static PW_TLS struct pw_thread *tls_thread;
static void (*tick)(bool final); /* run by the writer each round, and once at the end */

void pw_trace_set_tick(void (*fn)(bool final))
{
	tick = fn;
}
static PW_TLS bool tls_thread_gone;

uint64_t pw_trace_dropped(void)
{
	return atomic_load(&T.dropped);
}

const char *pw_trace_path(void)
{
	return T.path;
}

static void futex_wake(atomic_int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wake_writer(void)
{
	if (atomic_exchange(&T.wake, 1) == 0)
		futex_wake(&T.wake);
}

static struct pw_buf *buf_new(struct pw_thread *t)
{
	size_t cap = pw_g.opt.buffer_bytes;
	struct pw_buf *b = malloc(sizeof *b + cap);
	if (!b)
		return NULL;
	memset(b, 0, sizeof *b);
	b->owner = t;
	b->cap = cap;
	atomic_fetch_add(&t->outstanding, 1);
	return b;
}

static void buf_install(struct pw_thread *t, struct pw_buf *b)
{
	b->next = NULL;
	b->used = 0;
	b->flushed = 0;
	atomic_store_explicit(&b->committed, 0, memory_order_relaxed);
	b->gen = t->next_gen++;
	t->cur = b;
	atomic_store_explicit(&t->cur_pub, b, memory_order_release);
}

static void push_full(struct pw_buf *b)
{
	struct pw_buf *head = atomic_load_explicit(&T.full, memory_order_relaxed);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak_explicit(&T.full, &head, b, memory_order_release,
	                                              memory_order_relaxed));
}

static void thread_gone(void *arg)
{
	struct pw_thread *t = arg;
	tls_thread = NULL;
	tls_thread_gone = true;
	if (!t || !t->cur)
		return;
	struct pw_buf *b = t->cur;
	t->cur = NULL;
	atomic_store_explicit(&t->cur_pub, NULL, memory_order_release);
	atomic_store(&t->exited, true);
	push_full(b);
	wake_writer();
}

static struct pw_thread *thread_register(void)
{
	if (tls_thread_gone)
		return NULL;
	struct pw_thread *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->tid = pw_gettid();
	struct pw_buf *b = buf_new(t);
	if (!b) {
		free(t);
		return NULL;
	}
	buf_install(t, b);
	struct pw_thread *head = atomic_load(&T.threads);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&T.threads, &head, t));
	pthread_setspecific(T.key, t);
	tls_thread = t;
	return t;
}

/*
 * The current buffer is full: hand it over and get another (a spare, one
 * the writer gave back, or a new one while fewer than PW_MAX_OUTSTANDING are
 * out).  With none to be had the writer is behind: the event is dropped and
 * counted, and the thread goes on; it never waits for the writer.
 */
static struct pw_buf *rotate(struct pw_thread *t)
{
	struct pw_buf *b = t->spare;
	if (!b) {
		b = atomic_exchange_explicit(&t->returned, NULL, memory_order_acquire);
		if (b)
			t->spare = b->next;
	} else {
		t->spare = b->next;
	}
	if (!b && atomic_load(&t->outstanding) < PW_MAX_OUTSTANDING)
		b = buf_new(t);
	if (!b) {
		wake_writer();
		return NULL;
	}
	push_full(t->cur);
	wake_writer();
	buf_install(t, b);
	return b;
}

static void *writer_main(void *arg);

static void start_writer(void)
{
	pthread_mutex_lock(&T.start_lock);
	if (!atomic_load(&T.writer_started)) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		atomic_store(&T.stop_writer, false);
		atomic_store(&T.writer_creating, true);
		int rc = pthread_create(&T.writer, NULL, writer_main, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc) {
			atomic_store(&T.writer_creating, false);
			pw_disable("cannot start the trace writer thread: %s", strerror(rc));
		} else
			atomic_store_explicit(&T.writer_started, true, memory_order_release);
	}
	pthread_mutex_unlock(&T.start_lock);
}

/* Room for one record in the calling thread's buffer (PW_EVENT_MAX bytes),
 * the thread marked busy; NULL when it is not recorded (counted if made). */
static struct pw_buf *rec_room(void)
{
	if (!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed))
		return NULL;
	struct pw_thread *t = tls_thread;
	if (PW_UNLIKELY(!t) && !(t = thread_register())) {
		atomic_fetch_add(&T.dropped, 1);
		return NULL;
	}
	/* Paired with pw_trace_finish(): either it sees busy, or we see disabled
	 * (fence.h: the full fence is on its side when membarrier is there). */
	atomic_store_explicit(&t->busy, true, memory_order_relaxed);
	pw_fence_light();
	if (PW_UNLIKELY(!atomic_load_explicit(&pw_g.enabled, memory_order_relaxed))) {
		atomic_store_explicit(&t->busy, false, memory_order_release);
		return NULL;
	}
	if (PW_UNLIKELY(!atomic_load_explicit(&T.writer_started, memory_order_acquire)))
		start_writer();
	struct pw_buf *b = t->cur;
	if (PW_UNLIKELY(b->cap - b->used < PW_EVENT_MAX) && !(b = rotate(t))) {
		atomic_fetch_add(&T.dropped, 1);
		atomic_store_explicit(&t->busy, false, memory_order_release);
		return NULL;
	}
	return b;
}

/* Publish size bytes at the end of the thread's buffer. */
static void rec_commit(size_t size)
{
	struct pw_thread *t = tls_thread;
	struct pw_buf *b = t->cur;
	b->used += size;
	atomic_store_explicit(&b->committed, b->used, memory_order_release);
	atomic_store_explicit(&t->busy, false, memory_order_release);
}

void *pw_trace_rec_begin(void)
{
	struct pw_buf *b = rec_room();
	return b ? b->data + b->used : NULL;
}

void pw_trace_rec_end(void *rec, size_t size)
{
	(void)rec;
	rec_commit(size);
}

bool pw_trace_event_begin(struct pw_jw *w)
{
	struct pw_buf *b = rec_room();
	if (!b)
		return false;
	pw_jw_init(w, b->data + b->used + sizeof(struct pw_rec_hdr),
	           PW_EVENT_MAX - sizeof(struct pw_rec_hdr) - 1);
	return true;
}

void pw_trace_event_end(struct pw_jw *w)
{
	struct pw_buf *b = tls_thread->cur;
	char *start = b->data + b->used;
	if (PW_UNLIKELY(w->overflow)) {
		atomic_fetch_add(&T.dropped, 1);
		rec_commit(0);
		return;
	}
	size_t len = (size_t)(w->p - start) - sizeof(struct pw_rec_hdr);
	struct pw_rec_hdr h = {
	    .size = (uint32_t)((sizeof h + len + 7) & ~(size_t)7), .type = PW_REC_LINE, .len = (uint16_t)len};
	memcpy(start, &h, sizeof h);
	rec_commit(h.size);
}

/* ---- the writer side ---- */

static int write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(T.fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		T.written_bytes += (size_t)w;
	}
	return 0;
}

/* The lines the writer role decodes records into, before they are written. */
static char out_lines[256 * 1024];

static void write_lines(const char *p, size_t n)
{
	if (T.fd < 0 || !n)
		return;
	if (write_all(p, n)) {
		int e = errno;
		pw_disable("writing the trace %s failed: %s", T.path, strerror(e));
		close(T.fd);
		T.fd = -1;
	}
}

/* The committed records of b not written yet, decoded into lines. */
static void write_span(struct pw_buf *b)
{
	size_t c = atomic_load_explicit(&b->committed, memory_order_acquire);
	if (c <= b->flushed)
		return;
	const char *p = b->data + b->flushed, *end = b->data + c;
	while (p < end) {
		struct pw_decode_out o = {.buf = out_lines, .cap = sizeof out_lines};
		p += pw_record_decode_span(p, end, &o);
		if (T.fd >= 0)
			T.events += o.lines;
		write_lines(o.buf, o.len);
		atomic_fetch_add(&T.dropped, o.too_long + o.bad);
	}
	b->flushed = c;
}

static void recycle(struct pw_buf *b)
{
	struct pw_thread *t = b->owner;
	if (atomic_load(&t->exited) || atomic_load(&T.finished)) {
		atomic_fetch_sub(&t->outstanding, 1);
		free(b);
		return;
	}
	struct pw_buf *head = atomic_load_explicit(&t->returned, memory_order_relaxed);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak_explicit(&t->returned, &head, b, memory_order_release,
	                                              memory_order_relaxed));
}

/* Write whatever is ready, in each thread's order. */
static void drain(void)
{
	struct pw_buf *list = atomic_exchange_explicit(&T.full, NULL, memory_order_acquire);
	struct pw_buf *fifo = NULL;
	while (list) { /* the stack is newest first: reverse it */
		struct pw_buf *next = list->next;
		list->next = fifo;
		fifo = list;
		list = next;
	}
	while (fifo) {
		struct pw_buf *b = fifo;
		fifo = b->next;
		write_span(b);
		b->owner->writer_gen = b->gen + 1;
		recycle(b);
	}
	for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next) {
		struct pw_buf *b = atomic_load_explicit(&t->cur_pub, memory_order_acquire);
		if (b && b->gen == t->writer_gen)
			write_span(b);
	}
}

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -1;
	return 0;
}

/* Creates <host>.<pid>[.<n>].pw.jsonl.partial with a name no earlier file took. */
static int open_trace_file(void)
{
	const char *dir = pw_g.opt.out;
	if (mkdir_p(dir)) {
		pw_disable("cannot create the trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	T.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (T.dirfd < 0) {
		pw_disable("cannot open the trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	char host[128];
	if (gethostname(host, sizeof host))
		strcpy(host, "localhost");
	host[sizeof host - 1] = 0;
	for (char *c = host; *c; c++)
		if (*c == '/')
			*c = '_';
	for (int n = 0; n < 1000; n++) {
		char partial[sizeof T.name + 8];
		if (n == 0)
			snprintf(T.name, sizeof T.name, "%s.%d.pw.jsonl", host, (int)getpid());
		else
			snprintf(T.name, sizeof T.name, "%s.%d.%d.pw.jsonl", host, (int)getpid(), n);
		snprintf(partial, sizeof partial, "%s.partial", T.name);
		if (faccessat(T.dirfd, T.name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		T.fd = openat(T.dirfd, partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (T.fd >= 0) {
			char abs[PATH_MAX];
			const char *d = realpath(dir, abs) ? abs : dir;
			snprintf(T.path, sizeof T.path, "%s/%s", d, T.name);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	pw_disable("cannot create a trace file in '%s': %s", dir, strerror(errno));
	close(T.dirfd);
	T.dirfd = -1;
	return -1;
}

static void write_header(void)
{
	char *line = pw_header_json();
	if (!line) {
		pw_disable("cannot encode the trace header");
		return;
	}
	if (write_all(line, strlen(line)) || write_all("\n", 1)) {
		pw_disable("writing the trace %s failed: %s", T.path, strerror(errno));
		close(T.fd); /* a file without its header is left .partial */
		T.fd = -1;
	}
	free(line);
}

static void futex_wait_ms(atomic_int *w, int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

/*
 * The writer does its work (header, drain, tick) holding round_lock, and
 * fork waits for it (pw_trace_fork_prepare, from pthread_atfork): a child is
 * never forked while our thread is inside malloc or the loader, whose locks
 * it would inherit held (a hang seen under ASan, whose allocator does not
 * lock itself across fork).
 */
static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;

void pw_trace_fork_prepare(void)
{
	/* A writer that was created but has not taken round_lock yet is still
	 * starting: the thread library and a sanitizer's allocator set up its
	 * stack and TLS, under their own locks.  Wait until it is in its loop. */
	for (;;) {
		pthread_mutex_lock(&round_lock);
		if (!atomic_load(&T.writer_creating))
			return;
		pthread_mutex_unlock(&round_lock);
		sched_yield();
	}
}

void pw_trace_fork_parent(void)
{
	pthread_mutex_unlock(&round_lock);
}

static void *writer_main(void *arg)
{
	(void)arg;
#ifdef __GLIBC__
	pthread_setname_np(pthread_self(), "peerwatch-wr");
#endif
	pw_tls_internal = 1;
	pthread_mutex_lock(&round_lock);
	atomic_store(&T.writer_creating, false);
	if (T.fd < 0 && open_trace_file() == 0) {
		write_header();
		if (pw_g.opt.verbosity >= 1)
			pw_log("tracing to %s", T.path);
	}
	while (!atomic_load(&T.stop_writer)) {
		if (tick)
			tick(false);
		drain();
		pthread_mutex_unlock(&round_lock);
		futex_wait_ms(&T.wake, PW_FLUSH_MS);
		atomic_store(&T.wake, 0);
		pthread_mutex_lock(&round_lock);
	}
	pthread_mutex_unlock(&round_lock);
	return NULL;
}

static void quiesce_producers(void)
{
	uint64_t deadline = pw_now_ns() + 200000000u;
	for (struct pw_thread *t = atomic_load(&T.threads); t; t = t->next)
		while (atomic_load(&t->busy) && pw_now_ns() < deadline)
			sched_yield();
}

void pw_trace_finish(const char *why)
{
	if (atomic_load(&T.finished))
		return;
	if (tick && atomic_load(&pw_g.enabled))
		tick(true); /* last events, while events are still taken */
	if (atomic_exchange(&T.finished, true))
		return;
	bool was_enabled = atomic_exchange(&pw_g.enabled, false);
	T.enabled_at_finish = was_enabled;
	pw_fence_heavy();
	quiesce_producers();
	if (atomic_load(&T.writer_started)) {
		atomic_store(&T.stop_writer, true);
		wake_writer();
		pthread_join(T.writer, NULL);
		atomic_store(&T.writer_started, false);
	}
	if (T.fd < 0)
		goto out;
	drain();
	char *footer = pw_footer_json(T.events, atomic_load(&T.dropped), why);
	if (footer) {
		write_all(footer, strlen(footer));
		write_all("\n", 1);
		free(footer);
	}
	close(T.fd);
	T.fd = -1;
	char partial[sizeof T.name + 8];
	snprintf(partial, sizeof partial, "%s.partial", T.name);
	if (renameat(T.dirfd, partial, T.dirfd, T.name))
		pw_log("cannot rename %s.partial: %s", T.path, strerror(errno));
	close(T.dirfd);
	T.dirfd = -1;
	if (was_enabled && pw_g.opt.verbosity >= 1 && strcmp(why, "exec") != 0)
		pw_log("trace written: %s (%llu events%s)", T.path, (unsigned long long)T.events,
		       atomic_load(&T.dropped) ? ", some dropped" : "");
out:;
}

/* exec failed: the process goes on, so tracing goes on in a new file. */
void pw_trace_after_failed_exec(void)
{
	T.events = 0;
	atomic_store(&T.dropped, 0);
	atomic_store(&T.finished, false);
	atomic_store(&pw_g.enabled, T.enabled_at_finish);
}

/*
 * In a forked child only the forking thread exists: forget every thread
 * record and buffer of the parent (the parent writes those), and start a file
 * of our own at the first event.
 */
void pw_trace_after_fork_child(void)
{
	pw_fence_init(); /* a new process: its own registration */
	pthread_mutex_init(&round_lock, NULL);
	pthread_mutex_init(&T.start_lock, NULL);
	if (T.fd >= 0)
		close(T.fd);
	if (T.dirfd >= 0)
		close(T.dirfd);
	T.fd = T.dirfd = -1;
	T.path[0] = 0;
	T.written_bytes = 0;
	T.events = 0;
	atomic_store(&T.threads, NULL);
	atomic_store(&T.full, NULL);
	atomic_store(&T.writer_started, false);
	atomic_store(&T.writer_creating, false);
	atomic_store(&T.stop_writer, false);
	atomic_store(&T.finished, false);
	atomic_store(&T.dropped, 0);
	atomic_store(&T.wake, 0);
	tls_thread = NULL;
	pthread_setspecific(T.key, NULL);
}

void pw_trace_init(void)
{
	pw_fence_init();
	if (pthread_key_create(&T.key, thread_gone))
		pw_disable("cannot create a thread key");
}

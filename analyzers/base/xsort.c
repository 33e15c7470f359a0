/*
 * Sorting beyond memory (xsort.h): sorted runs in an unlinked temporary
 * file, merged through a heap of the runs' heads, each run read a window
 * at a time.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "base/xsort.h"

enum { WINDOW = 64 * 1024 }; /* bytes read or written at a time */

static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* A temporary file failed: the command cannot give its output.  Said once
 * (the reading workers may fail together), then exit status 2. */
static _Noreturn void die(const char *what, const char *why)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	if (atomic_flag_test_and_set(&said))
		for (;;)
			pause(); /* the first to fail exits for all */
	fprintf(stderr, "peerwatch-analyze: cannot %s a temporary file in %s (TMPDIR): %s\n", what, tmp_dir(),
	        why);
	exit(2);
}

static int temp_fd(void)
{
	char *path = xasprintf("%s/peerwatch-analyze.XXXXXX", tmp_dir());
	int fd = mkstemp(path), err = errno;
	if (fd >= 0)
		unlink(path);
	free(path); /* before a failure exits: no leak for LeakSanitizer to report */
	if (fd < 0)
		die("make", strerror(err));
	return fd;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("write", w < 0 ? strerror(errno) : "nothing written");
		p += w;
		n -= (size_t)w;
	}
}

static void read_at(int fd, char *p, size_t n, off_t at)
{
	while (n) {
		ssize_t r = pread(fd, p, n, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("read back", r < 0 ? strerror(errno) : "it is shorter than written");
		p += r;
		n -= (size_t)r;
		at += r;
	}
}

size_t xsort_cap_override;

void xsort_init(struct xsort *x, size_t size, size_t mem, int (*cmp)(const void *, const void *))
{
	memset(x, 0, sizeof *x);
	x->size = size;
	if (xsort_cap_override)
		mem = xsort_cap_override;
	x->cap = mem < 2 ? 2 : mem;
	x->cmp = cmp;
	x->runs_fd = x->out_fd = -1;
}

static void spill(struct xsort *x)
{
	if (x->runs_fd < 0)
		x->runs_fd = temp_fd();
	if (x->cmp)
		qsort(x->buf, x->n, x->size, x->cmp);
	write_all(x->runs_fd, x->buf, x->n * x->size);
	if (x->nruns == x->runs_cap) {
		x->runs_cap = x->runs_cap ? 2 * x->runs_cap : 8;
		x->run_len = xrealloc(x->run_len, x->runs_cap * sizeof *x->run_len);
	}
	x->run_len[x->nruns++] = x->n;
	x->n = 0;
}

void xsort_push(struct xsort *x, const void *rec)
{
	if (x->n == x->cap)
		spill(x);
	if (x->n == x->have) { /* grown as filled: most sorts are small */
		x->have =
		    x->have ? (2 * x->have < x->cap ? 2 * x->have : x->cap) : (x->cap < 256 ? x->cap : 256);
		x->buf = xrealloc(x->buf, x->have * x->size);
	}
	memcpy(x->buf + x->n * x->size, rec, x->size);
	x->n++;
	x->total++;
}

/* A run being merged: its next records, a window at a time. */
struct head {
	char *win;
	size_t at, n; /* the window's next record, its records */
	size_t left;  /* in the run, after the window */
	off_t next;   /* the file offset of the window after */
};

static void refill(const struct xsort *x, struct head *h, size_t per)
{
	size_t n = h->left < per ? h->left : per;
	read_at(x->runs_fd, h->win, n * x->size, h->next);
	h->next += (off_t)(n * x->size);
	h->left -= n;
	h->at = 0;
	h->n = n;
}

static const void *top(const struct xsort *x, const struct head *h)
{
	return h->win + h->at * x->size;
}

/* Heap order: the smaller record, then the earlier run (a fixed order
 * for records that compare equal). */
static bool less(const struct xsort *x, const struct head *hs, size_t a, size_t b)
{
	int c = x->cmp(top(x, &hs[a]), top(x, &hs[b]));
	return c ? c < 0 : a < b;
}

static void sift_down(const struct xsort *x, const struct head *hs, size_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && less(x, hs, heap[l], heap[m]))
			m = l;
		if (r < n && less(x, hs, heap[r], heap[m]))
			m = r;
		if (m == i)
			return;
		size_t t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/* Records read back at a time from the sorted file. */
static size_t read_per(const struct xsort *x)
{
	return WINDOW / x->size ? WINDOW / x->size : 1;
}

static void merge(struct xsort *x)
{
	/* each run's window: the memory the sort holds, shared out (so a
	 * sort of many runs holds no more than one of few), at most WINDOW */
	size_t k = x->nruns, nheap = 0, per = WINDOW / x->size;
	if (per > x->cap / k)
		per = x->cap / k;
	if (!per)
		per = 1;
	struct head *hs = xcalloc(k, sizeof *hs);
	size_t *heap = xcalloc(k, sizeof *heap);
	off_t at = 0;
	for (size_t i = 0; i < k; i++) {
		hs[i].win = xmalloc(per * x->size);
		hs[i].left = x->run_len[i];
		hs[i].next = at;
		at += (off_t)(x->run_len[i] * x->size);
		refill(x, &hs[i], per);
		if (hs[i].n)
			heap[nheap++] = i;
	}
	for (size_t i = nheap / 2; i-- > 0;)
		sift_down(x, hs, heap, nheap, i);
	x->out_fd = temp_fd();
	x->buf = xrealloc(x->buf, x->cap * x->size); /* the output's buffer */
	size_t out = 0;                              /* records in buf, written a buffer at a time */
	while (nheap) {
		struct head *h = &hs[heap[0]];
		memcpy(x->buf + out * x->size, top(x, h), x->size);
		if (++out == x->cap) {
			write_all(x->out_fd, x->buf, out * x->size);
			out = 0;
		}
		if (++h->at == h->n)
			refill(x, h, per);
		if (!h->n)
			heap[0] = heap[--nheap];
		sift_down(x, hs, heap, nheap, 0);
	}
	write_all(x->out_fd, x->buf, out * x->size);
	for (size_t i = 0; i < k; i++)
		free(hs[i].win);
	free(hs);
	free(heap);
	close(x->runs_fd);
	x->runs_fd = -1;
	free(x->buf); /* the read window takes its place */
	x->buf = NULL;
	x->rd = xmalloc(read_per(x) * x->size);
}

void xsort_done(struct xsort *x)
{
	if (x->done)
		return;
	x->done = true;
	if (!x->nruns) {
		if (x->n && x->cmp)
			qsort(x->buf, x->n, x->size, x->cmp);
		return;
	}
	if (x->n)
		spill(x);
	if (x->cmp) {
		merge(x);
		return;
	}
	/* a spool: the runs, in the order pushed, are the records */
	x->out_fd = x->runs_fd;
	x->runs_fd = -1;
	free(x->buf);
	x->buf = NULL;
	x->rd = xmalloc(read_per(x) * x->size);
}

const void *xsort_at(struct xsort *x, size_t i)
{
	if (x->out_fd < 0)
		return x->buf + i * x->size;
	if (i < x->rd_first || i >= x->rd_first + x->rd_n) {
		size_t per = read_per(x);
		size_t n = x->total - i < per ? x->total - i : per;
		read_at(x->out_fd, x->rd, n * x->size, (off_t)(i * x->size));
		x->rd_first = i;
		x->rd_n = n;
	}
	return x->rd + (i - x->rd_first) * x->size;
}

void xsort_free(struct xsort *x)
{
	if (x->runs_fd >= 0)
		close(x->runs_fd);
	if (x->out_fd >= 0)
		close(x->out_fd);
	free(x->buf);
	free(x->rd);
	free(x->run_len);
	memset(x, 0, sizeof *x);
	x->runs_fd = x->out_fd = -1;
}

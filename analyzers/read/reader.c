/*
 * Reading trace files in parallel (reader.h, pw_input_read).
 *
 * Work is a list of items: a whole file, read by one worker (header, the
 * optional pre-phase, the body), or — when no sink keeps per-file state
 * and several workers run — a chunk of a large file, so that one big trace
 * is read by all of them.  Chunks start at line starts; the file's header
 * is read once before the workers start.  A chunk's counts, footer and
 * messages are its own (a "shadow" of the file), merged into the file in
 * order when reading is done, which is also when its messages, now with
 * their line numbers in the file, are printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/json.h"
#include "read/lines.h"
#include "read/parse.h"
#include "read/reader.h"
#include "read/trace.h"

/* Messages about bad lines shown per file; the rest are counted. */
#define MAX_SHOWN 10
/* Files of at least twice this size are split into chunks of at least this. */
#define CHUNK_MIN ((off_t)16 << 20)

struct msg {
	uint64_t line; /* in the chunk */
	char *text;
};

struct chunk {
	off_t start, end; /* end < 0: to the end of the file */
	struct pw_file shadow;
	struct vec msgs; /* struct msg, printed at the merge */
};

struct item {
	size_t file;
	struct chunk *chunk; /* NULL: the whole file */
};

struct run {
	struct pw_input *in;
	const struct pw_read_opts *o;
	struct pw_sink *sinks;
	size_t nsinks;
	bool any_pre;
	bool nesting;       /* a sink wants ev->parent_recorded */
	struct vec items;   /* struct item */
	struct vec *chunks; /* per file: struct chunk *, empty when read whole */
	struct worker *w0;  /* the calling thread's worker */
	atomic_size_t next;
	atomic_bool stop;
	atomic_int status;
	atomic_uint_fast64_t events, files_done;
	atomic_uint_fast64_t bytes; /* read so far, every phase counted */
	uint64_t total_bytes;       /* the files' sizes times the phases that read them */
	pthread_mutex_t msg_lock;
};

struct worker {
	struct run *run;
	void **partial;
	void **fctx;
	bool *pre_wanted;
	struct chunk *chunk; /* the chunk being read: messages wait for the merge */
	struct vec stack;
	struct vec seqs;    /* nesting: the seqs of the file's calls, sorted */
	bool devices_early; /* the file's device lines were read in an earlier phase */
	struct lines lines;
	pthread_t thread;
};

static void raise_status(struct run *r, int s)
{
	int cur = atomic_load(&r->status);
	while (s > cur && !atomic_compare_exchange_weak(&r->status, &cur, s))
		;
}

static void print_msg(struct run *r, const char *path, uint64_t lineno, const char *msg)
{
	char *p = sanitize(path), *m = sanitize(msg);
	pthread_mutex_lock(&r->msg_lock);
	fprintf(stderr, "%s:%llu: %s%s\n", p, (unsigned long long)lineno, m,
	        r->o->strict ? " (--strict: stopping)" : "");
	pthread_mutex_unlock(&r->msg_lock);
	free(p);
	free(m);
}

/* "path:line: message", at most MAX_SHOWN per file. */
static void bad_line(struct worker *w, struct pw_file *f, uint64_t lineno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void bad_line(struct worker *w, struct pw_file *f, uint64_t lineno, const char *fmt, ...)
{
	struct run *r = w->run;
	f->bad_lines++;
	if (r->o->strict) {
		atomic_store(&r->stop, true);
		raise_status(r, PW_READ_FATAL);
	}
	if (r->o->quiet || f->bad_lines > MAX_SHOWN)
		return;
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (w->chunk) {
		struct msg *m = vec_push(&w->chunk->msgs);
		m->line = lineno;
		m->text = xstrdup(msg);
		return;
	}
	print_msg(r, f->path, lineno, msg);
}

static void bad_file(struct worker *w, struct pw_file *f, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void bad_file(struct worker *w, struct pw_file *f, int status, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	free(f->unreadable);
	f->unreadable = xstrdup(msg);
	raise_status(w->run, status);
	if (w->run->o->quiet)
		return;
	char *p = sanitize(f->path), *m = sanitize(msg);
	pthread_mutex_lock(&w->run->msg_lock);
	fprintf(stderr, "%s: %s\n", p, m);
	pthread_mutex_unlock(&w->run->msg_lock);
	free(p);
	free(m);
}

/* The span of the events that have a time: calls (to their end) and
 * violations (a finding about a call is made before the call starts). */
static void note_time(struct pw_file *f, const struct pw_event *ev)
{
	if (ev->type != PW_EV_CALL && !(ev->type == PW_EV_VIOLATION && ev->has_time))
		return;
	if (!f->any_t || ev->t_ns < f->first_t_ns)
		f->first_t_ns = ev->t_ns;
	if (!f->any_t || ev->t_ns + ev->dur_ns > f->last_t_ns)
		f->last_t_ns = ev->t_ns + ev->dur_ns;
	f->any_t = true;
}

static void count_event(struct pw_file *f, const struct pw_event *ev)
{
	f->events++;
	f->calls += ev->type == PW_EV_CALL;
	f->violations += ev->type == PW_EV_VIOLATION;
	f->gpu_times += ev->type == PW_EV_GPU_TIME;
	f->ums += ev->type == PW_EV_UM;
	note_time(f, ev);
}

/* ================= lines of a file ================= */

/* The value of `"key": <digits>` at its first place in a raw line. */
static bool raw_uint(const char *line, size_t len, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	const char *p = memmem(line, len, key, kl), *end = line + len;
	if (!p)
		return false;
	p += kl;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	uint64_t v = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return true;
}

/* The nesting scan: a call's seq without parsing its line.  A line this
 * misreads can only make a nested call count on its own, never lose one:
 * a "type" or "seq" after an object or array has begun (args.seq, say) may
 * not be the call's, so such a line adds no seq. */
static void scan_line(struct worker *w, const char *line, size_t len)
{
	uint64_t seq;
	const char *t = memmem(line, len, "\"type\"", 6);
	if (!t)
		return;
	const char *p = t + 6, *end = line + len;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	const char *s = memmem(line, len, "\"seq\"", 5), *last = s > t ? s : t;
	if (!s || s == line || memchr(line + 1, '{', (size_t)(last - line - 1)) ||
	    memchr(line + 1, '[', (size_t)(last - line - 1)))
		return;
	if (end - p < 6 || memcmp(p, "\"call\"", 6) || !raw_uint(line, len, "\"seq\"", &seq))
		return;
	*(uint64_t *)vec_push(&w->seqs) = seq;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void mark_nested(const struct worker *w, struct pw_event *ev)
{
	ev->parent_recorded = false;
	if (!w->run->nesting || !ev->has_parent || ev->type != PW_EV_CALL || !w->seqs.len)
		return;
	ev->parent_recorded =
	    bsearch(&ev->parent, w->seqs.data, w->seqs.len, sizeof(uint64_t), by_u64) != NULL;
}

/* One line after the header, in the main phase. */
static void main_line(struct worker *w, struct pw_file *f, const char *line, size_t len)
{
	struct run *r = w->run;
	struct pw_event ev;
	json_t *root;
	char err[512];
	uint64_t no = w->lines.lineno;
	enum pw_line_kind k = pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err);
	ev.line = no;
	if (k == PW_LINE_EVENT)
		mark_nested(w, &ev);
	if (k != PW_LINE_BAD && f->footer)
		bad_line(w, f, no, "a line after the footer");
	else if (k == PW_LINE_BAD)
		bad_line(w, f, no, "%s", err);
	else if (k == PW_LINE_HEADER)
		bad_line(w, f, no, "a second header");
	else if (k == PW_LINE_FOOTER && pw_file_footer(f, root, err, sizeof err))
		bad_line(w, f, no, "footer: %s", err);
	else if (k == PW_LINE_OTHER)
		f->unknown++;
	else if (k == PW_LINE_DEVICE && pw_file_add_device(f, root, err, sizeof err))
		bad_line(w, f, no, "device: %s", err);
	else if (k == PW_LINE_DEVICE)
		f->events++; /* written as an event, counted in the footer's */
	else if (k == PW_LINE_EVENT) {
		count_event(f, &ev);
		atomic_fetch_add_explicit(&r->events, 1, memory_order_relaxed);
		for (size_t i = 0; i < r->nsinks; i++)
			r->sinks[i].ops->event(w->partial[i], w->fctx[i], f, &ev);
	}
	json_decref(root);
}

/* A device line seen before the main phase: the file's devices are known
 * before its first event is handed out (the main phase reads it again,
 * and reports it if it is bad). */
static void early_device(struct worker *w, struct pw_file *f, const char *line, size_t len)
{
	static const char start[] = "{\"type\":\"device\""; /* as the library writes it */
	if (w->devices_early || len < sizeof start - 1 || memcmp(line, start, sizeof start - 1))
		return;
	struct pw_event ev;
	json_t *root;
	char err[512];
	if (pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err) == PW_LINE_DEVICE)
		pw_file_add_device(f, root, err, sizeof err);
	json_decref(root);
}

/* One line in the pre-phase: only lines some sink's filter wants, quietly. */
static void pre_line(struct worker *w, struct pw_file *f, const char *line, size_t len)
{
	struct run *r = w->run;
	bool any = false;
	early_device(w, f, line, len);
	for (size_t i = 0; i < r->nsinks; i++) {
		const struct pw_sink_ops *ops = r->sinks[i].ops;
		w->pre_wanted[i] = ops->pre_filter && ops->pre_filter(line, len);
		any |= w->pre_wanted[i];
	}
	if (!any)
		return;
	struct pw_event ev;
	json_t *root;
	char err[512];
	if (pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err) == PW_LINE_EVENT) {
		ev.line = w->lines.lineno;
		mark_nested(w, &ev);
		for (size_t i = 0; i < r->nsinks; i++)
			if (w->pre_wanted[i])
				r->sinks[i].ops->pre_event(w->partial[i], w->fctx[i], f, &ev);
	}
	json_decref(root);
}

/* A last line without its newline: a .partial file's writer died mid-line
 * (expected, ignored); a finished file was cut short (an error). */
static void cut_tail(struct worker *w, struct pw_file *f)
{
	f->tail_cut = true;
	if (!f->partial)
		bad_line(w, f, w->lines.lineno, "the last line has no newline (the file was cut short)");
}

enum phase { PH_MAIN, PH_PRE, PH_SCAN };

/* Reads lines up to `end` (< 0: the end of the file) in one phase: the
 * nesting scan, the pre-phase, or the main one (which alone reports). */
static void read_lines(struct worker *w, struct pw_file *f, off_t end, enum phase ph, off_t *mark)
{
	bool pre = ph != PH_MAIN;
	const char *line;
	size_t len;
	unsigned n = 0;
	while (end < 0 || lines_pos(&w->lines) < end) {
		if (atomic_load_explicit(&w->run->stop, memory_order_relaxed))
			return;
		if (++n % 4096 == 0) { /* for the progress line */
			off_t pos = lines_pos(&w->lines);
			atomic_fetch_add_explicit(&w->run->bytes, (uint64_t)(pos - *mark),
			                          memory_order_relaxed);
			*mark = pos;
		}
		int k = next_line(&w->lines, &line, &len);
		if (k == L_EOF)
			return;
		if (k == L_ERR) {
			if (!pre)
				bad_file(w, f, PW_READ_BAD_INPUT, "read error after line %llu: %s",
				         (unsigned long long)w->lines.lineno, strerror(errno));
			return;
		}
		if (!pre)
			f->lines++;
		if (k == L_LONG && !pre)
			bad_line(w, f, w->lines.lineno, "line longer than %u bytes, skipped", PW_MAX_LINE);
		else if (k == L_TAIL && !pre)
			cut_tail(w, f);
		else if (k == L_LINE && ph == PH_SCAN) {
			scan_line(w, line, len);
			early_device(w, f, line, len);
		} else if (k == L_LINE && pre)
			pre_line(w, f, line, len);
		else if (k == L_LINE)
			main_line(w, f, line, len);
	}
}

/* read_lines, counting the bytes it read for the progress line. */
static void read_body(struct worker *w, struct pw_file *f, off_t end, enum phase ph)
{
	off_t mark = lines_pos(&w->lines);
	read_lines(w, f, end, ph, &mark);
	off_t pos = lines_pos(&w->lines);
	if (pos > mark)
		atomic_fetch_add_explicit(&w->run->bytes, (uint64_t)(pos - mark), memory_order_relaxed);
}

/* The first line must be a header of a version we know, or the file is not
 * read at all: without it nothing else in the file can be trusted. */
static bool read_header(struct worker *w, struct pw_file *f)
{
	const char *line;
	size_t len;
	int k = next_line(&w->lines, &line, &len);
	if (k == L_EOF) {
		/* a process killed between creating its file and writing the header */
		if (f->partial)
			bad_file(w, f, PW_READ_OK, "empty: the process died before writing its header");
		else
			bad_file(w, f, PW_READ_BAD_INPUT, "empty file: not a trace");
		return false;
	}
	if (k == L_ERR) {
		bad_file(w, f, PW_READ_BAD_INPUT, "read error: %s", strerror(errno));
		return false;
	}
	f->lines++;
	if (k == L_LONG || (k == L_TAIL && f->partial)) {
		bad_file(w, f, f->partial ? PW_READ_OK : PW_READ_BAD_INPUT, "line 1: %s",
		         k == L_LONG ? "longer than the line limit: not a trace"
		                     : "the header is incomplete");
		return false;
	}
	struct pw_event ev;
	json_t *root;
	char err[512];
	enum pw_line_kind kind = pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err);
	bool ok = false;
	if (kind == PW_LINE_BAD)
		bad_file(w, f, PW_READ_BAD_INPUT, "line 1: not a peerwatch trace: %s", err);
	else if (kind != PW_LINE_HEADER)
		bad_file(w, f, PW_READ_BAD_INPUT,
		         "line 1: not a peerwatch trace: the first line is not a header");
	else if (pw_file_header(f, root, err, sizeof err))
		bad_file(w, f, PW_READ_BAD_INPUT, "line 1: %s", err);
	else
		ok = true;
	json_decref(root);
	if (ok && k == L_TAIL)
		bad_line(w, f, 1, "the last line has no newline (the file was cut short)");
	return ok;
}

static int open_trace(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	/* a .partial file finished (renamed) since it was found */
	size_t n = strlen(path);
	if (n <= 8 || strcmp(path + n - 8, ".partial"))
		return fd;
	char *done = xstrndup(path, n - 8);
	fd = open(done, O_RDONLY | O_CLOEXEC);
	free(done);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/* Opens f and reads its header; -1 (and the file marked) when that fails. */
static int open_with_header(struct worker *w, struct pw_file *f)
{
	pw_file_clear(f);
	int fd = open_trace(f->path);
	if (fd < 0) {
		bad_file(w, f, PW_READ_BAD_INPUT, "cannot open: %s", strerror(errno));
		return -1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	lines_open(&w->lines, fd, 0);
	if (!read_header(w, f)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void report_tail_msgs(struct run *r, const struct pw_file *f)
{
	if (f->bad_lines <= MAX_SHOWN || r->o->quiet)
		return;
	char *p = sanitize(f->path);
	pthread_mutex_lock(&r->msg_lock);
	fprintf(stderr, "%s: %llu more bad %s not shown\n", p, (unsigned long long)(f->bad_lines - MAX_SHOWN),
	        plural(f->bad_lines - MAX_SHOWN, "line", "lines"));
	pthread_mutex_unlock(&r->msg_lock);
	free(p);
}

/* A whole file: header, pre-phase if any sink wants one, body, file_end. */
static void read_file(struct worker *w, struct pw_file *f)
{
	struct run *r = w->run;
	int fd = open_with_header(w, f);
	if (fd < 0)
		return;
	for (size_t i = 0; i < r->nsinks; i++)
		w->fctx[i] =
		    r->sinks[i].ops->file_begin ? r->sinks[i].ops->file_begin(w->partial[i], f) : NULL;
	off_t body = lines_pos(&w->lines);
	uint64_t no = w->lines.lineno;
	w->seqs.len = 0;
	w->devices_early = false;
	for (int ph = PH_SCAN; ph >= PH_MAIN; ph--) {
		if ((ph == PH_SCAN && !r->nesting) || (ph == PH_PRE && !r->any_pre))
			continue;
		read_body(w, f, -1, (enum phase)ph);
		w->devices_early = true;
		if (ph == PH_SCAN && w->seqs.len > 1)
			vec_sort(&w->seqs, by_u64);
		if (ph != PH_MAIN) {
			lseek(fd, body, SEEK_SET);
			lines_open(&w->lines, fd, body);
			w->lines.lineno = no;
		}
	}
	close(fd);
	report_tail_msgs(r, f);
	for (size_t i = 0; i < r->nsinks; i++)
		if (r->sinks[i].ops->file_end)
			r->sinks[i].ops->file_end(w->partial[i], w->fctx[i], f);
}

/* One chunk of a file whose header was read already. */
static void read_chunk(struct worker *w, struct pw_file *f, struct chunk *c)
{
	struct pw_file *s = &c->shadow;
	int fd = open_trace(f->path);
	if (fd < 0) {
		bad_file(w, s, PW_READ_BAD_INPUT, "cannot open: %s", strerror(errno));
		return;
	}
	lseek(fd, c->start, SEEK_SET);
	lines_open(&w->lines, fd, c->start);
	w->chunk = c;
	for (size_t i = 0; i < w->run->nsinks; i++)
		w->fctx[i] = NULL;
	read_body(w, s, c->end, PH_MAIN);
	w->chunk = NULL;
	close(fd);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	for (;;) {
		if (atomic_load(&r->stop))
			break;
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->items.len)
			break;
		struct item *it = vec_at(&r->items, i);
		struct pw_file *f = &r->in->files[it->file];
		if (it->chunk)
			read_chunk(w, f, it->chunk);
		else
			read_file(w, f);
		if (!it->chunk || it->chunk->end < 0)
			atomic_fetch_add(&r->files_done, 1);
	}
	if (w != r->w0)
		pw_parse_thread_done();
	return NULL;
}

/* ================= chunks ================= */

/* The start of the first line at or after `at`, or -1 if none begins within
 * the line limit (then no boundary goes there). */
static off_t line_start_after(int fd, off_t at)
{
	char buf[64 << 10];
	for (off_t pos = at - 1; pos < at + (off_t)PW_MAX_LINE;) {
		ssize_t n = pread(fd, buf, sizeof buf, pos);
		if (n <= 0)
			return -1;
		char *nl = memchr(buf, '\n', (size_t)n);
		if (nl)
			return pos + (nl - buf) + 1;
		pos += n;
	}
	return -1;
}

static void add_item(struct run *r, size_t file, struct chunk *c)
{
	struct item *it = vec_push(&r->items);
	it->file = file;
	it->chunk = c;
}

static struct chunk *new_chunk(struct run *r, const struct pw_file *f, off_t start)
{
	struct chunk *c = xcalloc(1, sizeof *c);
	c->start = start;
	c->end = -1;
	c->shadow = *f; /* the header's members, shared and read-only */
	struct pw_file *s = &c->shadow;
	s->lines = s->events = s->calls = s->violations = s->gpu_times = s->ums = s->unknown = s->bad_lines =
	    0;
	s->tail_cut = s->any_t = s->footer = false;
	s->reason = s->dropped_by = s->write_error = NULL;
	s->repeats_by = s->report_error = s->suppressed_by_default = s->suppressions = NULL;
	s->um_off = NULL;
	s->has_limit = s->has_t_end = false;
	s->unreadable = NULL;
	vec_init(&c->shadow.modules, sizeof(struct pw_module));
	vec_init(&c->shadow.devices, sizeof(struct pw_device));
	vec_init(&c->msgs, sizeof(struct msg));
	*(struct chunk **)vec_push(&r->chunks[f->index]) = c;
	add_item(r, f->index, c);
	return c;
}

/* Reads the header of a large file now and queues its body in chunks. */
static void split(struct run *r, struct worker *w, struct pw_file *f, off_t size, int workers)
{
	int fd = open_with_header(w, f);
	if (fd < 0) {
		atomic_fetch_add(&r->files_done, 1);
		return;
	}
	off_t body = lines_pos(&w->lines);
	off_t n = (size - body) / CHUNK_MIN;
	if (n > workers * 4)
		n = workers * 4;
	struct chunk *prev = new_chunk(r, f, body);
	for (off_t k = 1; k < n; k++) {
		off_t b = line_start_after(fd, body + (size - body) * k / n);
		if (b <= prev->start || b >= size)
			continue;
		prev->end = b;
		prev = new_chunk(r, f, b);
	}
	prev->end = -1; /* the last reads to the end, however far the file grew */
	close(fd);
}

/* Whole files, or chunks when no sink keeps state per file. */
static void plan(struct run *r, struct worker *w0, int workers)
{
	bool chunkable = workers > 1;
	for (size_t i = 0; i < r->nsinks; i++) {
		const struct pw_sink_ops *ops = r->sinks[i].ops;
		chunkable &= !ops->file_begin && !ops->pre_filter && !ops->file_end && !ops->nesting;
	}
	/* a file read whole is read once per phase */
	uint64_t phases = 1 + (uint64_t)r->any_pre + (uint64_t)r->nesting;
	for (size_t i = 0; i < r->in->n; i++) {
		struct stat st;
		bool sized = !stat(r->in->files[i].path, &st) && st.st_size > 0;
		if (chunkable && sized && st.st_size >= 2 * CHUNK_MIN) {
			split(r, w0, &r->in->files[i], st.st_size, workers);
			r->total_bytes += (uint64_t)st.st_size;
		} else {
			add_item(r, i, NULL);
			r->total_bytes += sized ? (uint64_t)st.st_size * phases : 0;
		}
	}
}

/* Moves the modules a footer listed that the file does not have yet. */
static void merge_modules(struct vec *to, struct vec *from)
{
	for (size_t i = 0; i < from->len; i++) {
		struct pw_module *m = vec_at(from, i);
		bool have = false;
		for (size_t j = 0; j < to->len && !have; j++) {
			const struct pw_module *t = vec_at(to, j);
			have = t->base == m->base && !strcmp(t->path, m->path);
		}
		if (have) {
			free(m->path);
			free(m->build_id);
		} else {
			*(struct pw_module *)vec_push(to) = *m;
		}
	}
	vec_free(from);
}

/* Adds a chunk's shadow to its file: counts, times, footer. */
static void merge_shadow(struct pw_file *f, struct pw_file *s)
{
	f->lines += s->lines;
	f->events += s->events;
	f->calls += s->calls;
	f->violations += s->violations;
	f->gpu_times += s->gpu_times;
	f->ums += s->ums;
	f->unknown += s->unknown;
	f->bad_lines += s->bad_lines;
	f->tail_cut = s->tail_cut;
	if (s->any_t && (!f->any_t || s->first_t_ns < f->first_t_ns))
		f->first_t_ns = s->first_t_ns;
	if (s->any_t && (!f->any_t || s->last_t_ns > f->last_t_ns))
		f->last_t_ns = s->last_t_ns;
	f->any_t |= s->any_t;
	if (s->unreadable && !f->unreadable) {
		f->unreadable = s->unreadable;
		s->unreadable = NULL;
	}
	if (s->footer) {
		f->footer = true;
		f->footer_events = s->footer_events;
		f->dropped = s->dropped;
		f->t_end_ns = s->t_end_ns;
		f->has_t_end = s->has_t_end;
		f->footer_violations = s->footer_violations;
		f->suppressed = s->suppressed;
		f->repeats = s->repeats;
		f->has_limit = s->has_limit;
		f->limit_bytes = s->limit_bytes;
		f->limit_seq = s->limit_seq;
		f->limit_t_ns = s->limit_t_ns;
		f->um_events = s->um_events;
		f->um_lost = s->um_lost;
		free(f->um_off);
		f->um_off = s->um_off;
		s->um_off = NULL;
		free(f->reason);
		free(f->dropped_by);
		free(f->write_error);
		free(f->repeats_by);
		free(f->report_error);
		free(f->suppressed_by_default);
		free(f->suppressions);
		f->reason = s->reason;
		f->dropped_by = s->dropped_by;
		f->write_error = s->write_error;
		f->repeats_by = s->repeats_by;
		f->report_error = s->report_error;
		f->suppressed_by_default = s->suppressed_by_default;
		f->suppressions = s->suppressions;
		s->reason = s->dropped_by = s->write_error = NULL;
		s->repeats_by = s->report_error = s->suppressed_by_default = s->suppressions = NULL;
	}
	free(s->reason);
	free(s->dropped_by);
	free(s->write_error);
	free(s->repeats_by);
	free(s->report_error);
	free(s->um_off);
	free(s->suppressed_by_default);
	free(s->suppressions);
	free(s->unreadable);
	merge_modules(&f->modules, &s->modules);
	for (size_t i = 0; i < s->devices.len; i++) /* chunks in file order: a later line wins */
		*(struct pw_device *)vec_push(&f->devices) = *(struct pw_device *)vec_at(&s->devices, i);
	vec_free(&s->devices);
}

static void merge_chunks(struct run *r, struct pw_file *f, struct vec *chunks)
{
	if (!chunks->len) {
		vec_free(chunks);
		return; /* read whole */
	}
	uint64_t shown = 0;
	bool footer_early = false;
	for (size_t k = 0; k < chunks->len; k++) {
		struct chunk *c = *(struct chunk **)vec_at(chunks, k);
		uint64_t base = f->lines; /* lines before this chunk */
		footer_early |= f->footer && c->shadow.lines;
		for (size_t m = 0; m < c->msgs.len; m++) {
			struct msg *ms = vec_at(&c->msgs, m);
			if (shown++ < MAX_SHOWN)
				print_msg(r, f->path, base + ms->line, ms->text);
			free(ms->text);
		}
		vec_free(&c->msgs);
		merge_shadow(f, &c->shadow);
		free(c);
	}
	if (footer_early) {
		f->bad_lines++;
		if (!r->o->quiet)
			print_msg(r, f->path, f->lines, "lines after the footer");
	}
	report_tail_msgs(r, f);
	vec_free(chunks);
}

/* ================= progress ================= */

struct progress {
	struct run *run;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, shown;
};

/* How long a read runs before its progress is shown: 1 s, or
 * PEERWATCH_PROGRESS_DELAY seconds (tests use 0). */
static double progress_delay(void)
{
	const char *e = getenv("PEERWATCH_PROGRESS_DELAY");
	char *end;
	double d = e && *e ? strtod(e, &end) : 1.0;
	return e && *e && (*end || d < 0 || d > 3600) ? 1.0 : d;
}

static void progress_line(struct progress *p, const struct timespec *t0)
{
	struct run *r = p->run;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double secs = (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
	uint64_t done = atomic_load(&r->bytes), total = r->total_bytes;
	uint64_t events = atomic_load(&r->events);
	size_t files = (size_t)atomic_load(&r->files_done);
	char got[32], all[32], rate[32];
	fmt_bytes(got, sizeof got, done);
	fmt_bytes(all, sizeof all, total);
	fmt_bytes(rate, sizeof rate, secs > 0 ? (uint64_t)((double)done / secs) : 0);
	unsigned pct = total ? (unsigned)(done >= total ? 100 : done * 100 / total) : 0;
	fprintf(stderr, "\rpeerwatch-analyze: %3u%%  %zu/%zu file%s, %s of %s, %s/s, %llu event%s\033[K", pct,
	        files, r->in->n, r->in->n == 1 ? "" : "s", got, all, rate, (unsigned long long)events,
	        events == 1 ? "" : "s");
}

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec until, t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &until);
	double delay = progress_delay(); /* quick runs show nothing */
	until.tv_sec += (time_t)delay;
	until.tv_nsec += (long)((delay - (double)(time_t)delay) * 1e9);
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&p->lock);
	while (!p->done) {
		if (pthread_cond_timedwait(&p->cond, &p->lock, &until) != ETIMEDOUT)
			continue;
		progress_line(p, &t0);
		p->shown = true;
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
	}
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void progress_start(struct progress *p, struct run *r)
{
	p->run = r;
	p->done = p->shown = false;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_create(&p->thread, NULL, progress_main, p);
}

static void progress_stop(struct progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}

/* ================= pw_input_read ================= */

static int job_count(const struct pw_read_opts *o)
{
	long n = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
	return (int)(n < 1 ? 1 : n > 256 ? 256 : n);
}

static void worker_init(struct worker *w, struct run *r)
{
	w->run = r;
	w->partial = xcalloc(r->nsinks, sizeof *w->partial);
	w->fctx = xcalloc(r->nsinks, sizeof *w->fctx);
	w->pre_wanted = xcalloc(r->nsinks, sizeof *w->pre_wanted);
	vec_init(&w->stack, sizeof(uint64_t));
	vec_init(&w->seqs, sizeof(uint64_t));
	for (size_t i = 0; i < r->nsinks; i++)
		w->partial[i] = r->sinks[i].ops->partial_new(r->sinks[i].report);
}

static void worker_finish(struct worker *w)
{
	struct run *r = w->run;
	for (size_t i = 0; i < r->nsinks; i++)
		r->sinks[i].ops->partial_merge(r->sinks[i].report, w->partial[i]);
	free(w->partial);
	free(w->fctx);
	free(w->pre_wanted);
	vec_free(&w->stack);
	vec_free(&w->seqs);
	lines_free(&w->lines);
}

int pw_input_read(struct pw_input *in, const struct pw_read_opts *o, struct pw_sink *sinks, size_t nsinks)
{
	struct run r = {.in = in, .o = o, .sinks = sinks, .nsinks = nsinks};
	atomic_init(&r.next, 0);
	atomic_init(&r.stop, false);
	atomic_init(&r.status, PW_READ_OK);
	atomic_init(&r.events, 0);
	atomic_init(&r.files_done, 0);
	atomic_init(&r.bytes, 0);
	pthread_mutex_init(&r.msg_lock, NULL);
	vec_init(&r.items, sizeof(struct item));
	r.chunks = xcalloc(in->n + 1, sizeof *r.chunks);
	for (size_t i = 0; i < in->n; i++)
		vec_init(&r.chunks[i], sizeof(struct chunk *));
	for (size_t i = 0; i < nsinks; i++) {
		r.any_pre |= sinks[i].ops->pre_filter != NULL;
		r.nesting |= sinks[i].ops->nesting;
	}
	int n = job_count(o);
	struct worker *w = xcalloc((size_t)n, sizeof *w);
	for (int i = 0; i < n; i++)
		worker_init(&w[i], &r);
	r.w0 = &w[0];
	plan(&r, &w[0], n);
	if ((size_t)n > r.items.len)
		n = r.items.len ? (int)r.items.len : 1; /* idle workers only merge empty partials */
	struct progress p;
	if (o->progress)
		progress_start(&p, &r);
	/* worker 0 is this thread: -j 1 starts no thread at all */
	for (int i = 1; i < n; i++)
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			w[i].thread = 0;
	worker_main(&w[0]);
	for (int i = 1; i < n; i++)
		if (w[i].thread)
			pthread_join(w[i].thread, NULL);
	if (o->progress)
		progress_stop(&p);
	for (size_t i = 0; i < in->n; i++)
		merge_chunks(&r, &in->files[i], &r.chunks[i]);
	for (int i = 0, all = job_count(o); i < all; i++)
		worker_finish(&w[i]);
	free(w);
	pw_parse_thread_done();
	free(r.chunks);
	vec_free(&r.items);
	pthread_mutex_destroy(&r.msg_lock);
	return atomic_load(&r.status);
}

static void *nop_new(void *report)
{
	return report;
}
static void nop_merge(void *report, void *partial)
{
	(void)report;
	(void)partial;
}
static void nop_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)fctx;
	(void)f;
	(void)ev;
}

const struct pw_sink_ops pw_sink_validate_only = {
    .partial_new = nop_new,
    .partial_merge = nop_merge,
    .event = nop_event,
};

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
 * their line numbers in the file, are printed.  A large file read whole
 * is read in segments, with the help of the workers that have no item left
 * (read_piped).  A run whose sink asks for pre_all_done reads in two
 * stages: every file's pre-phases, then every file's event phase, the
 * workers meeting between them (next_stage) and each file's state kept
 * meanwhile (struct held).
 */
#include <errno.h>
#include <fcntl.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
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
#include "read/scan.h"
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
	bool nesting; /* a sink wants ev->parent_recorded */
	/* the nesting scan's seqs are gathered in the pre-phase's pass (no
	 * sink wants parent_recorded in pre_event): one read of the file fewer */
	bool scan_in_pre;
	/* a call line as the library writes it is given by its op to the
	 * pre_by_op sinks (op_mask, by op_kind's kind), and, for the ops of
	 * also_mask, to those of them whose pre_also_keys it holds (also_keys);
	 * the other sinks' keys are searched in it (other_keys; NULL: none) */
	bool by_op;
	struct needles *pre_keys; /* every sink's, a bit each */
	struct needles *other_keys;
	struct also_key {
		const char *key; /* starts with a quote */
		size_t n;
		uint64_t bit;
	} also[8];
	size_t nalso;
	struct hmap op_kind; /* an op's name -> its kind (enum pw_op_kind) */
	uint64_t op_mask[PW_OP_KINDS];
	uint64_t also_mask[PW_OP_KINDS];
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
	/* files read whole by one worker in segments, with the others' help */
	bool pipes_ok;      /* several workers */
	bool any_big;       /* a file read whole is large enough to be read so */
	size_t window;      /* segments parsed ahead of the one a file's reader is at */
	struct pipe *pipes; /* the files being read so now */
	int readers;        /* workers still taking items (the others help) */
	/* two stages, for a sink's pre_all_done: every file's pre-phases, then
	 * every file's event phase, a file's state kept between them (held) */
	bool staged;
	int stage;            /* 1, then 2; under pipe_lock */
	int running, arrived; /* workers in worker_main, and at the stages' barrier */
	int nall;             /* every worker (all), for their partials */
	struct worker *all;
	struct held *held; /* per file */
	pthread_mutex_t pipe_lock;
	pthread_cond_t pipe_cond;
};

/* A file between its stages: what its event phase needs of its pre-phase. */
struct held {
	bool ok;     /* its header was read and its pre-phases ran */
	bool ended;  /* file_end was called */
	void **fctx; /* the sinks' */
	struct seqset seqs;
	off_t body; /* where its body starts, at line `no` */
	uint64_t no;
	off_t *bounds; /* read in segments: their bounds, kept */
	size_t nseg;
	struct stat st; /* as the first stage left it */
};

struct worker {
	struct run *run;
	void **partial;
	void **fctx;
	struct chunk *chunk; /* the chunk being read: messages wait for the merge */
	struct vec stack;
	struct seqset seqs; /* nesting: the seqs of the file's calls */
	bool devices_early; /* the file's device lines were read in an earlier phase */
	bool past_footer;   /* an early phase: the file's footer was read (what follows is not) */
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

/* The digits at p, after any blanks and colons. */
static bool uint_at(const char *p, const char *end, uint64_t *out)
{
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

/* The value of `"key": <digits>` at its first place in a raw line. */
static bool raw_uint(const char *line, size_t len, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	const char *p = memmem(line, len, key, kl);
	return p && uint_at(p + kl, line + len, out);
}

/* The nesting scan: a call's seq without parsing its line.  A line this
 * misreads can only make a nested call count on its own, never lose one:
 * a "type" or "seq" after an object or array has begun (args.seq, say) may
 * not be the call's, so such a line adds no seq. */
static bool scan_line(const char *line, size_t len, uint64_t *seq)
{
	/* as the library writes a call: the same answer without the searches */
	static const char call[] = "{\"type\":\"call\",\"seq\":";
	if (len > sizeof call - 1 && !memcmp(line, call, sizeof call - 1))
		return uint_at(line + sizeof call - 1, line + len, seq);
	const char *t = memmem(line, len, "\"type\"", 6);
	if (!t)
		return false;
	const char *p = t + 6, *end = line + len;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	const char *s = memmem(line, len, "\"seq\"", 5), *last = s > t ? s : t;
	if (!s || s == line || memchr(line + 1, '{', (size_t)(last - line - 1)) ||
	    memchr(line + 1, '[', (size_t)(last - line - 1)))
		return false;
	return end - p >= 6 && !memcmp(p, "\"call\"", 6) && raw_uint(line, len, "\"seq\"", seq);
}

enum phase { PH_MAIN, PH_PRE, PH_SCAN };

/* ev->parent_recorded from the file's seqs; in a pre-phase that gathers
 * them (scan_in_pre) nothing is asked of them, which are still growing. */
static void mark_nested(const struct run *r, enum phase ph, const struct seqset *seqs, struct pw_event *ev)
{
	ev->parent_recorded = false;
	if (!r->nesting || (ph == PH_PRE && r->scan_in_pre) || !ev->has_parent || ev->type != PW_EV_CALL ||
	    !seqs->n)
		return;
	ev->parent_recorded = seqset_has(seqs, ev->parent);
}

/* An event of the main phase, line `ev->line`, to the sinks. */
static void main_event(struct worker *w, struct pw_file *f, const struct pw_event *ev)
{
	struct run *r = w->run;
	if (f->footer) {
		bad_line(w, f, ev->line, "a line after the footer");
		return;
	}
	count_event(f, ev);
	atomic_fetch_add_explicit(&r->events, 1, memory_order_relaxed);
	for (size_t i = 0; i < r->nsinks; i++)
		r->sinks[i].ops->event(w->partial[i], w->fctx[i], f, ev);
}

/* A device line in the main phase: added to the file's devices, or, where
 * an earlier phase read them all, checked only — other files' readers may
 * be looking at them (pre_all_done's stage). */
static int main_device(struct worker *w, struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	if (!w->devices_early)
		return pw_file_add_device(f, root, err, errlen);
	struct pw_file scratch;
	memset(&scratch, 0, sizeof scratch);
	vec_init(&scratch.devices, sizeof(struct pw_device));
	int bad = pw_file_add_device(&scratch, root, err, errlen);
	for (size_t i = 0; i < scratch.devices.len; i++)
		pw_device_free(vec_at(&scratch.devices, i));
	vec_free(&scratch.devices);
	return bad;
}

/* One line after the header, in the main phase: line `no` of the file. */
static void main_line(struct worker *w, struct pw_file *f, const char *line, size_t len, uint64_t no)
{
	struct pw_event ev;
	json_t *root;
	char err[512];
	enum pw_line_kind k = pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err);
	ev.line = no;
	if (k == PW_LINE_EVENT)
		mark_nested(w->run, PH_MAIN, &w->seqs, &ev);
	if (k == PW_LINE_EVENT)
		main_event(w, f, &ev);
	else if (k != PW_LINE_BAD && f->footer)
		bad_line(w, f, no, "a line after the footer");
	else if (k == PW_LINE_BAD)
		bad_line(w, f, no, "%s", err);
	else if (k == PW_LINE_HEADER)
		bad_line(w, f, no, "a second header");
	else if (k == PW_LINE_FOOTER && pw_file_footer(f, root, err, sizeof err))
		bad_line(w, f, no, "footer: %s", err);
	else if (k == PW_LINE_OTHER)
		f->unknown++;
	else if (k == PW_LINE_DEVICE && main_device(w, f, root, err, sizeof err))
		bad_line(w, f, no, "device: %s", err);
	else if (k == PW_LINE_DEVICE)
		f->events++; /* written as an event, counted in the footer's */
	json_decref(root);
}

/* Whether a line may be a `type` line ("device", "footer"), without
 * parsing it: one the library wrote starts {"type":"<type>"; one written
 * otherwise (its members in another order) is any line that is not a call
 * as the library writes it and names "<type>" — those are parsed to know. */
static inline bool may_be(const char *line, size_t len, const char *start, const char *quoted)
{
	static const char call[] = "{\"type\":\"call\"";
	size_t n = strlen(start);
	if (len >= n && !memcmp(line, start, n))
		return true;
	return !(len >= sizeof call - 1 && !memcmp(line, call, sizeof call - 1)) &&
	       memmem(line, len, quoted, strlen(quoted));
}

/* A device line seen before the main phase: the file's devices are known
 * before its first event is handed out (the main phase reads it again,
 * and reports it if it is bad); every device line, so that the first
 * phase has them all. */
static bool device_line(const char *line, size_t len)
{
	return may_be(line, len, "{\"type\":\"device\"", "\"device\"");
}

static void early_device(struct worker *w, struct pw_file *f, const char *line, size_t len)
{
	if (w->devices_early || !device_line(line, len))
		return;
	struct pw_event ev;
	json_t *root;
	char err[512];
	if (pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err) == PW_LINE_DEVICE)
		pw_file_add_device(f, root, err, sizeof err);
	json_decref(root);
}

/* Whether an early phase's line is a footer the main phase would take
 * (lines after it are bad there, so the early phases stop at it too). */
static bool footer_line(struct worker *w, const char *line, size_t len)
{
	if (!may_be(line, len, "{\"type\":\"footer\"", "\"footer\""))
		return false;
	struct pw_event ev;
	json_t *root;
	char err[512];
	bool footer = false;
	if (pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err) == PW_LINE_FOOTER) {
		struct pw_file scratch; /* pw_file_footer's checks, without the file's */
		memset(&scratch, 0, sizeof scratch);
		vec_init(&scratch.modules, sizeof(struct pw_module));
		vec_init(&scratch.devices, sizeof(struct pw_device));
		footer = !pw_file_footer(&scratch, root, err, sizeof err);
		pw_file_clear(&scratch);
		vec_free(&scratch.modules);
		vec_free(&scratch.devices);
	}
	json_decref(root);
	return footer;
}

bool pw_pre_by_op = true;

/* The first place of key (n bytes, the first a '"') in [p, end), as
 * memmem finds it: glibc's memmem set up its tables on every call, half
 * the pre-phase's time a line.  With SSE2 (every x86-64) sixteen places a
 * step are tested for the key's first two bytes, and each place that has
 * them is compared; the last few bytes, and other machines, by memmem. */
static const char *find_quoted(const char *p, const char *end, const char *key, size_t n)
{
	size_t len = (size_t)(end - p), i = 0;
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), next = _mm_set1_epi8(key[1]);
	for (; i + 17 <= len; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
		unsigned m = (unsigned)_mm_movemask_epi8(
		    _mm_and_si128(_mm_cmpeq_epi8(a, quote), _mm_cmpeq_epi8(b, next)));
		for (; m; m &= m - 1) {
			size_t at = i + (size_t)__builtin_ctz(m);
			if (at + n <= len && !memcmp(p + at, key, n))
				return p + at;
		}
	}
#endif
	return i < len ? memmem(p + i, len - i, key, n) : NULL;
}

/* A call line's op, where the line starts as the library writes a call
 * and the op is a member of the call (no object or array before it) whose
 * value has no escape. */
static bool call_op(const char *line, size_t len, const char **op, size_t *n)
{
	static const char start[] = "{\"type\":\"call\",";
	if (len < sizeof start - 1 || memcmp(line, start, sizeof start - 1))
		return false;
	const char *p = line + sizeof start - 1, *end = line + len;
	const char *k = find_quoted(p, end, "\"op\":\"", 6);
	if (!k || memchr(p, '{', (size_t)(k - p)) || memchr(p, '[', (size_t)(k - p)))
		return false;
	const char *v = k + 6, *q = memchr(v, '"', (size_t)(end - v));
	if (!q || memchr(v, '\\', (size_t)(q - v)))
		return false;
	*op = v;
	*n = (size_t)(q - v);
	return true;
}

/* r->op_kind's kind of an op (0: none), through a few ops kept per thread:
 * a trace has a dozen ops, and a lookup hashed and compared every line.
 * Every run's table is the same (pw_op_name's), so is what is kept. */
static uintptr_t op_kind_of(const struct run *r, const char *op, size_t n)
{
	static __thread struct {
		uintptr_t kind;
		size_t n;
		char name[32];
	} memo[16];
	if (!n || n >= sizeof memo[0].name)
		return (uintptr_t)hmap_get(&r->op_kind, op, n);
	unsigned slot = (unsigned)(n * 7 + (unsigned char)op[0] * 3 + (unsigned char)op[n - 1]) % 16;
	if (memo[slot].n == n && !memcmp(memo[slot].name, op, n))
		return memo[slot].kind;
	uintptr_t kind = (uintptr_t)hmap_get(&r->op_kind, op, n);
	memo[slot].n = n;
	memo[slot].kind = kind;
	memcpy(memo[slot].name, op, n);
	return kind;
}

/* The sinks whose pre_also_keys are in the line. */
static uint64_t also_wanted(const struct run *r, const char *line, size_t len)
{
	uint64_t wanted = 0;
	for (size_t i = 0; i < r->nalso; i++)
		if (!(wanted & r->also[i].bit) && find_quoted(line, line + len, r->also[i].key, r->also[i].n))
			wanted |= r->also[i].bit;
	return wanted;
}

/* The sinks whose pre_keys are in the line, a bit each (at most 64 sinks);
 * of a call line with a known op, the pre_by_op sinks by its op. */
static uint64_t pre_wanted(const struct run *r, const char *line, size_t len)
{
	const char *op;
	size_t n;
	if (r->by_op && call_op(line, len, &op, &n)) {
		uintptr_t kind = op_kind_of(r, op, n);
		if (kind) {
			uint64_t wanted = r->op_mask[kind];
			if (r->also_mask[kind])
				wanted |= also_wanted(r, line, len) & r->also_mask[kind];
			if (r->other_keys)
				wanted |= needles_mask(r->other_keys, line, len);
			return wanted;
		}
	}
	return needles_mask(r->pre_keys, line, len);
}

/* The table of pre_wanted's ops: for each op, the pre_by_op sinks one of
 * whose keys is in "op":"<op>" (the member as the library writes it). */
static void op_table(struct run *r, const struct pw_sink *sinks, size_t nsinks)
{
	uint64_t by_op = 0, others = 0;
	for (size_t i = 0; i < nsinks; i++)
		if (sinks[i].ops->pre_keys)
			*(sinks[i].ops->pre_by_op ? &by_op : &others) |= 1ull << i;
	r->by_op = pw_pre_by_op && by_op;
	hmap_init(&r->op_kind);
	r->other_keys = NULL;
	r->nalso = 0;
	if (!r->by_op)
		return;
	for (int k = PW_OP_NONE + 1; k < PW_OP_KINDS; k++) {
		char member[96];
		const char *name = pw_op_name(k);
		int len = snprintf(member, sizeof member, "\"op\":\"%s\"", name);
		r->op_mask[k] = needles_mask(r->pre_keys, member, (size_t)len) & by_op;
		r->also_mask[k] = 0;
		*hmap_put(&r->op_kind, name, strlen(name)) = (void *)(uintptr_t)k;
	}
	for (size_t i = 0; i < nsinks; i++) {
		const struct pw_sink_ops *s = sinks[i].ops;
		if (!(by_op >> i & 1) || !s->pre_also_ops)
			continue;
		for (const char *const *o = s->pre_also_ops; *o; o++)
			r->also_mask[(uintptr_t)hmap_get(&r->op_kind, *o, strlen(*o))] |= 1ull << i;
		for (const char *const *k = s->pre_also_keys; k && *k; k++) {
			if (r->nalso == sizeof r->also / sizeof *r->also || (*k)[0] != '"' ||
			    strlen(*k) < 2) {
				fprintf(stderr, "peerwatch-analyze: internal: pre_also_keys: '%s'\n", *k);
				abort(); /* a sink's table, not the input */
			}
			r->also[r->nalso++] = (struct also_key){*k, strlen(*k), 1ull << i};
		}
	}
	r->also_mask[PW_OP_NONE] = 0; /* an op no table has, named by a sink */
	if (!others)
		return;
	r->other_keys = xmalloc(sizeof *r->other_keys);
	needles_init(r->other_keys);
	for (size_t i = 0; i < nsinks; i++)
		for (const char *const *k = sinks[i].ops->pre_keys; k && *k && (others >> i & 1); k++)
			needles_add(r->other_keys, *k, 1ull << i);
}

static void pre_event(struct worker *w, struct pw_file *f, const struct pw_event *ev, uint64_t wanted)
{
	struct run *r = w->run;
	for (size_t i = 0; i < r->nsinks; i++)
		if (wanted >> i & 1)
			r->sinks[i].ops->pre_event(w->partial[i], w->fctx[i], f, ev);
}

/* A line some sink's filter wants, in the pre-phase, line `no`: quietly. */
static void pre_parse(struct worker *w, struct pw_file *f, const char *line, size_t len, uint64_t no,
                      uint64_t wanted)
{
	struct pw_event ev;
	json_t *root;
	char err[512];
	if (pw_parse_line(line, len, &ev, &w->stack, &root, err, sizeof err) == PW_LINE_EVENT) {
		ev.line = no;
		mark_nested(w->run, PH_PRE, &w->seqs, &ev);
		pre_event(w, f, &ev, wanted);
	}
	json_decref(root);
}

/* One line in the pre-phase: only lines some sink's filter wants, quietly
 * (and every call's seq, when the pre-phase is also the nesting scan). */
static void pre_line(struct worker *w, struct pw_file *f, const char *line, size_t len)
{
	struct run *r = w->run;
	uint64_t seq;
	if (r->scan_in_pre && scan_line(line, len, &seq))
		seqset_add(&w->seqs, seq);
	early_device(w, f, line, len);
	uint64_t wanted = pre_wanted(r, line, len);
	if (wanted)
		pre_parse(w, f, line, len, w->lines.lineno, wanted);
}

/* A last line without its newline: a .partial file's writer died mid-line
 * (expected, ignored); a finished file was cut short (an error). */
static void cut_tail(struct worker *w, struct pw_file *f, uint64_t no)
{
	f->tail_cut = true;
	if (!f->partial)
		bad_line(w, f, no, "the last line has no newline (the file was cut short)");
}

/* Reads lines up to `end` (< 0: the end of the file) in one phase: the
 * nesting scan, the pre-phase, or the main one (which alone reports).
 * False when it stopped before: --strict's stop, or a read error. */
static bool read_lines(struct worker *w, struct pw_file *f, off_t end, enum phase ph, off_t *mark)
{
	bool pre = ph != PH_MAIN;
	const char *line;
	size_t len;
	unsigned n = 0;
	while (end < 0 || lines_pos(&w->lines) < end) {
		if (atomic_load_explicit(&w->run->stop, memory_order_relaxed))
			return false;
		if (++n % 4096 == 0) { /* for the progress line */
			off_t pos = lines_pos(&w->lines);
			atomic_fetch_add_explicit(&w->run->bytes, (uint64_t)(pos - *mark),
			                          memory_order_relaxed);
			*mark = pos;
		}
		int k = next_line(&w->lines, &line, &len);
		if (k == L_EOF)
			return true;
		if (k == L_ERR) {
			if (!pre)
				bad_file(w, f, PW_READ_BAD_INPUT, "read error after line %llu: %s",
				         (unsigned long long)w->lines.lineno, strerror(errno));
			return false;
		}
		if (!pre)
			f->lines++;
		if (k == L_LONG && !pre)
			bad_line(w, f, w->lines.lineno, "line longer than %u bytes, skipped", PW_MAX_LINE);
		else if (k == L_TAIL && !pre)
			cut_tail(w, f, w->lines.lineno);
		else if (k == L_LINE && pre && (w->past_footer || footer_line(w, line, len)))
			w->past_footer = true;
		else if (k == L_LINE && ph == PH_SCAN) {
			uint64_t seq;
			if (scan_line(line, len, &seq))
				seqset_add(&w->seqs, seq);
			early_device(w, f, line, len);
		} else if (k == L_LINE && pre)
			pre_line(w, f, line, len);
		else if (k == L_LINE)
			main_line(w, f, line, len, w->lines.lineno);
	}
	return true;
}

/* read_lines, counting the bytes it read for the progress line. */
static bool read_body(struct worker *w, struct pw_file *f, off_t end, enum phase ph)
{
	off_t mark = lines_pos(&w->lines);
	bool whole = read_lines(w, f, end, ph, &mark);
	off_t pos = lines_pos(&w->lines);
	if (pos > mark)
		atomic_fetch_add_explicit(&w->run->bytes, (uint64_t)(pos - mark), memory_order_relaxed);
	return whole;
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

/* ================= a file read whole, in segments, by several workers =================
 *
 * A file whose sinks keep state per file is read by one worker, its reader,
 * which alone hands its events to the sinks, in the file's order.  When
 * other workers have nothing left to read (one large trace, say) they help:
 * the file's body is cut into segments at line starts, and in each phase
 * (the nesting scan, the pre-phase, the main one) a helper takes the next
 * segment nobody has taken, reads and parses it into a batch — a call of
 * the plain shape as an event of its own (pw_event_detach), any other line
 * as its text, which the reader parses itself, so that every message is
 * made where it was before — and the reader takes the batches in segment
 * order.  The reader reads a segment itself, straight to the sinks, when
 * it comes to one nobody has taken, and parses a later one into a batch
 * while it waits for a helper's.  Segments are taken at most `window`
 * ahead of the one the reader is at, so memory is bounded by the batches
 * of that many segments, whatever the file's size. */

/* Files of at least this size are read in segments of this one. */
#define PIPE_MIN ((off_t)4 << 20)
#define SEG_SIZE ((off_t)512 << 10)
#define BLOCK_SIZE ((size_t)256 << 10)

enum entry_kind { E_EV, E_RAW, E_DEVICE, E_LONG, E_TAIL, E_ERR };

struct entry {
	unsigned char kind;
	int err;         /* E_ERR: its errno */
	uint64_t line;   /* in the segment, from 1 (E_ERR: the lines read before it) */
	uint64_t wanted; /* the pre-phase: the sinks whose filter wants the line */
	struct pw_event *ev;
	const char *text; /* E_RAW, E_DEVICE: the line */
	size_t len;
};

struct block {
	struct block *next;
	size_t cap, used;
	max_align_t data[];
};

struct batch {
	struct vec entries;   /* struct entry */
	struct vec seqs;      /* the nesting scan: the seqs of the segment's calls */
	struct block *blocks; /* what the entries point into; kept when the batch is used again */
	struct block *cur;
	uint64_t lines; /* lines the segment has */
	bool footer;    /* an early phase: a footer was read (the lines after it were not) */
	struct batch *next_free;
};

enum seg_state { SEG_FREE, SEG_TAKEN, SEG_READY };

struct pipe {
	struct pw_file *f;
	enum phase ph;
	bool first;                /* the file's first phase: its device lines are read early */
	const struct seqset *seqs; /* the reader's (read-only after the nesting scan) */
	size_t nseg;
	off_t *bounds;        /* segment k is [bounds[k], bounds[k + 1]); the last ends at -1: the end */
	unsigned char *state; /* enum seg_state, per segment */
	struct batch **batch; /* SEG_READY: the segment's batch; NULL: the reader reads it itself */
	size_t next;          /* the first segment nobody took */
	size_t at;            /* the segment the reader is at */
	int parsing;          /* segments being parsed into batches now */
	bool open;            /* a phase is being read */
	struct batch *free_batches;
	struct pipe *next_pipe; /* in run->pipes */
};

static void *batch_alloc(struct batch *b, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	while (b->cur && b->cur->cap - b->cur->used < n) {
		b->cur = b->cur->next;
		if (b->cur)
			b->cur->used = 0;
	}
	if (!b->cur) {
		size_t cap = n > BLOCK_SIZE ? n : BLOCK_SIZE;
		struct block *nb = xmalloc(sizeof *nb + cap);
		nb->cap = cap;
		nb->used = 0;
		nb->next = NULL;
		struct block **tail = &b->blocks;
		while (*tail)
			tail = &(*tail)->next;
		*tail = nb;
		b->cur = nb;
	}
	void *p = (char *)b->cur->data + b->cur->used;
	b->cur->used += n;
	return p;
}

/* Hands back p, batch_alloc's last n bytes. */
static void batch_unalloc(struct batch *b, void *p, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if ((char *)p + n == (char *)b->cur->data + b->cur->used)
		b->cur->used -= n;
}

static struct entry *batch_push(struct batch *b, enum entry_kind kind, uint64_t line)
{
	struct entry *e = vec_push(&b->entries);
	memset(e, 0, sizeof *e);
	e->kind = (unsigned char)kind;
	e->line = line;
	return e;
}

static void batch_text(struct batch *b, struct entry *e, const char *line, size_t len)
{
	char *t = batch_alloc(b, len + 1);
	memcpy(t, line, len);
	t[len] = 0;
	e->text = t;
	e->len = len;
}

/* Under the pipe lock. */
static struct batch *batch_take(struct pipe *p)
{
	struct batch *b = p->free_batches;
	if (b) {
		p->free_batches = b->next_free;
	} else {
		b = xcalloc(1, sizeof *b);
		vec_init(&b->entries, sizeof(struct entry));
		vec_init(&b->seqs, sizeof(uint64_t));
	}
	b->entries.len = b->seqs.len = 0;
	b->lines = 0;
	b->footer = false;
	b->cur = b->blocks;
	if (b->cur)
		b->cur->used = 0;
	return b;
}

/* Under the pipe lock. */
static void batch_give(struct pipe *p, struct batch *b)
{
	b->next_free = p->free_batches;
	p->free_batches = b;
}

static void batch_free(struct batch *b)
{
	for (struct block *k = b->blocks, *n; k; k = n) {
		n = k->next;
		free(k);
	}
	vec_free(&b->entries);
	vec_free(&b->seqs);
	free(b);
}

/* A line read by the fast path into the batch (the scan's copy of the
 * line made there, where the event's strings stay), or else its text. */
static struct entry *batch_event(struct worker *w, struct pipe *p, struct batch *b, const char *line,
                                 size_t len, uint64_t no)
{
	struct pw_event ev;
	char *copy = batch_alloc(b, PW_SCAN_COPY_SIZE(len));
	if (pw_parse_fast_line(line, len, &ev, &w->stack, copy)) {
		mark_nested(w->run, p->ph, p->seqs, &ev);
		struct entry *e = batch_push(b, E_EV, no);
		e->ev = pw_event_detach(&ev, batch_alloc(b, pw_event_detach_size(&ev)));
		return e;
	}
	batch_unalloc(b, copy, PW_SCAN_COPY_SIZE(len)); /* the copy, unused */
	struct entry *e = batch_push(b, E_RAW, no);
	batch_text(b, e, line, len);
	return e;
}

/* A helper's line of segment k, as it comes: what the reader needs of it. */
static void batch_line(struct worker *w, struct pipe *p, struct batch *b, const char *line, size_t len)
{
	uint64_t no = w->lines.lineno;
	if (p->ph != PH_MAIN && (b->footer || footer_line(w, line, len))) {
		b->footer = true;
		return;
	}
	if (p->ph == PH_SCAN) {
		uint64_t seq;
		if (scan_line(line, len, &seq))
			*(uint64_t *)vec_push(&b->seqs) = seq;
		if (device_line(line, len))
			batch_text(b, batch_push(b, E_DEVICE, no), line, len);
		return;
	}
	if (p->ph == PH_PRE) {
		uint64_t seq;
		if (w->run->scan_in_pre && scan_line(line, len, &seq))
			*(uint64_t *)vec_push(&b->seqs) = seq;
		if (p->first && device_line(line, len))
			batch_text(b, batch_push(b, E_DEVICE, no), line, len);
		uint64_t wanted = pre_wanted(w->run, line, len);
		if (!wanted)
			return;
		struct entry *e = batch_event(w, p, b, line, len, no);
		e->wanted = wanted;
		return;
	}
	batch_event(w, p, b, line, len, no);
}

/* Reads segment k of the pipe's phase into b (any worker, without the lock). */
static void batch_fill(struct worker *w, struct pipe *p, size_t k, struct batch *b)
{
	struct run *r = w->run;
	off_t start = p->bounds[k], end = p->bounds[k + 1];
	int fd = open_trace(p->f->path);
	if (fd < 0) {
		batch_push(b, E_ERR, 0)->err = errno;
		return;
	}
	lseek(fd, start, SEEK_SET);
	lines_open(&w->lines, fd, start);
	lines_until(&w->lines, end);
	const char *line;
	size_t len;
	while (end < 0 || lines_pos(&w->lines) < end) {
		if (atomic_load_explicit(&r->stop, memory_order_relaxed))
			break;
		int kind = next_line(&w->lines, &line, &len);
		if (kind == L_EOF)
			break;
		if (kind == L_ERR) {
			batch_push(b, E_ERR, w->lines.lineno)->err = errno;
			break;
		}
		if (kind == L_LINE)
			batch_line(w, p, b, line, len);
		else if (p->ph == PH_MAIN)
			batch_push(b, kind == L_LONG ? E_LONG : E_TAIL, w->lines.lineno);
	}
	b->lines = w->lines.lineno;
	atomic_fetch_add_explicit(&r->bytes, (uint64_t)(lines_pos(&w->lines) - start), memory_order_relaxed);
	close(fd);
}

/* Under the lock: a segment a helper may take now. */
static bool pipe_claimable(const struct run *r, const struct pipe *p)
{
	return p->open && p->next < p->nseg && p->next < p->at + r->window &&
	       !atomic_load_explicit(&r->stop, memory_order_relaxed);
}

/* Under the lock: takes the next segment, parses it into a batch unlocked,
 * and makes it ready. */
static void pipe_parse_next(struct worker *w, struct pipe *p)
{
	struct run *r = w->run;
	size_t k = p->next++;
	p->state[k] = SEG_TAKEN;
	p->parsing++;
	struct batch *b = batch_take(p);
	pthread_mutex_unlock(&r->pipe_lock);
	batch_fill(w, p, k, b);
	pthread_mutex_lock(&r->pipe_lock);
	p->batch[k] = b;
	p->state[k] = SEG_READY;
	p->parsing--;
	pthread_cond_broadcast(&r->pipe_cond);
}

/* A worker with no item left: parses segments of the files being read
 * until no worker takes items any more. */
static void help_pipes(struct worker *w)
{
	struct run *r = w->run;
	pthread_mutex_lock(&r->pipe_lock);
	r->readers--;
	pthread_cond_broadcast(&r->pipe_cond);
	while (r->readers > 0) {
		struct pipe *p = r->pipes;
		while (p && !pipe_claimable(r, p))
			p = p->next_pipe;
		if (p)
			pipe_parse_next(w, p);
		else
			pthread_cond_wait(&r->pipe_cond, &r->pipe_lock);
	}
	pthread_mutex_unlock(&r->pipe_lock);
}

/* The reader: a helper's batch of segment k, whose lines start after line `base`. */
static bool batch_use(struct worker *w, struct pipe *p, struct batch *b, uint64_t base)
{
	struct run *r = w->run;
	struct pw_file *f = p->f;
	if (p->ph != PH_MAIN && w->past_footer)
		return true; /* all after the footer */
	w->past_footer = b->footer;
	for (size_t i = 0; i < b->seqs.len; i++) /* the nesting scan's, in whichever phase */
		seqset_add(&w->seqs, *(uint64_t *)vec_at(&b->seqs, i));
	for (size_t i = 0; i < b->entries.len; i++) {
		if (atomic_load_explicit(&r->stop, memory_order_relaxed))
			return false;
		struct entry *e = vec_at(&b->entries, i);
		uint64_t no = base + e->line;
		if (e->kind == E_ERR) {
			if (p->ph == PH_MAIN)
				bad_file(w, f, PW_READ_BAD_INPUT, "read error after line %llu: %s",
				         (unsigned long long)no, strerror(e->err));
			return false;
		}
		if (e->kind == E_DEVICE) {
			early_device(w, f, e->text, e->len);
			continue;
		}
		if (p->ph == PH_PRE) {
			if (e->kind == E_RAW) {
				pre_parse(w, f, e->text, e->len, no, e->wanted);
				continue;
			}
			e->ev->line = no;
			pre_event(w, f, e->ev, e->wanted);
			pw_ev_args_done();
			continue;
		}
		f->lines++;
		if (e->kind == E_LONG)
			bad_line(w, f, no, "line longer than %u bytes, skipped", PW_MAX_LINE);
		else if (e->kind == E_TAIL)
			cut_tail(w, f, no);
		else if (e->kind == E_RAW)
			main_line(w, f, e->text, e->len, no);
		else {
			e->ev->line = no;
			main_event(w, f, e->ev);
			pw_ev_args_done();
		}
	}
	return true;
}

/* The reader: segment k read straight to the sinks. */
static bool segment_read(struct worker *w, struct pipe *p, int fd, size_t k, uint64_t base, uint64_t *lines)
{
	lseek(fd, p->bounds[k], SEEK_SET);
	lines_open(&w->lines, fd, p->bounds[k]);
	lines_until(&w->lines, p->bounds[k + 1]);
	w->lines.lineno = base;
	bool whole = read_body(w, p->f, p->bounds[k + 1], p->ph);
	*lines = w->lines.lineno - base;
	return whole;
}

/* One phase of a piped file, on its reader: the segments in order. */
static void pipe_phase(struct worker *w, struct pipe *p, int fd, enum phase ph, uint64_t base)
{
	struct run *r = w->run;
	pthread_mutex_lock(&r->pipe_lock);
	p->ph = ph;
	p->first = !w->devices_early;
	w->past_footer = false;
	p->next = p->at = 0;
	memset(p->state, SEG_FREE, p->nseg);
	p->open = true;
	pthread_cond_broadcast(&r->pipe_cond);
	bool going = true;
	for (size_t k = 0; k < p->nseg && going; k++) {
		struct batch *b = NULL;
		for (;;) {
			if (p->state[k] == SEG_READY) {
				b = p->batch[k];
				break;
			}
			if (p->next == k) { /* nobody took it: read it now */
				p->next++;
				p->state[k] = SEG_TAKEN;
				break;
			}
			if (pipe_claimable(r, p))
				pipe_parse_next(w, p); /* a later one, while a helper parses this one */
			else
				pthread_cond_wait(&r->pipe_cond, &r->pipe_lock);
		}
		pthread_mutex_unlock(&r->pipe_lock);
		uint64_t lines = 0;
		if (b) {
			going = batch_use(w, p, b, base);
			lines = b->lines;
		} else {
			going = segment_read(w, p, fd, k, base, &lines);
		}
		base += lines;
		pthread_mutex_lock(&r->pipe_lock);
		if (b)
			batch_give(p, b);
		p->at = k + 1;
		pthread_cond_broadcast(&r->pipe_cond);
	}
	p->open = false;
	while (p->parsing)
		pthread_cond_wait(&r->pipe_cond, &r->pipe_lock);
	for (size_t k = p->at; k < p->next; k++) /* read ahead of a stop */
		if (p->state[k] == SEG_READY)
			batch_give(p, p->batch[k]);
	pthread_mutex_unlock(&r->pipe_lock);
}

/* Whether a run reads a file in this phase: the nesting scan on its own
 * pass only when the pre-phase cannot gather its seqs. */
static bool phase_wanted(const struct run *r, enum phase ph)
{
	if (ph == PH_SCAN)
		return r->nesting && !r->scan_in_pre;
	return ph != PH_PRE || r->any_pre;
}

/* After a phase of file f: the seqs, once all are in, sorted; the sinks
 * told that the pre-phase is over. */
static void phase_done(struct worker *w, struct pw_file *f, enum phase ph)
{
	struct run *r = w->run;
	if (ph == PH_SCAN || (ph == PH_PRE && r->scan_in_pre))
		seqset_done(&w->seqs);
	if (ph == PH_PRE)
		for (size_t i = 0; i < r->nsinks; i++)
			if (r->sinks[i].ops->pre_done)
				r->sinks[i].ops->pre_done(w->partial[i], w->fctx[i], f, &w->seqs);
}

static off_t line_start_after(int fd, off_t at);

/* The phases `from` down to `to` of a file with its header read, in
 * segments, with help.  Its segments' bounds are h's where a stage before
 * made them (else made now, and kept in h when there is one). */
static void read_piped(struct worker *w, struct pw_file *f, int fd, off_t body, uint64_t no, off_t size,
                       enum phase from, enum phase to, struct held *h)
{
	struct run *r = w->run;
	struct pipe p = {.f = f, .seqs = &w->seqs};
	if (h && h->bounds) {
		p.bounds = h->bounds;
		p.nseg = h->nseg;
	} else {
		size_t n = (size_t)((size - body) / SEG_SIZE);
		p.bounds = xcalloc(n + 2, sizeof *p.bounds);
		p.bounds[0] = body;
		for (size_t k = 1; k < n; k++) {
			off_t b = line_start_after(fd, body + (off_t)((size - body) * (off_t)k / (off_t)n));
			if (b > p.bounds[p.nseg] && b < size)
				p.bounds[++p.nseg] = b;
		}
		p.bounds[++p.nseg] = -1; /* the last reads to the end, however far the file grew */
	}
	p.state = xcalloc(p.nseg, 1);
	p.batch = xcalloc(p.nseg, sizeof(struct batch *));
	pthread_mutex_lock(&r->pipe_lock);
	p.next_pipe = r->pipes;
	r->pipes = &p;
	pthread_mutex_unlock(&r->pipe_lock);
	for (int ph = (int)from; ph >= (int)to; ph--) {
		if (!phase_wanted(r, (enum phase)ph))
			continue;
		pipe_phase(w, &p, fd, (enum phase)ph, no);
		w->devices_early = true;
		phase_done(w, f, (enum phase)ph);
	}
	pthread_mutex_lock(&r->pipe_lock);
	struct pipe **pp = &r->pipes;
	while (*pp != &p)
		pp = &(*pp)->next_pipe;
	*pp = p.next_pipe;
	pthread_mutex_unlock(&r->pipe_lock);
	while (p.free_batches) {
		struct batch *b = p.free_batches;
		p.free_batches = b->next_free;
		batch_free(b);
	}
	if (h && to != PH_MAIN) {
		h->bounds = p.bounds;
		h->nseg = p.nseg;
	} else {
		free(p.bounds);
		if (h)
			h->bounds = NULL;
	}
	free(p.state);
	free(p.batch);
}

static void read_held(struct worker *w, struct pw_file *f);

/* A whole file: header, pre-phase if any sink wants one, body, file_end.
 * In a staged run, the first stage stops before the body's event phase
 * and keeps what it needs; the second reads the body (read_held). */
static void read_file(struct worker *w, struct pw_file *f)
{
	struct run *r = w->run;
	if (r->staged && r->stage == 2) {
		read_held(w, f);
		return;
	}
	int fd = open_with_header(w, f);
	if (fd < 0)
		return;
	for (size_t i = 0; i < r->nsinks; i++)
		w->fctx[i] =
		    r->sinks[i].ops->file_begin ? r->sinks[i].ops->file_begin(w->partial[i], f) : NULL;
	off_t body = lines_pos(&w->lines);
	uint64_t no = w->lines.lineno;
	seqset_clear(&w->seqs);
	w->devices_early = false;
	struct stat st;
	bool piped = r->pipes_ok && !fstat(fd, &st) && st.st_size - body >= PIPE_MIN;
	enum phase last = r->staged ? PH_PRE : PH_MAIN;
	for (int ph = PH_SCAN; ph >= (int)last && !piped; ph--) {
		if (!phase_wanted(r, (enum phase)ph))
			continue;
		w->past_footer = false;
		read_body(w, f, -1, (enum phase)ph);
		w->devices_early = true;
		phase_done(w, f, (enum phase)ph);
		if (ph != PH_MAIN) {
			lseek(fd, body, SEEK_SET);
			lines_open(&w->lines, fd, body);
			w->lines.lineno = no;
		}
	}
	struct held *h = r->staged ? &r->held[f->index] : NULL;
	if (piped)
		read_piped(w, f, fd, body, no, st.st_size, PH_SCAN, last, h);
	if (h && fstat(fd, &h->st))
		memset(&h->st, 0, sizeof h->st);
	close(fd);
	if (h) {
		h->ok = true;
		h->fctx = xmalloc(r->nsinks * sizeof *h->fctx);
		memcpy(h->fctx, w->fctx, r->nsinks * sizeof *h->fctx);
		h->seqs = w->seqs; /* the worker's set moves to the file */
		seqset_init(&w->seqs);
		h->body = body;
		h->no = no;
		return;
	}
	report_tail_msgs(r, f);
	for (size_t i = 0; i < r->nsinks; i++)
		if (r->sinks[i].ops->file_end)
			r->sinks[i].ops->file_end(w->partial[i], w->fctx[i], f);
}

/* The file's end for the sinks, with the state held for it. */
static void held_end(struct worker *w, struct pw_file *f, struct held *h)
{
	struct run *r = w->run;
	for (size_t i = 0; i < r->nsinks; i++)
		if (r->sinks[i].ops->file_end)
			r->sinks[i].ops->file_end(w->partial[i], h->fctx[i], f);
	h->ended = true;
	free(h->fctx);
	h->fctx = NULL;
	seqset_free(&h->seqs);
	free(h->bounds);
	h->bounds = NULL;
}

/* A file written to between its stages (a program still running): what
 * its first stage learnt of it may not hold for its events — said once,
 * the read goes on. */
static void changed(struct worker *w, const struct pw_file *f)
{
	if (w->run->o->quiet)
		return;
	char *p = sanitize(f->path);
	pthread_mutex_lock(&w->run->msg_lock);
	fprintf(stderr,
	        "%s: written to while it was read (between the reader's passes): findings that need "
	        "every file's IPC exports and frees may be incomplete; read it again once its program "
	        "has ended\n",
	        p);
	pthread_mutex_unlock(&w->run->msg_lock);
	free(p);
}

/* The second stage of a file: its event phase, with what its first kept. */
static void read_held(struct worker *w, struct pw_file *f)
{
	struct run *r = w->run;
	struct held *h = &r->held[f->index];
	if (!h->ok)
		return;
	int fd = open_trace(f->path);
	if (fd < 0) {
		bad_file(w, f, PW_READ_BAD_INPUT, "cannot open again: %s", strerror(errno));
		held_end(w, f, h);
		return;
	}
	memcpy(w->fctx, h->fctx, r->nsinks * sizeof *w->fctx);
	seqset_free(&w->seqs);
	w->seqs = h->seqs;
	seqset_init(&h->seqs);
	w->devices_early = true;
	struct stat st;
	bool stat_ok = !fstat(fd, &st);
	if (stat_ok && (st.st_size != h->st.st_size || st.st_mtim.tv_sec != h->st.st_mtim.tv_sec ||
	                st.st_mtim.tv_nsec != h->st.st_mtim.tv_nsec))
		changed(w, f);
	if (h->bounds && stat_ok) {
		read_piped(w, f, fd, h->body, h->no, st.st_size, PH_MAIN, PH_MAIN, h);
	} else {
		lseek(fd, h->body, SEEK_SET);
		lines_open(&w->lines, fd, h->body);
		w->lines.lineno = h->no;
		read_body(w, f, -1, PH_MAIN);
		phase_done(w, f, PH_MAIN);
	}
	close(fd);
	report_tail_msgs(r, f);
	held_end(w, f, h);
}

/* Between the stages of a staged run: the last worker to arrive tells the
 * sinks that every pre-phase is over and starts the second stage.  False
 * when the run is not staged or the second stage is over. */
static bool next_stage(struct worker *w)
{
	struct run *r = w->run;
	if (!r->staged)
		return false;
	pthread_mutex_lock(&r->pipe_lock);
	if (r->stage == 2) {
		pthread_mutex_unlock(&r->pipe_lock);
		return false;
	}
	if (++r->arrived == r->running) {
		void **parts = xcalloc((size_t)r->nall + 1, sizeof *parts);
		for (size_t i = 0; i < r->nsinks; i++) {
			if (!r->sinks[i].ops->pre_all_done)
				continue;
			for (int k = 0; k < r->nall; k++)
				parts[k] = r->all[k].partial[i];
			r->sinks[i].ops->pre_all_done(r->sinks[i].report, parts, (size_t)r->nall, r->in);
		}
		free(parts);
		r->stage = 2;
		atomic_store(&r->next, 0);
		r->readers = r->running;
		pthread_cond_broadcast(&r->pipe_cond);
	} else {
		while (r->stage == 1)
			pthread_cond_wait(&r->pipe_cond, &r->pipe_lock);
	}
	pthread_mutex_unlock(&r->pipe_lock);
	return true;
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
	lines_until(&w->lines, c->end);
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
	do {
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
			if ((!it->chunk || it->chunk->end < 0) && (!r->staged || r->stage == 2))
				atomic_fetch_add(&r->files_done, 1);
		}
		help_pipes(w);
	} while (next_stage(w));
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
		chunkable &= !ops->file_begin && !ops->pre_keys && !ops->file_end && !ops->nesting;
	}
	/* a file read whole is read once per phase */
	uint64_t phases = 1 + (uint64_t)r->any_pre + (uint64_t)(r->nesting && !r->scan_in_pre);
	for (size_t i = 0; i < r->in->n; i++) {
		struct stat st;
		bool sized = !stat(r->in->files[i].path, &st) && st.st_size > 0;
		if (chunkable && sized && st.st_size >= 2 * CHUNK_MIN) {
			split(r, w0, &r->in->files[i], st.st_size, workers);
			r->total_bytes += (uint64_t)st.st_size;
		} else {
			add_item(r, i, NULL);
			r->total_bytes += sized ? (uint64_t)st.st_size * phases : 0;
			r->any_big |= sized && st.st_size >= PIPE_MIN;
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
	vec_init(&w->stack, sizeof(uint64_t));
	seqset_init(&w->seqs);
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
	vec_free(&w->stack);
	seqset_free(&w->seqs);
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
	pthread_mutex_init(&r.pipe_lock, NULL);
	pthread_cond_init(&r.pipe_cond, NULL);
	if (nsinks > 64) { /* a batch's mask of the sinks that want a line */
		fprintf(stderr, "peerwatch-analyze: more than 64 sinks\n");
		exit(2);
	}
	vec_init(&r.items, sizeof(struct item));
	r.chunks = xcalloc(in->n + 1, sizeof *r.chunks);
	for (size_t i = 0; i < in->n; i++)
		vec_init(&r.chunks[i], sizeof(struct chunk *));
	r.pre_keys = xmalloc(sizeof *r.pre_keys);
	needles_init(r.pre_keys);
	bool pre_nesting = false;
	for (size_t i = 0; i < nsinks; i++) {
		for (const char *const *k = sinks[i].ops->pre_keys; k && *k; k++)
			needles_add(r.pre_keys, *k, 1ull << i);
		r.any_pre |= sinks[i].ops->pre_keys != NULL;
		r.nesting |= sinks[i].ops->nesting;
		pre_nesting |= sinks[i].ops->pre_nesting;
		r.staged |= sinks[i].ops->pre_all_done != NULL;
	}
	op_table(&r, sinks, nsinks);
	r.stage = 1;
	r.held = xcalloc(in->n + 1, sizeof *r.held);
	r.scan_in_pre = r.nesting && r.any_pre && !pre_nesting;
	int n = job_count(o);
	struct worker *w = xcalloc((size_t)n, sizeof *w);
	for (int i = 0; i < n; i++)
		worker_init(&w[i], &r);
	r.w0 = &w[0];
	r.all = w;
	r.nall = n;
	r.pipes_ok = n > 1;
	r.window = (size_t)n + 2;
	plan(&r, &w[0], n);
	if ((size_t)n > r.items.len && !r.any_big)
		n = r.items.len ? (int)r.items.len : 1; /* idle workers only merge empty partials */
	r.readers = r.running = n;
	struct progress p;
	if (o->progress)
		progress_start(&p, &r);
	/* worker 0 is this thread: -j 1 starts no thread at all */
	for (int i = 1; i < n; i++)
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			w[i].thread = 0;
			pthread_mutex_lock(&r.pipe_lock); /* one reader fewer */
			r.readers--;
			r.running--;
			pthread_mutex_unlock(&r.pipe_lock);
		}
	worker_main(&w[0]);
	for (int i = 1; i < n; i++)
		if (w[i].thread)
			pthread_join(w[i].thread, NULL);
	if (o->progress)
		progress_stop(&p);
	for (size_t i = 0; i < in->n; i++) /* a stop between a file's stages */
		if (r.held[i].ok && !r.held[i].ended)
			held_end(&w[0], &in->files[i], &r.held[i]);
	free(r.held);
	for (size_t i = 0; i < in->n; i++)
		merge_chunks(&r, &in->files[i], &r.chunks[i]);
	for (int i = 0, all = job_count(o); i < all; i++)
		worker_finish(&w[i]);
	free(w);
	pw_parse_thread_done();
	free(r.chunks);
	free(r.pre_keys);
	free(r.other_keys);
	hmap_free(&r.op_kind, NULL);
	vec_free(&r.items);
	pthread_mutex_destroy(&r.msg_lock);
	pthread_mutex_destroy(&r.pipe_lock);
	pthread_cond_destroy(&r.pipe_cond);
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

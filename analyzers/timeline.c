/*
 * timeline -o FILE: the traces as Chrome trace event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open.  A track (pid) per process,
 * one per thread (tid) inside it; every call a complete event ("X") with
 * its arguments (a copy's bytes and devices among them), every violation
 * an instant event ("i") at the time of its call.
 *
 * Times are microseconds from the earliest event of the process's host
 * (monotonic clocks of different hosts are not comparable).  That origin is
 * known only once every file was read, so the traces are read twice: the
 * first read checks every line and finds the origins, the second writes.
 * Workers write to the file in blocks under a lock; the order of events in
 * the file does not matter to the viewers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

#define FLUSH_AT (64u << 10)

struct timeline {
	FILE *out;
	pthread_mutex_t lock;
	const int64_t *origin; /* per file */
	const int64_t *tpid;   /* per file: the pid in the output */
	uint64_t slices, instants, threads;
	bool write_error;
};

struct tl_partial {
	struct timeline *t;
	char *buf;
	size_t len, cap;
	uint64_t slices, instants, threads;
};

struct tl_viol {
	uint64_t call;
	char *rule, *severity, *message;
	bool placed;
	size_t next; /* index+1 of the next violation of the same call, 0: none */
};

struct tl_fctx {
	struct vec viols;  /* struct tl_viol, from the pre-phase */
	struct hmap calls; /* call seq -> index+1 of its latest violation */
	struct hmap tids;  /* tids seen */
};

/* ---- a growable output block ---- */

static void put(struct tl_partial *p, const char *s, size_t n)
{
	if (p->len + n > p->cap) {
		while (p->len + n > p->cap)
			p->cap = p->cap ? p->cap * 2 : FLUSH_AT * 2;
		p->buf = xrealloc(p->buf, p->cap);
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
}

static void putf(struct tl_partial *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct tl_partial *p, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		put(p, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	put(p, big, (size_t)n);
	free(big);
}

/* A JSON string: the input is valid UTF-8 (jansson checked it). */
static void put_str(struct tl_partial *p, const char *s)
{
	put(p, "\"", 1);
	for (const char *run = s;; s++) {
		unsigned char c = (unsigned char)*s;
		if (c && c != '"' && c != '\\' && c >= 0x20)
			continue;
		put(p, run, (size_t)(s - run));
		if (!c)
			break;
		if (c == '"' || c == '\\')
			putf(p, "\\%c", c);
		else
			putf(p, "\\u%04x", c);
		run = s + 1;
	}
	put(p, "\"", 1);
}

static void flush(struct tl_partial *p, bool force)
{
	if (!p->len || (!force && p->len < FLUSH_AT))
		return;
	pthread_mutex_lock(&p->t->lock);
	if (fwrite(p->buf, 1, p->len, p->t->out) != p->len)
		p->t->write_error = true;
	pthread_mutex_unlock(&p->t->lock);
	p->len = 0;
}

/* Microseconds from the host's origin, ns precision. */
static void put_ts(struct tl_partial *p, const char *key, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	putf(p, ",\"%s\":%lld.%03lld", key, (long long)(ns / 1000), (long long)(ns % 1000));
}

/* ---- the sink ---- */

static void *tl_partial_new(void *report)
{
	struct tl_partial *p = xcalloc(1, sizeof *p);
	p->t = report;
	return p;
}

static void tl_partial_merge(void *report, void *partial)
{
	struct timeline *t = report;
	struct tl_partial *p = partial;
	flush(p, true);
	t->slices += p->slices;
	t->instants += p->instants;
	t->threads += p->threads;
	free(p->buf);
	free(p);
}

static void *tl_file_begin(void *partial, const struct pw_file *f)
{
	struct tl_partial *p = partial;
	struct tl_fctx *c = xcalloc(1, sizeof *c);
	vec_init(&c->viols, sizeof(struct tl_viol));
	hmap_init(&c->calls);
	hmap_init(&c->tids);
	char *name = xasprintf("%s[%lld] on %s", pw_file_program(f), (long long)f->pid, f->host);
	putf(p, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%lld,\"args\":{\"name\":",
	     (long long)p->t->tpid[f->index]);
	put_str(p, name);
	putf(p, "}}");
	free(name);
	return c;
}

static bool tl_pre_filter(const char *line, size_t len)
{
	return memmem(line, len, "\"violation\"", 11) != NULL;
}

static void tl_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct tl_fctx *c = fctx;
	if (ev->type != PW_EV_VIOLATION || ev->has_time)
		return; /* one with its own time is placed as it comes */
	struct tl_viol *v = vec_push(&c->viols);
	void **head = hmap_put_u64(&c->calls, ev->call);
	v->next = (size_t)(uintptr_t)*head;
	*head = (void *)(uintptr_t)c->viols.len;
	v->call = ev->call;
	v->rule = xstrdup(ev->rule);
	v->severity = xstrdup(ev->severity);
	v->message = xstrdup(ev->message);
}

static void put_instant(struct tl_partial *p, const struct pw_file *f, const struct tl_viol *v, int64_t ts,
                        int64_t tid)
{
	put(p, ",\n{\"name\":", 10);
	put_str(p, v->rule);
	putf(p, ",\"cat\":\"violation\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%lld,\"tid\":%lld",
	     (long long)p->t->tpid[f->index], (long long)tid);
	put_ts(p, "ts", ts - p->t->origin[f->index]);
	put(p, ",\"args\":{\"severity\":", 20);
	put_str(p, v->severity);
	put(p, ",\"message\":", 11);
	put_str(p, v->message);
	putf(p, ",\"call\":%llu}}", (unsigned long long)v->call);
	p->instants++;
}

static void violations_at(struct tl_partial *p, struct tl_fctx *c, const struct pw_file *f,
                          const struct pw_event *ev)
{
	for (size_t i = (size_t)(uintptr_t)hmap_get_u64(&c->calls, ev->seq); i;) {
		struct tl_viol *v = vec_at(&c->viols, i - 1);
		if (!v->placed)
			put_instant(p, f, v, ev->t_ns + ev->dur_ns, ev->tid);
		v->placed = true;
		i = v->next;
	}
}

static void tl_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct tl_partial *p = partial;
	struct tl_fctx *c = fctx;
	if (ev->type == PW_EV_VIOLATION && ev->has_time) {
		struct tl_viol v = {.call = ev->call,
		                    .rule = (char *)ev->rule,
		                    .severity = (char *)ev->severity,
		                    .message = (char *)ev->message};
		put_instant(p, f, &v, ev->t_ns, ev->tid);
	}
	if (ev->type != PW_EV_CALL)
		return;
	*hmap_put_u64(&c->tids, (uint64_t)ev->tid) = (void *)1;
	put(p, ",\n{\"name\":", 10);
	char *name = xasprintf("%s%s", ev->api, ev->variant);
	put_str(p, name);
	free(name);
	put(p, ",\"cat\":", 7);
	put_str(p, ev->family);
	putf(p, ",\"ph\":\"X\",\"pid\":%lld,\"tid\":%lld", (long long)p->t->tpid[f->index],
	     (long long)ev->tid);
	put_ts(p, "ts", ev->t_ns - p->t->origin[f->index]);
	put_ts(p, "dur", ev->dur_ns);
	/* the vendor (the reader lets only cuda, hip and acl through), the layer, nesting */
	putf(p, ",\"args\":{\"seq\":%llu,\"vendor\":\"%s\"", (unsigned long long)ev->seq, ev->vendor);
	if (ev->layer) {
		put(p, ",\"layer\":", 9);
		put_str(p, ev->layer);
	}
	if (ev->has_parent)
		putf(p, ",\"parent\":%llu", (unsigned long long)ev->parent);
	if (ev->implicit)
		put(p, ",\"implicit\":true", 16);
	put(p, ",\"ret\":", 7);
	if (ev->ret_name)
		put_str(p, ev->ret_name);
	else
		putf(p, "%lld", (long long)ev->ret);
	/* the call's own arguments beside seq and ret: "{...}" without its brace */
	char *args =
	    json_object_size(ev->args) ? json_dumps(ev->args, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (args) {
		put(p, ",", 1);
		put(p, args + 1, strlen(args + 1));
		free(args);
	} else {
		put(p, "}", 1);
	}
	put(p, "}", 1);
	p->slices++;
	if (c->viols.len)
		violations_at(p, c, f, ev);
	flush(p, false);
}

static void tl_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct tl_partial *p = partial;
	struct tl_fctx *c = fctx;
	for (size_t i = 0; i < c->tids.cap; i++) {
		if (!c->tids.slots[i].key)
			continue;
		int64_t tid = (int64_t) * (uint64_t *)c->tids.slots[i].key;
		putf(
		    p,
		    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
		    (long long)p->t->tpid[f->index], (long long)tid);
		char *n = tid == f->pid ? xstrdup("main") : xasprintf("thread %lld", (long long)tid);
		put_str(p, n);
		free(n);
		put(p, "}}", 2);
		p->threads++;
	}
	/* a violation whose call is not in the trace: at the trace's start */
	for (size_t i = 0; i < c->viols.len; i++) {
		struct tl_viol *v = vec_at(&c->viols, i);
		if (!v->placed)
			put_instant(p, f, v, f->any_t ? f->first_t_ns : p->t->origin[f->index], f->pid);
		free(v->rule);
		free(v->severity);
		free(v->message);
	}
	vec_free(&c->viols);
	hmap_free(&c->calls, NULL);
	hmap_free(&c->tids, NULL);
	free(c);
	flush(p, false);
}

static const struct pw_sink_ops timeline_ops = {
    .partial_new = tl_partial_new,
    .partial_merge = tl_partial_merge,
    .file_begin = tl_file_begin,
    .pre_filter = tl_pre_filter,
    .pre_event = tl_pre_event,
    .event = tl_event,
    .file_end = tl_file_end,
};

/* Output pids: the real pid, unless two traces share it (an exec, another
 * host); then 1000000000 + the file's index. */
static int64_t *track_pids(const struct pw_input *in)
{
	int64_t *tp = xcalloc(in->n + 1, sizeof *tp);
	struct hmap seen;
	hmap_init(&seen);
	size_t *order = file_order(in);
	for (size_t k = 0; k < in->n; k++) {
		const struct pw_file *f = &in->files[order[k]];
		void **s = hmap_put_u64(&seen, (uint64_t)f->pid);
		tp[f->index] = *s ? 1000000000 + (int64_t)f->index : f->pid;
		*s = (void *)1;
	}
	free(order);
	hmap_free(&seen, NULL);
	return tp;
}

static int write_timeline(const struct pw_opts *o, struct pw_input *in, struct timeline *t)
{
	t->out = fopen(o->output, "w");
	if (!t->out) {
		fprintf(stderr, "peerwatch-analyze: %s: %s\n", o->output, strerror(errno));
		return PW_READ_FATAL;
	}
	fprintf(t->out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"peerwatch-analyze\"},"
	                "\n\"traceEvents\":[\n{\"name\":\"peerwatch\",\"ph\":\"M\",\"pid\":0,\"args\":{}}");
	struct pw_sink sink = {&timeline_ops, t};
	struct pw_read_opts ro = {.jobs = o->jobs, .quiet = true};
	int st = pw_input_read(in, &ro, &sink, 1);
	fprintf(t->out, "\n]}\n");
	if (fclose(t->out) || t->write_error) {
		fprintf(stderr, "peerwatch-analyze: %s: write error\n", o->output);
		return PW_READ_FATAL;
	}
	return st;
}

static void report(const struct pw_opts *o, const struct pw_input *in, const struct timeline *t)
{
	size_t procs = 0;
	for (size_t i = 0; i < in->n; i++)
		procs += in->files[i].header_ok;
	if (!o->json) {
		char *out = sanitize(o->output);
		printf("wrote %s: %zu processes, %llu threads, %llu calls, %llu violations\n"
		       "open it in https://ui.perfetto.dev or chrome://tracing\n",
		       out, procs, (unsigned long long)t->threads, (unsigned long long)t->slices,
		       (unsigned long long)t->instants);
		free(out);
		return;
	}
	json_t *doc = json_object();
	json_object_set_new(doc, "output", json_text(o->output));
	json_object_set_new(doc, "processes", json_integer((json_int_t)procs));
	json_object_set_new(doc, "threads", json_u64(t->threads));
	json_object_set_new(doc, "calls", json_u64(t->slices));
	json_object_set_new(doc, "violations", json_u64(t->instants));
	json_print(doc);
}

int cmd_timeline(const struct pw_opts *o)
{
	struct pw_input in = {0};
	/* The first read only checks the lines and finds each file's times. */
	struct pw_sink check = {&pw_sink_validate_only, NULL};
	int st = an_read(o, &in, &check, 1);
	if (st == PW_READ_FATAL || !in.n) {
		pw_input_free(&in);
		return an_exit(st);
	}
	struct timeline t = {0};
	pthread_mutex_init(&t.lock, NULL);
	int64_t *origin = host_origins(&in), *tpid = track_pids(&in);
	t.origin = origin;
	t.tpid = tpid;
	int wst = write_timeline(o, &in, &t);
	if (wst != PW_READ_FATAL)
		report(o, &in, &t);
	pthread_mutex_destroy(&t.lock);
	free(origin);
	free(tpid);
	pw_input_free(&in);
	return an_exit(wst > st ? wst : st);
}

/*
 * timeline -o FILE: the traces as Chrome trace event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open.  A track (pid) per process,
 * one per thread (tid) inside it; every call a complete event ("X") with
 * its arguments (a copy's bytes and devices among them), every violation
 * an instant event ("i") at its own time (a finding about a call is made
 * just before the call), or at the end of its call when it has none.
 * The unified-memory counters' events (um_counters=1) have tracks of their
 * own beside the threads: one per processor for its page faults (instant
 * events: "um faults: GPU 0", "um faults: CPU"), one per direction for
 * migrations (complete events from t_ns to end_ns: "um migrations: CPU ->
 * GPU 0"), and one for the driver's other decisions (thrashing,
 * throttling, remote maps: "um driver").  Their ids are past any thread's
 * (UM_TID), and they sort after the threads.
 *
 * Times are microseconds from the earliest event of the process's host
 * (monotonic clocks of different hosts are not comparable).  That origin is
 * known only once every file was read, so the traces are read twice: the
 * first read checks every line and finds the origins, the second writes.
 *
 * The file is the same whatever the number of workers: each worker writes
 * the events of the files it reads to a temporary file of its own, a trace's
 * events in one stretch, and the stretches are copied into FILE in the order
 * of the processes (by host, start time, pid, path) at the end.  Within a
 * trace, events keep the order of its lines, and its threads are named in
 * the order of their ids.  FILE is written beside its final name and renamed
 * when complete; it may not be one of the traces read.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/show.h"
#include "cmds/cmds.h"
#include "model/devices.h"
#include "model/procs.h"
#include "read/files.h"
#include "read/json.h"
#include "read/reader.h"

#define FLUSH_AT (64u << 10)
/* The tracks of um events: ids no thread has (Linux's are below 2^22). */
#define UM_TID (1ll << 30)

/* One trace's stretch of a worker's temporary file. */
struct segment {
	FILE *from;
	off_t off, len;
};

struct timeline {
	pthread_mutex_t lock;
	const int64_t *origin;      /* per file */
	const int64_t *tpid;        /* per file: the pid in the output */
	const struct pw_devmap *dm; /* the devices, from the first read */
	struct segment *segs;       /* per file */
	struct vec tmps;            /* FILE *: the workers' temporary files */
	uint64_t slices, instants, threads, ums;
	bool write_error;
};

struct tl_partial {
	struct timeline *t;
	FILE *tmp; /* NULL until the worker reads a file */
	char *buf;
	size_t len, cap;
	uint64_t slices, instants, threads, ums;
};

struct tl_viol {
	uint64_t call;
	bool has_call;
	char *rule, *severity, *message;
	bool placed;
	size_t next; /* index+1 of the next violation of the same call, 0: none */
};

struct tl_fctx {
	struct vec viols;  /* struct tl_viol, from the pre-phase */
	struct hmap calls; /* call seq -> index+1 of its latest violation */
	struct hmap tids;  /* tids seen */
	struct hmap um;    /* um track id -> its name */
	off_t start;       /* where this trace's stretch begins in the worker's file */
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

/* A value of a trace's line, as the trace wrote it (an integer beyond
 * 2^63-1 too, which jansson cannot print). */
static void put_json(struct tl_partial *p, json_t *v)
{
	uint64_t u;
	size_t i;
	const char *k;
	json_t *e;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		put(p, "{", 1);
		i = 0;
		json_object_foreach(v, k, e)
		{
			if (i++)
				put(p, ",", 1);
			put_str(p, k);
			put(p, ":", 1);
			put_json(p, e);
		}
		put(p, "}", 1);
		break;
	case JSON_ARRAY:
		put(p, "[", 1);
		json_array_foreach(v, i, e)
		{
			if (i)
				put(p, ",", 1);
			put_json(p, e);
		}
		put(p, "]", 1);
		break;
	case JSON_STRING: put_str(p, json_string_value(v)); break;
	case JSON_INTEGER: putf(p, "%lld", (long long)json_integer_value(v)); break;
	case JSON_REAL:
		if (pw_json_is_big(v) && pw_json_u64(v, &u)) {
			putf(p, "%llu", (unsigned long long)u);
		} else {
			char *r = json_dumps(v, JSON_ENCODE_ANY);
			if (r)
				put(p, r, strlen(r));
			free(r);
		}
		break;
	case JSON_TRUE: put(p, "true", 4); break;
	case JSON_FALSE: put(p, "false", 5); break;
	case JSON_NULL: put(p, "null", 4); break;
	}
}

static void flush(struct tl_partial *p, bool force)
{
	if (!p->len || (!force && p->len < FLUSH_AT))
		return;
	if (!p->tmp || fwrite(p->buf, 1, p->len, p->tmp) != p->len) {
		pthread_mutex_lock(&p->t->lock);
		p->t->write_error = true;
		pthread_mutex_unlock(&p->t->lock);
	}
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
	if (p->tmp)
		*(FILE **)vec_push(&t->tmps) = p->tmp;
	t->slices += p->slices;
	t->instants += p->instants;
	t->threads += p->threads;
	t->ums += p->ums;
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
	hmap_init(&c->um);
	if (!p->tmp && !(p->tmp = tmpfile())) {
		pthread_mutex_lock(&p->t->lock);
		p->t->write_error = true;
		pthread_mutex_unlock(&p->t->lock);
	}
	flush(p, true);
	c->start = p->tmp ? ftello(p->tmp) : 0;
	char *name = xasprintf("%s[%lld] on %s", pw_file_program(f), (long long)f->pid, f->host);
	putf(p, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%lld,\"args\":{\"name\":",
	     (long long)p->t->tpid[f->index]);
	put_str(p, name);
	putf(p, "}}");
	free(name);
	return c;
}

static const char *const pre_keys[] = {"\"violation\"", NULL};

static void tl_pre_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	(void)partial;
	(void)f;
	struct tl_fctx *c = fctx;
	if (ev->type != PW_EV_VIOLATION || ev->has_time)
		return; /* one with its own time is placed as it comes */
	struct tl_viol *v = vec_push(&c->viols);
	if (ev->has_call) {
		void **head = hmap_put_u64(&c->calls, ev->call);
		v->next = (size_t)(uintptr_t)*head;
		*head = (void *)(uintptr_t)c->viols.len;
	}
	v->call = ev->call;
	v->has_call = ev->has_call;
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
	if (v->has_call)
		putf(p, ",\"call\":%llu}}", (unsigned long long)v->call);
	else
		putf(p, ",\"call\":null}}");
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

/* Beside each device the call names by ordinal, the physical device its
 * trace says that is: "dst_dev_gpu": "GPU1 0000:20:00.0". */
static void gpu_arg(struct tl_partial *p, const struct pw_file *f, const struct pw_event *ev, const char *key,
                    int64_t ordinal)
{
	int64_t k = pw_devkey(p->t->dm, f->index, ev->vendor, ordinal);
	const struct pw_phys *ph = pw_devkey_phys(p->t->dm, k);
	if (!ph)
		return;
	char label[24], *text, *name = xasprintf("%s_gpu", key);
	pw_devkey_fmt(p->t->dm, k, label, sizeof label);
	text = xasprintf("%s %s", label, ph->bus_id ? ph->bus_id : ph->uuid);
	put(p, ",", 1);
	put_str(p, name);
	put(p, ":", 1);
	put_str(p, text);
	free(text);
	free(name);
}

static bool dev_key(const char *k)
{
	size_t n = strlen(k);
	return !strcmp(k, "dev") || !strcmp(k, "device") || (n > 4 && !strcmp(k + n - 4, "_dev"));
}

static void gpu_args(struct tl_partial *p, const struct pw_file *f, const struct pw_event *ev)
{
	const char *key;
	json_t *v;
	if (!p->t->dm || !p->t->dm->phys.len)
		return;
	if (ev->cur_dev >= 0)
		gpu_arg(p, f, ev, "cur_dev", ev->cur_dev);
	json_object_foreach(pw_ev_args(ev), key, v) if (dev_key(key) && json_is_integer(v))
	    gpu_arg(p, f, ev, key, json_integer_value(v));
}

/* "CPU", "GPU 1", "?" */
static void um_proc(char *buf, size_t len, bool has, int32_t proc)
{
	if (!has)
		snprintf(buf, len, "?");
	else if (proc == PW_UM_CPU)
		snprintf(buf, len, "CPU");
	else
		snprintf(buf, len, "GPU %d", proc);
}

/* The track of a um event, named on first use. */
static int64_t um_track(struct tl_fctx *c, const struct pw_um *u)
{
	char a[24], b[24];
	int64_t tid;
	char *name;
	int32_t src = u->has_src ? u->src : -2, dst = u->has_dst ? u->dst : -2;
	switch (u->kind) {
	case PW_UM_CPU_FAULT:
	case PW_UM_GPU_FAULT:
		um_proc(a, sizeof a, u->kind == PW_UM_CPU_FAULT || u->has_proc,
		        u->kind == PW_UM_CPU_FAULT ? PW_UM_CPU : u->proc);
		tid = UM_TID + 2 + (u->kind == PW_UM_CPU_FAULT ? -1 : u->has_proc ? u->proc : -2);
		name = xasprintf("um faults: %s", a);
		break;
	case PW_UM_HTOD:
	case PW_UM_DTOH:
	case PW_UM_DTOD:
		um_proc(a, sizeof a, u->has_src, u->src);
		um_proc(b, sizeof b, u->has_dst, u->dst);
		tid = UM_TID + (1ll << 20) + ((int64_t)src + 2) * 65536 + ((int64_t)dst + 2);
		name = xasprintf("um migrations: %s -> %s", a, b);
		break;
	default:
		tid = UM_TID;
		name = xstrdup("um driver");
		break;
	}
	char **slot = (char **)hmap_put_u64(&c->um, (uint64_t)tid);
	if (*slot)
		free(name);
	else
		*slot = name;
	return tid;
}

static void um_event(struct tl_partial *p, struct tl_fctx *c, const struct pw_file *f,
                     const struct pw_event *ev)
{
	const struct pw_um *u = &ev->um;
	int64_t tid = um_track(c, u);
	bool slice = u->kind == PW_UM_HTOD || u->kind == PW_UM_DTOH || u->kind == PW_UM_DTOD ||
	             (u->kind == PW_UM_THROTTLING && u->has_end);
	putf(p, ",\n{\"name\":\"%s\",\"cat\":\"um\",\"ph\":\"%s\",\"pid\":%lld,\"tid\":%lld",
	     pw_um_kind_name(u->kind), slice ? "X" : "i\",\"s\":\"t", (long long)p->t->tpid[f->index],
	     (long long)tid);
	put_ts(p, "ts", ev->t_ns - p->t->origin[f->index]);
	if (slice)
		put_ts(p, "dur", u->end_ns - ev->t_ns);
	putf(p, ",\"args\":{\"addr\":\"0x%llx\"", (unsigned long long)u->addr);
	if (u->has_bytes)
		putf(p, ",\"bytes\":%llu", (unsigned long long)u->bytes);
	if (u->has_groups)
		putf(p, ",\"groups\":%llu", (unsigned long long)u->groups);
	if (u->cause)
		putf(p, ",\"cause\":\"%s\"", pw_um_cause_name(u->cause));
	if (u->access)
		putf(p, ",\"access\":\"%s\"", pw_um_access_name(u->access));
	if (u->kind == PW_UM_GPU_FAULT && u->has_end)
		put_ts(p, "replay_us", u->end_ns - ev->t_ns);
	put(p, "}}", 2);
	p->ums++;
	flush(p, false);
}

static void tl_event(void *partial, void *fctx, const struct pw_file *f, const struct pw_event *ev)
{
	struct tl_partial *p = partial;
	struct tl_fctx *c = fctx;
	if (ev->type == PW_EV_UM) {
		um_event(p, c, f, ev);
		return;
	}
	if (ev->type == PW_EV_VIOLATION && ev->has_time) {
		struct tl_viol v = {.call = ev->call,
		                    .has_call = ev->has_call,
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
	if (ev->parent_time) /* its slice is its parent's: it was not timed on its own */
		put(p, ",\"parent_time\":true", 19);
	if (ev->implicit)
		put(p, ",\"implicit\":true", 16);
	put(p, ",\"ret\":", 7);
	if (ev->ret_name)
		put_str(p, ev->ret_name);
	else
		putf(p, "%lld", (long long)ev->ret);
	/* the call's own arguments beside seq and ret, as in the trace */
	const char *key;
	json_t *v;
	json_object_foreach(pw_ev_args(ev), key, v)
	{
		put(p, ",", 1);
		put_str(p, key);
		put(p, ":", 1);
		put_json(p, v);
	}
	gpu_args(p, f, ev);
	put(p, "}}", 2);
	p->slices++;
	if (c->viols.len)
		violations_at(p, c, f, ev);
	flush(p, false);
}

static int by_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void tl_file_end(void *partial, void *fctx, const struct pw_file *f)
{
	struct tl_partial *p = partial;
	struct tl_fctx *c = fctx;
	int64_t *tids = xcalloc(c->tids.len + 1, sizeof *tids);
	size_t n = 0;
	for (size_t i = 0; i < c->tids.cap; i++)
		if (c->tids.slots[i].key)
			tids[n++] = (int64_t) * (uint64_t *)c->tids.slots[i].key;
	qsort(tids, n, sizeof *tids, by_i64);
	for (size_t i = 0; i < n; i++) {
		putf(
		    p,
		    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
		    (long long)p->t->tpid[f->index], (long long)tids[i]);
		char *name =
		    tids[i] == f->pid ? xstrdup("main") : xasprintf("thread %lld", (long long)tids[i]);
		put_str(p, name);
		free(name);
		put(p, "}}", 2);
		p->threads++;
	}
	free(tids);
	/* the um tracks, by id (faults, then migrations; the driver's first), after the threads */
	int64_t *um = xcalloc(c->um.len + 1, sizeof *um);
	n = 0;
	for (size_t i = 0; i < c->um.cap; i++)
		if (c->um.slots[i].key)
			um[n++] = (int64_t) * (uint64_t *)c->um.slots[i].key;
	qsort(um, n, sizeof *um, by_i64);
	for (size_t i = 0; i < n; i++) {
		putf(
		    p,
		    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
		    (long long)p->t->tpid[f->index], (long long)um[i]);
		put_str(p, hmap_get_u64(&c->um, (uint64_t)um[i]));
		putf(p,
		     "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,"
		     "\"args\":{\"sort_index\":%zu}}",
		     (long long)p->t->tpid[f->index], (long long)um[i], 1000000 + i);
	}
	free(um);
	hmap_free(&c->um, free);
	/* a violation whose call is not in the trace, with no time of its own: at the trace's start */
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
	flush(p, true);
	if (p->tmp) {
		struct segment *sg = &p->t->segs[f->index];
		sg->from = p->tmp;
		sg->off = c->start;
		sg->len = ftello(p->tmp) - c->start;
	}
	free(c);
}

static const struct pw_sink_ops timeline_ops = {
    .partial_new = tl_partial_new,
    .partial_merge = tl_partial_merge,
    .file_begin = tl_file_begin,
    .pre_keys = pre_keys,
    .pre_by_op = true, /* violations: no call line is one */
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

/* Copies one trace's stretch into out. */
static bool copy_segment(FILE *out, const struct segment *sg)
{
	char buf[64 << 10];
	if (!sg->from || sg->len <= 0)
		return true;
	if (fseeko(sg->from, sg->off, SEEK_SET))
		return false;
	for (off_t left = sg->len; left > 0;) {
		size_t want = left < (off_t)sizeof buf ? (size_t)left : sizeof buf;
		if (fread(buf, 1, want, sg->from) != want || fwrite(buf, 1, want, out) != want)
			return false;
		left -= (off_t)want;
	}
	return true;
}

static int write_timeline(const struct pw_opts *o, struct pw_input *in, struct timeline *t)
{
	struct pw_sink sink = {&timeline_ops, t};
	struct pw_read_opts ro = {.jobs = o->jobs, .quiet = true};
	t->segs = xcalloc(in->n + 1, sizeof *t->segs);
	vec_init(&t->tmps, sizeof(FILE *));
	int st = pw_input_read(in, &ro, &sink, 1);
	/* written beside the final name, renamed when complete: a failed write
	 * leaves whatever was there before ("-": standard output, as it goes) */
	bool to_stdout = !strcmp(o->output, "-");
	char *tmp = to_stdout ? NULL : xasprintf("%s.tmp.%ld", o->output, (long)getpid());
	errno = 0; /* so that the message says what failed, or nothing stale */
	FILE *out = t->write_error ? NULL : to_stdout ? stdout : fopen(tmp, "w");
	bool ok = out != NULL;
	if (out) {
		fprintf(out,
		        "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"peerwatch-analyze\"},"
		        "\n\"traceEvents\":[\n{\"name\":\"peerwatch\",\"ph\":\"M\",\"pid\":0,\"args\":{}}");
		size_t *order = file_order(in);
		for (size_t k = 0; ok && k < in->n; k++)
			ok = copy_segment(out, &t->segs[order[k]]);
		free(order);
		fprintf(out, "\n]}\n");
		ok &= !ferror(out);
		ok &= to_stdout ? !fflush(out) : !fclose(out);
	}
	if (ok && !to_stdout && rename(tmp, o->output))
		ok = false;
	if (!ok) {
		char *p = to_stdout ? xstrdup("standard output") : sanitize(o->output);
		fprintf(stderr, "peerwatch-analyze: %s: cannot write the timeline: %s\n", p,
		        errno ? strerror(errno) : "write error");
		free(p);
		if (!to_stdout)
			unlink(tmp);
	}
	free(tmp);
	for (size_t i = 0; i < t->tmps.len; i++)
		fclose(*(FILE **)vec_at(&t->tmps, i));
	vec_free(&t->tmps);
	free(t->segs);
	return ok ? st : PW_READ_FATAL;
}

static void report(const struct pw_opts *o, const struct pw_input *in, const struct timeline *t)
{
	size_t procs = 0;
	for (size_t i = 0; i < in->n; i++)
		procs += in->files[i].header_ok;
	if (!o->json) {
		/* after a timeline on standard output, on standard error */
		bool to_stdout = !strcmp(o->output, "-");
		char *out = to_stdout ? xstrdup("standard output") : sanitize(o->output);
		char ums[48] = "";
		if (t->ums)
			snprintf(ums, sizeof ums, ", %llu um %s", (unsigned long long)t->ums,
			         plural(t->ums, "event", "events"));
		fprintf(to_stdout ? stderr : stdout,
		        "wrote %s: %zu %s, %llu %s, %llu %s, %llu %s%s\n"
		        "open it in https://ui.perfetto.dev or chrome://tracing\n",
		        out, procs, plural(procs, "process", "processes"), (unsigned long long)t->threads,
		        plural(t->threads, "thread", "threads"), (unsigned long long)t->slices,
		        plural(t->slices, "call", "calls"), (unsigned long long)t->instants,
		        plural(t->instants, "violation", "violations"), ums);
		free(out);
		return;
	}
	json_t *doc = json_object();
	json_object_set_new(doc, "output", json_text(o->output));
	json_object_set_new(doc, "processes", json_integer((json_int_t)procs));
	json_object_set_new(doc, "threads", json_u64(t->threads));
	json_object_set_new(doc, "calls", json_u64(t->slices));
	json_object_set_new(doc, "violations", json_u64(t->instants));
	json_object_set_new(doc, "um_events", json_u64(t->ums));
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
	if (strcmp(o->output, "-") && pw_input_has(&in, o->output)) {
		char *p = sanitize(o->output);
		fprintf(stderr,
		        "peerwatch-analyze: timeline: -o %s is one of the traces read; not overwriting it\n",
		        p);
		free(p);
		pw_input_free(&in);
		return EXIT_BAD;
	}
	int64_t *origin = host_origins(&in), *tpid = track_pids(&in);
	struct pw_devmap map;
	pw_devmap_build(&map, &in);
	t.origin = origin;
	t.tpid = tpid;
	t.dm = &map;
	int wst = write_timeline(o, &in, &t);
	pw_devmap_free(&map);
	if (wst != PW_READ_FATAL)
		report(o, &in, &t);
	pthread_mutex_destroy(&t.lock);
	free(origin);
	free(tpid);
	pw_input_free(&in);
	return an_exit(wst > st ? wst : st);
}

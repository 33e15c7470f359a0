/*
 * What the command files share (analyze.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"

int an_read(const struct pw_opts *o, struct pw_input *in, struct pw_sink *sinks, size_t nsinks)
{
	int found = pw_input_find(in, o->paths, o->npaths);
	if (!in->n)
		return found;
	struct pw_read_opts ro = {.jobs = o->jobs, .strict = o->strict, .progress = o->progress};
	int r = pw_input_read(in, &ro, sinks, nsinks);
	return r > found ? r : found;
}

int an_exit(int read_status)
{
	return read_status == PW_READ_OK ? EXIT_FINE : EXIT_BAD;
}

enum sev sev_rank(const char *name)
{
	if (!strcmp(name, "error"))
		return SEV_ERROR;
	if (!strcmp(name, "warning"))
		return SEV_WARNING;
	if (!strcmp(name, "performance"))
		return SEV_PERFORMANCE;
	return SEV_UNKNOWN;
}

const char *sev_name(enum sev s)
{
	static const char *const n[] = {"unknown", "performance", "warning", "error"};
	return n[s];
}

static bool color_on[2]; /* stdout, stderr */

static bool color_auto(int fd)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(fd) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}

void color_init(enum color_when when)
{
	for (int i = 0; i < 2; i++)
		color_on[i] = when == COLOR_ALWAYS || (when == COLOR_AUTO && color_auto(i + 1));
}

static bool has_color(FILE *f)
{
	return (f == stdout && color_on[0]) || (f == stderr && color_on[1]);
}

const char *paint(FILE *f, enum paint p)
{
	/* SGR: bold red, bold yellow, cyan, bold green, bold, dim */
	static const char *const sgr[] = {"\033[1;31m", "\033[1;33m", "\033[36m",
	                                  "\033[1;32m", "\033[1m",    "\033[2m"};
	return has_color(f) ? sgr[p] : "";
}

const char *paint_end(FILE *f)
{
	return has_color(f) ? "\033[0m" : "";
}

enum paint sev_paint(const char *severity)
{
	return !strcmp(severity, "error")     ? PAINT_ERROR
	       : !strcmp(severity, "warning") ? PAINT_WARNING
	                                      : PAINT_NOTE;
}

static const struct pw_input *rank_in; /* qsort has no context argument */

static int by_start(const void *a, const void *b)
{
	const struct pw_file *x = &rank_in->files[*(const size_t *)a],
	                     *y = &rank_in->files[*(const size_t *)b];
	int h = strcmp(x->host ? x->host : "", y->host ? y->host : "");
	if (h)
		return h;
	if (x->t0_mono_ns != y->t0_mono_ns)
		return x->t0_mono_ns < y->t0_mono_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->path, y->path);
}

size_t *file_order(const struct pw_input *in)
{
	size_t *order = xcalloc(in->n + 1, sizeof *order);
	for (size_t i = 0; i < in->n; i++)
		order[i] = i;
	rank_in = in;
	if (in->n > 1)
		qsort(order, in->n, sizeof *order, by_start);
	return order;
}

size_t *file_ranks(const struct pw_input *in)
{
	size_t *order = file_order(in), *rank = xcalloc(in->n + 1, sizeof *rank);
	for (size_t i = 0; i < in->n; i++)
		rank[order[i]] = i;
	free(order);
	return rank;
}

char *proc_label(const struct pw_file *f)
{
	char *l = xasprintf("%s[%lld]", pw_file_program(f), (long long)f->pid), *safe = sanitize(l);
	free(l);
	return safe;
}

json_t *proc_json(const struct pw_file *f)
{
	json_t *p = json_object();
	json_object_set_new(p, "file", json_text(f->path));
	json_object_set_new(p, "host", f->host ? json_string(f->host) : json_null());
	json_object_set_new(p, "pid", json_integer(f->pid));
	json_object_set_new(p, "program", json_string(pw_file_program(f)));
	json_object_set_new(p, "rank", f->has_rank ? json_integer(f->rank) : json_null());
	return p;
}

int64_t *host_origins(const struct pw_input *in)
{
	int64_t *o = xcalloc(in->n ? in->n : 1, sizeof *o);
	struct hmap hosts;
	hmap_init(&hosts);
	/* the earliest event per host; a file with no event gives its header's t0 */
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		if (!f->header_ok)
			continue;
		int64_t t = f->any_t ? f->first_t_ns : f->t0_mono_ns;
		int64_t **slot = (int64_t **)hmap_put_str(&hosts, f->host);
		if (!*slot) {
			*slot = xmalloc(sizeof **slot);
			**slot = t;
		} else if (t < **slot) {
			**slot = t;
		}
	}
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		int64_t *t = f->header_ok ? hmap_get_str(&hosts, f->host) : NULL;
		o[i] = t ? *t : 0;
	}
	hmap_free(&hosts, free);
	return o;
}

void fmt_rel(char *buf, size_t len, int64_t t_ns, int64_t origin)
{
	char d[32];
	double rel = (double)t_ns - (double)origin;
	fmt_ns(d, sizeof d, rel < 0 ? -rel : rel);
	snprintf(buf, len, "%s%s", rel < 0 ? "-" : "+", d);
}

void json_print(json_t *doc)
{
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(doc);
}

json_t *json_text(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = xstrdup(s);
	for (unsigned char *p = (unsigned char *)copy; *p; p++)
		if (*p > 0x7f)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

json_t *json_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *json_hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
	return json_string(b);
}

json_t *json_dev(int64_t dev)
{
	return dev == PW_DEV_NONE ? json_null() : json_integer(dev);
}

void fmt_dev(char *buf, size_t len, int64_t dev)
{
	if (dev == PW_DEV_NONE)
		snprintf(buf, len, "?");
	else if (dev == -1)
		snprintf(buf, len, "host");
	else
		snprintf(buf, len, "dev%lld", (long long)dev);
}

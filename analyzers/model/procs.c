/*
 * The processes of a run as reports show them (procs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/show.h"
#include "model/procs.h"
#include "read/trace.h"

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

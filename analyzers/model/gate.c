/*
 * The gate's view of the input (check, report): what is wrong with each
 * trace as far as a verdict is concerned.  check.c's comment says what each
 * kind of problem means and which --allow-partial accepts.
 */
#include <stdlib.h>

#include "base/show.h"
#include "model/footer.h"
#include "model/gate.h"
#include "model/procs.h"

static void add(struct vec *ps, size_t file, const char *kind, bool allowed, bool note, char *message)
{
	struct problem *p = vec_push(ps);
	p->file = file;
	p->kind = kind;
	p->allowed = allowed;
	p->note = note;
	p->message = message;
}

/* The events dropped_by says the size limit took. */
static uint64_t size_limit_drops(const struct pw_file *f)
{
	json_t *d = f->dropped_by ? json_loads(f->dropped_by, 0, NULL) : NULL,
	       *n = json_object_get(d, "size_limit");
	uint64_t v = json_is_integer(n) && json_integer_value(n) > 0 ? (uint64_t)json_integer_value(n) : 0;
	json_decref(d);
	return v;
}

/* What is wrong with one trace, as far as the gate is concerned. */
static void verify(const struct pw_file *f, struct vec *ps)
{
	size_t i = f->index;
	if (!f->header_ok) {
		/* an empty .partial: a process killed before it wrote its header */
		if (f->partial)
			add(ps, i, "partial", true, false,
			    xasprintf(
			        "left .partial before its header was written (the process was killed): %s",
			        f->unreadable ? f->unreadable : "no header"));
		else
			add(ps, i, "unreadable", false, false,
			    xasprintf("cannot be read: %s", f->unreadable ? f->unreadable : "no header"));
		return;
	}
	if (f->unreadable)
		add(ps, i, "unreadable", false, false,
		    xasprintf("was not read to its end: %s", f->unreadable));
	if (f->bad_lines)
		add(ps, i, "bad lines", false, false,
		    xasprintf("%llu line%s could not be read (messages above)",
		              (unsigned long long)f->bad_lines, f->bad_lines == 1 ? "" : "s"));
	if (f->partial) {
		add(ps, i, "partial", true, false,
		    xstrdup("left .partial: the process did not finish its trace (it crashed or was killed), "
		            "so its last events and any finding made at exit are missing"));
		return;
	}
	if (!f->footer) {
		add(ps, i, "cut short", true, false,
		    xasprintf("has no footer though it is not .partial: the file was cut short%s",
		              f->tail_cut ? " (its last line is incomplete)" : ""));
		return;
	}
	uint64_t body = f->lines >= 2 ? f->lines - 2 : 0; /* between the header and the footer */
	if ((uint64_t)f->footer_events != body)
		add(ps, i, "events differ", false, false,
		    xasprintf(
		        "the footer counts %lld %s, the file has %llu %s between its header and its footer",
		        (long long)f->footer_events, plural((uint64_t)f->footer_events, "event", "events"),
		        (unsigned long long)body, plural(body, "line", "lines")));
	if (f->footer_violations >= 0 && (uint64_t)f->footer_violations != f->violations)
		add(ps, i, "violations differ", false, false,
		    xasprintf("the footer counts %lld violation %s, the file has %llu",
		              (long long)f->footer_violations,
		              plural((uint64_t)f->footer_violations, "event", "events"),
		              (unsigned long long)f->violations));
	char words[800];
	uint64_t in_flight, lost = an_drops(f, words, sizeof words, &in_flight);
	if (lost > 0 && f->has_limit && lost == size_limit_drops(f))
		add(ps, i, "size limit", true, true,
		    xasprintf("the trace size limit (%lld bytes) stopped recording at seq %lld: %llu %s "
		              "after it %s not in the trace (no finding is lost to the limit, but findings "
		              "derived from calls may be incomplete)",
		              (long long)f->limit_bytes, (long long)f->limit_seq, (unsigned long long)lost,
		              plural(lost, "call", "calls"), plural(lost, "is", "are")));
	else if (lost > 0)
		add(ps, i, "dropped", true, false,
		    xasprintf("%s%s%s", words, f->write_error ? "; write error: " : "",
		              f->write_error ? f->write_error : ""));
	else if (f->write_error)
		add(ps, i, "write error", true, false, xasprintf("writing it failed: %s", f->write_error));
}

void gate_problems(const struct pw_input *in, struct vec *ps)
{
	size_t *order = file_order(in);
	for (size_t k = 0; k < in->n; k++)
		verify(&in->files[order[k]], ps);
	free(order);
}

void gate_problems_free(struct vec *ps)
{
	for (size_t i = 0; i < ps->len; i++)
		free(((struct problem *)vec_at(ps, i))->message);
	vec_free(ps);
}

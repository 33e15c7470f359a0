/*
 * The footer's statements about the trace beyond its counts, as info and
 * summary show them, from what the reader kept of the footer (read/parse.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/show.h"
#include "model/footer.h"
#include "peerwatch/default_suppressions.h"
#include "peerwatch/drop_causes.h"
#include "read/trace.h"

/* A compact JSON text the reader kept, parsed again (it validated it). */
static json_t *parsed(const char *text)
{
	return text ? json_loads(text, 0, NULL) : NULL;
}

void an_footer_read(const struct pw_file *f, struct an_footer *ft)
{
	memset(ft, 0, sizeof *ft);
	if (!f->footer)
		return;
	ft->ok = true;
	ft->repeats = f->repeats > 0 ? (uint64_t)f->repeats : 0;
	ft->repeats_by = parsed(f->repeats_by);
	ft->dropped_by = parsed(f->dropped_by);
	ft->suppressed_default = parsed(f->suppressed_by_default);
	if (ft->dropped_by && !json_object_size(ft->dropped_by)) {
		json_decref(ft->dropped_by);
		ft->dropped_by = NULL;
	}
	ft->limited = f->has_limit;
	ft->limit_bytes = f->limit_bytes;
	ft->limit_seq = f->limit_seq;
	ft->write_error = f->write_error ? xstrdup(f->write_error) : NULL;
	ft->report_error = f->report_error ? xstrdup(f->report_error) : NULL;
}

void an_footer_free(struct an_footer *ft)
{
	json_decref(ft->repeats_by);
	json_decref(ft->dropped_by);
	json_decref(ft->suppressed_default);
	free(ft->write_error);
	free(ft->report_error);
	memset(ft, 0, sizeof *ft);
}

#define AN_DEFAULT_ROW(name, text, library, why) {name, library},
static const struct {
	const char *name, *library;
} default_supps[] = {PW_DEFAULT_SUPPRESSIONS(AN_DEFAULT_ROW)};

const char *an_default_suppression_library(const char *name)
{
	for (size_t i = 0; i < sizeof default_supps / sizeof *default_supps; i++)
		if (!strcmp(default_supps[i].name, name))
			return default_supps[i].library;
	return "a third-party library";
}

const char *an_write_error_words(const char *write_error)
{
	if (!write_error)
		return "";
	if (!strncmp(write_error, "ENOSPC", 6))
		return "disk full";
	if (!strncmp(write_error, "EDQUOT", 6))
		return "disk quota exceeded";
	if (!strncmp(write_error, "EFBIG", 5))
		return "file-size limit reached";
	return "write error";
}

uint64_t an_drops(const struct pw_file *f, char *buf, size_t cap, uint64_t *in_flight)
{
	uint64_t by[PW_DROP_N] = {0}, named = 0, other = 0;
	json_t *d = parsed(f->dropped_by), *v;
	const char *k;
	json_object_foreach(d, k, v)
	{
		uint64_t n =
		    json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
		int c = 0;
		while (c < PW_DROP_N && strcmp(pw_drop_name(c), k))
			c++;
		if (c < PW_DROP_N)
			by[c] += n;
		else
			other += n;
		named += n;
	}
	json_decref(d);
	/* a "dropped" its causes do not account for is lost to the gate */
	if (f->dropped > 0 && (uint64_t)f->dropped > named)
		other += (uint64_t)f->dropped - named;
	*in_flight = by[PW_DROP_IN_FLIGHT];
	if (buf && cap)
		pw_drop_sentence(buf, cap, f->footer_events > 0 ? (uint64_t)f->footer_events : 0, by, other);
	uint64_t lost = other;
	for (int c = 0; c < PW_DROP_N; c++)
		lost += c == PW_DROP_IN_FLIGHT ? 0 : by[c];
	return lost;
}

void an_footer_json(const struct an_footer *ft, json_t *obj)
{
	json_object_set_new(obj, "dropped_by", ft->dropped_by ? json_incref(ft->dropped_by) : json_null());
	json_object_set_new(obj, "repeats", ft->ok ? json_u64(ft->repeats) : json_null());
	json_object_set_new(obj, "repeats_by", ft->repeats_by ? json_incref(ft->repeats_by) : json_null());
	json_object_set_new(obj, "suppressed_default",
	                    ft->suppressed_default ? json_incref(ft->suppressed_default) : json_null());
	json_t *limit = json_null();
	if (ft->limited) {
		limit = json_object();
		json_object_set_new(limit, "bytes", json_integer(ft->limit_bytes));
		json_object_set_new(limit, "seq", json_integer(ft->limit_seq));
	}
	json_object_set_new(obj, "limit", limit);
	json_object_set_new(obj, "write_error", ft->write_error ? json_text(ft->write_error) : json_null());
	json_object_set_new(obj, "report_error",
	                    ft->report_error ? json_text(ft->report_error) : json_null());
}

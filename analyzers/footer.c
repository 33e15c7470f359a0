/*
 * The footer's members the reader does not keep, read again from the file's
 * last line.  The reader has validated that line already (it is the footer);
 * here it is only looked at, and anything unexpected is left out.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "footer.h"

#define FOOTER_MAX (16u << 20) /* a footer lists modules: large, not this large */

/* The file's last line, malloc'd, or NULL. */
static char *last_line(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size < 2) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	size_t size = (size_t)st.st_size, want = 4096;
	char *buf = NULL;
	for (;;) {
		if (want > size)
			want = size;
		char *b = realloc(buf, want);
		if (!b)
			break;
		buf = b;
		if (pread(fd, buf, want, (off_t)(size - want)) != (ssize_t)want)
			break;
		/* the line ends with the file's last byte ('\n'); it starts after
		 * the '\n' before that */
		size_t end = want - (buf[want - 1] == '\n' ? 1 : 0);
		for (size_t i = end; i > 0; i--)
			if (buf[i - 1] == '\n') {
				*len = end - i;
				memmove(buf, buf + i, *len);
				close(fd);
				return buf;
			}
		if (want == size || want >= FOOTER_MAX)
			break;
		want *= 4;
	}
	free(buf);
	close(fd);
	return NULL;
}

static char *str_member(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

void an_footer_read(const struct pw_file *f, struct an_footer *ft)
{
	memset(ft, 0, sizeof *ft);
	if (!f->footer)
		return;
	size_t len = 0;
	char *line = last_line(f->path, &len);
	json_t *j = line ? json_loadb(line, len, 0, NULL) : NULL;
	free(line);
	json_t *type = json_object_get(j, "type");
	if (!json_is_string(type) || strcmp(json_string_value(type), "footer")) {
		json_decref(j);
		return;
	}
	ft->ok = true;
	json_t *v = json_object_get(j, "repeats");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		ft->repeats = (uint64_t)json_integer_value(v);
	v = json_object_get(j, "repeats_by");
	if (json_is_array(v) && json_array_size(v))
		ft->repeats_by = json_incref(v);
	v = json_object_get(j, "dropped_by");
	if (json_is_object(v) && json_object_size(v))
		ft->dropped_by = json_incref(v);
	v = json_object_get(j, "limit");
	if (json_is_object(v)) {
		ft->limited = true;
		json_t *b = json_object_get(v, "bytes"), *s = json_object_get(v, "seq");
		ft->limit_bytes = json_is_integer(b) ? json_integer_value(b) : -1;
		ft->limit_seq = json_is_integer(s) ? json_integer_value(s) : -1;
	}
	ft->write_error = str_member(j, "write_error");
	ft->report_error = str_member(j, "report_error");
	json_decref(j);
}

void an_footer_free(struct an_footer *ft)
{
	json_decref(ft->repeats_by);
	json_decref(ft->dropped_by);
	free(ft->write_error);
	free(ft->report_error);
	memset(ft, 0, sizeof *ft);
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

void an_footer_json(const struct an_footer *ft, json_t *obj)
{
	json_object_set_new(obj, "dropped_by", ft->dropped_by ? json_incref(ft->dropped_by) : json_null());
	json_object_set_new(obj, "repeats", ft->ok ? json_u64(ft->repeats) : json_null());
	json_object_set_new(obj, "repeats_by", ft->repeats_by ? json_incref(ft->repeats_by) : json_null());
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

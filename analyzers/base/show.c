/*
 * Severities, colour, JSON values and relative times (show.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/show.h"
#include "base/util.h"

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

void fmt_rel(char *buf, size_t len, int64_t t_ns, int64_t origin)
{
	char d[32];
	double rel = (double)t_ns - (double)origin;
	fmt_ns(d, sizeof d, rel < 0 ? -rel : rel);
	size_t n = strlen(d); /* no snprintf: a listing has a time a row */
	if (len < 2) {
		if (len)
			buf[0] = 0;
		return;
	}
	if (n > len - 2) /* cut as snprintf would */
		n = len - 2;
	buf[0] = rel < 0 ? '-' : '+';
	memcpy(buf + 1, d, n);
	buf[n + 1] = 0;
}

void json_print(json_t *doc)
{
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(doc);
}

static void jout_indent(int depth)
{
	fputc('\n', stdout);
	for (int i = 0; i < depth; i++)
		fputs("  ", stdout);
}

/* The separator, the line and the key of the next piece. */
static void jout_next(struct jout *o, const char *key)
{
	if (o->depth > 0) {
		if (o->any[o->depth - 1])
			fputc(',', stdout);
		o->any[o->depth - 1] = true;
		jout_indent(o->depth);
	}
	if (key)
		printf("\"%s\": ", key); /* the report's own names: nothing to escape */
}

void jout_open(struct jout *o, const char *key, char bracket)
{
	jout_next(o, key);
	fputc(bracket, stdout);
	if (o->depth == JOUT_DEPTH) {
		fprintf(stderr, "peerwatch-analyze: a JSON report nested deeper than %d\n", JOUT_DEPTH);
		exit(2);
	}
	o->any[o->depth++] = false;
}

void jout_put(struct jout *o, const char *key, json_t *v)
{
	jout_next(o, key);
	char *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(v);
	if (!text) {
		fprintf(stderr, "peerwatch-analyze: out of memory (writing JSON)\n");
		exit(2);
	}
	/* the value's own lines, indented to where it stands */
	for (const char *p = text, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			fputs(p, stdout);
			break;
		}
		fwrite(p, 1, (size_t)(nl - p), stdout);
		jout_indent(o->depth);
	}
	free(text);
}

void jout_close(struct jout *o, char bracket)
{
	if (o->any[--o->depth])
		jout_indent(o->depth);
	fputc(bracket, stdout);
	if (o->depth == 0)
		fputc('\n', stdout);
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

void markup_put(FILE *out, const char *s)
{
	char *safe = sanitize(s ? s : "");
	for (const char *p = safe; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break; /* XML's, and HTML5's */
		default: fputc(*p, out);
		}
	}
	free(safe);
}

/*
 * Aligned text tables (table.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"

size_t text_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80; /* count lead bytes only */
	return n;
}

void table_init(struct table *t, const char *align, ...)
{
	t->ncols = strlen(align);
	t->align = xstrdup(align);
	t->head = xcalloc(t->ncols, sizeof *t->head);
	vec_init(&t->rows, sizeof(char **));
	va_list ap;
	va_start(ap, align);
	for (size_t i = 0; i < t->ncols; i++)
		t->head[i] = xstrdup(va_arg(ap, const char *));
	va_end(ap);
}

void table_initv(struct table *t, const char *align, const char *const *heads)
{
	t->ncols = strlen(align);
	t->align = xstrdup(align);
	t->head = xcalloc(t->ncols, sizeof *t->head);
	vec_init(&t->rows, sizeof(char **));
	for (size_t i = 0; i < t->ncols; i++)
		t->head[i] = xstrdup(heads[i]);
}

void table_rowv(struct table *t, const char *const *cells)
{
	char **row = xcalloc(t->ncols, sizeof *row);
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = sanitize(cells[i] ? cells[i] : "-");
	*(char ***)vec_push(&t->rows) = row;
}

void table_row(struct table *t, ...)
{
	const char **cells = xcalloc(t->ncols, sizeof *cells);
	va_list ap;
	va_start(ap, t);
	for (size_t i = 0; i < t->ncols; i++)
		cells[i] = va_arg(ap, const char *);
	va_end(ap);
	table_rowv(t, cells);
	free(cells);
}

static void print_row(const struct table *t, FILE *out, const char *indent, char *const *cells,
                      const size_t *width)
{
	fputs(indent, out);
	for (size_t i = 0; i < t->ncols; i++) {
		size_t pad = width[i] - text_width(cells[i]);
		bool last = i + 1 == t->ncols;
		if (t->align[i] == 'r')
			fprintf(out, "%*s%s", (int)pad, "", cells[i]);
		else
			fprintf(out, "%s%*s", cells[i], last ? 0 : (int)pad, "");
		fputs(last ? "\n" : "  ", out);
	}
}

void table_print(const struct table *t, FILE *out, const char *indent)
{
	size_t *width = xcalloc(t->ncols, sizeof *width);
	for (size_t i = 0; i < t->ncols; i++)
		width[i] = text_width(t->head[i]);
	for (size_t r = 0; r < t->rows.len; r++) {
		char **row = *(char ***)vec_at(&t->rows, r);
		for (size_t i = 0; i < t->ncols; i++) {
			size_t w = text_width(row[i]);
			if (w > width[i])
				width[i] = w;
		}
	}
	print_row(t, out, indent, t->head, width);
	for (size_t r = 0; r < t->rows.len; r++)
		print_row(t, out, indent, *(char ***)vec_at(&t->rows, r), width);
	free(width);
}

void table_free(struct table *t)
{
	for (size_t r = 0; r < t->rows.len; r++) {
		char **row = *(char ***)vec_at(&t->rows, r);
		for (size_t i = 0; i < t->ncols; i++)
			free(row[i]);
		free(row);
	}
	vec_free(&t->rows);
	for (size_t i = 0; i < t->ncols; i++)
		free(t->head[i]);
	free(t->head);
	free(t->align);
}

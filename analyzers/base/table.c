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

/* A row is put together here and written at once: a listing has a row
 * per IPC call, and a write of each cell and each run of spaces through
 * stdio was most of its printing. */
struct line {
	FILE *out;
	size_t n;
	char buf[4096];
};

static void put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof l->buf - l->n) {
		fwrite(l->buf, 1, l->n, l->out);
		l->n = 0;
		if (n > sizeof l->buf) {
			fwrite(s, 1, n, l->out);
			return;
		}
	}
	memcpy(l->buf + l->n, s, n);
	l->n += n;
}

static void spaces(struct line *l, size_t n)
{
	static const char sp[] = "                                                                ";
	for (size_t k; n; n -= k) {
		k = n < sizeof sp - 1 ? n : sizeof sp - 1;
		put(l, sp, k);
	}
}

/* A row padded to the columns' widths; a cell's own width and length are
 * cw[] and cl[] where given (NULL: measured here). */
static void print_row(size_t ncols, const char *align, FILE *out, const char *indent, char *const *cells,
                      const size_t *width, const size_t *cw, const size_t *cl)
{
	struct line l;
	l.out = out;
	l.n = 0;
	put(&l, indent, strlen(indent));
	for (size_t i = 0; i < ncols; i++) {
		size_t pad = width[i] - (cw ? cw[i] : text_width(cells[i]));
		bool last = i + 1 == ncols;
		if (align[i] == 'r')
			spaces(&l, pad);
		put(&l, cells[i], cl ? cl[i] : strlen(cells[i]));
		if (align[i] != 'r' && !last)
			spaces(&l, pad);
		put(&l, last ? "\n" : "  ", last ? 1 : 2);
	}
	fwrite(l.buf, 1, l.n, out);
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
	print_row(t->ncols, t->align, out, indent, t->head, width, NULL, NULL);
	for (size_t r = 0; r < t->rows.len; r++)
		print_row(t->ncols, t->align, out, indent, *(char ***)vec_at(&t->rows, r), width, NULL, NULL);
	free(width);
}

/* The length of s when sanitize would give it back unchanged (printable
 * ASCII without a backslash; its width too), else -1: one pass, no copy. */
static ptrdiff_t plain_len(const char *s)
{
	const char *p = s;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f || *p == '\\')
			return -1;
	return p - s;
}

/* Row i made safe to print, as table_rowv keeps it, into safe[]: a plain
 * cell as it is (owned[c] false), another sanitized (owned, to free); each
 * cell's width in cw[] and its length in cl[]. */
static void made_row(size_t ncols, size_t i, void (*row)(void *, size_t, const char **), void *ctx,
                     const char **cells, char **safe, bool *owned, size_t *cw, size_t *cl)
{
	for (size_t c = 0; c < ncols; c++)
		cells[c] = NULL;
	row(ctx, i, cells);
	for (size_t c = 0; c < ncols; c++) {
		const char *cell = cells[c] ? cells[c] : "-";
		ptrdiff_t n = plain_len(cell);
		owned[c] = n < 0;
		safe[c] = owned[c] ? sanitize(cell) : (char *)(uintptr_t)cell;
		cw[c] = owned[c] ? text_width(safe[c]) : (size_t)n;
		cl[c] = owned[c] ? strlen(safe[c]) : (size_t)n;
	}
}

static void made_free(size_t ncols, char **safe, const bool *owned)
{
	for (size_t c = 0; c < ncols; c++)
		if (owned[c])
			free(safe[c]);
}

/* The first rows' cells, kept from the widths' pass for the printing one
 * up to this many bytes (past them the rows are made again): a listing's
 * rows are made by the caller's function, which may read them from disk. */
#define ROWS_KEPT ((size_t)4 << 20)

struct kept_cell {
	uint32_t width, len; /* a kept row is under ROWS_KEPT bytes */
	char text[];
};
#define KEPT_SIZE(len) ((sizeof(struct kept_cell) + (len) + 7) & ~(size_t)7)

void table_print_rows(FILE *out, const char *indent, const char *align, const char *const *heads,
                      size_t nrows, void (*row)(void *ctx, size_t i, const char **cells), void *ctx)
{
	size_t ncols = strlen(align);
	size_t *width = xcalloc(ncols, sizeof *width), *cw = xcalloc(ncols, sizeof *cw),
	       *cl = xcalloc(ncols, sizeof *cl);
	const char **cells = xcalloc(ncols, sizeof *cells);
	char **safe = xcalloc(ncols, sizeof *safe);
	bool *owned = xcalloc(ncols, sizeof *owned);
	char *kept = NULL; /* per row, per cell, its kept_cell */
	size_t nkept = 0, klen = 0, kcap = 0;
	for (size_t c = 0; c < ncols; c++)
		width[c] = text_width(heads[c]);
	for (size_t i = 0; i < nrows; i++) {
		made_row(ncols, i, row, ctx, cells, safe, owned, cw, cl);
		size_t need = 0;
		for (size_t c = 0; c < ncols; c++) {
			if (cw[c] > width[c])
				width[c] = cw[c];
			need += KEPT_SIZE(cl[c]);
		}
		if (nkept == i && klen + need <= ROWS_KEPT) {
			if (!kept || klen + need > kcap) {
				kcap = kcap ? 2 * kcap : 4096;
				kcap = kcap < klen + need ? klen + need : kcap > ROWS_KEPT ? ROWS_KEPT : kcap;
				kept = xrealloc(kept, kcap);
			}
			for (size_t c = 0; c < ncols; c++) {
				struct kept_cell *k = (struct kept_cell *)(void *)(kept + klen);
				klen += KEPT_SIZE(cl[c]);
				k->width = (uint32_t)cw[c];
				k->len = (uint32_t)cl[c];
				memcpy(k->text, safe[c], cl[c]);
			}
			nkept++;
		}
		made_free(ncols, safe, owned);
	}
	print_row(ncols, align, out, indent, (char *const *)heads, width, NULL, NULL);
	size_t at = 0;
	for (size_t i = 0; i < nkept; i++) {
		for (size_t c = 0; c < ncols; c++) {
			struct kept_cell *k = (struct kept_cell *)(void *)(kept + at);
			safe[c] = k->text;
			cw[c] = k->width;
			cl[c] = k->len;
			at += KEPT_SIZE(k->len);
		}
		print_row(ncols, align, out, indent, safe, width, cw, cl);
	}
	for (size_t i = nkept; i < nrows; i++) {
		made_row(ncols, i, row, ctx, cells, safe, owned, cw, cl);
		print_row(ncols, align, out, indent, safe, width, cw, cl);
		made_free(ncols, safe, owned);
	}
	free(kept);
	free(width);
	free(cw);
	free(cl);
	free(cells);
	free(safe);
	free(owned);
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

/*
 * Aligned text tables: a header row and rows of cells, each column as wide
 * as its widest cell (counted in characters, not bytes), numbers right
 * aligned.  Cells are copied and made safe to print (util.h, sanitize).
 */
#ifndef PW_AN_TABLE_H
#define PW_AN_TABLE_H

#include <stdio.h>

#include "base/util.h"

struct table {
	size_t ncols;
	char **head;
	char *align;     /* per column: 'l' or 'r' */
	struct vec rows; /* char ** of ncols cells */
};

/* align: one 'l' or 'r' per column; heads: ncols column titles. */
void table_init(struct table *t, const char *align, ...);
/* The same with the titles in an array of strlen(align). */
void table_initv(struct table *t, const char *align, const char *const *heads);
/* ncols cells; a NULL cell prints as "-". */
void table_row(struct table *t, ...);
void table_rowv(struct table *t, const char *const *cells);
void table_print(const struct table *t, FILE *out, const char *indent);
/*
 * The same output for a table as long as its input (a listing of every
 * call), without holding it: row(ctx, i, cells) fills the ncols cells of
 * row i (NULL prints as "-"; valid until its next call), and is called
 * once for each row to measure the columns, and again to print the rows
 * past the first 4 MiB of cells (those are kept from the first call).
 */
void table_print_rows(FILE *out, const char *indent, const char *align, const char *const *heads,
                      size_t nrows, void (*row)(void *ctx, size_t i, const char **cells), void *ctx);
void table_free(struct table *t);
/* Display width of a UTF-8 string. */
size_t text_width(const char *s);

#endif

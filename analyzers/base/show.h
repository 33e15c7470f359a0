/*
 * How the analyzer shows things, whatever it reports: severities by name
 * and rank, colour on a terminal, JSON values, times relative to an
 * origin.  Nothing here knows what a trace is.
 */
#ifndef PW_AN_SHOW_H
#define PW_AN_SHOW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Severities, lowest first; a finding "at or above" --fail-on counts. */
enum sev { SEV_UNKNOWN = 0, SEV_PERFORMANCE = 1, SEV_WARNING = 2, SEV_ERROR = 3 };

enum sev sev_rank(const char *name);
const char *sev_name(enum sev s);

/* Colour on a terminal (--color, NO_COLOR): decided once, per stream. */
enum color_when { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
/* auto: a stream has colour when it is a terminal, NO_COLOR is unset or
 * empty and TERM is not "dumb"; always and never: whatever the stream. */
void color_init(enum color_when when);
enum paint { PAINT_ERROR, PAINT_WARNING, PAINT_NOTE, PAINT_PASS, PAINT_BOLD, PAINT_DIM };
/* The escape sequence that starts `p` on f (stdout or stderr), and the one
 * that ends it: both "" when f has no colour. */
const char *paint(FILE *f, enum paint p);
const char *paint_end(FILE *f);
/* The paint of a severity name: error, warning, anything else a note. */
enum paint sev_paint(const char *severity);

/* "+1.25ms" relative to the origin; "-" for no time. */
void fmt_rel(char *buf, size_t len, int64_t t_ns, int64_t origin);

/* Prints doc (indented, keys in insertion order) and a newline; frees it. */
void json_print(json_t *doc);

/* A document written to stdout a piece at a time, laid out byte for byte
 * as json_print lays out the whole (two spaces an indent, members in the
 * order written), so that a report as long as the trace is never held as
 * one tree: open a container, put values (each stolen, dumped, freed),
 * close it.  key is a member's name inside an object, NULL inside an
 * array and at the top. */
#define JOUT_DEPTH 16
struct jout {
	int depth;
	bool any[JOUT_DEPTH]; /* the open container has a member already */
};
void jout_open(struct jout *o, const char *key, char bracket);
void jout_put(struct jout *o, const char *key, json_t *v);
void jout_close(struct jout *o, char bracket);
/* A string that may not be UTF-8 (a path, a name from an ELF file): as is
 * when it is, else with every byte above 0x7f made '?'. */
json_t *json_text(const char *s);
/* json_integer for a uint64 that could exceed json_int_t: saturates. */
json_t *json_u64(uint64_t v);
/* "0x..." */
json_t *json_hex(uint64_t v);

/* Text for XML or HTML content and attributes: made safe (sanitize: no
 * control characters, valid UTF-8), then the five markup characters
 * escaped.  JUnit XML and the HTML report write their text with it. */
void markup_put(FILE *out, const char *s);

#endif

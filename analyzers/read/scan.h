/*
 * A line of JSON as a flat array of tokens, for the reader's fast path
 * (parse.c): no tree, no allocation per value, strings left in a copy of
 * the line and terminated there.  It takes only the plain shape the
 * library writes — ASCII strings without escapes, integers that fit 63
 * bits, no key twice in one object, nesting at most PW_SCAN_DEPTH — and
 * refuses everything else, valid JSON or not, so that the full parse
 * (jansson, json.h) decides it and gives the message.  What it takes,
 * jansson takes too, with the same values (tests/analyze/fuzz_reader.c
 * holds the two to that).
 */
#ifndef PW_AN_SCAN_H
#define PW_AN_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_SCAN_DEPTH 16

enum pw_tok_type { PW_T_OBJ, PW_T_ARR, PW_T_STR, PW_T_INT, PW_T_TRUE, PW_T_FALSE, PW_T_NULL };

/* One value.  An object's members follow it as key (a PW_T_STR) then value;
 * an array's entries follow it; `next` is the token after the last of them,
 * so a member is skipped in one step. */
struct pw_tok {
	unsigned char type;
	uint32_t n;    /* object: members; array: entries; string: length */
	uint32_t next; /* the index after this value and everything in it */
	uint32_t hash; /* a key's FNV-1a (the table's rows by key, schema.c) */
	union {
		const char *s; /* string: NUL-terminated, in the thread's copy */
		int64_t i;     /* integer */
	} v;
};

/* The thread's tokens of its last line scanned: valid until its next scan.
 * Their strings point into buf, the scan's copy of the line (len bytes and
 * a NUL), where their closing quotes were made NULs. */
struct pw_flat {
	struct pw_tok *t;
	size_t n;
	const char *buf;
	size_t len;
};

/* Scans one line; NULL when it is not of the plain shape (or not JSON). */
const struct pw_flat *pw_scan(const char *line, size_t len);
/* The index of key's value in the object at obj, or 0 when absent. */
size_t pw_flat_get(const struct pw_flat *f, size_t obj, const char *key);
/* A reading thread that ends frees its copy and tokens. */
void pw_scan_thread_done(void);

#endif

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
	bool kept; /* buf is the caller's (pw_scan_to), not the thread's */
};

/* The bytes a caller's copy of a line of len bytes takes (pw_scan_to). */
#define PW_SCAN_COPY_SIZE(len) ((len) + 1 + 8)
/* The thread's next scan copies its line to `to` (PW_SCAN_COPY_SIZE(len)
 * bytes) instead of the thread's own copy, and its tokens' strings point
 * there for as long as the caller keeps it: a reader's helper scans into
 * the batch it hands on.  Once; NULL takes it back. */
void pw_scan_to(char *to);
/* Scans one line; NULL when it is not of the plain shape (or not JSON). */
const struct pw_flat *pw_scan(const char *line, size_t len);
/* The index of key's value in the object at obj, or 0 when absent. */
size_t pw_flat_get(const struct pw_flat *f, size_t obj, const char *key);
/* A reading thread that ends frees its copy, tokens and shapes. */
void pw_scan_thread_done(void);

/*
 * Shapes.  The library writes the lines of one call the same way each time:
 * the same keys in the same order, the same punctuation, only the contents
 * of strings and the digits of numbers differ.  A shape is such a line with
 * those left out: its other bytes, in segments, and a slot between two
 * segments for each string's content or number.  A line that has a shape's
 * segments at the places its slots leave, and in each slot what the scan
 * would take there (a plain string's content up to its closing quote, an
 * integer), gives the scan's tokens exactly: the same types, keys, counts
 * and links, and its own values.  What depends on the structure alone —
 * which table rows check each member, the keys present, no key twice — was
 * settled on the line the shape was learnt from; what a line's own values
 * must satisfy is checked again (pw_flat_checks_fit, schema.h).
 *
 * Shapes are kept per reading thread, two for each of 256 sets chosen by
 * the caller's key (the reader's: the call's API name).  A line that has
 * none is scanned as before, and the caller may learn its shape.
 */

/* A member whose value the table's rows by_scope[at .. at+n) check (schema.c):
 * its value is token v. */
struct pw_fit_check {
	uint32_t v;
	uint16_t at, n;
	int kind; /* of a member with one row (n == 1): the row's kind */
};

#define PW_SHAPE_AUX 24
struct pw_shape {
	/* the line without its values */
	char *lit;          /* the segments' bytes, one after another */
	uint32_t *seg_end;  /* nslots + 1: where each segment ends in lit */
	uint32_t *slot_tok; /* nslots: the token of each slot */
	size_t nslots;
	struct pw_tok *tok; /* the tokens, values aside */
	size_t ntok;
	struct pw_shape_key {
		uint32_t tok, seg, off; /* a key's token, its segment, its offset there */
	} * keys;
	size_t nkeys;
	uint32_t key; /* the caller's */
	uint64_t used;
	/* what the steps after the scan settled for the shape */
	bool fit_known; /* the table's checks (schema.h) hold for its structure */
	struct pw_fit_check *fit;
	size_t nfit;
	bool aux_known; /* the caller's own (parse.c: where the call's members are) */
	uint32_t aux[PW_SHAPE_AUX];
	char api[96]; /* parse.c: the api whose op is remembered, "" if none */
	const char *op;
};

/* Whether shapes are used (PEERWATCH_ANALYZE_PARSE=scan turns them off). */
extern bool pw_scan_shapes;
/* As pw_scan; *shape is the shape the line had, or NULL when it was scanned. */
const struct pw_flat *pw_scan_shaped(const char *line, size_t len, uint32_t key, struct pw_shape **shape);
/* The shape of the line just scanned (f, as pw_scan returned it for line),
 * kept under key, replacing the set's least recently used; NULL if the
 * line cannot be one. */
struct pw_shape *pw_shape_learn(const struct pw_flat *f, const char *line, uint32_t key);

#endif

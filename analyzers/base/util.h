/*
 * Small containers and formatting helpers the analyzer's modules share:
 * growable arrays, a hash map with byte-string keys, checked allocation,
 * and the few ways a number or a string from a trace is printed.
 *
 * Traces are untrusted, so nothing here has a fixed capacity that input can
 * overflow; every container grows, and allocation failure ends the program
 * with a message (an analyzer that ran out of memory has no result to give).
 */
#ifndef PW_AN_UTIL_H
#define PW_AN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- growable array of fixed-size elements ---- */

struct vec {
	void *data;
	size_t len, cap, esz;
};

void vec_init(struct vec *v, size_t esz);
/* A new zeroed element at the end; the pointer is valid until the next push. */
void *vec_push(struct vec *v);
void *vec_at(const struct vec *v, size_t i);
/* Appends all of `src` (same element size) and empties it. */
void vec_append(struct vec *dst, struct vec *src);
void vec_free(struct vec *v);
void vec_sort(struct vec *v, int (*cmp)(const void *, const void *));

/* ---- hash map: byte-string keys (copied) to caller-owned pointers ---- */

struct hslot {
	uint64_t hash;
	void *key; /* NULL: empty slot; followed by a NUL byte */
	size_t klen;
	void *val;
};

struct hmap {
	struct hslot *slots;
	size_t cap, len;
};

void hmap_init(struct hmap *h);
void *hmap_get(const struct hmap *h, const void *key, size_t klen);
/* The value slot of `key`, inserted with a NULL value when missing. */
void **hmap_put(struct hmap *h, const void *key, size_t klen);
/* The map's own copy of the key whose value slot hmap_put just returned:
 * it lives until the map is freed (the slot does not: take it at once). */
static inline const void *hmap_key_of(void **val)
{
	return ((struct hslot *)(void *)((char *)val - offsetof(struct hslot, val)))->key;
}
/* Calls free_val (if not NULL) on every value, then frees the table. */
void hmap_free(struct hmap *h, void (*free_val)(void *));
/* Iteration: for (size_t i = 0; i < h->cap; i++) if (h->slots[i].key) ... */

static inline void *hmap_get_u64(const struct hmap *h, uint64_t k)
{
	return hmap_get(h, &k, sizeof k);
}
static inline void **hmap_put_u64(struct hmap *h, uint64_t k)
{
	return hmap_put(h, &k, sizeof k);
}
static inline void *hmap_get_str(const struct hmap *h, const char *s)
{
	return hmap_get(h, s, strlen(s));
}
static inline void **hmap_put_str(struct hmap *h, const char *s)
{
	return hmap_put(h, s, strlen(s));
}

/* a + b, or UINT64_MAX where that overflows: sums of sizes from a trace
 * (up to 2^64-1 each) saturate rather than wrap. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- parsing ---- */

/* "0x" followed by 1..16 lowercase or uppercase hex digits. */
bool parse_hex_u64(const char *s, uint64_t *out);
/* Whether the n bytes at s (NUL-terminated there) are what parse_hex_u64 takes. */
bool is_hex_u64(const char *s, size_t n);
/* A hex digit's value (either case), -1 for any other byte. */
int hex_digit(char c);
/* Exactly `n` hex digits and nothing else. */
bool is_hex_n(const char *s, size_t n);

/* memset(p, 0, n) and memcpy(to, from, n) by libc's own: gcc writes one
 * of a constant size of a few hundred bytes as `rep stos` or `rep movs`,
 * which start slowly — 22 ns against 5 for the reader's 328-byte event,
 * cleared and copied once a line (this VM, 2026-12-05). */
void bytes_zero(void *p, size_t n);
void bytes_copy(void *to, const void *from, size_t n);

/* ---- printing ---- */

/* Durations, three significant digits: "812ns", "4.50us", "27.8us", "1.50s". */
void fmt_ns(char *buf, size_t len, double ns);
/* Sizes in binary units: "512B", "64.0KiB", "1.00MiB". */
void fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* GB/s (10^9 bytes per second) from bytes and nanoseconds; "-" when ns is 0. */
void fmt_gbps(char *buf, size_t len, uint64_t bytes, uint64_t ns);
/* A copy of `s` safe to print on a terminal, escaped: control characters
 * (C0, DEL) and bytes that are not UTF-8 become \xNN, the C1 controls
 * \u0080..\u009f, and a backslash \\. */
char *sanitize(const char *s);
/* The word for n things: plural(1, "event", "events") is "event". */
static inline const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
/* The last path component. */
const char *base_name(const char *path);

/* ---- several strings looked for in one pass over a text ----
 * The reader's pre-phase tests every line of a trace for the strings of
 * every sink that has a pre-phase, and wants to know which sinks' strings
 * are in it: a mask.  One pass for all of them, skipping ahead as a
 * multi-string Boyer-Moore does (Wu and Manber's): a window as long as the
 * shortest string slides over the text; the byte pair at its end says how
 * far it can move before any string could end a window there (most pairs
 * of a trace line are in no string: the window moves by its length less
 * one); where it cannot move, the strings whose window ends in that pair
 * (kept per slot: no loop over every string) are compared whole.  Strings of 2 to 255 bytes, at most
 * NEEDLES_MAX. */
#define NEEDLES_MAX 64
/* The shift table's size: a hash of the pair, not the pair, so that the
 * table stays in the first-level cache (64 KiB did not: it cost more than
 * the steps it saved); pairs that share a slot share its least shift. */
#define NEEDLES_HASH 4096
struct needles {
	const char *keys[NEEDLES_MAX];
	uint64_t bits[NEEDLES_MAX]; /* what a match of the string adds to the mask */
	uint16_t endpair[NEEDLES_MAX];
	uint8_t lens[NEEDLES_MAX];
	size_t n, m;                 /* strings; the window (the shortest string's length) */
	uint64_t all;                /* every string's bits: no need to look further */
	uint8_t shift[NEEDLES_HASH]; /* by a hash of the window's last two bytes */
	/* where the shift is 0: the strings whose window ends in a pair of that
	 * slot, a bit each (bucket 0: none) */
	uint8_t bucket[NEEDLES_HASH];
	uint64_t in_bucket[NEEDLES_MAX + 1];
};
/* An empty set (no string is in any text). */
void needles_init(struct needles *nd);
/* key (its bytes are not copied: it must outlive nd) adds bits on a match. */
void needles_add(struct needles *nd, const char *key, uint64_t bits);
/* The bits of every string of nd that occurs in s. */
uint64_t needles_mask(const struct needles *nd, const char *s, size_t len);

/* ---- a set of u64 that are mostly dense: the seqs of a file's calls ---- */

/*
 * A process numbers its calls one by one, so a file's seqs fill a range
 * with few holes: one bit each over the range they span, not 8 bytes.
 * Where a file's seqs are spread wider than the bits would be worth (more
 * 64-bit words than seqs, past a floor), they go to a sorted array
 * instead.  Added to in any order; seqset_done before the look-ups, which
 * threads may then share.
 */
struct seqset {
	uint64_t lo;     /* bit 0 of words[0] is lo (a multiple of 64) */
	uint64_t *words; /* the bitmap: nwords words */
	size_t nwords;
	size_t n; /* seqs added (the same seq twice counts twice) */
	bool sparse;
	struct vec spread; /* sparse: every seq, sorted by seqset_done */
};
void seqset_init(struct seqset *s);
void seqset_add(struct seqset *s, uint64_t v);
void seqset_done(struct seqset *s);
bool seqset_has(const struct seqset *s, uint64_t v);
/* Empty again (the next file's). */
void seqset_clear(struct seqset *s);
void seqset_free(struct seqset *s);

#endif

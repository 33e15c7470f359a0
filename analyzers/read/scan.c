/*
 * The flat scan of a line (scan.h).  A recursive descent over a copy of the
 * line, one pass: strings are terminated in the copy where their closing
 * quote was, numbers are read as they go by, and every value is one token.
 * Anything outside the plain shape ends the scan with NULL; the caller then
 * parses the line in full.
 *
 * The copy ends in a NUL, which no loop takes (it is not white space, a
 * digit or a plain string byte) and no step expects: the loops stop at it
 * without a test of the end, and a NUL inside the line ends the scan with
 * NULL as any other byte out of place does.
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "read/scan.h"

static __thread struct {
	char *buf; /* the thread's copy of the line */
	size_t bufcap;
	char *to;  /* the caller's place for the next copy (pw_scan_to), or NULL */
	char *cur; /* the copy of the line being scanned: buf or the caller's */
	struct pw_tok *t;
	size_t n, cap;
} th;

struct sc {
	char *p, *end;
	int depth;
};

/* The bytes that may stand in a plain string: printable ASCII but '"' and
 * '\\' (a table: one load a byte, the scan's busiest loop). */
static const bool plain[256] = {[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true};

static inline uint64_t load8(const char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The first byte at or after q that is not a plain string byte, eight at
 * a time: a control byte or NUL, '"', '\\', or one of 0x80 and up (the
 * lowest byte each test flags is exact; a borrow only flags bytes above
 * it).  q lies in the copy of the line (the thread's or the caller's),
 * which ends in a NUL and PAD bytes more: the loads stop at the word with
 * the NUL. */
static inline char *plain_end(char *q)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	for (;; q += 8) {
		uint64_t x = load8(q), dq = x ^ (ones * '"'), bs = x ^ (ones * '\\');
		uint64_t m =
		    (((x - ones * 0x20) & ~x) | ((dq - ones) & ~dq) | ((bs - ones) & ~bs) | x) & high;
		if (m)
			return q + (__builtin_ctzll(m) >> 3);
	}
#else
	while (plain[(unsigned char)*q])
		q++;
	return q;
#endif
}

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline void skip_ws(struct sc *s)
{
	if ((unsigned char)*s->p > ' ') /* the library writes none */
		return;
	while (is_ws(*s->p))
		s->p++;
}

static __attribute__((noinline)) void grow(void)
{
	th.cap = th.cap ? 2 * th.cap : 256;
	th.t = xrealloc(th.t, th.cap * sizeof *th.t);
}

static inline size_t push(unsigned char type)
{
	if (__builtin_expect(th.n == th.cap, 0))
		grow();
	th.t[th.n].type = type;
	th.t[th.n].n = 0;
	return th.n++;
}

/* s->p at the opening quote; a key's hash is taken on the way. */
static inline __attribute__((always_inline)) bool string(struct sc *s, bool key)
{
	char *q = ++s->p;
	uint32_t h = 2166136261u;
	if (key)
		for (; plain[(unsigned char)*q]; q++)
			h = (h ^ (unsigned char)*q) * 16777619u;
	else
		q = plain_end(q);
	if (*q != '"')
		return false; /* an escape, a control or non-ASCII byte, or no end */
	size_t i = push(PW_T_STR);
	th.t[i].v.s = s->p;
	th.t[i].n = (uint32_t)(q - s->p);
	th.t[i].next = (uint32_t)th.n;
	th.t[i].hash = h;
	*q = 0;
	s->p = q + 1;
	return true;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* How many of x's bytes, from its first, are digits (0 to 8), and in *v
 * the number they make.  A byte is a digit when below 0x80 (so that the
 * sums carry into no other byte), '0' or more, and not above '9'.  The
 * digits are moved to the word's top, zeros below them, and combined in
 * pairs, fours and the eight by three multiplies. */
static inline size_t digits8(uint64_t x, uint64_t *v)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	uint64_t y = x & ~high;
	uint64_t digit = (y + ones * (0x80 - '0')) & ~(y + ones * (0x7f - '9')) & ~x & high;
	uint64_t other = ~digit & high;
	size_t n = other ? (size_t)__builtin_ctzll(other) >> 3 : 8;
	if (!n)
		return *v = 0, 0;
	uint64_t t = (x - ones * '0') << (8 * (8 - n));
	t = t * 10 + (t >> 8);
	t = ((t & 0x000000ff000000ffull) * (100 + (1000000ull << 32)) +
	     ((t >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32))) >>
	    32;
	*v = t;
	return n;
}
#endif

/* A JSON integer at *pp of at most 2^63-1 in magnitude, *pp moved past it;
 * false for anything else (a real number, a leading zero, too large). */
static inline __attribute__((always_inline)) bool read_int(char **pp, int64_t *out)
{
	char *p = *pp;
	bool neg = *p == '-';
	if (neg)
		p++;
	if (*p < '0' || *p > '9')
		return false;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return false; /* a leading zero: not JSON */
	/* up to 18 digits cannot pass 2^63-1; past them, each one is checked */
	const char *d0 = p;
	uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (p[1] >= '0' && p[1] <= '9') { /* the first eight at once (a time has ten) */
		size_t n = digits8(load8(p), &v);
		p += n;
		if (n < 8)
			goto end;
	}
#endif
	while (*p >= '0' && *p <= '9' && p - d0 < 18)
		v = v * 10 + (unsigned)(*p++ - '0');
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return false; /* beyond 2^63-1: the full parse keeps it aside */
		v = v * 10 + d;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
end:
#endif
	if (*p == '.' || *p == 'e' || *p == 'E')
		return false; /* a real number */
	*out = neg ? -(int64_t)v : (int64_t)v;
	*pp = p;
	return true;
}

static inline __attribute__((always_inline)) bool number(struct sc *s)
{
	int64_t v;
	if (!read_int(&s->p, &v))
		return false;
	size_t i = push(PW_T_INT);
	th.t[i].v.i = v;
	th.t[i].next = (uint32_t)th.n;
	return true;
}

static bool word(struct sc *s, const char *w, size_t n, unsigned char type)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
		return false;
	s->p += n;
	size_t i = push(type);
	th.t[i].next = (uint32_t)th.n;
	return true;
}

static bool value(struct sc *s);

/* Whether the key at token k is one of the object's members before it.
 * *seen has a bit for each hash of the keys before (by its low 6 bits): a
 * key whose bit is clear is new without a look at the others. */
static bool seen_key(size_t obj, size_t k, uint64_t *seen)
{
	const struct pw_tok *key = &th.t[k];
	uint64_t bit = 1ull << (key->hash & 63);
	if (!(*seen & bit)) {
		*seen |= bit;
		return false;
	}
	for (size_t i = obj + 1; i < k; i = th.t[i + 1].next)
		if (th.t[i].hash == key->hash && th.t[i].n == key->n &&
		    !memcmp(th.t[i].v.s, key->v.s, key->n))
			return true;
	return false;
}

static bool object(struct sc *s)
{
	size_t o = push(PW_T_OBJ);
	uint64_t seen = 0;
	s->p++;
	skip_ws(s);
	if (*s->p == '}') {
		s->p++;
		th.t[o].next = (uint32_t)th.n;
		return true;
	}
	for (;;) {
		skip_ws(s);
		size_t k = th.n;
		if (*s->p != '"' || !string(s, true) || seen_key(o, k, &seen))
			return false;
		skip_ws(s);
		if (*s->p != ':')
			return false;
		s->p++;
		skip_ws(s);
		/* a member's string or number here, anything else through value */
		char c = *s->p;
		if (!(c == '"'                             ? string(s, false)
		      : (c >= '0' && c <= '9') || c == '-' ? number(s)
		                                           : value(s)))
			return false;
		th.t[o].n++;
		skip_ws(s);
		if (*s->p == '}')
			break;
		if (*s->p++ != ',')
			return false;
	}
	s->p++;
	th.t[o].next = (uint32_t)th.n;
	return true;
}

static bool array(struct sc *s)
{
	size_t a = push(PW_T_ARR);
	s->p++;
	skip_ws(s);
	if (*s->p == ']') {
		s->p++;
		th.t[a].next = (uint32_t)th.n;
		return true;
	}
	for (;;) {
		if (!value(s))
			return false;
		th.t[a].n++;
		skip_ws(s);
		if (*s->p == ']')
			break;
		if (*s->p++ != ',')
			return false;
	}
	s->p++;
	th.t[a].next = (uint32_t)th.n;
	return true;
}

static bool value(struct sc *s)
{
	skip_ws(s);
	bool ok;
	switch (*s->p) {
	case '{':
	case '[':
		if (++s->depth > PW_SCAN_DEPTH)
			return false;
		ok = *s->p == '{' ? object(s) : array(s);
		s->depth--;
		return ok;
	case '"': return string(s, false);
	case 't': return word(s, "true", 4, PW_T_TRUE);
	case 'f': return word(s, "false", 5, PW_T_FALSE);
	case 'n': return word(s, "null", 4, PW_T_NULL);
	default: return number(s);
	}
}

/* Zero bytes after the copy's NUL and after a shape's segments: a compare
 * of segments may load 8 bytes at a time past their ends (same_bytes). */
#define PAD 8

_Static_assert(PAD == PW_SCAN_COPY_SIZE(0) - 1, "a caller's copy has the thread's padding");

void pw_scan_to(char *to)
{
	th.to = to;
}

/* The line into the thread's copy or the caller's, NUL-terminated. */
static void copy_line(const char *line, size_t len)
{
	if (th.to) {
		th.cur = th.to;
		th.to = NULL;
	} else {
		if (len + 1 + PAD > th.bufcap) {
			th.bufcap = len + 1 + PAD > 4096 ? len + 1 + PAD : 4096;
			free(th.buf);
			th.buf = xmalloc(th.bufcap);
		}
		th.cur = th.buf;
	}
	memcpy(th.cur, line, len);
	memset(th.cur + len, 0, 1 + PAD);
}

static const struct pw_flat *flat_out(size_t len)
{
	static __thread struct pw_flat out;
	out.t = th.t;
	out.n = th.n;
	out.buf = th.cur;
	out.len = len;
	out.kept = th.cur != th.buf;
	return &out;
}

/* The scan of the copy (len bytes). */
static const struct pw_flat *scan_copy(size_t len)
{
	th.n = 0;
	struct sc s = {th.cur, th.cur + len, 0};
	skip_ws(&s);
	if (*s.p != '{' || !value(&s))
		return NULL;
	skip_ws(&s);
	if (s.p != s.end)
		return NULL;
	return flat_out(len);
}

const struct pw_flat *pw_scan(const char *line, size_t len)
{
	if (len >= UINT32_MAX)
		return NULL;
	copy_line(line, len);
	return scan_copy(len);
}

/* ---- shapes (scan.h) ---- */

bool pw_scan_shapes = true;

#define SHAPE_SETS 256
#define SHAPE_WAYS 2
/* Lines longer, or of more tokens, are scanned each time. */
#define SHAPE_MAX_LEN 65536
#define SHAPE_MAX_TOK 4096

static __thread struct {
	struct pw_shape *set[SHAPE_SETS][SHAPE_WAYS];
	uint64_t clock;
	char **segpos; /* where each segment starts in the line matched */
	size_t segcap;
	unsigned char *is_key; /* pw_shape_learn's marks, a byte a token */
	size_t keycap;
} shapes;

static void shape_free(struct pw_shape *sh)
{
	if (!sh)
		return;
	free(sh->lit);
	free(sh->seg_end);
	free(sh->slot_tok);
	free(sh->tok);
	free(sh->keys);
	free(sh->fit);
	free(sh);
}

/* Whether n bytes at a and b are the same, a word at a time: both may be
 * read up to 7 bytes past n (PAD), those bytes masked away.  A segment is
 * a dozen bytes: a call of memcmp took longer than the compare. */
static inline bool same_bytes(const char *a, const char *b, uint32_t n)
{
	for (; n >= 8; n -= 8, a += 8, b += 8)
		if (load8(a) != load8(b))
			return false;
	if (!n)
		return true;
	uint64_t d = load8(a) ^ load8(b);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return !(d >> (64 - 8 * n));
#else
	return !(d << (64 - 8 * n));
#endif
}

/* A string slot's closing quote, made its NUL as it is read, put back
 * for slots [0, n) when the line turns out not to have the shape. */
static bool unmatched(const struct pw_shape *sh, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pw_tok *t = &th.t[sh->slot_tok[i]];
		if (t->type == PW_T_STR)
			((char *)t->v.s)[t->n] = '"';
	}
	return false;
}

/* The copy (len bytes) against sh: its tokens, with this line's values, in
 * th.t, and its strings terminated, when it has the shape; else false, the
 * copy as it was (th.t is the next scan's to overwrite). */
static bool shape_match(const struct pw_shape *sh, size_t len)
{
	char *p = th.cur, *end = th.cur + len;
	while (th.cap < sh->ntok)
		grow();
	if (shapes.segcap < sh->nslots + 1) {
		shapes.segcap = sh->nslots + 1;
		shapes.segpos = xrealloc(shapes.segpos, shapes.segcap * sizeof *shapes.segpos);
	}
	memcpy(th.t, sh->tok, sh->ntok * sizeof *th.t);
	uint32_t l0 = 0, skip = 0; /* skip: the segment's first byte is the quote just made a NUL */
	for (size_t i = 0;; i++) {
		uint32_t n = sh->seg_end[i] - l0;
		if ((size_t)(end - p) < n || !same_bytes(p + skip, sh->lit + l0 + skip, n - skip))
			return unmatched(sh, i);
		shapes.segpos[i] = p;
		p += n;
		l0 = sh->seg_end[i];
		if (i == sh->nslots)
			break;
		struct pw_tok *t = &th.t[sh->slot_tok[i]];
		skip = 0;
		if (t->type == PW_T_STR) { /* as string(): up to its closing quote */
			char *q = plain_end(p);
			if (*q != '"')
				return unmatched(sh, i);
			t->v.s = p;
			t->n = (uint32_t)(q - p);
			*q = 0; /* terminated now: the next segment starts with this quote */
			skip = 1;
			p = q;
		} else if (!read_int(&p, &t->v.i)) {
			return unmatched(sh, i);
		}
	}
	if (p != end)
		return unmatched(sh, sh->nslots);
	/* the keys terminated where their closing quotes are */
	for (size_t k = 0; k < sh->nkeys; k++) {
		struct pw_tok *t = &th.t[sh->keys[k].tok];
		char *at = shapes.segpos[sh->keys[k].seg] + sh->keys[k].off;
		t->v.s = at;
		at[t->n] = 0;
	}
	th.n = sh->ntok;
	return true;
}

const struct pw_flat *pw_scan_shaped(const char *line, size_t len, uint32_t key, struct pw_shape **shape)
{
	*shape = NULL;
	if (len >= UINT32_MAX)
		return NULL;
	copy_line(line, len);
	if (pw_scan_shapes)
		for (int w = 0; w < SHAPE_WAYS; w++) {
			struct pw_shape *sh = shapes.set[key % SHAPE_SETS][w];
			if (sh && sh->key == key && shape_match(sh, len)) {
				sh->used = ++shapes.clock;
				*shape = sh;
				return flat_out(len);
			}
		}
	return scan_copy(len);
}

/* Appends line[from, to) to the shape's segments. */
static void lit_add(struct vec *lit, const char *line, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		*(char *)vec_push(lit) = line[i];
}

static void u32_add(struct vec *v, size_t x)
{
	*(uint32_t *)vec_push(v) = (uint32_t)x;
}

struct pw_shape *pw_shape_learn(const struct pw_flat *f, const char *line, uint32_t key)
{
	if (!pw_scan_shapes || f->len > SHAPE_MAX_LEN || f->n > SHAPE_MAX_TOK || !f->n)
		return NULL;
	const struct pw_tok *t = f->t;
	const char *b = f->buf; /* the scan's copy: the same places, NUL-terminated */
	if (shapes.keycap < f->n) {
		shapes.keycap = f->n;
		shapes.is_key = xrealloc(shapes.is_key, shapes.keycap);
	}
	memset(shapes.is_key, 0, f->n);
	for (size_t o = 0; o < f->n; o++)
		if (t[o].type == PW_T_OBJ)
			for (size_t k = o + 1, m = 0; m < t[o].n; m++, k = t[k + 1].next)
				shapes.is_key[k] = 1;
	struct vec lit, seg_end, slot_tok, keys;
	vec_init(&lit, 1);
	vec_init(&seg_end, sizeof(uint32_t));
	vec_init(&slot_tok, sizeof(uint32_t));
	vec_init(&keys, sizeof(struct pw_shape_key));
	/* pos: where the next token's bytes are looked for; seg: where the
	 * segment being built began (both in the line) */
	size_t pos = 0, seg = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct pw_tok *x = &t[i];
		size_t start;
		switch ((enum pw_tok_type)x->type) {
		case PW_T_STR:
			start = (size_t)(x->v.s - b);
			if (shapes.is_key[i]) { /* in its segment */
				*(struct pw_shape_key *)vec_push(&keys) = (struct pw_shape_key){
				    (uint32_t)i, (uint32_t)slot_tok.len, (uint32_t)(start - seg)};
				pos = start + x->n + 1;
			} else { /* a slot from its content's start to its closing quote */
				lit_add(&lit, line, seg, start);
				u32_add(&seg_end, lit.len);
				u32_add(&slot_tok, i);
				seg = pos = start + x->n;
			}
			break;
		case PW_T_INT: {
			/* only white space and punctuation lie between tokens */
			for (start = pos; b[start] != '-' && (b[start] < '0' || b[start] > '9'); start++)
				;
			char *q = (char *)b + start;
			int64_t v;
			if (!read_int(&q, &v)) /* cannot be: the scan took it */
				goto refuse;
			lit_add(&lit, line, seg, start);
			u32_add(&seg_end, lit.len);
			u32_add(&slot_tok, i);
			seg = pos = (size_t)(q - b);
			break;
		}
		case PW_T_OBJ:
		case PW_T_ARR:
			while (b[pos] != (x->type == PW_T_OBJ ? '{' : '['))
				pos++;
			pos++;
			break;
		case PW_T_TRUE:
		case PW_T_FALSE:
		case PW_T_NULL:
			while (b[pos] != (x->type == PW_T_TRUE ? 't' : x->type == PW_T_FALSE ? 'f' : 'n'))
				pos++;
			pos += x->type == PW_T_FALSE ? 5 : 4;
			break;
		}
		if (pos > f->len)
			goto refuse;
	}
	lit_add(&lit, line, seg, f->len);
	u32_add(&seg_end, lit.len);
	for (int i = 0; i < PAD; i++) /* not a segment's: for same_bytes */
		*(char *)vec_push(&lit) = 0;

	struct pw_shape *sh = xcalloc(1, sizeof *sh);
	sh->lit = lit.data;
	sh->seg_end = seg_end.data;
	sh->slot_tok = slot_tok.data;
	sh->nslots = slot_tok.len;
	sh->tok = xmalloc(f->n * sizeof *sh->tok);
	memcpy(sh->tok, t, f->n * sizeof *sh->tok);
	for (size_t i = 0; i < f->n; i++)
		if (sh->tok[i].type == PW_T_STR)
			sh->tok[i].v.s = NULL; /* each line's own */
	sh->ntok = f->n;
	sh->keys = keys.data;
	sh->nkeys = keys.len;
	sh->key = key;
	sh->used = ++shapes.clock;
	struct pw_shape **set = shapes.set[key % SHAPE_SETS];
	int w = !set[0] || (set[1] && set[0]->used < set[1]->used) ? 0 : 1;
	shape_free(set[w]);
	set[w] = sh;
	return sh;
refuse:
	vec_free(&lit);
	vec_free(&seg_end);
	vec_free(&slot_tok);
	vec_free(&keys);
	return NULL;
}

size_t pw_flat_get(const struct pw_flat *f, size_t obj, const char *key)
{
	const struct pw_tok *t = f->t;
	size_t klen = strlen(key);
	if (t[obj].type != PW_T_OBJ)
		return 0;
	for (size_t i = obj + 1, m = 0; m < t[obj].n; m++, i = t[i + 1].next)
		if (t[i].n == klen && !memcmp(t[i].v.s, key, klen))
			return i + 1;
	return 0;
}

void pw_scan_thread_done(void)
{
	free(th.buf);
	free(th.t);
	memset(&th, 0, sizeof th);
	for (size_t i = 0; i < SHAPE_SETS; i++)
		for (size_t w = 0; w < SHAPE_WAYS; w++)
			shape_free(shapes.set[i][w]);
	free(shapes.segpos);
	free(shapes.is_key);
	memset(&shapes, 0, sizeof shapes);
}

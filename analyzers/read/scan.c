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
	char *buf; /* the copy of the line */
	size_t bufcap;
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
		while (plain[(unsigned char)*q])
			q++;
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

static inline __attribute__((always_inline)) bool number(struct sc *s)
{
	bool neg = *s->p == '-';
	if (neg)
		s->p++;
	if (*s->p < '0' || *s->p > '9')
		return false;
	if (*s->p == '0' && s->p[1] >= '0' && s->p[1] <= '9')
		return false; /* a leading zero: not JSON */
	/* up to 18 digits cannot pass 2^63-1; past them, each one is checked */
	const char *d0 = s->p;
	uint64_t v = 0;
	while (*s->p >= '0' && *s->p <= '9' && s->p - d0 < 18)
		v = v * 10 + (unsigned)(*s->p++ - '0');
	while (*s->p >= '0' && *s->p <= '9') {
		unsigned d = (unsigned)(*s->p++ - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return false; /* beyond 2^63-1: the full parse keeps it aside */
		v = v * 10 + d;
	}
	if (*s->p == '.' || *s->p == 'e' || *s->p == 'E')
		return false; /* a real number */
	size_t i = push(PW_T_INT);
	th.t[i].v.i = neg ? -(int64_t)v : (int64_t)v;
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
		if (!(c == '"' ? string(s, false) : (c >= '0' && c <= '9') || c == '-' ? number(s) : value(s)))
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

const struct pw_flat *pw_scan(const char *line, size_t len)
{
	static __thread struct pw_flat out;
	if (len >= UINT32_MAX)
		return NULL;
	if (len + 1 > th.bufcap) {
		th.bufcap = len + 1 > 4096 ? len + 1 : 4096;
		free(th.buf);
		th.buf = xmalloc(th.bufcap);
	}
	memcpy(th.buf, line, len);
	th.buf[len] = 0;
	th.n = 0;
	struct sc s = {th.buf, th.buf + len, 0};
	skip_ws(&s);
	if (*s.p != '{' || !value(&s))
		return NULL;
	skip_ws(&s);
	if (s.p != s.end)
		return NULL;
	out.t = th.t;
	out.n = th.n;
	out.buf = th.buf;
	out.len = len;
	return &out;
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
}

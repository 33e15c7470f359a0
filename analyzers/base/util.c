/*
 * Containers and formatting shared by the analyzer's modules (util.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/util.h"

static void oom(size_t n)
{
	fprintf(stderr, "peerwatch-analyze: out of memory (asked for %zu bytes)\n", n);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return s;
}

/* ---- vec ---- */

void vec_init(struct vec *v, size_t esz)
{
	v->data = NULL;
	v->len = v->cap = 0;
	v->esz = esz;
}

static void vec_reserve(struct vec *v, size_t n)
{
	if (n <= v->cap)
		return;
	size_t cap = v->cap ? v->cap : 8;
	while (cap < n) {
		if (cap > SIZE_MAX / 2 / v->esz)
			oom(SIZE_MAX);
		cap *= 2;
	}
	v->data = xrealloc(v->data, cap * v->esz);
	v->cap = cap;
}

void *vec_push(struct vec *v)
{
	vec_reserve(v, v->len + 1);
	void *e = (char *)v->data + v->len * v->esz;
	memset(e, 0, v->esz);
	v->len++;
	return e;
}

void *vec_at(const struct vec *v, size_t i)
{
	return (char *)v->data + i * v->esz;
}

void vec_append(struct vec *dst, struct vec *src)
{
	if (!src->len)
		return;
	vec_reserve(dst, dst->len + src->len);
	memcpy((char *)dst->data + dst->len * dst->esz, src->data, src->len * src->esz);
	dst->len += src->len;
	src->len = 0;
}

void vec_free(struct vec *v)
{
	free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}

void vec_sort(struct vec *v, int (*cmp)(const void *, const void *))
{
	if (v->len > 1)
		qsort(v->data, v->len, v->esz, cmp);
}

/* ---- hmap: open addressing, linear probing, FNV-1a with a per-run seed ---- */

static uint64_t seed_value;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void)
{
	uint64_t s = 0;
	/* A seed keeps crafted keys from piling into one chain; order never
	 * shows in any output, which sorts what it prints. */
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != sizeof s)
		s = (uint64_t)(uintptr_t)&seed_value;
	seed_value = s | 1;
}

/* Taken once for the whole run, before any map uses it: a map filled under
 * one seed and searched under another loses its keys, so two workers that
 * make their first map at the same moment must not each pick one. */
static uint64_t hash_seed(void)
{
	pthread_once(&seed_once, seed_init);
	return seed_value;
}

/* Eight bytes a step (a byte a step was a chain of dependent multiplies:
 * 128 of them for every IPC handle interned), each word folded in by an
 * odd multiply and a rotation, so that its high bytes reach the low bits;
 * the length and the seed first, a finalizer's mix last (the table takes
 * the low bits).  Every step is one-to-one in h, so two keys of one length
 * that differ in one word end with different hashes. */
static uint64_t hash_bytes(const void *key, size_t n)
{
	const unsigned char *p = key;
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = (0xcbf29ce484222325ull ^ hash_seed()) + n * k, w;
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * k;
		h = h << 31 | h >> 33;
	}
	if (n) {
		w = 0;
		for (size_t i = 0; i < n; i++)
			w |= (uint64_t)p[i] << 8 * i;
		h = (h ^ w) * k;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h ? h : 1;
}

void hmap_init(struct hmap *h)
{
	h->slots = NULL;
	h->cap = h->len = 0;
}

static struct hslot *find(const struct hmap *h, uint64_t hash, const void *key, size_t klen)
{
	size_t mask = h->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct hslot *s = &h->slots[i];
		if (!s->key)
			return s;
		if (s->hash == hash && s->klen == klen && !memcmp(s->key, key, klen))
			return s;
	}
}

static void grow(struct hmap *h)
{
	struct hmap old = *h;
	h->cap = old.cap ? old.cap * 2 : 16;
	h->slots = xcalloc(h->cap, sizeof *h->slots);
	for (size_t i = 0; i < old.cap; i++) {
		struct hslot *s = &old.slots[i];
		if (s->key)
			*find(h, s->hash, s->key, s->klen) = *s;
	}
	free(old.slots);
}

void *hmap_get(const struct hmap *h, const void *key, size_t klen)
{
	if (!h->cap)
		return NULL;
	struct hslot *s = find(h, hash_bytes(key, klen), key, klen);
	return s->key ? s->val : NULL;
}

void **hmap_put(struct hmap *h, const void *key, size_t klen)
{
	if ((h->len + 1) * 4 > h->cap * 3)
		grow(h);
	uint64_t hash = hash_bytes(key, klen);
	struct hslot *s = find(h, hash, key, klen);
	if (!s->key) {
		/* one NUL more, so a string key reads back as a C string */
		s->key = xmalloc(klen + 1);
		memcpy(s->key, key, klen);
		((char *)s->key)[klen] = 0;
		s->klen = klen;
		s->hash = hash;
		s->val = NULL;
		h->len++;
	}
	return &s->val;
}

void hmap_free(struct hmap *h, void (*free_val)(void *))
{
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->slots[i].key)
			continue;
		free(h->slots[i].key);
		if (free_val)
			free_val(h->slots[i].val);
	}
	free(h->slots);
	hmap_init(h);
}

/* ---- parsing ---- */

/* A hex digit's value plus one, 0 for any other byte (one load a digit:
 * the reader checks every pointer of every line). */
static const unsigned char hexval1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

bool parse_hex_u64(const char *s, uint64_t *out)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return false;
	uint64_t v = 0;
	const unsigned char *p = (const unsigned char *)s + 2, *end = p + 16;
	for (; *p; p++) {
		unsigned d = hexval1[*p] - 1u; /* not a digit: past 15 */
		if (d > 15 || p == end)
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

int hex_digit(char c)
{
	return (int)hexval1[(unsigned char)c] - 1;
}

bool is_hex_u64(const char *s, size_t n)
{
	/* parse_hex_u64's rule, without the value: 0x, then 1 to 16 digits */
	return n >= 3 && n <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && is_hex_n(s + 2, n - 2);
}

/* Whether all eight bytes of x are hex digits, at once: each byte below
 * 0x80, then in '0'..'9', or, with 0x20 set (which maps 'A'..'F' and no
 * other byte to 'a'..'f'), in 'a'..'f'.  Adding 0x80 - lo to a byte below
 * 0x80 sets its high bit when the byte is lo or more, and carries into no
 * other byte. */
static inline bool hex8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	if (x & high)
		return false;
	uint64_t lx = x | ones * 0x20;
	uint64_t digit = (x + ones * (0x80 - '0')) & ~(x + ones * (0x7f - '9'));
	uint64_t alpha = (lx + ones * (0x80 - 'a')) & ~(lx + ones * (0x7f - 'f'));
	return ((digit | alpha) & high) == high;
}

bool is_hex_n(const char *s, size_t n)
{
	/* eight at a time: the 128 digits of every IPC handle of every line */
	uint64_t x;
	if (n < 8) {
		for (size_t i = 0; i < n; i++)
			if (!hexval1[(unsigned char)s[i]])
				return false;
		return s[n] == 0;
	}
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&x, s + i, 8);
		if (!hex8(x))
			return false;
	}
	memcpy(&x, s + n - 8, 8); /* the last eight, some seen already */
	return hex8(x) && s[n] == 0;
}

void bytes_zero(void *p, size_t n)
{
	memset(p, 0, n);
}

void bytes_copy(void *to, const void *from, size_t n)
{
	memcpy(to, from, n);
}

/* ---- printing ---- */

/* "%.*f%s" of x, d decimals, written by hand where the rounding cannot be
 * in doubt: x, times 10^d, is far from a half (printf rounds the double's
 * exact value; near a half the product's own rounding could tip it) and
 * small enough for the integer.  false: snprintf's to do.  A listing
 * formats a time a row, and snprintf of a double was a twentieth of ipc's
 * time. */
static bool fixed_by_hand(char *buf, size_t len, double x, int d, const char *unit)
{
	static const double scale[] = {1, 10, 100};
	double y = x * scale[d];
	if (!(y >= 0 && y < 1e15) || signbit(y))
		return false;
	double fl = floor(y), frac = y - fl;
	if (fabs(frac - 0.5) < 1e-6)
		return false;
	uint64_t k = (uint64_t)fl + (frac > 0.5);
	char tmp[40], *p = tmp + sizeof tmp;
	*--p = 0;
	for (const char *e = unit + strlen(unit); e > unit;)
		*--p = *--e;
	for (int i = 0; i < d; i++, k /= 10)
		*--p = (char)('0' + k % 10);
	if (d)
		*--p = '.';
	do
		*--p = (char)('0' + k % 10);
	while (k /= 10);
	size_t n = (size_t)(tmp + sizeof tmp - 1 - p);
	if (len) {
		if (n > len - 1) /* cut as snprintf would */
			n = len - 1;
		memcpy(buf, p, n);
		buf[n] = 0;
	}
	return true;
}

/* Three significant digits: "812ns", "4.50us", "27.8us", "610us", "1.25s". */
void fmt_ns(char *buf, size_t len, double ns)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	int u = 0;
	while (ns >= 999.5 && u < 3) {
		ns /= 1000;
		u++;
	}
	int d = u == 0 || ns >= 99.95 ? 0 : ns < 9.995 ? 2 : 1;
	if (!fixed_by_hand(buf, len, ns, d, unit[u]))
		snprintf(buf, len, "%.*f%s", d, ns, unit[u]);
}

void fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (bytes < 1024) {
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
		return;
	}
	double v = (double)bytes / 1024;
	int u = 0;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.*f%s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
}

void fmt_gbps(char *buf, size_t len, uint64_t bytes, uint64_t ns)
{
	if (!ns) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%.2f", (double)bytes / (double)ns);
}

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] < 0x80                   ? 1
	           : p[0] >= 0xc2 && p[0] < 0xe0 ? 2
	           : p[0] >= 0xe0 && p[0] < 0xf0 ? 3
	           : p[0] >= 0xf0 && p[0] < 0xf5 ? 4
	                                         : 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 4 && p[0] == 0xf0 && p[1] < 0x90) ||
	    (n == 4 && p[0] == 0xf4 && p[1] > 0x8f) || (n == 3 && p[0] == 0xed && p[1] > 0x9f))
		return 0; /* overlong, beyond U+10FFFF, or a surrogate */
	return n;
}

char *sanitize(const char *s)
{
	size_t len = strlen(s);
	char *d = xmalloc(6 * len + 1), *o = d;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (n == 0) /* a byte that is not UTF-8 (a raw 0x9b is a CSI to some terminals) */
			o += sprintf(o, "\\x%02x", *p++);
		else if (*p < 0x20 || *p == 0x7f)
			o += sprintf(o, "\\x%02x", *p++);
		else if (*p == '\\')
			o += sprintf(o, "\\\\"), p++;
		else if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) /* U+0080..U+009F, the C1 controls */
			o += sprintf(o, "\\u%04x", p[1]), p += 2;
		else {
			memcpy(o, p, n);
			o += n;
			p += n;
		}
	}
	*o = 0;
	return d;
}

const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

void needles_init(struct needles *nd)
{
	memset(nd, 0, sizeof *nd);
}

static inline unsigned pair_slot(unsigned a, unsigned b)
{
	return (a << 5 ^ b) & (NEEDLES_HASH - 1);
}

/* The shifts, again for every string (the window may have shortened). */
static void needles_shifts(struct needles *nd)
{
	size_t m = nd->m, buckets = 1;
	memset(nd->shift, (int)(m - 1), sizeof nd->shift);
	memset(nd->bucket, 0, sizeof nd->bucket);
	memset(nd->in_bucket, 0, sizeof nd->in_bucket);
	for (size_t k = 0; k < nd->n; k++) {
		const unsigned char *u = (const unsigned char *)nd->keys[k];
		for (size_t q = 1; q < m; q++) {
			unsigned slot = pair_slot(u[q - 1], u[q]);
			if (nd->shift[slot] > m - 1 - q)
				nd->shift[slot] = (uint8_t)(m - 1 - q);
		}
		nd->endpair[k] = (uint16_t)(u[m - 2] | (unsigned)u[m - 1] << 8);
		unsigned end = pair_slot(u[m - 2], u[m - 1]);
		if (!nd->bucket[end])
			nd->bucket[end] = (uint8_t)buckets++;
		nd->in_bucket[nd->bucket[end]] |= 1ull << k;
	}
}

void needles_add(struct needles *nd, const char *key, uint64_t bits)
{
	size_t len = strlen(key);
	if (len < 2 || len > 255 || nd->n >= NEEDLES_MAX) {
		fprintf(stderr, "peerwatch-analyze: needles_add: \"%s\" (2 to 255 bytes, %d strings)\n", key,
		        NEEDLES_MAX);
		abort();
	}
	nd->keys[nd->n] = key;
	nd->lens[nd->n] = (uint8_t)len;
	nd->bits[nd->n] = bits;
	nd->n++;
	nd->all |= bits;
	if (!nd->m || len < nd->m)
		nd->m = len;
	needles_shifts(nd);
}

/* The strings whose window ends at e (its shift is 0) that occur there. */
static uint64_t needles_at(const struct needles *nd, const char *s, size_t len, size_t e, uint64_t got)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t at = e + 1 - nd->m; /* where a string would start */
	unsigned pair = u[e - 1] | (unsigned)u[e] << 8;
	for (uint64_t ks = nd->in_bucket[nd->bucket[pair_slot(u[e - 1], u[e])]]; ks; ks &= ks - 1) {
		unsigned k = (unsigned)__builtin_ctzll(ks);
		if (nd->endpair[k] == pair && (nd->bits[k] & ~got) && nd->lens[k] <= len - at &&
		    !memcmp(s + at, nd->keys[k], nd->lens[k]))
			got |= nd->bits[k];
	}
	return got;
}

/* How far the window ending at e moves, its shift there being `shift`:
 * where that is 0, the strings ending there are compared, and it moves by
 * one. */
static inline unsigned window_step(const struct needles *nd, const char *s, size_t len, size_t e,
                                   unsigned shift, uint64_t *got)
{
	if (shift)
		return shift;
	*got = needles_at(nd, s, len, e, *got);
	return 1;
}

/* One window, from the one ending at e to the last ending before stop. */
static uint64_t needles_slide(const struct needles *nd, const char *s, size_t len, size_t e, size_t stop,
                              uint64_t got)
{
	const unsigned char *u = (const unsigned char *)s;
	while (e < stop)
		e += window_step(nd, s, len, e, nd->shift[pair_slot(u[e - 1], u[e])], &got);
	return got;
}

/*
 * Four windows slide at once, one over each quarter of the line: each step
 * waits for the load of the pair it lands on and of its shift, so one
 * window was bound by that wait; four are independent and overlap (two
 * took 1.45 times as long on a trace's lines, one 2.4 times).  Window i
 * covers the windows ending in [bound[i], bound[i + 1]): between them,
 * every place a string could end.
 */
uint64_t needles_mask(const struct needles *nd, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t m = nd->m;
	uint64_t got = 0;
	if (!nd->n || len < m)
		return 0;
	size_t lo = m - 1, span = len - lo;
	size_t b1 = lo + span / 4, b2 = lo + span / 2, b3 = lo + span - span / 4;
	size_t e0 = lo, e1 = b1, e2 = b2, e3 = b3;
	while (e0 < b1 && e1 < b2 && e2 < b3 && e3 < len) {
		unsigned s0 = nd->shift[pair_slot(u[e0 - 1], u[e0])];
		unsigned s1 = nd->shift[pair_slot(u[e1 - 1], u[e1])];
		unsigned s2 = nd->shift[pair_slot(u[e2 - 1], u[e2])];
		unsigned s3 = nd->shift[pair_slot(u[e3 - 1], u[e3])];
		if (__builtin_expect(!s0 || !s1 || !s2 || !s3, 0)) {
			s0 = window_step(nd, s, len, e0, s0, &got);
			s1 = window_step(nd, s, len, e1, s1, &got);
			s2 = window_step(nd, s, len, e2, s2, &got);
			s3 = window_step(nd, s, len, e3, s3, &got);
			if (got == nd->all)
				return got;
		}
		e0 += s0;
		e1 += s1;
		e2 += s2;
		e3 += s3;
	}
	got = needles_slide(nd, s, len, e0, b1, got);
	got = needles_slide(nd, s, len, e1, b2, got);
	got = needles_slide(nd, s, len, e2, b3, got);
	return needles_slide(nd, s, len, e3, len, got);
}

/* ---- seqset ---- */

/* Bitmaps of up to this many words whatever the count (32 KiB). */
#define SEQSET_FLOOR 4096

void seqset_init(struct seqset *s)
{
	memset(s, 0, sizeof *s);
	vec_init(&s->spread, sizeof(uint64_t));
}

static void seqset_to_sparse(struct seqset *s)
{
	for (size_t w = 0; w < s->nwords; w++)
		for (uint64_t b = s->words[w]; b; b &= b - 1)
			*(uint64_t *)vec_push(&s->spread) = s->lo + 64 * w + (uint64_t)__builtin_ctzll(b);
	free(s->words);
	s->words = NULL;
	s->nwords = 0;
	s->sparse = true;
}

/* The bitmap grown to hold v, by at least half again on the side that
 * grows (never past 2^64); false when that would be more words than the
 * set is worth. */
static bool seqset_span(struct seqset *s, uint64_t v)
{
	uint64_t vlo = v & ~(uint64_t)63, lo = s->lo, words;
	if (!s->nwords) {
		lo = vlo;
		words = 1;
	} else if (vlo < s->lo) {
		uint64_t half = (32 * (uint64_t)s->nwords) & ~(uint64_t)63, need = s->lo - vlo;
		uint64_t grow = half > need ? half : need;
		lo = grow > s->lo ? 0 : s->lo - grow;
		words = (s->lo - lo) / 64 + s->nwords;
	} else {
		uint64_t need = (vlo - s->lo) / 64 + 1 - s->nwords, half = s->nwords / 2;
		uint64_t grow = half > need ? half : need, room = ((UINT64_MAX - s->lo) >> 6) + 1;
		words = grow > room - s->nwords ? room : s->nwords + grow;
	}
	size_t limit = s->n + 1 > SEQSET_FLOOR ? s->n + 1 : SEQSET_FLOOR;
	if (words > limit)
		return false;
	uint64_t *nw = xcalloc((size_t)words, sizeof *nw);
	if (s->nwords)
		memcpy(nw + (s->lo - lo) / 64, s->words, s->nwords * sizeof *nw);
	free(s->words);
	s->words = nw;
	s->nwords = (size_t)words;
	s->lo = lo;
	return true;
}

void seqset_add(struct seqset *s, uint64_t v)
{
	if (!s->sparse && (!s->nwords || v < s->lo || v - s->lo >= 64 * (uint64_t)s->nwords) &&
	    !seqset_span(s, v))
		seqset_to_sparse(s);
	s->n++;
	if (s->sparse)
		*(uint64_t *)vec_push(&s->spread) = v;
	else
		s->words[(v - s->lo) / 64] |= 1ull << ((v - s->lo) % 64);
}

static int seqset_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void seqset_done(struct seqset *s)
{
	if (s->sparse && s->spread.len > 1)
		vec_sort(&s->spread, seqset_cmp);
}

bool seqset_has(const struct seqset *s, uint64_t v)
{
	if (s->sparse)
		return bsearch(&v, s->spread.data, s->spread.len, sizeof v, seqset_cmp) != NULL;
	return s->nwords && v >= s->lo && v - s->lo < 64 * (uint64_t)s->nwords &&
	       (s->words[(v - s->lo) / 64] >> ((v - s->lo) % 64) & 1);
}

void seqset_clear(struct seqset *s)
{
	free(s->words);
	s->words = NULL;
	s->nwords = 0;
	s->n = 0;
	s->sparse = false;
	s->spread.len = 0;
}

void seqset_free(struct seqset *s)
{
	free(s->words);
	vec_free(&s->spread);
	memset(s, 0, sizeof *s);
}

#include "record/jsonw.h"

#include "core/pw.h"

static const char hexdig[] = "0123456789abcdef";

/* "00" "01" ... "99": two digits per division. */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Decimal digits of v (1 for 0). */
static inline unsigned digits10(uint64_t v)
{
	unsigned n = 1;
	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

void pw_jw_u64(struct pw_jw *w, uint64_t v)
{
	unsigned n = digits10(v);
	char *p = w->p;
	if (PW_JW_UNLIKELY((size_t)(w->end - p) < n)) {
		w->overflow = true;
		w->p = w->end;
		return;
	}
	char *q = p + n;
	while (v >= 100) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	w->p = p + n;
}

void pw_jw_i64(struct pw_jw *w, int64_t v)
{
	if (v < 0) {
		pw_jw_ch(w, '-');
		pw_jw_u64(w, (uint64_t)0 - (uint64_t)v);
		return;
	}
	pw_jw_u64(w, (uint64_t)v);
}

void pw_jw_hex(struct pw_jw *w, uint64_t v)
{
	unsigned n = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1; /* hex digits */
	char *p = w->p;
	if (PW_JW_UNLIKELY((size_t)(w->end - p) < n + 4)) {
		w->overflow = true;
		w->p = w->end;
		return;
	}
	p[0] = '"';
	p[1] = '0';
	p[2] = 'x';
	for (unsigned i = n; i > 0; i--) {
		p[2 + i] = hexdig[v & 15];
		v >>= 4;
	}
	p[n + 3] = '"';
	w->p = p + n + 4;
}

void pw_jw_bytes(struct pw_jw *w, const void *p, size_t n)
{
	const unsigned char *b = p;
	char *q = w->p;
	if (PW_JW_UNLIKELY((size_t)(w->end - q) < 2 * n + 2)) {
		w->overflow = true;
		w->p = w->end;
		return;
	}
	*q++ = '"';
	for (size_t i = 0; i < n; i++) {
		*q++ = hexdig[b[i] >> 4];
		*q++ = hexdig[b[i] & 15];
	}
	*q++ = '"';
	w->p = q;
}

void pw_jw_str(struct pw_jw *w, const char *s)
{
	/* Nothing to escape (API, vendor and error names): one bounds check. */
	size_t n = 0;
	while ((unsigned char)s[n] >= 0x20 && s[n] != '"' && s[n] != '\\')
		n++;
	if (!s[n]) {
		char *p = w->p;
		if (PW_JW_UNLIKELY((size_t)(w->end - p) < n + 2)) {
			w->overflow = true;
			w->p = w->end;
			return;
		}
		*p = '"';
		memcpy(p + 1, s, n);
		p[n + 1] = '"';
		w->p = p + n + 2;
		return;
	}
	pw_jw_ch(w, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			pw_jw_raw(w, esc, 2);
		} else if (c < 0x20) {
			char esc[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};
			pw_jw_raw(w, esc, 6);
		} else {
			pw_jw_ch(w, (char)c);
		}
	}
	pw_jw_ch(w, '"');
}

/* s as a JSON string, bytes that are not UTF-8 replaced by '?' (paths). */
void pw_jw_str_lossy(struct pw_jw *w, const char *s)
{
	char buf[4200];
	size_t n = strlen(s), k = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n && k + 5 < sizeof buf;) {
		size_t len = u[i] < 0x80 ? 1 : pw_utf8_len(u + i, n - i);
		if (!len) {
			buf[k++] = '?';
			i++;
			continue;
		}
		memcpy(buf + k, s + i, len);
		k += len;
		i += len;
	}
	buf[k] = 0;
	pw_jw_str(w, buf);
}

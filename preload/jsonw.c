#include "jsonw.h"

static const char hexdig[] = "0123456789abcdef";

/* "00" "01" ... "99": two digits per division. */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void pw_jw_u64(struct pw_jw *w, uint64_t v)
{
	char tmp[20];
	char *p = tmp + sizeof tmp;
	while (v >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	pw_jw_raw(w, p, (size_t)(tmp + sizeof tmp - p));
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
	char tmp[20];
	int n = 0;
	do {
		tmp[19 - n++] = hexdig[v & 15];
		v >>= 4;
	} while (v);
	tmp[19 - n++] = 'x';
	tmp[19 - n++] = '0';
	tmp[19 - n++] = '"';
	pw_jw_raw(w, tmp + 20 - n, (size_t)n);
	pw_jw_ch(w, '"');
}

void pw_jw_bytes(struct pw_jw *w, const void *p, size_t n)
{
	const unsigned char *b = p;
	pw_jw_ch(w, '"');
	for (size_t i = 0; i < n; i++) {
		char two[2] = {hexdig[b[i] >> 4], hexdig[b[i] & 15]};
		pw_jw_raw(w, two, 2);
	}
	pw_jw_ch(w, '"');
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

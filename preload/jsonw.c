#include "jsonw.h"

static const char hexdig[] = "0123456789abcdef";

void pw_jw_u64(struct pw_jw *w, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[19 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	pw_jw_raw(w, tmp + 20 - n, (size_t)n);
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

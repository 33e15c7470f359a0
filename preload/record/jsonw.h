/*
 * A JSON writer for the hot path: appends to a caller-provided buffer, never
 * allocates, never calls stdio.  Writing past the end sets `overflow` and
 * writes nothing more, so a too-long event is detected and dropped whole.
 */
#ifndef PW_JSONW_H
#define PW_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PW_JW_UNLIKELY(x) __builtin_expect(!!(x), 0)

struct pw_jw {
	char *p, *end;
	bool overflow;
	bool need_comma;
};

static inline void pw_jw_init(struct pw_jw *w, char *buf, size_t len)
{
	w->p = buf;
	w->end = buf + len;
	w->overflow = false;
	w->need_comma = false;
}

static inline void pw_jw_raw(struct pw_jw *w, const char *s, size_t n)
{
	if (PW_JW_UNLIKELY((size_t)(w->end - w->p) < n)) {
		w->overflow = true;
		w->p = w->end;
		return;
	}
	memcpy(w->p, s, n);
	w->p += n;
}

static inline void pw_jw_ch(struct pw_jw *w, char c)
{
	pw_jw_raw(w, &c, 1);
}

/* A string value, escaped per RFC 8259. */
void pw_jw_str(struct pw_jw *w, const char *s);
/* s as a JSON string, bytes that are not UTF-8 replaced by '?' (paths);
 * at most about 4 KiB of it. */
void pw_jw_str_lossy(struct pw_jw *w, const char *s);
void pw_jw_u64(struct pw_jw *w, uint64_t v);
void pw_jw_i64(struct pw_jw *w, int64_t v);
void pw_jw_hex(struct pw_jw *w, uint64_t v);                /* "0x1f" */
void pw_jw_bytes(struct pw_jw *w, const void *p, size_t n); /* "00a1..." */

static inline void pw_jw_obj_open(struct pw_jw *w)
{
	pw_jw_ch(w, '{');
	w->need_comma = false;
}

static inline void pw_jw_obj_close(struct pw_jw *w)
{
	pw_jw_ch(w, '}');
	w->need_comma = true;
}

/*
 * [,]"key<suffix>": in one bounds check (w->p is reloaded after every byte
 * stored through it, so fewer, larger writes are what makes this fast).
 */
static inline void pw_jw_key_(struct pw_jw *w, const char *key, size_t klen, const char *suffix, size_t slen)
{
	size_t n = (w->need_comma ? 1 : 0) + 1 + klen + slen + 2;
	char *p = w->p;
	if (PW_JW_UNLIKELY((size_t)(w->end - p) < n)) {
		w->overflow = true;
		w->p = w->end;
		return;
	}
	if (w->need_comma)
		*p++ = ',';
	*p++ = '"';
	memcpy(p, key, klen);
	memcpy(p + klen, suffix, slen);
	p += klen + slen;
	*p++ = '"';
	*p++ = ':';
	w->p = p;
	w->need_comma = true;
}

/* "key": — key is a trusted literal (no escaping). */
static inline void pw_jw_key(struct pw_jw *w, const char *key)
{
	pw_jw_key_(w, key, strlen(key), "", 0);
}

/* "key_suffix": for derived fields such as dst_dev. */
static inline void pw_jw_key2(struct pw_jw *w, const char *key, const char *suffix)
{
	pw_jw_key_(w, key, strlen(key), suffix, strlen(suffix));
}

static inline void pw_jw_kv_u64(struct pw_jw *w, const char *k, uint64_t v)
{
	pw_jw_key(w, k);
	pw_jw_u64(w, v);
}

static inline void pw_jw_kv_i64(struct pw_jw *w, const char *k, int64_t v)
{
	pw_jw_key(w, k);
	pw_jw_i64(w, v);
}

static inline void pw_jw_kv_str(struct pw_jw *w, const char *k, const char *v)
{
	pw_jw_key(w, k);
	pw_jw_str(w, v);
}

static inline void pw_jw_kv_hex(struct pw_jw *w, const char *k, uint64_t v)
{
	pw_jw_key(w, k);
	pw_jw_hex(w, v);
}

#endif

/*
 * Table-driven checking of a line's members (schema.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "peerwatch/trace_format.h"
#include "read/json.h"
#include "read/scan.h"
#include "read/schema.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

struct ctx {
	char *err;
	size_t errlen;
};

/* ---- members: their kinds from the trace format's table ----
 * Every member of an event, of its "args" and of the objects inside them
 * is checked against its rows in PW_TRACE_FIELDS (peerwatch/trace_format.h),
 * the table the library writes by and the docs are generated from.  A key
 * with more than one row in its scope is right when one row's kind fits.
 * Members the table does not list are not checked (later writers may add
 * them: docs/trace-format.md, Compatibility); nor is the absence of an
 * event's own members, which traces of earlier writers may lack ("op"), and
 * which the parse (parse.c) asks for where a report needs them.  The objects
 * inside a member (a location, a batch's copies) must have every member the
 * table says each has. */

static const struct pw_trace_field fields[] = {PW_TRACE_FIELDS(PW_TRACE_FIELD_INIT)};
#define NFIELDS (sizeof fields / sizeof *fields)

/* The rows of each scope, sorted by key: by_scope[first[s] .. first[s+1]). */
static unsigned short by_scope[NFIELDS], first[PW_SC_COUNT + 1];
/* The keys of each scope that some row requires (the fast path counts
 * them among an object's members, whose keys are all different). */
static unsigned short req_keys[PW_SC_COUNT];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static int row_cmp(const void *a, const void *b)
{
	const struct pw_trace_field *x = &fields[*(const unsigned short *)a],
	                            *y = &fields[*(const unsigned short *)b];
	if (x->scope != y->scope)
		return x->scope - y->scope;
	int k = strcmp(x->key, y->key);
	return k ? k : (int)(x - y);
}

static size_t rows_of(int scope, const char *key, size_t *n);

/* Whether one of a key's n rows from by_scope[at] requires it. */
static bool key_required(size_t at, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fields[by_scope[at + i]].presence == PW_REQ)
			return true;
	return false;
}

static void build_index(void)
{
	for (size_t i = 0; i < NFIELDS; i++)
		by_scope[i] = (unsigned short)i;
	qsort(by_scope, NFIELDS, sizeof *by_scope, row_cmp);
	size_t i = 0;
	for (int s = 0; s <= PW_SC_COUNT; s++) {
		while (i < NFIELDS && fields[by_scope[i]].scope < s)
			i++;
		first[s] = (unsigned short)i;
	}
	for (int s = 0; s < PW_SC_COUNT; s++)
		for (size_t r = first[s], n; r < first[s + 1]; r += n) {
			rows_of(s, fields[by_scope[r]].key, &n); /* r: the first of its key */
			req_keys[s] += key_required(r, n);
		}
}

/* The rows of key in scope: *n of them from the returned index in by_scope. */
static size_t rows_of(int scope, const char *key, size_t *n)
{
	size_t lo = first[scope], hi = first[scope + 1];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(fields[by_scope[mid]].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n = 0;
	while (lo + *n < first[scope + 1] && !strcmp(fields[by_scope[lo + *n]].key, key))
		(*n)++;
	return lo;
}

static bool is_hex_str(const json_t *v)
{
	uint64_t x;
	return json_is_string(v) && parse_hex_u64(json_string_value(v), &x);
}

static bool is_hex_digits(const json_t *v, size_t want)
{
	size_t n = json_is_string(v) ? json_string_length(v) : 0;
	return json_is_string(v) && n % 2 == 0 && (!want || n == want) && is_hex_n(json_string_value(v), n);
}

static bool is_dev(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= INT32_MIN && json_integer_value(v) <= INT32_MAX;
}

/* How a message names the kind: "\"args.bytes\" must be <this>". */
static const char *kind_phrase(int kind)
{
	switch ((enum pw_json_kind)kind) {
	case PW_J_STR: return "a string";
	case PW_J_STR_NULL:
	case PW_J_NAME: return "a string or null";
	case PW_J_HEX: return "a hex string";
	case PW_J_HEXBYTES: return "hex digits";
	case PW_J_HEX128: return "128 hex digits";
	case PW_J_HEXBYTES_NULL: return "hex digits or null";
	case PW_J_UINT: return "a non-negative integer";
	case PW_J_INT: return "an integer";
	case PW_J_INT_NULL: return "an integer or null";
	case PW_J_DEV: return "a device ordinal or null";
	case PW_J_ORDINAL: return "a device ordinal";
	case PW_J_NAME_OR_INT: return "a name or a number";
	case PW_J_INT_STR_NULL: return "an integer, a string or null";
	case PW_J_BOOL: return "true or false";
	case PW_J_NIL: return "null";
	case PW_J_OBJECT: return "an object";
	case PW_J_OBJECTS: return "an array of objects";
	case PW_J_STRS: return "an array of strings";
	case PW_J_HEXES: return "an array of hex strings";
	case PW_J_NAMES: return "an array of names or numbers";
	case PW_J_INTS_NULL: return "an array of integers or nulls, or null";
	case PW_J_COUNT: break;
	}
	return "?";
}

/* The kind of an array's entries, PW_J_COUNT for a kind that is no array. */
static int entry_kind(int kind)
{
	switch (kind) {
	case PW_J_OBJECTS: return PW_J_OBJECT;
	case PW_J_STRS: return PW_J_STR;
	case PW_J_HEXES: return PW_J_HEX;
	case PW_J_NAMES: return PW_J_NAME_OR_INT;
	case PW_J_INTS_NULL: return PW_J_INT_NULL;
	default: return PW_J_COUNT;
	}
}

static bool fits(int kind, const json_t *v)
{
	uint64_t u;
	int ek = entry_kind(kind);
	if (ek != PW_J_COUNT) {
		if (kind == PW_J_INTS_NULL && json_is_null(v))
			return true;
		if (!json_is_array(v))
			return false;
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) if (!fits(ek, e)) return false;
		return true;
	}
	switch ((enum pw_json_kind)kind) {
	case PW_J_STR: return json_is_string(v);
	case PW_J_STR_NULL:
	case PW_J_NAME: return json_is_string(v) || json_is_null(v);
	case PW_J_HEX: return is_hex_str(v);
	case PW_J_HEXBYTES: return is_hex_digits(v, 0);
	case PW_J_HEX128: return is_hex_digits(v, 128);
	case PW_J_HEXBYTES_NULL: return json_is_null(v) || is_hex_digits(v, 0);
	case PW_J_UINT: return pw_json_u64(v, &u);
	case PW_J_INT: return json_is_integer(v);
	case PW_J_INT_NULL: return json_is_integer(v) || json_is_null(v);
	case PW_J_DEV: return json_is_null(v) || is_dev(v);
	case PW_J_ORDINAL: return is_dev(v);
	case PW_J_NAME_OR_INT: return json_is_string(v) || json_is_integer(v);
	case PW_J_INT_STR_NULL: return json_is_integer(v) || json_is_string(v) || json_is_null(v);
	case PW_J_BOOL: return json_is_boolean(v);
	case PW_J_NIL: return json_is_null(v);
	case PW_J_OBJECT: return json_is_object(v);
	case PW_J_OBJECTS:
	case PW_J_STRS:
	case PW_J_HEXES:
	case PW_J_NAMES:
	case PW_J_INTS_NULL:
	case PW_J_COUNT: break;
	}
	return false;
}

/* Whether v has the JSON type of the kind, right or wrong in its detail: a
 * string for a hex kind, an integer for a device ordinal. */
static bool shaped(int kind, const json_t *v)
{
	switch (kind) {
	case PW_J_HEX:
	case PW_J_HEXBYTES:
	case PW_J_HEX128: return json_is_string(v);
	case PW_J_UINT:
	case PW_J_DEV:
	case PW_J_ORDINAL: return json_is_integer(v);
	default: return entry_kind(kind) != PW_J_COUNT ? json_is_array(v) : fits(kind, v);
	}
}

/* The message for a value v at path that is not of the kind. */
static int kind_error(struct ctx *c, const char *path, const json_t *v, int kind)
{
	int ek = entry_kind(kind);
	if (ek != PW_J_COUNT && json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) if (!fits(ek, e))
		{
			char at[200];
			if (snprintf(at, sizeof at, "%s[%zu]", path, i) >= (int)sizeof at)
				at[sizeof at - 1] = 0;
			return kind_error(c, at, e, ek);
		}
	}
	if ((kind == PW_J_HEX) && json_is_string(v))
		return fail(c->err, c->errlen, "\"%s\" is not a 64-bit hex value (0x...)", path);
	if ((kind == PW_J_DEV || kind == PW_J_ORDINAL) && json_is_integer(v))
		return fail(c->err, c->errlen, "\"%s\" is %lld, not a device ordinal", path,
		            (long long)json_integer_value(v));
	if (kind == PW_J_UINT && json_is_integer(v))
		return fail(c->err, c->errlen, "\"%s\" must be a non-negative integer, not %lld", path,
		            (long long)json_integer_value(v));
	return fail(c->err, c->errlen, "\"%s\" must be %s, not %s", path, kind_phrase(kind), pw_json_type(v));
}

static int check_scope(struct ctx *c, const char *path, json_t *obj, int scope, bool nested);

/* "parent.key" (or "key" at the top) into buf: only for a message or an
 * object's members, never on the way through a line that is right. */
static const char *join(char *buf, size_t len, const char *parent, const char *key)
{
	if (snprintf(buf, len, "%s%s%s", parent, *parent ? "." : "", key) >= (int)len)
		buf[len - 1] = 0; /* a path that long is still named */
	return buf;
}

/* One member, parent.key, against its n rows from by_scope[at]. */
static int check_member(struct ctx *c, const char *parent, const char *key, json_t *v, size_t at, size_t n)
{
	char path[200];
	for (size_t i = 0; i < n; i++) {
		const struct pw_trace_field *f = &fields[by_scope[at + i]];
		if (!fits(f->kind, v))
			continue;
		if (f->kind == PW_J_OBJECT && f->child != PW_SC_NONE)
			return check_scope(c, join(path, sizeof path, parent, key), v, f->child, true);
		if (f->kind == PW_J_OBJECTS && f->child != PW_SC_NONE && json_array_size(v)) {
			join(path, sizeof path, parent, key);
			size_t j;
			json_t *e;
			json_array_foreach(v, j, e)
			{
				char p[220];
				if (snprintf(p, sizeof p, "%s[%zu]", path, j) >= (int)sizeof p)
					p[sizeof p - 1] = 0;
				if (check_scope(c, p, e, f->child, true))
					return -1;
			}
		}
		return 0;
	}
	/* none fits: the message of the one row of the value's JSON type, or of all */
	join(path, sizeof path, parent, key);
	size_t one = n, shapes = 0;
	for (size_t i = 0; i < n; i++)
		if (shaped(fields[by_scope[at + i]].kind, v))
			one = i, shapes++;
	if (n == 1 || shapes == 1)
		return kind_error(c, path, v, fields[by_scope[at + (n == 1 ? 0 : one)]].kind);
	char what[256];
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof what; i++)
		len += (size_t)snprintf(what + len, sizeof what - len, "%s%s", i ? " or " : "",
		                        kind_phrase(fields[by_scope[at + i]].kind));
	return fail(c->err, c->errlen, "\"%s\" must be %s, not %s", path, what, pw_json_type(v));
}

/* Every member of obj (path "" for an event, "args", "args.copies[0]", ...);
 * nested: an object inside an event, whose required members must be there. */
static int check_scope(struct ctx *c, const char *path, json_t *obj, int scope, bool nested)
{
	const char *key;
	json_t *v;
	pthread_once(&index_once, build_index);
	json_object_foreach(obj, key, v)
	{
		size_t n, at = rows_of(scope, key, &n);
		if (n && check_member(c, path, key, v, at, n))
			return -1; /* (n == 0: a member this reader does not know) */
	}
	for (size_t i = first[scope]; nested && i < first[scope + 1]; i++) {
		const struct pw_trace_field *f = &fields[by_scope[i]];
		if (f->presence == PW_REQ && !json_object_get(obj, f->key))
			return fail(c->err, c->errlen, "missing member \"%s%s%s\"", path, *path ? "." : "",
			            f->key);
	}
	return 0;
}

int pw_check_members(json_t *obj, int scope, char *err, size_t errlen)
{
	struct ctx c = {err, errlen};
	return check_scope(&c, "", obj, scope, false);
}

/* ---- the same check over a flat scan (scan.h), without messages ---- */

static bool hex_tok(const struct pw_tok *t, size_t want)
{
	return t->type == PW_T_STR && t->n % 2 == 0 && (!want || t->n == want) && is_hex_n(t->v.s, t->n);
}

static bool dev_tok(const struct pw_tok *t)
{
	return t->type == PW_T_INT && t->v.i >= INT32_MIN && t->v.i <= INT32_MAX;
}

static inline __attribute__((always_inline)) bool fits_tok(int kind, const struct pw_tok *t,
                                                           const struct pw_tok *all);

/* An array kind's value: each entry of the entry kind. */
static bool fits_toks(int kind, const struct pw_tok *t, const struct pw_tok *all)
{
	if (kind == PW_J_INTS_NULL && t->type == PW_T_NULL)
		return true;
	if (t->type != PW_T_ARR)
		return false;
	for (size_t i = (size_t)(t - all) + 1; i < t->next; i = all[i].next)
		if (!fits_tok(entry_kind(kind), &all[i], all))
			return false;
	return true;
}

static inline __attribute__((always_inline)) bool fits_tok(int kind, const struct pw_tok *t,
                                                           const struct pw_tok *all)
{
	bool str = t->type == PW_T_STR, in = t->type == PW_T_INT, nul = t->type == PW_T_NULL;
	switch ((enum pw_json_kind)kind) {
	case PW_J_STR: return str;
	case PW_J_STR_NULL:
	case PW_J_NAME: return str || nul;
	case PW_J_HEX: return str && is_hex_u64(t->v.s, t->n);
	case PW_J_HEXBYTES: return hex_tok(t, 0);
	case PW_J_HEX128: return hex_tok(t, 128);
	case PW_J_HEXBYTES_NULL: return nul || hex_tok(t, 0);
	case PW_J_UINT: return in && t->v.i >= 0;
	case PW_J_INT: return in;
	case PW_J_INT_NULL: return in || nul;
	case PW_J_DEV: return nul || dev_tok(t);
	case PW_J_ORDINAL: return dev_tok(t);
	case PW_J_NAME_OR_INT: return str || in;
	case PW_J_INT_STR_NULL: return in || str || nul;
	case PW_J_BOOL: return t->type == PW_T_TRUE || t->type == PW_T_FALSE;
	case PW_J_NIL: return nul;
	case PW_J_OBJECT: return t->type == PW_T_OBJ;
	case PW_J_OBJECTS:
	case PW_J_STRS:
	case PW_J_HEXES:
	case PW_J_NAMES:
	case PW_J_INTS_NULL: return fits_toks(kind, t, all);
	case PW_J_COUNT: break;
	}
	return false;
}

static bool flat_scope(const struct pw_flat *f, size_t obj, int scope, bool nested);

/* Where pw_flat_members_fit_memo collects the members whose check depends
 * on their values. */
static __thread struct vec *recording;

/* Whether a value fits the kind by its JSON type alone (of an array, its
 * entries' types): a line of the same shape fits it as the first did. */
static bool by_type_only(int kind)
{
	int ek = entry_kind(kind);
	if (ek != PW_J_COUNT)
		return by_type_only(ek);
	switch ((enum pw_json_kind)kind) {
	case PW_J_STR:
	case PW_J_STR_NULL:
	case PW_J_NAME:
	case PW_J_INT:
	case PW_J_INT_NULL:
	case PW_J_NAME_OR_INT:
	case PW_J_INT_STR_NULL:
	case PW_J_BOOL:
	case PW_J_NIL:
	case PW_J_OBJECT: return true;
	default: return false;
	}
}

static bool rows_by_type_only(size_t at, size_t n)
{
	for (size_t r = 0; r < n; r++)
		if (!by_type_only(fields[by_scope[at + r]].kind))
			return false;
	return true;
}

/* As check_member: the first row the value fits decides, objects inside
 * it checked against their own scope. */
static bool flat_member(const struct pw_flat *f, size_t v, size_t at, size_t n)
{
	const struct pw_tok *t = &f->t[v];
	for (size_t i = 0; i < n; i++) {
		const struct pw_trace_field *row = &fields[by_scope[at + i]];
		if (!fits_tok(row->kind, t, f->t))
			continue;
		if (row->kind == PW_J_OBJECT && row->child != PW_SC_NONE)
			return flat_scope(f, v, row->child, true);
		if (row->kind == PW_J_OBJECTS && row->child != PW_SC_NONE) {
			for (size_t e = v + 1; e < t->next; e = f->t[e].next)
				if (!flat_scope(f, e, row->child, true))
					return false;
			return true;
		}
		/* A value no object row takes: of another line of the shape, any
		 * of the rows fitting says the same (an object row fits objects,
		 * and arrays of them, whatever their values: those are decided
		 * as here, by their type, and their members recorded); where every
		 * row is decided by the value's type, the shape decides it. */
		if (recording && !rows_by_type_only(at, n))
			*(struct pw_fit_check *)vec_push(recording) = (struct pw_fit_check){
			    (uint32_t)v, (uint16_t)at, (uint16_t)n, fields[by_scope[at]].kind};
		return true;
	}
	return false;
}

/* rows_of for the fast path, remembered per thread: a trace names the same
 * few dozen keys on every line, and the search of the table was a third of
 * the fast path's time.  Keys the table does not have are searched each
 * time (they are rare: members of a later writer). */
#define ROW_CACHE 512
static __thread struct {
	const char *key; /* the table's own copy; NULL: empty */
	uint32_t hash;
	unsigned short scope, at, n, len;
	bool req;
} row_cache[ROW_CACHE];

/* *req: one of the rows requires the key. */
static size_t rows_cached(int scope, const struct pw_tok *key, size_t *n, bool *req)
{
	__typeof__(row_cache[0]) *c = &row_cache[(key->hash ^ (uint32_t)scope * 0x9e3779b9u) % ROW_CACHE];
	if (c->key && c->hash == key->hash && c->scope == scope && c->len == key->n &&
	    !memcmp(c->key, key->v.s, key->n)) {
		*n = c->n;
		*req = c->req;
		return c->at;
	}
	size_t at = rows_of(scope, key->v.s, n);
	*req = key_required(at, *n);
	if (*n && key->n < 0xffff) {
		c->key = fields[by_scope[at]].key;
		c->hash = key->hash;
		c->scope = (unsigned short)scope;
		c->at = (unsigned short)at;
		c->n = (unsigned short)*n;
		c->len = (unsigned short)key->n;
		c->req = *req;
	}
	return at;
}

/* The members against their rows; in a nested object, every key a row
 * requires present: counted, as the scan let no key stand twice. */
static bool flat_scope(const struct pw_flat *f, size_t obj, int scope, bool nested)
{
	const struct pw_tok *o = &f->t[obj];
	size_t k = obj + 1, required = 0;
	for (uint32_t m = 0; m < o->n; m++, k = f->t[k + 1].next) {
		bool req;
		size_t n, at = rows_cached(scope, &f->t[k], &n, &req);
		if (n && !flat_member(f, k + 1, at, n))
			return false;
		required += req;
	}
	return !nested || required == req_keys[scope];
}

bool pw_flat_members_fit(const struct pw_flat *f, size_t obj, int scope)
{
	pthread_once(&index_once, build_index);
	return flat_scope(f, obj, scope, false);
}

bool pw_flat_members_fit_memo(const struct pw_flat *f, size_t obj, int scope, struct vec *checks)
{
	pthread_once(&index_once, build_index);
	vec_init(checks, sizeof(struct pw_fit_check));
	recording = checks;
	bool ok = flat_scope(f, obj, scope, false);
	recording = NULL;
	return ok;
}

bool pw_flat_checks_fit(const struct pw_flat *f, const struct pw_fit_check *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pw_tok *t = &f->t[c[i].v];
		if (c[i].n == 1) { /* most members: one row, its kind at hand */
			if (!fits_tok(c[i].kind, t, f->t))
				return false;
			continue;
		}
		size_t r = 0;
		while (r < c[i].n && !fits_tok(fields[by_scope[c[i].at + r]].kind, t, f->t))
			r++;
		if (r == c[i].n)
			return false;
	}
	return true;
}

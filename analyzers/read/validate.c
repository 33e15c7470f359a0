/*
 * One line of a trace, checked against docs/trace-format.md and turned into
 * a typed struct.  Every member a report may read is type-checked here, so
 * the reports can read them without checking again; a line that breaks the
 * format is refused whole, with a message that names the member.
 *
 * Members and event types this reader does not know are ignored (the format
 * lets later writers add them within version 1).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/reader.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- integers beyond 2^63-1 ----
 * jansson keeps integers as json_int_t (64-bit signed), but the library
 * writes size_t and unsigned long long values as they are, up to 2^64-1.
 * A line jansson refuses for such a number is read again with each of
 * them replaced by a marker the reader alone makes: the real number i.5,
 * where i indexes this thread's list of the numbers taken out.  The library
 * never writes a real number, and a line that has a real of that form
 * beside its own numbers is refused as ambiguous, so a marker always stands
 * for a number of the line.  Only unsigned members (PW_A_UINT) take them;
 * anywhere else such a number is refused as too big, as before. */

static __thread struct vec big_nums; /* uint64_t, the current line's */

/* The index of the marker v, or -1. */
static long marker_index(const json_t *v)
{
	if (!big_nums.len || !json_is_real(v))
		return -1;
	double r = json_real_value(v), i = (double)(long)r;
	if (r < 0 || r >= (double)big_nums.len || r - i != 0.5)
		return -1;
	return (long)i;
}

bool pw_json_u64(const json_t *v, uint64_t *out)
{
	long m = marker_index(v);
	if (m >= 0) {
		*out = *(uint64_t *)vec_at(&big_nums, (size_t)m);
		return true;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

bool pw_json_is_big(const json_t *v)
{
	return marker_index(v) >= 0;
}

static const char *type_name(const json_t *j)
{
	if (marker_index(j) >= 0)
		return "an integer beyond 2^63-1";
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* ---- typed member access with a message when the type is wrong ---- */

struct ctx {
	json_t *obj;
	const char *where; /* "" or "args." */
	char *err;
	size_t errlen;
};

static json_t *need(struct ctx *c, const char *key, json_type t, const char *what)
{
	json_t *v = json_object_get(c->obj, key);
	if (!v) {
		fail(c->err, c->errlen, "missing member \"%s%s\"", c->where, key);
		return NULL;
	}
	if (json_typeof(v) != t) {
		fail(c->err, c->errlen, "\"%s%s\" must be %s, not %s", c->where, key, what, type_name(v));
		return NULL;
	}
	return v;
}

static int get_int(struct ctx *c, const char *key, int64_t *out, int64_t min)
{
	json_t *v = need(c, key, JSON_INTEGER, "an integer");
	if (!v)
		return -1;
	*out = json_integer_value(v);
	if (*out < min)
		return fail(c->err, c->errlen, "\"%s%s\" is %lld, less than %lld", c->where, key,
		            (long long)*out, (long long)min);
	return 0;
}

/* A non-negative integer that may be absent (then *out is left alone). */
static int opt_int(struct ctx *c, const char *key, int64_t *out)
{
	return json_object_get(c->obj, key) ? get_int(c, key, out, 0) : 0;
}

static int get_u64(struct ctx *c, const char *key, uint64_t *out)
{
	int64_t v;
	if (get_int(c, key, &v, 0))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int get_str(struct ctx *c, const char *key, const char **out)
{
	json_t *v = need(c, key, JSON_STRING, "a string");
	if (!v)
		return -1;
	*out = json_string_value(v);
	return 0;
}

/* A string or null; absent is an error unless `optional`. */
static int get_str_null(struct ctx *c, const char *key, const char **out, bool optional)
{
	json_t *v = json_object_get(c->obj, key);
	*out = NULL;
	if (!v)
		return optional ? 0 : fail(c->err, c->errlen, "missing member \"%s%s\"", c->where, key);
	if (json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return fail(c->err, c->errlen, "\"%s%s\" must be a string or null, not %s", c->where, key,
		            type_name(v));
	*out = json_string_value(v);
	return 0;
}

/* Device ordinals fit a CUdevice (int); anything else is not one. */
static int check_dev(struct ctx *c, const char *key, json_t *v, int64_t *out)
{
	*out = PW_DEV_NONE;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return fail(c->err, c->errlen, "\"%s%s\" must be a device ordinal or null, not %s", c->where,
		            key, type_name(v));
	json_int_t d = json_integer_value(v);
	if (d < INT32_MIN || d > INT32_MAX)
		return fail(c->err, c->errlen, "\"%s%s\" is %lld, not a device ordinal", c->where, key,
		            (long long)d);
	*out = d;
	return 0;
}

/* ---- members: their kinds from the trace format's table ----
 * Every member of an event, of its "args" and of the objects inside them
 * is checked against its rows in PW_TRACE_FIELDS (peerwatch/trace_format.h),
 * the table the library writes by and the docs are generated from.  A key
 * with more than one row in its scope is right when one row's kind fits.
 * Members the table does not list are not checked (later writers may add
 * them: docs/trace-format.md, Compatibility); nor is the absence of an
 * event's own members, which traces of earlier writers may lack ("op"), and
 * which the parse below asks for where a report needs them.  The objects
 * inside a member (a location, a batch's copies) must have every member the
 * table says each has. */

static const struct pw_trace_field fields[] = {PW_TRACE_FIELDS(PW_TRACE_FIELD_INIT)};
#define NFIELDS (sizeof fields / sizeof *fields)

/* The rows of each scope, sorted by key: by_scope[first[s] .. first[s+1]). */
static unsigned short by_scope[NFIELDS], first[PW_SC_COUNT + 1];
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
	return fail(c->err, c->errlen, "\"%s\" must be %s, not %s", path, kind_phrase(kind), type_name(v));
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
	return fail(c->err, c->errlen, "\"%s\" must be %s, not %s", path, what, type_name(v));
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

/* Every member of an event (or another line) of the given scope. */
static int check_members(struct ctx *c, int scope)
{
	return check_scope(c, "", c->obj, scope, false);
}

/* ---- stacks ---- */

static int get_stack(struct ctx *c, struct pw_event *ev, struct vec *stack)
{
	json_t *s = json_object_get(c->obj, "stack");
	ev->stack = NULL;
	ev->nstack = 0;
	if (!s)
		return 0;
	if (!json_is_array(s))
		return fail(c->err, c->errlen, "\"stack\" must be an array of hex strings, not %s",
		            type_name(s));
	stack->len = 0;
	size_t i;
	json_t *e;
	json_array_foreach(s, i, e)
	{
		uint64_t pc;
		if (!json_is_string(e) || !parse_hex_u64(json_string_value(e), &pc))
			return fail(c->err, c->errlen, "\"stack[%zu]\" is not a hex address", i);
		*(uint64_t *)vec_push(stack) = pc;
	}
	ev->stack = stack->data;
	ev->nstack = stack->len;
	return 0;
}

/* ---- events ---- */

bool pw_vendor_known(const char *vendor)
{
	return !strcmp(vendor, "cuda") || !strcmp(vendor, "hip") || !strcmp(vendor, "acl");
}

static int parse_call(struct ctx *c, struct pw_event *ev, struct vec *stack)
{
	int64_t seq;
	if (get_int(c, "seq", &seq, 1) || get_int(c, "tid", &ev->tid, 0) ||
	    get_str(c, "vendor", &ev->vendor) || get_str(c, "api", &ev->api) ||
	    get_str(c, "variant", &ev->variant) || get_str(c, "family", &ev->family) ||
	    get_int(c, "t_ns", &ev->t_ns, 0) || get_int(c, "dur_ns", &ev->dur_ns, 0) ||
	    get_int(c, "ret", &ev->ret, INT64_MIN) || get_str_null(c, "ret_name", &ev->ret_name, false))
		return -1;
	ev->seq = (uint64_t)seq;
	if (ev->t_ns > INT64_MAX - ev->dur_ns)
		return fail(c->err, c->errlen, "\"t_ns\" + \"dur_ns\" overflows");
	json_t *p = json_object_get(c->obj, "parent");
	ev->has_parent = p != NULL;
	if (p && get_u64(c, "parent", &ev->parent))
		return -1;
	if (check_dev(c, "cur_dev", json_object_get(c->obj, "cur_dev"), &ev->cur_dev))
		return -1;
	if (get_str_null(c, "layer", &ev->layer, true) || get_str_null(c, "op", &ev->op, true))
		return -1;
	if (!ev->op) /* a trace from before calls had "op" */
		ev->op = pw_op_of_api(ev->api);
	json_t *pt = json_object_get(c->obj, "parent_time");
	if (pt && !json_is_boolean(pt))
		return fail(c->err, c->errlen, "\"parent_time\" must be a boolean, not %s", type_name(pt));
	ev->parent_time = json_is_true(pt);
	json_t *im = json_object_get(c->obj, "implicit");
	if (im && !json_is_boolean(im))
		return fail(c->err, c->errlen, "\"implicit\" must be a boolean, not %s", type_name(im));
	ev->implicit = json_is_true(im);
	if (!pw_vendor_known(ev->vendor))
		return fail(
		    c->err, c->errlen,
		    "vendor \"%.32s\" is not one this reader knows (cuda, hip, acl); the call is skipped",
		    ev->vendor);
	ev->args = need(c, "args", JSON_OBJECT, "an object");
	if (!ev->args || get_stack(c, ev, stack))
		return -1;
	return check_members(c, PW_SC_CALL);
}

static int violation_fields(struct ctx *c, struct pw_event *ev)
{
	int64_t seq;
	if (get_int(c, "seq", &seq, 1) || get_str(c, "rule", &ev->rule) ||
	    get_str(c, "severity", &ev->severity) || get_str(c, "message", &ev->message))
		return -1;
	ev->seq = (uint64_t)seq;
	/* absent for a finding made outside any call (ipc.leak, vmm.leak at exit) */
	ev->has_call = json_object_get(c->obj, "call") != NULL;
	if (ev->has_call && get_int(c, "call", &seq, 1))
		return -1;
	ev->call = ev->has_call ? (uint64_t)seq : 0;
	if (!*ev->rule)
		return fail(c->err, c->errlen, "\"rule\" is empty");
	/* optional: when and where the preload saw it */
	json_t *t = json_object_get(c->obj, "t_ns"), *tid = json_object_get(c->obj, "tid");
	if ((t && get_int(c, "t_ns", &ev->t_ns, 0)) || (tid && get_int(c, "tid", &ev->tid, 0)))
		return -1;
	ev->has_time = t && tid;
	/* the call's api and op, which an enforce-mode trace has nowhere else; a
	 * trace from before violations had "op": the op of the api */
	if (get_str_null(c, "api", &ev->api, true) || get_str_null(c, "op", &ev->op, true))
		return -1;
	if (!ev->op && ev->api)
		ev->op = pw_op_of_api(ev->api);
	return 0;
}

static int parse_violation(struct ctx *c, struct pw_event *ev, struct vec *stack)
{
	return violation_fields(c, ev) || get_stack(c, ev, stack) || check_members(c, PW_SC_VIOLATION) ? -1
	                                                                                               : 0;
}

static int parse_gpu_time(struct ctx *c, struct pw_event *ev)
{
	return get_u64(c, "call", &ev->call) || get_u64(c, "gpu_ns", &ev->gpu_ns) ||
	               check_members(c, PW_SC_GPU_TIME)
	           ? -1
	           : 0;
}

/* ---- an arena for the parse ----
 * A parsed line is a few dozen small allocations that all die together
 * when the line is done; malloc and free of each were an eighth of the
 * reading time.  While json_loadb runs, jansson allocates from this
 * thread's arena (reset before each line); its frees of arena memory do
 * nothing.  Everything else — and a line too big for the arena — uses
 * malloc as usual, so jansson objects made elsewhere are unaffected. */

#define ARENA_SIZE (256u << 10)

static __thread struct {
	char *base, *ptr, *end;
	bool active;
} arena;
static bool arena_on; /* set once by pw_reader_init, before any thread */

static void *arena_malloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (arena.active && (size_t)(arena.end - arena.ptr) >= n) {
		void *p = arena.ptr;
		arena.ptr += n;
		return p;
	}
	return malloc(n);
}

static void arena_free(void *p)
{
	if (arena.base && (char *)p >= arena.base && (char *)p < arena.end)
		return;
	free(p);
}

/* Under AddressSanitizer the arena would hide a use of an event after its
 * callback (its frees do nothing): sanitizer builds parse with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_WANTED false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_WANTED false
#endif
#endif
#ifndef ARENA_WANTED
#define ARENA_WANTED true
#endif

void pw_reader_init(void)
{
	json_object_seed(0); /* seeded once, before any thread parses */
	if (!ARENA_WANTED)
		return;
	json_set_alloc_funcs(arena_malloc, arena_free);
	arena_on = true;
}

void pw_reader_thread_done(void)
{
	vec_free(&big_nums);
	big_nums.esz = 0;
	free(arena.base);
	arena.base = arena.ptr = arena.end = NULL;
}

static json_t *load_arena(const char *line, size_t len, json_error_t *je)
{
	if (!arena_on)
		return json_loadb(line, len, 0, je);
	if (!arena.base) {
		arena.base = xmalloc(ARENA_SIZE);
		arena.end = arena.base + ARENA_SIZE;
	}
	arena.ptr = arena.base; /* the previous line's objects are gone by now */
	arena.active = true;
	json_t *j = json_loadb(line, len, 0, je);
	arena.active = false;
	return j;
}

/* The line with every integer literal from 2^63 to 2^64-1 (outside strings)
 * replaced by its marker; NULL when there is none. */
static char *mark_big(const char *line, size_t len, size_t *outlen)
{
	char *out = NULL;
	size_t n = 0, cap = 0, copied = 0;
	bool in_str = false;
	for (size_t i = 0; i < len; i++) {
		char ch = line[i];
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		if (ch == '"') {
			in_str = true;
			continue;
		}
		if (ch < '0' || ch > '9')
			continue;
		size_t j = i;
		while (j < len && strchr("0123456789.eE+-", line[j]) && line[j])
			j++;
		bool plain = (i == 0 || line[i - 1] != '-') && !(line[i] == '0' && j - i > 1);
		uint64_t v = 0;
		for (size_t k = i; plain && k < j; k++) {
			unsigned dg = (unsigned)(line[k] - '0');
			if (dg > 9 || v > (UINT64_MAX - dg) / 10)
				plain = false;
			else
				v = v * 10 + dg;
		}
		if (plain && v > (uint64_t)INT64_MAX) {
			char m[32];
			int ml = snprintf(m, sizeof m, "%zu.5", big_nums.len);
			*(uint64_t *)vec_push(&big_nums) = v;
			if (n + (i - copied) + (size_t)ml + 1 > cap) {
				cap = 2 * (n + (i - copied) + (size_t)ml + len + 1);
				out = xrealloc(out, cap);
			}
			memcpy(out + n, line + copied, i - copied);
			n += i - copied;
			memcpy(out + n, m, (size_t)ml);
			n += (size_t)ml;
			copied = j;
		}
		i = j - 1;
	}
	if (!out)
		return NULL;
	out = xrealloc(out, n + (len - copied) + 1);
	memcpy(out + n, line + copied, len - copied);
	*outlen = n + (len - copied);
	return out;
}

/* Counts the markers in j; false when one index is there twice (the line
 * had a real of the marker's form of its own). */
static bool markers_once(const json_t *j, unsigned char *seen)
{
	size_t i;
	const char *k;
	json_t *e;
	long m = marker_index(j);
	if (m >= 0) {
		if (seen[m])
			return false;
		seen[m] = 1;
	} else if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, e) if (!markers_once(e, seen)) return false;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, e) if (!markers_once(e, seen)) return false;
	}
	return true;
}

static json_t *load(const char *line, size_t len, json_error_t *je)
{
	if (!big_nums.esz)
		vec_init(&big_nums, sizeof(uint64_t));
	big_nums.len = 0;
	json_t *j = load_arena(line, len, je);
	if (j || !strstr(je->text, "too big integer"))
		return j;
	size_t ml = 0;
	char *marked = mark_big(line, len, &ml);
	if (!marked)
		return NULL;
	json_error_t je2;
	j = load_arena(marked, ml, &je2);
	free(marked);
	if (!j) {
		big_nums.len = 0;
		return NULL; /* the first error, at its column in the line */
	}
	unsigned char *seen = xcalloc(big_nums.len, 1);
	bool ok = markers_once(j, seen);
	free(seen);
	if (!ok) {
		json_decref(j);
		big_nums.len = 0;
		snprintf(je->text, sizeof je->text,
		         "a real number of the form N.5 beside an integer beyond 2^63-1 (ambiguous)");
		je->column = 0;
		return NULL;
	}
	return j;
}

enum pw_line_kind pw_parse_line(const char *line, size_t len, struct pw_event *ev, struct vec *stack,
                                json_t **root, char *err, size_t errlen)
{
	json_error_t je;
	memset(ev, 0, sizeof *ev);
	ev->cur_dev = PW_DEV_NONE;
	*root = load(line, len, &je);
	if (!*root) {
		fail(err, errlen, "not valid JSON (column %d): %s", je.column, je.text);
		return PW_LINE_BAD;
	}
	ev->root = *root;
	if (!json_is_object(*root)) {
		fail(err, errlen, "a line must be a JSON object, not %s", type_name(*root));
		return PW_LINE_BAD;
	}
	struct ctx c = {*root, "", err, errlen};
	const char *type;
	if (get_str(&c, "type", &type))
		return PW_LINE_BAD;
	int r;
	if (!strcmp(type, "call")) {
		ev->type = PW_EV_CALL;
		r = parse_call(&c, ev, stack);
	} else if (!strcmp(type, "violation")) {
		ev->type = PW_EV_VIOLATION;
		r = parse_violation(&c, ev, stack);
	} else if (!strcmp(type, "gpu_time")) {
		ev->type = PW_EV_GPU_TIME;
		r = parse_gpu_time(&c, ev);
	} else if (!strcmp(type, "device")) {
		return PW_LINE_DEVICE;
	} else if (!strcmp(type, "header")) {
		return PW_LINE_HEADER;
	} else if (!strcmp(type, "footer")) {
		return PW_LINE_FOOTER;
	} else {
		return PW_LINE_OTHER;
	}
	if (r) {
		/* say which event, when its number is readable */
		json_t *s = json_object_get(*root, "seq");
		if (json_is_integer(s) && strlen(err) + 40 < errlen) {
			char tmp[512];
			snprintf(tmp, sizeof tmp, "%s seq %lld: %s", type, (long long)json_integer_value(s),
			         err);
			snprintf(err, errlen, "%s", tmp);
		}
		return PW_LINE_BAD;
	}
	return PW_LINE_EVENT;
}

/* ---- header and footer ---- */

static void free_modules(struct vec *mods)
{
	for (size_t i = 0; i < mods->len; i++) {
		struct pw_module *m = vec_at(mods, i);
		free(m->path);
		free(m->build_id);
	}
	mods->len = 0;
}

static bool have_module(const struct vec *mods, const char *path, uint64_t base)
{
	for (size_t i = 0; i < mods->len; i++) {
		const struct pw_module *m = vec_at(mods, i);
		if (m->base == base && !strcmp(m->path, path))
			return true;
	}
	return false;
}

/* Adds the modules not already listed (the footer repeats the header's). */
static int get_modules(struct ctx *c, struct vec *mods)
{
	json_t *a = json_object_get(c->obj, "modules");
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"modules\" must be an array, not %s", type_name(a));
	size_t i;
	json_t *m;
	json_array_foreach(a, i, m)
	{
		json_t *p = json_object_get(m, "path"), *b = json_object_get(m, "base"),
		       *id = json_object_get(m, "build_id");
		uint64_t base;
		if (!json_is_object(m) || !json_is_string(p) || !json_is_string(b) ||
		    !parse_hex_u64(json_string_value(b), &base) ||
		    (id && !json_is_string(id) && !json_is_null(id)))
			return fail(c->err, c->errlen,
			            "\"modules[%zu]\" must be {\"path\": string, \"base\": hex, "
			            "\"build_id\": string or null}",
			            i);
		if (have_module(mods, json_string_value(p), base))
			continue;
		struct pw_module *pm = vec_push(mods);
		pm->path = xstrdup(json_string_value(p));
		pm->base = base;
		pm->build_id = json_is_string(id) ? xstrdup(json_string_value(id)) : NULL;
	}
	return 0;
}

static int get_argv(struct ctx *c, struct pw_file *f)
{
	json_t *a = json_object_get(c->obj, "argv");
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"argv\" must be an array of strings, not %s", type_name(a));
	f->argv = xcalloc(json_array_size(a) + 1, sizeof *f->argv);
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s)
	{
		if (!json_is_string(s))
			return fail(c->err, c->errlen, "\"argv[%zu]\" must be a string, not %s", i,
			            type_name(s));
		f->argv[f->argc++] = xstrdup(json_string_value(s));
	}
	return 0;
}

static int get_vendors(struct ctx *c, struct pw_file *f)
{
	json_t *v = json_object_get(c->obj, "vendors");
	if (!v)
		return 0;
	if (!json_is_object(v))
		return fail(c->err, c->errlen, "\"vendors\" must be an object, not %s", type_name(v));
	/* hip and acl: {"library": string or null, "runtime_version": integer, string or null} */
	static const char *const others[] = {"hip", "acl"};
	for (size_t i = 0; i < 2; i++) {
		json_t *o = json_object_get(v, others[i]), *rv = json_object_get(o, "runtime_version");
		char where[32];
		const char *lib;
		snprintf(where, sizeof where, "vendors.%s.", others[i]);
		struct ctx oc = {o, where, c->err, c->errlen};
		if (!o)
			continue;
		if (!json_is_object(o))
			return fail(c->err, c->errlen, "\"vendors.%s\" must be an object, not %s", others[i],
			            type_name(o));
		if (get_str_null(&oc, "library", &lib, true))
			return -1;
		if (rv && !json_is_null(rv) && !json_is_integer(rv) && !json_is_string(rv))
			return fail(
			    c->err, c->errlen,
			    "\"vendors.%s.runtime_version\" must be an integer, a string or null, not %s",
			    others[i], type_name(rv));
	}
	free(f->vendors);
	f->vendors = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_t *cuda = json_object_get(v, "cuda");
	if (!cuda)
		return 0;
	struct ctx cc = {cuda, "vendors.cuda.", c->err, c->errlen};
	if (!json_is_object(cuda))
		return fail(c->err, c->errlen, "\"vendors.cuda\" must be an object");
	const char *lib;
	if (get_str_null(&cc, "library", &lib, true))
		return -1;
	f->driver_lib = lib ? xstrdup(lib) : NULL;
	json_t *dv = json_object_get(cuda, "driver_version");
	if (dv && !json_is_null(dv) && !json_is_integer(dv))
		return fail(c->err, c->errlen, "\"vendors.cuda.driver_version\" must be an integer or null");
	f->has_driver_version = json_is_integer(dv);
	f->driver_version = f->has_driver_version ? json_integer_value(dv) : 0;
	return 0;
}

/* "environment": [{"name", "value"}...]; absent in traces from before it */
static int get_environment(struct ctx *c, struct pw_file *f)
{
	json_t *e = json_object_get(c->obj, "environment"), *o;
	size_t i;
	if (!e)
		return 0;
	if (!json_is_array(e))
		return fail(c->err, c->errlen, "\"environment\" must be an array, not %s", type_name(e));
	json_array_foreach(e, i, o)
	{
		if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")) ||
		    !json_is_string(json_object_get(o, "value")))
			return fail(
			    c->err, c->errlen,
			    "\"environment[%zu]\" must be an object with string members name and value", i);
	}
	free(f->environment);
	f->environment = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER);
	return 0;
}

static int get_options(struct ctx *c, struct pw_file *f)
{
	json_t *o = json_object_get(c->obj, "options");
	if (!o)
		return 0;
	if (!json_is_object(o))
		return fail(c->err, c->errlen, "\"options\" must be an object, not %s", type_name(o));
	f->options = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *m = json_object_get(o, "mode");
	if (json_is_string(m))
		f->mode = xstrdup(json_string_value(m));
	return 0;
}

static int check_format(struct ctx *c)
{
	const char *format;
	int64_t version;
	if (get_str(c, "format", &format))
		return -1;
	if (strcmp(format, "peerwatch"))
		return fail(c->err, c->errlen, "not a peerwatch trace (format \"%.64s\")", format);
	json_t *v = json_object_get(c->obj, "version");
	if (!json_is_integer(v))
		return fail(c->err, c->errlen, "the header's \"version\" must be an integer");
	version = json_integer_value(v);
	if (version != PW_FORMAT_VERSION)
		return fail(c->err, c->errlen,
		            "trace format version %lld is not known to this reader (it reads version %d)",
		            (long long)version, PW_FORMAT_VERSION);
	return 0;
}

int pw_file_header(struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	struct ctx c = {root, "", err, errlen};
	const char *host, *pwv, *run;
	if (check_format(&c) || get_int(&c, "pid", &f->pid, 0) || get_str(&c, "host", &host) ||
	    get_str_null(&c, "peerwatch_version", &pwv, true) || get_str_null(&c, "run_id", &run, true))
		return -1;
	f->host = xstrdup(host);
	f->run_id = run ? xstrdup(run) : NULL;
	f->pw_version = pwv ? xstrdup(pwv) : NULL;
	if (opt_int(&c, "ppid", &f->ppid) || opt_int(&c, "t0_mono_ns", &f->t0_mono_ns) ||
	    opt_int(&c, "t0_real_ns", &f->t0_real_ns))
		return -1;
	json_t *v = json_object_get(root, "rank");
	/* a rank variable that is not a decimal integer is written as its text
	 * (docs/trace-format.md); reports show ranks that are numbers */
	if (v && !json_is_null(v) && !json_is_integer(v) && !json_is_string(v))
		return fail(err, errlen, "\"rank\" must be an integer, a string or null, not %s",
		            type_name(v));
	f->has_rank = json_is_integer(v);
	f->rank = f->has_rank ? json_integer_value(v) : 0;
	if (get_argv(&c, f) || get_options(&c, f) || get_vendors(&c, f) || get_modules(&c, &f->modules) ||
	    get_environment(&c, f))
		return -1;
	f->header_ok = true;
	return 0;
}

/* ---- device lines ---- */

static void device_free(struct pw_device *d)
{
	free(d->uuid);
	free(d->bus_id);
	free(d->name);
	for (size_t i = 0; i < d->peers.len; i++) {
		struct pw_peer_info *p = vec_at(&d->peers, i);
		free(p->link);
		free(p->topology);
		free(p->p2p_read);
	}
	vec_free(&d->peers);
}

void pw_devices_free(struct vec *devices)
{
	for (size_t i = 0; i < devices->len; i++)
		device_free(vec_at(devices, i));
	vec_free(devices);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* An integer or null member (absent: null); out -1 for null. */
static int int_or_null(struct ctx *c, const char *key, int64_t *out)
{
	json_t *v = json_object_get(c->obj, key);
	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	return get_int(c, key, out, 0);
}

static int get_peer(struct ctx *dc, json_t *o, size_t i, struct pw_peer_info *p)
{
	char where[48];
	snprintf(where, sizeof where, "peers[%zu].", i);
	if (!json_is_object(o))
		return fail(dc->err, dc->errlen, "\"peers[%zu]\" must be an object, not %s", i, type_name(o));
	struct ctx c = {o, where, dc->err, dc->errlen};
	const char *link, *topo, *rd;
	if (get_int(&c, "ordinal", &p->ordinal, 0) || get_str(&c, "link", &link) ||
	    int_or_null(&c, "can_access", &p->can_access) || int_or_null(&c, "nvlinks", &p->nvlinks) ||
	    get_str_null(&c, "topology", &topo, true) || get_str_null(&c, "p2p_read", &rd, true))
		return -1;
	if (p->ordinal > INT32_MAX)
		return fail(dc->err, dc->errlen, "\"%sordinal\" is not a device ordinal", where);
	p->link = xstrdup(link);
	p->topology = dup_or_null(topo);
	p->p2p_read = dup_or_null(rd);
	return 0;
}

int pw_file_add_device(struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	struct ctx c = {root, "", err, errlen};
	struct pw_device d = {.physical_id = -1};
	const char *vendor, *uuid, *bus, *name;
	vec_init(&d.peers, sizeof(struct pw_peer_info));
	if (get_str(&c, "vendor", &vendor) || get_int(&c, "ordinal", &d.ordinal, 0) ||
	    get_str_null(&c, "uuid", &uuid, false) || get_str_null(&c, "bus_id", &bus, false) ||
	    get_str_null(&c, "name", &name, false) || opt_int(&c, "physical_id", &d.physical_id))
		return -1;
	if (!pw_vendor_known(vendor))
		return fail(err, errlen, "vendor \"%.32s\" is not one this reader knows (cuda, hip, acl)",
		            vendor);
	if (d.ordinal > INT32_MAX)
		return fail(err, errlen, "\"ordinal\" is %lld, not a device ordinal", (long long)d.ordinal);
	json_t *peers = need(&c, "peers", JSON_ARRAY, "an array");
	if (!peers)
		return -1;
	size_t i;
	json_t *o;
	json_array_foreach(peers, i, o)
	{
		struct pw_peer_info p = {0};
		if (get_peer(&c, o, i, &p)) {
			device_free(&d);
			return -1;
		}
		*(struct pw_peer_info *)vec_push(&d.peers) = p;
	}
	snprintf(d.vendor, sizeof d.vendor, "%s", vendor);
	d.uuid = dup_or_null(uuid);
	d.bus_id = dup_or_null(bus);
	d.name = dup_or_null(name);
	for (size_t k = 0; k < f->devices.len; k++) {
		struct pw_device *old = vec_at(&f->devices, k);
		if (old->ordinal == d.ordinal && !strcmp(old->vendor, d.vendor)) {
			device_free(old);
			*old = d;
			return 0;
		}
	}
	*(struct pw_device *)vec_push(&f->devices) = d;
	return 0;
}

/* "dropped_by": {"cause": count, ...} */
static int get_dropped_by(struct ctx *c, struct pw_file *f)
{
	json_t *d = json_object_get(c->obj, "dropped_by"), *v;
	const char *k;
	if (!d)
		return 0;
	if (!json_is_object(d))
		return fail(c->err, c->errlen, "\"dropped_by\" must be an object, not %s", type_name(d));
	json_object_foreach(d, k, v) if (!json_is_integer(v) || json_integer_value(v) < 0) return fail(
	    c->err, c->errlen, "\"dropped_by.%.64s\" must be a non-negative integer", k);
	free(f->dropped_by);
	f->dropped_by = json_dumps(d, JSON_COMPACT | JSON_PRESERVE_ORDER);
	return 0;
}

/* "repeats_by": [{"rule": id, "site": "0x...", "count": N}, ...] */
static int get_repeats_by(struct ctx *c, struct pw_file *f)
{
	json_t *a = json_object_get(c->obj, "repeats_by"), *e;
	size_t i;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"repeats_by\" must be an array, not %s", type_name(a));
	json_array_foreach(a, i, e)
	{
		json_t *r = json_object_get(e, "rule"), *n = json_object_get(e, "count");
		if (!json_is_object(e) || !json_is_string(r) || !json_is_integer(n) ||
		    json_integer_value(n) < 0)
			return fail(c->err, c->errlen,
			            "\"repeats_by[%zu]\" must be an object with a \"rule\" string and a "
			            "non-negative \"count\"",
			            i);
	}
	free(f->repeats_by);
	f->repeats_by = json_array_size(a) ? json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	return 0;
}

/* "suppressions": [{"line", "suppression", "hits", "default"?}]: the hits of
 * the default suppressions (those with "default"), by name. */
static int get_suppressions(struct ctx *c, struct pw_file *f)
{
	json_t *a = json_object_get(c->obj, "suppressions"), *e;
	size_t i;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"suppressions\" must be an array, not %s", type_name(a));
	json_t *by = json_object();
	json_array_foreach(a, i, e)
	{
		json_t *n = json_object_get(e, "hits"), *d = json_object_get(e, "default");
		if (!json_is_object(e) || !json_is_integer(n) || json_integer_value(n) < 0 ||
		    (d && !json_is_string(d))) {
			json_decref(by);
			return fail(c->err, c->errlen,
			            "\"suppressions[%zu]\" must be an object with a non-negative \"hits\" "
			            "and, for a default suppression, a \"default\" name",
			            i);
		}
		if (!d)
			continue;
		json_t *old = json_object_get(by, json_string_value(d));
		json_int_t sum = json_integer_value(n) + (old ? json_integer_value(old) : 0);
		json_object_set_new(by, json_string_value(d), json_integer(sum));
	}
	free(f->suppressed_by_default);
	f->suppressed_by_default =
	    json_object_size(by) ? json_dumps(by, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(by);
	return 0;
}

/* "limit": {"bytes": N, "seq": N, "t_ns": N}, present when the size limit stopped recording */
static int get_limit(struct ctx *c, struct pw_file *f)
{
	json_t *l = json_object_get(c->obj, "limit");
	if (!l)
		return 0;
	if (!json_is_object(l))
		return fail(c->err, c->errlen, "\"limit\" must be an object, not %s", type_name(l));
	struct ctx lc = {l, "limit.", c->err, c->errlen};
	f->limit_bytes = f->limit_seq = f->limit_t_ns = -1;
	if (opt_int(&lc, "bytes", &f->limit_bytes) || opt_int(&lc, "seq", &f->limit_seq) ||
	    opt_int(&lc, "t_ns", &f->limit_t_ns))
		return -1;
	f->has_limit = true;
	return 0;
}

int pw_file_footer(struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	struct ctx c = {root, "", err, errlen};
	const char *reason, *werr, *rerr;
	if (get_int(&c, "events", &f->footer_events, 0) || get_int(&c, "dropped", &f->dropped, 0) ||
	    get_str_null(&c, "reason", &reason, true) || get_str_null(&c, "write_error", &werr, true) ||
	    get_str_null(&c, "report_error", &rerr, true))
		return -1;
	f->footer_violations = f->suppressed = f->repeats = -1;
	f->has_t_end = json_object_get(root, "t_end_ns") != NULL;
	if (opt_int(&c, "t_end_ns", &f->t_end_ns) || opt_int(&c, "violations", &f->footer_violations) ||
	    opt_int(&c, "suppressed", &f->suppressed) || opt_int(&c, "repeats", &f->repeats))
		return -1;
	if (get_modules(&c, &f->modules) || get_dropped_by(&c, f) || get_repeats_by(&c, f) ||
	    get_suppressions(&c, f) || get_limit(&c, f))
		return -1;
	free(f->reason);
	f->reason = reason ? xstrdup(reason) : NULL;
	free(f->write_error);
	f->write_error = werr ? xstrdup(werr) : NULL;
	free(f->report_error);
	f->report_error = rerr ? xstrdup(rerr) : NULL;
	f->footer = true;
	return 0;
}

/* Everything a read fills in, so that a second read starts clean. */
void pw_file_clear(struct pw_file *f)
{
	free(f->host);
	for (size_t i = 0; i < f->argc; i++)
		free(f->argv[i]);
	free(f->argv);
	free(f->options);
	free(f->mode);
	free(f->pw_version);
	free(f->driver_lib);
	free(f->vendors);
	free(f->run_id);
	free(f->reason);
	free(f->dropped_by);
	free(f->repeats_by);
	free(f->suppressed_by_default);
	free(f->write_error);
	free(f->report_error);
	free(f->unreadable);
	free(f->environment);
	free_modules(&f->modules);
	vec_free(&f->modules);
	pw_devices_free(&f->devices);
	char *path = f->path;
	size_t index = f->index;
	bool partial = f->partial;
	memset(f, 0, sizeof *f);
	f->path = path;
	f->index = index;
	f->partial = partial;
	vec_init(&f->modules, sizeof(struct pw_module));
	vec_init(&f->devices, sizeof(struct pw_device));
}

/* ---- arguments of a validated call ---- */

bool pw_arg_u64(const struct pw_event *ev, const char *key, uint64_t *out)
{
	return pw_json_u64(ev->args ? json_object_get(ev->args, key) : NULL, out);
}

bool pw_arg_i64(const struct pw_event *ev, const char *key, int64_t *out)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

bool pw_arg_hex(const struct pw_event *ev, const char *key, uint64_t *out)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	return json_is_string(v) && parse_hex_u64(json_string_value(v), out);
}

int64_t pw_arg_dev(const struct pw_event *ev, const char *key)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	if (!json_is_integer(v))
		return PW_DEV_NONE;
	json_int_t d = json_integer_value(v);
	return d < INT32_MIN || d > INT32_MAX ? PW_DEV_NONE : d;
}

const char *pw_arg_str(const struct pw_event *ev, const char *key)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

bool pw_arg_handle(const struct pw_event *ev, const char *key, char out[129])
{
	const char *s = pw_arg_str(ev, key);
	if (!s || strlen(s) != 128 || !is_hex_n(s, 128))
		return false;
	for (int i = 0; i < 128; i++)
		out[i] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 'a' : s[i]);
	out[128] = 0;
	return true;
}

const char *pw_file_program(const struct pw_file *f)
{
	return f->argc && f->argv[0][0] ? base_name(f->argv[0]) : "?";
}

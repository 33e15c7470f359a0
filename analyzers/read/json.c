/*
 * A trace line's JSON (json.h): jansson allocating from a per-thread
 * arena, and the integers beyond 2^63-1 it cannot hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "read/json.h"

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

const char *pw_json_type(const json_t *j)
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

/* A member named twice in one object is an error, not the last one's
 * value (jansson's default): the fast path says the same (schema.c). */
enum { LOAD_FLAGS = JSON_REJECT_DUPLICATES };

static json_t *load_arena(const char *line, size_t len, json_error_t *je)
{
	if (!arena_on)
		return json_loadb(line, len, LOAD_FLAGS, je);
	if (!arena.base) {
		arena.base = xmalloc(ARENA_SIZE);
		arena.end = arena.base + ARENA_SIZE;
	}
	arena.ptr = arena.base; /* the previous line's objects are gone by now */
	arena.active = true;
	json_t *j = json_loadb(line, len, LOAD_FLAGS, je);
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

void pw_json_forget(void)
{
	big_nums.len = 0;
}

json_t *pw_json_load(const char *line, size_t len, json_error_t *je)
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

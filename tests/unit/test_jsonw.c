/* The hot-path JSON writer: numbers, escapes, hex, overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record/jsonw.h"

static char buf[512];

static const char *finish(struct pw_jw *w)
{
	assert_false(w->overflow);
	*w->p = 0;
	return buf;
}

static void numbers(void **state)
{
	(void)state;
	struct pw_jw w;
	pw_jw_init(&w, buf, sizeof buf - 1);
	pw_jw_obj_open(&w);
	pw_jw_kv_u64(&w, "a", 0);
	pw_jw_kv_u64(&w, "b", UINT64_MAX);
	pw_jw_kv_i64(&w, "c", INT64_MIN);
	pw_jw_kv_i64(&w, "d", -1);
	pw_jw_kv_hex(&w, "e", 0);
	pw_jw_kv_hex(&w, "f", 0x7f00deadbeefULL);
	pw_jw_obj_close(&w);
	assert_string_equal(finish(&w), "{\"a\":0,\"b\":18446744073709551615,\"c\":-9223372036854775808,"
	                                "\"d\":-1,\"e\":\"0x0\",\"f\":\"0x7f00deadbeef\"}");
}

/* Every digit count, at its edges, against printf; and the room each needs. */
static void numbers_at_every_width(void **state)
{
	(void)state;
	uint64_t vals[200];
	int n = 0;
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) {
		vals[n++] = p - 1;
		vals[n++] = p;
		vals[n++] = p + 1;
	}
	for (int k = 0; k < 16; k++) {
		uint64_t p = 1ULL << (4 * k);
		vals[n++] = p - 1;
		vals[n++] = p;
	}
	vals[n++] = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		char want[64], room[64];
		struct pw_jw w;
		snprintf(want, sizeof want, "%llu", (unsigned long long)vals[i]);
		pw_jw_init(&w, buf, sizeof buf - 1);
		pw_jw_u64(&w, vals[i]);
		assert_string_equal(finish(&w), want);
		/* exactly its room: fits; one byte less: overflow, nothing past the end */
		size_t len = strlen(want);
		pw_jw_init(&w, room, len);
		pw_jw_u64(&w, vals[i]);
		assert_false(w.overflow);
		memset(room, 'X', sizeof room);
		pw_jw_init(&w, room, len - 1);
		pw_jw_u64(&w, vals[i]);
		assert_true(w.overflow);
		assert_int_equal(room[len - 1], 'X');

		snprintf(want, sizeof want, "\"0x%llx\"", (unsigned long long)vals[i]);
		pw_jw_init(&w, buf, sizeof buf - 1);
		pw_jw_hex(&w, vals[i]);
		assert_string_equal(finish(&w), want);
		len = strlen(want);
		memset(room, 'X', sizeof room);
		pw_jw_init(&w, room, len - 1);
		pw_jw_hex(&w, vals[i]);
		assert_true(w.overflow);
		assert_int_equal(room[len - 1], 'X');
	}
}

static void strings_are_escaped(void **state)
{
	(void)state;
	struct pw_jw w;
	pw_jw_init(&w, buf, sizeof buf - 1);
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "s", "q\"b\\n\n\x01t");
	pw_jw_obj_close(&w);
	json_error_t e;
	json_t *j = json_loads(finish(&w), 0, &e);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "s")), "q\"b\\n\n\x01t");
	json_decref(j);
}

static void bytes_are_hex(void **state)
{
	(void)state;
	struct pw_jw w;
	unsigned char b[64];
	for (int i = 0; i < 64; i++)
		b[i] = (unsigned char)(i * 5);
	pw_jw_init(&w, buf, sizeof buf - 1);
	pw_jw_bytes(&w, b, sizeof b);
	const char *s = finish(&w);
	assert_int_equal(strlen(s), 130);
	assert_memory_equal(s, "\"00050a0f14", 11);
}

static void overflow_is_detected_not_written_past(void **state)
{
	(void)state;
	char small[16];
	memset(small, 'X', sizeof small);
	struct pw_jw w;
	pw_jw_init(&w, small, 8);
	pw_jw_kv_str(&w, "key", "a long value");
	assert_true(w.overflow);
	assert_int_equal(small[8], 'X');
	assert_int_equal(small[15], 'X');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(numbers),
	    cmocka_unit_test(numbers_at_every_width),
	    cmocka_unit_test(strings_are_escaped),
	    cmocka_unit_test(bytes_are_hex),
	    cmocka_unit_test(overflow_is_detected_not_written_past),
	};
	return cmocka_run_group_tests_name("jsonw", tests, NULL, NULL);
}

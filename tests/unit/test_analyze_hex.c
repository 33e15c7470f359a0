/*
 * The hex tests of every line (analyzers/base/util.c): is_hex_n looks at
 * eight bytes at once, so each of the 256 byte values is tried at every
 * place of strings of 1 to 20 digits (a whole word, a word and a part,
 * a part alone), against a byte-at-a-time reading of what a hex digit is;
 * and is_hex_u64 says yes exactly where parse_hex_u64 reads a value.
 * fmt_ns, which writes most times without snprintf, writes what snprintf
 * writes: every whole number of nanoseconds to ten million, a spread of
 * larger ones and fractions, the halves where rounding is decided.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "base/util.h"

static bool digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!digit((unsigned char)s[i]))
			return false;
	return s[n] == 0;
}

static void every_byte_at_every_place(void **state)
{
	(void)state;
	char buf[32];
	for (size_t n = 1; n <= 20; n++)
		for (size_t at = 0; at < n; at++)
			for (int c = 1; c < 256; c++) {
				for (size_t i = 0; i < n; i++)
					buf[i] = "0123456789abcdefABCDEF"[(i * 7 + n) % 22];
				buf[n] = 0;
				buf[at] = (char)c;
				if (is_hex_n(buf, n) != all_digits(buf, n))
					fail_msg("is_hex_n: byte 0x%02x at %zu of %zu: %d", c, at, n,
					         is_hex_n(buf, n));
			}
}

static void only_the_n_bytes(void **state)
{
	(void)state;
	/* a string longer than n is not n digits; one that is n, whatever follows its NUL */
	assert_false(is_hex_n("0123456789abcdef0", 16));
	assert_true(is_hex_n("0123456789abcdef\0zz", 16));
	assert_true(is_hex_n("7\0g", 1));
	assert_true(is_hex_n("", 0));
	assert_false(is_hex_n("0123456789ABCDEF01234567", 23));
}

static void u64_as_parse_reads_it(void **state)
{
	(void)state;
	static const char *const s[] = {"0x0",
	                                "0X7f",
	                                "0x",
	                                "0xg",
	                                "0x0123456789abcdef",
	                                "0x0123456789abcdef0",
	                                "00x1",
	                                "0x1 ",
	                                "x12",
	                                "0xFFFFFFFFFFFFFFFF",
	                                "0x-1",
	                                "0x12345678"};
	for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
		uint64_t v;
		assert_int_equal(is_hex_u64(s[i], strlen(s[i])), parse_hex_u64(s[i], &v));
	}
}

/* fmt_ns as it was, all by snprintf */
static void fmt_ns_printf(char *buf, size_t len, double ns)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	int u = 0;
	while (ns >= 999.5 && u < 3) {
		ns /= 1000;
		u++;
	}
	if (u == 0 || ns >= 99.95)
		snprintf(buf, len, "%.0f%s", ns, unit[u]);
	else
		snprintf(buf, len, "%.*f%s", ns < 9.995 ? 2 : 1, ns, unit[u]);
}

static void same_ns(double ns, size_t len)
{
	char a[48], b[48];
	memset(a, 'x', sizeof a);
	memset(b, 'x', sizeof b);
	fmt_ns(a, len, ns);
	fmt_ns_printf(b, len, ns);
	if (memcmp(a, b, sizeof a))
		fail_msg("fmt_ns(%.17g, %zu): '%.*s', snprintf: '%.*s'", ns, len, (int)len, a, (int)len, b);
}

static void times_as_snprintf_writes_them(void **state)
{
	(void)state;
	for (uint64_t n = 0; n <= 10000000; n++)
		same_ns((double)n, 48);
	for (uint64_t n = 10000000; n < 4000000000000000000ull; n += n / 997 + 1)
		same_ns((double)n, 48);
	uint64_t r = 88172645463325252ull;
	for (int i = 0; i < 1000000; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		same_ns((double)(r >> 11) / (double)(1ull << (r % 53)), 48);
	}
	static const double half[] = {0.5,   1.5,    2.5,     9.995, 99.95,    999.5, 1005, 1015,
	                              99950, 999500, 9995000, 1e300, INFINITY, -1,    -0.0};
	for (size_t i = 0; i < sizeof half / sizeof *half; i++)
		same_ns(half[i], 48);
	for (size_t len = 0; len < 8; len++) /* cut short as snprintf cuts */
		same_ns(123456.0, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_byte_at_every_place),
	    cmocka_unit_test(only_the_n_bytes),
	    cmocka_unit_test(u64_as_parse_reads_it),
	    cmocka_unit_test(times_as_snprintf_writes_them),
	};
	return cmocka_run_group_tests_name("analyze_hex", tests, NULL, NULL);
}

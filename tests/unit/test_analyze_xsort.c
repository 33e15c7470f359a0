/*
 * Sorting beyond memory (analyzers/base/xsort.c): random records sorted
 * with every bound on what is held in memory — all of it, a few runs, a
 * run of two — come back in qsort's order, read forwards, backwards and
 * at random; a spool (no comparator) gives its records back in the order
 * pushed; and none of its temporary files is left in $TMPDIR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/util.h"
#include "base/xsort.h"

struct rec {
	uint64_t key;
	uint32_t tie, n; /* n: its place when pushed */
};

static int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->tie > y->tie) - (x->tie < y->tie);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char tmp[64];

static int make_tmp(void **state)
{
	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/pw-test-xsort.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	return setenv("TMPDIR", tmp, 1);
}

/* Whether the directory is empty: the sort's files are unlinked as made. */
static bool tmp_empty(void)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	bool empty = true;
	while (d && (e = readdir(d)))
		empty &= !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return empty;
}

static int remove_tmp(void **state)
{
	(void)state;
	unsetenv("TMPDIR");
	return rmdir(tmp);
}

static void sorted_at_every_bound(void **state)
{
	(void)state;
	enum { N = 20000 };
	static const size_t mem[] = {1 << 20, 4096, 1000, 7, 2};
	struct rec *want = xcalloc(N, sizeof *want);
	for (size_t m = 0; m < sizeof mem / sizeof *mem; m++) {
		struct xsort x;
		xsort_init(&x, sizeof(struct rec), mem[m], by_key);
		for (uint32_t i = 0; i < N; i++) {
			/* few distinct keys: many ties, each with its own tie (an odd
			 * multiple of its place: no two alike, not in order) */
			want[i] = (struct rec){next() % 97, i * 2654435761u, i};
			xsort_push(&x, &want[i]);
		}
		xsort_done(&x);
		assert_int_equal(xsort_len(&x), N);
		qsort(want, N, sizeof *want, by_key);
		for (size_t i = 0; i < N; i++) /* forwards */
			assert_memory_equal(xsort_at(&x, i), &want[i], sizeof *want);
		for (size_t i = N; i-- > 0;) /* backwards: a seek a record */
			assert_int_equal(((const struct rec *)xsort_at(&x, i))->n, want[i].n);
		for (int k = 0; k < 1000; k++) {
			size_t i = next() % N;
			assert_int_equal(((const struct rec *)xsort_at(&x, i))->n, want[i].n);
		}
		assert_true(tmp_empty());
		xsort_free(&x);
	}
	free(want);
}

static void spool_keeps_order(void **state)
{
	(void)state;
	enum { N = 5000 };
	for (size_t mem = 2; mem <= 2 * N; mem *= 9) {
		struct xsort x;
		xsort_init(&x, sizeof(struct rec), mem, NULL);
		for (uint32_t i = 0; i < N; i++) {
			struct rec r = {next(), 0, i};
			xsort_push(&x, &r);
		}
		xsort_done(&x);
		assert_int_equal(xsort_len(&x), N);
		for (uint32_t i = 0; i < N; i++)
			assert_int_equal(((const struct rec *)xsort_at(&x, i))->n, i);
		assert_true(tmp_empty());
		xsort_free(&x);
	}
}

static void empty_sort(void **state)
{
	(void)state;
	struct xsort x;
	xsort_init(&x, sizeof(struct rec), 2, by_key);
	xsort_done(&x);
	assert_int_equal(xsort_len(&x), 0);
	xsort_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(sorted_at_every_bound, make_tmp, remove_tmp),
	    cmocka_unit_test_setup_teardown(spool_keeps_order, make_tmp, remove_tmp),
	    cmocka_unit_test(empty_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

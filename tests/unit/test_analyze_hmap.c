/*
 * The hash map under several reading threads (analyzers/base/util.c): every
 * worker makes its own maps, and all of them must hash with the one seed of
 * the run.  A map filled under one seed and searched under another loses
 * keys, which made reports depend on -j and on chance (a worker's exported
 * pointers or peer-access log not found again).  The seed is chosen at the
 * first use in a process, so each try is a fresh child process whose
 * threads make their first map at the same moment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

#define THREADS 8
#define KEYS 2000
#define TRIES 40

static pthread_barrier_t start;

/* Fills a map, then finds every key again: the number not found. */
static void *fill_and_find(void *arg)
{
	uintptr_t base = (uintptr_t)arg, lost = 0;
	struct hmap h;
	hmap_init(&h);
	pthread_barrier_wait(&start);
	for (uint64_t k = 0; k < KEYS; k++)
		*hmap_put_u64(&h, base + k) = (void *)(uintptr_t)(k + 1);
	for (uint64_t k = 0; k < KEYS; k++)
		lost += hmap_get_u64(&h, base + k) != (void *)(uintptr_t)(k + 1);
	hmap_free(&h, NULL);
	return (void *)lost;
}

/* One fresh process: exits with the number of threads that lost keys. */
static int one_try(void)
{
	pthread_t t[THREADS];
	int bad = 0;
	pthread_barrier_init(&start, NULL, THREADS);
	for (uintptr_t i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, fill_and_find, (void *)(i << 32)))
			return 100;
	for (int i = 0; i < THREADS; i++) {
		void *lost;
		pthread_join(t[i], &lost);
		bad += lost != NULL;
	}
	return bad;
}

static void maps_made_at_once_keep_their_keys(void **state)
{
	(void)state;
	int failed = 0;
	for (int i = 0; i < TRIES; i++) {
		pid_t p = fork();
		assert_true(p >= 0);
		if (p == 0)
			_exit(one_try());
		int st;
		assert_int_equal(waitpid(p, &st, 0), p);
		assert_true(WIFEXITED(st));
		failed += WEXITSTATUS(st) != 0;
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(maps_made_at_once_keep_their_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

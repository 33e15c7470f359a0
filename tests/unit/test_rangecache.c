/*
 * The allocation range cache (preload/state/rangecache.c): entries, overlap
 * replacement, id-checked removal, version-checked fills, growth; readers on
 * several threads while a writer inserts and removes; and, against the
 * simulated driver (PWSIM_LIB), the miss path that asks the driver once and
 * caches its answer.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "state/rangecache.h"

static int reset(void **state)
{
	(void)state;
	pw_range_clear();
	return 0;
}

static void insert_lookup_remove(void **state)
{
	(void)state;
	struct pw_range r;
	assert_int_equal(pw_range_find(0x1000, &r), PW_RANGE_MISS);
	uint64_t id1 = pw_range_add(0x10000, 0x1000, 1, 0);
	uint64_t id2 = pw_range_add(0x30000, 0x2000, 0, PW_RANGE_MANAGED);
	assert_true(id1 && id2 && id1 != id2);
	assert_int_equal(pw_range_count(), 2);
	assert_int_equal(pw_range_find(0x10000, &r), PW_RANGE_HIT);
	assert_int_equal(r.base, 0x10000);
	assert_int_equal(r.size, 0x1000);
	assert_int_equal(r.dev, 1);
	assert_int_equal(r.id, id1);
	assert_int_equal(pw_range_find(0x10fff, &r), PW_RANGE_HIT);
	assert_int_equal(pw_range_find(0x11000, &r), PW_RANGE_MISS); /* one past the end */
	assert_int_equal(pw_range_find(0xffff, &r), PW_RANGE_MISS);
	assert_int_equal(pw_range_find(0x31234, &r), PW_RANGE_HIT);
	assert_int_equal(r.flags, PW_RANGE_MANAGED);
	assert_int_equal(r.dev, 0);
	assert_false(pw_range_remove(0x10001)); /* not a base */
	assert_true(pw_range_remove(0x10000));
	assert_int_equal(pw_range_find(0x10000, &r), PW_RANGE_MISS);
	assert_false(pw_range_remove(0x10000));
	assert_int_equal(pw_range_count(), 1);
	assert_int_equal(pw_range_add(0x50000, 0, 0, 0), 0); /* empty: not entered */
	/* a negative device (PW_NO_DEV) survives the packing */
	pw_range_add(0x70000, 16, PW_NO_DEV, PW_RANGE_HOST);
	assert_int_equal(pw_range_find(0x70008, &r), PW_RANGE_HIT);
	assert_int_equal(r.dev, PW_NO_DEV);
	assert_int_equal(r.flags, PW_RANGE_HOST);
}

static void overlapping_insert_replaces(void **state)
{
	(void)state;
	struct pw_range r;
	pw_range_add(0x1000, 0x1000, 0, 0);
	pw_range_add(0x2000, 0x1000, 0, 0);
	pw_range_add(0x3000, 0x1000, 0, 0);
	pw_range_add(0x8000, 0x1000, 0, 0);
	/* a new allocation over the middle of the first and all of the next two */
	uint64_t id = pw_range_add(0x1800, 0x2000, 1, PW_RANGE_POOL);
	assert_int_equal(pw_range_count(), 2);
	assert_int_equal(pw_range_find(0x1000, &r), PW_RANGE_MISS);
	assert_int_equal(pw_range_find(0x3fff, &r), PW_RANGE_MISS);
	assert_int_equal(pw_range_find(0x2000, &r), PW_RANGE_HIT);
	assert_int_equal(r.id, id);
	assert_int_equal(r.base, 0x1800);
	assert_int_equal(pw_range_find(0x8000, &r), PW_RANGE_HIT);
	assert_int_equal(r.dev, 0);
}

static void removal_checks_the_id(void **state)
{
	(void)state;
	struct pw_range r;
	uint64_t old = pw_range_add(0x40000, 0x100, 0, 0);
	/* the address is handed out again before the old free's removal runs */
	uint64_t now = pw_range_add(0x40000, 0x200, 1, 0);
	assert_false(pw_range_remove_id(0x40000, old));
	assert_int_equal(pw_range_find(0x40100, &r), PW_RANGE_HIT);
	assert_int_equal(r.id, now);
	assert_true(pw_range_remove_id(0x40000, now));
	assert_int_equal(pw_range_find(0x40000, &r), PW_RANGE_MISS);
}

static void fill_only_without_a_write_since(void **state)
{
	(void)state;
	struct pw_range r;
	uint64_t v = pw_range_version();
	assert_int_equal(v & 1, 0);
	assert_true(pw_range_fill(0x90000, 0x100, 0, 0, v) != 0);
	v = pw_range_version();
	pw_range_remove(0x12345678); /* a write (a free) between the miss and the fill */
	assert_int_equal(pw_range_fill(0xa0000, 0x100, 0, 0, v), 0);
	assert_int_equal(pw_range_find(0xa0000, &r), PW_RANGE_MISS);
	assert_int_equal(pw_range_find(0x90000, &r), PW_RANGE_HIT);
}

static void grows_past_its_first_capacity(void **state)
{
	(void)state;
	struct pw_range r;
	/* inserted out of order, so that inserts shift the tail */
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t k = (i * 7919) % 5000;
		assert_true(pw_range_add(0x100000000ull + k * 0x10000, 0x8000, (int)(k % 8), 0) != 0);
	}
	assert_int_equal(pw_range_count(), 5000);
	for (uint64_t k = 0; k < 5000; k++) {
		assert_int_equal(pw_range_find(0x100000000ull + k * 0x10000 + 0x7fff, &r), PW_RANGE_HIT);
		assert_int_equal(r.dev, (int)(k % 8));
		assert_int_equal(pw_range_find(0x100000000ull + k * 0x10000 + 0x8000, &r), PW_RANGE_MISS);
	}
	for (uint64_t k = 0; k < 5000; k += 2)
		assert_true(pw_range_remove(0x100000000ull + k * 0x10000));
	assert_int_equal(pw_range_count(), 2500);
	assert_int_equal(pw_range_find(0x100000000ull, &r), PW_RANGE_MISS);
	assert_int_equal(pw_range_find(0x100010000ull, &r), PW_RANGE_HIT);
}

/* Readers on three threads while a writer adds and removes ranges around a
 * set of fixed ones: a fixed range is always found with its own values (or
 * the reader is told BUSY), a churned address never answers with another
 * range's values. */
#define FIXED 64
#define FIXED_BASE 0x200000000ull
#define CHURN_BASE 0x300000000ull
static atomic_bool stop;
static atomic_long hits, busy, wrong;

static void *reader(void *arg)
{
	(void)arg;
	struct pw_range r;
	unsigned k = 0;
	while (!atomic_load(&stop)) {
		k = (k * 1103515245u + 12345u);
		unsigned i = (k >> 8) % FIXED;
		uint64_t p = FIXED_BASE + (uint64_t)i * 0x100000 + (k % 0x80000);
		switch (pw_range_find(p, &r)) {
		case PW_RANGE_HIT:
			if (r.base != FIXED_BASE + (uint64_t)i * 0x100000 || r.size != 0x80000 ||
			    r.dev != (int)i % 4)
				atomic_fetch_add(&wrong, 1);
			atomic_fetch_add(&hits, 1);
			break;
		case PW_RANGE_BUSY: atomic_fetch_add(&busy, 1); break;
		default: atomic_fetch_add(&wrong, 1); /* a fixed range went missing */
		}
		uint64_t q = CHURN_BASE + (uint64_t)(k % 512) * 0x1000;
		if (pw_range_find(q, &r) == PW_RANGE_HIT && (q - r.base >= r.size || r.base < CHURN_BASE))
			atomic_fetch_add(&wrong, 1);
	}
	return NULL;
}

static void concurrent_readers_and_a_writer(void **state)
{
	(void)state;
	for (unsigned i = 0; i < FIXED; i++)
		pw_range_add(FIXED_BASE + (uint64_t)i * 0x100000, 0x80000, (int)i % 4, 0);
	atomic_store(&stop, false);
	pthread_t th[3];
	for (int t = 0; t < 3; t++)
		assert_int_equal(pthread_create(&th[t], NULL, reader, NULL), 0);
	/* enough churn to grow the table several times while they read */
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned j = 0; j < 512; j++)
			pw_range_add(CHURN_BASE + (uint64_t)j * 0x1000, 0x800 + round, (int)(j % 4), 0);
		for (unsigned j = 0; j < 512; j += 1 + round % 3)
			pw_range_remove(CHURN_BASE + (uint64_t)j * 0x1000);
	}
	/* With the writer done, a reader must find the fixed ranges: on a
	 * loaded machine the readers may have run only while it wrote (every
	 * look-up BUSY), so they are given up to 10 s of quiet to do so. */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!atomic_load(&hits) && now.tv_sec - t0.tv_sec < 10);
	atomic_store(&stop, true);
	for (int t = 0; t < 3; t++)
		pthread_join(th[t], NULL);
	print_message("readers: %ld hits, %ld busy\n", atomic_load(&hits), atomic_load(&busy));
	assert_int_equal(atomic_load(&wrong), 0);
	assert_true(atomic_load(&hits) > 0);
}

/* The miss path against the simulated driver: asked once, then cached. */
static void driver_fallback_is_cached(void **state)
{
	(void)state;
	const char *path = getenv("PWSIM_LIB");
	void *h = dlopen(path ? path : "libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		skip();
	CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
	CUresult (*retain)(CUcontext *, CUdevice) =
	    (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain");
	CUresult (*set)(CUcontext) = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
	CUresult (*alloc)(CUdeviceptr *, size_t) =
	    (CUresult(*)(CUdeviceptr *, size_t))dlsym(h, "cuMemAlloc_v2");
	CUresult (*mfree)(CUdeviceptr) = (CUresult(*)(CUdeviceptr))dlsym(h, "cuMemFree_v2");
	assert_non_null(init);
	assert_non_null(alloc);
	CUcontext ctx;
	CUdeviceptr p = 0;
	assert_int_equal(init(0), CUDA_SUCCESS);
	assert_int_equal(retain(&ctx, 1), CUDA_SUCCESS);
	assert_int_equal(set(ctx), CUDA_SUCCESS);
	assert_int_equal(alloc(&p, 3000),
	                 CUDA_SUCCESS); /* not through a wrapper: the cache has not seen it */
	struct pw_range r;
	assert_int_equal(pw_range_find(p + 10, &r), PW_RANGE_MISS);
	assert_true(pw_cuda_ptr_info(p + 10, &r));
	assert_int_equal(r.base, p);
	assert_int_equal(r.size, 3000);
	assert_int_equal(r.dev, 1);
	assert_int_equal(pw_range_find(p + 2999, &r), PW_RANGE_HIT); /* cached */
	assert_int_equal(pw_cuda_ptr_device(p), 1);
	/* host memory: not CUDA memory, and not entered */
	static char host[64];
	unsigned long n = pw_range_count();
	assert_false(pw_cuda_ptr_info((uintptr_t)host, &r));
	assert_false(pw_cuda_ptr_info((uintptr_t)host + 8, &r));
	assert_int_equal(pw_range_count(), n);
	assert_int_equal(mfree(p), CUDA_SUCCESS);
	pw_range_remove(p);
	assert_false(pw_cuda_ptr_info(p, &r)); /* freed: the driver no longer knows it */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(insert_lookup_remove, reset),
	    cmocka_unit_test_setup(overlapping_insert_replaces, reset),
	    cmocka_unit_test_setup(removal_checks_the_id, reset),
	    cmocka_unit_test_setup(fill_only_without_a_write_since, reset),
	    cmocka_unit_test_setup(grows_past_its_first_capacity, reset),
	    cmocka_unit_test_setup(concurrent_readers_and_a_writer, reset),
	    cmocka_unit_test_setup(driver_fallback_is_cached, reset),
	};
	return cmocka_run_group_tests_name("rangecache", tests, NULL, NULL);
}

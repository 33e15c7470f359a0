/*
 * The hot path's clock (preload/record/clock.c): time-stamp counter reads turned
 * into CLOCK_MONOTONIC by the writer's calibration agree with clock_gettime
 * taken at the same moments, durations too; without the counter a tick is a
 * nanosecond.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "record/clock.h"

static int64_t diff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/*
 * Over 300 ms, with the writer's rounds every 25 ms: each counter read,
 * bracketed by two clock_gettime (samples where the thread was preempted in
 * between are retaken), converts to within 2 us of the bracket's middle, and
 * a duration of 15 ms to within 2 us of the clock's.
 */
struct sample {
	uint64_t t, ns;
};

static struct sample sample(void)
{
	for (;;) {
		uint64_t a = pw_now_ns(), t = pw_ticks(), b = pw_now_ns();
		if (b - a < 1000)
			return (struct sample){t, a + (b - a) / 2};
	}
}

static void counter_agrees_with_clock_gettime(void **state)
{
	(void)state;
	pw_clock_init();
	if (!pw_clock_tsc)
		skip(); /* the kernel's clock source is not the counter here */
	int64_t worst = 0, worst_dur = 0;
	for (int round = 0; round < 12; round++) {
		struct sample s[16];
		for (int i = 0; i < 16; i++) {
			s[i] = sample();
			sleep_ms(1);
		}
		pw_clock_anchor();
		for (int i = 0; i < 16; i++) {
			int64_t d = diff(pw_ticks_ns(s[i].t), s[i].ns);
			if (d < 0)
				d = -d;
			if (d > worst)
				worst = d;
		}
		int64_t dd = (int64_t)pw_ticks_dur_ns(s[0].t, s[15].t) - diff(s[15].ns, s[0].ns);
		if (dd < 0)
			dd = -dd;
		if (dd > worst_dur)
			worst_dur = dd;
		sleep_ms(8);
	}
	print_message("worst difference: %lld ns; of a 15 ms duration: %lld ns\n", (long long)worst,
	              (long long)worst_dur);
	assert_true(worst < 2000);
	assert_true(worst_dur < 2000);
	assert_true(pw_clock_ns_per_tick() > 0.01 && pw_clock_ns_per_tick() < 100);
}

static void without_the_counter_a_tick_is_a_nanosecond(void **state)
{
	(void)state;
	pw_clock_use_monotonic();
	assert_false(pw_clock_tsc);
	uint64_t a = pw_ticks(), n = pw_now_ns(), b = pw_ticks();
	assert_true(a <= n && n <= b);
	assert_int_equal(pw_ticks_ns(12345), 12345);
	assert_int_equal(pw_ticks_dur_ns(1000, 1250), 250);
	assert_int_equal(pw_ticks_dur_ns(1250, 1000), (uint64_t)-250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(counter_agrees_with_clock_gettime),
	    cmocka_unit_test(without_the_counter_a_tick_is_a_nanosecond),
	};
	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}

/*
 * The clock of the hot path.  A wrapper takes two timestamps per call; with
 * clock_gettime(CLOCK_MONOTONIC) they cost about 27 ns each on the H100
 * host and 21 ns on the development VM, more than the rest of recording a
 * call.  Where the time-stamp counter is usable (x86-64, an invariant TSC
 * that the kernel itself uses as its clock source), a wrapper reads the
 * counter instead (about 9 ns) and the trace writer turns counter values
 * into CLOCK_MONOTONIC nanoseconds (pw_ticks_ns), against pairs of readings
 * of both clocks that it takes every round.  Elsewhere a tick is a
 * nanosecond of CLOCK_MONOTONIC and the conversion is the identity.
 *
 * The conversion is linear between the last pair and a pair taken 5 to 10
 * seconds before it, so it follows NTP's slewing of CLOCK_MONOTONIC; a
 * converted time is within about a microsecond of what clock_gettime would
 * have said (docs/trace-format.md, "t_ns").
 */
#ifndef PW_CLOCK_H
#define PW_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pw.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* True when a tick is a TSC count (set once, by pw_clock_init). */
extern bool pw_clock_tsc;

/* Now, in ticks. */
static inline uint64_t pw_ticks(void)
{
#if defined(__x86_64__)
	if (PW_LIKELY(pw_clock_tsc))
		return __rdtsc();
#endif
	return pw_now_ns();
}

/* From the constructor: TSC or CLOCK_MONOTONIC, and the first pair of readings. */
void pw_clock_init(void);
/* Turn the TSC off (tests; PEERWATCH_OPTIONS has no say in it). */
void pw_clock_use_monotonic(void);
/* The writer role, before it converts a batch: a fresh pair of readings.
 * The first time, it waits until 2 ms have passed since pw_clock_init, so
 * that the rate is known well enough. */
void pw_clock_anchor(void);
/* Ticks to CLOCK_MONOTONIC nanoseconds, and a duration in nanoseconds
 * (writer role: the trace writer thread, or the thread finishing the trace). */
uint64_t pw_ticks_ns(uint64_t t);
uint64_t pw_ticks_dur_ns(uint64_t t0, uint64_t t1);
/* Nanoseconds per tick now (1 without the TSC): phase counters, tests. */
double pw_clock_ns_per_tick(void);

#endif

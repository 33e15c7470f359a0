/* The hot path's clock and its conversion to CLOCK_MONOTONIC (clock.h). */
#include "record/clock.h"

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

bool pw_clock_tsc;

/* A pair of readings: the counter and CLOCK_MONOTONIC at (about) the same moment. */
struct pair {
	uint64_t tick, ns;
};

/* The writer role's calibration (one thread at a time: no lock). */
static struct {
	struct pair first; /* pw_clock_init's */
	struct pair ref;   /* the rate is measured from here ... */
	struct pair cand;  /* ... which moves here once cand is old enough */
	struct pair last;  /* times are converted from here */
	double ns_per_tick;
	bool rate_ok;
} cal = {.ns_per_tick = 1.0};

#define RATE_MIN_NS 2000000ull    /* a first rate from 2 ms of readings */
#define REF_MOVE_NS 5000000000ull /* the reference moves on every 5 s */

/* The kernel's clock source is the TSC: it found the counter invariant
 * and synchronized between CPUs, and keeps checking. */
static bool kernel_uses_tsc(void)
{
	char buf[32];
	int fd =
	    open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return !strcmp(buf, "tsc\n") || !strcmp(buf, "tsc");
}

static struct pair take_pair(void)
{
	struct pair p = {0, 0};
#if defined(__x86_64__)
	if (pw_clock_tsc) {
		/* the narrowest of a few brackets of clock_gettime by two counter reads */
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < 5; i++) {
			uint64_t a = __rdtsc(), ns = pw_now_ns(), b = __rdtsc();
			if (b - a < best) {
				best = b - a;
				p.tick = a + (b - a) / 2;
				p.ns = ns;
			}
		}
		return p;
	}
#endif
	p.ns = p.tick = pw_now_ns();
	return p;
}

void pw_clock_init(void)
{
	pw_clock_tsc = false;
#if defined(__x86_64__)
	int tsc_mode = 0;
	/* a process may be made to fault on rdtsc (PR_SET_TSC): then not */
	if (prctl(PR_GET_TSC, &tsc_mode, 0, 0, 0) == 0 && tsc_mode == PR_TSC_ENABLE && kernel_uses_tsc())
		pw_clock_tsc = true;
#endif
	cal.first = cal.ref = cal.cand = cal.last = take_pair();
	cal.ns_per_tick = 1.0;
	cal.rate_ok = !pw_clock_tsc;
}

void pw_clock_use_monotonic(void)
{
	pw_clock_tsc = false;
	cal.first = cal.ref = cal.cand = cal.last = take_pair();
	cal.ns_per_tick = 1.0;
	cal.rate_ok = true;
}

void pw_clock_anchor(void)
{
	if (!pw_clock_tsc)
		return;
	struct pair p = take_pair();
	if (!cal.rate_ok && p.ns - cal.first.ns < RATE_MIN_NS) {
		/* too soon after the start to know the rate: wait for it (the writer,
		 * or a process finishing within 2 ms of its start) */
		uint64_t left = RATE_MIN_NS - (p.ns - cal.first.ns);
		struct timespec ts = {0, (long)left};
		while (nanosleep(&ts, &ts) != 0)
			;
		p = take_pair();
	}
	if (p.tick <= cal.ref.tick || p.ns <= cal.ref.ns)
		return; /* no time has passed (or the counter went back): keep what we have */
	cal.ns_per_tick = (double)(p.ns - cal.ref.ns) / (double)(p.tick - cal.ref.tick);
	cal.rate_ok = true;
	cal.last = p;
	if (p.ns - cal.cand.ns >= REF_MOVE_NS) {
		cal.ref = cal.cand;
		cal.cand = p;
	}
}

uint64_t pw_ticks_ns(uint64_t t)
{
	if (!pw_clock_tsc)
		return t;
	if (!cal.rate_ok)
		pw_clock_anchor();
	double d = (double)(int64_t)(t - cal.last.tick) * cal.ns_per_tick;
	return (uint64_t)((int64_t)cal.last.ns + (int64_t)(d < 0 ? d - 0.5 : d + 0.5));
}

uint64_t pw_ticks_dur_ns(uint64_t t0, uint64_t t1)
{
	if (!pw_clock_tsc)
		return t1 - t0;
	if (!cal.rate_ok)
		pw_clock_anchor();
	if (t1 <= t0)
		return 0;
	return (uint64_t)((double)(t1 - t0) * cal.ns_per_tick + 0.5);
}

double pw_clock_ns_per_tick(void)
{
	return cal.ns_per_tick;
}

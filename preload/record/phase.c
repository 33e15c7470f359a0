/* Phase counters (phase.h): only with PW_PHASES. */
#include "record/phase.h"

#ifdef PW_PHASES
#include <stdatomic.h>

#include "record/clock.h"
#include "core/pw.h"

PW_TLS uint64_t pw_phase_ticks[PW_PH_N];
PW_TLS uint64_t pw_phase_counts[PW_PH_N];
static _Atomic uint64_t total_ticks[PW_PH_N], total_counts[PW_PH_N];

void pw_phase_flush(void)
{
	for (int i = 0; i < PW_PH_N; i++) {
		atomic_fetch_add_explicit(&total_ticks[i], pw_phase_ticks[i], memory_order_relaxed);
		atomic_fetch_add_explicit(&total_counts[i], pw_phase_counts[i], memory_order_relaxed);
		pw_phase_ticks[i] = pw_phase_counts[i] = 0;
	}
}

void pw_phase_report(void)
{
	pw_phase_flush();
	/* the counter's rate: the trace clock's if it runs on the TSC, else measured here */
	double ns_per_tick = pw_clock_tsc ? pw_clock_ns_per_tick() : 0;
	if (ns_per_tick <= 0 || ns_per_tick == 1.0) {
		uint64_t t0 = PW_PHASE_NOW(), n0 = pw_now_ns(), n1;
		do
			n1 = pw_now_ns();
		while (n1 - n0 < 20000000);
		ns_per_tick = (double)(n1 - n0) / (double)(PW_PHASE_NOW() - t0);
	}
	double calls = (double)atomic_load(&total_counts[PW_PH_WRAPPER]);
	double recs = (double)atomic_load(&total_counts[PW_PH_DECODE]);
	double per[PW_PH_N];
	for (int i = 0; i < PW_PH_N; i++) {
		double n = i == PW_PH_DECODE ? recs : calls;
		per[i] = n > 0 ? (double)atomic_load(&total_ticks[i]) * ns_per_tick / n : 0;
	}
	pw_log("phases: calls=%.0f wrapper=%.1f capture=%.1f lookup=%.1f rules=%.1f record=%.1f "
	       "records=%.0f decode=%.1f (ns per call / per record)",
	       calls, per[PW_PH_WRAPPER], per[PW_PH_CAPTURE], per[PW_PH_LOOKUP], per[PW_PH_RULES],
	       per[PW_PH_RECORD], recs, per[PW_PH_DECODE]);
}
#endif

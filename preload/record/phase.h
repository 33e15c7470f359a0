/*
 * Where a wrapper's time goes, counted per phase: a build option for
 * machines without perf (`make PHASES=1`, which defines PW_PHASES).  Each
 * phase is timed with the time-stamp counter on the calling thread (the
 * decode phase on the writer's), summed per thread and added to process
 * totals every 256 calls and when the trace is finished; at the end the
 * library writes one line to stderr:
 *
 *   peerwatch[pid]: phases: calls=N wrapper=ns capture=ns lookup=ns rules=ns record=ns
 *                   records=M decode=ns (per call / per record)
 *
 * wrapper is everything a call adds (its entry to its return, less the
 * real call); the phases are parts of it (capture: the arguments, the
 * sequence number and the wrapper's own tests; lookup: the vendor's
 * look-ups before and after the call; rules: translating the call for the
 * rules, running them, updating the state; record: the stack and the
 * record).  The counter reads themselves (about 9 ns each here) are in
 * these figures, so they add up to more than the plain build's cost.
 * Without PW_PHASES every macro is empty.
 */
#ifndef PW_PHASE_H
#define PW_PHASE_H

#include <stdint.h>

enum pw_phase {
	PW_PH_WRAPPER,
	PW_PH_CAPTURE,
	PW_PH_LOOKUP,
	PW_PH_RULES,
	PW_PH_RECORD,
	PW_PH_DECODE,
	PW_PH_N
};

#ifdef PW_PHASES
#include "core/pw.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#define PW_PHASE_NOW() __rdtsc()
#else
#define PW_PHASE_NOW() pw_now_ns()
#endif
extern PW_TLS uint64_t pw_phase_ticks[PW_PH_N];
extern PW_TLS uint64_t pw_phase_counts[PW_PH_N];
void pw_phase_flush(void);
void pw_phase_report(void);
#define PW_PHASE_START(v) uint64_t v = PW_PHASE_NOW()
#define PW_PHASE_ADD_N(ph, v, n)                           \
	do {                                               \
		uint64_t pw_phase_now_ = PW_PHASE_NOW();   \
		pw_phase_ticks[ph] += pw_phase_now_ - (v); \
		pw_phase_counts[ph] += (n);                \
		(v) = pw_phase_now_;                       \
	} while (0)
/* Time since v to phase ph, without counting a call; v restarts. */
#define PW_PHASE_ADD(ph, v) PW_PHASE_ADD_N(ph, v, 0)
/* The end of a call: its wrapper time (less the real call's ticks), counted. */
#define PW_PHASE_CALL_END(enter, real_ticks)                                              \
	do {                                                                              \
		pw_phase_ticks[PW_PH_WRAPPER] += PW_PHASE_NOW() - (enter) - (real_ticks); \
		if (++pw_phase_counts[PW_PH_WRAPPER] % 256 == 0)                          \
			pw_phase_flush();                                                 \
	} while (0)
#else
#define PW_PHASE_START(v) (void)0
#define PW_PHASE_ADD_N(ph, v, n) ((void)(n))
#define PW_PHASE_ADD(ph, v) (void)0
#define PW_PHASE_CALL_END(enter, real_ticks) (void)0
static inline void pw_phase_flush(void)
{
}
static inline void pw_phase_report(void)
{
}
#endif

#endif

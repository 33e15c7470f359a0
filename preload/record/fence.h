/*
 * An asymmetric fence for the cut at the end of the trace: every recorded
 * call marks its thread busy and then checks that tracing is still on; the
 * thread that finishes the trace turns tracing off and then looks for busy
 * threads.  Either the caller sees tracing off or the finisher sees it busy,
 * if a full fence separates the store from the load on both sides.
 *
 * The calling side runs on every call, the finishing side once: with
 * membarrier(2) (Linux 4.14, MEMBARRIER_CMD_PRIVATE_EXPEDITED), the
 * finishing side's system call makes every running thread of the process
 * pass a full fence, and the calling side needs only to keep the compiler
 * from reordering (pw_fence_light).  Without membarrier both sides take a
 * full fence, as before.
 */
#ifndef PW_FENCE_H
#define PW_FENCE_H

#include <stdatomic.h>
#include <stdbool.h>

extern bool pw_fence_asym; /* membarrier is registered: the light side is a compiler barrier */

/* From the constructor and in a forked child: register with membarrier. */
void pw_fence_init(void);

/* The calling side, between its store and its load. */
__attribute__((always_inline)) static inline void pw_fence_light(void)
{
	if (__builtin_expect(pw_fence_asym, 1))
		atomic_signal_fence(memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
}

/* The finishing side, between its store and its loads. */
void pw_fence_heavy(void);

#endif

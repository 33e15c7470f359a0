/* The process-wide and per-thread state every file of the library shares. */
#include "core/hooks.h"
#include "core/pw.h"

_Static_assert(PW_LEFT_VENDORS == PW_VENDOR_COUNT, "pw_tls_left has a slot per vendor");

struct pw_global pw_g;
PW_TLS int pw_tls_internal;
PW_TLS uint64_t pw_tls_parent;
PW_TLS struct pw_suppressed_mark pw_tls_suppressed;
PW_TLS long pw_tls_tid;
PW_TLS int pw_tls_upper;
PW_TLS struct pw_left pw_tls_left[PW_LEFT_VENDORS];
PW_TLS uint64_t pw_tls_seq_next, pw_tls_seq_end;

/* The thread's next block of sequence numbers, and its first (pw.h: next
 * is stored before end, so that a signal handler's call in between finds
 * no number it may take). */
uint64_t pw_seq_refill(void)
{
	uint64_t first = atomic_fetch_add_explicit(&pw_g.seq, PW_SEQ_BLOCK, memory_order_relaxed) + 1;
	pw_tls_seq_next = first + 1;
	atomic_signal_fence(memory_order_seq_cst);
	pw_tls_seq_end = first + PW_SEQ_BLOCK;
	return first;
}

/* Call records: made on the calling thread, decoded by the writer (record.h). */
#include "record/record.h"
#include "record/record_write.h"

#include <stdatomic.h>

#include "record/clock.h"
#include "record/phase.h"
#include "core/pw.h"
#include "record/trace.h"
#include "core/vendor.h"

_Static_assert(sizeof(uintptr_t) == sizeof(uint64_t), "stacks are recorded as 64-bit words");

_Static_assert(sizeof(struct pw_rec_call) + PW_MAX_ARGS * 12 + 64 * 8 < PW_EVENT_MAX / 2,
               "a record's fixed parts leave room for its snapshots");

size_t pw_record_call_into(void *buf, size_t cap, const struct pw_call *c)
{
	return pw_record_write(buf, cap, c);
}

PW_TLS struct pw_fold pw_tls_fold;

/* Call c into the fold tail (record.h).  Out of line: inline in the
 * wrappers, the static analyzer reads the record's argument and device
 * slots as the wrapper's uninitialized ones (it does not follow that a
 * row's slots are those its wrapper filled). */
void pw_record_fold(struct pw_call *c)
{
	char *rec = pw_fold_take();
	if (!rec)
		return;
	c->t0 = c->t1 = 0; /* the owner's (the writer takes them from its record) */
	size_t n = pw_record_write(rec, (size_t)(pw_tls_fold.end - rec), c);
	((struct pw_rec_hdr *)(void *)rec)->len |= PW_REC_PARENT_TIME;
	pw_fold_put((uint32_t)n);
}

/* Call c as its event line, into w: recorded, then decoded, on this
 * thread (the encoding unit tests). */
void pw_event_call(struct pw_jw *w, const struct pw_call *c)
{
	_Alignas(8) char rec[PW_EVENT_MAX];
	size_t n = pw_record_call_into(rec, sizeof rec, c);
	pw_record_decode(w, rec, n);
}

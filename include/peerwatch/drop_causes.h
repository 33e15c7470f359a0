/*
 * Why an event made is not in its trace: the causes the footer's
 * "dropped_by" counts (docs/trace-format.md, Footer), in the order the
 * footer writes them, each with its name there and a few words for
 * messages: the library's line at exit and peerwatch-analyze's check and
 * info say "1,234 of 50,000 events dropped: the writer was behind".
 *
 *   X(ID, "name", "why")       enum pw_drop_cause: PW_DROP_<ID>
 *
 * One cause loses nothing a gate needs: in_flight_at_exit, the call events
 * other threads were recording when the trace was finished.  Their calls
 * were checked before they ran, and a finding of theirs is its own
 * violation event, written before the call: it is in the trace, or counted
 * under finding_in_flight_at_exit when it was itself being written then.
 */
#ifndef PEERWATCH_DROP_CAUSES_H
#define PEERWATCH_DROP_CAUSES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PW_DROP_CAUSES(X)                                                                 \
	/* no buffer: the writer thread fell behind or stopped */                         \
	X(WRITER_BEHIND, "writer_behind", "the writer was behind")                        \
	/* no memory for a thread's record or buffer */                                   \
	X(NO_MEMORY, "no_memory", "no memory for a buffer")                               \
	/* one event longer than PW_EVENT_MAX - 1 bytes */                                \
	X(TOO_LONG, "too_long", "longer than 8191 bytes")                                 \
	/* made in a thread's TLS destructors, after its buffer was handed over */        \
	X(AFTER_THREAD_EXIT, "after_thread_exit", "made after their thread's end")        \
	/* a call's event being recorded when the trace was finished (exit, exec, ...) */ \
	X(IN_FLIGHT, "in_flight_at_exit", "calls in flight at exit")                      \
	/* a call or other event past max_trace_mb */                                     \
	X(SIZE_LIMIT, "size_limit", "past the size limit (max_trace_mb)")                 \
	/* writing the file failed (full disk, file-size limit, I/O error) */             \
	X(WRITE_ERROR, "write_error", "writing the file failed")                          \
	/* a signal handler's call while its thread was writing a record */               \
	X(SIGNAL_HANDLER, "signal_handler", "a signal handler's, during another event")   \
	/* a violation event being written when the trace was finished */                 \
	X(FINDING_IN_FLIGHT, "finding_in_flight_at_exit", "findings being written at exit")

#define PW_DROP_ENUM(id, name, why) PW_DROP_##id,
enum pw_drop_cause { PW_DROP_CAUSES(PW_DROP_ENUM) PW_DROP_N };
#undef PW_DROP_ENUM

/* The footer's name of a cause ("writer_behind"); NULL past the list. */
static inline const char *pw_drop_name(int cause)
{
#define PW_DROP_NAME(id, name, why) name,
	static const char *const names[] = {PW_DROP_CAUSES(PW_DROP_NAME)};
#undef PW_DROP_NAME
	return cause >= 0 && cause < PW_DROP_N ? names[cause] : NULL;
}

/* n with a comma every three digits ("1,234,567") into buf; its length. */
static inline size_t pw_fmt_count(char *buf, size_t cap, uint64_t n)
{
	char digits[32];
	int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t len = 0;
	for (int i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0 && len + 1 < cap)
			buf[len++] = ',';
		if (len + 1 < cap)
			buf[len++] = digits[i];
	}
	if (cap)
		buf[len < cap ? len : cap - 1] = 0;
	return len;
}

/*
 * The events lost, in words, into buf: "1,234 of 50,000 events dropped:
 * the writer was behind", or with several causes "...: the writer was
 * behind (1,200), longer than 8191 bytes (34)"; "" when none was.  by:
 * the footer's counts by cause (PW_DROP_N of them); other: those of causes this
 * list does not name (a newer trace's); written: the event lines in the
 * file.  The calls in flight at exit are no loss, and not in it.  Its
 * length; allocates nothing (the library says it at exit).
 */
static inline size_t pw_drop_sentence(char *buf, size_t cap, uint64_t written, const uint64_t *by,
                                      uint64_t other)
{
#define PW_DROP_WHY(id, name, why) why,
	static const char *const whys[] = {PW_DROP_CAUSES(PW_DROP_WHY)};
#undef PW_DROP_WHY
	uint64_t lost = other;
	int kinds = other > 0;
	for (int i = 0; i < PW_DROP_N; i++)
		if (i != PW_DROP_IN_FLIGHT && by[i]) {
			lost += by[i];
			kinds++;
		}
	size_t len = 0;
	if (cap)
		buf[0] = 0;
	if (!lost)
		return 0;
	char a[32], b[32];
	pw_fmt_count(a, sizeof a, lost);
	pw_fmt_count(b, sizeof b, written + lost);
#define PW_PUT(...) (len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__))
	PW_PUT("%s of %s %s dropped: ", a, b, written + lost == 1 ? "event" : "events");
	const char *sep = "";
	for (int i = 0; i <= PW_DROP_N; i++) {
		uint64_t n = i < PW_DROP_N ? by[i] : other;
		if (i == PW_DROP_IN_FLIGHT || !n)
			continue;
		PW_PUT("%s%s", sep, i < PW_DROP_N ? whys[i] : "causes this version does not know");
		if (kinds > 1) {
			pw_fmt_count(a, sizeof a, n);
			PW_PUT(" (%s)", a);
		}
		sep = ", ";
	}
#undef PW_PUT
	return len < cap ? len : cap ? cap - 1 : 0;
}

#endif

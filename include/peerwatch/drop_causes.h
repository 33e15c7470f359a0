/*
 * Why an event made is not in its trace: the causes the footer's
 * "dropped_by" counts (docs/trace-format.md, Footer), in the order the
 * footer writes them, each with its name there and a few words for
 * messages.
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

#endif

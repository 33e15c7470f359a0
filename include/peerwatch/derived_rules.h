/*
 * The rules peerwatch-analyze derives offline from the calls of a run's
 * traces (analyzers/model/ipclife.c), besides the library's finding at the
 * call: what one process cannot see alone, or sees only through the online
 * IPC registry (registry=0 turns it off; a process outside the run is not
 * in it).  X(id, severity, summary): the id is the catalog's, so that a
 * finding the library already wrote is not reported twice; the summary is
 * used when the catalog has no row.  docs/rules.md says, per rule, whether
 * it is also checked offline (scripts/rules-doc.c).  The um.* rules are the
 * analyzer's alone (analyzers/model/umfx.c): they read the unified-memory
 * counters' "um" events (um_counters=1) against the advice and prefetches,
 * which no call of the library could judge when it was made.
 */
#ifndef PW_DERIVED_RULES_H
#define PW_DERIVED_RULES_H

#define PW_DERIVED_RULES(X)                                                                                  \
	X("ipc.free-while-open", "error", "the exporter frees an allocation another process still has open") \
	X("ipc.open.stale", "error", "an IPC handle opened after its exporter freed the allocation")         \
	X("ipc.leak", "warning", "an IPC mapping still open when the process's trace ends")                  \
	X("ipc.open.unexported", "warning",                                                                  \
	  "an IPC handle opened that no traced process of the run exported")                                 \
	X("ipc.event.leak", "warning",                                                                       \
	  "an event an IPC open made still there when the process's trace ends")                             \
	X("ipc.event.destroy-while-open", "warning",                                                         \
	  "the exporter destroys an event another process still has open through IPC")                       \
	X("ipc.open.unreachable", "error",                                                                   \
	  "an IPC handle opened on a device that cannot access the exporter's device")                       \
	X("vmm.import.released", "warning",                                                                  \
	  "a shareable handle imported after its exporter released the allocation")                          \
	X("um.prefetch.faults-after", "performance",                                                         \
	  "a prefetch to a processor, then page faults on that processor for the prefetched pages before "   \
	  "any other processor touched them: the prefetch came too late or on the wrong stream")             \
	X("um.preferred.thrashing", "performance",                                                           \
	  "pages of a range with a preferred location migrate away from it twice or more, or the driver "    \
	  "reports thrashing on the range")                                                                  \
	X("um.read-mostly.written", "performance",                                                           \
	  "a GPU writes (a fault with access write or atomic) to a range advised read-mostly; CPU faults "   \
	  "carry no access type, so a CPU's writes are not seen")                                            \
	X("um.accessed-by.faults", "performance",                                                            \
	  "a processor the range was advised accessed-by still faults on it before the advice is unset")

#endif

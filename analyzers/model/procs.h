/*
 * The processes of a run as every report shows them: in one order (by
 * host, start time, pid, path), named the same way in text and JSON, and
 * their times relative to the earliest event of their host.
 */
#ifndef PW_AN_PROCS_H
#define PW_AN_PROCS_H

#include <jansson.h>
#include <stdint.h>

#include "read/trace.h"

/* The order processes are shown in: by host, start time (t0_mono_ns), pid,
 * path; rank[i] is file i's place.  free() the result. */
size_t *file_ranks(const struct pw_input *in);
/* The same order as a list: order[k] is the k-th file shown. */
size_t *file_order(const struct pw_input *in);

/* How a process is shown in text: "calls[18003]", safe to print; free() it. */
char *proc_label(const struct pw_file *f);
/* How a process is shown in JSON: {"file","host","pid","program","rank"}. */
json_t *proc_json(const struct pw_file *f);

/* The earliest event time of each host, per file (index by file): times in
 * reports are shown relative to it.  free() the result. */
int64_t *host_origins(const struct pw_input *in);

#endif

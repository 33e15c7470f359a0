/*
 * Findings: the "violation" events the preload writes, each with
 * the call it is about, plus the findings the analyzer derives offline from
 * IPC calls (ipclife.h) and from unified-memory events against the advice
 * and prefetches (umfx.h).  check, violations and summary read them.
 *
 * Violation events are handled generically: any rule id, any severity
 * string (one this analyzer does not know ranks lowest).  The name of the
 * call a violation points at comes from the call event with that seq in
 * the same file; it is found in the file's pre-phase, so a call written
 * after its violation (nested calls, other threads) is still found.
 */
#ifndef PW_AN_FINDINGS_H
#define PW_AN_FINDINGS_H

#include "base/opts.h"
#include "base/show.h"
#include "read/reader.h"

struct finding {
	size_t file;    /* index in the input's files */
	uint64_t seq;   /* the violation event's own seq; 0 for a derived one */
	uint64_t call;  /* seq of the call it is about, when has_call */
	bool has_call;  /* false: a finding made outside any call (at exit) */
	char *api;      /* that call's api+variant, NULL when not in the trace */
	char vendor[8]; /* "cuda", "hip", "acl": whose words describe it; "" when unknown */
	char *rule, *severity, *message;
	enum sev sev;
	uint64_t *stack;
	size_t nstack;
	bool derived;
};

/* A finding a suppression took in the library: its call lists the rule. */
struct suppressed_mark {
	size_t file;
	uint64_t call;
	char *rule;
};

struct findings {
	struct vec list;             /* struct finding */
	struct vec suppressed;       /* struct suppressed_mark, from the calls' "suppressed" */
	uint64_t derived_suppressed; /* derived findings left out: a suppression took them */
	struct hmap *seen;           /* the library's findings and suppressions, at the first derived one */
};

extern const struct pw_sink_ops findings_ops;

void findings_init(struct findings *fs);
/* Adds a derived finding (copies the strings), once every trace is read,
 * unless an event already
 * reports the same rule on the same call, or, for ipc.leak, the same trace
 * has ipc.leak events made at exit (the library then reported every mapping
 * still open itself), or a suppression took that rule's finding on the
 * call in the library (counted in derived_suppressed). */
void findings_add_derived(struct findings *fs, size_t file, uint64_t call, const char *api, const char *rule,
                          enum sev sev, const char *message);
/* Orders by process (file_ranks), then call (findings made at exit, with no
 * call, last), then seq. */
void findings_sort(struct findings *fs, const struct pw_input *in);
void findings_free(struct findings *fs);

/* check: something wrong with a trace, as far as the gate is concerned
 * (check.c says what each kind means). */
struct problem {
	size_t file;
	const char *kind; /* "unreadable", "partial", "cut short", ... */
	char *message;
	bool allowed; /* accepted by --allow-partial */
	bool note;    /* only a note: does not fail the gate */
};

/* Reads the input for findings: violation events and, when o->derived, the
 * IPC and unified-memory findings too.  Returns the read status (PW_READ_*). */
int findings_read(const struct pw_opts *o, struct pw_input *in, struct findings *fs);
/* The same, in one read with `nmore` more sinks (report's listings); and
 * where `ipc` is not NULL, the IPC report is the caller's (ipc_init'ed),
 * read as check reads it (ipc_findings_ops: not every call kept) and
 * derived — its findings, its VMM and pool sharing — and left to the
 * caller. */
struct ipc_report;
int findings_read_with(const struct pw_opts *o, struct pw_input *in, struct findings *fs,
                       struct ipc_report *ipc, const struct pw_sink *more, size_t nmore);

/* JSON of one finding; with a symbolizer (may be NULL) its stack symbolized. */
struct symbolizer;
json_t *finding_json(const struct finding *f, const struct pw_input *in, struct symbolizer *sym);

#endif

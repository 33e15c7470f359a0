/*
 * The life of IPC handles across processes, re-derived offline from call
 * events, so that what the online registry would catch is proven from the
 * traces even when the registry was off.
 *
 * Exporter and importers are matched by the handle's bytes (the hex of
 * cuIpcGetMemHandle's args.handle = cuIpcOpenMemHandle's args.handle), per
 * host: CUDA IPC does not cross nodes, and t_ns (CLOCK_MONOTONIC) is
 * comparable between processes of one host only.  An importer's close is
 * matched to its open by the pointer the open returned; the exporter's free
 * to the export by the pointer exported (so an export of an interior
 * pointer is followed only if that same pointer is freed).
 *
 * Memory: one record per IPC call, and per free of an exported pointer —
 * frees of other pointers are not kept.  Which pointers a process exported
 * is learnt in the file's pre-phase (lines naming cuIpcGetMemHandle).
 */
#ifndef PW_AN_IPCLIFE_H
#define PW_AN_IPCLIFE_H

#include "analyze.h"

/* The rules the analyzer derives offline: id (the catalog's, so that a
 * finding the online registry already wrote is not reported twice),
 * severity, summary (used when the catalog does not have the row). */
#define PW_DERIVED_RULES(X)                                                                                  \
	X("ipc.free-while-open", "error", "the exporter frees an allocation another process still has open") \
	X("ipc.open.stale", "error", "an IPC handle opened after its exporter freed the allocation")         \
	X("ipc.leak", "warning", "an IPC mapping still open when the process's trace ends")

struct ipc_handle;

enum ipc_op { OP_EXPORT, OP_OPEN, OP_CLOSE, OP_FREE, OP_EV_EXPORT, OP_EV_OPEN };

struct ipc_rec {
	enum ipc_op op;
	size_t file;
	uint64_t seq;
	int64_t t_ns, ret;
	char *api;      /* api+variant */
	char *ret_name; /* NULL when the trace had null */
	bool has_ptr;
	uint64_t ptr; /* exported, opened (result), closed or freed pointer */
	int64_t dev;  /* the pointer's device */
	bool has_handle;
	char handle[129];
	struct ipc_handle *owner;  /* an export or open: its handle */
	struct ipc_rec *closed_by; /* an open: the close that ended it */
	struct ipc_rec *close_of;  /* a close: the open it ended */
};

struct ipc_handle {
	const char *host;
	char handle[129];
	bool event;             /* an event handle (cuIpcGetEventHandle) */
	struct vec recs;        /* struct ipc_rec *, in time order */
	struct ipc_rec *export; /* the first successful export, or NULL */
	struct ipc_rec *free;   /* the exporter's first free after it, or NULL */
};

struct ipc_finding {
	const char *rule;
	enum sev sev;
	size_t file; /* the call it is attributed to */
	uint64_t seq;
	char *api;
	char *message;
};

struct ipc_report {
	struct vec recs;     /* struct ipc_rec * (owned) */
	struct vec handles;  /* struct ipc_handle * (owned), by first time */
	struct vec stray;    /* struct ipc_rec *: closes of pointers no traced open mapped */
	struct vec findings; /* struct ipc_finding */
	int64_t *origin;     /* per file: its host's time origin */
};

extern const struct pw_sink_ops ipc_ops;

void ipc_init(struct ipc_report *r);
/* After reading: builds handles, matches closes and frees, derives findings. */
void ipc_derive(struct ipc_report *r, const struct pw_input *in);
void ipc_free(struct ipc_report *r);

#endif

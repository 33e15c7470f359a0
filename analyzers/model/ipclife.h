/*
 * The life of IPC handles across processes, re-derived offline from call
 * events, so that what the online registry would catch is proven from the
 * traces even when the registry was off.
 *
 * Calls are recognised by their "op" (ipc_export, ipc_open, free, ...);
 * traces written before calls had one are read by their API names.
 *
 * Exporter and importers are matched by the handle's bytes (the hex of
 * cuIpcGetMemHandle's args.handle = cuIpcOpenMemHandle's args.handle), per
 * run, host and vendor: CUDA IPC does not cross nodes, and t_ns
 * (CLOCK_MONOTONIC) is comparable between processes of one host only.  An
 * importer's close is matched to its open by the pointer the open returned.
 * ACL closes a key, not a pointer: the importer's close ends its latest
 * open of the key, the exporter's own close ends the export's sharing, and
 * an import still open then is ipc.free-while-open as at a free.
 * A mapping is the driver's: per process and context, counted, so opens of
 * one handle that returned one pointer are one mapping, and its leak one
 * finding; a new mapping the driver places where a closed one was is
 * another.  A process whose trace ends early (.partial: killed or crashed)
 * took its mappings with it: no leak.  The exporter's free is matched to the
 * export by the pointer exported (so an export of an interior pointer is
 * followed only if that same pointer is freed).  Event handles the same way:
 * an imported event ends with its destroy, the exported one with the
 * exporter's destroy.
 *
 * Memory: one record per IPC call, per free of an exported pointer and per
 * destroy of an event exported or imported — other frees and destroys are
 * not kept.  Which pointers and events those are is learnt in the file's
 * pre-phase.  A record is packed (struct ipc_rec: 112 bytes, its strings
 * interned); for check, of a process's exports only the earliest of each
 * handle and pointer is kept, and in a file whose opens and closes are in
 * time order a close is matched to its open as it is read and kept only as
 * the open's end (ipc_report_findings_only).  The ipc command's listing
 * and report's drawing (ipclist.h) keep no record per call.
 *
 * Vendors: CUDA driver (cuIpc*), the CUDA runtime (cudaIpc*, cudaFree: one
 * handle space with the driver's) and HIP (hipIpc*, hipFree) — handles of
 * different vendors never match.  A call nested in a recorded call (the
 * runtime's driver calls) counts only through that call, so a finding is
 * attributed to the runtime call the program made.
 *
 * VMM and memory-pool IPC (CUDA driver) have no handle bytes in common
 * between processes: the allocation's key is what the exporter and the
 * importers share — the exported file's "<st_dev>:<st_ino>" (args.file_id,
 * per host) for a POSIX fd, the 64-byte fabric handle (args.shareable), or
 * a pool pointer's export_data (an fd whose file names no one allocation,
 * file_id_unique false, pairs nothing: each process's chain is listed
 * alone).  Inside a process the chain goes on by the
 * allocation handle (create, export/import, map, release) and by the mapped
 * pointer (set-access, unmap, free of an imported pool pointer).
 *
 * Without the online registry (registry=0, or a process outside the run)
 * the library cannot see the other process at the call; these are derived
 * here instead: ipc.open.stale (an open, refused or not, after the
 * exporter's free), ipc.open.unreachable (from both processes' device
 * lines: UUIDs and the importer's can-access answers) and
 * vmm.import.released (an import after the exporter's last cuMemRelease
 * of the exported allocation handle).
 */
#ifndef PW_AN_IPCLIFE_H
#define PW_AN_IPCLIFE_H

#include "base/show.h"
#include "peerwatch/derived_rules.h"
#include "read/reader.h"

/* The rules derived offline: include/peerwatch/derived_rules.h. */

struct ipc_handle;

enum ipc_op {
	OP_EXPORT,
	OP_OPEN,
	OP_CLOSE,
	OP_FREE,
	OP_EV_EXPORT,
	OP_EV_OPEN,
	OP_EV_DESTROY, /* an event destroyed: of one exported, or one an event open made */
	/* VMM and pool IPC (struct ipc_shared) */
	OP_VMM_CREATE,
	OP_VMM_EXPORT,
	OP_VMM_IMPORT,
	OP_VMM_MAP,
	OP_VMM_ACCESS,
	OP_VMM_UNMAP,
	OP_VMM_RELEASE,
	OP_VMM_RETAIN,
	OP_POOL_EXPORT,
	OP_POOL_IMPORT,
	OP_POOL_ACCESS,
	OP_PTR_EXPORT,
	OP_PTR_IMPORT
};

/* What a VMM or pool record holds beyond the rest (the records of other
 * calls share one zeroed instance, ipc_vmm_none). */
struct ipc_vmm {
	char *key;   /* export/import: the cross-process key, else NULL */
	bool has_vh; /* an allocation handle or a pool */
	uint64_t vh; /* ... its value */
	uint64_t bytes;
	char *detail; /* what the call says beyond its api, for the report */
};

extern const struct ipc_vmm ipc_vmm_none;

/* One kept call, packed (112 bytes): its strings are interned per reading
 * worker (the same api, result name, vendor and handle bytes are one copy),
 * the record lives in the worker's arena (no allocation of its own), and a
 * call that is not VMM or pool IPC points at ipc_vmm_none. */
struct ipc_rec {
	const char *api;      /* api+variant */
	const char *ret_name; /* NULL when the trace had null */
	const char *vendor;
	const char *handle; /* the handle's hex, when has_handle */
	uint64_t seq;
	int64_t t_ns, ret;
	uint64_t ptr;             /* exported, opened (result), closed or freed pointer; an event's value */
	int64_t dev;              /* the pointer's device */
	int64_t cur_dev;          /* an open: the device of the context it mapped in */
	struct ipc_handle *owner; /* an export or open: its handle */
	union {                   /* by op: an open has one of the first two, a close the third */
		struct ipc_rec *closed_by; /* an open: the close (event: the destroy) that ended it */
		int64_t folded_t;          /* an open with `folded`: the time of the close that ended it */
		struct ipc_rec *close_of;  /* a close or an imported event's destroy: the open it ended */
	};
	const struct ipc_vmm *vmm; /* VMM and pool IPC; else &ipc_vmm_none */
	uint32_t file;
	uint8_t op; /* enum ipc_op */
	bool has_ptr, has_handle;
	bool folded; /* findings only: an open whose close was matched as it was read, and not kept */
};

/* Whether an open (memory or event) was ended, and when: by the close kept
 * for it, or by one folded into it as the trace was read (findings only). */
static inline bool ipc_open_ended(const struct ipc_rec *o)
{
	return o->folded || o->closed_by;
}

static inline int64_t ipc_open_end_t(const struct ipc_rec *o)
{
	return o->folded ? o->folded_t : o->closed_by->t_ns;
}

/* A VMM allocation, pool or pool pointer shared between processes. */
struct ipc_shared {
	char *key;
	const char *kind; /* "vmm", "pool", "pool pointer" */
	const char *host; /* the first record's */
	struct vec recs;  /* struct ipc_rec *, in time order */
};

struct ipc_handle {
	const char *host;
	const char *handle;     /* its hex (the records' interned copy) */
	bool event;             /* an event handle (cuIpcGetEventHandle) */
	struct vec recs;        /* struct ipc_rec *, in time order */
	struct ipc_rec *export; /* the first successful export, or NULL */
	struct ipc_rec *free;   /* the exporter's first free (event: destroy) after it, or NULL */
	struct ipc_rec *closed; /* ACL: the exporter's first aclrtIpcMemClose of the key, or NULL */
};

struct ipc_finding {
	const char *rule;
	enum sev sev;
	const struct ipc_handle *handle; /* the handle whose life it is from, or NULL (VMM, pool) */
	size_t file;                     /* the call it is attributed to */
	uint64_t seq;
	char *api;
	char *message;
};

struct ipc_report {
	/* check: only what the findings need (ipc_report_findings_only) */
	bool findings_only;
	bool vmm_detail;     /* ... and yet the VMM and pool records' detail (ipc's listing) */
	struct vec recs;     /* struct ipc_rec * (in the arenas) */
	struct vec pools;    /* struct ipc_pool *: each worker's arena and interned strings */
	struct vec handles;  /* struct ipc_handle * (owned), by first time */
	struct vec stray;    /* struct ipc_rec *: closes of pointers no traced open mapped */
	struct vec findings; /* struct ipc_finding */
	struct vec shared;   /* struct ipc_shared *, by first time */
	int64_t *origin;     /* per file: its host's time origin */
	/* what the traces could not say (info): opens of memory handles whose
	 * export no trace has (stale and unreachable unknowable), and opens
	 * whose devices the traces do not identify (unreachable unknowable) */
	size_t open_no_export, unreachable_unknown;
	/* check, read with ipc_findings_ops: every memory handle's export and
	 * the exporter's free, from all files' pre-phases (ipcsink.c), so that
	 * an open is kept only where a finding may name it */
	bool deciding;
	struct hmap decided; /* a handle's key (ipcsink.c) -> struct ipc_decided * */
	const struct pw_input *in;
	size_t not_kept;        /* opens decided and let go */
	struct hmap more_opens; /* a mapping left open: its first open -> its later opens let go */
};

/* Every IPC call kept (with ipc_derive, the reference the commands' readers
 * are tested against: test_analyze_ipc; no command reads with it now). */
extern const struct pw_sink_ops ipc_ops;
/*
 * ipc_ops for check's reader of the findings (with ipc_report_findings_only):
 * the run reads every file's pre-phase before any file's event phase, and
 * the pre-phases gather every successful memory export and the exporters'
 * frees.  Then a memory open is decided as it ends — when its close is
 * folded into it, or at once when the driver refused it — and kept only if
 * ipc_derive may name it in a finding: its handle exported by no traced
 * process, open at or opened after the exporter's free, or devices that do
 * not say it was reachable.  The rest are let go, so check's memory holds
 * the opens still open and the ones with findings, not every open.  Not
 * done (every open kept, as with ipc_ops) where a file closes an ACL key,
 * and for the handles of an exporter whose exports and frees are not in
 * time order in its file.
 */
extern const struct pw_sink_ops ipc_findings_ops;

/* ipcfacts.c: the run a file belongs to (its header's run_id, "" without). */
const char *ipc_run_of(const struct pw_input *in, size_t file);
/* ipcfacts.c: whether the process of trace f was running at t, by its trace. */
bool ipc_alive_at(const struct pw_file *f, int64_t t);
/* ipcfacts.c: whether the importer's open o could reach the memory of export e, by
 * the two processes' device lines (ipc.open.unreachable). */
enum ipc_reach { IPC_REACH_OK, IPC_REACH_UNKNOWN, IPC_REACH_NOT };
enum ipc_reach ipc_reach(const struct pw_input *in, const struct ipc_rec *e, const struct ipc_rec *o,
                         const struct pw_device **de, const struct pw_device **dc,
                         const struct pw_device **di);

void ipc_init(struct ipc_report *r);
/*
 * For a reader of the findings alone (check): the sink keeps of a process's
 * successful exports (memory and event) only the earliest of each handle,
 * vendor and pointer, keeps no failed export, and builds no VMM detail
 * text.  The findings are the same: a handle's export is its first
 * successful one, a free or destroy ends it once its pointer has been
 * exported by the exporter (the earliest export of each pointer is kept),
 * and no finding names another export or a failed one; only the ipc
 * command's listing of every call needs them.
 *
 * And where a file's memory opens and closes are in time order (t_ns, then
 * seq: its pre-phase checks) and it closes no ACL key, a successful close
 * of a pointer is matched as it is read — to the latest open of the pointer
 * not yet ended, as ipc_derive would match it, since in such a file the
 * order read is the order placed — and kept only as that open's end
 * (`folded`, `folded_t`).  A file that is not in order keeps its closes as
 * records, matched at the end as before.
 */
void ipc_report_findings_only(struct ipc_report *r);
/* After reading: builds handles, matches closes and frees, derives findings. */
void ipc_derive(struct ipc_report *r, const struct pw_input *in);
void ipc_free(struct ipc_report *r);
/* A worker's arena and strings (ipcsink.c), freed with the report. */
struct ipc_pool;
void ipc_pool_free(struct ipc_pool *p);
struct ipc_pool *ipc_pool_new(void);
/* ipcsink.c: whether ev is a call the IPC lives follow, and its op (a
 * call nested in a recorded call is not: it counts through that call). */
bool ipc_call_of(const struct pw_event *ev, enum ipc_op *op);
/* ipcsink.c: r made from the call (a memory or event handle's: not VMM or
 * pool), its strings interned in pool. */
void ipc_rec_fill(struct ipc_rec *r, struct ipc_pool *pool, enum ipc_op op, const struct pw_file *f,
                  const struct pw_event *ev);
/* ipclife.c: the key a handle's records share (its kind, bytes, run, host
 * and vendor), allocated; its length in *len. */
char *ipc_handle_key(const char *run, const char *host, const char *vendor, const char *handle, bool event,
                     size_t *len);

#endif

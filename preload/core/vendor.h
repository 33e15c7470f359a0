/*
 * A vendor library peerwatch hooks, as the shared code sees it: one
 * descriptor per library (the CUDA driver, the CUDA runtime, HIP, ACL),
 * defined beside its hook table (<vendor>_hooks.c) and listed once, in
 * vendors.c.  The shared files loop over the list and call through the
 * descriptor; none of them names a vendor.
 *
 * Every hook but the table, the resolver and the argument writer may be
 * NULL: a vendor without device timing, cross-process exit state or a
 * header section leaves them out.
 */
#ifndef PW_VENDOR_H
#define PW_VENDOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h"

struct pw_jw;
struct pw_op;
struct pw_rcall;
struct pw_snapw;
struct pw_gt_pair;
struct pw_devset;

/* A result code no vendor returns: "this vendor has no such code". */
#define PW_RET_NONE INT64_MIN

struct pw_vendor {
	const char *name;  /* "cuda", "cudart", "hip", "acl": logs, docs and tests */
	int vendor;        /* PW_VENDOR_*: the trace's "vendor" */
	const char *layer; /* the trace's "layer" ("runtime"), or NULL */
	/* A layer over another hooked library (the CUDA runtime over the
	 * driver): the calls it makes below are traced with "parent" but
	 * neither checked nor fed to the state model (pw_tls_upper). */
	bool upper;

	/* ---- the hook table (<vendor>_table.h) and where its calls go ---- */
	const struct pw_fn_desc *fns;
	int nfns;
	void *const *wrappers;    /* our exported function of each row */
	_Atomic(void *) *real;    /* the vendor's function of each row, once known */
	void *(*resolve)(int id); /* finds real[id] (NULL if the library has none) */
	/* dlsym of a name starting with prefix (and, if prefix_upper, an upper
	 * case letter after it) asks dlsym_hook: our wrapper, or r unchanged. */
	const char *prefix;
	bool prefix_upper;
	void *(*dlsym_hook)(const char *name, void *r);

	/* ---- results ---- */
	int64_t ret_success;
	int64_t ret_already_enabled; /* "peer access already enabled", or PW_RET_NONE */
	const char *(*error_name)(int code);
	/* The runtime keeps a last error per host thread, which its getters
	 * (the LAST_ERROR rows) return: the wrappers remember, per thread, the
	 * traced call that last failed (pw_tls_left), so that a getter
	 * returning its code can name it (error.sticky).  Read where the
	 * descriptor is a constant: 0 folds the step away. */
	bool last_error;

	/* ---- one call (call.h runs them in this order) ---- */
	/* PW_NO_EVENT rows, after a successful real call: what it made (an
	 * allocation) or ended (a context: CUDA's context table forgets it). */
	void (*note_alloc)(const struct pw_call *c);
	/* PW_IMPLICIT rows, arguments captured: does the copy cross devices?
	 * (fills c->dev); if not, the call goes through untraced. */
	bool (*implicit_cross)(struct pw_call *c);
	/* Before the real call: devices of the arguments, the current device.
	 * fn is c->fn, given apart: in a wrapper it is a constant, so an inline
	 * pre folds into what the row needs. */
	void (*pre)(struct pw_call *c, const struct pw_fn_desc *fn);
	/* Before and after the real call: the vendor's own bookkeeping (its
	 * allocation tables); the value returned before is passed after. */
	uint64_t (*state_before)(const struct pw_call *c);
	void (*state_after)(const struct pw_call *c, uint64_t token);
	/* Rows with none of these flags skip both (their row is known when the
	 * wrapper is compiled, so the skip costs nothing); 0: every row runs them. */
	unsigned state_rows;
	/* The call as the rules see it; false when no rule looks at it. */
	bool (*op_before)(const struct pw_call *c, struct pw_op *op);
	/* Optional: runs the rules itself (true), instead of once on op. */
	bool (*check_before)(const struct pw_call *c, const struct pw_op *op);
	/* After a checked call: what it wrote that the state model needs. */
	void (*op_after)(const struct pw_call *c, struct pw_op *op);
	/* After the call, on the calling thread, for each argument whose kind
	 * has PW_SNAP_<KIND> (call.h): save into s what put_arg will need of it
	 * that is not in the argument word itself (record.h, event.h).  Not
	 * called for PW_K_OUT_INT: the record writer saves that int for every
	 * vendor (record_write.h). */
	void (*snap_arg)(struct pw_snapw *s, const struct pw_call *c, int i);
	/* On the trace writer's thread: the event's "args" member for argument i
	 * (docs/trace-format.md), from the record alone: the argument words,
	 * devices and snapshots of r.  Never through a pointer argument: what it
	 * pointed to may be gone by now. */
	void (*put_arg)(struct pw_jw *w, const struct pw_rcall *r, int i);
	/* gpu_timing=1: device timing of the call, if it is one that is timed. */
	struct pw_gt_pair *(*gt_begin)(const struct pw_call *c);
	void (*gt_end)(const struct pw_call *c, struct pw_gt_pair *p);

	/* ---- the process ---- */
	/* Adds the vendor's member to the header's "vendors" (a json_t object). */
	void (*describe)(void *json_vendors);
	/* Device identity (devices.h), once a call of the vendor was traced:
	 * sets set->n and fills each visible device and what the runtime says
	 * of each pair, asked untraced; false while it cannot say yet (asked
	 * again next round).  Never on the hot path. */
	bool (*identify)(struct pw_devset *set);
	/* The link of each pair, from the vendor's management library, once:
	 * on the thread of the program's first call of the vendor, before it
	 * (it loads that library, which opens files: state/devices.c). */
	void (*links)(struct pw_devset *set);
	/* Why devices dev and peer of set cannot be peers, in words, from the
	 * vendor's management library loaded now (only for a finding that
	 * says they cannot); false when it cannot say. */
	bool (*why_not)(const struct pw_devset *set, int dev, int peer, char *buf, size_t len);
	/* Device dev's active links to NVSwitches, from the management library
	 * loaded now (only for a finding that needs it); -1 when unknown. */
	int (*switch_links)(const struct pw_devset *set, int dev);
	/* gpu_timing=1: device times that completed, every round of the trace
	 * writer; final: all of them, once, before the footer. */
	void (*gt_collect)(bool final);
	/* Timed calls that got no device time (the footer's gpu_timing_skipped). */
	uint64_t (*gt_skipped)(void);
	/* um_counters=1 or gpu_timing=cupti: the vendor's profiling interface
	 * started, on the thread of the program's first call of the vendor,
	 * before it (vendors/cuda: CUPTI). */
	void (*prof_begin)(void);
	/* Its records written, every round of the trace writer, before the
	 * device times are collected (they may need them); final: all of
	 * them, once, before the footer. */
	void (*prof_collect)(bool final);
	/* um_counters=1: the footer's um_events, um_lost and um_off (NULL when
	 * on); false when the vendor has no such counters. */
	bool (*um_footer)(uint64_t *events, uint64_t *lost, const char **off);
	/* In a forked child: state that does not survive fork. */
	void (*after_fork)(void);
	/* At exit: the op of the next thing still held (*cursor starts at 0). */
	bool (*exit_op)(int *cursor, struct pw_op *op);
};

/* entry/vendors.c: every vendor library, NULL-terminated.  The one name
 * the shared code knows that is defined above it: data, never a call
 * (make deps-test). */
extern const struct pw_vendor *const pw_vendors[];

/* vendor.c: the shared code's loops over them. */
void pw_vendors_describe(void *json_vendors);
/* Every vendor's device timing that completed (final: all of it). */
void pw_vendors_gt_collect(bool final);
uint64_t pw_vendors_gt_skipped(void);
/* Every vendor's profiling records (prof_collect), then its device times. */
void pw_vendors_prof_collect(bool final);
/* The footer's unified-memory counts, summed; false when no vendor has them. */
bool pw_vendors_um_footer(uint64_t *events, uint64_t *lost, const char **off);
void pw_vendors_after_fork(void);
/* The trace's names of a PW_VENDOR_* and a PW_FAM_*. */
const char *pw_vendor_name(int vendor);
const char *pw_family_name(int family);

/* ---- the resolvers' shared steps (<vendor>_resolve.c) ---- */
/* f, the library's function of row id as the vendor's look-up found it,
 * kept as v's real function of that row; NULL, nothing kept, when f is NULL
 * or our own wrapper (only we define the name: there is no library). */
void *pw_vendor_resolved(const struct pw_vendor *v, int id, void *f);
/* The row of v whose symbol is name, or -1. */
int pw_vendor_row(const struct pw_vendor *v, const char *name);
/* Each row's function in the library behind handle, into addr (v->nfns). */
void pw_vendor_addresses(const struct pw_vendor *v, void *handle, void **addr);
/* The row whose library address (addr, as filled above) is fn, or -1. */
int pw_vendor_row_at(const struct pw_vendor *v, void *const *addr, const void *fn);
/* fn, handed out as the library's function of row id (by dlsym or a
 * get-proc-address call), kept as v's real one unless one is already (the
 * first wins; logged, naming the library, e.g. "driver"); our wrapper. */
void *pw_vendor_adopt(const struct pw_vendor *v, int id, void *fn, const char *lib);

/* The vendor's real function of row id, resolved on first use. */
static inline void *pw_real(const struct pw_vendor *v, int id)
{
	void *f = atomic_load_explicit(&v->real[id], memory_order_acquire);
	return __builtin_expect(f != NULL, 1) ? f : v->resolve(id);
}

#endif

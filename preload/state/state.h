/*
 * What the process has done that the contracts depend on: peer access per
 * (context -> peer context), pairs queried, IPC exports, the mappings IPC
 * opens made, events and their IPC handles.  Peer state is lock-free
 * bitmasks (read on every copy), and so is the table of events' flags
 * (written by every event creation); the IPC tables are guarded by one
 * mutex, taken only by IPC calls and by frees and event destructions while
 * any IPC record exists.
 *
 * Peer access is the driver's per pair of contexts (CUDA Driver API, Peer
 * Context Memory Access: "direct access of peerContext from the current
 * context").  A device's primary context (the one the CUDA runtime, HIP
 * and ACL act in; for HIP and ACL, whose documents speak of devices, the
 * device itself) is its ordinal: peer_on[d] bit p is primary(d) ->
 * primary(p).  A context the program made (cuCtxCreate) has a slot of
 * ctxs[], keyed by its handle, that holds its access to and from primary
 * contexts and to other made contexts.  A pw_op names a side by (context
 * handle, device): handle 0 is the device's primary context, and so is a
 * handle not in the table.  While no context was ever made (the common
 * case) a look-up reads no table: two bit tests.
 */
#ifndef PW_STATE_H
#define PW_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "state/op.h"

#define PW_MAX_DEV 64
#define PW_MAX_EXPORTS 512
#define PW_MAX_MAPS 512
#define PW_MAX_IPC_EVENTS 256
#define PW_EVENT_SLOTS 8192
#define PW_MAX_CTX 64 /* contexts made (cuCtxCreate) whose peer access is kept at once */

struct pw_ipc_export {
	unsigned char handle[PW_IPC_HANDLE_BYTES];
	uint64_t base, size;
	int dev;
	bool used;
};

/*
 * One IPC mapping, as the driver keeps them (CUDA Driver API,
 * cuIpcOpenMemHandle: "If the memory handle has already been opened by the
 * current context, the reference count on the handle is incremented by 1
 * and the existing device pointer is returned"; an open in another device's
 * context is a second mapping at another address, measured on H100s):
 * (context, handle) -> pointer, with a count.  A closed mapping (refs 0) is
 * kept only to tell a close too many; a new mapping the driver places at
 * its address replaces it.
 */
struct pw_ipc_map {
	unsigned char handle[PW_IPC_HANDLE_BYTES];
	uint64_t ctx;    /* the context it was opened in; 0: the device's (runtime, HIP) */
	int dev;         /* the device of that context */
	uint64_t ptr;    /* where the driver mapped it */
	uint64_t size;   /* its size, 0 if unknown */
	int refs;        /* opens not yet closed; 0: closed */
	int vendor;      /* PW_VENDOR_* of the open */
	int exp_pid;     /* the exporter (registry), 0 if unknown */
	int exp_dev;     /* the exporter's device (registry), PW_NO_DEV if unknown */
	int mem_dev;     /* ... as this process numbers it: where the bytes live */
	uint64_t serial; /* when it was opened or closed last: the newest closed one is told */
	bool used;
};

/* An event handle this process exported, or an event an IPC open gave it. */
struct pw_ipc_event {
	unsigned char handle[PW_IPC_HANDLE_BYTES];
	uint64_t event;
	bool imported; /* made by an IPC open here (else: exported from here) */
	int vendor;
	bool used;
};

/* Event -> the flags it was created with (lock-free: events are made and
 * destroyed on hot paths of some programs).  key 0: empty, 1: deleted. */
struct pw_event_slot {
	_Atomic uint64_t key;
	atomic_uint flags;
};

/* A context the program made, and its peer access (state.c).  A destroyed
 * one keeps its handle (PW_CTX_GONE) until a new context takes the slot, so
 * that a call naming it can be told it names a destroyed context. */
enum { PW_CTX_FREE, PW_CTX_CLAIMED, PW_CTX_LIVE, PW_CTX_GONE };
struct pw_ctx_slot {
	_Atomic uint64_t key;      /* the context's handle */
	atomic_int state;          /* PW_CTX_* */
	atomic_int dev;            /* its device */
	_Atomic uint64_t to_dev;   /* bit p: this -> primary(p) enabled */
	_Atomic uint64_t from_dev; /* bit p: primary(p) -> this enabled */
	_Atomic uint64_t to_ctx;   /* bit j: this -> the context of slot j enabled */
};

/* One side of a peer relation (pw_ctx_ref): the primary context of dev, the
 * made context of slot `slot`, or one nothing can be said of. */
#define PW_CTX_PRIMARY (-1)
#define PW_CTX_UNKNOWN (-2)   /* no device, or the table was full when it was made */
#define PW_CTX_DESTROYED (-3) /* a handle cuCtxDestroy ended, which the driver no longer knows */
struct pw_ctx_ref {
	int dev;
	int slot; /* a slot of ctxs[], or PW_CTX_* */
};

struct pw_state {
	_Atomic uint64_t peer_on[PW_MAX_DEV]; /* bit p of [d]: primary(d) -> primary(p) enabled */
	_Atomic uint64_t queried[PW_MAX_DEV]; /* bit p of [d]: can d access p asked */
	_Atomic uint64_t lazy_on[PW_MAX_DEV]; /* bit p of [d]: d -> p enabled by a lazy IPC open */
	_Atomic uint64_t managed_asked;       /* bit d: d asked whether it supports managed memory */
	atomic_bool ctx_used;                 /* a context was ever made: look-ups read ctxs[] */
	atomic_bool ctx_full;                 /* one found no slot: handles not in ctxs[] are unknown */
	atomic_int ctx_hi;                    /* slots [0, ctx_hi) of ctxs[] were ever used */
	struct pw_ctx_slot ctxs[PW_MAX_CTX];
	pthread_mutex_t lock;
	atomic_int nexports; /* used entries of exports: frees skip the lock while 0 */
	atomic_int nmaps;    /* live mappings: frees skip the lock while 0 */
	atomic_int nevents;  /* used entries of events: destroys skip the lock while 0 */
	uint64_t serial;
	/* anything was ever written to the IPC tables / the event table: a
	 * forked child's reset clears only what was used, so that fork stays
	 * cheap for programs that never use IPC or events */
	atomic_bool tables_used, events_used;
	struct pw_ipc_export exports[PW_MAX_EXPORTS];
	struct pw_ipc_map maps[PW_MAX_MAPS];
	struct pw_ipc_event events[PW_MAX_IPC_EVENTS];
	struct pw_event_slot event_flags[PW_EVENT_SLOTS];
};

extern struct pw_state pw_state;

static inline bool pw_dev_ok(int d)
{
	return d >= 0 && d < PW_MAX_DEV;
}

static inline bool pw_peer_on(const struct pw_state *s, int from, int to)
{
	return pw_dev_ok(from) && pw_dev_ok(to) &&
	       (atomic_load_explicit(&s->peer_on[from], memory_order_relaxed) >> to & 1);
}

static inline bool pw_peer_queried(const struct pw_state *s, int from, int to)
{
	return pw_dev_ok(from) && pw_dev_ok(to) &&
	       (atomic_load_explicit(&s->queried[from], memory_order_relaxed) >> to & 1);
}

/* Whether the process asked device d whether it supports managed memory
 * (a device attribute query, op.h's PW_DEVATTR_MANAGED). */
static inline bool pw_managed_asked(const struct pw_state *s, int d)
{
	return pw_dev_ok(d) && (atomic_load_explicit(&s->managed_asked, memory_order_relaxed) >> d & 1);
}

int pw_peer_count(const struct pw_state *s, int dev);

/* ---- peer access per pair of contexts ---- */

struct pw_ctx_ref pw_ctx_ref_slow(const struct pw_state *s, uint64_t ctx, int dev);
/* The side (ctx, dev) names: ctx 0 is dev's primary context (the runtime's,
 * HIP's and ACL's calls name devices), and so is a handle no context made
 * here has (a primary context's); dev is the device the driver gives for
 * ctx now (PW_NO_DEV: it does not know the handle). */
static inline struct pw_ctx_ref pw_ctx_ref(const struct pw_state *s, uint64_t ctx, int dev)
{
	if (!ctx || !atomic_load_explicit(&s->ctx_used, memory_order_relaxed))
		return (struct pw_ctx_ref){dev, pw_dev_ok(dev) ? PW_CTX_PRIMARY : PW_CTX_UNKNOWN};
	return pw_ctx_ref_slow(s, ctx, dev);
}
/* A side whose access is known: a primary context or a live made one. */
static inline bool pw_ctx_known(struct pw_ctx_ref r)
{
	return pw_dev_ok(r.dev) && (r.slot == PW_CTX_PRIMARY || r.slot >= 0);
}
static inline bool pw_ctx_same(struct pw_ctx_ref a, struct pw_ctx_ref b)
{
	return a.slot == b.slot && (a.slot >= 0 || a.dev == b.dev);
}
/* Access from context a to context b is enabled (both known). */
bool pw_ctx_on(const struct pw_state *s, struct pw_ctx_ref a, struct pw_ctx_ref b);
/* The devices some context of dev has peer access with, either way, over
 * every context (the hardware's peers: peer.limit). */
uint64_t pw_state_dev_peers(const struct pw_state *s, int dev);
/* Some context of a and some context of b have access, either way: a copy
 * whose contexts are not named (cuMemcpy between devices). */
bool pw_state_dev_linked_slow(const struct pw_state *s, int a, int b);
static inline bool pw_state_dev_linked(const struct pw_state *s, int a, int b)
{
	return pw_peer_on(s, a, b) || pw_peer_on(s, b, a) ||
	       (atomic_load_explicit(&s->ctx_used, memory_order_relaxed) &&
	        pw_state_dev_linked_slow(s, a, b));
}
/* The contexts' lives, as the vendor sees them: a context made on dev; a
 * context destroyed (dev: its device, for a primary context's handle); a
 * device's primary context reset (cuDevicePrimaryCtxReset, its last
 * release, cudaDeviceReset, hipDeviceReset, aclrtResetDevice): the access
 * it had, and the access others had to it, are gone. */
void pw_state_ctx_made(struct pw_state *s, uint64_t ctx, int dev);
/* A device's primary context's handle (cuDevicePrimaryCtxRetain): no
 * longer a destroyed context's, if one had that address. */
void pw_state_ctx_primary(struct pw_state *s, uint64_t ctx);
/* Whether ctx is the handle of a context destroyed here (and no context
 * made since at its address): then nothing may ask the driver about it. */
bool pw_state_ctx_gone(const struct pw_state *s, uint64_t ctx);
void pw_state_ctx_destroyed(struct pw_state *s, uint64_t ctx, int dev);
void pw_state_primary_reset(struct pw_state *s, int dev);
const struct pw_ipc_export *pw_state_export_of_handle(const struct pw_state *s, const unsigned char *h);
/* Whether two (context, device) pairs are one context: by the context when
 * both are known, else by the device (the runtime's and HIP's one per device). */
static inline bool pw_same_ctx(uint64_t ctx_a, int dev_a, uint64_t ctx_b, int dev_b)
{
	return ctx_a && ctx_b ? ctx_a == ctx_b : dev_a == dev_b;
}
/* The live mapping of handle h in the context (ctx, dev), or NULL. */
const struct pw_ipc_map *pw_state_map_of(const struct pw_state *s, const unsigned char *h, uint64_t ctx,
                                         int dev);
/* A live mapping of handle h in any context, or NULL (caller holds the
 * lock): ACL closes an import by its key. */
const struct pw_ipc_map *pw_state_map_of_handle(const struct pw_state *s, const unsigned char *h);
/* A live mapping in another context of device dev, of handle h or of a
 * handle of the same exporter (pid, device); or NULL. */
const struct pw_ipc_map *pw_state_map_other_ctx(const struct pw_state *s, const unsigned char *h,
                                                uint64_t ctx, int dev, int exp_pid, int exp_dev);
/* The live mapping at ptr; else, with closed, the newest closed one there; or NULL. */
const struct pw_ipc_map *pw_state_map_at(const struct pw_state *s, uint64_t ptr, bool closed);
/* The live mapping holding ptr (at its start, or inside where its size is
 * known), taking the lock, but only while any mapping is live: false, or
 * true with a copy in *out. */
bool pw_state_mapped(struct pw_state *s, uint64_t ptr, struct pw_ipc_map *out);
/* Whether this process exported the allocation at base (takes the lock, but
 * only when the process has exported anything at all). */
bool pw_state_exported(struct pw_state *s, uint64_t base);
/* The event record of an exported event handle h / of the event ev (exported
 * or imported), or NULL (caller holds the lock). */
const struct pw_ipc_event *pw_state_event_export(const struct pw_state *s, const unsigned char *h);
const struct pw_ipc_event *pw_state_event_of(const struct pw_state *s, uint64_t ev);
/* Copy of the record of event ev, taking the lock only while any exists. */
bool pw_state_ipc_event(struct pw_state *s, uint64_t ev, struct pw_ipc_event *out);
/* The flags event ev was created with: true, or false when its creation was not seen. */
bool pw_state_event_flags(const struct pw_state *s, uint64_t ev, unsigned *flags);

/* After the real call returned ret (success is 0 for every vendor). */
void pw_state_update(struct pw_state *s, const struct pw_op *op, int64_t ret, bool already_enabled);
void pw_state_reset(struct pw_state *s);

#endif

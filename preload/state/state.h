/*
 * What the process has done that the contracts depend on: peer access per
 * (device -> peer), pairs queried, IPC exports, the mappings IPC opens made,
 * events and their IPC handles.  Peer state is lock-free bitmasks (read on
 * every copy), and so is the table of events' flags (written by every event
 * creation); the IPC tables are guarded by one mutex, taken only by IPC
 * calls and by frees and event destructions while any IPC record exists.
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

struct pw_state {
	_Atomic uint64_t peer_on[PW_MAX_DEV]; /* bit p of [d]: d -> p enabled */
	_Atomic uint64_t queried[PW_MAX_DEV]; /* bit p of [d]: can d access p asked */
	_Atomic uint64_t lazy_on[PW_MAX_DEV]; /* bit p of [d]: d -> p enabled by a lazy IPC open */
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

int pw_peer_count(const struct pw_state *s, int dev);
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

/*
 * What the process has done that the contracts depend on: peer access per
 * (device -> peer), pairs queried, IPC exports and opened mappings.
 * Peer state is lock-free bitmasks (read on every copy); the IPC tables are
 * guarded by one mutex, taken only by IPC calls and frees of exported memory.
 */
#ifndef PW_STATE_H
#define PW_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "op.h"

#define PW_MAX_DEV 64
#define PW_MAX_EXPORTS 512
#define PW_MAX_OPENS 512

struct pw_ipc_export {
	unsigned char handle[PW_IPC_HANDLE_BYTES];
	uint64_t base, size;
	int dev;
	bool used;
};

struct pw_ipc_open {
	unsigned char handle[PW_IPC_HANDLE_BYTES];
	uint64_t ptr;
	int refs;   /* opens not yet closed */
	int vendor; /* PW_VENDOR_* of the open */
	bool used;
};

struct pw_state {
	_Atomic uint64_t peer_on[PW_MAX_DEV]; /* bit p of [d]: d -> p enabled */
	_Atomic uint64_t queried[PW_MAX_DEV]; /* bit p of [d]: can d access p asked */
	pthread_mutex_t lock;
	atomic_int nexports; /* used entries of exports: frees skip the lock while 0 */
	struct pw_ipc_export exports[PW_MAX_EXPORTS];
	struct pw_ipc_open opens[PW_MAX_OPENS];
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
const struct pw_ipc_open *pw_state_open_of_handle(const struct pw_state *s, const unsigned char *h);
const struct pw_ipc_open *pw_state_open_of_ptr(const struct pw_state *s, uint64_t ptr);
/* Whether this process exported the allocation at base (takes the lock, but
 * only when the process has exported anything at all). */
bool pw_state_exported(struct pw_state *s, uint64_t base);

/* After the real call returned ret (success is 0 for every vendor). */
void pw_state_update(struct pw_state *s, const struct pw_op *op, int64_t ret, bool already_enabled);
void pw_state_reset(struct pw_state *s);

#endif

/* The per-process state model: see state.h. */
#include <string.h>

#include "state/state.h"

struct pw_state pw_state = {.lock = PTHREAD_MUTEX_INITIALIZER};

int pw_peer_count(const struct pw_state *s, int dev)
{
	if (!pw_dev_ok(dev))
		return 0;
	return __builtin_popcountll(atomic_load_explicit(&s->peer_on[dev], memory_order_relaxed));
}

/* ---- peer access per pair of contexts ---- */

static int ctx_hi(const struct pw_state *s)
{
	int hi = atomic_load_explicit(&s->ctx_hi, memory_order_acquire);
	return hi < PW_MAX_CTX ? hi : PW_MAX_CTX;
}

/* The slot holding ctx in state st (LIVE or GONE), or -1. */
static int ctx_find(const struct pw_state *s, uint64_t ctx, int st)
{
	for (int j = 0, hi = ctx_hi(s); j < hi; j++) {
		const struct pw_ctx_slot *c = &s->ctxs[j];
		if (atomic_load_explicit(&c->state, memory_order_acquire) == st &&
		    atomic_load_explicit(&c->key, memory_order_relaxed) == ctx)
			return j;
	}
	return -1;
}

struct pw_ctx_ref pw_ctx_ref_slow(const struct pw_state *s, uint64_t ctx, int dev)
{
	int j = ctx_find(s, ctx, PW_CTX_LIVE);
	if (j >= 0)
		return (struct pw_ctx_ref){atomic_load_explicit(&s->ctxs[j].dev, memory_order_relaxed), j};
	if (!pw_dev_ok(dev))
		/* a handle the driver does not know: one destroyed here, or not a context */
		return (struct pw_ctx_ref){dev, ctx_find(s, ctx, PW_CTX_GONE) >= 0 ? PW_CTX_DESTROYED
		                                                                   : PW_CTX_UNKNOWN};
	/* the driver knows it and no context was made here at that address
	 * (since): a primary context; unless a made one found no slot */
	if (atomic_load_explicit(&s->ctx_full, memory_order_relaxed))
		return (struct pw_ctx_ref){dev, PW_CTX_UNKNOWN};
	return (struct pw_ctx_ref){dev, PW_CTX_PRIMARY};
}

static uint64_t bit(int i)
{
	return (uint64_t)1 << i;
}

bool pw_ctx_on(const struct pw_state *s, struct pw_ctx_ref a, struct pw_ctx_ref b)
{
	if (!pw_ctx_known(a) || !pw_ctx_known(b))
		return false;
	if (a.slot < 0 && b.slot < 0)
		return pw_peer_on(s, a.dev, b.dev);
	if (a.slot < 0)
		return atomic_load_explicit(&s->ctxs[b.slot].from_dev, memory_order_relaxed) & bit(a.dev);
	if (b.slot < 0)
		return atomic_load_explicit(&s->ctxs[a.slot].to_dev, memory_order_relaxed) & bit(b.dev);
	return atomic_load_explicit(&s->ctxs[a.slot].to_ctx, memory_order_relaxed) & bit(b.slot);
}

/* The word and bit that hold a -> b. */
static _Atomic uint64_t *pair_word(struct pw_state *s, struct pw_ctx_ref a, struct pw_ctx_ref b, int *bitno)
{
	if (a.slot < 0 && b.slot < 0) {
		*bitno = b.dev;
		return &s->peer_on[a.dev];
	}
	if (a.slot < 0) {
		*bitno = a.dev;
		return &s->ctxs[b.slot].from_dev;
	}
	*bitno = b.slot < 0 ? b.dev : b.slot;
	return b.slot < 0 ? &s->ctxs[a.slot].to_dev : &s->ctxs[a.slot].to_ctx;
}

/* Devices whose contexts context slot j has access with, either way. */
static uint64_t slot_peers(const struct pw_state *s, int j, int hi)
{
	const struct pw_ctx_slot *c = &s->ctxs[j];
	uint64_t set = atomic_load_explicit(&c->to_dev, memory_order_relaxed) |
	               atomic_load_explicit(&c->from_dev, memory_order_relaxed);
	uint64_t to = atomic_load_explicit(&c->to_ctx, memory_order_relaxed);
	for (int k = 0; k < hi; k++) {
		const struct pw_ctx_slot *o = &s->ctxs[k];
		if (k == j || atomic_load_explicit(&o->state, memory_order_acquire) != PW_CTX_LIVE)
			continue;
		if ((to & bit(k)) || (atomic_load_explicit(&o->to_ctx, memory_order_relaxed) & bit(j)))
			set |= bit(atomic_load_explicit(&o->dev, memory_order_relaxed));
	}
	return set;
}

uint64_t pw_state_dev_peers(const struct pw_state *s, int dev)
{
	if (!pw_dev_ok(dev))
		return 0;
	uint64_t set = atomic_load_explicit(&s->peer_on[dev], memory_order_relaxed);
	for (int p = 0; p < PW_MAX_DEV; p++)
		if (pw_peer_on(s, p, dev))
			set |= bit(p);
	if (!atomic_load_explicit(&s->ctx_used, memory_order_relaxed))
		return set & ~bit(dev);
	for (int j = 0, hi = ctx_hi(s); j < hi; j++) {
		const struct pw_ctx_slot *c = &s->ctxs[j];
		if (atomic_load_explicit(&c->state, memory_order_acquire) != PW_CTX_LIVE)
			continue;
		int d = atomic_load_explicit(&c->dev, memory_order_relaxed);
		uint64_t peers = slot_peers(s, j, hi);
		if (d == dev)
			set |= peers;
		else if (pw_dev_ok(d) && (peers & bit(dev)))
			set |= bit(d);
	}
	return set & ~bit(dev); /* two contexts of one device are no peers of the hardware */
}

bool pw_state_dev_linked_slow(const struct pw_state *s, int a, int b)
{
	return pw_dev_ok(a) && pw_dev_ok(b) && (pw_state_dev_peers(s, a) & bit(b));
}

/* Access in both directions between slot j and everything else is gone. */
static void slot_clear(struct pw_state *s, int j)
{
	atomic_store_explicit(&s->ctxs[j].to_dev, 0, memory_order_relaxed);
	atomic_store_explicit(&s->ctxs[j].from_dev, 0, memory_order_relaxed);
	atomic_store_explicit(&s->ctxs[j].to_ctx, 0, memory_order_relaxed);
	for (int k = 0, hi = ctx_hi(s); k < hi; k++)
		atomic_fetch_and_explicit(&s->ctxs[k].to_ctx, ~bit(j), memory_order_relaxed);
}

/* Slot j, taken (CLAIMED) for ctx on dev: fresh, then LIVE. */
static void slot_fill(struct pw_state *s, int j, uint64_t ctx, int dev)
{
	atomic_store_explicit(&s->ctxs[j].key, ctx, memory_order_relaxed);
	atomic_store_explicit(&s->ctxs[j].dev, dev, memory_order_relaxed);
	slot_clear(s, j);
	atomic_store_explicit(&s->ctxs[j].state, PW_CTX_LIVE, memory_order_release);
	int hi = atomic_load_explicit(&s->ctx_hi, memory_order_relaxed);
	while (hi < j + 1 && !atomic_compare_exchange_weak(&s->ctx_hi, &hi, j + 1))
		;
}

static bool slot_take(struct pw_state *s, int j, int from)
{
	return atomic_compare_exchange_strong(&s->ctxs[j].state, &from, PW_CTX_CLAIMED);
}

void pw_state_ctx_made(struct pw_state *s, uint64_t ctx, int dev)
{
	if (!ctx)
		return;
	if (!atomic_load_explicit(&s->ctx_used, memory_order_relaxed))
		atomic_store(&s->ctx_used, true);
	/* a new context at a handle the table holds (a destroyed one's, or one
	 * whose end was not seen): the same slot, fresh */
	static const int held[] = {PW_CTX_LIVE, PW_CTX_GONE};
	for (int t = 0; t < 2; t++) {
		int j = ctx_find(s, ctx, held[t]);
		if (j >= 0 && slot_take(s, j, held[t])) {
			slot_fill(s, j, ctx, dev);
			return;
		}
	}
	/* a free slot, else the first destroyed one */
	static const int take[] = {PW_CTX_FREE, PW_CTX_GONE};
	for (int t = 0; t < 2; t++)
		for (int j = 0; j < PW_MAX_CTX; j++)
			if (atomic_load_explicit(&s->ctxs[j].state, memory_order_relaxed) == take[t] &&
			    slot_take(s, j, take[t])) {
				slot_fill(s, j, ctx, dev);
				return;
			}
	/* full of live contexts: a handle not in the table may now be either
	 * kind, and nothing is said of it (no finding) */
	atomic_store(&s->ctx_full, true);
}

bool pw_state_ctx_gone(const struct pw_state *s, uint64_t ctx)
{
	return ctx && atomic_load_explicit(&s->ctx_used, memory_order_relaxed) &&
	       ctx_find(s, ctx, PW_CTX_GONE) >= 0;
}

void pw_state_ctx_primary(struct pw_state *s, uint64_t ctx)
{
	int j = pw_state_ctx_gone(s, ctx) ? ctx_find(s, ctx, PW_CTX_GONE) : -1;
	if (j >= 0 && slot_take(s, j, PW_CTX_GONE))
		atomic_store_explicit(&s->ctxs[j].state, PW_CTX_FREE, memory_order_release);
}

void pw_state_ctx_destroyed(struct pw_state *s, uint64_t ctx, int dev)
{
	int j = ctx && atomic_load_explicit(&s->ctx_used, memory_order_relaxed)
	            ? ctx_find(s, ctx, PW_CTX_LIVE)
	            : -1;
	if (j < 0) {
		/* not made here: a primary context's handle */
		pw_state_primary_reset(s, dev);
		return;
	}
	if (!slot_take(s, j, PW_CTX_LIVE))
		return;
	slot_clear(s, j);
	atomic_store_explicit(&s->ctxs[j].state, PW_CTX_GONE, memory_order_release);
}

void pw_state_primary_reset(struct pw_state *s, int dev)
{
	if (!pw_dev_ok(dev))
		return;
	atomic_store_explicit(&s->peer_on[dev], 0, memory_order_relaxed);
	atomic_store_explicit(&s->lazy_on[dev], 0, memory_order_relaxed);
	for (int d = 0; d < PW_MAX_DEV; d++) {
		atomic_fetch_and_explicit(&s->peer_on[d], ~bit(dev), memory_order_relaxed);
		atomic_fetch_and_explicit(&s->lazy_on[d], ~bit(dev), memory_order_relaxed);
	}
	for (int j = 0, hi = ctx_hi(s); j < hi; j++) {
		atomic_fetch_and_explicit(&s->ctxs[j].to_dev, ~bit(dev), memory_order_relaxed);
		atomic_fetch_and_explicit(&s->ctxs[j].from_dev, ~bit(dev), memory_order_relaxed);
	}
}

const struct pw_ipc_export *pw_state_export_of_handle(const struct pw_state *s, const unsigned char *h)
{
	for (int i = 0; h && i < PW_MAX_EXPORTS; i++)
		if (s->exports[i].used && !memcmp(s->exports[i].handle, h, PW_IPC_HANDLE_BYTES))
			return &s->exports[i];
	return NULL;
}

/* ---- mappings ---- */

static bool live(const struct pw_ipc_map *m)
{
	return m->used && m->refs > 0;
}

const struct pw_ipc_map *pw_state_map_of(const struct pw_state *s, const unsigned char *h, uint64_t ctx,
                                         int dev)
{
	for (int i = 0; h && i < PW_MAX_MAPS; i++) {
		const struct pw_ipc_map *m = &s->maps[i];
		if (live(m) && pw_same_ctx(m->ctx, m->dev, ctx, dev) &&
		    !memcmp(m->handle, h, PW_IPC_HANDLE_BYTES))
			return m;
	}
	return NULL;
}

const struct pw_ipc_map *pw_state_map_of_handle(const struct pw_state *s, const unsigned char *h)
{
	for (int i = 0; h && i < PW_MAX_MAPS; i++) {
		const struct pw_ipc_map *m = &s->maps[i];
		if (live(m) && !memcmp(m->handle, h, PW_IPC_HANDLE_BYTES))
			return m;
	}
	return NULL;
}

const struct pw_ipc_map *pw_state_map_other_ctx(const struct pw_state *s, const unsigned char *h,
                                                uint64_t ctx, int dev, int exp_pid, int exp_dev)
{
	if (!ctx || dev == PW_NO_DEV)
		return NULL; /* a context is known only by its device: no other one to tell */
	for (int i = 0; i < PW_MAX_MAPS; i++) {
		const struct pw_ipc_map *m = &s->maps[i];
		if (!live(m) || !m->ctx || m->ctx == ctx || m->dev != dev)
			continue;
		bool same = h && !memcmp(m->handle, h, PW_IPC_HANDLE_BYTES);
		bool sibling =
		    exp_pid > 0 && m->exp_pid == exp_pid && exp_dev != PW_NO_DEV && m->exp_dev == exp_dev;
		if (same || sibling)
			return m;
	}
	return NULL;
}

const struct pw_ipc_map *pw_state_map_at(const struct pw_state *s, uint64_t ptr, bool closed)
{
	const struct pw_ipc_map *newest = NULL;
	for (int i = 0; ptr && i < PW_MAX_MAPS; i++) {
		const struct pw_ipc_map *m = &s->maps[i];
		if (!m->used || m->ptr != ptr)
			continue;
		if (m->refs > 0)
			return m;
		if (closed && (!newest || m->serial > newest->serial))
			newest = m;
	}
	return newest;
}

static const struct pw_ipc_map *map_holding(const struct pw_state *s, uint64_t ptr)
{
	const struct pw_ipc_map *m = pw_state_map_at(s, ptr, false);
	for (int i = 0; !m && ptr && i < PW_MAX_MAPS; i++) {
		const struct pw_ipc_map *c = &s->maps[i];
		if (live(c) && c->size && ptr > c->ptr && ptr - c->ptr < c->size)
			m = c;
	}
	return m;
}

bool pw_state_mapped(struct pw_state *s, uint64_t ptr, struct pw_ipc_map *out)
{
	if (!ptr || !atomic_load_explicit(&s->nmaps, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&s->lock);
	const struct pw_ipc_map *m = map_holding(s, ptr);
	if (m)
		*out = *m;
	pthread_mutex_unlock(&s->lock);
	return m != NULL;
}

bool pw_state_exported(struct pw_state *s, uint64_t base)
{
	if (!atomic_load_explicit(&s->nexports, memory_order_relaxed))
		return false;
	bool found = false;
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < PW_MAX_EXPORTS && !found; i++)
		found = s->exports[i].used && s->exports[i].base == base;
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* ---- events ---- */

const struct pw_ipc_event *pw_state_event_export(const struct pw_state *s, const unsigned char *h)
{
	for (int i = 0; h && i < PW_MAX_IPC_EVENTS; i++)
		if (s->events[i].used && !s->events[i].imported &&
		    !memcmp(s->events[i].handle, h, PW_IPC_HANDLE_BYTES))
			return &s->events[i];
	return NULL;
}

const struct pw_ipc_event *pw_state_event_of(const struct pw_state *s, uint64_t ev)
{
	for (int i = 0; ev && i < PW_MAX_IPC_EVENTS; i++)
		if (s->events[i].used && s->events[i].event == ev)
			return &s->events[i];
	return NULL;
}

bool pw_state_ipc_event(struct pw_state *s, uint64_t ev, struct pw_ipc_event *out)
{
	if (!ev || !atomic_load_explicit(&s->nevents, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&s->lock);
	const struct pw_ipc_event *e = pw_state_event_of(s, ev);
	if (e)
		*out = *e;
	pthread_mutex_unlock(&s->lock);
	return e != NULL;
}

#define EV_EMPTY 0
#define EV_GONE 1
/* A look-up probes at most this many slots: deleted ones are never cleared,
 * so without a bound a program that makes and destroys events for days
 * would make a miss scan the whole table.  An event not found within it is
 * unknown (no finding). */
#define EV_PROBES 64

static unsigned slot_of(uint64_t ev)
{
	return (unsigned)((ev * 0x9E3779B97F4A7C15ull) >> 40) % PW_EVENT_SLOTS;
}

bool pw_state_event_flags(const struct pw_state *s, uint64_t ev, unsigned *flags)
{
	if (ev <= EV_GONE)
		return false;
	unsigned h = slot_of(ev);
	for (unsigned i = 0; i < EV_PROBES; i++) {
		const struct pw_event_slot *e = &s->event_flags[(h + i) % PW_EVENT_SLOTS];
		uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);
		if (k == EV_EMPTY)
			return false;
		if (k == ev) {
			*flags = atomic_load_explicit(&e->flags, memory_order_relaxed);
			return true;
		}
	}
	return false;
}

/* Entered once per creation; a full table leaves the event unknown (no finding). */
static void event_created(struct pw_state *s, uint64_t ev, unsigned flags)
{
	if (ev <= EV_GONE)
		return;
	unsigned h = slot_of(ev);
	for (unsigned i = 0; i < EV_PROBES; i++) {
		struct pw_event_slot *e = &s->event_flags[(h + i) % PW_EVENT_SLOTS];
		uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);
		if (k == ev) { /* a handle the runtime gave out again: its new flags */
			atomic_store_explicit(&e->flags, flags, memory_order_relaxed);
			return;
		}
		if (k != EV_EMPTY && k != EV_GONE)
			continue;
		/* The key, then the flags: the export that reads them comes after
		 * the creation returned, so after both stores. */
		if (!atomic_load_explicit(&s->events_used, memory_order_relaxed))
			atomic_store(&s->events_used, true);
		if (atomic_compare_exchange_strong_explicit(&e->key, &k, ev, memory_order_acq_rel,
		                                            memory_order_relaxed)) {
			atomic_store_explicit(&e->flags, flags, memory_order_release);
			return;
		}
	}
}

static void event_destroyed(struct pw_state *s, uint64_t ev)
{
	if (ev <= EV_GONE)
		return;
	unsigned h = slot_of(ev);
	for (unsigned i = 0; i < EV_PROBES; i++) {
		struct pw_event_slot *e = &s->event_flags[(h + i) % PW_EVENT_SLOTS];
		uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);
		if (k == EV_EMPTY)
			return;
		if (k == ev && atomic_compare_exchange_strong(&e->key, &k, EV_GONE))
			return;
	}
}

/* ---- updates ---- */

static void set_bit(_Atomic uint64_t *word, int bit, bool on)
{
	/* Most updates change nothing (a program asks the same pair again and
	 * again): a locked write to this line from every call would make the
	 * threads of the process take it from each other's caches (8 threads
	 * querying at once paid 3.8x one thread's cost, on the H100 host). */
	uint64_t m = (uint64_t)1 << bit;
	if (((atomic_load_explicit(word, memory_order_relaxed) & m) != 0) == on)
		return;
	if (on)
		atomic_fetch_or_explicit(word, (uint64_t)1 << bit, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(word, ~((uint64_t)1 << bit), memory_order_relaxed);
}

/* Access from a to b on or off (both known; a context is no peer of itself). */
static void set_pair(struct pw_state *s, struct pw_ctx_ref a, struct pw_ctx_ref b, bool on)
{
	if (!pw_ctx_known(a) || !pw_ctx_known(b) || pw_ctx_same(a, b))
		return;
	int n;
	_Atomic uint64_t *w = pair_word(s, a, b, &n);
	set_bit(w, n, on);
}

static void record_export(struct pw_state *s, const struct pw_op *op)
{
	struct pw_ipc_export *e = (struct pw_ipc_export *)pw_state_export_of_handle(s, op->handle);
	for (int i = 0; !e && i < PW_MAX_EXPORTS; i++)
		if (!s->exports[i].used)
			e = &s->exports[i];
	if (!e)
		return; /* full: checks fall back to what the runtime says */
	if (!e->used)
		atomic_fetch_add(&s->nexports, 1);
	memcpy(e->handle, op->handle, PW_IPC_HANDLE_BYTES);
	e->base = op->dst.known ? op->dst.base : op->dst.ptr;
	e->size = op->dst.size;
	e->dev = op->dst.dev;
	e->used = true;
}

/* A slot for a new mapping: a free one, else the oldest closed one. */
static struct pw_ipc_map *map_slot(struct pw_state *s)
{
	struct pw_ipc_map *old = NULL;
	for (int i = 0; i < PW_MAX_MAPS; i++) {
		struct pw_ipc_map *m = &s->maps[i];
		if (!m->used)
			return m;
		if (m->refs <= 0 && (!old || m->serial < old->serial))
			old = m;
	}
	return old;
}

static void record_open(struct pw_state *s, const struct pw_op *op)
{
	if (!op->dst.ptr)
		return;
	struct pw_ipc_map *m = (struct pw_ipc_map *)pw_state_map_of(s, op->handle, op->ctx, op->cur_dev);
	if (m && m->ptr == op->dst.ptr) { /* the same context again: the same mapping, counted */
		m->refs++;
		m->serial = ++s->serial;
		return;
	}
	/* A new mapping.  Closed ones at its address are history now. */
	for (int i = 0; i < PW_MAX_MAPS; i++)
		if (s->maps[i].used && s->maps[i].refs <= 0 && s->maps[i].ptr == op->dst.ptr)
			s->maps[i].used = false;
	m = map_slot(s);
	if (!m)
		return; /* full of live mappings: checks fall back to what the runtime says */
	memset(m, 0, sizeof *m);
	memcpy(m->handle, op->handle, PW_IPC_HANDLE_BYTES);
	m->ctx = op->ctx;
	m->dev = op->cur_dev;
	m->ptr = op->dst.ptr;
	m->size = op->dst.known ? op->dst.size : 0;
	m->refs = 1;
	m->vendor = op->vendor;
	m->exp_pid = op->reg_known ? op->reg_exporter_pid : 0;
	m->exp_dev = op->reg_known ? op->reg_device : PW_NO_DEV;
	m->mem_dev = pw_op_exporter_dev(op);
	m->serial = ++s->serial;
	m->used = true;
	atomic_fetch_add(&s->nmaps, 1);
}

static void record_close(struct pw_state *s, const struct pw_op *op)
{
	struct pw_ipc_map *m = (struct pw_ipc_map *)pw_state_map_at(s, op->dst.ptr, false);
	if (!m)
		return;
	m->serial = ++s->serial;
	if (--m->refs == 0) /* kept with refs 0: a later close is a close too many */
		atomic_fetch_sub(&s->nmaps, 1);
}

static void record_free(struct pw_state *s, const struct pw_op *op)
{
	for (int i = 0; i < PW_MAX_EXPORTS; i++)
		if (s->exports[i].used && s->exports[i].base == op->dst.ptr) {
			s->exports[i].used = false;
			atomic_fetch_sub(&s->nexports, 1);
		}
}

static struct pw_ipc_event *event_slot(struct pw_state *s, uint64_t ev)
{
	struct pw_ipc_event *e = (struct pw_ipc_event *)pw_state_event_of(s, ev);
	for (int i = 0; !e && i < PW_MAX_IPC_EVENTS; i++)
		if (!s->events[i].used)
			e = &s->events[i];
	return e;
}

/* An event handle exported (or an event opened from one): remembered until the event is destroyed. */
static void record_event(struct pw_state *s, const struct pw_op *op, bool imported)
{
	struct pw_ipc_event *e = event_slot(s, op->event);
	if (!e || !op->handle || !op->event)
		return;
	if (!e->used)
		atomic_fetch_add(&s->nevents, 1);
	memcpy(e->handle, op->handle, PW_IPC_HANDLE_BYTES);
	e->event = op->event;
	e->imported = imported;
	e->vendor = op->vendor;
	e->used = true;
}

static void record_event_destroy(struct pw_state *s, const struct pw_op *op)
{
	struct pw_ipc_event *e = (struct pw_ipc_event *)pw_state_event_of(s, op->event);
	if (e) {
		e->used = false;
		atomic_fetch_sub(&s->nevents, 1);
	}
}

/* The lazy-enable flag: "For contexts on different devices cuIpcOpenMemHandle
 * can attempt to enable peer access between the devices as if the user
 * called cuCtxEnablePeerAccess" (CUDA Driver API, cuIpcOpenMemHandle; HIP's
 * hipIpcOpenMemHandle says the same). */
static void lazy_enable(struct pw_state *s, const struct pw_op *op)
{
	bool lazy = op->ipc_lazy_flag ? (op->flags & op->ipc_lazy_flag) != 0 : op->flags == 0;
	int from = op->cur_dev, to = op->dst.dev;
	if (!lazy || !pw_dev_ok(from) || !pw_dev_ok(to) || from == to || op->can_access == 0)
		return;
	/* from the current context to the primary context of the memory's device */
	struct pw_ctx_ref a = pw_ctx_ref(s, op->ctx, from), b = {to, PW_CTX_PRIMARY};
	if (a.slot == PW_CTX_PRIMARY && !pw_peer_on(s, from, to))
		set_bit(&s->lazy_on[from], to, true);
	set_pair(s, a, b, true);
}

static bool ipc_table_op(enum pw_op_kind k)
{
	return k == PW_OP_IPC_EXPORT || k == PW_OP_IPC_OPEN || k == PW_OP_IPC_CLOSE || k == PW_OP_FREE ||
	       k == PW_OP_IPC_EVENT_EXPORT || k == PW_OP_IPC_EVENT_OPEN || k == PW_OP_EVENT_DESTROY;
}

static void update_tables(struct pw_state *s, const struct pw_op *op)
{
	switch (op->kind) {
	case PW_OP_IPC_EXPORT:
		if (op->handle)
			record_export(s, op);
		break;
	case PW_OP_IPC_OPEN:
		if (op->handle)
			record_open(s, op);
		break;
	case PW_OP_IPC_CLOSE: record_close(s, op); break;
	case PW_OP_FREE: record_free(s, op); break;
	case PW_OP_IPC_EVENT_EXPORT: record_event(s, op, false); break;
	case PW_OP_IPC_EVENT_OPEN: record_event(s, op, true); break;
	case PW_OP_EVENT_DESTROY: record_event_destroy(s, op); break;
	default: break;
	}
}

void pw_state_update(struct pw_state *s, const struct pw_op *op, int64_t ret, bool already_enabled)
{
	bool ok = ret == 0;
	switch (op->kind) {
	case PW_OP_CAN_ACCESS:
		if (ok && pw_dev_ok(op->cur_dev) && pw_dev_ok(op->peer_dev))
			set_bit(&s->queried[op->cur_dev], op->peer_dev, true);
		return;
	case PW_OP_PEER_ENABLE:
		if (ok || already_enabled)
			set_pair(s, pw_ctx_ref(s, op->ctx, op->cur_dev),
			         pw_ctx_ref(s, op->peer_ctx, op->peer_dev), true);
		return;
	case PW_OP_PEER_DISABLE:
		if (ok) {
			struct pw_ctx_ref a = pw_ctx_ref(s, op->ctx, op->cur_dev),
			                  b = pw_ctx_ref(s, op->peer_ctx, op->peer_dev);
			set_pair(s, a, b, false);
			if (a.slot == PW_CTX_PRIMARY && b.slot == PW_CTX_PRIMARY)
				set_bit(&s->lazy_on[a.dev], b.dev, false);
		}
		return;
	case PW_OP_EVENT_CREATE:
		if (ok)
			event_created(s, op->event, (unsigned)op->flags);
		return;
	case PW_OP_DEVICE_ATTR: /* asked, whatever the answer: the program knows it */
		if (op->dev_attr == PW_DEVATTR_MANAGED && pw_dev_ok(op->cur_dev))
			set_bit(&s->managed_asked, op->cur_dev, true);
		return;
	case PW_OP_DEVICE_RESET:
		/* the device's (primary context's) mappings of its peers, and theirs
		 * of its memory, are gone; a reset while a context made here is
		 * current resets none (cudaDeviceReset: the runtime's own state) */
		if (ok && pw_ctx_ref(s, op->ctx, op->cur_dev).slot == PW_CTX_PRIMARY)
			pw_state_primary_reset(s, op->cur_dev);
		return;
	default: break;
	}
	if (!ok || !ipc_table_op(op->kind))
		return;
	if (op->kind == PW_OP_EVENT_DESTROY)
		event_destroyed(s, op->event);
	if ((op->kind == PW_OP_FREE && !atomic_load(&s->nexports)) ||
	    (op->kind == PW_OP_EVENT_DESTROY && !atomic_load(&s->nevents)))
		return; /* nothing of this process's IPC can be concerned */
	if (op->kind == PW_OP_IPC_OPEN)
		lazy_enable(s, op);
	pthread_mutex_lock(&s->lock);
	atomic_store_explicit(&s->tables_used, true, memory_order_relaxed);
	update_tables(s, op);
	pthread_mutex_unlock(&s->lock);
}

void pw_state_reset(struct pw_state *s)
{
	for (int d = 0; d < PW_MAX_DEV; d++) {
		atomic_store(&s->peer_on[d], 0);
		atomic_store(&s->queried[d], 0);
		atomic_store(&s->lazy_on[d], 0);
	}
	atomic_store(&s->managed_asked, 0);
	/* no context survives fork */
	if (atomic_exchange(&s->ctx_used, false)) {
		for (int j = 0; j < PW_MAX_CTX; j++) {
			atomic_store(&s->ctxs[j].state, PW_CTX_FREE);
			atomic_store(&s->ctxs[j].key, 0);
			atomic_store(&s->ctxs[j].to_dev, 0);
			atomic_store(&s->ctxs[j].from_dev, 0);
			atomic_store(&s->ctxs[j].to_ctx, 0);
		}
		atomic_store(&s->ctx_hi, 0);
		atomic_store(&s->ctx_full, false);
	}
	pthread_mutex_init(&s->lock, NULL);
	atomic_store(&s->nexports, 0);
	atomic_store(&s->nmaps, 0);
	atomic_store(&s->nevents, 0);
	s->serial = 0;
	if (atomic_exchange(&s->tables_used, false)) {
		memset(s->exports, 0, sizeof s->exports);
		memset(s->maps, 0, sizeof s->maps);
		memset(s->events, 0, sizeof s->events);
	}
	if (atomic_exchange(&s->events_used, false))
		for (int i = 0; i < PW_EVENT_SLOTS; i++) {
			atomic_store_explicit(&s->event_flags[i].key, 0, memory_order_relaxed);
			atomic_store_explicit(&s->event_flags[i].flags, 0, memory_order_relaxed);
		}
}

/* The per-process state model: see state.h. */
#include <string.h>

#include "state.h"

struct pw_state pw_state = {.lock = PTHREAD_MUTEX_INITIALIZER};

int pw_peer_count(const struct pw_state *s, int dev)
{
	if (!pw_dev_ok(dev))
		return 0;
	return __builtin_popcountll(atomic_load_explicit(&s->peer_on[dev], memory_order_relaxed));
}

const struct pw_ipc_export *pw_state_export_of_handle(const struct pw_state *s, const unsigned char *h)
{
	for (int i = 0; h && i < PW_MAX_EXPORTS; i++)
		if (s->exports[i].used && !memcmp(s->exports[i].handle, h, PW_IPC_HANDLE_BYTES))
			return &s->exports[i];
	return NULL;
}

const struct pw_ipc_open *pw_state_open_of_handle(const struct pw_state *s, const unsigned char *h)
{
	for (int i = 0; h && i < PW_MAX_OPENS; i++)
		if (s->opens[i].used && !memcmp(s->opens[i].handle, h, PW_IPC_HANDLE_BYTES))
			return &s->opens[i];
	return NULL;
}

const struct pw_ipc_open *pw_state_open_of_ptr(const struct pw_state *s, uint64_t ptr)
{
	for (int i = 0; ptr && i < PW_MAX_OPENS; i++)
		if (s->opens[i].used && s->opens[i].ptr == ptr)
			return &s->opens[i];
	return NULL;
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

static void set_bit(_Atomic uint64_t *word, int bit, bool on)
{
	if (on)
		atomic_fetch_or_explicit(word, (uint64_t)1 << bit, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(word, ~((uint64_t)1 << bit), memory_order_relaxed);
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

static void record_open(struct pw_state *s, const struct pw_op *op)
{
	struct pw_ipc_open *o = (struct pw_ipc_open *)pw_state_open_of_handle(s, op->handle);
	for (int i = 0; !o && i < PW_MAX_OPENS; i++)
		if (!s->opens[i].used)
			o = &s->opens[i];
	if (!o)
		return;
	if (!o->used || o->refs == 0) {
		memcpy(o->handle, op->handle, PW_IPC_HANDLE_BYTES);
		o->refs = 0;
		o->used = true;
	}
	o->ptr = op->dst.ptr;
	o->vendor = op->vendor;
	o->refs++;
}

static void record_close(struct pw_state *s, const struct pw_op *op)
{
	struct pw_ipc_open *o = (struct pw_ipc_open *)pw_state_open_of_ptr(s, op->dst.ptr);
	if (o && o->refs > 0)
		o->refs--; /* kept with refs 0: a later close is a close too many */
}

static void record_free(struct pw_state *s, const struct pw_op *op)
{
	for (int i = 0; i < PW_MAX_EXPORTS; i++)
		if (s->exports[i].used && s->exports[i].base == op->dst.ptr) {
			s->exports[i].used = false;
			atomic_fetch_sub(&s->nexports, 1);
		}
}

void pw_state_update(struct pw_state *s, const struct pw_op *op, int64_t ret, bool already_enabled)
{
	bool ok = ret == 0;
	switch (op->kind) {
	case PW_OP_CAN_ACCESS:
		if (ok && pw_dev_ok(op->cur_dev) && pw_dev_ok(op->peer_dev))
			set_bit(&s->queried[op->cur_dev], op->peer_dev, true);
		break;
	case PW_OP_PEER_ENABLE:
		if ((ok || already_enabled) && pw_dev_ok(op->cur_dev) && pw_dev_ok(op->peer_dev))
			set_bit(&s->peer_on[op->cur_dev], op->peer_dev, true);
		break;
	case PW_OP_PEER_DISABLE:
		if (ok && pw_dev_ok(op->cur_dev) && pw_dev_ok(op->peer_dev))
			set_bit(&s->peer_on[op->cur_dev], op->peer_dev, false);
		break;
	case PW_OP_IPC_EXPORT:
	case PW_OP_IPC_OPEN:
	case PW_OP_IPC_CLOSE:
	case PW_OP_FREE:
		if (!ok || (op->kind != PW_OP_IPC_CLOSE && op->kind != PW_OP_FREE && !op->handle))
			break;
		pthread_mutex_lock(&s->lock);
		if (op->kind == PW_OP_IPC_EXPORT)
			record_export(s, op);
		else if (op->kind == PW_OP_IPC_OPEN)
			record_open(s, op);
		else if (op->kind == PW_OP_IPC_CLOSE)
			record_close(s, op);
		else
			record_free(s, op);
		pthread_mutex_unlock(&s->lock);
		break;
	case PW_OP_DEVICE_RESET:
		/* the device's mappings of its peers, and theirs of its memory, are gone */
		if (ok && pw_dev_ok(op->cur_dev)) {
			atomic_store_explicit(&s->peer_on[op->cur_dev], 0, memory_order_relaxed);
			for (int d = 0; d < PW_MAX_DEV; d++)
				set_bit(&s->peer_on[d], op->cur_dev, false);
		}
		break;
	default: break;
	}
}

void pw_state_reset(struct pw_state *s)
{
	for (int d = 0; d < PW_MAX_DEV; d++) {
		atomic_store(&s->peer_on[d], 0);
		atomic_store(&s->queried[d], 0);
	}
	pthread_mutex_init(&s->lock, NULL);
	atomic_store(&s->nexports, 0);
	memset(s->exports, 0, sizeof s->exports);
	memset(s->opens, 0, sizeof s->opens);
}

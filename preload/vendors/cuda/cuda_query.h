/* What the CUDA driver says, asked untraced (cuda_query.c): the look-ups of a call. */
#ifndef PW_CUDA_QUERY_H
#define PW_CUDA_QUERY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/devices.h"
#include "core/hooks.h"
#include "peerwatch/abi/cuda.h"
#include "state/op.h"
#include "state/rangecache.h"

/* pw_cuda_ptr_info past this thread's last entries. */
bool pw_cuda_ptr_info_slow(CUdeviceptr p, struct pw_range *r);
/* What is known of p: true with *r for CUDA memory (this thread's last
 * entries inline, else the cache, else the driver, and the answer cached). */
static inline bool pw_cuda_ptr_info(CUdeviceptr p, struct pw_range *r)
{
	return (p && pw_range_mru_find(p, r)) || pw_cuda_ptr_info_slow(p, r);
}
/* Where p lives (PW_NO_DEV if unknown). */
static inline int pw_cuda_ptr_device(CUdeviceptr p)
{
	struct pw_range r;
	return pw_cuda_ptr_info(p, &r) ? r.dev : PW_NO_DEV;
}
/* The context -> device cache (cuda_query.c): open addressing, a slot
 * claimed by its key first and trusted only once `ready` says dev is in. */
#define PW_CUDA_CTX_CACHE 64
struct pw_cuda_ctx_slot {
	_Atomic(uintptr_t) ctx;
	atomic_int dev;
	atomic_bool ready;
};
extern struct pw_cuda_ctx_slot pw_cuda_ctx_cache[PW_CUDA_CTX_CACHE];
static inline unsigned pw_cuda_ctx_slot_of(uintptr_t key)
{
	return (unsigned)((key >> 4) * 2654435761u) % PW_CUDA_CTX_CACHE;
}
int pw_cuda_ctx_device_slow(CUcontext ctx);
/* A context ended (cuCtxDestroy): the table forgets it, so that a new
 * context the driver makes at the same address is asked about anew. */
void pw_cuda_ctx_forget(uintptr_t ctx);
/* A device's primary context may have ended (release, reset): the table
 * forgets every context it holds for dev (asked again when next named). */
void pw_cuda_ctx_forget_dev(int dev);
/* A context made (cuCtxCreate), destroyed (cuCtxDestroy), or a primary
 * context released or reset, after the call succeeded (the PW_NO_EVENT rows
 * of ops CTX_CREATE and CTX_DESTROY): the table above and the state's peer
 * access per context (state.h) learn it. */
void pw_cuda_ctx_feed(const struct pw_call *c);
/* The device of ctx (PW_NO_DEV if unknown): its home slot inline, where a
 * context is found but for a collision; else the cache's probe, else the
 * driver (cuCtxGetDevice_v2, or push/get/pop), and the answer cached. */
static inline int pw_cuda_ctx_device(CUcontext ctx)
{
	const struct pw_cuda_ctx_slot *s = &pw_cuda_ctx_cache[pw_cuda_ctx_slot_of((uintptr_t)ctx)];
	if (ctx && atomic_load_explicit(&s->ctx, memory_order_acquire) == (uintptr_t)ctx &&
	    atomic_load_explicit(&s->ready, memory_order_acquire))
		return atomic_load_explicit(&s->dev, memory_order_relaxed);
	return pw_cuda_ctx_device_slow(ctx);
}
/* The device of the calling thread's current context, PW_NO_DEV if none. */
int pw_cuda_cur_dev(void);
/* The devices of a CUDA_MEMCPY3D_PEER argument i's source and destination. */
void pw_cuda_pre_copy3d(struct pw_call *c, int i);

/* Before the call: the device of each pointer and context argument (and
 * of the current context, PW_CUR_DEV rows) into c->dev and c->cur_dev.
 * Inline: in a wrapper the row is a constant, so the loop over its
 * arguments folds into the few look-ups the row needs (none for most). */
__attribute__((always_inline)) static inline void pw_cuda_pre(struct pw_call *c, const struct pw_fn_desc *fn)
{
	pw_devices_note_use(PW_VENDOR_CUDA); /* the devices may now be asked about */
	if (fn->flags & PW_IMPLICIT)
		return; /* the classification found the devices already (pw_cuda_implicit_cross) */
	if (fn->flags & PW_CUR_DEV)
		c->cur_dev = pw_cuda_cur_dev();
#pragma GCC unroll 12 /* PW_MAX_ARGS: each argument's kind then folds */
	for (int i = 0; i < fn->nargs; i++) {
		switch (fn->args[i].kind) {
		case PW_K_PTR: c->dev[i] = pw_cuda_ptr_device(c->a[i]); break;
		case PW_K_CTX: c->dev[i] = pw_cuda_ctx_device((CUcontext)(uintptr_t)c->a[i]); break;
		case PW_K_COPY3D: pw_cuda_pre_copy3d(c, i); break;
		default: c->dev[i] = PW_NO_DEV;
		}
	}
}
/* The allocation behind p and whether it is managed: the range cache, else
 * the driver (one cuPointerGetAttributes call, cached).  Inline: a checked
 * copy asks it for both pointers, which the wrapper's look-up has just put
 * among this thread's last entries. */
static inline void pw_cuda_mem_facts(CUdeviceptr p, struct pw_mem *m)
{
	struct pw_range r;
	m->known = m->managed = false;
	m->base = m->size = 0;
	m->p2p = -1;
	if (!pw_cuda_ptr_info(p, &r))
		return;
	m->managed = (r.flags & PW_RANGE_MANAGED) != 0;
	if (r.size && p - r.base < r.size) {
		m->known = true;
		m->base = r.base;
		m->size = r.size;
	}
}
/* Pointer argument i of c, the device the call names for it, and, if
 * facts, its allocation (pw_cuda_mem_facts): a driver or runtime call's. */
static inline void pw_cuda_mem_arg(const struct pw_call *c, int i, int named_dev, struct pw_mem *m,
                                   bool facts)
{
	m->ptr = c->a[i];
	m->dev = c->dev[i];
	m->named_dev = named_dev;
	m->p2p = -1;
	if (facts)
		pw_cuda_mem_facts(m->ptr, m);
}
/* The driver's own answer for p (no cache): false when p is not CUDA
 * memory (*cuda false) or nothing could be asked. */
bool pw_cuda_driver_info(CUdeviceptr p, struct pw_range *r, bool *cuda);
int pw_cuda_device_count(void);
/* The calling thread's current context (cuCtxGetCurrent), 0 if none. */
uint64_t pw_cuda_current_ctx(void);
/* The same into *ctx: false when the driver could not be asked (so a 0
 * says nothing), true when it answered (0: no current context). */
bool pw_cuda_current_ctx_asked(uint64_t *ctx);
/* Whether device dev's primary context is active (cuDevicePrimaryCtxGetState):
 * 1, 0, or -1 unknown. */
int pw_cuda_primary_active(int dev);
/* cuDeviceCanAccessPeer's answer for (dev, peer): 1, 0, or -1 unknown. */
int pw_cuda_can_access(int dev, int peer);
/* The name of a CUresult, or NULL. */
const char *pw_cuda_error_name(int code);
/* The file behind fd (fstat: st_dev, st_ino); false if fstat fails.
 * *unique: whether the file can name one allocation. */
bool pw_cuda_file_stat(int fd, uint64_t *dev, uint64_t *ino, bool *unique);
/* CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS of a device (PW_NO_DEV: 1
 * only if every device says 1), asked once and cached; -1 unknown. */
int pw_cuda_pageable_access(int dev);
/* Managed-memory calls (driver and runtime): the facts of op->dst beyond
 * pw_cuda_mem_facts (pool, host, freed, pageable access). */
struct pw_op;
void pw_cuda_managed_facts(struct pw_op *op);
/* A peer copy naming pointers (cuMemcpyPeer, cudaMemcpyPeer) of more than 0
 * bytes: for each side the runtime does not know, whether it is in memory
 * freed lately (pw_mem freed) or no CUDA memory at all (plain_host); the
 * driver is asked only for those. */
void pw_cuda_copy_facts(struct pw_op *op);

#endif

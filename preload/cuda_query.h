/* What the CUDA driver says, asked untraced (cuda_query.c): the look-ups of a call. */
#ifndef PW_CUDA_QUERY_H
#define PW_CUDA_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "hooks.h"
#include "peerwatch/abi/cuda.h"

struct pw_mem;
struct pw_range;

/* Where p lives, PW_NO_DEV if unknown (range cache, else the driver). */
int pw_cuda_ptr_device(CUdeviceptr p);
int pw_cuda_ctx_device(CUcontext ctx);
/* The device of the calling thread's current context, PW_NO_DEV if none. */
int pw_cuda_cur_dev(void);
/* The devices of a CUDA_MEMCPY3D_PEER argument i's source and destination. */
void pw_cuda_pre_copy3d(struct pw_call *c, int i);

/* Before the call: the device of each pointer and context argument (and
 * of the current context, PW_CUR_DEV rows) into c->dev and c->cur_dev.
 * Inline: in a wrapper the row is a constant, so the loop over its
 * arguments folds into the few look-ups the row needs (none for most). */
static inline void pw_cuda_pre(struct pw_call *c, const struct pw_fn_desc *fn)
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
/* The allocation behind p and whether it is managed. */
void pw_cuda_mem_facts(CUdeviceptr p, struct pw_mem *m);
/* What is known of p: true with *r for CUDA memory (cache, else driver, cached). */
bool pw_cuda_ptr_info(CUdeviceptr p, struct pw_range *r);
/* The driver's own answer for p (no cache): false when p is not CUDA
 * memory (*cuda false) or nothing could be asked. */
bool pw_cuda_driver_info(CUdeviceptr p, struct pw_range *r, bool *cuda);
int pw_cuda_device_count(void);
/* The calling thread's current context (cuCtxGetCurrent), 0 if none. */
uint64_t pw_cuda_current_ctx(void);
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

#endif

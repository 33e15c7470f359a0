/* What the CUDA driver says, asked untraced (cuda_query.c): the look-ups of a call. */
#ifndef PW_CUDA_QUERY_H
#define PW_CUDA_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hooks.h"
#include "peerwatch/abi/cuda.h"

struct pw_mem;
struct pw_range;

/* Before the call: the device of each pointer and context argument (and
 * of the current context, PW_CUR_DEV rows) into c->dev and c->cur_dev. */
void pw_cuda_pre(struct pw_call *c);

/* Where p lives, PW_NO_DEV if unknown (range cache, else the driver). */
int pw_cuda_ptr_device(CUdeviceptr p);
/* The allocation behind p and whether it is managed. */
void pw_cuda_mem_facts(CUdeviceptr p, struct pw_mem *m);
/* What is known of p: true with *r for CUDA memory (cache, else driver, cached). */
bool pw_cuda_ptr_info(CUdeviceptr p, struct pw_range *r);
/* The driver's own answer for p (no cache): false when p is not CUDA
 * memory (*cuda false) or nothing could be asked. */
bool pw_cuda_driver_info(CUdeviceptr p, struct pw_range *r, bool *cuda);
int pw_cuda_ctx_device(CUcontext ctx);
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

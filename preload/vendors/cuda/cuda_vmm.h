/* The CUDA virtual-memory, pool and batch-prefetch calls as ops (cuda_ops_vmm.c). */
#ifndef PW_CUDA_VMM_H
#define PW_CUDA_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h"
#include "state/op.h"
#include "peerwatch/abi/cuda.h"

/* cuda_encode.c */
const char *pw_cuda_handle_type_name(int64_t v);
int pw_cuda_batch_dev(const CUmemLocation *locs, const size_t *idxs, size_t nlocs, size_t j);

/* cuda_ops_vmm.c */
/* The rows of this family (false for any other row). */
bool pw_cuda_vmm_op_before(const struct pw_call *c, struct pw_op *op);
/* State and registry after a successful call of this family. */
void pw_cuda_vmm_op_after(const struct pw_call *c, const struct pw_op *op);
/* Copies and legacy IPC exports: what the VMM state and the driver know of their pointers. */
void pw_cuda_vmm_copy_facts(struct pw_op *op);
void pw_cuda_vmm_export_facts(struct pw_op *op);
/* Batch prefetch rows: the prefetch rules run once per range (true if c is one). */
bool pw_cuda_batch_check(const struct pw_call *c, const struct pw_op *op);
/* At exit: the op of the next mapping still there (*cursor starts at 0). */
bool pw_vmm_exit_op(int *cursor, struct pw_op *op);

#endif

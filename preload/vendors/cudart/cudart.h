/* The CUDA runtime (libcudart) module: its descriptor table, real functions and hooks. */
#ifndef PW_CUDART_HOOKS_H
#define PW_CUDART_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "vendors/cuda/cuda_query.h"
#include "vendors/cudart/cudart_table.h"
#include "core/hooks.h"
#include "core/pw.h"
#include "core/vendor.h"

extern const struct pw_vendor pw_cudart_vendor;
extern const struct pw_fn_desc pw_cudart_desc[PW_CUDART_NFUNCS];
extern void *const pw_cudart_wrapper[PW_CUDART_NFUNCS];
extern _Atomic(void *) pw_cudart_real_fn[PW_CUDART_NFUNCS];
/* The CUDA 12 ABIs of the PW_ABI12 names (int device), as the trace describes them. */
extern const struct pw_fn_desc pw_cudart_desc_advise12, pw_cudart_desc_prefetch12,
    pw_cudart_desc_prefetch12_ptsz;

/* cudart_resolve.c: the runtime's function behind hook id, resolved on first use. */
void *pw_cudart_resolve(int id);
static inline void *pw_cudart_real(int id)
{
	return pw_real(&pw_cudart_vendor, id);
}
/* A runtime function the layer itself calls (never traced), or NULL. */
void *pw_cudart_aux(const char *name);
/* The library answering for libcudart is a CUDA 12 one (its base cudaMemAdvise takes an int device). */
bool pw_cudart_abi12(void);
/* dlsym(h, name) answered r for a cuda* name: our wrapper, or r. */
void *pw_cudart_dlsym_hook(const char *name, void *r);

/* cudart_query.c: the look-ups of a call, asked untraced */
/* The devices of a cudaMemcpy3DPeerParms argument i's source and destination. */
void pw_cudart_pre_copy3d(struct pw_call *c, int i);
const char *pw_cudart_error_name(int code);
int pw_cudart_current_device(void);

/* Before the call: the current device, the devices of pointers, for the
 * arguments of row fn.  Inline, like the driver's (cuda_query.h): in a
 * wrapper the row is a constant and the loop folds into the look-ups the
 * row needs.  (A CUDA 12 row, PW_ABI12, has the same kinds where it has a
 * pointer: its first argument.) */
__attribute__((always_inline)) static inline void pw_cudart_pre(struct pw_call *c,
                                                                const struct pw_fn_desc *fn)
{
	if (fn->flags & PW_CUR_DEV)
		c->cur_dev = pw_cudart_current_device();
#pragma GCC unroll 12 /* PW_MAX_ARGS */
	for (int i = 0; i < fn->nargs; i++) {
		switch (fn->args[i].kind) {
		case PW_K_PTR: c->dev[i] = pw_cuda_ptr_device(c->a[i]); break;
		case PW_K_COPY3D: pw_cudart_pre_copy3d(c, i); break;
		default: c->dev[i] = PW_NO_DEV;
		}
	}
}
struct cudaPitchedPtr;
struct cudaPos;
/* The pointer of one side of a 3D peer copy (0 for an array). */
uint64_t pw_cudart_copy3d_ptr(const struct cudaPitchedPtr *p, const struct cudaPos *pos);

/* cudart_encode.c: what argument i's event needs (calling thread, after the
 * call), and its "args" member (the writer, from the record) */
struct pw_jw;
struct pw_snapw;
struct pw_rcall;
void pw_cudart_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i);
void pw_cudart_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i);

/* cudart_ops.c */
struct pw_op;
bool pw_cudart_op_before(const struct pw_call *c, struct pw_op *op);
void pw_cudart_op_after(const struct pw_call *c, struct pw_op *op);

#endif

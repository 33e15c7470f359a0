/* The CUDA driver module: its descriptor table, real functions and hooks. */
#ifndef PW_CUDA_HOOKS_H
#define PW_CUDA_HOOKS_H

#include <stdatomic.h>

#include "vendors/cuda/cuda_table.h"
#include "core/hooks.h"
#include "core/pw.h"
#include "peerwatch/abi/cuda.h"
#include "core/vendor.h"

extern const struct pw_vendor pw_cuda_vendor;
extern const struct pw_fn_desc pw_cuda_desc[PW_CUDA_NFUNCS];
extern void *const pw_cuda_wrapper[PW_CUDA_NFUNCS];
extern _Atomic(void *) pw_cuda_real_fn[PW_CUDA_NFUNCS];

/* The driver's function behind hook id, resolved on first use. */
void *pw_cuda_resolve(int id);
static inline void *pw_cuda_real(int id)
{
	return pw_real(&pw_cuda_vendor, id);
}

/* A driver function the layer itself calls (never traced), or NULL. */
void *pw_cuda_aux(const char *name);

/* dlsym(h, name) answered r for a cu* name: our wrapper, or r. */
void *pw_cuda_dlsym_hook(const char *name, void *r);
/* Maps a pointer the real cuGetProcAddress returned to our wrapper. */
void *pw_cuda_substitute(void *fn);
/* The header's "cuda" member under "vendors" (a json_t object). */
void pw_cuda_describe(void *json_vendors); /* cuda_query.c */
const char *pw_cuda_library(void);
/* cuda_ident.c: the devices and pairs (devices.h), and their links (NVML) */
struct pw_devset;
bool pw_cuda_identify(struct pw_devset *set);
void pw_cuda_links(struct pw_devset *set);
bool pw_cuda_why_not(const struct pw_devset *set, int dev, int peer, char *buf, size_t len);
int pw_cuda_switch_links(const struct pw_devset *set, int dev);

/* cuda_encode.c: what argument i's event needs, saved after the call on the
 * calling thread; the event's "args" member for it, on the writer's */
struct pw_jw;
struct pw_snapw;
struct pw_rcall;
void pw_cuda_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i);
void pw_cuda_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i);

/* cuda_implicit.c: implicit copies and the range cache */
struct pw_range;
/* True if the copy c (arguments captured) crosses devices; fills c->dev. */
bool pw_cuda_implicit_cross(struct pw_call *c);
void pw_cuda_range_alloc(const struct pw_call *c);
/* PW_RANGE_NOTE rows, before and after the real call (0 and nothing for the others). */
uint64_t pw_cuda_range_before(const struct pw_call *c);
void pw_cuda_range_after(const struct pw_call *c, uint64_t rid);
struct pw_op;
bool pw_cuda_implicit_op(const struct pw_call *c, struct pw_op *op);
void pw_cuda_implicit_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i);
void pw_cuda_implicit_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i);

/* cuda_ops.c: the call as the rules see it; false when no rule looks at it. */
struct pw_op;
bool pw_cuda_op_before(const struct pw_call *c, struct pw_op *op);
void pw_cuda_op_after(const struct pw_call *c, struct pw_op *op);
/* The ops whose arguments the runtime lays out as the driver does, for
 * both (cudart_ops.c): pair queries, IPC export and close, events, managed
 * memory but attach, a free; false for any other op.  A location struct is
 * read as a CUmemLocation and a device ordinal's host is CU_DEVICE_CPU: the
 * runtime's are the same (cudart_ops.c checks it). */
bool pw_cuda_op_common(const struct pw_call *c, struct pw_op *op);

#endif

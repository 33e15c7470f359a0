/* The HIP runtime module: its descriptor table, real functions and hooks. */
#ifndef PW_HIP_HOOKS_H
#define PW_HIP_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "vendors/hip/hip_table.h"
#include "core/hooks.h"
#include "core/pw.h"
#include "peerwatch/abi/hip.h"
#include "core/vendor.h"

extern const struct pw_vendor pw_hip_vendor;
extern const struct pw_fn_desc pw_hip_desc[PW_HIP_NFUNCS];
extern void *const pw_hip_wrapper[PW_HIP_NFUNCS];
extern _Atomic(void *) pw_hip_real_fn[PW_HIP_NFUNCS];

/* hip_resolve.c: the runtime's function behind hook id, resolved on first use. */
void *pw_hip_resolve(int id);
static inline void *pw_hip_real(int id)
{
	return pw_real(&pw_hip_vendor, id);
}
/* A runtime function the layer itself calls (never traced), or NULL. */
void *pw_hip_aux(const char *name);
/* dlsym(h, name) answered r for a hip* name: our wrapper, or r. */
void *pw_hip_dlsym_hook(const char *name, void *r);
/* Maps a pointer the real hipGetProcAddress returned to our wrapper. */
void *pw_hip_substitute(void *fn);
/* The runtime library's path once it is known, else NULL. */
const char *pw_hip_library(void);
/* hip_ident.c: the devices and pairs (devices.h) */
struct pw_devset;
bool pw_hip_identify(struct pw_devset *set);
/* hip_smi.c: each pair's link and why two devices cannot be peers (ROCm SMI) */
void pw_hip_links(struct pw_devset *set);
bool pw_hip_why_not(const struct pw_devset *set, int dev, int peer, char *buf, size_t len);

/* hip_query.c: the look-ups of a call, asked of the runtime untraced */
/* The header's "hip" member under "vendors" (a json_t object). */
void pw_hip_describe(void *json_vendors);
void pw_hip_pre(struct pw_call *c, const struct pw_fn_desc *fn);
const char *pw_hip_error_name(int code);
/* The runtime's version (hipRuntimeGetVersion, HIP_VERSION form: 50221153), 0 if unknown. */
int pw_hip_runtime_version(void);
/* Around queries of ours on a program's thread (the devices identified in
 * its first call, or for a report): an error they leave is not the
 * program's next hipGetLastError (ROCm 7 keeps the last failing call's,
 * facts A8.6).  pw_hip_quiet_end takes what pw_hip_quiet_begin returned. */
int pw_hip_quiet_begin(void);
void pw_hip_quiet_end(int pending);
int pw_hip_ptr_device(const void *p);
int pw_hip_ctx_device(hipCtx_t ctx);
struct pw_mem;
void pw_hip_mem_facts(const void *p, struct pw_mem *m);
int pw_hip_device_count(void);
int pw_hip_can_access(int dev, int peer);
/* Decodes hipPointerAttribute_t.type by the runtime's major version:
 * 1 device memory (device, array, managed, unified), 0 host, -1 unknown. */
int pw_hip_memtype_is_device(int type, int major);
bool pw_hip_memtype_is_managed(int type, int major);
/* The lazy flag of a runtime of that version, and why flags may be wrong on it. */
uint64_t pw_hip_ipc_lazy_flag(int version);
const char *pw_hip_flags_note(uint64_t flags, int version);

/* What the runtime says of p as a range-cache entry (no cache): false when
 * p is no memory it knows. */
struct pw_range;
bool pw_hip_runtime_info(const void *p, struct pw_range *r);

/* hip_implicit.c: hipMemcpy[Async], hipMemcpyDtoD[Async], hipMemcpy2D/3D[Async]
 * and hipMemcpyBatchAsync between two
 * devices, classified through the range cache, which hipMalloc, hipFree and
 * the IPC calls keep current (as cuda_implicit.c does for CUDA). */
bool pw_hip_ptr_info(uint64_t p, struct pw_range *r);
bool pw_hip_implicit_cross(struct pw_call *c);
void pw_hip_range_alloc(const struct pw_call *c);
uint64_t pw_hip_range_before(const struct pw_call *c);
void pw_hip_range_after(const struct pw_call *c, uint64_t rid);
/* hipMemcpyBatchAsync: its first cross-device copy as the rules see it, and
 * the batch in its event ("count", "bytes", the crossing pair, "copies"). */
struct pw_op;
struct pw_jw;
struct pw_snapw;
struct pw_rcall;
bool pw_hip_implicit_op(const struct pw_call *c, struct pw_op *op);
void pw_hip_snap_batch(struct pw_snapw *s, const struct pw_call *c, int i);
void pw_hip_put_batch(struct pw_jw *w, const struct pw_rcall *r, int i);

/* hip_encode.c: the event's "args" member for argument i */
struct pw_jw;
struct pw_snapw;
struct pw_rcall;
void pw_hip_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i);
void pw_hip_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i);

/* hip_ops.c: the call as the rules see it; false when no rule looks at it. */
struct pw_op;
bool pw_hip_op_before(const struct pw_call *c, struct pw_op *op);
void pw_hip_op_after(const struct pw_call *c, struct pw_op *op);
/* hipMemPrefetchBatchAsync's ranges, each checked as a prefetch (true: done here). */
bool pw_hip_batch_check(const struct pw_call *c, const struct pw_op *op);

#endif

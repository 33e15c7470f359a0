/*
 * The CUDA runtime wrappers, generated from cudart_table.h: for every row, an
 * exported function with libcudart's exact signature, its descriptor, and its
 * slot in the wrapper table that dlsym hands out (cudart_resolve.c finds
 * the real runtime functions).
 *
 * The runtime's vendor descriptor (vendor.h) says it is a layer over the
 * driver (upper): see below.
 */
#include "state/devices.h"
#include "vendors/call.h"
#include "vendors/cudart/cudart.h"

/* The CUDA 12 ABIs of the base cudaMemAdvise / cudaMemPrefetchAsync names
 * (cuda_runtime_api.h of 12.x: an int device where 13 has a cudaMemLocation;
 * the prefetch has no flags, so the stream comes one register earlier). */
#define PW_ABI12_DESC(sym, api_, sfx, op_, ...)                                               \
	{                                                                                     \
		.symbol = sym, .api = api_, .variant = sfx, .lib = &pw_cudart_vendor,         \
		.family = PW_FAM_MANAGED, .op = op_, .nargs = 4, .flags = PW_ABI12, .args = { \
			__VA_ARGS__                                                           \
		}                                                                             \
	}
const struct pw_fn_desc pw_cudart_desc_advise12 =
    PW_ABI12_DESC("cudaMemAdvise", "cudaMemAdvise", "", PW_OP_ADVISE, {PW_K_PTR, "ptr"}, {PW_K_SIZE, "bytes"},
                  {PW_K_ADVICE, "advice"}, {PW_K_DEV, "dev"});
const struct pw_fn_desc pw_cudart_desc_prefetch12 =
    PW_ABI12_DESC("cudaMemPrefetchAsync", "cudaMemPrefetchAsync", "", PW_OP_PREFETCH, {PW_K_PTR, "ptr"},
                  {PW_K_SIZE, "bytes"}, {PW_K_DEV, "dst_dev"}, {PW_K_STREAM, "stream"});
const struct pw_fn_desc pw_cudart_desc_prefetch12_ptsz =
    PW_ABI12_DESC("cudaMemPrefetchAsync_ptsz", "cudaMemPrefetchAsync", "_ptsz", PW_OP_PREFETCH,
                  {PW_K_PTR, "ptr"}, {PW_K_SIZE, "bytes"}, {PW_K_DEV, "dst_dev"}, {PW_K_STREAM, "stream"});

/* A CUDA 12 runtime answers a PW_ABI12 name: describe the call by its ABI. */
static void abi12(struct pw_call *c, int id)
{
	if (id == PW_CUDART_ID(cudaMemAdvise)) {
		c->fn = &pw_cudart_desc_advise12;
		c->a[3] = (uint64_t)(int64_t)(int32_t)(uint32_t)c->a[3];
	} else {
		c->fn = id == PW_CUDART_ID(cudaMemPrefetchAsync) ? &pw_cudart_desc_prefetch12
		                                                 : &pw_cudart_desc_prefetch12_ptsz;
		c->a[2] = (uint64_t)(int64_t)(int32_t)(uint32_t)c->a[2];
		/* a[3] holds the whole register: the stream */
	}
}

/* fn: the wrapper's row, a constant there (inline: its look-ups fold);
 * abi12 may then describe the call by its other ABI's row, whose
 * look-ups are the same (its pointer is the first argument too). */
__attribute__((always_inline)) static inline void pre(struct pw_call *c, const struct pw_fn_desc *fn)
{
	pw_devices_note_use(PW_VENDOR_CUDA); /* the runtime's devices are the driver's */
	pw_cudart_pre(c, fn);
	if ((fn->flags & PW_ABI12) && pw_cudart_abi12())
		abi12(c, (int)(fn - pw_cudart_desc));
}

/*
 * The runtime sits over the driver (upper): it reaches the driver through
 * the pointers cuGetProcAddress gave it, which are our driver wrappers
 * (cuda_resolve.c), so the driver calls a runtime call makes are traced
 * with "parent" set to the runtime call, and neither checked nor counted:
 * findings once, at the level the user called (cudart_ops.c).
 */
const struct pw_vendor pw_cudart_vendor = {
    .name = "cudart",
    .vendor = PW_VENDOR_CUDA,
    .layer = "runtime",
    .upper = true,
    .fns = pw_cudart_desc,
    .nfns = PW_CUDART_NFUNCS,
    .wrappers = pw_cudart_wrapper,
    .real = pw_cudart_real_fn,
    .resolve = pw_cudart_resolve,
    .prefix = "cuda",
    .dlsym_hook = pw_cudart_dlsym_hook,
    .ret_success = cudaSuccess,
    .ret_already_enabled = cudaErrorPeerAccessAlreadyEnabled,
    .error_name = pw_cudart_error_name,
    .last_error = true,
    .pre = pre,
    .op_before = pw_cudart_op_before,
    .op_after = pw_cudart_op_after,
    .snap_arg = pw_cudart_snap_arg,
    .put_arg = pw_cudart_put_arg,
};

#define PW_CUDART_WRAPPER(api, sfx, fam, op, flg, sig)                                                  \
	PW_WRAPPER(pw_cudart_vendor, PW_CUDART_ID(api##sfx), cudaError_t, cudaErrorInitializationError, \
	           api##sfx, sig)
PW_CUDART_FUNCS(PW_CUDART_WRAPPER)

#define PW_CUDART_DESC(api, sfx, fam, op, flg, sig) \
	[PW_CUDART_ID(api##sfx)] = PW_FN_DESC(pw_cudart_vendor, api, sfx, fam, op, flg, sig),
const struct pw_fn_desc pw_cudart_desc[PW_CUDART_NFUNCS] = {PW_CUDART_FUNCS(PW_CUDART_DESC)};

#define PW_CUDART_WRAPPER_PTR(api, sfx, fam, op, flg, sig) [PW_CUDART_ID(api##sfx)] = (void *)api##sfx,
void *const pw_cudart_wrapper[PW_CUDART_NFUNCS] = {PW_CUDART_FUNCS(PW_CUDART_WRAPPER_PTR)};

_Atomic(void *) pw_cudart_real_fn[PW_CUDART_NFUNCS];

/*
 * The CUDA driver's vendor descriptor (vendor.h) and its wrappers,
 * generated from cuda_table.h: for every row, an exported function with
 * the driver's exact signature (call.h's skeleton around the real one), its
 * descriptor, and its slot in the wrapper table that dlsym and
 * cuGetProcAddress hand out.
 */
#include "vendors/call.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cuda/cuda_vmm.h"
#include "vendors/cuda/cuda_cupti.h"
#include "vendors/cuda/cuda_gpu_timing.h"
#include "vendors/cuda/cuda_vmm_state.h"

/* What a forked child starts without: CUDA contexts do not survive fork,
 * nor any virtual-memory handle or mapping (no false vmm.leak). */
static void after_fork(void)
{
	pw_vmm_reset(&pw_vmm);
	pw_cuda_gt_after_fork();
	pw_cuda_cupti_after_fork();
}

/* A PW_NO_EVENT row's successful call: an allocation for the range cache,
 * or a context made or ended (or that may have) for the context table and
 * the peer state. */
static void note_feed(const struct pw_call *c)
{
	if (c->fn->op != PW_OP_CTX_DESTROY && c->fn->op != PW_OP_CTX_CREATE)
		pw_cuda_range_alloc(c);
	else
		pw_cuda_ctx_feed(c);
}

const struct pw_vendor pw_cuda_vendor = {
    .name = "cuda",
    .vendor = PW_VENDOR_CUDA,
    .fns = pw_cuda_desc,
    .nfns = PW_CUDA_NFUNCS,
    .wrappers = pw_cuda_wrapper,
    .real = pw_cuda_real_fn,
    .resolve = pw_cuda_resolve,
    .prefix = "cu",
    .prefix_upper = true,
    .dlsym_hook = pw_cuda_dlsym_hook,
    .ret_success = CUDA_SUCCESS,
    .ret_already_enabled = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
    .error_name = pw_cuda_error_name,
    .note_alloc = note_feed,
    .implicit_cross = pw_cuda_implicit_cross,
    .pre = pw_cuda_pre,
    .state_before = pw_cuda_range_before,
    .state_after = pw_cuda_range_after,
    .state_rows = PW_RANGE_NOTE,
    .op_before = pw_cuda_op_before,
    .check_before = pw_cuda_batch_check,
    .op_after = pw_cuda_op_after,
    .snap_arg = pw_cuda_snap_arg,
    .put_arg = pw_cuda_put_arg,
    .gt_begin = pw_cuda_gt_begin,
    .gt_end = pw_cuda_gt_end,
    .describe = pw_cuda_describe,
    .identify = pw_cuda_identify,
    .links = pw_cuda_links,
    .why_not = pw_cuda_why_not,
    .switch_links = pw_cuda_switch_links,
    .gt_collect = pw_cuda_gt_collect,
    .gt_skipped = pw_cuda_gt_skipped,
    .prof_begin = pw_cuda_cupti_begin,
    .prof_collect = pw_cuda_cupti_collect,
    .um_footer = pw_cuda_cupti_um_footer,
    .after_fork = after_fork,
    .exit_op = pw_vmm_exit_op,
};

#define PW_CUDA_WRAPPER(api, sfx, fam, op, flg, sig) \
	PW_WRAPPER(pw_cuda_vendor, PW_CUDA_ID(api##sfx), CUresult, CUDA_ERROR_NOT_INITIALIZED, api##sfx, sig)
PW_CUDA_FUNCS(PW_CUDA_WRAPPER)

#define PW_CUDA_DESC(api, sfx, fam, op, flg, sig) \
	[PW_CUDA_ID(api##sfx)] = PW_FN_DESC(pw_cuda_vendor, api, sfx, fam, op, flg, sig),
const struct pw_fn_desc pw_cuda_desc[PW_CUDA_NFUNCS] = {PW_CUDA_FUNCS(PW_CUDA_DESC)};

#define PW_CUDA_WRAPPER_PTR(api, sfx, fam, op, flg, sig) [PW_CUDA_ID(api##sfx)] = (void *)api##sfx,
void *const pw_cuda_wrapper[PW_CUDA_NFUNCS] = {PW_CUDA_FUNCS(PW_CUDA_WRAPPER_PTR)};

_Atomic(void *) pw_cuda_real_fn[PW_CUDA_NFUNCS];

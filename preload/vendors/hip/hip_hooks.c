/*
 * The HIP runtime's vendor descriptor (vendor.h) and its wrappers,
 * generated from hip_table.h: for every row, an exported function with the
 * runtime's exact signature (call.h's skeleton around the real one), its
 * descriptor, and its slot in the wrapper table that dlsym and
 * hipGetProcAddress hand out.
 */
#include "vendors/call.h"
#include "vendors/hip/hip.h"

const struct pw_vendor pw_hip_vendor = {
    .name = "hip",
    .vendor = PW_VENDOR_HIP,
    .fns = pw_hip_desc,
    .nfns = PW_HIP_NFUNCS,
    .wrappers = pw_hip_wrapper,
    .real = pw_hip_real_fn,
    .resolve = pw_hip_resolve,
    .prefix = "hip",
    .prefix_upper = true,
    .dlsym_hook = pw_hip_dlsym_hook,
    .ret_success = hipSuccess,
    .ret_already_enabled = hipErrorPeerAccessAlreadyEnabled,
    .error_name = pw_hip_error_name,
    .last_error = true,
    .note_alloc = pw_hip_range_alloc,
    .implicit_cross = pw_hip_implicit_cross,
    .pre = pw_hip_pre,
    .state_before = pw_hip_range_before,
    .state_after = pw_hip_range_after,
    .state_rows = PW_RANGE_NOTE,
    .op_before = pw_hip_op_before,
    .op_after = pw_hip_op_after,
    .check_before = pw_hip_batch_check,
    .snap_arg = pw_hip_snap_arg,
    .put_arg = pw_hip_put_arg,
    .describe = pw_hip_describe,
    .identify = pw_hip_identify,
    .links = pw_hip_links,
    .why_not = pw_hip_why_not,
};

#define PW_HIP_WRAPPER(api, sfx, fam, op, flg, sig) \
	PW_WRAPPER(pw_hip_vendor, PW_HIP_ID(api##sfx), hipError_t, hipErrorNotInitialized, api##sfx, sig)
PW_HIP_FUNCS(PW_HIP_WRAPPER)

#define PW_HIP_DESC(api, sfx, fam, op, flg, sig) \
	[PW_HIP_ID(api##sfx)] = PW_FN_DESC(pw_hip_vendor, api, sfx, fam, op, flg, sig),
const struct pw_fn_desc pw_hip_desc[PW_HIP_NFUNCS] = {PW_HIP_FUNCS(PW_HIP_DESC)};

#define PW_HIP_WRAPPER_PTR(api, sfx, fam, op, flg, sig) [PW_HIP_ID(api##sfx)] = (void *)api##sfx,
void *const pw_hip_wrapper[PW_HIP_NFUNCS] = {PW_HIP_FUNCS(PW_HIP_WRAPPER_PTR)};

_Atomic(void *) pw_hip_real_fn[PW_HIP_NFUNCS];

/*
 * The Ascend ACL runtime's vendor descriptor (vendor.h) and its wrappers,
 * generated from acl_table.h: for every row, an exported function with
 * acl_rt.h's exact signature (call.h's skeleton around the real one), its
 * descriptor, and its slot in the wrapper table that dlsym hands out.
 */
#include "vendors/acl/acl.h"
#include "vendors/call.h"

const struct pw_vendor pw_acl_vendor = {
    .name = "acl",
    .vendor = PW_VENDOR_ACL,
    .fns = pw_acl_desc,
    .nfns = PW_ACL_NFUNCS,
    .wrappers = pw_acl_wrapper,
    .real = pw_acl_real_fn,
    .resolve = pw_acl_resolve,
    .prefix = "acl",
    .dlsym_hook = pw_acl_dlsym_hook,
    .ret_success = ACL_SUCCESS,
    .ret_already_enabled = PW_RET_NONE, /* ACL has no "already enabled" code (facts B4) */
    .error_name = pw_acl_error_name,
    .pre = pw_acl_pre,
    .state_before = pw_acl_before,
    .state_after = pw_acl_learn,
    .op_before = pw_acl_op_before,
    .op_after = pw_acl_op_after,
    .snap_arg = pw_acl_snap_arg,
    .put_arg = pw_acl_put_arg,
    .describe = pw_acl_describe,
    .identify = pw_acl_identify,
};

#define PW_ACL_WRAPPER(api, sfx, fam, op, flg, sig) \
	PW_WRAPPER(pw_acl_vendor, PW_ACL_ID(api##sfx), aclError, ACL_ERROR_UNINITIALIZE, api##sfx, sig)
PW_ACL_FUNCS(PW_ACL_WRAPPER)

#define PW_ACL_DESC(api, sfx, fam, op, flg, sig) \
	[PW_ACL_ID(api##sfx)] = PW_FN_DESC(pw_acl_vendor, api, sfx, fam, op, flg, sig),
const struct pw_fn_desc pw_acl_desc[PW_ACL_NFUNCS] = {PW_ACL_FUNCS(PW_ACL_DESC)};

#define PW_ACL_WRAPPER_PTR(api, sfx, fam, op, flg, sig) [PW_ACL_ID(api##sfx)] = (void *)api##sfx,
void *const pw_acl_wrapper[PW_ACL_NFUNCS] = {PW_ACL_FUNCS(PW_ACL_WRAPPER_PTR)};

_Atomic(void *) pw_acl_real_fn[PW_ACL_NFUNCS];

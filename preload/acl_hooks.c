/*
 * The ACL wrappers, generated from acl_table.h: for every row, an exported
 * function with acl_rt.h's exact signature, its descriptor, and its slot in
 * the wrapper table that dlsym hands out.
 */
#include "acl_hooks.h"
#include "call.h"
#include "check.h"
#include "op.h"
#include "pp.h"

/* Argument capture by kind: each value in a uint64_t. */
#define PW_ACL_CAP(i, t) PW_ACL_CAP_(i, PW_ACL_CAP_T t)
#define PW_ACL_CAP_T(k, ty, n) k, n
#define PW_ACL_CAP_(i, ...) PW_ACL_CAP__(i, __VA_ARGS__)
#define PW_ACL_CAP__(i, k, n) PW_ACL_CAP_##k(i, n)
#define PW_ACL_CAP_DEV(i, n) c.a[i] = (uint64_t)(int64_t)(n)
#define PW_ACL_CAP_UINT(i, n) c.a[i] = (uint64_t)(n)
#define PW_ACL_CAP_SIZE(i, n) c.a[i] = (uint64_t)(n)
#define PW_ACL_CAP_POLICY(i, n) c.a[i] = (uint64_t)(int64_t)(n)
#define PW_ACL_CAP_MEMKIND(i, n) c.a[i] = (uint64_t)(int64_t)(n)
#define PW_ACL_CAP_OUT_INT(i, n) c.a[i] = (uintptr_t)(n)
#define PW_ACL_CAP_OUT_APTR(i, n) c.a[i] = (uintptr_t)(n)
#define PW_ACL_CAP_APTR(i, n) c.a[i] = (uintptr_t)(n)
#define PW_ACL_CAP_STREAM(i, n) c.a[i] = (uintptr_t)(n)
#define PW_ACL_CAP_CSTR(i, n) c.a[i] = (uintptr_t)(n)

#define PW_ACL_WRAPPER(api, sfx, fam, flg, sig)                                         \
	PW_EXPORT aclError api##sfx(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig));      \
	aclError api##sfx(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig))                 \
	{                                                                               \
		typedef aclError (*fn_t)(PW_MAP(PW_ARG_TYPE, PW_COMMA, PW_EXPAND sig)); \
		const int id = PW_ACL_ID(api##sfx);                                     \
		fn_t real = (fn_t)pw_acl_real(id);                                      \
		if (PW_UNLIKELY(!real))                                                 \
			return ACL_ERROR_UNINITIALIZE;                                  \
		struct pw_call c;                                                       \
		if (!pw_call_begin(&c, &pw_acl_desc[id]))                               \
			return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));      \
		PW_MAP(PW_ACL_CAP, PW_SEMI, PW_EXPAND sig);                             \
		pw_acl_pre(&c);                                                         \
		struct pw_op op;                                                        \
		bool checked = pw_acl_check_before(&c, &op);                            \
		c.t0 = pw_now_ns();                                                     \
		aclError r = real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));        \
		c.t1 = pw_now_ns();                                                     \
		c.ret = r;                                                              \
		pw_acl_post(&c);                                                        \
		if (checked)                                                            \
			pw_acl_check_after(&c, &op);                                    \
		pw_call_end(&c);                                                        \
		return r;                                                               \
	}
PW_ACL_FUNCS_ARGS(PW_ACL_WRAPPER)

/* The wrappers of rows without arguments: the same steps, nothing to capture. */
#define PW_ACL_WRAPPER_VOID(api, sfx, fam, flg, sig)         \
	PW_EXPORT aclError api##sfx(void);                   \
	aclError api##sfx(void)                              \
	{                                                    \
		typedef aclError (*fn_t)(void);              \
		const int id = PW_ACL_ID(api##sfx);          \
		fn_t real = (fn_t)pw_acl_real(id);           \
		if (PW_UNLIKELY(!real))                      \
			return ACL_ERROR_UNINITIALIZE;       \
		struct pw_call c;                            \
		if (!pw_call_begin(&c, &pw_acl_desc[id]))    \
			return real();                       \
		c.a[0] = 0;                                  \
		pw_acl_pre(&c);                              \
		struct pw_op op;                             \
		bool checked = pw_acl_check_before(&c, &op); \
		c.t0 = pw_now_ns();                          \
		aclError r = real();                         \
		c.t1 = pw_now_ns();                          \
		c.ret = r;                                   \
		pw_acl_post(&c);                             \
		if (checked)                                 \
			pw_acl_check_after(&c, &op);         \
		pw_call_end(&c);                             \
		return r;                                    \
	}
PW_ACL_FUNCS_VOID(PW_ACL_WRAPPER_VOID)

#define PW_ACL_DESC(api, sfx, fam, flg, sig)                           \
	[PW_ACL_ID(api##sfx)] = {#api #sfx,    #api,                   \
	                         #sfx,         PW_VENDOR_ACL,          \
	                         PW_FAM_##fam, PW_NARG(PW_EXPAND sig), \
	                         flg,          {PW_MAP(PW_ARG_DESC, PW_COMMA, PW_EXPAND sig)}},
/* Rows without arguments: nargs 0. */
#define PW_ACL_DESC_VOID(api, sfx, fam, flg, sig) \
	[PW_ACL_ID(api##sfx)] = {#api #sfx, #api, #sfx, PW_VENDOR_ACL, PW_FAM_##fam, 0, flg, {{0, NULL}}},
const struct pw_fn_desc pw_acl_desc[PW_ACL_NFUNCS] = {PW_ACL_FUNCS_ARGS(PW_ACL_DESC)
                                                          PW_ACL_FUNCS_VOID(PW_ACL_DESC_VOID)};

#define PW_ACL_WRAPPER_PTR(api, sfx, fam, flg, sig) [PW_ACL_ID(api##sfx)] = (void *)api##sfx,
void *const pw_acl_wrapper[PW_ACL_NFUNCS] = {PW_ACL_FUNCS(PW_ACL_WRAPPER_PTR)};

_Atomic(void *) pw_acl_real_fn[PW_ACL_NFUNCS];

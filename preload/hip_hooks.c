/*
 * The HIP wrappers, generated from hip_table.h: for every row, an exported
 * function with the runtime's exact signature, its descriptor, and its slot
 * in the wrapper table that dlsym and hipGetProcAddress hand out.
 */
#include <string.h>

#include "call.h"
#include "check.h"
#include "hip_hooks.h"
#include "op.h"
#include "pp.h"

/* Argument capture by kind: the value (for structs passed by value, the
 * address of the wrapper's parameter) in a uint64_t. */
#define PW_HIP_CAP_VAL(i, n) c.a[i] = (uint64_t)(n)
#define PW_HIP_CAP_SVAL(i, n) c.a[i] = (uint64_t)(int64_t)(n)
#define PW_HIP_CAP_ADDR(i, n) c.a[i] = (uint64_t)(uintptr_t)(n)
#define PW_HIP_CAP_PTR PW_HIP_CAP_ADDR
#define PW_HIP_CAP_CTX PW_HIP_CAP_ADDR
#define PW_HIP_CAP_STREAM PW_HIP_CAP_ADDR
#define PW_HIP_CAP_EVENT PW_HIP_CAP_ADDR
#define PW_HIP_CAP_HPTR PW_HIP_CAP_ADDR
#define PW_HIP_CAP_RDATA PW_HIP_CAP_ADDR
#define PW_HIP_CAP_RATTRS PW_HIP_CAP_ADDR
#define PW_HIP_CAP_OUT_INT PW_HIP_CAP_ADDR
#define PW_HIP_CAP_OUT_PTR PW_HIP_CAP_ADDR
#define PW_HIP_CAP_OUT_IPCMEM PW_HIP_CAP_ADDR
#define PW_HIP_CAP_OUT_IPCEVT PW_HIP_CAP_ADDR
#define PW_HIP_CAP_OUT_EVENT PW_HIP_CAP_ADDR
#define PW_HIP_CAP_DEV PW_HIP_CAP_SVAL
#define PW_HIP_CAP_ADVICE PW_HIP_CAP_SVAL
#define PW_HIP_CAP_RATTR PW_HIP_CAP_SVAL
#define PW_HIP_CAP_P2PATTR PW_HIP_CAP_SVAL
#define PW_HIP_CAP_SIZE PW_HIP_CAP_VAL
#define PW_HIP_CAP_UINT PW_HIP_CAP_VAL
#define PW_HIP_CAP_IPCFLAGS PW_HIP_CAP_VAL
#define PW_HIP_CAP_ATTACHFLAGS PW_HIP_CAP_VAL
#define PW_HIP_CAP_IPCMEM(i, n) c.a[i] = (uint64_t)(uintptr_t) & (n)
#define PW_HIP_CAP_IPCEVT(i, n) c.a[i] = (uint64_t)(uintptr_t) & (n)
#define PW_HIP_CAP_LOC(i, n) memcpy(&c.a[i], &(n), sizeof(hipMemLocation))

#define PW_HIP_CAPTURE(i, t) PW_HIP_CAPTURE_(i, PW_HIP_CAPTURE_T t)
#define PW_HIP_CAPTURE_T(k, ty, n) k, n
#define PW_HIP_CAPTURE_(i, ...) PW_HIP_CAPTURE__(i, __VA_ARGS__)
#define PW_HIP_CAPTURE__(i, k, n) PW_HIP_CAP_##k(i, n)

#define PW_HIP_WRAPPER(api, sfx, fam, flg, sig)                                           \
	PW_EXPORT hipError_t api##sfx(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig));      \
	hipError_t api##sfx(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig))                 \
	{                                                                                 \
		typedef hipError_t (*fn_t)(PW_MAP(PW_ARG_TYPE, PW_COMMA, PW_EXPAND sig)); \
		const int id = PW_HIP_ID(api##sfx);                                       \
		fn_t real = (fn_t)pw_hip_real(id);                                        \
		if (PW_UNLIKELY(!real))                                                   \
			return hipErrorNotInitialized;                                    \
		struct pw_call c;                                                         \
		if (!pw_call_begin(&c, &pw_hip_desc[id]))                                 \
			return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));        \
		PW_MAP(PW_HIP_CAPTURE, PW_SEMI, PW_EXPAND sig);                           \
		pw_hip_pre(&c);                                                           \
		struct pw_op op;                                                          \
		bool checked = pw_hip_check_before(&c, &op);                              \
		c.t0 = pw_now_ns();                                                       \
		hipError_t r = real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));        \
		c.t1 = pw_now_ns();                                                       \
		c.ret = r;                                                                \
		pw_hip_post(&c);                                                          \
		if (checked)                                                              \
			pw_hip_check_after(&c, &op);                                      \
		pw_call_end(&c);                                                          \
		return r;                                                                 \
	}
/* The same for a function without arguments. */
#define PW_HIP_WRAPPER0(api, sfx, fam, flg, sig)             \
	PW_EXPORT hipError_t api##sfx(void);                 \
	hipError_t api##sfx(void)                            \
	{                                                    \
		typedef hipError_t (*fn_t)(void);            \
		const int id = PW_HIP_ID(api##sfx);          \
		fn_t real = (fn_t)pw_hip_real(id);           \
		if (PW_UNLIKELY(!real))                      \
			return hipErrorNotInitialized;       \
		struct pw_call c;                            \
		if (!pw_call_begin(&c, &pw_hip_desc[id]))    \
			return real();                       \
		pw_hip_pre(&c);                              \
		struct pw_op op;                             \
		bool checked = pw_hip_check_before(&c, &op); \
		c.t0 = pw_now_ns();                          \
		hipError_t r = real();                       \
		c.t1 = pw_now_ns();                          \
		c.ret = r;                                   \
		pw_hip_post(&c);                             \
		if (checked)                                 \
			pw_hip_check_after(&c, &op);         \
		pw_call_end(&c);                             \
		return r;                                    \
	}
PW_HIP_FUNCS2(PW_HIP_WRAPPER, PW_HIP_WRAPPER0)

#define PW_HIP_DESC(api, sfx, fam, flg, sig)                           \
	[PW_HIP_ID(api##sfx)] = {#api #sfx,    #api,                   \
	                         #sfx,         PW_VENDOR_HIP,          \
	                         PW_FAM_##fam, PW_NARG(PW_EXPAND sig), \
	                         flg,          {PW_MAP(PW_ARG_DESC, PW_COMMA, PW_EXPAND sig)}},
#define PW_HIP_DESC0(api, sfx, fam, flg, sig) \
	[PW_HIP_ID(api##sfx)] = {#api #sfx, #api, #sfx, PW_VENDOR_HIP, PW_FAM_##fam, 0, flg, {{0, NULL}}},
const struct pw_fn_desc pw_hip_desc[PW_HIP_NFUNCS] = {PW_HIP_FUNCS2(PW_HIP_DESC, PW_HIP_DESC0)};

#define PW_HIP_WRAPPER_PTR(api, sfx, fam, flg, sig) [PW_HIP_ID(api##sfx)] = (void *)api##sfx,
void *const pw_hip_wrapper[PW_HIP_NFUNCS] = {PW_HIP_FUNCS(PW_HIP_WRAPPER_PTR)};

_Atomic(void *) pw_hip_real_fn[PW_HIP_NFUNCS];

/*
 * The CUDA wrappers, generated from cuda_table.h: for every row, an exported
 * function with the driver's exact signature, its descriptor, and its slot in
 * the wrapper table that dlsym and cuGetProcAddress hand out.
 */
#include <string.h>

#include "call.h"
#include "op.h"
#include "check.h"
#include "op.h"
#include "cuda_hooks.h"
#include "gpu_timing.h"
#include "pp.h"

/* Argument capture: each kind stores its value (or, for structs passed by
 * value, the address of the wrapper's parameter) in a uint64_t. */
static inline uint64_t pw_cap_PTR(const CUdeviceptr *p)
{
	return *p;
}
static inline uint64_t pw_cap_PTR32(const CUdeviceptr_v1 *p)
{
	return *p;
}
static inline uint64_t pw_cap_CTX(const CUcontext *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_DEV(const CUdevice *p)
{
	return (uint64_t)(int64_t)*p;
}
static inline uint64_t pw_cap_SIZE(const size_t *p)
{
	return *p;
}
static inline uint64_t pw_cap_STREAM(const CUstream *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_EVENT(const CUevent *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_UINT(const unsigned int *p)
{
	return *p;
}
static inline uint64_t pw_cap_IPCFLAGS(const unsigned int *p)
{
	return *p;
}
static inline uint64_t pw_cap_ATTACHFLAGS(const unsigned int *p)
{
	return *p;
}
static inline uint64_t pw_cap_ADVICE(const CUmem_advise *p)
{
	return (uint64_t)(int64_t)*p;
}
static inline uint64_t pw_cap_RATTR(const CUmem_range_attribute *p)
{
	return (uint64_t)(int64_t)*p;
}
static inline uint64_t pw_cap_P2PATTR(const CUdevice_P2PAttribute *p)
{
	return (uint64_t)(int64_t)*p;
}
static inline uint64_t pw_cap_LOC(const CUmemLocation *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}
static inline uint64_t pw_cap_IPCMEM(const CUipcMemHandle *p)
{
	return (uintptr_t)p;
}
static inline uint64_t pw_cap_IPCEVT(const CUipcEventHandle *p)
{
	return (uintptr_t)p;
}
static inline uint64_t pw_cap_OUT_INT(int *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_PTR(CUdeviceptr *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_IPCMEM(CUipcMemHandle *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_IPCEVT(CUipcEventHandle *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_EVENT(CUevent *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_RDATA(void *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_RATTRS(CUmem_range_attribute *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_COPY3D(const CUDA_MEMCPY3D_PEER *const *p)
{
	return (uintptr_t)*p;
}
#define pw_cap_HPTR(p) ((uint64_t)(uintptr_t) * (p))
/* virtual memory, pools, batch prefetch */
static inline uint64_t pw_cap_ULL(const unsigned long long *p)
{
	return *p;
}
static inline uint64_t pw_cap_VA(const CUdeviceptr *p)
{
	return *p;
}
static inline uint64_t pw_cap_MEMHANDLE(const CUmemGenericAllocationHandle *p)
{
	return *p;
}
static inline uint64_t pw_cap_OUT_MEMHANDLE(CUmemGenericAllocationHandle *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_ALLOCPROP(const CUmemAllocationProp *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_HTYPE(const CUmemAllocationHandleType *p)
{
	return (uint64_t)(int64_t)*p;
}
static inline uint64_t pw_cap_SHAREABLE(void *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_SHAREABLE(void *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_ACCESS(const CUmemAccessDesc *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_POOL(const CUmemoryPool *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_POOL(CUmemoryPool *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_EXPORTDATA(CUmemPoolPtrExportData *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_OUT_EXPORTDATA(CUmemPoolPtrExportData *const *p)
{
	return (uintptr_t)*p;
}
#define pw_cap_SKIP(p) ((uint64_t)(uintptr_t) * (p))
static inline uint64_t pw_cap_COPY2D(const CUDA_MEMCPY2D *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_COPY3DL(const CUDA_MEMCPY3D *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_BATCH(CUdeviceptr *const *p)
{
	return (uintptr_t)*p;
}
#define pw_cap_PBATCH pw_cap_BATCH
static inline uint64_t pw_cap_BATCH3D(CUDA_MEMCPY3D_BATCH_OP *const *p)
{
	return (uintptr_t)*p;
}
static inline uint64_t pw_cap_U64(const unsigned long long *p)
{
	return *p;
}
static inline uint64_t pw_cap_OUT_SIZE(size_t *const *p)
{
	return (uintptr_t)*p;
}

#define PW_CAPTURE(i, t) PW_CAPTURE_(i, PW_CAPTURE_T t)
#define PW_CAPTURE_T(k, ty, n) k, n
#define PW_CAPTURE_(i, ...) PW_CAPTURE__(i, __VA_ARGS__)
#define PW_CAPTURE__(i, k, n) c.a[i] = pw_cap_##k(&n)

/*
 * Rows with PW_NO_EVENT (allocations) only tell the range cache what they
 * made.  Rows with PW_IMPLICIT capture their arguments first and ask the
 * range cache whether the copy crosses devices: if not, the call goes straight
 * to the driver, with no sequence number, event or check.  Rows with
 * PW_RANGE_NOTE tell the range cache what the call made or ended.
 */
#define PW_CUDA_WRAPPER(api, sfx, fam, flg, sig)                                                    \
	PW_EXPORT CUresult api##sfx(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig));                  \
	CUresult api##sfx(PW_MAP(PW_ARG_DECL, PW_COMMA, PW_EXPAND sig))                             \
	{                                                                                           \
		typedef CUresult (*fn_t)(PW_MAP(PW_ARG_TYPE, PW_COMMA, PW_EXPAND sig));             \
		const int id = PW_CUDA_ID(api##sfx);                                                \
		fn_t real = (fn_t)pw_cuda_real(id);                                                 \
		if (PW_UNLIKELY(!real))                                                             \
			return CUDA_ERROR_NOT_INITIALIZED;                                          \
		struct pw_call c;                                                                   \
		if ((flg)&PW_NO_EVENT) {                                                            \
			CUresult r0 = real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));           \
			if (r0 == CUDA_SUCCESS && pw_call_active()) {                               \
				c.fn = &pw_cuda_desc[id];                                           \
				PW_MAP(PW_CAPTURE, PW_SEMI, PW_EXPAND sig);                         \
				pw_cuda_range_alloc(&c);                                            \
			}                                                                           \
			return r0;                                                                  \
		}                                                                                   \
		if ((flg)&PW_IMPLICIT) {                                                            \
			if (!pw_call_active())                                                      \
				return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));          \
			c.fn = &pw_cuda_desc[id];                                                   \
			PW_MAP(PW_CAPTURE, PW_SEMI, PW_EXPAND sig);                                 \
			if (PW_LIKELY(!pw_cuda_implicit_cross(&c)))                                 \
				return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));          \
		}                                                                                   \
		if (!pw_call_begin(&c, &pw_cuda_desc[id]))                                          \
			return real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));                  \
		if (!((flg)&PW_IMPLICIT)) {                                                         \
			PW_MAP(PW_CAPTURE, PW_SEMI, PW_EXPAND sig);                                 \
			pw_cuda_pre(&c);                                                            \
		}                                                                                   \
		uint64_t rid = (flg)&PW_RANGE_NOTE ? pw_cuda_range_before(&c) : 0;                  \
		struct pw_op op;                                                                    \
		bool checked = pw_cuda_check_before(&c, &op);                                       \
		struct pw_gt_pair *gtp = PW_UNLIKELY(pw_g.opt.gpu_timing) ? pw_gt_begin(&c) : NULL; \
		c.t0 = pw_now_ns();                                                                 \
		CUresult r = real(PW_MAP(PW_ARG_NAME, PW_COMMA, PW_EXPAND sig));                    \
		c.t1 = pw_now_ns();                                                                 \
		c.ret = r;                                                                          \
		if (gtp)                                                                            \
			pw_gt_end(&c, gtp);                                                         \
		if ((flg)&PW_RANGE_NOTE)                                                            \
			pw_cuda_range_after(&c, rid);                                               \
		pw_cuda_post(&c);                                                                   \
		if (checked)                                                                        \
			pw_cuda_check_after(&c, &op);                                               \
		pw_call_end(&c);                                                                    \
		return r;                                                                           \
	}
PW_CUDA_FUNCS(PW_CUDA_WRAPPER)

#define PW_CUDA_DESC(api, sfx, fam, flg, sig)                           \
	[PW_CUDA_ID(api##sfx)] = {#api #sfx,    #api,                   \
	                          #sfx,         PW_VENDOR_CUDA,         \
	                          PW_FAM_##fam, PW_NARG(PW_EXPAND sig), \
	                          flg,          {PW_MAP(PW_ARG_DESC, PW_COMMA, PW_EXPAND sig)}},
const struct pw_fn_desc pw_cuda_desc[PW_CUDA_NFUNCS] = {PW_CUDA_FUNCS(PW_CUDA_DESC)};

#define PW_CUDA_WRAPPER_PTR(api, sfx, fam, flg, sig) [PW_CUDA_ID(api##sfx)] = (void *)api##sfx,
void *const pw_cuda_wrapper[PW_CUDA_NFUNCS] = {PW_CUDA_FUNCS(PW_CUDA_WRAPPER_PTR)};

_Atomic(void *) pw_cuda_real_fn[PW_CUDA_NFUNCS];

/*
 * The CUDA runtime wrappers, generated from cudart_table.h: for every row, an
 * exported function with libcudart's exact signature, its descriptor, and its
 * slot in the wrapper table that dlsym hands out.  Also where the real
 * runtime functions are found.
 *
 * The runtime's vendor descriptor (vendor.h) says it is a layer over the
 * driver (upper): see below.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "call.h"
#include "cudart_hooks.h"
#include "intercept.h"

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

static void pre(struct pw_call *c)
{
	if ((c->fn->flags & PW_ABI12) && pw_cudart_abi12())
		abi12(c, (int)(c->fn - pw_cudart_desc));
	pw_cudart_pre(c);
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
    .pre = pre,
    .op_before = pw_cudart_op_before,
    .op_after = pw_cudart_op_after,
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

/* ---- finding the real runtime ---- */

/*
 * Usually the real function is the next definition after ours (RTLD_NEXT).
 * A libcudart loaded with RTLD_LOCAL (a dependency of a Python extension
 * module, as PyTorch's is) is not in that scope; its callers still bind to our
 * export, which comes first, so we look the library up among those loaded.
 * One runtime per process is assumed: with two different shared runtimes
 * loaded, every caller is forwarded to the first found (docs/hooks.md).
 */
static _Atomic(void *) cudart_handle;
static _Atomic int cudart_abi; /* 0 unknown, 12 or 13 */

static int find_cudart(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name;
	if (!base || strncmp(base, "libcudart.so", 12) != 0)
		return 0;
	*(void **)arg = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
	return *(void **)arg != NULL;
}

/* Remember the library that defines fn as the runtime. */
static void note_runtime(void *fn)
{
	if (atomic_load(&cudart_handle))
		return;
	Dl_info info;
	if (!dladdr(fn, &info) || !info.dli_fname)
		return;
	void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD), *expected = NULL;
	if (h && !atomic_compare_exchange_strong(&cudart_handle, &expected, h))
		dlclose(h);
}

void *pw_cudart_aux(const char *name)
{
	void *h = atomic_load(&cudart_handle);
	void *f = h ? pw_real_dlsym(h, name) : NULL;
	if (f)
		return f;
	f = pw_real_dlsym(RTLD_NEXT, name);
	if (!f) {
		void *found = NULL;
		dl_iterate_phdr(find_cudart, &found);
		if (found) {
			f = pw_real_dlsym(found, name);
			dlclose(found);
		}
	}
	if (f)
		note_runtime(f);
	return f;
}

void *pw_cudart_resolve(int id)
{
	void *f = pw_cudart_aux(pw_cudart_desc[id].symbol);
	if (f == pw_cudart_wrapper[id]) /* only we define it: there is no runtime */
		f = NULL;
	if (f)
		atomic_store_explicit(&pw_cudart_real_fn[id], f, memory_order_release);
	return f;
}

bool pw_cudart_abi12(void)
{
	int abi = atomic_load_explicit(&cudart_abi, memory_order_relaxed);
	if (PW_LIKELY(abi))
		return abi == 12;
	void *h = atomic_load(&cudart_handle);
	if (!h)
		return false; /* not known yet: CUDA 13's ABI, the one of our signatures */
	/* Before 13.0 the base names took an int device (12.2+ added the _v2
	 * names with the location; 13.0 dropped them and gave the base names the
	 * location).  cudaRuntimeGetVersion answers the version the library was
	 * built as, without initialising anything; failing that, the _v2 names
	 * tell a 12.2+ runtime. */
	typedef cudaError_t (*version_fn)(int *);
	version_fn get = (version_fn)pw_real_dlsym(h, "cudaRuntimeGetVersion");
	int v = 0;
	pw_tls_internal++;
	if (!get || get(&v) != cudaSuccess)
		v = 0;
	pw_tls_internal--;
	if (v > 0)
		abi = v < 13000 ? 12 : 13;
	else
		abi = pw_real_dlsym(h, "cudaMemAdvise_v2") ? 12 : 13;
	atomic_store_explicit(&cudart_abi, abi, memory_order_relaxed);
	return abi == 12;
}

void *pw_cudart_dlsym_hook(const char *name, void *r)
{
	if (!r)
		return r;
	for (int id = 0; id < PW_CUDART_NFUNCS; id++) {
		if (strcmp(name, pw_cudart_desc[id].symbol) != 0)
			continue;
		if (r == pw_cudart_wrapper[id]) {
			/* a global look-up found our own export: it exists only if a runtime has it */
			void *d = pw_cudart_aux(name);
			return d && d != r ? r : NULL;
		}
		void *expected = NULL;
		note_runtime(r);
		if (!atomic_compare_exchange_strong(&pw_cudart_real_fn[id], &expected, r) && expected != r)
			return r; /* another library's function of that name: our wrapper would call the wrong
			             one */
		return pw_cudart_wrapper[id];
	}
	return r;
}

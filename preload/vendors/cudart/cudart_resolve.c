/*
 * Finding the real CUDA runtime functions, and handing our wrappers out in
 * their place through dlsym; which ABI the runtime has (CUDA 12 or 13).
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "vendors/cudart/cudart.h"
#include "core/intercept.h"

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
	return pw_vendor_resolved(&pw_cudart_vendor, id, pw_cudart_aux(pw_cudart_desc[id].symbol));
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
	int id = r ? pw_vendor_row(&pw_cudart_vendor, name) : -1;
	if (id < 0)
		return r;
	if (r == pw_cudart_wrapper[id]) {
		/* a global look-up found our own export: it exists only if a runtime has it */
		void *d = pw_cudart_aux(name);
		return d && d != r ? r : NULL;
	}
	void *expected = NULL;
	note_runtime(r);
	if (!atomic_compare_exchange_strong(&pw_cudart_real_fn[id], &expected, r) && expected != r)
		return r; /* another library's function of that name: our wrapper would call the wrong one */
	return pw_cudart_wrapper[id];
}

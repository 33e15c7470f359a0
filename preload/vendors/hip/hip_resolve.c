/*
 * Finding the real HIP runtime functions, and handing our wrappers out in
 * their place through dlsym and hipGetProcAddress.
 *
 * The runtime's exports are versioned (hipFree@@hip_4.2); dlsym without a
 * version finds the default (@@) one, which is the function a program linked
 * against the library calls.  hipGetProcAddress (ROCm >= 6.2) dlopens the
 * library and dlsyms the name itself (facts A7), so what it returns never
 * went through LD_PRELOAD: we let the real one choose, find which exported
 * symbol that address is, and return our wrapper for it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendors/hip/hip.h"
#include "core/intercept.h"
#include "core/vendor_lib.h"
#include "core/pw.h"

static struct pw_lib runtime;
static pthread_once_t map_once = PTHREAD_ONCE_INIT;
static void *runtime_addr[PW_HIP_NFUNCS];
static void *runtime_getproc;

PW_EXPORT hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                                       hipDriverProcAddressQueryResult *symbolStatus);

void *pw_hip_aux(const char *name)
{
	return pw_lib_find(&runtime, name);
}

void *pw_hip_resolve(int id)
{
	void *f = pw_hip_aux(pw_hip_desc[id].symbol);
	if (f == pw_hip_wrapper[id]) /* only we define it: there is no runtime */
		f = NULL;
	if (f)
		atomic_store_explicit(&pw_hip_real_fn[id], f, memory_order_release);
	return f;
}

static void build_map(void)
{
	void *h = atomic_load(&runtime.handle);
	if (!h)
		return;
	for (int id = 0; id < PW_HIP_NFUNCS; id++)
		runtime_addr[id] = pw_real_dlsym(h, pw_hip_desc[id].symbol);
	runtime_getproc = pw_real_dlsym(h, "hipGetProcAddress");
}

void *pw_hip_substitute(void *fn)
{
	if (!fn)
		return fn;
	pw_lib_note(&runtime, fn);
	pthread_once(&map_once, build_map);
	if (fn == runtime_getproc)
		return (void *)hipGetProcAddress;
	for (int id = 0; id < PW_HIP_NFUNCS; id++) {
		if (runtime_addr[id] != fn)
			continue;
		void *expected = NULL;
		if (atomic_compare_exchange_strong(&pw_hip_real_fn[id], &expected, fn))
			pw_debug("%s: the runtime's function at %p is now reached through peerwatch",
			         pw_hip_desc[id].symbol, fn);
		return pw_hip_wrapper[id];
	}
	return fn; /* a function we do not hook: the caller gets the runtime's */
}

void *pw_hip_dlsym_hook(const char *name, void *r)
{
	if (!r)
		return r;
	int id = -1;
	for (int i = 0; i < PW_HIP_NFUNCS; i++)
		if (!strcmp(name, pw_hip_desc[i].symbol)) {
			id = i;
			break;
		}
	bool getproc = !strcmp(name, "hipGetProcAddress");
	if (id < 0 && !getproc)
		return r;
	if ((id >= 0 && r == pw_hip_wrapper[id]) || r == (void *)hipGetProcAddress) {
		/* dlsym found our own export (a global look-up): it exists only if
		 * the runtime has it, or the program would see a runtime that isn't. */
		void *d = pw_hip_aux(name);
		return d && d != r ? r : NULL;
	}
	if (getproc) {
		pw_lib_note(&runtime, r);
		return (void *)hipGetProcAddress;
	}
	return pw_hip_substitute(r);
}

/* ---- hipGetProcAddress itself ---- */

typedef hipError_t (*getproc_fn)(const char *, void **, int, uint64_t, hipDriverProcAddressQueryResult *);

hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             hipDriverProcAddressQueryResult *symbolStatus)
{
	getproc_fn real = (getproc_fn)pw_hip_aux("hipGetProcAddress");
	if (!real || real == hipGetProcAddress)
		return hipErrorNotSupported; /* a runtime before 6.2 has none */
	hipError_t r = real(symbol, pfn, hipVersion, flags, symbolStatus);
	if (r == hipSuccess && pfn && !pw_tls_internal)
		*pfn = pw_hip_substitute(*pfn);
	return r;
}

/* The runtime library's path once it is known, else NULL. */
const char *pw_hip_library(void)
{
	return atomic_load(&runtime.handle) ? runtime.path : NULL;
}

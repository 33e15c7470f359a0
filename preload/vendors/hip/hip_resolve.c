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
	return pw_vendor_resolved(&pw_hip_vendor, id, pw_hip_aux(pw_hip_desc[id].symbol));
}

static void build_map(void)
{
	void *h = atomic_load(&runtime.handle);
	if (!h)
		return;
	pw_vendor_addresses(&pw_hip_vendor, h, runtime_addr);
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
	int id = pw_vendor_row_at(&pw_hip_vendor, runtime_addr, fn);
	/* a function we do not hook: the caller gets the runtime's */
	return id < 0 ? fn : pw_vendor_adopt(&pw_hip_vendor, id, fn, "runtime");
}

void *pw_hip_dlsym_hook(const char *name, void *r)
{
	if (!r)
		return r;
	int id = pw_vendor_row(&pw_hip_vendor, name);
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

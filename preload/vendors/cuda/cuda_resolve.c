/*
 * Finding the real driver functions, and handing our wrappers out in their
 * place through dlsym and cuGetProcAddress.
 *
 * cuGetProcAddress picks the ABI variant itself (by version and flags), and
 * every pointer it returns is the address of one exported libcuda symbol
 * (docs/facts-cuda.md, "How every runtime reaches the driver").  So we let
 * the real one choose, find which exported symbol that address is, and
 * return our wrapper for exactly that symbol: the caller keeps the ABI and
 * stream semantics it asked for.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendors/cuda/cuda.h"
#include "core/intercept.h"
#include "core/vendor_lib.h"
#include "core/pw.h"
#include "state/state.h"

static struct pw_lib driver;
static pthread_once_t map_once = PTHREAD_ONCE_INIT;
static void *driver_addr[PW_CUDA_NFUNCS];
static void *driver_getproc, *driver_getproc_v2;

PW_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
PW_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *symbolStatus);

void *pw_cuda_aux(const char *name)
{
	return pw_lib_find(&driver, name);
}

void *pw_cuda_resolve(int id)
{
	return pw_vendor_resolved(&pw_cuda_vendor, id, pw_cuda_aux(pw_cuda_desc[id].symbol));
}

static void build_map(void)
{
	void *h = atomic_load(&driver.handle);
	if (!h)
		return;
	pw_vendor_addresses(&pw_cuda_vendor, h, driver_addr);
	driver_getproc = pw_real_dlsym(h, "cuGetProcAddress");
	driver_getproc_v2 = pw_real_dlsym(h, "cuGetProcAddress_v2");
}

void *pw_cuda_substitute(void *fn)
{
	if (!fn)
		return fn;
	pw_lib_note(&driver, fn);
	pthread_once(&map_once, build_map);
	if (fn == driver_getproc)
		return (void *)cuGetProcAddress;
	if (fn == driver_getproc_v2)
		return (void *)cuGetProcAddress_v2;
	int id = pw_vendor_row_at(&pw_cuda_vendor, driver_addr, fn);
	/* a function we do not hook: the caller gets the driver's */
	return id < 0 ? fn : pw_vendor_adopt(&pw_cuda_vendor, id, fn, "driver");
}

void *pw_cuda_dlsym_hook(const char *name, void *r)
{
	if (!r)
		return r;
	int id = pw_vendor_row(&pw_cuda_vendor, name);
	bool getproc = !strcmp(name, "cuGetProcAddress") || !strcmp(name, "cuGetProcAddress_v2");
	if (id < 0 && !getproc)
		return r;
	if ((id >= 0 && r == pw_cuda_wrapper[id]) || r == (void *)cuGetProcAddress ||
	    r == (void *)cuGetProcAddress_v2) {
		/* dlsym found our own export (a global look-up): it exists only if
		 * the driver has it, or the program would see a driver that isn't. */
		void *d = pw_cuda_aux(name);
		return d && d != r ? r : NULL;
	}
	if (getproc) {
		pw_lib_note(&driver, r);
		return name[16] ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
	}
	return pw_cuda_substitute(r);
}

/* ---- cuGetProcAddress itself: both flavours are exported and handed out ---- */

typedef CUresult (*getproc_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*getproc_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	getproc_fn real = (getproc_fn)pw_cuda_aux("cuGetProcAddress");
	if (!real || real == cuGetProcAddress)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = real(symbol, pfn, cudaVersion, flags);
	if (r == CUDA_SUCCESS && pfn && !pw_tls_internal)
		*pfn = pw_cuda_substitute(*pfn);
	return r;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
	getproc_v2_fn real = (getproc_v2_fn)pw_cuda_aux("cuGetProcAddress_v2");
	if (!real || real == cuGetProcAddress_v2)
		return CUDA_ERROR_NOT_SUPPORTED;
	CUresult r = real(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (r == CUDA_SUCCESS && pfn && !pw_tls_internal)
		*pfn = pw_cuda_substitute(*pfn);
	return r;
}

/* The driver library's path as loaded, or NULL before it is found. */
const char *pw_cuda_library(void)
{
	return atomic_load(&driver.handle) ? driver.path : NULL;
}

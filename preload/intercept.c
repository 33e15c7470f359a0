/*
 * The dlsym interposer.  CUDA runtimes never link against libcuda: they
 * dlopen it and dlsym "cuGetProcAddress_v2" (../shared/facts/cuda-on-h200.md
 * §1), and some libraries dlsym plain driver names.  So the exported dlsym
 * hands back our wrapper whenever the answer is a driver function we hook.
 *
 * Only names of the form cu[A-Z]... (and hip[A-Z]...) are looked at; our own look-ups
 * (pw_tls_internal) and RTLD_NEXT (see dlsym_entry.S) pass straight through.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "acl_hooks.h"
#include "cuda_hooks.h"
#include "cudart_hooks.h"
#include "hip_hooks.h"
#include "intercept.h"
#include "pw.h"

/*
 * A sanitizer runtime preloaded before us calls dlsym while it initializes,
 * before its shadow memory exists: the path from the stub to glibc's dlsym
 * must not be instrumented.
 */
#define PW_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

typedef void *(*dlsym_fn)(void *, const char *);
static _Atomic(dlsym_fn) real_dlsym;

/* glibc 2.34 gave dlsym a new version; older programs bind the old one. */
PW_NO_SANITIZE static dlsym_fn find_real_dlsym(void)
{
	static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"};
	for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
		dlsym_fn f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
		if (f)
			return f;
	}
	return NULL;
}

PW_NO_SANITIZE void *pw_real_dlsym_fn(void)
{
	dlsym_fn f = atomic_load_explicit(&real_dlsym, memory_order_acquire);
	if (PW_UNLIKELY(!f)) {
		f = find_real_dlsym();
		atomic_store_explicit(&real_dlsym, f, memory_order_release);
	}
	return (void *)f;
}

PW_NO_SANITIZE void *pw_real_dlsym(void *handle, const char *name)
{
	dlsym_fn f = (dlsym_fn)pw_real_dlsym_fn();
	return f ? f(handle, name) : NULL;
}

PW_NO_SANITIZE void *pw_dlsym_impl(void *handle, const char *name)
{
	void *r = pw_real_dlsym(handle, name);
	if (!pw_tls_internal && name && name[0] == 'a' && name[1] == 'c' && name[2] == 'l')
		return pw_acl_dlsym_hook(name, r);
	if (!pw_tls_internal && name && !strncmp(name, "cuda", 4))
		return pw_cudart_dlsym_hook(name, r); /* the runtime API (cudart_hooks.c) */
	if (!pw_tls_internal && name && name[0] == 'h' && name[1] == 'i' && name[2] == 'p' &&
	    isupper((unsigned char)name[3]))
		return pw_hip_dlsym_hook(name, r);
	if (pw_tls_internal || !name || name[0] != 'c' || name[1] != 'u' || !isupper((unsigned char)name[2]))
		return r;
	return pw_cuda_dlsym_hook(name, r);
}

/*
 * The dlsym interposer.  CUDA runtimes never link against libcuda: they
 * dlopen it and dlsym "cuGetProcAddress_v2" (docs/hooks.md), and
 * some libraries dlsym plain driver names.  So the exported dlsym hands back
 * our wrapper whenever the answer is a function of a vendor we hook.
 *
 * Only names with a vendor's prefix (vendor.h: cu[A-Z]..., cuda..., hip[A-Z]...,
 * acl...) are looked at, by that vendor; our own look-ups (pw_tls_internal)
 * and RTLD_NEXT (see dlsym_entry.S) pass straight through.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "core/intercept.h"
#include "core/pw.h"
#include "core/vendor.h"

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

/* The vendor whose prefix name has, or NULL.  Uninstrumented, like its caller. */
PW_NO_SANITIZE static const struct pw_vendor *vendor_of(const char *name)
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++) {
		const char *p = (*v)->prefix, *n = name;
		while (*p && *p == *n)
			p++, n++;
		if (!*p && (!(*v)->prefix_upper || (*n >= 'A' && *n <= 'Z')))
			return *v;
	}
	return NULL;
}

PW_NO_SANITIZE void *pw_dlsym_impl(void *handle, const char *name)
{
	void *r = pw_real_dlsym(handle, name);
	if (pw_tls_internal || !name)
		return r;
	const struct pw_vendor *v = vendor_of(name);
	return v ? v->dlsym_hook(name, r) : r;
}

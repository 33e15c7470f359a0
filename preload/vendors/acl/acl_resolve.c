/*
 * Finding the real ACL runtime functions, and handing our wrappers out in
 * their place through dlsym.
 *
 * A program linked against libascendcl.so reaches our exported acl* symbols
 * through LD_PRELOAD; one that dlopens it (pyACL's acl.so links it, Python's
 * ctypes dlopens it RTLD_LOCAL, torch_npu dlsyms it: facts file section C)
 * gets our wrapper from the dlsym interposer, and the library it came from is
 * remembered so that functions RTLD_NEXT cannot see are still found.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendors/acl/acl.h"
#include "core/intercept.h"
#include "core/vendor_lib.h"
#include "core/pw.h"

static struct pw_lib lib;

static bool is_ours(void *f)
{
	for (int i = 0; i < PW_ACL_NFUNCS; i++)
		if (f == pw_acl_wrapper[i])
			return true;
	return false;
}

void *pw_acl_aux(const char *name)
{
	void *h = atomic_load(&lib.handle);
	void *f = h ? pw_real_dlsym(h, name) : NULL;
	if (!f) {
		f = pw_real_dlsym(RTLD_NEXT, name);
		if (f && !is_ours(f))
			pw_lib_note(&lib, f);
	}
	return f && is_ours(f) ? NULL : f;
}

void *pw_acl_resolve(int id)
{
	return pw_vendor_resolved(&pw_acl_vendor, id, pw_acl_aux(pw_acl_desc[id].symbol));
}

void *pw_acl_dlsym_hook(const char *name, void *r)
{
	if (!r)
		return r;
	int id = pw_vendor_row(&pw_acl_vendor, name);
	if (id < 0)
		return r;
	if (r == pw_acl_wrapper[id]) {
		/* a global look-up found our own export: it exists only if the runtime has it */
		return pw_acl_aux(name) ? r : NULL;
	}
	pw_lib_note(&lib, r);
	return pw_vendor_adopt(&pw_acl_vendor, id, r, "runtime");
}

/* ---- the header's "acl" member ---- */

#include <jansson.h>

void pw_acl_describe(void *vendors)
{
	void *h = atomic_load(&lib.handle);
	if (!h)
		return;
	json_t *a = json_object();
	json_object_set_new(a, "library", json_string(lib.path));
	json_object_set_new((json_t *)vendors, "acl", a);
}

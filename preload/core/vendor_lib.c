/* Remembering a vendor's library (vendor_lib.h). */
#include "core/vendor_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/intercept.h"

static pthread_mutex_t loader = PTHREAD_MUTEX_INITIALIZER;

void pw_loader_lock(void)
{
	pthread_mutex_lock(&loader);
}

void pw_loader_unlock(void)
{
	pthread_mutex_unlock(&loader);
}

void pw_loader_lock_child(void)
{
	pthread_mutex_init(&loader, NULL);
}

void pw_lib_note(struct pw_lib *l, void *fn)
{
	if (atomic_load(&l->handle))
		return;
	Dl_info info;
	if (!dladdr(fn, &info) || !info.dli_fname)
		return;
	void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return;
	void *expected = NULL;
	char abs[4096];
	const char *path = info.dli_fname[0] != '/' && realpath(info.dli_fname, abs) ? abs : info.dli_fname;
	if (atomic_compare_exchange_strong(&l->handle, &expected, h))
		snprintf(l->path, sizeof l->path, "%s", path);
	else
		dlclose(h);
}

void *pw_lib_find(struct pw_lib *l, const char *name)
{
	void *h = atomic_load(&l->handle);
	void *f = h ? pw_real_dlsym(h, name) : NULL;
	if (!f) {
		f = pw_real_dlsym(RTLD_NEXT, name);
		if (f)
			pw_lib_note(l, f);
	}
	return f;
}

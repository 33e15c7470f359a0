/*
 * The vendor library a module's real functions come from: remembered from
 * the first real function found (through RTLD_NEXT, dlsym or a get-proc-
 * address answer), so that functions RTLD_NEXT cannot see (a library loaded
 * RTLD_LOCAL) are still found, and so that the trace header can name it.
 */
#ifndef PW_VENDOR_LIB_H
#define PW_VENDOR_LIB_H

#include <stdatomic.h>

struct pw_lib {
	_Atomic(void *) handle; /* dlopen(RTLD_NOLOAD) of the library, once known */
	char path[4096];        /* its absolute path */
};

/* Remember the library that defines fn (the first one noted wins). */
void pw_lib_note(struct pw_lib *l, void *fn);
/* name in the remembered library, else the next definition after ours
 * (whose library is then remembered); NULL if neither has it. */
void *pw_lib_find(struct pw_lib *l, const char *name);

/* Our own loads of a system library (the management libraries, libdw) and
 * our listings of the loaded modules (the trace's header and footer), one
 * at a time.  The loader orders them already (dlopen publishes a new
 * module, and dl_iterate_phdr walks them, under its lock), but ThreadSanitizer
 * does not see the loader's lock, ld.so being uninstrumented: it reported
 * a new module's name read by the header's listing while another thread's
 * dlopen of the management library wrote it (CI, 2026-12-03).  fork takes
 * it first (entry/init.c), so a child never inherits it held. */
void pw_loader_lock(void);
void pw_loader_unlock(void);
/* In the child of fork, which holds it from the prepare handler: free. */
void pw_loader_lock_child(void);

#endif

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

#endif

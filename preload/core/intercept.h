/* How calls reach us: the dlsym interposer and the real dynamic linker. */
#ifndef PW_INTERCEPT_H
#define PW_INTERCEPT_H

/* glibc's own dlsym, never ours.  NULL only if glibc has none we know of. */
void *pw_real_dlsym(void *handle, const char *name);

/* Called by the dlsym entry stub (dlsym_entry.S) for every handle but RTLD_NEXT. */
void *pw_dlsym_impl(void *handle, const char *name);
/* Called by the stub for RTLD_NEXT: it tail-jumps to the result, so glibc sees
 * the application's return address and "next" still means next after it. */
void *pw_real_dlsym_fn(void);

#endif

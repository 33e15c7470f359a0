/*
 * The run a process belongs to, and the small text helpers its id and the
 * IPC registry's segment names (state/registry.c) are made with.  Nothing
 * here runs on the hot path.
 */
#ifndef PW_RUNID_H
#define PW_RUNID_H

#include <stddef.h>
#include <stdint.h>

/* The run this process belongs to: PEERWATCH_RUN_ID, or made on first use
 * (and then set in the environment, so that this process's later children
 * inherit it).  Processes with the same run id share the IPC registry
 * (state/registry.h). */
const char *pw_run_id(void);

/* FNV-1a over n bytes from h; s copied, v written in base with at least
 * width digits, into [p, end): the new end (no NUL). */
uint64_t pw_fnv1a(uint64_t h, const void *p, size_t n);
char *pw_put_str(char *p, char *end, const char *s);
char *pw_put_uint(char *p, char *end, uint64_t v, unsigned base, int width);

#endif

/*
 * A finding's frames by function and source line, for its report on
 * stderr: "scenario (violations.c:88) in violations+0x174c", from the
 * program's own symbol table and debug information, read with libdw.
 *
 * libdw is not one of libpeerwatch.so's dependencies: it is dlopen'ed
 * RTLD_LOCAL (the system's libdw.so.1) the first time a report has frames
 * to name, so a run without findings never loads it, and none of its
 * symbols enters the program's scope.  Each report opens what it reads
 * and closes it when done (pw_srcline_end).  Without libdw, or for a frame
 * it cannot name, the caller keeps pw_stack_format's form.  Never on the
 * hot path: it allocates, opens files, takes the loader's lock.
 */
#ifndef PW_SRCLINE_H
#define PW_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One report's frames: the modules read so far. */
struct pw_srcline {
	void *dwfl;       /* libdw's session, NULL: no libdw */
	uintptr_t bad[8]; /* modules (their load bias) that could not be read */
	int nbad;
};

/* Starts naming one report's frames: false when libdw cannot be had. */
bool pw_srcline_begin(struct pw_srcline *s);
/* ip's frame (a return address: the call before it) into out, as
 * "func (file.c:12) in module+0xOFF", or "func+0xOFF (module)" with a
 * symbol but no line; false when neither is known (or s has no libdw). */
bool pw_srcline_format(struct pw_srcline *s, uintptr_t ip, char *out, size_t len);
/* Closes what the report read; s may be one pw_srcline_begin refused. */
void pw_srcline_end(struct pw_srcline *s);

/* Tests: the library loaded instead of libdw.so.1, before the first use. */
void pw_srcline_use(const char *soname);

#endif

/*
 * Where a CI format places a finding: at the program's own frame, the
 * innermost frame of its stack that has a source line and lies outside the
 * C runtime, the vendor runtimes and peerwatch itself; failing that, the
 * innermost frame outside them; failing that, the innermost frame; without
 * a stack, at the program's executable (or the trace).  Paths under the
 * source root are shown relative to it.
 */
#ifndef PW_AN_PLACE_H
#define PW_AN_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/findings.h"
#include "model/symbols.h"
#include "read/trace.h"

struct place {
	struct sym_frame fr; /* the frame chosen; fr.pc == 0 and no module when none */
	bool have;           /* a frame was chosen */
	size_t index;        /* its place in the stack */
	char *path;          /* its source file (absolute when known), or a module; NULL: none */
	int line;            /* > 0: path is a source file and this its line */
};

/* The place of fd, a finding of the process of f. */
void place_of(struct symbolizer *sym, const struct pw_file *f, const struct finding *fd, struct place *p);
void place_free(struct place *p);

/* A frame's source file (free() it): absolute when the file or its compile
 * unit's directory is; relative (to the source root, as with
 * -fdebug-prefix-map=DIR=.) when both are relative; NULL without line
 * information or when a relative path climbs out of its directory. */
char *frame_source(const struct sym_frame *fr);
/* path relative to root when it lies under it, else NULL. */
const char *under_root(const char *path, const char *root);
/* The path as a person reads it: relative to the root when under it. */
const char *shown_path(const char *path, const char *root);
/* "program[pid] on host, call 12 cuMemcpyPeer" or "..., at exit"; free() it. */
char *where_text(const struct finding *fd, const struct pw_file *f);

#endif

/*
 * Offline symbolization of raw stack addresses (the "stack" arrays of call
 * and violation events) from the module list a trace's header and footer
 * give: path, load bias ("base") and GNU build id of every loaded object.
 *
 * An address is matched to the module whose loaded segments contain it
 * (from the file's program headers).  The file is used only when its build
 * id is the one the trace recorded, so a binary rebuilt since the run is not
 * mislabelled.  With the file: function+offset from its symbol table, and
 * file:line where DWARF is found (in the file, or a separate debug file
 * found the standard ways: build-id directory, .gnu_debuglink).  Without it:
 * module+offset from the nearest module base below the address.
 */
#ifndef PW_AN_SYMBOLS_H
#define PW_AN_SYMBOLS_H

#include <stdint.h>

#include "base/util.h"

struct symbolizer;

struct sym_frame {
	uint64_t pc;
	const char *module;  /* the module's path (owned by the modules list), or NULL */
	uint64_t module_off; /* pc - base */
	char *func;          /* NULL when unknown */
	uint64_t func_off;
	char *file; /* source file, NULL when no line info */
	int line;
	char *comp_dir;   /* the compile unit's directory, which a relative file is under, or NULL */
	const char *note; /* why the file was not used: "build id differs", "file not found" */
};

struct symbolizer *sym_new(void);
void sym_free(struct symbolizer *s);
/* Fills *fr for pc in a process with these modules (struct pw_module). */
void sym_lookup(struct symbolizer *s, const struct vec *modules, uint64_t pc, struct sym_frame *fr);
/* "main+0x24 (calls.c:123) [calls]", "libfoo.so+0x1234 [build id differs]", "0x1234 [?]". */
char *sym_format(const struct sym_frame *fr);
void sym_frame_free(struct sym_frame *fr);

#endif

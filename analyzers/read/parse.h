/*
 * One line of a trace into the typed structs of trace.h: an event, or what
 * the file's header, footer and device lines say.  A line that breaks the
 * format (docs/trace-format.md) is refused whole, with a message that names
 * the member.
 */
#ifndef PW_AN_PARSE_H
#define PW_AN_PARSE_H

#include <jansson.h>
#include <stddef.h>

#include "base/util.h"
#include "read/trace.h"

/* Parses and validates one line without a file (the reader, the fuzz
 * target, the unit tests): the kind of line, *ev filled for an event; the
 * caller must json_decref(*root) (NULL for a line read by the fast
 * path, whose args are built only when asked: pw_ev_args) before the thread parses its next line (the
 * objects live in the thread's arena, json.h).  PW_LINE_BAD: a message in
 * err. */
enum pw_line_kind {
	PW_LINE_BAD,
	PW_LINE_HEADER,
	PW_LINE_FOOTER,
	PW_LINE_EVENT,
	PW_LINE_DEVICE,
	PW_LINE_OTHER
};
enum pw_line_kind pw_parse_line(const char *line, size_t len, struct pw_event *ev, struct vec *stack,
                                json_t **root, char *err, size_t errlen);
/* The fast path alone (for the reader's helper threads): true when the line
 * is a call of the plain shape, *ev filled as pw_parse_line would; false for
 * every other line, which pw_parse_line must then decide (on the thread
 * that reports it).  Off with pw_parse_fast.  copy: NULL, or where the
 * scan's copy of the line goes (PW_SCAN_COPY_SIZE(len) bytes, scan.h),
 * kept by the caller, so that detaching the event copies no line. */
bool pw_parse_fast_line(const char *line, size_t len, struct pw_event *ev, struct vec *stack, char *copy);
/* An event the fast path read, copied with its tokens, the line's copy (if
 * the caller does not keep it) and its stack into mem
 * (pw_event_detach_size bytes, 16-aligned), so that it outlives the
 * thread's next line and can be handed to another thread; its args are
 * built there, on that thread (pw_ev_args). */
size_t pw_event_detach_size(const struct pw_event *ev);
struct pw_event *pw_event_detach(const struct pw_event *ev, void *mem);
/* Whether pw_parse_line takes a call line of the plain shape without
 * building its tree (default true; the fuzz target and tests turn it off
 * to compare), and whether it did for the thread's last line. */
extern bool pw_parse_fast;
bool pw_parse_was_fast(void);
/* A reading thread that ends: frees what the parse keeps per thread (the
 * scan's copy and tokens, the args built for the last line, the arena). */
void pw_parse_thread_done(void);
/* Header and footer members into the file; -1 with a message when invalid. */
int pw_file_header(struct pw_file *f, json_t *root, char *err, size_t errlen);
int pw_file_footer(struct pw_file *f, json_t *root, char *err, size_t errlen);
/* A "device" line into f->devices (a second line for the same vendor and
 * ordinal replaces the first); -1 with a message when invalid. */
int pw_file_add_device(struct pw_file *f, json_t *root, char *err, size_t errlen);

#endif

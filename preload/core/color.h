/*
 * Colour in the library's reports (the color option): SGR sequences around
 * a report's severity and rule, where the stream they go to is a terminal.
 *
 *   color=auto    (default) where the file descriptor is a terminal, unless
 *                 NO_COLOR is set to a non-empty value or TERM is "dumb"
 *   color=always  whatever the descriptor
 *   color=never   never
 *
 * The answer for a descriptor is decided at the first report through it and
 * kept; nothing here runs on the hot path.
 */
#ifndef PW_COLOR_H
#define PW_COLOR_H

#include <stdbool.h>

enum pw_color { PW_COLOR_AUTO, PW_COLOR_ALWAYS, PW_COLOR_NEVER };

/* "auto", "always", "never" -> 0 and *out, else -1. */
int pw_color_parse(const char *v, enum pw_color *out);
const char *pw_color_name(enum pw_color c);
/* Does text written to fd get colour under this setting? */
bool pw_color_for_fd(enum pw_color c, int fd);
/* The sequence that starts a severity's colour (PW_SEV_*), bold, and the
 * reset; "" when on is false. */
const char *pw_color_sev(bool on, int severity);
const char *pw_color_bold(bool on);
const char *pw_color_reset(bool on);

#endif

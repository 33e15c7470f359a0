/*
 * Colour in the library's reports (color.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/color.h"
#include "peerwatch/rules_table.h"

static const char *const names[] = {"auto", "always", "never"};

int pw_color_parse(const char *v, enum pw_color *out)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(v, names[i])) {
			*out = (enum pw_color)i;
			return 0;
		}
	return -1;
}

const char *pw_color_name(enum pw_color c)
{
	return names[c];
}

bool pw_color_for_fd(enum pw_color c, int fd)
{
	if (c != PW_COLOR_AUTO)
		return c == PW_COLOR_ALWAYS;
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	return !(no && *no) && !(term && !strcmp(term, "dumb")) && isatty(fd) == 1;
}

/* bold red, bold yellow, cyan: as peerwatch-analyze colours them */
const char *pw_color_sev(bool on, int severity)
{
	if (!on)
		return "";
	return severity == PW_SEV_ERROR     ? "\033[1;31m"
	       : severity == PW_SEV_WARNING ? "\033[1;33m"
	                                    : "\033[36m";
}

const char *pw_color_bold(bool on)
{
	return on ? "\033[1m" : "";
}

const char *pw_color_reset(bool on)
{
	return on ? "\033[0m" : "";
}

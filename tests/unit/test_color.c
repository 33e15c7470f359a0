/* The library's colour decision (preload/core/color.c): the option's values, and
 * auto on a terminal, a pipe, with NO_COLOR and with TERM=dumb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/color.h"
#include "peerwatch/rules_table.h"

static void parses_the_three_values(void **state)
{
	(void)state;
	enum pw_color c;
	assert_int_equal(pw_color_parse("auto", &c), 0);
	assert_int_equal(c, PW_COLOR_AUTO);
	assert_int_equal(pw_color_parse("always", &c), 0);
	assert_int_equal(c, PW_COLOR_ALWAYS);
	assert_int_equal(pw_color_parse("never", &c), 0);
	assert_int_equal(c, PW_COLOR_NEVER);
	assert_int_equal(pw_color_parse("yes", &c), -1);
	assert_int_equal(pw_color_parse("", &c), -1);
	assert_string_equal(pw_color_name(PW_COLOR_ALWAYS), "always");
}

static void auto_follows_the_descriptor_and_the_environment(void **state)
{
	(void)state;
	int fds[2], master, slave;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
	unsetenv("NO_COLOR");
	setenv("TERM", "xterm", 1);
	assert_false(pw_color_for_fd(PW_COLOR_AUTO, fds[1]));
	assert_true(pw_color_for_fd(PW_COLOR_AUTO, slave));
	assert_true(pw_color_for_fd(PW_COLOR_ALWAYS, fds[1]));
	assert_false(pw_color_for_fd(PW_COLOR_NEVER, slave));
	setenv("NO_COLOR", "1", 1);
	assert_false(pw_color_for_fd(PW_COLOR_AUTO, slave));
	assert_true(pw_color_for_fd(PW_COLOR_ALWAYS, slave)); /* asked for: NO_COLOR gives way */
	setenv("NO_COLOR", "", 1);                            /* empty: as if unset */
	assert_true(pw_color_for_fd(PW_COLOR_AUTO, slave));
	setenv("TERM", "dumb", 1);
	assert_false(pw_color_for_fd(PW_COLOR_AUTO, slave));
	unsetenv("NO_COLOR");
	close(fds[0]);
	close(fds[1]);
	close(master);
	close(slave);
}

static void sequences_only_when_on(void **state)
{
	(void)state;
	assert_string_equal(pw_color_sev(false, PW_SEV_ERROR), "");
	assert_string_equal(pw_color_bold(false), "");
	assert_string_equal(pw_color_reset(false), "");
	assert_string_equal(pw_color_sev(true, PW_SEV_ERROR), "\033[1;31m");
	assert_string_equal(pw_color_sev(true, PW_SEV_WARNING), "\033[1;33m");
	assert_string_equal(pw_color_sev(true, PW_SEV_PERFORMANCE), "\033[36m");
	assert_string_equal(pw_color_reset(true), "\033[0m");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parses_the_three_values),
	    cmocka_unit_test(auto_follows_the_descriptor_and_the_environment),
	    cmocka_unit_test(sequences_only_when_on),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* PEERWATCH_OPTIONS parsing: values, defaults, and the messages for mistakes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/pw.h"

static void defaults(void **state)
{
	(void)state;
	struct pw_options o;
	pw_options_defaults(&o);
	assert_string_equal(o.out, "pw-trace");
	assert_int_equal(o.mode, PW_MODE_WARN);
	assert_int_equal(o.verbosity, 1);
	assert_int_equal(o.buffer_bytes, 256 * 1024);
	assert_int_equal(o.max_trace_mb, 1024);
	assert_int_equal(o.help, 0);
}

static void parses_every_key(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	pw_options_defaults(&o);
	assert_int_equal(
	    pw_options_parse(&o, "out=/tmp/x:mode=enforce:verbosity=0:buffer_kb=64:max_trace_mb=0:help=1",
	                     err, sizeof err),
	    0);
	assert_int_equal(o.max_trace_mb, 0);
	assert_string_equal(o.out, "/tmp/x");
	assert_int_equal(o.mode, PW_MODE_ENFORCE);
	assert_int_equal(o.verbosity, 0);
	assert_int_equal(o.buffer_bytes, 64 * 1024);
	assert_int_equal(o.help, 1);
	assert_string_equal(err, "");
}

static void empty_and_stray_colons(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	pw_options_defaults(&o);
	assert_int_equal(pw_options_parse(&o, NULL, err, sizeof err), 0);
	assert_int_equal(pw_options_parse(&o, "", err, sizeof err), 0);
	assert_int_equal(pw_options_parse(&o, "::mode=observe:", err, sizeof err), 0);
	assert_int_equal(o.mode, PW_MODE_OBSERVE);
}

static void later_keys_win(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	pw_options_defaults(&o);
	assert_int_equal(pw_options_parse(&o, "mode=observe:mode=enforce", err, sizeof err), 0);
	assert_int_equal(o.mode, PW_MODE_ENFORCE);
}

static void unknown_key_is_named(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	pw_options_defaults(&o);
	assert_int_equal(pw_options_parse(&o, "colour=red", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown option 'colour'"));
	assert_non_null(strstr(err, "known: out, mode, verbosity, buffer_kb, halt_on, exitcode, stacks, "
	                            "stack_depth, log_path, suppressions, default_suppressions, registry, "
	                            "gpu_timing, um_counters, cupti, max_trace_mb, ranks, color, help"));
}

static void bad_values_name_the_allowed_ones(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	const char *cases[][2] = {
	    {"mode=loud", "bad value 'loud' for mode (allowed: observe|warn|enforce)"},
	    {"verbosity=3", "bad value '3' for verbosity (allowed: 0|1|2)"},
	    {"verbosity=-1", "bad value '-1' for verbosity"},
	    {"buffer_kb=8", "bad value '8' for buffer_kb (allowed: 16..65536)"},
	    {"buffer_kb=12x", "bad value '12x' for buffer_kb"},
	    {"out=", "bad value '' for out"},
	    {"help=yes", "bad value 'yes' for help"},
	    {"max_trace_mb=-1", "bad value '-1' for max_trace_mb (allowed: 0..1048576)"},
	    {"max_trace_mb=1048577", "bad value '1048577' for max_trace_mb"},
	    {"max_trace_mb=1g", "bad value '1g' for max_trace_mb"},
	    {"mode", "'mode' is not key=value"},
	    {"out=t/%x", "out: '%x' in 't/%x' is not one of %p (pid), %h (host), %r (rank)"},
	    {"out=t/%q{1}", "out: '%q' must be followed by {NAME}"},
	    {"out=t/%", "out: '%' in 't/%' is not one of"},
	    {"ranks=3-1", "ranks: the range 3-1 in '3-1' runs backwards"},
	    {"ranks=0,,1", "ranks: '0,,1' is not a list of ranks such as 0,2-3"},
	    {"ranks=x", "ranks: 'x' is not a list of ranks"},
	    {"color=yes", "bad value 'yes' for color (allowed: auto|always|never)"},
	    {"gpu_timing=2", "bad value '2' for gpu_timing (allowed: 0|1|events|cupti)"},
	    {"gpu_timing=CUPTI", "bad value 'CUPTI' for gpu_timing"},
	    {"um_counters=yes", "bad value 'yes' for um_counters (allowed: 0|1)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		pw_options_defaults(&o);
		assert_int_equal(pw_options_parse(&o, cases[i][0], err, sizeof err), -1);
		if (!strstr(err, cases[i][1]))
			fail_msg("%s: got '%s'", cases[i][0], err);
	}
}

/* gpu_timing's words and numbers, um_counters, cupti's path. */
static void timing_methods(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	const struct {
		const char *text;
		int want;
	} cases[] = {{"gpu_timing=0", PW_GT_NONE},
	             {"gpu_timing=1", PW_GT_EVENTS},
	             {"gpu_timing=events", PW_GT_EVENTS},
	             {"gpu_timing=cupti", PW_GT_CUPTI}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		pw_options_defaults(&o);
		assert_int_equal(pw_options_parse(&o, cases[i].text, err, sizeof err), 0);
		assert_int_equal(o.gpu_timing, cases[i].want);
	}
	pw_options_defaults(&o);
	assert_int_equal(o.gpu_timing, PW_GT_NONE);
	assert_int_equal(o.um_counters, 0);
	assert_string_equal(o.cupti, "");
	assert_int_equal(pw_options_parse(&o, "um_counters=1:cupti=/opt/cupti/libcupti.so", err, sizeof err),
	                 0);
	assert_int_equal(o.um_counters, 1);
	assert_string_equal(o.cupti, "/opt/cupti/libcupti.so");
}

static void enforce_is_known_despite_a_bad_key(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	pw_options_defaults(&o);
	assert_int_equal(pw_options_parse(&o, "colour=1:mode=enforce", err, sizeof err), -1);
	assert_int_equal(o.mode, PW_MODE_ENFORCE);
	assert_non_null(strstr(err, "colour"));
}

/* KEY=VALUE with a value of n bytes: a path of n bytes, '/' and 'a's. */
static void long_item(char *text, size_t cap, const char *key, size_t n)
{
	size_t k = strlen(key);
	assert_true(k + 1 + n < cap);
	memcpy(text, key, k);
	text[k] = '=';
	text[k + 1] = '/';
	memset(text + k + 2, 'a', n - 1);
	text[k + 1 + n] = 0;
}

/* A path the system takes (PATH_MAX - 1 bytes) is taken; a longer one is
 * refused, saying so; a bad out leaves none (no trace in the default
 * directory, where nobody asked for it). */
static void path_lengths(void **state)
{
	(void)state;
	static const char *const keys[] = {"out", "log_path", "suppressions"};
	static char text[PATH_MAX + 100];
	struct pw_options o;
	char err[800], want[100];
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		pw_options_defaults(&o);
		long_item(text, sizeof text, keys[i], PATH_MAX - 1);
		assert_int_equal(pw_options_parse(&o, text, err, sizeof err), 0);
		const char *got = i == 0 ? o.out_tmpl : i == 1 ? o.log_path : o.suppressions;
		assert_int_equal(strlen(got), PATH_MAX - 1);
		pw_options_defaults(&o);
		long_item(text, sizeof text, keys[i], PATH_MAX);
		assert_int_equal(pw_options_parse(&o, text, err, sizeof err), -1);
		snprintf(want, sizeof want, "bad value for %s: longer than %d bytes (%d bytes: '/aaa",
		         keys[i], PATH_MAX - 1, PATH_MAX);
		if (!strstr(err, want))
			fail_msg("%s: got '%s'", keys[i], err);
	}
	pw_options_defaults(&o);
	long_item(text, sizeof text, "out", PATH_MAX + 50);
	assert_int_equal(pw_options_parse(&o, text, err, sizeof err), -1);
	assert_string_equal(o.out_tmpl, "");
	assert_string_equal(o.out, "");
	pw_options_defaults(&o);
	assert_int_equal(pw_options_parse(&o, "out=a%d", err, sizeof err), -1);
	assert_string_equal(o.out_tmpl, "");
	pw_options_defaults(&o);
	long_item(text, sizeof text, "ranks", 300);
	assert_int_equal(pw_options_parse(&o, text, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad value for ranks: longer than 255 bytes"));
}

/* The launcher's keys: the template is kept as given (each process expands
 * it), the rank list and the colour setting as parsed. */
static void launcher_keys(void **state)
{
	(void)state;
	struct pw_options o;
	char err[800];
	pw_options_defaults(&o);
	assert_string_equal(o.ranks, "");
	assert_int_equal(o.color, 0); /* auto */
	assert_int_equal(
	    pw_options_parse(&o, "out=/t/r%r-%h-%q{JOB_ID}-%p%%:ranks=0,2-3:color=never", err, sizeof err),
	    0);
	assert_string_equal(o.out_tmpl, "/t/r%r-%h-%q{JOB_ID}-%p%%");
	assert_string_equal(o.ranks, "0,2-3");
	assert_int_equal(o.color, 2);
	assert_int_equal(pw_options_parse(&o, "color=always:ranks=", err, sizeof err), 0);
	assert_int_equal(o.color, 1);
	assert_string_equal(o.ranks, "");
}

/* help=1: every line's columns start where the first line's do, however
 * long an entry, and the continuation lines of a long help text too. */
static void help_columns_align(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pw_options_print_help(fds[1]);
	close(fds[1]);
	char buf[16384];
	size_t len = 0;
	ssize_t n;
	while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	buf[len] = 0;
	assert_non_null(strstr(buf, "CUDA"));
	assert_non_null(strstr(buf, "HIP"));
	assert_non_null(strstr(buf, "AscendCL"));
	assert_null(strstr(buf, "abort at the first"));
	assert_non_null(strstr(buf, "halt_on"));
	assert_null(strstr(buf, ".example"));
	int col_values = -1, col_default = -1, col_help = -1, entries = 0;
	for (char *line = strchr(buf, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		char *end = strchr(line, '\n');
		assert_non_null(end);
		*end = 0;
		char *d = strstr(line, " default ");
		if (line[2] != ' ') { /* an entry: key, values, default, help */
			entries++;
			char *v = line + 2 + strcspn(line + 2, " ");
			v += strspn(v, " ");
			char *h = d + 9 + strcspn(d + 9, " ");
			h += strspn(h, " ");
			if (col_values < 0) {
				col_values = (int)(v - line);
				col_default = (int)(d - line);
				col_help = (int)(h - line);
			}
			assert_int_equal(v - line, col_values);
			assert_int_equal(d - line, col_default);
			assert_int_equal(h - line, col_help);
		} else { /* a continuation: the help column */
			assert_null(d);
			assert_int_equal(strspn(line, " "), col_help);
		}
		*end = '\n';
	}
	assert_true(entries >= 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(parses_every_key),
	    cmocka_unit_test(empty_and_stray_colons),
	    cmocka_unit_test(later_keys_win),
	    cmocka_unit_test(unknown_key_is_named),
	    cmocka_unit_test(bad_values_name_the_allowed_ones),
	    cmocka_unit_test(timing_methods),
	    cmocka_unit_test(enforce_is_known_despite_a_bad_key),
	    cmocka_unit_test(path_lengths),
	    cmocka_unit_test(launcher_keys),
	    cmocka_unit_test(help_columns_align),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}

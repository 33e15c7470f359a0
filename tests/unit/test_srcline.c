/*
 * A finding's frames by function and source line (core/srcline.h): a frame
 * of this program (built with -g) is named with its file and line; libdw is
 * loaded only at the first use and kept out of the program's scope; without
 * it nothing is named, and the report keeps pw_stack_format's form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/srcline.h"
#include "core/stack.h"

/* Neither inlined, nor cloned, nor tail-called: each is one frame of its own. */
#if defined(__clang__)
#define FRAME __attribute__((noinline, used))
#else
#define FRAME __attribute__((noipa, used))
#endif

static volatile int sink;
static uintptr_t ra; /* pwtest_callee's return address: in pwtest_caller */
static int call_line;

FRAME void pwtest_callee(void);
FRAME void pwtest_caller(void);

FRAME void pwtest_callee(void)
{
	ra = (uintptr_t)__builtin_return_address(0);
	sink++;
}

FRAME void pwtest_caller(void)
{
	call_line = __LINE__ + 1;
	pwtest_callee();
	sink++;
}

/* Without libdw: nothing is named (run in a child, before any load). */
static void without_libdw_nothing_is_named(void **state)
{
	(void)state;
	pid_t pid = fork();
	if (pid == 0) {
		pw_srcline_use("libpw-test-no-such-libdw.so.1");
		struct pw_srcline s;
		char out[256] = "";
		pwtest_caller();
		bool began = pw_srcline_begin(&s);
		bool named = pw_srcline_format(&s, ra, out, sizeof out);
		pw_srcline_end(&s);
		_exit(began || named || out[0] ? 1 : 0);
	}
	int st = -1;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
}

static void frames_named_by_function_and_line(void **state)
{
	(void)state;
	if (dlopen("libdw.so.1", RTLD_NOW | RTLD_NOLOAD))
		fail_msg("libdw.so.1 is loaded before its first use");
	struct pw_srcline s;
	if (!pw_srcline_begin(&s)) {
		print_message("libdw.so.1 cannot be loaded here\n");
		skip();
	}
	/* loaded now, and private: none of its symbols is in the global scope */
	void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(h);
	dlclose(h);
	assert_null(dlsym(RTLD_DEFAULT, "dwfl_begin"));
	assert_null(dlsym(RTLD_DEFAULT, "dwarf_getsrc_die"));

	/* a frame of this program: its function (a static symbol), file and line */
	pwtest_caller();
	char out[256], want[256];
	Dl_info info;
	assert_true(pw_srcline_format(&s, ra, out, sizeof out));
	assert_true(dladdr((void *)(ra - 1), &info));
	const char *exe = strrchr(info.dli_fname, '/');
	snprintf(want, sizeof want, "pwtest_caller (test_srcline.c:%d) in %s+0x%lx", call_line,
	         exe ? exe + 1 : info.dli_fname, (unsigned long)(ra - (uintptr_t)info.dli_fbase));
	assert_string_equal(out, want);

	/* a libc frame: its function, and a line only if its debug file is here */
	regex_t re;
	assert_true(pw_srcline_format(&s, (uintptr_t)getpid + 1, out, sizeof out));
	assert_int_equal(regcomp(&re,
	                         "^[_a-z]*getpid(\\+0x1 \\(libc\\.so\\.6\\)| \\([^ ]+:[0-9]+\\) in "
	                         "libc\\.so\\.6\\+0x[0-9a-f]+)$",
	                         REG_EXTENDED),
	                 0);
	if (regexec(&re, out, 0, NULL, 0))
		fail_msg("getpid named '%s'", out);
	regfree(&re);

	/* no module: not named (the report says the address) */
	assert_false(pw_srcline_format(&s, 0x10, out, sizeof out));
	pw_srcline_end(&s);
	assert_null(s.dwfl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(without_libdw_nothing_is_named),
	    cmocka_unit_test(frames_named_by_function_and_line),
	};
	return cmocka_run_group_tests_name("srcline", tests, NULL, NULL);
}

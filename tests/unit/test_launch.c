/* Ranks and output names (preload/core/launch.c): what each launcher's variable
 * gives, every escape of an output name, the values refused, rank lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/launch.h"

static void clear_ranks(void)
{
	for (size_t i = 0; i < pw_rank_nvars; i++)
		unsetenv(pw_rank_vars[i]);
}

static void rank_from_each_launcher(void **state)
{
	(void)state;
	static const char *const vars[] = {"RANK",      "OMPI_COMM_WORLD_RANK", "PMI_RANK",
	                                   "PMIX_RANK", "SLURM_PROCID",         "MV2_COMM_WORLD_RANK"};
	clear_ranks();
	assert_null(pw_rank_env());
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		clear_ranks();
		setenv(vars[i], "7", 1);
		assert_non_null(pw_rank_env());
		assert_string_equal(pw_rank_env(), "7");
	}
	/* torchrun's RANK first, though srun's is set too */
	clear_ranks();
	setenv("SLURM_PROCID", "3", 1);
	setenv("RANK", "5", 1);
	assert_string_equal(pw_rank_env(), "5");
	/* an empty variable is not a rank */
	setenv("RANK", "", 1);
	assert_string_equal(pw_rank_env(), "3");
	clear_ranks();
}

static char got[512], err[512];

static int expand(const char *tmpl)
{
	got[0] = err[0] = 0;
	return pw_outname_expand(tmpl, got, sizeof got, err, sizeof err);
}

static void expands_every_escape(void **state)
{
	(void)state;
	char want[600], host[256];
	clear_ranks();
	setenv("OMPI_COMM_WORLD_RANK", "2", 1);
	setenv("PW_TEST_JOB", "job-41.a_b+c", 1);
	assert_int_equal(gethostname(host, sizeof host), 0);
	assert_int_equal(expand("/t/%h/r%r.%p-%q{PW_TEST_JOB}-100%%"), 0);
	snprintf(want, sizeof want, "/t/%s/r2.%ld-job-41.a_b+c-100%%", host, (long)getpid());
	assert_string_equal(got, want);
	assert_int_equal(expand("plain/dir"), 0);
	assert_string_equal(got, "plain/dir");
	clear_ranks();
	unsetenv("PW_TEST_JOB");
}

static void unset_values_are_none(void **state)
{
	(void)state;
	clear_ranks();
	unsetenv("PW_TEST_UNSET");
	setenv("PW_TEST_EMPTY", "", 1);
	assert_int_equal(expand("out/rank%r/%q{PW_TEST_UNSET}/%q{PW_TEST_EMPTY}"), 0);
	assert_string_equal(got, "out/ranknone/none/none");
	unsetenv("PW_TEST_EMPTY");
}

static void refuses_values_that_leave_the_path(void **state)
{
	(void)state;
	static const char *const evil[] = {"../etc", "..",    ".", "a/b", "/abs", "x y",
	                                   "a\nb",   "tab\t", "é", "a:b", "$HOME"};
	for (size_t i = 0; i < sizeof evil / sizeof *evil; i++) {
		setenv("PW_TEST_EVIL", evil[i], 1);
		assert_int_equal(expand("/t/%q{PW_TEST_EVIL}"), -1);
		assert_non_null(strstr(err, "%q{PW_TEST_EVIL}"));
		assert_non_null(strstr(err, "not a plain name"));
		clear_ranks();
		setenv("RANK", evil[i], 1);
		assert_int_equal(expand("/t/rank%r"), -1);
		assert_non_null(strstr(err, "%r (the rank)"));
	}
	clear_ranks();
	unsetenv("PW_TEST_EVIL");
}

static void refuses_malformed_templates(void **state)
{
	(void)state;
	static const char *const bad[] = {"a%",     "a%x",  "%q",      "%qVAR", "%q{}",
	                                  "%q{1A}", "%q{A", "%q{A-B}", "%P"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		assert_int_equal(pw_outname_check(bad[i], err, sizeof err), -1);
		assert_non_null(strstr(err, bad[i]));
		assert_int_equal(expand(bad[i]), -1);
	}
	assert_int_equal(pw_outname_check("%p%h%r%q{A_1}%%", err, sizeof err), 0);
}

static void refuses_what_does_not_fit(void **state)
{
	(void)state;
	char small[8];
	assert_int_equal(pw_outname_expand("abcdefgh", small, sizeof small, err, sizeof err), -1);
	assert_non_null(strstr(err, "more than 7 bytes"));
	assert_int_equal(pw_outname_expand("abcdefg", small, sizeof small, err, sizeof err), 0);
	assert_string_equal(small, "abcdefg");
}

static void rank_lists(void **state)
{
	(void)state;
	assert_int_equal(pw_ranks_check("0,2-3,8", err, sizeof err), 0);
	assert_true(pw_ranks_has("0,2-3,8", "0"));
	assert_false(pw_ranks_has("0,2-3,8", "1"));
	assert_true(pw_ranks_has("0,2-3,8", "2"));
	assert_true(pw_ranks_has("0,2-3,8", "3"));
	assert_false(pw_ranks_has("0,2-3,8", "4"));
	assert_true(pw_ranks_has("0,2-3,8", "8"));
	assert_false(pw_ranks_has("0,2-3,8", NULL)); /* no rank: in no list */
	assert_false(pw_ranks_has("0-9", "x"));
	assert_false(pw_ranks_has("0-9", "3a"));
	assert_false(pw_ranks_has("0-9", ""));
	assert_true(pw_ranks_has("2147483647", "2147483647"));
	static const char *const bad[] = {"",   ",",   "1,",   ",1",  "a",         "1-",
	                                  "-1", "3-1", "1--2", "1 2", "2147483648"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		assert_int_equal(pw_ranks_check(bad[i], err, sizeof err), -1);
		assert_true(err[0] != 0);
		assert_false(pw_ranks_has(bad[i], "1"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rank_from_each_launcher),
	    cmocka_unit_test(expands_every_escape),
	    cmocka_unit_test(unset_values_are_none),
	    cmocka_unit_test(refuses_values_that_leave_the_path),
	    cmocka_unit_test(refuses_malformed_templates),
	    cmocka_unit_test(refuses_what_does_not_fit),
	    cmocka_unit_test(rank_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

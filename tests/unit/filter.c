/*
 * Linked into every unit test: PW_TEST=pattern runs only the cmocka tests
 * whose name matches the pattern (make test T=test_rules:peer_enable*).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>

__attribute__((constructor)) static void pw_test_filter(void)
{
	const char *pattern = getenv("PW_TEST");
	if (pattern && *pattern)
		cmocka_set_test_filter(pattern);
}

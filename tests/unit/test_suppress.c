/*
 * Suppressions: the file's errors with their line numbers, what loads, the
 * glob against fnmatch, and every kind of match with a non-match beside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/pw.h"
#include "core/stack.h"
#include "rules/suppress.h"

static char path[128];

static void write_file(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Loads `text`; returns what pw_suppress_load returned, err in err. */
static int load(const char *text, char *err, size_t errlen)
{
	write_file(text, strlen(text));
	return pw_suppress_load(path, false, err, errlen);
}

static void load_ok(const char *text)
{
	char err[600];
	int rc = load(text, err, sizeof err);
	if (rc)
		fail_msg("unexpected error: %s", err);
	assert_string_equal(err, "");
}

/* Expects the load to fail with exactly "PATH:<line>: <msg>". */
static void load_fails(const char *text, size_t len, int line, const char *msg)
{
	char err[600], want[600];
	write_file(text, len);
	assert_int_equal(pw_suppress_load(path, false, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:%d: %s", path, line, msg);
	assert_string_equal(err, want);
}

#define FAILS(text, line, msg) load_fails(text, sizeof text - 1, line, msg)

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "/tmp/pw-unit-suppress.%d", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	pw_suppress_free();
	return 0;
}

static void errors_name_the_line(void **state)
{
	(void)state;
	FAILS("rule=a\nfoo=bar\n", 2, "unknown key 'foo' (expected rule, api or stack)");
	FAILS("\n\n# comment\nrule=a api=x\n  api=y\n", 5, "missing rule=");
	FAILS("rule=a api=x stack=...\napi=y stack=z # rule=w\n", 2, "missing rule=");
	FAILS("rule=\n", 1, "rule= has an empty value");
	FAILS("rule=a\n\nrule=b api=\n", 3, "api= has an empty value");
	FAILS("rule=a stack=\n", 1, "stack= has an empty value");
	FAILS("rule=a stack=x;;y\n", 1, "stack= frame 2 is empty");
	FAILS("rule=a stack=x;\n", 1, "stack= frame 2 is empty");
	FAILS("rule=a stack=;x\n", 1, "stack= frame 1 is empty");
	FAILS("rule=a rule=b\n", 1, "rule= given twice");
	FAILS("rule=a api=b api=c\n", 1, "api= given twice");
	FAILS("rule=a stack=x stack=y\n", 1, "stack= given twice");
	FAILS("rule=a cuMemcpyPeer\n", 1, "expected key=value, found 'cuMemcpyPeer'");
	FAILS("rule=a =b\n", 1, "unknown key '' (expected rule, api or stack)");
	FAILS("RULE=a\n", 1, "unknown key 'RULE' (expected rule, api or stack)");
	FAILS("rule=a[bc\n", 1, "rule= pattern 'a[bc' has a '[' without its ']'");
	FAILS("rule=a api=x\\\n", 1, "api= pattern 'x\\' ends with a lone '\\'");
	FAILS("rule=a stack=...;x[[:alpha:]]\n", 1,
	      "stack= frame pattern 'x[[:alpha:]]' has a character class, which is not supported");
	FAILS("# one\nrule=a\nrule=b\x01\nrule=c\0d\n", 4, "NUL byte in the line");
	/* no trailing newline, CR LF: still parsed, errors still found */
	FAILS("rule=a\r\nbad\r\n", 2, "expected key=value, found 'bad'");
	FAILS("rule=a\nrule=b oops", 2, "expected key=value, found 'oops'");
}

static void error_messages_are_bounded(void **state)
{
	(void)state;
	char err[24];
	write_file("x\n", 2);
	assert_int_equal(pw_suppress_load(path, false, err, sizeof err), -1);
	assert_int_equal(strlen(err), sizeof err - 1);
	assert_memory_equal(err, path, sizeof err - 1);
	write_file("x\n", 2);
	assert_int_equal(pw_suppress_load(path, false, NULL, 0), -1);
}

static void long_lines(void **state)
{
	(void)state;
	size_t cap = 3 * PW_SUPPRESS_MAX_LINE;
	char *text = malloc(cap);
	assert_non_null(text);
	/* 4096 bytes: fine, with or without its CR */
	int n = snprintf(text, cap, "# a comment\nrule=");
	memset(text + n, 'a', PW_SUPPRESS_MAX_LINE - 5);
	n += PW_SUPPRESS_MAX_LINE - 5;
	n += snprintf(text + n, cap - (size_t)n, "\nrule=b\n");
	write_file(text, (size_t)n);
	char err[600];
	assert_int_equal(pw_suppress_load(path, false, err, sizeof err), 0);
	const char *t;
	int line;
	assert_true(pw_suppress_entry(0, &t, &line, NULL));
	assert_int_equal(strlen(t), PW_SUPPRESS_MAX_LINE);
	assert_int_equal(line, 2);
	/* 4097 bytes on line 3 */
	n = snprintf(text, cap, "rule=a\n\nrule=");
	memset(text + n, 'a', PW_SUPPRESS_MAX_LINE - 4);
	n += PW_SUPPRESS_MAX_LINE - 4;
	n += snprintf(text + n, cap - (size_t)n, "\n");
	load_fails(text, (size_t)n, 3, "line longer than 4096 bytes");
	/* a line that never ends */
	n = snprintf(text, cap, "rule=a\n");
	memset(text + n, ' ', cap - (size_t)n);
	load_fails(text, cap, 2, "line longer than 4096 bytes");
	free(text);
}

static void at_most_1000_entries(void **state)
{
	(void)state;
	size_t cap = 40 * 1100;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t n = (size_t)snprintf(text, cap, "# header\n\n");
	for (int i = 0; i < PW_SUPPRESS_MAX_ENTRIES; i++)
		n += (size_t)snprintf(text + n, cap - n, "rule=r%d\n# c\n", i);
	write_file(text, n);
	char err[600];
	assert_int_equal(pw_suppress_load(path, false, err, sizeof err), 0);
	assert_true(pw_suppress_entry(PW_SUPPRESS_MAX_ENTRIES - 1, NULL, NULL, NULL));
	assert_false(pw_suppress_entry(PW_SUPPRESS_MAX_ENTRIES, NULL, NULL, NULL));
	n += (size_t)snprintf(text + n, cap - n, "\nrule=one-too-many\n");
	/* 2 header lines, 2 lines per entry, a blank line */
	load_fails(text, n, 2 + 2 * PW_SUPPRESS_MAX_ENTRIES + 2, "more than 1000 suppressions");
	free(text);
}

static void at_most_64_frame_patterns(void **state)
{
	(void)state;
	char text[512];
	int n = snprintf(text, sizeof text, "rule=a stack=f0");
	for (int i = 1; i < PW_SUPPRESS_MAX_FRAMES; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, ";f%d", i);
	load_ok(text);
	snprintf(text + n, sizeof text - (size_t)n, ";...\n");
	load_fails(text, strlen(text), 1, "stack= has 65 frame patterns; at most 64 are allowed");
}

static void files_that_cannot_be_read(void **state)
{
	(void)state;
	char err[600], want[600];
	char missing[160];
	snprintf(missing, sizeof missing, "%s.missing", path);
	assert_int_equal(pw_suppress_load(missing, false, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:0: cannot open: No such file or directory", missing);
	assert_string_equal(err, want);
	assert_int_equal(pw_suppress_load("/tmp", false, err, sizeof err), -1);
	assert_string_equal(err, "/tmp:0: cannot read: Is a directory");
	/* No file: nothing loaded, no error. */
	assert_int_equal(pw_suppress_load(NULL, false, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_false(pw_suppress_entry(0, NULL, NULL, NULL));
	if (geteuid() != 0) {
		write_file("rule=a\n", 7);
		chmod(path, 0);
		assert_int_equal(pw_suppress_load(path, false, err, sizeof err), -1);
		snprintf(want, sizeof want, "%s:0: cannot open: Permission denied", path);
		assert_string_equal(err, want);
		chmod(path, 0600);
	}
}

static void what_loads(void **state)
{
	(void)state;
	load_ok("# peerwatch suppressions\n"
	        "\n"
	        "   \t\n"
	        "  # indented comment\n"
	        "rule=ipc.leak\n"
	        "\trule=copy.peer.no-peer-access   api=cuMemcpyPeer*\t# staged copies are fine here\r\n"
	        "stack=...;libnccl.so* rule=peer.enable.twice\n"
	        "rule=managed.*#not-a-comment stack=init_buffers;...");
	const char *t;
	int line;
	uint64_t hits;
	assert_true(pw_suppress_entry(0, &t, &line, &hits));
	assert_string_equal(t, "rule=ipc.leak");
	assert_int_equal(line, 5);
	assert_int_equal(hits, 0);
	assert_true(pw_suppress_entry(1, &t, &line, NULL));
	assert_string_equal(t, "rule=copy.peer.no-peer-access   api=cuMemcpyPeer*");
	assert_int_equal(line, 6);
	assert_true(pw_suppress_entry(2, &t, &line, NULL));
	assert_string_equal(t, "stack=...;libnccl.so* rule=peer.enable.twice");
	assert_int_equal(line, 7);
	assert_true(pw_suppress_entry(3, &t, &line, NULL));
	assert_string_equal(t, "rule=managed.*#not-a-comment stack=init_buffers;...");
	assert_int_equal(line, 8);
	assert_false(pw_suppress_entry(4, &t, &line, NULL));
	assert_false(pw_suppress_entry(-1, &t, &line, NULL));
	assert_true(pw_suppress_wants_stack());
	load_ok("rule=a api=b\nrule=c\nrule=d api=e\n");
	assert_false(pw_suppress_wants_stack());
	load_ok("");
	assert_false(pw_suppress_entry(0, NULL, NULL, NULL));
	assert_false(pw_suppress_match_names("a", "b", NULL, NULL, 0));
}

static void a_bad_file_keeps_what_was_loaded(void **state)
{
	(void)state;
	load_ok("rule=kept\n");
	FAILS("rule=new\nbad\n", 2, "expected key=value, found 'bad'");
	const char *t;
	assert_true(pw_suppress_entry(0, &t, NULL, NULL));
	assert_string_equal(t, "rule=kept");
	assert_false(pw_suppress_entry(1, &t, NULL, NULL));
	assert_true(pw_suppress_match_names("kept", "", NULL, NULL, 0));
	pw_suppress_free();
	assert_false(pw_suppress_match_names("kept", "", NULL, NULL, 0));
	assert_false(pw_suppress_entry(0, &t, NULL, NULL));
	assert_int_equal(pw_suppress_count(), 0);
}

static void glob_is_fnmatch(void **state)
{
	(void)state;
	static const char *const pats[] = {"",          "*",           "?",
	                                   "a",         "a*",          "*a",
	                                   "a*b",       "*a*b*",       "a?c",
	                                   "a**c",      "[abc]",       "[!abc]",
	                                   "[^abc]",    "[a-c]x",      "[]]",
	                                   "[]a]",      "[!]]",        "[a-]",
	                                   "[-a]",      "[\\]]",       "[\\-x]",
	                                   "\\*",       "\\?a",        "a\\b",
	                                   "*.so.*",    "libnccl.so*", "cuMemcpy*Peer*",
	                                   "managed.*", "*[0-9]",      "[z-a]",
	                                   "*a*a*a*b",  "[a-cx-z]*",   "[]-a]",
	                                   "a[b",       "[",           "*[",
	                                   "?*?",       "***",         "[[]",
	                                   "[!-]",      "?.so.?",      "?",
	                                   ".*",        "*/*",         "?/?"};
	/* the names, '|'-separated; the first is "" */
	static const char strs[] =
	    "|a|b|abc|ab|acb|aXc|a]|]|-|*|?a|ab|x|libnccl.so.2|libnccl.so|cuMemcpyPeerAsync|"
	    "cuMemcpy3DPeer|managed.advise.unaligned|managed|abc9|aaaaaaab|aaaaaaa|[|a[b|[x|"
	    "\\|zx|cx|[]|a.so.1|^|.|.a|a/b|/|x.so.1";
	for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
		for (const char *p = strs; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL) {
			char str[64];
			size_t len = strcspn(p, "|");
			assert_true(len < sizeof str);
			memcpy(str, p, len);
			str[len] = '\0';
			bool want = fnmatch(pats[i], str, 0) == 0;
			if (pw_glob_match(pats[i], str) != want)
				fail_msg("glob '%s' on '%s': fnmatch says %d", pats[i], str, want);
		}
	}
}

static void glob_time_is_bounded(void **state)
{
	(void)state;
	char s[4097], p[64];
	memset(s, 'a', sizeof s - 1);
	s[sizeof s - 1] = '\0';
	snprintf(p, sizeof p, "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b");
	assert_false(pw_glob_match(p, s)); /* exponential with naive backtracking */
	s[sizeof s - 2] = 'b';
	assert_true(pw_glob_match(p, s));
}

#define NFR(a) ((int)(sizeof(a) / sizeof *(a)))

/* A finding's frames, innermost first: NCCL called the API, for the application. */
static const char *const fn[] = {"ncclInternal", "", "init_buffers", "main", "__libc_start_main"};
static const char *const mod[] = {"libnccl.so.2", "libnccl.so.2", "app", "app", "libc.so.6"};
/* Another: the application called the API directly. */
static const char *const fn2[] = {"init_buffers", "main", "__libc_start_main"};
static const char *const mod2[] = {"app", "app", "libc.so.6"};

static bool m(const char *rule, const char *api, const char *const *f, const char *const *mo, int n)
{
	return pw_suppress_match_names(rule, api, f, mo, n);
}

static void by_rule(void **state)
{
	(void)state;
	load_ok("rule=ipc.leak\nrule=managed.*\nrule=peer.?nable.twice\n");
	assert_true(m("ipc.leak", "", NULL, NULL, 0));
	assert_true(m("ipc.leak", "cuIpcOpenMemHandle", fn, mod, NFR(fn)));
	assert_true(m("ipc.leak", NULL, NULL, NULL, 0));
	assert_false(m("ipc.leak2", "", NULL, NULL, 0));
	assert_false(m("ipc.lea", "", NULL, NULL, 0));
	assert_false(m("IPC.LEAK", "", NULL, NULL, 0));
	assert_true(m("managed.advise.unaligned", "cuMemAdvise", NULL, NULL, 0));
	assert_true(m("managed.", "", NULL, NULL, 0));
	assert_false(m("managed", "", NULL, NULL, 0));
	assert_false(m("ipc.managed.x", "", NULL, NULL, 0));
	assert_true(m("peer.enable.twice", "", NULL, NULL, 0));
	assert_false(m("peer.eenable.twice", "", NULL, NULL, 0));
	assert_false(m(NULL, "", NULL, NULL, 0));
}

static void by_api(void **state)
{
	(void)state;
	load_ok("rule=copy.peer.no-peer-access api=cuMemcpyPeer*\nrule=ipc.* api=\\*\n");
	assert_true(m("copy.peer.no-peer-access", "cuMemcpyPeer", NULL, NULL, 0));
	assert_true(m("copy.peer.no-peer-access", "cuMemcpyPeerAsync_ptsz", NULL, NULL, 0));
	assert_false(m("copy.peer.no-peer-access", "cuMemcpy3DPeer", NULL, NULL, 0));
	assert_false(m("copy.peer.no-peer-access", "cuMemcpy", NULL, NULL, 0));
	assert_false(m("copy.peer.no-peer-access", NULL, NULL, NULL, 0));
	assert_false(m("copy.peer.device-mismatch", "cuMemcpyPeer", NULL, NULL, 0));
	assert_true(m("ipc.leak", "*", NULL, NULL, 0));
	assert_false(m("ipc.leak", "cuIpcOpenMemHandle", NULL, NULL, 0));
}

static void by_stack(void **state)
{
	(void)state;
	/* each case alone, so that no other entry can answer for it */
	load_ok("rule=peer.enable.twice stack=...;libnccl.so*\n");
	assert_true(m("peer.enable.twice", "", fn, mod, NFR(fn)));
	assert_false(m("peer.enable.twice", "", fn2, mod2, NFR(fn2)));
	assert_false(m("peer.enable.twice", "", NULL, NULL, 0)); /* no stack */
	assert_false(m("peer.enable.self", "", fn, mod, NFR(fn)));

	/* anchored at the innermost frame */
	load_ok("rule=managed.* stack=init_buffers;...\n");
	assert_true(m("managed.advise.unaligned", "", fn2, mod2, NFR(fn2)));
	assert_false(m("managed.advise.unaligned", "", fn, mod, NFR(fn)));
	load_ok("rule=x stack=init_buffers\n"); /* a prefix: the outer frames need not be named */
	assert_true(m("x", "", fn2, mod2, NFR(fn2)));
	assert_false(m("x", "", fn, mod, NFR(fn)));

	/* in order, with gaps */
	load_ok("rule=x stack=...;init_buffers;main\n");
	assert_true(m("x", "", fn, mod, NFR(fn)));
	assert_true(m("x", "", fn2, mod2, NFR(fn2)));
	load_ok("rule=x stack=...;main;init_buffers\n");
	assert_false(m("x", "", fn, mod, NFR(fn)));
	load_ok("rule=x stack=...;libnccl.so.2;...;main;...\n");
	assert_true(m("x", "", fn, mod, NFR(fn)));
	assert_false(m("x", "", fn2, mod2, NFR(fn2)));

	/* adjacent frames, the unnamed one matched by its module */
	load_ok("rule=x stack=ncclInternal;libnccl.so.2;init_buffers\n");
	assert_true(m("x", "", fn, mod, NFR(fn)));
	load_ok("rule=x stack=ncclInternal;init_buffers\n");
	assert_false(m("x", "", fn, mod, NFR(fn)));

	/* function or module, both globs */
	load_ok("rule=x stack=app\n");
	assert_true(m("x", "", fn2, mod2, NFR(fn2)));
	assert_false(m("x", "", fn, mod, NFR(fn)));
	load_ok("rule=x stack=?nit_buf*;main\n");
	assert_true(m("x", "", fn2, mod2, NFR(fn2)));
	assert_false(m("x", "", fn, mod, NFR(fn)));
	load_ok("rule=x stack=*;*;*;*;*\n");
	assert_true(m("x", "", fn, mod, NFR(fn)));
	assert_false(m("x", "", fn2, mod2, NFR(fn2))); /* 3 frames, not 5 */
	load_ok("rule=x stack=ncclI*;...;__libc_start_main;libc.so.6\n");
	assert_false(m("x", "", fn, mod, NFR(fn))); /* more patterns than frames left */
	load_ok("rule=x stack=ncclI*;...;__libc_start_main\n");
	assert_true(m("x", "", fn, mod, NFR(fn)));

	/* `...` alone: any stack, the empty one too */
	load_ok("rule=x stack=...\n");
	assert_true(m("x", "", NULL, NULL, 0));
	assert_true(m("x", "", fn, mod, NFR(fn)));
	assert_false(m("y", "", fn, mod, NFR(fn)));
	load_ok("rule=x stack=...;...;...\n");
	assert_true(m("x", "", fn2, mod2, 1));
}

static void all_keys_together_and_counts(void **state)
{
	(void)state;
	uint64_t before = pw_suppress_count();
	load_ok("rule=copy.* api=cuMemcpyPeer* stack=...;libnccl.so*\n"
	        "rule=copy.*\n");
	assert_true(m("copy.peer.null", "cuMemcpyPeerAsync", fn, mod, NFR(fn)));
	assert_true(m("copy.peer.null", "cuMemcpyPeer", fn, mod, NFR(fn)));
	assert_true(m("copy.peer.null", "cuMemcpyPeer", fn2, mod2, NFR(fn2))); /* the second entry */
	assert_true(m("copy.peer.null", "cuMemcpy3DPeer", fn, mod, NFR(fn)));  /* the second entry */
	assert_false(m("ipc.leak", "cuMemcpyPeer", fn, mod, NFR(fn)));
	uint64_t hits;
	assert_true(pw_suppress_entry(0, NULL, NULL, &hits));
	assert_int_equal(hits, 2);
	assert_true(pw_suppress_entry(1, NULL, NULL, &hits));
	assert_int_equal(hits, 2);
	assert_int_equal(pw_suppress_count() - before, 4);
	/* a forked child starts counting again */
	pw_suppress_reset_count();
	assert_int_equal(pw_suppress_count(), 0);
	assert_true(pw_suppress_entry(0, NULL, NULL, &hits));
	assert_int_equal(hits, 0);
	assert_true(pw_suppress_entry(1, NULL, NULL, &hits));
	assert_int_equal(hits, 0);
	assert_true(m("copy.peer.null", "x", NULL, NULL, 0));
	assert_int_equal(pw_suppress_count(), 1);
}

static void frame_matching_is_bounded(void **state)
{
	(void)state;
	const char *f[PW_STACK_MAX + 5], *mo[PW_STACK_MAX + 5];
	for (int i = 0; i < PW_STACK_MAX + 5; i++) {
		f[i] = "x";
		mo[i] = "m";
	}
	char text[512];
	int n = snprintf(text, sizeof text, "rule=r stack=...");
	for (int i = 0; i < 30; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, ";x;...");
	snprintf(text + n, sizeof text - (size_t)n, ";y\n");
	load_ok(text); /* 2^30 ways to fail with naive backtracking */
	assert_false(m("r", "", f, mo, PW_STACK_MAX));
	f[PW_STACK_MAX - 1] = "y";
	assert_true(m("r", "", f, mo, PW_STACK_MAX));
	/* frames past PW_STACK_MAX are not looked at */
	f[PW_STACK_MAX - 1] = "x";
	f[PW_STACK_MAX + 2] = "y";
	load_ok("rule=r stack=...;y\n");
	assert_false(m("r", "", f, mo, PW_STACK_MAX + 5));
	f[PW_STACK_MAX - 1] = "y";
	assert_true(m("r", "", f, mo, PW_STACK_MAX + 5));
}

/* With real return addresses, names come from pw_stack_names. */
static void real_addresses(void **state)
{
	(void)state;
	const char *prog = program_invocation_short_name;
	uintptr_t ips[2] = {(uintptr_t)getpid + 1, (uintptr_t)real_addresses + 1};
	char text[256];
	snprintf(text, sizeof text, "rule=r stack=libc.so.6;%s\n", prog);
	load_ok(text);
	assert_true(pw_suppress_match("r", "", ips, 2));
	assert_false(pw_suppress_match("r", "", ips, 1)); /* the second frame is missing */
	assert_false(pw_suppress_match("r", "", NULL, 2));
	load_ok("rule=r stack=*getpid\n"); /* by function name */
	assert_true(pw_suppress_match("r", "", ips, 2));
	load_ok("rule=r stack=*getppid\n");
	assert_false(pw_suppress_match("r", "", ips, 2));
	snprintf(text, sizeof text, "rule=r stack=%s\n", prog); /* anchored: libc comes first */
	load_ok(text);
	assert_false(pw_suppress_match("r", "", ips, 2));
	snprintf(text, sizeof text, "rule=r stack=...;%s\n", prog);
	load_ok(text);
	assert_true(pw_suppress_match("r", "", ips, 2));
}

/* tests/suppressions.example, from the top of the tree (where make runs the tests). */
static void the_example_loads(void **state)
{
	(void)state;
	if (access("tests/suppressions.example", R_OK)) {
		print_message("tests/suppressions.example not here: run from the top of the tree\n");
		skip();
	}
	char err[600];
	if (pw_suppress_load("tests/suppressions.example", false, err, sizeof err))
		fail_msg("%s", err);
	int n = 0;
	while (pw_suppress_entry(n, NULL, NULL, NULL))
		n++;
	assert_int_equal(n, 7);
	assert_true(pw_suppress_wants_stack());
	assert_true(m("ipc.leak", NULL, NULL, NULL, 0));
	assert_true(m("copy.peer.no-peer-access", "cuMemcpyPeerAsync", fn2, mod2, NFR(fn2)));
	assert_true(m("peer.enable.twice", "cuCtxEnablePeerAccess", fn, mod, NFR(fn)));
	assert_false(m("peer.enable.twice", "cuCtxEnablePeerAccess", fn2, mod2, NFR(fn2)));
}

/* The default suppressions: after the file's entries, named, counted apart;
 * NCCL's teardown frees are taken, the same rule anywhere else is not. */
static void default_suppressions(void **state)
{
	(void)state;
	const char *nccl_fn[] = {"", "ncclCommDestroy", "main"};
	const char *nccl_mod[] = {"libnccl.so.2", "libnccl.so.2", "prog"};
	const char *app_fn[] = {"teardown", "main"};
	const char *app_mod[] = {"prog", "prog"};
	char err[600];

	/* off: the finding is reported */
	assert_int_equal(pw_suppress_load(NULL, false, err, sizeof err), 0);
	assert_false(pw_suppress_match_names("ipc.free-while-open", "cuMemFree", nccl_fn, nccl_mod, 3));

	/* on, alone */
	assert_int_equal(pw_suppress_load(NULL, true, err, sizeof err), 0);
	pw_suppress_reset_count();
	assert_true(pw_suppress_entry(0, NULL, NULL, NULL));
	assert_string_equal(pw_suppress_entry_name(0), "nccl-legacy-ipc-teardown");
	assert_true(pw_suppress_wants_stack_for("ipc.free-while-open"));
	assert_false(pw_suppress_wants_stack_for("peer.enable.twice"));
	assert_true(pw_suppress_match_names("ipc.free-while-open", "cuMemFree", nccl_fn, nccl_mod, 3));
	assert_false(pw_suppress_match_names("ipc.free-while-open", "cuMemFree", app_fn, app_mod, 2));
	assert_false(pw_suppress_match_names("ipc.leak", "cuMemFree", nccl_fn, nccl_mod, 3));
	assert_int_equal(pw_suppress_count(), 1);
	assert_int_equal(pw_suppress_count_default(), 1);
	int line = -1;
	uint64_t hits = 0;
	const char *text = NULL;
	assert_true(pw_suppress_entry(0, &text, &line, &hits));
	assert_int_equal(line, 0);
	assert_int_equal(hits, 1);
	assert_string_equal(text, "rule=ipc.free-while-open stack=...;libnccl.so*");

	/* with a file: its entries first, and they win */
	write_file("rule=ipc.free-*\n", 16);
	assert_int_equal(pw_suppress_load(path, true, err, sizeof err), 0);
	pw_suppress_reset_count();
	assert_null(pw_suppress_entry_name(0));
	assert_string_equal(pw_suppress_entry_name(1), "nccl-legacy-ipc-teardown");
	assert_true(pw_suppress_match_names("ipc.free-while-open", "cuMemFree", nccl_fn, nccl_mod, 3));
	assert_int_equal(pw_suppress_count(), 1);
	assert_int_equal(pw_suppress_count_default(), 0);
	pw_suppress_reset_count();
	assert_int_equal(pw_suppress_count(), 0);

	/* the table peerwatch-analyze lists */
	const char *name, *library, *why;
	assert_true(pw_suppress_default(0, &name, &text, &library, &why));
	assert_string_equal(name, "nccl-legacy-ipc-teardown");
	assert_string_equal(library, "libnccl.so");
	assert_true(strlen(why) > 0);
	assert_false(pw_suppress_default(1000, &name, &text, &library, &why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(errors_name_the_line),
	    cmocka_unit_test(error_messages_are_bounded),
	    cmocka_unit_test(long_lines),
	    cmocka_unit_test(at_most_1000_entries),
	    cmocka_unit_test(at_most_64_frame_patterns),
	    cmocka_unit_test(files_that_cannot_be_read),
	    cmocka_unit_test(what_loads),
	    cmocka_unit_test(a_bad_file_keeps_what_was_loaded),
	    cmocka_unit_test(glob_is_fnmatch),
	    cmocka_unit_test(glob_time_is_bounded),
	    cmocka_unit_test(by_rule),
	    cmocka_unit_test(by_api),
	    cmocka_unit_test(by_stack),
	    cmocka_unit_test(all_keys_together_and_counts),
	    cmocka_unit_test(frame_matching_is_bounded),
	    cmocka_unit_test(real_addresses),
	    cmocka_unit_test(the_example_loads),
	    cmocka_unit_test(default_suppressions),
	};
	return cmocka_run_group_tests_name("suppress", tests, setup, teardown);
}

/*
 * The IPC sink's records (analyzers/model/ipcsink.c): for check
 * (ipc_report_findings_only) a process's repeated exports of one handle and
 * pointer are one record and its failed exports none, and in a file whose
 * opens and closes are in time order a close is folded into its open, with
 * the findings of the sink that keeps every call; the ipc command keeps
 * every call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "model/ipclife.h"
#include "read/files.h"
#include "read/reader.h"

static char dir[64];

static const char handle[] = "5057534d34120000000010000000000001000000000000000000000000000000"
                             "00000000000000000000000000000000000000000000000000000000000000aa";

static void call(FILE *f, int seq, long t, const char *api, const char *op, int ret, const char *args)
{
	fprintf(f,
	        "{\"type\":\"call\",\"seq\":%d,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"%s\",\"variant\":\"\","
	        "\"family\":\"ipc\",\"op\":\"%s\",\"t_ns\":%ld,\"dur_ns\":5,\"ret\":%d,\"ret_name\":\"%s\","
	        "\"args\":{%s}}\n",
	        seq, api, op, t, ret, ret ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_SUCCESS", args);
}

/* A driver call nested in the runtime call `parent`, written before it as
 * the library writes a nested call. */
static void nested(FILE *f, int seq, int parent, long t, const char *api, const char *op, const char *args)
{
	fprintf(f,
	        "{\"type\":\"call\",\"seq\":%d,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"%s\",\"variant\":\"\","
	        "\"family\":\"ipc\",\"op\":\"%s\",\"t_ns\":%ld,\"dur_ns\":5,\"ret\":0,"
	        "\"ret_name\":\"CUDA_SUCCESS\",\"parent\":%d,\"args\":{%s}}\n",
	        seq, api, op, t, parent, args);
}

static FILE *trace(int pid)
{
	char *p = xasprintf("%s/p.%d.pw.jsonl", dir, pid);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	free(p);
	fprintf(f,
	        "{\"type\":\"header\",\"format\":\"peerwatch\",\"version\":1,\"pid\":%d,\"ppid\":1,"
	        "\"host\":\"h\",\"rank\":0,\"argv\":[\"/bin/prog\"],\"t0_mono_ns\":100,\"t0_real_ns\":200,"
	        "\"options\":{\"mode\":\"warn\"},\"vendors\":{\"cuda\":{\"library\":\"libcuda.so.1\","
	        "\"driver_version\":13000}},\"modules\":[]}\n",
	        pid);
	return f;
}

static void end(FILE *f, int events)
{
	fprintf(f,
	        "{\"type\":\"footer\",\"events\":%d,\"dropped\":0,\"t_end_ns\":9000,\"reason\":\"exit\"}\n",
	        events);
	fclose(f);
}

/* A new directory, and the args of the export (of 0x7f0000000000) and
 * of an open (that returned 0x7f1000000000) of the handle. */
static bool new_dir(char *exp, char *open1, size_t len)
{
	snprintf(dir, sizeof dir, "/tmp/pw-test-ipc.XXXXXX");
	if (!mkdtemp(dir))
		return false;
	snprintf(exp, len, "\"handle\":\"%s\",\"ptr\":\"0x7f0000000000\",\"ptr_dev\":0", handle);
	snprintf(open1, len, "\"handle\":\"%s\",\"ptr\":\"0x7f1000000000\",\"ptr_dev\":1", handle);
	return true;
}

static int make_dir(void **state)
{
	(void)state;
	char exp[400], open1[400];
	if (!new_dir(exp, open1, sizeof exp))
		return -1;
	/* the exporter: the same export four times (the earliest by time is
	 * seq 2), one refused, then the free */
	FILE *f = trace(1);
	call(f, 1, 3000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
	call(f, 2, 1000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
	call(f, 3, 2000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
	call(f, 4, 2500, "cuIpcGetMemHandle", "ipc_export", 1, exp);
	call(f, 5, 4000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
	call(f, 6, 6000, "cuMemFree", "free", 0, "\"ptr\":\"0x7f0000000000\",\"ptr_dev\":0");
	end(f, 6);
	/* the importer: open before the free and never closed (free-while-open,
	 * leak), and open after it (stale) */
	f = trace(2);
	call(f, 1, 1500, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 2, 7000, "cuIpcOpenMemHandle", "ipc_open", 1, open1);
	end(f, 2);
	return 0;
}

/* A new directory whose process 1 exports the handle at 1000 and frees
 * its memory at 6000, and the args of an open of it (open1). */
static bool exported_then_freed(char *open1, size_t len)
{
	char exp[400];
	if (!new_dir(exp, open1, len < sizeof exp ? len : sizeof exp))
		return false;
	FILE *f = trace(1);
	call(f, 1, 1000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
	call(f, 2, 6000, "cuMemFree", "free", 0, "\"ptr\":\"0x7f0000000000\",\"ptr_dev\":0");
	end(f, 2);
	return true;
}

/* Opens and closes of one pointer: a process that writes them in time
 * order, and one whose second thread's block came late (an open at 2500
 * written after a close at 3000), which ipc_derive matches by time: the
 * close at 3000 ends the open at 2500, the latest before it, not the one
 * at 1500 read before it. */
static int make_dir_closes(void **state)
{
	(void)state;
	char open1[400];
	const char *close1 = "\"ptr\":\"0x7f1000000000\"";
	if (!exported_then_freed(open1, sizeof open1))
		return -1;
	/* in time order: the close at 2000 ends the open at 1600 (the
	 * latest), the one at 6500 the open at 1500 (open at the free), the
	 * one at 7100 the stale open at 7000; the close at 7200 finds none
	 * open (stray); the open at 8000 is never closed */
	FILE *f = trace(2);
	call(f, 1, 1500, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 2, 1600, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 3, 2000, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	call(f, 4, 6500, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	call(f, 5, 7000, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 6, 7100, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	call(f, 7, 7200, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	call(f, 8, 8000, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	end(f, 8);
	/* out of order: by time the close at 3000 ends the open at 2500 and
	 * the close at 6500 the open at 1500, open at the free */
	f = trace(3);
	call(f, 1, 1500, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 3, 3000, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	call(f, 2, 2500, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 4, 6500, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	end(f, 4);
	return 0;
}

/* The runtime's opens and closes, each with the driver call nested in it
 * written first (a nested call ends before its parent): the nested ones
 * are not the event phase's, and the process's runtime calls are in
 * order.  The second importer's nested close names a parent the trace
 * does not have (a runtime call not traced): the event phase sees it,
 * the order test did not, and that file keeps its closes. */
static int make_dir_nested(void **state)
{
	(void)state;
	char open1[400];
	const char *close1 = "\"ptr\":\"0x7f1000000000\"";
	if (!exported_then_freed(open1, sizeof open1))
		return -1;
	for (int pid = 2; pid <= 3; pid++) {
		FILE *f = trace(pid);
		nested(f, 2, 1, 1510, "cuIpcOpenMemHandle", "ipc_open", open1);
		call(f, 1, 1500, "cudaIpcOpenMemHandle", "ipc_open", 0, open1);
		nested(f, 4, 3, 2010, "cuIpcCloseMemHandle", "ipc_close", close1);
		call(f, 3, 2000, "cudaIpcCloseMemHandle", "ipc_close", 0, close1);
		nested(f, 6, 5, 2510, "cuIpcOpenMemHandle", "ipc_open", open1);
		call(f, 5, 2500, "cudaIpcOpenMemHandle", "ipc_open", 0, open1);
		nested(f, 8, pid == 3 ? 99 : 7, 6510, "cuIpcCloseMemHandle", "ipc_close", close1);
		if (pid == 2)
			call(f, 7, 6500, "cudaIpcCloseMemHandle", "ipc_close", 0, close1);
		end(f, pid == 2 ? 8 : 7);
	}
	return 0;
}

static int remove_dir(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int r = getenv("PW_KEEP") ? 0 : system(cmd);
	free(cmd);
	return r;
}

/* The findings as text, one a line, after reading the directory. */
static char *read_ipc(bool findings_only, size_t *recs, size_t jobs)
{
	char *paths[] = {dir};
	struct pw_input in = {0};
	struct ipc_report r;
	ipc_init(&r);
	if (findings_only)
		ipc_report_findings_only(&r);
	assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
	struct pw_sink sink = {&ipc_ops, &r};
	struct pw_read_opts o = {.jobs = jobs, .quiet = true};
	assert_int_equal(pw_input_read(&in, &o, &sink, 1), PW_READ_OK);
	*recs = r.recs.len;
	ipc_derive(&r, &in);
	char *out = xstrdup("");
	for (size_t i = 0; i < r.findings.len; i++) {
		const struct ipc_finding *fd = vec_at(&r.findings, i);
		char *n = xasprintf("%s%s %zu %llu %s %s\n", out, fd->rule, fd->file,
		                    (unsigned long long)fd->seq, fd->api, fd->message);
		free(out);
		out = n;
	}
	ipc_free(&r);
	pw_input_free(&in);
	return out;
}

static void findings_only_keeps_first_exports(void **state)
{
	(void)state;
	size_t all, kept;
	for (size_t jobs = 1; jobs <= 2; jobs++) {
		char *want = read_ipc(false, &all, jobs), *got = read_ipc(true, &kept, jobs);
		assert_int_equal(all, 8);  /* every call */
		assert_int_equal(kept, 4); /* one export, the free, two opens */
		assert_string_equal(got, want);
		/* the free matched the earliest export (seq 2, at 1000): the open at
		 * 1500 was open at the free, the one at 7000 stale */
		assert_non_null(strstr(got, "ipc.free-while-open"));
		assert_non_null(strstr(got, "ipc.open.stale"));
		assert_non_null(strstr(got, "ipc.leak"));
		free(want);
		free(got);
	}
}

static void findings_only_folds_closes_in_order(void **state)
{
	(void)state;
	size_t all, kept;
	for (size_t jobs = 1; jobs <= 2; jobs++) {
		char *want = read_ipc(false, &all, jobs), *got = read_ipc(true, &kept, jobs);
		assert_int_equal(all, 14); /* every call */
		/* the export, the free; the ordered process's four opens and its
		 * stray close (three closes folded); all four calls of the other */
		assert_int_equal(kept, 11);
		assert_string_equal(got, want);
		/* the open at 1500 of each importer was open at the free, closed
		 * at 6500: in the one out of order by the match in time, which a
		 * match in the order read would give the open at 2500 instead */
		const char *at = "(opened at +500ns, closed at +5.50us)";
		const char *first = strstr(got, at);
		assert_non_null(first);
		assert_non_null(strstr(first + 1, at));
		assert_null(strstr(got, "opened at +1.50us"));
		assert_non_null(strstr(got, "ipc.open.stale 1 5 cuIpcOpenMemHandle"));
		assert_non_null(strstr(got, "ipc.leak 1 8 cuIpcOpenMemHandle"));
		free(want);
		free(got);
	}
}

static void findings_only_folds_nested_in_order(void **state)
{
	(void)state;
	size_t all, kept;
	for (size_t jobs = 1; jobs <= 2; jobs++) {
		char *want = read_ipc(false, &all, jobs), *got = read_ipc(true, &kept, jobs);
		/* the export, the free; the runtime's four calls of the first
		 * importer, and of the second its three and the close whose parent
		 * it lacks (the nested ones of recorded parents are not kept) */
		assert_int_equal(all, 10);
		/* the export, the free; the first importer's two opens (its two
		 * closes folded); the second's two opens and two closes */
		assert_int_equal(kept, 8);
		assert_string_equal(got, want);
		/* the open at 2500 of each was open at the free at 6000 */
		assert_non_null(strstr(got, "ipc.free-while-open"));
		free(want);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(findings_only_keeps_first_exports, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(findings_only_folds_closes_in_order, make_dir_closes, remove_dir),
	    cmocka_unit_test_setup_teardown(findings_only_folds_nested_in_order, make_dir_nested, remove_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

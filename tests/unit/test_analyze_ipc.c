/*
 * The IPC sink's records (analyzers/model/ipcsink.c): for check
 * (ipc_report_findings_only) a process's repeated exports of one handle and
 * pointer are one record and its failed exports none, and in a file whose
 * opens and closes are in time order a close is folded into its open, with
 * the findings of the sink that keeps every call (ipc_ops).  Read with
 * ipc_findings_ops (every pre-phase first), an open is decided as it ends
 * and kept only where a finding may name it: the same findings, from
 * generated runs of several processes too.  The ipc command's listing
 * (ipclist.c), which matches each file's calls on its own and sorts beyond
 * memory, lists what ipc_derive's placing does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "model/findings.h"
#include "model/ipclife.h"
#include "model/ipclist.h"
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

static FILE *trace_named(int pid, const char *suffix)
{
	char *p = xasprintf("%s/p.%d.pw.jsonl%s", dir, pid, suffix);
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

static FILE *trace(int pid)
{
	return trace_named(pid, "");
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

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How the directory is read: every call kept (the ipc command), for the
 * findings alone (check's records), or deciding the opens as they end
 * (check: ipc_findings_ops). */
enum mode { ALL, FINDINGS, DECIDING };

/* What a read let go of, and what it could not say. */
static size_t not_kept, unknown, no_export;

/* The findings as text, one a line, sorted, after reading the directory. */
static char *read_ipc_as(enum mode m, size_t *recs, size_t jobs)
{
	char *paths[] = {dir};
	struct pw_input in = {0};
	struct ipc_report r;
	ipc_init(&r);
	if (m != ALL)
		ipc_report_findings_only(&r);
	assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
	struct pw_sink sink = {m == DECIDING ? &ipc_findings_ops : &ipc_ops, &r};
	struct pw_read_opts o = {.jobs = jobs, .quiet = true};
	assert_int_equal(pw_input_read(&in, &o, &sink, 1), PW_READ_OK);
	*recs = r.recs.len;
	ipc_derive(&r, &in);
	not_kept = r.not_kept;
	unknown = r.unreachable_unknown;
	no_export = r.open_no_export;
	/* in a sorted order: which of a run's handles is derived first depends
	 * on the records kept (check sorts its findings) */
	char **lines = xcalloc(r.findings.len + 1, sizeof *lines);
	size_t len = 1;
	for (size_t i = 0; i < r.findings.len; i++) {
		const struct ipc_finding *fd = vec_at(&r.findings, i);
		lines[i] = xasprintf("%s %zu %llu %s %s\n", fd->rule, fd->file, (unsigned long long)fd->seq,
		                     fd->api, fd->message);
		len += strlen(lines[i]);
	}
	qsort(lines, r.findings.len, sizeof *lines, by_text);
	char *out = xmalloc(len), *at = out;
	for (size_t i = 0; i < r.findings.len; i++) {
		at = stpcpy(at, lines[i]);
		free(lines[i]);
	}
	*at = 0;
	free(lines);
	ipc_free(&r);
	pw_input_free(&in);
	return out;
}

static char *read_ipc(bool findings_only, size_t *recs, size_t jobs)
{
	return read_ipc_as(findings_only ? FINDINGS : ALL, recs, jobs);
}

/* The findings read deciding, which must be `want`'s; returns the records
 * kept. */
static size_t decided_as(const char *want, size_t jobs)
{
	size_t kept;
	char *got = read_ipc_as(DECIDING, &kept, jobs);
	assert_string_equal(got, want);
	free(got);
	return kept;
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
		assert_int_equal(decided_as(want, jobs), 4); /* both opens have findings */
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
		/* deciding: the open at 1600, closed at 2000 before the free, is
		 * named by no finding and let go */
		assert_int_equal(decided_as(want, jobs), 10);
		assert_int_equal(not_kept, 1);
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
		/* the first importer's open at 1500, closed at 2000, is let go */
		assert_int_equal(decided_as(want, jobs), 7);
		/* the open at 2500 of each was open at the free at 6000 */
		assert_non_null(strstr(got, "ipc.free-while-open"));
		free(want);
		free(got);
	}
}

/* ---- generated runs ---- */

static uint64_t rng;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

enum { NPROC = 5, STEPS = 90 };

struct lines {
	char *text[4 * STEPS];
	size_t n;
};

/* A call line as the library writes it; `parent` > 0: nested in that call. */
static void gen_call(struct lines *l, int seq, int parent, long t, const char *api, const char *op, int ret,
                     const char *args)
{
	char par[32] = "";
	if (parent > 0)
		snprintf(par, sizeof par, ",\"parent\":%d", parent);
	l->text[l->n++] = xasprintf(
	    "{\"type\":\"call\",\"seq\":%d,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"%s\",\"variant\":\"\","
	    "\"family\":\"ipc\",\"op\":\"%s\",\"t_ns\":%ld,\"dur_ns\":5,\"ret\":%d,\"ret_name\":\"%s\"%s,"
	    "\"cur_dev\":%u,\"args\":{%s}}\n",
	    seq, api, op, t, ret, ret ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_SUCCESS", par, rnd(2), args);
}

/* Handle a of process q (q == NPROC: of no traced process). */
static void gen_handle(char *out, size_t len, unsigned q, unsigned a)
{
	snprintf(out, len, "5057534d341200000000100000000000010000000000000000000000%08x%08x", q, a);
	memset(out + 72, '0', 56);
	out[128] = 0;
}

/* One process of a generated run: it exports its two handles (now and
 * then again), frees one now and then, opens the others' (and its own, and
 * one nobody exported), refused at times, the runtime's with the driver's
 * nested call written first, and closes some of its mappings. */
static void gen_process(struct lines *l, unsigned p)
{
	char args[400], h[160];
	unsigned long long open_ptr[STEPS];
	size_t n_open = 0;
	int seq = 1;
	long t = 1000 + (long)rnd(500);
	for (int step = 0; step < STEPS; step++, t += 100 + (long)rnd(50)) {
		unsigned k = rnd(100), a = rnd(2);
		if (k < 15) {
			/* now and then another's handle (the same bytes from two
			 * processes: the earliest export is the handle's) */
			gen_handle(h, sizeof h, rnd(6) ? p : rnd(NPROC), a);
			snprintf(args, sizeof args,
			         "\"handle\":\"%s\",\"ptr\":\"0x7f%02x%02x000000\",\"ptr_dev\":%u", h, p, a,
			         a);
			if (rnd(4) == 0) { /* the runtime's; now and then its parent is not in the trace */
				gen_call(l, seq + 1, rnd(8) ? seq : 9999, t + 2, "cuIpcGetMemHandle",
				         "ipc_export", 0, args);
				gen_call(l, seq, 0, t, "cudaIpcGetMemHandle", "ipc_export", 0, args);
				seq += 2;
			} else {
				gen_call(l, seq++, 0, t, "cuIpcGetMemHandle", "ipc_export", rnd(10) == 0,
				         args);
			}
		} else if (k < 20) {
			snprintf(args, sizeof args, "\"ptr\":\"0x7f%02x%02x000000\",\"ptr_dev\":0", p,
			         a + rnd(2));
			if (rnd(4) == 0) {
				gen_call(l, seq + 1, rnd(8) ? seq : 9999, t + 2, "cuMemFree", "free", 0,
				         args);
				gen_call(l, seq, 0, t, "cudaFree", "free", 0, args);
				seq += 2;
			} else {
				gen_call(l, seq++, 0, t, "cuMemFree", "free", 0, args);
			}
		} else if (k < 60) {
			unsigned q = rnd(NPROC + 1);
			gen_handle(h, sizeof h, q, a);
			unsigned long long ptr =
			    0x7e0000000000ull + ((unsigned long long)q << 28) + ((unsigned long long)a << 20);
			int ret = rnd(10) == 0;
			snprintf(args, sizeof args,
			         "\"ptr\":\"0x%llx\",\"ptr_dev\":%u,\"handle\":\"%s\",\"flags\":1", ptr, a,
			         h);
			if (rnd(3) == 0) { /* the runtime's, its driver call first */
				gen_call(l, seq + 1, seq, t + 2, "cuIpcOpenMemHandle", "ipc_open", ret, args);
				gen_call(l, seq, 0, t, "cudaIpcOpenMemHandle", "ipc_open", ret, args);
				seq += 2;
			} else {
				gen_call(l, seq++, 0, t, "cuIpcOpenMemHandle", "ipc_open", ret, args);
			}
			if (!ret)
				open_ptr[n_open++] = ptr;
		} else if (k < 90 && n_open) {
			size_t i = rnd((unsigned)n_open);
			snprintf(args, sizeof args, "\"ptr\":\"0x%llx\"", open_ptr[i]);
			int ret = rnd(20) == 0;
			gen_call(l, seq++, 0, t, "cuIpcCloseMemHandle", "ipc_close", ret, args);
			if (!ret)
				open_ptr[i] = open_ptr[--n_open];
		}
	}
}

/* Device lines: process p sees the two GPUs in its own order (process 4
 * writes none: its opens' reach cannot be known), and can or cannot
 * access one from the other. */
static void gen_devices(FILE *f, unsigned p, unsigned can)
{
	for (unsigned ord = 0; p != 4 && ord < 2; ord++)
		fprintf(
		    f,
		    "{\"type\":\"device\",\"vendor\":\"cuda\",\"ordinal\":%u,\"count\":2,\"uuid\":\"GPU-%c\","
		    "\"bus_id\":\"0000:%02u:00.0\",\"name\":\"G\",\"peers\":[{\"ordinal\":%u,\"can_access\":%"
		    "u,"
		    "\"link\":\"pcie\",\"nvlinks\":0,\"topology\":\"system\",\"p2p_read\":\"ok\"}]}\n",
		    ord, "ab"[(ord + p) % 2], 16 + (ord + p) % 2, 1 - ord, can);
}

/* A run of NPROC processes in a new directory, from `seed`: one process's
 * lines now and then out of time order (some of them swapped), one now
 * and then killed (.partial). */
static void gen_run(unsigned seed)
{
	snprintf(dir, sizeof dir, "/tmp/pw-test-ipc.XXXXXX");
	assert_non_null(mkdtemp(dir));
	rng = 0x9e3779b97f4a7c15ull * (seed + 1);
	unsigned can = rnd(2), shuffled = rnd(NPROC + 2), killed = rnd(2) ? 3 : NPROC;
	for (unsigned p = 0; p < NPROC; p++) {
		struct lines l = {.n = 0};
		gen_process(&l, p);
		for (size_t i = 1; p == shuffled && i < l.n; i += 7) {
			char *x = l.text[i];
			l.text[i] = l.text[i - 1];
			l.text[i - 1] = x;
		}
		FILE *f = trace_named(10 + (int)p, p == killed ? ".partial" : "");
		gen_devices(f, p, can);
		for (size_t i = 0; i < l.n; i++) {
			fputs(l.text[i], f);
			free(l.text[i]);
		}
		if (p == killed)
			fclose(f);
		else
			end(f, (int)l.n + (p != 4) * 2); /* the device lines count as events */
	}
}

static void deciding_as_derive(void **state)
{
	(void)state;
	size_t let_go = 0, kept_fewer = 0;
	for (unsigned seed = 0; seed < 24; seed++) {
		gen_run(seed);
		for (size_t jobs = 1; jobs <= 2; jobs++) {
			size_t all, kept;
			char *want = read_ipc_as(ALL, &all, jobs);
			size_t want_unknown = unknown, want_no_export = no_export;
			char *got = read_ipc_as(FINDINGS, &kept, jobs);
			assert_string_equal(got, want);
			free(got);
			size_t decided = decided_as(want, jobs);
			/* what ipc_derive counts, counted as an open is let go */
			assert_int_equal(unknown, want_unknown);
			assert_int_equal(no_export, want_no_export);
			assert_true(decided <= kept);
			let_go += not_kept;
			kept_fewer += decided < kept;
			free(want);
		}
		assert_int_equal(remove_dir(NULL), 0);
	}
	/* the runs have opens to let go, and in most of them some were */
	assert_true(let_go > 0);
	assert_true(kept_fewer > 24);
}

/* An exporter whose free is written before the export it follows (a
 * second thread's block came late): by time the export at 2000 comes
 * first and the free at 3000 ends it, so the open at 2500 closed at 3500
 * was open at the free and the one at 4000 is stale.  Its exports and frees
 * are not in order in its file, so its handle's opens are all kept. */
static int make_dir_late_export(void **state)
{
	(void)state;
	char exp[400], open1[400];
	const char *close1 = "\"ptr\":\"0x7f1000000000\"";
	if (!new_dir(exp, open1, sizeof exp))
		return -1;
	FILE *f = trace(1);
	call(f, 2, 3000, "cuMemFree", "free", 0, "\"ptr\":\"0x7f0000000000\",\"ptr_dev\":0");
	call(f, 1, 2000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
	end(f, 2);
	f = trace(2);
	call(f, 1, 2500, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 2, 3500, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	call(f, 3, 4000, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
	call(f, 4, 4100, "cuIpcCloseMemHandle", "ipc_close", 0, close1);
	end(f, 4);
	return 0;
}

static void late_export_keeps_its_opens(void **state)
{
	(void)state;
	for (size_t jobs = 1; jobs <= 2; jobs++) {
		size_t all;
		char *want = read_ipc_as(ALL, &all, jobs);
		assert_non_null(strstr(want, "ipc.free-while-open"));
		assert_non_null(strstr(want, "ipc.open.stale"));
		/* the export, the free, both opens */
		assert_int_equal(decided_as(want, jobs), 4);
		assert_int_equal(not_kept, 0);
		free(want);
	}
}

/* A process that closes an ACL key (a close without a pointer): no open
 * is decided, and the findings are the same. */
static void key_close_keeps_all(void **state)
{
	(void)state;
	gen_run(3);
	FILE *f = trace(30);
	char args[300], h[160];
	gen_handle(h, sizeof h, 0, 0);
	snprintf(args, sizeof args, "\"handle\":\"%s\"", h);
	call(f, 1, 5000, "cuIpcCloseMemHandle", "ipc_close", 0, args);
	end(f, 1);
	for (size_t jobs = 1; jobs <= 2; jobs++) {
		size_t all;
		char *want = read_ipc_as(ALL, &all, jobs);
		decided_as(want, jobs);
		assert_int_equal(not_kept, 0);
		free(want);
	}
}

/* ---- the listing (ipclist.c) against ipc_derive's placing ---- */

static void put_call(char **out, const char *lead, int file, unsigned long long seq, long long t, int op,
                     bool has_ptr, unsigned long long ptr, long long ret, long long ends)
{
	char of[32] = "";
	if (ends >= 0)
		snprintf(of, sizeof of, " ends %lld", ends);
	char *n = xasprintf("%s%s%d %llu %lld op%d ptr%d 0x%llx ret%lld%s\n", *out, lead, file, seq, t, op,
	                    has_ptr, ptr, ret, of);
	free(*out);
	*out = n;
}

static void put_handle(char **out, bool event, const char *bytes, const char *host, const char *vendor,
                       bool exported, bool freed, unsigned long long ex_ptr)
{
	char *n = xasprintf("%s%s %s on %s %s exported%d freed%d at 0x%llx\n", *out,
	                    event ? "event" : "memory", bytes, host, vendor, exported, freed, ex_ptr);
	free(*out);
	*out = n;
}

/* The handles in order, each with its calls, then the stray closes, as
 * ipc_derive places every call kept. */
static char *listing_derived(size_t jobs)
{
	char *paths[] = {dir}, *out = xstrdup("");
	struct pw_input in = {0};
	struct ipc_report r;
	ipc_init(&r);
	assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
	struct pw_sink sink = {&ipc_ops, &r};
	struct pw_read_opts o = {.jobs = jobs, .quiet = true};
	assert_int_equal(pw_input_read(&in, &o, &sink, 1), PW_READ_OK);
	ipc_derive(&r, &in);
	for (size_t i = 0; i < r.handles.len; i++) {
		const struct ipc_handle *h = *(struct ipc_handle **)vec_at(&r.handles, i);
		const struct ipc_rec *first = *(struct ipc_rec **)vec_at(&h->recs, 0);
		put_handle(&out, h->event, h->handle, h->host, h->export ? h->export->vendor : first->vendor,
		           h->export != NULL, h->free != NULL, h->export ? h->export->ptr : 0);
		for (size_t k = 0; k < h->recs.len; k++) {
			const struct ipc_rec *c = *(struct ipc_rec **)vec_at(&h->recs, k);
			put_call(&out, "  ", (int)c->file, c->seq, c->t_ns, c->op, c->has_ptr, c->ptr, c->ret,
			         c->op == OP_CLOSE || c->op == OP_EV_DESTROY
			             ? (c->close_of ? (long long)c->close_of->seq : -1)
			             : -1);
		}
	}
	for (size_t k = 0; k < r.stray.len; k++) {
		const struct ipc_rec *c = *(struct ipc_rec **)vec_at(&r.stray, k);
		put_call(&out, "stray ", (int)c->file, c->seq, c->t_ns, c->op, c->has_ptr, c->ptr, c->ret,
		         -1);
	}
	ipc_free(&r);
	pw_input_free(&in);
	return out;
}

/* The same from the listing. */
static char *listing_listed(size_t jobs)
{
	char *paths[] = {dir}, *out = xstrdup("");
	struct pw_input in = {0};
	struct ipc_list l;
	ipc_list_init(&l);
	assert_int_equal(pw_input_find(&in, paths, 1), PW_READ_OK);
	struct pw_sink sink = {&ipc_list_ops, &l};
	struct pw_read_opts o = {.jobs = jobs, .quiet = true};
	assert_int_equal(pw_input_read(&in, &o, &sink, 1), PW_READ_OK);
	ipc_list_done(&l, &in);
	for (size_t i = 0; i < l.handles.len; i++) {
		const struct ipc_lhandle *h = vec_at(&l.handles, i);
		put_handle(&out, h->event, h->handle, h->host, h->vendor, h->exported, h->freed,
		           h->exported ? h->ex_ptr : 0);
		for (size_t k = h->row0; k < h->row0 + h->nrows; k++) {
			const struct ipc_row *w = ipc_list_row(&l, k);
			put_call(&out, "  ", (int)w->file, w->seq, w->t_ns, w->op, w->flags & ROW_PTR, w->ptr,
			         w->ret, w->flags & ROW_ENDS ? (long long)w->of_seq : -1);
		}
	}
	for (size_t k = l.stray0; k < xsort_len(&l.rows); k++) {
		const struct ipc_row *w = ipc_list_row(&l, k);
		put_call(&out, "stray ", (int)w->file, w->seq, w->t_ns, w->op, w->flags & ROW_PTR, w->ptr,
		         w->ret, -1);
	}
	ipc_list_free(&l);
	pw_input_free(&in);
	return out;
}

/* Event handles and ACL-style closes of a key (a close that names the
 * handle, no pointer), added to a generated run: process 31 exports an
 * event and a memory handle and closes the key of its own; 32 opens both,
 * closes the key (its open), destroys its event; 33 opens the event and
 * never destroys it, destroys one no handle gave, and closes a key no
 * process opened or exported (a stray close). */
static void add_events_and_keys(void)
{
	char ev[160], mem[160], other[160], a[400];
	gen_handle(ev, sizeof ev, 7, 1);
	gen_handle(mem, sizeof mem, 7, 2);
	gen_handle(other, sizeof other, 8, 3);
	FILE *f = trace(31);
	snprintf(a, sizeof a, "\"event\":\"0xe1\",\"handle\":\"%s\"", ev);
	call(f, 1, 2000, "cuIpcGetEventHandle", "ipc_event_export", 0, a);
	snprintf(a, sizeof a, "\"handle\":\"%s\",\"ptr\":\"0x7f3100000000\",\"ptr_dev\":0", mem);
	call(f, 2, 2100, "cuIpcGetMemHandle", "ipc_export", 0, a);
	call(f, 3, 6000, "cuEventDestroy", "event_destroy", 0, "\"event\":\"0xe1\"");
	snprintf(a, sizeof a, "\"handle\":\"%s\"", mem);
	call(f, 4, 7000, "cuIpcCloseMemHandle", "ipc_close", 0, a);
	end(f, 4);
	f = trace(32);
	snprintf(a, sizeof a, "\"event\":\"0xe2\",\"handle\":\"%s\"", ev);
	call(f, 1, 3000, "cuIpcOpenEventHandle", "ipc_event_open", 0, a);
	snprintf(a, sizeof a, "\"handle\":\"%s\",\"ptr\":\"0x7f3200000000\",\"ptr_dev\":0,\"flags\":1", mem);
	call(f, 2, 3100, "cuIpcOpenMemHandle", "ipc_open", 0, a);
	snprintf(a, sizeof a, "\"handle\":\"%s\"", mem);
	call(f, 3, 3200, "cuIpcCloseMemHandle", "ipc_close", 0, a);
	call(f, 4, 5000, "cuEventDestroy", "event_destroy", 0, "\"event\":\"0xe2\"");
	end(f, 4);
	f = trace(33);
	snprintf(a, sizeof a, "\"event\":\"0xe3\",\"handle\":\"%s\"", ev);
	call(f, 1, 4000, "cuIpcOpenEventHandle", "ipc_event_open", 0, a);
	call(f, 2, 4500, "cuEventDestroy", "event_destroy", 0, "\"event\":\"0xe9\"");
	snprintf(a, sizeof a, "\"handle\":\"%s\"", other);
	call(f, 3, 4600, "cuIpcCloseMemHandle", "ipc_close", 0, a);
	end(f, 3);
}

static void listing_as_derive(void **state)
{
	(void)state;
	size_t stray = 0, ends = 0, events = 0, iffy = 0;
	for (unsigned seed = 0; seed < 24; seed++) {
		gen_run(seed);
		if (seed % 3 == 0)
			add_events_and_keys();
		for (size_t jobs = 1; jobs <= 2; jobs++)
			for (size_t cap = 0; cap <= 3; cap += 3) {
				xsort_cap_override = cap; /* 3: every sort and spool on disk */
				char *want = listing_derived(jobs), *got = listing_listed(jobs);
				assert_string_equal(got, want);
				stray += strstr(want, "\nstray ") != NULL;
				ends += strstr(want, " ends ") != NULL;
				events += strstr(want, "event ") != NULL;
				/* a free or a destroy listed: kept as its file first exported the handle */
				iffy += strstr(want, " op3 ") || strstr(want, " op6 ");
				free(want);
				free(got);
			}
		xsort_cap_override = 0;
		assert_int_equal(remove_dir(NULL), 0);
	}
	assert_true(stray > 0 && ends > 0 && events > 0 && iffy > 0);
}

/* Copies written by a trace's own process, `n` of them from seq `seq`:
 * bulk that no IPC sink's filter wants. */
static void copies(FILE *f, int seq, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(
		    f,
		    "{\"type\":\"call\",\"seq\":%d,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeer\","
		    "\"variant\":\"\",\"family\":\"copy\",\"t_ns\":%d,\"dur_ns\":5,\"ret\":0,"
		    "\"ret_name\":\"CUDA_SUCCESS\",\"args\":{\"dst\":\"0x7f3a5c000000\",\"dst_dev\":1,"
		    "\"dst_ctx\":\"0x55d0c3a81f30\",\"dst_ctx_dev\":1,\"src\":\"0x7f3b00000000\","
		    "\"src_dev\":0,\"src_ctx\":\"0x55d0c3a7e2a0\",\"src_ctx_dev\":0,\"bytes\":4096}}\n",
		    seq + i, 100 + i);
}

/* An export written after its trace's footer (a malformed trace: the event
 * phase names the line and skips it) is not the handle's export for the
 * deciding sink either: the open is ipc.open.unexported both ways.  Then a
 * footer written with its members in another order, and a free after it;
 * and both again in a file large enough to be read in segments, the footer
 * in one and the lines after it in the next ones. */
static void after_footer_not_learnt(void **state)
{
	(void)state;
	for (int big = 0; big <= 1; big++) {
		char exp[400], open1[400];
		assert_true(new_dir(exp, open1, sizeof exp));
		int pad = big ? 30000 : 0; /* about 12 MiB: segments of 512 KiB */
		FILE *f = trace(1);
		copies(f, 1, pad);
		end(f, pad); /* closes it */
		char *p = xasprintf("%s/p.1.pw.jsonl", dir);
		f = fopen(p, "a");
		assert_non_null(f);
		copies(f, pad + 1, pad);
		call(f, 2 * pad + 1, 2000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
		fclose(f);
		f = trace(2);
		call(f, 1, 1000, "cuIpcGetMemHandle", "ipc_export", 0, exp);
		copies(f, 2, pad);
		fprintf(f, "{\"events\":%d,\"type\":\"footer\",\"dropped\":0,\"t_end_ns\":9000}\n", pad + 1);
		copies(f, pad + 2, pad);
		call(f, 2 * pad + 2, 3000, "cuMemFree", "free", 0,
		     "\"ptr\":\"0x7f0000000000\",\"ptr_dev\":0");
		fclose(f);
		f = trace(3);
		call(f, 1, 2500, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
		call(f, 2, 4000, "cuIpcOpenMemHandle", "ipc_open", 0, open1);
		end(f, 2);
		for (size_t jobs = 1; jobs <= 2; jobs++) {
			size_t all;
			char *want = read_ipc_as(ALL, &all, jobs);
			/* process 2's export, never freed: both opens are of it, mapped
			 * at the end (ipc.leak); process 1's export is not read */
			assert_null(strstr(want, "ipc.open.unexported"));
			assert_null(strstr(want, "ipc.free-while-open"));
			assert_non_null(strstr(want, "ipc.leak"));
			decided_as(want, jobs);
			free(want);
		}
		f = trace(2); /* written anew: now no export is read at all */
		end(f, 0);
		for (size_t jobs = 1; jobs <= 2; jobs++) {
			size_t all;
			char *want = read_ipc_as(ALL, &all, jobs);
			assert_non_null(strstr(want, "ipc.open.unexported"));
			decided_as(want, jobs);
			free(want);
		}
		free(p);
		remove_dir(NULL);
	}
}

/* A derived finding the library's findings or suppressions already have
 * is not added: the same rule on the same call of the same trace, a leak
 * of a trace whose library reported its leaks at exit (no call), a rule a
 * suppression took on that call. */
static void derived_against_the_library(void **state)
{
	(void)state;
	struct findings fs;
	findings_init(&fs);
	struct finding *fd = vec_push(&fs.list);
	*fd = (struct finding){.file = 1, .call = 7, .has_call = true, .rule = xstrdup("ipc.open.stale")};
	fd = vec_push(&fs.list);
	*fd = (struct finding){.file = 2, .rule = xstrdup("ipc.leak")}; /* at exit */
	struct suppressed_mark *m = vec_push(&fs.suppressed);
	*m = (struct suppressed_mark){.file = 3, .call = 9, .rule = xstrdup("ipc.free-while-open")};
	const struct {
		size_t file;
		uint64_t call;
		const char *rule;
		bool added;
	} cases[] = {
	    {1, 7, "ipc.open.stale", false},
	    {1, 8, "ipc.open.stale", true},
	    {1, 7, "ipc.open.unexported", true},
	    {0, 7, "ipc.open.stale", true},
	    {2, 5, "ipc.leak", false},
	    {2, 5, "ipc.open.stale", true},
	    {1, 5, "ipc.leak", true},
	    {3, 9, "ipc.free-while-open", false},
	    {3, 8, "ipc.free-while-open", true},
	    {3, 9, "ipc.leak", true},
	};
	size_t len = fs.list.len;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		findings_add_derived(&fs, cases[i].file, cases[i].call, "cuIpcOpenMemHandle", cases[i].rule,
		                     SEV_ERROR, "m");
		assert_int_equal(fs.list.len, len + cases[i].added);
		len = fs.list.len;
	}
	/* a derived finding is not matched against the derived before it */
	findings_add_derived(&fs, 1, 8, "cuIpcOpenMemHandle", "ipc.open.stale", SEV_ERROR, "m");
	assert_int_equal(fs.list.len, len + 1);
	assert_int_equal(fs.derived_suppressed, 1);
	findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(findings_only_keeps_first_exports, make_dir, remove_dir),
	    cmocka_unit_test_setup_teardown(findings_only_folds_closes_in_order, make_dir_closes, remove_dir),
	    cmocka_unit_test_setup_teardown(findings_only_folds_nested_in_order, make_dir_nested, remove_dir),
	    cmocka_unit_test(deciding_as_derive),
	    cmocka_unit_test(derived_against_the_library),
	    cmocka_unit_test_setup_teardown(late_export_keeps_its_opens, make_dir_late_export, remove_dir),
	    cmocka_unit_test_teardown(key_close_keeps_all, remove_dir),
	    cmocka_unit_test(after_footer_not_learnt),
	    cmocka_unit_test(listing_as_derive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

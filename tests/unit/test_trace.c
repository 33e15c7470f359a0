/*
 * The trace writer on its own: many threads, small buffers, the file it
 * leaves (the threads write faster than the writer: what does not fit is
 * dropped and counted, never waited for); finishing while threads are still
 * writing; a full disk (the fault shim of tests/fault, linked in: its write,
 * pwrite, fallocate and ftruncate stand in for libc's); the size limit.
 * the program taking the trace file's descriptor.  Each scenario after the
 * first runs in a forked child, which starts the trace afresh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include "core/fd.h"
#include "core/pw.h"
#include "record/trace.h"
#include "record/trace_hot.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* linux/mman.h (asm-generic/mman-common.h) */
#endif

/* tests/fault/faultshim.c, linked in (tests/tests.mk): its write, pwrite,
 * fallocate and ftruncate stand in for libc's. */
void pwfault_set(const char *spec);

#define THREADS 4
#define EVENTS 5000

static char dir[256];
static atomic_int refused; /* events the trace did not take (the writer behind) */

static void *producer(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < EVENTS; i++) {
		struct pw_jw w;
		if (!pw_trace_event_begin(&w)) {
			atomic_fetch_add(&refused, 1);
			continue;
		}
		pw_jw_obj_open(&w);
		pw_jw_kv_str(&w, "type", "test");
		pw_jw_kv_i64(&w, "thread", me);
		pw_jw_kv_i64(&w, "i", i);
		pw_jw_kv_str(&w, "pad", "0123456789012345678901234567890123456789");
		pw_jw_obj_close(&w);
		pw_trace_event_end(&w);
	}
	return NULL;
}

static void writes_or_counts_every_event_in_thread_order(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/pw-unit-trace.%d/sub", (int)getpid());
	pw_options_defaults(&pw_g.opt);
	strcpy(pw_g.opt.out, dir);
	pw_g.opt.verbosity = 0;
	pw_g.opt.buffer_bytes = 16 * 1024; /* many rotations */
	pw_trace_init();
	atomic_store(&pw_g.enabled, true);
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, producer, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pw_trace_finish("exit", NULL);

	const char *path = pw_trace_path();
	assert_non_null(strstr(path, dir));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	char parent[300];
	snprintf(parent, sizeof parent, "%s", dir);
	assert_int_equal(stat(parent, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	char partial[4400];
	snprintf(partial, sizeof partial, "%s.partial", path);
	assert_int_not_equal(access(partial, F_OK), 0);

	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[PW_EVENT_MAX];
	int next[THREADS] = {0}, n = 0, lines = 0;
	json_t *last = NULL;
	while (fgets(line, sizeof line, f)) {
		json_error_t e;
		json_t *j = json_loads(line, 0, &e);
		if (!j)
			fail_msg("line %d is not JSON: %s", lines + 1, e.text);
		const char *type = json_string_value(json_object_get(j, "type"));
		if (lines == 0)
			assert_string_equal(type, "header");
		if (!strcmp(type, "test")) {
			int th = (int)json_integer_value(json_object_get(j, "thread"));
			int i = (int)json_integer_value(json_object_get(j, "i"));
			assert_true(i >= next[th]); /* in the thread's order; a gap is a dropped event */
			next[th] = i + 1;
			n++;
		}
		json_decref(last);
		last = j;
		lines++;
	}
	fclose(f);
	assert_string_equal(json_string_value(json_object_get(last, "type")), "footer");
	/* every event is in the file or counted as dropped, and the footer says which */
	assert_int_equal(n + atomic_load(&refused), THREADS * EVENTS);
	assert_int_equal(json_integer_value(json_object_get(last, "events")), n);
	assert_int_equal(json_integer_value(json_object_get(last, "dropped")), atomic_load(&refused));
	json_t *by = json_object_get(last, "dropped_by");
	assert_int_equal(json_integer_value(json_object_get(by, "writer_behind")), atomic_load(&refused));
	assert_true(n > 0);
	json_decref(last);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf /tmp/pw-unit-trace.%d", (int)getpid());
	assert_int_equal(system(cmd), 0);
}

/* ---- scenarios in a forked child ---- */

static char sdir[256];

/* Runs fn in a child with a fresh trace into sdir/NAME; the child's status.
 * Where the scenario makes peerwatch say something on purpose (a full disk),
 * the child's stderr comes back through a pipe and each line is passed on
 * labelled "(expected) ", so that a reader of the log is not misled. */
static int in_child_said(const char *name, void (*fn)(void), int expected)
{
	int said[2] = {-1, -1};
	snprintf(sdir, sizeof sdir, "/tmp/pw-unit-trace.%d/%s", (int)getpid(), name);
	if (expected)
		assert_int_equal(pipe(said), 0);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		if (expected) {
			dup2(said[1], STDERR_FILENO);
			close(said[0]);
			close(said[1]);
		}
		pw_trace_after_fork_child();
		pw_options_defaults(&pw_g.opt);
		strcpy(pw_g.opt.out, sdir);
		pw_g.opt.verbosity = 0;
		pw_g.opt.buffer_bytes = 16 * 1024;
		atomic_store(&pw_g.enabled, true);
		fn();
		_exit(0);
	}
	if (expected) {
		close(said[1]);
		FILE *f = fdopen(said[0], "r");
		assert_non_null(f);
		char line[2048];
		while (fgets(line, sizeof line, f))
			fprintf(stderr, "(expected) %s", line);
		fclose(f);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static int in_child(const char *name, void (*fn)(void))
{
	return in_child_said(name, fn, 0);
}

/* The one trace file in sdir, its lines parsed; NULL if not exactly one. */
static json_t *read_trace(const char *suffix)
{
	char cmd[600], path[600];
	snprintf(cmd, sizeof cmd, "ls %s/*%s 2>/dev/null", sdir, suffix);
	FILE *ls = popen(cmd, "r");
	if (!ls || !fgets(path, sizeof path, ls)) {
		if (ls)
			pclose(ls);
		return NULL;
	}
	pclose(ls);
	path[strcspn(path, "\n")] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	json_t *lines = json_array();
	char line[PW_EVENT_MAX + 64];
	while (fgets(line, sizeof line, f)) {
		json_t *j = json_loads(line, 0, NULL);
		if (!j)
			fail_msg("%s: a line that is not JSON: %.80s", path, line);
		json_array_append_new(lines, j);
	}
	fclose(f);
	return lines;
}

static const char *type_of(json_t *j)
{
	return json_string_value(json_object_get(j, "type"));
}

/* The footer is true to the file: its counts are the lines between. */
static json_t *checked_footer(json_t *lines)
{
	size_t n = json_array_size(lines);
	assert_true(n >= 2);
	assert_string_equal(type_of(json_array_get(lines, 0)), "header");
	json_t *footer = json_array_get(lines, n - 1);
	assert_string_equal(type_of(footer), "footer");
	assert_int_equal(json_integer_value(json_object_get(footer, "events")), n - 2);
	size_t viol = 0;
	for (size_t i = 1; i + 1 < n; i++)
		viol += !strcmp(type_of(json_array_get(lines, i)), "violation");
	assert_int_equal(json_integer_value(json_object_get(footer, "violations")), viol);
	json_int_t by = 0;
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(footer, "dropped_by"), k, v) by += json_integer_value(v);
	assert_int_equal(json_integer_value(json_object_get(footer, "dropped")), by);
	return footer;
}

/* One event; false when tracing is off (it was not made). */
static bool put_event(const char *type, long thread, long i)
{
	struct pw_jw w;
	if (!pw_trace_event_begin(&w))
		return false;
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "type", type);
	pw_jw_kv_i64(&w, "thread", thread);
	pw_jw_kv_i64(&w, "i", i);
	pw_jw_kv_str(&w, "pad", "0123456789012345678901234567890123456789");
	pw_jw_obj_close(&w);
	pw_trace_event_end(&w);
	return true;
}

static void write_number(const char *name, long v)
{
	char p[300];
	snprintf(p, sizeof p, "%s/%s", sdir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fprintf(f, "%ld\n", v);
		fclose(f);
	}
}

static long read_number(const char *name)
{
	char p[300];
	long v = -1;
	snprintf(p, sizeof p, "%s/%s", sdir, name);
	FILE *f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Finishing while threads write: each thread's events up to the cut, in
 * order and without a gap; those it had finished before the finish began
 * all in; nothing dropped but events in flight and those the trace refused
 * (the writer behind: not made, so no gap); no crash after. */
#define RACERS 4
static atomic_long ended[RACERS];
static atomic_bool racers_stop;

static void *racer(void *arg)
{
	long me = (long)arg;
	for (long i = 0; !atomic_load(&racers_stop);) {
		struct pw_jw w;
		if (!pw_trace_event_begin(&w))
			continue; /* tracing ended: the thread goes on */
		pw_jw_obj_open(&w);
		pw_jw_kv_str(&w, "type", "test");
		pw_jw_kv_i64(&w, "thread", me);
		pw_jw_kv_i64(&w, "i", i);
		pw_jw_obj_close(&w);
		pw_trace_event_end(&w);
		atomic_store(&ended[me], ++i);
	}
	return NULL;
}

static long snap[RACERS];

static void finish_under_writers(void)
{
	pthread_t t[RACERS];
	for (long i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, racer, (void *)i);
	struct timespec ts = {0, 30 * 1000000};
	nanosleep(&ts, NULL);
	for (int i = 0; i < RACERS; i++)
		snap[i] = atomic_load(&ended[i]);
	pw_trace_finish("exit", NULL);
	nanosleep(&ts, NULL); /* they write on, into buffers nobody reads */
	atomic_store(&racers_stop, true);
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	char p[300];
	snprintf(p, sizeof p, "%s/snap", sdir);
	FILE *f = fopen(p, "w");
	for (int i = 0; i < RACERS && f; i++)
		fprintf(f, "%ld\n", snap[i]);
	if (f)
		fclose(f);
}

static void finishing_while_threads_write(void **state)
{
	(void)state;
	assert_int_equal(in_child("race", finish_under_writers), 0);
	json_t *lines = read_trace(".pw.jsonl");
	assert_non_null(lines);
	json_t *footer = checked_footer(lines);
	long next[RACERS] = {0};
	for (size_t i = 1; i + 1 < json_array_size(lines); i++) {
		json_t *e = json_array_get(lines, i);
		long th = (long)json_integer_value(json_object_get(e, "thread"));
		assert_int_equal(json_integer_value(json_object_get(e, "i")), next[th]);
		next[th]++;
	}
	char p[300];
	snprintf(p, sizeof p, "%s/snap", sdir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	for (int i = 0; i < RACERS; i++) {
		long want = -1;
		assert_int_equal(fscanf(f, "%ld", &want), 1);
		if (next[i] < want)
			fail_msg("thread %d: %ld events in the trace, %ld finished before the finish began",
			         i, next[i], want);
	}
	fclose(f);
	json_t *by = json_object_get(footer, "dropped_by");
	json_int_t in_flight = json_integer_value(json_object_get(by, "in_flight_at_exit"));
	json_int_t behind = json_integer_value(json_object_get(by, "writer_behind"));
	assert_true(in_flight <= RACERS);
	assert_int_equal(json_object_size(by), (in_flight ? 1 : 0) + (behind ? 1 : 0));
	json_decref(lines);
}

/* The cut at exit: an event another thread is writing then is counted as
 * in flight; a finding's violation event (pw_trace_finding_begin) apart
 * from any other, since the finding is lost with it, where a call's event
 * loses none (its findings were written before it ran). */
static atomic_int held; /* 1: the holder is inside its event, -1: it got none; 2: finished */
static bool hold_finding;

static void *holder(void *arg)
{
	(void)arg;
	struct pw_jw w;
	bool ok = hold_finding ? pw_trace_finding_begin(&w) : pw_trace_event_begin(&w);
	if (ok) {
		pw_jw_obj_open(&w);
		pw_jw_kv_str(&w, "type", hold_finding ? "violation" : "call");
	}
	atomic_store(&held, ok ? 1 : -1);
	while (atomic_load(&held) != 2)
		sched_yield();
	if (ok) {
		pw_jw_obj_close(&w);
		if (hold_finding)
			pw_trace_finding_end(&w);
		else
			pw_trace_event_end(&w);
	}
	return NULL;
}

static void finish_while_held(void)
{
	pthread_t t;
	while (!put_event("call", 0, 0)) /* the file, and an event in it */
		sched_yield();
	pthread_create(&t, NULL, holder, NULL);
	while (!atomic_load(&held))
		sched_yield();
	if (atomic_load(&held) < 0)
		_exit(3);
	pw_trace_finish("exit", NULL);
	atomic_store(&held, 2);
	pthread_join(t, NULL);
}

static void held_finding_at_exit(void)
{
	hold_finding = true;
	finish_while_held();
}

static void in_flight_at_the_cut(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		void (*fn)(void);
		const char *cause;
	} cases[] = {{"held-event", finish_while_held, "in_flight_at_exit"},
	             {"held-finding", held_finding_at_exit, "finding_in_flight_at_exit"}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(in_child(cases[i].name, cases[i].fn), 0);
		json_t *lines = read_trace(".pw.jsonl");
		assert_non_null(lines);
		json_t *by = json_object_get(checked_footer(lines), "dropped_by");
		if (json_object_size(by) != 1 ||
		    json_integer_value(json_object_get(by, cases[i].cause)) != 1) {
			char *got = json_dumps(by, JSON_COMPACT);
			fail_msg("%s: dropped_by %s, not {\"%s\":1}", cases[i].name, got, cases[i].cause);
		}
		json_decref(lines);
	}
}

/* A full disk: the events stop, the file is cut back to its last whole line,
 * the footer (written into the blocks kept for it) says write_error. */
static void write_until_full(void)
{
	pwfault_set("enospc:400000");
	long made = 0;
	for (long i = 0; i < 20000; i++) {
		bool in = put_event("test", 0, i);
		/* refused while a trace is kept: the writer behind, offered again */
		while (!in && pw_trace_kept()) {
			sched_yield();
			in = put_event("test", 0, i);
		}
		made += in;
	}
	pw_trace_finish("exit", NULL);
	write_number("made", made); /* after the error, tracing is off: no more made */
}

static void full_disk_ends_with_a_footer(void **state)
{
	(void)state;
	assert_int_equal(in_child_said("full", write_until_full, 1), 0);
	json_t *lines = read_trace(".pw.jsonl");
	assert_non_null(lines); /* finished: not .partial */
	json_t *footer = checked_footer(lines);
	const char *we = json_string_value(json_object_get(footer, "write_error"));
	assert_non_null(we);
	assert_true(!strncmp(we, "ENOSPC", 6));
	json_int_t events = json_integer_value(json_object_get(footer, "events"));
	json_int_t lost =
	    json_integer_value(json_object_get(json_object_get(footer, "dropped_by"), "write_error"));
	assert_true(events > 100 && lost > 10);
	assert_int_equal(events + lost, read_number("made"));
	json_decref(lines);
}

/* The size limit: call events stop at it, findings do not.  An event the
 * trace refuses (the writer behind) is offered again: every one is made. */
static void write_past_the_limit(void)
{
	pw_g.opt.max_trace_mb = 1;
	for (long i = 0; i < 20000; i++)
		while (!put_event(i % 1000 == 999 ? "violation" : "call", 0, i))
			sched_yield();
	pw_trace_finish("exit", NULL);
}

static void size_limit_keeps_findings(void **state)
{
	(void)state;
	assert_int_equal(in_child("limit", write_past_the_limit), 0);
	json_t *lines = read_trace(".pw.jsonl");
	assert_non_null(lines);
	json_t *footer = checked_footer(lines);
	json_t *limit = json_object_get(footer, "limit");
	assert_non_null(limit);
	assert_int_equal(json_integer_value(json_object_get(limit, "bytes")), 1024 * 1024);
	assert_int_equal(json_integer_value(json_object_get(footer, "violations")), 20);
	json_int_t events = json_integer_value(json_object_get(footer, "events"));
	json_int_t lost =
	    json_integer_value(json_object_get(json_object_get(footer, "dropped_by"), "size_limit"));
	assert_int_equal(events + lost, 20000);
	assert_true(lost > 1000 && events > 1000);
	json_decref(lines);
}

/* The trace file's descriptor, found as a program would find it; -1 if none. */
static int trace_descriptor(void)
{
	DIR *d = opendir("/proc/self/fd");
	int found = -1;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char link[300], to[600];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, to, sizeof to - 1);
		to[n > 0 ? n : 0] = 0;
		static const char suffix[] = ".pw.jsonl.partial";
		if (n >= (ssize_t)sizeof suffix && !strcmp(to + n - (sizeof suffix - 1), suffix))
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static const char their_data[] = "the program's own data\n";

/* The program's file, with their_data in it: its descriptor. */
static int their_file(void)
{
	char p[300];
	snprintf(p, sizeof p, "%s/theirs", sdir);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, their_data, sizeof their_data - 1) != (ssize_t)sizeof their_data - 1)
		_exit(3);
	return fd;
}

static void events(long from, long to)
{
	for (long i = from; i < to; i++)
		while (!put_event("test", 0, i) && pw_trace_kept())
			sched_yield();
}

/* The program puts its own file on the trace's descriptor with dup2, while
 * the writer writes: the interposed dup2 (entry/fdhooks.c, linked in here
 * as in the library) moves the trace's descriptor out of the way first. */
static void dup2_onto_the_trace(void)
{
	events(0, 1000);
	int t = trace_descriptor(), theirs = their_file();
	write_number("fd", t);
	if (t < 0 || dup2(theirs, t) != t)
		_exit(4);
	events(1000, 2000);
	pw_trace_finish("exit", NULL);
}

/* A dup2 that bypasses libc (a raw system call), after moving the trace
 * file away: the fstat check finds another file on the number, and the
 * file cannot be opened again by its path.  The call is made between two
 * writes of ours (as pw_fd_use_begin holds them off), where the check can
 * see it: in the middle of one, only the interposed dup2 keeps the
 * program's file safe. */
static void dup2_onto_the_trace_moved_away(void)
{
	events(0, 1000);
	char link[64], from[600], to[600];
	int t = trace_descriptor(), theirs = their_file();
	snprintf(link, sizeof link, "/proc/self/fd/%d", t);
	ssize_t n = readlink(link, from, sizeof from - 1);
	from[n > 0 ? n : 0] = 0;
	snprintf(to, sizeof to, "%s/moved", sdir);
	/* both under the use lock: with the rename after it, the writer could
	 * find the other file on the number first and open the trace again by
	 * its path, which still named it */
	pw_fd_use_begin();
	int moved = t < 0 ? -1 : rename(from, to);
	long raw = moved ? -1 : syscall(SYS_dup3, theirs, t, 0);
	pw_fd_use_end();
	if (t < 0 || moved || raw != t)
		_exit(4);
	events(1000, 2000);
	pw_trace_finish("exit", NULL);
}

static void their_file_is_theirs(void)
{
	char p[300], buf[256] = "";
	snprintf(p, sizeof p, "%s/theirs", sdir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	assert_int_equal(n, sizeof their_data - 1);
	assert_string_equal(buf, their_data);
}

/*
 * The program takes the trace's descriptor (it lies above its numbers, but
 * a program may dup2 onto any): nothing of the trace goes into the
 * program's file, and the trace goes on whole, on another number; taken
 * by a raw dup2 with the file gone from its path, tracing stops and the
 * program's file is still untouched.
 */
static void the_program_takes_the_descriptor(void **state)
{
	(void)state;
	for (int round = 0; round < 20; round++) { /* the dup2 lands anywhere in a write */
		assert_int_equal(in_child("dup2", dup2_onto_the_trace), 0);
		assert_true(read_number("fd") >= pw_fd_floor());
		their_file_is_theirs();
		json_t *lines = read_trace(".pw.jsonl");
		assert_non_null(lines);
		json_t *footer = checked_footer(lines);
		assert_int_equal(json_integer_value(json_object_get(footer, "events")), 2000);
		assert_null(json_object_get(footer, "write_error"));
		json_decref(lines);
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", sdir);
		assert_int_equal(system(cmd), 0);
	}

	assert_int_equal(in_child_said("dup2-moved", dup2_onto_the_trace_moved_away, 1), 0);
	their_file_is_theirs();
	assert_null(read_trace(".pw.jsonl"));
	json_t *lines = read_trace("moved");
	assert_non_null(lines); /* what was written before, whole lines, no footer */
	assert_string_equal(type_of(json_array_get(lines, 0)), "header");
	assert_string_not_equal(type_of(json_array_get(lines, json_array_size(lines) - 1)), "footer");
	json_decref(lines);
}

/* A thread that keeps taking new buffers gets them with their pages present
 * (trace.c, buf_populate); its first one faults in as it fills. */
static size_t resident_pages(const char *from, const char *to, size_t *total)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)from + page - 1) & ~(page - 1), b = (uintptr_t)to & ~(page - 1);
	*total = b > a ? (b - a) / page : 0;
	if (!*total)
		return 0;
	unsigned char *v = malloc(*total);
	size_t n = 0;
	if (v && mincore((void *)a, b - a, v) == 0)
		for (size_t i = 0; i < *total; i++)
			n += v[i] & 1;
	free(v);
	return n;
}

static void populate_past_the_first(void)
{
	pw_g.opt.buffer_bytes = 40u << 20; /* past glibc's largest mmap threshold: fresh pages */
	char pad[2048];
	memset(pad, 'x', sizeof pad - 1);
	pad[sizeof pad - 1] = 0;
	struct pw_buf *first = NULL;
	int code = 3; /* no second buffer */
	for (long i = 0; i < 200000 && code == 3; i++) {
		struct pw_jw w;
		if (!pw_trace_event_begin(&w))
			continue;
		pw_jw_obj_open(&w);
		pw_jw_kv_str(&w, "type", "test");
		pw_jw_kv_str(&w, "pad", pad);
		pw_jw_obj_close(&w);
		pw_trace_event_end(&w);
		struct pw_buf *b = pw_tls_fold.cur;
		size_t total, in;
		if (!first) {
			first = b;
			in = resident_pages(b->data + b->used, b->data + b->cap, &total);
			if (total < 1000 || in * 2 > total)
				code = 1; /* the first buffer made present */
		} else if (b != first) {
			in = resident_pages(b->data + b->used, b->data + b->cap, &total);
			code = total > 1000 && in == total ? 0 : 2; /* 2: the second not present */
		}
	}
	pw_trace_finish("exit", NULL);
	_exit(code);
}

/* In a process of its own (this program run again, --populate DIR), whose
 * heap has never been touched, so that a buffer is fresh memory: in a fork
 * of this one, malloc may hand out memory an earlier test touched. */
static void new_buffers_come_present_past_the_first(void **state)
{
	(void)state;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *probe = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(probe != MAP_FAILED);
	bool can = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
	munmap(probe, page);
	if (!can) {
		print_message(
		    "this kernel has no MADV_POPULATE_WRITE (Linux 5.14): buffers fault in as before\n");
		skip();
	}
	snprintf(sdir, sizeof sdir, "/tmp/pw-unit-trace.%d/populate", (int)getpid());
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "test_trace", "--populate", sdir, (char *)NULL);
		_exit(126);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 1)
		fail_msg(
		    "the thread's first buffer was made present: a thread making a few calls holds it all");
	if (WEXITSTATUS(st) == 2)
		fail_msg("the thread's second buffer was not made present: its pages fault in on the calling "
		         "thread");
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int remove_dirs(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "%s /tmp/pw-unit-trace.%d", getenv("KEEP") ? "ls -R" : "rm -rf",
	         (int)getpid());
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--populate")) {
		snprintf(sdir, sizeof sdir, "%s", argv[2]);
		pw_options_defaults(&pw_g.opt);
		strcpy(pw_g.opt.out, sdir);
		pw_g.opt.verbosity = 0;
		pw_trace_init();
		atomic_store(&pw_g.enabled, true);
		populate_past_the_first(); /* exits */
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(writes_or_counts_every_event_in_thread_order),
	    cmocka_unit_test(finishing_while_threads_write),
	    cmocka_unit_test(in_flight_at_the_cut),
	    cmocka_unit_test(full_disk_ends_with_a_footer),
	    cmocka_unit_test(size_limit_keeps_findings),
	    cmocka_unit_test(the_program_takes_the_descriptor),
	    cmocka_unit_test(new_buffers_come_present_past_the_first),
	};
	return cmocka_run_group_tests_name("trace", tests, NULL, remove_dirs);
}

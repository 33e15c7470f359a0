/* The trace writer on its own: many threads, small buffers, the file it
 * leaves.  The threads write as fast as they can, faster than the writer:
 * what does not fit is dropped and counted, never waited for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pw.h"
#include "trace.h"

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
	pw_trace_finish("exit");

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
	assert_true(n > 0);
	json_decref(last);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf /tmp/pw-unit-trace.%d", (int)getpid());
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(writes_or_counts_every_event_in_thread_order),
	};
	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}

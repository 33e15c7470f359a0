/*
 * fork and our allocations (preload/core/forkgate.c): fork waits for the threads
 * inside the gate, a thread waits at the gate while a fork is prepared, the
 * forking thread's own place inside is not waited for, and a child forked
 * with the gate in use starts with it free.  A hang here would be the bug:
 * alarm() turns one into a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/forkgate.h"

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static sem_t in, go;
static atomic_bool closed, entered, left;

static void *inside_until_go(void *arg)
{
	(void)arg;
	pw_forkgate_enter();
	sem_post(&in);
	sem_wait(&go);
	atomic_store(&left, true);
	pw_forkgate_leave();
	return NULL;
}

static void *close_gate(void *arg)
{
	(void)arg;
	pw_forkgate_close();
	atomic_store(&closed, true);
	return NULL;
}

static void *enter_gate(void *arg)
{
	(void)arg;
	pw_forkgate_enter();
	atomic_store(&entered, true);
	pw_forkgate_leave();
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	sem_init(&in, 0, 0);
	sem_init(&go, 0, 0);
	atomic_store(&closed, false);
	atomic_store(&entered, false);
	atomic_store(&left, false);
	alarm(20);
	return 0;
}

static void fork_waits_for_a_thread_inside(void **state)
{
	(void)state;
	pthread_t a, b;
	pthread_create(&a, NULL, inside_until_go, NULL);
	sem_wait(&in);
	pthread_create(&b, NULL, close_gate, NULL);
	sleep_ms(50);
	assert_false(atomic_load(&closed)); /* still inside */
	sem_post(&go);
	pthread_join(b, NULL);
	assert_true(atomic_load(&closed));
	assert_true(atomic_load(&left));
	pthread_join(a, NULL);
	pw_forkgate_open_parent();
}

static void a_thread_waits_while_a_fork_is_prepared(void **state)
{
	(void)state;
	pw_forkgate_close();
	pthread_t a;
	pthread_create(&a, NULL, enter_gate, NULL);
	sleep_ms(50);
	assert_false(atomic_load(&entered));
	pw_forkgate_open_parent();
	pthread_join(a, NULL);
	assert_true(atomic_load(&entered));
}

/* A signal handler's fork on a thread inside the gate: it cannot leave
 * before the fork, so it must not be waited for (that would never end). */
static void the_forking_thread_inside_is_not_waited_for(void **state)
{
	(void)state;
	pw_forkgate_enter();
	pw_forkgate_enter(); /* nested */
	pw_forkgate_close();
	pw_forkgate_open_parent();
	pw_forkgate_leave();
	pw_forkgate_leave();
	/* and the count is back: a fork now waits for nobody */
	pw_forkgate_close();
	pw_forkgate_open_parent();
}

/* Through pthread_atfork, as the library installs it: the child sees the
 * thread's leaving (it happened before the fork) and a free gate. */
static void a_child_forked_while_a_thread_was_inside(void **state)
{
	(void)state;
	pthread_t a;
	pthread_create(&a, NULL, inside_until_go, NULL);
	sem_wait(&in);
	sem_post(&go); /* it leaves soon, while fork waits for it */
	pid_t pid = fork();
	if (pid == 0) {
		int ok = atomic_load(&left);
		pw_forkgate_enter();
		pw_forkgate_leave();
		pw_forkgate_close(); /* would wait forever if the gate thought the thread was inside */
		pw_forkgate_open_parent();
		_exit(ok ? 0 : 1);
	}
	assert_true(pid > 0);
	int st = -1;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	pthread_join(a, NULL);
}

int main(void)
{
	pthread_atfork(pw_forkgate_close, pw_forkgate_open_parent, pw_forkgate_open_child);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(fork_waits_for_a_thread_inside, setup),
	    cmocka_unit_test_setup(a_thread_waits_while_a_fork_is_prepared, setup),
	    cmocka_unit_test_setup(the_forking_thread_inside_is_not_waited_for, setup),
	    cmocka_unit_test_setup(a_child_forked_while_a_thread_was_inside, setup),
	};
	return cmocka_run_group_tests_name("forkgate", tests, NULL, NULL);
}

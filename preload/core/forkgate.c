/* fork and our allocations on the program's threads: see forkgate.h. */
#include "core/forkgate.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/pw.h"

/* Written by every thread that allocates: a cache line of their own
 * (the struct's alignment makes it 64 bytes), so that they do not take
 * from the calling threads a line of what every traced call reads (the
 * linker had put pw_fence_asym beside them). */
static struct {
	_Alignas(64) atomic_int inside; /* threads between enter and leave */
	atomic_bool closing;            /* a fork is being prepared */
} gate;
static PW_TLS int depth; /* this thread's nesting */

void pw_forkgate_enter(void)
{
	if (depth++)
		return;
	for (;;) {
		atomic_fetch_add(&gate.inside, 1); /* seq_cst: against close's store, then load */
		if (!atomic_load(&gate.closing))
			return;
		atomic_fetch_sub(&gate.inside, 1);
		while (atomic_load_explicit(&gate.closing, memory_order_relaxed))
			sched_yield(); /* as long as the fork takes */
	}
}

void pw_forkgate_leave(void)
{
	if (--depth == 0)
		atomic_fetch_sub(&gate.inside, 1);
}

void *pw_fg_malloc(size_t n)
{
	pw_forkgate_enter();
	void *p = malloc(n);
	pw_forkgate_leave();
	return p;
}

void *pw_fg_calloc(size_t n, size_t size)
{
	pw_forkgate_enter();
	void *p = calloc(n, size);
	pw_forkgate_leave();
	return p;
}

char *pw_fg_strdup(const char *s)
{
	pw_forkgate_enter();
	char *p = strdup(s);
	pw_forkgate_leave();
	return p;
}

void pw_fg_free(void *p)
{
	pw_forkgate_enter();
	free(p);
	pw_forkgate_leave();
}

void pw_forkgate_close(void)
{
	atomic_store(&gate.closing, true);
	/* The forking thread itself may be inside (a signal handler's fork
	 * that interrupted it): it cannot leave before the fork, so it is not
	 * waited for. */
	int mine = depth ? 1 : 0;
	while (atomic_load(&gate.inside) > mine)
		sched_yield();
}

void pw_forkgate_open_parent(void)
{
	atomic_store(&gate.closing, false);
}

void pw_forkgate_open_child(void)
{
	atomic_store(&gate.inside, depth ? 1 : 0); /* the others are gone */
	atomic_store(&gate.closing, false);
}

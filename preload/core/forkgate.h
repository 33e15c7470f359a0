/*
 * fork and our allocations on the program's threads.
 *
 * A child of fork has only the forking thread; a lock another thread held
 * at that moment stays held in the child.  glibc's malloc takes its own
 * locks across fork, but a sanitizer's allocator may not (ASan of GCC 12
 * does not): a child forked while one of our calls on another thread was
 * inside malloc or free hung at its own first allocation (seen in the fault
 * suite, on the first event of a process writing the trace header).
 *
 * So the program's threads allocate and free our memory inside the gate
 * (pw_fg_malloc and its kin, or pw_forkgate_enter/leave around more), and
 * fork (pw_forkgate_close, from the library's pthread_atfork prepare
 * handler) waits until no thread is inside and none
 * can enter.  The gate is not on the hot path: a thread enters it to
 * register, to take a new trace buffer, to grow a table, to leave.
 */
#ifndef PW_FORKGATE_H
#define PW_FORKGATE_H

#include <stddef.h>

/* Around a malloc, calloc, realloc, strdup or free on a program's thread.
 * Nests; waits only while a fork is being prepared. */
void pw_forkgate_enter(void);
void pw_forkgate_leave(void);

/* The same, around one call: what the program's threads use. */
void *pw_fg_malloc(size_t n);
void *pw_fg_calloc(size_t n, size_t size);
char *pw_fg_strdup(const char *s);
void pw_fg_free(void *p);

/* pthread_atfork: prepare (waits for the threads inside), then parent or
 * child. */
void pw_forkgate_close(void);
void pw_forkgate_open_parent(void);
void pw_forkgate_open_child(void);

#endif

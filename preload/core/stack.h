/*
 * Call stacks: raw return addresses on the hot path, names in process only
 * for the stderr report and for suppressions (the analyzer symbolizes the
 * trace's raw addresses offline).
 *
 * The unwinder is libunwind.so.8, dlopen'ed RTLD_LOCAL by pw_stack_init()
 * (beside libpeerwatch.so first, so a relocatable bundle can carry it in
 * lib/, then the system's, never the program's own), so none of its symbols
 * enter the program's global scope, and set up so that it opens no
 * descriptor; without it, glibc's backtrace().  Before pw_stack_init() or
 * when neither works, pw_stack_capture() returns 0: stacks cost nothing when
 * off.
 */
#ifndef PW_STACK_H
#define PW_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most frames one capture returns; larger `max` values are cut to this. */
#define PW_STACK_MAX 64

/* Load the unwinder and prime it (both allocate): from the constructor, once,
 * while the process has one thread (libunwind is set up only then). */
void pw_stack_init(void);
/* The same, as if libpeerwatch.so were `self_path` (tests; NULL: no bundle). */
void pw_stack_init_at(const char *self_path);

/*
 * Raw return addresses of the caller's stack, innermost first, skipping
 * `skip` frames of peerwatch itself: with skip 0, ips[0] lies in the function
 * that called pw_stack_capture.  Never allocates after the first call on a
 * thread (libunwind sets up its per-thread cache then), never takes a lock
 * the application may hold, safe to call from any thread.  Returns the number
 * of frames, 0 if unwinding is unavailable.
 */
int pw_stack_capture(uintptr_t *ips, int max, int skip);

/*
 * Symbolize one address in process for a report: "func+0x1c (libfoo.so.1)"
 * or "0x7f... (libfoo.so.1+0x1234)" when no symbol, "0x7f..." when no module;
 * uses dladdr only (so only exported symbols have names); writes at most len
 * bytes, always NUL-terminated when len > 0, no allocation.  ip is a return
 * address: it is looked up at ip - 1, so that a call ending a function is
 * named after that function, and offsets are those of ip itself.
 */
void pw_stack_format(uintptr_t ip, char *out, size_t len);

/*
 * The parts separately, for suppression matching: function name ("" if
 * unknown) and module basename ("" if unknown).  Pointers into static or
 * loader memory, no copies; valid while the module stays loaded.
 */
void pw_stack_names(uintptr_t ip, const char **func, const char **module);

enum pw_stack_backend { PW_STACK_NONE, PW_STACK_LIBUNWIND, PW_STACK_BACKTRACE };
enum pw_stack_backend pw_stack_backend(void);
const char *pw_stack_backend_name(enum pw_stack_backend b); /* "none", "libunwind", "backtrace" */
/* Tests and benchmarks: switch to a backend (backtrace is primed here); false if unavailable. */
bool pw_stack_select(enum pw_stack_backend b);

/*
 * The word at addr, if it is readable: how the unwinder checks memory it
 * does not trust (libunwind's access_mem in our copy).  Asked of the kernel
 * (process_vm_readv of our own memory, or where a sandbox refuses that,
 * rt_sigprocmask given addr as the set), never through a descriptor; the
 * last pages found readable are remembered per thread.
 */
bool pw_stack_read(uintptr_t addr, uintptr_t *val);

/* "<dir of self_path>/name" into out; false if self_path has no '/' or out is too small. */
bool pw_stack_sibling(const char *self_path, const char *name, char *out, size_t len);

/* Where our own code is, for pw_stack_app: from the constructor, once. */
void pw_stack_find_self(void);
/* The stack as the application sees it: pw_stack_capture with our own
 * frames dropped, at most max of them. */
int pw_stack_app(uintptr_t *ips, int max);

#endif

/*
 * A stand-in for libnccl.so.2 in the default-suppression tests: its one
 * function frees device memory the way NCCL's legacy IPC teardown does, so
 * that the free's caller is a frame of a module named libnccl.so.2.  Built
 * without sibling calls: the free must be called from here, not jumped to.
 */
#include <stdint.h>

typedef int (*free_fn)(uint64_t);

__attribute__((visibility("default"), noinline)) int fake_nccl_teardown(free_fn f, uint64_t ptr)
{
	int r = f(ptr);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return r;
}

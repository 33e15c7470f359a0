/*
 * A cache of device allocations: which device the bytes at an address live
 * on, the allocation's base and size, and whether it is managed, pool or
 * host memory.  The copy wrappers ask it on every call instead of the driver
 * (cuPointerGetAttribute costs ~55 ns on an H200, docs/facts-cuda.md, "What the driver's calls cost").
 *
 * Design: one array of non-overlapping entries sorted by base, guarded by a
 * sequence counter (a seqlock) for readers and a mutex for writers.
 * - Readers (pw_range_find) take no lock and never wait: they read the
 *   counter, binary-search the array with relaxed atomic loads, and check the
 *   counter again.  Each thread keeps the last 4 entries it found, with the
 *   counter's value then: while it has not changed they are answered from
 *   there, without the search.  A reader that overlapped a write retries, at most
 *   PW_RANGE_TRIES times, then answers PW_RANGE_BUSY and the caller asks the
 *   driver (uncached).  No malloc, no system call, no store to shared memory:
 *   readers on many threads do not contend with each other.
 * - Writers (allocation and free wrappers, fills after a miss, the VMM hooks
 *   through pw_range_add/pw_range_remove) serialize on a mutex, make the
 *   counter odd, edit the array in place (memmove of the tail), and make it
 *   even again.  Allocation and free are rare next to copies, so the O(n)
 *   insert is paid where it is cheap relative to the call.
 * - When the array is full, the writer allocates one of twice the capacity,
 *   copies the entries and publishes its address inside the write section.  A
 *   reader may still be searching the old array: old arrays are never freed
 *   (deferred forever), which costs at most as much as the live one, since
 *   capacities double.  Entries are read through atomics, so a reader that
 *   races a writer reads stale values, never torn memory, and throws them away.
 * - Every insert gets an id.  A free removes the entry only if it still has
 *   the id it had before the real free call (pw_range_remove_id), so a free
 *   racing a new allocation at the same address cannot drop the new entry; a
 *   fill after a miss inserts only if nothing was written since the miss
 *   (pw_range_fill with the version pw_range_version gave before the driver
 *   was asked), so a stale answer is never cached.
 */
#ifndef PW_RANGECACHE_H
#define PW_RANGECACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define PW_RANGE_MANAGED 0x1u /* cuMemAllocManaged: no fixed device */
#define PW_RANGE_POOL 0x2u    /* from a stream-ordered pool (cuMemAllocAsync, FromPool) */
#define PW_RANGE_HOST 0x4u    /* host memory the driver knows (pinned, registered) */
#define PW_RANGE_VMM 0x8u     /* a virtual-memory mapping (pw_range_add from the VMM hooks) */

#define PW_RANGE_TRIES 4

struct pw_range {
	uint64_t base, size;
	int32_t dev; /* PW_NO_DEV if unknown */
	uint32_t flags;
	uint64_t id; /* given by the cache at insert */
};

enum pw_range_res { PW_RANGE_MISS, PW_RANGE_HIT, PW_RANGE_BUSY };

/* The entry holding p: lock-free, no malloc. */
enum pw_range_res pw_range_find(uint64_t p, struct pw_range *out);

/*
 * The entries this thread found last, each valid while the write counter
 * still has the value it had then (no write since): a copy's two pointers,
 * looked up again by the rules and by the driver call a runtime call makes,
 * are found here without the search.  Read inline by pw_range_mru_find, the
 * hot path's look-up: the call into pw_range_find, its frame and its
 * counter checks cost a traced copy more than the look-up itself
 * (bench/RESULTS.md).
 */
#define PW_RANGE_MRU 4
struct pw_range_mru {
	uint64_t seq, base, size, info, id; /* seq: the counter + 1 (0: empty) */
};
extern __thread __attribute__((tls_model("initial-exec"))) struct pw_range_mru pw_range_mru[PW_RANGE_MRU];
extern _Atomic uint64_t pw_range_seq; /* odd while a write is under way */

/* p in one of this thread's last entries, still valid: true with *out. */
static inline bool pw_range_mru_find(uint64_t p, struct pw_range *out)
{
	uint64_t s1 = atomic_load_explicit(&pw_range_seq, memory_order_acquire) + 1;
#pragma GCC unroll 4 /* PW_RANGE_MRU */
	for (unsigned k = 0; k < PW_RANGE_MRU; k++) {
		const struct pw_range_mru *m = &pw_range_mru[k];
		if (m->seq == s1 && p - m->base < m->size) {
			out->base = m->base;
			out->size = m->size;
			out->dev = (int32_t)(uint32_t)m->info;
			out->flags = (uint32_t)(m->info >> 32);
			out->id = m->id;
			return true;
		}
	}
	return false; /* not there, or a write since (or under way: s1 even) */
}
/* An even number that changes with every write; read it before asking the driver. */
uint64_t pw_range_version(void);

/* Host pages the runtime said it does not know, per thread, valid while the
 * cache has not changed since (each vendor's ptr_info asks the runtime only
 * for a page not listed here).  pw_range_neg_put takes the version read
 * before the runtime was asked. */
bool pw_range_neg_hit(uint64_t p);
void pw_range_neg_put(uint64_t p, uint64_t version);

/* Enter [base, base+size), replacing every entry it overlaps (their memory is
 * gone if the driver handed the range out again).  Returns the new id, 0 if
 * nothing was entered (size 0, out of memory). */
uint64_t pw_range_add(uint64_t base, uint64_t size, int dev, unsigned flags);
/* As pw_range_add, but only if no write happened since version. */
uint64_t pw_range_fill(uint64_t base, uint64_t size, int dev, unsigned flags, uint64_t version);
/* Remove the entry whose base is base (any id); true if there was one. */
bool pw_range_remove(uint64_t base);
/* Remove the entry whose base is base only if its id is id. */
bool pw_range_remove_id(uint64_t base, uint64_t id);
/* Entries now (tests, debug output). */
unsigned long pw_range_count(void);
/* Forget everything (tests). */
void pw_range_clear(void);

#endif

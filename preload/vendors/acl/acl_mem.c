/*
 * The allocations aclrtMalloc made, ptr -> (size, device, policy): ACL has
 * no call (in the facts we have) that says which device a pointer lives on
 * or with which policy it was allocated, so the layer remembers what it saw.
 *
 * A fixed table, lock-free: aclrtMalloc claims a slot by compare-and-swap of
 * its base and publishes it with `ready`; aclrtFree withdraws it; copies read
 * the slots below the high-water mark with acquire loads.  No malloc, no
 * lock on any path.  When the table is full, later allocations are unknown
 * to the rules (no finding rather than a wrong one).
 */
#include "vendors/acl/acl.h"

#define ACL_MEM_SLOTS 4096

static struct {
	_Atomic uint64_t base; /* 0: free */
	atomic_bool ready;
	uint64_t size;
	int dev, policy;
} slots[ACL_MEM_SLOTS];
static atomic_int high; /* slots [0, high) may be in use */

void pw_acl_mem_add(uint64_t base, uint64_t size, int dev, int policy)
{
	if (!base)
		return;
	for (int i = 0; i < ACL_MEM_SLOTS; i++) {
		uint64_t empty = 0;
		if (!atomic_compare_exchange_strong(&slots[i].base, &empty, base))
			continue;
		slots[i].size = size;
		slots[i].dev = dev;
		slots[i].policy = policy;
		atomic_store_explicit(&slots[i].ready, true, memory_order_release);
		int h = atomic_load(&high);
		while (h < i + 1 && !atomic_compare_exchange_weak(&high, &h, i + 1))
			;
		return;
	}
}

int pw_acl_mem_slot(uint64_t base)
{
	int n = atomic_load_explicit(&high, memory_order_acquire);
	for (int i = 0; base && i < n; i++)
		if (atomic_load_explicit(&slots[i].base, memory_order_relaxed) == base &&
		    atomic_load_explicit(&slots[i].ready, memory_order_acquire))
			return i;
	return -1;
}

void pw_acl_mem_remove_slot(int slot, uint64_t base)
{
	if (slot < 0 || slot >= ACL_MEM_SLOTS || !base ||
	    atomic_load_explicit(&slots[slot].base, memory_order_relaxed) != base ||
	    !atomic_load_explicit(&slots[slot].ready, memory_order_acquire))
		return;
	atomic_store_explicit(&slots[slot].ready, false, memory_order_relaxed);
	atomic_store_explicit(&slots[slot].base, 0, memory_order_release);
}

void pw_acl_mem_remove(uint64_t base)
{
	pw_acl_mem_remove_slot(pw_acl_mem_slot(base), base);
}

bool pw_acl_mem_find(uint64_t p, struct pw_acl_alloc *out)
{
	int n = atomic_load_explicit(&high, memory_order_acquire);
	for (int i = 0; p && i < n; i++) {
		uint64_t b = atomic_load_explicit(&slots[i].base, memory_order_relaxed);
		if (!b || p < b || !atomic_load_explicit(&slots[i].ready, memory_order_acquire))
			continue;
		uint64_t size = slots[i].size;
		if (p - b >= size && !(p == b && size == 0))
			continue;
		out->base = b;
		out->size = size;
		out->dev = slots[i].dev;
		out->policy = slots[i].policy;
		return true;
	}
	return false;
}

/* acl_rt.h: the *_P2P policies, "for the device-to-device copy scenario" (facts B3, B5). */
bool pw_acl_policy_p2p(int policy)
{
	switch (policy & 0xff) {
	case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
	case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
	case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
	case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P: return true;
	default: return false;
	}
}

/*
 * ACL's physical allocations (aclrtMallocPhysical) and the shareable
 * handles this process exported or imported them by: handle -> (size,
 * device, whether an import made it, the shareable handle).  As for
 * aclrtMalloc's table (acl_mem.c), ACL has no call that says which
 * shareable handle an allocation was exported as, so the layer remembers
 * what it saw.
 *
 * A fixed table, lock-free, the same way as acl_mem.c's: a slot is claimed
 * by compare-and-swap of its handle and published with `ready`.  When the
 * table is full, later allocations are unknown to the rules (no finding
 * rather than a wrong one).
 */
#include <string.h>

#include "vendors/acl/acl.h"

#define ACL_VMM_SLOTS 1024

static struct {
	_Atomic uint64_t handle; /* 0: free */
	uint64_t size;
	_Atomic uint64_t shareable; /* the shareable handle of the export or import */
	int dev;
	atomic_bool ready;
	bool imported;
	atomic_bool shared; /* exported, or made by an import */
} slots[ACL_VMM_SLOTS];
static atomic_int high; /* slots [0, high) may be in use */

void pw_acl_vmm_add(uint64_t handle, uint64_t size, int dev, bool imported, uint64_t shareable)
{
	if (!handle)
		return;
	for (int i = 0; i < ACL_VMM_SLOTS; i++) {
		uint64_t empty = 0;
		if (!atomic_compare_exchange_strong(&slots[i].handle, &empty, handle))
			continue;
		slots[i].size = size;
		slots[i].dev = dev;
		slots[i].imported = imported;
		atomic_store_explicit(&slots[i].shareable, shareable, memory_order_relaxed);
		atomic_store_explicit(&slots[i].shared, imported, memory_order_relaxed);
		atomic_store_explicit(&slots[i].ready, true, memory_order_release);
		int h = atomic_load(&high);
		while (h < i + 1 && !atomic_compare_exchange_weak(&high, &h, i + 1))
			;
		return;
	}
}

static int slot_of(uint64_t handle)
{
	int n = atomic_load_explicit(&high, memory_order_acquire);
	for (int i = 0; handle && i < n; i++)
		if (atomic_load_explicit(&slots[i].handle, memory_order_relaxed) == handle &&
		    atomic_load_explicit(&slots[i].ready, memory_order_acquire))
			return i;
	return -1;
}

static void fill(int i, struct pw_acl_vmm *out)
{
	out->handle = atomic_load_explicit(&slots[i].handle, memory_order_relaxed);
	out->size = slots[i].size;
	out->dev = slots[i].dev;
	out->imported = slots[i].imported;
	out->shared = atomic_load_explicit(&slots[i].shared, memory_order_acquire);
	out->shareable = atomic_load_explicit(&slots[i].shareable, memory_order_relaxed);
}

bool pw_acl_vmm_find(uint64_t handle, struct pw_acl_vmm *out)
{
	int i = slot_of(handle);
	if (i < 0)
		return false;
	fill(i, out);
	return true;
}

void pw_acl_vmm_exported(uint64_t handle, uint64_t shareable)
{
	int i = slot_of(handle);
	if (i < 0)
		return;
	atomic_store_explicit(&slots[i].shareable, shareable, memory_order_relaxed);
	atomic_store_explicit(&slots[i].shared, true, memory_order_release);
}

void pw_acl_vmm_remove(uint64_t handle)
{
	int i = slot_of(handle);
	if (i < 0)
		return;
	atomic_store_explicit(&slots[i].ready, false, memory_order_relaxed);
	atomic_store_explicit(&slots[i].handle, 0, memory_order_release);
}

bool pw_acl_vmm_of_shareable(uint64_t shareable, bool imported, struct pw_acl_vmm *out)
{
	int n = atomic_load_explicit(&high, memory_order_acquire);
	for (int i = 0; i < n; i++) {
		if (!atomic_load_explicit(&slots[i].handle, memory_order_relaxed) ||
		    !atomic_load_explicit(&slots[i].ready, memory_order_acquire) ||
		    !atomic_load_explicit(&slots[i].shared, memory_order_acquire) ||
		    slots[i].imported != imported ||
		    atomic_load_explicit(&slots[i].shareable, memory_order_relaxed) != shareable)
			continue;
		fill(i, out);
		return true;
	}
	return false;
}

/* The registry's and the state's 64 handle bytes of a shareable handle:
 * "PWACLVMM", then its 8 bytes; the rest zero. */
void pw_acl_vmm_key(uint64_t shareable, unsigned char key[PW_ACL_VMM_KEY_BYTES])
{
	static const unsigned char magic[8] = {'P', 'W', 'A', 'C', 'L', 'V', 'M', 'M'};
	memset(key, 0, PW_ACL_VMM_KEY_BYTES);
	memcpy(key, magic, sizeof magic);
	memcpy(key + sizeof magic, &shareable, sizeof shareable);
}

uint64_t pw_acl_share_value(uint64_t p, int type)
{
	if (!p)
		return 0;
	if (type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
		uint64_t v;
		memcpy(&v, (const void *)(uintptr_t)p, sizeof v);
		return v;
	}
	if (type != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
		return 0;
	const unsigned char *b = (const unsigned char *)(uintptr_t)p;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, 64 bits */
	for (size_t i = 0; i < PW_ACL_FABRIC_HANDLE_BYTES; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t pw_acl_share_arg(const struct pw_call *c, int i)
{
	uint64_t v = c->a[i];
	switch (c->fn->args[i].kind) {
	case PW_K_SHARE64: return v;
	case PW_K_SHAREPTR: return pw_acl_share_value(v, (int)(int64_t)c->a[i + 1]);
	case PW_K_OUT_SHARE64: return c->ret == ACL_SUCCESS && v ? *(const uint64_t *)(uintptr_t)v : 0;
	case PW_K_OUT_SHAREPTR:
		return c->ret == ACL_SUCCESS && i > 0 ? pw_acl_share_value(v, (int)(int64_t)c->a[i - 1]) : 0;
	default: return 0;
	}
}

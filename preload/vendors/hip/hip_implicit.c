/*
 * Implicit cross-device copies of HIP (hipMemcpy, hipMemcpyAsync,
 * hipMemcpyDtoD, hipMemcpyDtoDAsync) and the range cache that classifies
 * their pointers, as cuda_implicit.c does for CUDA: a copy between pointers
 * of two devices is recorded as a copy-family event with "implicit": true
 * (op implicit_copy) and checked like a peer copy; one within a device, to
 * or from the host, or of managed memory goes straight to the runtime with
 * two range-cache look-ups and no event.
 *
 * The cache learns hipMalloc's allocations as they are made (PW_NO_EVENT
 * rows), forgets what hipFree and hipIpcCloseMemHandle end, and asks the
 * runtime (hipPointerGetAttributes, hipMemGetAddressRange) on a miss.  Host
 * memory the runtime does not know is remembered per thread, by page, until
 * the cache changes, so a copy from a malloc'ed buffer does not ask every
 * time.
 */
#include "vendors/hip/hip.h"
#include "state/op.h"
#include "state/rangecache.h"

bool pw_hip_ptr_info(uint64_t p, struct pw_range *r)
{
	if (!p)
		return false;
	enum pw_range_res res = pw_range_find(p, r);
	if (PW_LIKELY(res == PW_RANGE_HIT))
		return true;
	if (res == PW_RANGE_BUSY)
		return pw_hip_runtime_info((const void *)(uintptr_t)p, r);
	if (pw_range_neg_hit(p))
		return false;
	uint64_t version = pw_range_version();
	if (!pw_hip_runtime_info((const void *)(uintptr_t)p, r)) {
		pw_range_neg_put(p, version);
		return false;
	}
	if (r->size && p >= r->base && p - r->base < r->size)
		r->id = pw_range_fill(r->base, r->size, r->dev, r->flags, version);
	return true;
}

/* The device a copy side lives on, or PW_NO_DEV for host memory, managed
 * memory and pointers nobody knows. */
static int side_dev(uint64_t p)
{
	struct pw_range r;
	if (!pw_hip_ptr_info(p, &r) || (r.flags & (PW_RANGE_MANAGED | PW_RANGE_HOST)))
		return PW_NO_DEV;
	return r.dev;
}

bool pw_hip_implicit_cross(struct pw_call *c)
{
	/* (dst, src, bytes, ...): only c->fn and c->a[] are set yet */
	/* cppcheck-suppress ctuuninitvar */
	int d = side_dev(c->a[0]);
	if (d == PW_NO_DEV)
		return false;
	int s = side_dev(c->a[1]);
	if (s == PW_NO_DEV || s == d)
		return false;
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c->dev[i] = PW_NO_DEV;
	c->dev[0] = d;
	c->dev[1] = s;
	return true;
}

/* Enter the allocation at p, as the runtime describes it. */
static void learn(uint64_t p)
{
	struct pw_range r;
	if (!p || !pw_hip_runtime_info((const void *)(uintptr_t)p, &r) || !r.size)
		return;
	pw_range_add(r.base, r.size, r.dev, r.flags);
}

void pw_hip_range_alloc(const struct pw_call *c)
{
	/* cppcheck-suppress ctuuninitvar */
	void *const *out = (void *const *)(uintptr_t)c->a[0];
	if (out)
		learn((uintptr_t)*out);
}

/* Before a free or an IPC close: the id of the entry it ends, so that the
 * removal after the call takes that entry and no later one at its address. */
uint64_t pw_hip_range_before(const struct pw_call *c)
{
	struct pw_range r;
	if (!(c->fn->flags & PW_RANGE_NOTE) || c->fn->args[0].kind != PW_K_PTR || !c->a[0])
		return 0;
	return pw_range_find(c->a[0], &r) == PW_RANGE_HIT && r.base == c->a[0] ? r.id : 0;
}

void pw_hip_range_after(const struct pw_call *c, uint64_t rid)
{
	if (!(c->fn->flags & PW_RANGE_NOTE) || c->ret != hipSuccess)
		return;
	if (c->fn->args[0].kind == PW_K_PTR && rid)
		pw_range_remove_id(c->a[0], rid); /* hipFree, hipIpcCloseMemHandle */
	else if (c->fn->args[0].kind == PW_K_OUT_PTR && c->a[0])
		learn((uintptr_t) *
		      (void *const *)(uintptr_t)c->a[0]); /* hipMallocManaged, hipIpcOpenMemHandle */
}

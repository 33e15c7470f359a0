/*
 * Simulated HIP runtime: managed memory.  hipMallocManaged memory is host
 * memory with per-page state (read-mostly, preferred location, accessed-by,
 * last prefetch location, coarse grain) that the range queries read back.
 * Nothing migrates.
 *
 * Range queries (facts A5): data sizes exactly 4 (AccessedBy: a multiple of
 * 4); NULL data, size 0, NULL pointer or count 0 -> InvalidValue.  Over a
 * range of pages: ReadMostly is 1 if every page is read-mostly; Preferred/
 * LastPrefetch location is the common value, else hipInvalidDeviceId;
 * AccessedBy lists the devices set on every page (hipCpuDeviceId first when
 * the host is), padded with hipInvalidDeviceId; CoherencyMode is the common
 * mode, else Indeterminate.  New managed memory is fine-grained (a choice:
 * the facts do not say).
 *
 * Choices: a range not wholly inside one managed allocation -> InvalidValue;
 * a device argument that is neither a device nor hipCpuDeviceId ->
 * InvalidDevice (where the advice uses it); an unknown advice ->
 * InvalidValue.
 */
#include "hip_sim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags)
{
	struct hsim_alloc *a;
	hipError_t rc;
	size_t npages;

	if (!dev_ptr || size == 0)
		return hipErrorInvalidValue;
	if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
		return hipErrorInvalidValue;
	hsim_topo();
	hsim_lock();
	rc = hsim_alloc_new(HSIM_KIND_MANAGED, size, hsim_current(), &a);
	if (rc == hipSuccess) {
		npages = a->map_size / page_size();
		a->pages = calloc(npages, sizeof(*a->pages));
		if (!a->pages) {
			hsim_alloc_retire(a);
			rc = hipErrorOutOfMemory;
		} else {
			a->flags = flags;
			for (size_t i = 0; i < npages; i++) {
				a->pages[i].preferred = hipInvalidDeviceId;
				a->pages[i].prefetched = hipInvalidDeviceId;
			}
		}
	}
	hsim_unlock();
	if (rc == hipSuccess)
		*dev_ptr = (void *)a->base;
	return rc;
}

/* The managed allocation holding [p, p+n) and its page span; caller locks. */
static struct hsim_alloc *managed_range(const void *p, size_t n, size_t *first, size_t *end)
{
	struct hsim_alloc *a = hsim_find_range((uintptr_t)p, n);
	size_t off;

	if (!a || a->kind != HSIM_KIND_MANAGED)
		return NULL;
	off = (uintptr_t)p - a->base;
	*first = off / page_size();
	*end = (off + n + page_size() - 1) / page_size();
	return a;
}

static int location_ok(int dev)
{
	return dev == hipCpuDeviceId || hsim_valid_device(dev);
}

static hipError_t prefetch(const void *dev_ptr, size_t count, int device, hipStream_t stream)
{
	struct hsim_alloc *a;
	size_t first, end;
	hipError_t rc;

	if (!dev_ptr || count == 0)
		return hipErrorInvalidValue;
	if (!location_ok(device))
		return hipErrorInvalidDevice;
	rc = hsim_stream_check(stream);
	if (rc)
		return rc;
	hsim_lock();
	a = managed_range(dev_ptr, count, &first, &end);
	if (a)
		for (size_t i = first; i < end; i++)
			a->pages[i].prefetched = device;
	hsim_unlock();
	return a ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device, hipStream_t stream)
{
	return prefetch(dev_ptr, count, device, stream);
}

static void advise_page(struct hsim_page *pg, hipMemoryAdvise advice, int device)
{
	switch (advice) {
	case hipMemAdviseSetReadMostly: pg->read_mostly = 1; break;
	case hipMemAdviseUnsetReadMostly: pg->read_mostly = 0; break;
	case hipMemAdviseSetPreferredLocation: pg->preferred = device; break;
	case hipMemAdviseUnsetPreferredLocation: pg->preferred = hipInvalidDeviceId; break;
	case hipMemAdviseSetAccessedBy:
	case hipMemAdviseUnsetAccessedBy: {
		int set = advice == hipMemAdviseSetAccessedBy;

		if (device == hipCpuDeviceId)
			pg->accessed_by_host = (uint8_t)set;
		else if (set)
			pg->accessed_by |= 1ull << device;
		else
			pg->accessed_by &= ~(1ull << device);
		break;
	}
	case hipMemAdviseSetCoarseGrain: pg->coarse = 1; break;
	case hipMemAdviseUnsetCoarseGrain: pg->coarse = 0; break;
	}
}

static hipError_t advise(const void *dev_ptr, size_t count, hipMemoryAdvise advice, int device)
{
	struct hsim_alloc *a;
	size_t first, end;

	if (!dev_ptr || count == 0)
		return hipErrorInvalidValue;
	switch (advice) {
	case hipMemAdviseSetReadMostly:
	case hipMemAdviseUnsetReadMostly:
	case hipMemAdviseUnsetPreferredLocation:
	case hipMemAdviseSetCoarseGrain:
	case hipMemAdviseUnsetCoarseGrain: break;
	case hipMemAdviseSetPreferredLocation:
	case hipMemAdviseSetAccessedBy:
	case hipMemAdviseUnsetAccessedBy:
		if (!location_ok(device))
			return hipErrorInvalidDevice;
		break;
	default: return hipErrorInvalidValue;
	}
	hsim_lock();
	a = managed_range(dev_ptr, count, &first, &end);
	if (a)
		for (size_t i = first; i < end; i++)
			advise_page(&a->pages[i], advice, device);
	hsim_unlock();
	return a ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipMemAdvise(const void *dev_ptr, size_t count, hipMemoryAdvise advice, int device)
{
	return advise(dev_ptr, count, advice, device);
}

#if PWSIM_HIP_MAJOR >= 7
/* hipMemLocation -> a device argument, as clr's ihipMemPrefetchAsync and
 * ihipMemAdvise read it (hip_hmm.cpp): Device -> its id (so {Device, -1} is
 * no device: InvalidDevice, not the CPU), Host, HostNuma and HostNumaCurrent
 * -> hipCpuDeviceId (no NUMA node is checked); Invalid and undefined types
 * -> -3, refused as InvalidValue by the callers. */
static int location_device(hipMemLocation loc, int *bad_device)
{
	*bad_device = 0;
	switch (loc.type) {
	case hipMemLocationTypeDevice: *bad_device = !hsim_valid_device(loc.id); return loc.id;
	case hipMemLocationTypeHost:
	case hipMemLocationTypeHostNuma:
	case hipMemLocationTypeHostNumaCurrent: return hipCpuDeviceId;
	default: return -3;
	}
}

/* clr: "if (flags != 0) HIP_RETURN(hipErrorInvalidValue)". */
hipError_t hipMemPrefetchAsync_v2(const void *dev_ptr, size_t count, hipMemLocation location,
                                  unsigned int flags, hipStream_t stream)
{
	int bad_device, dev = location_device(location, &bad_device);

	if (dev == -3 || flags != 0)
		return hipErrorInvalidValue;
	if (bad_device)
		return hipErrorInvalidDevice;
	return prefetch(dev_ptr, count, dev, stream);
}

/* ROCm 7.2: each range prefetched to the location whose first index is the
 * last at or below its own (the indices must rise from 0).  flags other
 * than 0 ("flags for future use, must be zero now"), count 0, NULL arrays,
 * no location, or indices that do not start at 0 and rise -> InvalidValue;
 * then each range as hipMemPrefetchAsync_v2, the first refused ending the
 * batch (choices, README). */
hipError_t hipMemPrefetchBatchAsync(void **dev_ptrs, size_t *sizes, size_t count,
                                    hipMemLocation *prefetch_locs, size_t *prefetch_loc_idxs,
                                    size_t num_prefetch_locs, unsigned long long flags, hipStream_t stream)
{
	if (flags != 0 || !count || !dev_ptrs || !sizes || !prefetch_locs || !prefetch_loc_idxs ||
	    !num_prefetch_locs || num_prefetch_locs > count || prefetch_loc_idxs[0] != 0)
		return hipErrorInvalidValue;
	for (size_t i = 1; i < num_prefetch_locs; i++)
		if (prefetch_loc_idxs[i] <= prefetch_loc_idxs[i - 1] || prefetch_loc_idxs[i] >= count)
			return hipErrorInvalidValue;
	size_t k = 0;
	for (size_t j = 0; j < count; j++) {
		while (k + 1 < num_prefetch_locs && prefetch_loc_idxs[k + 1] <= j)
			k++;
		hipError_t rc = hipMemPrefetchAsync_v2(dev_ptrs[j], sizes[j], prefetch_locs[k], 0, stream);
		if (rc)
			return rc;
	}
	return hipSuccess;
}

hipError_t hipMemAdvise_v2(const void *dev_ptr, size_t count, hipMemoryAdvise advice, hipMemLocation location)
{
	int bad_device, dev = location_device(location, &bad_device);

	if (dev == -3)
		return hipErrorInvalidValue;
	/* the read-mostly pair ignores the device (clr: isAdviseReadMostly) */
	if (bad_device && advice != hipMemAdviseSetReadMostly && advice != hipMemAdviseUnsetReadMostly)
		return hipErrorInvalidDevice;
	return advise(dev_ptr, count, advice, bad_device ? hipCpuDeviceId : dev);
}
#endif

/* ---- range queries ---- */

static int common_int(const struct hsim_alloc *a, size_t first, size_t end, size_t offset)
{
	int v, w;

	memcpy(&v, (const char *)&a->pages[first] + offset, sizeof(v));
	for (size_t i = first + 1; i < end; i++) {
		memcpy(&w, (const char *)&a->pages[i] + offset, sizeof(w));
		if (w != v)
			return hipInvalidDeviceId;
	}
	return v;
}

static hipError_t range_attr(void *data, size_t data_size, hipMemRangeAttribute attribute,
                             const struct hsim_alloc *a, size_t first, size_t end)
{
	int32_t v = 0;

	if (attribute == hipMemRangeAttributeAccessedBy) {
		size_t n = data_size / 4, k = 0;
		int host = 1;
		uint64_t devs = ~0ull;
		int32_t *out = data;

		if (data_size % 4)
			return hipErrorInvalidValue;
		for (size_t i = first; i < end; i++) {
			host &= a->pages[i].accessed_by_host;
			devs &= a->pages[i].accessed_by;
		}
		if (host && k < n)
			out[k++] = hipCpuDeviceId;
		for (int d = 0; d < PWSIM_TOPO_MAX_DEVICES && k < n; d++)
			if ((devs >> d) & 1)
				out[k++] = d;
		while (k < n)
			out[k++] = hipInvalidDeviceId;
		return hipSuccess;
	}
	if (data_size != 4)
		return hipErrorInvalidValue;
	switch (attribute) {
	case hipMemRangeAttributeReadMostly:
		v = 1;
		for (size_t i = first; i < end; i++)
			v &= a->pages[i].read_mostly;
		break;
	case hipMemRangeAttributePreferredLocation:
		v = common_int(a, first, end, offsetof(struct hsim_page, preferred));
		break;
	case hipMemRangeAttributeLastPrefetchLocation:
		v = common_int(a, first, end, offsetof(struct hsim_page, prefetched));
		break;
	case hipMemRangeAttributeCoherencyMode: {
		int coarse = a->pages[first].coarse;

		v = coarse ? hipMemRangeCoherencyModeCoarseGrain : hipMemRangeCoherencyModeFineGrain;
		for (size_t i = first + 1; i < end; i++)
			if (a->pages[i].coarse != coarse)
				v = hipMemRangeCoherencyModeIndeterminate;
		break;
	}
	default: return hipErrorInvalidValue;
	}
	memcpy(data, &v, sizeof(v));
	return hipSuccess;
}

hipError_t hipMemRangeGetAttribute(void *data, size_t data_size, hipMemRangeAttribute attribute,
                                   const void *dev_ptr, size_t count)
{
	struct hsim_alloc *a;
	size_t first, end;
	hipError_t rc = hipErrorInvalidValue;

	if (!data || data_size == 0 || !dev_ptr || count == 0)
		return hipErrorInvalidValue;
	hsim_lock();
	a = managed_range(dev_ptr, count, &first, &end);
	if (a)
		rc = range_attr(data, data_size, attribute, a, first, end);
	hsim_unlock();
	return rc;
}

/* Each attribute as hipMemRangeGetAttribute; num_attributes 0 or a NULL
 * array -> InvalidValue.  The first failure is returned. */
hipError_t hipMemRangeGetAttributes(void **data, size_t *data_sizes, hipMemRangeAttribute *attributes,
                                    size_t num_attributes, const void *dev_ptr, size_t count)
{
	if (!data || !data_sizes || !attributes || num_attributes == 0)
		return hipErrorInvalidValue;
	for (size_t i = 0; i < num_attributes; i++) {
		hipError_t rc =
		    hipMemRangeGetAttribute(data[i], data_sizes[i], attributes[i], dev_ptr, count);

		if (rc)
			return rc;
	}
	return hipSuccess;
}

/* facts A7: documented as a no-op that returns hipSuccess on AMD. */
hipError_t hipStreamAttachMemAsync(hipStream_t stream, void *dev_ptr, size_t length, unsigned int flags)
{
	(void)stream;
	(void)dev_ptr;
	(void)length;
	(void)flags;
	return hipSuccess;
}

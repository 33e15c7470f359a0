/*
 * Simulated CUDA driver: managed memory.  cuMemAllocManaged, cuMemAdvise and
 * cuMemPrefetchAsync (legacy CUdevice and _v2 CUmemLocation ABIs),
 * cuMemRangeGetAttribute(s) and cuStreamAttachMemAsync.
 *
 * The answers follow docs/facts-cuda.md's "Every contract case"; the advice is
 * kept per page (cuda.h :14440-14442, :14379-14381: ranges are rounded out to
 * CPU pages) as runs of pages with equal state, so that the range queries
 * answer what the advice and prefetch calls set.  The bytes stay where they
 * are; which processor holds each page, and the records of its faults and
 * migrations, are cuda_sim_um.c's, which reads this file's advice.
 *
 * Choices where docs/facts-cuda.md has no measurement:
 * - count 0 is refused for advice and range queries as it is for prefetch;
 * - a device location with a bad ordinal is refused even for the advice that
 *   ignores the location (the facts do not say which advice was measured with
 *   device 9); other location types are then not looked at, as cuda.h says;
 * - the host's NUMA nodes are those /sys/devices/system/node/online lists
 *   (node 0 alone without it); HOST_NUMA_CURRENT is stored as HOST_NUMA 0;
 *   a host location is stored with id CU_DEVICE_CPU;
 * - with PWSIM_PAGEABLE=1 (devices with pageable memory access, cuda.h
 *   :14443, :15662) advice, prefetch and stream attach take system memory:
 *   any address in no allocation of ours, freed ones excepted; nothing is
 *   recorded for it (the range queries still refuse it, cuda.h :14684).
 *   Without it (the measured H100 host: attribute 0) they refuse it;
 * - ACCESSED_BY lists devices in ascending order, then CU_DEVICE_CPU for the
 *   host, then CU_DEVICE_INVALID;
 * - cuStreamAttachMemAsync with CU_MEM_ATTACH_SINGLE refuses the legacy NULL
 *   stream (NULL in the base variant, CU_STREAM_LEGACY in either); the
 *   per-thread default stream is a specific stream and is accepted.
 */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* ---- allocation ---- */

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	/* facts line 69: flags 0 or CU_MEM_ATTACH_SINGLE -> INVALID_VALUE */
	if (!dptr || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	/* The facts' "size 0: success" is the runtime API's answer; the driver
	 * API on the H200s refused it (tests/gpu/RESULTS.md, 2026-11-22). */
	if (bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	rc = pwsim_alloc_new(PWSIM_KIND_MANAGED, bytesize, pwsim_current(), &a);
	if (rc == CUDA_SUCCESS) {
		a->segs = calloc(1, sizeof(*a->segs));
		if (!a->segs) {
			pwsim_alloc_retire(a);
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	if (rc == CUDA_SUCCESS) {
		a->nsegs = 1;
		a->segs[0].end = a->map_size / page_size();
		a->attach_flags = flags;
		*dptr = (CUdeviceptr)a->base;
	}
	pwsim_unlock();
	return rc;
}

/* ---- runs of pages ---- */

/* The live managed allocation holding [p, p+count), count > 0, and the pages
 * it covers, rounded out; NULL if there is none (INVALID_VALUE for every
 * caller: non-managed memory, past the end — facts lines 71, 73, 74, 76). */
static struct pwsim_alloc *managed_range(CUdeviceptr p, size_t count, size_t *first, size_t *end)
{
	struct pwsim_alloc *a = pwsim_find_range((uintptr_t)p, count);
	size_t pg = page_size();

	if (!a || a->kind != PWSIM_KIND_MANAGED)
		return NULL;
	*first = ((uintptr_t)p - a->base) / pg;
	*end = ((uintptr_t)p - a->base + count + pg - 1) / pg;
	return a;
}

/* System memory a call may take (PWSIM_PAGEABLE=1): no allocation of ours,
 * live or freed, holds p.  Caller holds the lock. */
static int system_memory(CUdeviceptr p)
{
	return p && pwsim_cfg()->pageable && !pwsim_find((uintptr_t)p);
}

/* Make a run boundary at page: split the run that strictly contains it. */
static int seg_split(struct pwsim_alloc *a, size_t page)
{
	struct pwsim_seg *s;
	size_t i;

	for (i = 0; i < a->nsegs && a->segs[i].end <= page; i++)
		;
	if (i == a->nsegs || a->segs[i].first == page)
		return 0;
	s = realloc(a->segs, (a->nsegs + 1) * sizeof(*s));
	if (!s)
		return -1;
	a->segs = s;
	memmove(&s[i + 1], &s[i], (a->nsegs - i) * sizeof(*s));
	a->nsegs++;
	s[i].end = page;
	s[i + 1].first = page;
	return 0;
}

static int seg_same(const struct pwsim_seg *x, const struct pwsim_seg *y)
{
	return x->read_mostly == y->read_mostly && x->preferred.type == y->preferred.type &&
	       x->preferred.id == y->preferred.id && x->prefetched.type == y->prefetched.type &&
	       x->prefetched.id == y->prefetched.id && x->accessed_by == y->accessed_by &&
	       x->accessed_by_host == y->accessed_by_host;
}

const struct pwsim_seg *pwsim_managed_seg(const struct pwsim_alloc *a, size_t page)
{
	for (size_t i = 0; i < a->nsegs; i++)
		if (page < a->segs[i].end)
			return &a->segs[i];
	return &a->segs[a->nsegs - 1];
}

/* Join neighbouring runs with equal state, so the list stays short. */
static void seg_merge(struct pwsim_alloc *a)
{
	size_t out = 0;

	for (size_t i = 1; i < a->nsegs; i++) {
		if (seg_same(&a->segs[out], &a->segs[i]))
			a->segs[out].end = a->segs[i].end;
		else
			a->segs[++out] = a->segs[i];
	}
	a->nsegs = out + 1;
}

typedef void (*seg_fn)(struct pwsim_seg *s, int what, CUmemLocation loc);

static CUresult seg_apply(struct pwsim_alloc *a, size_t first, size_t end, seg_fn fn, int what,
                          CUmemLocation loc)
{
	if (seg_split(a, first) || seg_split(a, end))
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; i < a->nsegs; i++)
		if (a->segs[i].first >= first && a->segs[i].end <= end)
			fn(&a->segs[i], what, loc);
	seg_merge(a);
	return CUDA_SUCCESS;
}

/* ---- locations ---- */

static CUmemLocation loc_make(CUmemLocationType type, int id)
{
	CUmemLocation l = {type, id};

	return l;
}

/* A valid location, normalised; -1 if it names no processor. */
static int loc_normalise(CUmemLocation in, CUmemLocation *out)
{
	switch (in.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE: *out = in; return pwsim_valid_device(in.id) ? 0 : -1;
	case CU_MEM_LOCATION_TYPE_HOST: *out = loc_make(CU_MEM_LOCATION_TYPE_HOST, CU_DEVICE_CPU); return 0;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA: *out = in; return pwsim_numa_node_ok(in.id) ? 0 : -1;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		*out = loc_make(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0);
		return 0;
	default: return -1;
	}
}

/* The legacy ABIs' CUdevice: an ordinal or CU_DEVICE_CPU. */
static CUmemLocation loc_from_device(CUdevice dev)
{
	if (dev == CU_DEVICE_CPU)
		return loc_make(CU_MEM_LOCATION_TYPE_HOST, CU_DEVICE_CPU);
	return loc_make(CU_MEM_LOCATION_TYPE_DEVICE, dev);
}

/* ---- advice ---- */

static void advise_seg(struct pwsim_seg *s, int advice, CUmemLocation loc)
{
	int host = loc.type != CU_MEM_LOCATION_TYPE_DEVICE;

	switch (advice) {
	case CU_MEM_ADVISE_SET_READ_MOSTLY: s->read_mostly = 1; break;
	case CU_MEM_ADVISE_UNSET_READ_MOSTLY: s->read_mostly = 0; break;
	case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: s->preferred = loc; break;
	case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
		s->preferred = loc_make(CU_MEM_LOCATION_TYPE_INVALID, 0);
		break;
	case CU_MEM_ADVISE_SET_ACCESSED_BY:
		if (host)
			s->accessed_by_host = 1;
		else
			s->accessed_by |= 1ull << loc.id;
		break;
	default: /* CU_MEM_ADVISE_UNSET_ACCESSED_BY */
		if (host)
			s->accessed_by_host = 0;
		else
			s->accessed_by &= ~(1ull << loc.id);
		break;
	}
}

/* cuda.h :14448-14535: only SET_PREFERRED_LOCATION and (UN)SET_ACCESSED_BY
 * look at the location; ACCESSED_BY takes a device or the host only. */
static int advice_location(CUmem_advise advice, CUmemLocation in, CUmemLocation *out)
{
	int uses = advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
	           advice == CU_MEM_ADVISE_SET_ACCESSED_BY || advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
	int accessed = advice >= CU_MEM_ADVISE_SET_ACCESSED_BY;

	*out = in;
	if (!uses)
		return in.type == CU_MEM_LOCATION_TYPE_DEVICE && !pwsim_valid_device(in.id) ? -1 : 0;
	if (accessed && in.type != CU_MEM_LOCATION_TYPE_DEVICE && in.type != CU_MEM_LOCATION_TYPE_HOST)
		return -1;
	return loc_normalise(in, out);
}

static CUresult advise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;
	CUmemLocation loc;
	size_t first, end;

	if (rc)
		return rc;
	/* facts line 73: advice 99 -> INVALID_VALUE */
	if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
		return CUDA_ERROR_INVALID_VALUE;
	if (advice_location(advice, location, &loc))
		return CUDA_ERROR_INVALID_VALUE; /* facts line 73: device 9 */
	pwsim_lock();
	a = managed_range(devPtr, count, &first, &end);
	/* facts line 72: an unaligned range is silently rounded out */
	if (a)
		rc = seg_apply(a, first, end, advise_seg, advice, loc);
	if (a && rc == CUDA_SUCCESS)
		pwsim_um_advised(a, first, end, advice, loc);
	else if (!a)
		rc = count && system_memory(devPtr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

/* Legacy ABI (cuda.h :25772): a device ordinal or CU_DEVICE_CPU. */
CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
	return advise(devPtr, count, advice, loc_from_device(device));
}

#if PWSIM_MAX_VERSION >= 12020
CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location)
{
	return advise(devPtr, count, advice, location);
}
#endif

/* ---- prefetch ---- */

static void prefetch_seg(struct pwsim_seg *s, int unused, CUmemLocation loc)
{
	(void)unused;
	s->prefetched = loc;
}

static CUresult prefetch(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                         CUstream hStream)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;
	CUmemLocation loc;
	size_t first, end;

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(hStream);
	if (rc)
		return rc;
	if (flags != 0) /* cuda.h :14419: "must be zero now" */
		return CUDA_ERROR_INVALID_VALUE;
	/* facts line 75: device 9 -> INVALID_DEVICE (not INVALID_VALUE as for advice) */
	if (loc_normalise(location, &loc))
		return location.type == CU_MEM_LOCATION_TYPE_DEVICE ? CUDA_ERROR_INVALID_DEVICE
		                                                    : CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	/* facts line 74: non-managed memory, count 0, past the end -> INVALID_VALUE */
	a = managed_range(devPtr, count, &first, &end);
	if (a)
		rc = seg_apply(a, first, end, prefetch_seg, 0, loc);
	if (a && rc == CUDA_SUCCESS)
		pwsim_um_prefetch(a, (uintptr_t)devPtr, count, loc);
	else if (!a)
		rc = count && system_memory(devPtr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

/* Legacy ABI (cuda.h :25769). */
CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
{
	return prefetch(devPtr, count, loc_from_device(dstDevice), 0, hStream);
}

CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
{
	return prefetch(devPtr, count, loc_from_device(dstDevice), 0, hStream);
}

#if PWSIM_MAX_VERSION >= 12020
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                               CUstream hStream)
{
	return prefetch(devPtr, count, location, flags, hStream);
}

CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                    unsigned int flags, CUstream hStream)
{
	return prefetch(devPtr, count, location, flags, hStream);
}
#endif

/* ---- range attributes (cuda.h :14682-14804) ---- */

/* facts line 76 and cuda.h: every attribute takes exactly 4 bytes, except
 * ACCESSED_BY, which takes a non-zero multiple of 4. */
static int range_size_ok(CUmem_range_attribute attr, size_t size)
{
	if (attr == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY)
		return size && size % 4 == 0;
	return attr >= CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
	       attr <= CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID && size == 4;
}

/* The location all pages of [first, end) share, or type INVALID. */
static CUmemLocation range_loc(const struct pwsim_alloc *a, size_t first, size_t end, int prefetched)
{
	CUmemLocation l = loc_make(CU_MEM_LOCATION_TYPE_INVALID, CU_DEVICE_INVALID);
	int seen = 0;

	for (size_t i = 0; i < a->nsegs; i++) {
		const struct pwsim_seg *s = &a->segs[i];
		CUmemLocation x = prefetched ? s->prefetched : s->preferred;

		if (s->end <= first || s->first >= end)
			continue;
		if (seen && (x.type != l.type || x.id != l.id))
			return loc_make(CU_MEM_LOCATION_TYPE_INVALID, CU_DEVICE_INVALID);
		l = x;
		seen = 1;
	}
	return l.type == CU_MEM_LOCATION_TYPE_INVALID
	           ? loc_make(CU_MEM_LOCATION_TYPE_INVALID, CU_DEVICE_INVALID)
	           : l;
}

/* The legacy int answer: a device ordinal, CU_DEVICE_CPU or CU_DEVICE_INVALID. */
static int loc_as_device(CUmemLocation l)
{
	if (l.type == CU_MEM_LOCATION_TYPE_DEVICE)
		return l.id;
	return l.type == CU_MEM_LOCATION_TYPE_INVALID ? CU_DEVICE_INVALID : CU_DEVICE_CPU;
}

static int range_read_mostly(const struct pwsim_alloc *a, size_t first, size_t end)
{
	for (size_t i = 0; i < a->nsegs; i++)
		if (a->segs[i].end > first && a->segs[i].first < end && !a->segs[i].read_mostly)
			return 0;
	return 1;
}

/* cuda.h :14699-14708: the devices advised for the whole range, then
 * CU_DEVICE_INVALID in the space left. */
static void range_accessed_by(const struct pwsim_alloc *a, size_t first, size_t end, int *out, size_t n)
{
	uint64_t devs = ~0ull;
	int host = 1;
	size_t k = 0;

	for (size_t i = 0; i < a->nsegs; i++) {
		if (a->segs[i].end > first && a->segs[i].first < end) {
			devs &= a->segs[i].accessed_by;
			host &= a->segs[i].accessed_by_host;
		}
	}
	for (int d = 0; d < PWSIM_MAX_DEVICES && k < n; d++)
		if ((devs >> d) & 1)
			out[k++] = d;
	if (host && k < n)
		out[k++] = CU_DEVICE_CPU;
	while (k < n)
		out[k++] = CU_DEVICE_INVALID;
}

static void range_attr(const struct pwsim_alloc *a, size_t first, size_t end, CUmem_range_attribute attr,
                       void *data, size_t size)
{
	CUmemLocation pref = range_loc(a, first, end, 0), last = range_loc(a, first, end, 1);
	int *v = data;

	switch (attr) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: *v = range_read_mostly(a, first, end); break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: *v = loc_as_device(pref); break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: *v = loc_as_device(last); break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: *v = pref.type; break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: *v = pref.id; break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: *v = last.type; break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: *v = last.id; break;
	default: range_accessed_by(a, first, end, v, size / 4); break;
	}
}

CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;
	size_t first, end;

	if (rc)
		return rc;
	if (!numAttributes || !data || !dataSizes || !attributes)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < numAttributes; i++)
		if (!data[i] || !range_size_ok(attributes[i], dataSizes[i]))
			return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = managed_range(devPtr, count, &first, &end);
	for (size_t i = 0; a && i < numAttributes; i++)
		range_attr(a, first, end, attributes[i], data[i], dataSizes[i]);
	pwsim_unlock();
	return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                CUdeviceptr devPtr, size_t count)
{
	return cuMemRangeGetAttributes(&data, &dataSize, &attribute, 1, devPtr, count);
}

/* ---- stream association (cuda.h :15651-15736) ---- */

static CUresult attach(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags, int per_thread)
{
	CUresult rc = pwsim_ready();
	int legacy_null = hStream == CU_STREAM_LEGACY || (!hStream && !per_thread);
	struct pwsim_alloc *a;

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(hStream);
	if (rc)
		return rc;
	/* facts line 77: flags 9, or SINGLE on the NULL stream -> INVALID_VALUE
	 * (cuda.h :15684: "It is illegal to attach singly to the NULL stream") */
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
		return CUDA_ERROR_INVALID_VALUE;
	if (flags == CU_MEM_ATTACH_SINGLE && legacy_null)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)dptr);
	/* cuda.h :15667: "length must be either zero or the entire allocation's
	 * size" (facts line 77: 4096 refused).  System memory only where the
	 * devices access pageable memory, and "length must be non-zero" for it
	 * (:15671; H100: malloc'd memory refused with the attribute 0). */
	if (!a && system_memory(dptr))
		rc = length ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	else if (!a || a->kind != PWSIM_KIND_MANAGED || (length && (dptr != a->base || length != a->size)))
		rc = CUDA_ERROR_INVALID_VALUE;
	else
		a->attach_flags = flags;
	pwsim_unlock();
	return rc;
}

CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags)
{
	return attach(hStream, dptr, length, flags, 0);
}

CUresult cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags)
{
	return attach(hStream, dptr, length, flags, 1);
}

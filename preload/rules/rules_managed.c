/*
 * Rules on managed memory: the CUDA Driver and Runtime API references
 * (cuMemAllocManaged, cuMemAdvise, cuMemPrefetchAsync, cuMemRangeGetAttribute(s),
 * cuStreamAttachMemAsync in cuda.h; their cuda* twins in cuda_runtime_api.h)
 * and the HIP Runtime API's Managed Memory section.  Each row of
 * include/peerwatch/rules_table.h quotes the sentences a rule enforces.
 */
#include <inttypes.h>
#include <stdio.h>

#include "rules/rules.h"

#define PW_PAGE 4096u

PW_RULE_FN(MANAGED_ALLOC_SIZE_ZERO)
{
	(void)s;
	if (op->bytes)
		return false;
	snprintf(msg, len, "%s of 0 bytes", op->api);
	return true;
}

/* HIP Runtime API, Managed Memory, hipMallocManaged: "It is recommend to do the capability check before call
 * this API" (hipDeviceGetAttribute, hipDeviceAttributeManagedMemory): asked of the device the allocation is
 * made on, before it. */
PW_RULE_FN(MANAGED_ALLOC_UNQUERIED)
{
	if (!pw_dev_ok(op->cur_dev) || pw_managed_asked(s, op->cur_dev))
		return false;
	snprintf(msg, len,
	         "%s on device %d without asking first whether device %d supports managed memory "
	         "(hipDeviceGetAttribute, hipDeviceAttributeManagedMemory)",
	         op->api, op->cur_dev, op->cur_dev);
	return true;
}

/* HIP, hipMallocManaged: "it should be granularity of 4KB". */
PW_RULE_FN(MANAGED_ALLOC_GRANULARITY)
{
	(void)s;
	if (!op->bytes || op->bytes % PW_PAGE == 0)
		return false;
	snprintf(msg, len, "%s of %" PRIu64 " bytes, not a multiple of 4 KiB", op->api, op->bytes);
	return true;
}

/* HIP: "must be either hipMemAttachGlobal or hipMemAttachHost"; cuda.h the same. */
PW_RULE_FN(MANAGED_ALLOC_FLAGS)
{
	(void)s;
	if (op->flags == 0x1 || op->flags == 0x2)
		return false;
	snprintf(msg, len, "%s with flags 0x%llx; they must be attach-global (0x1) or attach-host (0x2)",
	         op->api, (unsigned long long)op->flags);
	return true;
}

/* ---- what the pointer of a managed-memory call is ---- */

/* System memory (no allocation the runtime knows, not freed) that CUDA lets
 * a call take: where the device(s) concerned report pageable memory access
 * (CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, HMM or ATS systems). */
static bool system_mem(const struct pw_op *op)
{
	return op->dst.ptr && !op->dst.known && !op->dst.managed && !op->dst_freed;
}

static bool pageable_ok(const struct pw_op *op)
{
	return op->vendor == PW_VENDOR_CUDA && system_mem(op) && op->pageable == 1;
}

/* "which is ..." for a pointer that is not managed memory. */
static const char *what(const struct pw_op *op, char *buf, size_t len)
{
	const struct pw_mem *m = &op->dst;
	if (!m->ptr)
		return "NULL";
	if (op->dst_freed) {
		if (op->freed_size)
			snprintf(buf, len,
			         "freed: it lies in the allocation of %" PRIu64 " bytes at 0x%" PRIx64
			         " that this process freed",
			         op->freed_size, op->freed_base);
		else
			snprintf(buf, len, "freed: this process freed the allocation at 0x%" PRIx64,
			         op->freed_base);
		return buf;
	}
	if (m->known && m->pool)
		return op->vendor == PW_VENDOR_CUDA
		           ? "stream-ordered pool memory (cuMemAllocAsync), not managed memory"
		           : "stream-ordered pool memory, not managed memory";
	if (m->known && m->host)
		return "page-locked host memory, not managed memory";
	if (m->known)
		return "device memory, not managed memory";
	if (op->vendor != PW_VENDOR_CUDA)
		return "not memory the runtime allocated";
	if (op->pageable < 0)
		return "system memory the driver did not allocate (whether the devices can access pageable "
		       "memory could not be asked)";
	if (op->pageable_dev != PW_NO_DEV)
		snprintf(buf, len,
		         "system memory the driver did not allocate, and device %d cannot access pageable "
		         "memory (CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS is 0: no HMM or ATS)",
		         op->pageable_dev);
	else
		snprintf(buf, len,
		         "system memory the driver did not allocate, and the devices cannot access pageable "
		         "memory (CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS is 0: no HMM or ATS)");
	return buf;
}

/* ---- locations ---- */

static const char *loc_name(int type)
{
	switch (type) {
	case PW_LOCT_INVALID: return "invalid";
	case PW_LOCT_DEVICE: return "device";
	case PW_LOCT_HOST: return "host";
	case PW_LOCT_HOST_NUMA: return "host_numa";
	case PW_LOCT_HOST_NUMA_CURRENT: return "host_numa_current";
	default: return NULL;
	}
}

/* "{type, id}" as the trace writes a location, or "device N" for a plain device argument. */
static const char *loc_str(const struct pw_op *op, char *buf, size_t len)
{
	const char *t = loc_name(op->loc_type);
	if (!op->loc_struct)
		snprintf(buf, len, "device %d", op->loc_id);
	else if (t)
		snprintf(buf, len, "{%s, %d}", t, op->loc_id);
	else
		snprintf(buf, len, "{type %d, %d}", op->loc_raw, op->loc_id);
	return buf;
}

/* A device location whose id is no device of the process. */
static bool bad_device(const struct pw_op *op)
{
	return op->loc_type == PW_LOCT_DEVICE && (op->loc_id < 0 || (op->ndev > 0 && op->loc_id >= op->ndev));
}

/* Why a device location is no device, in words. */
static void say_bad_device(const struct pw_op *op, const char *verb, char *msg, size_t len)
{
	char l[48];
	if (op->loc_struct && op->loc_id == -1)
		snprintf(msg, len,
		         "%s %s {device, -1}: -1 names the CPU only as a plain device number "
		         "(%s); in a location it is no device, and the host is {host, 0}",
		         op->api, verb,
		         op->vendor == PW_VENDOR_CUDA ? "CU_DEVICE_CPU, cudaCpuDeviceId" : "hipCpuDeviceId");
	else
		snprintf(msg, len, "%s %s %s, but the process has %d device%s", op->api, verb,
		         loc_str(op, l, sizeof l), op->ndev, op->ndev == 1 ? "" : "s");
}

/* Advice that uses its location: set-preferred-location, (un)set-accessed-by. */
static bool advice_takes_location(int advice)
{
	return advice == 3 || advice == 5 || advice == 6;
}

static const char *advice_name(int advice)
{
	static const char *const n[] = {NULL,
	                                "set-read-mostly",
	                                "unset-read-mostly",
	                                "set-preferred-location",
	                                "unset-preferred-location",
	                                "set-accessed-by",
	                                "unset-accessed-by"};
	return advice > 0 && advice < 7 ? n[advice] : "coarse-grain";
}

/* ---- advice ---- */

/* CUDA: "The memory range must refer to managed memory allocated via
 * cuMemAllocManaged ... could also refer to system-allocated pageable memory"
 * (where the device can access it); HIP: "The memory range must refer to
 * managed memory allocated via the API hipMallocManaged". */
PW_RULE_FN(MANAGED_ADVISE_NOT_MANAGED)
{
	(void)s;
	char b[200];
	if (op->dst.managed || pageable_ok(op))
		return false;
	snprintf(msg, len, "%s on 0x%" PRIx64 ", which is %s", op->api, op->dst.ptr, what(op, b, sizeof b));
	return true;
}

/* HIP: "count ... it should be CPU page size alligned". */
PW_RULE_FN(MANAGED_ADVISE_UNALIGNED)
{
	(void)s;
	if (!op->dst.managed || (op->dst.ptr % PW_PAGE == 0 && op->bytes % PW_PAGE == 0))
		return false;
	snprintf(msg, len,
	         "%s on 0x%" PRIx64 " + %" PRIu64
	         " bytes, not page aligned: the advice applies to the whole pages "
	         "around it",
	         op->api, op->dst.ptr, op->bytes);
	return true;
}

static bool outside(const struct pw_mem *m, uint64_t bytes)
{
	return m->known && (m->ptr - m->base > m->size || bytes > m->size - (m->ptr - m->base));
}

/* The range of a managed-memory call: empty, or past the end of its allocation. */
static bool bad_range(const struct pw_op *op)
{
	return op->dst.managed && (!op->bytes || outside(&op->dst, op->bytes));
}

static void say_bad_range(const struct pw_op *op, const char *verb, char *msg, size_t len)
{
	if (!op->bytes)
		snprintf(msg, len, "%s %s 0 bytes at 0x%" PRIx64 ": the range is empty", op->api, verb,
		         op->dst.ptr);
	else
		snprintf(msg, len,
		         "%s %s %" PRIu64 " bytes at 0x%" PRIx64 " of a managed allocation of %" PRIu64
		         " bytes at 0x%" PRIx64 ": the range runs %" PRIu64
		         " bytes past its end (a range must lie in one allocation, even where another "
		         "one follows it)",
		         op->api, verb, op->bytes, op->dst.ptr, op->dst.size, op->dst.base,
		         op->bytes - (op->dst.size - (op->dst.ptr - op->dst.base)));
}

PW_RULE_FN(MANAGED_ADVISE_OUT_OF_RANGE)
{
	(void)s;
	if (!bad_range(op))
		return false;
	say_bad_range(op, "on", msg, len);
	return true;
}

/* CUDA: the advice values of CUmem_advise, and for a device location "a valid
 * device ordinal"; HIP: a hipMemoryAdvise value, "device to apply the advice for". */
PW_RULE_FN(MANAGED_ADVISE_INVALID)
{
	(void)s;
	bool advice_ok = op->advice >= 1 && op->advice <= 6;
	/* HIP also has hipMemAdviseSet/UnsetCoarseGrain (100, 101: [H52]:726), which take no device */
	advice_ok = advice_ok || (op->vendor == PW_VENDOR_HIP && (op->advice == 100 || op->advice == 101));
	if (!advice_ok) {
		snprintf(msg, len, "%s with advice %d, which is not a defined advice", op->api, op->advice);
		return true;
	}
	if (!advice_takes_location(op->advice) || !bad_device(op))
		return false;
	say_bad_device(op, "for", msg, len);
	return true;
}

/* CUDA (cuda.h, cuMemAdvise): set-preferred-location takes a device, the
 * host, a host NUMA node ("the NUMA ID of the host NUMA node") or the
 * current one; set/unset-accessed-by "must be either
 * CU_MEM_LOCATION_TYPE_DEVICE ... or CU_MEM_LOCATION_TYPE_HOST ... All other
 * location types are invalid".  HIP (clr) takes the same types and refuses
 * type invalid and undefined types; it checks no NUMA node. */
PW_RULE_FN(MANAGED_ADVISE_LOCATION)
{
	(void)s;
	char l[48];
	bool cuda = op->vendor == PW_VENDOR_CUDA;
	if (!advice_takes_location(op->advice))
		return false;
	switch (op->loc_type) {
	case PW_LOCT_INVALID:
		snprintf(msg, len, "%s (%s) for location %s: type invalid names no processor", op->api,
		         advice_name(op->advice), loc_str(op, l, sizeof l));
		return true;
	case PW_LOCT_UNDEFINED:
		snprintf(msg, len, "%s (%s) for location type %d, which is not a location type", op->api,
		         advice_name(op->advice), op->loc_raw);
		return true;
	case PW_LOCT_HOST_NUMA:
	case PW_LOCT_HOST_NUMA_CURRENT:
		if (cuda && op->advice != 3) {
			snprintf(
			    msg, len,
			    "%s (%s) for location %s: this advice takes a device or the host ({host, 0}), "
			    "no other location type",
			    op->api, advice_name(op->advice), loc_str(op, l, sizeof l));
			return true;
		}
		if (cuda && op->loc_type == PW_LOCT_HOST_NUMA && !op->loc_numa_ok) {
			snprintf(msg, len, "%s (%s) for location %s, but this host has no NUMA node %d",
			         op->api, advice_name(op->advice), loc_str(op, l, sizeof l), op->loc_id);
			return true;
		}
		return false;
	default: return false;
	}
}

/* ---- prefetch ---- */

/* CUDA runtime: "The memory range must refer to managed memory allocated via
 * cudaMallocManaged ..., or it may also refer to system-allocated memory on
 * systems with non-zero cudaDevAttrPageableMemoryAccess". */
PW_RULE_FN(MANAGED_PREFETCH_NOT_MANAGED)
{
	(void)s;
	char b[200];
	if (op->dst.managed || pageable_ok(op))
		return false;
	snprintf(msg, len, "%s of 0x%" PRIx64 ", which is %s", op->api, op->dst.ptr, what(op, b, sizeof b));
	return true;
}

PW_RULE_FN(MANAGED_PREFETCH_INVALID_DEVICE)
{
	(void)s;
	if (!bad_device(op))
		return false;
	say_bad_device(op, "to", msg, len);
	return true;
}

/* CUDA: the device, the host, "a valid host NUMA node id", or the current
 * NUMA node; HIP (clr): the same types, type invalid and undefined types refused. */
PW_RULE_FN(MANAGED_PREFETCH_LOCATION)
{
	(void)s;
	char l[48];
	switch (op->loc_type) {
	case PW_LOCT_INVALID:
		snprintf(msg, len, "%s to location %s: type invalid names no processor", op->api,
		         loc_str(op, l, sizeof l));
		return true;
	case PW_LOCT_UNDEFINED:
		snprintf(msg, len, "%s to location type %d, which is not a location type", op->api,
		         op->loc_raw);
		return true;
	case PW_LOCT_HOST_NUMA:
		if (op->vendor != PW_VENDOR_CUDA || op->loc_numa_ok)
			return false;
		snprintf(msg, len, "%s to location %s, but this host has no NUMA node %d", op->api,
		         loc_str(op, l, sizeof l), op->loc_id);
		return true;
	default: return false;
	}
}

/* cuda.h and HIP 7: "flags - flags for future use, must be zero now". */
PW_RULE_FN(MANAGED_PREFETCH_FLAGS)
{
	(void)s;
	if (!op->flags)
		return false;
	snprintf(msg, len, "%s with flags 0x%llx; the flags are for future use and must be 0", op->api,
	         (unsigned long long)op->flags);
	return true;
}

PW_RULE_FN(MANAGED_PREFETCH_OUT_OF_RANGE)
{
	(void)s;
	if (!bad_range(op))
		return false;
	say_bad_range(op, "of", msg, len);
	return true;
}

/* ---- range attributes ---- */

/* The attributes of the vendor: CUDA's 1..8 (cuda.h :1139-1146, the _TYPE and
 * _ID ones from 12.2), HIP's 1..4 and CoherencyMode 100 ([H52]:747-756). */
static bool attr_defined(const struct pw_op *op, int attr)
{
	if (op->vendor == PW_VENDOR_HIP)
		return (attr >= 1 && attr <= 4) || attr == 100;
	return attr >= 1 && attr <= 8;
}

/* cuda.h: ReadMostly, PreferredLocation, LastPrefetchLocation and the _TYPE/_ID
 * ones take exactly 4 bytes, AccessedBy "a non-zero multiple of 4" (HIP alike). */
static bool size_ok(int attr, size_t size)
{
	if (attr == 3)
		return size && size % 4 == 0;
	return size == 4;
}

PW_RULE_FN(MANAGED_RANGE_ATTR_DATA_SIZE)
{
	(void)s;
	for (int i = 0; i < op->nattrs; i++) {
		int attr = op->attrs ? op->attrs[i] : op->one_attr;
		size_t size = op->data_sizes ? op->data_sizes[i] : op->one_size;
		if (!attr_defined(op, attr) || size_ok(attr, size))
			continue;
		snprintf(msg, len, "%s asks for attribute %d with %zu bytes of data; it needs %s", op->api,
		         attr, size, attr == 3 ? "a non-zero multiple of 4" : "exactly 4");
		return true;
	}
	return false;
}

/* cuda.h: "The attribute parameter can take the following values"; data is
 * where "the result ... will be written to"; numAttributes "Number of
 * attributes to query". */
PW_RULE_FN(MANAGED_RANGE_ATTR_INVALID)
{
	(void)s;
	if (op->attr_args_bad) {
		if (!op->attrs && op->nattrs == 1)
			snprintf(msg, len, "%s with data NULL: there is nowhere to write the answer",
			         op->api);
		else
			snprintf(
			    msg, len,
			    "%s with a NULL data, dataSizes or attributes array, a NULL entry of data, or "
			    "no attribute to ask for",
			    op->api);
		return true;
	}
	for (int i = 0; i < op->nattrs; i++) {
		int attr = op->attrs ? op->attrs[i] : op->one_attr;
		if (attr_defined(op, attr))
			continue;
		snprintf(msg, len, "%s asks for attribute %d, which is not a range attribute", op->api, attr);
		return true;
	}
	return false;
}

/* cuda.h: "The memory range must refer to managed memory allocated via
 * cuMemAllocManaged or declared via __managed__ variables" (no pageable
 * exception for the queries). */
PW_RULE_FN(MANAGED_RANGE_ATTR_NOT_MANAGED)
{
	(void)s;
	char b[200];
	if (op->dst.managed)
		return false;
	if (system_mem(op) && op->vendor == PW_VENDOR_CUDA)
		snprintf(msg, len,
		         "%s over 0x%" PRIx64 ", which is system memory the driver did not allocate", op->api,
		         op->dst.ptr);
	else
		snprintf(msg, len, "%s over 0x%" PRIx64 ", which is %s", op->api, op->dst.ptr,
		         what(op, b, sizeof b));
	return true;
}

PW_RULE_FN(MANAGED_RANGE_ATTR_OUT_OF_RANGE)
{
	(void)s;
	if (!bad_range(op))
		return false;
	say_bad_range(op, "over", msg, len);
	return true;
}

/* ---- stream attach ---- */

/* cuda.h: dptr "must point to ... managed memory ... or a valid host-accessible
 * region of system-allocated pageable memory. This type of memory may only be
 * specified if the device associated with the stream reports a non-zero
 * value for ... CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS"; HIP: "must be a
 * pointer to managed memory or to a valid host-accessible region of
 * system-allocated memory" (no device condition). */
PW_RULE_FN(MANAGED_ATTACH_NOT_MANAGED)
{
	(void)s;
	char b[200];
	if (op->dst.managed || pageable_ok(op) || (op->vendor == PW_VENDOR_HIP && system_mem(op)))
		return false;
	snprintf(msg, len, "%s of 0x%" PRIx64 ", which is %s", op->api, op->dst.ptr, what(op, b, sizeof b));
	return true;
}

/* cuda.h: "For managed allocations, length must be either zero or the entire
 * allocation's size"; "For pageable host allocations, length must be non-zero". */
PW_RULE_FN(MANAGED_ATTACH_LENGTH)
{
	(void)s;
	if (pageable_ok(op) && op->bytes == 0) {
		snprintf(msg, len,
		         "%s of 0 bytes of system memory at 0x%" PRIx64
		         ": for pageable memory the length must be non-zero (it is the range attached)",
		         op->api, op->dst.ptr);
		return true;
	}
	if (!op->dst.managed || !op->dst.known || op->bytes == 0 ||
	    (op->dst.ptr == op->dst.base && op->bytes == op->dst.size))
		return false;
	snprintf(msg, len,
	         "%s of %" PRIu64 " bytes at 0x%" PRIx64
	         "; the length must be 0 or the whole allocation (%" PRIu64 " bytes at 0x%" PRIx64 ")",
	         op->api, op->bytes, op->dst.ptr, op->dst.size, op->dst.base);
	return true;
}

static bool attach_flags_defined(uint64_t flags)
{
	return flags == 0x1 || flags == 0x2 || flags == 0x4;
}

/* HIP and cuda.h: "must be one of hipMemAttachGlobal, hipMemAttachHost or
 * hipMemAttachSingle" (CUmemAttach_flags); cuda.h: "It is illegal to attach
 * singly to the NULL stream" (CUDA only: HIP's document says nothing of it). */
PW_RULE_FN(MANAGED_ATTACH_FLAGS)
{
	(void)s;
	bool defined = attach_flags_defined(op->flags);
	bool single_null = op->vendor == PW_VENDOR_CUDA && op->flags == 0x4 && op->null_stream;
	if (defined && !single_null)
		return false;
	if (!defined)
		snprintf(
		    msg, len,
		    "%s with flags 0x%llx; they must be one of attach-global, attach-host, attach-single",
		    op->api, (unsigned long long)op->flags);
	else
		snprintf(msg, len,
		         "%s attaches singly to the legacy NULL stream, which is no specific stream "
		         "(the per-thread stream, cudaStreamPerThread, is one)",
		         op->api);
	return true;
}

/* HIP's document imposes neither of CUDA's attach rules, and ROCm 5 to 7
 * accept both (the call is a no-op): what CUDA refuses is flagged as a
 * portability warning. */
PW_RULE_FN(MANAGED_ATTACH_PORTABILITY)
{
	(void)s;
	if (op->dst.managed && op->dst.known && op->bytes &&
	    !(op->dst.ptr == op->dst.base && op->bytes == op->dst.size)) {
		snprintf(msg, len,
		         "%s of %" PRIu64 " bytes at 0x%" PRIx64 " of the managed allocation of %" PRIu64
		         " bytes at 0x%" PRIx64
		         ": HIP accepts it, but CUDA requires 0 or the whole allocation (invalid value)",
		         op->api, op->bytes, op->dst.ptr, op->dst.size, op->dst.base);
		return true;
	}
	if (op->flags == 0x4 && op->null_stream) {
		snprintf(
		    msg, len,
		    "%s attaches singly to the NULL stream: HIP accepts it, but CUDA refuses it (invalid "
		    "value: the NULL stream is no specific stream)",
		    op->api);
		return true;
	}
	return false;
}

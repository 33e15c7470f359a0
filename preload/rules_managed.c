/* Rules on managed memory (seed 004, cuda.h cuMem* managed functions). */
#include <inttypes.h>
#include <stdio.h>

#include "rules.h"

#define PW_PAGE 4096u

PW_RULE_FN(MANAGED_ALLOC_SIZE_ZERO)
{
	(void)s;
	if (op->bytes)
		return false;
	snprintf(msg, len, "%s of 0 bytes", op->api);
	return true;
}

/* 004: "it should be granularity of 4KB". */
PW_RULE_FN(MANAGED_ALLOC_GRANULARITY)
{
	(void)s;
	if (!op->bytes || op->bytes % PW_PAGE == 0)
		return false;
	snprintf(msg, len, "%s of %" PRIu64 " bytes, not a multiple of 4 KiB", op->api, op->bytes);
	return true;
}

/* 004: "must be either hipMemAttachGlobal or hipMemAttachHost". */
PW_RULE_FN(MANAGED_ALLOC_FLAGS)
{
	(void)s;
	if (op->flags == 0x1 || op->flags == 0x2)
		return false;
	snprintf(msg, len, "%s with flags 0x%llx; they must be attach-global (0x1) or attach-host (0x2)",
	         op->api, (unsigned long long)op->flags);
	return true;
}

static bool not_managed(const struct pw_op *op)
{
	return op->dst.ptr && !op->dst.managed;
}

/* 004: "The memory range must refer to managed memory". */
PW_RULE_FN(MANAGED_ADVISE_NOT_MANAGED)
{
	(void)s;
	if (!not_managed(op))
		return false;
	snprintf(msg, len, "%s on 0x%" PRIx64 ", which is %s", op->api, op->dst.ptr,
	         op->dst.known ? "device memory, not managed memory" : "not memory the runtime allocated");
	return true;
}

/* 004: "it should be CPU page size aligned". */
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

PW_RULE_FN(MANAGED_ADVISE_OUT_OF_RANGE)
{
	(void)s;
	if (!op->dst.managed || (!outside(&op->dst, op->bytes) && op->bytes))
		return false;
	snprintf(msg, len,
	         "%s on %" PRIu64 " bytes at 0x%" PRIx64 " of a managed allocation of %" PRIu64
	         " bytes at 0x%" PRIx64 ": the range %s",
	         op->api, op->bytes, op->dst.ptr, op->dst.size, op->dst.base,
	         op->bytes ? "runs past its end" : "is empty");
	return true;
}

static bool bad_device(const struct pw_op *op)
{
	if (!op->loc_valid)
		return true;
	if (op->loc_dev == PW_LOC_CPU || op->loc_dev == PW_LOC_NONE)
		return false;
	return op->loc_dev < 0 || (op->ndev > 0 && op->loc_dev >= op->ndev);
}

/* 004: "advice - advice to be applied"; "device - device to apply the advice for". */
PW_RULE_FN(MANAGED_ADVISE_INVALID)
{
	(void)s;
	bool advice_ok = op->advice >= 1 && op->advice <= 6;
	/* HIP also has hipMemAdviseSet/UnsetCoarseGrain (100, 101: [H52]:726), which take no device */
	advice_ok = advice_ok || (op->vendor == PW_VENDOR_HIP && (op->advice == 100 || op->advice == 101));
	/* unset-preferred-location and the read-mostly pair take no device */
	bool needs_dev = op->advice == 3 || op->advice == 5 || op->advice == 6;
	if (advice_ok && !(needs_dev && bad_device(op)))
		return false;
	if (!advice_ok)
		snprintf(msg, len, "%s with advice %d, which is not a defined advice", op->api, op->advice);
	else
		snprintf(msg, len, "%s for device %d, but the process has %d device%s", op->api, op->loc_dev,
		         op->ndev, op->ndev == 1 ? "" : "s");
	return true;
}

PW_RULE_FN(MANAGED_PREFETCH_NOT_MANAGED)
{
	(void)s;
	if (!not_managed(op))
		return false;
	snprintf(msg, len, "%s of 0x%" PRIx64 ", which is %s", op->api, op->dst.ptr,
	         op->dst.known ? "device memory, not managed memory" : "not memory the runtime allocated");
	return true;
}

PW_RULE_FN(MANAGED_PREFETCH_INVALID_DEVICE)
{
	(void)s;
	if (!bad_device(op))
		return false;
	snprintf(msg, len, "%s to device %d, but the process has %d device%s", op->api, op->loc_dev, op->ndev,
	         op->ndev == 1 ? "" : "s");
	return true;
}

PW_RULE_FN(MANAGED_PREFETCH_OUT_OF_RANGE)
{
	(void)s;
	if (!op->dst.managed || (op->bytes && !outside(&op->dst, op->bytes)))
		return false;
	snprintf(msg, len,
	         "%s of %" PRIu64 " bytes at 0x%" PRIx64 " of a managed allocation of %" PRIu64
	         " bytes: the range %s",
	         op->api, op->bytes, op->dst.ptr, op->dst.size, op->bytes ? "runs past its end" : "is empty");
	return true;
}

/* 004 and hip_hmm.cpp: ReadMostly, PreferredLocation, LastPrefetchLocation
 * (and CUDA's _TYPE/_ID forms) take exactly 4 bytes, AccessedBy a multiple of 4. */
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
		if (size_ok(attr, size))
			continue;
		snprintf(msg, len, "%s asks for attribute %d with %zu bytes of data; it needs %s", op->api,
		         attr, size, attr == 3 ? "a non-zero multiple of 4" : "exactly 4");
		return true;
	}
	return false;
}

/* cuda.h: "length must be either zero or the entire allocation's size". */
PW_RULE_FN(MANAGED_ATTACH_LENGTH)
{
	(void)s;
	if (!op->dst.managed || !op->dst.known || op->bytes == 0 ||
	    (op->dst.ptr == op->dst.base && op->bytes == op->dst.size))
		return false;
	snprintf(msg, len,
	         "%s of %" PRIu64 " bytes at 0x%" PRIx64
	         "; the length must be 0 or the whole allocation (%" PRIu64 " bytes at 0x%" PRIx64 ")",
	         op->api, op->bytes, op->dst.ptr, op->dst.size, op->dst.base);
	return true;
}

/* 004: "must be one of hipMemAttachGlobal, hipMemAttachHost or
 * hipMemAttachSingle"; cuda.h: "It is illegal to attach singly to the NULL stream". */
PW_RULE_FN(MANAGED_ATTACH_FLAGS)
{
	(void)s;
	bool defined = op->flags == 0x1 || op->flags == 0x2 || op->flags == 0x4;
	if (defined && !(op->flags == 0x4 && op->null_stream))
		return false;
	if (!defined)
		snprintf(
		    msg, len,
		    "%s with flags 0x%llx; they must be one of attach-global, attach-host, attach-single",
		    op->api, (unsigned long long)op->flags);
	else
		snprintf(msg, len, "%s attaches singly to the NULL stream, which is no specific stream",
		         op->api);
	return true;
}

/* Rules on copies between devices (CUDA Driver API cuMemcpyPeer, HIP
 * hipMemcpyPeer, CANN AscendCL Inter-Device Data Transfer). */
#include <inttypes.h>
#include <stdio.h>

#include "peerwatch/abi/acl.h"
#include "rules/rules.h"

/* A copy naming a device the process does not have fails for that alone:
 * peer.invalid-device says so, and the other copy rules keep quiet. */
__attribute__((always_inline)) static inline bool names_no_such_dev(const struct pw_op *op)
{
	return pw_op_no_such_dev(op, op->dst.named_dev) || pw_op_no_such_dev(op, op->src.named_dev);
}

/* The pointer lives on one device, the call names another for it.  A
 * mapping an IPC open made has two devices a call may name: the driver
 * reports the importing context's device for it (docs/facts-cuda.md: an
 * H200 pair, driver 580) and accepts the exporter's, where the bytes live,
 * in cuMemcpyPeer; only a third device is a mismatch. */
static bool mismatch(const struct pw_mem *m)
{
	if (!m->ptr || m->dev == PW_NO_DEV || m->named_dev == PW_NO_DEV || m->dev == m->named_dev)
		return false;
	return !m->mapped || (m->named_dev != m->map_dev && m->named_dev != m->home_dev);
}

PW_RULE_FN(COPY_PEER_DEVICE_MISMATCH)
{
	(void)s;
	if (names_no_such_dev(op))
		return false;
	const struct pw_mem *m = mismatch(&op->dst) ? &op->dst : mismatch(&op->src) ? &op->src : NULL;
	if (!m)
		return false;
	const char *side = m == &op->dst ? "the destination" : "the source";
	if (m->mapped && m->home_dev != PW_NO_DEV && m->home_dev != m->map_dev)
		snprintf(msg, len,
		         "%s: %s 0x%" PRIx64 " is an IPC mapping opened on device %d of memory on device %d, "
		         "but the call names device %d for it",
		         op->api, side, m->ptr, m->map_dev, m->home_dev, m->named_dev);
	else
		snprintf(msg, len,
		         "%s: %s 0x%" PRIx64 " lives on device %d, but the call names device %d for it",
		         op->api, side, m->ptr, m->dev, m->named_dev);
	return true;
}

static bool past_end(const struct pw_mem *m, uint64_t bytes)
{
	return m->ptr && m->known && bytes &&
	       (m->ptr < m->base || m->ptr - m->base > m->size || bytes > m->size - (m->ptr - m->base));
}

PW_RULE_FN(COPY_PEER_OUT_OF_BOUNDS)
{
	(void)s;
	if (names_no_such_dev(op))
		return false;
	const struct pw_mem *m = past_end(&op->dst, op->bytes)   ? &op->dst
	                         : past_end(&op->src, op->bytes) ? &op->src
	                                                         : NULL;
	if (!m)
		return false;
	snprintf(msg, len,
	         "%s copies %" PRIu64 " bytes at %s 0x%" PRIx64 ", %" PRIu64
	         " bytes into an allocation of %" PRIu64 " bytes (0x%" PRIx64 "): the copy runs %" PRIu64
	         " bytes past its end",
	         op->api, op->bytes, m == &op->dst ? "destination" : "source", m->ptr, m->ptr - m->base,
	         m->size, m->base, op->bytes - (m->size - (m->ptr - m->base)));
	return true;
}

PW_RULE_FN(COPY_PEER_NULL)
{
	(void)s;
	if (names_no_such_dev(op))
		return false;
	if (!op->bytes || (op->dst.ptr && op->src.ptr))
		return false;
	snprintf(msg, len, "%s copies %" PRIu64 " bytes %s a NULL pointer", op->api, op->bytes,
	         op->dst.ptr ? "from" : "to");
	return true;
}

/* CUDA Driver API, Peer Context Memory Access: once enabled, "all allocations from peerContext will
 * immediately be accessible"; without it the driver stages the copy through host memory (37.8 against 394.9
 * GB/s on the H200 pair). */
/* The context a peer copy names for one side: the one it passes (its device
 * the driver's answer for it), else the primary context of the pointer's
 * device (the runtime's calls, which name devices). */
static struct pw_ctx_ref copy_side(const struct pw_state *s, const struct pw_mem *m)
{
	return m->ctx ? pw_ctx_ref(s, m->ctx, m->named_dev) : pw_ctx_ref(s, 0, m->dev);
}

/* Access is per pair of contexts (CUDA Driver API, Peer Context Memory
 * Access): a peer copy checks the two it names; a copy that names none
 * (cuMemcpy between devices) any context of each device. */
PW_RULE_FN(COPY_PEER_NO_PEER_ACCESS)
{
	int a = op->src.dev, b = op->dst.dev;
	if (!pw_dev_ok(a) || !pw_dev_ok(b) || a == b || !op->bytes || names_no_such_dev(op))
		return false;
	bool named = op->src.ctx || op->dst.ctx;
	if (op->kind == PW_OP_IMPLICIT_COPY) {
		if (pw_state_dev_linked(s, a, b))
			return false;
	} else {
		/* no context made here: both sides are primary contexts, whose
		 * access is the devices' (the common case, asked first) */
		int da = op->src.ctx ? op->src.named_dev : a, db = op->dst.ctx ? op->dst.named_dev : b;
		if (!atomic_load_explicit(&s->ctx_used, memory_order_relaxed) && pw_dev_ok(da) &&
		    pw_dev_ok(db) && (da == db || pw_peer_on(s, da, db) || pw_peer_on(s, db, da)))
			return false;
		struct pw_ctx_ref sc = copy_side(s, &op->src), dc = copy_side(s, &op->dst);
		if (!pw_ctx_known(sc) || !pw_ctx_known(dc) || pw_ctx_same(sc, dc) || pw_ctx_on(s, sc, dc) ||
		    pw_ctx_on(s, dc, sc))
			return false;
		named = sc.slot >= 0 || dc.slot >= 0; /* contexts besides primary ones: say which */
	}
	if (named && op->kind != PW_OP_IMPLICIT_COPY)
		snprintf(msg, len,
		         "%s copies %" PRIu64 " bytes from device %d to device %d while peer access between "
		         "the contexts it names (0x%" PRIx64 ", 0x%" PRIx64 ") is off: the copy is staged "
		         "through host memory",
		         op->api, op->bytes, a, b, op->src.ctx, op->dst.ctx);
	else
		snprintf(msg, len,
		         "%s copies %" PRIu64
		         " bytes from device %d to device %d while peer access between them is off: "
		         "the copy is staged through host memory",
		         op->api, op->bytes, a, b);
	return true;
}

/* CUDA Driver API, Memory Management, cuMemcpyPeer: "Copies from device memory in one context to device
 * memory in another context".  Memory the driver does not know (malloc'd, stack, static); page-locked host
 * memory, which the driver copies (H200, driver 580), is not reported. */
PW_RULE_FN(COPY_PEER_HOST)
{
	(void)s;
	const struct pw_mem *m = op->dst.plain_host ? &op->dst : op->src.plain_host ? &op->src : NULL;
	if (!m || !op->bytes || names_no_such_dev(op))
		return false;
	if (op->vendor == PW_VENDOR_HIP)
		snprintf(msg, len,
		         "%s copies %" PRIu64 " bytes %s host memory 0x%" PRIx64
		         ": the %s of a peer copy is a device pointer",
		         op->api, op->bytes, m == &op->dst ? "to" : "from", m->ptr,
		         m == &op->dst ? "destination" : "source");
	else
		snprintf(msg, len,
		         "%s copies %" PRIu64 " bytes %s host memory 0x%" PRIx64
		         " that is no CUDA allocation: a peer copy is between device memory",
		         op->api, op->bytes, m == &op->dst ? "to" : "from", m->ptr);
	return true;
}

/* HIP Runtime API, hipMemcpyPeer: "dst[out] - Destination device pointer", "src[in] - Source device
 * pointer": managed memory (hipMallocManaged) is no device pointer. */
PW_RULE_FN(COPY_PEER_MANAGED)
{
	(void)s;
	if (!op->bytes || names_no_such_dev(op))
		return false;
	const struct pw_mem *m = op->src.managed ? &op->src : op->dst.managed ? &op->dst : NULL;
	if (!m)
		return false;
	snprintf(msg, len,
	         "%s copies %" PRIu64 " bytes %s managed memory 0x%" PRIx64
	         " (hipMallocManaged): the %s of a peer copy is a device pointer",
	         op->api, op->bytes, m == &op->dst ? "to" : "from", m->ptr,
	         m == &op->dst ? "destination" : "source");
	return true;
}

/* CUDA Driver API, Memory Management, cuMemcpyPeer: "srcDevice - Source device pointer", of an allocation
 * that cuMemFree has not freed. */
PW_RULE_FN(COPY_PEER_FREED)
{
	(void)s;
	const struct pw_mem *m = op->src.freed ? &op->src : op->dst.freed ? &op->dst : NULL;
	if (!m || !op->bytes || names_no_such_dev(op))
		return false;
	snprintf(msg, len, "%s copies %" PRIu64 " bytes %s 0x%" PRIx64 ", memory this process already freed",
	         op->api, op->bytes, m == &op->dst ? "to" : "from", m->ptr);
	return true;
}

/* CUDA Driver API, Context Management, cuCtxDestroy: "It is the caller's responsibility to ensure that the
 * context or its resources are not accessed or passed in subsequent API calls". */
PW_RULE_FN(COPY_PEER_CONTEXT_DESTROYED)
{
	if (!atomic_load_explicit(&s->ctx_used, memory_order_relaxed))
		return false; /* only a context made here can have been destroyed */
	const struct pw_mem *side[2] = {&op->dst, &op->src};
	for (int i = 0; i < 2; i++) {
		const struct pw_mem *m = side[i];
		if (!m->ctx || pw_ctx_ref(s, m->ctx, m->named_dev).slot != PW_CTX_DESTROYED)
			continue;
		snprintf(msg, len, "%s names %s context 0x%" PRIx64 ", which cuCtxDestroy destroyed", op->api,
		         i ? "source" : "destination", m->ctx);
		return true;
	}
	return false;
}

/* CANN AscendCL, Inter-Device Data Transfer: "Allocate P2P memory" (ACL_MEM_MALLOC_*_P2P) for data exchange
 * between devices.  The ACL module records each allocation's policy. */
PW_RULE_FN(COPY_ACL_P2P_POLICY)
{
	(void)s;
	const struct pw_mem *m = op->src.p2p == 0 ? &op->src : op->dst.p2p == 0 ? &op->dst : NULL;
	if (!m || !pw_dev_ok(op->src.dev) || !pw_dev_ok(op->dst.dev) || op->src.dev == op->dst.dev)
		return false;
	snprintf(msg, len,
	         "%s copies between devices %d and %d, but the %s 0x%" PRIx64
	         " was not allocated with a P2P policy (ACL_MEM_MALLOC_*_P2P)",
	         op->api, op->src.dev, op->dst.dev, m == &op->src ? "source" : "destination", m->ptr);
	return true;
}

static const char *acl_kind_name(int kind)
{
	static const char *const n[] = {"ACL_MEMCPY_HOST_TO_HOST",
	                                "ACL_MEMCPY_HOST_TO_DEVICE",
	                                "ACL_MEMCPY_DEVICE_TO_HOST",
	                                "ACL_MEMCPY_DEVICE_TO_DEVICE",
	                                "ACL_MEMCPY_DEFAULT",
	                                "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
	                                "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE",
	                                "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE"};
	return kind >= 0 && kind < 8 ? n[kind] : "?";
}

/* Which sides of a copy of this aclrtMemcpyKind are device memory: bit 0
 * the destination, bit 1 the source; -1 for DEFAULT (the runtime tells) and
 * kinds the header does not define (acl_rt.h aclrtMemcpyKind, facts B3). */
static int acl_kind_sides(int kind)
{
	switch (kind) {
	case ACL_MEMCPY_HOST_TO_HOST: return 0;
	case ACL_MEMCPY_HOST_TO_DEVICE:
	case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return 1;
	case ACL_MEMCPY_DEVICE_TO_HOST: return 2;
	case ACL_MEMCPY_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: return 3;
	default: return -1;
	}
}

/* CANN AscendCL, Inter-Device Data Transfer: "ACL_MEMCPY_DEVICE_TO_DEVICE = 3 # Data exchange within a device
 * or between devices", and the header's kind for each other direction.  A side is device memory when an
 * aclrtMalloc returned it (the module's table). */
PW_RULE_FN(COPY_ACL_KIND)
{
	(void)s;
	int sides = acl_kind_sides(op->copy_kind);
	if (sides < 0 || !op->bytes)
		return false;
	const char *name = acl_kind_name(op->copy_kind);
	const struct pw_mem *m[2] = {&op->dst, &op->src};
	for (int i = 0; i < 2; i++) {
		/* device memory: an allocation the layer saw, or an IPC import's mapping */
		bool want_dev = (sides >> i) & 1, is_dev = m[i]->known || m[i]->mapped;
		/* memory freed lately is copy.peer.freed's: it is no host buffer */
		if (!m[i]->ptr || want_dev == is_dev || m[i]->freed)
			continue;
		if (is_dev)
			snprintf(msg, len,
			         "%s with kind %s, but the %s 0x%" PRIx64
			         " is device memory of device %d (aclrtMalloc), not host memory",
			         op->api, name, i ? "source" : "destination", m[i]->ptr, m[i]->dev);
		else
			snprintf(msg, len,
			         "%s with kind %s, but the %s 0x%" PRIx64
			         " is no device memory (no aclrtMalloc returned it): a host buffer",
			         op->api, name, i ? "source" : "destination", m[i]->ptr);
		return true;
	}
	if (op->dst.dev == PW_NO_DEV || op->src.dev == PW_NO_DEV)
		return false; /* a side's device unknown (an import): no claim about within or between */
	if (op->copy_kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE && op->dst.dev != op->src.dev) {
		snprintf(msg, len,
		         "%s with kind %s between devices %d and %d: the kind says within one device",
		         op->api, name, op->src.dev, op->dst.dev);
		return true;
	}
	if (op->copy_kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE && op->dst.dev == op->src.dev) {
		snprintf(msg, len, "%s with kind %s within device %d: the kind says between two devices",
		         op->api, name, op->src.dev);
		return true;
	}
	return false;
}

/* CANN AscendCL, aclrtMemcpy2d and aclrtMemcpy2dAsync: "Currently, only
 * memory copy of the ACL_MEMCPY_HOST_TO_DEVICE and ACL_MEMCPY_DEVICE_TO_HOST
 * types is supported."  A kind no aclrtMemcpyKind defines is
 * copy.acl.kind-undefined's. */
PW_RULE_FN(COPY_ACL_2D_KIND)
{
	(void)s;
	if (!op->copy_2d || op->copy_kind == ACL_MEMCPY_HOST_TO_DEVICE ||
	    op->copy_kind == ACL_MEMCPY_DEVICE_TO_HOST || op->copy_kind < ACL_MEMCPY_HOST_TO_HOST ||
	    op->copy_kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
		return false;
	if (op->dst.known && op->src.known && op->dst.dev != op->src.dev)
		snprintf(
		    msg, len,
		    "%s with kind %s from device %d to device %d: a 2D copy goes only from host to device "
		    "or from device to host",
		    op->api, acl_kind_name(op->copy_kind), op->src.dev, op->dst.dev);
	else
		snprintf(
		    msg, len,
		    "%s with kind %s: a 2D copy goes only from host to device (ACL_MEMCPY_HOST_TO_DEVICE) or "
		    "from device to host (ACL_MEMCPY_DEVICE_TO_HOST)",
		    op->api, acl_kind_name(op->copy_kind));
	return true;
}

/* CANN AscendCL, aclrtMemcpyAsync (and aclrtMemcpy): "destMax: Memory size in bytes in the destination
 * address. count: Size in bytes to copy.": count at most destMax, and destMax at most what the destination
 * holds from dst (an allocation aclrtMalloc made, where the module knows it). */
PW_RULE_FN(COPY_ACL_DEST_MAX)
{
	(void)s;
	if (op->bytes > op->dest_max) {
		snprintf(msg, len,
		         "%s copies %" PRIu64 " bytes into a destination of destMax %" PRIu64 " bytes",
		         op->api, op->bytes, op->dest_max);
		return true;
	}
	const struct pw_mem *d = &op->dst;
	if (!d->ptr || !d->known || d->ptr < d->base || d->ptr - d->base > d->size)
		return false;
	uint64_t left = d->size - (d->ptr - d->base);
	if (op->dest_max <= left)
		return false;
	snprintf(msg, len,
	         "%s passes destMax %" PRIu64 " for the destination 0x%" PRIx64 ", which has %" PRIu64
	         " bytes left in its allocation of %" PRIu64 " bytes (0x%" PRIx64 ")",
	         op->api, op->dest_max, d->ptr, left, d->size, d->base);
	return true;
}

/* A side of the copy that an IPC key import mapped here from memory on
 * another device (the case CANN's restrictions on the shared address are
 * about: process B on device 1 using what process A on device 0 shared). */
static const struct pw_mem *acl_import_from_other_dev(const struct pw_op *op)
{
	const struct pw_mem *m[2] = {&op->dst, &op->src};
	for (int i = 0; i < 2; i++)
		if (m[i]->mapped && m[i]->home_dev != PW_NO_DEV && m[i]->map_dev != PW_NO_DEV &&
		    m[i]->home_dev != m[i]->map_dev)
			return m[i];
	return NULL;
}

/* CANN AscendCL (8.2.RC1), aclrtIpcMemGetExportKey, Restrictions: the
 * runtime does not infer a copy's direction from a shared address. */
PW_RULE_FN(COPY_ACL_IPC_DIRECTION)
{
	(void)s;
	const struct pw_mem *m = acl_import_from_other_dev(op);
	if (!m || op->copy_kind != ACL_MEMCPY_DEFAULT)
		return false;
	snprintf(msg, len,
	         "%s with kind ACL_MEMCPY_DEFAULT, but the %s 0x%" PRIx64
	         " is an IPC key import of memory on device %d, mapped here on device %d: the direction "
	         "is not inferred from such an address",
	         op->api, m == &op->dst ? "destination" : "source", m->ptr, m->home_dev, m->map_dev);
	return true;
}

/* The same restrictions: no copy between the host and a shared address. */
PW_RULE_FN(COPY_ACL_IPC_HOST)
{
	(void)s;
	const struct pw_mem *m = acl_import_from_other_dev(op);
	if (!m || (op->copy_kind != ACL_MEMCPY_HOST_TO_DEVICE && op->copy_kind != ACL_MEMCPY_DEVICE_TO_HOST))
		return false;
	snprintf(msg, len,
	         "%s with kind %s, but the %s 0x%" PRIx64
	         " is an IPC key import of memory on device %d, mapped here on device %d: no copy to or "
	         "from the host may use it",
	         op->api, acl_kind_name(op->copy_kind), m == &op->dst ? "destination" : "source", m->ptr,
	         m->home_dev, m->map_dev);
	return true;
}

/* CANN AscendCL, aclrtMemcpyAsync: "kind: Memory copy kind. typedef enum aclrtMemcpyKind {...}": a kind
 * acl_rt.h does not define. */
PW_RULE_FN(COPY_ACL_KIND_UNDEFINED)
{
	(void)s;
	if (op->copy_kind >= ACL_MEMCPY_HOST_TO_HOST && op->copy_kind <= ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
		return false;
	snprintf(msg, len, "%s with kind %d, which aclrtMemcpyKind does not define", op->api, op->copy_kind);
	return true;
}

/* CANN AscendCL, aclrtMemcpyAsync, Restrictions: "This API does not support asynchronous memory copy within
 * the host. If the input kind is ACL_MEMCPY_HOST_TO_HOST, the API returns ...
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT". */
PW_RULE_FN(COPY_ACL_ASYNC_HOST_TO_HOST)
{
	(void)s;
	if (!op->copy_async || op->copy_kind != ACL_MEMCPY_HOST_TO_HOST)
		return false;
	snprintf(
	    msg, len,
	    "%s with kind ACL_MEMCPY_HOST_TO_HOST: an asynchronous copy within the host is not supported",
	    op->api);
	return true;
}

/* CANN AscendCL (CANN 8.0.0), aclrtMemcpyAsync, Restrictions: "If the value of kind passed by this API is
 * ACL_MEMCPY_HOST_TO_DEVICE or ACL_MEMCPY_DEVICE_TO_HOST and the host memory is not allocated by
 * aclrtMallocHost, this API does not report an error, but an unpredictable error may occur when the task is
 * executed."  CANN 8.5's page allows such memory (the call then returns after the copy): the finding says
 * which versions it concerns.  The host side is memory no aclrtMalloc/aclrtMallocHost returned. */
PW_RULE_FN(COPY_ACL_ASYNC_PAGEABLE)
{
	(void)s;
	if (!op->copy_async || !op->bytes)
		return false;
	const struct pw_mem *m = op->copy_kind == ACL_MEMCPY_HOST_TO_DEVICE   ? &op->src
	                         : op->copy_kind == ACL_MEMCPY_DEVICE_TO_HOST ? &op->dst
	                                                                      : NULL;
	if (!m || !m->ptr || m->known || m->host || m->freed)
		return false;
	snprintf(
	    msg, len,
	    "%s with kind %s %s host memory 0x%" PRIx64
	    " that no aclrtMallocHost returned (pageable): on CANN 8.0 the call reports no error but the "
	    "copy may fail unpredictably; CANN 8.5 accepts it and copies synchronously",
	    op->api, acl_kind_name(op->copy_kind), m == &op->src ? "from" : "to", m->ptr);
	return true;
}

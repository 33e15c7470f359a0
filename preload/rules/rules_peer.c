/* Rules on enabling and disabling peer access (CUDA Driver API Peer Context
 * Memory Access, HIP PeerToPeer Device Memory Access, CANN AscendCL
 * Inter-Device Data Transfer), and on
 * the device ordinals the peer calls name. */
#include <stdio.h>

#include "state/devices.h"
#include "rules/rules.h"

/* CUDA Driver API, Peer Context Memory Access: "CUDA_ERROR_INVALID_CONTEXT ... if the current context is
 * peerContext"; HIP Runtime API, peer access: "a device is not a peer of itself". */
PW_RULE_FN(PEER_ENABLE_SELF)
{
	(void)s;
	if (op->cur_dev == PW_NO_DEV || op->cur_dev != op->peer_dev)
		return false;
	snprintf(msg, len, "%s asks device %d for peer access to itself", op->api, op->cur_dev);
	return true;
}

/* cuda.h, cuDeviceGetP2PAttribute and cuDeviceGetP2PAtomicCapabilities:
 * "Returns CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice ... represent
 * the same device". */
PW_RULE_FN(PEER_ATTR_SELF)
{
	(void)s;
	if (op->cur_dev == PW_NO_DEV || op->cur_dev != op->peer_dev)
		return false;
	snprintf(msg, len, "%s asks about the link from device %d to itself", op->api, op->cur_dev);
	return true;
}

/* CUDA Driver API, Peer Context Memory Access: "Flags - Reserved for future use and must be set to 0". */
PW_RULE_FN(PEER_ENABLE_FLAGS)
{
	(void)s;
	if (op->flags == 0)
		return false;
	snprintf(msg, len, "%s passes flags 0x%llx; the flags are reserved and must be 0", op->api,
	         (unsigned long long)op->flags);
	return true;
}

/* CUDA Driver API, Peer Context Memory Access: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED if cuDeviceCanAccessPeer()
 * indicates that the CUdevice of the current context cannot directly access memory". */
PW_RULE_FN(PEER_ENABLE_UNSUPPORTED)
{
	(void)s;
	if (op->can_access != 0 || op->cur_dev == op->peer_dev)
		return false;
	snprintf(msg, len,
	         "%s from device %d to device %d, but the runtime says device %d cannot access device %d",
	         op->api, op->cur_dev, op->peer_dev, op->cur_dev, op->peer_dev);
	return true;
}

/* The two contexts of an enable or disable, the current one and the peer
 * (op.h; the device's primary context where the call names devices): false
 * if either is not known. */
static bool enable_pair(const struct pw_state *s, const struct pw_op *op, struct pw_ctx_ref *a,
                        struct pw_ctx_ref *b)
{
	*a = pw_ctx_ref(s, op->ctx, op->cur_dev);
	*b = pw_ctx_ref(s, op->peer_ctx, op->peer_dev);
	return pw_ctx_known(*a) && pw_ctx_known(*b);
}

/* "from device 0 to device 1", or with the contexts where one of them is
 * not the device's primary context. */
static void pair_words(const struct pw_op *op, struct pw_ctx_ref a, struct pw_ctx_ref b, char *out, size_t n)
{
	if (a.slot == PW_CTX_PRIMARY && b.slot == PW_CTX_PRIMARY)
		snprintf(out, n, "from device %d to device %d", a.dev, b.dev);
	else
		snprintf(out, n, "from context 0x%llx (device %d) to context 0x%llx (device %d)",
		         (unsigned long long)op->ctx, a.dev, (unsigned long long)op->peer_ctx, b.dev);
}

/* CUDA Driver API, Peer Context Memory Access: "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED if direct access of
 * peerContext from the current context has already been enabled": per pair of contexts (a second
 * context of the device, or its primary context after a reset, enables anew). */
PW_RULE_FN(PEER_ENABLE_TWICE)
{
	struct pw_ctx_ref a, b;
	/* flags other than 0 fail first (peer.enable.flags): such a call never
	 * gets as far as "already enabled" (HIP, clr: flags checked first) */
	if (op->flags != 0 || !enable_pair(s, op, &a, &b) || !pw_ctx_on(s, a, b))
		return false;
	char pair[160];
	pair_words(op, a, b, pair, sizeof pair);
	if (op->vendor == PW_VENDOR_ACL) { /* ACL has no "already enabled" code (facts B4) */
		snprintf(msg, len, "%s %s, which is already enabled", op->api, pair);
		return true;
	}
	snprintf(msg, len,
	         "%s %s, which is already enabled: the call fails with 'already "
	         "enabled', and through the runtime API that error also stays as the thread's last error",
	         op->api, pair);
	return true;
}

/* CUDA Driver API, Peer Context Memory Access, cuCtxEnablePeerAccess and cuCtxDisablePeerAccess: "Returns
 * CUDA_ERROR_INVALID_CONTEXT if there is no current context, peerContext is not a valid context"; and
 * cuCtxDestroy: the context must not be "passed in subsequent API calls". */
PW_RULE_FN(PEER_CONTEXT_INVALID)
{
	if (op->no_ctx) {
		snprintf(msg, len,
		         "%s with no current context: peer access is enabled from the current context",
		         op->api);
		return true;
	}
	if (!op->peer_ctx || pw_ctx_ref(s, op->peer_ctx, op->peer_dev).slot != PW_CTX_DESTROYED)
		return false;
	snprintf(msg, len, "%s names peer context 0x%llx, which cuCtxDestroy destroyed", op->api,
	         (unsigned long long)op->peer_ctx);
	return true;
}

/* CUDA Driver API, Peer Context Memory Access, and CANN AscendCL, Inter-Device Data Transfer: query
 * (CanAccessPeer) before enabling. */
PW_RULE_FN(PEER_ENABLE_UNQUERIED)
{
	if (op->cur_dev == op->peer_dev || !pw_dev_ok(op->cur_dev) || !pw_dev_ok(op->peer_dev) ||
	    pw_op_no_such_dev(op, op->peer_dev) || pw_peer_queried(s, op->cur_dev, op->peer_dev))
		return false;
	snprintf(msg, len,
	         "%s from device %d to device %d without asking first whether device %d can access device %d",
	         op->api, op->cur_dev, op->peer_dev, op->cur_dev, op->peer_dev);
	return true;
}

/* CANN AscendCL, Inter-Device Data Transfer: "use two ... enable_peer_access calls ... one for enabling data
 * exchange from device 0 to device 1, and the other ... from device 1 to
 * device 0" — checked at the copy, where the missing direction matters. */
PW_RULE_FN(PEER_ENABLE_ONE_DIRECTION)
{
	int a = op->src.dev, b = op->dst.dev;
	if (!pw_dev_ok(a) || !pw_dev_ok(b) || a == b)
		return false;
	bool ab = pw_peer_on(s, a, b), ba = pw_peer_on(s, b, a);
	if (!ab && !ba && op->vendor == PW_VENDOR_ACL) {
		/* ACL has no staged fallback (copy.peer.no-peer-access is CUDA/HIP's): both are needed */
		snprintf(msg, len,
		         "%s copies between devices %d and %d, but peer access is enabled in neither "
		         "direction",
		         op->api, a, b);
		return true;
	}
	if (ab == ba)
		return false; /* both on, or both off (copy.peer.no-peer-access's business) */
	snprintf(msg, len,
	         "%s copies between devices %d and %d, but peer access is enabled only from device %d to "
	         "device %d",
	         op->api, a, b, ab ? a : b, ab ? b : a);
	return true;
}

/* CUDA Driver API, Peer Context Memory Access: "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED if direct peer access has
 * not yet been enabled from peerContext to the current context". */
PW_RULE_FN(PEER_DISABLE_NOT_ENABLED)
{
	struct pw_ctx_ref a, b;
	if (!pw_dev_ok(op->cur_dev) || !pw_dev_ok(op->peer_dev) || pw_op_no_such_dev(op, op->peer_dev) ||
	    !enable_pair(s, op, &a, &b) || pw_ctx_on(s, a, b))
		return false;
	char pair[160];
	pair_words(op, a, b, pair, sizeof pair);
	snprintf(msg, len, "%s %s, which is not enabled", op->api, pair);
	return true;
}

/* CANN AscendCL, aclrtDeviceCanAccessPeer: "deviceId: ID of the specified device, which must be different
 * from peerDeviceId" (ACL_ERROR_INVALID_PARAM; HIP answers 0 instead, which is no error). */
PW_RULE_FN(PEER_QUERY_SELF)
{
	(void)s;
	if (op->cur_dev == PW_NO_DEV || op->cur_dev != op->peer_dev)
		return false;
	snprintf(msg, len, "%s asks whether device %d can access itself: the two devices must be different",
	         op->api, op->cur_dev);
	return true;
}

/* HIP Runtime API, hipDeviceCanAccessPeer: "canAccessPeer[out] - Returns the peer access capability (0 or
 * 1)"; the runtime refuses NULL with hipErrorInvalidValue.  The translation passes the out-pointer as dst. */
PW_RULE_FN(PEER_QUERY_NULL)
{
	(void)s;
	if (op->dst.ptr)
		return false;
	snprintf(msg, len, "%s for devices %d and %d with canAccessPeer NULL: the answer has nowhere to go",
	         op->api, op->cur_dev, op->peer_dev);
	return true;
}

/* CANN AscendCL, aclrtDeviceEnablePeerAccess: "Enables data exchange between the current device and a
 * specified device": a thread with no current device has nothing to enable from (107002). */
PW_RULE_FN(PEER_ENABLE_NO_DEVICE)
{
	(void)s;
	if (!op->no_ctx)
		return false;
	snprintf(msg, len, "%s to device %d from a thread with no current device: call aclrtSetDevice first",
	         op->api, op->peer_dev);
	return true;
}

/* CANN AscendCL, aclrtDeviceEnablePeerAccess and aclrtDeviceDisablePeerAccess: "peerDeviceId: Device ID,
 * which must be different from the current device ID". */
PW_RULE_FN(PEER_DISABLE_SELF)
{
	(void)s;
	if (op->cur_dev == PW_NO_DEV || op->cur_dev != op->peer_dev)
		return false;
	snprintf(msg, len, "%s names the current device %d: a device has no peer access to itself to disable",
	         op->api, op->cur_dev);
	return true;
}

/* CUDA Driver API, Peer Context Memory Access: CUDA_ERROR_TOO_MANY_PEERS when the hardware's peer resources
 * are exhausted: 8 peers per device.  A link uses resources on both devices, so a device's peers are those it
 * accesses and those that access it. */
#define PW_PEER_LIMIT 8

PW_RULE_FN(PEER_LIMIT)
{
	int a = op->cur_dev, b = op->peer_dev;
	struct pw_ctx_ref ca, cb;
	if (!pw_dev_ok(a) || !pw_dev_ok(b) || a == b || !enable_pair(s, op, &ca, &cb) || pw_ctx_on(s, ca, cb))
		return false;
	/* a device's peers over all its contexts: the resources are the hardware's */
	uint64_t pa = pw_state_dev_peers(s, a), pb = pw_state_dev_peers(s, b);
	/* the limit is the device's: other processes' connections count too */
	int na = __builtin_popcountll(pa | (uint64_t)1 << b) + op->peer_others[0],
	    nb = __builtin_popcountll(pb | (uint64_t)1 << a) + op->peer_others[1];
	if (na <= PW_PEER_LIMIT && nb <= PW_PEER_LIMIT)
		return false;
	bool first = na > PW_PEER_LIMIT;
	int d = first ? a : b, others = op->peer_others[first ? 0 : 1];
	char name[128], tail[96] = "";
	pw_devices_name(op->vendor, d, name, sizeof name);
	if (others > 0)
		snprintf(tail, sizeof tail, " (%d of them through other processes of the run)", others);
	snprintf(msg, len, "%s from device %d to device %d would give %s %d peers%s; a device has at most %d",
	         op->api, a, b, name, first ? na : nb, tail, PW_PEER_LIMIT);
	return true;
}

/* "Returns hipErrorInvalidDevice if deviceId or peerDeviceId are not valid
 * devices" (HIP Runtime API, hipDeviceCanAccessPeer); the CUDA runtime answers
 * 101 invalid device for device 9 of 2 in a peer query, an enable and a peer
 * copy (H200).  The devices a call names: both of a query, the peer of an
 * enable or disable, each side of a peer copy. */
PW_RULE_FN(PEER_INVALID_DEVICE)
{
	(void)s;
	int d = PW_NO_DEV;
	const char *what = "device";
	switch (op->kind) {
	case PW_OP_CAN_ACCESS:
	case PW_OP_PEER_ATTR: d = pw_op_no_such_dev(op, op->cur_dev) ? op->cur_dev : op->peer_dev; break;
	case PW_OP_PEER_ENABLE:
	case PW_OP_PEER_DISABLE:
		d = op->peer_dev;
		what = "peer device";
		break;
	case PW_OP_PEER_COPY:
		d = pw_op_no_such_dev(op, op->dst.named_dev) ? op->dst.named_dev : op->src.named_dev;
		what = d == op->dst.named_dev ? "destination device" : "source device";
		break;
	default: return false;
	}
	if (!pw_op_no_such_dev(op, d))
		return false;
	if (op->ndev > 0)
		snprintf(msg, len, "%s names %s %d, but this process has %d device%s (0 to %d)", op->api,
		         what, d, op->ndev, op->ndev == 1 ? "" : "s", op->ndev - 1);
	else
		snprintf(msg, len, "%s names %s %d: device ordinals are not negative", op->api, what, d);
	return true;
}

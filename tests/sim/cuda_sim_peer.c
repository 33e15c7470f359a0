/*
 * Simulated CUDA driver: peer access between contexts (the driver API's
 * section 3.21) and P2P
 * attributes.  Which device pairs are peer-capable comes from PWSIM_PEERS.
 * Enabled access is kept per pair of contexts, as the driver documents it
 * ("direct access of peerContext from the current context"): each context
 * holds the set of peer contexts it enabled, primary and made ones; a reset
 * or a destroy forgets a context's access both ways.
 */
#include "sim_internal.h"

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	/* docs/facts-cuda.md, "Every contract case": NULL out -> 1; device 9 -> 101; (0,0) -> success, 0 */
	if (!canAccessPeer)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_valid_device(dev) || !pwsim_valid_device(peerDev))
		return CUDA_ERROR_INVALID_DEVICE;
	*canAccessPeer = dev != peerDev && pwsim_can_access(dev, peerDev);
	return CUDA_SUCCESS;
}

int pwsim_peer_on(const struct CUctx_st *a, const struct CUctx_st *b)
{
	int j = pwsim_ctx_index(b);

	return j < PWSIM_MAX_DEVICES ? (int)((a->peer_primary >> j) & 1)
	                             : (int)((a->peer_made >> (j - PWSIM_MAX_DEVICES)) & 1);
}

void pwsim_peer_set(struct CUctx_st *a, const struct CUctx_st *b, int on)
{
	int j = pwsim_ctx_index(b);

	if (j < PWSIM_MAX_DEVICES)
		a->peer_primary = on ? a->peer_primary | 1ull << j : a->peer_primary & ~(1ull << j);
	else
		a->peer_made = on ? a->peer_made | 1u << (j - PWSIM_MAX_DEVICES)
		                  : a->peer_made & ~(1u << (j - PWSIM_MAX_DEVICES));
}

void pwsim_peer_forget(struct CUctx_st *c)
{
	c->peer_primary = 0;
	c->peer_made = 0;
	for (int i = 0; i < PWSIM_CTX_SLOTS; i++) {
		struct CUctx_st *o = pwsim_ctx_at(i);
		if (o)
			pwsim_peer_set(o, c, 0);
	}
}

/* Devices d has a peer relation with, in either direction, over all the
 * contexts of each (the hardware's resources are the devices'). */
static uint64_t peers_of(int d)
{
	uint64_t set = 0;

	for (int i = 0; i < PWSIM_CTX_SLOTS; i++) {
		struct CUctx_st *a = pwsim_ctx_at(i);
		for (int j = 0; a && j < PWSIM_CTX_SLOTS; j++) {
			struct CUctx_st *b = pwsim_ctx_at(j);
			if (!b || !pwsim_peer_on(a, b))
				continue;
			if (a->device == d)
				set |= 1ull << b->device;
			if (b->device == d)
				set |= 1ull << a->device;
		}
	}
	return set & ~(1ull << d);
}

/* CUDA_ERROR_TOO_MANY_PEERS "for one or more of the devices passed"
 * (cuda.h :23868, :2906): a new relation would give either device a ninth
 * peer.  A relation that already exists the other way costs nothing. */
static int too_many_peers(int a, int b)
{
	uint64_t pa = peers_of(a), pb = peers_of(b);

	if (!((pa >> b) & 1) && __builtin_popcountll(pa) >= PWSIM_MAX_PEERS)
		return 1;
	return !((pb >> a) & 1) && __builtin_popcountll(pb) >= PWSIM_MAX_PEERS;
}

/* The two contexts of an enable/disable call: the current one and the peer.
 * No current context, or an invalid peer -> INVALID_CONTEXT (the CUDA Driver API's Peer Context Memory
 * Access); a peer cuCtxDestroy destroyed -> CONTEXT_IS_DESTROYED, as the real driver answers (H200,
 * driver 580: docs/facts-cuda.md). */
static CUresult peer_pair(CUcontext peerContext, struct CUctx_st **cur, struct CUctx_st **peer)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	*cur = pwsim_current();
	*peer = pwsim_ctx_check(peerContext);
	if (!*cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	return *peer ? CUDA_SUCCESS : pwsim_ctx_refused(peerContext);
}

/* The order of the checks follows the CUDA Driver API's Peer Context Memory Access's list.  The runtime's
 * cudaDeviceEnablePeerAccess(self) gives 217 (docs/facts-cuda.md); in the driver API the
 * peer context is then the current one, which the CUDA Driver API's Peer Context Memory Access makes
 * INVALID_CONTEXT. */
CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
	struct CUctx_st *cur, *peer;
	CUresult rc = peer_pair(peerContext, &cur, &peer);

	if (rc)
		return rc;
	if (peer == cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (Flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_can_access(cur->device, peer->device))
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	pwsim_lock();
	if (pwsim_peer_on(cur, peer))
		rc = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	else if (too_many_peers(cur->device, peer->device))
		rc = CUDA_ERROR_TOO_MANY_PEERS;
	else
		pwsim_peer_set(cur, peer, 1);
	pwsim_unlock();
	return rc;
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
	struct CUctx_st *cur, *peer;
	CUresult rc = peer_pair(peerContext, &cur, &peer);

	if (rc)
		return rc;
	pwsim_lock();
	if (pwsim_peer_on(cur, peer))
		pwsim_peer_set(cur, peer, 0);
	else
		rc = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	pwsim_unlock();
	return rc;
}

/* Peer-capable pairs are NVLink-like: rank 0 (the best), full atomics and
 * array access; other pairs answer 0 for every attribute. */
static int p2p_value(CUdevice_P2PAttribute attrib, int can, int *value)
{
	switch (attrib) {
	case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; return 0;
	case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = can; return 0;
	case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; return 0;
	default: return -1;
	}
}

CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                 CUdevice dstDevice)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	/* The real driver refuses src == dst with INVALID_DEVICE as well. */
	if (!pwsim_valid_device(srcDevice) || !pwsim_valid_device(dstDevice) || srcDevice == dstDevice)
		return CUDA_ERROR_INVALID_DEVICE;
	if (p2p_value(attrib, pwsim_can_access(srcDevice, dstDevice), value))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

#if PWSIM_MAX_VERSION >= 13000
/* An NVLink-like pair does every operation natively in 32 and 64 bits, the
 * integer ones signed and unsigned; other pairs do none (what a real pair
 * answers is not measured: the values are the simulator's, not a contract).
 * The errors are cuda.h's (:23976): a device not valid, or the same device
 * twice, INVALID_DEVICE; NULL arrays, a count of 0 or an unknown operation,
 * INVALID_VALUE. */
CUresult cuDeviceGetP2PAtomicCapabilities(unsigned int *capabilities, const CUatomicOperation *operations,
                                          unsigned int count, CUdevice srcDevice, CUdevice dstDevice)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!pwsim_valid_device(srcDevice) || !pwsim_valid_device(dstDevice) || srcDevice == dstDevice)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!capabilities || !operations || count == 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int i = 0; i < count; i++)
		if (operations[i] < CU_ATOMIC_OPERATION_INTEGER_ADD ||
		    operations[i] > CU_ATOMIC_OPERATION_FLOAT_MAX)
			return CUDA_ERROR_INVALID_VALUE;
	int can = pwsim_can_access(srcDevice, dstDevice);
	for (unsigned int i = 0; i < count; i++) {
		unsigned int bits = CU_ATOMIC_CAPABILITY_SCALAR_32 | CU_ATOMIC_CAPABILITY_SCALAR_64;
		if (operations[i] < CU_ATOMIC_OPERATION_FLOAT_ADD)
			bits |= CU_ATOMIC_CAPABILITY_SIGNED | CU_ATOMIC_CAPABILITY_UNSIGNED;
		capabilities[i] = can ? bits : 0;
	}
	return CUDA_SUCCESS;
}
#endif

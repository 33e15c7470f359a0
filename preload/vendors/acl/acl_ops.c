/*
 * ACL calls as the rules see them (op.h).  A copy is a peer copy when its
 * kind moves device memory (DEVICE_TO_DEVICE, INTER/INNER_DEVICE_TO_DEVICE,
 * or DEFAULT, which the runtime resolves from the pointers) and the two
 * pointers lie in allocations of two different devices; a device-to-device
 * copy from or to NULL is one too (copy.peer.null).  The devices, bounds and
 * policies come from the layer's own allocation table (acl_mem.c).
 */
#include <string.h>

#include "vendors/acl/acl.h"
#include "rules/check.h"
#include "state/op.h"
#include "state/state.h"

static void mem_arg(const struct pw_call *c, int i, struct pw_mem *m)
{
	struct pw_acl_alloc a;
	m->ptr = c->a[i];
	m->dev = PW_NO_DEV;
	m->named_dev = PW_NO_DEV;
	m->p2p = -1;
	if (m->ptr && pw_acl_mem_find(m->ptr, &a)) {
		m->dev = a.dev;
		m->known = true;
		m->base = a.base;
		m->size = a.size;
		m->p2p = pw_acl_policy_p2p(a.policy);
	}
}

static bool device_kind(int kind)
{
	return kind == ACL_MEMCPY_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_DEFAULT ||
	       kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
}

/* Whether the kind says the destination / the source is device memory
 * (DEFAULT and undefined kinds say nothing). */
static bool kind_says(int kind, bool src, bool *dev)
{
	switch (kind) {
	case ACL_MEMCPY_HOST_TO_HOST: *dev = false; return true;
	case ACL_MEMCPY_HOST_TO_DEVICE:
	case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: *dev = !src; return true;
	case ACL_MEMCPY_DEVICE_TO_HOST: *dev = src; return true;
	case ACL_MEMCPY_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: *dev = true; return true;
	default: return false;
	}
}

/* The kind names a direction its pointers do not have (copy.acl.kind). */
static bool kind_mismatch(int kind, const struct pw_op *op)
{
	bool dd, sd;
	if (!op->bytes || !kind_says(kind, false, &dd) || !kind_says(kind, true, &sd))
		return false;
	if ((op->dst.ptr && dd != op->dst.known) || (op->src.ptr && sd != op->src.known))
		return true;
	if (!op->dst.known || !op->src.known)
		return false;
	return (kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE && op->dst.dev != op->src.dev) ||
	       (kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE && op->dst.dev == op->src.dev);
}

/* Every copy is looked at for its kind; one that moves device memory
 * between two devices (or to/from NULL) for the peer rules too. */
static bool copy_op(const struct pw_call *c, struct pw_op *op)
{
	int kind = (int)(int64_t)c->a[4];
	op->kind = PW_OP_IMPLICIT_COPY;
	op->copy_kind = kind;
	op->bytes = c->a[3];
	mem_arg(c, 0, &op->dst);
	mem_arg(c, 2, &op->src);
	if (kind_mismatch(kind, op))
		return true;
	if (!device_kind(kind))
		return false;
	bool cross = pw_dev_ok(op->dst.dev) && pw_dev_ok(op->src.dev) && op->dst.dev != op->src.dev;
	bool null = kind != ACL_MEMCPY_DEFAULT && op->bytes && (!op->dst.ptr || !op->src.ptr);
	return cross || null;
}

bool pw_acl_op_before(const struct pw_call *c, struct pw_op *op)
{
	pw_op_init(op, PW_VENDOR_ACL, c);
	switch (c->fn->op) {
	case PW_OP_CAN_ACCESS:
		op->cur_dev = (int)(int64_t)c->a[1];
		op->peer_dev = (int)(int64_t)c->a[2];
		op->ndev = pw_acl_device_count();
		break;
	case PW_OP_PEER_ENABLE:
		op->peer_dev = (int)(int64_t)c->a[0];
		op->flags = c->a[1];
		op->ndev = pw_acl_device_count();
		op->can_access = pw_acl_can_access(op->cur_dev, op->peer_dev);
		break;
	case PW_OP_PEER_DISABLE:
		op->peer_dev = (int)(int64_t)c->a[0];
		op->ndev = pw_acl_device_count();
		break;
	case PW_OP_IMPLICIT_COPY: return copy_op(c, op);
	case PW_OP_DEVICE_RESET: op->cur_dev = (int)(int64_t)c->a[0]; break;
	default: return false;
	}
	return true;
}

/* The document asks once "whether data exchange between two devices is
 * supported" and then enables both directions: the answer is the pair's.
 * (ACL has no "already enabled" code, facts B4: a repeated enable that
 * succeeds leaves the state as it was.) */
void pw_acl_op_after(const struct pw_call *c, struct pw_op *op)
{
	if (op->kind != PW_OP_CAN_ACCESS)
		return;
	struct pw_op back = *op;
	back.cur_dev = op->peer_dev;
	back.peer_dev = op->cur_dev;
	pw_check_after(&back, c->ret, false);
}

/* What every vendor's translation of a call into a pw_op starts from (op.h). */
#include <string.h>

#include "op.h"
#include "registry.h"

void pw_op_init(struct pw_op *op, int vendor, const struct pw_call *c)
{
	memset(op, 0, sizeof *op);
	op->kind = (enum pw_op_kind)c->fn->op;
	op->vendor = vendor;
	op->api = c->fn->api;
	op->cur_dev = c->cur_dev;
	op->peer_dev = PW_NO_DEV;
	op->can_access = -1;
	op->loc_dev = PW_LOC_NONE;
	op->dst.dev = op->src.dev = op->dst.named_dev = op->src.named_dev = PW_NO_DEV;
	op->dst.p2p = op->src.p2p = -1;
}

void pw_op_range_attr(struct pw_op *op, const struct pw_call *c)
{
	op->kind = PW_OP_RANGE_ATTR;
	op->nattrs = 1;
	op->one_size = c->a[1];
	op->one_attr = (int)(int64_t)c->a[2];
}

void pw_op_range_attrs(struct pw_op *op, const struct pw_call *c)
{
	op->kind = PW_OP_RANGE_ATTR;
	op->data_sizes = (const size_t *)(uintptr_t)c->a[1];
	op->attrs = (const int *)(uintptr_t)c->a[2];
	op->nattrs = op->attrs && op->data_sizes && c->a[3] <= 64 ? (int)c->a[3] : 0;
}

void pw_op_registry_facts(struct pw_op *op)
{
	struct pw_reg_export e;
	if (!op->handle || !pw_registry_lookup(op->handle, &e))
		return;
	op->reg_known = true;
	op->reg_freed = e.freed;
	op->reg_exporter_alive = e.exporter_alive;
	op->reg_exporter_pid = e.exporter_pid;
}

/*
 * CUDA runtime calls as the rules see them (op.h).  Runtime calls name
 * devices, not contexts: the current device is the runtime's own
 * (cudaGetDevice, untraced), and a copy's named devices are its dstDevice /
 * srcDevice arguments.  Facts about pointers are asked of the driver, as for
 * driver calls, so the vendor-neutral rules run unchanged at this level.
 *
 * Findings once, at the level the user called: a runtime call is checked and
 * updates the state model; the driver calls it makes inside are traced but
 * neither checked nor counted (pw_tls_upper, call.h).  The runtime
 * level owns the state because it is the one certain to be seen: a runtime
 * may reach the driver through calls we do not hook, or by other ways
 * (cuGetExportTable), and one runtime call may make several driver calls.
 */
#include <string.h>
#include <unistd.h>

#include "rules/check.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cudart/cudart.h"
#include "state/op.h"
#include "state/registry.h"
#include "state/state.h"

static void mem_arg(const struct pw_call *c, int i, int named_dev, struct pw_mem *m, bool facts)
{
	m->ptr = c->a[i];
	m->dev = c->dev[i];
	m->named_dev = named_dev;
	m->p2p = -1;
	if (facts)
		pw_cuda_mem_facts(m->ptr, m);
}

/* A struct cudaMemLocation passed by value (captured as its 8 bytes). */
static void location(uint64_t raw, struct pw_op *op)
{
	struct cudaMemLocation loc;
	memcpy(&loc, &raw, sizeof loc);
	pw_op_location(op, (int)loc.type, loc.id);
}

static void copy3d(const struct pw_call *c, struct pw_op *op)
{
	const struct cudaMemcpy3DPeerParms *p = (const struct cudaMemcpy3DPeerParms *)(uintptr_t)c->a[0];
	if (!p)
		return;
	op->src = (struct pw_mem){.ptr = p->srcArray ? 0 : (uintptr_t)p->srcPtr.ptr,
	                          .dev = c->dev[0],
	                          .named_dev = p->srcDevice,
	                          .p2p = -1};
	op->dst = (struct pw_mem){.ptr = p->dstArray ? 0 : (uintptr_t)p->dstPtr.ptr,
	                          .dev = c->dev[PW_DEV_COPY3D_DST],
	                          .named_dev = p->dstDevice,
	                          .p2p = -1};
	/* bounds of pitched extents are left to the runtime; devices and peer access are checked */
	op->bytes = (uint64_t)p->extent.width * (p->extent.height ? p->extent.height : 1) *
	            (p->extent.depth ? p->extent.depth : 1);
	if (p->srcArray || p->dstArray)
		op->bytes = 0; /* arrays: no pointer to check, and copy.peer.null must not fire */
}

/* A pair query (cuDeviceGetP2PAttribute ...): its two device arguments,
 * source then destination, as (cur_dev, peer_dev). */
static void devs_named(const struct pw_call *c, struct pw_op *op)
{
	int n = 0;
	for (int i = 0; i < c->fn->nargs && n < 2; i++)
		if (c->fn->args[i].kind == PW_K_DEV) {
			int d = (int)(int64_t)c->a[i];
			if (n++ == 0)
				op->cur_dev = d;
			else
				op->peer_dev = d;
		}
}

bool pw_cudart_op_before(const struct pw_call *c, struct pw_op *op)
{
	pw_op_init(op, PW_VENDOR_CUDA, c);
	switch (c->fn->op) {
	case PW_OP_CAN_ACCESS:
		op->cur_dev = (int)(int64_t)c->a[1];
		op->peer_dev = (int)(int64_t)c->a[2];
		op->ndev = pw_cuda_device_count();
		break;
	case PW_OP_PEER_ATTR:
		devs_named(c, op);
		op->ndev = pw_cuda_device_count();
		break;
	case PW_OP_PEER_ENABLE:
		op->peer_dev = (int)(int64_t)c->a[0];
		op->flags = c->a[1];
		op->ndev = pw_cuda_device_count();
		op->can_access = pw_cuda_can_access(op->cur_dev, op->peer_dev);
		break;
	case PW_OP_PEER_DISABLE:
		op->peer_dev = (int)(int64_t)c->a[0];
		op->ndev = pw_cuda_device_count();
		break;
	case PW_OP_PEER_COPY:
		op->ndev = pw_cuda_device_count();
		if (c->fn->args[0].kind == PW_K_COPY3D) { /* cudaMemcpy3DPeer[Async] */
			copy3d(c, op);
		} else {
			op->bytes = c->a[4];
			mem_arg(c, 0, (int)(int64_t)c->a[1], &op->dst, op->bytes != 0);
			mem_arg(c, 2, (int)(int64_t)c->a[3], &op->src, op->bytes != 0);
			pw_cuda_copy_facts(op); /* host or freed memory, as for cuMemcpyPeer */
		}
		pw_op_copy_map_facts(op);
		break;
	case PW_OP_IPC_EXPORT:
		mem_arg(c, 1, PW_NO_DEV, &op->dst, true);
		pw_cuda_managed_facts(op);                              /* host, pool, freed lately */
		op->handle = (const unsigned char *)(uintptr_t)c->a[0]; /* written by the call */
		break;
	case PW_OP_IPC_OPEN:
		op->handle = (const unsigned char *)(uintptr_t)c->a[1];
		op->flags = c->a[2];
		op->ipc_lazy_flag = cudaIpcMemLazyEnablePeerAccess;
		/* the runtime's context of the device (0 before the runtime made
		 * one current: then the device tells it) */
		op->ctx = pw_cuda_current_ctx();
		op->self_pid = getpid();
		pw_op_registry_facts(op);
		break;
	case PW_OP_IPC_CLOSE: mem_arg(c, 0, PW_NO_DEV, &op->dst, false); break;
	case PW_OP_IPC_EVENT_EXPORT:
	case PW_OP_IPC_EVENT_OPEN:
	case PW_OP_EVENT_CREATE:
	case PW_OP_EVENT_DESTROY: pw_op_event(op, c); break;
	case PW_OP_ALLOC_MANAGED:
		op->kind = PW_OP_ALLOC_MANAGED;
		op->bytes = c->a[1];
		op->flags = c->a[2];
		break;
	case PW_OP_ADVISE:
		op->kind = PW_OP_ADVISE;
		mem_arg(c, 0, PW_NO_DEV, &op->dst, true);
		op->bytes = c->a[1];
		op->advice = (int)(int64_t)c->a[2];
		if (c->fn->args[3].kind == PW_K_DEV) /* a CUDA 12 runtime's ABI (cudart_hooks.c) */
			pw_op_location_device(op, (int)(int64_t)c->a[3], cudaCpuDeviceId);
		else
			location(c->a[3], op);
		op->ndev = pw_cuda_device_count();
		pw_cuda_managed_facts(op);
		break;
	case PW_OP_PREFETCH:
		op->kind = PW_OP_PREFETCH;
		mem_arg(c, 0, PW_NO_DEV, &op->dst, true);
		op->bytes = c->a[1];
		if (c->fn->args[2].kind == PW_K_DEV) { /* a CUDA 12 runtime's ABI (cudart_hooks.c) */
			pw_op_location_device(op, (int)(int64_t)c->a[2], cudaCpuDeviceId);
		} else {
			location(c->a[2], op);
			op->flags = c->a[3];
		}
		op->ndev = pw_cuda_device_count();
		pw_cuda_managed_facts(op);
		break;
	case PW_OP_RANGE_ATTR:
		if (c->fn->args[0].kind == PW_K_RDATA)
			pw_op_range_attr(op, c);
		else
			pw_op_range_attrs(op, c);
		pw_cuda_mem_facts(op->dst.ptr, &op->dst);
		pw_cuda_managed_facts(op);
		break;
	case PW_OP_ATTACH:
		op->kind = PW_OP_ATTACH;
		/* NULL is the legacy stream in the base variant, the per-thread one in _ptsz */
		op->null_stream =
		    c->a[0] == (uintptr_t)cudaStreamLegacy ||
		    (c->a[0] == 0 && c->fn == &pw_cudart_desc[PW_CUDART_ID(cudaStreamAttachMemAsync)]);
		mem_arg(c, 1, PW_NO_DEV, &op->dst, true);
		op->bytes = c->a[2];
		op->flags = c->a[3];
		pw_cuda_managed_facts(op);
		break;
	case PW_OP_FREE:
		/* the allocation's size too, so that a later call on it can be told it is freed */
		mem_arg(c, 0, PW_NO_DEV, &op->dst, true);
		if (pw_state_exported(&pw_state, op->dst.ptr))
			op->holders = pw_registry_holders(op->dst.ptr, op->holder_pids, 4);
		pw_op_mapped_facts(op);
		break;
	/* the primary context of the current device, unless another context is
	 * current: then only the runtime's own state goes (cuda_runtime_api.h) */
	case PW_OP_DEVICE_RESET: op->ctx = pw_cuda_current_ctx(); break;
	default: return false;
	}
	return true;
}

void pw_cudart_op_after(const struct pw_call *c, struct pw_op *op)
{
	if (c->ret != cudaSuccess)
		return;
	if (op->kind == PW_OP_IPC_OPEN && c->a[0]) {
		op->dst.ptr = (uintptr_t) * (void *const *)(uintptr_t)c->a[0];
		pw_cuda_mem_facts(op->dst.ptr, &op->dst);
		/* the exporter's device, as in cuda_ops.c: the pointer's own names the importer's */
		op->dst.dev = pw_op_exporter_dev(op);
		if (op->dst.dev == PW_NO_DEV)
			op->dst.dev = pw_cuda_ptr_device(op->dst.ptr);
		if (!op->ctx)
			op->ctx = pw_cuda_current_ctx(); /* the runtime made its context current by now */
		if (op->dst.dev != PW_NO_DEV && op->dst.dev != op->cur_dev)
			op->can_access = pw_cuda_can_access(op->cur_dev, op->dst.dev);
	}
	if (op->kind == PW_OP_IPC_EVENT_OPEN || op->kind == PW_OP_EVENT_CREATE)
		op->event = c->a[0] ? (uint64_t)(uintptr_t) * (cudaEvent_t const *)(uintptr_t)c->a[0] : 0;
}

/*
 * CUDA calls as the rules see them (op.h): which device each pointer lives
 * on and which one the call names for it, the allocations around pointers,
 * what the driver says about a device pair, and what the registry knows of
 * an IPC handle.  Only calls some rule reads are translated.
 */
#include <stddef.h>
#include <unistd.h>

#include "rules/check.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cuda/cuda_vmm.h"
#include "state/op.h"
#include "state/rangecache.h"

/* The location struct the hints pass, as pw_op_advise reads it. */
_Static_assert(sizeof(CUmemLocation) == sizeof(struct pw_op_loc) &&
                   offsetof(CUmemLocation, type) == offsetof(struct pw_op_loc, type) &&
                   offsetof(CUmemLocation, id) == offsetof(struct pw_op_loc, id),
               "CUmemLocation is {type, id}");

static void copy3d(const struct pw_call *c, struct pw_op *op)
{
	const CUDA_MEMCPY3D_PEER *p = (const CUDA_MEMCPY3D_PEER *)(uintptr_t)c->a[0];
	if (!p)
		return;
	bool sd = p->srcMemoryType == CU_MEMORYTYPE_DEVICE, dd = p->dstMemoryType == CU_MEMORYTYPE_DEVICE;
	op->src = (struct pw_mem){.ptr = sd ? p->srcDevice : (uintptr_t)p->srcHost,
	                          .dev = c->dev[0],
	                          .named_dev = sd ? pw_cuda_ctx_device(p->srcContext) : PW_NO_DEV,
	                          .p2p = -1,
	                          .ctx = sd ? (uintptr_t)p->srcContext : 0};
	op->dst = (struct pw_mem){.ptr = dd ? p->dstDevice : (uintptr_t)p->dstHost,
	                          .dev = c->dev[PW_DEV_COPY3D_DST],
	                          .named_dev = dd ? pw_cuda_ctx_device(p->dstContext) : PW_NO_DEV,
	                          .p2p = -1,
	                          .ctx = dd ? (uintptr_t)p->dstContext : 0};
	/* Pitched extents are not checked against the allocations (bounds are
	 * left to the driver); devices and peer access are. */
	op->bytes = (uint64_t)p->WidthInBytes * (p->Height ? p->Height : 1) * (p->Depth ? p->Depth : 1);
}

/* An enable or disable: the current context (peer access is per pair of
 * contexts, CUDA Driver API, Peer Context Memory Access) and the peer's. */
static void peer_ctxs(const struct pw_call *c, struct pw_op *op)
{
	op->peer_ctx = c->a[0];
	op->no_ctx = pw_cuda_current_ctx_asked(&op->ctx) && !op->ctx;
}

/* The driver's and the runtime's alike (cuda.h). */
bool pw_cuda_op_common(const struct pw_call *c, struct pw_op *op)
{
	switch (c->fn->op) {
	case PW_OP_CAN_ACCESS:
		op->cur_dev = (int)(int64_t)c->a[1];
		op->peer_dev = (int)(int64_t)c->a[2];
		op->ndev = pw_cuda_device_count();
		break;
	case PW_OP_PEER_ATTR:
		pw_op_devs_named(op, c);
		op->ndev = pw_cuda_device_count();
		break;
	case PW_OP_IPC_EXPORT:
		pw_cuda_mem_arg(c, 1, PW_NO_DEV, &op->dst, true);
		pw_cuda_managed_facts(op);                              /* host, pool, freed lately */
		op->handle = (const unsigned char *)(uintptr_t)c->a[0]; /* written by the call */
		break;
	case PW_OP_IPC_CLOSE: pw_cuda_mem_arg(c, 0, PW_NO_DEV, &op->dst, false); break;
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
	case PW_OP_PREFETCH:
		pw_cuda_mem_arg(c, 0, PW_NO_DEV, &op->dst, true);
		/* a device ordinal: the driver's legacy ABI, a CUDA 12 runtime's (cudart_hooks.c) */
		if (c->fn->op == PW_OP_ADVISE)
			pw_op_advise(op, c, CU_DEVICE_CPU);
		else
			pw_op_prefetch(op, c, CU_DEVICE_CPU);
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
	case PW_OP_FREE:
		/* the allocation's size too, so that a later call on it can be told it is freed */
		pw_cuda_mem_arg(c, 0, PW_NO_DEV, &op->dst, true);
		pw_op_free_facts(op);
		break;
	default: return false;
	}
	return true;
}

bool pw_cuda_op_before(const struct pw_call *c, struct pw_op *op)
{
	pw_op_init(op, PW_VENDOR_CUDA, c);
	switch (c->fn->op) {
	case PW_OP_PEER_ENABLE:
		op->peer_dev = c->dev[0];
		op->flags = c->a[1];
		op->can_access = pw_cuda_can_access(op->cur_dev, op->peer_dev);
		peer_ctxs(c, op);
		break;
	case PW_OP_PEER_DISABLE:
		op->peer_dev = c->dev[0];
		peer_ctxs(c, op);
		break;
	case PW_OP_PEER_COPY:
		if (c->fn->args[0].kind == PW_K_COPY3D) { /* cuMemcpy3DPeer[Async] */
			copy3d(c, op);
			break;
		}
		op->bytes = c->a[4];
		pw_cuda_mem_arg(c, 0, c->dev[1], &op->dst, op->bytes != 0);
		pw_cuda_mem_arg(c, 2, c->dev[3], &op->src, op->bytes != 0);
		op->dst.ctx = c->a[1];
		op->src.ctx = c->a[3];
		pw_cuda_copy_facts(op);
		break;
	case PW_OP_IMPLICIT_COPY: return pw_cuda_implicit_op(c, op);
	case PW_OP_IPC_OPEN:
		op->handle = (const unsigned char *)(uintptr_t)c->a[1];
		op->flags = c->a[2];
		op->ipc_lazy_flag = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;
		op->ctx = pw_cuda_current_ctx();
		op->self_pid = getpid(); /* a system call: only where ipc.open.same-process reads it */
		pw_op_registry_facts(op);
		break;
	case PW_OP_ATTACH:
		op->kind = PW_OP_ATTACH;
		/* the legacy NULL stream: CU_STREAM_LEGACY (cuda.h :440), or NULL in
		 * the base variant; _ptsz is the ABI of programs built for per-thread
		 * default streams (--default-stream per-thread), whose NULL is
		 * CU_STREAM_PER_THREAD (:450), a specific stream */
		op->null_stream =
		    c->a[0] == (uintptr_t)CU_STREAM_LEGACY ||
		    (c->a[0] == 0 && c->fn == &pw_cuda_desc[PW_CUDA_ID(cuStreamAttachMemAsync)]);
		pw_cuda_mem_arg(c, 1, PW_NO_DEV, &op->dst, true);
		op->bytes = c->a[2];
		op->flags = c->a[3];
		pw_cuda_managed_facts(op);
		break;
	case PW_OP_FREE:
		if (c->fn->args[0].kind == PW_K_PTR32)
			return false; /* the 32-bit ABI names no UVA memory: nothing to follow */
		pw_cuda_op_common(c, op);
		break;
	default:
		if (!pw_cuda_op_common(c, op))
			return pw_cuda_vmm_op_before(c, op);
	}
	if (op->kind == PW_OP_PEER_COPY)
		pw_op_copy_map_facts(op);
	if (op->kind == PW_OP_PEER_COPY || op->kind == PW_OP_IMPLICIT_COPY)
		pw_cuda_vmm_copy_facts(op);
	else if (op->kind == PW_OP_IPC_EXPORT)
		pw_cuda_vmm_export_facts(op);
	return true;
}

/* What the call wrote, for the state and the registry. */
void pw_cuda_op_after(const struct pw_call *c, struct pw_op *op)
{
	if (c->ret != CUDA_SUCCESS)
		return;
	if (op->kind == PW_OP_IPC_OPEN && c->a[0]) {
		op->dst.ptr = *(const CUdeviceptr *)(uintptr_t)c->a[0];
		pw_cuda_mem_facts(op->dst.ptr, &op->dst);
		/* where the memory lives, in this process's numbering: the lazy
		 * flag enables access from the current device to it.  That is the
		 * exporter's device (registry): the driver names the importing
		 * context's device for the pointer (docs/facts-cuda.md), which
		 * serves only where the registry does not know the handle. */
		op->dst.dev = pw_op_exporter_dev(op);
		if (op->dst.dev == PW_NO_DEV)
			op->dst.dev = pw_cuda_ptr_device(op->dst.ptr);
		if (op->dst.dev != PW_NO_DEV && op->dst.dev != op->cur_dev)
			op->can_access = pw_cuda_can_access(op->cur_dev, op->dst.dev);
	}
	if (op->kind == PW_OP_IPC_EVENT_OPEN || op->kind == PW_OP_EVENT_CREATE)
		op->event = c->a[0] ? (uint64_t)(uintptr_t) * (CUevent const *)(uintptr_t)c->a[0] : 0;
	pw_cuda_vmm_op_after(c, op);
}

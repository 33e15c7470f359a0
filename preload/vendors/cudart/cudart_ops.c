/*
 * CUDA runtime calls as the rules see them (op.h).  Runtime calls name
 * devices, not contexts: the current device is the runtime's own
 * (cudaGetDevice, untraced), and a copy's named devices are its dstDevice /
 * srcDevice arguments.  Facts about pointers are asked of the driver, as for
 * driver calls, so the vendor-neutral rules run unchanged at this level; the
 * calls whose arguments are the driver's (pair queries, IPC export and
 * close, events, managed memory, frees) are translated by the driver's code
 * (pw_cuda_op_common).
 *
 * Findings once, at the level the user called: a runtime call is checked and
 * updates the state model; the driver calls it makes inside are traced but
 * neither checked nor counted (pw_tls_upper, call.h).  The runtime
 * level owns the state because it is the one certain to be seen: a runtime
 * may reach the driver through calls we do not hook, or by other ways
 * (cuGetExportTable), and one runtime call may make several driver calls.
 */
#include <stddef.h>
#include <unistd.h>

#include "rules/check.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cudart/cudart.h"
#include "state/op.h"

/* The runtime's location struct and host device are the driver's: the
 * calls that take them are translated by the driver's code
 * (pw_cuda_op_common), which reads them as such. */
_Static_assert(sizeof(struct cudaMemLocation) == sizeof(CUmemLocation) &&
                   offsetof(struct cudaMemLocation, type) == offsetof(CUmemLocation, type) &&
                   offsetof(struct cudaMemLocation, id) == offsetof(CUmemLocation, id),
               "struct cudaMemLocation is CUmemLocation");
_Static_assert(cudaCpuDeviceId == CU_DEVICE_CPU, "cudaCpuDeviceId is CU_DEVICE_CPU");

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

bool pw_cudart_op_before(const struct pw_call *c, struct pw_op *op)
{
	pw_op_init(op, PW_VENDOR_CUDA, c);
	switch (c->fn->op) {
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
			pw_cuda_mem_arg(c, 0, (int)(int64_t)c->a[1], &op->dst, op->bytes != 0);
			pw_cuda_mem_arg(c, 2, (int)(int64_t)c->a[3], &op->src, op->bytes != 0);
			pw_cuda_copy_facts(op); /* host or freed memory, as for cuMemcpyPeer */
		}
		pw_op_copy_map_facts(op);
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
	case PW_OP_ATTACH:
		op->kind = PW_OP_ATTACH;
		/* NULL is the legacy stream in the base variant, the per-thread one in _ptsz */
		op->null_stream =
		    c->a[0] == (uintptr_t)cudaStreamLegacy ||
		    (c->a[0] == 0 && c->fn == &pw_cudart_desc[PW_CUDART_ID(cudaStreamAttachMemAsync)]);
		pw_cuda_mem_arg(c, 1, PW_NO_DEV, &op->dst, true);
		op->bytes = c->a[2];
		op->flags = c->a[3];
		pw_cuda_managed_facts(op);
		break;
	/* the primary context of the current device, unless another context is
	 * current: then only the runtime's own state goes (cuda_runtime_api.h) */
	case PW_OP_DEVICE_RESET: op->ctx = pw_cuda_current_ctx(); break;
	case PW_OP_LAST_ERROR: pw_op_last_error(op, PW_VENDOR_CUDA, c); break;
	default: return pw_cuda_op_common(c, op); /* laid out as the driver's */
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

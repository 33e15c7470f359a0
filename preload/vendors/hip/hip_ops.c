/*
 * HIP calls as the rules see them (op.h), so that the vendor-neutral rules
 * run for PW_VENDOR_HIP: the devices of pointers, the allocations around
 * them (hipPointerGetAttributes, hipMemGetAddressRange), what the runtime
 * says about a device pair, what the registry knows of an IPC handle, and
 * the lazy-peer-access flag of the runtime's own version.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "rules/check.h"
#include "vendors/hip/hip.h"
#include "state/op.h"

static void mem_arg(const struct pw_call *c, int i, int named_dev, struct pw_mem *m, bool facts)
{
	m->ptr = c->a[i];
	m->dev = c->dev[i];
	m->named_dev = named_dev;
	m->p2p = -1;
	if (facts)
		pw_hip_mem_facts((const void *)(uintptr_t)m->ptr, m);
}

/* The location struct the hints pass, as pw_op_advise reads it. */
_Static_assert(sizeof(hipMemLocation) == sizeof(struct pw_op_loc) &&
                   offsetof(hipMemLocation, type) == offsetof(struct pw_op_loc, type) &&
                   offsetof(hipMemLocation, id) == offsetof(struct pw_op_loc, id),
               "hipMemLocation is {type, id}");

/* A managed-memory call's pointer: its allocation (hipPointerGetAttributes,
 * hipMemGetAddressRange) and whether this process freed it lately.  The
 * device attribute for pageable memory is not asked: its hipDeviceAttribute_t
 * value moves between ROCm versions, and HIP's document admits system memory
 * only where it says so (hipStreamAttachMemAsync). */
static void managed_arg(const struct pw_call *c, int i, struct pw_op *op)
{
	mem_arg(c, i, PW_NO_DEV, &op->dst, true);
	pw_op_freed_facts(op);
}

/* A peer copy's side, where hipMemcpyPeer names a device pointer: memory
 * hipFree freed lately (pw_mem freed), or host memory no HIP allocation
 * holds (plain_host: malloc'd, stack, static; hipPointerGetAttributes fails
 * on it before 6.0 and says "unregistered" since).  Managed memory is
 * neither (copy.peer.managed). */
static void copy_side_facts(struct pw_mem *m)
{
	uint64_t base, size;
	m->freed = m->plain_host = false;
	if (!m->ptr || m->managed)
		return;
	if (!m->known && pw_op_freed_at(m->ptr, &base, &size))
		m->freed = true;
	else if (!m->known)
		m->plain_host = true;
}

/* hipMemcpy3DPeer[Async]: each side names its device by id and a pitched
 * pointer, or an array (no device pointer: its device is unknown, so no
 * pointer rule reads it, and it is no NULL for copy.peer.null).  Pitched
 * extents are not checked against the allocations (bounds are left to the
 * runtime, as for CUDA's cuMemcpy3DPeer); devices and peer access are. */
static void copy3d(const struct pw_call *c, struct pw_op *op)
{
	const hipMemcpy3DPeerParms *p = (const hipMemcpy3DPeerParms *)(uintptr_t)c->a[0];
	if (!p)
		return;
	op->src = (struct pw_mem){
	    .ptr = (uintptr_t)p->srcPtr.ptr, .dev = c->dev[0], .named_dev = p->srcDevice, .p2p = -1};
	op->dst = (struct pw_mem){.ptr = (uintptr_t)p->dstPtr.ptr,
	                          .dev = c->dev[PW_DEV_COPY3D_DST],
	                          .named_dev = p->dstDevice,
	                          .p2p = -1};
	op->bytes = (uint64_t)p->extent.width * (p->extent.height ? p->extent.height : 1) *
	            (p->extent.depth ? p->extent.depth : 1);
	pw_op_copy_map_facts(op);
	if (p->srcArray)
		op->src.ptr = (uintptr_t)p->srcArray;
	if (p->dstArray)
		op->dst.ptr = (uintptr_t)p->dstArray;
}

/* The pools this process imported (hipMemPoolImportFromShareableHandle),
 * until hipMemPoolDestroy: HIP says "Imported memory pools do not support
 * creating new allocations", and no runtime query tells an imported pool
 * from a created one.  Slots are set and cleared by compare-and-swap, read
 * without a lock; a process importing more pools than this at once goes
 * unchecked for the rest. */
#define PW_HIP_IMPORTED_POOLS 64
static _Atomic uint64_t imported_pools[PW_HIP_IMPORTED_POOLS];

static bool pool_imported(uint64_t pool)
{
	for (int i = 0; pool && i < PW_HIP_IMPORTED_POOLS; i++)
		if (atomic_load_explicit(&imported_pools[i], memory_order_acquire) == pool)
			return true;
	return false;
}

static void pool_note(uint64_t pool, bool imported)
{
	for (int i = 0; pool && i < PW_HIP_IMPORTED_POOLS; i++) {
		uint64_t want = imported ? 0 : pool;
		if (atomic_compare_exchange_strong_explicit(&imported_pools[i], &want, imported ? pool : 0,
		                                            memory_order_acq_rel, memory_order_relaxed))
			return;
	}
}

bool pw_hip_op_before(const struct pw_call *c, struct pw_op *op)
{
	pw_op_init(op, PW_VENDOR_HIP, c);
	/* hipCtx* peer calls name the peer by its context, hipDevice* by its id */
	bool by_ctx = c->fn->nargs > 0 && c->fn->args[0].kind == PW_K_CTX;
	switch (c->fn->op) {
	case PW_OP_CAN_ACCESS:
		op->dst.ptr = c->a[0]; /* where the answer goes (peer.query.null) */
		op->cur_dev = (int)(int64_t)c->a[1];
		op->peer_dev = (int)(int64_t)c->a[2];
		op->ndev = pw_hip_device_count();
		break;
	case PW_OP_PEER_ATTR: /* (value, attr, src_dev, dst_dev) */
		pw_op_devs_named(op, c);
		op->ndev = pw_hip_device_count();
		break;
	case PW_OP_PEER_ENABLE:
		op->peer_dev = by_ctx ? c->dev[0] : (int)(int64_t)c->a[0];
		op->flags = c->a[1];
		op->ndev = pw_hip_device_count();
		op->can_access = pw_hip_can_access(op->cur_dev, op->peer_dev);
		break;
	case PW_OP_PEER_DISABLE:
		op->peer_dev = by_ctx ? c->dev[0] : (int)(int64_t)c->a[0];
		op->ndev = pw_hip_device_count();
		break;
	case PW_OP_IMPLICIT_COPY: /* hipMemcpy*: the devices the classification found */
		if (c->fn->args[0].kind != PW_K_PTR || c->fn->args[1].kind == PW_K_SIZE)
			return pw_hip_implicit_op(c, op); /* the batch, the 2D and 3D copies */
		op->bytes = c->a[2];
		mem_arg(c, 0, PW_NO_DEV, &op->dst, op->bytes != 0);
		mem_arg(c, 1, PW_NO_DEV, &op->src, op->bytes != 0);
		op->dst.dev = c->dev[0];
		op->src.dev = c->dev[1];
		break;
	case PW_OP_PEER_COPY:
		op->ndev = pw_hip_device_count();
		if (c->fn->args[0].kind == PW_K_COPY3D) { /* hipMemcpy3DPeer[Async] */
			copy3d(c, op);
			break;
		}
		op->bytes = c->a[4];
		mem_arg(c, 0, (int)(int64_t)c->a[1], &op->dst, op->bytes != 0);
		mem_arg(c, 2, (int)(int64_t)c->a[3], &op->src, op->bytes != 0);
		if (op->bytes) {
			copy_side_facts(&op->dst);
			copy_side_facts(&op->src);
		}
		pw_op_copy_map_facts(op);
		break;
	case PW_OP_IPC_EXPORT:
		managed_arg(c, 1, op);                                  /* and whether it was freed lately */
		op->handle = (const unsigned char *)(uintptr_t)c->a[0]; /* written by the call */
		break;
	case PW_OP_IPC_OPEN: {
		int version = pw_hip_runtime_version();
		op->handle = (const unsigned char *)(uintptr_t)c->a[1];
		op->flags = c->a[2];
		if (version) {
			op->ipc_lazy_flag = pw_hip_ipc_lazy_flag(version);
			op->flags_note = pw_hip_flags_note(op->flags, version);
		} else {
			/* the runtime did not say its version: either lazy flag is taken */
			op->ipc_lazy_flag = op->flags <= PW_HIP_IPC_LAZY_6 ? op->flags : PW_HIP_IPC_LAZY_6;
		}
		op->self_pid = getpid(); /* a system call: only where ipc.open.same-process reads it */
		pw_op_registry_facts(op);
		break;
	}
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
	case PW_OP_ADVISE: /* 1..6 are CUmem_advise's values too */
	case PW_OP_PREFETCH:
		managed_arg(c, 0, op);
		/* hipMemAdvise and hipMemPrefetchAsync take a device; their _v2 a location */
		if (c->fn->op == PW_OP_ADVISE)
			pw_op_advise(op, c, hipCpuDeviceId);
		else
			pw_op_prefetch(op, c, hipCpuDeviceId);
		op->ndev = pw_hip_device_count();
		break;
	case PW_OP_PREFETCH_BATCH: /* hipMemPrefetchBatchAsync: checked per range, pw_hip_batch_check */
		op->kind = PW_OP_PREFETCH;
		op->bytes = c->a[2];
		break;
	case PW_OP_RANGE_ATTR:
		if (c->fn->args[0].kind == PW_K_RDATA)
			pw_op_range_attr(op, c);
		else
			pw_op_range_attrs(op, c);
		pw_hip_mem_facts((const void *)(uintptr_t)op->dst.ptr, &op->dst);
		pw_op_freed_facts(op);
		break;
	case PW_OP_ATTACH:
		op->kind = PW_OP_ATTACH;
		op->null_stream = c->a[0] == 0;
		managed_arg(c, 1, op);
		op->bytes = c->a[2];
		op->flags = c->a[3];
		break;
	case PW_OP_FREE:
		/* the allocation's size too, so that a later call on it can be told it is freed */
		mem_arg(c, 0, PW_NO_DEV, &op->dst, true);
		pw_op_free_facts(op);
		break;
	case PW_OP_DEVICE_RESET: break;
	case PW_OP_DEVICE_ATTR: /* only the capability check hipMallocManaged's note asks for */
		if ((int)(int64_t)c->a[1] != hipDeviceAttributeManagedMemory)
			return false;
		op->dev_attr = PW_DEVATTR_MANAGED;
		op->cur_dev = (int)(int64_t)c->a[2];
		break;
	case PW_OP_LAST_ERROR: pw_op_last_error(op, PW_VENDOR_HIP, c); break;
	case PW_OP_POOL_EXPORT: /* (shareable, pool, handle_type, flags) */
		op->pool = c->a[1];
		op->handle_type = (unsigned)c->a[2];
		op->flags = c->a[3];
		break;
	case PW_OP_POOL_IMPORT: /* (pool out, shareable, handle_type, flags) */
		op->handle_type = (unsigned)c->a[2];
		op->flags = c->a[3];
		break;
	case PW_OP_POOL_EXPORT_PTR:
		op->dst.ptr = c->a[1];
		op->dst.dev = c->dev[1];
		break;
	case PW_OP_POOL_IMPORT_PTR: op->pool = c->a[1]; break; /* (ptr out, pool, export_data) */
	case PW_OP_POOL_DESTROY: op->pool = c->a[0]; break;
	case PW_OP_POOL_ALLOC: /* (ptr out, bytes, pool, stream) */
		op->bytes = c->a[1];
		op->pool = c->a[2];
		op->pool_imported = pool_imported(op->pool);
		break;
	default: return false;
	}
	return true;
}

/* What the call wrote, for the state and the registry. */
void pw_hip_op_after(const struct pw_call *c, struct pw_op *op)
{
	if (c->ret != hipSuccess)
		return;
	if (op->kind == PW_OP_IPC_OPEN && c->a[0]) {
		op->dst.ptr = (uintptr_t) * (void *const *)(uintptr_t)c->a[0];
		pw_hip_mem_facts((const void *)(uintptr_t)op->dst.ptr, &op->dst);
		/* where the memory lives: the lazy flag enables access from the current
		 * device to it.  HIP says the mapping's device is the importer's, so
		 * the exporter's device comes from the registry where it is known. */
		op->dst.dev = pw_op_exporter_dev(op);
		if (op->dst.dev == PW_NO_DEV)
			op->dst.dev = pw_hip_ptr_device((const void *)(uintptr_t)op->dst.ptr);
		if (op->dst.dev != PW_NO_DEV && op->dst.dev != op->cur_dev)
			op->can_access = pw_hip_can_access(op->cur_dev, op->dst.dev);
	}
	if (op->kind == PW_OP_POOL_IMPORT && c->a[0])
		pool_note((uint64_t)(uintptr_t) * (hipMemPool_t const *)(uintptr_t)c->a[0], true);
	if (op->kind == PW_OP_POOL_DESTROY)
		pool_note(op->pool, false);
	if (op->kind == PW_OP_IPC_EVENT_OPEN || op->kind == PW_OP_EVENT_CREATE)
		op->event = c->a[0] ? (uint64_t)(uintptr_t) * (hipEvent_t const *)(uintptr_t)c->a[0] : 0;
}

/* ---- hipMemPrefetchBatchAsync: each range as a prefetch of its own ---- */

/* The location of range j: the last of the locations whose first index is
 * at most j (the indices rise), or none. */
static const hipMemLocation *batch_location(const struct pw_call *c, size_t j)
{
	const hipMemLocation *locs = (const hipMemLocation *)(uintptr_t)c->a[3];
	const size_t *idxs = (const size_t *)(uintptr_t)c->a[4];
	size_t nlocs = c->a[5];
	const hipMemLocation *at = NULL;
	for (size_t i = 0; locs && idxs && i < nlocs && i < 4096; i++)
		if (idxs[i] <= j)
			at = &locs[i];
	return at;
}

/* The ranges checked per call: enough for any finding to show, bounded in cost. */
#define PW_HIP_BATCH_CHECKED 64

bool pw_hip_batch_check(const struct pw_call *c, const struct pw_op *op)
{
	if (c->fn->op != PW_OP_PREFETCH_BATCH)
		return false;
	void *const *ptrs = (void *const *)(uintptr_t)c->a[0];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[1];
	size_t n = c->a[2];
	int ndev = pw_hip_device_count();
	for (size_t j = 0; ptrs && sizes && j < n && j < PW_HIP_BATCH_CHECKED; j++) {
		struct pw_op r = *op;
		r.dst = (struct pw_mem){
		    .ptr = (uintptr_t)ptrs[j], .dev = PW_NO_DEV, .named_dev = PW_NO_DEV, .p2p = -1};
		pw_hip_mem_facts(ptrs[j], &r.dst);
		pw_op_freed_facts(&r);
		r.bytes = sizes[j];
		r.ndev = ndev;
		/* the batch's flags once, with its first range (managed.prefetch.flags) */
		r.flags = j == 0 ? c->a[6] : 0;
		const hipMemLocation *at = batch_location(c, j);
		if (at)
			pw_op_location(&r, (int)at->type, at->id);
		pw_check_before(c, &r);
	}
	return true;
}

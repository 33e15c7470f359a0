/*
 * CUDA virtual memory (cuMemCreate, cuMemMap, cuMemSetAccess, shareable
 * handles), stream-ordered pools shared across processes, and the CUDA 13
 * batch prefetches, as the rules see them (op.h).  The facts a rule needs
 * are copied into the op from the VMM state (vmm_state.h), the cross-process
 * registry (registry.h, keyed by the shareable handle's file) and the driver
 * (untraced), so the rules in rules_vmm.c stay pure functions.
 */
#include <string.h>

#include "rules/check.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cuda/cuda_vmm.h"
#include "state/registry.h"
#include "vendors/cuda/cuda_vmm_state.h"

typedef CUresult (*ptr_attr_fn)(void *, CUpointer_attribute, CUdeviceptr);

/* Whether p was allocated from a stream-ordered pool: cuda.h :917,
 * CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE "Returns the mempool handle for the
 * allocation if it was allocated from a mempool. Otherwise returns NULL." */
static bool from_pool(CUdeviceptr p)
{
	static _Atomic(ptr_attr_fn) attr;
	ptr_attr_fn f = atomic_load_explicit(&attr, memory_order_acquire);
	if (!f) {
		f = (ptr_attr_fn)pw_cuda_aux("cuPointerGetAttribute");
		atomic_store_explicit(&attr, f, memory_order_release);
	}
	CUmemoryPool pool = NULL;
	if (!f || !p)
		return false;
	pw_tls_internal++;
	if (f(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p) != CUDA_SUCCESS)
		pool = NULL;
	pw_tls_internal--;
	return pool != NULL;
}

void pw_cuda_vmm_export_facts(struct pw_op *op)
{
	struct pw_vmm_map m;
	op->dst_vmm = pw_vmm_map_of(&pw_vmm, op->dst.ptr, &m);
	op->dst_pool = !op->dst_vmm && from_pool(op->dst.ptr);
}

void pw_cuda_vmm_copy_facts(struct pw_op *op)
{
	struct pw_vmm_map m;
	if (!atomic_load_explicit(&pw_vmm.nmaps, memory_order_relaxed))
		return;
	if (pw_vmm_map_of(&pw_vmm, op->dst.ptr, &m)) {
		op->vmm_dst_mapped = true;
		op->vmm_dst_rw = m.rw;
		if (m.dev != PW_NO_DEV)
			op->dst.dev = m.dev;
	}
	if (pw_vmm_map_of(&pw_vmm, op->src.ptr, &m)) {
		op->vmm_src_mapped = true;
		op->vmm_src_read = m.read;
		if (m.dev != PW_NO_DEV)
			op->src.dev = m.dev;
	}
}

/* Import: what the registry knows of the exporter of this shareable handle. */
static void import_facts(const struct pw_call *c, struct pw_op *op, int type, uint64_t shareable)
{
	unsigned char key[PW_IPC_HANDLE_BYTES];
	struct pw_reg_export e;
	op->handle_type = (unsigned)type;
	op->dst.dev = PW_NO_DEV;
	if (!pw_vmm_key(type, shareable, key) || !pw_registry_lookup(key, &e))
		return;
	(void)c;
	op->reg_known = true;
	op->reg_freed = e.freed;
	op->reg_exporter_alive = e.exporter_alive;
	op->reg_exporter_pid = e.exporter_pid;
	op->dst.dev = e.device;
}

bool pw_cuda_vmm_op_before(const struct pw_call *c, struct pw_op *op)
{
	switch (c->fn->op) {
	case PW_OP_VMM_CREATE: break;
	case PW_OP_VMM_RELEASE: op->mem_handle = c->a[0]; break;
	case PW_OP_VMM_MAP:
		op->dst.ptr = c->a[0];
		op->bytes = c->a[1];
		op->mem_handle = c->a[3];
		break;
	case PW_OP_VMM_UNMAP:
		op->dst.ptr = c->a[0];
		op->bytes = c->a[1];
		break;
	case PW_OP_VMM_SET_ACCESS:
		op->dst.ptr = c->a[0];
		op->dst.dev = c->dev[0];
		op->bytes = c->a[1];
		break;
	case PW_OP_VMM_EXPORT: {
		int dev;
		op->mem_handle = c->a[1];
		op->handle_type = (unsigned)c->a[2];
		op->vmm_known = pw_vmm_handle_info(&pw_vmm, op->mem_handle, &op->vmm_types, &dev);
		break;
	}
	case PW_OP_VMM_IMPORT: import_facts(c, op, (int)c->a[2], c->a[1]); break;
	case PW_OP_VMM_RETAIN: op->dst.ptr = c->a[1]; break;
	case PW_OP_POOL_EXPORT:
	case PW_OP_POOL_IMPORT: op->handle_type = (unsigned)c->a[2]; break;
	case PW_OP_POOL_EXPORT_PTR:
		op->dst.ptr = c->a[1];
		op->dst.dev = c->dev[1];
		break;
	case PW_OP_POOL_IMPORT_PTR:
	case PW_OP_POOL_SET_ACCESS: break;
	case PW_OP_PREFETCH_BATCH:
		op->kind = PW_OP_PREFETCH; /* checked per range: pw_cuda_batch_check */
		op->bytes = c->a[2];
		break;
	default: return false;
	}
	return true;
}

/* cuMemSetAccess's descriptors as device masks. */
static void access_masks(const CUmemAccessDesc *d, size_t n, uint64_t *rw, uint64_t *rd, uint64_t *none)
{
	*rw = *rd = *none = 0;
	for (size_t i = 0; d && i < n && i < 64; i++) {
		if (d[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || d[i].location.id < 0 ||
		    d[i].location.id >= 64)
			continue;
		uint64_t bit = (uint64_t)1 << d[i].location.id;
		if (d[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			*rw |= bit;
		else if (d[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ)
			*rd |= bit;
		else
			*none |= bit;
	}
}

void pw_cuda_vmm_op_after(const struct pw_call *c, const struct pw_op *op)
{
	unsigned char key[PW_IPC_HANDLE_BYTES];
	if (c->ret != CUDA_SUCCESS)
		return;
	switch (op->kind) {
	case PW_OP_VMM_CREATE: {
		const CUmemAllocationProp *p = (const CUmemAllocationProp *)(uintptr_t)c->a[2];
		if (c->a[0] && p)
			pw_vmm_created(&pw_vmm, *(const CUmemGenericAllocationHandle *)(uintptr_t)c->a[0],
			               (unsigned)p->requestedHandleTypes,
			               p->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? p->location.id
			                                                               : PW_NO_DEV,
			               c->a[1], false);
		break;
	}
	case PW_OP_VMM_RELEASE: {
		unsigned char keys[PW_VMM_MAX_KEYS][PW_IPC_HANDLE_BYTES];
		int n = pw_vmm_released(&pw_vmm, op->mem_handle, keys);
		for (int i = 0; i < n; i++)
			pw_registry_freed_handle(keys[i]);
		break;
	}
	case PW_OP_VMM_MAP: pw_vmm_mapped(&pw_vmm, op->dst.ptr, op->bytes, op->mem_handle); break;
	case PW_OP_VMM_UNMAP: pw_vmm_unmapped(&pw_vmm, op->dst.ptr, op->bytes); break;
	case PW_OP_VMM_SET_ACCESS: {
		uint64_t rw, rd, none;
		access_masks((const CUmemAccessDesc *)(uintptr_t)c->a[2], c->a[3], &rw, &rd, &none);
		pw_vmm_access(&pw_vmm, op->dst.ptr, op->bytes, rw, rd, none);
		break;
	}
	case PW_OP_VMM_EXPORT: {
		unsigned types;
		int dev = PW_NO_DEV;
		uint64_t sh = c->a[0];
		if (!sh)
			break;
		if (op->handle_type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
			sh = (uint64_t)(int64_t) * (const int *)(uintptr_t)sh;
		if (!pw_vmm_key((int)op->handle_type, sh, key))
			break;
		pw_vmm_exported(&pw_vmm, op->mem_handle, key);
		(void)pw_vmm_handle_info(&pw_vmm, op->mem_handle, &types, &dev);
		pw_registry_export(key, op->mem_handle, 0, dev);
		break;
	}
	case PW_OP_VMM_IMPORT:
		if (c->a[0])
			pw_vmm_created(&pw_vmm, *(const CUmemGenericAllocationHandle *)(uintptr_t)c->a[0],
			               op->handle_type, op->dst.dev, 0, true);
		break;
	case PW_OP_VMM_RETAIN:
		if (c->a[0])
			pw_vmm_retained(&pw_vmm, *(const CUmemGenericAllocationHandle *)(uintptr_t)c->a[0]);
		break;
	default: break;
	}
}

/* The location of batch entry j in the prefetch rules' terms. */
static void batch_location(const struct pw_call *c, size_t j, struct pw_op *op)
{
	const CUmemLocation *locs = (const CUmemLocation *)(uintptr_t)c->a[3];
	const size_t *idxs = (const size_t *)(uintptr_t)c->a[4];
	size_t nlocs = c->a[5], k = nlocs;
	op->loc_valid = false;
	op->loc_dev = PW_LOC_NONE;
	op->loc_type = PW_LOCT_UNSET;
	for (size_t i = 0; locs && idxs && i < nlocs && i < 4096; i++)
		if (idxs[i] <= j)
			k = i;
	if (k == nlocs)
		return; /* no location for this range: the batch's own checks are the driver's */
	pw_op_location(op, (int)locs[k].type, locs[k].id);
}

/* The ranges checked per call: enough for any finding to show, bounded in cost. */
#define PW_BATCH_CHECKED 64

bool pw_cuda_batch_check(const struct pw_call *c, const struct pw_op *op)
{
	if (c->fn->op != PW_OP_PREFETCH_BATCH)
		return false;
	const CUdeviceptr *ptrs = (const CUdeviceptr *)(uintptr_t)c->a[0];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[1];
	size_t n = c->a[2];
	int ndev = pw_cuda_device_count();
	for (size_t j = 0; ptrs && sizes && j < n && j < PW_BATCH_CHECKED; j++) {
		struct pw_op r = *op;
		r.dst.ptr = ptrs[j];
		r.dst.dev = r.dst.named_dev = PW_NO_DEV;
		pw_cuda_mem_facts(ptrs[j], &r.dst);
		r.bytes = sizes[j];
		r.ndev = ndev;
		batch_location(c, j, &r);
		pw_cuda_managed_facts(&r);
		pw_check_before(c, &r);
	}
	return true;
}

bool pw_vmm_exit_op(int *cursor, struct pw_op *op)
{
	struct pw_vmm_map m;
	if (!pw_vmm_next_map(&pw_vmm, cursor, &m))
		return false;
	memset(op, 0, sizeof *op);
	op->kind = PW_OP_VMM_EXIT;
	op->api = "exit";
	op->vendor = PW_VENDOR_CUDA;
	op->dst.ptr = m.ptr;
	op->dst.dev = m.dev;
	op->vmm_map_size = m.size;
	op->mem_handle = m.handle;
	return true;
}

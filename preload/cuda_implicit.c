/*
 * Implicit cross-device copies (cuMemcpy, cuMemcpyAsync, cuMemcpyDtoD[Async],
 * cuMemcpy2D/3D[Async], cuMemcpyBatchAsync, cuMemcpy3DBatchAsync) and the
 * range cache that classifies their pointers.
 *
 * PyTorch moves a tensor to another GPU with a generic copy on pointers of two
 * devices, not cuMemcpyPeer: such a copy is recorded as a copy-family event
 * with "implicit": true (op implicit_copy) and checked like a peer copy.  A
 * copy within one device, to or from host memory, or of managed memory
 * (which has no fixed device) is not recorded at all, and costs two
 * range-cache look-ups (pw_cuda_ptr_info, cuda_query.c).
 */
#include <stdio.h>
#include <string.h>

#include "cuda_hooks.h"
#include "cuda_query.h"
#include "event.h"
#include "jsonw.h"
#include "op.h"
#include "rangecache.h"

/* The device a copy side lives on, or PW_NO_DEV for host memory, managed
 * memory and pointers nobody knows. */
static int side_dev(uint64_t p)
{
	struct pw_range r;
	if (!pw_cuda_ptr_info(p, &r) || (r.flags & (PW_RANGE_MANAGED | PW_RANGE_HOST)))
		return PW_NO_DEV;
	return r.dev;
}

/* A device-memory side of a 2D/3D copy: DEVICE or UNIFIED (an address that
 * may be either); HOST and ARRAY sides are never device pointers. */
static int struct_side_dev(int type, uint64_t dptr, const void *host)
{
	if (type == CU_MEMORYTYPE_DEVICE)
		return side_dev(dptr);
	if (type == CU_MEMORYTYPE_UNIFIED)
		return side_dev(dptr ? dptr : (uintptr_t)host);
	return PW_NO_DEV;
}

static bool cross(int d, int s)
{
	return d != PW_NO_DEV && s != PW_NO_DEV && d != s;
}

static void mark(struct pw_call *c, int di, int d, int si, int s)
{
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c->dev[i] = PW_NO_DEV;
	c->dev[di] = d;
	c->dev[si] = s;
}

bool pw_cuda_implicit_cross(struct pw_call *c)
{
	/* The wrapper set c->fn and captured c->a[] only (cppcheck sees the rest
	 * of the struct uninitialized; nothing else is read here). */
	/* cppcheck-suppress ctuuninitvar */
	const struct pw_fn_desc *fn = c->fn;
	switch (fn->args[0].kind) {
	case PW_K_PTR: { /* (dst, src, bytes[, stream]) */
		int d = side_dev(c->a[0]);
		if (d == PW_NO_DEV)
			return false;
		int s = side_dev(c->a[1]);
		if (!cross(d, s))
			return false;
		mark(c, 0, d, 1, s);
		return true;
	}
	case PW_K_COPY2D: {
		const CUDA_MEMCPY2D *p = (const CUDA_MEMCPY2D *)(uintptr_t)c->a[0];
		if (!p)
			return false;
		int d = struct_side_dev(p->dstMemoryType, p->dstDevice, p->dstHost);
		if (d == PW_NO_DEV)
			return false;
		int s = struct_side_dev(p->srcMemoryType, p->srcDevice, p->srcHost);
		if (!cross(d, s))
			return false;
		mark(c, PW_DEV_COPY3D_DST, d, 0, s);
		return true;
	}
	case PW_K_COPY3DL: {
		const CUDA_MEMCPY3D *p = (const CUDA_MEMCPY3D *)(uintptr_t)c->a[0];
		if (!p)
			return false;
		int d = struct_side_dev(p->dstMemoryType, p->dstDevice, p->dstHost);
		if (d == PW_NO_DEV)
			return false;
		int s = struct_side_dev(p->srcMemoryType, p->srcDevice, p->srcHost);
		if (!cross(d, s))
			return false;
		mark(c, PW_DEV_COPY3D_DST, d, 0, s);
		return true;
	}
	case PW_K_BATCH: {
		const CUdeviceptr *dsts = (const CUdeviceptr *)(uintptr_t)c->a[0];
		const CUdeviceptr *srcs = (const CUdeviceptr *)(uintptr_t)c->a[1];
		size_t n = c->a[3];
		if (!dsts || !srcs || !c->a[2])
			return false;
		for (size_t k = 0; k < n; k++) {
			int d = side_dev(dsts[k]);
			if (d == PW_NO_DEV)
				continue;
			int s = side_dev(srcs[k]);
			if (!cross(d, s))
				continue;
			mark(c, PW_DEV_BATCH_DST, d, PW_DEV_BATCH_SRC, s);
			c->dev[PW_DEV_BATCH_IDX] = k > INT32_MAX ? INT32_MAX : (int32_t)k;
			return true;
		}
		return false;
	}
	default: break;
	}
	if (fn->nargs > 1 && fn->args[1].kind == PW_K_BATCH3D) {
		const CUDA_MEMCPY3D_BATCH_OP *ops = (const CUDA_MEMCPY3D_BATCH_OP *)(uintptr_t)c->a[1];
		size_t n = c->a[0];
		for (size_t k = 0; ops && k < n; k++) {
			if (ops[k].dst.type != CU_MEMCPY_OPERAND_TYPE_POINTER ||
			    ops[k].src.type != CU_MEMCPY_OPERAND_TYPE_POINTER)
				continue;
			int d = side_dev(ops[k].dst.op.ptr.ptr);
			if (d == PW_NO_DEV)
				continue;
			int s = side_dev(ops[k].src.op.ptr.ptr);
			if (!cross(d, s))
				continue;
			mark(c, PW_DEV_BATCH_DST, d, PW_DEV_BATCH_SRC, s);
			c->dev[PW_DEV_BATCH_IDX] = k > INT32_MAX ? INT32_MAX : (int32_t)k;
			return true;
		}
	}
	return false;
}

/* ---- the range cache, fed by allocations, frees and IPC ---- */

/* Enter the allocation at p, as the driver describes it (one query per
 * allocation, which costs far less than the allocation). */
static void learn(CUdeviceptr p, unsigned flags)
{
	struct pw_range r;
	bool cuda;
	if (!p || !pw_cuda_driver_info(p, &r, &cuda) || !r.size)
		return;
	pw_range_add(r.base, r.size, r.dev, r.flags | flags);
}

void pw_cuda_range_alloc(const struct pw_call *c)
{
	/* as above: only c->fn and c->a[] are set */
	/* cppcheck-suppress ctuuninitvar */
	const CUdeviceptr *out = (const CUdeviceptr *)(uintptr_t)c->a[0];
	if (!out)
		return;
	unsigned flags = c->fn->args[2].kind == PW_K_STREAM || c->fn->nargs == 4 ? PW_RANGE_POOL : 0;
	learn(*out, flags);
}

/* Before a free or close: the id of the entry it ends, so that the removal
 * after the call takes that entry and no later one at the same address. */
uint64_t pw_cuda_range_before(const struct pw_call *c)
{
	struct pw_range r;
	if (!(c->fn->flags & PW_RANGE_NOTE))
		return 0;
	switch (c->fn->args[0].kind) {
	case PW_K_PTR:
	case PW_K_PTR32:
	case PW_K_VA: /* cuMemUnmap (cuMemMap's answer is ignored after the call) */
		if (c->a[0] && pw_range_find(c->a[0], &r) == PW_RANGE_HIT && r.base == c->a[0])
			return r.id;
		return 0;
	default: return 0;
	}
}

/* cuMemMap: the mapping is device memory of the allocation's device, which
 * the driver's address-range query does not know (CUDA_ERROR_NOT_FOUND on
 * H200s, tests/gpu/vmm_probe.md): the cache is told here. */
typedef CUresult (*alloc_props_fn)(CUmemAllocationProp *, CUmemGenericAllocationHandle);
static void learn_mapping(const struct pw_call *c)
{
	static _Atomic(alloc_props_fn) props_fn;
	alloc_props_fn f = atomic_load_explicit(&props_fn, memory_order_acquire);
	if (!f) {
		f = (alloc_props_fn)pw_cuda_aux("cuMemGetAllocationPropertiesFromHandle");
		atomic_store_explicit(&props_fn, f, memory_order_release);
	}
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	int dev = PW_NO_DEV;
	pw_tls_internal++;
	if (f && f(&prop, (CUmemGenericAllocationHandle)c->a[3]) == CUDA_SUCCESS &&
	    prop.location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		dev = prop.location.id;
	pw_tls_internal--;
	if (c->a[0] && c->a[1])
		pw_range_add(c->a[0], c->a[1], dev, PW_RANGE_VMM);
}

void pw_cuda_range_after(const struct pw_call *c, uint64_t rid)
{
	if (!(c->fn->flags & PW_RANGE_NOTE) || c->ret != CUDA_SUCCESS)
		return;
	if (c->fn->op == PW_OP_VMM_MAP) {
		learn_mapping(c);
		return;
	}
	switch (c->fn->args[0].kind) {
	case PW_K_PTR:
	case PW_K_PTR32: /* frees, cuIpcCloseMemHandle */
	case PW_K_VA:    /* cuMemUnmap */
		if (rid)
			pw_range_remove_id(c->a[0], rid);
		break;
	case PW_K_OUT_PTR: /* cuMemAllocManaged, cuIpcOpenMemHandle */
		if (c->a[0])
			learn(*(const CUdeviceptr *)(uintptr_t)c->a[0], 0);
		break;
	default: break;
	}
}

/* ---- the call as the rules see it ---- */

static void mem_side(struct pw_mem *m, uint64_t ptr, int dev, bool facts)
{
	m->ptr = ptr;
	m->dev = dev;
	m->named_dev = PW_NO_DEV; /* an implicit copy names no device */
	m->p2p = -1;
	if (facts)
		pw_cuda_mem_facts(ptr, m);
}

bool pw_cuda_implicit_op(const struct pw_call *c, struct pw_op *op)
{
	const struct pw_fn_desc *fn = c->fn;
	op->kind = PW_OP_IMPLICIT_COPY;
	switch (fn->args[0].kind) {
	case PW_K_PTR:
		op->bytes = c->a[2];
		mem_side(&op->dst, c->a[0], c->dev[0], op->bytes != 0);
		mem_side(&op->src, c->a[1], c->dev[1], op->bytes != 0);
		return true;
	case PW_K_COPY2D: {
		const CUDA_MEMCPY2D *p = (const CUDA_MEMCPY2D *)(uintptr_t)c->a[0];
		/* pitched extents are left to the driver, as for cuMemcpy3DPeer */
		mem_side(&op->dst, p->dstDevice, c->dev[PW_DEV_COPY3D_DST], false);
		mem_side(&op->src, p->srcDevice, c->dev[0], false);
		op->bytes = (uint64_t)p->WidthInBytes * p->Height;
		return true;
	}
	case PW_K_COPY3DL: {
		const CUDA_MEMCPY3D *p = (const CUDA_MEMCPY3D *)(uintptr_t)c->a[0];
		mem_side(&op->dst, p->dstDevice, c->dev[PW_DEV_COPY3D_DST], false);
		mem_side(&op->src, p->srcDevice, c->dev[0], false);
		op->bytes =
		    (uint64_t)p->WidthInBytes * (p->Height ? p->Height : 1) * (p->Depth ? p->Depth : 1);
		return true;
	}
	case PW_K_BATCH: {
		/* the first cross-device copy of the batch */
		size_t k = (size_t)c->dev[PW_DEV_BATCH_IDX];
		const CUdeviceptr *dsts = (const CUdeviceptr *)(uintptr_t)c->a[0];
		const CUdeviceptr *srcs = (const CUdeviceptr *)(uintptr_t)c->a[1];
		const size_t *sizes = (const size_t *)(uintptr_t)c->a[2];
		op->bytes = sizes[k];
		mem_side(&op->dst, dsts[k], c->dev[PW_DEV_BATCH_DST], op->bytes != 0);
		mem_side(&op->src, srcs[k], c->dev[PW_DEV_BATCH_SRC], op->bytes != 0);
		return true;
	}
	default: break;
	}
	if (fn->nargs > 1 && fn->args[1].kind == PW_K_BATCH3D) {
		size_t k = (size_t)c->dev[PW_DEV_BATCH_IDX];
		const CUDA_MEMCPY3D_BATCH_OP *o = (const CUDA_MEMCPY3D_BATCH_OP *)(uintptr_t)c->a[1] + k;
		mem_side(&op->dst, o->dst.op.ptr.ptr, c->dev[PW_DEV_BATCH_DST], false);
		mem_side(&op->src, o->src.op.ptr.ptr, c->dev[PW_DEV_BATCH_SRC], false);
		op->bytes = (uint64_t)o->extent.width * o->extent.height * o->extent.depth;
		return true;
	}
	op->kind = PW_OP_NONE;
	return false;
}

/* ---- the event ---- */

static const char *memtype(int v)
{
	static const char *const n[] = {NULL, "host", "device", "array", "unified"};
	return v > 0 && v < 5 ? n[v] : "invalid";
}

/* One side of a 2D/3D copy. */
static void put_side(struct pw_jw *w, const char *key, int type, uint64_t dptr, const void *host, int32_t dev)
{
	char k[16];
	snprintf(k, sizeof k, "%s_type", key);
	pw_jw_kv_str(w, k, memtype(type));
	pw_jw_kv_hex(w, key, type == CU_MEMORYTYPE_HOST ? (uintptr_t)host : dptr);
	pw_event_put_dev(w, key, "_dev", dev);
}

/* One side of a batch entry: its device, and "host" for host memory (cache
 * hits: the classification looked them up already). */
static void put_entry_side(struct pw_jw *w, const char *key, uint64_t p)
{
	struct pw_range r;
	bool known = pw_cuda_ptr_info(p, &r);
	pw_jw_kv_hex(w, key, p);
	pw_event_put_dev(w, key, "_dev",
	                 known && !(r.flags & (PW_RANGE_MANAGED | PW_RANGE_HOST)) ? r.dev : PW_NO_DEV);
	if (!known || (r.flags & PW_RANGE_HOST)) {
		char k[16];
		snprintf(k, sizeof k, "%s_type", key);
		pw_jw_kv_str(w, k, "host");
	}
}

static void put_batch_entry(struct pw_jw *w, uint64_t dst, uint64_t src, uint64_t bytes)
{
	pw_jw_obj_open(w);
	put_entry_side(w, "dst", dst);
	put_entry_side(w, "src", src);
	pw_jw_kv_u64(w, "bytes", bytes);
	pw_jw_obj_close(w);
}

#define BATCH_LISTED 16

static void put_batch(struct pw_jw *w, const struct pw_call *c)
{
	const CUdeviceptr *dsts = (const CUdeviceptr *)(uintptr_t)c->a[0];
	const CUdeviceptr *srcs = (const CUdeviceptr *)(uintptr_t)c->a[1];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[2];
	size_t n = c->a[3];
	int32_t k0 = c->dev[PW_DEV_BATCH_IDX];
	uint64_t total = 0;
	pw_jw_kv_u64(w, "count", n);
	if (!dsts || !srcs || !sizes || k0 < 0 || (size_t)k0 >= n)
		return; /* not a batch this wrapper recorded as crossing devices */
	for (size_t k = 0; k < n; k++)
		total += sizes[k];
	pw_jw_kv_u64(w, "bytes", total);
	pw_jw_kv_hex(w, "dst", dsts[k0]);
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_BATCH_DST]);
	pw_jw_kv_hex(w, "src", srcs[k0]);
	pw_event_put_dev(w, "src", "_dev", c->dev[PW_DEV_BATCH_SRC]);
	pw_jw_key(w, "copies");
	pw_jw_ch(w, '[');
	for (size_t k = 0; k < n && k < BATCH_LISTED; k++) {
		if (k)
			pw_jw_ch(w, ',');
		put_batch_entry(w, dsts[k], srcs[k], sizes[k]);
	}
	pw_jw_ch(w, ']');
}

static uint64_t op3d_ptr(const CUmemcpy3DOperand *o)
{
	return o->type == CU_MEMCPY_OPERAND_TYPE_POINTER ? o->op.ptr.ptr : 0;
}

static void put_batch3d(struct pw_jw *w, const struct pw_call *c, int i)
{
	const CUDA_MEMCPY3D_BATCH_OP *ops = (const CUDA_MEMCPY3D_BATCH_OP *)(uintptr_t)c->a[i];
	size_t n = c->a[i - 1];
	int32_t k0 = c->dev[PW_DEV_BATCH_IDX];
	uint64_t total = 0;
	pw_jw_kv_u64(w, "count", n);
	if (!ops || k0 < 0 || (size_t)k0 >= n)
		return;
	for (size_t k = 0; k < n; k++)
		total += (uint64_t)ops[k].extent.width * ops[k].extent.height * ops[k].extent.depth;
	pw_jw_kv_u64(w, "bytes", total);
	pw_jw_kv_hex(w, "dst", op3d_ptr(&ops[k0].dst));
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_BATCH_DST]);
	pw_jw_kv_hex(w, "src", op3d_ptr(&ops[k0].src));
	pw_event_put_dev(w, "src", "_dev", c->dev[PW_DEV_BATCH_SRC]);
	pw_jw_key(w, "copies");
	pw_jw_ch(w, '[');
	for (size_t k = 0; k < n && k < BATCH_LISTED; k++) {
		if (k)
			pw_jw_ch(w, ',');
		put_batch_entry(w, op3d_ptr(&ops[k].dst), op3d_ptr(&ops[k].src),
		                (uint64_t)ops[k].extent.width * ops[k].extent.height * ops[k].extent.depth);
	}
	pw_jw_ch(w, ']');
}

void pw_cuda_implicit_put_arg(struct pw_jw *w, const struct pw_call *c, int i)
{
	const struct pw_arg_desc *d = &c->fn->args[i];
	uint64_t v = c->a[i];
	switch ((enum pw_kind)d->kind) {
	case PW_K_COPY2D: {
		const CUDA_MEMCPY2D *p = (const CUDA_MEMCPY2D *)(uintptr_t)v;
		if (!p)
			break;
		put_side(w, "src", p->srcMemoryType, p->srcDevice, p->srcHost, c->dev[0]);
		put_side(w, "dst", p->dstMemoryType, p->dstDevice, p->dstHost, c->dev[PW_DEV_COPY3D_DST]);
		pw_jw_kv_u64(w, "width", p->WidthInBytes);
		pw_jw_kv_u64(w, "height", p->Height);
		pw_jw_kv_u64(w, "bytes", (uint64_t)p->WidthInBytes * p->Height);
		break;
	}
	case PW_K_COPY3DL: {
		const CUDA_MEMCPY3D *p = (const CUDA_MEMCPY3D *)(uintptr_t)v;
		if (!p)
			break;
		put_side(w, "src", p->srcMemoryType, p->srcDevice, p->srcHost, c->dev[0]);
		put_side(w, "dst", p->dstMemoryType, p->dstDevice, p->dstHost, c->dev[PW_DEV_COPY3D_DST]);
		pw_jw_kv_u64(w, "width", p->WidthInBytes);
		pw_jw_kv_u64(w, "height", p->Height);
		pw_jw_kv_u64(w, "depth", p->Depth);
		pw_jw_kv_u64(w, "bytes",
		             (uint64_t)p->WidthInBytes * (p->Height ? p->Height : 1) *
		                 (p->Depth ? p->Depth : 1));
		break;
	}
	case PW_K_BATCH: put_batch(w, c); break;
	case PW_K_BATCH3D: put_batch3d(w, c, i); break;
	case PW_K_U64: pw_jw_kv_u64(w, d->name, v); break;
	case PW_K_OUT_SIZE:
		if (c->ret == CUDA_SUCCESS && v)
			pw_jw_kv_u64(w, d->name, *(const size_t *)(uintptr_t)v);
		break;
	default: break; /* PW_K_SKIP */
	}
}

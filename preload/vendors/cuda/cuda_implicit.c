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

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "record/event.h"
#include "record/jsonw.h"
#include "state/op.h"
#include "state/rangecache.h"

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

#define BATCH_LISTED PW_EVENT_LISTED

/* A batch as saved on the calling thread: the count, the total bytes, the
 * first cross-device copy and the first entries, each side with the device
 * the range cache gave it and whether it is host memory. */
struct snap_side {
	uint64_t ptr;
	int32_t dev;
	uint8_t host, pad_[3];
};
struct snap_batch {
	uint64_t n, total;
	uint64_t dst0, src0; /* the copy the wrapper found crossing devices */
	uint64_t listed;
	struct {
		struct snap_side dst, src;
		uint64_t bytes;
	} e[BATCH_LISTED];
};

/* One side of a batch entry: its device, and "host" for host memory (cache
 * hits: the classification looked them up already). */
static void snap_side(struct snap_side *o, uint64_t p)
{
	struct pw_range r;
	bool known = pw_cuda_ptr_info(p, &r);
	o->ptr = p;
	o->dev = known && !(r.flags & (PW_RANGE_MANAGED | PW_RANGE_HOST)) ? r.dev : PW_NO_DEV;
	o->host = !known || (r.flags & PW_RANGE_HOST);
}

static void put_entry_side(struct pw_jw *w, const char *key, const struct snap_side *o)
{
	pw_jw_kv_hex(w, key, o->ptr);
	pw_event_put_dev(w, key, "_dev", o->dev);
	if (o->host) {
		char k[16];
		snprintf(k, sizeof k, "%s_type", key);
		pw_jw_kv_str(w, k, "host");
	}
}

static uint64_t op3d_ptr(const CUmemcpy3DOperand *o)
{
	return o->type == CU_MEMCPY_OPERAND_TYPE_POINTER ? o->op.ptr.ptr : 0;
}

static uint64_t op3d_bytes(const CUDA_MEMCPY3D_BATCH_OP *o)
{
	return (uint64_t)o->extent.width * o->extent.height * o->extent.depth;
}

static void snap_batch(struct pw_snapw *s, const struct pw_call *c, int i)
{
	const CUdeviceptr *dsts = (const CUdeviceptr *)(uintptr_t)c->a[0];
	const CUdeviceptr *srcs = (const CUdeviceptr *)(uintptr_t)c->a[1];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[2];
	size_t n = c->a[3];
	int32_t k0 = c->dev[PW_DEV_BATCH_IDX];
	if (!dsts || !srcs || !sizes || k0 < 0 || (size_t)k0 >= n)
		return; /* not a batch this wrapper recorded as crossing devices */
	struct snap_batch *o = pw_snap_add(s, i, sizeof *o);
	if (!o)
		return;
	o->n = n;
	o->total = 0;
	for (size_t k = 0; k < n; k++)
		o->total += sizes[k];
	o->dst0 = dsts[k0];
	o->src0 = srcs[k0];
	o->listed = n < BATCH_LISTED ? n : BATCH_LISTED;
	for (size_t k = 0; k < o->listed; k++) {
		snap_side(&o->e[k].dst, dsts[k]);
		snap_side(&o->e[k].src, srcs[k]);
		o->e[k].bytes = sizes[k];
	}
}

static void snap_batch3d(struct pw_snapw *s, const struct pw_call *c, int i)
{
	const CUDA_MEMCPY3D_BATCH_OP *ops = (const CUDA_MEMCPY3D_BATCH_OP *)(uintptr_t)c->a[i];
	size_t n = c->a[i - 1];
	int32_t k0 = c->dev[PW_DEV_BATCH_IDX];
	if (!ops || k0 < 0 || (size_t)k0 >= n)
		return;
	struct snap_batch *o = pw_snap_add(s, i, sizeof *o);
	if (!o)
		return;
	o->n = n;
	o->total = 0;
	for (size_t k = 0; k < n; k++)
		o->total += op3d_bytes(&ops[k]);
	o->dst0 = op3d_ptr(&ops[k0].dst);
	o->src0 = op3d_ptr(&ops[k0].src);
	o->listed = n < BATCH_LISTED ? n : BATCH_LISTED;
	for (size_t k = 0; k < o->listed; k++) {
		snap_side(&o->e[k].dst, op3d_ptr(&ops[k].dst));
		snap_side(&o->e[k].src, op3d_ptr(&ops[k].src));
		o->e[k].bytes = op3d_bytes(&ops[k]);
	}
}

/* "count" from the argument word (the records of a batch that did not cross
 * devices, which are never made, would have no more). */
static void put_batch(struct pw_jw *w, const struct pw_rcall *r, int i, uint64_t count)
{
	const struct pw_call *c = &r->c;
	const struct snap_batch *o = pw_rec_snap(r, i, sizeof *o);
	pw_jw_kv_u64(w, "count", count);
	if (!o)
		return;
	pw_jw_kv_u64(w, "bytes", o->total);
	pw_jw_kv_hex(w, "dst", o->dst0);
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_BATCH_DST]);
	pw_jw_kv_hex(w, "src", o->src0);
	pw_event_put_dev(w, "src", "_dev", c->dev[PW_DEV_BATCH_SRC]);
	pw_jw_key(w, "copies");
	pw_jw_ch(w, '[');
	for (size_t k = 0; k < o->listed && k < BATCH_LISTED; k++) {
		if (k)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		put_entry_side(w, "dst", &o->e[k].dst);
		put_entry_side(w, "src", &o->e[k].src);
		pw_jw_kv_u64(w, "bytes", o->e[k].bytes);
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
}

void pw_cuda_implicit_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i)
{
	uint64_t v = c->a[i];
	switch ((enum pw_kind)c->fn->args[i].kind) {
	case PW_K_COPY2D: pw_event_snap_deref(s, i, v, sizeof(CUDA_MEMCPY2D)); break;
	case PW_K_COPY3DL: pw_event_snap_deref(s, i, v, sizeof(CUDA_MEMCPY3D)); break;
	case PW_K_BATCH: snap_batch(s, c, i); break;
	case PW_K_BATCH3D: snap_batch3d(s, c, i); break;
	case PW_K_OUT_SIZE:
		if (c->ret == CUDA_SUCCESS)
			pw_event_snap_deref(s, i, v, sizeof(size_t));
		break;
	default: break;
	}
}

void pw_cuda_implicit_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct pw_arg_desc *d = &c->fn->args[i];
	uint64_t v = c->a[i];
	switch ((enum pw_kind)d->kind) {
	case PW_K_COPY2D: {
		const CUDA_MEMCPY2D *p = pw_rec_snap(r, i, sizeof *p);
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
		const CUDA_MEMCPY3D *p = pw_rec_snap(r, i, sizeof *p);
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
	case PW_K_BATCH: put_batch(w, r, i, c->a[3]); break;
	case PW_K_BATCH3D: put_batch(w, r, i, c->a[i - 1]); break;
	case PW_K_U64: pw_jw_kv_u64(w, d->name, v); break;
	case PW_K_OUT_SIZE: {
		const void *b = pw_rec_snap(r, i, sizeof(uint64_t));
		if (b) {
			uint64_t x;
			memcpy(&x, b, sizeof x);
			pw_jw_kv_u64(w, d->name, x);
		}
		break;
	}
	default: break; /* PW_K_SKIP */
	}
}

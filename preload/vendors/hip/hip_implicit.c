/*
 * Implicit cross-device copies of HIP (hipMemcpy, hipMemcpyAsync,
 * hipMemcpyDtoD, hipMemcpyDtoDAsync, hipMemcpy2D/3D[Async], and ROCm 7.1's
 * hipMemcpyBatchAsync, recorded for its first copy between two devices
 * with every copy listed) and the range cache that classifies
 * their pointers, as cuda_implicit.c does for CUDA: a copy between pointers
 * of two devices is recorded as a copy-family event with "implicit": true
 * (op implicit_copy) and checked like a peer copy; one within a device, to
 * or from the host, or of managed memory goes straight to the runtime with
 * two range-cache look-ups and no event.
 *
 * The cache learns hipMalloc's allocations as they are made (PW_NO_EVENT
 * rows), forgets what hipFree and hipIpcCloseMemHandle end, and asks the
 * runtime (hipPointerGetAttributes, hipMemGetAddressRange) on a miss.  Host
 * memory the runtime does not know is remembered per thread, by page, until
 * the cache changes, so a copy from a malloc'ed buffer does not ask every
 * time.
 */
#include "vendors/hip/hip.h"
#include "record/event.h"
#include "record/jsonw.h"
#include "state/op.h"
#include "state/rangecache.h"

bool pw_hip_ptr_info(uint64_t p, struct pw_range *r)
{
	if (!p)
		return false;
	enum pw_range_res res = pw_range_find(p, r);
	if (PW_LIKELY(res == PW_RANGE_HIT))
		return true;
	if (res == PW_RANGE_BUSY)
		return pw_hip_runtime_info((const void *)(uintptr_t)p, r);
	if (pw_range_neg_hit(p))
		return false;
	uint64_t version = pw_range_version();
	if (!pw_hip_runtime_info((const void *)(uintptr_t)p, r)) {
		pw_range_neg_put(p, version);
		return false;
	}
	if (r->size && p >= r->base && p - r->base < r->size)
		r->id = pw_range_fill(r->base, r->size, r->dev, r->flags, version);
	return true;
}

/* The device a copy side lives on, or PW_NO_DEV for host memory, managed
 * memory and pointers nobody knows. */
static int side_dev(uint64_t p)
{
	struct pw_range r;
	if (!pw_hip_ptr_info(p, &r) || (r.flags & (PW_RANGE_MANAGED | PW_RANGE_HOST)))
		return PW_NO_DEV;
	return r.dev;
}

static void mark(struct pw_call *c, int di, int d, int si, int s)
{
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c->dev[i] = PW_NO_DEV;
	c->dev[di] = d;
	c->dev[si] = s;
}

/* A batch's first copy between two devices, k's sides given by side():
 * its devices into c->dev, its index at PW_DEV_BATCH_IDX. */
typedef uint64_t (*batch_side_fn)(const struct pw_call *c, size_t k, bool dst);

static bool first_cross(struct pw_call *c, size_t n, batch_side_fn side)
{
	for (size_t k = 0; k < n; k++) {
		int d = side_dev(side(c, k, true));
		if (d == PW_NO_DEV)
			continue;
		int s = side_dev(side(c, k, false));
		if (s == PW_NO_DEV || s == d)
			continue;
		mark(c, PW_DEV_BATCH_DST, d, PW_DEV_BATCH_SRC, s);
		c->dev[PW_DEV_BATCH_IDX] = k > INT32_MAX ? INT32_MAX : (int32_t)k;
		return true;
	}
	return false;
}

/* hipMemcpyBatchAsync (dsts, srcs, sizes, count, ...) */
static uint64_t batch_ptr(const struct pw_call *c, size_t k, bool dst)
{
	void *const *v = (void *const *)(uintptr_t)c->a[dst ? 0 : 1];
	return (uintptr_t)v[k];
}

/* A 3D batch operation's side: its pointer, or 0 for an array. */
static uint64_t op3d_ptr(const hipMemcpy3DOperand *o)
{
	return o->type == hipMemcpyOperandTypePointer ? (uintptr_t)o->op.ptr.ptr : 0;
}

/* The extent's width is in bytes for two pointers ([HRS]'s tests copy a
 * volume so); an array side's element size is not ours to know. */
static uint64_t op3d_bytes(const hipMemcpy3DBatchOp *o)
{
	return (uint64_t)o->extent.width * o->extent.height * o->extent.depth;
}

/* hipMemcpy3DBatchAsync (numOps, opList, ...): pointer sides only */
static uint64_t batch3d_ptr(const struct pw_call *c, size_t k, bool dst)
{
	const hipMemcpy3DBatchOp *o = (const hipMemcpy3DBatchOp *)(uintptr_t)c->a[1] + k;
	return op3d_ptr(dst ? &o->dst : &o->src);
}

static bool is_batch3d(const struct pw_fn_desc *fn)
{
	return fn->nargs > 1 && fn->args[1].kind == PW_K_BATCH3D;
}

bool pw_hip_implicit_cross(struct pw_call *c)
{
	/* only c->fn and c->a[] are set yet */
	/* cppcheck-suppress ctuuninitvar */
	const struct pw_fn_desc *fn = c->fn;
	if (fn->args[0].kind == PW_K_BATCH)
		return c->a[0] && c->a[1] && c->a[2] && first_cross(c, c->a[3], batch_ptr);
	if (is_batch3d(fn))
		return c->a[1] && first_cross(c, c->a[0], batch3d_ptr);
	uint64_t dp = c->a[0], sp = c->a[1];
	int di = 0, si = 1;
	if (fn->args[0].kind == PW_K_COPY3DL) { /* hipMemcpy3D[Async]: two pitched pointers, or arrays */
		const hipMemcpy3DParms *p = (const hipMemcpy3DParms *)(uintptr_t)c->a[0];
		if (!p || p->dstArray || p->srcArray)
			return false;
		dp = (uintptr_t)p->dstPtr.ptr;
		sp = (uintptr_t)p->srcPtr.ptr;
		di = PW_DEV_COPY3D_DST;
		si = 0;
	} else if (fn->args[1].kind == PW_K_SIZE) { /* hipMemcpy2D[Async]: (dst, dpitch, src, ...) */
		sp = c->a[2];
		si = 2;
	}
	/* (dst, src, bytes, ...) */
	int d = side_dev(dp);
	if (d == PW_NO_DEV)
		return false;
	int s = side_dev(sp);
	if (s == PW_NO_DEV || s == d)
		return false;
	mark(c, di, d, si, s);
	return true;
}

/* Enter the allocation at p, as the runtime describes it. */
static void learn(uint64_t p)
{
	struct pw_range r;
	if (!p || !pw_hip_runtime_info((const void *)(uintptr_t)p, &r) || !r.size)
		return;
	pw_range_add(r.base, r.size, r.dev, r.flags);
}

void pw_hip_range_alloc(const struct pw_call *c)
{
	/* cppcheck-suppress ctuuninitvar */
	void *const *out = (void *const *)(uintptr_t)c->a[0];
	if (out)
		learn((uintptr_t)*out);
}

/* Before a free or an IPC close: the id of the entry it ends, so that the
 * removal after the call takes that entry and no later one at its address. */
uint64_t pw_hip_range_before(const struct pw_call *c)
{
	struct pw_range r;
	if (!(c->fn->flags & PW_RANGE_NOTE) || c->fn->args[0].kind != PW_K_PTR || !c->a[0])
		return 0;
	return pw_range_find(c->a[0], &r) == PW_RANGE_HIT && r.base == c->a[0] ? r.id : 0;
}

void pw_hip_range_after(const struct pw_call *c, uint64_t rid)
{
	if (!(c->fn->flags & PW_RANGE_NOTE) || c->ret != hipSuccess)
		return;
	if (c->fn->args[0].kind == PW_K_PTR && rid)
		pw_range_remove_id(c->a[0], rid); /* hipFree, hipIpcCloseMemHandle */
	else if (c->fn->args[0].kind == PW_K_OUT_PTR && c->a[0])
		learn((uintptr_t) *
		      (void *const *)(uintptr_t)c->a[0]); /* hipMallocManaged, hipIpcOpenMemHandle */
}

/* ---- the batches as the rules see them, and in their events ---- */

static void batch_side(struct pw_mem *m, uint64_t ptr, int dev, bool facts)
{
	m->ptr = ptr;
	m->dev = dev;
	m->named_dev = PW_NO_DEV; /* an implicit copy names no device */
	m->p2p = -1;
	if (facts)
		pw_hip_mem_facts((const void *)(uintptr_t)ptr, m);
}

/* The 2D and 3D copies: pitched extents are left to the runtime (as for
 * CUDA's), devices and peer access are checked; the batch: its first
 * cross-device copy (pw_hip_implicit_cross found it). */
bool pw_hip_implicit_op(const struct pw_call *c, struct pw_op *op)
{
	if (c->fn->args[0].kind == PW_K_COPY3DL) {
		const hipMemcpy3DParms *p = (const hipMemcpy3DParms *)(uintptr_t)c->a[0];
		batch_side(&op->dst, (uintptr_t)p->dstPtr.ptr, c->dev[PW_DEV_COPY3D_DST], false);
		batch_side(&op->src, (uintptr_t)p->srcPtr.ptr, c->dev[0], false);
		op->bytes = (uint64_t)p->extent.width * (p->extent.height ? p->extent.height : 1) *
		            (p->extent.depth ? p->extent.depth : 1);
		return true;
	}
	if (is_batch3d(c->fn)) { /* its first operation between two devices */
		const hipMemcpy3DBatchOp *ops = (const hipMemcpy3DBatchOp *)(uintptr_t)c->a[1];
		size_t k = (size_t)c->dev[PW_DEV_BATCH_IDX];
		if (!ops || c->dev[PW_DEV_BATCH_IDX] < 0 || k >= c->a[0])
			return false;
		op->bytes = op3d_bytes(&ops[k]);
		batch_side(&op->dst, op3d_ptr(&ops[k].dst), c->dev[PW_DEV_BATCH_DST], false);
		batch_side(&op->src, op3d_ptr(&ops[k].src), c->dev[PW_DEV_BATCH_SRC], false);
		return true;
	}
	if (c->fn->args[0].kind == PW_K_PTR) { /* hipMemcpy2D[Async] */
		batch_side(&op->dst, c->a[0], c->dev[0], false);
		batch_side(&op->src, c->a[2], c->dev[2], false);
		op->bytes = (uint64_t)c->a[4] * c->a[5];
		return true;
	}
	size_t k = (size_t)c->dev[PW_DEV_BATCH_IDX];
	void *const *dsts = (void *const *)(uintptr_t)c->a[0];
	void *const *srcs = (void *const *)(uintptr_t)c->a[1];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[2];
	if (!dsts || !srcs || !sizes || c->dev[PW_DEV_BATCH_IDX] < 0 || k >= c->a[3])
		return false;
	op->bytes = sizes[k];
	batch_side(&op->dst, (uintptr_t)dsts[k], c->dev[PW_DEV_BATCH_DST], op->bytes != 0);
	batch_side(&op->src, (uintptr_t)srcs[k], c->dev[PW_DEV_BATCH_SRC], op->bytes != 0);
	return true;
}

/* The batch as saved on the calling thread: the count, the total bytes, the
 * crossing copy and the first entries, each side with the device the range
 * cache gives it and whether it is host memory. */
struct snap_side {
	uint64_t ptr;
	int32_t dev;
	uint8_t host, pad_[3];
};
struct snap_batch {
	uint64_t n, total, dst0, src0, listed;
	struct {
		struct snap_side dst, src;
		uint64_t bytes;
	} e[PW_EVENT_LISTED];
};

static void snap_side(struct snap_side *o, uint64_t p)
{
	struct pw_range r;
	bool known = pw_hip_ptr_info(p, &r);
	o->ptr = p;
	o->dev = known && !(r.flags & (PW_RANGE_MANAGED | PW_RANGE_HOST)) ? r.dev : PW_NO_DEV;
	o->host = !known || (r.flags & PW_RANGE_HOST);
}

static void snap_batch3d(struct pw_snapw *s, const struct pw_call *c, int i)
{
	const hipMemcpy3DBatchOp *ops = (const hipMemcpy3DBatchOp *)(uintptr_t)c->a[i];
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
	o->listed = n < PW_EVENT_LISTED ? n : PW_EVENT_LISTED;
	for (size_t k = 0; k < o->listed; k++) {
		snap_side(&o->e[k].dst, op3d_ptr(&ops[k].dst));
		snap_side(&o->e[k].src, op3d_ptr(&ops[k].src));
		o->e[k].bytes = op3d_bytes(&ops[k]);
	}
}

void pw_hip_snap_batch(struct pw_snapw *s, const struct pw_call *c, int i)
{
	if (c->fn->args[i].kind == PW_K_BATCH3D) {
		snap_batch3d(s, c, i);
		return;
	}
	void *const *dsts = (void *const *)(uintptr_t)c->a[0];
	void *const *srcs = (void *const *)(uintptr_t)c->a[1];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[2];
	size_t n = c->a[3];
	int32_t k0 = c->dev[PW_DEV_BATCH_IDX];
	if (!dsts || !srcs || !sizes || k0 < 0 || (size_t)k0 >= n)
		return;
	struct snap_batch *o = pw_snap_add(s, i, sizeof *o);
	if (!o)
		return;
	o->n = n;
	o->total = 0;
	for (size_t k = 0; k < n; k++)
		o->total += sizes[k];
	o->dst0 = (uintptr_t)dsts[k0];
	o->src0 = (uintptr_t)srcs[k0];
	o->listed = n < PW_EVENT_LISTED ? n : PW_EVENT_LISTED;
	for (size_t k = 0; k < o->listed; k++) {
		snap_side(&o->e[k].dst, (uintptr_t)dsts[k]);
		snap_side(&o->e[k].src, (uintptr_t)srcs[k]);
		o->e[k].bytes = sizes[k];
	}
}

static void put_entry_side(struct pw_jw *w, const char *key, const char *type_key, const struct snap_side *o)
{
	pw_jw_kv_hex(w, key, o->ptr);
	pw_event_put_dev(w, key, "_dev", o->dev);
	if (o->host)
		pw_jw_kv_str(w, type_key, "host");
}

void pw_hip_put_batch(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct snap_batch *o = pw_rec_snap(r, i, sizeof *o);
	/* the count: hipMemcpyBatchAsync's fourth argument, or the one before
	 * hipMemcpy3DBatchAsync's operations */
	pw_jw_kv_u64(w, "count", c->fn->args[i].kind == PW_K_BATCH3D ? c->a[i - 1] : c->a[3]);
	if (!o)
		return;
	pw_jw_kv_u64(w, "bytes", o->total);
	pw_jw_kv_hex(w, "dst", o->dst0);
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_BATCH_DST]);
	pw_jw_kv_hex(w, "src", o->src0);
	pw_event_put_dev(w, "src", "_dev", c->dev[PW_DEV_BATCH_SRC]);
	pw_jw_key(w, "copies");
	pw_jw_ch(w, '[');
	for (size_t k = 0; k < o->listed && k < PW_EVENT_LISTED; k++) {
		if (k)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		put_entry_side(w, "dst", "dst_type", &o->e[k].dst);
		put_entry_side(w, "src", "src_type", &o->e[k].src);
		pw_jw_kv_u64(w, "bytes", o->e[k].bytes);
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
}

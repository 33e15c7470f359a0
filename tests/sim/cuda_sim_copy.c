/*
 * Simulated CUDA driver: the generic copies that move data between devices
 * without naming them (cuMemcpy, cuMemcpyAsync, cuMemcpyDtoDAsync, cuMemcpy2D,
 * cuMemcpy3D and their asynchronous and per-thread variants, the batch copies
 * of CUDA 12.8 and 13.0), and the allocations besides cuMemAlloc
 * (cuMemAllocPitch; the stream-ordered ones, with real pools, are in
 * cuda_sim_vmm.c).
 *
 * Addresses are unified (cuda.h :9600, "the type of memory is inferred from the
 * pointer values"): an address inside an allocation is device memory and the
 * whole range must lie in that allocation (else CUDA_ERROR_INVALID_VALUE, as
 * for every copy of the simulator); an address in no allocation is host
 * memory and is copied as is; a freed allocation's address is refused.
 * Copies really move the bytes under the lock; streams are synchronous.
 *
 * Choices where cuda.h is silent:
 * - a pitch (2D/3D) or row length / layer height (3D batch) of 0 is taken as
 *   the tight value, as cuMemcpy3DPeer does in cuda_sim_peercopy.c;
 * - cuMemAllocPitch's pitch is the width rounded up to 512 bytes;
 * - a batch of 0 copies is CUDA_ERROR_INVALID_VALUE.
 */
#include "sim_internal.h"

#include <stdint.h>
#include <string.h>

static CUresult need_context(void)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	return pwsim_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* Async calls: initialized, a current context, a valid stream. */
static CUresult need_stream(CUstream s)
{
	CUresult rc = need_context();

	return rc ? rc : pwsim_stream_check(s);
}

/* [p, p+n) as a copy side (lock held): 1 if usable. */
static int uva_ok(uintptr_t p, size_t n)
{
	struct pwsim_alloc *a = pwsim_find(p);
	uintptr_t end;

	if (pwsim_add_overflows(p, n, &end))
		return 0;
	if (!a)
		return 1; /* host memory */
	return pwsim_find_range(p, n) != NULL;
}

/* [p, p+n) as a device-only side (lock held). */
static int dev_ok(uintptr_t p, size_t n)
{
	return pwsim_find_range(p, n) != NULL;
}

/* An asynchronous copy's stream, for its CUPTI record (cuda_sim_um.c). */
struct on_stream {
	int async;
	CUstream s;
	int per_thread; /* a _ptsz variant: NULL is the per-thread stream */
};

static const struct on_stream SYNC = {0, NULL, 0};

static CUresult copy_1d(CUdeviceptr dst, CUdeviceptr src, size_t n, int device_only, struct on_stream st)
{
	CUresult rc = CUDA_SUCCESS;

	if (n == 0)
		return CUDA_SUCCESS;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	if (device_only ? dev_ok(dst, n) && dev_ok(src, n) : uva_ok(dst, n) && uva_ok(src, n)) {
		memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
		if (st.async)
			pwsim_cupti_copy(st.s, st.per_thread, dst, src, n, NULL, NULL);
	} else {
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pwsim_unlock();
	return rc;
}

/* ---- cuMemcpy, cuMemcpyAsync (:9607, :10497), cuMemcpyDtoDAsync_v2 (:10653) ---- */

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	CUresult rc = need_context();

	return rc ? rc : copy_1d(dst, src, ByteCount, 0, SYNC);
}

CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	return cuMemcpy(dst, src, ByteCount);
}

static CUresult memcpy_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s, int device_only,
                             int per_thread)
{
	CUresult rc = need_stream(s);
	struct on_stream st = {1, s, per_thread};

	return rc ? rc : copy_1d(dst, src, n, device_only, st);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
	return memcpy_async(dst, src, ByteCount, hStream, 0, 0);
}

CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
	return memcpy_async(dst, src, ByteCount, hStream, 0, 1);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                              CUstream hStream)
{
	return memcpy_async(dstDevice, srcDevice, ByteCount, hStream, 1, 0);
}

CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                   CUstream hStream)
{
	return memcpy_async(dstDevice, srcDevice, ByteCount, hStream, 1, 1);
}

/* ---- pitched copies: CUDA_MEMCPY2D (:3306), CUDA_MEMCPY3D (:3333) ---- */

struct side {
	int type;
	uintptr_t base;
	size_t x, y, z, pitch, height;
};

struct extent {
	size_t w, h, d;
};

static CUresult check_type(int type)
{
	if (type == CU_MEMORYTYPE_ARRAY)
		return CUDA_ERROR_NOT_SUPPORTED; /* CUDA arrays are not simulated */
	if (type != CU_MEMORYTYPE_HOST && type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Offsets [*first, *end) the copy touches on s (pitch/height 0: tight). */
static int extent_of(struct side *s, const struct extent *e, size_t *first, size_t *end)
{
	size_t min_pitch, min_height, rows, last, off;

	if (__builtin_add_overflow(s->x, e->w, &min_pitch) || __builtin_add_overflow(s->y, e->h, &min_height))
		return -1;
	if (!s->pitch)
		s->pitch = min_pitch;
	if (!s->height)
		s->height = min_height;
	if (s->pitch < min_pitch || s->height < min_height)
		return -1;
	if (__builtin_mul_overflow(s->z, s->height, &rows) || __builtin_add_overflow(rows, s->y, &rows) ||
	    __builtin_mul_overflow(rows, s->pitch, &off) || __builtin_add_overflow(off, s->x, first))
		return -1;
	if (__builtin_add_overflow(s->z, e->d - 1, &last) || __builtin_mul_overflow(last, s->height, &last) ||
	    __builtin_add_overflow(last, min_height - 1, &last) ||
	    __builtin_mul_overflow(last, s->pitch, &off) || __builtin_add_overflow(off, min_pitch, end))
		return -1;
	return 0;
}

/* A DEVICE side must lie in one allocation; a UNIFIED one too if it starts in one. */
static CUresult check_side(struct side *s, const struct extent *e)
{
	size_t first, end;
	uintptr_t lo;

	if (!s->base || extent_of(s, e, &first, &end) || pwsim_add_overflows(s->base, first, &lo))
		return CUDA_ERROR_INVALID_VALUE;
	if (s->type == CU_MEMORYTYPE_DEVICE && !dev_ok(lo, end - first))
		return CUDA_ERROR_INVALID_VALUE;
	if (s->type == CU_MEMORYTYPE_UNIFIED && !uva_ok(lo, end - first))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult copy_pitched(struct side *d, struct side *s, const struct extent *e)
{
	CUresult rc = check_type(s->type);

	if (rc == CUDA_SUCCESS)
		rc = check_type(d->type);
	if (rc || !e->w || !e->h || !e->d)
		return rc;
	pwsim_lock();
	rc = check_side(s, e);
	if (rc == CUDA_SUCCESS)
		rc = check_side(d, e);
	for (size_t k = 0; rc == CUDA_SUCCESS && k < e->d; k++)
		for (size_t j = 0; j < e->h; j++) {
			size_t doff = ((d->z + k) * d->height + d->y + j) * d->pitch + d->x;
			size_t soff = ((s->z + k) * s->height + s->y + j) * s->pitch + s->x;

			memmove((void *)(d->base + doff), (const void *)(s->base + soff), e->w);
		}
	pwsim_unlock();
	return rc;
}

static CUresult copy_2d(const CUDA_MEMCPY2D *c)
{
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	struct side s = {c->srcMemoryType,
	                 c->srcMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)c->srcHost
	                                                        : (uintptr_t)c->srcDevice,
	                 c->srcXInBytes,
	                 c->srcY,
	                 0,
	                 c->srcPitch,
	                 0};
	struct side d = {c->dstMemoryType,
	                 c->dstMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)c->dstHost
	                                                        : (uintptr_t)c->dstDevice,
	                 c->dstXInBytes,
	                 c->dstY,
	                 0,
	                 c->dstPitch,
	                 0};
	struct extent e = {c->WidthInBytes, c->Height, 1};

	return copy_pitched(&d, &s, &e);
}

static CUresult copy_3d(const CUDA_MEMCPY3D *c)
{
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h :10402-10404: LODs and the reserved pointers must be 0 */
	if (c->srcLOD || c->dstLOD || c->reserved0 || c->reserved1)
		return CUDA_ERROR_INVALID_VALUE;
	struct side s = {
	    c->srcMemoryType,
	    c->srcMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)c->srcHost : (uintptr_t)c->srcDevice,
	    c->srcXInBytes,
	    c->srcY,
	    c->srcZ,
	    c->srcPitch,
	    c->srcHeight};
	struct side d = {
	    c->dstMemoryType,
	    c->dstMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)c->dstHost : (uintptr_t)c->dstDevice,
	    c->dstXInBytes,
	    c->dstY,
	    c->dstZ,
	    c->dstPitch,
	    c->dstHeight};
	struct extent e = {c->WidthInBytes, c->Height, c->Depth};

	return copy_pitched(&d, &s, &e);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
	CUresult rc = need_context();

	return rc ? rc : copy_2d(pCopy);
}

CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
	return cuMemcpy2D_v2(pCopy);
}

CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
	CUresult rc = need_stream(hStream);

	return rc ? rc : copy_2d(pCopy);
}

CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
	return cuMemcpy2DAsync_v2(pCopy, hStream);
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy)
{
	CUresult rc = need_context();

	return rc ? rc : copy_3d(pCopy);
}

CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy)
{
	return cuMemcpy3D_v2(pCopy);
}

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
	CUresult rc = need_stream(hStream);

	return rc ? rc : copy_3d(pCopy);
}

CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
	return cuMemcpy3DAsync_v2(pCopy, hStream);
}

/* ---- batches (:11108-11176, :11180-11243) ---- */

#if PWSIM_MAX_VERSION >= 12080

/* cuda.h: "Must not be legacy NULL stream." */
static int legacy_null(CUstream s)
{
	return s == NULL || s == CU_STREAM_LEGACY;
}

static int order_ok(CUmemcpySrcAccessOrder o)
{
	return o >= CU_MEMCPY_SRC_ACCESS_ORDER_STREAM && o <= CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
}

static CUresult batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                      CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
                      CUstream hStream)
{
	CUresult rc = need_stream(hStream);

	if (failIdx)
		*failIdx = SIZE_MAX;
	if (rc)
		return rc;
	/* "the first entry in attrsIdxs must always be 0 ... each entry must be
	 * greater than the previous ... the last entry less than count ...
	 * numAttrs must be lesser than or equal to count" */
	if (legacy_null(hStream) || !count || !dsts || !srcs || !sizes || !attrs || !attrsIdxs || !numAttrs ||
	    numAttrs > count || attrsIdxs[0] != 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < numAttrs; i++) {
		if ((i && attrsIdxs[i] <= attrsIdxs[i - 1]) || attrsIdxs[i] >= count ||
		    !order_ok(attrs[i].srcAccessOrder))
			return CUDA_ERROR_INVALID_VALUE;
	}
	pwsim_lock();
	for (size_t i = 0; i < count; i++) {
		if (!dsts[i] || !srcs[i] || !uva_ok(dsts[i], sizes[i]) || !uva_ok(srcs[i], sizes[i])) {
			if (failIdx)
				*failIdx = i;
			rc = CUDA_ERROR_INVALID_VALUE;
			break;
		}
	}
	for (size_t i = 0; rc == CUDA_SUCCESS && i < count; i++)
		if (sizes[i])
			memmove((void *)(uintptr_t)dsts[i], (const void *)(uintptr_t)srcs[i], sizes[i]);
	pwsim_unlock();
	return rc;
}

/* One pointer operand of a 3D batch op: [lo, lo+n) touched, tight when 0. */
static int operand_range(const CUmemcpy3DOperand *o, const CUextent3D *e, uintptr_t *lo, size_t *n)
{
	size_t row = o->op.ptr.rowLength ? o->op.ptr.rowLength : e->width;
	size_t layer = o->op.ptr.layerHeight ? o->op.ptr.layerHeight : e->height;
	size_t last;

	if (row < e->width || layer < e->height)
		return -1;
	/* last byte: ((d-1)*layer + h-1)*row + w */
	if (__builtin_mul_overflow(e->depth - 1, layer, &last) ||
	    __builtin_add_overflow(last, e->height - 1, &last) || __builtin_mul_overflow(last, row, &last) ||
	    __builtin_add_overflow(last, e->width, n))
		return -1;
	*lo = (uintptr_t)o->op.ptr.ptr;
	return 0;
}

static CUresult batch3d(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx,
                        unsigned long long flags, CUstream hStream)
{
	CUresult rc = need_stream(hStream);

	if (failIdx)
		*failIdx = SIZE_MAX;
	if (rc)
		return rc;
	/* "flags - Flags for future use, must be zero now." */
	if (legacy_null(hStream) || !numOps || !opList || flags)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	for (size_t i = 0; rc == CUDA_SUCCESS && i < numOps; i++) {
		const CUDA_MEMCPY3D_BATCH_OP *o = &opList[i];
		uintptr_t dlo, slo;
		size_t dn, sn;

		if (o->src.type == CU_MEMCPY_OPERAND_TYPE_ARRAY ||
		    o->dst.type == CU_MEMCPY_OPERAND_TYPE_ARRAY)
			rc = CUDA_ERROR_NOT_SUPPORTED; /* CUDA arrays are not simulated */
		else if (o->src.type != CU_MEMCPY_OPERAND_TYPE_POINTER ||
		         o->dst.type != CU_MEMCPY_OPERAND_TYPE_POINTER || !o->extent.width ||
		         !o->extent.height || !o->extent.depth || !order_ok(o->srcAccessOrder) ||
		         !o->src.op.ptr.ptr || !o->dst.op.ptr.ptr ||
		         operand_range(&o->src, &o->extent, &slo, &sn) ||
		         operand_range(&o->dst, &o->extent, &dlo, &dn) || !uva_ok(slo, sn) ||
		         !uva_ok(dlo, dn))
			rc = CUDA_ERROR_INVALID_VALUE;
		if (rc && failIdx)
			*failIdx = i;
	}
	for (size_t i = 0; rc == CUDA_SUCCESS && i < numOps; i++) {
		const CUDA_MEMCPY3D_BATCH_OP *o = &opList[i];
		const CUextent3D *e = &o->extent;
		size_t srow = o->src.op.ptr.rowLength ? o->src.op.ptr.rowLength : e->width;
		size_t slay = o->src.op.ptr.layerHeight ? o->src.op.ptr.layerHeight : e->height;
		size_t drow = o->dst.op.ptr.rowLength ? o->dst.op.ptr.rowLength : e->width;
		size_t dlay = o->dst.op.ptr.layerHeight ? o->dst.op.ptr.layerHeight : e->height;

		for (size_t k = 0; k < e->depth; k++)
			for (size_t j = 0; j < e->height; j++)
				memmove((void *)(uintptr_t)(o->dst.op.ptr.ptr + (k * dlay + j) * drow),
				        (const void *)(uintptr_t)(o->src.op.ptr.ptr + (k * slay + j) * srow),
				        e->width);
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                            CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
                            CUstream hStream)
{
	return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream);
}

CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                 CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                 size_t *failIdx, CUstream hStream)
{
	return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream);
}

CUresult cuMemcpy3DBatchAsync(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx,
                              unsigned long long flags, CUstream hStream)
{
	return batch3d(numOps, opList, failIdx, flags, hStream);
}

CUresult cuMemcpy3DBatchAsync_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx,
                                   unsigned long long flags, CUstream hStream)
{
	return batch3d(numOps, opList, failIdx, flags, hStream);
}
#endif

#if PWSIM_MAX_VERSION >= 13000
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                               CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                               CUstream hStream)
{
	return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, NULL, hStream);
}

CUresult cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                    CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                    CUstream hStream)
{
	return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, NULL, hStream);
}

CUresult cuMemcpy3DBatchAsync_v2(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, unsigned long long flags,
                                 CUstream hStream)
{
	return batch3d(numOps, opList, NULL, flags, hStream);
}

CUresult cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, unsigned long long flags,
                                      CUstream hStream)
{
	return batch3d(numOps, opList, NULL, flags, hStream);
}
#endif

/* ---- allocations (:8671, :13352, :13685) ---- */

#define PWSIM_PITCH_ALIGN 512

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes)
{
	CUresult rc = need_context();
	struct pwsim_alloc *a;
	size_t pitch, bytes;

	if (rc)
		return rc;
	/* :8655: "ElementSizeBytes ... may be 4, 8 or 16" */
	if (!dptr || !pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	if (__builtin_add_overflow(WidthInBytes, PWSIM_PITCH_ALIGN - 1, &pitch))
		return CUDA_ERROR_INVALID_VALUE;
	pitch -= pitch % PWSIM_PITCH_ALIGN;
	if (__builtin_mul_overflow(pitch, Height, &bytes))
		return CUDA_ERROR_OUT_OF_MEMORY;
	pwsim_lock();
	rc = pwsim_alloc_new(PWSIM_KIND_DEVICE, bytes, pwsim_current(), &a);
	pwsim_unlock();
	if (rc == CUDA_SUCCESS) {
		*dptr = (CUdeviceptr)a->base;
		*pPitch = pitch;
	}
	return rc;
}

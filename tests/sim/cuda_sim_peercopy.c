/*
 * Simulated CUDA driver: copies between contexts (cuMemcpyPeer, cuMemcpy3DPeer
 * and their asynchronous and per-thread variants).  What the real driver
 * does, from docs/facts-cuda.md's "Every contract case":
 * - size 0 succeeds; a NULL pointer, or a range running past the end of its
 *   allocation on either side, is CUDA_ERROR_INVALID_VALUE, and so is host
 *   memory the driver does not know (malloc'd) and freed memory (H200,
 *   driver 580; page-locked host memory the real driver copies, which the
 *   simulator does not have);
 * - a context that names the wrong device for its pointer is accepted
 *   silently (only the pointer decides where the bytes are);
 * - the copy works without peer access (the real driver stages it through the
 *   host, ten times slower): here it is always a plain memmove.
 * Async variants copy at enqueue; per-thread variants behave the same.
 */
#include "sim_internal.h"

#include <string.h>

/* async: the copy's stream, for its CUPTI record (cuda_sim_um.c); per_thread:
 * a _ptsz variant, whose NULL stream is the per-thread stream. */
static CUresult peer_copy(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n,
                          int async, CUstream s, int per_thread)
{
	CUresult rc = CUDA_SUCCESS;

	if (n == 0)
		return CUDA_SUCCESS;
	/* a destroyed context: the real driver faults (H200, driver 580); the
	 * simulator answers as its enable does, CONTEXT_IS_DESTROYED */
	if (!pwsim_ctx_check(dctx))
		return pwsim_ctx_refused(dctx);
	if (!pwsim_ctx_check(sctx))
		return pwsim_ctx_refused(sctx);
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	if (pwsim_find_range((uintptr_t)dst, n) && pwsim_find_range((uintptr_t)src, n)) {
		memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
		if (async)
			pwsim_cupti_copy(s, per_thread, dst, src, n, dctx, sctx);
	} else {
		rc = CUDA_ERROR_INVALID_VALUE;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                      CUcontext srcContext, size_t ByteCount)
{
	CUresult rc = pwsim_ready();

	return rc ? rc : peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, 0, NULL, 0);
}

CUresult cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount)
{
	return cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount);
}

static CUresult peer_async(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n,
                           CUstream s, int per_thread)
{
	CUresult rc = pwsim_ready();

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(s);
	return rc ? rc : peer_copy(dst, dctx, src, sctx, n, 1, s, per_thread);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount, CUstream hStream)
{
	return peer_async(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 0);
}

CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                CUcontext srcContext, size_t ByteCount, CUstream hStream)
{
	return peer_async(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 1);
}

/* ---- 3D peer copies: CUDA_MEMCPY3D_PEER (cuda.h :3367), with the rules that
 * cuMemcpy3D's description gives (:10262-10428) ---- */

/* One side of a 3D copy, with the pitch and height it will use. */
struct side {
	int type; /* CU_MEMORYTYPE_HOST / DEVICE / UNIFIED */
	uintptr_t base;
	size_t x, y, z, pitch, height;
	CUcontext ctx;
};

static struct side src_side(const CUDA_MEMCPY3D_PEER *c)
{
	struct side s = {c->srcMemoryType, (uintptr_t)c->srcDevice,
	                 c->srcXInBytes,   c->srcY,
	                 c->srcZ,          c->srcPitch,
	                 c->srcHeight,     c->srcContext};

	if (s.type == CU_MEMORYTYPE_HOST)
		s.base = (uintptr_t)c->srcHost;
	return s;
}

static struct side dst_side(const CUDA_MEMCPY3D_PEER *c)
{
	struct side s = {c->dstMemoryType, (uintptr_t)c->dstDevice,
	                 c->dstXInBytes,   c->dstY,
	                 c->dstZ,          c->dstPitch,
	                 c->dstHeight,     c->dstContext};

	if (s.type == CU_MEMORYTYPE_HOST)
		s.base = (uintptr_t)c->dstHost;
	return s;
}

static CUresult check_type(int type)
{
	if (type == CU_MEMORYTYPE_ARRAY)
		return CUDA_ERROR_NOT_SUPPORTED; /* CUDA arrays are not simulated */
	if (type != CU_MEMORYTYPE_HOST && type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Offsets [*first, *end) of the bytes the copy touches on side s.  A pitch or
 * height of 0 means "not specified" (cuda.h :10392-10396 and :3378: "If specified,
 * srcPitch must be greater than or equal to WidthInBytes + srcXInBytes",
 * "srcHeight ... may be 0 if Depth==1"): the tight value is used. */
static int side_extent(struct side *s, const CUDA_MEMCPY3D_PEER *c, size_t *first, size_t *end)
{
	size_t min_pitch, min_height, rows, last_row, off;

	if (__builtin_add_overflow(s->x, c->WidthInBytes, &min_pitch) ||
	    __builtin_add_overflow(s->y, c->Height, &min_height))
		return -1;
	if (!s->pitch)
		s->pitch = min_pitch;
	if (!s->height)
		s->height = min_height;
	if (s->pitch < min_pitch || s->height < min_height)
		return -1;
	/* first = (z*height + y)*pitch + x; end = ((z+D-1)*height + y+H-1)*pitch + x + W */
	if (__builtin_mul_overflow(s->z, s->height, &rows) || __builtin_add_overflow(rows, s->y, &rows) ||
	    __builtin_mul_overflow(rows, s->pitch, &off) || __builtin_add_overflow(off, s->x, first))
		return -1;
	if (__builtin_add_overflow(s->z, c->Depth - 1, &last_row) ||
	    __builtin_mul_overflow(last_row, s->height, &last_row) ||
	    __builtin_add_overflow(last_row, min_height - 1, &last_row) ||
	    __builtin_mul_overflow(last_row, s->pitch, &off) || __builtin_add_overflow(off, min_pitch, end))
		return -1;
	return 0;
}

/* A device side needs a valid context, and its bytes inside one allocation;
 * a UNIFIED address outside every allocation is host memory. */
static CUresult check_side(struct side *s, const CUDA_MEMCPY3D_PEER *c)
{
	size_t first, end;
	uintptr_t lo;
	int is_dev = s->type == CU_MEMORYTYPE_DEVICE;

	if (!s->base || side_extent(s, c, &first, &end) || pwsim_add_overflows(s->base, first, &lo))
		return CUDA_ERROR_INVALID_VALUE;
	if (s->type == CU_MEMORYTYPE_UNIFIED)
		is_dev = pwsim_find(s->base) != NULL;
	if (is_dev && !pwsim_ctx_check(s->ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (is_dev && !pwsim_find_range(lo, end - first))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static void copy_rows(const struct side *d, const struct side *s, const CUDA_MEMCPY3D_PEER *c)
{
	for (size_t k = 0; k < c->Depth; k++) {
		for (size_t j = 0; j < c->Height; j++) {
			size_t doff = ((d->z + k) * d->height + d->y + j) * d->pitch + d->x;
			size_t soff = ((s->z + k) * s->height + s->y + j) * s->pitch + s->x;

			memmove((void *)(d->base + doff), (const void *)(s->base + soff), c->WidthInBytes);
		}
	}
}

static CUresult copy_3d(const CUDA_MEMCPY3D_PEER *c, int async, CUstream stream, int per_thread)
{
	struct side s, d;
	CUresult rc;

	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	rc = check_type(c->srcMemoryType);
	if (rc == CUDA_SUCCESS)
		rc = check_type(c->dstMemoryType);
	/* cuda.h :10402: "The srcLOD and dstLOD members ... must be set to 0." */
	if (rc == CUDA_SUCCESS && (c->srcLOD || c->dstLOD))
		rc = CUDA_ERROR_INVALID_VALUE;
	if (rc || !c->WidthInBytes || !c->Height || !c->Depth)
		return rc;
	s = src_side(c);
	d = dst_side(c);
	pwsim_lock();
	rc = check_side(&s, c);
	if (rc == CUDA_SUCCESS)
		rc = check_side(&d, c);
	if (rc == CUDA_SUCCESS) {
		copy_rows(&d, &s, c);
		if (async)
			pwsim_cupti_copy(stream, per_thread, d.base, s.base,
			                 c->WidthInBytes * c->Height * c->Depth,
			                 d.type == CU_MEMORYTYPE_HOST ? NULL : d.ctx,
			                 s.type == CU_MEMORYTYPE_HOST ? NULL : s.ctx);
	}
	pwsim_unlock();
	return rc;
}

CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy)
{
	CUresult rc = pwsim_ready();

	return rc ? rc : copy_3d(pCopy, 0, NULL, 0);
}

CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy)
{
	return cuMemcpy3DPeer(pCopy);
}

static CUresult copy_3d_async(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream, int per_thread)
{
	CUresult rc = pwsim_ready();

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(hStream);
	return rc ? rc : copy_3d(pCopy, 1, hStream, per_thread);
}

CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{
	return copy_3d_async(pCopy, hStream, 0);
}

CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{
	return copy_3d_async(pCopy, hStream, 1);
}

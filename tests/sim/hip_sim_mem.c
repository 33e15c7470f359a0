/*
 * Simulated HIP runtime: hipMalloc, hipFree, copies, hipMemset and
 * hipPointerGetAttributes.  Copies are synchronous memcpy()s of real bytes.
 *
 * A pointer inside a known allocation must have the whole range inside it; a
 * pointer the runtime does not know is host memory (as ROCm treats unknown
 * pointers), except a freed range, which is refused.  The copy kind is not
 * checked against where the pointers live.
 */
#include "hip_sim_internal.h"

#include <stdint.h>
#include <string.h>

hipError_t hipMalloc(void **ptr, size_t size)
{
	struct hsim_alloc *a;
	hipError_t rc;

	if (!ptr)
		return hipErrorInvalidValue;
	/* clr: size 0 succeeds with a NULL pointer */
	if (size == 0) {
		*ptr = NULL;
		return hipSuccess;
	}
	hsim_topo();
	hsim_lock();
	rc = hsim_alloc_new(HSIM_KIND_DEVICE, size, hsim_current(), &a);
	hsim_unlock();
	if (rc == hipSuccess)
		*ptr = (void *)a->base;
	return rc;
}

/* NULL -> success; anything but the base of a live hipMalloc or
 * hipMallocManaged allocation (an IPC mapping included) -> InvalidValue. */
hipError_t hipFree(void *ptr)
{
	struct hsim_alloc *a;
	hipError_t rc = hipSuccess;

	if (!ptr)
		return hsim_note_result(hipSuccess);
	hsim_lock();
	a = hsim_find_live((uintptr_t)ptr);
	if (!a || a->base != (uintptr_t)ptr || (a->kind == HSIM_KIND_IPC && !a->pool_import))
		rc = hipErrorInvalidValue;
	else if (a->kind != HSIM_KIND_IPC || --a->ipc_refs == 0)
		hsim_alloc_retire(a); /* a pool import: "may be freed with hipFree" */
	hsim_unlock();
	return hsim_note_result(rc);
}

/* 0 if [p, p+n) may be touched: inside one live allocation, or not ours. */
static int range_ok(const void *p, size_t n)
{
	uintptr_t u = (uintptr_t)p, end;
	struct hsim_alloc *a;

	if (!p || hsim_add_overflows(u, n, &end))
		return -1;
	a = hsim_find(u);
	if (a)
		return a->freed || end > a->base + a->size ? -1 : 0;
	/* not starting in one of ours: it must not run into one either */
	a = hsim_find(end - 1);
	return a ? -1 : 0;
}

static hipError_t copy(void *dst, const void *src, size_t n, int kind)
{
	hipError_t rc = hipSuccess;

	if (kind < hipMemcpyHostToHost || kind > hipMemcpyDefault)
		return hipErrorInvalidValue;
	if (n == 0)
		return hipSuccess;
	hsim_lock();
	if (range_ok(dst, n) || range_ok(src, n))
		rc = hipErrorInvalidValue;
	else
		memmove(dst, src, n);
	hsim_unlock();
	return rc;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	return copy(dst, src, sizeBytes, (int)kind);
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream)
{
	hipError_t rc = hsim_stream_check(stream);

	return rc ? rc : copy(dst, src, sizeBytes, (int)kind);
}

/* hip_runtime_api.h :3320, :3374: device to device, by device pointers; the
 * range checks are hipMemcpy's, with both sides device memory of ours. */
static hipError_t copy_dtod(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n)
{
	if (n == 0)
		return hipSuccess;
	hsim_lock();
	int ours = hsim_find_live((uintptr_t)dst) && hsim_find_live((uintptr_t)src);
	hsim_unlock();
	return ours ? copy(dst, src, n, hipMemcpyDeviceToDevice) : hipErrorInvalidValue;
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
	return copy_dtod(dst, src, sizeBytes);
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)
{
	hipError_t rc = hsim_stream_check(stream);

	return rc ? rc : copy_dtod(dst, src, sizeBytes);
}

/* The whole range must be inside one live allocation. */
hipError_t hipMemset(void *dst, int value, size_t sizeBytes)
{
	hipError_t rc = hipSuccess;

	if (sizeBytes == 0)
		return dst ? hipSuccess : hipErrorInvalidValue;
	hsim_lock();
	if (!hsim_find_range((uintptr_t)dst, sizeBytes))
		rc = hipErrorInvalidValue;
	else
		memset(dst, value, sizeBytes);
	hsim_unlock();
	return rc;
}

/* clr hip_peer.cpp: a device id outside [0, count) -> InvalidDevice; then a
 * device-to-device copy on the null stream.  Peer access is not required. */
hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId, size_t sizeBytes)
{
	if (!hsim_valid_device(dstDeviceId) || !hsim_valid_device(srcDeviceId))
		return hipErrorInvalidDevice;
	return copy(dst, src, sizeBytes, hipMemcpyDeviceToDevice);
}

/* The same, then a stream that is not valid -> hipErrorContextIsDestroyed. */
hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice, size_t sizeBytes,
                              hipStream_t stream)
{
	if (!hsim_valid_device(dstDeviceId) || !hsim_valid_device(srcDevice))
		return hipErrorInvalidDevice;
	if (hsim_stream_check(stream))
		return hipErrorContextIsDestroyed;
	return copy(dst, src, sizeBytes, hipMemcpyDeviceToDevice);
}

/* hip_runtime_api.h :3770, :3810: row by row, each as hipMemcpy (the kind
 * checked as hipMemcpy does); a pitch below the width -> InvalidValue. */
static hipError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, int kind)
{
	if (!width || !height)
		return hipSuccess;
	if (dpitch < width || spitch < width)
		return hipErrorInvalidValue;
	for (size_t y = 0; y < height; y++) {
		hipError_t rc = copy((char *)dst + y * dpitch, (const char *)src + y * spitch, width, kind);
		if (rc)
			return rc;
	}
	return hipSuccess;
}

hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                       hipMemcpyKind kind)
{
	return copy2d(dst, dpitch, src, spitch, width, height, (int)kind);
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	hipError_t rc = hsim_stream_check(stream);

	return rc ? rc : copy2d(dst, dpitch, src, spitch, width, height, (int)kind);
}

/* :3963, :3975: the box of two pitched pointers, layer by layer as
 * hipMemcpy2D; NULL -> InvalidValue; an array side -> NotSupported (no
 * arrays here: a choice, README). */
static hipError_t copy3d(const hipMemcpy3DParms *p)
{
	if (!p)
		return hipErrorInvalidValue;
	if (p->srcArray || p->dstArray)
		return hipErrorNotSupported;
	const hipExtent *e = &p->extent;
	for (size_t z = 0; z < e->depth; z++) {
		size_t so =
		    ((p->srcPos.z + z) * p->srcPtr.ysize + p->srcPos.y) * p->srcPtr.pitch + p->srcPos.x;
		size_t dof =
		    ((p->dstPos.z + z) * p->dstPtr.ysize + p->dstPos.y) * p->dstPtr.pitch + p->dstPos.x;
		hipError_t rc =
		    copy2d((char *)p->dstPtr.ptr + dof, p->dstPtr.pitch, (const char *)p->srcPtr.ptr + so,
		           p->srcPtr.pitch, e->width, e->height, (int)p->kind);
		if (rc)
			return rc;
	}
	return hipSuccess;
}

hipError_t hipMemcpy3D(const hipMemcpy3DParms *p)
{
	return copy3d(p);
}

hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms *p, hipStream_t stream)
{
	hipError_t rc = hsim_stream_check(stream);

	return rc ? rc : copy3d(p);
}

/* The per-thread default stream forms (amd_detail/amd_hip_runtime_pt_api.h;
 * hip_5.2, the two async 2D/3D ones hip_5.3): each as its plain form; the
 * simulator has one queue per device, so the thread's own default stream
 * (NULL here) orders nothing differently. */
hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	return hipMemcpy(dst, src, sizeBytes, kind);
}

hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                              hipStream_t stream)
{
	return hipMemcpyAsync(dst, src, sizeBytes, kind, stream);
}

hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t height, hipMemcpyKind kind)
{
	return copy2d(dst, dpitch, src, spitch, width, height, (int)kind);
}

hipError_t hipMemcpy3D_spt(const hipMemcpy3DParms *p)
{
	return copy3d(p);
}

#if PWSIM_HIP_MAJOR >= 6
hipError_t hipMemcpy2DAsync_spt(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	return hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}

hipError_t hipMemcpy3DAsync_spt(const hipMemcpy3DParms *p, hipStream_t stream)
{
	return hipMemcpy3DAsync(p, stream);
}
#endif

#if PWSIM_HIP_MAJOR >= 7
/* ROCm 7.1: a 3D copy between two devices, row by row; each row as
 * hipMemcpyPeer's copy.  A device id outside [0, count) -> InvalidDevice
 * (as hipMemcpyPeer); NULL parameters -> InvalidValue; an array side ->
 * NotSupported (the simulator has no arrays: a choice, README). */
static hipError_t copy3d_peer(const hipMemcpy3DPeerParms *p)
{
	if (!p)
		return hipErrorInvalidValue;
	if (!hsim_valid_device(p->srcDevice) || !hsim_valid_device(p->dstDevice))
		return hipErrorInvalidDevice;
	if (p->srcArray || p->dstArray)
		return hipErrorNotSupported;
	const hipExtent *e = &p->extent;
	if (!e->width || !e->height || !e->depth)
		return hipSuccess;
	if (!p->srcPtr.ptr || !p->dstPtr.ptr || p->srcPtr.pitch < e->width || p->dstPtr.pitch < e->width)
		return hipErrorInvalidValue;
	for (size_t z = 0; z < e->depth; z++)
		for (size_t y = 0; y < e->height; y++) {
			size_t so =
			    ((p->srcPos.z + z) * p->srcPtr.ysize + p->srcPos.y + y) * p->srcPtr.pitch +
			    p->srcPos.x;
			size_t dof =
			    ((p->dstPos.z + z) * p->dstPtr.ysize + p->dstPos.y + y) * p->dstPtr.pitch +
			    p->dstPos.x;
			hipError_t rc = copy((char *)p->dstPtr.ptr + dof, (const char *)p->srcPtr.ptr + so,
			                     e->width, hipMemcpyDeviceToDevice);
			if (rc)
				return rc;
		}
	return hipSuccess;
}

hipError_t hipMemcpy3DPeer(hipMemcpy3DPeerParms *p)
{
	return copy3d_peer(p);
}

hipError_t hipMemcpy3DPeerAsync(hipMemcpy3DPeerParms *p, hipStream_t stream)
{
	hipError_t rc = hsim_stream_check(stream);

	return rc ? rc : copy3d_peer(p);
}

/* Each copy as hipMemcpyAsync with hipMemcpyDefault, in order.  count 0 or
 * a NULL array -> InvalidValue; *failIdx: the index of the copy refused,
 * else SIZE_MAX (choices, README).  The attributes are hints that change
 * nothing here. */
/* ROCm 7.1 (clr hip_memory.cpp): no operation, a NULL list or flags other
 * than 0 -> InvalidValue; then each operation in order, *failIdx the one
 * refused, else SIZE_MAX (as the batch above).  Two pointers: the extent's
 * width in bytes, each row as hipMemcpy with hipMemcpyDefault, rows
 * rowLength apart (0: the width) and layers layerHeight rows apart (0: the
 * height); an array side -> NotSupported (no arrays here: a choice, README). */
static hipError_t copy3d_op(const hipMemcpy3DBatchOp *o)
{
	if (o->src.type == hipMemcpyOperandTypeArray || o->dst.type == hipMemcpyOperandTypeArray)
		return hipErrorNotSupported;
	if (o->src.type != hipMemcpyOperandTypePointer || o->dst.type != hipMemcpyOperandTypePointer)
		return hipErrorInvalidValue;
	const hipExtent *e = &o->extent;
	size_t sp = o->src.op.ptr.rowLength ? o->src.op.ptr.rowLength : e->width,
	       dp = o->dst.op.ptr.rowLength ? o->dst.op.ptr.rowLength : e->width,
	       sl = o->src.op.ptr.layerHeight ? o->src.op.ptr.layerHeight : e->height,
	       dl = o->dst.op.ptr.layerHeight ? o->dst.op.ptr.layerHeight : e->height;
	if (sp < e->width || dp < e->width || sl < e->height || dl < e->height)
		return hipErrorInvalidValue;
	for (size_t z = 0; z < e->depth; z++)
		for (size_t y = 0; y < e->height; y++) {
			hipError_t rc = copy((char *)o->dst.op.ptr.ptr + (z * dl + y) * dp,
			                     (const char *)o->src.op.ptr.ptr + (z * sl + y) * sp, e->width,
			                     hipMemcpyDefault);
			if (rc)
				return rc;
		}
	return hipSuccess;
}

hipError_t hipMemcpy3DBatchAsync(size_t numOps, hipMemcpy3DBatchOp *opList, size_t *failIdx,
                                 unsigned long long flags, hipStream_t stream)
{
	if (failIdx)
		*failIdx = SIZE_MAX;
	if (!numOps || !opList || flags)
		return hipErrorInvalidValue;
	hipError_t rc = hsim_stream_check(stream);
	if (rc)
		return rc;
	for (size_t i = 0; i < numOps; i++) {
		rc = copy3d_op(&opList[i]);
		if (rc) {
			if (failIdx)
				*failIdx = i;
			return rc;
		}
	}
	return hipSuccess;
}

hipError_t hipMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                               hipMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                               size_t *failIdx, hipStream_t stream)
{
	(void)attrs;
	(void)attrsIdxs;
	(void)numAttrs;
	if (failIdx)
		*failIdx = SIZE_MAX;
	if (!count || !dsts || !srcs || !sizes)
		return hipErrorInvalidValue;
	hipError_t rc = hsim_stream_check(stream);
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		rc = copy(dsts[i], srcs[i], sizes[i], hipMemcpyDefault);
		if (rc) {
			if (failIdx)
				*failIdx = i;
			return rc;
		}
	}
	return hipSuccess;
}
#endif

/* clr hip_memory.cpp: NULL attributes or ptr -> InvalidValue; the struct is
 * zeroed first.  Device memory (hipMalloc, IPC mappings): type Device.
 * Managed memory: isManaged 1; type Managed from 6.0, and in 5.x Host (clr
 * 5.x reports a fine-grained SVM buffer as host memory) with hostPointer set.
 * A pointer the runtime does not know: 5.x -> InvalidValue; 6.x+ -> success
 * with type Unregistered (CUDA's behaviour, which 6.0 adopted; a choice where
 * the facts are silent) and device hipInvalidDeviceId. */
/*
 * The thread's last error, for the two calls peerwatch makes on its own
 * (hipPointerGetAttributes, hipMemGetAddressRange) and the calls whose
 * error a program leaves behind in the tests of error.sticky (hipFree,
 * hipDeviceEnablePeerAccess: hsim_note_result) only: the other calls of
 * the simulator do not record theirs.  ROCm 7 (facts A8.6): hipGetLastError
 * returns the last call that failed and resets it; before 7 it returns the
 * result of the last call, whatever it was.
 */
static __thread hipError_t t_last_error;

hipError_t hsim_note_result(hipError_t rc)
{
#if PWSIM_HIP_MAJOR >= 7
	if (rc != hipSuccess)
		t_last_error = rc;
#else
	t_last_error = rc;
#endif
	return rc;
}

hipError_t hipGetLastError(void)
{
	hipError_t rc = t_last_error;
	t_last_error = hipSuccess;
	return rc;
}

hipError_t hipPeekAtLastError(void)
{
	return t_last_error;
}

static hipError_t pointer_attributes(hipPointerAttribute_t *attributes, const void *ptr);

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr)
{
	return hsim_note_result(pointer_attributes(attributes, ptr));
}

static hipError_t pointer_attributes(hipPointerAttribute_t *attributes, const void *ptr)
{
	struct hsim_alloc *a;
	hipError_t rc = hipSuccess;

	if (!attributes || !ptr)
		return hipErrorInvalidValue;
	memset(attributes, 0, sizeof(*attributes));
	hsim_lock();
	a = hsim_find_live((uintptr_t)ptr);
	if (a) {
		attributes->device = a->device;
		attributes->devicePointer = (void *)ptr;
		if (a->kind == HSIM_KIND_MANAGED) {
			attributes->isManaged = 1;
			attributes->hostPointer = (void *)ptr;
#if PWSIM_HIP_MAJOR >= 6
			attributes->type = hipMemoryTypeManaged;
#else
			attributes->type = hipMemoryTypeHost;
#endif
		} else {
			attributes->type = hipMemoryTypeDevice;
		}
	} else {
#if PWSIM_HIP_MAJOR >= 6
		attributes->type = hipMemoryTypeUnregistered;
		attributes->device = hipInvalidDeviceId;
#else
		rc = hipErrorInvalidValue;
#endif
	}
	hsim_unlock();
	return rc;
}

/* hip_runtime_api.h (5.2.3, :4069): "Get information on memory allocations";
 * returns hipSuccess or hipErrorInvalidDevicePointer.  Any pointer inside a
 * live allocation (device, managed, IPC mapping) gives that allocation's base
 * and the size it was asked for; either output may be NULL. */
hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
	hsim_lock();
	struct hsim_alloc *a = dptr ? hsim_find_live((uintptr_t)dptr) : NULL;
	if (a) {
		if (pbase)
			*pbase = (hipDeviceptr_t)a->base;
		if (psize)
			*psize = a->size;
	}
	hsim_unlock();
	return hsim_note_result(a ? hipSuccess : hipErrorInvalidDevicePointer);
}

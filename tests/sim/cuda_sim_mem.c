/*
 * Simulated CUDA driver: device memory, synchronous copies, memset and pointer
 * queries.  Copies really move the bytes (memmove) while the lock is held, so
 * a concurrent free cannot unmap a range in the middle of a copy.
 */
#include "sim_internal.h"

#include <string.h>

/* The checks every synchronous copy or memset makes first: initialized and a
 * current context (cuda.h lists CUDA_ERROR_INVALID_CONTEXT for each). */
static CUresult need_context(void)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	return pwsim_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* ---- allocation ---- */

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	CUresult rc = need_context();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	/* cuda.h :8583: "If bytesize is 0, cuMemAlloc() returns CUDA_ERROR_INVALID_VALUE." */
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	rc = pwsim_alloc_new(PWSIM_KIND_DEVICE, bytesize, pwsim_current(), &a);
	pwsim_unlock();
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)a->base;
	return rc;
}

/* Only the base of a live cuMemAlloc or cuMemAllocManaged allocation can be
 * freed; anything else (unknown, interior, already freed, an IPC import that
 * cuIpcCloseMemHandle must close, 0) is CUDA_ERROR_INVALID_VALUE. */
static CUresult mem_free(CUdeviceptr dptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)dptr);
	/* A VMM mapping is cuMemUnmap's (cuda.h :13082), not cuMemFree's. */
	if (!a || a->base != (uintptr_t)dptr || a->kind == PWSIM_KIND_IPC || a->kind == PWSIM_KIND_VMM)
		rc = CUDA_ERROR_INVALID_VALUE;
	else
		pwsim_alloc_retire(a);
	pwsim_unlock();
	return rc;
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	return mem_free(dptr);
}

/* The legacy 32-bit ABI (cuda.h :25639): the value is looked up like any
 * other pointer, so in practice it names no allocation. */
CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
	return mem_free((CUdeviceptr)dptr);
}

/* Streams are synchronous: the free happens at enqueue. */
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	CUresult rc = pwsim_ready();

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(hStream);
	return rc ? rc : mem_free(dptr);
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	return cuMemFreeAsync(dptr, hStream);
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)dptr);
	/* A VMM mapping is no allocation here: NOT_FOUND, as the H200 driver
	 * answers (tests/gpu/vmm_probe.md). */
	if (a && a->kind == PWSIM_KIND_VMM)
		a = NULL;
	/* cuda.h :8715: both out parameters are optional. */
	if (a && pbase)
		*pbase = (CUdeviceptr)a->base;
	if (a && psize)
		*psize = a->size;
	pwsim_unlock();
	return a ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* ---- synchronous copies and memset ---- */

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	CUresult rc = need_context();

	if (rc || ByteCount == 0)
		return rc;
	if (!srcHost)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	if (pwsim_find_range((uintptr_t)dstDevice, ByteCount))
		memmove((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	CUresult rc = need_context();

	if (rc || ByteCount == 0)
		return rc;
	if (!dstHost)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	if (pwsim_find_range((uintptr_t)srcDevice, ByteCount))
		memmove(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
	CUresult rc = need_context();

	if (rc || ByteCount == 0)
		return rc;
	pwsim_lock();
	if (pwsim_find_range((uintptr_t)dstDevice, ByteCount) &&
	    pwsim_find_range((uintptr_t)srcDevice, ByteCount))
		memmove((void *)(uintptr_t)dstDevice, (const void *)(uintptr_t)srcDevice, ByteCount);
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	CUresult rc = need_context();

	if (rc || N == 0)
		return rc;
	pwsim_lock();
	if (pwsim_find_range((uintptr_t)dstDevice, N))
		memset((void *)(uintptr_t)dstDevice, uc, N);
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

/* The per-thread-default-stream variants (cuda.h :104-124): with synchronous
 * streams there is no difference. */
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
	return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}

CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	return cuMemsetD8_v2(dstDevice, uc, N);
}

/* ---- pointer attributes (cuda.h :14164-14357, :14849-14896) ---- */

/* Bytes the attribute's value takes (cuda.h's "The type of data must be"),
 * or 0 for an attribute the simulator does not answer.  Booleans are 32-bit. */
static size_t attr_size(CUpointer_attribute attr)
{
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT: return sizeof(CUcontext);
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: return sizeof(unsigned int);
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: return sizeof(CUdeviceptr);
	case CU_POINTER_ATTRIBUTE_HOST_POINTER: return sizeof(void *);
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: return sizeof(int);
	case CU_POINTER_ATTRIBUTE_BUFFER_ID: return sizeof(unsigned long long);
	case CU_POINTER_ATTRIBUTE_IS_MANAGED: return sizeof(int);
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: return sizeof(int);
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: return sizeof(CUdeviceptr);
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE: return sizeof(size_t);
	case CU_POINTER_ATTRIBUTE_MAPPED: return sizeof(int);
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: return sizeof(int);
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: return sizeof(CUmemoryPool);
	default: return 0;
	}
}

/* The value of a supported attribute of a live allocation, into *out (which
 * has attr_size bytes).  The two that can fail do so as cuda.h says. */
static CUresult attr_get(const struct pwsim_alloc *a, CUpointer_attribute attr, CUdeviceptr ptr, void *out)
{
	int b;

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)out = a->ctx; return CUDA_SUCCESS;
	/* Managed memory too reports DEVICE: IS_MANAGED tells them apart. */
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)out = CU_MEMORYTYPE_DEVICE;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		/* cuda.h :14210: no current context -> INVALID_CONTEXT */
		if (!pwsim_current())
			return CUDA_ERROR_INVALID_CONTEXT;
		*(CUdeviceptr *)out = ptr;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		/* cuda.h :14222: only managed memory is host-accessible;
		 * cuMemAlloc memory has no host pointer -> INVALID_VALUE */
		if (a->kind != PWSIM_KIND_MANAGED)
			return CUDA_ERROR_INVALID_VALUE;
		*(void **)out = (void *)(uintptr_t)ptr;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)out = a->buffer_id; return CUDA_SUCCESS;
	/* An IPC mapping reports the device of the context that opened it, not
	 * the exporter's, where its bytes live (docs/facts-cuda.md, measured on
	 * H200s); CONTEXT names that context too. */
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)out = a->kind == PWSIM_KIND_IPC && a->ctx ? a->ctx->device : a->device;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)out = a->base; return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)out = a->size; return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED: b = a->kind == PWSIM_KIND_MANAGED; break;
	case CU_POINTER_ATTRIBUTE_MAPPED: b = 1; break;
	/* cuda.h :917: the pool of a stream-ordered allocation, "Otherwise returns NULL" */
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)out = a->pool; return CUDA_SUCCESS;
	/* cuda.h :910: what cuIpcGetMemHandle accepts (cuda_sim_ipc.c) */
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
		b = a->kind == PWSIM_KIND_DEVICE && !a->pool;
		break;
	default: b = 0; break; /* SYNC_MEMOPS: never set by the simulator */
	}
	*(int *)out = b;
	return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	if (!data || !attr_size(attribute))
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)ptr);
	/* A pointer in no allocation: INVALID_VALUE (cuda.h :14192). */
	rc = a ? attr_get(a, attribute, ptr, data) : CUDA_ERROR_INVALID_VALUE;
	pwsim_unlock();
	return rc;
}

/* The "default NULL value" cuPointerGetAttributes writes for a pointer that is
 * not a CUDA pointer (cuda.h :14876-14878): zero, except the device ordinal,
 * which is CU_DEVICE_INVALID (-2) as cudaPointerGetAttributes reports for
 * unregistered host memory — 0 would name a real device. */
static void attr_default(CUpointer_attribute attr, void *out)
{
	memset(out, 0, attr_size(attr));
	if (attr == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
		*(int *)out = CU_DEVICE_INVALID;
}

CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr)
{
	CUresult rc = pwsim_ready();
	struct pwsim_alloc *a;

	if (rc)
		return rc;
	if (numAttributes && (!attributes || !data))
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int i = 0; i < numAttributes; i++)
		if (!data[i] || !attr_size(attributes[i]))
			return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_find_live((uintptr_t)ptr);
	/* Unlike the singular call, no error for an unknown pointer or for an
	 * attribute the allocation has no value for: the default is written. */
	for (unsigned int i = 0; i < numAttributes; i++)
		if (!a || attr_get(a, attributes[i], ptr, data[i]) != CUDA_SUCCESS)
			attr_default(attributes[i], data[i]);
	pwsim_unlock();
	return CUDA_SUCCESS;
}

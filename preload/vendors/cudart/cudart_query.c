/*
 * What the CUDA runtime says, asked untraced: the current device
 * (cudaGetDevice) and the name of a result; the look-ups of a call before
 * it runs.  Where a pointer lives is asked of the driver (unified
 * addressing: a runtime device pointer is the driver's CUdeviceptr).
 */
#include <stdio.h>
#include <string.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cudart/cudart.h"

typedef cudaError_t (*get_device_fn)(int *);
typedef const char *(*error_name_fn)(cudaError_t);

int pw_cudart_current_device(void)
{
	static _Atomic(get_device_fn) get;
	get_device_fn f = atomic_load_explicit(&get, memory_order_acquire);
	if (!f) {
		f = (get_device_fn)pw_cudart_aux("cudaGetDevice");
		atomic_store_explicit(&get, f, memory_order_release);
	}
	int dev = PW_NO_DEV;
	if (!f)
		return dev;
	/* Not pw_tls_internal: this may be the runtime's first call, in which it
	 * binds the driver (dlsym of cuGetProcAddress_v2), and that binding must
	 * be handed our wrappers.  Driver calls it makes are not checked. */
	pw_tls_upper++;
	if (f(&dev) != cudaSuccess)
		dev = PW_NO_DEV;
	pw_tls_upper--;
	return dev;
}

/* Known names first; the runtime is asked only for codes we do not list. */
const char *pw_cudart_error_name(int code)
{
	switch (code) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInitializationError: return "cudaErrorInitializationError";
	case cudaErrorCudartUnloading: return "cudaErrorCudartUnloading";
	case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
	case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
	case cudaErrorDeviceUninitialized: return "cudaErrorDeviceUninitialized";
	case cudaErrorMapBufferObjectFailed: return "cudaErrorMapBufferObjectFailed";
	case cudaErrorAlreadyMapped: return "cudaErrorAlreadyMapped";
	case cudaErrorPeerAccessUnsupported: return "cudaErrorPeerAccessUnsupported";
	case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
	case cudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
	case cudaErrorNotReady: return "cudaErrorNotReady";
	case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
	case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
	case cudaErrorPeerAccessNotEnabled: return "cudaErrorPeerAccessNotEnabled";
	case cudaErrorTooManyPeers: return "cudaErrorTooManyPeers";
	case cudaErrorNotPermitted: return "cudaErrorNotPermitted";
	case cudaErrorNotSupported: return "cudaErrorNotSupported";
	case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
	case cudaErrorUnknown: return "cudaErrorUnknown";
	}
	static _Atomic(error_name_fn) name_of;
	error_name_fn f = atomic_load_explicit(&name_of, memory_order_acquire);
	if (!f) {
		f = (error_name_fn)pw_cudart_aux("cudaGetErrorName");
		atomic_store_explicit(&name_of, f, memory_order_release);
	}
	if (!f)
		return NULL;
	pw_tls_internal++;
	const char *n = f(code);
	pw_tls_internal--;
	return n;
}

/* The pointer of one side of a 3D peer copy (NULL for an array). */
uint64_t pw_cudart_copy3d_ptr(const struct cudaPitchedPtr *p, const struct cudaPos *pos)
{
	return p->ptr ? (uintptr_t)p->ptr + pos->x + pos->y * p->pitch + pos->z * p->pitch * p->ysize : 0;
}

/* ---- before the call ---- */

void pw_cudart_pre_copy3d(struct pw_call *c, int i)
{
	const struct cudaMemcpy3DPeerParms *p = (const struct cudaMemcpy3DPeerParms *)(uintptr_t)c->a[i];
	c->dev[i] =
	    p && !p->srcArray ? pw_cuda_ptr_device(pw_cudart_copy3d_ptr(&p->srcPtr, &p->srcPos)) : PW_NO_DEV;
	c->dev[PW_DEV_COPY3D_DST] =
	    p && !p->dstArray ? pw_cuda_ptr_device(pw_cudart_copy3d_ptr(&p->dstPtr, &p->dstPos)) : PW_NO_DEV;
}

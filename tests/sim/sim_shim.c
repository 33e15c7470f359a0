/*
 * A stand-in for a preloaded interposer (the self-test's --preload-child runs
 * under LD_PRELOAD of this): it exports two of the driver's names with
 * wrappers that fail.  The simulator must still hand out its own functions
 * through cuGetProcAddress — which holds because it is linked -Bsymbolic.
 */
#include "cuda_sim_api.h"

CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                      CUcontext srcContext, size_t ByteCount)
{
	(void)dstDevice, (void)dstContext, (void)srcDevice, (void)srcContext, (void)ByteCount;
	return CUDA_ERROR_UNKNOWN;
}

CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
	(void)devPtr, (void)count, (void)advice, (void)device;
	return CUDA_ERROR_UNKNOWN;
}

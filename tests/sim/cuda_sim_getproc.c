/*
 * Simulated CUDA driver: cuGetProcAddress and cuGetProcAddress_v2.
 *
 * A table of (api name, exported symbol, version introduced, per-thread
 * default stream or not), the versions being cudaTypedefs.h's PFN_ names.
 * What the real driver answers (docs/facts-cuda.md, "How every runtime
 * reaches the driver"):
 * - the newest variant whose version is <= the cudaVersion asked for, among
 *   those this driver has (a version above the driver's is fine);
 * - flags 0 (DEFAULT) and 1 (LEGACY_STREAM) give legacy-stream variants;
 *   flags 2 (PER_THREAD_DEFAULT_STREAM) gives the _ptds/_ptsz variant where the
 *   function has one, and the base where it has none; asking below the
 *   per-thread variant's version gives NULL and VERSION_NOT_SUFFICIENT, not
 *   the legacy function;
 * - an unknown name (or "") gives CUDA_ERROR_NOT_FOUND, *pfn = NULL and
 *   SYMBOL_NOT_FOUND; a known one asked below its first version,
 *   CUDA_ERROR_NOT_FOUND and VERSION_NOT_SUFFICIENT.
 * Every pointer handed back is the address of the simulator's exported
 * function of exactly that name, so a caller can tell the variant by dladdr.
 * The library is linked with -Bsymbolic, so (void *)fn below is our own
 * function even when a preloaded library exports one of the same name.
 *
 * Versions older than a function's _v2 ABI (cuMemAlloc at 2000, say) name
 * legacy 32-bit ABIs the simulator does not export (except cuMemFree):
 * they answer VERSION_NOT_SUFFICIENT.  The legacy build (PWSIM_MAX_VERSION
 * 11080) has no row newer than 11.8, and cuDriverGetVersion then says 11080.
 */
#include "sim_internal.h"

#include <string.h>

struct proc {
	const char *api;
	const char *sym;
	void *fn;
	int version;
	int per_thread;
};

#define ROW(api, sym, ver)                      \
	{                                       \
#api, #sym, (void *)sym, ver, 0 \
	}
#define PTDS(api, sym, ver)                     \
	{                                       \
#api, #sym, (void *)sym, ver, 1 \
	}

static const struct proc g_procs[] = {
    ROW(cuGetErrorString, cuGetErrorString, 6000),
    ROW(cuGetErrorName, cuGetErrorName, 6000),
    ROW(cuInit, cuInit, 2000),
    ROW(cuDriverGetVersion, cuDriverGetVersion, 2020),
    ROW(cuDeviceGet, cuDeviceGet, 2000),
    ROW(cuDeviceGetCount, cuDeviceGetCount, 2000),
    ROW(cuDeviceGetName, cuDeviceGetName, 2000),
    ROW(cuDeviceTotalMem, cuDeviceTotalMem_v2, 3020),
    ROW(cuDeviceGetAttribute, cuDeviceGetAttribute, 2000),
    ROW(cuDeviceGetUuid, cuDeviceGetUuid, 9020),
    ROW(cuDeviceGetUuid, cuDeviceGetUuid_v2, 11040),
    ROW(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId, 4010),
    ROW(cuGetProcAddress, cuGetProcAddress, 11030),
#if PWSIM_MAX_VERSION >= 12000
    ROW(cuGetProcAddress, cuGetProcAddress_v2, 12000),
#endif
    /* contexts */
    ROW(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000),
    ROW(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 7000),
    ROW(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, 11000),
    ROW(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset, 7000),
    ROW(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset_v2, 11000),
    ROW(cuDevicePrimaryCtxGetState, cuDevicePrimaryCtxGetState, 7000),
    ROW(cuCtxPushCurrent, cuCtxPushCurrent, 2000),
    ROW(cuCtxPushCurrent, cuCtxPushCurrent_v2, 4000),
    ROW(cuCtxPopCurrent, cuCtxPopCurrent, 2000),
    ROW(cuCtxPopCurrent, cuCtxPopCurrent_v2, 4000),
    ROW(cuCtxSetCurrent, cuCtxSetCurrent, 4000),
    ROW(cuCtxCreate, cuCtxCreate, 2000),
    ROW(cuCtxCreate, cuCtxCreate_v2, 3020),
    ROW(cuCtxDestroy, cuCtxDestroy, 2000),
    ROW(cuCtxDestroy, cuCtxDestroy_v2, 4000),
    ROW(cuCtxGetCurrent, cuCtxGetCurrent, 4000),
    ROW(cuCtxGetDevice, cuCtxGetDevice, 2000),
    ROW(cuCtxSynchronize, cuCtxSynchronize, 2000),
#if PWSIM_MAX_VERSION >= 13000
    ROW(cuCtxGetDevice, cuCtxGetDevice_v2, 13000),
    ROW(cuCtxSynchronize, cuCtxSynchronize_v2, 13000),
    ROW(cuCtxCreate, cuCtxCreate_v4, 12050),
#endif
    /* memory */
    ROW(cuMemAlloc, cuMemAlloc_v2, 3020),
    ROW(cuMemFree, cuMemFree, 2000),
    ROW(cuMemFree, cuMemFree_v2, 3020),
    ROW(cuMemFreeAsync, cuMemFreeAsync, 11020),
    PTDS(cuMemFreeAsync, cuMemFreeAsync_ptsz, 11020),
    ROW(cuMemGetAddressRange, cuMemGetAddressRange_v2, 3020),
    ROW(cuMemcpyHtoD, cuMemcpyHtoD_v2, 3020),
    PTDS(cuMemcpyHtoD, cuMemcpyHtoD_v2_ptds, 7000),
    ROW(cuMemcpyDtoH, cuMemcpyDtoH_v2, 3020),
    PTDS(cuMemcpyDtoH, cuMemcpyDtoH_v2_ptds, 7000),
    ROW(cuMemcpyDtoD, cuMemcpyDtoD_v2, 3020),
    PTDS(cuMemcpyDtoD, cuMemcpyDtoD_v2_ptds, 7000),
    ROW(cuMemsetD8, cuMemsetD8_v2, 3020),
    PTDS(cuMemsetD8, cuMemsetD8_v2_ptds, 7000),
    ROW(cuPointerGetAttribute, cuPointerGetAttribute, 4000),
    ROW(cuPointerGetAttributes, cuPointerGetAttributes, 7000),
    /* streams and events */
    ROW(cuStreamCreate, cuStreamCreate, 2000),
    ROW(cuStreamDestroy, cuStreamDestroy, 2000),
    ROW(cuStreamDestroy, cuStreamDestroy_v2, 4000),
    ROW(cuStreamSynchronize, cuStreamSynchronize, 2000),
    PTDS(cuStreamSynchronize, cuStreamSynchronize_ptsz, 7000),
    ROW(cuStreamQuery, cuStreamQuery, 2000),
    PTDS(cuStreamQuery, cuStreamQuery_ptsz, 7000),
    ROW(cuEventCreate, cuEventCreate, 2000),
    ROW(cuEventRecord, cuEventRecord, 2000),
    PTDS(cuEventRecord, cuEventRecord_ptsz, 7000),
    ROW(cuEventQuery, cuEventQuery, 2000),
    ROW(cuEventSynchronize, cuEventSynchronize, 2000),
    ROW(cuEventElapsedTime, cuEventElapsedTime, 2000),
#if PWSIM_MAX_VERSION >= 12080
    ROW(cuEventElapsedTime, cuEventElapsedTime_v2, 12080),
#endif
    ROW(cuEventDestroy, cuEventDestroy, 2000),
    ROW(cuEventDestroy, cuEventDestroy_v2, 4000),
    /* peer access and copies */
    ROW(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer, 4000),
    ROW(cuCtxEnablePeerAccess, cuCtxEnablePeerAccess, 4000),
    ROW(cuCtxDisablePeerAccess, cuCtxDisablePeerAccess, 4000),
    ROW(cuDeviceGetP2PAttribute, cuDeviceGetP2PAttribute, 8000),
    ROW(cuMemcpyPeer, cuMemcpyPeer, 4000),
    PTDS(cuMemcpyPeer, cuMemcpyPeer_ptds, 7000),
    ROW(cuMemcpyPeerAsync, cuMemcpyPeerAsync, 4000),
    PTDS(cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz, 7000),
    ROW(cuMemcpy3DPeer, cuMemcpy3DPeer, 4000),
    PTDS(cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, 7000),
    ROW(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync, 4000),
    PTDS(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz, 7000),
    /* IPC */
    ROW(cuIpcGetEventHandle, cuIpcGetEventHandle, 4010),
    ROW(cuIpcOpenEventHandle, cuIpcOpenEventHandle, 4010),
    ROW(cuIpcGetMemHandle, cuIpcGetMemHandle, 4010),
    ROW(cuIpcOpenMemHandle, cuIpcOpenMemHandle, 4010),
    ROW(cuIpcOpenMemHandle, cuIpcOpenMemHandle_v2, 11000),
    ROW(cuIpcCloseMemHandle, cuIpcCloseMemHandle, 4010),
    /* managed memory */
    ROW(cuMemAllocManaged, cuMemAllocManaged, 6000),
    ROW(cuMemAdvise, cuMemAdvise, 8000),
    ROW(cuMemPrefetchAsync, cuMemPrefetchAsync, 8000),
    PTDS(cuMemPrefetchAsync, cuMemPrefetchAsync_ptsz, 8000),
#if PWSIM_MAX_VERSION >= 12020
    ROW(cuMemAdvise, cuMemAdvise_v2, 12020),
    ROW(cuMemPrefetchAsync, cuMemPrefetchAsync_v2, 12020),
    PTDS(cuMemPrefetchAsync, cuMemPrefetchAsync_v2_ptsz, 12020),
#endif
    ROW(cuMemRangeGetAttribute, cuMemRangeGetAttribute, 8000),
    ROW(cuMemRangeGetAttributes, cuMemRangeGetAttributes, 8000),
    ROW(cuStreamAttachMemAsync, cuStreamAttachMemAsync, 6000),
    PTDS(cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz, 7000),
    /* implicit copies and allocations (cuda_sim_copy.c) */
    ROW(cuMemcpy, cuMemcpy, 4000),
    PTDS(cuMemcpy, cuMemcpy_ptds, 7000),
    ROW(cuMemcpyAsync, cuMemcpyAsync, 4000),
    PTDS(cuMemcpyAsync, cuMemcpyAsync_ptsz, 7000),
    ROW(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2, 3020),
    PTDS(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2_ptsz, 7000),
    ROW(cuMemcpy2D, cuMemcpy2D_v2, 3020),
    PTDS(cuMemcpy2D, cuMemcpy2D_v2_ptds, 7000),
    ROW(cuMemcpy2DAsync, cuMemcpy2DAsync_v2, 3020),
    PTDS(cuMemcpy2DAsync, cuMemcpy2DAsync_v2_ptsz, 7000),
    ROW(cuMemcpy3D, cuMemcpy3D_v2, 3020),
    PTDS(cuMemcpy3D, cuMemcpy3D_v2_ptds, 7000),
    ROW(cuMemcpy3DAsync, cuMemcpy3DAsync_v2, 3020),
    PTDS(cuMemcpy3DAsync, cuMemcpy3DAsync_v2_ptsz, 7000),
#if PWSIM_MAX_VERSION >= 12080
    ROW(cuMemcpyBatchAsync, cuMemcpyBatchAsync, 12080),
    PTDS(cuMemcpyBatchAsync, cuMemcpyBatchAsync_ptsz, 12080),
    ROW(cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync, 12080),
    PTDS(cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync_ptsz, 12080),
#endif
#if PWSIM_MAX_VERSION >= 13000
    ROW(cuMemcpyBatchAsync, cuMemcpyBatchAsync_v2, 13000),
    PTDS(cuMemcpyBatchAsync, cuMemcpyBatchAsync_v2_ptsz, 13000),
    ROW(cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync_v2, 13000),
    PTDS(cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync_v2_ptsz, 13000),
#endif
    ROW(cuMemAllocPitch, cuMemAllocPitch_v2, 3020),
    /* virtual memory (10.2), pools (11.2), batch prefetch (13.0): cuda_sim_vmm.c */
    ROW(cuMemAddressReserve, cuMemAddressReserve, 10020),
    ROW(cuMemAddressFree, cuMemAddressFree, 10020),
    ROW(cuMemCreate, cuMemCreate, 10020),
    ROW(cuMemRelease, cuMemRelease, 10020),
    ROW(cuMemMap, cuMemMap, 10020),
    ROW(cuMemUnmap, cuMemUnmap, 10020),
    ROW(cuMemSetAccess, cuMemSetAccess, 10020),
    ROW(cuMemExportToShareableHandle, cuMemExportToShareableHandle, 10020),
    ROW(cuMemImportFromShareableHandle, cuMemImportFromShareableHandle, 10020),
    ROW(cuMemGetAllocationGranularity, cuMemGetAllocationGranularity, 10020),
    ROW(cuMemGetAllocationPropertiesFromHandle, cuMemGetAllocationPropertiesFromHandle, 10020),
    ROW(cuMemRetainAllocationHandle, cuMemRetainAllocationHandle, 11000),
    ROW(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, 11020),
    ROW(cuMemAllocAsync, cuMemAllocAsync, 11020),
    PTDS(cuMemAllocAsync, cuMemAllocAsync_ptsz, 11020),
    ROW(cuMemPoolSetAccess, cuMemPoolSetAccess, 11020),
    ROW(cuMemPoolCreate, cuMemPoolCreate, 11020),
    ROW(cuMemPoolDestroy, cuMemPoolDestroy, 11020),
    ROW(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync, 11020),
    PTDS(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz, 11020),
    ROW(cuMemPoolExportToShareableHandle, cuMemPoolExportToShareableHandle, 11020),
    ROW(cuMemPoolImportFromShareableHandle, cuMemPoolImportFromShareableHandle, 11020),
    ROW(cuMemPoolExportPointer, cuMemPoolExportPointer, 11020),
    ROW(cuMemPoolImportPointer, cuMemPoolImportPointer, 11020),
#if PWSIM_MAX_VERSION >= 13000
    ROW(cuDeviceGetP2PAtomicCapabilities, cuDeviceGetP2PAtomicCapabilities, 13000),
    ROW(cuMemPrefetchBatchAsync, cuMemPrefetchBatchAsync, 13000),
    PTDS(cuMemPrefetchBatchAsync, cuMemPrefetchBatchAsync_ptsz, 13000),
    ROW(cuMemDiscardAndPrefetchBatchAsync, cuMemDiscardAndPrefetchBatchAsync, 13000),
    PTDS(cuMemDiscardAndPrefetchBatchAsync, cuMemDiscardAndPrefetchBatchAsync_ptsz, 13000),
#endif
};

#undef ROW
#undef PTDS

/* The best rows for (symbol, version) among those the driver has. */
struct choice {
	int present;        /* the driver has the api at all */
	int has_per_thread; /* ... and a per-thread variant of it */
	const struct proc *base, *per_thread;
};

static void choose(const char *symbol, int version, int driver, struct choice *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(g_procs) / sizeof(g_procs[0]); i++) {
		const struct proc *p = &g_procs[i];
		const struct proc **best = p->per_thread ? &c->per_thread : &c->base;

		if (strcmp(p->api, symbol) || p->version > driver)
			continue;
		c->present = 1;
		c->has_per_thread |= p->per_thread;
		if (p->version <= version && (!*best || (*best)->version < p->version))
			*best = p;
	}
}

static CUresult lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
	struct choice c;
	const struct proc *p;

	if (!symbol || !pfn || flags > CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
		return CUDA_ERROR_INVALID_VALUE;
	choose(symbol, cudaVersion, pwsim_cfg()->driver_version, &c);
	p = flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM && c.has_per_thread ? c.per_thread
	                                                                               : c.base;
	*pfn = p ? p->fn : NULL;
	if (status)
		*status = p           ? CU_GET_PROC_ADDRESS_SUCCESS
		          : c.present ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
		                      : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return p ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* Neither needs cuInit: cudart looks cuInit itself up through them. */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	return lookup(symbol, pfn, cudaVersion, flags, NULL);
}

#if PWSIM_MAX_VERSION >= 12000
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
	return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}
#endif

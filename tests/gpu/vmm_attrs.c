/*
 * Pointer attributes and cuMemGetAddressRange of a VMM mapping, cuMemAlloc and
 * cuMemAllocAsync memory, each call made before the line that prints it
 * (tests/gpu/vmm_probe.md).  Built with: cc -I$CUDA_HOME/include vmm_attrs.c -lcuda
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>
static void q(const char *w, CUdeviceptr p)
{
	int ord = -7, leg = -7;
	CUmemoryPool mp = (CUmemoryPool)0x1;
	CUresult r1 = cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p);
	CUresult r2 = cuPointerGetAttribute(&mp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p);
	CUresult r3 = cuPointerGetAttribute(&leg, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p);
	CUdeviceptr b = 0;
	size_t s = 0;
	CUresult r4 = cuMemGetAddressRange(&b, &s, p + 16);
	printf("%s: ordinal %d->%d, mempool %d->%p, legacy_ipc %d->%d, range %d->%s %zu\n", w, r1, ord, r2, (void *)mp,
	       r3, leg, r4, b == p ? "base" : "other", s);
}
int main(void)
{
	CUdevice d;
	CUcontext c[2];
	cuInit(0);
	for (int i = 0; i < 2; i++) {
		cuDeviceGet(&d, i);
		cuDevicePrimaryCtxRetain(&c[i], d);
	}
	cuCtxSetCurrent(c[0]);
	CUmemAllocationProp p;
	memset(&p, 0, sizeof p);
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 1;
	size_t g = 0;
	cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	printf("granularity %zu\n", g);
	CUmemGenericAllocationHandle h;
	CUdeviceptr va, m, a;
	cuMemCreate(&h, g, &p, 0);
	cuMemAddressReserve(&va, g, 0, 0, 0);
	cuMemMap(va, g, 0, h, 0);
	CUmemAccessDesc ad = {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	cuMemSetAccess(va, g, &ad, 1);
	q("VMM on device 1, mapped, access dev 1", va);
	cuMemAlloc(&m, 4096);
	q("cuMemAlloc on device 0", m);
	cuMemAllocAsync(&a, 4096, 0);
	cuCtxSynchronize();
	CUmemoryPool dp;
	cuDeviceGetDefaultMemPool(&dp, 0);
	printf("default pool of device 0: %p\n", (void *)dp);
	q("cuMemAllocAsync on device 0", a);
	return 0;
}

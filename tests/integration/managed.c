/*
 * The managed-memory cases, each the way a program gets it wrong and the
 * nearest way to get it right, through the CUDA driver API ("drv.") and the
 * runtime API ("rt."):
 *
 *   managed list          one case a line: NAME RULE H100 FLAGS MESSAGE
 *                         RULE: the one finding the wrong form gets;
 *                         H100: what the driver answered the wrong form on
 *                         an H100 (driver 580.159.04, attribute pageable
 *                         memory access 0), "-" where not measured;
 *                         FLAGS: "pageable" if the answer depends on the
 *                         device's pageable memory access, else "-";
 *                         MESSAGE: a fragment the finding must hold ("-": any)
 *   managed NAME bad|good run the wrong (bad) or the right (good) form; prints
 *                         "ret N": what the call in question returned
 *
 * The same source runs on the simulated runtimes (tests/integration/managed.sh)
 * and, built against the real libcuda and libcudart (tests/gpu/gpu.mk), on
 * GPUs (tests/gpu/managed_gpu.sh), where the answers and findings of each
 * case are compared with the simulator's.  Nothing else a case does breaks a
 * contract, so each run leaves exactly its finding (bad) or none (good).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/cuda.h"
#include "cudart_sim_api.h"

CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetCount(int *);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemAllocAsync(CUdeviceptr *, size_t, CUstream);
CUresult cuMemFreeAsync(CUdeviceptr, CUstream);
CUresult cuDeviceCanAccessPeer(int *, CUdevice, CUdevice);
CUresult cuCtxEnablePeerAccess(CUcontext, unsigned);
CUresult cuMemAllocManaged(CUdeviceptr *, size_t, unsigned);
CUresult cuMemAdvise_v2(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream);
CUresult cuMemRangeGetAttribute(void *, size_t, CUmem_range_attribute, CUdeviceptr, size_t);
CUresult cuMemRangeGetAttributes(void **, size_t *, CUmem_range_attribute *, size_t, CUdeviceptr, size_t);
CUresult cuStreamAttachMemAsync(CUstream, CUdeviceptr, size_t, unsigned);
CUresult cuStreamAttachMemAsync_ptsz(CUstream, CUdeviceptr, size_t, unsigned);

#define MIB ((size_t)1 << 20)
#define N (2 * MIB) /* the allocations of the measured cases */
static CUcontext ctx[2];
static CUstream stream;

static void need(int rc, const char *what)
{
	if (rc != 0) {
		fprintf(stderr, "managed: %s failed (%d)\n", what, rc);
		exit(2);
	}
}

static void init(void)
{
	int n = 0;
	need(cuInit(0), "cuInit");
	need(cuDeviceGetCount(&n), "cuDeviceGetCount");
	if (n < 2) {
		fprintf(stderr, "managed: needs 2 devices, has %d\n", n);
		exit(2);
	}
	for (int d = 0; d < 2; d++) {
		CUdevice dev;
		need(cuDeviceGet(&dev, d), "cuDeviceGet");
		need(cuDevicePrimaryCtxRetain(&ctx[d], dev), "cuDevicePrimaryCtxRetain");
	}
	need(cuCtxSetCurrent(ctx[0]), "cuCtxSetCurrent");
	need(cuStreamCreate(&stream, 0), "cuStreamCreate");
}

static CUdeviceptr managed(size_t n)
{
	CUdeviceptr m = 0;
	need(cuMemAllocManaged(&m, n, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
	return m;
}

static CUdeviceptr device_mem(size_t n)
{
	CUdeviceptr p = 0;
	need(cuMemAlloc_v2(&p, n), "cuMemAlloc");
	return p;
}

static CUdeviceptr pool_mem(size_t n)
{
	CUdeviceptr p = 0;
	need(cuMemAllocAsync(&p, n, stream), "cuMemAllocAsync");
	need(cuStreamSynchronize(stream), "cuStreamSynchronize");
	return p;
}

/* Managed memory, freed again. */
static CUdeviceptr freed_managed(size_t n)
{
	CUdeviceptr m = managed(n);
	need(cuMemFree_v2(m), "cuMemFree");
	return m;
}

/* System memory: malloc'd, page aligned, touched. */
static CUdeviceptr system_mem(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, n))
		exit(2);
	memset(p, 1, n);
	return (uintptr_t)p;
}

static CUmemLocation loc(int type, int id)
{
	CUmemLocation l = {type, id};
	return l;
}
static struct cudaMemLocation rtloc(int type, int id)
{
	struct cudaMemLocation l = {type, id};
	return l;
}

#define DEV CU_MEM_LOCATION_TYPE_DEVICE
#define HOST CU_MEM_LOCATION_TYPE_HOST
#define NUMA CU_MEM_LOCATION_TYPE_HOST_NUMA
#define NUMA_CUR CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT
#define PREFER CU_MEM_ADVISE_SET_PREFERRED_LOCATION
#define ACCESSED CU_MEM_ADVISE_SET_ACCESSED_BY
/* A NUMA node no host has online (NUMA ids are small). */
#define NO_NODE 999

/* ---- the driver API ---- */

/* cudaCpuDeviceId ported into a location: {DEVICE, -1} is no device. */
static int drv_advise_device_minus_1(int bad)
{
	return cuMemAdvise_v2(managed(N), N, PREFER, bad ? loc(DEV, -1) : loc(HOST, 0));
}
static int drv_advise_invalid_type(int bad)
{
	return cuMemAdvise_v2(managed(N), N, PREFER,
	                      bad ? loc(CU_MEM_LOCATION_TYPE_INVALID, 0) : loc(DEV, 0));
}
static int drv_advise_undefined_type(int bad)
{
	return cuMemAdvise_v2(managed(N), N, PREFER, bad ? loc(9, 0) : loc(DEV, 1));
}
static int drv_advise_accessed_by_numa(int bad)
{
	return cuMemAdvise_v2(managed(N), N, ACCESSED, bad ? loc(NUMA, 0) : loc(HOST, 0));
}
static int drv_advise_accessed_by_numa_current(int bad)
{
	return cuMemAdvise_v2(managed(N), N, ACCESSED, bad ? loc(NUMA_CUR, 0) : loc(DEV, 1));
}
static int drv_advise_numa_node(int bad)
{
	return cuMemAdvise_v2(managed(N), N, PREFER, loc(NUMA, bad ? NO_NODE : 0));
}
static int drv_prefetch_device_minus_1(int bad)
{
	return cuMemPrefetchAsync_v2(managed(N), N, bad ? loc(DEV, -1) : loc(HOST, 0), 0, stream);
}
static int drv_prefetch_invalid_type(int bad)
{
	return cuMemPrefetchAsync_v2(managed(N), N, loc(bad ? CU_MEM_LOCATION_TYPE_INVALID : DEV, 0), 0,
	                             stream);
}
static int drv_prefetch_undefined_type(int bad)
{
	return cuMemPrefetchAsync_v2(managed(N), N, bad ? loc(9, 0) : loc(NUMA_CUR, 0), 0, stream);
}
static int drv_prefetch_numa_node(int bad)
{
	return cuMemPrefetchAsync_v2(managed(N), N, loc(NUMA, bad ? NO_NODE : 0), 0, stream);
}
static int drv_prefetch_flags(int bad)
{
	return cuMemPrefetchAsync_v2(managed(N), N, loc(DEV, 1), bad ? 1 : 0, stream);
}

/* Two managed allocations one after the other (contiguous on the H100),
 * advised or prefetched as one range. */
static int two(int bad, int prefetch)
{
	CUdeviceptr a = managed(N), b = managed(N);
	fprintf(stderr, "managed: second allocation %s the first\n",
	        b == a + N ? "right after" : "not right after");
	CUdeviceptr first = b == a + N ? a : b; /* the lower one, where they are contiguous */
	size_t n = bad ? 2 * N : N;
	return prefetch ? cuMemPrefetchAsync_v2(first, n, loc(DEV, 1), 0, stream)
	                : cuMemAdvise_v2(first, n, PREFER, loc(DEV, 1));
}
static int drv_advise_two_allocations(int bad)
{
	return two(bad, 0);
}
static int drv_prefetch_two_allocations(int bad)
{
	return two(bad, 1);
}

static int drv_advise_freed(int bad)
{
	return cuMemAdvise_v2(bad ? freed_managed(N) : managed(N), N, PREFER, loc(DEV, 0));
}
static int drv_advise_pageable(int bad)
{
	return cuMemAdvise_v2(bad ? system_mem(N) : managed(N), N, PREFER, loc(DEV, 0));
}
static int drv_prefetch_pageable(int bad)
{
	return cuMemPrefetchAsync_v2(bad ? system_mem(N) : managed(N), N, loc(DEV, 0), 0, stream);
}

static int range(CUdeviceptr p, size_t count, int attr, size_t size)
{
	int v[4] = {0};
	return cuMemRangeGetAttribute(v, size, attr, p, count);
}
static int drv_range_attr_device(int bad)
{
	return range(bad ? device_mem(N) : managed(N), N, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4);
}
static int drv_range_attr_pool(int bad)
{
	return range(bad ? pool_mem(N) : managed(N), N, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4);
}
static int drv_range_attr_freed(int bad)
{
	return range(bad ? freed_managed(N) : managed(N), N, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4);
}
static int drv_range_attr_past_end(int bad)
{
	return range(managed(N), bad ? N + 4096 : N, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4);
}
static int drv_range_attr_count_0(int bad)
{
	return range(managed(N), bad ? 0 : 4096, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4);
}
static int drv_range_attr_undefined(int bad)
{
	return range(managed(N), N, bad ? 9 : CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, 4);
}
static int drv_range_attrs_null(int bad)
{
	int v = 0;
	void *data[1] = {&v};
	size_t sizes[1] = {4};
	CUmem_range_attribute attrs[1] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY};
	return cuMemRangeGetAttributes(bad ? NULL : data, sizes, attrs, 1, managed(N), N);
}

static int drv_attach_device(int bad)
{
	return cuStreamAttachMemAsync(stream, bad ? device_mem(N) : managed(N), 0, CU_MEM_ATTACH_SINGLE);
}
static int drv_attach_pool(int bad)
{
	return cuStreamAttachMemAsync(stream, bad ? pool_mem(N) : managed(N), 0, CU_MEM_ATTACH_SINGLE);
}
static int drv_attach_freed(int bad)
{
	return cuStreamAttachMemAsync(stream, bad ? freed_managed(N) : managed(N), 0, CU_MEM_ATTACH_SINGLE);
}
static int drv_attach_pageable(int bad)
{
	return cuStreamAttachMemAsync(stream, bad ? system_mem(N) : managed(N), bad ? N : 0,
	                              CU_MEM_ATTACH_SINGLE);
}
/* A program built with --default-stream per-thread calls the _ptsz ABI,
 * whose NULL is the per-thread stream: attaching singly to it is right. */
static int drv_attach_single_null(int bad)
{
	CUdeviceptr m = managed(N);
	return bad ? cuStreamAttachMemAsync(NULL, m, 0, CU_MEM_ATTACH_SINGLE)
	           : cuStreamAttachMemAsync_ptsz(NULL, m, 0, CU_MEM_ATTACH_SINGLE);
}

/* An enable that fails on its flags is not "enabled twice". */
static int drv_enable_flags_after_enable(int bad)
{
	int can = 0;
	need(cuDeviceCanAccessPeer(&can, 0, 1), "cuDeviceCanAccessPeer");
	need(cuCtxEnablePeerAccess(ctx[1], 0), "cuCtxEnablePeerAccess");
	return bad ? cuCtxEnablePeerAccess(ctx[1], 1) : 0;
}

/* ---- the runtime API ---- */

static void *rt_managed(size_t n)
{
	void *m = NULL;
	need(cudaMallocManaged(&m, n, cudaMemAttachGlobal), "cudaMallocManaged");
	return m;
}
static void *rt_device(size_t n)
{
	void *p = NULL;
	need(cudaMalloc(&p, n), "cudaMalloc");
	return p;
}
static void *rt_freed_managed(size_t n)
{
	void *m = rt_managed(n);
	need(cudaFree(m), "cudaFree");
	return m;
}
static void *rt_system(size_t n)
{
	return (void *)(uintptr_t)system_mem(n);
}

static int rt_attach_legacy_null(int bad)
{
	return cudaStreamAttachMemAsync(bad ? NULL : cudaStreamPerThread, rt_managed(N), 0,
	                                cudaMemAttachSingle);
}
static int rt_attach_ptsz_null(int bad)
{
	void *m = rt_managed(N);
	return bad ? cudaStreamAttachMemAsync(NULL, m, 0, cudaMemAttachSingle)
	           : cudaStreamAttachMemAsync_ptsz(NULL, m, 0, cudaMemAttachSingle);
}
static int rt_attach_device(int bad)
{
	return cudaStreamAttachMemAsync((cudaStream_t)stream, bad ? rt_device(N) : rt_managed(N), 0,
	                                cudaMemAttachSingle);
}
static int rt_attach_pageable(int bad)
{
	return cudaStreamAttachMemAsync((cudaStream_t)stream, bad ? rt_system(N) : rt_managed(N), bad ? N : 0,
	                                cudaMemAttachSingle);
}
static int rt_advise_pageable(int bad)
{
	return cudaMemAdvise(bad ? rt_system(N) : rt_managed(N), N, cudaMemAdviseSetPreferredLocation,
	                     rtloc(cudaMemLocationTypeDevice, 0));
}
static int rt_prefetch_pageable(int bad)
{
	return cudaMemPrefetchAsync(bad ? rt_system(N) : rt_managed(N), N,
	                            rtloc(cudaMemLocationTypeDevice, 0), 0, (cudaStream_t)stream);
}
static int rt_advise_freed(int bad)
{
	return cudaMemAdvise(bad ? rt_freed_managed(N) : rt_managed(N), N, cudaMemAdviseSetPreferredLocation,
	                     rtloc(cudaMemLocationTypeDevice, 0));
}
static int rt_two(int bad, int prefetch)
{
	char *a = rt_managed(N), *b = rt_managed(N);
	char *first = b == a + N ? a : b;
	size_t n = bad ? 2 * N : N;
	return prefetch ? cudaMemPrefetchAsync(first, n, rtloc(cudaMemLocationTypeDevice, 1), 0,
	                                       (cudaStream_t)stream)
	                : cudaMemAdvise(first, n, cudaMemAdviseSetPreferredLocation,
	                                rtloc(cudaMemLocationTypeDevice, 1));
}
static int rt_advise_two_allocations(int bad)
{
	return rt_two(bad, 0);
}
static int rt_prefetch_two_allocations(int bad)
{
	return rt_two(bad, 1);
}
static int rt_range_attr_undefined(int bad)
{
	int v = 0;
	return cudaMemRangeGetAttribute(&v, 4, bad ? 9 : cudaMemRangeAttributeReadMostly, rt_managed(N), N);
}
static int rt_range_attr_count_0(int bad)
{
	int v = 0;
	return cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly, rt_managed(N), bad ? 0 : N);
}
static int rt_prefetch_device_minus_1(int bad)
{
	return cudaMemPrefetchAsync(
	    rt_managed(N), N, rtloc(bad ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost, bad ? -1 : 0),
	    0, (cudaStream_t)stream);
}
static int rt_advise_device_minus_1(int bad)
{
	return cudaMemAdvise(rt_managed(N), N, cudaMemAdviseSetPreferredLocation,
	                     rtloc(bad ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost, bad ? -1 : 0));
}

/* ---- the table ---- */

static const struct {
	const char *name, *rule, *h100, *flags, *message;
	int (*run)(int bad);
} cases[] = {
    {"drv.advise-device-minus-1", "managed.advise.invalid", "1", "-", "{device, -1}",
     drv_advise_device_minus_1},
    {"drv.advise-invalid-type", "managed.advise.location", "1", "-", "type invalid", drv_advise_invalid_type},
    {"drv.advise-undefined-type", "managed.advise.location", "-", "-", "location type 9",
     drv_advise_undefined_type},
    {"drv.advise-accessed-by-numa", "managed.advise.location", "1", "-", "{host_numa, 0}",
     drv_advise_accessed_by_numa},
    {"drv.advise-accessed-by-numa-current", "managed.advise.location", "-", "-", "no other location type",
     drv_advise_accessed_by_numa_current},
    {"drv.advise-numa-node", "managed.advise.location", "-", "-", "no NUMA node 999", drv_advise_numa_node},
    {"drv.prefetch-device-minus-1", "managed.prefetch.invalid-device", "101", "-", "{device, -1}",
     drv_prefetch_device_minus_1},
    {"drv.prefetch-invalid-type", "managed.prefetch.location", "1", "-", "type invalid",
     drv_prefetch_invalid_type},
    {"drv.prefetch-undefined-type", "managed.prefetch.location", "-", "-", "location type 9",
     drv_prefetch_undefined_type},
    {"drv.prefetch-numa-node", "managed.prefetch.location", "-", "-", "no NUMA node 999",
     drv_prefetch_numa_node},
    {"drv.prefetch-flags", "managed.prefetch.flags", "1", "-", "flags 0x1", drv_prefetch_flags},
    {"drv.advise-two-allocations", "managed.advise.out-of-range", "1", "-", "must lie in one allocation",
     drv_advise_two_allocations},
    {"drv.prefetch-two-allocations", "managed.prefetch.out-of-range", "1", "-", "must lie in one allocation",
     drv_prefetch_two_allocations},
    {"drv.advise-freed", "managed.advise.not-managed", "-", "-", "freed", drv_advise_freed},
    {"drv.advise-pageable", "managed.advise.not-managed", "-", "pageable", "PAGEABLE_MEMORY_ACCESS is 0",
     drv_advise_pageable},
    {"drv.prefetch-pageable", "managed.prefetch.not-managed", "-", "pageable", "PAGEABLE_MEMORY_ACCESS is 0",
     drv_prefetch_pageable},
    {"drv.range-attr-device", "managed.range-attr.not-managed", "-", "-", "device memory",
     drv_range_attr_device},
    {"drv.range-attr-pool", "managed.range-attr.not-managed", "-", "-", "pool memory", drv_range_attr_pool},
    {"drv.range-attr-freed", "managed.range-attr.not-managed", "-", "-", "freed", drv_range_attr_freed},
    {"drv.range-attr-past-end", "managed.range-attr.out-of-range", "-", "-", "past its end",
     drv_range_attr_past_end},
    {"drv.range-attr-count-0", "managed.range-attr.out-of-range", "-", "-", "empty", drv_range_attr_count_0},
    {"drv.range-attr-undefined", "managed.range-attr.invalid", "-", "-", "attribute 9",
     drv_range_attr_undefined},
    {"drv.range-attrs-null", "managed.range-attr.invalid", "-", "-", "NULL", drv_range_attrs_null},
    {"drv.attach-device", "managed.attach.not-managed", "-", "-", "device memory", drv_attach_device},
    {"drv.attach-pool", "managed.attach.not-managed", "-", "-", "pool memory", drv_attach_pool},
    {"drv.attach-freed", "managed.attach.not-managed", "-", "-", "freed", drv_attach_freed},
    {"drv.attach-pageable", "managed.attach.not-managed", "-", "pageable", "PAGEABLE_MEMORY_ACCESS is 0",
     drv_attach_pageable},
    {"drv.attach-single-null", "managed.attach.flags", "-", "-", "legacy NULL stream",
     drv_attach_single_null},
    {"drv.enable-flags-after-enable", "peer.enable.flags", "-", "-", "flags 0x1",
     drv_enable_flags_after_enable},
    {"rt.attach-legacy-null", "managed.attach.flags", "1", "-", "legacy NULL stream", rt_attach_legacy_null},
    {"rt.attach-ptsz-null", "managed.attach.flags", "1", "-", "legacy NULL stream", rt_attach_ptsz_null},
    {"rt.attach-device", "managed.attach.not-managed", "1", "-", "device memory", rt_attach_device},
    {"rt.attach-pageable", "managed.attach.not-managed", "1", "pageable", "PAGEABLE_MEMORY_ACCESS is 0",
     rt_attach_pageable},
    {"rt.advise-pageable", "managed.advise.not-managed", "1", "pageable", "PAGEABLE_MEMORY_ACCESS is 0",
     rt_advise_pageable},
    {"rt.prefetch-pageable", "managed.prefetch.not-managed", "1", "pageable", "PAGEABLE_MEMORY_ACCESS is 0",
     rt_prefetch_pageable},
    {"rt.advise-freed", "managed.advise.not-managed", "1", "-", "freed", rt_advise_freed},
    {"rt.advise-two-allocations", "managed.advise.out-of-range", "1", "-", "must lie in one allocation",
     rt_advise_two_allocations},
    {"rt.prefetch-two-allocations", "managed.prefetch.out-of-range", "1", "-", "must lie in one allocation",
     rt_prefetch_two_allocations},
    {"rt.range-attr-undefined", "managed.range-attr.invalid", "1", "-", "attribute 9",
     rt_range_attr_undefined},
    {"rt.range-attr-count-0", "managed.range-attr.out-of-range", "1", "-", "empty", rt_range_attr_count_0},
    {"rt.prefetch-device-minus-1", "managed.prefetch.invalid-device", "-", "-", "{device, -1}",
     rt_prefetch_device_minus_1},
    {"rt.advise-device-minus-1", "managed.advise.invalid", "-", "-", "{device, -1}",
     rt_advise_device_minus_1},
};

int main(int argc, char **argv)
{
	size_t n = sizeof cases / sizeof cases[0];
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < n; i++)
			printf("%s %s %s %s %s\n", cases[i].name, cases[i].rule, cases[i].h100,
			       cases[i].flags, cases[i].message);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "bad") && strcmp(argv[2], "good"))) {
		fprintf(stderr, "usage: managed list | managed CASE bad|good\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[1], cases[i].name))
			continue;
		init();
		int rc = cases[i].run(!strcmp(argv[2], "bad"));
		printf("ret %d\n", rc);
		(void)cudaGetLastError(); /* a failing runtime call leaves its error pending: clear it */
		return 0;
	}
	fprintf(stderr, "managed: no case %s\n", argv[1]);
	return 2;
}

/*
 * Implicit cross-device copies on the simulated driver (linked against it, so
 * the wrappers peerwatch exports are what the calls reach):
 *
 *   implicit copies     every implicit copy API once across devices (recorded),
 *                       and the same APIs within one device or with host
 *                       memory (not recorded); peer access on both ways
 *   implicit nopeer     one cross-device cuMemcpy with peer access off
 *   implicit peer       the same with peer access on both ways
 *   implicit oob        a cross-device cuMemcpyDtoD running past its source
 *
 * Every copy's bytes are checked, so the layer cannot change the result.
 * Output on stdout: "recorded N" and "unrecorded M", the calls of each kind
 * the program made (tests/integration/implicit.sh compares them with the trace).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/cuda.h"

CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuDeviceCanAccessPeer(int *, CUdevice, CUdevice);
CUresult cuCtxEnablePeerAccess(CUcontext, unsigned);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemAllocPitch_v2(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
CUresult cuMemAllocAsync(CUdeviceptr *, size_t, CUstream);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemFreeAsync(CUdeviceptr, CUstream);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpy_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpyAsync(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyDtoD_v2(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *, CUstream);
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *);
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *, CUstream);
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *, size_t *,
                               size_t, CUstream);
CUresult cuMemcpyBatchAsync(CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *, size_t *,
                            size_t, size_t *, CUstream);
CUresult cuMemcpy3DBatchAsync_v2(size_t, CUDA_MEMCPY3D_BATCH_OP *, unsigned long long, CUstream);

#define CHECK(call)                                                                          \
	do {                                                                                 \
		CUresult r_ = (call);                                                        \
		if (r_ != CUDA_SUCCESS) {                                                    \
			fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, r_); \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

static CUcontext ctx[2];
static int recorded, unrecorded;
#define REC(call)            \
	do {                 \
		CHECK(call); \
		recorded++;  \
	} while (0)
#define UNREC(call)           \
	do {                  \
		CHECK(call);  \
		unrecorded++; \
	} while (0)

static CUdeviceptr alloc_on(int d, size_t n)
{
	CUdeviceptr p;
	CHECK(cuCtxSetCurrent(ctx[d]));
	CHECK(cuMemAlloc_v2(&p, n));
	CHECK(cuCtxSetCurrent(ctx[0]));
	return p;
}

static void fill(CUdeviceptr p, size_t n, unsigned seed)
{
	unsigned char *b = malloc(n);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seed + i * 13);
	CHECK(cuMemcpyHtoD_v2(p, b, n));
	free(b);
}

/* The n bytes at dst are those at src. */
static void same(CUdeviceptr dst, CUdeviceptr src, size_t n, int line)
{
	unsigned char *a = malloc(n), *b = malloc(n);
	CHECK(cuMemcpyDtoH_v2(a, dst, n));
	CHECK(cuMemcpyDtoH_v2(b, src, n));
	if (memcmp(a, b, n)) {
		fprintf(stderr, "implicit.c:%d: the copy did not arrive\n", line);
		exit(1);
	}
	free(a);
	free(b);
}

static void enable(int from, int to)
{
	int can;
	CHECK(cuCtxSetCurrent(ctx[from]));
	CHECK(cuDeviceCanAccessPeer(&can, from, to));
	CHECK(cuCtxEnablePeerAccess(ctx[to], 0));
	CHECK(cuCtxSetCurrent(ctx[0]));
}

static void copies(void)
{
	enable(0, 1);
	enable(1, 0);
	CUdeviceptr a0 = alloc_on(0, 65536), a0b = alloc_on(0, 65536), b1 = alloc_on(1, 65536), p1, q1;
	size_t pitch;
	unsigned char host[4096];
	CUstream s = CU_STREAM_PER_THREAD;
	fill(a0, 65536, 1);

	/* allocations of the other kinds feed the range cache too */
	CHECK(cuCtxSetCurrent(ctx[1]));
	CHECK(cuMemAllocPitch_v2(&p1, &pitch, 256, 8, 4));
	CHECK(cuMemAllocAsync(&q1, 8192, NULL));
	CHECK(cuCtxSetCurrent(ctx[0]));

	/* across devices: recorded */
	REC(cuMemcpy(b1, a0, 4096));
	same(b1, a0, 4096, __LINE__);
	REC(cuMemcpy_ptds(b1 + 4096, a0 + 4096, 1000));
	REC(cuMemcpyAsync(b1, a0 + 8192, 1024, NULL));
	same(b1, a0 + 8192, 1024, __LINE__);
	REC(cuMemcpyAsync_ptsz(q1, a0, 8192, s));
	same(q1, a0, 8192, __LINE__);
	REC(cuMemcpyDtoD_v2(a0b, b1, 512));
	REC(cuMemcpyDtoDAsync_v2_ptsz(p1, a0, 256, s));

	CUDA_MEMCPY2D c2 = {0};
	c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c2.srcDevice = a0;
	c2.srcPitch = 256;
	c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c2.dstDevice = p1;
	c2.dstPitch = pitch;
	c2.WidthInBytes = 64;
	c2.Height = 8;
	REC(cuMemcpy2D_v2(&c2));
	same(p1 + 7 * pitch, a0 + 7 * 256, 64, __LINE__);
	REC(cuMemcpy2DAsync_v2(&c2, NULL));

	CUDA_MEMCPY3D c3 = {0};
	c3.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
	c3.srcDevice = a0;
	c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c3.dstDevice = b1;
	c3.WidthInBytes = 32;
	c3.Height = 4;
	c3.Depth = 2;
	REC(cuMemcpy3D_v2(&c3));
	same(b1, a0, 256, __LINE__);
	REC(cuMemcpy3DAsync_v2_ptsz(&c3, s));

	/* a batch: within device 0, then 0 -> 1, then host -> device 1 */
	CUdeviceptr dsts[3] = {a0b, b1 + 1024, b1 + 2048},
	            srcs[3] = {a0, a0 + 100, (CUdeviceptr)(uintptr_t)host};
	size_t sizes[3] = {100, 200, 300}, idx[1] = {0}, fail;
	CUmemcpyAttributes attr = {0};
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	memset(host, 7, sizeof host);
	REC(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, &attr, idx, 1, s));
	same(b1 + 1024, a0 + 100, 200, __LINE__);
	REC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, idx, 1, &fail, s));

	CUDA_MEMCPY3D_BATCH_OP op = {0};
	op.src.type = op.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
	op.src.op.ptr.ptr = b1;
	op.dst.op.ptr.ptr = a0b;
	op.extent = (CUextent3D){128, 2, 1};
	op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	REC(cuMemcpy3DBatchAsync_v2(1, &op, 0, s));
	same(a0b, b1, 256, __LINE__);

	/* within one device, or with host memory: not recorded */
	UNREC(cuMemcpy(a0b, a0, 4096));
	UNREC(cuMemcpy(p1, q1, 256));
	UNREC(cuMemcpy((CUdeviceptr)(uintptr_t)host, a0, 4096));
	UNREC(cuMemcpy(b1, (CUdeviceptr)(uintptr_t)host, 4096));
	UNREC(cuMemcpy_ptds((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)(host + 2048), 64));
	UNREC(cuMemcpyAsync(a0b, a0, 1024, NULL));
	UNREC(cuMemcpyDtoD_v2(a0b, a0, 512));
	UNREC(cuMemcpyDtoDAsync_v2_ptsz(q1, p1, 256, s));
	c2.dstDevice = a0b;
	c2.dstPitch = 256;
	UNREC(cuMemcpy2D_v2(&c2));
	c2.dstMemoryType = CU_MEMORYTYPE_HOST;
	c2.dstHost = host;
	c2.dstPitch = 64;
	UNREC(cuMemcpy2D_v2(&c2));
	c3.dstMemoryType = CU_MEMORYTYPE_HOST;
	c3.dstHost = host;
	UNREC(cuMemcpy3D_v2(&c3));
	c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c3.dstDevice = a0b;
	UNREC(cuMemcpy3D_v2(&c3));
	dsts[1] = a0b + 1024;
	UNREC(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, &attr, idx, 1, s));
	op.src.op.ptr.ptr = a0;
	UNREC(cuMemcpy3DBatchAsync_v2(1, &op, 0, s));
	same(a0b, a0, 128, __LINE__);

	CHECK(cuMemFreeAsync(q1, NULL));
	CHECK(cuMemFree_v2(p1));
	CHECK(cuMemFree_v2(a0));
	CHECK(cuMemFree_v2(a0b));
	CHECK(cuMemFree_v2(b1));
}

/* One cross-device copy, with peer access on or off. */
static void one_copy(int peer, int oob)
{
	if (peer) {
		enable(0, 1);
		enable(1, 0);
	}
	CUdeviceptr a0 = alloc_on(0, 4096), b1 = alloc_on(1, 8192);
	fill(a0, 4096, 3);
	if (oob) {
		/* past the source's end: the driver refuses it */
		CUresult r = cuMemcpyDtoD_v2(b1, a0 + 2048, 4096);
		if (r != CUDA_ERROR_INVALID_VALUE) {
			fprintf(stderr, "implicit: the out-of-bounds copy returned %d\n", r);
			exit(1);
		}
		recorded++;
	} else {
		REC(cuMemcpy(b1, a0, 4096));
		same(b1, a0, 4096, __LINE__);
	}
	CHECK(cuMemFree_v2(a0));
	CHECK(cuMemFree_v2(b1));
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: implicit copies|nopeer|peer|oob\n");
		return 2;
	}
	CHECK(cuInit(0));
	for (int d = 0; d < 2; d++) {
		CUdevice dev;
		CHECK(cuDeviceGet(&dev, d));
		CHECK(cuDevicePrimaryCtxRetain(&ctx[d], dev));
	}
	CHECK(cuCtxSetCurrent(ctx[0]));
	if (!strcmp(argv[1], "copies"))
		copies();
	else if (!strcmp(argv[1], "nopeer"))
		one_copy(0, 0);
	else if (!strcmp(argv[1], "peer"))
		one_copy(1, 0);
	else if (!strcmp(argv[1], "oob"))
		one_copy(1, 1);
	else
		return 2;
	printf("recorded %d\nunrecorded %d\n", recorded, unrecorded);
	return 0;
}

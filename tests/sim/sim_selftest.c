/*
 * Self-test of the simulated CUDA driver (libcuda.so.1 in $(BUILD)/sim).
 *
 * Checks each row of docs/facts-cuda.md's "Every contract case" in its
 * driver-API form, the cuGetProcAddress cases of its "How every runtime
 * reaches the driver", and the simulator's own behaviour (environment,
 * per-range advice, threads).  Cases that need a
 * fresh process re-execute this program (/proc/self/exe) in a child mode:
 *
 *   --ipc-child MEMHEX EVHEX FD   open the parent's IPC handles
 *   --vmm-child VMMFD POOLFD PTRHEX FD  import the parent's VMM allocation and pool pointer
 *   --ipc-stale MEMHEX FD         open a handle whose allocation was freed
 *   --env-child CASE FD           PWSIM_* environment cases
 *   --legacy-child FD             run against the legacy (11.8) build
 *   --preload-child FD            run with sim_shim.so preloaded
 *   --list-exports [--legacy]     print the cu* names the build must export
 *
 * A child writes "PASSED FAILED" to FD; the parent adds them to its own
 * counts and prints the final line "sim_selftest: N passed, M failed".
 * The post-11.8 functions are only reached through dlsym or cuGetProcAddress,
 * so the same binary runs against the legacy build (LD_LIBRARY_PATH).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_sim_api.h"

extern char **environ;

static int g_pass, g_fail;

static void check(int ok, int line, const char *what)
{
	if (ok) {
		g_pass++;
		return;
	}
	g_fail++;
	fprintf(stderr, "sim_selftest: FAIL (line %d): %s\n", line, what);
}

#define CHECK(cond) check(!!(cond), __LINE__, #cond)
#define EXPECT(call, want)                                          \
	do {                                                        \
		CUresult rc_ = (call);                              \
		check(rc_ == (want), __LINE__, #call " == " #want); \
		if (rc_ != (want))                                  \
			fprintf(stderr, "    returned %d\n", rc_);  \
	} while (0)
#define OK(call) EXPECT(call, CUDA_SUCCESS)

static CUcontext g_ctx[2];

/* ---- helpers ---- */

static CUdeviceptr alloc_on(int dev, size_t n)
{
	CUdeviceptr p = 0;

	OK(cuCtxPushCurrent_v2(g_ctx[dev]));
	OK(cuMemAlloc_v2(&p, n));
	OK(cuCtxPopCurrent_v2(NULL));
	return p;
}

static CUdeviceptr alloc_managed(size_t n)
{
	CUdeviceptr p = 0;

	OK(cuMemAllocManaged(&p, n, CU_MEM_ATTACH_GLOBAL));
	return p;
}

static void fill(CUdeviceptr p, size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n);

	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(seed + i * 7);
	OK(cuMemcpyHtoD_v2(p, buf, n));
	free(buf);
}

static int holds(CUdeviceptr p, size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n);
	int ok = cuMemcpyDtoH_v2(buf, p, n) == CUDA_SUCCESS;

	for (size_t i = 0; ok && i < n; i++)
		ok = buf[i] == (unsigned char)(seed + i * 7);
	free(buf);
	return ok;
}

static void *sym(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

static void to_hex(const void *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static int from_hex(const char *s, void *p, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		((unsigned char *)p)[i] = (unsigned char)v;
	}
	return 0;
}

/* ---- children ---- */

struct child {
	const char *argv[8];
	const char *env[8]; /* extra NAME=VALUE; PWSIM_* and LD_LIBRARY_PATH are dropped first */
	char err[4096];     /* the child's stderr, when capture is set */
	int capture;
};

static char **child_env(const struct child *c)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 9, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "PWSIM_", 6) && strncmp(environ[i], "LD_LIBRARY_PATH=", 16))
			env[k++] = environ[i];
	for (size_t i = 0; i < 8 && c->env[i]; i++)
		env[k++] = (char *)c->env[i];
	return env;
}

static void read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < len && (r = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = 0;
	while (read(fd, &(char){0}, 1) > 0)
		;
}

/* Runs the child to completion and adds its counts; the child's exit status
 * must be 0 and it must have reported. */
static void run_child(struct child *c, int line)
{
	int res[2], err[2] = {-1, -1}, status = 0, got = 0, passed = 0, failed = 0;
	char fdarg[16], buf[64], **env = child_env(c);
	pid_t pid;
	size_t i;

	if (pipe(res) || (c->capture && pipe(err)))
		abort();
	snprintf(fdarg, sizeof(fdarg), "%d", res[1]);
	for (i = 0; c->argv[i]; i++)
		;
	c->argv[i] = fdarg;
	pid = fork();
	if (pid == 0) {
		close(res[0]);
		if (c->capture)
			dup2(err[1], 2);
		execve("/proc/self/exe", (char *const *)c->argv, env);
		_exit(127);
	}
	close(res[1]);
	if (c->capture) {
		close(err[1]);
		read_all(err[0], c->err, sizeof(c->err));
		close(err[0]);
	}
	read_all(res[0], buf, sizeof(buf));
	close(res[0]);
	waitpid(pid, &status, 0);
	got = sscanf(buf, "%d %d", &passed, &failed) == 2;
	g_pass += passed;
	g_fail += failed;
	check(got && WIFEXITED(status) && WEXITSTATUS(status) == 0, line, c->argv[1]);
	free(env);
}

static int child_report(const char *fdarg)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%d %d\n", g_pass, g_fail);

	if (write(atoi(fdarg), buf, (size_t)n) != n)
		return 2;
	return 0;
}

static void init_contexts(void)
{
	OK(cuInit(0));
	OK(cuDevicePrimaryCtxRetain(&g_ctx[0], 0));
	OK(cuDevicePrimaryCtxRetain(&g_ctx[1], 1));
	OK(cuCtxSetCurrent(g_ctx[0]));
}

/* ======================================================================== */
/* init, devices, errors                                                     */

static void test_init(void)
{
	int n = 0, v = 0;
	const char *s;

	EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
	EXPECT(cuCtxGetCurrent(&(CUcontext){0}), CUDA_ERROR_NOT_INITIALIZED);
	EXPECT(cuMemAlloc_v2(&(CUdeviceptr){0}, 16), CUDA_ERROR_NOT_INITIALIZED);
	OK(cuDriverGetVersion(&v)); /* works before cuInit */
	CHECK(v == PWSIM_MAX_VERSION);
	OK(cuGetErrorName(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, &s));
	CHECK(s && strcmp(s, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED") == 0);
	OK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s));
	CHECK(s && strcmp(s, "invalid argument") == 0);
	EXPECT(cuGetErrorName(12345, &s), CUDA_ERROR_INVALID_VALUE);
	CHECK(s == NULL);
	EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
	OK(cuInit(0));
}

static void test_devices(void)
{
	int n = 0, v = -1;
	CUdevice d = -1;
	char name[64];
	size_t mem = 0;

	OK(cuDeviceGetCount(&n));
	CHECK(n == 2);
	OK(cuDeviceGet(&d, 1));
	CHECK(d == 1);
	EXPECT(cuDeviceGet(&d, 2), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	OK(cuDeviceGetName(name, sizeof(name), 0));
	CHECK(strstr(name, "H200") != NULL);
	OK(cuDeviceTotalMem_v2(&mem, 1));
	CHECK(mem > (100ull << 30));
	EXPECT(cuDeviceTotalMem_v2(&mem, 9), CUDA_ERROR_INVALID_DEVICE);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
	CHECK(v == 1);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 1));
	CHECK(v == 9);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1));
	CHECK(v == 0);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0));
	CHECK(v == 1);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0));
	CHECK(v == 1);
	EXPECT(cuDeviceGetAttribute(&v, 100000, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 5),
	       CUDA_ERROR_INVALID_DEVICE);
}

/* Every device has a UUID and a bus id of its own, the same in any process. */
static void test_identity(void)
{
	CUuuid u0, u1, v1;
	char bus0[32], bus1[32], tiny[5];

	OK(cuDeviceGetUuid_v2(&u0, 0));
	OK(cuDeviceGetUuid_v2(&u1, 1));
	OK(cuDeviceGetUuid(&v1, 1));
	CHECK(memcmp(u0.bytes, u1.bytes, 16) != 0 && memcmp(u1.bytes, v1.bytes, 16) == 0);
	CHECK(memcmp(u0.bytes, "pwsm", 4) == 0 && u0.bytes[5] == 0 && u1.bytes[5] == 1);
	EXPECT(cuDeviceGetUuid_v2(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuDeviceGetUuid_v2(&u0, 2), CUDA_ERROR_INVALID_DEVICE);
	OK(cuDeviceGetPCIBusId(bus0, sizeof(bus0), 0));
	OK(cuDeviceGetPCIBusId(bus1, sizeof(bus1), 1));
	CHECK(strcmp(bus0, "0000:10:00.0") == 0 && strcmp(bus1, "0000:20:00.0") == 0);
	OK(cuDeviceGetPCIBusId(tiny, sizeof(tiny), 1));
	CHECK(strcmp(tiny, "0000") == 0);
	EXPECT(cuDeviceGetPCIBusId(bus0, 0, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuDeviceGetPCIBusId(bus0, sizeof(bus0), 3), CUDA_ERROR_INVALID_DEVICE);
}

/* ======================================================================== */
/* contexts                                                                  */

static void test_contexts(void)
{
	CUcontext c = (CUcontext)1, c2 = NULL;
	CUdevice d = -1;

	OK(cuCtxGetCurrent(&c));
	CHECK(c == NULL);
	EXPECT(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuMemAlloc_v2(&(CUdeviceptr){0}, 16), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuCtxPopCurrent_v2(&c), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT); /* never retained */
	EXPECT(cuDevicePrimaryCtxRetain(&c, 7), CUDA_ERROR_INVALID_DEVICE);
	OK(cuDevicePrimaryCtxRetain(&g_ctx[0], 0));
	OK(cuDevicePrimaryCtxRetain(&g_ctx[1], 1));
	OK(cuDevicePrimaryCtxRetain(&c2, 1));
	CHECK(c2 == g_ctx[1] && g_ctx[0] != g_ctx[1]);
	OK(cuDevicePrimaryCtxRelease(1)); /* legacy name, one of the two retains */
	unsigned fl = 9;
	int active = -1;
	OK(cuDevicePrimaryCtxGetState(1, &fl, &active));
	CHECK(fl == 0 && active == 1); /* still retained once */
	EXPECT(cuDevicePrimaryCtxGetState(7, &fl, &active), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuDevicePrimaryCtxGetState(1, NULL, &active), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuCtxSetCurrent((CUcontext)&d), CUDA_ERROR_INVALID_CONTEXT);
	OK(cuCtxSetCurrent(g_ctx[0]));
	OK(cuCtxGetDevice(&d));
	CHECK(d == 0);
	OK(cuCtxPushCurrent_v2(g_ctx[1]));
	OK(cuCtxGetDevice(&d));
	CHECK(d == 1);
	OK(cuCtxSynchronize());
	OK(cuCtxPopCurrent_v2(&c));
	CHECK(c == g_ctx[1]);
	OK(cuCtxGetCurrent(&c));
	CHECK(c == g_ctx[0]);
	OK(cuCtxSetCurrent(NULL)); /* pops */
	OK(cuCtxGetCurrent(&c));
	CHECK(c == NULL);
	OK(cuCtxPushCurrent(g_ctx[0]));
	OK(cuCtxPopCurrent(NULL));
	OK(cuCtxSetCurrent(g_ctx[0]));
}

/* ======================================================================== */
/* memory                                                                    */

static void test_alloc_free(void)
{
	CUdeviceptr p = 0, q = 0, base = 0;
	size_t size = 0;

	EXPECT(cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE); /* cuda.h :8583 */
	EXPECT(cuMemAlloc_v2(NULL, 16), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemAlloc_v2(&p, 1000));
	OK(cuMemAlloc_v2(&q, 1000));
	CHECK(p && q && p != q);
	OK(cuMemGetAddressRange_v2(&base, &size, p + 999));
	CHECK(base == p && size == 1000);
	OK(cuMemGetAddressRange_v2(NULL, &size, p + 1));
	EXPECT(cuMemGetAddressRange_v2(&base, &size, p + 1000), CUDA_ERROR_NOT_FOUND);
	EXPECT(cuMemGetAddressRange_v2(&base, &size, (CUdeviceptr)(uintptr_t)&size), CUDA_ERROR_NOT_FOUND);
	EXPECT(cuMemFree_v2(p + 8), CUDA_ERROR_INVALID_VALUE); /* not the base */
	EXPECT(cuMemFree_v2((CUdeviceptr)(uintptr_t)&size), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemFree_v2(0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemFree((CUdeviceptr_v1)0x1000u), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemFree_v2(p));
	EXPECT(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE); /* twice */
	EXPECT(cuMemGetAddressRange_v2(&base, &size, p), CUDA_ERROR_NOT_FOUND);
	EXPECT(cuMemFreeAsync(q, (CUstream)&size), CUDA_ERROR_INVALID_HANDLE);
	OK(cuMemFreeAsync_ptsz(q, NULL));
	EXPECT(cuMemFreeAsync(q, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_copies(void)
{
	CUdeviceptr a = alloc_on(0, 4096), b = alloc_on(1, 4096);
	unsigned char host[16] = {0};

	fill(a, 4096, 3);
	CHECK(holds(a, 4096, 3));
	OK(cuMemcpyDtoD_v2(b, a, 4096));
	CHECK(holds(b, 4096, 3));
	OK(cuMemsetD8_v2(b + 100, 0xab, 16));
	OK(cuMemcpyDtoH_v2(host, b + 100, 16));
	CHECK(host[0] == 0xab && host[15] == 0xab);
	OK(cuMemsetD8_v2_ptds(b, 0, 4096));
	OK(cuMemcpyHtoD_v2_ptds(b, host, 16));
	OK(cuMemcpyDtoH_v2_ptds(host, b + 16, 16));
	CHECK(host[0] == 0);
	OK(cuMemcpyDtoD_v2_ptds(a, b, 1));
	EXPECT(cuMemcpyHtoD_v2(a + 4090, host, 16), CUDA_ERROR_INVALID_VALUE); /* past the end */
	EXPECT(cuMemcpyDtoH_v2(host, a + 4096, 1), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyDtoD_v2(a, b + 1, 4096), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemsetD8_v2(a, 0, 4097), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyHtoD_v2(a, NULL, 4), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemcpyHtoD_v2(0, NULL, 0)); /* size 0 */
	OK(cuMemFree_v2(a));
	OK(cuMemFree_v2(b));
	EXPECT(cuMemcpyDtoH_v2(host, a, 1), CUDA_ERROR_INVALID_VALUE); /* freed */
}

/* cuda_sim_copy.c: generic copies between any two addresses, pitched and
 * batched copies, the other allocations. */
static void test_implicit_copies(void)
{
	CUdeviceptr a = alloc_on(0, 4096), b = alloc_on(1, 4096), p = 0;
	unsigned char host[64] = {0};
	size_t pitch = 0, fail = 7;

	fill(a, 4096, 5);
	OK(cuMemcpy(b, a, 4096));
	CHECK(holds(b, 4096, 5));
	OK(cuMemcpy_ptds((CUdeviceptr)(uintptr_t)host, a, 64)); /* unified: host memory as is */
	CHECK(host[1] == (unsigned char)(5 + 7));
	OK(cuMemsetD8_v2(b, 0, 4096));
	OK(cuMemcpyAsync(b, a, 4096, NULL));
	CHECK(holds(b, 4096, 5));
	OK(cuMemcpyAsync_ptsz(b, a, 0, CU_STREAM_PER_THREAD));
	EXPECT(cuMemcpyAsync(b, a, 16, (CUstream)(uintptr_t)0x999), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuMemcpy(b + 4000, a, 100), CUDA_ERROR_INVALID_VALUE); /* past the end */
	EXPECT(cuMemcpy(0, a, 1), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemcpyDtoDAsync_v2(b, a, 16, NULL));
	OK(cuMemcpyDtoDAsync_v2_ptsz(b, a, 16, CU_STREAM_PER_THREAD));
	EXPECT(cuMemcpyDtoDAsync_v2((CUdeviceptr)(uintptr_t)host, a, 16, NULL), CUDA_ERROR_INVALID_VALUE);

	/* 2D: 4 rows of 16 bytes from a (pitch 64) into b (pitch 32, x 8) */
	CUDA_MEMCPY2D c2 = {0};
	c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c2.srcDevice = a;
	c2.srcPitch = 64;
	c2.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
	c2.dstDevice = b;
	c2.dstXInBytes = 8;
	c2.dstPitch = 32;
	c2.WidthInBytes = 16;
	c2.Height = 4;
	OK(cuMemsetD8_v2(b, 0, 4096));
	OK(cuMemcpy2D_v2(&c2));
	OK(cuMemcpyDtoH_v2(host, b + 3 * 32 + 8, 16));
	CHECK(host[0] == (unsigned char)(5 + 3 * 64 * 7) &&
	      host[15] == (unsigned char)(5 + (3 * 64 + 15) * 7));
	OK(cuMemcpy2D_v2_ptds(&c2));
	OK(cuMemcpy2DAsync_v2(&c2, NULL));
	OK(cuMemcpy2DAsync_v2_ptsz(&c2, CU_STREAM_PER_THREAD));
	c2.Height = 200; /* 200 * 32 bytes do not fit in b */
	EXPECT(cuMemcpy2D_v2(&c2), CUDA_ERROR_INVALID_VALUE);
	c2.Height = 4;
	c2.dstPitch = 8; /* less than x + width */
	EXPECT(cuMemcpy2D_v2(&c2), CUDA_ERROR_INVALID_VALUE);
	c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	EXPECT(cuMemcpy2D_v2(&c2), CUDA_ERROR_NOT_SUPPORTED);
	EXPECT(cuMemcpy2D_v2(NULL), CUDA_ERROR_INVALID_VALUE);

	/* 3D: 2 layers of 2 rows of 8 bytes, tight on both sides */
	CUDA_MEMCPY3D c3 = {0};
	c3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c3.srcDevice = a + 128;
	c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c3.dstDevice = b;
	c3.WidthInBytes = 8;
	c3.Height = 2;
	c3.Depth = 2;
	OK(cuMemcpy3D_v2(&c3));
	OK(cuMemcpyDtoH_v2(host, b, 32));
	CHECK(host[31] == (unsigned char)(5 + (128 + 31) * 7));
	OK(cuMemcpy3D_v2_ptds(&c3));
	OK(cuMemcpy3DAsync_v2(&c3, NULL));
	OK(cuMemcpy3DAsync_v2_ptsz(&c3, CU_STREAM_PER_THREAD));
	c3.dstLOD = 1;
	EXPECT(cuMemcpy3D_v2(&c3), CUDA_ERROR_INVALID_VALUE);

	/* batches */
	CUdeviceptr dsts[2] = {b, b + 2048}, srcs[2] = {a, a + 1024};
	size_t sizes[2] = {1024, 2048}, idx[1] = {0};
	CUmemcpyAttributes attr = {0};
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	OK(cuMemsetD8_v2(b, 0, 4096));
	OK(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attr, idx, 1, CU_STREAM_PER_THREAD));
	OK(cuMemcpyDtoH_v2(host, b + 2048, 4));
	CHECK(host[0] == (unsigned char)(5 + 1024 * 7));
	OK(cuMemcpyBatchAsync_v2_ptsz(dsts, srcs, sizes, 2, &attr, idx, 1, CU_STREAM_PER_THREAD));
	OK(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, idx, 1, &fail, CU_STREAM_PER_THREAD));
	OK(cuMemcpyBatchAsync_ptsz(dsts, srcs, sizes, 2, &attr, idx, 1, &fail, CU_STREAM_PER_THREAD));
	EXPECT(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attr, idx, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 0, &attr, idx, 1, CU_STREAM_PER_THREAD),
	       CUDA_ERROR_INVALID_VALUE);
	sizes[1] = 4096; /* the second copy runs past b's end */
	EXPECT(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, idx, 1, &fail, CU_STREAM_PER_THREAD),
	       CUDA_ERROR_INVALID_VALUE);
	CHECK(fail == 1);
	sizes[1] = 2048;
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
	EXPECT(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, idx, 1, &fail, CU_STREAM_PER_THREAD),
	       CUDA_ERROR_INVALID_VALUE);
	CHECK(fail == SIZE_MAX);

	CUDA_MEMCPY3D_BATCH_OP op = {0};
	op.src.type = op.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
	op.src.op.ptr.ptr = a;
	op.src.op.ptr.rowLength = 64;
	op.dst.op.ptr.ptr = b;
	op.extent = (CUextent3D){16, 3, 1};
	op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	OK(cuMemsetD8_v2(b, 0, 4096));
	OK(cuMemcpy3DBatchAsync_v2(1, &op, 0, CU_STREAM_PER_THREAD));
	OK(cuMemcpyDtoH_v2(host, b + 32, 16)); /* third row, tight */
	CHECK(host[0] == (unsigned char)(5 + 128 * 7));
	OK(cuMemcpy3DBatchAsync_v2_ptsz(1, &op, 0, CU_STREAM_PER_THREAD));
	OK(cuMemcpy3DBatchAsync(1, &op, &fail, 0, CU_STREAM_PER_THREAD));
	OK(cuMemcpy3DBatchAsync_ptsz(1, &op, &fail, 0, CU_STREAM_PER_THREAD));
	EXPECT(cuMemcpy3DBatchAsync_v2(1, &op, 1, CU_STREAM_PER_THREAD),
	       CUDA_ERROR_INVALID_VALUE); /* flags */
	op.extent.depth = 0;
	EXPECT(cuMemcpy3DBatchAsync(1, &op, &fail, 0, CU_STREAM_PER_THREAD), CUDA_ERROR_INVALID_VALUE);
	CHECK(fail == 0);

	/* allocations */
	OK(cuMemAllocPitch_v2(&p, &pitch, 100, 3, 4));
	CHECK(pitch >= 100 && pitch % 512 == 0);
	OK(cuMemcpy(p + 2 * pitch, a, 100));
	OK(cuMemFree_v2(p));
	EXPECT(cuMemAllocPitch_v2(&p, &pitch, 100, 3, 3), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemAllocAsync(&p, 256, NULL));
	CHECK(p != 0);
	OK(cuMemFreeAsync(p, NULL));
	OK(cuMemAllocAsync_ptsz(&p, 256, CU_STREAM_PER_THREAD));
	OK(cuMemFreeAsync_ptsz(p, CU_STREAM_PER_THREAD));
	EXPECT(cuMemAllocAsync(&p, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemAllocFromPoolAsync(&p, 256, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	{
		CUmemoryPool pool = NULL;
		OK(cuDeviceGetDefaultMemPool(&pool, 0));
		OK(cuMemAllocFromPoolAsync_ptsz(&p, 256, pool, NULL));
		OK(cuMemFreeAsync(p, NULL));
	}
	OK(cuMemFree_v2(a));
	OK(cuMemFree_v2(b));
	EXPECT(cuMemcpy(b, (CUdeviceptr)(uintptr_t)host, 1), CUDA_ERROR_INVALID_VALUE); /* freed */
}

static void test_pointer_attrs(void)
{
	CUdeviceptr p = alloc_on(1, 3000), m = alloc_managed(100), q = alloc_on(0, 16), v = 0;
	unsigned long long id1 = 0, id2 = 0;
	unsigned int type = 0;
	int ord = -5, managed = -5, mapped = 0;
	CUcontext c = NULL;
	void *host = (void *)1;
	size_t size = 0;
	CUpointer_attribute attrs[5] = {
	    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
	    CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_CONTEXT};
	void *data[5] = {&ord, &v, &size, &host, &c};

	OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p + 2999));
	CHECK(ord == 1);
	OK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p));
	CHECK(c == g_ctx[1]);
	OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
	CHECK(type == CU_MEMORYTYPE_DEVICE);
	OK(cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p + 5));
	CHECK(v == p + 5);
	EXPECT(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, p), CUDA_ERROR_INVALID_VALUE);
	OK(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, m + 1));
	CHECK(host == (void *)(uintptr_t)(m + 1));
	OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
	CHECK(managed == 1);
	OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	CHECK(managed == 0);
	OK(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, p));
	CHECK(mapped == 1);
	OK(cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, p));
	OK(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, q));
	CHECK(id1 && id2 && id1 != id2);
	EXPECT(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)(uintptr_t)&ord),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuPointerGetAttribute(&ord, 99, p), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p), CUDA_ERROR_INVALID_VALUE);
	OK(cuPointerGetAttributes(5, attrs, data, p + 10));
	CHECK(ord == 1 && v == p && size == 3000 && host == NULL && c == g_ctx[1]);
	/* cuda.h :14876-14878: no error for a non-CUDA pointer, default values */
	OK(cuPointerGetAttributes(5, attrs, data, (CUdeviceptr)(uintptr_t)&ord));
	CHECK(ord == CU_DEVICE_INVALID && v == 0 && size == 0 && host == NULL && c == NULL);
	OK(cuMemFree_v2(p));
	EXPECT(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemFree_v2(q));
	OK(cuMemFree_v2(m));
}

/* ======================================================================== */
/* streams and events                                                        */

static void test_streams(void)
{
	CUstream s = NULL, s1 = NULL;

	EXPECT(cuStreamCreate(&s, 2), CUDA_ERROR_INVALID_VALUE);
	OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	OK(cuStreamQuery(s));
	OK(cuStreamSynchronize(s));
	OK(cuStreamSynchronize_ptsz(NULL));
	OK(cuStreamQuery_ptsz(CU_STREAM_PER_THREAD));
	OK(cuStreamSynchronize(CU_STREAM_LEGACY));
	OK(cuStreamDestroy_v2(s));
	EXPECT(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuStreamDestroy_v2(NULL), CUDA_ERROR_INVALID_HANDLE);
	OK(cuCtxPushCurrent_v2(g_ctx[1]));
	OK(cuStreamCreate(&s1, 0));
	OK(cuCtxPopCurrent_v2(NULL));
	OK(cuStreamDestroy(s1));
}

static void test_events(void)
{
	CUevent a = NULL, b = NULL, nt = NULL;
	CUstream other = NULL;
	float ms = -1;

	EXPECT(cuEventCreate(&a, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE); /* needs DISABLE_TIMING */
	EXPECT(cuEventCreate(&a, 0x10), CUDA_ERROR_INVALID_VALUE);
	OK(cuEventCreate(&a, CU_EVENT_DEFAULT));
	OK(cuEventCreate(&b, CU_EVENT_BLOCKING_SYNC));
	OK(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
	OK(cuEventQuery(a)); /* never recorded: success */
	EXPECT(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
	OK(cuEventRecord(a, NULL));
	usleep(2000);
	OK(cuEventRecord_ptsz(b, CU_STREAM_PER_THREAD));
	OK(cuEventSynchronize(b));
	OK(cuEventElapsedTime(&ms, a, b));
	CHECK(ms >= 1.0f && ms < 1000.0f);
	OK(cuEventRecord(nt, NULL));
	EXPECT(cuEventElapsedTime(&ms, a, nt), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuEventElapsedTime(NULL, a, b), CUDA_ERROR_INVALID_VALUE);
	OK(cuCtxPushCurrent_v2(g_ctx[1]));
	OK(cuStreamCreate(&other, 0));
	OK(cuCtxPopCurrent_v2(NULL));
	EXPECT(cuEventRecord(a, other), CUDA_ERROR_INVALID_HANDLE); /* cuda.h :15952 */
	EXPECT(cuEventRecord(a, (CUstream)&ms), CUDA_ERROR_INVALID_HANDLE);
	OK(cuStreamDestroy_v2(other));
	OK(cuEventDestroy_v2(a));
	OK(cuEventDestroy(b));
	OK(cuEventDestroy_v2(nt));
	EXPECT(cuEventQuery(a), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuEventDestroy_v2(a), CUDA_ERROR_INVALID_HANDLE);
}

/* ======================================================================== */
/* peer access (docs/facts-cuda.md, in driver-API form)                    */

static void test_peer_access(void)
{
	int can = -1, v = -1;

	OK(cuDeviceCanAccessPeer(&can, 0, 1));
	CHECK(can == 1);
	OK(cuDeviceCanAccessPeer(&can, 1, 0));
	CHECK(can == 1);
	OK(cuDeviceCanAccessPeer(&can, 0, 0));
	CHECK(can == 0);
	EXPECT(cuDeviceCanAccessPeer(&can, 0, 9), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuDeviceCanAccessPeer(NULL, 0, 1), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuCtxEnablePeerAccess(g_ctx[0], 0),
	       CUDA_ERROR_INVALID_CONTEXT); /* self: CUDA Driver API, Peer Context Memory Access */
	EXPECT(cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuCtxEnablePeerAccess(g_ctx[1], 1), CUDA_ERROR_INVALID_VALUE);
	OK(cuCtxEnablePeerAccess(g_ctx[1], 0));
	EXPECT(cuCtxEnablePeerAccess(g_ctx[1], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	OK(cuCtxDisablePeerAccess(g_ctx[1]));
	EXPECT(cuCtxDisablePeerAccess(g_ctx[1]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	EXPECT(cuCtxDisablePeerAccess((CUcontext)&v), CUDA_ERROR_INVALID_CONTEXT);
	/* a primary context's reset ends the peer access it enabled; it stays retained */
	OK(cuCtxEnablePeerAccess(g_ctx[1], 0));
	OK(cuDevicePrimaryCtxReset_v2(0));
	EXPECT(cuCtxDisablePeerAccess(g_ctx[1]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	EXPECT(cuDevicePrimaryCtxReset(9), CUDA_ERROR_INVALID_DEVICE);
	/* per pair of contexts: a second context of device 0 enables anew, and
	 * its own second enable is 704; destroyed, its access and others' to
	 * it are gone, and a context made at its address starts with none */
	CUcontext m0 = NULL, m1 = NULL, m2 = NULL;
	OK(cuCtxEnablePeerAccess(g_ctx[1], 0));
	OK(cuCtxCreate_v2(&m0, 0, 0)); /* current now */
	OK(cuCtxEnablePeerAccess(g_ctx[1], 0));
	EXPECT(cuCtxEnablePeerAccess(g_ctx[1], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	OK(cuCtxCreate_v2(&m1, 0, 1));
	OK(cuCtxEnablePeerAccess(m0, 0)); /* a made context on device 1 to the one on 0 */
	EXPECT(cuCtxEnablePeerAccess(m0, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	OK(cuCtxDestroy_v2(m0));
	/* destroyed: 709, as the H200's driver 580 answers (docs/facts-cuda.md) */
	EXPECT(cuCtxEnablePeerAccess(m0, 0), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	EXPECT(cuCtxDisablePeerAccess(m0), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	EXPECT(cuMemcpyPeer(0x1000, g_ctx[1], 0x2000, m0, 4096), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	EXPECT(cuCtxEnablePeerAccess((CUcontext)&v, 0), CUDA_ERROR_INVALID_CONTEXT); /* no context at all */
	OK(cuCtxCreate_v2(&m2, 0, 0)); /* the simulator reuses the first free slot: m0's */
	CHECK(m2 == m0);
	OK(cuCtxEnablePeerAccess(g_ctx[1], 0)); /* a new context: nothing enabled yet */
	OK(cuCtxSetCurrent(m1));
	OK(cuCtxEnablePeerAccess(m2, 0));
	OK(cuCtxDestroy_v2(m2));
	OK(cuCtxDestroy_v2(m1));
	OK(cuCtxSetCurrent(g_ctx[0]));
	EXPECT(cuCtxEnablePeerAccess(g_ctx[1], 0),
	       CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED); /* the primary's */
	OK(cuDevicePrimaryCtxReset_v2(1));              /* the peer's reset ends access to it too */
	OK(cuCtxEnablePeerAccess(g_ctx[1], 0));
	OK(cuCtxDisablePeerAccess(g_ctx[1]));
	OK(cuCtxSetCurrent(NULL));
	EXPECT(cuCtxEnablePeerAccess(g_ctx[1], 0), CUDA_ERROR_INVALID_CONTEXT); /* no current */
	EXPECT(cuCtxDisablePeerAccess(g_ctx[1]), CUDA_ERROR_INVALID_CONTEXT);
	OK(cuCtxSetCurrent(g_ctx[0]));
	OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
	CHECK(v == 1);
	OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 1, 0));
	CHECK(v == 0);
	OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 1, 0));
	CHECK(v == 1);
	OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 1, 0));
	OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED, 1, 0));
	CHECK(v == 0);
	EXPECT(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0),
	       CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 9),
	       CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuDeviceGetP2PAttribute(NULL, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuDeviceGetP2PAttribute(&v, 42, 0, 1), CUDA_ERROR_INVALID_VALUE);
}

/* ======================================================================== */
/* peer copies (docs/facts-cuda.md)                                        */

static void test_memcpy_peer(void)
{
	const size_t MiB = 1 << 20;
	CUdeviceptr a = alloc_on(0, MiB), b = alloc_on(1, MiB);
	CUstream s = NULL;

	fill(a, MiB, 11);
	OK(cuMemcpyPeer(b, g_ctx[1], a, g_ctx[0], MiB)); /* no peer access needed */
	CHECK(holds(b, MiB, 11));
	EXPECT(cuMemcpyPeer(b, g_ctx[1], a, g_ctx[0], 2 * MiB), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyPeer(b, g_ctx[1], a + 512, g_ctx[0], MiB), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyPeer(b + 1, g_ctx[1], a, g_ctx[0], MiB), CUDA_ERROR_INVALID_VALUE);
	fill(a, 4096, 5);
	OK(cuMemcpyPeer(b, g_ctx[0], a, g_ctx[0], 4096)); /* dst on 1, call says 0: silent */
	CHECK(holds(b, 4096, 5));
	OK(cuMemcpyPeer(b, g_ctx[1], a, g_ctx[0], 0));
	EXPECT(cuMemcpyPeer(0, g_ctx[1], a, g_ctx[0], 16), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyPeer(b, g_ctx[1], 0, g_ctx[0], 16), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyPeer(b, NULL, a, g_ctx[0], 16), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuMemcpyPeer(b, g_ctx[1], a, (CUcontext)&s, 16), CUDA_ERROR_INVALID_CONTEXT);
	OK(cuStreamCreate(&s, 0));
	fill(a, 4096, 9);
	OK(cuMemcpyPeerAsync(b, g_ctx[1], a, g_ctx[0], 4096, s));
	CHECK(holds(b, 4096, 9));
	OK(cuMemcpyPeerAsync_ptsz(a, g_ctx[0], b, g_ctx[1], 4096, NULL));
	OK(cuMemcpyPeer_ptds(a, g_ctx[0], b, g_ctx[1], 4096));
	EXPECT(cuMemcpyPeerAsync(b, g_ctx[1], a, g_ctx[0], 16, (CUstream)&s), CUDA_ERROR_INVALID_HANDLE);
	OK(cuStreamDestroy_v2(s));
	OK(cuMemFree_v2(a));
	EXPECT(cuMemcpyPeer(b, g_ctx[1], a, g_ctx[0], 16), CUDA_ERROR_INVALID_VALUE); /* freed */
	OK(cuMemFree_v2(b));
}

static CUDA_MEMCPY3D_PEER copy3d(CUdeviceptr dst, CUdeviceptr src)
{
	CUDA_MEMCPY3D_PEER c;

	memset(&c, 0, sizeof(c));
	c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.srcDevice = src;
	c.dstDevice = dst;
	c.srcContext = g_ctx[0];
	c.dstContext = g_ctx[1];
	return c;
}

/* A 10 x 3 x 2 box from pitch 64 / height 8 to pitch 32 / height 4, with offsets. */
static void test_memcpy_3d_peer(void)
{
	CUdeviceptr a = alloc_on(0, 64 * 8 * 2), b = alloc_on(1, 32 * 4 * 3);
	CUDA_MEMCPY3D_PEER c = copy3d(b, a);
	unsigned char src[64 * 8 * 2], dst[32 * 4 * 3];
	int ok = 1;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)i;
	OK(cuMemcpyHtoD_v2(a, src, sizeof(src)));
	OK(cuMemsetD8_v2(b, 0, sizeof(dst)));
	c.srcXInBytes = 5, c.srcY = 2, c.srcPitch = 64, c.srcHeight = 8;
	c.dstXInBytes = 7, c.dstY = 1, c.dstZ = 1, c.dstPitch = 32, c.dstHeight = 4;
	c.WidthInBytes = 10, c.Height = 3, c.Depth = 2;
	OK(cuMemcpy3DPeer(&c));
	OK(cuMemcpyDtoH_v2(dst, b, sizeof(dst)));
	for (size_t z = 0; z < 2; z++)
		for (size_t y = 0; y < 3; y++)
			for (size_t x = 0; x < 10; x++)
				ok &= dst[((1 + z) * 4 + 1 + y) * 32 + 7 + x] ==
				      src[(z * 8 + 2 + y) * 64 + 5 + x];
	CHECK(ok);
	CHECK(dst[0] == 0);
	OK(cuMemcpy3DPeer_ptds(&c));
	OK(cuMemcpy3DPeerAsync(&c, NULL));
	OK(cuMemcpy3DPeerAsync_ptsz(&c, CU_STREAM_PER_THREAD));
	c.dstZ = 2; /* the last plane runs past b's end */
	EXPECT(cuMemcpy3DPeer(&c), CUDA_ERROR_INVALID_VALUE);
	c.dstZ = 0, c.dstPitch = 12; /* pitch < x + width */
	EXPECT(cuMemcpy3DPeer(&c), CUDA_ERROR_INVALID_VALUE);
	c.dstPitch = 32, c.srcLOD = 1;
	EXPECT(cuMemcpy3DPeer(&c), CUDA_ERROR_INVALID_VALUE);
	c.srcLOD = 0, c.dstContext = NULL;
	EXPECT(cuMemcpy3DPeer(&c), CUDA_ERROR_INVALID_CONTEXT);
	c.dstContext = g_ctx[1], c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	EXPECT(cuMemcpy3DPeer(&c), CUDA_ERROR_NOT_SUPPORTED);
	c.srcMemoryType = 9;
	EXPECT(cuMemcpy3DPeer(&c), CUDA_ERROR_INVALID_VALUE);
	c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = src; /* host to device, tight pitch */
	c.srcXInBytes = c.srcY = 0, c.srcPitch = c.srcHeight = 0, c.dstXInBytes = c.dstY = c.dstZ = 0;
	OK(cuMemcpy3DPeer(&c));
	OK(cuMemcpyDtoH_v2(dst, b, sizeof(dst)));
	CHECK(dst[0] == src[0] && dst[9] == src[9] && dst[32] == src[10] && dst[128] == src[30]);
	c.WidthInBytes = 0;
	OK(cuMemcpy3DPeer(&c));
	EXPECT(cuMemcpy3DPeer(NULL), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemFree_v2(a));
	OK(cuMemFree_v2(b));
}

/* ======================================================================== */
/* managed memory (docs/facts-cuda.md)                                     */

typedef CUresult (*advise_v2_fn)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
typedef CUresult (*prefetch_v2_fn)(CUdeviceptr, size_t, CUmemLocation, unsigned int, CUstream);

static int range_int(CUdeviceptr p, size_t n, CUmem_range_attribute attr)
{
	int v = -100;

	OK(cuMemRangeGetAttribute(&v, 4, attr, p, n));
	return v;
}

static void test_managed_facts(void)
{
	CUdeviceptr m = 0, d = alloc_on(0, 1 << 16), big = alloc_managed(1 << 16);
	int v = 0, acc[2];

	EXPECT(cuMemAllocManaged(&m, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE); /* as the driver */
	EXPECT(cuMemAllocManaged(&m, 4096, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemAllocManaged(&m, 100, CU_MEM_ATTACH_HOST));
	EXPECT(cuMemAdvise(d, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemAdvise(big + 1, 100, CU_MEM_ADVISE_SET_READ_MOSTLY, 0)); /* unaligned: silent */
	EXPECT(cuMemAdvise(big, 4096, 99, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemAdvise(big, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 9), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemAdvise(big, (1 << 16) + 1, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemPrefetchAsync(d, 4096, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemPrefetchAsync(big, 0, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemPrefetchAsync(big + 4096, 1 << 16, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemPrefetchAsync(big, 4096, 9, NULL), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuMemRangeGetAttribute(&v, 3, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, big, 4096),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemRangeGetAttribute(acc, 6, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, big, 4096),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4096),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamAttachMemAsync(NULL, big, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamAttachMemAsync(NULL, big, 0, 9), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamAttachMemAsync(NULL, big, 0, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemFree_v2(m));
	OK(cuMemFree_v2(big));
	OK(cuMemFree_v2(d));
}

static void test_managed_advice(void)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = 8 * pg;
	CUdeviceptr m = alloc_managed(n);
	int acc[3] = {0};

	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 0);
	OK(cuMemAdvise(m, n, CU_MEM_ADVISE_SET_READ_MOSTLY, CU_DEVICE_CPU));
	CHECK(range_int(m + 3, 10, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 1);
	OK(cuMemAdvise(m + 4 * pg + 1, 1, CU_MEM_ADVISE_UNSET_READ_MOSTLY, 0)); /* rounds out to page 4 */
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 0);
	CHECK(range_int(m, 4 * pg, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 1);
	CHECK(range_int(m + 5 * pg, 3 * pg, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 1);
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) == CU_DEVICE_INVALID);
	OK(cuMemAdvise(m, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 1));
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) == 1);
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE) == CU_MEM_LOCATION_TYPE_DEVICE);
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID) == 1);
	OK(cuMemAdvise(m, pg, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
	CHECK(range_int(m, pg, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) == CU_DEVICE_CPU);
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) == CU_DEVICE_INVALID);
	OK(cuMemAdvise(m, n, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE) ==
	      CU_MEM_LOCATION_TYPE_INVALID);
	OK(cuMemAdvise(m, n, CU_MEM_ADVISE_SET_ACCESSED_BY, 1));
	OK(cuMemAdvise(m, pg, CU_MEM_ADVISE_SET_ACCESSED_BY, 0));
	OK(cuMemRangeGetAttribute(acc, sizeof(acc), CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, pg));
	CHECK(acc[0] == 0 && acc[1] == 1 && acc[2] == CU_DEVICE_INVALID);
	OK(cuMemRangeGetAttribute(acc, sizeof(acc), CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, n));
	CHECK(acc[0] == 1 && acc[1] == CU_DEVICE_INVALID);
	OK(cuMemAdvise(m, n, CU_MEM_ADVISE_UNSET_ACCESSED_BY, 1));
	OK(cuMemRangeGetAttribute(acc, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, n));
	CHECK(acc[0] == CU_DEVICE_INVALID);
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) == CU_DEVICE_INVALID);
	OK(cuMemPrefetchAsync(m, n, CU_DEVICE_CPU, NULL));
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) == CU_DEVICE_CPU);
	OK(cuMemPrefetchAsync_ptsz(m + pg, pg, 1, NULL));
	CHECK(range_int(m + pg, pg, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) == 1);
	CHECK(range_int(m, n, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) == CU_DEVICE_INVALID);
	OK(cuMemFree_v2(m));
	EXPECT(cuMemAdvise(m, pg, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE); /* freed */
}

static void test_managed_v2(void)
{
	advise_v2_fn adv = (advise_v2_fn)sym("cuMemAdvise_v2");
	prefetch_v2_fn pf = (prefetch_v2_fn)sym("cuMemPrefetchAsync_v2");
	prefetch_v2_fn pf_ptsz = (prefetch_v2_fn)sym("cuMemPrefetchAsync_v2_ptsz");
	CUmemLocation dev1 = {CU_MEM_LOCATION_TYPE_DEVICE, 1}, dev9 = {CU_MEM_LOCATION_TYPE_DEVICE, 9};
	CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 77}, none = {CU_MEM_LOCATION_TYPE_INVALID, 0};
	CUmemLocation numa = {CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 5};
	CUdeviceptr m = alloc_managed(1 << 16);
	CUmem_range_attribute attrs[2] = {CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
	                                  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID};
	int type = -1, id = -1;
	void *data[2] = {&type, &id};
	size_t sizes[2] = {4, 4};

	CHECK(adv && pf && pf_ptsz);
	if (!adv || !pf || !pf_ptsz)
		return;
	OK(adv(m, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, none)); /* location ignored */
	EXPECT(adv(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev9), CUDA_ERROR_INVALID_VALUE);
	EXPECT(adv(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, none), CUDA_ERROR_INVALID_VALUE);
	EXPECT(adv(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, numa), CUDA_ERROR_INVALID_VALUE);
	OK(adv(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
	CHECK(range_int(m, 4096, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE) ==
	      CU_MEM_LOCATION_TYPE_HOST);
	OK(pf(m, 1 << 16, dev1, 0, NULL));
	OK(cuMemRangeGetAttributes(data, sizes, attrs, 2, m, 1 << 16));
	CHECK(type == CU_MEM_LOCATION_TYPE_DEVICE && id == 1);
	OK(pf_ptsz(m, 4096, numa, 0, NULL));
	OK(cuMemRangeGetAttributes(data, sizes, attrs, 2, m, 4096));
	CHECK(type == CU_MEM_LOCATION_TYPE_HOST_NUMA && id == 0);
	EXPECT(pf(m, 4096, dev1, 1, NULL), CUDA_ERROR_INVALID_VALUE); /* flags must be 0 */
	EXPECT(pf(m, 4096, dev9, 0, NULL), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(pf(m, 4096, dev1, 0, (CUstream)&id), CUDA_ERROR_INVALID_HANDLE);
	sizes[1] = 8;
	EXPECT(cuMemRangeGetAttributes(data, sizes, attrs, 2, m, 4096), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemFree_v2(m));
}

static void test_managed_attach(void)
{
	CUdeviceptr m = alloc_managed(10000), d = alloc_on(0, 4096);
	CUstream s = NULL;
	int managed = 0;
	void *host = NULL;
	CUipcMemHandle h;

	OK(cuStreamCreate(&s, 0));
	OK(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_SINGLE));
	OK(cuStreamAttachMemAsync(NULL, m, 10000, CU_MEM_ATTACH_HOST));
	OK(cuStreamAttachMemAsync_ptsz(NULL, m, 0, CU_MEM_ATTACH_SINGLE)); /* per-thread stream */
	EXPECT(cuStreamAttachMemAsync_ptsz(CU_STREAM_LEGACY, m, 0, CU_MEM_ATTACH_SINGLE),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamAttachMemAsync(s, m + 8, 10000, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamAttachMemAsync((CUstream)&s, m, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_HANDLE);
	OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 9999));
	CHECK(managed == 1);
	OK(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, m));
	((unsigned char *)host)[9999] = 42; /* managed memory is host-accessible */
	EXPECT(cuIpcGetMemHandle(&h, m), CUDA_ERROR_INVALID_VALUE);
	OK(cuStreamDestroy_v2(s));
	OK(cuMemFree_v2(m));
	OK(cuMemFree_v2(d));
}

/* ======================================================================== */
/* IPC (docs/facts-cuda.md)                                                */

static void test_ipc_local(void)
{
	CUdeviceptr p = alloc_on(1, 8192), q = 0;
	CUipcMemHandle h1, h2, h3, bad;
	CUipcEventHandle eh;
	CUevent timing = NULL, ipc = NULL, opened = NULL;
	int local = 0;

	OK(cuIpcGetMemHandle(&h1, p));
	OK(cuIpcGetMemHandle(&h2, p));
	OK(cuIpcGetMemHandle(&h3, p + 256)); /* interior: silent, names the whole allocation */
	CHECK(memcmp(&h1, &h2, sizeof(h1)) == 0 && memcmp(&h1, &h3, sizeof(h1)) == 0);
	EXPECT(cuIpcGetMemHandle(&h3, (CUdeviceptr)(uintptr_t)&local), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuIpcGetMemHandle(NULL, p), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuIpcOpenMemHandle_v2(&q, h1, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuIpcOpenMemHandle(&q, h1, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuIpcCloseMemHandle(p), CUDA_ERROR_INVALID_VALUE); /* never opened */
	memset(&bad, 0x5a, sizeof(bad));
	EXPECT(cuIpcOpenMemHandle_v2(&q, bad, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_HANDLE);
	OK(cuMemFree_v2(p));
	EXPECT(cuIpcGetMemHandle(&h3, p), CUDA_ERROR_INVALID_VALUE); /* after free */
	OK(cuEventCreate(&timing, CU_EVENT_DISABLE_TIMING));
	EXPECT(cuIpcGetEventHandle(&eh, timing), CUDA_ERROR_INVALID_HANDLE); /* 400, as measured */
	OK(cuEventCreate(&ipc, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	OK(cuIpcGetEventHandle(&eh, ipc));
	EXPECT(cuIpcOpenEventHandle(&opened, eh), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuIpcGetEventHandle(&eh, (CUevent)&local), CUDA_ERROR_INVALID_HANDLE);
	OK(cuEventDestroy_v2(timing));
	OK(cuEventDestroy_v2(ipc));
}

static void ipc_child(const char *memhex, const char *evhex)
{
	CUipcMemHandle h = {{0}};
	CUipcEventHandle eh = {{0}};
	CUdeviceptr p = 0, p2 = 0, base = 0;
	size_t size = 0;
	CUevent ev = NULL;
	int ord = -1;

	init_contexts();
	OK(cuCtxSetCurrent(g_ctx[0])); /* the exporter's memory lives on device 1 */
	CHECK(from_hex(memhex, &h, sizeof(h)) == 0 && from_hex(evhex, &eh, sizeof(eh)) == 0);
	EXPECT(cuIpcOpenMemHandle_v2(&p, h, 0), CUDA_ERROR_INVALID_VALUE); /* line 82 */
	OK(cuIpcOpenMemHandle_v2(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	OK(cuIpcOpenMemHandle(&p2, h, 7)); /* undefined bits: silent (line 83) */
	CHECK(p && p == p2);               /* same pointer, reference counted (line 84) */
	OK(cuMemGetAddressRange_v2(&base, &size, p + 100));
	CHECK(base == p && size == 8192); /* the base, though exported from base+256 */
	/* the mapping names the importing context and its device (0), not the
	 * exporter's (1), also inside it (docs/facts-cuda.md, measured) */
	CUcontext owner = NULL;
	OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p));
	CHECK(ord == 0);
	OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p + 4000));
	CHECK(ord == 0);
	OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p + 4000));
	CHECK(owner == g_ctx[0]);
	CHECK(holds(p, 8192, 77));
	/* byte 40 changed: the real driver maps it all the same, that byte being
	 * one it does not read (docs/facts-cuda.md, measured) */
	CUipcMemHandle h40 = h;
	CUdeviceptr p40 = 0;
	h40.reserved[40] ^= 0x5a;
	OK(cuIpcOpenMemHandle_v2(&p40, h40, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CHECK(p40 == p);
	OK(cuIpcCloseMemHandle(p40));
	OK(cuMemsetD8_v2(p + 8000, 0xee, 192));
	EXPECT(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE); /* imports are closed, not freed */
	EXPECT(cuIpcCloseMemHandle(p + 1), CUDA_ERROR_INVALID_VALUE);
	/* another device's context: a second mapping at another address, as
	 * measured on H100s; counted apart from the first */
	CUdeviceptr q = 0, q2 = 0;
	OK(cuCtxSetCurrent(g_ctx[1]));
	OK(cuIpcOpenMemHandle_v2(&q, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CHECK(q && q != p);
	OK(cuIpcOpenMemHandle_v2(&q2, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CHECK(q2 == q);
	CHECK(holds(q, 8000, 77));
	OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, q));
	CHECK(ord == 1); /* device 1's context: its device, here the exporter's too */
	OK(cuIpcCloseMemHandle(q));
	OK(cuIpcCloseMemHandle(q));
	EXPECT(cuIpcCloseMemHandle(q), CUDA_ERROR_INVALID_VALUE);
	/* a second context of device 1 (cuCtxCreate): a mapping of its own */
	CUcontext made;
	CUdeviceptr m = 0;
	OK(cuCtxCreate_v2(&made, 0, 1));
	OK(cuIpcOpenMemHandle_v2(&m, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CHECK(m && m != q);
	OK(cuIpcCloseMemHandle(m));
	OK(cuCtxDestroy_v2(made));
	EXPECT(cuCtxDestroy_v2(made), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuCtxDestroy_v2(g_ctx[1]), CUDA_ERROR_INVALID_CONTEXT); /* a primary one */
	/* the lazy flag enabled device 0's access to device 1 (the exporter's):
	 * an explicit enable now is "already enabled" */
	OK(cuCtxSetCurrent(g_ctx[0]));
	EXPECT(cuCtxEnablePeerAccess(g_ctx[1], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	OK(cuIpcCloseMemHandle(p));
	OK(cuIpcCloseMemHandle(p));
	EXPECT(cuIpcCloseMemHandle(p), CUDA_ERROR_INVALID_VALUE);
	OK(cuIpcOpenEventHandle(&ev, eh));
	OK(cuEventQuery(ev));
	OK(cuEventDestroy_v2(ev));
	OK(cuIpcOpenMemHandle_v2(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)); /* left open at exit */
}

static void ipc_stale_child(const char *memhex)
{
	CUipcMemHandle h = {{0}};
	CUdeviceptr p = 0;

	init_contexts();
	CHECK(from_hex(memhex, &h, sizeof(h)) == 0);
	EXPECT(cuIpcOpenMemHandle_v2(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_HANDLE);
}

static void test_ipc_cross_process(void)
{
	CUdeviceptr p = alloc_on(1, 8192);
	CUipcMemHandle h;
	CUipcEventHandle eh;
	CUevent ev = NULL;
	char memhex[2 * sizeof(h) + 1], evhex[2 * sizeof(eh) + 1];
	unsigned char tail[192];
	struct child c = {.argv = {"sim_selftest", "--ipc-child", memhex, evhex}};
	struct child stale = {.argv = {"sim_selftest", "--ipc-stale", memhex}};
	int ok = 1;

	fill(p, 8192, 77);
	OK(cuIpcGetMemHandle(&h, p + 256));
	OK(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	OK(cuIpcGetEventHandle(&eh, ev));
	to_hex(&h, sizeof(h), memhex);
	to_hex(&eh, sizeof(eh), evhex);
	run_child(&c, __LINE__);
	OK(cuMemcpyDtoH_v2(tail, p + 8000, sizeof(tail))); /* the child's writes are seen here */
	for (size_t i = 0; i < sizeof(tail); i++)
		ok &= tail[i] == 0xee;
	CHECK(ok);
	CHECK(holds(p, 8000, 77));
	OK(cuMemFree_v2(p));
	run_child(&stale, __LINE__); /* exporter freed it: INVALID_HANDLE */
	OK(cuEventDestroy_v2(ev));
}

/* ======================================================================== */
/* virtual memory, pools, batch prefetch (cuda_sim_vmm.c)                    */

#define GRAN ((size_t)2 << 20)

static CUmemAllocationProp vmm_prop(int dev, unsigned types)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.requestedHandleTypes = (CUmemAllocationHandleType)types;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	return p;
}

static CUmemAccessDesc access_to(int dev, CUmemAccess_flags f)
{
	CUmemAccessDesc d = {{CU_MEM_LOCATION_TYPE_DEVICE, dev}, f};

	return d;
}

static void test_vmm_local(void)
{
	CUmemAllocationProp prop = vmm_prop(1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), got, bad;
	CUmemGenericAllocationHandle h = 0, h2 = 0;
	CUmemAccessDesc acc[2] = {access_to(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
	                          access_to(1, CU_MEM_ACCESS_FLAGS_PROT_READWRITE)};
	CUmemAccessDesc bad_acc = access_to(9, CU_MEM_ACCESS_FLAGS_PROT_READ);
	CUdeviceptr va = 0, other = alloc_on(0, 4096), base = 0;
	size_t gran = 0, size = 0;
	int dev = -1, fd = -1;
	CUipcMemHandle ih;

	OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CHECK(gran == GRAN);
	EXPECT(cuMemCreate(&h, GRAN + 4096, &prop, 0), CUDA_ERROR_INVALID_VALUE); /* not a multiple */
	EXPECT(cuMemCreate(&h, GRAN, &prop, 1), CUDA_ERROR_INVALID_VALUE);        /* flags */
	bad = vmm_prop(9, 0);
	EXPECT(cuMemCreate(&h, GRAN, &bad, 0), CUDA_ERROR_INVALID_DEVICE);
	bad = vmm_prop(0, CU_MEM_HANDLE_TYPE_FABRIC);
	EXPECT(cuMemCreate(&h, GRAN, &bad, 0), CUDA_ERROR_NOT_SUPPORTED);
	OK(cuMemCreate(&h, 2 * GRAN, &prop, 0));
	OK(cuMemGetAllocationPropertiesFromHandle(&got, h));
	CHECK(got.location.id == 1 && got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	OK(cuMemAddressReserve(&va, 4 * GRAN, 0, 0, 0));
	CHECK(va % GRAN == 0);
	EXPECT(cuMemMap(va, 2 * GRAN, 0, h, 0), CUDA_SUCCESS);
	EXPECT(cuMemMap(va, 2 * GRAN, 0, h, 0), CUDA_ERROR_INVALID_VALUE);               /* already mapped */
	EXPECT(cuMemMap(va + 2 * GRAN, 2 * GRAN, GRAN, h, 0), CUDA_ERROR_INVALID_VALUE); /* offset */
	EXPECT(cuMemMap(other, GRAN, 0, h, 0), CUDA_ERROR_INVALID_VALUE);                /* not reserved */
	EXPECT(cuMemSetAccess(va, 2 * GRAN, &bad_acc, 1), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuMemSetAccess(va, 4 * GRAN, acc, 2), CUDA_ERROR_INVALID_VALUE); /* half unmapped */
	OK(cuMemSetAccess(va, 2 * GRAN, acc, 2));
	OK(cuPointerGetAttribute(&dev, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 100));
	CHECK(dev == 1);
	/* no allocation range for a mapping: NOT_FOUND, as on the H200s */
	EXPECT(cuMemGetAddressRange_v2(&base, &size, va + GRAN), CUDA_ERROR_NOT_FOUND);
	fill(va + GRAN, 4096, 5);
	OK(cuMemcpyPeer(other, g_ctx[0], va + GRAN, g_ctx[1], 4096));
	CHECK(holds(other, 4096, 5));
	/* legacy IPC and cuMemFree refuse a VMM range */
	EXPECT(cuIpcGetMemHandle(&ih, va), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemFree_v2(va), CUDA_ERROR_INVALID_VALUE);
	/* export: only the type it was created for */
	EXPECT(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
	/* import in the same process: a second handle to the same bytes */
	OK(cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)fd,
	                                  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	EXPECT(cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)0,
	                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_FABRIC),
	       CUDA_ERROR_NOT_SUPPORTED);
	OK(cuMemMap(va + 2 * GRAN, 2 * GRAN, 0, h2, 0));
	CHECK(holds(va + 2 * GRAN + GRAN, 4096, 5));
	OK(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)(va + 3 * GRAN)));
	OK(cuMemRelease(h2));
	EXPECT(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)other), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemUnmap(va + GRAN, GRAN), CUDA_ERROR_INVALID_VALUE);    /* part of a mapping */
	EXPECT(cuMemAddressFree(va, 4 * GRAN), CUDA_ERROR_INVALID_VALUE); /* still mapped */
	OK(cuMemUnmap(va + 2 * GRAN, 2 * GRAN));
	OK(cuMemRelease(h2));
	OK(cuMemRelease(h)); /* the memory stays while it is mapped */
	CHECK(holds(va + GRAN, 4096, 5));
	EXPECT(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemUnmap(va, 2 * GRAN));
	OK(cuMemAddressFree(va, 4 * GRAN));
	close(fd);
	OK(cuMemFree_v2(other));
}

/* The child imports the parent's VMM fd and pool fd (inherited over exec). */
static void vmm_child(const char *vmmfd, const char *poolfd, const char *ptrhex)
{
	CUmemGenericAllocationHandle h = 0;
	CUmemAccessDesc acc = access_to(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	CUmemoryPool pool = NULL;
	CUmemPoolPtrExportData data;
	CUdeviceptr va = 0, p = 0;
	unsigned char mark[64];

	memset(mark, 0xab, sizeof(mark));
	init_contexts();
	OK(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)atoi(vmmfd),
	                                  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	OK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	OK(cuMemMap(va, GRAN, 0, h, 0));
	OK(cuMemSetAccess(va, GRAN, &acc, 1));
	CHECK(holds(va, 4096, 21));
	OK(cuMemcpyHtoD_v2(va + 4096, mark, sizeof(mark)));
	OK(cuMemUnmap(va, GRAN));
	OK(cuMemRelease(h));
	OK(cuMemAddressFree(va, GRAN));
	/* pool */
	CHECK(from_hex(ptrhex, &data, sizeof(data)) == 0);
	OK(cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)atoi(poolfd),
	                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT(cuMemAllocFromPoolAsync(&p, 4096, pool, NULL), CUDA_ERROR_INVALID_VALUE); /* imported pool */
	OK(cuMemPoolImportPointer(&p, pool, &data));
	CHECK(holds(p, 4096, 33));
	OK(cuMemcpyHtoD_v2(p + 4096, mark, sizeof(mark)));
	OK(cuMemFree_v2(p));
}

static void test_vmm_pool_cross_process(void)
{
	CUmemAllocationProp prop = vmm_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemAccessDesc acc = access_to(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	CUmemPoolProps pp;
	CUmemoryPool pool = NULL, dflt = NULL, got = NULL;
	CUmemPoolPtrExportData data;
	CUmemGenericAllocationHandle h = 0;
	CUdeviceptr va = 0, p = 0, q = 0;
	CUipcMemHandle ih;
	char vfd[16], pfd[16], hex[2 * sizeof(data) + 1];
	struct child c = {.argv = {"sim_selftest", "--vmm-child", vfd, pfd, hex}};
	unsigned char back[64];
	int fd = -1, pool_fd = -1, ok = 1, capable = -1;

	OK(cuMemCreate(&h, GRAN, &prop, 0));
	OK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	OK(cuMemMap(va, GRAN, 0, h, 0));
	OK(cuMemSetAccess(va, GRAN, &acc, 1));
	fill(va, 4096, 21);
	OK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	fcntl(fd, F_SETFD, 0); /* the child inherits it over exec */

	memset(&pp, 0, sizeof(pp));
	pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	pp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	pp.location.id = 0;
	OK(cuMemPoolCreate(&pool, &pp));
	OK(cuMemPoolSetAccess(pool, &acc, 1));
	OK(cuMemAllocFromPoolAsync(&p, 8192, pool, NULL));
	OK(cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
	CHECK(got == pool);
	OK(cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p));
	CHECK(capable == 0);
	fill(p, 4096, 33);
	/* legacy IPC of pool memory: INVALID_VALUE (cudarc#521, ucx#10065) */
	EXPECT(cuIpcGetMemHandle(&ih, p), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemAllocAsync(&q, 4096, NULL));
	OK(cuDeviceGetDefaultMemPool(&dflt, 0));
	OK(cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, q));
	CHECK(got == dflt);
	EXPECT(cuIpcGetMemHandle(&ih, q), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemPoolExportPointer(&data, q), CUDA_ERROR_INVALID_VALUE); /* default pool: not shareable */
	EXPECT(cuMemPoolExportToShareableHandle(&pool_fd, dflt, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemPoolDestroy(dflt), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemPoolExportToShareableHandle(&pool_fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	fcntl(pool_fd, F_SETFD, 0);
	OK(cuMemPoolExportPointer(&data, p));
	snprintf(vfd, sizeof(vfd), "%d", fd);
	snprintf(pfd, sizeof(pfd), "%d", pool_fd);
	to_hex(&data, sizeof(data), hex);
	run_child(&c, __LINE__);
	OK(cuMemcpyDtoH_v2(back, va + 4096, sizeof(back))); /* the child's writes, both */
	for (size_t i = 0; i < sizeof(back); i++)
		ok &= back[i] == 0xab;
	OK(cuMemcpyDtoH_v2(back, p + 4096, sizeof(back)));
	for (size_t i = 0; i < sizeof(back); i++)
		ok &= back[i] == 0xab;
	CHECK(ok);
	close(fd);
	close(pool_fd);
	OK(cuMemFree_v2(q));
	OK(cuMemFreeAsync(p, NULL));
	OK(cuMemPoolDestroy(pool));
	EXPECT(cuMemAllocFromPoolAsync(&p, 4096, pool, NULL), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemUnmap(va, GRAN));
	OK(cuMemRelease(h));
	OK(cuMemAddressFree(va, GRAN));
}

/* cuDeviceGetP2PAtomicCapabilities (13.0): what cuda.h says it returns. */
static void test_p2p_atomics(void)
{
	typedef CUresult (*caps_fn)(unsigned int *, const CUatomicOperation *, unsigned int, CUdevice,
	                            CUdevice);
	caps_fn f = (caps_fn)sym("cuDeviceGetP2PAtomicCapabilities");
	CUatomicOperation ops[2] = {CU_ATOMIC_OPERATION_INTEGER_ADD, CU_ATOMIC_OPERATION_FLOAT_ADD};
	CUatomicOperation bad[1] = {CU_ATOMIC_OPERATION_FLOAT_MAX + 1};
	unsigned int caps[2] = {0, 0};

	CHECK(f != NULL);
	if (!f)
		return;
	OK(f(caps, ops, 2, 0, 1));
	CHECK(caps[0] & CU_ATOMIC_CAPABILITY_SIGNED);
	CHECK((caps[1] & CU_ATOMIC_CAPABILITY_SCALAR_32) && !(caps[1] & CU_ATOMIC_CAPABILITY_SIGNED));
	EXPECT(f(caps, ops, 2, 0, 0), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(f(caps, ops, 2, 0, 99), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(f(NULL, ops, 2, 0, 1), CUDA_ERROR_INVALID_VALUE);
	EXPECT(f(caps, ops, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
	EXPECT(f(caps, bad, 1, 0, 1), CUDA_ERROR_INVALID_VALUE);
}

static void test_batch_prefetch(void)
{
	typedef CUresult (*batch_fn)(CUdeviceptr *, size_t *, size_t, CUmemLocation *, size_t *, size_t,
	                             unsigned long long, CUstream);
	batch_fn b = (batch_fn)sym("cuMemPrefetchBatchAsync");
	batch_fn bp = (batch_fn)sym("cuMemPrefetchBatchAsync_ptsz");
	batch_fn d = (batch_fn)sym("cuMemDiscardAndPrefetchBatchAsync");
	CUdeviceptr m = alloc_managed(3 * 4096), dev = alloc_on(0, 4096);
	CUdeviceptr ptrs[3] = {m, m + 4096, m + 8192};
	size_t sizes[3] = {4096, 4096, 4096}, idx[2] = {0, 2}, bad_idx[2] = {1, 2};
	CUmemLocation locs[2] = {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, {CU_MEM_LOCATION_TYPE_HOST, 0}};
	CUstream s = NULL;
	int where = -1;

	CHECK(b && bp && d);
	if (!b || !bp || !d)
		return;
	OK(cuStreamCreate(&s, 0));
	OK(b(ptrs, sizes, 3, locs, idx, 2, 0, s));
	OK(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m + 4096, 4096));
	CHECK(where == 1);
	OK(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m + 8192, 4096));
	CHECK(where == CU_DEVICE_CPU);
	EXPECT(b(ptrs, sizes, 3, locs, idx, 2, 0, NULL), CUDA_ERROR_INVALID_VALUE);  /* legacy NULL stream */
	OK(bp(ptrs, sizes, 3, locs, idx, 2, 0, NULL));                               /* per-thread: fine */
	EXPECT(b(ptrs, sizes, 3, locs, bad_idx, 2, 0, s), CUDA_ERROR_INVALID_VALUE); /* idx[0] != 0 */
	EXPECT(b(ptrs, sizes, 3, locs, idx, 2, 1, s), CUDA_ERROR_INVALID_VALUE);     /* flags */
	EXPECT(b(ptrs, sizes, 1, locs, idx, 2, 0, s), CUDA_ERROR_INVALID_VALUE);     /* nlocs > count */
	ptrs[1] = dev;
	EXPECT(d(ptrs, sizes, 3, locs, idx, 2, 0, s), CUDA_ERROR_INVALID_VALUE); /* not managed */
	OK(cuMemFree_v2(dev));
	OK(cuMemFree_v2(m));
	OK(cuStreamDestroy_v2(s));
}

/* ======================================================================== */
/* cuGetProcAddress (docs/facts-cuda.md, "How every runtime reaches the driver") */

typedef CUresult (*getproc_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* Every cu* export: the query that must reach it, and whether the legacy
 * (11.8) build has it. */
struct export
{
	const char *sym, *api;
	int version, flags, legacy;
};

static const struct export g_exports[] = {
    {"cuGetErrorString", "cuGetErrorString", 6000, 0, 1},
    {"cuGetErrorName", "cuGetErrorName", 6000, 0, 1},
    {"cuInit", "cuInit", 2000, 0, 1},
    {"cuDriverGetVersion", "cuDriverGetVersion", 2020, 0, 1},
    {"cuDeviceGet", "cuDeviceGet", 2000, 0, 1},
    {"cuDeviceGetCount", "cuDeviceGetCount", 2000, 0, 1},
    {"cuDeviceGetName", "cuDeviceGetName", 2000, 0, 1},
    {"cuDeviceTotalMem_v2", "cuDeviceTotalMem", 3020, 0, 1},
    {"cuDeviceGetAttribute", "cuDeviceGetAttribute", 2000, 0, 1},
    {"cuDeviceGetUuid", "cuDeviceGetUuid", 9020, 0, 1},
    {"cuDeviceGetUuid_v2", "cuDeviceGetUuid", 11040, 0, 1},
    {"cuDeviceGetPCIBusId", "cuDeviceGetPCIBusId", 4010, 0, 1},
    {"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", 7000, 0, 1},
    {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease", 7000, 0, 1},
    {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", 11000, 0, 1},
    {"cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset", 7000, 0, 1},
    {"cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset", 11000, 0, 1},
    {"cuDevicePrimaryCtxGetState", "cuDevicePrimaryCtxGetState", 7000, 0, 1},
    {"cuCtxPushCurrent", "cuCtxPushCurrent", 2000, 0, 1},
    {"cuCtxPushCurrent_v2", "cuCtxPushCurrent", 4000, 0, 1},
    {"cuCtxPopCurrent", "cuCtxPopCurrent", 2000, 0, 1},
    {"cuCtxPopCurrent_v2", "cuCtxPopCurrent", 4000, 0, 1},
    {"cuCtxSetCurrent", "cuCtxSetCurrent", 4000, 0, 1},
    {"cuCtxGetCurrent", "cuCtxGetCurrent", 4000, 0, 1},
    {"cuCtxGetDevice", "cuCtxGetDevice", 2000, 0, 1},
    {"cuCtxGetDevice_v2", "cuCtxGetDevice", 13000, 0, 0},
    {"cuCtxSynchronize", "cuCtxSynchronize", 2000, 0, 1},
    {"cuCtxSynchronize_v2", "cuCtxSynchronize", 13000, 0, 0},
    {"cuCtxCreate", "cuCtxCreate", 2000, 0, 1},
    {"cuCtxCreate_v2", "cuCtxCreate", 3020, 0, 1},
    {"cuCtxCreate_v4", "cuCtxCreate", 12050, 0, 0},
    {"cuCtxDestroy", "cuCtxDestroy", 2000, 0, 1},
    {"cuCtxDestroy_v2", "cuCtxDestroy", 4000, 0, 1},
    {"cuMemAlloc_v2", "cuMemAlloc", 3020, 0, 1},
    {"cuMemFree", "cuMemFree", 2000, 0, 1},
    {"cuMemFree_v2", "cuMemFree", 3020, 0, 1},
    {"cuMemFreeAsync", "cuMemFreeAsync", 11020, 0, 1},
    {"cuMemFreeAsync_ptsz", "cuMemFreeAsync", 11020, 2, 1},
    {"cuMemGetAddressRange_v2", "cuMemGetAddressRange", 3020, 0, 1},
    {"cuMemcpyHtoD_v2", "cuMemcpyHtoD", 3020, 0, 1},
    {"cuMemcpyHtoD_v2_ptds", "cuMemcpyHtoD", 7000, 2, 1},
    {"cuMemcpyDtoH_v2", "cuMemcpyDtoH", 3020, 0, 1},
    {"cuMemcpyDtoH_v2_ptds", "cuMemcpyDtoH", 7000, 2, 1},
    {"cuMemcpyDtoD_v2", "cuMemcpyDtoD", 3020, 0, 1},
    {"cuMemcpyDtoD_v2_ptds", "cuMemcpyDtoD", 7000, 2, 1},
    {"cuMemsetD8_v2", "cuMemsetD8", 3020, 0, 1},
    {"cuMemsetD8_v2_ptds", "cuMemsetD8", 7000, 2, 1},
    {"cuMemcpy", "cuMemcpy", 4000, 0, 1},
    {"cuMemcpy_ptds", "cuMemcpy", 7000, 2, 1},
    {"cuMemcpyAsync", "cuMemcpyAsync", 4000, 0, 1},
    {"cuMemcpyAsync_ptsz", "cuMemcpyAsync", 7000, 2, 1},
    {"cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync", 3020, 0, 1},
    {"cuMemcpyDtoDAsync_v2_ptsz", "cuMemcpyDtoDAsync", 7000, 2, 1},
    {"cuMemcpy2D_v2", "cuMemcpy2D", 3020, 0, 1},
    {"cuMemcpy2D_v2_ptds", "cuMemcpy2D", 7000, 2, 1},
    {"cuMemcpy2DAsync_v2", "cuMemcpy2DAsync", 3020, 0, 1},
    {"cuMemcpy2DAsync_v2_ptsz", "cuMemcpy2DAsync", 7000, 2, 1},
    {"cuMemcpy3D_v2", "cuMemcpy3D", 3020, 0, 1},
    {"cuMemcpy3D_v2_ptds", "cuMemcpy3D", 7000, 2, 1},
    {"cuMemcpy3DAsync_v2", "cuMemcpy3DAsync", 3020, 0, 1},
    {"cuMemcpy3DAsync_v2_ptsz", "cuMemcpy3DAsync", 7000, 2, 1},
    {"cuMemcpyBatchAsync", "cuMemcpyBatchAsync", 12080, 0, 0},
    {"cuMemcpyBatchAsync_ptsz", "cuMemcpyBatchAsync", 12080, 2, 0},
    {"cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync", 13000, 0, 0},
    {"cuMemcpyBatchAsync_v2_ptsz", "cuMemcpyBatchAsync", 13000, 2, 0},
    {"cuMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync", 12080, 0, 0},
    {"cuMemcpy3DBatchAsync_ptsz", "cuMemcpy3DBatchAsync", 12080, 2, 0},
    {"cuMemcpy3DBatchAsync_v2", "cuMemcpy3DBatchAsync", 13000, 0, 0},
    {"cuMemcpy3DBatchAsync_v2_ptsz", "cuMemcpy3DBatchAsync", 13000, 2, 0},
    {"cuMemAllocPitch_v2", "cuMemAllocPitch", 3020, 0, 1},
    {"cuPointerGetAttribute", "cuPointerGetAttribute", 4000, 0, 1},
    {"cuPointerGetAttributes", "cuPointerGetAttributes", 7000, 0, 1},
    {"cuStreamCreate", "cuStreamCreate", 2000, 0, 1},
    {"cuStreamDestroy", "cuStreamDestroy", 2000, 0, 1},
    {"cuStreamDestroy_v2", "cuStreamDestroy", 4000, 0, 1},
    {"cuStreamSynchronize", "cuStreamSynchronize", 2000, 0, 1},
    {"cuStreamSynchronize_ptsz", "cuStreamSynchronize", 7000, 2, 1},
    {"cuStreamQuery", "cuStreamQuery", 2000, 0, 1},
    {"cuStreamQuery_ptsz", "cuStreamQuery", 7000, 2, 1},
    {"cuEventCreate", "cuEventCreate", 2000, 0, 1},
    {"cuEventRecord", "cuEventRecord", 2000, 0, 1},
    {"cuEventRecord_ptsz", "cuEventRecord", 7000, 2, 1},
    {"cuEventQuery", "cuEventQuery", 2000, 0, 1},
    {"cuEventSynchronize", "cuEventSynchronize", 2000, 0, 1},
    {"cuEventElapsedTime", "cuEventElapsedTime", 2000, 0, 1},
    {"cuEventElapsedTime_v2", "cuEventElapsedTime", 12080, 0, 0},
    {"cuEventDestroy", "cuEventDestroy", 2000, 0, 1},
    {"cuEventDestroy_v2", "cuEventDestroy", 4000, 0, 1},
    {"cuDeviceCanAccessPeer", "cuDeviceCanAccessPeer", 4000, 0, 1},
    {"cuCtxEnablePeerAccess", "cuCtxEnablePeerAccess", 4000, 0, 1},
    {"cuCtxDisablePeerAccess", "cuCtxDisablePeerAccess", 4000, 0, 1},
    {"cuDeviceGetP2PAttribute", "cuDeviceGetP2PAttribute", 8000, 0, 1},
    {"cuMemcpyPeer", "cuMemcpyPeer", 4000, 0, 1},
    {"cuMemcpyPeer_ptds", "cuMemcpyPeer", 7000, 2, 1},
    {"cuMemcpyPeerAsync", "cuMemcpyPeerAsync", 4000, 0, 1},
    {"cuMemcpyPeerAsync_ptsz", "cuMemcpyPeerAsync", 7000, 2, 1},
    {"cuMemcpy3DPeer", "cuMemcpy3DPeer", 4000, 0, 1},
    {"cuMemcpy3DPeer_ptds", "cuMemcpy3DPeer", 7000, 2, 1},
    {"cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync", 4000, 0, 1},
    {"cuMemcpy3DPeerAsync_ptsz", "cuMemcpy3DPeerAsync", 7000, 2, 1},
    {"cuIpcGetEventHandle", "cuIpcGetEventHandle", 4010, 0, 1},
    {"cuIpcOpenEventHandle", "cuIpcOpenEventHandle", 4010, 0, 1},
    {"cuIpcGetMemHandle", "cuIpcGetMemHandle", 4010, 0, 1},
    {"cuIpcOpenMemHandle", "cuIpcOpenMemHandle", 4010, 0, 1},
    {"cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle", 11000, 0, 1},
    {"cuIpcCloseMemHandle", "cuIpcCloseMemHandle", 4010, 0, 1},
    {"cuMemAllocManaged", "cuMemAllocManaged", 6000, 0, 1},
    {"cuMemAdvise", "cuMemAdvise", 8000, 0, 1},
    {"cuMemAdvise_v2", "cuMemAdvise", 12020, 0, 0},
    {"cuMemPrefetchAsync", "cuMemPrefetchAsync", 8000, 0, 1},
    {"cuMemPrefetchAsync_ptsz", "cuMemPrefetchAsync", 8000, 2, 1},
    {"cuMemPrefetchAsync_v2", "cuMemPrefetchAsync", 12020, 0, 0},
    {"cuMemPrefetchAsync_v2_ptsz", "cuMemPrefetchAsync", 12020, 2, 0},
    {"cuMemRangeGetAttribute", "cuMemRangeGetAttribute", 8000, 0, 1},
    {"cuMemRangeGetAttributes", "cuMemRangeGetAttributes", 8000, 0, 1},
    {"cuStreamAttachMemAsync", "cuStreamAttachMemAsync", 6000, 0, 1},
    {"cuStreamAttachMemAsync_ptsz", "cuStreamAttachMemAsync", 7000, 2, 1},
    {"cuGetProcAddress", "cuGetProcAddress", 11030, 0, 1},
    {"cuGetProcAddress_v2", "cuGetProcAddress", 12000, 0, 0},
    {"cuMemAddressReserve", "cuMemAddressReserve", 10020, 0, 1},
    {"cuMemAddressFree", "cuMemAddressFree", 10020, 0, 1},
    {"cuMemCreate", "cuMemCreate", 10020, 0, 1},
    {"cuMemRelease", "cuMemRelease", 10020, 0, 1},
    {"cuMemMap", "cuMemMap", 10020, 0, 1},
    {"cuMemUnmap", "cuMemUnmap", 10020, 0, 1},
    {"cuMemSetAccess", "cuMemSetAccess", 10020, 0, 1},
    {"cuMemExportToShareableHandle", "cuMemExportToShareableHandle", 10020, 0, 1},
    {"cuMemImportFromShareableHandle", "cuMemImportFromShareableHandle", 10020, 0, 1},
    {"cuMemGetAllocationGranularity", "cuMemGetAllocationGranularity", 10020, 0, 1},
    {"cuMemGetAllocationPropertiesFromHandle", "cuMemGetAllocationPropertiesFromHandle", 10020, 0, 1},
    {"cuMemRetainAllocationHandle", "cuMemRetainAllocationHandle", 11000, 0, 1},
    {"cuDeviceGetDefaultMemPool", "cuDeviceGetDefaultMemPool", 11020, 0, 1},
    {"cuMemAllocAsync", "cuMemAllocAsync", 11020, 0, 1},
    {"cuMemAllocAsync_ptsz", "cuMemAllocAsync", 11020, 2, 1},
    {"cuMemPoolSetAccess", "cuMemPoolSetAccess", 11020, 0, 1},
    {"cuMemPoolCreate", "cuMemPoolCreate", 11020, 0, 1},
    {"cuMemPoolDestroy", "cuMemPoolDestroy", 11020, 0, 1},
    {"cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", 11020, 0, 1},
    {"cuMemAllocFromPoolAsync_ptsz", "cuMemAllocFromPoolAsync", 11020, 2, 1},
    {"cuMemPoolExportToShareableHandle", "cuMemPoolExportToShareableHandle", 11020, 0, 1},
    {"cuMemPoolImportFromShareableHandle", "cuMemPoolImportFromShareableHandle", 11020, 0, 1},
    {"cuMemPoolExportPointer", "cuMemPoolExportPointer", 11020, 0, 1},
    {"cuMemPoolImportPointer", "cuMemPoolImportPointer", 11020, 0, 1},
    {"cuDeviceGetP2PAtomicCapabilities", "cuDeviceGetP2PAtomicCapabilities", 13000, 0, 0},
    {"cuMemPrefetchBatchAsync", "cuMemPrefetchBatchAsync", 13000, 0, 0},
    {"cuMemPrefetchBatchAsync_ptsz", "cuMemPrefetchBatchAsync", 13000, 2, 0},
    {"cuMemDiscardAndPrefetchBatchAsync", "cuMemDiscardAndPrefetchBatchAsync", 13000, 0, 0},
    {"cuMemDiscardAndPrefetchBatchAsync_ptsz", "cuMemDiscardAndPrefetchBatchAsync", 13000, 2, 0},
};

#define NEXPORTS (sizeof(g_exports) / sizeof(g_exports[0]))

/* The name of the exported symbol at fn, which must also be what dlsym says. */
static const char *name_of(void *fn)
{
	Dl_info info;

	if (!fn || !dladdr(fn, &info) || !info.dli_sname || dlsym(RTLD_DEFAULT, info.dli_sname) != fn)
		return NULL;
	return info.dli_sname;
}

/* One query through the 4-argument cuGetProcAddress, and through _v2 when
 * the build has it: the symbol expected (NULL: not found, with status). */
static void expect_proc(const char *api, int version, cuuint64_t flags, const char *want, int status,
                        int line)
{
	getproc_v2_fn v2 = (getproc_v2_fn)sym("cuGetProcAddress_v2");
	void *fn = (void *)1;
	CUdriverProcAddressQueryResult st = -1;
	const char *got;
	CUresult rc;

	rc = cuGetProcAddress(api, &fn, version, flags);
	got = name_of(fn);
	check(want ? rc == CUDA_SUCCESS && got && strcmp(got, want) == 0 : rc == CUDA_ERROR_NOT_FOUND && !fn,
	      line, api);
	if (!v2)
		return;
	fn = (void *)1;
	rc = v2(api, &fn, version, flags, &st);
	got = name_of(fn);
	check(want ? rc == CUDA_SUCCESS && st == 0 && got && strcmp(got, want) == 0
	           : rc == CUDA_ERROR_NOT_FOUND && !fn && st == status,
	      line, api);
	/* symbolStatus may be NULL (cudart passes NULL: docs/facts-cuda.md) */
	check((v2(api, &fn, version, flags, NULL) == CUDA_SUCCESS) == (want != NULL), line, api);
}

#define PROC(api, ver, flags, want) expect_proc(api, ver, flags, want, 0, __LINE__)
#define NOPROC(api, ver, flags, status) expect_proc(api, ver, flags, NULL, status, __LINE__)
#define NOT_FOUND CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
#define TOO_OLD CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT

static void test_getproc_facts(void)
{
	void *fn;

	NOPROC("", 0, 0, NOT_FOUND);
	NOPROC("cuNoSuchFunction", 13000, 0, NOT_FOUND);
	NOPROC("cuMemAlloc_v2", 13000, 0, NOT_FOUND); /* names are api names, not symbols */
	PROC("cuInit", 2000, 0, "cuInit");
	PROC("cuGetProcAddress", 11030, 0, "cuGetProcAddress");
	PROC("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
	PROC("cuMemAdvise", 8000, 0, "cuMemAdvise");
	PROC("cuMemAdvise", 12020, 0, "cuMemAdvise_v2");
	PROC("cuMemAdvise", 12020, 2, "cuMemAdvise_v2"); /* no per-thread variant: the base */
	PROC("cuMemPrefetchAsync", 8000, 0, "cuMemPrefetchAsync");
	PROC("cuMemPrefetchAsync", 8000, 2, "cuMemPrefetchAsync_ptsz");
	PROC("cuMemPrefetchAsync", 12020, 0, "cuMemPrefetchAsync_v2");
	PROC("cuMemPrefetchAsync", 12020, 2, "cuMemPrefetchAsync_v2_ptsz");
	PROC("cuIpcOpenMemHandle", 4010, 0, "cuIpcOpenMemHandle");
	PROC("cuIpcOpenMemHandle", 11000, 0, "cuIpcOpenMemHandle_v2");
	PROC("cuMemcpyPeer", 4000, 0, "cuMemcpyPeer");
	PROC("cuMemcpyPeer", 7000, 2, "cuMemcpyPeer_ptds");
	PROC("cuMemcpyPeer", 12000, 1, "cuMemcpyPeer"); /* LEGACY_STREAM */
	NOPROC("cuMemcpyPeer", 4000, 2, TOO_OLD);
	PROC("cuMemcpyPeerAsync", 7000, 2, "cuMemcpyPeerAsync_ptsz");
	PROC("cuMemcpy3DPeer", 7000, 2, "cuMemcpy3DPeer_ptds");
	PROC("cuMemcpy3DPeerAsync", 7000, 2, "cuMemcpy3DPeerAsync_ptsz");
	PROC("cuStreamAttachMemAsync", 6000, 0, "cuStreamAttachMemAsync");
	PROC("cuStreamAttachMemAsync", 7000, 2, "cuStreamAttachMemAsync_ptsz");
	PROC("cuCtxEnablePeerAccess", 4000, 2, "cuCtxEnablePeerAccess");
	NOPROC("cuCtxEnablePeerAccess", 3020, 0, TOO_OLD);
	NOPROC("cuMemAllocManaged", 5050, 0, TOO_OLD);
	NOPROC("cuMemAlloc", 2000, 0, TOO_OLD); /* the 32-bit ABI is not simulated */
	PROC("cuMemAlloc", 3020, 0, "cuMemAlloc_v2");
	PROC("cuMemFree", 2000, 0, "cuMemFree");
	PROC("cuMemFree", 3020, 0, "cuMemFree_v2");
	PROC("cuMemAdvise", 99999, 0, "cuMemAdvise_v2"); /* above the driver: the newest */
	PROC("cuDeviceGetP2PAttribute", 8000, 0, "cuDeviceGetP2PAttribute");
	PROC("cuMemRangeGetAttributes", 8000, 0, "cuMemRangeGetAttributes");
	PROC("cuMemFreeAsync", 11020, 2, "cuMemFreeAsync_ptsz");
	EXPECT(cuGetProcAddress("cuInit", &fn, 13000, 4), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuGetProcAddress("cuInit", NULL, 13000, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuGetProcAddress(NULL, &fn, 13000, 0), CUDA_ERROR_INVALID_VALUE);
}

/* Every export is reachable, and calls through the table really are ours. */
static void test_getproc_exports(int legacy)
{
	for (size_t i = 0; i < NEXPORTS; i++) {
		const struct export *e = &g_exports[i];

		if (legacy && !e->legacy) {
			check(sym(e->sym) == NULL, __LINE__, e->sym);
			continue;
		}
		check(sym(e->sym) != NULL, __LINE__, e->sym);
		expect_proc(e->api, e->version, (cuuint64_t)e->flags, e->sym, 0, __LINE__);
	}
}

/* ======================================================================== */
/* threads                                                                   */

static void *thread_main(void *arg)
{
	CUcontext c = (CUcontext)1;
	CUdeviceptr p = 0;
	long dev = (long)arg % 2, bad = 0;

	bad += cuCtxGetCurrent(&c) != CUDA_SUCCESS || c != NULL; /* contexts are per thread */
	bad += cuCtxSetCurrent(g_ctx[dev]) != CUDA_SUCCESS;
	for (int i = 0; i < 200; i++) {
		unsigned char v = (unsigned char)i, w = 0;

		bad += cuMemAlloc_v2(&p, 4096 + (size_t)i) != CUDA_SUCCESS;
		bad += cuMemsetD8_v2(p, v, 4096) != CUDA_SUCCESS;
		bad += cuMemcpyDtoH_v2(&w, p + 4095, 1) != CUDA_SUCCESS || w != v;
		bad += cuMemFree_v2(p) != CUDA_SUCCESS;
	}
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t t[4];
	void *bad;

	for (long i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, thread_main, (void *)i) == 0);
	for (int i = 0; i < 4; i++) {
		CHECK(pthread_join(t[i], &bad) == 0);
		CHECK(bad == NULL);
	}
}

/* ======================================================================== */
/* environment (children)                                                    */

static void env_child(const char *which)
{
	int n = 0, can = -1, v = 0;
	CUcontext c[10];
	char bus[32];
	CUuuid u;

	if (strcmp(which, "hidden") == 0) {
		EXPECT(cuInit(0), CUDA_ERROR_NO_DEVICE);
		return;
	}
	OK(cuInit(0));
	OK(cuDeviceGetCount(&n));
	if (strcmp(which, "visible") == 0) {
		/* physical 2, then physical 0 by its UUID's first characters; "x" ends the list */
		CHECK(n == 2);
		OK(cuDeviceGetPCIBusId(bus, sizeof(bus), 0));
		CHECK(strcmp(bus, "0000:30:00.0") == 0);
		OK(cuDeviceGetUuid_v2(&u, 0));
		CHECK(u.bytes[5] == 2);
		OK(cuDeviceGetPCIBusId(bus, sizeof(bus), 1));
		CHECK(strcmp(bus, "0000:10:00.0") == 0);
		OK(cuDeviceGetName(bus, sizeof(bus), 1));
		CHECK(strstr(bus, "pwsim 0") != NULL);
		/* PWSIM_PEERS names physical devices: 0-1 and 2-3, so 2 and 0 are no peers */
		OK(cuDeviceCanAccessPeer(&can, 0, 1));
		CHECK(can == 0);
	} else if (strcmp(which, "swapped") == 0) {
		CHECK(n == 3);
		OK(cuDeviceGetUuid_v2(&u, 0));
		CHECK(u.bytes[5] == 1);
		OK(cuDeviceCanAccessPeer(&can, 0, 1)); /* physical 1 and 0 */
		CHECK(can == 1);
		OK(cuDeviceCanAccessPeer(&can, 0, 2)); /* physical 1 and 2 */
		CHECK(can == 0);
	} else if (strcmp(which, "pairs") == 0) {
		CHECK(n == 4);
		OK(cuDeviceCanAccessPeer(&can, 0, 1));
		CHECK(can == 1);
		OK(cuDeviceCanAccessPeer(&can, 3, 2));
		CHECK(can == 1);
		OK(cuDeviceCanAccessPeer(&can, 0, 2));
		CHECK(can == 0);
		OK(cuDeviceCanAccessPeer(&can, 1, 3));
		CHECK(can == 0);
		OK(cuDevicePrimaryCtxRetain(&c[0], 0));
		OK(cuDevicePrimaryCtxRetain(&c[2], 2));
		OK(cuCtxSetCurrent(c[0]));
		EXPECT(cuCtxEnablePeerAccess(c[2], 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
		OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 2));
		CHECK(v == 0);
	} else if (strcmp(which, "none") == 0) {
		CHECK(n == 2);
		OK(cuDeviceCanAccessPeer(&can, 0, 1));
		CHECK(can == 0);
	} else if (strcmp(which, "bad") == 0) {
		CHECK(n == 2);
		OK(cuDeviceCanAccessPeer(&can, 1, 0));
		CHECK(can == 1);
		OK(cuDriverGetVersion(&v));
		CHECK(v == PWSIM_MAX_VERSION);
	} else if (strcmp(which, "many") == 0) {
		CHECK(n == 10);
		for (int i = 0; i < 10; i++)
			OK(cuDevicePrimaryCtxRetain(&c[i], i));
		OK(cuCtxSetCurrent(c[0]));
		for (int i = 1; i <= 8; i++)
			OK(cuCtxEnablePeerAccess(c[i], 0));
		EXPECT(cuCtxEnablePeerAccess(c[9], 0), CUDA_ERROR_TOO_MANY_PEERS);
		OK(cuCtxSetCurrent(c[9])); /* device 0 is full too: either device counts */
		EXPECT(cuCtxEnablePeerAccess(c[0], 0), CUDA_ERROR_TOO_MANY_PEERS);
		OK(cuCtxSetCurrent(c[1])); /* 1->0 adds no new relation for device 0 */
		OK(cuCtxEnablePeerAccess(c[0], 0));
	} else if (strcmp(which, "v12000") == 0) {
		OK(cuDriverGetVersion(&v));
		CHECK(v == 12000);
		PROC("cuMemAdvise", 12020, 0, "cuMemAdvise");
		PROC("cuMemPrefetchAsync", 12020, 2, "cuMemPrefetchAsync_ptsz");
		PROC("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
		PROC("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime");
	} else {
		CHECK(!"unknown env case");
	}
}

static void test_env(void)
{
	struct child pairs = {.argv = {"sim_selftest", "--env-child", "pairs"},
	                      .env = {"PWSIM_DEVICES=4", "PWSIM_PEERS=0-1,2-3"}};
	struct child none = {.argv = {"sim_selftest", "--env-child", "none"}, .env = {"PWSIM_PEERS=none"}};
	struct child bad = {.argv = {"sim_selftest", "--env-child", "bad"},
	                    .env = {"PWSIM_DEVICES=65", "PWSIM_PEERS=0-0", "PWSIM_DRIVER_VERSION=13.0"},
	                    .capture = 1};
	struct child bad2 = {.argv = {"sim_selftest", "--env-child", "bad"},
	                     .env = {"PWSIM_DEVICES=x", "PWSIM_PEERS=0-1,", "PWSIM_DRIVER_VERSION=99999"},
	                     .capture = 1};
	struct child many = {.argv = {"sim_selftest", "--env-child", "many"}, .env = {"PWSIM_DEVICES=10"}};
	struct child v12 = {.argv = {"sim_selftest", "--env-child", "v12000"},
	                    .env = {"PWSIM_DRIVER_VERSION=12000"}};
	struct child visible = {.argv = {"sim_selftest", "--env-child", "visible"},
	                        .env = {"PWSIM_DEVICES=4", "PWSIM_PEERS=0-1,2-3",
	                                "CUDA_VISIBLE_DEVICES=2, GPU-7077736d-0000,x,1"}};
	struct child swapped = {.argv = {"sim_selftest", "--env-child", "swapped"},
	                        .env = {"PWSIM_DEVICES=3", "PWSIM_PEERS=0-1", "CUDA_VISIBLE_DEVICES=1,0,2"}};
	struct child hidden = {.argv = {"sim_selftest", "--env-child", "hidden"},
	                       .env = {"CUDA_VISIBLE_DEVICES=-1,0"}};

	run_child(&pairs, __LINE__);
	run_child(&none, __LINE__);
	run_child(&bad, __LINE__);
	CHECK(strstr(bad.err, "PWSIM_DEVICES='65'") && strstr(bad.err, "PWSIM_PEERS='0-0'") &&
	      strstr(bad.err, "PWSIM_DRIVER_VERSION='13.0'"));
	run_child(&bad2, __LINE__);
	CHECK(strstr(bad2.err, "PWSIM_DEVICES") && strstr(bad2.err, "PWSIM_PEERS") &&
	      strstr(bad2.err, "PWSIM_DRIVER_VERSION"));
	run_child(&many, __LINE__);
	run_child(&visible, __LINE__);
	run_child(&swapped, __LINE__);
	run_child(&hidden, __LINE__);
	if (PWSIM_MAX_VERSION >= 12020 && sym("cuGetProcAddress_v2"))
		run_child(&v12, __LINE__);
}

/* ======================================================================== */
/* the legacy (11.8) build                                                   */

static void legacy_child(void)
{
	int v = 0;

	OK(cuDriverGetVersion(&v));
	CHECK(v == 11080);
	CHECK(sym("cuGetProcAddress_v2") == NULL && sym("cuMemAdvise_v2") == NULL);
	CHECK(sym("cuMemPrefetchAsync_v2") == NULL && sym("cuMemPrefetchAsync_v2_ptsz") == NULL);
	PROC("cuGetProcAddress", 11030, 0, "cuGetProcAddress");
	PROC("cuGetProcAddress", 12000, 0, "cuGetProcAddress"); /* 11.8 has only the 4-arg one */
	PROC("cuMemAdvise", 12020, 0, "cuMemAdvise");
	PROC("cuMemPrefetchAsync", 12020, 2, "cuMemPrefetchAsync_ptsz");
	PROC("cuIpcOpenMemHandle", 11000, 0, "cuIpcOpenMemHandle_v2");
	test_getproc_exports(1);
	init_contexts();
	test_managed_facts();
}

static void test_legacy(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct child c = {.argv = {"sim_selftest", "--legacy-child"}};

	/* $(BUILD)/tests/sim_selftest -> $(BUILD)/sim/legacy */
	CHECK(n > 0);
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	*slash = 0;
	snprintf(dir, sizeof(dir), "LD_LIBRARY_PATH=%s/../sim/legacy", exe);
	c.env[0] = dir;
	run_child(&c, __LINE__);
}

/* ======================================================================== */
/* a preloaded library exporting the same names (-Bsymbolic)                 */

typedef CUresult (*memcpy_peer_fn)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
typedef CUresult (*advise_fn)(CUdeviceptr, size_t, CUmem_advise, CUdevice);

static void preload_child(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *own = lib ? dlsym(lib, "cuMemcpyPeer") : NULL,
	     *own_adv = lib ? dlsym(lib, "cuMemAdvise") : NULL;
	void *fn = NULL, *adv = NULL;

	init_contexts();
	CHECK(own && own != sym("cuMemcpyPeer") && own_adv && own_adv != sym("cuMemAdvise"));
	EXPECT(cuMemcpyPeer(0, g_ctx[1], 0, g_ctx[0], 0), CUDA_ERROR_UNKNOWN); /* the shim's */
	OK(cuGetProcAddress("cuMemcpyPeer", &fn, 4000, 0));
	OK(cuGetProcAddress("cuMemAdvise", &adv, 8000, 0));
	CHECK(fn == own && adv == own_adv);
	if (fn == own && adv == own_adv) {
		OK(((memcpy_peer_fn)fn)(0, g_ctx[1], 0, g_ctx[0], 0)); /* the simulator's */
		EXPECT(((advise_fn)adv)(0, 1, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE);
	}
}

static void test_preload(void)
{
	char exe[PATH_MAX], pre[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	/* gcc's ASan wants its runtime first; the shim is preloaded before it. */
	struct child c = {.argv = {"sim_selftest", "--preload-child"},
	                  .env = {pre, "ASAN_OPTIONS=verify_asan_link_order=0"}};

	CHECK(n > 0);
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	*slash = 0;
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s/sim_shim.so", exe);
	run_child(&c, __LINE__);
}

/* A process that loads the simulator: it removes the objects of this
 * user's processes that are gone. */
static void reap_child(void)
{
	OK(cuInit(0));
}

static int shm_exists(const char *name)
{
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* A killed process's objects are left in /dev/shm (its destructor did not
 * run); the next process to load the simulator removes them, as the driver
 * frees a dead process's memory — and only them. */
static void test_reap(void)
{
	struct child c = {.argv = {"sim_selftest", "--reap-child"}};
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	unsigned uid = (unsigned)getuid();
	char names[4][96];
	snprintf(names[0], sizeof names[0], "/pwsim.%u.%d.1", uid, (int)dead);          /* gone */
	snprintf(names[1], sizeof names[1], "/pwsim.%u.%d.999999", uid, (int)getpid()); /* running */
	snprintf(names[2], sizeof names[2], "/pwsim.%u.%d.1", uid + 1, (int)dead);      /* not ours */
	snprintf(names[3], sizeof names[3], "/pwsimx.%u.%d.1", uid, (int)dead);         /* not the sim's */
	for (int i = 0; i < 4; i++) {
		int fd = shm_open(names[i], O_RDWR | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
	}
	run_child(&c, __LINE__);
	CHECK(!shm_exists(names[0]));
	CHECK(shm_exists(names[1]) && shm_exists(names[2]) && shm_exists(names[3]));
	for (int i = 1; i < 4; i++)
		shm_unlink(names[i]);
}

/* ======================================================================== */

static int child_main(int argc, char **argv)
{
	const char *fd = argv[argc - 1];

	if (strcmp(argv[1], "--ipc-child") == 0 && argc == 5)
		ipc_child(argv[2], argv[3]);
	else if (strcmp(argv[1], "--ipc-stale") == 0 && argc == 4)
		ipc_stale_child(argv[2]);
	else if (strcmp(argv[1], "--vmm-child") == 0 && argc == 6)
		vmm_child(argv[2], argv[3], argv[4]);
	else if (strcmp(argv[1], "--env-child") == 0 && argc == 4)
		env_child(argv[2]);
	else if (strcmp(argv[1], "--legacy-child") == 0 && argc == 3)
		legacy_child();
	else if (strcmp(argv[1], "--preload-child") == 0 && argc == 3)
		preload_child();
	else if (strcmp(argv[1], "--reap-child") == 0 && argc == 3)
		reap_child();
	else
		return 2;
	return child_report(fd);
}

static int list_exports(int legacy)
{
	for (size_t i = 0; i < NEXPORTS; i++)
		if (!legacy || g_exports[i].legacy)
			printf("%s\n", g_exports[i].sym);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--list-exports") == 0)
		return list_exports(argc == 3 && strcmp(argv[2], "--legacy") == 0);
	if (argc >= 3)
		return child_main(argc, argv);
	/* The defaults are under test: the caller's PWSIM_* must not leak in
	 * (the simulator reads them at first use, which is below). */
	unsetenv("PWSIM_DEVICES");
	unsetenv("PWSIM_PEERS");
	unsetenv("PWSIM_DRIVER_VERSION");
	test_init();
	test_devices();
	test_identity();
	test_contexts();
	test_alloc_free();
	test_copies();
	test_implicit_copies();
	test_pointer_attrs();
	test_streams();
	test_events();
	test_peer_access();
	test_memcpy_peer();
	test_memcpy_3d_peer();
	test_managed_facts();
	test_managed_advice();
	test_managed_v2();
	test_managed_attach();
	test_ipc_local();
	test_ipc_cross_process();
	test_vmm_local();
	test_vmm_pool_cross_process();
	test_batch_prefetch();
	test_p2p_atomics();
	test_getproc_facts();
	test_getproc_exports(0);
	test_threads();
	test_env();
	test_legacy();
	test_reap();
	test_preload();
	printf("sim_selftest: %d passed, %d failed\n", g_pass, g_fail);
	return g_fail ? 1 : 0;
}

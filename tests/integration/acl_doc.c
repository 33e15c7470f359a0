/*
 * The ACL document's inter-device transfer (the ACL inter-device transfer document), in its own order, and
 * each documented mistake once, against the simulated libascendcl.so:
 *
 *   acl_doc list       the scenarios, one a line: NAME EXPECTED-RULE ("-": none) [ENV]
 *   acl_doc NAME       run one; exit 0 unless a call that must succeed failed
 *
 * tests/integration/rules_acl.sh runs each under peerwatch and checks that
 * the trace holds exactly the expected finding; acl_example.py is "example"
 * again, through Python's ctypes.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/acl.h"

aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t *deviceId);
aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);
aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMallocHost(void **hostPtr, size_t size);
aclError aclrtFreeHost(void *hostPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream);
aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                       aclrtMemcpyKind kind);
aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags);
aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
aclError aclrtIpcMemClose(const char *key);
aclError aclrtDeviceGetBareTgid(int32_t *pid);
aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                uint64_t flags);
aclError aclrtReleaseMemAddress(void *virPtr);
aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                             uint64_t flags);
aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags);
aclError aclrtUnmapMem(void *virPtr);
aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                         uint64_t flags, uint64_t *shareableHandle);
aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum);
aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                           aclrtDrvMemHandle *handle);
aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                           aclrtMemSharedHandleType shareType, void *shareableHandle);
aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                           int32_t *pid, size_t pidNum);
aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                             uint64_t flags, aclrtDrvMemHandle *handle);

static int failures;

/* A call the scenario needs to succeed. */
#define MUST(call)                                                               \
	do {                                                                     \
		aclError r_ = (call);                                            \
		if (r_ != ACL_SUCCESS) {                                         \
			fprintf(stderr, "acl_doc: %s returned %d\n", #call, r_); \
			failures++;                                              \
		}                                                                \
	} while (0)

#define SIZE 1024
static const int dev0 = 0, dev1 = 1;

/* ---- the document's example, line by line ---- */

static void example(void)
{
	int32_t can = 0;
	void *dev0_mem = NULL, *dev1_mem = NULL;
	MUST(aclInit(""));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	MUST(aclrtDeviceEnablePeerAccess(dev1, 0));
	MUST(aclrtMalloc(&dev0_mem, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY_P2P));
	MUST(aclrtSetDevice(dev1));
	MUST(aclrtDeviceEnablePeerAccess(dev0, 0));
	MUST(aclrtMalloc(&dev1_mem, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY_P2P));
	MUST(aclrtMemcpy(dev0_mem, SIZE, dev1_mem, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	MUST(aclrtMemcpy(dev1_mem, SIZE, dev0_mem, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	MUST(aclrtFree(dev1_mem));
	MUST(aclrtFree(dev0_mem));
	MUST(aclrtResetDevice(dev1));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtResetDevice(dev0));
	MUST(aclFinalize());
}

/* ---- building blocks of the mistakes ---- */

struct bufs {
	void *m0, *m1;
};

/* Query the pair, then enable from 0 to 1 and/or from 1 to 0. */
static void setup(bool on01, bool on10)
{
	int32_t can = 0;
	MUST(aclInit(NULL));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	MUST(aclrtSetDevice(dev0));
	if (on01)
		MUST(aclrtDeviceEnablePeerAccess(dev1, 0));
	MUST(aclrtSetDevice(dev1));
	if (on10)
		MUST(aclrtDeviceEnablePeerAccess(dev0, 0));
}

static struct bufs alloc2(aclrtMemMallocPolicy p0, size_t n0, aclrtMemMallocPolicy p1, size_t n1)
{
	struct bufs b = {NULL, NULL};
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&b.m0, n0, p0));
	MUST(aclrtSetDevice(dev1));
	MUST(aclrtMalloc(&b.m1, n1, p1));
	return b;
}

static void release(struct bufs b)
{
	MUST(aclrtFree(b.m0));
	MUST(aclrtFree(b.m1));
	MUST(aclFinalize());
}

/* "use two enable calls": the second one is missing. */
static void one_direction(void)
{
	setup(true, false);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

static void one_direction_async(void)
{
	setup(false, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpyAsync(b.m0, SIZE, b.m1, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
	release(b);
}

/* No enable call at all. */
static void no_enable(void)
{
	setup(false, false);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

/* "Allocate P2P memory": one buffer is not. */
static void p2p_policy(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_NORMAL_ONLY, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY_P2P, SIZE);
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

/* The same through ACL_MEMCPY_DEFAULT: the runtime finds the two devices from the pointers. */
static void p2p_policy_default_kind(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST, SIZE);
	MUST(aclrtMemcpy(b.m0, SIZE, b.m1, SIZE, ACL_MEMCPY_DEFAULT));
	release(b);
}

/* flags is reserved and must be 0. */
static void flags(void)
{
	int32_t can = 0;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	aclError r = aclrtDeviceEnablePeerAccess(dev1, 1);
	if (r != ACL_ERROR_FEATURE_UNSUPPORTED)
		failures++;
	MUST(aclFinalize());
}

/* peerDeviceId must differ from the current device. */
static void self(void)
{
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	if (aclrtDeviceEnablePeerAccess(dev0, 0) != ACL_ERROR_INVALID_PARAM)
		failures++;
	MUST(aclFinalize());
}

/* Enable without querying first. */
static void unqueried(void)
{
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtDeviceEnablePeerAccess(dev1, 0));
	MUST(aclFinalize());
}

/* Enabling 0 -> 1 again: no ACL page forbids it and no ACL error code
 * describes it (the simulator succeeds), so no finding. */
static void twice(void)
{
	setup(true, false);
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtDeviceEnablePeerAccess(dev1, 0));
	MUST(aclFinalize());
}

/* Disabling 1 -> 0, never enabled: no ACL page says what that does (the
 * simulator refuses it, a choice), so no finding. */
static void disable_not_enabled(void)
{
	setup(true, false);
	/* the current device is 1: 1 -> 0 was never enabled */
	if (aclrtDeviceDisablePeerAccess(dev0) == ACL_SUCCESS)
		failures++;
	MUST(aclFinalize());
}

/* Run under PWSIM_PEERS=none: the query says 0 and the program enables anyway. */
static void unsupported(void)
{
	int32_t can = -1;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	if (can != 0 || aclrtDeviceEnablePeerAccess(dev1, 0) == ACL_SUCCESS)
		failures++;
	MUST(aclFinalize());
}

static void out_of_bounds(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, 2 * SIZE);
	if (aclrtMemcpy(b.m1, 2 * SIZE, b.m0, 2 * SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS)
		failures++;
	release(b);
}

static void null_src(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	if (aclrtMemcpy(b.m1, SIZE, NULL, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS)
		failures++;
	release(b);
}

/* A reset drops the device's peer access: after it, only 1 -> 0 is enabled again. */
static void after_reset(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	MUST(aclrtResetDevice(dev1));
	MUST(aclrtSetDevice(dev1));
	MUST(aclrtDeviceEnablePeerAccess(dev0, 0));
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

/* "from the same thread or different threads in the same process": each
 * thread sets its own device and enables from it. */
static void *enable_from(void *arg)
{
	int d = *(const int *)arg;
	MUST(aclrtSetDevice(d));
	MUST(aclrtDeviceEnablePeerAccess(1 - d, 0));
	return NULL;
}

static void example_threads(void)
{
	int32_t can = 0;
	MUST(aclInit(NULL));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	pthread_t t0, t1;
	pthread_create(&t0, NULL, enable_from, (void *)&dev0);
	pthread_join(t0, NULL);
	pthread_create(&t1, NULL, enable_from, (void *)&dev1);
	pthread_join(t1, NULL);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpyAsync(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, NULL));
	MUST(aclrtMemcpy(b.m0, SIZE, b.m1, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

/* Copies on one device and to/from the host are no peer copies, whatever their policy. */
static void local_copies(void)
{
	static char host[SIZE];
	void *a = NULL, *b = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&a, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	MUST(aclrtMalloc(&b, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	MUST(aclrtMemcpy(a, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
	MUST(aclrtMemcpy(b, SIZE, a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	MUST(aclrtMemcpy(host, SIZE, b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
	MUST(aclrtFree(a));
	MUST(aclrtFree(b));
	MUST(aclFinalize());
}

/* The kind names the direction (ACL_MEMCPY_DEVICE_TO_DEVICE "Data exchange
 * within a device or between devices"): a copy between two device buffers
 * passed as host-to-device, which the runtime does not refuse. */
static void kind_device_as_host(void)
{
	void *a = NULL, *b = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&a, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	MUST(aclrtMalloc(&b, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	MUST(aclrtMemcpy(b, SIZE, a, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
	MUST(aclrtFree(a));
	MUST(aclrtFree(b));
	MUST(aclFinalize());
}

/* A host buffer passed as device-to-device: refused (the simulator: invalid param). */
static void kind_host_as_device(void)
{
	static char host[SIZE];
	void *a = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&a, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	if (aclrtMemcpy(a, SIZE, host, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS)
		failures++;
	MUST(aclrtFree(a));
	MUST(aclFinalize());
}

/* INNER_DEVICE_TO_DEVICE ("inner": within a device) between two devices. */
static void kind_inner_across(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
	release(b);
}

/* aclrtDeviceCanAccessPeer: "deviceId ... must be different from peerDeviceId" (100000). */
static void query_self(void)
{
	int32_t can = -1;
	MUST(aclInit(NULL));
	if (aclrtDeviceCanAccessPeer(&can, dev0, dev0) != ACL_ERROR_INVALID_PARAM)
		failures++;
	MUST(aclFinalize());
}

static void query_pair(void)
{
	int32_t can = -1;
	MUST(aclInit(NULL));
	MUST(aclrtDeviceCanAccessPeer(&can, dev1, dev0));
	MUST(aclFinalize());
}

/* A device id past the device count (107001). */
static void invalid_device(void)
{
	int32_t can = -1;
	MUST(aclInit(NULL));
	if (aclrtDeviceCanAccessPeer(&can, dev0, 9) != ACL_ERROR_RT_INVALID_DEVICEID)
		failures++;
	MUST(aclFinalize());
}

/* aclrtDeviceEnablePeerAccess enables "between the current device and a
 * specified device": with no aclrtSetDevice there is none (107002). */
static void enable_no_device(void)
{
	int32_t can = 0;
	MUST(aclInit(NULL));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	if (aclrtDeviceEnablePeerAccess(dev1, 0) != ACL_ERROR_RT_CONTEXT_NULL)
		failures++;
	MUST(aclFinalize());
}

static void enable_set_device(void)
{
	int32_t can = 0;
	MUST(aclInit(NULL));
	MUST(aclrtDeviceCanAccessPeer(&can, dev0, dev1));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtDeviceEnablePeerAccess(dev1, 0));
	MUST(aclFinalize());
}

/* Disabling from the current device (1) to itself: INVALID_PARAM. */
static void disable_self(void)
{
	setup(true, true);
	if (aclrtDeviceDisablePeerAccess(dev1) != ACL_ERROR_INVALID_PARAM)
		failures++;
	MUST(aclFinalize());
}

static void disable_enabled(void)
{
	setup(true, true);
	MUST(aclrtDeviceDisablePeerAccess(dev0));
	MUST(aclFinalize());
}

/* The document copies, then frees: a copy from memory aclrtFree freed. */
static void copy_freed(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtFree(b.m0));
	if (aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS)
		failures++;
	MUST(aclrtFree(b.m1));
	MUST(aclFinalize());
}

/* destMax, "Memory size in bytes in the destination address": count above
 * it (refused), or a destMax above what the destination holds. */
static void dest_max_count(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	if (aclrtMemcpy(b.m1, SIZE / 2, b.m0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS)
		failures++;
	release(b);
}

static void dest_max_alloc(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy((char *)b.m1 + SIZE / 2, SIZE, b.m0, SIZE / 2, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

static void dest_max_exact(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy((char *)b.m1 + SIZE / 2, SIZE / 2, b.m0, SIZE / 2, ACL_MEMCPY_DEVICE_TO_DEVICE));
	release(b);
}

/* aclrtMemcpyAsync: "does not support asynchronous memory copy within the
 * host" (ACL_ERROR_RT_FEATURE_NOT_SUPPORT); aclrtMemcpy does. */
static void async_host_to_host(void)
{
	static char h0[SIZE], h1[SIZE];
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	if (aclrtMemcpyAsync(h1, SIZE, h0, SIZE, ACL_MEMCPY_HOST_TO_HOST, NULL) !=
	    ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
		failures++;
	MUST(aclFinalize());
}

static void sync_host_to_host(void)
{
	static char h0[SIZE], h1[SIZE];
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMemcpy(h1, SIZE, h0, SIZE, ACL_MEMCPY_HOST_TO_HOST));
	MUST(aclFinalize());
}

/* A kind aclrtMemcpyKind does not define (refused); DEFAULT is one. */
static void kind_undefined(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	if (aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, (aclrtMemcpyKind)9) == ACL_SUCCESS)
		failures++;
	release(b);
}

static void kind_default(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	MUST(aclrtMemcpy(b.m1, SIZE, b.m0, SIZE, ACL_MEMCPY_DEFAULT));
	release(b);
}

/* CANN 8.0, aclrtMemcpyAsync: host memory "not allocated by aclrtMallocHost"
 * in a host-to-device (or device-to-host) copy: no error, but "an
 * unpredictable error may occur"; page-locked memory is what it asks for. */
static void async_copies(bool to_device, bool to_host, bool pinned)
{
	static char pageable[SIZE];
	void *host = pageable, *d = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	if (pinned)
		MUST(aclrtMallocHost(&host, SIZE));
	MUST(aclrtMalloc(&d, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	if (to_device)
		MUST(aclrtMemcpyAsync(d, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, NULL));
	if (to_host)
		MUST(aclrtMemcpyAsync(host, SIZE, d, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, NULL));
	MUST(aclrtFree(d));
	if (pinned)
		MUST(aclrtFreeHost(host));
	MUST(aclFinalize());
}

static void async_pageable_to_device(void)
{
	async_copies(true, false, false);
}

static void async_pageable_to_host(void)
{
	async_copies(false, true, false);
}

static void async_page_locked(void)
{
	async_copies(true, true, true);
}

/* CANN 8.0.0, aclrtMemcpy2d and aclrtMemcpy2dAsync: "Currently, only
 * memory copy of the ACL_MEMCPY_HOST_TO_DEVICE and ACL_MEMCPY_DEVICE_TO_HOST
 * types is supported."  16 rows of 32 bytes, 64 bytes apart on the host. */
static void copy_2d(void)
{
	static char host[16 * 64], back[16 * 64];
	void *d = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&d, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	MUST(aclrtMemcpy2d(d, 32, host, 64, 32, 16, ACL_MEMCPY_HOST_TO_DEVICE));
	MUST(aclrtMemcpy2dAsync(back, 64, d, 32, 32, 16, ACL_MEMCPY_DEVICE_TO_HOST, NULL));
	MUST(aclrtFree(d));
	MUST(aclFinalize());
}

/* Between two devices, peer access on both ways and P2P memory, as the
 * document asks of aclrtMemcpy: the 2D copy still has no such kind. */
static void copy_2d_between_devices(void)
{
	setup(true, true);
	struct bufs b = alloc2(ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P, SIZE);
	(void)aclrtMemcpy2d(b.m1, 32, b.m0, 32, 32, 16, ACL_MEMCPY_DEVICE_TO_DEVICE);
	release(b);
}

/* ---- IPC memory by key: process A exports, process B imports ----
 *
 * The importer is this program again (acl_doc ipc-child KEY RD WR STEPS),
 * started by the exporter, which names it on the trust list by its pid.
 * STEPS, one letter each: h waits for the exporter's word, s gives it one,
 * i imports the key (it must succeed), I imports it where the runtime may
 * refuse, c closes it (it must succeed), C closes it where the runtime may
 * refuse, d copies the imported memory into a buffer of its own device
 * (device to device, asynchronously, peer access asked for and enabled
 * first: the use the page's flow is for), a copies it with
 * ACL_MEMCPY_DEFAULT and H to the host, where the runtime may refuse. */

static const char *self_path = "/proc/self/exe"; /* main: argv[0] where it names a path */

struct child {
	pid_t pid;
	int to, from;
};

static void say(int fd)
{
	char c = 1;
	if (write(fd, &c, 1) != 1)
		exit(2);
}

static void hear(int fd)
{
	char c;
	if (read(fd, &c, 1) != 1)
		exit(2);
}

static struct child ipc_spawn(const char *key, const char *steps)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		exit(2);
	char fa[16], fb[16];
	snprintf(fa, sizeof fa, "%d", a[0]);
	snprintf(fb, sizeof fb, "%d", b[1]);
	pid_t pid = fork();
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		execl(self_path, self_path, "ipc-child", key, fa, fb, steps, (char *)NULL);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	return (struct child){pid, a[1], b[0]};
}

static void ipc_wait(struct child c)
{
	int st = 0;
	waitpid(c.pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "acl_doc: the importer failed (status 0x%x)\n", st);
		failures++;
	}
	close(c.to);
	close(c.from);
}

static int ipc_child(const char *key, int rd, int wr, const char *steps)
{
	void *p = NULL;
	int32_t me = 0;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev1));
	MUST(aclrtDeviceGetBareTgid(&me)); /* the id the exporter put on the list (CANN's step B.1) */
	for (const char *st = steps; *st; st++)
		switch (*st) {
		case 'h': hear(rd); break;
		case 's': say(wr); break;
		case 'i': MUST(aclrtIpcMemImportByKey(&p, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT)); break;
		case 'I': (void)aclrtIpcMemImportByKey(&p, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT); break;
		case 'd': {
			void *mine = NULL;
			int32_t can = 0;
			MUST(aclrtDeviceCanAccessPeer(&can, dev1, dev0));
			MUST(aclrtDeviceEnablePeerAccess(dev0, 0));
			MUST(aclrtMalloc(&mine, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
			MUST(aclrtMemcpyAsync(mine, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
			MUST(aclrtFree(mine));
			break;
		}
		case 'a': {
			void *mine = NULL;
			MUST(aclrtMalloc(&mine, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
			(void)aclrtMemcpy(mine, SIZE, p, SIZE, ACL_MEMCPY_DEFAULT);
			MUST(aclrtFree(mine));
			break;
		}
		case 'H': {
			static char host[SIZE];
			(void)aclrtMemcpy(host, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_HOST);
			break;
		}
		case 'c': MUST(aclrtIpcMemClose(key)); break;
		case 'C': (void)aclrtIpcMemClose(key); break;
		default: break;
		}
	MUST(aclFinalize());
	return failures ? 1 : 0;
}

/* The page's flow: A allocates and exports, puts B on the trust list; B
 * imports and closes; then A closes and frees. */
static void ipc_key(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&m, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	MUST(aclrtIpcMemGetExportKey(m, SIZE, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
	struct child c = ipc_spawn(key, "hidcs");
	int32_t pid = (int32_t)c.pid;
	MUST(aclrtIpcMemSetImportPid(key, &pid, 1));
	say(c.to);
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* The restrictions on the shared address in B, on another device than
 * A's: "内存复制时，不支持根据源内存地址指针、目的内存地址指针自动判断复制方向"
 * (a copy with ACL_MEMCPY_DEFAULT), "不支持Host->Device或Device->Host方向的
 * 内存复制操作" (a copy to the host); ipc-key is the near miss of both (a
 * device-to-device copy). */
static void *ipc_export(char *key);
/* A exports (trust list off), B runs steps (ending with its word), then A
 * closes the key and frees. */
static void ipc_share_with(const char *steps)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, steps);
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

static void ipc_copy_default(void)
{
	ipc_share_with("iacs");
}

static void ipc_copy_host(void)
{
	ipc_share_with("iHcs");
}

/* A's start for the mistakes: the key exported with the trust list off, so
 * that any process may import it. */
static void *ipc_export(char *key)
{
	void *m = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&m, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	MUST(aclrtIpcMemGetExportKey(m, SIZE, key, PW_ACL_IPC_KEY_LEN,
	                             ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	return m;
}

/* "len ... fixed at 65": 64, the key's characters without its NUL. */
static void ipc_key_length(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&m, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	(void)aclrtIpcMemGetExportKey(m, SIZE, key, PW_ACL_IPC_KEY_LEN - 1, 0);
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* Near miss: a key buffer larger than 65 bytes, len 65. */
static void ipc_key_length_buffer(void)
{
	char key[128];
	void *m = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&m, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	MUST(aclrtIpcMemGetExportKey(m, SIZE, key, PW_ACL_IPC_KEY_LEN, 0));
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* "ensure that the memory to be shared exists and cannot be freed in
 * advance": A frees it before B imports. */
static void ipc_stale(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	MUST(aclrtFree(m));
	struct child c = ipc_spawn(key, "Is");
	hear(c.from);
	ipc_wait(c);
	MUST(aclFinalize());
}

/* Near miss: A frees another allocation first; B imports while the shared
 * one lives. */
static void ipc_stale_other(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *other = NULL;
	void *m = ipc_export(key);
	MUST(aclrtMalloc(&other, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	MUST(aclrtFree(other));
	struct child c = ipc_spawn(key, "ics");
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* B imports; A frees while B still has the key open; B closes after. */
static void ipc_free_while_open(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, "ishc");
	hear(c.from);
	MUST(aclrtFree(m));
	say(c.to);
	ipc_wait(c);
	MUST(aclFinalize());
}

/* "Only after process B calls aclrtIpcMemClose ... can process A disable
 * IPC-based memory sharing": A closes the key while B has it open. */
static void ipc_close_while_open(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, "ishc");
	hear(c.from);
	MUST(aclrtIpcMemClose(key));
	say(c.to);
	ipc_wait(c);
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* Near miss: B closes, then A frees without a close of its own. */
static void ipc_free_after_close(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, "ics");
	hear(c.from);
	MUST(aclrtFree(m));
	ipc_wait(c);
	MUST(aclFinalize());
}

/* "Call aclrtIpcMemClose to disable IPC-based memory sharing": B ends with
 * the key open. */
static void ipc_leak(void)
{
	ipc_share_with("is");
}

/* "If the verification is enabled, call aclrtIpcMemSetImportPid
 * separately to add the ID of process B to the trustlist": A exports with
 * flags 0 and names nobody. */
static void ipc_import_pid(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = NULL;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMalloc(&m, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	MUST(aclrtIpcMemGetExportKey(m, SIZE, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
	struct child c = ipc_spawn(key, "Is");
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* Near miss: nobody named either, but the trust list is off. */
static void ipc_import_pid_off(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, "ics");
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* B closes a key it never imported: it is neither of the processes the
 * close page names. */
static void ipc_close_unknown(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, "Cs");
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* Near miss: B imports twice and closes twice. */
static void ipc_import_twice(void)
{
	char key[PW_ACL_IPC_KEY_LEN];
	void *m = ipc_export(key);
	struct child c = ipc_spawn(key, "iiccs");
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtIpcMemClose(key));
	MUST(aclrtFree(m));
	MUST(aclFinalize());
}

/* ---- physical memory shared by a shareable handle: A exports, B imports ----
 *
 * CANN's flow (aclrtMemExportToShareableHandle and the pages it links): A
 * allocates physical memory (aclrtMallocPhysical), maps it into a reserved
 * range, exports its handle, puts B on the trust list
 * (aclrtMemSetPidToShareableHandle, B's id from aclrtDeviceGetBareTgid);
 * B imports (aclrtMemImportFromShareableHandle), maps, uses, unmaps and
 * frees its handle (aclrtFreePhysical); then A does the same.  The
 * importer is this program again (acl_doc vmm-child SHAREABLE RD WR STEPS):
 * h waits for the exporter's word, s gives it one, i imports (it must
 * succeed), maps, checks the exporter's bytes and writes its own, I
 * imports where the runtime may refuse, f frees the handle of the last
 * import that succeeded, 2 makes the imports after it V2's
 * (aclrtMemImportFromShareableHandleV2, the handle by pointer, on the
 * thread's device). */

#define VMM_SIZE 4096

static int vmm_child(uint64_t sh, int rd, int wr, const char *steps)
{
	aclrtDrvMemHandle h = NULL;
	int32_t me = 0;
	bool v2 = false;
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev1));
	MUST(aclrtDeviceGetBareTgid(&me));
	for (const char *st = steps; *st; st++)
		switch (*st) {
		case 'h': hear(rd); break;
		case 's': say(wr); break;
		case '2': v2 = true; break;
		case 'i': {
			void *va = NULL;
			if (v2)
				MUST(aclrtMemImportFromShareableHandleV2(
				    &sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h));
			else
				MUST(aclrtMemImportFromShareableHandle(sh, dev1, &h));
			MUST(aclrtReserveMemAddress(&va, VMM_SIZE, 0, NULL, 0));
			MUST(aclrtMapMem(va, VMM_SIZE, 0, h, 0));
			if (va && ((unsigned char *)va)[10] != 0x5a) {
				fprintf(stderr, "acl_doc: the importer does not see the exporter's bytes\n");
				failures++;
			}
			if (va)
				((unsigned char *)va)[11] = 0xa5;
			MUST(aclrtUnmapMem(va));
			MUST(aclrtReleaseMemAddress(va));
			break;
		}
		case 'I': {
			aclrtDrvMemHandle h2 = NULL;
			if (aclrtMemImportFromShareableHandle(sh, dev1, &h2) == ACL_SUCCESS)
				MUST(aclrtFreePhysical(h2));
			break;
		}
		case 'f': MUST(aclrtFreePhysical(h)); break;
		default: break;
		}
	MUST(aclFinalize());
	return failures ? 1 : 0;
}

static struct child vmm_spawn(uint64_t sh, const char *steps)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		exit(2);
	char fa[16], fb[16], hs[32];
	snprintf(fa, sizeof fa, "%d", a[0]);
	snprintf(fb, sizeof fb, "%d", b[1]);
	snprintf(hs, sizeof hs, "%llu", (unsigned long long)sh);
	pid_t pid = fork();
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		execl(self_path, self_path, "vmm-child", hs, fa, fb, steps, (char *)NULL);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	return (struct child){pid, a[1], b[0]};
}

/* A's side: physical memory on device 0, mapped and written. */
struct vmm_mem {
	aclrtDrvMemHandle h;
	void *va;
	uint64_t sh;
};

static struct vmm_mem vmm_alloc(void)
{
	aclrtPhysicalMemProp prop = {ACL_MEM_HANDLE_TYPE_NONE,
	                             ACL_MEM_ALLOCATION_TYPE_PINNED,
	                             ACL_HBM_MEM_HUGE,
	                             {(uint32_t)dev0, ACL_MEM_LOCATION_TYPE_DEVICE},
	                             0};
	struct vmm_mem m = {NULL, NULL, 0};
	MUST(aclInit(NULL));
	MUST(aclrtSetDevice(dev0));
	MUST(aclrtMallocPhysical(&m.h, VMM_SIZE, &prop, 0));
	MUST(aclrtReserveMemAddress(&m.va, VMM_SIZE, 0, NULL, 0));
	MUST(aclrtMapMem(m.va, VMM_SIZE, 0, m.h, 0));
	if (m.va)
		((unsigned char *)m.va)[10] = 0x5a;
	return m;
}

static struct vmm_mem vmm_export(uint64_t flags)
{
	struct vmm_mem m = vmm_alloc();
	MUST(aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE, flags, &m.sh));
	return m;
}

/* A's end: unmap, release the range, free the handle (unless freed). */
static void vmm_end(struct vmm_mem *m, bool free_handle)
{
	MUST(aclrtUnmapMem(m->va));
	MUST(aclrtReleaseMemAddress(m->va));
	if (free_handle)
		MUST(aclrtFreePhysical(m->h));
	MUST(aclFinalize());
}

/* The flow with the trust list on: B is named before it imports. */
static void vmm_share(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DEFAULT);
	struct child c = vmm_spawn(m.sh, "hifs");
	int32_t pid = (int32_t)c.pid;
	MUST(aclrtMemSetPidToShareableHandle(m.sh, &pid, 1));
	say(c.to);
	hear(c.from);
	ipc_wait(c);
	if (m.va && ((unsigned char *)m.va)[11] != 0xa5) {
		fprintf(stderr, "acl_doc: the exporter does not see the importer's bytes\n");
		failures++;
	}
	vmm_end(&m, true);
}

/* A copies device memory into its mapped range and back, device to device:
 * the range is device memory (a near miss of copy.acl.kind). */
static void vmm_copy(void)
{
	struct vmm_mem m = vmm_alloc();
	void *buf = NULL;
	MUST(aclrtMalloc(&buf, SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	MUST(aclrtMemcpy(m.va, SIZE, buf, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	MUST(aclrtMemcpy(buf, SIZE, m.va, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	MUST(aclrtFree(buf));
	vmm_end(&m, true);
}

/* The flow with the V2 forms (CANN 8.5): the handle by pointer, of type
 * ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT (a uint64_t), the trust list on. */
static void vmm_share_v2(void)
{
	struct vmm_mem m = vmm_alloc();
	MUST(aclrtMemExportToShareableHandleV2(m.h, ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
	                                       ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &m.sh));
	struct child c = vmm_spawn(m.sh, "2hifs");
	int32_t pid = (int32_t)c.pid;
	MUST(aclrtMemSetPidToShareableHandleV2(&m.sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
	say(c.to);
	hear(c.from);
	ipc_wait(c);
	vmm_end(&m, true);
}

/* "aclrtMemImportFromShareableHandleV2 and aclrtMemExportToShareableHandleV2
 * cannot be called in the same process": A imports its own V2 export. */
static void vmm_same_process_v2(void)
{
	struct vmm_mem m = vmm_alloc();
	aclrtDrvMemHandle h = NULL;
	MUST(aclrtMemExportToShareableHandleV2(m.h, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
	                                       ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &m.sh));
	if (aclrtMemImportFromShareableHandleV2(&m.sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h) ==
	    ACL_SUCCESS)
		MUST(aclrtFreePhysical(h));
	vmm_end(&m, true);
}

/* "cannot be called in the same process": A imports its own export. */
static void vmm_same_process(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	aclrtDrvMemHandle h = NULL;
	if (aclrtMemImportFromShareableHandle(m.sh, dev0, &h) == ACL_SUCCESS)
		MUST(aclrtFreePhysical(h));
	vmm_end(&m, true);
}

/* "if this API is repeatedly called to import data, an error is reported":
 * B imports twice. */
static void vmm_import_twice(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	struct child c = vmm_spawn(m.sh, "iIfs");
	hear(c.from);
	ipc_wait(c);
	vmm_end(&m, true);
}

/* Near miss: B imports, frees its handle, imports again. */
static void vmm_reimport(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	struct child c = vmm_spawn(m.sh, "ififs");
	hear(c.from);
	ipc_wait(c);
	vmm_end(&m, true);
}

/* "one-to-many ... is not allowed": A exports one handle twice. */
static void vmm_export_twice(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	uint64_t again = 0;
	(void)aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE,
	                                      ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &again);
	vmm_end(&m, true);
}

/* "ensure that the physical memory to be shared exists and cannot be
 * released in advance": A frees before B imports. */
static void vmm_import_released(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	MUST(aclrtUnmapMem(m.va));
	MUST(aclrtFreePhysical(m.h));
	struct child c = vmm_spawn(m.sh, "Is");
	hear(c.from);
	ipc_wait(c);
	MUST(aclrtReleaseMemAddress(m.va));
	MUST(aclFinalize());
}

/* "Only the processes configured with the trustlist can use
 * shareableHandle": A exports with flags 0 and names nobody. */
static void vmm_import_pid(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DEFAULT);
	struct child c = vmm_spawn(m.sh, "Is");
	hear(c.from);
	ipc_wait(c);
	vmm_end(&m, true);
}

/* Near miss: nobody named either, but the trust list is off. */
static void vmm_import_pid_off(void)
{
	struct vmm_mem m = vmm_export(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	struct child c = vmm_spawn(m.sh, "ifs");
	hear(c.from);
	ipc_wait(c);
	vmm_end(&m, true);
}

static const struct scenario {
	const char *name, *rule, *env;
	void (*run)(void);
} scenarios[] = {
    {"example", "-", "", example},
    {"example-threads", "-", "", example_threads},
    {"local-copies", "-", "", local_copies},
    {"one-direction", "peer.enable.one-direction", "", one_direction},
    {"one-direction-async", "peer.enable.one-direction", "", one_direction_async},
    {"no-enable", "peer.enable.one-direction", "", no_enable},
    {"after-reset", "peer.enable.one-direction", "", after_reset},
    {"p2p-policy", "copy.acl.p2p-policy", "", p2p_policy},
    {"p2p-policy-default-kind", "copy.acl.p2p-policy", "", p2p_policy_default_kind},
    {"flags", "peer.enable.flags", "", flags},
    {"self", "peer.enable.self", "", self},
    {"unqueried", "peer.enable.unqueried", "", unqueried},
    {"twice", "-", "", twice},
    {"disable-not-enabled", "-", "", disable_not_enabled},
    {"query-self", "peer.query.self", "", query_self},
    {"query-pair", "-", "", query_pair},
    {"invalid-device", "peer.invalid-device", "", invalid_device},
    {"enable-no-device", "peer.enable.no-device", "", enable_no_device},
    {"enable-set-device", "-", "", enable_set_device},
    {"disable-self", "peer.disable.self", "", disable_self},
    {"disable-enabled", "-", "", disable_enabled},
    {"copy-freed", "copy.peer.freed", "", copy_freed},
    {"dest-max-count", "copy.acl.dest-max", "", dest_max_count},
    {"dest-max-alloc", "copy.acl.dest-max", "", dest_max_alloc},
    {"dest-max-exact", "-", "", dest_max_exact},
    {"async-host-to-host", "copy.acl.async-host-to-host", "", async_host_to_host},
    {"sync-host-to-host", "-", "", sync_host_to_host},
    {"kind-undefined", "copy.acl.kind-undefined", "", kind_undefined},
    {"kind-default", "-", "", kind_default},
    {"async-pageable", "copy.acl.async-pageable", "", async_pageable_to_device},
    {"async-pageable-to-host", "copy.acl.async-pageable", "", async_pageable_to_host},
    {"async-page-locked", "-", "", async_page_locked},
    {"copy-2d", "-", "", copy_2d},
    {"copy-2d-between-devices", "copy.acl.2d-kind", "", copy_2d_between_devices},
    {"unsupported", "peer.enable.unsupported", "PWSIM_PEERS=none", unsupported},
    {"out-of-bounds", "copy.peer.out-of-bounds", "", out_of_bounds},
    {"null", "copy.peer.null", "", null_src},
    {"kind-device-as-host", "copy.acl.kind", "", kind_device_as_host},
    {"kind-host-as-device", "copy.acl.kind", "", kind_host_as_device},
    {"kind-inner-across-devices", "copy.acl.kind", "", kind_inner_across},
    {"ipc-key", "-", "", ipc_key},
    {"ipc-copy-default", "copy.acl.ipc-direction", "", ipc_copy_default},
    {"ipc-copy-host", "copy.acl.ipc-host", "", ipc_copy_host},
    {"ipc-key-length", "ipc.acl.key-length", "", ipc_key_length},
    {"ipc-key-length-buffer", "-", "", ipc_key_length_buffer},
    {"ipc-stale", "ipc.open.stale", "", ipc_stale},
    {"ipc-stale-other", "-", "", ipc_stale_other},
    {"ipc-free-while-open", "ipc.free-while-open", "", ipc_free_while_open},
    {"ipc-close-while-open", "ipc.free-while-open", "", ipc_close_while_open},
    {"ipc-free-after-close", "-", "", ipc_free_after_close},
    {"ipc-leak", "ipc.leak", "", ipc_leak},
    {"ipc-import-twice", "-", "", ipc_import_twice},
    {"ipc-import-pid", "ipc.acl.import-pid", "", ipc_import_pid},
    {"ipc-close-unknown", "ipc.close.unknown", "", ipc_close_unknown},
    {"ipc-import-pid-off", "-", "", ipc_import_pid_off},
    {"vmm-share", "-", "", vmm_share},
    {"vmm-copy", "-", "", vmm_copy},
    {"vmm-share-v2", "-", "", vmm_share_v2},
    {"vmm-same-process-v2", "vmm.acl.same-process", "", vmm_same_process_v2},
    {"vmm-same-process", "vmm.acl.same-process", "", vmm_same_process},
    {"vmm-import-twice", "vmm.acl.one-to-one", "", vmm_import_twice},
    {"vmm-export-twice", "vmm.acl.one-to-one", "", vmm_export_twice},
    {"vmm-reimport", "-", "", vmm_reimport},
    {"vmm-import-released", "vmm.import.released", "", vmm_import_released},
    {"vmm-import-pid", "vmm.acl.import-pid", "", vmm_import_pid},
    {"vmm-import-pid-off", "-", "", vmm_import_pid_off},
};

int main(int argc, char **argv)
{
	size_t n = sizeof scenarios / sizeof *scenarios;
	if (strchr(argv[0], '/'))
		self_path = argv[0]; /* the importer's trace then names acl_doc, not "exe" */
	if (argc == 6 && !strcmp(argv[1], "ipc-child"))
		return ipc_child(argv[2], atoi(argv[3]), atoi(argv[4]), argv[5]);
	if (argc == 6 && !strcmp(argv[1], "vmm-child"))
		return vmm_child(strtoull(argv[2], NULL, 10), atoi(argv[3]), atoi(argv[4]), argv[5]);
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < n; i++)
			printf("%s %s %s\n", scenarios[i].name, scenarios[i].rule, scenarios[i].env);
		return 0;
	}
	for (size_t i = 0; argc == 2 && i < n; i++)
		if (!strcmp(argv[1], scenarios[i].name)) {
			scenarios[i].run();
			return failures ? 1 : 0;
		}
	fprintf(stderr, "usage: acl_doc list | acl_doc NAME\n");
	return 2;
}

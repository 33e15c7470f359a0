/*
 * Self-test of the simulated ACL runtime (build/sim/libascendcl.so): every
 * exported acl* function, the documented return codes (facts B4/B5), the
 * topology from the environment, the per-thread current device, recorded
 * policies and real bytes.  Prints "acl_selftest: N passed, M failed".
 *   acl_selftest [--list-exports]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerwatch/abi/acl.h"
#include "selftest_expected.h"

aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t *deviceId);
aclError aclrtGetDeviceCount(uint32_t *count);
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
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);
aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId);
const char *aclrtGetSocName(void);
aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags);
aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
aclError aclrtIpcMemClose(const char *key);
aclError aclrtDeviceGetBareTgid(int32_t *pid);
aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                       aclrtMemcpyKind kind);
aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, aclrtMemcpyKind kind, aclrtStream stream);
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
int pwsim_acl_alloc_info(const void *p, int *dev, size_t *size, int *policy);
int pwsim_acl_peer_on(int from, int to);

static const char *const exports[] = {"aclInit",
                                      "aclFinalize",
                                      "aclrtSetDevice",
                                      "aclrtResetDevice",
                                      "aclrtGetDevice",
                                      "aclrtGetDeviceCount",
                                      "aclrtDeviceCanAccessPeer",
                                      "aclrtDeviceEnablePeerAccess",
                                      "aclrtDeviceDisablePeerAccess",
                                      "aclrtMalloc",
                                      "aclrtFree",
                                      "aclrtMallocHost",
                                      "aclrtFreeHost",
                                      "aclrtMemcpy",
                                      "aclrtMemcpyAsync",
                                      "aclrtSynchronizeStream",
                                      "aclrtDeviceGetUuid",
                                      "aclrtGetPhyDevIdByUserDevId",
                                      "aclrtGetSocName",
                                      "aclrtIpcMemGetExportKey",
                                      "aclrtIpcMemSetImportPid",
                                      "aclrtIpcMemImportByKey",
                                      "aclrtIpcMemClose",
                                      "aclrtDeviceGetBareTgid",
                                      "aclrtReserveMemAddress",
                                      "aclrtReleaseMemAddress",
                                      "aclrtMallocPhysical",
                                      "aclrtFreePhysical",
                                      "aclrtMapMem",
                                      "aclrtUnmapMem",
                                      "aclrtMemExportToShareableHandle",
                                      "aclrtMemSetPidToShareableHandle",
                                      "aclrtMemImportFromShareableHandle",
                                      "aclrtMemExportToShareableHandleV2",
                                      "aclrtMemSetPidToShareableHandleV2",
                                      "aclrtMemImportFromShareableHandleV2",
                                      "aclrtMemcpy2d",
                                      "aclrtMemcpy2dAsync"};

static int passed, failed;

#define EXPECT(cond, ...)                                           \
	do {                                                        \
		if (cond) {                                         \
			passed++;                                   \
		} else {                                            \
			failed++;                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                        \
			printf("\n");                               \
		}                                                   \
	} while (0)
#define EXPECT_RET(call, want)                                                               \
	do {                                                                                 \
		aclError r_ = (call);                                                        \
		EXPECT(r_ == (want), "%s returned %d, expected %d", #call, r_, (int)(want)); \
	} while (0)

/* ---- children with their own environment (read once, at the first call) ---- */

static int child_none(void)
{
	int32_t can = -1;
	EXPECT_RET(aclInit(NULL), ACL_SUCCESS);
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
	EXPECT(can == 0, "PWSIM_PEERS=none: 0 can access 1 (%d)", can);
	EXPECT_RET(aclrtSetDevice(0), ACL_SUCCESS);
	EXPECT_RET(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	return failed;
}

static int child_pairs(void)
{
	uint32_t n = 0;
	int32_t can = -1;
	EXPECT_RET(aclInit(""), ACL_SUCCESS);
	EXPECT_RET(aclrtGetDeviceCount(&n), ACL_SUCCESS);
	EXPECT(n == 4, "PWSIM_DEVICES=4 gives %u devices", n);
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 2, 3), ACL_SUCCESS);
	EXPECT(can == 1, "pair 2-3 linked (%d)", can);
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 3, 2), ACL_SUCCESS);
	EXPECT(can == 1, "pair 3-2 linked (%d)", can);
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 1, 2), ACL_SUCCESS);
	EXPECT(can == 0, "pair 1-2 not linked (%d)", can);
	EXPECT_RET(aclrtSetDevice(4), ACL_ERROR_RT_INVALID_DEVICEID);
	return failed;
}

static int child_bad_env(void)
{
	uint32_t n = 0;
	EXPECT_RET(aclInit(NULL), ACL_SUCCESS);
	EXPECT_RET(aclrtGetDeviceCount(&n), ACL_SUCCESS);
	EXPECT(n == 2, "a bad PWSIM_DEVICES falls back to 2 (%u)", n);
	return failed;
}

/* ASCEND_RT_VISIBLE_DEVICES=3,1: ids 0 and 1 are physical devices 3 and 1,
 * whose link (PWSIM_PEERS names physical devices) follows them. */
static int child_visible(void)
{
	uint32_t n = 0;
	int32_t can = -1, phys = -1;
	aclrtUuid u;
	EXPECT_RET(aclInit(NULL), ACL_SUCCESS);
	EXPECT_RET(aclrtGetDeviceCount(&n), ACL_SUCCESS);
	EXPECT(n == 2, "two devices visible (%u)", n);
	EXPECT_RET(aclrtGetPhyDevIdByUserDevId(0, &phys), ACL_SUCCESS);
	EXPECT(phys == 3, "device 0 is physical 3 (%d)", phys);
	EXPECT_RET(aclrtDeviceGetUuid(1, &u), ACL_SUCCESS);
	EXPECT(u.bytes[5] == 1 && !memcmp(u.bytes, "pwan", 4), "device 1's UUID names physical 1");
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
	EXPECT(can == 1, "physical 3 and 1 are linked (%d)", can);
	EXPECT_RET(aclrtDeviceGetUuid(2, &u), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_RET(aclrtDeviceGetUuid(0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT(aclrtGetSocName() != NULL, "a chip name after aclInit");
	return failed;
}

/* SAYS: what the simulator must say on stderr, on purpose (labelled
 * "(expected) " in the log), or NULL. */
static void in_child(const char *what, int (*fn)(void), const char *devices, const char *peers,
                     const char *says)
{
	struct expected_err e;
	if (says && expected_open(&e)) {
		EXPECT(0, "child '%s': no pipe for its stderr", what);
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (says)
			expected_child(&e);
		if (devices)
			setenv("PWSIM_DEVICES", devices, 1);
		if (peers)
			setenv("PWSIM_PEERS", peers, 1);
		_exit(fn() ? 1 : 0);
	}
	if (says) {
		expected_read(&e);
		EXPECT(strstr(e.text, says) != NULL, "child '%s' says '%s' on stderr", what, says);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child '%s' failed", what);
}

/* ---- the current device is per thread ---- */

static void *other_thread(void *arg)
{
	int32_t *seen = arg;
	seen[0] = aclrtGetDevice(&seen[1]); /* nothing set in this thread yet */
	aclrtSetDevice(1);
	aclrtGetDevice(&seen[2]);
	return NULL;
}

/* ---- IPC memory by key: another process imports it ---- */

/* The child: waits until the parent has put it on the trust list, imports,
 * checks the bytes, writes its own, closes. */
static int ipc_child(int rd, int wr, const char *key)
{
	char go;
	void *p = NULL;
	int32_t me = -1;
	if (read(rd, &go, 1) != 1)
		return 1;
	EXPECT_RET(aclrtDeviceGetBareTgid(&me), ACL_SUCCESS);
	EXPECT(me == (int32_t)getpid(), "the bare tgid is the pid (%d)", me);
	EXPECT_RET(aclrtIpcMemImportByKey(&p, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT), ACL_SUCCESS);
	if (!p)
		return 1;
	int dev = -1, policy = -1;
	size_t size = 0;
	EXPECT(pwsim_acl_alloc_info(p, &dev, &size, &policy) == 0 && dev == 1 && size == 4096,
	       "the import is device 1's memory, 4096 bytes (dev %d, %zu)", dev, size);
	EXPECT(((unsigned char *)p)[10] == 0x5a, "the importer sees the exporter's bytes");
	((unsigned char *)p)[11] = 0xa5;
	void *again = NULL;
	EXPECT_RET(aclrtIpcMemImportByKey(&again, key, 0), ACL_SUCCESS);
	EXPECT(again == p, "a second import gives the same pointer");
	EXPECT_RET(aclrtIpcMemClose(key), ACL_SUCCESS);
	EXPECT_RET(aclrtFree(p), ACL_ERROR_INVALID_PARAM); /* imported memory is closed, not freed */
	EXPECT_RET(aclrtIpcMemClose(key), ACL_SUCCESS);
	EXPECT_RET(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
	if (write(wr, "d", 1) != 1)
		return 1;
	return failed;
}

/* The child that was never put on the trust list. */
static int ipc_stranger(const char *key)
{
	void *p = NULL;
	EXPECT_RET(aclrtIpcMemImportByKey(&p, key, 0), ACL_ERROR_RT_NO_PERMISSION);
	return failed;
}

static pid_t ipc_fork(int (*fn)(int, int, const char *), int rd, int wr, const char *key)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int r = fn(rd, wr, key);
		fflush(stdout);
		_exit(r ? 1 : 0);
	}
	return pid;
}

static int stranger_main(int rd, int wr, const char *key)
{
	(void)rd;
	(void)wr;
	return ipc_stranger(key);
}

static void ipc(void)
{
	char key[PW_ACL_IPC_KEY_LEN], open_key[PW_ACL_IPC_KEY_LEN];
	void *m = NULL, *m2 = NULL;
	int to_child[2], to_parent[2], st = 0;
	EXPECT_RET(aclrtSetDevice(1), ACL_SUCCESS);
	EXPECT_RET(aclrtMalloc(&m, 4096, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
	EXPECT_RET(aclrtMalloc(&m2, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	((unsigned char *)m)[10] = 0x5a;
	/* the arguments: NULL, len not 65, flags, size past the allocation */
	EXPECT_RET(aclrtIpcMemGetExportKey(NULL, 4096, key, sizeof key, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 4096, NULL, sizeof key, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 4096, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 0, key, sizeof key, 0), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 4096, key, sizeof key, 2), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 8192, key, sizeof key, 0), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 4096, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT),
	           ACL_SUCCESS);
	EXPECT(((unsigned char *)m)[10] == 0x5a, "the export keeps the bytes");
	EXPECT(strlen(key) > 0 && strlen(key) < sizeof key, "a key of %zu bytes", strlen(key));
	char again[PW_ACL_IPC_KEY_LEN];
	EXPECT_RET(aclrtIpcMemGetExportKey(m, 4096, again, sizeof again, 0), ACL_SUCCESS);
	EXPECT(!strcmp(key, again), "exported again: the same key");
	int32_t pid = 0;
	EXPECT_RET(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtIpcMemSetImportPid("pwacl.nothing", &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtIpcMemSetImportPid(key, &pid, 0), ACL_ERROR_RT_PARAM_INVALID);
	/* a process not on the trust list is refused */
	pid_t s = ipc_fork(stranger_main, -1, -1, key);
	waitpid(s, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the stranger's import was refused");
	/* the importer: on the list, then it imports */
	if (pipe(to_child) || pipe(to_parent)) {
		EXPECT(0, "no pipes");
		return;
	}
	memcpy(open_key, key, sizeof key);
	pid_t c = ipc_fork(ipc_child, to_child[0], to_parent[1], open_key);
	pid = (int32_t)c;
	EXPECT_RET(aclrtIpcMemSetImportPid(key, &pid, 1), ACL_SUCCESS);
	char done = 0;
	if (write(to_child[1], "g", 1) != 1 || read(to_parent[0], &done, 1) != 1)
		EXPECT(0, "the child did not answer");
	waitpid(c, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the importer's checks (status 0x%x)", st);
	EXPECT(((unsigned char *)m)[11] == 0xa5, "the exporter sees the importer's bytes");
	for (int i = 0; i < 2; i++) {
		close(to_child[i]);
		close(to_parent[i]);
	}
	/* validation off: anyone imports; after the exporter's close, nobody */
	char key2[PW_ACL_IPC_KEY_LEN];
	EXPECT_RET(aclrtIpcMemGetExportKey(m2, 100, key2, sizeof key2,
	                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION),
	           ACL_SUCCESS);
	EXPECT(strcmp(key, key2) != 0, "another allocation, another key");
	void *p = NULL;
	EXPECT_RET(aclrtIpcMemImportByKey(&p, key2, 2), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtIpcMemImportByKey(NULL, key2, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtIpcMemClose(key), ACL_SUCCESS);
	EXPECT_RET(aclrtIpcMemImportByKey(&p, key, 0), ACL_ERROR_RT_IPC_ERROR);
	EXPECT_RET(aclrtFree(m), ACL_SUCCESS);
	EXPECT_RET(aclrtFree(m2), ACL_SUCCESS);
	EXPECT_RET(aclrtIpcMemImportByKey(&p, key2, 0), ACL_ERROR_RT_IPC_ERROR); /* freed: gone */
	EXPECT_RET(aclrtIpcMemClose(key2), ACL_ERROR_RT_PARAM_INVALID);
}

/* ---- virtual memory: a physical allocation shared by its shareable handle ---- */

static void *vmm_map(aclrtDrvMemHandle h, size_t size)
{
	void *va = NULL;
	EXPECT_RET(aclrtReserveMemAddress(&va, size, 0, NULL, 0), ACL_SUCCESS);
	EXPECT_RET(aclrtMapMem(va, size, 0, h, 0), ACL_SUCCESS);
	return va;
}

static void vmm_unmap(void *va)
{
	EXPECT_RET(aclrtUnmapMem(va), ACL_SUCCESS);
	EXPECT_RET(aclrtReleaseMemAddress(va), ACL_SUCCESS);
}

/* The importer: waits for its place on the trust list, imports on device 0,
 * maps, checks the exporter's bytes and writes its own; a second import of
 * the same shareable handle is refused ("one-to-one"). */
static int vmm_child(int rd, int wr, uint64_t sh)
{
	char go;
	aclrtDrvMemHandle h = NULL, h2 = NULL;
	if (read(rd, &go, 1) != 1)
		return 1;
	EXPECT_RET(aclrtMemImportFromShareableHandle(sh, 0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemImportFromShareableHandle(sh, 0, &h), ACL_SUCCESS);
	EXPECT_RET(aclrtMemImportFromShareableHandle(sh, 0, &h2), ACL_ERROR_RT_PARAM_INVALID);
	if (!h)
		return 1;
	unsigned char *va = vmm_map(h, 4096);
	EXPECT(va && va[10] == 0x5a, "the importer sees the exporter's bytes");
	if (va)
		va[11] = 0xa5;
	vmm_unmap(va);
	EXPECT_RET(aclrtFreePhysical(h), ACL_SUCCESS);
	EXPECT_RET(aclrtFreePhysical(h), ACL_ERROR_RT_PARAM_INVALID);
	if (write(wr, "d", 1) != 1)
		return 1;
	return failed;
}

/* A process that expects a given refusal of the import. */
static aclError vmm_expect;
static int vmm_refused(uint64_t sh)
{
	aclrtDrvMemHandle h = NULL;
	EXPECT_RET(aclrtMemImportFromShareableHandle(sh, 0, &h), vmm_expect);
	return failed;
}

static pid_t vmm_fork(int (*fn)(int, int, uint64_t), int rd, int wr, uint64_t sh)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int r = fn(rd, wr, sh);
		fflush(stdout);
		_exit(r ? 1 : 0);
	}
	return pid;
}

static int refused_main(int rd, int wr, uint64_t sh)
{
	(void)rd;
	(void)wr;
	return vmm_refused(sh);
}

static void vmm_stranger(uint64_t sh, aclError expect, const char *what)
{
	int st = 0;
	vmm_expect = expect;
	pid_t s = vmm_fork(refused_main, -1, -1, sh);
	waitpid(s, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", what);
}

static void vmm(void)
{
	aclrtPhysicalMemProp prop = {ACL_MEM_HANDLE_TYPE_NONE,
	                             ACL_MEM_ALLOCATION_TYPE_PINNED,
	                             ACL_HBM_MEM_HUGE,
	                             {1, ACL_MEM_LOCATION_TYPE_DEVICE},
	                             0};
	aclrtDrvMemHandle h = NULL;
	uint64_t sh = 0, sh2 = 0;
	void *va = NULL;
	int to_child[2], to_parent[2], st = 0;
	EXPECT_RET(aclrtMallocPhysical(NULL, 4096, &prop, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMallocPhysical(&h, 4096, &prop, 1), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtReserveMemAddress(&va, 4096, 0, (void *)4096, 0), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtMallocPhysical(&h, 4096, &prop, 0), ACL_SUCCESS);
	EXPECT_RET(aclrtReserveMemAddress(&va, 8192, 65536, NULL, 0), ACL_SUCCESS);
	EXPECT(((uintptr_t)va & 65535) == 0, "the reservation is aligned");
	EXPECT_RET(aclrtMapMem((char *)va + 8192, 4096, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtMapMem(va, 8192, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID); /* past the allocation */
	EXPECT_RET(aclrtMapMem(va, 4096, 0, h, 0), ACL_SUCCESS);
	((unsigned char *)va)[10] = 0x5a;
	EXPECT_RET(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &sh),
	           ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, NULL),
	           ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(
	    aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh),
	    ACL_SUCCESS);
	EXPECT_RET(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2),
	           ACL_ERROR_RT_PARAM_INVALID);
	aclrtDrvMemHandle self = NULL;
	EXPECT_RET(aclrtMemImportFromShareableHandle(sh, 1, &self), ACL_ERROR_RT_PARAM_INVALID);
	vmm_stranger(sh, ACL_ERROR_RT_NO_PERMISSION, "a process not on the trust list is refused");
	if (pipe(to_child) || pipe(to_parent)) {
		EXPECT(0, "no pipes");
		return;
	}
	pid_t c = vmm_fork(vmm_child, to_child[0], to_parent[1], sh);
	int32_t pid = (int32_t)c;
	EXPECT_RET(aclrtMemSetPidToShareableHandle(sh + 1000, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtMemSetPidToShareableHandle(sh, &pid, 1), ACL_SUCCESS);
	char done = 0;
	if (write(to_child[1], "g", 1) != 1 || read(to_parent[0], &done, 1) != 1)
		EXPECT(0, "the child did not answer");
	waitpid(c, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the importer's checks (status 0x%x)", st);
	EXPECT(((unsigned char *)va)[11] == 0xa5, "the exporter sees the importer's bytes");
	for (int i = 0; i < 2; i++) {
		close(to_child[i]);
		close(to_parent[i]);
	}
	EXPECT_RET(aclrtReleaseMemAddress(va), ACL_SUCCESS); /* its mapping goes with it */
	EXPECT_RET(aclrtUnmapMem(va), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtFreePhysical(h), ACL_SUCCESS);
	/* validation off: anyone may import, until the memory is freed */
	aclrtDrvMemHandle h2 = NULL;
	EXPECT_RET(aclrtMallocPhysical(&h2, 100, &prop, 0), ACL_SUCCESS);
	EXPECT_RET(aclrtMemExportToShareableHandle(h2, ACL_MEM_HANDLE_TYPE_NONE,
	                                           ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &sh2),
	           ACL_SUCCESS);
	EXPECT(sh2 != sh, "another allocation, another shareable handle");
	vmm_expect = ACL_SUCCESS;
	vmm_stranger(sh2, ACL_SUCCESS, "with validation off, any process imports");
	EXPECT_RET(aclrtFreePhysical(h2), ACL_SUCCESS);
	vmm_stranger(sh2, ACL_ERROR_RT_PARAM_INVALID, "after the exporter's free, no import");
}

/* The V2 forms: the DEFAULT type is the first forms' uint64_t by pointer;
 * FABRIC ("only Atlas A3") is not this machine's; the import's flags are
 * reserved (0) and it is refused in the exporting process, as the first
 * form's. */
static void vmm_v2(void)
{
	aclrtPhysicalMemProp prop = {ACL_MEM_HANDLE_TYPE_NONE,
	                             ACL_MEM_ALLOCATION_TYPE_PINNED,
	                             ACL_HBM_MEM_HUGE,
	                             {0, ACL_MEM_LOCATION_TYPE_DEVICE},
	                             0};
	aclrtDrvMemHandle h = NULL, imp = NULL;
	uint64_t sh = 0;
	unsigned char fabric[128] = {0};
	int32_t pid = 1;
	EXPECT_RET(aclrtMallocPhysical(&h, 4096, &prop, 0), ACL_SUCCESS);
	EXPECT_RET(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, fabric),
	           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_RET(aclrtMemExportToShareableHandleV2(h, 0, 7, &sh), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh),
	           ACL_SUCCESS);
	EXPECT(sh != 0, "the V2 export wrote the handle");
	EXPECT_RET(aclrtMemSetPidToShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1),
	           ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1),
	           ACL_SUCCESS);
	EXPECT_RET(aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 1, &imp),
	           ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &imp),
	           ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtFreePhysical(h), ACL_SUCCESS);
}

/* ---- 2D copies: host to device and back, nothing else ---- */

static void copies_2d(void)
{
	unsigned char host[64], back[64];
	void *d0 = NULL, *d1 = NULL;
	for (int i = 0; i < 64; i++)
		host[i] = (unsigned char)i;
	memset(back, 0, sizeof back);
	EXPECT_RET(aclrtSetDevice(0), ACL_SUCCESS);
	EXPECT_RET(aclrtMalloc(&d0, 64, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
	EXPECT_RET(aclrtSetDevice(1), ACL_SUCCESS);
	EXPECT_RET(aclrtMalloc(&d1, 64, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
	/* 4 rows of 4 bytes, every 16 bytes on the host, every 8 on the device */
	EXPECT_RET(aclrtMemcpy2d(d0, 8, host, 16, 4, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	EXPECT_RET(aclrtMemcpy2dAsync(back, 16, d0, 8, 4, 4, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_SUCCESS);
	EXPECT(back[0] == 0 && back[3] == 3 && back[16] == 16 && back[51] == 51 && back[4] == 0,
	       "the rows went there and back at their pitches");
	EXPECT_RET(aclrtMemcpy2d(d1, 8, d0, 8, 4, 4, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy2d(back, 8, host, 8, 4, 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy2d(d0, 4, host, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy2d(d0, 32, host, 32, 4, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy2dAsync(d0, 8, host, 8, 4, 5242881, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
	           ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtFree(d1), ACL_SUCCESS);
	EXPECT_RET(aclrtSetDevice(0), ACL_SUCCESS);
	EXPECT_RET(aclrtFree(d0), ACL_SUCCESS);
	EXPECT_RET(aclrtSetDevice(1), ACL_SUCCESS);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--list-exports")) {
		for (size_t i = 0; i < sizeof exports / sizeof *exports; i++)
			puts(exports[i]);
		return 0;
	}
	in_child("PWSIM_PEERS=none", child_none, NULL, "none", NULL);
	in_child("PWSIM_DEVICES=4 PWSIM_PEERS=0-1,2-3", child_pairs, "4", "0-1,2-3", NULL);
	in_child("PWSIM_DEVICES=x", child_bad_env, "x", "0-1,", "pwsim: PWSIM_DEVICES='x' is not valid");
	setenv("ASCEND_RT_VISIBLE_DEVICES", "3,1", 1);
	in_child("ASCEND_RT_VISIBLE_DEVICES=3,1", child_visible, "4", "1-3", NULL);
	unsetenv("ASCEND_RT_VISIBLE_DEVICES");
	EXPECT(aclrtGetSocName() == NULL, "no chip name before aclInit");

	/* initialization */
	int32_t dev = -1, can = -1;
	EXPECT_RET(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
	EXPECT_RET(aclFinalize(), ACL_ERROR_UNINITIALIZE);
	EXPECT_RET(aclInit(""), ACL_SUCCESS);
	EXPECT_RET(aclInit(""), ACL_ERROR_REPEAT_INITIALIZE);

	/* devices */
	EXPECT_RET(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
	EXPECT_RET(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_RET(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_RET(aclrtSetDevice(0), ACL_SUCCESS);
	EXPECT_RET(aclrtGetDevice(&dev), ACL_SUCCESS);
	EXPECT(dev == 0, "current device 0 (%d)", dev);
	pthread_t t;
	int32_t seen[3] = {-1, -1, -1};
	pthread_create(&t, NULL, other_thread, seen);
	pthread_join(t, NULL);
	EXPECT(seen[0] == ACL_ERROR_RT_CONTEXT_NULL, "a new thread has no current device (%d)", seen[0]);
	EXPECT(seen[2] == 1, "the other thread's device is 1 (%d)", seen[2]);
	EXPECT_RET(aclrtGetDevice(&dev), ACL_SUCCESS);
	EXPECT(dev == 0, "this thread's device is still 0 (%d)", dev);

	/* peer access (B5) */
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 0, 5), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_RET(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
	EXPECT(can == 1, "0 can access 1 (%d)", can);
	EXPECT_RET(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_RET(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtDeviceEnablePeerAccess(7, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_RET(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_RET(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
	EXPECT(pwsim_acl_peer_on(0, 1) && !pwsim_acl_peer_on(1, 0),
	       "enable is one direction, from the current device");
	EXPECT_RET(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
	EXPECT_RET(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
	EXPECT(!pwsim_acl_peer_on(0, 1), "disabled");
	EXPECT_RET(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);

	/* memory: policies recorded, real bytes, bounds */
	void *d0 = NULL, *d1 = NULL, *plain = NULL;
	int pdev = -1, pol = -1;
	size_t psize = 0;
	EXPECT_RET(aclrtMalloc(&d0, 0, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMalloc(&d0, 64, 8), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMalloc(&d0, 1024, ACL_MEM_MALLOC_NORMAL_ONLY_P2P), ACL_SUCCESS);
	EXPECT(pwsim_acl_alloc_info(d0, &pdev, &psize, &pol) == 0 && pdev == 0 && psize == 1024 &&
	           pol == ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
	       "allocation on device 0, 1024 bytes, NORMAL_ONLY_P2P (%d, %zu, %d)", pdev, psize, pol);
	EXPECT_RET(aclrtMalloc(&plain, 256, ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH),
	           ACL_SUCCESS);
	EXPECT_RET(aclrtSetDevice(1), ACL_SUCCESS);
	EXPECT_RET(aclrtDeviceEnablePeerAccess(0, 0), ACL_SUCCESS);
	EXPECT(pwsim_acl_peer_on(1, 0), "enabled 1 -> 0");
	EXPECT_RET(aclrtMalloc(&d1, 1024, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
	EXPECT(pwsim_acl_alloc_info(d1, &pdev, &psize, &pol) == 0 && pdev == 1 &&
	           pol == ACL_MEM_MALLOC_HUGE_FIRST_P2P,
	       "allocation on device 1 (%d, %d)", pdev, pol);

	char host[1024], back[1024];
	for (int i = 0; i < 1024; i++)
		host[i] = (char)(i * 7 + 3);
	EXPECT_RET(aclrtMemcpy(d0, 1024, host, 1024, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	EXPECT_RET(aclrtMemcpy(d1, 1024, d0, 1024, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
	memset(back, 0, sizeof back);
	EXPECT_RET(aclrtMemcpyAsync(back, 1024, d1, 1024, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_SUCCESS);
	EXPECT_RET(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
	EXPECT(!memcmp(host, back, 1024), "the bytes went 0 -> 1 -> host");
	EXPECT_RET(aclrtMemcpy(d0, 1024, d1, 1024, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	EXPECT_RET(aclrtMemcpy(d1, 1024, d0, 2048, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy(d1, 2048, d0, 2048, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy(d1, 1024, NULL, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy(d1, 1024, host, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy(d1, 1024, d0, 16, 8), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMemcpy(back, 1024, host, 1024, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
	/* page-locked host memory: an async host-to-device copy from it */
	void *pinned = NULL;
	EXPECT_RET(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMallocHost(&pinned, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtMallocHost(&pinned, 1024), ACL_SUCCESS);
	EXPECT_RET(aclrtMemcpyAsync(d0, 1024, pinned, 1024, ACL_MEMCPY_HOST_TO_DEVICE, NULL), ACL_SUCCESS);
	EXPECT_RET(aclrtFreeHost(pinned), ACL_SUCCESS);
	EXPECT_RET(aclrtFreeHost(pinned), ACL_ERROR_INVALID_PARAM);
	/* aclrtMemcpyAsync: no asynchronous copy within the host (207000) */
	EXPECT_RET(aclrtMemcpyAsync(back, 1024, host, 1024, ACL_MEMCPY_HOST_TO_HOST, NULL),
	           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

	ipc();
	vmm();
	vmm_v2();
	copies_2d();

	/* reset drops the device's peer access both ways */
	EXPECT_RET(aclrtResetDevice(1), ACL_SUCCESS);
	EXPECT(!pwsim_acl_peer_on(1, 0) && !pwsim_acl_peer_on(0, 1), "reset of 1 dropped 0 <-> 1");
	EXPECT_RET(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);

	EXPECT_RET(aclrtFree(d0), ACL_SUCCESS);
	EXPECT_RET(aclrtFree(d0), ACL_ERROR_INVALID_PARAM);
	EXPECT_RET(aclrtFree(d1), ACL_SUCCESS);
	EXPECT_RET(aclrtFree(plain), ACL_SUCCESS);
	EXPECT_RET(aclFinalize(), ACL_SUCCESS);
	EXPECT_RET(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	EXPECT_RET(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);

	printf("acl_selftest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

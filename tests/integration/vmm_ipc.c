/*
 * Two processes sharing memory the way NCCL does (docs/facts-cuda.md, "How every runtime reaches the
 * driver"): the parent creates virtual memory on device 0 (cuMemCreate, posix_fd), maps it, grants devices 0
 * and 1 access and exports it; the child receives the fd over a unix socket (SCM_RIGHTS), imports, maps,
 * grants device 1 access, reads the parent's bytes and writes its own.  The same for a stream-ordered pool:
 * pool fd over the socket, cuMemPoolExportPointer's data after it. Then a CUDA 13 batch prefetch in the
 * parent.  Every driver function is looked up through cuGetProcAddress_v2, as the runtimes and NCCL do.
 *
 *   vmm_ipc            the parent (starts the child itself)
 *   vmm_ipc child FD   the child, FD its end of the socket
 *   vmm_ipc batch-bad  one process: a batch prefetch with one unmanaged range
 *   vmm_ipc fork-worker  maps virtual memory, forks a child that uses no CUDA
 *                      and exits, then unmaps: no process leaks a mapping
 * Exits 0 when every call succeeded and both processes saw each other's bytes.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drv.h"

#define GRAN ((size_t)2 << 20)

typedef CUresult (*getproc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
static getproc_fn getproc;

static void *fn(const char *name)
{
	void *f = NULL;
	CUdriverProcAddressQueryResult st;
	if (getproc(name, &f, 13000, 0, &st) != CUDA_SUCCESS || !f) {
		fprintf(stderr, "vmm_ipc: no %s\n", name);
		exit(1);
	}
	return f;
}

/* The driver functions, by cuGetProcAddress_v2. */
#define DRV(ret, name, args) static ret(*name) args;
#define FUNCS(X)                                                                                           \
	X(CUresult, cuInit, (unsigned))                                                                    \
	X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                     \
	X(CUresult, cuCtxSetCurrent, (CUcontext))                                                          \
	X(CUresult, cuMemcpyHtoD, (CUdeviceptr, const void *, size_t))                                     \
	X(CUresult, cuMemcpyDtoH, (void *, CUdeviceptr, size_t))                                           \
	X(CUresult, cuStreamCreate, (CUstream *, unsigned))                                                \
	X(CUresult, cuMemAllocManaged, (CUdeviceptr *, size_t, unsigned))                                  \
	X(CUresult, cuMemFree, (CUdeviceptr))                                                              \
	X(CUresult, cuMemAlloc, (CUdeviceptr *, size_t))                                                   \
	X(CUresult, cuMemAddressReserve, (CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long)) \
	X(CUresult, cuMemAddressFree, (CUdeviceptr, size_t))                                               \
	X(CUresult, cuMemCreate,                                                                           \
	  (CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long))       \
	X(CUresult, cuMemRelease, (CUmemGenericAllocationHandle))                                          \
	X(CUresult, cuMemMap,                                                                              \
	  (CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long))                 \
	X(CUresult, cuMemUnmap, (CUdeviceptr, size_t))                                                     \
	X(CUresult, cuMemSetAccess, (CUdeviceptr, size_t, const CUmemAccessDesc *, size_t))                \
	X(CUresult, cuMemExportToShareableHandle,                                                          \
	  (void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long))           \
	X(CUresult, cuMemImportFromShareableHandle,                                                        \
	  (CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType))                             \
	X(CUresult, cuMemRetainAllocationHandle, (CUmemGenericAllocationHandle *, void *))                 \
	X(CUresult, cuMemPoolCreate, (CUmemoryPool *, const CUmemPoolProps *))                             \
	X(CUresult, cuMemPoolDestroy, (CUmemoryPool))                                                      \
	X(CUresult, cuMemAllocFromPoolAsync, (CUdeviceptr *, size_t, CUmemoryPool, CUstream))              \
	X(CUresult, cuMemFreeAsync, (CUdeviceptr, CUstream))                                               \
	X(CUresult, cuMemPoolSetAccess, (CUmemoryPool, const CUmemAccessDesc *, size_t))                   \
	X(CUresult, cuMemPoolExportToShareableHandle,                                                      \
	  (void *, CUmemoryPool, CUmemAllocationHandleType, unsigned long long))                           \
	X(CUresult, cuMemPoolImportFromShareableHandle,                                                    \
	  (CUmemoryPool *, void *, CUmemAllocationHandleType, unsigned long long))                         \
	X(CUresult, cuMemPoolExportPointer, (CUmemPoolPtrExportData *, CUdeviceptr))                       \
	X(CUresult, cuMemPoolImportPointer, (CUdeviceptr *, CUmemoryPool, CUmemPoolPtrExportData *))       \
	X(CUresult, cuMemPrefetchBatchAsync,                                                               \
	  (CUdeviceptr *, size_t *, size_t, CUmemLocation *, size_t *, size_t, unsigned long long,         \
	   CUstream))
FUNCS(DRV)
#define LOOKUP(ret, name, args) name = (ret(*) args)fn(#name);

static CUcontext ctx[2];

static void init(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	getproc = lib ? (getproc_fn)dlsym(lib, "cuGetProcAddress_v2") : NULL;
	if (!getproc) {
		fprintf(stderr, "vmm_ipc: no cuGetProcAddress_v2\n");
		exit(1);
	}
	FUNCS(LOOKUP)
	CHECK(cuInit(0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx[0], 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx[1], 1));
	CHECK(cuCtxSetCurrent(ctx[0]));
}

static CUmemAccessDesc rw(int dev)
{
	return (CUmemAccessDesc){{CU_MEM_LOCATION_TYPE_DEVICE, dev}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
}

/* One fd, with len bytes of data, over the socket. */
static void send_fd(int sock, int fd, const void *data, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {(void *)data, len};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	memset(ctl, 0, sizeof ctl);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	if (sendmsg(sock, &m, 0) != (ssize_t)len) {
		perror("vmm_ipc: sendmsg");
		exit(1);
	}
}

static int recv_fd(int sock, void *data, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {data, len};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	int fd = -1;
	if (recvmsg(sock, &m, MSG_WAITALL) != (ssize_t)len) {
		perror("vmm_ipc: recvmsg");
		exit(1);
	}
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	if (fd < 0)
		exit(1);
	return fd;
}

static void fill(CUdeviceptr p, unsigned char v)
{
	unsigned char b[256];
	memset(b, v, sizeof b);
	CHECK(cuMemcpyHtoD(p, b, sizeof b));
}

static int holds(CUdeviceptr p, unsigned char v)
{
	unsigned char b[256];
	CHECK(cuMemcpyDtoH(b, p, sizeof b));
	for (size_t i = 0; i < sizeof b; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

static int child(int sock)
{
	char tag[7];
	CUmemPoolPtrExportData data;
	CUmemGenericAllocationHandle h;
	CUmemoryPool pool;
	CUdeviceptr va, p;
	CUmemAccessDesc a = rw(1);
	int ok = 1;

	init();
	CHECK(cuCtxSetCurrent(ctx[1]));
	/* moved to 100 or above, so it has another number than the parent's */
	int got = recv_fd(sock, tag, sizeof tag), fd = fcntl(got, F_DUPFD_CLOEXEC, 100);
	close(got);
	CHECK(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd,
	                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	CHECK(cuMemMap(va, GRAN, 0, h, 0));
	CHECK(cuMemSetAccess(va, GRAN, &a, 1));
	ok &= holds(va, 0x11);
	fill(va + 4096, 0x22);
	CHECK(cuMemUnmap(va, GRAN));
	CHECK(cuMemRelease(h));
	CHECK(cuMemAddressFree(va, GRAN));
	close(fd);

	int pfd = recv_fd(sock, &data, sizeof data);
	CHECK(cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)pfd,
	                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	CHECK(cuMemPoolImportPointer(&p, pool, &data));
	ok &= holds(p, 0x33);
	fill(p + 4096, 0x44);
	CHECK(cuMemFree(p));
	close(pfd);
	if (write(sock, "d", 1) != 1)
		return 1;
	return ok ? 0 : 3;
}

/* A batch prefetch of three ranges, the second of ordinary device memory:
 * the prefetch rules run per range, so exactly one finding. */
static int batch_bad(void)
{
	CUstream s;
	CUdeviceptr m, d;
	init();
	CHECK(cuStreamCreate(&s, 0));
	CHECK(cuMemAllocManaged(&m, 2 * 4096, CU_MEM_ATTACH_GLOBAL));
	CHECK(cuMemAlloc(&d, 4096));
	CUdeviceptr ptrs[3] = {m, d, m + 4096};
	size_t sizes[3] = {4096, 4096, 4096}, idx[1] = {0};
	CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
	CUresult r = cuMemPrefetchBatchAsync(ptrs, sizes, 3, &loc, idx, 1, 0, s);
	CHECK(cuMemFree(d));
	CHECK(cuMemFree(m));
	return r == CUDA_ERROR_INVALID_VALUE ? 0 : 3;
}

/* A forked worker (Python multiprocessing's default) inherits none of the
 * parent's CUDA mappings: it has nothing to unmap when it exits. */
static int fork_worker(void)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	CUmemAccessDesc a = rw(0);
	init();
	CHECK(cuMemCreate(&h, GRAN, &prop, 0));
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	CHECK(cuMemMap(va, GRAN, 0, h, 0));
	CHECK(cuMemSetAccess(va, GRAN, &a, 1));
	pid_t pid = fork();
	if (pid == 0)
		exit(0);
	int st = 1;
	waitpid(pid, &st, 0);
	CHECK(cuMemUnmap(va, GRAN));
	CHECK(cuMemRelease(h));
	CHECK(cuMemAddressFree(va, GRAN));
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 3;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "fork-worker"))
		return fork_worker();
	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "batch-bad"))
		return batch_bad();
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	init();
	pid_t pid = fork();
	if (pid == 0) {
		char s[16];
		close(sv[0]);
		snprintf(s, sizeof s, "%d", sv[1]);
		execl(argv[0], argv[0], "child", s, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);

	/* virtual memory on device 0, accessible to both devices */
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle h, h2;
	CUdeviceptr va;
	CUmemAccessDesc both[2] = {rw(0), rw(1)};
	int fd;
	CHECK(cuMemCreate(&h, GRAN, &prop, 0));
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	CHECK(cuMemMap(va, GRAN, 0, h, 0));
	CHECK(cuMemSetAccess(va, GRAN, both, 2));
	CHECK(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)(va + 100)));
	CHECK(cuMemRelease(h2));
	fill(va, 0x11);
	CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	send_fd(sv[0], fd, "vmm-fd", 7);

	/* a pool that can be shared, and one allocation from it */
	CUmemPoolProps pp;
	memset(&pp, 0, sizeof pp);
	pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	pp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	pp.location.id = 0;
	CUmemoryPool pool;
	CUstream s;
	CUdeviceptr p;
	CUmemPoolPtrExportData data;
	CUmemAccessDesc one = rw(1);
	int pfd;
	CHECK(cuStreamCreate(&s, 0));
	CHECK(cuMemPoolCreate(&pool, &pp));
	CHECK(cuMemPoolSetAccess(pool, &one, 1));
	CHECK(cuMemAllocFromPoolAsync(&p, 8192, pool, s));
	fill(p, 0x33);
	CHECK(cuMemPoolExportToShareableHandle(&pfd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	CHECK(cuMemPoolExportPointer(&data, p));
	send_fd(sv[0], pfd, &data, sizeof data);

	char done;
	int st = 1, ok = read(sv[0], &done, 1) == 1;
	waitpid(pid, &st, 0);
	ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
	ok &= holds(va + 4096, 0x22) && holds(p + 4096, 0x44);
	close(fd);
	close(pfd);
	CHECK(cuMemFreeAsync(p, s));
	CHECK(cuMemPoolDestroy(pool));
	CHECK(cuMemUnmap(va, GRAN));
	CHECK(cuMemRelease(h));
	CHECK(cuMemAddressFree(va, GRAN));

	/* CUDA 13 batch prefetch: two ranges to device 1, one to the host */
	CUdeviceptr m;
	CHECK(cuMemAllocManaged(&m, 3 * 4096, CU_MEM_ATTACH_GLOBAL));
	CUdeviceptr ptrs[3] = {m, m + 4096, m + 8192};
	size_t sizes[3] = {4096, 4096, 4096}, idx[2] = {0, 2};
	CUmemLocation locs[2] = {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, {CU_MEM_LOCATION_TYPE_HOST, 0}};
	CHECK(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	CHECK(cuMemFree(m));
	return ok ? 0 : 3;
}

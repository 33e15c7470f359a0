/*
 * What the real driver answers on the virtual-memory, pool and batch-prefetch
 * paths that the simulator (tests/sim/cuda_sim_vmm.c) and the vmm.* rules
 * rely on.  One line per probe, "name: answer".  Two GPUs.
 * Built with: cc -I$CUDA_HOME/include vmm_probe.c -lcuda
 * The child is forked before any CUDA call and receives fds over a socket.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SAY(...) (printf(__VA_ARGS__), fflush(stdout))

static const char *fid(int fd, char *b, size_t n)
{
	struct stat st;
	char link[256] = "";
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ssize_t k = readlink(path, link, sizeof link - 1);
	if (k > 0)
		link[k] = 0;
	if (fstat(fd, &st))
		snprintf(b, n, "fstat failed");
	else
		snprintf(b, n, "%llu:%llu (%s)", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, link);
	return b;
}

static void send_fd(int sock, int fd, const void *d, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {(void *)d, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	memset(ctl, 0, sizeof ctl);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	if (sendmsg(sock, &m, 0) < 0)
		perror("sendmsg");
}

static int recv_fd(int sock, void *d, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {d, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	int fd = -1;
	if (recvmsg(sock, &m, MSG_WAITALL) < 0)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

static CUcontext ctx[2];

static void init(void)
{
	cuInit(0);
	for (int d = 0; d < 2; d++) {
		CUdevice dev;
		cuDeviceGet(&dev, d);
		cuDevicePrimaryCtxRetain(&ctx[d], dev);
	}
	cuCtxSetCurrent(ctx[0]);
}

static CUmemAllocationProp prop_of(int dev, CUmemAllocationHandleType t)
{
	CUmemAllocationProp p;
	memset(&p, 0, sizeof p);
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.requestedHandleTypes = t;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	return p;
}

static int child(int sock)
{
	char tag[4], b[320];
	init();
	cuCtxSetCurrent(ctx[1]);
	int fd = recv_fd(sock, tag, sizeof tag);
	SAY("child: received fd %d, file %s\n", fd, fid(fd, b, sizeof b));
	CUmemGenericAllocationHandle h = 0;
	CUresult r = cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	SAY("child: import after the exporter released and unmapped (its fd still open): %d\n", r);
	size_t gran = 2 << 20;
	CUdeviceptr va = 0;
	if (r == CUDA_SUCCESS) {
		cuMemAddressReserve(&va, gran, 0, 0, 0);
		SAY("child: map: %d\n", cuMemMap(va, gran, 0, h, 0));
		CUmemAccessDesc a = {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
		SAY("child: set access dev 1: %d\n", cuMemSetAccess(va, gran, &a, 1));
		unsigned char x[16] = {0};
		r = cuMemcpyDtoH(x, va, sizeof x);
		SAY("child: read: %d, bytes 0x%02x (parent wrote 0x5a)\n", r, x[0]);
		cuMemUnmap(va, gran);
		cuMemRelease(h);
		cuMemAddressFree(va, gran);
	}
	int fd2 = recv_fd(sock, tag, sizeof tag);
	SAY("child: second export's fd %d, file %s\n", fd2, fid(fd2, b, sizeof b));
	return 0;
}

int main(void)
{
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1]));
	}
	close(sv[1]);
	init();
	char b[320];
	size_t gran = 0;
	CUmemAllocationProp prop = prop_of(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUresult g = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	SAY("granularity: %d, %zu\n", g, gran);
	CUmemGenericAllocationHandle h = 0, hn = 0;
	SAY("create posix_fd: %d\n", cuMemCreate(&h, gran, &prop, 0));
	CUmemAllocationProp none = prop_of(0, CU_MEM_HANDLE_TYPE_NONE);
	SAY("create none: %d\n", cuMemCreate(&hn, gran, &none, 0));
	int fd1 = -1, fd2 = -1, fdx = -1;
	SAY("export posix_fd #1: %d\n", cuMemExportToShareableHandle(&fd1, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	SAY("export posix_fd #2: %d\n", cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	SAY("fd #1 %d file %s\n", fd1, fid(fd1, b, sizeof b));
	SAY("fd #2 %d file %s\n", fd2, fid(fd2, b, sizeof b));
	CUmemFabricHandle fab;
	SAY("export as fabric, created for posix_fd only: %d\n",
	    cuMemExportToShareableHandle(&fab, h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	SAY("export as posix_fd, created for none: %d\n",
	    cuMemExportToShareableHandle(&fdx, hn, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	cuMemRelease(hn);

	CUdeviceptr va = 0;
	SAY("reserve: %d\n", cuMemAddressReserve(&va, 2 * gran, 0, 0, 0));
	SAY("map: %d\n", cuMemMap(va, gran, 0, h, 0));
	CUmemAccessDesc a0 = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	SAY("set access dev 0: %d\n", cuMemSetAccess(va, gran, &a0, 1));
	SAY("set access over a half-mapped range: %d\n", cuMemSetAccess(va, 2 * gran, &a0, 1));
	int ord = -7, legacy = -7;
	CUmemoryPool mp = (CUmemoryPool)0x1;
	/* each call before the line that prints what it wrote: argument order is unspecified */
	g = cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va);
	SAY("VMM ptr DEVICE_ORDINAL: %d -> %d\n", g, ord);
	g = cuPointerGetAttribute(&mp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, va);
	SAY("VMM ptr MEMPOOL_HANDLE: %d -> %p\n", g, (void *)mp);
	g = cuPointerGetAttribute(&legacy, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, va);
	SAY("VMM ptr IS_LEGACY_CUDA_IPC_CAPABLE: %d -> %d\n", g, legacy);
	CUdeviceptr rb = 0;
	size_t rs = 0;
	g = cuMemGetAddressRange(&rb, &rs, va + 16);
	SAY("VMM ptr cuMemGetAddressRange: %d\n", g);
	CUipcMemHandle ih;
	SAY("cuIpcGetMemHandle on VMM memory: %d\n", cuIpcGetMemHandle(&ih, va));
	SAY("cuMemFree on VMM memory: %d\n", cuMemFree(va));
	SAY("cuMemUnmap of half the mapping: %d\n", cuMemUnmap(va, gran / 2));
	unsigned char pat[4096];
	memset(pat, 0x5a, sizeof pat);
	SAY("HtoD into VMM: %d\n", cuMemcpyHtoD(va, pat, sizeof pat));

	/* peer copy into the dev-0 mapping from device 1 memory, device 1 not granted */
	int can = 0;
	cuDeviceCanAccessPeer(&can, 0, 1);
	SAY("can access 0->1: %d\n", can);
	cuCtxSetCurrent(ctx[1]);
	CUdeviceptr d1 = 0;
	cuMemAlloc(&d1, 1 << 20);
	cuMemsetD8(d1, 0x77, 1 << 20);
	SAY("enable 1->0: %d\n", cuCtxEnablePeerAccess(ctx[0], 0));
	cuCtxSetCurrent(ctx[0]);
	SAY("enable 0->1: %d\n", cuCtxEnablePeerAccess(ctx[1], 0));
	CUresult r = cuMemcpyPeer(va + 4096, ctx[0], d1, ctx[1], 4096);
	CUresult s = cuCtxSynchronize();
	unsigned char x[4] = {0};
	CUresult rr = cuMemcpyDtoH(x, va + 4096, 4);
	SAY("cuMemcpyPeer dev1 -> VMM(dev0, access dev0 only): %d, sync %d, read %d: 0x%02x (0x77 = copied)\n", r, s, rr,
	    x[0]);
	/* the same from device 1's context, a kernel-free DtoD issued there */
	cuCtxSetCurrent(ctx[1]);
	r = cuMemcpyDtoD(va + 8192, d1, 4096);
	s = cuCtxSynchronize();
	cuCtxSetCurrent(ctx[0]);
	rr = cuMemcpyDtoH(x, va + 8192, 4);
	SAY("cuMemcpyDtoD in ctx 1, dev1 -> VMM(dev0, access dev0 only): %d, sync %d, read %d: 0x%02x\n", r, s, rr,
	    x[0]);

	/* pools */
	CUstream st;
	cuStreamCreate(&st, CU_STREAM_NON_BLOCKING);
	CUdeviceptr pa = 0, plain = 0;
	SAY("cuMemAllocAsync: %d\n", cuMemAllocAsync(&pa, 1 << 20, st));
	cuStreamSynchronize(st);
	mp = (CUmemoryPool)0x1;
	g = cuPointerGetAttribute(&mp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, pa);
	SAY("async ptr MEMPOOL_HANDLE: %d -> %s\n", g, mp ? "non-NULL" : "NULL");
	CUmemoryPool dflt = NULL;
	cuDeviceGetDefaultMemPool(&dflt, 0);
	SAY("  ... equals the default pool: %s\n", mp == dflt ? "yes" : "no");
	legacy = -7;
	g = cuPointerGetAttribute(&legacy, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, pa);
	SAY("async ptr IS_LEGACY_CUDA_IPC_CAPABLE: %d -> %d\n", g, legacy);
	SAY("cuIpcGetMemHandle on cuMemAllocAsync memory: %d\n", cuIpcGetMemHandle(&ih, pa));
	CUmemPoolPtrExportData ed;
	SAY("cuMemPoolExportPointer from the default pool: %d\n", cuMemPoolExportPointer(&ed, pa));
	cuMemAlloc(&plain, 4096);
	mp = (CUmemoryPool)0x1;
	g = cuPointerGetAttribute(&mp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, plain);
	SAY("cuMemAlloc ptr MEMPOOL_HANDLE: %d -> %s\n", g, mp ? "non-NULL" : "NULL");
	CUmemPoolProps pp;
	memset(&pp, 0, sizeof pp);
	pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	pp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	pp.location.id = 0;
	CUmemoryPool pool;
	SAY("pool create posix_fd: %d\n", cuMemPoolCreate(&pool, &pp));
	int pfd = -1;
	SAY("pool export posix_fd: %d\n", cuMemPoolExportToShareableHandle(&pfd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	SAY("pool fd %d file %s\n", pfd, fid(pfd, b, sizeof b));
	SAY("pool export as fabric: %d\n", cuMemPoolExportToShareableHandle(&fab, pool, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	CUdeviceptr pp1 = 0;
	SAY("alloc from pool: %d\n", cuMemAllocFromPoolAsync(&pp1, 1 << 20, pool, st));
	cuStreamSynchronize(st);
	SAY("cuIpcGetMemHandle on an IPC-capable pool's memory: %d\n", cuIpcGetMemHandle(&ih, pp1));
	SAY("cuMemPoolExportPointer: %d\n", cuMemPoolExportPointer(&ed, pp1));

	/* batch prefetch */
	CUdeviceptr m = 0;
	cuMemAllocManaged(&m, 3 * 4096, CU_MEM_ATTACH_GLOBAL);
	CUdeviceptr ptrs[2] = {m, m + 4096};
	size_t sizes[2] = {4096, 4096}, idx[1] = {0};
	CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
	SAY("batch prefetch: %d\n", cuMemPrefetchBatchAsync(ptrs, sizes, 2, &loc, idx, 1, 0, st));
	SAY("batch prefetch, NULL stream: %d\n", cuMemPrefetchBatchAsync(ptrs, sizes, 2, &loc, idx, 1, 0, NULL));
	ptrs[1] = plain;
	SAY("batch prefetch, one range not managed: %d\n", cuMemPrefetchBatchAsync(ptrs, sizes, 2, &loc, idx, 1, 0, st));
	size_t bad_idx[1] = {1};
	ptrs[1] = m + 4096;
	SAY("batch prefetch, first index 1: %d\n", cuMemPrefetchBatchAsync(ptrs, sizes, 2, &loc, bad_idx, 1, 0, st));
	cuStreamSynchronize(st);

	/* the child imports after we released and unmapped */
	cuMemUnmap(va, gran);
	SAY("release with the fds still open: %d\n", cuMemRelease(h));
	send_fd(sv[0], fd1, "fd1", 4);
	send_fd(sv[0], fd2, "fd2", 4);
	int status = 0;
	waitpid(pid, &status, 0);
	SAY("child status %d\n", status);
	return 0;
}

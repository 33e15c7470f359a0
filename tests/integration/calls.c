/*
 * Makes every hooked CUDA call once or more, reaching the driver one of the
 * ways real programs do, and writes the list of calls it made (api, variant,
 * result) so the test can compare it with the trace line by line.
 *
 *   calls MODE EXPECT_FILE
 *     direct         the symbols this program links against (-lcuda)
 *     dlsym          dlopen("libcuda.so.1") + dlsym of each exported name
 *     getproc        dlsym("cuGetProcAddress_v2"), then the self-look-up of
 *                    cuGetProcAddress at 12000 and everything through that,
 *                    as cudart does (docs/facts-cuda.md, "How every runtime reaches the driver"), flags 0
 *     getproc-ptds   the same with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
 *     getproc-old    versions of an old runtime: legacy ABIs of advise,
 *                    prefetch and IPC open; through the 4-argument cuGetProcAddress
 *   calls ipc-child HEXHANDLE HEXEVENT EXPECT_FILE   (started by the above)
 *
 * The data copied is checked; any surprise exits 1 with file:line.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drv.h"

static FILE *expect_out;

/* Call, check the result is `want`, and record what the trace must show. */
#define EXPECT(want, api, variant, call)                                                                 \
	do {                                                                                             \
		CUresult r_ = (call);                                                                    \
		if (r_ != (want)) {                                                                      \
			fprintf(stderr, "%s:%d: %s -> %d, expected %d\n", __FILE__, __LINE__, #call, r_, \
			        (want));                                                                 \
			exit(1);                                                                         \
		}                                                                                        \
		fprintf(expect_out, "%s\t%s\t%d\n", api, variant, r_);                                   \
	} while (0)

/* ---- the three ways to fill the table ---- */

#ifdef CALLS_LINKED
CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuDeviceCanAccessPeer(int *, CUdevice, CUdevice);
CUresult cuCtxEnablePeerAccess(CUcontext, unsigned);
CUresult cuCtxDisablePeerAccess(CUcontext);
CUresult cuDeviceGetP2PAttribute(int *, CUdevice_P2PAttribute, CUdevice, CUdevice);
CUresult cuMemcpyPeer(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
CUresult cuMemcpyPeerAsync(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *);
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *, CUstream);
CUresult cuIpcGetMemHandle(CUipcMemHandle *, CUdeviceptr);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *, CUipcMemHandle, unsigned);
CUresult cuIpcCloseMemHandle(CUdeviceptr);
CUresult cuIpcGetEventHandle(CUipcEventHandle *, CUevent);
CUresult cuIpcOpenEventHandle(CUevent *, CUipcEventHandle);
CUresult cuMemAllocManaged(CUdeviceptr *, size_t, unsigned);
CUresult cuMemAdvise_v2(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream);
CUresult cuMemRangeGetAttribute(void *, size_t, CUmem_range_attribute, CUdeviceptr, size_t);
CUresult cuMemRangeGetAttributes(void **, size_t *, CUmem_range_attribute *, size_t, CUdeviceptr, size_t);
CUresult cuStreamAttachMemAsync(CUstream, CUdeviceptr, size_t, unsigned);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemFreeAsync(CUdeviceptr, CUstream);

static void fill_linked(struct drv *d)
{
	d->Init = cuInit;
	d->DeviceGet = cuDeviceGet;
	d->PrimaryCtxRetain = cuDevicePrimaryCtxRetain;
	d->CtxSetCurrent = cuCtxSetCurrent;
	d->MemAlloc = cuMemAlloc_v2;
	d->MemcpyHtoD = cuMemcpyHtoD_v2;
	d->MemcpyDtoH = cuMemcpyDtoH_v2;
	d->StreamCreate = cuStreamCreate;
	d->EventCreate = cuEventCreate;
	d->DeviceCanAccessPeer = cuDeviceCanAccessPeer;
	d->CtxEnablePeerAccess = cuCtxEnablePeerAccess;
	d->CtxDisablePeerAccess = cuCtxDisablePeerAccess;
	d->DeviceGetP2PAttribute = cuDeviceGetP2PAttribute;
	d->MemcpyPeer = cuMemcpyPeer;
	d->MemcpyPeerAsync = cuMemcpyPeerAsync;
	d->Memcpy3DPeer = cuMemcpy3DPeer;
	d->Memcpy3DPeerAsync = cuMemcpy3DPeerAsync;
	d->IpcGetMemHandle = cuIpcGetMemHandle;
	d->IpcOpenMemHandle = cuIpcOpenMemHandle_v2;
	d->IpcCloseMemHandle = cuIpcCloseMemHandle;
	d->IpcGetEventHandle = cuIpcGetEventHandle;
	d->IpcOpenEventHandle = cuIpcOpenEventHandle;
	d->MemAllocManaged = cuMemAllocManaged;
	d->MemAdvise_v2 = cuMemAdvise_v2;
	d->MemPrefetchAsync_v2 = cuMemPrefetchAsync_v2;
	d->MemRangeGetAttribute = cuMemRangeGetAttribute;
	d->MemRangeGetAttributes = cuMemRangeGetAttributes;
	d->StreamAttachMemAsync = cuStreamAttachMemAsync;
	d->MemFree = cuMemFree_v2;
	d->MemFreeAsync = cuMemFreeAsync;
}
#endif

/* How a name is looked up: by dlsym, or by cuGetProcAddress. */
struct lookup {
	void *handle;
	CUresult (*gp2)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
	CUresult (*gp)(const char *, void **, int, cuuint64_t);
	cuuint64_t flags;
};

static void *get(const struct lookup *l, const char *name, int version)
{
	void *p = NULL;
	if (l->gp2) {
		CUdriverProcAddressQueryResult st = -1;
		if (l->gp2(name, &p, version, l->flags, &st) != CUDA_SUCCESS || st != 0)
			p = NULL;
	} else if (l->gp) {
		if (l->gp(name, &p, version, l->flags) != CUDA_SUCCESS)
			p = NULL;
	} else {
		p = dlsym(l->handle, name);
	}
	if (!p) {
		fprintf(stderr, "calls: cannot look up %s (version %d)\n", name, version);
		exit(1);
	}
	return p;
}

/* dlsym names the exact symbol; cuGetProcAddress the api at a version. */
#define GET(field, sym, api, ver) (d->field = get(l, l->gp || l->gp2 ? api : sym, ver))

static void fill_lookup(struct drv *d, const struct lookup *l, int old)
{
	GET(Init, "cuInit", "cuInit", 2000);
	GET(DeviceGet, "cuDeviceGet", "cuDeviceGet", 2000);
	GET(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", 7000);
	GET(CtxSetCurrent, "cuCtxSetCurrent", "cuCtxSetCurrent", 4000);
	GET(MemAlloc, "cuMemAlloc_v2", "cuMemAlloc", 3020);
	int pt = l->flags ? 7000 : 4000; /* per-thread variants came with 7.0 */
	GET(MemcpyHtoD, "cuMemcpyHtoD_v2", "cuMemcpyHtoD", l->flags ? 7000 : 3020);
	GET(MemcpyDtoH, "cuMemcpyDtoH_v2", "cuMemcpyDtoH", l->flags ? 7000 : 3020);
	GET(StreamCreate, "cuStreamCreate", "cuStreamCreate", 2000);
	GET(EventCreate, "cuEventCreate", "cuEventCreate", 2000);
	GET(DeviceCanAccessPeer, "cuDeviceCanAccessPeer", "cuDeviceCanAccessPeer", 4000);
	GET(CtxEnablePeerAccess, "cuCtxEnablePeerAccess", "cuCtxEnablePeerAccess", 4000);
	GET(CtxDisablePeerAccess, "cuCtxDisablePeerAccess", "cuCtxDisablePeerAccess", 4000);
	GET(DeviceGetP2PAttribute, "cuDeviceGetP2PAttribute", "cuDeviceGetP2PAttribute", 8000);
	GET(MemcpyPeer, "cuMemcpyPeer", "cuMemcpyPeer", pt);
	GET(MemcpyPeerAsync, "cuMemcpyPeerAsync", "cuMemcpyPeerAsync", pt);
	GET(Memcpy3DPeer, "cuMemcpy3DPeer", "cuMemcpy3DPeer", pt);
	GET(Memcpy3DPeerAsync, "cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync", pt);
	GET(IpcGetMemHandle, "cuIpcGetMemHandle", "cuIpcGetMemHandle", 4010);
	GET(IpcOpenMemHandle, "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle", old ? 4010 : 11000);
	GET(IpcCloseMemHandle, "cuIpcCloseMemHandle", "cuIpcCloseMemHandle", 4010);
	GET(IpcGetEventHandle, "cuIpcGetEventHandle", "cuIpcGetEventHandle", 4010);
	GET(IpcOpenEventHandle, "cuIpcOpenEventHandle", "cuIpcOpenEventHandle", 4010);
	GET(MemAllocManaged, "cuMemAllocManaged", "cuMemAllocManaged", 6000);
	if (old) {
		GET(MemAdvise, "cuMemAdvise", "cuMemAdvise", 8000);
		GET(MemPrefetchAsync, "cuMemPrefetchAsync", "cuMemPrefetchAsync", 8000);
	} else {
		GET(MemAdvise_v2, "cuMemAdvise_v2", "cuMemAdvise", 12020);
		GET(MemPrefetchAsync_v2, "cuMemPrefetchAsync_v2", "cuMemPrefetchAsync", 12020);
	}
	GET(MemRangeGetAttribute, "cuMemRangeGetAttribute", "cuMemRangeGetAttribute", 8000);
	GET(MemRangeGetAttributes, "cuMemRangeGetAttributes", "cuMemRangeGetAttributes", 8000);
	GET(StreamAttachMemAsync, "cuStreamAttachMemAsync", "cuStreamAttachMemAsync",
	    pt > 4000 ? 7000 : 6000);
	GET(MemFree, "cuMemFree_v2", "cuMemFree", 3020);
	GET(MemFreeAsync, "cuMemFreeAsync", "cuMemFreeAsync", 11020);
}

/* ---- the calls ---- */

static void hex(const void *p, size_t n, char *out)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void unhex(const char *s, void *p, size_t n)
{
	unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			fprintf(stderr, "calls: bad hex handle\n");
			exit(1);
		}
		b[i] = (unsigned char)v;
	}
}

#define MIB (1u << 20)

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static void check_pattern(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 31 + seed)) {
			fprintf(stderr, "calls: %s: byte %zu is %u, expected %u\n", what, i, p[i],
			        (unsigned char)(i * 31 + seed));
			exit(1);
		}
}

static void run(const struct drv *d, const char *self, const char *expect_path, const char *mode)
{
	const char *ptds = !strcmp(mode, "getproc-ptds") ? "_ptds" : "";
	const char *ptsz = !strcmp(mode, "getproc-ptds") ? "_ptsz" : "";
	int old = !strcmp(mode, "getproc-old");
	CUdevice dev0, dev1;
	CUcontext c0, c1;
	CUstream s;
	CHECK(d->Init(0));
	CHECK(d->DeviceGet(&dev0, 0));
	CHECK(d->DeviceGet(&dev1, 1));
	CHECK(d->PrimaryCtxRetain(&c0, dev0));
	CHECK(d->PrimaryCtxRetain(&c1, dev1));
	CHECK(d->CtxSetCurrent(c0));
	CHECK(d->StreamCreate(&s, 0));

	int v = -1;
	EXPECT(CUDA_SUCCESS, "cuDeviceCanAccessPeer", "", d->DeviceCanAccessPeer(&v, dev0, dev1));
	EXPECT(CUDA_SUCCESS, "cuDeviceCanAccessPeer", "", d->DeviceCanAccessPeer(&v, dev0, dev0));
	if (v != 0) {
		fprintf(stderr, "calls: a device reported as its own peer\n");
		exit(1);
	}
	EXPECT(CUDA_SUCCESS, "cuDeviceGetP2PAttribute", "",
	       d->DeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, dev0, dev1));
	EXPECT(CUDA_SUCCESS, "cuCtxEnablePeerAccess", "", d->CtxEnablePeerAccess(c1, 0));
	EXPECT(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "cuCtxEnablePeerAccess", "",
	       d->CtxEnablePeerAccess(c1, 0));

	CUdeviceptr a0, a1;
	CHECK(d->MemAlloc(&a0, MIB));
	CHECK(d->CtxSetCurrent(c1));
	CHECK(d->MemAlloc(&a1, MIB));
	CHECK(d->CtxSetCurrent(c0));
	unsigned char *host = malloc(MIB), *back = malloc(MIB);
	fill_pattern(host, MIB, 7);
	CHECK(d->MemcpyHtoD(a0, host, MIB));
	EXPECT(CUDA_SUCCESS, "cuMemcpyPeer", ptds, d->MemcpyPeer(a1, c1, a0, c0, MIB));
	CHECK(d->MemcpyDtoH(back, a1, MIB));
	check_pattern(back, MIB, 7, "cuMemcpyPeer 0->1");
	EXPECT(CUDA_SUCCESS, "cuMemcpyPeerAsync", ptsz, d->MemcpyPeerAsync(a0, c0, a1, c1, MIB / 2, s));
	EXPECT(CUDA_ERROR_INVALID_VALUE, "cuMemcpyPeer", ptds, d->MemcpyPeer(a1, c1, a0, c0, 2 * MIB));

	CUDA_MEMCPY3D_PEER p = {0};
	p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	p.srcDevice = a0;
	p.srcContext = c0;
	p.srcPitch = 1024;
	p.srcHeight = 16;
	p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	p.dstDevice = a1;
	p.dstContext = c1;
	p.dstPitch = 1024;
	p.dstHeight = 16;
	p.WidthInBytes = 1024;
	p.Height = 16;
	p.Depth = 4;
	EXPECT(CUDA_SUCCESS, "cuMemcpy3DPeer", ptds, d->Memcpy3DPeer(&p));
	EXPECT(CUDA_SUCCESS, "cuMemcpy3DPeerAsync", ptsz, d->Memcpy3DPeerAsync(&p, s));
	CHECK(d->MemcpyDtoH(back, a1, 64 * 1024));
	check_pattern(back, 64 * 1024, 7, "cuMemcpy3DPeer 0->1");

	CUipcMemHandle h;
	EXPECT(CUDA_SUCCESS, "cuIpcGetMemHandle", "", d->IpcGetMemHandle(&h, a0));
	CUdeviceptr mine;
	const char *open_variant = old ? "" : "_v2";
	EXPECT(CUDA_ERROR_INVALID_CONTEXT, "cuIpcOpenMemHandle", open_variant,
	       d->IpcOpenMemHandle(&mine, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CUevent ev;
	EXPECT(CUDA_SUCCESS, "cuEventCreate", "",
	       d->EventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	CUipcEventHandle eh;
	EXPECT(CUDA_SUCCESS, "cuIpcGetEventHandle", "", d->IpcGetEventHandle(&eh, ev));

	/* Another process opens the handle, checks the bytes, and writes a marker. */
	char hh[2 * sizeof h + 1], eh_hex[2 * sizeof eh + 1], child_expect[4096];
	hex(&h, sizeof h, hh);
	hex(&eh, sizeof eh, eh_hex);
	snprintf(child_expect, sizeof child_expect, "%s.child", expect_path);
	fflush(expect_out);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, "ipc-child", mode, hh, eh_hex, child_expect, (char *)NULL);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "calls: the IPC child failed\n");
		exit(1);
	}
	CHECK(d->MemcpyDtoH(back, a0, 16));
	if (memcmp(back, "written by child", 16)) {
		fprintf(stderr, "calls: the child's write through the IPC mapping is not visible\n");
		exit(1);
	}
	EXPECT(CUDA_ERROR_INVALID_VALUE, "cuIpcCloseMemHandle", "", d->IpcCloseMemHandle(a1));

	CUdeviceptr m;
	EXPECT(CUDA_SUCCESS, "cuMemAllocManaged", "",
	       d->MemAllocManaged(&m, 64 * 1024, CU_MEM_ATTACH_GLOBAL));
	CUmemLocation loc0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, loc1 = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
	if (old) {
		EXPECT(CUDA_SUCCESS, "cuMemAdvise", "",
		       d->MemAdvise(m, 64 * 1024, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
		EXPECT(CUDA_SUCCESS, "cuMemPrefetchAsync", "", d->MemPrefetchAsync(m, 64 * 1024, 1, s));
	} else {
		EXPECT(CUDA_SUCCESS, "cuMemAdvise", "_v2",
		       d->MemAdvise_v2(m, 64 * 1024, CU_MEM_ADVISE_SET_READ_MOSTLY, loc0));
		EXPECT(CUDA_SUCCESS, "cuMemPrefetchAsync", ptsz[0] ? "_v2_ptsz" : "_v2",
		       d->MemPrefetchAsync_v2(m, 64 * 1024, loc1, 0, s));
	}
	int rm = -1;
	EXPECT(CUDA_SUCCESS, "cuMemRangeGetAttribute", "",
	       d->MemRangeGetAttribute(&rm, sizeof rm, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 64 * 1024));
	if (rm != 1) {
		fprintf(stderr, "calls: read-mostly advice not reported back (%d)\n", rm);
		exit(1);
	}
	int last = -9, pref = -9;
	void *data[2] = {&last, &pref};
	size_t sizes[2] = {sizeof last, sizeof pref};
	CUmem_range_attribute attrs[2] = {CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
	                                  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION};
	EXPECT(CUDA_SUCCESS, "cuMemRangeGetAttributes", "",
	       d->MemRangeGetAttributes(data, sizes, attrs, 2, m, 64 * 1024));
	EXPECT(CUDA_SUCCESS, "cuStreamAttachMemAsync", ptsz,
	       d->StreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_SINGLE));
	EXPECT(CUDA_SUCCESS, "cuCtxDisablePeerAccess", "", d->CtxDisablePeerAccess(c1));
	EXPECT(CUDA_SUCCESS, "cuMemFree", "_v2", d->MemFree(m));
	EXPECT(CUDA_SUCCESS, "cuMemFree", "_v2", d->MemFree(a1));
	EXPECT(CUDA_SUCCESS, "cuMemFreeAsync", ptsz, d->MemFreeAsync(a0, s));
	free(host);
	free(back);
}

static void ipc_child(const struct drv *d, const char *hh, const char *eh_hex, const char *mode)
{
	CUdevice dev1;
	CUcontext c1;
	CHECK(d->Init(0));
	CHECK(d->DeviceGet(&dev1, 1));
	CHECK(d->PrimaryCtxRetain(&c1, dev1));
	CHECK(d->CtxSetCurrent(c1));
	CUipcMemHandle h;
	CUipcEventHandle eh;
	unhex(hh, &h, sizeof h);
	unhex(eh_hex, &eh, sizeof eh);
	CUdeviceptr p;
	const char *open_variant = !strcmp(mode, "getproc-old") ? "" : "_v2";
	EXPECT(CUDA_SUCCESS, "cuIpcOpenMemHandle", open_variant,
	       d->IpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	unsigned char buf[64];
	CHECK(d->MemcpyDtoH(buf, p, sizeof buf));
	check_pattern(buf, sizeof buf, 7, "IPC mapping in the child");
	CHECK(d->MemcpyHtoD(p, "written by child", 16));
	CUevent ev;
	EXPECT(CUDA_SUCCESS, "cuIpcOpenEventHandle", "", d->IpcOpenEventHandle(&ev, eh));
	EXPECT(CUDA_SUCCESS, "cuIpcCloseMemHandle", "", d->IpcCloseMemHandle(p));
}

static void usage(void)
{
	fprintf(stderr, "usage: calls direct|dlsym|getproc|getproc-ptds|getproc-old EXPECT_FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int child = argc == 6 && !strcmp(argv[1], "ipc-child");
	if (argc != 3 && !child)
		usage();
	const char *mode = child ? argv[2] : argv[1];
	expect_out = fopen(argv[argc - 1], "w");
	if (!expect_out) {
		perror(argv[argc - 1]);
		return 2;
	}
	struct drv d = {0};
	if (!strcmp(mode, "direct")) {
#ifdef CALLS_LINKED
		fill_linked(&d);
#else
		fprintf(stderr, "calls: built without -lcuda; use calls-linked for 'direct'\n");
		return 2;
#endif
	} else {
		struct lookup l = {0};
		l.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!l.handle) {
			fprintf(stderr, "calls: %s\n", dlerror());
			return 1;
		}
		if (!strncmp(mode, "getproc", 7)) {
			void *gp2 = dlsym(l.handle, "cuGetProcAddress_v2");
			void *self = NULL;
			int old = !strcmp(mode, "getproc-old");
			l.flags =
			    !strcmp(mode, "getproc-ptds") ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
			if (old) { /* an 11.x runtime: the 4-argument one, found by dlsym */
				l.gp = (CUresult(*)(const char *, void **, int, cuuint64_t))dlsym(
				    l.handle, "cuGetProcAddress");
				if (!l.gp || l.gp("cuGetProcAddress", &self, 11030, 0) != CUDA_SUCCESS ||
				    !self) {
					fprintf(stderr, "calls: no cuGetProcAddress\n");
					return 1;
				}
				l.gp = (CUresult(*)(const char *, void **, int, cuuint64_t))self;
			} else {
				CUresult (*first)(const char *, void **, int, cuuint64_t,
				                  CUdriverProcAddressQueryResult *) = gp2;
				if (!first ||
				    first("cuGetProcAddress", &self, 12000, 0, NULL) != CUDA_SUCCESS ||
				    !self) {
					fprintf(stderr, "calls: no cuGetProcAddress_v2\n");
					return 1;
				}
				l.gp2 = self;
			}
		} else if (strcmp(mode, "dlsym")) {
			usage();
		}
		fill_lookup(&d, &l, !strcmp(mode, "getproc-old"));
	}
	if (child)
		ipc_child(&d, argv[3], argv[4], mode);
	else
		run(&d, argv[0], argv[2], mode);
	fclose(expect_out);
	return 0;
}

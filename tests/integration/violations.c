/*
 * One program per rule, against the simulated driver: `violations RULE bad`
 * breaks exactly that contract once; `violations RULE good` makes the nearest
 * correct call instead.  Everything else each scenario does is correct, so
 * the trace must hold exactly one finding (bad) or none (good).  A rule with
 * more than one way to break it has more scenarios, RULE/CASE, the same way.
 * IPC scenarios start a second process (this program again, `child ...`).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drv.h"

CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetCount(int *);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuDeviceCanAccessPeer(int *, CUdevice, CUdevice);
CUresult cuCtxEnablePeerAccess(CUcontext, unsigned);
CUresult cuCtxDisablePeerAccess(CUcontext);
CUresult cuDeviceGetP2PAtomicCapabilities(unsigned *, const CUatomicOperation *, unsigned, CUdevice,
                                          CUdevice);
CUresult cuMemcpyPeer(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
CUresult cuIpcGetMemHandle(CUipcMemHandle *, CUdeviceptr);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *, CUipcMemHandle, unsigned);
CUresult cuIpcCloseMemHandle(CUdeviceptr);
CUresult cuMemAllocManaged(CUdeviceptr *, size_t, unsigned);
CUresult cuMemAdvise_v2(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream);
CUresult cuMemRangeGetAttribute(void *, size_t, CUmem_range_attribute, CUdeviceptr, size_t);
CUresult cuMemRangeGetAttributes(void **, size_t *, CUmem_range_attribute *, size_t, CUdeviceptr, size_t);
CUresult cuStreamAttachMemAsync(CUstream, CUdeviceptr, size_t, unsigned);
CUresult cuMemCreate(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
CUresult cuMemRelease(CUmemGenericAllocationHandle);
CUresult cuMemAddressReserve(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
CUresult cuMemAddressFree(CUdeviceptr, size_t);
CUresult cuMemMap(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
CUresult cuMemUnmap(CUdeviceptr, size_t);
CUresult cuMemSetAccess(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
CUresult cuMemExportToShareableHandle(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                                      unsigned long long);
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
CUresult cuMemAllocAsync(CUdeviceptr *, size_t, CUstream);
CUresult cuMemFreeAsync(CUdeviceptr, CUstream);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuIpcGetEventHandle(CUipcEventHandle *, CUevent);
CUresult cuIpcOpenEventHandle(CUevent *, CUipcEventHandle);
CUresult cuDeviceGetP2PAttribute(int *, CUdevice_P2PAttribute, CUdevice, CUdevice);
CUresult cuCtxCreate_v2(CUcontext *, unsigned, CUdevice);
CUresult cuCtxDestroy_v2(CUcontext);
CUresult cuCtxPopCurrent_v2(CUcontext *);
CUresult cuDevicePrimaryCtxReset_v2(CUdevice);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice);

#define MIB (1u << 20)
static CUcontext ctx[16];
static int ndev;
static CUstream stream;
static const char *self;

/* Return codes are not checked here: the driver's answer to a broken
 * contract is part of what the test looks at in the trace. */
#define CALL(x) ((void)(x))

static void init(void)
{
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&ndev));
	for (int d = 0; d < ndev && d < 16; d++) {
		CUdevice dev;
		CHECK(cuDeviceGet(&dev, d));
		CHECK(cuDevicePrimaryCtxRetain(&ctx[d], dev));
	}
	CHECK(cuCtxSetCurrent(ctx[0]));
	CHECK(cuStreamCreate(&stream, 0));
}

/* Peer access from `from` to `to`, done right. */
static void enable(int from, int to)
{
	int can;
	CHECK(cuCtxSetCurrent(ctx[from]));
	CHECK(cuDeviceCanAccessPeer(&can, from, to));
	CHECK(cuCtxEnablePeerAccess(ctx[to], 0));
	CHECK(cuCtxSetCurrent(ctx[0]));
}

/* A second context of device d (cuCtxCreate), device 0's primary context
 * current again after. */
static CUcontext made_on(int d)
{
	CUcontext m, popped;
	CHECK(cuCtxCreate_v2(&m, 0, d));
	CHECK(cuCtxPopCurrent_v2(&popped));
	return m;
}

/* Peer access from context `from` (of device fd) to context `to` (of td), done right. */
static void ctx_enable(CUcontext from, int fd, CUcontext to, int td)
{
	int can;
	CHECK(cuCtxSetCurrent(from));
	CHECK(cuDeviceCanAccessPeer(&can, fd, td));
	CHECK(cuCtxEnablePeerAccess(to, 0));
	CHECK(cuCtxSetCurrent(ctx[0]));
}

/* The same once more, whatever the driver answers (the scenarios' mistakes). */
static void ctx_enable_again(CUcontext from, CUcontext to)
{
	CHECK(cuCtxSetCurrent(from));
	CALL(cuCtxEnablePeerAccess(to, 0));
	CHECK(cuCtxSetCurrent(ctx[0]));
}

static CUdeviceptr alloc_on(int d, size_t n)
{
	CUdeviceptr p;
	CHECK(cuCtxSetCurrent(ctx[d]));
	CHECK(cuMemAlloc_v2(&p, n));
	CHECK(cuCtxSetCurrent(ctx[0]));
	return p;
}

static void hex(const void *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void unhex(const char *s, void *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			exit(2);
		((unsigned char *)p)[i] = (unsigned char)v;
	}
}

/* ---- a second process for the IPC scenarios ---- */

struct child {
	pid_t pid;
	int to, from; /* pipes: to the child, from the child */
};

static struct child spawn(const char *what, const CUipcMemHandle *h)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		exit(2);
	char hh[129], fa[16], fb[16];
	hex(h, sizeof *h, hh);
	snprintf(fa, sizeof fa, "%d", a[0]);
	snprintf(fb, sizeof fb, "%d", b[1]);
	pid_t pid = fork();
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		execl(self, self, "child", what, hh, fa, fb, (char *)NULL);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	return (struct child){pid, a[1], b[0]};
}

/* The same with a string for the child instead of an IPC handle. */
static struct child spawn_str(const char *what, const char *arg)
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
		execl(self, self, "child", what, arg, fa, fb, (char *)NULL);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	return (struct child){pid, a[1], b[0]};
}

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

static void reap(struct child c)
{
	int st;
	close(c.to);
	close(c.from);
	if (waitpid(c.pid, &st, 0) != c.pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "violations: the child failed\n");
		exit(1);
	}
}

/* ---- virtual memory ---- */

#define GRAN ((size_t)2 << 20)

static CUmemGenericAllocationHandle vmm_create(int dev, unsigned types)
{
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = (CUmemAllocationHandleType)types;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	CHECK(cuMemCreate(&h, GRAN, &prop, 0));
	return h;
}

static CUmemAccessDesc rw(int dev)
{
	return (CUmemAccessDesc){{CU_MEM_LOCATION_TYPE_DEVICE, dev}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
}

/* Import fd, map it, make it accessible to device 1, undo it all. */
static void vmm_import_map(int fd)
{
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	CUmemAccessDesc a = rw(1);
	CHECK(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd,
	                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	CHECK(cuMemMap(va, GRAN, 0, h, 0));
	CHECK(cuMemSetAccess(va, GRAN, &a, 1));
	CHECK(cuMemUnmap(va, GRAN));
	CHECK(cuMemRelease(h));
	CHECK(cuMemAddressFree(va, GRAN));
}

/* The child: open the handle (on device 1) and do what `what` says. */
static int child_main(const char *what, const char *hh, int in, int out)
{
	CUipcMemHandle h;
	if (strcmp(what, "vmm-import")) /* that one is given an fd */
		unhex(hh, &h, sizeof h);
	else
		memset(&h, 0, sizeof h);
	init();
	CHECK(cuCtxSetCurrent(ctx[1]));
	CUdeviceptr p = 0, q = 0;
	unsigned lazy = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;
	if (!strcmp(what, "open-close")) {
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "open-on0")) {
		CHECK(cuCtxSetCurrent(ctx[0]));
		/* a device that cannot reach the exporter's (the open fails), or on
		 * real GPUs one that can (it maps, and is closed) */
		if (cuIpcOpenMemHandle_v2(&p, h, lazy) == CUDA_SUCCESS)
			CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "open-stale")) {
		CALL(cuIpcOpenMemHandle_v2(&p, h, lazy)); /* the exporter freed it */
	} else if (!strcmp(what, "open-wait-close")) {
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		say(out);
		hear(in); /* the exporter frees (or not) now */
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "reopen")) {
		/* as measured on H100s: the same context twice gives the same
		 * pointer, counted; device 0's context a second mapping */
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CHECK(cuIpcOpenMemHandle_v2(&q, h, lazy));
		if (p != q)
			return 3;
		CUdeviceptr r = 0;
		CHECK(cuCtxSetCurrent(ctx[0]));
		CHECK(cuIpcOpenMemHandle_v2(&r, h, lazy));
		if (r == p)
			return 3;
		CHECK(cuIpcCloseMemHandle(r));
		CHECK(cuCtxSetCurrent(ctx[1]));
		CHECK(cuIpcCloseMemHandle(p));
		CHECK(cuIpcCloseMemHandle(q));
	} else if (!strcmp(what, "second-context") || !strcmp(what, "same-context")) {
		/* open in device 1's primary context, then again in a second context
		 * of device 1 (cuCtxCreate), or again in the primary one */
		CUcontext made = NULL;
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		if (!strcmp(what, "second-context"))
			CHECK(cuCtxCreate_v2(&made, 0, 1));
		CALL(cuIpcOpenMemHandle_v2(&q, h, lazy));
		if (q)
			CHECK(cuIpcCloseMemHandle(q));
		if (made)
			CHECK(cuCtxDestroy_v2(made));
		CHECK(cuCtxSetCurrent(ctx[1]));
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "reopen-leak")) {
		/* the same, with device 1's mapping left open: the leak is at p */
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CHECK(cuIpcOpenMemHandle_v2(&q, h, lazy));
		CUdeviceptr r = 0;
		CHECK(cuCtxSetCurrent(ctx[0]));
		CHECK(cuIpcOpenMemHandle_v2(&r, h, lazy));
		CHECK(cuIpcCloseMemHandle(r));
		CHECK(cuCtxSetCurrent(ctx[1]));
		CHECK(cuIpcCloseMemHandle(q));
		printf("%llx\n", (unsigned long long)p);
	} else if (!strcmp(what, "lazy-enable")) {
		/* the lazy flag enabled 1 -> 0: an explicit enable now is "already enabled" */
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		int can;
		CHECK(cuDeviceCanAccessPeer(&can, 1, 0));
		CALL(cuCtxEnablePeerAccess(ctx[0], 0));
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "lazy-copy") || !strcmp(what, "lazy-copy-importer")) {
		/* and a copy from device 0 to device 1 is not staged; the mapping
		 * named by the exporter's context (where it was allocated), or by
		 * the importing one (the device the driver reports for it) */
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CUdeviceptr mine;
		CHECK(cuMemAlloc_v2(&mine, MIB));
		CHECK(cuMemcpyPeer(mine, ctx[1], p, ctx[strcmp(what, "lazy-copy") ? 1 : 0], MIB));
		CHECK(cuMemFree_v2(mine));
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "lazy-copy-third") || !strcmp(what, "lazy-copy-mine")) {
		/* the mapping named by device 2's context, neither the importer's
		 * nor the exporter's (PWSIM_DEVICES=3); or, the mapping open and
		 * named right, this process's own memory on device 1 named by
		 * device 0's context */
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CUdeviceptr mine;
		CHECK(cuMemAlloc_v2(&mine, MIB));
		if (!strcmp(what, "lazy-copy-third"))
			CALL(cuMemcpyPeer(mine, ctx[1], p, ctx[2], MIB));
		else
			CALL(cuMemcpyPeer(mine, ctx[0], p, ctx[0], MIB));
		CHECK(cuMemFree_v2(mine));
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "free-mapping")) {
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CALL(cuMemFree_v2(p)); /* the driver refuses it: the mapping stays */
		CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "open-garbage")) {
		h.reserved[40] ^= 0x5a; /* bytes no process exported */
		/* the driver (580, H200 and H100; the simulated one too) maps
		 * them, the byte being one it does not read: closed then, as a
		 * correct program closes what it opened */
		if (cuIpcOpenMemHandle_v2(&p, h, lazy) == CUDA_SUCCESS)
			CHECK(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "event-open-destroy") || !strcmp(what, "event-open-leak") ||
	           !strcmp(what, "event-open-wait-destroy")) {
		CUipcEventHandle eh;
		CUevent e;
		memcpy(&eh, &h, sizeof eh);
		CHECK(cuIpcOpenEventHandle(&e, eh));
		if (!strcmp(what, "event-open-wait-destroy")) {
			say(out);
			hear(in); /* the exporter destroys (or not) now */
		}
		if (strcmp(what, "event-open-leak"))
			CHECK(cuEventDestroy_v2(e));
	} else if (!strcmp(what, "close-twice")) {
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
		CHECK(cuIpcCloseMemHandle(p));
		CALL(cuIpcCloseMemHandle(p));
	} else if (!strcmp(what, "leak")) {
		CHECK(cuIpcOpenMemHandle_v2(&p, h, lazy));
	} else if (!strcmp(what, "flags")) {
		CALL(cuIpcOpenMemHandle_v2(&p, h, 0));
	} else if (!strcmp(what, "vmm-import")) {
		vmm_import_map(atoi(hh));
	} else {
		return 2;
	}
	say(out);
	return 0;
}

/* ---- the scenarios: bad breaks the rule once, !bad comes close ---- */

static void peer_enable_self(int bad)
{
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	CALL(cuCtxEnablePeerAccess(ctx[bad ? 0 : 1], 0));
}

/* The atomics of the link from device 0 to 0 (bad) or to 1 (good). */
static void peer_attr_self(int bad)
{
	CUatomicOperation ops[1] = {CU_ATOMIC_OPERATION_INTEGER_ADD};
	unsigned caps[1];
	CALL(cuDeviceGetP2PAtomicCapabilities(caps, ops, 1, 0, bad ? 0 : 1));
}

static void peer_enable_flags(int bad)
{
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	CALL(cuCtxEnablePeerAccess(ctx[1], bad ? 1 : 0));
}

/* Run with PWSIM_PEERS=none: no pair supports peer access; good asks and stays away. */
static void peer_enable_unsupported(int bad)
{
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	if (bad || can)
		CALL(cuCtxEnablePeerAccess(ctx[1], 0));
}

static void peer_enable_twice(int bad)
{
	enable(0, 1);
	if (bad)
		CALL(cuCtxEnablePeerAccess(ctx[1], 0));
	else
		enable(1, 0); /* the other direction is a different grant */
}

/* Peer access is per pair of contexts: a second context of device 0 enables
 * access to device 1's primary context after the primary context of device
 * 0 did (good: the driver answers 0), or twice itself (bad: 704). */
static void peer_enable_twice_second_context(int bad)
{
	CUcontext m = made_on(0);
	if (!bad)
		enable(0, 1);
	ctx_enable(m, 0, ctx[1], 1);
	if (bad)
		ctx_enable_again(m, ctx[1]);
	CHECK(cuCtxDestroy_v2(m));
}

/* A device's primary context after cuDevicePrimaryCtxReset: inactive until
 * retained again (the same handle; used before, 709: H200, driver 580). */
static void reset_primary(int d)
{
	CUcontext again;
	CHECK(cuDevicePrimaryCtxReset_v2(d));
	CHECK(cuDevicePrimaryCtxRetain(&again, d));
	if (d < 16)
		ctx[d] = again;
}

/* cuDevicePrimaryCtxReset of device 0 ends the access its primary context
 * enabled: enabled again, 0 (good); a reset of device 2, which neither
 * context is, leaves it (bad: 704).  PWSIM_DEVICES=3. */
static void peer_enable_twice_reset(int bad)
{
	enable(0, 1);
	reset_primary(bad ? 2 : 0);
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	ctx_enable_again(ctx[0], ctx[1]);
}

/* The last release of device 0's primary context resets it ("The context is
 * automatically reset once the last reference to it is released"): retained
 * again, it enables anew (good); a release that leaves a reference keeps it
 * (bad: 704). */
static void peer_enable_twice_release(int bad)
{
	CUcontext again;
	enable(0, 1);
	if (bad)
		CHECK(cuDevicePrimaryCtxRetain(&again, 0)); /* a second reference */
	CHECK(cuDevicePrimaryCtxRelease_v2(0));
	CHECK(cuDevicePrimaryCtxRetain(&again, 0));
	ctx_enable_again(again, ctx[1]);
}

/* A context that enabled access is destroyed, and a new one (made at its
 * address by the simulated driver) enables the same (good: 0); or, the
 * first one not destroyed, it enables again (bad: 704). */
static void peer_enable_twice_destroyed(int bad)
{
	CUcontext a = made_on(0);
	ctx_enable(a, 0, ctx[1], 1);
	if (!bad)
		CHECK(cuCtxDestroy_v2(a));
	CUcontext b = made_on(0);
	ctx_enable_again(bad ? a : b, ctx[1]);
	CHECK(cuCtxDestroy_v2(b));
	if (bad)
		CHECK(cuCtxDestroy_v2(a));
}

/* With no current context (bad: 201), or with device 0's (good). */
static void peer_context_invalid(int bad)
{
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	if (bad)
		CHECK(cuCtxSetCurrent(NULL)); /* pops the only one */
	CALL(cuCtxEnablePeerAccess(ctx[1], 0));
	CHECK(cuCtxSetCurrent(ctx[0]));
}

/* An enable naming a peer context already destroyed (bad: 201), or one
 * still there (good: enabled, disabled, then destroyed). */
static void peer_context_invalid_destroyed(int bad)
{
	CUcontext m = made_on(1);
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	if (bad)
		CHECK(cuCtxDestroy_v2(m));
	CALL(cuCtxEnablePeerAccess(m, 0));
	if (!bad) {
		CHECK(cuCtxDisablePeerAccess(m));
		CHECK(cuCtxDestroy_v2(m));
	}
}

/* A disable naming a peer context destroyed after the enable (bad: 201),
 * or made before its destruction (good). */
static void peer_context_invalid_disable(int bad)
{
	CUcontext m = made_on(1);
	ctx_enable(ctx[0], 0, m, 1);
	if (bad)
		CHECK(cuCtxDestroy_v2(m));
	CALL(cuCtxDisablePeerAccess(m));
	if (!bad)
		CHECK(cuCtxDestroy_v2(m));
}

static void peer_enable_unqueried(int bad)
{
	int can;
	if (!bad)
		CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	CHECK(cuCtxEnablePeerAccess(ctx[1], 0));
}

static void peer_disable_not_enabled(int bad)
{
	if (!bad)
		enable(0, 1);
	CALL(cuCtxDisablePeerAccess(ctx[1]));
}

/* A second context of device 0 disables access to device 1's primary
 * context that only the primary context of device 0 enabled (bad: 705), or
 * that it enabled itself (good). */
static void peer_disable_not_enabled_second_context(int bad)
{
	CUcontext m = made_on(0);
	enable(0, 1);
	if (!bad)
		ctx_enable(m, 0, ctx[1], 1);
	CHECK(cuCtxSetCurrent(m));
	CALL(cuCtxDisablePeerAccess(ctx[1]));
	CHECK(cuCtxSetCurrent(ctx[0]));
	CHECK(cuCtxDestroy_v2(m));
}

/* Run with PWSIM_DEVICES=10: device 0 gets 8 peers; bad asks for a ninth. */
static void peer_limit(int bad)
{
	for (int d = 1; d <= 8; d++)
		enable(0, d);
	int can;
	CHECK(cuDeviceCanAccessPeer(&can, 0, 9));
	if (bad)
		CALL(cuCtxEnablePeerAccess(ctx[9], 0));
	else
		CHECK(cuCtxDisablePeerAccess(ctx[8]));
}

static void copy_setup(CUdeviceptr *a0, CUdeviceptr *a1)
{
	enable(0, 1);
	enable(1, 0);
	*a0 = alloc_on(0, MIB);
	*a1 = alloc_on(1, MIB);
}

static void copy_peer_device_mismatch(int bad)
{
	CUdeviceptr a0, a1;
	copy_setup(&a0, &a1);
	CALL(cuMemcpyPeer(a1, ctx[bad ? 0 : 1], a0, ctx[0], 4096));
}

static void copy_peer_out_of_bounds(int bad)
{
	CUdeviceptr a0, a1;
	copy_setup(&a0, &a1);
	CALL(cuMemcpyPeer(a1 + 4096, ctx[1], a0, ctx[0], bad ? MIB : MIB - 4096));
}

static void copy_peer_null(int bad)
{
	CUdeviceptr a0, a1;
	copy_setup(&a0, &a1);
	CALL(cuMemcpyPeer(bad ? 0 : a1, ctx[1], a0, ctx[0], 4096));
}

static void copy_peer_no_peer_access(int bad)
{
	CUdeviceptr a0 = alloc_on(0, MIB), a1 = alloc_on(1, MIB);
	if (!bad)
		enable(1, 0);
	CHECK(cuMemcpyPeer(a1, ctx[1], a0, ctx[0], MIB));
}

/* Peer access between the primary contexts, and a copy naming a second
 * context of device 0 for the source: that pair has none (bad), or the
 * second context enabled it (good). */
static void copy_peer_no_peer_access_second_context(int bad)
{
	CUdeviceptr a0, a1;
	copy_setup(&a0, &a1);
	CUcontext m = made_on(0);
	if (!bad)
		ctx_enable(m, 0, ctx[1], 1);
	CHECK(cuMemcpyPeer(a1, ctx[1], a0, m, MIB));
	CHECK(cuCtxDestroy_v2(m));
}

/* cuDevicePrimaryCtxReset of device 1 ends the access between the two
 * primary contexts, both ways: a copy after it is staged (bad), unless
 * enabled again (good).  Allocated after the reset, which destroys the
 * context's allocations. */
static void copy_peer_no_peer_access_reset(int bad)
{
	enable(0, 1);
	enable(1, 0);
	reset_primary(1);
	if (!bad) {
		enable(0, 1);
		enable(1, 0);
	}
	CUdeviceptr a0 = alloc_on(0, MIB), a1 = alloc_on(1, MIB);
	CHECK(cuMemcpyPeer(a1, ctx[1], a0, ctx[0], MIB));
}

/* Into a host buffer (bad) or device 1's memory (good). */
static void copy_peer_host(int bad)
{
	static char host[MIB];
	CUdeviceptr a0, a1;
	copy_setup(&a0, &a1);
	CALL(cuMemcpyPeer(bad ? (CUdeviceptr)(uintptr_t)host : a1, ctx[1], a0, ctx[0], 4096));
}

/* From memory freed before the copy (bad) or after it (good). */
static void copy_peer_freed(int bad)
{
	CUdeviceptr a0, a1;
	copy_setup(&a0, &a1);
	if (bad)
		CHECK(cuMemFree_v2(a0));
	CALL(cuMemcpyPeer(a1, ctx[1], a0, ctx[0], 4096));
	if (!bad)
		CHECK(cuMemFree_v2(a0));
}

/* A copy naming a second context of device 0, after it was destroyed (bad)
 * or before (good; it enabled access to device 1's primary context). */
static void copy_peer_context_destroyed(int bad)
{
	CUdeviceptr a0 = alloc_on(0, MIB), a1 = alloc_on(1, MIB);
	CUcontext m = made_on(0);
	ctx_enable(m, 0, ctx[1], 1);
	if (bad)
		CHECK(cuCtxDestroy_v2(m));
	CALL(cuMemcpyPeer(a1, ctx[1], a0, m, 4096));
	if (!bad)
		CHECK(cuCtxDestroy_v2(m));
}

static void ipc_export_interior_pointer(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	CHECK(cuIpcGetMemHandle(&h, bad ? a + 256 : a));
}

static void ipc_export_managed(int bad)
{
	CUdeviceptr m, a = alloc_on(0, MIB);
	CHECK(cuMemAllocManaged(&m, MIB, CU_MEM_ATTACH_GLOBAL));
	CUipcMemHandle h;
	CALL(cuIpcGetMemHandle(&h, bad ? m : a));
}

static void ipc_open_same_process(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB), p;
	CUipcMemHandle h;
	CHECK(cuIpcGetMemHandle(&h, a));
	if (bad) {
		CALL(cuIpcOpenMemHandle_v2(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	} else {
		struct child c = spawn("open-close", &h);
		hear(c.from);
		reap(c);
	}
}

static void ipc_child_scenario(const char *bad_what, const char *good_what, int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	CHECK(cuIpcGetMemHandle(&h, a));
	struct child c = spawn(bad ? bad_what : good_what, &h);
	hear(c.from);
	reap(c);
	CHECK(cuMemFree_v2(a));
}

static void ipc_open_flags(int bad)
{
	ipc_child_scenario("flags", "open-close", bad);
}

/* Opened again in a second context of the same device (bad), or in the
 * same context (good: the driver counts it). */
static void ipc_open_second_context(int bad)
{
	ipc_child_scenario("second-context", "same-context", bad);
}

/* A handle of bytes no process exported (bad), or the exporter's (good):
 * with the registry on, that is known. */
static void ipc_open_unexported(int bad)
{
	ipc_child_scenario("open-garbage", "open-close", bad);
}

/* cuMemFree of an IPC mapping (bad) instead of only its close (good). */
static void ipc_free_imported(int bad)
{
	ipc_child_scenario("free-mapping", "open-close", bad);
}

/* A malloc'd buffer (bad) or device memory (good). */
static void ipc_export_host(int bad)
{
	static char buf[4096];
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	CALL(cuIpcGetMemHandle(&h, bad ? (CUdeviceptr)(uintptr_t)buf : a));
	CHECK(cuMemFree_v2(a));
}

/* After the free (bad) or before it (good). */
static void ipc_export_freed(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	if (bad)
		CHECK(cuMemFree_v2(a));
	CALL(cuIpcGetMemHandle(&h, a));
	if (!bad)
		CHECK(cuMemFree_v2(a));
}

/* ---- event handles ---- */

static CUevent ipc_event(unsigned flags, CUipcEventHandle *h)
{
	CUevent e;
	CHECK(cuEventCreate(&e, flags));
	CALL(cuIpcGetEventHandle(h, e));
	return e;
}

/* An event made without the interprocess flag (bad) or with both flags (good). */
static void ipc_event_flags(int bad)
{
	CUipcEventHandle h;
	CUevent e =
	    ipc_event(bad ? CU_EVENT_DISABLE_TIMING : CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS, &h);
	CHECK(cuEventDestroy_v2(e));
}

static void ipc_event_child(const char *bad_what, const char *good_what, int bad)
{
	CUipcEventHandle h;
	CUipcMemHandle carrier;
	CUevent e = ipc_event(CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS, &h);
	memcpy(&carrier, &h, sizeof h);
	struct child c = spawn(bad ? bad_what : good_what, &carrier);
	hear(c.from);
	reap(c);
	CHECK(cuEventDestroy_v2(e));
}

/* Opened in the process that exported it (bad), or in another (good). */
static void ipc_event_same_process(int bad)
{
	CUipcEventHandle h;
	CUevent e = ipc_event(CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS, &h), o;
	if (bad) {
		CALL(cuIpcOpenEventHandle(&o, h));
	} else {
		CUipcMemHandle carrier;
		memcpy(&carrier, &h, sizeof h);
		struct child c = spawn("event-open-destroy", &carrier);
		hear(c.from);
		reap(c);
	}
	CHECK(cuEventDestroy_v2(e));
}

/* The importer never destroys its event (bad), or does (good). */
static void ipc_event_leak(int bad)
{
	ipc_event_child("event-open-leak", "event-open-destroy", bad);
}

/* The exporter destroys while the importer still has it (bad), or after (good). */
static void ipc_event_destroy_while_open(int bad)
{
	CUipcEventHandle h;
	CUipcMemHandle carrier;
	CUevent e = ipc_event(CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS, &h);
	memcpy(&carrier, &h, sizeof h);
	struct child c = spawn("event-open-wait-destroy", &carrier);
	hear(c.from); /* opened */
	if (bad)
		CHECK(cuEventDestroy_v2(e));
	say(c.to);
	hear(c.from); /* destroyed its copy */
	reap(c);
	if (!bad)
		CHECK(cuEventDestroy_v2(e));
}

/* Device 7 of 2 (bad) or device 1 (good), in a peer query and a P2P attribute query. */
static void peer_invalid_device(int bad)
{
	int can, v;
	CALL(cuDeviceCanAccessPeer(&can, 0, bad ? 7 : 1));
	CALL(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
}

static void ipc_close_twice(int bad)
{
	ipc_child_scenario("close-twice", "open-close", bad);
}

static void ipc_leak(int bad)
{
	ipc_child_scenario("leak", "open-close", bad);
}

static void ipc_close_unknown(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	if (bad) {
		CALL(cuIpcCloseMemHandle(a));
	} else {
		CHECK(cuMemFree_v2(a));
	}
}

/* The exporter frees while the importer holds the mapping (bad), or after it closed (good). */
static void ipc_free_while_open(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	CHECK(cuIpcGetMemHandle(&h, a));
	struct child c = spawn("open-wait-close", &h);
	hear(c.from); /* opened */
	if (bad)
		CHECK(cuMemFree_v2(a));
	say(c.to);
	hear(c.from); /* closed */
	reap(c);
	if (!bad)
		CHECK(cuMemFree_v2(a));
}

/* The importer opens after the exporter freed (bad) or before (good). */
static void ipc_open_stale(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	CHECK(cuIpcGetMemHandle(&h, a));
	if (bad)
		CHECK(cuMemFree_v2(a));
	struct child c = spawn(bad ? "open-stale" : "open-close", &h);
	hear(c.from);
	reap(c);
	if (!bad)
		CHECK(cuMemFree_v2(a));
}

/* The importer sees the devices the other way round (CUDA_VISIBLE_DEVICES=1,0):
 * its device 1 is the exporter's device 0 (good), its device 0 the other
 * one, which cannot access it (PWSIM_PEERS=none; bad).  By ordinal alone
 * both would be judged wrong. */
static void ipc_open_unreachable(int bad)
{
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle h;
	CHECK(cuIpcGetMemHandle(&h, a));
	setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
	struct child c = spawn(bad ? "open-on0" : "open-close", &h);
	unsetenv("CUDA_VISIBLE_DEVICES");
	hear(c.from);
	reap(c);
	CHECK(cuMemFree_v2(a));
}

static CUdeviceptr managed(size_t n)
{
	CUdeviceptr m;
	CHECK(cuMemAllocManaged(&m, n, CU_MEM_ATTACH_GLOBAL));
	return m;
}

static void managed_alloc_size_zero(int bad)
{
	CUdeviceptr m;
	CALL(cuMemAllocManaged(&m, bad ? 0 : 4096, CU_MEM_ATTACH_GLOBAL)); /* the driver refuses 0 */
}

static void managed_alloc_flags(int bad)
{
	CUdeviceptr m;
	CALL(cuMemAllocManaged(&m, 4096, bad ? CU_MEM_ATTACH_SINGLE : CU_MEM_ATTACH_HOST));
}

static const CUmemLocation dev1 = {CU_MEM_LOCATION_TYPE_DEVICE, 1};

static void managed_advise_not_managed(int bad)
{
	CUdeviceptr p = bad ? alloc_on(0, 65536) : managed(65536);
	CALL(cuMemAdvise_v2(p, 65536, CU_MEM_ADVISE_SET_READ_MOSTLY, dev1));
}

static void managed_advise_unaligned(int bad)
{
	CUdeviceptr m = managed(65536);
	CHECK(cuMemAdvise_v2(bad ? m + 1 : m + 4096, bad ? 100 : 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, dev1));
}

static void managed_advise_out_of_range(int bad)
{
	CUdeviceptr m = managed(65536);
	CALL(cuMemAdvise_v2(m + 4096, bad ? 65536 : 65536 - 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, dev1));
}

static void managed_advise_invalid(int bad)
{
	CUdeviceptr m = managed(65536);
	CALL(cuMemAdvise_v2(m, 65536, bad ? 99 : CU_MEM_ADVISE_UNSET_READ_MOSTLY, dev1));
}

static void managed_prefetch_not_managed(int bad)
{
	CUdeviceptr p = bad ? alloc_on(0, 65536) : managed(65536);
	CALL(cuMemPrefetchAsync_v2(p, 65536, dev1, 0, stream));
}

static void managed_prefetch_invalid_device(int bad)
{
	CUdeviceptr m = managed(65536);
	CUmemLocation to = {CU_MEM_LOCATION_TYPE_DEVICE, bad ? 9 : 1};
	CALL(cuMemPrefetchAsync_v2(m, 65536, to, 0, stream));
}

static void managed_prefetch_out_of_range(int bad)
{
	CUdeviceptr m = managed(65536);
	CALL(cuMemPrefetchAsync_v2(m, bad ? 0 : 1, dev1, 0, stream));
}

static void managed_range_attr_data_size(int bad)
{
	CUdeviceptr m = managed(65536);
	int v[2];
	CALL(cuMemRangeGetAttribute(v, bad ? 3 : 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 65536));
}

/* set-accessed-by takes a device or the host, not a host NUMA node (cuda.h cuMemAdvise) */
static void managed_advise_location(int bad)
{
	CUdeviceptr m = managed(65536);
	CUmemLocation where = {bad ? CU_MEM_LOCATION_TYPE_HOST_NUMA : CU_MEM_LOCATION_TYPE_HOST, 0};
	CALL(cuMemAdvise_v2(m, 65536, CU_MEM_ADVISE_SET_ACCESSED_BY, where));
}

static void managed_prefetch_location(int bad)
{
	CUdeviceptr m = managed(65536);
	CUmemLocation where = {bad ? CU_MEM_LOCATION_TYPE_INVALID : CU_MEM_LOCATION_TYPE_HOST, 0};
	CALL(cuMemPrefetchAsync_v2(m, 65536, where, 0, stream));
}

static void managed_prefetch_flags(int bad)
{
	CUdeviceptr m = managed(65536);
	CALL(cuMemPrefetchAsync_v2(m, 65536, dev1, bad ? 1 : 0, stream));
}

static void managed_range_attr_invalid(int bad)
{
	CUdeviceptr m = managed(65536);
	int v = 0;
	void *data[1] = {&v};
	size_t size[1] = {4};
	CUmem_range_attribute attr[1] = {bad ? 9 : CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE};
	CALL(cuMemRangeGetAttributes(data, size, attr, 1, m, 65536));
}

static void managed_range_attr_not_managed(int bad)
{
	CUdeviceptr p = bad ? alloc_on(0, 65536) : managed(65536);
	int v;
	CALL(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 65536));
}

static void managed_range_attr_out_of_range(int bad)
{
	CUdeviceptr m = managed(65536);
	int v;
	CALL(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + 4096, bad ? 65536 : 4096));
}

static void managed_attach_not_managed(int bad)
{
	CUdeviceptr p = bad ? alloc_on(0, 65536) : managed(65536);
	CALL(cuStreamAttachMemAsync(stream, p, 0, CU_MEM_ATTACH_SINGLE));
}

static void managed_attach_length(int bad)
{
	CUdeviceptr m = managed(65536);
	CALL(cuStreamAttachMemAsync(stream, m, bad ? 4096 : 65536, CU_MEM_ATTACH_SINGLE));
}

static void managed_attach_flags(int bad)
{
	CUdeviceptr m = managed(65536);
	CALL(cuStreamAttachMemAsync(bad ? NULL : stream, m, 0, CU_MEM_ATTACH_SINGLE));
}

/* Exported as a POSIX fd although created for no export (bad) or for it (good). */
static void vmm_export_handle_type(int bad)
{
	CUmemGenericAllocationHandle h =
	    vmm_create(0, bad ? CU_MEM_HANDLE_TYPE_NONE : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	int fd = -1;
	CALL(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	if (fd >= 0)
		close(fd);
	CHECK(cuMemRelease(h));
}

/* The child imports after the exporter released the allocation (bad) or before (good). */
static void vmm_import_released(int bad)
{
	CUmemGenericAllocationHandle h = vmm_create(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	int fd;
	CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	fcntl(fd, F_SETFD, 0); /* inherited by the child over exec */
	if (bad)
		CHECK(cuMemRelease(h));
	CUipcMemHandle carrier;
	memset(&carrier, 0, sizeof carrier);
	snprintf(carrier.reserved, sizeof carrier.reserved, "%d", fd);
	struct child c = spawn_str("vmm-import", carrier.reserved);
	hear(c.from);
	reap(c);
	close(fd);
	if (!bad)
		CHECK(cuMemRelease(h));
}

/* A peer copy from device 0 into a mapping on device 1 that only device 1
 * may access (bad), or device 0 too (good). */
static void vmm_copy_no_access(int bad)
{
	enable(0, 1);
	enable(1, 0);
	CUmemGenericAllocationHandle h = vmm_create(1, CU_MEM_HANDLE_TYPE_NONE);
	CUdeviceptr va, src = alloc_on(0, MIB);
	CUmemAccessDesc a[2] = {rw(1), rw(0)};
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	CHECK(cuMemMap(va, GRAN, 0, h, 0));
	CHECK(cuMemSetAccess(va, GRAN, a, bad ? 1 : 2));
	CALL(cuMemcpyPeer(va, ctx[1], src, ctx[0], MIB));
	CHECK(cuMemUnmap(va, GRAN));
	CHECK(cuMemRelease(h));
	CHECK(cuMemAddressFree(va, GRAN));
	CHECK(cuMemFree_v2(src));
}

/* A mapping left in place at exit (bad) or unmapped (good). */
static void vmm_leak(int bad)
{
	CUmemGenericAllocationHandle h = vmm_create(0, CU_MEM_HANDLE_TYPE_NONE);
	CUdeviceptr va;
	CUmemAccessDesc a = rw(0);
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	CHECK(cuMemMap(va, GRAN, 0, h, 0));
	CHECK(cuMemSetAccess(va, GRAN, &a, 1));
	CHECK(cuMemRelease(h)); /* the mapping keeps the memory */
	if (!bad) {
		CHECK(cuMemUnmap(va, GRAN));
		CHECK(cuMemAddressFree(va, GRAN));
	}
}

/* Legacy IPC of stream-ordered pool memory (bad) or of cuMemAlloc memory (good). */
static void ipc_export_pool_or_vmm(int bad)
{
	CUdeviceptr p;
	CUipcMemHandle h;
	if (bad)
		CHECK(cuMemAllocAsync(&p, MIB, stream));
	else
		CHECK(cuMemAlloc_v2(&p, MIB));
	CALL(cuIpcGetMemHandle(&h, p));
	if (bad)
		CHECK(cuMemFreeAsync(p, stream));
	else
		CHECK(cuMemFree_v2(p));
}

static const struct {
	const char *rule;
	void (*run)(int bad);
} scenarios[] = {
    {"peer.enable.self", peer_enable_self},
    {"peer.enable.flags", peer_enable_flags},
    {"peer.enable.unsupported", peer_enable_unsupported},
    {"peer.enable.twice", peer_enable_twice},
    {"peer.enable.twice/second-context", peer_enable_twice_second_context},
    {"peer.enable.twice/reset", peer_enable_twice_reset},
    {"peer.enable.twice/release", peer_enable_twice_release},
    {"peer.enable.twice/destroyed", peer_enable_twice_destroyed},
    {"peer.context.invalid", peer_context_invalid},
    {"peer.context.invalid/destroyed", peer_context_invalid_destroyed},
    {"peer.context.invalid/disable", peer_context_invalid_disable},
    {"peer.enable.unqueried", peer_enable_unqueried},
    {"peer.disable.not-enabled", peer_disable_not_enabled},
    {"peer.disable.not-enabled/second-context", peer_disable_not_enabled_second_context},
    {"peer.limit", peer_limit},
    {"peer.attr.self", peer_attr_self},
    {"copy.peer.device-mismatch", copy_peer_device_mismatch},
    {"copy.peer.out-of-bounds", copy_peer_out_of_bounds},
    {"copy.peer.null", copy_peer_null},
    {"copy.peer.no-peer-access", copy_peer_no_peer_access},
    {"copy.peer.no-peer-access/second-context", copy_peer_no_peer_access_second_context},
    {"copy.peer.no-peer-access/reset", copy_peer_no_peer_access_reset},
    {"copy.peer.host", copy_peer_host},
    {"copy.peer.freed", copy_peer_freed},
    {"copy.peer.context-destroyed", copy_peer_context_destroyed},
    {"ipc.export.interior-pointer", ipc_export_interior_pointer},
    {"ipc.export.managed", ipc_export_managed},
    {"ipc.open.same-process", ipc_open_same_process},
    {"ipc.open.flags", ipc_open_flags},
    {"ipc.open.second-context", ipc_open_second_context},
    {"ipc.open.unexported", ipc_open_unexported},
    {"ipc.export.host", ipc_export_host},
    {"ipc.export.freed", ipc_export_freed},
    {"ipc.free-imported", ipc_free_imported},
    {"ipc.event.flags", ipc_event_flags},
    {"ipc.event.same-process", ipc_event_same_process},
    {"ipc.event.leak", ipc_event_leak},
    {"ipc.event.destroy-while-open", ipc_event_destroy_while_open},
    {"peer.invalid-device", peer_invalid_device},
    {"ipc.open.stale", ipc_open_stale},
    {"ipc.open.unreachable", ipc_open_unreachable},
    {"ipc.close.unknown", ipc_close_unknown},
    {"ipc.close.twice", ipc_close_twice},
    {"ipc.free-while-open", ipc_free_while_open},
    {"ipc.leak", ipc_leak},
    {"managed.alloc.size-zero", managed_alloc_size_zero},
    {"managed.alloc.flags", managed_alloc_flags},
    {"managed.advise.not-managed", managed_advise_not_managed},
    {"managed.advise.unaligned", managed_advise_unaligned},
    {"managed.advise.out-of-range", managed_advise_out_of_range},
    {"managed.advise.invalid", managed_advise_invalid},
    {"managed.advise.location", managed_advise_location},
    {"managed.prefetch.not-managed", managed_prefetch_not_managed},
    {"managed.prefetch.invalid-device", managed_prefetch_invalid_device},
    {"managed.prefetch.location", managed_prefetch_location},
    {"managed.prefetch.flags", managed_prefetch_flags},
    {"managed.prefetch.out-of-range", managed_prefetch_out_of_range},
    {"managed.range-attr.data-size", managed_range_attr_data_size},
    {"managed.range-attr.invalid", managed_range_attr_invalid},
    {"managed.range-attr.not-managed", managed_range_attr_not_managed},
    {"managed.range-attr.out-of-range", managed_range_attr_out_of_range},
    {"managed.attach.length", managed_attach_length},
    {"managed.attach.flags", managed_attach_flags},
    {"managed.attach.not-managed", managed_attach_not_managed},
    {"vmm.export.handle-type", vmm_export_handle_type},
    {"vmm.import.released", vmm_import_released},
    {"vmm.copy.no-access", vmm_copy_no_access},
    {"vmm.leak", vmm_leak},
    {"ipc.export.pool-or-vmm", ipc_export_pool_or_vmm},
};

/* NCCL's legacy IPC teardown, as a default suppression knows it: the
 * exporter frees while the importer holds the mapping, the free made from
 * a module named libnccl.so.2 (tests/integration/fake_nccl.c at LIB). */
static int free_shim(uint64_t p)
{
	return (int)cuMemFree_v2((CUdeviceptr)p);
}

static int nccl_teardown(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "violations: %s\n", dlerror());
		return 2;
	}
	int (*teardown)(int (*)(uint64_t), uint64_t);
	*(void **)&teardown = dlsym(h, "fake_nccl_teardown");
	if (!teardown)
		return 2;
	init();
	CUdeviceptr a = alloc_on(0, MIB);
	CUipcMemHandle ih;
	CHECK(cuIpcGetMemHandle(&ih, a));
	struct child c = spawn("open-wait-close", &ih);
	hear(c.from); /* opened */
	CHECK((CUresult)teardown(free_shim, (uint64_t)a));
	say(c.to);
	hear(c.from); /* closed */
	reap(c);
	return 0;
}

/* `violations ctx-reuse`: correct calls, with a context the driver makes at
 * the address of one destroyed before it, on another device (the simulated
 * driver reuses its first free slot; a real driver may reuse the memory).
 * A copy naming the first context, then one naming the second: the second
 * copy's destination is on device 1, as the new context is.  Each new
 * context enables its own peer access (per pair of contexts), the second
 * one to a context the first one's had none to. */
static int ctx_reuse(void)
{
	CUdeviceptr a0, a1;
	CUcontext made, made2;
	init();
	copy_setup(&a0, &a1);
	CHECK(cuCtxCreate_v2(&made, 0, 0)); /* current now */
	CHECK(cuCtxEnablePeerAccess(ctx[1], 0));
	CHECK(cuMemcpyPeer(a1, ctx[1], a0, made, 4096));
	CHECK(cuCtxDestroy_v2(made));
	CHECK(cuCtxCreate_v2(&made2, 0, 1));
	CHECK(cuCtxEnablePeerAccess(ctx[0], 0));
	CHECK(cuMemcpyPeer(a1, made2, a0, ctx[0], 4096));
	printf("%s\n", made2 == made ? "same address" : "another address");
	CHECK(cuCtxDestroy_v2(made2));
	return 0;
}

/* `violations several`: four findings in one process, each at a call site
 * of its own, the first on the first call that breaks a contract: three
 * errors, then a warning; "done" at the end.  (rules.sh: warn and enforce
 * go on checking when no trace can be kept.) */
static int several(void)
{
	CUdeviceptr a0, a1;
	int can;
	init();
	CHECK(cuDeviceCanAccessPeer(&can, 0, 1));
	CALL(cuCtxEnablePeerAccess(ctx[0], 0)); /* peer.enable.self */
	copy_setup(&a0, &a1);
	CALL(cuMemcpyPeer(a1 + 4096, ctx[1], a0, ctx[0], MIB)); /* copy.peer.out-of-bounds */
	CALL(cuMemcpyPeer(0, ctx[1], a0, ctx[0], 4096));        /* copy.peer.null */
	CALL(cuCtxEnablePeerAccess(ctx[1], 0));                 /* peer.enable.twice */
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 6 && !strcmp(argv[1], "child"))
		return child_main(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
			printf("%s\n", scenarios[i].rule);
		return 0;
	}
	/* `violations model WHAT`: the exporter of one child scenario (the IPC
	 * mapping model of tests/integration/ipc_model.sh) */
	if (argc == 3 && !strcmp(argv[1], "nccl-teardown"))
		return nccl_teardown(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "ctx-reuse"))
		return ctx_reuse();
	if (argc == 2 && !strcmp(argv[1], "several"))
		return several();
	if (argc == 3 && !strcmp(argv[1], "model")) {
		init();
		ipc_child_scenario(argv[2], argv[2], 1);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "bad") && strcmp(argv[2], "good"))) {
		fprintf(stderr,
		        "usage: violations RULE[/CASE] bad|good | violations list | violations model WHAT | "
		        "violations ctx-reuse | violations several\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
		if (!strcmp(argv[1], scenarios[i].rule)) {
			init();
			scenarios[i].run(!strcmp(argv[2], "bad"));
			return 0;
		}
	fprintf(stderr, "violations: no scenario for %s\n", argv[1]);
	return 2;
}

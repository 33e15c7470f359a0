/*
 * One program per rule that applies to HIP, against the simulated HIP
 * runtime (tests/sim/hip_*): `hip_violations RULE bad` breaks exactly that
 * contract once, as the documents (the HIP peer, IPC and managed-memory documents) describe the
 * mistake; `hip_violations RULE good` makes the nearest correct call.
 * Everything else each scenario does is correct, so the trace must hold
 * exactly one finding (bad) or none (good).  IPC scenarios start a second
 * process (this program again, `child ...`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hip_api.h"

#define MIB (1u << 20)
static int ndev;
static hipStream_t stream;
static const char *self;
static unsigned lazy; /* hipIpcMemLazyEnablePeerAccess of the runtime we run on */
static int unasked;   /* managed.alloc.unqueried bad: init asks no device about managed memory */

/* Return codes are not checked here: the runtime's answer to a broken
 * contract is part of what the test looks at in the trace. */
#define CALL(x) ((void)(x))

static void init(void)
{
	int v = 0;
	HCHECK(hipGetDeviceCount(&ndev));
	HCHECK(hipRuntimeGetVersion(&v));
	lazy = v >= 60000000 ? PW_HIP_IPC_LAZY_6 : PW_HIP_IPC_LAZY_5;
	HCHECK(hipSetDevice(0));
	HCHECK(hipStreamCreate(&stream));
	/* hipMallocManaged: "It is recommend to do the capability check before call this API" */
	for (int d = 0; d < ndev && !unasked; d++) {
		int managed = 0;
		HCHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, d));
	}
}

/* Peer access from `from` to `to`, done right (the HIP peer document: ask, then enable). */
static void enable(int from, int to)
{
	int can;
	HCHECK(hipSetDevice(from));
	HCHECK(hipDeviceCanAccessPeer(&can, from, to));
	HCHECK(hipDeviceEnablePeerAccess(to, 0));
	HCHECK(hipSetDevice(0));
}

static char *managed(size_t n);

static void *alloc_on(int d, size_t n)
{
	void *p;
	HCHECK(hipSetDevice(d));
	HCHECK(hipMalloc(&p, n));
	HCHECK(hipSetDevice(0));
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

static struct child spawn(const char *what, const hipIpcMemHandle_t *h)
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
		fprintf(stderr, "hip_violations: the child failed\n");
		exit(1);
	}
}

/* The child: open the handle (on device 1) and do what `what` says. */
static int child_main(const char *what, const char *hh, int in, int out)
{
	hipIpcMemHandle_t h;
	unhex(hh, &h, sizeof h);
	init();
	HCHECK(hipSetDevice(1));
	void *p = NULL, *q = NULL;
	if (!strcmp(what, "open-close")) {
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
		HCHECK(hipIpcCloseMemHandle(p));
	} else if (!strcmp(what, "open-on0")) {
		HCHECK(hipSetDevice(0));
		/* a device that cannot reach the exporter's: the HIP document does
		 * not say that the open fails (the simulator maps it) */
		if (hipIpcOpenMemHandle(&p, h, lazy) == hipSuccess)
			HCHECK(hipIpcCloseMemHandle(p));
	} else if (!strcmp(what, "open-stale")) {
		CALL(hipIpcOpenMemHandle(&p, h, lazy)); /* the exporter freed it */
	} else if (!strcmp(what, "open-wait-close")) {
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
		say(out);
		hear(in); /* the exporter frees (or not) now */
		CALL(hipIpcCloseMemHandle(p));
	} else if (!strcmp(what, "reopen")) {
		/* the same device twice: counted (the simulator gives the same pointer) */
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
		if (hipIpcOpenMemHandle(&q, h, lazy) == hipSuccess)
			HCHECK(hipIpcCloseMemHandle(q));
		HCHECK(hipIpcCloseMemHandle(p));
	} else if (!strcmp(what, "free-mapping")) {
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
		CALL(hipFree(p)); /* refused: the mapping stays */
		HCHECK(hipIpcCloseMemHandle(p));
	} else if (!strcmp(what, "open-garbage")) {
		h.reserved[40] ^= 0x5a;
		CALL(hipIpcOpenMemHandle(&p, h, lazy));
	} else if (!strcmp(what, "event-open-destroy") || !strcmp(what, "event-open-leak")) {
		hipIpcEventHandle_t eh;
		hipEvent_t e;
		memcpy(&eh, &h, sizeof eh);
		HCHECK(hipIpcOpenEventHandle(&e, eh));
		if (!strcmp(what, "event-open-destroy"))
			HCHECK(hipEventDestroy(e));
	} else if (!strcmp(what, "event-open-wait-destroy")) {
		hipIpcEventHandle_t eh;
		hipEvent_t e;
		memcpy(&eh, &h, sizeof eh);
		HCHECK(hipIpcOpenEventHandle(&e, eh));
		say(out);
		hear(in); /* the exporter destroys its event (or not) now */
		HCHECK(hipEventDestroy(e));
	} else if (!strcmp(what, "close-twice")) {
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
		HCHECK(hipIpcCloseMemHandle(p));
		CALL(hipIpcCloseMemHandle(p));
	} else if (!strcmp(what, "leak")) {
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
	} else if (!strcmp(what, "flags")) {
		CALL(hipIpcOpenMemHandle(&p, h, 0x2)); /* no version defines 2 */
	} else if (!strcmp(what, "lazy-copy") || !strcmp(what, "lazy-copy-third")) {
		/* a copy from the mapping (on device 1 for the runtime, its memory on
		 * the exporter's device 0) naming device 0, or device 2 (PWSIM_DEVICES=3) */
		void *mine = NULL;
		HCHECK(hipIpcOpenMemHandle(&p, h, lazy));
		HCHECK(hipMalloc(&mine, MIB));
		CALL(hipMemcpyPeer(mine, 1, p, strcmp(what, "lazy-copy") ? 2 : 0, MIB));
		HCHECK(hipFree(mine));
		HCHECK(hipIpcCloseMemHandle(p));
	} else if (!strncmp(what, "pool-import:", 12)) {
		/* pool-import:FD:FLAGS:ALLOC, the handle's bytes the export data:
		 * import the pool (fd inherited), then allocate from it (ALLOC 1)
		 * or import the exporter's allocation and free it */
		int fd = -1, alloc = 0;
		unsigned flags = 0;
		hipMemPool_t pool = NULL;
		hipMemPoolPtrExportData x;
		if (sscanf(what + 12, "%d:%u:%d", &fd, &flags, &alloc) != 3)
			return 2;
		memcpy(&x, &h, sizeof x);
		if (flags) {
			CALL(hipMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
			                                         hipMemHandleTypePosixFileDescriptor, flags));
		} else {
			HCHECK(hipMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
			                                           hipMemHandleTypePosixFileDescriptor, 0));
			if (alloc)
				CALL(hipMallocFromPoolAsync(&p, MIB, pool, stream));
			HCHECK(hipMemPoolImportPointer(&q, pool, &x));
			HCHECK(hipFree(q));
			HCHECK(hipMemPoolDestroy(pool));
		}
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
	HCHECK(hipDeviceCanAccessPeer(&can, 0, 1));
	CALL(hipDeviceEnablePeerAccess(bad ? 0 : 1, 0));
}

/* 000: "flags - Reserved for future use, must be zero". */
static void peer_enable_flags(int bad)
{
	int can;
	HCHECK(hipDeviceCanAccessPeer(&can, 0, 1));
	CALL(hipDeviceEnablePeerAccess(1, bad ? 1 : 0));
}

/* Run with PWSIM_PEERS=none: no pair supports peer access; good asks and stays away. */
static void peer_enable_unsupported(int bad)
{
	int can;
	HCHECK(hipDeviceCanAccessPeer(&can, 0, 1));
	if (bad || can)
		CALL(hipDeviceEnablePeerAccess(1, 0));
}

/* 000: "hipErrorPeerAccessAlreadyEnabled if peer access is already enabled". */
static void peer_enable_twice(int bad)
{
	enable(0, 1);
	if (bad)
		CALL(hipDeviceEnablePeerAccess(1, 0));
	else
		enable(1, 0); /* the other direction is a different grant */
}

static void peer_enable_unqueried(int bad)
{
	int can;
	if (!bad)
		HCHECK(hipDeviceCanAccessPeer(&can, 0, 1));
	HCHECK(hipDeviceEnablePeerAccess(1, 0));
}

/* 000: "If direct access ... has not been enabled yet ... hipErrorPeerAccessNotEnabled". */
static void peer_disable_not_enabled(int bad)
{
	if (!bad)
		enable(0, 1);
	CALL(hipDeviceDisablePeerAccess(1));
}

/* Run with PWSIM_DEVICES=10: device 0 gets 8 peers; bad asks for a ninth. */
static void peer_limit(int bad)
{
	for (int d = 1; d <= 8; d++)
		enable(0, d);
	int can;
	HCHECK(hipDeviceCanAccessPeer(&can, 0, 9));
	if (bad)
		CALL(hipDeviceEnablePeerAccess(9, 0));
	else
		HCHECK(hipDeviceDisablePeerAccess(8));
}

static void copy_setup(char **a0, char **a1)
{
	enable(0, 1);
	enable(1, 0);
	*a0 = alloc_on(0, MIB);
	*a1 = alloc_on(1, MIB);
}

static void copy_peer_device_mismatch(int bad)
{
	char *a0, *a1;
	copy_setup(&a0, &a1);
	CALL(hipMemcpyPeer(a1, bad ? 0 : 1, a0, 0, 4096));
}

static void copy_peer_out_of_bounds(int bad)
{
	char *a0, *a1;
	copy_setup(&a0, &a1);
	CALL(hipMemcpyPeer(a1 + 4096, 1, a0, 0, bad ? MIB : MIB - 4096));
}

static void copy_peer_null(int bad)
{
	char *a0, *a1;
	copy_setup(&a0, &a1);
	CALL(hipMemcpyPeer(bad ? NULL : a1, 1, a0, 0, 4096));
}

static void copy_peer_no_peer_access(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB);
	if (!bad)
		enable(1, 0);
	HCHECK(hipMemcpyPeerAsync(a1, 1, a0, 0, MIB, stream));
	HCHECK(hipStreamSynchronize(stream));
}

/* hipMemcpy2D between two devices: an implicit peer copy, staged without
 * peer access (bad), direct with it (good) */
static void copy_peer_no_peer_access_2d(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB);
	if (!bad)
		enable(1, 0);
	HCHECK(hipMemcpy2D(a1, 4096, a0, 4096, 4096, 64, hipMemcpyDeviceToDevice));
}

/* 000: "src[in] - Source device pointer" (and dst): a host buffer is none;
 * "copy.peer.host/dst" the same for the destination. */
static void copy_peer_host(int bad)
{
	static char host[4096];
	char *a0, *a1;
	copy_setup(&a0, &a1);
	CALL(hipMemcpyPeer(a1, 1, bad ? host : a0, 0, 4096));
}

static void copy_peer_host_dst(int bad)
{
	static char host[4096];
	char *a0, *a1;
	copy_setup(&a0, &a1);
	CALL(hipMemcpyPeerAsync(bad ? host : a1, 1, a0, 0, 4096, stream));
	HCHECK(hipStreamSynchronize(stream));
}

/* A source hipFree freed; good copies first, then frees. */
static void copy_peer_freed(int bad)
{
	char *a0, *a1;
	copy_setup(&a0, &a1);
	if (bad)
		HCHECK(hipFree(a0));
	CALL(hipMemcpyPeer(a1, 1, a0, 0, 4096));
	if (!bad)
		HCHECK(hipFree(a0));
}

/* Managed memory (hipMallocManaged) as the source of a peer copy. */
static void copy_peer_managed(int bad)
{
	char *a0, *a1;
	copy_setup(&a0, &a1);
	char *src = bad ? managed(65536) : a0;
	CALL(hipMemcpyPeer(a1, 1, src, 0, 4096));
}

/* hipDeviceCanAccessPeer with nowhere to put the answer: hipErrorInvalidValue. */
static void peer_query_null(int bad)
{
	int can;
	CALL(hipDeviceCanAccessPeer(bad ? NULL : &can, 0, 1));
}

/* 002: "Takes a pointer to the base of an existing device memory allocation". */
static void ipc_export_interior_pointer(int bad)
{
	char *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	CALL(hipIpcGetMemHandle(&h, bad ? a + 256 : a));
}

static void ipc_export_managed(int bad)
{
	void *m, *a = alloc_on(0, MIB);
	HCHECK(hipMallocManaged(&m, MIB, hipMemAttachGlobal));
	hipIpcMemHandle_t h;
	CALL(hipIpcGetMemHandle(&h, bad ? m : a));
}

static void ipc_open_same_process(int bad)
{
	void *a = alloc_on(0, MIB), *p;
	hipIpcMemHandle_t h;
	HCHECK(hipIpcGetMemHandle(&h, a));
	if (bad) {
		CALL(hipIpcOpenMemHandle(&p, h, lazy)); /* HIP: hipErrorInvalidContext */
	} else {
		struct child c = spawn("open-close", &h);
		hear(c.from);
		reap(c);
	}
}

static void ipc_child_scenario(const char *bad_what, const char *good_what, int bad)
{
	void *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	HCHECK(hipIpcGetMemHandle(&h, a));
	struct child c = spawn(bad ? bad_what : good_what, &h);
	hear(c.from);
	reap(c);
	HCHECK(hipFree(a));
}

/* A pool on device 0 made for posix fds, one allocation from it, both
 * exported; the child imports them as `what` says (child_main). */
static void pool_child_scenario(const char *what_fmt, int bad, unsigned export_flags)
{
	hipMemPoolProps props;
	hipMemPool_t pool;
	hipMemPoolPtrExportData x;
	hipIpcMemHandle_t h;
	void *p = NULL;
	int fd = -1;
	char what[64];
	memset(&props, 0, sizeof props);
	props.allocType = hipMemAllocationTypePinned;
	props.handleTypes = hipMemHandleTypePosixFileDescriptor;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	HCHECK(hipMemPoolCreate(&pool, &props));
	HCHECK(hipMallocFromPoolAsync(&p, MIB, pool, stream));
	if (export_flags) {
		CALL(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor,
		                                       export_flags));
	} else {
		HCHECK(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 0));
		HCHECK(hipMemPoolExportPointer(&x, p));
		memset(&h, 0, sizeof h);
		memcpy(&h, &x, sizeof x);
		snprintf(what, sizeof what, what_fmt, fd, bad);
		struct child c = spawn(what, &h);
		hear(c.from);
		reap(c);
		close(fd);
	}
	HCHECK(hipFree(p));
	HCHECK(hipMemPoolDestroy(pool));
}

/* hipMemPoolExportToShareableHandle, flags: "Must be 0" */
static void pool_flags(int bad)
{
	pool_child_scenario("pool-import:%d:0:0", 0, bad ? 1 : 0);
}

/* hipMemPoolImportFromShareableHandle, flags: "Must be 0" */
static void pool_flags_import(int bad)
{
	pool_child_scenario("pool-import:%d:%d:0", bad, 0);
}

/* "Imported memory pools do not support creating new allocations" */
static void pool_imported_alloc(int bad)
{
	pool_child_scenario("pool-import:%d:0:%d", bad, 0);
}

static void ipc_open_flags(int bad)
{
	ipc_child_scenario("flags", "open-close", bad);
}

static void ipc_open_unexported(int bad)
{
	ipc_child_scenario("open-garbage", "reopen", bad);
}

static void ipc_free_imported(int bad)
{
	ipc_child_scenario("free-mapping", "open-close", bad);
}

static void ipc_export_host(int bad)
{
	static char buf[4096];
	void *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	CALL(hipIpcGetMemHandle(&h, bad ? buf : a));
	HCHECK(hipFree(a));
}

static void ipc_event_flags(int bad)
{
	hipEvent_t e;
	hipIpcEventHandle_t h;
	HCHECK(hipEventCreateWithFlags(&e, bad ? hipEventDisableTiming
	                                       : hipEventDisableTiming | hipEventInterprocess));
	CALL(hipIpcGetEventHandle(&h, e));
	HCHECK(hipEventDestroy(e));
}

/* An interprocess event and its handle, made right. */
static hipEvent_t ipc_event(hipIpcEventHandle_t *h)
{
	hipEvent_t e;
	HCHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming | hipEventInterprocess));
	HCHECK(hipIpcGetEventHandle(h, e));
	return e;
}

/* A child given the event handle (in the memory handle's place), doing `what`. */
static struct child spawn_event(const char *what, const hipIpcEventHandle_t *h)
{
	hipIpcMemHandle_t carrier;
	memcpy(&carrier, h, sizeof *h);
	return spawn(what, &carrier);
}

static void ipc_event_leak(int bad)
{
	hipIpcEventHandle_t h;
	hipEvent_t e = ipc_event(&h);
	struct child c = spawn_event(bad ? "event-open-leak" : "event-open-destroy", &h);
	hear(c.from);
	reap(c);
	HCHECK(hipEventDestroy(e));
}

/* Opened in the process that exported it (bad; HIP: hipErrorInvalidContext),
 * or in another (good). */
static void ipc_event_same_process(int bad)
{
	hipIpcEventHandle_t h;
	hipEvent_t e = ipc_event(&h), o;
	if (bad) {
		CALL(hipIpcOpenEventHandle(&o, h));
	} else {
		struct child c = spawn_event("event-open-destroy", &h);
		hear(c.from);
		reap(c);
	}
	HCHECK(hipEventDestroy(e));
}

/* The exporter destroys its event while the importer still has it (bad),
 * or after the importer destroyed its own (good). */
static void ipc_event_destroy_while_open(int bad)
{
	hipIpcEventHandle_t h;
	hipEvent_t e = ipc_event(&h);
	struct child c = spawn_event("event-open-wait-destroy", &h);
	hear(c.from); /* opened */
	if (bad)
		HCHECK(hipEventDestroy(e));
	say(c.to);
	hear(c.from); /* destroyed its copy */
	reap(c);
	if (!bad)
		HCHECK(hipEventDestroy(e));
}

/* After the hipFree (bad) or before it (good). */
static void ipc_export_freed(int bad)
{
	void *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	if (bad)
		HCHECK(hipFree(a));
	CALL(hipIpcGetMemHandle(&h, a));
	if (!bad)
		HCHECK(hipFree(a));
}

/* HIP has one context per device (clr's hipCtxCreate hands out the device's
 * own), so a second open of a handle on a device is the same context's:
 * counted, never a break.  Both forms must stay clean: not in `list`, whose
 * bad forms each leave one finding (rules_hip.sh); the contract table runs
 * it. */
static void ipc_open_second_context(int bad)
{
	ipc_child_scenario("reopen", "open-close", bad);
}

/* Device 9 of 2 (bad) or device 1 (good). */
static void peer_invalid_device(int bad)
{
	int can;
	CALL(hipDeviceCanAccessPeer(&can, 0, bad ? 9 : 1));
}

/* hipMemcpy / hipMemcpyDtoD between two devices: implicit peer copies, staged
 * without peer access (bad), direct with it (good); the copies within one
 * device or from the host are not recorded at all. */
static void implicit_copies(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB), *b0 = alloc_on(0, MIB);
	static char host[4096];
	if (!bad) {
		enable(0, 1);
		enable(1, 0);
	}
	HCHECK(hipMemcpy(a1, a0, MIB, 3 /* hipMemcpyDeviceToDevice */));
	HCHECK(hipMemcpyDtoD(a0, a1, 4096));
	HCHECK(hipMemcpy(b0, a0, MIB, 3));
	HCHECK(hipMemcpyAsync(host, a0, sizeof host, hipMemcpyDeviceToHost, stream));
	HCHECK(hipStreamSynchronize(stream));
	HCHECK(hipFree(a0));
	HCHECK(hipFree(a1));
	HCHECK(hipFree(b0));
}

/* The per-thread default stream forms of the same copies (a program built
 * with HIP_API_PER_THREAD_DEFAULT_STREAM calls them by the plain names):
 * hipMemcpy_spt, hipMemcpyAsync_spt, hipMemcpy2D_spt and hipMemcpy3D_spt
 * between two devices, staged without peer access (bad), direct with it
 * (good); the one within a device is not recorded. */
static void implicit_copies_spt(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB), *b0 = alloc_on(0, MIB);
	if (!bad) {
		enable(0, 1);
		enable(1, 0);
	}
	HCHECK(hipMemcpy_spt(a1, a0, MIB, hipMemcpyDeviceToDevice));
	HCHECK(hipMemcpyAsync_spt(a0, a1, 4096, hipMemcpyDeviceToDevice, NULL));
	HCHECK(hipMemcpy2D_spt(a1, 512, a0, 256, 128, 8, hipMemcpyDeviceToDevice));
	hipMemcpy3DParms p = {0};
	p.srcPtr = (hipPitchedPtr){a0, 256, 256, 16};
	p.dstPtr = (hipPitchedPtr){a1, 256, 256, 16};
	p.extent = (hipExtent){64, 4, 2};
	p.kind = hipMemcpyDeviceToDevice;
	HCHECK(hipMemcpy3D_spt(&p));
	HCHECK(hipMemcpy_spt(b0, a0, MIB, hipMemcpyDeviceToDevice));
	HCHECK(hipFree(a0));
	HCHECK(hipFree(a1));
	HCHECK(hipFree(b0));
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
	void *a = alloc_on(0, MIB);
	if (bad)
		CALL(hipIpcCloseMemHandle(a));
	else
		HCHECK(hipFree(a));
}

/* 002: "Calling hipFree on an exported memory region before calling
 * hipIpcCloseMemHandle in the importing context will result in undefined behavior". */
static void ipc_free_while_open(int bad)
{
	void *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	HCHECK(hipIpcGetMemHandle(&h, a));
	struct child c = spawn("open-wait-close", &h);
	hear(c.from); /* opened */
	if (bad)
		HCHECK(hipFree(a));
	say(c.to);
	hear(c.from); /* closed */
	reap(c);
	if (!bad)
		HCHECK(hipFree(a));
}

/* The importer opens after the exporter freed (bad) or before (good). */
static void ipc_open_stale(int bad)
{
	void *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	HCHECK(hipIpcGetMemHandle(&h, a));
	if (bad)
		HCHECK(hipFree(a));
	struct child c = spawn(bad ? "open-stale" : "open-close", &h);
	hear(c.from);
	reap(c);
	if (!bad)
		HCHECK(hipFree(a));
}

/* The importer sees the devices the other way round (HIP_VISIBLE_DEVICES=1,0):
 * its device 1 is the exporter's device 0 (good), its device 0 the other
 * one, which cannot access it (PWSIM_PEERS=none; bad). */
static void ipc_open_unreachable(int bad)
{
	void *a = alloc_on(0, MIB);
	hipIpcMemHandle_t h;
	HCHECK(hipIpcGetMemHandle(&h, a));
	setenv("HIP_VISIBLE_DEVICES", "1,0", 1);
	struct child c = spawn(bad ? "open-on0" : "open-close", &h);
	unsetenv("HIP_VISIBLE_DEVICES");
	hear(c.from);
	reap(c);
	HCHECK(hipFree(a));
}

static char *managed(size_t n)
{
	void *m;
	HCHECK(hipMallocManaged(&m, n, hipMemAttachGlobal));
	return m;
}

/* 004: "It is recommend to do the capability check before call this API":
 * bad allocates with no device asked (init asks none); good asks the
 * device it allocates on only. */
static void managed_alloc_unqueried(int bad)
{
	int managed = 0;
	void *m;
	HCHECK(hipSetDevice(1));
	if (!bad)
		HCHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 1));
	HCHECK(hipMallocManaged(&m, 4096, hipMemAttachGlobal));
	HCHECK(hipSetDevice(0));
}

static void managed_alloc_size_zero(int bad)
{
	void *m;
	CALL(hipMallocManaged(&m, bad ? 0 : 4096, hipMemAttachGlobal));
}

/* 004: "size - requested allocation size in bytes, it should be granularity of 4KB". */
static void managed_alloc_granularity(int bad)
{
	void *m;
	HCHECK(hipMallocManaged(&m, bad ? 4097 : 8192, hipMemAttachGlobal));
}

/* 004: "flags - must be either hipMemAttachGlobal or hipMemAttachHost". */
static void managed_alloc_flags(int bad)
{
	void *m;
	CALL(hipMallocManaged(&m, 4096, bad ? hipMemAttachSingle : hipMemAttachHost));
}

static void managed_advise_not_managed(int bad)
{
	char *p = bad ? alloc_on(0, 65536) : managed(65536);
	CALL(hipMemAdvise(p, 65536, hipMemAdviseSetReadMostly, 1));
}

static void managed_advise_unaligned(int bad)
{
	char *m = managed(65536);
	CALL(hipMemAdvise(bad ? m + 1 : m + 4096, bad ? 100 : 4096, hipMemAdviseSetReadMostly, 1));
}

static void managed_advise_out_of_range(int bad)
{
	char *m = managed(65536);
	CALL(hipMemAdvise(m + 4096, bad ? 65536 : 65536 - 4096, hipMemAdviseSetReadMostly, 1));
}

/* good: a HIP-only advice (coarse grain, [H52]:726) is a defined advice too */
static void managed_advise_invalid(int bad)
{
	char *m = managed(65536);
	CALL(hipMemAdvise(m, 65536, bad ? 99 : hipMemAdviseSetCoarseGrain, 1));
}

static void managed_prefetch_not_managed(int bad)
{
	char *p = bad ? alloc_on(0, 65536) : managed(65536);
	CALL(hipMemPrefetchAsync(p, 65536, 1, stream));
}

static void managed_prefetch_invalid_device(int bad)
{
	char *m = managed(65536);
	CALL(hipMemPrefetchAsync(m, 65536, bad ? 9 : hipCpuDeviceId, stream));
}

static void managed_prefetch_out_of_range(int bad)
{
	char *m = managed(65536);
	CALL(hipMemPrefetchAsync(m, bad ? 0 : 1, 1, stream));
}

#ifdef PW_HIP7
/* ROCm 7.1's _v2 forms (hip_violations7, linked to the .so.7 simulator):
 * the advice and the prefetch name a hipMemLocation. */
static void managed_advise_location(int bad)
{
	char *m = managed(65536);
	hipMemLocation where = {bad ? hipMemLocationTypeInvalid : hipMemLocationTypeDevice, 1};
	CALL(hipMemAdvise_v2(m, 65536, hipMemAdviseSetAccessedBy, where));
}

static void managed_prefetch_location(int bad)
{
	char *m = managed(65536);
	hipMemLocation where = {bad ? hipMemLocationTypeInvalid : hipMemLocationTypeHost, 0};
	CALL(hipMemPrefetchAsync_v2(m, 65536, where, 0, stream));
}

/* ROCm 7.2's hipMemPrefetchBatchAsync: "flags for future use, must be zero
 * now", as hipMemPrefetchAsync_v2's; two ranges of one managed allocation. */
static void managed_prefetch_flags_batch(int bad)
{
	char *m = managed(65536);
	void *ptrs[2] = {m, m + 32768};
	size_t lens[2] = {32768, 32768}, idx[1] = {0};
	hipMemLocation where[1] = {{hipMemLocationTypeDevice, 1}};
	CALL(hipMemPrefetchBatchAsync(ptrs, lens, 2, where, idx, 1, bad ? 1 : 0, stream));
}

/* ROCm 7.1's hipMemcpy3DPeer[Async]: a 64 KiB box (256 bytes x 16 rows x
 * 16 layers) from device 0 to device 1, checked as hipMemcpyPeer. */
static hipMemcpy3DPeerParms box(char *dst, int dst_dev, char *src, int src_dev)
{
	hipMemcpy3DPeerParms p = {0};
	p.srcPtr = (hipPitchedPtr){src, 256, 256, 16};
	p.srcDevice = src_dev;
	p.dstPtr = (hipPitchedPtr){dst, 256, 256, 16};
	p.dstDevice = dst_dev;
	p.extent = (hipExtent){256, 16, 16};
	return p;
}

/* "dstDeviceId[in] - Destination device": the struct's dstDevice names device 0 for memory on 1 */
static void copy_peer_device_mismatch_3d(int bad)
{
	char *a0, *a1;
	copy_setup(&a0, &a1);
	hipMemcpy3DPeerParms p = box(a1, bad ? 0 : 1, a0, 0);
	CALL(hipMemcpy3DPeer(&p));
}

/* without peer access the copy is staged (bad); with it, direct */
static void copy_peer_no_peer_access_3d(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB);
	if (!bad)
		enable(1, 0);
	hipMemcpy3DPeerParms p = box(a1, 1, a0, 0);
	HCHECK(hipMemcpy3DPeerAsync(&p, stream));
	HCHECK(hipStreamSynchronize(stream));
}

/* hipMemcpyBatchAsync: a batch whose second copy crosses from device 0 to 1 */
static void copy_peer_no_peer_access_batch(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB), *b0 = alloc_on(0, MIB);
	if (!bad) {
		enable(0, 1);
		enable(1, 0);
	}
	void *dsts[2] = {b0, a1}, *srcs[2] = {a0, a0};
	size_t sizes[2] = {4096, MIB}, fail = 0;
	HCHECK(hipMemcpyBatchAsync(dsts, srcs, sizes, 2, NULL, NULL, 0, &fail, stream));
	HCHECK(hipStreamSynchronize(stream));
}

/* hipMemcpy3DBatchAsync: a batch of two boxes, the first within device 0,
 * the second from device 0 to 1 (16 rows of 4096 bytes) */
static void copy_peer_no_peer_access_batch3d(int bad)
{
	char *a0 = alloc_on(0, MIB), *a1 = alloc_on(1, MIB), *b0 = alloc_on(0, MIB);
	if (!bad) {
		enable(0, 1);
		enable(1, 0);
	}
	hipMemcpy3DBatchOp ops[2];
	memset(ops, 0, sizeof ops);
	for (int k = 0; k < 2; k++) {
		ops[k].src.type = ops[k].dst.type = hipMemcpyOperandTypePointer;
		ops[k].src.op.ptr.ptr = a0;
		ops[k].extent = (hipExtent){4096, 16, 1};
		ops[k].srcAccessOrder = hipMemcpySrcAccessOrderStream;
	}
	ops[0].dst.op.ptr.ptr = b0;
	ops[1].dst.op.ptr.ptr = a1;
	size_t fail = 0;
	HCHECK(hipMemcpy3DBatchAsync(2, ops, &fail, 0, stream));
	HCHECK(hipStreamSynchronize(stream));
}

static void managed_prefetch_flags(int bad)
{
	char *m = managed(65536);
	hipMemLocation where = {hipMemLocationTypeDevice, 1};
	CALL(hipMemPrefetchAsync_v2(m, 65536, where, bad ? 1 : 0, stream));
}
#endif

static void managed_range_attr_data_size(int bad)
{
	char *m = managed(65536);
	int v[2];
	CALL(hipMemRangeGetAttribute(v, bad ? 3 : 4, hipMemRangeAttributeReadMostly, m, 65536));
}

static void managed_range_attr_not_managed(int bad)
{
	char *p = bad ? alloc_on(0, 65536) : managed(65536);
	int v;
	CALL(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, p, 65536));
}

static void managed_range_attr_out_of_range(int bad)
{
	char *m = managed(65536);
	int v;
	CALL(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, m, bad ? 0 : 4096));
}

static void managed_range_attr_invalid(int bad)
{
	char *m = managed(65536);
	int v;
	CALL(hipMemRangeGetAttribute(&v, 4, bad ? 5 : hipMemRangeAttributeCoherencyMode, m, 65536));
}

/* HIP takes system memory for an attach, not device memory. */
static void managed_attach_not_managed(int bad)
{
	static char host[65536];
	CALL(hipStreamAttachMemAsync(stream, bad ? alloc_on(0, 65536) : host, 65536, hipMemAttachSingle));
}

/* What CUDA refuses and HIP takes: part of an allocation. */
static void managed_attach_portability(int bad)
{
	char *m = managed(65536);
	CALL(hipStreamAttachMemAsync(stream, m, bad ? 4096 : 65536, hipMemAttachSingle));
}

static void managed_attach_flags(int bad)
{
	char *m = managed(65536);
	CALL(hipStreamAttachMemAsync(stream, m, 0, bad ? 0x8 : hipMemAttachHost));
}

static const struct {
	const char *rule;
	void (*run)(int bad);
} scenarios[] = {
    {"peer.enable.self", peer_enable_self},
    {"peer.enable.flags", peer_enable_flags},
    {"peer.enable.unsupported", peer_enable_unsupported},
    {"peer.enable.twice", peer_enable_twice},
    {"peer.enable.unqueried", peer_enable_unqueried},
    {"peer.disable.not-enabled", peer_disable_not_enabled},
    {"peer.limit", peer_limit},
    {"copy.peer.device-mismatch", copy_peer_device_mismatch},
    {"copy.peer.out-of-bounds", copy_peer_out_of_bounds},
    {"copy.peer.null", copy_peer_null},
    {"copy.peer.no-peer-access", copy_peer_no_peer_access},
    {"copy.peer.no-peer-access/2d", copy_peer_no_peer_access_2d},
    {"copy.peer.host", copy_peer_host},
    {"copy.peer.host/dst", copy_peer_host_dst},
    {"copy.peer.freed", copy_peer_freed},
    {"copy.peer.managed", copy_peer_managed},
    {"peer.query.null", peer_query_null},
    {"ipc.export.interior-pointer", ipc_export_interior_pointer},
    {"ipc.export.managed", ipc_export_managed},
    {"ipc.open.same-process", ipc_open_same_process},
    {"ipc.open.flags", ipc_open_flags},
    {"ipc.open.unexported", ipc_open_unexported},
    {"ipc.free-imported", ipc_free_imported},
    {"ipc.export.host", ipc_export_host},
    {"ipc.event.flags", ipc_event_flags},
    {"ipc.event.leak", ipc_event_leak},
    {"ipc.event.same-process", ipc_event_same_process},
    {"ipc.event.destroy-while-open", ipc_event_destroy_while_open},
    {"ipc.export.freed", ipc_export_freed},
    {"peer.invalid-device", peer_invalid_device},
    {"ipc.open.stale", ipc_open_stale},
    {"ipc.open.unreachable", ipc_open_unreachable},
    {"ipc.close.unknown", ipc_close_unknown},
    {"ipc.close.twice", ipc_close_twice},
    {"ipc.free-while-open", ipc_free_while_open},
    {"ipc.leak", ipc_leak},
    {"pool.flags", pool_flags},
    {"pool.flags/import", pool_flags_import},
    {"pool.imported.alloc", pool_imported_alloc},
    {"managed.alloc.unqueried", managed_alloc_unqueried},
    {"managed.alloc.size-zero", managed_alloc_size_zero},
    {"managed.alloc.granularity", managed_alloc_granularity},
    {"managed.alloc.flags", managed_alloc_flags},
    {"managed.advise.not-managed", managed_advise_not_managed},
    {"managed.advise.unaligned", managed_advise_unaligned},
    {"managed.advise.out-of-range", managed_advise_out_of_range},
    {"managed.advise.invalid", managed_advise_invalid},
    {"managed.prefetch.not-managed", managed_prefetch_not_managed},
    {"managed.prefetch.invalid-device", managed_prefetch_invalid_device},
    {"managed.prefetch.out-of-range", managed_prefetch_out_of_range},
#ifdef PW_HIP7
    {"managed.advise.location", managed_advise_location},
    {"managed.prefetch.location", managed_prefetch_location},
    {"managed.prefetch.flags", managed_prefetch_flags},
    {"managed.prefetch.flags/batch", managed_prefetch_flags_batch},
    {"copy.peer.device-mismatch/3d", copy_peer_device_mismatch_3d},
    {"copy.peer.no-peer-access/3d", copy_peer_no_peer_access_3d},
    {"copy.peer.no-peer-access/batch", copy_peer_no_peer_access_batch},
    {"copy.peer.no-peer-access/batch3d", copy_peer_no_peer_access_batch3d},
#endif
    {"managed.range-attr.data-size", managed_range_attr_data_size},
    {"managed.range-attr.not-managed", managed_range_attr_not_managed},
    {"managed.range-attr.out-of-range", managed_range_attr_out_of_range},
    {"managed.range-attr.invalid", managed_range_attr_invalid},
    {"managed.attach.flags", managed_attach_flags},
    {"managed.attach.not-managed", managed_attach_not_managed},
    {"managed.attach.portability", managed_attach_portability},
};

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
	/* not one rule: a child scenario of the IPC model (rules_hip.sh) */
	if (argc == 3 && !strcmp(argv[1], "model")) {
		init();
		ipc_child_scenario(argv[2], argv[2], 1);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "ipc.open.second-context")) {
		init();
		ipc_open_second_context(!strcmp(argv[2], "bad"));
		return 0;
	}
	/* not one rule: the implicit copies (rules_hip.sh checks their events) */
	if (argc == 3 && !strcmp(argv[1], "implicit")) {
		init();
		implicit_copies(!strcmp(argv[2], "bad"));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "implicit-spt")) {
		init();
		implicit_copies_spt(!strcmp(argv[2], "bad"));
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "bad") && strcmp(argv[2], "good"))) {
		fprintf(stderr, "usage: hip_violations RULE bad|good | hip_violations list | "
		                "hip_violations model WHAT\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
		if (!strcmp(argv[1], scenarios[i].rule)) {
			unasked = !strcmp(argv[1], "managed.alloc.unqueried");
			init();
			scenarios[i].run(!strcmp(argv[2], "bad"));
			return 0;
		}
	fprintf(stderr, "hip_violations: no scenario for %s\n", argv[1]);
	return 2;
}

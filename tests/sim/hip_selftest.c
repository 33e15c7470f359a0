/*
 * Self-test of the simulated HIP runtime, built once per major against that
 * build's library (-DPWSIM_HIP_MAJOR=5/6/7) and the simulator's own
 * declarations (hip_sim_api.h, no ROCm header).  It checks the behaviour of
 * docs/facts-hip-acl.md A4-A7 (and A2's signatures by calling them), the
 * library's exports and symbol versions (nm -D, readelf), and the
 * simulator's own choices (README.md).  Cases that need a fresh process
 * re-execute this program (/proc/self/exe) in a child mode:
 *
 *   --ipc-child MEMHEX EVHEX STALEHEX FD   open the parent's IPC handles
 *   --pool-child POOLFD XHEX FD            import the parent's pool and allocation
 *   --vmm-child SHFD FD                    import the parent's virtual-memory allocation
 *   --env-child CASE FD                    PWSIM_* environment cases
 *   --preload-child FD                     run with hip_shim.so preloaded (6, 7)
 *
 * A child writes "PASSED FAILED" to FD; the parent adds them to its counts
 * and prints the last line "hip_selftest<N>: P passed, 0 failed".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hip_sim_api.h"

extern char **environ;

static int g_pass, g_fail;

static void check(int ok, int line, const char *what)
{
	if (ok) {
		g_pass++;
		return;
	}
	g_fail++;
	fprintf(stderr, "hip_selftest%d: FAIL (line %d): %s\n", PWSIM_HIP_MAJOR, line, what);
}

#define CHECK(cond) check(!!(cond), __LINE__, #cond)
#define EXPECT(call, want)                                          \
	do {                                                        \
		hipError_t rc_ = (call);                            \
		check(rc_ == (want), __LINE__, #call " == " #want); \
		if (rc_ != (want))                                  \
			fprintf(stderr, "    returned %d\n", rc_);  \
	} while (0)
#define OK(call) EXPECT(call, hipSuccess)

/* ---- helpers ---- */

static void *alloc_on(int dev, size_t n)
{
	void *p = NULL;
	int cur = -1;

	OK(hipGetDevice(&cur));
	OK(hipSetDevice(dev));
	OK(hipMalloc(&p, n));
	OK(hipSetDevice(cur));
	return p;
}

static void fill(void *p, size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n);

	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(seed + i * 7);
	OK(hipMemcpy(p, buf, n, hipMemcpyHostToDevice));
	free(buf);
}

static int holds(const void *p, size_t n, unsigned seed)
{
	unsigned char *buf = malloc(n);
	int ok = hipMemcpy(buf, p, n, hipMemcpyDeviceToHost) == hipSuccess;

	for (size_t i = 0; ok && i < n; i++)
		ok = buf[i] == (unsigned char)(seed + i * 7);
	free(buf);
	return ok;
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

/* The path of the library this program runs against (through a function
 * hip_shim.so does not replace). */
static const char *lib_path(void)
{
	static Dl_info info;

	if (!info.dli_fname && !dladdr((void *)hipRuntimeGetVersion, &info))
		return "";
	return info.dli_fname ? info.dli_fname : "";
}

/* ---- children ---- */

struct child {
	const char *argv[8];
	const char *env[8]; /* extra NAME=VALUE; PWSIM_* and LD_PRELOAD are dropped first */
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
		if (strncmp(environ[i], "PWSIM_", 6) && strncmp(environ[i], "LD_PRELOAD=", 11))
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

static void run_child(struct child *c, int line)
{
	int res[2], err[2] = {-1, -1}, status = 0, got, passed = 0, failed = 0;
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
	c->argv[i] = NULL; /* fdarg is ours */
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

/* ======================================================================== */
/* versions, devices, errors                                                 */

#if PWSIM_HIP_MAJOR == 5
#define WANT_VERSION 50221153 /* facts A1: Debian's 5.2.3 */
#elif PWSIM_HIP_MAJOR == 6
#define WANT_VERSION 60243483
#else
#define WANT_VERSION 70200000
#endif

static void *thread_device(void *arg)
{
	int *out = arg;

	(void)hipGetDevice(&out[0]); /* a new thread starts on device 0 */
	(void)hipSetDevice(1);
	(void)hipGetDevice(&out[1]);
	return NULL;
}

static void test_devices(void)
{
	int v = 0, n = 0, d = -1, t[2] = {-1, -1};
	pthread_t th;

	EXPECT(hipRuntimeGetVersion(NULL), hipErrorInvalidValue);
	OK(hipRuntimeGetVersion(&v));
	CHECK(v == WANT_VERSION);
	/* HIP_VERSION = major * 10000000 + minor * 100000 + patch */
	CHECK(v / 10000000 == PWSIM_HIP_MAJOR);
	v = 0;
	OK(hipDriverGetVersion(&v));
	CHECK(v == WANT_VERSION);
	EXPECT(hipDriverGetVersion(NULL), hipErrorInvalidValue);
	OK(hipInit(0));
	EXPECT(hipInit(1), hipErrorInvalidValue);

	EXPECT(hipGetDeviceCount(NULL), hipErrorInvalidValue);
	OK(hipGetDeviceCount(&n));
	CHECK(n == 2);
	/* hipMallocManaged's capability check */
	int managed = 0;
	EXPECT(hipDeviceGetAttribute(NULL, hipDeviceAttributeManagedMemory, 0), hipErrorInvalidValue);
	EXPECT(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 2), hipErrorInvalidDevice);
	OK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 1));
	CHECK(managed == 1);
	EXPECT(hipGetDevice(NULL), hipErrorInvalidValue);
	OK(hipGetDevice(&d));
	CHECK(d == 0);
	OK(hipSetDevice(1));
	EXPECT(hipSetDevice(2), hipErrorInvalidDevice);
	EXPECT(hipSetDevice(-1), hipErrorInvalidDevice);
	OK(hipGetDevice(&d));
	CHECK(d == 1);
	OK(hipSetDevice(0));

	/* the current device is per thread */
	CHECK(pthread_create(&th, NULL, thread_device, t) == 0);
	pthread_join(th, NULL);
	CHECK(t[0] == 0 && t[1] == 1);
	OK(hipGetDevice(&d));
	CHECK(d == 0);
	OK(hipDeviceSynchronize());
}

static void test_errors(void)
{
	/* A6 values, by number */
	CHECK(hipErrorInvalidContext == 201 && hipErrorPeerAccessAlreadyEnabled == 704);
	CHECK(hipErrorPeerAccessNotEnabled == 705 && hipErrorInvalidDevicePointer == 17);
	CHECK(strcmp(hipGetErrorName((hipError_t)704), "hipErrorPeerAccessAlreadyEnabled") == 0);
	CHECK(strcmp(hipGetErrorName((hipError_t)705), "hipErrorPeerAccessNotEnabled") == 0);
	CHECK(strcmp(hipGetErrorName((hipError_t)201), "hipErrorInvalidContext") == 0);
	CHECK(strcmp(hipGetErrorName((hipError_t)101), "hipErrorInvalidDevice") == 0);
	CHECK(strcmp(hipGetErrorName((hipError_t)0), "hipSuccess") == 0);
	CHECK(strcmp(hipGetErrorString((hipError_t)0), "no error") == 0);
	CHECK(strcmp(hipGetErrorString((hipError_t)1), "invalid argument") == 0);
	CHECK(strcmp(hipGetErrorName((hipError_t)12345), "hipErrorUnknown") == 0);
	CHECK(hipGetErrorString((hipError_t)12345) != NULL);
}

/* ======================================================================== */
/* peer access (facts A7)                                                    */

static void test_peer(void)
{
	int c = 7, d = -1;
	hipCtx_t c0 = NULL, c1 = NULL, cur = NULL;
	int not_a_ctx[4] = {0};
	void *p;

	EXPECT(hipDeviceCanAccessPeer(NULL, 0, 1), hipErrorInvalidValue);
	OK(hipDeviceCanAccessPeer(&c, 0, 0));
	CHECK(c == 0);
	c = 7;
	OK(hipDeviceCanAccessPeer(&c, 5, 5)); /* self is checked before the range (clr) */
	CHECK(c == 0);
	OK(hipDeviceCanAccessPeer(&c, 0, 1));
	CHECK(c == 1);
	c = 0;
	OK(hipDeviceCanAccessPeer(&c, 1, 0));
	CHECK(c == 1);
	EXPECT(hipDeviceCanAccessPeer(&c, 0, 2), hipErrorInvalidDevice);
	EXPECT(hipDeviceCanAccessPeer(&c, -1, 0), hipErrorInvalidDevice);
	EXPECT(hipDeviceCanAccessPeer(&c, 2, 1), hipErrorInvalidDevice);

	OK(hipSetDevice(0));
	EXPECT(hipDeviceEnablePeerAccess(1, 1), hipErrorInvalidValue);
	EXPECT(hipDeviceEnablePeerAccess(7, 1), hipErrorInvalidValue); /* flags first */
	OK(hipDeviceEnablePeerAccess(1, 0));
	EXPECT(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
	EXPECT(hipGetLastError(), hipErrorPeerAccessAlreadyEnabled); /* recorded (error.sticky's tests) */
	EXPECT(hipGetLastError(), hipSuccess);
	EXPECT(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice); /* self: no link */
	EXPECT(hipDeviceEnablePeerAccess(2, 0), hipErrorInvalidDevice);
	EXPECT(hipDeviceEnablePeerAccess(-1, 0), hipErrorInvalidDevice);
	/* one direction only: device 1 has enabled nothing */
	OK(hipSetDevice(1));
	EXPECT(hipDeviceDisablePeerAccess(0), hipErrorPeerAccessNotEnabled);
	OK(hipSetDevice(0));
	OK(hipDeviceDisablePeerAccess(1));
	EXPECT(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
	EXPECT(hipDeviceDisablePeerAccess(0), hipErrorInvalidDevice);
	EXPECT(hipDeviceDisablePeerAccess(9), hipErrorInvalidDevice);

	/* the hipCtx forms act from the current device to the context's device */
	EXPECT(hipDevicePrimaryCtxRetain(NULL, 0), hipErrorInvalidValue);
	EXPECT(hipDevicePrimaryCtxRetain(&c0, 2), hipErrorInvalidDevice);
	OK(hipDevicePrimaryCtxRetain(&c0, 0));
	OK(hipDevicePrimaryCtxRetain(&c1, 1));
	CHECK(c0 && c1 && c0 != c1);
	OK(hipCtxGetCurrent(&cur));
	CHECK(cur == c0);
	OK(hipCtxEnablePeerAccess(c1, 0));
	EXPECT(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
	EXPECT(hipCtxEnablePeerAccess(c1, 0), hipErrorPeerAccessAlreadyEnabled);
	OK(hipCtxDisablePeerAccess(c1));
	EXPECT(hipCtxDisablePeerAccess(c1), hipErrorPeerAccessNotEnabled);
	EXPECT(hipCtxEnablePeerAccess(c1, 2), hipErrorInvalidValue);
	EXPECT(hipCtxEnablePeerAccess(c0, 0), hipErrorInvalidDevice);
	EXPECT(hipCtxEnablePeerAccess((hipCtx_t)(void *)not_a_ctx, 0), hipErrorInvalidContext);
	EXPECT(hipCtxDisablePeerAccess(NULL), hipErrorInvalidContext);
	OK(hipCtxSetCurrent(c1));
	OK(hipGetDevice(&d));
	CHECK(d == 1);
	d = -1;
	OK(hipCtxGetDevice(&d));
	CHECK(d == 1);
	EXPECT(hipCtxSetCurrent(NULL), hipErrorInvalidContext);
	OK(hipCtxSetCurrent(c0));
	OK(hipDevicePrimaryCtxRelease(1));
	OK(hipDevicePrimaryCtxRelease(0));

	/* hipDeviceReset drops the device's peer access, both ways, and its memory */
	OK(hipSetDevice(1));
	OK(hipDeviceEnablePeerAccess(0, 0));
	OK(hipSetDevice(0));
	OK(hipDeviceEnablePeerAccess(1, 0));
	p = alloc_on(0, 64);
	OK(hipDeviceReset());
	OK(hipDeviceEnablePeerAccess(1, 0)); /* not 704: the reset dropped it */
	OK(hipSetDevice(1));
	EXPECT(hipDeviceDisablePeerAccess(0), hipErrorPeerAccessNotEnabled);
	OK(hipSetDevice(0));
	EXPECT(hipFree(p), hipErrorInvalidValue);
	OK(hipDeviceDisablePeerAccess(1));

	/* P2P attributes (clr hip_peer.cpp) */
	EXPECT(hipDeviceGetP2PAttribute(NULL, hipDevP2PAttrAccessSupported, 0, 1), hipErrorInvalidValue);
	c = -1;
	OK(hipDeviceGetP2PAttribute(&c, hipDevP2PAttrAccessSupported, 0, 1));
	CHECK(c == 1);
	c = -1;
	OK(hipDeviceGetP2PAttribute(&c, hipDevP2PAttrNativeAtomicSupported, 1, 0));
	CHECK(c == 1);
	c = -1;
	OK(hipDeviceGetP2PAttribute(&c, hipDevP2PAttrPerformanceRank, 0, 1));
	CHECK(c == 0);
	EXPECT(hipDeviceGetP2PAttribute(&c, hipDevP2PAttrAccessSupported, 0, 0), hipErrorInvalidDevice);
	EXPECT(hipDeviceGetP2PAttribute(&c, hipDevP2PAttrAccessSupported, 0, 2), hipErrorInvalidDevice);
	EXPECT(hipDeviceGetP2PAttribute(&c, (hipDeviceP2PAttr)9, 0, 1), hipErrorInvalidValue);
}

/* ======================================================================== */
/* memory and copies                                                         */

#define N 5003 /* not a multiple of anything */

static void test_memory(void)
{
	void *a, *b, *z = (void *)1;
	char host[64] = {0};
	hipStream_t s = NULL, dead = NULL;
	hipPointerAttribute_t attr;
	unsigned char *u;

	EXPECT(hipMalloc(NULL, 16), hipErrorInvalidValue);
	OK(hipMalloc(&z, 0));
	CHECK(z == NULL);
	a = alloc_on(0, N);
	b = alloc_on(1, N);
	CHECK(a && b && a != b);

	/* hipMemcpyPeer copies real bytes, with or without peer access */
	fill(a, N, 3);
	OK(hipMemcpyPeer(b, 1, a, 0, N));
	CHECK(holds(b, N, 3));
	EXPECT(hipMemcpyPeer(b, 2, a, 0, N), hipErrorInvalidDevice);
	EXPECT(hipMemcpyPeer(b, 1, a, -1, N), hipErrorInvalidDevice);
	EXPECT(hipMemcpyPeer(b, 1, a, 0, N + 1), hipErrorInvalidValue);
	fill(a, N, 5);
	OK(hipStreamCreate(&s));
	OK(hipMemcpyPeerAsync(b, 1, a, 0, N, s));
	OK(hipStreamSynchronize(s));
	CHECK(holds(b, N, 5));
	fill(a, N, 6);
	OK(hipMemcpyPeerAsync(b, 1, a, 0, N, NULL));
	CHECK(holds(b, N, 6));
	OK(hipStreamCreate(&dead));
	OK(hipStreamDestroy(dead));
	EXPECT(hipStreamDestroy(dead), hipErrorInvalidHandle);
	EXPECT(hipMemcpyPeerAsync(b, 1, a, 0, N, dead), hipErrorContextIsDestroyed);
	EXPECT(hipMemcpyPeerAsync(b, 3, a, 0, N, dead), hipErrorInvalidDevice);

	/* hipMemcpy: every kind copies; the range must fit its allocation */
	fill(a, N, 9);
	OK(hipMemcpy(b, a, N, hipMemcpyDeviceToDevice));
	CHECK(holds(b, N, 9));
	fill(a, N, 10);
	OK(hipMemcpy(b, a, N, hipMemcpyDefault));
	CHECK(holds(b, N, 10));
	OK(hipMemcpyAsync(host, (char *)a + 100, sizeof(host), hipMemcpyDeviceToHost, s));
	/* hipMemcpyDtoD[Async]: device pointers of ours only, within their allocations */
	OK(hipMemcpyDtoD(b, a, N));
	OK(hipMemcpyDtoDAsync(b, a, N, s));
	EXPECT(hipMemcpyDtoD(b, host, 8), hipErrorInvalidValue);
	EXPECT(hipMemcpyDtoD(b, a, N + 1), hipErrorInvalidValue);
	CHECK((unsigned char)host[0] == (unsigned char)(10 + 100 * 7));
	EXPECT(hipMemcpyAsync(host, a, 8, hipMemcpyDeviceToHost, dead), hipErrorInvalidHandle);
	EXPECT(hipMemcpy(b, a, N, (hipMemcpyKind)7), hipErrorInvalidValue);
	EXPECT(hipMemcpy(a, host, N + 1, hipMemcpyHostToDevice), hipErrorInvalidValue);
	EXPECT(hipMemcpy(host, (char *)a + N - 8, 16, hipMemcpyDeviceToHost), hipErrorInvalidValue);
	OK(hipMemcpy(host, host + 32, 16, hipMemcpyHostToHost));

	/* hipMemset: within one allocation */
	OK(hipMemset(a, 0xab, N));
	u = malloc(N);
	OK(hipMemcpy(u, a, N, hipMemcpyDeviceToHost));
	CHECK(u[0] == 0xab && u[N - 1] == 0xab);
	free(u);
	EXPECT(hipMemset(host, 0, sizeof(host)), hipErrorInvalidValue);
	EXPECT(hipMemset(a, 0, N + 1), hipErrorInvalidValue);

	/* allocation ranges: base and asked size from any interior pointer */
	{
		hipDeviceptr_t base = NULL;
		size_t size = 0;
		OK(hipMemGetAddressRange(&base, &size, (char *)a + 17));
		CHECK(base == a && size == N);
		EXPECT(hipMemGetAddressRange(&base, &size, host), hipErrorInvalidDevicePointer);
		EXPECT(hipMemGetAddressRange(&base, &size, NULL), hipErrorInvalidDevicePointer);
		/* the last error: sticky from 7 on, the last call's result before */
		EXPECT(hipPeekAtLastError(), hipErrorInvalidDevicePointer);
		OK(hipMemGetAddressRange(&base, &size, a));
		EXPECT(hipPeekAtLastError(),
		       PWSIM_HIP_MAJOR >= 7 ? hipErrorInvalidDevicePointer : hipSuccess);
		EXPECT(hipGetLastError(), PWSIM_HIP_MAJOR >= 7 ? hipErrorInvalidDevicePointer : hipSuccess);
		EXPECT(hipGetLastError(), hipSuccess);
	}

	/* pointer attributes: numbering by major (facts A3/A4) */
	EXPECT(hipPointerGetAttributes(NULL, a), hipErrorInvalidValue);
	EXPECT(hipPointerGetAttributes(&attr, NULL), hipErrorInvalidValue);
	OK(hipPointerGetAttributes(&attr, (char *)b + 10));
	CHECK((int)attr.type == (PWSIM_HIP_MAJOR >= 6 ? 2 : 1));
	CHECK(attr.device == 1 && attr.devicePointer == (char *)b + 10 && attr.isManaged == 0);
	memset(&attr, 0x5a, sizeof(attr));
#if PWSIM_HIP_MAJOR >= 6
	OK(hipPointerGetAttributes(&attr, host));
	CHECK((int)attr.type == 0 && attr.devicePointer == NULL && attr.isManaged == 0);
#else
	EXPECT(hipPointerGetAttributes(&attr, host), hipErrorInvalidValue);
	CHECK((int)attr.type == 0 && attr.devicePointer == NULL); /* zeroed first */
#endif

	/* hipFree: the base of a live allocation */
	OK(hipFree(NULL));
	EXPECT(hipFree((char *)a + 1), hipErrorInvalidValue);
	EXPECT(hipFree(host), hipErrorInvalidValue);
	OK(hipFree(a));
	(void)hipGetLastError();
	EXPECT(hipFree(a), hipErrorInvalidValue);
	/* hipFree records its result as the last error (error.sticky's tests):
	 * from 7 the failure stays past a hipFree that succeeds */
	EXPECT(hipPeekAtLastError(), hipErrorInvalidValue);
	OK(hipFree(NULL));
	EXPECT(hipPeekAtLastError(), PWSIM_HIP_MAJOR >= 7 ? hipErrorInvalidValue : hipSuccess);
	(void)hipGetLastError();
	EXPECT(hipMemcpy(host, a, 8, hipMemcpyDeviceToHost), hipErrorInvalidValue); /* stale */
	EXPECT(hipPointerGetAttributes(&attr, a), PWSIM_HIP_MAJOR >= 6 ? hipSuccess : hipErrorInvalidValue);
	OK(hipFree(b));
	OK(hipStreamDestroy(s));
}

/* ======================================================================== */
/* IPC (facts A4, A7)                                                        */

/* The flags value the build's major refuses. */
#define WRONG_LAZY (PWSIM_HIP_MAJOR >= 6 ? 0u : 1u)

static void ipc_child(const char *memhex, const char *evhex, const char *stalehex)
{
	hipIpcMemHandle_t h, stale, bad;
	hipIpcEventHandle_t eh;
	hipPointerAttribute_t attr;
	hipEvent_t e = NULL;
	void *p = NULL, *q = NULL;

	CHECK(from_hex(memhex, &h, sizeof(h)) == 0);
	CHECK(from_hex(evhex, &eh, sizeof(eh)) == 0);
	CHECK(from_hex(stalehex, &stale, sizeof(stale)) == 0);
	OK(hipSetDevice(1));
	EXPECT(hipIpcOpenMemHandle(&p, h, WRONG_LAZY), hipErrorInvalidValue);
	EXPECT(hipIpcOpenMemHandle(&p, h, 2), hipErrorInvalidValue);
	EXPECT(hipIpcOpenMemHandle(NULL, h, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidValue);
	OK(hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess));
	CHECK(p != NULL && holds(p, N, 21));
	OK(hipIpcOpenMemHandle(&q, h, hipIpcMemLazyEnablePeerAccess));
	CHECK(q == p);
	/* another device's open is a mapping of its own (one per device, each
	 * counted), and the opens enabled device 1's access to device 0, the
	 * exporter's, as hipDeviceEnablePeerAccess would */
	void *r = NULL;
	OK(hipSetDevice(0));
	OK(hipIpcOpenMemHandle(&r, h, hipIpcMemLazyEnablePeerAccess));
	CHECK(r != NULL && r != p && holds(r, N, 21));
	OK(hipIpcCloseMemHandle(r));
	EXPECT(hipIpcCloseMemHandle(r), hipErrorInvalidValue);
	OK(hipSetDevice(1));
	EXPECT(hipDeviceEnablePeerAccess(0, 0), hipErrorPeerAccessAlreadyEnabled);
	OK(hipPointerGetAttributes(&attr, p));
	CHECK((int)attr.type == (PWSIM_HIP_MAJOR >= 6 ? 2 : 1) && attr.device == 1);
	EXPECT(hipIpcGetMemHandle(&bad, p), hipErrorInvalidDevicePointer); /* not ours to export */
	EXPECT(hipFree(p), hipErrorInvalidValue);
	fill(p, N, 22); /* the parent checks it sees these bytes */
	OK(hipIpcCloseMemHandle(p));
	OK(hipIpcCloseMemHandle(p));
	EXPECT(hipIpcCloseMemHandle(p), hipErrorInvalidValue);
	EXPECT(hipIpcCloseMemHandle(NULL), hipErrorInvalidValue);
	/* the exporter freed it: the attach fails */
	EXPECT(hipIpcOpenMemHandle(&p, stale, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidDevicePointer);
	/* not a handle of ours, size set */
	memset(&bad, 0x11, sizeof(bad));
	EXPECT(hipIpcOpenMemHandle(&p, bad, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidDevicePointer);
	memset(&bad, 0, sizeof(bad));
	EXPECT(hipIpcOpenMemHandle(&p, bad, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidValue);

	EXPECT(hipIpcOpenEventHandle(NULL, eh), hipErrorInvalidValue);
	OK(hipIpcOpenEventHandle(&e, eh));
	CHECK(e != NULL);
	OK(hipEventSynchronize(e));
	OK(hipEventQuery(e));
	OK(hipEventDestroy(e));
}

static void test_ipc(void)
{
	hipIpcMemHandle_t h, h2, hs, zero;
	hipIpcEventHandle_t eh;
	hipEvent_t e = NULL, plain = NULL, e2 = NULL;
	char memhex[2 * sizeof(h) + 1], evhex[2 * sizeof(eh) + 1], stalehex[2 * sizeof(hs) + 1];
	void *a = alloc_on(0, N), *s = alloc_on(0, 64), *m = NULL, *p = NULL;
	char host[16];
	struct child c = {.argv = {"hip_selftest", "--ipc-child", memhex, evhex, stalehex}};

	/* facts A4: the lazy flag's value changed in 6.0 */
	CHECK(hipIpcMemLazyEnablePeerAccess == (PWSIM_HIP_MAJOR >= 6 ? 1 : 0));
	fill(a, N, 21);
	EXPECT(hipIpcGetMemHandle(NULL, a), hipErrorInvalidValue);
	EXPECT(hipIpcGetMemHandle(&h, NULL), hipErrorInvalidValue);
	EXPECT(hipIpcGetMemHandle(&h, host), hipErrorInvalidDevicePointer);
	OK(hipMallocManaged(&m, 64, hipMemAttachGlobal));
	EXPECT(hipIpcGetMemHandle(&h, m), hipErrorInvalidDevicePointer);
	OK(hipFree(m));
	memset(&h2, 0x77, sizeof(h2));
	OK(hipIpcGetMemHandle(&h, a));
	OK(hipIpcGetMemHandle(&h2, (char *)a + 100)); /* an interior pointer names the allocation */
	CHECK(memcmp(&h, &h2, sizeof(h)) == 0);
	OK(hipIpcGetMemHandle(&hs, s));
	OK(hipFree(s));
	EXPECT(hipIpcGetMemHandle(&h2, s), hipErrorInvalidDevicePointer);

	/* in the owner process (facts A7), after the flags check */
	EXPECT(hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidContext);
	EXPECT(hipIpcOpenMemHandle(&p, h, WRONG_LAZY), hipErrorInvalidValue);
	memset(&zero, 0, sizeof(zero));
	EXPECT(hipIpcOpenMemHandle(&p, zero, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidValue);

	/* events */
	EXPECT(hipEventCreateWithFlags(&e, hipEventInterprocess), hipErrorInvalidValue);
	EXPECT(hipEventCreateWithFlags(NULL, 0), hipErrorInvalidValue);
	OK(hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming));
	OK(hipEventCreate(&plain));
	EXPECT(hipIpcGetEventHandle(&eh, plain), hipErrorInvalidValue);
	EXPECT(hipIpcGetEventHandle(NULL, e), hipErrorInvalidValue);
	OK(hipEventRecord(e, NULL));
	OK(hipIpcGetEventHandle(&eh, e));
	EXPECT(hipIpcOpenEventHandle(&e2, eh), hipErrorInvalidContext);
	OK(hipEventDestroy(plain));
	EXPECT(hipEventDestroy(plain), hipErrorInvalidHandle);
	EXPECT(hipIpcGetEventHandle(&eh, plain), hipErrorInvalidHandle);

	to_hex(&h, sizeof(h), memhex);
	to_hex(&eh, sizeof(eh), evhex);
	to_hex(&hs, sizeof(hs), stalehex);
	run_child(&c, __LINE__);
	CHECK(holds(a, N, 22)); /* the child's writes are the same bytes */
	OK(hipEventDestroy(e));
	OK(hipFree(a));
}

/* ======================================================================== */
/* pools shared between processes (hip_sim_pool.c)                          */

static void pool_child(const char *fdarg, const char *xhex)
{
	hipMemPoolPtrExportData x;
	hipMemPool_t pool = NULL;
	void *p = NULL, *p2 = NULL, *q = NULL;
	int fd = atoi(fdarg);

	CHECK(from_hex(xhex, &x, sizeof(x)) == 0);
	EXPECT(hipMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
	                                           hipMemHandleTypePosixFileDescriptor, 1),
	       hipErrorInvalidValue);
	EXPECT(hipMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd, hipMemHandleTypeNone, 0),
	       hipErrorInvalidValue);
	OK(hipMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
	                                       hipMemHandleTypePosixFileDescriptor, 0));
	/* "Imported memory pools do not support creating new allocations" */
	EXPECT(hipMallocFromPoolAsync(&q, 64, pool, NULL), hipErrorNotSupported);
	EXPECT(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 0),
	       hipErrorInvalidValue);
	EXPECT(hipMemPoolImportPointer(NULL, pool, &x), hipErrorInvalidValue);
	OK(hipMemPoolImportPointer(&p, pool, &x));
	OK(hipMemPoolImportPointer(&p2, pool, &x)); /* the same mapping, one more reference */
	CHECK(p && p == p2);
	if (p) {
		CHECK(holds(p, N, 31));
		fill(p, N, 32);
	}
	OK(hipFree(p2));
	OK(hipFree(p)); /* "may be freed with hipFree" */
	EXPECT(hipFree(p), hipErrorInvalidValue);
	OK(hipMemPoolDestroy(pool));
}

static void test_pool(void)
{
	hipMemPoolProps props;
	hipMemPool_t pool = NULL, local = NULL;
	hipMemPoolPtrExportData x;
	void *p = NULL, *q = NULL, *z = (void *)1;
	int fd = -1;
	char xhex[2 * sizeof(x) + 1], fdarg[16];
	struct child c = {.argv = {"hip_selftest", "--pool-child", fdarg, xhex}};

	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 1;
	props.handleTypes = hipMemHandleTypePosixFileDescriptor;
	EXPECT(hipMemPoolCreate(NULL, &props), hipErrorInvalidValue);
	OK(hipMemPoolCreate(&pool, &props));
	props.handleTypes = hipMemHandleTypeNone;
	OK(hipMemPoolCreate(&local, &props));
	EXPECT(hipMallocFromPoolAsync(NULL, 64, pool, NULL), hipErrorInvalidValue);
	OK(hipMallocFromPoolAsync(&z, 0, pool, NULL));
	CHECK(z == NULL); /* clr: 0 bytes give NULL */
	OK(hipMallocFromPoolAsync(&p, N, pool, NULL));
	OK(hipMallocFromPoolAsync(&q, 64, local, NULL));
	fill(p, N, 31);
	/* clr: flags "Must be 0", the type must be the pool's and not none */
	EXPECT(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 1),
	       hipErrorInvalidValue);
	EXPECT(hipMemPoolExportToShareableHandle(&fd, local, hipMemHandleTypePosixFileDescriptor, 0),
	       hipErrorInvalidValue);
	EXPECT(hipMemPoolExportToShareableHandle(NULL, pool, hipMemHandleTypePosixFileDescriptor, 0),
	       hipErrorInvalidValue);
	OK(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 0));
	CHECK(fd >= 0);
	EXPECT(hipMemPoolExportPointer(&x, q), hipErrorInvalidValue); /* a pool for no handle type */
	EXPECT(hipMemPoolExportPointer(NULL, p), hipErrorInvalidValue);
	OK(hipMemPoolExportPointer(&x, p));
	/* imports are of another process's pool only */
	EXPECT(hipMemPoolImportPointer(&q, pool, &x), hipErrorInvalidValue);

	to_hex(&x, sizeof(x), xhex);
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	run_child(&c, __LINE__);
	CHECK(holds(p, N, 32)); /* the child's writes are the same bytes */
	close(fd);
	OK(hipFree(p));
	OK(hipFree(q));
	OK(hipMemPoolDestroy(local));
	OK(hipMemPoolDestroy(pool));
	EXPECT(hipMemPoolDestroy(pool), hipErrorInvalidValue);
}

/* ======================================================================== */
/* virtual memory and its export (hip_sim_vmm.c)                             */

#define VMM_BYTES (2u << 20)

static void vmm_child(const char *fdarg)
{
	hipMemGenericAllocationHandle_t h = NULL;
	hipMemAccessDesc acc;
	void *va = NULL;
	int fd = atoi(fdarg);

	EXPECT(hipMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, hipMemHandleTypeWin32),
	       hipErrorNotSupported);
	EXPECT(hipMemImportFromShareableHandle(&h, (void *)(intptr_t)0, hipMemHandleTypePosixFileDescriptor),
	       hipErrorInvalidValue); /* stdin is no allocation */
	OK(hipMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, hipMemHandleTypePosixFileDescriptor));
	OK(hipMemAddressReserve(&va, VMM_BYTES, 0, NULL, 0));
	OK(hipMemMap(va, VMM_BYTES, 0, h, 0));
	memset(&acc, 0, sizeof(acc));
	acc.location.type = hipMemLocationTypeDevice;
	acc.location.id = 1;
	acc.flags = hipMemAccessFlagsProtReadWrite;
	OK(hipMemSetAccess(va, VMM_BYTES, &acc, 1));
	CHECK(holds(va, N, 41));
	fill(va, N, 42);
	OK(hipMemUnmap(va, VMM_BYTES));
	OK(hipMemRelease(h));
	OK(hipMemAddressFree(va, VMM_BYTES));
}

static void test_vmm(void)
{
	hipMemAllocationProp prop;
	hipMemGenericAllocationHandle_t h = NULL, local = NULL, r = NULL;
	hipMemAccessDesc acc;
	void *va = NULL;
	int fd = -1;
	char fdarg[16];
	struct child c = {.argv = {"hip_selftest", "--vmm-child", fdarg}};

	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = 0;
	prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
	EXPECT(hipMemCreate(&h, VMM_BYTES, &prop, 1), hipErrorInvalidValue); /* "must be zero" */
	OK(hipMemCreate(&h, VMM_BYTES, &prop, 0));
	prop.requestedHandleType = hipMemHandleTypeNone;
	OK(hipMemCreate(&local, VMM_BYTES, &prop, 0));
	EXPECT(hipMemAddressReserve(&va, VMM_BYTES, 0, NULL, 1), hipErrorInvalidValue);
	OK(hipMemAddressReserve(&va, 2 * VMM_BYTES, 0, NULL, 0));
	EXPECT(hipMemMap(va, VMM_BYTES, 4096, h, 0), hipErrorInvalidValue); /* offset must be zero */
	OK(hipMemMap(va, VMM_BYTES, 0, h, 0));
	EXPECT(hipMemMap(va, VMM_BYTES, 0, local, 0), hipErrorInvalidValue); /* mapped already */
	memset(&acc, 0, sizeof(acc));
	acc.location.type = hipMemLocationTypeDevice;
	acc.location.id = 0;
	acc.flags = hipMemAccessFlagsProtReadWrite;
	EXPECT(hipMemSetAccess((char *)va + VMM_BYTES, VMM_BYTES, &acc, 1), hipErrorInvalidValue);
	OK(hipMemSetAccess(va, VMM_BYTES, &acc, 1));
	fill(va, N, 41);
	OK(hipMemRetainAllocationHandle(&r, (char *)va + 100));
	CHECK(r == h);
	OK(hipMemRelease(r));
	EXPECT(hipMemExportToShareableHandle(&fd, local, hipMemHandleTypePosixFileDescriptor, 0),
	       hipErrorInvalidValue); /* created for no export */
	EXPECT(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 1),
	       hipErrorInvalidValue);
	OK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
	CHECK(fd >= 0);
	OK(hipMemRelease(h)); /* the mapping still holds the memory */
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	run_child(&c, __LINE__);
	CHECK(holds(va, N, 42)); /* the child's writes are the same bytes */
	close(fd);
	EXPECT(hipMemAddressFree(va, 2 * VMM_BYTES), hipErrorInvalidValue); /* still mapped */
	OK(hipMemUnmap(va, VMM_BYTES));
	EXPECT(hipMemUnmap(va, VMM_BYTES), hipErrorInvalidValue);
	EXPECT(hipMemRetainAllocationHandle(&r, va), hipErrorInvalidValue);
	OK(hipMemAddressFree(va, 2 * VMM_BYTES));
	OK(hipMemRelease(local));
	EXPECT(hipMemRelease(local), hipErrorInvalidValue);
}

/* ======================================================================== */
/* managed memory (facts A2, A5, A7)                                         */

static int range_int(const void *p, size_t n, hipMemRangeAttribute attr)
{
	int32_t v = 12345;

	OK(hipMemRangeGetAttribute(&v, 4, attr, p, n));
	return v;
}

static void test_managed(void)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = 4 * pg;
	void *m = NULL, *d = alloc_on(0, 64), *z = NULL;
	char *c;
	int32_t v[3], rm = -1, pl = -1, lp = -1, big[2];
	void *data[3] = {&rm, &pl, &lp};
	size_t sizes[3] = {4, 4, 4};
	hipMemRangeAttribute attrs[3] = {hipMemRangeAttributeReadMostly,
	                                 hipMemRangeAttributePreferredLocation,
	                                 hipMemRangeAttributeLastPrefetchLocation};
	hipPointerAttribute_t attr;
	hipStream_t s = NULL;

	EXPECT(hipMallocManaged(NULL, n, hipMemAttachGlobal), hipErrorInvalidValue);
	EXPECT(hipMallocManaged(&z, 0, hipMemAttachGlobal), hipErrorInvalidValue);
	EXPECT(hipMallocManaged(&z, n, 0), hipErrorInvalidValue);
	OK(hipMallocManaged(&m, n, hipMemAttachGlobal));
	c = m;
	c[0] = 1; /* host-accessible */
	c[n - 1] = 2;
	OK(hipPointerGetAttributes(&attr, c + 5));
	CHECK(attr.isManaged == 1);
	CHECK((int)attr.type == (PWSIM_HIP_MAJOR >= 6 ? 3 : 0)); /* Managed (6.0+) / Host (5.x) */

	/* fresh memory */
	CHECK(range_int(m, n, hipMemRangeAttributeReadMostly) == 0);
	CHECK(range_int(m, n, hipMemRangeAttributePreferredLocation) == hipInvalidDeviceId);
	CHECK(range_int(m, n, hipMemRangeAttributeLastPrefetchLocation) == hipInvalidDeviceId);
	CHECK(range_int(m, n, hipMemRangeAttributeCoherencyMode) == hipMemRangeCoherencyModeFineGrain);

	/* A5: data sizes and arguments */
	EXPECT(hipMemRangeGetAttribute(big, 8, hipMemRangeAttributeReadMostly, m, n), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 2, hipMemRangeAttributePreferredLocation, m, n),
	       hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 8, hipMemRangeAttributeLastPrefetchLocation, m, n),
	       hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 8, hipMemRangeAttributeCoherencyMode, m, n),
	       hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 6, hipMemRangeAttributeAccessedBy, m, n), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(NULL, 4, hipMemRangeAttributeReadMostly, m, n), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 0, hipMemRangeAttributeReadMostly, m, n), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 4, hipMemRangeAttributeReadMostly, NULL, n),
	       hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 4, hipMemRangeAttributeReadMostly, m, 0), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 4, (hipMemRangeAttribute)5, m, n), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 4, hipMemRangeAttributeReadMostly, d, 64), hipErrorInvalidValue);
	EXPECT(hipMemRangeGetAttribute(big, 4, hipMemRangeAttributeReadMostly, m, n + 1),
	       hipErrorInvalidValue);

	/* advice, per page */
	OK(hipMemAdvise(m, pg, hipMemAdviseSetReadMostly, 99)); /* the device is not used */
	CHECK(range_int(m, pg, hipMemRangeAttributeReadMostly) == 1);
	CHECK(range_int(m, n, hipMemRangeAttributeReadMostly) == 0);
	OK(hipMemAdvise(m, n, hipMemAdviseSetPreferredLocation, 1));
	CHECK(range_int(m, n, hipMemRangeAttributePreferredLocation) == 1);
	OK(hipMemAdvise(m, pg, hipMemAdviseSetPreferredLocation, hipCpuDeviceId));
	CHECK(range_int(m, pg, hipMemRangeAttributePreferredLocation) == hipCpuDeviceId);
	CHECK(range_int(m, n, hipMemRangeAttributePreferredLocation) == hipInvalidDeviceId);
	OK(hipMemAdvise(m, n, hipMemAdviseUnsetPreferredLocation, 0));
	CHECK(range_int(c + pg, pg, hipMemRangeAttributePreferredLocation) == hipInvalidDeviceId);
	OK(hipMemAdvise(m, n, hipMemAdviseSetAccessedBy, 1));
	OK(hipMemAdvise(m, n, hipMemAdviseSetAccessedBy, hipCpuDeviceId));
	OK(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, n));
	CHECK(v[0] == hipCpuDeviceId && v[1] == 1 && v[2] == hipInvalidDeviceId);
	OK(hipMemAdvise(m, n, hipMemAdviseUnsetAccessedBy, hipCpuDeviceId));
	OK(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, n));
	CHECK(v[0] == 1 && v[1] == hipInvalidDeviceId && v[2] == hipInvalidDeviceId);
	OK(hipMemAdvise(c + pg, pg, hipMemAdviseSetCoarseGrain, 0));
	CHECK(range_int(c + pg, 1, hipMemRangeAttributeCoherencyMode) == hipMemRangeCoherencyModeCoarseGrain);
	CHECK(range_int(m, n, hipMemRangeAttributeCoherencyMode) == hipMemRangeCoherencyModeIndeterminate);
	OK(hipMemAdvise(m, n, hipMemAdviseUnsetCoarseGrain, 0));
	CHECK(range_int(m, n, hipMemRangeAttributeCoherencyMode) == hipMemRangeCoherencyModeFineGrain);
	EXPECT(hipMemAdvise(m, n, hipMemAdviseSetPreferredLocation, 5), hipErrorInvalidDevice);
	EXPECT(hipMemAdvise(m, n, hipMemAdviseSetAccessedBy, -2), hipErrorInvalidDevice);
	EXPECT(hipMemAdvise(m, n, (hipMemoryAdvise)42, 0), hipErrorInvalidValue);
	EXPECT(hipMemAdvise(m, 0, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	EXPECT(hipMemAdvise(d, 64, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);

	/* prefetch */
	OK(hipMemPrefetchAsync(m, n, 1, NULL));
	CHECK(range_int(m, n, hipMemRangeAttributeLastPrefetchLocation) == 1);
	OK(hipStreamCreate(&s));
	OK(hipMemPrefetchAsync(m, pg, hipCpuDeviceId, s));
	CHECK(range_int(m, pg, hipMemRangeAttributeLastPrefetchLocation) == hipCpuDeviceId);
	CHECK(range_int(m, n, hipMemRangeAttributeLastPrefetchLocation) == hipInvalidDeviceId);
	EXPECT(hipMemPrefetchAsync(m, n, 2, NULL), hipErrorInvalidDevice);
	EXPECT(hipMemPrefetchAsync(m, 0, 0, NULL), hipErrorInvalidValue);
	EXPECT(hipMemPrefetchAsync(d, 64, 0, NULL), hipErrorInvalidValue);

	/* several attributes at once */
	OK(hipMemRangeGetAttributes(data, sizes, attrs, 3, c + pg, pg));
	CHECK(rm == 0 && pl == hipInvalidDeviceId && lp == 1);
	EXPECT(hipMemRangeGetAttributes(data, sizes, attrs, 0, m, n), hipErrorInvalidValue);
	sizes[1] = 8;
	EXPECT(hipMemRangeGetAttributes(data, sizes, attrs, 3, m, n), hipErrorInvalidValue);

	/* A7: a no-op */
	OK(hipStreamAttachMemAsync(NULL, m, 0, hipMemAttachSingle));
	OK(hipStreamAttachMemAsync(s, m, n, hipMemAttachGlobal));

#if PWSIM_HIP_MAJOR >= 7
	OK(hipMemPrefetchAsync_v2(m, n, (hipMemLocation){hipMemLocationTypeDevice, 0}, 0, NULL));
	CHECK(range_int(m, n, hipMemRangeAttributeLastPrefetchLocation) == 0);
	OK(hipMemPrefetchAsync_v2(m, n, (hipMemLocation){hipMemLocationTypeHost, 0}, 0, s));
	CHECK(range_int(m, n, hipMemRangeAttributeLastPrefetchLocation) == hipCpuDeviceId);
	EXPECT(hipMemPrefetchAsync_v2(m, n, (hipMemLocation){hipMemLocationTypeInvalid, 0}, 0, NULL),
	       hipErrorInvalidValue);
	EXPECT(hipMemPrefetchAsync_v2(m, n, (hipMemLocation){hipMemLocationTypeDevice, 7}, 0, NULL),
	       hipErrorInvalidDevice);
	EXPECT(hipMemPrefetchAsync_v2(m, n, (hipMemLocation){hipMemLocationTypeDevice, 0}, 1, NULL),
	       hipErrorInvalidValue);
	OK(hipMemAdvise_v2(m, n, hipMemAdviseSetPreferredLocation,
	                   (hipMemLocation){hipMemLocationTypeDevice, 1}));
	CHECK(range_int(m, n, hipMemRangeAttributePreferredLocation) == 1);
	OK(hipMemAdvise_v2(m, n, hipMemAdviseSetPreferredLocation,
	                   (hipMemLocation){hipMemLocationTypeHost, 0}));
	CHECK(range_int(m, n, hipMemRangeAttributePreferredLocation) == hipCpuDeviceId);
	EXPECT(hipMemAdvise_v2(m, n, hipMemAdviseSetAccessedBy, (hipMemLocation){(hipMemLocationType)9, 0}),
	       hipErrorInvalidValue);
	/* 7.2: the first half to device 1, the second to the host */
	{
		void *ptrs[2] = {m, (char *)m + n / 2};
		size_t lens[2] = {n / 2, n / 2}, idx[2] = {0, 1};
		hipMemLocation locs[2] = {{hipMemLocationTypeDevice, 1}, {hipMemLocationTypeHost, 0}};
		OK(hipMemPrefetchBatchAsync(ptrs, lens, 2, locs, idx, 2, 0, s));
		CHECK(range_int(m, n / 2, hipMemRangeAttributeLastPrefetchLocation) == 1);
		CHECK(range_int((char *)m + n / 2, n / 2, hipMemRangeAttributeLastPrefetchLocation) ==
		      hipCpuDeviceId);
		OK(hipMemPrefetchBatchAsync(ptrs, lens, 2, locs, idx, 1, 0, s)); /* both to device 1 */
		CHECK(range_int((char *)m + n / 2, n / 2, hipMemRangeAttributeLastPrefetchLocation) == 1);
		EXPECT(hipMemPrefetchBatchAsync(ptrs, lens, 2, locs, idx, 2, 1, s), hipErrorInvalidValue);
		idx[0] = 1;
		EXPECT(hipMemPrefetchBatchAsync(ptrs, lens, 2, locs, idx, 1, 0, s), hipErrorInvalidValue);
		idx[0] = 0;
		lens[1] = 2 * n; /* past the end */
		EXPECT(hipMemPrefetchBatchAsync(ptrs, lens, 2, locs, idx, 2, 0, s), hipErrorInvalidValue);
	}
#endif
	OK(hipStreamDestroy(s));
	OK(hipFree(m));
	EXPECT(hipMemRangeGetAttribute(big, 4, hipMemRangeAttributeReadMostly, m, n), hipErrorInvalidValue);
	OK(hipFree(d));
}

/* ======================================================================== */
/* hipGetProcAddress (facts A4, A7)                                          */

/* hipMemcpy2D / hipMemcpy3D (hip_4.2, every build): real bytes, row by row */
static void test_copy2d3d(void)
{
	char *a0, *a1;
	OK(hipSetDevice(0));
	OK(hipMalloc((void **)&a0, 4096));
	OK(hipSetDevice(1));
	OK(hipMalloc((void **)&a1, 4096));
	OK(hipSetDevice(0));
	for (int i = 0; i < 4096; i++)
		a0[i] = (char)(i * 3);
	memset(a1, 0, 4096);
	OK(hipMemcpy2D(a1, 128, a0, 64, 32, 4, hipMemcpyDeviceToDevice));
	CHECK(!memcmp(a1 + 384, a0 + 192, 32) && a1[32] == 0);
	OK(hipMemcpy2DAsync(a1, 128, a0, 64, 32, 4, hipMemcpyDefault, NULL));
	EXPECT(hipMemcpy2D(a1, 16, a0, 64, 32, 4, hipMemcpyDeviceToDevice), hipErrorInvalidValue);
	EXPECT(hipMemcpy2D(a1, 128, a0, 64, 32, 4, (hipMemcpyKind)9), hipErrorInvalidValue);
	hipMemcpy3DParms p = {0};
	p.srcPtr = (hipPitchedPtr){a0, 64, 64, 4};
	p.dstPtr = (hipPitchedPtr){a1, 64, 64, 4};
	p.dstPos = (hipPos){0, 0, 1};
	p.extent = (hipExtent){16, 2, 2};
	p.kind = hipMemcpyDeviceToDevice;
	OK(hipMemcpy3D(&p));
	CHECK(!memcmp(a1 + 256, a0, 16) && !memcmp(a1 + 320, a0 + 64, 16) && !memcmp(a1 + 512, a0 + 256, 16));
	OK(hipMemcpy3DAsync(&p, NULL));
	EXPECT(hipMemcpy3D(NULL), hipErrorInvalidValue);
	/* the per-thread default stream forms do what the plain ones do */
	memset(a1, 0, 4096);
	OK(hipMemcpy3D_spt(&p));
	CHECK(!memcmp(a1 + 256, a0, 16) && a1[0] == 0);
	EXPECT(hipMemcpy3D_spt(NULL), hipErrorInvalidValue);
	memset(a1, 0, 4096);
	OK(hipMemcpy2D_spt(a1, 128, a0, 64, 32, 4, hipMemcpyDeviceToDevice));
	CHECK(!memcmp(a1 + 384, a0 + 192, 32) && a1[32] == 0);
	EXPECT(hipMemcpy2D_spt(a1, 16, a0, 64, 32, 4, hipMemcpyDeviceToDevice), hipErrorInvalidValue);
	memset(a1, 0, 4096);
	OK(hipMemcpy_spt(a1, a0, 100, hipMemcpyDeviceToDevice));
	OK(hipMemcpyAsync_spt(a1 + 100, a0 + 100, 100, hipMemcpyDefault, NULL));
	CHECK(!memcmp(a1, a0, 200) && a1[200] == 0);
#if PWSIM_HIP_MAJOR >= 6
	OK(hipMemcpy2DAsync_spt(a1, 128, a0, 64, 32, 4, hipMemcpyDefault, NULL));
	OK(hipMemcpy3DAsync_spt(&p, NULL));
	CHECK(!memcmp(a1 + 384, a0 + 192, 32) && !memcmp(a1 + 256, a0, 16));
#endif
	p.dstArray = (hipArray_t)a1;
	EXPECT(hipMemcpy3D(&p), hipErrorNotSupported);
	OK(hipFree(a0));
	OK(hipFree(a1));
}

/* ROCm 7.1's 3D peer copy and batch copy (hip_7.1): real bytes, row by row
 * and copy by copy; absent from the .so.5 and .so.6 builds. */
static void test_copy71(void)
{
#if PWSIM_HIP_MAJOR >= 7
	char *a0, *a1, host[64];
	OK(hipSetDevice(0));
	OK(hipMalloc((void **)&a0, 4096));
	OK(hipSetDevice(1));
	OK(hipMalloc((void **)&a1, 4096));
	OK(hipSetDevice(0));
	for (int i = 0; i < 4096; i++)
		a0[i] = (char)i;
	memset(a1, 0, 4096);
	/* a 16-byte x 2-row x 2-layer box, pitch 64, 4 rows a layer, from (8, 1, 0) to (0, 0, 1) */
	hipMemcpy3DPeerParms p = {0};
	p.srcPtr = (hipPitchedPtr){a0, 64, 64, 4};
	p.srcPos = (hipPos){8, 1, 0};
	p.srcDevice = 0;
	p.dstPtr = (hipPitchedPtr){a1, 64, 64, 4};
	p.dstPos = (hipPos){0, 0, 1};
	p.dstDevice = 1;
	p.extent = (hipExtent){16, 2, 2};
	OK(hipMemcpy3DPeer(&p));
	CHECK(!memcmp(a1 + 256, a0 + 72, 16) && !memcmp(a1 + 320, a0 + 136, 16));
	CHECK(!memcmp(a1 + 512, a0 + 328, 16) && !memcmp(a1 + 576, a0 + 392, 16));
	CHECK(a1[0] == 0 && a1[256 + 16] == 0);
	OK(hipMemcpy3DPeerAsync(&p, NULL));
	p.dstDevice = 9;
	EXPECT(hipMemcpy3DPeer(&p), hipErrorInvalidDevice);
	p.dstDevice = 1;
	p.srcArray = (hipArray_t)a0;
	EXPECT(hipMemcpy3DPeer(&p), hipErrorNotSupported);
	EXPECT(hipMemcpy3DPeer(NULL), hipErrorInvalidValue);

	void *dsts[2] = {a1, host}, *srcs[2] = {a0, a0 + 64};
	size_t sizes[2] = {128, 64}, fail = 0;
	OK(hipMemcpyBatchAsync(dsts, srcs, sizes, 2, NULL, NULL, 0, &fail, NULL));
	CHECK(fail == SIZE_MAX && !memcmp(a1, a0, 128) && !memcmp(host, a0 + 64, 64));
	sizes[1] = 8192; /* past the end of a0 */
	EXPECT(hipMemcpyBatchAsync(dsts, srcs, sizes, 2, NULL, NULL, 0, &fail, NULL), hipErrorInvalidValue);
	CHECK(fail == 1);
	EXPECT(hipMemcpyBatchAsync(dsts, srcs, sizes, 0, NULL, NULL, 0, &fail, NULL), hipErrorInvalidValue);

	/* the 3D batch: a 16 x 2 x 2 box from a0 (rows 64 bytes apart, layers
	 * 4 rows) into a1 packed, then one host row; an array side refused */
	hipMemcpy3DBatchOp ops[2];
	memset(ops, 0, sizeof ops);
	memset(a1, 0, 4096);
	ops[0].src.type = ops[0].dst.type = hipMemcpyOperandTypePointer;
	ops[0].src.op.ptr.ptr = a0;
	ops[0].src.op.ptr.rowLength = 64;
	ops[0].src.op.ptr.layerHeight = 4;
	ops[0].dst.op.ptr.ptr = a1;
	ops[0].extent = (hipExtent){16, 2, 2};
	ops[1] = ops[0];
	ops[1].dst.op.ptr.ptr = host;
	ops[1].extent = (hipExtent){8, 1, 1};
	fail = 0;
	OK(hipMemcpy3DBatchAsync(2, ops, &fail, 0, NULL));
	CHECK(fail == SIZE_MAX && !memcmp(a1, a0, 16) && !memcmp(a1 + 16, a0 + 64, 16) &&
	      !memcmp(a1 + 32, a0 + 256, 16) && !memcmp(a1 + 48, a0 + 320, 16) && a1[64] == 0 &&
	      !memcmp(host, a0, 8));
	EXPECT(hipMemcpy3DBatchAsync(2, ops, &fail, 1, NULL), hipErrorInvalidValue);
	EXPECT(hipMemcpy3DBatchAsync(0, ops, &fail, 0, NULL), hipErrorInvalidValue);
	ops[1].src.type = hipMemcpyOperandTypeArray;
	EXPECT(hipMemcpy3DBatchAsync(2, ops, &fail, 0, NULL), hipErrorNotSupported);
	CHECK(fail == 1);
	OK(hipFree(a0));
	OK(hipFree(a1));
#endif
}

static void test_getproc(void)
{
	void *self = dlopen(lib_path(), RTLD_LAZY | RTLD_NOLOAD);

	CHECK(self != NULL);
#if PWSIM_HIP_MAJOR >= 6
	hipDriverProcAddressQueryResult st = (hipDriverProcAddressQueryResult)7;
	void *p = (void *)1;

	EXPECT(hipGetProcAddress(NULL, &p, 600, 0, &st), hipErrorInvalidValue);
	EXPECT(hipGetProcAddress("", &p, 600, 0, &st), hipErrorInvalidValue);
	EXPECT(hipGetProcAddress("hipMalloc", NULL, 600, 0, &st), hipErrorInvalidValue);
	OK(hipGetProcAddress("hipMalloc", &p, 600, 0, &st));
	CHECK(p == (void *)hipMalloc && p == dlsym(self, "hipMalloc"));
	CHECK(st == HIP_GET_PROC_ADDRESS_SUCCESS);
	p = NULL;
	OK(hipGetProcAddress("hipMemcpyPeer", &p, 0, 0, NULL)); /* the version selects nothing */
	CHECK(p == (void *)hipMemcpyPeer);
	OK(hipGetProcAddress("hipGetProcAddress", &p, 602, 0, NULL));
	CHECK(p == (void *)hipGetProcAddress);
	st = HIP_GET_PROC_ADDRESS_SUCCESS;
	p = (void *)1;
	EXPECT(hipGetProcAddress("hipNoSuchFunction", &p, 600, 0, &st), hipErrorInvalidValue);
	CHECK(p == NULL && st == HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
	EXPECT(hipGetProcAddress("hipNoSuchFunction", &p, 600, 0, NULL), hipErrorInvalidValue);
#if PWSIM_HIP_MAJOR >= 7
	OK(hipGetProcAddress("hipMemAdvise_v2", &p, 701, 0, &st));
	CHECK(p == (void *)hipMemAdvise_v2 && st == HIP_GET_PROC_ADDRESS_SUCCESS);
#else
	EXPECT(hipGetProcAddress("hipMemAdvise_v2", &p, 701, 0, &st), hipErrorInvalidValue);
	CHECK(st == HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
#endif
#else
	CHECK(dlsym(self, "hipGetProcAddress") == NULL);
#endif
	CHECK((dlsym(self, "hipMemPrefetchAsync_v2") != NULL) == (PWSIM_HIP_MAJOR >= 7));
	CHECK((dlsym(self, "hipMemAdvise_v2") != NULL) == (PWSIM_HIP_MAJOR >= 7));
	CHECK((dlsym(self, "hipMemcpy3DPeer") != NULL) == (PWSIM_HIP_MAJOR >= 7));
	CHECK((dlsym(self, "hipMemcpyBatchAsync") != NULL) == (PWSIM_HIP_MAJOR >= 7));
	if (self)
		dlclose(self);
}

#if PWSIM_HIP_MAJOR >= 6
/* Under LD_PRELOAD of hip_shim.so (which exports an unversioned hipMalloc
 * that answers 999): the program's own reference to hipMalloc@hip_4.2 binds
 * to the shim, and hipGetProcAddress still hands back the runtime's. */
static void preload_child(void)
{
	void *self = dlopen(lib_path(), RTLD_LAZY | RTLD_NOLOAD);
	hipError_t (*real)(void **, size_t) = NULL;
	void *p = NULL, *x = NULL;

	CHECK(self != NULL);
	CHECK(strstr(lib_path(), "libamdhip64.so.") != NULL);
	CHECK((int)hipMalloc(&x, 16) == 999);
	CHECK(dlsym(RTLD_DEFAULT, "hipMalloc") != dlsym(self, "hipMalloc"));
	OK(hipGetProcAddress("hipMalloc", &p, 600, 0, NULL));
	CHECK(p == dlsym(self, "hipMalloc"));
	CHECK(p != dlsym(RTLD_DEFAULT, "hipMalloc"));
	real = (hipError_t(*)(void **, size_t))p;
	OK(real(&x, 16));
	OK(hipFree(x));
	if (self)
		dlclose(self);
}
#endif

/* ======================================================================== */
/* exports and symbol versions (nm -D, readelf)                              */

struct export
{
	const char *name, *node;
};

static const struct export g_exports[] = {
    {"hipInit", "hip_4.2"},
    {"hipRuntimeGetVersion", "hip_4.2"},
    {"hipDriverGetVersion", "hip_4.2"},
    {"hipGetDeviceCount", "hip_4.2"},
    {"hipDeviceGetName", "hip_4.2"},
    {"hipDeviceGetAttribute", "hip_4.2"},
    {"hipDeviceGetUuid", "hip_4.2"},
    {"hipDeviceGetPCIBusId", "hip_4.2"},
    {"hipSetDevice", "hip_4.2"},
    {"hipGetDevice", "hip_4.2"},
    {"hipDeviceReset", "hip_4.2"},
    {"hipDeviceSynchronize", "hip_4.2"},
    {"hipGetErrorName", "hip_4.2"},
    {"hipGetErrorString", "hip_4.2"},
    {"hipDevicePrimaryCtxRetain", "hip_4.2"},
    {"hipDevicePrimaryCtxRelease", "hip_4.2"},
    {"hipCtxGetCurrent", "hip_4.2"},
    {"hipCtxSetCurrent", "hip_4.2"},
    {"hipCtxGetDevice", "hip_4.2"},
    {"hipDeviceCanAccessPeer", "hip_4.2"},
    {"hipDeviceEnablePeerAccess", "hip_4.2"},
    {"hipDeviceDisablePeerAccess", "hip_4.2"},
    {"hipCtxEnablePeerAccess", "hip_4.2"},
    {"hipCtxDisablePeerAccess", "hip_4.2"},
    {"hipDeviceGetP2PAttribute", "hip_4.2"},
    {"hipMalloc", "hip_4.2"},
    {"hipFree", "hip_4.2"},
    {"hipMemcpy", "hip_4.2"},
    {"hipMemcpyAsync", "hip_4.2"},
    {"hipMemcpyDtoD", "hip_4.2"},
    {"hipMemcpy2D", "hip_4.2"},
    {"hipMemcpy2DAsync", "hip_4.2"},
    {"hipMemcpy3D", "hip_4.2"},
    {"hipMemcpy3DAsync", "hip_4.2"},
    {"hipMemcpyDtoDAsync", "hip_4.2"},
    {"hipMemset", "hip_4.2"},
    {"hipMemcpyPeer", "hip_4.2"},
    {"hipMemcpyPeerAsync", "hip_4.2"},
    {"hipPointerGetAttributes", "hip_4.2"},
    {"hipMemGetAddressRange", "hip_4.2"},
    {"hipGetLastError", "hip_4.2"},
    {"hipPeekAtLastError", "hip_4.2"},
    {"hipIpcGetMemHandle", "hip_4.2"},
    {"hipIpcOpenMemHandle", "hip_4.2"},
    {"hipIpcCloseMemHandle", "hip_4.2"},
    {"hipIpcGetEventHandle", "hip_4.2"},
    {"hipIpcOpenEventHandle", "hip_4.2"},
    {"hipStreamCreate", "hip_4.2"},
    {"hipStreamDestroy", "hip_4.2"},
    {"hipStreamSynchronize", "hip_4.2"},
    {"hipEventCreate", "hip_4.2"},
    {"hipEventCreateWithFlags", "hip_4.2"},
    {"hipEventDestroy", "hip_4.2"},
    {"hipEventRecord", "hip_4.2"},
    {"hipEventSynchronize", "hip_4.2"},
    {"hipEventQuery", "hip_4.2"},
    {"hipMallocManaged", "hip_4.2"},
    {"hipMemPrefetchAsync", "hip_4.2"},
    {"hipMemAdvise", "hip_4.2"},
    {"hipMemRangeGetAttribute", "hip_4.2"},
    {"hipMemRangeGetAttributes", "hip_4.2"},
    {"hipStreamAttachMemAsync", "hip_4.2"},
    {"hipMemPoolCreate", "hip_5.1"},
    {"hipMemPoolDestroy", "hip_5.1"},
    {"hipMallocFromPoolAsync", "hip_5.1"},
    {"hipMemPoolExportToShareableHandle", "hip_5.1"},
    {"hipMemPoolImportFromShareableHandle", "hip_5.1"},
    {"hipMemPoolExportPointer", "hip_5.1"},
    {"hipMemPoolImportPointer", "hip_5.1"},
    {"hipMemAddressReserve", "hip_5.1"},
    {"hipMemAddressFree", "hip_5.1"},
    {"hipMemCreate", "hip_5.1"},
    {"hipMemRelease", "hip_5.1"},
    {"hipMemMap", "hip_5.1"},
    {"hipMemUnmap", "hip_5.1"},
    {"hipMemSetAccess", "hip_5.1"},
    {"hipMemRetainAllocationHandle", "hip_5.1"},
    {"hipMemExportToShareableHandle", "hip_5.1"},
    {"hipMemImportFromShareableHandle", "hip_5.1"},
    {"hipMemcpy_spt", "hip_5.2"},
    {"hipMemcpyAsync_spt", "hip_5.2"},
    {"hipMemcpy2D_spt", "hip_5.2"},
    {"hipMemcpy3D_spt", "hip_5.2"},
#if PWSIM_HIP_MAJOR >= 6
    {"hipMemcpy2DAsync_spt", "hip_5.3"},
    {"hipMemcpy3DAsync_spt", "hip_5.3"},
    {"hipGetProcAddress", "hip_6.1"},
#endif
#if PWSIM_HIP_MAJOR >= 7
    {"hipMemPrefetchAsync_v2", "hip_7.1"},
    {"hipMemAdvise_v2", "hip_7.1"},
    {"hipMemcpy3DPeer", "hip_7.1"},
    {"hipMemcpy3DPeerAsync", "hip_7.1"},
    {"hipMemcpyBatchAsync", "hip_7.1"},
    {"hipMemcpy3DBatchAsync", "hip_7.1"},
    {"hipMemPrefetchBatchAsync", "hip_7.2"},
#endif
};
#define NEXPORTS (sizeof(g_exports) / sizeof(g_exports[0]))

/* The version nodes the library defines, in order (readelf -V). */
static const char *const g_nodes[] = {
    "hip_4.2", "hip_4.3", "hip_4.4", "hip_4.5", "hip_5.0", "hip_5.1", "hip_5.2",
#if PWSIM_HIP_MAJOR >= 6
    "hip_5.3", "hip_6.1", "hip_6.2",
#endif
#if PWSIM_HIP_MAJOR >= 7
    "hip_6.4", "hip_6.5", "hip_7.1", "hip_7.2",
#endif
};
#define NNODES (sizeof(g_nodes) / sizeof(g_nodes[0]))

/* Runs "tool args 'path'" and returns its whole output (malloc'd), or NULL. */
static char *run_tool(const char *tool)
{
	char cmd[4200], *out = NULL;
	size_t len = 0, cap = 0, r;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s '%s' 2>/dev/null", tool, lib_path());
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *grown = realloc(out, cap = 2 * cap + 8192);

			if (!grown)
				break;
			out = grown;
		}
		r = fread(out + len, 1, 4096, f);
		len += r;
	} while (r > 0);
	if (out)
		out[len] = 0;
	return pclose(f) == 0 ? out : (free(out), NULL);
}

static void test_exports(void)
{
	char *nm = run_tool("nm -D --defined-only"), *dyn = run_tool("readelf -d"),
	     *ver = run_tool("readelf -V");
	char line[256], want[128];
	const char *s;
	size_t found = 0, hip = 0, pos = 0;
	char soname[64];

	CHECK(nm && dyn && ver);
	if (!nm || !dyn || !ver)
		goto out;
	/* every expected name, exactly at its node, as the default version */
	for (size_t i = 0; i < NEXPORTS; i++) {
		snprintf(want, sizeof(want), " T %s@@%s\n", g_exports[i].name, g_exports[i].node);
		if (strstr(nm, want))
			found++;
		else
			fprintf(stderr, "hip_selftest%d: missing export%s", PWSIM_HIP_MAJOR, want);
	}
	CHECK(found == NEXPORTS);
	/* and no other hip* function */
	for (s = nm; sscanf(s, "%*s %*s %255s", line) == 1; s = strchr(s, '\n') + 1) {
		if (strncmp(line, "hip", 3) == 0 && strstr(line, "@@") && strncmp(line, "hip_", 4))
			hip++;
		if (!strchr(s, '\n'))
			break;
	}
	CHECK(hip == NEXPORTS);
	CHECK(strstr(nm, "hipGetProcAddress@") == NULL || PWSIM_HIP_MAJOR >= 6);
	CHECK((strstr(nm, "hipMemAdvise_v2@@hip_7.1") != NULL) == (PWSIM_HIP_MAJOR >= 7));
	CHECK((strstr(nm, "hipMemPrefetchAsync_v2@@hip_7.1") != NULL) == (PWSIM_HIP_MAJOR >= 7));
	CHECK((strstr(nm, "hipGetProcAddress@@hip_6.1") != NULL) == (PWSIM_HIP_MAJOR >= 6));
	CHECK(strstr(nm, "hsim_") == NULL && strstr(nm, "pwsim_") == NULL); /* internals are local */

	snprintf(soname, sizeof(soname), "Library soname: [libamdhip64.so.%d]", PWSIM_HIP_MAJOR);
	CHECK(strstr(dyn, soname) != NULL);
	CHECK(strstr(dyn, "SYMBOLIC") != NULL); /* -Bsymbolic */

	/* the version definitions, in order, after the base (the soname) */
	s = strstr(ver, "Name: libamdhip64.so.");
	CHECK(s != NULL);
	for (size_t i = 0; s && i < NNODES; i++) {
		snprintf(want, sizeof(want), "Name: %s\n", g_nodes[i]);
		s = strstr(s, want);
		if (s)
			pos++;
	}
	CHECK(pos == NNODES);
	/* nothing past the last node: hip_7.2 and the like */
	CHECK(s && strstr(s + 1, "Name: hip_") == NULL);
	CHECK(strstr(ver, "Name: hip_6.1\n") ? PWSIM_HIP_MAJOR >= 6 : PWSIM_HIP_MAJOR < 6);
	CHECK(strstr(ver, "Name: hip_7.1\n") ? PWSIM_HIP_MAJOR >= 7 : PWSIM_HIP_MAJOR < 7);
out:
	free(nm);
	free(dyn);
	free(ver);
}

/* ======================================================================== */
/* environment (PWSIM_DEVICES, PWSIM_PEERS; shared with the CUDA simulator)  */

static void env_child(const char *which)
{
	int n = 0, c = -1;
	void *a, *b;

	if (strcmp(which, "hidden") == 0)
		EXPECT(hipGetDeviceCount(&n), hipErrorNoDevice);
	else
		OK(hipGetDeviceCount(&n));
	if (strcmp(which, "none") == 0) {
		CHECK(n == 2);
		OK(hipDeviceCanAccessPeer(&c, 0, 1));
		CHECK(c == 0);
		EXPECT(hipDeviceEnablePeerAccess(1, 0), hipErrorInvalidDevice);
		EXPECT(hipDeviceDisablePeerAccess(1), hipErrorInvalidDevice);
		OK(hipDeviceGetP2PAttribute(&c, hipDevP2PAttrAccessSupported, 0, 1));
		CHECK(c == 0);
		/* copies do not need a link */
		a = alloc_on(0, N);
		b = alloc_on(1, N);
		fill(a, N, 41);
		OK(hipMemcpyPeer(b, 1, a, 0, N));
		CHECK(holds(b, N, 41));
		OK(hipFree(a));
		OK(hipFree(b));
	} else if (strcmp(which, "pairs") == 0) {
		CHECK(n == 4);
		OK(hipDeviceCanAccessPeer(&c, 0, 1));
		CHECK(c == 1);
		OK(hipDeviceCanAccessPeer(&c, 0, 2));
		CHECK(c == 0);
		OK(hipDeviceCanAccessPeer(&c, 3, 2));
		CHECK(c == 1);
		OK(hipSetDevice(2));
		OK(hipDeviceEnablePeerAccess(3, 0));
		EXPECT(hipDeviceEnablePeerAccess(1, 0), hipErrorInvalidDevice);
		OK(hipSetDevice(3));
		EXPECT(hipDeviceEnablePeerAccess(4, 0), hipErrorInvalidDevice);
	} else if (strcmp(which, "visible") == 0) {
		/* ROCr shows physical 3, 1 (by UUID), 0; HIP's list then takes its 2nd and 3rd */
		hipUUID u;
		char bus[32];
		CHECK(n == 2);
		OK(hipDeviceGetUuid(&u, 0));
		CHECK(memcmp(u.bytes, "7077686970000001", 16) == 0);
		OK(hipDeviceGetPCIBusId(bus, sizeof(bus), 1));
		CHECK(strcmp(bus, "0000:10:00.0") == 0);
		OK(hipDeviceGetName(bus, sizeof(bus), 1));
		CHECK(strstr(bus, "pwsim 0") != NULL);
		EXPECT(hipDeviceGetUuid(&u, 2), hipErrorInvalidDevice);
		EXPECT(hipDeviceGetUuid(NULL, 0), hipErrorInvalidValue);
		OK(hipDeviceCanAccessPeer(&c, 0, 1)); /* physical 1 and 0: PWSIM_PEERS=0-1 */
		CHECK(c == 1);
	} else if (strcmp(which, "hidden") == 0) {
		CHECK(n == 0);
	} else { /* "bad": the default is used */
		CHECK(n == 2);
		OK(hipDeviceCanAccessPeer(&c, 0, 1));
		CHECK(c == 1);
	}
}

static void test_env(void)
{
	struct child none = {.argv = {"hip_selftest", "--env-child", "none"}, .env = {"PWSIM_PEERS=none"}};
	struct child pairs = {.argv = {"hip_selftest", "--env-child", "pairs"},
	                      .env = {"PWSIM_DEVICES=4", "PWSIM_PEERS=0-1,2-3"}};
	struct child bad = {.argv = {"hip_selftest", "--env-child", "bad"},
	                    .env = {"PWSIM_DEVICES=two", "PWSIM_PEERS=0-0"},
	                    .capture = 1};

	struct child visible = {.argv = {"hip_selftest", "--env-child", "visible"},
	                        .env = {"PWSIM_DEVICES=4", "PWSIM_PEERS=0-1",
	                                "ROCR_VISIBLE_DEVICES=3,GPU-7077686970000001,0,9,2",
	                                "HIP_VISIBLE_DEVICES=1,2", "CUDA_VISIBLE_DEVICES=0"}};
	struct child hidden = {.argv = {"hip_selftest", "--env-child", "hidden"},
	                       .env = {"CUDA_VISIBLE_DEVICES="}};

	run_child(&none, __LINE__);
	run_child(&pairs, __LINE__);
	run_child(&visible, __LINE__);
	run_child(&hidden, __LINE__);
	run_child(&bad, __LINE__);
	CHECK(strstr(bad.err, "PWSIM_DEVICES='two' is not valid") != NULL);
	CHECK(strstr(bad.err, "PWSIM_PEERS='0-0' is not valid") != NULL);
}

#if PWSIM_HIP_MAJOR >= 6
static void test_preload(void)
{
	char shim[4096 + 32], env[4096 + 64];
	ssize_t n = readlink("/proc/self/exe", shim, 4096);
	/* gcc's ASan wants its runtime first; the shim is preloaded before it. */
	struct child c = {.argv = {"hip_selftest", "--preload-child"},
	                  .env = {env, "ASAN_OPTIONS=verify_asan_link_order=0"}};

	CHECK(n > 0);
	if (n <= 0)
		return;
	shim[n] = 0;
	strcpy(strrchr(shim, '/') + 1, "hip_shim.so");
	CHECK(access(shim, R_OK) == 0);
	snprintf(env, sizeof(env), "LD_PRELOAD=%s", shim);
	run_child(&c, __LINE__);
}
#endif

static int child_main(int argc, char **argv)
{
	const char *fd = argv[argc - 1];

	if (strcmp(argv[1], "--ipc-child") == 0 && argc == 6)
		ipc_child(argv[2], argv[3], argv[4]);
	else if (strcmp(argv[1], "--pool-child") == 0 && argc == 5)
		pool_child(argv[2], argv[3]);
	else if (strcmp(argv[1], "--vmm-child") == 0 && argc == 4)
		vmm_child(argv[2]);
	else if (strcmp(argv[1], "--env-child") == 0 && argc == 4)
		env_child(argv[2]);
#if PWSIM_HIP_MAJOR >= 6
	else if (strcmp(argv[1], "--preload-child") == 0 && argc == 3)
		preload_child();
#endif
	else
		return 2;
	return child_report(fd);
}

int main(int argc, char **argv)
{
	if (argc >= 3)
		return child_main(argc, argv);
	test_devices();
	test_errors();
	test_peer();
	test_memory();
	test_ipc();
	test_pool();
	test_vmm();
	test_managed();
	test_copy2d3d();
	test_copy71();
	test_getproc();
	test_exports();
	test_env();
#if PWSIM_HIP_MAJOR >= 6
	test_preload();
#endif
	printf("hip_selftest%d: %d passed, %d failed\n", PWSIM_HIP_MAJOR, g_pass, g_fail);
	return g_fail ? 1 : 0;
}

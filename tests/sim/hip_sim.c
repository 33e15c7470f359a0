/*
 * Simulated HIP runtime: configuration, versions, devices, contexts, peer
 * access, error strings and hipGetProcAddress.  See README.md in this
 * directory and hip_sim_internal.h for the design.
 */
#include "hip_sim_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* HIP_VERSION = major * 10000000 + minor * 100000 + patch (hip_version.h).
 * 5: Debian bookworm's 5.2.3 (facts A1: 50221153); 6: a 6.2 build; 7: 7.2.0
 * (7.1's calls and hipMemPrefetchBatchAsync, hip_7.2). */
#if PWSIM_HIP_MAJOR == 5
#define HSIM_HIP_VERSION 50221153
#elif PWSIM_HIP_MAJOR == 6
#define HSIM_HIP_VERSION 60243483
#elif PWSIM_HIP_MAJOR == 7
#define HSIM_HIP_VERSION 70200000
#else
#error "PWSIM_HIP_MAJOR must be 5, 6 or 7"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct pwsim_topo g_topo;
/* bit j of g_peer_on[i]: device i has enabled access to device j */
static uint64_t g_peer_on[PWSIM_TOPO_MAX_DEVICES];
static __thread int t_device;

void hsim_lock(void)
{
	pthread_mutex_lock(&g_lock);
}

void hsim_unlock(void)
{
	pthread_mutex_unlock(&g_lock);
}

/* PWSIM_DEVICES, PWSIM_PEERS, and ROCR_VISIBLE_DEVICES then
 * HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES): sim_topo.c. */
static void load(void)
{
	pwsim_topo_load(&g_topo, PWSIM_VIS_HIP);
	pwsim_reap_dead("pwhip."); /* a killed process's memory, as the runtime frees it */
}

int hsim_ordinal_of(int p)
{
	for (int d = 0; d < hsim_topo()->ndev; d++)
		if (g_topo.phys[d] == p)
			return d;
	return -1;
}

const struct pwsim_topo *hsim_topo(void)
{
	pthread_once(&g_once, load);
	return &g_topo;
}

int hsim_valid_device(int dev)
{
	return dev >= 0 && dev < hsim_topo()->ndev;
}

int hsim_can_access(int dev, int peer)
{
	return (int)((hsim_topo()->peer[dev] >> peer) & 1);
}

int hsim_current(void)
{
	return t_device;
}

/* ---- version and devices ---- */

hipError_t hipInit(unsigned int flags)
{
	if (flags != 0)
		return hipErrorInvalidValue;
	hsim_topo();
	return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int *runtimeVersion)
{
	if (!runtimeVersion)
		return hipErrorInvalidValue;
	*runtimeVersion = HSIM_HIP_VERSION;
	return hipSuccess;
}

hipError_t hipDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return hipErrorInvalidValue;
	*driverVersion = HSIM_HIP_VERSION;
	return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count)
{
	if (!count)
		return hipErrorInvalidValue;
	*count = hsim_topo()->ndev;
	return *count ? hipSuccess : hipErrorNoDevice; /* clr: no device visible */
}

/* [H52] :1424.  The simulator answers one attribute, the capability check
 * hipMallocManaged's note asks for (hipDeviceAttributeManagedMemory: every
 * simulated device has managed memory); any other is InvalidValue (a
 * choice: the real runtime answers them all). */
hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
	if (!pi)
		return hipErrorInvalidValue;
	if (!hsim_valid_device(deviceId))
		return hipErrorInvalidDevice;
	if (attr != hipDeviceAttributeManagedMemory)
		return hipErrorInvalidValue;
	*pi = 1;
	return hipSuccess;
}

/* The physical device's name, UUID and bus id, the same in every process
 * whatever it sees.  A NULL buffer or a length below 1: InvalidValue; a bad
 * device: InvalidDevice ([H52] :1275-1307 list both). */
hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
	if (!name || len <= 0)
		return hipErrorInvalidValue;
	if (!hsim_valid_device(device))
		return hipErrorInvalidDevice;
	snprintf(name, (size_t)len, "AMD Instinct MI300X (pwsim %d)", g_topo.phys[device]);
	return hipSuccess;
}

hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device)
{
	if (!uuid)
		return hipErrorInvalidValue;
	if (!hsim_valid_device(device))
		return hipErrorInvalidDevice;
	pwsim_topo_uuid(PWSIM_VIS_HIP, g_topo.phys[device], (unsigned char *)uuid->bytes);
	return hipSuccess;
}

hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	if (!pciBusId || len <= 0)
		return hipErrorInvalidValue;
	if (!hsim_valid_device(device))
		return hipErrorInvalidDevice;
	pwsim_topo_bus_id(g_topo.phys[device], pciBusId, (size_t)len);
	for (char *c = pciBusId; *c; c++) /* ROCm writes lower-case hex digits */
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	return hipSuccess;
}

hipError_t hipSetDevice(int deviceId)
{
	if (!hsim_valid_device(deviceId))
		return hipErrorInvalidDevice;
	t_device = deviceId;
	return hipSuccess;
}

hipError_t hipGetDevice(int *deviceId)
{
	if (!deviceId)
		return hipErrorInvalidValue;
	*deviceId = t_device;
	return hipSuccess;
}

/* Destroys the current device's resources in this process: its peer access
 * (both the access it enabled and the access others enabled to it), its
 * hipMalloc memory and the IPC mappings opened on it. */
hipError_t hipDeviceReset(void)
{
	int dev = t_device;

	hsim_topo();
	hsim_lock();
	g_peer_on[dev] = 0;
	for (int i = 0; i < g_topo.ndev; i++)
		g_peer_on[i] &= ~(1ull << dev);
	hsim_retire_device(dev);
	hsim_unlock();
	return hipSuccess;
}

/* Work is done when it is enqueued. */
hipError_t hipDeviceSynchronize(void)
{
	return hipSuccess;
}

/* ---- contexts: one primary context per device, never destroyed ---- */

#define HSIM_CTX_MAGIC 0x58544348u /* "HCTX" */
struct ihipCtx_t {
	uint32_t magic;
	int device;
};
static struct ihipCtx_t g_ctx[PWSIM_TOPO_MAX_DEVICES];

static struct ihipCtx_t *ctx_of(int dev)
{
	g_ctx[dev].magic = HSIM_CTX_MAGIC;
	g_ctx[dev].device = dev;
	return &g_ctx[dev];
}

/* The device of one of our contexts, or -1. */
static int ctx_device(hipCtx_t ctx)
{
	uintptr_t p = (uintptr_t)ctx, first = (uintptr_t)&g_ctx[0];

	if (p < first || p >= first + sizeof(g_ctx) || (p - first) % sizeof(g_ctx[0]))
		return -1;
	if (ctx->magic != HSIM_CTX_MAGIC || !hsim_valid_device(ctx->device))
		return -1;
	return ctx->device;
}

hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
	if (!pctx)
		return hipErrorInvalidValue;
	if (!hsim_valid_device(dev))
		return hipErrorInvalidDevice;
	*pctx = ctx_of(dev);
	return hipSuccess;
}

hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
	return hsim_valid_device(dev) ? hipSuccess : hipErrorInvalidDevice;
}

hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
	if (!ctx)
		return hipErrorInvalidValue;
	hsim_topo();
	*ctx = ctx_of(t_device);
	return hipSuccess;
}

hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
	int dev = ctx_device(ctx);

	if (dev < 0)
		return hipErrorInvalidContext;
	t_device = dev;
	return hipSuccess;
}

hipError_t hipCtxGetDevice(hipDevice_t *device)
{
	if (!device)
		return hipErrorInvalidValue;
	*device = t_device;
	return hipSuccess;
}

/* ---- peer access (facts A7; clr hip_peer.cpp) ---- */

/* NULL out -> InvalidValue; a device and itself -> success with 0 (checked
 * before the range, as clr does); an id outside [0, count) -> InvalidDevice. */
hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)
{
	if (!canAccessPeer)
		return hipErrorInvalidValue;
	if (deviceId == peerDeviceId) {
		*canAccessPeer = 0;
		return hipSuccess;
	}
	if (!hsim_valid_device(deviceId) || !hsim_valid_device(peerDeviceId))
		return hipErrorInvalidDevice;
	*canAccessPeer = hsim_can_access(deviceId, peerDeviceId);
	return hipSuccess;
}

/* A link from the current device to peer: the device is not its own peer. */
static int linked(int dev, int peer)
{
	return dev != peer && hsim_valid_device(peer) && hsim_can_access(dev, peer);
}

static hipError_t enable_from(int dev, int peer, unsigned flags)
{
	hipError_t rc = hipSuccess;

	if (flags != 0)
		return hipErrorInvalidValue;
	if (!linked(dev, peer))
		return hipErrorInvalidDevice;
	hsim_lock();
	if (g_peer_on[dev] & (1ull << peer))
		rc = hipErrorPeerAccessAlreadyEnabled;
	else
		g_peer_on[dev] |= 1ull << peer;
	hsim_unlock();
	return rc;
}

void hsim_lazy_enable(int dev, int peer)
{
	if (dev == peer || !linked(dev, peer))
		return;
	hsim_lock();
	g_peer_on[dev] |= 1ull << peer;
	hsim_unlock();
}

static hipError_t disable_from(int dev, int peer)
{
	hipError_t rc = hipSuccess;

	if (!linked(dev, peer))
		return hipErrorInvalidDevice;
	hsim_lock();
	if (g_peer_on[dev] & (1ull << peer))
		g_peer_on[dev] &= ~(1ull << peer);
	else
		rc = hipErrorPeerAccessNotEnabled;
	hsim_unlock();
	return rc;
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags)
{
	return hsim_note_result(enable_from(t_device, peerDeviceId, flags));
}

hipError_t hipDeviceDisablePeerAccess(int peerDeviceId)
{
	return disable_from(t_device, peerDeviceId);
}

/* The documented behaviour (hip_runtime_api.h: enable access from the current
 * context to peerCtx, same codes as hipDeviceEnablePeerAccess); clr's own
 * implementation returns hipSuccess without doing anything.  A pointer that
 * is not one of our contexts -> hipErrorInvalidContext (a choice). */
hipError_t hipCtxEnablePeerAccess(hipCtx_t peerCtx, unsigned int flags)
{
	int peer = ctx_device(peerCtx);

	if (peer < 0)
		return hipErrorInvalidContext;
	return enable_from(t_device, peer, flags);
}

hipError_t hipCtxDisablePeerAccess(hipCtx_t peerCtx)
{
	int peer = ctx_device(peerCtx);

	if (peer < 0)
		return hipErrorInvalidContext;
	return disable_from(t_device, peer);
}

/* clr hip_peer.cpp: NULL value -> InvalidValue; src == dst or out of range ->
 * InvalidDevice; an unknown attribute -> InvalidValue.  Access, atomics and
 * array access follow the link; the performance rank is 0 (one hop). */
hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int srcDevice, int dstDevice)
{
	if (!value)
		return hipErrorInvalidValue;
	if (srcDevice == dstDevice || !hsim_valid_device(srcDevice) || !hsim_valid_device(dstDevice))
		return hipErrorInvalidDevice;
	switch (attr) {
	case hipDevP2PAttrPerformanceRank: *value = 0; return hipSuccess;
	case hipDevP2PAttrAccessSupported:
	case hipDevP2PAttrNativeAtomicSupported:
	case hipDevP2PAttrHipArrayAccessSupported:
		*value = hsim_can_access(srcDevice, dstDevice);
		return hipSuccess;
	default: return hipErrorInvalidValue;
	}
}

/* ---- error strings ---- */

struct err_text {
	hipError_t code;
	const char *name, *text;
};

#define ERR(c, t)        \
	{                \
		c, #c, t \
	}
static const struct err_text g_errors[] = {
    ERR(hipSuccess, "no error"),
    ERR(hipErrorInvalidValue, "invalid argument"),
    ERR(hipErrorOutOfMemory, "out of memory"),
    ERR(hipErrorNotInitialized, "initialization error"),
    ERR(hipErrorInvalidDevicePointer, "invalid device pointer"),
    ERR(hipErrorNoDevice, "no ROCm-capable device is detected"),
    ERR(hipErrorInvalidDevice, "invalid device ordinal"),
    ERR(hipErrorInvalidContext, "invalid device context"),
    ERR(hipErrorMapFailed, "mapping of buffer object failed"),
    ERR(hipErrorPeerAccessUnsupported, "peer access is not supported between these two devices"),
    ERR(hipErrorInvalidHandle, "invalid resource handle"),
    ERR(hipErrorNotReady, "device not ready"),
    ERR(hipErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    ERR(hipErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    ERR(hipErrorContextIsDestroyed, "context is destroyed"),
    ERR(hipErrorNotSupported, "operation not supported"),
    ERR(hipErrorUnknown, "unknown error"),
};
#undef ERR

static const struct err_text *err_lookup(hipError_t code)
{
	for (size_t i = 0; i < sizeof(g_errors) / sizeof(g_errors[0]); i++)
		if (g_errors[i].code == code)
			return &g_errors[i];
	return NULL;
}

/* An unknown code: "hipErrorUnknown" / "unknown error" (never NULL). */
const char *hipGetErrorName(hipError_t hip_error)
{
	const struct err_text *e = err_lookup(hip_error);

	return e ? e->name : "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t hipError)
{
	const struct err_text *e = err_lookup(hipError);

	return e ? e->text : "unknown error";
}

/* ---- hipGetProcAddress (6.2+; facts A4, A7) ---- */

#if PWSIM_HIP_MAJOR >= 6
/* The library's own handle, as clr's dlopen("libamdhip64.so"): by soname if
 * this library is loaded under it, else by its own path.  dlsym on this handle
 * searches this library first (and then its dependencies), never an
 * LD_PRELOADed one: the pointer handed back bypasses a preloaded wrapper. */
static void *g_self;
static pthread_once_t g_self_once = PTHREAD_ONCE_INIT;

static void open_self(void)
{
	Dl_info info;

	g_self = dlopen("libamdhip64.so." STR(PWSIM_HIP_MAJOR), RTLD_LAZY | RTLD_NOLOAD);
	if (!g_self && dladdr((void *)hipGetProcAddress, &info) && info.dli_fname)
		g_self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

static void *self_handle(void)
{
	pthread_once(&g_self_once, open_self);
	return g_self;
}

/* clr hip_device.cpp: NULL or empty symbol, NULL pfn -> InvalidValue; a name
 * the library does not have -> InvalidValue with SYMBOL_NOT_FOUND; else
 * success.  hipVersion and flags select nothing here (clr only maps
 * hipGetDeviceProperties/hipChooseDevice to their R0600 names, which the
 * simulator does not have). */
hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             hipDriverProcAddressQueryResult *symbolStatus)
{
	void *h;

	(void)hipVersion;
	(void)flags;
	if (!symbol || !*symbol || !pfn)
		return hipErrorInvalidValue;
	h = self_handle();
	if (!h)
		return hipErrorInvalidValue;
	*pfn = dlsym(h, symbol);
	if (!*pfn) {
		if (symbolStatus)
			*symbolStatus = HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
		return hipErrorInvalidValue;
	}
	if (symbolStatus)
		*symbolStatus = HIP_GET_PROC_ADDRESS_SUCCESS;
	return hipSuccess;
}
#endif

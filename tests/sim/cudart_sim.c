/*
 * Simulated CUDA runtime (libcudart.so.13) over the simulated driver: a test
 * double for peerwatch's runtime layer.  Like the real runtime
 * (docs/facts-cuda.md, "How every runtime reaches the driver") it never links
 * against libcuda: it dlopen()s "libcuda.so.1", dlsym()s only
 * "cuGetProcAddress_v2", asks that for "cuGetProcAddress" itself at 12000,
 * and reaches every driver function through the pointers the answer gives —
 * so a preloaded layer that wraps cuGetProcAddress sees each driver call the
 * runtime makes, nested inside the runtime call.
 *
 * Runtime semantics kept: a current device per thread (0 until
 * cudaSetDevice), whose primary context the runtime makes current before
 * working; a last error per thread, set by every failing call and returned
 * and cleared by cudaGetLastError (so the 704 of enabling peer access twice
 * stays pending, as docs/facts-cuda.md says of the real runtime); cudaError_t codes.
 * The answers of docs/facts-cuda.md, "Every contract case" that belong to the runtime (not the
 * driver) are made here: EnablePeerAccess(self) 217, a bad device 101 before
 * the driver is asked, MallocManaged of 0 bytes a success, MemcpyPeer of 0
 * bytes a success.  Everything else is the driver's answer, whose codes have
 * the runtime's numbers for every error used here (driver_types.h).
 * Device arrays are not simulated (cudaErrorInvalidValue).
 *
 * Built with -DPWSIM_CUDART_12 it is a CUDA 12.8 runtime (libcudart.so.12):
 * the base cudaMemAdvise / cudaMemPrefetchAsync[_ptsz] take an int device,
 * and the _v2 names the cudaMemLocation (cuda_runtime_api.h of 12.2+).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/cuda.h"
#include "cudart_sim_api.h"
#include "peerwatch/abi/cudart.h"

#define RT_API __attribute__((visibility("default")))
#define MAX_DEV 64

typedef CUresult (*getproc_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* The driver as the runtime knows it: only what cuGetProcAddress gave. */
static struct {
	CUresult (*init)(unsigned);
	CUresult (*dev_count)(int *);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*set_current)(CUcontext);
	CUresult (*can_access)(int *, CUdevice, CUdevice);
	CUresult (*enable)(CUcontext, unsigned);
	CUresult (*disable)(CUcontext);
	CUresult (*p2p_attr)(int *, CUdevice_P2PAttribute, CUdevice, CUdevice);
	CUresult (*copy_peer[2])(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
	CUresult (*copy_peer_async[2])(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
	CUresult (*copy3d_peer[2])(const CUDA_MEMCPY3D_PEER *);
	CUresult (*copy3d_peer_async[2])(const CUDA_MEMCPY3D_PEER *, CUstream);
	CUresult (*ipc_get_mem)(CUipcMemHandle *, CUdeviceptr);
	CUresult (*ipc_open_mem)(CUdeviceptr *, CUipcMemHandle, unsigned);
	CUresult (*ipc_close_mem)(CUdeviceptr);
	CUresult (*ipc_get_event)(CUipcEventHandle *, CUevent);
	CUresult (*ipc_open_event)(CUevent *, CUipcEventHandle);
	CUresult (*alloc_managed)(CUdeviceptr *, size_t, unsigned);
	CUresult (*advise)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
	CUresult (*prefetch[2])(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream);
	CUresult (*range_attr)(void *, size_t, CUmem_range_attribute, CUdeviceptr, size_t);
	CUresult (*range_attrs)(void **, size_t *, CUmem_range_attribute *, size_t, CUdeviceptr, size_t);
	CUresult (*attach[2])(CUstream, CUdeviceptr, size_t, unsigned);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*free)(CUdeviceptr);
	CUresult (*free_async[2])(CUdeviceptr, CUstream);
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*dtod)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*ptr_attr)(void *, CUpointer_attribute, CUdeviceptr);
	CUresult (*sync)(void);
	CUresult (*reset)(CUdevice);
	CUresult (*event_create)(CUevent *, unsigned);
	CUresult (*event_destroy)(CUevent);
} drv;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cudaError_t g_init_err;
static int g_ndev;
static CUcontext g_ctx[MAX_DEV];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread int t_dev;        /* the thread's current device */
static __thread int t_bound = -1; /* the device whose context this thread made current */
static __thread cudaError_t t_last;

static getproc_v2_fn getproc;

static void *sym(const char *name, int version, int per_thread)
{
	void *p = NULL;
	CUdriverProcAddressQueryResult st;
	if (getproc(name, &p, version, per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0, &st) !=
	        CUDA_SUCCESS ||
	    st != CU_GET_PROC_ADDRESS_SUCCESS)
		return NULL;
	return p;
}

#define GET(field, name, ver) (*(void **)&drv.field = sym(name, ver, 0))
#define GET2(field, name, ver, ptver)                          \
	do {                                                   \
		*(void **)&drv.field[0] = sym(name, ver, 0);   \
		*(void **)&drv.field[1] = sym(name, ptver, 1); \
	} while (0)

static void init_once(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		g_init_err = cudaErrorInsufficientDriver;
		return;
	}
	getproc_v2_fn first = (getproc_v2_fn)dlsym(h, "cuGetProcAddress_v2");
	if (!first) {
		g_init_err = cudaErrorInsufficientDriver;
		return;
	}
	/* cudart asks the driver for cuGetProcAddress itself, and uses the answer from then on */
	void *self = NULL;
	CUdriverProcAddressQueryResult st;
	if (first("cuGetProcAddress", &self, 12000, 0, &st) != CUDA_SUCCESS || !self) {
		g_init_err = cudaErrorInsufficientDriver;
		return;
	}
	getproc = (getproc_v2_fn)self;
	GET(init, "cuInit", 2000);
	GET(dev_count, "cuDeviceGetCount", 2000);
	GET(retain, "cuDevicePrimaryCtxRetain", 7000);
	GET(set_current, "cuCtxSetCurrent", 4000);
	GET(can_access, "cuDeviceCanAccessPeer", 4000);
	GET(enable, "cuCtxEnablePeerAccess", 4000);
	GET(disable, "cuCtxDisablePeerAccess", 4000);
	GET(p2p_attr, "cuDeviceGetP2PAttribute", 8000);
	GET2(copy_peer, "cuMemcpyPeer", 4000, 7000);
	GET2(copy_peer_async, "cuMemcpyPeerAsync", 4000, 7000);
	GET2(copy3d_peer, "cuMemcpy3DPeer", 4000, 7000);
	GET2(copy3d_peer_async, "cuMemcpy3DPeerAsync", 4000, 7000);
	GET(ipc_get_mem, "cuIpcGetMemHandle", 4010);
	GET(ipc_open_mem, "cuIpcOpenMemHandle", 11000);
	GET(ipc_close_mem, "cuIpcCloseMemHandle", 4010);
	GET(ipc_get_event, "cuIpcGetEventHandle", 4010);
	GET(ipc_open_event, "cuIpcOpenEventHandle", 4010);
	GET(alloc_managed, "cuMemAllocManaged", 6000);
	GET(advise, "cuMemAdvise", 12020);
	GET2(prefetch, "cuMemPrefetchAsync", 12020, 12020);
	GET(range_attr, "cuMemRangeGetAttribute", 8000);
	GET(range_attrs, "cuMemRangeGetAttributes", 8000);
	GET2(attach, "cuStreamAttachMemAsync", 6000, 7000);
	GET(alloc, "cuMemAlloc", 3020);
	GET(free, "cuMemFree", 3020);
	GET2(free_async, "cuMemFreeAsync", 11020, 11020);
	GET(htod, "cuMemcpyHtoD", 3020);
	GET(dtoh, "cuMemcpyDtoH", 3020);
	GET(dtod, "cuMemcpyDtoD", 3020);
	GET(ptr_attr, "cuPointerGetAttribute", 4000);
	GET(sync, "cuCtxSynchronize", 2000);
	GET(reset, "cuDevicePrimaryCtxReset", 11000);
	GET(event_create, "cuEventCreate", 2000);
	GET(event_destroy, "cuEventDestroy", 4000);
	if (!drv.init || !drv.dev_count || !drv.retain || !drv.set_current || drv.init(0) != CUDA_SUCCESS ||
	    drv.dev_count(&g_ndev) != CUDA_SUCCESS) {
		g_init_err = cudaErrorInsufficientDriver;
		return;
	}
	if (g_ndev > MAX_DEV)
		g_ndev = MAX_DEV;
	if (!g_ndev)
		g_init_err = cudaErrorNoDevice;
}

static cudaError_t fail(cudaError_t e)
{
	if (e != cudaSuccess)
		t_last = e;
	return e;
}

/* The driver's answer as the runtime's (the same numbers for every code used). */
static cudaError_t rt(CUresult r)
{
	return fail((cudaError_t)r);
}

static cudaError_t ready(void)
{
	pthread_once(&g_once, init_once);
	return g_init_err;
}

static int valid_dev(int d)
{
	return d >= 0 && d < g_ndev;
}

/* The primary context of device d, retained once for the process. */
static CUcontext ctx_of(int d)
{
	pthread_mutex_lock(&g_lock);
	if (!g_ctx[d] && drv.retain(&g_ctx[d], d) != CUDA_SUCCESS)
		g_ctx[d] = NULL;
	CUcontext c = g_ctx[d];
	pthread_mutex_unlock(&g_lock);
	return c;
}

/* Initialise, and make the current device's primary context current. */
static cudaError_t bind(void)
{
	cudaError_t e = ready();
	if (e)
		return fail(e);
	if (t_bound == t_dev)
		return cudaSuccess;
	CUcontext c = ctx_of(t_dev);
	if (!c || drv.set_current(c) != CUDA_SUCCESS)
		return fail(cudaErrorInitializationError);
	t_bound = t_dev;
	return cudaSuccess;
}

#define BIND()                           \
	do {                             \
		cudaError_t e_ = bind(); \
		if (e_)                  \
			return e_;       \
	} while (0)
#define NEED(fn)                                            \
	do {                                                \
		if (!(fn))                                  \
			return fail(cudaErrorNotSupported); \
	} while (0)

/* ---- devices and errors ---- */

RT_API cudaError_t cudaGetDeviceCount(int *count)
{
	cudaError_t e = ready();
	if (e)
		return fail(e);
	if (!count)
		return fail(cudaErrorInvalidValue);
	*count = g_ndev;
	return cudaSuccess;
}

RT_API cudaError_t cudaSetDevice(int device)
{
	cudaError_t e = ready();
	if (e)
		return fail(e);
	if (!valid_dev(device))
		return fail(cudaErrorInvalidDevice);
	t_dev = device;
	return bind();
}

RT_API cudaError_t cudaGetDevice(int *device)
{
	cudaError_t e = ready();
	if (e)
		return fail(e);
	if (!device)
		return fail(cudaErrorInvalidValue);
	*device = t_dev;
	return cudaSuccess;
}

RT_API cudaError_t cudaGetLastError(void)
{
	cudaError_t e = t_last;
	t_last = cudaSuccess;
	return e;
}

RT_API cudaError_t cudaPeekAtLastError(void)
{
	return t_last;
}

RT_API cudaError_t cudaRuntimeGetVersion(int *version)
{
	if (!version)
		return fail(cudaErrorInvalidValue);
#ifdef PWSIM_CUDART_12
	*version = 12080;
#else
	*version = 13000;
#endif
	return cudaSuccess;
}

RT_API const char *cudaGetErrorName(cudaError_t error)
{
	switch (error) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInitializationError: return "cudaErrorInitializationError";
	case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
	case cudaErrorDeviceUninitialized: return "cudaErrorDeviceUninitialized";
	case cudaErrorPeerAccessUnsupported: return "cudaErrorPeerAccessUnsupported";
	case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
	case cudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
	case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
	case cudaErrorPeerAccessNotEnabled: return "cudaErrorPeerAccessNotEnabled";
	case cudaErrorTooManyPeers: return "cudaErrorTooManyPeers";
	case cudaErrorNotSupported: return "cudaErrorNotSupported";
	default: return "cudaErrorUnknown";
	}
}

RT_API cudaError_t cudaDeviceSynchronize(void)
{
	BIND();
	NEED(drv.sync);
	return rt(drv.sync());
}

/* :330: "Destroy all allocations and reset all state on the current device":
 * the driver's reset of its primary context, which stays the runtime's (the
 * simulated driver keeps the allocations; "Any subsequent API call to this
 * device will reinitialize the device"). */
RT_API cudaError_t cudaDeviceReset(void)
{
	BIND();
	NEED(drv.reset);
	return rt(drv.reset(t_dev));
}

/* :2798: the flags (cudaEventInterprocess 0x4, DT:126) have the driver's values */
static cudaError_t event_create(cudaEvent_t *event, unsigned int flags)
{
	BIND();
	NEED(drv.event_create);
	return rt(drv.event_create(event, flags));
}

RT_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	return event_create(event, flags);
}

/* :2761: the default flags */
RT_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return event_create(event, 0);
}

/* :2981 */
RT_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	BIND();
	NEED(drv.event_destroy);
	return rt(drv.event_destroy(event));
}

/* ---- peer access ---- */

RT_API cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	cudaError_t e = ready();
	if (e)
		return fail(e);
	NEED(drv.can_access);
	return rt(drv.can_access(canAccessPeer, device, peerDevice));
}

RT_API cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	BIND();
	if (!valid_dev(peerDevice))
		return fail(cudaErrorInvalidDevice);
	if (peerDevice == t_dev)
		return fail(
		    cudaErrorPeerAccessUnsupported); /* docs/facts-cuda.md: 217, where the driver says 201 */
	if (flags)
		return fail(cudaErrorInvalidValue);
	CUcontext peer = ctx_of(peerDevice);
	NEED(drv.enable && peer);
	return rt(drv.enable(peer, 0));
}

RT_API cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	BIND();
	if (!valid_dev(peerDevice))
		return fail(cudaErrorInvalidDevice);
	CUcontext peer = ctx_of(peerDevice);
	NEED(drv.disable && peer);
	return rt(drv.disable(peer));
}

RT_API cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr_t attr, int srcDevice,
                                             int dstDevice)
{
	cudaError_t e = ready();
	if (e)
		return fail(e);
	NEED(drv.p2p_attr);
	return rt(drv.p2p_attr(value, attr, srcDevice, dstDevice));
}

/* ---- peer copies ---- */

static cudaError_t memcpy_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                               int async, cudaStream_t stream, int per_thread)
{
	BIND();
	if (!valid_dev(dstDevice) || !valid_dev(srcDevice))
		return fail(cudaErrorInvalidDevice);
	if (!count)
		return cudaSuccess;
	CUcontext dc = ctx_of(dstDevice), sc = ctx_of(srcDevice);
	if (async) {
		NEED(drv.copy_peer_async[per_thread]);
		return rt(
		    drv.copy_peer_async[per_thread]((uintptr_t)dst, dc, (uintptr_t)src, sc, count, stream));
	}
	NEED(drv.copy_peer[per_thread]);
	return rt(drv.copy_peer[per_thread]((uintptr_t)dst, dc, (uintptr_t)src, sc, count));
}

RT_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
	return memcpy_peer(dst, dstDevice, src, srcDevice, count, 0, NULL, 0);
}

RT_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                       cudaStream_t stream)
{
	return memcpy_peer(dst, dstDevice, src, srcDevice, count, 1, stream, 0);
}

static cudaError_t copy3d(const struct cudaMemcpy3DPeerParms *p, int async, cudaStream_t stream,
                          int per_thread)
{
	BIND();
	if (!p || p->srcArray || p->dstArray)
		return fail(cudaErrorInvalidValue);
	if (!valid_dev(p->srcDevice) || !valid_dev(p->dstDevice))
		return fail(cudaErrorInvalidDevice);
	CUDA_MEMCPY3D_PEER d;
	memset(&d, 0, sizeof d);
	d.srcXInBytes = p->srcPos.x;
	d.srcY = p->srcPos.y;
	d.srcZ = p->srcPos.z;
	d.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	d.srcDevice = (uintptr_t)p->srcPtr.ptr;
	d.srcContext = ctx_of(p->srcDevice);
	d.srcPitch = p->srcPtr.pitch;
	d.srcHeight = p->srcPtr.ysize;
	d.dstXInBytes = p->dstPos.x;
	d.dstY = p->dstPos.y;
	d.dstZ = p->dstPos.z;
	d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	d.dstDevice = (uintptr_t)p->dstPtr.ptr;
	d.dstContext = ctx_of(p->dstDevice);
	d.dstPitch = p->dstPtr.pitch;
	d.dstHeight = p->dstPtr.ysize;
	d.WidthInBytes = p->extent.width;
	d.Height = p->extent.height;
	d.Depth = p->extent.depth;
	if (async) {
		NEED(drv.copy3d_peer_async[per_thread]);
		return rt(drv.copy3d_peer_async[per_thread](&d, stream));
	}
	NEED(drv.copy3d_peer[per_thread]);
	return rt(drv.copy3d_peer[per_thread](&d));
}

RT_API cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
	return copy3d(p, 0, NULL, 0);
}
RT_API cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
	return copy3d(p, 0, NULL, 1);
}
RT_API cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream)
{
	return copy3d(p, 1, stream, 0);
}
RT_API cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream)
{
	return copy3d(p, 1, stream, 1);
}

/* ---- IPC ---- */

RT_API cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
	BIND();
	NEED(drv.ipc_get_mem);
	return rt(drv.ipc_get_mem((CUipcMemHandle *)handle, (uintptr_t)devPtr));
}

RT_API cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
	BIND();
	NEED(drv.ipc_open_mem);
	if (!devPtr)
		return fail(cudaErrorInvalidValue);
	CUipcMemHandle h;
	memcpy(&h, &handle, sizeof h);
	CUdeviceptr p = 0;
	CUresult r = drv.ipc_open_mem(&p, h, flags);
	if (r == CUDA_SUCCESS)
		*devPtr = (void *)(uintptr_t)p;
	return rt(r);
}

RT_API cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
	BIND();
	NEED(drv.ipc_close_mem);
	return rt(drv.ipc_close_mem((uintptr_t)devPtr));
}

RT_API cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
	BIND();
	NEED(drv.ipc_get_event);
	return rt(drv.ipc_get_event((CUipcEventHandle *)handle, event));
}

RT_API cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
	BIND();
	NEED(drv.ipc_open_event);
	CUipcEventHandle h;
	memcpy(&h, &handle, sizeof h);
	return rt(drv.ipc_open_event(event, h));
}

/* ---- memory ---- */

RT_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	BIND();
	NEED(drv.alloc);
	if (!devPtr)
		return fail(cudaErrorInvalidValue);
	if (!size) {
		*devPtr = NULL;
		return cudaSuccess;
	}
	CUdeviceptr p = 0;
	CUresult r = drv.alloc(&p, size);
	if (r == CUDA_SUCCESS)
		*devPtr = (void *)(uintptr_t)p;
	return rt(r);
}

RT_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	BIND();
	NEED(drv.alloc_managed);
	if (!devPtr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
		return fail(cudaErrorInvalidValue);
	if (!size) { /* docs/facts-cuda.md: a success */
		*devPtr = NULL;
		return cudaSuccess;
	}
	CUdeviceptr p = 0;
	CUresult r = drv.alloc_managed(&p, size, flags);
	if (r == CUDA_SUCCESS)
		*devPtr = (void *)(uintptr_t)p;
	return rt(r);
}

RT_API cudaError_t cudaFree(void *devPtr)
{
	BIND();
	NEED(drv.free);
	if (!devPtr)
		return cudaSuccess;
	return rt(drv.free((uintptr_t)devPtr));
}

RT_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
	BIND();
	NEED(drv.free_async[0]);
	return rt(drv.free_async[0]((uintptr_t)devPtr, stream));
}
RT_API cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream)
{
	BIND();
	NEED(drv.free_async[1]);
	return rt(drv.free_async[1]((uintptr_t)devPtr, stream));
}

static int is_device_ptr(const void *p)
{
	int dev;
	return p && drv.ptr_attr &&
	       drv.ptr_attr(&dev, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (uintptr_t)p) == CUDA_SUCCESS;
}

RT_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind_t kind)
{
	BIND();
	if (!count)
		return cudaSuccess;
	if (kind == cudaMemcpyDefault)
		kind = is_device_ptr(src)
		           ? (is_device_ptr(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
		           : (is_device_ptr(dst) ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
	switch (kind) {
	case cudaMemcpyHostToHost: memmove(dst, src, count); return cudaSuccess;
	case cudaMemcpyHostToDevice: NEED(drv.htod); return rt(drv.htod((uintptr_t)dst, src, count));
	case cudaMemcpyDeviceToHost: NEED(drv.dtoh); return rt(drv.dtoh(dst, (uintptr_t)src, count));
	case cudaMemcpyDeviceToDevice:
		NEED(drv.dtod);
		return rt(drv.dtod((uintptr_t)dst, (uintptr_t)src, count));
	default: return fail(cudaErrorInvalidValue);
	}
}

/* ---- managed memory ---- */

static CUmemLocation cu_loc(struct cudaMemLocation l)
{
	CUmemLocation c = {l.type, l.id};
	return c;
}

static cudaError_t prefetch(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned flags,
                            cudaStream_t stream, int per_thread)
{
	BIND();
	NEED(drv.prefetch[per_thread]);
	if (location.type == cudaMemLocationTypeDevice && !valid_dev(location.id))
		return fail(cudaErrorInvalidDevice); /* docs/facts-cuda.md: 101 */
	return rt(drv.prefetch[per_thread]((uintptr_t)devPtr, count, cu_loc(location), flags, stream));
}

#ifndef PWSIM_CUDART_12
RT_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise_t advice,
                                 struct cudaMemLocation location)
{
	BIND();
	NEED(drv.advise);
	return rt(drv.advise((uintptr_t)devPtr, count, advice, cu_loc(location)));
}

RT_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                        unsigned int flags, cudaStream_t stream)
{
	return prefetch(devPtr, count, location, flags, stream, 0);
}
RT_API cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                             struct cudaMemLocation location, unsigned int flags,
                                             cudaStream_t stream)
{
	return prefetch(devPtr, count, location, flags, stream, 1);
}

#else
/* The CUDA 12 ABIs (12.2+ cuda_runtime_api.h): the base names take a device
 * ordinal (cudaCpuDeviceId for the host) and the prefetch no flags; the _v2
 * names take the cudaMemLocation that CUDA 13 gave the base names. */
static struct cudaMemLocation loc_of(int device)
{
	struct cudaMemLocation l = {
	    device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice, device};
	return l;
}

static cudaError_t advise(const void *devPtr, size_t count, cudaMemoryAdvise_t advice,
                          struct cudaMemLocation location)
{
	BIND();
	NEED(drv.advise);
	return rt(drv.advise((uintptr_t)devPtr, count, advice, cu_loc(location)));
}

RT_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise_t advice, int device)
{
	return advise(devPtr, count, advice, loc_of(device));
}
RT_API cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, cudaMemoryAdvise_t advice,
                                    struct cudaMemLocation location)
{
	return advise(devPtr, count, advice, location);
}
RT_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
{
	return prefetch(devPtr, count, loc_of(dstDevice), 0, stream, 0);
}
RT_API cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, int dstDevice,
                                             cudaStream_t stream)
{
	return prefetch(devPtr, count, loc_of(dstDevice), 0, stream, 1);
}
RT_API cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count, struct cudaMemLocation location,
                                           unsigned int flags, cudaStream_t stream)
{
	return prefetch(devPtr, count, location, flags, stream, 0);
}
RT_API cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void *devPtr, size_t count,
                                                struct cudaMemLocation location, unsigned int flags,
                                                cudaStream_t stream)
{
	return prefetch(devPtr, count, location, flags, stream, 1);
}
#endif

RT_API cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, cudaMemRangeAttribute_t attribute,
                                            const void *devPtr, size_t count)
{
	BIND();
	NEED(drv.range_attr);
	return rt(drv.range_attr(data, dataSize, attribute, (uintptr_t)devPtr, count));
}

RT_API cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                             cudaMemRangeAttribute_t *attributes, size_t numAttributes,
                                             const void *devPtr, size_t count)
{
	BIND();
	NEED(drv.range_attrs);
	return rt(drv.range_attrs(data, dataSizes, attributes, numAttributes, (uintptr_t)devPtr, count));
}

RT_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                            unsigned int flags)
{
	BIND();
	NEED(drv.attach[0]);
	return rt(drv.attach[0](stream, (uintptr_t)devPtr, length, flags));
}
RT_API cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                 unsigned int flags)
{
	BIND();
	NEED(drv.attach[1]);
	return rt(drv.attach[1](stream, (uintptr_t)devPtr, length, flags));
}

/*
 * What the HIP runtime says, asked through its real, untraced functions:
 * the look-ups of a call.  The device of a pointer comes from
 * hipPointerGetAttributes, whose hipMemoryType was renumbered in ROCm 6.0,
 * so it is decoded with the runtime's own major version
 * (hipRuntimeGetVersion, asked once); the current device from hipGetDevice.
 */
#include "state/devices.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "vendors/hip/hip.h"
#include "state/op.h"
#include "state/rangecache.h"

typedef hipError_t (*ptr_attr_fn)(hipPointerAttribute_t *, const void *);
typedef hipError_t (*int_out_fn)(int *);
typedef hipError_t (*addr_range_fn)(void **, size_t *, void *);
typedef const char *(*error_name_fn)(hipError_t);
typedef hipError_t (*ctx_push_fn)(hipCtx_t);
typedef hipError_t (*ctx_pop_fn)(hipCtx_t *);
typedef hipError_t (*set_device_fn)(int);
typedef hipError_t (*last_error_fn)(void);

static struct {
	pthread_once_t once;
	ptr_attr_fn ptr_attr;
	int_out_fn get_device, dev_count, runtime_version;
	addr_range_fn addr_range;
	error_name_fn error_name;
	ctx_push_fn push, set_current;
	ctx_pop_fn pop, get_current;
	int_out_fn ctx_get_device;
	set_device_fn set_device;
	last_error_fn peek, get_last;
} aux = {.once = PTHREAD_ONCE_INIT};

static atomic_int runtime_version = -1; /* -1: not asked yet; 0: unknown */

static void aux_resolve(void)
{
	aux.ptr_attr = (ptr_attr_fn)pw_hip_aux("hipPointerGetAttributes");
	aux.get_device = (int_out_fn)pw_hip_aux("hipGetDevice");
	aux.dev_count = (int_out_fn)pw_hip_aux("hipGetDeviceCount");
	aux.runtime_version = (int_out_fn)pw_hip_aux("hipRuntimeGetVersion");
	aux.addr_range = (addr_range_fn)pw_hip_aux("hipMemGetAddressRange");
	aux.error_name = (error_name_fn)pw_hip_aux("hipGetErrorName");
	aux.push = (ctx_push_fn)pw_hip_aux("hipCtxPushCurrent");
	aux.pop = (ctx_pop_fn)pw_hip_aux("hipCtxPopCurrent");
	aux.ctx_get_device = (int_out_fn)pw_hip_aux("hipCtxGetDevice");
	aux.get_current = (ctx_pop_fn)pw_hip_aux("hipCtxGetCurrent");
	aux.set_current = (ctx_push_fn)pw_hip_aux("hipCtxSetCurrent");
	aux.set_device = (set_device_fn)pw_hip_aux("hipSetDevice");
	aux.peek = (last_error_fn)pw_hip_aux("hipPeekAtLastError");
	aux.get_last = (last_error_fn)pw_hip_aux("hipGetLastError");
}

static inline void aux_ready(void)
{
	pthread_once(&aux.once, aux_resolve);
}

/*
 * The layer's own runtime queries must not become the program's last error.
 * From ROCm 7, hipGetLastError returns the last call that failed (facts
 * A8.6): a query of ours that fails on a correct program (the address range
 * of host memory) would surface in its next hipGetLastError.  So a query is
 * bracketed: if no error was pending before it and one is after, it was ours
 * and is cleared.  (Before 7 the last error is the last call's result, which
 * the program's own call overwrites: queries made after the real call are
 * made only when it succeeded.)  Not covered: an error still pending from the
 * program when a query of ours fails on ROCm 7 is replaced by ours.
 */
static inline int quiet_enter(void)
{
	pw_tls_internal++;
	return aux.peek ? (int)aux.peek() : -1;
}

static inline void quiet_leave(int pending)
{
	if (pending == hipSuccess && aux.peek && aux.peek() != hipSuccess && aux.get_last)
		aux.get_last();
	pw_tls_internal--;
}

int pw_hip_quiet_begin(void)
{
	aux_ready();
	return quiet_enter();
}

void pw_hip_quiet_end(int pending)
{
	quiet_leave(pending);
}

int pw_hip_runtime_version(void)
{
	int v = atomic_load_explicit(&runtime_version, memory_order_relaxed);
	if (PW_LIKELY(v >= 0))
		return v;
	aux_ready();
	v = 0;
	const int pending_ = quiet_enter();
	if (!aux.runtime_version || aux.runtime_version(&v) != hipSuccess || v < 0)
		v = 0;
	quiet_leave(pending_);
	atomic_store_explicit(&runtime_version, v, memory_order_relaxed);
	return v;
}

/* HIP_VERSION = major * 10000000 + minor * 100000 + patch (hip_version.h). */
static int major_of(int v)
{
	return v / 10000000;
}

int pw_hip_memtype_is_device(int type, int major)
{
	if (major <= 0)
		return -1;
	if (major < 6)
		return type == PW_HIP5_MEMORY_TYPE_HOST                                            ? 0
		       : type >= PW_HIP5_MEMORY_TYPE_DEVICE && type <= PW_HIP5_MEMORY_TYPE_MANAGED ? 1
		                                                                                   : -1;
	switch (type) {
	case PW_HIP6_MEMORY_TYPE_UNREGISTERED:
	case PW_HIP6_MEMORY_TYPE_HOST: return 0;
	case PW_HIP6_MEMORY_TYPE_DEVICE:
	case PW_HIP6_MEMORY_TYPE_MANAGED:
	case PW_HIP6_MEMORY_TYPE_ARRAY:
	case PW_HIP6_MEMORY_TYPE_UNIFIED: return 1;
	default: return -1;
	}
}

bool pw_hip_memtype_is_managed(int type, int major)
{
	return major >= 6 ? type == PW_HIP6_MEMORY_TYPE_MANAGED
	                  : major > 0 && type == PW_HIP5_MEMORY_TYPE_MANAGED;
}

static bool ptr_attributes(const void *p, hipPointerAttribute_t *a)
{
	aux_ready();
	if (!p || !aux.ptr_attr)
		return false;
	memset(a, 0, sizeof *a);
	const int pending_ = quiet_enter();
	hipError_t r = aux.ptr_attr(a, p);
	quiet_leave(pending_);
	return r == hipSuccess;
}

int pw_hip_ptr_device(const void *p)
{
	hipPointerAttribute_t a;
	if (!ptr_attributes(p, &a))
		return PW_NO_DEV;
	return pw_hip_memtype_is_device(a.type, major_of(pw_hip_runtime_version())) == 1 ? a.device
	                                                                                 : PW_NO_DEV;
}

/* The allocation behind p and whether it is managed, asked of the runtime. */
void pw_hip_mem_facts(const void *p, struct pw_mem *m)
{
	m->known = m->managed = false;
	m->base = m->size = 0;
	m->p2p = -1;
	hipPointerAttribute_t a;
	if (!ptr_attributes(p, &a))
		return;
	int major = major_of(pw_hip_runtime_version());
	m->managed = a.isManaged != 0 || pw_hip_memtype_is_managed(a.type, major);
	m->host = !m->managed && pw_hip_memtype_is_device(a.type, major) == 0;
	void *base = NULL;
	size_t size = 0;
	const int pending_ = quiet_enter();
	if (aux.addr_range && aux.addr_range(&base, &size, (void *)(uintptr_t)p) == hipSuccess && base) {
		m->known = true;
		m->base = (uintptr_t)base;
		m->size = size;
	}
	quiet_leave(pending_);
}

/* Asked once, then cached: the peer calls read it on every call. */
static atomic_int dev_count_cache;

/* What the runtime says of p, as a range-cache entry: false when p is no
 * memory it knows. */
bool pw_hip_runtime_info(const void *p, struct pw_range *r)
{
	hipPointerAttribute_t a;
	if (!ptr_attributes(p, &a))
		return false;
	int major = major_of(pw_hip_runtime_version());
	bool managed = a.isManaged != 0 || pw_hip_memtype_is_managed(a.type, major);
	int isdev = pw_hip_memtype_is_device(a.type, major);
	void *base = NULL;
	size_t size = 0;
	const int pending_ = quiet_enter();
	if (!aux.addr_range || aux.addr_range(&base, &size, (void *)(uintptr_t)p) != hipSuccess)
		base = NULL;
	quiet_leave(pending_);
	r->base = (uintptr_t)base;
	r->size = base ? size : 0;
	r->dev = isdev == 1 && !managed ? a.device : PW_NO_DEV;
	r->flags = (managed ? PW_RANGE_MANAGED : 0) | (isdev == 0 ? PW_RANGE_HOST : 0);
	r->id = 0;
	return true;
}

int pw_hip_device_count(void)
{
	int n = atomic_load_explicit(&dev_count_cache, memory_order_relaxed);
	if (n > 0)
		return n;
	aux_ready();
	const int pending_ = quiet_enter();
	if (!aux.dev_count || aux.dev_count(&n) != hipSuccess)
		n = 0;
	quiet_leave(pending_);
	if (n > 0)
		atomic_store_explicit(&dev_count_cache, n, memory_order_relaxed);
	return n;
}

/* The runtime's own answer, through the real function: not traced. */
int pw_hip_can_access(int dev, int peer)
{
	typedef hipError_t (*can_fn)(int *, int, int);
	can_fn f = (can_fn)pw_hip_real(PW_HIP_ID(hipDeviceCanAccessPeer));
	int v = -1;
	if (!f || dev == PW_NO_DEV || peer == PW_NO_DEV)
		return -1;
	aux_ready();
	const int pending_ = quiet_enter();
	if (f(&v, dev, peer) != hipSuccess)
		v = -1;
	quiet_leave(pending_);
	return v;
}

static int current_device(void)
{
	aux_ready();
	int d = PW_NO_DEV;
	const int pending_ = quiet_enter();
	if (!aux.get_device || aux.get_device(&d) != hipSuccess)
		d = PW_NO_DEV;
	quiet_leave(pending_);
	return d;
}

/* A context's device: pushed, asked, popped (hipCtx* are deprecated and
 * rare).  A runtime without push/pop: made current, asked, and the thread's
 * context (or, if it had none, its device) put back. */
int pw_hip_ctx_device(hipCtx_t ctx)
{
	aux_ready();
	if (!ctx || !aux.ctx_get_device)
		return PW_NO_DEV;
	int d = PW_NO_DEV;
	const int pending_ = quiet_enter();
	if (aux.push && aux.pop) {
		/* clr's push makes ctx's device current and its pop does not undo
		 * that (hip_context.cpp): the thread's device is put back. */
		int saved_dev = PW_NO_DEV, now = PW_NO_DEV;
		if (aux.get_device && aux.get_device(&saved_dev) != hipSuccess)
			saved_dev = PW_NO_DEV;
		if (aux.push(ctx) == hipSuccess) {
			hipCtx_t popped;
			if (aux.ctx_get_device(&d) != hipSuccess)
				d = PW_NO_DEV;
			aux.pop(&popped);
			if (saved_dev != PW_NO_DEV && aux.set_device &&
			    (aux.get_device(&now) != hipSuccess || now != saved_dev))
				aux.set_device(saved_dev);
		}
	} else if (aux.get_current && aux.set_current && aux.get_device && aux.set_device) {
		hipCtx_t saved = NULL;
		int saved_dev = 0;
		if (aux.get_current(&saved) == hipSuccess && aux.get_device(&saved_dev) == hipSuccess &&
		    aux.set_current(ctx) == hipSuccess) {
			if (aux.ctx_get_device(&d) != hipSuccess)
				d = PW_NO_DEV;
			if (!saved || aux.set_current(saved) != hipSuccess)
				aux.set_device(saved_dev);
		}
	}
	quiet_leave(pending_);
	return d;
}

/* hipError_t names, [H52]:231-345 (facts A6); the runtime is asked for the rest. */
const char *pw_hip_error_name(int code)
{
	switch (code) {
	case hipSuccess: return "hipSuccess";
	case hipErrorInvalidValue: return "hipErrorInvalidValue";
	case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
	case hipErrorNotInitialized: return "hipErrorNotInitialized";
	case hipErrorDeinitialized: return "hipErrorDeinitialized";
	case hipErrorInvalidDevicePointer: return "hipErrorInvalidDevicePointer";
	case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
	case hipErrorInsufficientDriver: return "hipErrorInsufficientDriver";
	case hipErrorNoDevice: return "hipErrorNoDevice";
	case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
	case hipErrorInvalidImage: return "hipErrorInvalidImage";
	case hipErrorInvalidContext: return "hipErrorInvalidContext";
	case hipErrorContextAlreadyCurrent: return "hipErrorContextAlreadyCurrent";
	case hipErrorMapFailed: return "hipErrorMapFailed";
	case hipErrorUnmapFailed: return "hipErrorUnmapFailed";
	case hipErrorAlreadyMapped: return "hipErrorAlreadyMapped";
	case hipErrorNotMapped: return "hipErrorNotMapped";
	case hipErrorContextAlreadyInUse: return "hipErrorContextAlreadyInUse";
	case hipErrorPeerAccessUnsupported: return "hipErrorPeerAccessUnsupported";
	case hipErrorSharedObjectSymbolNotFound: return "hipErrorSharedObjectSymbolNotFound";
	case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
	case hipErrorIllegalState: return "hipErrorIllegalState";
	case hipErrorNotFound: return "hipErrorNotFound";
	case hipErrorNotReady: return "hipErrorNotReady";
	case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
	case hipErrorPeerAccessAlreadyEnabled: return "hipErrorPeerAccessAlreadyEnabled";
	case hipErrorPeerAccessNotEnabled: return "hipErrorPeerAccessNotEnabled";
	case hipErrorSetOnActiveProcess: return "hipErrorSetOnActiveProcess";
	case hipErrorContextIsDestroyed: return "hipErrorContextIsDestroyed";
	case hipErrorNotSupported: return "hipErrorNotSupported";
	case hipErrorStreamCaptureUnsupported: return "hipErrorStreamCaptureUnsupported";
	case hipErrorUnknown: return "hipErrorUnknown";
	case hipErrorRuntimeMemory: return "hipErrorRuntimeMemory";
	case hipErrorRuntimeOther: return "hipErrorRuntimeOther";
	}
	const char *name = NULL;
	aux_ready();
	if (aux.error_name) {
		pw_tls_internal++;
		name = aux.error_name(code);
		pw_tls_internal--;
	}
	return name;
}

/* hipIpcMemLazyEnablePeerAccess: 0 before ROCm 6.0, 1 from 6.0 (facts A4). */
uint64_t pw_hip_ipc_lazy_flag(int version)
{
	return version >= 60000000 ? PW_HIP_IPC_LAZY_6 : PW_HIP_IPC_LAZY_5;
}

/* Why flags may be wrong on this runtime: the other version's lazy flag. */
const char *pw_hip_flags_note(uint64_t flags, int version)
{
	if (!version)
		return NULL;
	if (version >= 60000000 && flags == PW_HIP_IPC_LAZY_5)
		return "; version skew: hipIpcMemLazyEnablePeerAccess was 0 before ROCm 6.0 and is 1 from "
		       "6.0, "
		       "and this runtime is ROCm 6 or later, so a program built against ROCm 5.x headers "
		       "passes 0, "
		       "which the runtime rejects (hipErrorInvalidValue): rebuild against the runtime's "
		       "headers";
	if (version < 60000000 && flags == PW_HIP_IPC_LAZY_6)
		return "; version skew: hipIpcMemLazyEnablePeerAccess is 1 only from ROCm 6.0, and this "
		       "runtime is "
		       "ROCm 5.x, where it is 0, so a program built against ROCm 6 headers passes 1, which "
		       "the "
		       "runtime rejects (hipErrorInvalidValue): rebuild against the runtime's headers";
	return NULL;
}

/* ---- before the call: everything that the call may change ---- */

void pw_hip_pre(struct pw_call *c, const struct pw_fn_desc *fn)
{
	pw_devices_note_use(PW_VENDOR_HIP); /* any call initializes the runtime */
	if (fn->flags & PW_IMPLICIT)
		return; /* the classification found the devices already (pw_hip_implicit_cross) */
	if (fn->flags & PW_CUR_DEV)
		c->cur_dev = current_device();
	for (int i = 0; i < fn->nargs; i++) {
		switch (fn->args[i].kind) {
		case PW_K_PTR: c->dev[i] = pw_hip_ptr_device((const void *)(uintptr_t)c->a[i]); break;
		case PW_K_CTX: c->dev[i] = pw_hip_ctx_device((hipCtx_t)(uintptr_t)c->a[i]); break;
		case PW_K_COPY3D: { /* hipMemcpy3DPeer[Async]: the source's device here, the destination's
			               last */
			const hipMemcpy3DPeerParms *p = (const hipMemcpy3DPeerParms *)(uintptr_t)c->a[i];
			c->dev[i] = p && !p->srcArray ? pw_hip_ptr_device(p->srcPtr.ptr) : PW_NO_DEV;
			c->dev[PW_DEV_COPY3D_DST] =
			    p && !p->dstArray ? pw_hip_ptr_device(p->dstPtr.ptr) : PW_NO_DEV;
			break;
		}
		default: c->dev[i] = PW_NO_DEV;
		}
	}
}

/* ---- the header's "hip" member ---- */

#include <jansson.h>

void pw_hip_describe(void *vendors)
{
	const char *lib = pw_hip_library();
	if (!lib)
		return;
	json_t *o = json_object();
	json_object_set_new(o, "library", json_string(lib));
	int v = pw_hip_runtime_version();
	json_object_set_new(o, "runtime_version", v ? json_integer(v) : json_null());
	json_object_set_new((json_t *)vendors, "hip", o);
}

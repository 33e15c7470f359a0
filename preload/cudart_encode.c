/*
 * Turning a CUDA runtime call into its trace event: the driver's event shape
 * (cuda_encode.c) plus "layer":"runtime", runtime enum and error names, and
 * the current device asked of the runtime itself (cudaGetDevice, untraced).
 * Where a pointer lives is asked of the driver (unified addressing: a runtime
 * device pointer is the driver's CUdeviceptr).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "event.h"
#include "cuda_hooks.h"
#include "cudart_hooks.h"
#include "trace.h"

typedef cudaError_t (*get_device_fn)(int *);
typedef const char *(*error_name_fn)(cudaError_t);

int pw_cudart_current_device(void)
{
	static _Atomic(get_device_fn) get;
	get_device_fn f = atomic_load_explicit(&get, memory_order_acquire);
	if (!f) {
		f = (get_device_fn)pw_cudart_aux("cudaGetDevice");
		atomic_store_explicit(&get, f, memory_order_release);
	}
	int dev = PW_NO_DEV;
	if (!f)
		return dev;
	/* Not pw_tls_internal: this may be the runtime's first call, in which it
	 * binds the driver (dlsym of cuGetProcAddress_v2), and that binding must
	 * be handed our wrappers.  Driver calls it makes are not checked. */
	pw_tls_upper++;
	if (f(&dev) != cudaSuccess)
		dev = PW_NO_DEV;
	pw_tls_upper--;
	return dev;
}

/* Known names first; the runtime is asked only for codes we do not list. */
const char *pw_cudart_error_name(int code)
{
	switch (code) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInitializationError: return "cudaErrorInitializationError";
	case cudaErrorCudartUnloading: return "cudaErrorCudartUnloading";
	case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
	case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
	case cudaErrorDeviceUninitialized: return "cudaErrorDeviceUninitialized";
	case cudaErrorMapBufferObjectFailed: return "cudaErrorMapBufferObjectFailed";
	case cudaErrorAlreadyMapped: return "cudaErrorAlreadyMapped";
	case cudaErrorPeerAccessUnsupported: return "cudaErrorPeerAccessUnsupported";
	case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
	case cudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
	case cudaErrorNotReady: return "cudaErrorNotReady";
	case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
	case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
	case cudaErrorPeerAccessNotEnabled: return "cudaErrorPeerAccessNotEnabled";
	case cudaErrorTooManyPeers: return "cudaErrorTooManyPeers";
	case cudaErrorNotPermitted: return "cudaErrorNotPermitted";
	case cudaErrorNotSupported: return "cudaErrorNotSupported";
	case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
	case cudaErrorUnknown: return "cudaErrorUnknown";
	}
	static _Atomic(error_name_fn) name_of;
	error_name_fn f = atomic_load_explicit(&name_of, memory_order_acquire);
	if (!f) {
		f = (error_name_fn)pw_cudart_aux("cudaGetErrorName");
		atomic_store_explicit(&name_of, f, memory_order_release);
	}
	if (!f)
		return NULL;
	pw_tls_internal++;
	const char *n = f(code);
	pw_tls_internal--;
	return n;
}

/* ---- names of enum values ---- */

static const char *advice_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "cudaMemAdviseSetReadMostly",
	                                "cudaMemAdviseUnsetReadMostly",
	                                "cudaMemAdviseSetPreferredLocation",
	                                "cudaMemAdviseUnsetPreferredLocation",
	                                "cudaMemAdviseSetAccessedBy",
	                                "cudaMemAdviseUnsetAccessedBy"};
	return v > 0 && v < 7 ? n[v] : NULL;
}

static const char *range_attr_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "cudaMemRangeAttributeReadMostly",
	                                "cudaMemRangeAttributePreferredLocation",
	                                "cudaMemRangeAttributeAccessedBy",
	                                "cudaMemRangeAttributeLastPrefetchLocation",
	                                "cudaMemRangeAttributePreferredLocationType",
	                                "cudaMemRangeAttributePreferredLocationId",
	                                "cudaMemRangeAttributeLastPrefetchLocationType",
	                                "cudaMemRangeAttributeLastPrefetchLocationId"};
	return v > 0 && v < 9 ? n[v] : NULL;
}

static const char *p2p_attr_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "cudaDevP2PAttrPerformanceRank",
	                                "cudaDevP2PAttrAccessSupported",
	                                "cudaDevP2PAttrNativeAtomicSupported",
	                                "cudaDevP2PAttrCudaArrayAccessSupported",
	                                "cudaDevP2PAttrOnlyPartialNativeAtomicSupported"};
	return v > 0 && v < 6 ? n[v] : NULL;
}

static const char *loc_type_name(int v)
{
	static const char *const n[] = {"invalid", "device", "host", "host_numa", "host_numa_current"};
	return v >= 0 && v < 5 ? n[v] : NULL;
}

static const struct pw_flag_name ipc_flags[] = {
    {cudaIpcMemLazyEnablePeerAccess, "cudaIpcMemLazyEnablePeerAccess"}, {0, NULL}};
static const struct pw_flag_name attach_flags[] = {{cudaMemAttachGlobal, "cudaMemAttachGlobal"},
                                                   {cudaMemAttachHost, "cudaMemAttachHost"},
                                                   {cudaMemAttachSingle, "cudaMemAttachSingle"},
                                                   {0, NULL}};

static void put_loc(struct pw_jw *w, const char *key, uint64_t raw)
{
	struct cudaMemLocation loc;
	memcpy(&loc, &raw, sizeof loc);
	pw_jw_key(w, key);
	pw_jw_obj_open(w);
	const char *t = loc_type_name(loc.type);
	pw_jw_key(w, "type");
	if (t)
		pw_jw_str(w, t);
	else
		pw_jw_i64(w, loc.type);
	pw_jw_kv_i64(w, "id", loc.id);
	pw_jw_obj_close(w);
}

/* The pointer of one side of a 3D peer copy (NULL for an array). */
static uint64_t copy3d_ptr(const struct cudaPitchedPtr *p, const struct cudaPos *pos)
{
	return p->ptr ? (uintptr_t)p->ptr + pos->x + pos->y * p->pitch + pos->z * p->pitch * p->ysize : 0;
}

/* ---- before the call ---- */

void pw_cudart_pre(struct pw_call *c)
{
	const struct pw_fn_desc *fn = c->fn;
	if (fn->flags & PW_CUR_DEV)
		c->cur_dev = pw_cudart_current_device();
	for (int i = 0; i < fn->nargs; i++) {
		switch (fn->args[i].kind) {
		case PW_K_PTR: c->dev[i] = pw_cuda_ptr_device(c->a[i]); break;
		case PW_K_COPY3D: {
			const struct cudaMemcpy3DPeerParms *p =
			    (const struct cudaMemcpy3DPeerParms *)(uintptr_t)c->a[i];
			c->dev[i] = p && !p->srcArray ? pw_cuda_ptr_device(copy3d_ptr(&p->srcPtr, &p->srcPos))
			                              : PW_NO_DEV;
			c->dev[PW_DEV_COPY3D_DST] =
			    p && !p->dstArray ? pw_cuda_ptr_device(copy3d_ptr(&p->dstPtr, &p->dstPos))
			                      : PW_NO_DEV;
			break;
		}
		default: c->dev[i] = PW_NO_DEV;
		}
	}
}

/* ---- after the call: the event ---- */

static void put_copy3d(struct pw_jw *w, const struct pw_call *c, const struct cudaMemcpy3DPeerParms *p)
{
	if (!p) {
		pw_jw_key(w, "copy");
		pw_jw_raw(w, "null", 4);
		return;
	}
	pw_jw_kv_hex(w, "src", p->srcArray ? (uintptr_t)p->srcArray : copy3d_ptr(&p->srcPtr, &p->srcPos));
	pw_event_put_dev(w, "src", "_dev", c->dev[0]);
	pw_jw_kv_i64(w, "src_device", p->srcDevice);
	if (p->srcArray)
		pw_jw_kv_str(w, "src_type", "array");
	pw_jw_kv_hex(w, "dst", p->dstArray ? (uintptr_t)p->dstArray : copy3d_ptr(&p->dstPtr, &p->dstPos));
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_COPY3D_DST]);
	pw_jw_kv_i64(w, "dst_device", p->dstDevice);
	if (p->dstArray)
		pw_jw_kv_str(w, "dst_type", "array");
	pw_jw_kv_u64(w, "width", p->extent.width);
	pw_jw_kv_u64(w, "height", p->extent.height);
	pw_jw_kv_u64(w, "depth", p->extent.depth);
	pw_jw_kv_u64(w, "bytes",
	             (uint64_t)p->extent.width * (p->extent.height ? p->extent.height : 1) *
	                 (p->extent.depth ? p->extent.depth : 1));
}

void pw_cudart_put_arg(struct pw_jw *w, const struct pw_call *c, int i)
{
	const struct pw_arg_desc *d = &c->fn->args[i];
	const char *k = d->name;
	uint64_t v = c->a[i];
	bool ok = c->ret == cudaSuccess;
	switch ((enum pw_kind)d->kind) {
	case PW_K_PTR:
		pw_jw_kv_hex(w, k, v);
		pw_event_put_dev(w, k, "_dev", c->dev[i]);
		break;
	case PW_K_STREAM:
	case PW_K_EVENT:
	case PW_K_HPTR: pw_jw_kv_hex(w, k, v); break;
	case PW_K_DEV: pw_jw_kv_i64(w, k, (int64_t)v); break;
	case PW_K_SIZE: pw_jw_kv_u64(w, k, v); break;
	case PW_K_UINT: pw_jw_kv_u64(w, k, v & 0xffffffffu); break; /* a register-wide unsigned int */
	case PW_K_IPCFLAGS: pw_event_put_flags(w, k, v, ipc_flags); break;
	case PW_K_ATTACHFLAGS: pw_event_put_flags(w, k, v, attach_flags); break;
	case PW_K_ADVICE: pw_event_put_enum(w, k, (int64_t)v, advice_name((int64_t)v)); break;
	case PW_K_RATTR: pw_event_put_enum(w, k, (int64_t)v, range_attr_name((int64_t)v)); break;
	case PW_K_P2PATTR: pw_event_put_enum(w, k, (int64_t)v, p2p_attr_name((int64_t)v)); break;
	case PW_K_LOC: put_loc(w, k, v); break;
	case PW_K_IPCMEM:
	case PW_K_IPCEVT:
		pw_jw_key(w, k);
		pw_jw_bytes(w, (const void *)(uintptr_t)v, CUDA_IPC_HANDLE_SIZE);
		break;
	case PW_K_OUT_INT:
		if (ok && v)
			pw_jw_kv_i64(w, k, *(const int *)(uintptr_t)v);
		break;
	case PW_K_OUT_PTR:
		if (ok && v) {
			uintptr_t p = (uintptr_t) * (void *const *)(uintptr_t)v;
			pw_jw_kv_hex(w, k, p);
			pw_event_put_dev(w, k, "_dev", pw_cuda_ptr_device(p));
		}
		break;
	case PW_K_OUT_IPCMEM:
	case PW_K_OUT_IPCEVT:
		if (ok && v) {
			pw_jw_key(w, k);
			pw_jw_bytes(w, (const void *)(uintptr_t)v, CUDA_IPC_HANDLE_SIZE);
		}
		break;
	case PW_K_OUT_EVENT:
		if (ok && v)
			pw_jw_kv_hex(w, k, (uintptr_t) * (const cudaEvent_t *)(uintptr_t)v);
		break;
	case PW_K_RDATA: pw_event_put_range_data(w, k, v, c->a[i + 1], ok); break;
	case PW_K_RATTRS:
		pw_event_put_range_attrs(w, k, (const int *)(uintptr_t)v, c->a[i + 1], range_attr_name);
		break;
	case PW_K_COPY3D: put_copy3d(w, c, (const struct cudaMemcpy3DPeerParms *)(uintptr_t)v); break;
	default: pw_jw_kv_hex(w, k, v); break;
	}
}

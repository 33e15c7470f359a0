/*
 * A CUDA runtime call's arguments in its trace event ("args"): the driver's
 * shapes (cuda_encode.c) with the runtime's enum names, pointers with the
 * devices the call's look-ups found before it ran (cudart_query.c).  As for
 * the driver: what the event needs is saved on the calling thread after the
 * call (pw_cudart_snap_arg), the JSON is written by the trace writer from
 * the record (pw_cudart_put_arg).
 */
#include <stdio.h>
#include <string.h>

#include "vendors/cudart/cudart.h"
#include "vendors/cuda/cuda_query.h"
#include "record/event.h"
#include "record/jsonw.h"

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

/* ---- on the calling thread, after the call ---- */

static int ptr_dev(uint64_t p)
{
	return pw_cuda_ptr_device(p);
}

static const struct pw_snap_sizes snap_sizes = {CUDA_IPC_HANDLE_SIZE, sizeof(cudaEvent_t), ptr_dev};

void pw_cudart_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i)
{
	if (pw_event_snap_common(s, c, i, c->ret == cudaSuccess, &snap_sizes))
		return;
	if (c->fn->args[i].kind == PW_K_COPY3D)
		pw_event_snap_deref(s, i, c->a[i], sizeof(struct cudaMemcpy3DPeerParms));
}

/* ---- on the writer's thread: the event ---- */

static void put_copy3d(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct cudaMemcpy3DPeerParms *p = pw_rec_snap(r, i, sizeof *p);
	if (!p) {
		pw_jw_key(w, "copy");
		pw_jw_raw(w, "null", 4);
		return;
	}
	pw_jw_kv_hex(w, "src",
	             p->srcArray ? (uintptr_t)p->srcArray : pw_cudart_copy3d_ptr(&p->srcPtr, &p->srcPos));
	pw_event_put_dev(w, "src", "_dev", c->dev[0]);
	pw_jw_kv_i64(w, "src_device", p->srcDevice);
	if (p->srcArray)
		pw_jw_kv_str(w, "src_type", "array");
	pw_jw_kv_hex(w, "dst",
	             p->dstArray ? (uintptr_t)p->dstArray : pw_cudart_copy3d_ptr(&p->dstPtr, &p->dstPos));
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

void pw_cudart_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct pw_arg_desc *d = &c->fn->args[i];
	const char *k = d->name;
	uint64_t v = c->a[i];
	const void *b;
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
	case PW_K_OUT_IPCMEM:
	case PW_K_OUT_IPCEVT: pw_event_put_bytes(w, k, r, i, CUDA_IPC_HANDLE_SIZE); break;
	case PW_K_OUT_INT:
		if ((b = pw_rec_snap(r, i, sizeof(int)))) {
			int x;
			memcpy(&x, b, sizeof x);
			pw_jw_kv_i64(w, k, x);
		}
		break;
	case PW_K_OUT_PTR: pw_event_put_out_ptr(w, k, r, i); break;
	case PW_K_OUT_EVENT:
		if ((b = pw_rec_snap(r, i, sizeof(uint64_t)))) {
			uint64_t x;
			memcpy(&x, b, sizeof x);
			pw_jw_kv_hex(w, k, x);
		}
		break;
	case PW_K_RDATA: pw_event_put_range_data(w, k, r, i); break;
	case PW_K_RATTRS: pw_event_put_range_attrs(w, k, r, i, range_attr_name); break;
	case PW_K_COPY3D: put_copy3d(w, r, i); break;
	default: pw_jw_kv_hex(w, k, v); break;
	}
}

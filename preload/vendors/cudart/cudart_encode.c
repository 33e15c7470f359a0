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

static const struct pw_flag_name ipc_flags[] = {
    {cudaIpcMemLazyEnablePeerAccess, "cudaIpcMemLazyEnablePeerAccess"}, {0, NULL}};
static const struct pw_flag_name attach_flags[] = {{cudaMemAttachGlobal, "cudaMemAttachGlobal"},
                                                   {cudaMemAttachHost, "cudaMemAttachHost"},
                                                   {cudaMemAttachSingle, "cudaMemAttachSingle"},
                                                   {0, NULL}};

/* A struct cudaMemLocation passed by value (captured as its 8 bytes). */
static void put_loc(struct pw_jw *w, const char *key, uint64_t raw)
{
	struct cudaMemLocation loc;
	memcpy(&loc, &raw, sizeof loc);
	pw_event_put_loc(w, key, loc.type, loc.id);
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

static const struct pw_arg_names arg_names = {.ipc_handle = CUDA_IPC_HANDLE_SIZE,
                                              .ipc_flags = ipc_flags,
                                              .attach_flags = attach_flags,
                                              .advice = advice_name,
                                              .range_attr = range_attr_name,
                                              .p2p_attr = p2p_attr_name};

void pw_cudart_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct pw_arg_desc *d = &c->fn->args[i];
	uint64_t v = c->a[i];
	switch ((enum pw_kind)d->kind) {
	case PW_K_UINT: pw_jw_kv_u64(w, d->name, v & 0xffffffffu); break; /* a register-wide unsigned int */
	case PW_K_LOC: put_loc(w, d->name, v); break;
	case PW_K_COPY3D: put_copy3d(w, r, i); break;
	default:
		if (!pw_event_put_common(w, r, i, &arg_names))
			pw_jw_kv_hex(w, d->name, v);
		break;
	}
}

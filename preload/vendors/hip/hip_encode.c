/*
 * A HIP call's arguments in its trace event ("args"): values decoded by
 * kind (hip_table.h) with HIP's names, pointers with the devices the call's
 * look-ups found before it ran (hip_query.c).  What the event needs beyond
 * the argument words is saved on the calling thread after the call
 * (pw_hip_snap_arg); the JSON is written by the trace writer from the
 * record (pw_hip_put_arg).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "rules/check.h"
#include "record/event.h"
#include "vendors/hip/hip.h"
#include "record/jsonw.h"
#include "state/op.h"
#include "record/trace.h"

/* ---- names of enum values ---- */

static const char *advice_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "hipMemAdviseSetReadMostly",
	                                "hipMemAdviseUnsetReadMostly",
	                                "hipMemAdviseSetPreferredLocation",
	                                "hipMemAdviseUnsetPreferredLocation",
	                                "hipMemAdviseSetAccessedBy",
	                                "hipMemAdviseUnsetAccessedBy"};
	if (v == hipMemAdviseSetCoarseGrain)
		return "hipMemAdviseSetCoarseGrain";
	if (v == hipMemAdviseUnsetCoarseGrain)
		return "hipMemAdviseUnsetCoarseGrain";
	return v > 0 && v < 7 ? n[v] : NULL;
}

static const char *range_attr_name(int64_t v)
{
	static const char *const n[] = {
	    NULL, "hipMemRangeAttributeReadMostly", "hipMemRangeAttributePreferredLocation",
	    "hipMemRangeAttributeAccessedBy", "hipMemRangeAttributeLastPrefetchLocation"};
	if (v == hipMemRangeAttributeCoherencyMode)
		return "hipMemRangeAttributeCoherencyMode";
	return v > 0 && v < 5 ? n[v] : NULL;
}

static const char *p2p_attr_name(int64_t v)
{
	static const char *const n[] = {"hipDevP2PAttrPerformanceRank", "hipDevP2PAttrAccessSupported",
	                                "hipDevP2PAttrNativeAtomicSupported",
	                                "hipDevP2PAttrHipArrayAccessSupported"};
	return v >= 0 && v < 4 ? n[v] : NULL;
}

static const char *loc_type_name(int v)
{
	static const char *const n[] = {"invalid", "device", "host", "host_numa", "host_numa_current"};
	return v >= 0 && v < 5 ? n[v] : NULL;
}

static const struct pw_flag_name attach_flags[] = {{hipMemAttachGlobal, "hipMemAttachGlobal"},
                                                   {hipMemAttachHost, "hipMemAttachHost"},
                                                   {hipMemAttachSingle, "hipMemAttachSingle"},
                                                   {0, NULL}};

/* hipIpcMemLazyEnablePeerAccess is 0 on 5.x and 1 from 6.0: the name is
 * given when the value is the runtime's own lazy flag, by the runtime's
 * version (saved with the call). */
static void put_ipc_flags(struct pw_jw *w, const char *key, uint64_t v, const struct pw_rcall *r, int i)
{
	int ver = 0;
	const void *b = pw_rec_snap(r, i, sizeof ver);
	if (b)
		memcpy(&ver, b, sizeof ver);
	pw_jw_key(w, key);
	pw_jw_u64(w, v);
	pw_jw_key2(w, key, "_names");
	char buf[64];
	if (ver && v == pw_hip_ipc_lazy_flag(ver))
		snprintf(buf, sizeof buf, "hipIpcMemLazyEnablePeerAccess");
	else
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
	pw_jw_str(w, buf);
}

static void put_loc(struct pw_jw *w, const char *key, uint64_t raw)
{
	hipMemLocation loc;
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
	return pw_hip_ptr_device((const void *)(uintptr_t)p);
}

static const struct pw_snap_sizes snap_sizes = {HIP_IPC_HANDLE_SIZE, sizeof(hipEvent_t), ptr_dev};

void pw_hip_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i)
{
	if (pw_event_snap_common(s, c, i, c->ret == hipSuccess, &snap_sizes))
		return;
	if (c->fn->args[i].kind == PW_K_IPCFLAGS) { /* the runtime's version names the lazy flag */
		int ver = pw_hip_runtime_version();
		pw_snap_copy(s, i, &ver, sizeof ver);
	}
}

/* ---- on the writer's thread: the event ---- */

void pw_hip_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
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
	case PW_K_CTX:
		pw_jw_kv_hex(w, k, v);
		pw_event_put_dev(w, k, "_dev", c->dev[i]);
		/* the trace contract: hipCtx* peer calls name the peer device as "peer_dev" */
		if (!strcmp(k, "peer_ctx"))
			pw_event_put_dev(w, "peer_dev", "", c->dev[i]);
		break;
	case PW_K_STREAM:
	case PW_K_EVENT:
	case PW_K_HPTR: pw_jw_kv_hex(w, k, v); break;
	case PW_K_DEV: pw_jw_kv_i64(w, k, (int64_t)v); break;
	case PW_K_SIZE:
	case PW_K_UINT: pw_jw_kv_u64(w, k, v); break;
	case PW_K_IPCFLAGS: put_ipc_flags(w, k, v, r, i); break;
	case PW_K_ATTACHFLAGS: pw_event_put_flags(w, k, v, attach_flags); break;
	case PW_K_ADVICE: pw_event_put_enum(w, k, (int64_t)v, advice_name((int64_t)v)); break;
	case PW_K_RATTR: pw_event_put_enum(w, k, (int64_t)v, range_attr_name((int64_t)v)); break;
	case PW_K_P2PATTR: pw_event_put_enum(w, k, (int64_t)v, p2p_attr_name((int64_t)v)); break;
	case PW_K_LOC: put_loc(w, k, v); break;
	case PW_K_IPCMEM:
	case PW_K_IPCEVT:
	case PW_K_OUT_IPCMEM:
	case PW_K_OUT_IPCEVT: pw_event_put_bytes(w, k, r, i, HIP_IPC_HANDLE_SIZE); break;
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
	default: break; /* kinds HIP has none of (PTR32, COPY3D) */
	}
}

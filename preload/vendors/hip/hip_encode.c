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

/* A hipMemLocation passed by value (captured as its 8 bytes). */
static void put_loc(struct pw_jw *w, const char *key, uint64_t raw)
{
	hipMemLocation loc;
	memcpy(&loc, &raw, sizeof loc);
	pw_event_put_loc(w, key, loc.type, loc.id);
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

/* The lazy flag's name goes by the runtime's version (put_ipc_flags). */
static const struct pw_arg_names arg_names = {.ipc_handle = HIP_IPC_HANDLE_SIZE,
                                              .attach_flags = attach_flags,
                                              .advice = advice_name,
                                              .range_attr = range_attr_name,
                                              .p2p_attr = p2p_attr_name};

void pw_hip_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct pw_arg_desc *d = &c->fn->args[i];
	const char *k = d->name;
	uint64_t v = c->a[i];
	switch ((enum pw_kind)d->kind) {
	case PW_K_CTX:
		pw_event_put_common(w, r, i, &arg_names);
		/* the trace contract: hipCtx* peer calls name the peer device as "peer_dev" */
		if (!strcmp(k, "peer_ctx"))
			pw_event_put_dev(w, "peer_dev", "", c->dev[i]);
		break;
	case PW_K_UINT: pw_jw_kv_u64(w, k, v); break;
	case PW_K_IPCFLAGS: put_ipc_flags(w, k, v, r, i); break;
	case PW_K_LOC: put_loc(w, k, v); break;
	default: pw_event_put_common(w, r, i, &arg_names); break; /* nothing for kinds HIP has none of */
	}
}

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
#include <sys/stat.h>

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

/* hipMemAllocationHandleType, in the trace's names of handle types
 * (trace_format.h "handle_type"), which CUDA's rows write too. */
static const char *handle_type_name(int64_t v)
{
	switch (v) {
	case hipMemHandleTypeNone: return "none";
	case hipMemHandleTypePosixFileDescriptor: return "posix_fd";
	case hipMemHandleTypeWin32: return "win32";
	case hipMemHandleTypeWin32Kmt: return "win32_kmt";
	}
	return NULL;
}

/* The row's handle type (its HTYPE argument), or -1. */
static int64_t row_handle_type(const struct pw_call *c)
{
	for (int i = 0; i < c->fn->nargs; i++)
		if (c->fn->args[i].kind == PW_K_HTYPE)
			return (int64_t)c->a[i];
	return -1;
}

/* A posix fd as saved: the fd and the file behind it (st_dev, st_ino: the
 * "file_id" that is the same in every process holding that file, which
 * pairs an export with its imports in the registry and the analyzer).
 * unique: a character device's one inode names no pool. */
struct snap_fd {
	int64_t fd;
	uint8_t has_id, unique, pad_[6];
	uint64_t st_dev, st_ino;
};

/* A system call, made only for the calls that export or import a pool. */
static void snap_fd(struct pw_snapw *s, int i, int fd)
{
	struct stat st;
	struct snap_fd *o = pw_snap_add(s, i, sizeof *o);
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->fd = fd;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		o->has_id = 1;
		o->unique = !S_ISCHR(st.st_mode);
		o->st_dev = (uint64_t)st.st_dev;
		o->st_ino = (uint64_t)st.st_ino;
	}
}

static void put_shareable(struct pw_jw *w, const char *k, const struct pw_rcall *r, int i, uint64_t v)
{
	const struct snap_fd *o = pw_rec_snap(r, i, sizeof *o);
	if (!o) {
		pw_jw_kv_hex(w, k, v);
		return;
	}
	pw_jw_kv_i64(w, k, o->fd);
	pw_jw_key(w, "file_id");
	if (o->has_id) {
		char id[48];
		snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)o->st_dev,
		         (unsigned long long)o->st_ino);
		pw_jw_str(w, id);
	} else {
		pw_jw_raw(w, "null", 4);
	}
	if (o->has_id && !o->unique) {
		pw_jw_key(w, "file_id_unique");
		pw_jw_raw(w, "false", 5);
	}
}

/* A hipMemAllocationProp as saved: its bytes and the runtime's version,
 * which says the layout (reordered in 5.3: abi/hip.h). */
struct snap_prop {
	unsigned char bytes[sizeof(hipMemAllocationProp)];
	int version;
};

/* The device it is on and the handle types it may be exported as (one type
 * in HIP's struct), as CUDA's rows write them. */
static void put_allocprop(struct pw_jw *w, const char *k, const struct snap_prop *o)
{
	if (!o) {
		pw_jw_key(w, k);
		pw_jw_raw(w, "null", 4);
		return;
	}
	hipMemLocation loc;
	hipMemAllocationHandleType type;
	if (o->version && o->version < PW_HIP_ALLOCPROP_53) {
		struct pw_hip52_mem_allocation_prop p;
		memcpy(&p, o->bytes, sizeof p);
		loc = p.location;
		type = p.requestedHandleType;
	} else {
		hipMemAllocationProp p;
		memcpy(&p, o->bytes, sizeof p);
		loc = p.location;
		type = p.requestedHandleType;
	}
	pw_jw_kv_i64(w, "dev", loc.id);
	if (loc.type != hipMemLocationTypeDevice) {
		const char *t = pw_event_loc_type_name(loc.type);
		pw_jw_kv_str(w, "location_type", t ? t : "?");
	}
	pw_jw_key(w, "handle_types");
	pw_jw_ch(w, '[');
	if (type != hipMemHandleTypeNone) {
		const char *n = handle_type_name(type);
		if (n)
			pw_jw_str(w, n);
		else
			pw_jw_i64(w, type);
	}
	pw_jw_ch(w, ']');
}

static const char *access_name(int f)
{
	switch (f) {
	case hipMemAccessFlagsProtNone: return "none";
	case hipMemAccessFlagsProtRead: return "read";
	case hipMemAccessFlagsProtReadWrite: return "readwrite";
	}
	return NULL;
}

/* hipMemSetAccess's descriptors: [{dev, flags}], the first PW_EVENT_LISTED. */
static void put_access(struct pw_jw *w, const char *k, const struct pw_rcall *r, int i)
{
	size_t n;
	const hipMemAccessDesc *d = (const hipMemAccessDesc *)(const void *)pw_rec_snap_n(r, i, &n);
	n /= sizeof *d;
	pw_jw_key(w, k);
	pw_jw_ch(w, '[');
	for (size_t j = 0; j < n; j++) {
		if (j)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		if (d[j].location.type == hipMemLocationTypeDevice) {
			pw_jw_kv_i64(w, "dev", d[j].location.id);
		} else {
			const char *t = pw_event_loc_type_name(d[j].location.type);
			pw_jw_kv_i64(w, "dev", hipCpuDeviceId);
			pw_jw_kv_str(w, "type", t ? t : "?");
		}
		const char *f = access_name(d[j].flags);
		pw_jw_key(w, "flags");
		if (f)
			pw_jw_str(w, f);
		else
			pw_jw_i64(w, d[j].flags);
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
}

/* ---- on the calling thread, after the call ---- */

/* ---- hipMemcpy3DPeer[Async] ---- */

static void put_copy3d_side(struct pw_jw *w, const char *key, const char *type_key, const char *named_key,
                            const void *array, const void *ptr, int named, int32_t dev)
{
	if (array) {
		pw_jw_kv_str(w, type_key, "array");
		pw_jw_kv_hex(w, key, (uintptr_t)array);
	} else {
		pw_jw_kv_hex(w, key, (uintptr_t)ptr);
		pw_event_put_dev(w, key, "_dev", dev);
	}
	pw_event_put_dev(w, named_key, "", named);
}

/* From the struct as it was passed (saved after the call). */
static void put_copy3d(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const hipMemcpy3DPeerParms *p = pw_rec_snap(r, i, sizeof *p);
	if (!p) {
		pw_jw_key(w, "copy");
		pw_jw_raw(w, "null", 4);
		return;
	}
	put_copy3d_side(w, "src", "src_type", "src_device", p->srcArray, p->srcPtr.ptr, p->srcDevice,
	                c->dev[0]);
	put_copy3d_side(w, "dst", "dst_type", "dst_device", p->dstArray, p->dstPtr.ptr, p->dstDevice,
	                c->dev[PW_DEV_COPY3D_DST]);
	pw_jw_kv_u64(w, "width", p->extent.width);
	pw_jw_kv_u64(w, "height", p->extent.height);
	pw_jw_kv_u64(w, "depth", p->extent.depth);
	pw_jw_kv_u64(w, "bytes",
	             (uint64_t)p->extent.width * (p->extent.height ? p->extent.height : 1) *
	                 (p->extent.depth ? p->extent.depth : 1));
}

/* ---- hipMemPrefetchBatchAsync ---- */

/* The device a range goes to: its location's (hipCpuDeviceId for the host),
 * PW_NO_DEV where none is given or its type is unknown. */
static int64_t batch_dev(const hipMemLocation *locs, const size_t *idxs, size_t nlocs, size_t j)
{
	const hipMemLocation *at = NULL;
	for (size_t i = 0; locs && idxs && i < nlocs && i < 4096; i++)
		if (idxs[i] <= j)
			at = &locs[i];
	if (!at)
		return PW_NO_DEV;
	switch (at->type) {
	case hipMemLocationTypeDevice: return at->id;
	case hipMemLocationTypeHost:
	case hipMemLocationTypeHostNuma:
	case hipMemLocationTypeHostNumaCurrent: return hipCpuDeviceId;
	default: return PW_NO_DEV;
	}
}

/* A batch prefetch as saved: the count, the total bytes, the first ranges. */
struct snap_pbatch {
	uint64_t n, total;
	struct {
		uint64_t ptr, bytes;
		int64_t dev;
	} e[PW_EVENT_LISTED];
};

static void snap_pbatch(struct pw_snapw *s, const struct pw_call *c, int i)
{
	void *const *ptrs = (void *const *)(uintptr_t)c->a[i];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[i + 1];
	size_t n = c->a[i + 2];
	const hipMemLocation *locs = (const hipMemLocation *)(uintptr_t)c->a[i + 3];
	const size_t *idxs = (const size_t *)(uintptr_t)c->a[i + 4];
	size_t nlocs = c->a[i + 5];
	struct snap_pbatch *o = pw_snap_add(s, i, sizeof *o);
	if (!o)
		return;
	o->n = 0;
	o->total = 0;
	for (size_t j = 0; ptrs && sizes && j < n && j < 4096; j++) {
		o->total += sizes[j];
		if (j >= PW_EVENT_LISTED)
			continue;
		o->e[j].ptr = (uintptr_t)ptrs[j];
		o->e[j].bytes = sizes[j];
		o->e[j].dev = batch_dev(locs, idxs, nlocs, j);
		o->n = j + 1;
	}
}

static void put_pbatch(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct snap_pbatch *o = pw_rec_snap(r, i, sizeof *o);
	pw_jw_key(w, r->c.fn->args[i].name);
	pw_jw_ch(w, '[');
	for (size_t j = 0; o && j < o->n; j++) {
		if (j)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		pw_jw_kv_hex(w, "ptr", o->e[j].ptr);
		pw_jw_kv_u64(w, "bytes", o->e[j].bytes);
		pw_event_put_dev(w, "dev", "", (int32_t)o->e[j].dev);
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
	pw_jw_kv_u64(w, "bytes", o ? o->total : 0);
}

/* hipMemcpy3D[Async]: the sides, the box and the kind, as the struct was passed. */
static void put_copy3dl(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const hipMemcpy3DParms *p = pw_rec_snap(r, i, sizeof *p);
	if (!p)
		return;
	pw_jw_kv_hex(w, "src", p->srcArray ? (uintptr_t)p->srcArray : (uintptr_t)p->srcPtr.ptr);
	pw_event_put_dev(w, "src", "_dev", c->dev[0]);
	pw_jw_kv_hex(w, "dst", p->dstArray ? (uintptr_t)p->dstArray : (uintptr_t)p->dstPtr.ptr);
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_COPY3D_DST]);
	pw_jw_kv_u64(w, "width", p->extent.width);
	pw_jw_kv_u64(w, "height", p->extent.height);
	pw_jw_kv_u64(w, "depth", p->extent.depth);
	pw_jw_kv_u64(w, "bytes",
	             (uint64_t)p->extent.width * (p->extent.height ? p->extent.height : 1) *
	                 (p->extent.depth ? p->extent.depth : 1));
	pw_jw_kv_u64(w, "kind", (uint64_t)p->kind);
}

static int ptr_dev(uint64_t p)
{
	return pw_hip_ptr_device((const void *)(uintptr_t)p);
}

static const struct pw_snap_sizes snap_sizes = {HIP_IPC_HANDLE_SIZE, sizeof(hipEvent_t), ptr_dev};

void pw_hip_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i)
{
	if (pw_event_snap_common(s, c, i, c->ret == hipSuccess, &snap_sizes))
		return;
	bool ok = c->ret == hipSuccess;
	uint64_t v = c->a[i];
	switch ((enum pw_kind)c->fn->args[i].kind) {
	case PW_K_IPCFLAGS: { /* the runtime's version names the lazy flag */
		int ver = pw_hip_runtime_version();
		pw_snap_copy(s, i, &ver, sizeof ver);
		break;
	}
	case PW_K_OUT_POOL:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(hipMemPool_t));
		break;
	case PW_K_OUT_MEMHANDLE:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(hipMemGenericAllocationHandle_t));
		break;
	case PW_K_ALLOCPROP:
		if (v) {
			struct snap_prop o;
			memcpy(o.bytes, (const void *)(uintptr_t)v, sizeof o.bytes);
			o.version = pw_hip_runtime_version();
			pw_snap_copy(s, i, &o, sizeof o);
		}
		break;
	case PW_K_ACCESS:
		if (v)
			pw_snap_copy(s, i, (const void *)(uintptr_t)v,
			             (c->a[i + 1] < PW_EVENT_LISTED ? (size_t)c->a[i + 1] : PW_EVENT_LISTED) *
			                 sizeof(hipMemAccessDesc));
		break;
	case PW_K_SHAREABLE: /* import: the fd is the pointer's value */
		if (row_handle_type(c) == hipMemHandleTypePosixFileDescriptor)
			snap_fd(s, i, (int)(int64_t)v);
		break;
	case PW_K_OUT_SHAREABLE: /* export: the runtime wrote an fd at v */
		if (ok && v && row_handle_type(c) == hipMemHandleTypePosixFileDescriptor)
			snap_fd(s, i, *(const int *)(uintptr_t)v);
		break;
	case PW_K_EXPORTDATA: pw_event_snap_deref(s, i, v, sizeof(hipMemPoolPtrExportData)); break;
	case PW_K_COPY3D: pw_event_snap_deref(s, i, v, sizeof(hipMemcpy3DPeerParms)); break;
	case PW_K_COPY3DL: pw_event_snap_deref(s, i, v, sizeof(hipMemcpy3DParms)); break;
	case PW_K_BATCH:
	case PW_K_BATCH3D: pw_hip_snap_batch(s, c, i); break;
	case PW_K_PBATCH: snap_pbatch(s, c, i); break;
	case PW_K_OUT_EXPORTDATA:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(hipMemPoolPtrExportData));
		break;
	default: break; /* the argument's word says it all */
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
	case PW_K_POOL:
	case PW_K_VA:
	case PW_K_MEMHANDLE: pw_jw_kv_hex(w, k, v); break;
	case PW_K_OUT_POOL:
	case PW_K_OUT_MEMHANDLE: pw_event_put_out_word(w, k, r, i); break;
	case PW_K_ULL: pw_jw_kv_u64(w, k, v); break;
	case PW_K_ALLOCPROP: put_allocprop(w, k, pw_rec_snap(r, i, sizeof(struct snap_prop))); break;
	case PW_K_ACCESS: put_access(w, k, r, i); break;
	case PW_K_HTYPE: { /* the name, as CUDA's rows write it, or the number */
		const char *n = handle_type_name((int64_t)v);
		pw_jw_key(w, k);
		if (n)
			pw_jw_str(w, n);
		else
			pw_jw_i64(w, (int64_t)v);
		break;
	}
	case PW_K_SHAREABLE: put_shareable(w, k, r, i, v); break;
	case PW_K_OUT_SHAREABLE:
		if (c->ret == hipSuccess && v)
			put_shareable(w, k, r, i, v);
		break;
	case PW_K_EXPORTDATA:
	case PW_K_OUT_EXPORTDATA: pw_event_put_bytes(w, k, r, i, sizeof(hipMemPoolPtrExportData)); break;
	case PW_K_COPY3D: put_copy3d(w, r, i); break;
	case PW_K_COPY3DL: put_copy3dl(w, r, i); break;
	case PW_K_BATCH:
	case PW_K_BATCH3D: pw_hip_put_batch(w, r, i); break;
	case PW_K_PBATCH: put_pbatch(w, r, i); break;
	case PW_K_SKIP: break;
	default: pw_event_put_common(w, r, i, &arg_names); break; /* nothing for kinds HIP has none of */
	}
}

/*
 * A CUDA call's arguments in its trace event ("args"), in two halves by
 * kind (cuda_table.h): on the calling thread, after the call, what each
 * argument's event needs beyond its word (pw_cuda_snap_arg: out-parameters,
 * IPC handles, the structs and arrays behind pointers, the devices of
 * returned pointers and of contexts in structs, file ids); on the trace
 * writer's thread, the JSON from the record alone (pw_cuda_put_arg).
 * Pointers and contexts carry the devices the call's look-ups found before
 * it ran (cuda_query.c).
 */
#include <stdio.h>
#include <string.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "vendors/cuda/cuda_vmm.h"
#include "record/event.h"
#include "record/jsonw.h"

/* ---- names of enum values ---- */

static const char *advice_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "CU_MEM_ADVISE_SET_READ_MOSTLY",
	                                "CU_MEM_ADVISE_UNSET_READ_MOSTLY",
	                                "CU_MEM_ADVISE_SET_PREFERRED_LOCATION",
	                                "CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION",
	                                "CU_MEM_ADVISE_SET_ACCESSED_BY",
	                                "CU_MEM_ADVISE_UNSET_ACCESSED_BY"};
	return v > 0 && v < 7 ? n[v] : NULL;
}

static const char *range_attr_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY",
	                                "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION",
	                                "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY",
	                                "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION",
	                                "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE",
	                                "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID",
	                                "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE",
	                                "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID"};
	return v > 0 && v < 9 ? n[v] : NULL;
}

static const char *p2p_attr_name(int64_t v)
{
	static const char *const n[] = {NULL,
	                                "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK",
	                                "CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED",
	                                "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED",
	                                "CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED",
	                                "CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED"};
	return v > 0 && v < 6 ? n[v] : NULL;
}

static const char *atomic_op_name(int64_t v)
{
	static const char *const n[] = {"CU_ATOMIC_OPERATION_INTEGER_ADD",
	                                "CU_ATOMIC_OPERATION_INTEGER_MIN",
	                                "CU_ATOMIC_OPERATION_INTEGER_MAX",
	                                "CU_ATOMIC_OPERATION_INTEGER_INCREMENT",
	                                "CU_ATOMIC_OPERATION_INTEGER_DECREMENT",
	                                "CU_ATOMIC_OPERATION_AND",
	                                "CU_ATOMIC_OPERATION_OR",
	                                "CU_ATOMIC_OPERATION_XOR",
	                                "CU_ATOMIC_OPERATION_EXCHANGE",
	                                "CU_ATOMIC_OPERATION_CAS",
	                                "CU_ATOMIC_OPERATION_FLOAT_ADD",
	                                "CU_ATOMIC_OPERATION_FLOAT_MIN",
	                                "CU_ATOMIC_OPERATION_FLOAT_MAX"};
	return v >= 0 && v < 13 ? n[v] : NULL;
}

static const struct pw_flag_name atomic_caps[] = {
    {CU_ATOMIC_CAPABILITY_SIGNED, "CU_ATOMIC_CAPABILITY_SIGNED"},
    {CU_ATOMIC_CAPABILITY_UNSIGNED, "CU_ATOMIC_CAPABILITY_UNSIGNED"},
    {CU_ATOMIC_CAPABILITY_REDUCTION, "CU_ATOMIC_CAPABILITY_REDUCTION"},
    {CU_ATOMIC_CAPABILITY_SCALAR_32, "CU_ATOMIC_CAPABILITY_SCALAR_32"},
    {CU_ATOMIC_CAPABILITY_SCALAR_64, "CU_ATOMIC_CAPABILITY_SCALAR_64"},
    {CU_ATOMIC_CAPABILITY_SCALAR_128, "CU_ATOMIC_CAPABILITY_SCALAR_128"},
    {CU_ATOMIC_CAPABILITY_VECTOR_32x4, "CU_ATOMIC_CAPABILITY_VECTOR_32x4"},
    {0, NULL}};

/* The capabilities the call wrote, one bitmask per operation, as names. */
static void put_atomic_caps(struct pw_jw *w, const char *k, const struct pw_rcall *r, int i)
{
	char buf[256];
	size_t n;
	const uint8_t *caps = pw_rec_snap_n(r, i, &n);
	n /= sizeof(unsigned);
	pw_jw_key(w, k);
	pw_jw_ch(w, '[');
	for (size_t j = 0; j < n; j++) {
		unsigned v;
		memcpy(&v, caps + j * sizeof v, sizeof v);
		if (j)
			pw_jw_ch(w, ',');
		pw_event_flag_names(buf, sizeof buf, v, atomic_caps);
		pw_jw_str(w, buf);
	}
	pw_jw_ch(w, ']');
}

static const char *memtype_name(int v)
{
	static const char *const n[] = {NULL, "host", "device", "array", "unified"};
	return v > 0 && v < 5 ? n[v] : NULL;
}

static const struct pw_flag_name ipc_flags[] = {
    {CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS"}, {0, NULL}};
static const struct pw_flag_name attach_flags[] = {{CU_MEM_ATTACH_GLOBAL, "CU_MEM_ATTACH_GLOBAL"},
                                                   {CU_MEM_ATTACH_HOST, "CU_MEM_ATTACH_HOST"},
                                                   {CU_MEM_ATTACH_SINGLE, "CU_MEM_ATTACH_SINGLE"},
                                                   {0, NULL}};

/* A CUmemLocation passed by value (captured as its 8 bytes). */
static void put_loc(struct pw_jw *w, const char *key, uint64_t raw)
{
	CUmemLocation loc;
	memcpy(&loc, &raw, sizeof loc);
	pw_event_put_loc(w, key, loc.type, loc.id);
}

/* ---- virtual memory, pools, batch prefetch ---- */

const char *pw_cuda_handle_type_name(int64_t v)
{
	switch (v) {
	case CU_MEM_HANDLE_TYPE_NONE: return "none";
	case CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: return "posix_fd";
	case CU_MEM_HANDLE_TYPE_WIN32: return "win32";
	case CU_MEM_HANDLE_TYPE_WIN32_KMT: return "win32_kmt";
	case CU_MEM_HANDLE_TYPE_FABRIC: return "fabric";
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

/* An OS handle as saved: a posix fd with the file behind it, or a fabric
 * handle's bytes. */
struct snap_shareable {
	int64_t fd;
	uint8_t has_id, unique, fabric, pad_[5];
	uint64_t st_dev, st_ino;
	uint8_t bytes[CU_IPC_HANDLE_SIZE];
};

/* fd_or_bytes: the fd itself for posix_fd, else the address of the bytes. */
static void snap_shareable(struct pw_snapw *s, int i, int64_t type, uint64_t fd_or_bytes)
{
	struct snap_shareable *o;
	if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		if (!(o = pw_snap_add(s, i, sizeof *o)))
			return;
		bool unique = true;
		o->fd = (int)(int64_t)fd_or_bytes;
		o->fabric = 0;
		o->has_id = pw_cuda_file_stat((int)o->fd, &o->st_dev, &o->st_ino, &unique);
		o->unique = unique;
	} else if (type == CU_MEM_HANDLE_TYPE_FABRIC && fd_or_bytes) {
		if (!(o = pw_snap_add(s, i, sizeof *o)))
			return;
		o->fabric = 1;
		memcpy(o->bytes, (const void *)(uintptr_t)fd_or_bytes, sizeof o->bytes);
	}
}

/* An OS handle: the fd (and its file_id) or the fabric handle's bytes, as
 * saved; anything else as the argument's word. */
static void put_shareable(struct pw_jw *w, const char *k, const struct pw_rcall *r, int i, uint64_t v)
{
	const struct snap_shareable *o = pw_rec_snap(r, i, sizeof *o);
	if (o && !o->fabric) {
		char id[48];
		pw_jw_kv_i64(w, k, o->fd);
		pw_jw_key(w, "file_id");
		if (o->has_id) {
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
	} else if (o) {
		pw_jw_key(w, k);
		pw_jw_bytes(w, o->bytes, sizeof o->bytes);
	} else {
		pw_jw_kv_hex(w, k, v);
	}
}

static void put_handle_types(struct pw_jw *w, const char *k, unsigned types)
{
	pw_jw_key(w, k);
	pw_jw_ch(w, '[');
	bool first = true;
	for (unsigned bit = 1; bit; bit <<= 1) {
		if (!(types & bit))
			continue;
		if (!first)
			pw_jw_ch(w, ',');
		first = false;
		const char *n = pw_cuda_handle_type_name(bit);
		if (n)
			pw_jw_str(w, n);
		else
			pw_jw_i64(w, bit);
	}
	pw_jw_ch(w, ']');
}

static void put_allocprop(struct pw_jw *w, const char *k, const CUmemAllocationProp *p)
{
	if (!p) {
		pw_jw_key(w, k);
		pw_jw_raw(w, "null", 4);
		return;
	}
	pw_jw_kv_i64(w, "dev", p->location.id);
	if (p->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
		const char *t = pw_event_loc_type_name(p->location.type);
		pw_jw_kv_str(w, "location_type", t ? t : "?");
	}
	put_handle_types(w, "handle_types", (unsigned)p->requestedHandleTypes);
}

static const char *access_name(int f)
{
	switch (f) {
	case CU_MEM_ACCESS_FLAGS_PROT_NONE: return "none";
	case CU_MEM_ACCESS_FLAGS_PROT_READ: return "read";
	case CU_MEM_ACCESS_FLAGS_PROT_READWRITE: return "readwrite";
	}
	return NULL;
}

static void put_access(struct pw_jw *w, const char *k, const struct pw_rcall *r, int i)
{
	size_t n;
	const CUmemAccessDesc *d = (const CUmemAccessDesc *)(const void *)pw_rec_snap_n(r, i, &n);
	n /= sizeof *d;
	pw_jw_key(w, k);
	pw_jw_ch(w, '[');
	for (size_t j = 0; j < n; j++) {
		if (j)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		if (d[j].location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
			pw_jw_kv_i64(w, "dev", d[j].location.id);
		} else {
			const char *t = pw_event_loc_type_name(d[j].location.type);
			pw_jw_kv_i64(w, "dev", CU_DEVICE_CPU);
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

/* The location that batch entry j goes to: the last locs[k] whose index is <= j. */
int pw_cuda_batch_dev(const CUmemLocation *locs, const size_t *idxs, size_t nlocs, size_t j)
{
	if (!locs || !idxs)
		return PW_NO_DEV;
	size_t k = nlocs;
	for (size_t i = 0; i < nlocs && i < 4096; i++)
		if (idxs[i] <= j)
			k = i;
	if (k == nlocs)
		return PW_NO_DEV;
	switch (locs[k].type) {
	case CU_MEM_LOCATION_TYPE_DEVICE: return locs[k].id;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return CU_DEVICE_CPU;
	}
	return PW_NO_DEV;
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
	const CUdeviceptr *ptrs = (const CUdeviceptr *)(uintptr_t)c->a[i];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[i + 1];
	size_t n = c->a[i + 2];
	const CUmemLocation *locs = (const CUmemLocation *)(uintptr_t)c->a[i + 3];
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
		o->e[j].ptr = ptrs[j];
		o->e[j].bytes = sizes[j];
		o->e[j].dev = pw_cuda_batch_dev(locs, idxs, nlocs, j);
		o->n = j + 1;
	}
}

static void put_batch(struct pw_jw *w, const struct pw_rcall *r, int i)
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

/* ---- cuMemcpy3DPeer[Async] ---- */

/* The struct as passed, and the devices of its two contexts. */
struct snap_copy3d {
	CUDA_MEMCPY3D_PEER p;
	int32_t src_ctx_dev, dst_ctx_dev;
};

static void snap_copy3d(struct pw_snapw *s, int i, const CUDA_MEMCPY3D_PEER *p)
{
	struct snap_copy3d *o;
	if (!p || !(o = pw_snap_add(s, i, sizeof *o)))
		return;
	o->p = *p;
	o->src_ctx_dev = pw_cuda_ctx_device(p->srcContext);
	o->dst_ctx_dev = pw_cuda_ctx_device(p->dstContext);
}

static void put_copy3d(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct snap_copy3d *o = pw_rec_snap(r, i, sizeof *o);
	if (!o) {
		pw_jw_key(w, "copy");
		pw_jw_raw(w, "null", 4);
		return;
	}
	const CUDA_MEMCPY3D_PEER *p = &o->p;
	const char *st = memtype_name(p->srcMemoryType), *dt = memtype_name(p->dstMemoryType);
	pw_jw_kv_str(w, "src_type", st ? st : "invalid");
	pw_jw_kv_hex(w, "src", p->srcMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)p->srcHost : p->srcDevice);
	pw_event_put_dev(w, "src", "_dev", c->dev[0]);
	pw_jw_kv_hex(w, "src_ctx", (uintptr_t)p->srcContext);
	pw_event_put_dev(w, "src_ctx", "_dev", o->src_ctx_dev);
	pw_jw_kv_str(w, "dst_type", dt ? dt : "invalid");
	pw_jw_kv_hex(w, "dst", p->dstMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)p->dstHost : p->dstDevice);
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_COPY3D_DST]);
	pw_jw_kv_hex(w, "dst_ctx", (uintptr_t)p->dstContext);
	pw_event_put_dev(w, "dst_ctx", "_dev", o->dst_ctx_dev);
	pw_jw_kv_u64(w, "width", p->WidthInBytes);
	pw_jw_kv_u64(w, "height", p->Height);
	pw_jw_kv_u64(w, "depth", p->Depth);
	pw_jw_kv_u64(w, "bytes",
	             (uint64_t)p->WidthInBytes * (p->Height ? p->Height : 1) * (p->Depth ? p->Depth : 1));
}

/* ---- on the calling thread, after the call: what the event will need ---- */

static int ptr_dev(uint64_t p)
{
	return pw_cuda_ptr_device(p);
}

static const struct pw_snap_sizes snap_sizes = {CU_IPC_HANDLE_SIZE, sizeof(CUevent), ptr_dev};

void pw_cuda_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i)
{
	const struct pw_arg_desc *d = &c->fn->args[i];
	uint64_t v = c->a[i];
	bool ok = c->ret == CUDA_SUCCESS;
	if (pw_event_snap_common(s, c, i, ok, &snap_sizes))
		return;
	switch ((enum pw_kind)d->kind) {
	case PW_K_ATOMICOPS: pw_event_snap_ints(s, i, v, c->a[i + 1]); break;
	case PW_K_COPY3D: snap_copy3d(s, i, (const CUDA_MEMCPY3D_PEER *)(uintptr_t)v); break;
	case PW_K_COPY2D:
	case PW_K_COPY3DL:
	case PW_K_BATCH:
	case PW_K_BATCH3D:
	case PW_K_OUT_SIZE: pw_cuda_implicit_snap_arg(s, c, i); break;
	case PW_K_OUT_MEMHANDLE:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(CUmemGenericAllocationHandle));
		break;
	case PW_K_OUT_POOL:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(CUmemoryPool));
		break;
	case PW_K_ALLOCPROP: pw_event_snap_deref(s, i, v, sizeof(CUmemAllocationProp)); break;
	case PW_K_SHAREABLE: snap_shareable(s, i, row_handle_type(c), v); break;
	case PW_K_OUT_SHAREABLE:
		if (ok && v) {
			int64_t t = row_handle_type(c);
			snap_shareable(s, i, t,
			               t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
			                   ? (uint64_t)(int64_t) * (const int *)(uintptr_t)v
			                   : v);
		}
		break;
	case PW_K_ACCESS:
		if (v)
			pw_snap_copy(s, i, (const void *)(uintptr_t)v,
			             (c->a[i + 1] < PW_EVENT_LISTED ? (size_t)c->a[i + 1] : PW_EVENT_LISTED) *
			                 sizeof(CUmemAccessDesc));
		break;
	case PW_K_EXPORTDATA: pw_event_snap_deref(s, i, v, sizeof(CUmemPoolPtrExportData)); break;
	case PW_K_OUT_EXPORTDATA:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(CUmemPoolPtrExportData));
		break;
	case PW_K_PBATCH: snap_pbatch(s, c, i); break;
	case PW_K_OUT_ATOMICCAPS:
		if (ok)
			pw_event_snap_ints(s, i, v, c->a[i + 2]);
		break;
	default: break; /* the argument's word says it all */
	}
}

/* ---- on the writer's thread: the event ---- */

static const struct pw_arg_names arg_names = {.ipc_handle = CU_IPC_HANDLE_SIZE,
                                              .ipc_flags = ipc_flags,
                                              .attach_flags = attach_flags,
                                              .advice = advice_name,
                                              .range_attr = range_attr_name,
                                              .p2p_attr = p2p_attr_name};

void pw_cuda_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct pw_arg_desc *d = &c->fn->args[i];
	const char *k = d->name;
	uint64_t v = c->a[i];
	switch ((enum pw_kind)d->kind) {
	case PW_K_PTR32: pw_jw_kv_hex(w, k, v); break;
	case PW_K_UINT: pw_jw_kv_u64(w, k, v); break;
	case PW_K_LOC: put_loc(w, k, v); break;
	case PW_K_OUT_MEMHANDLE:
	case PW_K_OUT_POOL: pw_event_put_out_word(w, k, r, i); break;
	case PW_K_COPY3D: put_copy3d(w, r, i); break;
	case PW_K_COPY2D:
	case PW_K_COPY3DL:
	case PW_K_BATCH:
	case PW_K_BATCH3D:
	case PW_K_SKIP:
	case PW_K_U64:
	case PW_K_OUT_SIZE: pw_cuda_implicit_put_arg(w, r, i); break;
	case PW_K_ULL: pw_jw_kv_u64(w, k, v); break;
	case PW_K_VA:
	case PW_K_MEMHANDLE:
	case PW_K_POOL: pw_jw_kv_hex(w, k, v); break;
	case PW_K_ALLOCPROP: put_allocprop(w, k, pw_rec_snap(r, i, sizeof(CUmemAllocationProp))); break;
	case PW_K_HTYPE: {
		const char *n = pw_cuda_handle_type_name((int64_t)v);
		pw_jw_key(w, k);
		if (n)
			pw_jw_str(w, n);
		else
			pw_jw_i64(w, (int64_t)v);
		break;
	}
	case PW_K_SHAREABLE: put_shareable(w, k, r, i, v); break;
	case PW_K_OUT_SHAREABLE:
		if (c->ret == CUDA_SUCCESS && v)
			put_shareable(w, k, r, i, v);
		break;
	case PW_K_ACCESS: put_access(w, k, r, i); break;
	case PW_K_EXPORTDATA:
	case PW_K_OUT_EXPORTDATA: pw_event_put_bytes(w, k, r, i, sizeof(CUmemPoolPtrExportData)); break;
	case PW_K_PBATCH: put_batch(w, r, i); break;
	case PW_K_ATOMICOPS: pw_event_put_range_attrs(w, k, r, i, atomic_op_name); break;
	case PW_K_OUT_ATOMICCAPS:
		if (pw_rec_snap(r, i, 0))
			put_atomic_caps(w, k, r, i);
		break;
	default: pw_event_put_common(w, r, i, &arg_names); break; /* the kinds every vendor has */
	}
}

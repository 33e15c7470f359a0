/*
 * A CUDA call's arguments in its trace event ("args"): values decoded by
 * kind (cuda_table.h), pointers and contexts with the devices the call's
 * look-ups found before it ran (cuda_query.c).
 */
#include <stdio.h>
#include <string.h>

#include "cuda_hooks.h"
#include "cuda_query.h"
#include "cuda_vmm.h"
#include "event.h"
#include "jsonw.h"

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
static void put_atomic_caps(struct pw_jw *w, const char *k, const unsigned *caps, uint64_t n)
{
	char buf[256];
	pw_jw_key(w, k);
	pw_jw_ch(w, '[');
	for (uint64_t j = 0; caps && j < n && j < 16; j++) {
		if (j)
			pw_jw_ch(w, ',');
		pw_event_flag_names(buf, sizeof buf, caps[j], atomic_caps);
		pw_jw_str(w, buf);
	}
	pw_jw_ch(w, ']');
}

static const char *loc_type_name(int v)
{
	static const char *const n[] = {"invalid", "device", "host", "host_numa", "host_numa_current"};
	return v >= 0 && v < 5 ? n[v] : NULL;
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

static void put_loc(struct pw_jw *w, const char *key, uint64_t raw)
{
	CUmemLocation loc;
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

/* An OS handle: the fd (and its file_id) or the fabric handle's bytes.
 * fd_or_bytes is the fd itself for posix_fd, else the address of the bytes. */
static void put_shareable(struct pw_jw *w, const char *k, int64_t type, uint64_t fd_or_bytes)
{
	if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		int fd = (int)(int64_t)fd_or_bytes;
		char id[64];
		bool unique = true;
		pw_jw_kv_i64(w, k, fd);
		pw_jw_key(w, "file_id");
		if (pw_cuda_file_id(fd, id, sizeof id, &unique))
			pw_jw_str(w, id);
		else
			pw_jw_raw(w, "null", 4);
		if (!unique) {
			pw_jw_key(w, "file_id_unique");
			pw_jw_raw(w, "false", 5);
		}
	} else if (type == CU_MEM_HANDLE_TYPE_FABRIC && fd_or_bytes) {
		pw_jw_key(w, k);
		pw_jw_bytes(w, (const void *)(uintptr_t)fd_or_bytes, CU_IPC_HANDLE_SIZE);
	} else {
		pw_jw_kv_hex(w, k, fd_or_bytes);
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
		const char *t = loc_type_name(p->location.type);
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

#define PW_MAX_LISTED 16

static void put_access(struct pw_jw *w, const char *k, const CUmemAccessDesc *d, size_t n)
{
	pw_jw_key(w, k);
	pw_jw_ch(w, '[');
	for (size_t j = 0; d && j < n && j < PW_MAX_LISTED; j++) {
		if (j)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		if (d[j].location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
			pw_jw_kv_i64(w, "dev", d[j].location.id);
		} else {
			const char *t = loc_type_name(d[j].location.type);
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

static void put_batch(struct pw_jw *w, const struct pw_call *c, int i)
{
	const CUdeviceptr *ptrs = (const CUdeviceptr *)(uintptr_t)c->a[i];
	const size_t *sizes = (const size_t *)(uintptr_t)c->a[i + 1];
	size_t n = c->a[i + 2];
	const CUmemLocation *locs = (const CUmemLocation *)(uintptr_t)c->a[i + 3];
	const size_t *idxs = (const size_t *)(uintptr_t)c->a[i + 4];
	size_t nlocs = c->a[i + 5];
	pw_jw_key(w, c->fn->args[i].name);
	pw_jw_ch(w, '[');
	uint64_t total = 0;
	for (size_t j = 0; ptrs && sizes && j < n && j < 4096; j++) {
		total += sizes[j];
		if (j >= PW_MAX_LISTED)
			continue;
		if (j)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		pw_jw_kv_hex(w, "ptr", ptrs[j]);
		pw_jw_kv_u64(w, "bytes", sizes[j]);
		pw_event_put_dev(w, "dev", "", pw_cuda_batch_dev(locs, idxs, nlocs, j));
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
	pw_jw_kv_u64(w, "bytes", total);
}

/* ---- after the call: the event ---- */

static void put_copy3d(struct pw_jw *w, const struct pw_call *c, const CUDA_MEMCPY3D_PEER *p)
{
	if (!p) {
		pw_jw_key(w, "copy");
		pw_jw_raw(w, "null", 4);
		return;
	}
	const char *st = memtype_name(p->srcMemoryType), *dt = memtype_name(p->dstMemoryType);
	pw_jw_kv_str(w, "src_type", st ? st : "invalid");
	pw_jw_kv_hex(w, "src", p->srcMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)p->srcHost : p->srcDevice);
	pw_event_put_dev(w, "src", "_dev", c->dev[0]);
	pw_jw_kv_hex(w, "src_ctx", (uintptr_t)p->srcContext);
	pw_event_put_dev(w, "src_ctx", "_dev", pw_cuda_ctx_device(p->srcContext));
	pw_jw_kv_str(w, "dst_type", dt ? dt : "invalid");
	pw_jw_kv_hex(w, "dst", p->dstMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)p->dstHost : p->dstDevice);
	pw_event_put_dev(w, "dst", "_dev", c->dev[PW_DEV_COPY3D_DST]);
	pw_jw_kv_hex(w, "dst_ctx", (uintptr_t)p->dstContext);
	pw_event_put_dev(w, "dst_ctx", "_dev", pw_cuda_ctx_device(p->dstContext));
	pw_jw_kv_u64(w, "width", p->WidthInBytes);
	pw_jw_kv_u64(w, "height", p->Height);
	pw_jw_kv_u64(w, "depth", p->Depth);
	pw_jw_kv_u64(w, "bytes",
	             (uint64_t)p->WidthInBytes * (p->Height ? p->Height : 1) * (p->Depth ? p->Depth : 1));
}

void pw_cuda_put_arg(struct pw_jw *w, const struct pw_call *c, int i)
{
	const struct pw_arg_desc *d = &c->fn->args[i];
	const char *k = d->name;
	uint64_t v = c->a[i];
	bool ok = c->ret == CUDA_SUCCESS;
	switch ((enum pw_kind)d->kind) {
	case PW_K_PTR:
	case PW_K_CTX:
		pw_jw_kv_hex(w, k, v);
		pw_event_put_dev(w, k, "_dev", c->dev[i]);
		break;
	case PW_K_PTR32:
	case PW_K_STREAM:
	case PW_K_EVENT:
	case PW_K_HPTR: pw_jw_kv_hex(w, k, v); break;
	case PW_K_DEV: pw_jw_kv_i64(w, k, (int64_t)v); break;
	case PW_K_SIZE:
	case PW_K_UINT: pw_jw_kv_u64(w, k, v); break;
	case PW_K_IPCFLAGS: pw_event_put_flags(w, k, v, ipc_flags); break;
	case PW_K_ATTACHFLAGS: pw_event_put_flags(w, k, v, attach_flags); break;
	case PW_K_ADVICE: pw_event_put_enum(w, k, (int64_t)v, advice_name((int64_t)v)); break;
	case PW_K_RATTR: pw_event_put_enum(w, k, (int64_t)v, range_attr_name((int64_t)v)); break;
	case PW_K_P2PATTR: pw_event_put_enum(w, k, (int64_t)v, p2p_attr_name((int64_t)v)); break;
	case PW_K_LOC: put_loc(w, k, v); break;
	case PW_K_IPCMEM:
	case PW_K_IPCEVT:
		pw_jw_key(w, k);
		pw_jw_bytes(w, (const void *)(uintptr_t)v, CU_IPC_HANDLE_SIZE);
		break;
	case PW_K_OUT_INT:
		if (ok && v)
			pw_jw_kv_i64(w, k, *(const int *)(uintptr_t)v);
		break;
	case PW_K_OUT_PTR:
		if (ok && v) {
			CUdeviceptr p = *(const CUdeviceptr *)(uintptr_t)v;
			pw_jw_kv_hex(w, k, p);
			pw_event_put_dev(w, k, "_dev", pw_cuda_ptr_device(p));
		}
		break;
	case PW_K_OUT_IPCMEM:
	case PW_K_OUT_IPCEVT:
		if (ok && v) {
			pw_jw_key(w, k);
			pw_jw_bytes(w, (const void *)(uintptr_t)v, CU_IPC_HANDLE_SIZE);
		}
		break;
	case PW_K_OUT_EVENT:
		if (ok && v)
			pw_jw_kv_hex(w, k, (uintptr_t) * (const CUevent *)(uintptr_t)v);
		break;
	case PW_K_RDATA: pw_event_put_range_data(w, k, v, c->a[i + 1], ok); break;
	case PW_K_RATTRS:
		pw_event_put_range_attrs(w, k, (const int *)(uintptr_t)v, c->a[i + 1], range_attr_name);
		break;
	case PW_K_COPY3D: put_copy3d(w, c, (const CUDA_MEMCPY3D_PEER *)(uintptr_t)v); break;
	case PW_K_COPY2D:
	case PW_K_COPY3DL:
	case PW_K_BATCH:
	case PW_K_BATCH3D:
	case PW_K_SKIP:
	case PW_K_U64:
	case PW_K_OUT_SIZE: pw_cuda_implicit_put_arg(w, c, i); break;
	case PW_K_ULL: pw_jw_kv_u64(w, k, v); break;
	case PW_K_VA:
	case PW_K_MEMHANDLE:
	case PW_K_POOL: pw_jw_kv_hex(w, k, v); break;
	case PW_K_OUT_MEMHANDLE:
		if (ok && v)
			pw_jw_kv_hex(w, k, *(const CUmemGenericAllocationHandle *)(uintptr_t)v);
		break;
	case PW_K_OUT_POOL:
		if (ok && v)
			pw_jw_kv_hex(w, k, (uintptr_t) * (const CUmemoryPool *)(uintptr_t)v);
		break;
	case PW_K_ALLOCPROP: put_allocprop(w, k, (const CUmemAllocationProp *)(uintptr_t)v); break;
	case PW_K_HTYPE: {
		const char *n = pw_cuda_handle_type_name((int64_t)v);
		pw_jw_key(w, k);
		if (n)
			pw_jw_str(w, n);
		else
			pw_jw_i64(w, (int64_t)v);
		break;
	}
	case PW_K_SHAREABLE: put_shareable(w, k, row_handle_type(c), v); break;
	case PW_K_OUT_SHAREABLE:
		if (ok && v) {
			int64_t t = row_handle_type(c);
			put_shareable(w, k, t,
			              t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
			                  ? (uint64_t)(int64_t) * (const int *)(uintptr_t)v
			                  : v);
		}
		break;
	case PW_K_ACCESS: put_access(w, k, (const CUmemAccessDesc *)(uintptr_t)v, c->a[i + 1]); break;
	case PW_K_EXPORTDATA:
	case PW_K_OUT_EXPORTDATA:
		if (v && (ok || d->kind == PW_K_EXPORTDATA)) {
			pw_jw_key(w, k);
			pw_jw_bytes(w, (const void *)(uintptr_t)v, sizeof(CUmemPoolPtrExportData));
		}
		break;
	case PW_K_PBATCH: put_batch(w, c, i); break;
	case PW_K_ATOMICOPS:
		pw_event_put_range_attrs(w, k, (const int *)(uintptr_t)v, c->a[i + 1], atomic_op_name);
		break;
	case PW_K_OUT_ATOMICCAPS:
		if (ok && v)
			put_atomic_caps(w, k, (const unsigned *)(uintptr_t)v, c->a[i + 2]);
		break;
	case PW_K_NONE: break;
	}
}

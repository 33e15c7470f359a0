/*
 * Turning a CUDA call into its trace event: argument values decoded by kind
 * (cuda_table.h), pointers and contexts with the device they belong to.
 *
 * Devices are asked of the driver through its real, untraced functions
 * (cuPointerGetAttribute costs about 55 ns on an H200, cuda-on-h200.md §3);
 * a context's device never changes, so it is asked once and cached.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "event.h"
#include "cuda_hooks.h"
#include "op.h"
#include "rangecache.h"
#include "trace.h"

typedef CUresult (*ptr_attr_fn)(void *, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*ctx_get_current_fn)(CUcontext *);
typedef CUresult (*ctx_get_device_v2_fn)(CUdevice *, CUcontext);
typedef CUresult (*ctx_get_device_fn)(CUdevice *);
typedef CUresult (*ctx_push_fn)(CUcontext);
typedef CUresult (*ctx_pop_fn)(CUcontext *);
typedef CUresult (*error_name_fn)(CUresult, const char **);
typedef CUresult (*addr_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);
typedef CUresult (*dev_count_fn)(int *);

static struct {
	pthread_once_t once;
	ptr_attr_fn ptr_attr;
	ctx_get_current_fn get_current;
	ctx_get_device_v2_fn get_device_v2;
	ctx_get_device_fn get_device;
	ctx_push_fn push;
	ctx_pop_fn pop;
	error_name_fn error_name;
	addr_range_fn addr_range;
	dev_count_fn dev_count;
} aux = {.once = PTHREAD_ONCE_INIT};

static void aux_resolve(void)
{
	aux.ptr_attr = (ptr_attr_fn)pw_cuda_aux("cuPointerGetAttribute");
	aux.get_current = (ctx_get_current_fn)pw_cuda_aux("cuCtxGetCurrent");
	aux.get_device_v2 = (ctx_get_device_v2_fn)pw_cuda_aux("cuCtxGetDevice_v2");
	aux.get_device = (ctx_get_device_fn)pw_cuda_aux("cuCtxGetDevice");
	aux.push = (ctx_push_fn)pw_cuda_aux("cuCtxPushCurrent_v2");
	aux.pop = (ctx_pop_fn)pw_cuda_aux("cuCtxPopCurrent_v2");
	aux.error_name = (error_name_fn)pw_cuda_aux("cuGetErrorName");
	aux.addr_range = (addr_range_fn)pw_cuda_aux("cuMemGetAddressRange_v2");
	aux.dev_count = (dev_count_fn)pw_cuda_aux("cuDeviceGetCount");
}

static inline void aux_ready(void)
{
	pthread_once(&aux.once, aux_resolve);
}

/* Where p lives: the range cache, else the driver (and the answer cached). */
int pw_cuda_ptr_device(CUdeviceptr p)
{
	struct pw_range r;
	return pw_cuda_ptr_info(p, &r) ? r.dev : PW_NO_DEV;
}

/* The allocation behind p and whether it is managed: the range cache, else
 * the driver (one cuPointerGetAttributes call, cached). */
void pw_cuda_mem_facts(CUdeviceptr p, struct pw_mem *m)
{
	struct pw_range r;
	m->known = m->managed = false;
	m->base = m->size = 0;
	m->p2p = -1;
	if (!pw_cuda_ptr_info(p, &r))
		return;
	m->managed = (r.flags & PW_RANGE_MANAGED) != 0;
	if (r.size && p - r.base < r.size) {
		m->known = true;
		m->base = r.base;
		m->size = r.size;
	}
}

int pw_cuda_device_count(void)
{
	aux_ready();
	int n = 0;
	pw_tls_internal++;
	if (!aux.dev_count || aux.dev_count(&n) != CUDA_SUCCESS)
		n = 0;
	pw_tls_internal--;
	return n;
}

/* The driver's own answer, through the real function: not traced. */
int pw_cuda_can_access(int dev, int peer)
{
	typedef CUresult (*can_fn)(int *, CUdevice, CUdevice);
	can_fn f = (can_fn)pw_cuda_real(PW_CUDA_ID(cuDeviceCanAccessPeer));
	int v = -1;
	if (!f || dev == PW_NO_DEV || peer == PW_NO_DEV)
		return -1;
	pw_tls_internal++;
	if (f(&v, dev, peer) != CUDA_SUCCESS)
		v = -1;
	pw_tls_internal--;
	return v;
}

/* Context -> device, cached in a small open-addressed table.  A slot is
 * claimed by its key first and trusted only once `ready` says dev is in. */
#define CTX_CACHE 64
static struct {
	_Atomic(uintptr_t) ctx;
	atomic_int dev;
	atomic_bool ready;
} ctx_cache[CTX_CACHE];

static int ctx_lookup_driver(CUcontext ctx)
{
	CUdevice dev = PW_NO_DEV;
	pw_tls_internal++;
	if (aux.get_device_v2) {
		if (aux.get_device_v2(&dev, ctx) != CUDA_SUCCESS)
			dev = PW_NO_DEV;
	} else if (aux.push && aux.pop && aux.get_device && aux.push(ctx) == CUDA_SUCCESS) {
		CUcontext popped;
		if (aux.get_device(&dev) != CUDA_SUCCESS)
			dev = PW_NO_DEV;
		aux.pop(&popped);
	}
	pw_tls_internal--;
	return dev;
}

int pw_cuda_ctx_device(CUcontext ctx)
{
	if (!ctx)
		return PW_NO_DEV;
	aux_ready();
	uintptr_t key = (uintptr_t)ctx;
	unsigned h = (unsigned)((key >> 4) * 2654435761u) % CTX_CACHE;
	for (unsigned i = 0; i < CTX_CACHE; i++) {
		unsigned s = (h + i) % CTX_CACHE;
		uintptr_t k = atomic_load_explicit(&ctx_cache[s].ctx, memory_order_acquire);
		if (k == key) {
			if (atomic_load_explicit(&ctx_cache[s].ready, memory_order_acquire))
				return atomic_load_explicit(&ctx_cache[s].dev, memory_order_relaxed);
			return ctx_lookup_driver(ctx); /* being filled in by another thread */
		}
		if (k)
			continue;
		int dev = ctx_lookup_driver(ctx);
		if (dev == PW_NO_DEV)
			return dev; /* an invalid context is not cached */
		uintptr_t empty = 0;
		if (!atomic_compare_exchange_strong(&ctx_cache[s].ctx, &empty, key)) {
			if (empty == key)
				return dev;
			continue; /* another context took the slot first */
		}
		atomic_store_explicit(&ctx_cache[s].dev, dev, memory_order_relaxed);
		atomic_store_explicit(&ctx_cache[s].ready, true, memory_order_release);
		return dev;
	}
	return ctx_lookup_driver(ctx);
}

/* Known names first; the driver is asked only for codes we do not list. */
const char *pw_cuda_error_name(int code)
{
	switch (code) {
	case CUDA_SUCCESS: return "CUDA_SUCCESS";
	case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
	case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
	case CUDA_ERROR_DEINITIALIZED: return "CUDA_ERROR_DEINITIALIZED";
	case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
	case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
	case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
	case CUDA_ERROR_MAP_FAILED: return "CUDA_ERROR_MAP_FAILED";
	case CUDA_ERROR_ALREADY_MAPPED: return "CUDA_ERROR_ALREADY_MAPPED";
	case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
	case CUDA_ERROR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
	case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
	case CUDA_ERROR_NOT_READY: return "CUDA_ERROR_NOT_READY";
	case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
	case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
	case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED";
	case CUDA_ERROR_TOO_MANY_PEERS: return "CUDA_ERROR_TOO_MANY_PEERS";
	case CUDA_ERROR_NOT_PERMITTED: return "CUDA_ERROR_NOT_PERMITTED";
	case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
	case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
	case CUDA_ERROR_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
	}
	const char *name = NULL;
	aux_ready();
	if (aux.error_name) {
		pw_tls_internal++;
		if (aux.error_name(code, &name) != CUDA_SUCCESS)
			name = NULL;
		pw_tls_internal--;
	}
	return name;
}

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

/* "<st_dev>:<st_ino>" of fd into buf (at least 48 bytes); false if fstat
 * fails.  *unique: whether the file can name one allocation: the real
 * driver's fds are all of /dev/nvidiactl (one character device, one inode:
 * tests/gpu/vmm_probe.md), so theirs pairs nothing. */
bool pw_cuda_file_id(int fd, char *buf, size_t len, bool *unique)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return false;
	snprintf(buf, len, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	*unique = !S_ISCHR(st.st_mode);
	return true;
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

/* ---- before the call: everything that the call may change ---- */

static void pre_copy3d(struct pw_call *c, const CUDA_MEMCPY3D_PEER *p)
{
	c->dev[0] =
	    p && p->srcMemoryType != CU_MEMORYTYPE_HOST ? pw_cuda_ptr_device(p->srcDevice) : PW_NO_DEV;
	c->dev[PW_DEV_COPY3D_DST] =
	    p && p->dstMemoryType != CU_MEMORYTYPE_HOST ? pw_cuda_ptr_device(p->dstDevice) : PW_NO_DEV;
}

void pw_cuda_pre(struct pw_call *c)
{
	const struct pw_fn_desc *fn = c->fn;
	if (fn->flags & PW_IMPLICIT)
		return; /* the classification found the devices already (pw_cuda_implicit_cross) */
	if (fn->flags & PW_CUR_DEV) {
		aux_ready();
		CUcontext cur = NULL;
		pw_tls_internal++;
		if (aux.get_current && aux.get_current(&cur) != CUDA_SUCCESS)
			cur = NULL;
		pw_tls_internal--;
		c->cur_dev = pw_cuda_ctx_device(cur);
	}
	for (int i = 0; i < fn->nargs; i++) {
		switch (fn->args[i].kind) {
		case PW_K_PTR: c->dev[i] = pw_cuda_ptr_device(c->a[i]); break;
		case PW_K_CTX: c->dev[i] = pw_cuda_ctx_device((CUcontext)(uintptr_t)c->a[i]); break;
		case PW_K_COPY3D: pre_copy3d(c, (const CUDA_MEMCPY3D_PEER *)(uintptr_t)c->a[i]); break;
		default: c->dev[i] = PW_NO_DEV;
		}
	}
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
	case PW_K_NONE: break;
	}
}

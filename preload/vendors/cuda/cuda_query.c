/*
 * What the CUDA driver says, asked through its real, untraced functions:
 * where a pointer lives and the allocation around it (the range cache
 * first, rangecache.h), a context's device, the current context's device,
 * how many devices there are, whether a pair can access each other, the
 * name of a result.  These are the look-ups of a call; the event is
 * written from what they found (cuda_encode.c).
 *
 * Pointers: the range cache first (rangecache.h); on a miss the driver, in
 * one cuPointerGetAttributes call, and the answer is cached.  Memory the
 * driver does not know (plain host memory) is remembered per thread, by
 * page, until the next write to the cache, so a copy from a malloc'ed
 * buffer does not ask the driver every time either.
 *
 * cuPointerGetAttribute costs about 55 ns on an H200; a context's device
 * never changes, so it is asked once and cached.
 */
#include "state/devices.h"
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "state/op.h"
#include "state/rangecache.h"
#include "state/state.h"

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
	atomic_bool done; /* aux_resolve ran: the fast path of aux_ready */
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
	atomic_store_explicit(&aux.done, true, memory_order_release);
}

static inline void aux_ready(void)
{
	if (PW_UNLIKELY(!atomic_load_explicit(&aux.done, memory_order_acquire)))
		pthread_once(&aux.once, aux_resolve);
}

/* The look-ups a runtime call asks before the runtime has loaded the driver
 * (it does so in its first call) would find no function, and aux_resolve runs
 * once: they wait until the driver is known. */
static bool driver_known(void)
{
	return pw_cuda_library() != NULL;
}

/* The count never changes once the driver answers it: asked once, then cached
 * (the peer calls read it on every call, to tell a device that does not exist). */
static atomic_int dev_count_cache;

int pw_cuda_device_count(void)
{
	int n = atomic_load_explicit(&dev_count_cache, memory_order_relaxed);
	if (n > 0 || !driver_known())
		return n;
	aux_ready();
	pw_tls_internal++;
	if (!aux.dev_count || aux.dev_count(&n) != CUDA_SUCCESS)
		n = 0;
	pw_tls_internal--;
	if (n > 0)
		atomic_store_explicit(&dev_count_cache, n, memory_order_relaxed);
	return n;
}

bool pw_cuda_current_ctx_asked(uint64_t *ctx)
{
	*ctx = 0;
	if (!driver_known())
		return false;
	aux_ready();
	CUcontext cur = NULL;
	pw_tls_internal++;
	bool asked = aux.get_current && aux.get_current(&cur) == CUDA_SUCCESS;
	pw_tls_internal--;
	if (asked)
		*ctx = (uint64_t)(uintptr_t)cur;
	return asked;
}

uint64_t pw_cuda_current_ctx(void)
{
	uint64_t ctx;
	pw_cuda_current_ctx_asked(&ctx);
	return ctx;
}

int pw_cuda_primary_active(int dev)
{
	typedef CUresult (*state_fn)(CUdevice, unsigned int *, int *);
	static _Atomic(state_fn) get_state;
	state_fn f = atomic_load_explicit(&get_state, memory_order_acquire);
	if (!f) {
		f = (state_fn)pw_cuda_aux("cuDevicePrimaryCtxGetState");
		atomic_store_explicit(&get_state, f, memory_order_release);
	}
	unsigned flags = 0;
	int active = -1;
	pw_tls_internal++;
	if (!f || f(dev, &flags, &active) != CUDA_SUCCESS)
		active = -1;
	pw_tls_internal--;
	return active < 0 ? -1 : active != 0;
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

/* Context -> device (cuda_query.h), the table and its slow path.  A slot is
 * claimed by its key first and trusted only once `ready` says dev is in. */
#define CTX_CACHE PW_CUDA_CTX_CACHE
struct pw_cuda_ctx_slot pw_cuda_ctx_cache[CTX_CACHE];
#define ctx_cache pw_cuda_ctx_cache

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

/* A slot whose context ended (pw_cuda_ctx_forget): no context is at address
 * 1, a probe goes on past it, and a new context may take it. */
#define CTX_GONE ((uintptr_t)1)

/* Slot s, holding expect, for key on dev: false if another thread took it. */
static bool ctx_claim(unsigned s, uintptr_t expect, uintptr_t key, int dev)
{
	if (!atomic_compare_exchange_strong(&ctx_cache[s].ctx, &expect, key))
		return false;
	atomic_store_explicit(&ctx_cache[s].dev, dev, memory_order_relaxed);
	atomic_store_explicit(&ctx_cache[s].ready, true, memory_order_release);
	return true;
}

int pw_cuda_ctx_device_slow(CUcontext ctx)
{
	/* never asked of a context seen destroyed: the driver's cuCtxGetDevice_v2
	 * faults on one (H200, driver 580; docs/facts-cuda.md), where the call
	 * the program makes may only fail (cuCtxEnablePeerAccess: 709) */
	if (!ctx || pw_state_ctx_gone(&pw_state, (uintptr_t)ctx))
		return PW_NO_DEV;
	aux_ready();
	uintptr_t key = (uintptr_t)ctx;
	unsigned h = pw_cuda_ctx_slot_of(key);
	int gone = -1; /* the first slot on the way whose context ended */
	for (unsigned i = 0; i < CTX_CACHE; i++) {
		unsigned s = (h + i) % CTX_CACHE;
		uintptr_t k = atomic_load_explicit(&ctx_cache[s].ctx, memory_order_acquire);
		if (k == key) {
			if (atomic_load_explicit(&ctx_cache[s].ready, memory_order_acquire))
				return atomic_load_explicit(&ctx_cache[s].dev, memory_order_relaxed);
			return ctx_lookup_driver(ctx); /* being filled in by another thread */
		}
		if (k == CTX_GONE && gone < 0)
			gone = (int)s;
		if (k)
			continue;
		/* not in the table: asked, and cached in the first free slot on
		 * its way (a later probe for it stops there or before) */
		int dev = ctx_lookup_driver(ctx);
		if (dev == PW_NO_DEV)
			return dev; /* an invalid context is not cached */
		if (gone >= 0 && ctx_claim((unsigned)gone, CTX_GONE, key, dev))
			return dev;
		if (ctx_claim(s, 0, key, dev) ||
		    atomic_load_explicit(&ctx_cache[s].ctx, memory_order_acquire) == key)
			return dev;
		/* another context took the slot first: on to the next */
	}
	int dev = ctx_lookup_driver(ctx);
	if (dev != PW_NO_DEV && gone >= 0)
		ctx_claim((unsigned)gone, CTX_GONE, key, dev);
	return dev;
}

/* The slot's context ended: not ready first, so that a reader that still
 * finds the key goes to the driver, then the key gone. */
static void ctx_drop(unsigned s)
{
	atomic_store_explicit(&ctx_cache[s].ready, false, memory_order_release);
	atomic_store_explicit(&ctx_cache[s].ctx, CTX_GONE, memory_order_release);
}

void pw_cuda_ctx_forget(uintptr_t ctx)
{
	if (!ctx || ctx == CTX_GONE)
		return;
	for (unsigned s = 0; s < CTX_CACHE; s++) /* every slot: two threads may have cached it twice */
		if (atomic_load_explicit(&ctx_cache[s].ctx, memory_order_acquire) == ctx)
			ctx_drop(s);
}

void pw_cuda_ctx_forget_dev(int dev)
{
	for (unsigned s = 0; s < CTX_CACHE; s++) {
		uintptr_t k = atomic_load_explicit(&ctx_cache[s].ctx, memory_order_acquire);
		if (k && k != CTX_GONE && atomic_load_explicit(&ctx_cache[s].ready, memory_order_acquire) &&
		    atomic_load_explicit(&ctx_cache[s].dev, memory_order_relaxed) == dev)
			ctx_drop(s);
	}
}

/* The device the table holds for ctx, without asking the driver (which may
 * no longer know it), or PW_NO_DEV. */
static int ctx_cached_dev(uintptr_t ctx)
{
	for (unsigned s = 0; ctx && ctx != CTX_GONE && s < CTX_CACHE; s++)
		if (atomic_load_explicit(&ctx_cache[s].ctx, memory_order_acquire) == ctx &&
		    atomic_load_explicit(&ctx_cache[s].ready, memory_order_acquire))
			return atomic_load_explicit(&ctx_cache[s].dev, memory_order_relaxed);
	return PW_NO_DEV;
}

static bool is_row(const struct pw_fn_desc *fn, int id_a, int id_b)
{
	return fn == &pw_cuda_desc[id_a] || fn == &pw_cuda_desc[id_b];
}

void pw_cuda_ctx_feed(const struct pw_call *c)
{
	const struct pw_fn_desc *fn = c->fn;
	if (fn->op == PW_OP_CTX_CREATE) {
		/* (CUcontext *pctx, ..., CUdevice dev): the device is the last argument */
		const CUcontext *pctx = (const CUcontext *)(uintptr_t)c->a[0];
		uintptr_t ctx = pctx ? (uintptr_t)*pctx : 0;
		if (fn == &pw_cuda_desc[PW_CUDA_ID(cuDevicePrimaryCtxRetain)]) {
			pw_state_ctx_primary(&pw_state, ctx); /* at a destroyed context's address? */
			return;
		}
		pw_cuda_ctx_forget(ctx); /* one at a destroyed one's address is asked anew */
		pw_state_ctx_made(&pw_state, ctx, (int)(int64_t)c->a[fn->nargs - 1]);
		return;
	}
	if (fn->args[0].kind == PW_K_CTX) { /* cuCtxDestroy */
		uintptr_t ctx = c->a[0];
		int dev = ctx_cached_dev(ctx);
		pw_cuda_ctx_forget(ctx);
		pw_state_ctx_destroyed(&pw_state, ctx, dev);
		return;
	}
	/* a primary context's release or reset: "The context is automatically
	 * reset once the last reference to it is released" (cuda.h,
	 * cuDevicePrimaryCtxRelease), so after a release it is reset only if no
	 * longer active */
	int dev = (int)(int64_t)c->a[0];
	pw_cuda_ctx_forget_dev(dev);
	if (is_row(fn, PW_CUDA_ID(cuDevicePrimaryCtxReset_v2), PW_CUDA_ID(cuDevicePrimaryCtxReset)) ||
	    pw_cuda_primary_active(dev) == 0)
		pw_state_primary_reset(&pw_state, dev);
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
	case CUDA_ERROR_CONTEXT_IS_DESTROYED: return "CUDA_ERROR_CONTEXT_IS_DESTROYED";
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

typedef CUresult (*ptr_attrs_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);

static struct {
	pthread_once_t once;
	ptr_attrs_fn attrs;
	ptr_attr_fn attr;
	addr_range_fn range;
} drv = {.once = PTHREAD_ONCE_INIT};

static void drv_resolve(void)
{
	drv.attrs = (ptr_attrs_fn)pw_cuda_aux("cuPointerGetAttributes");
	drv.attr = (ptr_attr_fn)pw_cuda_aux("cuPointerGetAttribute");
	drv.range = (addr_range_fn)pw_cuda_aux("cuMemGetAddressRange_v2");
}

/* What the driver says of p.  False when p is not CUDA memory (*cuda false)
 * or nothing could be asked. */
bool pw_cuda_driver_info(CUdeviceptr p, struct pw_range *r, bool *cuda)
{
	pthread_once(&drv.once, drv_resolve);
	*cuda = false;
	unsigned type = 0;
	int dev = PW_NO_DEV, managed = 0;
	CUdeviceptr base = 0;
	size_t size = 0;
	bool asked = false;
	pw_tls_internal++;
	if (drv.attrs) {
		CUpointer_attribute a[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
		                           CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
		                           CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
		                           CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
		void *d[] = {&type, &dev, &base, &size, &managed};
		asked = drv.attrs(5, a, d, p) == CUDA_SUCCESS;
	} else if (drv.attr) {
		/* no cuPointerGetAttributes: one attribute at a time */
		asked = drv.attr(&dev, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) == CUDA_SUCCESS;
		if (asked) {
			type = CU_MEMORYTYPE_DEVICE;
			if (drv.attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS)
				type = CU_MEMORYTYPE_DEVICE;
			if (drv.attr(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) != CUDA_SUCCESS)
				managed = 0;
			if (!drv.range || drv.range(&base, &size, p) != CUDA_SUCCESS)
				base = size = 0;
		}
	}
	pw_tls_internal--;
	if (!asked || type == 0)
		return false; /* not a pointer the driver knows (a default answer) */
	*cuda = true;
	r->base = base;
	r->size = size;
	r->dev = dev < 0 ? PW_NO_DEV : dev;
	r->flags = (managed ? PW_RANGE_MANAGED : 0) | (type == CU_MEMORYTYPE_HOST ? PW_RANGE_HOST : 0);
	r->id = 0;
	return true;
}

bool pw_cuda_ptr_info_slow(CUdeviceptr p, struct pw_range *r)
{
	if (!p)
		return false;
	enum pw_range_res res = pw_range_find(p, r);
	if (PW_LIKELY(res == PW_RANGE_HIT))
		return true;
	bool cuda;
	if (res == PW_RANGE_BUSY)
		return pw_cuda_driver_info(p, r, &cuda);
	if (pw_range_neg_hit(p))
		return false;
	uint64_t v = pw_range_version();
	if (!pw_cuda_driver_info(p, r, &cuda)) {
		if (!cuda)
			pw_range_neg_put(p, v);
		return false;
	}
	if (r->size && p - r->base < r->size)
		r->id = pw_range_fill(r->base, r->size, r->dev, r->flags, v);
	return true;
}

/* The file behind fd: its st_dev and st_ino, the key that is the same in
 * every process holding that file (the event's "file_id").  *unique: whether
 * the file can name one allocation: the real driver's fds are all of
 * /dev/nvidiactl (one character device, one inode: tests/gpu/vmm_probe.md),
 * so theirs pairs nothing.  A system call, made only for the calls that
 * export or import a shareable handle. */
bool pw_cuda_file_stat(int fd, uint64_t *dev, uint64_t *ino, bool *unique)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return false;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	*unique = !S_ISCHR(st.st_mode);
	return true;
}

/* ---- before the call: everything that the call may change ---- */

void pw_cuda_pre_copy3d(struct pw_call *c, int i)
{
	const CUDA_MEMCPY3D_PEER *p = (const CUDA_MEMCPY3D_PEER *)(uintptr_t)c->a[i];
	c->dev[0] =
	    p && p->srcMemoryType != CU_MEMORYTYPE_HOST ? pw_cuda_ptr_device(p->srcDevice) : PW_NO_DEV;
	c->dev[PW_DEV_COPY3D_DST] =
	    p && p->dstMemoryType != CU_MEMORYTYPE_HOST ? pw_cuda_ptr_device(p->dstDevice) : PW_NO_DEV;
}

int pw_cuda_cur_dev(void)
{
	aux_ready();
	CUcontext cur = NULL;
	pw_tls_internal++;
	if (aux.get_current && aux.get_current(&cur) != CUDA_SUCCESS)
		cur = NULL;
	pw_tls_internal--;
	return pw_cuda_ctx_device(cur);
}

/* Whether the device can access pageable memory (cuda.h :816,
 * CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS): asked of the driver once per
 * device, then cached (0 not asked yet, else the answer + 1); -1 while it
 * cannot be asked (before cuInit). */
static atomic_int pageable_cache[PW_MAX_DEV];

static int pageable_of(int dev)
{
	if (dev < 0 || dev >= PW_MAX_DEV)
		return -1;
	int v = atomic_load_explicit(&pageable_cache[dev], memory_order_relaxed);
	if (v)
		return v - 1;
	typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);
	static _Atomic(attr_fn) get_attr;
	attr_fn f = atomic_load_explicit(&get_attr, memory_order_acquire);
	if (!f) {
		f = (attr_fn)pw_cuda_aux("cuDeviceGetAttribute");
		atomic_store_explicit(&get_attr, f, memory_order_release);
	}
	pw_tls_internal++;
	if (!f || f(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, dev) != CUDA_SUCCESS)
		v = -1;
	pw_tls_internal--;
	if (v < 0)
		return -1;
	v = v != 0;
	atomic_store_explicit(&pageable_cache[dev], v + 1, memory_order_relaxed);
	return v;
}

int pw_cuda_pageable_access(int dev)
{
	if (dev != PW_NO_DEV)
		return pageable_of(dev);
	int n = pw_cuda_device_count(), all = n > 0 ? 1 : -1;
	for (int d = 0; d < n && d < PW_MAX_DEV && all != 0; d++) {
		int v = pageable_of(d);
		all = v == 0 ? 0 : v < 0 ? -1 : all;
	}
	return all;
}

/* ---- the header's "cuda" member ---- */

void pw_cuda_describe(void *vendors)
{
	const char *path = pw_cuda_library();
	if (!path)
		return;
	json_t *c = json_object();
	json_object_set_new(c, "library", json_string(path));
	CUresult (*get_version)(int *) = (CUresult(*)(int *))pw_cuda_aux("cuDriverGetVersion");
	int v = 0;
	if (get_version && get_version(&v) == CUDA_SUCCESS)
		json_object_set_new(c, "driver_version", json_integer(v));
	else
		json_object_set_new(c, "driver_version", json_null());
	/* what the managed-memory rules judge system memory by (cuda_ops.c), asked once per device */
	int n = pw_cuda_device_count();
	json_t *pageable = n > 0 ? json_array() : json_null();
	for (int d = 0; d < n && d < PW_MAX_DEV; d++) {
		int a = pw_cuda_pageable_access(d);
		json_array_append_new(pageable, a < 0 ? json_null() : json_integer(a));
	}
	json_object_set_new(c, "pageable_memory_access", pageable);
	json_object_set_new((json_t *)vendors, "cuda", c);
}

/* Whether the driver says p is no CUDA memory at all (a malloc'd, stack or
 * static buffer): 1, 0 (CUDA memory: device, managed or page-locked host
 * memory), -1 not known (cuPointerGetAttributes, which answers an unknown
 * pointer with type 0 where the singular call fails, is missing or failed). */
static int driver_says_not_cuda(CUdeviceptr p)
{
	pthread_once(&drv.once, drv_resolve);
	if (!drv.attrs)
		return -1;
	unsigned type = 0;
	CUpointer_attribute a = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
	void *d = &type;
	pw_tls_internal++;
	bool asked = drv.attrs(1, &a, &d, p) == CUDA_SUCCESS;
	pw_tls_internal--;
	if (!asked)
		return -1;
	return type == 0;
}

static void copy_side_facts(struct pw_mem *m)
{
	m->freed = m->plain_host = false;
	if (!m->ptr || m->managed || m->known)
		return;
	uint64_t base, size;
	if (pw_op_freed_at(m->ptr, &base, &size)) {
		m->freed = true;
		return;
	}
	m->plain_host = driver_says_not_cuda(m->ptr) == 1;
}

void pw_cuda_copy_facts(struct pw_op *op)
{
	if (!op->bytes)
		return; /* a copy of nothing touches neither side */
	copy_side_facts(&op->dst);
	copy_side_facts(&op->src);
}

/* What a managed-memory call's pointer is beyond pw_cuda_mem_facts: pool or
 * page-locked host memory, freed lately, or (system memory) whether the
 * device the call concerns, or every device, can access pageable memory.
 * The driver is asked only for memory it does not know, once per device. */
void pw_cuda_managed_facts(struct pw_op *op)
{
	struct pw_range r;
	struct pw_mem *m = &op->dst;
	m->pool = m->host = false;
	if (m->known && pw_cuda_ptr_info(m->ptr, &r)) {
		m->pool = (r.flags & PW_RANGE_POOL) != 0;
		m->host = (r.flags & PW_RANGE_HOST) != 0;
	}
	pw_op_freed_facts(op);
	if (!m->ptr || m->known || m->managed || op->dst_freed)
		return;
	op->pageable_dev = op->loc_type == PW_LOCT_DEVICE ? op->loc_id : PW_NO_DEV;
	op->pageable = pw_cuda_pageable_access(op->pageable_dev);
}

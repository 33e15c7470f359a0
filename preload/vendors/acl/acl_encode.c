/*
 * Turning an ACL call into its trace event (acl_table.h says what each kind
 * records), and the bookkeeping the event needs first: the thread's current
 * device (from aclrtSetDevice) and the allocation table (acl_mem.c).
 */
#include "state/devices.h"
#include <stdio.h>
#include <string.h>

#include "vendors/acl/acl.h"
#include "rules/check.h"
#include "record/event.h"
#include "record/jsonw.h"
#include "state/op.h"
#include "record/trace.h"

/* The current device is per thread (aclrtSetDevice, facts B5); +1 so that
 * the zero-initialized TLS means "not known yet". */
static PW_TLS int tls_dev_plus1;

int pw_acl_current_device(void)
{
	if (PW_LIKELY(tls_dev_plus1))
		return tls_dev_plus1 - 1;
	/* A thread that set no device through us: ask the runtime, untraced. */
	typedef aclError (*get_fn)(int32_t *);
	get_fn f = (get_fn)pw_acl_real(PW_ACL_ID(aclrtGetDevice));
	int32_t d = 0;
	if (!f)
		return PW_NO_DEV;
	pw_tls_internal++;
	aclError r = f(&d);
	pw_tls_internal--;
	if (r != ACL_SUCCESS)
		return PW_NO_DEV;
	tls_dev_plus1 = d + 1;
	return d;
}

bool pw_acl_no_current_device(void)
{
	typedef aclError (*get_fn)(int32_t *);
	get_fn f = (get_fn)pw_acl_real(PW_ACL_ID(aclrtGetDevice));
	int32_t d = 0;
	if (!f)
		return false;
	pw_tls_internal++;
	aclError r = f(&d);
	pw_tls_internal--;
	return r == ACL_ERROR_RT_CONTEXT_NULL;
}

/* The runtime's own answer, through the real function: not traced.  A
 * device against itself is an error in ACL (facts B5): -1, unknown. */
int pw_acl_can_access(int dev, int peer)
{
	typedef aclError (*can_fn)(int32_t *, int32_t, int32_t);
	can_fn f = (can_fn)pw_acl_real(PW_ACL_ID(aclrtDeviceCanAccessPeer));
	int32_t v = -1;
	if (!f || dev == PW_NO_DEV || peer == PW_NO_DEV)
		return -1;
	pw_tls_internal++;
	if (f(&v, dev, peer) != ACL_SUCCESS)
		v = -1;
	pw_tls_internal--;
	return v;
}

/* aclrtGetDeviceCount (acl_rt.h: uint32_t *count), asked once and cached;
 * 0 if unknown. */
static atomic_int dev_count_cache;

int pw_acl_device_count(void)
{
	int n = atomic_load_explicit(&dev_count_cache, memory_order_relaxed);
	if (n > 0)
		return n;
	typedef aclError (*count_fn)(uint32_t *);
	count_fn f = (count_fn)pw_acl_aux("aclrtGetDeviceCount");
	uint32_t v = 0;
	if (!f)
		return 0;
	pw_tls_internal++;
	aclError r = f(&v);
	pw_tls_internal--;
	if (r != ACL_SUCCESS || v == 0 || v > INT32_MAX)
		return 0;
	atomic_store_explicit(&dev_count_cache, (int)v, memory_order_relaxed);
	return (int)v;
}

/* acl_base_rt.h and rt_error_codes.h (facts B4). */
const char *pw_acl_error_name(int code)
{
	switch (code) {
	case ACL_SUCCESS: return "ACL_SUCCESS";
	case ACL_ERROR_INVALID_PARAM: return "ACL_ERROR_INVALID_PARAM";
	case ACL_ERROR_UNINITIALIZE: return "ACL_ERROR_UNINITIALIZE";
	case ACL_ERROR_REPEAT_INITIALIZE: return "ACL_ERROR_REPEAT_INITIALIZE";
	case ACL_ERROR_REPEAT_FINALIZE: return "ACL_ERROR_REPEAT_FINALIZE";
	case ACL_ERROR_BAD_ALLOC: return "ACL_ERROR_BAD_ALLOC";
	case ACL_ERROR_API_NOT_SUPPORT: return "ACL_ERROR_API_NOT_SUPPORT";
	case ACL_ERROR_INVALID_DEVICE: return "ACL_ERROR_INVALID_DEVICE";
	case ACL_ERROR_FEATURE_UNSUPPORTED: return "ACL_ERROR_FEATURE_UNSUPPORTED";
	case ACL_ERROR_INTERNAL_ERROR: return "ACL_ERROR_INTERNAL_ERROR";
	case ACL_ERROR_FAILURE: return "ACL_ERROR_FAILURE";
	case ACL_ERROR_RT_FAILURE: return "ACL_ERROR_RT_FAILURE";
	case ACL_ERROR_DRV_FAILURE: return "ACL_ERROR_DRV_FAILURE";
	case ACL_ERROR_RT_PARAM_INVALID: return "ACL_ERROR_RT_PARAM_INVALID";
	case ACL_ERROR_RT_INVALID_DEVICEID: return "ACL_ERROR_RT_INVALID_DEVICEID";
	case ACL_ERROR_RT_CONTEXT_NULL: return "ACL_ERROR_RT_CONTEXT_NULL";
	case ACL_ERROR_RT_FEATURE_NOT_SUPPORT: return "ACL_ERROR_RT_FEATURE_NOT_SUPPORT";
	case ACL_ERROR_RT_MEMORY_ALLOCATION: return "ACL_ERROR_RT_MEMORY_ALLOCATION";
	case ACL_ERROR_RT_NO_DEVICE: return "ACL_ERROR_RT_NO_DEVICE";
	case ACL_ERROR_RT_NO_PERMISSION: return "ACL_ERROR_RT_NO_PERMISSION";
	case ACL_ERROR_RT_DEVICE_OOM: return "ACL_ERROR_RT_DEVICE_OOM";
	case ACL_ERROR_RT_INTERNAL_ERROR: return "ACL_ERROR_RT_INTERNAL_ERROR";
	case ACL_ERROR_RT_IPC_ERROR: return "ACL_ERROR_RT_IPC_ERROR";
	}
	return NULL;
}

const char *pw_acl_memcpy_kind_name(int kind)
{
	static const char *const n[] = {"ACL_MEMCPY_HOST_TO_HOST",
	                                "ACL_MEMCPY_HOST_TO_DEVICE",
	                                "ACL_MEMCPY_DEVICE_TO_HOST",
	                                "ACL_MEMCPY_DEVICE_TO_DEVICE",
	                                "ACL_MEMCPY_DEFAULT",
	                                "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
	                                "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE",
	                                "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE"};
	return kind >= 0 && kind < 8 ? n[kind] : NULL;
}

bool pw_acl_kind_host_src(int kind)
{
	return kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_HOST_TO_DEVICE ||
	       kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
}

bool pw_acl_kind_host_dst(int kind)
{
	return kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_HOST;
}

/* "ACL_MEM_MALLOC_HUGE_FIRST_P2P", "ACL_MEM_MALLOC_HUGE_ONLY|ACL_MEM_TYPE_HIGH_BAND_WIDTH", or NULL. */
const char *pw_acl_policy_name(int policy, char *buf, size_t len)
{
	static const char *const base[] = {"ACL_MEM_MALLOC_HUGE_FIRST",    "ACL_MEM_MALLOC_HUGE_ONLY",
	                                   "ACL_MEM_MALLOC_NORMAL_ONLY",   "ACL_MEM_MALLOC_HUGE_FIRST_P2P",
	                                   "ACL_MEM_MALLOC_HUGE_ONLY_P2P", "ACL_MEM_MALLOC_NORMAL_ONLY_P2P",
	                                   "ACL_MEM_MALLOC_HUGE1G_ONLY",   "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P"};
	static const struct {
		int bit;
		const char *name;
	} bits[] = {{ACL_MEM_TYPE_LOW_BAND_WIDTH, "ACL_MEM_TYPE_LOW_BAND_WIDTH"},
	            {ACL_MEM_TYPE_HIGH_BAND_WIDTH, "ACL_MEM_TYPE_HIGH_BAND_WIDTH"},
	            {ACL_MEM_ACCESS_USER_SPACE_READONLY, "ACL_MEM_ACCESS_USER_SPACE_READONLY"}};
	int b = policy & 0xff, rest = policy & ~0xff;
	if (policy < 0 || b > 7)
		return NULL;
	size_t n = (size_t)snprintf(buf, len, "%s", base[b]);
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (rest & bits[i].bit) {
			rest &= ~bits[i].bit;
			if (n < len)
				n += (size_t)snprintf(buf + n, len - n, "|%s", bits[i].name);
		}
	return rest ? NULL : buf;
}

/* ---- before the call ---- */

void pw_acl_pre(struct pw_call *c, const struct pw_fn_desc *fn)
{
	pw_devices_note_use(PW_VENDOR_ACL); /* asked once aclInit has run (acl_ident.c) */
	if (fn->flags & PW_CUR_DEV)
		c->cur_dev = pw_acl_current_device();
	for (int i = 0; i < fn->nargs; i++) {
		struct pw_acl_alloc a;
		c->dev[i] = fn->args[i].kind == PW_K_APTR && pw_acl_mem_find(c->a[i], &a) ? a.dev : PW_NO_DEV;
	}
	if (fn->op == PW_OP_FREE || fn->op == PW_OP_FREE_HOST)
		c->dev[PW_ACL_FREE_SLOT] = pw_acl_mem_slot(c->a[0]);
}

/* ---- after the call: what it changed, then the event ---- */

void pw_acl_learn(const struct pw_call *c, uint64_t unused)
{
	(void)unused;
	if (c->ret != ACL_SUCCESS)
		return;
	switch (c->fn->op) {
	case PW_OP_ALLOC:
		if (c->a[0])
			pw_acl_mem_add((uintptr_t) * (void *const *)(uintptr_t)c->a[0], c->a[1], c->cur_dev,
			               (int)(int64_t)c->a[2]);
		break;
	case PW_OP_ALLOC_HOST:
		if (c->a[0])
			pw_acl_mem_add((uintptr_t) * (void *const *)(uintptr_t)c->a[0], c->a[1], PW_NO_DEV,
			               PW_ACL_POLICY_HOST);
		break;
	case PW_OP_FREE:
	case PW_OP_FREE_HOST: pw_acl_mem_remove_slot(c->dev[PW_ACL_FREE_SLOT], c->a[0]); break;
	case PW_OP_VMM_CREATE:
		if (c->a[0]) {
			const aclrtPhysicalMemProp *p = (const aclrtPhysicalMemProp *)(uintptr_t)c->a[2];
			int dev = p && p->location.type == ACL_MEM_LOCATION_TYPE_DEVICE ? (int)p->location.id
			                                                                : PW_NO_DEV;
			pw_acl_vmm_add((uintptr_t) * (void *const *)(uintptr_t)c->a[0], c->a[1], dev, false,
			               0);
		}
		break;
	case PW_OP_VMM_RELEASE: pw_acl_vmm_remove(c->a[0]); break;
	case PW_OP_VMM_MAP: {
		/* device memory at the reserved address, on its physical memory's
		 * device: copies to and from it are of device memory */
		struct pw_acl_vmm v;
		int dev = pw_acl_vmm_find(c->a[3], &v) ? v.dev : PW_NO_DEV;
		pw_acl_mem_add(c->a[0], c->a[1], dev, PW_ACL_POLICY_VMM);
		break;
	}
	case PW_OP_VMM_UNMAP: pw_acl_mem_remove(c->a[0]); break;
	case PW_OP_VMM_EXPORT: /* the shareable handle: the fourth argument, V1 or V2 */
		if (c->a[3])
			pw_acl_vmm_exported(c->a[0], pw_acl_share_arg(c, 3));
		break;
	case PW_OP_VMM_IMPORT: {
		/* V1: (shareable, deviceId, &handle); V2: (&shareable, type, flags,
		 * &handle), on the thread's device */
		bool v2 = c->fn->args[0].kind == PW_K_SHAREPTR;
		uint64_t out = c->a[v2 ? 3 : 2];
		int dev = v2 ? c->cur_dev : (int)(int64_t)c->a[1];
		if (out)
			pw_acl_vmm_add((uintptr_t) * (void *const *)(uintptr_t)out, 0, dev, true,
			               pw_acl_share_arg(c, 0));
		break;
	}
	case PW_OP_DEVICE_SET: tls_dev_plus1 = (int)(int64_t)c->a[0] + 1; break;
	case PW_OP_DEVICE_RESET:
		if (tls_dev_plus1 == (int)(int64_t)c->a[0] + 1)
			tls_dev_plus1 = 0; /* whatever the runtime says next */
		break;
	case PW_OP_DEVICE_GET:
		if (c->a[0])
			tls_dev_plus1 = *(const int32_t *)(uintptr_t)c->a[0] + 1;
		break;
	default: break;
	}
}

static bool is_copy(const struct pw_call *c)
{
	return c->fn->op == PW_OP_IMPLICIT_COPY;
}

/* The kind's argument of a copy: aclrtMemcpy(Async)'s fifth, aclrtMemcpy2d(Async)'s seventh. */
int pw_acl_copy_kind_arg(const struct pw_call *c)
{
	return c->fn->args[4].kind == PW_K_MEMKIND ? 4 : 6;
}

/* The configuration path is recorded up to this many bytes. */
#define PW_ACL_CSTR_MAX 4096

/* An IPC key as the trace keeps it: the bytes up to its NUL, at most a
 * key buffer's (abi/acl.h: 65), then a NUL. */
static void snap_key(struct pw_snapw *s, int i, const char *key)
{
	size_t n = strnlen(key, PW_ACL_IPC_KEY_LEN);
	char *d = pw_snap_add(s, i, n + 1);
	if (d) {
		memcpy(d, key, n);
		d[n] = 0;
	}
}

/* On the calling thread, after the call: the pointer aclrtMalloc wrote and
 * its device (the table, or the thread's device), the string, the IPC key
 * (an exported one only once the call wrote it), the trust list. */
void pw_acl_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i)
{
	uint64_t v = c->a[i];
	bool ok = c->ret == ACL_SUCCESS;
	switch (c->fn->args[i].kind) {
	case PW_K_OUT_APTR:
		if (ok && v) {
			struct pw_snap_ptr *o = pw_snap_add(s, i, sizeof *o);
			struct pw_acl_alloc a;
			if (!o)
				break;
			o->ptr = (uintptr_t) * (void *const *)(uintptr_t)v;
			o->dev = pw_acl_mem_find(o->ptr, &a) ? a.dev : c->cur_dev;
		}
		break;
	case PW_K_CSTR:
		if (v) {
			const char *str = (const char *)(uintptr_t)v;
			size_t n = strnlen(str, PW_ACL_CSTR_MAX - 1);
			char *d = pw_snap_add(s, i, n + 1);
			if (d) {
				memcpy(d, str, n);
				d[n] = 0;
			}
		}
		break;
	case PW_K_KEY:
		if (v)
			snap_key(s, i, (const char *)(uintptr_t)v);
		break;
	case PW_K_OUT_KEY:
		if (ok && v)
			snap_key(s, i, (const char *)(uintptr_t)v);
		break;
	case PW_K_OUT_MEMHANDLE:
	case PW_K_OUT_SHARE64:
		if (ok)
			pw_event_snap_deref(s, i, v, sizeof(uint64_t));
		break;
	case PW_K_SHAREPTR:
	case PW_K_OUT_SHAREPTR: {
		/* the handle's value (a fabric handle's digest), once it is there */
		uint64_t sh = pw_acl_share_arg(c, i);
		uint64_t *d = sh ? pw_snap_add(s, i, sizeof *d) : NULL;
		if (d)
			*d = sh;
		break;
	}
	case PW_K_PHYSPROP: pw_event_snap_deref(s, i, v, sizeof(aclrtPhysicalMemProp)); break;
	case PW_K_PIDS:
		if (v) {
			uint64_t num = c->a[i + 1];
			int32_t n = num < PW_ACL_PIDS_MAX ? (int32_t)num : PW_ACL_PIDS_MAX;
			int32_t *d = pw_snap_add(s, i, sizeof(int32_t) * (size_t)(n + 1));
			if (d) {
				d[0] = n;
				memcpy(d + 1, (const int32_t *)(uintptr_t)v, sizeof(int32_t) * (size_t)n);
			}
		}
		break;
	default: break;
	}
}

/* "key": the string, and "handle": its first 64 bytes, zero-padded (the
 * handle bytes IPC calls are matched by); "key": null where none was saved. */
static void put_key(struct pw_jw *w, const struct pw_rcall *r, int i, const char *k)
{
	size_t n = 0;
	const uint8_t *b = pw_rec_snap_n(r, i, &n);
	pw_jw_key(w, k);
	if (!b || !n) {
		pw_jw_raw(w, "null", 4);
		return;
	}
	char str[PW_ACL_IPC_KEY_LEN + 1];
	size_t len = strnlen((const char *)b, n < sizeof str ? n : sizeof str - 1);
	memcpy(str, b, len);
	str[len] = 0;
	pw_jw_str_lossy(w, str);
	unsigned char h[PW_IPC_HANDLE_BYTES] = {0};
	memcpy(h, str, len < sizeof h ? len : sizeof h);
	pw_jw_key(w, "handle");
	pw_jw_bytes(w, h, sizeof h);
}

static void put_pids(struct pw_jw *w, const struct pw_rcall *r, int i, const char *k)
{
	size_t n = 0;
	const uint8_t *b = pw_rec_snap_n(r, i, &n);
	int32_t count;
	pw_jw_key(w, k);
	if (!b || n < sizeof count) {
		pw_jw_raw(w, "null", 4);
		return;
	}
	memcpy(&count, b, sizeof count);
	if (count < 0 || (size_t)count > (n - sizeof count) / sizeof(int32_t))
		count = 0;
	pw_jw_ch(w, '[');
	for (int32_t j = 0; j < count; j++) {
		int32_t pid;
		memcpy(&pid, b + sizeof count + sizeof pid * (size_t)j, sizeof pid);
		if (j)
			pw_jw_ch(w, ',');
		pw_jw_i64(w, pid);
	}
	pw_jw_ch(w, ']');
}

/* aclrtMallocPhysical's properties: the device where the location is one
 * ("dev"), and the memory attribute; "prop": null for NULL. */
static void put_physprop(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const void *b = pw_rec_snap(r, i, sizeof(aclrtPhysicalMemProp));
	aclrtPhysicalMemProp p;
	if (!b) {
		pw_jw_key(w, "prop");
		pw_jw_raw(w, "null", 4);
		return;
	}
	memcpy(&p, b, sizeof p);
	pw_event_put_dev(w, "dev", "",
	                 p.location.type == ACL_MEM_LOCATION_TYPE_DEVICE ? (int32_t)p.location.id
	                                                                 : PW_NO_DEV);
	pw_jw_kv_i64(w, "mem_attr", p.memAttr);
}

/* On the writer's thread: the event's argument, from the record. */
void pw_acl_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i)
{
	const struct pw_call *c = &r->c;
	const struct pw_arg_desc *d = &c->fn->args[i];
	const char *k = d->name;
	uint64_t v = c->a[i];
	const void *b;
	char buf[160];
	switch (d->kind) {
	case PW_K_DEV: pw_jw_kv_i64(w, k, (int64_t)v); break;
	case PW_K_SIZE:
	case PW_K_UINT:
	case PW_K_U64: pw_jw_kv_u64(w, k, v); break;
	case PW_K_KEY:
	case PW_K_OUT_KEY: put_key(w, r, i, k); break;
	case PW_K_PIDS: put_pids(w, r, i, k); break;
	case PW_K_STREAM: pw_jw_kv_hex(w, k, v); break;
	case PW_K_OUT_INT:
		if ((b = pw_rec_snap(r, i, sizeof(int32_t)))) {
			int32_t x;
			memcpy(&x, b, sizeof x);
			pw_jw_kv_i64(w, k, x);
		}
		break;
	case PW_K_CSTR:
		pw_jw_key(w, k);
		if ((b = pw_rec_snap(r, i, 1)))
			pw_jw_str(w, b);
		else
			pw_jw_raw(w, "null", 4);
		break;
	case PW_K_APTR:
		pw_jw_kv_hex(w, k, v);
		pw_event_put_dev(w, k, "_dev", c->dev[i]);
		if (is_copy(c)) {
			int kind = (int)(int64_t)c->a[pw_acl_copy_kind_arg(c)];
			if (i == 0 ? pw_acl_kind_host_dst(kind) : pw_acl_kind_host_src(kind)) {
				pw_jw_key2(w, k, "_type");
				pw_jw_str(w, "host");
			}
		}
		break;
	case PW_K_OUT_APTR: pw_event_put_out_ptr(w, k, r, i); break;
	case PW_K_MEMHANDLE:
	case PW_K_SHARE64: pw_jw_kv_hex(w, k, v); break;
	case PW_K_OUT_MEMHANDLE:
	case PW_K_OUT_SHARE64:
	case PW_K_SHAREPTR:
	case PW_K_OUT_SHAREPTR: pw_event_put_out_word(w, k, r, i); break;
	case PW_K_SHARETYPE:
		if (v == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT || v == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
			pw_jw_kv_str(w, k,
			             v == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT
			                 ? "ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT"
			                 : "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC");
		else
			pw_jw_kv_i64(w, k, (int64_t)v);
		break;
	case PW_K_PHYSPROP: put_physprop(w, r, i); break;
	case PW_K_POLICY: {
		const char *name = pw_acl_policy_name((int)(int64_t)v, buf, sizeof buf);
		if (name)
			pw_jw_kv_str(w, k, name);
		else
			pw_jw_kv_i64(w, k, (int64_t)v);
		pw_jw_key(w, "p2p");
		pw_jw_raw(w, pw_acl_policy_p2p((int)(int64_t)v) ? "true" : "false",
		          pw_acl_policy_p2p((int)(int64_t)v) ? 4 : 5);
		break;
	}
	case PW_K_MEMKIND: {
		const char *name = pw_acl_memcpy_kind_name((int)(int64_t)v);
		if (name)
			pw_jw_kv_str(w, k, name);
		else
			pw_jw_kv_i64(w, k, (int64_t)v);
		break;
	}
	default: break;
	}
}

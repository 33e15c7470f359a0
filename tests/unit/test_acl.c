/*
 * The ACL module without a runtime: names of codes, kinds and policies, the
 * allocation table, events parsed back with jansson, and calls translated
 * into the rules' terms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "vendors/acl/acl.h"
#include "record/event.h"
#include "record/jsonw.h"
#include "state/op.h"

#define INT(j, k) json_integer_value(json_object_get(j, k))
#define STR(j, k) json_string_value(json_object_get(j, k))

static json_t *encode(const struct pw_call *c)
{
	static char buf[PW_MAX_ARGS * 512];
	struct pw_jw w;
	pw_jw_init(&w, buf, sizeof buf - 1);
	pw_event_call(&w, c);
	assert_false(w.overflow);
	*w.p = 0;
	json_error_t e;
	json_t *j = json_loads(buf, 0, &e);
	if (!j)
		fail_msg("not JSON (%s): %s", e.text, buf);
	return j;
}

static struct pw_call call_of(int id, int ret)
{
	struct pw_call c;
	memset(&c, 0, sizeof c);
	c.fn = &pw_acl_desc[id];
	c.seq = 9;
	c.t0 = 100;
	c.t1 = 150;
	c.ret = ret;
	c.cur_dev = PW_NO_DEV;
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c.dev[i] = PW_NO_DEV;
	return c;
}

static void names(void **state)
{
	(void)state;
	char buf[160];
	assert_string_equal(pw_acl_error_name(200006), "ACL_ERROR_FEATURE_UNSUPPORTED");
	assert_string_equal(pw_acl_error_name(100000), "ACL_ERROR_INVALID_PARAM");
	assert_string_equal(pw_acl_error_name(0), "ACL_SUCCESS");
	assert_null(pw_acl_error_name(12345));
	assert_string_equal(pw_acl_memcpy_kind_name(3), "ACL_MEMCPY_DEVICE_TO_DEVICE");
	assert_string_equal(pw_acl_memcpy_kind_name(7), "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE");
	assert_null(pw_acl_memcpy_kind_name(8));
	assert_string_equal(pw_acl_policy_name(5, buf, sizeof buf), "ACL_MEM_MALLOC_NORMAL_ONLY_P2P");
	assert_string_equal(pw_acl_policy_name(1 | 0x1000, buf, sizeof buf),
	                    "ACL_MEM_MALLOC_HUGE_ONLY|ACL_MEM_TYPE_HIGH_BAND_WIDTH");
	assert_null(pw_acl_policy_name(9, buf, sizeof buf));
	assert_null(pw_acl_policy_name(2 | 0x20000, buf, sizeof buf));
	assert_true(pw_acl_policy_p2p(3) && pw_acl_policy_p2p(4) && pw_acl_policy_p2p(5) &&
	            pw_acl_policy_p2p(7));
	assert_false(pw_acl_policy_p2p(0) || pw_acl_policy_p2p(2) || pw_acl_policy_p2p(6) ||
	             pw_acl_policy_p2p(2 | 0x100));
}

static void table(void **state)
{
	(void)state;
	struct pw_acl_alloc a;
	pw_acl_mem_add(0x10000, 0x1000, 1, 5);
	pw_acl_mem_add(0x20000, 0x100, 0, 2);
	assert_true(pw_acl_mem_find(0x10800, &a));
	assert_true(a.base == 0x10000 && a.size == 0x1000 && a.dev == 1 && a.policy == 5);
	assert_false(pw_acl_mem_find(0x11000, &a)); /* one past the end */
	assert_false(pw_acl_mem_find(0xffff, &a));
	assert_true(pw_acl_mem_find(0x200ff, &a) && a.dev == 0);
	pw_acl_mem_remove(0x10000);
	assert_false(pw_acl_mem_find(0x10800, &a));
	assert_true(pw_acl_mem_find(0x20000, &a));
	pw_acl_mem_remove(0x20000);
	assert_false(pw_acl_mem_find(0x20000, &a));
}

static void malloc_event(void **state)
{
	(void)state;
	void *out = (void *)0x7f0000400000;
	pw_acl_mem_add(0x7f0000400000, 4096, 1, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
	struct pw_call c = call_of(PW_ACL_ID(aclrtMalloc), ACL_SUCCESS);
	c.a[0] = (uintptr_t)&out;
	c.a[1] = 4096;
	c.a[2] = ACL_MEM_MALLOC_HUGE_FIRST_P2P;
	c.cur_dev = 1;
	json_t *j = encode(&c);
	assert_string_equal(STR(j, "vendor"), "acl");
	assert_string_equal(STR(j, "family"), "support");
	assert_string_equal(STR(j, "ret_name"), "ACL_SUCCESS");
	assert_int_equal(INT(j, "cur_dev"), 1);
	json_t *a = json_object_get(j, "args");
	assert_string_equal(STR(a, "ptr"), "0x7f0000400000");
	assert_int_equal(INT(a, "ptr_dev"), 1);
	assert_int_equal(INT(a, "bytes"), 4096);
	assert_string_equal(STR(a, "policy"), "ACL_MEM_MALLOC_HUGE_FIRST_P2P");
	assert_true(json_is_true(json_object_get(a, "p2p")));
	json_decref(j);
	pw_acl_mem_remove(0x7f0000400000);

	c.ret = ACL_ERROR_INVALID_PARAM; /* no pointer written: none recorded */
	c.a[2] = 77;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_null(json_object_get(a, "ptr"));
	assert_int_equal(INT(a, "policy"), 77);
	assert_true(json_is_false(json_object_get(a, "p2p")));
	assert_string_equal(STR(j, "ret_name"), "ACL_ERROR_INVALID_PARAM");
	json_decref(j);
}

static void copy_event_and_op(void **state)
{
	(void)state;
	pw_acl_mem_add(0x10000, 1024, 0, ACL_MEM_MALLOC_NORMAL_ONLY_P2P);
	pw_acl_mem_add(0x20000, 1024, 1, ACL_MEM_MALLOC_NORMAL_ONLY);
	struct pw_call c = call_of(PW_ACL_ID(aclrtMemcpyAsync), ACL_SUCCESS);
	c.a[0] = 0x20000;
	c.dev[0] = 1;
	c.a[1] = 1024;
	c.a[2] = 0x10100;
	c.dev[2] = 0;
	c.a[3] = 512;
	c.a[4] = ACL_MEMCPY_DEVICE_TO_DEVICE;
	c.a[5] = 0x5;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_string_equal(STR(j, "family"), "copy");
	assert_int_equal(INT(a, "dst_dev"), 1);
	assert_int_equal(INT(a, "src_dev"), 0);
	assert_int_equal(INT(a, "dest_max"), 1024);
	assert_int_equal(INT(a, "bytes"), 512);
	assert_string_equal(STR(a, "kind"), "ACL_MEMCPY_DEVICE_TO_DEVICE");
	assert_string_equal(STR(a, "stream"), "0x5");
	assert_null(json_object_get(a, "src_type"));
	json_decref(j);

	struct pw_op op;
	assert_true(pw_acl_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_IMPLICIT_COPY);
	assert_int_equal(op.vendor, PW_VENDOR_ACL);
	assert_int_equal(op.src.dev, 0);
	assert_int_equal(op.dst.dev, 1);
	assert_int_equal(op.src.p2p, 1);
	assert_int_equal(op.dst.p2p, 0);
	assert_true(op.src.known && op.src.base == 0x10000 && op.src.size == 1024);

	c.a[4] = ACL_MEMCPY_HOST_TO_DEVICE; /* device memory passed as host: copy.acl.kind's */
	assert_true(pw_acl_op_before(&c, &op));
	assert_int_equal(op.copy_kind, ACL_MEMCPY_HOST_TO_DEVICE);
	c.a[2] = 0x7000; /* a host source: a plain host-to-device copy, checked too (destMax, kind) */
	assert_true(pw_acl_op_before(&c, &op));
	assert_false(op.src.known);
	assert_int_equal(op.dest_max, c.a[1]);
	assert_true(op.copy_async);           /* aclrtMemcpyAsync */
	c.a[4] = ACL_MEMCPY_DEVICE_TO_DEVICE; /* a host buffer passed as device: copy.acl.kind's */
	assert_true(pw_acl_op_before(&c, &op));
	c.a[2] = 0x10100;
	c.a[4] = ACL_MEMCPY_DEFAULT; /* resolves to two devices */
	assert_true(pw_acl_op_before(&c, &op));
	c.a[2] = 0x20010; /* same device: no peer copy, but a copy all the same */
	assert_true(pw_acl_op_before(&c, &op));
	assert_int_equal(op.src.dev, op.dst.dev);
	c.a[2] = 0;
	c.a[4] = ACL_MEMCPY_DEVICE_TO_DEVICE; /* from NULL: copy.peer.null's business */
	assert_true(pw_acl_op_before(&c, &op));

	c.a[4] = ACL_MEMCPY_HOST_TO_DEVICE;
	c.a[2] = 0x1234;
	j = encode(&c);
	assert_string_equal(STR(json_object_get(j, "args"), "src_type"), "host");
	json_decref(j);
	pw_acl_mem_remove(0x10000);
	pw_acl_mem_remove(0x20000);
}

static void finalize_event(void **state)
{
	(void)state;
	struct pw_call c = call_of(PW_ACL_ID(aclFinalize), ACL_ERROR_REPEAT_FINALIZE);
	json_t *j = encode(&c);
	assert_string_equal(STR(j, "api"), "aclFinalize");
	assert_string_equal(STR(j, "op"), "runtime_fini");
	assert_string_equal(STR(j, "ret_name"), "ACL_ERROR_REPEAT_FINALIZE");
	assert_int_equal(json_object_size(json_object_get(j, "args")), 0);
	json_decref(j);
}

/* The IPC calls by key: the key as a string and as its handle bytes (zero
 * after its NUL, whatever the buffer held), none after a failed export; the
 * trust list's first 16 ids; and what the rules see of each call. */
static void ipc_key_events_and_ops(void **state)
{
	(void)state;
	char key[PW_ACL_IPC_KEY_LEN];
	memset(key, 'x', sizeof key);
	strcpy(key, "pwacl.0.42.1"); /* 'x' after the NUL: another buffer's leftovers */
	struct pw_call c = call_of(PW_ACL_ID(aclrtIpcMemGetExportKey), ACL_SUCCESS);
	c.a[0] = 0x50000;
	c.a[1] = 4096;
	c.a[2] = (uintptr_t)key;
	c.a[3] = PW_ACL_IPC_KEY_LEN;
	c.a[4] = ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_string_equal(STR(j, "op"), "ipc_export");
	assert_string_equal(STR(j, "family"), "ipc");
	assert_string_equal(STR(a, "key"), "pwacl.0.42.1");
	const char *h = STR(a, "handle");
	assert_int_equal(strlen(h), 128);
	assert_memory_equal(h, "707761636c2e302e34322e31", 24); /* "pwacl.0.42.1" */
	for (size_t i = 24; i < 128; i++)
		assert_int_equal(h[i], '0');
	assert_int_equal(INT(a, "len"), 65);
	assert_int_equal(INT(a, "flags"), 0);
	json_decref(j);
	struct pw_op op;
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.kind == PW_OP_IPC_EXPORT && op.key_len == 65 && op.trust_list);
	pw_acl_op_after(&c, &op);
	assert_non_null(op.handle);
	assert_memory_equal(op.handle, "pwacl.0.42.1\0\0\0\0", 16);

	c.ret = ACL_ERROR_RT_PARAM_INVALID; /* the runtime wrote no key */
	c.a[3] = 64;
	c.a[4] = ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_true(json_is_null(json_object_get(a, "key")));
	assert_null(json_object_get(a, "handle"));
	json_decref(j);
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.key_len == 64 && !op.trust_list);

	int32_t pids[20];
	for (int i = 0; i < 20; i++)
		pids[i] = 100 + i;
	c = call_of(PW_ACL_ID(aclrtIpcMemSetImportPid), ACL_SUCCESS);
	c.a[0] = (uintptr_t)key;
	c.a[1] = (uintptr_t)pids;
	c.a[2] = 20;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_string_equal(STR(j, "op"), "ipc_import_pid");
	assert_int_equal(json_array_size(json_object_get(a, "pids")), 16);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(a, "pids"), 15)), 115);
	assert_int_equal(INT(a, "num"), 20);
	json_decref(j);
	c.a[1] = 0;
	j = encode(&c);
	assert_true(json_is_null(json_object_get(json_object_get(j, "args"), "pids")));
	json_decref(j);

	void *mapped = (void *)0x7f0000600000;
	c = call_of(PW_ACL_ID(aclrtIpcMemImportByKey), ACL_SUCCESS);
	c.a[0] = (uintptr_t)&mapped;
	c.a[1] = (uintptr_t)key;
	c.a[2] = ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS;
	c.cur_dev = 1;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_string_equal(STR(j, "op"), "ipc_open");
	assert_string_equal(STR(a, "ptr"), "0x7f0000600000");
	assert_string_equal(STR(a, "key"), "pwacl.0.42.1");
	json_decref(j);
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.kind == PW_OP_IPC_OPEN && op.flags == 1 && op.ipc_lazy_flag == 1);
	assert_memory_equal(op.handle, "pwacl.0.42.1\0", 13);
	pw_acl_op_after(&c, &op);
	assert_true(op.dst.ptr == 0x7f0000600000);

	c = call_of(PW_ACL_ID(aclrtIpcMemClose), ACL_SUCCESS);
	c.a[0] = (uintptr_t)key;
	j = encode(&c);
	assert_string_equal(STR(j, "op"), "ipc_close");
	assert_string_equal(STR(json_object_get(j, "args"), "key"), "pwacl.0.42.1");
	json_decref(j);
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.kind == PW_OP_IPC_CLOSE && op.dst.ptr == 0 && !op.key_exported); /* no import here */
}

/* Shareable handles: the events, the table of physical handles, and the
 * facts the rules read (this process's own export, a second import or
 * export, the shareable handle a free ends). */
static void vmm_events_and_ops(void **state)
{
	(void)state;
	aclrtPhysicalMemProp prop = {ACL_MEM_HANDLE_TYPE_NONE,
	                             ACL_MEM_ALLOCATION_TYPE_PINNED,
	                             ACL_HBM_MEM_HUGE,
	                             {1, ACL_MEM_LOCATION_TYPE_DEVICE},
	                             0};
	aclrtDrvMemHandle h = (aclrtDrvMemHandle)0x5a5a0;
	struct pw_call c = call_of(PW_ACL_ID(aclrtMallocPhysical), ACL_SUCCESS);
	c.a[0] = (uintptr_t)&h;
	c.a[1] = 8192;
	c.a[2] = (uintptr_t)&prop;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_string_equal(STR(j, "op"), "vmm_create");
	assert_string_equal(STR(a, "handle"), "0x5a5a0");
	assert_int_equal(INT(a, "dev"), 1);
	assert_int_equal(INT(a, "mem_attr"), ACL_HBM_MEM_HUGE);
	json_decref(j);
	pw_acl_learn(&c, 0);

	uint64_t sh = 0x123400000007ull;
	c = call_of(PW_ACL_ID(aclrtMemExportToShareableHandle), ACL_SUCCESS);
	c.a[0] = 0x5a5a0;
	c.a[1] = ACL_MEM_HANDLE_TYPE_NONE;
	c.a[2] = ACL_RT_VMM_EXPORT_FLAG_DEFAULT;
	c.a[3] = (uintptr_t)&sh;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_string_equal(STR(j, "op"), "vmm_export");
	assert_string_equal(STR(a, "shareable"), "0x123400000007");
	json_decref(j);
	struct pw_op op;
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.vmm_known && op.trust_list && !op.vmm_again && op.dst.dev == 1);
	pw_acl_learn(&c, 0);
	assert_true(pw_acl_op_before(&c, &op)); /* exported again */
	assert_true(op.vmm_again && op.vmm_shareable == sh);

	aclrtDrvMemHandle got = (aclrtDrvMemHandle)0x6b6b0;
	c = call_of(PW_ACL_ID(aclrtMemImportFromShareableHandle), ACL_SUCCESS);
	c.a[0] = sh;
	c.a[1] = 0;
	c.a[2] = (uintptr_t)&got;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_string_equal(STR(j, "op"), "vmm_import");
	assert_string_equal(STR(a, "shareable"), "0x123400000007");
	assert_string_equal(STR(a, "handle"), "0x6b6b0");
	json_decref(j);
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.vmm_own_export && !op.vmm_again && op.vmm_shareable == sh);
	assert_memory_equal(op.handle, "PWACLVMM", 8);
	assert_memory_equal(op.handle + 8, &sh, 8);
	pw_acl_learn(&c, 0);
	assert_true(pw_acl_op_before(&c, &op)); /* imported again, while the first is held */
	assert_true(op.vmm_again);

	c = call_of(PW_ACL_ID(aclrtFreePhysical), ACL_SUCCESS);
	c.a[0] = 0x6b6b0;
	pw_acl_learn(&c, 0);
	c = call_of(PW_ACL_ID(aclrtMemImportFromShareableHandle), ACL_SUCCESS);
	c.a[0] = sh;
	c.a[2] = (uintptr_t)&got;
	assert_true(pw_acl_op_before(&c, &op));
	assert_false(op.vmm_again); /* the import's handle was freed */

	c = call_of(PW_ACL_ID(aclrtFreePhysical), ACL_SUCCESS);
	c.a[0] = 0x5a5a0;
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.kind == PW_OP_VMM_RELEASE && op.vmm_shareable == sh);
	pw_acl_learn(&c, 0);
	c = call_of(PW_ACL_ID(aclrtMemImportFromShareableHandle), ACL_SUCCESS);
	c.a[0] = sh;
	assert_true(pw_acl_op_before(&c, &op));
	assert_false(op.vmm_own_export); /* freed: no export of this process now */

	int32_t pid = 77;
	c = call_of(PW_ACL_ID(aclrtMemSetPidToShareableHandle), ACL_SUCCESS);
	c.a[0] = sh;
	c.a[1] = (uintptr_t)&pid;
	c.a[2] = 1;
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.kind == PW_OP_IPC_IMPORT_PID);
	assert_memory_equal(op.handle, "PWACLVMM", 8);

	/* a 2D copy: the kind is the seventh argument, rows times width moved */
	c = call_of(PW_ACL_ID(aclrtMemcpy2d), ACL_SUCCESS);
	c.a[0] = 0x1000;
	c.a[1] = 64;
	c.a[2] = 0x9000;
	c.a[3] = 32;
	c.a[4] = 16;
	c.a[5] = 4;
	c.a[6] = ACL_MEMCPY_DEVICE_TO_DEVICE;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_int_equal(INT(a, "dpitch"), 64);
	assert_int_equal(INT(a, "spitch"), 32);
	assert_string_equal(STR(a, "kind"), "ACL_MEMCPY_DEVICE_TO_DEVICE");
	json_decref(j);
	assert_true(pw_acl_op_before(&c, &op));
	assert_true(op.copy_2d && op.copy_kind == ACL_MEMCPY_DEVICE_TO_DEVICE && op.bytes == 64 &&
	            op.dest_max == 3 * 64 + 16 && !op.copy_async);
}

/* Thread 1 frees A (device 0); before its wrapper takes A out of the table,
 * thread 2's aclrtMalloc gets A back on device 1, in a lower slot.  The
 * free must take out its own entry, not the new one. */
static void free_then_reuse(void **state)
{
	(void)state;
	struct pw_acl_alloc a;
	pw_acl_mem_add(0x30000, 64, 0, ACL_MEM_MALLOC_HUGE_FIRST);
	pw_acl_mem_add(0x40000, 4096, 0, ACL_MEM_MALLOC_HUGE_FIRST);
	struct pw_call f = call_of(PW_ACL_ID(aclrtFree), ACL_SUCCESS);
	f.a[0] = 0x40000;
	pw_acl_pre(&f, f.fn); /* thread 1, before the real aclrtFree */
	assert_int_equal(f.dev[0], 0);
	pw_acl_mem_remove(0x30000);
	pw_acl_mem_add(0x40000, 8192, 1, ACL_MEM_MALLOC_HUGE_FIRST_P2P); /* thread 2 */
	pw_acl_learn(&f, 0); /* thread 1, after the real aclrtFree */
	assert_true(pw_acl_mem_find(0x40000, &a));
	assert_int_equal(a.dev, 1);
	assert_int_equal(a.size, 8192);
	pw_acl_mem_remove(0x40000);
	assert_false(pw_acl_mem_find(0x40000, &a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names),
	    cmocka_unit_test(table),
	    cmocka_unit_test(malloc_event),
	    cmocka_unit_test(copy_event_and_op),
	    cmocka_unit_test(finalize_event),
	    cmocka_unit_test(free_then_reuse),
	    cmocka_unit_test(ipc_key_events_and_ops),
	    cmocka_unit_test(vmm_events_and_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

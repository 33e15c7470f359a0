/* Encoding of call events, checked by parsing them back with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "record/event.h"
#include "record/jsonw.h"

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
	c.fn = &pw_cuda_desc[id];
	c.seq = 42;
	c.t0 = 1000;
	c.t1 = 1250;
	c.ret = ret;
	c.cur_dev = PW_NO_DEV;
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c.dev[i] = PW_NO_DEV;
	return c;
}

#define INT(j, path) json_integer_value(json_object_get(j, path))
#define STR(j, path) json_string_value(json_object_get(j, path))

static void peer_copy(void **state)
{
	(void)state;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemcpyPeerAsync_ptsz), CUDA_SUCCESS);
	c.a[0] = 0x7f0000001000;
	c.dev[0] = 1;
	c.a[1] = 0x5555aaaa;
	c.dev[1] = 1;
	c.a[2] = 0x7f0000200000;
	c.dev[2] = 0;
	c.a[3] = 0x5555bbbb;
	c.dev[3] = 0;
	c.a[4] = 268435456;
	c.a[5] = 0x2;
	c.parent = 7;
	json_t *j = encode(&c);
	assert_string_equal(STR(j, "type"), "call");
	assert_int_equal(INT(j, "seq"), 42);
	assert_string_equal(STR(j, "vendor"), "cuda");
	assert_string_equal(STR(j, "api"), "cuMemcpyPeerAsync");
	assert_string_equal(STR(j, "variant"), "_ptsz");
	assert_string_equal(STR(j, "family"), "copy");
	assert_string_equal(STR(j, "op"), "peer_copy");
	assert_int_equal(INT(j, "t_ns"), 1000);
	assert_int_equal(INT(j, "dur_ns"), 250);
	assert_int_equal(INT(j, "ret"), 0);
	assert_string_equal(STR(j, "ret_name"), "CUDA_SUCCESS");
	assert_int_equal(INT(j, "parent"), 7);
	assert_null(json_object_get(j, "cur_dev"));
	json_t *a = json_object_get(j, "args");
	assert_string_equal(STR(a, "dst"), "0x7f0000001000");
	assert_int_equal(INT(a, "dst_dev"), 1);
	assert_string_equal(STR(a, "src"), "0x7f0000200000");
	assert_int_equal(INT(a, "src_dev"), 0);
	assert_int_equal(INT(a, "dst_ctx_dev"), 1);
	assert_int_equal(INT(a, "src_ctx_dev"), 0);
	assert_int_equal(INT(a, "bytes"), 268435456);
	assert_string_equal(STR(a, "stream"), "0x2");
	json_decref(j);
}

static void unknown_device_is_null(void **state)
{
	(void)state;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemFree_v2), CUDA_ERROR_INVALID_VALUE);
	c.a[0] = 0x1234;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_true(json_is_null(json_object_get(a, "ptr_dev")));
	assert_string_equal(STR(j, "ret_name"), "CUDA_ERROR_INVALID_VALUE");
	assert_string_equal(STR(j, "variant"), "_v2");
	assert_string_equal(STR(j, "api"), "cuMemFree");
	json_decref(j);
}

static void ipc_open(void **state)
{
	(void)state;
	CUipcMemHandle h;
	for (int i = 0; i < 64; i++)
		h.reserved[i] = (char)(0xa0 + i);
	CUdeviceptr out = 0x7f00abcd0000;
	struct pw_call c = call_of(PW_CUDA_ID(cuIpcOpenMemHandle_v2), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&out;
	c.a[1] = (uintptr_t)&h;
	c.a[2] = 7;
	c.cur_dev = 1;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_int_equal(INT(j, "cur_dev"), 1);
	assert_string_equal(STR(a, "ptr"), "0x7f00abcd0000");
	const char *hex = STR(a, "handle");
	assert_int_equal(strlen(hex), 128);
	assert_memory_equal(hex, "a0a1a2a3", 8);
	assert_memory_equal(hex + 120, "dcdddedf", 8);
	assert_int_equal(INT(a, "flags"), 7);
	assert_string_equal(STR(a, "flags_names"), "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS|0x6");
	json_decref(j);
}

static void outputs_omitted_on_failure(void **state)
{
	(void)state;
	CUdeviceptr out = 0x99;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemAllocManaged), CUDA_ERROR_INVALID_VALUE);
	c.a[0] = (uintptr_t)&out;
	c.a[1] = 100;
	c.a[2] = 0;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_null(json_object_get(a, "ptr"));
	assert_int_equal(INT(a, "bytes"), 100);
	assert_string_equal(STR(a, "flags_names"), "0x0");
	json_decref(j);
}

static void managed_enums_and_location(void **state)
{
	(void)state;
	CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
	struct pw_call c = call_of(PW_CUDA_ID(cuMemAdvise_v2), CUDA_SUCCESS);
	c.a[0] = 0x1000;
	c.a[1] = 4096;
	c.a[2] = CU_MEM_ADVISE_SET_PREFERRED_LOCATION;
	memcpy(&c.a[3], &loc, sizeof loc);
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_int_equal(INT(a, "advice"), 3);
	assert_string_equal(STR(a, "advice_name"), "CU_MEM_ADVISE_SET_PREFERRED_LOCATION");
	json_t *l = json_object_get(a, "location");
	assert_string_equal(STR(l, "type"), "device");
	assert_int_equal(INT(l, "id"), 1);
	json_decref(j);

	c.a[2] = 99;
	j = encode(&c);
	a = json_object_get(j, "args");
	assert_true(json_is_null(json_object_get(a, "advice_name")));
	json_decref(j);
}

static void range_attributes(void **state)
{
	(void)state;
	int value = 1;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemRangeGetAttribute), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&value;
	c.a[1] = 4;
	c.a[2] = CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_int_equal(INT(a, "value"), 1);
	assert_string_equal(STR(a, "attr_name"), "CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY");
	json_decref(j);

	CUmem_range_attribute attrs[2] = {CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 77};
	c = call_of(PW_CUDA_ID(cuMemRangeGetAttributes), CUDA_SUCCESS);
	c.a[2] = (uintptr_t)attrs;
	c.a[3] = 2;
	j = encode(&c);
	a = json_object_get(j, "args");
	json_t *arr = json_object_get(a, "attrs");
	assert_int_equal(json_array_size(arr), 2);
	assert_string_equal(json_string_value(json_array_get(arr, 0)), "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY");
	assert_int_equal(json_integer_value(json_array_get(arr, 1)), 77);
	json_decref(j);
}

static void copy3d(void **state)
{
	(void)state;
	CUDA_MEMCPY3D_PEER p;
	memset(&p, 0, sizeof p);
	p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	p.srcDevice = 0x1000;
	p.dstMemoryType = CU_MEMORYTYPE_HOST;
	p.dstHost = (void *)0x2000;
	p.WidthInBytes = 100;
	p.Height = 3;
	p.Depth = 2;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemcpy3DPeer_ptds), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&p;
	c.dev[0] = 1;
	json_t *j = encode(&c);
	json_t *a = json_object_get(j, "args");
	assert_string_equal(STR(a, "src_type"), "device");
	assert_string_equal(STR(a, "dst_type"), "host");
	assert_string_equal(STR(a, "dst"), "0x2000");
	assert_int_equal(INT(a, "src_dev"), 1);
	assert_int_equal(INT(a, "bytes"), 600);
	json_decref(j);
}

/* CUDA 13's atomics of a link: operations by name, capabilities as bit names,
 * the capabilities only when the call succeeded. */
static void p2p_atomic_capabilities(void **state)
{
	(void)state;
	CUatomicOperation ops[3] = {CU_ATOMIC_OPERATION_INTEGER_ADD, CU_ATOMIC_OPERATION_FLOAT_MAX, 77};
	unsigned caps[3] = {CU_ATOMIC_CAPABILITY_SIGNED | CU_ATOMIC_CAPABILITY_SCALAR_32, 0, 0x100};
	struct pw_call c = call_of(PW_CUDA_ID(cuDeviceGetP2PAtomicCapabilities), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)caps;
	c.a[1] = (uintptr_t)ops;
	c.a[2] = 3;
	c.a[3] = 0;
	c.a[4] = 1;
	json_t *j = encode(&c);
	assert_string_equal(STR(j, "op"), "peer_attr");
	json_t *a = json_object_get(j, "args");
	json_t *o = json_object_get(a, "operations"), *k = json_object_get(a, "capabilities");
	assert_int_equal(json_array_size(o), 3);
	assert_string_equal(json_string_value(json_array_get(o, 0)), "CU_ATOMIC_OPERATION_INTEGER_ADD");
	assert_string_equal(json_string_value(json_array_get(o, 1)), "CU_ATOMIC_OPERATION_FLOAT_MAX");
	assert_int_equal(json_integer_value(json_array_get(o, 2)), 77);
	assert_int_equal(json_array_size(k), 3);
	assert_string_equal(json_string_value(json_array_get(k, 0)),
	                    "CU_ATOMIC_CAPABILITY_SIGNED|CU_ATOMIC_CAPABILITY_SCALAR_32");
	assert_string_equal(json_string_value(json_array_get(k, 1)), "0x0");
	assert_string_equal(json_string_value(json_array_get(k, 2)), "0x100");
	assert_int_equal(INT(a, "src_dev"), 0);
	assert_int_equal(INT(a, "dst_dev"), 1);
	json_decref(j);
	c.ret = CUDA_ERROR_INVALID_DEVICE;
	j = encode(&c);
	assert_null(json_object_get(json_object_get(j, "args"), "capabilities"));
	json_decref(j);
}

static void every_row_encodes(void **state)
{
	(void)state;
	/* With all arguments zero and a failing result, every row must still
	 * produce valid JSON naming its api and variant. */
	for (int id = 0; id < PW_CUDA_NFUNCS; id++) {
		struct pw_call c = call_of(id, CUDA_ERROR_INVALID_VALUE);
		CUipcMemHandle h = {{0}};
		for (int i = 0; i < c.fn->nargs; i++)
			if (c.fn->args[i].kind == PW_K_IPCMEM || c.fn->args[i].kind == PW_K_IPCEVT)
				c.a[i] = (uintptr_t)&h;
		json_t *j = encode(&c);
		assert_string_equal(STR(j, "api"), c.fn->api);
		char sym[128];
		snprintf(sym, sizeof sym, "%s%s", STR(j, "api"), STR(j, "variant"));
		assert_string_equal(sym, c.fn->symbol);
		json_decref(j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(peer_copy),
	    cmocka_unit_test(unknown_device_is_null),
	    cmocka_unit_test(ipc_open),
	    cmocka_unit_test(outputs_omitted_on_failure),
	    cmocka_unit_test(managed_enums_and_location),
	    cmocka_unit_test(range_attributes),
	    cmocka_unit_test(copy3d),
	    cmocka_unit_test(p2p_atomic_capabilities),
	    cmocka_unit_test(every_row_encodes),
	};
	return cmocka_run_group_tests_name("encode", tests, NULL, NULL);
}

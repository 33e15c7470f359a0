/*
 * The HIP module's version-dependent decoding, with no runtime: hipMemoryType
 * (renumbered in ROCm 6.0), the IPC lazy flag and its skew note,
 * hipError_t names, the descriptors generated from hip_table.h, what
 * hipDeviceReset does to the peer state, and the pools a process imported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "vendors/hip/hip.h"
#include "core/vendor.h"
#include "rules/rules.h"
#include "state/state.h"

static void memory_type_by_version(void **state)
{
	(void)state;
	/* 5.x: Host 0, Device 1, Array 2, Unified 3, Managed 4 */
	assert_int_equal(pw_hip_memtype_is_device(0, 5), 0);
	assert_int_equal(pw_hip_memtype_is_device(1, 5), 1);
	assert_int_equal(pw_hip_memtype_is_device(4, 5), 1);
	assert_true(pw_hip_memtype_is_managed(4, 5));
	assert_false(pw_hip_memtype_is_managed(3, 5));
	/* 6.x: Unregistered 0, Host 1, Device 2, Managed 3, Array 10, Unified 11 */
	assert_int_equal(pw_hip_memtype_is_device(0, 6), 0);
	assert_int_equal(pw_hip_memtype_is_device(1, 6), 0); /* a 5.x reading would say device */
	assert_int_equal(pw_hip_memtype_is_device(2, 6), 1);
	assert_int_equal(pw_hip_memtype_is_device(10, 7), 1);
	assert_int_equal(pw_hip_memtype_is_device(4, 6), -1);
	assert_true(pw_hip_memtype_is_managed(3, 6));
	assert_false(pw_hip_memtype_is_managed(4, 6));
	/* an unknown version decodes nothing */
	assert_int_equal(pw_hip_memtype_is_device(1, 0), -1);
}

static void lazy_flag_and_skew(void **state)
{
	(void)state;
	assert_int_equal(pw_hip_ipc_lazy_flag(50221153), 0);
	assert_int_equal(pw_hip_ipc_lazy_flag(60243483), 1);
	assert_int_equal(pw_hip_ipc_lazy_flag(70100000), 1);
	assert_non_null(pw_hip_flags_note(0, 60243483));
	assert_non_null(strstr(pw_hip_flags_note(0, 60243483), "version skew"));
	assert_non_null(pw_hip_flags_note(1, 50221153));
	assert_null(pw_hip_flags_note(1, 60243483));
	assert_null(pw_hip_flags_note(0, 50221153));
	assert_null(pw_hip_flags_note(2, 60243483)); /* wrong everywhere: no skew to explain */
	assert_null(pw_hip_flags_note(0, 0));
}

static void ipc_flags_rule_with_note(void **state)
{
	(void)state;
	struct pw_state st;
	pw_state_reset(&st);
	struct pw_op op;
	memset(&op, 0, sizeof op);
	op.kind = PW_OP_IPC_OPEN;
	op.vendor = PW_VENDOR_HIP;
	op.api = "hipIpcOpenMemHandle";
	op.flags = 0;
	op.ipc_lazy_flag = pw_hip_ipc_lazy_flag(60243483);
	op.flags_note = pw_hip_flags_note(op.flags, 60243483);
	char msg[640] = "";
	assert_true(pw_rules[PW_RULE_IPC_OPEN_FLAGS].check(&st, &op, msg, sizeof msg));
	assert_non_null(strstr(msg, "version skew"));
	op.ipc_lazy_flag = pw_hip_ipc_lazy_flag(50221153);
	op.flags_note = pw_hip_flags_note(op.flags, 50221153);
	assert_false(pw_rules[PW_RULE_IPC_OPEN_FLAGS].check(&st, &op, msg, sizeof msg));
}

static void error_names(void **state)
{
	(void)state;
	assert_string_equal(pw_hip_error_name(0), "hipSuccess");
	assert_string_equal(pw_hip_error_name(101), "hipErrorInvalidDevice");
	assert_string_equal(pw_hip_error_name(704), "hipErrorPeerAccessAlreadyEnabled");
	assert_string_equal(pw_hip_error_name(705), "hipErrorPeerAccessNotEnabled");
	assert_string_equal(pw_hip_error_name(201), "hipErrorInvalidContext");
}

static void descriptors(void **state)
{
	(void)state;
	const struct pw_fn_desc *d = &pw_hip_desc[PW_HIP_ID(hipMemcpyPeerAsync)];
	assert_string_equal(d->symbol, "hipMemcpyPeerAsync");
	assert_int_equal(d->lib->vendor, PW_VENDOR_HIP);
	assert_int_equal(d->family, PW_FAM_COPY);
	assert_int_equal(d->nargs, 6);
	assert_string_equal(d->args[1].name, "dst_device");
	d = &pw_hip_desc[PW_HIP_ID(hipMemAdvise_v2)];
	assert_string_equal(d->api, "hipMemAdvise");
	assert_string_equal(d->variant, "_v2");
	assert_int_equal(d->args[3].kind, PW_K_LOC);
	d = &pw_hip_desc[PW_HIP_ID(hipDeviceReset)];
	assert_int_equal(d->nargs, 0);
	assert_true(d->flags & PW_CUR_DEV);
	d = &pw_hip_desc[PW_HIP_ID(hipDeviceGetAttribute)];
	assert_int_equal(d->op, PW_OP_DEVICE_ATTR);
	assert_int_equal(d->nargs, 3);
	/* the last-error getters: no argument, the get form resets the error */
	d = &pw_hip_desc[PW_HIP_ID(hipGetLastError)];
	assert_int_equal(d->op, PW_OP_LAST_ERROR);
	assert_int_equal(d->nargs, 0);
	assert_true(d->flags & PW_ERR_RESET);
	d = &pw_hip_desc[PW_HIP_ID(hipPeekAtLastError)];
	assert_int_equal(d->op, PW_OP_LAST_ERROR);
	assert_false(d->flags & PW_ERR_RESET);
	assert_true(pw_hip_vendor.last_error);
	/* the pool calls: HIP's flags are an unsigned int, the fd an OS handle */
	d = &pw_hip_desc[PW_HIP_ID(hipMemPoolExportToShareableHandle)];
	assert_int_equal(d->op, PW_OP_POOL_EXPORT);
	assert_int_equal(d->args[0].kind, PW_K_OUT_SHAREABLE);
	assert_int_equal(d->args[2].kind, PW_K_HTYPE);
	assert_int_equal(d->args[3].kind, PW_K_UINT);
	d = &pw_hip_desc[PW_HIP_ID(hipMallocFromPoolAsync)];
	assert_int_equal(d->op, PW_OP_POOL_ALLOC);
	assert_true(d->flags & PW_RANGE_NOTE);
	assert_int_equal(d->args[2].kind, PW_K_POOL);
	/* virtual memory: CUDA's ops and kinds, HIP's types */
	d = &pw_hip_desc[PW_HIP_ID(hipMemImportFromShareableHandle)];
	assert_int_equal(d->op, PW_OP_VMM_IMPORT);
	assert_int_equal(d->nargs, 3);
	assert_int_equal(d->args[1].kind, PW_K_SHAREABLE);
	d = &pw_hip_desc[PW_HIP_ID(hipMemSetAccess)];
	assert_int_equal(d->op, PW_OP_VMM_SET_ACCESS);
	assert_int_equal(d->args[2].kind, PW_K_ACCESS);
	/* ROCm 7.1's copies between devices: CUDA's kinds, HIP's structs */
	d = &pw_hip_desc[PW_HIP_ID(hipMemcpy3DPeerAsync)];
	assert_int_equal(d->op, PW_OP_PEER_COPY);
	assert_int_equal(d->args[0].kind, PW_K_COPY3D);
	assert_true(d->wide);
	d = &pw_hip_desc[PW_HIP_ID(hipMemcpyBatchAsync)];
	assert_int_equal(d->op, PW_OP_IMPLICIT_COPY);
	assert_true(d->flags & PW_IMPLICIT);
	assert_int_equal(d->nargs, 9);
	assert_int_equal(d->args[0].kind, PW_K_BATCH);
	d = &pw_hip_desc[PW_HIP_ID(hipMemcpy3DBatchAsync)];
	assert_int_equal(d->op, PW_OP_IMPLICIT_COPY);
	assert_true(d->flags & PW_IMPLICIT);
	assert_int_equal(d->nargs, 5);
	assert_int_equal(d->args[1].kind, PW_K_BATCH3D);
	assert_int_equal(d->args[3].kind, PW_K_ULL);
	/* the layout the BATCH3D decoding shares with CUDA's operation */
	assert_int_equal(sizeof(hipMemcpy3DBatchOp), 112);
	assert_int_equal(offsetof(hipMemcpy3DBatchOp, extent), 80);
	d = &pw_hip_desc[PW_HIP_ID(hipMemPrefetchBatchAsync)];
	assert_int_equal(d->op, PW_OP_PREFETCH_BATCH);
	assert_int_equal(d->args[0].kind, PW_K_PBATCH);
	assert_int_equal(d->args[6].kind, PW_K_ULL);
	d = &pw_hip_desc[PW_HIP_ID(hipMemcpy2DAsync)];
	assert_true(d->flags & PW_IMPLICIT);
	assert_int_equal(d->args[2].kind, PW_K_PTR);
	assert_int_equal(pw_hip_desc[PW_HIP_ID(hipMemcpy3D)].args[0].kind, PW_K_COPY3DL);
	/* the per-thread default stream forms: their plain form's row, their own symbol */
	d = &pw_hip_desc[PW_HIP_ID(hipMemcpy2DAsync_spt)];
	assert_string_equal(d->symbol, "hipMemcpy2DAsync_spt");
	assert_string_equal(d->api, "hipMemcpy2DAsync");
	assert_string_equal(d->variant, "_spt");
	assert_true(d->flags & PW_IMPLICIT);
	assert_int_equal(d->nargs, pw_hip_desc[PW_HIP_ID(hipMemcpy2DAsync)].nargs);
	assert_int_equal(d->args[7].kind, PW_K_STREAM);
	assert_int_equal(pw_hip_desc[PW_HIP_ID(hipMemcpy3D_spt)].args[0].kind, PW_K_COPY3DL);
	assert_int_equal(PW_HIP_NFUNCS, 63);
}

static struct pw_call call_of(int id, int ret);

/* hipMemcpy3DPeer as the rules see it: each side's pointer and the device
 * the struct names for it, the box's bytes; an array side is no NULL. */
static void copy3d_peer_op(void **state)
{
	(void)state;
	char a[64], b[64];
	hipMemcpy3DPeerParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = (hipPitchedPtr){a, 64, 64, 1};
	p.srcDevice = 0;
	p.dstPtr = (hipPitchedPtr){b, 64, 64, 1};
	p.dstDevice = 1;
	p.extent = (hipExtent){16, 2, 3};
	struct pw_call c = call_of(PW_HIP_ID(hipMemcpy3DPeer), hipSuccess);
	c.a[0] = (uint64_t)(uintptr_t)&p;
	c.dev[0] = 0;
	c.dev[PW_DEV_COPY3D_DST] = 0;
	struct pw_op op;
	assert_true(pw_hip_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_PEER_COPY);
	assert_int_equal(op.src.ptr, (uintptr_t)a);
	assert_int_equal(op.dst.ptr, (uintptr_t)b);
	assert_int_equal(op.src.named_dev, 0);
	assert_int_equal(op.dst.named_dev, 1);
	assert_int_equal(op.dst.dev, 0);
	assert_int_equal(op.bytes, 16 * 2 * 3);
	p.dstArray = (hipArray_t)(uintptr_t)0x40;
	assert_true(pw_hip_op_before(&c, &op));
	assert_int_equal(op.dst.ptr, 0x40);
}

static struct pw_call call_of(int id, int ret)
{
	struct pw_call c;
	memset(&c, 0, sizeof c);
	c.fn = &pw_hip_desc[id];
	c.ret = ret;
	return c;
}

/* "Imported memory pools do not support creating new allocations": the
 * translation knows a pool imported, until it is destroyed, and only one
 * whose import succeeded. */
static void pool_imported_until_destroyed(void **state)
{
	(void)state;
	struct pw_op op;
	hipMemPool_t pool = (hipMemPool_t)(uintptr_t)0x5150, other = (hipMemPool_t)(uintptr_t)0x6160;
	char msg[640];
	struct pw_state st;
	pw_state_reset(&st);

	struct pw_call alloc = call_of(PW_HIP_ID(hipMallocFromPoolAsync), hipSuccess);
	alloc.a[1] = 4096;
	alloc.a[2] = (uint64_t)(uintptr_t)pool;
	assert_true(pw_hip_op_before(&alloc, &op));
	assert_false(op.pool_imported);
	assert_false(pw_rules[PW_RULE_POOL_IMPORTED_ALLOC].check(&st, &op, msg, sizeof msg));

	/* a failed import leaves nothing; a good one marks the pool written */
	struct pw_call imp = call_of(PW_HIP_ID(hipMemPoolImportFromShareableHandle), hipErrorInvalidValue);
	imp.a[0] = (uint64_t)(uintptr_t)&pool;
	imp.a[1] = 7;
	imp.a[2] = hipMemHandleTypePosixFileDescriptor;
	assert_true(pw_hip_op_before(&imp, &op));
	assert_int_equal(op.handle_type, hipMemHandleTypePosixFileDescriptor);
	pw_hip_op_after(&imp, &op);
	assert_true(pw_hip_op_before(&alloc, &op));
	assert_false(op.pool_imported);
	imp.ret = hipSuccess;
	assert_true(pw_hip_op_before(&imp, &op));
	pw_hip_op_after(&imp, &op);
	assert_true(pw_hip_op_before(&alloc, &op));
	assert_true(op.pool_imported);
	assert_true(pw_rules[PW_RULE_POOL_IMPORTED_ALLOC].check(&st, &op, msg, sizeof msg));
	assert_non_null(strstr(msg, "0x5150"));
	alloc.a[2] = (uint64_t)(uintptr_t)other;
	assert_true(pw_hip_op_before(&alloc, &op));
	assert_false(op.pool_imported);

	/* destroyed: the address may come back as a pool of this process */
	struct pw_call des = call_of(PW_HIP_ID(hipMemPoolDestroy), hipSuccess);
	des.a[0] = (uint64_t)(uintptr_t)pool;
	assert_true(pw_hip_op_before(&des, &op));
	pw_hip_op_after(&des, &op);
	alloc.a[2] = (uint64_t)(uintptr_t)pool;
	assert_true(pw_hip_op_before(&alloc, &op));
	assert_false(op.pool_imported);
}

/* "flags Must be 0", on the export and the import */
static void pool_flags(void **state)
{
	(void)state;
	struct pw_op op;
	char msg[640];
	struct pw_state st;
	pw_state_reset(&st);
	struct pw_call exp = call_of(PW_HIP_ID(hipMemPoolExportToShareableHandle), hipSuccess);
	exp.a[2] = hipMemHandleTypePosixFileDescriptor;
	assert_true(pw_hip_op_before(&exp, &op));
	assert_false(pw_rules[PW_RULE_POOL_FLAGS].check(&st, &op, msg, sizeof msg));
	exp.a[3] = 2;
	assert_true(pw_hip_op_before(&exp, &op));
	assert_true(pw_rules[PW_RULE_POOL_FLAGS].check(&st, &op, msg, sizeof msg));
	assert_non_null(strstr(msg, "0x2"));
	assert_non_null(strstr(msg, "export"));
	struct pw_call imp = call_of(PW_HIP_ID(hipMemPoolImportFromShareableHandle), hipSuccess);
	imp.a[3] = 1;
	assert_true(pw_hip_op_before(&imp, &op));
	assert_true(pw_rules[PW_RULE_POOL_FLAGS].check(&st, &op, msg, sizeof msg));
	assert_non_null(strstr(msg, "import"));
}

static void device_reset_drops_peer_access(void **state)
{
	(void)state;
	struct pw_state st;
	pw_state_reset(&st);
	struct pw_op op;
	memset(&op, 0, sizeof op);
	op.vendor = PW_VENDOR_HIP;
	op.kind = PW_OP_PEER_ENABLE;
	op.cur_dev = 0;
	op.peer_dev = 1;
	pw_state_update(&st, &op, 0, false);
	op.cur_dev = 1;
	op.peer_dev = 0;
	pw_state_update(&st, &op, 0, false);
	op.cur_dev = 2;
	op.peer_dev = 1;
	pw_state_update(&st, &op, 0, false);
	assert_true(pw_peer_on(&st, 0, 1) && pw_peer_on(&st, 1, 0) && pw_peer_on(&st, 2, 1));
	op.kind = PW_OP_DEVICE_RESET;
	op.cur_dev = 0;
	pw_state_update(&st, &op, 101, false); /* a failed reset changes nothing */
	assert_true(pw_peer_on(&st, 0, 1));
	pw_state_update(&st, &op, 0, false);
	assert_false(pw_peer_on(&st, 0, 1));
	assert_false(pw_peer_on(&st, 1, 0));
	assert_true(pw_peer_on(&st, 2, 1)); /* other pairs keep theirs */
	/* enabling again after the reset is no second enable */
	op.kind = PW_OP_PEER_ENABLE;
	op.peer_dev = 1;
	char msg[640];
	assert_false(pw_rules[PW_RULE_PEER_ENABLE_TWICE].check(&st, &op, msg, sizeof msg));
}

static void coarse_grain_is_advice(void **state)
{
	(void)state;
	struct pw_state st;
	pw_state_reset(&st);
	struct pw_op op;
	memset(&op, 0, sizeof op);
	op.kind = PW_OP_ADVISE;
	op.vendor = PW_VENDOR_HIP;
	op.api = "hipMemAdvise";
	op.advice = hipMemAdviseSetCoarseGrain;
	op.loc_valid = true;
	op.loc_dev = 0;
	op.ndev = 2;
	char msg[640];
	assert_false(pw_rules[PW_RULE_MANAGED_ADVISE_INVALID].check(&st, &op, msg, sizeof msg));
	op.vendor = PW_VENDOR_CUDA; /* CUDA has no advice 100 */
	assert_true(pw_rules[PW_RULE_MANAGED_ADVISE_INVALID].check(&st, &op, msg, sizeof msg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(memory_type_by_version),
	    cmocka_unit_test(lazy_flag_and_skew),
	    cmocka_unit_test(ipc_flags_rule_with_note),
	    cmocka_unit_test(error_names),
	    cmocka_unit_test(descriptors),
	    cmocka_unit_test(copy3d_peer_op),
	    cmocka_unit_test(device_reset_drops_peer_access),
	    cmocka_unit_test(coarse_grain_is_advice),
	    cmocka_unit_test(pool_imported_until_destroyed),
	    cmocka_unit_test(pool_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Every rule, as the pure function it is: a case that breaks the contract
 * (the rule fires, and says so in words that name the values) and one that
 * comes close without breaking it (the rule stays quiet).  No runtime.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "rules/rules.h"
#include "state/state.h"

static struct pw_state st;

static int setup(void **state)
{
	(void)state;
	pw_state_reset(&st);
	return 0;
}

static struct pw_op op_of(enum pw_op_kind kind, const char *api)
{
	struct pw_op op;
	memset(&op, 0, sizeof op);
	op.kind = kind;
	op.vendor = PW_VENDOR_CUDA;
	op.api = api;
	op.cur_dev = 0;
	op.peer_dev = 1;
	op.can_access = 1;
	op.ndev = 2;
	op.loc_dev = PW_LOC_NONE;
	op.loc_valid = true;
	op.pageable = -1;
	op.pageable_dev = PW_NO_DEV;
	op.copy_kind = -1;
	op.dst.dev = op.src.dev = op.dst.named_dev = op.src.named_dev = PW_NO_DEV;
	op.dst.p2p = op.src.p2p = -1;
	op.ipc_lazy_flag = 1;
	op.flags = 0;
	op.self_pid = 100;
	return op;
}

/* The rule fires, and its message holds every expected fragment. */
static void fires(int rule, const struct pw_op *op, const char *frag1, const char *frag2)
{
	char msg[640] = "";
	if (!pw_rules[rule].check(&st, op, msg, sizeof msg))
		fail_msg("%s did not fire", pw_rules[rule].id);
	if (frag1 && !strstr(msg, frag1))
		fail_msg("%s: '%s' lacks '%s'", pw_rules[rule].id, msg, frag1);
	if (frag2 && !strstr(msg, frag2))
		fail_msg("%s: '%s' lacks '%s'", pw_rules[rule].id, msg, frag2);
}

static void quiet(int rule, const struct pw_op *op)
{
	char msg[640] = "";
	if (pw_rules[rule].check(&st, op, msg, sizeof msg))
		fail_msg("%s fired on a correct call: %s", pw_rules[rule].id, msg);
}

static void enable(int from, int to)
{
	struct pw_op op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	op.cur_dev = from;
	op.peer_dev = to;
	pw_state_update(&st, &op, 0, false);
}

static void peer_enable(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	quiet(PW_RULE_PEER_ENABLE_SELF, &op);
	op.peer_dev = 0;
	fires(PW_RULE_PEER_ENABLE_SELF, &op, "device 0", "itself");

	op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	quiet(PW_RULE_PEER_ENABLE_FLAGS, &op);
	op.flags = 1;
	fires(PW_RULE_PEER_ENABLE_FLAGS, &op, "0x1", "must be 0");

	op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	quiet(PW_RULE_PEER_ENABLE_UNSUPPORTED, &op);
	op.can_access = -1; /* unknown: no guess */
	quiet(PW_RULE_PEER_ENABLE_UNSUPPORTED, &op);
	op.can_access = 0;
	fires(PW_RULE_PEER_ENABLE_UNSUPPORTED, &op, "device 0 cannot access device 1", NULL);

	op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	quiet(PW_RULE_PEER_ENABLE_TWICE, &op);
	enable(1, 0); /* the other direction does not count */
	quiet(PW_RULE_PEER_ENABLE_TWICE, &op);
	enable(0, 1);
	fires(PW_RULE_PEER_ENABLE_TWICE, &op, "already enabled", "last error");
	op.flags = 1; /* fails on its flags first: not "twice" */
	quiet(PW_RULE_PEER_ENABLE_TWICE, &op);
	fires(PW_RULE_PEER_ENABLE_FLAGS, &op, "flags 0x1", NULL);
}

static void peer_unqueried(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	fires(PW_RULE_PEER_ENABLE_UNQUERIED, &op, "without asking", NULL);
	struct pw_op q = op_of(PW_OP_CAN_ACCESS, "cuDeviceCanAccessPeer");
	q.cur_dev = 1;
	q.peer_dev = 0; /* the wrong direction */
	pw_state_update(&st, &q, 0, false);
	fires(PW_RULE_PEER_ENABLE_UNQUERIED, &op, NULL, NULL);
	q.cur_dev = 0;
	q.peer_dev = 1;
	pw_state_update(&st, &q, 1, false); /* a failed query is no answer */
	fires(PW_RULE_PEER_ENABLE_UNQUERIED, &op, NULL, NULL);
	pw_state_update(&st, &q, 0, false);
	quiet(PW_RULE_PEER_ENABLE_UNQUERIED, &op);
}

static void peer_disable_and_limit(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_DISABLE, "cuCtxDisablePeerAccess");
	fires(PW_RULE_PEER_DISABLE_NOT_ENABLED, &op, "device 0 to device 1", "not enabled");
	enable(0, 1);
	quiet(PW_RULE_PEER_DISABLE_NOT_ENABLED, &op);
	pw_state_update(&st, &op, 0, false);
	fires(PW_RULE_PEER_DISABLE_NOT_ENABLED, &op, NULL, NULL);

	/* device 0 reaches devices 1..7 and device 8 reaches device 0: 8 peers. */
	pw_state_reset(&st);
	for (int d = 1; d <= 7; d++)
		enable(0, d);
	enable(8, 0);
	op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	op.peer_dev = 8; /* 0 -> 8: already a peer of 0 (8 -> 0): still 8 */
	quiet(PW_RULE_PEER_LIMIT, &op);
	op.peer_dev = 9;
	fires(PW_RULE_PEER_LIMIT, &op, "9 peers", "at most 8");
}

static struct pw_op copy_op(void)
{
	struct pw_op op = op_of(PW_OP_PEER_COPY, "cuMemcpyPeer");
	op.bytes = 4096;
	op.dst = (struct pw_mem){.ptr = 0x20000,
	                         .dev = 1,
	                         .named_dev = 1,
	                         .known = true,
	                         .base = 0x20000,
	                         .size = 8192,
	                         .p2p = -1};
	op.src = (struct pw_mem){.ptr = 0x10000,
	                         .dev = 0,
	                         .named_dev = 0,
	                         .known = true,
	                         .base = 0x10000,
	                         .size = 8192,
	                         .p2p = -1};
	return op;
}

static void copies(void **state)
{
	(void)state;
	struct pw_op op = copy_op();
	quiet(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &op);
	op.dst.named_dev = 0;
	fires(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &op, "destination 0x20000 lives on device 1",
	      "names device 0");
	op.ndev = 3;
	/* an IPC mapping opened on device 1 of memory on device 0: the driver
	 * reports device 1 for it and accepts either; a third is a mismatch */
	op.dst.mapped = true;
	op.dst.map_dev = 1;
	op.dst.home_dev = 0;
	quiet(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &op);
	op.dst.named_dev = 1;
	quiet(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &op);
	op.dst.named_dev = 2;
	fires(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &op,
	      "destination 0x20000 is an IPC mapping opened on device 1 of memory on device 0",
	      "names device 2");
	op.dst.home_dev = PW_NO_DEV; /* the exporter's device unknown: the importer's only */
	op.dst.named_dev = 0;
	fires(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &op, "destination 0x20000 lives on device 1",
	      "names device 0");

	op = copy_op();
	op.bytes = 8192;
	quiet(PW_RULE_COPY_PEER_OUT_OF_BOUNDS, &op); /* exactly to the end */
	op.src.ptr = 0x10100;
	fires(PW_RULE_COPY_PEER_OUT_OF_BOUNDS, &op, "source 0x10100", "256 bytes past its end");

	op = copy_op();
	quiet(PW_RULE_COPY_PEER_NULL, &op);
	op.dst.ptr = 0;
	fires(PW_RULE_COPY_PEER_NULL, &op, "to a NULL pointer", NULL);
	op.bytes = 0;
	quiet(PW_RULE_COPY_PEER_NULL, &op);

	op = copy_op();
	fires(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op, "from device 0 to device 1", "staged through host");
	enable(1, 0);
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op);
	op.dst.dev = op.dst.named_dev = 0; /* within one device */
	pw_state_reset(&st);
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op);
}

static void acl_copies(void **state)
{
	(void)state;
	struct pw_op op = copy_op();
	op.vendor = PW_VENDOR_ACL;
	op.api = "aclrtMemcpy";
	op.src.p2p = 1;
	op.dst.p2p = 1;
	quiet(PW_RULE_COPY_ACL_P2P_POLICY, &op);
	op.dst.p2p = 0;
	fires(PW_RULE_COPY_ACL_P2P_POLICY, &op, "destination 0x20000", "P2P policy");

	enable(0, 1);
	enable(1, 0);
	quiet(PW_RULE_PEER_ENABLE_ONE_DIRECTION, &op);
	pw_state_reset(&st);
	enable(1, 0);
	fires(PW_RULE_PEER_ENABLE_ONE_DIRECTION, &op, "only from device 1 to device 0", NULL);

	/* ACL: neither direction is as wrong as one (no staged fallback) */
	pw_state_reset(&st);
	fires(PW_RULE_PEER_ENABLE_ONE_DIRECTION, &op, "neither direction", NULL);
	op.vendor = PW_VENDOR_CUDA;
	quiet(PW_RULE_PEER_ENABLE_ONE_DIRECTION, &op);
	op.vendor = PW_VENDOR_ACL;

	/* a device reset drops every peer access from and to the device */
	enable(0, 1);
	enable(1, 0);
	enable(2, 0);
	struct pw_op reset = {.kind = PW_OP_DEVICE_RESET, .vendor = PW_VENDOR_ACL, .cur_dev = 1};
	pw_state_update(&st, &reset, 0, false);
	assert_false(pw_peer_on(&st, 0, 1));
	assert_false(pw_peer_on(&st, 1, 0));
	assert_true(pw_peer_on(&st, 2, 0));
	pw_state_reset(&st);
}

/* Peer access per pair of contexts: primary contexts by device, made ones
 * by handle (state.h); what the driver does for a second context, a reset
 * and a destroy. */
#define MADE0 0x7000 /* a second context of device 0 */
#define MADE1 0x7100 /* one of device 1 */

static void ctx_enable(uint64_t ctx, int from, uint64_t peer_ctx, int to)
{
	struct pw_op op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	op.ctx = ctx;
	op.cur_dev = from;
	op.peer_ctx = peer_ctx;
	op.peer_dev = to;
	pw_state_update(&st, &op, 0, false);
}

static void peer_per_context(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	/* no context made: primary contexts are their devices, one bit test */
	assert_false(atomic_load(&st.ctx_used));
	ctx_enable(0x10, 0, 0x20, 1); /* the handles of primary contexts */
	assert_true(pw_peer_on(&st, 0, 1));
	fires(PW_RULE_PEER_ENABLE_TWICE, &op, "from device 0 to device 1", NULL);

	/* a second context of device 0 enables anew, and then has it */
	pw_state_ctx_made(&st, MADE0, 0);
	op.ctx = MADE0;
	quiet(PW_RULE_PEER_ENABLE_TWICE, &op);
	struct pw_op dis = op_of(PW_OP_PEER_DISABLE, "cuCtxDisablePeerAccess");
	dis.ctx = MADE0;
	fires(PW_RULE_PEER_DISABLE_NOT_ENABLED, &dis, "from context 0x7000 (device 0)", "not enabled");
	ctx_enable(MADE0, 0, 0, 1);
	fires(PW_RULE_PEER_ENABLE_TWICE, &op, "from context 0x7000 (device 0)", "already enabled");
	quiet(PW_RULE_PEER_DISABLE_NOT_ENABLED, &dis);
	op.ctx = 0x10; /* the primary context's own is still there */
	fires(PW_RULE_PEER_ENABLE_TWICE, &op, "from device 0 to device 1", NULL);

	/* made contexts both ways, and access to a made context */
	pw_state_ctx_made(&st, MADE1, 1);
	ctx_enable(MADE1, 1, MADE0, 0);
	ctx_enable(0x20, 1, MADE0, 0);
	struct pw_ctx_ref m0 = pw_ctx_ref(&st, MADE0, 0), m1 = pw_ctx_ref(&st, MADE1, 1),
	                  p0 = pw_ctx_ref(&st, 0, 0), p1 = pw_ctx_ref(&st, 0x20, 1);
	assert_true(m0.slot >= 0 && m1.slot >= 0 && p0.slot == PW_CTX_PRIMARY && p1.slot == PW_CTX_PRIMARY);
	assert_true(pw_ctx_on(&st, m1, m0) && pw_ctx_on(&st, p1, m0) && pw_ctx_on(&st, m0, p1));
	assert_false(pw_ctx_on(&st, m0, m1));
	assert_true(pw_state_dev_peers(&st, 0) == 2 && pw_state_dev_peers(&st, 1) == 1);

	/* destroyed: its access both ways is gone, and a call naming it is told */
	pw_state_ctx_destroyed(&st, MADE0, 0);
	assert_true(pw_state_ctx_gone(&st, MADE0));
	assert_int_equal(pw_ctx_ref(&st, MADE0, PW_NO_DEV).slot, PW_CTX_DESTROYED);
	assert_false(pw_ctx_on(&st, m1, m0) || pw_ctx_on(&st, p1, m0));
	struct pw_op inv = op_of(PW_OP_PEER_ENABLE, "cuCtxEnablePeerAccess");
	inv.ctx = MADE1;
	inv.cur_dev = 1;
	inv.peer_ctx = MADE0;
	inv.peer_dev = PW_NO_DEV; /* the driver is never asked about it */
	fires(PW_RULE_PEER_CONTEXT_INVALID, &inv, "peer context 0x7000", "cuCtxDestroy destroyed");
	quiet(PW_RULE_PEER_ENABLE_TWICE, &inv);
	/* a new context at its address starts with nothing */
	pw_state_ctx_made(&st, MADE0, 0);
	assert_false(pw_state_ctx_gone(&st, MADE0));
	inv.peer_dev = 0;
	quiet(PW_RULE_PEER_CONTEXT_INVALID, &inv);
	op.ctx = MADE0;
	quiet(PW_RULE_PEER_ENABLE_TWICE, &op);
	/* a primary context retained at a destroyed one's address is none */
	pw_state_ctx_destroyed(&st, MADE0, 0);
	pw_state_ctx_primary(&st, MADE0);
	assert_false(pw_state_ctx_gone(&st, MADE0));

	/* no current context */
	inv = op_of(PW_OP_PEER_DISABLE, "cuCtxDisablePeerAccess");
	inv.cur_dev = PW_NO_DEV;
	quiet(PW_RULE_PEER_CONTEXT_INVALID, &inv);
	inv.no_ctx = true;
	fires(PW_RULE_PEER_CONTEXT_INVALID, &inv, "with no current context", NULL);
	quiet(PW_RULE_PEER_DISABLE_NOT_ENABLED, &inv);

	/* a primary context's reset: its access, and others' to it, are gone */
	ctx_enable(MADE1, 1, 0, 0);
	op.ctx = 0x10;
	fires(PW_RULE_PEER_ENABLE_TWICE, &op, NULL, NULL);
	pw_state_primary_reset(&st, 0);
	quiet(PW_RULE_PEER_ENABLE_TWICE, &op);
	assert_false(pw_ctx_on(&st, pw_ctx_ref(&st, MADE1, 1), pw_ctx_ref(&st, 0, 0)));
	/* the runtime's reset (DEVICE_RESET) with a made context current resets nothing */
	ctx_enable(0x10, 0, 0x20, 1);
	struct pw_op reset = op_of(PW_OP_DEVICE_RESET, "cudaDeviceReset");
	reset.ctx = MADE1;
	reset.cur_dev = 1;
	pw_state_update(&st, &reset, 0, false);
	assert_true(pw_peer_on(&st, 0, 1));
	reset.ctx = 0x20;
	pw_state_update(&st, &reset, 0, false);
	assert_false(pw_peer_on(&st, 0, 1));

	/* a fork starts with no context */
	pw_state_reset(&st);
	assert_false(atomic_load(&st.ctx_used));
	assert_int_equal(pw_ctx_ref(&st, MADE1, 1).slot, PW_CTX_PRIMARY);
}

/* The copy rules per pair of contexts, and the context and pointer breaks. */
static void copies_per_context(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_COPY, "cuMemcpyPeer");
	op.bytes = 4096;
	op.src = (struct pw_mem){.ptr = 0x10000, .dev = 0, .named_dev = 0, .ctx = 0x10, .p2p = -1};
	op.dst = (struct pw_mem){.ptr = 0x20000, .dev = 1, .named_dev = 1, .ctx = 0x20, .p2p = -1};
	fires(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op, "from device 0 to device 1", "peer access between them");
	ctx_enable(0x20, 1, 0x10, 0);
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op);
	/* a second context of device 0 named for the source: that pair has none */
	pw_state_ctx_made(&st, MADE0, 0);
	op.src.ctx = MADE0;
	fires(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op, "the contexts it names (0x7000, 0x20)", NULL);
	ctx_enable(MADE0, 0, 0x20, 1);
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op);
	quiet(PW_RULE_COPY_PEER_CONTEXT_DESTROYED, &op);
	/* destroyed: the driver is not asked its device (PW_NO_DEV) */
	pw_state_ctx_destroyed(&st, MADE0, 0);
	op.src.named_dev = PW_NO_DEV;
	fires(PW_RULE_COPY_PEER_CONTEXT_DESTROYED, &op, "source context 0x7000", "cuCtxDestroy destroyed");
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op);
	/* the implicit copy names no context: any context of each device */
	op.kind = PW_OP_IMPLICIT_COPY;
	op.src.ctx = op.dst.ctx = 0;
	pw_state_primary_reset(&st, 1);
	fires(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op, NULL, NULL);
	pw_state_ctx_made(&st, MADE1, 1);
	ctx_enable(MADE1, 1, 0x10, 0);
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &op);

	/* host memory the driver does not know, and freed memory */
	op = op_of(PW_OP_PEER_COPY, "cuMemcpyPeer");
	op.bytes = 4096;
	op.src = (struct pw_mem){.ptr = 0x10000, .dev = 0, .named_dev = 0, .p2p = -1};
	op.dst = (struct pw_mem){.ptr = 0x5000, .dev = PW_NO_DEV, .named_dev = 1, .p2p = -1};
	quiet(PW_RULE_COPY_PEER_HOST, &op);
	op.dst.plain_host = true;
	fires(PW_RULE_COPY_PEER_HOST, &op, "to host memory 0x5000", "no CUDA allocation");
	op.bytes = 0;
	quiet(PW_RULE_COPY_PEER_HOST, &op);
	op.bytes = 4096;
	op.dst.plain_host = false;
	quiet(PW_RULE_COPY_PEER_FREED, &op);
	op.src.freed = true;
	fires(PW_RULE_COPY_PEER_FREED, &op, "from 0x10000", "already freed");
}

static unsigned char handle_a[64] = {1, 2, 3}, handle_b[64] = {9, 9, 9}, handle_c[64] = {7, 7};

static void ipc_export(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_IPC_EXPORT, "cuIpcGetMemHandle");
	op.dst = (struct pw_mem){.ptr = 0x10000, .dev = 0, .known = true, .base = 0x10000, .size = 1 << 20};
	quiet(PW_RULE_IPC_EXPORT_INTERIOR_POINTER, &op);
	quiet(PW_RULE_IPC_EXPORT_MANAGED, &op);
	op.dst.ptr = 0x10100;
	fires(PW_RULE_IPC_EXPORT_INTERIOR_POINTER, &op, "256 bytes into the allocation at 0x10000",
	      "maps 0x10000");
	op.dst.managed = true;
	fires(PW_RULE_IPC_EXPORT_MANAGED, &op, "managed memory 0x10100", NULL);
	quiet(PW_RULE_IPC_EXPORT_HOST, &op);

	/* host memory: page-locked, or unknown to the runtime */
	op.dst = (struct pw_mem){.ptr = 0x10000, .dev = 0, .known = true, .base = 0x10000, .size = 4096};
	quiet(PW_RULE_IPC_EXPORT_HOST, &op);
	quiet(PW_RULE_IPC_EXPORT_FREED, &op);
	op.dst.host = true;
	fires(PW_RULE_IPC_EXPORT_HOST, &op, "page-locked host memory", NULL);
	op.dst = (struct pw_mem){.ptr = 0x7ffd0000, .dev = PW_NO_DEV};
	fires(PW_RULE_IPC_EXPORT_HOST, &op, "0x7ffd0000, which is no device allocation", NULL);
	op.dst_pool = true; /* ipc.export.pool-or-vmm's */
	quiet(PW_RULE_IPC_EXPORT_HOST, &op);
	op.dst_pool = false;
	/* freed */
	op.dst_freed = true;
	op.freed_base = 0x7ffd0000;
	quiet(PW_RULE_IPC_EXPORT_HOST, &op);
	fires(PW_RULE_IPC_EXPORT_FREED, &op, "already freed", "0x7ffd0000");
}

static void ipc_open(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	op.handle = handle_a;
	op.flags = 1;
	quiet(PW_RULE_IPC_OPEN_SAME_PROCESS, &op);
	quiet(PW_RULE_IPC_OPEN_FLAGS, &op);
	quiet(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &op);
	quiet(PW_RULE_IPC_OPEN_STALE, &op);
	op.flags = 0;
	fires(PW_RULE_IPC_OPEN_FLAGS, &op, "flags 0x0", "0x1");
	op.flags = 7;
	fires(PW_RULE_IPC_OPEN_FLAGS, &op, "flags 0x7", NULL);
	op.flags = 1;

	/* registry facts */
	op.reg_known = true;
	op.reg_exporter_pid = 200;
	op.reg_exporter_alive = true;
	quiet(PW_RULE_IPC_OPEN_STALE, &op);
	quiet(PW_RULE_IPC_OPEN_SAME_PROCESS, &op);
	op.reg_freed = true;
	fires(PW_RULE_IPC_OPEN_STALE, &op, "pid 200", "already freed");
	op.reg_freed = false;
	op.reg_exporter_alive = false;
	fires(PW_RULE_IPC_OPEN_STALE, &op, "has exited", NULL);
	op.reg_exporter_pid = 100; /* ourselves */
	op.reg_exporter_alive = true;
	fires(PW_RULE_IPC_OPEN_SAME_PROCESS, &op, "exported itself", NULL);

	/* exported by this process, known from the state alone */
	op = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	op.handle = handle_b;
	op.flags = 1;
	struct pw_op ex = op_of(PW_OP_IPC_EXPORT, "cuIpcGetMemHandle");
	ex.handle = handle_b;
	ex.dst = (struct pw_mem){.ptr = 0x30000, .known = true, .base = 0x30000, .size = 4096};
	pw_state_update(&st, &ex, 0, false);
	fires(PW_RULE_IPC_OPEN_SAME_PROCESS, &op, NULL, NULL);

	/* opened again in the same context: the driver counts it, no finding */
	op.handle = handle_a;
	op.ctx = 0xc1;
	op.dst.ptr = 0x50000;
	pw_state_update(&st, &op, 0, false);
	quiet(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &op);
	/* in another device's context: a second mapping, allowed */
	op.ctx = 0xc0;
	op.cur_dev = 1;
	quiet(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &op);
	/* in a second context of the same device: "one context per device" */
	op.ctx = 0xc2;
	op.cur_dev = 0;
	fires(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &op, "context 0xc2 of device 0", "context 0xc1");
	/* a context known only by its device (runtime, HIP) is that device's one */
	op.ctx = 0;
	quiet(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &op);
	/* another handle of the same exporter's device, in the second context */
	struct pw_op first = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	first.handle = handle_b;
	first.ctx = 0xc1;
	first.reg_known = true;
	first.reg_exporter_pid = 300;
	first.reg_device = 1;
	first.dst.ptr = 0x60000;
	pw_state_update(&st, &first, 0, false);
	struct pw_op sib = first;
	sib.handle = handle_c;
	sib.ctx = 0xc2;
	fires(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &sib, "pid 300's device 1", "context 0xc1");
	sib.reg_device = 0; /* the exporter's other device: another set of handles */
	quiet(PW_RULE_IPC_OPEN_SECOND_CONTEXT, &sib);
}

/* ipc.open.unexported: only where the registry can tell */
static void ipc_unexported(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	op.handle = handle_a;
	op.flags = 1;
	quiet(PW_RULE_IPC_OPEN_UNEXPORTED, &op); /* registry off: cannot be known */
	op.reg_active = true;
	fires(PW_RULE_IPC_OPEN_UNEXPORTED, &op, "no traced process of this run exported", "not traced");
	op.reg_known = true;
	op.reg_exporter_pid = 200;
	quiet(PW_RULE_IPC_OPEN_UNEXPORTED, &op);
}

/* The driver maps per context and counts (docs/facts-cuda.md, "IPC mappings are per context"): open P, reopen
 * P, open in another device's context at Q, close P twice, close Q. */
static void ipc_per_context(void **state)
{
	(void)state;
	struct pw_op open = op_of(PW_OP_IPC_OPEN, "cudaIpcOpenMemHandle");
	open.handle = handle_a;
	open.flags = 1;
	open.cur_dev = 1;
	open.dst.ptr = 0x70000;
	pw_state_update(&st, &open, 0, false);
	pw_state_update(&st, &open, 0, false); /* the same pointer, counted */
	struct pw_op other = open;
	other.cur_dev = 0;
	other.dst.ptr = 0x90000;
	pw_state_update(&st, &other, 0, false);
	struct pw_op close = op_of(PW_OP_IPC_CLOSE, "cudaIpcCloseMemHandle");
	struct pw_op leak = op_of(PW_OP_EXIT, "exit");
	close.dst.ptr = 0x90000;
	quiet(PW_RULE_IPC_CLOSE_TWICE, &close);
	pw_state_update(&st, &close, 0, false); /* Q closed */
	leak.dst.ptr = 0x70000;
	fires(PW_RULE_IPC_LEAK, &leak, "0x70000 is still open (2 opens)", NULL);
	leak.dst.ptr = 0x90000;
	quiet(PW_RULE_IPC_LEAK, &leak);
	fires(PW_RULE_IPC_CLOSE_TWICE, &close, "0x90000", NULL);
	close.dst.ptr = 0x70000;
	pw_state_update(&st, &close, 0, false);
	quiet(PW_RULE_IPC_CLOSE_TWICE, &close); /* one open left */
	pw_state_update(&st, &close, 0, false);
	fires(PW_RULE_IPC_CLOSE_TWICE, &close, NULL, NULL);
	assert_int_equal(atomic_load(&st.nmaps), 0);
}

/* A closed mapping does not shadow a new one the driver places at its address. */
static void ipc_reused_address(void **state)
{
	(void)state;
	struct pw_op open = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	open.handle = handle_a;
	open.flags = 1;
	open.dst.ptr = 0x80000;
	struct pw_op close = op_of(PW_OP_IPC_CLOSE, "cuIpcCloseMemHandle");
	close.dst.ptr = 0x80000;
	pw_state_update(&st, &open, 0, false);
	pw_state_update(&st, &close, 0, false);
	open.handle = handle_b; /* another handle, mapped at the same address */
	pw_state_update(&st, &open, 0, false);
	quiet(PW_RULE_IPC_CLOSE_TWICE, &close);
	quiet(PW_RULE_IPC_CLOSE_UNKNOWN, &close);
	struct pw_op leak = op_of(PW_OP_EXIT, "exit");
	leak.dst.ptr = 0x80000;
	fires(PW_RULE_IPC_LEAK, &leak, "0x80000 is still open (1 open)", NULL);
	/* the close ends the new mapping, the one of handle_b */
	pthread_mutex_lock(&st.lock);
	const struct pw_ipc_map *m = pw_state_map_at(&st, 0x80000, false);
	assert_non_null(m);
	assert_memory_equal(m->handle, handle_b, 64);
	pthread_mutex_unlock(&st.lock);
	pw_state_update(&st, &close, 0, false);
	quiet(PW_RULE_IPC_LEAK, &leak);
	fires(PW_RULE_IPC_CLOSE_TWICE, &close, NULL, NULL);
}

/* The lazy flag enables peer access as cuCtxEnablePeerAccess would. */
static void ipc_lazy_enable(void **state)
{
	(void)state;
	struct pw_op open = op_of(PW_OP_IPC_OPEN, "cudaIpcOpenMemHandle");
	open.handle = handle_a;
	open.flags = 0; /* not lazy */
	open.cur_dev = 1;
	open.dst.ptr = 0x70000;
	open.dst.dev = 0;
	pw_state_update(&st, &open, 1, false); /* failed */
	pw_state_update(&st, &open, 0, false);
	assert_false(pw_peer_on(&st, 1, 0));
	open.flags = 1;
	open.handle = handle_b;
	open.dst.ptr = 0x90000;
	open.can_access = 0; /* a pair that cannot: nothing enabled */
	pw_state_update(&st, &open, 0, false);
	assert_false(pw_peer_on(&st, 1, 0));
	open.handle = handle_c;
	open.dst.ptr = 0xa0000;
	open.can_access = 1;
	pw_state_update(&st, &open, 0, false);
	assert_true(pw_peer_on(&st, 1, 0));
	assert_false(pw_peer_on(&st, 0, 1));
	assert_true(atomic_load(&st.lazy_on[1]) & 1);
	/* a later explicit enable fails with "already enabled" (the sticky 704) */
	struct pw_op en = op_of(PW_OP_PEER_ENABLE, "cudaDeviceEnablePeerAccess");
	en.cur_dev = 1;
	en.peer_dev = 0;
	fires(PW_RULE_PEER_ENABLE_TWICE, &en, "device 1 to device 0", "already enabled");
	/* and a copy between the two is not staged */
	struct pw_op cp = copy_op();
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &cp);
	pw_state_reset(&st);
	fires(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &cp, NULL, NULL);
}

static void ipc_free_imported(void **state)
{
	(void)state;
	struct pw_op fr = op_of(PW_OP_FREE, "cuMemFree");
	fr.dst.ptr = 0x70000;
	quiet(PW_RULE_IPC_FREE_IMPORTED, &fr);
	fr.mapped = true;
	fr.map_ptr = 0x70000;
	fires(PW_RULE_IPC_FREE_IMPORTED, &fr, "frees 0x70000, which an IPC open mapped", "IPC close");
	fr.dst.ptr = 0x70100;
	fires(PW_RULE_IPC_FREE_IMPORTED, &fr, "inside the mapping at 0x70000", NULL);
	/* the facts: pw_state_mapped, by the start or inside a mapping of known size */
	struct pw_op open = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	open.handle = handle_a;
	open.dst = (struct pw_mem){.ptr = 0x70000, .known = true, .base = 0x70000, .size = 4096};
	struct pw_ipc_map m;
	assert_false(pw_state_mapped(&st, 0x70000, &m));
	pw_state_update(&st, &open, 0, false);
	assert_true(pw_state_mapped(&st, 0x70000, &m));
	assert_true(pw_state_mapped(&st, 0x70fff, &m));
	assert_int_equal(m.ptr, 0x70000);
	assert_false(pw_state_mapped(&st, 0x71000, &m));
}

static void exports_tracked(void **state)
{
	(void)state;
	struct pw_op ex = op_of(PW_OP_IPC_EXPORT, "cuIpcGetMemHandle");
	ex.handle = handle_a;
	ex.dst = (struct pw_mem){.ptr = 0x30100, .known = true, .base = 0x30000, .size = 4096};
	assert_false(pw_state_exported(&st, 0x30000));
	pw_state_update(&st, &ex, 0, false);
	pw_state_update(&st, &ex, 0, false); /* the same handle again: one export */
	assert_true(pw_state_exported(&st, 0x30000));
	assert_false(pw_state_exported(&st, 0x30100)); /* by the allocation's base */
	struct pw_op fr = op_of(PW_OP_FREE, "cuMemFree");
	fr.dst.ptr = 0x30000;
	pw_state_update(&st, &fr, 1, false); /* a failed free frees nothing */
	assert_true(pw_state_exported(&st, 0x30000));
	pw_state_update(&st, &fr, 0, false);
	assert_false(pw_state_exported(&st, 0x30000));
	assert_int_equal(atomic_load(&st.nexports), 0);
}

static void ipc_close_and_leak(void **state)
{
	(void)state;
	struct pw_op open = op_of(PW_OP_IPC_OPEN, "cuIpcOpenMemHandle");
	open.handle = handle_a;
	open.dst.ptr = 0x50000;
	struct pw_op close = op_of(PW_OP_IPC_CLOSE, "cuIpcCloseMemHandle");
	close.dst.ptr = 0x50000;
	struct pw_op leak = op_of(PW_OP_EXIT, "exit");
	leak.dst.ptr = 0x50000;

	fires(PW_RULE_IPC_CLOSE_UNKNOWN, &close, "closes 0x50000", "no IPC open");
	quiet(PW_RULE_IPC_CLOSE_TWICE, &close);
	quiet(PW_RULE_IPC_LEAK, &leak);
	pw_state_update(&st, &open, 0, false);
	quiet(PW_RULE_IPC_CLOSE_UNKNOWN, &close);
	quiet(PW_RULE_IPC_CLOSE_TWICE, &close);
	fires(PW_RULE_IPC_LEAK, &leak, "0x50000 is still open (1 open)", NULL);
	pw_state_update(&st, &close, 0, false);
	quiet(PW_RULE_IPC_LEAK, &leak);
	quiet(PW_RULE_IPC_CLOSE_UNKNOWN, &close);
	fires(PW_RULE_IPC_CLOSE_TWICE, &close, "once more than it was opened", NULL);
	/* opened again after the close: fine again */
	pw_state_update(&st, &open, 0, false);
	quiet(PW_RULE_IPC_CLOSE_TWICE, &close);
}

static void ipc_free_while_open(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_FREE, "cuMemFree");
	op.dst.ptr = 0x10000;
	quiet(PW_RULE_IPC_FREE_WHILE_OPEN, &op);
	op.holders = 2;
	op.holder_pids[0] = 301;
	op.holder_pids[1] = 302;
	fires(PW_RULE_IPC_FREE_WHILE_OPEN, &op, "2 other processes still have it open", "pid 301, 302");
}

static struct pw_op managed_op(enum pw_op_kind kind, const char *api)
{
	struct pw_op op = op_of(kind, api);
	op.dst =
	    (struct pw_mem){.ptr = 0x100000, .known = true, .managed = true, .base = 0x100000, .size = 65536};
	op.bytes = 65536;
	return op;
}

static void managed_alloc(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_ALLOC_MANAGED, "cuMemAllocManaged");
	op.bytes = 4096;
	op.flags = 1;
	quiet(PW_RULE_MANAGED_ALLOC_SIZE_ZERO, &op);
	quiet(PW_RULE_MANAGED_ALLOC_GRANULARITY, &op);
	quiet(PW_RULE_MANAGED_ALLOC_FLAGS, &op);
	op.flags = 2;
	quiet(PW_RULE_MANAGED_ALLOC_FLAGS, &op);
	op.flags = 4;
	fires(PW_RULE_MANAGED_ALLOC_FLAGS, &op, "flags 0x4", NULL);
	op.flags = 0;
	fires(PW_RULE_MANAGED_ALLOC_FLAGS, &op, "flags 0x0", NULL);
	op.bytes = 100;
	fires(PW_RULE_MANAGED_ALLOC_GRANULARITY, &op, "100 bytes", "4 KiB");
	op.bytes = 0;
	fires(PW_RULE_MANAGED_ALLOC_SIZE_ZERO, &op, "0 bytes", NULL);
}

static void managed_advise(void **state)
{
	(void)state;
	struct pw_op op = managed_op(PW_OP_ADVISE, "cuMemAdvise");
	op.advice = 3;
	pw_op_location_device(&op, 1, -1);
	quiet(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op);
	quiet(PW_RULE_MANAGED_ADVISE_UNALIGNED, &op);
	quiet(PW_RULE_MANAGED_ADVISE_OUT_OF_RANGE, &op);
	quiet(PW_RULE_MANAGED_ADVISE_INVALID, &op);
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	pw_op_location_device(&op, -1, -1); /* the plain form's CPU id */
	quiet(PW_RULE_MANAGED_ADVISE_INVALID, &op);
	pw_op_location_device(&op, 9, -1);
	fires(PW_RULE_MANAGED_ADVISE_INVALID, &op, "device 9", "2 devices");
	op.advice = 1; /* read-mostly takes no device */
	quiet(PW_RULE_MANAGED_ADVISE_INVALID, &op);
	op.advice = 99;
	fires(PW_RULE_MANAGED_ADVISE_INVALID, &op, "advice 99", NULL);
	op.advice = 1;

	op.dst.ptr = 0x100001;
	op.bytes = 100;
	fires(PW_RULE_MANAGED_ADVISE_UNALIGNED, &op, "0x100001 + 100 bytes", "whole pages");
	op.dst.ptr = 0x108000;
	op.bytes = 65536;
	fires(PW_RULE_MANAGED_ADVISE_OUT_OF_RANGE, &op, "runs 32768 bytes past its end", "one allocation");
	op.bytes = 0;
	fires(PW_RULE_MANAGED_ADVISE_OUT_OF_RANGE, &op, "empty", NULL);
	op.bytes = 65536;
	op.dst.managed = false;
	fires(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op, "device memory, not managed", NULL);
	quiet(PW_RULE_MANAGED_ADVISE_OUT_OF_RANGE, &op); /* one finding is enough */
	op.dst.pool = true;
	fires(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op, "pool memory", NULL);
}

/* CUmemLocation forms: what each advice takes (cuda.h cuMemAdvise). */
static void managed_locations(void **state)
{
	(void)state;
	struct pw_op op = managed_op(PW_OP_ADVISE, "cuMemAdvise");
	op.advice = 3; /* set-preferred-location */
	pw_op_location(&op, 1, -1);
	fires(PW_RULE_MANAGED_ADVISE_INVALID, &op, "{device, -1}", "{host, 0}");
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	pw_op_location(&op, 0, 0);
	fires(PW_RULE_MANAGED_ADVISE_LOCATION, &op, "{invalid, 0}", "names no processor");
	quiet(PW_RULE_MANAGED_ADVISE_INVALID, &op);
	pw_op_location(&op, 7, 0);
	fires(PW_RULE_MANAGED_ADVISE_LOCATION, &op, "location type 7", NULL);
	pw_op_location(&op, 2, 12345); /* host: the id is ignored */
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	pw_op_location(&op, 3, 0); /* host NUMA node 0: every host has it */
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	pw_op_location(&op, 3, 1000);
	fires(PW_RULE_MANAGED_ADVISE_LOCATION, &op, "no NUMA node 1000", NULL);
	pw_op_location(&op, 4, 77); /* the current node: the id is ignored */
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	op.advice = 5; /* set-accessed-by: a device or the host only */
	fires(PW_RULE_MANAGED_ADVISE_LOCATION, &op, "{host_numa_current, 77}", "no other location type");
	pw_op_location(&op, 3, 0);
	fires(PW_RULE_MANAGED_ADVISE_LOCATION, &op, "{host_numa, 0}", NULL);
	op.vendor = PW_VENDOR_HIP; /* clr takes NUMA locations for every advice */
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	pw_op_location(&op, 0, 0);
	fires(PW_RULE_MANAGED_ADVISE_LOCATION, &op, "names no processor", NULL);
	op.vendor = PW_VENDOR_CUDA;
	pw_op_location(&op, 2, 0);
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);
	op.advice = 1; /* read-mostly ignores its location */
	pw_op_location(&op, 0, 0);
	quiet(PW_RULE_MANAGED_ADVISE_LOCATION, &op);

	op = managed_op(PW_OP_PREFETCH, "cuMemPrefetchAsync");
	pw_op_location(&op, 1, -1);
	fires(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op, "{device, -1}", "{host, 0}");
	quiet(PW_RULE_MANAGED_PREFETCH_LOCATION, &op);
	pw_op_location(&op, 0, 0);
	fires(PW_RULE_MANAGED_PREFETCH_LOCATION, &op, "type invalid", NULL);
	quiet(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op);
	pw_op_location(&op, (int)0x80000000u, 0);
	fires(PW_RULE_MANAGED_PREFETCH_LOCATION, &op, "location type -2147483648", NULL);
	quiet(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op); /* no "device -2147483648" */
	pw_op_location(&op, 3, -5);
	fires(PW_RULE_MANAGED_PREFETCH_LOCATION, &op, "no NUMA node -5", NULL);
	pw_op_location(&op, 2, 0);
	quiet(PW_RULE_MANAGED_PREFETCH_LOCATION, &op);
	op.flags = 1;
	fires(PW_RULE_MANAGED_PREFETCH_FLAGS, &op, "flags 0x1", "must be 0");
}

/* System memory: valid where the device(s) can access pageable memory. */
static void managed_pageable(void **state)
{
	(void)state;
	struct pw_op op = managed_op(PW_OP_ADVISE, "cuMemAdvise");
	op.advice = 3;
	pw_op_location(&op, 1, 0);
	op.dst = (struct pw_mem){.ptr = 0x5000, .dev = PW_NO_DEV, .named_dev = PW_NO_DEV, .p2p = -1};
	op.pageable = 0;
	op.pageable_dev = 0;
	fires(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op, "device 0 cannot access pageable memory",
	      "PAGEABLE_MEMORY_ACCESS is 0");
	op.pageable = 1;
	quiet(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op);
	op.kind = PW_OP_PREFETCH;
	quiet(PW_RULE_MANAGED_PREFETCH_NOT_MANAGED, &op);
	op.kind = PW_OP_RANGE_ATTR; /* the queries take managed memory only */
	fires(PW_RULE_MANAGED_RANGE_ATTR_NOT_MANAGED, &op, "system memory", NULL);
	op.kind = PW_OP_ATTACH;
	op.flags = 1;
	op.bytes = 4096;
	quiet(PW_RULE_MANAGED_ATTACH_NOT_MANAGED, &op);
	quiet(PW_RULE_MANAGED_ATTACH_LENGTH, &op);
	op.bytes = 0;
	fires(PW_RULE_MANAGED_ATTACH_LENGTH, &op, "must be non-zero", NULL);
	op.pageable = 0;
	fires(PW_RULE_MANAGED_ATTACH_NOT_MANAGED, &op, "cannot access pageable memory", NULL);
	quiet(PW_RULE_MANAGED_ATTACH_LENGTH, &op); /* not-managed says it */
	op.vendor = PW_VENDOR_HIP;                 /* HIP's document takes system memory */
	quiet(PW_RULE_MANAGED_ATTACH_NOT_MANAGED, &op);
	op.kind = PW_OP_ADVISE; /* but not for advice */
	fires(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op, "not memory the runtime allocated", NULL);
	/* freed memory is freed, whatever the device can access */
	op.vendor = PW_VENDOR_CUDA;
	op.pageable = 1;
	op.dst_freed = true;
	op.freed_base = 0x4000;
	op.freed_size = 8192;
	fires(PW_RULE_MANAGED_ADVISE_NOT_MANAGED, &op, "freed", "8192 bytes at 0x4000");
	op.kind = PW_OP_ATTACH;
	fires(PW_RULE_MANAGED_ATTACH_NOT_MANAGED, &op, "freed", NULL);
}

static void managed_prefetch(void **state)
{
	(void)state;
	struct pw_op op = managed_op(PW_OP_PREFETCH, "cuMemPrefetchAsync");
	pw_op_location_device(&op, 1, -1);
	quiet(PW_RULE_MANAGED_PREFETCH_NOT_MANAGED, &op);
	quiet(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op);
	quiet(PW_RULE_MANAGED_PREFETCH_OUT_OF_RANGE, &op);
	quiet(PW_RULE_MANAGED_PREFETCH_FLAGS, &op);
	pw_op_location_device(&op, 2, -1);
	fires(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op, "device 2", NULL);
	pw_op_location_device(&op, -1, -1);
	quiet(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op);
	pw_op_location_device(&op, -2, -1);
	fires(PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE, &op, "device -2", NULL);
	op.bytes = 0;
	fires(PW_RULE_MANAGED_PREFETCH_OUT_OF_RANGE, &op, "is empty", NULL);
	op.bytes = 65537;
	fires(PW_RULE_MANAGED_PREFETCH_OUT_OF_RANGE, &op, "runs 1 bytes past its end", NULL);
	op.dst.managed = false;
	op.dst.known = false;
	op.vendor = PW_VENDOR_HIP;
	fires(PW_RULE_MANAGED_PREFETCH_NOT_MANAGED, &op, "not memory the runtime allocated", NULL);
}

static void managed_range_attr(void **state)
{
	(void)state;
	struct pw_op op = managed_op(PW_OP_RANGE_ATTR, "cuMemRangeGetAttribute");
	op.nattrs = 1;
	op.one_attr = 1;
	op.one_size = 4;
	quiet(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op);
	quiet(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op);
	quiet(PW_RULE_MANAGED_RANGE_ATTR_NOT_MANAGED, &op);
	quiet(PW_RULE_MANAGED_RANGE_ATTR_OUT_OF_RANGE, &op);
	op.one_size = 3;
	fires(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op, "attribute 1 with 3 bytes", "exactly 4");
	op.one_attr = 3;
	op.one_size = 8;
	quiet(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op);
	op.one_size = 6;
	fires(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op, "multiple of 4", NULL);
	op.one_attr = 9; /* undefined: its size is not the question */
	op.one_size = 4;
	fires(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op, "attribute 9", "not a range attribute");
	quiet(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op);
	op.one_attr = 8; /* CUDA 12.2's LAST_PREFETCH_LOCATION_ID */
	quiet(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op);
	op.vendor = PW_VENDOR_HIP; /* HIP has 1..4 and CoherencyMode 100 */
	fires(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op, "attribute 8", NULL);
	op.one_attr = 100;
	quiet(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op);
	op.vendor = PW_VENDOR_CUDA;
	op.one_attr = 1;
	op.attr_args_bad = true;
	fires(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op, "data NULL", NULL);
	op.attr_args_bad = false;
	op.bytes = 0;
	fires(PW_RULE_MANAGED_RANGE_ATTR_OUT_OF_RANGE, &op, "empty", NULL);
	op.bytes = 65536 + 4096;
	fires(PW_RULE_MANAGED_RANGE_ATTR_OUT_OF_RANGE, &op, "4096 bytes past its end", NULL);
	op.dst.managed = false;
	fires(PW_RULE_MANAGED_RANGE_ATTR_NOT_MANAGED, &op, "device memory", NULL);
	int attrs[2] = {1, 4};
	size_t sizes[2] = {4, 8};
	op = managed_op(PW_OP_RANGE_ATTR, "cuMemRangeGetAttributes");
	op.nattrs = 2;
	op.attrs = attrs;
	op.data_sizes = sizes;
	fires(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op, "attribute 4 with 8 bytes", NULL);
	sizes[1] = 4;
	quiet(PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE, &op);
	op.attr_args_bad = true;
	fires(PW_RULE_MANAGED_RANGE_ATTR_INVALID, &op, "NULL data, dataSizes or attributes array", NULL);
}

static void managed_attach(void **state)
{
	(void)state;
	struct pw_op op = managed_op(PW_OP_ATTACH, "cuStreamAttachMemAsync");
	op.flags = 4;
	op.bytes = 0;
	quiet(PW_RULE_MANAGED_ATTACH_LENGTH, &op);
	quiet(PW_RULE_MANAGED_ATTACH_FLAGS, &op);
	quiet(PW_RULE_MANAGED_ATTACH_NOT_MANAGED, &op);
	op.bytes = 65536;
	quiet(PW_RULE_MANAGED_ATTACH_LENGTH, &op);
	op.bytes = 4096;
	fires(PW_RULE_MANAGED_ATTACH_LENGTH, &op, "4096 bytes", "65536 bytes");
	op.flags = 9;
	fires(PW_RULE_MANAGED_ATTACH_FLAGS, &op, "flags 0x9", NULL);
	op.flags = 4;
	op.null_stream = true;
	fires(PW_RULE_MANAGED_ATTACH_FLAGS, &op, "legacy NULL stream", "cudaStreamPerThread");
	op.flags = 1;
	quiet(PW_RULE_MANAGED_ATTACH_FLAGS, &op);
	op.dst.managed = false;
	fires(PW_RULE_MANAGED_ATTACH_NOT_MANAGED, &op, "device memory", NULL);

	/* HIP: CUDA's length and NULL-stream rules are a portability warning */
	op = managed_op(PW_OP_ATTACH, "hipStreamAttachMemAsync");
	op.vendor = PW_VENDOR_HIP;
	op.flags = 4;
	op.bytes = 4096;
	op.null_stream = true;
	quiet(PW_RULE_MANAGED_ATTACH_FLAGS, &op);
	fires(PW_RULE_MANAGED_ATTACH_PORTABILITY, &op, "4096 bytes", "CUDA requires 0");
	op.bytes = 0;
	fires(PW_RULE_MANAGED_ATTACH_PORTABILITY, &op, "NULL stream", "CUDA refuses it");
	op.null_stream = false;
	quiet(PW_RULE_MANAGED_ATTACH_PORTABILITY, &op);
	op.flags = 8;
	fires(PW_RULE_MANAGED_ATTACH_FLAGS, &op, "flags 0x8", NULL);
}

/* ACL: the kind names the direction (003, acl_rt.h aclrtMemcpyKind). */
static void acl_copy_kind(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_IMPLICIT_COPY, "aclrtMemcpy");
	op.vendor = PW_VENDOR_ACL;
	op.bytes = 512;
	op.dst = (struct pw_mem){.ptr = 0x20000,
	                         .dev = 1,
	                         .named_dev = PW_NO_DEV,
	                         .known = true,
	                         .base = 0x20000,
	                         .size = 1024,
	                         .p2p = 1};
	op.src = (struct pw_mem){.ptr = 0x10000,
	                         .dev = 0,
	                         .named_dev = PW_NO_DEV,
	                         .known = true,
	                         .base = 0x10000,
	                         .size = 1024,
	                         .p2p = 1};
	op.copy_kind = 3;
	quiet(PW_RULE_COPY_ACL_KIND, &op);
	op.copy_kind = 7; /* between devices */
	quiet(PW_RULE_COPY_ACL_KIND, &op);
	op.copy_kind = 6;
	fires(PW_RULE_COPY_ACL_KIND, &op, "INNER_DEVICE_TO_DEVICE between devices 0 and 1", NULL);
	op.copy_kind = 4; /* default: the runtime tells */
	quiet(PW_RULE_COPY_ACL_KIND, &op);
	op.copy_kind = 1;
	fires(PW_RULE_COPY_ACL_KIND, &op, "ACL_MEMCPY_HOST_TO_DEVICE",
	      "source 0x10000 is device memory of device 0");
	op.src = (struct pw_mem){.ptr = 0x7000, .dev = PW_NO_DEV, .named_dev = PW_NO_DEV, .p2p = -1};
	quiet(PW_RULE_COPY_ACL_KIND, &op);
	op.copy_kind = 3;
	fires(PW_RULE_COPY_ACL_KIND, &op, "source 0x7000 is no device memory", "host buffer");
	op.copy_kind = 0;
	fires(PW_RULE_COPY_ACL_KIND, &op, "HOST_TO_HOST", "destination 0x20000 is device memory");
	op.vendor = PW_VENDOR_CUDA;
	op.copy_kind = -1;
	quiet(PW_RULE_COPY_ACL_KIND, &op);
}

static void ipc_events(void **state)
{
	(void)state;
	/* creation flags, then the export */
	struct pw_op cr = op_of(PW_OP_EVENT_CREATE, "cuEventCreate");
	cr.event = 0x5000;
	cr.flags = 0x2; /* disable-timing only */
	pw_state_update(&st, &cr, 0, false);
	struct pw_op ex = op_of(PW_OP_IPC_EVENT_EXPORT, "cuIpcGetEventHandle");
	ex.event = 0x5000;
	ex.event_known = pw_state_event_flags(&st, ex.event, &ex.event_flags);
	assert_true(ex.event_known);
	fires(PW_RULE_IPC_EVENT_FLAGS, &ex, "flags 0x2, without the interprocess flag", NULL);
	ex.event_flags = 0;
	fires(PW_RULE_IPC_EVENT_FLAGS, &ex, "without the interprocess flag and the disable-timing", NULL);
	cr.event = 0x6000;
	cr.flags = 0x6;
	pw_state_update(&st, &cr, 0, false);
	ex.event = 0x6000;
	ex.event_known = pw_state_event_flags(&st, ex.event, &ex.event_flags);
	quiet(PW_RULE_IPC_EVENT_FLAGS, &ex);
	ex.event = 0x7000; /* never seen made: no guess */
	ex.event_known = pw_state_event_flags(&st, ex.event, &ex.event_flags);
	assert_false(ex.event_known);
	quiet(PW_RULE_IPC_EVENT_FLAGS, &ex);
	/* destroyed, its slot reused by another event */
	struct pw_op de = op_of(PW_OP_EVENT_DESTROY, "cuEventDestroy");
	de.event = 0x5000;
	pw_state_update(&st, &de, 0, false);
	unsigned fl;
	assert_false(pw_state_event_flags(&st, 0x5000, &fl));
	assert_true(pw_state_event_flags(&st, 0x6000, &fl));
	assert_int_equal(fl, 0x6);

	/* exported here, opened here */
	ex.event = 0x6000;
	ex.handle = handle_a;
	pw_state_update(&st, &ex, 0, false);
	struct pw_op op = op_of(PW_OP_IPC_EVENT_OPEN, "cuIpcOpenEventHandle");
	op.handle = handle_b;
	quiet(PW_RULE_IPC_EVENT_SAME_PROCESS, &op);
	op.handle = handle_a;
	fires(PW_RULE_IPC_EVENT_SAME_PROCESS, &op, "exported itself", NULL);
	op.handle = handle_b;
	op.reg_known = true;
	op.reg_exporter_pid = 100;
	fires(PW_RULE_IPC_EVENT_SAME_PROCESS, &op, NULL, NULL);

	/* imported, never destroyed */
	op = op_of(PW_OP_IPC_EVENT_OPEN, "cuIpcOpenEventHandle");
	op.handle = handle_c;
	op.event = 0x8000;
	struct pw_op left = op_of(PW_OP_IPC_EVENT_EXIT, "exit");
	left.event = 0x8000;
	quiet(PW_RULE_IPC_EVENT_LEAK, &left);
	pw_state_update(&st, &op, 0, false);
	fires(PW_RULE_IPC_EVENT_LEAK, &left, "0x8000", "still there");
	struct pw_ipc_event rec;
	assert_true(pw_state_ipc_event(&st, 0x8000, &rec));
	assert_true(rec.imported);
	de.event = 0x8000;
	pw_state_update(&st, &de, 0, false);
	quiet(PW_RULE_IPC_EVENT_LEAK, &left);
	left.event = 0x6000; /* exported, not imported */
	quiet(PW_RULE_IPC_EVENT_LEAK, &left);

	/* the exporter destroys while another process holds it */
	de = op_of(PW_OP_EVENT_DESTROY, "cuEventDestroy");
	de.event = 0x6000;
	de.event_exported = true;
	quiet(PW_RULE_IPC_EVENT_DESTROY_WHILE_OPEN, &de);
	de.holders = 1;
	de.holder_pids[0] = 404;
	fires(PW_RULE_IPC_EVENT_DESTROY_WHILE_OPEN, &de, "1 other process still has it open", "pid 404");
	de.event_exported = false;
	quiet(PW_RULE_IPC_EVENT_DESTROY_WHILE_OPEN, &de);
}

/* Events made and destroyed for a long time leave deleted slots behind: the
 * table still knows the live ones, and never holds a destroyed one. */
static void event_table_churn(void **state)
{
	(void)state;
	struct pw_op cr = op_of(PW_OP_EVENT_CREATE, "cuEventCreate");
	struct pw_op de = op_of(PW_OP_EVENT_DESTROY, "cuEventDestroy");
	unsigned fl;
	cr.flags = 0x6;
	for (uint64_t i = 0; i < 200000; i++) {
		cr.event = de.event = 0x10000 + 0x40 * i;
		pw_state_update(&st, &cr, 0, false);
		pw_state_update(&st, &de, 0, false);
	}
	assert_false(pw_state_event_flags(&st, 0x10000 + 0x40 * 1234, &fl));
	for (uint64_t i = 0; i < 1000; i++) { /* live ones, each known */
		cr.event = 0x900000 + 0x40 * i;
		cr.flags = (unsigned)(i & 6);
		pw_state_update(&st, &cr, 0, false);
	}
	for (uint64_t i = 0; i < 1000; i++) {
		assert_true(pw_state_event_flags(&st, 0x900000 + 0x40 * i, &fl));
		assert_int_equal(fl, (unsigned)(i & 6));
	}
	de.event = 0x900000;
	pw_state_update(&st, &de, 0, false);
	assert_false(pw_state_event_flags(&st, 0x900000, &fl));
}

/* error.sticky: a getter returning the code an earlier traced call of the
 * thread left names it; not the getter right after that call (the program's
 * own check), nor another code, nor a success. */
static void error_sticky(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_LAST_ERROR, "cudaGetLastError");
	quiet(PW_RULE_ERROR_STICKY, &op); /* no call left an error */
	op.err_resets = true;
	op.left_api = "cudaIpcOpenMemHandle";
	op.left_seq = 12;
	op.left_code = 704;
	op.err_ret = 704;
	op.err_name = "cudaErrorPeerAccessAlreadyEnabled";
	fires(PW_RULE_ERROR_STICKY, &op,
	      "cudaGetLastError returned 704 (cudaErrorPeerAccessAlreadyEnabled), left by "
	      "cudaIpcOpenMemHandle (call 12) on this thread",
	      NULL);
	char msg[640] = "";
	assert_true(pw_rules[PW_RULE_ERROR_STICKY].check(&st, &op, msg, sizeof msg));
	assert_null(strstr(msg, "stays set")); /* the get form resets it */
	op.left_just_before = true;            /* asked right after the call that returned it */
	quiet(PW_RULE_ERROR_STICKY, &op);
	op.left_just_before = false;
	op.err_ret = 1; /* another code: not the one left */
	quiet(PW_RULE_ERROR_STICKY, &op);
	op.err_ret = 0;
	quiet(PW_RULE_ERROR_STICKY, &op);
	/* the peek: the error stays; a code the vendor has no name for, by number */
	op = op_of(PW_OP_LAST_ERROR, "hipPeekAtLastError");
	op.vendor = PW_VENDOR_HIP;
	op.left_api = "hipFree";
	op.left_seq = 3;
	op.left_code = op.err_ret = 9999;
	fires(PW_RULE_ERROR_STICKY, &op, "hipPeekAtLastError returned 9999, left by hipFree (call 3)",
	      "stays set");
	/* only the getters' op reaches it */
	assert_int_equal(pw_rules[PW_RULE_ERROR_STICKY].ops, PW_OPBIT(LAST_ERROR));
	assert_int_equal(pw_rules[PW_RULE_ERROR_STICKY].severity, PW_SEV_PERFORMANCE);
}

static void invalid_device(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_ENABLE, "cudaDeviceEnablePeerAccess");
	quiet(PW_RULE_PEER_INVALID_DEVICE, &op);
	op.peer_dev = 7;
	fires(PW_RULE_PEER_INVALID_DEVICE, &op, "peer device 7", "2 devices (0 to 1)");
	quiet(PW_RULE_PEER_ENABLE_UNQUERIED, &op); /* not "unqueried": it does not exist */
	op.kind = PW_OP_PEER_DISABLE;
	fires(PW_RULE_PEER_INVALID_DEVICE, &op, "peer device 7", NULL);
	quiet(PW_RULE_PEER_DISABLE_NOT_ENABLED, &op);
	op.ndev = 0; /* count unknown: only negative ordinals are known wrong */
	quiet(PW_RULE_PEER_INVALID_DEVICE, &op);
	op.peer_dev = -1;
	fires(PW_RULE_PEER_INVALID_DEVICE, &op, "device -1", "not negative");
	op.peer_dev = PW_NO_DEV; /* a context whose device is unknown: not a device number */
	quiet(PW_RULE_PEER_INVALID_DEVICE, &op);

	op = op_of(PW_OP_CAN_ACCESS, "cudaDeviceCanAccessPeer");
	quiet(PW_RULE_PEER_INVALID_DEVICE, &op);
	op.cur_dev = 9;
	fires(PW_RULE_PEER_INVALID_DEVICE, &op, "device 9", NULL);
	op.kind = PW_OP_PEER_ATTR;
	fires(PW_RULE_PEER_INVALID_DEVICE, &op, "device 9", NULL);

	struct pw_op cp = copy_op();
	cp.api = "cudaMemcpyPeer";
	enable(0, 1);
	quiet(PW_RULE_PEER_INVALID_DEVICE, &cp);
	cp.dst.named_dev = 5;
	fires(PW_RULE_PEER_INVALID_DEVICE, &cp, "destination device 5", NULL);
	quiet(PW_RULE_COPY_PEER_DEVICE_MISMATCH, &cp);
	cp.dst.named_dev = 1;
	cp.src.named_dev = 2;
	fires(PW_RULE_PEER_INVALID_DEVICE, &cp, "source device 2", NULL);
	pw_state_reset(&st);
	quiet(PW_RULE_COPY_PEER_NO_PEER_ACCESS, &cp);
}

/* The HIP and ACL rules of their own documents. */
static void vendor_truth(void **state)
{
	(void)state;
	/* ACL: a query of a device against itself; a disable of the current device */
	struct pw_op q = op_of(PW_OP_CAN_ACCESS, "aclrtDeviceCanAccessPeer");
	q.vendor = PW_VENDOR_ACL;
	quiet(PW_RULE_PEER_QUERY_SELF, &q);
	q.peer_dev = 0;
	fires(PW_RULE_PEER_QUERY_SELF, &q, "device 0 can access itself", "must be different");
	struct pw_op d = op_of(PW_OP_PEER_DISABLE, "aclrtDeviceDisablePeerAccess");
	d.vendor = PW_VENDOR_ACL;
	quiet(PW_RULE_PEER_DISABLE_SELF, &d);
	d.peer_dev = 0;
	fires(PW_RULE_PEER_DISABLE_SELF, &d, "current device 0", NULL);
	/* ACL: an enable with no current device */
	struct pw_op e = op_of(PW_OP_PEER_ENABLE, "aclrtDeviceEnablePeerAccess");
	e.vendor = PW_VENDOR_ACL;
	quiet(PW_RULE_PEER_ENABLE_NO_DEVICE, &e);
	e.cur_dev = PW_NO_DEV;
	e.no_ctx = true;
	fires(PW_RULE_PEER_ENABLE_NO_DEVICE, &e, "no current device", "aclrtSetDevice");
	/* HIP: a query with nowhere to put the answer */
	struct pw_op n = op_of(PW_OP_CAN_ACCESS, "hipDeviceCanAccessPeer");
	n.vendor = PW_VENDOR_HIP;
	n.dst.ptr = 0x1000;
	quiet(PW_RULE_PEER_QUERY_NULL, &n);
	n.dst.ptr = 0;
	fires(PW_RULE_PEER_QUERY_NULL, &n, "canAccessPeer NULL", NULL);
	/* ACL copies: destMax, kinds */
	struct pw_op c = op_of(PW_OP_IMPLICIT_COPY, "aclrtMemcpyAsync");
	c.vendor = PW_VENDOR_ACL;
	c.copy_kind = 3;
	c.bytes = 512;
	c.dest_max = 512;
	c.dst = (struct pw_mem){.ptr = 0x10200, .dev = 1, .known = true, .base = 0x10000, .size = 1024};
	quiet(PW_RULE_COPY_ACL_DEST_MAX, &c);
	c.dest_max = 511;
	fires(PW_RULE_COPY_ACL_DEST_MAX, &c, "512 bytes", "destMax 511");
	c.dest_max = 513; /* 512 left from dst */
	fires(PW_RULE_COPY_ACL_DEST_MAX, &c, "destMax 513", "512 bytes left");
	c.dest_max = 512;
	quiet(PW_RULE_COPY_ACL_DEST_MAX, &c);
	quiet(PW_RULE_COPY_ACL_KIND_UNDEFINED, &c);
	c.copy_kind = 9;
	fires(PW_RULE_COPY_ACL_KIND_UNDEFINED, &c, "kind 9", NULL);
	c.copy_kind = 0;
	quiet(PW_RULE_COPY_ACL_ASYNC_HOST_TO_HOST, &c); /* not async */
	c.copy_async = true;
	fires(PW_RULE_COPY_ACL_ASYNC_HOST_TO_HOST, &c, "ACL_MEMCPY_HOST_TO_HOST", NULL);
	/* CANN 8.0: an async host-to-device copy from pageable memory */
	struct pw_op h = op_of(PW_OP_IMPLICIT_COPY, "aclrtMemcpyAsync");
	h.vendor = PW_VENDOR_ACL;
	h.copy_kind = 1; /* ACL_MEMCPY_HOST_TO_DEVICE */
	h.copy_async = true;
	h.bytes = h.dest_max = 64;
	h.src = (struct pw_mem){.ptr = 0x50000, .dev = PW_NO_DEV};
	h.dst = (struct pw_mem){.ptr = 0x10000, .dev = 0, .known = true, .base = 0x10000, .size = 64};
	fires(PW_RULE_COPY_ACL_ASYNC_PAGEABLE, &h, "from host memory 0x50000", "CANN 8.0");
	h.src.host = true; /* aclrtMallocHost's */
	quiet(PW_RULE_COPY_ACL_ASYNC_PAGEABLE, &h);
	h.src.host = false;
	h.copy_async = false; /* aclrtMemcpy: no restriction */
	quiet(PW_RULE_COPY_ACL_ASYNC_PAGEABLE, &h);
	/* a freed side is copy.peer.freed's, never copy.acl.kind's host buffer */
	c.copy_async = false;
	c.copy_kind = 3;
	c.src = (struct pw_mem){.ptr = 0x20000, .dev = PW_NO_DEV, .freed = true};
	quiet(PW_RULE_COPY_ACL_KIND, &c);
	fires(PW_RULE_COPY_PEER_FREED, &c, "already freed", NULL);
	/* HIP peer copies: managed memory, host memory */
	struct pw_op p = op_of(PW_OP_PEER_COPY, "hipMemcpyPeer");
	p.vendor = PW_VENDOR_HIP;
	p.bytes = 4096;
	p.src =
	    (struct pw_mem){.ptr = 0x30000, .dev = PW_NO_DEV, .named_dev = 0, .managed = true, .known = true};
	p.dst = (struct pw_mem){.ptr = 0x40000, .dev = 1, .named_dev = 1, .known = true};
	fires(PW_RULE_COPY_PEER_MANAGED, &p, "from managed memory", "source");
	quiet(PW_RULE_COPY_PEER_HOST, &p);
	p.src.managed = false;
	p.src.plain_host = true;
	quiet(PW_RULE_COPY_PEER_MANAGED, &p);
	fires(PW_RULE_COPY_PEER_HOST, &p, "from host memory", "device pointer");
	/* HIP: managed memory without the capability check, per device */
	pw_state_reset(&st);
	struct pw_op m = op_of(PW_OP_ALLOC_MANAGED, "hipMallocManaged");
	m.vendor = PW_VENDOR_HIP;
	m.cur_dev = 1;
	fires(PW_RULE_MANAGED_ALLOC_UNQUERIED, &m, "device 1", "hipDeviceAttributeManagedMemory");
	struct pw_op ask = op_of(PW_OP_DEVICE_ATTR, "hipDeviceGetAttribute");
	ask.vendor = PW_VENDOR_HIP;
	ask.dev_attr = PW_DEVATTR_MANAGED;
	ask.cur_dev = 0;
	pw_state_update(&st, &ask, 0, false);
	fires(PW_RULE_MANAGED_ALLOC_UNQUERIED, &m, "device 1", NULL); /* device 0's answer is not 1's */
	ask.cur_dev = 1;
	ask.dev_attr = 0; /* another attribute */
	pw_state_update(&st, &ask, 0, false);
	fires(PW_RULE_MANAGED_ALLOC_UNQUERIED, &m, "device 1", NULL);
	ask.dev_attr = PW_DEVATTR_MANAGED;
	pw_state_update(&st, &ask, 1, false); /* asked, even if the answer was an error */
	quiet(PW_RULE_MANAGED_ALLOC_UNQUERIED, &m);
	pw_state_reset(&st);
}

static void count(void *arg, int rule, const char *msg)
{
	(void)msg;
	assert_int_equal(rule, PW_RULE_MANAGED_ALLOC_GRANULARITY);
	(*(int *)arg)++;
}

/* The first of another vendor's tokens in s, or NULL: for HIP and ACL,
 * CUDA's API and type names, error codes, numbers and variables; for ACL
 * also the word CUDA and HIP's names.  (HIP's managed.attach.portability
 * says what CUDA would refuse: the word alone is allowed in HIP's words.) */
static const char *foreign_token(int vendor, const char *s)
{
	static const char *const cuda[] = {
	    "cuda",     "CUDA_", "CUDA 2",   "CU_",     "CUcontext", "CUdevice", "CUmem", "cuCtx", "cuMem",
	    "cuDevice", "cuIpc", "cuStream", "cuEvent", "cuPointer", "217",      "711",   "709"};
	static const char *const not_acl[] = {"CUDA",   "HIP",       "hipError", "hipDevice", "hipMem",
	                                      "hipIpc", "hipMalloc", "hipFree",  "hipEvent",  "hipStream"};
	static const char *const not_hip[] = {"aclrt", "ACL_"};
	if (vendor == PW_VENDOR_CUDA)
		return NULL;
	for (size_t i = 0; i < sizeof cuda / sizeof *cuda; i++)
		if (strstr(s, cuda[i]))
			return cuda[i];
	if (vendor == PW_VENDOR_ACL) {
		for (size_t i = 0; i < sizeof not_acl / sizeof *not_acl; i++)
			if (strstr(s, not_acl[i]))
				return not_acl[i];
	} else {
		for (size_t i = 0; i < sizeof not_hip / sizeof *not_hip; i++)
			if (strstr(s, not_hip[i]))
				return not_hip[i];
	}
	return NULL;
}

/* Every (rule, vendor) pair of a rule's vendor mask has its words, all of
 * them: document, sentence, page, runtime and fix; HIP's and ACL's name
 * none of another vendor's calls, codes or variables; a quote does not
 * speak of peerwatch (its notes go in the document, outside the quotes). */
static void vendor_words(void **state)
{
	(void)state;
	static const char *const vname[] = {"CUDA", "HIP", "ACL"};
	int pairs = 0;
	for (int r = 0; r < PW_RULE_COUNT; r++)
		for (int v = 0; v < PW_VENDOR_COUNT; v++) {
			if (!((pw_rules[r].vendors >> v) & 1))
				continue;
			const struct pw_rule_cite *c = pw_rule_cite(r, v);
			if (!c) {
				fail_msg("%s: no words for %s (rules_cites.h)", pw_rules[r].id, vname[v]);
				continue;
			}
			pairs++;
			const char *what[] = {c->document, c->quote, c->url, c->runtime, c->fix};
			static const char *const field[] = {"document", "quote", "url", "runtime", "fix"};
			for (int f = 0; f < 5; f++) {
				if (!what[f] || strlen(what[f]) < 3)
					fail_msg("%s (%s): the %s is empty", pw_rules[r].id, vname[v],
					         field[f]);
				const char *t = foreign_token(v, what[f]);
				if (t && f != 2)
					fail_msg("%s (%s): its %s says \"%s\": \"%s\"", pw_rules[r].id,
					         vname[v], field[f], t, what[f]);
			}
			if (strncmp(c->url, "https://", 8))
				fail_msg("%s (%s): the page is no https address: \"%s\"", pw_rules[r].id,
				         vname[v], c->url);
			if (strstr(c->quote, "peerwatch"))
				fail_msg("%s (%s): the quote speaks of peerwatch", pw_rules[r].id, vname[v]);
		}
	assert_true(pairs >= PW_RULE_COUNT);
	/* the check itself: it finds what it looks for */
	assert_non_null(foreign_token(PW_VENDOR_ACL, "rejects: CUDA 217"));
	assert_non_null(foreign_token(PW_VENDOR_HIP, "use cudaGetDeviceCount"));
	assert_non_null(foreign_token(PW_VENDOR_ACL, "hipErrorInvalidDevice"));
	assert_null(foreign_token(PW_VENDOR_ACL, "ACL_ERROR_RT_INVALID_DEVICEID (107001)"));
	assert_null(foreign_token(PW_VENDOR_HIP, "hipErrorInvalidDevice (101)"));
}

static void catalog_and_dispatch(void **state)
{
	(void)state;
	for (int r = 0; r < PW_RULE_COUNT; r++) {
		assert_non_null(pw_rules[r].check);
		assert_true(strlen(pw_rules[r].source) > 10);
		assert_int_equal(pw_rule_by_id(pw_rules[r].id), r);
	}
	assert_int_equal(pw_rule_by_id("no.such.rule"), -1);
	/* Each rule's contract is cited for each of its vendors, once, in that
	 * vendor's own document; no rule is cited for a vendor it does not check. */
	static const char *const doc_of[] = {"CUDA ", "HIP ", "CANN AscendCL"};
	for (int r = 0; r < PW_RULE_COUNT; r++)
		for (int v = 0; v < PW_VENDOR_COUNT; v++) {
			int n = 0;
			for (int i = 0; i < pw_rule_ncites; i++)
				if (pw_rule_cites[i].rule == r && (pw_rule_cites[i].vendors & (1u << v))) {
					n++;
					if (strncmp(pw_rule_cites[i].document, doc_of[v], strlen(doc_of[v])))
						fail_msg("%s: the %s cite is from %s", pw_rules[r].id,
						         doc_of[v], pw_rule_cites[i].document);
					assert_true(strlen(pw_rule_cites[i].quote) > 10);
				}
			if (n != (int)((pw_rules[r].vendors >> v) & 1))
				fail_msg("%s: %d cites for vendor %d", pw_rules[r].id, n, v);
			const struct pw_rule_cite *c = pw_rule_cite(r, v);
			assert_true((c != NULL) == (((pw_rules[r].vendors >> v) & 1) != 0));
		}
	/* The dispatcher runs only the rules of the call's kind and vendor. */
	struct pw_op op = op_of(PW_OP_ALLOC_MANAGED, "cuMemAllocManaged");
	op.bytes = 100; /* granularity is a HIP rule: not for CUDA */
	op.flags = 1;
	int n = 0;
	assert_int_equal(pw_rules_check(&st, &op, count, &n), 0);
	op.vendor = PW_VENDOR_HIP;
	/* the capability check hipMallocManaged's note asks for, done (managed.alloc.unqueried) */
	struct pw_op ask = op_of(PW_OP_DEVICE_ATTR, "hipDeviceGetAttribute");
	ask.vendor = PW_VENDOR_HIP;
	ask.dev_attr = PW_DEVATTR_MANAGED;
	ask.cur_dev = op.cur_dev;
	pw_state_update(&st, &ask, 0, false);
	assert_int_equal(pw_rules_check(&st, &op, count, &n), 1);
	assert_int_equal(n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(vendor_words),
	    cmocka_unit_test_setup(peer_enable, setup),
	    cmocka_unit_test_setup(vendor_truth, setup),
	    cmocka_unit_test_setup(peer_unqueried, setup),
	    cmocka_unit_test_setup(peer_disable_and_limit, setup),
	    cmocka_unit_test_setup(copies, setup),
	    cmocka_unit_test_setup(peer_per_context, setup),
	    cmocka_unit_test_setup(copies_per_context, setup),
	    cmocka_unit_test_setup(acl_copies, setup),
	    cmocka_unit_test_setup(ipc_export, setup),
	    cmocka_unit_test_setup(ipc_open, setup),
	    cmocka_unit_test_setup(exports_tracked, setup),
	    cmocka_unit_test_setup(ipc_close_and_leak, setup),
	    cmocka_unit_test_setup(ipc_free_while_open, setup),
	    cmocka_unit_test_setup(ipc_unexported, setup),
	    cmocka_unit_test_setup(ipc_per_context, setup),
	    cmocka_unit_test_setup(ipc_reused_address, setup),
	    cmocka_unit_test_setup(ipc_lazy_enable, setup),
	    cmocka_unit_test_setup(ipc_free_imported, setup),
	    cmocka_unit_test_setup(ipc_events, setup),
	    cmocka_unit_test_setup(event_table_churn, setup),
	    cmocka_unit_test_setup(invalid_device, setup),
	    cmocka_unit_test_setup(error_sticky, setup),
	    cmocka_unit_test_setup(managed_alloc, setup),
	    cmocka_unit_test_setup(managed_advise, setup),
	    cmocka_unit_test_setup(managed_locations, setup),
	    cmocka_unit_test_setup(managed_pageable, setup),
	    cmocka_unit_test_setup(managed_prefetch, setup),
	    cmocka_unit_test_setup(managed_range_attr, setup),
	    cmocka_unit_test_setup(managed_attach, setup),
	    cmocka_unit_test_setup(acl_copy_kind, setup),
	    cmocka_unit_test_setup(catalog_and_dispatch, setup),
	};
	return cmocka_run_group_tests_name("rules", tests, NULL, NULL);
}

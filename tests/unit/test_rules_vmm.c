/*
 * The virtual-memory and pool rules (rules_vmm.c) as pure functions: each
 * fires on a case that breaks its contract, naming the values, and stays
 * quiet on the nearest correct one; the VMM state (vmm_state.c) that feeds
 * them; and the registry key of a shareable handle.  No runtime.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "peerwatch/abi/cuda.h"
#include "rules/rules.h"
#include "state/state.h"
#include "vendors/cuda/cuda_vmm_state.h"

static struct pw_state st;
static struct pw_vmm_state vs;

static int setup(void **state)
{
	(void)state;
	pw_state_reset(&st);
	pw_vmm_reset(&vs);
	return 0;
}

static struct pw_op op_of(enum pw_op_kind kind, const char *api)
{
	struct pw_op op;
	memset(&op, 0, sizeof op);
	op.kind = kind;
	op.vendor = PW_VENDOR_CUDA;
	op.api = api;
	op.loc_dev = PW_LOC_NONE;
	op.dst.dev = op.src.dev = op.dst.named_dev = op.src.named_dev = PW_NO_DEV;
	op.dst.p2p = op.src.p2p = -1;
	return op;
}

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
		fail_msg("%s fired: %s", pw_rules[rule].id, msg);
}

static void export_handle_type(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_VMM_EXPORT, "cuMemExportToShareableHandle");
	op.mem_handle = 0x1234;
	op.handle_type = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	quiet(PW_RULE_VMM_EXPORT_HANDLE_TYPE, &op); /* a handle we know nothing of */
	op.vmm_known = true;
	op.vmm_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;
	quiet(PW_RULE_VMM_EXPORT_HANDLE_TYPE, &op);
	op.handle_type = CU_MEM_HANDLE_TYPE_FABRIC;
	quiet(PW_RULE_VMM_EXPORT_HANDLE_TYPE, &op);
	op.vmm_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	fires(PW_RULE_VMM_EXPORT_HANDLE_TYPE, &op, "as fabric", "created for posix_fd");
	op.vmm_types = 0;
	op.handle_type = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	fires(PW_RULE_VMM_EXPORT_HANDLE_TYPE, &op, "0x1234", "no export at all");
	op.vmm_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	op.handle_type = CU_MEM_HANDLE_TYPE_NONE;
	fires(PW_RULE_VMM_EXPORT_HANDLE_TYPE, &op, "as none", NULL);
}

static void import_released(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_VMM_IMPORT, "cuMemImportFromShareableHandle");
	op.handle_type = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	quiet(PW_RULE_VMM_IMPORT_RELEASED, &op); /* not in the registry */
	op.reg_known = true;
	op.reg_exporter_pid = 4321;
	op.reg_exporter_alive = true;
	quiet(PW_RULE_VMM_IMPORT_RELEASED, &op);
	op.reg_freed = true;
	fires(PW_RULE_VMM_IMPORT_RELEASED, &op, "pid 4321", "posix_fd");
	op.reg_exporter_alive = false;
	fires(PW_RULE_VMM_IMPORT_RELEASED, &op, "has exited", NULL);
}

static void copy_no_access(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_PEER_COPY, "cuMemcpyPeer");
	op.bytes = 4096;
	op.dst.ptr = 0x10000;
	op.dst.dev = 1;
	op.src.ptr = 0x20000;
	op.src.dev = 0;
	quiet(PW_RULE_VMM_COPY_NO_ACCESS, &op); /* no mapping involved */
	op.vmm_dst_mapped = true;
	op.vmm_dst_rw = 1u << 1;
	fires(PW_RULE_VMM_COPY_NO_ACCESS, &op, "into the mapping at 0x10000", "device 0 was not granted");
	op.vmm_dst_rw = 1u << 1 | 1u << 0;
	quiet(PW_RULE_VMM_COPY_NO_ACCESS, &op);
	/* read-only access is not enough for a destination */
	op.vmm_dst_rw = 1u << 1;
	op.src.dev = PW_NO_DEV;
	op.src.named_dev = 0; /* the device the call names stands in */
	fires(PW_RULE_VMM_COPY_NO_ACCESS, &op, "device 0", NULL);
	/* a copy within one device is not a peer access */
	op.src.named_dev = 1;
	quiet(PW_RULE_VMM_COPY_NO_ACCESS, &op);
	/* the source side: the destination's device must be able to read it */
	op = op_of(PW_OP_PEER_COPY, "cuMemcpyPeerAsync");
	op.bytes = 64;
	op.dst.ptr = 0x30000;
	op.dst.dev = 2;
	op.src.ptr = 0x40000;
	op.src.dev = 0;
	op.vmm_src_mapped = true;
	op.vmm_src_read = 1u << 0;
	fires(PW_RULE_VMM_COPY_NO_ACCESS, &op, "out of the mapping at 0x40000", "device 2");
	op.vmm_src_read |= 1u << 2;
	quiet(PW_RULE_VMM_COPY_NO_ACCESS, &op);
	op.dst.dev = PW_NO_DEV; /* unknown: nothing to say */
	op.vmm_src_read = 0;
	quiet(PW_RULE_VMM_COPY_NO_ACCESS, &op);
}

static void leak(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_VMM_EXIT, "exit");
	op.dst.ptr = 0x7f0000000000;
	op.vmm_map_size = 2 << 20;
	op.mem_handle = 0xabc;
	fires(PW_RULE_VMM_LEAK, &op, "0x7f0000000000", "2097152 bytes of handle 0xabc");
}

static void legacy_ipc_on_pool_or_vmm(void **state)
{
	(void)state;
	struct pw_op op = op_of(PW_OP_IPC_EXPORT, "cuIpcGetMemHandle");
	op.dst.ptr = 0x5000;
	quiet(PW_RULE_IPC_EXPORT_POOL_OR_VMM, &op);
	op.dst_pool = true;
	fires(PW_RULE_IPC_EXPORT_POOL_OR_VMM, &op, "cuMemPoolExportPointer", "stream-ordered pool");
	op.dst_pool = false;
	op.dst_vmm = true;
	fires(PW_RULE_IPC_EXPORT_POOL_OR_VMM, &op, "cuMemExportToShareableHandle", "cuMemMap");
}

struct tally {
	int n, rule;
};
static void tally(void *arg, int rule, const char *msg)
{
	(void)msg;
	struct tally *t = arg;
	t->n++;
	t->rule = rule;
}

/* The dispatcher sends each new kind to its rules only, and only for CUDA. */
static void dispatch(void **state)
{
	(void)state;
	struct tally t = {0, -1};
	struct pw_op op = op_of(PW_OP_VMM_EXIT, "exit");
	assert_int_equal(pw_rules_check(&st, &op, tally, &t), 1);
	assert_int_equal(t.rule, PW_RULE_VMM_LEAK);
	op.vendor = PW_VENDOR_HIP;
	assert_int_equal(pw_rules_check(&st, &op, tally, &t), 0);
	op = op_of(PW_OP_IPC_EXPORT, "cuIpcGetMemHandle");
	op.dst.ptr = op.dst.base = 0x5000;
	op.dst.known = true;
	op.dst_pool = true;
	t.n = 0;
	assert_int_equal(pw_rules_check(&st, &op, tally, &t), 1);
	assert_int_equal(t.rule, PW_RULE_IPC_EXPORT_POOL_OR_VMM);
	/* kinds without rules: nothing */
	op = op_of(PW_OP_POOL_IMPORT_PTR, "cuMemPoolImportPointer");
	assert_int_equal(pw_rules_check(&st, &op, tally, &t), 0);
}

static void state_handles(void **state)
{
	(void)state;
	unsigned types = 0;
	int dev = -1;
	unsigned char key[PW_IPC_HANDLE_BYTES], keys[PW_VMM_MAX_KEYS][PW_IPC_HANDLE_BYTES];
	assert_false(pw_vmm_handle_info(&vs, 0x10, &types, &dev));
	pw_vmm_created(&vs, 0x10, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1, 2 << 20, false);
	assert_true(pw_vmm_handle_info(&vs, 0x10, &types, &dev));
	assert_int_equal(types, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	assert_int_equal(dev, 1);
	memset(key, 7, sizeof key);
	pw_vmm_exported(&vs, 0x10, key);
	pw_vmm_exported(&vs, 0x10, key); /* the same file twice: once */
	pw_vmm_retained(&vs, 0x10);
	assert_int_equal(pw_vmm_released(&vs, 0x10, keys), 0); /* one reference left */
	assert_true(pw_vmm_handle_info(&vs, 0x10, &types, &dev));
	assert_int_equal(pw_vmm_released(&vs, 0x10, keys), 1);
	assert_memory_equal(keys[0], key, sizeof key);
	assert_false(pw_vmm_handle_info(&vs, 0x10, &types, &dev));
}

static void state_mappings(void **state)
{
	(void)state;
	struct pw_vmm_map m;
	int cursor = 0;
	const uint64_t base = 0x7f0000000000, mb2 = 2 << 20;
	pw_vmm_created(&vs, 0x20, 0, 1, 2 * mb2, false);
	assert_false(pw_vmm_map_of(&vs, base, &m));
	pw_vmm_mapped(&vs, base, mb2, 0x20);
	pw_vmm_mapped(&vs, base + mb2, mb2, 0x20);
	assert_true(pw_vmm_map_of(&vs, base + 100, &m));
	assert_int_equal(m.dev, 1);
	assert_int_equal(m.rw, 0);
	/* readwrite for 0 and 1 over both, then read-only for 1 over the second */
	pw_vmm_access(&vs, base, 2 * mb2, 0x3, 0, 0);
	pw_vmm_access(&vs, base + mb2, mb2, 0, 0x2, 0);
	assert_true(pw_vmm_map_of(&vs, base, &m));
	assert_int_equal(m.rw, 0x3);
	assert_true(pw_vmm_map_of(&vs, base + mb2 + 5, &m));
	assert_int_equal(m.rw, 0x1);
	assert_int_equal(m.read, 0x3);
	pw_vmm_access(&vs, base + mb2, mb2, 0, 0, 0x1);
	assert_true(pw_vmm_map_of(&vs, base + mb2, &m));
	assert_int_equal(m.rw, 0);
	assert_int_equal(m.read, 0x2);
	/* a range that only overlaps a mapping changes nothing */
	pw_vmm_access(&vs, base + 4096, mb2, 0x4, 0, 0);
	assert_true(pw_vmm_map_of(&vs, base, &m));
	assert_int_equal(m.rw, 0x3);
	pw_vmm_unmapped(&vs, base, mb2);
	assert_false(pw_vmm_map_of(&vs, base, &m));
	assert_true(pw_vmm_next_map(&vs, &cursor, &m));
	assert_true(m.ptr == base + mb2);
	assert_false(pw_vmm_next_map(&vs, &cursor, &m));
	pw_vmm_unmapped(&vs, base, 2 * mb2);
	assert_int_equal(atomic_load(&vs.nmaps), 0);
}

/* The registry key of an fd is its file's: the same through a dup, another
 * for another file; a fabric handle is its bytes. */
static void shareable_keys(void **state)
{
	(void)state;
	unsigned char a[PW_IPC_HANDLE_BYTES], b[PW_IPC_HANDLE_BYTES], fab[64];
	int fd = memfd_create("pw-test", MFD_CLOEXEC), fd2 = dup(fd),
	    other = memfd_create("pw-test2", MFD_CLOEXEC);
	assert_true(fd >= 0 && fd2 >= 0 && other >= 0);
	assert_true(pw_vmm_key(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, (uint64_t)fd, a));
	assert_true(pw_vmm_key(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, (uint64_t)fd2, b));
	assert_memory_equal(a, b, sizeof a);
	assert_memory_equal(a, "PWFD", 4);
	assert_true(pw_vmm_key(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, (uint64_t)other, b));
	assert_memory_not_equal(a, b, sizeof a);
	close(other);
	assert_false(pw_vmm_key(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, (uint64_t)other, b));
	memset(fab, 0x5a, sizeof fab);
	assert_true(pw_vmm_key(CU_MEM_HANDLE_TYPE_FABRIC, (uint64_t)(uintptr_t)fab, b));
	assert_memory_equal(b, fab, sizeof fab);
	assert_false(pw_vmm_key(CU_MEM_HANDLE_TYPE_WIN32, 5, b));
	/* a character device (the real driver's /dev/nvidiactl) names no allocation */
	int dev = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(dev >= 0);
	assert_false(pw_vmm_key(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, (uint64_t)dev, b));
	close(dev);
	close(fd);
	close(fd2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(export_handle_type, setup),
	    cmocka_unit_test_setup(import_released, setup),
	    cmocka_unit_test_setup(copy_no_access, setup),
	    cmocka_unit_test_setup(leak, setup),
	    cmocka_unit_test_setup(legacy_ipc_on_pool_or_vmm, setup),
	    cmocka_unit_test_setup(dispatch, setup),
	    cmocka_unit_test_setup(state_handles, setup),
	    cmocka_unit_test_setup(state_mappings, setup),
	    cmocka_unit_test_setup(shareable_keys, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Encoding of the virtual-memory, pool and batch-prefetch kinds, parsed back
 * with jansson: the shapes docs/trace-format.md gives them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
	c.seq = 7;
	c.ret = ret;
	c.cur_dev = PW_NO_DEV;
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c.dev[i] = PW_NO_DEV;
	return c;
}

#define ARGS(j) json_object_get(j, "args")
#define INT(j, k) json_integer_value(json_object_get(j, k))
#define STR(j, k) json_string_value(json_object_get(j, k))

static void create(void **state)
{
	(void)state;
	CUmemGenericAllocationHandle h = 0xabcdef;
	CUmemAllocationProp p;
	memset(&p, 0, sizeof p);
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 1;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemCreate), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&h;
	c.a[1] = 2 << 20;
	c.a[2] = (uintptr_t)&p;
	json_t *j = encode(&c), *a = ARGS(j);
	assert_string_equal(STR(j, "family"), "support");
	assert_string_equal(STR(a, "handle"), "0xabcdef");
	assert_int_equal(INT(a, "bytes"), 2 << 20);
	assert_int_equal(INT(a, "dev"), 1);
	json_t *t = json_object_get(a, "handle_types");
	assert_int_equal(json_array_size(t), 2);
	assert_string_equal(json_string_value(json_array_get(t, 0)), "posix_fd");
	assert_string_equal(json_string_value(json_array_get(t, 1)), "fabric");
	assert_null(json_object_get(a, "prop"));
	json_decref(j);
	/* a failed call writes no handle */
	c.ret = CUDA_ERROR_OUT_OF_MEMORY;
	j = encode(&c);
	assert_null(json_object_get(ARGS(j), "handle"));
	json_decref(j);
}

static void set_access(void **state)
{
	(void)state;
	CUmemAccessDesc d[3] = {{{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE},
	                        {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, CU_MEM_ACCESS_FLAGS_PROT_READ},
	                        {{CU_MEM_LOCATION_TYPE_HOST, 0}, 7}};
	struct pw_call c = call_of(PW_CUDA_ID(cuMemSetAccess), CUDA_SUCCESS);
	c.a[0] = 0x7f0000000000;
	c.dev[0] = 1;
	c.a[1] = 2 << 20;
	c.a[2] = (uintptr_t)d;
	c.a[3] = 3;
	json_t *j = encode(&c), *a = ARGS(j);
	assert_string_equal(STR(j, "family"), "peer");
	assert_int_equal(INT(a, "ptr_dev"), 1);
	json_t *acc = json_object_get(a, "access");
	assert_int_equal(json_array_size(acc), 3);
	assert_int_equal(INT(json_array_get(acc, 0), "dev"), 0);
	assert_string_equal(STR(json_array_get(acc, 0), "flags"), "readwrite");
	assert_string_equal(STR(json_array_get(acc, 1), "flags"), "read");
	assert_int_equal(INT(json_array_get(acc, 2), "dev"), -1);
	assert_string_equal(STR(json_array_get(acc, 2), "type"), "host");
	assert_int_equal(INT(json_array_get(acc, 2), "flags"), 7);
	json_decref(j);
}

static void export_import(void **state)
{
	(void)state;
	int fd = memfd_create("pw-enc", MFD_CLOEXEC), out = fd;
	struct stat st;
	memset(&st, 0, sizeof st);
	char want[64];
	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	snprintf(want, sizeof want, "%llu:%llu", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino);
	struct pw_call c = call_of(PW_CUDA_ID(cuMemExportToShareableHandle), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&out;
	c.a[1] = 0x1234;
	c.a[2] = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	json_t *j = encode(&c), *a = ARGS(j);
	assert_string_equal(STR(j, "family"), "ipc");
	assert_int_equal(INT(a, "shareable"), fd);
	assert_string_equal(STR(a, "file_id"), want);
	assert_null(json_object_get(a, "file_id_unique"));
	assert_string_equal(STR(a, "handle_type"), "posix_fd");
	json_decref(j);
	/* the import names the fd by value: the same file_id through a dup */
	int fd2 = dup(fd);
	CUmemGenericAllocationHandle h = 0x99;
	c = call_of(PW_CUDA_ID(cuMemImportFromShareableHandle), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&h;
	c.a[1] = (uint64_t)fd2;
	c.a[2] = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	j = encode(&c);
	a = ARGS(j);
	assert_string_equal(STR(a, "handle"), "0x99");
	assert_int_equal(INT(a, "shareable"), fd2);
	assert_string_equal(STR(a, "file_id"), want);
	json_decref(j);
	/* a character device, as the real driver's /dev/nvidiactl: file_id pairs nothing */
	int dev = open("/dev/null", O_RDONLY | O_CLOEXEC);
	c.a[1] = (uint64_t)dev;
	j = encode(&c);
	assert_true(json_is_false(json_object_get(ARGS(j), "file_id_unique")));
	json_decref(j);
	/* fabric: the 64 bytes */
	CUmemFabricHandle fab;
	memset(&fab, 0xab, sizeof fab);
	c = call_of(PW_CUDA_ID(cuMemExportToShareableHandle), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&fab;
	c.a[2] = CU_MEM_HANDLE_TYPE_FABRIC;
	j = encode(&c);
	a = ARGS(j);
	assert_int_equal(strlen(STR(a, "shareable")), 128);
	assert_memory_equal(STR(a, "shareable"), "abababab", 8);
	assert_null(json_object_get(a, "file_id"));
	assert_string_equal(STR(a, "handle_type"), "fabric");
	json_decref(j);
	close(dev);
	close(fd2);
	close(fd);
}

static void pool_pointer(void **state)
{
	(void)state;
	CUmemPoolPtrExportData d;
	memset(&d, 0x11, sizeof d);
	CUdeviceptr p = 0x7f1000000000;
	struct pw_call c = call_of(PW_CUDA_ID(cuMemPoolImportPointer), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)&p;
	c.a[1] = 0x5000;
	c.a[2] = (uintptr_t)&d;
	json_t *j = encode(&c), *a = ARGS(j);
	assert_string_equal(STR(a, "ptr"), "0x7f1000000000");
	assert_string_equal(STR(a, "pool"), "0x5000");
	assert_int_equal(strlen(STR(a, "export_data")), 128);
	json_decref(j);
	/* the export's data is an output: absent when the call failed */
	c = call_of(PW_CUDA_ID(cuMemPoolExportPointer), CUDA_ERROR_INVALID_VALUE);
	c.a[0] = (uintptr_t)&d;
	c.a[1] = 0x7f1000000000;
	j = encode(&c);
	assert_null(json_object_get(ARGS(j), "export_data"));
	json_decref(j);
}

static void batch(void **state)
{
	(void)state;
	CUdeviceptr ptrs[20];
	size_t sizes[20], idx[2] = {0, 2};
	CUmemLocation locs[2] = {{CU_MEM_LOCATION_TYPE_DEVICE, 1}, {CU_MEM_LOCATION_TYPE_HOST, 0}};
	for (int i = 0; i < 20; i++) {
		ptrs[i] = 0x10000 + 0x1000 * (CUdeviceptr)i;
		sizes[i] = 100;
	}
	struct pw_call c = call_of(PW_CUDA_ID(cuMemPrefetchBatchAsync_ptsz), CUDA_SUCCESS);
	c.a[0] = (uintptr_t)ptrs;
	c.a[1] = (uintptr_t)sizes;
	c.a[2] = 20;
	c.a[3] = (uintptr_t)locs;
	c.a[4] = (uintptr_t)idx;
	c.a[5] = 2;
	json_t *j = encode(&c), *a = ARGS(j);
	assert_string_equal(STR(j, "family"), "managed");
	assert_string_equal(STR(j, "variant"), "_ptsz");
	assert_int_equal(INT(a, "count"), 20);
	assert_int_equal(INT(a, "bytes"), 2000); /* all 20 */
	json_t *r = json_object_get(a, "ranges");
	assert_int_equal(json_array_size(r), 16); /* the first 16 */
	assert_string_equal(STR(json_array_get(r, 1), "ptr"), "0x11000");
	assert_int_equal(INT(json_array_get(r, 1), "bytes"), 100);
	assert_int_equal(INT(json_array_get(r, 1), "dev"), 1);
	assert_int_equal(INT(json_array_get(r, 2), "dev"), -1);
	assert_null(json_object_get(a, "sizes"));
	assert_null(json_object_get(a, "locations"));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(create),       cmocka_unit_test(set_access), cmocka_unit_test(export_import),
	    cmocka_unit_test(pool_pointer), cmocka_unit_test(batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Device identity (preload/state/devices.c): the texts of UUIDs and bus ids, and
 * that a runtime is never asked about its devices before it was used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "state/devices.h"
#include "core/hooks.h"

static void uuid_binary(void **state)
{
	(void)state;
	static const unsigned char b[16] = {0x3c, 0x1b, 0x7f, 0x00, 0x12, 0x34, 0x45, 0x67,
	                                    0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67};
	char out[PW_UUID_LEN];
	pw_devices_uuid_text(b, out, sizeof out);
	/* as nvidia-smi -L prints it */
	assert_string_equal(out, "GPU-3c1b7f00-1234-4567-89ab-cdef01234567");
}

static void uuid_rocm(void **state)
{
	(void)state;
	/* ROCm's 16 ASCII hex digits are its UUID's text, as ROCR_VISIBLE_DEVICES takes it */
	char out[PW_UUID_LEN];
	pw_devices_uuid_text((const unsigned char *)"a1b2c3d4e5f60718", out, sizeof out);
	assert_string_equal(out, "GPU-a1b2c3d4e5f60718");
	/* one byte that is not a hex digit: binary after all */
	pw_devices_uuid_text((const unsigned char *)"a1b2c3d4e5f6071g", out, sizeof out);
	assert_string_equal(out, "GPU-61316232-6333-6434-6535-663630373167");
}

static void bus_ids(void **state)
{
	(void)state;
	char out[PW_BUS_LEN];
	pw_devices_bus_text("0000:1B:00.0", out, sizeof out);
	assert_string_equal(out, "0000:1b:00.0");
	pw_devices_bus_text("00000001:AA:1f.3", out, sizeof out); /* NVML's eight-digit domain */
	assert_string_equal(out, "0001:aa:1f.3");
	pw_devices_bus_text("not a bus id", out, sizeof out); /* kept, lower case */
	assert_string_equal(out, "not a bus id");
}

/* No vendor was used in this process: nothing is asked, nothing returned. */
static void nothing_before_use(void **state)
{
	(void)state;
	for (int v = 0; v < PW_VENDOR_COUNT; v++)
		assert_null(pw_devices_get(v));
	assert_null(pw_devices_get(-1));
	assert_null(pw_devices_get(PW_VENDOR_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(uuid_binary),
	    cmocka_unit_test(uuid_rocm),
	    cmocka_unit_test(bus_ids),
	    cmocka_unit_test(nothing_before_use),
	};
	return cmocka_run_group_tests_name("devices", tests, NULL, NULL);
}

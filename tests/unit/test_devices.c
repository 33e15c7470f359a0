/* Device identity (preload/state/devices.c): the texts of UUIDs and bus ids,
 * the identify body the CUDA driver and HIP share (preload/vendors/ident.h),
 * and that a runtime is never asked about its devices before it was used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- vendors/ident.h, with a made-up runtime's types ---- */

enum fake_result { FAKE_OK = 7, FAKE_FAILED }; /* success is not 0: the body compares with it */
struct fake_uuid {
	char bytes[16];
};
typedef enum { FAKE_A = 11, FAKE_B = 22, FAKE_C = 33, FAKE_D = 44 } fake_attr;
#define PW_IDENT_RESULT enum fake_result
#define PW_IDENT_SUCCESS FAKE_OK
#define PW_IDENT_UUID struct fake_uuid
#define PW_IDENT_DEV int
#define PW_IDENT_ATTR fake_attr
#include "vendors/ident.h"

#define UNTOUCHED (-7) /* what the set held before: a member nothing answered keeps it */

/* Device 1 gives no UUID, device 2 no name; the pair (2, 0) no answer at
 * all; every other answer encodes what was asked. */
static enum fake_result fake_uuid(struct fake_uuid *u, int d)
{
	if (d == 1)
		return FAKE_FAILED;
	memset(u->bytes, 0, sizeof u->bytes);
	u->bytes[15] = (char)d;
	return FAKE_OK;
}

static enum fake_result fake_bus(char *buf, int len, int d)
{
	snprintf(buf, (size_t)len, "0000:%02X:00.0", 0x10 * (d + 1));
	return FAKE_OK;
}

static enum fake_result fake_name(char *buf, int len, int d)
{
	snprintf(buf, (size_t)len, "dev %d", d);
	return d == 2 ? FAKE_FAILED : FAKE_OK; /* what it wrote is not taken */
}

static enum fake_result fake_can(int *v, int d, int p)
{
	if (d == 2 && p == 0)
		return FAKE_FAILED;
	*v = (d + p) % 2;
	return FAKE_OK;
}

static enum fake_result fake_attr_of(int *v, fake_attr a, int d, int p)
{
	if (d == 2 && p == 0)
		return FAKE_FAILED;
	*v = 100 * (int)a + 10 * d + p;
	return FAKE_OK;
}

/* devices.h's attributes in the made-up runtime's numbering */
static const fake_attr fake_code[PW_PAIR_ATTRS] = {[PW_PAIR_RANK] = FAKE_A,
                                                   [PW_PAIR_ACCESS] = FAKE_B,
                                                   [PW_PAIR_ATOMICS] = FAKE_C,
                                                   [PW_PAIR_ARRAY_ACCESS] = FAKE_D};

static struct pw_devset *untouched_set(void)
{
	struct pw_devset *s = calloc(1, sizeof *s);
	assert_non_null(s);
	s->pair = calloc((size_t)PW_MAX_DEV * PW_MAX_DEV, sizeof *s->pair);
	assert_non_null(s->pair);
	s->n = UNTOUCHED;
	for (int d = 0; d < PW_MAX_DEV; d++)
		snprintf(s->dev[d].name, sizeof s->dev[d].name, "before");
	for (int i = 0; i < PW_MAX_DEV * PW_MAX_DEV; i++) {
		struct pw_pair_info *p = &s->pair[i];
		p->can_access = p->perf_rank = p->access = p->atomics = p->array_access = UNTOUCHED;
	}
	return s;
}

static void set_free(struct pw_devset *s)
{
	free(s->pair);
	free(s);
}

static void ident_every_answer(void **state)
{
	(void)state;
	const struct pw_ident_fns f = {.uuid = fake_uuid,
	                               .bus_id = fake_bus,
	                               .name = fake_name,
	                               .can_access = fake_can,
	                               .p2p_attr = fake_attr_of};
	struct pw_devset *s = untouched_set();
	assert_true(pw_ident_fill(s, 3, &f, fake_code));
	assert_int_equal(s->n, 3);
	assert_string_equal(s->dev[0].uuid, "GPU-00000000-0000-0000-0000-000000000000");
	assert_string_equal(s->dev[1].uuid, ""); /* no answer */
	assert_string_equal(s->dev[2].uuid, "GPU-00000000-0000-0000-0000-000000000002");
	assert_string_equal(s->dev[1].bus_id, "0000:20:00.0"); /* as bus_text writes it */
	assert_string_equal(s->dev[1].name, "dev 1");
	assert_string_equal(s->dev[2].name, ""); /* the runtime said it failed */
	/* each attribute in its member, by the runtime's code, asked (dev, peer) */
	const struct pw_pair_info *i = pw_devset_pair(s, 1, 2);
	assert_int_equal(i->can_access, 1);
	assert_int_equal(i->perf_rank, 100 * FAKE_A + 12);
	assert_int_equal(i->access, 100 * FAKE_B + 12);
	assert_int_equal(i->atomics, 100 * FAKE_C + 12);
	assert_int_equal(i->array_access, 100 * FAKE_D + 12);
	assert_int_equal(pw_devset_pair(s, 0, 2)->can_access, 0);
	i = pw_devset_pair(s, 2, 0); /* no answer: unknown */
	assert_int_equal(i->can_access, -1);
	assert_int_equal(i->perf_rank, -1);
	assert_int_equal(i->array_access, -1);
	/* the diagonal is not asked */
	assert_int_equal(pw_devset_pair(s, 1, 1)->can_access, UNTOUCHED);
	set_free(s);
}

/* A runtime without some of the calls: what it cannot answer is unknown. */
static void ident_missing_calls(void **state)
{
	(void)state;
	const struct pw_ident_fns f = {.uuid = fake_uuid, .can_access = fake_can};
	struct pw_devset *s = untouched_set();
	assert_true(pw_ident_fill(s, 2, &f, fake_code));
	assert_int_equal(s->n, 2);
	assert_string_equal(s->dev[0].bus_id, "");
	assert_string_equal(s->dev[0].name, "");
	const struct pw_pair_info *i = pw_devset_pair(s, 0, 1);
	assert_int_equal(i->can_access, 1);
	assert_int_equal(i->perf_rank, -1);
	assert_int_equal(i->array_access, -1);
	set_free(s);
}

/* No devices (or not initialized yet): false, the set as it was; more than
 * the set holds: the first PW_MAX_DEV. */
static void ident_counts(void **state)
{
	(void)state;
	const struct pw_ident_fns f = {.name = fake_name};
	struct pw_devset *s = untouched_set();
	assert_false(pw_ident_fill(s, 0, &f, fake_code));
	assert_false(pw_ident_fill(s, -1, &f, fake_code));
	assert_int_equal(s->n, UNTOUCHED);
	assert_string_equal(s->dev[0].name, "before");
	assert_true(pw_ident_fill(s, PW_MAX_DEV + 5, &f, fake_code));
	assert_int_equal(s->n, PW_MAX_DEV);
	char last[16];
	snprintf(last, sizeof last, "dev %d", PW_MAX_DEV - 1);
	assert_string_equal(s->dev[PW_MAX_DEV - 1].name, last);
	set_free(s);
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
	    cmocka_unit_test(ident_every_answer),
	    cmocka_unit_test(ident_missing_calls),
	    cmocka_unit_test(ident_counts),
	    cmocka_unit_test(nothing_before_use),
	};
	return cmocka_run_group_tests_name("devices", tests, NULL, NULL);
}

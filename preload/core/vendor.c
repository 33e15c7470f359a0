/* The shared code's loops over the vendor libraries (vendor.h). */
#include "core/vendor.h"

#include "state/devices.h"
#include "state/op.h"
#include "core/pw.h"
#include "record/trace.h"

void pw_vendors_describe(void *json_vendors)
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->describe)
			(*v)->describe(json_vendors);
}

static void gt_collect(bool final)
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->gt_collect)
			(*v)->gt_collect(final);
}

void pw_vendors_tick(bool final)
{
	pw_devices_tick(final);
	if (pw_g.opt.gpu_timing)
		gt_collect(final);
}

/* What the constructor (init.c) installs as the writer's round when
 * gpu_timing=1: the same round, devices included. */
void pw_vendors_gt_collect(bool final)
{
	pw_vendors_tick(final);
}

/* The writer's round is this file's whatever the options: installed here,
 * before or after the constructor installs pw_vendors_gt_collect (the same
 * round) for gpu_timing=1. */
__attribute__((constructor)) static void install_tick(void)
{
	pw_trace_set_tick(pw_vendors_tick);
}

uint64_t pw_vendors_gt_skipped(void)
{
	uint64_t n = 0;
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->gt_skipped)
			n += (*v)->gt_skipped();
	return n;
}

void pw_vendors_after_fork(void)
{
	pw_devices_after_fork();
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->after_fork)
			(*v)->after_fork();
}

void pw_vendors_exit_ops(void (*run)(const struct pw_op *op))
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++) {
		struct pw_op op;
		for (int cursor = 0; (*v)->exit_op && (*v)->exit_op(&cursor, &op);)
			run(&op);
	}
}

const char *pw_vendor_name(int v)
{
	static const char *const names[] = {"cuda", "hip", "acl"};
	return v >= 0 && v < PW_VENDOR_COUNT ? names[v] : "?";
}

const char *pw_family_name(int f)
{
	static const char *const names[] = {"peer", "copy", "ipc", "managed", "support"};
	return f >= 0 && f <= PW_FAM_SUPPORT ? names[f] : "?";
}

/* The shared code's loops over the vendor libraries (vendor.h). */
#include "core/vendor.h"

#include "core/pw.h"

void pw_vendors_describe(void *json_vendors)
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->describe)
			(*v)->describe(json_vendors);
}

void pw_vendors_gt_collect(bool final)
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->gt_collect)
			(*v)->gt_collect(final);
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
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->after_fork)
			(*v)->after_fork();
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

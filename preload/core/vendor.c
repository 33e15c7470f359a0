/* The shared code's loops over the vendor libraries (vendor.h). */
#include "core/vendor.h"

#include <string.h>

#include "core/intercept.h"
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

void pw_vendors_prof_collect(bool final)
{
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++)
		if ((*v)->prof_collect)
			(*v)->prof_collect(final);
}

bool pw_vendors_um_footer(uint64_t *events, uint64_t *lost, const char **off)
{
	bool any = false;
	*events = *lost = 0;
	*off = NULL;
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++) {
		uint64_t e, l;
		const char *o;
		if ((*v)->um_footer && (*v)->um_footer(&e, &l, &o)) {
			any = true;
			*events += e;
			*lost += l;
			if (o)
				*off = o;
		}
	}
	return any;
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

/* ---- the resolvers' shared steps ---- */

void *pw_vendor_resolved(const struct pw_vendor *v, int id, void *f)
{
	if (f == v->wrappers[id])
		f = NULL;
	if (f)
		atomic_store_explicit(&v->real[id], f, memory_order_release);
	return f;
}

int pw_vendor_row(const struct pw_vendor *v, const char *name)
{
	for (int id = 0; id < v->nfns; id++)
		if (!strcmp(name, v->fns[id].symbol))
			return id;
	return -1;
}

void pw_vendor_addresses(const struct pw_vendor *v, void *handle, void **addr)
{
	for (int id = 0; id < v->nfns; id++)
		addr[id] = pw_real_dlsym(handle, v->fns[id].symbol);
}

int pw_vendor_row_at(const struct pw_vendor *v, void *const *addr, const void *fn)
{
	for (int id = 0; id < v->nfns; id++)
		if (addr[id] == fn)
			return id;
	return -1;
}

void *pw_vendor_adopt(const struct pw_vendor *v, int id, void *fn, const char *lib)
{
	void *expected = NULL;
	if (atomic_compare_exchange_strong(&v->real[id], &expected, fn))
		pw_debug("%s: the %s's function at %p is now reached through peerwatch", v->fns[id].symbol,
		         lib, fn);
	return v->wrappers[id];
}

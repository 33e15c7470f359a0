/*
 * The one identify body (vendor.h's identify hook, devices.h) of the
 * runtimes whose identity calls have the same shapes, the CUDA driver's
 * and HIP's:
 *
 *   uuid(&uuid, dev)                 bus_id(buf, len, dev)
 *   name(buf, len, dev)              can_access(&v, dev, peer)
 *   p2p_attr(&v, attribute, dev, peer)
 *
 * Only their types, success code and attribute codes differ.  So that
 * every function is called through its own type, the vendor's ident file
 * defines them, then includes this file, whose body is compiled with them:
 *
 *   PW_IDENT_RESULT   the result type        PW_IDENT_SUCCESS  its success
 *   PW_IDENT_UUID     the UUID struct (16 bytes in .bytes)
 *   PW_IDENT_DEV      the device ordinal     PW_IDENT_ATTR     the attribute
 *
 * and passes its attribute codes to pw_ident_fill, in pw_pair_attr's order.
 * Asked untraced, on the writer's thread (or a slow path's), never on the
 * hot path.
 */
#ifndef PW_VENDORS_IDENT_H
#define PW_VENDORS_IDENT_H

#include <stdbool.h>

#include "state/devices.h"

/* The P2P attributes of a pair's line (struct pw_pair_info), in the order
 * they are asked. */
enum pw_pair_attr { PW_PAIR_RANK, PW_PAIR_ACCESS, PW_PAIR_ATOMICS, PW_PAIR_ARRAY_ACCESS, PW_PAIR_ATTRS };

typedef PW_IDENT_RESULT (*pw_ident_uuid_fn)(PW_IDENT_UUID *, PW_IDENT_DEV);
typedef PW_IDENT_RESULT (*pw_ident_text_fn)(char *, int, PW_IDENT_DEV);
typedef PW_IDENT_RESULT (*pw_ident_can_fn)(int *, PW_IDENT_DEV, PW_IDENT_DEV);
typedef PW_IDENT_RESULT (*pw_ident_attr_fn)(int *, PW_IDENT_ATTR, PW_IDENT_DEV, PW_IDENT_DEV);

/* The runtime's functions, each NULL where it has none (what it would
 * answer stays unknown). */
struct pw_ident_fns {
	pw_ident_uuid_fn uuid;
	pw_ident_text_fn bus_id, name;
	pw_ident_can_fn can_access;
	pw_ident_attr_fn p2p_attr;
};

static int pw_ident_pair(const struct pw_ident_fns *f, PW_IDENT_ATTR attr, int d, int p)
{
	int v = -1;
	return f->p2p_attr && f->p2p_attr(&v, attr, d, p) == PW_IDENT_SUCCESS ? v : -1;
}

/* s->n from the n devices the runtime counted (at most PW_MAX_DEV), then
 * each device's identity and each pair's answers; false, s untouched, when
 * n is not positive (not initialized yet, or no device). */
static bool pw_ident_fill(struct pw_devset *s, int n, const struct pw_ident_fns *f,
                          const PW_IDENT_ATTR code[PW_PAIR_ATTRS])
{
	if (n <= 0)
		return false;
	s->n = n < PW_MAX_DEV ? n : PW_MAX_DEV;
	for (int d = 0; d < s->n; d++) {
		struct pw_dev_info *i = &s->dev[d];
		PW_IDENT_UUID u;
		char b[64];
		if (f->uuid && f->uuid(&u, d) == PW_IDENT_SUCCESS)
			pw_devices_uuid_text((const unsigned char *)u.bytes, i->uuid, sizeof i->uuid);
		if (f->bus_id && f->bus_id(b, (int)sizeof b, d) == PW_IDENT_SUCCESS)
			pw_devices_bus_text(b, i->bus_id, sizeof i->bus_id);
		if (!f->name || f->name(i->name, (int)sizeof i->name, d) != PW_IDENT_SUCCESS)
			i->name[0] = 0;
	}
	for (int d = 0; d < s->n; d++)
		for (int p = 0; p < s->n; p++) {
			if (p == d)
				continue;
			struct pw_pair_info *i = pw_devset_pair(s, d, p);
			int v = -1;
			i->can_access = f->can_access && f->can_access(&v, d, p) == PW_IDENT_SUCCESS ? v : -1;
			i->perf_rank = pw_ident_pair(f, code[PW_PAIR_RANK], d, p);
			i->access = pw_ident_pair(f, code[PW_PAIR_ACCESS], d, p);
			i->atomics = pw_ident_pair(f, code[PW_PAIR_ATOMICS], d, p);
			i->array_access = pw_ident_pair(f, code[PW_PAIR_ARRAY_ACCESS], d, p);
		}
	return true;
}

#endif

/*
 * The HIP devices this process sees (devices.h): the runtime's UUID, PCI
 * bus id and name of each, and its answers for each pair.  Asked untraced,
 * once, on the trace writer's thread, and only after a traced call of the
 * program has initialized the runtime (asking first would initialize it
 * ourselves, before the program may have chosen its devices).  ROCm's
 * management library (link types) is not asked: links are "unknown".
 */
#include "state/devices.h"
#include "vendors/hip/hip.h"
#include "peerwatch/abi/hip.h"

typedef hipError_t (*count_fn)(int *);
typedef hipError_t (*uuid_fn)(hipUUID *, hipDevice_t);
typedef hipError_t (*text_fn)(char *, int, int);
typedef hipError_t (*can_fn)(int *, int, int);
typedef hipError_t (*attr_fn)(int *, hipDeviceP2PAttr, int, int);

static int attr(attr_fn f, hipDeviceP2PAttr a, int d, int p)
{
	int v = -1;
	return f && f(&v, a, d, p) == hipSuccess ? v : -1;
}

bool pw_hip_identify(struct pw_devset *s)
{
	count_fn count = (count_fn)pw_hip_aux("hipGetDeviceCount");
	int n = 0;
	if (!count || count(&n) != hipSuccess || n <= 0)
		return false;
	s->n = n < PW_MAX_DEV ? n : PW_MAX_DEV;
	uuid_fn uuid = (uuid_fn)pw_hip_aux("hipDeviceGetUuid");
	text_fn bus = (text_fn)pw_hip_aux("hipDeviceGetPCIBusId");
	text_fn name = (text_fn)pw_hip_aux("hipDeviceGetName");
	can_fn can = (can_fn)pw_hip_aux("hipDeviceCanAccessPeer");
	attr_fn p2p = (attr_fn)pw_hip_aux("hipDeviceGetP2PAttribute");
	for (int d = 0; d < s->n; d++) {
		struct pw_dev_info *i = &s->dev[d];
		hipUUID u;
		char b[64];
		if (uuid && uuid(&u, d) == hipSuccess)
			pw_devices_uuid_text((const unsigned char *)u.bytes, i->uuid, sizeof i->uuid);
		if (bus && bus(b, (int)sizeof b, d) == hipSuccess)
			pw_devices_bus_text(b, i->bus_id, sizeof i->bus_id);
		if (!name || name(i->name, (int)sizeof i->name, d) != hipSuccess)
			i->name[0] = 0;
	}
	for (int d = 0; d < s->n; d++)
		for (int p = 0; p < s->n; p++) {
			if (p == d)
				continue;
			struct pw_pair_info *i = pw_devset_pair(s, d, p);
			int v = -1;
			i->can_access = can && can(&v, d, p) == hipSuccess ? v : -1;
			i->perf_rank = attr(p2p, hipDevP2PAttrPerformanceRank, d, p);
			i->access = attr(p2p, hipDevP2PAttrAccessSupported, d, p);
			i->atomics = attr(p2p, hipDevP2PAttrNativeAtomicSupported, d, p);
			i->array_access = attr(p2p, hipDevP2PAttrHipArrayAccessSupported, d, p);
		}
	return true;
}

/*
 * The CUDA devices this process sees (devices.h): the driver's UUID, PCI
 * bus id and name of each, and its answers for each pair; the management
 * library's view of each pair's link (nvml.c).  Asked untraced, once, on
 * the trace writer's thread; the driver answers CUDA_ERROR_NOT_INITIALIZED
 * until the program has called cuInit, and then it is asked again next
 * round.
 */
#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"
#include "state/devices.h"
#include "vendors/cuda/cuda_nvml.h"
#include "peerwatch/abi/cuda.h"

typedef CUresult (*uuid_fn)(CUuuid *, CUdevice);                               /* cuda.h :5378 */
typedef CUresult (*bus_fn)(char *, int, CUdevice);                             /* :9217 */
typedef CUresult (*name_fn)(char *, int, CUdevice);                            /* :5349 */
typedef CUresult (*attr_fn)(int *, CUdevice_P2PAttribute, CUdevice, CUdevice); /* :23966 */

static int attr(attr_fn f, CUdevice_P2PAttribute a, int d, int p)
{
	int v = -1;
	return f && f(&v, a, d, p) == CUDA_SUCCESS ? v : -1;
}

bool pw_cuda_identify(struct pw_devset *s)
{
	int n = pw_cuda_device_count();
	if (n <= 0)
		return false; /* not initialized yet (or no device) */
	s->n = n < PW_MAX_DEV ? n : PW_MAX_DEV;
	uuid_fn uuid = (uuid_fn)pw_cuda_aux("cuDeviceGetUuid_v2");
	if (!uuid) /* before CUDA 11.4 */
		uuid = (uuid_fn)pw_cuda_aux("cuDeviceGetUuid");
	bus_fn bus = (bus_fn)pw_cuda_aux("cuDeviceGetPCIBusId");
	name_fn name = (name_fn)pw_cuda_aux("cuDeviceGetName");
	attr_fn p2p = (attr_fn)pw_cuda_aux("cuDeviceGetP2PAttribute");
	for (int d = 0; d < s->n; d++) {
		struct pw_dev_info *i = &s->dev[d];
		CUuuid u;
		char b[64];
		if (uuid && uuid(&u, d) == CUDA_SUCCESS)
			pw_devices_uuid_text((const unsigned char *)u.bytes, i->uuid, sizeof i->uuid);
		if (bus && bus(b, (int)sizeof b, d) == CUDA_SUCCESS)
			pw_devices_bus_text(b, i->bus_id, sizeof i->bus_id);
		if (!name || name(i->name, (int)sizeof i->name, d) != CUDA_SUCCESS)
			i->name[0] = 0;
	}
	for (int d = 0; d < s->n; d++)
		for (int p = 0; p < s->n; p++) {
			if (p == d)
				continue;
			struct pw_pair_info *i = pw_devset_pair(s, d, p);
			i->can_access = pw_cuda_can_access(d, p);
			i->perf_rank = attr(p2p, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, d, p);
			i->access = attr(p2p, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, d, p);
			i->atomics = attr(p2p, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, d, p);
			i->array_access =
			    attr(p2p, CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, d, p);
		}
	return true;
}

void pw_cuda_links(struct pw_devset *s)
{
	pw_nvml_links(s);
}

int pw_cuda_switch_links(const struct pw_devset *s, int dev)
{
	return pw_nvml_switch_links(s, dev);
}

bool pw_cuda_why_not(const struct pw_devset *s, int dev, int peer, char *buf, size_t len)
{
	return s->dev[dev].bus_id[0] && s->dev[peer].bus_id[0] &&
	       pw_nvml_why_not(s->dev[dev].bus_id, s->dev[peer].bus_id, buf, len);
}

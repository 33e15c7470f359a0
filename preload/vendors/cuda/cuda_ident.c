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

/* The driver's types and success code for vendors/ident.h (abi/cuda.h). */
#define PW_IDENT_RESULT CUresult
#define PW_IDENT_SUCCESS CUDA_SUCCESS
#define PW_IDENT_UUID CUuuid
#define PW_IDENT_DEV CUdevice
#define PW_IDENT_ATTR CUdevice_P2PAttribute
#include "vendors/ident.h"

/* The pair attributes, as the driver numbers them. */
static const CUdevice_P2PAttribute p2p_code[PW_PAIR_ATTRS] = {
    [PW_PAIR_RANK] = CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
    [PW_PAIR_ACCESS] = CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
    [PW_PAIR_ATOMICS] = CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
    [PW_PAIR_ARRAY_ACCESS] = CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED,
};

bool pw_cuda_identify(struct pw_devset *s)
{
	int n = pw_cuda_device_count(); /* first: before cuInit nothing else is asked */
	if (n <= 0)
		return false;
	struct pw_ident_fns f = {
	    .uuid = (pw_ident_uuid_fn)pw_cuda_aux("cuDeviceGetUuid_v2"),          /* cuda.h :5378 */
	    .bus_id = (pw_ident_text_fn)pw_cuda_aux("cuDeviceGetPCIBusId"),       /* :9217 */
	    .name = (pw_ident_text_fn)pw_cuda_aux("cuDeviceGetName"),             /* :5349 */
	    .can_access = (pw_ident_can_fn)pw_cuda_aux("cuDeviceCanAccessPeer"),  /* cuda_table.h */
	    .p2p_attr = (pw_ident_attr_fn)pw_cuda_aux("cuDeviceGetP2PAttribute"), /* :23966 */
	};
	if (!f.uuid) /* before CUDA 11.4 */
		f.uuid = (pw_ident_uuid_fn)pw_cuda_aux("cuDeviceGetUuid");
	return pw_ident_fill(s, n, &f, p2p_code);
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

/*
 * The HIP devices this process sees (devices.h): the runtime's UUID, PCI
 * bus id and name of each, and its answers for each pair.  Asked untraced,
 * once, in the program's first traced call (before it: any HIP call
 * initializes the runtime, so asking then initializes it no earlier than
 * the program does) or on the trace writer's thread; never before a
 * traced call, which would initialize the runtime ourselves, before the
 * program may have chosen its devices.  The links are ROCm SMI's
 * (hip_smi.c).
 */
#include "state/devices.h"
#include "vendors/hip/hip.h"
#include "peerwatch/abi/hip.h"

/* HIP's types and success code for vendors/ident.h (abi/hip.h). */
#define PW_IDENT_RESULT hipError_t
#define PW_IDENT_SUCCESS hipSuccess
#define PW_IDENT_UUID hipUUID
#define PW_IDENT_DEV hipDevice_t
#define PW_IDENT_ATTR hipDeviceP2PAttr
#include "vendors/ident.h"

/* The pair attributes, as HIP numbers them. */
static const hipDeviceP2PAttr p2p_code[PW_PAIR_ATTRS] = {
    [PW_PAIR_RANK] = hipDevP2PAttrPerformanceRank,
    [PW_PAIR_ACCESS] = hipDevP2PAttrAccessSupported,
    [PW_PAIR_ATOMICS] = hipDevP2PAttrNativeAtomicSupported,
    [PW_PAIR_ARRAY_ACCESS] = hipDevP2PAttrHipArrayAccessSupported,
};

typedef hipError_t (*count_fn)(int *);

static bool identify(struct pw_devset *s)
{
	count_fn count = (count_fn)pw_hip_aux("hipGetDeviceCount");
	int n = 0;
	if (!count || count(&n) != hipSuccess)
		return false;
	const struct pw_ident_fns f = {
	    .uuid = (pw_ident_uuid_fn)pw_hip_aux("hipDeviceGetUuid"),
	    .bus_id = (pw_ident_text_fn)pw_hip_aux("hipDeviceGetPCIBusId"),
	    .name = (pw_ident_text_fn)pw_hip_aux("hipDeviceGetName"),
	    .can_access = (pw_ident_can_fn)pw_hip_aux("hipDeviceCanAccessPeer"),
	    .p2p_attr = (pw_ident_attr_fn)pw_hip_aux("hipDeviceGetP2PAttribute"),
	};
	return pw_ident_fill(s, n, &f, p2p_code);
}

/* On the program's thread too (its first call, a report): quietly. */
bool pw_hip_identify(struct pw_devset *s)
{
	int pending = pw_hip_quiet_begin();
	bool ok = identify(s);
	pw_hip_quiet_end(pending);
	return ok;
}

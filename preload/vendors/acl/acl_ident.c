/*
 * The ACL devices this process sees (devices.h): the device's UUID and
 * physical id where the runtime has the calls (newer CANN), the chip's
 * name, and can-access of each pair.  Asked untraced, once, on the trace
 * writer's thread, after a traced call of the program (the runtime answers
 * nothing before aclInit).  ACL has no bus id and no P2P attributes.
 */
#include "vendors/acl/acl.h"
#include "state/devices.h"
#include "peerwatch/abi/acl.h"

#include <stdio.h>

typedef aclError (*count_fn)(uint32_t *);
typedef aclError (*uuid_fn)(int32_t, aclrtUuid *);
typedef aclError (*phys_fn)(const int32_t, int32_t *const);
typedef const char *(*soc_fn)(void);
typedef aclError (*can_fn)(int32_t *, int32_t, int32_t);

bool pw_acl_identify(struct pw_devset *s)
{
	count_fn count = (count_fn)pw_acl_aux("aclrtGetDeviceCount");
	uint32_t n = 0;
	if (!count || count(&n) != ACL_SUCCESS || n == 0)
		return false;
	s->n = n < PW_MAX_DEV ? (int)n : PW_MAX_DEV;
	uuid_fn uuid = (uuid_fn)pw_acl_aux("aclrtDeviceGetUuid");
	phys_fn phys = (phys_fn)pw_acl_aux("aclrtGetPhyDevIdByUserDevId");
	soc_fn soc = (soc_fn)pw_acl_aux("aclrtGetSocName");
	can_fn can = (can_fn)pw_acl_aux("aclrtDeviceCanAccessPeer");
	const char *chip = soc ? soc() : NULL;
	for (int d = 0; d < s->n; d++) {
		struct pw_dev_info *i = &s->dev[d];
		aclrtUuid u;
		int32_t p = -1;
		if (uuid && uuid(d, &u) == ACL_SUCCESS)
			pw_devices_uuid_text((const unsigned char *)u.bytes, i->uuid, sizeof i->uuid);
		if (phys && phys(d, &p) == ACL_SUCCESS && p >= 0)
			i->physical_id = p;
		snprintf(i->name, sizeof i->name, "%s", chip ? chip : "");
	}
	for (int d = 0; d < s->n; d++)
		for (int p = 0; p < s->n; p++) {
			int32_t v = -1;
			if (p != d)
				pw_devset_pair(s, d, p)->can_access =
				    can && can(&v, d, p) == ACL_SUCCESS ? v : -1;
		}
	return true;
}

/* Before aclFinalize: after it the runtime answers nothing, and a short
 * program may finalize before the trace writer first asked.  Once per
 * process, on a call the program makes once. */
uint64_t pw_acl_before(const struct pw_call *c)
{
	if (c->fn->op == PW_OP_RUNTIME_FINI)
		pw_devices_get(PW_VENDOR_ACL);
	return 0;
}

/*
 * Simulated Ascend ACL runtime: configuration, aclInit/aclFinalize, the
 * current device and peer access.  Devices and which pairs can reach each
 * other come from PWSIM_DEVICES / PWSIM_PEERS (and which of them the process
 * sees from ASCEND_RT_VISIBLE_DEVICES), read by sim_topo.c as for the other
 * simulators (README.md).  Return codes: facts B4/B5 where they say;
 * the choices where they are silent are listed in README.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl_sim_internal.h"
#include "sim_topo.h"

struct pwsim_acl pwsim_acl;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static __thread int cur_plus1; /* the thread's current device + 1; 0: none */

void pwsim_acl_lock(void)
{
	pthread_mutex_lock(&lock);
}

void pwsim_acl_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

/* PWSIM_DEVICES, PWSIM_PEERS and ASCEND_RT_VISIBLE_DEVICES: sim_topo.c, shared
 * with the other simulators. */
static void config(void)
{
	struct pwsim_topo t;
	pwsim_topo_load(&t, PWSIM_VIS_ACL);
	pwsim_reap_dead("pwacl."); /* a killed process's memory, as the runtime frees it */
	pwsim_acl.ndev = t.ndev;
	memcpy(pwsim_acl.phys, t.phys, sizeof pwsim_acl.phys);
	memcpy(pwsim_acl.link, t.peer, sizeof pwsim_acl.link);
}

void pwsim_acl_config(void)
{
	pthread_once(&cfg_once, config);
}

aclError pwsim_acl_ready(void)
{
	pwsim_acl_config();
	return pwsim_acl.init == 1 ? ACL_SUCCESS : ACL_ERROR_UNINITIALIZE;
}

bool pwsim_acl_valid(int32_t dev)
{
	pwsim_acl_config();
	return dev >= 0 && dev < pwsim_acl.ndev;
}

int pwsim_acl_current(void)
{
	return cur_plus1 - 1;
}

/* ---- aclInit / aclFinalize ---- */

PWSIM_ACL_API aclError aclInit(const char *configPath)
{
	(void)configPath; /* NULL or "" is no configuration; a file is not read */
	pwsim_acl_config();
	pwsim_acl_lock();
	aclError r = pwsim_acl.init == 0 ? ACL_SUCCESS : ACL_ERROR_REPEAT_INITIALIZE;
	if (r == ACL_SUCCESS)
		pwsim_acl.init = 1;
	pwsim_acl_unlock();
	return r;
}

PWSIM_ACL_API aclError aclFinalize(void)
{
	pwsim_acl_lock();
	aclError r = pwsim_acl.init == 1   ? ACL_SUCCESS
	             : pwsim_acl.init == 2 ? ACL_ERROR_REPEAT_FINALIZE
	                                   : ACL_ERROR_UNINITIALIZE;
	if (r == ACL_SUCCESS)
		pwsim_acl.init = 2;
	pwsim_acl_unlock();
	return r;
}

/* ---- devices ---- */

/* acl_rt.h :3985: a 16-byte UUID "for globally unique identification of an
 * NPU device": the physical device's, whatever ASCEND_RT_VISIBLE_DEVICES
 * lets the process see. */
PWSIM_ACL_API aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!uuid)
		return ACL_ERROR_INVALID_PARAM;
	if (!pwsim_acl_valid(deviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	pwsim_topo_uuid(PWSIM_VIS_ACL, pwsim_acl.phys[deviceId], (unsigned char *)uuid->bytes);
	return ACL_SUCCESS;
}

/* acl_rt.h :5163: the physical device of a user device id (the id the
 * program passes, after ASCEND_RT_VISIBLE_DEVICES). */
PWSIM_ACL_API aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!phyDevId)
		return ACL_ERROR_INVALID_PARAM;
	if (!pwsim_acl_valid(userDevId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	*phyDevId = pwsim_acl.phys[userDevId];
	return ACL_SUCCESS;
}

/* acl_base_rt.h :377: the chip's name, NULL before aclInit (a choice). */
PWSIM_ACL_API const char *aclrtGetSocName(void)
{
	return pwsim_acl_ready() == ACL_SUCCESS ? "Ascend910B (pwsim)" : NULL;
}

PWSIM_ACL_API aclError aclrtGetDeviceCount(uint32_t *count)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!count)
		return ACL_ERROR_INVALID_PARAM;
	*count = (uint32_t)pwsim_acl.ndev;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtSetDevice(int32_t deviceId)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!pwsim_acl_valid(deviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	cur_plus1 = deviceId + 1;
	return ACL_SUCCESS;
}

/* The device's resources go, and with them every peer access from or to it. */
PWSIM_ACL_API aclError aclrtResetDevice(int32_t deviceId)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!pwsim_acl_valid(deviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	pwsim_acl_lock();
	pwsim_acl.on[deviceId] = 0;
	for (int d = 0; d < pwsim_acl.ndev; d++)
		pwsim_acl.on[d] &= ~(1ull << deviceId);
	pwsim_acl_unlock();
	if (cur_plus1 == deviceId + 1)
		cur_plus1 = 0;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtGetDevice(int32_t *deviceId)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!deviceId)
		return ACL_ERROR_INVALID_PARAM;
	if (!cur_plus1)
		return ACL_ERROR_RT_CONTEXT_NULL;
	*deviceId = cur_plus1 - 1;
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtSynchronizeStream(aclrtStream stream)
{
	(void)stream; /* work is done when it is enqueued */
	return pwsim_acl_ready();
}

/* ---- peer access (facts B5) ---- */

PWSIM_ACL_API aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
                                                int32_t peerDeviceId)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (!canAccessPeer || deviceId == peerDeviceId)
		return ACL_ERROR_INVALID_PARAM; /* a device against itself: INVALID_PARAM, unlike HIP */
	if (!pwsim_acl_valid(deviceId) || !pwsim_acl_valid(peerDeviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	*canAccessPeer = (int32_t)(pwsim_acl.link[deviceId] >> peerDeviceId & 1);
	return ACL_SUCCESS;
}

/* Unidirectional, from the current device (aclrtSetDevice) to the peer. */
PWSIM_ACL_API aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	if (flags != 0)
		return ACL_ERROR_FEATURE_UNSUPPORTED; /* reserved, must be 0: 200006 */
	int cur = pwsim_acl_current();
	if (cur < 0)
		return ACL_ERROR_RT_CONTEXT_NULL;
	if (peerDeviceId == cur)
		return ACL_ERROR_INVALID_PARAM;
	if (!pwsim_acl_valid(peerDeviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	if (!(pwsim_acl.link[cur] >> peerDeviceId & 1))
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	pwsim_acl_lock();
	pwsim_acl.on[cur] |= 1ull << peerDeviceId; /* enabling again is no error (no such code in B4) */
	pwsim_acl_unlock();
	return ACL_SUCCESS;
}

PWSIM_ACL_API aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
	aclError r = pwsim_acl_ready();
	if (r != ACL_SUCCESS)
		return r;
	int cur = pwsim_acl_current();
	if (cur < 0)
		return ACL_ERROR_RT_CONTEXT_NULL;
	if (peerDeviceId == cur)
		return ACL_ERROR_INVALID_PARAM;
	if (!pwsim_acl_valid(peerDeviceId))
		return ACL_ERROR_RT_INVALID_DEVICEID;
	pwsim_acl_lock();
	bool was = pwsim_acl.on[cur] >> peerDeviceId & 1;
	pwsim_acl.on[cur] &= ~(1ull << peerDeviceId);
	pwsim_acl_unlock();
	return was ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
}

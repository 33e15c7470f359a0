/*
 * Simulated CUDA driver: configuration from the environment, cuInit, device
 * queries and error strings.  See README.md in this directory for the
 * environment variables and sim_internal.h for the overall design.
 */
#include "sim_internal.h"
#include "sim_topo.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What cuDriverGetVersion reports unless PWSIM_DRIVER_VERSION says otherwise:
 * the newest version the build exports (13000, or 11080 for the legacy build). */
#define PWSIM_DEFAULT_VERSION PWSIM_MAX_VERSION
/* Nominal memory of one device: an H200 reports about 140 GiB (facts: the
 * machine is 2 x H200).  Allocations are limited by /dev/shm, not by this. */
#define PWSIM_TOTAL_MEM (140ull << 30)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_cfg_once = PTHREAD_ONCE_INIT;
static struct pwsim_config g_cfg;
static atomic_int g_initialized;

void pwsim_lock(void)
{
	pthread_mutex_lock(&g_lock);
}

void pwsim_unlock(void)
{
	pthread_mutex_unlock(&g_lock);
}

/* ---- environment ---- */

/* PWSIM_DEVICES, PWSIM_PEERS and CUDA_VISIBLE_DEVICES: sim_topo.c, shared with
 * the other simulators. */
_Static_assert(PWSIM_MAX_DEVICES == PWSIM_TOPO_MAX_DEVICES, "one device limit");

static void cfg_topology(void)
{
	struct pwsim_topo t;

	pwsim_topo_load(&t, PWSIM_VIS_CUDA);
	pwsim_reap_dead("pwsim."); /* a killed process's memory, as the driver frees it */
	g_cfg.ndev = t.ndev;
	g_cfg.nphys = t.nphys;
	memcpy(g_cfg.phys, t.phys, sizeof(g_cfg.phys));
	memcpy(g_cfg.peer, t.peer, sizeof(g_cfg.peer));
	memcpy(g_cfg.link, t.link, sizeof(g_cfg.link));
}

static void cfg_version(void)
{
	const char *s = getenv("PWSIM_DRIVER_VERSION");
	char expected[64], fallback[16];
	long v;

	g_cfg.driver_version = PWSIM_DEFAULT_VERSION;
	if (!s)
		return;
	if (pwsim_parse_int(s, 2000, PWSIM_MAX_VERSION, &v) == 0) {
		g_cfg.driver_version = (int)v;
		return;
	}
	snprintf(expected, sizeof(expected), "an integer 2000..%d (1000*major + 10*minor)",
	         PWSIM_MAX_VERSION);
	snprintf(fallback, sizeof(fallback), "%d", PWSIM_DEFAULT_VERSION);
	pwsim_bad_env("PWSIM_DRIVER_VERSION", s, expected, fallback);
}

/* PWSIM_PAGEABLE=1: every device reports CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
 * 1, as on HMM or ATS systems (Grace Hopper), and the managed-memory calls
 * take system memory; 0 (the default) is the measured H100 host. */
static void cfg_pageable(void)
{
	const char *s = getenv("PWSIM_PAGEABLE");
	long v;

	g_cfg.pageable = 0;
	if (!s)
		return;
	if (pwsim_parse_int(s, 0, 1, &v) == 0)
		g_cfg.pageable = (int)v;
	else
		pwsim_bad_env("PWSIM_PAGEABLE", s, "0 or 1", "0");
}

static void cfg_load(void)
{
	cfg_topology();
	cfg_version();
	cfg_pageable();
}

const struct pwsim_config *pwsim_cfg(void)
{
	pthread_once(&g_cfg_once, cfg_load);
	return &g_cfg;
}

int pwsim_valid_device(CUdevice dev)
{
	return dev >= 0 && dev < pwsim_cfg()->ndev;
}

/* ---- host NUMA nodes ---- */

#define PWSIM_NUMA_NODES 1024
static unsigned char g_numa[PWSIM_NUMA_NODES];
static pthread_once_t g_numa_once = PTHREAD_ONCE_INIT;

static void numa_load(void)
{
	char buf[512];
	FILE *f = fopen("/sys/devices/system/node/online", "re");
	const char *p = buf;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		g_numa[0] = 1; /* no NUMA: node 0 alone */
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	while (*p >= '0' && *p <= '9') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long n = lo; n <= hi && n < PWSIM_NUMA_NODES; n++)
			g_numa[n] = 1;
		if (*p != ',')
			break;
		p++;
	}
}

int pwsim_numa_node_ok(int node)
{
	pthread_once(&g_numa_once, numa_load);
	return node >= 0 && node < PWSIM_NUMA_NODES && g_numa[node];
}

int pwsim_can_access(CUdevice dev, CUdevice peer)
{
	return (pwsim_cfg()->peer[dev] >> peer) & 1;
}

int pwsim_ordinal_of(int p)
{
	const struct pwsim_config *c = pwsim_cfg();
	for (int d = 0; d < c->ndev; d++)
		if (c->phys[d] == p)
			return d;
	return -1;
}

CUresult pwsim_ready(void)
{
	return atomic_load(&g_initialized) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

/* ---- init and devices ---- */

CUresult cuInit(unsigned int Flags)
{
	/* cuda.h :5189: "Currently, the Flags parameter must be 0." */
	if (Flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	/* No device left visible (CUDA_VISIBLE_DEVICES="" or an invalid first
	 * entry): the driver reports none. */
	if (pwsim_cfg()->ndev == 0)
		return CUDA_ERROR_NO_DEVICE;
	atomic_store(&g_initialized, 1);
	return CUDA_SUCCESS;
}

/* Works before cuInit, like the real one (cudart asks it first). */
CUresult cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = pwsim_cfg()->driver_version;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_valid_device(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = pwsim_cfg()->ndev;
	return CUDA_SUCCESS;
}

/* The common checks of the device queries: initialized, out pointer, ordinal. */
static CUresult device_query(const void *out, CUdevice dev)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	return pwsim_valid_device(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	CUresult rc = device_query(name, dev);

	if (rc)
		return rc;
	if (len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "NVIDIA H200 (pwsim %d)", pwsim_cfg()->phys[dev]);
	return CUDA_SUCCESS;
}

/* The physical device's UUID, the same in every process whatever it sees
 * (cuda.h :5378; the _v2 ABI also names MIG instances, which the simulator
 * has none of, so both give the same bytes). */
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	CUresult rc = device_query(uuid, dev);

	if (rc)
		return rc;
	pwsim_topo_uuid(PWSIM_VIS_CUDA, pwsim_cfg()->phys[dev], (unsigned char *)uuid->bytes);
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	return cuDeviceGetUuid_v2(uuid, dev);
}

/* cuda.h :9217: "[domain]:[bus]:[device].[function]", hex values; a buffer
 * too short for it gets as much as fits (the real length is 13 bytes). */
CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	CUresult rc = device_query(pciBusId, dev);

	if (rc)
		return rc;
	if (len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_topo_bus_id(pwsim_cfg()->phys[dev], pciBusId, (size_t)len);
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	CUresult rc = device_query(bytes, dev);

	if (rc)
		return rc;
	*bytes = (size_t)PWSIM_TOTAL_MEM;
	return CUDA_SUCCESS;
}

/* The attributes the simulator models; every other one answers
 * CUDA_ERROR_INVALID_VALUE rather than a made-up number. */
static int device_attribute(CUdevice_attribute attrib, CUdevice dev, int *value)
{
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; return 0; /* H200 */
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *value = 1; return 0;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = 0x10 * (1 + pwsim_cfg()->phys[dev] % 15); return 0;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; return 0;
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = pwsim_cfg()->phys[dev] / 15; return 0;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; return 0;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; return 0; /* sm_90 */
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; return 0;
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *value = 1; return 0;
	case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: *value = pwsim_cfg()->pageable; return 0;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: *value = 1; return 0;
	default: return -1;
	}
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	CUresult rc = device_query(pi, dev);

	if (rc)
		return rc;
	return device_attribute(attrib, dev, pi) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* ---- error strings ---- */

struct err_text {
	CUresult code;
	const char *name, *text;
};

/* Every code of our cuda.h, with the real driver's wording. */
#define ERR(c, t)        \
	{                \
		c, #c, t \
	}
static const struct err_text g_errors[] = {
    ERR(CUDA_SUCCESS, "no error"),
    ERR(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    ERR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    ERR(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    ERR(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    ERR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    ERR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    ERR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    ERR(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
    ERR(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
    ERR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices"),
    ERR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    ERR(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    ERR(CUDA_ERROR_NOT_READY, "device not ready"),
    ERR(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    ERR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
    ERR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    ERR(CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources exhausted"),
    ERR(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    ERR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    ERR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"),
    ERR(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef ERR

static const struct err_text *err_lookup(CUresult code)
{
	for (size_t i = 0; i < sizeof(g_errors) / sizeof(g_errors[0]); i++)
		if (g_errors[i].code == code)
			return &g_errors[i];
	return NULL;
}

/* cuda.h :5135, :5156: an unknown code gives CUDA_ERROR_INVALID_VALUE and *pStr = NULL.
 * Neither needs cuInit. */
CUresult cuGetErrorString(CUresult error, const char **pStr)
{
	const struct err_text *e = err_lookup(error);

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	*pStr = e ? e->text : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
	const struct err_text *e = err_lookup(error);

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	*pStr = e ? e->name : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

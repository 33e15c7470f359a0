/*
 * Simulated CUDA driver: configuration from the environment, cuInit, device
 * queries and error strings.  See README.md in this directory for the
 * environment variables and sim_internal.h for the overall design.
 */
#include "sim_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PWSIM_DEFAULT_DEVICES 2
#define STR_(x) #x
#define STR(x) STR_(x)
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

static void bad_env(const char *var, const char *val, const char *expected, const char *fallback)
{
	fprintf(stderr, "pwsim: %s='%s' is not valid: expected %s; using %s\n", var, val, expected, fallback);
}

/* A decimal integer in [lo, hi] and nothing else. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void cfg_devices(void)
{
	const char *s = getenv("PWSIM_DEVICES");
	long v;

	g_cfg.ndev = PWSIM_DEFAULT_DEVICES;
	if (!s)
		return;
	if (parse_int(s, 1, PWSIM_MAX_DEVICES, &v) == 0)
		g_cfg.ndev = (int)v;
	else
		bad_env("PWSIM_DEVICES", s, "an integer 1.." STR(PWSIM_MAX_DEVICES),
		        STR(PWSIM_DEFAULT_DEVICES));
}

static void peers_all(void)
{
	for (int i = 0; i < g_cfg.ndev; i++) {
		uint64_t all = g_cfg.ndev == 64 ? ~0ull : (1ull << g_cfg.ndev) - 1;
		g_cfg.peer[i] = all & ~(1ull << i); /* a device is not its own peer (facts §2) */
	}
}

/* "a-b[,c-d...]": each pair can access each other in both directions. */
static int parse_pairs(const char *s, uint64_t *peer)
{
	while (*s) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(s, &end, 10);
		if (errno || end == s || *end != '-' || a < 0 || a >= g_cfg.ndev)
			return -1;
		s = end + 1;
		b = strtol(s, &end, 10);
		if (errno || end == s || (*end && *end != ',') || b < 0 || b >= g_cfg.ndev || a == b)
			return -1;
		peer[a] |= 1ull << b;
		peer[b] |= 1ull << a;
		s = *end ? end + 1 : end;
		if (*end == ',' && !*s)
			return -1;
	}
	return 0;
}

static void cfg_peers(void)
{
	const char *s = getenv("PWSIM_PEERS");
	uint64_t peer[PWSIM_MAX_DEVICES] = {0};

	if (!s || strcmp(s, "all") == 0) {
		peers_all();
	} else if (strcmp(s, "none") == 0) {
		memset(g_cfg.peer, 0, sizeof(g_cfg.peer));
	} else if (*s && parse_pairs(s, peer) == 0) {
		memcpy(g_cfg.peer, peer, sizeof(peer));
	} else {
		bad_env("PWSIM_PEERS", s, "'all', 'none' or pairs of distinct device ordinals like '0-1,2-3'",
		        "all");
		peers_all();
	}
}

static void cfg_version(void)
{
	const char *s = getenv("PWSIM_DRIVER_VERSION");
	char expected[64], fallback[16];
	long v;

	g_cfg.driver_version = PWSIM_DEFAULT_VERSION;
	if (!s)
		return;
	if (parse_int(s, 2000, PWSIM_MAX_VERSION, &v) == 0) {
		g_cfg.driver_version = (int)v;
		return;
	}
	snprintf(expected, sizeof(expected), "an integer 2000..%d (1000*major + 10*minor)",
	         PWSIM_MAX_VERSION);
	snprintf(fallback, sizeof(fallback), "%d", PWSIM_DEFAULT_VERSION);
	bad_env("PWSIM_DRIVER_VERSION", s, expected, fallback);
}

static void cfg_load(void)
{
	cfg_devices();
	cfg_peers();
	cfg_version();
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

int pwsim_can_access(CUdevice dev, CUdevice peer)
{
	return (pwsim_cfg()->peer[dev] >> peer) & 1;
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
	pwsim_cfg();
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
	snprintf(name, (size_t)len, "NVIDIA H200 (pwsim %d)", dev);
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
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = dev + 1; return 0;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; return 0;
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = 0; return 0;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; return 0;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; return 0; /* sm_90 */
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; return 0;
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *value = 1; return 0;
	case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: *value = 0; return 0;
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

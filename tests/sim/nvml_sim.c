/*
 * Simulated NVIDIA Management Library (libnvidia-ml.so.1 over nothing): the
 * few NVML calls peerwatch and its GPU probe ask about devices, pairs and
 * links, answering from the environment as the other simulators do
 * (README.md, "Simulated management library").  Like the real library it
 * sees every device of the host, whatever CUDA_VISIBLE_DEVICES says, and
 * names each by the UUID and bus id the simulated CUDA driver gives it.
 * Signatures and values: include/peerwatch/abi/nvml.h (nvml.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "peerwatch/abi/nvml.h"
#include "sim_topo.h"

#define API __attribute__((visibility("default")))
#define MAXD PWSIM_TOPO_MAX_DEVICES
/* Links an H100 has; those past its own are NOT_SUPPORTED up to nvml.h's
 * NVML_NVLINK_MAX_LINKS, INVALID_ARGUMENT beyond. */
#define DEVICE_LINKS 18

struct nvmlDevice_st {
	int phys;
};

static struct {
	struct pwsim_topo topo;
	struct nvmlDevice_st dev[MAXD];
	unsigned char nvlinks[MAXD][MAXD]; /* PWSIM_NVLINKS */
	int sockets;                       /* PWSIM_SOCKETS */
	int level[MAXD][MAXD];             /* PWSIM_TOPOLOGY, -1: from the sockets */
	int status[MAXD][MAXD];            /* PWSIM_P2P, -1: from the links */
	int switched;                      /* PWSIM_NVSWITCH: links to NVSwitches per device */
	int absent;                        /* PWSIM_NVML=absent */
} S;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int inits; /* nvmlInit_v2 minus nvmlShutdown */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* "a-b:word[,...]": fn(a, b, word) for each; -1 on a malformed list. */
static int pairs(const char *s, int (*fn)(int a, int b, const char *w, size_t n))
{
	if (!s)
		return 0;
	while (*s) {
		char *end;
		errno = 0;
		long a = strtol(s, &end, 10);
		if (errno || end == s || *end != '-' || a < 0 || a >= S.topo.nphys)
			return -1;
		s = end + 1;
		long b = strtol(s, &end, 10);
		if (errno || end == s || *end != ':' || b < 0 || b >= S.topo.nphys || a == b)
			return -1;
		s = end + 1;
		size_t n = strcspn(s, ",");
		if (!n || fn((int)a, (int)b, s, n))
			return -1;
		s += n;
		if (*s == ',' && !*++s)
			return -1;
	}
	return 0;
}

static int set_nvlinks(int a, int b, const char *w, size_t n)
{
	char *end;
	long v = strtol(w, &end, 10);
	if ((size_t)(end - w) != n || v < 0 || v > DEVICE_LINKS)
		return -1;
	S.nvlinks[a][b] = S.nvlinks[b][a] = (unsigned char)v;
	return 0;
}

static const char *const level_names[] = {"internal", "single", "multiple", "hostbridge", "node", "system"};

static int set_level(int a, int b, const char *w, size_t n)
{
	for (int i = 0; i < 6; i++)
		if (strlen(level_names[i]) == n && !strncmp(w, level_names[i], n)) {
			S.level[a][b] = S.level[b][a] = 10 * i;
			return 0;
		}
	return -1;
}

static const char *const status_names[] = {"ok",     "chipset",     "gpu",    "topology",
                                           "regkey", "unsupported", "unknown"};

static int set_status(int a, int b, const char *w, size_t n)
{
	for (int i = 0; i < 7; i++)
		if (strlen(status_names[i]) == n && !strncmp(w, status_names[i], n)) {
			S.status[a][b] = S.status[b][a] = i;
			return 0;
		}
	return -1;
}

static void env_pairs(const char *var, int (*fn)(int, int, const char *, size_t), const char *expected)
{
	const char *s = getenv(var);
	if (s && pairs(s, fn)) {
		pwsim_bad_env(var, s, expected, "none");
		memset(S.nvlinks, 0, sizeof S.nvlinks);
		memset(S.level, 0xff, sizeof S.level);
		memset(S.status, 0xff, sizeof S.status);
	}
}

static void load(void)
{
	pwsim_topo_load(&S.topo, PWSIM_VIS_NONE);
	for (int p = 0; p < MAXD; p++)
		S.dev[p].phys = p;
	memset(S.level, 0xff, sizeof S.level);
	memset(S.status, 0xff, sizeof S.status);
	const char *s = getenv("PWSIM_SOCKETS");
	long v;
	S.sockets = 1;
	if (s && pwsim_parse_int(s, 1, 8, &v) == 0)
		S.sockets = (int)v;
	else if (s)
		pwsim_bad_env("PWSIM_SOCKETS", s, "an integer 1..8", "1");
	env_pairs("PWSIM_NVLINKS", set_nvlinks, "pairs with link counts like '0-1:18,2-3:4'");
	env_pairs(
	    "PWSIM_TOPOLOGY", set_level,
	    "pairs with a level (internal, single, multiple, hostbridge, node, system) like '0-1:single'");
	env_pairs("PWSIM_P2P", set_status,
	          "pairs with a status (ok, chipset, gpu, topology, regkey, unsupported, unknown) like "
	          "'0-1:regkey'");
	s = getenv("PWSIM_NVSWITCH");
	if (s && pwsim_parse_int(s, 0, DEVICE_LINKS, &v) == 0)
		S.switched = (int)v;
	else if (s)
		pwsim_bad_env("PWSIM_NVSWITCH", s,
		              "an integer 0.."
		              "18",
		              "0");
	s = getenv("PWSIM_NVML");
	S.absent = s && !strcmp(s, "absent");
}

static int socket_of(int p)
{
	int per = (S.topo.nphys + S.sockets - 1) / S.sockets;
	return p / (per ? per : 1);
}

static int level_of(int a, int b)
{
	if (S.level[a][b] >= 0)
		return S.level[a][b];
	return socket_of(a) == socket_of(b) ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM;
}

/* Peer reads and writes: what PWSIM_P2P says, else OK over a link, else the
 * reason a real host gives most: the CPUs' interconnect between sockets,
 * "not supported" otherwise. */
static int rw_status(int a, int b)
{
	if (S.status[a][b] >= 0)
		return S.status[a][b];
	if ((S.topo.link[a] >> b) & 1)
		return NVML_P2P_STATUS_OK;
	return level_of(a, b) == NVML_TOPOLOGY_SYSTEM ? NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED
	                                              : NVML_P2P_STATUS_NOT_SUPPORTED;
}

static int ready(void)
{
	pthread_mutex_lock(&lock);
	int n = inits;
	pthread_mutex_unlock(&lock);
	return n > 0;
}

static int device_ok(nvmlDevice_t d)
{
	return d >= &S.dev[0] && d < &S.dev[S.topo.nphys];
}

API nvmlReturn_t nvmlInit_v2(void)
{
	pthread_once(&once, load);
	if (S.absent)
		return NVML_ERROR_DRIVER_NOT_LOADED;
	pthread_mutex_lock(&lock);
	inits++;
	pthread_mutex_unlock(&lock);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlShutdown(void)
{
	pthread_mutex_lock(&lock);
	nvmlReturn_t r = inits > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
	if (inits > 0)
		inits--;
	pthread_mutex_unlock(&lock);
	return r;
}

API const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	default: return "Unknown Error";
	}
}

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!deviceCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	*deviceCount = (unsigned)S.topo.nphys;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device || index >= (unsigned)S.topo.nphys)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &S.dev[index];
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!uuid || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int p = 0; p < S.topo.nphys; p++) {
		char text[64];
		pwsim_topo_uuid_text(PWSIM_VIS_CUDA, p, text, sizeof text);
		if (!strcasecmp(text, uuid)) {
			*device = &S.dev[p];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

/* nvml.h :4740-4743: "domain:bus:device.function", "domain:bus:device" or
 * "bus:device.function", all hexadecimal. */
static int parse_bus(const char *s, unsigned *dom, unsigned *bus, unsigned *dev)
{
	unsigned a, b, c, f;
	char tail;
	if (sscanf(s, "%x:%x:%x.%x%c", &a, &b, &c, &f, &tail) == 4 ||
	    sscanf(s, "%x:%x:%x%c", &a, &b, &c, &tail) == 3) {
		*dom = a, *bus = b, *dev = c;
		return 0;
	}
	if (sscanf(s, "%x:%x.%x%c", &b, &c, &f, &tail) == 3) {
		*dom = 0, *bus = b, *dev = c;
		return 0;
	}
	return -1;
}

static void pci_of(int p, nvmlPciInfo_t *pci)
{
	memset(pci, 0, sizeof *pci);
	pci->domain = (unsigned)(p / 15);
	pci->bus = 0x10u * (unsigned)(1 + p % 15);
	pci->device = 0;
	pci->pciDeviceId = 0x233010deu; /* an H100 SXM's device and vendor id */
	/* p < 64: the domain has one digit, the bus two */
	snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain & 0xf,
	         pci->bus & 0xff, pci->device & 0x1f);
	snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", pci->domain & 0xf, pci->bus & 0xff,
	         pci->device & 0x1f);
}

API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	unsigned dom, bus, dev;
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!pciBusId || !device || parse_bus(pciBusId, &dom, &bus, &dev))
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int p = 0; p < S.topo.nphys; p++) {
		nvmlPciInfo_t pci;
		pci_of(p, &pci);
		if (pci.domain == dom && pci.bus == bus && pci.device == dev) {
			*device = &S.dev[p];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device_ok(device) || !name || !length)
		return NVML_ERROR_INVALID_ARGUMENT;
	snprintf(name, length, "NVIDIA H200 (pwsim %d)", device->phys);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device_ok(device) || !uuid || !length)
		return NVML_ERROR_INVALID_ARGUMENT;
	pwsim_topo_uuid_text(PWSIM_VIS_CUDA, device->phys, uuid, length);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device_ok(device) || !pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	pci_of(device->phys, pci);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                     nvmlGpuTopologyLevel_t *pathInfo)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device_ok(device1) || !device_ok(device2) || !pathInfo)
		return NVML_ERROR_INVALID_ARGUMENT;
	*pathInfo = device1 == device2 ? NVML_TOPOLOGY_INTERNAL : level_of(device1->phys, device2->phys);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                        nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t *p2pStatus)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device_ok(device1) || !device_ok(device2) || !p2pStatus || p2pIndex < 0 ||
	    p2pIndex > NVML_P2P_CAPS_INDEX_PCI)
		return NVML_ERROR_INVALID_ARGUMENT;
	int a = device1->phys, b = device2->phys,
	    rw = a == b ? NVML_P2P_STATUS_NOT_SUPPORTED : rw_status(a, b);
	bool nvlink = S.nvlinks[a][b] > 0 || S.switched > 0;
	switch (p2pIndex) {
	case NVML_P2P_CAPS_INDEX_READ:
	case NVML_P2P_CAPS_INDEX_WRITE: *p2pStatus = rw; break;
	case NVML_P2P_CAPS_INDEX_NVLINK:
		*p2pStatus =
		    nvlink && rw == NVML_P2P_STATUS_OK ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
		break;
	case NVML_P2P_CAPS_INDEX_ATOMICS: /* native atomics need the NVLink */
		*p2pStatus =
		    nvlink && rw == NVML_P2P_STATUS_OK ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
		break;
	default: /* PCI: peer traffic over PCIe */ *p2pStatus = rw; break;
	}
	return NVML_SUCCESS;
}

/* The far end of device p's link l: a device, SWITCH for an NVSwitch, or -1
 * for an inactive link.  With PWSIM_NVSWITCH the first links go to the
 * switches (an HGX board), the direct ones follow in the order of the peers. */
#define SWITCH (-2)
static int remote_of(int p, unsigned l)
{
	if (l < (unsigned)S.switched)
		return SWITCH;
	unsigned k = (unsigned)S.switched;
	for (int q = 0; q < S.topo.nphys; q++) {
		if (l < k + S.nvlinks[p][q])
			return q;
		k += S.nvlinks[p][q];
	}
	return -1;
}

static nvmlReturn_t link_check(nvmlDevice_t device, unsigned int link, const void *out)
{
	if (!ready())
		return NVML_ERROR_UNINITIALIZED;
	if (!device_ok(device) || !out || link >= NVML_NVLINK_MAX_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned total = (unsigned)S.switched;
	for (int q = 0; q < S.topo.nphys; q++)
		total += S.nvlinks[device->phys][q];
	return !total || link >= DEVICE_LINKS ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
	nvmlReturn_t r = link_check(device, link, isActive);
	if (r == NVML_SUCCESS)
		*isActive =
		    remote_of(device->phys, link) != -1 ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
	return r;
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                     nvmlPciInfo_t *pci)
{
	nvmlReturn_t r = link_check(device, link, pci);
	if (r != NVML_SUCCESS)
		return r;
	int q = remote_of(device->phys, link);
	if (q == -1)
		return NVML_ERROR_NOT_SUPPORTED; /* an inactive link has no remote end */
	if (q == SWITCH) {                       /* the switches sit on bus 0xf0 onwards */
		memset(pci, 0, sizeof *pci);
		pci->bus = 0xf0u + link % 4;
		snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus & 0xff);
		snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus & 0xff);
		return NVML_SUCCESS;
	}
	pci_of(q, pci);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                     nvmlIntNvLinkDeviceType_t *type)
{
	nvmlReturn_t r = link_check(device, link, type);
	if (r != NVML_SUCCESS)
		return r;
	int q = remote_of(device->phys, link);
	if (q == -1)
		return NVML_ERROR_NOT_SUPPORTED;
	*type = q == SWITCH ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_GPU;
	return NVML_SUCCESS;
}

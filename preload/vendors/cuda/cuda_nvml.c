/*
 * What NVIDIA's management library says of each pair of devices
 * (cuda_nvml.h): loaded privately, asked, shut down.  The library stays
 * mapped (unloading a library that may have started threads is not safe);
 * nvmlInit_v2 and nvmlShutdown count, so each use is a pair of them.
 */
#include "vendors/cuda/cuda_nvml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "state/devices.h"
#include "core/intercept.h"
#include "core/vendor_lib.h"
#include "peerwatch/abi/nvml.h"

static struct {
	pthread_once_t once;
	void *h;
	nvmlInit_v2_fn init;
	nvmlShutdown_fn shutdown;
	nvmlDeviceGetHandleByPciBusId_v2_fn by_bus;
	nvmlDeviceGetTopologyCommonAncestor_fn ancestor;
	nvmlDeviceGetP2PStatus_fn p2p;
	nvmlDeviceGetNvLinkState_fn link_state;
	nvmlDeviceGetNvLinkRemotePciInfo_v2_fn link_remote;
	nvmlDeviceGetNvLinkRemoteDeviceType_fn link_type; /* newer NVML only */
} N = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
	pw_loader_lock();
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	pw_loader_unlock();
	if (!h)
		return;
	N.init = (nvmlInit_v2_fn)pw_real_dlsym(h, "nvmlInit_v2");
	N.shutdown = (nvmlShutdown_fn)pw_real_dlsym(h, "nvmlShutdown");
	N.by_bus = (nvmlDeviceGetHandleByPciBusId_v2_fn)pw_real_dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	N.ancestor =
	    (nvmlDeviceGetTopologyCommonAncestor_fn)pw_real_dlsym(h, "nvmlDeviceGetTopologyCommonAncestor");
	N.p2p = (nvmlDeviceGetP2PStatus_fn)pw_real_dlsym(h, "nvmlDeviceGetP2PStatus");
	N.link_state = (nvmlDeviceGetNvLinkState_fn)pw_real_dlsym(h, "nvmlDeviceGetNvLinkState");
	N.link_remote =
	    (nvmlDeviceGetNvLinkRemotePciInfo_v2_fn)pw_real_dlsym(h, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	N.link_type =
	    (nvmlDeviceGetNvLinkRemoteDeviceType_fn)pw_real_dlsym(h, "nvmlDeviceGetNvLinkRemoteDeviceType");
	N.h = h;
}

/* NVML initialized for one use (end() after it), or false. */
static bool begin(void)
{
	pthread_once(&N.once, load);
	return N.h && N.init && N.shutdown && N.by_bus && N.init() == NVML_SUCCESS;
}

static void end(void)
{
	N.shutdown();
}

static const char *status_name(nvmlGpuP2PStatus_t s)
{
	static const char *const names[] = {"ok",
	                                    "chipset_not_supported",
	                                    "gpu_not_supported",
	                                    "topology_not_supported",
	                                    "disabled_by_regkey",
	                                    "not_supported",
	                                    "unknown"};
	return s >= 0 && s <= NVML_P2P_STATUS_UNKNOWN ? names[s] : NULL;
}

static const char *topology_name(nvmlGpuTopologyLevel_t t)
{
	switch (t) {
	case NVML_TOPOLOGY_INTERNAL: return "internal";
	case NVML_TOPOLOGY_SINGLE: return "single_switch";
	case NVML_TOPOLOGY_MULTIPLE: return "multiple_switches";
	case NVML_TOPOLOGY_HOSTBRIDGE: return "host_bridge";
	case NVML_TOPOLOGY_NODE: return "numa_node";
	case NVML_TOPOLOGY_SYSTEM: return "system";
	default: return NULL;
	}
}

static nvmlDevice_t handle_of(const char *bus)
{
	nvmlDevice_t d = NULL;
	return *bus && N.by_bus(bus, &d) == NVML_SUCCESS ? d : NULL;
}

/* Device d's active links: those that end at each other device of s
 * (direct[p]) and those that end at an NVSwitch (returned). */
static int count_links(const struct pw_devset *s, nvmlDevice_t h, int *direct)
{
	int switched = 0;
	if (!N.link_state || !N.link_remote)
		return -1;
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		nvmlEnableState_t on = NVML_FEATURE_DISABLED;
		nvmlReturn_t r = N.link_state(h, l, &on);
		if (r == NVML_ERROR_INVALID_ARGUMENT)
			break; /* past the links this NVML knows */
		if (r != NVML_SUCCESS || on != NVML_FEATURE_ENABLED)
			continue;
		nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
		if (N.link_type && N.link_type(h, l, &type) == NVML_SUCCESS &&
		    type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
			switched++;
			continue;
		}
		nvmlPciInfo_t pci;
		char bus[PW_BUS_LEN];
		if (N.link_remote(h, l, &pci) != NVML_SUCCESS)
			continue;
		pw_devices_bus_text(pci.busId, bus, sizeof bus);
		bool peer = false;
		for (int p = 0; p < s->n && !peer; p++)
			if (!strcmp(bus, s->dev[p].bus_id)) {
				direct[p]++;
				peer = true;
			}
		/* an older NVML cannot say what the far end is: what is not one of
		 * our devices is taken for a switch */
		if (!peer && !N.link_type)
			switched++;
	}
	return switched;
}

static void pair(struct pw_devset *s, nvmlDevice_t *h, int (*direct)[PW_MAX_DEV], int d, int p)
{
	struct pw_pair_info *i = pw_devset_pair(s, d, p);
	static const nvmlGpuP2PCapsIndex_t caps[PW_P2P_CAPS] = {
	    [PW_P2P_READ] = NVML_P2P_CAPS_INDEX_READ,
	    [PW_P2P_WRITE] = NVML_P2P_CAPS_INDEX_WRITE,
	    [PW_P2P_NVLINK] = NVML_P2P_CAPS_INDEX_NVLINK,
	    [PW_P2P_ATOMICS] = NVML_P2P_CAPS_INDEX_ATOMICS,
	};
	nvmlGpuTopologyLevel_t t;
	if (N.ancestor && N.ancestor(h[d], h[p], &t) == NVML_SUCCESS)
		i->topology = topology_name(t);
	for (int k = 0; k < PW_P2P_CAPS; k++) {
		nvmlGpuP2PStatus_t st;
		if (N.p2p && N.p2p(h[d], h[p], caps[k], &st) == NVML_SUCCESS)
			i->p2p[k] = status_name(st);
	}
	int sw_d = s->dev[d].switch_links, sw_p = s->dev[p].switch_links;
	if (direct[d][p] > 0) {
		i->nvlinks = direct[d][p];
		i->nvswitch = 0;
		i->link = "nvlink";
	} else if (sw_d > 0 && sw_p > 0 && i->p2p[PW_P2P_NVLINK] && !strcmp(i->p2p[PW_P2P_NVLINK], "ok")) {
		/* both on the switches, and NVML says the pair talks over NVLink */
		i->nvlinks = sw_d < sw_p ? sw_d : sw_p;
		i->nvswitch = 1;
		i->link = "nvswitch";
	} else if (sw_d >= 0 && sw_p >= 0) {
		i->nvlinks = 0;
		i->nvswitch = 0;
		i->link = "pcie";
	}
}

void pw_nvml_links(struct pw_devset *s)
{
	if (!begin())
		return;
	nvmlDevice_t h[PW_MAX_DEV];
	static int direct[PW_MAX_DEV][PW_MAX_DEV]; /* the writer thread's alone */
	memset(direct, 0, sizeof direct);
	bool all = true;
	for (int d = 0; d < s->n; d++)
		all &= (h[d] = handle_of(s->dev[d].bus_id)) != NULL;
	if (all) {
		for (int d = 0; d < s->n; d++)
			s->dev[d].switch_links = count_links(s, h[d], direct[d]);
		for (int d = 0; d < s->n; d++)
			for (int p = 0; p < s->n; p++)
				if (p != d)
					pair(s, h, direct, d, p);
		s->links = true;
	}
	end();
}

/* ---- why not ---- */

static const char *reason(nvmlGpuP2PStatus_t st)
{
	switch (st) {
	case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED: return "the chipset does not support peer-to-peer";
	case NVML_P2P_STATUS_GPU_NOT_SUPPORTED: return "the GPU does not support peer-to-peer";
	case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
		return "the PCIe topology does not allow it (the devices hang off different I/O hubs)";
	case NVML_P2P_STATUS_DISABLED_BY_REGKEY: return "peer-to-peer is disabled by a driver registry key";
	case NVML_P2P_STATUS_NOT_SUPPORTED: return "peer-to-peer is not supported between them";
	default: return "the reason is unknown";
	}
}

int pw_nvml_switch_links(const struct pw_devset *s, int dev)
{
	if (!begin())
		return -1;
	int direct[PW_MAX_DEV] = {0}, n = -1;
	nvmlDevice_t h = handle_of(s->dev[dev].bus_id);
	if (h)
		n = count_links(s, h, direct);
	end();
	return n;
}

bool pw_nvml_why_not(const char *bus_a, const char *bus_b, char *buf, size_t len)
{
	if (!begin())
		return false;
	nvmlDevice_t a = handle_of(bus_a), b = handle_of(bus_b);
	nvmlGpuP2PStatus_t rd = -1;
	nvmlGpuTopologyLevel_t t = -1;
	bool said = false;
	if (a && b && N.p2p && N.p2p(a, b, NVML_P2P_CAPS_INDEX_READ, &rd) == NVML_SUCCESS &&
	    rd != NVML_P2P_STATUS_OK) {
		bool ancestor = N.ancestor && N.ancestor(a, b, &t) == NVML_SUCCESS;
		snprintf(buf, len, "%s%s (NVML: P2P read status %s, common ancestor %s)", reason(rd),
		         ancestor && t == NVML_TOPOLOGY_SYSTEM ? "; they are on different CPU sockets" : "",
		         status_name(rd) ? status_name(rd) : "?",
		         ancestor && topology_name(t) ? topology_name(t) : "?");
		said = true;
	}
	end();
	return said;
}

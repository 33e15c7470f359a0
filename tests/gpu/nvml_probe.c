/*
 * What NVIDIA's management library says of every pair of GPUs of the host:
 * not a test, a probe whose output goes into tests/gpu/RESULTS.md with the
 * machine (tests/gpu/README.md, "Device identity").  It loads
 * libnvidia-ml.so.1 the way peerwatch does (dlopen, RTLD_LOCAL) and asks, for
 * each device, its UUID, bus id and name, and each active NVLink's far end
 * (a GPU's bus id, or an NVSwitch); for each ordered pair, the P2P status
 * of reads, writes, NVLink, atomics and PCIe and the common ancestor.
 * NVML ignores CUDA_VISIBLE_DEVICES: these are the host's devices, by
 * NVML's index (which need not be CUDA's).
 *
 *   nvml_probe            (LD_LIBRARY_PATH may point at the simulated one)
 *
 * Output, one line each, fields separated by a space:
 *   device INDEX UUID BUS_ID NAME...
 *   link INDEX LINK gpu BUS_ID | switch BUS_ID | inactive
 *   pair A B read S write S nvlink S atomics S pci S ancestor LEVEL nvlinks N
 * S: ok, chipset_not_supported, gpu_not_supported, topology_not_supported,
 * disabled_by_regkey, not_supported, unknown, or error:CODE; LEVEL: internal,
 * single, multiple, hostbridge, node, system, or error:CODE; N: the NVLinks
 * of A that end at B (direct), or "switch:M" when both reach the switches
 * (M: the fewer switch links of the two).  Exit 0, or 1 when NVML is absent
 * or cannot start.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "peerwatch/abi/nvml.h"

#define MAXD 64

static void *lib;

static void *fn(const char *name)
{
	return dlsym(lib, name);
}

static const char *status(nvmlReturn_t r, nvmlGpuP2PStatus_t s, char *buf, size_t len)
{
	static const char *const names[] = {"ok",
	                                    "chipset_not_supported",
	                                    "gpu_not_supported",
	                                    "topology_not_supported",
	                                    "disabled_by_regkey",
	                                    "not_supported",
	                                    "unknown"};
	if (r != NVML_SUCCESS)
		snprintf(buf, len, "error:%d", r);
	else if (s >= 0 && s <= NVML_P2P_STATUS_UNKNOWN)
		snprintf(buf, len, "%s", names[s]);
	else
		snprintf(buf, len, "status:%d", s);
	return buf;
}

static const char *level(nvmlReturn_t r, nvmlGpuTopologyLevel_t l, char *buf, size_t len)
{
	static const char *const names[] = {"internal", "single", "multiple", "hostbridge", "node", "system"};
	if (r != NVML_SUCCESS)
		snprintf(buf, len, "error:%d", r);
	else if (l >= 0 && l <= 50 && l % 10 == 0)
		snprintf(buf, len, "%s", names[l / 10]);
	else
		snprintf(buf, len, "level:%d", l);
	return buf;
}

int main(void)
{
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("nvml: absent (%s)\n", dlerror());
		return 1;
	}
	nvmlInit_v2_fn init = (nvmlInit_v2_fn)fn("nvmlInit_v2");
	nvmlShutdown_fn shutdown = (nvmlShutdown_fn)fn("nvmlShutdown");
	nvmlDeviceGetCount_v2_fn count = (nvmlDeviceGetCount_v2_fn)fn("nvmlDeviceGetCount_v2");
	nvmlDeviceGetHandleByIndex_v2_fn by_index =
	    (nvmlDeviceGetHandleByIndex_v2_fn)fn("nvmlDeviceGetHandleByIndex_v2");
	nvmlDeviceGetUUID_fn uuid = (nvmlDeviceGetUUID_fn)fn("nvmlDeviceGetUUID");
	nvmlDeviceGetName_fn name = (nvmlDeviceGetName_fn)fn("nvmlDeviceGetName");
	nvmlDeviceGetPciInfo_v3_fn pci = (nvmlDeviceGetPciInfo_v3_fn)fn("nvmlDeviceGetPciInfo_v3");
	nvmlDeviceGetP2PStatus_fn p2p = (nvmlDeviceGetP2PStatus_fn)fn("nvmlDeviceGetP2PStatus");
	nvmlDeviceGetTopologyCommonAncestor_fn ancestor =
	    (nvmlDeviceGetTopologyCommonAncestor_fn)fn("nvmlDeviceGetTopologyCommonAncestor");
	nvmlDeviceGetNvLinkState_fn link_state = (nvmlDeviceGetNvLinkState_fn)fn("nvmlDeviceGetNvLinkState");
	nvmlDeviceGetNvLinkRemotePciInfo_v2_fn link_remote =
	    (nvmlDeviceGetNvLinkRemotePciInfo_v2_fn)fn("nvmlDeviceGetNvLinkRemotePciInfo_v2");
	nvmlDeviceGetNvLinkRemoteDeviceType_fn link_type =
	    (nvmlDeviceGetNvLinkRemoteDeviceType_fn)fn("nvmlDeviceGetNvLinkRemoteDeviceType");
	if (!init || !shutdown || !count || !by_index) {
		printf("nvml: functions missing\n");
		return 1;
	}
	nvmlReturn_t r = init();
	if (r != NVML_SUCCESS) {
		printf("nvml: cannot start (%d)\n", r);
		return 1;
	}
	unsigned n = 0;
	count(&n);
	if (n > MAXD)
		n = MAXD;
	nvmlDevice_t dev[MAXD];
	nvmlPciInfo_t info[MAXD];
	int direct[MAXD][MAXD], switched[MAXD];
	memset(direct, 0, sizeof direct);
	memset(switched, 0, sizeof switched);
	for (unsigned d = 0; d < n; d++) {
		char u[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "?", nm[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "?";
		memset(&info[d], 0, sizeof info[d]);
		if (by_index(d, &dev[d]) != NVML_SUCCESS) {
			printf("device %u unreadable\n", d);
			dev[d] = NULL;
			continue;
		}
		if (uuid)
			uuid(dev[d], u, sizeof u);
		if (name)
			name(dev[d], nm, sizeof nm);
		if (pci)
			pci(dev[d], &info[d]);
		printf("device %u %s %s %s\n", d, u, info[d].busId, nm);
	}
	for (unsigned d = 0; d < n; d++) {
		for (unsigned l = 0; dev[d] && link_state && l < NVML_NVLINK_MAX_LINKS; l++) {
			nvmlEnableState_t on = NVML_FEATURE_DISABLED;
			r = link_state(dev[d], l, &on);
			if (r == NVML_ERROR_INVALID_ARGUMENT)
				break;
			if (r != NVML_SUCCESS)
				continue;
			if (on != NVML_FEATURE_ENABLED) {
				printf("link %u %u inactive\n", d, l);
				continue;
			}
			nvmlPciInfo_t far;
			nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
			memset(&far, 0, sizeof far);
			if (link_remote)
				link_remote(dev[d], l, &far);
			if (link_type)
				link_type(dev[d], l, &type);
			if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
				switched[d]++;
				printf("link %u %u switch %s\n", d, l, far.busId);
				continue;
			}
			printf("link %u %u gpu %s\n", d, l, far.busId);
			for (unsigned p = 0; p < n; p++)
				if (p != d && !strcmp(far.busId, info[p].busId))
					direct[d][p]++;
		}
	}
	static const nvmlGpuP2PCapsIndex_t caps[] = {NVML_P2P_CAPS_INDEX_READ, NVML_P2P_CAPS_INDEX_WRITE,
	                                             NVML_P2P_CAPS_INDEX_NVLINK, NVML_P2P_CAPS_INDEX_ATOMICS,
	                                             NVML_P2P_CAPS_INDEX_PCI};
	static const char *const cap_names[] = {"read", "write", "nvlink", "atomics", "pci"};
	for (unsigned a = 0; a < n; a++)
		for (unsigned b = 0; b < n; b++) {
			if (a == b || !dev[a] || !dev[b])
				continue;
			printf("pair %u %u", a, b);
			for (int k = 0; k < 5; k++) {
				nvmlGpuP2PStatus_t s = -1;
				char buf[32];
				r = p2p ? p2p(dev[a], dev[b], caps[k], &s) : NVML_ERROR_FUNCTION_NOT_FOUND;
				printf(" %s %s", cap_names[k], status(r, s, buf, sizeof buf));
			}
			nvmlGpuTopologyLevel_t lv = -1;
			char buf[32];
			r = ancestor ? ancestor(dev[a], dev[b], &lv) : NVML_ERROR_FUNCTION_NOT_FOUND;
			printf(" ancestor %s", level(r, lv, buf, sizeof buf));
			if (direct[a][b] || !switched[a] || !switched[b])
				printf(" nvlinks %d\n", direct[a][b]);
			else
				printf(" nvlinks switch:%d\n",
				       switched[a] < switched[b] ? switched[a] : switched[b]);
		}
	shutdown();
	return 0;
}

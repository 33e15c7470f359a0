/*
 * What AMD's ROCm SMI says of each pair of HIP devices: the link type (XGMI,
 * PCIe) and whether P2P is possible (include/peerwatch/abi/rocm_smi.h).
 * Loaded privately (RTLD_LOCAL) where it is installed, once in the
 * program's first HIP call (state/devices.c) and when a finding asks why
 * two devices cannot be peers; it stays mapped.  Devices are matched by PCI bus id.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "state/devices.h"
#include "vendors/hip/hip.h"
#include "core/intercept.h"
#include "core/vendor_lib.h"
#include "peerwatch/abi/rocm_smi.h"

static struct {
	pthread_once_t once;
	void *h;
	rsmi_init_fn init;
	rsmi_shut_down_fn shut_down;
	rsmi_num_monitor_devices_fn count;
	rsmi_dev_pci_id_get_fn pci_id;
	rsmi_topo_get_link_type_fn link_type;
	rsmi_is_P2P_accessible_fn p2p;
} R = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
	static const char *const names[] = {PW_RSMI_LIBS};
	void *h = NULL;
	pw_loader_lock();
	for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	pw_loader_unlock();
	if (!h)
		return;
	R.init = (rsmi_init_fn)pw_real_dlsym(h, "rsmi_init");
	R.shut_down = (rsmi_shut_down_fn)pw_real_dlsym(h, "rsmi_shut_down");
	R.count = (rsmi_num_monitor_devices_fn)pw_real_dlsym(h, "rsmi_num_monitor_devices");
	R.pci_id = (rsmi_dev_pci_id_get_fn)pw_real_dlsym(h, "rsmi_dev_pci_id_get");
	R.link_type = (rsmi_topo_get_link_type_fn)pw_real_dlsym(h, "rsmi_topo_get_link_type");
	R.p2p = (rsmi_is_P2P_accessible_fn)pw_real_dlsym(h, "rsmi_is_P2P_accessible");
	R.h = h;
}

static bool begin(void)
{
	pthread_once(&R.once, load);
	return R.h && R.init && R.shut_down && R.count && R.pci_id && R.init(0) == RSMI_STATUS_SUCCESS;
}

/* ROCm SMI's index of each device of s (-1: not found): by bus id. */
static void indices(const struct pw_devset *s, int *ix)
{
	uint32_t n = 0;
	for (int d = 0; d < s->n; d++)
		ix[d] = -1;
	if (R.count(&n) != RSMI_STATUS_SUCCESS)
		return;
	for (uint32_t k = 0; k < n; k++) {
		uint64_t b;
		char bus[PW_BUS_LEN];
		if (R.pci_id(k, &b) != RSMI_STATUS_SUCCESS)
			continue;
		snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", (unsigned)(b >> 32), (unsigned)(b >> 8) & 0xff,
		         (unsigned)(b >> 3) & 0x1f, (unsigned)b & 7);
		for (int d = 0; d < s->n; d++)
			if (!strcmp(bus, s->dev[d].bus_id))
				ix[d] = (int)k;
	}
}

void pw_hip_links(struct pw_devset *s)
{
	if (!begin())
		return;
	int ix[PW_MAX_DEV];
	indices(s, ix);
	bool any = false;
	for (int d = 0; d < s->n; d++)
		for (int p = 0; p < s->n; p++) {
			struct pw_pair_info *i = pw_devset_pair(s, d, p);
			uint64_t hops = 0;
			RSMI_IO_LINK_TYPE t = RSMI_IOLINK_TYPE_UNDEFINED;
			bool ok = false;
			if (p == d || ix[d] < 0 || ix[p] < 0)
				continue;
			any = true;
			if (R.link_type &&
			    R.link_type((uint32_t)ix[d], (uint32_t)ix[p], &hops, &t) == RSMI_STATUS_SUCCESS)
				i->link = t == RSMI_IOLINK_TYPE_XGMI         ? "xgmi"
				          : t == RSMI_IOLINK_TYPE_PCIEXPRESS ? "pcie"
				                                             : NULL;
			if (R.p2p && R.p2p((uint32_t)ix[d], (uint32_t)ix[p], &ok) == RSMI_STATUS_SUCCESS)
				i->p2p[PW_P2P_READ] = i->p2p[PW_P2P_WRITE] = ok ? "ok" : "not_supported";
		}
	s->links = any;
	R.shut_down();
}

bool pw_hip_why_not(const struct pw_devset *s, int dev, int peer, char *buf, size_t len)
{
	if (!begin())
		return false;
	int ix[PW_MAX_DEV];
	indices(s, ix);
	bool ok = true, said = false;
	uint64_t hops = 0;
	RSMI_IO_LINK_TYPE t = RSMI_IOLINK_TYPE_UNDEFINED;
	if (ix[dev] >= 0 && ix[peer] >= 0 && R.p2p &&
	    R.p2p((uint32_t)ix[dev], (uint32_t)ix[peer], &ok) == RSMI_STATUS_SUCCESS && !ok) {
		bool typed = R.link_type && R.link_type((uint32_t)ix[dev], (uint32_t)ix[peer], &hops, &t) ==
		                                RSMI_STATUS_SUCCESS;
		snprintf(buf, len, "ROCm SMI says P2P is not possible between them (link %s, %llu hop%s)",
		         !typed                             ? "unknown"
		         : t == RSMI_IOLINK_TYPE_XGMI       ? "XGMI"
		         : t == RSMI_IOLINK_TYPE_PCIEXPRESS ? "PCIe"
		                                            : "undefined",
		         (unsigned long long)hops, hops == 1 ? "" : "s");
		said = true;
	}
	R.shut_down();
	return said;
}

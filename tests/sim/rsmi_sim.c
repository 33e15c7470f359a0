/*
 * Simulated ROCm SMI (librocm_smi64.so.1, the SONAME of Debian's package):
 * the few calls peerwatch asks about the link between two AMD GPUs, with
 * the types and values of include/peerwatch/abi/rocm_smi.h.  Like the real
 * library it sees every device of the host, numbered its own way, each with
 * the bus id the simulated HIP runtime gives it (README.md, "Simulated ROCm
 * SMI").
 *   PWSIM_DEVICES, PWSIM_PEERS  as for the other simulators (P2P possible)
 *   PWSIM_XGMI                  pairs joined by XGMI, "0-1,2-3" (else PCIe)
 *   PWSIM_RSMI=absent           rsmi_init fails (RSMI_STATUS_INIT_ERROR)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/rocm_smi.h"
#include "sim_topo.h"

#define API __attribute__((visibility("default")))

static struct pwsim_topo topo;
static uint64_t xgmi[PWSIM_TOPO_MAX_DEVICES];
static int absent, inits;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The device numbering: the host's devices backwards (not HIP's order). */
static int phys_of(uint32_t i)
{
	return topo.nphys - 1 - (int)i;
}

static void load(void)
{
	pwsim_topo_load(&topo, PWSIM_VIS_NONE);
	const char *s = getenv("PWSIM_XGMI");
	for (const char *p = s; p && *p;) {
		char *end;
		errno = 0;
		long a = strtol(p, &end, 10), b;
		if (errno || end == p || *end != '-' || a < 0 || a >= topo.nphys)
			goto bad;
		p = end + 1;
		b = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || b < 0 || b >= topo.nphys || a == b)
			goto bad;
		xgmi[a] |= 1ull << b;
		xgmi[b] |= 1ull << a;
		p = *end ? end + 1 : end;
	}
	s = getenv("PWSIM_RSMI");
	absent = s && !strcmp(s, "absent");
	return;
bad:
	pwsim_bad_env("PWSIM_XGMI", s, "pairs of distinct device numbers like '0-1,2-3'", "none");
	memset(xgmi, 0, sizeof xgmi);
}

static bool ready(void)
{
	pthread_mutex_lock(&lock);
	bool r = inits > 0;
	pthread_mutex_unlock(&lock);
	return r;
}

API rsmi_status_t rsmi_init(uint64_t init_flags)
{
	(void)init_flags;
	pthread_once(&once, load);
	if (absent)
		return RSMI_STATUS_INIT_ERROR;
	pthread_mutex_lock(&lock);
	inits++;
	pthread_mutex_unlock(&lock);
	return RSMI_STATUS_SUCCESS;
}

API rsmi_status_t rsmi_shut_down(void)
{
	pthread_mutex_lock(&lock);
	if (inits > 0)
		inits--;
	pthread_mutex_unlock(&lock);
	return RSMI_STATUS_SUCCESS;
}

API rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices)
{
	if (!ready())
		return RSMI_STATUS_INIT_ERROR;
	if (!num_devices)
		return RSMI_STATUS_INVALID_ARGS;
	*num_devices = (uint32_t)topo.nphys;
	return RSMI_STATUS_SUCCESS;
}

/* rocm_smi.h :1422-1423: domain << 32 | bus << 8 | device << 3 | function */
API rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid)
{
	if (!ready())
		return RSMI_STATUS_INIT_ERROR;
	if (!bdfid || dv_ind >= (uint32_t)topo.nphys)
		return RSMI_STATUS_INVALID_ARGS;
	int p = phys_of(dv_ind); /* the bus of sim_topo.c's pwsim_topo_bus_id */
	*bdfid = (uint64_t)(p / 15) << 32 | (uint64_t)(0x10 * (1 + p % 15)) << 8;
	return RSMI_STATUS_SUCCESS;
}

API rsmi_status_t rsmi_topo_get_link_type(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *hops,
                                          RSMI_IO_LINK_TYPE *type)
{
	if (!ready())
		return RSMI_STATUS_INIT_ERROR;
	if (!hops || !type || dv_ind_src >= (uint32_t)topo.nphys || dv_ind_dst >= (uint32_t)topo.nphys)
		return RSMI_STATUS_INVALID_ARGS;
	bool x = (xgmi[phys_of(dv_ind_src)] >> phys_of(dv_ind_dst)) & 1;
	*type = x ? RSMI_IOLINK_TYPE_XGMI : RSMI_IOLINK_TYPE_PCIEXPRESS;
	*hops = x ? 1 : 2;
	return RSMI_STATUS_SUCCESS;
}

API rsmi_status_t rsmi_is_P2P_accessible(uint32_t dv_ind_src, uint32_t dv_ind_dst, bool *accessible)
{
	if (!ready())
		return RSMI_STATUS_INIT_ERROR;
	if (!accessible || dv_ind_src >= (uint32_t)topo.nphys || dv_ind_dst >= (uint32_t)topo.nphys)
		return RSMI_STATUS_INVALID_ARGS;
	*accessible = (topo.link[phys_of(dv_ind_src)] >> phys_of(dv_ind_dst)) & 1;
	return RSMI_STATUS_SUCCESS;
}

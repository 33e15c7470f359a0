/*
 * The few NVIDIA Management Library (NVML) types, values and functions
 * peerwatch asks, so that the build needs no NVML header.  Every value is
 * nvml.h's (NVML_API_VERSION 13, as NVIDIA's go-nvml carries it; line
 * numbers in the comments); names are the vendor's.
 *
 * peerwatch never links against NVML: it loads libnvidia-ml.so.1 privately
 * (dlopen with RTLD_LOCAL) to record the link of each pair of devices and to
 * say why two devices cannot be peers, and finds each function with dlsym.
 * NVML ignores CUDA_VISIBLE_DEVICES: it sees every GPU of the host, and
 * devices are found by PCI bus id (or UUID), never by a CUDA ordinal.
 */
#ifndef PEERWATCH_ABI_NVML_H
#define PEERWATCH_ABI_NVML_H

typedef int nvmlReturn_t;                   /* enum nvmlReturn_enum, :1295-1330 */
typedef struct nvmlDevice_st *nvmlDevice_t; /* :158 */
typedef int nvmlEnableState_t;              /* enum nvmlEnableState_enum, :884-888 */
typedef int nvmlGpuTopologyLevel_t;         /* enum nvmlGpuLevel_enum, :544-554 */
typedef int nvmlGpuP2PStatus_t;             /* enum nvmlGpuP2PStatus_enum, :560-571 */
typedef int nvmlGpuP2PCapsIndex_t;          /* enum nvmlGpuP2PCapsIndex_enum, :574-587 */
typedef int nvmlIntNvLinkDeviceType_t;      /* enum nvmlIntNvLinkDeviceType_enum, :532-538 */

/* nvmlReturn_t, :1298-1329 */
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_UNKNOWN 999

/* nvmlEnableState_t, :886-887 */
#define NVML_FEATURE_DISABLED 0
#define NVML_FEATURE_ENABLED 1

/* nvmlGpuTopologyLevel_t, :546-551: the closest thing two GPUs' PCIe paths
 * share (nvidia-smi topo -m: PIX, PXB, PHB, NODE, SYS) */
#define NVML_TOPOLOGY_INTERNAL 0    /* one board (e.g. Tesla K80) */
#define NVML_TOPOLOGY_SINGLE 10     /* a single PCIe switch */
#define NVML_TOPOLOGY_MULTIPLE 20   /* several switches, no host bridge */
#define NVML_TOPOLOGY_HOSTBRIDGE 30 /* the same host bridge */
#define NVML_TOPOLOGY_NODE 40       /* the same NUMA node, several host bridges */
#define NVML_TOPOLOGY_SYSTEM 50     /* across NUMA nodes: the CPUs' interconnect */

/* nvmlGpuP2PStatus_t, :562-569 (CHIPSET_NOT_SUPPORED is nvml.h's spelling) */
#define NVML_P2P_STATUS_OK 0
#define NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED 1
#define NVML_P2P_STATUS_GPU_NOT_SUPPORTED 2
#define NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED 3
#define NVML_P2P_STATUS_DISABLED_BY_REGKEY 4
#define NVML_P2P_STATUS_NOT_SUPPORTED 5
#define NVML_P2P_STATUS_UNKNOWN 6

/* nvmlIntNvLinkDeviceType_t, :534-537: what is at the far end of a link (on
 * HGX boards every GPU link ends at an NVSwitch, not at the peer GPU) */
#define NVML_NVLINK_DEVICE_TYPE_GPU 0x00
#define NVML_NVLINK_DEVICE_TYPE_IBMNPU 0x01
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 0x02
#define NVML_NVLINK_DEVICE_TYPE_UNKNOWN 0xFF

/* nvmlGpuP2PCapsIndex_t, :576-586 */
#define NVML_P2P_CAPS_INDEX_READ 0
#define NVML_P2P_CAPS_INDEX_WRITE 1
#define NVML_P2P_CAPS_INDEX_NVLINK 2
#define NVML_P2P_CAPS_INDEX_ATOMICS 3
#define NVML_P2P_CAPS_INDEX_PCI 4

#define NVML_NVLINK_MAX_LINKS 36                 /* :455 (18 in older headers) */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32    /* :165 */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16 /* :170 */
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96       /* :4080 */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96       /* :4105 */

/* nvmlPciInfo_t, :196-208: what nvmlDeviceGetPciInfo_v3 and
 * nvmlDeviceGetNvLinkRemotePciInfo_v2 write */
typedef struct nvmlPciInfo_st {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

/*
 * The functions, each looked up by its exported name (nvml.h maps the
 * unversioned names to these, :118-139):
 *   nvmlReturn_t nvmlInit_v2(void);                                               :4002
 *   nvmlReturn_t nvmlShutdown(void);                                              :4036
 *   const char *nvmlErrorString(nvmlReturn_t result);                             :4057
 *   nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);                :4573
 *   nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device); :4641
 *   nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);     :4700
 *   nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device); :4758
 *   nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length); :4784
 *   nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
 *                                                    nvmlGpuTopologyLevel_t *pathInfo); :5123
 *   nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
 *                                       nvmlGpuP2PCapsIndex_t p2pIndex,
 *                                       nvmlGpuP2PStatus_t *p2pStatus);             :5158
 *   nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length); :5186
 *   nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);  :5471
 *   nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
 *                                         nvmlEnableState_t *isActive);            :9506
 *   nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
 *                                                    nvmlPciInfo_t *pci);           :9565
 *   nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
 *                                      nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType); :9742
 */
typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int *deviceCount);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByUUID_fn)(const char *uuid, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId_v2_fn)(const char *pciBusId, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t device, char *name, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetTopologyCommonAncestor_fn)(nvmlDevice_t device1, nvmlDevice_t device2,
                                                               nvmlGpuTopologyLevel_t *pathInfo);
typedef nvmlReturn_t (*nvmlDeviceGetP2PStatus_fn)(nvmlDevice_t device1, nvmlDevice_t device2,
                                                  nvmlGpuP2PCapsIndex_t p2pIndex,
                                                  nvmlGpuP2PStatus_t *p2pStatus);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t device, char *uuid, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v3_fn)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkState_fn)(nvmlDevice_t device, unsigned int link,
                                                    nvmlEnableState_t *isActive);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkRemotePciInfo_v2_fn)(nvmlDevice_t device, unsigned int link,
                                                               nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkRemoteDeviceType_fn)(nvmlDevice_t device, unsigned int link,
                                                               nvmlIntNvLinkDeviceType_t *type);

#endif

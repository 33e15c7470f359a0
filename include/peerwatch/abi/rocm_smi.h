/*
 * The few ROCm System Management Interface (ROCm SMI) types, values and
 * functions peerwatch asks about the link between two AMD GPUs, so that the
 * build needs no ROCm header.  Every value is rocm_smi/rocm_smi.h's (Debian
 * bookworm librocm-smi-dev 5.2.3; line numbers in the comments); names are
 * the vendor's.
 *
 * peerwatch never links against it: it loads librocm_smi64 privately
 * (dlopen with RTLD_LOCAL, the names below tried in turn) on the trace
 * writer's thread, once, to record each HIP pair's link, and when a
 * finding says two devices cannot be peers.  ROCm SMI numbers devices its
 * own way: they are matched to HIP's by PCI bus id.
 */
#ifndef PEERWATCH_ABI_ROCM_SMI_H
#define PEERWATCH_ABI_ROCM_SMI_H

#include <stdbool.h>
#include <stdint.h>

/* The library's file: librocm_smi64.so.1 in Debian's package (its SONAME);
 * ROCm's own packages carry later majors. */
#define PW_RSMI_LIBS "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "librocm_smi64.so.1"

typedef int rsmi_status_t;     /* enum, :85-131 */
typedef int RSMI_IO_LINK_TYPE; /* enum _RSMI_IO_LINK_TYPE, :616-622 */

#define RSMI_STATUS_SUCCESS 0x0      /* :86 */
#define RSMI_STATUS_INVALID_ARGS 0x1 /* :87 */
#define RSMI_STATUS_INIT_ERROR 8     /* :104 */

#define RSMI_IOLINK_TYPE_UNDEFINED 0  /* :617 */
#define RSMI_IOLINK_TYPE_PCIEXPRESS 1 /* :618 */
#define RSMI_IOLINK_TYPE_XGMI 2       /* :619 (AMD Infinity Fabric) */

/*
 *   rsmi_status_t rsmi_init(uint64_t init_flags);                                  :983
 *   rsmi_status_t rsmi_shut_down(void);                                            :990
 *   rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);                 :1011
 *   rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid);           :1447
 *       BDFID = ((DOMAIN & 0xffffffff) << 32) | ((BUS & 0xff) << 8) |
 *               ((DEVICE & 0x1f) << 3) | (FUNCTION & 0x7)                          :1422-1423
 *   rsmi_status_t rsmi_topo_get_link_type(uint32_t dv_ind_src, uint32_t dv_ind_dst,
 *                                         uint64_t *hops, RSMI_IO_LINK_TYPE *type); :3420
 *   rsmi_status_t rsmi_is_P2P_accessible(uint32_t dv_ind_src, uint32_t dv_ind_dst,
 *                                        bool *accessible);                         :3444
 */
typedef rsmi_status_t (*rsmi_init_fn)(uint64_t init_flags);
typedef rsmi_status_t (*rsmi_shut_down_fn)(void);
typedef rsmi_status_t (*rsmi_num_monitor_devices_fn)(uint32_t *num_devices);
typedef rsmi_status_t (*rsmi_dev_pci_id_get_fn)(uint32_t dv_ind, uint64_t *bdfid);
typedef rsmi_status_t (*rsmi_topo_get_link_type_fn)(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *hops,
                                                    RSMI_IO_LINK_TYPE *type);
typedef rsmi_status_t (*rsmi_is_P2P_accessible_fn)(uint32_t dv_ind_src, uint32_t dv_ind_dst,
                                                   bool *accessible);

#endif

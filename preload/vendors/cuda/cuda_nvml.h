/*
 * NVIDIA's management library (libnvidia-ml.so.1), loaded privately: dlopen
 * with RTLD_LOCAL, so none of its symbols meet the program's, and only
 *   - on the trace writer's thread, once, when the CUDA devices are first
 *     identified (each pair's link: NVLinks, through NVSwitches or not, the
 *     PCIe common ancestor, the P2P statuses), and
 *   - when a finding says two devices cannot be peers (why not).
 * Never on the hot path.  Devices are found by PCI bus id: NVML ignores
 * CUDA_VISIBLE_DEVICES and sees every GPU of the host.
 */
#ifndef PW_CUDA_NVML_H
#define PW_CUDA_NVML_H

#include <stdbool.h>
#include <stddef.h>

struct pw_devset;

/* Fills the links of every pair of s (set->links = true when NVML answered). */
void pw_nvml_links(struct pw_devset *s);

/* Why the devices at bus ids a and b cannot be peers, in words ("the
 * devices are on different CPU sockets (NVML: P2P reads ...)"), into buf;
 * false when NVML cannot say (absent, or the pair is fine by it). */
bool pw_nvml_why_not(const char *bus_a, const char *bus_b, char *buf, size_t len);

/* Device dev of s: its active NVLinks that end at an NVSwitch, asked now;
 * -1 when NVML cannot say. */
int pw_nvml_switch_links(const struct pw_devset *s, int dev);

#endif

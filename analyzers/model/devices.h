/*
 * Physical devices across the traces (docs/trace-format.md, Device lines).
 *
 * A device ordinal is private to a process.  Each trace that has "device"
 * lines says which device each of its ordinals is (UUID, bus id); the
 * reports that merge processes key devices by host + UUID through this
 * map, and show them as the host's GPU<n> (numbered by PCI bus id among the
 * devices the traces name) with its bus id.  A trace without device lines
 * (written before peerwatch recorded them, or whose runtime said nothing)
 * keeps its ordinals, which are merged by number as before, with a note.
 *
 * A device key (int64_t) is what reports store: an ordinal (>= 0), -1 for
 * host memory, PW_DEV_NONE for none, or PW_PHYS_BASE + the index of a
 * physical device in the map.
 */
#ifndef PW_AN_DEVICES_H
#define PW_AN_DEVICES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "read/trace.h"

#define PW_PHYS_BASE ((int64_t)1 << 40)

/* A process's own device ordinal as text: "dev1", "host" (-1,
 * CU_DEVICE_CPU), "?" for none (PW_DEV_NONE). */
void fmt_dev(char *buf, size_t len, int64_t dev);
/* The same as JSON: the ordinal, or null. */
json_t *json_dev(int64_t dev);

struct pw_phys_ordinal {
	size_t file;
	int64_t ordinal;
};

struct pw_phys {
	char *host;
	char vendor[8];
	char *uuid, *bus_id, *name; /* bus_id, name: NULL when no trace said */
	int number;                 /* GPU<number> (NPU for ACL) within host and vendor */
	struct vec ordinals;        /* struct pw_phys_ordinal: each process's ordinal of it */
};

struct pw_devmap {
	struct vec phys;     /* struct pw_phys, by host, vendor, bus id, UUID */
	struct hmap byord;   /* (file, vendor, ordinal) -> index + 1 */
	struct hmap links;   /* (index, index) -> const struct pw_peer_info * */
	size_t identified;   /* files with device lines */
	size_t unidentified; /* read files without any */
};

/* Built from the files once they are read; free with pw_devmap_free. */
void pw_devmap_build(struct pw_devmap *m, const struct pw_input *in);
void pw_devmap_free(struct pw_devmap *m);

/* The key of ordinal `ordinal` of vendor in file: physical when the file
 * identified it, else the ordinal itself (host -1 and PW_DEV_NONE pass). */
int64_t pw_devkey(const struct pw_devmap *m, size_t file, const char *vendor, int64_t ordinal);
/* The physical device of a key, or NULL. */
const struct pw_phys *pw_devkey_phys(const struct pw_devmap *m, int64_t key);
/* "GPU0", "dev1", "host", "?" */
void pw_devkey_fmt(const struct pw_devmap *m, int64_t key, char *buf, size_t len);
/* "GPU0" (physical), the ordinal, "host", or null */
json_t *pw_devkey_json(const struct pw_devmap *m, int64_t key);
/* Orders keys: host, ordinals, physical devices, none last. */
int pw_devkey_cmp(int64_t a, int64_t b);

/* The link between two physical devices as a trace recorded it, or NULL. */
const struct pw_peer_info *pw_devmap_link(const struct pw_devmap *m, int64_t a, int64_t b);
/* "NV18", "NV18 via NVSwitch", "XGMI", "PCIe", "PCIe, across CPU sockets", "unknown", "-" (none) */
void pw_link_fmt(const struct pw_peer_info *p, char *buf, size_t len);
/* {"link", "nvlinks", "topology", "p2p_read"} or null */
json_t *pw_link_json(const struct pw_peer_info *p);

/* The devices of one host and vendor, as a legend ("  GPU0  0000:18:00.0
 * NVIDIA H100 ...  GPU-...  ordinal 0 in calls[12], 1 in calls[13]"). */
void pw_devmap_legend(const struct pw_devmap *m, const struct pw_input *in, const char *host,
                      const char *vendor, const char *indent);
/* The same as JSON: [{"device": "GPU0", "uuid", "bus_id", "name", "ordinals": [{process, ordinal}]}] */
json_t *pw_devmap_json(const struct pw_devmap *m, const struct pw_input *in, const char *host,
                       const char *vendor);
/* Every host and vendor: "devices" sections of summary and info. */
void pw_devmap_print_all(const struct pw_devmap *m, const struct pw_input *in);
/* [{"host", "vendor", "devices": pw_devmap_json}] */
json_t *pw_devmap_all_json(const struct pw_devmap *m, const struct pw_input *in);
/* The note for traces without device lines, or NULL when every trace has them. */
const char *pw_devmap_note(const struct pw_devmap *m);

#endif

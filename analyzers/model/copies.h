/*
 * The copies between devices and the peer-access state of each pair
 * (copies.c says what counts as a copy, and how a copy is judged against
 * its process's peer access when it was made).  matrix prints them and
 * report draws them, from the same cells.
 */
#ifndef PW_AN_COPIES_H
#define PW_AN_COPIES_H

#include <stdint.h>

#include "model/devices.h"
#include "read/reader.h"

/* One pair of one vendor on one host: while reading, of one process's
 * ordinals; once merged (copies_regroup), of device keys (devices.h). */
struct copy_cell {
	char *host;
	char vendor[8];
	size_t file;      /* the process, while reading; COPIES_MERGED once devices are physical */
	int64_t src, dst; /* ordinals while reading; device keys (devices.h) once merged */
	uint64_t copies, failed, bytes, host_ns;
	uint64_t gpu_copies, gpu_bytes, gpu_ns;
	uint64_t no_peer, no_peer_bytes;
	uint64_t implicit, implicit_bytes, batch;
	uint64_t enables, disables, grants, on_at_end;
	uint64_t enable_failed; /* enables the runtime refused (not "already enabled") */
};

struct copy_matrix {
	struct hmap cells; /* host "\0" vendor "\0" file src dst -> struct copy_cell */
};

#define COPIES_MERGED ((size_t)-1)

/* The sink: its report is a struct copy_matrix whose cells are hmap_init'ed. */
extern const struct pw_sink_ops copies_ops;
/* hmap_free's value destructor for the cells. */
void copies_free_cell(void *p);

/* Each process's cells onto the physical devices its ordinals name (a
 * process without device lines keeps its ordinals, merged by number). */
void copies_regroup(struct copy_matrix *to, const struct copy_matrix *from, const struct pw_devmap *dm);
/* The cells by host, vendor, source, destination (m->cells.len of them);
 * free() the array, not the cells. */
struct copy_cell **copies_sorted(const struct copy_matrix *m);
/* The devices of the cells [from, to), sorted, without repeats; free() it. */
int64_t *copies_devices(struct copy_cell **cells, size_t from, size_t to, size_t *n);
/* The cell of (s, d) among [from, to), or NULL. */
const struct copy_cell *copies_find(struct copy_cell **cells, size_t from, size_t to, int64_t s, int64_t d);

#endif

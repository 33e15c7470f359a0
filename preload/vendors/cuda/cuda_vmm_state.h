/*
 * What this process did with CUDA virtual memory (cuMemCreate and friends):
 * the allocation handles it holds, with the handle types each was created
 * for, the shareable handles exported from them, and the mappings
 * ptr -> (size, handle, device) with the devices granted access to each.
 *
 * One mutex of its own serializes the writers.  Copies read the mappings
 * without it (a sequence count, as a seqlock: the wrapper's hot path takes
 * no global lock), and only while some mapping exists (an atomic count
 * says so), so programs that never map virtual memory pay one relaxed load
 * per copy.  The rules never read these
 * tables: cuda_ops_vmm.c copies the facts a rule needs into the pw_op, so the
 * rules stay pure functions of (state, op).
 */
#ifndef PW_CUDA_VMM_STATE_H
#define PW_CUDA_VMM_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "state/op.h"

#define PW_VMM_MAX_HANDLES 256
#define PW_VMM_MAX_MAPS 512
#define PW_VMM_MAX_KEYS 4 /* shareable handles remembered per allocation */

struct pw_vmm_handle {
	uint64_t handle;
	unsigned types; /* CUmemAllocationProp::requestedHandleTypes (imports: the type imported) */
	int dev;
	uint64_t size;
	int refs; /* create/import/retain minus releases */
	bool imported, used;
	int nkeys;
	unsigned char keys[PW_VMM_MAX_KEYS][PW_IPC_HANDLE_BYTES]; /* registry keys of its exports */
};

struct pw_vmm_map { /* a mapping, as copied out */
	uint64_t ptr, size, handle;
	int dev;
	uint64_t rw, read; /* bit d: device d may write / read */
	bool used;
};

struct pw_vmm_slot { /* a mapping, as stored: read without the lock */
	_Atomic uint64_t ptr, size, handle, rw, read;
	atomic_int dev;
	atomic_bool used;
};

struct pw_vmm_state {
	pthread_mutex_t lock;
	atomic_int nmaps;
	_Atomic uint64_t seq; /* odd while a writer changes the slots */
	struct pw_vmm_handle handles[PW_VMM_MAX_HANDLES];
	struct pw_vmm_slot maps[PW_VMM_MAX_MAPS];
};

extern struct pw_vmm_state pw_vmm;

/* All of these take the lock themselves. */
void pw_vmm_created(struct pw_vmm_state *s, uint64_t handle, unsigned types, int dev, uint64_t size,
                    bool imported);
/* A retain (cuMemRetainAllocationHandle) adds a reference. */
void pw_vmm_retained(struct pw_vmm_state *s, uint64_t handle);
/* A release; when the last reference goes, the keys of its exports are
 * copied to keys (up to PW_VMM_MAX_KEYS) and their number returned. */
int pw_vmm_released(struct pw_vmm_state *s, uint64_t handle, unsigned char keys[][PW_IPC_HANDLE_BYTES]);
void pw_vmm_exported(struct pw_vmm_state *s, uint64_t handle, const unsigned char *key);
/* False if the handle is not one this process holds. */
bool pw_vmm_handle_info(struct pw_vmm_state *s, uint64_t handle, unsigned *types, int *dev);
void pw_vmm_mapped(struct pw_vmm_state *s, uint64_t ptr, uint64_t size, uint64_t handle);
void pw_vmm_unmapped(struct pw_vmm_state *s, uint64_t ptr, uint64_t size);
/* Access of devices to every mapping inside [ptr, ptr+size): each bit of
 * set_rw / set_read / set_none names a device given that protection. */
void pw_vmm_access(struct pw_vmm_state *s, uint64_t ptr, uint64_t size, uint64_t set_rw, uint64_t set_read,
                   uint64_t set_none);
/* The mapping that holds ptr, copied out; false if none. */
bool pw_vmm_map_of(struct pw_vmm_state *s, uint64_t ptr, struct pw_vmm_map *out);
/* The mappings still there, one per call: *cursor starts at 0. */
bool pw_vmm_next_map(struct pw_vmm_state *s, int *cursor, struct pw_vmm_map *out);
void pw_vmm_reset(struct pw_vmm_state *s);

/* The registry key of a shareable handle: for a POSIX fd "PWFD", then the
 * st_dev and st_ino of its file (the same in every process holding it);
 * for a fabric handle its 64 bytes.  False when there is none: fstat fails,
 * another type, or the fd is a character device — the real driver exports
 * every allocation as an fd of /dev/nvidiactl, one inode for all, which
 * names no allocation (tests/gpu/vmm_probe.md). */
bool pw_vmm_key(int type, uint64_t fd_or_bytes, unsigned char key[PW_IPC_HANDLE_BYTES]);

#endif

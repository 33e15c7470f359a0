/*
 * Internal state of the simulated HIP runtime (libamdhip64.so.<major>),
 * shared by its source files.  Nothing here is exported: the library is built
 * with -fvisibility=hidden and a version script that names only the hip*
 * functions of hip_sim_api.h.
 *
 * A test double for peerwatch's CI, which has no GPU: it follows the facts
 * file (docs/facts-hip-acl.md, "facts" below) and the HIP
 * documentation; it defines no contract of its own.  One mutex guards
 * everything; streams and events are synchronous.  The current device is per
 * thread (0 until hipSetDevice), as in HIP.
 */
#ifndef PWSIM_HIP_SIM_INTERNAL_H
#define PWSIM_HIP_SIM_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hip_sim_api.h"
#include "sim_topo.h"

#define HSIM_SHM_NAME_MAX 36 /* bytes, NUL included: the field in the IPC handle */

/* ---- configuration and devices (hip_sim.c) ---- */
const struct pwsim_topo *hsim_topo(void);
int hsim_valid_device(int dev);
int hsim_can_access(int dev, int peer); /* a link from dev to peer (both valid) */
int hsim_current(void);                 /* the calling thread's device */
int hsim_ordinal_of(int p);             /* physical device p's ordinal here, or -1 */
void hsim_lock(void);
void hsim_unlock(void);
/* rc, kept as the thread's last error as the runtime of this major keeps
 * it (hip_sim_mem.c): only the calls that say so record theirs */
hipError_t hsim_note_result(hipError_t rc);

/* ---- allocations (hip_sim_mem.c) ---- */
enum hsim_kind {
	HSIM_KIND_DEVICE = 1, /* hipMalloc: a shared-memory object, exportable by IPC */
	HSIM_KIND_MANAGED,    /* hipMallocManaged: anonymous */
	HSIM_KIND_IPC,        /* a mapping opened by hipIpcOpenMemHandle */
};

/* Managed-memory state of one page (hip_sim_managed.c). */
struct hsim_page {
	uint8_t read_mostly;
	uint8_t coarse;
	uint8_t accessed_by_host;
	int preferred;        /* device, hipCpuDeviceId, or hipInvalidDeviceId: none */
	int prefetched;       /* last prefetch location, or hipInvalidDeviceId: never */
	uint64_t accessed_by; /* devices with SetAccessedBy */
};

struct hsim_alloc {
	uintptr_t base;
	size_t size;     /* bytes asked for: the range checks use it */
	size_t map_size; /* size rounded up to pages */
	int device;
	enum hsim_kind kind;
	unsigned long long id;            /* never reused */
	char shm_name[HSIM_SHM_NAME_MAX]; /* "" unless KIND_DEVICE */
	int freed;                        /* the range stays reserved (PROT_NONE) */
	pid_t shm_pid;                    /* the object's creator and its id there */
	unsigned long long shm_id;
	int ipc_refs; /* KIND_IPC: open count */
	/* hip_sim_pool.c: the pool it came from (0: none), and for KIND_IPC
	 * whether hipMemPoolImportPointer opened it (then hipFree closes it) */
	unsigned long long pool_id;
	int pool_import;
	unsigned flags;
	struct hsim_page *pages; /* KIND_MANAGED: one per page */
	struct hsim_alloc *next_freed;
};

/* All of these expect the caller to hold the lock. */
struct hsim_alloc *hsim_find(uintptr_t p);      /* freed or not */
struct hsim_alloc *hsim_find_live(uintptr_t p); /* not freed */
/* Live allocation holding the whole of [p, p+n), n > 0. */
struct hsim_alloc *hsim_find_range(uintptr_t p, size_t n);
hipError_t hsim_alloc_new(enum hsim_kind kind, size_t size, int device, struct hsim_alloc **out);
hipError_t hsim_alloc_import(const char *shm_name, size_t size, int device, struct hsim_alloc **out);
/* The live import of (pid, id) on device: a mapping is per device, as CUDA's
 * is per context ("one context per device per other process"). */
struct hsim_alloc *hsim_find_import(pid_t pid, unsigned long long id, int device);
/* The lazy flag's peer access from dev to peer (hip_sim.c): "as if the user
 * called hipDeviceEnablePeerAccess", where the pair is linked. */
void hsim_lazy_enable(int dev, int peer);
void hsim_alloc_retire(struct hsim_alloc *a);
/* hipDeviceReset: retire the device's hipMalloc memory and its IPC mappings. */
void hsim_retire_device(int dev);

/* ---- streams and events (hip_sim_stream.c) ---- */
/* hipSuccess for the NULL stream or a live stream; takes the lock. */
hipError_t hsim_stream_check(hipStream_t s);

#define HSIM_EVENT_MAGIC 0x54564548u /* "HEVT" */
struct ihipEvent_t {
	uint32_t magic;
	unsigned flags;
	int device;
	int recorded;
	unsigned long long id;
	struct ihipEvent_t *next;
};
struct ihipEvent_t *hsim_event_new(unsigned flags); /* caller holds the lock */
struct ihipEvent_t *hsim_event_check(hipEvent_t e); /* caller holds the lock */

static inline int hsim_add_overflows(uintptr_t a, size_t b, uintptr_t *sum)
{
	return __builtin_add_overflow(a, b, sum);
}

#endif

/*
 * Internal state of the simulated CUDA driver, shared by its source files.
 * Nothing here is exported: the library is built with -fvisibility=hidden and
 * only the PWSIM_API functions of cuda_sim_api.h are visible.
 *
 * The simulator is a test double for peerwatch's CI, which has no GPU: it
 * follows the vendor documents (cuda.h) and the behaviour measured on a real
 * driver (docs/facts-cuda.md, "facts" below); it defines no
 * contract of its own.  One mutex guards everything; streams and events are
 * synchronous (work happens when it is enqueued).
 */
#ifndef PWSIM_SIM_INTERNAL_H
#define PWSIM_SIM_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cuda_sim_api.h"

#define PWSIM_MAX_DEVICES 64
/* How many peers one device may have before cuCtxEnablePeerAccess answers
 * CUDA_ERROR_TOO_MANY_PEERS (cuda.h :23868): the documented hardware limit of
 * eight peers per device. */
#define PWSIM_MAX_PEERS 8
#define PWSIM_SHM_NAME_MAX 36 /* bytes, NUL included: "/pwsim.<uid>.<pid>.<buffer id>" */

/* ---- configuration (cuda_sim.c) ---- */
struct pwsim_config {
	int ndev;                         /* devices visible (PWSIM_DEVICES, CUDA_VISIBLE_DEVICES) */
	int nphys;                        /* PWSIM_DEVICES */
	int phys[PWSIM_MAX_DEVICES];      /* ordinal -> physical device */
	uint64_t peer[PWSIM_MAX_DEVICES]; /* bit j of peer[i]: i can access j (PWSIM_PEERS) */
	uint64_t link[PWSIM_MAX_DEVICES]; /* the same by physical device */
	int driver_version;               /* PWSIM_DRIVER_VERSION */
	int pageable;                     /* PWSIM_PAGEABLE: devices access pageable memory (HMM/ATS) */
};
const struct pwsim_config *pwsim_cfg(void);
/* CUDA_SUCCESS once cuInit has run, else CUDA_ERROR_NOT_INITIALIZED. */
CUresult pwsim_ready(void);
int pwsim_valid_device(CUdevice dev);
/* A host NUMA node this host has online (/sys/devices/system/node/online;
 * node 0 alone where it cannot be read). */
int pwsim_numa_node_ok(int node);
int pwsim_can_access(CUdevice dev, CUdevice peer);
/* The ordinal of physical device p in this process, or -1 if it is not visible. */
int pwsim_ordinal_of(int p);

void pwsim_lock(void);
void pwsim_unlock(void);

/* ---- contexts (cuda_sim_ctx.c) ---- */
#define PWSIM_CTX_MAGIC 0x43545853u /* "SXTC" */
/* Contexts cuCtxCreate may make besides the primary ones. */
#define PWSIM_MADE_CTX 16
/* Every context by index: primary i is i, made j is PWSIM_MAX_DEVICES + j. */
#define PWSIM_CTX_SLOTS (PWSIM_MAX_DEVICES + PWSIM_MADE_CTX)
struct CUctx_st {
	uint32_t magic;
	int device;
	int retained; /* cuDevicePrimaryCtxRetain count */
	/* Peer access is per pair of contexts (cuda.h :23843, cuCtxEnablePeerAccess:
	 * "direct access of peerContext from the current context"): bit i of
	 * peer_primary, this context has enabled access to device i's primary
	 * context; bit j of peer_made, to made context j. */
	uint64_t peer_primary;
	uint32_t peer_made;
	int destroyed; /* a made context's slot after cuCtxDestroy, until the next cuCtxCreate takes it */
	uint32_t cupti_last; /* the last CUPTI stream id handed out in this context (cuda_sim_um.c) */
};
/* The primary context of a valid device ordinal. */
struct CUctx_st *pwsim_primary(CUdevice dev);
/* ctx if it is one of our primary contexts or a live made one, else NULL. */
struct CUctx_st *pwsim_ctx_check(CUcontext ctx);
/* The calling thread's current context, or NULL. */
struct CUctx_st *pwsim_current(void);
/* CUDA_ERROR_CONTEXT_IS_DESTROYED for a context cuCtxDestroy destroyed (the
 * real driver's answer to an enable or disable naming one, measured on an
 * H200 with driver 580; its cuMemcpyPeer faults there instead), else
 * CUDA_ERROR_INVALID_CONTEXT: what a call naming ctx answers when
 * pwsim_ctx_check refuses it. */
CUresult pwsim_ctx_refused(CUcontext ctx);
/* The live context of index i (PWSIM_CTX_SLOTS), or NULL; a context's index. */
struct CUctx_st *pwsim_ctx_at(int i);
int pwsim_ctx_index(const struct CUctx_st *c);
/* Whether a has enabled access to b; enable or disable it (caller holds the lock). */
int pwsim_peer_on(const struct CUctx_st *a, const struct CUctx_st *b);
void pwsim_peer_set(struct CUctx_st *a, const struct CUctx_st *b, int on);
/* The access c had to its peers, and theirs to it, is gone: c was reset or
 * destroyed (caller holds the lock). */
void pwsim_peer_forget(struct CUctx_st *c);

/* ---- allocations (cuda_sim_table.c) ---- */
enum pwsim_kind {
	PWSIM_KIND_DEVICE = 1, /* cuMemAlloc: a shared-memory object, exportable by IPC */
	PWSIM_KIND_MANAGED,    /* cuMemAllocManaged */
	PWSIM_KIND_IPC,        /* a mapping opened by cuIpcOpenMemHandle */
	/* cuda_sim_vmm.c: a cuMemMap mapping of a cuMemCreate allocation */
	PWSIM_KIND_VMM,
	/* cuda_sim_vmm.c: a pointer imported by cuMemPoolImportPointer */
	PWSIM_KIND_POOL_IMPORT,
};

/* Managed-memory advice of a run of pages with the same state (cuda_sim_managed.c). */
struct pwsim_seg {
	size_t first, end; /* page indices [first, end) from the allocation's base */
	int read_mostly;
	CUmemLocation preferred;  /* type INVALID: none */
	CUmemLocation prefetched; /* last prefetch location; type INVALID: never */
	uint64_t accessed_by;     /* devices with SET_ACCESSED_BY */
	int accessed_by_host;     /* SET_ACCESSED_BY with a host location */
};

struct pwsim_alloc {
	uintptr_t base;
	size_t size;     /* bytes the caller asked for: the range checks use it */
	size_t map_size; /* size rounded up to pages: what is mapped */
	int device;
	enum pwsim_kind kind;
	struct CUctx_st *ctx;
	unsigned long long buffer_id;      /* CU_POINTER_ATTRIBUTE_BUFFER_ID, never reused */
	char shm_name[PWSIM_SHM_NAME_MAX]; /* "" unless KIND_DEVICE */
	int freed;                         /* freed: the range stays reserved (PROT_NONE) */
	/* The shared-memory object behind KIND_DEVICE and KIND_IPC: the process
	 * that created it and its buffer id there (our own for KIND_DEVICE). */
	pid_t shm_pid;
	unsigned long long shm_id;
	int ipc_refs; /* KIND_IPC: cuIpcOpenMemHandle count */
	/* KIND_MANAGED */
	unsigned attach_flags;
	struct pwsim_seg *segs;
	size_t nsegs;
	struct pwsim_um_page *um; /* residency per PWSIM_UM_PAGE (cuda_sim_um.c); NULL: untouched */
	size_t um_npages;
	struct pwsim_alloc *next_freed; /* FIFO of retired entries */
	/* cuda_sim_vmm.c: the pool a stream-ordered allocation came from (or was
	 * imported through), the cuMemCreate allocation a KIND_VMM range maps */
	struct CUmemPoolHandle_st *pool;
	struct pwsim_vmem *vmem;
};

/* Allocation containing p, freed or not (caller holds the lock). */
struct pwsim_alloc *pwsim_find(uintptr_t p);
/* Live (not freed) allocation containing p, or NULL. */
struct pwsim_alloc *pwsim_find_live(uintptr_t p);
/* Live allocation holding the whole of [p, p+n), n > 0; else NULL. */
struct pwsim_alloc *pwsim_find_range(uintptr_t p, size_t n);
/* New allocation of the kind, mapped and entered in the table. */
CUresult pwsim_alloc_new(enum pwsim_kind kind, size_t size, struct CUctx_st *ctx, struct pwsim_alloc **out);
/* Map an exporter's shared-memory object (IPC import) and enter it. */
CUresult pwsim_alloc_import(const char *shm_name, size_t size, int device, struct CUctx_st *ctx,
                            struct pwsim_alloc **out);
/* Unmap and mark freed; the address range stays reserved for a while. */
void pwsim_alloc_retire(struct pwsim_alloc *a);
/* The live import of (pid, buffer id) in context ctx, for cuIpcOpenMemHandle's
 * reference counting: a mapping is per context (measured on H100s). */
struct pwsim_alloc *pwsim_find_import(pid_t pid, unsigned long long buffer_id, const struct CUctx_st *ctx);

/* Enter [base, base+size) that the caller mapped itself (a VMM mapping). */
CUresult pwsim_alloc_enter(enum pwsim_kind kind, uintptr_t base, size_t size, int device,
                           struct CUctx_st *ctx, struct pwsim_alloc **out);
/* Take an entry out of the table and free it; its range is the caller's. */
void pwsim_alloc_forget(struct pwsim_alloc *a);

/* ---- streams (cuda_sim_stream.c) ---- */
/* CUDA_SUCCESS if s is the NULL stream, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
 * or a live stream; CUDA_ERROR_INVALID_HANDLE otherwise.  Takes the lock. */
CUresult pwsim_stream_check(CUstream s);
/* 1 if s names one of the default streams (NULL, legacy, per-thread). */
int pwsim_stream_is_default(CUstream s);

/* ---- events (cuda_sim_stream.c) ---- */
#define PWSIM_EVENT_MAGIC 0x54564553u /* "SEVT" */
struct CUevent_st {
	uint32_t magic;
	unsigned flags;
	struct CUctx_st *ctx;
	int recorded;
	struct timespec when;
	unsigned long long id; /* IPC event handles name it */
	struct CUevent_st *next;
};
struct CUevent_st *pwsim_event_new(unsigned flags, struct CUctx_st *ctx); /* caller holds the lock */
struct CUevent_st *pwsim_event_check(CUevent e);                          /* caller holds the lock */

/* ---- managed memory's residency and the CUPTI records (cuda_sim_um.c) ---- */
/* The advice of CPU page `page` of managed allocation a (cuda_sim_managed.c). */
const struct pwsim_seg *pwsim_managed_seg(const struct pwsim_alloc *a, size_t page);
/* Advice given to CPU pages [first, end) of a (lock held). */
void pwsim_um_advised(struct pwsim_alloc *a, size_t first, size_t end, CUmem_advise advice,
                      CUmemLocation loc);
/* [p, p+count) of a prefetched to loc, a normalised location (lock held). */
void pwsim_um_prefetch(struct pwsim_alloc *a, uintptr_t p, size_t count, CUmemLocation loc);
/* A stream or context synchronize: deferred prefetches take effect (takes the lock). */
void pwsim_um_synchronized(void);
/* Free a's residency (lock held). */
void pwsim_um_forget(struct pwsim_alloc *a);
/* An asynchronous copy done on stream s (per_thread: a NULL s is the
 * per-thread stream): its CUPTI record, if one is wanted (lock held).  dctx
 * and sctx: the contexts a peer copy names, else NULL. */
void pwsim_cupti_copy(CUstream s, int per_thread, uintptr_t dst, uintptr_t src, size_t n, CUcontext dctx,
                      CUcontext sctx);
/* CUPTI's id of stream s and its context (lock held): 0, or -1.  A default
 * stream is that of context in (NULL: the current context). */
int pwsim_stream_cupti(CUstream s, int per_thread, struct CUctx_st *in, struct CUctx_st **ctx, uint32_t *id);

/* ---- checked arithmetic ---- */
static inline int pwsim_add_overflows(uintptr_t a, size_t b, uintptr_t *sum)
{
	return __builtin_add_overflow(a, b, sum);
}

#endif

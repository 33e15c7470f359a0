/*
 * What the simulated libcupti (cupti_sim.c) asks of the simulated driver
 * (cuda_sim_um.c), which produces the records: the driver keeps the record
 * queue, as the real driver's unified-memory and copy engines are where the
 * events happen; libcupti hands the client's buffers out and back.  The
 * functions are exported by libcuda.so.1 under these names (not cu*, so the
 * export-list checks of sim.mk do not see them) and found by libcupti with
 * dlsym.  Nothing here is a vendor interface.
 */
#ifndef PWSIM_CUPTI_H
#define PWSIM_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#include "peerwatch/abi/cupti.h"

/* One queued record, of whichever kind. */
union pwsim_cupti_record {
	CUpti_Activity any;
	CUpti_ActivityUnifiedMemoryCounter3 um;
	CUpti_ActivityMemcpy6 memcpy;
	CUpti_ActivityMemcpyPtoP4 p2p;
};

/* What records the driver produces: nothing while all three are 0. */
struct pwsim_cupti_config {
	int um;                  /* CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER enabled */
	uint32_t um_counters;    /* bit k: counter kind k configured */
	int memcpy;              /* CUPTI_ACTIVITY_KIND_MEMCPY enabled */
	int memcpy2;             /* CUPTI_ACTIVITY_KIND_MEMCPY2 enabled */
	uint64_t (*clock)(void); /* the records' clock; NULL: CLOCK_REALTIME ns */
	size_t queue;            /* records the queue holds before it drops */
};

/* 1 once cuInit has succeeded. */
int pwsim_cupti_ready(void);
typedef int (*pwsim_cupti_ready_fn)(void);
void pwsim_cupti_configure(const struct pwsim_cupti_config *c);
typedef void (*pwsim_cupti_configure_fn)(const struct pwsim_cupti_config *c);
/* Take the oldest record: 1, or 0 when the queue is empty. */
int pwsim_cupti_pop(union pwsim_cupti_record *r);
typedef int (*pwsim_cupti_pop_fn)(union pwsim_cupti_record *r);
/* Records waiting, and records dropped because the queue was full. */
size_t pwsim_cupti_pending(void);
typedef size_t (*pwsim_cupti_pending_fn)(void);
uint64_t pwsim_cupti_dropped(void);
typedef uint64_t (*pwsim_cupti_dropped_fn)(void);
/* CUPTI's id of a stream, as the copy records carry it: 0, or -1 for a
 * stream that is not live or not of ctx (ctx NULL: any), or no context. */
int pwsim_cupti_stream_id(CUcontext ctx, CUstream s, int per_thread, uint32_t *id);
typedef int (*pwsim_cupti_stream_id_fn)(CUcontext ctx, CUstream s, int per_thread, uint32_t *id);

#endif

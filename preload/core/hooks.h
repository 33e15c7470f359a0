/*
 * What every vendor's hook table generates: a descriptor per hooked symbol,
 * and the record of one call that the encoder and the rules read.
 */
#ifndef PW_HOOKS_H
#define PW_HOOKS_H

#include <stdint.h>

#define PW_MAX_ARGS 12 /* the 9 of cuMemcpyBatchAsync, and 3 slots for batch devices */

enum pw_vendor_id { PW_VENDOR_CUDA, PW_VENDOR_HIP, PW_VENDOR_ACL, PW_VENDOR_COUNT };
enum pw_family { PW_FAM_PEER, PW_FAM_COPY, PW_FAM_IPC, PW_FAM_MANAGED, PW_FAM_SUPPORT };

/* Argument kinds; cuda_table.h says what each records. */
enum pw_kind {
	PW_K_PTR,
	PW_K_PTR32,
	PW_K_CTX,
	PW_K_DEV,
	PW_K_SIZE,
	PW_K_STREAM,
	PW_K_EVENT,
	PW_K_UINT,
	PW_K_IPCFLAGS,
	PW_K_ATTACHFLAGS,
	PW_K_ADVICE,
	PW_K_RATTR,
	PW_K_P2PATTR,
	PW_K_LOC,
	PW_K_IPCMEM,
	PW_K_IPCEVT,
	PW_K_OUT_INT,
	PW_K_OUT_PTR,
	PW_K_OUT_IPCMEM,
	PW_K_OUT_IPCEVT,
	PW_K_OUT_EVENT,
	PW_K_HPTR,
	PW_K_RDATA,
	PW_K_RATTRS,
	PW_K_COPY3D,
	/* implicit copies (cuda_implicit.c) */
	PW_K_COPY2D,   /* const CUDA_MEMCPY2D * */
	PW_K_COPY3DL,  /* const CUDA_MEMCPY3D * (no contexts) */
	PW_K_BATCH,    /* cuMemcpyBatchAsync's dsts: the whole batch (srcs, sizes, count follow) */
	PW_K_BATCH3D,  /* cuMemcpy3DBatchAsync's opList (the count precedes it) */
	PW_K_SKIP,     /* captured, recorded through another argument or not at all */
	PW_K_U64,      /* unsigned long long */
	PW_K_OUT_SIZE, /* size_t *, value after the call */
	/* virtual memory, pools, batch prefetch (cuda_table.h) */
	PW_K_ULL,
	PW_K_VA,
	PW_K_MEMHANDLE,
	PW_K_OUT_MEMHANDLE,
	PW_K_ALLOCPROP,
	PW_K_HTYPE,
	PW_K_SHAREABLE,
	PW_K_OUT_SHAREABLE,
	PW_K_ACCESS,
	PW_K_POOL,
	PW_K_OUT_POOL,
	PW_K_EXPORTDATA,
	PW_K_OUT_EXPORTDATA,
	PW_K_PBATCH, /* batch prefetch's dptrs: the whole batch (sizes, count, locations follow) */
	/* atomics across a link (cuda_table.h) */
	PW_K_ATOMICOPS,      /* const CUatomicOperation *, count the next argument */
	PW_K_OUT_ATOMICCAPS, /* unsigned int * written by the call, count two arguments on */
	PW_K_NONE,           /* f(void): the row's one "argument" is none at all; nothing recorded */
};

struct pw_arg_desc {
	uint8_t kind;
	const char *name;
};

/* Flags of a row, the same in every vendor's table (a vendor's own flags
 * use the bits from 0x1000 up). */
#define PW_CUR_DEV 0x1      /* the call acts on the thread's current context or device: record it */
#define PW_IMPLICIT 0x100   /* an implicit copy: recorded only when it crosses devices */
#define PW_NO_EVENT 0x200   /* never recorded: the call only feeds the vendor's allocation table */
#define PW_RANGE_NOTE 0x400 /* the call changes the vendor's allocation table (free, IPC open/close) */
#define PW_ERR_RESET 0x800  /* a last-error getter that resets the error to success (cudaGetLastError) */

struct pw_vendor;

struct pw_fn_desc {
	const char *symbol;          /* exported name: cuMemcpyPeer_ptds */
	const char *api;             /* without the variant: cuMemcpyPeer */
	const char *variant;         /* "", "_v2", "_ptds", "_ptsz", "_v2_ptsz" */
	const struct pw_vendor *lib; /* the library whose table has the row (vendor.h) */
	uint8_t family;
	uint8_t op; /* what the call does: PW_OP_* (peerwatch/trace_format.h), the event's "op" */
	uint8_t nargs;
	uint8_t wide; /* the event reads devices past the arguments' (PW_DEV_COPY3D_DST ...) */
	uint16_t flags;
	uint16_t snap; /* bit i: argument i's kind saves bytes for the event (call.h, PW_SNAP_<KIND>) */
	struct pw_arg_desc args[PW_MAX_ARGS];
};

/* COPY3D has one argument but two pointers: dev[0] holds the source's
 * device and this otherwise unused last slot the destination's. */
#define PW_DEV_COPY3D_DST (PW_MAX_ARGS - 1)

/* Batch copies: the devices of the first cross-device copy and its index,
 * in slots no batch signature uses. */
#define PW_DEV_BATCH_DST (PW_MAX_ARGS - 1)
#define PW_DEV_BATCH_SRC (PW_MAX_ARGS - 2)
#define PW_DEV_BATCH_IDX (PW_MAX_ARGS - 3)

/* No device known for a pointer or context. */
#define PW_NO_DEV INT32_MIN

/* One call in flight, on the wrapper's stack. */
struct pw_call {
	const struct pw_fn_desc *fn;
	uint64_t seq, parent;
	uint64_t t0, t1; /* ticks (clock.h) in a wrapper; nanoseconds once decoded (record.h) */
	int64_t ret;
	int32_t cur_dev;          /* device of the current context (PW_CUR_DEV rows) */
	uint64_t a[PW_MAX_ARGS];  /* argument values (by-value structs: their address) */
	int32_t dev[PW_MAX_ARGS]; /* device of a PTR/CTX argument, looked up before the call */
	const uintptr_t *stack;   /* stacks=all: the caller's stack, nstack frames */
	int nstack;
};

#endif

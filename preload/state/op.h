/*
 * A hooked call in vendor-neutral terms: what the rules read.  Each vendor
 * module translates its calls into a pw_op (cuda_ops.c), asking its runtime
 * for the facts a rule needs (where a pointer's allocation starts and ends,
 * whether it is managed, how many devices there are) through untraced real
 * functions, so that the rules themselves are pure functions of
 * (state, op) and are tested without any runtime.
 */
#ifndef PW_OP_H
#define PW_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h"
#include "peerwatch/trace_format.h"

#define PW_IPC_HANDLE_BYTES 64

/* What is known of one pointer argument. */
struct pw_mem {
	uint64_t ptr;
	int dev;       /* the device it lives on, PW_NO_DEV if unknown */
	int named_dev; /* the device the call names for it (context, device id), PW_NO_DEV if none */
	bool known;    /* the runtime knows its allocation: base and size are valid */
	bool managed;
	bool pool; /* known: from a stream-ordered pool (cuMemAllocAsync, cuMemAllocFromPoolAsync) */
	bool host; /* known: page-locked host memory the runtime knows (cuMemAllocHost, registered) */
	int p2p;   /* ACL: allocated with a *_P2P policy: 1, 0, or -1 unknown */
	uint64_t base, size;
	/* copies (pw_op_copy_map_facts): the pointer is in a live mapping an IPC
	 * open made here, opened in a context of device map_dev, of memory the
	 * exporter allocated on device home_dev (this process's ordinal of it,
	 * PW_NO_DEV if unknown).  Asked only where dev and named_dev differ. */
	bool mapped;
	int map_dev, home_dev;
	/* peer copies: the context the call names for it (cuMemcpyPeer's
	 * dstContext, srcContext; 0 where the call names a device: its
	 * primary context), and what the pointer is when the runtime does not
	 * know it: in memory this process freed lately, or host memory the
	 * driver says is no CUDA memory at all (malloc'd, stack, static) */
	uint64_t ctx;
	bool freed, plain_host;
};

/* Device attributes the rules care about (pw_op dev_attr), whatever each
 * vendor numbers them: whether the device supports managed memory. */
#define PW_DEVATTR_MANAGED 1

/* Location ids for advise/prefetch targets besides device ordinals. */
#define PW_LOC_CPU (-1)
#define PW_LOC_NONE INT32_MIN

/* Where an advice or a prefetch goes (pw_op_location): the vendors' location
 * types (CUmemLocationType, cudaMemLocationType, hipMemLocationType share
 * the values 0..4), or a plain device argument made into one. */
enum pw_loc_type {
	PW_LOCT_UNSET,             /* the call names no location */
	PW_LOCT_INVALID,           /* type 0: invalid, "no location" */
	PW_LOCT_DEVICE,            /* type 1: loc_id is a device ordinal */
	PW_LOCT_HOST,              /* type 2 (or the CPU device id -1 of the plain form) */
	PW_LOCT_HOST_NUMA,         /* type 3: loc_id is a host NUMA node */
	PW_LOCT_HOST_NUMA_CURRENT, /* type 4: the calling thread's NUMA node */
	PW_LOCT_UNDEFINED,         /* a type value the vendor does not define (loc_raw) */
};

struct pw_op {
	/* What the call does (peerwatch/trace_format.h): the row's op, or another
	 * one the translation chose (one range of a batch prefetch is a prefetch);
	 * the rules of this op look at the call (rules_table.h). */
	enum pw_op_kind kind;
	int vendor; /* PW_VENDOR_* */
	const char *api;
	int ndev;       /* devices in the process, 0 if unknown */
	int cur_dev;    /* the device the call acts from (current context/device) */
	int peer_dev;   /* peer calls: the other device */
	int can_access; /* the runtime's answer for (cur_dev, peer_dev): 1, 0, -1 unknown */
	uint64_t flags;
	bool null_stream;
	struct pw_mem dst, src; /* copies: both; other calls: dst is the pointer */
	uint64_t bytes;
	const unsigned char *handle; /* IPC: PW_IPC_HANDLE_BYTES bytes */
	uint64_t ipc_lazy_flag;      /* the vendor's lazy-enable-peer-access value (HIP: by version) */
	const char *flags_note;      /* why the flags may be wrong (a version skew), or NULL */
	int self_pid;
	int advice;       /* normalized to CUmem_advise values */
	int loc_dev;      /* advise/prefetch: device, PW_LOC_CPU, or PW_LOC_NONE */
	bool loc_valid;   /* the location type is one the vendor defines */
	int loc_type;     /* enum pw_loc_type */
	int loc_raw;      /* the location type as passed */
	int loc_id;       /* the location id (or device argument) as passed */
	bool loc_struct;  /* the call takes a location struct, not a device number */
	bool loc_numa_ok; /* PW_LOCT_HOST_NUMA: loc_id is an online NUMA node of this host */
	/* advise/prefetch/attach of memory the runtime does not know (system
	 * memory): whether the device(s) concerned report pageable memory
	 * access (CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS): 1, 0, -1 not asked */
	int pageable;
	int pageable_dev; /* the device whose answer it is, PW_NO_DEV for all of them */
	bool dst_freed;   /* dst is no allocation now, but lies in one this process freed lately */
	uint64_t freed_base, freed_size;
	bool attr_args_bad; /* range attributes: NULL data, NULL arrays, or no attribute asked */
	int copy_kind;      /* ACL copies: the aclrtMemcpyKind passed, -1 for other vendors */
	uint64_t dest_max;  /* ACL copies: destMax, the bytes the destination holds */
	bool copy_async;    /* ACL copies: aclrtMemcpyAsync */
	bool copy_2d;       /* ACL copies: aclrtMemcpy2d(Async) */
	uint64_t key_len;   /* ACL IPC export: the key buffer's length (len) */
	bool key_exported;  /* ACL IPC close: this process exported the key */
	bool close_by_key;  /* IPC close: the call names the handle, not the mapping (ACL) */
	/* ACL shareable handles (vendors/acl/acl_vmm.c fills them) */
	bool vmm_own_export;    /* import: this process exported the shareable handle itself */
	bool vmm_again;         /* import: this process holds an import of it already; export: the
	                           handle was exported already */
	uint64_t vmm_shareable; /* import: the shareable handle; export: the earlier one; release:
	                           the one its export made, 0 if none */
	int dev_attr;           /* device attribute queries: PW_DEVATTR_*, 0 for any other attribute */
	/* range attribute queries: one (attr, size) pair per attribute */
	int nattrs;
	const int *attrs;
	const size_t *data_sizes;
	size_t one_size;
	int one_attr;
	/* IPC open, peer enable and disable: the current context (0 if
	 * unknown, or where the call names devices: the device's primary
	 * context); peer_ctx the context an enable or disable names (0: the
	 * peer device's primary context); no_ctx: the driver said the calling
	 * thread has no current context */
	uint64_t ctx, peer_ctx;
	bool no_ctx;
	/* events: the event (create, destroy, IPC export, IPC open) */
	uint64_t event;
	bool event_known;                              /* IPC event export: the event's creation was seen */
	unsigned event_flags;                          /* ... with these flags */
	bool event_imported;                           /* destroy: of an event an IPC open made here */
	bool event_exported;                           /* destroy: of an event this process exported */
	unsigned char handle_buf[PW_IPC_HANDLE_BYTES]; /* op->handle when copied from the state */
	bool mapped;                                   /* free: dst is (in) a mapping an IPC open made here */
	uint64_t map_ptr;                              /* ... the mapping's pointer */
	/* from the cross-process registry (ipc ops) */
	bool reg_active; /* the registry is on: every export of the run's traced processes is in it */
	bool reg_known, reg_freed, reg_exporter_alive;
	/* the export admits only the processes a later call names (ACL's trust
	 * list), and whether one named any; export: this export asks for it */
	bool reg_trust_list, reg_trust_named, trust_list;
	int reg_exporter_pid;
	int reg_device;
	/* the exporter's device by UUID: this process's ordinal of it
	 * (reg_dev_known), and whether cur_dev can access it (1, 0, -1) */
	bool reg_dev_known;
	int reg_dev, reg_can_access;
	int holders, holder_pids[4]; /* free, destroy: other processes with it open */
	/* peer enable: devices (by UUID) that other processes of the run connect
	 * to cur_dev [0] and to peer_dev [1], beyond this process's own peers */
	int peer_others[2];
	/* virtual memory and pools (cuda_vmm_state.h fills them) */
	uint64_t mem_handle;    /* CUmemGenericAllocationHandle */
	unsigned handle_type;   /* export/import: the shareable type asked for */
	bool vmm_known;         /* export: the handle was created (or imported) in this process */
	unsigned vmm_types;     /* export: the types the allocation was created for */
	bool dst_pool, dst_vmm; /* legacy IPC export: dst is pool / VMM-mapped memory */
	uint64_t pool;          /* pool calls: the memory pool */
	bool pool_imported;     /* pool alloc: the pool came from an import in this process */
	bool vmm_dst_mapped;    /* copies: dst lies in a VMM mapping of this process */
	bool vmm_src_mapped;    /* copies: src lies in a VMM mapping of this process */
	uint64_t vmm_dst_rw;    /* bit d: device d may write the dst mapping */
	uint64_t vmm_src_read;  /* bit d: device d may read the src mapping */
	uint64_t vmm_map_size;  /* exit: the mapping's size */
	int batch_index;        /* batch prefetch: which range, or -1 */
	/* last-error getters (LAST_ERROR, checked after the call: pw_op_on_result):
	 * what the getter returned and the vendor's name of it (err_ret,
	 * err_name), whether it resets the error (the get form); the traced
	 * call of this thread that last failed (pw_tls_left, asked before the
	 * getter ran): its API (NULL: none), seq, code and call site, and
	 * whether it was this thread's traced call just before the getter
	 * (left_just_before: nothing traced in between but other getters) */
	int64_t err_ret;
	const char *err_name;
	bool err_resets;
	const char *left_api;
	uint64_t left_seq;
	int64_t left_code;
	uintptr_t left_site;
	bool left_just_before;
};

/* The kinds whose call changes nothing the rules read later: a copy moves
 * bytes, and no vendor's op_after, the registry or the state
 * (pw_check_after) does anything for it.  The wrapper skips those steps
 * for them (test_ops checks that op_after leaves the op and pw_check_after
 * the state as they were; the registry step, check.c's tell_registry, is
 * a switch over IPC and peer kinds only). */
#define PW_OPS_NO_AFTER (PW_OPBIT(PEER_COPY) | PW_OPBIT(IMPLICIT_COPY) | PW_OPBIT(LAST_ERROR))
static inline bool pw_op_has_after(const struct pw_op *op)
{
	return !((PW_OPS_NO_AFTER >> op->kind) & 1);
}

/* The kinds whose rules read what the call returned: they run after the
 * real call (pw_check_result), never before it, and what they find never
 * stops the program (the call they explain has run).  Asked of the row's
 * op, a constant in the wrapper. */
#define PW_OPS_ON_RESULT PW_OPBIT(LAST_ERROR)
static inline bool pw_op_on_result(int kind)
{
	return (PW_OPS_ON_RESULT >> kind) & 1;
}

/* op.c: the row's op with nothing known yet (no devices, no location,
 * unknown P2P policy) for call c of vendor; and what the cross-process
 * registry knows of op->handle. */
void pw_op_init(struct pw_op *op, int vendor, const struct pw_call *c);
/* A last-error getter of vendor (LAST_ERROR): whether it resets the error,
 * and the traced call of this thread that last failed (pw_tls_left). */
void pw_op_last_error(struct pw_op *op, int vendor, const struct pw_call *c);
void pw_op_registry_facts(struct pw_op *op);
/* The event calls, alike in every vendor's API: (event *, flags),
 * (event), (handle *, event) and (event *, handle): the event, its flags and
 * what this process knows of it. */
void pw_op_event(struct pw_op *op, const struct pw_call *c);
/* A free of op->dst: the processes that still have it open, if this one
 * exported it (the registry), and whether it is (in) a mapping an IPC open
 * made here. */
void pw_op_free_facts(struct pw_op *op);
/* A pair query (cuDeviceGetP2PAttribute and the like): its first two device
 * arguments, source then destination, as (cur_dev, peer_dev). */
void pw_op_devs_named(struct pw_op *op, const struct pw_call *c);
/* A peer copy: for a pointer whose device (the runtime's answer) is not the
 * one the call names for it, whether it is in a mapping an IPC open made
 * here, and that mapping's two devices (pw_mem mapped, map_dev, home_dev).
 * Takes the state's lock only then, and only while a mapping is live. */
void pw_op_copy_map_facts(struct pw_op *op);
/* An IPC open: the exporter's device as this process numbers it (by UUID),
 * else as the exporter numbered it, else PW_NO_DEV (the registry knows
 * nothing of the handle). */
static inline int pw_op_exporter_dev(const struct pw_op *op)
{
	return op->reg_dev_known ? op->reg_dev : op->reg_known ? op->reg_device : PW_NO_DEV;
}
/* The range-attribute queries, whose arguments are laid out alike in the
 * driver, runtime and HIP APIs: (data, dataSize, attribute, ptr, count) and
 * (data, dataSizes, attributes, numAttributes, ptr, count).  They set
 * op->dst.ptr and op->bytes; the vendor module adds the pointer's facts. */
void pw_op_range_attr(struct pw_op *op, const struct pw_call *c);
void pw_op_range_attrs(struct pw_op *op, const struct pw_call *c);
/* A location struct's (type, id), or a plain device argument (cpu_id, -1 for
 * every vendor, names the host), into op's loc_* fields. */
void pw_op_location(struct pw_op *op, int type, int id);
void pw_op_location_device(struct pw_op *op, int device, int cpu_id);
/* The managed-memory hints, laid out alike in the driver, runtime and HIP
 * APIs: advise (ptr, bytes, advice, device or location) and prefetch (ptr,
 * bytes, device or location[, flags], stream).  They set op->kind, bytes,
 * advice, flags and the location; the vendor adds the pointer.  A location
 * is the struct passed by value, {int type; int id} in every vendor's API
 * (CUmemLocation, cudaMemLocation, hipMemLocation: each ops file checks its
 * own); a plain device argument (the older ABIs) names the host as cpu_id. */
void pw_op_advise(struct pw_op *op, const struct pw_call *c, int cpu_id);
void pw_op_prefetch(struct pw_op *op, const struct pw_call *c, int cpu_id);
/* The location struct pw_op_advise and pw_op_prefetch read. */
struct pw_op_loc {
	int type, id;
};

/* Memory freed lately, remembered so that a later call on it can be told it
 * is freed rather than unknown: pw_op_note_freed after a successful free of
 * op->dst (base and, if known, size); pw_op_freed_facts fills dst_freed,
 * freed_base and freed_size for an op->dst the runtime does not know. */
void pw_op_note_freed(const struct pw_op *op);
void pw_op_freed_facts(struct pw_op *op);
/* Whether p lies in memory freed lately: true with that allocation's base
 * and size (0 if unknown). */
bool pw_op_freed_at(uint64_t p, uint64_t *base, uint64_t *size);

#endif

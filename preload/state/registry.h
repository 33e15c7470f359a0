/*
 * The cross-process IPC registry: exports and the processes that hold them
 * open, shared by the processes of one run through POSIX shared memory, so
 * that ipc.free-while-open and ipc.open.stale are caught at the call, in the
 * process making it.
 *
 * Every function is thread-safe and process-safe, preserves errno, and is a
 * cheap no-op while the registry is off; none crashes on a corrupt segment.
 */
#ifndef PW_REGISTRY_H
#define PW_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_IPC_HANDLE_BYTES 64
#define PW_REG_UUID 48 /* a device's UUID, "GPU-…" and a NUL (devices.h PW_UUID_LEN) */

struct pw_reg_export { /* what lookup() says about a handle */
	int exporter_pid;
	int exporter_alive; /* kill(pid,0) == 0 or EPERM */
	int freed;          /* the exporter freed the allocation */
	int trust_list;     /* the export admits only the processes a later call names (ACL's trust list) */
	int trust_named;    /* ... and such a call named some */
	uint64_t base, size;
	int device;
	char uuid[PW_REG_UUID]; /* the exporter's device, the same in every process; "" unknown */
};

/* Attach to (or create) the registry of run_id; returns 0, or -1 after one
 * pw_log warning saying why (then every other call is a cheap no-op and the
 * rules fall back to per-process state).  run_id NULL means
 * pw_run_id() (core/launch.h).  Calling it again for the same run, as a forked child
 * should, registers the calling pid and keeps the mapping it inherited.  The
 * process that creates the run's segment removes the user's stale ones
 * (pw_registry_sweep, without waiting on a lock). */
int pw_registry_open(const char *run_id);
/* Forget this process's holds and exports, unlink the segment when no other
 * live process of the run uses it, munmap.  Call at exit and before exec. */
void pw_registry_close(void);
bool pw_registry_active(void);
/* This process exported [base, base+size) on device under handle.  Same
 * handle again: refresh (a re-export after 'freed', or by another process, is
 * a fresh, unfreed entry with no holders). */
void pw_registry_export(const unsigned char *handle, uint64_t base, uint64_t size, int device);
/* The same, with the exporting device's UUID (NULL or "": unknown), so that
 * an importer whose ordinals differ knows which physical device it was. */
void pw_registry_export_dev(const unsigned char *handle, uint64_t base, uint64_t size, int device,
                            const char *uuid);
/* 1 and *out filled if the handle is known, 0 if not. */
int pw_registry_lookup(const unsigned char *handle, struct pw_reg_export *out);
/* This process opened / closed a mapping of handle (reference counted per pid).
 * A handle no process exported through the registry is not recorded. */
void pw_registry_opened(const unsigned char *handle);
void pw_registry_closed(const unsigned char *handle);
/* Before this process frees the allocation at base: how many OTHER live
 * processes still hold a handle to it open; up to max of their pids in pids.
 * base is the allocation's base, as given to pw_registry_export. */
int pw_registry_holders(uint64_t base, int *pids, int max);
/* This process freed the allocation at base: its exports are marked freed. */
void pw_registry_freed(uint64_t base);
/* The same, by the handle it was exported under (VMM exports, whose key is
 * not an address; only this process's own export of it is marked). */
void pw_registry_freed_handle(const unsigned char *handle);
/* This process's export under handle admits only the processes a later
 * call names (ACL: exported with the trust list on); a call named some
 * (aclrtIpcMemSetImportPid).  An export again of the same live allocation
 * keeps the names. */
void pw_registry_trust_list(const unsigned char *handle);
void pw_registry_trust_named(const unsigned char *handle);
/* This process enabled (on) or disabled (off) access from device a to the
 * memory of device b, both by UUID: the peer connections of the run's
 * processes, which the peer limit counts per physical device. */
void pw_registry_peer(const char *a, const char *b, bool on);
/* The devices (UUIDs, into out, at most max) that OTHER live processes of
 * the run connect to the device uuid, either way; how many were found (at
 * most max). */
int pw_registry_peers_of(const char *uuid, char (*out)[PW_REG_UUID], int max);

/*
 * Segments nobody uses any more (a run killed by a signal leaves its own):
 * see registry.c, "stale segments".  A segment is in use while a process it
 * recorded runs and maps it; anything that cannot be told counts as in use.
 */
enum pw_reap {
	PW_REAP_ABSENT,  /* no such name */
	PW_REAP_REMOVED, /* it was this user's, nobody used it: removed */
	PW_REAP_LIVE,    /* in use: left */
	PW_REAP_OTHER,   /* this user's, not a registry this build can judge: left */
	PW_REAP_FOREIGN, /* another user's file, a link, not a regular file: never opened */
};
/* The segment called name ("/peerwatch.<uid>.<hex>", one of a run's names).
 * wait: wait up to the lock timeout for a lock someone holds (else it counts
 * as in use).  *live: for PW_REAP_LIVE, the pid of a process that uses it (0
 * when it cannot be told which); *bytes: for PW_REAP_REMOVED, its size. */
enum pw_reap pw_registry_reap(const char *name, bool wait, int *live, uint64_t *bytes);
struct pw_reg_sweep {
	int removed;    /* segments removed */
	uint64_t bytes; /* their size */
	int live;       /* left: in use */
	int other;      /* left: this user's, not a registry this build can judge */
};
/* pw_registry_reap on each of the user's names in /dev/shm; removed(name,
 * bytes, arg) after each removal (name without the leading '/').  0, or -1
 * (errno set) when /dev/shm cannot be read. */
int pw_registry_sweep(bool wait, struct pw_reg_sweep *out,
                      void (*removed)(const char *name, uint64_t bytes, void *arg), void *arg);

/* The segment's name for run_id, "/peerwatch.<uid>.<16 hex digits>", a keyed
 * hash of attempt under the run id: another user who sees one name cannot
 * tell the next.  A name held by another user's file, a symbolic link or
 * anything but a regular file is passed over for the next attempt, up to
 * PW_REG_NAMES.  0, or -1 when run_id is NULL or empty or
 * buf too small.  pw_registry_shm_name is attempt 0 (for tests and tools). */
#define PW_REG_NAME_MAX 96
#define PW_REG_NAMES 4
int pw_registry_shm_name(const char *run_id, char *buf, size_t len);
int pw_registry_shm_name_n(const char *run_id, int attempt, char *buf, size_t len);

/*
 * The segment's layout: a cross-process ABI between builds of peerwatch
 * (any change bumps PW_REG_VERSION).  Only registry.c and its test use it.
 * Everything after the immutable header fields is untrusted: each count,
 * index and pid is range-checked where it is read.
 */
#define PW_REG_MAGIC 0x3130676572777070ull /* "ppwreg01" little-endian */
#define PW_REG_VERSION 2
#define PW_REG_READY 0x52454459u /* "READY": the creator finished init */
#define PW_REG_ENTRIES 2048
#define PW_REG_HOLDERS 16
#define PW_REG_ATTACH 1024
#define PW_REG_LINKS 512 /* peer connections of the run's processes */

#define PW_REG_USED 0x55534544u /* entry state; anything else is a free slot */
#define PW_REG_FREED 1u         /* entry flags */
#define PW_REG_GONE 2u          /* the exporter closed the registry (exit, exec) */
#define PW_REG_TRUST 4u         /* the export admits only the processes named (trust list) */
#define PW_REG_NAMED 8u         /* ... and some were named */

struct pw_reg_holder {
	int32_t pid; /* > 0 and opens > 0, or an empty slot */
	int32_t opens;
};

struct pw_reg_entry {
	uint32_t state;
	uint32_t flags;
	int32_t exporter_pid;
	int32_t device;
	uint64_t base, size;
	uint64_t stamp; /* when exported: the oldest freed entry is reclaimed first */
	unsigned char handle[PW_IPC_HANDLE_BYTES];
	char uuid[PW_REG_UUID]; /* the exporting device's UUID; "" unknown (untrusted: NUL not promised) */
	struct pw_reg_holder holders[PW_REG_HOLDERS];
};

struct pw_reg_link { /* pid enabled access from device a to device b's memory */
	int32_t pid; /* > 0, or a free slot */
	uint32_t pad;
	char a[PW_REG_UUID]; /* untrusted: NUL not promised */
	char b[PW_REG_UUID];
};

struct pw_reg_segment {
	/* Immutable once ready; checked by every opener. */
	uint64_t magic;
	uint32_t version;
	uint32_t segment_bytes; /* sizeof(struct pw_reg_segment) */
	uint32_t entry_bytes;
	uint32_t n_entries, n_holders, n_attach;
	uint32_t pad0;
	uint64_t pid_ns;   /* inode of the creator's /proc/self/ns/pid: pids only mean something there */
	uint32_t checksum; /* FNV-1a of the fields above */
	_Atomic uint32_t ready;
	/* Mutable, under lock. */
	pthread_mutex_t lock; /* process-shared, robust, error-checking */
	uint32_t hwm;         /* entries[0, hwm) may be in use */
	uint32_t pinned;      /* the attach table overflowed: never unlinked by close */
	uint32_t unlinked;    /* the name was removed: openers must retry */
	int32_t creator_pid;
	uint64_t stamp;
	int32_t attached[PW_REG_ATTACH]; /* pids that opened it; 0 free */
	struct pw_reg_entry entries[PW_REG_ENTRIES];
	struct pw_reg_link links[PW_REG_LINKS];
};

#endif

/*
 * The "call" event (docs/trace-format.md).  On the calling thread, after
 * the real call: the record of the call (record.h), with the snapshots each
 * argument's kind needs (the vendor's snap_arg).  On the trace writer's
 * thread: the JSON line, the members every vendor writes the same way here,
 * the arguments by the vendor's put_arg from the record alone.
 *
 * The helpers below are what the vendors' snapshot and argument writers
 * share.  An argument writer reads only the record: the argument words,
 * the devices and the snapshots (pw_rec_snap); the memory an argument
 * pointed to may be gone or changed by the time the writer runs.
 */
#ifndef PW_EVENT_H
#define PW_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h"
#include "record/record.h"

struct pw_jw;

/* A flag bit and its vendor name; lists end with {0, NULL}. */
struct pw_flag_name {
	unsigned bit;
	const char *name;
};

/* Lists of an argument's elements (range attributes, access descriptors,
 * batch entries) are recorded up to this many. */
#define PW_EVENT_LISTED 16

/* ---- the calling thread: snapshots ---- */

/* len bytes at address p, if p is not NULL. */
void pw_event_snap_deref(struct pw_snapw *s, int i, uint64_t p, size_t len);
/* The first PW_EVENT_LISTED of n ints (or unsigned ints) at p. */
void pw_event_snap_ints(struct pw_snapw *s, int i, uint64_t p, uint64_t n);
/* A pointer written through out-parameter p, and its device (dev_of). */
void pw_event_snap_out_ptr(struct pw_snapw *s, int i, uint64_t p, int (*dev_of)(uint64_t ptr));
/* A range-attribute query's data: its int after a successful call whose
 * data size (the next argument) is one int. */
void pw_event_snap_range_data(struct pw_snapw *s, const struct pw_call *c, int i, bool ok);
/* What every vendor saves alike for argument i of kinds they share (IPC
 * handles in and out, returned pointers and events, range attributes;
 * returned ints the record writer saves itself, record_write.h), given
 * the vendor's handle and event sizes, whether the call succeeded and how
 * it finds a pointer's device; false for any other kind (the vendor's own
 * snap_arg handles it). */
struct pw_snap_sizes {
	size_t ipc_handle, event;
	int (*dev_of)(uint64_t ptr);
};
bool pw_event_snap_common(struct pw_snapw *s, const struct pw_call *c, int i, bool ok,
                          const struct pw_snap_sizes *z);

/* ---- the writer: JSON ---- */

/* The names of v's bits joined with '|', what no name covers as hex
 * ("A|B|0x8"), or "0x0" for 0, into buf (cap bytes, cut if longer). */
void pw_event_flag_names(char *buf, size_t cap, uint64_t v, const struct pw_flag_name *names);
/* "<key>": v, and "<key>_names": its names (pw_event_flag_names). */
void pw_event_put_flags(struct pw_jw *w, const char *key, uint64_t v, const struct pw_flag_name *names);
/* "<key>": v, and "<key>_name": name, or null. */
void pw_event_put_enum(struct pw_jw *w, const char *key, int64_t v, const char *name);
/* "<key><suffix>": dev, or null for PW_NO_DEV. */
void pw_event_put_dev(struct pw_jw *w, const char *key, const char *suffix, int32_t dev);
/* An argument saved as bytes (IPC handles, export data): "<key>": their hex. */
void pw_event_put_bytes(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i, size_t len);
/* A range-attribute query's data pointer "<key>": "0x..", and, when its
 * int was saved (pw_event_snap_range_data), "value": that int. */
void pw_event_put_range_data(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i);
/* "<key>": the saved attributes of argument i (enums of int size in every
 * vendor's ABI), each by the vendor's name, or as a number where it has none. */
void pw_event_put_range_attrs(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i,
                              const char *(*name)(int64_t));
/* The out-parameter pointer of argument i and its device ("<key>", "<key>_dev"). */
void pw_event_put_out_ptr(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i);
/* The 8-byte word an out-parameter got (an event, a handle), saved as its
 * bytes: "<key>": its hex; nothing when it was not saved. */
void pw_event_put_out_word(struct pw_jw *w, const char *key, const struct pw_rcall *r, int i);
/* The trace's name of a location type ("device", "host", ...): the values
 * 0..4 every vendor's location struct shares (op.h), NULL for others. */
const char *pw_event_loc_type_name(int type);
/* A location struct's (type, id): "<key>": {"type": name, or the number
 * where it has none, "id": id}. */
void pw_event_put_loc(struct pw_jw *w, const char *key, int type, int id);
/* The writer's half of pw_event_snap_common: what every vendor writes
 * alike for argument i of the kinds they share (pointers and contexts with
 * their devices, streams, events, devices, sizes, flags and enums by the
 * vendor's names, IPC handles, out-parameters, range attributes), given the
 * vendor's handle size and names; false for any other kind (the vendor's own
 * put_arg writes it).  A vendor that writes one of these kinds otherwise
 * does so before asking. */
struct pw_arg_names {
	size_t ipc_handle;                                   /* bytes of an IPC handle */
	const struct pw_flag_name *ipc_flags, *attach_flags; /* NULL: not a kind it has */
	const char *(*advice)(
	    int64_t v); /* each enum's names in the vendor's API (NULL: a value it has none for) */
	const char *(*range_attr)(int64_t v);
	const char *(*p2p_attr)(int64_t v);
};
bool pw_event_put_common(struct pw_jw *w, const struct pw_rcall *r, int i, const struct pw_arg_names *n);
/* The whole "call" event of a decoded record, as one JSON object (no newline). */
void pw_event_write(struct pw_jw *w, const struct pw_rcall *r);

#endif

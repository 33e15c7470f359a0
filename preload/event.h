/*
 * The "call" event (docs/trace-format.md): the members every vendor writes
 * the same way, the stack, and the post-call step that hands the event to
 * the writer.  The row's vendor (its descriptor, vendor.h) supplies the
 * name of the result and writes each argument; the helpers below are what
 * its argument writer shares with the others.
 */
#ifndef PW_EVENT_H
#define PW_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hooks.h"

struct pw_jw;

/* A flag bit and its vendor name; lists end with {0, NULL}. */
struct pw_flag_name {
	unsigned bit;
	const char *name;
};

/* The names of v's bits joined with '|', what no name covers as hex
 * ("A|B|0x8"), or "0x0" for 0, into buf (cap bytes, cut if longer). */
void pw_event_flag_names(char *buf, size_t cap, uint64_t v, const struct pw_flag_name *names);
/* "<key>": v, and "<key>_names": its names (pw_event_flag_names). */
void pw_event_put_flags(struct pw_jw *w, const char *key, uint64_t v, const struct pw_flag_name *names);
/* "<key>": v, and "<key>_name": name, or null. */
void pw_event_put_enum(struct pw_jw *w, const char *key, int64_t v, const char *name);
/* "<key><suffix>": dev, or null for PW_NO_DEV. */
void pw_event_put_dev(struct pw_jw *w, const char *key, const char *suffix, int32_t dev);
/* A range-attribute query's data pointer "<key>": "0x..", and, after a
 * successful call whose data is one int, "value": that int. */
void pw_event_put_range_data(struct pw_jw *w, const char *key, uint64_t data, uint64_t size, bool ok);
/* "<key>": the first 16 of n attributes (enums of int size in every vendor's
 * ABI), each by the vendor's name, or as a number where it has none. */
void pw_event_put_range_attrs(struct pw_jw *w, const char *key, const int *attrs, uint64_t n,
                              const char *(*name)(int64_t));
/* The whole "call" event of c, as one JSON object (no newline). */
void pw_event_call(struct pw_jw *w, const struct pw_call *c);
/* After the real call: the caller's stack (stacks=all), then the event. */
void pw_event_post(struct pw_call *c);

#endif

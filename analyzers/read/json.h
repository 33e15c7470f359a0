/*
 * The JSON of one trace line: parsed in the reading thread's arena, with
 * the integers beyond 2^63-1 that the library writes (sizes as size_t)
 * kept aside, where jansson cannot hold them.
 */
#ifndef PW_AN_JSON_H
#define PW_AN_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Once, before any reading: jansson's hash seed and the per-thread parse
 * arena.  Without it the reader works, with plain malloc. */
void pw_reader_init(void);
/* A reading thread that ends frees its arena. */
void pw_reader_thread_done(void);

/* Parses one line; NULL with jansson's message in *je.  The objects live in
 * the thread's arena until its next line. */
json_t *pw_json_load(const char *line, size_t len, json_error_t *je);

/* A line read without pw_json_load: the last one's numbers beyond 2^63-1
 * are forgotten, as pw_json_load forgets them. */
void pw_json_forget(void);

/* An unsigned member of a validated event: a non-negative integer, or one
 * beyond 2^63-1 (which jansson cannot hold; the parse keeps it aside). */
bool pw_json_u64(const json_t *v, uint64_t *out);
/* Is v such a number beyond 2^63-1? */
bool pw_json_is_big(const json_t *v);
/* How a message names the type of v: "an integer", "a string", ... */
const char *pw_json_type(const json_t *v);

#endif

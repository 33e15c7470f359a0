/* The first and last lines of a trace file (docs/trace-format.md). */
#ifndef PW_HEADER_H
#define PW_HEADER_H

#include <stdint.h>

/* Both return a malloc'd single-line JSON object, or NULL. */
char *pw_header_json(void);
char *pw_footer_json(uint64_t events, uint64_t dropped, const char *why);

/* pthread_atfork handlers: no fork while the writer lists the modules. */
void pw_header_fork_prepare(void);
void pw_header_fork_parent(void);
void pw_header_fork_child(void);

#endif

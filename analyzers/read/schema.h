/*
 * The members of a trace line checked against the trace format's table
 * (PW_TRACE_FIELDS, include/peerwatch/trace_format.h): the table the
 * library writes by and the docs are generated from.
 */
#ifndef PW_AN_SCHEMA_H
#define PW_AN_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Every member of obj, a line of the given scope (PW_SC_*), and of the
 * objects inside it: 0, or -1 with a message that names the member. */
int pw_check_members(json_t *obj, int scope, char *err, size_t errlen);

/* The same check over an object of a flat scan (scan.h): true when every
 * member fits, false where check_members would give a message. */
struct pw_flat;
bool pw_flat_members_fit(const struct pw_flat *f, size_t obj, int scope);
/* As pw_flat_members_fit, and where it holds, *checks (struct
 * pw_fit_check, scan.h) are the members whose values another line of the
 * same shape must fit: for such a line, pw_flat_checks_fit says the same. */
struct vec;
struct pw_fit_check;
bool pw_flat_members_fit_memo(const struct pw_flat *f, size_t obj, int scope, struct vec *checks);
bool pw_flat_checks_fit(const struct pw_flat *f, const struct pw_fit_check *c, size_t n);

#endif

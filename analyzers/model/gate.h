/*
 * The gate's view of the input: the problems of each trace that a verdict
 * must count (struct problem, findings.h).  check and report give the same
 * verdict from them.
 */
#ifndef PW_AN_GATE_H
#define PW_AN_GATE_H

#include "model/findings.h"

/* Appends to ps (struct problem; vec_init'ed by the caller) the problems of
 * every trace of in, in file_order. */
void gate_problems(const struct pw_input *in, struct vec *ps);
/* Frees the messages and the vector. */
void gate_problems_free(struct vec *ps);

#endif

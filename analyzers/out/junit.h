/*
 * Findings as a JUnit XML document (ci.h writes it for --format junit).
 */
#ifndef PW_AN_JUNIT_H
#define PW_AN_JUNIT_H

#include "model/symbols.h"
#include "out/report.h"

/* Writes r to standard output; source paths under root are relative to it. */
void junit_write(const struct ci_report *r, const char *root, struct symbolizer *sym);

#endif

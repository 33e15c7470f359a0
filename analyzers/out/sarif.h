/*
 * Findings as a SARIF 2.1.0 log (ci.h writes it for --format sarif).
 */
#ifndef PW_AN_SARIF_H
#define PW_AN_SARIF_H

#include "model/symbols.h"
#include "out/report.h"

/* Writes r to standard output; source paths under root are relative to it. */
void sarif_write(const struct ci_report *r, const char *root, struct symbolizer *sym);

#endif

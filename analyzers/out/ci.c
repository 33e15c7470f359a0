/*
 * Findings in the formats CI systems read (ci.h): SARIF (sarif.c) or JUnit
 * (junit.c), with source paths under the source root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/util.h"
#include "model/symbols.h"
#include "out/ci.h"
#include "out/junit.h"
#include "out/sarif.h"

char *ci_source_root(const struct pw_opts *o)
{
	char *root = o->source_root ? realpath(o->source_root, NULL) : getcwd(NULL, 0);
	if (!root) {
		char *p = sanitize(o->source_root ? o->source_root : ".");
		fprintf(stderr, "peerwatch-analyze: --source-root %s: %s\n", p, strerror(errno));
		free(p);
	}
	return root;
}

int ci_write(const struct pw_opts *o, const struct ci_report *r)
{
	char *root = ci_source_root(o);
	if (!root)
		return EXIT_BAD;
	struct symbolizer *sym = sym_new();
	if (o->format == FMT_SARIF)
		sarif_write(r, root, sym);
	else
		junit_write(r, root, sym);
	sym_free(sym);
	free(root);
	return 0;
}

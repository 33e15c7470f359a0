/*
 * The op of a call in a trace written before call events had "op", from its
 * API name: the hook tables (preload/vendors/<v>/<v>_table.h) are the rows the library
 * takes each call's op from, so an old trace's calls get the ops a new one
 * would have.  The reader fills the event's op with it once; no report
 * matches API names.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vendors/acl/acl_table.h"
#include "vendors/cuda/cuda_table.h"
#include "vendors/cudart/cudart_table.h"
#include "vendors/hip/hip_table.h"
#include "peerwatch/trace_format.h"
#include "read/apiop.h"

#define APIOP_ROW(api, sfx, fam, op, flg, sig) {#api, PW_OP_##op},
static struct apiop {
	const char *api;
	int op;
} rows[] = {PW_CUDA_FUNCS(APIOP_ROW) PW_CUDART_FUNCS(APIOP_ROW) PW_HIP_FUNCS(APIOP_ROW)
                PW_ACL_FUNCS(APIOP_ROW)};
#undef APIOP_ROW
#define NROWS (sizeof rows / sizeof *rows)

static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;

static int by_api(const void *a, const void *b)
{
	return strcmp(((const struct apiop *)a)->api, ((const struct apiop *)b)->api);
}

static void sort_rows(void)
{
	qsort(rows, NROWS, sizeof *rows, by_api);
}

const char *pw_op_of_api(const char *api)
{
	pthread_once(&sorted_once, sort_rows);
	struct apiop key = {api, 0};
	const struct apiop *r = bsearch(&key, rows, NROWS, sizeof *rows, by_api);
	return r ? pw_op_name(r->op) : NULL;
}

/*
 * Not compiled: scripts/gen-hooks-doc.sh runs only the C preprocessor over
 * this file.  Each vendor's table starts with
 *
 *   PWDOC_VENDOR "title" "table file" "note file"
 *
 * (the note, scripts/hooks-doc/<name>.md, is prose printed above the table)
 * and every row of it (preload/<name>_table.h) becomes one record
 *
 *   PWDOC_ROW "api" "suffix" "FAMILY" "OP" "flags" "name" "KIND" "C type" ...
 *
 * (one name/kind/type triple per argument), which the script turns into a
 * markdown table row; before them, PWDOC_OPNAME "OP" "name" "WHEN" "doc"
 * gives each op's trace name and meaning (peerwatch/trace_format.h).  Nothing here may contain a double
 * quote.
 */
#include "core/pp.h"
#include "vendors/cuda/cuda_table.h"
#include "vendors/cudart/cudart_table.h"
#include "vendors/hip/hip_table.h"
#include "vendors/acl/acl_table.h"
#include "peerwatch/trace_format.h"

#define PWDOC_ARG(i, t) PWDOC_ARG_ t
#define PWDOC_ARG_(k, ty, n) #n #k #ty
#define PWDOC_SEP()
#define PWDOC_ROW(api, sfx, fam, op, flg, sig) \
	PWDOC_ROW #api #sfx #fam #op #flg PW_MAP(PWDOC_ARG, PWDOC_SEP, PW_EXPAND sig)

#define PWDOC_OP(name, str, when, doc) PWDOC_OPNAME #name str #when doc

PWDOC_BEGIN
PW_OPS(PWDOC_OP)
PWDOC_VENDOR "CUDA driver API (libcuda.so.1)"
             "preload/vendors/cuda/cuda_table.h"
             "scripts/hooks-doc/cuda.md" PW_CUDA_FUNCS(PWDOC_ROW) PWDOC_VENDOR
    "CUDA runtime API (libcudart.so)"
    "preload/vendors/cudart/cudart_table.h"
    "scripts/hooks-doc/cudart.md" PW_CUDART_FUNCS(PWDOC_ROW) PWDOC_VENDOR
    "HIP runtime (libamdhip64.so.5, .6, .7)"
    "preload/vendors/hip/hip_table.h"
    "scripts/hooks-doc/hip.md" PW_HIP_FUNCS(PWDOC_ROW) PWDOC_VENDOR
    "Ascend ACL runtime (libascendcl.so)"
    "preload/vendors/acl/acl_table.h"
    "scripts/hooks-doc/acl.md" PW_ACL_FUNCS(PWDOC_ROW) PWDOC_END

/*
 * Not compiled: scripts/gen-hooks-doc.sh runs only the C preprocessor over
 * this file.  Every row of preload/cuda_table.h becomes one record
 *
 *   PWDOC_ROW "api" "suffix" "FAMILY" "flags" "name" "KIND" "C type" ...
 *
 * (one name/kind/type triple per argument), which the script turns into a
 * markdown table row.  Nothing here may contain a double quote.
 */
#include "pp.h"
#include "cuda_table.h"

#define PWDOC_ARG(i, t) PWDOC_ARG_ t
#define PWDOC_ARG_(k, ty, n) #n #k #ty
#define PWDOC_SEP()
#define PWDOC_ROW(api, sfx, fam, flg, sig) \
	PWDOC_ROW #api #sfx #fam #flg PW_MAP(PWDOC_ARG, PWDOC_SEP, PW_EXPAND sig)

PWDOC_BEGIN PW_CUDA_FUNCS(PWDOC_ROW) PWDOC_END

/* The CUDA runtime rows (preload/cudart_table.h), between their own markers. */
#include "cudart_table.h"
PWDOC_RT_BEGIN PW_CUDART_FUNCS(PWDOC_ROW) PWDOC_RT_END
/* The ACL rows (preload/acl_table.h), in a block of their own. */
#include "acl_table.h"
PWDOC_ACL_BEGIN PW_ACL_FUNCS(PWDOC_ROW) PWDOC_ACL_END

/*
 * What a job launcher tells a process: its rank, and the names of its
 * output.  torchrun, mpirun (Open MPI, MPICH, MVAPICH), PMIx launchers and
 * Slurm's srun each set a variable with the process's rank; the trace
 * directory (the out option) may name it, and the ranks option may trace
 * only some ranks.
 *
 * Nothing here runs on the hot path: the constructor and a forked child
 * call it once.
 */
#ifndef PW_LAUNCH_H
#define PW_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

/* The rank variables, in the order they are asked: the first one set (and
 * not empty) gives the rank. */
extern const char *const pw_rank_vars[];
extern const size_t pw_rank_nvars;

/* This process's rank as its launcher wrote it, or NULL when none of
 * pw_rank_vars is set. */
const char *pw_rank_env(void);

/*
 * An output name's template: a path in which
 *   %p       is the process id,
 *   %h       the host name,
 *   %r       the rank (pw_rank_env), or "none" when no rank variable is set,
 *   %q{VAR}  the value of the environment variable VAR, or "none" when it
 *            is unset or empty,
 *   %%       a '%'.
 * An expansion must be a plain file name (letters, digits, '.', '_', '-',
 * '+'; not "." or ".."): a value with a '/', a control character or
 * anything else that could take the path somewhere else is refused.
 */

/* Is the template well formed (every '%' one of the above)?  0, or -1 with
 * what is wrong in err. */
int pw_outname_check(const char *tmpl, char *err, size_t errlen);
/* Expands it for this process into out[cap]: 0, or -1 with what is wrong in
 * err (a malformed template, a value refused, a result too long). */
int pw_outname_expand(const char *tmpl, char *out, size_t cap, char *err, size_t errlen);

/*
 * A list of ranks, "0,2-3,8": numbers and ranges a-b (a <= b), separated
 * by commas, each from 0 to 2^31-1.
 */
/* 0 when the list is well formed, else -1 with what is wrong in err. */
int pw_ranks_check(const char *list, char *err, size_t errlen);
/* Is rank (the text a rank variable holds) in the list?  A rank that is
 * not a number, or none (NULL), is in no list. */
bool pw_ranks_has(const char *list, const char *rank);

#endif

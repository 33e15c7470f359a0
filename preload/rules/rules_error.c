/* Rules on a runtime's last error, kept per host thread (the CUDA runtime's
 * cudaGetLastError, HIP's hipGetLastError).  They read only the op: the
 * wrapper remembers which traced call of the thread last failed
 * (core/pw.h's pw_tls_left), state/op.c copies it in before the getter
 * runs, and the rules run after it, on what it returned
 * (pw_check_result). */
#include <inttypes.h>
#include <stdio.h>

#include "rules/rules.h"

/*
 * CUDA Runtime API, cudaGetLastError: "Returns the last error that has been
 * produced by any of the runtime calls in the same instance of the CUDA
 * Runtime library in the host thread and resets it to cudaSuccess."  HIP,
 * hipGetLastError: "Returns the last error that has been returned by any of
 * the runtime calls in the same host thread, and then resets the saved
 * error to hipSuccess."  A getter that returns the code a traced call of
 * the thread left names that call, unless the getter came right after it
 * (nothing traced in between but other getters): then it is the last
 * call's error, as the program expects.
 * Only failures are remembered, so a remembered code is never a success.
 */
PW_RULE_FN(ERROR_STICKY)
{
	(void)s;
	/* right after the call that returned it, the program has it from that
	 * call: a check or a clear of its own error, nothing to explain */
	if (!op->left_api || op->err_ret != op->left_code || op->left_just_before)
		return false;
	char code[96];
	if (op->err_name)
		snprintf(code, sizeof code, "%" PRId64 " (%s)", op->err_ret, op->err_name);
	else
		snprintf(code, sizeof code, "%" PRId64, op->err_ret);
	snprintf(msg, len, "%s returned %s, left by %s (call %" PRIu64 ") on this thread%s", op->api, code,
	         op->left_api, op->left_seq,
	         op->err_resets ? "" : "; it stays set until the get form resets it");
	return true;
}

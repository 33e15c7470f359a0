/* Running the rules around a hooked call, and what follows a finding. */
#ifndef PW_CHECK_H
#define PW_CHECK_H

#include <stdbool.h>

#include "core/hooks.h"
#include "state/op.h"

/* True when rules run at all (warn and enforce modes). */
bool pw_checking(void);
/* Before the real call.  In enforce mode a finding at or above halt_on ends
 * the process here, so the call never happens. */
void pw_check_before(const struct pw_call *c, const struct pw_op *op);
/* After it: the state model and the registry learn what the call did. */
void pw_check_after(const struct pw_op *op, int64_t ret, bool already_enabled);
/* After a call whose rules read its result (state/op.h's pw_op_on_result:
 * the last-error getters): op learns ret, and error_name's word for it
 * where a rule may quote it; a finding then never stops the program. */
void pw_check_result(const struct pw_call *c, struct pw_op *op, int64_t ret, const char *(*error_name)(int));
/* At exit: what is still open. */
void pw_check_exit(void);

#endif

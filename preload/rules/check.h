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
/* At exit: what is still open. */
void pw_check_exit(void);

#endif

/* The asymmetric fence (fence.h). */
#include "record/fence.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

bool pw_fence_asym;

static long membarrier(int cmd)
{
#ifdef SYS_membarrier
	return syscall(SYS_membarrier, cmd, 0, 0);
#else
	(void)cmd;
	return -1;
#endif
}

void pw_fence_init(void)
{
	long cmds = membarrier(MEMBARRIER_CMD_QUERY);
	pw_fence_asym = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	                membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void pw_fence_heavy(void)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (pw_fence_asym && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
		pw_fence_asym = false; /* cannot happen once registered; the light side is full from here */
}

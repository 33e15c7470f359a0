/*
 * A context stack as ROCm's runtime has one, for a test of peerwatch only:
 * LD_PRELOADed after libpeerwatch.so, it adds hipCtxPushCurrent and
 * hipCtxPopCurrent to the simulated runtime (which has neither).  Their
 * behaviour is clr's hipamd/src/hip_context.cpp: push makes the context's
 * device the thread's current device and pushes it; pop takes the top off
 * the stack and does NOT make any device current again, so the thread's
 * current device stays the popped context's.  The device is set through the
 * simulated runtime's hipCtxSetCurrent.
 */
#include <dlfcn.h>

#include "peerwatch/abi/hip.h"

#define DEPTH 16

static __thread hipCtx_t stack[DEPTH];
static __thread int depth;

hipError_t hipCtxPushCurrent(hipCtx_t ctx);
hipError_t hipCtxPopCurrent(hipCtx_t *ctx);

hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
	hipError_t (*set)(hipCtx_t) = (hipError_t(*)(hipCtx_t))dlsym(RTLD_NEXT, "hipCtxSetCurrent");
	if (!ctx)
		return hipErrorInvalidContext;
	if (!set || depth == DEPTH)
		return hipErrorUnknown;
	hipError_t r = set(ctx);
	if (r == hipSuccess)
		stack[depth++] = ctx;
	return r;
}

hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
	if (!depth)
		return hipErrorInvalidContext;
	depth--;
	if (ctx)
		*ctx = stack[depth];
	return hipSuccess;
}

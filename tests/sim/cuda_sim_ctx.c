/*
 * Simulated CUDA driver: contexts.  Each device has one primary context (a
 * struct this file owns; CUcontext points at it), and cuCtxCreate makes up
 * to PWSIM_MADE_CTX more, each on one device, until cuCtxDestroy (a second
 * context of a device: IPC mappings are per context).  Each thread has a
 * context stack; its top is the thread's current context (cuda.h
 * :6398-6423).
 */
#include "sim_internal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Deeper nesting than any test needs; a push beyond it is refused. */
#define PWSIM_CTX_STACK 64

static struct CUctx_st g_ctx[PWSIM_MAX_DEVICES];
static pthread_once_t g_ctx_once = PTHREAD_ONCE_INIT;

/* Contexts cuCtxCreate made (a slot is free while its magic is 0). */
static struct CUctx_st g_made[PWSIM_MADE_CTX];

static __thread struct CUctx_st *t_stack[PWSIM_CTX_STACK];
static __thread int t_depth;

static void ctx_init(void)
{
	for (int i = 0; i < PWSIM_MAX_DEVICES; i++) {
		g_ctx[i].magic = PWSIM_CTX_MAGIC;
		g_ctx[i].device = i;
	}
}

struct CUctx_st *pwsim_primary(CUdevice dev)
{
	pthread_once(&g_ctx_once, ctx_init);
	return pwsim_valid_device(dev) ? &g_ctx[dev] : NULL;
}

struct CUctx_st *pwsim_ctx_check(CUcontext ctx)
{
	uintptr_t p = (uintptr_t)ctx, base = (uintptr_t)g_ctx, made = (uintptr_t)g_made;

	if (p >= made && p < made + sizeof g_made && (p - made) % sizeof(g_made[0]) == 0) {
		struct CUctx_st *c = &g_made[(p - made) / sizeof(g_made[0])];
		return c->magic == PWSIM_CTX_MAGIC ? c : NULL;
	}
	if (p < base || (p - base) % sizeof(g_ctx[0]))
		return NULL;
	return pwsim_primary((CUdevice)((p - base) / sizeof(g_ctx[0])));
}

struct CUctx_st *pwsim_current(void)
{
	return t_depth ? t_stack[t_depth - 1] : NULL;
}

CUresult pwsim_ctx_refused(CUcontext ctx)
{
	uintptr_t p = (uintptr_t)ctx, made = (uintptr_t)g_made;
	int destroyed = 0;

	if (p >= made && p < made + sizeof g_made && (p - made) % sizeof(g_made[0]) == 0) {
		pwsim_lock();
		destroyed = g_made[(p - made) / sizeof(g_made[0])].destroyed;
		pwsim_unlock();
	}
	return destroyed ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_ERROR_INVALID_CONTEXT;
}

struct CUctx_st *pwsim_ctx_at(int i)
{
	if (i >= 0 && i < PWSIM_MAX_DEVICES)
		return pwsim_primary(i);
	if (i < PWSIM_MAX_DEVICES || i >= PWSIM_CTX_SLOTS)
		return NULL;
	return g_made[i - PWSIM_MAX_DEVICES].magic == PWSIM_CTX_MAGIC ? &g_made[i - PWSIM_MAX_DEVICES] : NULL;
}

int pwsim_ctx_index(const struct CUctx_st *c)
{
	pthread_once(&g_ctx_once, ctx_init);
	if (c >= g_made && c < g_made + PWSIM_MADE_CTX)
		return PWSIM_MAX_DEVICES + (int)(c - g_made);
	return (int)(c - g_ctx);
}

/* ---- primary contexts ---- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = pwsim_ready();
	struct CUctx_st *c;

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	c = pwsim_primary(dev);
	if (!c)
		return CUDA_ERROR_INVALID_DEVICE;
	pwsim_lock();
	c->retained++;
	pwsim_unlock();
	*pctx = c;
	return CUDA_SUCCESS;
}

/* The last release resets the context (cuda.h :5903): the peer access it had
 * enabled, and that others (primary or made contexts) had enabled to it, is
 * gone.  Its allocations are kept: the simulator does not model the reset
 * freeing them. */
static void ctx_reset(struct CUctx_st *c)
{
	pwsim_peer_forget(c);
}

/* Device dev's primary context into *pc, for a release or a reset. */
static CUresult primary_of(CUdevice dev, struct CUctx_st **pc)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	*pc = pwsim_primary(dev);
	return *pc ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	struct CUctx_st *c = NULL;
	CUresult rc = primary_of(dev, &c);

	if (rc)
		return rc;
	pwsim_lock();
	/* cuda.h :5908: releasing a context never retained -> INVALID_CONTEXT */
	if (c->retained == 0) {
		rc = CUDA_ERROR_INVALID_CONTEXT;
	} else if (--c->retained == 0) {
		ctx_reset(c);
	}
	pwsim_unlock();
	return rc;
}

/* cuda.h :6060: the primary context's flags, and whether it is active
 * (retained and not released to 0: the last release reset it). */
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	struct CUctx_st *c = NULL;
	CUresult rc = primary_of(dev, &c);

	if (rc)
		return rc;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	*flags = 0;
	*active = c->retained > 0;
	pwsim_unlock();
	return CUDA_SUCCESS;
}

/* cuda.h :6100 ("Destroy all allocations and reset all state on the
 * primary context"; "Resetting the primary context does not release it"):
 * as the last release does here, its peer access is reset, its allocations
 * kept (not modelled), and whoever retained it still holds it. */
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	struct CUctx_st *c = NULL;
	CUresult rc = primary_of(dev, &c);

	if (rc)
		return rc;
	pwsim_lock();
	ctx_reset(c);
	pwsim_unlock();
	return CUDA_SUCCESS;
}

/* The pre-11.0 name has the same ABI (cuda.h :25683). */
CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
	return cuDevicePrimaryCtxReset_v2(dev);
}

/* The pre-11.0 name has the same ABI (cuda.h :25682). */
CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
	return cuDevicePrimaryCtxRelease_v2(dev);
}

/* ---- contexts of one's own (cuda.h :6275, legacy :25632-25633) ---- */

/* A new context on dev, pushed onto the calling thread's stack (cuda.h: "The
 * context is created with a usage count of 1 and the caller of cuCtxCreate()
 * must call cuCtxDestroy() ... the created CUcontext is made current"). */
static CUresult ctx_create(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = pwsim_ready();
	struct CUctx_st *c = NULL;

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (t_depth == PWSIM_CTX_STACK)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pwsim_lock();
	for (int i = 0; i < PWSIM_MADE_CTX && !c; i++)
		if (g_made[i].magic != PWSIM_CTX_MAGIC)
			c = &g_made[i];
	if (c) {
		memset(c, 0, sizeof *c);
		c->magic = PWSIM_CTX_MAGIC;
		c->device = dev;
	}
	pwsim_unlock();
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	t_stack[t_depth++] = c;
	*pctx = c;
	return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	(void)flags;
	return ctx_create(pctx, dev);
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) /* legacy name, same ABI */
{
	return cuCtxCreate_v2(pctx, flags, dev);
}

#if PWSIM_MAX_VERSION >= 13000
/* CUDA 13's form: the creation parameters (NULL: none) before the flags. */
CUresult cuCtxCreate_v4(CUcontext *pctx, void *params, unsigned int flags, CUdevice dev)
{
	(void)params;
	(void)flags;
	return ctx_create(pctx, dev);
}
#endif

/* Only a context cuCtxCreate made; it leaves the calling thread's stack. */
CUresult cuCtxDestroy_v2(CUcontext ctx)
{
	CUresult rc = pwsim_ready();
	struct CUctx_st *c;

	if (rc)
		return rc;
	c = pwsim_ctx_check(ctx);
	if (!c || c < g_made || c >= g_made + PWSIM_MADE_CTX)
		return CUDA_ERROR_INVALID_CONTEXT;
	for (int i = 0; i < t_depth; i++)
		if (t_stack[i] == c) {
			memmove(&t_stack[i], &t_stack[i + 1],
			        (size_t)(t_depth - i - 1) * sizeof(struct CUctx_st *));
			t_depth--;
			i--;
		}
	/* its peer access, and others' to it, end with it (cuda.h :6280: "Destroys
	 * and cleans up all resources associated with the context") */
	pwsim_lock();
	pwsim_peer_forget(c);
	c->magic = 0;
	c->destroyed = 1;
	pwsim_unlock();
	return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx) /* legacy name, same ABI */
{
	return cuCtxDestroy_v2(ctx);
}

/* ---- the thread's context stack ---- */

CUresult cuCtxSetCurrent(CUcontext ctx)
{
	CUresult rc = pwsim_ready();
	struct CUctx_st *c;

	if (rc)
		return rc;
	/* cuda.h :6404: NULL pops the top of the stack (a no-op when empty). */
	if (!ctx) {
		if (t_depth)
			t_depth--;
		return CUDA_SUCCESS;
	}
	c = pwsim_ctx_check(ctx);
	if (!c)
		return CUDA_ERROR_INVALID_CONTEXT;
	/* cuda.h :6402: replaces the top of the stack, or pushes onto an empty one. */
	t_stack[t_depth ? t_depth - 1 : t_depth++] = c;
	return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = pwsim_current();
	return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	CUresult rc = pwsim_ready();
	struct CUctx_st *c;

	if (rc)
		return rc;
	c = pwsim_ctx_check(ctx);
	if (!c)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (t_depth == PWSIM_CTX_STACK)
		return CUDA_ERROR_OUT_OF_MEMORY;
	t_stack[t_depth++] = c;
	return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) /* legacy name, same ABI (cuda.h :25678) */
{
	return cuCtxPushCurrent_v2(ctx);
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	if (!t_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	t_depth--;
	if (pctx)
		*pctx = t_stack[t_depth];
	return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *pctx) /* legacy name, same ABI (cuda.h :25677) */
{
	return cuCtxPopCurrent_v2(pctx);
}

/* The context a _v2 query names: ctx itself, or the current one for NULL
 * (cuda.h :6481, :6634). */
static CUresult ctx_or_current(CUcontext ctx, struct CUctx_st **out)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	*out = ctx ? pwsim_ctx_check(ctx) : pwsim_current();
	return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxGetDevice(CUdevice *device)
{
	struct CUctx_st *c;
	CUresult rc = ctx_or_current(NULL, &c);

	if (rc == CUDA_SUCCESS && !device)
		rc = CUDA_ERROR_INVALID_VALUE;
	if (rc == CUDA_SUCCESS)
		*device = c->device;
	return rc;
}

/* Streams are synchronous: there is never outstanding work. */
CUresult cuCtxSynchronize(void)
{
	struct CUctx_st *c;
	CUresult rc = ctx_or_current(NULL, &c);

	if (rc == CUDA_SUCCESS)
		pwsim_um_synchronized();
	return rc;
}

#if PWSIM_MAX_VERSION >= 13000
/* A context cuCtxDestroy destroyed: the real driver faults here (H200,
 * driver 580: docs/facts-cuda.md), and so does the simulator, so that a
 * layer that asks it about one shows in the tests. */
CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	struct CUctx_st *c;
	if (ctx && pwsim_ctx_refused(ctx) == CUDA_ERROR_CONTEXT_IS_DESTROYED) {
		fputs("pwsim: cuCtxGetDevice_v2 of a destroyed context: the real driver faults\n", stderr);
		raise(SIGSEGV);
	}
	CUresult rc = ctx_or_current(ctx, &c);

	if (rc == CUDA_SUCCESS && !device)
		rc = CUDA_ERROR_INVALID_VALUE;
	if (rc == CUDA_SUCCESS)
		*device = c->device;
	return rc;
}

CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
	struct CUctx_st *c;
	CUresult rc = ctx_or_current(ctx, &c);

	if (rc == CUDA_SUCCESS)
		pwsim_um_synchronized();
	return rc;
}
#endif

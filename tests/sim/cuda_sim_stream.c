/*
 * Simulated CUDA driver: streams and events.  Work is done when it is
 * enqueued, so a stream is always idle and an event is complete as soon as it
 * is recorded; an event records CLOCK_MONOTONIC at cuEventRecord.  Handles
 * are checked against lists of live objects, so a destroyed or made-up handle
 * gets CUDA_ERROR_INVALID_HANDLE instead of a crash.
 */
#include "sim_internal.h"

#include <stdlib.h>
#include <time.h>

#define PWSIM_STREAM_MAGIC 0x52545353u /* "SSTR" */

struct CUstream_st {
	uint32_t magic;
	unsigned flags;
	struct CUctx_st *ctx;
	uint32_t cupti_id; /* CUPTI's id (cuptiGetStreamIdEx), unique in its context */
	struct CUstream_st *next;
};

static struct CUstream_st *g_streams;
static struct CUevent_st *g_events;
static unsigned long long g_next_event_id;

/* ---- streams ---- */

int pwsim_stream_is_default(CUstream s)
{
	return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

/* The live stream s, or NULL (caller holds the lock). */
static struct CUstream_st *stream_find(CUstream s)
{
	for (struct CUstream_st *p = g_streams; p; p = p->next)
		if (p == s)
			return p;
	return NULL;
}

CUresult pwsim_stream_check(CUstream s)
{
	int ok;

	if (pwsim_stream_is_default(s))
		return CUDA_SUCCESS;
	pwsim_lock();
	ok = stream_find(s) != NULL;
	pwsim_unlock();
	return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* CUPTI's stream ids (cupti_activity.h :7320: "unique within a context").
 * Choice: in each context the legacy NULL stream is 1, then streams take
 * 2, 3, ... as they are created, and each thread's per-thread stream when it
 * is first used in a copy or asked for. */
#define CUPTI_LEGACY_STREAM_ID 1u

static uint32_t cupti_next(struct CUctx_st *c)
{
	if (c->cupti_last < CUPTI_LEGACY_STREAM_ID)
		c->cupti_last = CUPTI_LEGACY_STREAM_ID;
	return ++c->cupti_last;
}

/* This thread's per-thread stream id in each context, 0 until used. */
static __thread uint32_t t_per_thread_id[PWSIM_CTX_SLOTS];

int pwsim_stream_cupti(CUstream s, int per_thread, struct CUctx_st *in, struct CUctx_st **ctx, uint32_t *id)
{
	struct CUstream_st *st;
	struct CUctx_st *c;
	int i;

	if (pwsim_stream_is_default(s)) {
		c = in ? in : pwsim_current();
		if (!c)
			return -1;
		*ctx = c;
		if (s == CU_STREAM_LEGACY || (s == NULL && !per_thread)) {
			*id = CUPTI_LEGACY_STREAM_ID;
			return 0;
		}
		i = pwsim_ctx_index(c);
		if (!t_per_thread_id[i])
			t_per_thread_id[i] = cupti_next(c);
		*id = t_per_thread_id[i];
		return 0;
	}
	st = stream_find(s);
	if (!st)
		return -1;
	*ctx = st->ctx;
	*id = st->cupti_id;
	return 0;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	CUresult rc = pwsim_ready();
	struct CUstream_st *s;

	if (rc)
		return rc;
	/* cuda.h :14918-14922: CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING */
	if (!phStream || (Flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	s = calloc(1, sizeof(*s));
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->magic = PWSIM_STREAM_MAGIC;
	s->flags = Flags;
	s->ctx = pwsim_current();
	pwsim_lock();
	s->cupti_id = cupti_next(s->ctx);
	s->next = g_streams;
	g_streams = s;
	pwsim_unlock();
	*phStream = s;
	return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
	CUresult rc = pwsim_ready();
	struct CUstream_st **pp;

	if (rc)
		return rc;
	pwsim_lock();
	for (pp = &g_streams; *pp && *pp != hStream; pp = &(*pp)->next)
		;
	if (*pp) {
		struct CUstream_st *s = *pp;

		*pp = s->next;
		free(s);
	} else {
		rc = CUDA_ERROR_INVALID_HANDLE; /* a default stream cannot be destroyed */
	}
	pwsim_unlock();
	return rc;
}

CUresult cuStreamDestroy(CUstream hStream) /* legacy name, same ABI (cuda.h :25679) */
{
	return cuStreamDestroy_v2(hStream);
}

/* Nothing is ever pending, so both only validate the handle. */
CUresult cuStreamSynchronize(CUstream hStream)
{
	CUresult rc = pwsim_ready();

	if (rc == CUDA_SUCCESS)
		rc = pwsim_stream_check(hStream);
	if (rc == CUDA_SUCCESS)
		pwsim_um_synchronized();
	return rc;
}

CUresult cuStreamSynchronize_ptsz(CUstream hStream)
{
	return cuStreamSynchronize(hStream);
}

CUresult cuStreamQuery(CUstream hStream)
{
	return cuStreamSynchronize(hStream);
}

CUresult cuStreamQuery_ptsz(CUstream hStream)
{
	return cuStreamSynchronize(hStream);
}

/* ---- events ---- */

struct CUevent_st *pwsim_event_new(unsigned flags, struct CUctx_st *ctx)
{
	struct CUevent_st *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->magic = PWSIM_EVENT_MAGIC;
	e->flags = flags;
	e->ctx = ctx;
	e->id = ++g_next_event_id;
	e->next = g_events;
	g_events = e;
	return e;
}

struct CUevent_st *pwsim_event_check(CUevent ev)
{
	for (struct CUevent_st *e = g_events; e; e = e->next)
		if (e == ev)
			return e;
	return NULL;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
	CUresult rc = pwsim_ready();
	struct CUevent_st *e;

	if (rc)
		return rc;
	if (!phEvent || (Flags & ~known))
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h :459: "CU_EVENT_DISABLE_TIMING must be set" with INTERPROCESS */
	if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
		return CUDA_ERROR_INVALID_VALUE;
	if (!pwsim_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	pwsim_lock();
	e = pwsim_event_new(Flags, pwsim_current());
	pwsim_unlock();
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*phEvent = e;
	return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
	CUresult rc = pwsim_ready();
	struct CUevent_st *e;
	struct CUstream_st *s = NULL;

	if (rc)
		return rc;
	pwsim_lock();
	e = pwsim_event_check(hEvent);
	if (!pwsim_stream_is_default(hStream))
		s = stream_find(hStream);
	/* cuda.h :15952-15953: the stream and the event must belong to the same
	 * context, else INVALID_HANDLE; so must both exist. */
	if (!e || (!pwsim_stream_is_default(hStream) && (!s || s->ctx != e->ctx))) {
		rc = CUDA_ERROR_INVALID_HANDLE;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &e->when);
		e->recorded = 1;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
	return cuEventRecord(hEvent, hStream);
}

/* PWSIM_EVENT_QUERY_US: every event query (and wait) takes that long, like
 * a driver on a busy machine (tests of device timing's collection). */
static void query_delay(void)
{
	static long us = -1; /* read once: a race only reads it twice */
	if (us < 0) {
		const char *s = getenv("PWSIM_EVENT_QUERY_US");
		long v = s ? strtol(s, NULL, 10) : 0;
		us = v > 0 && v <= 10000000 ? v : 0;
	}
	if (us > 0) {
		struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Complete as soon as recorded; never recorded also answers CUDA_SUCCESS
 * (cuda.h :15963-15965). */
CUresult cuEventQuery(CUevent hEvent)
{
	CUresult rc = pwsim_ready();

	if (rc)
		return rc;
	query_delay();
	pwsim_lock();
	rc = pwsim_event_check(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
	pwsim_unlock();
	return rc;
}

CUresult cuEventSynchronize(CUevent hEvent)
{
	return cuEventQuery(hEvent);
}

static double ts_ms(const struct timespec *t)
{
	return (double)t->tv_sec * 1e3 + (double)t->tv_nsec / 1e6;
}

/* cuda.h :16150-16156: either event unrecorded, or created with
 * CU_EVENT_DISABLE_TIMING -> CUDA_ERROR_INVALID_HANDLE. */
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	CUresult rc = pwsim_ready();
	struct CUevent_st *a, *b;

	if (rc)
		return rc;
	if (!pMilliseconds)
		return CUDA_ERROR_INVALID_VALUE;
	pwsim_lock();
	a = pwsim_event_check(hStart);
	b = pwsim_event_check(hEnd);
	if (!a || !b || !a->recorded || !b->recorded || ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING))
		rc = CUDA_ERROR_INVALID_HANDLE;
	else
		*pMilliseconds = (float)(ts_ms(&b->when) - ts_ms(&a->when));
	pwsim_unlock();
	return rc;
}

#if PWSIM_MAX_VERSION >= 12080
/* The 12.8 ABI is the same (cuda.h :172 makes it the default name). */
CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	return cuEventElapsedTime(pMilliseconds, hStart, hEnd);
}
#endif

CUresult cuEventDestroy_v2(CUevent hEvent)
{
	CUresult rc = pwsim_ready();
	struct CUevent_st **pp;

	if (rc)
		return rc;
	pwsim_lock();
	for (pp = &g_events; *pp && *pp != hEvent; pp = &(*pp)->next)
		;
	if (*pp) {
		struct CUevent_st *e = *pp;

		*pp = e->next;
		free(e);
	} else {
		rc = CUDA_ERROR_INVALID_HANDLE;
	}
	pwsim_unlock();
	return rc;
}

CUresult cuEventDestroy(CUevent hEvent) /* legacy name, same ABI (cuda.h :25680) */
{
	return cuEventDestroy_v2(hEvent);
}

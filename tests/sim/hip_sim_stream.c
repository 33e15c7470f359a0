/*
 * Simulated HIP runtime: streams and events.  Work happens when it is
 * enqueued, so every stream is idle and every recorded event complete.
 * Streams and events live in lists; a destroyed one is unlinked and its
 * memory released after its magic is cleared.
 */
#include "hip_sim_internal.h"

#include <stdlib.h>

#define HSIM_STREAM_MAGIC 0x4d525453u /* "STRM" */
struct ihipStream_t {
	uint32_t magic;
	int device;
	struct ihipStream_t *next;
};

static struct ihipStream_t *g_streams;
static struct ihipEvent_t *g_events;
static unsigned long long g_next_event;

static struct ihipStream_t *stream_find(hipStream_t s)
{
	for (struct ihipStream_t *p = g_streams; p; p = p->next)
		if (p == s)
			return p;
	return NULL;
}

hipError_t hsim_stream_check(hipStream_t s)
{
	hipError_t rc = hipSuccess;

	if (!s)
		return hipSuccess;
	hsim_lock();
	if (!stream_find(s))
		rc = hipErrorInvalidHandle;
	hsim_unlock();
	return rc;
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
	struct ihipStream_t *s;

	if (!stream)
		return hipErrorInvalidValue;
	s = calloc(1, sizeof(*s));
	if (!s)
		return hipErrorOutOfMemory;
	s->magic = HSIM_STREAM_MAGIC;
	s->device = hsim_current();
	hsim_lock();
	s->next = g_streams;
	g_streams = s;
	hsim_unlock();
	*stream = s;
	return hipSuccess;
}

/* The NULL stream or one that is not live -> InvalidHandle. */
hipError_t hipStreamDestroy(hipStream_t stream)
{
	hipError_t rc = hipErrorInvalidHandle;

	hsim_lock();
	for (struct ihipStream_t **pp = &g_streams; *pp; pp = &(*pp)->next) {
		if (*pp == stream) {
			struct ihipStream_t *s = *pp;

			*pp = s->next;
			s->magic = 0;
			free(s);
			rc = hipSuccess;
			break;
		}
	}
	hsim_unlock();
	return rc;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
	return hsim_stream_check(stream);
}

/* ---- events ---- */

struct ihipEvent_t *hsim_event_new(unsigned flags)
{
	struct ihipEvent_t *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->magic = HSIM_EVENT_MAGIC;
	e->flags = flags;
	e->device = hsim_current();
	e->id = ++g_next_event;
	e->next = g_events;
	g_events = e;
	return e;
}

struct ihipEvent_t *hsim_event_check(hipEvent_t ev)
{
	for (struct ihipEvent_t *e = g_events; e; e = e->next)
		if (e == ev)
			return e;
	return NULL;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
	const unsigned known = hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;
	struct ihipEvent_t *e;

	if (!event || (flags & ~known))
		return hipErrorInvalidValue;
	/* An interprocess event must also disable timing (as in CUDA). */
	if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming))
		return hipErrorInvalidValue;
	hsim_lock();
	e = hsim_event_new(flags);
	hsim_unlock();
	if (!e)
		return hipErrorOutOfMemory;
	*event = e;
	return hipSuccess;
}

hipError_t hipEventCreate(hipEvent_t *event)
{
	return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventDestroy(hipEvent_t event)
{
	hipError_t rc = hipErrorInvalidHandle;

	hsim_lock();
	for (struct ihipEvent_t **pp = &g_events; *pp; pp = &(*pp)->next) {
		if (*pp == event) {
			struct ihipEvent_t *e = *pp;

			*pp = e->next;
			e->magic = 0;
			free(e);
			rc = hipSuccess;
			break;
		}
	}
	hsim_unlock();
	return rc;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
	struct ihipEvent_t *e;
	hipError_t rc = hsim_stream_check(stream);

	if (rc)
		return rc;
	hsim_lock();
	e = hsim_event_check(event);
	if (e)
		e->recorded = 1;
	hsim_unlock();
	return e ? hipSuccess : hipErrorInvalidHandle;
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
	struct ihipEvent_t *e;

	hsim_lock();
	e = hsim_event_check(event);
	hsim_unlock();
	return e ? hipSuccess : hipErrorInvalidHandle;
}

hipError_t hipEventQuery(hipEvent_t event)
{
	return hipEventSynchronize(event);
}

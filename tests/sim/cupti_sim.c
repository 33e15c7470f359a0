/*
 * Simulated CUPTI (libcupti.so.13): the part of the activity API peerwatch
 * uses for um_counters=1 and gpu_timing=cupti, over the simulated driver
 * (tests/sim/cuda_sim_um.c), which makes the records.  Types and values:
 * include/peerwatch/abi/cupti.h; behaviour: CUDA 13.0's cupti_activity.h.
 *
 * - Buffers: asked of the client through its request callback when there
 *   are records to deliver, handed back full through its completion
 *   callback (:7600-7668), by a thread of this library every 10 ms while
 *   records are waiting, and by cuptiActivityFlushAll on the calling thread
 *   (forced or not: every buffer here is complete once filled).  Records are
 *   packed one after another; each record's size is a multiple of 8.  A
 *   buffer the client does not give (NULL, or too small for the next record)
 *   drops that record (:7604: "CUPTI will drop the activity records"),
 *   counted by cuptiActivityGetNumDroppedRecords with the driver's drops.
 *   Records wait in the driver until callbacks are registered.
 * - cuptiActivityConfigureUnifiedMemoryCounter "should be called after CUDA
 *   driver initialization" (:7796): before cuInit it answers
 *   CUPTI_ERROR_NOT_INITIALIZED; only the counter kinds configured enabled
 *   give records.  Choice: while the unified-memory kind is enabled it
 *   answers CUPTI_ERROR_INVALID_OPERATION ("Set the configuration before
 *   enabling", :7794).
 * - The timestamp callback (:8115-8150) is the clock of the records made
 *   after it is registered; without one records and cuptiGetTimestamp use
 *   CLOCK_REALTIME ns, what the header says CUPTI uses on Linux.
 *   cuptiGetTimestamp returns the callback's time when one is registered
 *   (:7266: "normalized to correspond with the ... timestamps reported in the
 *   CUPTI activity records").
 * - Kinds: MEMCPY, MEMCPY2, UNIFIED_MEMORY_COUNTER give records;
 *   EXTERNAL_CORRELATION is accepted and gives none (nothing pushes
 *   correlation ids here); any other kind is CUPTI_ERROR_NOT_COMPATIBLE
 *   (choice: "not supported by this simulator").
 * - cuptiFinalize disables every kind, delivers what is waiting, stops the
 *   delivery thread and forgets callbacks, clock and configuration.
 *
 * The library finds the driver with dlopen("libcuda.so.1", RTLD_NOLOAD)
 * and dlsym rather than linking it: the real libcupti.so.13 has no
 * DT_NEEDED on libcuda either (readelf -d, CUDA 13.0), so a process decides
 * which driver it loads (the simulator's current or 11.8 build) and CUPTI
 * binds to that one; a process with no simulated driver loaded gets
 * CUPTI_ERROR_NOT_INITIALIZED from the calls that need it.
 *
 * Environment (read once, at the first call):
 *   PWSIM_CUPTI=busy   cuptiActivityRegisterCallbacks and cuptiActivityEnable
 *                      answer CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
 *                      as when another profiler holds CUPTI (choice)
 *   PWSIM_CUPTI=noum   cuptiActivityConfigureUnifiedMemoryCounter and enabling
 *                      the unified-memory kind answer
 *                      CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED
 *   PWSIM_CUPTI_QUEUE=N  records the driver queues before dropping (65536)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti_sim_api.h"
#include "peerwatch/abi/cupti.h"
#include "pwsim_cupti.h"

#define API __attribute__((visibility("default")))
#define DELIVER_NS 10000000L /* 10 ms */

/* The driver's side (pwsim_cupti.h). */
static struct {
	pwsim_cupti_ready_fn ready;
	pwsim_cupti_configure_fn configure;
	pwsim_cupti_pop_fn pop;
	pwsim_cupti_pending_fn pending;
	pwsim_cupti_dropped_fn dropped;
	pwsim_cupti_stream_id_fn stream_id;
} drv;
static int g_have_drv;

/* The client's settings, guarded by g_mu. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc g_request;
static CUpti_BuffersCallbackCompleteFunc g_complete;
static CUpti_TimestampCallbackFunc g_clock;
static struct pwsim_cupti_config g_cfg;
static int g_external; /* EXTERNAL_CORRELATION enabled: nothing to give */
static uint32_t g_counters;
static uint64_t g_dropped; /* records no buffer took */
static int g_env_read, g_busy, g_noum;
static size_t g_queue;

/* Delivery: one at a time, on the thread or a flushing caller. */
static pthread_mutex_t g_deliver_mu = PTHREAD_MUTEX_INITIALIZER;
static union pwsim_cupti_record g_carry; /* popped, not yet in a buffer */
static int g_have_carry;
static __thread int t_in_callback;

static pthread_mutex_t g_thread_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_thread_cv;
static pthread_t g_thread;
static int g_thread_on, g_thread_stop;

/* Caller holds g_mu. */
static void read_env(void)
{
	const char *s = getenv("PWSIM_CUPTI"), *q = getenv("PWSIM_CUPTI_QUEUE");

	if (g_env_read)
		return;
	g_env_read = 1;
	if (s && *s) {
		if (!strcmp(s, "busy"))
			g_busy = 1;
		else if (!strcmp(s, "noum"))
			g_noum = 1;
		else
			fprintf(stderr, "pwsim cupti: PWSIM_CUPTI=%s: expected busy or noum\n", s);
	}
	if (q && *q) {
		char *end;
		unsigned long long n;

		errno = 0;
		n = strtoull(q, &end, 10);
		if (errno || *end || n < 1 || n > (1u << 24))
			fprintf(stderr, "pwsim cupti: PWSIM_CUPTI_QUEUE=%s: expected 1..16777216\n", q);
		else
			g_queue = (size_t)n;
	}
}

/* The driver's functions; 0 once found.  Caller holds g_mu. */
static int find_driver(void)
{
	void *h;

	if (g_have_drv)
		return 0;
	h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return -1;
	drv.ready = (pwsim_cupti_ready_fn)dlsym(h, "pwsim_cupti_ready");
	drv.configure = (pwsim_cupti_configure_fn)dlsym(h, "pwsim_cupti_configure");
	drv.pop = (pwsim_cupti_pop_fn)dlsym(h, "pwsim_cupti_pop");
	drv.pending = (pwsim_cupti_pending_fn)dlsym(h, "pwsim_cupti_pending");
	drv.dropped = (pwsim_cupti_dropped_fn)dlsym(h, "pwsim_cupti_dropped");
	drv.stream_id = (pwsim_cupti_stream_id_fn)dlsym(h, "pwsim_cupti_stream_id");
	if (!drv.ready || !drv.configure || !drv.pop || !drv.pending || !drv.dropped || !drv.stream_id)
		return -1;
	g_have_drv = 1;
	return 0;
}

/* Tell the driver what to make (caller holds g_mu). */
static void push_config(void)
{
	g_cfg.um_counters = g_counters;
	g_cfg.clock = g_clock;
	g_cfg.queue = g_queue;
	if (find_driver() == 0)
		drv.configure(&g_cfg);
}

static void lock_env(void)
{
	pthread_mutex_lock(&g_mu);
	read_env();
}

/* ---- delivery ---- */

static size_t record_size(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
	case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: return sizeof(CUpti_ActivityUnifiedMemoryCounter3);
	default: return 0;
	}
}

static int next_record(void)
{
	if (!g_have_carry)
		g_have_carry = drv.pop(&g_carry);
	return g_have_carry;
}

/* Every waiting record into the client's buffers. */
static void deliver(void)
{
	CUpti_BuffersCallbackRequestFunc request;
	CUpti_BuffersCallbackCompleteFunc complete;

	pthread_mutex_lock(&g_mu);
	request = g_request;
	complete = g_complete;
	pthread_mutex_unlock(&g_mu);
	if (!request || !complete || !g_have_drv)
		return;
	pthread_mutex_lock(&g_deliver_mu);
	t_in_callback = 1;
	while (next_record()) {
		uint8_t *buf = NULL;
		size_t size = 0, max = 0, used = 0, n = 0;

		request(&buf, &size, &max);
		if (!buf || size < record_size(&g_carry.any)) {
			g_have_carry = 0;
			pthread_mutex_lock(&g_mu);
			g_dropped++;
			pthread_mutex_unlock(&g_mu);
			continue;
		}
		while (next_record()) {
			size_t sz = record_size(&g_carry.any);

			if (used + sz > size || (max && n == max))
				break;
			memcpy(buf + used, &g_carry, sz);
			used += sz;
			n++;
			g_have_carry = 0;
		}
		complete(NULL, 0, buf, size, used);
	}
	t_in_callback = 0;
	pthread_mutex_unlock(&g_deliver_mu);
}

static void *deliver_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g_thread_mu);
	while (!g_thread_stop) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += DELIVER_NS;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&g_thread_cv, &g_thread_mu, &t);
		if (g_thread_stop)
			break;
		pthread_mutex_unlock(&g_thread_mu);
		if (g_have_drv && drv.pending())
			deliver();
		pthread_mutex_lock(&g_thread_mu);
	}
	pthread_mutex_unlock(&g_thread_mu);
	return NULL;
}

static void thread_start(void)
{
	pthread_condattr_t a;

	pthread_mutex_lock(&g_thread_mu);
	if (!g_thread_on) {
		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&g_thread_cv, &a);
		pthread_condattr_destroy(&a);
		g_thread_stop = 0;
		g_thread_on = pthread_create(&g_thread, NULL, deliver_thread, NULL) == 0;
	}
	pthread_mutex_unlock(&g_thread_mu);
}

static void thread_stop(void)
{
	int on;

	pthread_mutex_lock(&g_thread_mu);
	on = g_thread_on;
	g_thread_stop = 1;
	if (on)
		pthread_cond_signal(&g_thread_cv);
	pthread_mutex_unlock(&g_thread_mu);
	if (on) {
		pthread_join(g_thread, NULL);
		pthread_cond_destroy(&g_thread_cv);
	}
	pthread_mutex_lock(&g_thread_mu);
	g_thread_on = 0;
	pthread_mutex_unlock(&g_thread_mu);
}

__attribute__((destructor)) static void unload(void)
{
	thread_stop();
}

/* ---- the API ---- */

API CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                               CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
	lock_env();
	if (g_busy) {
		pthread_mutex_unlock(&g_mu);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	if (!funcBufferRequested || !funcBufferCompleted) {
		pthread_mutex_unlock(&g_mu);
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	g_request = funcBufferRequested;
	g_complete = funcBufferCompleted;
	(void)find_driver();
	pthread_mutex_unlock(&g_mu);
	thread_start();
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp)
{
	if (!funcTimestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	lock_env();
	g_clock = funcTimestamp;
	push_config();
	pthread_mutex_unlock(&g_mu);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityConfigureUnifiedMemoryCounter(CUpti_ActivityUnifiedMemoryCounterConfig *config,
                                                           uint32_t count)
{
	CUptiResult rc = CUPTI_SUCCESS;
	uint32_t counters;

	lock_env();
	if (g_noum)
		rc = CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED;
	else if (!config || !count)
		rc = CUPTI_ERROR_INVALID_PARAMETER;
	else if (find_driver() || !drv.ready())
		rc = CUPTI_ERROR_NOT_INITIALIZED;
	else if (g_cfg.um)
		rc = CUPTI_ERROR_INVALID_OPERATION;
	counters = g_counters;
	for (uint32_t i = 0; rc == CUPTI_SUCCESS && i < count; i++) {
		const CUpti_ActivityUnifiedMemoryCounterConfig *c = &config[i];

		/* :1343-1353: scope 1 (single device) or 2 (all devices) */
		if (c->scope < 1 ||
		    c->scope > CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES ||
		    c->kind <= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN ||
		    c->kind >= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT || c->enable > 1)
			rc = CUPTI_ERROR_INVALID_PARAMETER;
		else if (c->enable)
			counters |= 1u << c->kind;
		else
			counters &= ~(1u << c->kind);
	}
	if (rc == CUPTI_SUCCESS) {
		g_counters = counters;
		push_config();
	}
	pthread_mutex_unlock(&g_mu);
	return rc;
}

static CUptiResult set_kind(CUpti_ActivityKind kind, int on)
{
	CUptiResult rc = CUPTI_SUCCESS;

	lock_env();
	if (on && g_busy)
		rc = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	else if (on && g_noum && kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
		rc = CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED;
	else if (kind == CUPTI_ACTIVITY_KIND_MEMCPY)
		g_cfg.memcpy = on;
	else if (kind == CUPTI_ACTIVITY_KIND_MEMCPY2)
		g_cfg.memcpy2 = on;
	else if (kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
		g_cfg.um = on;
	else if (kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
		g_external = on;
	else
		rc = CUPTI_ERROR_NOT_COMPATIBLE;
	if (rc == CUPTI_SUCCESS)
		push_config();
	pthread_mutex_unlock(&g_mu);
	return rc;
}

API CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	return set_kind(kind, 1);
}

API CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	return set_kind(kind, 0);
}

API CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag; /* forced or not, every buffer is complete once filled */
	if (t_in_callback)
		return CUPTI_SUCCESS; /* a flush from a buffer callback: the delivery under way goes on */
	deliver();
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSize, CUpti_Activity **record)
{
	uint8_t *at;
	size_t off, sz;

	if (!buffer || !record)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (!*record) {
		at = buffer;
	} else {
		sz = record_size(*record);
		if (!sz)
			return CUPTI_ERROR_INVALID_KIND;
		at = (uint8_t *)*record + sz;
	}
	off = (size_t)(at - buffer);
	if (off + sizeof(CUpti_Activity) > validBufferSize)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	sz = record_size((const CUpti_Activity *)at);
	if (!sz)
		return CUPTI_ERROR_INVALID_KIND;
	if (off + sz > validBufferSize)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*record = (CUpti_Activity *)at;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId, size_t *dropped)
{
	(void)context; /* one queue for the process: every buffer is global (context NULL) */
	(void)streamId;
	if (!dropped)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&g_mu);
	*dropped = (size_t)g_dropped + (find_driver() == 0 ? (size_t)drv.dropped() : 0);
	pthread_mutex_unlock(&g_mu);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
	CUpti_TimestampCallbackFunc clock;
	struct timespec ts;

	if (!timestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&g_mu);
	clock = g_clock;
	pthread_mutex_unlock(&g_mu);
	if (clock) {
		*timestamp = clock();
		return CUPTI_SUCCESS;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	*timestamp = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream,
                                   uint32_t *streamId)
{
	int found;

	if (!streamId)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&g_mu);
	found = find_driver() == 0;
	pthread_mutex_unlock(&g_mu);
	if (!found || !drv.ready())
		return CUPTI_ERROR_NOT_INITIALIZED;
	return drv.stream_id(context, stream, perThreadStream != 0, streamId) ? CUPTI_ERROR_INVALID_STREAM
	                                                                      : CUPTI_SUCCESS;
}

static const struct {
	CUptiResult rc;
	const char *name;
} g_names[] = {
    {CUPTI_SUCCESS, "CUPTI_SUCCESS"},
    {CUPTI_ERROR_INVALID_PARAMETER, "CUPTI_ERROR_INVALID_PARAMETER"},
    {CUPTI_ERROR_INVALID_DEVICE, "CUPTI_ERROR_INVALID_DEVICE"},
    {CUPTI_ERROR_INVALID_CONTEXT, "CUPTI_ERROR_INVALID_CONTEXT"},
    {CUPTI_ERROR_INVALID_OPERATION, "CUPTI_ERROR_INVALID_OPERATION"},
    {CUPTI_ERROR_MAX_LIMIT_REACHED, "CUPTI_ERROR_MAX_LIMIT_REACHED"},
    {CUPTI_ERROR_NOT_COMPATIBLE, "CUPTI_ERROR_NOT_COMPATIBLE"},
    {CUPTI_ERROR_NOT_INITIALIZED, "CUPTI_ERROR_NOT_INITIALIZED"},
    {CUPTI_ERROR_QUEUE_EMPTY, "CUPTI_ERROR_QUEUE_EMPTY"},
    {CUPTI_ERROR_INVALID_STREAM, "CUPTI_ERROR_INVALID_STREAM"},
    {CUPTI_ERROR_INVALID_KIND, "CUPTI_ERROR_INVALID_KIND"},
    {CUPTI_ERROR_NOT_SUPPORTED, "CUPTI_ERROR_NOT_SUPPORTED"},
    {CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED, "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"},
    {CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE, "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE"},
    {CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES,
     "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES"},
    {CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS, "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS"},
    {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"},
    {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"},
    {CUPTI_ERROR_UNKNOWN, "CUPTI_ERROR_UNKNOWN"},
};

API CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
	if (!str)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < sizeof(g_names) / sizeof(g_names[0]); i++) {
		if (g_names[i].rc == result) {
			*str = g_names[i].name;
			return CUPTI_SUCCESS;
		}
	}
	return CUPTI_ERROR_INVALID_PARAMETER; /* choice: a value this simulator does not name */
}

API CUptiResult cuptiFinalize(void)
{
	pthread_mutex_lock(&g_mu);
	memset(&g_cfg, 0, sizeof(g_cfg));
	g_external = 0;
	push_config();
	pthread_mutex_unlock(&g_mu);
	deliver();
	thread_stop();
	pthread_mutex_lock(&g_mu);
	g_request = NULL;
	g_complete = NULL;
	g_clock = NULL;
	g_counters = 0;
	push_config();
	pthread_mutex_unlock(&g_mu);
	return CUPTI_SUCCESS;
}

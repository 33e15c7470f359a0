/*
 * The devices of each vendor, identified once and written as "device"
 * lines (devices.h, docs/trace-format.md).  Names no vendor: each one's
 * identify hook (vendor.h) asks its runtime.
 */
#include "state/devices.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core/forkgate.h"
#include "record/jsonw.h"
#include "core/pw.h"
#include "record/trace.h"
#include "core/vendor.h"

atomic_bool pw_devices_used[PW_VENDOR_COUNT];
static pthread_mutex_t why_lock = PTHREAD_MUTEX_INITIALIZER; /* pw_devices_why_not's */

static struct {
	pthread_mutex_t lock;            /* one identification at a time */
	_Atomic(struct pw_devset *) set; /* published once, never freed */
	bool links_asked;                /* the management library was asked (tick_lock) */
	atomic_bool written;             /* writer: this trace file has the lines */
} V[PW_VENDOR_COUNT] = {[0 ... PW_VENDOR_COUNT - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};

static const struct pw_vendor *vendor_of(int v)
{
	for (const struct pw_vendor *const *p = pw_vendors; *p; p++)
		if ((*p)->vendor == v && (*p)->identify)
			return *p;
	return NULL;
}

/*
 * A vendor's set, mapped rather than allocated: the exit handler may be the
 * first to identify the devices, and a program that calls exit() from a
 * signal handler runs it there, perhaps over its own malloc (measured: a
 * SIGTERM handler calling exit() before the writer's first round; mmap is a
 * system call, async-signal-safe, and takes no lock of the program's).
 */
#define SET_HEAD ((sizeof(struct pw_devset) + 63) & ~(size_t)63)
#define SET_LEN (SET_HEAD + (size_t)PW_MAX_DEV * PW_MAX_DEV * sizeof(struct pw_pair_info))

static struct pw_devset *set_new(int v)
{
	void *m = mmap(NULL, SET_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct pw_devset *s = m;
	s->vendor = v;
	s->pair = (struct pw_pair_info *)((char *)m + SET_HEAD);
	for (int d = 0; d < PW_MAX_DEV; d++)
		s->dev[d].physical_id = s->dev[d].switch_links = -1;
	for (int i = 0; i < PW_MAX_DEV * PW_MAX_DEV; i++) {
		struct pw_pair_info *p = &s->pair[i];
		p->can_access = p->perf_rank = p->access = p->atomics = p->array_access = -1;
		p->nvlinks = p->nvswitch = -1;
	}
	return s;
}

static void set_free(struct pw_devset *s)
{
	munmap(s, SET_LEN);
}

/* Identifies vendor v's devices if its runtime was used and can say. */
static struct pw_devset *identify(int v)
{
	struct pw_devset *s = atomic_load_explicit(&V[v].set, memory_order_acquire);
	const struct pw_vendor *vd;
	if (s || !atomic_load_explicit(&pw_devices_used[v], memory_order_relaxed) || !(vd = vendor_of(v)))
		return s;
	pthread_mutex_lock(&V[v].lock);
	s = atomic_load_explicit(&V[v].set, memory_order_acquire);
	if (!s) {
		struct pw_devset *n = set_new(v);
		pw_tls_internal++;
		bool ok = n && vd->identify(n);
		pw_tls_internal--;
		if (ok) {
			atomic_store_explicit(&V[v].set, n, memory_order_release);
			s = n;
		} else if (n) {
			set_free(n);
		}
	}
	pthread_mutex_unlock(&V[v].lock);
	return s;
}

const struct pw_devset *pw_devices_get(int vendor)
{
	if (vendor < 0 || vendor >= PW_VENDOR_COUNT)
		return NULL;
	return identify(vendor);
}

/* ---- the lines ---- */

static void kv_null(struct pw_jw *w, const char *k)
{
	pw_jw_key(w, k);
	pw_jw_raw(w, "null", 4);
}

static void kv_int_or_null(struct pw_jw *w, const char *k, int v)
{
	if (v < 0)
		kv_null(w, k);
	else
		pw_jw_kv_i64(w, k, v);
}

static void kv_name(struct pw_jw *w, const char *k, const char *v)
{
	if (v)
		pw_jw_kv_str(w, k, v);
	else
		kv_null(w, k);
}

static void put_peer(struct pw_jw *w, const struct pw_devset *s, int d, int p)
{
	const struct pw_pair_info *i = pw_devset_pair(s, d, p);
	if (w->need_comma)
		pw_jw_ch(w, ',');
	pw_jw_obj_open(w);
	pw_jw_kv_i64(w, "ordinal", p);
	kv_int_or_null(w, "can_access", i->can_access);
	kv_int_or_null(w, "performance_rank", i->perf_rank);
	kv_int_or_null(w, "access_supported", i->access);
	kv_int_or_null(w, "native_atomics", i->atomics);
	kv_int_or_null(w, "array_access", i->array_access);
	pw_jw_kv_str(w, "link", s->links && i->link ? i->link : "unknown");
	kv_int_or_null(w, "nvlinks", s->links ? i->nvlinks : -1);
	kv_name(w, "topology", i->topology);
	kv_name(w, "p2p_read", i->p2p[PW_P2P_READ]);
	kv_name(w, "p2p_write", i->p2p[PW_P2P_WRITE]);
	kv_name(w, "p2p_nvlink", i->p2p[PW_P2P_NVLINK]);
	kv_name(w, "p2p_atomics", i->p2p[PW_P2P_ATOMICS]);
	pw_jw_obj_close(w);
}

static void kv_text(struct pw_jw *w, const char *k, const char *v)
{
	if (*v)
		pw_jw_kv_str(w, k, v);
	else
		kv_null(w, k);
}

static void write_device(const struct pw_devset *s, int d)
{
	struct pw_jw w;
	if (!pw_trace_event_begin(&w))
		return;
	const struct pw_dev_info *i = &s->dev[d];
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "type", "device");
	pw_jw_kv_str(&w, "vendor", pw_vendor_name(s->vendor));
	pw_jw_kv_i64(&w, "ordinal", d);
	pw_jw_kv_i64(&w, "count", s->n);
	kv_text(&w, "uuid", i->uuid);
	kv_text(&w, "bus_id", i->bus_id);
	kv_text(&w, "name", i->name);
	if (i->physical_id >= 0)
		pw_jw_kv_i64(&w, "physical_id", i->physical_id);
	if (s->links)
		kv_int_or_null(&w, "nvswitch_links", i->switch_links);
	pw_jw_key(&w, "peers");
	pw_jw_ch(&w, '[');
	w.need_comma = false;
	for (int p = 0; p < s->n; p++)
		if (p != d)
			put_peer(&w, s, d, p);
	pw_jw_ch(&w, ']');
	w.need_comma = true;
	pw_jw_obj_close(&w);
	pw_trace_event_end(&w);
}

/* The writer's round and the final one (on the thread ending the process)
 * may overlap: one at a time writes.  The writer never waits for the lock
 * (the final round may be waiting for the writer to take its events): it
 * leaves the round to whoever holds it. */
static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;

static void tick(bool final, bool at_exit)
{
	if (final)
		pthread_mutex_lock(&tick_lock);
	else if (pthread_mutex_trylock(&tick_lock))
		return;
	for (const struct pw_vendor *const *p = pw_vendors; *p; p++) {
		int v = (*p)->vendor;
		/* only into a trace that has calls of the vendor: a forked child
		 * knows its parent's devices, but writes them once it uses them */
		if (!(*p)->identify || atomic_load(&V[v].written) || !atomic_load(&pw_devices_used[v]))
			continue;
		struct pw_devset *s = identify(v);
		if (!s)
			continue;
		/* The links, once: on the caller's thread at the first use
		 * (links_here); here only where the devices could not be told
		 * then. */
		if (!V[v].links_asked && (*p)->links && !at_exit) {
			V[v].links_asked = true;
			pw_tls_internal++;
			(*p)->links(s);
			pw_tls_internal--;
		}
		for (int d = 0; d < s->n; d++)
			write_device(s, d);
		atomic_store(&V[v].written, true);
	}
	pthread_mutex_unlock(&tick_lock);
}

void pw_devices_tick(bool final)
{
	tick(final, false);
}

/*
 * A short process may end before the writer's round has asked about the
 * devices, and by the time the trace is finished the real CUDA driver has
 * torn itself down in exit(): its answers are then errors, and the device
 * lines would name no device (measured on 2 x H200, driver 580.159.04; the
 * simulators keep answering).  An exit handler registered at the runtime's
 * first use runs before the driver's own (handlers run in the reverse order
 * of registration, and the libraries' destructors after them all), so it
 * writes the lines while the driver still answers.
 */
/* The trace writer's round (final: once, before the footer): the devices'
 * lines, the profiling interface's records (um_counters=1, gpu_timing=cupti)
 * and device timing where gpu_timing asks.  Installed at load, whatever
 * the options: the writer calls it, the record room knowing nothing of
 * devices. */
static void writer_round(bool final)
{
	pw_devices_tick(final);
	if (pw_g.opt.um_counters || pw_g.opt.gpu_timing == PW_GT_CUPTI)
		pw_vendors_prof_collect(final);
	if (pw_g.opt.gpu_timing)
		pw_vendors_gt_collect(final);
}

__attribute__((constructor)) static void install_round(void)
{
	pw_trace_set_tick(writer_round);
}

/* A runtime was used whose devices' lines are not in the trace yet. */
static bool lines_pending(void)
{
	for (const struct pw_vendor *const *p = pw_vendors; *p; p++)
		if ((*p)->identify && atomic_load(&pw_devices_used[(*p)->vendor]) &&
		    !atomic_load(&V[(*p)->vendor].written))
			return true;
	return false;
}

/*
 * The thread calling exit() may be in the program's signal handler (a
 * SIGTERM handler that calls exit is common), perhaps over its own malloc.
 * So the lines are left to the writer: a process that ends before the
 * writer's first round asks it for one (starting it may be under way on
 * another thread) and waits, at most PW_EXIT_ROUND_MS.  Past that, or with
 * no writer coming, they are written here, without the links (which load
 * the management library).
 */
#define PW_EXIT_ROUND_MS 1000

static void devices_at_exit(void)
{
	if (!atomic_load(&pw_g.enabled) || !pw_trace_kept()) /* the lines go into the trace only */
		return;
	const struct timespec ms = {0, 1000000};
	for (int i = 0; i < PW_EXIT_ROUND_MS && lines_pending() && pw_trace_wake_writer(); i++)
		nanosleep(&ms, NULL);
	tick(true, true);
}

/*
 * The links are asked on the thread of the program's first call of the
 * vendor, before that call, not on the writer's: the management library
 * opens files while it loads and while it is initialized (the library
 * itself; NVML /dev/nvidiactl and each /dev/nvidiaN until nvmlShutdown),
 * and each takes the lowest free descriptor number for that moment.  On
 * the writer's thread that moment could fall while the program opens its
 * own files, which would then get other numbers than untraced (a daemon
 * that closes 3..1023 and opens its files expects 3, 4, ...).  Within the
 * program's own call into the vendor's runtime it cannot: the runtime
 * opens files there too, and a program's open racing with such a call on
 * another thread gets no number it could count on, traced or not.
 */
static void links_here(int v)
{
	const struct pw_vendor *vd = vendor_of(v);
	struct pw_devset *s = V[v].links_asked ? NULL : identify(v);
	if (s) {
		V[v].links_asked = true;
		pw_tls_internal++;
		vd->links(s);
		pw_tls_internal--;
	}
}

void pw_devices_first_use(int vendor)
{
	static atomic_bool registered;
	const struct pw_vendor *vd = vendor_of(vendor);
	bool links = vd && vd->links && atomic_load(&pw_g.enabled);
	if (links) /* the writer's round waits (it skips a round while held) */
		pthread_mutex_lock(&tick_lock);
	atomic_store_explicit(&pw_devices_used[vendor], true, memory_order_relaxed);
	if (!atomic_exchange(&registered, true))
		atexit(devices_at_exit);
	if (links) {
		links_here(vendor);
		pthread_mutex_unlock(&tick_lock);
	}
	if (vd && vd->prof_begin && atomic_load(&pw_g.enabled) &&
	    (pw_g.opt.um_counters || pw_g.opt.gpu_timing == PW_GT_CUPTI))
		vd->prof_begin(); /* it loads a library too, before the program's call */
}

void pw_devices_after_fork(void)
{
	/* The child writes the lines into its own trace, once it has one: after
	 * its own first traced call of the vendor (a child that makes none has
	 * no trace at all, and the lines must not make one). */
	pthread_mutex_init(&tick_lock, NULL);
	pthread_mutex_init(&why_lock, NULL);
	for (int v = 0; v < PW_VENDOR_COUNT; v++) {
		pthread_mutex_init(&V[v].lock, NULL);
		atomic_store(&V[v].written, false);
		atomic_store(&pw_devices_used[v], false);
	}
}

/* ---- why not, and names ---- */

#define WHY_MAX 64 /* pairs remembered per vendor */
static struct {
	int vendor, dev, peer;
	char *text; /* NULL: nothing can say */
} why[WHY_MAX * PW_VENDOR_COUNT];
static int nwhy;

const char *pw_devices_why_not(int vendor, int dev, int peer)
{
	const struct pw_vendor *vd = vendor_of(vendor);
	const struct pw_devset *s = pw_devices_get(vendor);
	if (!vd || !vd->why_not || !s || dev < 0 || peer < 0 || dev >= s->n || peer >= s->n || dev == peer)
		return NULL;
	const char *out = NULL;
	pthread_mutex_lock(&why_lock);
	int i = 0;
	while (i < nwhy && !(why[i].vendor == vendor && why[i].dev == dev && why[i].peer == peer))
		i++;
	if (i < nwhy) {
		out = why[i].text;
	} else if (nwhy < WHY_MAX * PW_VENDOR_COUNT) {
		char buf[400];
		pw_tls_internal++;
		bool said = vd->why_not(s, dev, peer, buf, sizeof buf);
		pw_tls_internal--;
		why[nwhy].vendor = vendor;
		why[nwhy].dev = dev;
		why[nwhy].peer = peer;
		why[nwhy].text = said ? pw_fg_strdup(buf) : NULL;
		out = why[nwhy++].text;
	}
	pthread_mutex_unlock(&why_lock);
	return out;
}

int pw_devices_switch_links(int vendor, int dev)
{
	static int known[PW_VENDOR_COUNT][PW_MAX_DEV]; /* links + 2; 0: not asked */
	const struct pw_vendor *vd = vendor_of(vendor);
	const struct pw_devset *s = pw_devices_get(vendor);
	if (!vd || !vd->switch_links || !s || dev < 0 || dev >= s->n)
		return -1;
	pthread_mutex_lock(&why_lock);
	if (!known[vendor][dev]) {
		pw_tls_internal++;
		int n = vd->switch_links(s, dev);
		pw_tls_internal--;
		known[vendor][dev] = (n < 0 ? -1 : n) + 2;
	}
	int n = known[vendor][dev] - 2;
	pthread_mutex_unlock(&why_lock);
	return n;
}

bool pw_devices_uuid_of(int vendor, int dev, char *out, size_t len)
{
	const struct pw_devset *s = pw_devices_get(vendor);
	if (len)
		out[0] = 0;
	if (!s || dev < 0 || dev >= s->n || !s->dev[dev].uuid[0])
		return false;
	snprintf(out, len, "%s", s->dev[dev].uuid);
	return true;
}

int pw_devices_ordinal_of(int vendor, const char *uuid)
{
	const struct pw_devset *s = pw_devices_get(vendor);
	for (int d = 0; s && uuid && uuid[0] && d < s->n; d++)
		if (!strcmp(s->dev[d].uuid, uuid))
			return d;
	return -1;
}

int pw_devices_can_access(int vendor, int dev, int peer)
{
	const struct pw_devset *s = pw_devices_get(vendor);
	if (!s || dev < 0 || peer < 0 || dev >= s->n || peer >= s->n)
		return -1;
	return dev == peer ? 1 : pw_devset_pair(s, dev, peer)->can_access;
}

void pw_devices_name(int vendor, int dev, char *buf, size_t len)
{
	const struct pw_devset *s = vendor >= 0 && vendor < PW_VENDOR_COUNT
	                                ? atomic_load_explicit(&V[vendor].set, memory_order_acquire)
	                                : NULL;
	if (!s || dev < 0 || dev >= s->n || !s->dev[dev].uuid[0]) {
		snprintf(buf, len, "device %d", dev);
		return;
	}
	const struct pw_dev_info *i = &s->dev[dev];
	if (i->bus_id[0])
		snprintf(buf, len, "device %d (%s, %s)", dev, i->uuid, i->bus_id);
	else
		snprintf(buf, len, "device %d (%s)", dev, i->uuid);
}

/* ---- text ---- */

void pw_devices_uuid_text(const unsigned char b[16], char *out, size_t len)
{
	bool ascii = true;
	for (int i = 0; i < 16 && ascii; i++)
		ascii = isxdigit(b[i]) != 0;
	if (ascii) {
		snprintf(out, len, "GPU-%.16s", (const char *)b);
		return;
	}
	snprintf(out, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
	         b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
	         b[15]);
}

void pw_devices_bus_text(const char *in, char *out, size_t len)
{
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;
	char tail;
	if (sscanf(in, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4)
		snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus & 0xff, dev & 0x1f, fn & 7);
	else
		snprintf(out, len, "%s", in);
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

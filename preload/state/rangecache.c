/* The allocation range cache: see rangecache.h for the design. */
#include "state/rangecache.h"
#include "core/forkgate.h"
#include "core/pw.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct entry {
	_Atomic uint64_t base, size;
	_Atomic uint64_t info; /* dev (low 32 bits, as uint32) | flags << 32 */
	_Atomic uint64_t id;
};

struct table {
	_Atomic unsigned long n;
	unsigned long cap;
	struct table *retired; /* older tables, kept for readers that may still search them */
	struct entry e[];
};

#define FIRST_CAP 256

/* The write counter: odd while a write is under way (rangecache.h). */
_Atomic uint64_t pw_range_seq;

static struct {
	_Atomic(struct table *) tab;
	pthread_mutex_t lock;
	uint64_t next_id;
} rc = {.lock = PTHREAD_MUTEX_INITIALIZER};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline uint64_t ld(_Atomic uint64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}
static inline void st(_Atomic uint64_t *p, uint64_t v)
{
	atomic_store_explicit(p, v, memory_order_relaxed);
}

/* Index of the last entry with base <= p, or -1 (reader or writer). */
static long floor_idx(struct table *t, unsigned long n, uint64_t p)
{
	long lo = 0, hi = (long)n - 1, found = -1;
	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		if (ld(&t->e[mid].base) <= p) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

PW_TLS struct pw_range_mru pw_range_mru[PW_RANGE_MRU];
static PW_TLS unsigned mru_next;

static inline void mru_out(unsigned k, struct pw_range *out)
{
	out->base = pw_range_mru[k].base;
	out->size = pw_range_mru[k].size;
	out->dev = (int32_t)(uint32_t)pw_range_mru[k].info;
	out->flags = (uint32_t)(pw_range_mru[k].info >> 32);
	out->id = pw_range_mru[k].id;
}

enum pw_range_res pw_range_find(uint64_t p, struct pw_range *out)
{
	for (int tries = 0; tries < PW_RANGE_TRIES; tries++) {
		uint64_t s0 = atomic_load_explicit(&pw_range_seq, memory_order_acquire);
		if (s0 & 1) {
			relax();
			continue;
		}
		for (unsigned k = 0; k < PW_RANGE_MRU; k++)
			if (pw_range_mru[k].seq == s0 + 1 &&
			    p - pw_range_mru[k].base < pw_range_mru[k].size) {
				mru_out(k, out);
				return PW_RANGE_HIT;
			}
		struct table *t = atomic_load_explicit(&rc.tab, memory_order_acquire);
		enum pw_range_res res = PW_RANGE_MISS;
		if (t) {
			unsigned long n = atomic_load_explicit(&t->n, memory_order_relaxed);
			if (n > t->cap)
				n = t->cap; /* a torn read: the counter check below throws it away */
			long i = floor_idx(t, n, p);
			if (i >= 0) {
				struct entry *e = &t->e[i];
				uint64_t base = ld(&e->base), size = ld(&e->size), info = ld(&e->info);
				if (p - base < size) {
					out->base = base;
					out->size = size;
					out->dev = (int32_t)(uint32_t)info;
					out->flags = (uint32_t)(info >> 32);
					out->id = ld(&e->id);
					res = PW_RANGE_HIT;
				}
			}
		}
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&pw_range_seq, memory_order_relaxed) == s0) {
			if (res == PW_RANGE_HIT) {
				/* +1: an even counter of 0 must not match the zeroed slots */
				unsigned k = mru_next++ % PW_RANGE_MRU;
				pw_range_mru[k].seq = s0 + 1;
				pw_range_mru[k].base = out->base;
				pw_range_mru[k].size = out->size;
				pw_range_mru[k].info = (uint64_t)(uint32_t)out->dev | (uint64_t)out->flags
				                                                          << 32;
				pw_range_mru[k].id = out->id;
			}
			return res;
		}
	}
	return PW_RANGE_BUSY;
}

uint64_t pw_range_version(void)
{
	return atomic_load_explicit(&pw_range_seq, memory_order_acquire) & ~(uint64_t)1;
}

#define NEG_SLOTS 8
static PW_TLS struct {
	uint64_t page, version;
} neg[NEG_SLOTS];

bool pw_range_neg_hit(uint64_t p)
{
	uint64_t page = (p >> 12) + 1;
	unsigned s = (unsigned)page % NEG_SLOTS;
	return neg[s].page == page && neg[s].version == pw_range_version();
}

void pw_range_neg_put(uint64_t p, uint64_t version)
{
	uint64_t page = (p >> 12) + 1;
	unsigned s = (unsigned)page % NEG_SLOTS;
	neg[s].page = page;
	neg[s].version = version;
}

/* Writers, with the lock held. */
static void write_begin(void)
{
	atomic_store_explicit(&pw_range_seq, ld(&pw_range_seq) + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static void write_end(void)
{
	atomic_store_explicit(&pw_range_seq, ld(&pw_range_seq) + 1, memory_order_release);
}

static void copy_entry(struct entry *d, struct entry *s)
{
	st(&d->base, ld(&s->base));
	st(&d->size, ld(&s->size));
	st(&d->info, ld(&s->info));
	st(&d->id, ld(&s->id));
}

/* A table with room for one more entry than t holds, or NULL (out of memory). */
static struct table *room(struct table *t)
{
	unsigned long n = t ? atomic_load_explicit(&t->n, memory_order_relaxed) : 0;
	if (t && n < t->cap)
		return t;
	unsigned long cap = t ? t->cap * 2 : FIRST_CAP;
	/* on a program's thread: see forkgate.h */
	struct table *nt = pw_fg_calloc(1, sizeof *nt + cap * sizeof(struct entry));
	if (!nt)
		return NULL;
	nt->cap = cap;
	nt->retired = t;
	for (unsigned long i = 0; i < n; i++)
		copy_entry(&nt->e[i], &t->e[i]);
	atomic_store_explicit(&nt->n, n, memory_order_relaxed);
	return nt;
}

/* Remove entries [i, j) of t (in a write section). */
static void cut(struct table *t, unsigned long i, unsigned long j)
{
	unsigned long n = atomic_load_explicit(&t->n, memory_order_relaxed);
	for (unsigned long k = j; k < n; k++)
		copy_entry(&t->e[i + k - j], &t->e[k]);
	atomic_store_explicit(&t->n, n - (j - i), memory_order_relaxed);
}

static uint64_t add_locked(uint64_t base, uint64_t size, int dev, unsigned flags)
{
	uint64_t end = base + size < base ? UINT64_MAX : base + size;
	struct table *t = atomic_load_explicit(&rc.tab, memory_order_relaxed);
	struct table *nt = room(t);
	write_begin();
	if (nt != t && nt)
		atomic_store_explicit(&rc.tab, nt, memory_order_release);
	struct table *w = nt ? nt : t;
	uint64_t id = 0;
	if (w) {
		unsigned long n = atomic_load_explicit(&w->n, memory_order_relaxed);
		/* first entry that ends after base; then all that start before end */
		long f = floor_idx(w, n, base);
		unsigned long i = f < 0 ? 0 : (unsigned long)f;
		if (f >= 0 && ld(&w->e[i].base) + ld(&w->e[i].size) <= base)
			i++;
		unsigned long j = i;
		while (j < n && ld(&w->e[j].base) < end)
			j++;
		if (j > i)
			cut(w, i, j);
		n = atomic_load_explicit(&w->n, memory_order_relaxed);
		if (nt && n < w->cap) {
			for (unsigned long k = n; k > i; k--)
				copy_entry(&w->e[k], &w->e[k - 1]);
			id = ++rc.next_id;
			st(&w->e[i].base, base);
			st(&w->e[i].size, end - base);
			st(&w->e[i].info, (uint64_t)(uint32_t)dev | (uint64_t)flags << 32);
			st(&w->e[i].id, id);
			atomic_store_explicit(&w->n, n + 1, memory_order_relaxed);
		}
	}
	write_end();
	return id;
}

uint64_t pw_range_add(uint64_t base, uint64_t size, int dev, unsigned flags)
{
	if (!size)
		return 0;
	pthread_mutex_lock(&rc.lock);
	uint64_t id = add_locked(base, size, dev, flags);
	pthread_mutex_unlock(&rc.lock);
	return id;
}

uint64_t pw_range_fill(uint64_t base, uint64_t size, int dev, unsigned flags, uint64_t version)
{
	if (!size)
		return 0;
	uint64_t id = 0;
	pthread_mutex_lock(&rc.lock);
	if (ld(&pw_range_seq) == version)
		id = add_locked(base, size, dev, flags);
	pthread_mutex_unlock(&rc.lock);
	return id;
}

static bool remove_locked(uint64_t base, uint64_t id, bool any)
{
	struct table *t = atomic_load_explicit(&rc.tab, memory_order_relaxed);
	bool found = false;
	write_begin(); /* even when nothing goes: a fill racing this free must not enter the range */
	if (t) {
		unsigned long n = atomic_load_explicit(&t->n, memory_order_relaxed);
		long i = floor_idx(t, n, base);
		if (i >= 0 && ld(&t->e[i].base) == base && (any || ld(&t->e[i].id) == id)) {
			cut(t, (unsigned long)i, (unsigned long)i + 1);
			found = true;
		}
	}
	write_end();
	return found;
}

bool pw_range_remove(uint64_t base)
{
	pthread_mutex_lock(&rc.lock);
	bool r = remove_locked(base, 0, true);
	pthread_mutex_unlock(&rc.lock);
	return r;
}

bool pw_range_remove_id(uint64_t base, uint64_t id)
{
	pthread_mutex_lock(&rc.lock);
	bool r = remove_locked(base, id, false);
	pthread_mutex_unlock(&rc.lock);
	return r;
}

unsigned long pw_range_count(void)
{
	pthread_mutex_lock(&rc.lock);
	struct table *t = atomic_load_explicit(&rc.tab, memory_order_relaxed);
	unsigned long n = t ? atomic_load_explicit(&t->n, memory_order_relaxed) : 0;
	pthread_mutex_unlock(&rc.lock);
	return n;
}

void pw_range_clear(void)
{
	pthread_mutex_lock(&rc.lock);
	struct table *t = atomic_load_explicit(&rc.tab, memory_order_relaxed);
	write_begin();
	if (t)
		atomic_store_explicit(&t->n, 0, memory_order_relaxed);
	write_end();
	pthread_mutex_unlock(&rc.lock);
}

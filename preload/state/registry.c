/*
 * The cross-process IPC registry (layout in registry.h).
 *
 * IPC spans processes: the exporter's free is the moment to say that another
 * process still maps the memory, and the importer's open the moment to say
 * that the exporter already freed it.  Neither process can see that alone, so
 * the processes of one run share a small table in POSIX shared memory, named
 * "/peerwatch.<uid>.<keyed hash of the run id>" and created 0600 by the first
 * of them.
 *
 * Other users: they can list /dev/shm and create names in it, but cannot
 * open our 0600 files.  A name they hold is never used: it is passed over
 * for the run's next name, which they cannot work out from the ones they
 * saw (keyed by the run id, 128 random bits unless the user chose it).
 *
 * Trust: the segment is writable by every process of the user, including
 * crashed, older or buggy ones, so nothing read from it is used unchecked:
 * openers verify owner, size, magic, version and a header checksum before
 * using it, and every pid, count and index read later is range-checked.  The
 * one thing that cannot be checked is the lock itself, which the C library
 * interprets; a process of the same user that scribbles on it (or truncates
 * the segment) could hurt us, but such a process could as well ptrace us.
 *
 * Concurrency: one process-shared, robust, error-checking mutex guards the
 * table.  A process that dies holding it leaves it to the next locker
 * (EOWNERDEAD), which goes on: a half-made update is no worse than corrupt
 * content, which every reader already survives.  The lock is taken with a
 * timeout, so a stuck or hostile holder turns the registry off for us rather
 * than hanging the program.  Within a process, calls pin the mapping through
 * a counter that close drains before munmap.
 *
 * Expiry: processes that die leave their pids behind; each pid is checked
 * with kill(pid, 0) where it matters (lookup, holders, a full table) and
 * dropped when dead; a process that has ended but is not yet reaped (a
 * zombie, for which kill succeeds) is dead too: /proc/<pid>/stat says so.  A process that closes the registry
 * (exit, exec) marks its exports gone and drops its holds at once.
 *
 * A segment that stays all zeros (its creator died between creating and
 * initialising it, or a file was made empty on purpose) is waited for
 * PW_REG_READY_TIMEOUT_MS by the first process that finds it, which then
 * replaces it: the others find the new one at once.
 *
 * Cleanup: every process that opens the segment records its pid in the attach
 * table.  The process that closes it when no other attached pid is alive
 * unlinks the name, after marking the segment unlinked so that an opener that
 * raced with it retries and creates a fresh one.  When the attach table is
 * full the segment is pinned and left for the launcher's watcher.  A run
 * whose processes all crashed leaves the segment (about 0.6 MiB) behind,
 * until the launcher's watcher, the next run's first process or peerwatch
 * --clean removes it ("stale segments" below); a later run of the same id
 * that comes first reuses it, its dead entries expiring as above.
 *
 * Calls after open allocate nothing and use no stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/runid.h"
#include "core/pw.h"
#include "state/registry.h"

/* A segment still uninitialised after this long is replaced (its creator
 * initialises it in microseconds after creating it). */
#define PW_REG_READY_TIMEOUT_MS 500
#define PW_REG_LOCK_TIMEOUT_S 5

_Static_assert((uint32_t)sizeof(struct pw_reg_segment) == sizeof(struct pw_reg_segment),
               "segment_bytes is 32-bit");

static struct {
	pthread_mutex_t open_lock; /* open and close within this process */
	struct pw_reg_segment *seg;
	atomic_bool broken;   /* the lock failed us: close must not wait on it */
	atomic_int users;     /* calls inside the mapping; close drains them */
	_Atomic int attached; /* the pid recorded in seg->attached (fork changes it) */
	atomic_bool exported; /* this process exported something: frees must look */
	atomic_bool warned_full, warned_holders, warned_links;
	dev_t dev;
	ino_t ino;
	char name[PW_REG_NAME_MAX];
	char run_id[256];
} R = {.open_lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- small helpers ---- */

/* Segment fields other processes may change under us: read each once. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static uint32_t header_checksum(const struct pw_reg_segment *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = pw_fnv1a(h, &s->magic, sizeof s->magic);
	h = pw_fnv1a(h, &s->version, sizeof s->version);
	h = pw_fnv1a(h, &s->segment_bytes, sizeof s->segment_bytes);
	h = pw_fnv1a(h, &s->entry_bytes, sizeof s->entry_bytes);
	h = pw_fnv1a(h, &s->n_entries, sizeof s->n_entries);
	h = pw_fnv1a(h, &s->n_holders, sizeof s->n_holders);
	h = pw_fnv1a(h, &s->n_attach, sizeof s->n_attach);
	h = pw_fnv1a(h, &s->pid_ns, sizeof s->pid_ns);
	return (uint32_t)(h ^ (h >> 32));
}

/* Whether /proc/<pid>/stat says the process has ended (zombie 'Z', dead
 * 'X'): kill(pid, 0) still succeeds until it is reaped, though it holds no
 * mapping any more.  The state is the first field after the ')' that ends
 * the command name (which may itself hold ')').  Unreadable: not known dead. */
static bool pid_ended(int32_t pid)
{
	char path[32] = "/proc/", digits[12], buf[512];
	int nd = 0;
	for (uint32_t v = (uint32_t)pid; v && nd < (int)sizeof digits; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	size_t len = strlen(path);
	while (nd)
		path[len++] = digits[--nd];
	memcpy(path + len, "/stat", 6); /* no stdio after open */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT; /* gone between kill() and here */
	ssize_t n;
	do
		n = read(fd, buf, sizeof buf - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ')
		return false;
	return paren[2] == 'Z' || paren[2] == 'X' || paren[2] == 'x';
}

/* kill(pid, 0) with the pid range-checked (0 and negative pids name
 * groups), and an ended process not yet reaped counted as dead. */
static bool pid_alive(int32_t pid)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) != 0 && errno != EPERM)
		return false;
	return !pid_ended(pid);
}

/* Pids are checked with kill(): processes in another pid namespace must not
 * share a segment, their pids name other processes here.  0: unknown. */
static uint64_t pid_namespace(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* ---- names and run ids ---- */

/*
 * The name must not tell another local user what the next one will be:
 * /dev/shm is world-listable, and a user who could create the name before
 * us (after the run's last process removed it, say) would push our run onto
 * per-process state.  So the name is a keyed hash (SipHash-2-4) of the
 * attempt number, keyed by the run id, which only the run's processes know
 * (their environment and their trace headers, both private to the user):
 * seeing one name says nothing about the next, and a name taken by another
 * user is passed over for the next attempt (PW_REG_NAMES of them).
 */
static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND                                                          \
	do {                                                              \
		v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32); \
		v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;                    \
		v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;                    \
		v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32); \
	} while (0)

/* SipHash-2-4 of one 64-bit word m under the key (k0, k1). */
static uint64_t siphash_word(uint64_t k0, uint64_t k1, uint64_t m)
{
	uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
	uint64_t b = 8ull << 56; /* the length, 8 bytes, in the last block */
	v3 ^= m;
	SIPROUND;
	SIPROUND;
	v0 ^= m;
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

int pw_registry_shm_name_n(const char *run_id, int attempt, char *buf, size_t len)
{
	if (!run_id || !*run_id || !buf || len < PW_REG_NAME_MAX || attempt < 0)
		return -1;
	size_t n = strlen(run_id);
	uint64_t k0 = pw_fnv1a(0xcbf29ce484222325ull, run_id, n);
	uint64_t k1 = pw_fnv1a(0x84222325cbf29ce4ull ^ n, run_id, n);
	uint64_t h = siphash_word(k0, k1, 0x7765727770000000ull + (uint64_t)attempt); /* "pwrew" + n */
	char *p = buf, *end = buf + len - 1;
	p = pw_put_str(p, end, "/peerwatch.");
	p = pw_put_uint(p, end, getuid(), 10, 1);
	p = pw_put_str(p, end, ".");
	p = pw_put_uint(p, end, h, 16, 16);
	*p = '\0';
	return 0;
}

int pw_registry_shm_name(const char *run_id, char *buf, size_t len)
{
	return pw_registry_shm_name_n(run_id, 0, buf, len);
}

/* ---- the lock and the per-call protocol ---- */

/*
 * gcc's ThreadSanitizer records a lock that pthread_mutex_timedlock took only
 * when the call returns 0, not when it returns EOWNERDEAD (its
 * pthread_mutex_lock interceptor handles both), and then reports our unlock
 * as the unlock of an unlocked mutex.  Under TSan we tell it the lock is ours.
 */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
static void tsan_owner_dead_locked(pthread_mutex_t *m)
{
	__tsan_mutex_pre_lock(m, __tsan_mutex_try_lock);
	__tsan_mutex_post_lock(m, __tsan_mutex_try_lock, 0);
}
#else
static void tsan_owner_dead_locked(pthread_mutex_t *m)
{
	(void)m;
}
#endif

/* Turn the registry off for this process after a failure mid-run. */
static void turn_off(const char *why)
{
	if (atomic_exchange(&pw_g.registry_active, false))
		pw_log("IPC registry %s: %s; cross-process IPC checks fall back to per-process state", R.name,
		       why);
}

static bool seg_lock(struct pw_reg_segment *s)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += PW_REG_LOCK_TIMEOUT_S;
	int r = pthread_mutex_timedlock(&s->lock, &ts);
	if (r == EOWNERDEAD) {
		/* Its holder died mid-update; content is range-checked anyway. */
		tsan_owner_dead_locked(&s->lock);
		pthread_mutex_consistent(&s->lock);
		return true;
	}
	if (r == 0)
		return true;
	if (r == EDEADLK) /* reentered from a signal handler: skip this call */
		return false;
	atomic_store(&R.broken, true);
	turn_off(r == ETIMEDOUT ? "its lock was held too long" : "its lock is unusable");
	return false;
}

static void seg_unlock(struct pw_reg_segment *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* Record pid in the attach table, so that close knows someone still uses it. */
static void attach_pid(struct pw_reg_segment *s, int32_t pid)
{
	int slot = -1;
	for (int i = 0; i < PW_REG_ATTACH; i++) {
		int32_t v = LOAD(s->attached[i]);
		if (v == pid)
			return;
		if (slot < 0 && v <= 0)
			slot = i;
	}
	for (int i = 0; slot < 0 && i < PW_REG_ATTACH; i++)
		if (!pid_alive(LOAD(s->attached[i])))
			slot = i;
	if (slot < 0) {
		s->pinned = 1; /* we cannot be counted: never unlink under us */
		return;
	}
	s->attached[slot] = pid;
}

/* A forked child's first call.  If the last registered user closed it
 * meanwhile, the name is gone and a new process would make another segment:
 * going on here would split the run in two, so this process falls back. */
static bool attach_child(struct pw_reg_segment *s, int32_t me)
{
	if (LOAD(s->unlinked)) {
		turn_off("it was removed by its last user before this forked process used it");
		return false;
	}
	attach_pid(s, me);
	atomic_store(&R.attached, me);
	return true;
}

struct call {
	struct pw_reg_segment *s;
	int32_t me;
	int saved_errno;
};

/* Enter the mapping and take the lock: false when the registry is off.  A
 * forked child records its own pid on its first call. */
static bool begin(struct call *c)
{
	c->s = NULL;
	c->saved_errno = errno;
	if (!atomic_load(&pw_g.registry_active))
		return false;
	atomic_fetch_add(&R.users, 1);
	if (!atomic_load(&pw_g.registry_active) || !seg_lock(R.seg)) {
		atomic_fetch_sub(&R.users, 1);
		return false;
	}
	c->s = R.seg;
	c->me = getpid();
	if (atomic_load(&R.attached) != c->me && !attach_child(c->s, c->me)) {
		seg_unlock(c->s);
		atomic_fetch_sub(&R.users, 1);
		c->s = NULL;
		return false;
	}
	return true;
}

static void end(struct call *c)
{
	if (c->s) {
		seg_unlock(c->s);
		atomic_fetch_sub(&R.users, 1);
	}
	errno = c->saved_errno;
}

/* ---- the table (all under the lock) ---- */

static uint32_t used_slots(const struct pw_reg_segment *s)
{
	uint32_t n = LOAD(s->hwm);
	return n > PW_REG_ENTRIES ? PW_REG_ENTRIES : n;
}

static bool entry_used(const struct pw_reg_entry *e)
{
	return LOAD(e->state) == PW_REG_USED;
}

static struct pw_reg_entry *find(struct pw_reg_segment *s, const unsigned char *handle)
{
	uint32_t n = used_slots(s);
	for (uint32_t i = 0; i < n; i++) {
		struct pw_reg_entry *e = &s->entries[i];
		if (entry_used(e) && memcmp(e->handle, handle, PW_IPC_HANDLE_BYTES) == 0)
			return e;
	}
	return NULL;
}

static bool holder_valid(const struct pw_reg_holder *h)
{
	return LOAD(h->pid) > 0 && LOAD(h->opens) > 0;
}

static void holder_clear(struct pw_reg_holder *h)
{
	h->pid = 0;
	h->opens = 0;
}

/* Drop the holds of dead processes; true if a live one other than me is left. */
static bool prune_holders(struct pw_reg_entry *e, int32_t me)
{
	bool live = false;
	for (int i = 0; i < PW_REG_HOLDERS; i++) {
		struct pw_reg_holder *h = &e->holders[i];
		int32_t pid = LOAD(h->pid);
		if (!holder_valid(h))
			holder_clear(h);
		else if (pid == me || pid_alive(pid))
			live = true;
		else
			holder_clear(h);
	}
	return live;
}

static bool exporter_alive(const struct pw_reg_entry *e, int32_t me)
{
	int32_t pid = LOAD(e->exporter_pid);
	if (LOAD(e->flags) & PW_REG_GONE)
		return false;
	return pid == me || pid_alive(pid);
}

static bool has_holder_slots(const struct pw_reg_entry *e)
{
	for (int i = 0; i < PW_REG_HOLDERS; i++)
		if (holder_valid(&e->holders[i]))
			return true;
	return false;
}

/* Nobody can use it any more: its allocation is gone (freed, or its exporter
 * is dead) and nobody alive maps it.  probe: may spend kill(2) calls to know. */
static bool reclaimable(struct pw_reg_entry *e, int32_t me, bool probe)
{
	if (!entry_used(e))
		return true;
	bool dead = LOAD(e->flags) & (PW_REG_FREED | PW_REG_GONE);
	if (!probe)
		return dead && !has_holder_slots(e);
	return (dead || !exporter_alive(e, me)) && !prune_holders(e, me);
}

/* The table is full: the oldest entry nobody can use, else NULL.  Never a
 * live one.  The cheap pass first, the one with system calls if it finds none. */
static struct pw_reg_entry *reclaim(struct pw_reg_segment *s, int32_t me)
{
	for (int probe = 0; probe < 2; probe++) {
		struct pw_reg_entry *best = NULL;
		for (int i = 0; i < PW_REG_ENTRIES; i++) {
			struct pw_reg_entry *e = &s->entries[i];
			if (reclaimable(e, me, probe) && (!best || LOAD(e->stamp) < LOAD(best->stamp)))
				best = e;
		}
		if (best)
			return best;
	}
	return NULL;
}

static struct pw_reg_entry *claim(struct pw_reg_segment *s, int32_t me)
{
	uint32_t n = used_slots(s);
	for (uint32_t i = 0; i < n; i++)
		if (!entry_used(&s->entries[i]))
			return &s->entries[i];
	if (n < PW_REG_ENTRIES) {
		s->hwm = n + 1;
		return &s->entries[n];
	}
	return reclaim(s, me);
}

static void fill(struct pw_reg_segment *s, struct pw_reg_entry *e, int32_t me, uint64_t base, uint64_t size,
                 int device, const char *uuid)
{
	memset(e->uuid, 0, sizeof e->uuid);
	if (uuid)
		snprintf(e->uuid, sizeof e->uuid, "%s", uuid);
	e->exporter_pid = me;
	e->device = device;
	e->base = base;
	e->size = size;
	e->flags = 0;
	e->stamp = ++s->stamp;
}

static void export_locked(struct pw_reg_segment *s, int32_t me, const unsigned char *handle, uint64_t base,
                          uint64_t size, int device, const char *uuid)
{
	struct pw_reg_entry *e = find(s, handle);
	if (e) {
		/* A new allocation behind a known handle: the old holds were of the old one. */
		bool same = !(LOAD(e->flags) & (PW_REG_FREED | PW_REG_GONE)) && LOAD(e->exporter_pid) == me;
		uint32_t named = same ? LOAD(e->flags) & PW_REG_NAMED : 0;
		if (!same)
			memset(e->holders, 0, sizeof e->holders);
		fill(s, e, me, base, size, device, uuid);
		e->flags |= named; /* the same export again: the processes named stay named */
		return;
	}
	e = claim(s, me);
	if (!e) {
		if (!atomic_exchange(&R.warned_full, true))
			pw_log("IPC registry %s is full (%d live exports): exports from now on are checked "
			       "per process only",
			       R.name, PW_REG_ENTRIES);
		return;
	}
	memset(e, 0, sizeof *e);
	memcpy(e->handle, handle, PW_IPC_HANDLE_BYTES);
	fill(s, e, me, base, size, device, uuid);
	e->state = PW_REG_USED;
}

/* ---- peer connections (all under the lock) ---- */

/* A UUID from the segment: NUL-ended within the field and printable. */
static bool uuid_ok(const char *u)
{
	for (size_t i = 0; i < PW_REG_UUID; i++) {
		if (!u[i])
			return i > 0;
		if (u[i] <= ' ' || u[i] >= 0x7f)
			return false;
	}
	return false;
}

static bool uuid_is(const char *field, const char *u)
{
	return uuid_ok(field) && !strcmp(field, u);
}

void pw_registry_peer(const char *a, const char *b, bool on)
{
	struct call c;
	if (!a || !b || !a[0] || !b[0] || strlen(a) >= PW_REG_UUID || strlen(b) >= PW_REG_UUID || !begin(&c))
		return;
	struct pw_reg_link *mine = NULL, *free_slot = NULL;
	for (int i = 0; i < PW_REG_LINKS; i++) {
		struct pw_reg_link *l = &c.s->links[i];
		int32_t pid = LOAD(l->pid);
		if (pid == c.me && uuid_is(l->a, a) && uuid_is(l->b, b))
			mine = l;
		else if (!free_slot && (pid <= 0 || (pid != c.me && !pid_alive(pid))))
			free_slot = l;
	}
	if (!on && mine) {
		mine->pid = 0;
	} else if (on && !mine && free_slot) {
		memset(free_slot, 0, sizeof *free_slot);
		snprintf(free_slot->a, sizeof free_slot->a, "%s", a);
		snprintf(free_slot->b, sizeof free_slot->b, "%s", b);
		free_slot->pid = c.me;
	} else if (on && !mine && !atomic_exchange(&R.warned_links, true)) {
		pw_log("IPC registry %s: %d peer connections recorded already; the peer limit is counted per "
		       "process from now on",
		       R.name, PW_REG_LINKS);
	}
	end(&c);
}

int pw_registry_peers_of(const char *uuid, char (*out)[PW_REG_UUID], int max)
{
	struct call c;
	int n = 0;
	if (!uuid || !uuid[0] || !begin(&c))
		return 0;
	for (int i = 0; i < PW_REG_LINKS && n < max; i++) {
		const struct pw_reg_link *l = &c.s->links[i];
		int32_t pid = LOAD(l->pid);
		if (pid <= 0 || pid == c.me || !uuid_ok(l->a) || !uuid_ok(l->b) || !pid_alive(pid))
			continue;
		const char *other = !strcmp(l->a, uuid) ? l->b : !strcmp(l->b, uuid) ? l->a : NULL;
		if (!other || !strcmp(other, uuid))
			continue;
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(out[k], other);
		if (!seen)
			snprintf(out[n++], PW_REG_UUID, "%s", other);
	}
	end(&c);
	return n;
}

/* ---- the API ---- */

bool pw_registry_active(void)
{
	return atomic_load(&pw_g.registry_active);
}

void pw_registry_export_dev(const unsigned char *handle, uint64_t base, uint64_t size, int device,
                            const char *uuid)
{
	struct call c;
	if (!handle)
		return;
	atomic_store(&R.exported, true);
	if (begin(&c))
		export_locked(c.s, c.me, handle, base, size, device, uuid);
	end(&c);
}

void pw_registry_export(const unsigned char *handle, uint64_t base, uint64_t size, int device)
{
	pw_registry_export_dev(handle, base, size, device, NULL);
}

int pw_registry_lookup(const unsigned char *handle, struct pw_reg_export *out)
{
	struct call c;
	int found = 0;
	if (handle && out && begin(&c)) {
		struct pw_reg_entry *e = find(c.s, handle);
		if (e) {
			prune_holders(e, c.me);
			out->exporter_pid = LOAD(e->exporter_pid);
			out->exporter_alive = exporter_alive(e, c.me);
			out->freed = (LOAD(e->flags) & PW_REG_FREED) != 0;
			out->trust_list = (LOAD(e->flags) & PW_REG_TRUST) != 0;
			out->trust_named = (LOAD(e->flags) & PW_REG_NAMED) != 0;
			out->base = LOAD(e->base);
			out->size = LOAD(e->size);
			out->device = LOAD(e->device);
			/* another process wrote it: take only a NUL-ended UUID of printable characters */
			size_t n = 0;
			while (n < sizeof e->uuid && e->uuid[n] > ' ' && e->uuid[n] < 0x7f)
				n++;
			if (n < sizeof e->uuid && !e->uuid[n]) {
				memcpy(out->uuid, e->uuid, n);
				out->uuid[n] = 0;
			} else {
				out->uuid[0] = 0;
			}
			found = 1;
		}
		end(&c);
	}
	return found;
}

/* My slot in e, else a free one (after dropping the dead), else NULL. */
static struct pw_reg_holder *holder_slot(struct pw_reg_entry *e, int32_t me, bool take)
{
	for (int i = 0; i < PW_REG_HOLDERS; i++)
		if (LOAD(e->holders[i].pid) == me && holder_valid(&e->holders[i]))
			return &e->holders[i];
	if (!take)
		return NULL;
	prune_holders(e, me);
	for (int i = 0; i < PW_REG_HOLDERS; i++)
		if (!holder_valid(&e->holders[i]))
			return &e->holders[i];
	return NULL;
}

void pw_registry_opened(const unsigned char *handle)
{
	struct call c;
	if (!handle || !begin(&c))
		return;
	struct pw_reg_entry *e = find(c.s, handle);
	struct pw_reg_holder *h = e ? holder_slot(e, c.me, true) : NULL;
	if (h) {
		int32_t opens = holder_valid(h) ? LOAD(h->opens) : 0; /* mine, or a free slot */
		h->pid = c.me;
		h->opens = opens < INT32_MAX ? opens + 1 : opens;
	} else if (e && !atomic_exchange(&R.warned_holders, true)) {
		pw_log("IPC registry %s: a handle is open in %d processes already; further opens of it are "
		       "checked per process only",
		       R.name, PW_REG_HOLDERS);
	}
	end(&c);
}

void pw_registry_closed(const unsigned char *handle)
{
	struct call c;
	if (!handle || !begin(&c))
		return;
	struct pw_reg_entry *e = find(c.s, handle);
	struct pw_reg_holder *h = e ? holder_slot(e, c.me, false) : NULL;
	if (h) {
		int32_t opens = LOAD(h->opens);
		if (opens <= 1)
			holder_clear(h);
		else
			h->opens = opens - 1;
	}
	end(&c);
}

/* Mine, not freed, of the allocation at base. */
static bool my_live_export(const struct pw_reg_entry *e, int32_t me, uint64_t base)
{
	return entry_used(e) && LOAD(e->exporter_pid) == me &&
	       !(LOAD(e->flags) & (PW_REG_FREED | PW_REG_GONE)) && LOAD(e->base) == base;
}

struct pid_set {
	int *out;
	int max, count, nseen;
	int32_t seen[4 * PW_REG_HOLDERS];
};

/* Count pid once (as far as the seen list reaches), reporting up to max. */
static void pid_set_add(struct pid_set *p, int32_t pid)
{
	for (int i = 0; i < p->nseen; i++)
		if (p->seen[i] == pid)
			return;
	if (p->nseen < (int)(sizeof p->seen / sizeof p->seen[0]))
		p->seen[p->nseen++] = pid;
	if (p->out && p->count < p->max)
		p->out[p->count] = pid;
	p->count++;
}

static void collect_holders(struct pw_reg_entry *e, int32_t me, struct pid_set *p)
{
	for (int i = 0; i < PW_REG_HOLDERS; i++) {
		struct pw_reg_holder *h = &e->holders[i];
		int32_t pid = LOAD(h->pid);
		if (!holder_valid(h) || pid == me)
			continue;
		if (pid_alive(pid))
			pid_set_add(p, pid);
		else
			holder_clear(h); /* died without closing: its mapping went with it */
	}
}

int pw_registry_holders(uint64_t base, int *pids, int max)
{
	struct call c;
	struct pid_set p = {.out = pids, .max = max < 0 ? 0 : max};
	/* The free path of a process that never exported stays off the segment. */
	if (!atomic_load(&R.exported) || !begin(&c))
		return 0;
	uint32_t n = used_slots(c.s);
	for (uint32_t i = 0; i < n; i++)
		if (my_live_export(&c.s->entries[i], c.me, base))
			collect_holders(&c.s->entries[i], c.me, &p);
	end(&c);
	return p.count;
}

void pw_registry_freed(uint64_t base)
{
	struct call c;
	if (!atomic_load(&R.exported) || !begin(&c))
		return;
	uint32_t n = used_slots(c.s);
	for (uint32_t i = 0; i < n; i++)
		if (my_live_export(&c.s->entries[i], c.me, base))
			c.s->entries[i].flags |= PW_REG_FREED;
	end(&c);
}

/* This process released the allocation its export under handle named (VMM:
 * the key is built from the shareable handle, vmm_state.h): marked freed. */
void pw_registry_freed_handle(const unsigned char *handle)
{
	struct call c;
	if (!atomic_load(&R.exported) || !begin(&c))
		return;
	struct pw_reg_entry *e = find(c.s, handle);
	if (e && LOAD(e->exporter_pid) == c.me)
		e->flags |= PW_REG_FREED;
	end(&c);
}

static void mark_mine(const unsigned char *handle, uint32_t bits)
{
	struct call c;
	if (!handle || !atomic_load(&R.exported) || !begin(&c))
		return;
	struct pw_reg_entry *e = find(c.s, handle);
	if (e && LOAD(e->exporter_pid) == c.me && !(LOAD(e->flags) & (PW_REG_FREED | PW_REG_GONE)))
		e->flags |= bits;
	end(&c);
}

void pw_registry_trust_list(const unsigned char *handle)
{
	mark_mine(handle, PW_REG_TRUST);
}

void pw_registry_trust_named(const unsigned char *handle)
{
	mark_mine(handle, PW_REG_NAMED);
}

/* ---- open ---- */

static int refuse(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(const char *name, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	pw_log("IPC registry %s: %s; cross-process IPC checks fall back to per-process state", name, why);
	return -1;
}

static void init_segment(struct pw_reg_segment *s)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	/* Error-checking: a signal handler reentering us gets EDEADLK, not a hang. */
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&s->lock, &a);
	pthread_mutexattr_destroy(&a);
	s->magic = PW_REG_MAGIC;
	s->version = PW_REG_VERSION;
	s->segment_bytes = sizeof *s;
	s->entry_bytes = sizeof s->entries[0];
	s->n_entries = PW_REG_ENTRIES;
	s->n_holders = PW_REG_HOLDERS;
	s->n_attach = PW_REG_ATTACH;
	s->pid_ns = pid_namespace();
	s->checksum = header_checksum(s);
	s->creator_pid = getpid();
	/* Recorded before anyone can see it: a sweep (pw_registry_sweep) that
	 * finds it between ready and our join must see it in use. */
	s->attached[0] = getpid();
	/* Openers use nothing before they see this. */
	atomic_store_explicit(&s->ready, PW_REG_READY, memory_order_release);
}

static struct pw_reg_segment *map(int fd)
{
	void *p = mmap(NULL, sizeof(struct pw_reg_segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* What opening one name came to.  OPEN_TAKEN: the name is not ours to use
 * (another user's file, a symbolic link, not a regular file): the run's
 * next name is tried. */
enum { OPEN_OK = 0, OPEN_FAIL = -1, OPEN_TAKEN = -2, OPEN_STALE = -3 };

/* We won the O_EXCL race: size it, map it, initialize it.  A file-size
 * limit (ulimit -f) below the segment's size fails ftruncate with EFBIG and
 * raises SIGXFSZ, which must not reach the program. */
static struct pw_reg_segment *create(int fd, const char *name)
{
	struct stat st;
	struct pw_reg_segment *s = NULL;
	struct pw_sigguard g;
	pw_sig_block(&g);
	int r = ftruncate(fd, sizeof *s);
	int e = r ? errno : 0;
	pw_sig_restore(&g, e);
	errno = e;
	if (r != 0 || fstat(fd, &st) != 0 || !(s = map(fd))) {
		e = errno;
		shm_unlink(name); /* openers would wait on it in vain */
		if (e == EFBIG)
			refuse(name, "the file-size limit (ulimit -f) is below its %zu bytes", sizeof *s);
		else
			refuse(name, "cannot size or map a new segment: %s", strerror(e));
		return NULL;
	}
	R.dev = st.st_dev;
	R.ino = st.st_ino;
	init_segment(s);
	return s;
}

/* The creator may not have sized it yet: wait for a size, briefly. */
static int stat_sized(int fd, struct stat *st, uint64_t deadline)
{
	for (;;) {
		if (fstat(fd, st) != 0)
			return -1;
		if (st->st_size != 0 || pw_now_ns() > deadline)
			return 0;
		sleep_ms(1);
	}
}

static int check_file(int fd, const char *name, uint64_t deadline, const char **taken)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return refuse(name, "fstat: %s", strerror(errno));
	/* Another user's file under our name, or no file (a pipe, a directory):
	 * never used, the next name is tried. */
	if (st.st_uid != getuid()) {
		*taken = "another user's file";
		return OPEN_TAKEN;
	}
	if (!S_ISREG(st.st_mode)) {
		*taken = "something that is not a regular file";
		return OPEN_TAKEN;
	}
	if (st.st_mode & 077)
		return refuse(name, "mode %o: not a private segment", (unsigned)st.st_mode);
	if (stat_sized(fd, &st, deadline) != 0)
		return refuse(name, "fstat: %s", strerror(errno));
	if (st.st_size == 0)
		return OPEN_STALE; /* its creator died before sizing it */
	if (st.st_size != (off_t)sizeof(struct pw_reg_segment))
		return refuse(name, "size %lld, expected %zu (corrupt, or another peerwatch version)",
		              (long long)st.st_size, sizeof(struct pw_reg_segment));
	R.dev = st.st_dev;
	R.ino = st.st_ino;
	return OPEN_OK;
}

/* The creator publishes 'ready' last.  Until then every field it wrote holds
 * its final value or zero, so anything else is garbage, known at once; all
 * zeros past the deadline is a segment nobody will initialise. */
static int wait_ready(const struct pw_reg_segment *s, const char *name, uint64_t deadline)
{
	for (;;) {
		uint32_t r = atomic_load_explicit(&s->ready, memory_order_acquire);
		uint64_t magic = LOAD(s->magic);
		if (r == PW_REG_READY)
			return OPEN_OK;
		if (r != 0 || (magic != 0 && magic != PW_REG_MAGIC))
			return refuse(name, "corrupt header (not a peerwatch registry)");
		if (pw_now_ns() > deadline)
			return OPEN_STALE;
		sleep_ms(1);
	}
}

/* What is wrong with a ready segment's header for this build, or NULL. */
static const char *header_fault(const struct pw_reg_segment *s)
{
	if (s->magic != PW_REG_MAGIC)
		return "bad magic: not a peerwatch registry";
	if (s->version != PW_REG_VERSION)
		return "version";
	if (s->checksum != header_checksum(s))
		return "header checksum mismatch: corrupt";
	if (s->segment_bytes != sizeof *s || s->entry_bytes != sizeof s->entries[0] ||
	    s->n_entries != PW_REG_ENTRIES || s->n_holders != PW_REG_HOLDERS || s->n_attach != PW_REG_ATTACH)
		return "layout differs from this build's";
	if (s->pid_ns != pid_namespace())
		return "made in another pid namespace, whose pids mean other processes here";
	return NULL;
}

static int check_header(const struct pw_reg_segment *s, const char *name)
{
	const char *fault = header_fault(s);
	if (!fault)
		return OPEN_OK;
	if (s->magic == PW_REG_MAGIC && s->version != PW_REG_VERSION)
		return refuse(name, "version %u, this peerwatch uses %u", s->version, PW_REG_VERSION);
	return refuse(name, "%s", fault);
}

/* Someone else created it: trust nothing until checked. */
static int attach_existing(int fd, const char *name, struct pw_reg_segment **out, const char **taken)
{
	uint64_t deadline = pw_now_ns() + PW_REG_READY_TIMEOUT_MS * 1000000ull;
	int r = check_file(fd, name, deadline, taken);
	if (r != OPEN_OK)
		return r;
	struct pw_reg_segment *s = map(fd);
	if (!s) {
		refuse(name, "mmap: %s", strerror(errno));
		return OPEN_FAIL;
	}
	r = wait_ready(s, name, deadline);
	if (r == OPEN_OK)
		r = check_header(s, name);
	if (r != OPEN_OK) {
		munmap(s, sizeof *s);
		return r;
	}
	*out = s;
	return OPEN_OK;
}

/* Unlink name only if it still names the file (dev, ino): someone may have
 * replaced it meanwhile. */
static void unlink_if_same(const char *name, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd = shm_open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	bool same = fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
	close(fd);
	if (same)
		shm_unlink(name);
}

static void unlink_if_ours(void)
{
	unlink_if_same(R.name, R.dev, R.ino);
}

/* Lock it and record our pid, unless its last user removed it meanwhile
 * (then the name is gone, or its remover died before removing it: finish). */
static int join(struct pw_reg_segment *s, const char *name)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += PW_REG_LOCK_TIMEOUT_S;
	int r = pthread_mutex_timedlock(&s->lock, &ts);
	if (r == EOWNERDEAD) {
		tsan_owner_dead_locked(&s->lock);
		pthread_mutex_consistent(&s->lock);
	} else if (r != 0)
		return refuse(name, "cannot take its lock (error %d)", r);
	int gone = LOAD(s->unlinked) != 0;
	if (gone)
		unlink_if_ours();
	else
		attach_pid(s, getpid());
	pthread_mutex_unlock(&s->lock);
	return gone ? 1 : 0;
}

/* Create the segment called name, or open the one another process of the run
 * created (*created says which).  OPEN_TAKEN: the name is not ours to use,
 * *taken says what holds it. */
static int open_segment(const char *name, struct pw_reg_segment **out, bool *created, const char **taken)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		struct pw_reg_segment *s = NULL;
		int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			s = create(fd, name);
			close(fd);
			if (!s)
				return OPEN_FAIL;
			int j = join(s, name);
			if (j == 0) {
				*out = s;
				*created = true;
				return OPEN_OK;
			}
			munmap(s, sizeof *s);
			if (j < 0)
				return OPEN_FAIL;
			continue; /* removed before we joined it: afresh */
		}
		if (errno != EEXIST)
			return refuse(name, "shm_open: %s", strerror(errno));
		fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd < 0 && errno == ENOENT)
			continue; /* its last user removed it just now */
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			*taken = "another user's file"; /* mode 0600 */
			return OPEN_TAKEN;
		}
		if (fd < 0 && errno == ELOOP) {
			*taken = "a symbolic link"; /* never followed: it could lead anywhere */
			return OPEN_TAKEN;
		}
		/* glibc says EINVAL for a directory; ENXIO: a socket */
		if (fd < 0 && (errno == EISDIR || errno == EINVAL || errno == ENXIO)) {
			*taken = "something that is not a regular file";
			return OPEN_TAKEN;
		}
		if (fd < 0)
			return refuse(name, "shm_open: %s", strerror(errno));
		struct stat st;
		int r = attach_existing(fd, name, &s, taken);
		bool stat_ok = r == OPEN_STALE && fstat(fd, &st) == 0;
		close(fd);
		if (r == OPEN_STALE) {
			/* Nobody will initialise it (its creator died making it, or it
			 * was made empty on purpose): replace it, once waited for. */
			pw_log("IPC registry %s was never initialised (%d ms waited: its creator died making "
			       "it?): replacing it",
			       name, PW_REG_READY_TIMEOUT_MS);
			if (stat_ok)
				unlink_if_same(name, st.st_dev, st.st_ino);
			continue;
		}
		if (r != OPEN_OK)
			return r;
		int j = join(s, name);
		if (j == 0) {
			*out = s;
			return OPEN_OK;
		}
		munmap(s, sizeof *s);
		if (j < 0)
			return OPEN_FAIL;
	}
	return refuse(name, "it keeps being removed or replaced while we open it");
}

/* ---- close ---- */

/* Wait for calls in flight to leave the mapping; false if one never does. */
static bool drain(void)
{
	for (int i = 0; i < (PW_REG_LOCK_TIMEOUT_S + 1) * 1000; i++) {
		if (atomic_load(&R.users) == 0)
			return true;
		sleep_ms(1);
	}
	return false;
}

static bool other_attached_alive(const struct pw_reg_segment *s, int32_t me)
{
	for (int i = 0; i < PW_REG_ATTACH; i++) {
		int32_t pid = LOAD(s->attached[i]);
		if (pid != me && pid_alive(pid))
			return true;
	}
	return false;
}

/* Our exports end with us (exit or exec takes the allocations), so do our maps. */
static void forget_me(struct pw_reg_segment *s, int32_t me)
{
	for (int i = 0; i < PW_REG_LINKS; i++)
		if (LOAD(s->links[i].pid) == me)
			s->links[i].pid = 0;
	uint32_t n = used_slots(s);
	for (uint32_t i = 0; i < n; i++) {
		struct pw_reg_entry *e = &s->entries[i];
		if (entry_used(e) && LOAD(e->exporter_pid) == me)
			e->flags |= PW_REG_GONE;
		for (int k = 0; k < PW_REG_HOLDERS; k++)
			if (LOAD(e->holders[k].pid) == me)
				holder_clear(&e->holders[k]);
	}
	for (int i = 0; i < PW_REG_ATTACH; i++)
		if (LOAD(s->attached[i]) == me)
			s->attached[i] = 0;
}

static void leave_segment(struct pw_reg_segment *s)
{
	int32_t me = getpid();
	forget_me(s, me);
	if (LOAD(s->pinned) || LOAD(s->unlinked) || other_attached_alive(s, me))
		return;
	/* Openers that already hold a descriptor see this and start afresh. */
	s->unlinked = 1;
	unlink_if_ours();
}

static void close_locked(void)
{
	struct pw_reg_segment *s = R.seg;
	if (!s)
		return;
	atomic_store(&pw_g.registry_active, false);
	if (!drain())
		return; /* a call never left: leaking the mapping is the safe choice */
	if (!atomic_load(&R.broken) && seg_lock(s)) {
		leave_segment(s);
		seg_unlock(s);
	}
	munmap(s, sizeof *s);
	R.seg = NULL;
}

void pw_registry_close(void)
{
	int saved = errno;
	pthread_mutex_lock(&R.open_lock);
	close_locked();
	pthread_mutex_unlock(&R.open_lock);
	errno = saved;
}

/* ---- stale segments ---- */

/*
 * A run whose processes were all killed leaves its segment behind: none of
 * them lived to close it.  Three things remove such segments, all through
 * reap_at below: the launcher's watcher (scripts/peerwatch-reap.c), once the
 * run's processes are gone; the process that creates a run's segment, for
 * the user's other segments, so that a run started by hand is cleaned up by
 * the next run; and peerwatch --clean.
 *
 * Only a segment nobody uses may go.  The attach table holds every process
 * that opened it, by pid; a pid counts while it is alive and its process
 * maps the segment's file (the device and inode in /proc/<pid>/maps): a pid
 * alone may name an unrelated process by now.  (The table holds no start
 * times: its layout is an ABI between builds, kept so that the segments
 * earlier builds left are cleaned up too; and a mapping is the better proof.)
 * A pinned segment, whose table overflowed, is used while any process of the
 * user maps it (those whose maps we may not read, non-dumpable ones such as
 * ssh-agent, left out: or one would keep every pinned segment).  What cannot
 * be told counts as used and is passed over: a lock someone holds, the maps
 * of a recorded pid that we may not read, a segment of another version or
 * pid namespace.  Another user's file, a link or anything but a regular
 * file under such a name is never opened.  Removing is what close does:
 * under the lock, mark it unlinked (an opener that raced with us starts
 * afresh) and unlink the name if it still names the same file.
 */

#define PW_SHM_DIR "/dev/shm"

/* "/proc/<pid><tail>" into buf. */
static void proc_path(char *buf, size_t len, int32_t pid, const char *tail)
{
	char *p = buf, *end = buf + len - 1;
	p = pw_put_str(p, end, "/proc/");
	p = pw_put_uint(p, end, (uint32_t)pid, 10, 1);
	p = pw_put_str(p, end, tail);
	*p = '\0';
}

/* A /proc/<pid>/maps line, a byte at a time: its fields are the range,
 * permissions, offset, device (major:minor, hex), inode (decimal), path. */
struct maps_line {
	int field;
	bool gap, colon;
	uint64_t major, minor, inode;
};

static bool maps_line_is(const struct maps_line *m, dev_t dev, ino_t ino)
{
	return m->field == 4 && m->major == major(dev) && m->minor == minor(dev) && m->inode == (uint64_t)ino;
}

/* Feed one byte; true when it ends the inode field of a line that names the file. */
static bool maps_byte(struct maps_line *m, char c, dev_t dev, ino_t ino)
{
	bool hit = false;
	if (c == '\n') {
		hit = maps_line_is(m, dev, ino);
		memset(m, 0, sizeof *m);
		return hit;
	}
	if (m->field > 4)
		return false;
	if (c == ' ') {
		if (!m->gap) {
			hit = maps_line_is(m, dev, ino);
			m->field++;
		}
		m->gap = true;
		return hit;
	}
	m->gap = false;
	if (m->field == 3 && c == ':') {
		m->colon = true;
	} else if (m->field == 3) {
		unsigned v = c >= 'a' ? (unsigned)(c - 'a' + 10) : (unsigned)(c - '0');
		if (m->colon)
			m->minor = m->minor * 16 + (v & 15);
		else
			m->major = m->major * 16 + (v & 15);
	} else if (m->field == 4) {
		m->inode = m->inode * 10 + (unsigned)(c - '0') % 10;
	}
	return false;
}

/* Whether process pid maps the file (dev, ino).  A process that is gone does
 * not; one whose maps we may not read (a non-dumpable one) is taken to map
 * it when unreadable says so. */
static bool pid_maps(int32_t pid, dev_t dev, ino_t ino, bool unreadable)
{
	char path[48], buf[4096];
	proc_path(path, sizeof path, pid, "/maps");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return unreadable && errno != ENOENT && errno != ESRCH;
	struct maps_line m = {0};
	bool hit = false;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			hit = unreadable && errno != ESRCH;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && !hit; i++)
			hit = maps_byte(&m, buf[i], dev, ino);
		if (hit)
			break;
	}
	close(fd);
	return hit;
}

struct raw_dirent { /* what getdents64 fills in */
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* fn(dfd, name, arg) for each entry of the directory dfd until it returns
 * true (1); 0 at the end, -1 if the directory cannot be read.  No malloc:
 * a forked child may sweep. */
static int each_entry(int dfd, bool (*fn)(int dfd, const char *name, void *arg), void *arg)
{
	_Alignas(8) char buf[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			const struct raw_dirent *d = (const struct raw_dirent *)(const void *)(buf + off);
			if (d->reclen == 0 || off + d->reclen > n)
				return -1;
			off += d->reclen;
			if (fn(dfd, d->name, arg))
				return 1;
		}
	}
}

struct mapper {
	dev_t dev;
	ino_t ino;
	int32_t pid;
};

static bool find_mapper(int dfd, const char *name, void *arg)
{
	(void)dfd;
	struct mapper *m = arg;
	uint64_t pid = 0;
	for (const char *c = name; *c; c++) {
		if (*c < '0' || *c > '9' || pid > INT32_MAX / 10)
			return false;
		pid = pid * 10 + (uint64_t)(*c - '0');
	}
	/* kill() refuses another user's process, which cannot map our 0600
	 * file; one whose maps we may not read (ssh-agent, say) is passed over */
	if (pid == 0 || pid > INT32_MAX || (int32_t)pid == getpid() || kill((pid_t)pid, 0) != 0 ||
	    pid_ended((int32_t)pid) || !pid_maps((int32_t)pid, m->dev, m->ino, false))
		return false;
	m->pid = (int32_t)pid;
	return true;
}

/* A process of the user's, not us, that maps the file: its pid; 0: none;
 * -1: it cannot be told. */
static int32_t any_mapper(dev_t dev, ino_t ino)
{
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct mapper m = {.dev = dev, .ino = ino};
	int r = each_entry(dfd, find_mapper, &m);
	close(dfd);
	return r < 0 ? -1 : m.pid;
}

/* Who uses the segment (dev, ino): a pid, 0 nobody, -1 someone unknown. */
static int32_t segment_user(const struct pw_reg_segment *s, dev_t dev, ino_t ino)
{
	if (LOAD(s->pinned))
		return any_mapper(dev, ino);
	for (int i = 0; i < PW_REG_ATTACH; i++) {
		int32_t pid = LOAD(s->attached[i]);
		if (pid_alive(pid) && pid_maps(pid, dev, ino, true))
			return pid;
	}
	return 0;
}

/* Whether name is "peerwatch.<our uid>.<16 hex digits>", a name of ours in
 * /dev/shm. */
static bool our_name(const char *name)
{
	char want[40], *p = want;
	p = pw_put_str(p, want + sizeof want - 1, "peerwatch.");
	p = pw_put_uint(p, want + sizeof want - 1, getuid(), 10, 1);
	p = pw_put_str(p, want + sizeof want - 1, ".");
	size_t n = (size_t)(p - want);
	if (strncmp(name, want, n) != 0 || strlen(name + n) != 16)
		return false;
	for (const char *c = name + n; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return false;
	return true;
}

/* 0 with the lock taken (its holder may have died: consistent again), or
 * the error: EBUSY or ETIMEDOUT while someone holds it. */
static int reap_lock(struct pw_reg_segment *s, bool wait)
{
	int r;
	if (wait) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += PW_REG_LOCK_TIMEOUT_S;
		r = pthread_mutex_timedlock(&s->lock, &ts);
		if (r == EOWNERDEAD)
			tsan_owner_dead_locked(&s->lock);
	} else {
		r = pthread_mutex_trylock(&s->lock);
	}
	if (r == EOWNERDEAD) {
		pthread_mutex_consistent(&s->lock);
		r = 0;
	}
	return r;
}

static bool unlink_at_if_same(int dfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != dev || st.st_ino != ino)
		return false;
	return unlinkat(dfd, name, 0) == 0;
}

/* The segment name (no '/') in the directory dfd: removed if it is a
 * registry of this user, build and pid namespace that nobody uses. */
static enum pw_reap reap_at(int dfd, const char *name, bool wait, int *live, uint64_t *bytes)
{
	struct stat st, st2;
	*live = 0;
	*bytes = 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? PW_REAP_ABSENT : PW_REAP_OTHER;
	if (st.st_uid != getuid() || !S_ISREG(st.st_mode))
		return PW_REAP_FOREIGN; /* not ours to open: another user's, a link, a pipe */
	if ((st.st_mode & 077) || st.st_size != (off_t)sizeof(struct pw_reg_segment))
		return PW_REAP_OTHER;
	if (R.seg && st.st_dev == R.dev && st.st_ino == R.ino) {
		*live = getpid(); /* our own */
		return PW_REAP_LIVE;
	}
	int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? PW_REAP_ABSENT : PW_REAP_OTHER;
	struct pw_reg_segment *s = NULL;
	if (fstat(fd, &st2) == 0 && st2.st_dev == st.st_dev && st2.st_ino == st.st_ino &&
	    st2.st_size == st.st_size)
		s = map(fd);
	close(fd);
	if (!s)
		return PW_REAP_OTHER;
	enum pw_reap r = PW_REAP_OTHER;
	if (atomic_load_explicit(&s->ready, memory_order_acquire) == PW_REG_READY && !header_fault(s)) {
		int l = reap_lock(s, wait);
		if (l == EBUSY || l == ETIMEDOUT) {
			r = PW_REAP_LIVE; /* someone is in it */
		} else if (l == 0) {
			/* marked unlinked: its last user died removing it */
			int32_t user = LOAD(s->unlinked) ? 0 : segment_user(s, st.st_dev, st.st_ino);
			if (user != 0) {
				*live = user > 0 ? user : 0;
				r = PW_REAP_LIVE;
			} else {
				s->unlinked = 1;
				if (unlink_at_if_same(dfd, name, st.st_dev, st.st_ino)) {
					*bytes = (uint64_t)st.st_size;
					r = PW_REAP_REMOVED;
				}
			}
			pthread_mutex_unlock(&s->lock);
		}
	}
	munmap(s, sizeof *s);
	return r;
}

enum pw_reap pw_registry_reap(const char *name, bool wait, int *live, uint64_t *bytes)
{
	int saved = errno;
	uint64_t b = 0;
	int l = 0;
	enum pw_reap r = PW_REAP_ABSENT;
	if (name && *name == '/')
		name++;
	if (name && *name && !strchr(name, '/')) {
		int dfd = open(PW_SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			r = reap_at(dfd, name, wait, &l, &b);
			close(dfd);
		} else if (errno != ENOENT) {
			r = PW_REAP_OTHER;
		}
	}
	if (live)
		*live = l;
	if (bytes)
		*bytes = b;
	errno = saved;
	return r;
}

struct sweep {
	bool wait;
	struct pw_reg_sweep *out;
	void (*removed)(const char *name, uint64_t bytes, void *arg);
	void *arg;
};

static bool sweep_one(int dfd, const char *name, void *arg)
{
	struct sweep *w = arg;
	int live;
	uint64_t bytes;
	if (!our_name(name))
		return false;
	switch (reap_at(dfd, name, w->wait, &live, &bytes)) {
	case PW_REAP_REMOVED:
		w->out->removed++;
		w->out->bytes += bytes;
		if (w->removed)
			w->removed(name, bytes, w->arg);
		break;
	case PW_REAP_LIVE: w->out->live++; break;
	case PW_REAP_OTHER: w->out->other++; break;
	default: break;
	}
	return false;
}

int pw_registry_sweep(bool wait, struct pw_reg_sweep *out,
                      void (*removed)(const char *name, uint64_t bytes, void *arg), void *arg)
{
	struct pw_reg_sweep local = {0};
	struct sweep w = {.wait = wait, .out = out ? out : &local, .removed = removed, .arg = arg};
	memset(w.out, 0, sizeof *w.out);
	int dfd = open(PW_SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -1; /* no /dev/shm: no segment either */
	int r = each_entry(dfd, sweep_one, &w);
	int e = errno;
	close(dfd);
	errno = e;
	return r < 0 ? -1 : 0;
}

/* We made the run's segment: the user's segments that earlier runs left
 * (killed, or run by hand without the launcher's watcher) go now, once per
 * run, off the calls' path.  Nothing said unless asked (verbosity=2). */
static void sweep_earlier_runs(void)
{
	struct pw_reg_sweep sw;
	if (pw_registry_sweep(false, &sw, NULL, NULL) == 0 && sw.removed)
		pw_debug("IPC registry: removed %d stale segment%s of earlier runs (%.1f MiB)", sw.removed,
		         sw.removed == 1 ? "" : "s", (double)sw.bytes / (1024.0 * 1024.0));
}

/* Already mapped for this run (a forked child inherits it): record our pid.
 * 1: its last user removed it meanwhile, open afresh. */
static int reattach(void)
{
	struct pw_reg_segment *s = R.seg;
	int32_t me = getpid();
	if (!seg_lock(s))
		return -1;
	bool gone = LOAD(s->unlinked) != 0;
	if (!gone) {
		attach_pid(s, me);
		atomic_store(&R.attached, me);
	}
	seg_unlock(s);
	return gone ? 1 : 0;
}

static int open_locked(const char *run_id)
{
	char name[PW_REG_NAME_MAX];
	if (pw_registry_shm_name(run_id, name, sizeof name) != 0)
		return refuse("(none)", "the run id is empty");
	if (R.seg && atomic_load(&pw_g.registry_active) && strcmp(run_id, R.run_id) == 0) {
		int r = reattach();
		if (r <= 0)
			return r;
	}
	close_locked();
	if (R.seg) /* a call never left the old mapping: it must stay */
		return refuse(name, "the previous registry is still in use");
	struct pw_reg_segment *s = NULL;
	bool created = false;
	int r = OPEN_TAKEN;
	for (int n = 0; n < PW_REG_NAMES && r == OPEN_TAKEN; n++) {
		const char *taken = "";
		pw_registry_shm_name_n(run_id, n, name, sizeof name);
		memcpy(R.name, name, sizeof name);
		r = open_segment(name, &s, &created, &taken);
		if (r == OPEN_TAKEN)
			pw_log("IPC registry %s: the name is taken by %s; trying another name", name, taken);
	}
	if (r == OPEN_TAKEN)
		return refuse(name, "every name this run may use is taken (by another user's file, a "
		                    "symbolic link or something that is not a regular file)");
	if (r != OPEN_OK)
		return -1;
	snprintf(R.run_id, sizeof R.run_id, "%s", run_id);
	R.seg = s;
	atomic_store(&R.attached, getpid());
	atomic_store(&R.broken, false);
	atomic_store(&R.warned_full, false);
	atomic_store(&R.warned_holders, false);
	atomic_store(&R.warned_links, false);
	atomic_store(&pw_g.registry_active, true);
	if (created)
		sweep_earlier_runs();
	return 0;
}

int pw_registry_open(const char *run_id)
{
	int saved = errno;
	if (!run_id)
		run_id = pw_run_id();
	pthread_mutex_lock(&R.open_lock);
	int r = open_locked(run_id);
	pthread_mutex_unlock(&R.open_lock);
	errno = saved;
	return r;
}

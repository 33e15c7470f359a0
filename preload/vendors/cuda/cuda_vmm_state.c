/* The per-process virtual-memory state: see vmm_state.h. */
#include <string.h>
#include <sys/stat.h>

#include "peerwatch/abi/cuda.h"
#include "vendors/cuda/cuda_vmm_state.h"

struct pw_vmm_state pw_vmm = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct pw_vmm_handle *handle_of(struct pw_vmm_state *s, uint64_t h)
{
	for (int i = 0; i < PW_VMM_MAX_HANDLES; i++)
		if (s->handles[i].used && s->handles[i].handle == h)
			return &s->handles[i];
	return NULL;
}

void pw_vmm_created(struct pw_vmm_state *s, uint64_t handle, unsigned types, int dev, uint64_t size,
                    bool imported)
{
	pthread_mutex_lock(&s->lock);
	struct pw_vmm_handle *e = handle_of(s, handle);
	for (int i = 0; !e && i < PW_VMM_MAX_HANDLES; i++)
		if (!s->handles[i].used)
			e = &s->handles[i];
	if (e) { /* full: the rules that need the handle stay silent */
		memset(e, 0, sizeof *e);
		e->handle = handle;
		e->types = types;
		e->dev = dev;
		e->size = size;
		e->refs = 1;
		e->imported = imported;
		e->used = true;
	}
	pthread_mutex_unlock(&s->lock);
}

void pw_vmm_retained(struct pw_vmm_state *s, uint64_t handle)
{
	pthread_mutex_lock(&s->lock);
	struct pw_vmm_handle *e = handle_of(s, handle);
	if (e)
		e->refs++;
	pthread_mutex_unlock(&s->lock);
}

int pw_vmm_released(struct pw_vmm_state *s, uint64_t handle, unsigned char keys[][PW_IPC_HANDLE_BYTES])
{
	int n = 0;
	pthread_mutex_lock(&s->lock);
	struct pw_vmm_handle *e = handle_of(s, handle);
	if (e && --e->refs <= 0) {
		n = e->nkeys;
		memcpy(keys, e->keys, (size_t)n * PW_IPC_HANDLE_BYTES);
		e->used = false;
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

void pw_vmm_exported(struct pw_vmm_state *s, uint64_t handle, const unsigned char *key)
{
	pthread_mutex_lock(&s->lock);
	struct pw_vmm_handle *e = handle_of(s, handle);
	if (e) {
		bool have = false;
		for (int i = 0; i < e->nkeys && !have; i++)
			have = !memcmp(e->keys[i], key, PW_IPC_HANDLE_BYTES);
		if (!have && e->nkeys < PW_VMM_MAX_KEYS)
			memcpy(e->keys[e->nkeys++], key, PW_IPC_HANDLE_BYTES);
	}
	pthread_mutex_unlock(&s->lock);
}

bool pw_vmm_handle_info(struct pw_vmm_state *s, uint64_t handle, unsigned *types, int *dev)
{
	pthread_mutex_lock(&s->lock);
	const struct pw_vmm_handle *e = handle_of(s, handle);
	if (e) {
		*types = e->types;
		*dev = e->dev;
	}
	pthread_mutex_unlock(&s->lock);
	return e != NULL;
}

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* Writers (the lock held) bracket their changes with these. */
static void write_begin(struct pw_vmm_state *s)
{
	atomic_fetch_add_explicit(&s->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static void write_end(struct pw_vmm_state *s)
{
	atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
}

static void copy_out(const struct pw_vmm_slot *m, struct pw_vmm_map *out)
{
	out->ptr = LD(m->ptr);
	out->size = LD(m->size);
	out->handle = LD(m->handle);
	out->rw = LD(m->rw);
	out->read = LD(m->read);
	out->dev = LD(m->dev);
	out->used = LD(m->used);
}

void pw_vmm_mapped(struct pw_vmm_state *s, uint64_t ptr, uint64_t size, uint64_t handle)
{
	pthread_mutex_lock(&s->lock);
	const struct pw_vmm_handle *h = handle_of(s, handle);
	for (int i = 0; i < PW_VMM_MAX_MAPS; i++) {
		struct pw_vmm_slot *m = &s->maps[i];
		if (LD(m->used))
			continue;
		write_begin(s);
		ST(m->ptr, ptr);
		ST(m->size, size);
		ST(m->handle, handle);
		ST(m->dev, h ? h->dev : PW_NO_DEV);
		ST(m->rw, 0);
		ST(m->read, 0);
		ST(m->used, true);
		write_end(s);
		atomic_fetch_add(&s->nmaps, 1);
		break;
	}
	pthread_mutex_unlock(&s->lock);
}

/* The mapping lies wholly inside [ptr, ptr+size). */
static bool inside(const struct pw_vmm_slot *m, uint64_t ptr, uint64_t size)
{
	uint64_t p = LD(m->ptr), n = LD(m->size);
	return LD(m->used) && p >= ptr && p - ptr < size && n <= size - (p - ptr);
}

void pw_vmm_unmapped(struct pw_vmm_state *s, uint64_t ptr, uint64_t size)
{
	pthread_mutex_lock(&s->lock);
	write_begin(s);
	for (int i = 0; i < PW_VMM_MAX_MAPS; i++)
		if (inside(&s->maps[i], ptr, size)) {
			ST(s->maps[i].used, false);
			atomic_fetch_sub(&s->nmaps, 1);
		}
	write_end(s);
	pthread_mutex_unlock(&s->lock);
}

void pw_vmm_access(struct pw_vmm_state *s, uint64_t ptr, uint64_t size, uint64_t set_rw, uint64_t set_read,
                   uint64_t set_none)
{
	pthread_mutex_lock(&s->lock);
	write_begin(s);
	for (int i = 0; i < PW_VMM_MAX_MAPS; i++) {
		struct pw_vmm_slot *m = &s->maps[i];
		if (!inside(m, ptr, size))
			continue;
		ST(m->rw, (LD(m->rw) & ~(set_read | set_none)) | set_rw);
		ST(m->read, (LD(m->read) & ~set_none) | set_rw | set_read);
	}
	write_end(s);
	pthread_mutex_unlock(&s->lock);
}

static bool find_map(const struct pw_vmm_state *s, uint64_t ptr, struct pw_vmm_map *out)
{
	for (int i = 0; i < PW_VMM_MAX_MAPS; i++) {
		const struct pw_vmm_slot *m = &s->maps[i];
		if (!LD(m->used))
			continue;
		uint64_t p = LD(m->ptr);
		if (ptr >= p && ptr - p < LD(m->size)) {
			copy_out(m, out);
			return true;
		}
	}
	return false;
}

/* Lock-free: a scan between two equal, even sequence counts saw no writer;
 * after a few collisions the lock is taken instead. */
bool pw_vmm_map_of(struct pw_vmm_state *s, uint64_t ptr, struct pw_vmm_map *out)
{
	if (!ptr || !atomic_load_explicit(&s->nmaps, memory_order_relaxed))
		return false;
	for (int tries = 0; tries < 8; tries++) {
		uint64_t s1 = atomic_load_explicit(&s->seq, memory_order_acquire);
		if (s1 & 1)
			continue;
		bool found = find_map(s, ptr, out);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) == s1)
			return found;
	}
	pthread_mutex_lock(&s->lock);
	bool found = find_map(s, ptr, out);
	pthread_mutex_unlock(&s->lock);
	return found;
}

bool pw_vmm_next_map(struct pw_vmm_state *s, int *cursor, struct pw_vmm_map *out)
{
	bool found = false;
	pthread_mutex_lock(&s->lock);
	for (; *cursor < PW_VMM_MAX_MAPS && !found; (*cursor)++)
		if (LD(s->maps[*cursor].used)) {
			copy_out(&s->maps[*cursor], out);
			found = true;
		}
	pthread_mutex_unlock(&s->lock);
	return found;
}

void pw_vmm_reset(struct pw_vmm_state *s)
{
	pthread_mutex_init(&s->lock, NULL);
	atomic_store(&s->nmaps, 0);
	atomic_store(&s->seq, 0);
	memset(s->handles, 0, sizeof s->handles);
	for (int i = 0; i < PW_VMM_MAX_MAPS; i++)
		ST(s->maps[i].used, false);
}

bool pw_vmm_key(int type, uint64_t fd_or_bytes, unsigned char key[PW_IPC_HANDLE_BYTES])
{
	memset(key, 0, PW_IPC_HANDLE_BYTES);
	if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		struct stat st;
		int fd = (int)(int64_t)fd_or_bytes;
		/* A character device (the real driver's /dev/nvidiactl) is the
		 * same file for every export: no key (tests/gpu/vmm_probe.md). */
		if (fd < 0 || fstat(fd, &st) != 0 || S_ISCHR(st.st_mode))
			return false;
		uint64_t dev = st.st_dev, ino = st.st_ino;
		static const unsigned char magic[4] = {'P', 'W', 'F', 'D'};
		memcpy(key, magic, sizeof magic);
		memcpy(key + 8, &dev, 8);
		memcpy(key + 16, &ino, 8);
		return true;
	}
	if (type == CU_MEM_HANDLE_TYPE_FABRIC && fd_or_bytes) {
		memcpy(key, (const void *)(uintptr_t)fd_or_bytes, PW_IPC_HANDLE_BYTES);
		return true;
	}
	return false;
}

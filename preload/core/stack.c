/*
 * Call stacks (see stack.h).
 *
 * The unwinder.  libunwind's unw_backtrace() is the default: it walks frames
 * without frame pointers through .eh_frame and caches what it learns per
 * thread.  Debian's libunwind.a is not position-independent, and a preloaded
 * library must not put libunwind's symbols (unw_*, _Unwind_*, even a weak
 * `backtrace`) into the program's global scope, so libunwind.so.8 is
 * dlopen'ed RTLD_LOCAL and its functions found with the real dlsym
 * (docs/facts-cuda.md, "What a preloaded library may load").  It is looked
 * for, in order:
 *   1. beside libpeerwatch.so, where a relocatable bundle carries it in lib/
 *      with liblzma.so.5 (its one dependency; the system's liblzma is used
 *      when there is one, because once loaded, a bundled copy would be handed
 *      to everyone in the process who asks for that soname).  Loaded by path,
 *      it is a copy of our own even if the program has a libunwind.so.8;
 *   2. the system's (the program's own copy if it has loaded one).
 * Its global cache is turned off (see no_global_cache).  Without libunwind:
 * glibc's backtrace(), primed here because its first call
 * dlopens libgcc_s and allocates.
 *
 * Hot path.  pw_stack_capture() reads one atomic pointer and calls the
 * unwinder into a buffer on its own stack.  Neither unwinder calls malloc
 * once primed, except on a thread's first capture (libunwind's per-thread
 * cache, and the TLS block glibc gives a dlopen'ed library).  Locks:
 * libunwind finds unwind tables through dl_iterate_phdr, which takes the
 * loader's recursive lock, and with its global cache off it holds no lock of
 * its own meanwhile, so a capture inside a dl_iterate_phdr callback, or in a
 * constructor that dlopen runs, cannot deadlock; libgcc's unwinder (behind
 * backtrace()) uses _dl_find_object on glibc >= 2.35, dl_iterate_phdr before.
 * Not async-signal-safe: never capture from a signal handler
 * (docs/facts-cuda.md, "... and when it may unwind").
 *
 * Names.  dladdr only: no allocation, no file access, but only symbols in a
 * module's dynamic symbol table have names (the analyzer symbolizes the
 * trace's raw addresses offline with full debug information).  dladdr takes
 * the loader's lock, which dlopen holds while it runs constructors: name
 * frames while holding no lock of ours that such a constructor could wait on.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/intercept.h"
#include "core/pw.h"
#include "core/stack.h"

typedef int (*pw_unwind_fn)(void **buffer, int size);

/* Frames of the unwinder itself that may precede ours (unw_backtrace, a sanitizer's interceptor). */
#define PW_STACK_SCAN 4
/* Most peerwatch frames a caller may ask to skip. */
#define PW_STACK_SKIP_MAX 16
#define PW_STACK_RAW (PW_STACK_MAX + PW_STACK_SCAN + PW_STACK_SKIP_MAX)

static struct {
	_Atomic(pw_unwind_fn) fn; /* backend in use, NULL: none */
	pw_unwind_fn unw;         /* libunwind's unw_backtrace, NULL if not loaded */
	atomic_bool inited;
	atomic_bool bt_primed;
} S;

static void prime(pw_unwind_fn fn)
{
	void *tmp[PW_STACK_SCAN];
	(void)fn(tmp, PW_STACK_SCAN);
}

static void prime_backtrace(void)
{
	if (!atomic_exchange(&S.bt_primed, true))
		prime(backtrace);
}

bool pw_stack_sibling(const char *self_path, const char *name, char *out, size_t len)
{
	const char *slash = self_path ? strrchr(self_path, '/') : NULL;
	if (!slash || !out)
		return false;
	size_t dir = (size_t)(slash - self_path) + 1;
	size_t nlen = strlen(name);
	if (dir + nlen + 1 > len)
		return false;
	memcpy(out, self_path, dir);
	memcpy(out + dir, name, nlen + 1);
	return true;
}

static void note_dlerror(char *why, size_t len)
{
	const char *e = dlerror();
	size_t used = strlen(why);
	if (e && used + 3 < len)
		snprintf(why + used, len - used, "%s%s", used ? "; " : "", e);
}

/* Returns a handle on libunwind.so.8, saying where from in `where`, or NULL saying why in `why`. */
static void *open_libunwind(const char *self_path, char *where, size_t wlen, char *why, size_t ylen)
{
	char path[PATH_MAX];
	void *h;
	if (pw_stack_sibling(self_path, "libunwind.so.8", path, sizeof path) && access(path, R_OK) == 0) {
		void *lzma = dlopen("liblzma.so.5", RTLD_NOW | RTLD_LOCAL);
		char lzpath[PATH_MAX];
		if (!lzma && pw_stack_sibling(self_path, "liblzma.so.5", lzpath, sizeof lzpath) &&
		    access(lzpath, R_OK) == 0)
			lzma = dlopen(lzpath, RTLD_NOW | RTLD_LOCAL);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (h) {
			snprintf(where, wlen, "%s", path);
			return h; /* lzma stays open: libunwind needs it */
		}
		note_dlerror(why, ylen);
		if (lzma)
			dlclose(lzma);
	}
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		snprintf(where, wlen, "the system's libunwind.so.8");
		return h;
	}
	note_dlerror(why, ylen);
	return NULL;
}

#if defined(__x86_64__)
#define PW_UNW_ARCH "x86_64"
#elif defined(__aarch64__)
#define PW_UNW_ARCH "aarch64"
#elif defined(__powerpc64__)
#define PW_UNW_ARCH "ppc64"
#endif

/*
 * libunwind's default cache of register-state rules is one per process
 * behind a lock, and on a miss it calls dl_iterate_phdr with that lock held.
 * A thread inside a dl_iterate_phdr callback holds the loader's lock and,
 * capturing, waits for libunwind's: a deadlock within seconds under load
 * (tests/unit/test_stack.c).  Without that cache libunwind holds no lock of
 * its own around dl_iterate_phdr; the per-thread trace cache that makes
 * repeated captures cheap stays.  Only done to our own copy: a libunwind the
 * program loaded itself is its business.
 */
static const char *no_global_cache(void *h)
{
#ifdef PW_UNW_ARCH
	typedef int (*set_policy_fn)(void *as, int policy);
	set_policy_fn set = (set_policy_fn)pw_real_dlsym(h, "_UL" PW_UNW_ARCH "_set_caching_policy");
	void **as = pw_real_dlsym(h, "_UL" PW_UNW_ARCH "_local_addr_space");
	if (!set || !as || !*as)
		return "its caching policy cannot be set";
	if (set(*as, 0 /* UNW_CACHE_NONE */))
		return "setting its caching policy failed";
	return NULL;
#else
	(void)h;
	return "its caching policy is not known on this architecture";
#endif
}

void pw_stack_init_at(const char *self_path)
{
	if (atomic_exchange(&S.inited, true))
		return;
	char where[PATH_MAX + 64] = "", why[512] = "";
	void *was = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	void *h = open_libunwind(self_path, where, sizeof where, why, sizeof why);
	pw_unwind_fn unw = NULL;
	if (h) {
		unw = (pw_unwind_fn)pw_real_dlsym(h, "unw_backtrace");
		if (!unw) {
			snprintf(why, sizeof why, "%s has no unw_backtrace", where);
			dlclose(h);
		}
	}
	if (unw) {
		const char *cache = h == was ? "the program's own copy, left as it is" : no_global_cache(h);
		S.unw = unw;
		prime(unw);
		atomic_store_explicit(&S.fn, unw, memory_order_release);
		pw_debug("stacks: libunwind (%s)%s%s", where, cache ? ": " : "", cache ? cache : "");
	} else {
		prime_backtrace();
		atomic_store_explicit(&S.fn, backtrace, memory_order_release);
		pw_debug("stacks: libunwind.so.8 not loaded (%s); using glibc backtrace()",
		         why[0] ? why : "not found");
	}
	if (was)
		dlclose(was);
}

void pw_stack_init(void)
{
	Dl_info info;
	const char *self = NULL;
	if (dladdr((void *)pw_stack_init, &info) && info.dli_fname)
		self = info.dli_fname;
	pw_stack_init_at(self);
}

enum pw_stack_backend pw_stack_backend(void)
{
	pw_unwind_fn fn = atomic_load_explicit(&S.fn, memory_order_acquire);
	if (!fn)
		return PW_STACK_NONE;
	return fn == S.unw ? PW_STACK_LIBUNWIND : PW_STACK_BACKTRACE;
}

const char *pw_stack_backend_name(enum pw_stack_backend b)
{
	switch (b) {
	case PW_STACK_LIBUNWIND: return "libunwind";
	case PW_STACK_BACKTRACE: return "backtrace";
	case PW_STACK_NONE: break;
	}
	return "none";
}

bool pw_stack_select(enum pw_stack_backend b)
{
	pw_unwind_fn fn = NULL;
	switch (b) {
	case PW_STACK_NONE: break;
	case PW_STACK_LIBUNWIND:
		if (!S.unw)
			return false;
		fn = S.unw;
		break;
	case PW_STACK_BACKTRACE:
		prime_backtrace();
		fn = backtrace;
		break;
	default: return false;
	}
	atomic_store_explicit(&S.fn, fn, memory_order_release);
	return true;
}

/*
 * The unwinder's first frames are its own and ours; the frame of our caller
 * is the one whose address is our return address.  Should no frame be (a
 * frame the unwinder could not see), the usual count is assumed: one frame of
 * unw_backtrace, then ours; backtrace() leaves its own out.
 */
__attribute__((noinline)) int pw_stack_capture(uintptr_t *ips, int max, int skip)
{
	pw_unwind_fn fn = atomic_load_explicit(&S.fn, memory_order_acquire);
	if (!fn || !ips || max <= 0)
		return 0;
	if (max > PW_STACK_MAX)
		max = PW_STACK_MAX;
	if (skip < 0)
		skip = 0;
	if (skip > PW_STACK_SKIP_MAX)
		skip = PW_STACK_SKIP_MAX;
	void *raw[PW_STACK_RAW];
	int n = fn(raw, PW_STACK_SCAN + skip + max);
	void *ra = __builtin_return_address(0);
	int first = fn == S.unw ? 2 : 1;
	for (int i = 0; i < n && i < PW_STACK_SCAN; i++) {
		if (raw[i] == ra) {
			first = i;
			break;
		}
	}
	int k = 0;
	for (int i = first + skip; i < n && k < max && raw[i]; i++)
		ips[k++] = (uintptr_t)raw[i];
	return k;
}

static const char *basename_of(const char *path)
{
	if (!path)
		return "";
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* A return address belongs to the call before it: look up ip - 1. */
static bool lookup(uintptr_t ip, Dl_info *info)
{
	memset(info, 0, sizeof *info);
	return ip > 1 && dladdr((void *)(ip - 1), info) != 0;
}

void pw_stack_names(uintptr_t ip, const char **func, const char **module)
{
	Dl_info info;
	const char *f = "", *m = "";
	if (lookup(ip, &info)) {
		if (info.dli_sname && info.dli_saddr)
			f = info.dli_sname;
		m = basename_of(info.dli_fname);
	}
	if (func)
		*func = f;
	if (module)
		*module = m;
}

void pw_stack_format(uintptr_t ip, char *out, size_t len)
{
	if (!out || !len)
		return;
	Dl_info info;
	const char *m = lookup(ip, &info) ? basename_of(info.dli_fname) : "";
	if (!m[0])
		snprintf(out, len, "0x%" PRIxPTR, ip);
	else if (info.dli_sname && info.dli_saddr)
		snprintf(out, len, "%s+0x%" PRIxPTR " (%s)", info.dli_sname, ip - (uintptr_t)info.dli_saddr,
		         m);
	else
		snprintf(out, len, "0x%" PRIxPTR " (%s+0x%" PRIxPTR ")", ip, m,
		         ip - (uintptr_t)info.dli_fbase);
}

/* Our own code: frames there are not the caller's (pw_stack_app). */
static uintptr_t self_lo, self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t me = (uintptr_t)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < lo + ph->p_memsz) {
			self_lo = lo;
			self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

void pw_stack_find_self(void)
{
	dl_iterate_phdr(find_self, (void *)(uintptr_t)pw_stack_find_self);
}

int pw_stack_app(uintptr_t *ips, int max)
{
	uintptr_t raw[PW_STACK_MAX];
	int n = pw_stack_capture(raw, PW_STACK_MAX, 0);
	int skip = 0;
	while (skip < n && raw[skip] >= self_lo && raw[skip] < self_hi)
		skip++;
	int k = 0;
	for (int i = skip; i < n && k < max; i++)
		ips[k++] = raw[i];
	return k;
}

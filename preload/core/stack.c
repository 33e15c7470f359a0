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
 *   2. the system's, unless the program has loaded a libunwind.so.8 of its
 *      own: that one is the program's, left as it is, and not used.
 * Our copy is set up to open no descriptor and to check memory without one
 * (see set_up), with its global cache off (no lock of its own, below).
 * That set-up is only possible while the process has one thread, which a
 * preloaded library's constructor sees; otherwise, and without libunwind:
 * glibc's backtrace(), primed here because its first call dlopens libgcc_s
 * and allocates (it keeps no descriptor open).
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
#include <errno.h>
#include <execinfo.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
 * libunwind and descriptors.  libunwind (every release to 1.8) checks, where
 * it does not trust a frame, that memory is readable by writing a byte of
 * it into a pipe of its own (write_validate), and reads the pipe back; up to
 * 1.7 its set-up (tdep_init, run by its first call of any kind) opens that
 * pipe, on the lowest free descriptors.  In a program those are the numbers
 * its next open(2) was to get: with 0, 1 or 2 closed at start, the program's
 * stdin and stdout became our pipe; a daemon that closed 3..1023 and opened
 * its files then had bytes of its input read by libunwind and bytes of our
 * stack written into its output.  The caching policy (UNW_CACHE_*) changes
 * none of this.  So our copy:
 *
 *   - is set up while RLIMIT_NOFILE's soft limit is 0 for a moment: its
 *     pipe2 fails, and its pipe stays "not open" (-1), which nothing else
 *     opens again once the next point holds.  Only while the process has a
 *     single thread (the constructor of a preloaded library, before main),
 *     so that no open(2) of the program's can fail meanwhile; signals are
 *     blocked around it;
 *   - has its local address space's access_mem (the one place that checks
 *     memory, in every release and architecture; libunwind-common.h's
 *     unw_get_accessors hands it out) replaced with ours, which checks
 *     through the kernel (process_vm_readv of our own memory; where a
 *     sandbox refuses that, rt_sigprocmask with an invalid `how`, which
 *     copies the set first: EFAULT if unreadable), no descriptor involved.
 *
 * libunwind's default cache of register-state rules is one per process
 * behind a lock, and on a miss it calls dl_iterate_phdr with that lock held.
 * A thread inside a dl_iterate_phdr callback holds the loader's lock and,
 * capturing, waits for libunwind's: a deadlock within seconds under load
 * (tests/unit/test_stack.c).  Without that cache libunwind holds no lock of
 * its own around dl_iterate_phdr; the per-thread trace cache that makes
 * repeated captures cheap stays.
 */

/* The first members of libunwind's unw_accessors_t (libunwind-common.h),
 * the same in every release. */
struct unw_acc {
	void *find_proc_info, *put_unwind_info, *get_dyn_info_list_addr;
	int (*access_mem)(void *as, uintptr_t addr, uintptr_t *val, int write, void *arg);
};

/* Reading any word of the stack, a sanitizer's red zones among them: not
 * instrumented. */
#define PW_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

#define PW_PAGE 4096u /* the smallest page: a readable one lies in a readable page */
#define PW_GOOD_PAGES 8
/* Pages this thread found readable lately (libunwind keeps 4 likewise). */
static PW_TLS uintptr_t good_page[PW_GOOD_PAGES];
static PW_TLS unsigned good_next;
static atomic_bool vm_readv_refused;

static bool page_good(uintptr_t page)
{
	for (int i = 0; i < PW_GOOD_PAGES; i++)
		if (good_page[i] == page)
			return true;
	return false;
}

/* The word at addr, if it is readable, through the kernel. */
PW_NO_SANITIZE static bool probe(uintptr_t addr, uintptr_t *val)
{
	if (!atomic_load_explicit(&vm_readv_refused, memory_order_relaxed)) {
		struct iovec here = {val, sizeof *val}, there = {(void *)addr, sizeof *val};
		ssize_t n = process_vm_readv(getpid(), &here, 1, &there, 1, 0);
		if (n == (ssize_t)sizeof *val)
			return true;
		if (n >= 0 || errno == EFAULT)
			return false;
		atomic_store(&vm_readv_refused, true); /* ENOSYS, EPERM: a sandbox */
	}
	/* The kernel copies the set before it looks at `how` (-1: none):
	 * EFAULT if unreadable, else EINVAL, and the mask stays as it is. */
	if (syscall(SYS_rt_sigprocmask, -1, (void *)addr, NULL, (size_t)(_NSIG / 8)) == 0 || errno != EINVAL)
		return false;
	*val = *(const volatile uintptr_t *)addr;
	return true;
}

PW_NO_SANITIZE bool pw_stack_read(uintptr_t addr, uintptr_t *val)
{
	uintptr_t first = addr & ~(uintptr_t)(PW_PAGE - 1),
	          last = (addr + sizeof *val - 1) & ~(uintptr_t)(PW_PAGE - 1);
	if (!first || last < first)
		return false; /* the first page, or past the end: never */
	if (page_good(first) && page_good(last)) {
		*val = *(const volatile uintptr_t *)addr;
		return true;
	}
	if (!probe(addr, val))
		return false;
	good_page[good_next++ % PW_GOOD_PAGES] = first;
	if (last != first)
		good_page[good_next++ % PW_GOOD_PAGES] = last;
	return true;
}

/* Our copy's access_mem: reads a word of our own memory, each checked
 * readable first (pw_stack_read), and writes as libunwind's does. */
PW_NO_SANITIZE static int unw_access_mem(void *as, uintptr_t addr, uintptr_t *val, int write, void *arg)
{
	(void)as;
	(void)arg;
	if (write) {
		*(volatile uintptr_t *)addr = *val;
		return 0;
	}
	return pw_stack_read(addr, val) ? 0 : -1; /* -1: libunwind's own answer */
}

/* Our copy of libunwind made to open no descriptor: NULL, or why not. */
static const char *set_up(void *h)
{
#ifdef PW_UNW_ARCH
	typedef int (*set_policy_fn)(void *as, int policy);
	typedef struct unw_acc *(*get_acc_fn)(void *as);
	set_policy_fn set = (set_policy_fn)pw_real_dlsym(h, "_UL" PW_UNW_ARCH "_set_caching_policy");
	get_acc_fn get = (get_acc_fn)pw_real_dlsym(h, "_U" PW_UNW_ARCH "_get_accessors");
	void **as = pw_real_dlsym(h, "_UL" PW_UNW_ARCH "_local_addr_space");
	if (!set || !get || !as || !*as)
		return "it lacks the functions its set-up needs";
	if (!__libc_single_threaded)
		return "the process has more than one thread already, and its set-up would open a pipe "
		       "on the program's next descriptors";
	struct rlimit was, none;
	if (getrlimit(RLIMIT_NOFILE, &was))
		return "the descriptor limit cannot be read";
	none = was;
	none.rlim_cur = 0;
	sigset_t all, mask;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask);
	struct unw_acc *acc = NULL;
	bool limited = setrlimit(RLIMIT_NOFILE, &none) == 0;
	if (limited) {
		acc = get(*as); /* its first call: its set-up, whose pipe2 fails */
		if (setrlimit(RLIMIT_NOFILE, &was)) {
			/* back to the soft limit it had, at most the hard one: cannot fail */
		}
	}
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (!limited)
		return "the descriptor limit cannot be lowered for its set-up";
	if (!acc || !acc->access_mem)
		return "its memory accessors cannot be found";
	acc->access_mem = unw_access_mem;
	if (set(*as, 0 /* UNW_CACHE_NONE */))
		return "setting its caching policy failed";
	return NULL;
#else
	(void)h;
	return "its set-up is not known on this architecture";
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
	if (h && h == was) {
		snprintf(why, sizeof why, "the program's own libunwind.so.8 is left as it is");
		dlclose(h);
	} else if (h) {
		unw = (pw_unwind_fn)pw_real_dlsym(h, "unw_backtrace");
		const char *no = unw ? set_up(h) : "it has no unw_backtrace";
		if (no) {
			/* set up or not, it may hold state: it stays loaded */
			snprintf(why, sizeof why, "%s: %s", where, no);
			unw = NULL;
		}
	}
	if (unw) {
		S.unw = unw;
		prime(unw);
		atomic_store_explicit(&S.fn, unw, memory_order_release);
		pw_debug("stacks: libunwind (%s)", where);
	} else {
		prime_backtrace();
		atomic_store_explicit(&S.fn, backtrace, memory_order_release);
		pw_debug("stacks: libunwind not used (%s); using glibc backtrace()",
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

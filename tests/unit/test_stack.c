/*
 * Stacks: where libunwind is loaded from and that it stays private and opens
 * no descriptor, how memory is checked, captures through a known call chain
 * with both unwinders, names and the report format, and the cost of one
 * capture (printed, not asserted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/pw.h"
#include "core/stack.h"

/* Neither inlined, nor cloned, nor tail-called: each is one frame of its own. */
#if defined(__clang__)
#define CHAIN __attribute__((noinline, used))
#else
#define CHAIN __attribute__((noipa, used))
#endif

static volatile int sink;

struct chain {
	uintptr_t ips[PW_STACK_MAX];
	int max, skip, n;
	/* each function's own return address: where the frame above it must be */
	uintptr_t ra_leaf, ra_mid, ra_cb, ra_outer;
};

CHAIN int pwtest_leaf(struct chain *c);
CHAIN int pwtest_mid(struct chain *c);
CHAIN int pwtest_cb(struct dl_phdr_info *info, size_t size, void *data);
CHAIN int pwtest_outer(struct chain *c);
CHAIN int pwtest_deep(int depth, uintptr_t *ips, int max, int *n);

CHAIN int pwtest_leaf(struct chain *c)
{
	c->ra_leaf = (uintptr_t)__builtin_return_address(0);
	c->n = pw_stack_capture(c->ips, c->max, c->skip);
	sink++;
	return c->n;
}

CHAIN int pwtest_mid(struct chain *c)
{
	c->ra_mid = (uintptr_t)__builtin_return_address(0);
	int n = pwtest_leaf(c);
	sink++;
	return n;
}

/* Called by libc's dl_iterate_phdr: a frame of a shared library, with an exported name, in the chain. */
CHAIN int pwtest_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	struct chain *c = data;
	c->ra_cb = (uintptr_t)__builtin_return_address(0);
	pwtest_mid(c);
	sink++;
	return 1; /* the first object is enough */
}

CHAIN int pwtest_outer(struct chain *c)
{
	c->ra_outer = (uintptr_t)__builtin_return_address(0);
	dl_iterate_phdr(pwtest_cb, c);
	sink++;
	return c->n;
}

static void run_chain(struct chain *c, int max, int skip)
{
	memset(c, 0, sizeof *c);
	c->max = max;
	c->skip = skip;
	pwtest_outer(c);
}

/* Whether this program's own functions have names for dladdr (linked with -rdynamic). */
static bool exe_exports(void)
{
	Dl_info info;
	return dladdr((void *)pwtest_leaf, &info) && info.dli_sname;
}

static const char *exe_name(void)
{
	Dl_info info;
	assert_true(dladdr((void *)pwtest_leaf, &info));
	const char *slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

static void ensure_init(void)
{
	pw_stack_init();
	assert_int_not_equal(pw_stack_backend(), PW_STACK_NONE);
}

static int find_from(const struct chain *c, int from, uintptr_t ip)
{
	for (int i = from; i < c->n; i++)
		if (c->ips[i] == ip)
			return i;
	return -1;
}

/* The frame dl_iterate_phdr of libc.so.6, at or after `from`, -1 if none. */
static int find_libc_iterate(const struct chain *c, int from)
{
	for (int i = from; i < c->n; i++) {
		const char *f, *m;
		pw_stack_names(c->ips[i], &f, &m);
		if (strcmp(m, "libc.so.6") == 0 && strstr(f, "dl_iterate_phdr"))
			return i;
	}
	return -1;
}

static void check_chain(void)
{
	struct chain c;
	run_chain(&c, 32, 0);
	assert_true(c.n >= 6);
	/* skip 0: the first frame is in the function that called pw_stack_capture */
	assert_true(c.ips[0] > (uintptr_t)pwtest_leaf && c.ips[0] < (uintptr_t)pwtest_leaf + 1024);
	assert_int_equal(c.ips[1], c.ra_leaf); /* in pwtest_mid */
	assert_int_equal(c.ips[2], c.ra_mid);  /* in pwtest_cb */
	assert_int_equal(c.ips[3], c.ra_cb);   /* in libc (or a sanitizer's wrapper of the callback) */
	int libc = find_libc_iterate(&c, 3);
	assert_true(libc >= 3);
	int outer = find_from(&c, libc + 1, c.ra_outer); /* in this test */
	assert_true(outer > libc);

	/* names, in order */
	static const char *const want[] = {"pwtest_leaf", "pwtest_mid", "pwtest_cb"};
	for (int i = 0; i < 3; i++) {
		const char *f, *m;
		pw_stack_names(c.ips[i], &f, &m);
		assert_string_equal(m, exe_name());
		assert_string_equal(f, exe_exports() ? want[i] : "");
	}
	/* the frame before the return address into this test is pwtest_outer's */
	assert_true(c.ips[outer - 1] > (uintptr_t)pwtest_outer &&
	            c.ips[outer - 1] < (uintptr_t)pwtest_outer + 1024);
	const char *f, *m;
	pw_stack_names(c.ips[outer - 1], &f, &m);
	assert_string_equal(f, exe_exports() ? "pwtest_outer" : "");

	/* skip drops our own frames, max bounds the count */
	run_chain(&c, 32, 1);
	assert_int_equal(c.ips[0], c.ra_leaf);
	run_chain(&c, 32, 2);
	assert_int_equal(c.ips[0], c.ra_mid);
	assert_int_equal(c.ips[1], c.ra_cb);
	run_chain(&c, 2, 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.ips[1], c.ra_leaf);
	assert_int_equal(c.ips[2], 0);
}

/* The descriptors open now, in fds (sorted, as /proc lists them): how many. */
static int open_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) && n < max)
			fds[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* Must run first: nothing may have loaded the unwinder yet. */
static void libunwind_is_taken_from_beside_the_library_and_kept_private(void **state)
{
	(void)state;
	static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
	                                   "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"};
	char sys[512] = "";
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !sys[0]; i++) {
		snprintf(sys, sizeof sys, "%s/libunwind.so.8", dirs[i]);
		if (access(sys, R_OK))
			sys[0] = '\0';
	}
	if (!sys[0] || dlopen("libunwind.so.8", RTLD_NOW | RTLD_NOLOAD)) {
		print_message("no system libunwind.so.8 to copy, or one is loaded already\n");
		skip();
	}
	char dir[64], self[128], copy[128];
	snprintf(dir, sizeof dir, "/tmp/pw-unit-stack.%d", (int)getpid());
	snprintf(self, sizeof self, "%s/libpeerwatch.so", dir);
	snprintf(copy, sizeof copy, "%s/libunwind.so.8", dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	int in = open(sys, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(in >= 0 && out >= 0);
	char buf[65536];
	ssize_t r;
	while ((r = read(in, buf, sizeof buf)) > 0)
		assert_int_equal(write(out, buf, (size_t)r), r);
	close(in);
	close(out);

	int before[64], after[64];
	int n_before = open_fds(before, 64);
	pw_stack_init_at(self);
	unlink(copy); /* what is mapped stays */
	rmdir(dir);
	assert_int_equal(pw_stack_backend(), PW_STACK_LIBUNWIND);
	/* libunwind's set-up opened no pipe (nor anything else), and its
	 * captures, whose memory checks used to write into that pipe, none
	 * either */
	assert_int_equal(open_fds(after, 64), n_before);
	assert_memory_equal(after, before, sizeof *before * (size_t)n_before);
	check_chain();
	pwtest_deep(PW_STACK_MAX + 10, (uintptr_t[PW_STACK_MAX]){0}, PW_STACK_MAX, &(int){0});
	assert_int_equal(open_fds(after, 64), n_before);
	assert_memory_equal(after, before, sizeof *before * (size_t)n_before);
	void *h = dlopen(copy, RTLD_NOW | RTLD_NOLOAD); /* that very file is mapped */
	assert_non_null(h);
	dlclose(h);
	/* and none of its symbols is in the global scope */
	assert_null(dlsym(RTLD_DEFAULT, "unw_backtrace"));
	assert_null(dlsym(RTLD_DEFAULT, "_ULx86_64_step"));
	Dl_info info;
	void *bt = dlsym(RTLD_DEFAULT, "backtrace"); /* libunwind defines a weak one */
	assert_non_null(bt);
	assert_true(dladdr(bt, &info));
	assert_null(strstr(info.dli_fname, "libunwind"));
	check_chain();
}

static void sibling_paths(void **state)
{
	(void)state;
	char out[64];
	assert_true(pw_stack_sibling("/opt/pw/lib/libpeerwatch.so", "libunwind.so.8", out, sizeof out));
	assert_string_equal(out, "/opt/pw/lib/libunwind.so.8");
	assert_true(pw_stack_sibling("/libpeerwatch.so", "liblzma.so.5", out, sizeof out));
	assert_string_equal(out, "/liblzma.so.5");
	assert_true(pw_stack_sibling("build/lib/libpeerwatch.so", "x", out, sizeof out));
	assert_string_equal(out, "build/lib/x");
	assert_false(pw_stack_sibling("libpeerwatch.so", "x", out, sizeof out)); /* no directory */
	assert_false(pw_stack_sibling(NULL, "x", out, sizeof out));
	assert_true(pw_stack_sibling("/a/b", "12345", out, 11)); /* "/a/12345" + NUL = 9 */
	assert_false(pw_stack_sibling("/a/b", "12345678", out, 11));
}

#define WORD_FIRST ((uintptr_t)0x1122334455667788u)
#define WORD_LAST ((uintptr_t)0x8877665544332211u)

/* Three fresh pages: readable (holding a known word at each end), not
 * readable (PROT_NONE), not mapped. */
static char *three_pages(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)pg * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	*(uintptr_t *)p = WORD_FIRST;
	*(uintptr_t *)(p + pg - 8) = WORD_LAST;
	assert_int_equal(mprotect(p + pg, (size_t)pg, PROT_NONE), 0);
	assert_int_equal(munmap(p + 2 * pg, (size_t)pg), 0);
	return p;
}

static void check_reads(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = three_pages();
	uintptr_t v = 0;
	assert_true(pw_stack_read((uintptr_t)p, &v));
	assert_int_equal(v, WORD_FIRST);
	assert_true(pw_stack_read((uintptr_t)(p + pg - 8), &v)); /* known good now */
	assert_int_equal(v, WORD_LAST);
	assert_false(pw_stack_read((uintptr_t)(p + pg), &v));     /* PROT_NONE */
	assert_false(pw_stack_read((uintptr_t)(p + 2 * pg), &v)); /* not mapped */
	assert_false(pw_stack_read((uintptr_t)(p + pg - 4), &v)); /* its second half is not */
	assert_false(pw_stack_read(8, &v));                       /* the first page */
	munmap(p, (size_t)pg * 2);
}

/* The unwinder's memory check: right for readable, protected and unmapped
 * memory, without a descriptor; and the same where a sandbox refuses
 * process_vm_readv (seccomp, in a child). */
static void memory_checked_without_a_descriptor(void **state)
{
	(void)state;
	int before[64], after[64];
	int n = open_fds(before, 64);
	check_reads();
	assert_int_equal(open_fds(after, 64), n);
	assert_memory_equal(after, before, sizeof *before * (size_t)n);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_filter f[] = {
		    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {.len = sizeof f / sizeof *f, .filter = f};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(77);
		if (syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 0) != -1 || errno != EPERM)
			_exit(78);
		check_reads(); /* a failed assertion ends the child with a non-zero status */
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		print_message("seccomp filters are not allowed here: the sandboxed case was not run\n");
		return;
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void chain_with_libunwind(void **state)
{
	(void)state;
	ensure_init();
	if (!pw_stack_select(PW_STACK_LIBUNWIND)) {
		print_message("libunwind.so.8 not available\n");
		skip();
	}
	assert_string_equal(pw_stack_backend_name(pw_stack_backend()), "libunwind");
	check_chain();
}

static void chain_with_backtrace(void **state)
{
	(void)state;
	ensure_init();
	assert_true(pw_stack_select(PW_STACK_BACKTRACE));
	assert_int_equal(pw_stack_backend(), PW_STACK_BACKTRACE);
	assert_string_equal(pw_stack_backend_name(pw_stack_backend()), "backtrace");
	check_chain();
	pw_stack_select(PW_STACK_LIBUNWIND);
}

static void off_means_no_frames(void **state)
{
	(void)state;
	ensure_init();
	enum pw_stack_backend was = pw_stack_backend();
	assert_true(pw_stack_select(PW_STACK_NONE));
	assert_string_equal(pw_stack_backend_name(pw_stack_backend()), "none");
	struct chain c;
	run_chain(&c, 16, 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.ips[0], 0);
	assert_true(pw_stack_select(was));
	uintptr_t ips[4];
	assert_int_equal(pw_stack_capture(ips, 0, 0), 0);
	assert_int_equal(pw_stack_capture(NULL, 4, 0), 0);
}

CHAIN int pwtest_deep(int depth, uintptr_t *ips, int max, int *n)
{
	if (depth > 0)
		pwtest_deep(depth - 1, ips, max, n);
	else
		*n = pw_stack_capture(ips, max, 0);
	sink++;
	return *n;
}

static void at_most_pw_stack_max_frames(void **state)
{
	(void)state;
	ensure_init();
	uintptr_t ips[PW_STACK_MAX + 8];
	memset(ips, 0, sizeof ips);
	int n = 0;
	pwtest_deep(PW_STACK_MAX + 10, ips, PW_STACK_MAX + 8, &n);
	assert_int_equal(n, PW_STACK_MAX);
	assert_int_equal(ips[PW_STACK_MAX], 0);
	/* every frame but the last is in pwtest_deep, each called from the same place */
	for (int i = 2; i < PW_STACK_MAX; i++)
		assert_int_equal(ips[i], ips[1]);
}

static void format_shapes(void **state)
{
	(void)state;
	struct chain c;
	ensure_init();
	run_chain(&c, 32, 0);
	int libc = find_libc_iterate(&c, 3);
	assert_true(libc > 0);
	char out[256];
	regex_t re;

	/* a named frame: func+0xOFF (module), OFF from the symbol */
	pw_stack_format(c.ips[libc], out, sizeof out);
	assert_int_equal(
	    regcomp(&re, "^[_a-z]*dl_iterate_phdr\\+0x[0-9a-f]+ \\(libc\\.so\\.6\\)$", REG_EXTENDED), 0);
	assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
	regfree(&re);
	Dl_info info;
	assert_true(dladdr((void *)(c.ips[libc] - 1), &info));
	char want[256];
	snprintf(want, sizeof want, "%s+0x%lx (libc.so.6)", info.dli_sname,
	         (unsigned long)(c.ips[libc] - (uintptr_t)info.dli_saddr));
	assert_string_equal(out, want);

	/* the offset is that of the return address itself, looked up at ip - 1 */
	pw_stack_format((uintptr_t)getpid + 1, out, sizeof out);
	assert_int_equal(regcomp(&re, "^[_a-z]*getpid\\+0x1 \\(libc\\.so\\.6\\)$", REG_EXTENDED), 0);
	assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
	regfree(&re);

	/* a frame of this program: named only if it exports its functions */
	pw_stack_format(c.ips[1], out, sizeof out);
	if (exe_exports()) {
		snprintf(want, sizeof want, "pwtest_mid+0x%lx (%s)",
		         (unsigned long)(c.ips[1] - (uintptr_t)pwtest_mid), exe_name());
	} else {
		assert_true(dladdr((void *)pwtest_mid, &info));
		snprintf(want, sizeof want, "0x%lx (%s+0x%lx)", (unsigned long)c.ips[1], exe_name(),
		         (unsigned long)(c.ips[1] - (uintptr_t)info.dli_fbase));
	}
	assert_string_equal(out, want);

	/* no module */
	pw_stack_format(0x10, out, sizeof out);
	assert_string_equal(out, "0x10");
	pw_stack_format(0, out, sizeof out);
	assert_string_equal(out, "0x0");

	/* bounded by len, always terminated; len 0 writes nothing */
	char full[256], small[12];
	pw_stack_format(c.ips[libc], full, sizeof full);
	memset(small, 'X', sizeof small);
	pw_stack_format(c.ips[libc], small, 8);
	assert_int_equal(strlen(small), 7);
	assert_memory_equal(small, full, 7);
	assert_int_equal(small[8], 'X');
	memset(small, 'X', sizeof small);
	pw_stack_format(c.ips[libc], small, 0);
	assert_int_equal(small[0], 'X');
}

static void names_of_nothing(void **state)
{
	(void)state;
	const char *f = "x", *m = "x";
	pw_stack_names(0x10, &f, &m);
	assert_string_equal(f, "");
	assert_string_equal(m, "");
	f = m = "x";
	pw_stack_names(0, &f, &m);
	assert_string_equal(f, "");
	assert_string_equal(m, "");
	pw_stack_names((uintptr_t)getpid + 1, &f, &m);
	assert_non_null(strstr(f, "getpid"));
	assert_string_equal(m, "libc.so.6");
	pw_stack_names((uintptr_t)getpid + 1, NULL, NULL); /* either may be left out */
	/* a return address at a function's first byte belongs to the call before it */
	const char *before;
	pw_stack_names((uintptr_t)getpid, &before, &m);
	assert_string_not_equal(before, f);
	assert_null(strstr(before, "getpid"));
}

static void no_allocation_after_the_first_capture(void **state)
{
	(void)state;
	ensure_init();
	for (int b = PW_STACK_LIBUNWIND; b <= PW_STACK_BACKTRACE; b++) {
		if (!pw_stack_select((enum pw_stack_backend)b))
			continue;
		struct chain c;
		run_chain(&c, 32, 0);
		struct mallinfo2 before = mallinfo2();
		for (int i = 0; i < 1000; i++)
			run_chain(&c, 32, 0);
		struct mallinfo2 after = mallinfo2();
		assert_int_equal(after.uordblks, before.uordblks);
		assert_int_equal(after.hblkhd, before.hblkhd);
	}
	pw_stack_select(PW_STACK_LIBUNWIND);
}

#define THREADS 4
static void *capture_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		struct chain c;
		run_chain(&c, 8, 0);
		if (c.n < 4 || c.ips[1] != c.ra_leaf || c.ips[2] != c.ra_mid || c.ips[3] != c.ra_cb)
			return (void *)1;
	}
	return NULL;
}

static void any_thread(void **state)
{
	(void)state;
	ensure_init();
	for (int b = PW_STACK_LIBUNWIND; b <= PW_STACK_BACKTRACE; b++) {
		if (!pw_stack_select((enum pw_stack_backend)b))
			continue;
		pthread_t t[THREADS];
		for (int i = 0; i < THREADS; i++)
			assert_int_equal(pthread_create(&t[i], NULL, capture_thread, NULL), 0);
		for (int i = 0; i < THREADS; i++) {
			void *r;
			pthread_join(t[i], &r);
			assert_null(r);
		}
	}
	pw_stack_select(PW_STACK_LIBUNWIND);
}

/*
 * Captures from many call sites (more than libunwind's global cache holds),
 * some of them inside dl_iterate_phdr callbacks, where the loader's lock is
 * held: with libunwind's global cache on, this deadlocks within a second or
 * two.  A deadlock ends the test by SIGALRM.
 */
static atomic_bool sites_stop;

CHAIN int pwtest_site_leaf(void);
CHAIN int pwtest_site_leaf(void)
{
	uintptr_t ips[8];
	int n = pw_stack_capture(ips, 8, 0);
	sink++;
	return n;
}

#define SITE(i)                             \
	CHAIN int pwtest_site##i(void);     \
	CHAIN int pwtest_site##i(void)      \
	{                                   \
		int n = pwtest_site_leaf(); \
		sink += 1;                  \
		return n;                   \
	}
#define SITE4(i) SITE(i##0) SITE(i##1) SITE(i##2) SITE(i##3)
#define SITE16(i) SITE4(i##0) SITE4(i##1) SITE4(i##2) SITE4(i##3)
#define SITE64(i) SITE16(i##0) SITE16(i##1) SITE16(i##2) SITE16(i##3)
SITE64(1)
SITE64(2)
SITE64(3)
SITE64(4)
#define REF(i) pwtest_site##i,
#define REF4(i) REF(i##0) REF(i##1) REF(i##2) REF(i##3)
#define REF16(i) REF4(i##0) REF4(i##1) REF4(i##2) REF4(i##3)
#define REF64(i) REF16(i##0) REF16(i##1) REF16(i##2) REF16(i##3)
static int (*const sites[])(void) = {REF64(1) REF64(2) REF64(3) REF64(4)};

static void all_sites(void)
{
	for (size_t i = 0; i < sizeof sites / sizeof *sites; i++)
		sites[i]();
}

static int sites_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(void)data;
	all_sites();
	return 1;
}

static void *sites_thread(void *arg)
{
	while (!atomic_load(&sites_stop)) {
		if (arg)
			dl_iterate_phdr(sites_cb, NULL);
		else
			all_sites();
	}
	return NULL;
}

static void no_deadlock_inside_dl_iterate_phdr(void **state)
{
	(void)state;
	ensure_init();
	assert_int_equal(sizeof sites / sizeof *sites, 256);
	alarm(30);
	for (int b = PW_STACK_LIBUNWIND; b <= PW_STACK_BACKTRACE; b++) {
		if (!pw_stack_select((enum pw_stack_backend)b))
			continue;
		atomic_store(&sites_stop, false);
		pthread_t t[6];
		for (long i = 0; i < 6; i++)
			assert_int_equal(pthread_create(&t[i], NULL, sites_thread, (void *)(i % 2)), 0);
		usleep(1500 * 1000);
		atomic_store(&sites_stop, true);
		for (int i = 0; i < 6; i++)
			pthread_join(t[i], NULL);
	}
	alarm(0);
	pw_stack_select(PW_STACK_LIBUNWIND);
}

/* The cost of pw_stack_capture(16 frames): printed for the record, not asserted. */
static void cost_of_a_capture(void **state)
{
	(void)state;
	ensure_init();
	enum { N = 20000 };
	for (int b = PW_STACK_LIBUNWIND; b <= PW_STACK_BACKTRACE; b++) {
		if (!pw_stack_select((enum pw_stack_backend)b))
			continue;
		uintptr_t ips[16];
		int n = 0;
		pwtest_deep(24, ips, 16, &n); /* warm */
		assert_int_equal(n, 16);
		uint64_t t0 = pw_now_ns();
		for (int i = 0; i < N; i++)
			pwtest_deep(24, ips, 16, &n);
		uint64_t dt = pw_now_ns() - t0;

		assert_int_equal(n, 16);
		print_message("pw_stack_capture(16 frames) with %s: %.0f ns\n",
		              pw_stack_backend_name((enum pw_stack_backend)b), (double)dt / N);
	}
	pw_stack_select(PW_STACK_LIBUNWIND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(libunwind_is_taken_from_beside_the_library_and_kept_private),
	    cmocka_unit_test(sibling_paths),
	    cmocka_unit_test(memory_checked_without_a_descriptor),
	    cmocka_unit_test(chain_with_libunwind),
	    cmocka_unit_test(chain_with_backtrace),
	    cmocka_unit_test(off_means_no_frames),
	    cmocka_unit_test(at_most_pw_stack_max_frames),
	    cmocka_unit_test(format_shapes),
	    cmocka_unit_test(names_of_nothing),
	    cmocka_unit_test(no_allocation_after_the_first_capture),
	    cmocka_unit_test(any_thread),
	    cmocka_unit_test(no_deadlock_inside_dl_iterate_phdr),
	    cmocka_unit_test(cost_of_a_capture),
	};
	return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
}

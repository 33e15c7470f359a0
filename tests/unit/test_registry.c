/*
 * The cross-process IPC registry: one process, forked processes that hold,
 * die and race, corrupt and hostile segments, a full table, run ids.
 *
 * Stale segments: removed when nobody uses them, never when someone does or
 * when they are not ours.
 *
 * Children report through a pipe after each phase (0: fine) and wait for the
 * parent's next word: 'n' next phase, 'x' exit without closing (as a crash
 * would), 'c' close the registry and exit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/pw.h"
#include "core/runid.h"
#include "state/registry.h"

static const size_t SEG_BYTES = sizeof(struct pw_reg_segment);

static char run[640];
static char shm[PW_REG_NAME_MAX];

/* A run id of our own per test, and the segment's name for it. */
static void use_run(const char *tag)
{
	snprintf(run, sizeof run, "pwtest-%d-%s", (int)getpid(), tag);
	assert_int_equal(pw_registry_shm_name(run, shm, sizeof shm), 0);
	shm_unlink(shm);
}

static bool shm_exists(const char *name)
{
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void handle(unsigned char *h, unsigned tag, unsigned i)
{
	memset(h, 0, PW_IPC_HANDLE_BYTES);
	memcpy(h, &tag, sizeof tag);
	memcpy(h + 8, &i, sizeof i);
	h[PW_IPC_HANDLE_BYTES - 1] = 0x5a;
}

/* Map the segment of the current run beside the registry's own mapping. */
static struct pw_reg_segment *peek(void)
{
	int fd = shm_open(shm, O_RDWR, 0);
	assert_true(fd >= 0);
	void *p = mmap(NULL, SEG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(p != MAP_FAILED);
	return p;
}

/* ---- stderr capture: how many peerwatch lines, and their text ---- */

static char captured[4096];
static int cap_fd = -1, cap_saved = -1;

static void cap_begin(void)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/pw-unit-registry.%d.XXXXXX", (int)getpid());
	cap_fd = mkstemp(path);
	assert_true(cap_fd >= 0);
	unlink(path);
	cap_saved = dup(STDERR_FILENO);
	dup2(cap_fd, STDERR_FILENO);
}

static int cap_end(void)
{
	dup2(cap_saved, STDERR_FILENO);
	close(cap_saved);
	ssize_t n = pread(cap_fd, captured, sizeof captured - 1, 0);
	close(cap_fd);
	captured[n > 0 ? n : 0] = '\0';
	int lines = 0;
	for (const char *p = captured; (p = strstr(p, "peerwatch[")); p++)
		lines++;
	return lines;
}

/* ---- children ---- */

typedef int (*kid_fn)(int phase, void *arg);
struct kid {
	pid_t pid;
	int cmd, ack;
};

#define KCHECK(c)                                                                                           \
	do {                                                                                                \
		if (!(c)) {                                                                                 \
			dprintf(2, "child %d: check failed at line %d: %s\n", (int)getpid(), __LINE__, #c); \
			return 1;                                                                           \
		}                                                                                           \
	} while (0)

static void kid_ack(struct kid *k)
{
	unsigned char r = 0xff;
	assert_int_equal(read(k->ack, &r, 1), 1);
	assert_int_equal(r, 0);
}

static void kid_send(struct kid *k, char cmd)
{
	assert_int_equal(write(k->cmd, &cmd, 1), 1);
}

static void kid_next(struct kid *k)
{
	kid_send(k, 'n');
	kid_ack(k);
}

static _Noreturn void kid_main(int cmd, int ack, kid_fn fn, void *arg)
{
	for (int phase = 0;; phase++) {
		unsigned char r = (unsigned char)fn(phase, arg);
		unsigned char c = 0;
		if (write(ack, &r, 1) != 1 || read(cmd, &c, 1) != 1)
			_exit(90);
		if (c == 'x')
			_exit(0);
		if (c == 'c') {
			pw_registry_close();
			_exit(0);
		}
	}
}

/* Fork a child that runs fn's phase 0 at once; returns after that phase. */
static void kid_start(struct kid *k, kid_fn fn, void *arg, bool wait_phase0)
{
	int c[2], a[2];
	assert_int_equal(pipe(c), 0);
	assert_int_equal(pipe(a), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(c[1]);
		close(a[0]);
		kid_main(c[0], a[1], fn, arg);
	}
	close(c[0]);
	close(a[1]);
	k->pid = pid;
	k->cmd = c[1];
	k->ack = a[0];
	if (wait_phase0)
		kid_ack(k);
}

/* Tell it how to end ('x' or 'c') and reap it, so kill(pid, 0) fails after. */
static void kid_end(struct kid *k, char how)
{
	int st = 0;
	kid_send(k, how);
	assert_int_equal(waitpid(k->pid, &st, 0), k->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(k->cmd);
	close(k->ack);
}

/* ---- one process ---- */

static void one_process_round_trip(void **state)
{
	(void)state;
	use_run("one");
	unsigned char h[PW_IPC_HANDLE_BYTES], other[PW_IPC_HANDLE_BYTES];
	handle(h, 1, 1);
	handle(other, 1, 2);
	struct pw_reg_export x;

	assert_false(pw_registry_active());
	pw_registry_export(h, 0x1000, 4096, 1); /* off: a no-op */
	assert_int_equal(pw_registry_lookup(h, &x), 0);

	assert_int_equal(pw_registry_open(run), 0);
	assert_true(pw_registry_active());
	assert_true(shm_exists(shm));
	struct stat st;
	char path[160];
	snprintf(path, sizeof path, "/dev/shm%s", shm);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, (off_t)SEG_BYTES);

	errno = 1234;
	pw_registry_export(h, 0x1000, 4096, 1);
	assert_int_equal(errno, 1234); /* a hook must not disturb errno */
	assert_int_equal(pw_registry_lookup(other, &x), 0);
	memset(&x, 0x7f, sizeof x);
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_int_equal(x.exporter_pid, getpid());
	assert_int_equal(x.exporter_alive, 1);
	assert_int_equal(x.freed, 0);
	assert_int_equal(x.base, 0x1000);
	assert_int_equal(x.size, 4096);
	assert_int_equal(x.device, 1);
	assert_string_equal(x.uuid, ""); /* exported without one */

	/* The exporting device's UUID travels with the handle; a re-export
	 * replaces it. */
	pw_registry_export_dev(h, 0x1000, 4096, 1, "GPU-7077736d-0001-4000-8000-5e1d00000000");
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_string_equal(x.uuid, "GPU-7077736d-0001-4000-8000-5e1d00000000");
	pw_registry_export_dev(h, 0x1000, 4096, 1, NULL);
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_string_equal(x.uuid, "");
	pw_registry_export_dev(h, 0x1000, 4096, 1, "GPU-7077736d-0001-4000-8000-5e1d00000000");

	/* Our own opens are not "another process". */
	pw_registry_opened(h);
	assert_int_equal(pw_registry_holders(0x1000, NULL, 0), 0);
	pw_registry_closed(h);
	pw_registry_closed(h); /* once too often: harmless */
	pw_registry_closed(other);
	pw_registry_opened(other); /* never exported: not recorded */
	assert_int_equal(pw_registry_lookup(other, &x), 0);

	pw_registry_freed(0x2000); /* not ours: nothing */
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_int_equal(x.freed, 0);
	pw_registry_freed(0x1000);
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_int_equal(x.freed, 1);
	assert_int_equal(x.exporter_alive, 1);

	pw_registry_close();
	assert_false(pw_registry_active());
	assert_int_equal(pw_registry_lookup(h, &x), 0);
	assert_false(shm_exists(shm)); /* the last user removed it */
	pw_registry_close();           /* twice: harmless */
}

/* ---- across processes ---- */

static unsigned char H[PW_IPC_HANDLE_BYTES];

static int kid_holds(int phase, void *arg)
{
	(void)arg;
	switch (phase) {
	case 0: /* what a forked child's constructor does */
		KCHECK(pw_registry_open(run) == 0);
		pw_registry_opened(H);
		pw_registry_opened(H);
		return 0;
	case 1: pw_registry_closed(H); return 0;
	default: pw_registry_closed(H); return 0;
	}
}

static void child_holds_then_dies(void **state)
{
	(void)state;
	use_run("holds");
	handle(H, 2, 1);
	int pids[4] = {0};
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(H, 0x10000, 1 << 20, 0);
	assert_int_equal(pw_registry_holders(0x10000, pids, 4), 0);

	struct kid k;
	kid_start(&k, kid_holds, NULL, true);
	assert_int_equal(pw_registry_holders(0x10000, pids, 4), 1);
	assert_int_equal(pids[0], k.pid);
	assert_int_equal(pw_registry_holders(0x10000, NULL, 0), 1);
	assert_int_equal(pw_registry_holders(0x10001, pids, 4), 0); /* another allocation */

	kid_next(&k); /* one of its two opens closed */
	assert_int_equal(pw_registry_holders(0x10000, pids, 4), 1);
	kid_end(&k, 'x'); /* dies still holding it */
	errno = 4321;
	assert_int_equal(pw_registry_holders(0x10000, pids, 4), 0);
	assert_int_equal(errno, 4321); /* kill() said ESRCH; the caller must not see it */

	kid_start(&k, kid_holds, NULL, true);
	kid_next(&k);
	kid_next(&k); /* both closed */
	assert_int_equal(pw_registry_holders(0x10000, pids, 4), 0);
	kid_end(&k, 'c');
	pw_registry_close();
	assert_false(shm_exists(shm));
}

static int kid_looks_stale(int phase, void *arg)
{
	(void)phase;
	struct pw_reg_export x;
	KCHECK(pw_registry_lookup(H, &x) == 1);
	KCHECK(x.freed == 1);
	KCHECK(x.exporter_alive == 1);
	KCHECK(x.exporter_pid == *(int *)arg);
	return 0;
}

static unsigned char H2[PW_IPC_HANDLE_BYTES];

static int kid_exports(int phase, void *arg)
{
	(void)arg;
	if (phase == 0)
		pw_registry_export(H2, 0x50000, 4096, 3);
	if (phase == 1)
		pw_registry_close();
	return 0;
}

static void stale_and_dead_exporter(void **state)
{
	(void)state;
	use_run("stale");
	handle(H, 3, 1);
	handle(H2, 3, 2);
	struct pw_reg_export x;
	int me = getpid();
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(H, 0x40000, 4096, 0);
	pw_registry_freed(0x40000);
	struct kid k;
	kid_start(&k, kid_looks_stale, &me, true);
	kid_end(&k, 'x');

	/* Its exporter died without a word: the allocation went with it. */
	kid_start(&k, kid_exports, NULL, true);
	assert_int_equal(pw_registry_lookup(H2, &x), 1);
	assert_int_equal(x.exporter_pid, k.pid);
	assert_int_equal(x.exporter_alive, 1);
	kid_end(&k, 'x');
	assert_int_equal(pw_registry_lookup(H2, &x), 1);
	assert_int_equal(x.exporter_alive, 0);
	assert_int_equal(x.freed, 0);
	assert_int_equal(x.device, 3);

	/* An exporter that closed the registry (exec) is gone though alive. */
	kid_start(&k, kid_exports, NULL, true);
	kid_next(&k);
	assert_int_equal(pw_registry_lookup(H2, &x), 1);
	assert_int_equal(x.exporter_pid, k.pid);
	assert_int_equal(x.exporter_alive, 0);
	kid_end(&k, 'x');
	pw_registry_close();
}

static int kid_opens_h(int phase, void *arg)
{
	(void)phase;
	(void)arg;
	pw_registry_opened(H); /* without open(): attached on first use */
	return 0;
}

/* Tell it to exit and wait until it is a zombie: ended, not reaped, so
 * kill(pid, 0) still succeeds.  kid_reap ends it. */
static void kid_zombie(struct kid *k)
{
	kid_send(k, 'x');
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)k->pid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");
		assert_non_null(f);
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'Z')
			break;
		usleep(1000);
	}
	assert_int_equal(kill(k->pid, 0), 0);
}

static void kid_reap(struct kid *k)
{
	int st = 0;
	assert_int_equal(waitpid(k->pid, &st, 0), k->pid);
	assert_true(WIFEXITED(st));
	close(k->cmd);
	close(k->ack);
}

/* A process that has ended holds nothing and exports nothing, even before
 * its parent reaps it. */
static void zombie_holds_nothing(void **state)
{
	(void)state;
	use_run("zombie");
	handle(H, 6, 1);
	handle(H2, 6, 2);
	struct pw_reg_export x;
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(H, 0x90000, 4096, 0);

	struct kid k;
	kid_start(&k, kid_opens_h, NULL, true);
	assert_int_equal(pw_registry_holders(0x90000, NULL, 0), 1);
	kid_zombie(&k);
	assert_int_equal(pw_registry_holders(0x90000, NULL, 0), 0);
	kid_reap(&k);

	kid_start(&k, kid_exports, NULL, true);
	assert_int_equal(pw_registry_lookup(H2, &x), 1);
	assert_int_equal(x.exporter_alive, 1);
	kid_zombie(&k);
	assert_int_equal(pw_registry_lookup(H2, &x), 1);
	assert_int_equal(x.exporter_alive, 0);
	kid_reap(&k);
	pw_registry_close();
}

static void reexport_is_a_fresh_entry(void **state)
{
	(void)state;
	use_run("reexport");
	handle(H, 4, 1);
	struct pw_reg_export x;
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(H, 0x80000, 100, 0);
	pw_registry_export(H, 0x80000, 200, 1); /* refresh */
	assert_int_equal(pw_registry_lookup(H, &x), 1);
	assert_int_equal(x.size, 200);
	assert_int_equal(x.device, 1);

	struct kid k;
	kid_start(&k, kid_opens_h, NULL, true);
	pw_registry_export(H, 0x80000, 200, 1); /* refresh keeps the holders */
	assert_int_equal(pw_registry_holders(0x80000, NULL, 0), 1);
	pw_registry_freed(0x80000);
	assert_int_equal(pw_registry_holders(0x80000, NULL, 0), 0); /* freed: not that allocation */
	assert_int_equal(pw_registry_lookup(H, &x), 1);
	assert_int_equal(x.freed, 1);

	/* A new allocation at the same address with the same handle. */
	pw_registry_export(H, 0x80000, 300, 1);
	assert_int_equal(pw_registry_lookup(H, &x), 1);
	assert_int_equal(x.freed, 0);
	assert_int_equal(x.size, 300);
	assert_int_equal(pw_registry_holders(0x80000, NULL, 0), 0); /* the old holds were of the old one */
	kid_end(&k, 'x');
	pw_registry_close();
}

/* ---- close and cleanup ---- */

static int kid_attaches(int phase, void *arg)
{
	(void)arg;
	if (phase == 0)
		pw_registry_opened(H); /* first use attaches */
	if (phase == 1)
		pw_registry_close();
	return 0;
}

static int kid_leaves_leftover(int phase, void *arg)
{
	(void)phase;
	(void)arg;
	KCHECK(pw_registry_open(run) == 0);
	pw_registry_export(H2, 0x90000, 64, 2);
	return 0;
}

static void close_unlinks_only_when_last(void **state)
{
	(void)state;
	use_run("close");
	handle(H, 5, 1);
	handle(H2, 5, 2);
	struct pw_reg_export x;
	assert_int_equal(pw_registry_open(run), 0);
	struct kid k;
	kid_start(&k, kid_attaches, NULL, true);
	pw_registry_close();
	assert_true(shm_exists(shm)); /* the child still uses it */
	kid_next(&k);
	assert_false(shm_exists(shm)); /* the child was the last */
	kid_end(&k, 'x');

	/* A child that dies without closing does not keep it. */
	assert_int_equal(pw_registry_open(run), 0);
	kid_start(&k, kid_attaches, NULL, true);
	kid_end(&k, 'x');
	pw_registry_close();
	assert_false(shm_exists(shm));

	/* Leftover of a run that crashed: reused by the next, its entries expired. */
	kid_start(&k, kid_leaves_leftover, NULL, true);
	kid_end(&k, 'x');
	assert_true(shm_exists(shm));
	assert_int_equal(pw_registry_open(run), 0);
	assert_int_equal(pw_registry_lookup(H2, &x), 1);
	assert_int_equal(x.exporter_alive, 0);
	pw_registry_close();
	assert_false(shm_exists(shm));

	/* A closer that died between marking it removed and removing it. */
	kid_start(&k, kid_leaves_leftover, NULL, true);
	kid_end(&k, 'x');
	struct pw_reg_segment *s = peek();
	s->unlinked = 1;
	munmap(s, SEG_BYTES);
	assert_int_equal(pw_registry_open(run), 0);
	assert_int_equal(pw_registry_lookup(H2, &x), 0); /* a fresh one */
	pw_registry_close();
	assert_false(shm_exists(shm));
}

/* Forked before its parent closed the last use: a call falls back (another
 * segment may exist by now), an open makes a fresh one. */
static int kid_after_parent_closed(int phase, void *arg)
{
	struct pw_reg_export x;
	if (phase != 1)
		return 0;
	if (arg) {
		KCHECK(pw_registry_open(run) == 0);
		KCHECK(pw_registry_active());
		pw_registry_export(H2, 0x60000, 1, 0);
		KCHECK(pw_registry_lookup(H2, &x) == 1);
		KCHECK(shm_exists(shm));
		return 0;
	}
	cap_begin();
	int found = pw_registry_lookup(H, &x);
	int lines = cap_end();
	KCHECK(found == 0);
	KCHECK(lines == 1 && strstr(captured, "removed"));
	KCHECK(!pw_registry_active());
	return 0;
}

static void forked_child_after_last_close(void **state)
{
	(void)state;
	use_run("orphan");
	handle(H, 16, 1);
	handle(H2, 16, 2);
	struct kid k;
	for (long reopen = 0; reopen < 2; reopen++) {
		assert_int_equal(pw_registry_open(run), 0);
		pw_registry_export(H, 0x60000, 1, 0);
		kid_start(&k, kid_after_parent_closed, (void *)reopen, true);
		pw_registry_close();
		assert_false(shm_exists(shm)); /* the child never used it */
		kid_next(&k);
		kid_end(&k, 'c');
		assert_false(shm_exists(shm));
	}
}

/* ---- corrupt and hostile segments ---- */

static void write_segment(const void *bytes, size_t n, mode_t mode)
{
	shm_unlink(shm);
	int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL, mode);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	close(fd);
}

/* Open must refuse with one warning that says why, and be a no-op after. */
static void refused(const char *why)
{
	unsigned char h[PW_IPC_HANDLE_BYTES];
	struct pw_reg_export x;
	handle(h, 6, 6);
	cap_begin();
	int r = pw_registry_open(run);
	int lines = cap_end();
	if (r != -1 || lines != 1 || !strstr(captured, why))
		fail_msg("expected one warning with \"%s\", got %d (open %d): %s", why, lines, r, captured);
	assert_false(pw_registry_active());
	pw_registry_export(h, 1, 1, 0);
	pw_registry_opened(h);
	assert_int_equal(pw_registry_lookup(h, &x), 0);
	assert_int_equal(pw_registry_holders(1, NULL, 0), 0);
	pw_registry_freed(1);
	pw_registry_closed(h);
	pw_registry_close();
}

static void garbage_segment_refused(void **state)
{
	(void)state;
	use_run("garbage");
	unsigned char *g = malloc(SEG_BYTES);
	assert_non_null(g);
	srand(7);
	for (size_t i = 0; i < SEG_BYTES; i++)
		g[i] = (unsigned char)rand();
	write_segment(g, SEG_BYTES, 0600);
	uint64_t t0 = pw_now_ns();
	refused("corrupt header");
	assert_true(pw_now_ns() - t0 < 500000000ull); /* known at once, not after a timeout */

	memset(g, 0xff, SEG_BYTES);
	write_segment(g, SEG_BYTES, 0600);
	refused("corrupt header");
	free(g);
	shm_unlink(shm);
}

static uint32_t checksum(const struct pw_reg_segment *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const void *f[] = {&s->magic,     &s->version,   &s->segment_bytes, &s->entry_bytes,
	                   &s->n_entries, &s->n_holders, &s->n_attach,      &s->pid_ns};
	const size_t n[] = {8, 4, 4, 4, 4, 4, 4, 8};
	for (int k = 0; k < 8; k++)
		for (size_t i = 0; i < n[k]; i++)
			h = (h ^ ((const unsigned char *)f[k])[i]) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

static void header_checks_refuse(void **state)
{
	(void)state;
	use_run("header");
	/* A valid segment to spoil, one field at a time. */
	assert_int_equal(pw_registry_open(run), 0);
	struct pw_reg_segment *live = peek();
	struct pw_reg_segment *good = malloc(SEG_BYTES), *bad = malloc(SEG_BYTES);
	assert_non_null(good);
	assert_non_null(bad);
	memcpy(good, live, SEG_BYTES);
	munmap(live, SEG_BYTES);
	pw_registry_close();
	assert_int_equal(good->checksum, checksum(good)); /* the test's copy of the sum is right */

	/* The unspoilt copy is accepted: what follows is refused for its one change. */
	write_segment(good, SEG_BYTES, 0600);
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_close();

	write_segment(good, 4096, 0600);
	refused("size 4096");
	write_segment(good, SEG_BYTES, 0644);
	refused("mode");
	memcpy(bad, good, SEG_BYTES);
	bad->magic ^= 1;
	bad->checksum = checksum(bad);
	write_segment(bad, SEG_BYTES, 0600);
	refused("bad magic");
	memcpy(bad, good, SEG_BYTES);
	bad->version = PW_REG_VERSION + 1;
	bad->checksum = checksum(bad);
	write_segment(bad, SEG_BYTES, 0600);
	char vtext[32];
	snprintf(vtext, sizeof vtext, "version %d", PW_REG_VERSION + 1);
	refused(vtext);
	memcpy(bad, good, SEG_BYTES);
	bad->checksum ^= 0x10;
	write_segment(bad, SEG_BYTES, 0600);
	refused("checksum");
	memcpy(bad, good, SEG_BYTES);
	bad->n_entries = 1u << 30;
	bad->checksum = checksum(bad);
	write_segment(bad, SEG_BYTES, 0600);
	refused("layout");
	memcpy(bad, good, SEG_BYTES);
	bad->pid_ns ^= 1;
	bad->checksum = checksum(bad);
	write_segment(bad, SEG_BYTES, 0600);
	refused("pid namespace");

	/* Sized but never made ready (its creator died making it), or never
	 * even sized: waited for once, then replaced by a fresh one. */
	memset(bad, 0, SEG_BYTES);
	for (size_t size = SEG_BYTES, k = 0; k < 2; k++, size = 0) {
		write_segment(bad, size, 0600);
		cap_begin();
		int r = pw_registry_open(run);
		int lines = cap_end();
		if (r != 0 || lines != 1 || !strstr(captured, "never initialised") ||
		    !strstr(captured, "replacing it"))
			fail_msg("size %zu: expected one line saying it is replaced, got %d (open %d): %s",
			         size, lines, r, captured);
		assert_true(pw_registry_active());
		struct pw_reg_segment *fresh = peek();
		assert_true(fresh->magic == PW_REG_MAGIC && fresh->ready == PW_REG_READY);
		munmap(fresh, SEG_BYTES);
		pw_registry_close();
	}

	/* Another user's file under the name: left alone, the run's next name
	 * is used (only root can make one here). */
	write_segment(good, SEG_BYTES, 0600);
	int fd = shm_open(shm, O_RDWR, 0);
	assert_true(fd >= 0);
	if (fchown(fd, 4321, (gid_t)-1) == 0) {
		char next[PW_REG_NAME_MAX];
		assert_int_equal(pw_registry_shm_name_n(run, 1, next, sizeof next), 0);
		shm_unlink(next);
		cap_begin();
		int r = pw_registry_open(run);
		int lines = cap_end();
		if (r != 0 || lines != 1 || !strstr(captured, "taken by another user"))
			fail_msg("expected one line about the name taken, got %d (open %d): %s", lines, r,
			         captured);
		assert_true(pw_registry_active());
		assert_true(shm_exists(next));
		struct stat st;
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_uid, 4321); /* untouched */
		pw_registry_close();
		assert_false(shm_exists(next));
	}
	close(fd);
	free(good);
	free(bad);
	shm_unlink(shm);
}

static void hostile_entries_survive(void **state)
{
	(void)state;
	use_run("hostile");
	unsigned char h[PW_IPC_HANDLE_BYTES], hx[PW_IPC_HANDLE_BYTES], hy[PW_IPC_HANDLE_BYTES];
	handle(h, 7, 1);
	handle(hx, 7, 2);
	handle(hy, 7, 3);
	struct pw_reg_export x;
	int me = getpid(), pids[8];
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(h, 0xa0000, 64, 0);

	struct pw_reg_segment *s = peek();
	s->hwm = UINT32_MAX;
	s->stamp = UINT64_MAX;
	for (int i = 0; i < PW_REG_ATTACH; i++)
		s->attached[i] = i % 2 ? -1 : INT32_MAX;
	for (int i = 1; i < PW_REG_ENTRIES; i++) {
		struct pw_reg_entry *e = &s->entries[i];
		memset(e, 0xff, sizeof *e);
		e->state = i % 3 ? PW_REG_USED : 0xdeadbeef;
	}
	/* Ours, with holder slots of every bad kind and one real holder. */
	struct pw_reg_entry *e = &s->entries[1];
	memset(e, 0, sizeof *e);
	e->state = PW_REG_USED;
	memcpy(e->handle, hx, sizeof hx);
	e->exporter_pid = me;
	e->base = 0xb0000;
	e->holders[0] = (struct pw_reg_holder){-1, 5};
	e->holders[1] = (struct pw_reg_holder){0, 3};
	e->holders[2] = (struct pw_reg_holder){INT32_MAX, 1}; /* no such process */
	e->holders[3] = (struct pw_reg_holder){1, -3};
	e->holders[4] = (struct pw_reg_holder){getppid(), 2};
	e->holders[5] = (struct pw_reg_holder){me, INT32_MAX};
	/* Exporter pids that kill() would find "alive": 0 and -1 name groups. */
	e = &s->entries[2];
	memset(e, 0, sizeof *e);
	e->state = PW_REG_USED;
	memcpy(e->handle, hy, sizeof hy);
	e->exporter_pid = -1;
	/* a UUID without its NUL, and one with a control character: not taken */
	memset(s->entries[1].uuid, 'A', sizeof s->entries[1].uuid);
	snprintf(e->uuid, sizeof e->uuid, "GPU-\x1b[2J");

	assert_int_equal(pw_registry_lookup(hx, &x), 1);
	assert_string_equal(x.uuid, "");
	assert_int_equal(pw_registry_lookup(hy, &x), 1);
	assert_string_equal(x.uuid, "");
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_int_equal(x.exporter_pid, me);
	assert_int_equal(pw_registry_holders(0xb0000, pids, 8), 1);
	assert_int_equal(pids[0], getppid());
	pw_registry_opened(hx); /* already at INT32_MAX: stays, no overflow */
	assert_int_equal(s->entries[1].holders[5].opens, INT32_MAX);
	assert_int_equal(pw_registry_lookup(hy, &x), 1);
	assert_int_equal(x.exporter_alive, 0);
	s->entries[2].exporter_pid = 0;
	assert_int_equal(pw_registry_lookup(hy, &x), 1);
	assert_int_equal(x.exporter_alive, 0);

	/* Peer connections: another live process's count, a dead one's and a
	 * garbled one's do not, nor do this process's own. */
	char got[4][PW_REG_UUID];
	memset(s->links, 0, sizeof s->links);
	s->links[0].pid = getppid();
	snprintf(s->links[0].a, sizeof s->links[0].a, "GPU-x");
	snprintf(s->links[0].b, sizeof s->links[0].b, "GPU-y");
	s->links[1] = s->links[0];
	s->links[1].pid = INT32_MAX; /* no such process */
	snprintf(s->links[1].b, sizeof s->links[1].b, "GPU-dead");
	s->links[2] = s->links[0];
	memset(s->links[2].b, 'z', sizeof s->links[2].b); /* no NUL */
	s->links[3] = s->links[0];
	s->links[3].pid = -5;
	assert_int_equal(pw_registry_peers_of("GPU-x", got, 4), 1);
	assert_string_equal(got[0], "GPU-y");
	assert_int_equal(pw_registry_peers_of("GPU-y", got, 4), 1);
	assert_string_equal(got[0], "GPU-x");
	pw_registry_peer("GPU-x", "GPU-mine", true);
	pw_registry_peer("GPU-x", "GPU-mine", true); /* once */
	assert_int_equal(pw_registry_peers_of("GPU-x", got, 4), 1);
	int mine = 0;
	for (int i = 0; i < PW_REG_LINKS; i++)
		mine += s->links[i].pid == me && !strcmp(s->links[i].b, "GPU-mine");
	assert_int_equal(mine, 1);
	pw_registry_peer("GPU-x", "GPU-mine", false);
	mine = 0;
	for (int i = 0; i < PW_REG_LINKS; i++)
		mine += s->links[i].pid == me;
	assert_int_equal(mine, 0);

	/* Everything else still works over the garbage. */
	unsigned char n[PW_IPC_HANDLE_BYTES];
	for (unsigned i = 0; i < 64; i++) {
		handle(n, 8, i);
		pw_registry_export(n, 0xc0000 + i, 1, 0);
		pw_registry_opened(n);
		pw_registry_closed(n);
		pw_registry_freed(0xc0000 + i);
		pw_registry_lookup(n, &x);
		pw_registry_holders(0xc0000 + i, pids, 8);
	}
	memset(s->entries, 0xff, sizeof s->entries);
	pw_registry_export(n, 1, 1, 0);
	pw_registry_lookup(n, &x);
	assert_true(pw_registry_active());
	munmap(s, SEG_BYTES);
	pw_registry_close();
	shm_unlink(shm);
}

/* ---- the lock ---- */

static int kid_takes_lock(int phase, void *arg)
{
	(void)phase;
	struct pw_reg_segment *s = peek();
	KCHECK(pthread_mutex_lock(&s->lock) == 0);
	if (arg) /* die holding it */
		_exit(0);
	return 0;
}

static void lock_owner_dies_or_sticks(void **state)
{
	(void)state;
	use_run("lock");
	handle(H, 9, 1);
	struct pw_reg_export x;
	assert_int_equal(pw_registry_open(run), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(kid_takes_lock(0, (void *)1));
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(WEXITSTATUS(st), 0);
	pw_registry_export(H, 0xd0000, 8, 0); /* EOWNERDEAD: made consistent, goes on */
	assert_int_equal(pw_registry_lookup(H, &x), 1);
	assert_int_equal(pw_registry_lookup(H, &x), 1);
	assert_true(pw_registry_active());

	/* A live process that never lets go: off after the timeout, once. */
	struct kid k;
	kid_start(&k, kid_takes_lock, NULL, true);
	cap_begin();
	int found = pw_registry_lookup(H, &x);
	pw_registry_export(H, 0xd0000, 8, 0);
	int lines = cap_end();
	assert_int_equal(found, 0);
	assert_int_equal(lines, 1);
	assert_non_null(strstr(captured, "held too long"));
	assert_false(pw_registry_active());
	pw_registry_close(); /* must not wait on the lock again */
	kid_end(&k, 'x');
	shm_unlink(shm);
}

/* ---- concurrency ---- */

#define KIDS 4
#define OPS 1000
#define BASE0 0x7000000ull

static unsigned char G[PW_IPC_HANDLE_BYTES];

/* Phase 1: OPS rounds of an export (250 new entries, then refreshes), a full
 * open/open/close/close of H (a holder slot taken and given back each time,
 * racing the others for slots) and one more open of G.  Phase 2 closes G
 * OPS - 1 times, phase 3 once more. */
static int kid_hammers(int phase, void *arg)
{
	unsigned me = (unsigned)(long)arg;
	unsigned char own[PW_IPC_HANDLE_BYTES];
	if (phase == 0 && me % 2)
		KCHECK(pw_registry_open(run) == 0); /* half attach by open, half by first use */
	for (unsigned i = 0; phase == 1 && i < OPS; i++) {
		handle(own, 100 + me, i % 250);
		pw_registry_export(own, ((uint64_t)(me + 1) << 32) + i % 250, i % 250 + 1, (int)me);
		pw_registry_opened(H);
		pw_registry_opened(H);
		pw_registry_closed(H);
		pw_registry_closed(H);
		pw_registry_opened(G);
	}
	for (int i = 0; phase == 2 && i < OPS - 1; i++)
		pw_registry_closed(G);
	if (phase == 3)
		pw_registry_closed(G);
	return 0;
}

static bool all_kids(const struct kid *k, const int *pids, int n)
{
	for (int i = 0; i < KIDS; i++) {
		bool seen = false;
		for (int j = 0; j < n; j++)
			seen |= pids[j] == k[i].pid;
		if (!seen)
			return false;
	}
	return true;
}

static void kids_step(struct kid *k)
{
	for (int i = 0; i < KIDS; i++) /* all at once */
		kid_send(&k[i], 'n');
	for (int i = 0; i < KIDS; i++)
		kid_ack(&k[i]);
}

static void four_processes_thousand_ops(void **state)
{
	(void)state;
	use_run("race");
	handle(H, 10, 0);
	handle(G, 10, 1);
	int pids[8];
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(H, BASE0, 4096, 0);
	pw_registry_export(G, BASE0 + 4096, 4096, 0);
	struct kid k[KIDS];
	for (long i = 0; i < KIDS; i++)
		kid_start(&k[i], kid_hammers, (void *)i, true);
	kids_step(k);

	/* Every export landed, none on another's entry. */
	unsigned char own[PW_IPC_HANDLE_BYTES];
	struct pw_reg_export x;
	for (unsigned c = 0; c < KIDS; c++)
		for (unsigned i = 0; i < 250; i++) {
			handle(own, 100 + c, i);
			assert_int_equal(pw_registry_lookup(own, &x), 1);
			assert_int_equal(x.exporter_pid, k[c].pid);
			assert_int_equal(x.base, ((uint64_t)(c + 1) << 32) + i);
			assert_int_equal(x.size, i + 1);
			assert_int_equal(x.device, (int)c);
		}
	/* Every open of H was closed; each holds G exactly OPS times. */
	assert_int_equal(pw_registry_holders(BASE0, pids, 8), 0);
	assert_int_equal(pw_registry_holders(BASE0 + 4096, pids, 8), KIDS);
	assert_true(all_kids(k, pids, KIDS));
	kids_step(k);
	assert_int_equal(pw_registry_holders(BASE0 + 4096, pids, 8), KIDS);
	kids_step(k);
	assert_int_equal(pw_registry_holders(BASE0 + 4096, pids, 8), 0); /* all alive, none holding */
	for (int i = 0; i < KIDS; i++)
		kid_end(&k[i], i % 2 ? 'c' : 'x');
	pw_registry_close();
	assert_false(shm_exists(shm));
}

/* ---- bounds ---- */

#define OWN(i) (0x100000000ull + (uint64_t)(i)*0x10000)

static int kid_exports_ten(int phase, void *arg)
{
	(void)arg;
	unsigned char h[PW_IPC_HANDLE_BYTES];
	for (unsigned i = 0; phase == 0 && i < 10; i++) {
		handle(h, 12, i);
		pw_registry_export(h, 0x5000 + i, 1, 0);
	}
	return 0;
}

static int kid_holds_own7(int phase, void *arg)
{
	(void)phase;
	(void)arg;
	unsigned char h[PW_IPC_HANDLE_BYTES];
	handle(h, 11, 7);
	pw_registry_opened(h);
	return 0;
}

static void table_full_and_reclaim(void **state)
{
	(void)state;
	use_run("full");
	unsigned char h[PW_IPC_HANDLE_BYTES];
	struct pw_reg_export x;
	assert_int_equal(pw_registry_open(run), 0);
	struct kid k;
	kid_start(&k, kid_exports_ten, NULL, true);
	kid_end(&k, 'x'); /* its 10 entries: exporter dead, nobody holds them */
	for (unsigned i = 0; i < PW_REG_ENTRIES - 10; i++) {
		handle(h, 11, i);
		pw_registry_export(h, OWN(i), 1, 0);
	}
	/* Full: the dead child's entries go first, oldest first. */
	for (unsigned i = 0; i < 10; i++) {
		handle(h, 13, i);
		pw_registry_export(h, 0x9000 + i, 1, 0);
		assert_int_equal(pw_registry_lookup(h, &x), 1);
		handle(h, 12, i);
		assert_int_equal(pw_registry_lookup(h, &x), 0);
	}
	/* Now every entry is live: nothing is overwritten, one warning. */
	cap_begin();
	handle(h, 14, 0);
	pw_registry_export(h, 0xe000, 1, 0);
	handle(h, 14, 1);
	pw_registry_export(h, 0xe001, 1, 0);
	int lines = cap_end();
	assert_int_equal(lines, 1);
	assert_non_null(strstr(captured, "full"));
	assert_int_equal(pw_registry_lookup(h, &x), 0);
	for (unsigned i = 0; i < PW_REG_ENTRIES - 10; i++) {
		handle(h, 11, i);
		assert_int_equal(pw_registry_lookup(h, &x), 1);
		assert_int_equal(x.base, OWN(i));
	}
	/* A freed entry somebody still maps stays; a freed one nobody maps goes. */
	kid_start(&k, kid_holds_own7, NULL, true);
	pw_registry_freed(OWN(7));
	handle(h, 14, 2);
	pw_registry_export(h, 0xe002, 1, 0);
	assert_int_equal(pw_registry_lookup(h, &x), 0);
	pw_registry_freed(OWN(5));
	pw_registry_export(h, 0xe002, 1, 0);
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	handle(h, 11, 5);
	assert_int_equal(pw_registry_lookup(h, &x), 0);
	handle(h, 11, 7);
	assert_int_equal(pw_registry_lookup(h, &x), 1);
	assert_int_equal(x.freed, 1);
	kid_end(&k, 'x');
	pw_registry_close();
	assert_false(shm_exists(shm));
}

static int kid_opens_counted(int phase, void *arg)
{
	int idx = (int)(long)arg;
	if (phase > 1)
		return 0;
	cap_begin();
	pw_registry_opened(H);
	int lines = cap_end();
	/* The 17th finds every slot taken (phase 0); later one was freed (phase 1). */
	KCHECK(lines == (idx == PW_REG_HOLDERS && phase == 0 ? 1 : 0));
	return 0;
}

static void holder_slots_full(void **state)
{
	(void)state;
	use_run("holders");
	handle(H, 15, 0);
	int pids[PW_REG_HOLDERS + 4];
	assert_int_equal(pw_registry_open(run), 0);
	pw_registry_export(H, 0xf0000, 1, 0);
	struct kid k[PW_REG_HOLDERS + 1];
	for (long i = 0; i <= PW_REG_HOLDERS; i++)
		kid_start(&k[i], kid_opens_counted, (void *)i, true);
	assert_int_equal(pw_registry_holders(0xf0000, pids, PW_REG_HOLDERS + 4), PW_REG_HOLDERS);
	assert_int_equal(pw_registry_holders(0xf0000, pids, 3), PW_REG_HOLDERS); /* counts past max */
	kid_end(&k[0], 'x');
	assert_int_equal(pw_registry_holders(0xf0000, pids, PW_REG_HOLDERS + 4), PW_REG_HOLDERS - 1);
	kid_next(&k[PW_REG_HOLDERS]); /* a dead one's slot is free again */
	assert_int_equal(pw_registry_holders(0xf0000, pids, PW_REG_HOLDERS + 4), PW_REG_HOLDERS);
	for (int i = 1; i <= PW_REG_HOLDERS; i++)
		kid_end(&k[i], 'x');
	pw_registry_close();
}

/* 1024 live pids already attached: the next one cannot be counted, so the
 * segment is pinned and no close may remove it under that process. */
static void attach_table_full_pins(void **state)
{
	(void)state;
	use_run("pinned");
	handle(H, 17, 1);
	assert_int_equal(pw_registry_open(run), 0);
	struct pw_reg_segment *s = peek();
	for (int i = 0; i < PW_REG_ATTACH; i++)
		s->attached[i] = getppid();
	assert_int_equal(s->pinned, 0);
	struct kid k;
	kid_start(&k, kid_opens_h, NULL, true);
	assert_int_equal(s->pinned, 1);
	memset(s->attached, 0, sizeof s->attached); /* they all went away */
	munmap(s, SEG_BYTES);
	pw_registry_close();
	assert_true(shm_exists(shm)); /* the child is alive and unrecorded */
	kid_end(&k, 'c');
	assert_true(shm_exists(shm)); /* pinned: left for a sweep, which looks for mappers */
	shm_unlink(shm);
}

/* ---- stale segments ---- */

/* The segment name of run id (attempt 0) into buf. */
static void name_of(const char *id, char *buf)
{
	assert_int_equal(pw_registry_shm_name(id, buf, PW_REG_NAME_MAX), 0);
}

static int kid_opens_run(int phase, void *arg)
{
	(void)phase;
	KCHECK(pw_registry_open(arg) == 0);
	return 0;
}

/* Maps the segment without the registry (unrecorded), and with lock != NULL
 * takes its lock too; keeps both until it exits. */
static int kid_maps_raw(int phase, void *lock)
{
	if (phase != 0)
		return 0;
	int fd = shm_open(shm, O_RDWR, 0);
	KCHECK(fd >= 0);
	struct pw_reg_segment *s = mmap(NULL, SEG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	KCHECK(s != MAP_FAILED);
	if (lock)
		KCHECK(pthread_mutex_lock(&s->lock) == 0);
	return 0;
}

/* A segment left by a run whose one process was killed. */
static void leave_stale(const char *id)
{
	struct kid k;
	kid_start(&k, kid_opens_run, (void *)id, true);
	kid_end(&k, 'x');
}

static enum pw_reap reap(const char *name, int *live)
{
	uint64_t bytes = 12345;
	int l = -1;
	enum pw_reap r = pw_registry_reap(name, false, &l, &bytes);
	if (r == PW_REAP_REMOVED)
		assert_int_equal(bytes, SEG_BYTES);
	if (live)
		*live = l;
	return r;
}

static void stale_segment_reaped(void **state)
{
	(void)state;
	use_run("reap");
	int live;
	struct kid k;
	assert_int_equal(reap(shm, NULL), PW_REAP_ABSENT);

	/* In use by a process that runs: kept, that process named. */
	kid_start(&k, kid_opens_run, run, true);
	assert_int_equal(reap(shm, &live), PW_REAP_LIVE);
	assert_int_equal(live, k.pid);
	assert_true(shm_exists(shm));
	kid_end(&k, 'x'); /* killed: it never closed it */
	assert_true(shm_exists(shm));
	assert_int_equal(reap(shm, NULL), PW_REAP_REMOVED);
	assert_false(shm_exists(shm));

	/* A recorded pid that runs but does not map it (reused since by an
	 * unrelated process) keeps nothing. */
	leave_stale(run);
	struct pw_reg_segment *s = peek();
	s->attached[7] = getppid();
	munmap(s, SEG_BYTES);
	assert_int_equal(kill(getppid(), 0), 0);
	assert_int_equal(reap(shm, NULL), PW_REAP_REMOVED);

	/* Pinned (its table overflowed): in use while any process maps it,
	 * recorded or not. */
	leave_stale(run);
	s = peek();
	s->pinned = 1;
	munmap(s, SEG_BYTES);
	kid_start(&k, kid_maps_raw, NULL, true);
	assert_int_equal(reap(shm, &live), PW_REAP_LIVE);
	assert_int_equal(live, k.pid);
	kid_end(&k, 'x');
	assert_int_equal(reap(shm, NULL), PW_REAP_REMOVED);

	/* Its lock held: in use (a sweep does not wait); its holder died
	 * holding it: taken over, and the segment goes. */
	leave_stale(run);
	kid_start(&k, kid_maps_raw, (void *)1, true);
	assert_int_equal(reap(shm, &live), PW_REAP_LIVE);
	assert_int_equal(live, 0);
	assert_true(shm_exists(shm));
	kid_end(&k, 'x');
	assert_int_equal(reap(shm, NULL), PW_REAP_REMOVED);
	assert_false(shm_exists(shm));
}

static void reap_leaves_what_is_not_ours(void **state)
{
	(void)state;
	use_run("notours");
	char path[PW_REG_NAME_MAX + 16], target[64];
	snprintf(path, sizeof path, "/dev/shm%s", shm);
	leave_stale(run);
	struct pw_reg_segment *good = malloc(SEG_BYTES), *bad = malloc(SEG_BYTES);
	assert_non_null(good);
	assert_non_null(bad);
	struct pw_reg_segment *s = peek();
	memcpy(good, s, SEG_BYTES); /* a registry nobody uses */
	munmap(s, SEG_BYTES);

	/* Not this build's, not private, not a registry: left, said so. */
	memcpy(bad, good, SEG_BYTES);
	bad->version = PW_REG_VERSION + 1;
	bad->checksum = checksum(bad);
	write_segment(bad, SEG_BYTES, 0600);
	assert_int_equal(reap(shm, NULL), PW_REAP_OTHER);
	write_segment(good, 4096, 0600);
	assert_int_equal(reap(shm, NULL), PW_REAP_OTHER);
	write_segment(good, SEG_BYTES, 0644);
	assert_int_equal(reap(shm, NULL), PW_REAP_OTHER);
	memset(bad, 0, SEG_BYTES); /* its creator died making it */
	write_segment(bad, SEG_BYTES, 0600);
	assert_int_equal(reap(shm, NULL), PW_REAP_OTHER);
	assert_true(shm_exists(shm));

	/* A symbolic link under the name, to a registry nobody uses: neither
	 * followed nor removed. */
	shm_unlink(shm);
	snprintf(target, sizeof target, "/tmp/pw-unit-registry.%d.target", (int)getpid());
	int fd = open(target, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, good, SEG_BYTES), (ssize_t)SEG_BYTES);
	close(fd);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(reap(shm, NULL), PW_REAP_FOREIGN);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	fd = open(target, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, bad, SEG_BYTES), (ssize_t)SEG_BYTES);
	close(fd);
	assert_memory_equal(bad, good, SEG_BYTES);
	unlink(path);
	unlink(target);

	/* Another user's (only root can make one here): untouched. */
	write_segment(good, SEG_BYTES, 0600);
	if (chown(path, 4321, (gid_t)-1) == 0) {
		assert_int_equal(reap(shm, NULL), PW_REAP_FOREIGN);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_uid, 4321);
	}
	shm_unlink(shm);
	free(good);
	free(bad);
}

/* The process that creates a run's segment removes the stale ones of the
 * user's other runs, and keeps those in use. */
static void creator_sweeps_earlier_runs(void **state)
{
	(void)state;
	char live_id[64], stale_id[64], live_name[PW_REG_NAME_MAX], stale_name[PW_REG_NAME_MAX];
	snprintf(live_id, sizeof live_id, "pwtest-%d-sweep-live", (int)getpid());
	snprintf(stale_id, sizeof stale_id, "pwtest-%d-sweep-stale", (int)getpid());
	name_of(live_id, live_name);
	name_of(stale_id, stale_name);
	use_run("sweep");
	/* Two runs killed, one running (each creator sweeps: they overlap). */
	struct kid kl, ka, kb;
	kid_start(&kl, kid_opens_run, live_id, true);
	kid_start(&ka, kid_opens_run, run, true);
	kid_start(&kb, kid_opens_run, stale_id, true);
	kid_end(&ka, 'x');
	kid_end(&kb, 'x');
	assert_true(shm_exists(shm));
	assert_true(shm_exists(stale_name));
	assert_true(shm_exists(live_name));

	/* Joining a run's segment sweeps nothing... */
	assert_int_equal(pw_registry_open(run), 0);
	assert_true(shm_exists(stale_name));
	pw_registry_close();
	assert_false(shm_exists(shm));
	/* ...creating one does. */
	assert_int_equal(pw_registry_open(run), 0);
	assert_false(shm_exists(stale_name));
	assert_true(shm_exists(live_name));
	assert_true(shm_exists(shm));
	pw_registry_close();
	kid_end(&kl, 'c');
	assert_false(shm_exists(live_name));
}

/* A symbolic link, a pipe or a directory under the run's name is passed over
 * for its next name, as another user's file is, at once and with one line;
 * what it is stays as it was. */
static void open_passes_over_what_is_no_file(void **state)
{
	(void)state;
	use_run("nofile");
	char path[PW_REG_NAME_MAX + 16], next[PW_REG_NAME_MAX], target[64];
	snprintf(path, sizeof path, "/dev/shm%s", shm);
	assert_int_equal(pw_registry_shm_name_n(run, 1, next, sizeof next), 0);
	shm_unlink(next);
	snprintf(target, sizeof target, "/tmp/pw-unit-registry.%d.target", (int)getpid());
	int fd = open(target, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
	struct stat st;
	const char *what[] = {"a symbolic link", "something that is not a regular file",
	                      "something that is not a regular file"};
	for (int i = 0; i < 3; i++) {
		int made = i == 0 ? symlink(target, path) : i == 1 ? mkfifo(path, 0600) : mkdir(path, 0700);
		assert_int_equal(made, 0);
		char want[96];
		snprintf(want, sizeof want, "taken by %s; trying another name", what[i]);
		cap_begin();
		int r = pw_registry_open(run);
		int lines = cap_end();
		if (r != 0 || lines != 1 || !strstr(captured, want))
			fail_msg("%s: expected one line \"%s\", got %d (open %d): %s", what[i], want, lines,
			         r, captured);
		assert_true(pw_registry_active());
		assert_true(shm_exists(next));
		pw_registry_close();
		assert_false(shm_exists(next));
		assert_int_equal(lstat(path, &st), 0);
		assert_true(i == 0   ? S_ISLNK(st.st_mode)
		            : i == 1 ? S_ISFIFO(st.st_mode)
		                     : S_ISDIR(st.st_mode));
		assert_int_equal(i == 2 ? rmdir(path) : unlink(path), 0);
	}
	assert_int_equal(stat(target, &st), 0); /* the link's target: still there, still empty */
	assert_int_equal(st.st_size, 0);
	unlink(target);
}

/* ---- run ids ---- */

/* "/peerwatch.<uid>.<16 hex digits>": nothing of the run id shows. */
static bool name_ok(const char *name)
{
	char want[32];
	int n = snprintf(want, sizeof want, "/peerwatch.%u.", (unsigned)getuid());
	if (strncmp(name, want, (size_t)n) != 0 || strlen(name + n) != 16)
		return false;
	return strspn(name + n, "0123456789abcdef") == 16;
}

static void run_ids_sanitized(void **state)
{
	(void)state;
	char name[PW_REG_NAME_MAX], name2[PW_REG_NAME_MAX];
	assert_int_equal(pw_registry_shm_name("../x", name, sizeof name), 0);
	assert_true(name_ok(name));
	assert_null(strstr(name, "x"));
	assert_int_equal(pw_registry_shm_name("", name, sizeof name), -1);
	assert_int_equal(pw_registry_shm_name(NULL, name, sizeof name), -1);
	assert_int_equal(pw_registry_shm_name("x", name, 8), -1);
	assert_int_equal(pw_registry_shm_name_n("x", -1, name, sizeof name), -1);
	assert_int_equal(pw_registry_shm_name("a b\n/c\xff", name, sizeof name), 0);
	assert_true(name_ok(name));

	char lng[501];
	memset(lng, '/', 500);
	lng[500] = '\0';
	assert_int_equal(pw_registry_shm_name(lng, name, sizeof name), 0);
	assert_true(name_ok(name));
	lng[499] = 'z'; /* differs only at the end: another segment */
	assert_int_equal(pw_registry_shm_name(lng, name2, sizeof name2), 0);
	assert_true(name_ok(name2));
	assert_string_not_equal(name, name2);
	assert_int_equal(pw_registry_shm_name(lng, name, sizeof name), 0);
	assert_string_equal(name, name2); /* and the same id, the same one */

	/* The run's names: one per attempt, none telling the next. */
	char names[PW_REG_NAMES][PW_REG_NAME_MAX];
	for (int a = 0; a < PW_REG_NAMES; a++) {
		assert_int_equal(pw_registry_shm_name_n("run-1", a, names[a], sizeof names[a]), 0);
		assert_true(name_ok(names[a]));
		for (int b = 0; b < a; b++)
			assert_string_not_equal(names[a], names[b]);
	}
	assert_int_equal(pw_registry_shm_name("run-1", name, sizeof name), 0);
	assert_string_equal(name, names[0]);
	assert_int_equal(pw_registry_shm_name("run-2", name, sizeof name), 0);
	assert_string_not_equal(name, names[0]);

	/* Hostile ids open a segment inside /dev/shm and nowhere else. */
	char id[600], raw[80];
	snprintf(id, sizeof id, "../x-%d", (int)getpid());
	snprintf(raw, sizeof raw, "/dev/x-%d", (int)getpid());
	snprintf(run, sizeof run, "%s", id);
	assert_int_equal(pw_registry_shm_name(run, shm, sizeof shm), 0);
	assert_int_equal(pw_registry_open(id), 0);
	assert_true(shm_exists(shm));
	assert_int_not_equal(access(raw, F_OK), 0);
	pw_registry_close();
	assert_false(shm_exists(shm));
	snprintf(id, sizeof id, "%d-%s", (int)getpid(), lng);
	assert_int_equal(pw_registry_shm_name(id, shm, sizeof shm), 0);
	assert_int_equal(pw_registry_open(id), 0);
	assert_true(shm_exists(shm));
	pw_registry_close();
	assert_false(shm_exists(shm));
	cap_begin();
	assert_int_equal(pw_registry_open(""), -1);
	assert_int_equal(cap_end(), 1);
}

static int kid_env_id(int phase, void *arg)
{
	(void)phase;
	(void)arg;
	setenv("PEERWATCH_RUN_ID", "launcher-42", 1);
	KCHECK(strcmp(pw_run_id(), "launcher-42") == 0);
	return 0;
}

static void run_id_from_env_or_made(void **state)
{
	(void)state;
	struct kid k;
	kid_start(&k, kid_env_id, NULL, true);
	kid_end(&k, 'x');

	unsetenv("PEERWATCH_RUN_ID");
	const char *id = pw_run_id();
	char prefix[32];
	int n = snprintf(prefix, sizeof prefix, "%d-", (int)getpid());
	/* "<pid>-" and 128 random bits: another user cannot guess it */
	assert_int_equal(strncmp(id, prefix, (size_t)n), 0);
	assert_int_equal(strlen(id + n), 32);
	assert_int_equal(strspn(id + n, "0123456789abcdef"), 32);
	assert_ptr_equal(pw_run_id(), id);
	assert_non_null(getenv("PEERWATCH_RUN_ID"));
	assert_string_equal(getenv("PEERWATCH_RUN_ID"), id);

	/* A child that execs inherits it. */
	char cmd[256];
	snprintf(cmd, sizeof cmd, "test \"$PEERWATCH_RUN_ID\" = '%s'", id);
	assert_int_equal(system(cmd), 0);

	/* open(NULL) uses it. */
	snprintf(run, sizeof run, "%s", id);
	assert_int_equal(pw_registry_shm_name(run, shm, sizeof shm), 0);
	assert_int_equal(pw_registry_open(NULL), 0);
	assert_true(shm_exists(shm));
	pw_registry_close();
	assert_false(shm_exists(shm));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_process_round_trip),
	    cmocka_unit_test(child_holds_then_dies),
	    cmocka_unit_test(stale_and_dead_exporter),
	    cmocka_unit_test(zombie_holds_nothing),
	    cmocka_unit_test(reexport_is_a_fresh_entry),
	    cmocka_unit_test(close_unlinks_only_when_last),
	    cmocka_unit_test(forked_child_after_last_close),
	    cmocka_unit_test(garbage_segment_refused),
	    cmocka_unit_test(header_checks_refuse),
	    cmocka_unit_test(hostile_entries_survive),
	    cmocka_unit_test(lock_owner_dies_or_sticks),
	    cmocka_unit_test(four_processes_thousand_ops),
	    cmocka_unit_test(table_full_and_reclaim),
	    cmocka_unit_test(holder_slots_full),
	    cmocka_unit_test(attach_table_full_pins),
	    cmocka_unit_test(stale_segment_reaped),
	    cmocka_unit_test(reap_leaves_what_is_not_ours),
	    cmocka_unit_test(creator_sweeps_earlier_runs),
	    cmocka_unit_test(open_passes_over_what_is_no_file),
	    cmocka_unit_test(run_ids_sanitized),
	    cmocka_unit_test(run_id_from_env_or_made),
	};
	return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}

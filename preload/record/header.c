/*
 * Header and footer of a trace file: once per file, never on the hot path.
 * The header is built with jansson by the thread making the process's first
 * traced call; jansson is linked in statically with hidden symbols, so the
 * traced program's own jansson (if any) and ours never meet.  The footer is
 * written while the process ends, with nothing allocated (see below).
 */
#include <elf.h>
#include <fcntl.h>
#include <jansson.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/header.h"
#include "core/launch.h"
#include "core/runid.h"
#include "record/jsonw.h"
#include "peerwatch/trace_format.h"
#include "core/pw.h"
#include "core/vendor.h"
#include "core/vendor_lib.h"

/* A JSON string from bytes that may not be UTF-8 (argv, paths). */
static json_t *str_lossy(const char *s, size_t n)
{
	json_t *j = json_stringn(s, n);
	if (j)
		return j;
	char *copy = malloc(n + 1);
	if (!copy)
		return json_string("?");
	for (size_t i = 0; i < n; i++)
		copy[i] = (unsigned char)s[i] < 0x80 && s[i] ? s[i] : '?';
	copy[n] = 0;
	j = json_string(copy);
	free(copy);
	return j;
}

static json_t *read_argv(void)
{
	json_t *a = json_array();
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return a;
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	for (ssize_t i = 0; i < n;) {
		size_t len = strnlen(buf + i, (size_t)(n - i));
		json_array_append_new(a, str_lossy(buf + i, len));
		i += (ssize_t)len + 1;
	}
	return a;
}

/* The variables that shape which devices a process sees and how it reaches
 * them, and only those: the environment may hold secrets. */
static bool shapes_devices(const char *name, size_t len)
{
	static const char *const prefixes[] = {"NCCL_", "HSA_", "HIP_", "ROCR_", "ASCEND_"};
	static const char *const names[] = {"CUDA_DEVICE_ORDER", "GPU_DEVICE_ORDINAL"};
	static const char suffix[] = "_VISIBLE_DEVICES";
	if (len >= sizeof suffix - 1 && !memcmp(name + len - (sizeof suffix - 1), suffix, sizeof suffix - 1))
		return true;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strlen(names[i]) == len && !memcmp(name, names[i], len))
			return true;
	return false;
}

#define PW_ENV_MAX 128
#define PW_ENV_VALUE_MAX 1024

static json_t *environment(void)
{
	extern char **environ;
	json_t *a = json_array();
	for (char **e = environ; e && *e && json_array_size(a) < PW_ENV_MAX; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || eq == *e || !shapes_devices(*e, (size_t)(eq - *e)))
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "name", str_lossy(*e, (size_t)(eq - *e)));
		json_object_set_new(o, "value", str_lossy(eq + 1, strnlen(eq + 1, PW_ENV_VALUE_MAX)));
		json_array_append_new(a, o);
	}
	return a;
}

static const char *const stacks_names[] = {"none", "violations", "all"};

/* A rank that is not a number is kept as the string it is. */
static json_t *rank_value(const char *rank)
{
	if (!rank)
		return json_null();
	char *end;
	long long v = strtoll(rank, &end, 10);
	return *rank && !*end ? json_integer(v) : str_lossy(rank, strlen(rank));
}

/* The GNU build id of a loaded object, from its PT_NOTE segments. */
static void build_id(const struct dl_phdr_info *info, char *out, size_t outlen)
{
	out[0] = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				size_t k = 0;
				for (unsigned j = 0; j < nh->n_descsz && k + 3 < outlen; j++, k += 2)
					snprintf(out + k, 3, "%02x", desc[j]);
				return;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	json_t *mods = arg;
	char path[4096];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		if (json_array_size(mods) != 0)
			return 0; /* the vDSO has no name either; only the first is the program */
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		path[n > 0 ? n : 0] = 0;
		name = path;
	}
	/* A module loaded by a relative path is recorded absolute, so the trace
	 * can be symbolized from any directory. */
	char abs[4096];
	if (name[0] != '/' && strchr(name, '/') && realpath(name, abs))
		name = abs;
	char bid[80];
	build_id(info, bid, sizeof bid);
	char base[24];
	snprintf(base, sizeof base, "0x%llx", (unsigned long long)info->dlpi_addr);
	json_t *m = json_object();
	json_object_set_new(m, "path", str_lossy(name, strlen(name)));
	json_object_set_new(m, "base", json_string(base));
	json_object_set_new(m, "build_id", bid[0] ? json_string(bid) : json_null());
	json_array_append_new(mods, m);
	return 0;
}

/*
 * dl_iterate_phdr holds the loader's lock while it runs.  If the program
 * forked while our writer thread held it, the child would inherit it locked
 * and hang at its own first dl_iterate_phdr (seen under ASan).  fork waits
 * for our listing (pw_header_fork_prepare, from pthread_atfork, takes the
 * lock our listings and our own loads share: core/vendor_lib.h), so it never
 * happens in the middle of one.
 */
void pw_header_fork_prepare(void)
{
	pw_loader_lock();
}

void pw_header_fork_parent(void)
{
	pw_loader_unlock();
}

void pw_header_fork_child(void)
{
	pw_loader_lock_child();
}

static json_t *modules(void)
{
	json_t *mods = json_array();
	pw_loader_lock();
	dl_iterate_phdr(add_module, mods);
	pw_loader_unlock();
	return mods;
}

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

char *pw_header_json(void)
{
	char host[256];
	if (gethostname(host, sizeof host))
		strcpy(host, "localhost");
	host[sizeof host - 1] = 0;
	json_t *h = json_object();
	json_object_set_new(h, "type", json_string("header"));
	json_object_set_new(h, "format", json_string(PW_FORMAT_NAME));
	json_object_set_new(h, "version", json_integer(PW_FORMAT_VERSION));
	json_object_set_new(h, "peerwatch_version", json_string(PW_VERSION));
	json_object_set_new(h, "pid", json_integer(getpid()));
	json_object_set_new(h, "ppid", json_integer(getppid()));
	json_object_set_new(h, "host", str_lossy(host, strlen(host)));
	const char *rank = pw_rank_env();
	json_object_set_new(h, "rank", rank_value(rank));
	json_object_set_new(h, "run_id", json_string(pw_run_id()));
	json_object_set_new(h, "argv", read_argv());
	json_object_set_new(h, "t0_mono_ns", json_integer((json_int_t)pw_g.t0_mono_ns));
	json_object_set_new(h, "t0_real_ns", json_integer((json_int_t)pw_g.t0_real_ns));
	json_t *o = json_object();
	json_object_set_new(o, "out", str_lossy(pw_g.opt.out, strlen(pw_g.opt.out)));
	json_object_set_new(o, "mode", json_string(pw_mode_name(pw_g.opt.mode)));
	json_object_set_new(o, "buffer_kb", json_integer((json_int_t)(pw_g.opt.buffer_bytes / 1024)));
	json_object_set_new(o, "halt_on", json_string(pw_severity_name(pw_g.opt.halt_on)));
	json_object_set_new(o, "stacks", json_string(stacks_names[pw_g.opt.stacks]));
	json_object_set_new(o, "stack_depth", json_integer(pw_g.opt.stack_depth));
	json_object_set_new(o, "suppressions",
	                    str_lossy(pw_g.opt.suppressions, strlen(pw_g.opt.suppressions)));
	json_object_set_new(o, "default_suppressions", json_boolean(pw_g.opt.default_suppressions));
	json_object_set_new(o, "registry", json_boolean(atomic_load(&pw_g.registry_active)));
	json_object_set_new(o, "gpu_timing", json_boolean(pw_g.opt.gpu_timing != PW_GT_NONE));
	static const char *const gt_names[] = {"none", "events", "cupti"};
	json_object_set_new(o, "gpu_timing_method", json_string(gt_names[pw_g.opt.gpu_timing]));
	json_object_set_new(o, "um_counters", json_boolean(pw_g.opt.um_counters));
	json_object_set_new(h, "options", o);
	json_t *v = json_object();
	pw_vendors_describe(v);
	json_object_set_new(h, "vendors", v);
	json_object_set_new(h, "modules", modules());
	json_object_set_new(h, "environment", environment());
	return dump(h);
}

/*
 * The footer is written while the process ends, perhaps from exit() called in
 * a signal handler that interrupted malloc: so it allocates nothing.  It is
 * written with the event writer (jsonw) into the caller's buffer, the module
 * list read without jansson, the repeats chosen without qsort.
 */

static int footer_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct pw_jw *w = arg;
	char path[4096], abs[4096], bid[80], *name = (char *)info->dlpi_name;
	bool first = w->need_comma == false;
	if (!name || !*name) {
		if (!first)
			return 0; /* the vDSO has no name either; only the first is the program */
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		path[n > 0 ? n : 0] = 0;
		name = path;
	}
	if (name[0] != '/' && strchr(name, '/') && realpath(name, abs))
		name = abs;
	build_id(info, bid, sizeof bid);
	if (!first)
		pw_jw_ch(w, ',');
	pw_jw_obj_open(w);
	pw_jw_key(w, "path");
	pw_jw_str_lossy(w, name);
	pw_jw_kv_hex(w, "base", (uint64_t)info->dlpi_addr);
	pw_jw_key(w, "build_id");
	if (bid[0])
		pw_jw_str(w, bid);
	else
		pw_jw_raw(w, "null", 4);
	pw_jw_obj_close(w);
	return 0;
}

static void footer_modules(struct pw_jw *w)
{
	pw_jw_key(w, "modules");
	pw_jw_ch(w, '[');
	w->need_comma = false; /* here: no module written yet */
	pw_loader_lock();
	dl_iterate_phdr(footer_module, w);
	pw_loader_unlock();
	pw_jw_ch(w, ']');
	w->need_comma = true;
}

const char *pw_drop_cause_name(int cause)
{
	const char *name = pw_drop_name(cause);
	return name ? name : "?";
}

size_t pw_footer_write(char *buf, size_t cap, const struct pw_trace_stats *s, const char *why, bool compact,
                       const struct pw_footer_in *in)
{
	/* without in: none of either, as in a process with no finding */
	static const char none[] =
	    "\"repeats\":0,\"repeats_by\":[],\"suppressed\":0,\"suppressed_default\":0";
	static const char none_full[] =
	    "\"repeats\":0,\"repeats_by\":[],\"suppressed\":0,\"suppressed_default\":0,\"suppressions\":[]";
	const char *above = in ? (compact ? in->compact : in->full) : compact ? none : none_full;
	struct pw_jw w;
	pw_jw_init(&w, buf, cap);
	uint64_t dropped = 0;
	for (int i = 0; i < PW_DROP_N; i++)
		dropped += s->dropped_by[i];
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "type", "footer");
	pw_jw_kv_u64(&w, "events", s->events);
	pw_jw_kv_u64(&w, "dropped", dropped);
	pw_jw_key(&w, "dropped_by");
	pw_jw_obj_open(&w);
	for (int i = 0; i < PW_DROP_N; i++)
		if (s->dropped_by[i])
			pw_jw_kv_u64(&w, pw_drop_cause_name(i), s->dropped_by[i]);
	pw_jw_obj_close(&w);
	pw_jw_kv_u64(&w, "violations", s->violations);
	if (*above) {
		pw_jw_ch(&w, ',');
		pw_jw_raw(&w, above, strlen(above));
	}
	if (pw_g.opt.gpu_timing)
		pw_jw_kv_u64(&w, "gpu_timing_skipped", pw_vendors_gt_skipped());
	uint64_t um_events, um_lost;
	const char *um_off;
	if (pw_vendors_um_footer(&um_events, &um_lost, &um_off)) {
		pw_jw_kv_u64(&w, "um_events", um_events);
		pw_jw_kv_u64(&w, "um_lost", um_lost);
		if (um_off)
			pw_jw_kv_str(&w, "um_off", um_off);
	}
	if (s->limited) {
		pw_jw_key(&w, "limit");
		pw_jw_obj_open(&w);
		pw_jw_kv_u64(&w, "bytes", s->limit_bytes);
		pw_jw_kv_u64(&w, "seq", s->limit_seq);
		pw_jw_kv_u64(&w, "t_ns", s->limit_t_ns);
		pw_jw_obj_close(&w);
	}
	if (s->write_error[0]) {
		pw_jw_key(&w, "write_error");
		pw_jw_str_lossy(&w, s->write_error);
	}
	uint64_t lost = 0;
	const char *report_error = pw_stderr_error(&lost);
	if (report_error) {
		char text[300];
		snprintf(text, sizeof text, "%s (%llu message%s not written)", report_error,
		         (unsigned long long)lost, lost == 1 ? "" : "s");
		pw_jw_key(&w, "report_error");
		pw_jw_str_lossy(&w, text);
	}
	pw_jw_kv_u64(&w, "t_end_ns", pw_now_ns());
	pw_jw_kv_str(&w, "reason", why);
	/* Libraries loaded after the header (dlopen) matter to stack symbolization. */
	if (!compact)
		footer_modules(&w);
	pw_jw_obj_close(&w);
	if (w.overflow)
		return 0;
	return (size_t)(w.p - buf);
}

/*
 * What happens to a finding: a violation event in the trace, a report in
 * the sanitizers' shape on stderr (or log_path.<pid>) in warn and enforce
 * modes, and in enforce mode the end of the process before the call runs.
 *
 *   ==1234== peerwatch: error: ipc.export.interior-pointer in cuIpcGetMemHandle
 *   ==1234==   cuIpcGetMemHandle is given 0x7f..100, 256 bytes into ...
 *   ==1234==   contract: CUDA Driver API, Memory Management, cuIpcGetMemHandle:
 *   ==1234==             "Takes a pointer to the base of an existing device memory ..."
 *   ==1234==             https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html
 *   ==1234==   runtime:  silent: the handle names the whole allocation ...
 *   ==1234==   fix:      export the allocation's base and send the offset ...
 *   ==1234==     #0 main+0x1c (prog)
 *
 * A finding of the same rule at the same call site (the program's return
 * address of the call that broke the contract) is reported in full once,
 * report and violation event, then only counted: a loop that breaks one
 * contract a million times makes one report, and the footer's "repeats"
 * and "repeats_by" say how many more there were.  Findings at exit (ipc.leak
 * of each mapping) are each reported.
 *
 * Reports go through pw_write_out: a closed or full stderr pipe, or a
 * log_path file past the file-size limit, never raises a signal in the
 * program or blocks it; the destination is then given up (stderr's reason
 * goes into the footer, log_path's onto stderr).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rules/check.h"
#include "record/header.h"
#include "record/jsonw.h"
#include "core/color.h"
#include "core/fd.h"
#include "state/devices.h"
#include "rules/report.h"
#include "core/intercept.h"
#include "core/pw.h"
#include "state/registry.h"
#include "rules/rules.h"
#include "core/srcline.h"
#include "core/stack.h"
#include "rules/suppress.h"
#include "record/trace.h"
#include "core/vendor.h"

static atomic_uint_fast64_t violations;
static atomic_uint_fast64_t by_sev[3]; /* every finding not suppressed, by severity */
/* The log_path file: kept out of the program's descriptors (core/fd.h). */
static struct pw_fd log_fd = PW_FD_NONE;
static bool log_failed;
static atomic_bool log_dead; /* a write to the log_path file failed */
static void pw_report_forget_repeats(void);
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t pw_report_violations(void)
{
	return atomic_load(&violations);
}

void pw_report_by_severity(uint64_t out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = atomic_load(&by_sev[i]);
}

void pw_report_counts_text(char *buf, size_t cap, bool color)
{
	static const char *const sing[] = {"error", "warning", "performance finding"};
	static const char *const plur[] = {"errors", "warnings", "performance findings"};
	uint64_t n[3], total = 0, supp = pw_suppress_count();
	size_t len = 0;
	pw_report_by_severity(n);
	for (int i = 0; i < 3; i++)
		total += n[i];
#define PUT(...) (len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__))
	int kinds = !!n[0] + !!n[1] + !!n[2];
	if (!total)
		PUT("no findings");
	else if (kinds > 1)
		PUT("%llu findings: ", (unsigned long long)total);
	for (int i = 0, k = 0; i < 3; i++)
		if (n[i])
			PUT("%s%s%llu %s%s", k++ ? ", " : "", pw_color_sev(color, i),
			    (unsigned long long)n[i], n[i] == 1 ? sing[i] : plur[i], pw_color_reset(color));
	if (supp)
		PUT(", %llu suppressed", (unsigned long long)supp);
#undef PUT
}

/* Each suppression that matched, with its count, as ASan lists them at exit. */
static void footer_suppressions(struct pw_jw *w)
{
	const char *text;
	int line;
	uint64_t hits;
	pw_jw_key(w, "suppressions");
	pw_jw_ch(w, '[');
	bool any = false;
	for (int i = 0; pw_suppress_entry(i, &text, &line, &hits); i++) {
		if (!hits)
			continue;
		if (any)
			pw_jw_ch(w, ',');
		any = true;
		pw_jw_obj_open(w);
		pw_jw_kv_i64(w, "line", line);
		pw_jw_key(w, "suppression");
		pw_jw_str_lossy(w, text);
		pw_jw_kv_u64(w, "hits", hits);
		const char *name = pw_suppress_entry_name(i);
		if (name)
			pw_jw_kv_str(w, "default", name);
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
	w->need_comma = true;
}

/* The (rule, site) pairs that repeated, most first. */
static void footer_repeats(struct pw_jw *w, size_t max)
{
	static struct pw_repeat r[PW_FOOTER_REPEATS_MAX];
	if (max > PW_FOOTER_REPEATS_MAX)
		max = PW_FOOTER_REPEATS_MAX;
	size_t n = pw_report_repeats_by(r, max);
	pw_jw_kv_u64(w, "repeats", pw_report_repeats());
	pw_jw_key(w, "repeats_by");
	pw_jw_ch(w, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			pw_jw_ch(w, ',');
		pw_jw_obj_open(w);
		pw_jw_kv_str(w, "rule", pw_rules[r[i].rule].id);
		pw_jw_kv_hex(w, "site", (uint64_t)r[i].site);
		pw_jw_kv_u64(w, "count", r[i].count);
		pw_jw_obj_close(w);
	}
	pw_jw_ch(w, ']');
	w->need_comma = true;
}

/* What this room adds to the footer (record/header.h): the repeats and the
 * suppressions, in full and compact.  Allocates nothing: it runs where the
 * process ends, perhaps in exit() from a signal handler. */
const struct pw_footer_in *pw_report_footer(void)
{
	static struct pw_footer_in in;
	for (int compact = 0; compact < 2; compact++) {
		struct pw_jw w;
		char *buf = compact ? in.compact : in.full;
		size_t cap = compact ? sizeof in.compact : sizeof in.full;
		pw_jw_init(&w, buf, cap - 1);
		w.need_comma = false;
		footer_repeats(&w, compact ? 8 : PW_FOOTER_REPEATS_MAX);
		pw_jw_kv_u64(&w, "suppressed", pw_suppress_count());
		pw_jw_kv_u64(&w, "suppressed_default", pw_suppress_count_default());
		if (!compact)
			footer_suppressions(&w);
		size_t n = w.overflow ? 0 : (size_t)(w.p - buf);
		buf[n] = 0;
	}
	/* too long in full: the full footer says what the compact one does */
	if (!in.full[0])
		memcpy(in.full, in.compact, strlen(in.compact) + 1);
	pw_report_counts_text(in.counts, sizeof in.counts, false); /* pw_log escapes SGR */
	return &in;
}

/* A forked child reports into its own log_path file and counts its own findings. */
void pw_report_after_fork(void)
{
	pw_fd_close(&log_fd); /* the child's copy, if still ours */
	log_failed = false;
	atomic_store(&log_dead, false);
	pthread_mutex_init(&log_lock, NULL);
	atomic_store(&violations, 0);
	for (int i = 0; i < 3; i++)
		atomic_store(&by_sev[i], 0);
	pw_report_forget_repeats();
	pw_suppress_reset_count();
}

static void write_event(const struct pw_call *c, const struct pw_op *op, int rule, const char *msg,
                        const uintptr_t *ips, int n)
{
	struct pw_jw w;
	if (!pw_trace_finding_begin(&w))
		return;
	pw_jw_obj_open(&w);
	pw_jw_kv_str(&w, "type", "violation");
	pw_jw_kv_u64(&w, "seq", pw_seq_next());
	if (c)
		pw_jw_kv_u64(&w, "call", c->seq);
	if (!pw_tls_tid)
		pw_tls_tid = pw_gettid();
	pw_jw_kv_i64(&w, "tid", pw_tls_tid);
	pw_jw_kv_u64(&w, "t_ns", pw_now_ns());
	pw_jw_kv_str(&w, "vendor", pw_vendor_name(op->vendor));
	pw_jw_kv_str(&w, "api", op->api);
	/* the call event's op; for a finding made when the process ends, the END op */
	const char *op_name = pw_op_name(c ? c->fn->op : (int)op->kind);
	pw_jw_kv_str(&w, "op", op_name ? op_name : "none");
	pw_jw_kv_str(&w, "rule", pw_rules[rule].id);
	pw_jw_kv_str(&w, "severity", pw_severity_name(pw_rules[rule].severity));
	pw_jw_kv_str(&w, "message", msg);
	if (n > 0) {
		pw_jw_key(&w, "stack");
		pw_jw_ch(&w, '[');
		for (int i = 0; i < n; i++) {
			if (i)
				pw_jw_ch(&w, ',');
			pw_jw_hex(&w, ips[i]);
		}
		pw_jw_ch(&w, ']');
	}
	pw_jw_obj_close(&w);
	pw_trace_finding_end(&w);
}

/*
 * Where reports go: the log_path file, or stderr.  The file's descriptor
 * is checked before each report; if the program closed it or put another
 * file on its number, the file is opened again by its path (appending, as
 * a log does, to whatever file has that name now).
 */
static int report_fd(void)
{
	if (!pw_g.opt.log_path[0] || atomic_load(&log_dead))
		return STDERR_FILENO;
	pthread_mutex_lock(&log_lock);
	int fd = pw_fd_get(&log_fd);
	if (fd < 0 && !log_failed) {
		char path[sizeof pw_g.opt.log_path + 16]; /* past PATH_MAX, open says so */
		snprintf(path, sizeof path, "%s.%d", pw_g.opt.log_path, (int)getpid());
		if (pw_fd_keep(&log_fd,
		               open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600))) {
			log_failed = true;
			pw_log("cannot open log_path %s (%m): reports go to stderr", path);
		}
		fd = log_fd.fd;
	}
	pthread_mutex_unlock(&log_lock);
	return fd >= 0 ? fd : STDERR_FILENO;
}

/* One report: to log_path's file or stderr, raising no signal, never
 * waiting long; a log file that fails is given up for stderr. */
static void report_write(const char *buf, size_t len)
{
	pw_fd_use_begin(); /* the log's descriptor, against the program's dup2 (core/fd.h) */
	int fd = report_fd();
	if (fd == STDERR_FILENO) {
		pw_fd_use_end();
		pw_stderr_write(buf, len);
		return;
	}
	int rc = pw_write_out(fd, buf, len), e = errno;
	pw_fd_use_end();
	if (rc == 0)
		return;
	if (!atomic_exchange(&log_dead, true))
		pw_log("writing reports to log_path %s.%d failed (%s): reports go to stderr from now on",
		       pw_g.opt.log_path, (int)getpid(), strerror(e));
	pw_stderr_write(buf, len);
}

/* One report, written with one write(2) so reports of threads don't mix.
 * Text that is not ours (the message quotes the program's values, frames
 * name its files) goes out with control bytes escaped.  Frames are named
 * by function and source line where libdw can (core/srcline.h: loaded at
 * the first report with frames), except at exit: the process is ending,
 * perhaps from a signal handler, and the frames are its exit path. */
static void print_report(int rule, const struct pw_op *op, const char *msg, const uintptr_t *ips, int n,
                         bool at_exit)
{
	const struct pw_rule_info *r = &pw_rules[rule];
	char buf[8192], text[1200];
	size_t len = 0;
	int pid = (int)getpid();
	/* not on the hot path: the first finding of a rule at a call site */
	bool on = pw_color_for_fd((enum pw_color)pw_g.opt.color, report_fd());
#define PUT(...) (len += (size_t)snprintf(buf + len, len < sizeof buf ? sizeof buf - len : 0, __VA_ARGS__))
	PUT("==%d== peerwatch: %s%s%s: %s%s%s in %s\n", pid, pw_color_sev(on, r->severity),
	    pw_severity_name(r->severity), pw_color_reset(on), pw_color_bold(on), r->id, pw_color_reset(on),
	    op->api);
	pw_escape(text, sizeof text, msg, strlen(msg));
	PUT("==%d==   %s\n", pid, text);
	/* contract, runtime and fix in the finding's own vendor's words (an
	 * ACL finding quotes ACL's document, names ACL's codes and calls);
	 * test_rules.c holds every vendor of a rule to having them */
	const struct pw_rule_cite *cite = pw_rule_cite(rule, op->vendor);
	if (cite) {
		PUT("==%d==   contract: %s:\n==%d==             \"%s\"\n", pid, cite->document, pid,
		    cite->quote);
		if (cite->url[0])
			PUT("==%d==             %s\n", pid, cite->url);
		PUT("==%d==   runtime:  %s\n", pid, cite->runtime);
		PUT("==%d==   fix:      %s\n", pid, cite->fix);
	} else {
		PUT("==%d==   contract: %s\n", pid, r->source);
	}
	struct pw_srcline src;
	bool lines = n > 0 && !at_exit && pw_srcline_begin(&src);
	for (int i = 0; i < n; i++) {
		char frame[300];
		if (!lines || !pw_srcline_format(&src, ips[i], frame, sizeof frame))
			pw_stack_format(ips[i], frame, sizeof frame);
		pw_escape(text, sizeof text, frame, strlen(frame));
		PUT("==%d==     #%d %s\n", pid, i, text);
	}
	if (lines)
		pw_srcline_end(&src);
	/* the rest: every frame named offline, the run's other findings */
	const char *trace = pw_trace_path(), *slash = strrchr(trace, '/');
	if (slash) {
		pw_escape(text, sizeof text, trace, (size_t)(slash - trace));
		PUT("==%d==   more:     peerwatch-analyze violations %s\n", pid, text);
	}
#undef PUT
	if (len > sizeof buf - 1)
		len = sizeof buf - 1;
	report_write(buf, len);
}

/*
 * (rule, call site) pairs seen: the first finding of each is reported in
 * full, the rest counted.  An open-addressed table, no lock; when it is
 * full, a new pair is counted under its rule with site 0.
 */
#define SITES 4096
static struct {
	_Atomic uint64_t key; /* site << 8 | rule << 1 | 1; 0: free */
	_Atomic uint64_t count;
} sites[SITES];
static _Atomic uint64_t overflow[PW_RULE_COUNT]; /* pairs the table had no room for */
static _Atomic uint64_t repeats;

static void pw_report_forget_repeats(void)
{
	for (int i = 0; i < SITES; i++) {
		atomic_store(&sites[i].key, 0);
		atomic_store(&sites[i].count, 0);
	}
	for (int i = 0; i < PW_RULE_COUNT; i++)
		atomic_store(&overflow[i], 0);
	atomic_store(&repeats, 0);
}

/* True the first time this rule fires at this site; counts the others. */
static bool first_at_site(int rule, uintptr_t site)
{
	/* user-space addresses fit in 56 bits: the site and the rule both fit */
	uint64_t key = (uint64_t)site << 8 | (uint64_t)rule << 1 | 1;
	unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 52) % SITES;
	for (unsigned i = 0; i < SITES; i++) {
		unsigned s = (h + i) % SITES;
		uint64_t k = atomic_load(&sites[s].key);
		if (!k) {
			uint64_t empty = 0;
			if (atomic_compare_exchange_strong(&sites[s].key, &empty, key))
				return true;
			k = empty;
		}
		if (k == key) {
			atomic_fetch_add(&sites[s].count, 1);
			atomic_fetch_add(&repeats, 1);
			return false;
		}
	}
	atomic_fetch_add(&overflow[rule], 1);
	atomic_fetch_add(&repeats, 1);
	return false;
}

uint64_t pw_report_repeats(void)
{
	return atomic_load(&repeats);
}

/* Kept sorted by insertion, most first: no qsort, which may allocate (this
 * runs while the process ends; see header.c). */
size_t pw_report_repeats_by(struct pw_repeat *out, size_t max)
{
	size_t n = 0;
	for (int i = 0; i < SITES + PW_RULE_COUNT; i++) {
		struct pw_repeat e;
		if (i < SITES) {
			uint64_t k = atomic_load(&sites[i].key), c = atomic_load(&sites[i].count);
			if (!k || !c)
				continue;
			e = (struct pw_repeat){(int)((k >> 1) & 0x7f), (uintptr_t)(k >> 8), c};
		} else {
			uint64_t c = atomic_load(&overflow[i - SITES]);
			if (!c)
				continue;
			e = (struct pw_repeat){i - SITES, 0, c};
		}
		size_t at = n;
		while (at > 0 && out[at - 1].count < e.count)
			at--;
		if (at >= max)
			continue;
		size_t keep = n < max ? n : max - 1;
		memmove(out + at + 1, out + at, (keep - at) * sizeof *out);
		out[at] = e;
		if (n < max)
			n++;
	}
	return n;
}

/* The call's event says which of its findings a suppression took, so that
 * the analyzer does not derive them again. */
static void mark_suppressed(const struct pw_call *c, int rule)
{
	struct pw_suppressed_mark *m = &pw_tls_suppressed;
	if (!c)
		return;
	if (m->seq != c->seq) {
		m->seq = c->seq;
		m->n = 0;
	}
	for (int i = 0; i < m->n; i++)
		if (m->rule[i] == rule)
			return;
	if (m->n < PW_SUPPRESSED_MAX)
		m->rule[m->n++] = rule;
}

/* One line per default suppression that took findings: where they came
 * from, and how to see them. */
static void summary_defaults(void)
{
	const char *name, *dname, *library;
	uint64_t hits;
	for (int i = 0; pw_suppress_entry(i, NULL, NULL, &hits); i++) {
		name = pw_suppress_entry_name(i);
		if (!name || !hits)
			continue;
		library = "a third-party library";
		const char *lib;
		for (size_t d = 0; pw_suppress_default(d, &dname, NULL, &lib, NULL); d++)
			if (!strcmp(dname, name))
				library = lib;
		char line[400];
		int k =
		    snprintf(line, sizeof line,
		             "==%d== peerwatch: %llu finding%s in %s suppressed by the default "
		             "suppressions (%s: `peerwatch-analyze rules --suppressions` says why; "
		             "default_suppressions=0 reports them)\n",
		             (int)getpid(), (unsigned long long)hits, hits == 1 ? "" : "s", library, name);
		report_write(line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
	}
}

void pw_report_summary(void)
{
	if (pw_g.opt.mode == PW_MODE_OBSERVE || pw_g.opt.verbosity < 1)
		return;
	if (pw_suppress_count_default())
		summary_defaults();
	uint64_t n = pw_report_repeats();
	if (!n)
		return;
	char line[300];
	int k = snprintf(line, sizeof line,
	                 "==%d== peerwatch: %llu more finding%s of a rule at a call site already reported "
	                 "%s counted, not reported again (the trace footer's \"repeats_by\" lists them)\n",
	                 (int)getpid(), (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "was" : "were");
	report_write(line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
}

static _Noreturn void stop(const struct pw_op *op, int rule)
{
	char line[400];
	int n = snprintf(line, sizeof line,
	                 "==%d== peerwatch: stopping before %s runs (mode=enforce, halt_on=%s): %s\n",
	                 (int)getpid(), op->api, pw_severity_name(pw_g.opt.halt_on), pw_rules[rule].id);
	report_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	pw_trace_finish("enforce", pw_report_footer());
	pw_registry_close();
	if (pw_g.opt.exitcode) {
		void (*real_exit)(int) = (void (*)(int))pw_real_dlsym(RTLD_NEXT, "_exit");
		if (real_exit)
			real_exit(pw_g.opt.exitcode);
		syscall(SYS_exit_group, pw_g.opt.exitcode); /* never our own _exit hook */
	}
	abort();
}

/* buf += s, cut at len (the message's limit). */
static void append(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf), m = strlen(s);
	if (n + 1 >= len)
		return;
	if (m > len - 1 - n)
		m = len - 1 - n;
	memcpy(buf + n, s, m);
	buf[n + m] = 0;
}

/*
 * A finding that two devices are not peers (the runtime refused, or a copy
 * between them is staged through the host) says why, when the vendor's
 * management library can: asked here, only for a finding that is
 * reported, once per pair (devices.c remembers the answer).
 */
static const char *with_why(const struct pw_op *op, int rule, const char *msg, char *buf, size_t len)
{
	int a, b;
	if (rule == PW_RULE_PEER_ENABLE_UNSUPPORTED) {
		a = op->cur_dev;
		b = op->peer_dev;
	} else if (rule == PW_RULE_COPY_PEER_NO_PEER_ACCESS) {
		a = op->src.dev;
		b = op->dst.dev;
	} else if (rule == PW_RULE_ERROR_STICKY) {
		/* where the program made the call that left the error: its
		 * frame, named as the report's own are (none with stacks=none) */
		if (!op->left_site || pw_g.opt.stacks == PW_STACKS_NONE)
			return msg;
		char frame[300], tail[340];
		struct pw_srcline src;
		bool lines = pw_srcline_begin(&src);
		if (!lines || !pw_srcline_format(&src, op->left_site, frame, sizeof frame))
			pw_stack_format(op->left_site, frame, sizeof frame);
		pw_srcline_end(&src);
		snprintf(tail, sizeof tail, "; %s was called at %s", op->left_api, frame);
		buf[0] = 0;
		append(buf, len, msg);
		append(buf, len, tail);
		return buf;
	} else if (rule == PW_RULE_IPC_OPEN_UNREACHABLE) {
		const char *why = pw_devices_why_not(op->vendor, op->cur_dev, op->reg_dev);
		if (!why)
			return msg;
		/* the message named both devices already */
		buf[0] = 0;
		append(buf, len, msg);
		append(buf, len, "; why: ");
		append(buf, len, why);
		return buf;
	} else {
		return msg;
	}
	const char *why = pw_devices_why_not(op->vendor, a, b);
	if (!why)
		return msg;
	char na[128], nb[128];
	pw_devices_name(op->vendor, a, na, sizeof na);
	pw_devices_name(op->vendor, b, nb, sizeof nb);
	char tail[512];
	snprintf(tail, sizeof tail, "; %s and %s cannot be peers: %s", na, nb, why);
	buf[0] = 0;
	append(buf, len, msg);
	append(buf, len, tail);
	return buf;
}

/*
 * The limit of eight peers a device is documented system-wide (CUDA
 * Programming Guide, Peer-to-Peer Memory Access) without a word on NVSwitch
 * systems, where a device's peers are reached through the switches.  There
 * the finding is reported, saying so, and never stops the program.
 */
static bool nvswitched(const struct pw_op *op, const char *msg, char *buf, size_t len)
{
	int sa = pw_devices_switch_links(op->vendor, op->cur_dev),
	    sb = pw_devices_switch_links(op->vendor, op->peer_dev);
	if (sa <= 0 && sb <= 0)
		return false;
	char tail[256];
	snprintf(tail, sizeof tail,
	         "; but %s on NVSwitches (NVML: %d NVLinks to the switches), where whether the limit "
	         "applies is not documented: reported, not stopped",
	         sa > 0 && sb > 0 ? "both devices are" : "one device is", sa > 0 ? sa : sb);
	buf[0] = 0;
	append(buf, len, msg);
	append(buf, len, tail);
	return true;
}

void pw_report_finding(const struct pw_call *c, const struct pw_op *op, int rule, const char *msg)
{
	uintptr_t ips[64];
	int n = 0;
	pw_tls_internal++;
	/* A suppression that names frames needs the stack even with stacks=none;
	 * it is then used for matching only.  The call site is the first frame. */
	bool want_stack = pw_g.opt.stacks != PW_STACKS_NONE || pw_suppress_wants_stack_for(pw_rules[rule].id);
	if (want_stack)
		n = pw_stack_app(ips, pw_g.opt.stack_depth);
	else
		n = pw_stack_app(ips, 1);
	if (pw_suppress_match(pw_rules[rule].id, op->api, ips, n)) {
		mark_suppressed(c, rule);
		pw_tls_internal--;
		return;
	}
	uintptr_t site = n ? ips[0] : 0;
	if (pw_g.opt.stacks == PW_STACKS_NONE)
		n = 0;
	/* At exit each finding is about another mapping: all reported. */
	bool first = op->kind == PW_OP_EXIT || first_at_site(rule, site);
	/* never at exit, nor after a call that has run (a getter's explanation) */
	bool halt = pw_g.opt.mode == PW_MODE_ENFORCE && pw_rules[rule].severity <= pw_g.opt.halt_on &&
	            op->kind != PW_OP_EXIT && !pw_op_on_result(op->kind);
	atomic_fetch_add(&by_sev[pw_rules[rule].severity], 1);
	char nvsw[640];
	if (rule == PW_RULE_PEER_LIMIT && (first || halt) && nvswitched(op, msg, nvsw, sizeof nvsw)) {
		msg = nvsw; /* reported, never stopped: the limit there is not known */
		halt = false;
	}
	if (first || halt) {
		char why[640];
		msg = with_why(op, rule, msg, why, sizeof why);
		atomic_fetch_add(&violations, 1);
		write_event(c, op, rule, msg, ips, n);
		if (pw_g.opt.mode != PW_MODE_OBSERVE)
			print_report(rule, op, msg, ips, n, !c);
	}
	if (halt) /* at exit there is nothing left to stop (ipc.leak) */
		stop(op, rule);
	pw_tls_internal--;
}

/*
 * info: per trace file — the process (pid, ppid, host, rank, argv), the
 * options it ran with, the driver, how many events were read against how
 * many the footer counts, events dropped (and why) and calls in flight
 * when the trace ended (no loss: info only says so), findings counted as
 * repeats, lines refused, and whether the trace ended cleanly, stopped
 * writing (a full disk, a file-size limit), reached its size limit, or is
 * .partial: its process still running, or gone without finishing it.
 * Last, for the run: the processes that ran without the online IPC
 * registry (their cross-process findings are the analyzer's, derived from
 * the traces), and what the traces could not say, by rule: opens of IPC
 * handles whose exporter no trace has, opens whose devices no device line
 * identifies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/show.h"
#include "cmds/cmds.h"
#include "model/footer.h"
#include "model/ipclife.h"
#include "model/procs.h"
#include "read/files.h"
#include "read/reader.h"

enum state { ST_CLEAN, ST_PARTIAL, ST_CUT, ST_UNREADABLE };

static enum state state_of(const struct pw_file *f)
{
	if (!f->header_ok)
		return ST_UNREADABLE;
	if (f->partial)
		return ST_PARTIAL;
	return f->footer ? ST_CLEAN : ST_CUT;
}

/*
 * Whether the process of a .partial trace is still running: 1 it is (its
 * trace is being written), 0 it ended without finishing it, -1 this host
 * cannot tell (the trace is another host's).  The pid is that process's
 * only if the process now holding it started before the trace did
 * (/proc/PID/stat's start time, on the boot clock, against the header's
 * t0_mono_ns: a reused pid started after).
 */
static int still_running(const struct pw_file *f)
{
	char host[128] = "";
	if (gethostname(host, sizeof host))
		strcpy(host, "localhost");
	host[sizeof host - 1] = 0;
	for (char *c = host; *c; c++) /* as the library names its files */
		if (*c == '/')
			*c = '_';
	if (!f->host || strcmp(f->host, host) || f->pid <= 0)
		return -1;
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%lld/stat", (long long)f->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	char *p = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
	char state = 0;
	unsigned long long start = 0;
	/* after the name: state (field 3) ... starttime (field 22) */
	if (!p ||
	    sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
	           &state, &start) != 2)
		return -1;
	if (state == 'Z' || state == 'X') /* ended, not yet reaped */
		return 0;
	struct timespec mono, boot;
	long tck = sysconf(_SC_CLK_TCK);
	if (tck <= 0 || clock_gettime(CLOCK_MONOTONIC, &mono) || clock_gettime(CLOCK_BOOTTIME, &boot))
		return -1;
	/* the time suspended so far: the start on the monotonic clock is no
	 * earlier than its boot-clock time less that */
	int64_t suspended = (boot.tv_sec - mono.tv_sec) * 1000000000ll + (boot.tv_nsec - mono.tv_nsec);
	int64_t started = (int64_t)(start * (1000000000ull / (unsigned long long)tck)) - suspended;
	return started <= f->t0_mono_ns;
}

static const char *state_name(enum state s)
{
	static const char *const n[] = {"clean", "partial", "no footer", "unreadable"};
	return n[s];
}

static char *state_text(const struct pw_file *f, const struct an_footer *ft)
{
	switch (state_of(f)) {
	case ST_CLEAN:
		/* The footer is there, so the process finished it: writing had
		 * stopped before, and the footer says why. */
		if (ft->write_error)
			return xasprintf(
			    "stopped writing: %s (%s); the process went on untraced and ended (%s)",
			    an_write_error_words(ft->write_error), ft->write_error,
			    f->reason ? f->reason : "?");
		if (f->reason && !strcmp(f->reason, "enforce"))
			return xstrdup("stopped by enforce mode (its last violation says why)");
		return xasprintf("ended cleanly (%s)", f->reason ? f->reason : "?");
	case ST_PARTIAL: {
		const char *cut = f->tail_cut ? "; its last line was cut" : "";
		switch (still_running(f)) {
		case 1:
			return xasprintf(".partial: still being written: its process (pid %lld) is running%s",
			                 (long long)f->pid, cut);
		case 0:
			return xasprintf("left .partial: the process ended without finishing its trace (it "
			                 "crashed, was killed by a signal, called abort or left through the "
			                 "raw exit system call)%s",
			                 cut);
		default:
			return xasprintf(".partial: the process (on host %s) is still running, or ended "
			                 "without finishing its trace (it crashed, was killed by a signal, "
			                 "called abort or left through the raw exit system call)%s",
			                 f->host ? f->host : "?", cut);
		}
	}
	case ST_CUT: return xstrdup("no footer, though not .partial: the file was cut short");
	case ST_UNREADABLE: return xasprintf("not read: %s", f->unreadable ? f->unreadable : "?");
	}
	return xstrdup("?");
}

static char *joined_argv(const struct pw_file *f)
{
	size_t len = 1;
	for (size_t i = 0; i < f->argc; i++)
		len += strlen(f->argv[i]) + 1;
	char *s = xcalloc(len, 1), *p = s;
	for (size_t i = 0; i < f->argc; i++)
		p += sprintf(p, "%s%s", i ? " " : "", f->argv[i]);
	return s;
}

static void line(const char *key, const char *value)
{
	char *v = sanitize(value);
	printf("  %-9s %s\n", key, v);
	free(v);
}

/* HIP and ACL from the header's vendors object: "hip libamdhip64.so.6, version 60200000". */
/* What the footer says of the unified-memory counters: off, and why; or
 * the records CUPTI lost. */
static void um_line(const struct pw_file *f)
{
	char buf[640];
	if (!f->footer)
		return;
	if (f->um_off) {
		char *why = sanitize(f->um_off);
		snprintf(buf, sizeof buf, "unified-memory counters off: %s", why);
		free(why);
		line("um", buf);
	} else if (f->um_events >= 0 || f->um_lost >= 0) {
		snprintf(buf, sizeof buf, "%lld events written, %lld records lost by CUPTI%s",
		         (long long)(f->um_events > 0 ? f->um_events : 0),
		         (long long)(f->um_lost > 0 ? f->um_lost : 0),
		         f->um_lost > 0 ? " (the counts are short)" : "");
		line("um", buf);
	}
}

static void runtimes_line(const struct pw_file *f)
{
	json_t *v = f->vendors ? json_loads(f->vendors, 0, NULL) : NULL;
	char buf[512] = "";
	static const char *const names[] = {"hip", "acl"};
	for (size_t i = 0; i < 2; i++) {
		json_t *o = json_object_get(v, names[i]), *lib = json_object_get(o, "library"),
		       *rv = json_object_get(o, "runtime_version");
		char ver[64] = "unknown";
		if (!json_is_object(o))
			continue;
		if (json_is_integer(rv))
			snprintf(ver, sizeof ver, "%lld", (long long)json_integer_value(rv));
		else if (json_is_string(rv))
			snprintf(ver, sizeof ver, "%.60s", json_string_value(rv));
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s %.200s, version %s",
		         *buf ? "; " : "", names[i], json_is_string(lib) ? json_string_value(lib) : "-", ver);
	}
	json_decref(v);
	if (*buf)
		line("runtimes", buf);
}

/* Each device line: "cuda 0: GPU-... 0000:18:00.0 NVIDIA H100 80GB HBM3". */
static void devices_lines(const struct pw_file *f)
{
	for (size_t i = 0; i < f->devices.len; i++) {
		const struct pw_device *d = vec_at(&f->devices, i);
		char buf[400];
		snprintf(buf, sizeof buf, "%s %lld: %.60s %.24s %.120s", d->vendor, (long long)d->ordinal,
		         d->uuid ? d->uuid : "(no UUID)", d->bus_id ? d->bus_id : "-",
		         d->name ? d->name : "-");
		line(i ? "" : "devices", buf);
	}
}

/* The environment that shaped the devices: "CUDA_VISIBLE_DEVICES=1,0 ...". */
static void environment_line(const struct pw_file *f)
{
	json_t *e = f->environment ? json_loads(f->environment, 0, NULL) : NULL, *o;
	size_t i, n = 0;
	char buf[1024] = "";
	json_array_foreach(e, i, o)
	{
		n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s=%s", i ? " " : "",
		                      json_string_value(json_object_get(o, "name")),
		                      json_string_value(json_object_get(o, "value")));
		if (n >= sizeof buf)
			break;
	}
	json_decref(e);
	if (*buf)
		line("env", buf);
}

/* "1,234 of 50,000 events dropped: the writer was behind"; the calls in
 * flight when the trace ended apart: they lose no finding. */
static void dropped_lines(const struct pw_file *f)
{
	char words[800], buf[300];
	uint64_t in_flight, lost = an_drops(f, words, sizeof words, &in_flight);
	if (lost)
		line("dropped", words);
	if (in_flight) {
		bool one = in_flight == 1;
		snprintf(buf, sizeof buf,
		         "%llu %s in flight when the trace ended: %s not in the trace; %s checked "
		         "before %s ran, and any finding of %s is",
		         (unsigned long long)in_flight, one ? "call" : "calls",
		         one ? "its event is" : "their events are", one ? "it was" : "they were",
		         one ? "it" : "they", one ? "it" : "theirs");
		line("in flight", buf);
	}
}

/* "1204 findings counted, not written: peer.enable.self at 0x55d0c1e02b5a 1200, ..." */
static void repeats_line(const struct an_footer *ft)
{
	if (!ft->repeats)
		return;
	char buf[512];
	snprintf(buf, sizeof buf, "%llu finding%s counted, not written (a rule again at a call site)",
	         (unsigned long long)ft->repeats, ft->repeats == 1 ? "" : "s");
	size_t i;
	json_t *e;
	json_array_foreach(ft->repeats_by, i, e)
	{
		json_t *r = json_object_get(e, "rule"), *s = json_object_get(e, "site"),
		       *c = json_object_get(e, "count");
		if (i >= 3) {
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", ...");
			break;
		}
		if (json_is_string(r) && json_is_string(s) && json_is_integer(c))
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s %.60s at %.20s %lld",
			         i ? "," : ":", json_string_value(r), json_string_value(s),
			         (long long)json_integer_value(c));
	}
	line("repeats", buf);
}

static void print_file(const struct pw_file *f)
{
	struct an_footer ft;
	an_footer_read(f, &ft);
	char *path = sanitize(f->path), *st = state_text(f, &ft);
	printf("%s\n", path);
	free(path);
	line("trace", st);
	free(st);
	if (!f->header_ok) {
		an_footer_free(&ft);
		return;
	}
	char buf[512];
	char *argv = joined_argv(f);
	snprintf(buf, sizeof buf, "pid %lld, ppid %lld, host %s, rank %s", (long long)f->pid,
	         (long long)f->ppid, f->host, f->has_rank ? "" : "-");
	if (f->has_rank)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%lld", (long long)f->rank);
	line("process", buf);
	line("argv", argv);
	free(argv);
	line("options", f->options ? f->options : "-");
	snprintf(buf, sizeof buf, "cuda %s, version %lld", f->driver_lib ? f->driver_lib : "-",
	         (long long)f->driver_version);
	if (!f->has_driver_version)
		snprintf(buf, sizeof buf, "cuda %s, version unknown", f->driver_lib ? f->driver_lib : "-");
	/* a trace of HIP or ACL alone has no CUDA driver to show */
	if (f->driver_lib || f->has_driver_version || !f->vendors || strstr(f->vendors, "\"cuda\""))
		line("driver", buf);
	runtimes_line(f);
	devices_lines(f);
	environment_line(f);
	char ums[48] = "";
	if (f->ums) /* the unified-memory counters' events (um_counters=1) */
		snprintf(ums, sizeof ums, ", %llu um", (unsigned long long)f->ums);
	snprintf(buf, sizeof buf, "%llu read (%llu calls, %llu violations, %llu gpu times%s); footer: %s",
	         (unsigned long long)f->events, (unsigned long long)f->calls,
	         (unsigned long long)f->violations, (unsigned long long)f->gpu_times, ums,
	         f->footer ? "" : "none");
	uint64_t in_flight, lost = f->footer ? an_drops(f, NULL, 0, &in_flight) : 0;
	if (f->footer)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%lld events, %llu dropped",
		         (long long)f->footer_events, (unsigned long long)lost);
	if (f->footer && f->footer_violations >= 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", %lld violations, %lld suppressed",
		         (long long)f->footer_violations, (long long)(f->suppressed > 0 ? f->suppressed : 0));
	line("events", buf);
	um_line(f);
	dropped_lines(f);
	repeats_line(&ft);
	if (ft.limited) {
		snprintf(buf, sizeof buf,
		         "call events stopped at the size limit (max_trace_mb: %lld MiB) from seq "
		         "%lld on; "
		         "findings were still written",
		         (long long)(ft.limit_bytes >> 20), (long long)ft.limit_seq);
		line("limit", buf);
	}
	if (ft.report_error)
		line("stderr", ft.report_error);
	an_footer_free(&ft);
	if (f->bad_lines || f->unknown) {
		snprintf(buf, sizeof buf, "%llu bad %s skipped, %llu %s of unknown types ignored",
		         (unsigned long long)f->bad_lines, plural(f->bad_lines, "line", "lines"),
		         (unsigned long long)f->unknown, plural(f->unknown, "event", "events"));
		line("lines", buf);
	}
	char span[32] = "-";
	if (f->any_t)
		fmt_ns(span, sizeof span, (double)(f->last_t_ns - f->first_t_ns));
	snprintf(buf, sizeof buf, "%s of events, %zu modules, peerwatch %s", span, f->modules.len,
	         f->pw_version ? f->pw_version : "?");
	line("span", buf);
}

static json_t *file_json(const struct pw_file *f)
{
	json_t *j = json_object();
	json_object_set_new(j, "file", json_text(f->path));
	json_object_set_new(j, "state", json_string(state_name(state_of(f))));
	json_object_set_new(j, "reason", f->reason ? json_string(f->reason) : json_null());
	int running = state_of(f) == ST_PARTIAL ? still_running(f) : -1;
	json_object_set_new(j, "running", running < 0 ? json_null() : json_boolean(running));
	json_object_set_new(j, "unreadable", f->unreadable ? json_string(f->unreadable) : json_null());
	if (!f->header_ok)
		return j;
	struct an_footer ft;
	an_footer_read(f, &ft);
	an_footer_json(&ft, j);
	an_footer_free(&ft);
	json_t *argv = json_array(), *opts = f->options ? json_loads(f->options, 0, NULL) : NULL;
	for (size_t i = 0; i < f->argc; i++)
		json_array_append_new(argv, json_string(f->argv[i]));
	json_object_set_new(j, "process", proc_json(f));
	json_object_set_new(j, "run_id", f->run_id ? json_text(f->run_id) : json_null());
	json_object_set_new(j, "ppid", json_integer(f->ppid));
	json_object_set_new(j, "argv", argv);
	json_object_set_new(j, "options", opts ? opts : json_null());
	json_object_set_new(j, "driver_library", f->driver_lib ? json_string(f->driver_lib) : json_null());
	json_object_set_new(j, "driver_version",
	                    f->has_driver_version ? json_integer(f->driver_version) : json_null());
	json_t *vendors = f->vendors ? json_loads(f->vendors, 0, NULL) : NULL;
	json_object_set_new(j, "vendors", vendors ? vendors : json_null());
	json_object_set_new(j, "peerwatch_version", f->pw_version ? json_string(f->pw_version) : json_null());
	json_object_set_new(j, "events_read", json_u64(f->events));
	json_object_set_new(j, "calls", json_u64(f->calls));
	json_object_set_new(j, "violations", json_u64(f->violations));
	json_object_set_new(j, "gpu_times", json_u64(f->gpu_times));
	json_object_set_new(j, "um_events", json_u64(f->ums));
	json_object_set_new(j, "footer_um_events",
	                    f->footer && f->um_events >= 0 ? json_integer(f->um_events) : json_null());
	json_object_set_new(j, "um_lost",
	                    f->footer && f->um_lost >= 0 ? json_integer(f->um_lost) : json_null());
	json_object_set_new(j, "um_off", f->footer && f->um_off ? json_text(f->um_off) : json_null());
	json_object_set_new(j, "footer_events", f->footer ? json_integer(f->footer_events) : json_null());
	json_object_set_new(j, "dropped", f->footer ? json_integer(f->dropped) : json_null());
	json_object_set_new(j, "footer_violations",
	                    f->footer && f->footer_violations >= 0 ? json_integer(f->footer_violations)
	                                                           : json_null());
	json_object_set_new(j, "suppressed",
	                    f->footer && f->suppressed >= 0 ? json_integer(f->suppressed) : json_null());
	json_object_set_new(j, "bad_lines", json_u64(f->bad_lines));
	json_object_set_new(j, "unknown_events", json_u64(f->unknown));
	json_object_set_new(j, "last_line_cut", json_boolean(f->tail_cut));
	json_object_set_new(j, "first_t_ns", f->any_t ? json_integer(f->first_t_ns) : json_null());
	json_object_set_new(j, "last_t_ns", f->any_t ? json_integer(f->last_t_ns) : json_null());
	json_object_set_new(j, "modules", json_integer((json_int_t)f->modules.len));
	json_t *devs = json_array();
	for (size_t i = 0; i < f->devices.len; i++) {
		const struct pw_device *d = vec_at(&f->devices, i);
		json_t *o = json_object();
		json_object_set_new(o, "vendor", json_string(d->vendor));
		json_object_set_new(o, "ordinal", json_integer(d->ordinal));
		json_object_set_new(o, "uuid", d->uuid ? json_text(d->uuid) : json_null());
		json_object_set_new(o, "bus_id", d->bus_id ? json_text(d->bus_id) : json_null());
		json_object_set_new(o, "name", d->name ? json_text(d->name) : json_null());
		json_array_append_new(devs, o);
	}
	json_object_set_new(j, "devices", devs);
	json_t *env = f->environment ? json_loads(f->environment, 0, NULL) : NULL;
	json_object_set_new(j, "environment", env ? env : json_null());
	return j;
}

/* A process that ran with registry=0 (its options object). */
static bool registry_off(const struct pw_file *f)
{
	json_t *opts = f->options ? json_loads(f->options, 0, NULL) : NULL;
	json_t *v = opts ? json_object_get(opts, "registry") : NULL;
	bool off = v && (json_is_false(v) || (json_is_integer(v) && json_integer_value(v) == 0) ||
	                 (json_is_string(v) && !strcmp(json_string_value(v), "0")));
	json_decref(opts);
	return off;
}

/* What the run's traces could not say (ipclife.h counts it). */
static void unchecked_text(const struct ipc_report *r, size_t off)
{
	if (off)
		printf("\n%zu process%s ran without the IPC registry (registry=0): ipc.open.stale, "
		       "ipc.open.unexported, ipc.open.unreachable and vmm.import.released are derived "
		       "from the traces (peerwatch-analyze check, violations), not found at the call\n",
		       off, off == 1 ? "" : "es");
	if (!r->open_no_export && !r->unreachable_unknown)
		return;
	printf("\ncould not be checked from these traces:\n");
	if (r->open_no_export)
		printf(
		    "  ipc.open.stale, ipc.open.unreachable: %zu open%s of IPC handles with no trace of the "
		    "exporter (a process outside the run, or not traced)\n",
		    r->open_no_export, r->open_no_export == 1 ? "" : "s");
	if (r->unreachable_unknown)
		printf("  ipc.open.unreachable: %zu open%s whose devices the traces do not identify (no "
		       "device lines, or the importer does not see the exporter's device)\n",
		       r->unreachable_unknown, r->unreachable_unknown == 1 ? "" : "s");
}

static json_t *unchecked_json(const struct ipc_report *r)
{
	json_t *j = json_object(), *rules = json_array();
	json_object_set_new(j, "open_no_export", json_integer((json_int_t)r->open_no_export));
	json_object_set_new(j, "unreachable_unknown", json_integer((json_int_t)r->unreachable_unknown));
	if (r->open_no_export)
		json_array_append_new(rules, json_string("ipc.open.stale"));
	if (r->open_no_export || r->unreachable_unknown)
		json_array_append_new(rules, json_string("ipc.open.unreachable"));
	json_object_set_new(j, "rules", rules);
	return j;
}

int cmd_info(const struct pw_opts *o)
{
	struct pw_input in = {0};
	struct ipc_report r;
	ipc_init(&r);
	/* only its counts are shown: read as check reads, each open decided
	 * as it ends (the counts are ipc_derive's), not every call held */
	ipc_report_findings_only(&r);
	struct pw_sink sink = {&ipc_findings_ops, &r};
	int st = an_read(o, &in, &sink, 1);
	if (st == PW_READ_FATAL || !in.n) {
		ipc_free(&r);
		pw_input_free(&in);
		return an_exit(st);
	}
	ipc_derive(&r, &in);
	size_t off = 0;
	for (size_t i = 0; i < in.n; i++)
		off += registry_off(&in.files[i]);
	size_t n[4] = {0};
	size_t *order = file_order(&in);
	for (size_t i = 0; i < in.n; i++)
		n[state_of(&in.files[i])]++;
	if (o->json) {
		json_t *doc = json_object(), *arr = json_array();
		for (size_t k = 0; k < in.n; k++)
			json_array_append_new(arr, file_json(&in.files[order[k]]));
		json_object_set_new(doc, "files", arr);
		json_object_set_new(doc, "clean", json_integer((json_int_t)n[ST_CLEAN]));
		json_object_set_new(doc, "partial", json_integer((json_int_t)n[ST_PARTIAL]));
		json_object_set_new(doc, "no_footer", json_integer((json_int_t)n[ST_CUT]));
		json_object_set_new(doc, "unreadable", json_integer((json_int_t)n[ST_UNREADABLE]));
		json_object_set_new(doc, "registry_off", json_integer((json_int_t)off));
		json_object_set_new(doc, "unchecked", unchecked_json(&r));
		json_print(doc);
	} else {
		for (size_t k = 0; k < in.n; k++) {
			if (k)
				printf("\n");
			print_file(&in.files[order[k]]);
		}
		printf("\n%zu trace file%s: %zu clean, %zu partial, %zu without footer, %zu "
		       "unreadable\n",
		       in.n, in.n == 1 ? "" : "s", n[ST_CLEAN], n[ST_PARTIAL], n[ST_CUT], n[ST_UNREADABLE]);
		unchecked_text(&r, off);
	}
	free(order);
	ipc_free(&r);
	pw_input_free(&in);
	return an_exit(st);
}

/*
 * PEERWATCH_OPTIONS=key=value:key=value, the sanitizers' convention.
 * One table says every key, its values and its help line; the parser, the
 * help=1 listing and the error messages all read it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/color.h"
#include "core/launch.h"
#include "core/pw.h"

struct pw_opt_def {
	const char *key;
	const char *values; /* shown in help and in errors */
	const char *def;
	const char *help;
	int (*set)(struct pw_options *o, const char *v);
};

static const char *const mode_names[] = {"observe", "warn", "enforce"};

const char *pw_mode_name(enum pw_mode m)
{
	return mode_names[m];
}

const char *pw_severity_name(int severity)
{
	static const char *const names[] = {"error", "warning", "performance"};
	return severity >= 0 && severity < 3 ? names[severity] : "?";
}

/* The template is checked here and expanded in pw_init, in each process. */
static int set_out(struct pw_options *o, const char *v)
{
	char err[8];
	if (!*v || strlen(v) >= sizeof o->out || pw_outname_check(v, err, sizeof err))
		return -1;
	strcpy(o->out, v);
	strcpy(o->out_tmpl, v);
	return 0;
}

static int set_ranks(struct pw_options *o, const char *v)
{
	char err[8];
	if (strlen(v) >= sizeof o->ranks || (*v && pw_ranks_check(v, err, sizeof err)))
		return -1;
	strcpy(o->ranks, v);
	return 0;
}

static int set_color(struct pw_options *o, const char *v)
{
	enum pw_color c;
	if (pw_color_parse(v, &c))
		return -1;
	o->color = (int)c;
	return 0;
}

static int set_mode(struct pw_options *o, const char *v)
{
	for (size_t i = 0; i < sizeof mode_names / sizeof *mode_names; i++)
		if (!strcmp(v, mode_names[i])) {
			o->mode = (enum pw_mode)i;
			return 0;
		}
	return -1;
}

static int parse_uint(const char *v, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int set_verbosity(struct pw_options *o, const char *v)
{
	unsigned long x;
	if (parse_uint(v, 0, 2, &x))
		return -1;
	o->verbosity = (int)x;
	return 0;
}

static int set_buffer_kb(struct pw_options *o, const char *v)
{
	unsigned long x;
	if (parse_uint(v, 16, 65536, &x))
		return -1;
	o->buffer_bytes = x * 1024;
	return 0;
}

static int set_halt_on(struct pw_options *o, const char *v)
{
	static const char *const names[] = {"error", "warning", "performance"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(v, names[i])) {
			o->halt_on = i;
			return 0;
		}
	return -1;
}

static int set_exitcode(struct pw_options *o, const char *v)
{
	unsigned long x;
	if (parse_uint(v, 0, 255, &x))
		return -1;
	o->exitcode = (int)x;
	return 0;
}

static int set_stacks(struct pw_options *o, const char *v)
{
	static const char *const names[] = {"none", "violations", "all"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(v, names[i])) {
			o->stacks = (enum pw_stacks)i;
			return 0;
		}
	return -1;
}

static int set_stack_depth(struct pw_options *o, const char *v)
{
	unsigned long x;
	if (parse_uint(v, 1, 64, &x))
		return -1;
	o->stack_depth = (int)x;
	return 0;
}

static int set_path(char *dst, size_t cap, const char *v)
{
	if (strlen(v) >= cap)
		return -1;
	strcpy(dst, v);
	return 0;
}

static int set_log_path(struct pw_options *o, const char *v)
{
	return set_path(o->log_path, sizeof o->log_path, v);
}

static int set_cupti(struct pw_options *o, const char *v)
{
	return set_path(o->cupti, sizeof o->cupti, v);
}

static int set_suppressions(struct pw_options *o, const char *v)
{
	return set_path(o->suppressions, sizeof o->suppressions, v);
}

static int set_default_suppressions(struct pw_options *o, const char *v)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -1;
	o->default_suppressions = v[0] == '1';
	return 0;
}

static int set_registry(struct pw_options *o, const char *v)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -1;
	o->registry = v[0] == '1';
	return 0;
}

static int set_gpu_timing(struct pw_options *o, const char *v)
{
	if (!strcmp(v, "0"))
		o->gpu_timing = PW_GT_NONE;
	else if (!strcmp(v, "1") || !strcmp(v, "events"))
		o->gpu_timing = PW_GT_EVENTS;
	else if (!strcmp(v, "cupti"))
		o->gpu_timing = PW_GT_CUPTI;
	else
		return -1;
	return 0;
}

static int set_um_counters(struct pw_options *o, const char *v)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -1;
	o->um_counters = v[0] == '1';
	return 0;
}

static int set_max_trace_mb(struct pw_options *o, const char *v)
{
	unsigned long x;
	if (parse_uint(v, 0, 1048576, &x))
		return -1;
	o->max_trace_mb = x;
	return 0;
}

static int set_help(struct pw_options *o, const char *v)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -1;
	o->help = v[0] == '1';
	return 0;
}

static const struct pw_opt_def defs[] = {
    {"out", "DIR", "pw-trace",
     "directory for the traces, one <host>.<pid>.pw.jsonl per process; %p (pid), %h (host), "
     "%r (rank), %q{VAR} and %% are expanded in each process",
     set_out},
    {"mode", "observe|warn|enforce", "warn",
     "observe: trace only; warn: also report each finding on stderr; enforce: also stop the "
     "program before the first call whose finding reaches halt_on (abort(), or exit with "
     "exitcode)",
     set_mode},
    {"verbosity", "0|1|2", "1",
     "0: only problems; 1: also where the trace goes and what it found; 2: also debugging detail",
     set_verbosity},
    {"buffer_kb", "16..65536", "256", "size of each per-thread event buffer, in KiB", set_buffer_kb},
    {"halt_on", "error|warning|performance", "error",
     "enforce mode stops at the first finding of this severity or a worse one", set_halt_on},
    {"exitcode", "0..255", "0", "enforce mode exits with this status instead of abort() (0: abort)",
     set_exitcode},
    {"stacks", "none|violations|all", "violations",
     "record call stacks: never, with each violation, on every call", set_stacks},
    {"stack_depth", "1..64", "16", "frames per recorded stack", set_stack_depth},
    {"log_path", "PATH", "", "write reports to PATH.<pid> instead of stderr", set_log_path},
    {"suppressions", "FILE", "",
     "suppress the findings FILE lists (rule=, api=, stack= lines; see peerwatch(1), SUPPRESSIONS)",
     set_suppressions},
    {"default_suppressions", "0|1", "1",
     "suppress the findings inside third-party libraries listed by peerwatch-analyze rules "
     "--suppressions (counted in the trace footer); 0 reports them",
     set_default_suppressions},
    {"registry", "0|1", "1", "share IPC state with the other processes of the run (shared memory)",
     set_registry},
    {"gpu_timing", "0|1|events|cupti", "0",
     "time asynchronous copies on the device; 1 or events: two event records around each timed "
     "copy and prefetch (~3 us a timed copy on an H200, nothing on others); cupti: CUPTI's copy "
     "records (copies only; ~3 us a timed copy and ~2-3 us on every other copy of the process, "
     "but a 1 MiB copy timed at 1.1 us where events say 5-7 us)",
     set_gpu_timing},
    {"um_counters", "0|1", "0",
     "record CUPTI's unified-memory counters (page faults, migrations, thrashing) as um events, "
     "for peerwatch-analyze managed --effects; loads libcupti at the first CUDA call (CUDA only; "
     "~13% on a run that prefetches 1 GiB of managed memory each way, H200)",
     set_um_counters},
    {"cupti", "PATH", "",
     "the libcupti to load for um_counters and gpu_timing=cupti (default: libcupti.so.13, .12, "
     "libcupti.so on the loader's path, then under $CUDA_HOME or /usr/local/cuda)",
     set_cupti},
    {"max_trace_mb", "0..1048576", "1024",
     "call events stop at this size of trace, in MiB (findings go on being recorded); 0: no limit",
     set_max_trace_mb},
    {"ranks", "LIST", "",
     "trace only the processes whose rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, "
     "SLURM_PROCID, MV2_COMM_WORLD_RANK) is in LIST, e.g. 0,2-3; the others, and a process with "
     "no rank, run untraced; empty: all",
     set_ranks},
    {"color", "auto|always|never", "auto",
     "colour the reports: auto where they go to a terminal and NO_COLOR is unset", set_color},
    {"help", "0|1", "0", "print this list and go on", set_help},
};
#define NDEFS (sizeof defs / sizeof *defs)

bool pw_options_entry(size_t i, const char **key, const char **values, const char **def, const char **help)
{
	if (i >= NDEFS)
		return false;
	*key = defs[i].key;
	*values = defs[i].values;
	*def = defs[i].def;
	*help = defs[i].help;
	return true;
}

void pw_options_defaults(struct pw_options *o)
{
	memset(o, 0, sizeof *o);
	for (size_t i = 0; i < NDEFS; i++)
		defs[i].set(o, defs[i].def);
}

/* Through pw_write_out: a closed pipe raises no SIGPIPE in the program.
 * The columns are as wide as their longest entry; the help text wraps
 * under its own column. */
void pw_options_print_help(int fd)
{
	char line[1024];
	int n = snprintf(line, sizeof line,
	                 "peerwatch options (PEERWATCH_OPTIONS=key=value:key=value), for the CUDA driver "
	                 "and runtime, HIP and AscendCL alike:\n");
	pw_write_out(fd, line, (size_t)n);
	int wk = 0, wv = 0, wd = 0;
	for (size_t i = 0; i < NDEFS; i++) {
		int k = (int)strlen(defs[i].key), v = (int)strlen(defs[i].values),
		    d = (int)strlen(*defs[i].def ? defs[i].def : "none");
		wk = k > wk ? k : wk;
		wv = v > wv ? v : wv;
		wd = d > wd ? d : wd;
	}
	int indent = 2 + wk + 2 + wv + 2 + 8 + wd + 2, width = 100 - indent;
	if (width < 30)
		width = 30;
	for (size_t i = 0; i < NDEFS; i++) {
		const char *h = defs[i].help;
		n = snprintf(line, sizeof line, "  %-*s  %-*s  default %-*s  ", wk, defs[i].key, wv,
		             defs[i].values, wd, *defs[i].def ? defs[i].def : "none");
		for (bool first = true; *h || first; first = false) {
			size_t len = strlen(h), cut = len;
			if ((int)len > width) { /* the last space that leaves the line short enough */
				cut = (size_t)width;
				while (cut > 0 && h[cut] != ' ')
					cut--;
				if (!cut)
					cut = strcspn(h, " ");
			}
			if (!first)
				n = snprintf(line, sizeof line, "%*s", indent, "");
			if (n < 0 || (size_t)n >= sizeof line)
				break;
			n += snprintf(line + n, sizeof line - (size_t)n, "%.*s\n", (int)cut, h);
			if ((size_t)n >= sizeof line)
				n = (int)sizeof line - 1;
			pw_write_out(fd, line, (size_t)n);
			h += cut;
			while (*h == ' ')
				h++;
		}
	}
}

/* The room for a value kept as given (a path, a list of ranks): at most
 * that many bytes less one; 0 for the others. */
static size_t value_cap(const struct pw_opt_def *d)
{
	struct pw_options *o = NULL;
	if (d->set == set_out)
		return sizeof o->out;
	if (d->set == set_log_path)
		return sizeof o->log_path;
	if (d->set == set_suppressions)
		return sizeof o->suppressions;
	if (d->set == set_ranks)
		return sizeof o->ranks;
	return 0;
}

/* One key=value; on failure writes the complaint into err. */
static int parse_item(struct pw_options *o, const char *item, size_t len, char *err, size_t errlen)
{
	const char *eq = memchr(item, '=', len);
	if (!eq) {
		snprintf(err, errlen, "PEERWATCH_OPTIONS: '%.*s' is not key=value", (int)len, item);
		return -1;
	}
	size_t klen = (size_t)(eq - item);
	char val[sizeof o->out];
	size_t vlen = len - klen - 1;
	for (size_t i = 0; i < NDEFS; i++) {
		if (strlen(defs[i].key) != klen || memcmp(defs[i].key, item, klen) != 0)
			continue;
		size_t cap = value_cap(&defs[i]);
		if (cap && vlen >= cap) { /* the reason, and enough to know the value by */
			snprintf(err, errlen,
			         "PEERWATCH_OPTIONS: bad value for %s: longer than %zu bytes (%zu bytes: "
			         "'%.48s...')",
			         defs[i].key, cap - 1, vlen, eq + 1);
			return -1;
		}
		bool fits = vlen < sizeof val;
		if (fits) {
			memcpy(val, eq + 1, vlen);
			val[vlen] = 0;
		}
		char why[300];
		if (fits && defs[i].set == set_out && *val && pw_outname_check(val, why, sizeof why)) {
			snprintf(err, errlen, "PEERWATCH_OPTIONS: out: %s", why);
			return -1;
		}
		if (fits && defs[i].set == set_ranks && *val && pw_ranks_check(val, why, sizeof why)) {
			snprintf(err, errlen, "PEERWATCH_OPTIONS: ranks: %s", why);
			return -1;
		}
		if (!fits || defs[i].set(o, val)) {
			snprintf(err, errlen, "PEERWATCH_OPTIONS: bad value '%.*s' for %s (allowed: %s)",
			         (int)vlen, eq + 1, defs[i].key, defs[i].values);
			return -1;
		}
		return 0;
	}
	char keys[512] = "";
	for (size_t i = 0; i < NDEFS; i++) {
		strncat(keys, defs[i].key, sizeof keys - strlen(keys) - 1);
		if (i + 1 < NDEFS)
			strncat(keys, ", ", sizeof keys - strlen(keys) - 1);
	}
	snprintf(err, errlen, "PEERWATCH_OPTIONS: unknown option '%.*s' (known: %s)", (int)klen, item, keys);
	return -1;
}

/* parse_item; a bad out leaves none (out_tmpl ""): no trace rather than
 * one in the default directory, where nobody asked for it. */
static int parse_one(struct pw_options *o, const char *item, size_t len, char *err, size_t errlen)
{
	int rc = parse_item(o, item, len, err, errlen);
	if (rc && len >= 4 && !memcmp(item, "out=", 4))
		o->out[0] = o->out_tmpl[0] = 0;
	return rc;
}

/*
 * Parses text over the defaults already in o.  Returns 0, or -1 with the first
 * problem in err; every valid key before and after a bad one still applies,
 * so "mode=enforce" is known even when another key is wrong.
 */
int pw_options_parse(struct pw_options *o, const char *text, char *err, size_t errlen)
{
	int rc = 0;
	err[0] = 0;
	while (text && *text) {
		const char *end = strchrnul(text, ':');
		if (end > text) {
			char e[700];
			if (parse_one(o, text, (size_t)(end - text), e, sizeof e) && rc == 0) {
				snprintf(err, errlen, "%s", e);
				rc = -1;
			}
		}
		text = *end ? end + 1 : end;
	}
	return rc;
}

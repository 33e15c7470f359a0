/*
 * Ranks and output names (launch.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/launch.h"

/* torchrun and torch.distributed; Open MPI; MPICH and Intel MPI (PMI);
 * PMIx launchers; Slurm's srun; MVAPICH. */
const char *const pw_rank_vars[] = {"RANK",      "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                    "PMIX_RANK", "SLURM_PROCID",         "MV2_COMM_WORLD_RANK"};
const size_t pw_rank_nvars = sizeof pw_rank_vars / sizeof *pw_rank_vars;

const char *pw_rank_env(void)
{
	for (size_t i = 0; i < pw_rank_nvars; i++) {
		const char *v = getenv(pw_rank_vars[i]);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* ---- output names ---- */

/* A value that may stand for one component of a path, or within one. */
static bool plain_name(const char *v)
{
	if (!*v || !strcmp(v, ".") || !strcmp(v, ".."))
		return false;
	for (const char *c = v; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '.' || *c == '_' || *c == '-' || *c == '+'))
			return false;
	return true;
}

/* The variable name of "%q{NAME}" at s (just after "%q"): its length, or 0
 * when s is not "{NAME}" with NAME a C identifier. */
static size_t var_name(const char *s, size_t *total)
{
	if (*s != '{')
		return 0;
	size_t n = 0;
	while ((s[1 + n] >= 'A' && s[1 + n] <= 'Z') || (s[1 + n] >= 'a' && s[1 + n] <= 'z') ||
	       s[1 + n] == '_' || (n && s[1 + n] >= '0' && s[1 + n] <= '9'))
		n++;
	if (!n || s[1 + n] != '}')
		return 0;
	*total = n + 2;
	return n;
}

int pw_outname_check(const char *tmpl, char *err, size_t errlen)
{
	for (const char *p = tmpl; *p; p++) {
		if (*p != '%')
			continue;
		size_t total;
		switch (p[1]) {
		case 'p':
		case 'h':
		case 'r':
		case '%': p++; break;
		case 'q':
			if (!var_name(p + 2, &total)) {
				snprintf(err, errlen,
				         "'%%q' must be followed by {NAME}, a variable's name, in '%s'",
				         tmpl);
				return -1;
			}
			p += 1 + total;
			break;
		default:
			snprintf(err, errlen,
			         "'%%%.1s' in '%s' is not one of %%p (pid), %%h (host), %%r (rank), "
			         "%%q{VAR}, %%%%",
			         p[1] ? p + 1 : "", tmpl);
			return -1;
		}
	}
	return 0;
}

int pw_outname_expand(const char *tmpl, char *out, size_t cap, char *err, size_t errlen)
{
	if (pw_outname_check(tmpl, err, errlen))
		return -1;
	size_t o = 0;
	for (const char *p = tmpl; *p; p++) {
		char buf[256], what[160] = "";
		const char *val = buf;
		size_t total = 0;
		if (*p != '%') {
			buf[0] = *p;
			buf[1] = 0;
		} else if (*++p == '%') {
			strcpy(buf, "%");
		} else if (*p == 'p') {
			snprintf(buf, sizeof buf, "%ld", (long)getpid());
		} else if (*p == 'h') {
			if (gethostname(buf, sizeof buf))
				strcpy(buf, "localhost");
			buf[sizeof buf - 1] = 0;
			snprintf(what, sizeof what, "%%h (the host name)");
		} else if (*p == 'r') {
			val = pw_rank_env();
			if (!val)
				val = "none";
			snprintf(what, sizeof what, "%%r (the rank)");
		} else { /* %q{NAME}, checked above */
			size_t n = var_name(p + 1, &total);
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1),
			         p + 2);
			val = getenv(name);
			if (!val || !*val)
				val = "none";
			snprintf(what, sizeof what, "%%q{%s}", name);
			p += total;
		}
		/* what the environment or the system says must stay one name */
		if (what[0] && !plain_name(val)) {
			snprintf(err, errlen,
			         "%s in '%s' is '%.64s', which is not a plain name (letters, digits, '.', "
			         "'_', '-', "
			         "'+'): refused, so that it cannot lead the path elsewhere",
			         what, tmpl, val);
			return -1;
		}
		size_t len = strlen(val);
		if (o + len >= cap) {
			snprintf(err, errlen, "'%s' expands to more than %zu bytes", tmpl, cap - 1);
			return -1;
		}
		memcpy(out + o, val, len);
		o += len;
	}
	out[o] = 0;
	return 0;
}

/* ---- rank lists ---- */

/* A number 0..2^31-1 at *s: its value, *s moved past it; -1 when none. */
static long number(const char **s)
{
	const char *p = *s;
	long v = 0;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v > 0x7fffffffL)
			return -1;
	}
	*s = p;
	return v;
}

/* Walks the list: calls back nothing, returns 0 when well formed; with
 * rank >= 0, *in says whether it is in the list. */
static int walk(const char *list, long rank, bool *in, char *err, size_t errlen)
{
	const char *p = list;
	if (!*p) {
		snprintf(err, errlen, "an empty list of ranks");
		return -1;
	}
	for (;;) {
		const char *start = p;
		long a = number(&p), b = a;
		if (a >= 0 && *p == '-') {
			p++;
			b = number(&p);
		}
		if (a < 0 || b < 0 || (*p && *p != ',')) {
			snprintf(err, errlen, "'%s' is not a list of ranks such as 0,2-3 (at '%s')", list,
			         start);
			return -1;
		}
		if (b < a) {
			snprintf(err, errlen, "the range %ld-%ld in '%s' runs backwards", a, b, list);
			return -1;
		}
		if (rank >= a && rank <= b)
			*in = true;
		if (!*p)
			return 0;
		p++;
	}
}

int pw_ranks_check(const char *list, char *err, size_t errlen)
{
	bool in = false;
	return walk(list, -1, &in, err, errlen);
}

bool pw_ranks_has(const char *list, const char *rank)
{
	const char *r = rank;
	char err[8];
	bool in = false;
	long v = r ? number(&r) : -1;
	if (v < 0 || *r)
		return false;
	return walk(list, v, &in, err, sizeof err) == 0 && in;
}

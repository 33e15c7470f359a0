/*
 * Suppressions (suppressions=FILE).
 *
 * File format: one suppression per line; blank lines and lines whose first
 * non-blank character is '#' are ignored, and so is the rest of a line from a
 * word that starts with '#'.  A suppression is blank-separated key=value
 * words:
 *
 *     rule=<glob> [api=<glob>] [stack=<frame>;<frame>;...]
 *
 *   rule=   the rule id (required), e.g. ipc.leak or managed.*
 *   api=    the call the finding is about, e.g. cuMemcpyPeer*; a finding
 *           made outside any call (ipc.leak at exit) has api "".
 *   stack=  frame patterns, innermost first.  The first frame of a finding's
 *           stack is the caller of the API.  A pattern matches a frame if it
 *           matches the frame's function name or its module's basename
 *           (libnccl.so.2, or the program's name); the pattern `...` matches
 *           any number of frames, none included.  The patterns are anchored
 *           at the innermost frame and need not reach the outermost one, so
 *           `stack=foo` means "called from foo" and `stack=...;libnccl.so*`
 *           "called from libnccl, at any depth".
 *
 * Globs are fnmatch(3) patterns with no flags: `*`, `?`, `[a-z]`, `[!a-z]`,
 * `\` to quote; character classes ([:alpha:]) are refused.  Values cannot
 * hold blanks.  Function names are those dladdr sees: exported (dynamic)
 * symbols only, C++ names mangled; a frame without one still has its module.
 * A finding is suppressed by the first entry that matches all its keys.
 *
 * Errors name the line: an unknown key, a word without '=', a key given
 * twice, an empty value or frame, no rule=, a bad glob, more than 64 frame
 * patterns, a line longer than 4096 bytes or holding a NUL byte, more than
 * 1000 suppressions, a file that cannot be read (line 0: the whole file).
 * The last line needs no newline; CR LF line ends are accepted.
 *
 * The default suppressions (peerwatch/default_suppressions.h) are entries of
 * the same format, loaded after the file's (so that the user's own entry
 * wins) unless default_suppressions=0; they have a name and line 0, and the
 * findings they take are counted apart.
 *
 * Loading allocates.  Matching does not: a glob is matched iteratively with
 * one backtrack point (time O(pattern x name)), and so is the frame list, with
 * `...` in the role of `*` (O(patterns x frames), at most 64 x 64 frame
 * matches); each frame's names are looked up once per finding, when first
 * needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peerwatch/default_suppressions.h"
#include "core/pw.h"
#include "core/stack.h"
#include "rules/suppress.h"

struct pw_supp {
	const char *rule;
	const char *api;     /* NULL: any */
	const char **frames; /* stack= patterns, "..." for any frames */
	int nframes;         /* 0: no stack= */
	int line;
	const char *name; /* a default suppression's name; NULL for the file's */
	char *text;       /* the line as written, trimmed */
	char *buf;        /* the words, cut up; the patterns point into it */
	_Atomic uint64_t hits;
};

struct pw_supp_table {
	int n;
	bool wants_stack;
	struct pw_supp *v;
};

static _Atomic(struct pw_supp_table *) table;
static _Atomic uint64_t suppressed, suppressed_default;

#define PW_DEFAULT_ROW(name, text, library, why) {name, text, library, why},
static const struct {
	const char *name, *text, *library, *why;
} defaults[] = {PW_DEFAULT_SUPPRESSIONS(PW_DEFAULT_ROW)};
#define NDEFAULTS (sizeof defaults / sizeof *defaults)

/* ---- globs ---- */

/* After '[' at p: whether c is in the set; the pattern after ']', NULL if there is no ']'. */
static const char *bracket(const char *p, unsigned char c, bool *in)
{
	bool neg = false, m = false, first = true;
	p++;
	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	for (;;) {
		unsigned char lo = (unsigned char)*p;
		if (!lo)
			return NULL;
		if (lo == ']' && !first)
			break;
		first = false;
		if (lo == '\\') {
			lo = (unsigned char)*++p;
			if (!lo)
				return NULL;
		}
		p++;
		unsigned char hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			hi = (unsigned char)*p;
			if (hi == '\\') {
				hi = (unsigned char)*++p;
				if (!hi)
					return NULL;
			}
			p++;
		}
		if (c >= lo && c <= hi)
			m = true;
	}
	*in = m != neg;
	return p + 1;
}

/* One pattern element at p against c: the pattern after it, or NULL if c does not match. */
static const char *glob_one(const char *p, unsigned char c)
{
	switch (*p) {
	case '\0': return NULL;
	case '?': return p + 1;
	case '[': {
		bool in;
		const char *q = bracket(p, c, &in);
		if (q)
			return in ? q : NULL;
		return c == '[' ? p + 1 : NULL; /* no ']': a plain '[' */
	}
	case '\\':
		if (p[1])
			return c == (unsigned char)p[1] ? p + 2 : NULL;
		return c == '\\' ? p + 1 : NULL;
	default: return c == (unsigned char)*p ? p + 1 : NULL;
	}
}

bool pw_glob_match(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;
	while (*s) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return true;
			star_p = p;
			star_s = s;
			continue;
		}
		const char *next = glob_one(p, (unsigned char)*s);
		if (next) {
			p = next;
			s++;
			continue;
		}
		if (!star_p)
			return false;
		/* The last '*' takes one more character; earlier ones never need to. */
		p = star_p;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return !*p;
}

/* NULL if p is a pattern this file accepts, else what is wrong with it. */
static const char *glob_problem(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return "ends with a lone '\\'";
			p++;
			continue;
		}
		if (*p != '[')
			continue;
		const char *q = p + 1;
		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;
		for (; *q && *q != ']'; q++) {
			if (*q == '\\' && q[1]) {
				q++;
				continue;
			}
			if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '='))
				return "has a character class, which is not supported";
		}
		if (!*q)
			return "has a '[' without its ']'";
		p = q;
	}
	return NULL;
}

/* ---- matching ---- */

struct frames {
	const uintptr_t *ips;
	int n;
	uint64_t named; /* bit i: func[i] and mod[i] are set */
	const char *func[PW_STACK_MAX], *mod[PW_STACK_MAX];
};

static bool frame_match(const char *pat, struct frames *f, int i)
{
	if (!(f->named & (UINT64_C(1) << i))) {
		pw_stack_names(f->ips[i], &f->func[i], &f->mod[i]);
		f->named |= UINT64_C(1) << i;
	}
	return pw_glob_match(pat, f->func[i]) || pw_glob_match(pat, f->mod[i]);
}

static bool is_any(const char *pat)
{
	return strcmp(pat, "...") == 0;
}

/*
 * The frame patterns against a prefix of the frames, `...` as a star: the
 * same one-backtrack-point walk as pw_glob_match, the pattern list ending in
 * an implicit `...`.
 */
static bool stack_match(const struct pw_supp *e, struct frames *f)
{
	int pi = 0, fi = 0, star_pi = -1, star_fi = 0;
	while (pi < e->nframes) {
		if (is_any(e->frames[pi])) {
			star_pi = ++pi;
			star_fi = fi;
			continue;
		}
		if (fi < f->n && frame_match(e->frames[pi], f, fi)) {
			pi++;
			fi++;
			continue;
		}
		if (star_pi < 0 || star_fi >= f->n)
			return false;
		pi = star_pi;
		fi = ++star_fi;
	}
	return true;
}

static bool match(const char *rule, const char *api, struct frames *f)
{
	const struct pw_supp_table *t = atomic_load_explicit(&table, memory_order_acquire);
	if (!t)
		return false;
	if (!rule)
		rule = "";
	if (!api)
		api = "";
	for (int i = 0; i < t->n; i++) {
		struct pw_supp *e = &t->v[i];
		if (!pw_glob_match(e->rule, rule))
			continue;
		if (e->api && !pw_glob_match(e->api, api))
			continue;
		if (e->nframes && !stack_match(e, f))
			continue;
		atomic_fetch_add_explicit(&e->hits, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&suppressed, 1, memory_order_relaxed);
		if (e->name)
			atomic_fetch_add_explicit(&suppressed_default, 1, memory_order_relaxed);
		return true;
	}
	return false;
}

static int clamp_frames(int n)
{
	return n <= 0 ? 0 : n < PW_STACK_MAX ? n : PW_STACK_MAX;
}

bool pw_suppress_match(const char *rule, const char *api, const uintptr_t *ips, int n)
{
	struct frames f;
	f.ips = ips;
	f.n = ips ? clamp_frames(n) : 0;
	f.named = 0; /* names are looked up as the patterns need them */
	return match(rule, api, &f);
}

bool pw_suppress_match_names(const char *rule, const char *api, const char *const *func,
                             const char *const *module, int n)
{
	struct frames f;
	f.ips = NULL;
	f.n = func && module ? clamp_frames(n) : 0;
	f.named = ~UINT64_C(0);
	for (int i = 0; i < f.n; i++) {
		f.func[i] = func[i] ? func[i] : "";
		f.mod[i] = module[i] ? module[i] : "";
	}
	return match(rule, api, &f);
}

uint64_t pw_suppress_count(void)
{
	return atomic_load_explicit(&suppressed, memory_order_relaxed);
}

void pw_suppress_reset_count(void)
{
	struct pw_supp_table *t = atomic_load_explicit(&table, memory_order_acquire);
	for (int i = 0; t && i < t->n; i++)
		atomic_store_explicit(&t->v[i].hits, 0, memory_order_relaxed);
	atomic_store(&suppressed, 0);
	atomic_store(&suppressed_default, 0);
}

uint64_t pw_suppress_count_default(void)
{
	return atomic_load_explicit(&suppressed_default, memory_order_relaxed);
}

bool pw_suppress_wants_stack(void)
{
	const struct pw_supp_table *t = atomic_load_explicit(&table, memory_order_acquire);
	return t && t->wants_stack;
}

bool pw_suppress_wants_stack_for(const char *rule)
{
	const struct pw_supp_table *t = atomic_load_explicit(&table, memory_order_acquire);
	if (!t || !t->wants_stack)
		return false;
	for (int i = 0; i < t->n; i++)
		if (t->v[i].nframes && pw_glob_match(t->v[i].rule, rule ? rule : ""))
			return true;
	return false;
}

const char *pw_suppress_entry_name(int i)
{
	const struct pw_supp_table *t = atomic_load_explicit(&table, memory_order_acquire);
	return t && i >= 0 && i < t->n ? t->v[i].name : NULL;
}

bool pw_suppress_default(size_t i, const char **name, const char **text, const char **library,
                         const char **why)
{
	if (i >= NDEFAULTS)
		return false;
	if (name)
		*name = defaults[i].name;
	if (text)
		*text = defaults[i].text;
	if (library)
		*library = defaults[i].library;
	if (why)
		*why = defaults[i].why;
	return true;
}

bool pw_suppress_entry(int i, const char **text, int *line, uint64_t *hits)
{
	struct pw_supp_table *t = atomic_load_explicit(&table, memory_order_acquire);
	if (!t || i < 0 || i >= t->n)
		return false;
	if (text)
		*text = t->v[i].text;
	if (line)
		*line = t->v[i].line;
	if (hits)
		*hits = atomic_load_explicit(&t->v[i].hits, memory_order_relaxed);
	return true;
}

/* ---- loading ---- */

static void table_free(struct pw_supp_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->v[i].frames);
		free(t->v[i].text);
		free(t->v[i].buf);
	}
	free(t->v);
	free(t);
}

void pw_suppress_free(void)
{
	table_free(atomic_exchange(&table, NULL));
	atomic_store(&suppressed, 0);
	atomic_store(&suppressed_default, 0);
}

struct loader {
	const char *path;
	int line;
	char *err;
	size_t errlen;
	struct pw_supp_table *t;
	int cap;
};

__attribute__((format(printf, 2, 3))) static int fail(struct loader *ld, const char *fmt, ...)
{
	if (!ld->err || !ld->errlen)
		return -1;
	int n = snprintf(ld->err, ld->errlen, "%s:%d: ", ld->path, ld->line);
	if (n >= 0 && (size_t)n < ld->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ld->err + n, ld->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Words shown in messages are cut to this many bytes. */
#define SHOW 64

static int check_glob(struct loader *ld, const char *key, const char *pat)
{
	const char *why = glob_problem(pat);
	if (why)
		return fail(ld, "%s pattern '%.*s' %s", key, SHOW, pat, why);
	return 0;
}

static int parse_stack(struct loader *ld, struct pw_supp *e, char *v)
{
	int n = 1;
	for (const char *c = v; *c; c++)
		n += *c == ';';
	if (n > PW_SUPPRESS_MAX_FRAMES)
		return fail(ld, "stack= has %d frame patterns; at most %d are allowed", n,
		            PW_SUPPRESS_MAX_FRAMES);
	e->frames = calloc((size_t)n, sizeof *e->frames);
	if (!e->frames)
		return fail(ld, "out of memory");
	for (int i = 0; i < n; i++) {
		char *semi = strchr(v, ';');
		if (semi)
			*semi = '\0';
		if (!*v)
			return fail(ld, "stack= frame %d is empty", i + 1);
		if (!is_any(v) && check_glob(ld, "stack= frame", v))
			return -1;
		e->frames[i] = v;
		v = semi ? semi + 1 : v + strlen(v);
	}
	e->nframes = n;
	return 0;
}

static int parse_word(struct loader *ld, struct pw_supp *e, char *w)
{
	char *eq = strchr(w, '=');
	if (!eq)
		return fail(ld, "expected key=value, found '%.*s'", SHOW, w);
	*eq = '\0';
	char *v = eq + 1;
	bool is_rule = strcmp(w, "rule") == 0, is_api = strcmp(w, "api") == 0;
	bool is_stack = strcmp(w, "stack") == 0;
	if (!is_rule && !is_api && !is_stack)
		return fail(ld, "unknown key '%.*s' (expected rule, api or stack)", SHOW, w);
	if ((is_rule && e->rule) || (is_api && e->api) || (is_stack && e->frames))
		return fail(ld, "%s= given twice", w);
	if (!*v)
		return fail(ld, "%s= has an empty value", w);
	if (is_stack)
		return parse_stack(ld, e, v);
	if (check_glob(ld, is_rule ? "rule=" : "api=", v))
		return -1;
	if (is_rule)
		e->rule = v;
	else
		e->api = v;
	return 0;
}

/* One line, NUL-terminated, without its newline. */
static int parse_line(struct loader *ld, char *s, size_t len)
{
	while (len && (is_blank(s[len - 1]) || s[len - 1] == '\r'))
		s[--len] = '\0';
	while (is_blank(*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	if (ld->t->n == PW_SUPPRESS_MAX_ENTRIES)
		return fail(ld, "more than %d suppressions", PW_SUPPRESS_MAX_ENTRIES);
	if (ld->t->n == ld->cap) {
		int cap = ld->cap ? ld->cap * 2 : 16;
		struct pw_supp *v = realloc(ld->t->v, (size_t)cap * sizeof *v);
		if (!v)
			return fail(ld, "out of memory");
		ld->t->v = v;
		ld->cap = cap;
	}
	struct pw_supp *e = &ld->t->v[ld->t->n++];
	memset(e, 0, sizeof *e);
	e->line = ld->line;
	e->text = strdup(s);
	e->buf = strdup(s);
	if (!e->text || !e->buf)
		return fail(ld, "out of memory");
	char *w = e->buf;
	for (;;) {
		while (is_blank(*w))
			w++;
		if (!*w || *w == '#')
			break;
		char *end = w;
		while (*end && !is_blank(*end))
			end++;
		bool last = !*end;
		*end = '\0';
		if (parse_word(ld, e, w))
			return -1;
		if (last)
			break;
		w = end + 1;
	}
	if (!e->rule)
		return fail(ld, "missing rule=");
	if (e->nframes)
		ld->t->wants_stack = true;
	/* The text is shown in the footer: without a trailing comment. */
	char *hash = e->text;
	while ((hash = strchr(hash, '#')) && !(hash > e->text && is_blank(hash[-1])))
		hash++;
	if (hash) {
		while (hash > e->text && is_blank(hash[-1]))
			hash--;
		*hash = '\0';
	}
	return 0;
}

static int read_lines(struct loader *ld, int fd)
{
	char chunk[8192];
	char line[PW_SUPPRESS_MAX_LINE + 1];
	size_t len = 0;
	ld->line = 1;
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(ld, "cannot read: %s", strerror(errno));
		if (r == 0)
			break;
		for (ssize_t i = 0; i < r; i++) {
			char c = chunk[i];
			if (c == '\n') {
				line[len] = '\0';
				if (parse_line(ld, line, len))
					return -1;
				ld->line++;
				len = 0;
			} else if (len == PW_SUPPRESS_MAX_LINE) {
				return fail(ld, "line longer than %d bytes", PW_SUPPRESS_MAX_LINE);
			} else if (!c) {
				return fail(ld, "NUL byte in the line");
			} else {
				line[len++] = c;
			}
		}
	}
	line[len] = '\0';
	return len ? parse_line(ld, line, len) : 0;
}

/* The default suppressions, after the file's entries. */
static int load_defaults(struct loader *ld)
{
	for (size_t i = 0; i < NDEFAULTS; i++) {
		char line[PW_SUPPRESS_MAX_LINE + 1];
		size_t len = strlen(defaults[i].text);
		ld->path = "default suppression";
		ld->line = 0;
		if (len > PW_SUPPRESS_MAX_LINE)
			return fail(ld, "%s is too long", defaults[i].name);
		memcpy(line, defaults[i].text, len + 1);
		int n = ld->t->n;
		if (parse_line(ld, line, len))
			return -1;
		if (ld->t->n > n)
			ld->t->v[n].name = defaults[i].name;
	}
	return 0;
}

int pw_suppress_load(const char *path, bool with_defaults, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	bool file = path && *path;
	struct loader ld = {.path = file ? path : "(none)", .err = err, .errlen = errlen};
	int fd = -1;
	if (file) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(&ld, "cannot open: %s", strerror(errno));
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			close(fd);
			return fail(&ld, "cannot read: %s", strerror(EISDIR));
		}
	}
	ld.t = calloc(1, sizeof *ld.t);
	int rc = ld.t ? 0 : fail(&ld, "out of memory");
	if (!rc && file)
		rc = read_lines(&ld, fd);
	if (fd >= 0)
		close(fd);
	if (!rc && with_defaults)
		rc = load_defaults(&ld);
	if (rc) {
		table_free(ld.t);
		return -1;
	}
	table_free(atomic_exchange(&table, ld.t));
	return 0;
}

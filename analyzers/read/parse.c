/*
 * One line of a trace, checked against docs/trace-format.md and turned into
 * a typed struct (parse.h).  Every member a report may read is type-checked
 * here, or against the format's table (schema.h), so the reports can read
 * them without checking again; a line that breaks the format is refused
 * whole, with a message that names the member.
 *
 * Members and event types this reader does not know are ignored (the format
 * lets later writers add them within version 1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "read/apiop.h"
#include "read/json.h"
#include "read/parse.h"
#include "read/scan.h"
#include "read/schema.h"
#include "read/trace.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- typed member access with a message when the type is wrong ---- */

struct ctx {
	json_t *obj;
	const char *where; /* "" or "args." */
	char *err;
	size_t errlen;
};

static json_t *need(struct ctx *c, const char *key, json_type t, const char *what)
{
	json_t *v = json_object_get(c->obj, key);
	if (!v) {
		fail(c->err, c->errlen, "missing member \"%s%s\"", c->where, key);
		return NULL;
	}
	if (json_typeof(v) != t) {
		fail(c->err, c->errlen, "\"%s%s\" must be %s, not %s", c->where, key, what, pw_json_type(v));
		return NULL;
	}
	return v;
}

static int get_int(struct ctx *c, const char *key, int64_t *out, int64_t min)
{
	json_t *v = need(c, key, JSON_INTEGER, "an integer");
	if (!v)
		return -1;
	*out = json_integer_value(v);
	if (*out < min)
		return fail(c->err, c->errlen, "\"%s%s\" is %lld, less than %lld", c->where, key,
		            (long long)*out, (long long)min);
	return 0;
}

/* A non-negative integer that may be absent (then *out is left alone). */
static int opt_int(struct ctx *c, const char *key, int64_t *out)
{
	return json_object_get(c->obj, key) ? get_int(c, key, out, 0) : 0;
}

static int get_u64(struct ctx *c, const char *key, uint64_t *out)
{
	int64_t v;
	if (get_int(c, key, &v, 0))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int get_str(struct ctx *c, const char *key, const char **out)
{
	json_t *v = need(c, key, JSON_STRING, "a string");
	if (!v)
		return -1;
	*out = json_string_value(v);
	return 0;
}

/* A string or null; absent is an error unless `optional`. */
static int get_str_null(struct ctx *c, const char *key, const char **out, bool optional)
{
	json_t *v = json_object_get(c->obj, key);
	*out = NULL;
	if (!v)
		return optional ? 0 : fail(c->err, c->errlen, "missing member \"%s%s\"", c->where, key);
	if (json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return fail(c->err, c->errlen, "\"%s%s\" must be a string or null, not %s", c->where, key,
		            pw_json_type(v));
	*out = json_string_value(v);
	return 0;
}

/* Device ordinals fit a CUdevice (int); anything else is not one. */
static int check_dev(struct ctx *c, const char *key, json_t *v, int64_t *out)
{
	*out = PW_DEV_NONE;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return fail(c->err, c->errlen, "\"%s%s\" must be a device ordinal or null, not %s", c->where,
		            key, pw_json_type(v));
	json_int_t d = json_integer_value(v);
	if (d < INT32_MIN || d > INT32_MAX)
		return fail(c->err, c->errlen, "\"%s%s\" is %lld, not a device ordinal", c->where, key,
		            (long long)d);
	*out = d;
	return 0;
}

/* Every member of an event (or another line) of the given scope. */
static int check_members(struct ctx *c, int scope)
{
	return pw_check_members(c->obj, scope, c->err, c->errlen);
}

/* ---- stacks ---- */

static int get_stack(struct ctx *c, struct pw_event *ev, struct vec *stack)
{
	json_t *s = json_object_get(c->obj, "stack");
	ev->stack = NULL;
	ev->nstack = 0;
	if (!s)
		return 0;
	if (!json_is_array(s))
		return fail(c->err, c->errlen, "\"stack\" must be an array of hex strings, not %s",
		            pw_json_type(s));
	stack->len = 0;
	size_t i;
	json_t *e;
	json_array_foreach(s, i, e)
	{
		uint64_t pc;
		if (!json_is_string(e) || !parse_hex_u64(json_string_value(e), &pc))
			return fail(c->err, c->errlen, "\"stack[%zu]\" is not a hex address", i);
		*(uint64_t *)vec_push(stack) = pc;
	}
	ev->stack = stack->data;
	ev->nstack = stack->len;
	return 0;
}

/* ---- events ---- */

static int parse_call(struct ctx *c, struct pw_event *ev, struct vec *stack)
{
	int64_t seq;
	if (get_int(c, "seq", &seq, 1) || get_int(c, "tid", &ev->tid, 0) ||
	    get_str(c, "vendor", &ev->vendor) || get_str(c, "api", &ev->api) ||
	    get_str(c, "variant", &ev->variant) || get_str(c, "family", &ev->family) ||
	    get_int(c, "t_ns", &ev->t_ns, 0) || get_int(c, "dur_ns", &ev->dur_ns, 0) ||
	    get_int(c, "ret", &ev->ret, INT64_MIN) || get_str_null(c, "ret_name", &ev->ret_name, false))
		return -1;
	ev->seq = (uint64_t)seq;
	if (ev->t_ns > INT64_MAX - ev->dur_ns)
		return fail(c->err, c->errlen, "\"t_ns\" + \"dur_ns\" overflows");
	json_t *p = json_object_get(c->obj, "parent");
	ev->has_parent = p != NULL;
	if (p && get_u64(c, "parent", &ev->parent))
		return -1;
	if (check_dev(c, "cur_dev", json_object_get(c->obj, "cur_dev"), &ev->cur_dev))
		return -1;
	if (get_str_null(c, "layer", &ev->layer, true) || get_str_null(c, "op", &ev->op, true))
		return -1;
	if (!ev->op) /* a trace from before calls had "op" */
		ev->op = pw_op_of_api(ev->api);
	json_t *pt = json_object_get(c->obj, "parent_time");
	if (pt && !json_is_boolean(pt))
		return fail(c->err, c->errlen, "\"parent_time\" must be a boolean, not %s", pw_json_type(pt));
	ev->parent_time = json_is_true(pt);
	json_t *im = json_object_get(c->obj, "implicit");
	if (im && !json_is_boolean(im))
		return fail(c->err, c->errlen, "\"implicit\" must be a boolean, not %s", pw_json_type(im));
	ev->implicit = json_is_true(im);
	if (!pw_vendor_known(ev->vendor))
		return fail(
		    c->err, c->errlen,
		    "vendor \"%.32s\" is not one this reader knows (cuda, hip, acl); the call is skipped",
		    ev->vendor);
	ev->args = need(c, "args", JSON_OBJECT, "an object");
	if (!ev->args || get_stack(c, ev, stack))
		return -1;
	return check_members(c, PW_SC_CALL);
}

static int violation_fields(struct ctx *c, struct pw_event *ev)
{
	int64_t seq;
	if (get_int(c, "seq", &seq, 1) || get_str(c, "rule", &ev->rule) ||
	    get_str(c, "severity", &ev->severity) || get_str(c, "message", &ev->message))
		return -1;
	ev->seq = (uint64_t)seq;
	/* absent for a finding made outside any call (ipc.leak, vmm.leak at exit) */
	ev->has_call = json_object_get(c->obj, "call") != NULL;
	if (ev->has_call && get_int(c, "call", &seq, 1))
		return -1;
	ev->call = ev->has_call ? (uint64_t)seq : 0;
	if (!*ev->rule)
		return fail(c->err, c->errlen, "\"rule\" is empty");
	/* optional: when and where the preload saw it */
	json_t *t = json_object_get(c->obj, "t_ns"), *tid = json_object_get(c->obj, "tid");
	if ((t && get_int(c, "t_ns", &ev->t_ns, 0)) || (tid && get_int(c, "tid", &ev->tid, 0)))
		return -1;
	ev->has_time = t && tid;
	/* the call's api and op, which an enforce-mode trace has nowhere else; a
	 * trace from before violations had "op": the op of the api */
	if (get_str_null(c, "api", &ev->api, true) || get_str_null(c, "op", &ev->op, true) ||
	    get_str_null(c, "vendor", &ev->vendor, true))
		return -1;
	if (!ev->op && ev->api)
		ev->op = pw_op_of_api(ev->api);
	return 0;
}

static int parse_violation(struct ctx *c, struct pw_event *ev, struct vec *stack)
{
	return violation_fields(c, ev) || get_stack(c, ev, stack) || check_members(c, PW_SC_VIOLATION) ? -1
	                                                                                               : 0;
}

static int parse_gpu_time(struct ctx *c, struct pw_event *ev)
{
	return get_u64(c, "call", &ev->call) || get_u64(c, "gpu_ns", &ev->gpu_ns) ||
	               check_members(c, PW_SC_GPU_TIME)
	           ? -1
	           : 0;
}

/* A string member that must be one of names[1..n-1] (names[0]: absent,
 * *out 0); a value not in the list is named in the message. */
static int get_enum(struct ctx *c, const char *key, const char *const *names, int n, int *out,
                    const char *list)
{
	json_t *v = json_object_get(c->obj, key);
	*out = 0;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return fail(c->err, c->errlen, "\"%s\" must be a string, not %s", key, pw_json_type(v));
	for (int i = 1; i < n; i++)
		if (!strcmp(json_string_value(v), names[i])) {
			*out = i;
			return 0;
		}
	return fail(c->err, c->errlen, "%s \"%.40s\" is not one this reader knows (%s)", key,
	            json_string_value(v), list);
}

/* A processor: "cpu" or a device ordinal. */
static int um_proc(struct ctx *c, json_t *v, const char *key, int32_t *out)
{
	if (json_is_string(v) && !strcmp(json_string_value(v), "cpu")) {
		*out = PW_UM_CPU;
		return 0;
	}
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT32_MAX) {
		*out = (int32_t)json_integer_value(v);
		return 0;
	}
	char shown[48] = "";
	if (json_is_string(v))
		snprintf(shown, sizeof shown, "\"%.40s\"", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(shown, sizeof shown, "%lld", (long long)json_integer_value(v));
	else
		snprintf(shown, sizeof shown, "%s", pw_json_type(v));
	return fail(c->err, c->errlen, "\"%s\" is %s, not \"cpu\" or a device ordinal", key, shown);
}

static int um_opt_proc(struct ctx *c, const char *key, bool *has, int32_t *out)
{
	json_t *v = json_object_get(c->obj, key);
	*has = v != NULL;
	return v ? um_proc(c, v, key, out) : 0;
}

static int um_u64(struct ctx *c, const char *key, bool *has, uint64_t *out)
{
	json_t *v = json_object_get(c->obj, key);
	*has = v != NULL;
	if (v && !pw_json_u64(v, out))
		return fail(c->err, c->errlen, "\"%s\" must be a non-negative integer, not %s", key,
		            pw_json_type(v));
	return 0;
}

static int parse_um(struct ctx *c, struct pw_event *ev)
{
	static const char *const kinds[PW_UM_KINDS + 1] = {
	    "", "htod", "dtoh", "dtod", "cpu_fault", "gpu_fault", "thrashing", "throttling", "remote_map"};
	static const char *const causes[PW_UMC_COUNT] = {
	    "",          "user",   "coherence",     "prefetch", "eviction", "access_counters",
	    "thrashing", "policy", "out_of_memory", "unknown"};
	static const char *const access[PW_UMA_COUNT] = {"",       "read",     "write",
	                                                 "atomic", "prefetch", "unknown"};
	struct pw_um *u = &ev->um;
	const char *kind, *addr;
	int k, cause, acc;
	bool has_t;
	uint64_t t = 0, end = 0;
	/* the types first (the table), then what the values must be */
	if (check_members(c, PW_SC_UM) || get_str(c, "kind", &kind) || get_str(c, "addr", &addr))
		return -1;
	if (get_enum(c, "kind", kinds, PW_UM_KINDS + 1, &k,
	             "htod, dtoh, dtod, cpu_fault, gpu_fault, thrashing, throttling, remote_map"))
		return -1;
	u->kind = (enum pw_um_kind)(k - 1);
	if (um_u64(c, "t_ns", &has_t, &t) || um_u64(c, "end_ns", &u->has_end, &end) ||
	    um_u64(c, "bytes", &u->has_bytes, &u->bytes) || um_u64(c, "groups", &u->has_groups, &u->groups))
		return -1;
	if (!has_t)
		return fail(c->err, c->errlen, "missing member \"t_ns\"");
	if (t > INT64_MAX || end > INT64_MAX)
		return fail(c->err, c->errlen, "\"%s\" is beyond the clock's range",
		            t > INT64_MAX ? "t_ns" : "end_ns");
	ev->t_ns = (int64_t)t;
	u->end_ns = u->has_end ? (int64_t)end : ev->t_ns;
	if (u->end_ns < ev->t_ns)
		return fail(c->err, c->errlen, "\"end_ns\" is before \"t_ns\"");
	if (!parse_hex_u64(addr, &u->addr))
		return fail(c->err, c->errlen, "\"addr\" is not a hex address");
	if (um_opt_proc(c, "proc", &u->has_proc, &u->proc) || um_opt_proc(c, "src", &u->has_src, &u->src) ||
	    um_opt_proc(c, "dst", &u->has_dst, &u->dst))
		return -1;
	json_t *ps = json_object_get(c->obj, "procs"), *e;
	size_t i;
	json_array_foreach(ps, i, e)
	{
		int32_t p = PW_UM_CPU;
		if (um_proc(c, e, "procs[]", &p))
			return -1;
		u->procs |= PW_UM_PROC_BIT(p);
	}
	if (get_enum(c, "cause", causes, PW_UMC_COUNT, &cause,
	             "user, coherence, prefetch, eviction, access_counters, thrashing, policy, "
	             "out_of_memory, unknown") ||
	    get_enum(c, "access", access, PW_UMA_COUNT, &acc, "read, write, atomic, prefetch, unknown"))
		return -1;
	u->cause = (enum pw_um_cause)cause;
	u->access = (enum pw_um_access)acc;
	return 0;
}

/* ---- the fast path: a call line of the plain shape, from a flat scan ----
 * The library writes nearly every line as a call of the plain shape that
 * scan.h takes.  Such a line is checked here against the same rules as
 * parse_call and the table, without building a tree; a line that breaks any
 * of them, or is of another shape, goes to the full parse, which names what
 * is wrong.  So the fast path decides nothing the full parse would decide
 * otherwise (tests/analyze/fuzz_reader.c compares the two on every input). */

bool pw_parse_fast = true;
static __thread bool last_fast;

bool pw_parse_was_fast(void)
{
	return last_fast;
}

enum {
	K_SEQ,
	K_TID,
	K_VENDOR,
	K_API,
	K_VARIANT,
	K_FAMILY,
	K_T_NS,
	K_DUR_NS,
	K_RET,
	K_RET_NAME,
	K_PARENT,
	K_CUR_DEV,
	K_LAYER,
	K_OP,
	K_PARENT_TIME,
	K_IMPLICIT,
	K_ARGS,
	K_STACK,
	K_SUPPRESSED,
	K_COUNT
};

_Static_assert(K_COUNT <= PW_SHAPE_AUX, "a shape remembers where each member is");

/* The member a key names, or -1: by its length and first letter, then one
 * compare (the table search took as long as the scan of the line). */
static int call_key(const char *k, uint32_t len)
{
	static const char *const names[K_COUNT] = {
	    "seq",         "tid",      "vendor",   "api",    "variant",   "family", "t_ns",
	    "dur_ns",      "ret",      "ret_name", "parent", "cur_dev",   "layer",  "op",
	    "parent_time", "implicit", "args",     "stack",  "suppressed"};
	int i;
	switch (len) {
	case 2: i = K_OP; break;
	case 3: i = k[0] == 's' ? K_SEQ : k[0] == 't' ? K_TID : k[0] == 'a' ? K_API : K_RET; break;
	case 4: i = k[0] == 't' ? K_T_NS : K_ARGS; break;
	case 5: i = k[0] == 'l' ? K_LAYER : K_STACK; break;
	case 6:
		i = k[0] == 'v' ? K_VENDOR : k[0] == 'f' ? K_FAMILY : k[0] == 'd' ? K_DUR_NS : K_PARENT;
		break;
	case 7: i = k[0] == 'v' ? K_VARIANT : K_CUR_DEV; break;
	case 8: i = k[0] == 'r' ? K_RET_NAME : K_IMPLICIT; break;
	case 10: i = K_SUPPRESSED; break;
	case 11: i = K_PARENT_TIME; break;
	default: return -1;
	}
	return memcmp(k, names[i], len) ? -1 : i;
}

static bool tok_int(const struct pw_tok *t, int64_t min, int64_t *out)
{
	if (!t || t->type != PW_T_INT || t->v.i < min)
		return false;
	*out = t->v.i;
	return true;
}

static bool tok_str(const struct pw_tok *t, const char **out)
{
	if (!t || t->type != PW_T_STR)
		return false;
	*out = t->v.s;
	return true;
}

/* Absent or null: NULL; a string; anything else is refused. */
static bool tok_str_null(const struct pw_tok *t, const char **out)
{
	*out = NULL;
	return !t || t->type == PW_T_NULL || tok_str(t, out);
}

static bool tok_bool(const struct pw_tok *t, bool *out)
{
	*out = t && t->type == PW_T_TRUE;
	return !t || t->type == PW_T_TRUE || t->type == PW_T_FALSE;
}

/* *p at the n bytes of s: moved past them (inlined with its constant n,
 * the compare is a load or two, not a call). */
static inline __attribute__((always_inline)) bool skip_part(const char **p, const char *end, const char *s,
                                                            size_t n)
{
	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/* The hash of a call line's API name where the library writes it, after
 * {"type":"call","seq":N,"tid":N,"vendor":"..., as the key of its shapes
 * (scan.h); false for a line that does not start so.  Only a key: the line
 * is scanned, or matched, and checked whole either way. */
static bool api_key(const char *line, size_t len, uint32_t *key)
{
	static const char seq[] = "{\"type\":\"call\",\"seq\":", tid[] = ",\"tid\":",
	                  vendor[] = ",\"vendor\":\"", api[] = "\",\"api\":\"";
	const char *p = line, *end = line + len;
	if (!skip_part(&p, end, seq, sizeof seq - 1))
		return false;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (!skip_part(&p, end, tid, sizeof tid - 1))
		return false;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (!skip_part(&p, end, vendor, sizeof vendor - 1))
		return false;
	while (p < end && *p != '"')
		p++;
	if (!skip_part(&p, end, api, sizeof api - 1))
		return false;
	uint32_t h = 2166136261u;
	for (; p < end && *p != '"'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	*key = h;
	return p < end;
}

static bool fast_call(const char *line, size_t len, struct pw_event *ev, struct vec *stack)
{
	static const char start[] = "{\"type\":\"call\","; /* as the library writes it */
	if (len < sizeof start - 1 || memcmp(line, start, sizeof start - 1))
		return false;
	uint32_t key = 0;
	bool keyed = pw_scan_shapes && api_key(line, len, &key);
	struct pw_shape *sh = NULL;
	const struct pw_flat *f = keyed ? pw_scan_shaped(line, len, key, &sh) : pw_scan(line, len);
	if (!f)
		return false;
	const struct pw_tok *t = f->t, *m[K_COUNT] = {0};
	if (sh && sh->aux_known) { /* where the shape has each member (0: none) */
		for (int i = 0; i < K_COUNT; i++)
			m[i] = sh->aux[i] ? &t[sh->aux[i]] : NULL;
	} else {
		size_t k = 1;
		for (uint32_t i = 0; i < t[0].n; i++, k = t[k + 1].next) {
			int which = call_key(t[k].v.s, t[k].n);
			if (which >= 0)
				m[which] = &t[k + 1];
		}
	}
	int64_t seq;
	if (!tok_int(m[K_SEQ], 1, &seq) || !tok_int(m[K_TID], 0, &ev->tid) ||
	    !tok_str(m[K_VENDOR], &ev->vendor) || !tok_str(m[K_API], &ev->api) ||
	    !tok_str(m[K_VARIANT], &ev->variant) || !tok_str(m[K_FAMILY], &ev->family) ||
	    !tok_int(m[K_T_NS], 0, &ev->t_ns) || !tok_int(m[K_DUR_NS], 0, &ev->dur_ns) ||
	    !tok_int(m[K_RET], INT64_MIN, &ev->ret) || !m[K_RET_NAME] ||
	    !tok_str_null(m[K_RET_NAME], &ev->ret_name))
		return false;
	ev->seq = (uint64_t)seq;
	if (ev->t_ns > INT64_MAX - ev->dur_ns)
		return false;
	int64_t parent = 0;
	ev->has_parent = m[K_PARENT] != NULL;
	if (ev->has_parent && !tok_int(m[K_PARENT], 0, &parent))
		return false;
	ev->parent = (uint64_t)parent;
	const struct pw_tok *d = m[K_CUR_DEV];
	if (d && d->type != PW_T_NULL && (d->type != PW_T_INT || d->v.i < INT32_MIN || d->v.i > INT32_MAX))
		return false;
	ev->cur_dev = d && d->type == PW_T_INT ? d->v.i : PW_DEV_NONE;
	if (!tok_str_null(m[K_LAYER], &ev->layer) || !tok_str_null(m[K_OP], &ev->op) ||
	    !tok_bool(m[K_PARENT_TIME], &ev->parent_time) || !tok_bool(m[K_IMPLICIT], &ev->implicit))
		return false;
	if (!ev->op)
		ev->op = sh && sh->api[0] && !strcmp(sh->api, ev->api) ? sh->op : pw_op_of_api(ev->api);
	if (!pw_vendor_known(ev->vendor) || !m[K_ARGS] || m[K_ARGS]->type != PW_T_OBJ)
		return false;
	stack->len = 0;
	if (m[K_STACK]) {
		if (m[K_STACK]->type != PW_T_ARR)
			return false;
		for (size_t e = (size_t)(m[K_STACK] - t) + 1; e < m[K_STACK]->next; e++) {
			uint64_t pc;
			if (t[e].type != PW_T_STR || !parse_hex_u64(t[e].v.s, &pc))
				return false;
			*(uint64_t *)vec_push(stack) = pc;
		}
		ev->stack = stack->data;
		ev->nstack = stack->len;
	}
	if (sh && sh->fit_known) {
		if (!pw_flat_checks_fit(f, sh->fit, sh->nfit))
			return false;
	} else if (keyed && !sh) { /* checked, and learnt if it holds */
		struct vec checks;
		bool fit = pw_flat_members_fit_memo(f, 0, PW_SC_CALL, &checks);
		if (fit && (sh = pw_shape_learn(f, line, key)) != NULL) {
			sh->fit = checks.data;
			sh->nfit = checks.len;
			sh->fit_known = true;
			for (int i = 0; i < K_COUNT; i++)
				sh->aux[i] = m[i] ? (uint32_t)(m[i] - t) : 0;
			sh->aux_known = true;
			if (!m[K_OP] && strlen(ev->api) < sizeof sh->api) {
				strcpy(sh->api, ev->api);
				sh->op = ev->op;
			}
		} else {
			vec_free(&checks);
		}
		if (!fit)
			return false;
	} else if (!pw_flat_members_fit(f, 0, PW_SC_CALL)) {
		return false;
	}
	ev->type = PW_EV_CALL;
	ev->flat = f;
	ev->flat_args = (size_t)(m[K_ARGS] - t);
	ev->flat_supp = m[K_SUPPRESSED] ? (size_t)(m[K_SUPPRESSED] - t) : PW_FLAT_NONE;
	return true;
}

void pw_parse_thread_done(void)
{
	pw_ev_args_done();
	pw_scan_thread_done();
	pw_reader_thread_done();
}

bool pw_parse_fast_line(const char *line, size_t len, struct pw_event *ev, struct vec *stack, char *copy)
{
	pw_ev_args_done();
	bytes_zero(ev, sizeof *ev);
	ev->cur_dev = PW_DEV_NONE;
	pw_scan_to(copy);
	last_fast = pw_parse_fast && fast_call(line, len, ev, stack);
	pw_scan_to(NULL); /* when no scan took it */
	if (last_fast)
		pw_json_forget();
	return last_fast;
}

#define ALIGN16(n) (((n) + 15) & ~(size_t)15)

/* The tokens a detached event keeps: its args object's, then its
 * "suppressed" array's, if any (nothing reads any other member's tokens:
 * the rest is in the event's own fields). */
static size_t subtree_len(const struct pw_flat *f, size_t at)
{
	return at != PW_FLAT_NONE ? f->t[at].next - at : 0;
}

size_t pw_event_detach_size(const struct pw_event *ev)
{
	const struct pw_flat *f = ev->flat;
	size_t n = subtree_len(f, ev->flat_args) + subtree_len(f, ev->flat_supp);
	return ALIGN16(sizeof *ev) + ALIGN16(sizeof *f) + ALIGN16(n * sizeof *f->t) +
	       (f->kept ? 0 : ALIGN16(f->len + 1)) + ev->nstack * sizeof(uint64_t);
}

/* A string of the line's copy moved to the same place in `to`; any other
 * (an op from the hook tables, NULL) as it is. */
static const char *rebase(const char *s, const struct pw_flat *from, const char *to)
{
	uintptr_t p = (uintptr_t)s, b = (uintptr_t)from->buf;
	return s && p >= b && p <= b + from->len ? to + (p - b) : s;
}

/* The subtree at `at` copied to t[to ...], its links and strings moved;
 * the index after it. */
static size_t copy_subtree(struct pw_tok *t, size_t to, const struct pw_flat *f, size_t at, const char *buf)
{
	size_t n = subtree_len(f, at);
	uint32_t shift = (uint32_t)to - (uint32_t)at; /* wraps: the same sum, mod 2^32 */
	memcpy(t + to, f->t + at, n * sizeof *t);
	for (size_t i = to; i < to + n; i++)
		t[i].next += shift;
	if (!f->kept) /* the strings are in a copy of the line made here */
		for (size_t i = to; i < to + n; i++)
			if (t[i].type == PW_T_STR)
				t[i].v.s = rebase(t[i].v.s, f, buf);
	return to + n;
}

struct pw_event *pw_event_detach(const struct pw_event *ev, void *mem)
{
	const struct pw_flat *f = ev->flat;
	size_t n = subtree_len(f, ev->flat_args) + subtree_len(f, ev->flat_supp);
	char *p = mem;
	struct pw_event *e = (struct pw_event *)p;
	p += ALIGN16(sizeof *e);
	struct pw_flat *fl = (struct pw_flat *)p;
	p += ALIGN16(sizeof *fl);
	struct pw_tok *t = (struct pw_tok *)p;
	p += ALIGN16(n * sizeof *t);
	bytes_copy(e, ev, sizeof *e);
	char *buf = (char *)f->buf; /* kept where the scan made it, or copied */
	if (!f->kept) {
		buf = p;
		p += ALIGN16(f->len + 1);
		memcpy(buf, f->buf, f->len + 1);
	}
	size_t supp = copy_subtree(t, 0, f, ev->flat_args, buf);
	copy_subtree(t, supp, f, ev->flat_supp, buf);
	*fl = (struct pw_flat){t, n, buf, f->len, true};
	e->flat = fl;
	e->flat_args = 0;
	e->flat_supp = ev->flat_supp != PW_FLAT_NONE ? supp : PW_FLAT_NONE;
	if (!f->kept) { /* else the strings are where the scan made them */
		e->vendor = rebase(ev->vendor, f, buf);
		e->api = rebase(ev->api, f, buf);
		e->variant = rebase(ev->variant, f, buf);
		e->family = rebase(ev->family, f, buf);
		e->op = rebase(ev->op, f, buf);
		e->ret_name = rebase(ev->ret_name, f, buf);
		e->layer = rebase(ev->layer, f, buf);
	}
	e->args = NULL;
	e->root = NULL;
	if (ev->stack) {
		memcpy(p, ev->stack, ev->nstack * sizeof(uint64_t));
		e->stack = (const uint64_t *)p;
	}
	return e;
}

enum pw_line_kind pw_parse_line(const char *line, size_t len, struct pw_event *ev, struct vec *stack,
                                json_t **root, char *err, size_t errlen)
{
	json_error_t je;
	pw_ev_args_done();
	bytes_zero(ev, sizeof *ev);
	ev->cur_dev = PW_DEV_NONE;
	last_fast = pw_parse_fast && fast_call(line, len, ev, stack);
	if (last_fast) {
		pw_json_forget();
		*root = NULL;
		return PW_LINE_EVENT;
	}
	bytes_zero(ev, sizeof *ev);
	ev->cur_dev = PW_DEV_NONE;
	*root = pw_json_load(line, len, &je);
	if (!*root) {
		if (strstr(je.text, "duplicate object key")) /* valid JSON, not a trace's */
			fail(err, errlen, "a member named twice in one object (column %d): %s", je.column,
			     je.text);
		else
			fail(err, errlen, "not valid JSON (column %d): %s", je.column, je.text);
		return PW_LINE_BAD;
	}
	ev->root = *root;
	if (!json_is_object(*root)) {
		fail(err, errlen, "a line must be a JSON object, not %s", pw_json_type(*root));
		return PW_LINE_BAD;
	}
	struct ctx c = {*root, "", err, errlen};
	const char *type;
	if (get_str(&c, "type", &type))
		return PW_LINE_BAD;
	int r;
	if (!strcmp(type, "call")) {
		ev->type = PW_EV_CALL;
		r = parse_call(&c, ev, stack);
	} else if (!strcmp(type, "violation")) {
		ev->type = PW_EV_VIOLATION;
		r = parse_violation(&c, ev, stack);
	} else if (!strcmp(type, "gpu_time")) {
		ev->type = PW_EV_GPU_TIME;
		r = parse_gpu_time(&c, ev);
	} else if (!strcmp(type, "um")) {
		ev->type = PW_EV_UM;
		r = parse_um(&c, ev);
	} else if (!strcmp(type, "device")) {
		return PW_LINE_DEVICE;
	} else if (!strcmp(type, "header")) {
		return PW_LINE_HEADER;
	} else if (!strcmp(type, "footer")) {
		return PW_LINE_FOOTER;
	} else {
		return PW_LINE_OTHER;
	}
	if (r) {
		/* say which event, when its number is readable (a um event has none) */
		json_t *s = json_object_get(*root, "seq");
		if (ev->type == PW_EV_UM && strlen(err) + 8 < errlen) {
			char tmp[512];
			snprintf(tmp, sizeof tmp, "um: %s", err);
			snprintf(err, errlen, "%s", tmp);
		} else if (json_is_integer(s) && strlen(err) + 40 < errlen) {
			char tmp[512];
			snprintf(tmp, sizeof tmp, "%s seq %lld: %s", type, (long long)json_integer_value(s),
			         err);
			snprintf(err, errlen, "%s", tmp);
		}
		return PW_LINE_BAD;
	}
	return PW_LINE_EVENT;
}

/* ---- header and footer ---- */

static bool have_module(const struct vec *mods, const char *path, uint64_t base)
{
	for (size_t i = 0; i < mods->len; i++) {
		const struct pw_module *m = vec_at(mods, i);
		if (m->base == base && !strcmp(m->path, path))
			return true;
	}
	return false;
}

/* Adds the modules not already listed (the footer repeats the header's). */
static int get_modules(struct ctx *c, struct vec *mods)
{
	json_t *a = json_object_get(c->obj, "modules");
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"modules\" must be an array, not %s", pw_json_type(a));
	size_t i;
	json_t *m;
	json_array_foreach(a, i, m)
	{
		json_t *p = json_object_get(m, "path"), *b = json_object_get(m, "base"),
		       *id = json_object_get(m, "build_id");
		uint64_t base;
		if (!json_is_object(m) || !json_is_string(p) || !json_is_string(b) ||
		    !parse_hex_u64(json_string_value(b), &base) ||
		    (id && !json_is_string(id) && !json_is_null(id)))
			return fail(c->err, c->errlen,
			            "\"modules[%zu]\" must be {\"path\": string, \"base\": hex, "
			            "\"build_id\": string or null}",
			            i);
		if (have_module(mods, json_string_value(p), base))
			continue;
		struct pw_module *pm = vec_push(mods);
		pm->path = xstrdup(json_string_value(p));
		pm->base = base;
		pm->build_id = json_is_string(id) ? xstrdup(json_string_value(id)) : NULL;
	}
	return 0;
}

static int get_argv(struct ctx *c, struct pw_file *f)
{
	json_t *a = json_object_get(c->obj, "argv");
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"argv\" must be an array of strings, not %s",
		            pw_json_type(a));
	f->argv = xcalloc(json_array_size(a) + 1, sizeof *f->argv);
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s)
	{
		if (!json_is_string(s))
			return fail(c->err, c->errlen, "\"argv[%zu]\" must be a string, not %s", i,
			            pw_json_type(s));
		f->argv[f->argc++] = xstrdup(json_string_value(s));
	}
	return 0;
}

static int get_vendors(struct ctx *c, struct pw_file *f)
{
	json_t *v = json_object_get(c->obj, "vendors");
	if (!v)
		return 0;
	if (!json_is_object(v))
		return fail(c->err, c->errlen, "\"vendors\" must be an object, not %s", pw_json_type(v));
	/* hip and acl: {"library": string or null, "runtime_version": integer, string or null} */
	static const char *const others[] = {"hip", "acl"};
	for (size_t i = 0; i < 2; i++) {
		json_t *o = json_object_get(v, others[i]), *rv = json_object_get(o, "runtime_version");
		char where[32];
		const char *lib;
		snprintf(where, sizeof where, "vendors.%s.", others[i]);
		struct ctx oc = {o, where, c->err, c->errlen};
		if (!o)
			continue;
		if (!json_is_object(o))
			return fail(c->err, c->errlen, "\"vendors.%s\" must be an object, not %s", others[i],
			            pw_json_type(o));
		if (get_str_null(&oc, "library", &lib, true))
			return -1;
		if (rv && !json_is_null(rv) && !json_is_integer(rv) && !json_is_string(rv))
			return fail(
			    c->err, c->errlen,
			    "\"vendors.%s.runtime_version\" must be an integer, a string or null, not %s",
			    others[i], pw_json_type(rv));
	}
	free(f->vendors);
	f->vendors = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_t *cuda = json_object_get(v, "cuda");
	if (!cuda)
		return 0;
	struct ctx cc = {cuda, "vendors.cuda.", c->err, c->errlen};
	if (!json_is_object(cuda))
		return fail(c->err, c->errlen, "\"vendors.cuda\" must be an object");
	const char *lib;
	if (get_str_null(&cc, "library", &lib, true))
		return -1;
	f->driver_lib = lib ? xstrdup(lib) : NULL;
	json_t *dv = json_object_get(cuda, "driver_version");
	if (dv && !json_is_null(dv) && !json_is_integer(dv))
		return fail(c->err, c->errlen, "\"vendors.cuda.driver_version\" must be an integer or null");
	f->has_driver_version = json_is_integer(dv);
	f->driver_version = f->has_driver_version ? json_integer_value(dv) : 0;
	return 0;
}

/* "environment": [{"name", "value"}...]; absent in traces from before it */
static int get_environment(struct ctx *c, struct pw_file *f)
{
	json_t *e = json_object_get(c->obj, "environment"), *o;
	size_t i;
	if (!e)
		return 0;
	if (!json_is_array(e))
		return fail(c->err, c->errlen, "\"environment\" must be an array, not %s", pw_json_type(e));
	json_array_foreach(e, i, o)
	{
		if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")) ||
		    !json_is_string(json_object_get(o, "value")))
			return fail(
			    c->err, c->errlen,
			    "\"environment[%zu]\" must be an object with string members name and value", i);
	}
	free(f->environment);
	f->environment = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER);
	return 0;
}

static int get_options(struct ctx *c, struct pw_file *f)
{
	json_t *o = json_object_get(c->obj, "options");
	if (!o)
		return 0;
	if (!json_is_object(o))
		return fail(c->err, c->errlen, "\"options\" must be an object, not %s", pw_json_type(o));
	f->options = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *m = json_object_get(o, "mode");
	if (json_is_string(m))
		f->mode = xstrdup(json_string_value(m));
	return 0;
}

static int check_format(struct ctx *c)
{
	const char *format;
	int64_t version;
	if (get_str(c, "format", &format))
		return -1;
	if (strcmp(format, "peerwatch"))
		return fail(c->err, c->errlen, "not a peerwatch trace (format \"%.64s\")", format);
	json_t *v = json_object_get(c->obj, "version");
	if (!json_is_integer(v))
		return fail(c->err, c->errlen, "the header's \"version\" must be an integer");
	version = json_integer_value(v);
	if (version != PW_FORMAT_VERSION)
		return fail(c->err, c->errlen,
		            "trace format version %lld is not known to this reader (it reads version %d)",
		            (long long)version, PW_FORMAT_VERSION);
	return 0;
}

int pw_file_header(struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	struct ctx c = {root, "", err, errlen};
	const char *host, *pwv, *run;
	if (check_format(&c) || get_int(&c, "pid", &f->pid, 0) || get_str(&c, "host", &host) ||
	    get_str_null(&c, "peerwatch_version", &pwv, true) || get_str_null(&c, "run_id", &run, true))
		return -1;
	f->host = xstrdup(host);
	f->run_id = run ? xstrdup(run) : NULL;
	f->pw_version = pwv ? xstrdup(pwv) : NULL;
	if (opt_int(&c, "ppid", &f->ppid) || opt_int(&c, "t0_mono_ns", &f->t0_mono_ns) ||
	    opt_int(&c, "t0_real_ns", &f->t0_real_ns))
		return -1;
	json_t *v = json_object_get(root, "rank");
	/* a rank variable that is not a decimal integer is written as its text
	 * (docs/trace-format.md); reports show ranks that are numbers */
	if (v && !json_is_null(v) && !json_is_integer(v) && !json_is_string(v))
		return fail(err, errlen, "\"rank\" must be an integer, a string or null, not %s",
		            pw_json_type(v));
	f->has_rank = json_is_integer(v);
	f->rank = f->has_rank ? json_integer_value(v) : 0;
	if (get_argv(&c, f) || get_options(&c, f) || get_vendors(&c, f) || get_modules(&c, &f->modules) ||
	    get_environment(&c, f))
		return -1;
	f->header_ok = true;
	return 0;
}

/* ---- device lines ---- */

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* An integer or null member (absent: null); out -1 for null. */
static int int_or_null(struct ctx *c, const char *key, int64_t *out)
{
	json_t *v = json_object_get(c->obj, key);
	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	return get_int(c, key, out, 0);
}

static int get_peer(struct ctx *dc, json_t *o, size_t i, struct pw_peer_info *p)
{
	char where[48];
	snprintf(where, sizeof where, "peers[%zu].", i);
	if (!json_is_object(o))
		return fail(dc->err, dc->errlen, "\"peers[%zu]\" must be an object, not %s", i,
		            pw_json_type(o));
	struct ctx c = {o, where, dc->err, dc->errlen};
	const char *link, *topo, *rd;
	if (get_int(&c, "ordinal", &p->ordinal, 0) || get_str(&c, "link", &link) ||
	    int_or_null(&c, "can_access", &p->can_access) || int_or_null(&c, "nvlinks", &p->nvlinks) ||
	    get_str_null(&c, "topology", &topo, true) || get_str_null(&c, "p2p_read", &rd, true))
		return -1;
	if (p->ordinal > INT32_MAX)
		return fail(dc->err, dc->errlen, "\"%sordinal\" is not a device ordinal", where);
	p->link = xstrdup(link);
	p->topology = dup_or_null(topo);
	p->p2p_read = dup_or_null(rd);
	return 0;
}

int pw_file_add_device(struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	struct ctx c = {root, "", err, errlen};
	struct pw_device d = {.physical_id = -1};
	const char *vendor, *uuid, *bus, *name;
	vec_init(&d.peers, sizeof(struct pw_peer_info));
	if (get_str(&c, "vendor", &vendor) || get_int(&c, "ordinal", &d.ordinal, 0) ||
	    get_str_null(&c, "uuid", &uuid, false) || get_str_null(&c, "bus_id", &bus, false) ||
	    get_str_null(&c, "name", &name, false) || opt_int(&c, "physical_id", &d.physical_id))
		return -1;
	if (!pw_vendor_known(vendor))
		return fail(err, errlen, "vendor \"%.32s\" is not one this reader knows (cuda, hip, acl)",
		            vendor);
	if (d.ordinal > INT32_MAX)
		return fail(err, errlen, "\"ordinal\" is %lld, not a device ordinal", (long long)d.ordinal);
	json_t *peers = need(&c, "peers", JSON_ARRAY, "an array");
	if (!peers)
		return -1;
	size_t i;
	json_t *o;
	json_array_foreach(peers, i, o)
	{
		struct pw_peer_info p = {0};
		if (get_peer(&c, o, i, &p)) {
			pw_device_free(&d);
			return -1;
		}
		*(struct pw_peer_info *)vec_push(&d.peers) = p;
	}
	snprintf(d.vendor, sizeof d.vendor, "%s", vendor);
	d.uuid = dup_or_null(uuid);
	d.bus_id = dup_or_null(bus);
	d.name = dup_or_null(name);
	for (size_t k = 0; k < f->devices.len; k++) {
		struct pw_device *old = vec_at(&f->devices, k);
		if (old->ordinal == d.ordinal && !strcmp(old->vendor, d.vendor)) {
			pw_device_free(old);
			*old = d;
			return 0;
		}
	}
	*(struct pw_device *)vec_push(&f->devices) = d;
	return 0;
}

/* "dropped_by": {"cause": count, ...} */
static int get_dropped_by(struct ctx *c, struct pw_file *f)
{
	json_t *d = json_object_get(c->obj, "dropped_by"), *v;
	const char *k;
	if (!d)
		return 0;
	if (!json_is_object(d))
		return fail(c->err, c->errlen, "\"dropped_by\" must be an object, not %s", pw_json_type(d));
	json_object_foreach(d, k, v) if (!json_is_integer(v) || json_integer_value(v) < 0) return fail(
	    c->err, c->errlen, "\"dropped_by.%.64s\" must be a non-negative integer", k);
	free(f->dropped_by);
	f->dropped_by = json_dumps(d, JSON_COMPACT | JSON_PRESERVE_ORDER);
	return 0;
}

/* "repeats_by": [{"rule": id, "site": "0x...", "count": N}, ...] */
static int get_repeats_by(struct ctx *c, struct pw_file *f)
{
	json_t *a = json_object_get(c->obj, "repeats_by"), *e;
	size_t i;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"repeats_by\" must be an array, not %s", pw_json_type(a));
	json_array_foreach(a, i, e)
	{
		json_t *r = json_object_get(e, "rule"), *n = json_object_get(e, "count");
		if (!json_is_object(e) || !json_is_string(r) || !json_is_integer(n) ||
		    json_integer_value(n) < 0)
			return fail(c->err, c->errlen,
			            "\"repeats_by[%zu]\" must be an object with a \"rule\" string and a "
			            "non-negative \"count\"",
			            i);
	}
	free(f->repeats_by);
	f->repeats_by = json_array_size(a) ? json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	return 0;
}

/* "suppressions": [{"line", "suppression", "hits", "default"?}]: the hits of
 * the default suppressions (those with "default"), by name, and the whole
 * list as it is (report shows it). */
static int get_suppressions(struct ctx *c, struct pw_file *f)
{
	json_t *a = json_object_get(c->obj, "suppressions"), *e;
	size_t i;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(c->err, c->errlen, "\"suppressions\" must be an array, not %s", pw_json_type(a));
	json_t *by = json_object();
	json_array_foreach(a, i, e)
	{
		json_t *n = json_object_get(e, "hits"), *d = json_object_get(e, "default");
		if (!json_is_object(e) || !json_is_integer(n) || json_integer_value(n) < 0 ||
		    (d && !json_is_string(d))) {
			json_decref(by);
			return fail(c->err, c->errlen,
			            "\"suppressions[%zu]\" must be an object with a non-negative \"hits\" "
			            "and, for a default suppression, a \"default\" name",
			            i);
		}
		if (!d)
			continue;
		json_t *old = json_object_get(by, json_string_value(d));
		json_int_t sum = json_integer_value(n) + (old ? json_integer_value(old) : 0);
		json_object_set_new(by, json_string_value(d), json_integer(sum));
	}
	free(f->suppressed_by_default);
	f->suppressed_by_default =
	    json_object_size(by) ? json_dumps(by, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(by);
	free(f->suppressions);
	f->suppressions = json_array_size(a) ? json_dumps(a, JSON_COMPACT) : NULL;
	return 0;
}

/* "limit": {"bytes": N, "seq": N, "t_ns": N}, present when the size limit stopped recording */
static int get_limit(struct ctx *c, struct pw_file *f)
{
	json_t *l = json_object_get(c->obj, "limit");
	if (!l)
		return 0;
	if (!json_is_object(l))
		return fail(c->err, c->errlen, "\"limit\" must be an object, not %s", pw_json_type(l));
	struct ctx lc = {l, "limit.", c->err, c->errlen};
	f->limit_bytes = f->limit_seq = f->limit_t_ns = -1;
	if (opt_int(&lc, "bytes", &f->limit_bytes) || opt_int(&lc, "seq", &f->limit_seq) ||
	    opt_int(&lc, "t_ns", &f->limit_t_ns))
		return -1;
	f->has_limit = true;
	return 0;
}

int pw_file_footer(struct pw_file *f, json_t *root, char *err, size_t errlen)
{
	struct ctx c = {root, "", err, errlen};
	const char *reason, *werr, *rerr;
	if (get_int(&c, "events", &f->footer_events, 0) || get_int(&c, "dropped", &f->dropped, 0) ||
	    get_str_null(&c, "reason", &reason, true) || get_str_null(&c, "write_error", &werr, true) ||
	    get_str_null(&c, "report_error", &rerr, true))
		return -1;
	f->footer_violations = f->suppressed = f->repeats = f->um_events = f->um_lost = -1;
	f->has_t_end = json_object_get(root, "t_end_ns") != NULL;
	if (opt_int(&c, "t_end_ns", &f->t_end_ns) || opt_int(&c, "violations", &f->footer_violations) ||
	    opt_int(&c, "suppressed", &f->suppressed) || opt_int(&c, "repeats", &f->repeats) ||
	    opt_int(&c, "um_events", &f->um_events) || opt_int(&c, "um_lost", &f->um_lost))
		return -1;
	const char *um_off;
	if (get_str_null(&c, "um_off", &um_off, true))
		return -1;
	free(f->um_off);
	f->um_off = um_off ? xstrdup(um_off) : NULL;
	if (get_modules(&c, &f->modules) || get_dropped_by(&c, f) || get_repeats_by(&c, f) ||
	    get_suppressions(&c, f) || get_limit(&c, f))
		return -1;
	free(f->reason);
	f->reason = reason ? xstrdup(reason) : NULL;
	free(f->write_error);
	f->write_error = werr ? xstrdup(werr) : NULL;
	free(f->report_error);
	f->report_error = rerr ? xstrdup(rerr) : NULL;
	f->footer = true;
	return 0;
}

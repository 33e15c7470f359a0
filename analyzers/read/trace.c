/*
 * The typed trace (trace.h): a validated call's arguments, and freeing
 * what the reader filled in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/json.h"
#include "read/scan.h"
#include "read/trace.h"

bool pw_vendor_known(const char *vendor)
{
	return !strcmp(vendor, "cuda") || !strcmp(vendor, "hip") || !strcmp(vendor, "acl");
}

static void free_modules(struct vec *mods)
{
	for (size_t i = 0; i < mods->len; i++) {
		struct pw_module *m = vec_at(mods, i);
		free(m->path);
		free(m->build_id);
	}
	mods->len = 0;
}

void pw_device_free(struct pw_device *d)
{
	free(d->uuid);
	free(d->bus_id);
	free(d->name);
	for (size_t i = 0; i < d->peers.len; i++) {
		struct pw_peer_info *p = vec_at(&d->peers, i);
		free(p->link);
		free(p->topology);
		free(p->p2p_read);
	}
	vec_free(&d->peers);
}

void pw_devices_free(struct vec *devices)
{
	for (size_t i = 0; i < devices->len; i++)
		pw_device_free(vec_at(devices, i));
	vec_free(devices);
}

/* Everything a read fills in, so that a second read starts clean. */
void pw_file_clear(struct pw_file *f)
{
	free(f->host);
	for (size_t i = 0; i < f->argc; i++)
		free(f->argv[i]);
	free(f->argv);
	free(f->options);
	free(f->mode);
	free(f->pw_version);
	free(f->driver_lib);
	free(f->vendors);
	free(f->run_id);
	free(f->reason);
	free(f->dropped_by);
	free(f->repeats_by);
	free(f->suppressed_by_default);
	free(f->suppressions);
	free(f->write_error);
	free(f->report_error);
	free(f->um_off);
	free(f->unreadable);
	free(f->environment);
	free_modules(&f->modules);
	vec_free(&f->modules);
	pw_devices_free(&f->devices);
	char *path = f->path;
	size_t index = f->index;
	bool partial = f->partial;
	memset(f, 0, sizeof *f);
	f->path = path;
	f->index = index;
	f->partial = partial;
	vec_init(&f->modules, sizeof(struct pw_module));
	vec_init(&f->devices, sizeof(struct pw_device));
}

/* ---- arguments of a validated call ---- */

static __thread json_t *built; /* the args pw_ev_args built for the last line */

void pw_ev_args_done(void)
{
	json_decref(built);
	built = NULL;
}

static json_t *from_tokens(const struct pw_tok *t, size_t i)
{
	json_t *j = NULL;
	switch ((enum pw_tok_type)t[i].type) {
	case PW_T_OBJ:
		j = json_object();
		for (size_t k = i + 1, m = 0; m < t[i].n; m++, k = t[k + 1].next)
			json_object_set_new_nocheck(j, t[k].v.s, from_tokens(t, k + 1));
		break;
	case PW_T_ARR:
		j = json_array();
		for (size_t e = i + 1; e < t[i].next; e = t[e].next)
			json_array_append_new(j, from_tokens(t, e));
		break;
	case PW_T_STR: j = json_stringn_nocheck(t[i].v.s, t[i].n); break;
	case PW_T_INT: j = json_integer(t[i].v.i); break;
	case PW_T_TRUE: j = json_true(); break;
	case PW_T_FALSE: j = json_false(); break;
	case PW_T_NULL: j = json_null(); break;
	}
	if (!j) {
		fprintf(stderr, "peerwatch-analyze: out of memory (building a call's args)\n");
		exit(2);
	}
	return j;
}

json_t *pw_ev_args(const struct pw_event *ev)
{
	if (ev->args || !ev->flat)
		return ev->args;
	json_decref(built);
	built = from_tokens(ev->flat->t, ev->flat_args);
	((struct pw_event *)ev)->args = built; /* the reader's own event, cached */
	return built;
}

bool pw_ev_suppressed(const struct pw_event *ev, size_t i, const char **out)
{
	*out = NULL;
	if (!ev->root && ev->flat) {
		const struct pw_tok *t = ev->flat->t;
		size_t a = ev->flat_supp;
		if (a == PW_FLAT_NONE || t[a].type != PW_T_ARR || i >= t[a].n)
			return false;
		size_t e = a + 1;
		while (i--)
			e = t[e].next;
		if (t[e].type == PW_T_STR)
			*out = t[e].v.s;
		return true;
	}
	json_t *arr = ev->root ? json_object_get(ev->root, "suppressed") : NULL;
	if (!json_is_array(arr) || i >= json_array_size(arr))
		return false;
	*out = json_string_value(json_array_get(arr, i)); /* NULL when no string */
	return true;
}

/* The token of args.key of a fast-path call, or NULL. */
static const struct pw_tok *tok_arg(const struct pw_event *ev, const char *key)
{
	size_t i = pw_flat_get(ev->flat, ev->flat_args, key);
	return i ? &ev->flat->t[i] : NULL;
}

bool pw_arg_is_array(const struct pw_event *ev, const char *key)
{
	if (!ev->args && ev->flat) {
		const struct pw_tok *t = tok_arg(ev, key);
		return t && t->type == PW_T_ARR;
	}
	return json_is_array(ev->args ? json_object_get(ev->args, key) : NULL);
}

bool pw_arg_u64(const struct pw_event *ev, const char *key, uint64_t *out)
{
	if (!ev->args && ev->flat) {
		const struct pw_tok *t = tok_arg(ev, key);
		if (!t || t->type != PW_T_INT || t->v.i < 0)
			return false;
		*out = (uint64_t)t->v.i;
		return true;
	}
	return pw_json_u64(ev->args ? json_object_get(ev->args, key) : NULL, out);
}

bool pw_arg_i64(const struct pw_event *ev, const char *key, int64_t *out)
{
	if (!ev->args && ev->flat) {
		const struct pw_tok *t = tok_arg(ev, key);
		if (!t || t->type != PW_T_INT)
			return false;
		*out = t->v.i;
		return true;
	}
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

bool pw_arg_hex(const struct pw_event *ev, const char *key, uint64_t *out)
{
	const char *s = pw_arg_str(ev, key);
	return s && parse_hex_u64(s, out);
}

int64_t pw_arg_dev(const struct pw_event *ev, const char *key)
{
	int64_t d;
	if (!pw_arg_i64(ev, key, &d))
		return PW_DEV_NONE;
	return d < INT32_MIN || d > INT32_MAX ? PW_DEV_NONE : d;
}

const char *pw_arg_str(const struct pw_event *ev, const char *key)
{
	if (!ev->args && ev->flat) {
		const struct pw_tok *t = tok_arg(ev, key);
		return t && t->type == PW_T_STR ? t->v.s : NULL;
	}
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

bool pw_arg_handle(const struct pw_event *ev, const char *key, char out[129])
{
	const char *s = pw_arg_str(ev, key);
	if (!s || strlen(s) != 128 || !is_hex_n(s, 128))
		return false;
	/* lowercase, eight digits at a time: 0x20 is set in '0'-'9' and 'a'-'f'
	 * already, and sets 'A'-'F' to 'a'-'f' */
	for (int i = 0; i < 128; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		w |= 0x2020202020202020ull;
		memcpy(out + i, &w, 8);
	}
	out[128] = 0;
	return true;
}

bool pw_arg_location(const struct pw_event *ev, struct pw_location *out)
{
	memset(out, 0, sizeof *out);
	if (!ev->args && ev->flat) {
		const struct pw_tok *t = tok_arg(ev, "location");
		if (!t || t->type != PW_T_OBJ)
			return false;
		size_t at = (size_t)(t - ev->flat->t);
		size_t ty = pw_flat_get(ev->flat, at, "type"), id = pw_flat_get(ev->flat, at, "id");
		const struct pw_tok *tt = ev->flat->t + ty, *it = ev->flat->t + id;
		if (ty && tt->type == PW_T_STR)
			out->type = tt->v.s;
		else if (ty && tt->type == PW_T_INT)
			out->type_num = tt->v.i;
		if (id && it->type == PW_T_INT) {
			out->has_id = true;
			out->id = it->v.i;
		}
		return true;
	}
	json_t *loc = ev->args ? json_object_get(ev->args, "location") : NULL;
	if (!json_is_object(loc))
		return false;
	json_t *t = json_object_get(loc, "type"), *id = json_object_get(loc, "id");
	out->type = json_is_string(t) ? json_string_value(t) : NULL;
	out->type_num = json_is_integer(t) ? json_integer_value(t) : 0;
	out->has_id = json_is_integer(id);
	out->id = out->has_id ? json_integer_value(id) : 0;
	return true;
}

const char *pw_file_program(const struct pw_file *f)
{
	return f->argc && f->argv[0][0] ? base_name(f->argv[0]) : "?";
}

const char *pw_um_kind_name(enum pw_um_kind k)
{
	static const char *const names[PW_UM_KINDS] = {"htod",      "dtoh",      "dtod",       "cpu_fault",
	                                               "gpu_fault", "thrashing", "throttling", "remote_map"};
	return k < PW_UM_KINDS ? names[k] : "?";
}

const char *pw_um_cause_name(enum pw_um_cause c)
{
	static const char *const names[PW_UMC_COUNT] = {
	    "",          "user",   "coherence",     "prefetch", "eviction", "access_counters",
	    "thrashing", "policy", "out_of_memory", "unknown"};
	return c < PW_UMC_COUNT ? names[c] : "?";
}

const char *pw_um_access_name(enum pw_um_access a)
{
	static const char *const names[PW_UMA_COUNT] = {"", "read", "write", "atomic", "prefetch", "unknown"};
	return a < PW_UMA_COUNT ? names[a] : "?";
}

/*
 * The typed trace (trace.h): a validated call's arguments, and freeing
 * what the reader filled in.
 */
#include <stdlib.h>
#include <string.h>

#include "read/json.h"
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

bool pw_arg_u64(const struct pw_event *ev, const char *key, uint64_t *out)
{
	return pw_json_u64(ev->args ? json_object_get(ev->args, key) : NULL, out);
}

bool pw_arg_i64(const struct pw_event *ev, const char *key, int64_t *out)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

bool pw_arg_hex(const struct pw_event *ev, const char *key, uint64_t *out)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	return json_is_string(v) && parse_hex_u64(json_string_value(v), out);
}

int64_t pw_arg_dev(const struct pw_event *ev, const char *key)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	if (!json_is_integer(v))
		return PW_DEV_NONE;
	json_int_t d = json_integer_value(v);
	return d < INT32_MIN || d > INT32_MAX ? PW_DEV_NONE : d;
}

const char *pw_arg_str(const struct pw_event *ev, const char *key)
{
	json_t *v = ev->args ? json_object_get(ev->args, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

bool pw_arg_handle(const struct pw_event *ev, const char *key, char out[129])
{
	const char *s = pw_arg_str(ev, key);
	if (!s || strlen(s) != 128 || !is_hex_n(s, 128))
		return false;
	for (int i = 0; i < 128; i++)
		out[i] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 'a' : s[i]);
	out[128] = 0;
	return true;
}

const char *pw_file_program(const struct pw_file *f)
{
	return f->argc && f->argv[0][0] ? base_name(f->argv[0]) : "?";
}

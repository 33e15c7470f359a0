/* Physical devices across the traces (devices.h). */
#include "model/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/show.h"
#include "model/procs.h"

static int vendor_ix(const char *v)
{
	return !strcmp(v, "cuda") ? 0 : !strcmp(v, "hip") ? 1 : 2;
}

struct ord_key {
	uint64_t file;
	int64_t vendor, ordinal;
};

struct link_key {
	int64_t a, b;
};

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b; /* a device with a bus id first */
	return strcmp(a, b);
}

static int by_phys(const void *x, const void *y)
{
	const struct pw_phys *a = x, *b = y;
	int c = strcmp(a->host, b->host);
	if (!c)
		c = strcmp(a->vendor, b->vendor);
	if (!c)
		c = cmp_str(a->bus_id, b->bus_id);
	return c ? c : strcmp(a->uuid, b->uuid);
}

/* The physical device of (host, vendor, uuid), made if new. */
static struct pw_phys *phys_of(struct vec *phys, struct hmap *byid, const char *host,
                               const struct pw_device *d)
{
	size_t hl = strlen(host), vl = strlen(d->vendor), ul = strlen(d->uuid);
	char *k = xmalloc(hl + vl + ul + 3);
	memcpy(k, host, hl + 1);
	memcpy(k + hl + 1, d->vendor, vl + 1);
	memcpy(k + hl + vl + 2, d->uuid, ul + 1);
	void **slot = hmap_put(byid, k, hl + vl + ul + 2);
	free(k);
	if (*slot)
		return vec_at(phys, (size_t)(uintptr_t)*slot - 1);
	struct pw_phys *p = vec_push(phys);
	memset(p, 0, sizeof *p);
	p->host = xstrdup(host);
	snprintf(p->vendor, sizeof p->vendor, "%s", d->vendor);
	p->uuid = xstrdup(d->uuid);
	vec_init(&p->ordinals, sizeof(struct pw_phys_ordinal));
	*slot = (void *)(uintptr_t)phys->len;
	return p;
}

/* A device's identity: its UUID, else (ACL without one) its physical id. */
static const char *identity(const struct pw_device *d, char *buf, size_t len)
{
	if (d->uuid)
		return d->uuid;
	if (d->physical_id >= 0) {
		snprintf(buf, len, "physical %lld", (long long)d->physical_id);
		return buf;
	}
	return NULL;
}

void pw_devmap_build(struct pw_devmap *m, const struct pw_input *in)
{
	struct hmap byid;
	memset(m, 0, sizeof *m);
	vec_init(&m->phys, sizeof(struct pw_phys));
	hmap_init(&m->byord);
	hmap_init(&m->links);
	hmap_init(&byid);
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		if (!f->header_ok)
			continue;
		if (!f->devices.len) {
			m->unidentified += f->calls > 0;
			continue;
		}
		m->identified++;
		for (size_t k = 0; k < f->devices.len; k++) {
			struct pw_device d = *(const struct pw_device *)vec_at(&f->devices, k);
			char buf[48];
			d.uuid = (char *)identity(&d, buf, sizeof buf);
			if (!d.uuid)
				continue;
			struct pw_phys *p = phys_of(&m->phys, &byid, f->host, &d);
			if (!p->bus_id && d.bus_id)
				p->bus_id = xstrdup(d.bus_id);
			if (!p->name && d.name)
				p->name = xstrdup(d.name);
			struct pw_phys_ordinal *o = vec_push(&p->ordinals);
			o->file = i;
			o->ordinal = d.ordinal;
		}
	}
	hmap_free(&byid, NULL);
	if (m->phys.len > 1)
		vec_sort(&m->phys, by_phys);
	int number = 0;
	for (size_t i = 0; i < m->phys.len; i++) {
		struct pw_phys *p = vec_at(&m->phys, i), *prev = i ? vec_at(&m->phys, i - 1) : NULL;
		if (prev && (strcmp(prev->host, p->host) || strcmp(prev->vendor, p->vendor)))
			number = 0;
		p->number = number++;
		for (size_t k = 0; k < p->ordinals.len; k++) {
			const struct pw_phys_ordinal *o = vec_at(&p->ordinals, k);
			struct ord_key key = {o->file, vendor_ix(p->vendor), o->ordinal};
			*hmap_put(&m->byord, &key, sizeof key) = (void *)(uintptr_t)(i + 1);
		}
	}
	/* the links, as the first trace that recorded the pair says */
	for (size_t i = 0; i < in->n; i++) {
		const struct pw_file *f = &in->files[i];
		for (size_t k = 0; k < f->devices.len; k++) {
			const struct pw_device *d = vec_at(&f->devices, k);
			int64_t a = pw_devkey(m, i, d->vendor, d->ordinal);
			for (size_t j = 0; a >= PW_PHYS_BASE && j < d->peers.len; j++) {
				const struct pw_peer_info *pi = vec_at(&d->peers, j);
				struct link_key lk = {a, pw_devkey(m, i, d->vendor, pi->ordinal)};
				if (lk.b < PW_PHYS_BASE)
					continue;
				void **slot = hmap_put(&m->links, &lk, sizeof lk);
				if (*slot)
					continue;
				struct pw_peer_info *c = xmalloc(sizeof *c); /* the map outlives the files' */
				*c = *pi;
				c->link = xstrdup(pi->link);
				c->topology = pi->topology ? xstrdup(pi->topology) : NULL;
				c->p2p_read = pi->p2p_read ? xstrdup(pi->p2p_read) : NULL;
				*slot = c;
			}
		}
	}
}

static void free_link(void *v)
{
	struct pw_peer_info *p = v;
	free(p->link);
	free(p->topology);
	free(p->p2p_read);
	free(p);
}

void pw_devmap_free(struct pw_devmap *m)
{
	for (size_t i = 0; i < m->phys.len; i++) {
		struct pw_phys *p = vec_at(&m->phys, i);
		free(p->host);
		free(p->uuid);
		free(p->bus_id);
		free(p->name);
		vec_free(&p->ordinals);
	}
	vec_free(&m->phys);
	hmap_free(&m->byord, NULL);
	hmap_free(&m->links, free_link);
}

int64_t pw_devkey(const struct pw_devmap *m, size_t file, const char *vendor, int64_t ordinal)
{
	if (ordinal < 0 || !m)
		return ordinal;
	struct ord_key key = {file, vendor_ix(vendor), ordinal};
	uintptr_t i = (uintptr_t)hmap_get(&m->byord, &key, sizeof key);
	return i ? PW_PHYS_BASE + (int64_t)(i - 1) : ordinal;
}

const struct pw_phys *pw_devkey_phys(const struct pw_devmap *m, int64_t key)
{
	if (!m || key < PW_PHYS_BASE || (uint64_t)(key - PW_PHYS_BASE) >= m->phys.len)
		return NULL;
	return vec_at(&m->phys, (size_t)(key - PW_PHYS_BASE));
}

void pw_devkey_fmt(const struct pw_devmap *m, int64_t key, char *buf, size_t len)
{
	const struct pw_phys *p = pw_devkey_phys(m, key);
	if (p)
		snprintf(buf, len, "%s%d", !strcmp(p->vendor, "acl") ? "NPU" : "GPU", p->number);
	else
		fmt_dev(buf, len, key);
}

json_t *pw_devkey_json(const struct pw_devmap *m, int64_t key)
{
	char buf[32];
	if (pw_devkey_phys(m, key)) {
		pw_devkey_fmt(m, key, buf, sizeof buf);
		return json_string(buf);
	}
	return key == -1 ? json_string("host") : json_dev(key);
}

/* host (-1), ordinals, physical devices, none (INT64_MIN) last */
int pw_devkey_cmp(int64_t a, int64_t b)
{
	if (a == b)
		return 0;
	if (a == PW_DEV_NONE || b == PW_DEV_NONE)
		return a == PW_DEV_NONE ? 1 : -1;
	return a < b ? -1 : 1;
}

const struct pw_peer_info *pw_devmap_link(const struct pw_devmap *m, int64_t a, int64_t b)
{
	struct link_key k = {a, b};
	if (!m || a < PW_PHYS_BASE || b < PW_PHYS_BASE)
		return NULL;
	const struct pw_peer_info *p = hmap_get(&m->links, &k, sizeof k);
	if (!p) {
		k.a = b; /* a link is both ways; a trace may have recorded one side only */
		k.b = a;
		p = hmap_get(&m->links, &k, sizeof k);
	}
	return p;
}

void pw_link_fmt(const struct pw_peer_info *p, char *buf, size_t len)
{
	if (!p) {
		snprintf(buf, len, "-");
		return;
	}
	bool across = p->topology && !strcmp(p->topology, "system");
	if (!strcmp(p->link, "nvlink") || !strcmp(p->link, "nvswitch"))
		snprintf(buf, len, "NV%lld%s", (long long)p->nvlinks,
		         !strcmp(p->link, "nvswitch") ? " via NVSwitch" : "");
	else if (!strcmp(p->link, "xgmi"))
		snprintf(buf, len, "XGMI");
	else if (!strcmp(p->link, "pcie"))
		snprintf(buf, len, "PCIe%s", across ? ", across CPU sockets" : "");
	else
		snprintf(buf, len, "unknown");
}

json_t *pw_link_json(const struct pw_peer_info *p)
{
	if (!p)
		return json_null();
	json_t *j = json_object();
	json_object_set_new(j, "link", json_text(p->link));
	json_object_set_new(j, "nvlinks", p->nvlinks >= 0 ? json_integer(p->nvlinks) : json_null());
	json_object_set_new(j, "topology", p->topology ? json_text(p->topology) : json_null());
	json_object_set_new(j, "p2p_read", p->p2p_read ? json_text(p->p2p_read) : json_null());
	return j;
}

static bool in_host(const struct pw_phys *p, const char *host, const char *vendor)
{
	return !strcmp(p->host, host) && !strcmp(p->vendor, vendor);
}

void pw_devmap_legend(const struct pw_devmap *m, const struct pw_input *in, const char *host,
                      const char *vendor, const char *indent)
{
	for (size_t i = 0; i < m->phys.len; i++) {
		const struct pw_phys *p = vec_at(&m->phys, i);
		if (!in_host(p, host, vendor))
			continue;
		char label[32];
		pw_devkey_fmt(m, PW_PHYS_BASE + (int64_t)i, label, sizeof label);
		char *bus = sanitize(p->bus_id ? p->bus_id : "-"), *name = sanitize(p->name ? p->name : "-"),
		     *uuid = sanitize(p->uuid);
		printf("%s%-5s %s  %s  %s\n%s      ordinal", indent, label, bus, name, uuid, indent);
		for (size_t k = 0; k < p->ordinals.len; k++) {
			const struct pw_phys_ordinal *o = vec_at(&p->ordinals, k);
			char *proc = proc_label(&in->files[o->file]);
			printf("%s %lld in %s", k ? "," : "", (long long)o->ordinal, proc);
			free(proc);
		}
		printf("\n");
		free(bus);
		free(name);
		free(uuid);
	}
}

json_t *pw_devmap_json(const struct pw_devmap *m, const struct pw_input *in, const char *host,
                       const char *vendor)
{
	json_t *a = json_array();
	for (size_t i = 0; i < m->phys.len; i++) {
		const struct pw_phys *p = vec_at(&m->phys, i);
		if (!in_host(p, host, vendor))
			continue;
		json_t *d = json_object(), *ords = json_array();
		json_object_set_new(d, "device", pw_devkey_json(m, PW_PHYS_BASE + (int64_t)i));
		json_object_set_new(d, "uuid", json_text(p->uuid));
		json_object_set_new(d, "bus_id", p->bus_id ? json_text(p->bus_id) : json_null());
		json_object_set_new(d, "name", p->name ? json_text(p->name) : json_null());
		for (size_t k = 0; k < p->ordinals.len; k++) {
			const struct pw_phys_ordinal *o = vec_at(&p->ordinals, k);
			json_t *e = json_object();
			json_object_set_new(e, "process", proc_json(&in->files[o->file]));
			json_object_set_new(e, "ordinal", json_integer(o->ordinal));
			json_array_append_new(ords, e);
		}
		json_object_set_new(d, "ordinals", ords);
		json_array_append_new(a, d);
	}
	return a;
}

/* Calls fn for each host and vendor the map has, in its order. */
static void each_group(const struct pw_devmap *m, void (*fn)(const struct pw_phys *first, void *arg),
                       void *arg)
{
	for (size_t i = 0; i < m->phys.len; i++) {
		const struct pw_phys *p = vec_at(&m->phys, i), *prev = i ? vec_at(&m->phys, i - 1) : NULL;
		if (!prev || strcmp(prev->host, p->host) || strcmp(prev->vendor, p->vendor))
			fn(p, arg);
	}
}

struct group_args {
	const struct pw_devmap *m;
	const struct pw_input *in;
	json_t *out;
};

static void print_group(const struct pw_phys *p, void *arg)
{
	struct group_args *a = arg;
	char *host = sanitize(p->host);
	printf("  host %s, %s devices\n", host, p->vendor);
	free(host);
	pw_devmap_legend(a->m, a->in, p->host, p->vendor, "    ");
}

void pw_devmap_print_all(const struct pw_devmap *m, const struct pw_input *in)
{
	struct group_args a = {m, in, NULL};
	printf("\ndevices\n");
	if (!m->phys.len)
		printf("(no trace recorded its devices)\n");
	each_group(m, print_group, &a);
	if (pw_devmap_note(m))
		printf("%zu trace%s without device lines: %s.\n", m->unidentified,
		       m->unidentified == 1 ? "" : "s", pw_devmap_note(m));
}

static void json_group(const struct pw_phys *p, void *arg)
{
	struct group_args *a = arg;
	json_t *g = json_object();
	json_object_set_new(g, "host", json_text(p->host));
	json_object_set_new(g, "vendor", json_string(p->vendor));
	json_object_set_new(g, "devices", pw_devmap_json(a->m, a->in, p->host, p->vendor));
	json_array_append_new(a->out, g);
}

json_t *pw_devmap_all_json(const struct pw_devmap *m, const struct pw_input *in)
{
	struct group_args a = {m, in, json_array()};
	each_group(m, json_group, &a);
	return a.out;
}

const char *pw_devmap_note(const struct pw_devmap *m)
{
	if (!m->unidentified)
		return NULL;
	return "devN: a device by its ordinal, in traces that record no device identity (written before "
	       "peerwatch recorded devices, or whose runtime did not say): ordinals are private to a "
	       "process, so devN of two such processes may be different GPUs";
}

json_t *json_dev(int64_t dev)
{
	return dev == PW_DEV_NONE ? json_null() : json_integer(dev);
}

void fmt_dev(char *buf, size_t len, int64_t dev)
{
	if (dev == PW_DEV_NONE)
		snprintf(buf, len, "?");
	else if (dev == -1)
		snprintf(buf, len, "host");
	else
		snprintf(buf, len, "dev%lld", (long long)dev);
}

/*
 * What the IPC report asks of the traces (ipclife.h): a file's run, whether
 * its process was running at a time, whether an importer's device could
 * reach an export's.  Read while the traces are read (ipcsink.c, deciding)
 * and after (ipclife.c): both use it, it uses neither.
 */
#include <string.h>

#include "model/ipclife.h"

/* The run a file belongs to: the header's run_id ("" without one). */
const char *ipc_run_of(const struct pw_input *in, size_t file)
{
	const char *r = in->files[file].run_id;
	return r ? r : "";
}

/* Was the process of f still running at t?  Its trace says so up to its
 * last event; a footer says when it ended (t_end_ns: at exit, _exit, exec or
 * enforce, its mappings went with it).  A trace without a footer (.partial:
 * crashed or killed; or cut short) or without t_end_ns does not say when the
 * process ended after its last event: not known to be running. */
bool ipc_alive_at(const struct pw_file *f, int64_t t)
{
	if (f->any_t && t <= f->last_t_ns)
		return true;
	return f->footer && f->has_t_end && !f->partial && t < f->t_end_ns;
}

/* The device of f with that vendor and ordinal, by its device lines. */
static const struct pw_device *device_of(const struct pw_file *f, const char *vendor, int64_t ordinal)
{
	for (size_t i = 0; i < f->devices.len; i++) {
		const struct pw_device *d = vec_at(&f->devices, i);
		if (d->ordinal == ordinal && !strcmp(d->vendor, vendor))
			return d;
	}
	return NULL;
}

enum ipc_reach ipc_reach(const struct pw_input *in, const struct ipc_rec *e, const struct ipc_rec *o,
                         const struct pw_device **de_out, const struct pw_device **dc_out,
                         const struct pw_device **di_out)
{
	const struct pw_file *fe = &in->files[e->file], *fo = &in->files[o->file];
	const struct pw_device *de = e->dev >= 0 ? device_of(fe, e->vendor, e->dev) : NULL;
	const struct pw_device *dc = o->cur_dev >= 0 ? device_of(fo, o->vendor, o->cur_dev) : NULL;
	const struct pw_device *di = NULL;
	*de_out = de;
	*dc_out = dc;
	if (!de || !de->uuid || !dc || !dc->uuid)
		return IPC_REACH_UNKNOWN;
	for (size_t i = 0; i < fo->devices.len && !di; i++) {
		const struct pw_device *d = vec_at(&fo->devices, i);
		if (d->uuid && !strcmp(d->uuid, de->uuid) && !strcmp(d->vendor, o->vendor))
			di = d;
	}
	*di_out = di;
	if (!di)
		return IPC_REACH_UNKNOWN; /* the importer does not see the exporter's device */
	if (di == dc)
		return IPC_REACH_OK;
	int64_t can = -1;
	for (size_t i = 0; i < dc->peers.len; i++) {
		const struct pw_peer_info *p = vec_at(&dc->peers, i);
		if (p->ordinal == di->ordinal)
			can = p->can_access;
	}
	return can < 0 ? IPC_REACH_UNKNOWN : can ? IPC_REACH_OK : IPC_REACH_NOT;
}

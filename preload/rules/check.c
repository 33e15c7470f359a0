/*
 * The rules around a call: they run before the real call (so enforce mode
 * can stop it), and the state they read is updated after it, from what the
 * call really did.
 */
#include <stdio.h>
#include <string.h>

#include "rules/check.h"
#include "state/devices.h"
#include "rules/report.h"
#include "core/pw.h"
#include "state/registry.h"
#include "rules/rules.h"
#include "state/state.h"
#include "core/vendor.h"

bool pw_checking(void)
{
	return pw_g.opt.mode != PW_MODE_OBSERVE;
}

/* Findings are collected first and reported after any lock is dropped:
 * reporting takes its time and, in enforce mode, ends the process. */
#define PW_MAX_FINDINGS 8
struct findings {
	int n;
	int rule[PW_MAX_FINDINGS];
	char msg[PW_MAX_FINDINGS][640];
};

static void collect(void *arg, int rule, const char *msg)
{
	struct findings *f = arg;
	if (f->n == PW_MAX_FINDINGS)
		return;
	f->rule[f->n] = rule;
	snprintf(f->msg[f->n], sizeof f->msg[0], "%s", msg);
	f->n++;
}

/* IPC rules read the tables that IPC calls of other threads change. */
static bool uses_tables(enum pw_op_kind k)
{
	return k == PW_OP_IPC_OPEN || k == PW_OP_IPC_CLOSE || k == PW_OP_EXIT || k == PW_OP_IPC_EVENT_OPEN ||
	       k == PW_OP_IPC_EVENT_EXIT;
}

static void run_rules(const struct pw_call *c, const struct pw_op *op)
{
	struct findings f;
	f.n = 0;
	bool lock = uses_tables(op->kind);
	if (lock)
		pthread_mutex_lock(&pw_state.lock);
	pw_rules_check(&pw_state, op, collect, &f);
	if (lock)
		pthread_mutex_unlock(&pw_state.lock);
	for (int i = 0; i < f.n; i++)
		pw_report_finding(c, op, f.rule[i], f.msg[i]);
}

/* How many devices other processes of the run connect to dev (by UUID),
 * besides other and this process's own peers of dev: the peer limit is the
 * device's, whoever enabled the connections. */
static int others_peers(int vendor, int dev, int other)
{
	char u[PW_UUID_LEN], list[64][PW_REG_UUID];
	if (!pw_devices_uuid_of(vendor, dev, u, sizeof u))
		return 0;
	int n = pw_registry_peers_of(u, list, 64), extra = 0;
	uint64_t mine = pw_state_dev_peers(&pw_state, dev);
	for (int i = 0; i < n; i++) {
		int o = pw_devices_ordinal_of(vendor, list[i]);
		if (o == other || (pw_dev_ok(o) && o != dev && ((mine >> o) & 1)))
			continue;
		extra++;
	}
	return extra;
}

void pw_check_before(const struct pw_call *c, const struct pw_op *op)
{
	if (op->kind == PW_OP_PEER_ENABLE && pw_registry_active() && pw_dev_ok(op->cur_dev) &&
	    pw_dev_ok(op->peer_dev) && op->cur_dev != op->peer_dev) {
		/* peer.limit counts every process's connections: asked of the
		 * registry, for an enable only (off the copy and memory paths) */
		struct pw_op o = *op;
		o.peer_others[0] = others_peers(op->vendor, op->cur_dev, op->peer_dev);
		o.peer_others[1] = others_peers(op->vendor, op->peer_dev, op->cur_dev);
		run_rules(c, &o);
		return;
	}
	if (op->kind != PW_OP_NONE)
		run_rules(c, op);
}

/* The handle of the mapping at ptr, copied out under the lock. */
static bool handle_of_mapping(uint64_t ptr, unsigned char *h)
{
	pthread_mutex_lock(&pw_state.lock);
	const struct pw_ipc_map *m = pw_state_map_at(&pw_state, ptr, false);
	if (m)
		memcpy(h, m->handle, PW_IPC_HANDLE_BYTES);
	pthread_mutex_unlock(&pw_state.lock);
	return m != NULL;
}

static void tell_registry(const struct pw_op *op)
{
	unsigned char h[PW_IPC_HANDLE_BYTES];
	switch (op->kind) {
	case PW_OP_IPC_EXPORT: {
		/* the device by UUID: an importer may number it otherwise */
		char uuid[PW_UUID_LEN] = "";
		if (pw_registry_active())
			pw_devices_uuid_of(op->vendor, op->dst.dev, uuid, sizeof uuid);
		pw_registry_export_dev(op->handle, op->dst.known ? op->dst.base : op->dst.ptr, op->dst.size,
		                       op->dst.dev, uuid);
		if (op->trust_list)
			pw_registry_trust_list(op->handle);
		break;
	}
	case PW_OP_IPC_IMPORT_PID: pw_registry_trust_named(op->handle); break;
	case PW_OP_IPC_OPEN: pw_registry_opened(op->handle); break;
	case PW_OP_PEER_ENABLE:
	case PW_OP_PEER_DISABLE: {
		char a[PW_UUID_LEN], b[PW_UUID_LEN];
		if (pw_registry_active() && pw_devices_uuid_of(op->vendor, op->cur_dev, a, sizeof a) &&
		    pw_devices_uuid_of(op->vendor, op->peer_dev, b, sizeof b))
			pw_registry_peer(a, b, op->kind == PW_OP_PEER_ENABLE);
		break;
	}
	case PW_OP_IPC_CLOSE:
		if (handle_of_mapping(op->dst.ptr, h))
			pw_registry_closed(h);
		break;
	case PW_OP_FREE:
		if (pw_state_exported(&pw_state, op->dst.ptr))
			pw_registry_freed(op->dst.ptr);
		break;
	/* Event handles share the registry: an exported event is keyed by its
	 * handle value as memory is by its base, its importers are its holders. */
	case PW_OP_IPC_EVENT_EXPORT:
		if (op->handle && op->event)
			pw_registry_export(op->handle, op->event, 0, op->cur_dev);
		break;
	case PW_OP_IPC_EVENT_OPEN: pw_registry_opened(op->handle); break;
	case PW_OP_EVENT_DESTROY:
		if (op->event_imported)
			pw_registry_closed(op->handle);
		else if (op->event_exported)
			pw_registry_freed(op->event);
		break;
	default: break;
	}
}

void pw_check_after(const struct pw_op *op, int64_t ret, bool already_enabled)
{
	if (ret == 0)
		tell_registry(op); /* before the state forgets a freed export */
	if (ret == 0 && op->kind == PW_OP_FREE)
		pw_op_note_freed(op); /* so that a later call on it can be told it is freed */
	pw_state_update(&pw_state, op, ret, already_enabled);
}

void pw_check_result(const struct pw_call *c, struct pw_op *op, int64_t ret, const char *(*error_name)(int))
{
	op->err_ret = ret;
	/* A getter's every call passes here: the rules run only where the
	 * code is one a traced call of this thread left (never a success:
	 * only failures are remembered) before the call just before the
	 * getter, and the name is asked only then. */
	if (!op->left_api || ret != op->left_code || op->left_just_before)
		return;
	op->err_name = error_name ? error_name((int)ret) : NULL;
	run_rules(c, op);
}

static void run_exit_rules(const struct pw_op *op)
{
	run_rules(NULL, op);
}

/* ipc.leak: one finding per mapping still open; ipc.event.leak: one per
 * imported event not destroyed. */
void pw_check_exit(void)
{
	struct {
		uint64_t ptr, ctx;
		int vendor;
		bool event;
	} left[PW_MAX_MAPS + PW_MAX_IPC_EVENTS];
	int n = 0;
	pthread_mutex_lock(&pw_state.lock);
	for (int i = 0; i < PW_MAX_MAPS; i++) {
		const struct pw_ipc_map *m = &pw_state.maps[i];
		if (m->used && m->refs > 0)
			left[n++] = (typeof(left[0])){m->ptr, m->ctx, m->vendor, false};
	}
	for (int i = 0; i < PW_MAX_IPC_EVENTS; i++) {
		const struct pw_ipc_event *e = &pw_state.events[i];
		if (e->used && e->imported)
			left[n++] = (typeof(left[0])){e->event, 0, e->vendor, true};
	}
	pthread_mutex_unlock(&pw_state.lock);
	for (int i = 0; i < n; i++) {
		struct pw_op op;
		memset(&op, 0, sizeof op);
		op.kind = left[i].event ? PW_OP_IPC_EVENT_EXIT : PW_OP_EXIT;
		op.api = "exit";
		op.vendor = left[i].vendor;
		if (left[i].event)
			op.event = left[i].ptr;
		else
			op.dst.ptr = left[i].ptr;
		op.ctx = left[i].ctx;
		run_rules(NULL, &op);
	}
	/* what the vendors still hold (vmm.leak: a virtual-memory mapping never unmapped) */
	for (const struct pw_vendor *const *v = pw_vendors; *v; v++) {
		struct pw_op op;
		for (int cursor = 0; (*v)->exit_op && (*v)->exit_op(&cursor, &op);)
			run_exit_rules(&op);
	}
}

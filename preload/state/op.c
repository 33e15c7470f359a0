/* What every vendor's translation of a call into a pw_op starts from (op.h). */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "core/pw.h"
#include "state/devices.h"
#include "state/op.h"
#include "state/registry.h"
#include "state/state.h"

void pw_op_init(struct pw_op *op, int vendor, const struct pw_call *c)
{
	memset(op, 0, sizeof *op);
	op->kind = (enum pw_op_kind)c->fn->op;
	op->vendor = vendor;
	op->api = c->fn->api;
	op->cur_dev = c->cur_dev;
	op->peer_dev = PW_NO_DEV;
	op->can_access = -1;
	op->loc_dev = PW_LOC_NONE;
	op->pageable = -1;
	op->pageable_dev = PW_NO_DEV;
	op->copy_kind = -1;
	op->reg_device = PW_NO_DEV;
	op->dst.dev = op->src.dev = op->dst.named_dev = op->src.named_dev = PW_NO_DEV;
	op->dst.p2p = op->src.p2p = -1;
}

void pw_op_last_error(struct pw_op *op, int vendor, const struct pw_call *c)
{
	const struct pw_left *l = &pw_tls_left[vendor];
	op->err_resets = (c->fn->flags & PW_ERR_RESET) != 0;
	op->left_api = l->api;
	op->left_seq = l->seq;
	op->left_code = l->code;
	op->left_site = l->site;
	op->left_just_before = l->api && l->next && l->next == c->seq;
}

void pw_op_range_attr(struct pw_op *op, const struct pw_call *c)
{
	op->kind = PW_OP_RANGE_ATTR;
	op->nattrs = 1;
	op->one_size = c->a[1];
	op->one_attr = (int)(int64_t)c->a[2];
	op->dst.ptr = c->a[3];
	op->bytes = c->a[4];
	op->attr_args_bad = c->a[0] == 0;
}

/* At most this many attributes of one query are looked at. */
#define PW_RANGE_ATTRS_CHECKED 64

void pw_op_range_attrs(struct pw_op *op, const struct pw_call *c)
{
	void *const *data = (void *const *)(uintptr_t)c->a[0];
	size_t n = c->a[3];
	op->kind = PW_OP_RANGE_ATTR;
	op->data_sizes = (const size_t *)(uintptr_t)c->a[1];
	op->attrs = (const int *)(uintptr_t)c->a[2];
	op->nattrs = op->attrs && op->data_sizes && n <= PW_RANGE_ATTRS_CHECKED ? (int)n : 0;
	op->dst.ptr = c->a[4];
	op->bytes = c->a[5];
	op->attr_args_bad = !data || !op->data_sizes || !op->attrs || n == 0;
	for (size_t i = 0; data && !op->attr_args_bad && i < n && i < PW_RANGE_ATTRS_CHECKED; i++)
		op->attr_args_bad = data[i] == NULL;
}

void pw_op_devs_named(struct pw_op *op, const struct pw_call *c)
{
	int n = 0;
	for (int i = 0; i < c->fn->nargs && n < 2; i++)
		if (c->fn->args[i].kind == PW_K_DEV) {
			int d = (int)(int64_t)c->a[i];
			if (n++ == 0)
				op->cur_dev = d;
			else
				op->peer_dev = d;
		}
}

/* ---- locations ---- */

/* The host's online NUMA nodes (/sys/devices/system/node/online, read once,
 * the first time a call names a NUMA node); node 0 alone where the file
 * cannot be read (a host without NUMA: "On systems where NUMA is not
 * available ... id must be set to 0", cuda.h on CUmemAllocationProp). */
#define PW_NUMA_NODES 1024
static uint64_t numa_online[PW_NUMA_NODES / 64];
static pthread_once_t numa_once = PTHREAD_ONCE_INIT;

static void numa_mark(long lo, long hi)
{
	for (long n = lo < 0 ? 0 : lo; n <= hi && n < PW_NUMA_NODES; n++)
		numa_online[n / 64] |= (uint64_t)1 << (n % 64);
}

static void numa_read(void)
{
	char buf[512];
	ssize_t len = -1;
	int fd = open("/sys/devices/system/node/online", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
	}
	if (len <= 0) {
		numa_mark(0, 0);
		return;
	}
	buf[len] = 0;
	/* "0", "0-3", "0,2-3\n" */
	for (const char *p = buf; *p >= '0' && *p <= '9';) {
		long lo = 0, hi;
		while (*p >= '0' && *p <= '9' && lo < PW_NUMA_NODES)
			lo = lo * 10 + (*p++ - '0');
		hi = lo;
		if (*p == '-') {
			hi = 0;
			for (p++; *p >= '0' && *p <= '9' && hi < PW_NUMA_NODES; p++)
				hi = hi * 10 + (*p - '0');
		}
		numa_mark(lo, hi);
		if (*p != ',')
			break;
		p++;
	}
}

static bool numa_node_ok(int id)
{
	if (id < 0 || id >= PW_NUMA_NODES)
		return false;
	pthread_once(&numa_once, numa_read);
	return (numa_online[id / 64] >> (id % 64)) & 1;
}

void pw_op_location(struct pw_op *op, int type, int id)
{
	op->loc_struct = true;
	op->loc_raw = type;
	op->loc_id = id;
	op->loc_valid = true;
	switch (type) {
	case 0:
		op->loc_type = PW_LOCT_INVALID;
		op->loc_dev = PW_LOC_NONE;
		break;
	case 1:
		op->loc_type = PW_LOCT_DEVICE;
		op->loc_dev = id;
		break;
	case 2:
		op->loc_type = PW_LOCT_HOST;
		op->loc_dev = PW_LOC_CPU;
		break;
	case 3:
		op->loc_type = PW_LOCT_HOST_NUMA;
		op->loc_dev = PW_LOC_CPU;
		op->loc_numa_ok = numa_node_ok(id);
		break;
	case 4:
		op->loc_type = PW_LOCT_HOST_NUMA_CURRENT;
		op->loc_dev = PW_LOC_CPU;
		break;
	default:
		op->loc_type = PW_LOCT_UNDEFINED;
		op->loc_dev = PW_LOC_NONE;
		op->loc_valid = false;
	}
}

void pw_op_location_device(struct pw_op *op, int device, int cpu_id)
{
	op->loc_struct = false;
	op->loc_raw = device == cpu_id ? 2 : 1;
	op->loc_id = device;
	op->loc_valid = true;
	op->loc_type = device == cpu_id ? PW_LOCT_HOST : PW_LOCT_DEVICE;
	op->loc_dev = device == cpu_id ? PW_LOC_CPU : device;
}

/* Argument i: a location struct, or a device ordinal in the older ABIs. */
static void location_arg(struct pw_op *op, const struct pw_call *c, int i, int cpu_id)
{
	struct pw_op_loc loc;
	if (c->fn->args[i].kind == PW_K_DEV) {
		pw_op_location_device(op, (int)(int64_t)c->a[i], cpu_id);
		return;
	}
	memcpy(&loc, &c->a[i], sizeof loc); /* passed by value: captured as its 8 bytes */
	pw_op_location(op, loc.type, loc.id);
}

void pw_op_advise(struct pw_op *op, const struct pw_call *c, int cpu_id)
{
	op->kind = PW_OP_ADVISE;
	op->bytes = c->a[1];
	op->advice = (int)(int64_t)c->a[2];
	location_arg(op, c, 3, cpu_id);
}

void pw_op_prefetch(struct pw_op *op, const struct pw_call *c, int cpu_id)
{
	op->kind = PW_OP_PREFETCH;
	op->bytes = c->a[1];
	location_arg(op, c, 2, cpu_id);
	if (c->fn->args[2].kind != PW_K_DEV)
		op->flags = c->a[3]; /* the location's form has flags; the device's, the stream */
}

/* ---- memory freed lately ---- */

/* A ring of the last frees, written with one atomic increment and relaxed
 * stores (a free is rare next to the calls that read it, and only a
 * message depends on it: a torn entry names the wrong allocation at worst).
 * Read only for pointers the runtime does not know. */
#define PW_FREED_SLOTS 128
static struct {
	_Atomic uint64_t base, size;
} freed[PW_FREED_SLOTS];
static atomic_uint freed_next;

void pw_op_note_freed(const struct pw_op *op)
{
	uint64_t base = op->dst.known ? op->dst.base : op->dst.ptr;
	if (!base)
		return;
	unsigned i = atomic_fetch_add_explicit(&freed_next, 1, memory_order_relaxed) % PW_FREED_SLOTS;
	atomic_store_explicit(&freed[i].size, op->dst.known ? op->dst.size : 0, memory_order_relaxed);
	atomic_store_explicit(&freed[i].base, base, memory_order_relaxed);
}

bool pw_op_freed_at(uint64_t p, uint64_t *base, uint64_t *size)
{
	unsigned last = atomic_load_explicit(&freed_next, memory_order_relaxed);
	/* newest first: an address freed twice names its last allocation */
	for (unsigned k = 1; p && k <= PW_FREED_SLOTS; k++) {
		unsigned i = (last - k) % PW_FREED_SLOTS;
		uint64_t b = atomic_load_explicit(&freed[i].base, memory_order_relaxed);
		uint64_t n = atomic_load_explicit(&freed[i].size, memory_order_relaxed);
		if (b && (p == b || (p > b && p - b < n))) {
			*base = b;
			*size = n;
			return true;
		}
	}
	return false;
}

void pw_op_freed_facts(struct pw_op *op)
{
	op->dst_freed = false;
	if (!op->dst.ptr || op->dst.known || op->dst.managed)
		return;
	op->dst_freed = pw_op_freed_at(op->dst.ptr, &op->freed_base, &op->freed_size);
}

void pw_op_registry_facts(struct pw_op *op)
{
	struct pw_reg_export e;
	op->reg_active = pw_registry_active();
	if (!op->handle || !pw_registry_lookup(op->handle, &e))
		return;
	op->reg_known = true;
	op->reg_device = e.device;
	op->reg_freed = e.freed;
	op->reg_trust_list = e.trust_list;
	op->reg_trust_named = e.trust_named;
	op->reg_exporter_alive = e.exporter_alive;
	op->reg_exporter_pid = e.exporter_pid;
	/* The exporter's device as this process numbers it: only an open
	 * makes these look-ups, and after the first they are in memory. */
	int d = e.uuid[0] ? pw_devices_ordinal_of(op->vendor, e.uuid) : -1;
	if (d >= 0) {
		op->reg_dev_known = true;
		op->reg_dev = d;
		op->reg_can_access = pw_devices_can_access(op->vendor, op->cur_dev, d);
	}
}

void pw_op_event(struct pw_op *op, const struct pw_call *c)
{
	struct pw_ipc_event e;
	switch (op->kind) {
	case PW_OP_EVENT_CREATE: op->flags = c->fn->nargs > 1 ? c->a[1] : 0; break;
	case PW_OP_IPC_EVENT_EXPORT:
		op->handle = (const unsigned char *)(uintptr_t)c->a[0]; /* written by the call */
		op->event = c->a[1];
		op->event_known = pw_state_event_flags(&pw_state, op->event, &op->event_flags);
		break;
	case PW_OP_IPC_EVENT_OPEN:
		op->handle = (const unsigned char *)(uintptr_t)c->a[1];
		op->self_pid = getpid(); /* a system call: only where ipc.event.same-process reads it */
		pw_op_registry_facts(op);
		break;
	case PW_OP_EVENT_DESTROY:
		op->event = c->a[0];
		if (!pw_state_ipc_event(&pw_state, op->event, &e))
			break;
		memcpy(op->handle_buf, e.handle, sizeof op->handle_buf);
		op->handle = op->handle_buf;
		op->event_imported = e.imported;
		op->event_exported = !e.imported;
		/* the registry keys an exported event by its handle value, as memory by its base */
		if (op->event_exported)
			op->holders = pw_registry_holders(op->event, op->holder_pids, 4);
		break;
	default: break;
	}
}

void pw_op_free_facts(struct pw_op *op)
{
	struct pw_ipc_map m;
	if (pw_state_exported(&pw_state, op->dst.ptr))
		op->holders = pw_registry_holders(op->dst.ptr, op->holder_pids, 4);
	if (pw_state_mapped(&pw_state, op->dst.ptr, &m)) {
		op->mapped = true;
		op->map_ptr = m.ptr;
	}
}

static void copy_map_side(struct pw_mem *mem)
{
	struct pw_ipc_map m;
	if (!mem->ptr || mem->dev == PW_NO_DEV || mem->named_dev == PW_NO_DEV || mem->dev == mem->named_dev)
		return;
	if (pw_state_mapped(&pw_state, mem->ptr, &m)) {
		mem->mapped = true;
		mem->map_dev = m.dev;
		mem->home_dev = m.mem_dev;
	}
}

void pw_op_copy_map_facts(struct pw_op *op)
{
	copy_map_side(&op->dst);
	copy_map_side(&op->src);
}

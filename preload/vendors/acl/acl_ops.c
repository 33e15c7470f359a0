/*
 * ACL calls as the rules see them (op.h).  Every copy reaches the copy
 * rules, each of which looks at what it needs: the kind and destMax, the
 * two devices (a peer copy moves device memory between two of them), NULL,
 * bounds, P2P policies and memory aclrtFree freed lately.  The devices,
 * bounds and policies come from the layer's own allocation table
 * (acl_mem.c: aclrtMalloc's, aclrtMallocHost's and aclrtMapMem's ranges);
 * an address an IPC key import mapped is device memory too (the IPC
 * model's mappings).
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "vendors/acl/acl.h"
#include "rules/check.h"
#include "state/op.h"
#include "state/registry.h"
#include "state/state.h"

/* Argument i's memory.  ask_ipc: whether to look for an IPC import's
 * mapping where the layer's table does not know the pointer; the IPC
 * model's table is behind the state lock (taken only while some mapping is
 * live), so only a side the copy's kind says is device memory, or may be
 * (ACL_MEMCPY_DEFAULT), asks: the host side of an ordinary copy never does. */
static void mem_arg(const struct pw_call *c, int i, struct pw_mem *m, bool ask_ipc)
{
	struct pw_acl_alloc a;
	struct pw_ipc_map map;
	m->ptr = c->a[i];
	m->dev = PW_NO_DEV;
	m->named_dev = PW_NO_DEV;
	m->p2p = -1;
	bool found = m->ptr && pw_acl_mem_find(m->ptr, &a);
	if (found && a.policy == PW_ACL_POLICY_HOST) {
		m->host = true; /* page-locked host memory aclrtMallocHost returned */
		m->base = a.base;
		m->size = a.size;
	} else if (found) {
		m->dev = a.dev;
		m->known = true;
		m->base = a.base;
		m->size = a.size;
		m->p2p = a.policy == PW_ACL_POLICY_VMM ? -1 : pw_acl_policy_p2p(a.policy);
	} else if (m->ptr && ask_ipc && pw_state_mapped(&pw_state, m->ptr, &map)) {
		/* device memory an IPC key import mapped here: in this process's
		 * device map_dev's view, allocated on home_dev by the exporter */
		m->mapped = true;
		m->map_dev = map.dev;
		m->home_dev = map.mem_dev;
	} else if (m->ptr) {
		uint64_t base, size;
		m->freed = pw_op_freed_at(m->ptr, &base, &size); /* aclrtFree freed it lately */
	}
}

/* Every copy is looked at: its kind, destMax and memory freed lately
 * (copy.acl.*, copy.peer.freed), bounds and NULL (copy.peer.*); one that
 * moves device memory between two devices for the peer rules too (they
 * look at the two devices themselves). */
static bool copy_op(const struct pw_call *c, struct pw_op *op)
{
	int k = pw_acl_copy_kind_arg(c);
	op->kind = PW_OP_IMPLICIT_COPY;
	op->copy_kind = (int)(int64_t)c->a[k];
	op->copy_2d = k == 6;
	mem_arg(c, 0, &op->dst, !pw_acl_kind_host_dst(op->copy_kind));
	mem_arg(c, 2, &op->src, !pw_acl_kind_host_src(op->copy_kind));
	if (op->copy_2d) {
		/* height rows of width bytes: the bytes moved; no destMax (the
		 * destination's rows span (height-1)*dpitch+width bytes, which is
		 * at least that while width fits the pitch).  Not asynchronous in
		 * copy.acl.*'s sense: their sentences are aclrtMemcpyAsync's, and
		 * CANN 8.5.0's aclrtMemcpy2dAsync page takes pageable host memory. */
		uint64_t w = c->a[4], h = c->a[5];
		op->bytes = w * h;
		op->dest_max = h ? (h - 1) * c->a[1] + w : 0;
		if (op->dest_max < op->bytes)
			op->dest_max = op->bytes;
		return true;
	}
	op->copy_async = c->fn->nargs > 5; /* aclrtMemcpyAsync: the stream */
	op->dest_max = c->a[1];
	op->bytes = c->a[3];
	return true;
}

/* An IPC key as a handle: its bytes up to the NUL, at most 64 of them,
 * zero-padded, so that keys the runtime wrote and keys read back from
 * another buffer match whatever follows their NUL. */
static const unsigned char *key_handle(struct pw_op *op, uint64_t key)
{
	memset(op->handle_buf, 0, sizeof op->handle_buf);
	if (!key)
		return NULL;
	const char *k = (const char *)(uintptr_t)key;
	memcpy(op->handle_buf, k, strnlen(k, sizeof op->handle_buf));
	return op->handle_buf;
}

/* aclrtIpcMemClose names the key, not the pointer: the pointer of this
 * process's live import of it (op->dst.ptr, 0 if none), so that the close
 * is one of that mapping, as an unmap by pointer is; and whether this
 * process exported the key (the exporter's own close). */
static void close_facts(struct pw_op *op)
{
	if (!op->handle || !atomic_load_explicit(&pw_state.tables_used, memory_order_relaxed))
		return;
	pthread_mutex_lock(&pw_state.lock);
	const struct pw_ipc_map *m = pw_state_map_of_handle(&pw_state, op->handle);
	if (m) {
		op->dst.ptr = m->ptr;
		op->mapped = true;
		op->map_ptr = m->ptr;
	}
	const struct pw_ipc_export *e = pw_state_export_of_handle(&pw_state, op->handle);
	uint64_t base = e ? e->base : 0;
	op->key_exported = e != NULL;
	pthread_mutex_unlock(&pw_state.lock);
	/* the exporter's close: the other processes that still have the key open */
	if (op->key_exported && !m)
		op->holders = pw_registry_holders(base, op->holder_pids, 4);
}

/* A shareable handle as the registry's handle bytes (acl_vmm.c). */
static const unsigned char *shareable_handle(struct pw_op *op, uint64_t sh)
{
	pw_acl_vmm_key(sh, op->handle_buf);
	op->vmm_shareable = sh;
	return op->handle_buf;
}

/* aclrtMemImportFromShareableHandle: what this process did with the
 * shareable handle (exported it, imported it already) and what the
 * registry knows of its exporter. */
static void vmm_import_facts(const struct pw_call *c, struct pw_op *op)
{
	struct pw_acl_vmm v;
	uint64_t sh = pw_acl_share_arg(c, 0); /* V1: the value; V2: what it points to */
	op->handle = shareable_handle(op, sh);
	/* V1 names the device; V2 imports on the thread's */
	op->dst.dev = c->fn->args[0].kind == PW_K_SHAREPTR ? op->cur_dev : (int)(int64_t)c->a[1];
	op->self_pid = getpid();
	op->vmm_own_export = pw_acl_vmm_of_shareable(sh, false, &v);
	op->vmm_again = pw_acl_vmm_of_shareable(sh, true, &v);
	pw_op_registry_facts(op);
}

/* aclrtMemExportToShareableHandle: the handle, its flags, and whether it
 * was exported already; aclrtFreePhysical: the shareable handle its export
 * made, which the registry is told is gone after the call. */
static void vmm_handle_facts(const struct pw_call *c, struct pw_op *op)
{
	struct pw_acl_vmm v;
	op->mem_handle = c->a[0];
	op->vmm_known = pw_acl_vmm_find(op->mem_handle, &v);
	if (op->vmm_known)
		op->dst.dev = v.dev;
	if (c->fn->op == PW_OP_VMM_EXPORT) {
		/* V1: (handle, handleType, flags, &shareable); V2: (handle, flags,
		 * shareType, &shareable) */
		bool v2 = c->fn->args[3].kind == PW_K_OUT_SHAREPTR;
		op->handle_type = v2 ? 0 : (unsigned)c->a[1];
		op->flags = c->a[v2 ? 1 : 2];
		/* flags 0 keeps the trust list on: only the processes
		 * aclrtMemSetPidToShareableHandle names import (acl_rt.h:3328-3330) */
		op->trust_list = !(op->flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
		op->vmm_again = op->vmm_known && v.shared && !v.imported;
	}
	if (op->vmm_known && v.shared && !v.imported)
		op->vmm_shareable = v.shareable;
}

bool pw_acl_op_before(const struct pw_call *c, struct pw_op *op)
{
	pw_op_init(op, PW_VENDOR_ACL, c);
	switch (c->fn->op) {
	case PW_OP_CAN_ACCESS:
		op->cur_dev = (int)(int64_t)c->a[1];
		op->peer_dev = (int)(int64_t)c->a[2];
		op->ndev = pw_acl_device_count();
		break;
	case PW_OP_PEER_ENABLE:
		op->peer_dev = (int)(int64_t)c->a[0];
		op->flags = c->a[1];
		op->ndev = pw_acl_device_count();
		op->can_access = pw_acl_can_access(op->cur_dev, op->peer_dev);
		/* no device of the thread known: is there none (107002)? */
		op->no_ctx = op->cur_dev == PW_NO_DEV && pw_acl_no_current_device();
		break;
	case PW_OP_PEER_DISABLE:
		op->peer_dev = (int)(int64_t)c->a[0];
		op->ndev = pw_acl_device_count();
		break;
	case PW_OP_IMPLICIT_COPY: return copy_op(c, op);
	case PW_OP_IPC_EXPORT: /* the key is written by the call: op_after */
		mem_arg(c, 0, &op->dst, false);
		op->dst_freed = op->dst.freed;
		op->bytes = c->a[1];
		op->key_len = c->a[3];
		op->flags = c->a[4];
		/* flags 0 keeps the trust list on: only the processes aclrtIpcMemSetImportPid names import */
		op->trust_list = !(op->flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
		break;
	case PW_OP_IPC_IMPORT_PID: { /* by key, or by shareable handle (aclrtMemSetPidToShareableHandle[V2])
		                      */
		int k = c->fn->args[0].kind;
		op->handle = k == PW_K_SHARE64 || k == PW_K_SHAREPTR
		                 ? shareable_handle(op, pw_acl_share_arg(c, 0))
		                 : key_handle(op, c->a[0]);
		op->bytes = c->a[k == PW_K_SHAREPTR ? 3 : 2]; /* the number of pids */
		break;
	}
	case PW_OP_VMM_IMPORT: vmm_import_facts(c, op); break;
	case PW_OP_VMM_EXPORT:
	case PW_OP_VMM_RELEASE: vmm_handle_facts(c, op); break;
	case PW_OP_IPC_OPEN:
		op->handle = key_handle(op, c->a[1]);
		op->flags = c->a[2];
		/* the flag that enables access to a peer device's memory (acl_rt.h:4601) */
		op->ipc_lazy_flag = ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS;
		op->self_pid = getpid();
		pw_op_registry_facts(op);
		break;
	case PW_OP_IPC_CLOSE:
		op->handle = key_handle(op, c->a[0]);
		op->close_by_key = true;
		close_facts(op);
		break;
	case PW_OP_FREE: /* its bounds (copies after it are told so), and who still has it open */
		mem_arg(c, 0, &op->dst, false);
		pw_op_free_facts(op);
		break;
	case PW_OP_DEVICE_RESET: op->cur_dev = (int)(int64_t)c->a[0]; break;
	default: return false;
	}
	return true;
}

/* The document asks once "whether data exchange between two devices is
 * supported" and then enables both directions: the answer is the pair's.
 * (ACL has no "already enabled" code, facts B4: a repeated enable that
 * succeeds leaves the state as it was.) */
void pw_acl_op_after(const struct pw_call *c, struct pw_op *op)
{
	if (c->ret == ACL_SUCCESS && op->kind == PW_OP_IPC_EXPORT)
		op->handle = key_handle(op, c->a[2]); /* the key the call wrote */
	if (c->ret == ACL_SUCCESS && op->kind == PW_OP_IPC_OPEN && c->a[0]) {
		/* the mapping, on the exporter's device where the registry knows it */
		op->dst.ptr = (uintptr_t) * (void *const *)(uintptr_t)c->a[0];
		op->dst.dev = pw_op_exporter_dev(op);
		if (op->dst.dev != PW_NO_DEV && op->dst.dev != op->cur_dev)
			op->can_access = pw_acl_can_access(op->cur_dev, op->dst.dev);
	}
	if (c->ret == ACL_SUCCESS && op->kind == PW_OP_VMM_EXPORT && c->a[3]) {
		/* the shareable handle the call wrote, for the importers to find */
		unsigned char key[PW_ACL_VMM_KEY_BYTES];
		struct pw_acl_vmm v;
		pw_acl_vmm_key(pw_acl_share_arg(c, 3), key);
		bool known = pw_acl_vmm_find(op->mem_handle, &v);
		pw_registry_export(key, op->mem_handle, known ? v.size : 0, known ? v.dev : PW_NO_DEV);
		if (op->trust_list)
			pw_registry_trust_list(key);
	}
	if (c->ret == ACL_SUCCESS && op->kind == PW_OP_VMM_RELEASE && op->vmm_shareable) {
		unsigned char key[PW_ACL_VMM_KEY_BYTES];
		pw_acl_vmm_key(op->vmm_shareable, key);
		pw_registry_freed_handle(key); /* imports after this one are of freed memory */
	}
	if (op->kind != PW_OP_CAN_ACCESS)
		return;
	struct pw_op back = *op;
	back.cur_dev = op->peer_dev;
	back.peer_dev = op->cur_dev;
	pw_check_after(&back, c->ret, false);
}

/* The Ascend ACL module: its descriptor table, real functions, hooks and allocation table. */
#ifndef PW_ACL_HOOKS_H
#define PW_ACL_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "vendors/acl/acl_table.h"
#include "core/hooks.h"
#include "core/pw.h"
#include "peerwatch/abi/acl.h"
#include "core/vendor.h"

extern const struct pw_vendor pw_acl_vendor;
extern const struct pw_fn_desc pw_acl_desc[PW_ACL_NFUNCS];
extern void *const pw_acl_wrapper[PW_ACL_NFUNCS];
extern _Atomic(void *) pw_acl_real_fn[PW_ACL_NFUNCS];

/* acl_resolve.c: the runtime's function behind hook id, resolved on first use. */
void *pw_acl_resolve(int id);
static inline void *pw_acl_real(int id)
{
	return pw_real(&pw_acl_vendor, id);
}
/* A runtime function the layer itself calls (never traced), or NULL. */
void *pw_acl_aux(const char *name);
/* dlsym(h, name) answered r for an acl* name: our wrapper, or r. */
void *pw_acl_dlsym_hook(const char *name, void *r);
/* The header's "acl" member under "vendors" (a json_t object). */
void pw_acl_describe(void *json_vendors_object);
/* acl_ident.c: the devices and pairs (devices.h) */
struct pw_devset;
bool pw_acl_identify(struct pw_devset *set);
uint64_t pw_acl_before(const struct pw_call *c); /* state_before: identity before aclFinalize */

/* acl_mem.c: aclrtMalloc allocations, ptr -> (size, device, policy).  Lock-free. */
struct pw_acl_alloc {
	uint64_t base, size;
	int dev, policy;
};
/* The policy an aclrtMallocHost allocation is kept with in the table (its
 * device PW_NO_DEV): page-locked host memory, no device's. */
#define PW_ACL_POLICY_HOST (-1)
/* the policy of a range aclrtMapMem mapped (no aclrtMalloc policy: P2P unknown) */
#define PW_ACL_POLICY_VMM (-2)
void pw_acl_mem_add(uint64_t base, uint64_t size, int dev, int policy);
void pw_acl_mem_remove(uint64_t base);
/* The slot of the allocation at base (-1 if none), and its removal only if
 * that slot still holds base: aclrtFree notes the slot before the real free
 * and removes it after, so an aclrtMalloc of another thread that gets the
 * same address back in between keeps its own entry. */
int pw_acl_mem_slot(uint64_t base);
void pw_acl_mem_remove_slot(int slot, uint64_t base);
/* Where pw_acl_pre keeps an aclrtFree's slot (a dev[] entry no ACL row uses). */
#define PW_ACL_FREE_SLOT (PW_MAX_ARGS - 1)
/* The allocation p lies in; false if none we saw. */
bool pw_acl_mem_find(uint64_t p, struct pw_acl_alloc *out);
bool pw_acl_policy_p2p(int policy);

/* acl_vmm.c: aclrtMallocPhysical's handles and the shareable handles they
 * were exported as, or imported from.  Lock-free. */
struct pw_acl_vmm {
	uint64_t handle, size;
	int dev;
	bool imported; /* made by aclrtMemImportFromShareableHandle */
	bool shared;   /* exported (or imported): shareable holds the shareable handle */
	uint64_t shareable;
};
void pw_acl_vmm_add(uint64_t handle, uint64_t size, int dev, bool imported, uint64_t shareable);
bool pw_acl_vmm_find(uint64_t handle, struct pw_acl_vmm *out);
void pw_acl_vmm_exported(uint64_t handle, uint64_t shareable);
void pw_acl_vmm_remove(uint64_t handle);
/* This process's export (imported false) or import of a shareable handle. */
bool pw_acl_vmm_of_shareable(uint64_t shareable, bool imported, struct pw_acl_vmm *out);
#define PW_ACL_VMM_KEY_BYTES 64 /* the registry's handle bytes (registry.h PW_IPC_HANDLE_BYTES) */
void pw_acl_vmm_key(uint64_t shareable, unsigned char key[PW_ACL_VMM_KEY_BYTES]);
/* A V2 shareable handle (void *p, of aclrtMemSharedHandleType type) as the
 * layer keys it: the uint64_t p points to for the DEFAULT type, a 64-bit
 * digest (FNV-1a) of the 128 bytes of a fabric handle; 0 for a NULL p or
 * another type. */
uint64_t pw_acl_share_value(uint64_t p, int type);
/* Argument i of c as a shareable handle's value: SHARE64's word, what a
 * SHAREPTR points to (its type the next argument), or what an
 * OUT_SHARE64 or OUT_SHAREPTR (its type the argument before) holds once
 * the call succeeded; 0 if none. */
uint64_t pw_acl_share_arg(const struct pw_call *c, int i);

/* acl_encode.c */
/* The calling thread's current device (aclrtSetDevice), PW_NO_DEV if unknown. */
int pw_acl_current_device(void);
/* The runtime says the calling thread has no current device
 * (aclrtGetDevice: ACL_ERROR_RT_CONTEXT_NULL), asked untraced. */
bool pw_acl_no_current_device(void);
void pw_acl_pre(struct pw_call *c, const struct pw_fn_desc *fn);
/* After the call: what it changed in the allocation table and the current device. */
void pw_acl_learn(const struct pw_call *c, uint64_t unused);
/* The event's arguments: saved after the call, written by the trace writer. */
struct pw_jw;
struct pw_snapw;
struct pw_rcall;
void pw_acl_snap_arg(struct pw_snapw *s, const struct pw_call *c, int i);
void pw_acl_put_arg(struct pw_jw *w, const struct pw_rcall *r, int i);
const char *pw_acl_error_name(int code);
const char *pw_acl_policy_name(int policy, char *buf, size_t len);
const char *pw_acl_memcpy_kind_name(int kind);
/* The index of a copy's kind argument (the 2D copies have pitches, width and height first). */
int pw_acl_copy_kind_arg(const struct pw_call *c);
/* Whether a side of a copy of this kind is host memory. */
bool pw_acl_kind_host_src(int kind);
bool pw_acl_kind_host_dst(int kind);
int pw_acl_can_access(int dev, int peer);
/* aclrtGetDeviceCount's answer, cached; 0 if unknown. */
int pw_acl_device_count(void);

/* acl_ops.c: the call as the rules see it; false when no rule looks at it. */
struct pw_op;
bool pw_acl_op_before(const struct pw_call *c, struct pw_op *op);
void pw_acl_op_after(const struct pw_call *c, struct pw_op *op);

#endif

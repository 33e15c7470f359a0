/*
 * The Ascend ACL runtime functions (libascendcl.so) peerwatch hooks: one row
 * per exported symbol, the same shape as cuda_table.h:
 *
 *   X(api, suffix, family, op, flags, (signature))
 *
 * ACL exports no variants, so every suffix is empty.  Wrappers
 * (acl_hooks.c), the descriptor table, the export list and the ACL part of
 * docs/hooks.md are generated from this file.
 *
 * Signatures are acl_rt.h's (include/peerwatch/abi/acl.h lists them, from
 * the facts file section B2); argument names are the JSON keys of the
 * trace.  Kinds (decoded in acl_encode.c):
 *   DEV       int32_t device ordinal         SIZE    size_t
 *   UINT      uint32_t flags (numeric)       STREAM  aclrtStream
 *   OUT_INT   int32_t *, value after the call
 *   APTR      void * / const void * device or host pointer, recorded with the
 *             device of the aclrtMalloc allocation it lies in   (x, x_dev)
 *   OUT_APTR  void ** written by aclrtMalloc: the pointer and its device
 *   POLICY    aclrtMemMallocPolicy: its name, and "p2p": true for *_P2P
 *   MEMKIND   aclrtMemcpyKind: its name
 *   CSTR      const char *, the string (aclInit's configuration path)
 *   KEY       const char *, an IPC key: the string (at most 64 bytes; the
 *             key's buffer is 65, abi/acl.h) and its 64 bytes as "handle"
 *   OUT_KEY   char *, the IPC key aclrtIpcMemGetExportKey wrote (after a
 *             success only: the buffer is the caller's until then)
 *   PIDS      int32_t *, the trust list aclrtIpcMemSetImportPid is given: its
 *             first PW_ACL_PIDS_MAX entries (the count is the next argument)
 *   U64       uint64_t flags (numeric)
 *   MEMHANDLE aclrtDrvMemHandle, a physical allocation's handle (hex)
 *   OUT_MEMHANDLE  aclrtDrvMemHandle *, the handle the call wrote
 *   PHYSPROP  const aclrtPhysicalMemProp *: its device ("dev", where its
 *             location is a device) and memAttr
 *   SHARE64   uint64_t, a shareable handle (hex, "shareable")
 *   OUT_SHARE64  uint64_t *, the shareable handle the call wrote
 *   SHAREPTR  void *, a V2 shareable handle: the handle it points to, of the
 *             type the next argument says (pw_acl_share_value: the uint64_t
 *             of ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, a digest of a fabric
 *             handle's 128 bytes), hex, as SHARE64's
 *   OUT_SHAREPTR  void *, the V2 handle the call wrote (its type: the
 *             argument before)
 *   SHARETYPE aclrtMemSharedHandleType: its name
 * and aclFinalize(void) has the signature PW_SIG_VOID (pp.h).
 */
#ifndef PW_ACL_TABLE_H
#define PW_ACL_TABLE_H

#include "core/hooks.h"
#include "core/pp.h"

/* Argument kinds of the ACL rows beyond hooks.h's (which the CUDA rows use);
 * they start high so that hooks.h can grow without clashing.  Each is
 * captured (call.h) as: */
enum pw_acl_kind {
	PW_K_APTR = 64,
	PW_K_OUT_APTR,
	PW_K_POLICY,
	PW_K_MEMKIND,
	PW_K_CSTR,
	PW_K_KEY,
	PW_K_OUT_KEY,
	PW_K_PIDS,
	PW_K_PHYSPROP,
	PW_K_SHARE64,
	PW_K_OUT_SHARE64,
	PW_K_SHAREPTR,
	PW_K_OUT_SHAREPTR,
	PW_K_SHARETYPE,
};
#define PW_CAP_APTR PW_CAP_VAL
#define PW_CAP_OUT_APTR PW_CAP_VAL
#define PW_CAP_POLICY PW_CAP_SVAL
#define PW_CAP_MEMKIND PW_CAP_SVAL
#define PW_CAP_CSTR PW_CAP_VAL
#define PW_CAP_KEY PW_CAP_VAL
#define PW_CAP_OUT_KEY PW_CAP_VAL
#define PW_CAP_PIDS PW_CAP_VAL
#define PW_CAP_PHYSPROP PW_CAP_VAL
#define PW_CAP_SHARE64 PW_CAP_VAL
#define PW_CAP_OUT_SHARE64 PW_CAP_VAL
#define PW_CAP_SHAREPTR PW_CAP_VAL
#define PW_CAP_OUT_SHAREPTR PW_CAP_VAL
#define PW_CAP_SHARETYPE PW_CAP_SVAL
/* and what the event needs of each beyond its word (call.h's PW_SNAP_<KIND>):
 * the allocated pointer and its device, the string */
#define PW_SNAP_APTR 0
#define PW_SNAP_OUT_APTR 1
#define PW_SNAP_POLICY 0
#define PW_SNAP_MEMKIND 0
#define PW_SNAP_CSTR 1
#define PW_SNAP_KEY 1
#define PW_SNAP_OUT_KEY 1
#define PW_SNAP_PIDS 1
#define PW_SNAP_PHYSPROP 1
#define PW_SNAP_SHARE64 0
#define PW_SNAP_OUT_SHARE64 1
#define PW_SNAP_SHAREPTR 1
#define PW_SNAP_OUT_SHAREPTR 1
#define PW_SNAP_SHARETYPE 0
/* The trust-list entries recorded (the event's "pids"). */
#define PW_ACL_PIDS_MAX 16

/* Flags of a row: hooks.h's (PW_CUR_DEV: the thread's current device). */

#define PW_ACL_SIG_INIT (CSTR, const char *, config)
#define PW_ACL_SIG_DEVICE (DEV, int32_t, device)
#define PW_ACL_SIG_GET_DEVICE (OUT_INT, int32_t *, device)
#define PW_ACL_SIG_CAN_ACCESS_PEER \
	(OUT_INT, int32_t *, can_access), (DEV, int32_t, dev), (DEV, int32_t, peer_dev)
#define PW_ACL_SIG_ENABLE_PEER (DEV, int32_t, peer_dev), (UINT, uint32_t, flags)
#define PW_ACL_SIG_DISABLE_PEER (DEV, int32_t, peer_dev)
#define PW_ACL_SIG_MALLOC \
	(OUT_APTR, void **, ptr), (SIZE, size_t, bytes), (POLICY, aclrtMemMallocPolicy, policy)
#define PW_ACL_SIG_FREE (APTR, void *, ptr)
/* page-locked host memory: aclrtMemcpyAsync's host side (CANN 8.0: "allocated by aclrtMallocHost") */
#define PW_ACL_SIG_MALLOC_HOST (OUT_APTR, void **, ptr), (SIZE, size_t, bytes)
#define PW_ACL_SIG_MEMCPY                                                                                \
	(APTR, void *, dst), (SIZE, size_t, dest_max), (APTR, const void *, src), (SIZE, size_t, bytes), \
	    (MEMKIND, aclrtMemcpyKind, kind)
/* 2D copies (acl_rt.h:2411, :2430): height rows of width bytes */
#define PW_ACL_SIG_MEMCPY_2D                                                                            \
	(APTR, void *, dst), (SIZE, size_t, dpitch), (APTR, const void *, src), (SIZE, size_t, spitch), \
	    (SIZE, size_t, width), (SIZE, size_t, height), (MEMKIND, aclrtMemcpyKind, kind)
#define PW_ACL_SIG_MEMCPY_2D_ASYNC                                                                      \
	(APTR, void *, dst), (SIZE, size_t, dpitch), (APTR, const void *, src), (SIZE, size_t, spitch), \
	    (SIZE, size_t, width), (SIZE, size_t, height), (MEMKIND, aclrtMemcpyKind, kind),            \
	    (STREAM, aclrtStream, stream)
#define PW_ACL_SIG_MEMCPY_ASYNC                                                                          \
	(APTR, void *, dst), (SIZE, size_t, dest_max), (APTR, const void *, src), (SIZE, size_t, bytes), \
	    (MEMKIND, aclrtMemcpyKind, kind), (STREAM, aclrtStream, stream)

/* IPC memory by key (acl_rt.h:4583-4617, abi/acl.h) */
#define PW_ACL_SIG_IPC_EXPORT                                                                    \
	(APTR, void *, ptr), (SIZE, size_t, bytes), (OUT_KEY, char *, key), (SIZE, size_t, len), \
	    (U64, uint64_t, flags)
#define PW_ACL_SIG_IPC_IMPORT (OUT_APTR, void **, ptr), (KEY, const char *, key), (U64, uint64_t, flags)
#define PW_ACL_SIG_IPC_PIDS (KEY, const char *, key), (PIDS, int32_t *, pids), (SIZE, size_t, num)
#define PW_ACL_SIG_IPC_CLOSE (KEY, const char *, key)

/* Virtual memory and shareable handles (acl_rt.h:2586-2664, 3336-3427; abi/acl.h) */
#define PW_ACL_SIG_RESERVE                                                                                \
	(OUT_APTR, void **, ptr), (SIZE, size_t, bytes), (SIZE, size_t, alignment), (APTR, void *, hint), \
	    (U64, uint64_t, flags)
#define PW_ACL_SIG_MALLOC_PHYS                                               \
	(OUT_MEMHANDLE, aclrtDrvMemHandle *, handle), (SIZE, size_t, bytes), \
	    (PHYSPROP, const aclrtPhysicalMemProp *, prop), (U64, uint64_t, flags)
#define PW_ACL_SIG_FREE_PHYS (MEMHANDLE, aclrtDrvMemHandle, handle)
#define PW_ACL_SIG_MAP                                                      \
	(APTR, void *, ptr), (SIZE, size_t, bytes), (SIZE, size_t, offset), \
	    (MEMHANDLE, aclrtDrvMemHandle, handle), (U64, uint64_t, flags)
#define PW_ACL_SIG_VMM_EXPORT                                                            \
	(MEMHANDLE, aclrtDrvMemHandle, handle), (UINT, aclrtMemHandleType, handle_type), \
	    (U64, uint64_t, flags), (OUT_SHARE64, uint64_t *, shareable)
#define PW_ACL_SIG_VMM_IMPORT \
	(SHARE64, uint64_t, shareable), (DEV, int32_t, dev), (OUT_MEMHANDLE, aclrtDrvMemHandle *, handle)
#define PW_ACL_SIG_VMM_PIDS (SHARE64, uint64_t, shareable), (PIDS, int32_t *, pids), (SIZE, size_t, num)
/* their V2 forms (acl_rt.h :3350, :3377, :3403; abi/acl.h): the handle by pointer, with its type */
#define PW_ACL_SIG_VMM_EXPORT_V2                                        \
	(MEMHANDLE, aclrtDrvMemHandle, handle), (U64, uint64_t, flags), \
	    (SHARETYPE, aclrtMemSharedHandleType, share_type), (OUT_SHAREPTR, void *, shareable)
#define PW_ACL_SIG_VMM_IMPORT_V2                                                          \
	(SHAREPTR, void *, shareable), (SHARETYPE, aclrtMemSharedHandleType, share_type), \
	    (U64, uint64_t, flags), (OUT_MEMHANDLE, aclrtDrvMemHandle *, handle)
#define PW_ACL_SIG_VMM_PIDS_V2                                                            \
	(SHAREPTR, void *, shareable), (SHARETYPE, aclrtMemSharedHandleType, share_type), \
	    (PIDS, int32_t *, pids), (SIZE, size_t, num)
#define PW_ACL_SIG_BARE_TGID (OUT_INT, int32_t *, pid)

#define PW_ACL_FUNCS(X)                                                                                   \
	/* peer */                                                                                        \
	X(aclrtDeviceCanAccessPeer, , PEER, CAN_ACCESS, 0, (PW_ACL_SIG_CAN_ACCESS_PEER))                  \
	X(aclrtDeviceEnablePeerAccess, , PEER, PEER_ENABLE, PW_CUR_DEV, (PW_ACL_SIG_ENABLE_PEER))         \
	X(aclrtDeviceDisablePeerAccess, , PEER, PEER_DISABLE, PW_CUR_DEV, (PW_ACL_SIG_DISABLE_PEER))      \
	/* copy */                                                                                        \
	X(aclrtMemcpy, , COPY, IMPLICIT_COPY, 0, (PW_ACL_SIG_MEMCPY))                                     \
	X(aclrtMemcpyAsync, , COPY, IMPLICIT_COPY, 0, (PW_ACL_SIG_MEMCPY_ASYNC))                          \
	X(aclrtMemcpy2d, , COPY, IMPLICIT_COPY, 0, (PW_ACL_SIG_MEMCPY_2D))                                \
	X(aclrtMemcpy2dAsync, , COPY, IMPLICIT_COPY, 0, (PW_ACL_SIG_MEMCPY_2D_ASYNC))                     \
	/* ipc: memory shared by key */                                                                   \
	X(aclrtIpcMemGetExportKey, , IPC, IPC_EXPORT, PW_CUR_DEV, (PW_ACL_SIG_IPC_EXPORT))                \
	X(aclrtIpcMemSetImportPid, , IPC, IPC_IMPORT_PID, 0, (PW_ACL_SIG_IPC_PIDS))                       \
	X(aclrtIpcMemImportByKey, , IPC, IPC_OPEN, PW_CUR_DEV, (PW_ACL_SIG_IPC_IMPORT))                   \
	X(aclrtIpcMemClose, , IPC, IPC_CLOSE, 0, (PW_ACL_SIG_IPC_CLOSE))                                  \
	/* ipc: physical memory shared by a shareable handle, and the V2 forms (CANN 8.5) */              \
	X(aclrtMemExportToShareableHandle, , IPC, VMM_EXPORT, 0, (PW_ACL_SIG_VMM_EXPORT))                 \
	X(aclrtMemSetPidToShareableHandle, , IPC, IPC_IMPORT_PID, 0, (PW_ACL_SIG_VMM_PIDS))               \
	X(aclrtMemImportFromShareableHandle, , IPC, VMM_IMPORT, 0, (PW_ACL_SIG_VMM_IMPORT))               \
	X(aclrtMemExportToShareableHandleV2, , IPC, VMM_EXPORT, 0, (PW_ACL_SIG_VMM_EXPORT_V2))            \
	X(aclrtMemSetPidToShareableHandleV2, , IPC, IPC_IMPORT_PID, 0, (PW_ACL_SIG_VMM_PIDS_V2))          \
	X(aclrtMemImportFromShareableHandleV2, , IPC, VMM_IMPORT, PW_CUR_DEV, (PW_ACL_SIG_VMM_IMPORT_V2)) \
	/* support: virtual memory (reserved ranges, physical allocations, mappings) */                   \
	X(aclrtReserveMemAddress, , SUPPORT, VMM_RESERVE, 0, (PW_ACL_SIG_RESERVE))                        \
	X(aclrtReleaseMemAddress, , SUPPORT, VMM_UNRESERVE, 0, (PW_ACL_SIG_FREE))                         \
	X(aclrtMallocPhysical, , SUPPORT, VMM_CREATE, 0, (PW_ACL_SIG_MALLOC_PHYS))                        \
	X(aclrtFreePhysical, , SUPPORT, VMM_RELEASE, 0, (PW_ACL_SIG_FREE_PHYS))                           \
	X(aclrtMapMem, , SUPPORT, VMM_MAP, 0, (PW_ACL_SIG_MAP))                                           \
	X(aclrtUnmapMem, , SUPPORT, VMM_UNMAP, 0, (PW_ACL_SIG_FREE))                                      \
	/* support: allocations (their policy and device), the current device, life */                    \
	X(aclrtMalloc, , SUPPORT, ALLOC, PW_CUR_DEV, (PW_ACL_SIG_MALLOC))                                 \
	X(aclrtFree, , SUPPORT, FREE, 0, (PW_ACL_SIG_FREE))                                               \
	X(aclrtMallocHost, , SUPPORT, ALLOC_HOST, 0, (PW_ACL_SIG_MALLOC_HOST))                            \
	X(aclrtFreeHost, , SUPPORT, FREE_HOST, 0, (PW_ACL_SIG_FREE))                                      \
	X(aclrtSetDevice, , SUPPORT, DEVICE_SET, 0, (PW_ACL_SIG_DEVICE))                                  \
	X(aclrtResetDevice, , SUPPORT, DEVICE_RESET, 0, (PW_ACL_SIG_DEVICE))                              \
	X(aclrtGetDevice, , SUPPORT, DEVICE_GET, 0, (PW_ACL_SIG_GET_DEVICE))                              \
	X(aclrtDeviceGetBareTgid, , SUPPORT, PROCESS_ID, 0, (PW_ACL_SIG_BARE_TGID))                       \
	X(aclInit, , SUPPORT, RUNTIME_INIT, 0, (PW_ACL_SIG_INIT))                                         \
	X(aclFinalize, , SUPPORT, RUNTIME_FINI, 0, (PW_SIG_VOID))

/* Symbol ids: PW_ACL_ID(aclrtMemcpy) */
#define PW_ACL_ID(sym) PW_ACL_ID_##sym
#define PW_ACL_ENUM_ROW(api, sfx, fam, op, flags, sig) PW_ACL_ID(api##sfx),
enum pw_acl_id { PW_ACL_FUNCS(PW_ACL_ENUM_ROW) PW_ACL_NFUNCS };

#endif

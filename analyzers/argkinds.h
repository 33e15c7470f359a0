/*
 * How each member of a call event's "args" is written, by its key: the one
 * table the reader checks arguments against (validate.c).  It follows
 * docs/trace-format.md (Kinds of arguments) and the argument names of the
 * hook tables (preload/cuda_table.h, cudart_table.h, hip_table.h,
 * acl_table.h) and their encoders; it is kept apart so that it can move into
 * a schema shared by the library and the reader.
 *
 * A key names one shape in every function that has it (a "ptr" is a hex
 * address whether it is a PTR, PTR32, VA, HPTR or OUT_PTR); where two
 * functions write one key two ways, the kind accepts both, and the comment
 * says which function writes which.  Keys ending in "_dev" are device
 * ordinals or null, keys ending in "_name" or "_names" strings or null,
 * whatever the key before them.  A key not listed is not checked: later
 * writers may add members (docs/trace-format.md, Compatibility).
 *
 * Members of objects inside args (the entries of "copies", "ranges" and
 * "access") are checked by the same table.
 */
#ifndef PW_AN_ARGKINDS_H
#define PW_AN_ARGKINDS_H

enum pw_akind {
	PW_A_UINT,      /* an unsigned integer, 0 to 2^64-1 (size_t, unsigned, unsigned long long) */
	PW_A_INT,       /* a signed integer (an int the call took or wrote) */
	PW_A_HEX,       /* "0x..." of at most 64 bits */
	PW_A_HEXNULL,   /* "0x..." or null */
	PW_A_HANDLE,    /* an IPC handle (128 hex digits) or a VMM allocation handle ("0x...") */
	PW_A_STR,       /* a string */
	PW_A_STRNULL,   /* a string or null */
	PW_A_NAMEORNUM, /* an enum's name, or its number where the writer knows no name */
	PW_A_BOOL,      /* true or false */
	PW_A_DEV,       /* a device ordinal (an int) or null */
	PW_A_LOC,       /* a CUmemLocation: {"type": name or number, "id": integer} */
	PW_A_ATTRS,     /* range attributes: an array of names or numbers; or a host pointer "0x..." */
	PW_A_NULL,      /* null: a NULL struct pointer whose members would be written instead */
	PW_A_COPIES,    /* a batch's copies: an array of objects */
	PW_A_RANGES,    /* a batch prefetch's ranges: an array of objects */
	PW_A_ACCESS,    /* cuMemSetAccess grants: [{"dev": integer, "flags": name or number}] */
	PW_A_HEXBYTES,  /* up to 128 bytes as hex digits, or null */
	PW_A_SHAREABLE, /* an OS handle: an fd (integer), a fabric handle (hex digits) or "0x..." */
	PW_A_NAMES      /* an array of names or numbers */
};

/* X(key, kind) */
#define PW_ARG_KINDS(X)                                                                      \
	/* sizes, counts and unsigned flags */                                               \
	X("bytes", PW_A_UINT)                                                                \
	X("flags", PW_A_UINT) /* inside an "access" grant: a name or a number */             \
	X("width", PW_A_UINT)                                                                \
	X("height", PW_A_UINT)                                                               \
	X("depth", PW_A_UINT)                                                                \
	X("data_size", PW_A_UINT)                                                            \
	X("num_attrs", PW_A_UINT)                                                            \
	X("count", PW_A_UINT)                                                                \
	X("offset", PW_A_UINT)                                                               \
	X("num_locations", PW_A_UINT)                                                        \
	X("element_bytes", PW_A_UINT)                                                        \
	X("pitch", PW_A_UINT)                                                                \
	X("dest_max", PW_A_UINT)                                                             \
	/* ints the call took or wrote */                                                    \
	X("can_access", PW_A_INT)                                                            \
	X("value", PW_A_INT)                                                                 \
	X("advice", PW_A_INT)                                                                \
	X("attr", PW_A_INT)                                                                  \
	/* addresses and opaque pointers */                                                  \
	X("ptr", PW_A_HEX)                                                                   \
	X("dst", PW_A_HEX)                                                                   \
	X("src", PW_A_HEX)                                                                   \
	X("peer_ctx", PW_A_HEX)                                                              \
	X("dst_ctx", PW_A_HEX)                                                               \
	X("src_ctx", PW_A_HEX)                                                               \
	X("stream", PW_A_HEX)                                                                \
	X("event", PW_A_HEX)                                                                 \
	X("data", PW_A_HEX)                                                                  \
	X("data_sizes", PW_A_HEX)                                                            \
	X("pool", PW_A_HEXNULL)                                                              \
	X("handle", PW_A_HANDLE)                                                             \
	/* devices the call names */                                                         \
	X("dev", PW_A_DEV)                                                                   \
	X("device", PW_A_DEV) /* aclrtGetDevice writes the int it got */                     \
	X("dst_device", PW_A_DEV)                                                            \
	X("src_device", PW_A_DEV)                                                            \
	/* structured arguments */                                                           \
	X("location", PW_A_LOC)                                                              \
	X("attrs", PW_A_ATTRS) /* cuMemRangeGetAttributes: names; cuMemcpyBatchAsync: hex */ \
	X("copy", PW_A_NULL)                                                                 \
	X("prop", PW_A_NULL)                                                                 \
	X("copies", PW_A_COPIES)                                                             \
	X("ranges", PW_A_RANGES)                                                             \
	X("access", PW_A_ACCESS)                                                             \
	X("export_data", PW_A_HEXBYTES)                                                      \
	X("shareable", PW_A_SHAREABLE)                                                       \
	X("handle_types", PW_A_NAMES)                                                        \
	/* names */                                                                          \
	X("src_type", PW_A_STR)                                                              \
	X("dst_type", PW_A_STR)                                                              \
	X("location_type", PW_A_STR)                                                         \
	X("type", PW_A_NAMEORNUM) /* a grant's location type */                              \
	X("handle_type", PW_A_NAMEORNUM)                                                     \
	X("kind", PW_A_NAMEORNUM)   /* aclrtMemcpy's aclrtMemcpyKind */                      \
	X("policy", PW_A_NAMEORNUM) /* aclrtMalloc's aclrtMemMallocPolicy */                 \
	X("file_id", PW_A_STRNULL)                                                           \
	X("config", PW_A_STRNULL) /* aclInit's path */                                       \
	X("file_id_unique", PW_A_BOOL)                                                       \
	X("p2p", PW_A_BOOL)

#endif

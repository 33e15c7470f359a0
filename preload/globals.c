/* The process-wide and per-thread state every file of the library shares. */
#include "pw.h"

struct pw_global pw_g;
PW_TLS int pw_tls_internal;
PW_TLS uint64_t pw_tls_parent;
PW_TLS struct pw_suppressed_mark pw_tls_suppressed;
PW_TLS long pw_tls_tid;
PW_TLS int pw_tls_upper;
PW_TLS uint64_t pw_tls_seq_next, pw_tls_seq_end;

/* The catalog: the table's text joined with each rule's function and the calls it applies to. */
#include <pthread.h>
#include <string.h>

#include "rules.h"

#define PW_RULE_INFO(name, id_, sev, vendors_, source_, runtime_, summary_, advice_) \
	[PW_RULE_##name] = {.id = id_,                                               \
	                    .severity = sev,                                         \
	                    .vendors = vendors_,                                     \
	                    .source = source_,                                       \
	                    .runtime = runtime_,                                     \
	                    .summary = summary_,                                     \
	                    .advice = advice_,                                       \
	                    .check = pw_rule_##name},

/* Which calls each rule looks at. */
static const enum pw_op_kind kinds[PW_RULE_COUNT] = {
    [PW_RULE_PEER_ENABLE_SELF] = PW_OP_PEER_ENABLE,
    [PW_RULE_PEER_ENABLE_FLAGS] = PW_OP_PEER_ENABLE,
    [PW_RULE_PEER_ENABLE_UNSUPPORTED] = PW_OP_PEER_ENABLE,
    [PW_RULE_PEER_ENABLE_TWICE] = PW_OP_PEER_ENABLE,
    [PW_RULE_PEER_ENABLE_UNQUERIED] = PW_OP_PEER_ENABLE,
    [PW_RULE_PEER_ENABLE_ONE_DIRECTION] = PW_OP_COPY,
    [PW_RULE_PEER_DISABLE_NOT_ENABLED] = PW_OP_PEER_DISABLE,
    [PW_RULE_PEER_LIMIT] = PW_OP_PEER_ENABLE,
    [PW_RULE_COPY_PEER_DEVICE_MISMATCH] = PW_OP_COPY,
    [PW_RULE_COPY_PEER_OUT_OF_BOUNDS] = PW_OP_COPY,
    [PW_RULE_COPY_PEER_NULL] = PW_OP_COPY,
    [PW_RULE_COPY_PEER_NO_PEER_ACCESS] = PW_OP_COPY,
    [PW_RULE_COPY_ACL_P2P_POLICY] = PW_OP_COPY,
    [PW_RULE_IPC_EXPORT_INTERIOR_POINTER] = PW_OP_IPC_EXPORT,
    [PW_RULE_IPC_EXPORT_MANAGED] = PW_OP_IPC_EXPORT,
    [PW_RULE_IPC_OPEN_SAME_PROCESS] = PW_OP_IPC_OPEN,
    [PW_RULE_IPC_OPEN_FLAGS] = PW_OP_IPC_OPEN,
    [PW_RULE_IPC_OPEN_TWICE] = PW_OP_IPC_OPEN,
    [PW_RULE_IPC_OPEN_STALE] = PW_OP_IPC_OPEN,
    [PW_RULE_IPC_CLOSE_UNKNOWN] = PW_OP_IPC_CLOSE,
    [PW_RULE_IPC_CLOSE_TWICE] = PW_OP_IPC_CLOSE,
    [PW_RULE_IPC_FREE_WHILE_OPEN] = PW_OP_FREE,
    [PW_RULE_IPC_LEAK] = PW_OP_EXIT,
    [PW_RULE_MANAGED_ALLOC_SIZE_ZERO] = PW_OP_ALLOC_MANAGED,
    [PW_RULE_MANAGED_ALLOC_GRANULARITY] = PW_OP_ALLOC_MANAGED,
    [PW_RULE_MANAGED_ALLOC_FLAGS] = PW_OP_ALLOC_MANAGED,
    [PW_RULE_MANAGED_ADVISE_NOT_MANAGED] = PW_OP_ADVISE,
    [PW_RULE_MANAGED_ADVISE_UNALIGNED] = PW_OP_ADVISE,
    [PW_RULE_MANAGED_ADVISE_OUT_OF_RANGE] = PW_OP_ADVISE,
    [PW_RULE_MANAGED_ADVISE_INVALID] = PW_OP_ADVISE,
    [PW_RULE_MANAGED_ADVISE_LOCATION] = PW_OP_ADVISE,
    [PW_RULE_MANAGED_PREFETCH_NOT_MANAGED] = PW_OP_PREFETCH,
    [PW_RULE_MANAGED_PREFETCH_INVALID_DEVICE] = PW_OP_PREFETCH,
    [PW_RULE_MANAGED_PREFETCH_LOCATION] = PW_OP_PREFETCH,
    [PW_RULE_MANAGED_PREFETCH_FLAGS] = PW_OP_PREFETCH,
    [PW_RULE_MANAGED_PREFETCH_OUT_OF_RANGE] = PW_OP_PREFETCH,
    [PW_RULE_MANAGED_RANGE_ATTR_DATA_SIZE] = PW_OP_RANGE_ATTR,
    [PW_RULE_MANAGED_RANGE_ATTR_INVALID] = PW_OP_RANGE_ATTR,
    [PW_RULE_MANAGED_RANGE_ATTR_NOT_MANAGED] = PW_OP_RANGE_ATTR,
    [PW_RULE_MANAGED_RANGE_ATTR_OUT_OF_RANGE] = PW_OP_RANGE_ATTR,
    [PW_RULE_MANAGED_ATTACH_LENGTH] = PW_OP_ATTACH,
    [PW_RULE_MANAGED_ATTACH_FLAGS] = PW_OP_ATTACH,
    [PW_RULE_MANAGED_ATTACH_NOT_MANAGED] = PW_OP_ATTACH,
    [PW_RULE_MANAGED_ATTACH_PORTABILITY] = PW_OP_ATTACH,
    [PW_RULE_COPY_ACL_KIND] = PW_OP_COPY,
    [PW_RULE_VMM_EXPORT_HANDLE_TYPE] = PW_OP_VMM_EXPORT,
    [PW_RULE_VMM_IMPORT_RELEASED] = PW_OP_VMM_IMPORT,
    [PW_RULE_VMM_COPY_NO_ACCESS] = PW_OP_COPY,
    [PW_RULE_VMM_LEAK] = PW_OP_VMM_EXIT,
    [PW_RULE_IPC_EXPORT_POOL_OR_VMM] = PW_OP_IPC_EXPORT,
};

const struct pw_rule_info pw_rules[PW_RULE_COUNT] = {PW_RULES(PW_RULE_INFO)};

static unsigned vendor_bit(int vendor)
{
	return 1u << vendor; /* PW_VENDOR_CUDA 0 -> PW_V_CUDA 1, HIP 1 -> 2, ACL 2 -> 4 */
}

/* The rules of each kind of call, so a call looks only at its own (bench/RESULTS.md). */
static int by_kind[PW_OP_KINDS][PW_RULE_COUNT], n_by_kind[PW_OP_KINDS];
static pthread_once_t by_kind_once = PTHREAD_ONCE_INIT;

static void index_kinds(void)
{
	for (int r = 0; r < PW_RULE_COUNT; r++)
		by_kind[kinds[r]][n_by_kind[kinds[r]]++] = r;
}

int pw_rules_check(const struct pw_state *s, const struct pw_op *op, pw_finding_sink sink, void *arg)
{
	char msg[640];
	int n = 0;
	pthread_once(&by_kind_once, index_kinds);
	if (op->kind <= PW_OP_NONE || op->kind >= PW_OP_KINDS)
		return 0;
	for (int i = 0; i < n_by_kind[op->kind]; i++) {
		int r = by_kind[op->kind][i];
		if (!(pw_rules[r].vendors & vendor_bit(op->vendor)))
			continue;
		msg[0] = 0;
		if (pw_rules[r].check(s, op, msg, sizeof msg)) {
			sink(arg, r, msg);
			n++;
		}
	}
	return n;
}

const char *pw_severity_name(int severity)
{
	static const char *const names[] = {"error", "warning", "performance"};
	return severity >= 0 && severity < 3 ? names[severity] : "?";
}

int pw_rule_by_id(const char *id)
{
	for (int r = 0; r < PW_RULE_COUNT; r++)
		if (!strcmp(pw_rules[r].id, id))
			return r;
	return -1;
}

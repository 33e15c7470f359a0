/* The catalog: the table's rows joined with each rule's function. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "peerwatch/rules_cites.h"
#include "rules/rules.h"

#define PW_RULE_INFO(name, id_, sev, vendors_, ops_, source_, summary_) \
	[PW_RULE_##name] = {.id = id_,                                  \
	                    .severity = sev,                            \
	                    .vendors = vendors_,                        \
	                    .ops = ops_,                                \
	                    .source = source_,                          \
	                    .summary = summary_,                        \
	                    .check = pw_rule_##name},

const struct pw_rule_info pw_rules[PW_RULE_COUNT] = {PW_RULES(PW_RULE_INFO)};

#define PW_RULE_CITE(name, v, doc, quote_, url_, runtime_, fix_) \
	{.rule = PW_RULE_##name,                                 \
	 .vendors = v,                                           \
	 .document = doc,                                        \
	 .quote = quote_,                                        \
	 .url = url_,                                            \
	 .runtime = runtime_,                                    \
	 .fix = fix_},
const struct pw_rule_cite pw_rule_cites[] = {PW_RULE_CITES(PW_RULE_CITE)};
const int pw_rule_ncites = (int)(sizeof pw_rule_cites / sizeof pw_rule_cites[0]);

static unsigned vendor_bit(int vendor)
{
	return 1u << vendor; /* PW_VENDOR_CUDA 0 -> PW_V_CUDA 1, HIP 1 -> 2, ACL 2 -> 4 */
}

/* The rules of each vendor's each kind of call, so that a call steps through
 * only those that apply to it: with one list per kind, a CUDA peer copy
 * stepped through 21 rules to call the 6 of CUDA's (bench/RESULTS.md). */
_Static_assert(PW_RULE_COUNT <= 255, "a rule's number fits a byte");
static uint8_t by_vk[PW_VENDOR_COUNT][PW_OP_KINDS][PW_RULE_COUNT], n_by_vk[PW_VENDOR_COUNT][PW_OP_KINDS];
static pthread_once_t by_vk_once = PTHREAD_ONCE_INIT;
static atomic_bool by_vk_ready; /* index_rules ran: no pthread_once call on every check */

static void index_rules(void)
{
	for (int v = 0; v < PW_VENDOR_COUNT; v++)
		for (int r = 0; r < PW_RULE_COUNT; r++)
			for (int k = 0; k < PW_OP_KINDS; k++)
				if ((pw_rules[r].ops & (1ull << k)) && (pw_rules[r].vendors & vendor_bit(v)))
					by_vk[v][k][n_by_vk[v][k]++] = (uint8_t)r;
	atomic_store_explicit(&by_vk_ready, true, memory_order_release);
}

int pw_rules_check(const struct pw_state *s, const struct pw_op *op, pw_finding_sink sink, void *arg)
{
	char msg[640];
	int n = 0;
	if (__builtin_expect(!atomic_load_explicit(&by_vk_ready, memory_order_acquire), 0))
		pthread_once(&by_vk_once, index_rules);
	if (op->kind <= PW_OP_NONE || op->kind >= PW_OP_KINDS || op->vendor < 0 ||
	    op->vendor >= PW_VENDOR_COUNT)
		return 0;
	const uint8_t *rules = by_vk[op->vendor][op->kind];
	const uint8_t *end = rules + n_by_vk[op->vendor][op->kind];
	for (; rules < end; rules++) {
		int r = *rules;
		msg[0] = 0;
		if (__builtin_expect(pw_rules[r].check(s, op, msg, sizeof msg), 0)) {
			sink(arg, r, msg);
			n++;
		}
	}
	return n;
}

const struct pw_rule_cite *pw_rule_cite(int rule, int vendor)
{
	for (int i = 0; i < pw_rule_ncites; i++)
		if (pw_rule_cites[i].rule == rule && (pw_rule_cites[i].vendors & vendor_bit(vendor)))
			return &pw_rule_cites[i];
	return NULL;
}

int pw_rule_by_id(const char *id)
{
	for (int r = 0; r < PW_RULE_COUNT; r++)
		if (!strcmp(pw_rules[r].id, id))
			return r;
	return -1;
}

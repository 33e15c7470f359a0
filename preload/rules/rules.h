/*
 * The contract rules: one pure function per row of the catalog
 * (include/peerwatch/rules_table.h), each a function of (state, op) that
 * says whether the call breaks its contract and, if so, why in one sentence.
 */
#ifndef PW_RULES_H
#define PW_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/op.h"
#include "peerwatch/rules_table.h"
#include "state/state.h"

typedef bool (*pw_rule_fn)(const struct pw_state *s, const struct pw_op *op, char *msg, size_t len);

struct pw_rule_info {
	const char *id;
	int severity; /* PW_SEV_* */
	unsigned vendors;
	uint64_t ops;                 /* the ops it looks at: PW_OPBIT set */
	const char *source, *summary; /* the documents, and what breaks the contract */
	pw_rule_fn check;
};

extern const struct pw_rule_info pw_rules[PW_RULE_COUNT];

/* A rule's words for one vendor (rules_cites.h): where its contract is
 * written, what that vendor's runtime does when it is broken, the fix. */
struct pw_rule_cite {
	int rule;         /* PW_RULE_* */
	unsigned vendors; /* PW_V_* */
	const char *document, *quote, *url, *runtime, *fix;
};
/* The words of rule for vendor (PW_VENDOR_*), or NULL if it has none. */
const struct pw_rule_cite *pw_rule_cite(int rule, int vendor);
/* Every cite, and how many. */
extern const struct pw_rule_cite pw_rule_cites[];
extern const int pw_rule_ncites;

#define PW_RULE_FN(name) \
	bool pw_rule_##name(const struct pw_state *s, const struct pw_op *op, char *msg, size_t len)
#define PW_RULE_DECL(name, id, sev, vendors, ops, source, summary) PW_RULE_FN(name);
PW_RULES(PW_RULE_DECL)

/* A device ordinal the call names that the process does not have (op->ndev
 * devices, when known); PW_NO_DEV (a context's device unknown) is not one. */
static inline bool pw_op_no_such_dev(const struct pw_op *op, int d)
{
	return d != PW_NO_DEV && (d < 0 || (op->ndev > 0 && d >= op->ndev));
}

typedef void (*pw_finding_sink)(void *arg, int rule, const char *msg);
/* Every rule that applies to op (its kind, in the rule's ops, and its vendor); returns how many fired. */
int pw_rules_check(const struct pw_state *s, const struct pw_op *op, pw_finding_sink sink, void *arg);

int pw_rule_by_id(const char *id); /* -1 if none */

#endif

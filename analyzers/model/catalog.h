/*
 * The rule catalog: the table the library checks with
 * (include/peerwatch/rules_table.h, one X-macro row per documented
 * contract), the rules this analyzer derives offline from the call events
 * (ipclife.h), and each vendor's words of a rule: its contract, what its
 * runtime does and the fix (include/peerwatch/rules_cites.h).  Built without the table, it holds
 * only the analyzer's own rules.  rules lists it; check and violations
 * describe their findings' rules from it (SARIF, JUnit, the contract).
 */
#ifndef PW_AN_CATALOG_H
#define PW_AN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* A rule's vendors: rules_table.h's PW_V_* bits. */
#define RULE_V_CUDA 0x1u
#define RULE_V_HIP 0x2u
#define RULE_V_ACL 0x4u

/* One rule: its strings are static, NULL when the catalog has none. */
struct rule_row {
	const char *id, *severity, *source, *summary;
	unsigned vendors;
	bool catalog, derived; /* checked online (the table), offline (the analyzer) */
	int table_severity;
};

/* Was the catalog built with rules_table.h (false: only derived rules)? */
bool catalog_has_table(void);
/* The table's rows, then the derived rules the table lacks (struct
 * rule_row); vec_free() it. */
struct vec catalog_rules(void);

/* One vendor's words for a rule (rules_cites.h). */
struct rule_cite {
	const char *rule;                   /* the rule's id */
	unsigned vendors;                   /* RULE_V_* */
	const char *document, *quote, *url; /* url: "" when none */
	const char *runtime, *fix;          /* what its runtime does, the fix */
};

/* A rule as the CI formats describe it, for one vendor. */
struct rule_desc {
	const char *severity, *summary, *source;
	bool cuda, hip, acl;
	bool has_words;         /* words is the vendor's (else only the rule is known) */
	struct rule_cite words; /* contract, runtime and fix in the vendor's words */
};
/* false for an id the catalog does not know; vendor ("cuda", "hip", "acl",
 * or NULL) picks whose words d->words holds. */
bool rule_describe(const char *id, const char *vendor, struct rule_desc *d);

/* How many there are (0 without the table), and the i-th, in the table's order. */
size_t catalog_ncites(void);
void catalog_cite(size_t i, struct rule_cite *c);

/* The vendor ("cuda", "hip", "acl") whose api this is, by its name; NULL
 * when none is (no api, "exit"). */
const char *catalog_vendor_of_api(const char *api);

/* The words of rule id for a finding of vendor ("cuda", "hip", "acl"): its
 * contract, what the runtime does and the fix, as that vendor says them;
 * false when that is not known (no vendor, a rule only the analyzer has). */
bool an_rule_words(const char *id, const char *vendor, struct rule_cite *c);

#endif

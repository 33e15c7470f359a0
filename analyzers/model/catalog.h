/*
 * The rule catalog: the table the library checks with
 * (include/peerwatch/rules_table.h, one X-macro row per documented
 * contract), the rules this analyzer derives offline from the call events
 * (ipclife.h), and each vendor's contract of a rule in its own words
 * (include/peerwatch/rules_cites.h).  Built without the table, it holds
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
	const char *id, *severity, *source, *runtime, *summary, *advice;
	unsigned vendors;
	bool catalog, derived; /* checked online (the table), offline (the analyzer) */
	int table_severity;
};

/* Was the catalog built with rules_table.h (false: only derived rules)? */
bool catalog_has_table(void);
/* The table's rows, then the derived rules the table lacks (struct
 * rule_row); vec_free() it. */
struct vec catalog_rules(void);

/* A rule as the CI formats describe it. */
struct rule_desc {
	const char *severity, *summary, *source, *runtime, *advice;
	bool cuda, hip, acl;
};
/* false for an id the catalog does not know. */
bool rule_describe(const char *id, struct rule_desc *d);

/* One vendor document's sentence for a rule (rules_cites.h). */
struct rule_cite {
	const char *rule;                   /* the rule's id */
	unsigned vendors;                   /* RULE_V_* */
	const char *document, *quote, *url; /* url: "" when none */
};
/* How many there are (0 without the table), and the i-th, in the table's order. */
size_t catalog_ncites(void);
void catalog_cite(size_t i, struct rule_cite *c);

/* The contract a finding of rule id on a call of api breaks, in the words of
 * the api's own vendor: false when that is not known (no api, a rule only
 * the analyzer has). */
bool an_rule_contract(const char *id, const char *api, const char **document, const char **quote,
                      const char **url);

#endif

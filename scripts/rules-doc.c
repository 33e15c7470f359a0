/*
 * Prints the rule catalog (include/peerwatch/rules_table.h) as markdown,
 * each vendor's contract, runtime and fix from rules_cites.h;
 * scripts/gen-rules-doc.sh adds an example report to each rule.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "peerwatch/derived_rules.h"
#include "peerwatch/rules_cites.h"
#include "peerwatch/rules_table.h"

/* Each vendor's words of a rule: its document, the sentence, the page,
 * what its runtime does, the fix. */
struct cite {
	int rule;
	unsigned vendors;
	const char *doc, *quote, *url, *runtime, *fix;
};
#define PW_DOC_RULE_ENUM(name, id, s, v, ops, source, summary) DOC_RULE_##name,
enum { PW_RULES(PW_DOC_RULE_ENUM) DOC_RULE_COUNT };
#define CITE(name, v, doc, quote, url, runtime, fix) {DOC_RULE_##name, v, doc, quote, url, runtime, fix},
static const struct cite cites[] = {PW_RULE_CITES(CITE)};

/* Where a rule is checked: by the library at the call (at exit for what is
 * left then), and for the rules peerwatch-analyze derives from the calls of
 * a run's traces, offline too. */
#define DERIVED_ID(id, sev, summary) id,
static const char *const derived[] = {PW_DERIVED_RULES(DERIVED_ID) NULL};

static void checked_row(const char *id, const char *vs)
{
	bool offline = false;
	for (const char *const *d = derived; *d && !offline; d++)
		offline = !strcmp(*d, id);
	printf("| checked | %s: by the library as the program runs%s |\n", vs,
	       offline ? "; and offline, by peerwatch-analyze from the calls in the run's traces "
	                 "(with the IPC registry off, or a process outside the run, too)"
	               : "");
}

/* Each vendor's contract, runtime and fix rows, in the vendors' order. */
static void vendor_words(int rule)
{
	static const struct {
		unsigned bit;
		const char *name;
	} all[] = {{PW_V_CUDA, "CUDA"}, {PW_V_HIP, "HIP"}, {PW_V_ACL, "ACL"}};
	for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
		for (size_t c = 0; c < sizeof cites / sizeof cites[0]; c++)
			if (cites[c].rule == rule && (cites[c].vendors & all[i].bit)) {
				printf("| contract (%s) | %s: \"%s\"", all[i].name, cites[c].doc,
				       cites[c].quote);
				if (*cites[c].url)
					printf(" ([reference](%s))", cites[c].url);
				printf(" |\n| runtime (%s) | %s |\n| fix (%s) | %s |\n", all[i].name,
				       cites[c].runtime, all[i].name, cites[c].fix);
			}
}

static const char *sev(int s)
{
	return s == PW_SEV_ERROR ? "error" : s == PW_SEV_WARNING ? "warning" : "performance";
}

static void vendors(unsigned v, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s%s%s", v & PW_V_CUDA ? "CUDA" : "",
	         (v & PW_V_CUDA) && (v & ~PW_V_CUDA) ? ", " : "", v & PW_V_HIP ? "HIP" : "",
	         (v & PW_V_HIP) && (v & PW_V_ACL) ? ", " : "", v & PW_V_ACL ? "ACL" : "");
}

/* The severity for each vendor the rule applies to: "CUDA: error, HIP: error".
 * A rule has one severity; where vendors' documents differ (HIP imposing
 * none of a CUDA contract) the rule is split, one row per severity. */
static void severities(int s, unsigned v, char *out, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} all[] = {{PW_V_CUDA, "CUDA"}, {PW_V_HIP, "HIP"}, {PW_V_ACL, "ACL"}};
	size_t n = 0;
	out[0] = 0;
	for (unsigned i = 0; i < sizeof all / sizeof all[0] && n < len; i++)
		if (v & all[i].bit)
			n += (size_t)snprintf(out + n, len - n, "%s%s: %s", n ? ", " : "", all[i].name,
			                      sev(s));
}

/* The ops of a rule, by their trace names: `peer_copy`, `implicit_copy`. */
static void op_names(unsigned long long ops, char *out, size_t len)
{
	size_t n = 0;
	out[0] = 0;
	for (int k = 1; k < PW_OP_KINDS; k++)
		if (ops & (1ull << k) && n < len)
			n += (size_t)snprintf(out + n, len - n, "%s`%s`", n ? ", " : "", pw_op_name(k));
}

#define ROW(name, id, s, v, ops, source, summary)                                                         \
	do {                                                                                              \
		char vs[32], ss[96];                                                                      \
		vendors(v, vs, sizeof vs);                                                                \
		severities(s, v, ss, sizeof ss);                                                          \
		char os[256];                                                                             \
		op_names(ops, os, sizeof os);                                                             \
		printf("## `%s`\n\n%c%s.\n\n| | |\n|---|---|\n| severity | %s |\n| vendors | %s |\n", id, \
		       toupper((unsigned char)summary[0]), summary + 1, ss, vs);                          \
		printf("| calls | %s |\n| documents | %s |\n", os, source);                               \
		checked_row(id, vs);                                                                      \
		vendor_words(DOC_RULE_##name);                                                            \
		printf("\n");                                                                             \
		printf("<!-- example %s -->\n\n", id);                                                    \
	} while (0);

/* rules-doc counts: how many rules, how many apply to each vendor, and how
 * many vendors' words there are (scripts/gen-counts-doc.sh puts them in the
 * README and the man pages). */
#define COUNT(name, id, s, v, ops, source, summary) \
	rules++;                                    \
	cuda += ((v)&PW_V_CUDA) != 0;               \
	hip += ((v)&PW_V_HIP) != 0;                 \
	acl += ((v)&PW_V_ACL) != 0;
static void counts(void)
{
	int rules = 0, cuda = 0, hip = 0, acl = 0;
	PW_RULES(COUNT)
	printf("rules %d\ncuda %d\nhip %d\nacl %d\nwords %d\n", rules, cuda, hip, acl,
	       (int)(sizeof cites / sizeof cites[0]));
}

/* The rules peerwatch-analyze alone derives (derived_rules.h rows that are
 * no row of the catalog): the library never sees what they read. */
#define CATALOG_ID(name, id, s, v, ops, source, summary) id,
static const char *const catalog_ids[] = {PW_RULES(CATALOG_ID) NULL};
#define DERIVED_ROW(id, sev, summary) {id, sev, summary},
static const struct {
	const char *id, *sev, *summary;
} derived_rows[] = {PW_DERIVED_RULES(DERIVED_ROW)};

static void derived_only(void)
{
	for (size_t d = 0; d < sizeof derived_rows / sizeof derived_rows[0]; d++) {
		bool in_catalog = false;
		for (const char *const *c = catalog_ids; *c && !in_catalog; c++)
			in_catalog = !strcmp(*c, derived_rows[d].id);
		if (in_catalog)
			continue;
		const char *sm = derived_rows[d].summary;
		printf("## `%s`\n\n%c%s.\n\n| | |\n|---|---|\n| severity | CUDA: %s |\n| vendors | CUDA |\n",
		       derived_rows[d].id, toupper((unsigned char)sm[0]), sm + 1, derived_rows[d].sev);
		printf("| checked | CUDA: offline only, by peerwatch-analyze (`managed --effects`, `check`, "
		       "`violations`, `report`) from the `um` events of a trace written with "
		       "`um_counters=1`, against the advice and prefetch calls |\n\n");
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "counts")) {
		counts();
		return 0;
	}
	PW_RULES(ROW)
	derived_only();
	return 0;
}

/*
 * The rule catalog (catalog.h): rules_table.h's rows and rules_cites.h's
 * sentences, with the rules ipclife.h derives offline.
 */
#include <string.h>

#include "model/catalog.h"
#include "model/ipclife.h"

#if defined(__has_include)
#if __has_include("peerwatch/rules_table.h")
#include "peerwatch/rules_cites.h"
#include "peerwatch/rules_table.h"
#define HAVE_RULES_TABLE 1
#endif
#endif

#ifdef HAVE_RULES_TABLE
_Static_assert(PW_V_CUDA == RULE_V_CUDA && PW_V_HIP == RULE_V_HIP && PW_V_ACL == RULE_V_ACL,
               "catalog.h's vendor bits are rules_table.h's");

/* The table's severities are numbers, most serious first. */
static const char *table_sev(int s)
{
	return s == PW_SEV_ERROR         ? "error"
	       : s == PW_SEV_WARNING     ? "warning"
	       : s == PW_SEV_PERFORMANCE ? "performance"
	                                 : "unknown";
}

#define ROW(name, id, sev, vendors, ops, source, runtime, summary, advice) \
	{id, NULL, source, runtime, summary, advice, vendors, true, false, sev},
static const struct rule_row catalog[] = {
    PW_RULES(ROW){NULL, NULL, NULL, NULL, NULL, NULL, 0, false, false, 0}};
#undef ROW

/* Each vendor's contract of a rule (rules_cites.h), by the rule's id. */
#define RULE_ID(name, id, sev, vendors, ops, source, runtime, summary, advice) [CITE_##name] = id,
#define RULE_ENUM(name, id, sev, vendors, ops, source, runtime, summary, advice) CITE_##name,
enum { PW_RULES(RULE_ENUM) CITE_COUNT };
static const char *const cite_rule[] = {PW_RULES(RULE_ID)};
#undef RULE_ID
#undef RULE_ENUM
static const struct {
	int rule;
	unsigned vendors;
	const char *document, *quote, *url;
} cites[] = {
#define CITE(name, v, doc, quote, url) {CITE_##name, v, doc, quote, url},
    PW_RULE_CITES(CITE)
#undef CITE
};
#else
static const struct rule_row catalog[] = {{NULL, NULL, NULL, NULL, NULL, NULL, 0, false, false, 0}};
static const char *table_sev(int s)
{
	(void)s;
	return "unknown";
}
#endif

bool catalog_has_table(void)
{
#ifdef HAVE_RULES_TABLE
	return true;
#else
	return false;
#endif
}

size_t catalog_ncites(void)
{
#ifdef HAVE_RULES_TABLE
	return sizeof cites / sizeof *cites;
#else
	return 0;
#endif
}

void catalog_cite(size_t i, struct rule_cite *c)
{
#ifdef HAVE_RULES_TABLE
	*c = (struct rule_cite){cite_rule[cites[i].rule], cites[i].vendors, cites[i].document, cites[i].quote,
	                        cites[i].url};
#else
	(void)i;
	*c = (struct rule_cite){NULL, 0, NULL, NULL, NULL};
#endif
}

bool an_rule_contract(const char *id, const char *api, const char **document, const char **quote,
                      const char **url)
{
#ifdef HAVE_RULES_TABLE
	unsigned want = !api                      ? 0
	                : !strncmp(api, "hip", 3) ? RULE_V_HIP
	                : !strncmp(api, "acl", 3) ? RULE_V_ACL
	                : !strncmp(api, "cu", 2)  ? RULE_V_CUDA
	                                          : 0;
	for (size_t i = 0; want && i < sizeof cites / sizeof *cites; i++) {
		if (!(cites[i].vendors & want) || strcmp(cite_rule[cites[i].rule], id))
			continue;
		*document = cites[i].document;
		*quote = cites[i].quote;
		*url = cites[i].url;
		return true;
	}
#else
	(void)id;
	(void)api;
#endif
	*document = *quote = *url = NULL;
	return false;
}

#define DERIVED_ROW(id, sev, summary) {id, sev, summary},
static const struct {
	const char *id, *severity, *summary;
} derived[] = {PW_DERIVED_RULES(DERIVED_ROW)};
#undef DERIVED_ROW

struct vec catalog_rules(void)
{
	struct vec v;
	vec_init(&v, sizeof(struct rule_row));
	for (size_t i = 0; catalog[i].id; i++) {
		struct rule_row *r = vec_push(&v);
		*r = catalog[i];
		r->severity = table_sev(catalog[i].table_severity);
	}
	for (size_t d = 0; d < sizeof derived / sizeof *derived; d++) {
		bool found = false;
		for (size_t i = 0; i < v.len; i++) {
			struct rule_row *r = vec_at(&v, i);
			if (!strcmp(r->id, derived[d].id))
				found = r->derived = true;
		}
		if (found)
			continue;
		struct rule_row *r = vec_push(&v);
		r->id = derived[d].id;
		r->severity = derived[d].severity;
		r->summary = derived[d].summary;
		r->vendors = RULE_V_CUDA;
		r->derived = true;
	}
	return v;
}

bool rule_describe(const char *id, struct rule_desc *d)
{
	struct vec v = catalog_rules();
	bool found = false;
	for (size_t i = 0; i < v.len && !found; i++) {
		const struct rule_row *r = vec_at(&v, i);
		if (strcmp(r->id, id))
			continue;
		found = true;
		*d = (struct rule_desc){r->severity,
		                        r->summary,
		                        r->source,
		                        r->runtime,
		                        r->advice,
		                        (r->vendors & RULE_V_CUDA) != 0,
		                        (r->vendors & RULE_V_HIP) != 0,
		                        (r->vendors & RULE_V_ACL) != 0};
	}
	vec_free(&v);
	return found;
}

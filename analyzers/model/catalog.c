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

#define ROW(name, id, sev, vendors, ops, source, summary) \
	{id, NULL, source, summary, vendors, true, false, sev},
static const struct rule_row catalog[] = {PW_RULES(ROW){NULL, NULL, NULL, NULL, 0, false, false, 0}};
#undef ROW

/* Each vendor's words of a rule (rules_cites.h), by the rule's id. */
#define RULE_ID(name, id, sev, vendors, ops, source, summary) [CITE_##name] = id,
#define RULE_ENUM(name, id, sev, vendors, ops, source, summary) CITE_##name,
enum { PW_RULES(RULE_ENUM) CITE_COUNT };
static const char *const cite_rule[] = {PW_RULES(RULE_ID)};
#undef RULE_ID
#undef RULE_ENUM
static const struct {
	int rule;
	unsigned vendors;
	const char *document, *quote, *url, *runtime, *fix;
} cites[] = {
#define CITE(name, v, doc, quote, url, runtime, fix) {CITE_##name, v, doc, quote, url, runtime, fix},
    PW_RULE_CITES(CITE)
#undef CITE
};
#else
static const struct rule_row catalog[] = {{NULL, NULL, NULL, NULL, 0, false, false, 0}};
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
	*c = (struct rule_cite){
	    cite_rule[cites[i].rule], cites[i].vendors, cites[i].document, cites[i].quote, cites[i].url,
	    cites[i].runtime,         cites[i].fix};
#else
	(void)i;
	*c = (struct rule_cite){NULL, 0, NULL, NULL, NULL, NULL, NULL};
#endif
}

const char *catalog_vendor_of_api(const char *api)
{
	return !api                      ? NULL
	       : !strncmp(api, "hip", 3) ? "hip"
	       : !strncmp(api, "acl", 3) ? "acl"
	       : !strncmp(api, "cu", 2)  ? "cuda"
	                                 : NULL;
}

bool an_rule_words(const char *id, const char *vendor, struct rule_cite *c)
{
	unsigned want = !vendor                   ? 0
	                : !strcmp(vendor, "hip")  ? RULE_V_HIP
	                : !strcmp(vendor, "acl")  ? RULE_V_ACL
	                : !strcmp(vendor, "cuda") ? RULE_V_CUDA
	                                          : 0;
	for (size_t i = 0; want && id && i < catalog_ncites(); i++) {
		catalog_cite(i, c);
		if ((c->vendors & want) && !strcmp(c->rule, id))
			return true;
	}
	*c = (struct rule_cite){NULL, 0, NULL, NULL, NULL, NULL, NULL};
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

bool rule_describe(const char *id, const char *vendor, struct rule_desc *d)
{
	struct vec v = catalog_rules();
	bool found = false;
	for (size_t i = 0; i < v.len && !found; i++) {
		const struct rule_row *r = vec_at(&v, i);
		if (strcmp(r->id, id))
			continue;
		found = true;
		*d = (struct rule_desc){.severity = r->severity,
		                        .summary = r->summary,
		                        .source = r->source,
		                        .cuda = (r->vendors & RULE_V_CUDA) != 0,
		                        .hip = (r->vendors & RULE_V_HIP) != 0,
		                        .acl = (r->vendors & RULE_V_ACL) != 0};
		d->has_words = an_rule_words(id, vendor, &d->words);
	}
	vec_free(&v);
	return found;
}

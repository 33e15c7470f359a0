/*
 * rules: the rule catalog — the same table the preload checks with
 * (include/peerwatch/rules_table.h, one X-macro row per documented
 * contract), marking the rules this analyzer also derives offline from the
 * call events (ipclife.h).  Built without the table, it lists only those.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ipclife.h"
#include "peerwatch/default_suppressions.h"
#include "table.h"

#if defined(__has_include)
#if __has_include("peerwatch/rules_table.h")
#include "peerwatch/rules_cites.h"
#include "peerwatch/rules_table.h"
#define HAVE_RULES_TABLE 1
#endif
#endif

struct rule_row {
	const char *id, *severity, *source, *runtime, *summary, *advice;
	unsigned vendors;
	bool catalog, derived;
	int table_severity;
};

#ifdef HAVE_RULES_TABLE
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
#define VENDOR_CUDA PW_V_CUDA
#define VENDOR_HIP PW_V_HIP
#define VENDOR_ACL PW_V_ACL
#else
static const struct rule_row catalog[] = {{NULL, NULL, NULL, NULL, NULL, NULL, 0, false, false, 0}};
static const char *table_sev(int s)
{
	(void)s;
	return "unknown";
}
#define VENDOR_CUDA 0x1
#define VENDOR_HIP 0x2
#define VENDOR_ACL 0x4
#endif

bool an_rule_contract(const char *id, const char *api, const char **document, const char **quote,
                      const char **url)
{
#ifdef HAVE_RULES_TABLE
	unsigned want = !api                      ? 0
	                : !strncmp(api, "hip", 3) ? VENDOR_HIP
	                : !strncmp(api, "acl", 3) ? VENDOR_ACL
	                : !strncmp(api, "cu", 2)  ? VENDOR_CUDA
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

/* The catalog's rows, then derived rules the catalog lacks. */
static struct vec all_rules(void)
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
		r->vendors = VENDOR_CUDA;
		r->derived = true;
	}
	return v;
}

bool rule_describe(const char *id, struct rule_desc *d)
{
	struct vec v = all_rules();
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
		                        (r->vendors & VENDOR_CUDA) != 0,
		                        (r->vendors & VENDOR_HIP) != 0,
		                        (r->vendors & VENDOR_ACL) != 0};
	}
	vec_free(&v);
	return found;
}

static void vendors_text(unsigned v, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", v & VENDOR_CUDA ? "cuda" : "",
	         v & VENDOR_CUDA && v & ~VENDOR_CUDA ? "," : "", v & VENDOR_HIP ? "hip" : "",
	         v & VENDOR_HIP && v & VENDOR_ACL ? "," : "", v & VENDOR_ACL ? "acl" : "");
}

static void print_text(const struct vec *v)
{
	struct table t;
	table_init(&t, "lllll", "RULE", "SEVERITY", "VENDORS", "CHECKED", "SUMMARY");
	for (size_t i = 0; i < v->len; i++) {
		const struct rule_row *r = vec_at(v, i);
		char vend[32];
		vendors_text(r->vendors, vend, sizeof vend);
		const char *where = r->catalog && r->derived ? "online+offline"
		                    : r->catalog             ? "online"
		                                             : "offline";
		table_row(&t, r->id, r->severity, vend, where, r->summary);
	}
	printf("%zu %s%s\n", v->len, plural(v->len, "rule", "rules"),
#ifdef HAVE_RULES_TABLE
	       ""
#else
	       " (built without include/peerwatch/rules_table.h: only the analyzer's own)"
#endif
	);
	if (v->len)
		table_print(&t, stdout, "");
	printf("\nonline: the preload checks it at the call; offline: peerwatch-analyze derives it from the\n"
	       "trace (ipc, check, violations).  --json adds each rule's documents, each vendor's contract\n"
	       "(the sentence and its reference page), the runtime's behaviour and the advice.\n");
	table_free(&t);
#ifdef HAVE_RULES_TABLE
	printf("\ncontracts, each in its vendor's own words:\n");
	for (size_t i = 0; i < sizeof cites / sizeof *cites; i++) {
		const char *vend = cites[i].vendors & VENDOR_CUDA  ? "cuda"
		                   : cites[i].vendors & VENDOR_HIP ? "hip"
		                                                   : "acl";
		printf("  %s (%s): %s: \"%s\"%s%s\n", cite_rule[cites[i].rule], vend, cites[i].document,
		       cites[i].quote, *cites[i].url ? " " : "", cites[i].url);
	}
#endif
}

/* The contracts of the rule with this id: [{vendor, document, quote, url}]. */
static json_t *contracts_json(const char *id)
{
	json_t *a = json_array();
#ifdef HAVE_RULES_TABLE
	for (size_t i = 0; i < sizeof cites / sizeof *cites; i++) {
		if (strcmp(cite_rule[cites[i].rule], id))
			continue;
		static const struct {
			unsigned bit;
			const char *name;
		} v[] = {{VENDOR_CUDA, "cuda"}, {VENDOR_HIP, "hip"}, {VENDOR_ACL, "acl"}};
		for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
			if (!(cites[i].vendors & v[k].bit))
				continue;
			json_t *c = json_object();
			json_object_set_new(c, "vendor", json_string(v[k].name));
			json_object_set_new(c, "document", json_string(cites[i].document));
			json_object_set_new(c, "quote", json_string(cites[i].quote));
			json_object_set_new(c, "url",
			                    *cites[i].url ? json_string(cites[i].url) : json_null());
			json_array_append_new(a, c);
		}
	}
#else
	(void)id;
#endif
	return a;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void print_json(const struct vec *v)
{
	json_t *doc = json_object(), *arr = json_array();
	for (size_t i = 0; i < v->len; i++) {
		const struct rule_row *r = vec_at(v, i);
		json_t *j = json_object(), *vend = json_array();
		if (r->vendors & VENDOR_CUDA)
			json_array_append_new(vend, json_string("cuda"));
		if (r->vendors & VENDOR_HIP)
			json_array_append_new(vend, json_string("hip"));
		if (r->vendors & VENDOR_ACL)
			json_array_append_new(vend, json_string("acl"));
		json_object_set_new(j, "id", json_string(r->id));
		json_object_set_new(j, "severity", json_string(r->severity));
		json_object_set_new(j, "vendors", vend);
		json_object_set_new(j, "online", json_boolean(r->catalog));
		json_object_set_new(j, "offline", json_boolean(r->derived));
		json_object_set_new(j, "summary", str_or_null(r->summary));
		json_object_set_new(j, "source", str_or_null(r->source));
		json_object_set_new(j, "contract", contracts_json(r->id));
		json_object_set_new(j, "runtime", str_or_null(r->runtime));
		json_object_set_new(j, "advice", str_or_null(r->advice));
		json_array_append_new(arr, j);
	}
	json_object_set_new(doc, "rules", arr);
	json_print(doc);
}

#define DEFAULT_SUPP_ROW(name, text, library, why) {name, text, library, why},
static const struct {
	const char *name, *text, *library, *why;
} default_supps[] = {PW_DEFAULT_SUPPRESSIONS(DEFAULT_SUPP_ROW)};
#define NDEFAULT_SUPPS (sizeof default_supps / sizeof *default_supps)

/* rules --suppressions: the default suppressions, each with its reason. */
static int print_suppressions(bool json)
{
	if (json) {
		json_t *doc = json_object(), *arr = json_array();
		for (size_t i = 0; i < NDEFAULT_SUPPS; i++) {
			json_t *j = json_object();
			json_object_set_new(j, "name", json_string(default_supps[i].name));
			json_object_set_new(j, "suppression", json_string(default_supps[i].text));
			json_object_set_new(j, "library", json_string(default_supps[i].library));
			json_object_set_new(j, "why", json_string(default_supps[i].why));
			json_array_append_new(arr, j);
		}
		json_object_set_new(doc, "default_suppressions", arr);
		json_print(doc);
		return EXIT_FINE;
	}
	printf("%zu default suppression%s: findings inside third-party libraries that the library leaves "
	       "out of its\nreports, counts in each trace footer (\"suppressed_default\") and marks on "
	       "their calls.\nOn by default; PEERWATCH_OPTIONS=default_suppressions=0 (peerwatch "
	       "--no-default-suppressions)\nreports them.\n",
	       NDEFAULT_SUPPS, NDEFAULT_SUPPS == 1 ? "" : "s");
	for (size_t i = 0; i < NDEFAULT_SUPPS; i++)
		printf("\n%s (%s)\n  %s\n  %s.\n", default_supps[i].name, default_supps[i].library,
		       default_supps[i].text, default_supps[i].why);
	return EXIT_FINE;
}

int cmd_rules(const struct pw_opts *o)
{
	if (o->suppressions)
		return print_suppressions(o->json);
	struct vec v = all_rules();
	if (o->json)
		print_json(&v);
	else
		print_text(&v);
	vec_free(&v);
	return EXIT_FINE;
}

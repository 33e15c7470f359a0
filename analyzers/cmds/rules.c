/*
 * rules: the rule catalog (catalog.h) — the same table the preload checks
 * with, marking the rules this analyzer also derives offline from the call
 * events.  Built without the table, it lists only those.
 */
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/show.h"
#include "base/table.h"
#include "cmds/cmds.h"
#include "model/catalog.h"
#include "peerwatch/default_suppressions.h"

static void vendors_text(unsigned v, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", v & RULE_V_CUDA ? "cuda" : "",
	         v & RULE_V_CUDA && v & ~RULE_V_CUDA ? "," : "", v & RULE_V_HIP ? "hip" : "",
	         v & RULE_V_HIP && v & RULE_V_ACL ? "," : "", v & RULE_V_ACL ? "acl" : "");
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
	       catalog_has_table()
	           ? ""
	           : " (built without include/peerwatch/rules_table.h: only the analyzer's own)");
	if (v->len)
		table_print(&t, stdout, "");
	printf("\nonline: the preload checks it at the call; offline: peerwatch-analyze derives it from the\n"
	       "trace (ipc, check, violations).  --json adds each rule's documents and, for each vendor,\n"
	       "its contract (the sentence and its reference page), what its runtime does and the fix.\n");
	table_free(&t);
	if (catalog_has_table())
		printf("\ncontracts, what the runtime does and the fix, each in its vendor's own words:\n");
	for (size_t i = 0; i < catalog_ncites(); i++) {
		struct rule_cite c;
		catalog_cite(i, &c);
		const char *vend = c.vendors & RULE_V_CUDA ? "cuda" : c.vendors & RULE_V_HIP ? "hip" : "acl";
		printf("  %s (%s): %s: \"%s\"%s%s\n    runtime: %s\n    fix: %s\n", c.rule, vend, c.document,
		       c.quote, *c.url ? " " : "", c.url, c.runtime, c.fix);
	}
}

/* Each vendor's words of the rule with this id: [{vendor, document, quote, url, runtime, fix}]. */
static json_t *contracts_json(const char *id)
{
	json_t *a = json_array();
	for (size_t i = 0; i < catalog_ncites(); i++) {
		struct rule_cite c;
		catalog_cite(i, &c);
		if (strcmp(c.rule, id))
			continue;
		static const struct {
			unsigned bit;
			const char *name;
		} v[] = {{RULE_V_CUDA, "cuda"}, {RULE_V_HIP, "hip"}, {RULE_V_ACL, "acl"}};
		for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
			if (!(c.vendors & v[k].bit))
				continue;
			json_t *j = json_object();
			json_object_set_new(j, "vendor", json_string(v[k].name));
			json_object_set_new(j, "document", json_string(c.document));
			json_object_set_new(j, "quote", json_string(c.quote));
			json_object_set_new(j, "url", *c.url ? json_string(c.url) : json_null());
			json_object_set_new(j, "runtime", json_string(c.runtime));
			json_object_set_new(j, "fix", json_string(c.fix));
			json_array_append_new(a, j);
		}
	}
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
		if (r->vendors & RULE_V_CUDA)
			json_array_append_new(vend, json_string("cuda"));
		if (r->vendors & RULE_V_HIP)
			json_array_append_new(vend, json_string("hip"));
		if (r->vendors & RULE_V_ACL)
			json_array_append_new(vend, json_string("acl"));
		json_object_set_new(j, "id", json_string(r->id));
		json_object_set_new(j, "severity", json_string(r->severity));
		json_object_set_new(j, "vendors", vend);
		json_object_set_new(j, "online", json_boolean(r->catalog));
		json_object_set_new(j, "offline", json_boolean(r->derived));
		json_object_set_new(j, "summary", str_or_null(r->summary));
		json_object_set_new(j, "source", str_or_null(r->source));
		json_object_set_new(j, "contract", contracts_json(r->id));
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
	struct vec v = catalog_rules();
	if (o->json)
		print_json(&v);
	else
		print_text(&v);
	vec_free(&v);
	return EXIT_FINE;
}

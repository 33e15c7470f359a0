/*
 * The trace format's tables (include/peerwatch/trace_format.h) as
 * markdown for docs/trace-format.md, or as the JSON Schema of a trace line
 * (docs/trace.schema.json).  scripts/gen-trace-doc.sh runs it.
 *
 *   trace-doc table SCOPE...   one markdown table per scope, its members in order
 *   trace-doc ops              the ops, as a markdown table
 *   trace-doc schema           the JSON Schema
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/trace_format.h"

#define SCOPE_ROW(id, path_, type_, title_) {#id, path_, type_, title_},
static const struct {
	const char *id, *path, *type, *title;
} scopes[] = {{"NONE", "", "", ""}, PW_TRACE_SCOPES(SCOPE_ROW)};

#define KIND_ROW(kind, doc_, schema_) {doc_, schema_},
static const struct {
	const char *doc, *schema;
} kinds[] = {PW_JSON_KINDS(KIND_ROW)};

static const struct pw_trace_field fields[] = {PW_TRACE_FIELDS(PW_TRACE_FIELD_INIT)};
#define NFIELDS (sizeof fields / sizeof *fields)

static int scope_by_id(const char *id)
{
	for (int s = 1; s < PW_SC_COUNT; s++)
		if (!strcmp(scopes[s].id, id))
			return s;
	fprintf(stderr, "trace-doc: no scope %s\n", id);
	exit(2);
}

/* Whether row i is the first of its key in its scope. */
static bool first_of_key(size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (fields[j].scope == fields[i].scope && !strcmp(fields[j].key, fields[i].key))
			return false;
	return true;
}

static void table(int scope)
{
	if (!scopes[scope].type[0])
		printf("Members of `%s` (%s):\n\n", scopes[scope].path, scopes[scope].title);
	printf("| member | type | meaning |\n|---|---|---|\n");
	for (size_t i = 0; i < NFIELDS; i++) {
		if (fields[i].scope != scope || !first_of_key(i))
			continue;
		printf("| `%s` | ", fields[i].key);
		for (size_t j = i, n = 0; j < NFIELDS; j++)
			if (fields[j].scope == scope && !strcmp(fields[j].key, fields[i].key))
				printf("%s%s", n++ ? ", or " : "", kinds[fields[j].kind].doc);
		printf(" | ");
		for (size_t j = i, n = 0; j < NFIELDS; j++)
			if (fields[j].scope == scope && !strcmp(fields[j].key, fields[i].key))
				printf("%s%s", n++ ? "; or " : "", fields[j].doc);
		if (fields[i].child != PW_SC_NONE)
			printf(" (its members: `%s`, below)", scopes[fields[i].child].path);
		printf(" |\n");
	}
}

static void ops(void)
{
	printf("| op | what a call of it does |\n|---|---|\n");
#define OP_ROW(name, str, when, doc) \
	if (!strcmp(#when, "CALL"))  \
		printf("| `%s` | %s |\n", str, doc);
	PW_OPS(OP_ROW)
#undef OP_ROW
}

/* A JSON string. */
static void jstr(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The schema of one value of field i, with the kind's own schema for a
 * scalar and a reference to the child scope for an object. */
static void value_schema(size_t i)
{
	const struct pw_trace_field *f = &fields[i];
	if (f->kind == PW_J_OBJECT)
		printf("{\"$ref\":\"#/$defs/%s\"}", scopes[f->child].path);
	else if (f->kind == PW_J_OBJECTS)
		printf("{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/%s\"}}", scopes[f->child].path);
	else
		printf("%s", kinds[f->kind].schema);
}

static void scope_schema(int scope)
{
	printf("    ");
	jstr(scopes[scope].path);
	printf(": {\n      \"type\": \"object\",\n      \"properties\": {\n");
	int n = 0;
	for (size_t i = 0; i < NFIELDS; i++) {
		if (fields[i].scope != scope || !first_of_key(i))
			continue;
		printf("%s        ", n++ ? ",\n" : "");
		jstr(fields[i].key);
		printf(": ");
		if (!strcmp(fields[i].key, "type") && scopes[scope].type[0]) {
			printf("{\"const\":");
			jstr(scopes[scope].type);
			printf("}");
			continue;
		}
		int alternatives = 0;
		for (size_t j = i; j < NFIELDS; j++)
			alternatives += fields[j].scope == scope && !strcmp(fields[j].key, fields[i].key);
		printf("{\"description\":");
		jstr(fields[i].doc);
		if (alternatives > 1) {
			printf(",\"anyOf\":[");
			for (size_t j = i, k = 0; j < NFIELDS; j++)
				if (fields[j].scope == scope && !strcmp(fields[j].key, fields[i].key)) {
					printf("%s", k++ ? "," : "");
					value_schema(j);
				}
			printf("]}");
		} else {
			printf(",\"allOf\":[");
			value_schema(i);
			printf("]}");
		}
	}
	printf("\n      },\n      \"required\": [");
	n = 0;
	for (size_t i = 0; i < NFIELDS; i++)
		if (fields[i].scope == scope && fields[i].presence == PW_REQ && first_of_key(i)) {
			printf("%s", n++ ? ", " : "");
			jstr(fields[i].key);
		}
	printf("]\n    }");
}

static void schema(void)
{
	printf("{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n");
	printf("  \"title\": \"peerwatch trace line, format %s version %d\",\n", PW_FORMAT_NAME,
	       PW_FORMAT_VERSION);
	printf("  \"description\": \"One line of a peerwatch trace (JSON Lines): the header, an event or the "
	       "footer, told apart by type. Generated from include/peerwatch/trace_format.h by "
	       "scripts/gen-trace-doc.sh; docs/trace-format.md says what each member means. Members "
	       "and event types not listed here may appear within a version and are to be ignored.\",\n");
	printf("  \"oneOf\": [\n");
	for (int s = 1; s < PW_SC_COUNT; s++)
		if (scopes[s].type[0]) {
			printf("    {\"$ref\": \"#/$defs/%s\"},\n", scopes[s].path);
		}
	printf("    {\"type\": \"object\", \"required\": [\"type\"], \"properties\": {\"type\": {\"type\": "
	       "\"string\", \"not\": {\"enum\": [");
	for (int s = 1, n = 0; s < PW_SC_COUNT; s++)
		if (scopes[s].type[0]) {
			printf("%s", n++ ? ", " : "");
			jstr(scopes[s].type);
		}
	printf("]}}}}\n  ],\n  \"$defs\": {\n");
	for (int s = 1; s < PW_SC_COUNT; s++) {
		scope_schema(s);
		printf("%s\n", s + 1 < PW_SC_COUNT ? "," : "");
	}
	printf("  }\n}\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "table")) {
		for (int i = 2; i < argc; i++) {
			if (i > 2)
				printf("\n");
			table(scope_by_id(argv[i]));
		}
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "ops")) {
		ops();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "schema")) {
		schema();
		return 0;
	}
	fprintf(stderr, "usage: trace-doc table SCOPE... | ops | schema\n");
	return 2;
}

/*
 * Every member of every line of the traces given, checked against the
 * trace format's table (include/peerwatch/trace_format.h), both ways:
 *
 * - a member the table does not list, a value of another kind than its
 *   row's, a member the table says every such object has but this one
 *   lacks: each is a problem, named with file, line and path;
 * - a row no trace used (except the RARE ones, which only the real
 *   runtimes lead to): a member the table promises and the library no
 *   longer writes, or that the traces given do not reach.
 *
 *   trace_keys FILE...      last line: "trace_keys: N passed, M failed"
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/trace_format.h"

#define SCOPE_ROW(id, path_, type_, title_) {path_, type_},
static const struct {
	const char *path, *type;
} scopes[] = {{"", ""}, PW_TRACE_SCOPES(SCOPE_ROW)};

#define KIND_ROW(kind, doc_, schema_) doc_,
static const char *const kind_names[] = {PW_JSON_KINDS(KIND_ROW)};

static const struct pw_trace_field fields[] = {PW_TRACE_FIELDS(PW_TRACE_FIELD_INIT)};
#define NFIELDS (sizeof fields / sizeof *fields)

static unsigned long seen[NFIELDS];
static unsigned long problems, checked;

static void problem(const char *file, long line, const char *path, const char *fmt, const char *a)
{
	if (++problems <= 50) {
		printf("not ok - %s:%ld: %s: ", file, line, path);
		printf(fmt, a);
		printf("\n");
	}
}

static bool hex_digits(const char *s, bool even)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return !even || n % 2 == 0;
}

static bool is_hex(const json_t *v)
{
	const char *s = json_string_value(v);
	return s && s[0] == '0' && s[1] == 'x' && s[2] && strlen(s + 2) <= 16 && hex_digits(s + 2, false);
}

static bool array_of(const json_t *v, bool (*ok)(const json_t *))
{
	size_t i;
	json_t *e;
	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e) if (!ok(e)) return false;
	return true;
}

static bool is_string(const json_t *v)
{
	return json_is_string(v);
}

static bool is_name_or_int(const json_t *v)
{
	return json_is_string(v) || json_is_integer(v);
}

static bool is_object(const json_t *v)
{
	return json_is_object(v);
}

static bool is_int_or_null(const json_t *v)
{
	return json_is_integer(v) || json_is_null(v);
}

static bool fits(int kind, const json_t *v)
{
	switch (kind) {
	case PW_J_STR: return json_is_string(v);
	case PW_J_STR_NULL:
	case PW_J_NAME: return json_is_string(v) || json_is_null(v);
	case PW_J_HEX: return is_hex(v);
	case PW_J_HEXBYTES: return json_is_string(v) && hex_digits(json_string_value(v), true);
	case PW_J_HEX128:
		return json_is_string(v) && json_string_length(v) == 128 &&
		       hex_digits(json_string_value(v), true);
	case PW_J_HEXBYTES_NULL:
		return json_is_null(v) || (json_is_string(v) && hex_digits(json_string_value(v), true));
	case PW_J_UINT: return json_is_integer(v) && json_integer_value(v) >= 0;
	case PW_J_INT: return json_is_integer(v);
	case PW_J_INT_NULL: return json_is_integer(v) || json_is_null(v);
	case PW_J_DEV:
		return json_is_null(v) || (json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
		                           json_integer_value(v) <= INT32_MAX);
	case PW_J_ORDINAL:
		return json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
		       json_integer_value(v) <= INT32_MAX;
	case PW_J_NAME_OR_INT: return is_name_or_int(v);
	case PW_J_INT_STR_NULL: return json_is_integer(v) || json_is_string(v) || json_is_null(v);
	case PW_J_BOOL: return json_is_boolean(v);
	case PW_J_NIL: return json_is_null(v);
	case PW_J_OBJECT: return json_is_object(v);
	case PW_J_OBJECTS: return array_of(v, is_object);
	case PW_J_STRS: return array_of(v, is_string);
	case PW_J_HEXES: return array_of(v, is_hex);
	case PW_J_NAMES: return array_of(v, is_name_or_int);
	case PW_J_INTS_NULL: return json_is_null(v) || array_of(v, is_int_or_null);
	}
	return false;
}

static void check_object(const char *file, long line, const char *where, int scope, json_t *obj);

static void check_member(const char *file, long line, const char *path, int scope, const char *key, json_t *v)
{
	int any = -1;
	checked++;
	for (size_t i = 0; i < NFIELDS; i++) {
		/* the library writes no shape that only earlier writers did */
		if (fields[i].scope != scope || strcmp(fields[i].key, key) != 0 ||
		    fields[i].presence == PW_OLD)
			continue;
		any = (int)i;
		if (!fits(fields[i].kind, v))
			continue;
		seen[i]++;
		if (fields[i].kind == PW_J_OBJECT) {
			check_object(file, line, path, fields[i].child, v);
		} else if (fields[i].kind == PW_J_OBJECTS) {
			size_t j;
			json_t *e;
			json_array_foreach(v, j, e)
			{
				char p[300];
				if (snprintf(p, sizeof p, "%s[%zu]", path, j) >= (int)sizeof p)
					p[sizeof p - 1] = 0; /* a path that long is still a path */
				check_object(file, line, p, fields[i].child, e);
			}
		}
		return;
	}
	if (any < 0)
		problem(file, line, path, "a member %s",
		        "the table does not list (add its row to trace_format.h)");
	else
		problem(file, line, path, "is not %s", kind_names[fields[any].kind]);
}

static void check_object(const char *file, long line, const char *where, int scope, json_t *obj)
{
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v)
	{
		char path[300];
		if (snprintf(path, sizeof path, "%s.%s", where, key) >= (int)sizeof path)
			path[sizeof path - 1] = 0;
		check_member(file, line, path, scope, key, v);
	}
	for (size_t i = 0; i < NFIELDS; i++)
		if (fields[i].scope == scope && fields[i].presence == PW_REQ &&
		    !json_object_get(obj, fields[i].key))
			problem(file, line, where, "lacks the member \"%s\" every such object has",
			        fields[i].key);
}

static void check_file(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t cap = 0;
	long line = 0;
	if (!f) {
		problem(file, 0, "", "%s", "cannot be read");
		return;
	}
	while (getline(&buf, &cap, f) > 0) {
		line++;
		json_error_t e;
		json_t *j = json_loads(buf, 0, &e);
		if (!j) {
			problem(file, line, "", "not JSON: %s", e.text);
			continue;
		}
		const char *type = json_string_value(json_object_get(j, "type"));
		int scope = PW_SC_NONE;
		for (int s = 1; type && s < PW_SC_COUNT; s++)
			if (scopes[s].type[0] && !strcmp(scopes[s].type, type))
				scope = s;
		if (scope == PW_SC_NONE)
			problem(file, line, "type", "an event type the table does not have: %s",
			        type ? type : "(none)");
		else
			check_object(file, line, scopes[scope].path, scope, j);
		json_decref(j);
	}
	free(buf);
	fclose(f);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		check_file(argv[i]);
	unsigned long unused = 0;
	for (size_t i = 0; i < NFIELDS; i++)
		if (!seen[i] && fields[i].presence != PW_RARE && fields[i].presence != PW_OLD) {
			unused++;
			printf("not ok - %s \"%s\" (%s): no trace has it; the library no longer writes it, "
			       "or the "
			       "corpus (tests/integration/trace_corpus.sh) does not reach it\n",
			       scopes[fields[i].scope].path, fields[i].key, kind_names[fields[i].kind]);
		}
	printf("trace_keys: %d files, %lu members checked against %zu rows\n", argc - 1, checked, NFIELDS);
	printf("trace_keys: %lu passed, %lu failed\n", checked - problems, problems + unused);
	return problems || unused || argc < 2 ? 1 : 0;
}

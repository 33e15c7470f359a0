/*
 * The library's options (the table of preload/core/options.c) as documents:
 *
 *   options-doc readme        README's markdown table
 *   options-doc man DETAILS   peerwatch(1)'s list: for each option its term,
 *                             default and help line, then the paragraph
 *                             between `.\" option KEY` and `.\" end option`
 *                             in DETAILS (the man page itself), if it has one
 *
 * scripts/gen-options-doc.sh runs it; make docs-test checks both lists.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pw.h"

/* options.c prints help=1 through the library's signal-safe writer (log.c),
 * which this generator does not link: a plain write does here. */
int pw_write_out(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

/* s for a markdown table cell: '|' escaped, '<' and '>' as entities. */
static void md(const char *s)
{
	for (; *s; s++)
		printf(*s == '|' ? "\\|" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : "%c", *s);
}

static void readme(void)
{
	const char *key, *values, *def, *help;
	printf("| key | values | default | what it does |\n|---|---|---|---|\n");
	for (size_t i = 0; pw_options_entry(i, &key, &values, &def, &help); i++) {
		printf("| `%s` | `", key);
		md(values);
		printf("` | %s%s%s | ", *def ? "`" : "", *def ? def : "none", *def ? "`" : "");
		md(help);
		printf(" |\n");
	}
}

/* roff text: '-' as \- and a leading '.' or '\'' guarded. */
static void roff(const char *s)
{
	if (*s == '.' || *s == '\'')
		printf("\\&");
	for (; *s; s++)
		printf(*s == '-' ? "\\-" : *s == '\\' ? "\\e" : "%c", *s);
}

/* The lines between `.\" option KEY` and `.\" end option` in the man page. */
static void detail(FILE *f, const char *key)
{
	char line[1024], mark[128];
	bool in = false;
	snprintf(mark, sizeof mark, ".\\\" option %s\n", key);
	rewind(f);
	while (fgets(line, sizeof line, f)) {
		if (in && !strcmp(line, ".\\\" end option\n"))
			return;
		if (in)
			fputs(line, stdout);
		else if (!strcmp(line, mark))
			in = true;
	}
}

static void man(FILE *f)
{
	const char *key, *values, *def, *help;
	for (size_t i = 0; pw_options_entry(i, &key, &values, &def, &help); i++) {
		printf(".TP\n");
		if (strchr(values, '|')) {
			printf(".BR %s= ", key);
			for (const char *v = values; *v; v++)
				printf(*v == '|' ? " | " : "%c", *v);
			printf("\n");
		} else {
			printf(".BI %s= ", key);
			roff(values);
			printf("\n");
		}
		if (*def) {
			printf("Default\n.BR ");
			roff(def);
			printf(" .\n");
		} else {
			printf("Default empty.\n");
		}
		printf("%c", help[0] >= 'a' && help[0] <= 'z' ? help[0] - 'a' + 'A' : help[0]);
		roff(help + 1);
		printf(".\n.\\\" option %s\n", key);
		detail(f, key);
		printf(".\\\" end option\n");
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "readme")) {
		readme();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "man")) {
		FILE *f = fopen(argv[2], "r");
		if (!f) {
			perror(argv[2]);
			return 1;
		}
		man(f);
		fclose(f);
		return 0;
	}
	fprintf(stderr, "usage: options-doc readme | man PEERWATCH.1\n");
	return 2;
}

/*
 * Prints the rule catalog (include/peerwatch/rules_table.h) as markdown;
 * scripts/gen-rules-doc.sh adds an example report to each rule.
 */
#include <ctype.h>
#include <stdio.h>

#include "peerwatch/rules_table.h"

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

#define ROW(name, id, s, v, source, runtime, summary, advice)                                             \
	do {                                                                                              \
		char vs[32];                                                                              \
		vendors(v, vs, sizeof vs);                                                                \
		printf("## `%s`\n\n%c%s.\n\n| | |\n|---|---|\n| severity | %s |\n| vendors | %s |\n", id, \
		       toupper((unsigned char)summary[0]), summary + 1, sev(s), vs);                      \
		printf("| contract | %s |\n| runtime | %s |\n| fix | %s |\n\n", source, runtime, advice); \
		printf("<!-- example %s -->\n\n", id);                                                    \
	} while (0);

int main(void)
{
	PW_RULES(ROW)
	return 0;
}

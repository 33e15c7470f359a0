/*
 * Suppressions: findings the user has said to leave out of the report, by
 * rule id, api and stack frames.  The file format is described at the top of
 * suppress.c and, with examples, in tests/suppressions.example.
 */
#ifndef PW_SUPPRESS_H
#define PW_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_SUPPRESS_MAX_ENTRIES 1000
#define PW_SUPPRESS_MAX_LINE 4096 /* bytes, without the newline */
#define PW_SUPPRESS_MAX_FRAMES 64 /* frame patterns in one stack= */

/*
 * Load a suppressions file (NULL or "": none) and, with_defaults, the
 * default suppressions after it, replacing what was loaded before.  Returns
 * 0, or -1 with "PATH:LINE: what is wrong" in err, LINE 0 when the file
 * cannot be opened or read at all (and what was loaded before is kept).
 * Allocates: call it at init.
 */
int pw_suppress_load(const char *path, bool with_defaults, char *err, size_t errlen);
/* Forget every suppression; only when no thread can be matching. */
void pw_suppress_free(void);

/*
 * True if a finding of rule `rule` in call `api` with these frames
 * (innermost first, the first one the caller of the API; names from
 * pw_stack_names, looked up only when an entry with stack= gets that far) is
 * suppressed; counts matches per entry.  No allocation, no lock of ours
 * (dladdr takes the loader's), time bounded by entries x 64 x 64 frame
 * matches; frames past PW_STACK_MAX are not looked at.
 */
bool pw_suppress_match(const char *rule, const char *api, const uintptr_t *ips, int n);
uint64_t pw_suppress_count(void);         /* findings suppressed so far */
uint64_t pw_suppress_count_default(void); /* of them, by the default suppressions */
void pw_suppress_reset_count(void);       /* a forked child counts its own: total and per entry to 0 */
/* The same with the frames' names given (func[i] "" if unknown, module[i] a basename): tests. */
bool pw_suppress_match_names(const char *rule, const char *api, const char *const *func,
                             const char *const *module, int n);

/* Whether any loaded entry has a stack= pattern (then a finding needs a stack to be matched). */
bool pw_suppress_wants_stack(void);
/* The same for the entries whose rule= matches this rule id. */
bool pw_suppress_wants_stack_for(const char *rule);
/* Entry i's default suppression name, NULL for an entry of the file (or past the last). */
const char *pw_suppress_entry_name(int i);
/* The default suppressions' table (peerwatch/default_suppressions.h): false past the last. */
bool pw_suppress_default(size_t i, const char **name, const char **text, const char **library,
                         const char **why);
/* For the footer: entry i (from 0) as written, its line and matches; false past the last. */
bool pw_suppress_entry(int i, const char **text, int *line, uint64_t *hits);

/* The glob of the file format: fnmatch(pattern, s, 0) without [:class:]; no allocation. */
bool pw_glob_match(const char *pattern, const char *s);

#endif

/*
 * The input of a command: the trace files its paths name, found and then
 * read once with the command's sinks (reader.h).
 */
#ifndef PW_AN_FILES_H
#define PW_AN_FILES_H

#include "base/opts.h"
#include "read/reader.h"

/* Collects trace files from files and directories (recursively: names ending
 * .pw.jsonl or .pw.jsonl.partial; a file named explicitly is taken whatever
 * its name).  Prints a message for each path it cannot use.  PW_READ_*. */
int pw_input_find(struct pw_input *in, char *const *paths, int npaths);
void pw_input_free(struct pw_input *in);

/* Is path one of the traces of in (the same file, by device and inode)?
 * A command that writes a file (-o) refuses to overwrite its input. */
bool pw_input_has(const struct pw_input *in, const char *path);

/* Finds and reads the input of o's paths once with these sinks; PW_READ_*. */
int an_read(const struct pw_opts *o, struct pw_input *in, struct pw_sink *sinks, size_t nsinks);
/* The exit code for a read's result when the report found nothing to fail. */
int an_exit(int read_status);

#endif

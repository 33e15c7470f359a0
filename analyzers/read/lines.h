/*
 * Reading a file line by line with a bound on the line length: a longer
 * line is skipped to its end without ever being held whole, so memory per
 * reader is fixed (PW_MAX_LINE plus one read) whatever the input.
 */
#ifndef PW_AN_LINES_H
#define PW_AN_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Longest line accepted; a header with a long module list is ~10 KiB, an
 * event at most 8 KiB (the writer drops longer ones). */
#define PW_MAX_LINE (1u << 20)

struct lines {
	int fd;
	char *buf;
	size_t cap, start, end; /* unread bytes are buf[start, end) */
	off_t buf_off;          /* file offset of buf[0] */
	off_t until;            /* reads stop here while short of it; -1: no such end */
	bool eof, err;
	uint64_t lineno; /* lines returned so far */
};

/* What next_line found. */
enum { L_LINE, L_LONG, L_TAIL, L_EOF, L_ERR };

/* Starts reading fd at offset `at` (where fd is positioned). */
void lines_open(struct lines *l, int fd, off_t at);
/* Reads no further than `until` while the bytes read are short of it: a
 * reader of one segment of a file, which ends at a line start, copies that
 * segment and not a whole buffer's worth after it.  Past `until` (a line
 * that crosses it, in a file changed meanwhile) reads go on as without. */
static inline void lines_until(struct lines *l, off_t until)
{
	l->until = until;
}
/* L_LINE: *line, *len is the next line without its newline.  L_LONG: a line
 * over the limit was skipped.  L_TAIL: the last line, without a newline. */
int next_line(struct lines *l, const char **line, size_t *len);
/* File offset of the next unread byte. */
static inline off_t lines_pos(const struct lines *l)
{
	return l->buf_off + (off_t)l->start;
}
void lines_free(struct lines *l);

#endif

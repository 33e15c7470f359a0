/*
 * Bounded line reading (lines.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "read/lines.h"

#define READ_CHUNK (256u << 10)

void lines_open(struct lines *l, int fd, off_t at)
{
	l->fd = fd;
	l->start = l->end = 0;
	l->buf_off = at;
	l->until = -1;
	l->eof = l->err = false;
	l->lineno = 0;
	if (!l->buf) {
		l->cap = PW_MAX_LINE + READ_CHUNK;
		l->buf = xmalloc(l->cap);
	}
}

void lines_free(struct lines *l)
{
	free(l->buf);
	l->buf = NULL;
}

/* Moves the unread bytes to the front and reads more after them. */
static bool fill(struct lines *l)
{
	if (l->start) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->buf_off += (off_t)l->start;
		l->end -= l->start;
		l->start = 0;
	}
	size_t want = l->cap - l->end;
	off_t left = l->until - (l->buf_off + (off_t)l->end);
	if (left > 0 && (uint64_t)left < want)
		want = (size_t)left;
	for (;;) {
		ssize_t n = read(l->fd, l->buf + l->end, want);
		if (n > 0) {
			l->end += (size_t)n;
			return true;
		}
		if (n == 0) {
			l->eof = true;
			return false;
		}
		if (errno != EINTR) {
			l->err = true;
			return false;
		}
	}
}

/* Drops a too-long line: everything buffered, then reads to its newline. */
static int skip_long(struct lines *l)
{
	l->lineno++;
	for (;;) {
		l->buf_off += (off_t)l->end;
		l->start = l->end = 0;
		if (!fill(l))
			return l->err ? L_ERR : L_LONG;
		char *nl = memchr(l->buf, '\n', l->end);
		if (nl) {
			l->start = (size_t)(nl - l->buf) + 1;
			return L_LONG;
		}
	}
}

int next_line(struct lines *l, const char **line, size_t *len)
{
	for (;;) {
		char *nl = memchr(l->buf + l->start, '\n', l->end - l->start);
		if (nl) {
			*line = l->buf + l->start;
			*len = (size_t)(nl - *line);
			l->start = (size_t)(nl - l->buf) + 1;
			l->lineno++;
			return *len > PW_MAX_LINE ? L_LONG : L_LINE;
		}
		if (l->end - l->start > PW_MAX_LINE)
			return skip_long(l);
		if (l->eof || !fill(l)) {
			if (l->err)
				return L_ERR;
			if (l->start == l->end)
				return L_EOF;
			*line = l->buf + l->start;
			*len = l->end - l->start;
			l->start = l->end;
			l->lineno++;
			return L_TAIL;
		}
	}
}

/*
 * Finding trace files (files.h, pw_input_find): the paths given, and the
 * trace files under directories, each file once, sorted by path; and a
 * command's one read of them (an_read).
 */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/files.h"
#include "read/trace.h"

struct found {
	char *path;
	dev_t dev;
	ino_t ino;
};

static struct vec *walk_out; /* nftw has no user pointer; find runs single-threaded */

static bool trace_name(const char *name)
{
	size_t n = strlen(name);
	static const char a[] = ".pw.jsonl", b[] = ".pw.jsonl.partial";
	return (n >= sizeof a - 1 && !strcmp(name + n - (sizeof a - 1), a)) ||
	       (n >= sizeof b - 1 && !strcmp(name + n - (sizeof b - 1), b));
}

static void add_found(struct vec *out, const char *path, const struct stat *st)
{
	for (size_t i = 0; i < out->len; i++) {
		struct found *f = vec_at(out, i);
		if (f->dev == st->st_dev && f->ino == st->st_ino)
			return; /* named twice, or a directory given with a file in it */
	}
	struct found *f = vec_push(out);
	f->path = xstrdup(path);
	f->dev = st->st_dev;
	f->ino = st->st_ino;
}

/* Why an entry named like a trace is not read, or NULL: only regular files
 * are (a FIFO would block the read until a writer came, a device or a
 * socket is no trace), and links are not followed inside a directory. */
static const char *not_read_why(int type, const struct stat *st)
{
	if (type == FTW_SL || type == FTW_SLN)
		return "a symbolic link (links are not followed in a directory: name the file itself to read "
		       "it)";
	if (type != FTW_F || S_ISREG(st->st_mode))
		return NULL;
	if (S_ISFIFO(st->st_mode))
		return "a FIFO, not a file (reading it would wait for a writer)";
	if (S_ISSOCK(st->st_mode))
		return "a socket, not a file";
	return "a device, not a file";
}

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	bool named = trace_name(base_name(path));
	const char *why = named ? not_read_why(type, st) : NULL;
	if (named && type == FTW_F && S_ISREG(st->st_mode))
		add_found(walk_out, path, st);
	if (why) {
		char *p = sanitize(path);
		fprintf(stderr, "peerwatch-analyze: %s: skipped: %s\n", p, why);
		free(p);
	}
	if (type == FTW_DNR) {
		char *p = sanitize(path);
		fprintf(stderr, "peerwatch-analyze: %s: cannot read this directory\n", p);
		free(p);
	}
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct found *)a)->path, ((const struct found *)b)->path);
}

int pw_input_find(struct pw_input *in, char *const *paths, int npaths)
{
	struct vec found;
	int status = PW_READ_OK;
	vec_init(&found, sizeof(struct found));
	for (int i = 0; i < npaths; i++) {
		struct stat st;
		char *p = sanitize(paths[i]);
		if (stat(paths[i], &st)) {
			fprintf(stderr, "peerwatch-analyze: %s: %s\n", p, strerror(errno));
			status = PW_READ_BAD_INPUT;
		} else if (S_ISDIR(st.st_mode)) {
			walk_out = &found;
			/* FTW_PHYS: a symbolic link loop cannot make the walk endless */
			if (nftw(paths[i], walk_one, 32, FTW_PHYS)) {
				fprintf(stderr, "peerwatch-analyze: %s: %s\n", p, strerror(errno));
				status = PW_READ_BAD_INPUT;
			}
		} else if (S_ISREG(st.st_mode)) {
			add_found(&found, paths[i], &st);
		} else {
			fprintf(stderr, "peerwatch-analyze: %s: not a file or a directory\n", p);
			status = PW_READ_BAD_INPUT;
		}
		free(p);
	}
	vec_sort(&found, by_path);
	in->n = found.len;
	in->files = xcalloc(found.len, sizeof *in->files);
	for (size_t i = 0; i < found.len; i++) {
		struct pw_file *f = &in->files[i];
		f->path = ((struct found *)vec_at(&found, i))->path;
		f->index = i;
		f->partial = strlen(f->path) > 8 && !strcmp(f->path + strlen(f->path) - 8, ".partial");
		vec_init(&f->modules, sizeof(struct pw_module));
		vec_init(&f->devices, sizeof(struct pw_device));
	}
	vec_free(&found);
	if (!in->n && status == PW_READ_OK) {
		fprintf(stderr, "peerwatch-analyze: no trace files (*.pw.jsonl, *.pw.jsonl.partial) found\n");
		status = PW_READ_BAD_INPUT;
	}
	return status;
}

void pw_input_free(struct pw_input *in)
{
	for (size_t i = 0; i < in->n; i++) {
		pw_file_clear(&in->files[i]);
		vec_free(&in->files[i].modules);
		pw_devices_free(&in->files[i].devices);
		free(in->files[i].path);
	}
	free(in->files);
	in->files = NULL;
	in->n = 0;
}

int an_read(const struct pw_opts *o, struct pw_input *in, struct pw_sink *sinks, size_t nsinks)
{
	int found = pw_input_find(in, o->paths, o->npaths);
	if (!in->n)
		return found;
	struct pw_read_opts ro = {.jobs = o->jobs, .strict = o->strict, .progress = o->progress};
	int r = pw_input_read(in, &ro, sinks, nsinks);
	return r > found ? r : found;
}

int an_exit(int read_status)
{
	return read_status == PW_READ_OK ? EXIT_FINE : EXIT_BAD;
}

bool pw_input_has(const struct pw_input *in, const char *path)
{
	struct stat out, st;
	if (stat(path, &out))
		return false;
	for (size_t i = 0; i < in->n; i++)
		if (!stat(in->files[i].path, &st) && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
			return true;
	return false;
}

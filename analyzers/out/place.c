/*
 * Where a finding is placed (place.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/procs.h"
#include "out/place.h"

/* Frames in these modules are not the program's own: the C and C++
 * runtimes, the dynamic loader, the vendor runtimes and libraries built on
 * them that a user does not write, and peerwatch.  Matched on the start of
 * the file name. */
static const char *const not_own[] = {
    "libpeerwatch.so", "libcuda.so", "libcudart.so", "libamdhip64.so", "libascendcl.so", "libnccl.so",
    "librccl.so",      "libhccl.so", "libc.so",      "libc-",          "ld-linux",       "ld64.so",
    "libpthread.so",   "libdl.so",   "libstdc++.so", "libgcc_s.so",    "linux-vdso.so",  "libm.so",
};

static bool own_module(const char *path)
{
	const char *b = base_name(path);
	for (size_t i = 0; i < sizeof not_own / sizeof *not_own; i++)
		if (!strncmp(b, not_own[i], strlen(not_own[i])))
			return false;
	return true;
}

/* ---- paths ---------------------------------------------------------------- */

/* An absolute path without "." and ".." components or repeated slashes. */
static char *norm_path(const char *p)
{
	size_t n = strlen(p);
	char *out = xmalloc(n + 2);
	size_t o = 0;
	while (*p) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = 0;
	return out;
}

/* path relative to root when it lies under it, else NULL. */
const char *under_root(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return path[1] ? path + 1 : NULL;
	if (!strncmp(path, root, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return NULL;
}

/* ---- where a finding is ------------------------------------------------ */

/* A frame's source file: absolute when the file or its compile unit's
 * directory is; relative (to the source root, as with
 * -fdebug-prefix-map=DIR=.) when both are relative; NULL without line
 * information or when a relative path climbs out of its directory. */
char *frame_source(const struct sym_frame *fr)
{
	if (!fr->file)
		return NULL;
	if (fr->file[0] == '/')
		return norm_path(fr->file);
	char *j = fr->comp_dir ? xasprintf("%s/%s", fr->comp_dir, fr->file) : xasprintf("/%s", fr->file);
	char *n = norm_path(j);
	free(j);
	if (fr->comp_dir)
		return n;
	/* a relative path must not climb out of its directory */
	int depth = 0;
	for (const char *c = fr->file; *c && depth >= 0;) {
		size_t len = strcspn(c, "/");
		depth += len == 2 && !strncmp(c, "..", 2) ? -1 : len && !(len == 1 && *c == '.') ? 1 : 0;
		c += len + (c[len] == '/');
	}
	if (depth < 0) {
		free(n);
		return NULL;
	}
	memmove(n, n + 1, strlen(n));
	return n;
}

/* The program's executable, where the header's first module names it (the
 * library lists the program first), else the trace itself: absolute. */
static char *program_path(const struct pw_file *f)
{
	if (f->modules.len) {
		const struct pw_module *m = vec_at(&f->modules, 0);
		if (m->path && m->path[0] == '/')
			return norm_path(m->path);
	}
	char *abs = realpath(f->path, NULL);
	return abs ? abs : xstrdup(f->path);
}

void place_of(struct symbolizer *sym, const struct pw_file *f, const struct finding *fd, struct place *p)
{
	memset(p, 0, sizeof *p);
	int best = 0; /* 3: own frame with a source line; 2: own frame; 1: any frame */
	for (size_t i = 0; i < fd->nstack && best < 3; i++) {
		struct sym_frame fr;
		sym_lookup(sym, &f->modules, fd->stack[i], &fr);
		bool own = fr.module && own_module(fr.module);
		char *src = frame_source(&fr);
		int rank = own && src ? 3 : own ? 2 : 1;
		free(src);
		if (rank > best) {
			if (p->have)
				sym_frame_free(&p->fr);
			p->fr = fr;
			p->have = true;
			p->index = i;
			best = rank;
		} else {
			sym_frame_free(&fr);
		}
	}
	if (p->have && (p->path = frame_source(&p->fr)))
		p->line = p->fr.line;
	else if (p->have && p->fr.module)
		p->path = xstrdup(p->fr.module);
	else
		p->path = program_path(f);
}

void place_free(struct place *p)
{
	if (p->have)
		sym_frame_free(&p->fr);
	free(p->path);
}

/* The path as a person reads it: relative to the root when under it. */
const char *shown_path(const char *path, const char *root)
{
	const char *rel = path[0] == '/' ? under_root(path, root) : NULL;
	return rel ? rel : path;
}

/* "program[pid] on host, call 12 cuMemcpyPeer" or "..., at exit" */
char *where_text(const struct finding *fd, const struct pw_file *f)
{
	char *label = proc_label(f), *host = sanitize(f->host ? f->host : "?"),
	     *api = sanitize(fd->api ? fd->api : "?"), *s;
	if (fd->has_call)
		s = xasprintf("%s on %s, call %llu %s", label, host, (unsigned long long)fd->call, api);
	else
		s = xasprintf("%s on %s, at exit (%s)", label, host, api);
	free(label);
	free(host);
	free(api);
	return s;
}

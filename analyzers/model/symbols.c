/*
 * Offline symbolization with libelf and libdw (symbols.h).
 *
 * One Dwfl per distinct module file (path + build id), loaded at base 0, is
 * shared by every process that loaded that file: an address is looked up as
 * pc - base, so ASLR does not multiply the work.
 */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/symbols.h"
#include "read/trace.h"

struct modfile {
	bool usable;
	const char *why; /* when not usable */
	uint64_t lo, hi; /* extent of the PT_LOAD segments (file addresses) */
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

struct symbolizer {
	struct hmap files; /* path "\0" build id -> struct modfile */
};

/* Opens a file a trace names (a module, or its debug file) only if it is a
 * regular file: a FIFO or a device there would block the open or the read
 * for ever.  -1 with errno set otherwise. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* Does the ELF file at fd carry this GNU build id (none wanted: yes)? */
static bool fd_has_build_id(int fd, const unsigned char *id, int n)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *got;
	ssize_t gn = elf ? dwelf_elf_gnu_build_id(elf, &got) : -1;
	bool ok = elf && elf_kind(elf) == ELF_K_ELF && (n <= 0 || (gn == n && !memcmp(got, id, (size_t)n)));
	if (elf)
		elf_end(elf);
	return ok;
}

/* The separate debug file of a module, where the GNU tools put it: by build
 * id under /usr/lib/debug/.build-id, or by its .gnu_debuglink name beside
 * the module, in its .debug directory, or under /usr/lib/debug.  Each
 * candidate is opened only if it is a regular file with the module's build
 * id (libdwfl's own search opens whatever it finds). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink, GElf_Word crc, char **found)
{
	(void)userdata;
	(void)modname;
	(void)base;
	(void)crc;
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	char *cand[5] = {NULL};
	size_t k = 0;
	if (n > 1) {
		char hx[2 * 64 + 1] = "";
		for (int i = 1; i < n && i < 64; i++)
			snprintf(hx + 2 * (i - 1), 3, "%02x", id[i]);
		cand[k++] = xasprintf("/usr/lib/debug/.build-id/%02x/%s.debug", id[0], hx);
	}
	if (debuglink && *debuglink && !strchr(debuglink, '/') && file_name) {
		const char *slash = strrchr(file_name, '/');
		int dl = slash ? (int)(slash - file_name) : 1;
		const char *dir = slash ? file_name : ".";
		cand[k++] = xasprintf("%.*s/%s", dl, dir, debuglink);
		cand[k++] = xasprintf("%.*s/.debug/%s", dl, dir, debuglink);
		cand[k++] = xasprintf("/usr/lib/debug/%.*s/%s", dl, dir, debuglink);
	}
	int fd = -1;
	for (size_t i = 0; i < k; i++) {
		if (fd < 0 && (!file_name || strcmp(cand[i], file_name))) {
			fd = open_regular(cand[i]);
			if (fd >= 0 && !fd_has_build_id(fd, id, n)) {
				close(fd);
				fd = -1;
			}
			if (fd >= 0) {
				*found = cand[i];
				cand[i] = NULL;
			}
		}
		free(cand[i]);
	}
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

struct symbolizer *sym_new(void)
{
	struct symbolizer *s = xcalloc(1, sizeof *s);
	hmap_init(&s->files);
	elf_version(EV_CURRENT);
	return s;
}

static void modfile_free(void *p)
{
	struct modfile *m = p;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m);
}

void sym_free(struct symbolizer *s)
{
	if (!s)
		return;
	hmap_free(&s->files, modfile_free);
	free(s);
}

/* Does the file's GNU build id match the trace's (hex)?  A side that has
 * none cannot be checked, and is taken as matching. */
static bool build_id_matches(Elf *elf, const char *want)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	if (!want || n <= 0)
		return true;
	if (strlen(want) != (size_t)n * 2)
		return false;
	for (ssize_t i = 0; i < n; i++) {
		char hx[3];
		snprintf(hx, sizeof hx, "%02x", ((const unsigned char *)id)[i]);
		if (strncasecmp(hx, want + i * 2, 2))
			return false;
	}
	return true;
}

static bool load_extent(Elf *elf, struct modfile *m)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return false;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!any || ph.p_vaddr < m->lo)
			m->lo = ph.p_vaddr;
		if (!any || ph.p_vaddr + ph.p_memsz > m->hi)
			m->hi = ph.p_vaddr + ph.p_memsz;
		any = true;
	}
	return any;
}

/* Opens and checks one module file; the result says whether it can be used. */
static void modfile_load(struct modfile *m, const struct pw_module *pm)
{
	int fd = open_regular(pm->path);
	if (fd < 0) {
		m->why = errno == EINVAL ? "not a regular file" : "file not found";
		return;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (!ok)
		m->why = "not an ELF file";
	else if (!build_id_matches(elf, pm->build_id))
		m->why = "build id differs", ok = false;
	else if (!load_extent(elf, m))
		m->why = "no loadable segments", ok = false;
	if (elf)
		elf_end(elf);
	m->dwfl = ok ? dwfl_begin(&callbacks) : NULL;
	if (!m->dwfl) {
		close(fd);
		return;
	}
	dwfl_report_begin(m->dwfl);
	/* the file checked above, not whatever is at its path by now (libdwfl takes the fd) */
	m->mod = dwfl_report_elf(m->dwfl, base_name(pm->path), pm->path, fd, 0, false);
	if (!m->mod)
		close(fd); /* consumed only on success */
	dwfl_report_end(m->dwfl, NULL, NULL);
	m->usable = m->mod != NULL;
	if (!m->usable)
		m->why = "unreadable ELF file";
}

static struct modfile *modfile_get(struct symbolizer *s, const struct pw_module *pm)
{
	size_t plen = strlen(pm->path), blen = pm->build_id ? strlen(pm->build_id) : 0;
	char *key = xmalloc(plen + blen + 2);
	memcpy(key, pm->path, plen + 1);
	if (blen)
		memcpy(key + plen + 1, pm->build_id, blen);
	key[plen + 1 + blen] = 0;
	struct modfile **slot = (struct modfile **)hmap_put(&s->files, key, plen + blen + 1);
	free(key);
	if (!*slot) {
		*slot = xcalloc(1, sizeof **slot);
		modfile_load(*slot, pm);
	}
	return *slot;
}

/* The module holding pc: the one whose segments contain it, else (files we
 * could not read) the nearest base below it. */
static const struct pw_module *find_module(struct symbolizer *s, const struct vec *mods, uint64_t pc,
                                           struct modfile **mf)
{
	const struct pw_module *near = NULL;
	*mf = NULL;
	for (size_t i = 0; i < mods->len; i++) {
		const struct pw_module *pm = vec_at(mods, i);
		struct modfile *m = modfile_get(s, pm);
		if (m->usable) {
			if (pc >= pm->base + m->lo && pc < pm->base + m->hi) {
				*mf = m;
				return pm;
			}
			continue;
		}
		if (pm->base <= pc && (!near || pm->base > near->base))
			near = pm;
	}
	if (near)
		*mf = modfile_get(s, near);
	return near;
}

/* The compile unit's DW_AT_comp_dir, or NULL. */
static const char *comp_dir_of(Dwarf_Die *cu)
{
	Dwarf_Attribute at;
	return cu && dwarf_attr(cu, DW_AT_comp_dir, &at) ? dwarf_formstring(&at) : NULL;
}

/* The source line of addr, and the directory of its compile unit.  dwfl
 * finds the compile unit through .debug_aranges, which clang does not write
 * by default; without it, the compile units are searched for the one whose
 * ranges hold addr. */
static const char *source_line(Dwfl_Module *mod, Dwarf_Addr addr, int *lineno, const char **comp_dir)
{
	Dwarf_Addr bias;
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	if (line) {
		*comp_dir = comp_dir_of(dwfl_module_addrdie(mod, addr, &bias));
		return dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
	}
	for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(mod, cu, &bias));) {
		if (dwarf_haspc(cu, addr - bias) <= 0)
			continue;
		Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - bias);
		if (!dl || dwarf_lineno(dl, lineno))
			return NULL;
		*comp_dir = comp_dir_of(cu);
		return dwarf_linesrc(dl, NULL, NULL);
	}
	return NULL;
}

static void lookup_in(struct modfile *m, uint64_t addr, struct sym_frame *fr)
{
	/* a return address points after the call: look up the call itself */
	uint64_t at = addr ? addr - 1 : 0;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, at, &off, &sym, NULL, NULL, NULL);
	if (name) {
		/* "__libc_start_main@@GLIBC_2.34": the version is noise here */
		fr->func = xstrndup(name, strcspn(name, "@"));
		fr->func_off = off + (addr - at);
	}
	int lineno = 0;
	const char *cdir = NULL;
	const char *src = source_line(m->mod, at, &lineno, &cdir);
	if (src && lineno > 0) {
		fr->file = xstrdup(src);
		fr->line = lineno;
		if (src[0] != '/' && cdir && cdir[0] == '/')
			fr->comp_dir = xstrdup(cdir);
	}
}

void sym_lookup(struct symbolizer *s, const struct vec *modules, uint64_t pc, struct sym_frame *fr)
{
	memset(fr, 0, sizeof *fr);
	fr->pc = pc;
	struct modfile *m;
	const struct pw_module *pm = find_module(s, modules, pc, &m);
	if (!pm)
		return;
	fr->module = pm->path;
	fr->module_off = pc - pm->base;
	if (m->usable)
		lookup_in(m, pc - pm->base, fr);
	else
		fr->note = m->why;
}

char *sym_format(const struct sym_frame *fr)
{
	if (!fr->module)
		return xasprintf("0x%llx [?]", (unsigned long long)fr->pc);
	const char *mod = base_name(fr->module);
	if (!fr->func)
		return xasprintf("%s+0x%llx%s%s%s", mod, (unsigned long long)fr->module_off,
		                 fr->note ? " [" : "", fr->note ? fr->note : "", fr->note ? "]" : "");
	if (!fr->file)
		return xasprintf("%s+0x%llx [%s]", fr->func, (unsigned long long)fr->func_off, mod);
	return xasprintf("%s+0x%llx (%s:%d) [%s]", fr->func, (unsigned long long)fr->func_off,
	                 base_name(fr->file), fr->line, mod);
}

void sym_frame_free(struct sym_frame *fr)
{
	free(fr->func);
	free(fr->file);
	free(fr->comp_dir);
	fr->func = fr->file = fr->comp_dir = NULL;
}

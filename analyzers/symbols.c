/*
 * Offline symbolization with libelf and libdw (symbols.h).
 *
 * One Dwfl per distinct module file (path + build id), loaded at base 0, is
 * shared by every process that loaded that file: an address is looked up as
 * pc - base, so ASLR does not multiply the work.
 */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"
#include "symbols.h"

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

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
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
	int fd = open(pm->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		m->why = "file not found";
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
	close(fd);
	if (!ok)
		return;
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, base_name(pm->path), pm->path, -1, 0, false);
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

/* The source line of addr.  dwfl finds the compile unit through
 * .debug_aranges, which clang does not write by default; without it, the
 * compile units are searched for the one whose ranges hold addr. */
static const char *source_line(Dwfl_Module *mod, Dwarf_Addr addr, int *lineno)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	if (line)
		return dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
	Dwarf_Addr bias;
	for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(mod, cu, &bias));) {
		if (dwarf_haspc(cu, addr - bias) <= 0)
			continue;
		Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - bias);
		if (!dl || dwarf_lineno(dl, lineno))
			return NULL;
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
	const char *src = source_line(m->mod, at, &lineno);
	if (src && lineno > 0) {
		fr->file = xstrdup(src);
		fr->line = lineno;
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
	fr->func = fr->file = NULL;
}

/*
 * A finding's frames by function and source line (srcline.h).
 *
 * libdw's types come from its headers; its functions only through the
 * handle dlopen gives (the real dlsym), so that libpeerwatch.so needs
 * nothing but glibc to load, and libdw.so.1 is loaded RTLD_LOCAL at the
 * first report with frames: its symbols never bind to the program's, nor
 * the program's to it (as core/stack.c does with libunwind).
 *
 * Each module a frame lies in is read from its file (the program's through
 * /proc/self/exe), at the bias it was loaded at, once per report, and only
 * if the file's GNU build id is the one of the object in memory: a program
 * rebuilt while it runs is not named from the new file.  Debug information
 * is the file's own, or a separate file named by build id under
 * /usr/lib/debug/.build-id; nothing is fetched (no debuginfod).  Every file
 * is opened O_CLOEXEC and closed by pw_srcline_end.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/intercept.h"
#include "core/pw.h"
#include "core/srcline.h"
#include "core/vendor_lib.h"

enum { UNTRIED, LOADING, READY, ABSENT };

/* libdw's functions this file calls, found in its handle. */
#define PW_DW_FUNCS(F)                   \
	F(dwfl_begin);                   \
	F(dwfl_end);                     \
	F(dwfl_report_begin_add);        \
	F(dwfl_report_elf);              \
	F(dwfl_report_end);              \
	F(dwfl_addrmodule);              \
	F(dwfl_module_addrinfo);         \
	F(dwfl_module_getsrc);           \
	F(dwfl_lineinfo);                \
	F(dwfl_module_build_id);         \
	F(dwfl_module_nextcu);           \
	F(dwfl_offline_section_address); \
	F(dwarf_haspc);                  \
	F(dwarf_getsrc_die);             \
	F(dwarf_lineno);                 \
	F(dwarf_linesrc);

#define PW_DW_FIELD(name) __typeof__(&name) name
static struct {
	atomic_int state;
	const char *soname;
	struct {
		PW_DW_FUNCS(PW_DW_FIELD)
	} f;
} D = {.soname = "libdw.so.1"};
#undef PW_DW_FIELD

void pw_srcline_use(const char *soname)
{
	D.soname = soname;
}

/* libdw, loaded once; false while another thread loads it (its report
 * keeps the plain form) or when it cannot be had. */
static bool load(void)
{
	int st = atomic_load_explicit(&D.state, memory_order_acquire);
	if (st != UNTRIED)
		return st == READY;
	if (!atomic_compare_exchange_strong(&D.state, &st, LOADING))
		return atomic_load_explicit(&D.state, memory_order_acquire) == READY;
	pw_loader_lock();
	void *h = dlopen(D.soname, RTLD_NOW | RTLD_LOCAL);
	pw_loader_unlock();
	bool ok = h != NULL;
#define PW_DW_FIND(name) ok = ok && (D.f.name = (__typeof__(D.f.name))pw_real_dlsym(h, #name)) != NULL
	PW_DW_FUNCS(PW_DW_FIND)
#undef PW_DW_FIND
	if (!ok && h)
		dlclose(h);
	pw_debug("report frames: %s (%s%s)", ok ? "function and line from libdw" : "dladdr only", D.soname,
	         ok  ? ""
	         : h ? " lacks a function"
	             : " not found");
	atomic_store_explicit(&D.state, ok ? READY : ABSENT, memory_order_release);
	return ok;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file,
                    Elf **elf)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file, (void)elf;
	return -1; /* every module is reported with its file open */
}

/* A regular file opened for reading, close-on-exec, or -1. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The separate debug file named by the module's build id, if there is one. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink, GElf_Word crc, char **found)
{
	(void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink, (void)crc;
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	int n = D.f.dwfl_module_build_id(mod, &id, &vaddr);
	if (n < 2 || n > 64)
		return -1;
	char path[64 + 2 * 64];
	size_t k = (size_t)snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < n; i++)
		k += (size_t)snprintf(path + k, sizeof path - k, "%02x", id[i]);
	snprintf(path + k, sizeof path - k, ".debug");
	int fd = open_regular(path);
	if (fd >= 0)
		*found = strdup(path);
	return fd;
}

static int section_address(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                           const char *secname, GElf_Word shndx, const GElf_Shdr *shdr, Dwarf_Addr *addr)
{
	return D.f.dwfl_offline_section_address(mod, userdata, modname, base, secname, shndx, shdr, addr);
}

static char *no_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = find_elf,
    .find_debuginfo = find_debuginfo,
    .section_address = section_address,
    .debuginfo_path = &no_path,
};

bool pw_srcline_begin(struct pw_srcline *s)
{
	memset(s, 0, sizeof *s);
	if (!load())
		return false;
	s->dwfl = D.f.dwfl_begin(&callbacks);
	return s->dwfl != NULL;
}

void pw_srcline_end(struct pw_srcline *s)
{
	if (s->dwfl)
		D.f.dwfl_end(s->dwfl);
	s->dwfl = NULL;
}

/* The GNU build id of the loaded object at bias `bias` (from its notes in
 * memory): its length, 0 when it has none or is not found. */
struct mem_id {
	uintptr_t bias;
	const char *name;
	const unsigned char *id;
	size_t n;
};

static int mem_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct mem_id *m = arg;
	if (info->dlpi_addr != m->bias || strcmp(info->dlpi_name ? info->dlpi_name : "", m->name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				m->id = desc;
				m->n = nh->n_descsz;
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

/* The module of the loaded object lm, read from its file into this
 * report's session; NULL when it cannot be (no file, another build). */
static Dwfl_Module *report(struct pw_srcline *s, const struct link_map *lm, uintptr_t at)
{
	for (int i = 0; i < s->nbad; i++)
		if (s->bad[i] == lm->l_addr)
			return NULL;
	const char *name = lm->l_name ? lm->l_name : "";
	const char *file = name[0] ? name : "/proc/self/exe"; /* the program: "" */
	int fd = open_regular(file);
	Dwfl_Module *mod = NULL;
	if (fd >= 0) {
		D.f.dwfl_report_begin_add(s->dwfl);
		if (!D.f.dwfl_report_elf(s->dwfl, file, file, fd, lm->l_addr, true))
			close(fd); /* consumed only on success */
		D.f.dwfl_report_end(s->dwfl, NULL, NULL);
		mod = D.f.dwfl_addrmodule(s->dwfl, at);
	}
	if (mod) {
		struct mem_id m = {lm->l_addr, name, NULL, 0};
		const unsigned char *id = NULL;
		GElf_Addr vaddr;
		dl_iterate_phdr(mem_build_id, &m);
		int n = D.f.dwfl_module_build_id(mod, &id, &vaddr);
		if (m.n && n > 0 && ((size_t)n != m.n || memcmp(id, m.id, m.n)))
			mod = NULL; /* the file is not the build that is running */
	}
	if (!mod && s->nbad < (int)(sizeof s->bad / sizeof *s->bad))
		s->bad[s->nbad++] = lm->l_addr;
	return mod;
}

/* The source line of at, from the line table of its compile unit; the
 * compile units are searched when the module has no .debug_aranges
 * (clang writes none by default). */
static const char *source_line(Dwfl_Module *mod, Dwarf_Addr at, int *lineno)
{
	Dwfl_Line *line = D.f.dwfl_module_getsrc(mod, at);
	if (line)
		return D.f.dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
	Dwarf_Addr bias;
	for (Dwarf_Die *cu = NULL; (cu = D.f.dwfl_module_nextcu(mod, cu, &bias));) {
		if (D.f.dwarf_haspc(cu, at - bias) <= 0)
			continue;
		Dwarf_Line *dl = D.f.dwarf_getsrc_die(cu, at - bias);
		if (!dl || D.f.dwarf_lineno(dl, lineno))
			return NULL;
		return D.f.dwarf_linesrc(dl, NULL, NULL);
	}
	return NULL;
}

static const char *base_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

bool pw_srcline_format(struct pw_srcline *s, uintptr_t ip, char *out, size_t len)
{
	if (!s->dwfl || ip < 2 || !out || !len)
		return false;
	uintptr_t at = ip - 1; /* a return address: the call is before it */
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)at, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return false;
	Dwfl_Module *mod = D.f.dwfl_addrmodule(s->dwfl, at);
	if (!mod && !(mod = report(s, lm, at)))
		return false;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *func = D.f.dwfl_module_addrinfo(mod, at, &off, &sym, NULL, NULL, NULL);
	if (!func)
		return false;
	int flen = (int)strcspn(func, "@"); /* "memcpy@@GLIBC_2.14": the version is noise here */
	int lineno = 0;
	const char *file = source_line(mod, at, &lineno);
	const char *m = base_of(info.dli_fname);
	if (file && lineno > 0)
		snprintf(out, len, "%.*s (%s:%d) in %s+0x%lx", flen, func, base_of(file), lineno, m,
		         (unsigned long)(ip - (uintptr_t)info.dli_fbase));
	else
		snprintf(out, len, "%.*s+0x%lx (%s)", flen, func, (unsigned long)(off + 1), m);
	return true;
}

/*
 * Offline symbolization (analyzers/model/symbols.c) on this test program itself
 * and on the C library it runs with: the module list is built the way the
 * preload's header builds it (dl_iterate_phdr: path, load bias, build id).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <elf.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "model/symbols.h"
#include "read/trace.h"

static const int marker_line = __LINE__ + 2; /* the line of marker()'s name */
__attribute__((noinline, used)) int marker(int x)
{
	return x * 3 + 1;
}

static void build_id_hex(const struct dl_phdr_info *info, char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				for (unsigned j = 0; j < nh->n_descsz && 2 * j + 3 <= len; j++)
					snprintf(out + 2 * j, 3, "%02x", desc[j]);
				return;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct vec *mods = arg;
	char path[4096] = "", bid[128];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		if (mods->len)
			return 0; /* the vDSO */
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		path[n > 0 ? n : 0] = 0;
		name = path;
	}
	build_id_hex(info, bid, sizeof bid);
	struct pw_module *m = vec_push(mods);
	m->path = xstrdup(name);
	m->base = info->dlpi_addr;
	m->build_id = bid[0] ? xstrdup(bid) : NULL;
	return 0;
}

static struct vec mods;

static int load_modules(void **state)
{
	(void)state;
	vec_init(&mods, sizeof(struct pw_module));
	dl_iterate_phdr(add_module, &mods);
	return mods.len ? 0 : -1;
}

static int free_modules(void **state)
{
	(void)state;
	for (size_t i = 0; i < mods.len; i++) {
		struct pw_module *m = vec_at(&mods, i);
		free(m->path);
		free(m->build_id);
	}
	vec_free(&mods);
	return 0;
}

/* A return address 1 byte into marker(): the function, its file and line. */
static void own_function(void **state)
{
	(void)state;
	struct symbolizer *s = sym_new();
	struct sym_frame fr;
	uint64_t pc = (uint64_t)(uintptr_t)&marker + 1;
	sym_lookup(s, &mods, pc, &fr);
	assert_non_null(fr.module);
	assert_string_equal(fr.module, ((struct pw_module *)vec_at(&mods, 0))->path);
	assert_non_null(fr.func);
	assert_string_equal(fr.func, "marker");
	assert_int_equal(fr.func_off, 1);
	assert_non_null(fr.file);
	assert_string_equal(base_name(fr.file), "test_analyze_symbols.c");
	assert_in_range(fr.line, marker_line, marker_line + 2);
	char *text = sym_format(&fr);
	char want[128];
	snprintf(want, sizeof want, "marker+0x1 (test_analyze_symbols.c:%d) [test_analyze_symbols]", fr.line);
	assert_string_equal(text, want);
	free(text);
	sym_frame_free(&fr);
	sym_free(s);
}

/* An address in the C library: its module, and a name from its symbols
 * (a function no sanitizer intercepts, so it is libc's own). */
static void libc_function(void **state)
{
	(void)state;
	struct symbolizer *s = sym_new();
	struct sym_frame fr;
	sym_lookup(s, &mods, (uint64_t)(uintptr_t)&gnu_get_libc_version + 4, &fr);
	assert_non_null(fr.module);
	assert_non_null(strstr(fr.module, "libc"));
	assert_non_null(fr.func);
	assert_string_equal(fr.func, "gnu_get_libc_version");
	sym_frame_free(&fr);
	sym_free(s);
}

/* The same program, but the trace says another build: no names from it. */
static void build_id_differs(void **state)
{
	(void)state;
	struct vec other;
	vec_init(&other, sizeof(struct pw_module));
	struct pw_module *m = vec_push(&other), *self = vec_at(&mods, 0);
	m->path = self->path;
	m->base = self->base;
	m->build_id = "0011223344556677889900112233445566778899";
	struct symbolizer *s = sym_new();
	struct sym_frame fr;
	uint64_t pc = (uint64_t)(uintptr_t)&marker + 1;
	sym_lookup(s, &other, pc, &fr);
	assert_null(fr.func);
	assert_non_null(fr.note);
	assert_string_equal(fr.note, "build id differs");
	assert_int_equal(fr.module_off, pc - self->base);
	char *text = sym_format(&fr), want[128];
	snprintf(want, sizeof want, "test_analyze_symbols+0x%llx [build id differs]",
	         (unsigned long long)(pc - self->base));
	assert_string_equal(text, want);
	free(text);
	sym_frame_free(&fr);
	sym_free(s);
	vec_free(&other);
}

/* A module whose file is gone; an address in no module. */
static void missing(void **state)
{
	(void)state;
	struct vec gone;
	vec_init(&gone, sizeof(struct pw_module));
	struct pw_module *m = vec_push(&gone);
	m->path = "/nonexistent/libgone.so.1";
	m->base = 0x7f0000000000ull;
	struct symbolizer *s = sym_new();
	struct sym_frame fr;
	sym_lookup(s, &gone, 0x7f0000012345ull, &fr);
	assert_string_equal(fr.note, "file not found");
	char *text = sym_format(&fr);
	assert_string_equal(text, "libgone.so.1+0x12345 [file not found]");
	free(text);
	sym_frame_free(&fr);
	sym_lookup(s, &gone, 0x1000, &fr);
	assert_null(fr.module);
	text = sym_format(&fr);
	assert_string_equal(text, "0x1000 [?]");
	free(text);
	sym_free(s);
	vec_free(&gone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(own_function),
	    cmocka_unit_test(libc_function),
	    cmocka_unit_test(build_id_differs),
	    cmocka_unit_test(missing),
	};
	return cmocka_run_group_tests(tests, load_modules, free_modules) + (marker(1) != 4);
}

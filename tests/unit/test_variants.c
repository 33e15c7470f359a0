/*
 * Identifying the ABI variant behind a driver pointer, against the simulated
 * driver (PWSIM_LIB): every exported symbol maps to the wrapper of exactly
 * that symbol, whichever way the pointer was obtained.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendors/cuda/cuda.h"
#include "vendors/cuda/cuda_query.h"

CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);
CUresult cuGetProcAddress_v2(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static void *sim;
typedef CUresult (*gp2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static int setup(void **state)
{
	(void)state;
	const char *path = getenv("PWSIM_LIB");
	sim = dlopen(path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!sim)
		fprintf(stderr, "test_variants: %s\n", dlerror());
	return sim ? 0 : -1;
}

static void each_exported_symbol(void **state)
{
	(void)state;
	for (int id = 0; id < PW_CUDA_NFUNCS; id++) {
		void *p = dlsym(sim, pw_cuda_desc[id].symbol);
		if (!p)
			fail_msg("the simulated driver does not export %s", pw_cuda_desc[id].symbol);
		void *w = pw_cuda_substitute(p);
		if (w != pw_cuda_wrapper[id])
			fail_msg("%s was not identified", pw_cuda_desc[id].symbol);
		assert_ptr_equal(pw_cuda_real(id), p);
	}
}

static void unhooked_functions_pass_through(void **state)
{
	(void)state;
	void *p = dlsym(sim, "cuInit");
	assert_non_null(p);
	assert_ptr_equal(pw_cuda_substitute(p), p);
	assert_null(pw_cuda_substitute(NULL));
}

static int id_of(void *wrapper)
{
	for (int id = 0; id < PW_CUDA_NFUNCS; id++)
		if (pw_cuda_wrapper[id] == wrapper)
			return id;
	return -1;
}

static void through_get_proc_address(void **state)
{
	(void)state;
	gp2_fn gp2 = (gp2_fn)dlsym(sim, "cuGetProcAddress_v2");
	assert_non_null(gp2);
	struct {
		const char *api;
		int version;
		cuuint64_t flags;
		const char *symbol;
	} cases[] = {
	    {"cuMemcpyPeer", 13000, 0, "cuMemcpyPeer"},
	    {"cuMemcpyPeer", 13000, 2, "cuMemcpyPeer_ptds"},
	    {"cuMemcpyPeerAsync", 13000, 2, "cuMemcpyPeerAsync_ptsz"},
	    {"cuMemcpy3DPeer", 13000, 2, "cuMemcpy3DPeer_ptds"},
	    {"cuMemcpy3DPeerAsync", 13000, 2, "cuMemcpy3DPeerAsync_ptsz"},
	    {"cuMemAdvise", 8000, 0, "cuMemAdvise"},
	    {"cuMemAdvise", 12020, 0, "cuMemAdvise_v2"},
	    {"cuMemAdvise", 12020, 2, "cuMemAdvise_v2"},
	    {"cuMemPrefetchAsync", 8000, 0, "cuMemPrefetchAsync"},
	    {"cuMemPrefetchAsync", 8000, 2, "cuMemPrefetchAsync_ptsz"},
	    {"cuMemPrefetchAsync", 12020, 0, "cuMemPrefetchAsync_v2"},
	    {"cuMemPrefetchAsync", 12020, 2, "cuMemPrefetchAsync_v2_ptsz"},
	    {"cuIpcOpenMemHandle", 4010, 0, "cuIpcOpenMemHandle"},
	    {"cuIpcOpenMemHandle", 11000, 0, "cuIpcOpenMemHandle_v2"},
	    {"cuStreamAttachMemAsync", 13000, 2, "cuStreamAttachMemAsync_ptsz"},
	    {"cuMemFree", 3020, 0, "cuMemFree_v2"},
	    {"cuMemFreeAsync", 11020, 2, "cuMemFreeAsync_ptsz"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		void *p = NULL;
		assert_int_equal(gp2(cases[i].api, &p, cases[i].version, cases[i].flags, NULL), CUDA_SUCCESS);
		int id = id_of(pw_cuda_substitute(p));
		if (id < 0 || strcmp(pw_cuda_desc[id].symbol, cases[i].symbol))
			fail_msg("%s v%d flags %d: expected %s, got %s", cases[i].api, cases[i].version,
			         (int)cases[i].flags, cases[i].symbol,
			         id < 0 ? "no wrapper" : pw_cuda_desc[id].symbol);
	}
}

static void self_lookup_returns_our_get_proc_address(void **state)
{
	(void)state;
	gp2_fn gp2 = (gp2_fn)dlsym(sim, "cuGetProcAddress_v2");
	void *ours_v2 = (void *)cuGetProcAddress_v2; /* this test links the wrappers in */
	void *ours = (void *)cuGetProcAddress;
	void *p = NULL;
	assert_int_equal(gp2("cuGetProcAddress", &p, 12000, 0, NULL), CUDA_SUCCESS);
	assert_ptr_equal(pw_cuda_substitute(p), ours_v2);
	assert_int_equal(gp2("cuGetProcAddress", &p, 11030, 0, NULL), CUDA_SUCCESS);
	assert_ptr_equal(pw_cuda_substitute(p), ours);
}

static void dlsym_hook(void **state)
{
	(void)state;
	void *p = dlsym(sim, "cuMemcpyPeer_ptds");
	assert_ptr_equal(pw_cuda_dlsym_hook("cuMemcpyPeer_ptds", p),
	                 pw_cuda_wrapper[PW_CUDA_ID(cuMemcpyPeer_ptds)]);
	void *init = dlsym(sim, "cuInit");
	assert_ptr_equal(pw_cuda_dlsym_hook("cuInit", init), init);
	assert_null(pw_cuda_dlsym_hook("cuMemcpyPeer", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_exported_symbol),
	    cmocka_unit_test(unhooked_functions_pass_through),
	    cmocka_unit_test(through_get_proc_address),
	    cmocka_unit_test(self_lookup_returns_our_get_proc_address),
	    cmocka_unit_test(dlsym_hook),
	};
	return cmocka_run_group_tests_name("variants", tests, setup, NULL);
}

/*
 * The runtime layer's table, dlsym hand-out and translation into rule ops,
 * without a running program: the simulated libcudart.so.13 beside PWSIM_LIB
 * is only dlopen()ed for its symbols' addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pw.h"
#include "core/vendor.h"
#include "vendors/cuda/cuda.h"
#include "vendors/cudart/cudart.h"
#include "state/op.h"

static void *rt;

static int setup(void **state)
{
	(void)state;
	char path[4096];
	const char *sim = getenv("PWSIM_LIB");
	snprintf(path, sizeof path, "%s", sim ? sim : "build/sim/libcuda.so.1");
	char *dir = dirname(path);
	char lib[4200];
	snprintf(lib, sizeof lib, "%s/libcudart.so.13", dir);
	rt = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!rt)
		fprintf(stderr, "test_cudart: %s\n", dlerror());
	return rt ? 0 : -1;
}

/* Every row but the CUDA 12 _v2 names is a libcudart.so.13 export, handed out as our wrapper. */
static void dlsym_hands_out_wrappers(void **state)
{
	(void)state;
	int n = 0;
	for (int id = 0; id < PW_CUDART_NFUNCS; id++) {
		const char *s = pw_cudart_desc[id].symbol;
		void *p = dlsym(rt, s);
		if (strstr(s, "_v2")) {
			assert_null(p);
			continue;
		}
		if (!p)
			fail_msg("the simulated runtime does not export %s", s);
		assert_ptr_equal(pw_cudart_dlsym_hook(s, p), pw_cudart_wrapper[id]);
		assert_ptr_equal(pw_cudart_real(id), p);
		n++;
	}
	assert_int_equal(n, PW_CUDART_NFUNCS - 3);
	/* not hooked, or not found: the answer as it was */
	void *p = dlsym(rt, "cudaGetDevice");
	assert_ptr_equal(pw_cudart_dlsym_hook("cudaGetDevice", p), p);
	assert_null(pw_cudart_dlsym_hook("cudaMemcpyPeer", NULL));
	/* a second library's function of a hooked name is not routed to the first one's */
	void *other = dlsym(rt, "cudaGetDeviceCount");
	assert_ptr_equal(pw_cudart_dlsym_hook("cudaMemcpyPeer", other), other);
	/* CUDA 13 runtime: no _v2 names, so the base names have the location ABI */
	assert_false(pw_cudart_abi12());
}

static struct pw_call call_of(int id)
{
	struct pw_call c;
	memset(&c, 0, sizeof c);
	c.fn = &pw_cudart_desc[id];
	c.cur_dev = PW_NO_DEV;
	for (int i = 0; i < PW_MAX_ARGS; i++)
		c.dev[i] = PW_NO_DEV;
	return c;
}

static void ops(void **state)
{
	(void)state;
	struct pw_op op;
	struct pw_call c = call_of(PW_CUDART_ID(cudaMemcpyPeer));
	c.a[0] = 0x1000;
	c.a[1] = 1;
	c.a[2] = 0x2000;
	c.a[3] = 0;
	c.a[4] = 0; /* 0 bytes: no facts asked */
	c.dev[0] = 1;
	c.dev[2] = 0;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_PEER_COPY);
	assert_string_equal(op.api, "cudaMemcpyPeer");
	assert_int_equal(op.vendor, PW_VENDOR_CUDA);
	assert_int_equal(op.dst.named_dev, 1);
	assert_int_equal(op.src.named_dev, 0);
	assert_int_equal(op.dst.dev, 1);

	c = call_of(PW_CUDART_ID(cudaDeviceEnablePeerAccess));
	c.cur_dev = 0;
	c.a[0] = 1;
	c.a[1] = 0;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_PEER_ENABLE);
	assert_int_equal(op.cur_dev, 0);
	assert_int_equal(op.peer_dev, 1);

	c = call_of(PW_CUDART_ID(cudaDeviceCanAccessPeer));
	c.a[1] = 1;
	c.a[2] = 0;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_CAN_ACCESS);
	assert_int_equal(op.cur_dev, 1);
	assert_int_equal(op.peer_dev, 0);

	/* NULL is the legacy stream only in the base variant */
	c = call_of(PW_CUDART_ID(cudaStreamAttachMemAsync));
	c.a[3] = cudaMemAttachSingle;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_true(op.null_stream);
	c = call_of(PW_CUDART_ID(cudaStreamAttachMemAsync_ptsz));
	c.a[3] = cudaMemAttachSingle;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_false(op.null_stream);

	/* CUDA 13 location, and the CUDA 12 int-device ABI */
	struct cudaMemLocation loc = {cudaMemLocationTypeHost, 0};
	c = call_of(PW_CUDART_ID(cudaMemPrefetchAsync));
	memcpy(&c.a[2], &loc, sizeof loc);
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_PREFETCH);
	assert_int_equal(op.loc_dev, PW_LOC_CPU);
	c.fn = &pw_cudart_desc_prefetch12;
	c.a[2] = 1;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.loc_dev, 1);
	c.fn = &pw_cudart_desc_advise12;
	c.a[2] = 3;
	c.a[3] = (uint64_t)(int64_t)cudaCpuDeviceId;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_ADVISE);
	assert_int_equal(op.advice, 3);
	assert_int_equal(op.loc_dev, PW_LOC_CPU);

	/* a pair query: its two devices, source first (peer.attr.self reads them) */
	c = call_of(PW_CUDART_ID(cudaDeviceGetP2PAttribute));
	c.a[2] = 1;
	c.a[3] = 0;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_PEER_ATTR);
	assert_int_equal(op.cur_dev, 1);
	assert_int_equal(op.peer_dev, 0);

	/* an IPC event export: the event, and whether its creation was seen */
	static unsigned char hbuf[64];
	c = call_of(PW_CUDART_ID(cudaIpcGetEventHandle));
	c.a[0] = (uintptr_t)hbuf;
	c.a[1] = 0x1234;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_IPC_EVENT_EXPORT);
	assert_int_equal(op.event, 0x1234);
	assert_ptr_equal(op.handle, hbuf);
	assert_false(op.event_known);
	/* an event creation without flags (cudaEventCreate): the default, 0 */
	c = call_of(PW_CUDART_ID(cudaEventCreate));
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_EVENT_CREATE);
	assert_int_equal(op.flags, 0);

	/* the last-error getters: the traced call of this thread that left an
	 * error (pw_tls_left, which the wrappers keep), and whether the getter
	 * comes right after it (next: the seq it would then have) */
	pw_tls_left[PW_VENDOR_CUDA] =
	    (struct pw_left){.api = "cudaFree", .seq = 7, .next = 9, .code = 1, .site = 0x1234};
	c = call_of(PW_CUDART_ID(cudaPeekAtLastError));
	c.seq = 12;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_int_equal(op.kind, PW_OP_LAST_ERROR);
	assert_false(op.err_resets);
	assert_string_equal(op.left_api, "cudaFree");
	assert_int_equal(op.left_seq, 7);
	assert_int_equal(op.left_code, 1);
	assert_int_equal(op.left_site, 0x1234);
	assert_false(op.left_just_before);
	c = call_of(PW_CUDART_ID(cudaGetLastError));
	c.seq = 9;
	assert_true(pw_cudart_op_before(&c, &op));
	assert_true(op.err_resets);
	assert_true(op.left_just_before);
	pw_tls_left[PW_VENDOR_CUDA] = (struct pw_left){0};
	assert_true(pw_cudart_op_before(&c, &op));
	assert_null(op.left_api);
	assert_true(pw_cudart_vendor.last_error);
	assert_false(pw_cuda_vendor.last_error); /* the driver has no last error */
}

static void error_names(void **state)
{
	(void)state;
	assert_string_equal(pw_cudart_error_name(704), "cudaErrorPeerAccessAlreadyEnabled");
	assert_string_equal(pw_cudart_error_name(201), "cudaErrorDeviceUninitialized");
	assert_string_equal(pw_cudart_error_name(0), "cudaSuccess");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dlsym_hands_out_wrappers),
	    cmocka_unit_test(ops),
	    cmocka_unit_test(error_names),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

/*
 * The HIP thread's last error, under peerwatch.
 *
 * peerwatch must not leave an error of its own behind on the HIP thread.
 * From ROCm 7, hipGetLastError returns the last call that failed (facts
 * A8.6), so a failing query the layer makes for itself (where an allocation
 * starts and ends, asked of hipMemGetAddressRange) would show up in the
 * program's next hipGetLastError although every call it made succeeded.
 *
 * usage: hip_lasterr LIBAMDHIP64 [SCENARIO]
 *
 * Without a scenario: a correct program: attach a host buffer to the NULL
 * stream (a no-op that succeeds on AMD, facts A7), then ask for the last
 * error: it must be hipSuccess.
 *
 * The error a program leaves behind (error.sticky; ROCm 7's semantics, the
 * .so.7 simulator):
 *   sticky        hipFree of memory already freed (its error ignored), other
 *                 calls that succeed, then hipGetLastError returns it (a
 *                 finding names the hipFree), and again: hipSuccess
 *   sticky-peek   peer access enabled twice (hipErrorPeerAccessAlreadyEnabled
 *                 ignored), other calls, then hipPeekAtLastError and
 *                 hipGetLastError return it (each names the enable), and
 *                 hipGetLastError again: hipSuccess
 *   sticky-clean  the same calls as sticky, the error cleared by
 *                 hipGetLastError right after the hipFree that returned it:
 *                 every later getter returns hipSuccess, no finding
 *
 * Exit status 0 when every call answers as expected, 1 when not, 2 on bad
 * setup.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerwatch/abi/hip.h"

typedef hipError_t (*set_device_fn)(int);
typedef hipError_t (*attach_fn)(hipStream_t, void *, size_t, unsigned int);
typedef hipError_t (*last_fn)(void);
typedef hipError_t (*malloc_fn)(void **, size_t);
typedef hipError_t (*free_fn)(void *);
typedef hipError_t (*can_access_fn)(int *, int, int);
typedef hipError_t (*enable_fn)(int, unsigned int);

static void *lib;
static int failures;

static void *fn(const char *name)
{
	void *f = dlsym(lib, name);
	if (!f) {
		fprintf(stderr, "hip_lasterr: the runtime lacks %s\n", name);
		exit(2);
	}
	return f;
}

#define EXPECT(call, want)                                                                        \
	do {                                                                                      \
		hipError_t r_ = (call);                                                           \
		if (r_ != (want)) {                                                               \
			fprintf(stderr, "hip_lasterr: %s gave %d, expected %d\n", #call, (int)r_, \
			        (int)(want));                                                     \
			failures++;                                                               \
		}                                                                                 \
	} while (0)

static int sticky(const char *what)
{
	set_device_fn set_device = (set_device_fn)fn("hipSetDevice");
	last_fn peek = (last_fn)fn("hipPeekAtLastError"), get_last = (last_fn)fn("hipGetLastError");
	malloc_fn hmalloc = (malloc_fn)fn("hipMalloc");
	free_fn hfree = (free_fn)fn("hipFree");
	can_access_fn can_access = (can_access_fn)fn("hipDeviceCanAccessPeer");
	enable_fn enable = (enable_fn)fn("hipDeviceEnablePeerAccess");
	void *a = NULL, *b = NULL;
	int v = 0;
	EXPECT(set_device(0), hipSuccess);
	if (!strcmp(what, "sticky-peek")) {
		EXPECT(can_access(&v, 0, 1), hipSuccess);
		EXPECT(enable(1, 0), hipSuccess);
		EXPECT(enable(1, 0), hipErrorPeerAccessAlreadyEnabled); /* ignored */
		EXPECT(hmalloc(&a, 1 << 20), hipSuccess);
		EXPECT(can_access(&v, 1, 0), hipSuccess);
		EXPECT(hfree(a), hipSuccess);
		EXPECT(peek(), hipErrorPeerAccessAlreadyEnabled);
		EXPECT(get_last(), hipErrorPeerAccessAlreadyEnabled);
		EXPECT(get_last(), hipSuccess);
		return failures != 0;
	}
	int clean = !strcmp(what, "sticky-clean");
	if (!clean && strcmp(what, "sticky")) {
		fprintf(stderr, "hip_lasterr: unknown scenario %s\n", what);
		return 2;
	}
	EXPECT(hmalloc(&a, 1 << 20), hipSuccess);
	EXPECT(hfree(a), hipSuccess);
	EXPECT(hfree(a), hipErrorInvalidValue); /* freed already */
	if (clean)                              /* its own error, cleared right away */
		EXPECT(get_last(), hipErrorInvalidValue);
	EXPECT(can_access(&v, 0, 1), hipSuccess);
	EXPECT(hmalloc(&b, 1 << 20), hipSuccess);
	EXPECT(hfree(b), hipSuccess);
	EXPECT(get_last(), clean ? hipSuccess : hipErrorInvalidValue);
	EXPECT(get_last(), hipSuccess);
	EXPECT(peek(), hipSuccess);
	return failures != 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: hip_lasterr LIBAMDHIP64 [sticky|sticky-peek|sticky-clean]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "hip_lasterr: %s\n", dlerror());
		return 2;
	}
	if (argc == 3)
		return sticky(argv[2]);
	set_device_fn set_device = (set_device_fn)dlsym(lib, "hipSetDevice");
	attach_fn attach = (attach_fn)dlsym(lib, "hipStreamAttachMemAsync");
	last_fn peek = (last_fn)dlsym(lib, "hipPeekAtLastError");
	last_fn get_last = (last_fn)dlsym(lib, "hipGetLastError");
	if (!set_device || !attach || !peek || !get_last) {
		fprintf(stderr, "hip_lasterr: the runtime lacks a function this test needs\n");
		return 2;
	}
	static char host[4096];
	hipError_t r1 = set_device(0);
	hipError_t r2 = attach(NULL, host, 0, 1 /* hipMemAttachGlobal */);
	hipError_t peeked = peek();
	hipError_t last = get_last();
	printf("hipSetDevice=%d hipStreamAttachMemAsync=%d hipPeekAtLastError=%d hipGetLastError=%d\n",
	       (int)r1, (int)r2, (int)peeked, (int)last);
	return r1 == hipSuccess && r2 == hipSuccess && peeked == hipSuccess && last == hipSuccess ? 0 : 1;
}

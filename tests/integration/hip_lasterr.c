/*
 * peerwatch must not leave an error of its own behind on the HIP thread.
 * From ROCm 7, hipGetLastError returns the last call that failed (facts
 * A8.6), so a failing query the layer makes for itself (where an allocation
 * starts and ends, asked of hipMemGetAddressRange) would show up in the
 * program's next hipGetLastError although every call it made succeeded.
 *
 * usage: hip_lasterr LIBAMDHIP64
 * A correct program: attach a host buffer to the NULL stream (a no-op that
 * succeeds on AMD, facts A7), then ask for the last error: it must be
 * hipSuccess.  Exit status 0 when it is, 1 when not, 2 on bad setup.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "peerwatch/abi/hip.h"

typedef hipError_t (*set_device_fn)(int);
typedef hipError_t (*attach_fn)(hipStream_t, void *, size_t, unsigned int);
typedef hipError_t (*last_fn)(void);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: hip_lasterr LIBAMDHIP64\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "hip_lasterr: %s\n", dlerror());
		return 2;
	}
	set_device_fn set_device = (set_device_fn)dlsym(h, "hipSetDevice");
	attach_fn attach = (attach_fn)dlsym(h, "hipStreamAttachMemAsync");
	last_fn peek = (last_fn)dlsym(h, "hipPeekAtLastError");
	last_fn get_last = (last_fn)dlsym(h, "hipGetLastError");
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

/*
 * Every hooked HIP call that ROCm 5.2 has, made once against the REAL
 * runtime (Debian's libamdhip64.so.5), compiled against its own header
 * (/usr/include/hip/hip_runtime_api.h, C, __HIP_PLATFORM_AMD__) so that the
 * program's references are the versioned ones (hipFree@hip_4.2).  It prints
 * "CALL <api> <return code>" for each call; tests/integration/hip_real.sh
 * checks that the trace has one event per line with the same return code.
 * No AMD GPU is needed: the runtime answers every call, and those answers
 * are what is compared.  Measured on a machine without one (no /dev/kfd):
 * it neither aborts nor hangs and needs no environment variable;
 * hipGetDeviceCount gives 100 (hipErrorNoDevice), hipRuntimeGetVersion 0
 * (50221153), and every hooked call 101 (hipErrorInvalidDevice).
 */
/* the header insists on a platform; the Makefile passes it, lint may not */
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CALL(api, ...)                                 \
	do {                                           \
		hipError_t r_ = api(__VA_ARGS__);      \
		printf("CALL %s %d\n", #api, (int)r_); \
		fflush(stdout);                        \
	} while (0)

int main(void)
{
	int n = -1, v = -1;
	/* not hooked: for the log only */
	hipError_t e = hipGetDeviceCount(&n);
	fprintf(stderr, "hip_real: hipGetDeviceCount -> %d (%d devices)\n", (int)e, n);
	e = hipRuntimeGetVersion(&v);
	fprintf(stderr, "hip_real: hipRuntimeGetVersion -> %d (%d)\n", (int)e, v);

	int can = -1, value = -1;
	CALL(hipDeviceCanAccessPeer, &can, 0, 1);
	CALL(hipDeviceEnablePeerAccess, 1, 0);
	CALL(hipDeviceDisablePeerAccess, 1);
	/* deprecated in the header, still exported and hooked */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	CALL(hipCtxEnablePeerAccess, NULL, 0);
	CALL(hipCtxDisablePeerAccess, NULL);
#pragma GCC diagnostic pop
	CALL(hipDeviceGetP2PAttribute, &value, hipDevP2PAttrAccessSupported, 0, 1);

	static char a[4096], b[4096];
	CALL(hipMemcpyPeer, a, 1, b, 0, sizeof a);
	CALL(hipMemcpyPeerAsync, a, 1, b, 0, sizeof a, NULL);

	hipIpcMemHandle_t mh;
	hipIpcEventHandle_t eh;
	memset(&mh, 0, sizeof mh);
	memset(&eh, 0, sizeof eh);
	void *opened = NULL;
	hipEvent_t ev = NULL;
	CALL(hipIpcGetMemHandle, &mh, a);
	CALL(hipIpcOpenMemHandle, &opened, mh, hipIpcMemLazyEnablePeerAccess);
	CALL(hipIpcCloseMemHandle, a);
	CALL(hipIpcGetEventHandle, &eh, NULL);
	CALL(hipIpcOpenEventHandle, &ev, eh);

	void *m = NULL;
	int attr = 0;
	void *data[1] = {&attr};
	size_t sizes[1] = {sizeof attr};
	hipMemRangeAttribute attrs[1] = {hipMemRangeAttributeReadMostly};
	CALL(hipMallocManaged, &m, 4096, hipMemAttachGlobal);
	CALL(hipMemPrefetchAsync, a, sizeof a, 0, NULL);
	CALL(hipMemAdvise, a, sizeof a, hipMemAdviseSetReadMostly, 0);
	CALL(hipMemRangeGetAttribute, &attr, sizeof attr, hipMemRangeAttributeReadMostly, a, sizeof a);
	CALL(hipMemRangeGetAttributes, data, sizes, attrs, 1, a, sizeof a);
	CALL(hipStreamAttachMemAsync, NULL, a, 0, hipMemAttachSingle);

	/* pool and virtual-memory IPC (hip_5.1 here): reached through the real
	 * library's versioned symbols, each with valid pointers, whatever the
	 * runtime answers without a GPU.  (The 2-D and 3-D copies are hooked
	 * too, but recorded only between two devices, which a machine without
	 * a GPU has not.) */
	hipMemPool_t pool = NULL, imported = NULL;
	hipMemPoolPtrExportData ed;
	memset(&ed, 0, sizeof ed);
	int fd = -1;
	void *from_pool = NULL;
	CALL(hipMemPoolExportToShareableHandle, &fd, pool, hipMemHandleTypePosixFileDescriptor, 0);
	CALL(hipMemPoolImportFromShareableHandle, &imported, (void *)(intptr_t)fd,
	     hipMemHandleTypePosixFileDescriptor, 0);
	CALL(hipMemPoolExportPointer, &ed, a);
	CALL(hipMallocFromPoolAsync, &from_pool, 4096, pool, NULL);
	hipMemGenericAllocationHandle_t h = NULL, h2 = NULL;
	hipMemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = hipMemAllocationTypePinned;
	prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = 0;
	CALL(hipMemCreate, &h, 1 << 21, &prop, 0);
	CALL(hipMemExportToShareableHandle, &fd, h, hipMemHandleTypePosixFileDescriptor, 0);
	CALL(hipMemImportFromShareableHandle, &h2, (void *)(intptr_t)fd, hipMemHandleTypePosixFileDescriptor);
	CALL(hipMemRelease, h);

	CALL(hipFree, NULL);
	CALL(hipDeviceReset);
	return 0;
}

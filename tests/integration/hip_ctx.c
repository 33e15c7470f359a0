/*
 * hipCtxEnablePeerAccess / hipCtxDisablePeerAccess from device 0 to device
 * 1's context, against the simulated runtime: both succeed and the thread's
 * current device is still 0 after each.  Run under hip_ctxstack.so (a
 * runtime with a context stack) it checks that peerwatch, which asks the
 * peer context's device, leaves the current device alone.
 */
#include "hip_api.h"

int main(void)
{
	hipCtx_t peer;
	int dev = -1, fails = 0;
	if (hipSetDevice(0) != hipSuccess || hipDevicePrimaryCtxRetain(&peer, 1) != hipSuccess) {
		fprintf(stderr, "hip_ctx: no device 0 and 1\n");
		return 2;
	}
	int can = 0;
	hipDeviceCanAccessPeer(&can, 0, 1);
	hipError_t r = hipCtxEnablePeerAccess(peer, 0);
	hipGetDevice(&dev);
	if (r != hipSuccess || dev != 0) {
		fprintf(stderr, "hip_ctx: hipCtxEnablePeerAccess returned %d, current device now %d\n", r,
		        dev);
		fails++;
	}
	dev = -1;
	r = hipCtxDisablePeerAccess(peer);
	hipGetDevice(&dev);
	if (r != hipSuccess || dev != 0) {
		fprintf(stderr, "hip_ctx: hipCtxDisablePeerAccess returned %d, current device now %d\n", r,
		        dev);
		fails++;
	}
	return fails ? 1 : 0;
}

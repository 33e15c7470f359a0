/*
 * Self-test of the simulated libcudart.so.13: the runtime's answers of
 * docs/facts-cuda.md, "Every contract case", its last-error behaviour, and data really moved
 * through the simulated driver.  Two devices that can access each other.
 * The last line is "cudart_selftest: N passed, M failed".
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudart_sim_api.h"

static int passed, failed;
#define CHECK(cond, what)                                                     \
	do {                                                                  \
		if (cond) {                                                   \
			passed++;                                             \
		} else {                                                      \
			failed++;                                             \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, what); \
		}                                                             \
	} while (0)
#define EQ(expr, want) CHECK((expr) == (want), #expr " == " #want)

static struct cudaMemLocation dev_loc(int d)
{
	struct cudaMemLocation l = {cudaMemLocationTypeDevice, d};
	return l;
}

int main(void)
{
	int n = -1, v = -1;
	EQ(cudaGetDeviceCount(&n), cudaSuccess);
	EQ(n, 2);
	EQ(cudaGetDevice(&v), cudaSuccess);
	EQ(v, 0);
	EQ(cudaSetDevice(9), cudaErrorInvalidDevice);
	EQ(cudaGetLastError(), cudaErrorInvalidDevice);
	EQ(cudaGetLastError(), cudaSuccess);

	/* peer access */
	EQ(cudaDeviceCanAccessPeer(&v, 0, 1), cudaSuccess);
	EQ(v, 1);
	EQ(cudaDeviceCanAccessPeer(&v, 0, 0), cudaSuccess);
	EQ(v, 0);
	EQ(cudaDeviceCanAccessPeer(&v, 0, 9), cudaErrorInvalidDevice);
	EQ(cudaDeviceCanAccessPeer(NULL, 0, 1), cudaErrorInvalidValue);
	EQ(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
	EQ(cudaDeviceEnablePeerAccess(9, 0), cudaErrorInvalidDevice);
	EQ(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
	EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
	(void)cudaGetLastError();
	EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
	EQ(cudaGetLastError(), cudaSuccess);
	EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
	EQ(cudaPeekAtLastError(), cudaErrorPeerAccessAlreadyEnabled); /* it stays pending */
	EQ(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
	EQ(cudaGetLastError(), cudaSuccess);
	EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
	/* a reset ends the current device's peer access: enabled again, 0 */
	EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
	EQ(cudaDeviceReset(), cudaSuccess);
	EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
	EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
	EQ(cudaDeviceGetP2PAttribute(&v, 2, 0, 1), cudaSuccess);
	EQ(v, 1);
	CHECK(
	    !strcmp(cudaGetErrorName(cudaErrorPeerAccessAlreadyEnabled), "cudaErrorPeerAccessAlreadyEnabled"),
	    "error names");

	/* copies: on device 0 and 1, 1 MiB each */
	void *a = NULL, *b = NULL;
	EQ(cudaMalloc(&a, 1 << 20), cudaSuccess);
	EQ(cudaSetDevice(1), cudaSuccess);
	EQ(cudaMalloc(&b, 1 << 20), cudaSuccess);
	EQ(cudaSetDevice(0), cudaSuccess);
	static unsigned char host[1 << 20], back[1 << 20];
	for (size_t i = 0; i < sizeof host; i++)
		host[i] = (unsigned char)(i * 7);
	EQ(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
	EQ(cudaMemcpyPeer(b, 1, a, 0, 1 << 20), cudaSuccess);
	EQ(cudaMemcpy(back, b, sizeof back, cudaMemcpyDefault), cudaSuccess);
	CHECK(!memcmp(host, back, sizeof host), "cudaMemcpyPeer moved the bytes");
	EQ(cudaMemcpyPeer(b, 1, a, 0, 0), cudaSuccess);
	EQ(cudaMemcpyPeer(b, 1, a, 0, 2 << 20), cudaErrorInvalidValue);
	EQ(cudaMemcpyPeer(NULL, 1, a, 0, 16), cudaErrorInvalidValue);
	EQ(cudaMemcpyPeer(b, 9, a, 0, 16), cudaErrorInvalidDevice);
	EQ(cudaMemcpyPeerAsync(b, 1, a, 0, 4096, NULL), cudaSuccess);
	struct cudaMemcpy3DPeerParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = (struct cudaPitchedPtr){a, 1024, 1024, 64};
	p.dstPtr = (struct cudaPitchedPtr){b, 1024, 1024, 64};
	p.srcDevice = 0;
	p.dstDevice = 1;
	p.extent = (struct cudaExtent){1024, 64, 1};
	EQ(cudaMemcpy3DPeer(&p), cudaSuccess);
	EQ(cudaMemcpy3DPeer_ptds(&p), cudaSuccess);
	EQ(cudaMemcpy3DPeerAsync(&p, NULL), cudaSuccess);
	EQ(cudaMemcpy3DPeerAsync_ptsz(&p, NULL), cudaSuccess);

	/* managed memory */
	void *m = NULL;
	EQ(cudaMallocManaged(&m, 0, cudaMemAttachGlobal), cudaSuccess);
	EQ(cudaMallocManaged(&m, 4096, 0), cudaErrorInvalidValue);
	EQ(cudaMallocManaged(&m, 4096, cudaMemAttachSingle), cudaErrorInvalidValue);
	EQ(cudaMallocManaged(&m, 1 << 16, cudaMemAttachGlobal), cudaSuccess);
	EQ(cudaMemAdvise(m, 1 << 16, 1, dev_loc(0)), cudaSuccess);
	EQ(cudaMemRangeGetAttribute(&v, 4, 1, m, 1 << 16), cudaSuccess);
	EQ(v, 1);
	EQ(cudaMemAdvise(a, 4096, 1, dev_loc(0)), cudaErrorInvalidValue);
	EQ(cudaMemPrefetchAsync(m, 1 << 16, dev_loc(1), 0, NULL), cudaSuccess);
	EQ(cudaMemPrefetchAsync_ptsz(m, 1 << 16, dev_loc(0), 0, NULL), cudaSuccess);
	EQ(cudaMemPrefetchAsync(m, 1 << 16, dev_loc(9), 0, NULL), cudaErrorInvalidDevice);
	EQ(cudaMemPrefetchAsync(a, 4096, dev_loc(1), 0, NULL), cudaErrorInvalidValue);
	EQ(cudaStreamAttachMemAsync(NULL, m, 0, cudaMemAttachGlobal), cudaSuccess);
	EQ(cudaStreamAttachMemAsync(NULL, m, 4096, cudaMemAttachGlobal), cudaErrorInvalidValue);
	EQ(cudaStreamAttachMemAsync_ptsz(NULL, m, 0, cudaMemAttachHost), cudaSuccess);

	/* IPC */
	cudaIpcMemHandle_t h, h2;
	void *o = NULL;
	EQ(cudaIpcGetMemHandle(&h, a), cudaSuccess);
	EQ(cudaIpcGetMemHandle(&h2, a), cudaSuccess);
	CHECK(!memcmp(&h, &h2, sizeof h), "two handles of one allocation are the same bytes");
	EQ(cudaIpcGetMemHandle(&h2, m), cudaErrorInvalidValue);
	EQ(cudaIpcOpenMemHandle(&o, h, cudaIpcMemLazyEnablePeerAccess), cudaErrorDeviceUninitialized);
	EQ(cudaIpcCloseMemHandle(b), cudaErrorInvalidValue);
	/* an event without the interprocess flag: 400, as measured (H100, H200) */
	cudaEvent_t plain, shared;
	cudaIpcEventHandle_t eh;
	EQ(cudaEventCreate(&plain), cudaSuccess);
	EQ(cudaIpcGetEventHandle(&eh, plain), cudaErrorInvalidResourceHandle);
	EQ(cudaEventCreateWithFlags(&shared, cudaEventInterprocess | cudaEventDisableTiming), cudaSuccess);
	EQ(cudaIpcGetEventHandle(&eh, shared), cudaSuccess);
	EQ(cudaEventDestroy(plain), cudaSuccess);
	EQ(cudaEventDestroy(shared), cudaSuccess);
	pid_t kid = fork();
	if (kid == 0) {
		int bad = 0;
		bad |= cudaSetDevice(1) != cudaSuccess;
		bad |= cudaIpcOpenMemHandle(&o, h, 0) != cudaErrorInvalidValue;
		bad |= cudaIpcOpenMemHandle(&o, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess;
		bad |= !bad && cudaMemcpy(back, o, 4096, cudaMemcpyDeviceToHost) != cudaSuccess;
		bad |= !bad && memcmp(back, host, 4096) != 0;
		bad |= cudaIpcCloseMemHandle(o) != cudaSuccess;
		_exit(bad);
	}
	int st = -1;
	waitpid(kid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "another process opens the handle, reads the bytes, closes it");

	EQ(cudaFree(m), cudaSuccess);
	EQ(cudaFree(a), cudaSuccess);
	EQ(cudaFree(b), cudaSuccess);
	EQ(cudaFree(NULL), cudaSuccess);
	EQ(cudaIpcGetMemHandle(&h2, a), cudaErrorInvalidValue);
	printf("cudart_selftest: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}

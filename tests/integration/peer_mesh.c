/*
 * All-pairs peer access the way multi-GPU inference servers set it up at
 * start-up (llama.cpp's ggml_cuda_init: for every device, make it current and
 * enable access to every other device that cudaDeviceCanAccessPeer allows),
 * then a peer copy between every ordered pair, checked byte for byte.
 *
 * With ten or more GPUs that loop asks for more peers than a device has
 * (8, the CUDA Driver API's Peer Context Memory Access: CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources
 * exhausted"); ggml-org/llama.cpp#21883 is that crash.  peerwatch's
 * peer.limit reports the call before the driver refuses it.
 *
 * Plain C over the CUDA runtime API, linked against libcudart: the simulated
 * one in CI (PWSIM_DEVICES=N picks the number of devices), the toolkit's on
 * GPUs (tests/gpu/gpu.mk).
 *
 * usage: peer_mesh [--bytes N[k|m]] [--reps R] [--keep-going]
 *   --bytes       bytes per copy (default 64m)
 *   --reps        copies per ordered pair (default 4)
 *   --keep-going  a failed cudaDeviceEnablePeerAccess is printed and the
 *                 pair left without peer access (default: exit 1, as
 *                 ggml_cuda_init aborts)
 *
 * stdout is deterministic for a given device count and peer topology.
 * Exit status: 0 when every copy arrived intact, 1 on a failed call or a
 * wrong byte, 2 on bad usage, 77 with fewer than two devices.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_sim_api.h"

#define MAX_DEV 64

static int fail(const char *what, cudaError_t e, int dev)
{
	fprintf(stderr, "peer_mesh: CUDA error: %s (%d) in %s, current device %d\n", cudaGetErrorName(e), e,
	        what, dev);
	return 1;
}

#define CK(call, dev)                                  \
	do {                                           \
		cudaError_t e_ = (call);               \
		if (e_ != cudaSuccess)                 \
			return fail(#call, e_, (dev)); \
	} while (0)

static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	unsigned shift = 0;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	/* each device holds two of them: 2 * v must fit */
	if (*end || v == 0 || v > (SIZE_MAX / 2) >> shift)
		return -1;
	v <<= shift;
	*out = (size_t)v;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: peer_mesh [--bytes N[k|m]] [--reps R] [--keep-going]\n");
	return 2;
}

/* ggml_cuda_init's loop: every device in turn, every other device. */
static int enable_all(int n, int keep_going, unsigned char on[MAX_DEV][MAX_DEV], int *links)
{
	for (int id = 0; id < n; id++) {
		CK(cudaSetDevice(id), id);
		for (int other = 0; other < n; other++) {
			if (other == id)
				continue;
			int can = 0;
			CK(cudaDeviceCanAccessPeer(&can, id, other), id);
			if (!can)
				continue;
			cudaError_t e = cudaDeviceEnablePeerAccess(other, 0);
			if (e == cudaSuccess) {
				on[id][other] = 1;
				++*links;
				continue;
			}
			(void)cudaGetLastError();
			printf("device %d -> %d: cudaDeviceEnablePeerAccess: %s\n", id, other,
			       cudaGetErrorName(e));
			if (!keep_going)
				return fail("cudaDeviceEnablePeerAccess(other, 0)", e, id);
		}
	}
	return 0;
}

/* Each device: its own bytes (value id + 1) in the first half, the
 * landing area for copies from the others in the second.  Then reps copies
 * between every ordered pair, each checked byte for byte through host. */
static int copy_all(int n, size_t bytes, long reps, unsigned char on[MAX_DEV][MAX_DEV], char *host)
{
	void *buf[MAX_DEV] = {0};
	for (int d = 0; d < n; d++) {
		CK(cudaSetDevice(d), d);
		CK(cudaMalloc(&buf[d], 2 * bytes), d);
		memset(host, d + 1, bytes);
		CK(cudaMemcpy(buf[d], host, bytes, cudaMemcpyHostToDevice), d);
	}

	int bad = 0;
	for (int src = 0; src < n; src++)
		for (int dst = 0; dst < n; dst++) {
			if (src == dst)
				continue;
			char *to = (char *)buf[dst] + bytes;
			CK(cudaSetDevice(src), src);
			for (long r = 0; r < reps; r++)
				CK(cudaMemcpyPeerAsync(to, dst, buf[src], src, bytes, 0), src);
			CK(cudaDeviceSynchronize(), src);
			CK(cudaSetDevice(dst), dst);
			memset(host, 0, bytes);
			CK(cudaMemcpy(host, to, bytes, cudaMemcpyDeviceToHost), dst);
			size_t wrong = 0;
			for (size_t i = 0; i < bytes; i++)
				wrong += host[i] != (char)(src + 1);
			printf("copy %d -> %d: %ld x %zu bytes, peer access %s: %s\n", src, dst, reps, bytes,
			       on[src][dst] || on[dst][src] ? "on" : "off", wrong ? "WRONG" : "ok");
			if (wrong) {
				fprintf(stderr,
				        "peer_mesh: %zu of %zu bytes copied from device %d to %d are wrong\n",
				        wrong, bytes, src, dst);
				bad = 1;
			}
		}
	for (int d = 0; d < n; d++) {
		CK(cudaSetDevice(d), d);
		CK(cudaFree(buf[d]), d);
	}
	return bad;
}

int main(int argc, char **argv)
{
	size_t bytes = 64u << 20;
	long reps = 4;
	int keep_going = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
			if (parse_size(argv[++i], &bytes)) {
				fprintf(stderr,
				        "peer_mesh: --bytes wants a positive size such as 4096, 64k or 64m, "
				        "not '%s'\n",
				        argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			char *end;
			reps = strtol(argv[++i], &end, 10);
			if (*end || reps < 1 || reps > 100000) {
				fprintf(stderr,
				        "peer_mesh: --reps wants a number from 1 to 100000, not '%s'\n",
				        argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--keep-going")) {
			keep_going = 1;
		} else {
			return usage();
		}
	}

	int n = 0;
	CK(cudaGetDeviceCount(&n), -1);
	if (n < 2) {
		printf("peer_mesh: %d device(s); needs 2\n", n);
		return 77;
	}
	if (n > MAX_DEV)
		n = MAX_DEV;
	static unsigned char on[MAX_DEV][MAX_DEV];
	int links = 0;
	if (enable_all(n, keep_going, on, &links))
		return 1;
	printf("peer_mesh: %d devices, peer access enabled on %d of %d ordered pairs\n", n, links,
	       n * (n - 1));

	char *host = malloc(bytes);
	if (!host) {
		fprintf(stderr, "peer_mesh: out of host memory for %zu bytes\n", bytes);
		return 1;
	}
	int bad = copy_all(n, bytes, reps, on, host);
	free(host);
	printf("peer_mesh: %s\n", bad ? "FAILED" : "all copies intact");
	return bad;
}

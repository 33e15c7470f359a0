/*
 * What the driver answers for cuDeviceGetP2PAtomicCapabilities (CUDA 13):
 * the capabilities of devices 0 -> 1 and 1 -> 0 for every atomic
 * operation, and the result for device 0 and itself, which cuda.h says is
 * CUDA_ERROR_INVALID_DEVICE (the contract of peerwatch's peer.attr.self).
 * One line per query: "SRC DST RESULT CAP0 CAP1 ...".  p2p_atomics.sh runs
 * it with and without peerwatch.
 */
#include <cuda.h>
#include <stdio.h>

static int query(CUdevice src, CUdevice dst)
{
	CUatomicOperation ops[CU_ATOMIC_OPERATION_MAX];
	unsigned caps[CU_ATOMIC_OPERATION_MAX] = {0};
	for (int i = 0; i < CU_ATOMIC_OPERATION_MAX; i++)
		ops[i] = (CUatomicOperation)i;
	CUresult r = cuDeviceGetP2PAtomicCapabilities(caps, ops, CU_ATOMIC_OPERATION_MAX, src, dst);
	printf("%d %d %d", src, dst, (int)r);
	for (int i = 0; r == CUDA_SUCCESS && i < CU_ATOMIC_OPERATION_MAX; i++)
		printf(" 0x%x", caps[i]);
	printf("\n");
	return (int)r;
}

int main(void)
{
	int n = 0;
	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&n) != CUDA_SUCCESS || n < 2) {
		fprintf(stderr, "p2p_atomics: needs two GPUs\n");
		return 2;
	}
	query(0, 1);
	query(1, 0);
	return query(0, 0) == CUDA_ERROR_INVALID_DEVICE ? 0 : 1;
}

#!/usr/bin/env bash
# GPU benchmarks: peer bandwidth/latency and a PyTorch copy loop
# with and without peerwatch, and gpu_timing's device figures against the
# program's own.  usage: bench_gpu.sh BUNDLE OUT
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
bundle=$(cd "${1:-build/dist/peerwatch}" && pwd -P)
out=${2:-/tmp/pw-bench}
mkdir -p "$out"
python3 "$here/bw_compare.py" "$here/peer_bw" "$bundle" "$out" 3 | tee "$out/bw.txt"
echo "== PyTorch loop (200 x 2 copies of 64 MiB between the GPUs), best of 3 each, alternating"
for i in 1 2 3; do
	python3 "$here/torch_loop.py" 200 | sed 's/^/plain  /'
	"$bundle/bin/peerwatch" -q --mode warn -o "$out/torch-$i" -- python3 "$here/torch_loop.py" 200 | sed 's/^/traced /'
done | tee "$out/torch.txt"

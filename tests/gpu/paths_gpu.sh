#!/usr/bin/env bash
# The paths PyTorch and NCCL really take, on real GPUs: PyTorch's
# tensor moves between devices (implicit copies, the runtime API layer), a
# two-process NCCL all_reduce over NCCL's default cuMem (VMM) sharing, and the
# same with NCCL_CUMEM_ENABLE=0 (legacy cuIpc).  Each runs in warn mode; the
# trace is checked by paths_check.py and the analyzer's matrix, ipc and check
# reports are kept beside it.
#
# usage: tests/gpu/paths_gpu.sh BUNDLE_DIR [OUT_DIR]
# Writes OUT_DIR/paths.txt (everything printed) and OUT_DIR/paths-traces.tar.gz.
# Exit status 0 when every case passed or was skipped, 1 otherwise.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
bundle=$(cd "${1:-build/dist/peerwatch}" && pwd -P) || exit 1
out=${2:-${OUT:-/tmp/pw-gpu-out}}
mkdir -p "$out"
py=${PYTHON:-python3}
work=$(mktemp -d /tmp/pw-gpu-paths.XXXXXX)
pw=$bundle/bin/peerwatch
an=$bundle/bin/peerwatch-analyze
failed=0

run() { # NAME CHECK-CASE -- COMMAND...
	local name=$1 kind=$2
	shift 3
	local d=$work/$name
	mkdir -p "$d"
	echo "===== $name: $*"
	local t0=$SECONDS
	timeout 300 "$pw" -q -o "$d/trace" --mode warn -- "$@" >"$d/stdout" 2>"$d/stderr"
	local rc=$?
	echo "exit status $rc in $((SECONDS - t0)) s"
	tail -n 3 "$d/stdout"
	if [ "$rc" = 77 ]; then
		echo "SKIP: $(head -n 1 "$d/stdout")"
		return
	fi
	"$py" "$here/paths_check.py" "$kind" "$d/trace"
	local crc=$?
	for cmd in matrix ipc summary check; do
		echo "--- peerwatch-analyze $cmd"
		"$an" "$cmd" "$d/trace" 2>&1 | head -n 60
	done
	if [ "$rc" != 0 ] || [ "$crc" != 0 ]; then
		echo "$name: FAILED (program $rc, checks $crc)"
		failed=$((failed + 1))
	fi
}

{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1
	run torch_peer torch -- "$py" "$here/torch_peer.py"
	run nccl_vmm nccl-vmm -- "$py" "$here/nccl_allreduce.py"
	run nccl_legacy nccl-legacy -- "$py" "$here/nccl_allreduce.py" --legacy-ipc
	echo
	[ "$failed" = 0 ] && echo "paths: ALL PASSED" || echo "paths: $failed case(s) FAILED"
} 2>&1 | tee "$out/paths.txt"
tar -C "$work" -czf "$out/paths-traces.tar.gz" . 2>/dev/null
grep -q "paths: ALL PASSED" "$out/paths.txt"

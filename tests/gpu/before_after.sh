#!/usr/bin/env bash
# Findings per rule, before and after a change of peerwatch, on real
# programs: every case of the contract program (tests/gpu/contract.c, the
# IPC, peer and event contracts one case per run), PyTorch (torch_peer.py:
# peer access, a cross-device copy, a tensor shared with a child by CUDA IPC)
# and a 2-rank NCCL all_reduce over both of NCCL's paths (cuMem/VMM, and
# legacy cudaIpc with NCCL_CUMEM_ENABLE=0).  Each program runs once untraced
# and once under each bundle in warn mode; the table says, per program and
# rule, the findings each bundle reported (written by the library, and
# derived by that bundle's own analyzer), what the default suppressions
# took, and whether each run kept the untraced run's exit status and output
# and left every trace complete.
#
# usage: tests/gpu/before_after.sh BEFORE_BUNDLE AFTER_BUNDLE [OUT_DIR]
#   BUNDLE: a `make dist` bundle (build/dist/peerwatch); the contract program
#   is $here/contract or build/gpu/contract (make gpu-programs).
# Writes OUT_DIR/before_after.txt (the table) and OUT_DIR/before_after.tar.gz
# (the traces).  Needs python3 (no jq on the GPU machine); PyTorch and NCCL
# cases are skipped (status 77) where torch is missing.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUNDLE AFTER_BUNDLE [OUT_DIR]" >&2; exit 2; }
before=$(cd "$1" && pwd -P) || exit 2
after=$(cd "$2" && pwd -P) || exit 2
out=${3:-${OUT:-/tmp/pw-gpu-out}}
mkdir -p "$out"
py=${PYTHON:-python3}
C=${PW_CONTRACT:-$here/contract}
[ -x "$C" ] || C=$here/../../build/gpu/contract
[ -x "$C" ] || { echo "before_after: no contract program (make gpu-programs)" >&2; exit 2; }
work=$(mktemp -d /tmp/pw-before-after.XXXXXX)

run() { # NAME -- COMMAND...: untraced, then under each bundle
	local name=$1
	shift 2
	local d=$work/$name
	mkdir -p "$d"
	printf '%s\n' "$*" >"$d/command"
	timeout 600 "$@" >"$d/plain.out" 2>"$d/plain.err"
	echo $? >"$d/plain.rc"
	local label bundle
	for label in before after; do
		bundle=$before
		[ $label = after ] && bundle=$after
		mkdir -p "$d/$label"
		timeout 600 "$bundle/bin/peerwatch" -q -o "$d/$label/trace" --mode warn -- "$@" \
			>"$d/$label.out" 2>"$d/$label.err"
		echo $? >"$d/$label.rc"
		"$bundle/bin/peerwatch-analyze" check --json --allow-partial "$d/$label/trace" \
			>"$d/$label.check.json" 2>/dev/null
	done
	echo "ran $name: exit $(cat "$d/plain.rc") untraced, $(cat "$d/before.rc") before, $(cat "$d/after.rc") after"
}

{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1
	echo "before: $before ($("$before/bin/peerwatch" --version 2>&1 | head -1))"
	echo "after:  $after ($("$after/bin/peerwatch" --version 2>&1 | head -1))"
	"$C" list >"$work/contract.cases"
	while read -r case expect; do
		run "contract-$case" -- "$C" "$case"
		echo "$expect" >"$work/contract-$case/expect"
	done <"$work/contract.cases"
	run torch_peer -- "$py" "$here/torch_peer.py"
	run nccl_vmm -- "$py" "$here/nccl_allreduce.py"
	run nccl_legacy -- "$py" "$here/nccl_allreduce.py" --legacy-ipc
	echo
	"$py" "$here/before_after.py" "$work"
	echo
	echo "what the driver answered (each contract case, untraced; then under the after bundle):"
	for d in "$work"/contract-*; do
		[ -d "$d" ] || continue
		sed 's/^/  /' "$d/plain.out"
		diff -q "$d/plain.out" "$d/after.out" >/dev/null || sed 's/^/  (after) /' "$d/after.out"
	done
	echo
	echo "the after bundle's stderr lines about default suppressions:"
	cat "$work"/*/after.err 2>/dev/null | grep 'suppressed by the default suppressions' | sed 's/^/  /'
} 2>&1 | tee "$out/before_after.txt"
tar -C "$work" -czf "$out/before_after.tar.gz" . 2>/dev/null
rm -rf "$work"

#!/usr/bin/env bash
# Real-GPU validation of peerwatch: runs each test program without and with
# peerwatch, compares their stdout, checks the traces and the call counts.
#
# usage: tests/gpu/run.sh [BUNDLE_DIR] [OUT_DIR]
#   BUNDLE_DIR  a peerwatch bundle, its launcher at BUNDLE_DIR/bin/peerwatch
#               (default build/dist/peerwatch)
#   OUT_DIR     where the results go (default $OUT if set, else /tmp/pw-gpu-out):
#               summary.txt, checks.txt, env.txt and results.tar.gz (every log,
#               stdout, diff and trace).  The unpacked tree stays in $PW_GPU_WORK
#               (default: a fresh /tmp/pw-gpu.XXXXXX).
#
# Environment:
#   PW_GPU_ONLY="peer_static peer_driver"  run only these cases
#   PW_GPU_BIN=DIR     where the programs are (default: beside this script if
#                      they are there, else <repo>/build/gpu)
#   PW_GPU_REBUILD=1   rebuild the programs even if they exist (needs nvcc)
#   PW_GPU_ORACLE=0    skip the CUPTI reference count (default: on when
#                      libpwcupti.so could be built)
#   PW_MODE=observe    the launcher's --mode
#   PW_GPU_BUDGET=540  seconds; cases not started by then are reported NOT RUN
#   PYTHON=python3
# Exit status: 0 when every case that ran passed, 1 otherwise, 2 on bad setup.
set -u -o pipefail

# Mandatory on the shared multi-GPU machines: no NVLink multicast anywhere.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
start_s=$SECONDS
budget_s=${PW_GPU_BUDGET:-540}
mode=${PW_MODE:-observe}
py=${PYTHON:-python3}

die() {
	echo "run.sh: $*" >&2
	exit 2
}

# --- where things are ----------------------------------------------------------
if [ -f "$here/gpu.mk" ]; then # the source tree: tests/gpu
	repo=$(cd "$here/../.." && pwd -P)
	bin_dir=${PW_GPU_BIN:-$repo/build/gpu}
else # a carried build/gpu folder
	repo=
	bin_dir=${PW_GPU_BIN:-$here}
fi

bundle=${1:-build/dist/peerwatch}
if [ ! -d "$bundle" ] && [ -n "$repo" ] && [ -d "$repo/$bundle" ]; then
	bundle=$repo/$bundle
fi
[ -d "$bundle" ] || die "no peerwatch bundle at '$bundle' (give its directory as the first argument)"
bundle=$(cd "$bundle" && pwd -P)
launcher=$bundle/bin/peerwatch
[ -x "$launcher" ] || die "no launcher at $launcher"
analyzer=$bundle/bin/peerwatch-analyze

out_dir=${2:-${OUT:-/tmp/pw-gpu-out}}
mkdir -p "$out_dir" || die "cannot create $out_dir"
out_dir=$(cd "$out_dir" && pwd -P)
work=${PW_GPU_WORK:-$(mktemp -d /tmp/pw-gpu.XXXXXX)}
mkdir -p "$work" || die "cannot create $work"
work=$(cd "$work" && pwd -P)

# --- build what is missing -----------------------------------------------------
programs="peer_static peer_shared peer_ptds peer_driver"
missing=
for p in $programs; do [ -x "$bin_dir/$p" ] || missing="$missing $p"; done
nvcc_bin=$(command -v nvcc || true)
[ -n "$nvcc_bin" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc_bin=/usr/local/cuda/bin/nvcc
if [ -n "$repo" ] && [ -n "$nvcc_bin" ] &&
	{ [ -n "$missing" ] || [ "${PW_GPU_REBUILD:-0}" = 1 ] || [ ! -e "$bin_dir/libpwcupti.so" ]; }; then
	echo "== building the test programs with $nvcc_bin"
	# The oracle library is optional: build it where CUPTI is found.
	rebuild=
	[ "${PW_GPU_REBUILD:-0}" = 1 ] && rebuild=-B
	# gpu.mk alone: the rest of the Makefile may need what this machine lacks.
	make -C "$repo" -f tests/gpu/gpu.mk --no-print-directory NVCC="$nvcc_bin" GPU_DIR="$bin_dir" \
		$rebuild gpu-programs ||
		{ [ -n "$missing" ] && die "building the test programs failed"; }
	missing=
	for p in $programs; do [ -x "$bin_dir/$p" ] || missing="$missing $p"; done
fi
[ -z "$missing" ] || die "missing programs in $bin_dir:$missing (run make gpu-programs where nvcc is)"

oracle_lib=
if [ "${PW_GPU_ORACLE:-1}" != 0 ] && [ -f "$bin_dir/libpwcupti.so" ]; then
	oracle_lib=$bin_dir/libpwcupti.so
fi

# --- the machine -------------------------------------------------------------------
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(uname -n) $(uname -r) $(uname -m)"
	echo "bundle: $bundle"
	"$launcher" --version 2>&1 | sed 's/^/launcher: /'
	echo "programs: $bin_dir"
	echo "oracle: ${oracle_lib:-none}"
	echo "mode: $mode"
	echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS"
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1
		nvidia-smi topo -m 2>&1
	else
		echo "nvidia-smi: not found"
	fi
	[ -n "$nvcc_bin" ] && "$nvcc_bin" --version 2>&1 | tail -n 2
	ldd "$bin_dir/peer_shared" 2>&1 | grep -E 'cudart|cuda' || true
	"$py" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version() if torch.cuda.is_available() else "-")' 2>&1 | tail -n 1
} >"$work/env.txt" 2>&1
cat "$work/env.txt"

have_torch=1
"$py" -c 'import torch' >/dev/null 2>&1 || have_torch=0

# --- expected counts -----------------------------------------------------------------
# --expect: must hold (the run fails otherwise); --want: a warning only.  SPEC is
# API[/VARIANT]=MIN[:MAX]; MIN alone means "at least".  The per-program lists in
# the headers of peer_all.cu and peer_driver.c explain each number.  All exact
# numbers below were measured with CUPTI (libpwcupti.so) on 2 x H200, driver
# 580.159.04, CUDA 13.0, PyTorch 2.11.0+cu130, NCCL 2.28.9.

# peer_driver calls every function itself: exact counts, per variant.
driver_expect="
cuDeviceCanAccessPeer=3:3 cuDeviceGetP2PAttribute=3:3
cuCtxEnablePeerAccess=3:3 cuCtxDisablePeerAccess=3:3
cuMemcpyPeer/base=6:6 cuMemcpyPeer/_ptds=1:1 cuMemcpyPeer=7:7
cuMemcpyPeerAsync/base=2:2 cuMemcpyPeerAsync/_ptsz=1:1 cuMemcpyPeerAsync=3:3
cuMemcpy3DPeer/base=1:1 cuMemcpy3DPeer/_ptds=1:1 cuMemcpy3DPeer=2:2
cuMemcpy3DPeerAsync/base=1:1 cuMemcpy3DPeerAsync/_ptsz=1:1 cuMemcpy3DPeerAsync=2:2
cuIpcGetMemHandle=2:2 cuIpcGetEventHandle=1:1
cuIpcOpenMemHandle/_v2=1:1 cuIpcOpenMemHandle/base=1:1 cuIpcOpenMemHandle=2:2
cuIpcOpenEventHandle=1:1 cuIpcCloseMemHandle=2:2
cuMemAllocManaged=2:2
cuMemAdvise/_v2=4:4 cuMemAdvise/base=1:1 cuMemAdvise=5:5
cuMemPrefetchAsync/_v2=2:2 cuMemPrefetchAsync/_v2_ptsz=1:1 cuMemPrefetchAsync/base=1:1
cuMemPrefetchAsync/_ptsz=1:1 cuMemPrefetchAsync=5:5
cuMemRangeGetAttribute=3:3 cuMemRangeGetAttributes=1:1
cuStreamAttachMemAsync/base=2:2 cuStreamAttachMemAsync/_ptsz=1:1 cuStreamAttachMemAsync=3:3
cuMemFree/_v2=7:7 cuMemFree/base=0:0
cuMemFreeAsync/base=1:1 cuMemFreeAsync/_ptsz=1:1 cuMemFreeAsync=2:2
"

# peer_all (three builds).  Floors, always hard: the calls made through driver
# entry points, plus the runtime calls that have exactly one driver function to
# go to.
runtime_floor="
cuDeviceCanAccessPeer=1 cuDeviceGetP2PAttribute=1
cuCtxEnablePeerAccess=3 cuCtxDisablePeerAccess=3
cuMemcpyPeer/base=1 cuMemcpyPeer/_ptds=1
cuMemcpyPeerAsync/base=1 cuMemcpyPeerAsync/_ptsz=1
cuMemcpy3DPeer/base=1 cuMemcpy3DPeerAsync/base=1
cuIpcGetMemHandle=2 cuIpcGetEventHandle=1
cuIpcOpenMemHandle/base=1 cuIpcOpenMemHandle=2 cuIpcOpenEventHandle=1 cuIpcCloseMemHandle=2
cuMemAllocManaged=2
cuMemAdvise/base=1 cuMemAdvise/_v2=1 cuMemAdvise=5
cuMemPrefetchAsync/base=1
cuMemRangeGetAttribute=1
cuStreamAttachMemAsync/base=1 cuStreamAttachMemAsync=3
cuMemFree/_v2=1 cuMemFreeAsync/base=1
"
# Exact, per variant, as cudart 13.0 makes them.  Hard unless PW_GPU_STRICT=0
# (for other CUDA versions, where cudart may route calls differently).
runtime_exact="
cuDeviceCanAccessPeer=4:4 cuDeviceGetP2PAttribute=4:4
cuCtxEnablePeerAccess=3:3 cuCtxDisablePeerAccess=3:3
cuMemcpyPeer/base=5:5 cuMemcpyPeer/_ptds=1:1 cuMemcpyPeer=6:6
cuMemcpyPeerAsync/base=3:3 cuMemcpyPeerAsync/_ptsz=1:1 cuMemcpyPeerAsync=4:4
cuMemcpy3DPeer=2:2 cuMemcpy3DPeerAsync=2:2
cuIpcGetMemHandle=2:2 cuIpcGetEventHandle=1:1
cuIpcOpenMemHandle/base=1:1 cuIpcOpenMemHandle/_v2=1:1 cuIpcOpenEventHandle=1:1 cuIpcCloseMemHandle=2:2
cuMemAllocManaged=2:2 cuMemAdvise/base=1:1 cuMemAdvise/_v2=4:4
cuMemPrefetchAsync/base=1:1 cuMemPrefetchAsync=3:3
cuMemRangeGetAttribute=4:4 cuMemRangeGetAttributes=1:1
cuStreamAttachMemAsync=3:3 cuMemFree/_v2=7:7 cuMemFree/base=0:0 cuMemFreeAsync=2:2
"
# The variants the runtime picks: legacy default stream (static, shared) ...
legacy_exact="
cuMemcpy3DPeer/base=2:2 cuMemcpy3DPeerAsync/base=2:2 cuMemPrefetchAsync/_v2=2:2
cuStreamAttachMemAsync/base=3:3 cuMemFreeAsync/base=2:2
"
# ... and --default-stream per-thread (cudaMemcpyPeer[Async] have no per-thread
# runtime variant, so they stay legacy there too).
ptds_exact="
cuMemcpy3DPeer/base=1:1 cuMemcpy3DPeer/_ptds=1:1
cuMemcpy3DPeerAsync/base=1:1 cuMemcpy3DPeerAsync/_ptsz=1:1
cuMemPrefetchAsync/_v2_ptsz=2:2 cuStreamAttachMemAsync/base=1:1 cuStreamAttachMemAsync/_ptsz=2:2
cuMemFreeAsync/base=1:1 cuMemFreeAsync/_ptsz=1:1
"
if [ "${PW_GPU_STRICT:-1}" = 0 ]; then
	legacy_expect=$runtime_floor legacy_want="$runtime_exact $legacy_exact"
	ptds_expect=$runtime_floor ptds_want="$runtime_exact $ptds_exact"
else
	legacy_expect="$runtime_floor $runtime_exact $legacy_exact" legacy_want=
	ptds_expect="$runtime_floor $runtime_exact $ptds_exact" ptds_want=
fi

# PyTorch and NCCL: what their own code does may change between versions, so
# only floors are hard; the measured numbers are warnings (and the CUPTI
# comparison, when there is one, is soft for them).
torch_expect="cuDeviceCanAccessPeer=2 cuCtxEnablePeerAccess=1 cuIpcGetMemHandle=1
cuIpcGetEventHandle=1 cuIpcOpenMemHandle=1 cuIpcOpenEventHandle=1"
torch_want="cuDeviceCanAccessPeer=4:4 cuCtxEnablePeerAccess=2:2 cuIpcGetMemHandle=1:1
cuIpcGetEventHandle=1:1 cuIpcOpenMemHandle/_v2=1:1 cuIpcOpenEventHandle=1:1 cuIpcCloseMemHandle=1:1"
# Default NCCL: peer buffers go through cuMem* (not hooked); per rank 52 peer
# queries and one cuMemFree.
nccl_expect="cuDeviceCanAccessPeer=2"
nccl_want="cuDeviceCanAccessPeer=104:104 cuMemFree=2:2"
# NCCL_CUMEM_ENABLE=0: legacy CUDA IPC between the two ranks.
nccl_ipc_expect="cuDeviceCanAccessPeer=2 cuIpcGetMemHandle=2 cuIpcOpenMemHandle=2 cuIpcCloseMemHandle=2"
nccl_ipc_want="cuDeviceCanAccessPeer=104:104 cuIpcGetMemHandle=98:98 cuIpcOpenMemHandle/_v2=96:96
cuIpcCloseMemHandle=96:96 cuMemFree=298:298"

# --- one case --------------------------------------------------------------------
declare -a rows=()
failures=0

summary_row() { # name plain traced stdout calls check warnings oracle verdict seconds
	rows+=("$(printf '%-16s %-6s %-6s %-8s %6s %-6s %5s %-7s %-8s %4s' "$@")")
}

elapsed() { echo $((SECONDS - start_s)); }

# run_case NAME TIMEOUT MIN_PROCS ORACLE "EXPECT" "WANT" -- COMMAND...
#   ORACLE: hard (trace counts must equal CUPTI's) or soft (differences warn)
run_case() {
	local name=$1 limit=$2 procs=$3 oracle_mode=$4 expect=$5 want=$6
	shift 7
	local dir=$work/$name t0=$SECONDS
	if [ -n "${PW_GPU_ONLY:-}" ] && [[ " $PW_GPU_ONLY " != *" $name "* ]]; then
		return
	fi
	mkdir -p "$dir"
	printf '%s\n' "$*" >"$dir/command.txt"
	if [ "$(elapsed)" -ge "$budget_s" ]; then
		echo "== $name: NOT RUN (the ${budget_s}s budget is spent)"
		summary_row "$name" - - - - - - - "NOT-RUN" 0
		failures=$((failures + 1))
		return
	fi
	echo "== $name: $*"

	# 1. Without peerwatch.
	timeout -k 10 "$limit" "$@" >"$dir/plain.stdout" 2>"$dir/plain.stderr"
	local rc_plain=$?
	if [ "$rc_plain" = 127 ] && grep -q 'libcuda.so.1: cannot open' "$dir/plain.stderr"; then
		echo "   skipped: no CUDA driver (libcuda.so.1) on this machine"
		summary_row "$name" 127 - - - - - - "SKIP" $((SECONDS - t0))
		return
	fi
	if [ "$rc_plain" = 77 ]; then
		echo "   skipped: $(head -n 1 "$dir/plain.stdout")"
		summary_row "$name" 77 - - - - - - "SKIP" $((SECONDS - t0))
		return
	fi

	# 2. With peerwatch.
	timeout -k 10 "$limit" "$launcher" -o "$dir/trace" --mode "$mode" -- "$@" \
		>"$dir/pw.stdout" 2>"$dir/pw.stderr"
	local rc_pw=$?

	# 3. The same output?
	local same=yes
	if ! cmp -s "$dir/plain.stdout" "$dir/pw.stdout"; then
		same=DIFFERS
		diff -u "$dir/plain.stdout" "$dir/pw.stdout" >"$dir/stdout.diff"
		echo "   stdout differs with peerwatch:"
		head -n 20 "$dir/stdout.diff" | sed 's/^/     /'
	fi

	# 4. The reference count, CUPTI's, from a third run without peerwatch.
	local oracle_args=() oracle_state=- nondeterministic=0
	if [ -n "$oracle_lib" ]; then
		mkdir -p "$dir/cupti"
		CUDA_INJECTION64_PATH=$oracle_lib PWCUPTI_OUT=$dir/cupti \
			timeout -k 10 "$limit" "$@" >"$dir/cupti.stdout" 2>"$dir/cupti.stderr"
		local rc_cupti=$?
		if ! cmp -s "$dir/plain.stdout" "$dir/cupti.stdout"; then
			nondeterministic=1
			diff -u "$dir/plain.stdout" "$dir/cupti.stdout" >"$dir/cupti-stdout.diff"
			echo "   stdout differs between two runs without peerwatch: see $name/cupti-stdout.diff"
		fi
		if [ "$rc_cupti" = 0 ] && ls "$dir"/cupti/cupti.*.tsv >/dev/null 2>&1; then
			oracle_args=(--oracle "$dir/cupti")
			[ "$oracle_mode" = soft ] && oracle_args+=(--oracle-soft)
			oracle_state=$oracle_mode
		else
			oracle_state=broken
			echo "   CUPTI reference run failed (exit $rc_cupti): see $name/cupti.stderr"
		fi
	fi

	# 5. The traces.
	local -a spec_args=()
	local s
	for s in $expect; do spec_args+=(--expect "$s"); done
	for s in $want; do spec_args+=(--want "$s"); done
	"$py" "$here/check_trace.py" "$dir/trace" --list-files --min-processes "$procs" --min-calls 1 \
		"${oracle_args[@]}" "${spec_args[@]}" >"$dir/check.txt" 2>&1
	local rc_check=$?
	local result calls warns
	result=$(grep '^RESULT:' "$dir/check.txt" | tail -n 1)
	calls=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' <<<"$result")
	warns=$(sed -n 's/.* warnings=\([0-9]*\).*/\1/p' <<<"$result")
	[ -x "$analyzer" ] && "$analyzer" summary "$dir/trace" >"$dir/analyze-summary.txt" 2>&1

	local verdict=PASS why=
	[ "$rc_plain" = 0 ] || why="$why; fails without peerwatch (exit $rc_plain)"
	[ "$rc_pw" = "$rc_plain" ] || why="$why; exit $rc_pw with peerwatch, $rc_plain without"
	[ "$same" = yes ] || why="$why; stdout differs"
	[ "$rc_check" = 0 ] || why="$why; trace check failed"
	[ "$oracle_state" != broken ] || why="$why; CUPTI reference run failed"
	[ "$nondeterministic" = 0 ] || why="$why; the program's stdout is not deterministic"
	if [ -n "$why" ]; then
		verdict=FAIL
		failures=$((failures + 1))
		echo "   FAIL${why#;}"
		sed -n '/^errors:/,/^$/p' "$dir/check.txt" | head -n 30 | sed 's/^/   /'
		for f in plain pw; do
			if [ -s "$dir/$f.stderr" ]; then
				echo "   --- $f.stderr (last lines)"
				tail -n 8 "$dir/$f.stderr" | sed 's/^/     /'
			fi
		done
	fi
	grep -q '^  WARN' "$dir/check.txt" && grep '^  WARN' "$dir/check.txt" | sed 's/^/   /'
	echo "   $verdict  ${result#RESULT: }  ($((SECONDS - t0))s)"
	summary_row "$name" "$rc_plain" "$rc_pw" "$same" "${calls:-?}" \
		"$([ "$rc_check" = 0 ] && echo ok || echo FAIL)" "${warns:-?}" "$oracle_state" "$verdict" \
		$((SECONDS - t0))
}

# run_py_case: as run_case, but SKIP when python has no torch.
run_py_case() {
	local name=$1
	if [ "$have_torch" = 0 ]; then
		if [ -z "${PW_GPU_ONLY:-}" ] || [[ " $PW_GPU_ONLY " == *" $name "* ]]; then
			echo "== $name: skipped, $py cannot import torch"
			summary_row "$name" - - - - - - - "SKIP" 0
		fi
		return
	fi
	run_case "$@"
}

# --- the cases -------------------------------------------------------------------------
run_case peer_static 60 2 hard "$legacy_expect" "$legacy_want" -- "$bin_dir/peer_static"
run_case peer_shared 60 2 hard "$legacy_expect" "$legacy_want" -- "$bin_dir/peer_shared"
run_case peer_ptds 60 2 hard "$ptds_expect" "$ptds_want" -- "$bin_dir/peer_ptds"
run_case peer_driver 60 2 hard "$driver_expect" "" -- "$bin_dir/peer_driver"
run_py_case torch_peer 150 2 soft "$torch_expect" "$torch_want" -- "$py" "$here/torch_peer.py"
run_py_case nccl_allreduce 150 2 soft "$nccl_expect" "$nccl_want" -- "$py" "$here/nccl_allreduce.py"
run_py_case nccl_legacy_ipc 150 2 soft "$nccl_ipc_expect" "$nccl_ipc_want" -- \
	"$py" "$here/nccl_allreduce.py" --legacy-ipc

# --- summary --------------------------------------------------------------------------
{
	printf '%-16s %-6s %-6s %-8s %6s %-6s %5s %-7s %-8s %4s\n' \
		program plain traced stdout calls trace warn oracle verdict secs
	printf '%s\n' "${rows[@]}"
	echo
	if [ "$failures" = 0 ]; then
		echo "ALL PASSED ($(elapsed)s)"
	else
		echo "$failures case(s) FAILED ($(elapsed)s)"
	fi
} >"$work/summary.txt"
for d in "$work"/*/; do
	[ -f "$d/check.txt" ] || continue
	printf '===== %s\n' "$(basename "$d")"
	cat "$d/check.txt"
	echo
done >"$work/checks.txt"

cp "$work/summary.txt" "$work/checks.txt" "$work/env.txt" "$out_dir/"
tar -czf "$out_dir/results.tar.gz" -C "$(dirname "$work")" "$(basename "$work")" ||
	echo "run.sh: could not write $out_dir/results.tar.gz" >&2
echo
echo "===== summary (details: $work, $out_dir/results.tar.gz)"
cat "$work/summary.txt"
[ "$failures" = 0 ]

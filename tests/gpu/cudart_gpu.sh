#!/usr/bin/env bash
# The runtime API layer on real GPUs and the real libcudart.so.13: the
# scenarios of tests/integration/rt.c (plain C, linked against the toolkit's
# shared cudart), under peerwatch, on a machine with two peer-capable GPUs.
# Not yet run on GPUs (the device machine of the session that wrote it
# could not be handed this branch's build); run it after a merge:
#
#   make && tests/gpu/cudart_gpu.sh [BUILD_DIR] [OUT_DIR]
#
# Without a GPU, with LD_LIBRARY_PATH=BUILD_DIR/sim, it runs the real runtime
# over the simulated driver: tests/integration/cudart.sh does that whenever
# the toolkit's libcudart.so.13 is installed.
#
# Checks: the clean run has no finding and every call answers as documented;
# each broken scenario has exactly one finding, naming the cuda* API; every
# driver event with a parent points at a runtime event.  It also prints, per
# runtime API, which driver calls the real runtime made under it.
# RT_NO_FORK=1: a real CUDA cannot be used in a child forked after its
# initialisation, so the IPC importer of the simulator's run is left out.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0
B=$(cd "${1:-build}" && pwd)
OUT=${2:-${OUT:-/tmp/pw-cudart-gpu}}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
mkdir -p "$OUT"
RT="$OUT/rt"
${CC:-cc} -std=gnu11 -O2 -g -I"$root/include" -I"$root/tests/sim" -D_GNU_SOURCE "$root/tests/integration/rt.c" \
	-o "$RT" -ldl -L"$CUDA_HOME/lib64" -l:libcudart.so.13 -Wl,-rpath,"$CUDA_HOME/lib64" || exit 2
export RT_NO_FORK=1
pass=0 fail=0
check() {
	local d=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $d"; else fail=$((fail + 1)); echo "not ok - $d"; fi
}
for pair in clean: enable-twice:peer.enable.twice:cudaDeviceEnablePeerAccess \
	ipc-same-process:ipc.open.same-process:cudaIpcOpenMemHandle \
	no-peer-access:copy.peer.no-peer-access:cudaMemcpyPeer \
	advise-not-managed:managed.advise.not-managed:cudaMemAdvise; do
	IFS=: read -r sc rule api <<<"$pair"
	rm -rf "$OUT/$sc"
	"$B/bin/peerwatch" -q -o "$OUT/$sc" --mode warn -- "$RT" "$sc" >"$OUT/$sc.out" 2>"$OUT/$sc.err"
	check "$sc: every call answered as documented" [ $? -eq 0 ]
	f="$OUT/$sc.jsonl"
	cat "$OUT/$sc"/*.pw.jsonl >"$f"
	got=$(jq -r 'select(.type=="violation") | .rule + " in " + .api' "$f" | tr '\n' ';')
	want=""
	[ -n "$rule" ] && want="$rule in $api;"
	check "$sc: findings '$want' (got '$got')" [ "$got" = "$want" ]
	check "$sc: every driver event with a parent points at a runtime event" jq -e -s '
		([.[] | select(.type=="call" and .layer=="runtime") | .seq]) as $rt |
		all(.[] | select(.type=="call" and (has("layer") | not) and has("parent")); .parent as $p | $rt | index($p) != null)' "$f" >/dev/null
	echo "   $sc: driver calls under each runtime API:"
	jq -r -s '(map(select(.type=="call" and .layer=="runtime")) | map({key: (.seq|tostring), value: (.api + .variant)}) | from_entries) as $rt |
		.[] | select(.type=="call" and has("parent") and (has("layer") | not)) | "     " + $rt[.parent|tostring] + " -> " + .api + .variant' "$f" | sort | uniq -c
done
echo "cudart_gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]

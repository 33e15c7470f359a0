#!/usr/bin/env bash
# The runtime API layer on real GPUs and the real libcudart.so.13: the
# scenarios of tests/integration/rt.c (plain C, linked against the toolkit's
# shared cudart), under peerwatch, on a machine with two peer-capable GPUs.
# Scenarios that name device 1 are skipped where one GPU is visible.
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
jqe() { jq -e "$@" >/dev/null; } # a jq test whose output is not the point
check() {
	local d=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $d"; else fail=$((fail + 1)); echo "not ok - $d"; fi
}
# The GPUs this process sees: a scenario that names device 1 needs two.
# Without nvidia-smi this is the simulated driver: PWSIM_DEVICES (2).
if command -v nvidia-smi >/dev/null; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
else
	ngpu=${PWSIM_DEVICES:-2}
fi
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && ngpu=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
skip=0
# scenario:findings ("rule in api", ;-separated):GPUs it needs
for pair in "clean::2" "enable-twice:peer.enable.twice in cudaDeviceEnablePeerAccess:2" \
	"ipc-same-process:ipc.open.same-process in cudaIpcOpenMemHandle:1" \
	"no-peer-access:copy.peer.no-peer-access in cudaMemcpyPeer:2" \
	"advise-not-managed:managed.advise.not-managed in cudaMemAdvise:1" \
	"sticky:error.sticky in cudaGetLastError:1" "sticky-clean::1" \
	"sticky-peek:peer.enable.twice in cudaDeviceEnablePeerAccess;error.sticky in cudaPeekAtLastError;error.sticky in cudaGetLastError:2"; do
	IFS=: read -r sc want need <<<"$pair"
	if [ "$ngpu" -lt "$need" ]; then
		skip=$((skip + 1))
		echo "SKIP - $sc (needs $need GPUs, this machine has $ngpu)"
		continue
	fi
	rm -rf "$OUT/$sc"
	"$B/bin/peerwatch" -q -o "$OUT/$sc" --mode warn -- "$RT" "$sc" >"$OUT/$sc.out" 2>"$OUT/$sc.err"
	check "$sc: every call answered as documented" [ $? -eq 0 ]
	f="$OUT/$sc.jsonl"
	cat "$OUT/$sc"/*.pw.jsonl >"$f"
	got=$(jq -r 'select(.type=="violation") | .rule + " in " + .api' "$f" | tr '\n' ';')
	[ -n "$want" ] && want="$want;"
	check "$sc: findings '$want' (got '$got')" [ "$got" = "$want" ]
	check "$sc: every driver event with a parent points at a runtime event" jqe -s '
		([.[] | select(.type=="call" and .layer=="runtime") | .seq]) as $rt |
		all(.[] | select(.type=="call" and (has("layer") | not) and has("parent")); .parent as $p | $rt | index($p) != null)' "$f"
	echo "   $sc: driver calls under each runtime API:"
	jq -r -s '(map(select(.type=="call" and .layer=="runtime")) | map({key: (.seq|tostring), value: (.api + .variant)}) | from_entries) as $rt |
		.[] | select(.type=="call" and has("parent") and (has("layer") | not)) | "     " + $rt[.parent|tostring] + " -> " + .api + .variant' "$f" | sort | uniq -c
done
# The device lines of a short program (rt sticky, which one GPU runs):
# written at exit by the writer thread (the exiting thread asks it for a
# round), with the GPU's UUID and name as the driver gives them.
f="$OUT/sticky.jsonl"
if [ -s "$f" ] && command -v nvidia-smi >/dev/null; then
	uu=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 2>/dev/null | tr -d ' ')
	nm=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null)
	check "sticky: its trace names device 0 by nvidia-smi's UUID ($uu) and name ($nm)" jqe -s --arg u "$uu" --arg n "$nm" '
		any(.[]; .type=="device" and .ordinal==0 and .uuid==$u and .name==$n)' "$f"
	echo "   sticky: device lines: $(jq -c 'select(.type=="device") | {ordinal, uuid, name, bus_id, peers: (.peers|length)}' "$f" | tr '\n' ' ')"
fi

# error.sticky on the real runtime: the finding names the call that left the
# code, and the code is the one the real runtime returned for it.
f="$OUT/sticky.jsonl"
if [ -s "$f" ]; then
	check "sticky: the finding names the second cudaFree, its seq and the code it returned" jqe -s '
		([.[] | select(.type=="call" and .api=="cudaFree" and .ret != 0)] | .[0]) as $c |
		[.[] | select(.type=="violation")] | length==1 and .[0].severity=="performance" and
		(.[0].message | startswith("cudaGetLastError returned \($c.ret) (\($c.ret_name)), left by cudaFree (call \($c.seq)) on this thread"))' "$f"
	echo "   sticky: $(jq -r 'select(.type=="violation") | .message' "$f" | head -1)"
fi
echo "cudart_gpu: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

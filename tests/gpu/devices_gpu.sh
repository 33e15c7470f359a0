#!/bin/bash
# Device identity on real GPUs (tests/gpu/README.md, "Device identity"):
#   1. what NVML says of every pair (nvml_probe), and nvidia-smi's view;
#   2. ranks that see the GPUs in different orders (CUDA_VISIBLE_DEVICES)
#      each copy 1 MiB from their ordinal 0 to their ordinal 1 (visible):
#      - 2 GPUs: rank 0 with 0,1 and rank 1 with 1,0;
#      - 4 or more: rank r with r,r+1,... (a ring);
#      the traces' device lines name each rank's ordinals by the UUIDs
#      nvidia-smi lists, `matrix` shows 1 MiB in each direction of each pair
#      the ranks copied over (not 2 MiB from "dev0" to "dev1"), and the LINK
#      column is what NVML says of the pair;
#   3. observe mode changes nothing: each rank's output is the same traced;
#   4. IPC between an exporter and an importer that sees the GPUs the other
#      way round (ipc.open.unreachable only where NVML says no P2P).
#
#   tests/gpu/devices_gpu.sh DIR     (DIR: make gpu-carry's folder, or BUILD/gpu
#                                     with BUILD/bin/peerwatch beside it)
set -u
G=$(cd "${1:-build/gpu}" && pwd)
PW=${PW:-$G/../bin/peerwatch}
AN=${AN:-$G/../bin/peerwatch-analyze}
WORK=${PW_GPU_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/pw-devices.XXXXXX")}
mkdir -p "$WORK"
export CUDA_DEVICE_ORDER=PCI_BUS_ID # indices as nvidia-smi numbers them
export NCCL_NVLS_ENABLE=0           # NVLink multicast stays off on shared machines
pass=0
fail=0
q() { "$@" >/dev/null; }
check() { if "${@:2}"; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi; }

echo "== NVML, every pair of the host"
"$G/nvml_probe" | tee "$WORK/nvml.txt"
check "NVML answered" grep -q '^pair ' "$WORK/nvml.txt"
if command -v nvidia-smi >/dev/null; then
	echo "== nvidia-smi -L; topo -m"
	nvidia-smi -L | tee "$WORK/smi.txt"
	nvidia-smi topo -m
fi
n=$(grep -c '^device ' "$WORK/nvml.txt")
[ "$n" -ge 2 ] || { echo "fewer than 2 GPUs: nothing more to do"; exit 1; }
ranks=2
[ "$n" -ge 4 ] && ranks=4

order() { # RANK: the devices rank RANK sees, its ordinal 0 first
	local r=$1 i s=""
	if [ $ranks = 2 ]; then
		[ "$r" = 0 ] && echo 0,1 || echo 1,0
		return
	fi
	for i in 0 1 2 3; do s="$s${s:+,}$(((r + i) % 4))"; done
	echo "$s"
}

echo "== $ranks ranks, each copying 1 MiB from its ordinal 0 to its ordinal 1"
for r in $(seq 0 $((ranks - 1))); do
	CUDA_VISIBLE_DEVICES=$(order $r) "$G/visible" cuda 1048576 >"$WORK/plain.$r" 2>&1
	echo "plain rank $r (CUDA_VISIBLE_DEVICES=$(order $r)): $(cat "$WORK/plain.$r")"
done
rm -rf "$WORK/trace"
for r in $(seq 0 $((ranks - 1))); do
	RANK=$r CUDA_VISIBLE_DEVICES=$(order $r) "$PW" -q --mode observe -o "$WORK/trace" -- \
		"$G/visible" cuda 1048576 >"$WORK/traced.$r" 2>"$WORK/err.$r" &
done
wait
for r in $(seq 0 $((ranks - 1))); do
	check "rank $r: the same output traced" cmp -s "$WORK/plain.$r" "$WORK/traced.$r"
done
"$AN" matrix "$WORK/trace" | tee "$WORK/matrix.txt"
"$AN" matrix --json "$WORK/trace" >"$WORK/matrix.json"
check "one trace per rank, each with a device line per visible device" \
	bash -c "[ \$(ls '$WORK'/trace/*.pw.jsonl | wc -l) = $ranks ] &&
		[ \$(cat '$WORK'/trace/*.pw.jsonl | grep -c '\"type\":\"device\"') = $((ranks * (ranks == 2 ? 2 : 4))) ]"
if [ -s "$WORK/smi.txt" ]; then
	check "the device lines' UUIDs are the ones nvidia-smi -L lists" \
		bash -c "jq -r 'select(.type==\"device\") | .uuid' '$WORK'/trace/*.pw.jsonl | sort -u |
			while read -r u; do grep -q \"UUID: \$u)\" '$WORK/smi.txt' || exit 1; done"
fi
# each rank's (ordinal 0, ordinal 1) as UUIDs: the pairs the copies went over
for f in "$WORK"/trace/*.pw.jsonl; do
	jq -rs '(map(select(.type=="device" and .ordinal==0))[0].uuid) + " " +
		(map(select(.type=="device" and .ordinal==1))[0].uuid)' "$f"
done >"$WORK/want.txt"
jq -r '.hosts[0] as $h | ($h.identities | map({(.device): .uuid}) | add) as $u |
	$h.pairs[] | select(.copies > 0) | "\($u[.src]) \($u[.dst]) \(.bytes)"' "$WORK/matrix.json" |
	sort >"$WORK/got.txt"
sed 's/$/ 1048576/' "$WORK/want.txt" | sort >"$WORK/want-bytes.txt"
check "matrix: 1 MiB over each pair a rank copied over, by UUID, none merged" \
	cmp -s "$WORK/got.txt" "$WORK/want-bytes.txt"
check "matrix: the link of each copied pair is known (NVML was there)" \
	q jq -e '[.hosts[0].pairs[] | select(.copies > 0) | .link.link] | all(. != null and . != "unknown")' \
	"$WORK/matrix.json"
# IPC across processes that number the GPUs differently: the exporter uses
# its ordinal 0 (GPU 0); the importer runs under CUDA_VISIBLE_DEVICES=1,0 and
# opens on its ordinal 1 (GPU 0 again: "good") or its ordinal 0 (GPU 1:
# "bad"). The registry names the exporter's GPU by UUID, so the importer's
# finding (ipc.open.unreachable) comes only where GPU 1 cannot access GPU 0.
echo "== IPC, the importer seeing the GPUs the other way round"
p2p=$(awk '$1 == "pair" && $2 == 1 && $3 == 0 {print $5}' "$WORK/nvml.txt")
for k in good bad; do
	rm -rf "$WORK/ipc-$k"
	PEERWATCH_RUN_ID="devices-gpu-$$-$k" "$PW" -q --mode warn -o "$WORK/ipc-$k" -- \
		"$G/violations" ipc.open.unreachable $k >"$WORK/ipc-$k.out" 2>"$WORK/ipc-$k.err"
	echo "ipc $k: status $?, findings: $(cat "$WORK"/ipc-$k/*.pw.jsonl | jq -r 'select(.type=="violation") | .rule' | tr '\n' ' ')"
done
unreach() { cat "$WORK"/ipc-$1/*.pw.jsonl | grep -c '"rule":"ipc.open.unreachable"'; }
check "ipc: two traces each, the importer's device lines swapped (its ordinal 1 is the exporter's 0)" \
	bash -c "[ \$(ls '$WORK'/ipc-good/*.pw.jsonl | wc -l) = 2 ] &&
		[ \$(jq -r 'select(.type==\"device\") | .uuid' '$WORK'/ipc-good/*.pw.jsonl | sort -u | wc -l) = 2 ]"
check "ipc: opening on the exporter's own GPU (its ordinal 1 there): no finding" [ "$(unreach good)" = 0 ]
if [ "$p2p" = ok ]; then
	check "ipc: opening on GPU 1, which NVML says reads GPU 0 (P2P ok): no finding" [ "$(unreach bad)" = 0 ]
else
	check "ipc: opening on GPU 1, which cannot access GPU 0 (NVML: ${p2p:-?}): one finding" [ "$(unreach bad)" = 1 ]
fi
echo "devices_gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# All-pairs runs on a machine with more than two GPUs (every visible GPU is used):
#   mesh  all-pairs peer enabling as inference servers do it at start-up
#         (peer_mesh, tests/integration/peer_mesh.c), then a 64 MiB peer copy
#         between every ordered pair, without and with peerwatch (warn,
#         gpu_timing=1): stdout identical, no finding, `peerwatch-analyze
#         matrix` with the N x N peer state and device-measured bandwidth;
#   nccl  an N-rank NCCL all_reduce started by torchrun, one process per GPU,
#         NCCL's default VMM sharing (3 runs each way, alternating) and the
#         legacy cuIpc path (1 each): stdout identical, findings, every rank's
#         exports and imports (paths_check.py RANKS, `peerwatch-analyze ipc`),
#         and the whole job's wall time with and without peerwatch;
#   bw    peer bandwidth and latency of every ordered pair, peer access off and
#         on, 4 KiB to 256 MiB, without and with peerwatch (bw_compare.py).
#
# usage: tests/gpu/multi_gpu.sh BUNDLE_DIR [OUT_DIR] [PART...]
#   PART  mesh, nccl, bw (default: all three, in that order)
# Programs come from beside this script (a carried build/gpu) or build/gpu.
# Writes OUT_DIR/multi_<part>.txt and, but for bw, OUT_DIR/multi_<part>.tar.gz (traces).
# Exit status 0 when every part that ran passed.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
bundle=$(cd "${1:-build/dist/peerwatch}" && pwd -P) || exit 2
out=${2:-${OUT:-/tmp/pw-gpu-out}}
shift $(($# >= 2 ? 2 : $#))
parts=${*:-mesh nccl bw}
mkdir -p "$out"
py=${PYTHON:-python3}
bin=${PW_GPU_BIN:-$here}
[ -x "$bin/peer_mesh" ] || bin=$here/../../build/gpu
pw=$bundle/bin/peerwatch
an=$bundle/bin/peerwatch-analyze
ndev=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
work=$(mktemp -d /tmp/pw-multi.XXXXXX)
failed=0

now() { date +%s.%N; }
secs() { "$py" -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
findings() { # DIR: "rule xN ..." over every trace under DIR, or "none"
	"$py" - "$1" <<'PY'
import collections, glob, json, sys
c = collections.Counter()
for f in glob.glob(sys.argv[1] + "/*.pw.jsonl*"):
    for line in open(f):
        e = json.loads(line)
        if e.get("type") == "violation":
            c[e["rule"]] += 1
print(" ".join("%s x%d" % kv for kv in sorted(c.items())) or "none")
PY
}
verdict() { # NAME OK?
	if [ "$2" = 0 ]; then echo "$1: PASS"; else echo "$1: FAIL"; failed=$((failed + 1)); fi
}

part_mesh() {
	local d=$work/mesh rc0 rc1 t0 t1 t2 bad=0
	mkdir -p "$d"
	t0=$(now)
	"$bin/peer_mesh" >"$d/plain.out" 2>"$d/plain.err"
	rc0=$?
	t1=$(now)
	"$pw" -q -o "$d/trace" --mode warn --options gpu_timing=1 -- "$bin/peer_mesh" >"$d/out" 2>"$d/err"
	rc1=$?
	t2=$(now)
	echo "peer_mesh: exit $rc0 plain ($(secs "$t0" "$t1") s), $rc1 traced ($(secs "$t1" "$t2") s)"
	head -n 1 "$d/out"
	tail -n 1 "$d/out"
	[ "$rc0" = 0 ] && [ "$rc1" = 0 ] || bad=1
	if cmp -s "$d/plain.out" "$d/out"; then echo "stdout identical"; else echo "stdout DIFFERS"; bad=1; fi
	local f
	f=$(findings "$d/trace")
	echo "findings: $f"
	[ "$f" = none ] || bad=1
	grep -q "peer access enabled on $((ndev * (ndev - 1))) of $((ndev * (ndev - 1))) ordered pairs" "$d/out" || bad=1
	echo "--- peerwatch-analyze matrix"
	"$an" matrix "$d/trace"
	"$an" matrix --json "$d/trace" >"$d/matrix.json"
	"$py" - "$d/matrix.json" "$ndev" <<'PY' || bad=1
import json, sys
m = json.load(open(sys.argv[1]))["hosts"][0]
n = int(sys.argv[2])
pairs = {(p["src"], p["dst"]): p for p in m["pairs"]}
want = [(s, d) for s in range(n) for d in range(n) if s != d]
ok = all(k in pairs and pairs[k]["peer_on_at_end"] >= 1 and pairs[k]["gpu_gbps"] for k in want)
g = [pairs[k]["gpu_gbps"] for k in want if k in pairs and pairs[k]["gpu_gbps"]]
print("matrix: %d of %d ordered pairs with access on and a device-measured bandwidth; GB/s min %.1f max %.1f"
      % (sum(1 for k in want if k in pairs and pairs[k]["peer_on_at_end"] >= 1 and pairs[k]["gpu_gbps"]),
         len(want), min(g or [0]), max(g or [0])))
sys.exit(0 if ok else 1)
PY
	"$an" check "$d/trace" || bad=1
	verdict mesh $bad
}

# nccl_run NAME PLAIN|TRACED ARGS...: one torchrun job; prints its wall time.
nccl_run() {
	local name=$1 how=$2 d=$work/nccl/$1 t0 t1 rc
	shift 2
	mkdir -p "$d"
	local cmd=("$py" -m torch.distributed.run --standalone --nproc-per-node "$ndev" "$here/nccl_allreduce.py" "$@")
	t0=$(now)
	if [ "$how" = traced ]; then
		timeout 300 "$pw" -q -o "$d/trace" --mode warn -- "${cmd[@]}" >"$d/out" 2>"$d/err"
	else
		timeout 300 "${cmd[@]}" >"$d/out" 2>"$d/err"
	fi
	rc=$?
	t1=$(now)
	echo "$name: exit $rc, $(secs "$t0" "$t1") s"
	[ "$rc" = 0 ] || tail -n 5 "$d/err" | sed 's/^/    /'
	echo "$(secs "$t0" "$t1")" >"$d/secs"
	return $rc
}

part_nccl() {
	local bad=0 i w=$work/nccl
	for i in 1 2 3; do
		nccl_run "vmm-plain-$i" plain || bad=1
		nccl_run "vmm-traced-$i" traced || bad=1
	done
	nccl_run legacy-plain plain --legacy-ipc || bad=1
	nccl_run legacy-traced traced --legacy-ipc || bad=1
	for n in vmm-traced-1 vmm-traced-2 vmm-traced-3 vmm-plain-2 vmm-plain-3; do
		cmp -s "$w/vmm-plain-1/out" "$w/$n/out" || { echo "stdout of $n differs"; bad=1; }
	done
	cmp -s "$w/legacy-plain/out" "$w/legacy-traced/out" || { echo "stdout of legacy-traced differs"; bad=1; }
	cat "$w/vmm-plain-1/out"
	"$py" - "$w" <<'PY'
import statistics, sys
w = sys.argv[1]
t = lambda n: float(open("%s/%s/secs" % (w, n)).read())
p = [t("vmm-plain-%d" % i) for i in (1, 2, 3)]
q = [t("vmm-traced-%d" % i) for i in (1, 2, 3)]
print("whole job, VMM path: plain %s s, traced %s s; medians %.2f / %.2f s: traced/plain %.3f"
      % (p, q, statistics.median(p), statistics.median(q), statistics.median(q) / statistics.median(p)))
print("whole job, legacy IPC: plain %.2f s, traced %.2f s: %.3f"
      % (t("legacy-plain"), t("legacy-traced"), t("legacy-traced") / t("legacy-plain")))
PY
	local case
	for case in vmm-traced-1:nccl-vmm legacy-traced:nccl-legacy; do
		local n=${case%%:*} k=${case#*:}
		echo "===== $n"
		echo "findings: $(findings "$w/$n/trace")"
		"$py" "$here/paths_check.py" "$k" "$w/$n/trace" "$ndev" || bad=1
		echo "--- peerwatch-analyze ipc (first 25 lines)"
		"$an" ipc "$w/$n/trace" 2>&1 | head -n 25
		echo "--- per process: exports / imports (ipc --json)"
		"$an" ipc --json "$w/$n/trace" | "$py" -c '
import collections, json, sys
d = json.load(sys.stdin)
exp, imp, rank = collections.Counter(), collections.Counter(), {}
for s in d.get("shared", []) + d.get("handles", []):
    ops = {(e["op"], e["process"]["pid"]): e["process"].get("rank") for e in s.get("life", [])}
    for (op, pid), r in ops.items():
        rank[pid] = r
        if op == "export":
            exp[pid] += 1
        elif op in ("import", "open"):
            imp[pid] += 1
for pid in sorted(rank, key=lambda p: (str(rank[p]), p)):
    print("  rank %s (pid %d): exports %d, imports %d" % (rank[pid], pid, exp[pid], imp[pid]))
'
		echo "--- peerwatch-analyze matrix (the grids)"
		"$an" matrix "$w/$n/trace" 2>&1 | awk '/^  SRC +DST/ { exit } { print }'
	done
	verdict nccl $bad
}

part_bw() {
	local bad=0
	"$py" "$here/bw_compare.py" "$bin/peer_bw" "$bundle" "$work/bw" 3 || bad=1
	verdict bw $bad
}

echo "multi_gpu: $ndev GPUs; parts: $parts; bundle $bundle"
[ "$ndev" -ge 2 ] || { echo "multi_gpu: needs at least 2 GPUs"; exit 77; }
for part in $parts; do
	case $part in
	mesh | nccl | bw) ;;
	*) echo "multi_gpu: unknown part '$part' (mesh, nccl or bw)" >&2; exit 2 ;;
	esac
	mkdir -p "$work/$part"
	{
		date -u +%Y-%m-%dT%H:%M:%SZ
		[ "$part" = mesh ] && { nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nvidia-smi topo -m; }
		"part_$part"
	} 2>&1 | tee "$out/multi_$part.txt"
	grep -q "^$part: PASS" "$out/multi_$part.txt" || failed=$((failed + 1))
	# bw's traces are large (tens of thousands of copies each): its figures are in the text
	[ "$part" = bw ] || tar -C "$work" -czf "$out/multi_$part.tar.gz" "$part" 2>/dev/null
done
echo "multi_gpu: $failed part(s) failed"
[ "$failed" = 0 ]

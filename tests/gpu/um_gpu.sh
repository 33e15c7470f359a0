#!/usr/bin/env bash
# Unified-memory counters (um_counters=1) and device timing by method
# (gpu_timing=events|cupti) on a real GPU; one GPU serves.
#
#   make && make gpu-programs && tests/gpu/um_gpu.sh [BUILD_DIR] [OUT_DIR]
#
# 1. Each case of um_effects (tests/gpu/um_effects.cu) under peerwatch with
#    um_counters=1: the trace must hold um events and no um_off; the records
#    must add up to what the program did (the prefetches' bytes, a fault on
#    each processor that touched a page it did not hold); peerwatch-analyze
#    managed --effects and violations must name the case's one derived
#    finding, and none for "clean".
# 2. The cost: the "clean" case of 1 GiB with and without um_counters=1; and
#    copy_cost (tests/gpu/copy_cost.cu) for traced and untraced copies
#    untraced, under gpu_timing=0, events and cupti, ROUNDS rounds
#    alternating.  The figures go to stdout and OUT_DIR/um_gpu.txt.
# The traces stay in OUT_DIR for the analyzer to be run on them again.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
B=$(cd "${1:-build}" && pwd -P)
out=${2:-${OUT:-/tmp/pw-um-gpu}}
mkdir -p "$out"
PW="$B/bin/peerwatch"
AN="$B/bin/peerwatch-analyze"
U=$B/gpu/um_effects
C=$B/gpu/copy_cost
ROUNDS=${ROUNDS:-3}
for f in "$PW" "$AN" "$U" "$C"; do
	[ -x "$f" ] || { echo "um_gpu: $f is missing (make && make gpu-programs)"; exit 2; }
done
# The analyzer needs libdw; a GPU machine may lack it: its checks are then
# left for the traces in OUT_DIR, run elsewhere, and said to be skipped.
an_ok=1
"$AN" --version >/dev/null 2>&1 || an_ok=0
log=$out/um_gpu.txt
: >"$log"
say() { echo "$*" | tee -a "$log"; }
pass=0 fail=0
ok() { pass=$((pass + 1)); say "ok: $*"; }
bad() { fail=$((fail + 1)); say "FAIL: $*"; }

declare -A want=(
	[prefetch-late]=um.prefetch.faults-after
	[preferred-thrash]=um.preferred.thrashing
	[read-mostly-written]=um.read-mostly.written
	[accessed-by-faults]=um.accessed-by.faults
	[clean]=
)

for c in prefetch-late preferred-thrash read-mostly-written accessed-by-faults clean; do
	d=$out/$c
	rm -rf "$d"
	mkdir -p "$d"
	if ! "$PW" -q -o "$d/trace" --options um_counters=1 -- "$U" "$c" >"$d/out" 2>"$d/err"; then
		bad "$c: the program failed: $(tail -2 "$d/err")"
		continue
	fi
	python3 - "$d" <<'PY' | tee -a "$log" >"$d/records"
import glob, json, sys, collections
d = sys.argv[1]
kinds = collections.Counter(); by = collections.Counter(); off = None; lost = 0
rng = [l.split()[1] for l in open(d + "/out") if l.startswith("range ")]
size = [int(l.split()[1]) for l in open(d + "/out") if l.startswith("bytes ")]
lo = int(rng[0], 16) if rng else 0; hi = lo + (size[0] if size else 0)
for f in glob.glob(d + "/trace/*.pw.jsonl"):
    for line in open(f):
        e = json.loads(line)
        if e.get("type") == "footer":
            off = e.get("um_off"); lost = e.get("um_lost", 0)
        if e.get("type") != "um":
            continue
        a = int(e["addr"], 16)
        if not (lo <= a < hi):
            continue
        k = e["kind"]; kinds[k] += 1
        if "bytes" in e and k in ("htod", "dtoh", "dtod"):
            by[(k, e.get("cause"))] += e["bytes"]
print("case", d.rsplit("/", 1)[1], "um_off", off, "um_lost", lost, "range_bytes", hi - lo)
print("  records", dict(kinds))
print("  bytes", {f"{k}/{c}": v for (k, c), v in sorted(by.items())})
PY
	off=$(sed -n 's/.*um_off \(.*\) um_lost.*/\1/p' "$d/records")
	[ "$off" = None ] || { bad "$c: counters off: $off"; continue; }
	grep -q "records {.*}" "$d/records" && ! grep -q "records {}" "$d/records" ||
		{ bad "$c: no um records in the range"; continue; }
	if [ "$an_ok" = 0 ]; then
		say "skip: $c: peerwatch-analyze cannot run here ($("$AN" --version 2>&1 | head -1)); run managed --effects and violations --json on $d/trace elsewhere"
		continue
	fi
	"$AN" managed --effects "$d/trace" >"$d/effects.txt" 2>&1
	"$AN" violations --json "$d/trace" >"$d/violations.json" 2>"$d/violations.err"
	got=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
print(" ".join(sorted({x["rule"] for x in f if x["rule"].startswith("um.")})))' "$d/violations.json" 2>/dev/null)
	if [ "$got" = "${want[$c]}" ]; then
		ok "$c: derived findings [${got}]"
	else
		bad "$c: derived findings [${got}], want [${want[$c]}]"
	fi
done

# The records add up: a 64 MiB prefetch to the device moves 64 MiB host to
# device in the clean case, and back with dtoh.
python3 - "$out/clean/records" <<'PY' && ok "clean: the prefetches' bytes are the range's, each way" || bad "clean: prefetch bytes differ from the range"
import ast, re, sys
t = open(sys.argv[1]).read()
n = int(re.search(r"range_bytes (\d+)", t).group(1))
b = ast.literal_eval(re.search(r"bytes (\{.*\})", t).group(1))
# cudaMemPrefetchAsync's migrations carry the cause "user"; "prefetch" is
# the driver's own (measured on an H200, driver 580, 2026-12-03).
sys.exit(0 if b.get("htod/user") == n and b.get("dtoh/user") == n else 1)
PY

# Another CUPTI client in the process (the suite's reference counter,
# injected by the driver as Nsight tools are): the program must run on, and
# peerwatch either gets its records too or says once why not.
if [ -f "$B/gpu/libpwcupti.so" ]; then
	d=$out/busy
	rm -rf "$d"
	mkdir -p "$d"
	CUDA_INJECTION64_PATH=$B/gpu/libpwcupti.so PWCUPTI_OUT=$d \
		"$PW" -q -o "$d/trace" --um-counters -- "$U" clean >"$d/out" 2>"$d/err"
	rc=$?
	off=$(python3 -c '
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.pw.jsonl"):
    for line in open(f):
        e = json.loads(line)
        if e.get("type") == "footer":
            print(e.get("um_off") or "on: %d um events" % e.get("um_events", 0))' "$d/trace")
	if [ "$rc" = 0 ] && grep -q '^ok$' "$d/out"; then
		ok "with another CUPTI client: the program runs on; counters: $off; stderr: $(head -c 300 "$d/err")"
	else
		bad "with another CUPTI client: the program failed ($rc): $(tail -2 "$d/err")"
	fi
fi

# 2. The cost.
say "cost (ns per copy, or ms for the 1 GiB managed case); rounds alternate"
for r in $(seq 1 "$ROUNDS"); do
	t0=$(date +%s%N); "$U" clean 1024 >/dev/null; t1=$(date +%s%N)
	"$PW" -q -o "$out/cost-off" -- "$U" clean 1024 >/dev/null; t2=$(date +%s%N)
	"$PW" -q -o "$out/cost-um" --options um_counters=1 -- "$U" clean 1024 >/dev/null; t3=$(date +%s%N)
	say "round $r managed 1GiB: plain $(((t1 - t0) / 1000000)) ms, peerwatch $(((t2 - t1) / 1000000)) ms, um_counters=1 $(((t3 - t2) / 1000000)) ms"
	for kind in traced untraced; do
		line="round $r $kind:"
		line+=" plain $("$C" "$kind" | sed -n 's/per_copy_ns //p')"
		line+=" cupti-alone $("$C" "$kind" 100000 4 cupti | sed -n 's/per_copy_ns //p')"
		for m in 0 events cupti; do
			rm -rf "$out/cost-$m"
			line+=" gpu_timing=$m $("$PW" -q -o "$out/cost-$m" --options gpu_timing=$m -- "$C" "$kind" | sed -n 's/per_copy_ns //p')"
		done
		say "$line"
	done
	n_ev=$(grep -c '"gpu_time".*"events"' "$out"/cost-events/*.pw.jsonl 2>/dev/null | awk -F: '{s+=$NF} END {print s+0}')
	n_cu=$(grep -c '"gpu_time".*"cupti"' "$out"/cost-cupti/*.pw.jsonl 2>/dev/null | awk -F: '{s+=$NF} END {print s+0}')
	say "round $r gpu_time events in the last untraced runs: events $n_ev, cupti $n_cu"
done
# Device times by both methods for the same traced copies: how far apart.
for m in events cupti; do
	rm -rf "$out/times-$m"
	"$PW" -q -o "$out/times-$m" --options gpu_timing=$m -- "$C" traced 2000 1048576 >/dev/null
	python3 - "$out/times-$m" "$m" <<'PY' | tee -a "$log"
import glob, json, sys, statistics
calls = set(); t = []
for f in glob.glob(sys.argv[1] + "/*.pw.jsonl"):
    for line in open(f):
        e = json.loads(line)
        if e.get("type") == "call" and e.get("api", "").startswith("cuMemcpyPeerAsync"):
            calls.add(e["seq"])
        if e.get("type") == "gpu_time":
            t.append(e["gpu_ns"])
print(f"{sys.argv[2]}: traced peer copies {len(calls)}, gpu_time {len(t)}, median 1 MiB copy {statistics.median(t) if t else 0:.0f} ns")
PY
done
say "um_gpu: $pass passed, $fail failed"
[ "$fail" = 0 ]

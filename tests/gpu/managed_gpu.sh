#!/usr/bin/env bash
# The managed-memory cases on real GPUs, compared case by case with the
# simulator: tests/integration/managed.c, built by gpu.mk with nvcc against
# the real driver and the toolkit's shared libcudart (BUILD/gpu/managed), runs
# each case wrong ("bad") and right ("good") under peerwatch; the same
# source built for the simulated driver (BUILD/tests/managed) runs the same
# case with PWSIM_PAGEABLE set to what the GPUs report (the trace header's
# vendors.cuda.pageable_memory_access).  Per case it prints the findings and
# the call's answer on each side and says MATCH when they agree: the same
# rule ids (exactly the case's rule for "bad", none for "good"), the same
# return code, and, where the GPUs report no pageable memory access, the
# answer the H100 gave (the program's table).
#
#   make && make gpu-programs && tests/gpu/managed_gpu.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR (default build) holds bin/peerwatch, tests/managed, sim/ and
# gpu/managed.  Needs two GPUs and python3 (no jq).  PW_GPU_SIM=1 runs the
# "GPU" side over the simulated driver too (the toolkit's real libcudart over
# BUILD_DIR/sim): a check of the script on a machine without a GPU.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
B=$(cd "${1:-build}" && pwd -P)
out=${2:-${OUT:-/tmp/pw-managed-gpu}}
mkdir -p "$out"
PW="$B/bin/peerwatch"
G=${PW_MANAGED_GPU:-$B/gpu/managed}
[ -x "$G" ] || G=$here/managed
S="$B/tests/managed"
for f in "$PW" "$G" "$S"; do
	[ -x "$f" ] || { echo "managed_gpu: $f is missing (make && make gpu-programs)"; exit 2; }
done
work=$(mktemp -d /tmp/pw-managed-gpu.XXXXXX)
gpu_env=()
[ -n "${PW_GPU_SIM:-}" ] && gpu_env=(LD_LIBRARY_PATH="$B/sim" PWSIM_DEVICES=2)

summary() { # DIR: "rules|ret|pageable" of the one trace under DIR
	python3 - "$1" <<'PY'
import glob, json, sys, os
d = sys.argv[1]
rules, pageable = [], "?"
for f in sorted(glob.glob(d + "/trace/*.pw.jsonl*")):
    for n, line in enumerate(open(f)):
        e = json.loads(line)
        if n == 0 and e.get("type") == "header":
            p = e.get("vendors", {}).get("cuda", {}).get("pageable_memory_access")
            pageable = "?" if not p else ("1" if all(v == 1 for v in p) else "0")
        if e.get("type") == "violation":
            rules.append(e["rule"])
ret = "?"
if os.path.exists(d + "/out"):
    for line in open(d + "/out"):
        if line.startswith("ret "):
            ret = line.split()[1]
print("%s|%s|%s" % (" ".join(rules) or "none", ret, pageable))
PY
}

run_side() { # DIR SIDE CASE KIND [ENV...]
	local d=$1 side=$2 name=$3 kind=$4
	shift 4
	mkdir -p "$d"
	if [ "$side" = gpu ]; then
		env "${gpu_env[@]}" "$@" "$PW" -q -o "$d/trace" --mode warn -- "$G" "$name" "$kind" >"$d/out" 2>"$d/err"
	else
		env LD_LIBRARY_PATH="$B/sim" PWSIM_DEVICES=2 "$@" "$PW" -q -o "$d/trace" --mode warn -- \
			"$S" "$name" "$kind" >"$d/out" 2>"$d/err"
	fi
}

pass=0 fail=0
{
printf '%-38s %-5s %-34s %-5s %-34s %-5s %s\n' case kind gpu-findings ret sim-findings ret verdict
while read -r name rule h100 flags frag; do
	for kind in bad good; do
		gd=$work/$name-$kind-gpu sd=$work/$name-$kind-sim
		run_side "$gd" gpu "$name" "$kind"
		IFS='|' read -r gf gr gp <<<"$(summary "$gd")"
		pg=${gp/\?/0}
		run_side "$sd" sim "$name" "$kind" PWSIM_PAGEABLE="$pg"
		IFS='|' read -r sf sr _ <<<"$(summary "$sd")"
		want=none
		[ $kind = bad ] && want=$rule
		[ $kind = bad ] && [ "$flags" = pageable ] && [ "$pg" = 1 ] && want=none
		why=""
		[ "$gf" = "$want" ] || why="$why gpu-findings!=$want"
		[ "$gf" = "$sf" ] || why="$why findings-differ"
		[ "$gr" = "$sr" ] || why="$why ret-differs"
		[ $kind = good ] && [ "$gr" != 0 ] && why="$why good-ret!=0"
		[ $kind = bad ] && [ "$h100" != "-" ] && [ "$pg" = 0 ] && [ "$gr" != "$h100" ] && why="$why ret!=H100:$h100"
		if [ -z "$why" ]; then
			verdict=MATCH
			pass=$((pass + 1))
		else
			verdict="DIFFER:$why"
			fail=$((fail + 1))
			sed 's/^/    /' "$gd/err" | tail -3
		fi
		printf '%-38s %-5s %-34s %-5s %-34s %-5s %s\n' "$name" "$kind" "$gf" "$gr" "$sf" "$sr" "$verdict"
	done
done < <(env "${gpu_env[@]}" "$G" list)
echo "devices report pageable memory access: ${pg:-?} (the simulator ran with PWSIM_PAGEABLE=${pg:-0})"
echo "managed on GPU: $pass matched, $fail differed"
} 2>&1 | tee "$out/managed_gpu.txt"
tar -C "$work" -czf "$out/managed_gpu.tar.gz" . 2>/dev/null
rm -rf "$work"
grep -q " 0 differed" "$out/managed_gpu.txt"

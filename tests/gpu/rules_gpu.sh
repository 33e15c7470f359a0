#!/usr/bin/env bash
# Every CUDA rule the hardware can show, on real GPUs: the same scenario
# program as the simulated tests (tests/integration/violations.c, built
# against the real libcuda), each rule broken once ("bad": exactly that one
# finding) and approached without breaking it ("good": none).
#
# usage: tests/gpu/rules_gpu.sh BUNDLE_DIR [OUT_DIR]
# Needs python3 (no jq on the GPU machine). Rules a 2-GPU NVLink machine
# cannot show are listed as skipped, with why.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
bundle=$(cd "${1:-build/dist/peerwatch}" && pwd -P)
out=${2:-${OUT:-/tmp/pw-gpu-out}}
mkdir -p "$out"
V=${PW_VIOLATIONS:-$here/violations}
[ -x "$V" ] || V=$here/../../build/gpu/violations
work=$(mktemp -d /tmp/pw-gpu-rules.XXXXXX)
ndev=$(nvidia-smi -L 2>/dev/null | wc -l)

findings() { # DIR: the rules of every violation event under DIR, space separated
	python3 - "$1" <<'PY'
import json, sys, glob
rules = []
for f in sorted(glob.glob(sys.argv[1] + "/*.pw.jsonl*")):
    for line in open(f):
        e = json.loads(line)
        if e.get("type") == "violation":
            rules.append(e["rule"])
print(" ".join(rules))
PY
}

# RULES without the *.invalid-device ones
no_invalid_device() {
	local r out=
	for r in $1; do
		case $r in *.invalid-device) ;; *) out="$out $r" ;; esac
	done
	echo "${out# }"
}

pass=0 fail=0 skip=0
# run_case NAME KIND WANT ARGS...: the scenario program with ARGS under
# peerwatch (warn), in $work/NAME-KIND; PASS when it exits 0 and its
# findings are exactly WANT (space separated rule names, "" for none).
run_case() {
	local name=$1 kind=$2 want=$3 d=$work/$1-$2 rc got verdict
	shift 3
	mkdir -p "$d"
	"$bundle/bin/peerwatch" -q -o "$d/trace" --mode warn -- "$V" "$@" >"$d/out" 2>"$d/err"
	rc=$?
	got=$(findings "$d/trace")
	if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
		verdict=PASS; pass=$((pass + 1))
	elif [ "$ndev" -lt 2 ] && grep -Eq -- '-> (101|201)$' "$d/err"; then
		# the scenarios use devices 0 and 1: on one GPU the driver answers
		# 101 (invalid device) for device 1, or 201 (invalid context) in
		# the context that could not be made there
		verdict="SKIP (needs 2 GPUs: device 1 answered $(grep -Eo -- '-> (101|201)$' "$d/err" | head -1 | cut -c4-))"
		skip=$((skip + 1))
	elif [ "$ndev" -lt 2 ] && [ $rc -eq 0 ] && [ "$got" != "$want" ] &&
		[ "$(no_invalid_device "$got")" = "$(no_invalid_device "$want")" ]; then
		# on one GPU the device 1 the scenario names is no device: the
		# invalid-device findings are right there, and the rest as wanted
		verdict="SKIP (needs 2 GPUs: device 1 is invalid-device here)"
		skip=$((skip + 1))
	else
		verdict="FAIL (exit $rc)"; fail=$((fail + 1))
		sed 's/^/    /' "$d/err" | tail -5
	fi
	printf '%-34s %-8s %-40s %s\n' "$name" "$kind" "${got:-none}" "$verdict"
}

{
printf '%-34s %-8s %-40s %s\n' rule case findings verdict
for sc in $("$V" list); do
	rule=${sc%%/*} # RULE or RULE/CASE
	case $sc in
	peer.limit)
		if [ "$ndev" -lt 10 ]; then
			printf '%-34s %-8s %-40s %s\n' "$rule" - "needs 10 GPUs, have $ndev" SKIP; skip=$((skip + 1)); continue
		fi ;;
	peer.enable.unsupported)
		printf '%-34s %-8s %-40s %s\n' "$rule" - "every pair here supports peer access" SKIP; skip=$((skip + 1)); continue ;;
	ipc.open.unreachable)
		# its bad case imports on a device that cannot reach the exporter's:
		# on the simulated driver with PWSIM_PEERS=none only
		printf '%-34s %-8s %-40s %s\n' "$rule" - "every device here reaches every other" SKIP; skip=$((skip + 1)); continue ;;
	vmm.import.released)
		# Every fd the NVIDIA driver exports is a /dev/nvidiactl fd with one
		# inode (vmm_probe.md): no key says which allocation an import is.
		printf '%-34s %-8s %-40s %s\n' "$rule" - "driver fds share one inode: no key" SKIP; skip=$((skip + 1)); continue ;;
	peer.enable.twice/reset)
		# its bad case resets a third device, which neither context is on
		if [ "$ndev" -lt 3 ]; then
			printf '%-34s %-8s %-40s %s\n' "$sc" - "needs 3 GPUs, have $ndev" SKIP; skip=$((skip + 1)); continue
		fi ;;
	copy.peer.context-destroyed)
		# the driver faults in cuMemcpyPeer naming a destroyed context
		# (docs/facts-cuda.md): the bad case reports, then dies
		printf '%-34s %-8s %-40s %s\n' "$sc" bad "the driver faults on a destroyed context" SKIP; skip=$((skip + 1))
		run_case "$sc" good "" "$sc" good
		continue ;;
	esac
	run_case "$sc" bad "$rule" "$sc" bad
	run_case "$sc" good "" "$sc" good
done
# A correct program that destroys a context and creates another (the real
# driver may hand out the old address again): no finding, whichever it does.
run_case ctx-reuse good "" ctx-reuse
echo "    (the driver gave the new context $(sed -n 's/ address$//p' "$work/ctx-reuse-good/out" | head -1) address)"
echo "rules on GPU: $pass passed, $fail failed, $skip skipped"
} 2>&1 | tee "$out/rules_gpu.txt"
tar -C "$work" -czf "$out/rules_gpu.tar.gz" . 2>/dev/null
grep -q " 0 failed" "$out/rules_gpu.txt"

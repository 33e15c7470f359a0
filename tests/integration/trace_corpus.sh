#!/bin/bash
# Writes a corpus of traces on the simulated runtimes, one directory per run,
# under OUTDIR: every vendor, every way of reaching it, every rule's
# mistake, stacks, device timing, fork and exec.  tests/integration/trace_keys.sh
# checks every key of it against include/peerwatch/trace_format.h.
#
#   tests/integration/trace_corpus.sh BUILD_DIR OUTDIR
set -u
B=$(cd "${1:-build}" && pwd)
OUT=$2
T="$B/tests"
PW="$B/bin/peerwatch"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2 PWSIM_PEERS=all
# recorded in every header's "environment" (harmless to the simulators); the
# simulated NVML gives the CUDA device lines their links, over NVSwitches
export CUDA_DEVICE_ORDER=PCI_BUS_ID PWSIM_NVSWITCH=18
export PEERWATCH_RUN_ID="corpus-$$"
unset PEERWATCH_OPTIONS
n=0
# run NAME [peerwatch options] -- PROGRAM ARGS...: traces in OUTDIR/NAME
run() {
	local name=$1
	shift
	n=$((n + 1))
	mkdir -p "$OUT/$name"
	if [ -n "${PW_ASAN_RUNTIME:-}" ]; then
		LD_PRELOAD="$PW_ASAN_RUNTIME" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
			"$PW" -q -o "$OUT/$name/trace" "$@" >"$OUT/$name/out" 2>"$OUT/$name/err" || true
	else
		"$PW" -q -o "$OUT/$name/trace" "$@" >"$OUT/$name/out" 2>"$OUT/$name/err" || true
	fi
}
hiplib() { find "$B/sim" -name "libamdhip64.so.$1" \( -type f -o -type l \) 2>/dev/null | sort | head -1; }

# CUDA driver: every hooked function, each way of reaching it; stacks; device timing
for mode in dlsym getproc getproc-ptds; do
	run "calls-$mode" --mode warn -- "$T/calls" "$mode" "$OUT/calls-$mode.expect"
done
run calls-direct --mode warn -- "$T/calls-linked" direct "$OUT/calls-direct.expect"
run calls-stacks --mode warn --stacks all -- "$T/calls" getproc-ptds "$OUT/calls-stacks.expect"
run calls-gputime --mode warn --options gpu_timing=1 -- "$T/calls" getproc-ptds "$OUT/calls-gt.expect"
run calls-gputime-cupti --mode warn --gpu-timing cupti -- "$T/calls" getproc-ptds "$OUT/calls-gtc.expect"
# unified-memory counters: every case, and the counters refused
for c in $("$T/um_effects" list); do
	PWSIM_UM_PREFETCH=deferred run "um-$c" --mode warn --um-counters -- "$T/um_effects" "$c"
done
run um-off --mode warn --options "um_counters=1:cupti=$OUT/no-libcupti.so" -- "$T/um_effects" clean
LD_LIBRARY_PATH="$B/sim/legacy:$LD_LIBRARY_PATH" run calls-legacy -- "$T/calls" getproc-old "$OUT/calls-legacy.expect"
# every rule's mistake, and the program done right
for rule in $("$T/violations" list); do
	case $rule in
	peer.enable.unsupported) env=PWSIM_PEERS=none ;;
	peer.limit) env=PWSIM_DEVICES=10 ;;
	*) env=PWSIM_DEVICES=2 ;;
	esac
	env "$env" bash -c "$(declare -f run); OUT='$OUT' PW='$PW' n=0; run 'rule-$rule' --mode warn -- '$T/violations' '$rule' bad"
	run "good-$rule" --mode warn -- "$T/violations" "$rule" good
done
for s in copies nopeer peer oob; do run "implicit-$s" --mode warn -- "$T/implicit" "$s"; done
run vmm --mode warn -- "$T/vmm_ipc"
run vmm-batch --mode warn -- "$T/vmm_ipc" batch-bad
run vmm-fork --mode warn -- "$T/vmm_ipc" fork-worker
printf 'rule=peer.enable.twice\n' >"$OUT/suppressions"
run suppressed --mode warn --options "suppressions=$OUT/suppressions" -- "$T/violations" peer.enable.twice bad
run suppressed-default --mode warn -- "$T/violations" nccl-teardown "$T/nccl/libnccl.so.2"
RANK=3 run rank-number -- "$T/threads"
RANK=node-a run rank-text -- "$T/threads"
run threads -- "$T/threads"
# one finding repeated at two call sites (footer repeats_by), and a trace the
# size limit stopped (footer limit)
run repeats --mode warn -- "$T/flood" 10 40 2
run size-limit --mode warn --options max_trace_mb=1 -- "$T/flood" 20000 3
run forkexec -- "$T/forkexec"
# the CUDA runtime, 13 and 12
for s in clean enable-twice ipc-same-process no-peer-access advise-not-managed ipc-mixed; do
	run "rt-$s" --mode warn -- "$T/rt" "$s"
done
run rt12 --mode warn -- "$T/rt12"
# HIP, each runtime major
for major in 5 6 7; do
	lib=$(hiplib "$major")
	[ -n "$lib" ] || continue
	for s in peer ipc managed reset vmm all; do
		PW_HIP_LIB="$lib" run "hip$major-$s" --mode warn -- "$T/hip_calls" "$s"
		PW_HIP_LIB="$lib" run "hip$major-getproc-$s" --mode warn -- "$T/hip_calls" --getproc "$s"
	done
	for rule in $("$T/hip_violations" list); do
		case $rule in
		peer.enable.unsupported) env=PWSIM_PEERS=none ;;
		peer.limit) env=PWSIM_DEVICES=10 ;;
		*) env=PWSIM_DEVICES=2 ;;
		esac
		env "$env" PW_HIP_LIB="$lib" bash -c "$(declare -f run); OUT='$OUT' PW='$PW' n=0; run 'hip$major-rule-$rule' --mode warn -- '$T/hip_violations' '$rule' bad"
	done
done
# ACL: the document's example and its mistakes
"$T/acl_doc" list | while read -r name rule envs; do
	env PWSIM_DEVICES=2 ${envs:-} bash -c "$(declare -f run); OUT='$OUT' PW='$PW' n=0; run 'acl-$name' --mode warn -- '$T/acl_doc' '$name'"
done
echo "trace_corpus: $(find "$OUT" -name '*.pw.jsonl' | wc -l) traces"

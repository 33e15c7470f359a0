#!/bin/bash
# Unified-memory counters (um_counters=1) and gpu_timing=cupti on the
# simulated driver and libcupti (tests/sim/cuda_sim_um.c, cupti_sim.c):
#   - each case of tests/integration/um_effects.c leaves um events that add
#     up to what the program did, the footer counts them, the program's
#     output and status are its own, and peerwatch-analyze derives the
#     case's one finding (none for "clean");
#   - CUPTI missing, held by another profiler, without the counters, or
#     dropping records: one warning, the footer's um_off or um_lost, and the
#     program runs on unchanged;
#   - gpu_timing=cupti gives each asynchronous peer copy its gpu_time from
#     CUPTI's copy records, and counts the prefetches it cannot time.
#   tests/integration/um_effects.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
AN="$B/bin/peerwatch-analyze"
U="$B/tests/um_effects"
T="$B/tests"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-um.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2 PEERWATCH_RUN_ID="um-test-$$"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

jqt() { jq -e "$@" >/dev/null; }
lines() { cat "$1"/*.pw.jsonl; }
footer() { lines "$1" | jq -c 'select(.type=="footer")'; }

declare -A want=(
	[prefetch-late]=um.prefetch.faults-after
	[preferred-thrash]=um.preferred.thrashing
	[read-mostly-written]=um.read-mostly.written
	[accessed-by-faults]=um.accessed-by.faults
	[clean]=
)
export PWSIM_UM_PREFETCH=deferred
for c in $("$U" list); do
	d=$WORK/$c
	mkdir -p "$d"
	"$U" "$c" >"$d/plain.out" 2>&1
	plain_rc=$?
	"$PW" -q -o "$d/trace" --um-counters -- "$U" "$c" >"$d/out" 2>"$d/err"
	rc=$?
	check "$c: the program's status and output are its own ($rc)" \
		bash -c "[ $rc = $plain_rc ] && [ $rc = 0 ] && diff <(sed 's/0x[0-9a-f]*/ADDR/' '$d/plain.out') <(sed 's/0x[0-9a-f]*/ADDR/' '$d/out')"
	check "$c: nothing on stderr" [ ! -s "$d/err" ]
	n=$(lines "$d/trace" | grep -c '"type":"um"')
	check "$c: um events written ($n), the footer counts them, none lost, counters on" \
		jqt --argjson n "$n" '$n > 0 and .um_events == $n and .um_lost == 0 and (has("um_off") | not)' \
		<(footer "$d/trace")
	lines "$d/trace" | jq -c 'select(.type=="um")' >"$d/um"
	rules=$("$AN" violations --json "$d/trace" 2>"$d/an.err" |
		jq -r '[.findings[] | select(.rule | startswith("um.")) | .rule] | unique | join(" ")')
	check "$c: peerwatch-analyze derives [${want[$c]}] (got [$rules])" [ "$rules" = "${want[$c]}" ]
done

# What the records say, case by case: 1 MiB is 16 of the model's pages.
P=$WORK
for c in $("$U" list); do
	check "$c: the host's first touch is a fault on each of the 16 pages, before any migration" \
		jqt -s '([.[] | select(.kind=="cpu_fault")] | length) >= 16 and
		  (([.[] | select(.kind=="htod" or .kind=="dtoh" or .kind=="dtod") | .t_ns] | min // infinite) >
		   ([.[] | select(.kind=="cpu_fault") | .t_ns] | sort | .[15]))' "$P/$c/um"
done
check "clean: no GPU fault; both prefetches move the whole range, cause user" \
	jqt -s '([.[] | select(.kind=="gpu_fault")] | length) == 0 and
	  ([.[] | select(.kind=="htod" and .cause=="user") | .bytes] | add) == 1048576 and
	  ([.[] | select(.kind=="dtoh" and .cause=="user") | .bytes] | add) == 1048576 and
	  ([.[] | select(.kind=="cpu_fault")] | length) == 16' "$P/clean/um"
check "prefetch-late: GPU 0 faults on every page, read access" \
	jqt -s '[.[] | select(.kind=="gpu_fault")] | length == 16 and all(.proc == 0 and .access == "read")' \
	"$P/prefetch-late/um"
check "preferred-thrash: pages leave device 0 for the host, and the driver calls it thrashing" \
	jqt -s '([.[] | select(.kind=="dtoh" and .src==0 and .dst=="cpu")] | length) > 0 and
	  ([.[] | select(.kind=="thrashing")] | length) > 0 and
	  ([.[] | select(.kind=="thrashing")] | all(.procs == [0] and .bytes > 0))' "$P/preferred-thrash/um"
check "read-mostly-written: GPU write faults after the read" \
	jqt -s '[.[] | select(.kind=="gpu_fault" and .access=="write")] | length == 16' "$P/read-mostly-written/um"
check "accessed-by-faults: the host faults on the pages it was to reach" \
	jqt -s '[.[] | select(.kind=="cpu_fault")] | length == 32' "$P/accessed-by-faults/um"
check "every um event is on the calls' clock: after the header's t0_mono_ns, before the footer's end" \
	bash -c "lines() { cat \"\$1\"/*.pw.jsonl; }; lines '$P/clean/trace' | jq -s -e '
		.[0].t0_mono_ns as \$t0 | (.[-1].t_end_ns) as \$t1 |
		[.[] | select(.type==\"um\") | .t_ns] | all(. >= \$t0 and . <= \$t1)' >/dev/null"

# When the counters cannot be had.
refused() { # NAME ENV OPTIONS WANT: one warning, um_off, the program unchanged
	local name=$1 envs=$2 opts=$3 want=$4 d=$WORK/off-$1
	mkdir -p "$d"
	env $envs "$PW" -q -o "$d/trace" --options "$opts" -- "$U" clean >"$d/out" 2>"$d/err"
	local rc=$?
	check "$name: the program runs on (status $rc, its output)" \
		bash -c "[ $rc = 0 ] && grep -q '^ok$' '$d/out'"
	check "$name: one warning naming why ($(head -c 160 "$d/err"))" \
		bash -c "[ \$(grep -c 'um_counters=1' '$d/err') = 1 ] && grep -q -- '$want' '$d/err'"
	check "$name: the footer's um_off says the same, no um events" \
		jqt --arg w "$want" '(.um_off | contains($w)) and .um_events == 0' <(footer "$d/trace")
}
refused busy PWSIM_CUPTI=busy um_counters=1 "CUPTI is held by another profiler (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)"
refused noum PWSIM_CUPTI=noum um_counters=1 "CUPTI refused them (CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED)"
refused missing PWSIM_CUPTI= "um_counters=1:cupti=$WORK/none/libcupti.so" "cannot be loaded"

# A HIP program asked for them: the counters are CUDA's, and the footer says so.
hiplib=$(find "$B/sim" -name 'libamdhip64.so.7' \( -type f -o -type l \) 2>/dev/null | sort | head -1)
d=$WORK/hip
PW_HIP_LIB=$hiplib "$PW" -q -o "$d" --um-counters -- "$T/managed_hip" hip.advise-accessed-by-numa good >/dev/null 2>&1
check "a HIP program with um_counters=1: the footer says the counters are CUDA's" \
	jqt '.um_events == 0 and (.um_off | contains("no CUDA call"))' <(footer "$d")

d=$WORK/lost
PWSIM_CUPTI_QUEUE=4 "$PW" -q -o "$d" --um-counters -- "$U" preferred-thrash >/dev/null 2>&1
n=$(lines "$d" | grep -c '"type":"um"')
check "a full CUPTI queue: the records CUPTI dropped are um_lost, the rest written ($n)" \
	jqt --argjson n "$n" '.um_lost > 0 and .um_events == $n' <(footer "$d")

# gpu_timing=cupti: the peer copies timed from CUPTI's records.
unset PWSIM_UM_PREFETCH
d=$WORK/gtc
if "$PW" -q -o "$d" --gpu-timing cupti -- "$T/calls" getproc-ptds "$WORK/gtc.expect" 2>"$WORK/gtc.err"; then
	parent=$(grep -L '"ipc-child"' "$d"/*.pw.jsonl | head -1)
	check "gpu_timing=cupti: one gpu_time per async peer copy, from CUPTI, pointing at its call" jqt -s '
		([.[] | select(.type=="call" and (.api=="cuMemcpyPeerAsync" or .api=="cuMemcpy3DPeerAsync")
		   and .ret==0) | .seq] | sort) as $timed |
		([.[] | select(.type=="gpu_time") | .call] | sort) == $timed and ($timed | length) == 2 and
		([.[] | select(.type=="gpu_time")] | all(.method == "cupti" and .gpu_ns > 0 and .t_gpu_ns > 0))' "$parent"
	check "gpu_timing=cupti: the prefetch it cannot time is counted as skipped" jqt -s '
		([.[] | select(.type=="call" and .api=="cuMemPrefetchAsync" and .ret==0)] | length) as $p |
		$p > 0 and .[-1].gpu_timing_skipped == $p' "$parent"
	check "gpu_timing=cupti: the header says which method" jqt -s \
		'.[0].options.gpu_timing == true and .[0].options.gpu_timing_method == "cupti"' "$parent"
else
	bad "gpu_timing=cupti: the program failed: $(tail -3 "$WORK/gtc.err")"
fi
d=$WORK/gte
"$PW" -q -o "$d" --gpu-timing events -- "$T/calls" getproc-ptds "$WORK/gte.expect" 2>/dev/null
parent=$(grep -L '"ipc-child"' "$d"/*.pw.jsonl | head -1)
check "gpu_timing=events: every gpu_time says events" jqt -s \
	'[.[] | select(.type=="gpu_time")] | length == 3 and all(.method == "events")' "$parent"

echo "um_effects: $pass passed, $fail failed"
[ "$fail" = 0 ]

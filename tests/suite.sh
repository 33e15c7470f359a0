#!/bin/bash
# make test's suites, side by side:
#
#   tests/suite.sh [-j N] [-n LABEL] BUILD_DIR SUITE...
#
# SUITE: tests/one.sh's names (make test T=list).  N suites run at a time
# (default: one per CPU), each with its output in BUILD_DIR/test-logs/SUITE.log;
# when a suite ends its log is printed whole, then one line:
#
#   == SUITE: ok|FAILED, N passed, N failed, N skipped, S s (CPU S s)
#
# The longest go first, by their times in the last run (test-logs/times) or
# the estimates below, so that no CPU waits at the end for one long suite;
# one whose checks another run of peerwatch would upset runs first, alone
# but for suites that trace nothing (the fault suite's registry checks);
# a suite that reads what others write starts after them (analyze reads the
# traces the integration suites keep: analyze and analyze-truth) and those
# suites go first in turn.
# Last, the failed suites' logs are named, and one line counts the checks
# of all of them (tests/tally.sh reads each log):
#
#   LABEL: N passed, N failed, N skipped (M min S s)
#
# LABEL is "make test" unless -n says otherwise.  Exit status 1 if a check
# or a suite failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
label="make test"
while getopts j:n: o; do
	case $o in
	j) jobs=$OPTARG ;;
	n) label=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: tests/suite.sh [-j N] [-n LABEL] BUILD_DIR SUITE..." >&2; exit 2; }
B=$(cd "$1" && pwd) || exit 2
shift
logs="$B/test-logs"
mkdir -p "$logs"

# Seconds each takes on an idle 2-core machine (its CPU time in a full
# run), before a run has timed it.
declare -A est=([fault]=640 [fault-races-1]=250 [fault-races-2]=360 [fault-others]=60 [analyze]=250
	[analyze-fast]=90 [analyze-truth]=150 [trace_keys]=50 [managed]=40 [contract_table]=30 [gpu-build]=30
	[latency]=30 [rules_hip]=25 [packaging]=20 [rules]=20 [cudart]=15 [integration]=15 [launchers]=12
	[rules_acl]=6 [um_effects]=6 [devices]=5 [deps]=5 [docs]=5 [unit]=5 [mesh]=3 [vmm]=2 [ipc_model]=2 [implicit]=2
	[tally]=1 [sim]=1 [acl-sim]=1 [hip-sim]=1 [nvml-sim]=1 [rsmi-sim]=1 [cupti-sim]=1)
if [ -f "$logs/times" ]; then
	while read -r n s; do est[$n]=$s; done <"$logs/times"
fi
# The integration suites, whose traces the analyzer's suite reads
# (tests/analyze/checks_truth.sh), kept under BUILD_DIR/traces/integration.
producers=" $(sed -n 's/^integration suites: //p' < <("$here/one.sh" "$B" list)) "

declare -A want=() needs=() prio=() state=() pidof=() began=()
order=()
for s in "$@"; do
	[ -n "${want[$s]:-}" ] && continue
	want[$s]=1
	order+=("$s")
done
for s in "${order[@]}"; do
	needs[$s]=
	if [ "$s" = analyze ] || [ "$s" = analyze-truth ]; then
		for p in $producers; do
			[ -n "${want[$p]:-}" ] && needs[$s]+=" $p"
		done
		# this run's traces only, never an older build's
		rm -rf "$B/traces/integration"
	fi
done
# Priority: a suite's time and the longest chain of suites waiting on it.
# A suite that waits for several starts after the last of them: all of
# them, shared among the CPUs, are on its chain.
for s in "${order[@]}"; do prio[$s]=${est[$s]:-30}; done
for s in "${order[@]}"; do
	shared=0
	for p in ${needs[$s]}; do shared=$((shared + ${est[$p]:-30})); done
	for p in ${needs[$s]}; do
		t=$((${est[$p]:-30} + shared / jobs + ${prio[$s]}))
		[ "$t" -gt "${prio[$p]}" ] && prio[$p]=$t
	done
done

start() { # SUITE
	local s=$1
	rm -f "$logs/$s.log"
	local keep=
	[ -n "${want[analyze]:-}${want[analyze-truth]:-}" ] && [[ $producers == *" $s "* ]] &&
		keep="$B/traces/integration"
	# the suite, then the CPU time of all it ran (bash's times: its children's)
	(
		PW_KEEP_TRACES=$keep "$here/one.sh" "$B" "$s" >"$logs/$s.log" 2>&1 </dev/null
		rc=$?
		times >"$logs/$s.cpu"
		exit $rc
	) &
	pidof[$!]=$s
	state[$s]=running
	began[$s]=$EPOCHREALTIME
	echo "== $s: started"
}

# A suite that runs with no other run of peerwatch beside it: the fault
# suite's registry checks count the segments of killed runs, which any
# traced run removes as stale.  It goes first, with only suites that trace
# nothing (the simulators' self-tests, deps, gpu-build, tally) beside it.
alone=" fault fault-others "
quiet=" sim acl-sim hip-sim nvml-sim rsmi-sim cupti-sim deps gpu-build tally "

ready() { # the waiting suite to start next, if any
	local s p r best='' solo=0 busy=0
	for r in "${!pidof[@]}"; do
		[[ $alone == *" ${pidof[$r]} "* ]] && solo=1
		[[ $quiet == *" ${pidof[$r]} "* ]] || busy=1
	done
	for s in "${order[@]}"; do
		[ -z "${state[$s]:-}" ] || continue
		for p in ${needs[$s]}; do
			[ "${state[$p]:-}" = finished ] || continue 2
		done
		if [[ $alone == *" $s "* ]]; then
			[ $busy = 0 ] && { echo "$s"; return; }
			continue
		fi
		if [ $solo = 1 ] && [[ $quiet != *" $s "* ]]; then continue; fi
		if [ -z "$best" ] || [ "${prio[$s]}" -gt "${prio[$best]}" ]; then best=$s; fi
	done
	echo "$best"
}

stop_all() {
	local p
	for p in "${!pidof[@]}"; do kill "$p" 2>/dev/null; done
	echo "tests/suite.sh: stopped; the logs are in $logs" >&2
	exit 130
}
trap stop_all INT TERM

t0=$EPOCHREALTIME
cpu_all=0
running=0
P=0
F=0
S=0
failed=()
rm -f "$logs/times.new"
while :; do
	while [ "$running" -lt "$jobs" ]; do
		s=$(ready)
		[ -n "$s" ] || break
		start "$s"
		running=$((running + 1))
	done
	[ "$running" -gt 0 ] || break
	pid=
	wait -n -p pid
	rc=$?
	[ -n "$pid" ] || continue # not one of ours (a signal)
	s=${pidof[$pid]}
	unset "pidof[$pid]"
	running=$((running - 1))
	state[$s]=finished
	took=$(awk -v a="${began[$s]}" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a + 0.5 }')
	# "0m1.234s 0m0.567s", user and system, on the second line
	cpu=$(awk 'function s(t) { split(t, m, /[ms]/); return m[1] * 60 + m[2] }
		NR == 2 { printf "%d", s($1) + s($2) + 0.5 }' "$logs/$s.cpu" 2>/dev/null)
	rm -f "$logs/$s.cpu"
	cpu_all=$((cpu_all + ${cpu:-0}))
	counts=$("$here/tally.sh" "$s" "$rc" "$logs/$s.log")
	read -r p f k <<<"$counts"
	P=$((P + p))
	F=$((F + f))
	S=$((S + k))
	if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then
		verdict=ok
	else
		verdict=FAILED
		failed+=("$s")
	fi
	cat "$logs/$s.log"
	[ "$rc" -eq 124 ] && verdict+=" (stopped at its time limit)"
	echo "== $s: $verdict, $p passed, $f failed, $k skipped, $took s (CPU ${cpu:-?} s)"
	echo "$s $took" >>"$logs/times.new"
done
# The times of this run, and those of suites it did not run.
if [ -f "$logs/times" ]; then
	awk 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' "$logs/times.new" "$logs/times" >"$logs/times.tmp"
else
	cp "$logs/times.new" "$logs/times.tmp"
fi
mv "$logs/times.tmp" "$logs/times"
rm -f "$logs/times.new"

all=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a + 0.5 }')
for s in "${failed[@]}"; do
	echo "== failed: $s (log: $logs/$s.log)"
done
[ "${#failed[@]}" -gt 0 ] && [ "$F" -eq 0 ] && F=${#failed[@]}
# What the machine's load took from the run: at best, the CPU time on the
# CPUs it was given.
echo "== CPU time of the suites: $cpu_all s; on $jobs CPUs, $((cpu_all / jobs / 60)) min $((cpu_all / jobs % 60)) s at least"
echo "$label: $P passed, $F failed, $S skipped ($((all / 60)) min $((all % 60)) s)"
[ "$F" -eq 0 ] && [ "${#failed[@]}" -eq 0 ]

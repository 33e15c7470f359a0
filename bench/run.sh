#!/bin/bash
# peerwatch's overhead on the simulated driver (issue 6, items 2 and 3), every
# configuration side by side in one run, checked against the budget.
#
#   bench/run.sh [BUILD_DIR]          (make bench)
#   BENCH_REPS=N    runs of each measurement (default 5): times keep the best (lowest) run,
#                   memory the median
#   BENCH_SCALE=F   multiply the per-call loop lengths by F (default 1)
#   BENCH_TMP=DIR   where the traces are written (default: a fresh directory in $TMPDIR or /tmp)
#   BENCH_LIB=PATH  another libpeerwatch.so (to compare two builds)
#
# The same program (build/bench/overhead) runs without peerwatch and with it
# (LD_PRELOAD=libpeerwatch.so, PEERWATCH_OPTIONS) under the same conditions;
# "added" is the difference of the two figures.  Runs of the configurations are
# interleaved (rep 1 of each, then rep 2 of each, ...) so that a slow moment
# of the machine falls on all of them alike; a time is the best of the runs
# (interference only adds to it), memory the median.
#
# Budget lines print PASS or OVER; a benchmark never fails the build (exit 0
# unless the benchmark itself could not run).
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${BENCH_REPS:-5}
SCALE=${BENCH_SCALE:-1}
OVERHEAD="$B/bench/overhead"
LIB=${BENCH_LIB:-$B/lib/libpeerwatch.so}
if [ ! -x "$OVERHEAD" ] || [ ! -f "$LIB" ] || [ ! -f "$B/sim/libcuda.so.1" ]; then
	echo "bench: build first (make bench builds $OVERHEAD, $LIB, $B/sim/libcuda.so.1)" >&2
	exit 2
fi
WORK=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/pw-overhead.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2
unset LD_PRELOAD PEERWATCH_OPTIONS

progress() { [ -t 2 ] && printf '\r%-40s' "$*" >&2; }
scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { v = int(n * s); print v < 1000 ? 1000 : v }'; }

# The configurations: name -> PEERWATCH_OPTIONS ("" = no peerwatch).
MODES=(none observe warn stacks)
declare -A OPTS=(
	[none]=""
	[observe]="mode=observe"
	[warn]="mode=warn"
	[stacks]="mode=warn:stacks=all"
)
declare -A LABEL=(
	[none]="no peerwatch"
	[observe]="observe"
	[warn]="warn (every rule)"
	[stacks]="warn + stacks=all"
)

declare -A V # "metric|set|op|threads|mode" -> space-separated values of the reps

# run SET MODE ARGS...: one run of the program; its key=value line is added to
# V under SET (call, whole, mem).  With peerwatch, the trace goes to $WORK/t
# and LAST_TRACE names it.
LAST_TRACE=
run() {
	local set=$1 mode=$2 line key
	shift 2
	rm -rf "$WORK/t"
	if [ "$mode" = none ]; then
		line=$("$OVERHEAD" "$@") || { echo "bench: overhead $* failed" >&2; exit 2; }
	else
		line=$(LD_PRELOAD="$LIB" PEERWATCH_OPTIONS="out=$WORK/t:verbosity=0:${OPTS[$mode]}" \
			"$OVERHEAD" "$@") || { echo "bench: overhead $* under $mode failed" >&2; exit 2; }
		LAST_TRACE=$(find "$WORK/t" -name '*.pw.jsonl' 2>/dev/null | head -1)
	fi
	local op threads
	op=$(sed -n 's/.*op=\([^ ]*\).*/\1/p' <<<"$line")
	threads=$(sed -n 's/.*threads=\([^ ]*\).*/\1/p' <<<"$line")
	for kv in $line; do
		key=${kv%%=*}
		case $key in op | threads | calls) continue ;; esac
		V["$key|$set|$op|$threads|$mode"]+="${kv#*=} "
	done
}

median() { # values... -> median
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan"; exit }
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
best() { # values... -> the lowest
	printf '%s\n' "$@" | sort -g | head -1 | grep . || echo nan
}
# A metric of the run in which another metric was lowest (one run's figures together).
of_best_run() { # by metric set op threads mode
	local by=${V["$1|$3|$4|$5|$6"]:-} vals=${V["$2|$3|$4|$5|$6"]:-}
	awk -v by="$by" -v vals="$vals" 'BEGIN {
		n = split(by, b, " "); split(vals, v, " "); k = 0
		for (i = 1; i <= n; i++) if (!k || b[i] + 0 < b[k] + 0) k = i
		print k ? v[k] : "nan" }'
}
# The figure kept of a measurement's runs: for times the best (lowest) run,
# since other work on the machine can only add to them; for memory the median.
fig() { # metric set op threads mode
	# shellcheck disable=SC2086 # the values are split on purpose
	case $1 in
	*_kb) median ${V["$1|$2|$3|$4|$5"]:-} ;;
	*) best ${V["$1|$2|$3|$4|$5"]:-} ;;
	esac
}
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }

# Bytes per event of a finished trace: (size - header - footer) / footer's events.
bytes_per_event() {
	local f=$1 size h t n
	[ -f "$f" ] || { echo nan; return; }
	size=$(stat -c %s "$f")
	h=$(head -1 "$f" | wc -c)
	t=$(tail -1 "$f" | wc -c)
	n=$(tail -1 "$f" | sed -n 's/.*"events":\([0-9]*\).*/\1/p')
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		echo nan
		return
	fi
	calc "($size - $h - $t) / $n" 1
}
declare -A BPE WHOLE_TRACE_MB # bytes per event ("op|mode"), trace size (mode)
declare -A IMPL                # implicit-copy events per call in the observe trace (op)

START=$(date +%s)
echo "peerwatch overhead benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores," \
	"$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), times: best of $REPS runs, memory: median of $REPS"
echo "library: $LIB"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews the figures)"
echo "simulated driver: $B/sim/libcuda.so.1 (PWSIM_DEVICES=2)"
echo

# ---- 1. per call, on the calling thread: 1 and 8 threads ----------------------
OPS=(can copy0 copy4k same4k cross4k)
N1=$(scaled 300000)  # calls on one thread
N8=$(scaled 60000)   # calls on each of 8 threads
NS1=$(scaled 30000)  # stacks=all is slow: fewer calls
NS8=$(scaled 6000)
for rep in $(seq "$REPS"); do
	progress "per-call runs: $rep/$REPS"
	for op in "${OPS[@]}"; do
		for mode in "${MODES[@]}"; do
			if [ "$mode" = stacks ]; then n1=$NS1 n8=$NS8; else n1=$N1 n8=$N8; fi
			run call "$mode" -c "$op" -t 1 -n "$n1"
			[ "$mode" = none ] || [ "$rep" != 1 ] || BPE["$op|$mode"]=$(bytes_per_event "$LAST_TRACE")
			if [ "$mode" = observe ] && [ "$rep" = 1 ]; then
				# implicit-copy events per call made (warm-up calls included)
				IMPL["$op"]=$(calc "$(grep -c '"implicit":true' "$LAST_TRACE") / ($n1 + ($n1 / 20 < 1000 ? 1000 : int($n1 / 20)))" 3)
			fi
			run call "$mode" -c "$op" -t 8 -n "$n8"
		done
	done
done

# ---- 2. whole process: 2 000 000 cheap calls, the writer and the exit included --
NW=2000000
for rep in $(seq "$REPS"); do
	progress "whole-process runs: $rep/$REPS"
	for mode in none observe warn; do
		run whole "$mode" -c can -t 1 -n "$NW" -f
		if [ "$mode" != none ] && [ "$rep" = 1 ]; then
			BPE["whole|$mode"]=$(bytes_per_event "$LAST_TRACE")
			WHOLE_TRACE_MB["$mode"]=$(calc "$(stat -c %s "$LAST_TRACE") / 1048576" 0)
		fi
	done
done

# ---- 3. memory: 1, 8 and 32 threads alive at the end -------------------------
NM=$(scaled 20000)
for rep in $(seq "$REPS"); do
	progress "memory runs: $rep/$REPS"
	for mode in none observe warn; do
		for t in 1 8 32; do
			run mem "$mode" -c can -t "$t" -n "$NM"
		done
	done
done
[ -t 2 ] && printf '\r%40s\r' '' >&2

# ---- the tables ----------------------------------------------------------------
declare -A ADDED # "op|threads|mode" -> added thread-CPU ns per call
echo "## Per call, on the calling thread (ns/call, best of $REPS)"
echo
echo "thread CPU = CLOCK_THREAD_CPUTIME_ID of each calling thread / its calls (the figure the budget"
echo "is checked on); wall = the loop's CLOCK_MONOTONIC / its calls (with 8 threads on $(nproc) cores"
echo "each thread waits its turn, so wall mostly measures the sharing); added = minus no peerwatch."
echo
echo "| call | threads | configuration | thread CPU | wall | added | x driver alone |"
echo "|---|---|---|---|---|---|---|"
for op in "${OPS[@]}"; do
	for t in 1 8; do
		base=$(fig thr_cpu_ns call "$op" "$t" none)
		for mode in "${MODES[@]}"; do
			cpu=$(fig thr_cpu_ns call "$op" "$t" "$mode")
			wall=$(fig thr_wall_ns call "$op" "$t" "$mode")
			if [ "$mode" = none ]; then
				added="—"
				ratio="1"
			else
				added=$(calc "$cpu - $base")
				ADDED["$op|$t|$mode"]=$added
				ratio=$(calc "$cpu / $base")
			fi
			echo "| $op | $t | ${LABEL[$mode]} | $cpu | $wall | $added | $ratio |"
		done
	done
done
echo
echo "calls: can = cuDeviceCanAccessPeer(&v, 0, 1); copy0 / copy4k = cuMemcpyPeer(dev 1 <- dev 0) of"
echo "0 bytes / 4 KiB with peer access on both ways; same4k / cross4k = cuMemcpyDtoD_v2 of 4 KiB"
echo "within device 0 (an implicit copy peerwatch does not record) / from device 0 to device 1"
echo "(recorded with \"implicit\": true and checked); each through the pointer dlsym returned."
echo
echo "## Implicit copies, side by side (thread CPU ns/call, 1 thread, best of $REPS)"
echo
echo "events per call: \"implicit\": true events in the observe trace / calls made (counted, not assumed)."
echo
echo "| copy | no peerwatch | observe | added | warn | added | events per call |"
echo "|---|---|---|---|---|---|---|"
for op in same4k cross4k; do
	base=$(fig thr_cpu_ns call "$op" 1 none)
	o=$(fig thr_cpu_ns call "$op" 1 observe)
	w=$(fig thr_cpu_ns call "$op" 1 warn)
	echo "| $op | $base | $o | $(calc "$o - $base") | $w | $(calc "$w - $base") | ${IMPL[$op]} |"
done
echo
echo "## 8 threads against 1 (added thread-CPU ns per call)"
echo
echo "| call | configuration | added, 1 thread | added, 8 threads | ratio |"
echo "|---|---|---|---|---|"
declare -A RATIO8
for op in "${OPS[@]}"; do
	for mode in observe warn stacks; do
		a1=${ADDED["$op|1|$mode"]}
		a8=${ADDED["$op|8|$mode"]}
		RATIO8["$op|$mode"]=$(calc "$a8 / $a1" 2)
		echo "| $op | ${LABEL[$mode]} | $a1 | $a8 | ${RATIO8["$op|$mode"]} |"
	done
done
echo

echo "## Whole process: $NW cuDeviceCanAccessPeer calls on one thread (best of $REPS)"
echo
echo "From fork to reaped (wait4): the child's setup, the calls, the trace writer thread and the"
echo "final flush at exit; per call = total / $NW.  in-loop CPU = getrusage(RUSAGE_SELF) of the"
echo "child when its loop ends (all threads, the writer included, before the exit flush).  Each row"
echo "is the run with the lowest CPU time of its $REPS."
echo
echo "| configuration | wall ns/call | CPU ns/call | user | sys | in-loop CPU | added CPU | added wall | trace bytes/event |"
echo "|---|---|---|---|---|---|---|---|---|"
wbase=$(of_best_run proc_cpu_ns proc_wall_ns whole can 1 none)
cbase=$(of_best_run proc_cpu_ns proc_cpu_ns whole can 1 none)
declare -A WADD
for mode in none observe warn; do
	w=$(of_best_run proc_cpu_ns proc_wall_ns whole can 1 "$mode")
	c=$(of_best_run proc_cpu_ns proc_cpu_ns whole can 1 "$mode")
	u=$(of_best_run proc_cpu_ns proc_user_ns whole can 1 "$mode")
	s=$(of_best_run proc_cpu_ns proc_sys_ns whole can 1 "$mode")
	sc=$(of_best_run proc_cpu_ns self_cpu_ns whole can 1 "$mode")
	if [ "$mode" = none ]; then
		ac="—" aw="—" bpe="—"
	else
		ac=$(calc "$c - $cbase")
		aw=$(calc "$w - $wbase")
		WADD[$mode]=$ac
		bpe=${BPE["whole|$mode"]}
	fi
	echo "| ${LABEL[$mode]} | $w | $c | $u | $s | $sc | $ac | $aw | $bpe |"
done
echo
echo "Trace of the observe run: ${WHOLE_TRACE_MB[observe]:-?} MiB.  Bytes per event by call (1-thread runs):"
echo
echo "| call | observe | warn | warn + stacks=all |"
echo "|---|---|---|---|"
for op in "${OPS[@]}"; do
	echo "| $op | ${BPE["$op|observe"]} | ${BPE["$op|warn"]} | ${BPE["$op|stacks"]} |"
done
echo

echo "## Resident memory (KiB, median of $REPS; read while every thread is alive after its calls)"
echo
echo "| configuration | RSS 1 thr | RSS 8 thr | RSS 32 thr | HWM 32 thr | added, process (1 thr) | added per thread | HWM added per thread |"
echo "|---|---|---|---|---|---|---|---|"
declare -A MPROC MTHR
for mode in none observe warn; do
	r1=$(fig rss_kb mem can 1 "$mode")
	r8=$(fig rss_kb mem can 8 "$mode")
	r32=$(fig rss_kb mem can 32 "$mode")
	h8=$(fig hwm_kb mem can 8 "$mode")
	h32=$(fig hwm_kb mem can 32 "$mode")
	if [ "$mode" = none ]; then
		ap="—" at="—" ah="—"
	else
		ap=$(calc "$r1 - $(fig rss_kb mem can 1 none)" 0)
		at=$(calc "(($r32 - $(fig rss_kb mem can 32 none)) - ($r8 - $(fig rss_kb mem can 8 none))) / 24" 0)
		ah=$(calc "(($h32 - $(fig hwm_kb mem can 32 none)) - ($h8 - $(fig hwm_kb mem can 8 none))) / 24" 0)
		MPROC[$mode]=$ap
		MTHR[$mode]=$at
	fi
	echo "| ${LABEL[$mode]} | $r1 | $r8 | $r32 | $h32 | $ap | $at | $ah |"
done
echo
echo "added, process = RSS(peerwatch, 1 thread) - RSS(none, 1 thread): the library, its writer thread,"
echo "the registry (warn), and the calling thread's buffers.  added per thread = the growth of the"
echo "excess from 8 to 32 threads, / 24.  Each thread has one buffer of buffer_kb (256 KiB by"
echo "default) and up to 8 when the writer falls behind, as it does here: these threads call"
echo "without pause, so each reaches the cap, and buffers are kept for reuse until the thread exits."
echo

# ---- the budget (issue 6, item 3) ---------------------------------------------
budget() { # description value limit unit
	local verdict
	verdict=$(awk -v v="$2" -v l="$3" 'BEGIN { print (v == v + 0 && v <= l) ? "PASS" : "OVER" }')
	printf '%-4s  %-72s %7s %s (limit %s)\n' "$verdict" "$1" "$2" "$4" "$3"
}
echo "## Budget (issue 6, item 3)"
echo
echo '```'
for op in "${OPS[@]}"; do
	budget "observe, added on the calling thread, $op, 1 thread" "${ADDED["$op|1|observe"]}" 150 ns/call
done
budget "observe, added for the whole process incl. writing (can)" "${WADD[observe]}" 300 ns/call
for op in "${OPS[@]}"; do
	budget "warn (every rule), added on the calling thread, $op, 1 thread" "${ADDED["$op|1|warn"]}" 400 ns/call
done
for op in "${OPS[@]}"; do
	for mode in observe warn; do
		budget "8 threads / 1 thread, added per call, $op, $mode" "${RATIO8["$op|$mode"]}" 1.5 x
	done
done
for mode in observe warn; do
	budget "resident memory added per process (1 thread, its buffers incl.), $mode" \
		"$(calc "${MPROC[$mode]} / 1024" 1)" 16 MiB
done
echo '```'
echo
echo "per-thread resident memory (documented, no limit): observe ${MTHR[observe]} KiB, warn ${MTHR[warn]} KiB"
echo "(1 to 8 buffers of buffer_kb=256 KiB: 256 KiB to 2 MiB a thread)."
echo "bench: $(($(date +%s) - START)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/bash
# peerwatch's overhead on the simulated driver: every configuration side by
# side in one run, one or more libraries alternating, checked against the
# budget of the hot path.
#
#   bench/run.sh [BUILD_DIR]          (make bench)
#   BENCH_LIBS="NAME=PATH ..."  the libraries to compare (default: this=BUILD_DIR/lib/libpeerwatch.so);
#                   e.g. BENCH_LIBS="before=/old/lib/libpeerwatch.so after=build/lib/libpeerwatch.so".
#                   The budget is checked on the last one.
#   BENCH_PHASES_LIB=PATH  a library built with make PHASES=1 (default BUILD_DIR/../build-phases/...
#                   when it exists): the per-phase table
#   BENCH_REPS=N    runs of each measurement (default 5): times keep the best (lowest) run,
#                   memory the median
#   BENCH_SCALE=F   multiply the per-call loop lengths by F (default 1)
#   BENCH_TMP=DIR   where the traces are written (default: a fresh directory in $TMPDIR or /tmp)
#   BENCH_QUICK=1   the per-call tables only (no whole-process, rate, memory or phase runs)
#
# The same program (build/bench/overhead) runs without peerwatch and with it
# (LD_PRELOAD=libpeerwatch.so, PEERWATCH_OPTIONS) under the same conditions;
# "added" is the difference of the two figures.  Runs of the configurations
# are interleaved (rep 1 of each, then rep 2 of each, ...) so that a slow
# moment of the machine falls on all of them alike; a time is the best of the
# runs (interference only adds to it), memory the median.
#
# Per-call runs make their calls in bursts with a pause after each (-b, -p),
# a pace the trace writer keeps up with: the calling thread's cost is that of
# recording every call.  (A thread calling in a tight loop outruns the writer,
# and its surplus events are dropped, counted, and cheaper than recorded
# ones.)  Each run's footer is read: the "dropped" column must be 0.
#
# Budget lines print PASS or OVER; a benchmark never fails the build (exit 0
# unless the benchmark itself could not run).
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${BENCH_REPS:-5}
SCALE=${BENCH_SCALE:-1}
QUICK=${BENCH_QUICK:-0}
OVERHEAD="$B/bench/overhead"
read -r -a LIBSPEC <<<"${BENCH_LIBS:-this=$B/lib/libpeerwatch.so}"
declare -A LIBPATH
LIBS=()
for spec in "${LIBSPEC[@]}"; do
	name=${spec%%=*} path=${spec#*=}
	[ "$name" != "$spec" ] || { name=lib${#LIBS[@]} path=$spec; }
	[ -f "$path" ] || { echo "bench: no library $path ($name)" >&2; exit 2; }
	LIBPATH[$name]=$(cd "$(dirname "$path")" && pwd)/$(basename "$path")
	LIBS+=("$name")
done
LAST=${LIBS[${#LIBS[@]} - 1]}
PHLIB=${BENCH_PHASES_LIB:-$B/../build-phases/lib/libpeerwatch.so}
[ -f "$PHLIB" ] || PHLIB=
if [ ! -x "$OVERHEAD" ] || [ ! -f "$B/sim/libcuda.so.1" ] || [ ! -f "$B/sim/libcudart.so.13" ]; then
	echo "bench: build first (make bench builds $OVERHEAD and the simulated runtimes)" >&2
	exit 2
fi
WORK=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/pw-overhead.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2
unset LD_PRELOAD PEERWATCH_OPTIONS

progress() { [ -t 2 ] && printf '\r%-50s' "$*" >&2; }
scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { v = int(n * s); print v < 1000 ? 1000 : v }'; }

# The configurations: name -> PEERWATCH_OPTIONS ("" = no peerwatch).
MODES=(none observe warn warnns)
declare -A OPTS=(
	[none]=""
	[observe]="mode=observe"
	[warn]="mode=warn"
	[warnns]="mode=warn:stacks=none"
	[stacks]="mode=warn:stacks=all"
)
declare -A LABEL=(
	[none]="no peerwatch"
	[observe]="observe"
	[warn]="warn (every rule)"
	[warnns]="warn, stacks=none"
	[stacks]="warn + stacks=all"
)

declare -A V # "metric|set|op|threads|mode|lib" -> space-separated values of the reps

# run SET MODE LIB ARGS...: one run of the program; its key=value line is
# added to V, with the footer's "dropped" (dropped_n) and "events".
LAST_TRACE=
run() {
	local set=$1 mode=$2 lib=$3 line key foot
	shift 3
	rm -rf "$WORK/t"
	if [ "$mode" = none ]; then
		line=$("$OVERHEAD" "$@") || { echo "bench: overhead $* failed" >&2; exit 2; }
		lib=-
	else
		line=$(LD_PRELOAD="${LIBPATH[$lib]}" PEERWATCH_OPTIONS="out=$WORK/t:verbosity=0:${OPTS[$mode]}" \
			"$OVERHEAD" "$@") || { echo "bench: overhead $* under $mode ($lib) failed" >&2; exit 2; }
		LAST_TRACE=$(find "$WORK/t" -name '*.pw.jsonl' 2>/dev/null | head -1)
		foot=$(tail -1 "$LAST_TRACE" 2>/dev/null)
		line+=" dropped_n=$(sed -n 's/.*"dropped":\([0-9]*\).*/\1/p' <<<"$foot")"
		line+=" events_n=$(sed -n 's/.*"events":\([0-9]*\).*/\1/p' <<<"$foot")"
	fi
	local op threads
	op=$(sed -n 's/.*op=\([^ ]*\).*/\1/p' <<<"$line")
	threads=$(sed -n 's/.*threads=\([^ ]*\).*/\1/p' <<<"$line")
	for kv in $line; do
		key=${kv%%=*}
		case $key in op | threads | calls) continue ;; esac
		V["$key|$set|$op|$threads|$mode|$lib"]+="${kv#*=} "
	done
}

median() { # values... -> median
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan"; exit }
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
best() { printf '%s\n' "$@" | sort -g | head -1 | grep . || echo nan; }
worst() { printf '%s\n' "$@" | sort -g | tail -1 | grep . || echo nan; }
# A metric of the run in which another metric was lowest (one run's figures together).
of_best_run() { # by metric set op threads mode lib
	local by=${V["$1|$3|$4|$5|$6|$7"]:-} vals=${V["$2|$3|$4|$5|$6|$7"]:-}
	awk -v by="$by" -v vals="$vals" 'BEGIN {
		n = split(by, b, " "); split(vals, v, " "); k = 0
		for (i = 1; i <= n; i++) if (!k || b[i] + 0 < b[k] + 0) k = i
		print k ? v[k] : "nan" }'
}
fig() { # metric set op threads mode lib: the best run (times), the median (memory), the most (drops)
	# shellcheck disable=SC2086 # the values are split on purpose
	case $1 in
	*_kb) median ${V["$1|$2|$3|$4|$5|$6"]:-} ;;
	dropped_n) worst ${V["$1|$2|$3|$4|$5|$6"]:-} ;;
	*) best ${V["$1|$2|$3|$4|$5|$6"]:-} ;;
	esac
}
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }

START=$(date +%s)
echo "peerwatch overhead benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores," \
	"$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), times: best of $REPS runs, memory: median of $REPS"
for l in "${LIBS[@]}"; do echo "library $l: ${LIBPATH[$l]}"; done
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews the figures)"
echo "simulated driver and runtime: $B/sim (PWSIM_DEVICES=2); clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
echo

# ---- 1. per call, on the calling thread: 1 and 8 threads, paced -------------
# can, async4, rtcan, rtasync4 in every mode and with 8 threads; sync4 and the
# copies of earlier benchmarks with one thread.
OPS=(can async4 rtcan rtasync4)
OPS1=(sync4 copy4k same4k cross4k)
N1=$(scaled 100000) # calls on one thread
N8=$(scaled 20000)  # calls on each of 8 threads
BURST=4096
# microseconds after each burst, for calls that make one event (twice that
# for the runtime calls, which make two): generous, since on a shared
# machine the writer may get a fraction of a core
P1=10000
P8=80000
for rep in $(seq "$REPS"); do
	progress "per-call runs: $rep/$REPS"
	for op in "${OPS[@]}" "${OPS1[@]}"; do
		for mode in "${MODES[@]}"; do
			for lib in "${LIBS[@]}"; do
				k=1
				case $op in rt*) k=2 ;; esac
				run call "$mode" "$lib" -c "$op" -t 1 -n "$N1" -b "$BURST" -p $((P1 * k))
				case " ${OPS[*]} " in *" $op "*) run call "$mode" "$lib" -c "$op" -t 8 -n "$N8" -b "$BURST" -p $((P8 * k)) ;; esac
				[ "$mode" = none ] && break
			done
		done
	done
done
[ -t 2 ] && printf '\r%50s\r' '' >&2

declare -A ADDED # "op|threads|mode|lib" -> added thread-CPU ns per call
echo "## Per call, on the calling thread (ns/call, best of $REPS)"
echo
echo "thread CPU = CLOCK_THREAD_CPUTIME_ID of each calling thread / its calls; added = minus no"
echo "peerwatch.  Calls in bursts of $BURST with a pause after each (${P1} us, ${P8} us with 8 threads, twice"
echo "that for rtcan and rtasync4), so that the trace writer keeps up: dropped = the most events any of"
echo "the runs dropped (footer)."
echo
echo "| call | threads | configuration | library | thread CPU | added | dropped |"
echo "|---|---|---|---|---|---|---|"
for op in "${OPS[@]}" "${OPS1[@]}"; do
	for t in 1 8; do
		base=$(fig thr_cpu_ns call "$op" "$t" none -)
		[ "$base" = nan ] && continue
		echo "| $op | $t | ${LABEL[none]} | — | $base | — | — |"
		for mode in "${MODES[@]}"; do
			[ "$mode" = none ] && continue
			for lib in "${LIBS[@]}"; do
				cpu=$(fig thr_cpu_ns call "$op" "$t" "$mode" "$lib")
				added=$(calc "$cpu - $base")
				ADDED["$op|$t|$mode|$lib"]=$added
				echo "| $op | $t | ${LABEL[$mode]} | $lib | $cpu | $added | $(fig dropped_n call "$op" "$t" "$mode" "$lib") |"
			done
		done
	done
done
echo
echo "calls: can = cuDeviceCanAccessPeer(&v, 0, 1); async4 = cuMemcpyPeerAsync(dev 1 <- dev 0, 4 bytes);"
echo "sync4 = cuMemcpyPeer of 4 bytes (each as a program with static cudart reaches the driver: through"
echo "the pointer it was given); rtcan / rtasync4 = cudaDeviceCanAccessPeer / cudaMemcpyPeerAsync of the"
echo "simulated shared libcudart.so.13: a runtime call and the driver call it makes, both recorded;"
echo "copy4k = cuMemcpyPeer of 4 KiB; same4k / cross4k = cuMemcpyDtoD_v2 of 4 KiB within device 0"
echo "(not recorded) / from device 0 to device 1 (recorded, \"implicit\": true).  Peer access is on both"
echo "ways, so warn mode has nothing to report."
echo

echo "## A runtime call with its nested driver call, against one layer (added ns per call, 1 thread)"
echo
echo "| calls | configuration | library | one layer (driver) | runtime + driver | ratio |"
echo "|---|---|---|---|---|---|"
declare -A NEST
for pair in can:rtcan async4:rtasync4; do
	one=${pair%%:*} two=${pair#*:}
	for mode in observe warn; do
		for lib in "${LIBS[@]}"; do
			a1=${ADDED["$one|1|$mode|$lib"]} a2=${ADDED["$two|1|$mode|$lib"]}
			NEST["$one|$mode|$lib"]=$(calc "$a2 / $a1" 2)
			echo "| $one / $two | ${LABEL[$mode]} | $lib | $a1 | $a2 | ${NEST["$one|$mode|$lib"]} |"
		done
	done
done
echo

echo "## 8 threads against 1 (added thread-CPU ns per call)"
echo
echo "| call | configuration | library | added, 1 thread | added, 8 threads | ratio |"
echo "|---|---|---|---|---|---|"
declare -A RATIO8
for op in "${OPS[@]}"; do
	for mode in observe warn; do
		for lib in "${LIBS[@]}"; do
			a1=${ADDED["$op|1|$mode|$lib"]} a8=${ADDED["$op|8|$mode|$lib"]}
			RATIO8["$op|$mode|$lib"]=$(calc "$a8 / $a1" 2)
			echo "| $op | ${LABEL[$mode]} | $lib | $a1 | $a8 | ${RATIO8["$op|$mode|$lib"]} |"
		done
	done
done
echo "(with 8 threads on $(nproc) cores, threads take turns: the ratio shows what the threads share"
echo "in peerwatch, such as the sequence counter's cache line, only where they truly run at once.)"
echo

if [ "$QUICK" != 1 ]; then
	# ---- 2. whole process, tight loop: what the writer does with a producer it cannot follow --
	NW=$(scaled 2000000)
	for rep in $(seq "$REPS"); do
		progress "whole-process runs: $rep/$REPS"
		for mode in none observe warn; do
			for lib in "${LIBS[@]}"; do
				run whole "$mode" "$lib" -c can -t 1 -n "$NW" -f
				[ "$mode" = none ] && break
			done
		done
	done
	# ---- 3. the writer's throughput: calls at a fixed rate, one thread -----------
	RATES=(250000 500000 1000000 2000000 3000000 4000000 6000000)
	for rep in $(seq "$REPS"); do
		progress "rate runs: $rep/$REPS"
		for r in "${RATES[@]}"; do
			n=$(awk -v r="$r" 'BEGIN { print int(r * 0.5) }') # half a second each
			for lib in "${LIBS[@]}"; do
				run "rate$r" observe "$lib" -c can -t 1 -n "$n" -r "$r"
			done
		done
	done
	# ---- 4. memory: 1, 8 and 32 threads alive at the end -------------------------
	NM=$(scaled 20000)
	for rep in $(seq "$REPS"); do
		progress "memory runs: $rep/$REPS"
		for mode in none observe warn; do
			for lib in "${LIBS[@]}"; do
				for t in 1 8 32; do
					run mem "$mode" "$lib" -c can -t "$t" -n "$NM" -b 1000 -p 20000
				done
				[ "$mode" = none ] && break
			done
		done
	done
	[ -t 2 ] && printf '\r%50s\r' '' >&2

	echo "## Whole process: $NW cuDeviceCanAccessPeer calls in a tight loop, one thread (best of $REPS)"
	echo
	echo "From fork to reaped: the setup, the calls, the trace writer thread and the final flush at"
	echo "exit; per call = total / $NW.  A thread calling without pause makes events faster than any"
	echo "writer can format and write them: the surplus is dropped and counted (the footer's"
	echo "\"dropped\"), and the thread never waits.  Each row is the run with the lowest CPU time."
	echo
	echo "| configuration | library | wall ns/call | CPU ns/call | calling thread ns/call | events written | dropped |"
	echo "|---|---|---|---|---|---|---|"
	for mode in none observe warn; do
		for lib in "${LIBS[@]}"; do
			[ "$mode" = none ] && lib=-
			w=$(of_best_run proc_cpu_ns proc_wall_ns whole can 1 "$mode" "$lib")
			c=$(of_best_run proc_cpu_ns proc_cpu_ns whole can 1 "$mode" "$lib")
			tc=$(of_best_run proc_cpu_ns thr_cpu_ns whole can 1 "$mode" "$lib")
			if [ "$mode" = none ]; then
				ev="—" dr="—"
			else
				ev=$(of_best_run proc_cpu_ns events_n whole can 1 "$mode" "$lib")
				dr=$(of_best_run proc_cpu_ns dropped_n whole can 1 "$mode" "$lib")
			fi
			echo "| ${LABEL[$mode]} | $lib | $w | $c | $tc | $ev | $dr |"
			[ "$mode" = none ] && break
		done
	done
	echo

	echo "## The trace writer's throughput: one thread calling cuDeviceCanAccessPeer at a fixed rate (observe)"
	echo
	echo "Half a second at each rate, in bursts of 256; dropped = the most any run dropped.  The writer"
	echo "(one thread) decodes each record into its JSON line and writes it; the highest rate with"
	echo "nothing dropped is what it sustains on this machine."
	echo
	echo "| calls/s asked | library | calls/s made | events | dropped (worst of $REPS) |"
	echo "|---|---|---|---|---|"
	declare -A SUSTAINED
	for r in "${RATES[@]}"; do
		for lib in "${LIBS[@]}"; do
			d=$(fig dropped_n "rate$r" can 1 observe "$lib")
			# shellcheck disable=SC2086
			e=$(median ${V["events_n|rate$r|can|1|observe|$lib"]:-})
			# shellcheck disable=SC2086
			made=$(calc "1e9 / $(median ${V["span_ns|rate$r|can|1|observe|$lib"]:-})" 0)
			echo "| $r | $lib | $made | $e | $d |"
			# sustained: nothing dropped, and the calls were made at the rate asked (a writer
			# that holds the caller back would pass the first test alone)
			if [ "$d" = 0 ] && awk -v m="$made" -v r="$r" 'BEGIN { exit !(m >= 0.95 * r) }'; then
				SUSTAINED[$lib]=$r
			fi
		done
	done
	echo

	echo "## Resident memory (KiB, median of $REPS; read while every thread is alive after its calls)"
	echo
	echo "| configuration | library | RSS 1 thr | RSS 8 thr | RSS 32 thr | added, process (1 thr) | added per thread |"
	echo "|---|---|---|---|---|---|---|"
	declare -A MPROC
	for mode in none observe warn; do
		for lib in "${LIBS[@]}"; do
			[ "$mode" = none ] && lib=-
			r1=$(fig rss_kb mem can 1 "$mode" "$lib")
			r8=$(fig rss_kb mem can 8 "$mode" "$lib")
			r32=$(fig rss_kb mem can 32 "$mode" "$lib")
			if [ "$mode" = none ]; then
				ap="—" at="—"
			else
				ap=$(calc "$r1 - $(fig rss_kb mem can 1 none -)" 0)
				at=$(calc "(($r32 - $(fig rss_kb mem can 32 none -)) - ($r8 - $(fig rss_kb mem can 8 none -))) / 24" 0)
				MPROC["$mode|$lib"]=$ap
			fi
			echo "| ${LABEL[$mode]} | $lib | $r1 | $r8 | $r32 | $ap | $at |"
			[ "$mode" = none ] && break
		done
	done
	echo

	# ---- 5. where the time goes: the phase counters (make PHASES=1) ---------------
	if [ -n "$PHLIB" ]; then
		echo "## Where the time goes: phase counters (library built with make PHASES=1)"
		echo
		echo "ns per call on the calling thread (decode: per record, on the writer's thread), one thread,"
		echo "paced as above; median of $REPS.  Each phase boundary reads the time-stamp counter (about"
		echo "9 ns here), which these figures include: they add up to more than the plain build's cost."
		echo "wrapper = entry to return less the real call; capture = arguments, sequence number, the"
		echo "wrapper's tests; lookup = the vendor's look-ups (devices of pointers and contexts, the range"
		echo "cache's bookkeeping); rules = translating the call, the rules, the state; record = the"
		echo "record in the thread's buffer; decode = the writer turning one record into its line."
		echo
		echo "| call | configuration | wrapper | capture | lookup | rules | record | decode |"
		echo "|---|---|---|---|---|---|---|---|"
		for op in can async4 rtcan rtasync4; do
			for mode in observe warn; do
				declare -A PH=()
				for rep in $(seq "$REPS"); do
					rm -rf "$WORK/t"
					k=1
					case $op in rt*) k=2 ;; esac
					line=$(LD_PRELOAD="$PHLIB" PEERWATCH_OPTIONS="out=$WORK/t:verbosity=0:${OPTS[$mode]}" \
						"$OVERHEAD" -c "$op" -t 1 -n "$N1" -b "$BURST" -p $((P1 * k)) 2>&1 >/dev/null | grep 'phases:')
					for kv in $line; do
						case $kv in *=*) PH[${kv%%=*}]+="${kv#*=} " ;; esac
					done
				done
				row="| $op | ${LABEL[$mode]} |"
				for k in wrapper capture lookup rules record decode; do
					# shellcheck disable=SC2086
					row+=" $(median ${PH[$k]:-}) |"
				done
				echo "$row"
				unset PH
			done
		done
		echo
	fi
fi

# ---- the budget (the hot path) ------------------------------------------------
budget() { # description value limit unit
	local verdict
	verdict=$(awk -v v="$2" -v l="$3" 'BEGIN { print (v == v + 0 && v <= l) ? "PASS" : "OVER" }')
	printf '%-4s  %-78s %7s %s (limit %s)\n' "$verdict" "$1" "$2" "$4" "$3"
}
echo "## Budget (library $LAST)"
echo
echo '```'
for op in can async4; do
	budget "observe, added on the calling thread, $op, 1 thread" "${ADDED["$op|1|observe|$LAST"]}" 100 ns/call
	budget "warn (every rule), added on the calling thread, $op, 1 thread" "${ADDED["$op|1|warn|$LAST"]}" 200 ns/call
done
for op in can async4; do
	d=$(calc "${ADDED["$op|1|warn|$LAST"]} - ${ADDED["$op|1|warnns|$LAST"]}")
	budget "stacks=violations against stacks=none on clean calls, $op, warn" "$d" 5 ns/call
done
for op in can async4; do
	for mode in observe warn; do
		budget "runtime call + nested driver call / driver call alone, $op, $mode" "${NEST["$op|$mode|$LAST"]}" 1.3 x
	done
done
for op in "${OPS[@]}"; do
	for mode in observe warn; do
		budget "8 threads / 1 thread, added per call, $op, $mode" "${RATIO8["$op|$mode|$LAST"]}" 1.5 x
	done
done
drops=0
for k in "${!V[@]}"; do
	case $k in dropped_n\|call\|*) for d in ${V[$k]}; do [ "$d" -gt 0 ] 2>/dev/null && drops=$((drops + d)); done ;; esac
done
budget "events dropped in the paced per-call runs (all libraries)" "$drops" 0 events
if [ "$QUICK" != 1 ]; then
	for mode in observe warn; do
		budget "resident memory added per process (1 thread, its buffers incl.), $mode" \
			"$(calc "${MPROC["$mode|$LAST"]} / 1024" 1)" 16 MiB
	done
fi
echo '```'
echo
if [ "$QUICK" != 1 ]; then
	for lib in "${LIBS[@]}"; do
		echo "the trace writer sustains, library $lib: ${SUSTAINED[$lib]:-less than ${RATES[0]}} events/s without drops (one thread, $(nproc) cores)"
	done
fi
echo "bench: $(($(date +%s) - START)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

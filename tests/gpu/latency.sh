#!/usr/bin/env bash
# What a traced call costs on the calling thread, on two GPUs: latency_static
# and latency_shared (latency.cu) plain, then under each bundle given in
# observe and in warn mode, alternating in rounds, in one invocation.
#
#   tests/gpu/latency.sh [options] NAME=BUNDLE [NAME=BUNDLE ...]
#     -r ROUNDS   rounds (default 5): each round runs every configuration once
#     -o DIR      where the traces and raw figures go (default /tmp/pw-latency)
#     -p DIR      the programs (default: beside this script, else build/gpu)
#     -P BUNDLE   also run a bundle built with make PHASES=1 once per variant and
#                 mode, and print its phase counters (where the time goes)
#     -n CALLS    calls per thread and op (default 50000)
#     -O OPS      the calls to time (default can,async4,sync4)
#     -m MODES    the modes each bundle runs in (default "observe warn")
#     -R REPS     repetitions inside each run, their median taken (default 3)
#     -U          leave the worker threads unpinned (default: each on a CPU of
#                 its own, latency.cu --pin 1)
#
# A BUNDLE is a folder with bin/peerwatch and lib/libpeerwatch.so (make dist:
# build/dist/peerwatch).  Example, the old bundle against a new one:
#
#   make dist gpu-programs
#   tests/gpu/latency.sh before=/path/to/old/bundle after=build/dist/peerwatch
#
# Per configuration: the median over the rounds of each run's thread CPU ns
# per call (mean over its threads), its range (lowest-highest run), "added"
# = median minus the plain run's median, "added, best" = the best (lowest)
# run minus the plain's best (interference only adds: the figure least
# moved by the machine's other work), and the events the traces dropped
# (their footers: must be 0, the calls are paced so the writer keeps up).
# Then the budget lines, for the last bundle: observe <= 100 ns and warn <=
# 250 ns added for cudaMemcpyPeerAsync 4 B and cudaDeviceCanAccessPeer (static
# cudart); shared cudart (a runtime call with its nested driver call) <= 1.3x
# static; 8 threads <= 1.5x one.  About 3 minutes with 5 rounds and 2 bundles.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
ROUNDS=5 OUT=/tmp/pw-latency PROGS= PHASES= CALLS=50000 OPS=can,async4,sync4 MODES="observe warn" REPS=3 PIN=1
while getopts "r:o:p:P:n:O:m:R:U" o; do
	case $o in
	r) ROUNDS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	p) PROGS=$OPTARG ;;
	P) PHASES=$OPTARG ;;
	n) CALLS=$OPTARG ;;
	O) OPS=$OPTARG ;;
	m) MODES=$OPTARG ;;
	R) REPS=$OPTARG ;;
	U) PIN=0 ;;
	*) sed -n '2,34p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "latency.sh: name at least one bundle (NAME=BUNDLE)" >&2; exit 2; }
if [ -z "$PROGS" ]; then
	if [ -x "$here/latency_static" ]; then PROGS=$here; else PROGS=$here/../../build/gpu; fi
fi
for v in static shared; do
	[ -x "$PROGS/latency_$v" ] || { echo "latency.sh: no $PROGS/latency_$v (make gpu-programs)" >&2; exit 2; }
done
NAMES=()
declare -A BUNDLE
for spec in "$@"; do
	name=${spec%%=*} dir=${spec#*=}
	[ "$name" != "$spec" ] || { echo "latency.sh: '$spec' is not NAME=BUNDLE" >&2; exit 2; }
	[ -x "$dir/bin/peerwatch" ] || { echo "latency.sh: no $dir/bin/peerwatch ($name)" >&2; exit 2; }
	BUNDLE[$name]=$(cd "$dir" && pwd -P)
	NAMES+=("$name")
done
LAST=${NAMES[${#NAMES[@]} - 1]}
mkdir -p "$OUT"
RAW=$OUT/raw.txt
: >"$RAW"
ARGS=(--ops "$OPS" --threads 1,8 --calls "$CALLS" --reps "$REPS" --pin "$PIN")
read -r -a MODE_LIST <<<"$MODES"
has_op() { [[ ",$OPS," == *",$1,"* ]]; }
has_mode() { [[ " $MODES " == *" $1 "* ]]; }
START=$(date +%s)
echo "latency.sh: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), $(nproc) cores, $ROUNDS rounds, $CALLS calls per thread and op, $REPS repetitions in each run (their median), workers $([ "$PIN" = 1 ] && echo pinned || echo unpinned)"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/  gpu /'
for n in "${NAMES[@]}"; do echo "  bundle $n: ${BUNDLE[$n]}"; done

# one VARIANT CONFIG: the program once; its lines to RAW as
# "round variant config op threads thr_cpu_ns dropped"
one() {
	local variant=$1 config=$2 round=$3 dir line dropped=0 rc
	local prog=$PROGS/latency_$variant
	dir=$OUT/t.$variant.${config/:/.}.$round
	rm -rf "$dir"
	case $config in
	plain) out=$("$prog" "${ARGS[@]}" 2>"$OUT/err") ;;
	*)
		local name=${config%:*} mode=${config#*:}
		# no size limit: a run makes millions of events, and what the writer
		# leaves out at the limit would show as dropped
		out=$("${BUNDLE[$name]}/bin/peerwatch" -q --mode "$mode" --options max_trace_mb=0 -o "$dir" -- \
			"$prog" "${ARGS[@]}" 2>"$OUT/err")
		;;
	esac
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "latency.sh: $variant $config failed (exit $rc): $(tail -3 "$OUT/err")" >&2
		exit 1
	fi
	if [ "$config" != plain ]; then
		dropped=$(for f in "$dir"/*.pw.jsonl; do tail -1 "$f"; done | sed -n 's/.*"dropped":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
		[ -n "$(ls "$dir"/*.partial 2>/dev/null)" ] && dropped="partial"
	fi
	while read -r line; do
		op=$(sed -n 's/.*op=\([^ ]*\).*/\1/p' <<<"$line")
		th=$(sed -n 's/.*threads=\([^ ]*\).*/\1/p' <<<"$line")
		ns=$(sed -n 's/.*thr_cpu_ns=\([^ ]*\).*/\1/p' <<<"$line")
		[ -n "$op" ] && echo "$round $variant $config $op $th $ns $dropped" >>"$RAW"
	done <<<"$out"
	rm -rf "$dir"
}

CONFIGS=(plain)
for n in "${NAMES[@]}"; do for m in "${MODE_LIST[@]}"; do CONFIGS+=("$n:$m"); done; done
for r in $(seq "$ROUNDS"); do
	for variant in static shared; do
		for c in "${CONFIGS[@]}"; do
			one "$variant" "$c" "$r"
		done
	done
	echo "  round $r of $ROUNDS done ($(($(date +%s) - START)) s)" >&2
done

# ---- tables -------------------------------------------------------------------
# stat VARIANT CONFIG OP THREADS -> "median lo hi dropped_total" (lo: the best run)
stat() {
	awk -v v="$1" -v c="$2" -v o="$3" -v t="$4" '$2 == v && $3 == c && $4 == o && $5 == t {
		x[++n] = $6; d += ($7 == "partial" ? 1e9 : $7) }
		END { if (!n) { print "nan nan nan 0"; exit }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		printf "%.1f %.1f %.1f %d\n", m, x[1], x[n], d }' "$RAW"
}
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }
declare -A ADD
echo
echo "## Per call on the calling thread (thread CPU ns/call: median of $ROUNDS runs, each the median of $REPS repetitions; range: lowest-highest run)"
echo
echo "| call | cudart | threads | configuration | ns/call | range | added | added, best | dropped |"
echo "|---|---|---|---|---|---|---|---|---|"
for op in async4 can sync4; do
	has_op "$op" || continue
	for variant in static shared; do
		for th in 1 8; do
			read -r base blo bhi _ <<<"$(stat "$variant" plain "$op" "$th")"
			echo "| $op | $variant | $th | plain | $base | $blo-$bhi | — | — | — |"
			for c in "${CONFIGS[@]:1}"; do
				read -r m lo hi d <<<"$(stat "$variant" "$c" "$op" "$th")"
				ADD["$op|$variant|$th|$c"]=$(calc "$m - $base")
				echo "| $op | $variant | $th | $c | $m | $lo-$hi | ${ADD["$op|$variant|$th|$c"]} | $(calc "$lo - $blo") | $d |"
			done
		done
	done
done
echo
echo "calls: async4 = cudaMemcpyPeerAsync(dev 1 <- dev 0, 4 bytes) on the thread's stream (a wait every"
echo "256, not timed); can = cudaDeviceCanAccessPeer(&v, 0, 1); sync4 = cudaMemcpyPeer of 4 bytes."
echo "static: one traced driver call per call; shared: the runtime call and the driver call nested in it."

budget() { # description value limit unit
	local verdict
	verdict=$(awk -v v="$2" -v l="$3" 'BEGIN { print (v == v + 0 && v <= l) ? "PASS" : "OVER" }')
	printf '%-4s  %-72s %8s %s (limit %s)\n' "$verdict" "$1" "$2" "$4" "$3"
}
echo
echo "## Budget (bundle $LAST)"
echo
echo '```'
for op in async4 can; do
	has_op "$op" || continue
	has_mode observe && budget "observe, added, $op, static cudart, 1 thread" "${ADD["$op|static|1|$LAST:observe"]}" 100 ns/call
	has_mode warn && budget "warn (every rule), added, $op, static cudart, 1 thread" "${ADD["$op|static|1|$LAST:warn"]}" 250 ns/call
done
for op in async4 can; do
	has_op "$op" || continue
	for mode in "${MODE_LIST[@]}"; do
		budget "shared cudart (runtime + nested driver call) / static, $op, $mode" \
			"$(calc "${ADD["$op|shared|1|$LAST:$mode"]} / ${ADD["$op|static|1|$LAST:$mode"]}" 2)" 1.3 x
	done
done
for op in async4 can; do
	has_op "$op" || continue
	for variant in static shared; do
		for mode in "${MODE_LIST[@]}"; do
			budget "8 threads / 1 thread, added per call, $op, $variant, $mode" \
				"$(calc "${ADD["$op|$variant|8|$LAST:$mode"]} / ${ADD["$op|$variant|1|$LAST:$mode"]}" 2)" 1.5 x
		done
	done
done
echo '```'

if [ -n "$PHASES" ]; then
	echo
	echo "## Where the time goes (bundle $PHASES, built with make PHASES=1; ns per call, one run each)"
	echo
	for variant in static shared; do
		for mode in "${MODE_LIST[@]}"; do
			for op in async4 can; do
				has_op "$op" || continue
				rm -rf "$OUT/ph"
				line=$("$PHASES/bin/peerwatch" -q --mode "$mode" -o "$OUT/ph" -- "$PROGS/latency_$variant" \
					--ops "$op" --threads 1 --calls "$CALLS" 2>&1 >/dev/null | grep 'phases:' | sed 's/.*phases: //')
				echo "- $op, $variant cudart, $mode: ${line:-(no phase counters: is $PHASES built with make PHASES=1?)}"
			done
		done
	done
	rm -rf "$OUT/ph"
fi
echo
echo "latency.sh: $(($(date +%s) - START)) s; raw figures in $RAW"

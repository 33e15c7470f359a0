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
#     -O OPS      the calls to time (default can,async4,sync4); can-ab and
#                 async4-ab: the call traced and untraced in one process,
#                 alternating (what differs between processes then cancels
#                 out; latency.cu)
#     -m MODES    the modes each bundle runs in (default "observe warn")
#     -R REPS     repetitions inside each run, their median taken (default 3)
#     -U          leave the worker threads unpinned (default: each on a CPU of
#                 its own, latency.cu --pin 1)
#     -W PACE     what a query's thread does between its bursts (latency.cu
#                 --pace): equal (default: 1 and 8 threads sleep alike, as
#                 long as 8 need for the writer to keep up), scaled (the
#                 sleep grows with the thread count: the method of the
#                 sections before 2026-11-28), spin (equal, busy-waiting)
#                 or none (no pause: give the bundles room with -X)
#     -X OPTIONS  more peerwatch options for every traced run (key=value:...;
#                 max_trace_mb=0 is always given), e.g. buffer_kb=4096
#     -B N        resamplings for the budget lines' 95% intervals (default 2000)
#     -S          run nothing: the operands are raw.txt files of earlier
#                 invocations (the same bundle names), pooled, and the tables
#                 and budget lines are made from all their rounds
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
# static; 8 threads <= 1.5x one.  Each with a 95% interval from resampling
# the rounds (latency_budget.awk): PASS or OVER when the interval is on one
# side of the limit, PASS? or OVER? when it spans it (these rounds do not
# settle it).  About 3 minutes with 5 rounds and 2 bundles.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
ROUNDS=5 OUT=/tmp/pw-latency PROGS= PHASES= CALLS=50000 OPS=can,async4,sync4 MODES="observe warn" REPS=3 PIN=1
BOOT=2000 SUMMARY=0 PACE=equal XOPTS=
while getopts "r:o:p:P:n:O:m:R:UW:X:B:S" o; do
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
	W) PACE=$OPTARG ;;
	X) XOPTS=$OPTARG ;;
	B) BOOT=$OPTARG ;;
	S) SUMMARY=1 ;;
	*) sed -n '2,44p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $PACE in equal | scaled | spin | none) ;; *) echo "latency.sh: -W wants equal, scaled, spin or none, not '$PACE'" >&2; exit 2 ;; esac
[[ "$BOOT" =~ ^[1-9][0-9]*$ ]] || { echo "latency.sh: -B wants a number of resamplings, not '$BOOT'" >&2; exit 2; }
if [ "$SUMMARY" = 1 ]; then
	# -S: the figures of earlier invocations, pooled (round r of the i-th
	# file becomes round i.r)
	[ $# -ge 1 ] || { echo "latency.sh -S: name at least one raw.txt" >&2; exit 2; }
	[ -z "$PHASES" ] || { echo "latency.sh: -S runs nothing, -P neither" >&2; exit 2; }
	mkdir -p "$OUT"
	RAW=$OUT/pooled.txt
	for f in "$@"; do
		[ -r "$f" ] || { echo "latency.sh -S: cannot read $f" >&2; exit 2; }
		[ "$(cd "$(dirname "$f")" && pwd -P)/$(basename "$f")" != "$(cd "$OUT" && pwd -P)/pooled.txt" ] ||
			{ echo "latency.sh -S: $f is where the pooled figures go; name another -o" >&2; exit 2; }
		bad=$(awk 'NF != 7 || $6 !~ /^-?[0-9.]+$/ || ($2 != "static" && $2 != "shared") || ($5 != 1 && $5 != 8) {
			print FNR ": " $0; exit }' "$f")
		[ -z "$bad" ] || { echo "latency.sh -S: $f:$bad: not a line of latency.sh's raw figures" >&2; exit 2; }
	done
	awk 'FNR == 1 { i++ } { $1 = i "." $1; print }' "$@" >"$RAW"
	[ -s "$RAW" ] || { echo "latency.sh -S: no figures in $*" >&2; exit 2; }
	NAMES=()
	while read -r n; do NAMES+=("$n"); done < <(awk '$3 != "plain" { n = $3; sub(/:.*/, "", n); if (!(n in s)) { s[n]; print n } }' "$RAW")
	[ ${#NAMES[@]} -ge 1 ] || { echo "latency.sh -S: no traced runs in $*" >&2; exit 2; }
	LAST=${NAMES[${#NAMES[@]} - 1]}
	MODES=$(awk '$3 != "plain" { m = $3; sub(/.*:/, "", m); if (!(m in s)) { s[m]; printf "%s%s", sep, m; sep = " " } }' "$RAW")
	OPS=$(awk '{ if (!($4 in s)) { s[$4]; printf "%s%s", sep, $4; sep = "," } }' "$RAW")
	ROUNDS=$(awk '{ print $1 }' "$RAW" | sort -u | wc -l)
	read -r -a MODE_LIST <<<"$MODES"
	START=$(date +%s)
	echo "latency.sh -S: the figures of $# earlier invocation(s), pooled: $ROUNDS rounds; bundles ${NAMES[*]}; modes $MODES; calls $OPS"
	for f in "$@"; do echo "  $f"; done
else
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
	ARGS=(--ops "$OPS" --threads 1,8 --calls "$CALLS" --reps "$REPS" --pin "$PIN" --pace "$PACE")
	read -r -a MODE_LIST <<<"$MODES"
	START=$(date +%s)
	echo "latency.sh: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), $(nproc) cores, $ROUNDS rounds, $CALLS calls per thread and op, $REPS repetitions in each run (their median), workers $([ "$PIN" = 1 ] && echo pinned || echo unpinned), queries paced $PACE${XOPTS:+, peerwatch options $XOPTS}"
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
			out=$("${BUNDLE[$name]}/bin/peerwatch" -q --mode "$mode" --options "max_trace_mb=0${XOPTS:+:$XOPTS}" -o "$dir" -- \
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

fi
CONFIGS=(plain)
for n in "${NAMES[@]}"; do for m in "${MODE_LIST[@]}"; do CONFIGS+=("$n:$m"); done; done
if [ "$SUMMARY" = 0 ]; then
	for r in $(seq "$ROUNDS"); do
		for variant in static shared; do
			for c in "${CONFIGS[@]}"; do
				one "$variant" "$c" "$r"
			done
		done
		echo "  round $r of $ROUNDS done ($(($(date +%s) - START)) s)" >&2
	done
fi
# the calls of the tables: can-ab and async4-ab report two figures each (latency.cu)
OPS=$(sed 's/\(^\|,\)can-ab\(,\|$\)/\1can-ab-one,can-ab-pair\2/; s/\(^\|,\)async4-ab\(,\|$\)/\1async4-ab-one,async4-ab-pair\2/' <<<"$OPS")
has_op() { [[ ",$OPS," == *",$1,"* ]]; }
has_mode() { [[ " $MODES " == *" $1 "* ]]; }

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
if [ "$SUMMARY" = 1 ]; then EACH="pooled"; else EACH="each the median of $REPS repetitions"; fi
echo "## Per call on the calling thread (thread CPU ns/call: median of $ROUNDS runs, $EACH; range: lowest-highest run)"
echo
echo "| call | cudart | threads | configuration | ns/call | range | added | added, best | dropped |"
echo "|---|---|---|---|---|---|---|---|---|"
for op in async4 can sync4 async4-ab-one async4-ab-pair can-ab-one can-ab-pair; do
	has_op "$op" || continue
	for variant in static shared; do
		[[ "$op/$variant" != *-ab-pair/static ]] || continue # static cudart: no runtime to find
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
if has_op can-ab-one || has_op async4-ab-one; then
	echo "can-ab-*, async4-ab-*: in one process, the call traced and untraced in alternating bursts"
	echo "(latency.cu); their ns/call is what one layer (-one), and the runtime call with its nested"
	echo "driver call (-pair), add per call in that process; plain's is the method's own error."
fi

echo
echo "## Budget (bundle $LAST)"
echo
echo '```'
BUDGET_RC=0
awk -v last="$LAST" -v modes="$MODES" -v ops="$OPS" -v boot="$BOOT" -f "$here/latency_budget.awk" "$RAW" ||
	BUDGET_RC=$?
echo '```'
echo
echo "95% intervals from $BOOT resamplings of the $ROUNDS rounds. PASS, OVER: the interval is within,"
echo "past the limit; PASS?, OVER?: it spans the limit, these rounds do not settle it."
[ "$ROUNDS" -ge 8 ] || echo "With $ROUNDS rounds the intervals are too narrow to trust (8 or more: -r, or pool runs with -S)."

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
# a report without its budget lines must not pass for a whole one
if [ "$BUDGET_RC" -ne 0 ]; then
	echo "latency.sh: latency_budget.awk failed (exit $BUDGET_RC) on $RAW: the report has no budget lines" >&2
	exit 1
fi

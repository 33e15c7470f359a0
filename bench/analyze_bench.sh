#!/bin/bash
# peerwatch-analyze throughput: `summary` against the same counts computed by
# jq in one run, over 1 000 000 generated call events (bench/gen_trace.c).
#
#   bench/analyze_bench.sh [BUILD_DIR]      (make bench-analyze)
#   EVENTS=N   another number of events
#   RUNS=N     each timing is the best of N runs (default 3), jq's too
#   GEN_TRACE=PATH  a built bench/gen_trace (else it is compiled with $CC)
#
# Two shapes of the same events: one process's trace (one 350 MB file, read
# in chunks by all workers) and eight processes' traces (a multi-GPU job).
# jq computes per API: calls, failed calls, total host time — summary
# computes those and more (p50/p99/max from its histograms, per process,
# violations per rule), and validates every line.  The counts of both are
# compared, so a fast wrong answer fails the benchmark.
set -eu
B=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
A="$B/bin/peerwatch-analyze"
EVENTS=${EVENTS:-1000000}
RUNS=${RUNS:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

command -v jq >/dev/null || { echo "analyze_bench: needs jq" >&2; exit 2; }
GEN=${GEN_TRACE:-$WORK/gen_trace}
[ -n "${GEN_TRACE:-}" ] || ${CC:-cc} -O2 -o "$GEN" "$HERE/gen_trace.c"
"$GEN" "$WORK/one" "$EVENTS" 1
"$GEN" "$WORK/eight" "$EVENTS" 8

JQ='reduce (inputs | select(.type == "call")) as $e ({};
	.[$e.api].count += 1 | .[$e.api].errors += (if $e.ret != 0 then 1 else 0 end) |
	.[$e.api].total += $e.dur_ns)'
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# seconds, the best of RUNS runs, with the command's stdout in $WORK/out
timed() {
	local s e best=
	for _ in $(seq "$RUNS"); do
		s=$(now_ms)
		"$@" >"$WORK/out"
		e=$(now_ms)
		if [ -z "$best" ] || [ $((e - s)) -lt "$best" ]; then best=$((e - s)); fi
	done
	awk -v ms="$best" 'BEGIN { printf "%.2f", ms / 1000 }'
}
same_counts() { # the summary --json and jq results of one data set
	jq -S '[.calls[] | {key: .api, value: {count, errors, total: .host_ns.total}}] | from_entries' \
		"$WORK/pw.json" >"$WORK/a"
	jq -S . "$WORK/jq.json" >"$WORK/b"
	cmp -s "$WORK/a" "$WORK/b"
}

echo "peerwatch-analyze summary vs jq, $EVENTS call events, $(nproc) CPUs, $(date -u +%Y-%m-%d), best of $RUNS"
printf '%-22s %8s %9s %9s %9s %8s %12s\n' "traces" "size" "summary" "-j 1" "jq" "ratio" "events/s"
status=0
for set in one eight; do
	files=("$WORK/$set"/*.pw.jsonl)
	size=$(du -sm "$WORK/$set" | cut -f1)
	t=$(timed "$A" summary --json "$WORK/$set")
	cp "$WORK/out" "$WORK/pw.json"
	t1=$(timed "$A" summary --json -j 1 "$WORK/$set")
	tj=$(timed jq -n "$JQ" "${files[@]}")
	cp "$WORK/out" "$WORK/jq.json"
	if ! same_counts; then
		echo "analyze_bench: $set: summary and jq disagree" >&2
		diff "$WORK/a" "$WORK/b" | head >&2
		status=1
	fi
	label="${#files[@]} file$([ ${#files[@]} = 1 ] || echo s)"
	awk -v l="$label" -v s="$size" -v t="$t" -v t1="$t1" -v tj="$tj" -v n="$EVENTS" 'BEGIN {
		printf "%-22s %6dMB %8.2fs %8.2fs %8.2fs %7.1fx %12.0f\n", l, s, t, t1, tj, tj / t, n / t }'
done
[ $status = 0 ] && echo "counts: summary and jq agree"
exit $status

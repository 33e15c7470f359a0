#!/bin/bash
# peerwatch-analyze throughput against DuckDB (and jq), in one run, over
# 1 000 000 generated call events (bench/gen_trace.c).
#
#   bench/analyze_bench.sh [BUILD_DIR]      (make bench-analyze)
#   EVENTS=N   another number of events
#   RUNS=N     rounds: each tool runs once a round, the rounds one after
#              another; its time is its best round (default 3)
#   JOBS=N     the workers of every tool (default: the machine's CPUs)
#   JQ=1       jq too (20 s a run on two cores: off by default)
#   DUCKDB_DIR=DIR  where @duckdb/node-api is installed (default
#              BUILD_DIR/duckdb; installed there with npm when missing and
#              npm can reach its registry; without it the DuckDB column is
#              left out, and says why)
#   GEN_TRACE=PATH  a built bench/gen_trace (else it is compiled with $CC)
#
# Two shapes of the same events: one process's trace (one 350 MB file, read
# in chunks by all workers where the command allows it) and eight processes'
# traces (a multi-GPU job).  DuckDB answers summary's first question — per
# API: calls, failed calls, total host time — with read_ndjson and GROUP BY
# (bench/duckdb_summary.mjs); summary computes those and more (p50/p99/max,
# per process, violations per rule) and validates every line against the
# trace format.  check, matrix, ipc and managed are timed on the same files
# against the same DuckDB query: they answer other questions, each also
# reading every line.  The counts of summary and DuckDB (or jq) are
# compared, so a fast wrong answer fails the benchmark.
set -eu
B=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
A="$B/bin/peerwatch-analyze"
EVENTS=${EVENTS:-1000000}
RUNS=${RUNS:-3}
JOBS=${JOBS:-$(nproc)}
DUCKDB_DIR=${DUCKDB_DIR:-$B/duckdb}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

GEN=${GEN_TRACE:-$WORK/gen_trace}
[ -n "${GEN_TRACE:-}" ] || ${CC:-cc} -O2 -o "$GEN" "$HERE/gen_trace.c"
"$GEN" "$WORK/one" "$EVENTS" 1
"$GEN" "$WORK/eight" "$EVENTS" 8

# DuckDB: its Node.js package, installed once under the build directory.
duck=
if ! command -v node >/dev/null; then
	duck_why="no node"
elif [ -d "$DUCKDB_DIR/node_modules/@duckdb/node-api" ] ||
	npm install --prefix "$DUCKDB_DIR" --no-audit --no-fund @duckdb/node-api >"$WORK/npm.log" 2>&1; then
	cp "$HERE/duckdb_summary.mjs" "$DUCKDB_DIR/"
	duck="$DUCKDB_DIR/duckdb_summary.mjs"
	duck_version=$(node -e "console.log(require('$DUCKDB_DIR/node_modules/@duckdb/node-bindings/package.json').version)" 2>/dev/null || echo "?")
else
	duck_why="npm install @duckdb/node-api failed: $(tail -1 "$WORK/npm.log")"
fi
if [ "${JQ:-0}" = 1 ] && ! command -v jq >/dev/null; then
	echo "analyze_bench: JQ=1 needs jq" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "analyze_bench: needs jq (to compare the counts)" >&2; exit 2; }

JQ_QUERY='reduce (inputs | select(.type == "call")) as $e ({};
	.[$e.api].count += 1 | .[$e.api].errors += (if $e.ret != 0 then 1 else 0 end) |
	.[$e.api].total += $e.dur_ns)'
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Each command of a set is run once a round, the rounds one after another
# (RUNS of them), so that a slower minute of a shared machine falls on
# every tool alike; a command's time is its best round.  round_run NAME
# CMD...: one run of it, its stdout in $WORK/out.NAME, its time added to
# best[NAME].
declare -A best
round_run() {
	local name=$1 s e
	shift
	s=$(now_ms)
	"$@" >"$WORK/out.$name"
	e=$(now_ms)
	if [ -z "${best[$name]:-}" ] || [ $((e - s)) -lt "${best[$name]}" ]; then best[$name]=$((e - s)); fi
}
secs() { awk -v ms="${best[$1]}" 'BEGIN { printf "%.2f", ms / 1000 }'; }
same_counts() { # FILE: summary --json's counts against FILE's ({api: {count, errors, total}})
	jq -S '[.calls[] | {key: .api, value: {count, errors, total: .host_ns.total}}] | from_entries' \
		"$WORK/pw.json" >"$WORK/a"
	jq -S . "$1" >"$WORK/b"
	cmp -s "$WORK/a" "$WORK/b"
}

echo "peerwatch-analyze vs DuckDB, $EVENTS call events, $(nproc) CPUs, -j $JOBS, $(date -u +%Y-%m-%d), best of $RUNS rounds"
if [ -n "$duck" ]; then
	echo "DuckDB $duck_version (@duckdb/node-api, node $(node --version)), threads $JOBS"
else
	echo "DuckDB: left out ($duck_why)"
fi
printf '%-8s %6s %8s %8s %8s %8s %8s %8s %8s %8s %12s\n' traces size duckdb summary "-j 1" check matrix \
	ipc managed jq "summary ev/s"
status=0
for set in one eight; do
	files=("$WORK/$set"/*.pw.jsonl)
	size=$(du -sm "$WORK/$set" | cut -f1)
	td=- tj=-
	best=()
	for _ in $(seq "$RUNS"); do
		[ -z "$duck" ] || round_run duck node "$duck" "$JOBS" "${files[@]}"
		round_run summary "$A" summary --json -j "$JOBS" "$WORK/$set"
		round_run summary1 "$A" summary --json -j 1 "$WORK/$set"
		for c in check matrix ipc managed; do
			round_run "$c" "$A" "$c" -j "$JOBS" "$WORK/$set"
		done
		[ "${JQ:-0}" != 1 ] || round_run jq jq -n "$JQ_QUERY" "${files[@]}"
	done
	[ -z "$duck" ] || { td=$(secs duck) && cp "$WORK/out.duck" "$WORK/duck.json"; }
	t=$(secs summary) t1=$(secs summary1)
	cp "$WORK/out.summary" "$WORK/pw.json"
	declare -A tc=()
	for c in check matrix ipc managed; do
		tc[$c]=$(secs "$c")
	done
	if [ "${JQ:-0}" = 1 ]; then
		tj=$(secs jq)
		cp "$WORK/out.jq" "$WORK/jq.json"
	else
		jq -n "$JQ_QUERY" "${files[@]}" >"$WORK/jq.json"
	fi
	for other in duck jq; do
		[ -f "$WORK/$other.json" ] || continue
		if ! same_counts "$WORK/$other.json"; then
			echo "analyze_bench: $set: summary and $other disagree" >&2
			diff "$WORK/a" "$WORK/b" | head >&2
			status=1
		fi
	done
	rm -f "$WORK/duck.json"
	label="${#files[@]} file$([ ${#files[@]} = 1 ] || echo s)"
	awk -v l="$label" -v s="$size" -v td="$td" -v t="$t" -v t1="$t1" -v c="${tc[check]}" \
		-v m="${tc[matrix]}" -v i="${tc[ipc]}" -v g="${tc[managed]}" -v tj="$tj" -v n="$EVENTS" '
		function sec(x) { return x == "-" ? x : x "s" }
		BEGIN { printf "%-8s %4dMB %8s %8s %8s %8s %8s %8s %8s %8s %12.0f\n", l, s, sec(td), sec(t),
			sec(t1), sec(c), sec(m), sec(i), sec(g), sec(tj), n / t }'
done
[ $status = 0 ] && echo "counts: summary, DuckDB and jq agree"
exit $status

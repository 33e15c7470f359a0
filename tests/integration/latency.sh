#!/bin/bash
# The real-GPU latency benchmark's script (tests/gpu/latency.sh), tried on
# the simulated runtime: tests/gpu/latency.cu built as C against it
# (latency_sim) stands in for both latency_static and latency_shared.  The
# figures mean nothing here; what is checked is that the script runs the
# program plain and under two bundles, in both modes, alternating, and
# writes every table row, range and budget line the lead will read on a GPU
# machine, with nothing dropped.
#   tests/integration/latency.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-latency.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

mkdir -p "$WORK/progs"
ln -s "$B/tests/latency_sim" "$WORK/progs/latency_static"
ln -s "$B/tests/latency_sim" "$WORK/progs/latency_shared"
"$here/../gpu/latency.sh" -r 2 -n 2000 -p "$WORK/progs" -o "$WORK/out" one="$B" two="$B" >"$WORK/report" 2>"$WORK/err"
rc=$?
check "latency.sh runs to its end (exit $rc: $(tail -1 "$WORK/err"))" [ $rc -eq 0 ]
rows=$(grep -c '^| \(async4\|can\|sync4\) |' "$WORK/report")
# 3 calls x 2 cudart x 2 thread counts x (plain + 2 bundles x 2 modes)
check "every configuration has its row (got $rows of 60)" [ "$rows" = 60 ]
check "each run is in the raw figures, every round (got $(wc -l <"$WORK/out/raw.txt") of 120)" \
	[ "$(wc -l <"$WORK/out/raw.txt")" = 120 ]
check "both rounds of every configuration ran" \
	[ "$(awk '{ print $1 }' "$WORK/out/raw.txt" | sort -u | tr '\n' ' ')" = "1 2 " ]
check "traced rows say how many events were dropped, and none was" \
	awk -F'|' '/^\| (async4|can|sync4) \|/ && $5 !~ /plain/ { n++; if ($9 + 0 != 0 || $9 !~ /[0-9]/) bad = 1 }
		END { exit !(n == 48 && !bad) }' "$WORK/report"
check "the added figures and ranges are numbers" \
	awk -F'|' '/^\| (async4|can|sync4) \|/ && $5 !~ /plain/ { if ($8 !~ /^ *-?[0-9.]+ *$/ || $7 !~ /[0-9.]+-[0-9.]+/) bad = 1 }
		END { exit bad }' "$WORK/report"
check "16 budget lines, for the last bundle" \
	[ "$(grep -c '^\(PASS\|OVER\)  ' "$WORK/report")" = 16 ]
check "the traces of the runs are not left behind" [ -z "$(ls -d "$WORK"/out/t.* 2>/dev/null)" ]
"$here/../gpu/latency.sh" -r 1 -p "$WORK/progs" -o "$WORK/out2" "$B" >/dev/null 2>"$WORK/err2"
check "a bundle without a name is refused (exit $?)" grep -q "is not NAME=BUNDLE" "$WORK/err2"
echo "latency: $pass passed, $fail failed"
[ $fail -eq 0 ]

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
	awk -F'|' '/^\| (async4|can|sync4) \|/ && $5 !~ /plain/ { n++; if ($10 + 0 != 0 || $10 !~ /[0-9]/) bad = 1 }
		END { exit !(n == 48 && !bad) }' "$WORK/report"
check "the added figures (median and best) and ranges are numbers" \
	awk -F'|' '/^\| (async4|can|sync4) \|/ && $5 !~ /plain/ { if ($8 !~ /^ *-?[0-9.]+ *$/ || $9 !~ /^ *-?[0-9.]+ *$/ || $7 !~ /[0-9.]+-[0-9.]+/) bad = 1 }
		END { exit bad }' "$WORK/report"
check "16 budget lines, for the last bundle" \
	[ "$(grep -c '^\(PASS\|OVER\)  ' "$WORK/report")" = 16 ]
check "the traces of the runs are not left behind" [ -z "$(ls -d "$WORK"/out/t.* 2>/dev/null)" ]
# a subset: one call, one mode
"$here/../gpu/latency.sh" -r 1 -n 1000 -O can -m observe -R 1 -U -p "$WORK/progs" -o "$WORK/out3" one="$B" \
	>"$WORK/report3" 2>"$WORK/err3"
rc=$?
check "latency.sh -O can -m observe runs (exit $rc: $(tail -1 "$WORK/err3"))" [ $rc -eq 0 ]
check "only the call and mode asked for are timed (got $(grep -c '^| [a-z0-9]* |' "$WORK/report3") rows of 8)" \
	[ "$(grep -c '^| \(can\) | [a-z]* | [18] | \(plain\|one:observe\) |' "$WORK/report3")" = 8 ] &&
	! grep -q '^| \(async4\|sync4\) |\|one:warn' "$WORK/report3"
check "its budget lines are those of the call and mode (got $(grep -c '^\(PASS\|OVER\)  ' "$WORK/report3") of 4)" \
	[ "$(grep -c '^\(PASS\|OVER\)  ' "$WORK/report3")" = 4 ]
# the program's repetitions: the median, between the lowest and the highest
line=$("$B/tests/latency_sim" --ops can --threads 1 --calls 500 --reps 5 --pause-us 10)
check "latency --reps 5 reports 5 repetitions ($line)" grep -q ' reps=5 ' <<<"$line"
check "the figure is between the lowest and the highest repetition" \
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { exit !(v["rep_lo_ns"] + 0 <= v["thr_cpu_ns"] + 0 && v["thr_cpu_ns"] + 0 <= v["rep_hi_ns"] + 0 && v["rep_lo_ns"] > 0) }' <<<"$line"
"$B/tests/latency_sim" --ops can --reps 0 >/dev/null 2>&1
check "latency --reps 0 is refused (exit $?)" [ $? -eq 2 ]
"$here/../gpu/latency.sh" -r 1 -p "$WORK/progs" -o "$WORK/out2" "$B" >/dev/null 2>"$WORK/err2"
check "a bundle without a name is refused (exit $?)" grep -q "is not NAME=BUNDLE" "$WORK/err2"
echo "latency: $pass passed, $fail failed"
[ $fail -eq 0 ]

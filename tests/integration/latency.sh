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
V='^\(PASS\|OVER\)?\?  ' # a budget line's verdict
check "16 budget lines, for the last bundle, each with its 95% interval" \
	[ "$(grep -c "$V.*(limit [0-9.]*; 95% interval -\?[0-9.]*--\?[0-9.]*)\$" "$WORK/report")" = 16 ]
check "the traces of the runs are not left behind" [ -z "$(ls -d "$WORK"/out/t.* 2>/dev/null)" ]
# a subset: one call, one mode
"$here/../gpu/latency.sh" -r 1 -n 1000 -O can -m observe -R 1 -U -W spin -p "$WORK/progs" -o "$WORK/out3" one="$B" \
	>"$WORK/report3" 2>"$WORK/err3"
rc=$?
check "latency.sh -O can -m observe -W spin runs (exit $rc: $(tail -1 "$WORK/err3"))" [ $rc -eq 0 ]
check "its report says how the queries were paced" grep -q "queries paced spin" "$WORK/report3"
check "the first run's report says the default pace, equal" grep -q "queries paced equal" "$WORK/report"
"$here/../gpu/latency.sh" -r 1 -W sometimes -p "$WORK/progs" -o "$WORK/outw" one="$B" >/dev/null 2>"$WORK/errw"
rc=$?
check "latency.sh -W sometimes is refused, naming what it wants (exit $rc: $(cat "$WORK/errw"))" \
	[ $rc -eq 2 ] && grep -q "equal, scaled, spin or none, not 'sometimes'" "$WORK/errw"
"$here/../gpu/latency_paces.sh" -t 0 -w "scaled none/buffer_kb=1024" -p "$WORK/progs" -o "$WORK/paces" one="$B" \
	>"$WORK/reportp" 2>"$WORK/errp"
rc=$?
check "latency_paces.sh -t 0 runs one round of every pace and pools them (exit $rc: $(tail -1 "$WORK/errp"))" \
	[ $rc -eq 0 ] && [ "$(grep -c '^== pace' "$WORK/reportp")" = 2 ]
check "the unpaced runs had the bigger buffers and dropped nothing" \
	grep -q "queries paced none, peerwatch options buffer_kb=1024" "$WORK/paces/report.none.buffer_kb-1024.txt" &&
	awk '$3 != "plain" { n++; if ($7 != 0) bad = 1 } END { exit !(n >= 4 && !bad) }' "$WORK/paces/raw.none.buffer_kb-1024.txt"
check "the paced ones say so" grep -q "queries paced scaled\$" "$WORK/paces/report.scaled.txt"
"$here/../gpu/latency_paces.sh" -w "equal often" one="$B" >/dev/null 2>"$WORK/errq"
check "latency_paces.sh -w with a word that is no pace is refused, naming it" grep -q "'often' is not a pace" "$WORK/errq"
for w in scaled none.buffer_kb-1024; do
	check "latency_paces.sh: pace $w: its round in its own raw figures, its report with the budget lines" \
		[ "$(awk '{ print $1 }' "$WORK/paces/raw.$w.txt" | sort -u)" = 1 ] &&
		[ "$(grep -c "$V" "$WORK/paces/report.$w.txt")" = 4 ]
done
"$here/../gpu/latency_paces.sh" -t soon one="$B" >/dev/null 2>"$WORK/errp"
check "latency_paces.sh -t soon is refused (exit $?)" grep -q "wants seconds, not 'soon'" "$WORK/errp"
"$B/tests/latency_sim" --pace equal,spin >/dev/null 2>"$WORK/errp"
rc=$?
check "latency --pace takes one pace (exit $rc)" [ $rc -eq 2 ] && grep -q "pace equal|scaled|spin|none" "$WORK/errp"
check "only the call and mode asked for are timed (got $(grep -c '^| [a-z0-9]* |' "$WORK/report3") rows of 8)" \
	[ "$(grep -c '^| \(can\) | [a-z]* | [18] | \(plain\|one:observe\) |' "$WORK/report3")" = 8 ] &&
	! grep -q '^| \(async4\|sync4\) |\|one:warn' "$WORK/report3"
check "its budget lines are those of the call and mode (got $(grep -c "$V" "$WORK/report3") of 4)" \
	[ "$(grep -c "$V" "$WORK/report3")" = 4 ]
check "one round: the report says its intervals cannot be trusted" grep -q "too narrow to trust" "$WORK/report3"

# The budget's verdicts (-S: figures made up, no program run).  gen ROUNDS
# SPREAD SHARED_ADDED: can, observe, bundle "one"; plain 100 ns, static
# traced 150 (50 added, 8 threads 60); shared traced 100 + SHARED_ADDED;
# each run off by up to +-SPREAD ns (a fixed pseudo-random sequence).
gen() {
	awk -v R="$1" -v sp="$2" -v sh="$3" 'function noise() { x = (x * 1103515245 + 12345) % 2147483648; return (x / 2147483648 * 2 - 1) * sp }
	BEGIN { x = 7; for (r = 1; r <= R; r++) for (t = 1; t <= 8; t += 7) {
		printf "%d static plain can %d %.1f 0\n", r, t, 100 + noise()
		printf "%d static one:observe can %d %.1f 0\n", r, t, (t == 1 ? 150 : 160) + noise()
		printf "%d shared plain can %d %.1f 0\n", r, t, 100 + noise()
		printf "%d shared one:observe can %d %.1f 0\n", r, t, 100 + sh * (t == 1 ? 1 : 1.2) + noise() } }'
}
verdict() { # REPORT: the verdict of the nested line
	grep ' shared cudart (runtime + nested driver call) / static, can, observe ' "$1" | cut -d' ' -f1
}
gen 20 2 55 >"$WORK/under.txt"
gen 20 2 80 >"$WORK/over.txt"
gen 20 40 64 >"$WORK/noisy.txt"
for case in under:PASS over:OVER noisy:PASS?; do
	f=${case%%:*} want=${case#*:}
	"$here/../gpu/latency.sh" -S -o "$WORK/s.$f" "$WORK/$f.txt" >"$WORK/s.$f.report" 2>&1
	got=$(verdict "$WORK/s.$f.report")
	check "-S, the nested pair at $(grep -o '[0-9.]* x (limit 1.3[^)]*)' <<<"$(grep 'nested' "$WORK/s.$f.report")"): $want (got '$got')" [ "$got" = "$want" ]
done
check "-S says which bundles, modes and calls it found" grep -q 'pooled: 20 rounds; bundles one; modes observe; calls can' "$WORK/s.under.report"
"$here/../gpu/latency.sh" -S -o "$WORK/s.pool" "$WORK/under.txt" "$WORK/over.txt" >"$WORK/s.pool.report" 2>&1
check "-S pools the rounds of every file (40)" grep -q 'pooled: 40 rounds' "$WORK/s.pool.report"
check "pooled, each file's rounds kept apart (1.r and 2.r)" \
	[ "$(cut -d' ' -f1 "$WORK/s.pool/pooled.txt" | sort -u | wc -l)" = 40 ]
check "the same figures give the same report (the resampling is seeded; one awk)" \
	cmp -s <("$here/../gpu/latency.sh" -S -o "$WORK/s.again" "$WORK/noisy.txt" 2>&1 | grep -v '^  /\|^latency.sh: [0-9]') \
	<(grep -v '^  /\|^latency.sh: [0-9]' "$WORK/s.noisy.report")
printf '1 static plain can 1 100.0 0\n2 static plain can one 100.0 0\n' >"$WORK/bad.txt"
"$here/../gpu/latency.sh" -S -o "$WORK/s.bad" "$WORK/bad.txt" >/dev/null 2>"$WORK/s.bad.err"
rc=$?
check "-S: a file that is not raw figures is refused, its line named (exit $rc: $(cat "$WORK/s.bad.err"))" \
	[ $rc -eq 2 ] && grep -q "bad.txt:2: " "$WORK/s.bad.err"
"$here/../gpu/latency.sh" -S -B x "$WORK/under.txt" >/dev/null 2>"$WORK/s.b.err"
check "-B wants a number (exit $?)" grep -q "wants a number" "$WORK/s.b.err"
# the budget's awk failing (an awk that fails on it alone, first on PATH):
# said, and the exit status says so, not a report without its budget lines
mkdir -p "$WORK/failawk"
printf '#!/bin/sh\ncase "$*" in *latency_budget.awk*) echo "awk: made to fail" >&2; exit 3 ;; esac\nexec %s "$@"\n' \
	"$(command -v awk)" >"$WORK/failawk/awk"
chmod +x "$WORK/failawk/awk"
PATH="$WORK/failawk:$PATH" "$here/../gpu/latency.sh" -S "$WORK/under.txt" >"$WORK/s.fail.report" 2>"$WORK/s.fail.err"
rc=$?
check "-S: the budget's awk failing is said, exit 1 (exit $rc: $(tail -1 "$WORK/s.fail.err"))" \
	[ $rc -eq 1 ] && grep -q "latency_budget.awk failed (exit 3)" "$WORK/s.fail.err"
# can-ab, async4-ab: the call traced and untraced in one process
for ab in can async4; do
	case $ab in
	can) rtapi=cudaDeviceCanAccessPeer drvapi=cuDeviceCanAccessPeer main=2 ;; # main's own two queries
	async4) rtapi=cudaMemcpyPeerAsync drvapi=cuMemcpyPeerAsync main=0 ;;
	esac
	out=$("$B/tests/latency_sim" --ops $ab-ab --threads 1 --calls 1000 --reps 3 --pause-us 10)
	check "$ab-ab reports one layer and the nested pair ($(tr '\n' ' ' <<<"$out"))" \
		[ "$(grep -c "^op=$ab-ab-one threads=1 \|^op=$ab-ab-pair threads=1 " <<<"$out")" = 2 ]
	check "$ab-ab: one layer = drv - drv_real, the pair = rt - rt_real + one layer" \
		awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			d = v["drv_ns"] - v["drv_real_ns"]; if (v["op"] ~ /-pair$/) d += v["rt_ns"] - v["rt_real_ns"]
			if (v["thr_cpu_ns"] - d > 0.25 || d - v["thr_cpu_ns"] > 0.25 || v["drv_real_ns"] <= 0) bad = 1 }
			END { exit bad }' <<<"$out"
	rm -rf "$WORK/ab"
	"$B/bin/peerwatch" -q -o "$WORK/ab" -- "$B/tests/latency_sim" --ops $ab-ab --threads 1 --calls 1000 \
		--reps 1 --pause-us 10 >/dev/null
	f=$(ls "$WORK"/ab/*.pw.jsonl)
	rt=$(grep -c "\"api\":\"$rtapi\"" "$f")
	nested=$(grep "\"api\":\"$drvapi\"" "$f" | grep -c '"parent":[1-9]')
	top=$(grep "\"api\":\"$drvapi\"" "$f" | grep -vc '"parent":[1-9]')
	# 1000 calls a way and a warm-up of 256
	check "$ab-ab traced: the runtime way and the driver way are traced, the untraced ways are not (runtime $rt, nested $nested, driver $top)" \
		[ "$rt" = $((1256 + main)) ] && [ "$nested" = $((1256 + main)) ] && [ "$top" = $((2 * 1256)) ]
	check "$ab-ab traced: nothing dropped, no finding ($(tail -1 "$f" | cut -c1-60))" \
		grep -q '^{"type":"footer","events":[0-9]*,"dropped":0,.*"violations":0,' <(tail -1 "$f")
	"$here/../gpu/latency.sh" -r 2 -n 1000 -O $ab-ab -R 1 -U -p "$WORK/progs" -o "$WORK/out4" one="$B" \
		>"$WORK/report4" 2>"$WORK/err4"
	rc=$?
	check "latency.sh -O $ab-ab runs (exit $rc: $(tail -1 "$WORK/err4"))" [ $rc -eq 0 ]
	check "its rows: one layer for both programs, the pair for the shared one (got $(grep -c "^| $ab-ab" "$WORK/report4") of 18)" \
		[ "$(grep -c "^| $ab-ab-one | \(static\|shared\) | [18] | \(plain\|one:observe\|one:warn\) |" "$WORK/report4")" = 12 ] &&
		[ "$(grep -c "^| $ab-ab-pair | shared | [18] | \(plain\|one:observe\|one:warn\) |" "$WORK/report4")" = 6 ] &&
		[ "$(grep -c '^| [a-z0-9-]* |' "$WORK/report4")" = 18 ]
	check "its budget lines: one layer in both modes, the pair over it, 8 threads over 1 (got $(grep -c "$V" "$WORK/report4") of 8)" \
		[ "$(grep -c "$V.*, $ab, .*A/B" "$WORK/report4")" = 8 ] && [ "$(grep -c "$V" "$WORK/report4")" = 8 ]
done

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

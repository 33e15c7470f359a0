#!/bin/bash
# The checks a suite's log reports, counted: how tests/suite.sh sums make
# test's suites into one line.
#
#   tests/tally.sh SUITE STATUS LOG     "PASSED FAILED SKIPPED" of the log of
#                                       suite SUITE, which exited with STATUS
#   tests/tally.sh --self-test          the counting, over canned logs
#                                       (tests/tally/*.log), and a run of
#                                       tests/suite.sh with a failing suite
#                                       (last line "tally: N passed, M failed")
#
# What a log says, in the suites' own formats:
#   NAME: N passed, M failed     a script's or a self-test's total (the TAP
#                                scripts, tests/integration/tap.sh; the
#                                simulators' self-tests; contract, fault):
#                                the totals of a log are summed, but where
#                                one is named after the suite itself, or
#                                the first word of its name ("analyze: ..."
#                                of analyze and analyze-fast, whose parts
#                                print theirs too), the last such line is the
#                                whole count
#   [  PASSED  ] N test(s).      cmocka: each unit test's summary, summed;
#   [  FAILED  ] N test(s), ...  a unit test that started ("[==========]
#   [  SKIPPED ] N test(s), ...  Running") and never reached its summary (a
#                                crash) is one failure more
#   ok - ... # skip ...          counted by its script as passed: a skip here
#   skip - ...  /  # skip: ...   a part a script left out, saying why
#   ok - ... / not ok - ...      TAP: counted only where the script was cut
#                                short before its total (a time limit)
# A log with none of these (the docs and dependency checks) is one check,
# passed or failed by the suite's exit status; a suite that failed while
# its log counts no failure (a limit reached, a crash, a failed step
# between the checks) has one failure more.
set -u

count() { # SUITE STATUS LOG
	awk -v suite="$1" -v rc="$2" '
	function num(s) { sub(/^[^0-9]*/, "", s); return s + 0 }
	/^[A-Za-z0-9_.+-]+: [0-9]+ passed, [0-9]+ failed/ {
		name = $1; sub(/:$/, "", name)
		p = $2 + 0; f = $4 + 0
		tp += p; tf += f; totals++
		if (name == suite || index(suite, name "-") == 1) { op = p; of = f; own = 1 }
		next
	}
	/^\[==========\] Running [0-9]+ test/ { started++; next }
	/^\[==========\] [0-9]+ test\(s\) run\./ { finished++; next }
	/^\[  PASSED  \] [0-9]+ test/ { cp += num($0); cm = 1; next }
	/^\[  FAILED  \] [0-9]+ test\(s\)/ { cf += num($0); cm = 1; next }
	/^\[  SKIPPED \] [0-9]+ test\(s\)/ { cs += num($0); cm = 1; next }
	/^ok - / { tok++; if (/# [Ss][Kk][Ii][Pp]/) okskip++; next }
	/^not ok - / { tnot++; next }
	/^skip - / || /^# skip/ { skip++; next }
	END {
		if (own) { p = op; f = of } else { p = tp; f = tf }
		if (!own && (cm || started)) {
			p += cp; f += cf; skip += cs
			if (started > finished) f += started - finished
		}
		# a script cut short before its total: its TAP lines
		if (!own && !totals && !cm && !started && tok + tnot > 0) {
			p = tok; f = tnot; totals = 1
		}
		# a skip its script counted as passed
		if (okskip > p) okskip = p
		p -= okskip; skip += okskip
		if (!own && !totals && !cm && !started) {
			if (rc == 0) p = 1; else f = 1
		} else if (rc != 0 && f == 0) {
			f = 1
		}
		printf "%d %d %d\n", p, f, skip
	}' "$3"
}

if [ "${1:-}" != --self-test ]; then
	[ $# -eq 3 ] || { echo "usage: tests/tally.sh SUITE STATUS LOG | --self-test" >&2; exit 2; }
	[ -r "$3" ] || { echo "tally.sh: cannot read $3" >&2; exit 2; }
	count "$@"
	exit
fi

# Each canned log's first line says what it must count:
#   # tally SUITE STATUS => PASSED FAILED SKIPPED
dir=$(cd "$(dirname "$0")" && pwd)/tally
pass=0
fail=0
for log in "$dir"/*.log; do
	read -r hash word suite rc arrow want <"$log"
	if [ "$hash $word" != "# tally" ] || [ "$arrow" != "=>" ]; then
		echo "not ok - ${log##*/}: no '# tally SUITE STATUS => P F S' first line"
		fail=$((fail + 1))
		continue
	fi
	got=$(count "$suite" "$rc" "$log")
	if [ "$got" = "$want" ]; then
		echo "ok - ${log##*/}: $got"
		pass=$((pass + 1))
	else
		echo "not ok - ${log##*/}: counted $got, should be $want"
		fail=$((fail + 1))
	fi
done
# The whole way round: tests/suite.sh over a suite that passes (one.sh's
# list) and one that fails (a name no suite has) says so in its last line
# and its exit status.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-tally.XXXXXX")
"$dir/../suite.sh" -j 2 -n check "$tmp" list no-such-suite >"$tmp/out" 2>&1
rc=$?
last=$(tail -1 "$tmp/out")
if [ $rc -eq 1 ] && [[ $last == "check: 1 passed, 1 failed, 0 skipped ("*")" ]] &&
	grep -qx '== failed: no-such-suite (log: .*/no-such-suite.log)' "$tmp/out"; then
	echo "ok - suite.sh: a failed suite fails the run (exit $rc): $last"
	pass=$((pass + 1))
else
	echo "not ok - suite.sh: a failed suite must fail the run: exit $rc, last line: $last"
	sed 's/^/#   /' "$tmp/out"
	fail=$((fail + 1))
fi
rm -rf "$tmp"
echo "tally: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

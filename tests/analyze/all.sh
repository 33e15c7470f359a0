#!/bin/bash
# Everything `make analyze-test` runs: the analyzer's cmocka unit tests, then
# tests/analyze/run.sh.  Prints what failed and, last, "analyze: N passed, M failed".
#   tests/analyze/all.sh BUILD_DIR UNIT_TEST...
set -u
B=$1
shift
pass=0
fail=0
for t in "$@"; do
	out=$("$t" 2>&1)
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' <<<"$out")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' <<<"$out")
	if [ -z "$p$f" ]; then # it did not get to its summary: a crash
		echo "$out"
		f=1
	elif [ -n "$f" ]; then
		echo "$out" | grep -E '^\[  (FAILED|ERROR|  LINE)'
	fi
	echo "${t##*/}: ${p:-0} passed, ${f:-0} failed"
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
done
out=$("$(dirname "$0")/run.sh" "$B" 2>&1)
grep -v '^ok - ' <<<"$out" | grep -v '^    ' | grep -v '^run.sh: '
grep -A40 '^not ok' <<<"$out" | grep '^    ' | head -80
last=$(tail -1 <<<"$out")
echo "$last"
p=$(sed -n 's/^run.sh: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<<"$last")
f=$(sed -n 's/^run.sh: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<<"$last")
[ -n "$p" ] || f=$((${f:-0} + 1))
pass=$((pass + ${p:-0}))
fail=$((fail + ${f:-0}))
echo "analyze: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

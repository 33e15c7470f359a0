#!/bin/bash
# Every peerwatch-analyze command, text and --json (report: its page), under valgrind on small
# traces of the simulated driver (one with an IPC free while open, one left
# .partial): no memory error, no leak.  Last line: "valgrind: N passed, M failed".
#   tests/analyze/valgrind.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
A="$B/bin/peerwatch-analyze"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-vg.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
command -v valgrind >/dev/null || { echo "valgrind: not installed" >&2; exit 2; }

"$B/bin/peerwatch" -q -o "$WORK/t" -- "$B/tests/calls" getproc "$WORK/expect" >/dev/null 2>&1
"$B/bin/peerwatch" -q -o "$WORK/t" --options registry=0 -- "$B/tests/ipc_free_while_open" 2>/dev/null
"$B/bin/peerwatch" -q -o "$WORK/t" -- "$B/tests/ipc_free_while_open" crash >"$WORK/ready" 2>/dev/null &
for _ in $(seq 50); do grep -q ready "$WORK/ready" && break; sleep 0.1; done
sleep 0.3
pkill -9 -P $! 2>/dev/null
kill -9 $! 2>/dev/null
wait 2>/dev/null

pass=0
fail=0
vg() {
	valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 "$A" "$@" \
		>/dev/null 2>"$WORK/vg.err"
	if [ $? = 99 ] || grep -q '^==[0-9]*==' "$WORK/vg.err"; then
		fail=$((fail + 1))
		echo "not ok - valgrind: $*"
		grep '^==' "$WORK/vg.err" | head -20
	else
		pass=$((pass + 1))
		echo "ok - valgrind: $*"
	fi
}
for cmd in summary check violations matrix ipc managed info ops; do
	vg $cmd "$WORK/t"
	vg $cmd --json -j 3 "$WORK/t"
done
vg timeline -o "$WORK/tl.json" "$WORK/t"
vg report -o "$WORK/r.html" "$WORK/t"
vg report -j 3 --allow-partial "$WORK/t"
vg rules --json
printf '{"type":"header","format":"peerwatch","version":1,"pid":1,"host":"h"}\nnot json\n{"type":"call"' >"$WORK/bad.pw.jsonl"
vg summary "$WORK/bad.pw.jsonl"
echo "valgrind: $pass passed, $fail failed"
[ $fail = 0 ]

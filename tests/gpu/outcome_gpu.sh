#!/bin/bash
# The traced program's outcome on real GPUs: the exit races of
# tests/integration/exitrace.c (8 threads calling cuDeviceCanAccessPeer on
# the real driver while main leaves by exit, exec, fork, pthread_exit or a
# signal handler's exit) and the IPC lifetimes of
# tests/analyze/ipc_free_while_open.c (exporter on device 0, importer on
# device 1, two processes), each judged by peerwatch-analyze.
#
#   tests/gpu/outcome_gpu.sh BUNDLE TESTS [OUT]
#
# BUNDLE: a peerwatch bundle (bin/peerwatch, bin/peerwatch-analyze).
# TESTS: a folder with exitrace and ipc_free_while_open (build/tests); both
# dlopen libcuda.so.1, so the simulator's build runs on the real driver.
# Per race mode, RUNS (default 20) runs: the exit status and output must be
# those of the untraced run, no trace left .partial, every trace clean
# (`peerwatch-analyze info --strict`), and every call that returned before
# the process left in the trace or counted in its footer as dropped.  Exit status 0 when every check passed.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
P=$(cd "${1:?BUNDLE}" && pwd -P)
T=$(cd "${2:?TESTS}" && pwd -P)
OUTD=${3:-${OUT:-/tmp/pw-outcome-gpu}}
mkdir -p "$OUTD"
PW=$P/bin/peerwatch
AN=$P/bin/peerwatch-analyze
RUNS=${RUNS:-20}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-outcome.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset PEERWATCH_OPTIONS PEERWATCH_RUN_ID
pass=0
fail=0
check() { if "${@:2}"; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi; }

# Every call a thread counted as returned is in the traces, or counted as
# dropped: a thread never waits for a trace writer that is behind, so with
# 8 threads calling flat out some events are dropped and counted in the
# footer (writer_behind, size_limit).  The calls missing must be at most
# those counted.  Python, not jq: the GPU hosts have no jq.
counts_ok() { # COUNTS TRACE...
	python3 - "$@" <<'PY'
import json, sys
counts, traces = sys.argv[1], sys.argv[2:]
have, counted = {}, 0
for t in traces:
    lines = open(t).read().splitlines()
    for l in lines[1:-1]:
        e = json.loads(l)
        if e.get("type") == "call":
            have[e["tid"]] = have.get(e["tid"], 0) + 1
    d = json.loads(lines[-1]).get("dropped_by", {})
    counted += d.get("writer_behind", 0) + d.get("size_limit", 0)
missing = 0
for l in open(counts):
    tid, n = map(int, l.split())
    missing += max(0, n - have.get(tid, 0))
if missing > counted:
    print("# %d returned calls not traced, %d counted as dropped" % (missing, counted))
    sys.exit(1)
PY
}

# MODES: some of them; a run that lasts RUN_TIMEOUT s (default 60) is killed
# (status 124: a hang, traced or not, is a failure).
for mode in ${MODES:-exit exec fork pthread_exit thread_exit handler}; do
	d=$WORK/race-$mode
	mkdir -p "$d"
	timeout "${RUN_TIMEOUT:-60}" "$T/exitrace" "$mode" 8 >"$d/want.out" 2>"$d/want.err"
	want=$?
	[ $want = 124 ] && echo "# $mode: the untraced run hung"
	case $mode in exec | fork) nfiles=2 ;; *) nfiles=1 ;; esac
	failed=0 calls=0
	for i in $(seq "$RUNS"); do
		rm -rf "$d/trace" "$d/counts"
		timeout "${RUN_TIMEOUT:-60}" "$PW" -q -o "$d/trace" -- "$T/exitrace" "$mode" 8 "$d/counts" >"$d/out" 2>"$d/err"
		rc=$?
		why=
		shopt -s nullglob
		files=("$d"/trace/*)
		shopt -u nullglob
		if [ $rc -ne $want ]; then
			why="status $rc, untraced $want"
		elif ! cmp -s "$d/out" "$d/want.out" || ! cmp -s "$d/err" "$d/want.err"; then
			why="output differs"
		elif [ ${#files[@]} -ne $nfiles ]; then
			why="${#files[@]} trace files: $(ls "$d/trace" 2>/dev/null | tr '\n' ' ')"
		elif ! "$AN" info --strict "${files[@]}" >"$d/info" 2>&1; then
			why="info --strict: $(tail -1 "$d/info")"
		elif [ -e "$d/counts" ] && ! counts_ok "$d/counts" "${files[@]}"; then
			why="calls that returned are missing from the trace"
		fi
		[ ${#files[@]} -gt 0 ] && calls=$((calls + $(cat "${files[@]}" | grep -c '"type":"call"')))
		if [ -n "$why" ]; then
			failed=$((failed + 1))
			echo "# $mode run $i: $why"
			cp -r "$d/trace" "$OUTD/failed-$mode-$i" 2>/dev/null
		fi
	done
	check "race $mode on the real driver: $RUNS runs, $failed failed (status $want, output, clean traces, $calls calls traced)" \
		[ $failed -eq 0 ]
done

# IPC lifetimes across two processes on two GPUs, judged by the analyzer.
ipc_case() { # NAME WANT_RULE ARGS...
	local name=$1 want=$2 d=$WORK/ipc-$1
	shift 2
	"$PW" -q -o "$d" -- "$T/ipc_free_while_open" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	local rc=$?
	"$AN" ipc --json "$d" >"$WORK/$name.json" 2>&1
	"$AN" check --json "$d" >"$WORK/$name.check.json" 2>&1
	cp "$WORK/$name.json" "$OUTD/ipc-$name.json"
	tar -C "$WORK" -czf "$OUTD/ipc-$name-traces.tar.gz" "ipc-$name"
	check "ipc $name: the program succeeds under peerwatch (exit $rc)" [ $rc -eq 0 ]
	check "ipc $name: check finds $want" grep -q "\"$want\"" "$WORK/$name.check.json"
}
ipc_case plain ipc.free-while-open
ipc_case interior ipc.free-while-open interior
ipc_case exit-first ipc.leak exit-first
check "ipc exit-first: no free while open (the mapping left with the importer)" \
	bash -c "! grep -q '\"ipc.free-while-open\"' '$WORK/exit-first.check.json'"

echo "outcome on GPU: $pass passed, $fail failed"
[ $fail -eq 0 ]

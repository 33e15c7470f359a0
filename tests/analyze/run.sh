#!/bin/bash
# Tests of peerwatch-analyze on traces the simulated driver produces.
#
#   tests/analyze/run.sh BUILD_DIR           compare with tests/analyze/golden/
#   UPDATE_GOLDEN=1 tests/analyze/run.sh B   rewrite the golden files (review the diff!)
#   PW_ANALYZE=PATH    run another build of the analyzer (make SAN=1's), the
#                      traces still made with B's library and programs
#   PW_ANALYZE_QUICK=1 the oracle reads the integration scenarios' traces all
#                      together, not each scenario's alone too (for PW_ANALYZE
#                      under the sanitizers: .ci/run)
#   PW_ANALYZE_PART=checks  the golden outputs, checks.sh, checks_ci.sh,
#                      checks_vendors.sh, checks_offline.sh,
#                      checks_report.sh, checks_parse.sh, checks_um.sh and
#                      checks_duckdb.sh: all but
#                      checks_truth.sh (make
#                      check-fast, the loop of a change)
#   PW_ANALYZE_PART=truth   checks_truth.sh only, which reads the integration
#                      scenarios' traces (make test runs the two parts side
#                      by side)
#
# Scenarios (each run under build/bin/peerwatch against build/sim):
#   calls     every hooked call, parent + IPC child (tests/integration/calls.c)
#   ipc       exporter frees while the importer has the handle open, online
#             registry off: the analyzer must prove it from the traces alone
#   ipc-online the same with the registry on: one finding, not two
#   crash     a process killed with SIGKILL after some calls: trace left .partial
#   forkexec  parent, forked child (_exit), exec'ed child
#   threads   80 000 calls from 8 threads
#   um        hand-written traces with unified-memory events (tests/analyze/um/,
#             checks_um.sh): managed --effects, its findings, timeline's tracks
#   fixtures  hand-written traces (tests/analyze/fixtures/, docs/trace-format.md and
#             the trace format contract of HIP, ACL, the CUDA runtime layer,
#             implicit and batch copies, VMM and pool IPC): every command
# Each command's text and --json output, normalized (normalize.pl), is
# compared with its golden file; then specific properties, exit codes, and
# malformed input.  Last line: "run.sh: N passed, M failed".
set -u
SECONDS=0
part=${PW_ANALYZE_PART:-all}
case $part in
all | checks | truth) ;;
*) echo "run.sh: PW_ANALYZE_PART is checks or truth, not '$part'" >&2; exit 2 ;;
esac
B=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
A=${PW_ANALYZE:-$B/bin/peerwatch-analyze} # PW_ANALYZE: another build of the analyzer (sanitizers)
PW="$B/bin/peerwatch"
GOLD="$HERE/golden"
FIX="$HERE/fixtures"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-analyze.XXXXXX")
trap '[ -n "${PW_KEEP_WORK:-}" ] && echo "# work left in $WORK" || rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2 PWSIM_PEERS=all
unset PEERWATCH_OPTIONS

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

# A sanitizer's report on the analyzer's stderr is a failure whatever else happened.
sanitizer_said() { # STDERR_FILE WHAT
	if grep -Eq 'Sanitizer|runtime error:' "$1"; then
		bad "$2: sanitizer report: $(grep -Em1 'Sanitizer|runtime error:' "$1")"
	fi
}

# jq -e on the file (the last argument), which must not be empty: jq passes
# an empty input, and a command that printed nothing has failed.
jqt() { [ -s "${!#}" ] && jq -e "$@" >/dev/null 2>&1; }
# Runs the analyzer; $rc, $WORK/o.out, $WORK/o.err.  Death by a signal fails the test.
an() {
	"$A" "$@" >"$WORK/o.out" 2>"$WORK/o.err"
	rc=$?
	sanitizer_said "$WORK/o.err" "peerwatch-analyze $*"
	if [ $rc -ge 128 ]; then
		bad "peerwatch-analyze $* died with signal $((rc - 128)): $(tail -3 "$WORK/o.err")"
	fi
	return 0
}
rc_is() { [ "$rc" = "$1" ]; }
err_has() { grep -q -- "$1" "$WORK/o.err"; }
out_has() { grep -q -- "$1" "$WORK/o.out"; }
# An empty directory for a case's traces, $WORK/m; its path.
case_dir() { rm -rf "$WORK/m" && mkdir -p "$WORK/m" && echo "$WORK/m"; }

# A traced run.  Under SAN=1 the sanitizer runtime must come first in LD_PRELOAD.
traced() { # OUTDIR [peerwatch options] -- PROGRAM ARGS...
	local out=$1
	shift
	if [ -n "${PW_ASAN_RUNTIME:-}" ]; then
		LD_PRELOAD="$PW_ASAN_RUNTIME" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
			"$PW" -q -o "$out" "$@"
	else
		"$PW" -q -o "$out" "$@"
	fi
}

# ---- the traces --------------------------------------------------------------

traced "$WORK/calls" -- "$B/tests/calls" getproc "$WORK/calls.expect" >/dev/null 2>"$WORK/calls.err" ||
	bad "calls: the traced program failed: $(tail -2 "$WORK/calls.err")"
traced "$WORK/ipc" --options registry=0 -- "$B/tests/ipc_free_while_open" 2>"$WORK/ipc.err" ||
	bad "ipc: the traced program failed: $(tail -2 "$WORK/ipc.err")"
traced "$WORK/ipc-online" -- "$B/tests/ipc_free_while_open" 2>"$WORK/ipc-online.err" ||
	bad "ipc-online: the traced program failed: $(tail -2 "$WORK/ipc-online.err")"
traced "$WORK/forkexec" -- "$B/tests/forkexec" >/dev/null 2>"$WORK/forkexec.err" ||
	bad "forkexec: the traced program failed"
traced "$WORK/threads" -- "$B/tests/threads" 2>"$WORK/threads.err" || bad "threads: the traced program failed"

# crash: wait for the program to say it made its calls, let the writer flush
# them (it writes at least every 100 ms), then SIGKILL it.
mkfifo "$WORK/crash.fifo"
traced "$WORK/crash" -- "$B/tests/ipc_free_while_open" crash >"$WORK/crash.fifo" 2>"$WORK/crash.err" &
crash_pid=$!
if read -r -t 10 word <"$WORK/crash.fifo" && [ "$word" = ready ]; then
	sleep 0.5
	# while it runs, its trace is .partial and info says so (checks.sh)
	"$A" info "$WORK/crash" >"$WORK/crash-live.txt" 2>&1
	"$A" info --json "$WORK/crash" >"$WORK/crash-live.json" 2>&1
	pkill -9 -P "$crash_pid" 2>/dev/null # the launcher execs, so this is the program itself
	kill -9 "$crash_pid" 2>/dev/null
fi
wait "$crash_pid" 2>/dev/null

# ---- golden outputs -----------------------------------------------------------

golden() { # NAME TRACEDIR COMMAND ARGS...: compare text and --json outputs
	local name=$1 dir=$2
	shift 2
	local kind
	for kind in txt json; do
		local g="$GOLD/$name.$kind" out="$WORK/$name.$kind"
		local flag=() jflag=()
		if [ $kind = json ]; then flag=(--json); jflag=(--json); fi
		"$A" "$@" "${flag[@]}" >"$out.raw" 2>"$out.err"
		local rc=$?
		sanitizer_said "$out.err" "$name ($kind)"
		if [ $rc -ge 128 ]; then
			bad "$name ($kind): peerwatch-analyze died with signal $((rc - 128))"
			continue
		fi
		perl "$HERE/normalize.pl" "${jflag[@]}" "$WORK" "$B" "$ROOT" "$dir" <"$out.raw" >"$out"
		if [ "${1:-}" = timeline ]; then # and the file it wrote
			perl "$HERE/normalize.pl" --json "$WORK" "$B" "$ROOT" "$dir" <"$WORK/timeline.out" >>"$out"
		fi
		echo "exit $rc" >>"$out"
		if [ -n "${UPDATE_GOLDEN:-}" ]; then
			cp "$out" "$g"
			ok "$name ($kind): golden written"
		elif [ ! -f "$g" ]; then
			bad "$name ($kind): no golden file $g (UPDATE_GOLDEN=1 writes it)"
		elif diff -u "$g" "$out" >"$out.diff"; then
			ok "$name ($kind)"
		else
			bad "$name ($kind) differs from the golden file:"
			head -40 "$out.diff" | sed 's/^/    /'
		fi
	done
}

goldens() {
	# The normalizer numbers pids, and leaves alone the same digits inside a
	# hyphenated hex name: a process whose pid is 8000 once turned the simulated
	# GPUs' UUIDs ("...-4000-8000-5e1d...") into "<P1>" and failed the goldens.
	mkdir -p "$WORK/norm"
	printf '{"type":"header","pid":8000,"ppid":424242,"t0_mono_ns":1,"host":"h"}\n' >"$WORK/norm/x.8000.pw.jsonl"
	norm=$(printf 'GPU-7077736d-0000-4000-8000-5e1d00000000 calls[8000] pid 8000\n' |
		perl "$HERE/normalize.pl" "$WORK" "$B" "$ROOT" "$WORK/norm")
	check "normalize.pl: a pid is numbered, the same digits in a UUID are not ($norm)" \
		[ "$norm" = "GPU-7077736d-0000-4000-8000-5e1d00000000 calls[<P1>] pid <P1>" ]

	mkdir -p "$GOLD"
	for cmd in summary check violations matrix ipc managed info ops; do
		golden "calls.$cmd" "$WORK/calls" $cmd "$WORK/calls"
		golden "ipc.$cmd" "$WORK/ipc" $cmd "$WORK/ipc"
	done
	golden "calls.timeline" "$WORK/calls" timeline -o "$WORK/timeline.out" "$WORK/calls"
	golden "ipc-online.check" "$WORK/ipc-online" check "$WORK/ipc-online"
	golden "crash.info" "$WORK/crash" info "$WORK/crash"
	golden "crash.summary" "$WORK/crash" summary "$WORK/crash"
	golden "forkexec.info" "$WORK/forkexec" info "$WORK/forkexec"
	golden "forkexec.summary" "$WORK/forkexec" summary "$WORK/forkexec"
	for cmd in summary check violations matrix ipc managed info ops; do
		golden "fixtures.$cmd" "$FIX" $cmd "$FIX"
	done
	golden "fixtures.timeline" "$FIX" timeline -o "$WORK/timeline.out" "$FIX"
}

# How long each part took, as TAP comments (make test's logs).
t_part=0
took() { # PART
	echo "# $1: $((SECONDS - t_part)) s"
	t_part=$SECONDS
}
took "the traces"
if [ "$part" != truth ]; then
	goldens
	took "the golden outputs"
	. "$HERE/checks.sh"
	took checks.sh
	. "$HERE/checks_ci.sh"
	took checks_ci.sh
	. "$HERE/checks_vendors.sh"
	took checks_vendors.sh
	. "$HERE/checks_offline.sh"
	took checks_offline.sh
	. "$HERE/checks_report.sh"
	took checks_report.sh
	. "$HERE/checks_parse.sh"
	took checks_parse.sh
	. "$HERE/checks_um.sh"
	took checks_um.sh
	. "$HERE/checks_duckdb.sh"
	took checks_duckdb.sh
fi
if [ "$part" != checks ]; then
	. "$HERE/checks_truth.sh"
	took checks_truth.sh
fi

echo "run.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]

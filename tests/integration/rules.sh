#!/bin/bash
# Every rule on the simulated driver: a program that breaks its contract
# once must leave exactly that one finding, one that comes close none; then
# enforce mode, halt_on, exitcode, suppressions, stacks and log_path.
#   tests/integration/rules.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
AN="$B/bin/peerwatch-analyze"
V="$B/tests/violations"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-rules.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# One run id for all these runs: the registry must be gone at the end.
export PEERWATCH_RUN_ID="rules-test-$$"


# The simulated machine each scenario (RULE or RULE/CASE) needs.
env_for() {
	case $1 in
	peer.enable.unsupported | ipc.open.unreachable) echo "PWSIM_PEERS=none" ;;
	peer.limit) echo "PWSIM_DEVICES=10" ;;
	peer.enable.twice/reset) echo "PWSIM_DEVICES=3" ;;
	*) echo "PWSIM_DEVICES=2" ;;
	esac
}

# violations SCENARIO bad|good under the launcher; prints the rules found, one a line.
run() { # SCENARIO KIND DIR [launcher options...]
	local scenario=$1 kind=$2 dir=$3
	shift 3
	env $(env_for "$scenario") "$PW" -q -o "$dir/trace" "$@" -- "$V" "$scenario" "$kind" >"$dir/out" 2>"$dir/err"
}
# Small predicates over one trace file.
jqt() { jq -e "$@" >/dev/null 2>&1; }
footer_is() { [ -n "$1" ] && tail -1 "$1" | jqt "$2"; }
has_violation() { [ -n "$1" ] && jqt -s --arg r "$2" 'any(.[]; .type=="violation" and .rule==$r)' "$1"; }
no_call() { [ -n "$1" ] && jqt -s --arg a "$2" 'any(.[]; .type=="call" and .api==$a) | not' "$1"; }
no_violations() { [ -z "$(jq -r 'select(.type=="violation") | .rule' "$@")" ]; }
found() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule'; }

# Each scenario is RULE, or RULE/CASE for another way to break it.
for sc in $("$V" list); do
	rule=${sc%%/*}
	d="$WORK/${sc//\//.}-bad"
	mkdir -p "$d"
	if ! run "$sc" bad "$d" --mode warn; then
		bad "$sc: the program failed: $(tail -2 "$d/err")"
		continue
	fi
	got=$(found "$d" | tr '\n' ' ')
	check "$sc: a program breaking it once gets exactly that finding (got: ${got:-none})" [ "$got" = "$rule " ]
	check "$sc: reported on stderr with its id" grep -q "peerwatch: [a-z]*: $rule in " "$d/err"
	g="$WORK/${sc//\//.}-good"
	mkdir -p "$g"
	if ! run "$sc" good "$g" --mode warn; then
		bad "$sc: the near miss failed: $(tail -2 "$g/err")"
		continue
	fi
	got=$(found "$g" | tr '\n' ' ')
	check "$sc: a program coming close gets no finding (got: ${got:-none})" [ -z "$got" ]
done

# A context destroyed, and a new one on another device at its address: the
# copy naming the new one is neither a mismatch nor recorded on the old
# context's device (the context -> device table forgets a destroyed one).
d="$WORK/ctx-reuse"
mkdir -p "$d"
PWSIM_DEVICES=2 "$PW" -q -o "$d/trace" --mode warn -- "$V" ctx-reuse >"$d/out" 2>"$d/err"
rc=$?
t=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null | head -1)
check "ctx-reuse: runs (exit $rc), the new context at the old one's address ($(cat "$d/out"))" \
	[ $rc -eq 0 ] && grep -qx "same address" "$d/out"
got=$(found "$d" | tr '\n' ' ')
check "ctx-reuse: no finding on the copy naming the new context (got: ${got:-none})" [ -z "$got" ]
check "ctx-reuse: one address, recorded on device 0 as the first copy's source, on 1 as the second's destination" \
	jqt -s '[.[] | select(.type=="call" and .api=="cuMemcpyPeer")] | length == 2 and
		.[0].args.src_ctx == .[1].args.dst_ctx and .[0].args.src_ctx_dev == 0 and .[1].args.dst_ctx_dev == 1' "$t"

# --- enforce ---------------------------------------------------------------------
d="$WORK/enforce"
mkdir -p "$d"
(run copy.peer.out-of-bounds bad "$d" --mode enforce) 2>/dev/null
rc=$?
check "enforce: an error aborts the program (status $rc)" [ $rc -eq 134 ]
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null | head -1)
check "enforce: the trace is finished and renamed, reason enforce" \
	footer_is "$f" '.type=="footer" and .reason=="enforce" and .violations==1'
check "enforce: the trace holds the violation" has_violation "$f" copy.peer.out-of-bounds
check "enforce: the call it stopped never ran (no event for it)" no_call "$f" cuMemcpyPeer
check "enforce: says it stopped" grep -q "stopping before cuMemcpyPeer runs (mode=enforce, halt_on=error)" "$d/err"

d="$WORK/exitcode"
mkdir -p "$d"
run ipc.free-while-open bad "$d" --mode enforce --options exitcode=42
rc=$?
check "enforce: exitcode=42 exits with 42 (got $rc)" [ $rc -eq 42 ]
parent=$(grep -L '"child"' "$d"/trace/*.pw.jsonl | head -1)
check "enforce: ipc.free-while-open found in the exporter" has_violation "$parent" ipc.free-while-open
check "enforce: ipc.free-while-open stops the exporter before the free" no_call "$parent" cuMemFree

d="$WORK/halt-warning"
mkdir -p "$d"
run peer.enable.twice bad "$d" --mode enforce
check "enforce: a warning does not stop the program under halt_on=error" [ $? -eq 0 ]
d="$WORK/halt-warning2"
mkdir -p "$d"
run peer.enable.twice bad "$d" --mode enforce --halt-on warning --options exitcode=3
check "enforce: --halt-on warning stops at a warning" [ $? -eq 3 ]

# --- no trace can be kept: the checking goes on -------------------------------------
# `violations several` breaks three contracts (errors) and then a fourth
# (a warning), each once.  Its trace directory cannot be made: under a
# regular file (ENOTDIR), or named longer than a file name may be
# (ENAMETOOLONG).  Tracing is off; enforce still stops before the first
# break, warn still reports every finding and says at exit that no trace
# was kept and why, observe runs on with one warning.
several_enforced() { # OUT DIR: stops at the first break with SIGABRT
	PWSIM_DEVICES=2 "$PW" -m enforce -o "$1" -- "$V" several >"$2/out" 2>"$2/err"
}
touch "$WORK/plain"
long_name=$(printf 'n%.0s' $(seq 300))
for where in plain long; do
	case $where in
	plain) out="$WORK/plain/trace" why="Not a directory" what="under a regular file" ;;
	long) out="$WORK/$long_name/trace" why="File name too long" what="a 300-byte name" ;;
	esac
	d="$WORK/notrace-$where"
	mkdir -p "$d"
	expected several_enforced "$out" "$d"
	rc=$?
	check "no trace ($what), enforce: stopped at the first error (status $rc, 134: abort)" \
		bash -c '[ "$1" -eq 134 ] && ! grep -q done "$2"' _ "$rc" "$d/out"
	check "no trace ($what), enforce: says it stopped before the breaking call" \
		grep -q "stopping before cuCtxEnablePeerAccess runs (mode=enforce, halt_on=error): peer.enable.self" "$d/err"
	PWSIM_DEVICES=2 "$PW" -m enforce --options exitcode=42 -o "$out" -- "$V" several >"$d/out" 2>"$d/err"
	rc=$?
	check "no trace ($what), enforce with exitcode=42: status $rc" [ $rc -eq 42 ]
	PWSIM_DEVICES=2 "$PW" -m warn -o "$out" -- "$V" several >"$d/out" 2>"$d/err"
	rc=$?
	check "no trace ($what), warn: the program runs to its end (status $rc)" \
		bash -c '[ "$1" -eq 0 ] && grep -qx done "$2"' _ "$rc" "$d/out"
	got=$(grep -oE '^==[0-9]+== peerwatch: [a-z]+: [a-z.-]+' "$d/err" | sed 's/^==[0-9]*== peerwatch: //' | tr '\n' ' ')
	check "no trace ($what), warn: every finding reported (got: ${got:-none})" \
		[ "$got" = "error: peer.enable.self error: copy.peer.out-of-bounds error: copy.peer.null warning: peer.enable.twice " ]
	check "no trace ($what), warn: one exit line says no trace was kept, why, and what was found" \
		[ "$(grep -cxF "no trace was kept (cannot create the trace directory '$out': $why): 4 findings: 3 errors, 1 warning" \
			<(sed 's/^peerwatch\[[0-9]*\]: //' "$d/err"))" -eq 1 ]
	check "no trace ($what), warn: tracing off said once, with the reason" \
		[ "$(grep -cF "cannot create the trace directory '$out': $why; tracing is off" "$d/err")" -eq 1 ]
	PWSIM_DEVICES=2 "$PW" -m observe -o "$out" -- "$V" several >"$d/out" 2>"$d/err"
	rc=$?
	check "no trace ($what), observe: runs on (status $rc), one warning and nothing else" \
		bash -c '[ "$1" -eq 0 ] && grep -qx done "$2" && [ "$(wc -l <"$3")" -eq 1 ] && grep -qF "$4" "$3"' \
		_ "$rc" "$d/out" "$d/err" "cannot create the trace directory '$out': $why; tracing is off for this process, which runs on unchanged"
done

# --- observe: no rules -------------------------------------------------------------
d="$WORK/observe"
mkdir -p "$d"
run copy.peer.out-of-bounds bad "$d" --mode observe
check "observe: no findings" no_violations "$d"/trace/*.pw.jsonl
check "observe: nothing on stderr" [ ! -s "$d/err" ]

# --- suppressions ----------------------------------------------------------------
d="$WORK/supp"
mkdir -p "$d"
printf '# the copy in this test is staged on purpose\nrule=copy.peer.no-peer-access api=cuMemcpy*\n' >"$d/s.supp"
run copy.peer.no-peer-access bad "$d" --mode warn --suppressions "$d/s.supp"
f=$(ls "$d"/trace/*.pw.jsonl | head -1)
check "suppressions: a suppressed finding is not traced" no_violations "$f"
check "suppressions: nor reported" bash -c '! grep -q "peerwatch: performance" "$1"' _ "$d/err"
check "suppressions: counted in the footer" footer_is "$f" '.suppressed==1 and .violations==0' 
printf 'rule=copy.peer.no-peer-access\nrule=ipc.leak colour=red\n' >"$d/bad.supp"
run copy.peer.no-peer-access bad "$d" --mode warn --suppressions "$d/bad.supp"
check "suppressions: a malformed file is named with its line" grep -q "bad.supp:2:" "$d/err"
run copy.peer.no-peer-access bad "$d" --mode enforce --suppressions "$d/bad.supp"
check "suppressions: a malformed file under enforce exits 64" [ $? -eq 64 ]

# --- stacks and log_path ------------------------------------------------------------
d="$WORK/stacks"
mkdir -p "$d"
run ipc.export.interior-pointer bad "$d" --mode warn
f=$(ls "$d"/trace/*.pw.jsonl | head -1)
check "stacks: a violation carries its stack, hex strings" \
	jqt -s '[.[] | select(.type=="violation")] | length == 1 and (.[0].stack|length) >= 2 and (.[0].stack[0]|startswith("0x"))' "$f"
check "stacks: the report shows frames" grep -q "#1 " "$d/err"
# Where the program has debug information (the test programs are built with
# -g), the report names a frame by its function and source line: those the
# analyzer gives the violation's first address, offline.
frame0=$(grep -m1 '#0 ' "$d/err" | sed 's/.*#0 //')
want0=$("$AN" violations --json "$f" | jq -r '.findings[0].stack[0] |
	"\(.function) (\(.file | split("/") | last):\(.line)) in violations+\(.module_offset)"')
check "stacks: frame #0 by function and line, as the analyzer names it ('$frame0')" \
	bash -c '[[ $1 =~ ^[a-z_]+\ \(violations\.c:[0-9]+\)\ in\ violations\+0x[0-9a-f]+$ ]] && [ "$1" = "$2" ]' \
	_ "$frame0" "$want0"
check "stacks: the report points at peerwatch-analyze violations for the rest" \
	grep -qF "more:     peerwatch-analyze violations $d/trace" "$d/err"
# libdw is no dependency of the library: it is loaded for the first report
# with frames (the footer lists the modules loaded at the end), never in a
# run without one.
check "libdw: libpeerwatch.so does not depend on it" \
	bash -c '! readelf -d "$1" | grep -E "NEEDED.*(libdw|libelf)"' _ "$B/lib/libpeerwatch.so"
check "libdw: loaded for the report" footer_is "$f" '.modules | any(.path | test("/libdw[.]so"))'
d="$WORK/nolibdw"
mkdir -p "$d"
run ipc.export.interior-pointer good "$d" --mode warn
check "libdw: not loaded in a run without a finding" \
	footer_is "$(ls "$d"/trace/*.pw.jsonl | head -1)" '.violations == 0 and (.modules | any(.path | test("/libdw[.]so")) | not)'
d="$WORK/nostacks"
mkdir -p "$d"
run ipc.export.interior-pointer bad "$d" --mode warn --stacks none
f=$(ls "$d"/trace/*.pw.jsonl | head -1)
check "stacks=none: no stack" jqt -s '[.[] | select(.type=="violation")] | length == 1 and (.[0] | has("stack") | not)' "$f"
d="$WORK/all"
mkdir -p "$d"
run copy.peer.null good "$d" --mode warn --stacks all
f=$(ls "$d"/trace/*.pw.jsonl | head -1)
check "stacks=all: every call carries its stack" jqt -s '[.[] | select(.type=="call")] | length > 0 and all(has("stack"))' "$f"
d="$WORK/log"
mkdir -p "$d"
run ipc.export.interior-pointer bad "$d" --mode warn --log-path "$d/report"
check "log_path: the report goes to PATH.<pid>, not stderr" bash -c 'grep -q "ipc.export.interior-pointer" "$1"/report.* && ! grep -q "ipc.export.interior-pointer" "$1/err"' _ "$d"

# (the segment's name is a keyed hash of the run id: tests/fault/shmname.c)
check "registry: the shared segment is removed when the run's last process ends" \
	bash -c 'n=$("$2" "$1") && [ -n "$n" ] && [ ! -e "/dev/shm$n" ]' _ "$PEERWATCH_RUN_ID" "$B/tests/shmname"

echo "rules: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/bash
# All-pairs peer access on the simulated runtime (tests/integration/peer_mesh.c,
# llama.cpp's start-up loop), with 4, 8, 9 and 10 devices:
#   - 4 devices, warn mode, gpu_timing=1: the program's stdout and exit status
#     are those of a run without peerwatch; no finding; `matrix` shows every
#     ordered pair with its copies, peer access left on, and a device-measured
#     bandwidth (timed on the driver call the runtime made, counted for the
#     runtime call);
#   - 8 devices (7 peers each) and 9 (8 peers, the limit): peer.limit quiet;
#   - 10 devices: the ninth peer of device 0 is refused by the runtime
#     (cudaErrorTooManyPeers, llama.cpp#21883); peer.limit names that call
#     and no other, `check` fails; with --keep-going every refusal has exactly
#     one finding (and each copy between two devices left without access
#     one copy.peer.no-peer-access): the first of a rule at its call site
#     in full, the others counted in the footer's repeats_by; in enforce mode the run stops at that call, before the
#     runtime refuses it, with the trace flushed.
#   tests/integration/mesh.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
AN="$B/bin/peerwatch-analyze"
P="$B/tests/peer_mesh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-mesh.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
q() { "$@" >/dev/null; } # a command whose output is not wanted (jq -e's "true")
all() { # every COMMAND, given as one string each, succeeds
	local c
	for c in "$@"; do eval "$c" || return 1; done
}

# mesh NAME DEVICES MODE [PROGRAM ARGS...]: a plain run and a traced one;
# leaves D (the case's folder), RC_PLAIN, RC.
mesh() {
	local name=$1 n=$2 mode=$3
	shift 3
	D=$WORK/$name
	mkdir -p "$D"
	PWSIM_DEVICES=$n "$P" --bytes 256k "$@" >"$D/plain.out" 2>"$D/plain.err"
	RC_PLAIN=$?
	# (a subshell: the shell's own "Aborted" line of the enforce run stays out of the log)
	(PWSIM_DEVICES=$n "$PW" -q -o "$D/trace" --mode "$mode" --options gpu_timing=1 -- \
		"$P" --bytes 256k "$@" >"$D/out" 2>"$D/err"
	exit $?) 2>/dev/null
	RC=$?
}
# the case's findings, "rule@api" each, sorted
findings() {
	cat "$D"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule + "@" + .api' | sort | tr '\n' ' '
}

# --- 4 devices: the clean mesh, and what matrix shows of it -------------------
mesh four 4 warn
check "4 devices: the program passes under peerwatch (exit $RC)" [ "$RC" = 0 ]
check "4 devices: stdout is that of the plain run" cmp -s "$D/plain.out" "$D/out"
check "4 devices: 12 of 12 ordered pairs enabled" grep -qx "peer_mesh: 4 devices, peer access enabled on 12 of 12 ordered pairs" "$D/out"
check "4 devices: no finding (got '$(findings)')" [ -z "$(findings)" ]
check "4 devices: check passes" q "$AN" check "$D/trace"
"$AN" matrix --json "$D/trace" >"$D/matrix.json" 2>"$D/matrix.err"
check "4 devices: matrix --json has the 12 ordered pairs, each 4 copies of 256 KiB, access on, device-timed" \
	q jq -e '.hosts | length == 1 and (.[0].devices == ["GPU0","GPU1","GPU2","GPU3"]) and
		(.[0].pairs | length == 12 and all(.[];
			.src != .dst and .copies == 4 and .failed == 0 and .bytes == 1048576 and
			.peer_enables == 1 and .peer_on_at_end == 1 and .no_peer_copies == 0 and
			.gpu_copies == 4 and .gpu_gbps != null and .gpu_gbps > 0))' "$D/matrix.json"
"$AN" matrix "$D/trace" >"$D/matrix.txt" 2>&1
check "4 devices: the text has the bytes, peer-access and device-bandwidth grids" \
	grep -q "device-measured GB/s" "$D/matrix.txt"
# the peer grid: 4 device rows, each 'on' for the three others
check "4 devices: every off-diagonal cell of the peer grid is 'on'" \
	[ "$(sed -n '/peer access at exit/,/^$/p' "$D/matrix.txt" | grep -c '^  GPU[0-3] .*on.*on.*on')" = 4 ]
# every gpu_time event belongs to a driver copy nested in a runtime copy
check "4 devices: the 48 timed copies are the driver calls under cudaMemcpyPeerAsync" \
	q jq -e -s '([.[] | select(.type=="call" and .layer=="runtime" and .api=="cudaMemcpyPeerAsync") | .seq]) as $rt |
		([.[] | select(.type=="call" and .api=="cuMemcpyPeerAsync")]) as $drv |
		([.[] | select(.type=="gpu_time") | .call]) as $timed |
		($timed | length) == 48 and
		all($drv[]; (.parent as $p | $rt | index($p)) != null and (.seq as $s | $timed | index($s)) != null)' \
	"$D"/trace/*.pw.jsonl

# The same with every event query taking 20 ms (a busy machine): the trace
# writer is still collecting device times when the process ends, and the
# final collection must wait for it rather than find nothing to do.
D=$WORK/slowq
mkdir -p "$D"
(PWSIM_EVENT_QUERY_US=20000 PWSIM_DEVICES=4 "$PW" -q -o "$D/trace" --mode warn --options gpu_timing=1 -- \
	"$P" --bytes 16m >"$D/out" 2>"$D/err"
exit $?) 2>/dev/null
check "4 devices, slow event queries: every one of the 48 timed copies has its gpu_time, none lost uncounted" \
	q jq -e -s '([.[] | select(.type=="gpu_time")] | length) as $n |
		(.[-1] | select(.type=="footer")) as $f |
		$n + $f.gpu_timing_skipped + $f.dropped == 48 and $n == 48' "$D"/trace/*.pw.jsonl

# --- 8 and 9 devices: 7 and 8 peers each, within the limit ---------------------
for n in 8 9; do
	pairs=$((n * (n - 1)))
	mesh "n$n" "$n" warn --reps 1
	check "$n devices: the program passes under peerwatch (exit $RC)" [ "$RC" = 0 ]
	check "$n devices: $pairs of $pairs ordered pairs enabled" \
		grep -qx "peer_mesh: $n devices, peer access enabled on $pairs of $pairs ordered pairs" "$D/out"
	check "$n devices: stdout is that of the plain run" cmp -s "$D/plain.out" "$D/out"
	check "$n devices: peer.limit quiet, no finding at all (got '$(findings)')" [ -z "$(findings)" ]
	n_pairs=$("$AN" matrix --json "$D/trace" | jq '[.hosts[0].pairs[] | select(.peer_on_at_end == 1)] | length')
	check "$n devices: matrix shows access on for all $pairs ordered pairs (got $n_pairs)" [ "$n_pairs" = "$pairs" ]
done

# --- 10 devices: llama.cpp#21883 --------------------------------------------
mesh ten 10 warn --reps 1
check "10 devices: the runtime refuses device 0's ninth peer, plain and traced alike (exit $RC_PLAIN, $RC)" \
	all '[ "$RC_PLAIN" = 1 ]' '[ "$RC" = 1 ]' \
		'grep -qx "device 0 -> 9: cudaDeviceEnablePeerAccess: cudaErrorTooManyPeers" "$D/out"'
check "10 devices: stdout is that of the plain run" cmp -s "$D/plain.out" "$D/out"
check "10 devices: exactly one finding, peer.limit in cudaDeviceEnablePeerAccess (got '$(findings)')" \
	[ "$(findings)" = "peer.limit@cudaDeviceEnablePeerAccess " ]
check "10 devices: the finding names device 0 (by UUID and bus id), device 9 and the limit" \
	grep -qE "cudaDeviceEnablePeerAccess from device 0 to device 9 would give device 0 \(GPU-[0-9a-f-]{36}, 0000:10:00\.0\) 9 peers; a device has at most 8" "$D/err"
"$AN" check "$D/trace" >"$D/check.out" 2>&1
rc=$?
check "10 devices: check fails (exit $rc) and names peer.limit" \
	all '[ "$rc" = 1 ]' 'grep -q "^error: peer.limit" "$D/check.out"'

mesh ten-keep 10 warn --reps 1 --keep-going
refused=$(grep -c "cudaErrorTooManyPeers" "$D/out")
# Findings of a rule: its violation events and the repeats the footers count.
findings_of() { # RULE
	local v r
	v=$(cat "$D"/trace/*.pw.jsonl | jq -r --arg r "$1" 'select(.type=="violation" and .rule==$r) | .rule' | wc -l)
	r=$(cat "$D"/trace/*.pw.jsonl | jq -r --arg r "$1" 'select(.type=="footer") | .repeats_by[] | select(.rule==$r) | .count' |
		awk '{n += $1} END {print n + 0}')
	echo $((v + r))
}
nf=$(findings_of peer.limit)
nv=$(cat "$D"/trace/*.pw.jsonl | jq -r 'select(.type=="violation" and .rule=="peer.limit") | .rule' | wc -l)
check "10 devices, --keep-going: peer.limit reported once from its one call site, the rest counted ($nv)" [ "$nv" = 1 ]
check "10 devices, --keep-going: the program goes on (exit $RC) and the runtime refused some enables ($refused)" \
	all '[ "$RC" = 0 ]' '[ "$refused" -gt 0 ]'
check "10 devices, --keep-going: one peer.limit per refused enable ($nf for $refused)" [ "$nf" = "$refused" ]
"$AN" matrix --json "$D/trace" >"$D/matrix.json"
nr=$(jq '[.hosts[0].pairs[] | select(.peer_enable_failures == 1 and .peer_on_at_end == 0)] | length' "$D/matrix.json")
check "10 devices, --keep-going: matrix counts each refused enable in its pair ($nr for $refused)" [ "$nr" = "$refused" ]
"$AN" matrix "$D/trace" >"$D/matrix.txt"
check "10 devices, --keep-going: the peer grid marks device 0's refused ninth peer" \
	grep -Eq '^  GPU0 +- +(on +){8}refused$' "$D/matrix.txt"
# The pairs left with no access either way are copied through the host: a
# performance finding for each such copy, and nothing else.
off=$(grep -c "peer access off" "$D/out")
np=$(findings_of copy.peer.no-peer-access)
all=$(($(cat "$D"/trace/*.pw.jsonl | jq -r 'select(.type=="violation") | .rule' | wc -l) +
	$(cat "$D"/trace/*.pw.jsonl | jq -r 'select(.type=="footer") | .repeats' | awk '{n += $1} END {print n + 0}')))
check "10 devices, --keep-going: one copy.peer.no-peer-access per copy between devices left without access ($np for $off), no other finding ($all in all)" \
	all '[ "$off" -gt 0 ]' '[ "$np" = "$off" ]' '[ "$all" = $((nf + np)) ]'

mesh ten-enforce 10 enforce --reps 1
check "10 devices, enforce: the run stops at the violation (exit $RC, SIGABRT)" [ "$RC" = 134 ]
check "10 devices, enforce: it stopped before the runtime refused the call" \
	bash -c "! grep -q cudaErrorTooManyPeers '$D/out'"
check "10 devices, enforce: the flushed trace holds the finding" \
	[ "$(findings)" = "peer.limit@cudaDeviceEnablePeerAccess " ]

# --- bad usage: a clear message, exit 2, before any CUDA call ---------------------
for args in "--bytes 0" "--bytes 12q" "--bytes 99999999999999999m" "--reps 0" "--reps x" "--frobnicate"; do
	# shellcheck disable=SC2086 # the words of args are the arguments
	PWSIM_DEVICES=2 "$P" $args >"$WORK/usage.out" 2>"$WORK/usage.err"
	rc=$?
	check "peer_mesh $args: exit 2 with a message on stderr (exit $rc: $(head -c 80 "$WORK/usage.err"))" \
		all '[ "$rc" = 2 ]' '[ -s "$WORK/usage.err" ]' '[ ! -s "$WORK/usage.out" ]'
done

echo "mesh: $pass passed, $fail failed"
[ "$fail" = 0 ]

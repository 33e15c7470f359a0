#!/bin/bash
# The IPC mapping model on the simulated driver, which maps as the real one
# was measured to (H100, driver 580): a reopen in the same context is the
# same pointer, counted; an open in another device's context is a second
# mapping; the lazy-enable flag enables peer access as cuCtxEnablePeerAccess
# would.  The library's findings and the analyzer's ipc report must both
# follow it: no finding for the documented reopen, a leak naming the mapping
# left open, no staged copy and a known 'already enabled' after a lazy open.
# Also: a process that died holds nothing (its trace left .partial).
#   tests/integration/ipc_model.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
A="$B/bin/peerwatch-analyze"
V="$B/tests/violations"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-ipc-model.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2 PWSIM_PEERS=all
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
export PEERWATCH_RUN_ID="ipc-model-test-$$"

jqt() { jq -e "$@" >/dev/null 2>&1; }
model() { # WHAT: the exporter and its child doing WHAT, traces in $WORK/WHAT
	mkdir -p "$WORK/$1"
	"$PW" -q -o "$WORK/$1/trace" --mode warn -- "$V" model "$1" >"$WORK/$1/out" 2>"$WORK/$1/err"
}
found() { cat "$WORK/$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule'; }
child_of() { grep -l '"child"' "$WORK/$1"/trace/*.pw.jsonl | head -1; }

# --- the measured sequence: reopen in the same context, open in another -----------
if model reopen; then
	ok "reopen: the simulated driver maps as measured (same pointer; another context, another one)"
	got=$(found reopen | tr '\n' ' ')
	check "reopen: no finding at all (got: ${got:-none})" [ -z "$got" ]
	f=$(child_of reopen)
	check "reopen: the child's three opens returned two pointers, the first two the same" jqt -s '
		[.[] | select(.type=="call" and .op=="ipc_open" and .ret==0) | .args.ptr] as $p |
		($p | length)==3 and $p[0]==$p[1] and $p[2]!=$p[0]' "$f"
	check "reopen: the opens are recorded with the device of their context (1, 1, 0)" jqt -s '
		[.[] | select(.type=="call" and .op=="ipc_open") | .cur_dev] == [1, 1, 0]' "$f"
	"$A" ipc --json "$WORK/reopen/trace" >"$WORK/reopen.ipc" 2>/dev/null
	check "reopen: the analyzer derives no finding either" jqt '.findings == [] and .unmatched_closes == []' \
		"$WORK/reopen.ipc"
else
	bad "reopen: the program failed: $(tail -2 "$WORK/reopen/err")"
fi

# --- the same, device 1's mapping left open: the leak is at that mapping ----------
if model reopen-leak; then
	p=0x$(grep -v '^$' "$WORK/reopen-leak/out" | tail -1)
	got=$(found reopen-leak | tr '\n' ' ')
	check "reopen-leak: exactly one finding, ipc.leak (got: ${got:-none})" [ "$got" = "ipc.leak " ]
	check "reopen-leak: it names the mapping still open ($p), one open left" bash -c '
		cat "$1"/trace/*.pw.jsonl | jq -r "select(.type==\"violation\") | .message" |
		grep -q "mapping at $2 is still open (1 open)"' _ "$WORK/reopen-leak" "$p"
	"$A" check --json "$WORK/reopen-leak/trace" >"$WORK/reopen-leak.check" 2>/dev/null
	check "reopen-leak: the analyzer's check reports that one leak (the online one), nothing else" \
		jqt '[.findings[] | .rule] == ["ipc.leak"] and .findings[0].derived == false' "$WORK/reopen-leak.check"
	"$A" ipc --json "$WORK/reopen-leak/trace" >"$WORK/reopen-leak.ipc" 2>/dev/null
	check "reopen-leak: the analyzer's own leak is one, on device 1's mapping ($p)" jqt --arg p "$p" '
		[.findings[] | select(.rule=="ipc.leak")] | length==1 and (.[0].message | contains("mapping at " + $p + " (1 open)"))' \
		"$WORK/reopen-leak.ipc"
else
	bad "reopen-leak: the program failed: $(tail -2 "$WORK/reopen-leak/err")"
fi

# --- the lazy flag enables peer access -----------------------------------------------
if model lazy-enable; then
	got=$(found lazy-enable | tr '\n' ' ')
	check "lazy-enable: the explicit enable after a lazy open is peer.enable.twice, alone (got: ${got:-none})" \
		[ "$got" = "peer.enable.twice " ]
	check "lazy-enable: ... and the simulated driver refuses it with 704, as the real one does" jqt -s '
		any(.[]; .type=="call" and .api=="cuCtxEnablePeerAccess" and .ret==704)' "$(child_of lazy-enable)"
else
	bad "lazy-enable: the program failed: $(tail -2 "$WORK/lazy-enable/err")"
fi

# --- a copy from the mapping, naming either of its devices ---------------------------
# Measured on H200s: the driver reports an IPC mapping on the importing
# context's device (ptr_dev), and cuMemcpyPeer naming the exporter's
# context for it (where it was allocated) copies.  Either device is right
# for a mapping; a third one, or the wrong device for the process's own
# memory, is still copy.peer.device-mismatch.
if model lazy-copy; then
	got=$(found lazy-copy | tr '\n' ' ')
	check "lazy-copy: a copy between the devices after a lazy open is not staged: no finding (got: ${got:-none})" \
		[ -z "$got" ]
	check "lazy-copy: the driver reports the mapping on the importing context's device (1), as measured" jqt -s '
		[.[] | select(.type=="call" and .op=="ipc_open" and .ret==0) | .args.ptr_dev] == [1]' \
		"$(child_of lazy-copy)"
	check "lazy-copy: ... and the copy names device 0's context for it, device 1's for its own memory" jqt -s '
		[.[] | select(.type=="call" and .api=="cuMemcpyPeer") | .args |
		 [.src_dev, .src_ctx_dev, .dst_dev, .dst_ctx_dev]] == [[1, 0, 1, 1]]' "$(child_of lazy-copy)"
else
	bad "lazy-copy: the program failed: $(tail -2 "$WORK/lazy-copy/err")"
fi
if model lazy-copy-importer; then
	got=$(found lazy-copy-importer | tr '\n' ' ')
	check "lazy-copy-importer: the mapping named by the importing context: no finding (got: ${got:-none})" \
		[ -z "$got" ]
else
	bad "lazy-copy-importer: the program failed: $(tail -2 "$WORK/lazy-copy-importer/err")"
fi
# mismatch_case NAME WHAT MESSAGE: scenario NAME (WHAT, in words) reports
# copy.peer.device-mismatch once, in a message matching the regex MESSAGE
mismatch_case() {
	local name=$1 what=$2 msg=$3 got
	if ! model "$name"; then
		bad "$name: the program failed: $(tail -2 "$WORK/$name/err")"
		return
	fi
	got=$(found "$name" | tr '\n' ' ')
	check "$name: $what is copy.peer.device-mismatch (got: ${got:-none})" [ "$got" = "copy.peer.device-mismatch " ]
	check "$name: its message says what the call named and where the memory is" bash -c '
		cat "$1"/trace/*.pw.jsonl | jq -r "select(.type==\"violation\") | .message" | grep -q "$2"' \
		_ "$WORK/$name" "$msg"
}
PWSIM_DEVICES=3 mismatch_case lazy-copy-third "the mapping named by a third device" \
	"the source 0x[0-9a-f]* is an IPC mapping opened on device 1 of memory on device 0, but the call names device 2 for it"
mismatch_case lazy-copy-mine "with a mapping open, its own memory named by the wrong device" \
	"the destination 0x[0-9a-f]* lives on device 1, but the call names device 0 for it"
mkdir -p "$WORK/plain"
"$PW" -q -o "$WORK/plain/trace" --mode warn -- "$V" copy.peer.device-mismatch bad >/dev/null 2>&1
got=$(found plain | tr '\n' ' ')
check "plain: no IPC at all, the wrong context for a device pointer: copy.peer.device-mismatch (got: ${got:-none})" \
	[ "$got" = "copy.peer.device-mismatch " ]

# --- default suppressions: NCCL's legacy teardown frees what a peer has open -------
# The exporter frees from a module named libnccl.so.2 while its child holds
# the mapping: a contract break the user cannot act on, suppressed by default,
# counted, marked on its call, and not derived again by the analyzer.
NCCL="$B/tests/nccl/libnccl.so.2"
nccl() { # NAME [LAUNCHER FLAGS]: the teardown under peerwatch, traces in $WORK/NAME
	local name=$1
	shift
	mkdir -p "$WORK/$name"
	"$PW" -o "$WORK/$name/trace" --mode warn "$@" -- "$V" nccl-teardown "$NCCL" \
		>"$WORK/$name/out" 2>"$WORK/$name/err"
}
exporter_of() { grep -L '"child"' "$WORK/$1"/trace/*.pw.jsonl | head -1; }
if nccl nccl-default; then
	got=$(found nccl-default | tr '\n' ' ')
	check "nccl-default: the free inside libnccl is not reported (got: ${got:-none})" [ -z "$got" ]
	f=$(exporter_of nccl-default)
	check "nccl-default: the footer counts it, by the default suppression's name" jqt -s '
		.[-1] | .type=="footer" and .suppressed==1 and .suppressed_default==1 and
		.suppressions==[{"line":0,"suppression":"rule=ipc.free-while-open stack=...;libnccl.so*","hits":1,"default":"nccl-legacy-ipc-teardown"}]' "$f"
	check "nccl-default: the free's call event lists the rule it took" jqt -s '
		[.[] | select(.type=="call" and .op=="free") | .suppressed] == [["ipc.free-while-open"]]' "$f"
	check "nccl-default: the header says the default suppressions were on" jqt -s \
		'.[0].options.default_suppressions == true' "$f"
	check "nccl-default: one stderr line says where and how many" grep -q \
		'peerwatch: 1 finding in libnccl.so suppressed by the default suppressions (nccl-legacy-ipc-teardown' \
		"$WORK/nccl-default/err"
	"$A" check "$WORK/nccl-default/trace" >"$WORK/nccl-default.check" 2>&1
	check "nccl-default: check passes: the analyzer does not derive the finding again" \
		[ $? -eq 0 ]
	"$A" summary "$WORK/nccl-default/trace" >"$WORK/nccl-default.summary" 2>&1
	check "nccl-default: summary says what the default suppressions took" grep -q \
		'^1 finding in libnccl.so suppressed by the default suppressions (nccl-legacy-ipc-teardown' \
		"$WORK/nccl-default.summary"
	"$A" summary --json "$WORK/nccl-default/trace" >"$WORK/nccl-default.summary.json" 2>/dev/null
	check "nccl-default: summary --json counts it by name" jqt \
		'.suppressed_default == {"nccl-legacy-ipc-teardown": 1}' "$WORK/nccl-default.summary.json"
else
	bad "nccl-default: the program failed: $(tail -2 "$WORK/nccl-default/err")"
fi
if nccl nccl-off --no-default-suppressions; then
	got=$(found nccl-off | tr '\n' ' ')
	check "nccl-off: --no-default-suppressions reports it (got: ${got:-none})" [ "$got" = "ipc.free-while-open " ]
	check "nccl-off: the header says the default suppressions were off" jqt -s \
		'.[0].options.default_suppressions == false and .[-1].suppressed_default == 0' "$(exporter_of nccl-off)"
	"$A" check "$WORK/nccl-off/trace" >/dev/null 2>&1
	check "nccl-off: check fails on it" [ $? -eq 1 ]
else
	bad "nccl-off: the program failed: $(tail -2 "$WORK/nccl-off/err")"
fi
"$A" rules --suppressions --json >"$WORK/supps.json" 2>/dev/null
check "rules --suppressions lists the default suppressions with their reason" jqt '
	.default_suppressions | length >= 1 and (map(.name) | index("nccl-legacy-ipc-teardown")) != null and
	all(.[]; (.suppression | startswith("rule=")) and (.why | length > 40))' "$WORK/supps.json"

echo "ipc_model: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/bash
# cuDeviceGetP2PAtomicCapabilities on real GPUs (tests/gpu/p2p_atomics.c):
# the driver's answers with and without peerwatch are the same, the trace
# records each query (op peer_attr, the operations and capabilities), and
# the query of device 0 and itself gets CUDA_ERROR_INVALID_DEVICE and the
# finding peer.attr.self.
#
#   tests/gpu/p2p_atomics.sh DIR     (DIR: make gpu-carry's folder, or BUILD/gpu
#                                     with BUILD/bin/peerwatch beside it)
set -u
G=$(cd "${1:-build/gpu}" && pwd)
PW=${PW:-$G/../bin/peerwatch}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-atomics.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
pass=0
fail=0
check() { if "${@:2}"; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi; }

"$G/p2p_atomics" >"$WORK/plain" 2>&1
plain=$?
"$PW" -q -o "$WORK/trace" --mode warn -- "$G/p2p_atomics" >"$WORK/traced" 2>"$WORK/err"
traced=$?
cat "$WORK/plain"
check "the same exit status, traced or not (plain $plain, traced $traced)" [ $plain -eq $traced ]
check "the same answers, traced or not" cmp -s "$WORK/plain" "$WORK/traced"
check "device 0 with itself: CUDA_ERROR_INVALID_DEVICE (101), as cuda.h says" grep -qx '0 0 101' "$WORK/plain"
f=$(ls "$WORK"/trace/*.pw.jsonl | head -1)
check "three peer_attr calls in the trace" \
	[ "$(jq -s '[.[] | select(.api=="cuDeviceGetP2PAtomicCapabilities" and .op=="peer_attr")] | length' "$f")" = 3 ]
check "the successful ones carry 13 capabilities each" \
	[ "$(jq -s '[.[] | select(.api=="cuDeviceGetP2PAtomicCapabilities" and .ret==0) | .args.capabilities | length] | unique' -c "$f")" = "[13]" ]
check "one finding, peer.attr.self" [ "$(jq -s -c '[.[] | select(.type=="violation") | .rule]' "$f")" = '["peer.attr.self"]' ]
echo "p2p_atomics: $pass passed, $fail failed"
[ $fail -eq 0 ]

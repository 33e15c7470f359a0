#!/bin/bash
# The REAL HIP runtime (Debian's ROCm 5.2.3, libamdhip64.so.5) under
# peerwatch, on a machine without an AMD GPU: every hooked call the program
# makes is recorded once, with the return code the program saw, although
# the program's references are versioned (hipX@hip_4.2, the pool and
# virtual-memory calls @hip_5.1) and our definitions
# are not.  Skips (exit 0, saying why) when the package is not installed.
#   tests/integration/hip_real.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
P="$B/tests/hip_real"
if [ ! -x "$P" ]; then
	# Installed (the paths tests/integration/hip.mk looks at) but not built: a
	# build regression, not a machine without ROCm.
	lib=$(ls /usr/lib/*/libamdhip64.so.5 /opt/rocm/lib/libamdhip64.so.5 2>/dev/null | head -1)
	if [ -n "$lib" ] && [ -f /usr/include/hip/hip_runtime_api.h ]; then
		echo "not ok - hip_real: $lib and its header are installed, but $P was not built"
		exit 1
	fi
	echo "skip - hip_real: the real HIP runtime is not installed" \
		"(apt-get install libamdhip64-5 libamdhip64-dev; scripts/install-deps.sh does it)"
	exit 0
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-hipreal.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
jqt() { jq -e "$@" >/dev/null 2>&1; }

# The program's references are to versioned symbols of the real library.
# name@version of each hip* function it takes from the library (hip_4.2,
# hip_5.1, ...: the node of the ROCm release that brought it)
refs=$(objdump -T "$P" | awk '/\*UND\*/ && $NF ~ /^hip/ && match($0, /\(hip_[0-9.]+\)/) {
	print $NF "@" substr($0, RSTART + 1, RLENGTH - 2) }' | sort -u)
check "the program references hipDeviceCanAccessPeer@hip_4.2" \
	bash -c 'objdump -T "$1" | grep -q "(hip_4.2) *hipDeviceCanAccessPeer$"' _ "$P"
check "the program links the real libamdhip64.so.5" \
	bash -c 'ldd "$1" | grep -q "libamdhip64.so.5 => /"' _ "$P"
lib=$(ldd "$P" | awk '/libamdhip64.so.5 =>/ {print $3}')
check "the real library exports hipDeviceCanAccessPeer@@hip_4.2" \
	bash -c 'objdump -T "$1" | grep -q "hip_4.2 *hipDeviceCanAccessPeer$"' _ "$(readlink -f "$lib")"

# The per-thread default stream copies we hook (hip_table.h) at the node the
# simulator gives them: hip_5.2 in 5.2.3 (the async 2D and 3D ones, hip_5.3,
# came later).
for f in hipMemcpy_spt hipMemcpyAsync_spt hipMemcpy2D_spt hipMemcpy3D_spt; do
	check "the real library exports $f@@hip_5.2" \
		bash -c 'objdump -T "$1" | grep -q "hip_5.2 *$2$"' _ "$(readlink -f "$lib")" "$f"
done
check "the real 5.2.3 library has no hipMemcpy2DAsync_spt (hip_5.3)" \
	bash -c '! objdump -T "$1" | grep -q " hipMemcpy2DAsync_spt$"' _ "$(readlink -f "$lib")"
# Without peerwatch, then under it: the program must see the same codes.
timeout 120 "$P" >"$WORK/plain.out" 2>"$WORK/plain.err"
rc=$?
check "runs without peerwatch (status $rc)" [ $rc -eq 0 ]
timeout 120 "$PW" -q -o "$WORK/trace" -- "$P" >"$WORK/out" 2>"$WORK/err"
rc=$?
check "runs under peerwatch (status $rc)" [ $rc -eq 0 ]
check "the program sees the same return codes with and without peerwatch" cmp -s "$WORK/plain.out" "$WORK/out"
f=$(ls "$WORK"/trace/*.pw.jsonl 2>/dev/null | head -1)
check "a trace was written" [ -n "$f" ]
[ -n "$f" ] || f=/dev/null

ncalls=$(grep -c '^CALL ' "$WORK/out")
check "the program made its calls ($ncalls)" [ "$ncalls" -ge 21 ]
# One top-level event per call, in order, with the program's own return code.
jq -r 'select(.type=="call" and (has("parent")|not)) | "CALL \(.api) \(.ret)"' "$f" >"$WORK/traced"
check "one event per call, each with the return code the program saw" diff -u <(grep '^CALL ' "$WORK/out") "$WORK/traced"
# Every referenced hooked function was reached through the versioned reference.
for ref in $refs; do
	api=${ref%@*}
	grep -q "^CALL $api " "$WORK/out" || continue
	check "$api (referenced as $ref) is in the trace" \
		jqt -s --arg a "$api" 'any(.[]; .type=="call" and .vendor=="hip" and .api==$a)' "$f"
done
check "every event is vendor hip with a hip* ret_name" \
	jqt -s '[.[] | select(.type=="call")] | all(.vendor=="hip" and (.ret_name|type=="string") and (.ret_name|startswith("hip")))' "$f"
check "the header names the real runtime library" \
	jqt -s 'any(.[]; .type=="header" and (.vendors.hip.library | test("libamdhip64.so.5")))' "$f"
check "the header's runtime_version is hipRuntimeGetVersion's answer" \
	jqt --argjson v "$(sed -n 's/.*hipRuntimeGetVersion -> 0 (\([0-9]*\)).*/\1/p' "$WORK/plain.err")" \
	-s 'any(.[]; .type=="header" and .vendors.hip.runtime_version == $v)' "$f"
check "the footer says the trace is complete" jqt -s 'any(.[]; .type=="footer" and .dropped == 0)' "$f"
echo "hip_real: the program's codes: $(awk '/^CALL/ {printf "%s=%s ", $2, $3}' "$WORK/out")"

echo "hip_real: $pass passed, $fail failed"
[ $fail -eq 0 ]

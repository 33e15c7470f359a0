#!/bin/bash
# Implicit cross-device copies on the simulated driver (tests/integration/implicit.c):
# recorded with "implicit": true, their devices and bytes, only when they cross
# devices; checked like peer copies.
#   tests/integration/implicit.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
P="$B/tests/implicit"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-implicit.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PWSIM_DEVICES=2
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# q FILTER: jq over the whole trace (slurped) must be true
q() { jq -e -s "$1" "$T" >/dev/null 2>&1; }

# run SCENARIO: the program under the launcher in warn mode; T names the trace.
run() {
	local d="$WORK/$1"
	mkdir -p "$d"
	if ! "$PW" -q -o "$d/trace" --mode warn -- "$P" "$1" >"$d/out" 2>"$d/err"; then
		bad "$1: the program failed: $(tail -2 "$d/err")"
		T=/dev/null
		return 1
	fi
	T=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null | head -1)
	OUT="$d/out"
	[ -n "$T" ] || { bad "$1: no trace was written"; return 1; }
}
rules() { jq -r 'select(.type=="violation") | .rule' "$T" | sort | tr '\n' ' '; }

if run copies; then
	n=$(sed -n 's/^recorded //p' "$OUT")
	m=$(sed -n 's/^unrecorded //p' "$OUT")
	got=$(jq -s '[.[] | select(.type=="call" and .implicit==true)] | length' "$T")
	check "copies: each of the $n cross-device copies is one implicit event (got $got)" [ "$got" = "$n" ]
	got=$(jq -s '[.[] | select(.type=="call" and .family=="copy")] | length' "$T")
	check "copies: none of the $m copies within a device or with the host is recorded (copy events: $got)" \
		[ "$got" = "$n" ]
	check "copies: the allocations are not recorded" \
		q 'all(.[]; .type!="call" or (.api | test("^cuMemAlloc(Pitch|Async|FromPoolAsync)?$") | not))'
	check "copies: cuMemcpy 0 -> 1, 4096 bytes" \
		q 'any(.[]; .api=="cuMemcpy" and .variant=="" and .implicit==true and .family=="copy"
			and .args.dst_dev==1 and .args.src_dev==0 and .args.bytes==4096 and .ret_name=="CUDA_SUCCESS")'
	check "copies: cuMemcpy_ptds" q 'any(.[]; .api=="cuMemcpy" and .variant=="_ptds" and .args.bytes==1000)'
	check "copies: cuMemcpyAsync with its stream" \
		q 'any(.[]; .api=="cuMemcpyAsync" and .variant=="" and .args.bytes==1024 and .args.dst_dev==1 and has("args") and (.args|has("stream")))'
	check "copies: cuMemcpyAsync_ptsz into cuMemAllocAsync memory on device 1" \
		q 'any(.[]; .api=="cuMemcpyAsync" and .variant=="_ptsz" and .args.dst_dev==1 and .args.src_dev==0 and .args.bytes==8192)'
	check "copies: cuMemcpyDtoD_v2 1 -> 0" \
		q 'any(.[]; .api=="cuMemcpyDtoD" and .variant=="_v2" and .args.dst_dev==0 and .args.src_dev==1 and .args.bytes==512)'
	check "copies: cuMemcpyDtoDAsync_v2_ptsz into cuMemAllocPitch memory" \
		q 'any(.[]; .api=="cuMemcpyDtoDAsync" and .variant=="_v2_ptsz" and .args.dst_dev==1 and .args.bytes==256)'
	check "copies: cuMemcpy2D_v2 and its async variant, 64 x 8 bytes" \
		q '[.[] | select(.api=="cuMemcpy2D" or .api=="cuMemcpy2DAsync") | select(.args.bytes==512 and .args.dst_dev==1 and .args.src_dev==0 and .args.dst_type=="device")] | length == 2'
	check "copies: cuMemcpy3D_v2 and cuMemcpy3DAsync_v2_ptsz, 32 x 4 x 2 bytes" \
		q '[.[] | select(.api=="cuMemcpy3D" or .api=="cuMemcpy3DAsync") | select(.args.bytes==256 and .args.dst_dev==1 and .args.src_dev==0 and .args.src_type=="unified")] | length == 2'
	check "copies: cuMemcpyBatchAsync_v2: count, total bytes, the crossing pair, every copy" \
		q 'any(.[]; .api=="cuMemcpyBatchAsync" and .variant=="_v2" and .implicit==true and .args.count==3
			and .args.bytes==600 and .args.dst_dev==1 and .args.src_dev==0 and (.args.copies|length)==3
			and .args.copies[0].dst_dev==0 and .args.copies[1].bytes==200 and .args.copies[2].src_dev==null
			and .args.copies[2].src_type=="host" and (.args.copies[1]|has("src_type")|not))'
	check "copies: cuMemcpyBatchAsync (the 12.8 ABI with failIdx)" \
		q 'any(.[]; .api=="cuMemcpyBatchAsync" and .variant=="" and .args.count==3 and .args.bytes==600)'
	check "copies: cuMemcpy3DBatchAsync_v2 1 -> 0" \
		q 'any(.[]; .api=="cuMemcpy3DBatchAsync" and .variant=="_v2" and .args.count==1 and .args.bytes==256 and .args.dst_dev==0 and .args.src_dev==1)'
	check "copies: peer access on both ways: no finding (got: $(rules))" [ -z "$(rules)" ]
fi

if run nopeer; then
	check "nopeer: the copy is recorded as implicit" q 'any(.[]; .api=="cuMemcpy" and .implicit==true)'
	check "nopeer: copy.peer.no-peer-access, once (got: $(rules))" [ "$(rules)" = "copy.peer.no-peer-access " ]
	check "nopeer: the finding names the implicit copy" \
		q 'any(.[]; .type=="violation" and .rule=="copy.peer.no-peer-access" and (.message|test("cuMemcpy copies 4096 bytes from device 0 to device 1")))'
fi
if run peer; then
	check "peer: with peer access on, no finding (got: $(rules))" [ -z "$(rules)" ]
fi
if run oob; then
	check "oob: copy.peer.out-of-bounds on cuMemcpyDtoD (got: $(rules))" [ "$(rules)" = "copy.peer.out-of-bounds " ]
	check "oob: the failed copy is recorded with the driver's answer" \
		q 'any(.[]; .api=="cuMemcpyDtoD" and .implicit==true and .ret_name=="CUDA_ERROR_INVALID_VALUE")'
fi

echo "implicit: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/bash
# HIP under peerwatch.
#  1. the REAL runtime (Debian's ROCm 5.2.3), when installed: hip_real.sh;
#  2. the simulated runtime (tests/sim/hip_*): the documents' own sequences
#     (the HIP peer document peer calls, the HIP IPC document IPC in two processes, the HIP managed-memory document managed
#     memory) done right leave no finding, reached through linked symbols,
#     dlsym and hipGetProcAddress; each documented mistake leaves exactly
#     its one finding and the near miss none; the IPC-flags version skew
#     (0 is right on a 5.x runtime, wrong on 6.x) is explained.
#   tests/integration/rules_hip.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
PW="$B/bin/peerwatch"
V="$B/tests/hip_violations"
C="$B/tests/hip_calls"
CL="$B/tests/hip_calls-linked"

real_rc=0
timeout 600 "$here/hip_real.sh" "$B" || real_rc=1

# The simulated runtime's three builds (.so.5, .so.6, .so.7), wherever sim.mk puts them.
simlib() { # MAJOR
	local v="HIPSIM$1"
	if [ -n "${!v:-}" ]; then echo "${!v}"; return; fi
	find "$B/sim" -name "libamdhip64.so.$1" \( -type f -o -type l \) 2>/dev/null | sort | head -1
}
S5=$(simlib 5)
S6=$(simlib 6)
S7=$(simlib 7)
if [ ! -x "$V" ] || [ -z "$S6" ]; then
	if ls "$here"/../sim/hip_sim*.c >/dev/null 2>&1; then
		echo "not ok - rules_hip: the simulated HIP runtime is in the tree but not built" \
			"(hip_violations: $([ -x "$V" ] && echo yes || echo no), libamdhip64.so.6: ${S6:-none})"
		exit 1
	fi
	echo "skip - rules_hip: no simulated HIP runtime in this tree (tests/sim/hip_*)"
	exit $real_rc
fi
export LD_LIBRARY_PATH="$(dirname "$S6")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-rules-hip.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/words.sh"
export PEERWATCH_RUN_ID="rules-hip-test-$$"

jqt() { jq -e "$@" >/dev/null 2>&1; }
found() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule'; }
calls() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="call" and .vendor=="hip") | .api' | sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' '; }
has_api() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jqt -s --arg a "$2" 'any(.[]; .type=="call" and .api==$a)'; }

env_for() {
	case $1 in
	peer.enable.unsupported | ipc.open.unreachable) echo "PWSIM_PEERS=none" ;;
	peer.limit) echo "PWSIM_DEVICES=10" ;;
	*) echo "PWSIM_DEVICES=2" ;;
	esac
}

# --- the documents' sequences, done right --------------------------------------------
# seq NAME LIB PROGRAM ARGS...: runs under warn mode; no finding expected.
seq_clean() {
	local name=$1 lib=$2
	shift 2
	local d="$WORK/seq-$name"
	mkdir -p "$d"
	if ! env PWSIM_DEVICES=2 PW_HIP_LIB="$lib" "$PW" -q -o "$d/trace" --mode warn -- "$@" >"$d/out" 2>"$d/err"; then
		bad "$name: the program failed: $(tail -2 "$d/err")"
		return 1
	fi
	local got
	got=$(found "$d" | tr '\n' ' ')
	check "$name: done right, no finding (got: ${got:-none})" [ -z "$got" ]
	return 0
}
want_apis() { # DIR NAME API...
	local d=$1 name=$2
	shift 2
	local missing=
	for a in "$@"; do has_api "$d" "$a" || missing="$missing $a"; done
	check "$name: every call is traced (missing:${missing:- none}; seen: $(calls "$d"))" [ -z "$missing" ]
}
PEER_APIS="hipDeviceCanAccessPeer hipDeviceGetP2PAttribute hipDeviceEnablePeerAccess hipMemcpyPeer hipMemcpyPeerAsync hipDeviceDisablePeerAccess hipFree"
IPC_APIS="hipIpcGetMemHandle hipIpcGetEventHandle hipIpcOpenEventHandle hipIpcOpenMemHandle hipIpcCloseMemHandle hipFree"
MANAGED_APIS="hipDeviceGetAttribute hipMallocManaged hipMemAdvise hipMemPrefetchAsync hipMemRangeGetAttribute hipMemRangeGetAttributes hipStreamAttachMemAsync hipFree"

for how in dlsym linked getproc; do
	for s in peer ipc managed; do
		case $how in
		dlsym) prog=("$C" "$s") lib=$S6 ;;
		linked) prog=("$CL" "$s") lib=$S6 ;;
		getproc) prog=("$C" --getproc "$s") lib=$S6 ;;
		esac
		name="seed $s ($how, .so.6)"
		seq_clean "$s-$how" "$lib" "${prog[@]}" || continue
		case $s in
		peer) want_apis "$WORK/seq-$s-$how" "$name" $PEER_APIS ;;
		ipc) want_apis "$WORK/seq-$s-$how" "$name" $IPC_APIS ;;
		managed) want_apis "$WORK/seq-$s-$how" "$name" $MANAGED_APIS ;;
		esac
	done
done
# the same sequences on the 5.x and 7.x builds, through dlsym
for major in 5 7; do
	lib=$(simlib $major)
	[ -n "$lib" ] || { bad "the simulated .so.$major build is missing"; continue; }
	for s in peer ipc managed; do
		seq_clean "$s-so$major" "$lib" "$C" "$s" || continue
		case $s in
		peer) want_apis "$WORK/seq-$s-so$major" "seed $s (.so.$major)" $PEER_APIS ;;
		ipc) want_apis "$WORK/seq-$s-so$major" "seed $s (.so.$major)" $IPC_APIS ;;
		managed) want_apis "$WORK/seq-$s-so$major" "seed $s (.so.$major)" $MANAGED_APIS ;;
		esac
	done
done
# virtual memory shared with a child process (ROCm 5.2 and later): every call
# traced on each build, and the analyzer pairs the export with the import by
# the file of the shareable handle, as it does CUDA's
VMM_APIS="hipMemCreate hipMemMap hipMemSetAccess hipMemRetainAllocationHandle hipMemExportToShareableHandle hipMemImportFromShareableHandle hipMemUnmap hipMemRelease"
for major in 5 6 7; do
	lib=$(simlib $major)
	[ -n "$lib" ] || continue
	seq_clean "vmm-so$major" "$lib" "$C" vmm || continue
	want_apis "$WORK/seq-vmm-so$major" "virtual memory (.so.$major)" $VMM_APIS
	check "virtual memory (.so.$major): hipMemCreate's properties read in this version's layout (dev 0, posix_fd)" \
		jqt -s 'any(.[]; .type=="call" and .api=="hipMemCreate" and .args.dev==0 and .args.handle_types==["posix_fd"])' "$WORK/seq-vmm-so$major"/trace/*.pw.jsonl
done
if seq_clean "vmm-getproc" "$S6" "$CL" --getproc vmm; then
	want_apis "$WORK/seq-vmm-getproc" "virtual memory (linked, hipGetProcAddress)" $VMM_APIS
	check "virtual memory: peerwatch-analyze ipc pairs the export with the import in the other process" \
		bash -c '"$1/bin/peerwatch-analyze" ipc --json "$2" | jq -e "[.shared[] | select(.kind==\"vmm\" and (.exporters|length)==1 and (.importers|length)==1 and .exporters[0].pid != .importers[0].pid)] | length == 1" >/dev/null' _ "$B" "$WORK/seq-vmm-getproc/trace"
fi
if [ -n "$S7" ] && seq_clean "managed-v2" "$S7" "$C" --getproc managed; then
	want_apis "$WORK/seq-managed-v2" "ROCm 7.1 _v2 calls through hipGetProcAddress" hipMemAdvise hipMemPrefetchAsync
	check "ROCm 7.1: hipMemAdvise_v2 and hipMemPrefetchAsync_v2 recorded as variant _v2" \
		jqt -s '[.[] | select(.type=="call" and .variant=="_v2") | .api] | sort == ["hipMemAdvise","hipMemPrefetchAsync"]' "$WORK"/seq-managed-v2/trace/*.pw.jsonl
fi
# hipMemcpy2D and hipMemcpy3D between the two devices (every build): implicit
# copies with both devices and the box's bytes
if seq_clean "peer-2d3d" "$S6" "$C" peer; then
	check "hipMemcpy2D between devices: one implicit copy, its devices, pitches and bytes" \
		jqt -s '[.[] | select(.type=="call" and .api=="hipMemcpy2D")] | length==1 and .[0].implicit==true and .[0].args.dst_dev==1 and .[0].args.src_dev==0 and .[0].args.dpitch==512 and .[0].args.width==128 and .[0].args.height==8' "$WORK"/seq-peer-2d3d/trace/*.pw.jsonl
	check "hipMemcpy3D between devices: one implicit copy, its devices and the box's bytes" \
		jqt -s '[.[] | select(.type=="call" and .api=="hipMemcpy3D")] | length==1 and .[0].implicit==true and .[0].args.dst_dev==1 and .[0].args.src_dev==0 and .[0].args.bytes==512 and .[0].args.kind==3' "$WORK"/seq-peer-2d3d/trace/*.pw.jsonl
fi
# ROCm 7.2's batch prefetch (the .so.7 build: hip_7.2): each range with its
# location's device, and the total
if [ -n "$S7" ] && seq_clean "managed-batch72" "$S7" "$C" --getproc managed; then
	check "ROCm 7.2: hipMemPrefetchBatchAsync records its ranges, each with its location's device" \
		jqt -s 'any(.[]; .type=="call" and .api=="hipMemPrefetchBatchAsync" and .family=="managed" and .args.count==2 and ([.args.ranges[].dev]==[1,-1]) and .args.bytes==.args.ranges[0].bytes*2 and .args.flags==0)' "$WORK"/seq-managed-batch72/trace/*.pw.jsonl
fi
# ROCm 7.1's copies between devices (the .so.7 build: hip_7.1), through
# hipGetProcAddress: the 3D peer copies name both devices, each batch is
# recorded once, as an implicit copy, for its one copy between devices
if [ -n "$S7" ] && seq_clean "peer-copies71" "$S7" "$C" --getproc peer; then
	want_apis "$WORK/seq-peer-copies71" "ROCm 7.1 copies" hipMemcpy3DPeer hipMemcpy3DPeerAsync hipMemcpyBatchAsync \
		hipMemcpy3DBatchAsync
	check "ROCm 7.1: hipMemcpy3DBatchAsync is one implicit copy: the box's bytes to device 1, a row to the host" \
		jqt -s '[.[] | select(.type=="call" and .api=="hipMemcpy3DBatchAsync")] | length==1 and .[0].implicit==true and .[0].op=="implicit_copy" and .[0].args.count==2 and .[0].args.bytes==80 and .[0].args.src_dev==0 and .[0].args.dst_dev==1 and ([.[0].args.copies[].bytes]==[64,16]) and (.[0].args.copies[1].dst_type=="host")' "$WORK"/seq-peer-copies71/trace/*.pw.jsonl
	check "ROCm 7.1: hipMemcpy3DPeer names both devices and the box's bytes" \
		jqt -s 'any(.[]; .type=="call" and .api=="hipMemcpy3DPeer" and .op=="peer_copy" and .args.src_dev==0 and .args.src_device==0 and .args.dst_dev==1 and .args.dst_device==1 and .args.bytes==1024)' "$WORK"/seq-peer-copies71/trace/*.pw.jsonl
	check "ROCm 7.1: hipMemcpyBatchAsync is one implicit copy, with its count, bytes and the crossing pair" \
		jqt -s '[.[] | select(.type=="call" and .api=="hipMemcpyBatchAsync")] | length==1 and .[0].implicit==true and .[0].op=="implicit_copy" and .[0].args.count==2 and .[0].args.bytes==4352 and .[0].args.src_dev==0 and .[0].args.dst_dev==1 and (.[0].args.copies[1].dst_type=="host")' "$WORK"/seq-peer-copies71/trace/*.pw.jsonl
fi
# hipGetProcAddress's pointers go through peerwatch: each call of the
# sequence is one event, and the program never sees the runtime's own address.
d="$WORK/seq-peer-getproc"
check "hipGetProcAddress: the pointers it handed out were traced (one event per call)" \
	jqt -s '[.[] | select(.type=="call" and .api=="hipDeviceCanAccessPeer")] | length == 2' "$d"/trace/*.pw.jsonl
check "hipGetProcAddress: no event for hipGetProcAddress itself" \
	jqt -s 'all(.[]; .api != "hipGetProcAddress")' "$d"/trace/*.pw.jsonl
d="$WORK/gp5"
mkdir -p "$d"
[ -z "$S5" ] || {
	env PW_HIP_LIB="$S5" "$PW" -q -o "$d/trace" -- "$C" --getproc peer >"$d/out" 2>"$d/err"
	check "hipGetProcAddress on a 5.x runtime: absent, as in ROCm < 6.2 (status 3, got $?)" [ $? -eq 3 ]
}

# hipDeviceReset drops the device's peer access: enabling again is no second enable.
if seq_clean reset "$S6" "$C" reset; then
	check "hipDeviceReset: recorded, family support, with cur_dev 0" \
		jqt -s 'any(.[]; .type=="call" and .api=="hipDeviceReset" and .family=="support" and .cur_dev==0 and .ret==0)' "$WORK"/seq-reset/trace/*.pw.jsonl
fi

# --- the trace's shape (the contract in PLAN.md) ------------------------------------
if seq_clean all "$S6" "$C" all; then
	f=$(ls "$WORK"/seq-all/trace/*.pw.jsonl | head -1)
	check "header: vendors.hip names the library and its runtime version" \
		jqt -s 'any(.[]; .type=="header" and (.vendors.hip.library|test("libamdhip64")) and (.vendors.hip.runtime_version|type=="number") and .vendors.hip.runtime_version >= 60000000)' "$f"
	check "hipDeviceEnablePeerAccess: cur_dev top-level, args peer_dev and flags" \
		jqt -s 'any(.[]; .api=="hipDeviceEnablePeerAccess" and .cur_dev==0 and .args.peer_dev==1 and .args.flags==0 and .ret_name=="hipSuccess" and .vendor=="hip" and .family=="peer")' "$f"
	check "hipDeviceCanAccessPeer: args can_access, dev, peer_dev" \
		jqt -s 'any(.[]; .api=="hipDeviceCanAccessPeer" and .args.can_access==1 and .args.dev==0 and .args.peer_dev==1)' "$f"
	check "hipMemcpyPeer: dst, dst_dev, dst_device, src, src_dev, src_device, bytes" \
		jqt -s 'any(.[]; .api=="hipMemcpyPeer" and .family=="copy" and .args.dst_dev==1 and .args.dst_device==1 and .args.src_dev==0 and .args.src_device==0 and .args.bytes==1048576 and (.args.dst|startswith("0x")))' "$f"
	check "hipMemAdvise: HIP advice names" \
		jqt -s 'any(.[]; .api=="hipMemAdvise" and .args.advice_name=="hipMemAdviseSetReadMostly")' "$f"
	check "hipMallocManaged: ptr, bytes, flags named hipMemAttachGlobal" \
		jqt -s 'any(.[]; .api=="hipMallocManaged" and (.args.ptr|startswith("0x")) and .args.bytes==65536 and .args.flags_names=="hipMemAttachGlobal")' "$f"
	check "hipMemRangeGetAttributes: attribute names" \
		jqt -s 'any(.[]; .api=="hipMemRangeGetAttributes" and .args.attrs[0]=="hipMemRangeAttributePreferredLocation")' "$f"
	check "hipCtxEnablePeerAccess(device 1's context) from device 0: peer_ctx_dev and peer_dev 1, cur_dev 0" \
		jqt -s 'any(.[]; .api=="hipCtxEnablePeerAccess" and .ret==0 and .cur_dev==0 and .args.peer_ctx_dev==1 and .args.peer_dev==1)' "$f"
	check "hipCtxDisablePeerAccess of it: no finding (the enable was recorded for 0 -> 1)" \
		jqt -s 'any(.[]; .api=="hipCtxDisablePeerAccess" and .ret==0 and .args.peer_dev==1)' "$f"
	check "hipCtxEnablePeerAccess(NULL): recorded with its error's HIP name" \
		jqt -s 'any(.[]; .api=="hipCtxEnablePeerAccess" and .ret != 0 and (.ret_name|startswith("hipError")))' "$f"
	check "hipDeviceDisablePeerAccess after a reset: ret 0, no finding" \
		jqt -s '[.[] | select(.api=="hipDeviceDisablePeerAccess")] | length > 0 and all(.ret==0)' "$f"
fi

# --- the IPC flags across versions -----------------------------------------------------
skew() { # NAME LIB FLAGS
	local d="$WORK/skew-$1"
	mkdir -p "$d"
	env PWSIM_DEVICES=2 PW_HIP_LIB="$2" "$PW" -q -o "$d/trace" --mode warn -- "$C" skew "$3" >"$d/out" 2>"$d/err"
}
skew six0 "$S6" 0
got=$(found "$WORK/skew-six0" | tr '\n' ' ')
check "skew: flags 0 (a 5.x build) on the .so.6 runtime: exactly ipc.open.flags (got: ${got:-none})" [ "$got" = "ipc.open.flags " ]
check "skew: the finding explains the version skew" \
	bash -c 'cat "$1"/trace/*.pw.jsonl | jq -r "select(.type==\"violation\") | .message" | grep -q "version skew: hipIpcMemLazyEnablePeerAccess was 0 before ROCm 6.0"' _ "$WORK/skew-six0"
check "skew: the runtime rejects it (hipErrorInvalidValue in the trace)" \
	bash -c 'cat "$1"/trace/*.pw.jsonl | jq -e -s "any(.[]; .api==\"hipIpcOpenMemHandle\" and .ret==1 and .ret_name==\"hipErrorInvalidValue\")" >/dev/null' _ "$WORK/skew-six0"
if [ -n "$S5" ]; then
	skew five0 "$S5" 0
	got=$(found "$WORK/skew-five0" | tr '\n' ' ')
	check "skew: flags 0 on the .so.5 runtime is right: no finding (got: ${got:-none})" [ -z "$got" ]
	check "skew: ... and the open succeeds, its flags named hipIpcMemLazyEnablePeerAccess" \
		bash -c 'cat "$1"/trace/*.pw.jsonl | jq -e -s "any(.[]; .api==\"hipIpcOpenMemHandle\" and .ret==0 and .args.flags_names==\"hipIpcMemLazyEnablePeerAccess\")" >/dev/null' _ "$WORK/skew-five0"
	skew five1 "$S5" 1
	got=$(found "$WORK/skew-five1" | tr '\n' ' ')
	check "skew: flags 1 (a 6.x build) on the .so.5 runtime: ipc.open.flags, explained (got: ${got:-none})" \
		bash -c '[ "$2" = "ipc.open.flags " ] && cat "$1"/trace/*.pw.jsonl | jq -r "select(.type==\"violation\") | .message" | grep -q "is 1 only from ROCm 6.0"' _ "$WORK/skew-five1" "$got"
else
	bad "skew: the simulated .so.5 build is missing"
fi
skew six1 "$S6" 1
got=$(found "$WORK/skew-six1" | tr '\n' ' ')
check "skew: flags 1 on the .so.6 runtime is right: no finding (got: ${got:-none})" [ -z "$got" ]

# --- each documented mistake: exactly its finding; the near miss: none -------------------
# Where an allocation starts and ends peerwatch asks of hipMemGetAddressRange
# (exported by every real runtime: hip_4.2 in 5.2.3); a runtime without it
# leaves these rules nothing to compare with.
needs_range="copy.peer.out-of-bounds ipc.export.interior-pointer managed.advise.out-of-range managed.attach.length"
has_range=1
objdump -T "$S6" 2>/dev/null | grep -q " hipMemGetAddressRange$" || has_range=0
# The scenarios of the .so.6 build, then those only ROCm 7.1's _v2 calls
# make (hip_violations7, linked to the .so.7 build).
V7="$B/tests/hip_violations7"
pairs=$(for r in $("$V" list); do echo "$V:$r"; done)
if [ -x "$V7" ] && [ -n "$S7" ]; then
	pairs+=" $(LD_LIBRARY_PATH="$(dirname "$S7")" "$V7" list | grep -vxF -f <("$V" list) | sed "s|^|$V7:|")"
else
	bad "rules_hip: hip_violations7 or the .so.7 simulator is missing (the _v2 scenarios)"
fi
for pair in $pairs; do
	P=${pair%%:*} rule=${pair#*:}
	if [ $has_range -eq 0 ] && [[ " $needs_range " == *" $rule "* ]]; then
		echo "skip - $rule (HIP): the simulated runtime has no hipMemGetAddressRange, so allocation bounds are unknown"
		continue
	fi
	d="$WORK/$rule-bad"
	mkdir -p "$d"
	if ! env $(env_for "$rule") "$PW" -q -o "$d/trace" --mode warn -- "$P" "$rule" bad >"$d/out" 2>"$d/err"; then
		bad "$rule: the program failed: $(tail -2 "$d/err")"
		continue
	fi
	got=$(found "$d" | tr '\n' ' ')
	# RULE/CASE: another way to break RULE
	check "$rule (HIP): a program breaking it once gets exactly that finding (got: ${got:-none})" [ "$got" = "${rule%%/*} " ]
	check "$rule (HIP): the finding names a hip call" \
		bash -c 'cat "$1"/trace/*.pw.jsonl | jq -e -s "any(.[]; .type==\"violation\" and .vendor==\"hip\" and ((.api|startswith(\"hip\")) or .api==\"exit\"))" >/dev/null' _ "$d"
	words_own "$d" hip "$rule (HIP)"
	g="$WORK/$rule-good"
	mkdir -p "$g"
	if ! env $(env_for "$rule") "$PW" -q -o "$g/trace" --mode warn -- "$P" "$rule" good >"$g/out" 2>"$g/err"; then
		bad "$rule: the near miss failed: $(tail -2 "$g/err")"
		continue
	fi
	got=$(found "$g" | tr '\n' ' ')
	check "$rule (HIP): a program coming close gets no finding (got: ${got:-none})" [ -z "$got" ]
done

# ROCm 7.1's 3D batch (the scenario above): one implicit copy, its count,
# bytes, the crossing operation's devices and each operation's sides.
f=$(ls "$WORK"/copy.peer.no-peer-access/batch3d-bad/trace/*.pw.jsonl 2>/dev/null | head -1)
check "hipMemcpy3DBatchAsync: one implicit copy, with its count, bytes, the crossing pair and each operation" \
	jqt -s '[.[] | select(.type=="call" and .api=="hipMemcpy3DBatchAsync")] | length==1 and .[0].implicit==true and .[0].op=="implicit_copy" and .[0].family=="copy" and
		(.[0].args | .count==2 and .bytes==131072 and .src_dev==0 and .dst_dev==1 and .flags==0 and
			([.copies[] | [.src_dev, .dst_dev, .bytes]] == [[0,0,65536],[0,1,65536]]))' "${f:-/dev/null}"

# hipMemcpy / hipMemcpyDtoD between two devices are implicit peer copies
# (recorded only then), checked like peer copies.
for kind in bad good; do
	d="$WORK/implicit-$kind"
	mkdir -p "$d"
	if ! env PWSIM_DEVICES=2 "$PW" -q -o "$d/trace" --mode warn -- "$V" implicit "$kind" >"$d/out" 2>"$d/err"; then
		bad "implicit ($kind): the program failed: $(tail -2 "$d/err")"
		continue
	fi
	f=$(ls "$d"/trace/*.pw.jsonl | head -1)
	check "implicit ($kind): the two cross-device copies are recorded, implicit, with their devices; the others not" \
		jqt -s '[.[] | select(.type=="call" and .op=="implicit_copy")] | length==2 and all(.implicit==true and .family=="copy") and
			(.[0] | .api=="hipMemcpy" and .args.dst_dev==1 and .args.src_dev==0 and .args.bytes==1048576 and .args.kind==3) and
			(.[1] | .api=="hipMemcpyDtoD" and .args.dst_dev==0 and .args.src_dev==1)' "$f"
	got=$(found "$d" | tr '\n' ' ')
	if [ "$kind" = bad ]; then
		check "implicit (bad): each staged copy is copy.peer.no-peer-access (got: ${got:-none})" \
			[ "$got" = "copy.peer.no-peer-access copy.peer.no-peer-access " ]
	else
		check "implicit (good): with peer access on, no finding (got: ${got:-none})" [ -z "$got" ]
	fi
done

# The per-thread default stream forms (hipMemcpy_spt, ...): the same implicit
# copies, recorded under their own variant and checked alike.
for kind in bad good; do
	d="$WORK/implicit-spt-$kind"
	mkdir -p "$d"
	if ! env PWSIM_DEVICES=2 "$PW" -q -o "$d/trace" --mode warn -- "$V" implicit-spt "$kind" >"$d/out" 2>"$d/err"; then
		bad "implicit _spt ($kind): the program failed: $(tail -2 "$d/err")"
		continue
	fi
	f=$(ls "$d"/trace/*.pw.jsonl | head -1)
	check "implicit _spt ($kind): the four cross-device copies are recorded as their _spt variants, with their devices; the one within a device not" \
		jqt -s '[.[] | select(.type=="call" and .op=="implicit_copy")] | length==4 and all(.implicit==true and .variant=="_spt") and
			([.[].api] == ["hipMemcpy","hipMemcpyAsync","hipMemcpy2D","hipMemcpy3D"]) and
			(.[0].args.dst_dev==1 and .[0].args.src_dev==0 and .[0].args.bytes==1048576) and
			(.[1].args.dst_dev==0 and .[1].args.src_dev==1) and (.[3].args.bytes==512)' "$f"
	got=$(found "$d" | tr '\n' ' ')
	if [ "$kind" = bad ]; then
		check "implicit _spt (bad): each staged copy is copy.peer.no-peer-access (got: ${got:-none})" \
			[ "$got" = "copy.peer.no-peer-access copy.peer.no-peer-access copy.peer.no-peer-access copy.peer.no-peer-access " ]
	else
		check "implicit _spt (good): with peer access on, no finding (got: ${got:-none})" [ -z "$got" ]
	fi
done

# A runtime with clr's context stack (hipCtxPushCurrent / hipCtxPopCurrent,
# hip_ctxstack.so): asking a peer context's device must not change the
# thread's current device, nor what hipCtxEnablePeerAccess does.
X="$B/tests/hip_ctx"
XS="$B/tests/hip_ctxstack.so"
mkdir -p "$WORK/ctx"
if [ -x "$X" ] && [ -f "$XS" ]; then
	check "hip_ctx: passes with the context stack alone" \
		env PWSIM_DEVICES=2 LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$XS" "$X"
	check "hip_ctx: under peerwatch, hipCtx*PeerAccess still succeed and the current device stays 0" \
		env PWSIM_DEVICES=2 LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$XS" "$PW" -q -o "$WORK/ctx/trace" --mode warn -- "$X"
	check "hip_ctx: peer_ctx_dev is 1 and cur_dev 0" jqt -s \
		'[.[] | select(.type=="call" and .api=="hipCtxEnablePeerAccess")] | (length==1 and .[0].cur_dev==0 and .[0].args.peer_ctx_dev==1)' \
		"$WORK"/ctx/trace/*.pw.jsonl
else
	bad "hip_ctx: not built ($X, $XS)"
fi

# The layer's own failing queries (the address range of host memory) must not
# become the program's last error: ROCm 7 returns the last failing call from
# hipGetLastError (facts A8.6), which the .so.7 simulator models.
X="$B/tests/hip_lasterr"
if [ -x "$X" ]; then
	for lib in "$S5" "$S6" "$S7"; do
		check "hip_lasterr: plain, $(basename "$lib"): the program's calls succeed, no error pending" "$X" "$lib"
		for mode in observe warn; do
			check "hip_lasterr: $mode, $(basename "$lib"): peerwatch leaves no error of its own pending" \
				"$PW" -q -o "$WORK/lasterr-$mode" --mode "$mode" -- "$X" "$lib"
		done
	done
	# error.sticky: an error the program left behind, named where a getter
	# returns it after other calls (ROCm 7's last error: the .so.7 simulator)
	for sc in sticky sticky-peek sticky-clean; do
		d="$WORK/lasterr-$sc"
		mkdir -p "$d"
		if ! env PWSIM_DEVICES=2 "$PW" -q -o "$d/trace" --mode warn -- "$X" "$S7" "$sc" >"$d/out" 2>"$d/err"; then
			bad "hip_lasterr $sc: the program failed: $(tail -3 "$d/err")"
			continue
		fi
		cat "$d"/trace/*.pw.jsonl >"$d/all.jsonl"
	done
	E="$WORK/lasterr-sticky/all.jsonl"
	got=$(found "$WORK/lasterr-sticky" | tr '\n' ' ')
	check "hip_lasterr sticky: one finding, error.sticky (got: $got)" [ "$got" = "error.sticky " ]
	check "hip_lasterr sticky: it names the second hipFree, its seq and hipErrorInvalidValue" jqt -s '
		([.[] | select(.type=="call" and .api=="hipFree" and .ret==1)] | .[0].seq) as $s |
		[.[] | select(.type=="violation")] | length==1 and .[0].api=="hipGetLastError" and
		(.[0].message | startswith("hipGetLastError returned 1 (hipErrorInvalidValue), left by hipFree (call \($s)) on this thread; hipFree was called at "))' "$E"
	E="$WORK/lasterr-sticky-peek/all.jsonl"
	got=$(found "$WORK/lasterr-sticky-peek" | tr '\n' ' ')
	check "hip_lasterr sticky-peek: peer.enable.twice, then error.sticky twice (got: $got)" \
		[ "$got" = "peer.enable.twice error.sticky error.sticky " ]
	check "hip_lasterr sticky-peek: the peek and the get name the second enable in HIP's words" jqt -s '
		([.[] | select(.type=="call" and .api=="hipDeviceEnablePeerAccess")][1].seq) as $s |
		[.[] | select(.type=="violation" and .rule=="error.sticky")] |
		(.[0].api=="hipPeekAtLastError") and (.[1].api=="hipGetLastError") and
		all(.[]; .message | contains("returned 704 (hipErrorPeerAccessAlreadyEnabled), left by hipDeviceEnablePeerAccess (call \($s)) on this thread"))' "$E"
	check "hip_lasterr sticky-peek: no CUDA word in the HIP report" \
		bash -c '! grep -qi "cuda" "$1"' _ "$WORK/lasterr-sticky-peek/err"
	got=$(found "$WORK/lasterr-sticky-clean" | tr '\n' ' ')
	check "hip_lasterr sticky-clean: the error cleared right after its call, no finding (got: ${got:-none})" [ -z "$got" ]
else
	bad "hip_lasterr: not built ($X)"
fi

# A copy from an IPC mapping: the runtime reports it on the importing device
# (1), its memory is on the exporter's (0); hipMemcpyPeer may name either,
# not a third.
for sc in lazy-copy:2: lazy-copy-third:3:copy.peer.device-mismatch; do
	IFS=: read -r what n want <<<"$sc"
	d="$WORK/model-$what"
	mkdir -p "$d"
	if env PWSIM_DEVICES="$n" PWSIM_PEERS=all "$PW" -q -o "$d/trace" --mode warn -- "$V" model "$what" \
		>"$d/out" 2>"$d/err"; then
		got=$(found "$d" | tr '\n' ' ')
		check "$what: hipMemcpyPeer from the mapping, ${want:-no finding} (got: ${got:-none})" \
			[ "$got" = "${want:+$want }" ]
	else
		bad "$what: the program failed: $(tail -2 "$d/err")"
	fi
done

echo "rules_hip: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $real_rc -eq 0 ]

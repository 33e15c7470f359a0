#!/bin/bash
# The ACL document (the ACL inter-device transfer document) on the simulated libascendcl.so: its example in
# the right order leaves no finding, each documented mistake exactly its
# one; the events say what the trace contract says; the document's Python
# example (ctypes) is traced the same way as the C one.
#   tests/integration/rules_acl.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PW="$B/bin/peerwatch"
A="$B/tests/acl_doc"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-acl.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/words.sh"
export PEERWATCH_RUN_ID="acl-test-$$"

jqt() { jq -e "$@" >/dev/null 2>&1; }
found() { cat "$1"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule'; }
trace_of() { ls "$1"/trace/*.pw.jsonl 2>/dev/null | head -1; }

# run DIR ENV PROGRAM... under the launcher
run() {
	local dir=$1 envs=$2
	shift 2
	mkdir -p "$dir"
	env $envs "$PW" -q -o "$dir/trace" "$@" >"$dir/out" 2>"$dir/err"
}

# --- every scenario: exactly its finding ---------------------------------------
while read -r name rule envs; do
	d="$WORK/$name"
	if ! run "$d" "PWSIM_DEVICES=2 ${envs:-}" --mode warn -- "$A" "$name"; then
		bad "$name: the program failed: $(tail -2 "$d/err")"
		continue
	fi
	got=$(found "$d" | tr '\n' ' ')
	if [ "$rule" = "-" ]; then
		check "$name: no finding (got: ${got:-none})" [ -z "$got" ]
	else
		check "$name: exactly $rule (got: ${got:-none})" [ "$got" = "$rule " ]
		# the call's ACL name, or "exit" for what the process still held as it ended
		check "$name: reported on stderr in ACL terms" grep -qE "peerwatch: [a-z]*: $rule in (acl|exit$)" "$d/err"
		words_own "$d" acl "$name"
	fi
	check "$name: every event is an ACL one" \
		jqt -s 'all(.[] | select(.type=="call"); .vendor=="acl")' "$(trace_of "$d")"
done < <("$A" list)

# --- the example's events, as the trace contract says ----------------------------
f=$(trace_of "$WORK/example")
check "example: the header names the ACL library" \
	jqt '.type=="header" and (.vendors.acl.library | endswith("/libascendcl.so"))' <(head -1 "$f")
check "example: the calls in the document's order" \
	jqt -s '[.[] | select(.type=="call") | .api] == ["aclInit","aclrtSetDevice","aclrtDeviceCanAccessPeer",
	"aclrtDeviceEnablePeerAccess","aclrtMalloc","aclrtSetDevice","aclrtDeviceEnablePeerAccess","aclrtMalloc",
	"aclrtMemcpy","aclrtMemcpy","aclrtFree","aclrtFree","aclrtResetDevice","aclrtSetDevice","aclrtResetDevice",
	"aclFinalize"]' "$f"
check "example: all succeeded, with ACL names" \
	jqt -s 'all(.[] | select(.type=="call"); .ret==0 and .ret_name=="ACL_SUCCESS")' "$f"
check "example: enables carry cur_dev, peer_dev and flags (0 -> 1, then 1 -> 0)" \
	jqt -s '[.[] | select(.api=="aclrtDeviceEnablePeerAccess") | [.cur_dev, .args.peer_dev, .args.flags, .family]]
	== [[0,1,0,"peer"],[1,0,0,"peer"]]' "$f"
check "example: allocations carry their device and P2P policy" \
	jqt -s '[.[] | select(.api=="aclrtMalloc") | [.args.ptr_dev, .args.bytes, .args.policy, .args.p2p, .family]]
	== [[0,1024,"ACL_MEM_MALLOC_NORMAL_ONLY_P2P",true,"support"],[1,1024,"ACL_MEM_MALLOC_NORMAL_ONLY_P2P",true,"support"]]' "$f"
check "example: copies carry dst/src devices, bytes, dest_max and the kind" \
	jqt -s '[.[] | select(.api=="aclrtMemcpy") | [.family, .args.dst_dev, .args.src_dev, .args.bytes, .args.dest_max, .args.kind]]
	== [["copy",0,1,1024,1024,"ACL_MEMCPY_DEVICE_TO_DEVICE"],["copy",1,0,1024,1024,"ACL_MEMCPY_DEVICE_TO_DEVICE"]]' "$f"
check "example: the copies name the pointers the allocations returned" \
	jqt -s '[.[] | select(.api=="aclrtMalloc") | .args.ptr] as $p |
	[.[] | select(.api=="aclrtMemcpy") | [.args.dst, .args.src]] == [[$p[0],$p[1]],[$p[1],$p[0]]]' "$f"
check "example: set/reset name their device" \
	jqt -s '[.[] | select(.api=="aclrtSetDevice" or .api=="aclrtResetDevice") | .args.device] == [0,1,1,0,0]' "$f"
f=$(trace_of "$WORK/local-copies")
check "local copies: host sides are marked, devices known" \
	jqt -s '[.[] | select(.api=="aclrtMemcpy") | [.args.src_type, .args.dst_type, .args.dst_dev, .args.src_dev]]
	== [["host",null,0,null],[null,null,0,0],[null,"host",null,0]]' "$f"
f=$(trace_of "$WORK/flags")
check "flags: the runtime's FEATURE_UNSUPPORTED (200006) is recorded" \
	jqt -s 'any(.[]; .api=="aclrtDeviceEnablePeerAccess" and .ret==200006 and .ret_name=="ACL_ERROR_FEATURE_UNSUPPORTED" and .args.flags==1)' "$f"
f=$(trace_of "$WORK/self")
check "self: the runtime's INVALID_PARAM is recorded" \
	jqt -s 'any(.[]; .api=="aclrtDeviceEnablePeerAccess" and .ret_name=="ACL_ERROR_INVALID_PARAM")' "$f"
check "self-disable: the message names the current device, not a pair" \
	grep -q "aclrtDeviceDisablePeerAccess names the current device 1" "$WORK/disable-self/err"
check "copy from freed memory: the message says freed, not a host buffer" \
	grep -q "memory this process already freed" "$WORK/copy-freed/err"
f=$(trace_of "$WORK/async-host-to-host")
check "async host-to-host: the runtime's FEATURE_NOT_SUPPORT (207000) is recorded" \
	jqt -s 'any(.[]; .api=="aclrtMemcpyAsync" and .ret==207000)' "$f"
f=$(trace_of "$WORK/enable-no-device")
check "enable with no current device: the runtime's CONTEXT_NULL (107002) is recorded" \
	jqt -s 'any(.[]; .api=="aclrtDeviceEnablePeerAccess" and .ret==107002)' "$f"
check "no-enable: the message says neither direction" grep -q "enabled in neither direction" "$WORK/no-enable/err"
f=$(trace_of "$WORK/example-threads")
check "threads: each thread's enable has its own current device" \
	jqt -s '[.[] | select(.api=="aclrtDeviceEnablePeerAccess") | .cur_dev] == [0,1] and
	([.[] | select(.api=="aclrtDeviceEnablePeerAccess") | .tid] | unique | length) == 2' "$f"

# --- IPC memory by key: the two processes' events ---------------------------------
all=$(cat "$WORK/ipc-key"/trace/*.pw.jsonl 2>/dev/null)
check "ipc-key: two processes, each with its trace" [ "$(ls "$WORK/ipc-key"/trace/*.pw.jsonl | wc -l)" -eq 2 ]
check "ipc-key: the four calls, each of its op" \
	jqt -s '[.[] | select(.type=="call" and .family=="ipc") | [.api, .op]] | unique ==
	[["aclrtIpcMemClose","ipc_close"],["aclrtIpcMemGetExportKey","ipc_export"],
	["aclrtIpcMemImportByKey","ipc_open"],["aclrtIpcMemSetImportPid","ipc_import_pid"]]' <<<"$all"
check "ipc-key: one key, written by the export and named by every other call, as string and handle" \
	jqt -s '[.[] | select(.type=="call" and .family=="ipc") | [.args.key, .args.handle]] | unique | length == 1
	and (.[0][0] | type == "string")' <<<"$(jq -c 'select(.type=="call" and .family=="ipc")' <<<"$all")"
imp=$(grep -l aclrtIpcMemImportByKey "$WORK/ipc-key"/trace/*.pw.jsonl | head -1)
exp=$(grep -l aclrtIpcMemGetExportKey "$WORK/ipc-key"/trace/*.pw.jsonl | head -1)
check "ipc-key: the export records len 65 and flags 0" \
	jqt -s '[.[] | select(.api=="aclrtIpcMemGetExportKey") | [.args.len, .args.flags]] == [[65,0]]' "$exp"
ipid=$(head -1 "$imp" | jq .pid)
listed=$(jq -s '[.[] | select(.api=="aclrtIpcMemSetImportPid") | .args.pids[0]][0]' "$exp")
check "ipc-key: the import is in another process, the one the trust list names ($ipid, $listed)" \
	[ "$imp" != "$exp" -a "$ipid" = "$listed" ]

# --- shareable handles: the calls of the flow, one shareable handle -------------
all=$(cat "$WORK/vmm-share"/trace/*.pw.jsonl 2>/dev/null)
check "vmm-share: the calls of the flow, each of its op" \
	jqt -s '[.[] | select(.type=="call" and (.api | test("Mem|Physical|BareTgid"))) | [.api, .op]] | unique ==
	[["aclrtDeviceGetBareTgid","process_id"],["aclrtFreePhysical","vmm_release"],
	["aclrtMallocPhysical","vmm_create"],["aclrtMapMem","vmm_map"],
	["aclrtMemExportToShareableHandle","vmm_export"],["aclrtMemImportFromShareableHandle","vmm_import"],
	["aclrtMemSetPidToShareableHandle","ipc_import_pid"],["aclrtReleaseMemAddress","vmm_unreserve"],
	["aclrtReserveMemAddress","vmm_reserve"],["aclrtUnmapMem","vmm_unmap"]]' <<<"$all"
check "vmm-share: one shareable handle, written by the export and named by the trust list and the import" \
	jqt -s '[.[] | select(.type=="call" and .args.shareable != null) | .args.shareable] | unique | length == 1' \
	<<<"$all"
imp=$(grep -l aclrtMemImportFromShareableHandle "$WORK/vmm-share"/trace/*.pw.jsonl | head -1)
exp=$(grep -l aclrtMemExportToShareableHandle "$WORK/vmm-share"/trace/*.pw.jsonl | head -1)
ipid=$(head -1 "$imp" | jq .pid)
listed=$(jq -s '[.[] | select(.api=="aclrtMemSetPidToShareableHandle") | .args.pids[0]][0]' "$exp")
bare=$(jq -s '[.[] | select(.api=="aclrtDeviceGetBareTgid") | .args.pid][0]' "$imp")
check "vmm-share: the importer's bare tgid is the id the trust list names ($ipid, $listed, $bare)" \
	[ "$imp" != "$exp" -a "$ipid" = "$listed" -a "$bare" = "$ipid" ]
check "vmm-share: the physical allocation's device and size, each mapping its handle" \
	jqt -s '([.[] | select(.api=="aclrtMallocPhysical") | [.args.dev, .args.bytes]] == [[0,4096]]) and
	([.[] | select(.api=="aclrtMallocPhysical") | .args.handle] ==
	 [.[] | select(.api=="aclrtMapMem") | .args.handle])' "$exp"

# --- observe and enforce ----------------------------------------------------------
d="$WORK/observe"
run "$d" PWSIM_DEVICES=2 --mode observe -- "$A" one-direction
check "observe: the mistake runs, no finding" [ -z "$(found "$d")" ]
check "observe: still traced" jqt -s 'any(.[]; .api=="aclrtMemcpy")' "$(trace_of "$d")"
d="$WORK/enforce"
(run "$d" PWSIM_DEVICES=2 --mode enforce -- "$A" p2p-policy) 2>/dev/null
rc=$?
check "enforce: copy.acl.p2p-policy stops the program (status $rc)" [ $rc -eq 134 ]
check "enforce: the copy never ran" jqt -s 'any(.[]; .type=="call" and .api=="aclrtMemcpy") | not' "$(trace_of "$d")"

# --- the document's Python example, through ctypes --------------------------------
if ! command -v python3 >/dev/null 2>&1; then
	bad "python3 is missing (scripts/install-deps.sh installs it)"
else
	d="$WORK/python"
	run "$d" PWSIM_DEVICES=2 --mode warn -- python3 "$SRC/tests/integration/acl_example.py"
	check "python: the example runs under peerwatch (status $?)" [ -n "$(trace_of "$d")" ]
	check "python: no finding" [ -z "$(found "$d")" ]
	check "python: the header names the ACL library" \
		jqt '.vendors.acl.library | endswith("/libascendcl.so")' <(head -1 "$(trace_of "$d")")
	# Same events (apis, variants, families, return codes, current devices,
	# arguments with each pointer replaced by the order it first appeared in)
	# and the same findings as the C program's.
	check "python: traced the same way as the C example" python3 - "$(trace_of "$WORK/example")" "$(trace_of "$d")" <<'PY'
import json, sys

def norm(path):
    names, out = {}, []
    def ptr(v):
        return names.setdefault(v, "P%d" % len(names))
    for line in open(path):
        e = json.loads(line)
        if e["type"] == "call":
            args = {k: (ptr(v) if isinstance(v, str) and v.startswith("0x") else v) for k, v in e["args"].items()}
            out.append(["call", e["vendor"], e["api"], e["variant"], e["family"], e["ret"], e["ret_name"],
                        e.get("cur_dev"), args])
        elif e["type"] == "violation":
            out.append(["violation", e["rule"], e["api"]])
    return out

c, p = norm(sys.argv[1]), norm(sys.argv[2])
if c != p or not c:
    for a, b in zip(c, p):
        if a != b:
            print("C:      ", a, "\npython: ", b)
    print("C: %d events, python: %d" % (len(c), len(p)))
    sys.exit(1)
PY
	d="$WORK/python-bad"
	run "$d" "PWSIM_DEVICES=2 PWSIM_PEERS=none" --mode warn -- python3 "$SRC/tests/integration/acl_example.py"
	got=$(found "$d" | sort -u | tr '\n' ' ')
	check "python: without links, the enables are unsupported and the copies unenabled (got: ${got:-none})" \
		[ "$got" = "peer.enable.one-direction peer.enable.unsupported " ]
fi

# (the segment's name is a keyed hash of the run id: tests/fault/shmname.c)
check "registry: the shared segment is removed when the run's last process ends" \
	bash -c 'n=$("$2" "$1") && [ -n "$n" ] && [ ! -e "/dev/shm$n" ]' _ "$PEERWATCH_RUN_ID" "$B/tests/shmname"

echo "rules_acl: $pass passed, $fail failed"
[ $fail -eq 0 ]

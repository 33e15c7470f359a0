# Properties of peerwatch-analyze on the hand-written traces of
# tests/analyze/fixtures (HIP, ACL, the CUDA runtime layer with nested driver
# calls, implicit and batch copies, VMM and pool IPC), and malformed lines of
# the new kinds.  Sourced by run.sh after checks.sh (A, WORK, HERE, check,
# ok, bad, an, jqt, rc_is, err_has, out_has are set).

FIX="$HERE/fixtures"

# ---- matrix ---------------------------------------------------------------------

an matrix --json "$FIX"
cell() { # HOST VENDOR SRC DST: the pair's object
	jq -c --arg h "$1" --arg v "$2" --argjson s "$3" --argjson d "$4" \
		'.hosts[] | select(.host == $h and .vendor == $v) | .pairs[] | select(.src == $s and .dst == $d)' "$WORK/o.out"
}
check "matrix: a grid per host and vendor, never two vendors in one" \
	jqt '[.hosts[] | [.host, .vendor]] | (length == 4) and (unique | length == 4)' "$WORK/o.out"
check "matrix: aclrtMemcpy device to device counted, the host-to-device one not, the failed one failed" \
	bash -c "[ '$(cell nodeA acl 0 1 | jq -c '[.copies, .failed, .bytes]')' = '[2,1,1050624]' ] &&
		jq -e '[.hosts[] | select(.vendor == \"acl\") | .pairs[] | select(.src == \"host\" or .dst == 0)] | length == 0' '$WORK/o.out' >/dev/null"
check "matrix: aclrtResetDevice of the peer drops access: the later copy is staged" \
	bash -c "[ '$(cell nodeA acl 0 1 | jq -c '[.no_peer_copies, .peer_enables, .peer_on_at_end]')' = '[1,1,0]' ]"
check "matrix: hipMemcpyPeer after hipDeviceReset is staged, the ones before are not" \
	bash -c "[ '$(cell nodeA hip 0 1 | jq -c '[.copies, .no_peer_copies, .no_peer_bytes]')' = '[2,1,262144]' ] &&
		[ '$(cell nodeA hip 1 0 | jq -c '[.copies, .no_peer_copies]')' = '[1,0]' ]"
check "matrix: cudaMemcpyPeer counted once (its nested cuMemcpyPeer not), the orphan nested copy counted" \
	bash -c "[ '$(cell nodeA cuda 0 1 | jq -c '[.copies, .bytes]')' = '[5,1062864]' ]"
check "matrix: implicit copies and batch entries (each in its own pair, the unlisted rest in the call's)" \
	bash -c "[ '$(cell nodeA cuda 0 1 | jq -c '[.implicit_copies, .implicit_bytes, .batch_copies]')' = '[2,2000,2]' ] &&
		[ '$(cell nodeA cuda 1 0 | jq -c '[.copies, .implicit_copies, .batch_copies, .bytes]')' = '[2,2,1,66536]' ]"
check "matrix: cudaDevice{Enable,Disable}PeerAccess counted once, not again through cuCtx*" \
	bash -c "[ '$(cell nodeA cuda 0 1 | jq -c '[.peer_enables, .peer_disables, .no_peer_copies]')' = '[1,1,1]' ]"
check "matrix: an \"already enabled\" runtime error leaves access on at the end" \
	bash -c "[ '$(cell nodeA cuda 1 0 | jq -c '.peer_on_at_end')' = 1 ]"
check "matrix: cuMemSetAccess grants count as access (the implicit DtoD is not staged), per process" \
	bash -c "[ '$(cell nodeB cuda 0 1 | jq -c '[.access_grants, .peer_on_at_end, .implicit_copies, .no_peer_copies]')' = '[2,2,1,0]' ]"

# Lines of one file in any order (threads interleave; a nested call is
# written before its parent): the same result.
mkdir -p "$WORK/shuf"
cp -r "$FIX"/* "$WORK/shuf/"
for f in "$WORK"/shuf/*/*.pw.jsonl; do
	{ head -1 "$f"; sed '1d;$d' "$f" | tac; tail -1 "$f"; } >"$f.new" && mv "$f.new" "$f"
done
for cmd in matrix ipc managed; do
	"$A" $cmd --json "$FIX" | sed 's/shuf/fixtures/g' >"$WORK/s1"
	"$A" $cmd --json "$WORK/shuf" | sed "s|$WORK/shuf|$FIX|g" >"$WORK/s2"
	check "$cmd: the same result with every file's lines in reverse order" cmp -s "$WORK/s1" "$WORK/s2"
done
for cmd in summary matrix ipc managed check; do
	"$A" $cmd --json -j 1 "$FIX" >"$WORK/j1" 2>/dev/null
	"$A" $cmd --json -j 7 "$FIX" >"$WORK/j7" 2>/dev/null
	check "$cmd (fixtures): the same result with 1 and 7 workers" cmp -s "$WORK/j1" "$WORK/j7"
done

# ---- ipc ------------------------------------------------------------------------

an ipc --json "$FIX"
check "ipc: the HIP handle's life is export, open, free, close" \
	jqt '[.handles[] | select(.vendor == "hip")][0].life | map(.op) == ["export","open","free","close"]' "$WORK/o.out"
check "ipc: the runtime handle's life names the runtime calls only (the nested cuIpc*/cuMemFree are not in it)" \
	jqt '[.handles[] | select(.vendor == "cuda")][0].life | map(.api) ==
		["cudaIpcGetMemHandle","cudaIpcOpenMemHandle","cudaFree","cudaIpcCloseMemHandle"]' "$WORK/o.out"
check "ipc: free while open found for hipFree and, once, at the runtime level for cudaFree" \
	jqt '[.findings[] | select(.rule == "ipc.free-while-open") | .api] | sort == ["cudaFree","hipFree"]' "$WORK/o.out"
check "ipc: three shared allocations: a VMM one, a pool, a pool pointer" \
	jqt '[.shared[] | .kind] | sort == ["pool","pool pointer","vmm"]' "$WORK/o.out"
check "ipc: the VMM allocation's life across the two processes, in time order" \
	jqt '.shared[] | select(.kind == "vmm") | (.life | map(.op)) ==
		["create","export","map","access","import","map","access","unmap","release","unmap","release"]' "$WORK/o.out"
check "ipc: exporter and importer pids of the VMM allocation (the key: file_id)" \
	jqt '.shared[] | select(.kind == "vmm") | ([.exporters[].pid] == [44001]) and ([.importers[].pid] == [44002])
		and (.key | test("64769:1234"))' "$WORK/o.out"
check "ipc: a pool pointer: export, import, the importer's free, the exporter's free" \
	jqt '.shared[] | select(.kind == "pool pointer") | [.life[] | [.op, .process.pid]] ==
		[["export",44001],["import",44002],["free",44002],["free",44001]]' "$WORK/o.out"
check "ipc: a fabric pool: export, its set-access, the import" \
	jqt '.shared[] | select(.kind == "pool") | (.life | map(.op)) == ["export","access","import"]' "$WORK/o.out"

# ---- managed ----------------------------------------------------------------------

an managed --json "$FIX"
check "managed: cudaMallocManaged counted once (not again as its nested cuMemAllocManaged)" \
	jqt '[.allocations[] | select(.vendor == "cuda")] | length == 1 and .[0].free_seq == 15' "$WORK/o.out"
check "managed: the HIP allocation's history: hipMemAdvise, hipMemPrefetchAsync (to dev1), hipFree" \
	jqt '[.allocations[] | select(.vendor == "hip")][0].history | map(.api) == ["hipMemAdvise","hipMemPrefetchAsync","hipFree"]
		and .[1].what == "prefetch" and .[1].target == "dev1"' "$WORK/o.out"
check "managed: prefetch per vendor and destination, batch ranges each, the unlisted rest apart" \
	jqt '[.prefetch[] | [.vendor, .destination, .prefetches, .bytes]] == [["cuda","? (unlisted ranges)",1,1024],
		["cuda","dev0",1,1024],["cuda","dev1",2,1049600],["hip","dev1",1,2097152]]' "$WORK/o.out"
check "managed: cudaMemRangeGetAttribute and hipMemRangeGetAttribute are queries" jqt '.range_queries == 2' "$WORK/o.out"

# ---- summary, check, timeline, info ---------------------------------------------------

an summary --json "$FIX"
check "summary: runtime calls under their own names with their layer, nested driver calls counted apart" \
	jqt '(.calls[] | select(.api == "cudaMemcpyPeer") | .layer == "runtime" and .nested == 0) and
		(.calls[] | select(.api == "cuMemcpyPeer") | .layer == null and .nested == 2 and .count == 2) and
		.nested_total == 12' "$WORK/o.out"
check "summary: totals per vendor, top-level calls apart" \
	jqt '[.vendors[] | [.vendor, .calls, .top_level, .errors]] == [["acl",8,8,1],["cuda",49,37,2],["hip",16,16,1]]' "$WORK/o.out"
an check --json "$FIX"
check "check: the fixtures fail the gate (exit 1), each finding once" \
	bash -c "[ $rc = 1 ] && jq -e '[.findings[] | [.process.pid, .call, .rule]] | length == 3 and (unique | length == 3)' '$WORK/o.out' >/dev/null"
an timeline -o "$WORK/tlf.json" "$FIX"
check "timeline: every slice names its vendor; runtime slices their layer, nested ones their parent" \
	jqt '[.traceEvents[] | select(.ph == "X")] | all(.args.vendor | IN("cuda","hip","acl")) and
		any(.name == "cudaMemcpyPeer" and .args.layer == "runtime") and
		any(.name == "cuMemcpyPeer" and .args.parent == 4) and any(.args.implicit == true)' "$WORK/tlf.json"
an info --json "$FIX"
check "info: the header's vendors.hip and vendors.acl are read" \
	jqt '[.files[] | .vendors | keys[]] | unique == ["acl","cuda","hip"]' "$WORK/o.out"

# ---- malformed lines of the new kinds ------------------------------------------------------

d=$(case_dir)
hdr=$(head -1 "$FIX/hip/hipprog.41001.pw.jsonl")
call='{"type":"call","seq":SEQ,"tid":1,"vendor":"hip","api":"hipMemcpyPeer","variant":"","family":"copy","t_ns":5,"dur_ns":1,"ret":0,"ret_name":"hipSuccess"'
{
	echo "$hdr"
	echo "${call/SEQ/1},\"args\":{\"bytes\":4}}" | sed 's/"vendor":"hip"/"vendor":"opencl"/'
	echo "${call/SEQ/2},\"implicit\":\"yes\",\"args\":{}}"
	echo "${call/SEQ/3},\"layer\":7,\"args\":{}}"
	echo "${call/SEQ/4},\"args\":{\"copies\":[{\"dst_dev\":1,\"bytes\":-4}]}}"
	echo "${call/SEQ/5},\"args\":{\"access\":[{\"dev\":\"one\",\"flags\":\"readwrite\"}]}}"
	echo "${call/SEQ/6},\"args\":{\"copies\":{\"dst_dev\":1}}}"
	echo "${call/SEQ/7},\"args\":{\"ranges\":[{\"ptr\":\"nothex\",\"bytes\":4,\"dev\":0}]}}"
	echo "${call/SEQ/8},\"args\":{\"handle\":\"zz\"}}"
	echo "${call/SEQ/9},\"args\":{\"export_data\":\"xyz\"}}"
	echo "${call/SEQ/10},\"args\":{\"peer_dev\":\"1\"}}"
	echo "${call/SEQ/11},\"parent\":-3,\"args\":{}}"
	echo "${call/SEQ/12},\"args\":{\"handle\":\"0x11\",\"dst_dev\":1,\"src_dev\":0,\"bytes\":8}}"
	echo '{"type":"footer","events":12,"dropped":0,"t_end_ns":9,"reason":"exit"}'
} >"$d/new.pw.jsonl"
for cmd in summary matrix ipc managed timeline; do
	if [ $cmd = timeline ]; then an timeline -o "$WORK/tlm.json" "$d"; else an $cmd "$d"; fi
	check "malformed new members ($cmd): read on, exit 0, never a crash" rc_is 0
done
an check "$d"
check "malformed new members (check): read on, but the gate fails on damaged input (exit 3)" rc_is 3
an summary --json "$d"
check "unknown vendor: named with file:line" err_has 'new.pw.jsonl:2: call seq 1: vendor "opencl" is not one this reader knows (cuda, hip, acl)'
check "implicit not a boolean" err_has 'new.pw.jsonl:3: call seq 2: "implicit" must be a boolean, not a string'
check "layer not a string" err_has 'new.pw.jsonl:4: call seq 3: "layer" must be a string or null'
check "a batch entry with negative bytes" err_has 'new.pw.jsonl:5: call seq 4: "args.copies\[0\].bytes" must be a non-negative integer'
check "a grant without a device ordinal" err_has 'new.pw.jsonl:6: call seq 5: "args.access\[0\].dev" must be a device ordinal'
check "copies not an array" err_has 'new.pw.jsonl:7: call seq 6: "args.copies" must be an array of objects, not an object'
check "a range whose pointer is not hex" err_has 'new.pw.jsonl:8: call seq 7: "args.ranges\[0\].ptr" is not a 64-bit hex value'
check "a handle neither IPC bytes nor a 64-bit value" err_has 'new.pw.jsonl:9: call seq 8: "args.handle" must be 128 hex digits or a hex string'
check "export_data not hex" err_has 'new.pw.jsonl:10: call seq 9: "args.export_data" must be 128 hex digits'
check "a peer device that is not an ordinal" err_has 'new.pw.jsonl:11: call seq 10: "args.peer_dev" must be a device ordinal or null'
check "the good line is read (a VMM handle value is a handle)" jqt '.calls_total == 1' "$WORK/o.out"
an summary --strict "$d"
check "malformed new members with --strict: exit 2" rc_is 2
# a folded call's flag (the summary leaves its times out: it must be a boolean)
d=$(case_dir)
{
	echo "$hdr"
	echo "${call/SEQ/1},\"parent\":1,\"parent_time\":1,\"args\":{}}"
	echo '{"type":"footer","events":1,"dropped":0,"t_end_ns":9,"reason":"exit"}'
} >"$d/pt.pw.jsonl"
an summary --json "$d"
check "parent_time not a boolean" err_has 'pt.pw.jsonl:2: call seq 1: "parent_time" must be a boolean, not an integer'

d=$(case_dir)
{
	echo "$hdr" | sed 's/"runtime_version":60241134/"runtime_version":[6]/'
	tail -n +2 "$FIX/hip/hipprog.41001.pw.jsonl"
} >"$d/hv.pw.jsonl"
{
	echo "$hdr" | sed 's/"hip":{[^}]*}/"hip":"libamdhip64"/'
	tail -n +2 "$FIX/hip/hipprog.41001.pw.jsonl"
} >"$d/hs.pw.jsonl"
{
	echo "$hdr" | sed 's/"hip":{/"level0":{"x":[1]},"hip":{/'
	tail -n +2 "$FIX/hip/hipprog.41001.pw.jsonl"
} >"$d/other.pw.jsonl"
an info --json "$d"
check "header: vendors.hip.runtime_version of a wrong type is named" \
	err_has 'hv.pw.jsonl: line 1: "vendors.hip.runtime_version" must be an integer, a string or null, not an array'
check "header: vendors.hip not an object is named" err_has 'hs.pw.jsonl: line 1: "vendors.hip" must be an object, not a string'
check "header: a vendor this reader does not know is kept, the file read" \
	jqt '[.files[] | select(.file | endswith("other.pw.jsonl")) | .calls] == [14]' "$WORK/o.out"
check "header errors: exit 2 (a file that could not be read)" rc_is 2

# ---- VMM: a file_id that names no one allocation (the real driver's fds) -------------------

d=$(case_dir)
cp "$FIX"/vmm/*.pw.jsonl "$d/"
sed -i 's/"file_id":"64769:1234"/"file_id":"0:5","file_id_unique":false/' "$d"/*.pw.jsonl
sed -i 's/"access":\[{"dev":0,"flags":"readwrite"},{"dev":1,"flags":"readwrite"}\]/"access":[{"dev":-1,"type":"host","flags":"readwrite"}]/' \
	"$d"/vmmprog.44001.pw.jsonl
an ipc --json "$d"
check "vmm: a file_id that is not unique pairs nothing: each process's chain apart" \
	jqt '[.shared[] | select(.kind == "vmm") | [([.exporters[].pid]), ([.importers[].pid]), (.life | length)]] ==
		[[[44001],[],6],[[],[44002],5]]' "$WORK/o.out"
an matrix --json "$d"
check "matrix: a grant to the host is not peer access (the exporter's DtoD is staged)" \
	jqt '.hosts[0].pairs[] | select(.src == 0 and .dst == 1) | .access_grants == 1 and .no_peer_copies == 1' "$WORK/o.out"

# What the VMM preload writes when it knows no name or no file: a handle type
# as its number, file_id null, a null pool, a null export_data.
d=$(case_dir)
cp "$FIX"/vmm/vmmprog.44001.pw.jsonl "$d/"
sed -i -e 's/"handle_type":"posix_fd","shareable":7,"file_id":"64769:1234"/"handle_type":1,"shareable":7,"file_id":null/' \
	-e 's/"export_data":"[0-9a-f]*"/"export_data":null/' "$d/vmmprog.44001.pw.jsonl"
echo '{"type":"call","seq":12,"tid":2,"vendor":"cuda","api":"cuMemPoolImportFromShareableHandle","variant":"","family":"ipc","t_ns":96000,"dur_ns":5,"ret":1,"ret_name":"CUDA_ERROR_INVALID_VALUE","args":{"pool":null,"handle_type":8,"shareable":"00"}}' |
	sed -i '$e cat' "$d/vmmprog.44001.pw.jsonl"
an ipc --json "$d"
check "vmm: a handle type as a number, a null file_id, pool or export_data are read (no bad line)" \
	bash -c "[ $rc = 0 ] && ! [ -s '$WORK/o.err' ] && jq -e '[.shared[].kind] | sort == [\"pool\"]' '$WORK/o.out' >/dev/null"

# ---- nesting: a "seq" inside args is not the call's -----------------------------------------
# The nesting scan reads a call's seq without parsing the line; a line whose
# args hold a "seq" before the top-level one must not make the copy whose
# parent (3) is not in the trace count as nested (and vanish from the matrix).
d=$(case_dir)
{
	head -1 "$FIX/vmm/vmmprog.44001.pw.jsonl"
	echo '{"type":"call","args":{"seq":3,"dst":"0x10","dst_dev":1,"src":"0x20","src_dev":0,"bytes":100},"seq":9,"tid":1,"vendor":"cuda","api":"cudaMemcpyPeer","variant":"","family":"copy","layer":"runtime","t_ns":1,"dur_ns":1,"ret":0,"ret_name":"cudaSuccess"}'
	echo '{"type":"call","seq":10,"parent":3,"tid":1,"vendor":"cuda","api":"cuMemcpyPeer","variant":"","family":"copy","t_ns":2,"dur_ns":1,"ret":0,"ret_name":"CUDA_SUCCESS","args":{"dst":"0x10","dst_dev":1,"src":"0x20","src_dev":0,"bytes":1000}}'
	echo '{"type":"footer","events":2,"dropped":0,"t_end_ns":9,"reason":"exit"}'
} >"$d/seq.pw.jsonl"
an matrix --json "$d"
check "nesting: an args.seq before the call's seq does not hide an orphan nested copy" \
	jqt '.hosts[0].pairs[] | select(.src == 0 and .dst == 1) | [.copies, .bytes] == [2, 1100]' "$WORK/o.out"

# ---- ACL's V2 shareable handles: fabric handles cross hosts, the default one does not ----------
# A real run of acl_doc vmm-share-v2 (export, trust list, import by the V2
# forms, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT), its importer's trace moved to
# another host: a DEFAULT handle is a number of one host, so the import no
# longer matches the export; the same calls with FABRIC handles (across AI
# Servers) still do, by the handle's digest.
v2=$(case_dir)
traced "$v2/run" -- "$B/tests/acl_doc" vmm-share-v2 2>"$v2/run.err" || bad "vmm-share-v2: the traced program failed"
python3 - "$v2" <<'PYEOF'
import json, os, sys
d = sys.argv[1]
files = sorted(os.listdir(d + "/run"))
imp = [f for f in files if '"aclrtMemImportFromShareableHandleV2"' in open(d + "/run/" + f).read()]
for variant, share_type in (("default", None), ("fabric", "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC")):
    os.makedirs(d + "/" + variant)
    for f in files:
        out = []
        for line in open(d + "/run/" + f):
            o = json.loads(line)
            if o.get("type") == "header" and f in imp:
                o["host"] = "otherhost"
            if share_type and "share_type" in o.get("args", {}):
                o["args"]["share_type"] = share_type
            out.append(json.dumps(o, separators=(",", ":")))
        open(d + "/" + variant + "/" + f, "w").write("\n".join(out) + "\n")
PYEOF
an ipc --json "$v2/default"
check "V2 DEFAULT handles on two hosts: the import is not the export's (two entries, one side each)" \
	jqt '[.shared[] | select(.key | startswith("acl ")) | [(.exporters | length), (.importers | length)]] | sort == [[0,1],[1,0]]' "$WORK/o.out"
an ipc --json "$v2/fabric"
check "V2 FABRIC handles on two hosts: the import is the export's, keyed by the handle's digest" \
	jqt '[.shared[] | select(.key | startswith("acl fabric ")) | [(.exporters | length), (.importers | length),
		.importers[0].host == "otherhost", .exporters[0].host != "otherhost"]] == [[1,1,true,true]]' "$WORK/o.out"

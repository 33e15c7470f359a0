#!/bin/bash
# Virtual-memory and pool IPC between two processes (tests/integration/vmm_ipc.c)
# under the launcher: both traces hold their half of the export / import /
# map / set-access sequence, the shareable handle's file_id is the same in
# both, and nothing is reported.
#   tests/integration/vmm.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-vmm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
jqt() { jq -e "$@" >/dev/null 2>&1; }

PWSIM_DEVICES=2 "$PW" -q -o "$WORK/trace" --mode warn -- "$B/tests/vmm_ipc" >"$WORK/out" 2>"$WORK/err"
rc=$?
check "vmm_ipc: both processes saw each other's bytes (status $rc)" [ $rc -eq 0 ]
parent=$(grep -L '"child"' "$WORK"/trace/*.pw.jsonl 2>/dev/null | head -1)
child=$(grep -l '"child"' "$WORK"/trace/*.pw.jsonl 2>/dev/null | head -1)
check "two traces" [ -n "$parent" -a -n "$child" ]
[ -n "$parent" ] && [ -n "$child" ] || { echo "vmm: $pass passed, $((fail + 1)) failed"; exit 1; }

# one call's args (by api) from a trace, as compact JSON
args() { jq -c --arg a "$2" 'select(.type=="call" and .api==$a) | .args' "$1" | head -1; }
ex=$(args "$parent" cuMemExportToShareableHandle)
im=$(args "$child" cuMemImportFromShareableHandle)
fid=$(jq -r .file_id <<<"$ex")
check "export: file_id of the fd ($fid)" grep -Eqx '[0-9]+:[0-9]+' <<<"$fid"
check "import: the same file_id in the other process" [ "$(jq -r .file_id <<<"$im")" = "$fid" ]
check "the simulator's fds name their allocation: no file_id_unique:false" \
	[ "$(jq -r '.file_id_unique' <<<"$ex")" = null ]
check "import: another fd number there" [ "$(jq -r .shareable <<<"$ex")" != "$(jq -r .shareable <<<"$im")" ]
check "export: family ipc, handle type posix_fd" \
	jqt -s 'any(.[]; .api=="cuMemExportToShareableHandle" and .family=="ipc" and .args.handle_type=="posix_fd")' "$parent"
check "create: dev 0, handle_types [posix_fd], bytes" \
	jqt -s 'any(.[]; .api=="cuMemCreate" and .family=="support" and .args.dev==0 and .args.handle_types==["posix_fd"] and .args.bytes==2097152)' "$parent"
check "set access (parent): devices 0 and 1 readwrite, family peer, ptr_dev 0" \
	jqt -s 'any(.[]; .api=="cuMemSetAccess" and .family=="peer" and .args.ptr_dev==0 and .args.access==[{"dev":0,"flags":"readwrite"},{"dev":1,"flags":"readwrite"}])' "$parent"
check "child: import, map, set access, unmap, release in that order" \
	bash -c '[ "$(jq -r "select(.type==\"call\" and (.api|startswith(\"cuMem\"))) | .api" "$1" | grep -E "Import|Map|SetAccess|Unmap|Release" | head -5 | tr "\n" " ")" = "cuMemImportFromShareableHandle cuMemMap cuMemSetAccess cuMemUnmap cuMemRelease " ]' _ "$child"
check "map: ptr, bytes, offset, handle = the imported handle" \
	bash -c '[ "$(jq -r "select(.api==\"cuMemMap\") | .args.handle" "$1")" = "$(jq -r "select(.api==\"cuMemImportFromShareableHandle\") | .args.handle" "$1")" ]' _ "$child"
check "retain: handle and ptr" jqt -s 'any(.[]; .api=="cuMemRetainAllocationHandle" and (.args.handle|startswith("0x")) and (.args.ptr|startswith("0x")))' "$parent"
pex=$(args "$parent" cuMemPoolExportToShareableHandle)
pim=$(args "$child" cuMemPoolImportFromShareableHandle)
check "pool export/import: the same file_id" [ "$(jq -r .file_id <<<"$pex")" = "$(jq -r .file_id <<<"$pim")" -a "$(jq -r .file_id <<<"$pex")" != null ]
check "pool pointer: export_data equal on both sides (64 bytes)" \
	[ "$(jq -r .export_data <<<"$(args "$parent" cuMemPoolExportPointer)")" = "$(jq -r .export_data <<<"$(args "$child" cuMemPoolImportPointer)")" ]
check "pool pointer: export has ptr and ptr_dev 0" \
	jqt -s 'any(.[]; .api=="cuMemPoolExportPointer" and .args.ptr_dev==0 and (.args.ptr|startswith("0x")))' "$parent"
check "pool pointer: import has ptr, ptr_dev 0 and the pool" \
	jqt -s 'any(.[]; .api=="cuMemPoolImportPointer" and .args.ptr_dev==0 and (.args.pool|startswith("0x")))' "$child"
check "pool set access: access [{dev 1, readwrite}]" \
	jqt -s 'any(.[]; .api=="cuMemPoolSetAccess" and .family=="peer" and .args.access==[{"dev":1,"flags":"readwrite"}])' "$parent"
check "batch prefetch: family managed, count 3, bytes 12288, ranges with their devices" \
	jqt -s 'any(.[]; .api=="cuMemPrefetchBatchAsync" and .family=="managed" and .args.count==3 and .args.bytes==12288 and ([.args.ranges[].dev]==[1,1,-1]) and (.args.ranges[0].bytes==4096))' "$parent"
check "no findings in either process" [ -z "$(jq -r 'select(.type=="violation") | .rule' "$parent" "$child")" ]
check "nothing reported on stderr" [ ! -s "$WORK/err" ]

# The prefetch rules run once per range of a batch.
PWSIM_DEVICES=2 "$PW" -q -o "$WORK/batch" --mode warn -- "$B/tests/vmm_ipc" batch-bad >/dev/null 2>"$WORK/batch.err"
rc=$?
check "batch-bad: the driver refused the batch (status $rc)" [ $rc -eq 0 ]
got=$(cat "$WORK"/batch/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | "\(.rule) \(.api)"' | tr '\n' ';')
check "batch prefetch: one finding, for the unmanaged range (got: $got)" \
	[ "$got" = "managed.prefetch.not-managed cuMemPrefetchBatchAsync;" ]

# A forked child that uses no CUDA holds none of its parent's mappings: no
# vmm.leak at its exit (nor at the parent's, which unmaps).  A child with
# nothing to record writes no trace.
PWSIM_DEVICES=2 "$PW" -q -o "$WORK/fork" --mode warn -- "$B/tests/vmm_ipc" fork-worker >/dev/null 2>"$WORK/fork.err"
rc=$?
check "fork-worker: both processes ended well (status $rc)" [ $rc -eq 0 ]
got=$(cat "$WORK"/fork/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | .rule' | tr '\n' ' ')
check "fork-worker: no finding in either process (got: ${got:-none})" [ -z "$got" ]

echo "vmm: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/bash
# Integration tests: real programs under the launcher, against the simulated
# driver, their traces checked against what the programs say they did.
#   tests/integration/run.sh BUILD_DIR
set -u
B=${1:-build}
B=$(cd "$B" && pwd)
PW="$B/bin/peerwatch"
T="$B/tests"
SIM="$B/sim"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-integ.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$SIM${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Under ASan the sanitizer runtime must be loaded before everything else.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

jqt() { jq -e "$@" >/dev/null; }

# The trace of one process: its file, which must have been finished cleanly.
trace_of() { # DIR PID
	local f
	f=$(ls "$1"/*."$2".pw.jsonl 2>/dev/null | head -1)
	[ -n "$f" ] && echo "$f"
}
calls_tsv() { jq -r 'select(.type=="call") | [.seq, .api, .variant, .ret] | @tsv' "$1" | sort -n | cut -f2-; }
header_footer_ok() { # FILE: header first, footer last, no drops, footer count = events between
	local f=$1 n
	n=$(($(wc -l <"$f") - 2))
	[ "$(head -1 "$f" | jq -r .type)" = header ] &&
		[ "$(tail -1 "$f" | jq -r '.type')" = footer ] &&
		[ "$(tail -1 "$f" | jq -r '.dropped')" = 0 ] &&
		[ "$(tail -1 "$f" | jq -r '.events')" = "$n" ] &&
		jq -e . "$f" >/dev/null
}

# --- every hooked function, each way of reaching the driver -------------------
for mode in direct dlsym getproc getproc-ptds getproc-old; do
	prog="$T/calls"
	[ $mode = direct ] && prog="$T/calls-linked"
	for sim in "$SIM" "$SIM/legacy"; do
		simname=${sim##*/}
		# cuGetProcAddress_v2 and the _v2 ABIs do not exist in an 11.8 driver.
		if [ "$simname" = legacy ] && [ $mode != getproc-old ]; then continue; fi
		d="$WORK/$mode-$simname"
		mkdir -p "$d"
		if ! LD_LIBRARY_PATH="$sim:$LD_LIBRARY_PATH" "$PW" -q -o "$d/trace" -- "$prog" "$mode" "$d/expect" \
			>"$d/out" 2>"$d/err"; then
			bad "calls $mode ($simname driver): program failed: $(tail -3 "$d/err")"
			continue
		fi
		ok "calls $mode ($simname driver): the program ran and its data is intact"
		files=("$d"/trace/*.pw.jsonl)
		check "calls $mode ($simname): two processes traced (parent and IPC child)" [ ${#files[@]} -eq 2 ]
		parent=$(grep -l '"ipc-child"' "$d"/trace/*.pw.jsonl -L | head -1)
		child=$(grep -l '"ipc-child"' "$d"/trace/*.pw.jsonl | head -1)
		if [ -z "$parent" ] || [ -z "$child" ]; then
			bad "calls $mode ($simname): traces of parent and child not found"
			continue
		fi
		check "calls $mode ($simname): parent trace = the calls made, in order, with variants" \
			diff <(calls_tsv "$parent") "$d/expect"
		check "calls $mode ($simname): child trace = the calls made" \
			diff <(calls_tsv "$child") "$d/expect.child"
		check "calls $mode ($simname): header, footer, counts" header_footer_ok "$parent"
		# Arguments: the 1 MiB copy from device 0 to device 1, the IPC handle on both sides.
		check "calls $mode ($simname): cuMemcpyPeer arguments decoded" jqt -s '
			map(select(.api=="cuMemcpyPeer" and .ret==0)) | .[0].args |
			.bytes==1048576 and .dst_dev==1 and .src_dev==0 and .dst_ctx_dev==1 and .src_ctx_dev==0
			and (.dst|startswith("0x"))' "$parent"
		h1=$(jq -r 'select(.api=="cuIpcGetMemHandle") | .args.handle' "$parent")
		h2=$(jq -r 'select(.api=="cuIpcOpenMemHandle" and .ret==0) | .args.handle' "$child")
		check "calls $mode ($simname): IPC handle recorded in full, same bytes in both processes" \
			[ ${#h1} -eq 128 -a "$h1" = "$h2" ]
		# ptr_dev: the importing context's device, as the driver answers (docs/facts-cuda.md)
		check "calls $mode ($simname): IPC open recorded the mapped pointer, its device, the flag names" jqt -s '
			map(select(.api=="cuIpcOpenMemHandle" and .ret==0)) | .[0] | .cur_dev==1 and .args.ptr_dev==1
			and .args.flags_names=="CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS"' "$child"
		check "calls $mode ($simname): managed advice and location names" jqt -s '
			map(select(.api=="cuMemAdvise")) | .[0].args.advice_name=="CU_MEM_ADVISE_SET_READ_MOSTLY"' "$parent"
		check "calls $mode ($simname): 3D peer copy bytes" jqt -s '
			map(select(.api=="cuMemcpy3DPeer")) | .[0].args | .bytes==65536 and .src_dev==0 and .dst_dev==1' "$parent"
		check "calls $mode ($simname): child's ppid is the parent's pid" \
			[ "$(head -1 "$child" | jq .ppid)" = "$(head -1 "$parent" | jq .pid)" ]
	done
done

# --- gpu_timing ---------------------------------------------------------------------
d="$WORK/gt"
if "$PW" -q -o "$d" --options gpu_timing=1 -- "$T/calls" getproc-ptds "$WORK/gt.expect" 2>"$WORK/gt.err"; then
	parent=$(grep -L '"ipc-child"' "$d"/*.pw.jsonl | head -1)
	check "gpu_timing=1: one gpu_time event for each async peer copy and prefetch, pointing at its call" jqt -s '
		([.[] | select(.type=="call" and (.api=="cuMemcpyPeerAsync" or .api=="cuMemcpy3DPeerAsync" or
		   .api=="cuMemPrefetchAsync") and .ret==0) | .seq] | sort) as $timed |
		([.[] | select(.type=="gpu_time") | .call] | sort) == $timed and ($timed | length) == 3' "$parent"
	check "gpu_timing=1: device durations and host-clock start times are set" jqt -s '
		[.[] | select(.type=="gpu_time")] | all(.gpu_ns >= 0 and .t_gpu_ns > 0)' "$parent"
	check "gpu_timing=1: footer counts skipped timings (0 here)" jqt -s '.[-1].gpu_timing_skipped == 0' "$parent"
else
	bad "gpu_timing: program failed: $(tail -3 "$WORK/gt.err")"
fi
d="$WORK/gt0"
"$PW" -q -o "$d" -- "$T/calls" getproc-ptds "$WORK/gt0.expect" 2>/dev/null
check "gpu_timing=0 (default): no gpu_time events" bash -c '! grep -qh "\"gpu_time\"" "$1"/*.pw.jsonl' _ "$d"

# --- 8 threads x 10 000 calls ---------------------------------------------------
d="$WORK/threads"
if "$PW" -q -o "$d" -- "$T/threads" 2>"$WORK/threads.err"; then
	f=$(ls "$d"/*.pw.jsonl)
	check "threads: 80 000 events, each seq exactly once" jqt -s '
		[.[] | select(.type=="call")] | (length==80000) and ((map(.seq) | unique | length)==80000)' "$f"
	check "threads: 10 000 events from each of 8 threads" jqt -s '
		[.[] | select(.type=="call")] | group_by(.tid) | (length==8) and all(length==10000)' "$f"
	check "threads: footer counts 80 000 calls and the device lines, none dropped" jqt -s '
		([.[] | select(.type=="device")] | length) as $d | .[-1] | .events==80000+$d and .dropped==0' "$f"
else
	bad "threads: program failed: $(tail -3 "$WORK/threads.err")"
fi

# --- a driver found through a relative path is recorded absolute ---------------------
d="$WORK/relpath"
rel=$(realpath --relative-to="$WORK" "$SIM")
if (cd "$WORK" && LD_LIBRARY_PATH="$rel" "$PW" -q -o "$d" -- "$T/threads") 2>/dev/null; then
	f=$(ls "$d"/*.pw.jsonl | head -1)
	check "header: driver library and modules recorded as absolute paths" jqt -s --arg p "$SIM/libcuda.so.1" '
		.[0] | .vendors.cuda.library == $p and any(.modules[]; .path == $p) and all(.modules[]; .path | startswith("/") or (contains("/") | not))' "$f"
else
	bad "relative driver path: program failed"
fi

# --- fork and exec ------------------------------------------------------------
# (Under ASan this once hung in the forked child: fork had come while our
# writer thread held the allocator's lock.  fork now waits for the writer.)
d="$WORK/forkexec"
if [ -n "${PW_TSAN_RUNTIME:-}" ]; then
	ok "forkexec # skip: ThreadSanitizer does not support threads started after a multi-threaded fork"
elif out=$("$PW" -q -o "$d" -- "$T/forkexec" 2>"$WORK/fe.err"); then
	read -r ppid apid bpid <<<"$out"
	for pair in "$ppid:4" "$apid:2" "$bpid:5"; do
		pid=${pair%:*} want=${pair#*:}
		f=$(trace_of "$d" "$pid")
		if [ -z "$f" ]; then
			bad "forkexec: no finished trace for pid $pid"
			continue
		fi
		check "forkexec: pid $pid has its own complete trace with its $want calls" \
			[ "$(grep -c '"type":"call"' "$f")" = "$want" ]
		check "forkexec: pid $pid trace well formed" header_footer_ok "$f"
	done
	check "forkexec: no .partial left" [ -z "$(ls "$d"/*.partial 2>/dev/null)" ]
else
	bad "forkexec: program failed: $(tail -3 "$WORK/fe.err")"
fi

# --- the program's own jansson --------------------------------------------------
d="$WORK/jansson"
mkdir -p "$d"
check "own jansson: each copy serves its own caller" "$PW" -q -o "$d" -- "$T/own_jansson" "$d"

# --- the library exports only its hooks ---------------------------------------
exports=$(nm -D --defined-only "$B/lib/libpeerwatch.so" | awk '{print $3}' | sort)
unexpected=$(grep -Ev '^(cu(da)?[A-Z][A-Za-z0-9_]*|hip[A-Z][A-Za-z0-9_]*|acl(rt)?[A-Z][A-Za-z0-9_]*|dlsym|exec[lv]p?e?|fexecve|_exit|_Exit|dup[23]|close|close_range|closefrom)$' <<<"$exports")
check "exports: nothing but hooks (got: $(echo $unexpected))" [ -z "$unexpected" ]
check "exports: no json_* / unw_* / elf_* symbol" bash -c "! nm -D '$B/lib/libpeerwatch.so' | grep -Eq ' (json_|unw_|elf_)'"

# --- launcher and options -----------------------------------------------------
check "launcher: --version" bash -c "'$PW' --version | grep -q '^peerwatch '"
check "launcher: --help" bash -c "'$PW' --help | grep -q 'usage:'"
check "launcher: bad mode is refused with status 2" bash -c "'$PW' --mode loud -- true 2>/dev/null; [ \$? -eq 2 ]"
check "launcher: missing program is status 127" bash -c "'$PW' -- /nonexistent/prog 2>/dev/null; [ \$? -eq 127 ]"
check "launcher: keeps an existing LD_PRELOAD" bash -c \
	"LD_PRELOAD=libm.so.6 '$PW' -q -- sh -c 'echo \$LD_PRELOAD' | grep -q 'libpeerwatch.so:libm.so.6'"
err=$(PEERWATCH_OPTIONS=mode=loud "$PW" -q -o "$WORK/o1" -- true 2>&1)
check "options: a bad value names the key and the allowed values" grep -q "bad value 'loud' for mode (allowed: observe|warn|enforce)" <<<"$err"
err=$(PEERWATCH_OPTIONS=colour=1 "$PW" -q -o "$WORK/o1" -- true 2>&1)
check "options: an unknown key is named with the known ones" grep -q "unknown option 'colour' (known: out, mode" <<<"$err"
PEERWATCH_OPTIONS=mode=enforce:colour=1 LD_PRELOAD="$B/lib/libpeerwatch.so${LD_PRELOAD:+:$LD_PRELOAD}" "$T/threads" 2>/dev/null
rc=$?
check "options: bad options with mode=enforce exit 64 before main (got $rc)" [ $rc -eq 64 ]
err=$(PEERWATCH_OPTIONS=help=1 "$PW" -q -- true 2>&1)
check "options: help=1 lists every option" grep -q "buffer_kb" <<<"$err"
touch "$WORK/notadir"
err=$("$PW" -o "$WORK/notadir/sub" -- "$T/threads" 2>&1)
check "unusable trace directory: program runs, one clear warning" \
	bash -c '[ $(grep -c "tracing is off" <<<"$1") -eq 1 ] && grep -q "cannot create the trace directory" <<<"$1"' _ "$err"

echo "integration: $pass passed, $fail failed"
[ $fail -eq 0 ]

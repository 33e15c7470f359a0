#!/bin/bash
# The CUDA runtime API layer on the simulated libcudart.so.13 (which reaches
# the simulated driver only through cuGetProcAddress): runtime calls are
# recorded with layer "runtime" and runtime error names, the driver calls
# they make carry "parent", findings made through the runtime are reported
# once and name the cuda* API, and the state is not counted twice.
#   tests/integration/cudart.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
PW="$B/bin/peerwatch"
RT="$B/tests/rt"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-cudart.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
export PEERWATCH_RUN_ID="cudart-test-$$"

jqt() { jq -e "$@" >/dev/null 2>&1; }

run() { # SCENARIO: traces in $WORK/SCENARIO/trace, stderr in .../err
	local d="$WORK/$1"
	mkdir -p "$d"
	"$PW" -q -o "$d/trace" --mode warn -- "$RT" "$1" >"$d/out" 2>"$d/err"
}
all_events() { cat "$WORK/$1"/trace/*.pw.jsonl; }

# --- the simulated runtime itself ----------------------------------------------------
st=$("$B/tests/cudart_selftest" 2>&1 | tail -1)
check "simulated libcudart self-test ($st)" [ "${st% failed}" != "$st" -a "${st##*, }" = "0 failed" ]

# --- clean: every hooked runtime call, used correctly -----------------------------
if run clean; then
	ok "clean: the program ran and every call answered what the runtime documents"
else
	bad "clean: the program failed: $(tail -3 "$WORK/clean/err")"
fi
all_events clean >"$WORK/clean.jsonl"
E="$WORK/clean.jsonl"
check "clean: two processes traced (the IPC child too)" [ "$(ls "$WORK"/clean/trace/*.pw.jsonl | wc -l)" -eq 2 ]
check "clean: no finding at all (got: $(jq -r 'select(.type=="violation") | .rule' "$E" | tr '\n' ' '))" \
	bash -c '! grep -q "\"violation\"" "$1"' _ "$E"
for api in cudaDeviceCanAccessPeer cudaDeviceEnablePeerAccess cudaDeviceGetP2PAttribute cudaMemcpyPeer \
	cudaMemcpyPeerAsync cudaMemcpy3DPeer cudaMemcpy3DPeerAsync cudaIpcGetMemHandle cudaIpcOpenMemHandle \
	cudaIpcCloseMemHandle cudaIpcGetEventHandle cudaIpcOpenEventHandle cudaMallocManaged cudaMemAdvise \
	cudaMemPrefetchAsync cudaMemRangeGetAttribute cudaMemRangeGetAttributes cudaStreamAttachMemAsync cudaFree; do
	check "clean: $api recorded at the runtime layer with cudaSuccess" jqt -s --arg a "$api" '
		[.[] | select(.type=="call" and .api==$a)] | length > 0 and
		all(.layer=="runtime" and .vendor=="cuda" and .ret_name=="cudaSuccess" and (has("parent") | not))' "$E"
done
check "clean: per-thread variants keep their names (runtime _ptds/_ptsz, driver the same)" jqt -s '
	[.[] | select(.type=="call" and .layer=="runtime") | .api + .variant] as $rt |
	all("cudaMemcpy3DPeer_ptds", "cudaMemcpy3DPeerAsync_ptsz", "cudaMemPrefetchAsync_ptsz",
	    "cudaStreamAttachMemAsync_ptsz"; . as $s | $rt | index($s) != null)' "$E"
# Nesting is per process: each trace file numbers its own events.
for f in "$WORK"/clean/trace/*.pw.jsonl; do
	check "clean ($(basename "$f")): every driver call of a runtime call names it as parent" jqt -s '
		([.[] | select(.type=="call" and .layer=="runtime") | .seq]) as $rt |
		[.[] | select(.type=="call" and (has("layer") | not) and .api != "cuCtxDisablePeerAccess")] |
		length > 0 and all(.parent as $p | $rt | index($p) != null)' "$f"
	check "clean ($(basename "$f")): each runtime call has exactly one driver child here" jqt -s '
		[.[] | select(.type=="call" and .layer=="runtime")] as $rt |
		[.[] | select(.type=="call" and has("parent")) | .parent] as $kids |
		all($rt[]; .seq as $s | [$kids[] | select(. == $s)] | length == 1)' "$f"
done
# Folding (preload/record/record.h): a runtime call's driver call is recorded with
# it, untimed: its line just before its parent's, its times the parent's,
# "parent_time": true.  With stacks=all or gpu_timing=1 it is timed alone.
check "clean: each driver call of a runtime call is folded: the line before its parent's, the parent's times" jqt -s '
	[.[] | select(.type=="call")] as $c |
	[range(0; $c | length) | select($c[.] | has("parent"))] as $kids |
	($kids | length > 0) and all($kids[]; . as $i | $c[$i] as $k | $c[$i + 1] as $p |
		$k.parent_time == true and $p.seq == $k.parent and $p.layer == "runtime" and $k.tid == $p.tid and
		$k.t_ns == $p.t_ns and $k.dur_ns == $p.dur_ns and $k.seq > $p.seq)' "$E"
check "clean: no call without a parent is marked parent_time" jqt -s '
	all(.[] | select(.type=="call" and (has("parent") | not)); has("parent_time") | not)' "$E"
for o in stacks=all gpu_timing=1; do
	d="$WORK/unfolded-${o%%=*}"
	mkdir -p "$d"
	"$PW" -q -o "$d/trace" --mode warn --options "$o" -- "$RT" clean >"$d/out" 2>"$d/err"
	check "clean with $o: driver calls of runtime calls are timed on their own (no parent_time)" jqt -s '
		[.[] | select(.type=="call" and has("parent"))] | length > 0 and all(has("parent_time") | not)' \
		"$(ls "$d"/trace/*.pw.jsonl | head -1)"
done
check "clean: the driver disable made directly by the program has no parent and no layer" jqt -s '
	[.[] | select(.api=="cuCtxDisablePeerAccess")] | length==1 and all((has("parent") | not) and (has("layer") | not))' "$E"
check "clean: cudaMemcpyPeer arguments: pointers with their devices, devices named, bytes" jqt -s '
	[.[] | select(.api=="cudaMemcpyPeer")][0].args | .bytes==1048576 and .dst_dev==1 and .dst_device==1 and
	.src_dev==0 and .src_device==0 and (.dst|startswith("0x")) and (.src|startswith("0x"))' "$E"
check "clean: its driver child cuMemcpyPeer copies the same bytes between the same devices" jqt -s '
	([.[] | select(.api=="cudaMemcpyPeer")][0]) as $r |
	[.[] | select(.api=="cuMemcpyPeer" and .parent==$r.seq)][0].args |
	.bytes==1048576 and .dst==$r.args.dst and .src_dev==0 and .dst_dev==1' "$E"
check "clean: cudaDeviceEnablePeerAccess records cur_dev and peer_dev" jqt -s '
	[.[] | select(.api=="cudaDeviceEnablePeerAccess")] | map([.cur_dev, .args.peer_dev]) == [[1,0],[0,1],[0,1]]' "$E"
check "clean: runtime enum names (advice, location, attach flags, P2P attribute, IPC flags)" jqt -s '
	([.[] | select(.api=="cudaMemAdvise")][0].args | .advice_name=="cudaMemAdviseSetReadMostly" and
	  .location=={"type":"device","id":0}) and
	([.[] | select(.api=="cudaMallocManaged")][0].args | .flags_names=="cudaMemAttachGlobal" and .bytes==65536) and
	([.[] | select(.api=="cudaDeviceGetP2PAttribute")][0].args.attr_name=="cudaDevP2PAttrAccessSupported") and
	([.[] | select(.api=="cudaIpcOpenMemHandle")][0].args.flags_names=="cudaIpcMemLazyEnablePeerAccess") and
	([.[] | select(.api=="cudaMemPrefetchAsync")][0].args | .flags==0 and .location=={"type":"device","id":1})' "$E"
check "clean: cudaMemcpy3DPeer: devices named and found, bytes" jqt -s '
	[.[] | select(.api=="cudaMemcpy3DPeer")][0].args | .src_device==0 and .dst_device==1 and .src_dev==0 and
	.dst_dev==1 and .bytes==65536' "$E"
check "clean: the IPC handle is the same bytes on both sides" jqt -s '
	([.[] | select(.api=="cudaIpcGetMemHandle")][0].args.handle) as $h |
	($h | length)==128 and [.[] | select(.api=="cudaIpcOpenMemHandle")][0].args.handle == $h' "$E"
check "clean: a runtime function found through dlsym is traced too" jqt -s '
	[.[] | select(.api=="cudaDeviceGetP2PAttribute")] | length==2' "$E"

# --- findings through the runtime: once, naming the cuda* API -----------------------
for pair in enable-twice:peer.enable.twice:cudaDeviceEnablePeerAccess \
	ipc-same-process:ipc.open.same-process:cudaIpcOpenMemHandle \
	no-peer-access:copy.peer.no-peer-access:cudaMemcpyPeer \
	advise-not-managed:managed.advise.not-managed:cudaMemAdvise \
	invalid-enable:peer.invalid-device:cudaDeviceEnablePeerAccess \
	invalid-copy:peer.invalid-device:cudaMemcpyPeer \
	reset-copy:copy.peer.no-peer-access:cudaMemcpyPeer \
	lazy-enable:peer.enable.twice:cudaDeviceEnablePeerAccess; do
	IFS=: read -r sc rule api <<<"$pair"
	if ! run "$sc"; then
		bad "$sc: the program failed: $(tail -3 "$WORK/$sc/err")"
		continue
	fi
	got=$(all_events "$sc" | jq -r 'select(.type=="violation") | .rule + " in " + .api' | tr '\n' ';')
	check "$sc: exactly one finding, $rule in $api (got: $got)" [ "$got" = "$rule in $api;" ]
	check "$sc: reported once on stderr, naming $api" [ "$(grep -c "peerwatch: [a-z]*: $rule in $api\$" "$WORK/$sc/err")" -eq 1 ]
	check "$sc: the finding points at the runtime call" jqt -s '
		(.[] | select(.type=="violation") | .call) as $c | any(.[]; .type=="call" and .seq==$c and .layer=="runtime")' \
		<(all_events "$sc")
done
E="$WORK/enable-twice.jsonl"
all_events enable-twice >"$E"
check "enable-twice: runtime error name on the runtime event, driver error name on its child" jqt -s '
	([.[] | select(.type=="call" and .api=="cudaDeviceEnablePeerAccess")][1]) as $r |
	$r.ret==704 and $r.ret_name=="cudaErrorPeerAccessAlreadyEnabled" and
	any(.[]; .api=="cuCtxEnablePeerAccess" and .parent==$r.seq and .ret_name=="CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED")' "$E"
E="$WORK/ipc-same-process.jsonl"
all_events ipc-same-process >"$E"
check "ipc-same-process: cudaErrorDeviceUninitialized, as the real runtime answers" jqt -s '
	any(.[]; .api=="cudaIpcOpenMemHandle" and .ret==201 and .ret_name=="cudaErrorDeviceUninitialized")' "$E"

# --- error.sticky: a getter returns an error an earlier call left ---------------------
# The getter right after the failing call is the program's own check
# (enable-twice above: one finding only); after other calls, each getter that
# returns the code names the call that left it, until cudaGetLastError resets it.
for sc in sticky sticky-peek sticky-clean; do
	if ! run "$sc"; then
		bad "$sc: the program failed: $(tail -3 "$WORK/$sc/err")"
		continue
	fi
	all_events "$sc" >"$WORK/$sc.jsonl"
done
E="$WORK/sticky.jsonl"
got=$(jq -r 'select(.type=="violation") | .rule + " in " + .api' "$E" | tr '\n' ';')
check "sticky: exactly one finding, error.sticky in cudaGetLastError (got: $got)" \
	[ "$got" = "error.sticky in cudaGetLastError;" ]
check "sticky: it names the second cudaFree, its seq and code, and is a performance finding" jqt -s '
	([.[] | select(.type=="call" and .api=="cudaFree" and .ret==1)] | .[0].seq) as $s |
	[.[] | select(.type=="violation")] | length==1 and .[0].severity=="performance" and
	(.[0].message | startswith("cudaGetLastError returned 1 (cudaErrorInvalidValue), left by cudaFree (call \($s)) on this thread; cudaFree was called at "))' "$E"
check "sticky: the finding points at the first cudaGetLastError, which returned 1" jqt -s '
	(.[] | select(.type=="violation") | .call) as $c |
	[.[] | select(.type=="call" and .api=="cudaGetLastError")] | length==2 and .[0].seq==$c and
	.[0].ret==1 and .[0].op=="last_error" and .[1].ret==0' "$E"
check "sticky: the report on stderr names the call that left the error" \
	grep -q "left by cudaFree (call [0-9]*) on this thread" "$WORK/sticky/err"
E="$WORK/sticky-peek.jsonl"
got=$(jq -r 'select(.type=="violation") | .rule + " in " + .api' "$E" | tr '\n' ';')
check "sticky-peek: peer.enable.twice, then error.sticky in the peek and in the get (got: $got)" \
	[ "$got" = "peer.enable.twice in cudaDeviceEnablePeerAccess;error.sticky in cudaPeekAtLastError;error.sticky in cudaGetLastError;" ]
check "sticky-peek: both name the second enable and 704 in the runtime's words" jqt -s '
	([.[] | select(.type=="call" and .api=="cudaDeviceEnablePeerAccess")][1].seq) as $s |
	[.[] | select(.type=="violation" and .rule=="error.sticky") | .message] |
	(.[0] | startswith("cudaPeekAtLastError returned 704 (cudaErrorPeerAccessAlreadyEnabled), left by cudaDeviceEnablePeerAccess (call \($s)) on this thread; it stays set")) and
	(.[1] | startswith("cudaGetLastError returned 704 (cudaErrorPeerAccessAlreadyEnabled), left by cudaDeviceEnablePeerAccess (call \($s)) on this thread;"))' "$E"
E="$WORK/sticky-clean.jsonl"
check "sticky-clean: each error cleared right after its call: no finding (got: $(jq -r 'select(.type=="violation") | .rule' "$E" | tr '\n' ' '))" \
	bash -c '! grep -q "\"violation\"" "$1"' _ "$E"
d="$WORK/sticky-enforce"
"$PW" -q -o "$d" --mode enforce --halt-on performance -- "$RT" sticky >/dev/null 2>&1
rc=$?
check "sticky, enforce with halt_on=performance: the explanation never stops the program (status $rc)" \
	[ $rc -eq 0 ]
check "sticky, enforce: the finding is still reported" jqt -s \
	'[.[] | select(.type=="violation" and .rule=="error.sticky")] | length==1' <(cat "$d"/*.pw.jsonl 2>/dev/null)

# --- a copy from an IPC mapping names either of its devices --------------------------
# The mapping is on device 1 for the runtime (the importer's, as the driver
# reports) and its memory on device 0: naming 0 is right, naming 2 is not.
if run lazy-copy; then
	got=$(all_events lazy-copy | jq -r 'select(.type=="violation") | .rule' | tr '\n' ' ')
	check "lazy-copy: cudaMemcpyPeer naming the exporter's device for the mapping: no finding (got: ${got:-none})" \
		[ -z "$got" ]
else
	bad "lazy-copy: the program failed: $(tail -3 "$WORK/lazy-copy/err")"
fi
if PWSIM_DEVICES=3 run lazy-copy-third; then
	got=$(all_events lazy-copy-third | jq -r 'select(.type=="violation") | .rule + " in " + .api' | tr '\n' ';')
	check "lazy-copy-third: naming device 2 for it: copy.peer.device-mismatch in cudaMemcpyPeer, once (got: $got)" \
		[ "$got" = "copy.peer.device-mismatch in cudaMemcpyPeer;" ]
else
	bad "lazy-copy-third: the program failed: $(tail -3 "$WORK/lazy-copy-third/err")"
fi

# --- cudaDeviceReset ends the primary context's peer access, both ways -----------------
for sc in reset-enable reset-copy-enabled; do
	if run "$sc"; then
		got=$(all_events "$sc" | jq -r 'select(.type=="violation") | .rule' | tr '\n' ' ')
		check "$sc: after cudaDeviceReset the enable is a new one: no finding (got: ${got:-none})" [ -z "$got" ]
	else
		bad "$sc: the program failed: $(tail -3 "$WORK/$sc/err")"
	fi
done
check "reset-enable: cudaDeviceReset recorded at the runtime layer, op device_reset" jqt -s '
	any(.[]; .type=="call" and .api=="cudaDeviceReset" and .layer=="runtime" and .op=="device_reset" and .ret==0)' \
	<(all_events reset-enable)

# --- the state is counted once ------------------------------------------------------
if run ipc-mixed; then
	got=$(all_events ipc-mixed | jq -r 'select(.type=="violation") | .rule' | tr '\n' ' ')
	check "ipc-mixed: opened through the runtime, closed through the driver: no leak, no finding (got: ${got:-none})" \
		[ -z "$got" ]
else
	bad "ipc-mixed: the program failed: $(tail -3 "$WORK/ipc-mixed/err")"
fi

# --- a CUDA 12 runtime: same names, older ABIs ------------------------------------------
d="$WORK/rt12"
mkdir -p "$d"
if "$PW" -q -o "$d/trace" --mode warn -- "$B/tests/rt12" >"$d/out" 2>"$d/err"; then
	ok "cuda12: every call answered as documented (a 64-bit stream reached the runtime whole)"
else
	bad "cuda12: the program failed: $(tail -3 "$d/err")"
fi
E="$WORK/rt12.jsonl"
cat "$d"/trace/*.pw.jsonl >"$E" 2>/dev/null
got=$(jq -r 'select(.type=="violation") | .rule + " in " + .api' "$E" | tr '\n' ';')
check "cuda12: exactly one finding, the prefetch to device 9 (got: $got)" \
	[ "$got" = "managed.prefetch.invalid-device in cudaMemPrefetchAsync;" ]
check "cuda12: base names recorded with the int-device ABI, _v2 names with the location" jqt -s '
	[.[] | select(.type=="call" and .layer=="runtime")] as $r |
	($r | map(select(.api=="cudaMemAdvise" and .variant=="")) | .[0].args | .dev==1 and (has("location") | not)) and
	($r | map(select(.api=="cudaMemAdvise" and .variant=="_v2")) | .[0].args.location=={"type":"device","id":1}) and
	($r | map(select(.api=="cudaMemPrefetchAsync" and .variant=="")) | .[0].args | .dst_dev==1 and .stream=="0x0") and
	($r | map(select(.api=="cudaMemPrefetchAsync" and .variant=="_ptsz")) | .[0].args | .dst_dev==-1 and .stream=="0x2") and
	($r | map(select(.api=="cudaMemPrefetchAsync" and .variant=="_v2_ptsz")) | .[0].args.location.id==1)' "$E"
check "cuda12: the 64-bit stream is recorded whole, with the runtime's error" jqt -s '
	any(.[]; .layer=="runtime" and .args.stream=="0x100000002" and .ret_name=="cudaErrorInvalidResourceHandle")' "$E"
check "cuda12: the first runtime call (which binds the driver) already has its driver child" jqt -s '
	(.[] | select(.type=="call" and .seq==1)) as $f |
	$f.api=="cudaMallocManaged" and any(.[]; .api=="cuMemAllocManaged" and .parent==1)' "$E"

# --- enforce: the runtime call is stopped before it runs ------------------------------
d="$WORK/enforce"
# (in a shell of its own, which reports the abort into /dev/null)
bash -c '"$@" >/dev/null 2>&1; exit $?' _ "$PW" -q -o "$d" --mode enforce --halt-on warning -- "$RT" enable-twice 2>/dev/null
rc=$?
check "enforce: the second cudaDeviceEnablePeerAccess aborts the program (status $rc)" [ $rc -eq 134 ]
check "enforce: the finding names the runtime call, which never ran (nor its driver call)" jqt -s '
	([.[] | select(.type=="violation")] | length==1 and .[0].api=="cudaDeviceEnablePeerAccess") and
	([.[] | select(.type=="call" and .api=="cudaDeviceEnablePeerAccess")] | length==1) and
	([.[] | select(.type=="call" and .api=="cuCtxEnablePeerAccess")] | length==1)' <(cat "$d"/*.pw.jsonl 2>/dev/null)

# --- observe mode: the same trace, no checks -----------------------------------------
d="$WORK/observe"
if "$PW" -q -o "$d" --mode observe -- "$RT" enable-twice 2>/dev/null; then
	check "observe: no findings, runtime events still recorded" jqt -s '
		(any(.[]; .type=="violation") | not) and ([.[] | select(.layer=="runtime")] | length==4)' <(cat "$d"/*.pw.jsonl)
else
	bad "observe: the program failed"
fi

# --- calls from a signal handler, landing anywhere in the program's calls -------------
# A timer signals the calling thread every 20 us and its handler makes the same
# runtime call.  A handler's call that comes while the thread is writing a record
# must not be written over it: it is dropped and counted ("signal_handler"), and
# nothing else is lost, garbled, numbered twice or left hanging (peerwatch must
# not malloc in the middle of its own malloc, for one).
# Not under $WORK: its trace (some 20 MB, with drops, which are the point) is
# not one for the analyzer's tests to read again (PW_KEEP_TRACES, tap.sh).
d=$(mktemp -d "${TMPDIR:-/tmp}/pw-signal.XXXXXX")
timeout 120 "$PW" -q -o "$d/trace" --mode observe -- "$RT" signal-calls >"$d/out" 2>"$d/err"
rc=$?
check "signal-calls: the program ran to its end (exit $rc)" [ $rc -eq 0 ]
calls=$(sed -n 's/^calls=\([0-9]*\) handler=\([0-9]*\)$/\1/p' "$d/out")
hcalls=$(sed -n 's/^calls=\([0-9]*\) handler=\([0-9]*\)$/\2/p' "$d/out")
check "signal-calls: the handler made calls (${hcalls:-none})" [ "${hcalls:-0}" -gt 100 ]
f=$(ls "$d"/trace/*.pw.jsonl 2>/dev/null | head -1)
if [ -n "$f" ] && jq -s . "$f" >/dev/null 2>&1; then
	ev=$(jq -s '[.[] | select(.type=="call" and (.api=="cudaDeviceCanAccessPeer" or .api=="cuDeviceCanAccessPeer"))] | length' "$f")
	dr=$(tail -1 "$f" | jq '.dropped')
	by=$(tail -1 "$f" | jq -c '.dropped_by')
	check "signal-calls: every call's two events are in the trace or counted as dropped ($ev + $dr of $((2 * ${calls:-0})); $by)" \
		[ "${calls:-0}" -gt 0 -a $((ev + dr)) -eq $((2 * ${calls:-0})) ]
	check "signal-calls: no record was garbled (dropped_by: $by)" jqt -s '.[-1].dropped_by | has("too_long") | not' "$f"
	# a handler's call between the load and the store of a ++ took its thread's number too
	dups=$(jq -r 'select(.type == "call") | .seq' "$f" | sort -n | uniq -d | wc -l)
	check "signal-calls: no two events share a seq ($dups numbers taken twice)" [ "$dups" -eq 0 ]
	check "signal-calls: the handler's calls that came mid-record are counted as such" \
		jqt -s '.[-1].dropped_by | keys - ["signal_handler", "writer_behind"] | length == 0' "$f"
else
	bad "signal-calls: no whole trace (${f:-none})"
fi
rm -rf "$d"

# --- NVIDIA's own libcudart.so.13 over the simulated driver, when the toolkit is here ---
# It binds the driver as the simulated runtime does (dlsym of cuGetProcAddress_v2),
# so the same scenarios must give the same findings and nesting.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -f "$CUDA_HOME/lib64/libcudart.so.13" ]; then
	out=$(CUDA_HOME="$CUDA_HOME" "$(dirname "$0")/../gpu/cudart_gpu.sh" "$B" "$WORK/real" 2>&1)
	rc=$?
	check "the real libcudart.so.13 over the simulated driver: $(echo "$out" | tail -1)" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || echo "$out" | grep '^not ok'
else
	echo "skip - no $CUDA_HOME/lib64/libcudart.so.13: the real runtime was not tried"
fi

echo "cudart: $pass passed, $fail failed"
[ $fail -eq 0 ]

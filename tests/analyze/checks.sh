# Properties of peerwatch-analyze beyond the golden outputs: exit codes,
# findings, crash handling, parallel reading, offline symbols, malformed
# input.  Sourced by run.sh (A, B, WORK, HERE, check, ok, bad, jqt, an,
# rc_is, err_has, out_has, case_dir are set).

# ---- IPC: the exporter's free while the importer holds the handle -------------

an ipc --json "$WORK/ipc"
check "ipc: the free while open is found from the traces alone (registry off)" \
	jqt '.findings | length == 1 and .[0].rule == "ipc.free-while-open" and .[0].api == "cuMemFree_v2"' "$WORK/o.out"
check "ipc: the handle's life is export, open, free, close in that order" \
	jqt '.handles[0].life | map(.op) == ["export","open","free","close"]' "$WORK/o.out"
check "ipc: the open and the close are the importer's, the export and the free the exporter's" \
	jqt '.handles[0].life | (.[0].process.pid == .[2].process.pid) and (.[1].process.pid == .[3].process.pid)
		and (.[0].process.pid != .[1].process.pid)' "$WORK/o.out"
check "ipc: exporter and importer matched by the handle's bytes (one memory handle)" \
	jqt '[.handles[] | select(.kind == "memory")] | length == 1' "$WORK/o.out"
an check "$WORK/ipc"
check "check: the derived finding fails the gate (exit 1)" rc_is 1
an check --no-derived "$WORK/ipc"
check "check --no-derived: without the registry's event there is nothing (exit 0)" rc_is 0
an check --json "$WORK/ipc-online"
check "ipc-online: the registry's violation and the derived finding are reported once" \
	jqt '.findings | length == 1 and .[0].derived == false and .[0].rule == "ipc.free-while-open"' "$WORK/o.out"

# ---- enforce mode: the violation's call never ran, so only the violation names it ----

traced "$WORK/enforce" -m enforce -- "$B/tests/calls" getproc "$WORK/enforce.expect" >/dev/null 2>&1
an check --json "$WORK/enforce"
check "enforce: the finding that stopped the process names its call's api" \
	jqt '.findings | last | .severity == "error" and .api == "cuMemcpyPeer"' "$WORK/o.out"
check "enforce: and that call is not in the trace" \
	bash -c "! jq -e --argjson s \"\$(jq '.findings | last | .call' '$WORK/o.out')\" \
		'select(.type == \"call\" and .seq == \$s)' '$WORK'/enforce/*.pw.jsonl >/dev/null"
an info "$WORK/enforce"
check "enforce: info says enforce mode stopped it" out_has "stopped by enforce mode"

# ---- a crashed process ----------------------------------------------------------

check "crash: the killed process left a .partial trace" bash -c "compgen -G '$WORK/crash/*.pw.jsonl.partial' >/dev/null"
an info --json "$WORK/crash"
check "crash: info says partial" jqt '.partial == 1 and .files[0].state == "partial"' "$WORK/o.out"
check "crash: the 5 calls made before the kill are read" jqt '.files[0].calls == 5' "$WORK/o.out"
check "crash: info exits 0 (a .partial trace is not an input error)" rc_is 0
# A .partial trace is also the trace of a process still running: info tells
# the two apart (same host: its pid, started before the trace), and calls
# neither a crash nor _exit (which finishes a trace).
check "crash: while the process ran, info said its .partial trace was still being written" \
	bash -c 'grep -q "trace     .partial: still being written: its process (pid [0-9]*) is running" "$1" &&
		jq -e ".files[0].state == \"partial\" and .files[0].running == true" "$2" >/dev/null' \
	_ "$WORK/crash-live.txt" "$WORK/crash-live.json"
check "crash: once it was killed, that it ended without finishing its trace" \
	jqt '.files[0].running == false' "$WORK/o.out"
an info "$WORK/crash"
check "crash: ... in words, naming no _exit" \
	bash -c 'grep -q "left .partial: the process ended without finishing its trace" "$1" && ! grep -q "_exit" "$1"' \
	_ "$WORK/o.out"
an summary --json "$WORK/crash"
check "crash: summary counts it as partial" jqt '.partial == 1 and .per_process[0].partial == true' "$WORK/o.out"
an info --json "$WORK/forkexec"
check "forkexec: three programs, each trace finished (the _exit child too)" \
	jqt '(.files | length) == 3 and .clean == 3' "$WORK/o.out"

# ---- many events, many threads, parallel reading ------------------------------------

an summary --json "$WORK/threads"
check "threads: all 80000 calls counted" jqt '.calls_total == 80000 and .calls[0].count == 80000' "$WORK/o.out"
check "summary --json has the documented members" jqt '(.processes | type) == "number" and
	(.calls[0] | has("api") and has("vendor") and has("count") and has("errors") and
	 (.host_ns | has("total") and has("mean") and has("p50") and has("p99") and has("max"))) and
	(.violations | type) == "array"' "$WORK/o.out"
mkdir -p "$WORK/all"
cp -r "$WORK/calls" "$WORK/ipc" "$WORK/crash" "$WORK/forkexec" "$WORK/threads" "$WORK/all/"
for cmd in summary matrix ipc managed check info; do
	"$A" $cmd --json -j 1 "$WORK/all" >"$WORK/j1" 2>/dev/null
	"$A" $cmd --json -j 7 "$WORK/all" >"$WORK/j7" 2>/dev/null
	check "$cmd: the same result with 1 and 7 workers" cmp -s "$WORK/j1" "$WORK/j7"
done
an summary "$WORK/threads"
check "no progress output when stderr is not a terminal" bash -c "! grep -q $'\r' '$WORK/o.err'"
# On a terminal (script(1) gives it one), a run of more than a second shows
# its progress on stderr — and not with --json.
if command -v script >/dev/null && ${CC:-cc} -O2 -o "$WORK/gen_trace" "$ROOT/bench/gen_trace.c"; then
	"$WORK/gen_trace" "$WORK/big" 400000 1
	# PEERWATCH_PROGRESS_DELAY=0: from the start, not after a second
	PEERWATCH_PROGRESS_DELAY=0 script -qec "'$A' summary -j 1 '$WORK/big' >/dev/null" /dev/null >"$WORK/tty.out" 2>&1
	check "progress on a terminal: percentage, files, bytes of the total, rate, events" \
		grep -Eq '[0-9]+%  [01]/1 file, [0-9.]+[KMG]?i?B of [0-9.]+MiB, [0-9.]+[KMG]?i?B/s, [0-9]+ events' "$WORK/tty.out"
	check "progress: the percentage only grows, to at most 100, and the line is cleared at the end" \
		python3 - "$WORK/tty.out" <<'EOF'
import re, sys
raw = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
pcts = [int(x) for x in re.findall(r"(\d+)%  ", raw)]
assert pcts and pcts == sorted(pcts) and pcts[-1] <= 100, pcts
assert raw.rstrip("\n").endswith("\r\x1b[K"), repr(raw[-40:])
EOF
	PEERWATCH_PROGRESS_DELAY=0 script -qec "'$A' summary --json -j 1 '$WORK/big' >/dev/null" /dev/null >"$WORK/tty.out" 2>&1
	check "no progress with --json, even on a terminal" bash -c "! grep -q 'events' '$WORK/tty.out'"
	PEERWATCH_PROGRESS_DELAY=0 script -qec "'$A' summary --no-progress -j 1 '$WORK/big' >/dev/null" /dev/null >"$WORK/tty.out" 2>&1
	check "no progress with --no-progress, even on a terminal" bash -c "! grep -q 'events' '$WORK/tty.out'"
	# A big file is read in chunks by several workers: the same result, the
	# same messages with the same line numbers, as one worker reading it whole.
	f=$(ls "$WORK"/big/*.pw.jsonl)
	sed -i -e '2s/"seq":1,/"seq":"one",/' -e '100000s/^{/[/' -e '250001s/"ret":/"ret":"x","r":/' "$f"
	echo '{"type":"call","seq":1' >>"$f"
	for cmd in summary info; do
		"$A" $cmd --json -j 1 "$WORK/big" >"$WORK/c1" 2>"$WORK/e1"
		"$A" $cmd --json -j 3 "$WORK/big" >"$WORK/c3" 2>"$WORK/e3"
		check "chunked reading ($cmd): the same document as one worker" cmp -s "$WORK/c1" "$WORK/c3"
		check "chunked reading ($cmd): the same messages, the same line numbers" cmp -s "$WORK/e1" "$WORK/e3"
	done
	check "chunked reading: the bad lines are where they were put" bash -c "grep -q ':2: \"seq\" must be' '$WORK/e3' &&
		grep -q ':100000: not valid JSON' '$WORK/e3' && grep -q ':250001: call seq 250000: \"ret\"' '$WORK/e3' &&
		grep -q ':400003: not valid JSON' '$WORK/e3'"
	# The commands whose sinks keep state per file read one big file with
	# every worker too (reader.c, "a file read whole, in segments"): the
	# same output and messages at -j 1 and -j 2, with lines the fast path
	# leaves to the reader (an escape), a device line and a nested call in
	# the middle of the file.
	sed -i -e '300000s/"dst_ctx":"0x55d0c3a81f30"/"dst_ctx":"0x55d0c3a81f3\\u0030"/' \
		-e '300002s/"tid":/"parent":300001,"tid":/' "$f"
	dev=$(grep -h -m1 '^{"type":"device"' "$WORK"/calls/*.pw.jsonl | head -1)
	[ -n "$dev" ] && sed -i "200000i\\$dev" "$f"
	for c in "check" "check --json" "matrix --json" "ipc --json" "managed --json" "violations --json" \
		"matrix" "ipc" "managed"; do
		# shellcheck disable=SC2086 # the command's words
		"$A" $c -j 1 "$WORK/big" >"$WORK/c1" 2>"$WORK/e1"
		echo "status $?" >>"$WORK/c1"
		# shellcheck disable=SC2086
		"$A" $c -j 2 "$WORK/big" >"$WORK/c2" 2>"$WORK/e2"
		echo "status $?" >>"$WORK/c2"
		check "one file, several workers ($c): the same output and status as one worker" cmp -s "$WORK/c1" "$WORK/c2"
		check "one file, several workers ($c): the same messages, the same line numbers" cmp -s "$WORK/e1" "$WORK/e2"
	done
	check "one file, several workers: the bad lines are where they were put" bash -c "grep -q ':2: \"seq\" must be' '$WORK/e2' &&
		grep -q ':100000: not valid JSON' '$WORK/e2' && grep -q ':250002: call seq 250000: \"ret\"' '$WORK/e2'"
	rm -rf "$WORK/big"
	# Many processes naming many pairs each (1 400 traces, about 50 of
	# the 56 pairs of eight devices each: more pairs than a worker kept
	# before it counted the rest as unknown, in an order that varied by
	# run): every pair its own, the same matrix every time, at any -j.
	"$WORK/gen_trace" "$WORK/many" 210000 1400
	"$A" matrix --json -j 1 "$WORK/many" >"$WORK/m1"
	"$A" matrix --json -j 1 "$WORK/many" >"$WORK/m1b"
	"$A" matrix --json -j 2 "$WORK/many" >"$WORK/m2"
	check "many traces: the same matrix on every run and at -j 1 and -j 2" \
		bash -c "cmp -s '$WORK/m1' '$WORK/m1b' && cmp -s '$WORK/m1' '$WORK/m2'"
	check "many traces: no copy counted in an unknown pair" \
		jqt '[.hosts[].pairs[] | select(.src == null or .dst == null)] | length == 0' "$WORK/m1"
	rm -rf "$WORK/many"
	# ipc and report list 80 000 IPC calls: beyond what a worker spools
	# and a sort holds in memory (ipclist.c), so through temporary files in
	# $TMPDIR — the same listing at any -j, the files gone after, and a
	# $TMPDIR that cannot take them named once, with exit status 2.
	"$WORK/gen_trace" "$WORK/ipcbig" 200000 4 40
	mkdir -p "$WORK/tmpd"
	for c in "ipc" "ipc --json"; do
		# shellcheck disable=SC2086 # the command's words
		TMPDIR="$WORK/tmpd" "$A" $c -j 1 "$WORK/ipcbig" >"$WORK/i1" 2>"$WORK/e1"
		# shellcheck disable=SC2086
		TMPDIR="$WORK/tmpd" "$A" $c -j 2 "$WORK/ipcbig" >"$WORK/i2" 2>"$WORK/e2"
		check "ipc of 80 000 calls ($c): the same listing at -j 1 and -j 2, nothing on stderr" \
			bash -c "cmp -s '$WORK/i1' '$WORK/i2' && [ -s '$WORK/i1' ] && ! [ -s '$WORK/e1' ] && ! [ -s '$WORK/e2' ]"
	done
	# (i1 is the --json listing): every export, open and close listed once
	n() { cat "$WORK"/ipcbig/*.pw.jsonl | grep -c "\"op\":\"$1\""; }
	check "ipc of 80 000 calls: every export, open and close listed once" \
		jqt --argjson e "$(n ipc_export)" --argjson o "$(n ipc_open)" --argjson c "$(n ipc_close)" \
		'[.handles[].life[] | .op] as $ops | ([$ops[] | select(. == "export")] | length) == $e and
		 ([$ops[] | select(. == "open")] | length) == $o and
		 ([$ops[] | select(. == "close")] | length) + (.unmatched_closes | length) == $c and $e > 0' "$WORK/i1"
	TMPDIR="$WORK/tmpd" "$A" report -j 2 -o "$WORK/r.html" "$WORK/ipcbig" >/dev/null 2>"$WORK/e1"
	check "report of 80 000 IPC calls: a page, nothing on stderr" bash -c "[ -s '$WORK/r.html' ] && ! [ -s '$WORK/e1' ]"
	check "ipc and report: no temporary file left in \$TMPDIR" bash -c "[ -z \"\$(ls -A '$WORK/tmpd')\" ]"
	TMPDIR="$WORK/none" "$A" ipc -j 2 "$WORK/ipcbig" >"$WORK/i1" 2>"$WORK/e1"
	rc=$?
	check "ipc with a \$TMPDIR that does not exist: exit 2, one message naming it, no listing" \
		bash -c "[ $rc = 2 ] && [ \$(wc -l <'$WORK/e1') = 1 ] && grep -q 'cannot make a temporary file in $WORK/none' '$WORK/e1' && ! [ -s '$WORK/i1' ]"
	rm -rf "$WORK/ipcbig" "$WORK/tmpd"
fi
# One trace naming more pairs than any machine has (100 x 99 device pairs,
# one copy each): the first 8 192 its own, the rest in one unknown pair.
mkdir -p "$WORK/pairs"
{
	head -1 "$(ls "$WORK"/calls/*.pw.jsonl | head -1)"
	awk 'BEGIN { n = 0; for (s = 0; s < 100; s++) for (d = 0; d < 100; d++) if (s != d) { n++;
		printf "{\"type\":\"call\",\"seq\":%d,\"tid\":1,\"vendor\":\"cuda\",\"api\":\"cuMemcpyPeer\",\"variant\":\"\",\"family\":\"copy\",\"op\":\"peer_copy\",\"t_ns\":%d,\"dur_ns\":10,\"ret\":0,\"ret_name\":\"CUDA_SUCCESS\",\"args\":{\"dst\":\"0x7f3a5c000000\",\"dst_dev\":%d,\"src\":\"0x7f3a3a000000\",\"src_dev\":%d,\"bytes\":4096}}\n", n, 1000 + n, d, s } }'
} >"$WORK/pairs/p.1.pw.jsonl"
an matrix --json "$WORK/pairs"
check "a trace of 9 900 pairs: 8 192 kept, the other 1 708 copies in one unknown pair" \
	jqt '[.hosts[].pairs[] | select(.src != null and .dst != null)] | length == 8192 and
	     ([.[] | .copies] | add) == 8192' "$WORK/o.out"
check "a trace of 9 900 pairs: the unknown pair's copies" \
	jqt '[.hosts[].pairs[] | select(.src == null)] | length == 1 and .[0].copies == 1708' "$WORK/o.out"

# ---- timeline ---------------------------------------------------------------------

an timeline -o "$WORK/tl.json" "$WORK/calls"
check "timeline: Chrome trace JSON with one slice per call" \
	jqt --argjson n "$(jq -s '[.[] | select(.type=="call")] | length' "$WORK"/calls/*.pw.jsonl)" \
	'[.traceEvents[] | select(.ph == "X")] | length == $n' "$WORK/tl.json"
check "timeline: a named track per process, slices with pid, tid, ts, dur" \
	jqt '([.traceEvents[] | select(.name == "process_name")] | length == 2) and
	     all(.traceEvents[] | select(.ph == "X"); has("pid") and has("tid") and .ts >= 0 and .dur >= 0)' "$WORK/tl.json"
check "timeline: copies carry their bytes" \
	jqt '[.traceEvents[] | select(.cat == "copy" and .args.ret == "CUDA_SUCCESS") | .args.bytes] | all(. > 0)' "$WORK/tl.json"
an timeline "$WORK/calls"
check "timeline without -o is a usage error (exit 2)" rc_is 2
mkdir -p "$WORK/cwd"
cd "$WORK/cwd" # an sets $rc: not in a subshell
an timeline -o - "$WORK/calls"
cd "$OLDPWD"
check "timeline -o -: the same timeline on standard output, no file named '-'" \
	bash -c "[ $rc = 0 ] && cmp -s '$WORK/tl.json' '$WORK/o.out' && [ ! -e '$WORK/cwd/-' ]"
check "timeline -o -: its summary on standard error" err_has "^wrote standard output: 2 processes"
an timeline --json -o - "$WORK/calls"
check "timeline --json -o - is a usage error (exit 2): both on standard output" \
	bash -c "[ $rc = 2 ] && grep -q 'where --json would write its summary' '$WORK/o.err' && [ ! -s '$WORK/o.out' ]"

# ---- rules ----------------------------------------------------------------------------

an rules --json
check "rules: the analyzer's offline rules are in the catalog" \
	jqt '[.rules[] | select(.offline) | .id] | sort == ["ipc.event.destroy-while-open","ipc.event.leak",
		"ipc.free-while-open","ipc.leak","ipc.open.stale","ipc.open.unexported","ipc.open.unreachable",
		"um.accessed-by.faults","um.preferred.thrashing","um.prefetch.faults-after","um.read-mostly.written",
		"vmm.import.released"]' "$WORK/o.out"
if [ -f "$ROOT/include/peerwatch/rules_table.h" ]; then
	n=$(grep -c '^[[:space:]]*X([A-Z0-9_]*, "' "$ROOT/include/peerwatch/rules_table.h")
	check "rules: every row of include/peerwatch/rules_table.h is listed ($n)" \
		jqt --argjson n "$n" '[.rules[] | select(.online)] | length == $n' "$WORK/o.out"
fi

# ---- offline symbols on a made-up violation -------------------------------------------
# A header of a real run (its module list), and violations whose stacks point
# into the real program, into a missing library and into a "rebuilt" program.

parent=$(grep -L '"ipc-child"' "$WORK"/calls/*.pw.jsonl | head -1)
base=$(head -1 "$parent" | jq -r '.modules[0].base')
main=$(nm "$B/tests/calls" | awk '$3 == "main" {print $1}')
pc=$(printf '0x%x' $((base + 0x$main + 0x10)))
mkdir -p "$WORK/sym"
{
	head -1 "$parent" | jq -c '.modules += [{"path":"/nonexistent/libgone.so","base":"0x7e0000000000","build_id":null}]'
	echo '{"type":"call","seq":1,"tid":1,"vendor":"cuda","api":"cuMemcpyPeer","variant":"","family":"copy","t_ns":5,"dur_ns":1,"ret":0,"ret_name":"CUDA_SUCCESS","args":{"bytes":4}}'
	echo '{"type":"violation","seq":2,"call":1,"rule":"test.rule","severity":"warning","message":"made up","stack":["'"$pc"'","0x7e0000001234"]}'
	echo '{"type":"footer","events":2,"dropped":0,"t_end_ns":9,"reason":"exit"}'
} >"$WORK/sym/h.1.pw.jsonl"
an violations "$WORK/sym"
check "symbols: an address in the program is its function+offset and file:line" out_has "main+0x10 (calls.c:"
check "symbols: a library that is gone degrades to module+offset" out_has "libgone.so+0x1234 \[file not found\]"
check "symbols: the violation names its call" out_has "call 1 cuMemcpyPeer"
sed -i '1s/"build_id":"[0-9a-f]*"/"build_id":"00112233445566778899aabbccddeeff00112233"/' "$WORK/sym/h.1.pw.jsonl"
an violations "$WORK/sym"
check "symbols: a program rebuilt since the run (build id differs) is not used" \
	out_has "calls+0x[0-9a-f]* \[build id differs\]"
an check "$WORK/sym"
check "check: a warning passes the default gate (exit 0)" rc_is 0
an check --fail-on warning "$WORK/sym"
check "check --fail-on warning: a warning fails (exit 1)" rc_is 1
an check --fail-on performance "$WORK/sym"
check "check --fail-on performance: a warning fails (exit 1)" rc_is 1
an check --fail-on fatal "$WORK/sym"
check "check --fail-on with an unknown level is a usage error (exit 2)" rc_is 2

# ---- malformed input ----------------------------------------------------------------------
# Each case: a directory with one bad file; the analyzer must say what is
# wrong with file:line, skip what it cannot use, exit as documented, and
# never die of a signal.

good=$(ls "$WORK"/forkexec/*.pw.jsonl | head -1)
nlines=$(wc -l <"$good")
# its first call, and how many calls it has (its device lines are no calls)
call1=$(grep -m1 '"type":"call"' "$good")
ncalls=$(grep -c '"type":"call"' "$good")
calls_in() { jq '.calls_total' "$WORK/o.out"; }

d=$(case_dir)
head -c $(($(wc -c <"$good") - 7)) "$good" >"$d/cut.pw.jsonl"
an summary --json "$d"
check "truncated file: file:line names the cut last line" err_has "cut.pw.jsonl:$nlines: the last line has no newline"
check "truncated file: the rest is read, exit 0" bash -c "[ $rc = 0 ] && [ \"\$(jq '.calls_total' '$WORK/o.out')\" -gt 0 ]"
an summary --strict "$d"
check "truncated file with --strict: exit 2" rc_is 2

d=$(case_dir)
head -c $(($(wc -c <"$good") - 7)) "$good" >"$d/cut.pw.jsonl.partial"
an summary "$d"
check "truncated .partial: the cut last line is expected, no message, exit 0" \
	bash -c "[ $rc = 0 ] && ! [ -s '$WORK/o.err' ]"

d=$(case_dir)
{
	head -2 "$good"
	printf '{"type":"call","pad":"'
	head -c 2500000 /dev/zero | tr '\0' 'x'
	printf '"}\n'
	tail -n +3 "$good"
} >"$d/huge.pw.jsonl"
an summary --json "$d"
check "huge line: reported with its line number" err_has "huge.pw.jsonl:3: line longer than 1048576 bytes"
check "huge line: skipped, every other call read, exit 0" \
	bash -c "[ $rc = 0 ] && [ \"\$(jq '.calls_total' '$WORK/o.out')\" = $ncalls ]"
an summary --strict "$d"
check "huge line with --strict: exit 2" rc_is 2

d=$(case_dir)
{
	head -1 "$good"
	echo "$call1" | sed 's/"seq":[0-9]*/"seq":"7"/'
	echo "$call1" | sed 's/"args":{/"args":{"bytes":"many",/'
	echo "$call1" | sed 's/"ret":0/"ret":1.5/'
	echo "$call1" | sed 's/"t_ns":[0-9]*/"t_ns":123456789012345678901234567890/'
	echo '{"type":"violation","seq":3,"call":1,"rule":"x","severity":"error","message":"m","stack":["main"]}'
	echo '[1,2,3]'
	echo '{"no":"type"}'
	printf '{"type":"call","api":"\xff\xfe"}\n'
	echo "$call1" | sed 's/"seq":\([0-9]*\)/"seq":\1,"seq":\1/'
	echo "$call1" | sed 's/"args":{/"args":{"dev":0,"dev":1,/'
	tail -n +2 "$good"
} >"$d/types.pw.jsonl"
an summary --json "$d"
check "wrong type: seq as a string" err_has 'types.pw.jsonl:2: .*"seq" must be an integer, not a string'
check "wrong type: args.bytes as a string" err_has 'types.pw.jsonl:3: .*"args.bytes" must be a non-negative integer'
check "wrong type: ret as a real number" err_has 'types.pw.jsonl:4: .*"ret" must be an integer, not a real number'
check "wrong type: an integer too big for 64 bits" err_has 'types.pw.jsonl:5: not valid JSON'
check "wrong type: a stack frame that is not an address" err_has 'types.pw.jsonl:6: .*"stack\[0\]" is not a hex address'
check "wrong type: a line that is not an object" err_has 'types.pw.jsonl:7: a line must be a JSON object'
check "wrong type: no type member" err_has 'types.pw.jsonl:8: missing member "type"'
check "wrong type: invalid UTF-8" err_has 'types.pw.jsonl:9: not valid JSON'
check "a member named twice (seq): named, not the last one taken" \
	err_has 'types.pw.jsonl:10: a member named twice in one object .*"seq"'
check "a member named twice in args (dev): named" err_has 'types.pw.jsonl:11: a member named twice in one object .*"dev"'
check "wrong types: the good lines are all read, exit 0" \
	bash -c "[ $rc = 0 ] && [ \"\$(jq '.calls_total' '$WORK/o.out')\" = $ncalls ]"

# Members whose kinds only the trace format's table (trace_format.h) gives,
# corrupted: each line refused, named by file:line and member.
d=$(case_dir)
{
	head -1 "$good"
	echo "$call1" | sed 's/"args":{/"args":{"capabilities":[7],/'
	echo '{"type":"gpu_time","call":1,"gpu_ns":5,"t_gpu_ns":"soon"}'
	echo "$call1" | sed 's/"args":{/"args":{"location":{"type":"device","id":"0"},/'
	echo "$call1" | sed 's/"args":{/"args":{"copies":[{"dst":"0x1","dst_dev":0,"src":"0x2","src_dev":1}],/'
	tail -n +2 "$good"
} >"$d/kinds.pw.jsonl"
an summary --json "$d"
check "wrong kind: an argument's entry, named with file:line and member" \
	err_has 'kinds.pw.jsonl:2: call seq 1: "args.capabilities\[0\]" must be a string, not an integer'
check "wrong kind: a gpu_time member" err_has 'kinds.pw.jsonl:3: .*"t_gpu_ns" must be a non-negative integer, not a string'
check "wrong kind: a member of an object inside args" \
	err_has 'kinds.pw.jsonl:4: call seq 1: "args.location.id" must be an integer, not a string'
check "a batch copy without the size every copy has" \
	err_has 'kinds.pw.jsonl:5: call seq 1: missing member "args.copies\[0\].bytes"'
check "wrong kinds: the good lines are all read, exit 0" \
	bash -c "[ $rc = 0 ] && [ \"\$(jq '.calls_total' '$WORK/o.out')\" = $ncalls ]"

d=$(case_dir)
{
	head -1 "$good" | sed 's/"version":1/"version":2/'
	tail -n +2 "$good"
} >"$d/v2.pw.jsonl"
an summary "$d"
check "unknown version: a clear message" err_has "v2.pw.jsonl: line 1: trace format version 2 is not known to this reader (it reads version 1)"
check "unknown version: exit 2" rc_is 2

d=$(case_dir)
head -c 65536 "$B/bin/peerwatch-analyze" >"$d/garbage.pw.jsonl"
an summary "$d"
check "binary garbage: not a trace, exit 2" bash -c "[ $rc = 2 ] && grep -q 'garbage.pw.jsonl: line 1: not a peerwatch trace' '$WORK/o.err'"

d=$(case_dir)
: >"$d/empty.pw.jsonl"
an info "$d"
check "empty file: a clear message, exit 2" bash -c "[ $rc = 2 ] && grep -q 'empty.pw.jsonl: empty file' '$WORK/o.err'"
# Only regular files are read in a directory: a FIFO named like a trace
# would block the read until a writer came; a link is not followed there.
# Each is skipped with a word, the trace beside them read.
d=$(case_dir)
cp "$good" "$d/"
mkfifo "$d/fifo.pw.jsonl"
ln -s "$good" "$d/link.pw.jsonl"
an info "$d"
check "a FIFO named like a trace in a directory: skipped, saying so and why" \
	bash -c "[ $rc = 0 ] && grep -q 'fifo.pw.jsonl: skipped: a FIFO, not a file (reading it would wait for a writer)' '$WORK/o.err'"
check "a symbolic link named like a trace in a directory: skipped, saying so" \
	err_has 'link.pw.jsonl: skipped: a symbolic link'
check "... and the trace beside them is read" out_has '^1 trace file: 1 clean'

d=$(case_dir)
: >"$d/empty.pw.jsonl.partial"
an info --json "$d"
check "empty .partial (died before its header): reported, exit 0" \
	bash -c "[ $rc = 0 ] && jq -e '.files[0].unreadable | test(\"before writing its header\")' '$WORK/o.out' >/dev/null"

d=$(case_dir)
{
	head -1 "$good"
	head -c 200000 /dev/zero | tr '\0' '['
	echo
	for i in $(seq 1 100); do echo '{"type":"call"}'; done
	tail -n +2 "$good"
} >"$d/many.pw.jsonl"
an info --json "$d"
check "deep nesting and 100 bad lines: at most 10 messages, all counted" \
	bash -c "[ \$(wc -l <'$WORK/o.err') -le 11 ] && jq -e '.files[0].bad_lines == 101' '$WORK/o.out' >/dev/null"

d=$(case_dir)
cp "$good" "$d/"
printf 'not json\n' >"$d/bad.pw.jsonl"
an summary --json "$d"
check "a bad file among good ones: the good one is reported, exit 2" \
	bash -c "[ $rc = 2 ] && [ \"\$(jq '.calls_total' '$WORK/o.out')\" -gt 0 ]"

d=$(case_dir)
tail -n +2 "$good" >"$d/nohead.pw.jsonl"
an summary "$d"
check "a file whose first line is not a header: not a trace, exit 2" \
	bash -c "[ $rc = 2 ] && grep -q 'the first line is not a header' '$WORK/o.err'"

# ---- usage ---------------------------------------------------------------------------------

an
check "no command: usage, exit 2" rc_is 2
an frobnicate "$WORK/calls"
check "unknown command: exit 2" bash -c "[ $rc = 2 ] && grep -q \"unknown command 'frobnicate'\" '$WORK/o.err'"
an summary
check "no path: exit 2" rc_is 2
an summary "$WORK/does-not-exist"
check "a path that does not exist: exit 2" bash -c "[ $rc = 2 ] && grep -q 'does-not-exist: No such file' '$WORK/o.err'"
an summary -j 0 "$WORK/calls"
check "-j 0: usage error" rc_is 2
an summary --fail-on error "$WORK/calls"
check "an option of another command: usage error" rc_is 2
an --help
check "--help: exit 0 and every command listed" \
	bash -c "[ $rc = 0 ] && for c in summary check violations matrix ipc managed timeline rules info; do grep -q \"^  \$c \" '$WORK/o.out' || exit 1; done"

# ---- calls known by their op; traces from before "op", by API name ----------------------

# the same traces with every "op" removed: the same matrix and managed report
d=$(case_dir)
for f in "$WORK"/calls/*.pw.jsonl; do
	sed 's/,"op":"[a-z_0-9]*"//' "$f" >"$d/$(basename "$f")"
done
check "no op: the calls traces without \"op\" members" bash -c "! grep -q '\"op\":' '$d'/*.pw.jsonl"
for cmd in matrix managed; do
	an $cmd --json "$WORK/calls"
	sed "s|$WORK/calls|X|g" "$WORK/o.out" >"$WORK/with-op.json"
	an $cmd --json "$d"
	sed "s|$d|X|g" "$WORK/o.out" >"$WORK/no-op.json"
	check "no op: $cmd gives the same answer by API names" \
		bash -c "cmp -s '$WORK/with-op.json' '$WORK/no-op.json' && jq -e '.. | numbers | select(. > 0)' '$WORK/no-op.json' >/dev/null"
done
# the op decides, not the name: a peer copy under a name no vendor has counts,
# and a call named like one whose op says it is not a copy does not
d=$(case_dir)
for f in "$WORK"/calls/*.pw.jsonl; do
	sed -e 's/"api":"cuMemcpyPeer","variant":"","family":"copy","op":"peer_copy"/"api":"cuFutureCopy","variant":"","family":"copy","op":"peer_copy"/' \
		-e 's/"api":"cuMemcpyPeerAsync","variant":"","family":"copy","op":"peer_copy"/"api":"cuMemcpyPeerAsync","variant":"","family":"copy","op":"managed_range_attr"/' \
		"$f" >"$d/$(basename "$f")"
done
an matrix --json "$WORK/calls"
with=$(jq '[.hosts[].pairs[].copies] | add' "$WORK/o.out")
async=$(jq -s '[.[] | select(.type == "call" and .api == "cuMemcpyPeerAsync" and .parent == null and .ret == 0)] | length' "$WORK"/calls/*.pw.jsonl)
an matrix --json "$d"
check "op: a peer copy by op under another name counts; a MemcpyPeer whose op is not a copy does not" \
	bash -c "[ $async -gt 0 ] && grep -q cuFutureCopy '$d'/*.pw.jsonl && [ \"\$(jq '[.hosts[].pairs[].copies] | add' '$WORK/o.out')\" = $((with - async)) ]"

# ---- ops: the same calls and findings as summary, grouped by op -----------------------------

# calls not nested in a call of their own file, counted from the traces themselves
not_nested() {
	local n=0 f
	for f in $(find "$1" -name '*.pw.jsonl*'); do
		n=$((n + $(jq -s '[.[] | select(.type == "call")] as $c | [$c[].seq] as $s |
			[$c[] | select(.parent == null or (.parent as $p | $s | index($p) | not))] | length' "$f")))
	done
	echo $n
}
for dir in "$WORK/calls" "$WORK/ipc" "$HERE/fixtures"; do
	an summary --json "$dir"
	viol=$(jq '.violations_total' "$WORK/o.out")
	top=$(not_nested "$dir")
	an ops --json "$dir"
	check "ops ($(basename "$dir")): its calls are those not nested in a recorded call ($top), its findings summary's violations" \
		jqt "([.ops[].calls] | add) == $top and ([.ops[].findings] | add) == $viol" "$WORK/o.out"
	check "ops ($(basename "$dir")): the processes add up to the total" \
		jqt '([.per_process[].ops[].calls] | add) == ([.ops[].calls] | add)' "$WORK/o.out"
done
# the op, not the API name: a call of an unknown function with a known op counts under it
d=$(case_dir)
cp "$WORK"/calls/*.pw.jsonl "$d/"
an ops --json "$d"
before=$(jq '.ops[] | select(.op == "peer_copy") | .calls' "$WORK/o.out")
sed -i '0,/"api":"cuMemcpyPeer"/s//"api":"cuFutureCopy"/' "$d"/*.pw.jsonl
an ops --json "$d"
check "ops: grouped by op, whatever the API name" \
	bash -c "grep -q cuFutureCopy '$d'/*.pw.jsonl && jq -e '.ops[] | select(.op == \"peer_copy\") | .calls == $before' '$WORK/o.out' >/dev/null"

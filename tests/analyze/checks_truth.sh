# The analyzer tells the truth, says the same every time, and is a gate that
# damaged input cannot fool.  Sourced by run.sh (A, B, WORK, HERE, ROOT,
# traced, an, check, ok, bad, jqt, rc_is, err_has, out_has are set).
#
#   1. every line the library writes is read (roundtrip.c, roundtrip.py)
#   2. derived IPC facts know when each process ended, match frees by
#      allocation, cover event handles, and keep runs apart
#   3. every report is the same for any -j and any order of the files
#   4. check verifies each trace against its footer
#   5. traces without the calls' "op" (an older format) give the same IPC report
#   6. an independent oracle (oracle.py) recomputes the JSON figures of the
#      integration scenarios' traces, the fixtures and these
#   7. managed and timeline: the documented meanings
#   8. timeline -o cannot overwrite its input, a FIFO named by a trace
#      cannot hang the symbolizer, control bytes are escaped

# ---- the traces ----------------------------------------------------------------

traced "$WORK/roundtrip" --options gpu_timing=1 -- "$B/tests/roundtrip" 2>"$WORK/roundtrip.err" ||
	bad "roundtrip: the traced program failed: $(grep -v '^==' "$WORK/roundtrip.err" | tail -3)"
for m in interior exit-first killed-first; do
	traced "$WORK/ipc-$m" --options registry=0 -- "$B/tests/ipc_free_while_open" $m 2>"$WORK/ipc-$m.err" ||
		bad "ipc $m: the traced program failed: $(grep -v '^==' "$WORK/ipc-$m.err" | tail -3)"
done

# Two runs in one directory whose processes have the same pids (containers
# sharing a volume and a host name): the ipc run again, one second later,
# with its own run id, named as the library names a second file of a pid.
mkdir -p "$WORK/two-runs"
cp "$WORK"/ipc/*.pw.jsonl "$WORK/two-runs/"
python3 - "$WORK/ipc" "$WORK/two-runs" <<'EOF'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
for n in sorted(os.listdir(src)):
    out = []
    for line in open(os.path.join(src, n)):
        o = json.loads(line)
        if o.get("type") == "header":
            o["run_id"] = "second-run"
        for k in ("t_ns", "t0_mono_ns", "t_end_ns", "t_gpu_ns"):
            if k in o:
                o[k] += 1000000000
        out.append(json.dumps(o, separators=(",", ":")))
    open(os.path.join(dst, n.replace(".pw.jsonl", ".1.pw.jsonl")), "w").write("\n".join(out) + "\n")
EOF

# The integration scenarios' traces: those `make integration-test` kept
# (PW_KEEP_TRACES, tests/integration/tap.sh), else made here.
INTEG="$B/traces/integration"
if [ -z "$(find "$INTEG" -name '*.pw.jsonl*' -print -quit 2>/dev/null)" ]; then
	INTEG="$WORK/integration"
	for s in run rules rules_acl implicit cudart rules_hip vmm ipc_model mesh; do
		PW_KEEP_TRACES="$INTEG" timeout 600 bash "$ROOT/tests/integration/$s.sh" "$B" >/dev/null 2>&1
	done
fi
check "the integration scenarios left traces to read" test -n "$(find "$INTEG" -name '*.pw.jsonl*' -print -quit)"

# ---- 1. every line the library writes is read --------------------------------------

python3 "$HERE/roundtrip.py" "$A" "$ROOT/docs/hooks.md" "$WORK/roundtrip" "$INTEG" >"$WORK/rt.out" 2>"$WORK/rt.err"
check "roundtrip: every line the library wrote is read and counted, and the traces show every kind" \
	test -s "$WORK/rt.out" -a ! -s "$WORK/rt.err"
[ -s "$WORK/rt.err" ] && head -20 "$WORK/rt.err" | sed 's/^/    /'
an check --json --fail-on warning "$WORK/roundtrip"
check "a vmm.leak made at exit (no call) is a finding: check --fail-on warning fails" \
	jqt '[.findings[] | select(.rule == "vmm.leak" and .call == null and .api == "exit")] | length == 1' "$WORK/o.out"
check "... and so is the ipc.leak of the importer that exited with its mapping open" \
	jqt '[.findings[] | select(.rule == "ipc.leak" and .call == null and .derived == false)] | length == 1' "$WORK/o.out"
an matrix --json "$WORK/roundtrip"
check "cuMemcpyBatchAsync (its attrs a pointer) is read: 2 batch copies, 400 bytes from device 0 to 1" \
	jqt '.hosts[] | select(.vendor == "cuda") | .pairs[] | select(.src == "GPU0" and .dst == "GPU1") |
		.batch_copies == 2 and .bytes == 4496 and .copies == 3' "$WORK/o.out"
an summary --json "$WORK/roundtrip"
check "calls with sizes of 2^63 and more are counted: 3 cuMemPrefetchAsync, 2 cuMemcpyBatchAsync" \
	jqt '([.calls[] | select(.api == "cuMemPrefetchAsync") | .count] == [3]) and
		([.calls[] | select(.api == "cuMemcpyBatchAsync") | .count] == [2])' "$WORK/o.out"
an timeline --json -o "$WORK/rt-timeline.json" "$WORK/roundtrip"
check "timeline: an argument of 2^64-1 is written as the trace has it" \
	grep -q '"bytes":18446744073709551615' "$WORK/rt-timeline.json"
check "timeline: the file is JSON" jqt . "$WORK/rt-timeline.json"

# ---- 2. derived IPC facts ------------------------------------------------------------

an check --json "$WORK/ipc-exit-first"
check "the exporter frees after the importer exited: no ipc.free-while-open, the gate passes" \
	jqt '.passed and ([.findings[] | select(.rule == "ipc.free-while-open")] | length == 0)' "$WORK/o.out"
check "... and the leak is reported once: the importer's own ipc.leak at exit" \
	jqt '[.findings[] | select(.rule == "ipc.leak")] | length == 1 and .[0].derived == false' "$WORK/o.out"
an check --json --allow-partial "$WORK/ipc-killed-first"
check "the importer is killed (.partial) before the free: no ipc.free-while-open, and no leak: its mappings died with it" \
	jqt '.passed and ([.findings[] | select(.rule == "ipc.free-while-open" or .rule == "ipc.leak")] | length == 0)' \
	"$WORK/o.out"
an ipc --json "$WORK/ipc-interior"
check "an export of an interior pointer and of the base: the free of the base is the allocation's free" \
	jqt '.handles[0] | .freed and ([.life[].op] == ["export","export","open","free","close"])' "$WORK/o.out"
check "... and the free while open is derived" \
	jqt '[.findings[].rule] == ["ipc.free-while-open"] and .findings[0].api == "cuMemFree_v2"' "$WORK/o.out"
an ipc "$WORK/ipc-interior"
check "... and the text does not say the exporter's trace shows no free" bash -c "! grep -q 'shows no free' '$WORK/o.out'"
an ipc --json "$WORK/roundtrip"
check "an IPC event handle with its export record is exported; freed says whether the exporter destroyed it" \
	jqt '[.handles[] | select(.kind == "event")] | length == 1 and .[0].exported == true and (.[0].freed | type) == "boolean"' \
	"$WORK/o.out"
an ipc --json "$WORK/two-runs"
check "two runs with the same pids in one directory: one handle each, not one handle of both" \
	jqt '(.handles | length) == 2 and ([.handles[].life | length] == [4, 4])' "$WORK/o.out"
check "... and one ipc.free-while-open in each run, no stale open" \
	jqt '[.findings[].rule] == ["ipc.free-while-open", "ipc.free-while-open"] and
		([.findings[].process.file] | unique | length) == 2' "$WORK/o.out"

# ---- 3. the same answer every time -----------------------------------------------------

# Each command, text and JSON, with the files named in a new random order and
# 1 to 4 workers, against -j 1 with the files in order: byte for byte, and
# the exit status.
same_every_time() { # NAME REPS DIR [FORMAT...]
	local name=$1 reps=$2 dir=$3 files cmd fmt i j ref rc0 rc
	shift 3
	local formats=("$@")
	[ ${#formats[@]} = 0 ] && formats=("" --json)
	mapfile -t files < <(find "$dir" -type f \( -name '*.pw.jsonl' -o -name '*.pw.jsonl.partial' \) | sort)
	local differ=""
	for cmd in summary check violations matrix ipc managed info timeline; do
		for fmt in "${formats[@]}"; do
			local extra=()
			[ $cmd = timeline ] && extra=(-o "$WORK/det.timeline")
			"$A" $cmd $fmt "${extra[@]}" -j 1 "${files[@]}" >"$WORK/det.ref" 2>/dev/null
			rc0=$?
			[ $cmd = timeline ] && cat "$WORK/det.timeline" >>"$WORK/det.ref"
			for i in $(seq "$reps"); do
				j=$((i % 4 + 1))
				mapfile -t shuffled < <(printf '%s\n' "${files[@]}" | shuf)
				"$A" $cmd $fmt "${extra[@]}" -j $j "${shuffled[@]}" >"$WORK/det.out" 2>/dev/null
				rc=$?
				[ $cmd = timeline ] && cat "$WORK/det.timeline" >>"$WORK/det.out"
				if [ $rc != $rc0 ] || ! cmp -s "$WORK/det.ref" "$WORK/det.out"; then
					differ="$differ $cmd$fmt(-j$j)"
					break
				fi
			done
		done
	done
	check "$name: every command the same for any -j and order of the files${differ:+ (differs:$differ)}" test -z "$differ"
}
same_every_time "two runs, same pids" 12 "$WORK/two-runs"
same_every_time "roundtrip" 6 "$WORK/roundtrip"
same_every_time "fixtures" 6 "$HERE/fixtures"
same_every_time "the integration scenarios' traces" 1 "$INTEG" --json

# ---- 4. check verifies each trace against its footer ----------------------------------------

# calls' first trace has violations (and error findings, so exit 1 would
# win); forkexec's traces have none
with_vio=$(grep -l '"type":"violation"' "$WORK"/calls/*.pw.jsonl | head -1)
good=$(ls "$WORK"/forkexec/*.pw.jsonl | head -1)
d=$(case_dir)
grep -v '"type":"violation"' "$with_vio" >"$d/novio.pw.jsonl"
an check "$d"
check "check: the violation lines cut out of a trace whose footer counts them: fail, exit 3" rc_is 3
check "... naming the file and what disagrees" err_has 'novio.pw.jsonl: the footer counts [0-9]* violation events, the file has 0'
check "... and the verdict is not pass" out_has 'check: FAIL'
d=$(case_dir)
head -n -1 "$good" >"$d/nofoot.pw.jsonl"
an check "$d"
check "check: a trace cut short (no footer, not .partial): exit 3" rc_is 3
an check --allow-partial "$d"
check "... accepted with --allow-partial" rc_is 0
d=$(case_dir)
cp "$good" "$d/x.pw.jsonl.partial"
an check "$d"
check "check: a .partial trace: exit 3, named" bash -c "[ $rc = 3 ] && grep -q 'x.pw.jsonl.partial: left .partial' '$WORK/o.err'"
d=$(case_dir)
echo 'not a trace' >"$d/junk.pw.jsonl"
cp "$good" "$d/"
an check "$d"
check "check: an unreadable trace: FAIL and exit 3, not pass" bash -c "[ $rc = 3 ] && grep -q 'check: FAIL' '$WORK/o.out'"
an check --allow-partial "$d"
check "... --allow-partial does not accept it" rc_is 3
d=$(case_dir)
sed '$ s/"dropped":0,"dropped_by":{}/"dropped":3,"dropped_by":{"writer_behind":3}/' "$good" >"$d/dropped.pw.jsonl"
made=$(($(jq -s 'last.events' "$good") + 3))
an check "$d"
check "check: events dropped (writer behind): exit 3, saying how many of how many and why" \
	bash -c "[ $rc = 3 ] && grep -q 'dropped.pw.jsonl: 3 of $made events dropped: the writer was behind' '$WORK/o.err'"
# The calls other threads were recording when the process ended lose no
# finding (checked before they ran): the gate passes, and says nothing of
# them, whether a run has them or not; info does.
d=$(case_dir)
sed '$ s/"dropped":0,"dropped_by":{}/"dropped":2,"dropped_by":{"in_flight_at_exit":2}/' "$good" >"$d/inflight.pw.jsonl"
an check "$d"
check "check: only calls in flight at exit dropped: pass, exit 0, nothing on stderr" \
	bash -c "[ $rc = 0 ] && [ ! -s '$WORK/o.err' ] && grep -q '^check: pass' '$WORK/o.out'"
an check --json "$d"
check "... and no input problem in --json" jqt '.passed and .input_ok and (.input_problems | length == 0)' "$WORK/o.out"
an info "$d"
check "info: the calls in flight at exit are said, and not as dropped" \
	bash -c "grep -q 'in flight 2 calls in flight when the trace ended' '$WORK/o.out' &&
		grep -q 'footer: [0-9]* events, 0 dropped' '$WORK/o.out' && ! grep -q '^  dropped ' '$WORK/o.out'"
d=$(case_dir)
sed '$ s/"dropped":0,"dropped_by":{}/"dropped":1237,"dropped_by":{"writer_behind":1234,"in_flight_at_exit":3}/' \
	"$good" >"$d/behind.pw.jsonl"
made=$(($(jq -s 'last.events' "$good") + 1234))
an check "$d"
check "check: writer_behind and calls in flight: exit 3, counting only what was lost (1,234 of $made)" \
	bash -c "[ $rc = 3 ] && grep -q 'behind.pw.jsonl: 1,234 of $(printf %d $made | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') events dropped: the writer was behind' '$WORK/o.err'"
d=$(case_dir)
sed '$ s/"dropped":0,"dropped_by":{}/"dropped":1,"dropped_by":{"finding_in_flight_at_exit":1}/' "$good" >"$d/finding.pw.jsonl"
an check "$d"
check "check: a finding being written at exit is lost: exit 3" \
	bash -c "[ $rc = 3 ] && grep -q 'finding.pw.jsonl: 1 of [0-9]* events dropped: findings being written at exit' '$WORK/o.err'"
d=$(case_dir)
sed '$ s/"dropped":0,"dropped_by":{}/"dropped":5,"dropped_by":{"size_limit":5},"limit":{"bytes":4096,"seq":20,"t_ns":1}/' \
	"$good" >"$d/limit.pw.jsonl"
an check --json "$d"
check "check: the size limit stopped recording: the findings are all there, the gate holds (a note)" \
	jqt '.input_ok and (.input_problems | length == 1 and .[0].problem == "size limit" and .[0].fails == false)' \
	"$WORK/o.out"
sed -i '$ s/"dropped":5,"dropped_by":{"size_limit":5}/"dropped":6,"dropped_by":{"in_flight_at_exit":1,"size_limit":5}/' \
	"$d/limit.pw.jsonl"
an check --json "$d"
check "... and so with a call in flight at exit too (no loss): a note, not a failure" \
	jqt '.input_ok and (.input_problems | length == 1 and .[0].problem == "size limit" and .[0].fails == false)' \
	"$WORK/o.out"
d=$(case_dir)
sed '$ s/"events":\([0-9]*\)/"events":999/' "$good" >"$d/count.pw.jsonl"
an check "$d"
check "check: a footer that counts other events than the file has: exit 3" rc_is 3
an check "$WORK/no-such-dir" "$WORK/forkexec"
check "check: a path that does not exist: exit 3 (the gate did not see all it was given)" rc_is 3
an check "$WORK/empty-dir-that-is-missing"
check "check: nothing to check at all: exit 2" rc_is 2

# ---- 5. traces written before calls had an "op" ---------------------------------------
# The IPC report recognises calls by their op, and by their API names in a
# trace without ops: the same traces with every "op" removed give the same
# report.
for s in calls ipc; do
	mkdir -p "$WORK/noop-$s"
	for f in "$WORK/$s"/*.pw.jsonl*; do
		jq -c 'del(.op)' "$f" >"$WORK/noop-$s/$(basename "$f")"
	done
	"$A" ipc --json "$WORK/$s" | sed "s|$WORK/$s/||g" >"$WORK/noop-$s.want"
	"$A" ipc --json "$WORK/noop-$s" | sed "s|$WORK/noop-$s/||g" >"$WORK/noop-$s.got"
	check "ipc: $s's traces without \"op\" (an older format) give the same report, by API name" \
		cmp -s "$WORK/noop-$s.want" "$WORK/noop-$s.got"
	check "ipc: ... and that report is not empty" jqt '.handles | length > 0' "$WORK/noop-$s.got"
done

# ---- 6. the oracle ------------------------------------------------------------------------

sets=("$HERE/fixtures" "$WORK/roundtrip" "$WORK/two-runs" "$WORK/calls" "$WORK/ipc" "$WORK/crash" "$WORK/forkexec"
	"$WORK/ipc-interior" "$WORK/ipc-exit-first" "$WORK/ipc-killed-first" "$WORK/noop-calls" "$WORK/noop-ipc" "$INTEG")
for s in "$HERE"/fixtures/* "$HERE"/gpu-traces/*/; do
	[ -d "$s" ] && sets+=("${s%/}")
done
# Each scenario's own directory too, unless PW_ANALYZE_QUICK=1 (an analyzer
# built with the sanitizers: there the hundreds of runs would take half an
# hour; the scenarios' traces are still read, all together, in $INTEG).
if [ "${PW_ANALYZE_QUICK:-0}" != 1 ]; then
	mapfile -t leaves < <(find "$INTEG" -type f \( -name '*.pw.jsonl' -o -name '*.pw.jsonl.partial' \) -printf '%h\n' | sort -u)
	sets+=("${leaves[@]}")
fi
python3 "$HERE/oracle.py" "$A" "${sets[@]}" >"$WORK/oracle.out" 2>"$WORK/oracle.err"
orc=$?
check "oracle: the analyzer's JSON figures are those recomputed from the raw traces (${#sets[@]} sets)" \
	test $orc = 0 -a ! -s "$WORK/oracle.err"
[ -s "$WORK/oracle.err" ] && head -30 "$WORK/oracle.err" | sed 's/^/    /'

# ---- 7. managed and timeline ------------------------------------------------------------------

an managed --json "$WORK/roundtrip"
check "managed: a failed batch prefetch of 3 ranges to device 1 counts 3 failed prefetches to GPU1" \
	jqt '.prefetch == [{"host": .prefetch[0].host, "vendor": "cuda", "destination": "GPU1", "prefetches": 12,
		"failed": 5, "bytes": 28672}]' "$WORK/o.out"
check "managed: advice whose range runs past its allocation is in other_ranges, not its history" \
	jqt '([.other_ranges[] | select(.api == "cuMemAdvise_v2") | .bytes] == [9223372036854775807, 1048576]) and
		([.allocations[0].history[].api] == ["cuMemAdvise_v2", "cuMemPrefetchAsync_v2", "cuMemFree_v2"])' "$WORK/o.out"
an info --json "$WORK/roundtrip"
first_viol=$(python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
print(min(l["t_ns"] for l in lines if l.get("type") in ("call", "violation") and "t_ns" in l))' "$(ls "$WORK"/roundtrip/*.pw.jsonl | head -1)")
check "info: first_t_ns is the earliest event's time (a violation, written before its call)" \
	jqt --argjson t "$first_viol" '.files[0].first_t_ns == $t' "$WORK/o.out"
an timeline -o "$WORK/tl.json" "$WORK/roundtrip"
check "timeline: the first event, a violation, is at its own time, before its call (which starts after 0)" \
	jqt '([.traceEvents[] | select(.ph == "i" and .name == "peer.enable.unqueried")][0].ts == 0) and
		([.traceEvents[] | select(.ph == "X" and .args.seq == 1)][0].ts > 0)' "$WORK/tl.json"
# a driver call folded into its runtime call has its parent's slice, and says so
ptf=$(grep -l '"parent_time":true' $(find "$INTEG" -name '*.pw.jsonl') 2>/dev/null | head -1)
if [ -n "$ptf" ]; then
	an timeline -o "$WORK/tl-pt.json" "$ptf"
	check "timeline: the calls folded into their parent say parent_time, and only they ($(basename "$ptf"))" \
		test "$(jq -s '[.[] | select(.type == "call" and .parent_time == true) | .seq] | sort' "$ptf" | jq -c .)" = \
		"$(jq '[.traceEvents[] | select(.ph == "X" and .args.parent_time == true) | .args.seq] | sort' "$WORK/tl-pt.json" | jq -c .)"
	# summary: an API none of whose calls was timed on its own shows no times
	untimed=$(jq -s -r '[.[] | select(.type == "call")] | group_by(.api)[] |
		select(all(.parent_time == true)) | .[0].api' "$ptf" | sort | tr '\n' ' ')
	an summary "$ptf"
	shown=$(awk 'NF == 11 && $6 == "0" && $7 $8 $9 $10 $11 == "-----" { print $1 }' "$WORK/o.out" |
		sort | tr '\n' ' ')
	check "summary: the APIs whose calls all carry their parent's time show TIMED 0 and '-' ($untimed)" \
		test -n "$untimed" -a "$untimed" = "$shown"
else
	bad "timeline: no trace of the integration scenarios holds a folded call"
fi

# Threads take seq numbers in blocks (docs/trace-format.md, "Lines and their
# order"): a thread's numbers can be lower than those of another thread's
# earlier calls, so reports order a process's calls by t_ns, then seq.  One
# process, two threads: thread 10 took numbers 65.. after thread 11 took
# 1..; thread 11 copies before (t 1000) and after (t 3000) thread 10's peer
# enable (t 2000); thread 10 allocates managed memory (t 4000) that thread
# 11 then prefetches (t 5000) and frees (t 6000).
mkdir -p "$WORK/blocks"
{
	printf '%s\n' '{"type":"header","format":"peerwatch","version":1,"peerwatch_version":"0.1.0","pid":51001,"ppid":1,"host":"nodeS","rank":null,"argv":["blocks"],"t0_mono_ns":500,"t0_real_ns":1795314503000000300,"options":{"mode":"observe"},"vendors":{"cuda":{"library":"libcuda.so.1","driver_version":13000}},"modules":[]}'
	printf '%s\n' '{"type":"call","seq":1,"tid":11,"vendor":"cuda","api":"cuMemcpyPeer","variant":"","family":"copy","op":"peer_copy","t_ns":1000,"dur_ns":50,"ret":0,"ret_name":"CUDA_SUCCESS","args":{"dst":"0x7f2200000000","dst_dev":1,"dst_ctx":"0x5500000010","dst_ctx_dev":1,"src":"0x7f2100000000","src_dev":0,"src_ctx":"0x5500000000","src_ctx_dev":0,"bytes":4096}}'
	printf '%s\n' '{"type":"call","seq":65,"tid":10,"vendor":"cuda","api":"cuCtxEnablePeerAccess","variant":"","family":"peer","op":"peer_enable","t_ns":2000,"dur_ns":50,"ret":0,"ret_name":"CUDA_SUCCESS","cur_dev":0,"args":{"peer_ctx":"0x5500000010","peer_ctx_dev":1,"flags":0}}'
	printf '%s\n' '{"type":"call","seq":2,"tid":11,"vendor":"cuda","api":"cuMemcpyPeer","variant":"","family":"copy","op":"peer_copy","t_ns":3000,"dur_ns":50,"ret":0,"ret_name":"CUDA_SUCCESS","args":{"dst":"0x7f2200000000","dst_dev":1,"dst_ctx":"0x5500000010","dst_ctx_dev":1,"src":"0x7f2100000000","src_dev":0,"src_ctx":"0x5500000000","src_ctx_dev":0,"bytes":4096}}'
	printf '%s\n' '{"type":"call","seq":66,"tid":10,"vendor":"cuda","api":"cuMemAllocManaged","variant":"","family":"managed","op":"managed_alloc","t_ns":4000,"dur_ns":50,"ret":0,"ret_name":"CUDA_SUCCESS","cur_dev":0,"args":{"ptr":"0x7f3000000000","bytes":1048576,"flags":1,"flags_names":"CU_MEM_ATTACH_GLOBAL"}}'
	printf '%s\n' '{"type":"call","seq":3,"tid":11,"vendor":"cuda","api":"cuMemPrefetchAsync","variant":"","family":"managed","op":"managed_prefetch","t_ns":5000,"dur_ns":50,"ret":0,"ret_name":"CUDA_SUCCESS","args":{"ptr":"0x7f3000000000","ptr_dev":0,"bytes":4096,"dst_device":1,"stream":"0x0"}}'
	printf '%s\n' '{"type":"call","seq":4,"tid":11,"vendor":"cuda","api":"cuMemFree","variant":"_v2","family":"managed","op":"free","t_ns":6000,"dur_ns":50,"ret":0,"ret_name":"CUDA_SUCCESS","args":{"ptr":"0x7f3000000000","ptr_dev":0}}'
	printf '%s\n' '{"type":"footer","events":6,"dropped":0,"t_end_ns":7000,"reason":"exit","violations":0,"suppressed":0}'
} >"$WORK/blocks/nodeS.51001.pw.jsonl"
an matrix --json "$WORK/blocks"
check "seq blocks: a copy after another thread's peer enable (a lower seq, a later t_ns) is a peer copy; the one before is staged" \
	jqt '[.hosts[].pairs[] | select(.src == 0 and .dst == 1) | [.copies, .no_peer_copies]] == [[2, 1]]' "$WORK/o.out"
an managed --json "$WORK/blocks"
check "seq blocks: another thread's free (a lower seq, a later t_ns) frees the allocation, after its prefetch" \
	jqt '(.allocations | length == 1) and (.allocations[0].free_seq == 4) and
		([.allocations[0].history[].seq] == [3, 4])' "$WORK/o.out"

# ---- 8. the smaller ones ----------------------------------------------------------------------

d=$(case_dir)
cp "$with_vio" "$d/x.pw.jsonl"
sum_before=$(md5sum <"$d/x.pw.jsonl")
an timeline -o "$d/x.pw.jsonl" "$d/x.pw.jsonl"
check "timeline -o X X: refused (exit 2), X untouched" \
	bash -c "[ $rc = 2 ] && [ \"\$(md5sum <'$d/x.pw.jsonl')\" = '$sum_before' ]"
d=$(case_dir)
mkfifo "$d/module.fifo"
jq -c --arg m "$d/module.fifo" 'if .type == "header" or .type == "footer" then
	.modules = [{"path": $m, "base": "0x0", "build_id": null}] else . end' "$with_vio" >"$d/f.pw.jsonl"
timeout 20 "$A" violations "$d" >"$WORK/o.out" 2>"$WORK/o.err"
rc=$?
check "violations: a module path that is a FIFO does not hang the symbolizer (exit $rc)" test $rc != 124
check "... it is said not to be a regular file" out_has 'not a regular file'
d=$(case_dir)
# a file name with a raw 0x9b (CSI to some terminals) and an escape sequence
python3 - "$with_vio" "$d/e"$'\x9b''31m'$'\x1b''[2J.pw.jsonl' <<'EOF'
import json, sys
out = []
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "header":
        o["host"] = "h\x1b[2J\u009b"
        o["argv"] = ["/bin/p\x1b]0;title\x07"]
    if o["type"] == "call":
        o["api"] += "\x1b[31m"
    if o["type"] == "violation":
        o["message"] += "\x1b[5m"
    out.append(json.dumps(o))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
EOF
escaped=1
for cmd in summary check violations matrix ipc managed info; do
	"$A" $cmd "$d" >"$WORK/esc.out" 2>&1
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f\x9b]' "$WORK/esc.out"; then
		escaped=0
		echo "    $cmd printed a raw control byte"
	fi
done
check "no command prints a raw control byte from a trace (they are escaped)" test $escaped = 1
"$A" summary "$d" >"$WORK/esc.out" 2>&1
check "... as \\xNN" grep -q 'cuMemcpyPeer\\x1b\[31m' "$WORK/esc.out"

# Unified-memory events (um_counters=1) and managed --effects, sourced by
# run.sh: the hand-made traces of tests/analyze/um/, one directory per
# scenario: prefetch, preferred, readmostly and accessedby each commit the
# derived finding of that name once; good comes close to every rule and
# commits none; off had its counters off (the footer's um_off).
UM="$HERE/um"

for s in prefetch preferred readmostly accessedby good off; do
	golden "um-$s.effects" "$UM/$s" managed --effects "$UM/$s"
done
golden "um-all.check" "$UM" check --fail-on performance "$UM"

# each finding exactly once, by its rule, in check, violations and managed --effects
for pair in prefetch:um.prefetch.faults-after preferred:um.preferred.thrashing \
	readmostly:um.read-mostly.written accessedby:um.accessed-by.faults; do
	s=${pair%%:*} rule=${pair#*:}
	an check --json --fail-on performance "$UM/$s"
	check "um $s: check fails with exactly one $rule, derived, performance" \
		jqt --arg r "$rule" '(.findings | length) == 1 and .findings[0].rule == $r and
			.findings[0].derived and .findings[0].severity == "performance" and
			.findings[0].call == 3' "$WORK/o.out"
	check "um $s: check exits 1 at --fail-on performance" rc_is 1
	an violations --json "$UM/$s"
	check "um $s: violations lists $rule" jqt --arg r "$rule" '[.. | objects | select(.rule? == $r)] | length >= 1' "$WORK/o.out"
	an violations --no-derived --json "$UM/$s"
	check "um $s: --no-derived leaves $rule out" jqt --arg r "$rule" '[.. | objects | select(.rule? == $r)] | length == 0' "$WORK/o.out"
	an managed --effects --json "$UM/$s"
	check "um $s: managed --effects names $rule on call 3" \
		jqt --arg r "$rule" '[.allocations[].calls[] | select(.finding) | {seq, rule: .finding.rule}] == [{seq: 3, rule: $r}]' "$WORK/o.out"
done
an check --fail-on performance "$UM/good" "$UM/off"
check "um good, off: check passes at --fail-on performance" rc_is 0

# the order of the um lines changes nothing (CUPTI writes them in batches)
mkdir -p "$WORK/um-rev"
for s in prefetch preferred readmostly accessedby good; do
	f=$(ls "$UM/$s"/*.pw.jsonl)
	{ head -1 "$f"; sed '1d;$d' "$f" | tac; tail -1 "$f"; } >"$WORK/um-rev/$s.$(basename "$f" | cut -d. -f2).pw.jsonl"
	an managed --effects --json "$UM/$s"
	cp "$WORK/o.out" "$WORK/um-fwd.json"
	an managed --effects --json "$WORK/um-rev/$s.$(basename "$f" | cut -d. -f2).pw.jsonl"
	check "um $s: the same effects with the lines reversed" \
		diff <(jq -S 'walk(if type == "object" then del(.process) else . end)' "$WORK/um-fwd.json") \
		<(jq -S 'walk(if type == "object" then del(.process) else . end)' "$WORK/o.out")
done

# no counters: said plainly, text and JSON
an managed --effects "$FIX/cudart"
check "um: a trace without um lines says so" out_has "no unified-memory counters in these traces (run with um_counters=1)"
an managed --effects --json "$UM/off"
check "um off: JSON says why the counters were off" \
	jqt '.counters == false and (.traces[0].um_off | test("libcupti")) and (.note | test("um_counters=1"))' "$WORK/o.out"
an info "$UM/off"
check "um off: info shows why the counters were off" out_has "um  *unified-memory counters off: libcupti"
an info --json "$UM/good"
check "um good: info --json counts the um events" jqt '.files[0].um_events == 10 and .files[0].footer_um_events == 10 and .files[0].um_lost == 0' "$WORK/o.out"
an managed --effects --json "$UM/good"
check "um good: the event in no allocation is counted outside" jqt '.outside == 1 and .um_events == 10' "$WORK/o.out"
an managed --json "$UM/good"
check "um: managed without --effects is the allocation history" jqt '.allocations | length == 1' "$WORK/o.out"
an summary --effects "$UM/good"
check "um: --effects is managed's option alone" rc_is 2

# timeline: the um tracks beside the threads
an timeline -o "$WORK/um-tl.json" "$UM/good" "$UM/prefetch"
check "um timeline: fault and migration tracks named" \
	jqt '[.traceEvents[] | select(.name == "thread_name") | .args.name] as $n |
		["um faults: CPU", "um faults: GPU 0", "um faults: GPU 1", "um migrations: CPU -> GPU 0",
		 "um migrations: GPU 1 -> CPU", "um driver"] - $n == []' "$WORK/um-tl.json"
check "um timeline: faults are instants, migrations complete events with a duration" \
	jqt '[.traceEvents[] | select(.cat == "um")] as $u |
		($u | map(select(.name | test("fault"))) | all(.ph == "i")) and
		($u | map(select(.name == "htod" or .name == "dtoh")) | all(.ph == "X" and .dur > 0)) and
		($u | length) == 16' "$WORK/um-tl.json"

# bad um lines: named with file:line and the value
mkdir -p "$WORK/um-bad"
{
	head -1 "$UM/good/umprog.51005.pw.jsonl"
	echo '{"type":"um","kind":"teleport","t_ns":5,"addr":"0x1000"}'
	echo '{"type":"um","kind":"cpu_fault","t_ns":5}'
	echo '{"type":"um","kind":"gpu_fault","t_ns":5,"addr":"0x1000","proc":0,"access":"scribble"}'
	echo '{"type":"um","kind":"htod","t_ns":5,"addr":"0x1000","src":"gpu","dst":0,"cause":"user"}'
	echo '{"type":"um","kind":"dtoh","t_ns":5,"addr":"0x1000","src":0,"dst":"cpu","cause":"boredom"}'
	echo '{"type":"gpu_time","call":1,"gpu_ns":5,"t_gpu_ns":9,"method":"cupti"}'
} >"$WORK/um-bad/bad.51009.pw.jsonl"
an info "$WORK/um-bad"
check "um bad: an unknown kind named with file:line" err_has 'bad.51009.pw.jsonl:2: um: kind "teleport" is not one this reader knows'
check "um bad: a missing addr named with file:line" err_has 'bad.51009.pw.jsonl:3: um: missing member "addr"'
check "um bad: an unknown access named with file:line" err_has 'bad.51009.pw.jsonl:4: um: access "scribble" is not one this reader knows'
check "um bad: a processor that is no processor named with file:line" err_has 'bad.51009.pw.jsonl:5: um: "src" is "gpu", not "cpu" or a device ordinal'
check "um bad: an unknown cause named with file:line" err_has 'bad.51009.pw.jsonl:6: um: cause "boredom" is not one this reader knows'
an info --json "$WORK/um-bad"
check "um bad: five bad lines, the gpu_time with a method read" jqt '.files[0].bad_lines == 5 and .files[0].gpu_times == 1' "$WORK/o.out"

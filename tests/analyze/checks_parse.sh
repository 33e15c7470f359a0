# The reader's two parses agree (analyzers/read/parse.c): every command, on
# every trace this run made and on the fixtures and real-GPU traces, gives
# the same output and exit status with the fast path as with every line
# read by the full parse (PEERWATCH_ANALYZE_PARSE=full).  That the fast
# path is taken at all, on the lines the library writes, the unit test asks
# line by line (tests/unit/test_analyze_reader.c, fast_path); that both
# take and refuse the same lines, the fuzz target (fuzz_reader.c).  And the
# pre-phases' two filters agree (reader.c): a call line given to a sink by
# its op (pre_by_op) and every line searched for every sink's keys
# (PEERWATCH_ANALYZE_PARSE=keys) give every command with a pre-phase the
# same output.
# Sourced by run.sh (A, HERE, WORK, check, bad are set).

parse_dirs() { # every directory holding a trace, each once
	{
		find "$WORK" "$HERE/fixtures" "$HERE/gpu-traces" -name '*.pw.jsonl*' -type f -printf '%h\n'
	} | sort -u
}

parse_same() { # DIR [MODE]: each command both ways; "" or the first difference
	local d=$1 mode=${2:-full} c out1 out2 rc1 rc2 cmds
	cmds=("summary --json" "check --json" "matrix --json" "ipc --json" "managed --json"
		"violations --json" "ops --json" "info --json" "check --format sarif"
		"timeline -o $WORK/parse-tl.json")
	[ "$mode" = keys ] && cmds=("check --json" "matrix --json" "ipc --json" "managed --json"
		"managed --effects --json" "violations --json" "info --json" "timeline -o $WORK/parse-tl.json")
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086 # the command's words
		out1=$("$A" $c "$d" 2>&1)
		rc1=$?
		[ -f "$WORK/parse-tl.json" ] && mv "$WORK/parse-tl.json" "$WORK/parse-tl1.json"
		# shellcheck disable=SC2086
		out2=$(PEERWATCH_ANALYZE_PARSE=$mode "$A" $c "$d" 2>&1)
		rc2=$?
		if [ -f "$WORK/parse-tl1.json" ]; then # the timeline's file, not its stdout
			cmp -s "$WORK/parse-tl.json" "$WORK/parse-tl1.json" || out2="$out2 (another file)"
			rm -f "$WORK/parse-tl.json" "$WORK/parse-tl1.json"
		fi
		if [ "$rc1" != "$rc2" ] || [ "$out1" != "$out2" ]; then
			echo "$c (status $rc1 and $rc2)"
			return
		fi
	done
}

parse_all() { # MODE WHAT: parse_same on every directory, a check of them all
	local mode=$1 what=$2 d why n_dirs=0 n_diff=0
	while read -r d; do
		n_dirs=$((n_dirs + 1))
		why=$(parse_same "$d" "$mode")
		if [ -n "$why" ]; then
			n_diff=$((n_diff + 1))
			bad "$what differ on ${d#"$WORK"/}: $why"
		fi
	done < <(parse_dirs)
	check "$what: every command the same on all $n_dirs trace directories ($n_diff differ)" \
		test "$n_dirs" -gt 20 -a "$n_diff" = 0
}

# A copy nested in a recorded runtime copy, timed on the device: its time
# is its parent's, which matrix learns in the pre-phase from the nested
# copy's "parent" member (copies' pre_also_keys: a copy is given to the
# sink by its op only when nested).  With the ops written, as the library
# writes them; the directory is also among those parse_all compares.
mkdir -p "$WORK/parse-nested"
{
	head -1 "$HERE/fixtures/cudart/rtprog.43001.pw.jsonl"
	cat <<'EOF'
{"type":"call","seq":2,"tid":5,"vendor":"cuda","api":"cudaDeviceEnablePeerAccess","variant":"","family":"peer","op":"peer_enable","t_ns":1000,"dur_ns":900,"ret":0,"ret_name":"cudaSuccess","layer":"runtime","cur_dev":0,"args":{"peer_dev":1,"flags":0}}
{"type":"call","seq":5,"tid":5,"vendor":"cuda","api":"cuMemcpyPeer","variant":"","family":"copy","op":"peer_copy","t_ns":2100,"dur_ns":99000,"ret":0,"ret_name":"CUDA_SUCCESS","parent":4,"cur_dev":0,"args":{"dst":"0x7f2200000000","dst_dev":1,"dst_ctx":"0x5500000010","src":"0x7f2100000000","src_dev":0,"src_ctx":"0x5500000000","bytes":1048576}}
{"type":"call","seq":4,"tid":5,"vendor":"cuda","api":"cudaMemcpyPeer","variant":"","family":"copy","op":"peer_copy","t_ns":2000,"dur_ns":100000,"ret":0,"ret_name":"cudaSuccess","layer":"runtime","cur_dev":0,"args":{"dst":"0x7f2200000000","dst_dev":1,"dst_device":1,"src":"0x7f2100000000","src_dev":0,"src_device":0,"bytes":1048576}}
{"type":"gpu_time","call":5,"gpu_ns":400,"t_gpu_ns":11500,"method":"cupti"}
{"type":"footer","events":3,"dropped":0,"t_end_ns":400000,"reason":"exit","violations":0,"suppressed":0}
EOF
} >"$WORK/parse-nested/rtprog.43001.pw.jsonl"
"$A" matrix --json "$WORK/parse-nested" >"$WORK/parse-nested.json" 2>&1
check "matrix: a nested copy's device time counted through its parent, by op" \
	jqt '.hosts[0].pairs[0] | .gpu_copies == 1 and .gpu_ns == 400 and .copies == 1' "$WORK/parse-nested.json"

parse_all full "fast and full parse"
parse_all keys "pre-phase by op and by keys"

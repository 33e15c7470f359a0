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

parse_all full "fast and full parse"
parse_all keys "pre-phase by op and by keys"

# The DuckDB views a user loads the traces with (share/peerwatch/duckdb/):
# on every trace of this run, the fixtures and the real-GPU traces, every
# view's columns are members of the trace format's JSON Schema, of types
# that hold them, and the per-API figures from pw_calls, the findings of
# pw_violations and the processes of pw_runs are summary's
# (tests/analyze/duckdb_check.py, duckdb_views.mjs).  DuckDB is its Node.js
# package, installed with npm under the build directory the first time
# (DUCKDB_NODE_API: the version); without node and npm, or without the
# registry, the check says skip and why.  Sourced by run.sh (A, B, HERE,
# ROOT, WORK, check, bad are set).

DUCKDB_NODE_API=${DUCKDB_NODE_API:-1.5.6-r.1}
duck_dir="$B/duckdb"
duck_ready() {
	command -v node >/dev/null || { echo "no node"; return 1; }
	[ -f "$duck_dir/node_modules/@duckdb/node-api/package.json" ] &&
		grep -q "\"version\": \"$DUCKDB_NODE_API\"" "$duck_dir/node_modules/@duckdb/node-api/package.json" &&
		return 0
	command -v npm >/dev/null || { echo "no npm"; return 1; }
	if ! npm install --prefix "$duck_dir" --no-audit --no-fund --no-save \
		"@duckdb/node-api@$DUCKDB_NODE_API" >"$WORK/npm.log" 2>&1; then
		echo "npm install @duckdb/node-api@$DUCKDB_NODE_API failed: $(tail -1 "$WORK/npm.log")"
		return 1
	fi
}

if why=$(duck_ready); then
	cp "$HERE/duckdb_views.mjs" "$duck_dir/"
	mapfile -t duck_traces < <(find "$WORK" "$HERE/fixtures" "$HERE/gpu-traces" -type f \
		\( -name '*.pw.jsonl' -o -name '*.pw.jsonl.partial' \) | sort)
	if node "$duck_dir/duckdb_views.mjs" "$ROOT/share/peerwatch/duckdb" "${duck_traces[@]}" \
		>"$WORK/duck.json" 2>"$WORK/duck.err"; then
		"$A" summary --json "${duck_traces[@]}" >"$WORK/duck-summary.json" 2>/dev/null
		check "duckdb: the views hold the schema's members, and say what summary says (${#duck_traces[@]} traces)" \
			python3 "$HERE/duckdb_check.py" "$ROOT/docs/trace.schema.json" "$WORK/duck.json" \
			"$WORK/duck-summary.json"
	else
		bad "duckdb: the views failed on the traces: $(tail -3 "$WORK/duck.err")"
	fi
else
	echo "skip - duckdb: the views are not checked: $why"
fi

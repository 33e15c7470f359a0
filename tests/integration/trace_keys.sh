#!/bin/bash
# The trace format, one table (include/peerwatch/trace_format.h), against
# what the library writes: a corpus of traces of every vendor on the
# simulated runtimes (trace_corpus.sh), every member of every line checked
# against the table both ways (trace_keys.c), and every line against the
# JSON Schema generated from it (docs/trace.schema.json).
#
#   tests/integration/trace_keys.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-keys.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$HERE/tap.sh"

"$HERE/trace_corpus.sh" "$B" "$WORK/corpus" >"$WORK/corpus.out" 2>&1
files=$(find "$WORK/corpus" -name '*.pw.jsonl' | wc -l)
check "corpus: traces of every vendor written ($files files)" [ "$files" -gt 200 ]
for v in cuda hip acl; do
	check "corpus: $v calls in it" grep -qr --include='*.pw.jsonl' "\"vendor\":\"$v\"" "$WORK/corpus"
done

find "$WORK/corpus" -name '*.pw.jsonl' -print0 | xargs -0 "$B/tests/trace_keys" >"$WORK/keys.out"
rc=$?
grep '^not ok' "$WORK/keys.out" | head -20
check "every member of every line is in the table, of its kind, and every row is used ($(tail -1 "$WORK/keys.out"))" [ $rc -eq 0 ]

# The schema: the same table as JSON Schema; every line must validate.
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	bad "schema: no python3 with jsonschema (scripts/install-deps.sh installs python3-jsonschema)"
else
	if "$py" - "$ROOT/docs/trace.schema.json" "$WORK/corpus" >"$WORK/schema.out" 2>&1 <<'PY'; then
import glob, json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
n = bad = 0
for f in sorted(glob.glob(sys.argv[2] + "/**/*.pw.jsonl", recursive=True)):
    for i, line in enumerate(open(f), 1):
        if '"type":"call"' in line and n % 50:  # every 50th of the many call lines, all the others
            n += 1
            continue
        n += 1
        for e in v.iter_errors(json.loads(line)):
            bad += 1
            if bad <= 5:
                print("%s:%d: %s" % (f, i, e.message[:200]))
print("%d lines, %d invalid" % (n, bad))
sys.exit(1 if bad else 0)
PY
		ok "schema: every line of the corpus validates against docs/trace.schema.json ($(tail -1 "$WORK/schema.out"))"
	else
		bad "schema: lines that do not validate: $(head -3 "$WORK/schema.out")"
	fi
fi
# A violation's "op" is its call's; one made when the process ends has an END op.
if python3 - "$WORK/corpus" >"$WORK/vop.out" 2>&1 <<'PY'; then
import glob, json, sys
n = bad = 0
for f in sorted(glob.glob(sys.argv[1] + "/**/*.pw.jsonl", recursive=True)):
    ops, viol = {}, []
    for i, line in enumerate(open(f), 1):
        e = json.loads(line)
        if e.get("type") == "call":
            ops[e["seq"]] = e.get("op")
        elif e.get("type") == "violation":
            viol.append((i, e))
    for i, e in viol:
        n += 1
        want = ops.get(e["call"]) if "call" in e else None
        ok = e.get("op") == want if want else e.get("op") in ("exit", "ipc_event_exit", "vmm_exit") or "call" in e
        if not ok:
            bad += 1
            if bad <= 5:
                print("%s:%d: op %s, its call's %s" % (f, i, e.get("op"), want))
print("%d violations, %d with another op than their call's" % (n, bad))
sys.exit(1 if bad or not n else 0)
PY
	ok "violations: each has its call's op ($(tail -1 "$WORK/vop.out"))"
else
	bad "violations: $(head -3 "$WORK/vop.out")"
fi
# The check fails when the table and the library part: a member the table
# lacks, and a row no line uses.
printf '{"type":"call","seq":1,"tid":1,"vendor":"cuda","api":"x","variant":"","family":"peer","op":"peer_query","t_ns":1,"dur_ns":1,"ret":0,"ret_name":null,"args":{"no_such_key":1}}\n' >"$WORK/bad.jsonl"
out=$("$B/tests/trace_keys" "$WORK/bad.jsonl")
check "a trace the table does not fit fails" [ $? -ne 0 ]
check "an unknown argument key is named" grep -q 'call.args.no_such_key: a member' <<<"$out"
check "rows no line uses are named" grep -q 'no trace has it' <<<"$out"
printf '{"type":"call","seq":"1","tid":1,"vendor":"cuda","api":"x","variant":"","family":"peer","op":"peer_query","t_ns":1,"dur_ns":1,"ret":0,"ret_name":null,"args":{}}\n' >"$WORK/kind.jsonl"
check "a member of the wrong kind is named" grep -q 'call.seq: is not integer' <<<"$("$B/tests/trace_keys" "$WORK/kind.jsonl")"
echo "trace_keys: $pass passed, $fail failed"
[ $fail -eq 0 ]

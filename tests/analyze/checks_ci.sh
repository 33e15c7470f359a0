# check and violations in the CI formats (--format sarif|junit), and colour.
# Sourced by run.sh after checks.sh (A, B, WORK, ROOT, HERE, an, rc_is, check,
# ok, bad and the scenarios' traces are there).
#
# Every output is validated by tests/analyze/ci_validate.py (SARIF 2.1.0's
# required and allowed properties, JUnit XML's layout and counts), which is
# itself shown to refuse broken documents; where a finding is placed is
# compared with addr2line's answer for the same address, not with the
# analyzer's own symbolizer.

VALIDATE="$HERE/ci_validate.py"
valid() { python3 "$VALIDATE" "$1" "$2" >"$WORK/v.out" 2>&1; }

# ---- every scenario, both commands, both formats: valid, same exit status as text ----

for dir in calls ipc crash fixtures; do
	d="$WORK/$dir"
	[ $dir = fixtures ] && d="$HERE/fixtures"
	for cmd in check violations; do
		an $cmd "$d"
		text_rc=$rc
		for fmt in sarif junit; do
			an $cmd --format $fmt --source-root "$ROOT" "$d"
			cp "$WORK/o.out" "$WORK/ci.$dir.$cmd.$fmt"
			check "$cmd --format $fmt ($dir): exits as the text output does ($text_rc)" rc_is $text_rc
			if valid $fmt "$WORK/o.out"; then
				ok "$cmd --format $fmt ($dir): valid"
			else
				bad "$cmd --format $fmt ($dir): $(head -5 "$WORK/v.out")"
			fi
		done
	done
done

# ---- the validator refuses what it must -------------------------------------------

refused() { # DESCRIPTION FORMAT FILE: the validator must fail on FILE
	if valid "$2" "$3"; then bad "validator: accepted $1"; else ok "validator: refuses $1"; fi
}
s="$WORK/ci.calls.check.sarif"
jq 'del(.runs[0].results[0].message)' "$s" >"$WORK/bad.sarif"
refused "a result without its message" sarif "$WORK/bad.sarif"
jq '.runs[0].results[0].level = "fatal"' "$s" >"$WORK/bad.sarif"
refused "a level SARIF does not have" sarif "$WORK/bad.sarif"
jq '.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0' "$s" >"$WORK/bad.sarif"
refused "a startLine of 0" sarif "$WORK/bad.sarif"
jq '.runs[0].results[0].where = 1' "$s" >"$WORK/bad.sarif"
refused "a property SARIF does not define" sarif "$WORK/bad.sarif"
jq '.runs[0].results[0].ruleId = "no.such.rule"' "$s" >"$WORK/bad.sarif"
refused "a ruleId the driver does not list" sarif "$WORK/bad.sarif"
jq 'del(.runs[0].invocations[0].executionSuccessful)' "$s" >"$WORK/bad.sarif"
refused "an invocation without executionSuccessful" sarif "$WORK/bad.sarif"
j="$WORK/ci.calls.check.junit"
sed '0,/failures="[0-9]*"/s//failures="99"/' "$j" >"$WORK/bad.junit"
refused "JUnit counts that differ from the cases" junit "$WORK/bad.junit"
sed 's|</testsuites>||' "$j" >"$WORK/bad.junit"
refused "XML that is not well-formed" junit "$WORK/bad.junit"

# ---- SARIF: what the results say ------------------------------------------------------

an check --json "$WORK/calls"
cp "$WORK/o.out" "$WORK/calls.check.json"
check "sarif (calls): one result per finding, with its rule and level" \
	python3 - "$WORK/calls.check.json" "$WORK/ci.calls.check.sarif" <<'EOF'
import json, sys
text = json.load(open(sys.argv[1]))["findings"]
run = json.load(open(sys.argv[2]))["runs"][0]
lv = {"error": "error", "warning": "warning", "performance": "note"}
res = run["results"]
assert len(res) == len(text) > 0, (len(res), len(text))
for f, r in zip(text, res):
    assert r["ruleId"] == f["rule"] and r["level"] == lv[f["severity"]], (r["ruleId"], f["rule"])
    assert f["message"] in r["message"]["text"]
    assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == f["rule"]
EOF

# partialFingerprints: the same program traced again (another pid, other
# addresses) gives each finding the same two fingerprints; within a run,
# results of different rules or call sites do not share a call site's.
traced "$WORK/calls-again" -- "$B/tests/calls" getproc "$WORK/calls-again.expect" >/dev/null 2>&1
an check --format sarif --source-root "$ROOT" "$WORK/calls-again"
check "sarif (calls): partialFingerprints the same in another run of the program, none of its pid or addresses" \
	python3 - "$WORK/ci.calls.check.sarif" "$WORK/o.out" <<'EOF'
import json, re, sys
def prints(path):
    res = json.load(open(path))["runs"][0]["results"]
    for r in res:
        fp = r["partialFingerprints"]
        assert set(fp) == {"peerwatchCallSite/v1", "peerwatchStack/v1"}, fp
        assert all(re.fullmatch("[0-9a-f]{16}", v) for v in fp.values()), fp
    return res
a, b = prints(sys.argv[1]), prints(sys.argv[2])
assert len(a) == len(b) > 1, (len(a), len(b))
assert {r["properties"]["process"]["pid"] for r in a}.isdisjoint({r["properties"]["process"]["pid"] for r in b})
key = lambda r: (r["ruleId"], r["partialFingerprints"]["peerwatchCallSite/v1"], r["partialFingerprints"]["peerwatchStack/v1"])
assert sorted(map(key, a)) == sorted(map(key, b)), (sorted(map(key, a)), sorted(map(key, b)))
site = {}
for r in a:
    site.setdefault(r["partialFingerprints"]["peerwatchCallSite/v1"], set()).add(
        (r["ruleId"], json.dumps(r["locations"], sort_keys=True)))
assert all(len(v) == 1 for v in site.values()), site
EOF

# Where each finding of the calls run is placed, against addr2line on the
# first address the stack has in the program (calls is linked with debug
# information, its frames are the program's own).
check "sarif (calls): each finding at the program's file:line, as addr2line names it" \
	python3 - "$WORK/calls" "$WORK/ci.calls.check.sarif" "$ROOT" <<'EOF'
import glob, json, os, subprocess, sys
tdir, sarif, root = sys.argv[1:]
# Findings at a call (those found at exit, a leak, have no call site).
res = [r for r in json.load(open(sarif))["runs"][0]["results"]
       if not r["properties"]["derived"] and r["properties"]["call"] is not None]
viol = []
for f in glob.glob(tdir + "/*.pw.jsonl"):
    lines = [json.loads(l) for l in open(f)]
    viol += [(lines[0]["modules"][0], e) for e in lines if e.get("type") == "violation" and "call" in e]
assert viol and len(viol) == len(res), (len(viol), len(res))
res.sort(key=lambda r: (r["properties"]["process"]["pid"], r["properties"]["call"]))
viol.sort(key=lambda pv: pv[1]["call"])
pids = {r["properties"]["process"]["pid"] for r in res}
assert len(pids) == 1, "the findings of calls are all its parent's"
for (prog, v), r in zip(viol, res):
    off = int(v["stack"][0], 16) - int(prog["base"], 16) - 1
    out = subprocess.run(["addr2line", "-e", prog["path"], hex(off)], capture_output=True, text=True).stdout
    path, line = out.strip().split(" ")[0].rsplit(":", 1)
    path = os.path.normpath(os.path.join(root, path))
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert os.path.join(root, loc["artifactLocation"]["uri"]) == path, (loc, path)
    assert loc["region"]["startLine"] == int(line), (loc, line)
EOF

# The program's own frame: the same trace with a frame of a vendor runtime
# before the program's, as a call reached through it has: the simulated
# libcuda, which has line information too, so only its being the vendor's
# runtime sets it aside.
rm -rf "$WORK/ownframe" && mkdir -p "$WORK/ownframe"
python3 - "$WORK/calls" "$WORK/ownframe" "$B/sim/libcuda.so.1" <<'EOF'
import glob, json, os, subprocess, sys
lib = sys.argv[3]
nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout
fn = int([l.split()[0] for l in nm.splitlines() if l.endswith(" cuInit")][0], 16)
for src in glob.glob(sys.argv[1] + "/*.pw.jsonl"):
    out = open(os.path.join(sys.argv[2], os.path.basename(src)), "w")
    for l in open(src):
        e = json.loads(l)
        if e.get("type") == "header":
            e["modules"].append({"path": lib, "base": "0x10000000", "build_id": None})
        if e.get("type") == "violation" and e.get("stack"):
            e["stack"].insert(0, hex(0x10000000 + fn + 8))
        out.write(json.dumps(e, separators=(",", ":")) + "\n")
EOF
an check --format sarif --source-root "$ROOT" "$WORK/ownframe"
check "sarif: a vendor runtime's frame is passed over for the program's own" \
	python3 - "$WORK/o.out" "$WORK/ci.calls.check.sarif" <<'EOF'
import json, sys
def at_calls(path):
    return [r for r in json.load(open(path))["runs"][0]["results"] if "stacks" in r and r["properties"]["call"] is not None]
a, b = at_calls(sys.argv[1]), at_calls(sys.argv[2])
assert len(a) == len(b) > 0
for x, y in zip(a, b):
    assert x["locations"] == y["locations"], (x["locations"], y["locations"])
    assert x["properties"]["frame"] == 1 and y["properties"]["frame"] == 0
    f0 = x["stacks"][0]["frames"][0]
    assert f0["module"] == "libcuda.so.1" and "region" in f0["location"]["physicalLocation"], f0
EOF

# A finding derived from the calls has no stack: it is placed at the program.
check "sarif (ipc): a derived finding is placed at the program's executable" \
	python3 - "$WORK/ipc" "$WORK/ci.ipc.check.sarif" "$ROOT" <<'EOF'
import glob, json, os, sys
tdir, sarif, root = sys.argv[1:]
res = json.load(open(sarif))["runs"][0]["results"]
assert len(res) == 1 and res[0]["properties"]["derived"] is True
pid = res[0]["properties"]["process"]["pid"]
exe = [json.loads(open(f).readline())["modules"][0]["path"] for f in glob.glob(tdir + "/*.pw.jsonl")
       if json.loads(open(f).readline())["pid"] == pid][0]
art = res[0]["locations"][0]["physicalLocation"]["artifactLocation"]
want = os.path.relpath(exe, root) if exe.startswith(root + "/") else None
if want:
    assert art["uri"] == want and art["uriBaseId"] == "%SRCROOT%", (art, exe)
else:  # by name, from a base of its directory
    base = json.load(open(sarif))["runs"][0]["originalUriBaseIds"][art["uriBaseId"]]["uri"]
    assert "/" not in art["uri"] and base + art["uri"] == "file://" + exe, (art, base, exe)
EOF

# --source-root: paths under it relative, others absolute file: URIs; by
# default the working directory.
(cd "$ROOT/tests" && "$A" check --format sarif "$WORK/calls" >"$WORK/o.out" 2>/dev/null)
check "sarif: the source root is the working directory by default" \
	jqt --arg r "file://$ROOT/tests/" '.runs[0].originalUriBaseIds["%SRCROOT%"].uri == $r and
		(.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri | startswith("integration/"))' "$WORK/o.out"
an check --format sarif --source-root "$WORK" "$WORK/calls"
check "sarif --source-root elsewhere: a file outside it is named by name from a base of its directory, no result names an absolute path" \
	python3 - "$WORK/o.out" "$ROOT" "$WORK" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
bases = run["originalUriBaseIds"]
art = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
assert art["uriBaseId"].startswith("%DIR") and "/" not in art["uri"], art
assert (bases[art["uriBaseId"]]["uri"] + art["uri"]).startswith("file://" + sys.argv[2] + "/"), (art, bases)
assert bases["%SRCROOT%"]["uri"] == "file://" + sys.argv[3] + "/"
assert all(u.endswith("/") for u in (b["uri"] for b in bases.values())), bases
def uris(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "uri":
                yield x
            else:
                yield from uris(x)
    elif isinstance(v, list):
        for x in v:
            yield from uris(x)
assert not any(u.startswith("file:") or u.startswith("/") for u in uris(run["results"])), "an absolute path in a result"
EOF
an check --format sarif --source-root "$WORK/no such dir" "$WORK/calls"
check "sarif --source-root that is not a directory: usage error (exit 2), said" \
	bash -c "[ $rc = 2 ] && grep -q 'not one' '$WORK/o.err'"
an summary --format sarif "$WORK/calls"
check "summary --format sarif: refused (exit 2), naming the commands that have it" \
	bash -c "[ $rc = 2 ] && grep -q 'formats of check and violations' '$WORK/o.err'"
an check --json --format junit "$WORK/calls"
check "--json with --format junit: refused (exit 2)" rc_is 2
an summary --format json "$WORK/calls"
check "summary --format json is --json" bash -c "[ $rc = 0 ] && jq -e '.processes' '$WORK/o.out' >/dev/null"

# A trace whose path needs escaping in a URI: the crash's .partial under a
# directory with a space and a '#'.
rm -rf "$WORK/odd dir #1" && mkdir -p "$WORK/odd dir #1" && cp "$WORK"/crash/* "$WORK/odd dir #1/"
an check --format sarif "$WORK/odd dir #1"
check "sarif: an input problem is a notification, its path percent-encoded, the gate's exit 3 kept" \
	python3 - "$WORK/o.out" "$rc" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
inv = run["invocations"][0]
n = inv["toolExecutionNotifications"]
assert sys.argv[2] == "3" and inv["exitCode"] == 3 and inv["executionSuccessful"] is False
assert n and n[0]["level"] == "error" and n[0]["descriptor"]["id"] == "trace.partial", n
uri = n[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
assert "/odd%20dir%20%231/" in uri and " " not in uri, uri
EOF
an check --format sarif --allow-partial "$WORK/odd dir #1"
check "sarif --allow-partial: the accepted problem is a warning, the run successful" \
	python3 - "$WORK/o.out" "$rc" <<'EOF'
import json, sys
inv = json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]
assert inv["executionSuccessful"] is True and inv["toolExecutionNotifications"][0]["level"] == "warning"
assert sys.argv[2] == "0"
EOF

# ---- JUnit: what the report says ----------------------------------------------------

check "junit (calls): a failure per finding at or above --fail-on, file and line of the program" \
	python3 - "$WORK/calls.check.json" "$WORK/ci.calls.check.junit" <<'EOF'
import json, sys
import xml.etree.ElementTree as ET
doc = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
fails = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
assert len(fails) == doc["failing"] and int(root.get("failures")) == doc["failing"], (len(fails), doc["failing"])
for tc in fails:
    assert tc.get("file", "").endswith("calls.c") and int(tc.get("line")) > 0, tc.attrib
verified = [tc for tc in root.iter("testcase") if tc.get("classname") == "peerwatch.trace"]
assert len(verified) == doc["traces"] and all(len(tc) == 0 for tc in verified)
EOF
an check --format junit --fail-on warning "$WORK/calls"
check "junit --fail-on warning: the warnings fail too" \
	python3 - "$WORK/calls.check.json" "$WORK/o.out" <<'EOF'
import json, sys
import xml.etree.ElementTree as ET
doc = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
want = sum(f["severity"] in ("error", "warning") for f in doc["findings"])
assert want > doc["failing"] and int(root.get("failures")) == want, (root.get("failures"), want)
EOF
check "junit (crash): the .partial trace is an error of its verification case" \
	python3 - "$WORK/ci.crash.check.junit" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
errs = [tc for tc in root.iter("testcase") if tc.find("error") is not None]
assert len(errs) == 1 and errs[0].get("classname") == "peerwatch.trace"
assert errs[0].find("error").get("type") == "partial" and root.get("errors") == "1"
EOF
check "junit violations (calls): every finding fails, whatever its severity" \
	python3 - "$WORK/calls.check.json" "$WORK/ci.calls.violations.junit" <<'EOF'
import json, sys
import xml.etree.ElementTree as ET
doc = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
assert int(root.get("failures")) == len(doc["findings"]) > doc["failing"]
EOF
# A message with markup characters and a control character stays well-formed.
rm -rf "$WORK/markup" && mkdir -p "$WORK/markup"
python3 - "$WORK/calls" "$WORK/markup" <<'EOF'
import glob, json, os, sys
for src in glob.glob(sys.argv[1] + "/*.pw.jsonl"):
    out = open(os.path.join(sys.argv[2], os.path.basename(src)), "w")
    for l in open(src):
        e = json.loads(l)
        if e.get("type") == "violation":
            e["message"] = "a <b> & \"c\" 'd' \x01 \u00e9"
        out.write(json.dumps(e) + "\n")
EOF
an violations --format junit "$WORK/markup"
check "junit: markup and control characters in a message are escaped" \
	python3 - "$WORK/o.out" <<'EOF'
import sys
import xml.etree.ElementTree as ET
raw = open(sys.argv[1], encoding="utf-8").read()
assert "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; \\x01 \u00e9" in raw
fails = [f for f in ET.fromstring(raw).iter("failure")]
assert fails and all(f.get("message") == "a <b> & \"c\" 'd' \\x01 \u00e9" for f in fails)
EOF

# ---- colour ---------------------------------------------------------------------------

esc=$'\033['
an check --color=always "$WORK/calls"
check "--color=always: check colours its severities and verdict" \
	bash -c "grep -q \$'\\033\\[1;31merror\\033\\[0m' '$WORK/o.out' && grep -q \$'FAIL' '$WORK/o.out'"
an check "$WORK/calls"
check "colour: none on a pipe (auto)" bash -c "! grep -q \$'\\033' '$WORK/o.out'"
an violations --color=never "$WORK/calls"
check "--color=never: none" bash -c "! grep -q \$'\\033' '$WORK/o.out'"
an check --color=sometimes "$WORK/calls"
check "--color=sometimes: usage error (exit 2)" rc_is 2
# On a terminal (a pseudo-terminal for standard output): colour, unless NO_COLOR.
on_tty() { # ENV... -- ARGS: runs the analyzer with stdout on a pty, prints what it wrote
	python3 - "$@" <<'EOF'
import os, pty, subprocess, sys
args = sys.argv[1:]
i = args.index("--")
env = dict(os.environ)
env.pop("NO_COLOR", None)
env["TERM"] = "xterm"
for kv in args[:i]:
    k, v = kv.split("=", 1)
    env[k] = v
m, s = pty.openpty()
p = subprocess.Popen(args[i + 1:], stdout=s, stderr=subprocess.DEVNULL, env=env)
os.close(s)
out = b""
while True:
    try:
        b = os.read(m, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
p.wait()
sys.stdout.write(out.decode("utf-8", "replace"))
EOF
}
on_tty -- "$A" check "$WORK/calls" >"$WORK/tty.out"
check "colour: on a terminal by default" grep -qF "$esc" "$WORK/tty.out"
on_tty NO_COLOR=1 -- "$A" check "$WORK/calls" >"$WORK/tty.out"
check "colour: NO_COLOR turns it off on a terminal" bash -c "! grep -q \$'\\033' '$WORK/tty.out'"
on_tty NO_COLOR=1 -- "$A" check --color=always "$WORK/calls" >"$WORK/tty.out"
check "colour: --color=always wins over NO_COLOR" grep -qF "$esc" "$WORK/tty.out"
on_tty TERM=dumb -- "$A" check "$WORK/calls" >"$WORK/tty.out"
check "colour: none on TERM=dumb" bash -c "! grep -q \$'\\033' '$WORK/tty.out'"

#!/usr/bin/env python3
"""The analyzer takes every line the library writes.

  roundtrip.py ANALYZER HOOKS_MD DIR...

DIR: traces the library wrote (tests/analyze/roundtrip.c's, the integration
scenarios').  Fails (exit 1, each reason on stderr) when the analyzer
refuses or loses a line of them: every line is an event the analyzer reads
(info --strict), every call and violation is counted by summary, check,
timeline; and when the traces together do not show every kind the library
writes, so that the test would prove nothing about it: every kind of
argument of docs/hooks.md in a recorded call, every event type, a finding
made at exit (no "call"), integers of 2^63 and more and negative ones in
"args", batch copies and batch prefetches.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

errors = []


def fail(msg):
    errors.append(msg)


def traces(dirs):
    out = []
    for d in dirs:
        for root, _, names in os.walk(d):
            out += [os.path.join(root, n) for n in names if n.endswith((".pw.jsonl", ".pw.jsonl.partial"))]
    return sorted(out)


def lines_of(path):
    """The event lines of a trace: between its header and its footer (a .partial file's cut last line aside)."""
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(b"\n")
    if parts[-1] != b"" and not path.endswith(".partial"):
        fail("%s: the last line has no newline" % path)
    parts = parts[:-1]
    objs = [json.loads(p) for p in parts]
    if objs and objs[-1].get("type") == "footer":
        objs = objs[:-1]
    return objs[1:]


# The one notice a correct trace may bring: a run stopped by max_trace_mb.
LIMIT_NOTICE = re.compile(r"the trace size limit \(\d+ bytes\) stopped recording at seq \d+")


def limited(d):
    """Whether a trace under d was stopped by its size limit (its footer says so)."""
    for root, _, names in os.walk(d):
        for n in names:
            if n.endswith(".pw.jsonl"):
                with open(os.path.join(root, n), "rb") as f:
                    f.seek(max(0, os.path.getsize(f.name) - 65536))
                    if b'"limit":{' in f.read().rsplit(b"\n", 2)[-2]:
                        return True
    return False


def analyzer_json(analyzer, args, limited=False):
    """Runs the analyzer; stderr must be empty, or hold only the size-limit
    notice when the directory is the run stopped by its size limit."""
    p = subprocess.run([analyzer] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    said = [l for l in p.stderr.decode(errors="replace").splitlines() if l.strip()]
    if limited and args[0] == "check":
        if not any(LIMIT_NOTICE.search(l) for l in said):
            fail("check %s: no notice of the size limit" % args[-1])
        said = [l for l in said if not LIMIT_NOTICE.search(l)]
    if said:
        fail("%s: said on stderr: %s" % (" ".join(args[:1]), "\n".join(said)[:600]))
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        fail("%s: no JSON document" % " ".join(args))
        return p.returncode, {}


def recorded_kinds(hooks_md):
    """(api, variant) -> set of kinds, for every recorded row of docs/hooks.md."""
    rows = {}
    for line in open(hooks_md):
        m = re.match(r"\| `(\w+)` \| `\"(\w*)\"` \| ([^|]*)\|", line)
        if not m or "not recorded" in m.group(3):
            continue
        rows[(m.group(1), m.group(2))] = set(re.findall(r"`\w+` (\w+) \(", line))
    return rows


def walk_ints(v, out):
    if isinstance(v, bool):
        return
    if isinstance(v, int):
        out.append(v)
    elif isinstance(v, dict):
        for x in v.values():
            walk_ints(x, out)
    elif isinstance(v, list):
        for x in v:
            walk_ints(x, out)


def main(argv):
    analyzer, hooks_md, dirs = argv[1], argv[2], argv[3:]
    files = traces(dirs)
    if not files:
        fail("no traces in %s" % " ".join(dirs))
    per_file = {f: lines_of(f) for f in files}
    events = [o for objs in per_file.values() for o in objs]
    n_calls = sum(o.get("type") == "call" for o in events)
    n_viol = sum(o.get("type") == "violation" for o in events)

    # every line is read, and counted where it belongs
    for d in dirs:
        rc, doc = analyzer_json(analyzer, ["info", "--json", "--strict", d])
        if rc != 0:
            fail("info --strict %s: exit %d" % (d, rc))
        for f in doc.get("files", []):
            want = per_file.get(f["file"], [])
            if f.get("bad_lines") or f.get("unknown_events"):
                fail("%s: %s bad lines, %s unknown events" % (f["file"], f.get("bad_lines"), f.get("unknown_events")))
            if f.get("events_read") != len(want):
                fail("%s: %s events read of %d event lines" % (f["file"], f.get("events_read"), len(want)))
    with tempfile.TemporaryDirectory() as tmp:
        got = {"summary": [0, 0], "check": [0], "timeline": [0, 0]}
        for d in dirs:
            _, s = analyzer_json(analyzer, ["summary", "--json", d], limited(d))
            got["summary"][0] += s.get("calls_total", 0)
            got["summary"][1] += s.get("violations_total", 0)
            _, c = analyzer_json(analyzer, ["check", "--json", "--no-derived", "--allow-partial", d], limited(d))
            got["check"][0] += len(c.get("findings", []))
            _, t = analyzer_json(analyzer, ["timeline", "--json", "-o", os.path.join(tmp, "t.json"), d], limited(d))
            got["timeline"][0] += t.get("calls", 0)
            got["timeline"][1] += t.get("violations", 0)
    if got["summary"] != [n_calls, n_viol]:
        fail("summary counts %s calls and violations of %s" % (got["summary"], [n_calls, n_viol]))
    if got["check"] != [n_viol]:
        fail("check --no-derived has %d findings of %d violation events" % (got["check"][0], n_viol))
    if got["timeline"] != [n_calls, n_viol]:
        fail("timeline has %s calls and violations of %s" % (got["timeline"], [n_calls, n_viol]))

    # and the traces show everything the library can write
    rows = recorded_kinds(hooks_md)
    seen = {(o.get("api"), o.get("variant")) for o in events if o.get("type") == "call"}
    all_kinds = set().union(*rows.values()) if rows else set()
    shown = set().union(*(rows[r] for r in rows if r in seen)) if rows else set()
    for k in sorted(all_kinds - shown):
        fail("no trace has a recorded call with an argument of kind %s" % k)
    for ty in ("call", "violation", "gpu_time"):
        if not any(o.get("type") == ty for o in events):
            fail("no %s event" % ty)
    if not any(o.get("type") == "violation" and "call" not in o for o in events):
        fail("no finding made at exit (a violation without \"call\")")
    for rule in ("ipc.leak", "vmm.leak"):
        if not any(o.get("type") == "violation" and "call" not in o and o.get("rule") == rule for o in events):
            fail("no %s made at exit" % rule)
    ints = []
    for o in events:
        if o.get("type") == "call":
            walk_ints(o.get("args"), ints)
    if not any(i >= 1 << 63 for i in ints):
        fail("no argument of 2^63 or more")
    if not any(i == (1 << 64) - 1 for i in ints):
        fail("no argument of 2^64-1")
    if not any(i < 0 for i in ints):
        fail("no negative argument")
    apis = {o.get("api") for o in events if o.get("type") == "call"}
    for api in ("cuMemcpyBatchAsync", "cuMemcpy3DBatchAsync", "cuMemPrefetchBatchAsync",
                "cuMemDiscardAndPrefetchBatchAsync"):
        if api not in apis:
            fail("no %s call" % api)
    for e in errors:
        print("roundtrip: " + e, file=sys.stderr)
    print("roundtrip: %d traces, %d calls, %d violations, %d kinds of argument: %s" %
          (len(files), n_calls, n_viol, len(shown), "ok" if not errors else "%d problems" % len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The table of tests/gpu/before_after.sh, from its work directory.

usage: before_after.py WORK_DIR

For every program (a directory of WORK_DIR holding plain.rc, before/ and
after/), prints:
  - whether each traced run kept the untraced run's exit status and stdout,
    and left every trace complete (a footer, not .partial; the contract's
    killed-importer case kills its importer on purpose, so one .partial is
    expected there);
  - per rule, the findings of each bundle: written by the library (the
    trace's violation events), derived by that bundle's analyzer (check
    --json, "derived": true), and taken by suppressions: per rule from the
    calls' "suppressed" lists, and in all from the footers' "suppressed"
    (of which "suppressed_default", where the bundle has default
    suppressions);
  - for the contract cases, the finding each case should give (its "expect").
Exit 0.
"""
import glob
import json
import os
import sys


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def traces(d):
    return sorted(glob.glob(os.path.join(d, "trace", "*.pw.jsonl")) +
                  glob.glob(os.path.join(d, "trace", "*.pw.jsonl.partial")))


def online(d):
    """Rules of the violation events, the suppressed counts ("total/default",
    and per rule in supp), complete files."""
    rules, supp, complete, partial, files = {}, {}, 0, 0, 0
    total, default = 0, 0
    for f in traces(d):
        files += 1
        footer = None
        for line in open(f, errors="replace"):
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") == "violation":
                rules[e.get("rule", "?")] = rules.get(e.get("rule", "?"), 0) + 1
            elif e.get("type") == "call" and e.get("suppressed"):
                for r in e["suppressed"]:
                    supp[r] = supp.get(r, 0) + 1
            elif e.get("type") == "footer":
                footer = e
        if f.endswith(".partial"):
            partial += 1
        elif footer is not None:
            complete += 1
        if footer is not None:
            total += footer.get("suppressed", 0) or 0
            default += footer.get("suppressed_default", 0) or 0
    online.supp = supp
    return rules, "%d/%d" % (total, default) if total else "", complete, partial, files


def derived(path):
    rules = {}
    try:
        doc = json.loads(read(path, "{}") or "{}")
    except ValueError:
        return rules
    for f in doc.get("findings", []):
        if f.get("derived"):
            rules[f.get("rule", "?")] = rules.get(f.get("rule", "?"), 0) + 1
    return rules


def main(work):
    progs = sorted(p for p in os.listdir(work) if os.path.isfile(os.path.join(work, p, "plain.rc")))
    print("%-34s %-8s %-8s %-8s %-8s %s" % ("program", "untraced", "before", "after", "output", "traces (complete/partial/files)"))
    for p in progs:
        d = os.path.join(work, p)
        rc = {k: read(os.path.join(d, k + ".rc")).strip() for k in ("plain", "before", "after")}
        same = all(read(os.path.join(d, k + ".out")) == read(os.path.join(d, "plain.out")) for k in ("before", "after"))
        tr = []
        for k in ("before", "after"):
            _, _, c, pa, n = online(os.path.join(d, k))
            tr.append("%s %d/%d/%d" % (k, c, pa, n))
        print("%-34s %-8s %-8s %-8s %-8s %s" % (p, rc["plain"], rc["before"], rc["after"],
                                                "same" if same else "DIFFERS", ", ".join(tr)))
    print()
    print("%-34s %-32s %-17s %-17s %s" % ("program", "rule", "before (lib+an)", "after (lib+an)", "expected"))
    for p in progs:
        d = os.path.join(work, p)
        expect = read(os.path.join(d, "expect")).strip()
        b_on, b_sup, _, _, _ = online(os.path.join(d, "before"))
        b_rs = online.supp
        a_on, a_sup, _, _, _ = online(os.path.join(d, "after"))
        a_rs = online.supp
        b_de = derived(os.path.join(d, "before.check.json"))
        a_de = derived(os.path.join(d, "after.check.json"))
        rules = sorted(set(b_on) | set(a_on) | set(b_de) | set(a_de))
        if not rules:
            print("%-34s %-32s %-17s %-17s %s" % (p, "(none)", "0", "0", expect))
        for r in rules:
            print("%-34s %-32s %-17s %-17s %s" % (
                p, r, "%d+%d" % (b_on.get(r, 0), b_de.get(r, 0)), "%d+%d" % (a_on.get(r, 0), a_de.get(r, 0)),
                expect))
        for r in sorted(set(b_rs) | set(a_rs)):
            print("%-34s %-32s %-17s %-17s" % (p, "(suppressed) " + r, b_rs.get(r, 0), a_rs.get(r, 0)))
        if b_sup or a_sup:
            print("%-34s %-32s %-17s %-17s" % (p, "(suppressed: all/default)", b_sup or "0", a_sup or "0"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

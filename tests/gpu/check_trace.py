#!/usr/bin/env python3
"""Check the peerwatch traces of one run and count the calls they record.

usage: check_trace.py DIR [--expect SPEC ...] [--want SPEC ...]
                          [--min-processes N] [--min-calls N] [--list-files]
                          [--oracle CUPTI_DIR [--oracle-soft]]

Reads every *.pw.jsonl under DIR (recursively); a *.pw.jsonl.partial (a
process that never finished its trace) is reported as an error.  Prints the
number of calls per (api, variant) over all files, then the checks, then one
line "RESULT: PASS|FAIL calls=.. files=.. processes=.. errors=.. warnings=..".
Exit status 0 when every check passed, 1 otherwise, 2 on bad usage.

Checks on every file: the first line is a peerwatch v1 header, the last a
footer, dropped == 0, the footer's event count matches the lines, every line is
JSON, every call event has the fields of the trace format and a known variant,
and seq numbers are unique within the file.

SPEC is API[/VARIANT]=MIN[:MAX]:
  cuMemcpyPeer=4        at least 4 calls, all variants together
  cuMemcpyPeer=4:4      exactly 4
  cuMemcpyPeer=:2       at most 2
  cuMemAdvise/_v2=3:3   exactly 3 of the _v2 variant; "base" names the variant ""
--expect failures fail the run; --want failures are printed as warnings only
(for counts that depend on what a vendor library does internally).

--oracle DIR reads the cupti.<pid>.tsv files that libpwcupti.so (cupti_count.c)
wrote during another run of the same program without peerwatch, and requires,
for every hooked driver function (and every one the trace names), that the
trace holds exactly as many calls as CUPTI counted.  --oracle-soft makes a
difference a warning (for programs whose call counts vary from run to run).
Only the standard library is used: this runs on bare GPU machines.
"""

import argparse
import collections
import json
import os
import re
import sys

VARIANTS = ("", "_v2", "_ptds", "_ptsz", "_v2_ptds", "_v2_ptsz")
CALL_FIELDS = {
    "seq": int,
    "tid": int,
    "vendor": str,
    "api": str,
    "variant": str,
    "family": str,
    "t_ns": int,
    "dur_ns": int,
    "ret": int,
}
# Exported driver functions peerwatch hooks (preload/vendors/cuda/cuda_table.h), by exported name.
HOOKED = {
    "cuDeviceCanAccessPeer", "cuCtxEnablePeerAccess", "cuCtxDisablePeerAccess",
    "cuDeviceGetP2PAttribute",
    "cuMemcpyPeer", "cuMemcpyPeer_ptds", "cuMemcpyPeerAsync", "cuMemcpyPeerAsync_ptsz",
    "cuMemcpy3DPeer", "cuMemcpy3DPeer_ptds", "cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync_ptsz",
    "cuIpcGetMemHandle", "cuIpcOpenMemHandle", "cuIpcOpenMemHandle_v2", "cuIpcCloseMemHandle",
    "cuIpcGetEventHandle", "cuIpcOpenEventHandle",
    "cuMemAllocManaged", "cuMemAdvise", "cuMemAdvise_v2",
    "cuMemPrefetchAsync", "cuMemPrefetchAsync_ptsz", "cuMemPrefetchAsync_v2", "cuMemPrefetchAsync_v2_ptsz",
    "cuMemRangeGetAttribute", "cuMemRangeGetAttributes",
    "cuStreamAttachMemAsync", "cuStreamAttachMemAsync_ptsz",
    "cuMemFree", "cuMemFree_v2", "cuMemFreeAsync", "cuMemFreeAsync_ptsz",
    # virtual memory, pools, batch prefetch (recorded on every call too)
    "cuMemCreate", "cuMemRelease", "cuMemMap", "cuMemUnmap", "cuMemSetAccess",
    "cuMemExportToShareableHandle", "cuMemImportFromShareableHandle", "cuMemRetainAllocationHandle",
    "cuMemPoolExportToShareableHandle", "cuMemPoolImportFromShareableHandle",
    "cuMemPoolExportPointer", "cuMemPoolImportPointer", "cuMemPoolSetAccess",
    "cuMemPrefetchBatchAsync", "cuMemPrefetchBatchAsync_ptsz",
    "cuMemDiscardAndPrefetchBatchAsync", "cuMemDiscardAndPrefetchBatchAsync_ptsz",
}
DRIVER_API_RE = re.compile(r"^cu[A-Z]")
SPEC_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:/(base|_v2|_ptds|_ptsz|_v2_ptds|_v2_ptsz))?=(\d*)(?::(\d*))?$")


class Spec:
    def __init__(self, text, hard):
        m = SPEC_RE.match(text)
        if not m or (m.group(3) == "" and (m.group(4) is None or m.group(4) == "")):
            raise ValueError(text)
        self.text = text
        self.api = m.group(1)
        v = m.group(2)
        self.variant = None if v is None else ("" if v == "base" else v)
        self.lo = int(m.group(3)) if m.group(3) else 0
        hi = m.group(4)
        self.hi = int(hi) if hi else None
        if self.hi is not None and self.hi < self.lo:
            raise ValueError(text)
        self.hard = hard

    def name(self):
        if self.variant is None:
            return self.api
        return "%s/%s" % (self.api, self.variant or "base")

    def wanted(self):
        if self.hi is None:
            return ">= %d" % self.lo
        if self.hi == self.lo:
            return "== %d" % self.lo
        return "in %d..%d" % (self.lo, self.hi)

    def holds(self, n):
        return n >= self.lo and (self.hi is None or n <= self.hi)


class FileReport:
    def __init__(self, path, partial):
        self.path = path
        self.partial = partial
        self.pid = None
        self.host = None
        self.argv0 = "?"
        self.event_lines = 0
        self.calls = 0
        self.footer_events = None
        self.dropped = None


class Checker:
    def __init__(self):
        self.errors = []
        self.warnings = []
        self.counts = collections.Counter()  # (api, variant) -> calls
        self.failed_calls = collections.Counter()  # (api, variant) -> calls with ret != 0
        self.violations = collections.Counter()  # rule -> count
        self.other_types = collections.Counter()
        self.files = []

    def error(self, msg):
        self.errors.append(msg)

    def read(self, path, partial):
        rep = FileReport(path, partial)
        self.files.append(rep)
        if partial:
            self.error("%s: left .partial: the process did not finish its trace" % path)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            self.error("%s: cannot read: %s" % (path, e))
            return
        lines = raw.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        elif lines and not partial:
            self.error("%s: the last line has no newline" % path)
        if not lines:
            self.error("%s: empty file" % path)
            return
        seqs = set()
        footer_seen = False
        for no, line in enumerate(lines, 1):
            where = "%s:%d" % (path, no)
            try:
                ev = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                self.error("%s: not JSON (%s)" % (where, e))
                continue
            if not isinstance(ev, dict):
                self.error("%s: not a JSON object" % where)
                continue
            kind = ev.get("type")
            if footer_seen:
                self.error("%s: a line after the footer" % where)
            if no == 1:
                self.check_header(rep, ev, where)
                continue
            if kind == "header":
                self.error("%s: a second header" % where)
                continue
            if kind == "footer":
                footer_seen = True
                rep.footer_events = ev.get("events")
                rep.dropped = ev.get("dropped")
                continue
            rep.event_lines += 1
            if kind == "call":
                self.check_call(rep, ev, where, seqs)
            elif kind == "violation":
                self.violations[str(ev.get("rule"))] += 1
            else:
                self.other_types[str(kind)] += 1
        if not partial:
            self.check_footer(rep, footer_seen)

    def check_header(self, rep, ev, where):
        if ev.get("type") != "header" or ev.get("format") != "peerwatch":
            self.error("%s: the first line is not a peerwatch header" % where)
            return
        if ev.get("version") != 1:
            self.error("%s: trace format version %r, this checker knows 1" % (where, ev.get("version")))
        if not isinstance(ev.get("pid"), int):
            self.error("%s: the header has no integer pid" % where)
        rep.pid = ev.get("pid")
        rep.host = ev.get("host")
        argv = ev.get("argv")
        if isinstance(argv, list) and argv:
            rep.argv0 = " ".join(os.path.basename(str(a)) for a in argv[:2])

    def check_call(self, rep, ev, where, seqs):
        for key, typ in CALL_FIELDS.items():
            val = ev.get(key)
            if not isinstance(val, typ) or isinstance(val, bool):
                self.error("%s: call event without a valid %r" % (where, key))
                return
        if ev["variant"] not in VARIANTS:
            self.error("%s: unknown variant %r" % (where, ev["variant"]))
        if ev["api"].endswith(VARIANTS[1:]):
            self.error("%s: api %r carries its variant suffix" % (where, ev["api"]))
        if ev["seq"] in seqs:
            self.error("%s: seq %d used twice in this file" % (where, ev["seq"]))
        seqs.add(ev["seq"])
        if "args" in ev and not isinstance(ev["args"], dict):
            self.error("%s: args is not an object" % where)
        key = (ev["api"], ev["variant"])
        self.counts[key] += 1
        if ev["ret"] != 0:
            self.failed_calls[key] += 1
        rep.calls += 1

    def check_footer(self, rep, footer_seen):
        if not footer_seen:
            self.error("%s: no footer" % rep.path)
            return
        if rep.dropped != 0:
            self.error("%s: footer says %r events were dropped" % (rep.path, rep.dropped))
        if not isinstance(rep.footer_events, int):
            self.error("%s: footer has no integer event count" % rep.path)
        elif rep.footer_events != rep.event_lines:
            self.error(
                "%s: footer counts %d events, the file holds %d event lines"
                % (rep.path, rep.footer_events, rep.event_lines)
            )

    def total(self, spec):
        return sum(
            n for (api, var), n in self.counts.items() if api == spec.api and (spec.variant is None or var == spec.variant)
        )

    def processes(self):
        return {(r.host, r.pid) for r in self.files if r.pid is not None}


def split_variant(name):
    """cuMemPrefetchAsync_v2_ptsz -> ("cuMemPrefetchAsync", "_v2_ptsz")."""
    for suffix in ("_v2_ptsz", "_v2_ptds", "_ptsz", "_ptds", "_v2"):
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def read_oracle(root, ck):
    """Sums the cupti.<pid>.tsv files under root: exported name -> calls."""
    counts = collections.Counter()
    files = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            if not (name.startswith("cupti.") and name.endswith(".tsv")):
                continue
            files += 1
            path = os.path.join(dirpath, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        line = line.rstrip("\n")
                        if not line or line.startswith("#"):
                            continue
                        parts = line.split("\t")
                        if len(parts) != 2 or not parts[1].isdigit():
                            ck.error("%s:%d: not 'name<TAB>count'" % (path, no))
                            continue
                        counts[parts[0]] += int(parts[1])
            except OSError as e:
                ck.error("%s: cannot read: %s" % (path, e))
    if files == 0:
        ck.error("%s: no cupti.*.tsv files (the reference run counted nothing)" % root)
    return counts, files


def compare_oracle(ck, oracle, out, soft):
    """Every hooked function: calls traced == calls CUPTI counted."""
    # Only functions recorded on every call: implicit copies are recorded
    # only across devices and allocations not at all, so CUPTI's count of
    # those is no reference.
    traced = {}
    for (api, var), n in ck.counts.items():
        if DRIVER_API_RE.match(api) and not api.startswith("cuda") and api + var in HOOKED:
            traced[api + var] = n
    names = sorted(set(traced) | (set(oracle) & HOOKED))
    out.write("\n%-32s %7s %7s\n" % ("against CUPTI (exported name)", "traced", "cupti"))
    for name in names:
        t, c = traced.get(name, 0), oracle.get(name, 0)
        mark = "" if t == c else ("  <- differs" if not soft else "  <- differs (soft)")
        out.write("%-32s %7d %7d%s\n" % (name, t, c, mark))
        if t != c:
            api, var = split_variant(name)
            msg = "%s/%s: %d traced, CUPTI counted %d in the reference run" % (api, var or "base", t, c)
            (ck.warnings if soft else ck.errors).append(msg)
    hooked_seen = sum(oracle[n] for n in HOOKED)
    out.write("%-32s %7d %7d\n" % ("total (hooked functions)", sum(traced.get(n, 0) for n in HOOKED), hooked_seen))


def find_traces(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".pw.jsonl"):
                found.append((os.path.join(dirpath, name), False))
            elif name.endswith(".pw.jsonl.partial"):
                found.append((os.path.join(dirpath, name), True))
    return found


def parse_specs(texts, hard, parser):
    specs = []
    for group in texts or []:
        for text in " ".join(group).split():
            try:
                specs.append(Spec(text, hard))
            except ValueError:
                parser.error("bad expectation %r (want API[/VARIANT]=MIN[:MAX])" % text)
    return specs


def main(argv):
    parser = argparse.ArgumentParser(
        description="Check peerwatch traces and count their calls.",
        epilog="SPEC: API[/VARIANT]=MIN[:MAX], VARIANT one of base _v2 _ptds _ptsz _v2_ptsz.",
    )
    parser.add_argument("dir", help="directory holding the *.pw.jsonl files (searched recursively)")
    parser.add_argument("--expect", action="append", nargs="+", metavar="SPEC", help="counts that must hold")
    parser.add_argument("--want", action="append", nargs="+", metavar="SPEC", help="counts that should hold: warnings")
    parser.add_argument("--min-processes", type=int, default=1, metavar="N", help="at least N traced processes")
    parser.add_argument("--min-calls", type=int, default=0, metavar="N", help="at least N call events in all")
    parser.add_argument("--list-files", action="store_true", help="print one line per trace file")
    parser.add_argument("--oracle", metavar="DIR", help="cupti.<pid>.tsv counts of a reference run to match")
    parser.add_argument("--oracle-soft", action="store_true", help="a mismatch with --oracle is only a warning")
    args = parser.parse_args(argv)
    specs = parse_specs(args.expect, True, parser) + parse_specs(args.want, False, parser)

    ck = Checker()
    if not os.path.isdir(args.dir):
        ck.error("%s: no such directory (did the traced program start at all?)" % args.dir)
    else:
        traces = find_traces(args.dir)
        if not traces:
            ck.error("%s: no *.pw.jsonl files" % args.dir)
        for path, partial in traces:
            ck.read(path, partial)

    procs = ck.processes()
    if len(procs) < args.min_processes:
        ck.error("%d traced process(es), expected at least %d" % (len(procs), args.min_processes))
    if sum(ck.counts.values()) < args.min_calls:
        ck.error("%d call events in all, expected at least %d" % (sum(ck.counts.values()), args.min_calls))

    out = sys.stdout
    complete = sum(1 for r in ck.files if not r.partial)
    out.write("traces in %s: %d complete, %d partial; %d process(es)\n" % (args.dir, complete, len(ck.files) - complete, len(procs)))
    if args.list_files:
        for r in ck.files:
            out.write(
                "  %-48s pid=%-8s calls=%-5d events=%-5d %s\n"
                % (os.path.relpath(r.path, args.dir), r.pid, r.calls, r.event_lines, r.argv0)
            )
    out.write("\n%-28s %-9s %7s %7s\n" % ("api", "variant", "calls", "ret!=0"))
    for (api, var), n in sorted(ck.counts.items()):
        out.write("%-28s %-9s %7d %7d\n" % (api, var or '""', n, ck.failed_calls[(api, var)]))
    total_calls = sum(ck.counts.values())
    out.write("%-28s %-9s %7d %7d\n" % ("total", "", total_calls, sum(ck.failed_calls.values())))
    if ck.violations:
        out.write("\nviolation events:\n")
        for rule, n in sorted(ck.violations.items()):
            out.write("  %-40s %d\n" % (rule, n))
    if ck.other_types:
        out.write("\nother events: %s\n" % ", ".join("%s=%d" % kv for kv in sorted(ck.other_types.items())))

    if args.oracle:
        oracle, nfiles = read_oracle(args.oracle, ck)
        out.write("\nreference run: %d process(es) counted by CUPTI in %s\n" % (nfiles, args.oracle))
        compare_oracle(ck, oracle, out, args.oracle_soft)

    if specs:
        out.write("\nexpected counts:\n")
    for spec in specs:
        n = ck.total(spec)
        ok = spec.holds(n)
        tag = "ok  " if ok else ("FAIL" if spec.hard else "WARN")
        line = "%s %-32s = %d (expected %s)" % (tag, spec.name(), n, spec.wanted())
        out.write("  %s\n" % line)
        if not ok:
            if spec.hard:
                ck.error(line[5:])
            else:
                ck.warnings.append(line[5:])

    if ck.errors:
        out.write("\nerrors:\n")
        for e in ck.errors:
            out.write("  %s\n" % e)
    if ck.warnings:
        out.write("\nwarnings:\n")
        for w in ck.warnings:
            out.write("  %s\n" % w)
    verdict = "FAIL" if ck.errors else "PASS"
    out.write(
        "\nRESULT: %s calls=%d files=%d processes=%d errors=%d warnings=%d\n"
        % (verdict, total_calls, len(ck.files), len(procs), len(ck.errors), len(ck.warnings))
    )
    return 1 if ck.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Holds peerwatch-analyze report's page to what the other commands say of
the same traces.

    report_check.py PAGE CHECK_JSON [--matrix M] [--ipc I] [--managed G] [--summary S] [TRACE...]

PAGE: the HTML report; CHECK_JSON: `peerwatch-analyze check --json` of the
same traces; M, I, G, S: `peerwatch-analyze matrix --json`, `ipc --json`,
`managed --json` and `summary --json` of them; TRACE:
their files, for the device lines.  Prints one line per
failed property and exits 1 if any failed, else prints a summary and exits 0.

Properties: the page is well formed (every element closed in order), it
fetches nothing (no script, no external style, image, font or frame; links
only to http(s) documents); its verdict is check's; each rule's findings are
counted as check counts them, and every finding of a group shown whole is
listed with its process and call; every device UUID of the traces' device
lines is on the page; the copies table has matrix's pairs, bytes and copies;
the IPC lifetimes draw ipc's handles, each with a bar for each process that
exported or opened it and no other; the managed allocations are managed's,
each with as many calls in its history; the host-time table has summary's
APIs with their calls and errors.
"""
import json
import re
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line", "path", "circle", "col", "wbr"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.fetches = [], [], []
        self.groups = []  # {"rule", "count", "rows": [(pid, call)], "more": bool}
        self.text = []
        self.verdict = None
        self._cls = []  # class of each open element
        self._row = None
        self._cell = None
        self._in_verdict = False
        self._last_code = None
        self.pairs = []  # (src, dst, bytes, copies) of the copies tables
        self.handles = []  # (handle, {pid of each bar}) of the IPC lifetimes
        self.apis = []  # (vendor, api, calls, errors) of the host-time table
        self.allocs = []  # (ptr, bytes, calls in its history) of the managed allocations

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class") or ""
        if tag == "script":
            self.fetches.append("a <script> element")
        if tag in ("img", "iframe", "embed", "object", "audio", "video", "source") and \
                (a.get("src") or a.get("data")):
            self.fetches.append(f"<{tag}> loads {a.get('src') or a.get('data')}")
        if tag == "link":
            self.fetches.append(f"<link> loads {a.get('href')}")
        if tag == "a" and a.get("href") and not re.match(r"https?://|#", a["href"]):
            self.fetches.append(f"a link to {a['href']}")
        if tag == "details" and "finding" in cls.split() and "alloc" not in cls.split():
            self.groups.append({"rule": None, "count": None, "rows": [], "more": False})
        if tag == "tr" and "occurrence" in cls:
            self._row = []
        if tag == "td" and self._row is not None:
            self._cell = []
        if tag == "details" and "alloc" in cls.split():
            self.allocs.append((a.get("data-ptr"), int(a.get("data-bytes", -1)), int(a.get("data-ops", -1))))
        if tag == "tr" and "api" in cls.split():
            self.apis.append((a.get("data-vendor"), a.get("data-api"), int(a.get("data-calls", -1)),
                              int(a.get("data-errors", -1))))
        if tag == "div" and "handle" in cls.split():
            self.handles.append((a.get("data-handle"), set()))
        if tag == "g" and "bar" in cls.split() and self.handles:
            self.handles[-1][1].add(int(a.get("data-pid", -1)))
        if tag == "tr" and "pair" in cls.split():
            self.pairs.append((a.get("data-src"), a.get("data-dst"), int(a.get("data-bytes", -1)),
                               int(a.get("data-copies", -1))))
        if tag == "p" and "verdict" in cls:
            self._in_verdict = True
            self.verdict = ""
        if tag not in VOID:
            self.stack.append(tag)
            self._cls.append(cls)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}> "
                               f"at line {self.getpos()[0]}")
            return
        self.stack.pop()
        cls = self._cls.pop()
        if tag == "td" and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        if tag == "tr" and self._row is not None:
            if self.groups:
                self.groups[-1]["rows"].append(self._row)
            self._row = None
        if tag == "code" and "rule" in cls and self.groups and self.groups[-1]["rule"] is None:
            self.groups[-1]["rule"] = self._last_code
        if tag == "p" and self._in_verdict:
            self._in_verdict = False

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._in_verdict:
            self.verdict += data
        if self.stack and self.stack[-1] == "code":
            self._last_code = data
        if self.groups and self.stack and self.stack[-1] == "summary":
            m = re.match(r"\s*\u00d7(\d+) in ", data)
            if m and self.groups[-1]["count"] is None:
                self.groups[-1]["count"] = int(m.group(1))
        if self.groups and re.match(r"and \d+ more of this rule", data):
            self.groups[-1]["more"] = True


def main():
    page_path, check_path, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
    other = {}
    while traces[:1] in (["--matrix"], ["--ipc"], ["--managed"], ["--summary"]):
        with open(traces[1]) as f:
            other[traces[0][2:]] = json.load(f)
        traces = traces[2:]
    matrix, ipc, summary = other.get("matrix"), other.get("ipc"), other.get("summary")
    managed = other.get("managed")
    with open(page_path, encoding="utf-8") as f:
        html = f.read()
    with open(check_path) as f:
        chk = json.load(f)
    p = Page()
    p.feed(html)
    p.close()
    fails = []
    fails += [f"not well formed: {e}" for e in p.errors]
    if p.stack:
        fails.append(f"elements never closed: {p.stack}")
    fails += [f"fetches something: {x}" for x in p.fetches]
    for bad in ("@import", "url("):
        if bad in html:
            fails.append(f"its style fetches something ({bad})")
    want = "pass" if chk["passed"] else "FAIL"
    if not p.verdict or not p.verdict.startswith(f"check: {want}: {chk['failing']} finding"):
        fails.append(f"verdict '{p.verdict}' is not check's ({want}, {chk['failing']} failing)")
    by_rule_check, by_rule_page = {}, {}
    for fd in chk["findings"]:
        by_rule_check[fd["rule"]] = by_rule_check.get(fd["rule"], 0) + 1
    for g in p.groups:
        if g["rule"] is None or g["count"] is None:
            fails.append(f"a finding group without its rule or count: {g}")
            continue
        by_rule_page[g["rule"]] = by_rule_page.get(g["rule"], 0) + g["count"]
    if by_rule_check != by_rule_page:
        fails.append(f"findings per rule: check says {by_rule_check}, the page {by_rule_page}")
    shown = set()
    for g in p.groups:
        if g["more"]:
            continue
        if len(g["rows"]) != g["count"]:
            fails.append(f"group {g['rule']}: {g['count']} findings, {len(g['rows'])} rows")
        for r in g["rows"]:
            pid = re.search(r"\[(\d+)\]", r[0])
            call = r[2].strip()
            shown.add((g["rule"], pid.group(1) if pid else None, call))
    cut = {g["rule"] for g in p.groups if g["more"]}  # a group listed in part: its rule is not checked
    whole = {g["rule"] for g in p.groups} - cut
    for fd in chk["findings"]:
        if fd["rule"] not in whole:
            continue
        key = (fd["rule"], str(fd["process"]["pid"]), str(fd["call"]) if fd.get("call") is not None else "at exit")
        if key not in shown:
            fails.append(f"finding {key} of check --json is not on the page")
    uuids = set()
    for t in traces:
        with open(t, errors="replace") as f:
            for line in f:
                if '"type":"device"' in line:
                    try:
                        d = json.loads(line)
                    except ValueError:
                        continue
                    if d.get("uuid"):
                        uuids.add(d["uuid"])
    text = "".join(p.text)
    for u in sorted(uuids):
        if u not in text:
            fails.append(f"device {u} of the traces is not on the page")
    if matrix is not None:
        def dev(d):
            return "?" if d is None else f"dev{d}" if isinstance(d, int) else d
        want_pairs = sorted((dev(c["src"]), dev(c["dst"]), c["bytes"], c["copies"])
                            for h in matrix["hosts"] for c in h["pairs"])
        if sorted(p.pairs) != want_pairs:
            fails.append(f"copies: matrix --json has {want_pairs}, the page {sorted(p.pairs)}")
    if ipc is not None:
        hs = ipc["handles"]
        if len(p.handles) != min(50, len(hs)):
            fails.append(f"IPC: ipc --json has {len(hs)} handles, the page draws {len(p.handles)}")
        for (handle, pids), h in zip(p.handles, hs):
            held = {e["process"]["pid"] for e in h["life"] if e["op"] in ("export", "open")}
            if handle != h["handle"] or pids != held:
                fails.append(f"IPC: handle {h['handle'][:16]}: ipc --json's exporter and importers "
                             f"{sorted(held)}, the page's bars {handle and handle[:16]} {sorted(pids)}")
    if managed is not None:
        want_allocs = [(al["ptr"], al["bytes"], len(al["history"])) for al in managed["allocations"]][:50]
        if p.allocs != want_allocs:
            fails.append(f"managed: managed --json has {want_allocs}, the page {p.allocs}")
    if summary is not None:
        want_apis = sorted((c["vendor"], c["api"], c["count"], c["errors"]) for c in summary["calls"])
        if sorted(p.apis) != want_apis:
            fails.append(f"host time: summary --json has {want_apis}, the page {sorted(p.apis)}")
    for x in fails:
        print(x)
    if not fails:
        print(f"report_check: {len(chk['findings'])} findings in {len(p.groups)} groups, "
              f"{len(uuids)} devices, {len(p.pairs)} pairs, {len(p.handles)} handles, {len(p.apis)} APIs, {len(p.allocs)} managed allocations, verdict {want}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

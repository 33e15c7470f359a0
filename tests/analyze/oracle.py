#!/usr/bin/env python3
"""An independent oracle for peerwatch-analyze.

Recomputes, from the raw JSON Lines of the traces and the documents alone
(docs/trace-format.md, docs/analyze-json.md), the figures of the --json
output of summary, check, matrix, ipc, managed, timeline and info, runs the
analyzer on the same traces, and reports every disagreement.  It shares no
code with the analyzer: it only runs it.

  oracle.py ANALYZER SET...
      SET: a directory of traces (searched recursively, as the analyzer
      does).  Each set is checked on its own.  Exit 0 when the analyzer
      agrees on every set, 1 otherwise (each disagreement on stderr).
"""
import json
import os
import subprocess
import sys
import tempfile

VENDORS = ("cuda", "hip", "acl")
SEV = {"error": 3, "warning": 2, "performance": 1}
INT64_MAX = (1 << 63) - 1
U64_MAX = (1 << 64) - 1
NONE = None  # a device the trace does not name
HOST = -1


def out_u64(v):
    """JSON integers of the analyzer saturate at 2^63-1."""
    return min(v, INT64_MAX)


def sat(v):
    """Sums of sizes saturate at 2^64-1."""
    return min(v, U64_MAX)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def hexval(v):
    if isinstance(v, str) and v[:2] in ("0x", "0X") and 2 < len(v) <= 18:
        try:
            return int(v[2:], 16)
        except ValueError:
            return None
    return None


def dev_of(v):
    return v if is_int(v) and -(1 << 31) <= v < (1 << 31) else NONE


# ---------------------------------------------------------------- reading


class Trace:
    def __init__(self, path, index):
        self.path, self.index = path, index
        self.partial = path.endswith(".partial")
        self.header = None
        self.footer = None
        self.events = []  # (type, obj) in line order
        self.lines = 0
        self.bad = 0
        self.unknown = 0
        self.tail_cut = False
        self.unreadable = False
        self.modules = []
        self.devices = {}  # (vendor, ordinal) -> the device line (a later one replaces it)
        self.device_lines = 0

    # fields of the header
    @property
    def ok(self):
        return self.header is not None

    @property
    def host(self):
        return self.header["host"]

    @property
    def pid(self):
        return self.header["pid"]

    @property
    def t0(self):
        t = self.header.get("t0_mono_ns")
        return t if is_int(t) else 0

    @property
    def run(self):
        r = self.header.get("run_id")
        return r if isinstance(r, str) else ""

    def program(self):
        argv = self.header.get("argv") or []
        if argv and isinstance(argv[0], str) and argv[0]:
            tail = argv[0].rsplit("/", 1)
            return tail[1] if len(tail) == 2 and tail[1] else argv[0]
        return "?"

    def process(self):
        r = self.header.get("rank")
        return {"file": self.path, "host": self.host, "pid": self.pid, "program": self.program(),
                "rank": r if is_int(r) else None}


def valid_event(o):
    """The members every event of the format has (docs/trace-format.md)."""
    t = o.get("type")
    if t == "call":
        need = {"seq": int, "tid": int, "vendor": str, "api": str, "variant": str, "family": str,
                "t_ns": int, "dur_ns": int, "ret": int, "args": dict}
        for k, ty in need.items():
            if not isinstance(o.get(k), ty) or isinstance(o.get(k), bool):
                return False
        return o["vendor"] in VENDORS and o["seq"] >= 1 and o["t_ns"] >= 0 and o["dur_ns"] >= 0 and \
            "ret_name" in o and (o["ret_name"] is None or isinstance(o["ret_name"], str))
    if t == "violation":
        if not (is_int(o.get("seq")) and isinstance(o.get("rule"), str) and o["rule"] and
                isinstance(o.get("severity"), str) and isinstance(o.get("message"), str)):
            return False
        return "call" not in o or is_int(o["call"])
    if t == "gpu_time":
        return is_int(o.get("call")) and is_int(o.get("gpu_ns"))
    if t == "device":
        if not (o.get("vendor") in VENDORS and is_int(o.get("ordinal")) and 0 <= o["ordinal"] < (1 << 31)
                and isinstance(o.get("peers"), list)):
            return False
        if any(k not in o or not (o[k] is None or isinstance(o[k], str)) for k in ("uuid", "bus_id", "name")):
            return False
        if "physical_id" in o and not (is_int(o["physical_id"]) and o["physical_id"] >= 0):
            return False
        for p in o["peers"]:
            if not (isinstance(p, dict) and is_int(p.get("ordinal")) and 0 <= p["ordinal"] < (1 << 31) and
                    isinstance(p.get("link"), str)):
                return False
            for k in ("can_access", "nvlinks"):
                if p.get(k) is not None and not (is_int(p[k]) and p[k] >= 0):
                    return False
            for k in ("topology", "p2p_read"):
                if p.get(k) is not None and not isinstance(p[k], str):
                    return False
        return True
    return True


def read_trace(path, index):
    tr = Trace(path, index)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        tr.unreadable = True
        return tr
    parts = data.split(b"\n")
    last = parts.pop()  # b"" when the file ends with a newline
    if last:
        tr.tail_cut = True
    if not parts and not last:
        tr.unreadable = True
        return tr
    for i, raw in enumerate(parts + ([last] if last else [])):
        tr.lines += 1
        cut = last and i == len(parts)
        if i == 0:
            if cut or len(raw) > (1 << 20):
                tr.unreadable = True
                return tr
            try:
                h = json.loads(raw)
            except ValueError:
                tr.unreadable = True
                return tr
            if not (isinstance(h, dict) and h.get("type") == "header" and h.get("format") == "peerwatch"
                    and h.get("version") == 1 and is_int(h.get("pid")) and isinstance(h.get("host"), str)):
                tr.unreadable = True
                return tr
            tr.header = h
            for m in h.get("modules") or []:
                key = (m.get("path"), m.get("base"))
                if key not in tr.modules:
                    tr.modules.append(key)
            continue
        if cut:
            if not tr.partial:
                tr.bad += 1
            continue
        if len(raw) > (1 << 20):
            tr.bad += 1
            continue
        try:
            o = json.loads(raw)
        except ValueError:
            tr.bad += 1
            continue
        if not isinstance(o, dict) or not valid_event(o):
            tr.bad += 1
            continue
        t = o.get("type")
        if tr.footer is not None:
            tr.bad += 1
            continue
        if t == "footer":
            tr.footer = o
            for m in o.get("modules") or []:
                key = (m.get("path"), m.get("base"))
                if key not in tr.modules:
                    tr.modules.append(key)
        elif t == "header":
            tr.bad += 1
        elif t in ("call", "violation", "gpu_time", "um"):
            tr.events.append((t, o))
        elif t == "device":
            tr.devices[(o["vendor"], o["ordinal"])] = o
            tr.device_lines += 1
        else:
            tr.unknown += 1
    tr.call_seqs = {o["seq"] for t, o in tr.events if t == "call"}
    return tr


def find(paths):
    found = []
    for p in paths:
        if os.path.isfile(p):
            found.append(p)
            continue
        for d, _, names in os.walk(p):
            for n in names:
                full = os.path.join(d, n)
                if (n.endswith(".pw.jsonl") or n.endswith(".pw.jsonl.partial")) and os.path.isfile(full) \
                        and not os.path.islink(full):
                    found.append(full)
    found.sort(key=lambda s: s.encode())
    traces = [read_trace(p, i) for i, p in enumerate(found)]
    for t in traces:
        if not hasattr(t, "call_seqs"):
            t.call_seqs = set()
    return traces


def order(traces):
    """Processes as the analyzer lists them: by host, start time, pid, path."""
    def key(t):
        if t.ok:
            return (t.host.encode(), t.t0, t.pid, t.path.encode())
        return (b"", 0, 0, t.path.encode())
    return sorted(traces, key=key)


def calls(t):
    return [o for ty, o in t.events if ty == "call"]


def nested(t, c):
    """A call made inside a call recorded in the same file counts only through it."""
    return "parent" in c and c["parent"] in t.call_seqs


def has_time(v):
    return is_int(v.get("t_ns")) and is_int(v.get("tid"))


def span(t):
    """The first and last time of the events that have one (calls, timed violations)."""
    lo = hi = None
    for ty, o in t.events:
        if ty == "call":
            a, b = o["t_ns"], o["t_ns"] + o["dur_ns"]
        elif ty == "violation" and has_time(o):
            a = b = o["t_ns"]
        else:
            continue
        lo = a if lo is None or a < lo else lo
        hi = b if hi is None or b > hi else hi
    return lo, hi


def origins(traces):
    first = {}
    for t in traces:
        if not t.ok:
            continue
        lo, _ = span(t)
        v = lo if lo is not None else t.t0
        first[t.host] = v if t.host not in first else min(first[t.host], v)
    return {t.index: first[t.host] if t.ok else 0 for t in traces}


# ---------------------------------------------------------------- devices

PHYS = 1 << 40  # a physical device's key: PHYS + its index (analyzer: devices.h)


class DevMap:
    """Physical devices: (host, vendor, UUID) from the device lines, numbered
    per host and vendor by bus id (docs/analyze-json.md)."""

    def __init__(self, traces):
        ids = {}
        self.unidentified = 0
        for t in traces:
            if not t.ok:
                continue
            if not t.devices:
                self.unidentified += any(ty == "call" for ty, _ in t.events)
                continue
            for (v, n), o in t.devices.items():
                ident = o["uuid"] if o["uuid"] is not None else \
                    ("physical %d" % o["physical_id"] if "physical_id" in o else None)
                if ident is None:
                    continue
                d = ids.setdefault((t.host, v, ident), {"host": t.host, "vendor": v, "uuid": ident, "bus_id": None,
                                                         "name": None, "ordinals": []})
                d["bus_id"] = d["bus_id"] or o["bus_id"]
                d["name"] = d["name"] or o["name"]
                d["ordinals"].append((t.index, n))
        self.phys = sorted(ids.values(), key=lambda d: (d["host"].encode(), d["vendor"].encode(),
                                                        d["bus_id"] is None, (d["bus_id"] or "").encode(),
                                                        d["uuid"].encode()))
        self.byord, num, prev = {}, 0, None
        for i, d in enumerate(self.phys):
            if prev != (d["host"], d["vendor"]):
                num, prev = 0, (d["host"], d["vendor"])
            d["label"] = "%s%d" % ("NPU" if d["vendor"] == "acl" else "GPU", num)
            num += 1
            d["ordinals"].sort()
            for f, n in d["ordinals"]:
                self.byord[(f, d["vendor"], n)] = PHYS + i
        self.links = {}
        for t in sorted(traces, key=lambda t: t.index):
            for (v, n), o in t.devices.items():
                a = self.key(t.index, v, n)
                if a < PHYS:
                    continue
                for p in o["peers"]:
                    b = self.key(t.index, v, p["ordinal"])
                    if b >= PHYS and (a, b) not in self.links:
                        self.links[(a, b)] = p

    def key(self, f, vendor, n):
        if n is NONE or n < 0:
            return n
        return self.byord.get((f, vendor, n), n)

    def label(self, k):
        if is_int(k) and k >= PHYS:
            return self.phys[k - PHYS]["label"]
        return "host" if k == HOST else k

    def link(self, a, b):
        if not (is_int(a) and is_int(b) and a >= PHYS and b >= PHYS):
            return None
        p = self.links.get((a, b)) or self.links.get((b, a))
        if p is None:
            return None
        return {"link": p["link"], "nvlinks": p.get("nvlinks"), "topology": p.get("topology"),
                "p2p_read": p.get("p2p_read")}

    def identities(self, traces, host, vendor):
        by_index = {t.index: t for t in traces}
        return [{"device": d["label"], "uuid": d["uuid"], "bus_id": d["bus_id"], "name": d["name"],
                 "ordinals": [{"process": by_index[f].process(), "ordinal": n} for f, n in d["ordinals"]]}
                for d in self.phys if d["host"] == host and d["vendor"] == vendor]

    def groups(self, traces):
        seen = []
        for d in self.phys:
            if (d["host"], d["vendor"]) not in seen:
                seen.append((d["host"], d["vendor"]))
        return [{"host": h, "vendor": v, "devices": self.identities(traces, h, v)} for h, v in seen]


def op_is(c, *ops):
    return c.get("op") in ops


def arg_u64(a, k):
    v = a.get(k)
    return v if is_int(v) and v >= 0 else None


# ---------------------------------------------------------------- info and summary


def state(t):
    if not t.ok:
        return "unreadable"
    if t.partial:
        return "partial"
    return "clean" if t.footer is not None else "no footer"


def info(traces):
    files = []
    for t in order(traces):
        f = {"file": t.path, "state": state(t)}
        if t.ok:
            lo, hi = span(t)
            ft = t.footer or {}
            f.update({
                "process": t.process(), "run_id": t.header.get("run_id"),
                "events_read": len(t.events) + t.device_lines,
                "devices": [{"vendor": v, "ordinal": n, "uuid": o["uuid"], "bus_id": o["bus_id"], "name": o["name"]}
                            for (v, n), o in t.devices.items()],
                "environment": t.header.get("environment"),
                "calls": sum(1 for ty, _ in t.events if ty == "call"),
                "violations": sum(1 for ty, _ in t.events if ty == "violation"),
                "gpu_times": sum(1 for ty, _ in t.events if ty == "gpu_time"),
                "footer_events": ft.get("events") if t.footer else None,
                "dropped": ft.get("dropped") if t.footer else None,
                "footer_violations": ft.get("violations") if t.footer else None,
                "bad_lines": t.bad, "unknown_events": t.unknown, "last_line_cut": t.tail_cut,
                "first_t_ns": lo, "last_t_ns": hi, "modules": len(t.modules),
                "reason": ft.get("reason") if t.footer else None})
        files.append(f)
    n = {s: sum(1 for f in files if f["state"] == s) for s in ("clean", "partial", "no footer", "unreadable")}
    return {"files": files, "clean": n["clean"], "partial": n["partial"], "no_footer": n["no footer"],
            "unreadable": n["unreadable"]}


def summary(traces):
    apis, rules, vend, repeats = {}, {}, {}, {}
    tot = {"calls": 0, "errors": 0, "violations": 0, "nested": 0}
    procs = []
    for t in order(traces):
        if not t.ok:
            continue
        pc = pe = pv = 0
        for ty, o in t.events:
            if ty == "violation":
                k = (o["rule"], o["severity"])
                rules[k] = rules.get(k, 0) + 1
                pv += 1
            if ty != "call":
                continue
            a = apis.setdefault((o["vendor"], o["api"]), {"count": 0, "errors": 0, "nested": 0, "rets": {},
                                                          "durs": [], "runtime": False})
            a["count"] += 1
            a["nested"] += "parent" in o
            a["runtime"] |= o.get("layer") == "runtime"
            if o.get("parent_time") is not True:  # folded into its parent: the parent's times
                a["durs"].append(o["dur_ns"])
            pc += 1
            if o["ret"] != 0:
                a["errors"] += 1
                pe += 1
                name = o["ret_name"] if o["ret_name"] is not None else str(o["ret"])
                a["rets"][name] = a["rets"].get(name, 0) + 1
        p = t.process()
        ft = t.footer if isinstance(t.footer, dict) else {}
        rep = ft.get("repeats")
        werr = ft.get("write_error")
        p.update({"calls": pc, "errors": pe, "violations": pv, "partial": t.partial,
                  "footer": t.footer is not None,
                  "repeats": rep if is_int(rep) and rep > 0 else 0,
                  "limited": isinstance(ft.get("limit"), dict),
                  "write_error": werr if isinstance(werr, str) else None})
        procs.append(p)
        for e in ft.get("repeats_by") or []:
            if isinstance(e, dict) and isinstance(e.get("rule"), str) and is_int(e.get("count")) \
                    and e["count"] > 0:
                repeats[e["rule"]] = repeats.get(e["rule"], 0) + e["count"]
    for (v, _), a in apis.items():
        tot["calls"] += a["count"]
        tot["errors"] += a["errors"]
        tot["nested"] += a["nested"]
        s = vend.setdefault(v, {"vendor": v, "calls": 0, "top_level": 0, "errors": 0})
        s["calls"] += a["count"]
        s["top_level"] += a["count"] - a["nested"]
        s["errors"] += a["errors"]
    tot["violations"] = sum(rules.values())
    cl = []
    for (v, api) in sorted(apis, key=lambda k: (k[0].encode(), k[1].encode())):
        a = apis[(v, api)]
        d = sorted(a["durs"])
        cl.append({"api": api, "vendor": v, "layer": "runtime" if a["runtime"] else None,
                   "count": a["count"], "errors": a["errors"], "nested": a["nested"],
                   "errors_by_return": a["rets"], "durs": d})
    vl = sorted(rules, key=lambda k: (-SEV.get(k[1], 0), k[0].encode(), k[1].encode()))
    dm = DevMap(traces)
    return {"devices": dm.groups(traces), "traces_without_devices": dm.unidentified,
            "processes": sum(1 for t in traces if t.ok), "partial": sum(1 for t in traces if t.ok and t.partial),
            "calls_total": tot["calls"], "errors_total": tot["errors"], "violations_total": tot["violations"],
            "bad_lines": sum(t.bad for t in traces), "nested_total": tot["nested"],
            "vendors": [vend[k] for k in sorted(vend)], "calls": cl, "per_process": procs,
            "violations": [{"rule": r, "severity": s, "count": rules[(r, s)], "repeats": repeats.get(r, 0)}
                           for r, s in vl]}


def rank_value(d, p):
    """Nearest-rank percentile p of sorted values d."""
    k = max(1, -(-p * len(d) // 100))
    return d[k - 1]


def near(got, want):
    """A histogram percentile: exact below 32 and at the ends, else within its bucket (1/32)."""
    if want < 32:
        return got == want
    return abs(got - want) <= want / 32 + 1


# ---------------------------------------------------------------- IPC


IPC_OPS = {"IpcGetMemHandle": "export", "IpcOpenMemHandle": "open", "IpcCloseMemHandle": "close",
           "IpcGetEventHandle": "ev_export", "IpcOpenEventHandle": "ev_open"}
FREES = {"cuMemFree", "cuMemFreeAsync", "cudaFree", "cudaFreeAsync", "hipFree", "hipFreeAsync"}
VMM_OPS = {"cuMemCreate": "vmm_create", "cuMemExportToShareableHandle": "vmm_export",
           "cuMemImportFromShareableHandle": "vmm_import", "cuMemMap": "vmm_map", "cuMemSetAccess": "vmm_access",
           "cuMemUnmap": "vmm_unmap", "cuMemRelease": "vmm_release", "cuMemRetainAllocationHandle": "vmm_retain",
           "cuMemPoolExportToShareableHandle": "pool_export", "cuMemPoolImportFromShareableHandle": "pool_import",
           "cuMemPoolSetAccess": "pool_access", "cuMemPoolExportPointer": "ptr_export",
           "cuMemPoolImportPointer": "ptr_import"}
SHARES_PTR = {"cuIpcGetMemHandle", "cudaIpcGetMemHandle", "hipIpcGetMemHandle", "cuMemPoolExportPointer",
              "cuMemPoolImportPointer"}


BY_OP = {"ipc_export": "export", "ipc_open": "open", "ipc_close": "close", "ipc_event_export": "ev_export",
         "ipc_event_open": "ev_open", "event_destroy": "ev_destroy", "free": "free",
         "vmm_create": "vmm_create", "vmm_export": "vmm_export", "vmm_import": "vmm_import", "vmm_map": "vmm_map",
         "vmm_set_access": "vmm_access", "vmm_unmap": "vmm_unmap", "vmm_release": "vmm_release",
         "vmm_retain": "vmm_retain", "pool_export": "pool_export", "pool_import": "pool_import",
         "pool_set_access": "pool_access", "pool_export_ptr": "ptr_export", "pool_import_ptr": "ptr_import"}


def ipc_op(c):
    """What an IPC call does: its "op" (docs/trace-format.md); by API name in
    traces written before calls had one."""
    if isinstance(c.get("op"), str):
        return BY_OP.get(c["op"])
    api = c["api"]
    for pre in ("cuda", "hip", "cu"):
        if api.startswith(pre) and api[len(pre):] in IPC_OPS:
            return IPC_OPS[api[len(pre):]]
    if api in FREES:
        return "free"
    return VMM_OPS.get(api)


def handle_hex(a):
    h = a.get("handle")
    if isinstance(h, str) and len(h) == 128:
        try:
            int(h, 16)
            return h.lower()
        except ValueError:
            return None
    return None


def share_key(t, c, op):
    a = c["args"]
    fid, sh, ht, ed = a.get("file_id"), a.get("shareable"), a.get("handle_type"), a.get("export_data")
    fid = fid if isinstance(fid, str) else None
    sh = sh if isinstance(sh, str) else None
    ht = ht if isinstance(ht, str) else None
    ed = ed if isinstance(ed, str) else None
    pool = "pool " if op in ("pool_export", "pool_import") else ""
    if op in ("ptr_export", "ptr_import"):
        return "ptr " + ed if ed else None
    if fid and a.get("file_id_unique") is not False:
        return "%sfile %s on %s" % (pool, fid, t.host)
    if sh and ht == "fabric":
        return "%sfabric %s" % (pool, sh)
    if sh and not pool and c.get("vendor") == "acl":  # ACL's shareable handle: the host's number
        if a.get("share_type") == "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC":  # V2 fabric: any host's
            return "acl fabric %s" % sh
        return "acl %s on %s" % (sh, t.host)
    h = hexval(a.get("pool" if pool else "handle"))
    if ht == "posix_fd" and h is not None:
        return "%sunpaired fd of pid %d on %s, %s 0x%x" % (pool, t.pid, t.host, "pool" if pool else "handle", h)
    return None


class Rec:
    key = vh = None
    bytes = 0


def alive_at(t, when):
    lo, hi = span(t)
    if hi is not None and when <= hi:
        return "alive"
    f = t.footer
    if f is not None and is_int(f.get("t_end_ns")) and not t.partial:
        return "alive" if when < f["t_end_ns"] else "gone"
    return "unknown"


def ipc(traces):
    by_index = {t.index: t for t in traces}
    recs = []
    for t in traces:
        if not t.ok:
            continue
        exported, events = set(), set()
        for c in calls(t):
            op = ipc_op(c)
            if c["ret"] != 0 or op is None:
                continue
            if op in ("export", "ptr_export", "ptr_import") and hexval(c["args"].get("ptr")) is not None:
                exported.add(hexval(c["args"].get("ptr")))
            if op in ("ev_export", "ev_open") and hexval(c["args"].get("event")) is not None:
                events.add(hexval(c["args"].get("event")))
        for c in calls(t):
            op = ipc_op(c)
            if op is None or nested(t, c):
                continue
            a = c["args"]
            ptr = hexval(a.get("event" if op in ("ev_export", "ev_open", "ev_destroy") else "ptr"))
            if op == "free" and (c["ret"] != 0 or ptr is None or ptr not in exported):
                continue
            if op == "ev_destroy" and (c["ret"] != 0 or ptr is None or ptr not in events):
                continue
            r = Rec()
            r.op, r.vendor, r.file, r.seq, r.t, r.ret = op, c["vendor"], t.index, c["seq"], c["t_ns"], c["ret"]
            r.ptr, r.handle = ptr, handle_hex(a) if op in IPC_OPS.values() else None
            r.dev = dev_of(a.get("dev" if op == "vmm_create" else "ptr_dev"))
            r.cur_dev = dev_of(c.get("cur_dev"))
            r.closed_by = None
            r.owner = None
            if op in VMM_OPS.values():
                vk = "pool" if op in ("pool_export", "pool_import", "pool_access", "ptr_import") else "handle"
                r.ptr = hexval(a.get("ptr"))
                r.vh = hexval(a.get(vk))
                r.bytes = arg_u64(a, "bytes") or 0
                # an ACL import the runtime refused still names its allocation by the shareable handle
                r.key = share_key(t, c, op) if (c["ret"] == 0 or (op == "vmm_import" and c["vendor"] == "acl")) \
                    and op in ("vmm_export", "vmm_import", "pool_export", "pool_import", "ptr_export",
                               "ptr_import") else None
            recs.append(r)

    def host_of(r):
        return by_index[r.file].host

    recs.sort(key=lambda r: (host_of(r).encode(), r.t, r.file, r.seq))
    handles, hmap, opens, exports, stray, ev_opens, ev_exports = [], {}, {}, {}, [], {}, {}
    for r in recs:
        if r.op in VMM_OPS.values():
            continue
        if r.op == "close":
            done = False
            if r.ptr is None and r.handle is not None and r.ret == 0:
                # ACL closes a key: the closing process's latest open of it,
                # else the exporter's own close, listed with the handle
                t = by_index[r.file]
                h = hmap.get(("m", r.handle, t.run, t.host, r.vendor))
                for o in reversed(h["recs"] if h else []):
                    if o.op == "open" and o.ret == 0 and o.file == r.file and o.closed_by is None and o.t <= r.t:
                        o.closed_by = r
                        r.ptr = o.ptr
                        h["recs"].append(r)
                        done = True
                        break
                if not done and h and h["export"] is not None and h["export"].file == r.file and \
                        h["export"].t <= r.t:
                    r.owner = h
                    h["recs"].append(r)
                    if h.get("closed") is None:
                        h["closed"] = r
                    done = True
            if r.ptr is not None and r.ret == 0 and not done:
                for o in reversed(opens.get((r.file, r.ptr), [])):
                    if o.closed_by is None and o.t <= r.t:
                        o.closed_by = r
                        o.owner["recs"].append(r)
                        done = True
                        break
            if not done:
                stray.append(r)
            continue
        if r.op == "free":
            for h in exports.get((r.file, r.ptr), []):
                if h["free"] is None and h["export"] is not None and h["export"].t <= r.t and \
                        h["export"].vendor == r.vendor:
                    h["free"] = r
                    h["recs"].append(r)
            continue
        if r.op == "ev_destroy":
            done = False
            for o in reversed(ev_opens.get((r.file, r.ptr), [])):
                if o.closed_by is None and o.t <= r.t:
                    o.closed_by = r
                    o.owner["recs"].append(r)
                    done = True
                    break
            if not done:
                for h in ev_exports.get((r.file, r.ptr), []):
                    if h["free"] is None and h["export"] is not None and h["export"].t <= r.t:
                        h["free"] = r
                        h["recs"].append(r)
            continue
        if r.handle is None:
            continue
        ev = r.op in ("ev_export", "ev_open")
        t = by_index[r.file]
        key = ("e" if ev else "m", r.handle, t.run, t.host, r.vendor)
        if key not in hmap:
            hmap[key] = {"event": ev, "host": t.host, "handle": r.handle, "vendor": r.vendor, "recs": [],
                         "export": None, "free": None}
            handles.append(hmap[key])
        h = hmap[key]
        r.owner = h
        h["recs"].append(r)
        if r.op in ("export", "ev_export") and r.ret == 0:
            if h["export"] is None:
                h["export"] = r
            if r.ptr is not None and r.file == h["export"].file:
                lst = (exports if r.op == "export" else ev_exports).setdefault((r.file, r.ptr), [])
                if h not in lst:
                    lst.append(h)
        if r.op in ("open", "ev_open") and r.ret == 0 and r.ptr is not None:
            (ev_opens if ev else opens).setdefault((r.file, r.ptr), []).append(r)
    pos = {id(r): i for i, r in enumerate(recs)}
    handles.sort(key=lambda h: pos[id(h["recs"][0])])
    findings = []
    for h in handles:
        exp = h["export"]
        if h["event"]:
            d = h["free"]
            for o in h["recs"]:
                if o.op != "ev_open" or o.ret != 0 or (exp is not None and o.file == exp.file):
                    continue
                imp = by_index[o.file]
                if d is not None and o.t < d.t and (o.closed_by.t > d.t if o.closed_by is not None
                                                    else alive_at(imp, d.t) == "alive"):
                    findings.append(("ipc.event.destroy-while-open", "warning", d.file, d.seq))
                if o.closed_by is None and not imp.partial:
                    findings.append(("ipc.event.leak", "warning", o.file, o.seq))
            continue
        if exp is None:
            for o in h["recs"]:
                if o.op == "open":
                    findings.append(("ipc.open.unexported", "warning", o.file, o.seq))
        fr = h["free"]
        for o in h["recs"]:
            if o.op != "open" or (exp is not None and o.file == exp.file):
                continue
            if o.ret == 0 and fr is not None and o.t < fr.t and \
                    (o.closed_by.t > fr.t if o.closed_by is not None
                     else alive_at(by_index[o.file], fr.t) == "alive"):
                findings.append(("ipc.free-while-open", "error", fr.file, fr.seq))
            kc = h.get("closed")  # ACL: the exporter closed the key while this import was open
            if o.ret == 0 and kc is not None and o.t < kc.t and \
                    (o.closed_by.t > kc.t if o.closed_by is not None
                     else alive_at(by_index[o.file], kc.t) == "alive"):
                findings.append(("ipc.free-while-open", "error", kc.file, kc.seq))
            # stale whether the runtime took the open or refused it
            if fr is not None and o.t > fr.t:
                findings.append(("ipc.open.stale", "error", o.file, o.seq))
            if exp is not None and unreachable(by_index[exp.file], exp, by_index[o.file], o):
                findings.append(("ipc.open.unreachable", "error", o.file, o.seq))
        # one leak per mapping: the opens left of one (process, pointer), named by the first
        left = []
        for o in h["recs"]:
            if o.op != "open" or o.ret != 0 or o.closed_by is not None or \
                    (exp is not None and o.file == exp.file) or by_index[o.file].partial:
                continue
            if not any(f == o.file and p == o.ptr for f, p, _ in left):
                left.append((o.file, o.ptr, o))
        for _, _, o in left:
            findings.append(("ipc.leak", "warning", o.file, o.seq))
    shared = ipc_shared(recs, by_index)
    for sh in shared:
        findings.extend(released_imports(sh, by_index))
    return {"handles": handles, "findings": findings, "stray": stray, "shared": shared}


def unreachable(te, exp, ti, o):
    """An open on a device that the importer's own device line says cannot
    access the exporter's device (the exporter's device found by UUID)."""
    de = te.devices.get((exp.vendor, exp.dev))
    dc = ti.devices.get((o.vendor, o.cur_dev))
    if not de or not dc or not de.get("uuid") or not dc.get("uuid"):
        return False
    mine = [n for (v, n), d in ti.devices.items() if v == o.vendor and d.get("uuid") == de["uuid"]]
    if not mine or mine[0] == o.cur_dev:
        return False
    can = [p.get("can_access") for p in dc.get("peers") or [] if p.get("ordinal") == mine[0]]
    return bool(can) and can[-1] == 0


def released_imports(sh, by_index):
    """Imports of a VMM allocation, by another process of the exporter's
    host, after the exporter's handle was released as often as it was
    made and retained."""
    if sh["key"].startswith(("ptr ", "pool ")):
        return []
    recs = sh["recs"]
    exp = next((r for r in recs if r.op == "vmm_export" and r.ret == 0 and r.vh is not None), None)
    # where the vendor's document says it: CUDA's cuMemRelease sentence and
    # CANN's import page ("the physical memory to be shared exists and cannot
    # be released in advance"); HIP's hipMemRelease says nothing of the
    # shareable handles
    if exp is None or exp.vendor not in ("cuda", "acl"):
        return []
    out, refs, rel = [], 1, None
    for r in recs:
        if r.file == exp.file and r.vh == exp.vh and r.ret == 0:
            if r.op == "vmm_retain":
                refs += 1
            elif r.op == "vmm_release":
                refs -= 1
                if refs == 0 and rel is None:
                    rel = r
        if rel is not None and r.op == "vmm_import" and r.file != exp.file and r.t > rel.t and \
                by_index[r.file].host == by_index[exp.file].host:
            out.append(("vmm.import.released", "warning", r.file, r.seq))
    return out


def ipc_shared(recs, by_index):
    v = sorted((r for r in recs if r.op in VMM_OPS.values() or r.op == "free"), key=lambda r: (r.file, r.t, r.seq))
    shared, smap = [], {}
    i = 0
    while i < len(v):
        j = i
        while j < len(v) and v[j].file == v[i].file:
            j += 1
        h2k, pool2k, p2k, spans = {}, {}, {}, []
        for r in v[i:j]:
            if r.key and r.vh is not None and r.op in ("vmm_export", "vmm_import"):
                h2k[r.vh] = r.key
            if r.key and r.vh is not None and r.op in ("pool_export", "pool_import"):
                pool2k[r.vh] = r.key

        def key_at(ptr):
            k = p2k.get(ptr)
            for s in reversed(spans):
                if k is not None:
                    break
                if ptr >= s[0] and ptr - s[0] < s[1]:
                    k = s[2]
            return k

        for r in v[i:j]:
            k = None
            if r.op in ("vmm_export", "vmm_import", "pool_export", "pool_import"):
                k = r.key
            elif r.op in ("ptr_export", "ptr_import"):
                if r.key and r.ptr is not None:
                    p2k[r.ptr] = r.key
                k = r.key
            elif r.op in ("vmm_create", "vmm_release"):
                k = h2k.get(r.vh) if r.vh is not None else None
            elif r.op == "pool_access":
                k = pool2k.get(r.vh) if r.vh is not None else None
            elif r.op == "vmm_map":
                k = h2k.get(r.vh) if r.vh is not None else None
                if k and r.ptr is not None and r.ret == 0:
                    p2k[r.ptr] = k
                    spans.append((r.ptr, r.bytes, k))
            elif r.op == "vmm_retain":
                k = key_at(r.ptr) if r.ptr is not None else None
                if k and r.vh is not None:
                    h2k[r.vh] = k
            else:
                k = key_at(r.ptr) if r.ptr is not None else None
            if k:
                mk = (by_index[r.file].run, k)
                if mk not in smap:
                    smap[mk] = {"key": k, "recs": []}
                    shared.append(smap[mk])
                smap[mk]["recs"].append(r)
        i = j
    for s in shared:
        s["recs"].sort(key=lambda r: (by_index[r.file].host.encode(), r.t, r.file, r.seq))
    shared.sort(key=lambda s: ((by_index[s["recs"][0].file].host.encode(), s["recs"][0].t, s["recs"][0].file,
                                s["recs"][0].seq), s["key"].encode()))
    return shared


# ---------------------------------------------------------------- findings and check


UM_PAGE = 1 << 16
UM_PAGES_MAX = 4096


def um_proc(v):
    """A um event's processor: an ordinal, or -1 for "cpu"."""
    return -1 if v == "cpu" else v if is_int(v) else None


def um_call_proc(a, key):
    """The processor an advice or prefetch names: location {type, id} or a device number (-1: the CPU)."""
    loc = a.get("location")
    if isinstance(loc, dict):
        if loc.get("type") == "device" and is_int(loc.get("id")):
            return loc["id"]
        return -1 if loc.get("type") in ("host", "host_numa", "host_numa_current") else None
    for k in (key, "device", "dev"):
        if is_int(a.get(k)):
            return -1 if a[k] in (-1, -2) else a[k]
    return None


def um_findings(t):
    """The unified-memory rules (include/peerwatch/derived_rules.h), recomputed from one trace:
    (rule, call seq).  An event's page is governed by the latest managed call (allocation, advice,
    prefetch) covering it at or before the event; each advice rule by the latest set or unset of its
    own kind (accessed-by: for the faulting processor)."""
    mcalls = []
    for c in calls(t):
        k = mg_kind(c)
        if nested(t, c) or c["ret"] != 0 or k not in ("alloc", "advise", "prefetch"):
            continue
        a = c["args"]
        ptr, n = hexval(a.get("ptr")), arg_u64(a, "bytes")
        if ptr is None or not n:
            continue
        adv = a.get("advice") if is_int(a.get("advice")) else None
        proc = um_call_proc(a, "dst_dev" if k == "prefetch" else "dev")
        mcalls.append(((c["t_ns"], c["seq"]), ptr, ptr + n, k, adv, proc, c["seq"]))
    mcalls.sort()
    allocs = [m for m in mcalls if m[3] == "alloc"]
    found = set()
    first_fault, first_other, away = {}, {}, {}

    def latest(page_addr, at, pred):
        best = None
        for m in mcalls:
            if m[0][0] > at:
                break
            if m[1] <= page_addr < m[2] and pred(m):
                best = m
        return best

    for ty, e in t.events:
        if ty != "um":
            continue
        addr = hexval(e.get("addr"))
        at = e["t_ns"]
        if addr is None or not any(m[1] <= addr < m[2] and m[0][0] <= at for m in allocs) and \
                not any(m[1] <= addr < m[2] for m in allocs):
            continue
        kind = e["kind"]
        fault = kind in ("cpu_fault", "gpu_fault") and e.get("access") != "prefetch"
        fproc = um_proc(e.get("proc")) if fault else None
        span = e.get("bytes") if kind in ("htod", "dtoh", "dtod", "remote_map", "thrashing") else 1
        first = addr // UM_PAGE
        last = (addr + max(1, span or 1) - 1) // UM_PAGE
        for page in range(first, min(last, first + UM_PAGES_MAX - 1) + 1):
            pa = max(addr, page * UM_PAGE)
            row = latest(pa, at, lambda m: True)
            if row and row[3] == "prefetch":
                key = (row[6], page)
                if fault and fproc == row[5]:
                    first_fault[key] = min(first_fault.get(key, at), at)
                other = (fault and fproc != row[5]) or \
                    (kind in ("htod", "dtoh", "dtod", "remote_map") and um_proc(e.get("dst")) != row[5])
                if other:
                    first_other[key] = min(first_other.get(key, at), at)
            pref = latest(pa, at, lambda m: m[3] == "advise" and m[4] in (3, 4))
            if pref and pref[4] == 3:
                if kind in ("htod", "dtoh", "dtod") and um_proc(e.get("src")) == pref[5]:
                    away[(pref[6], page)] = away.get((pref[6], page), 0) + 1
                    if away[(pref[6], page)] >= 2:
                        found.add(("um.preferred.thrashing", pref[6]))
                if kind == "thrashing":
                    found.add(("um.preferred.thrashing", pref[6]))
            rm = latest(pa, at, lambda m: m[3] == "advise" and m[4] in (1, 2))
            if rm and rm[4] == 1 and kind == "gpu_fault" and e.get("access") in ("write", "atomic"):
                found.add(("um.read-mostly.written", rm[6]))
            if fault:
                ab = latest(pa, at, lambda m: m[3] == "advise" and m[4] in (5, 6) and m[5] == fproc)
                if ab and ab[4] == 5:
                    found.add(("um.accessed-by.faults", ab[6]))
    for (seq, page), f in first_fault.items():
        o = first_other.get((seq, page))
        if o is None or f < o:
            found.add(("um.prefetch.faults-after", seq))
    return found


def findings(traces, derived=True):
    ipcr = ipc(traces) if derived else None
    out = []
    taken = set()  # (file, call seq, rule) a suppression took in the library
    for t in traces:
        if not t.ok:
            continue
        for ty, o in t.events:
            if ty == "violation":
                out.append({"file": t.index, "rule": o["rule"], "severity": o["severity"],
                            "call": o.get("call"), "seq": o["seq"], "derived": False})
            elif ty == "call":
                for r in o.get("suppressed") or []:
                    taken.add((t.index, o["seq"], r))
    if derived:
        umf = [(rule, "performance", t.index, seq) for t in traces if t.ok for rule, seq in um_findings(t)]
        for rule, sev, file, call in ipcr["findings"] + sorted(umf):
            dup = any(not f["derived"] and f["file"] == file and f["rule"] == rule and
                      (f["call"] == call or (rule in ("ipc.leak", "ipc.event.leak") and f["call"] is None))
                      for f in out)
            if not dup and (file, call, rule) not in taken:
                out.append({"file": file, "rule": rule, "severity": sev, "call": call, "seq": None,
                            "derived": True})
    return out


def problems(t):
    """What the gate finds wrong with a trace: (kind, fails without --allow-partial, fails with it)."""
    if not t.ok:
        return [("partial", True)] if t.partial else [("unreadable", False)]
    p = []
    if t.bad:
        p.append(("bad lines", False))
    if t.partial:
        return p + [("partial", True)]
    if t.footer is None:
        return p + [("cut short", True)]
    f = t.footer
    if f["events"] != t.lines - 2:
        p.append(("events differ", False))
    nv = sum(1 for ty, _ in t.events if ty == "violation")
    if is_int(f.get("violations")) and f["violations"] != nv:
        p.append(("violations differ", False))
    db = f.get("dropped_by")
    if f["dropped"] > 0 and isinstance(f.get("limit"), dict) and isinstance(db, dict) and list(db) == ["size_limit"]:
        p.append(("size limit", None))
    elif f["dropped"] > 0:
        p.append(("dropped", True))
    elif isinstance(f.get("write_error"), str):
        p.append(("write error", True))
    return p


# ---------------------------------------------------------------- matrix


def side_dev(obj, side):
    if obj.get(side + "_type") == "host":
        return HOST
    return dev_of(obj.get(side + "_dev"))


def already_enabled(c):
    n = c["ret_name"]
    if n is not None:
        return "AlreadyEnabled" in n or "ALREADY_ENABLED" in n
    return c["vendor"] == "cuda" and c["ret"] == 704


def peer_call(t, c):
    api = c["api"]
    if "op" in c:  # the op names what a call does; traces from before it, the API name
        enable, disable = op_is(c, "peer_enable"), op_is(c, "peer_disable")
    else:
        enable, disable = api.endswith("EnablePeerAccess"), api.endswith("DisablePeerAccess")
    if not enable and not disable:
        return None
    frm = dev_of(c.get("cur_dev"))
    to = dev_of(c["args"].get("peer_dev"))
    if to is NONE:
        to = dev_of(c["args"].get("peer_ctx_dev"))
    if frm is NONE or to is NONE or nested(t, c):
        return None
    return frm, to, enable


def matrix(traces, dm):
    cells = {}

    def cell(t, vendor, s, d):
        k = (t.host, vendor, dm.key(t.index, vendor, s), dm.key(t.index, vendor, d))
        if k not in cells:
            cells[k] = dict.fromkeys(("copies", "failed", "bytes", "host_ns", "gpu_copies", "gpu_bytes", "gpu_ns",
                                      "no_peer", "no_peer_bytes", "implicit", "implicit_bytes", "batch", "enables",
                                      "disables", "grants", "on_at_end", "enable_failed"), 0)
        return cells[k]

    for t in traces:
        if not t.ok:
            continue
        logs, resets, gpu, child = {}, [], {}, {}
        for ty, o in t.events:
            if ty == "gpu_time":
                gpu[o["call"]] = o["gpu_ns"]
        for c in calls(t):
            if nested(t, c) and copy_op(c):
                child[c["parent"]] = c["seq"]
                continue
            v = c["vendor"]
            pc = peer_call(t, c)
            if pc and (c["ret"] == 0 or (pc[2] and already_enabled(c))):
                logs.setdefault((v, pc[0], pc[1]), []).append(((c["t_ns"], c["seq"]), pc[2]))
                continue
            if op_is(c, "device_reset") if "op" in c else \
                    c["api"] in ("hipDeviceReset", "cudaDeviceReset", "aclrtResetDevice"):
                d = dev_of(c["args"].get("device"))
                d = dev_of(c.get("cur_dev")) if d is NONE else d
                if c["ret"] == 0 and d is not NONE and not nested(t, c):
                    resets.append((v, d, (c["t_ns"], c["seq"])))
                continue
            g = grant(t, c)
            if g:
                for to, on in g[1]:
                    if to != g[0] and to >= 0:
                        logs.setdefault((v, g[0], to), []).append(((c["t_ns"], c["seq"]), on))
        for k in logs:
            logs[k].sort(key=lambda x: x[0])

        def access_at(v, frm, to, seq):
            ch = [x for x in logs.get((v, frm, to), []) if x[0] < seq]
            if not ch or not ch[-1][1]:
                return False
            last = ch[-1][0]
            return not any(rv == v and (rd == frm or rd == to) and last < rs < seq for rv, rd, rs in resets)

        def put(c, s, d, nbytes, host_ns, copies, batch):
            cl = cell(t, c["vendor"], s, d)
            cl["copies"] += copies
            cl["bytes"] = sat(cl["bytes"] + nbytes)
            cl["host_ns"] += host_ns
            cl["batch"] += copies if batch else 0
            if c.get("implicit") is True:
                cl["implicit"] += copies
                cl["implicit_bytes"] = sat(cl["implicit_bytes"] + nbytes)
            g = None
            if not batch:
                g = gpu.get(c["seq"])
                if g is None and c["seq"] in child:
                    g = gpu.get(child[c["seq"]])
            if g is not None:
                cl["gpu_copies"] += 1
                cl["gpu_bytes"] = sat(cl["gpu_bytes"] + nbytes)
                cl["gpu_ns"] += g
            if s is not NONE and d is not NONE and s >= 0 and d >= 0 and s != d and \
                    not access_at(c["vendor"], s, d, (c["t_ns"], c["seq"])) and \
                    not access_at(c["vendor"], d, s, (c["t_ns"], c["seq"])):
                cl["no_peer"] += copies
                cl["no_peer_bytes"] = sat(cl["no_peer_bytes"] + nbytes)

        for c in calls(t):
            a = c["args"]
            if is_copy(t, c):
                lst = a.get("copies")
                if c["ret"] != 0:
                    cell(t, c["vendor"], side_dev(a, "src"), side_dev(a, "dst"))["failed"] += 1
                elif isinstance(lst, list) and lst:
                    total = arg_u64(a, "bytes") or 0
                    sizes = [arg_u64(e, "bytes") or 0 for e in lst]
                    listed = sat(sum(sizes))
                    denom = max(total, listed)
                    dur = c["dur_ns"]
                    for e, b in zip(lst, sizes):
                        share = int(float(dur) * float(b) / float(denom)) if denom else dur // len(lst)
                        put(c, side_dev(e, "src"), side_dev(e, "dst"), b, share, 1, True)
                    count = arg_u64(a, "count")
                    if count is not None and count > len(lst):
                        b = total - listed if total > listed else 0
                        share = int(float(dur) * float(b) / float(denom)) if denom else 0
                        put(c, side_dev(a, "src"), side_dev(a, "dst"), b, share, count - len(lst), True)
                else:
                    put(c, side_dev(a, "src"), side_dev(a, "dst"), arg_u64(a, "bytes") or 0, c["dur_ns"], 1,
                        isinstance(lst, list))
                continue
            pc = peer_call(t, c)
            if pc and c["ret"] == 0:
                cl = cell(t, c["vendor"], pc[0], pc[1])
                cl["enables" if pc[2] else "disables"] += 1
            elif pc and pc[2] and c["ret"] != 0 and not already_enabled(c):
                cell(t, c["vendor"], pc[0], pc[1])["enable_failed"] += 1
            elif not pc:
                g = grant(t, c)
                if g:
                    for to, _ in g[1]:
                        if to != g[0] and to >= 0:
                            cell(t, c["vendor"], g[0], to)["grants"] += 1
        for (v, frm, to) in logs:
            if access_at(v, frm, to, (float("inf"), float("inf"))):
                cell(t, v, frm, to)["on_at_end"] += 1
    return cells


def copy_op(c):
    if "op" in c:
        return op_is(c, "peer_copy", "implicit_copy")
    return c["family"] == "copy"


def is_copy(t, c):
    if not copy_op(c) or nested(t, c):
        return False
    a = c["args"]
    peer = op_is(c, "peer_copy") if "op" in c else "MemcpyPeer" in c["api"] or "Memcpy3DPeer" in c["api"]
    if c.get("implicit") is True or peer or isinstance(a.get("copies"), list):
        return True
    s, d = side_dev(a, "src"), side_dev(a, "dst")
    return s is not NONE and d is not NONE and s >= 0 and d >= 0 and s != d


def grant(t, c):
    g = op_is(c, "vmm_set_access", "pool_set_access") if "op" in c else \
        c["api"] in ("cuMemSetAccess", "cuMemPoolSetAccess")
    if c["ret"] != 0 or nested(t, c) or not g:
        return None
    acc = c["args"].get("access")
    if not isinstance(acc, list):
        return None
    frm = dev_of(c["args"].get("ptr_dev"))
    frm = dev_of(c["args"].get("pool_dev")) if frm is NONE else frm
    if frm is NONE:
        return None
    out = []
    for g in acc:
        fl = g.get("flags")
        on = fl != 0 if is_int(fl) else not (isinstance(fl, str) and fl == "none")
        out.append((g["dev"], on))
    return frm, out


# ---------------------------------------------------------------- managed


def dev_label(d):
    if d is NONE:
        return "unknown"
    return "host" if d == -1 else "dev%d" % d


def target_of(c, dev_key):
    a = c["args"]
    loc = a.get("location")
    if isinstance(loc, dict):
        ty, i = loc.get("type"), loc.get("id")
        if ty == "device":
            return "dev%d" % i
        if ty == "host":
            return "host"
        if isinstance(ty, str):
            return "%s %d" % (ty, i)
        return "type %d id %d" % (ty, i)
    for k in (dev_key, "device", "dev"):
        if is_int(a.get(k)):
            return dev_label(dev_of(a[k]))
    return "unknown"


def target_dev(c, dev_key):
    """The device a prefetch goes to, or None when it is not a device."""
    a = c["args"]
    loc = a.get("location")
    if isinstance(loc, dict):
        i = loc.get("id")
        return i if loc.get("type") == "device" and is_int(i) and 0 <= i < (1 << 31) else None
    for k in (dev_key, "device", "dev"):
        if is_int(a.get(k)):
            return a[k] if 0 <= a[k] < (1 << 31) else None
    return None


MG_OPS = {"managed_alloc": "alloc", "managed_advise": "advise", "managed_attach": "attach",
          "managed_prefetch": "prefetch", "managed_prefetch_batch": "batch", "managed_range_attr": "query",
          "free": "free"}


def mg_kind(c):
    if "op" in c:
        return MG_OPS.get(c["op"])
    api = c["api"]
    tail = api[4:] if api.startswith("cuda") else api[3:] if api.startswith("hip") else \
        api[2:] if api.startswith("cu") else ""
    if api in ("cuMemAllocManaged", "cudaMallocManaged", "hipMallocManaged"):
        return "alloc"
    if tail in ("MemAdvise", "MemAdvise_v2"):
        return "advise"
    if tail == "StreamAttachMemAsync":
        return "attach"
    if tail in ("MemPrefetchAsync", "MemPrefetchAsync_v2"):
        return "prefetch"
    if api in ("cuMemPrefetchBatchAsync", "cuMemDiscardAndPrefetchBatchAsync"):
        return "batch"
    if tail in ("MemRangeGetAttribute", "MemRangeGetAttributes"):
        return "query"
    if api in ("cuMemFree", "cuMemFreeAsync") or tail in ("FreeAsync", "Free"):
        return "free"
    return None


def managed(traces):
    allocs, ops, dests = [], [], {}
    failed = queries = 0
    dm = DevMap(traces)
    rank = {t.index: i for i, t in enumerate(order(traces))}
    for t in traces:
        if not t.ok:
            continue
        mset = {hexval(c["args"].get("ptr")) for c in calls(t) if mg_kind(c) == "alloc" and c["ret"] == 0}
        for c in calls(t):
            if nested(t, c):
                continue
            api, a, kind = c["api"], c["args"], mg_kind(c)

            def op(what, target):
                ops.append({"file": t.index, "seq": c["seq"], "at": (c["t_ns"], c["seq"]), "ptr": hexval(a.get("ptr")) or 0,
                            "bytes": arg_u64(a, "bytes") or 0, "api": api + c["variant"], "what": what,
                            "target": target, "ok": c["ret"] == 0})

            def dest(name, dev=None):
                if dev is not None:
                    name = dm.label(dm.key(t.index, c["vendor"], dev))
                    name = name if isinstance(name, str) else "dev%d" % name
                return dests.setdefault((t.host, c["vendor"], name), [0, 0, 0])

            if kind == "alloc":
                if c["ret"] != 0:
                    failed += 1
                    continue
                fl = a.get("flags_names")
                if not isinstance(fl, str):
                    fl = ("0x%x" % (a["flags"] & U64_MAX)) if is_int(a.get("flags")) else "?"
                dv = dev_of(c.get("cur_dev"))
                allocs.append({"file": t.index, "seq": c["seq"], "at": (c["t_ns"], c["seq"]), "vendor": c["vendor"],
                               "ptr": hexval(a.get("ptr")) or 0, "bytes": arg_u64(a, "bytes") or 0, "flags": fl,
                               "dev": dv, "device": dm.label(dm.key(t.index, c["vendor"], dv)), "free_seq": None})
            elif kind == "advise":
                name = a.get("advice_name")
                adv = a.get("advice") if is_int(a.get("advice")) else 0
                op(name if isinstance(name, str) else "advice %d" % adv, target_of(c, "dev"))
            elif kind == "attach":
                fl = a.get("flags_names")
                op(fl if isinstance(fl, str) else "?", "stream 0x%x" % (hexval(a.get("stream")) or 0))
            elif kind == "prefetch":
                op("prefetch", target_of(c, "dst_dev"))
                d = dest(target_of(c, "dst_dev"), target_dev(c, "dst_dev"))
                d[0] += 1
                if c["ret"] != 0:
                    d[1] += 1
                else:
                    d[2] = sat(d[2] + (arg_u64(a, "bytes") or 0))
            elif kind == "batch":
                ok = c["ret"] == 0
                rng = a.get("ranges") if isinstance(a.get("ranges"), list) else []
                total, count, listed = arg_u64(a, "bytes") or 0, arg_u64(a, "count") or 0, 0
                for r in rng:
                    rd = dev_of(r.get("dev"))
                    d = dest(dev_label(rd), rd if rd is not NONE and rd >= 0 else None)
                    b = arg_u64(r, "bytes") or 0
                    d[0] += 1
                    d[1] += not ok
                    d[2] = sat(d[2] + (b if ok else 0))
                    listed = sat(listed + b)
                if count > len(rng) or total > listed:
                    d = dest("? (unlisted ranges)")
                    more = count - len(rng) if count > len(rng) else 0
                    d[0] += more
                    d[1] += 0 if ok else more
                    d[2] = sat(d[2] + (total - listed if ok and total > listed else 0))
            elif kind == "query":
                queries += 1
            elif kind == "free":
                p = hexval(a.get("ptr"))
                if c["ret"] == 0 and p is not None and p in mset:
                    op("free", "")
    # process order: t_ns, then seq (threads take seq numbers in blocks)
    allocs.sort(key=lambda x: (rank[x["file"]], x["at"]))
    ops.sort(key=lambda x: (rank[x["file"]], x["at"]))
    idx = sorted(range(len(allocs)), key=lambda i: (allocs[i]["file"], allocs[i]["ptr"], allocs[i]["at"]))
    freed = {}
    owner = []
    for o in ops:
        cands = [i for i in idx if allocs[i]["file"] == o["file"] and allocs[i]["ptr"] <= o["ptr"]]
        best = None
        for i in list(reversed(cands))[:64]:
            a = allocs[i]
            off, size = o["ptr"] - a["ptr"], a["bytes"] or 1
            if a["at"] > o["at"] or off >= size or o["bytes"] > size - off:
                continue
            if i in freed and freed[i][0] < o["at"]:
                continue
            if best is None or a["at"] > allocs[best]["at"]:
                best = i
        owner.append(best)
        if best is not None and o["what"] == "free" and o["ptr"] == allocs[best]["ptr"] and best not in freed:
            freed[best] = (o["at"], o["seq"])
    for i, a in enumerate(allocs):
        a["free_seq"] = freed[i][1] if i in freed else None
    return {"allocs": allocs, "ops": ops, "owner": owner, "dests": dests, "failed": failed, "queries": queries}


# ---------------------------------------------------------------- comparing


class Checker:
    def __init__(self, name):
        self.name, self.errors = name, []

    def eq(self, what, got, want):
        if got != want:
            self.errors.append("%s: %s: analyzer %r, oracle %r" % (self.name, what, got, want))

    def true(self, what, cond):
        if not cond:
            self.errors.append("%s: %s" % (self.name, what))


def run(analyzer, args, expect_json=True):
    p = subprocess.run([analyzer] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    doc = None
    if expect_json:
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            doc = None
    return p.returncode, doc


def check_info(ck, traces, doc):
    want = info(traces)
    for k in ("clean", "partial", "no_footer", "unreadable"):
        ck.eq("info." + k, doc.get(k), want[k])
    got = doc.get("files", [])
    ck.eq("info: files", [f.get("file") for f in got], [f["file"] for f in want["files"]])
    for g, w in zip(got, want["files"]):
        for k, v in w.items():
            ck.eq("info %s: %s" % (w["file"], k), g.get(k), v)


def check_summary(ck, traces, doc):
    want = summary(traces)
    for k in ("processes", "partial", "calls_total", "errors_total", "violations_total", "bad_lines",
              "nested_total", "vendors", "per_process", "violations", "devices", "traces_without_devices"):
        ck.eq("summary." + k, doc.get(k), want[k])
    got = doc.get("calls", [])
    ck.eq("summary.calls: apis", [(c.get("vendor"), c.get("api")) for c in got],
          [(c["vendor"], c["api"]) for c in want["calls"]])
    for g, w in zip(got, want["calls"]):
        where = "summary.calls %s/%s" % (w["vendor"], w["api"])
        for k in ("layer", "count", "errors", "nested", "errors_by_return"):
            ck.eq("%s: %s" % (where, k), g.get(k), w[k])
        d, hn = w["durs"], g.get("host_ns", {})
        ck.eq(where + ": timed", g.get("timed"), len(d))
        if not d:
            ck.eq(where + ": host_ns (no call timed on its own)", hn, None)
            continue
        ck.eq(where + ": host_ns.total", hn.get("total"), out_u64(sum(d)))
        ck.eq(where + ": host_ns.max", hn.get("max"), d[-1])
        ck.true(where + ": host_ns.mean", abs(hn.get("mean", -1) - sum(d) / len(d)) <= 1e-6 * max(1, sum(d) / len(d)))
        for p in (50, 99):
            exact = rank_value(d, p)
            got_p = hn.get("p%d" % p)
            ck.true("%s: host_ns.p%d %r is not near %r" % (where, p, got_p, exact),
                    got_p is not None and (near(got_p, exact) or got_p in (d[0], d[-1]) and exact in (d[0], d[-1])))


def finding_key(f, traces):
    return (traces[f["file"]].path if isinstance(f["file"], int) else f["file"], f["rule"], f["severity"],
            f["call"], f["seq"], f["derived"])


def check_check(ck, traces, doc, rc, allow_partial):
    by_path = {t.path: t for t in traces}
    want = findings(traces)
    got = [(f["process"]["file"], f["rule"], f["severity"], f["call"], f["seq"], f["derived"])
           for f in doc.get("findings", [])]
    ck.eq("check: findings", sorted(got, key=repr), sorted((finding_key(f, traces) for f in want), key=repr))
    rank = {t.path: i for i, t in enumerate(order(traces))}
    keys = [(rank.get(g[0], -1), g[3] is None, g[3] or 0, g[4] or 0, g[1].encode()) for g in got]
    ck.true("check: findings are not ordered by process, call, seq, rule", keys == sorted(keys))
    failing = sum(1 for f in want if SEV.get(f["severity"], 0) >= SEV["error"])
    ck.eq("check.failing", doc.get("failing"), failing)
    probs = []
    for t in order(traces):
        for kind, allowed in problems(t):
            probs.append((t.path, kind))
    ck.eq("check: input problems", sorted((p["file"], p["problem"]) for p in doc.get("input_problems", [])),
          sorted(probs))
    bad = sum(1 for t in traces for kind, allowed in problems(t)
              if allowed is not None and not (allowed and allow_partial))
    ck.eq("check.input_ok", doc.get("input_ok"), bad == 0)
    ck.eq("check.passed", doc.get("passed"), bad == 0 and failing == 0)
    ck.eq("check: exit status", rc, 1 if failing else 3 if bad else 0)
    del by_path


def check_ipc(ck, traces, doc):
    want = ipc(traces)
    dm = DevMap(traces)
    path = {t.index: t.path for t in traces}
    names = {"export": "export", "open": "open", "close": "close", "free": "free", "ev_export": "export",
             "ev_open": "open", "ev_destroy": "destroy"}
    wh = [{"kind": "event" if h["event"] else "memory", "vendor": h["export"].vendor if h["export"] else
           h["recs"][0].vendor, "host": h["host"], "handle": h["handle"], "exported": h["export"] is not None,
           "freed": h["free"] is not None,
           "life": [(names[r.op], path[r.file], r.seq, dm.label(dm.key(r.file, r.vendor, r.dev))) for r in h["recs"]]}
          for h in want["handles"]]
    gh = [{"kind": h["kind"], "vendor": h["vendor"], "host": h["host"], "handle": h["handle"],
           "exported": h["exported"], "freed": h["freed"],
           "life": [(r["op"], r["process"]["file"], r["seq"], r.get("device")) for r in h["life"]]}
          for h in doc.get("handles", [])]
    ck.eq("ipc.handles", gh, wh)
    ck.eq("ipc.findings", [(f["rule"], f["severity"], f["process"]["file"], f["call"]) for f in doc.get("findings", [])],
          [(r, s, path[f], c) for r, s, f, c in want["findings"]])
    ck.eq("ipc.unmatched_closes", [(r["process"]["file"], r["seq"]) for r in doc.get("unmatched_closes", [])],
          [(path[r.file], r.seq) for r in want["stray"]])
    vm = {"vmm_create": "create", "vmm_export": "export", "vmm_import": "import", "vmm_map": "map",
          "vmm_access": "access", "vmm_unmap": "unmap", "vmm_release": "release", "vmm_retain": "retain",
          "pool_export": "export",
          "pool_import": "import", "pool_access": "access", "ptr_export": "export", "ptr_import": "import",
          "free": "free"}
    ck.eq("ipc.shared", [(s["key"], [(r["op"], r["process"]["file"], r["seq"]) for r in s["life"]])
                         for s in doc.get("shared", [])],
          [(s["key"], [(vm[r.op], path[r.file], r.seq) for r in s["recs"]]) for s in want["shared"]])


def check_matrix(ck, traces, doc):
    dm = DevMap(traces)
    cells = matrix(traces, dm)
    want = {}
    for (host, vendor, s, d), c in cells.items():
        want.setdefault((host, vendor), {})[(s, d)] = c

    def devkey(x):
        return (1, 0) if x is NONE else (0, x)

    def devjson(x):
        return dm.label(x)

    ck.eq("matrix.traces_without_devices", doc.get("traces_without_devices"), dm.unidentified)
    ck.eq("matrix: hosts", [(h.get("host"), h.get("vendor")) for h in doc.get("hosts", [])],
          sorted(want, key=lambda k: (k[0].encode(), k[1].encode())))
    for h in doc.get("hosts", []):
        w = want.get((h.get("host"), h.get("vendor")), {})
        devs = sorted({x for k in w for x in k}, key=devkey)
        ck.eq("matrix %s/%s: devices" % (h["host"], h["vendor"]), h.get("devices"), [devjson(x) for x in devs])
        ck.eq("matrix %s/%s: identities" % (h["host"], h["vendor"]), h.get("identities"),
              dm.identities(traces, h["host"], h["vendor"]))
        pairs = sorted(w, key=lambda k: (devkey(k[0]), devkey(k[1])))
        ck.eq("matrix %s/%s: pairs" % (h["host"], h["vendor"]), [(p.get("src"), p.get("dst")) for p in h["pairs"]],
              [(devjson(s), devjson(d)) for s, d in pairs])
        for p, (s, d) in zip(h["pairs"], pairs):
            c = w[(s, d)]
            where = "matrix %s/%s %s->%s" % (h["host"], h["vendor"], s, d)
            judged = s is not NONE and d is not NONE and s >= 0 and d >= 0 and s != d
            exp = {"copies": c["copies"], "failed": c["failed"], "bytes": out_u64(c["bytes"]),
                   "host_ns": out_u64(c["host_ns"]), "gpu_copies": c["gpu_copies"],
                   "gpu_bytes": out_u64(c["gpu_bytes"]), "gpu_ns": out_u64(c["gpu_ns"]),
                   "no_peer_copies": c["no_peer"] if judged else None,
                   "no_peer_bytes": out_u64(c["no_peer_bytes"]) if judged else None,
                   "implicit_copies": c["implicit"], "implicit_bytes": out_u64(c["implicit_bytes"]),
                   "batch_copies": c["batch"], "peer_enables": c["enables"],
                   "peer_enable_failures": c["enable_failed"], "peer_disables": c["disables"],
                   "access_grants": c["grants"], "peer_on_at_end": c["on_at_end"]}
            exp["link"] = dm.link(s, d)
            for k, v in exp.items():
                ck.eq("%s: %s" % (where, k), p.get(k), v)
            for k, b, n in (("host_gbps", c["bytes"], c["host_ns"]), ("gpu_gbps", c["gpu_bytes"], c["gpu_ns"])):
                g = p.get(k)
                if n == 0:
                    ck.eq("%s: %s" % (where, k), g, None)
                else:
                    ck.true("%s: %s %r, oracle %r" % (where, k, g, b / n),
                            g is not None and abs(g - b / n) <= 1e-9 * max(1.0, b / n))


def check_managed(ck, traces, doc):
    w = managed(traces)
    path = {t.index: t.path for t in traces}

    def opj(o):
        return (path[o["file"]], o["seq"], o["api"], o["ptr"], out_u64(o["bytes"]), o["what"], o["target"])

    def gopj(o):
        return (o["process"]["file"], o["seq"], o["api"], hexval(o["ptr"]), o["bytes"], o["what"], o["target"])

    wa = [(path[a["file"]], a["seq"], a["vendor"], a["ptr"], out_u64(a["bytes"]), a["flags"], a["dev"],
           a["device"], a["free_seq"], [opj(o) for o, ow in zip(w["ops"], w["owner"]) if ow == i])
          for i, a in enumerate(w["allocs"])]
    ga = [(a["process"]["file"], a["seq"], a["vendor"], hexval(a["ptr"]), a["bytes"], a["flags"], a["dev"],
           a.get("device"), a["free_seq"], [gopj(o) for o in a["history"]]) for a in doc.get("allocations", [])]
    ck.eq("managed.allocations", ga, wa)
    ck.eq("managed.other_ranges", [gopj(o) for o in doc.get("other_ranges", [])],
          [opj(o) for o, ow in zip(w["ops"], w["owner"]) if ow is None])
    ck.eq("managed.prefetch", [(d["host"], d["vendor"], d["destination"], d["prefetches"], d["failed"], d["bytes"])
                               for d in doc.get("prefetch", [])],
          [(h, v, n, c[0], c[1], out_u64(c[2])) for (h, v, n), c in
           sorted(w["dests"].items(), key=lambda kv: tuple(x.encode() for x in kv[0]))])
    ck.eq("managed.failed_allocations", doc.get("failed_allocations"), w["failed"])
    ck.eq("managed.range_queries", doc.get("range_queries"), w["queries"])


def check_timeline(ck, traces, doc, tl):
    org = origins(traces)
    pids, seen = {}, set()
    for t in order(traces):
        if not t.ok:
            continue
        pids[t.index] = 1000000000 + t.index if t.pid in seen else t.pid
        seen.add(t.pid)
    want_x, want_i, want_threads = [], [], 0
    for t in traces:
        if not t.ok:
            continue
        o0, p = org[t.index], pids[t.index]
        lo, _ = span(t)
        tids = set()
        placed = set()
        byseq = {}
        for c in calls(t):
            byseq.setdefault(c["seq"], c)
        for ty, o in t.events:
            if ty == "call":
                tids.add(o["tid"])
                want_x.append((p, o["tid"], o["api"] + o["variant"], max(0, o["t_ns"] - o0), o["dur_ns"], o["seq"]))
            elif ty == "violation":
                if has_time(o):
                    want_i.append((p, o["tid"], o["rule"], max(0, o["t_ns"] - o0), o.get("call")))
                elif o.get("call") in byseq:
                    c = byseq[o["call"]]
                    want_i.append((p, c["tid"], o["rule"], max(0, c["t_ns"] + c["dur_ns"] - o0), o.get("call")))
                else:
                    at = lo if lo is not None else o0
                    want_i.append((p, t.pid, o["rule"], max(0, at - o0), o.get("call")))
        want_threads += len(tids)
        del placed

    def ns(us):
        return int(round(us * 1000))

    want_um = sum(1 for t in traces if t.ok for ty, _ in t.events if ty == "um")
    got_x, got_i, got_um = [], [], 0
    for e in tl.get("traceEvents", []):
        if e.get("cat") == "um":  # unified-memory tracks: counted, not calls
            got_um += 1
        elif e.get("ph") == "X":
            got_x.append((e["pid"], e["tid"], e["name"], ns(e["ts"]), ns(e["dur"]), e["args"]["seq"]))
        elif e.get("ph") == "i":
            got_i.append((e["pid"], e["tid"], e["name"], ns(e["ts"]), e["args"].get("call")))
    ck.eq("timeline: calls", sorted(got_x), sorted(want_x))
    ck.eq("timeline: violations", sorted(got_i, key=repr), sorted(want_i, key=repr))
    ck.eq("timeline --json: calls", doc.get("calls"), len(want_x))
    ck.eq("timeline --json: violations", doc.get("violations"), len(want_i))
    ck.eq("timeline --json: threads", doc.get("threads"), want_threads)
    ck.eq("timeline --json: processes", doc.get("processes"), sum(1 for t in traces if t.ok))
    ck.eq("timeline: um events", got_um, want_um)
    ck.eq("timeline --json: um events", doc.get("um_events", 0), want_um)


def check_set(analyzer, d):
    traces = find([d])
    ck = Checker(d)
    if not traces:
        return ck
    _, doc = run(analyzer, ["info", "--json", d])
    check_info(ck, traces, doc or {})
    _, doc = run(analyzer, ["summary", "--json", d])
    check_summary(ck, traces, doc or {})
    for allow in (False, True):
        rc, doc = run(analyzer, ["check", "--json", d] + (["--allow-partial"] if allow else []))
        check_check(ck, traces, doc or {}, rc, allow)
    _, doc = run(analyzer, ["ipc", "--json", d])
    check_ipc(ck, traces, doc or {})
    _, doc = run(analyzer, ["matrix", "--json", d])
    check_matrix(ck, traces, doc or {})
    _, doc = run(analyzer, ["managed", "--json", d])
    check_managed(ck, traces, doc or {})
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "timeline.json")
        _, doc = run(analyzer, ["timeline", "--json", "-o", out, d])
        try:
            with open(out) as f:
                tl = json.load(f)
        except (OSError, ValueError) as e:
            ck.errors.append("%s: timeline: not written or not JSON: %s" % (d, e))
            tl = {}
        check_timeline(ck, traces, doc or {}, tl)
    return ck


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    analyzer, sets = argv[1], argv[2:]
    bad = 0
    for d in sets:
        ck = check_set(analyzer, d)
        for e in ck.errors[:40]:
            print("oracle: " + e, file=sys.stderr)
        if len(ck.errors) > 40:
            print("oracle: %s: %d more disagreements" % (d, len(ck.errors) - 40), file=sys.stderr)
        bad += bool(ck.errors)
        print("%s %s" % ("ok -" if not ck.errors else "not ok -", "oracle agrees on " + d if not ck.errors else
                         "oracle disagrees on %s (%d)" % (d, len(ck.errors))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Check that the traces of a PyTorch or NCCL run show the paths those stacks
really use: implicit cross-device copies, the runtime API layer with
its driver calls nested under it, and VMM or legacy IPC between processes.

usage: paths_check.py CASE DIR [RANKS]
  CASE  torch        torch_peer.py: tensors moved between cuda:0 and cuda:1
        nccl-vmm     nccl_allreduce.py: NCCL's default cuMem (VMM) sharing
        nccl-legacy  nccl_allreduce.py --legacy-ipc: cuIpc* sharing
  DIR   the run's trace directory (every *.pw.jsonl under it is read)
  RANKS for the nccl cases: the job's number of ranks; then every rank (a
        process that shares memory) must both export and import, and where the
        traces carry ranks (a launcher set RANK), ranks 0..RANKS-1 must all be
        there

Prints what it found and one line "RESULT: PASS|FAIL ..."; exit status 0 when
every check passed, 1 otherwise, 2 on bad usage.  Reads the raw traces, so it
does not depend on the analyzer's output format.  Only the standard library.
"""

import collections
import json
import os
import sys

MIB = 1 << 20


def load(d):
    files = []
    for root, _, names in os.walk(d):
        for n in sorted(names):
            if n.endswith(".pw.jsonl") or n.endswith(".pw.jsonl.partial"):
                files.append(os.path.join(root, n))
    procs = []
    for p in files:
        evs = []
        with open(p) as f:
            for i, line in enumerate(f, 1):
                try:
                    evs.append(json.loads(line))
                except ValueError as e:
                    raise SystemExit("paths_check: %s:%d: not JSON: %s" % (p, i, e))
        procs.append((p, evs))
    return procs


class Checks:
    def __init__(self):
        self.fail = 0
        self.n = 0

    def check(self, ok, what):
        self.n += 1
        print("%s %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            self.fail += 1


def calls(evs):
    return [e for e in evs if e.get("type") == "call"]


def violations(procs):
    out = []
    for p, evs in procs:
        out += [(os.path.basename(p), e) for e in evs if e.get("type") == "violation"]
    return out


def nesting(c, procs):
    """Runtime-layer calls, and driver calls whose parent is one of them."""
    rt = nested = orphans = 0
    for p, evs in procs:
        by_seq = {e["seq"]: e for e in calls(evs)}
        for e in by_seq.values():
            if e.get("layer") == "runtime":
                rt += 1
            if "parent" in e:
                par = by_seq.get(e["parent"])
                if par is None:
                    orphans += 1
                elif par.get("layer") == "runtime" and e.get("layer") != "runtime":
                    nested += 1
    print("runtime-layer calls: %d, driver calls nested under them: %d, parents missing: %d"
          % (rt, nested, orphans))
    return rt, nested, orphans


def torch_case(procs, ck):
    pair = collections.Counter()
    n_impl = 0
    for p, evs in procs:
        for e in calls(evs):
            if e.get("family") != "copy" or e.get("ret") != 0 or "parent" in e:
                continue
            a = e.get("args", {})
            s, d = a.get("src_dev"), a.get("dst_dev")
            if isinstance(s, int) and isinstance(d, int) and s != d:
                pair[(s, d)] += a.get("bytes", 0)
                n_impl += bool(e.get("implicit"))
    for (s, d), b in sorted(pair.items()):
        print("cross-device copies %d -> %d: %d bytes" % (s, d, b))
    # a.to(cuda:1) and d.copy_(a): 2 x 8 MiB from 0 to 1; b.to(cuda:0): 8 MiB back.
    ck.check(pair[(0, 1)] >= 16 * MIB, "cuda:0 -> cuda:1 carries at least 16 MiB (a.to, copy_)")
    ck.check(pair[(1, 0)] >= 8 * MIB, "cuda:1 -> cuda:0 carries at least 8 MiB (b.to)")
    ck.check(n_impl > 0, "the tensor moves are recorded as implicit copies (%d)" % n_impl)
    rt, nested, orphans = nesting(procs, procs)
    ck.check(rt > 0, "PyTorch's runtime API calls are recorded at the runtime layer")
    ck.check(nested > 0, "the driver calls they make are nested under them (parent)")
    ck.check(orphans == 0, "every parent is a recorded call")
    apis = collections.Counter(e["api"] for _, evs in procs for e in calls(evs))
    for api in ("cudaDeviceCanAccessPeer", "cudaIpcGetMemHandle", "cudaIpcOpenMemHandle"):
        ck.check(apis[api] > 0, "%s appears with its runtime name (%d)" % (api, apis[api]))


def vmm_chains(evs):
    """Per handle of one process: the VMM calls on it, in order.

    A handle is created (cuMemCreate) or imported (cuMemImportFromShareableHandle),
    mapped (cuMemMap), made accessible (cuMemSetAccess on the mapped address)
    and, on the exporting side, exported."""
    chains = collections.defaultdict(list)
    mapped = {}
    for e in calls(evs):
        if e.get("ret") != 0:
            continue
        a = e.get("args", {})
        api = e["api"]
        if api in ("cuMemCreate", "cuMemImportFromShareableHandle", "cuMemExportToShareableHandle"):
            chains[a.get("handle")].append(api)
        elif api == "cuMemMap":
            chains[a.get("handle")].append(api)
            mapped[a.get("ptr")] = a.get("handle")
        elif api == "cuMemSetAccess" and a.get("ptr") in mapped:
            chains[mapped[a.get("ptr")]].append(api)
    return chains


def complete(chain, first, last):
    """first, cuMemMap, cuMemSetAccess (and last, if given) in that order."""
    want = [first, "cuMemMap", "cuMemSetAccess"] + ([last] if last else [])
    i = 0
    for api in chain:
        if i < len(want) and api == want[i]:
            i += 1
    return i == len(want)


def rank_of(evs):
    for e in evs:
        if e.get("type") == "header":
            return e.get("rank")
    return None


def every_rank(procs, ck, ranks, exporters, importers, what):
    """Every one of `ranks` sharing processes exports and imports."""
    if not ranks:
        return
    sharing = exporters | importers
    ck.check(len(sharing) == ranks, "%d processes share memory, one per rank (%d)" % (ranks, len(sharing)))
    both = exporters & importers
    ck.check(len(both) == ranks, "every rank both exports and imports %s (%d of %d)" % (what, len(both), ranks))
    named = {rank_of(evs) for p, evs in procs if os.path.basename(p) in sharing}
    if named != {None}:
        ck.check(named == set(range(ranks)), "the sharing processes are ranks 0..%d (%s)"
                 % (ranks - 1, sorted(named, key=str)))


def vmm_case(procs, ck, ranks=None):
    exporters, importers = set(), set()
    n_exp = n_imp = 0
    unique_keys = collections.defaultdict(lambda: collections.defaultdict(set))
    for p, evs in procs:
        pid = os.path.basename(p)
        for h, chain in vmm_chains(evs).items():
            if complete(chain, "cuMemCreate", "cuMemExportToShareableHandle"):
                exporters.add(pid)
                n_exp += 1
            if complete(chain, "cuMemImportFromShareableHandle", None):
                importers.add(pid)
                n_imp += 1
        for e in calls(evs):
            a = e.get("args", {})
            if e.get("ret") == 0 and a.get("file_id") and a.get("file_id_unique", True) is not False:
                unique_keys[a["file_id"]][e["api"]].add(pid)
    print("VMM chains: create-map-access-export %d (in %d processes), import-map-access %d (in %d processes)"
          % (n_exp, len(exporters), n_imp, len(importers)))
    ck.check(n_exp > 0, "an exporter's chain: cuMemCreate, cuMemMap, cuMemSetAccess, cuMemExportToShareableHandle")
    ck.check(n_imp > 0, "an importer's chain: cuMemImportFromShareableHandle, cuMemMap, cuMemSetAccess")
    ck.check(bool(importers - exporters) or bool(exporters - importers) or len(exporters | importers) > 1,
             "exports and imports happen in different processes")
    every_rank(procs, ck, ranks, exporters, importers, "VMM allocations")
    # Where the fd identifies the allocation (the simulator's memfds), the
    # export and its import must carry the same file_id.  The NVIDIA driver's
    # exported fds all share one /dev/nvidiactl inode (file_id_unique false):
    # no key pairs them there (tests/gpu/vmm_probe.md).
    if unique_keys:
        crossed = [k for k, v in unique_keys.items()
                   if v.get("cuMemImportFromShareableHandle", set()) - v.get("cuMemExportToShareableHandle", set())]
        ck.check(len(crossed) > 0, "an export is imported by another process under the same file_id")
    else:
        print("(the driver's fds share one inode: exports and imports are not paired by file_id)")
    grants = 0
    for _, evs in procs:
        for e in calls(evs):
            if e["api"] == "cuMemSetAccess" and e.get("ret") == 0:
                a = e.get("args", {})
                grants += any(isinstance(x, dict) and x.get("dev") != a.get("ptr_dev")
                              for x in a.get("access", []))
    ck.check(grants > 0, "cuMemSetAccess grants a device other than the memory's own (%d)" % grants)


def legacy_case(procs, ck, ranks=None):
    exp, opened = {}, collections.defaultdict(set)
    for p, evs in procs:
        pid = os.path.basename(p)
        for e in calls(evs):
            if e.get("ret") != 0:
                continue
            h = e.get("args", {}).get("handle")
            if e["api"] in ("cuIpcGetMemHandle", "cudaIpcGetMemHandle") and h:
                exp[h] = pid
            elif e["api"] in ("cuIpcOpenMemHandle", "cudaIpcOpenMemHandle") and h:
                opened[h].add(pid)
    crossed = [h for h in exp if opened[h] - {exp[h]}]
    print("legacy IPC handles exported: %d, opened by another process: %d" % (len(exp), len(crossed)))
    ck.check(len(crossed) > 0, "a handle exported by one rank is opened by another")
    every_rank(procs, ck, ranks, set(exp.values()), {q for h in crossed for q in opened[h] - {exp[h]}},
               "IPC handles")


def main(argv):
    if len(argv) not in (2, 3) or argv[0] not in ("torch", "nccl-vmm", "nccl-legacy") or \
            (len(argv) == 3 and (argv[0] == "torch" or not argv[2].isdigit() or int(argv[2]) < 2)):
        print(__doc__.strip().splitlines()[4], file=sys.stderr)
        return 2
    ranks = int(argv[2]) if len(argv) == 3 else None
    procs = load(argv[1])
    ck = Checks()
    ck.check(len(procs) > 0, "traces found under %s (%d files)" % (argv[1], len(procs)))
    partial = [p for p, _ in procs if p.endswith(".partial")]
    ck.check(not partial, "every process finished its trace (%d partial)" % len(partial))
    if argv[0] == "torch":
        torch_case(procs, ck)
    else:
        {"nccl-vmm": vmm_case, "nccl-legacy": legacy_case}[argv[0]](procs, ck, ranks)
    v = violations(procs)
    rules = collections.Counter(e.get("rule") for _, e in v)
    for r, n in sorted(rules.items()):
        print("finding %s: %d" % (r, n))
    for f, e in v[:20]:
        print("  %s: %s: %s" % (f, e.get("rule"), e.get("message")))
    print("RESULT: %s checks=%d failed=%d findings=%d" % ("PASS" if not ck.fail else "FAIL", ck.n, ck.fail, len(v)))
    return 1 if ck.fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

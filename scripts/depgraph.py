#!/usr/bin/env python3
"""The rooms of a program's sources, which file uses which, and the arrows
that run the wrong way.

    scripts/depgraph.py preload                     circles and upward arrows
    scripts/depgraph.py preload --objs build/obj/preload --edges
                                                    also every edge
    scripts/depgraph.py preload --objs build/obj/preload --check
                                                    exit 1 on any circle or
                                                    upward arrow
    scripts/depgraph.py --self-test                 the check fails where it
                                                    should

A file uses another when it includes it (an #include "room/x.h" resolved
against the source root) or calls a function the other defines (with
--objs: nm, U in A's object, T or W in B's).  A header is a file of its
own, the interface its source implements: including x.h uses the
interface, calling a function of x.c uses the implementation, and a
circle needs the calls (or headers that include each other) to close.
Data references (a descriptor table, the vendor list) are not uses: the
shared code reaches a vendor only through its descriptor, never by name,
and that is the point.

Two checks:
- no circle: no file reaches itself through uses (strongly connected
  components of more than one file);
- no arrow up: a file's room may use only the rooms ROOMS lists for it,
  below it.  A room's own files may use each other.

ROOMS is the map of the library (HACKING.md has it in words).
"""
import os
import re
import subprocess
import sys

# room -> the rooms below it that it may use (and itself).  Lowest first.
ROOMS = {
    "preload": {
        "core": [],
        "record": ["core"],
        "state": ["core", "record"],
        "rules": ["core", "record", "state"],
        "vendors": ["core", "record", "state", "rules"],
        "vendors/cuda": ["core", "record", "state", "rules", "vendors"],
        "vendors/hip": ["core", "record", "state", "rules", "vendors"],
        "vendors/acl": ["core", "record", "state", "rules", "vendors"],
        # the runtime layer calls the driver's look-ups, never the reverse
        "vendors/cudart": ["core", "record", "state", "rules", "vendors", "vendors/cuda"],
        "entry": ["core", "record", "state", "rules", "vendors", "vendors/cuda", "vendors/cudart",
                  "vendors/hip", "vendors/acl"],
    },
    # "" is the top: analyzers/main.c, the command table
    "analyzers": {
        "base": [],
        "read": ["base"],
        "model": ["base", "read"],
        "out": ["base", "read", "model"],
        "cmds": ["base", "read", "model", "out"],
        "": ["base", "read", "model", "out", "cmds"],
    },
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def node_of(rel):
    """The file as the graph knows it: its path under the source root."""
    return os.path.normpath(rel)


def room_of(node, rooms):
    d = os.path.dirname(node)
    return d if d in rooms else None


def sources(root):
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith((".c", ".h", ".S")):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def nm(path):
    res = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    funcs, undef = set(), set()
    for line in res.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            undef.add(p[1])
        elif len(p) == 3 and p[1] in "TW":
            funcs.add(p[2])
    return funcs, undef


def interposed(root):
    """The C library's functions the library defines in place of its own
    (the names exports.map lists one by one: close, dup2, execve, ...).
    A file that calls close calls the C library's; our definition only
    stands in for it, and is no use of the file that holds it."""
    path = os.path.join(root, "exports.map")
    if not os.path.exists(path):
        return set()
    text = re.sub(r"/\*.*?\*/", "", open(path, encoding="utf-8").read(), flags=re.S)
    m = re.search(r"global:(.*?)local:", text, re.S)
    return {w for w in re.split(r"[\s;]+", m.group(1) if m else "") if w and "*" not in w}


def graph(root, objdir):
    files = sources(root)
    nodes = {node_of(f) for f in files}
    edges = {n: {} for n in nodes}  # node -> {node: why}
    for f in files:
        a = node_of(f)
        text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            b = node_of(inc)
            if b in nodes and b != a:
                edges[a].setdefault(b, "includes " + inc)
    if objdir:
        defined, uses = {}, {}
        for d, _, objs in os.walk(objdir):
            for o in objs:
                if o.endswith(".o"):
                    base = os.path.relpath(os.path.join(d, o), objdir)[:-2]
                    n = node_of(base + (".S" if os.path.exists(os.path.join(root, base + ".S")) else ".c"))
                    if n not in nodes:
                        continue  # an object left from a file since moved or removed
                    funcs, undef = nm(os.path.join(d, o))
                    uses[n] = undef
                    for s in funcs:
                        defined.setdefault(s, n)
        libc = interposed(root)
        for n, undef in uses.items():
            for s in sorted(undef - libc):
                b = defined.get(s)
                if b and b != n and n in edges:
                    edges[n].setdefault(b, "calls " + s)
    return edges


def circles(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out, key=len, reverse=True)


def self_test():
    """The check fails on a circle and on an upward arrow, and passes a
    clean tree: a made-up library in a temporary directory."""
    import tempfile
    ok = True
    cases = {
        "clean": ({"core/a.c": '#include "core/a.h"', "core/a.h": "", "record/b.c": '#include "core/a.h"'}, 0),
        "up": ({"core/a.c": '#include "record/b.h"', "record/b.h": ""}, 1),
        "circle": ({"core/a.h": '#include "core/b.h"', "core/b.h": '#include "core/a.h"'}, 1),
    }
    for name, (files, want) in cases.items():
        with tempfile.TemporaryDirectory() as t:
            root = os.path.join(t, "preload")
            for f, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
                with open(os.path.join(root, f), "w") as fh:
                    fh.write(text + "\n")
            rc = subprocess.run([sys.executable, __file__, root, "--check"], capture_output=True).returncode
        if rc != want:
            print("depgraph self-test: %s tree: exit %d, expected %d" % (name, rc, want))
            ok = False
    print("depgraph self-test: %s" % ("a circle and an upward arrow fail, a clean tree passes" if ok else "FAILED"))
    return ok


def main():
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(0 if self_test() else 1)
    args, opts, objdir = [], set(), None
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a == "--objs" and argv:
            objdir = argv.pop(0)
        elif a.startswith("--"):
            opts.add(a)
        else:
            args.append(a)
    if len(args) != 1 or not os.path.isdir(args[0]):
        sys.exit(__doc__)
    root = args[0]
    rooms = ROOMS.get(os.path.basename(os.path.normpath(root)))
    if rooms is None:
        sys.exit("depgraph: no rooms known for %s (ROOMS in %s)" % (root, sys.argv[0]))
    g = graph(root, objdir)
    bad = 0
    for n in sorted(g):
        if room_of(n, rooms) is None and not n.endswith(".mk"):
            print("%s: in no room of %s (ROOMS in scripts/depgraph.py)" % (n, root))
            bad += 1
    if "--edges" in opts:
        for a in sorted(g):
            print(a, "->", " ".join(sorted(g[a])))
    for a in sorted(g):
        ra = room_of(a, rooms)
        for b, why in sorted(g[a].items()):
            rb = room_of(b, rooms)
            if ra is not None and rb is not None and rb != ra and rb not in rooms[ra]:
                print("arrow up: %s %s (%s): %s/ may not use %s/" % (a, why, b, ra or ".", rb or "."))
                bad += 1
    cs = circles(g)
    for c in cs:
        print("circle of %d files: %s" % (len(c), " ".join(c)))
        bad += 1
    nedges = sum(len(v) for v in g.values())
    print("%s: %d files in %d rooms, %d uses, %d circles, %d problems" %
          (root, len(g), len(rooms), nedges, len(cs), bad))
    if "--check" in opts and bad:
        sys.exit(1)


if __name__ == "__main__":
    main()

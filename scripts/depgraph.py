#!/usr/bin/env python3
"""Which files of libpeerwatch.so call which, and the circles among them.

    scripts/depgraph.py build/obj/preload            circles (cycles) of files
    scripts/depgraph.py build/obj/preload --edges    also every edge
    scripts/depgraph.py build/obj/preload --check    exit 1 if a circle holds
                                                      a vendor's file

File A calls file B when A's object file has an undefined symbol that B's
object defines as a function (nm: U in A, T in B).  Data references (the
vendor list, a descriptor table) are not calls: the shared code reaches a
vendor only through its descriptor, never by name, and that is the point.
A circle is a strongly connected component of more than one file: each of
its files reaches every other one by calls.

A vendor's files are those whose name starts with its prefix (cuda_,
cudart_, hip_, acl_); every other file is shared.  --check fails when a
circle holds a vendor's file: a vendor's files call each other in one
direction (the hooks call the look-ups, the encoder and the translation
into ops, which call the resolver), and the shared files, never the
reverse; the runtime layer, cudart, may call the driver's, not the
reverse.  Circles among shared files alone are reported, not failed.
"""
import os
import subprocess
import sys

VENDORS = ("cudart_", "cuda_", "hip_", "acl_")


def vendor_of(name):
    for v in VENDORS:
        if name.startswith(v):
            return v[:-1]
    return None


def symbols(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    funcs, undef = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            undef.add(p[1])
        elif len(p) == 3 and p[1] in "TW":
            funcs.add(p[2])
    return funcs, undef


def graph(objdir):
    objs = sorted(f[:-2] for f in os.listdir(objdir) if f.endswith(".o"))
    defined, uses = {}, {}
    for o in objs:
        funcs, undef = symbols(os.path.join(objdir, o + ".o"))
        uses[o] = undef
        for s in funcs:
            defined.setdefault(s, o)
    return {o: sorted({defined[s] for s in uses[o] if s in defined and defined[s] != o}) for o in objs}


def circles(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(g[root]))]
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
                    work.append((w, iter(g[w])))
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


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    g = graph(args[0])
    if "--edges" in sys.argv:
        for a in sorted(g):
            print(a, "->", " ".join(g[a]))
    bad = 0
    cs = circles(g)
    for c in cs:
        wrong = any(vendor_of(f) for f in c)
        bad += wrong
        print("circle of %d files%s: %s" % (len(c), " (holds a vendor's file)" if wrong else "", " ".join(c)))
    print("%d files, %d circles, the largest of %d files" % (len(g), len(cs), len(cs[0]) if cs else 0))
    if "--check" in sys.argv and bad:
        sys.exit(1)


if __name__ == "__main__":
    main()

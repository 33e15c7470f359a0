#!/usr/bin/env python3
"""Peer bandwidth with and without peerwatch, and peerwatch's device timing
against the program's own.

usage: bw_compare.py PEER_BW_BINARY BUNDLE_DIR OUT_DIR [runs]

Runs peer_bw plain, under peerwatch (gpu_timing off) and under peerwatch
with gpu_timing=1, alternating, `runs` times each (default 3), keeps the best
(highest GB/s) figure per case, and prints per case: plain GB/s, traced GB/s
and their ratio, latency ratio, and the GB/s that the trace's gpu_time events
give for that case against the program's own figure from the same run.
"""
import collections, glob, json, os, subprocess, sys


def run(cmd, env=None):
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "bw":
            key = (int(f[1]), int(f[2]), int(f[3]), int(f[4]))
            res[key] = (float(f[6]), float(f[7]))  # us per copy, GB/s
    return res


def best(a, b):
    return {k: min(a.get(k, (1e30, 0)), b[k], key=lambda v: v[0]) for k in b}


def trace_bw(tdir):
    """(src, dst, peer, bytes) -> GB/s from gpu_time events, peer state replayed from the trace."""
    sums = collections.defaultdict(lambda: [0, 0])
    for path in glob.glob(tdir + "/*.pw.jsonl"):
        evs = [json.loads(l) for l in open(path)]
        calls = {e["seq"]: e for e in evs if e.get("type") == "call"}
        gt = {e["call"]: e["gpu_ns"] for e in evs if e.get("type") == "gpu_time"}
        peer = set()
        seen = set()  # the first copy of each case is the program's warm-up
        for seq in sorted(calls):
            e = calls[seq]
            a = e.get("args", {})
            if e["api"] == "cuCtxEnablePeerAccess" and e["ret"] in (0, 704):
                peer.add((e.get("cur_dev"), a.get("peer_ctx_dev")))
            elif e["api"] == "cuCtxDisablePeerAccess" and e["ret"] in (0, 705):
                peer.discard((e.get("cur_dev"), a.get("peer_ctx_dev")))
            elif e["api"] == "cuMemcpyPeerAsync" and seq in gt:
                s, d = a["src_dev"], a["dst_dev"]
                on = int((s, d) in peer or (d, s) in peer)
                k = (s, d, on, a["bytes"])
                if k not in seen:
                    seen.add(k)
                    continue
                sums[k][0] += a["bytes"]
                sums[k][1] += gt[seq]
    return {k: b / ns for k, (b, ns) in sums.items() if ns}


def main():
    prog, bundle, out = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    pw = os.path.join(bundle, "bin", "peerwatch")
    plain, traced, timed = {}, {}, {}
    gpu = {}
    for r in range(runs):
        plain = best(plain, run([prog]))
        traced = best(traced, run([pw, "-q", "--mode", "observe", "-o", f"{out}/bw-trace-{r}", "--", prog]))
        tdir = f"{out}/bw-gt-{r}"
        this = run([pw, "-q", "--mode", "observe", "--options", "gpu_timing=1", "-o", tdir, "--", prog])
        timed = best(timed, this)
        for k, v in trace_bw(tdir).items():  # the run's own figure against its trace's
            if k in this:
                gpu.setdefault(k, []).append((v, this[k][1]))
    print(f"{'src':>3} {'dst':>3} {'peer':>4} {'bytes':>10} | {'plain GB/s':>10} {'traced':>8} {'ratio':>6} "
          f"{'lat ratio':>9} | {'gt=1 GB/s':>9} {'trace gpu':>9} {'dev/own':>7}")
    worst_bw, worst_lat, worst_dev = 1.0, 1.0, 0.0
    for k in sorted(plain):
        p_us, p_bw = plain[k]
        t_us, t_bw = traced[k]
        g = gpu.get(k, [])
        ratio = t_bw / p_bw
        lat = t_us / p_us
        dev = sum(a / b for a, b in g) / len(g) if g else float("nan")
        if k[3] >= 1 << 20:
            worst_bw = min(worst_bw, ratio)
        if k[3] == 4096:
            worst_lat = max(worst_lat, lat)
        if g and k[3] >= 1 << 20:
            worst_dev = max(worst_dev, abs(dev - 1))
        print(f"{k[0]:>3} {k[1]:>3} {k[2]:>4} {k[3]:>10} | {p_bw:>10.2f} {t_bw:>8.2f} {ratio:>6.3f} {lat:>9.3f} | "
              f"{timed[k][1]:>9.2f} {(g[-1][0] if g else float('nan')):>9.2f} {dev:>7.3f}")
    print(f"worst traced/plain bandwidth (>= 1 MiB): {worst_bw:.4f}; worst traced/plain latency (4 KiB): "
          f"{worst_lat:.4f}; worst |device-measured/own - 1| (>= 1 MiB): {worst_dev:.4f}")


if __name__ == "__main__":
    main()

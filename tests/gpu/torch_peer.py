#!/usr/bin/env python3
"""Peer access, a cross-device copy and CUDA IPC through PyTorch, on two GPUs.

What reaches the driver (PyTorch's libcudart resolves it through
cuGetProcAddress): cudaDeviceCanAccessPeer (cuDeviceCanAccessPeer) for the
explicit queries and again when the copy decides whether to enable peer access,
cudaDeviceEnablePeerAccess (cuCtxEnablePeerAccess) for the copy, and for the
tensor handed to a child process cudaIpcGetMemHandle / cudaIpcGetEventHandle
here and cudaIpcOpenMemHandle / cudaIpcOpenEventHandle / cudaIpcCloseMemHandle
in the child.

stdout is deterministic; exit 0 on success, 1 on a failed check, 77 when fewer
than two GPUs are visible (or torch has no CUDA).
"""

import queue
import sys

N = 1 << 20  # elements; int64, so 8 MiB per tensor
SKIP = 77


def fail(msg):
    sys.stdout.flush()
    print("torch_peer: FAIL: %s" % msg, file=sys.stderr)
    sys.exit(1)


def expected_after_child(base):
    """What the child leaves in the shared tensor: 3 * x + 7."""
    return base * 3 + 7


def child(q_in, q_out):
    """Receives a CUDA tensor through CUDA IPC, checks and modifies it in place."""
    import torch

    try:
        t = q_in.get()
        n = t.numel()
        want = torch.arange(n, dtype=torch.int64, device=t.device) * 5 + 1
        if not torch.equal(t, want):
            q_out.put(("FAIL", "the child saw other data than the parent sent"))
            return
        t.mul_(3).add_(7)
        torch.cuda.synchronize(t.device)
        checksum = int(t.sum().item())
        device = str(t.device)
        del t, want
        torch.cuda.synchronize()
        q_out.put(("OK", device, checksum))
    except Exception as e:  # reported by the parent, which owns stdout
        q_out.put(("FAIL", "%s: %s" % (type(e).__name__, e)))


def main():
    import torch
    import torch.multiprocessing as mp

    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        print("SKIP: need 2 GPUs (found %d)" % (torch.cuda.device_count() if torch.cuda.is_available() else 0))
        return SKIP

    # Explicit peer queries, both ways and the degenerate case.
    p01 = torch.cuda.can_device_access_peer(0, 1)
    p10 = torch.cuda.can_device_access_peer(1, 0)
    print("can_device_access_peer 0->1=%s 1->0=%s" % (p01, p10))

    # cuda:0 -> cuda:1 -> cuda:0, values checked on the device and on the host.
    a = torch.arange(N, dtype=torch.int64, device="cuda:0") * 2 + 1
    b = a.to("cuda:1")
    b.add_(10)
    c = b.to("cuda:0")
    torch.cuda.synchronize(0)
    torch.cuda.synchronize(1)
    if not torch.equal(c, a + 10):
        fail("cuda:0 -> cuda:1 -> cuda:0 round trip changed the data")
    # Same through copy_ into preallocated tensors (the peer-copy path proper).
    d = torch.empty(N, dtype=torch.int64, device="cuda:1")
    d.copy_(a, non_blocking=True)
    torch.cuda.synchronize(1)
    if not torch.equal(d.cpu(), a.cpu()):
        fail("copy_ cuda:0 -> cuda:1 changed the data")
    total = int(c.sum().item())
    if total != N * N + 10 * N:  # sum(2i+1) = N^2, plus 10 per element
        fail("round-trip sum %d, expected %d" % (total, N * N + 10 * N))
    print("copy cuda:0 -> cuda:1 -> cuda:0: OK elements=%d sum=%d" % (N, total))
    del a, b, c, d

    # A tensor on cuda:1 shared with a spawned child through CUDA IPC.
    ctx = mp.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    shared = torch.arange(N, dtype=torch.int64, device="cuda:1") * 5 + 1
    torch.cuda.synchronize(1)
    proc = ctx.Process(target=child, args=(q_in, q_out))
    proc.start()
    q_in.put(shared)
    try:
        reply = q_out.get(timeout=120)
    except queue.Empty:
        proc.kill()
        fail("no answer from the child within 120 s (exit status %s)" % proc.exitcode)
    proc.join(timeout=60)
    if proc.is_alive():
        proc.kill()
        fail("the child did not exit")
    if reply[0] != "OK":
        fail("child: %s" % reply[1])
    if proc.exitcode != 0:
        fail("the child exited with status %s" % proc.exitcode)
    want = expected_after_child(torch.arange(N, dtype=torch.int64, device="cuda:1") * 5 + 1)
    torch.cuda.synchronize(1)
    if not torch.equal(shared, want):
        fail("the parent does not see the child's write")
    checksum = int(shared.sum().item())
    if checksum != reply[2]:
        fail("child checksum %d, parent checksum %d" % (reply[2], checksum))
    print("ipc: child on %s modified the shared tensor: OK sum=%d" % (reply[1], checksum))
    del shared, want
    print("torch_peer: ALL OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""An NCCL all_reduce through torch.distributed, one GPU per process.

usage: nccl_allreduce.py [--legacy-ipc] [--world N|all]
       torchrun --standalone --nproc-per-node N nccl_allreduce.py [--legacy-ipc]

Spawns N ranks (default 2; --world all: one per visible GPU) with
torch.multiprocessing (MASTER_ADDR=127.0.0.1, a free port) or, started by
torchrun (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set), is
one rank itself, on GPU LOCAL_RANK, as production jobs are launched (the
ranks' traces then carry their rank).  Each rank all-reduces (sum)
a tensor of 2^20 float32 on each, and checks every element on every rank;
rank 0 prints the result.  NCCL reaches the driver through its own statically
linked cudart: peer queries (cudaDeviceCanAccessPeer) and, for the buffers it
shares between the processes, either the virtual-memory API
(cuMemCreate/cuMemExportToShareableHandle..., NCCL's default where the driver
supports it) or, with --legacy-ipc (NCCL_CUMEM_ENABLE=0),
cudaIpcGetMemHandle / cudaIpcOpenMemHandle.

stdout is deterministic; exit 0 on success, 1 on a failed check, 77 when fewer
than two GPUs are visible or NCCL is not available.
"""

import datetime
import os
import socket
import sys

N = 1 << 20
WORLD = 2
SKIP = 77


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_values(torch, rank, device):
    """What rank `rank` contributes: (i mod 1000) + 1000 * rank, exact in float32."""
    i = torch.arange(N, dtype=torch.int64, device=device)
    return ((i % 1000) + 1000 * rank).to(torch.float32)


def worker(rank, port, world, local=None):
    import torch
    import torch.distributed as dist

    if port is not None:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(port)
    device = torch.device("cuda", rank if local is None else local)
    torch.cuda.set_device(device)
    dist.init_process_group(
        "nccl",
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=90),
        device_id=device,
    )
    try:
        x = rank_values(torch, rank, device)
        dist.all_reduce(x, op=dist.ReduceOp.SUM)
        torch.cuda.synchronize(device)
        want = sum(rank_values(torch, r, device) for r in range(world))
        if not torch.equal(x, want):
            bad = int((x != want).nonzero()[0].item())
            raise RuntimeError(
                "rank %d: element %d is %r, expected %r" % (rank, bad, x[bad].item(), want[bad].item())
            )
        total = int(x.to(torch.float64).sum().item())
        # Every rank checked its copy; a barrier-like second collective makes
        # sure neither rank reports before the other has checked.
        flag = torch.ones(1, device=device)
        dist.all_reduce(flag)
        torch.cuda.synchronize(device)
        if int(flag.item()) != world:
            raise RuntimeError("rank %d: the second all_reduce gave %r" % (rank, flag.item()))
        if rank == 0:
            print("all_reduce sum over %d ranks of %d float32: OK sum=%d" % (world, N, total))
            print("x[0]=%d x[999]=%d x[%d]=%d" % (x[0].item(), x[999].item(), N - 1, x[N - 1].item()))
            sys.stdout.flush()
    finally:
        dist.destroy_process_group()


USAGE = "usage: nccl_allreduce.py [--legacy-ipc] [--world N|all]"


def parse(argv):
    """(legacy_ipc, world) where world is an int, "all", or None on bad usage."""
    legacy, world = False, WORLD
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--legacy-ipc":
            legacy = True
        elif a == "--world" and i + 1 < len(argv):
            i += 1
            w = argv[i]
            if w == "all":
                world = w
            elif w.isdigit() and int(w) >= 2:
                world = int(w)
            else:
                print("nccl_allreduce: --world wants a number of ranks >= 2 or 'all', not %r" % w,
                      file=sys.stderr)
                return False, None
        else:
            return False, None
        i += 1
    return legacy, world


def launched():
    """(rank, local_rank, world) when a launcher such as torchrun started this
    process as one rank, else None."""
    names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    if not all(os.environ.get(n) for n in names):
        return None
    try:
        return int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    except ValueError:
        return None


def main(argv):
    legacy, world = parse(argv)
    if world is None:
        print(USAGE, file=sys.stderr)
        return 2
    one = launched()
    if one is not None:
        # One rank of a job the launcher started; the launcher set the
        # environment (NCCL_CUMEM_ENABLE too, for --legacy-ipc, must be set
        # before NCCL initialises: here, before the process group).
        if legacy:
            os.environ["NCCL_CUMEM_ENABLE"] = "0"
        for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                     ("NVSHMEM_DISABLE_NVLS", "1")):
            os.environ.setdefault(k, v)
        rank, local, world = one
        if rank == 0:
            print("nccl_allreduce: %d ranks, one GPU each (started by a launcher)" % world)
            sys.stdout.flush()
        try:
            worker(rank, None, world, local)
        except Exception as e:
            print("nccl_allreduce: rank %d: FAIL: %s" % (rank, e), file=sys.stderr)
            return 1
        if rank == 0:
            print("nccl_allreduce: ALL OK")
        return 0
    if legacy:
        os.environ["NCCL_CUMEM_ENABLE"] = "0"  # inherited by the ranks
    # Mandatory on the shared machines; the caller should have set them already.
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not dist.is_available() or not dist.is_nccl_available():
        print("SKIP: torch.distributed with NCCL is not available")
        return SKIP
    have = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if world == "all":
        world = max(have, 2)
    if have < world:
        print("SKIP: need %d GPUs" % world)
        return SKIP
    print("nccl_allreduce: %d ranks, one GPU each" % world)
    sys.stdout.flush()
    try:
        mp.spawn(worker, args=(free_port(), world), nprocs=world, join=True)
    except Exception as e:  # a rank failed: its traceback is on stderr already
        last = (str(e).strip().splitlines() or [type(e).__name__])[-1]
        print("nccl_allreduce: FAIL: %s" % last, file=sys.stderr)
        return 1
    print("nccl_allreduce: ALL OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""A stand-in for a training script of one rank, for the tests of README
"Using it with ...": through ctypes, as Python programs reach the driver,
it retains the primary context of each of two devices (the simulated libcuda) and
enables peer access from its own (LOCAL_RANK modulo 2) to the other twice:
the second time is the finding peer.enable.twice, one per rank.
"""
import ctypes
import os
import sys

cu = ctypes.CDLL("libcuda.so.1")
local = int(os.environ.get("LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK",
                                                        os.environ.get("SLURM_LOCALID", "0"))))


def ok(r, what):
    if r != 0:
        sys.exit(f"train.py: {what} returned {r}")


ok(cu.cuInit(0), "cuInit")
dev = [ctypes.c_int(), ctypes.c_int()]
ctx = [ctypes.c_void_p(), ctypes.c_void_p()]
for i in range(2):
    ok(cu.cuDeviceGet(ctypes.byref(dev[i]), i), "cuDeviceGet")
    ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx[i]), dev[i]), "cuDevicePrimaryCtxRetain")
mine, other = local % 2, 1 - local % 2
ok(cu.cuCtxSetCurrent(ctx[mine]), "cuCtxSetCurrent")
ok(cu.cuCtxEnablePeerAccess(ctx[other], 0), "cuCtxEnablePeerAccess")
cu.cuCtxEnablePeerAccess(ctx[other], 0)  # already enabled: the finding
print(f"rank {os.environ.get('RANK', '?')} done")

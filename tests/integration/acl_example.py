#!/usr/bin/env python3
"""The ACL document's own example (the ACL inter-device transfer document, "Inter-Device Data Transfer"),
written against pyACL's acl.rt.* calls, run here through ctypes on
libascendcl.so: the same calls in the same order, so that
tests/integration/rules_acl.sh can show that a Python program is traced the
same way as tests/integration/acl_doc.c's "example".

pyACL (acl.so) is a CPython extension linked against libascendcl.so (facts
file section C); ctypes loads the library with dlopen and finds each
function with dlsym, the path peerwatch's dlsym interposer covers.
"""
import ctypes
import sys

lib = ctypes.CDLL("libascendcl.so")

c_void_pp = ctypes.POINTER(ctypes.c_void_p)
sig = {
    "aclInit": (ctypes.c_char_p,),
    "aclFinalize": (),
    "aclrtSetDevice": (ctypes.c_int32,),
    "aclrtResetDevice": (ctypes.c_int32,),
    "aclrtDeviceCanAccessPeer": (ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, ctypes.c_int32),
    "aclrtDeviceEnablePeerAccess": (ctypes.c_int32, ctypes.c_uint32),
    "aclrtMalloc": (c_void_pp, ctypes.c_size_t, ctypes.c_int),
    "aclrtFree": (ctypes.c_void_p,),
    "aclrtMemcpy": (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int),
}
for name, args in sig.items():
    f = getattr(lib, name)
    f.argtypes = args
    f.restype = ctypes.c_int  # aclError


class _Rt:
    """acl.rt.*: pyACL returns (value, ret) for calls with an output."""

    @staticmethod
    def set_device(dev):
        return lib.aclrtSetDevice(dev)

    @staticmethod
    def reset_device(dev):
        return lib.aclrtResetDevice(dev)

    @staticmethod
    def device_can_access_peer(dev, peer):
        can = ctypes.c_int32(0)
        ret = lib.aclrtDeviceCanAccessPeer(ctypes.byref(can), dev, peer)
        return can.value, ret

    @staticmethod
    def device_enable_peer_access(peer, flags):
        return lib.aclrtDeviceEnablePeerAccess(peer, flags)

    @staticmethod
    def malloc(size, policy):
        ptr = ctypes.c_void_p()
        ret = lib.aclrtMalloc(ctypes.byref(ptr), size, policy)
        return ptr.value, ret

    @staticmethod
    def free(ptr):
        return lib.aclrtFree(ptr)

    @staticmethod
    def memcpy(dst, dest_max, src, count, kind):
        return lib.aclrtMemcpy(dst, dest_max, src, count, kind)


class acl:  # noqa: N801 - the module's name in the document
    rt = _Rt

    @staticmethod
    def init(config):
        return lib.aclInit(config.encode())

    @staticmethod
    def finalize():
        return lib.aclFinalize()


failures = 0


def check(ret):
    global failures
    if ret != 0:
        failures += 1


# ---- the document's snippet, line for line (with its return codes checked) ----
ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5  # Allocate P2P memory.
ACL_MEMCPY_DEVICE_TO_DEVICE = 3  # Data exchange within a device or between devices.

dev0, dev1 = 0, 1

ret = acl.init("")
check(ret)

ret = acl.rt.set_device(dev0)
check(ret)
# Query whether data exchange is supported between device 0 and device 1.
can_access_peer, ret = acl.rt.device_can_access_peer(dev0, dev1)
check(ret)
# Enable data exchange between device 0 and device 1.
ret = acl.rt.device_enable_peer_access(dev1, 0)
check(ret)
size = 1024
# Allocate P2P memory:
dev0_mem, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY_P2P)
check(ret)

ret = acl.rt.set_device(dev1)
check(ret)
# Enable data exchange between device 1 and device 0.
ret = acl.rt.device_enable_peer_access(dev0, 0)
check(ret)
dev1_mem, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY_P2P)
check(ret)

ret = acl.rt.memcpy(dev0_mem, size, dev1_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE)
check(ret)
ret = acl.rt.memcpy(dev1_mem, size, dev0_mem, size, ACL_MEMCPY_DEVICE_TO_DEVICE)
check(ret)

ret = acl.rt.free(dev1_mem)
check(ret)
ret = acl.rt.free(dev0_mem)
check(ret)

ret = acl.rt.reset_device(dev1)
check(ret)
ret = acl.rt.set_device(dev0)
check(ret)
ret = acl.rt.reset_device(dev0)
check(ret)

ret = acl.finalize()
check(ret)

if failures:
    print(f"acl_example.py: {failures} calls failed", file=sys.stderr)
sys.exit(1 if failures else 0)

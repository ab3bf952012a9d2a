"""A Python host kernel reads a host buffer (``reads=``) while the host thread, which never
waited for the kernel, overwrites the buffer with a synchronous copy. Synchronising the
stream before reusing the buffer orders them. Run with ``racy`` or ``fixed``.
expect: race read@A write@B
"""

import sys

import acl

N = 4096


def ok(ret, what):
    if ret != 0:
        sys.exit(f"{what} failed: {ret}")


def checksum(seen):
    seen.append(len(seen))


def main(racy):
    ok(acl.init(), "init")
    ok(acl.rt.set_device(0), "set_device")
    stream, ret = acl.rt.create_stream()
    ok(ret, "create_stream")
    staging, ret = acl.rt.malloc_host(N)
    ok(ret, "malloc_host")
    dev, ret = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret, "malloc")
    ok(acl.rt.memset(dev, N, 3, N), "memset")
    seen = []
    _, ret = acl.ext.launch_host_kernel(checksum, seen, stream, reads=[(staging, N)])  # @A
    ok(ret, "launch checksum")
    if not racy:
        ok(acl.rt.synchronize_stream(stream), "synchronize_stream")
    ok(acl.rt.memcpy(staging, N, dev, N, acl.ACL_MEMCPY_DEVICE_TO_HOST), "memcpy")  # @B
    ok(acl.rt.synchronize_stream(stream), "synchronize_stream")
    ok(acl.rt.free(dev), "free")
    ok(acl.rt.free_host(staging), "free_host")
    ok(acl.rt.destroy_stream(stream), "destroy_stream")
    ok(acl.rt.reset_device(0), "reset_device")
    ok(acl.finalize(), "finalize")


if __name__ == "__main__":
    if sys.argv[1:] not in (["racy"], ["fixed"]):
        sys.exit("usage: python_host_reuse.py racy|fixed")
    main(sys.argv[1] == "racy")

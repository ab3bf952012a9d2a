"""Host kernels launched from Python declare what they touch (``reads=`` / ``writes=``), so the
checker sees them. A kernel on one stream writes a buffer that a kernel on another stream
reads; only an event recorded after the writer, waited on by the reader's stream, orders them.
Run with ``racy`` or ``fixed``.
expect: race write@A read@B
"""

import sys

import acl

N = 4096


def ok(ret, what):
    if ret != 0:
        sys.exit(f"{what} failed: {ret}")


def fill(state):
    state["filled"] = True


def total(state):
    state["read"] = state.get("filled", False)


def main(racy):
    ok(acl.init(), "init")
    ok(acl.rt.set_device(0), "set_device")
    a, ret = acl.rt.create_stream()
    ok(ret, "create_stream")
    b, ret = acl.rt.create_stream()
    ok(ret, "create_stream")
    event, ret = acl.rt.create_event()
    ok(ret, "create_event")
    dev, ret = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    ok(ret, "malloc")
    state = {}
    _, ret = acl.ext.launch_host_kernel(fill, state, a, name="fill", writes=[(dev, N)])  # @A
    ok(ret, "launch fill")
    if not racy:
        ok(acl.rt.record_event(event, a), "record_event")
        ok(acl.rt.stream_wait_event(b, event), "stream_wait_event")
    _, ret = acl.ext.launch_host_kernel(total, state, b, name="total", reads=[(dev, N)])  # @B
    ok(ret, "launch total")
    ok(acl.rt.synchronize_device(), "synchronize_device")
    ok(acl.rt.free(dev), "free")
    ok(acl.rt.destroy_event(event), "destroy_event")
    ok(acl.rt.destroy_stream(a), "destroy_stream")
    ok(acl.rt.destroy_stream(b), "destroy_stream")
    ok(acl.rt.reset_device(0), "reset_device")
    ok(acl.finalize(), "finalize")


if __name__ == "__main__":
    if sys.argv[1:] not in (["racy"], ["fixed"]):
        sys.exit("usage: python_kernels.py racy|fixed")
    main(sys.argv[1] == "racy")

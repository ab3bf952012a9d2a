"""pyACL's conditional copy, copies through descriptors and memory for the task scheduler:
results, exact codes, stream ordering, and the argument errors of the module's rule."""

import struct
import threading

import pytest

import acl
from acl import rt

E = acl
N = 1024
INNER = acl.ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
H2D, D2H, H2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST, acl.ACL_MEMCPY_HOST_TO_HOST


def pattern(mul, add, n=N):
    return bytes((i * mul + add) % 256 for i in range(n))


def device_with(data):
    dev, ret = rt.malloc(len(data), acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    buf = bytearray(data)
    assert rt.memcpy(dev, len(data), acl.util.bytes_to_ptr(buf), len(data), H2D) == 0
    return dev


def wait_on(event, timeout):
    def kernel(_):
        event.wait(timeout)  # returns None: a non-zero int would fail the task

    return kernel


def hold(stream):
    """Holds `stream` at a host kernel until the returned event is set."""
    gate = threading.Event()
    _, ret = acl.ext.launch_host_kernel(wait_on(gate, 10), None, stream)
    assert ret == 0
    return gate


# ---- malloc_for_task_scheduler -------------------------------------------------------------


def test_malloc_for_task_scheduler_is_device_memory_that_reads_as_zero():
    ptr, ret = rt.malloc_for_task_scheduler(256, acl.ACL_MEM_MALLOC_HUGE_FIRST, {})
    assert ret == 0 and ptr != 0 and ptr % 64 == 0
    assert acl.util.ptr_to_bytes(ptr, 256) == bytes(256)
    data = bytearray(pattern(7, 0, 256))
    assert rt.memcpy(ptr, 256, acl.util.bytes_to_ptr(data), 256, H2D) == 0
    assert acl.util.ptr_to_bytes(ptr, 256) == bytes(data)
    attrs, ret = rt.pointer_get_attributes(ptr)
    assert ret == 0 and attrs["location"]["type"] == acl.ACL_MEM_LOCATION_TYPE_DEVICE
    assert rt.free(ptr) == 0
    assert rt.free(ptr) == E.ACL_ERROR_RT_MEMORY_FREE
    cfg = {"numAttrs": 2, "attrs": [
        {"attr": acl.ACL_RT_MEM_ATTR_MODULE_ID, "value": {"moduleId": 7}},
        {"attr": acl.ACL_RT_MEM_ATTR_DEVICE_ID, "value": {"deviceId": 0}},
    ]}
    ptr, ret = rt.malloc_for_task_scheduler(100, acl.ACL_MEM_MALLOC_NORMAL_ONLY, cfg)
    assert ret == 0 and ptr != 0
    assert rt.free(ptr) == 0


def test_malloc_for_task_scheduler_refuses_as_malloc_with_cfg_does():
    other = {"numAttrs": 1, "attrs": [{"attr": acl.ACL_RT_MEM_ATTR_DEVICE_ID,
                                       "value": {"deviceId": 3}}]}
    assert rt.malloc_for_task_scheduler(100, 0, other) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert "aclrtMallocForTaskScheduler" in acl.get_recent_err_msg()
    va = {"numAttrs": 1, "attrs": [{"attr": acl.ACL_RT_MEM_ATTR_VA_FLAG, "value": {"rsv": [1]}}]}
    assert rt.malloc_for_task_scheduler(100, 0, va) == (0, E.ACL_ERROR_INVALID_PARAM)
    rsv = {"numAttrs": 1, "attrs": [{"attr": acl.ACL_RT_MEM_ATTR_RSV, "value": {"rsv": []}}]}
    assert rt.malloc_for_task_scheduler(100, 0, rsv) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.malloc_for_task_scheduler(0, 0, {}) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert "size is 0" in acl.get_recent_err_msg()


@pytest.mark.parametrize("cfg, error, text", [
    ([], TypeError, "pyCfg is not dict!"),
    ({"numAttrs": 1}, TypeError, "the aclrtMallocAttrValue argument is not dict"),
    ({"numAttrs": 2, "attrs": [{"attr": 1, "value": {"moduleId": 1}}]}, KeyError,
     "'The numAttrs inputed does not match the expected numAttrs'"),
    ({"numAttrs": 1, "attrs": [{"attr": 1, "value": {}}]}, KeyError,
     "'No valid key found in aclrtMallocAttrValue'"),
])
def test_malloc_for_task_scheduler_dict_errors(cfg, error, text):
    with pytest.raises(error) as info:
        rt.malloc_for_task_scheduler(100, 0, cfg)
    assert str(info.value) == text


# ---- memcpy_async_with_condition -------------------------------------------------------------


def test_conditional_copy_with_pageable_memory_returns_once_the_copy_has_run(stream):
    dev, _ = rt.malloc(N, 0)
    src = bytearray(pattern(5, 2))
    # Work queued before the copy is slow; the call still returns only after the copy.
    _, ret = acl.ext.launch_host_kernel(wait_on(threading.Event(), 0.05), None, stream)
    assert ret == 0
    assert rt.memcpy_async_with_condition(dev, N, acl.util.bytes_to_ptr(src), N, H2D, stream) == 0
    assert rt.stream_query(stream) == (E.ACL_STREAM_STATUS_COMPLETE, 0)
    assert acl.util.ptr_to_bytes(dev, N) == bytes(src)
    back = bytearray(N)
    assert rt.memcpy_async_with_condition(acl.util.bytes_to_ptr(back), N, dev, N, D2H, stream) == 0
    assert back == src
    assert rt.free(dev) == 0


def test_conditional_copy_with_page_locked_memory_is_queued(stream):
    dev = device_with(bytes(N))
    host, ret = rt.malloc_host(N)
    assert ret == 0
    data = bytearray(pattern(3, 1))
    assert rt.memcpy(host, N, acl.util.bytes_to_ptr(data), N, H2H) == 0
    gate = hold(stream)
    try:
        assert rt.memcpy_async_with_condition(dev, N, host, N, H2D, stream) == 0
        assert rt.stream_query(stream) == (E.ACL_STREAM_STATUS_NOT_READY, 0)
        assert acl.util.ptr_to_bytes(dev, N) == bytes(N)
    finally:
        gate.set()
    assert rt.synchronize_stream(stream) == 0
    assert acl.util.ptr_to_bytes(dev, N) == bytes(data)
    assert rt.free(dev) == 0 and rt.free_host(host) == 0


def test_conditional_copy_checks(stream):
    dev = device_with(bytes(N))
    host, _ = rt.malloc_host(N)
    # A count of 0 succeeds before anything is checked.
    assert rt.memcpy_async_with_condition(0, 0, 0, 0, 99, 0x99) == 0
    assert rt.memcpy_async_with_condition(0, N, host, N, H2D, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy_async_with_condition(dev, N, 0, N, H2D, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy_async_with_condition(dev, N, host, N, 99, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy_async_with_condition(dev, N - 1, host, N, H2D, stream) \
        == E.ACL_ERROR_RT_PARAM_INVALID
    assert "aclrtMemcpyAsyncWithCondition" in acl.get_recent_err_msg()
    assert rt.memcpy_async_with_condition(dev, N, host, N, H2D, 0x99) \
        == E.ACL_ERROR_RT_INVALID_HANDLE
    # Checked pointers: a host address nobody handed out, a range past a known buffer.
    assert rt.memcpy_async_with_condition(dev, N, 0x12345678, N, H2D, stream) \
        == E.ACL_ERROR_INVALID_PARAM
    assert "aclrtMemcpyAsyncWithCondition" in acl.get_recent_err_msg()
    small = bytearray(16)
    assert rt.memcpy_async_with_condition(dev, N, acl.util.bytes_to_ptr(small), 17, H2D, stream) \
        == E.ACL_ERROR_INVALID_PARAM
    assert acl.util.ptr_to_bytes(dev, N) == bytes(N)
    assert rt.free(dev) == 0
    assert rt.memcpy_async_with_condition(dev, N, host, N, H2D, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.synchronize_stream(stream) == 0
    assert rt.free_host(host) == 0


# ---- copies through descriptors ------------------------------------------------------------


def test_get_memcpy_desc_size():
    assert rt.get_memcpy_desc_size(INNER) == (32, 0)
    assert rt.get_memcpy_desc_size(acl.ACL_MEMCPY_DEVICE_TO_DEVICE) \
        == (0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert rt.get_memcpy_desc_size(acl.ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) \
        == (0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert rt.get_memcpy_desc_size(8) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert "aclrtGetMemcpyDescSize" in acl.get_recent_err_msg()


def described(desc):
    raw = acl.util.ptr_to_bytes(desc, 32)
    (length,) = struct.unpack_from("=I", raw, 12)
    src, dst = struct.unpack_from("=QQ", raw, 16)
    return length, src, dst


def test_a_copy_through_a_descriptor_reads_it_when_it_runs(stream):
    first, second = pattern(13, 5), pattern(17, 9)
    src, other, dst = device_with(first), device_with(second), device_with(bytes(N))
    size, _ = rt.get_memcpy_desc_size(INNER)
    desc, _ = rt.malloc(size, 0)
    assert rt.set_memcpy_desc(desc, INNER, src, dst, N, 0) == (desc, 0)
    assert described(desc) == (N, src, dst)
    # Queued behind a gate; the descriptor rewritten before the task runs decides the copy.
    gate = hold(stream)
    try:
        assert rt.memcpy_async_with_desc(desc, INNER, stream) == 0
        assert rt.set_memcpy_desc(desc, INNER, other, dst, N // 2, 0) == (desc, 0)
        assert acl.util.ptr_to_bytes(dst, N) == bytes(N)
    finally:
        gate.set()
    assert rt.synchronize_stream(stream) == 0
    assert acl.util.ptr_to_bytes(dst, N) == second[:N // 2] + bytes(N // 2)
    assert rt.set_memcpy_desc(desc, INNER, src, dst, N, 0) == (desc, 0)
    assert rt.memcpy_async_with_desc(desc, INNER, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert acl.util.ptr_to_bytes(dst, N) == first
    for p in (src, other, dst, desc):
        assert rt.free(p) == 0


def test_set_memcpy_desc_checks_and_returns_desc_as_given():
    src, dst = device_with(bytes(N)), device_with(bytes(N))
    desc, _ = rt.malloc(32, 0)
    host, _ = rt.malloc_host(64)
    known = bytearray(64)
    known_ptr = acl.util.bytes_to_ptr(known)
    D2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE
    assert rt.set_memcpy_desc(desc, INNER, src, dst, N, 0) == (desc, 0)
    cases = [
        ((0, 99, 0, 0, 0, 0), E.ACL_ERROR_INVALID_PARAM),
        ((desc, 8, src, dst, N, 0), E.ACL_ERROR_INVALID_PARAM),
        ((desc, INNER, 0, dst, N, 0), E.ACL_ERROR_INVALID_PARAM),
        ((desc, INNER, src, 0, N, 0), E.ACL_ERROR_INVALID_PARAM),
        ((desc, INNER, src, dst, 0, 0), E.ACL_ERROR_INVALID_PARAM),
        ((desc, INNER, src, dst, N, 1), E.ACL_ERROR_INVALID_PARAM),
        ((desc, D2D, src, dst, N, 0), E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT),
        ((desc, INNER, src, dst, (4 << 30) + 1, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((desc + 32, INNER, src, dst, N, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((host, INNER, src, dst, N, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((known_ptr, INNER, src, dst, 64, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((desc, INNER, host, dst, 64, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((desc, INNER, known_ptr, dst, 64, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((desc, INNER, src, host, 64, 0), E.ACL_ERROR_RT_PARAM_INVALID),
        ((desc, INNER, src, dst, N + 1, 0), E.ACL_ERROR_INVALID_PARAM),
    ]
    for args, code in cases:
        assert rt.set_memcpy_desc(*args) == (args[0], code), args
        assert f"={code}]" in acl.get_recent_err_msg(), args
    assert rt.set_memcpy_desc(desc, INNER, src, dst, N, 1) == (desc, E.ACL_ERROR_INVALID_PARAM)
    assert "aclrtSetMemcpyDesc: config" in acl.get_recent_err_msg()
    # A failed set leaves the descriptor, and a host buffer passed as one, as they were.
    assert described(desc) == (N, src, dst)
    assert known == bytearray(64)
    for p in (src, dst, desc):
        assert rt.free(p) == 0
    # Freed memory, as for a copy.
    assert rt.set_memcpy_desc(desc, INNER, src, dst, N, 0) == (desc, E.ACL_ERROR_INVALID_PARAM)
    assert rt.free_host(host) == 0


def test_memcpy_async_with_desc_checks(stream):
    src, dst = device_with(pattern(1, 1)), device_with(bytes(N))
    desc, _ = rt.malloc(32, 0)
    host, _ = rt.malloc_host(64)
    assert rt.set_memcpy_desc(desc, INNER, src, dst, N, 0) == (desc, 0)
    assert rt.memcpy_async_with_desc(0, INNER, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy_async_with_desc(desc, 8, stream) == E.ACL_ERROR_INVALID_PARAM
    # No default stream here.
    assert rt.memcpy_async_with_desc(desc, INNER, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy_async_with_desc(desc, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, stream) \
        == E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert rt.memcpy_async_with_desc(host, INNER, stream) == E.ACL_ERROR_RT_PARAM_INVALID
    assert "aclrtMemcpyAsyncWithDesc" in acl.get_recent_err_msg()
    assert rt.memcpy_async_with_desc(desc, INNER, 0x99) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.synchronize_stream(stream) == 0
    assert acl.util.ptr_to_bytes(dst, N) == bytes(N)
    # A descriptor that no longer describes device memory when the task runs fails the task,
    # copying nothing.
    gate = hold(stream)
    try:
        assert rt.memcpy_async_with_desc(desc, INNER, stream) == 0
        rewritten = bytearray(struct.pack("=Q", host))
        assert rt.memcpy(desc + 16, 8, acl.util.bytes_to_ptr(rewritten), 8, H2D) == 0
    finally:
        gate.set()
    assert rt.synchronize_stream(stream) == E.ACL_ERROR_RT_PARAM_INVALID
    assert acl.util.ptr_to_bytes(dst, N) == bytes(N)
    for p in (src, dst, desc):
        assert rt.free(p) == 0
    assert rt.free_host(host) == 0


# ---- argument errors -----------------------------------------------------------------------


@pytest.mark.parametrize("call, args", [
    (rt.malloc_for_task_scheduler, (1, 0)),
    (rt.malloc_for_task_scheduler, ("1", 0, {})),
    (rt.memcpy_async_with_condition, (0, 0, 0, 0, 0)),
    (rt.memcpy_async_with_condition, (0, 0, 0, 0, 0, None)),
    (rt.get_memcpy_desc_size, ()),
    (rt.get_memcpy_desc_size, (1.5,)),
    (rt.set_memcpy_desc, (0, 0, 0, 0, 0)),
    (rt.set_memcpy_desc, (0, 0, 0, 0, 0, None)),
    (rt.memcpy_async_with_desc, (0, 0)),
    (rt.memcpy_async_with_desc, (0, "0", 0)),
])
def test_argument_errors(call, args):
    with pytest.raises(TypeError) as info:
        call(*args)
    assert str(info.value) == f"acl.rt.{call.__name__} args parse failed"

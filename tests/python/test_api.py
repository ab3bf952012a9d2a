"""Every acl.rt / acl.util function: success and its error returns."""

import threading
import time

import pytest

import acl
from acl import rt, util

E = acl  # constants


class Gate:
    """A host kernel that runs until the test opens the gate: work queued behind it stays
    queued however slow the machine is."""

    def __init__(self):
        self.opened = threading.Event()

    def kernel(self, _args):
        assert self.opened.wait(60), "the test never opened the gate"

    def open(self):
        self.opened.set()


# ---- devices and contexts ------------------------------------------------------------------


def test_devices():
    assert rt.get_device() == (0, 0)
    count, ret = rt.get_device_count()
    assert ret == 0 and count >= 1
    assert rt.set_device(count) == E.ACL_ERROR_RT_INVALID_DEVICEID
    assert rt.reset_device(count) == E.ACL_ERROR_RT_INVALID_DEVICEID
    assert rt.set_device(0) == 0
    assert rt.reset_device(0) == 0


def test_contexts():
    default_ctx, ret = rt.get_context()
    assert ret == 0 and default_ctx != 0
    ctx, ret = rt.create_context(0)
    assert ret == 0 and ctx not in (0, default_ctx)
    assert rt.get_context() == (ctx, 0)
    s, ret = rt.create_stream()
    assert ret == 0
    assert rt.set_context(default_ctx) == 0
    assert rt.get_context() == (default_ctx, 0)
    # A stream of another context cannot take work here.
    assert rt.record_event(rt.create_event()[0], s) == E.ACL_ERROR_RT_STREAM_CONTEXT
    assert rt.destroy_context(default_ctx) == E.ACL_ERROR_RT_CONTEXT_NULL
    assert rt.destroy_context(ctx) == 0
    assert rt.destroy_context(ctx) == E.ACL_ERROR_RT_CONTEXT_NULL
    assert rt.set_context(ctx) == E.ACL_ERROR_RT_CONTEXT_NULL
    assert rt.set_context(12345) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.create_context(-1) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.synchronize_stream(s) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_no_current_context_on_a_new_thread():
    out = []
    t = threading.Thread(
        target=lambda: out.extend([rt.create_stream(), rt.get_device(), rt.get_context()])
    )
    t.start()
    t.join()
    assert out == [(0, E.ACL_ERROR_RT_CONTEXT_NULL)] * 3


# ---- streams ---------------------------------------------------------------------------------


def test_stream_lifecycle():
    s, ret = rt.create_stream_with_config(3, E.ACL_STREAM_FAST_SYNC)
    assert ret == 0
    sid, ret = rt.stream_get_id(s)
    assert ret == 0 and sid >= 0
    assert rt.synchronize_stream(s) == 0
    assert rt.destroy_stream(s) == 0
    assert rt.destroy_stream(s) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.destroy_stream(0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.destroy_stream_force(0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.synchronize_stream(s) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.stream_query(s) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)


def test_destroy_stream_waits_and_force_returns_at_once():
    ran = []
    s, _ = rt.create_stream()
    acl.ext.launch_host_kernel(lambda a: (time.sleep(0.2), ran.append("a")), None, s)
    assert rt.destroy_stream(s) == 0
    assert ran == ["a"]
    # Forced: returns while the first kernel is held at a gate; the queued ones still run.
    gate = threading.Event()
    s, _ = rt.create_stream()
    acl.ext.launch_host_kernel(lambda a: gate.wait(10), None, s)
    for i in range(5):
        acl.ext.launch_host_kernel(lambda a, i=i: ran.append(i), None, s)
    assert rt.destroy_stream_force(s) == 0
    assert rt.destroy_stream_force(s) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert ran == ["a"]
    gate.set()
    assert rt.synchronize_device() == 0
    assert ran == ["a", 0, 1, 2, 3, 4]


def test_stream_query_and_sync_timeouts(stream):
    gate = Gate()
    acl.ext.launch_host_kernel(gate.kernel, None, stream)
    assert rt.stream_query(stream) == (E.ACL_STREAM_STATUS_NOT_READY, 0)
    assert rt.synchronize_stream_with_timeout(stream, 0) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.synchronize_stream_with_timeout(stream, 30) == E.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert rt.synchronize_device_with_timeout(30) == E.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert rt.synchronize_device_with_timeout(0) == E.ACL_ERROR_RT_PARAM_INVALID
    gate.open()
    assert rt.synchronize_stream_with_timeout(stream, -1) == 0
    assert rt.stream_query(stream) == (E.ACL_STREAM_STATUS_COMPLETE, 0)
    assert rt.synchronize_device_with_timeout(5000) == 0
    assert rt.synchronize_device() == 0


def test_failure_mode(stream):
    assert rt.set_stream_failure_mode(stream, E.ACL_CONTINUE_ON_FAILURE) == 0
    assert rt.set_stream_failure_mode(stream, E.ACL_STOP_ON_FAILURE) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.set_stream_failure_mode(424242, 0) == E.ACL_ERROR_RT_INVALID_HANDLE


# ---- events ----------------------------------------------------------------------------------


def test_event_creation_families():
    ev, ret = rt.create_event()
    assert ret == 0 and ev
    for flag in (E.ACL_EVENT_SYNC, E.ACL_EVENT_TIME_LINE | E.ACL_EVENT_SYNC, E.ACL_EVENT_DEVICE_USE_ONLY):
        e, ret = rt.create_event_with_flag(flag)
        assert ret == 0, flag
        assert rt.destroy_event(e) == 0
    assert rt.create_event_with_flag(0) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.create_event_with_flag(0x80) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    e, ret = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC | E.ACL_EVENT_TIME_LINE)
    assert ret == 0
    assert rt.create_event_ex_with_flag(0) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.create_event_ex_with_flag(E.ACL_EVENT_DEVICE_USE_ONLY) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.destroy_event(e) == 0
    assert rt.destroy_event(e) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.destroy_event(ev) == 0
    avail, ret = rt.get_event_avail_num()
    assert ret == 0 and 0 < avail <= 65536


def test_event_record_query_sync(stream):
    ev, _ = rt.create_event()
    eid, ret = rt.get_event_id(ev)
    assert ret == 0 and eid >= 0
    gate = Gate()
    acl.ext.launch_host_kernel(gate.kernel, None, stream)
    assert rt.record_event(ev, stream) == 0
    assert rt.query_event(ev) == (E.ACL_EVENT_STATUS_NOT_READY, 0)
    assert rt.query_event_status(ev) == (E.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert rt.synchronize_event_with_timeout(ev, 0) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.synchronize_event_with_timeout(ev, 20) == E.ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    gate.open()
    assert rt.synchronize_event(ev) == 0
    assert rt.query_event(ev) == (E.ACL_EVENT_STATUS_COMPLETE, 0)
    assert rt.query_event_status(ev) == (E.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert rt.query_event_wait_status(ev) == (E.ACL_EVENT_WAIT_STATUS_COMPLETE, 0)
    assert rt.synchronize_event_with_timeout(ev, 1000) == 0
    ts, ret = rt.event_get_timestamp(ev)
    assert ret == 0 and ts > 0
    assert rt.record_event(ev, 777) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.record_event(777, stream) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.destroy_event(ev) == 0
    assert rt.synchronize_event(ev) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.query_event(ev) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)


def test_never_recorded_event_rules():
    ev, _ = rt.create_event()
    assert rt.synchronize_event(ev) == 0
    assert rt.event_get_timestamp(ev) == (0, E.ACL_ERROR_RT_INTERNAL_ERROR)
    other, _ = rt.create_event()
    assert rt.event_elapsed_time(ev, other) == (0.0, E.ACL_ERROR_RT_INTERNAL_ERROR)
    assert rt.stream_wait_event(0, ev) == E.ACL_ERROR_RT_PARAM_INVALID
    ex, _ = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC)
    assert rt.stream_wait_event(0, ex) == 0
    assert rt.query_event_status(ex) == (E.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


def test_ex_event_restrictions(stream):
    ex, _ = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC)
    assert rt.reset_event(ex, stream) == E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert rt.query_event(ex) == (0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert rt.query_event_wait_status(ex) == (0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    nosync, _ = rt.create_event_ex_with_flag(E.ACL_EVENT_TIME_LINE)
    assert rt.record_event(nosync, stream) == 0
    assert rt.stream_wait_event(stream, nosync) == E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_flag_event_reset(stream):
    ev, _ = rt.create_event_with_flag(E.ACL_EVENT_SYNC)
    assert rt.record_event(ev, stream) == 0
    assert rt.stream_wait_event(stream, ev) == 0
    assert rt.reset_event(ev, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    timeline, _ = rt.create_event_with_flag(E.ACL_EVENT_TIME_LINE)
    assert rt.reset_event(timeline, stream) == E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert rt.reset_event(4444, stream) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_elapsed_time_needs_timeline(stream):
    a, _ = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC)
    b, _ = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC)
    rt.record_event(a, stream)
    rt.record_event(b, stream)
    rt.synchronize_stream(stream)
    assert rt.event_elapsed_time(a, b) == (0.0, E.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)


def test_stream_wait_event_with_timeout_fails_the_waiting_stream(stream):
    ev, _ = rt.create_event_with_flag(E.ACL_EVENT_SYNC)
    assert rt.stream_wait_event_with_timeout(stream, ev, -1) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.stream_wait_event_with_timeout(stream, ev, 50) == 0
    assert rt.synchronize_stream(stream) == E.ACL_ERROR_RT_TASK_TIMEOUT
    assert rt.synchronize_stream(stream) == 0


# ---- callbacks -------------------------------------------------------------------------------


def test_subscribe_rules(stream, report_thread):
    me = threading.get_ident()
    assert rt.subscribe_report(report_thread.ident, stream) == 0
    assert rt.subscribe_report(report_thread.ident, stream) == E.ACL_ERROR_RT_STREAM_SUBSCRIBE
    assert rt.subscribe_report(me, stream) == E.ACL_ERROR_RT_STREAM_SUBSCRIBE
    assert rt.unsubscribe_report(me, stream) == E.ACL_ERROR_RT_THREAD_SUBSCRIBE
    assert rt.unsubscribe_report(report_thread.ident, stream) == 0
    assert rt.unsubscribe_report(report_thread.ident, stream) == E.ACL_ERROR_RT_STREAM_SUBSCRIBE
    assert rt.subscribe_report(report_thread.ident, 9999) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_process_report_rules(stream):
    assert rt.process_report(10) == E.ACL_ERROR_RT_THREAD_SUBSCRIBE
    me = threading.get_ident()
    assert rt.subscribe_report(me, stream) == 0
    assert rt.process_report(0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.process_report(-2) == E.ACL_ERROR_INVALID_PARAM
    t0 = time.monotonic()
    assert rt.process_report(50) == E.ACL_ERROR_RT_REPORT_TIMEOUT
    assert time.monotonic() - t0 >= 0.04
    got = []
    assert rt.launch_callback(got.append, "x", E.ACL_CALLBACK_NO_BLOCK, stream) == 0
    assert rt.process_report(2000) == 0
    assert got == ["x"]
    assert rt.unsubscribe_report(me, stream) == 0


def test_launch_callback_rules(stream):
    assert rt.launch_callback(print, None, 0, stream) == E.ACL_ERROR_RT_STREAM_NO_CB_REG
    me = threading.get_ident()
    rt.subscribe_report(me, stream)
    assert rt.launch_callback(print, None, 2, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.launch_callback(print, None, 0, 31337) == E.ACL_ERROR_RT_INVALID_HANDLE
    rt.unsubscribe_report(me, stream)


def test_launch_host_func(stream):
    order = []
    acl.ext.launch_host_kernel(lambda a: order.append("kernel"), None, stream)
    assert rt.launch_host_func(stream, lambda a: (time.sleep(0.1), order.append(a)), "hostfn") == 0
    acl.ext.launch_host_kernel(lambda a: order.append("after"), None, stream)
    assert rt.synchronize_stream(stream) == 0
    assert order == ["kernel", "hostfn", "after"]
    assert rt.launch_host_func(777, print, None) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_exception_info_getters_refuse_unknown_pointers():
    for bad in (0, 1, 0xDEADBEEF, 2**63):
        assert rt.get_task_id_from_exception_info(bad) == 0xFFFFFFFF
        assert rt.get_stream_id_from_exception_info(bad) == 0xFFFFFFFF
        assert rt.get_thread_id_from_exception_info(bad) == 0xFFFFFFFF
        assert rt.get_device_id_from_exception_info(bad) == 0xFFFFFFFF
        assert rt.get_error_code_from_exception_info(bad) == 0xFFFFFFFF
    assert rt.set_exception_info_callback(None) == 0


# ---- memory ----------------------------------------------------------------------------------


def test_malloc_free():
    p, ret = rt.malloc(1000, E.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0 and p % 64 == 0
    assert rt.malloc(0, 0) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.malloc(64, 0x99) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.malloc(1 << 62, 0) == (0, E.ACL_ERROR_RT_MEMORY_ALLOCATION)
    free_, total, ret = rt.get_mem_info(E.ACL_HBM_MEM)
    assert ret == 0 and 0 < free_ <= total
    assert rt.free(p) == 0
    assert rt.free(p) == E.ACL_ERROR_RT_MEMORY_FREE
    h, ret = rt.malloc_host(256)
    assert ret == 0 and h % 64 == 0
    assert rt.malloc_host(0) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.free_host(h) == 0
    assert rt.free_host(h) == E.ACL_ERROR_RT_MEMORY_FREE


def test_memcpy_round_trip():
    data = bytes(range(256)) * 4
    dev, _ = rt.malloc(len(data), 0)
    assert rt.memcpy(dev, len(data), util.bytes_to_ptr(data), len(data), E.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert util.ptr_to_bytes(dev, len(data)) == data
    out = bytearray(len(data))
    assert rt.memcpy(util.bytes_to_ptr(out), len(out), dev, len(data), E.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert bytes(out) == data
    assert rt.memcpy(dev, 8, util.bytes_to_ptr(data), 16, 1) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.memcpy(dev, len(data), util.bytes_to_ptr(data), 4, 7) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy(0, 4, util.bytes_to_ptr(data), 4, 1) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy(dev, 4, util.bytes_to_ptr(data), 0, 1) == 0
    # Past the end of a runtime allocation: refused, never performed.
    big = bytes(2 * len(data))
    assert rt.memcpy(dev, len(big), util.bytes_to_ptr(big), len(big), 1) == E.ACL_ERROR_INVALID_PARAM
    with pytest.raises(ValueError):
        util.ptr_to_bytes(dev, len(data) + 1)
    assert rt.free(dev) == 0


def test_memset_and_async_copies(stream):
    dev, _ = rt.malloc(128, 0)
    assert rt.memset(dev, 128, 0xAB, 128) == 0
    assert util.ptr_to_bytes(dev, 4) == b"\xab" * 4
    assert rt.memset(dev, 16, 0, 32) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.memset(0, 16, 0, 16) == E.ACL_ERROR_INVALID_PARAM
    gate = Gate()
    acl.ext.launch_host_kernel(gate.kernel, None, stream)
    assert rt.memset_async(dev, 128, 7, 64, stream) == 0
    host = bytearray(128)
    assert rt.memcpy_async(util.bytes_to_ptr(host), 128, dev, 128, E.ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0
    assert host == bytearray(128)  # still queued behind the kernel
    gate.open()
    assert rt.synchronize_stream(stream) == 0
    assert bytes(host) == b"\x07" * 64 + b"\xab" * 64
    assert rt.memset_async(dev, 16, 0, 32, stream) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.memcpy_async(dev, 4, dev, 4, 1, 5555) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.free(dev) == 0


def test_util_pointer_helpers():
    # pyACL's ValueError for an object of the wrong kind.
    with pytest.raises(ValueError):
        util.bytes_to_ptr("text")
    with pytest.raises(ValueError):
        util.numpy_to_ptr(b"no interface")
    with pytest.raises(ValueError):
        util.ptr_to_bytes(0, 4)
    assert util.ptr_to_bytes(0, 0) == b""
    buf = bytearray(b"hello")
    assert util.ptr_to_bytes(util.bytes_to_ptr(buf), 5) == b"hello"

    class FakeArray:
        __array_interface__ = {"data": (util.bytes_to_ptr(buf), False)}

    assert util.numpy_to_ptr(FakeArray()) == util.bytes_to_ptr(buf)


def test_start_and_stop_thread():
    seen = []
    tid, ret = util.start_thread(lambda a: seen.append((a, threading.get_ident(), acl.ext.pthread_self())), "arg")
    assert ret == 0
    assert util.stop_thread(tid) == 0
    assert seen == [("arg", tid, tid)]
    assert util.stop_thread(tid) == E.ACL_ERROR_INVALID_PARAM
    assert util.stop_thread(threading.get_ident()) == E.ACL_ERROR_INVALID_PARAM

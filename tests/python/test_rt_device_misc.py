"""pyACL's smaller device, stream and process calls: device id mappings, the primary context's
state, the bare tgid, the thread's last task id, overflow modes, switches and status,
reduce_async and finalize_reference — values and exact codes."""

import os
import struct

import pytest

import acl
from acl import rt, util
from conftest import run_child

E = acl
H2D = acl.ACL_MEMCPY_HOST_TO_DEVICE
D2H = acl.ACL_MEMCPY_DEVICE_TO_HOST
SUM = acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM


def test_device_id_mappings_and_tgid():
    assert rt.get_user_dev_id_by_logic_dev_id(0) == (0, 0)
    assert rt.get_logic_dev_id_by_user_dev_id(0) == (0, 0)
    assert rt.get_user_dev_id_by_logic_dev_id(-1) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.get_logic_dev_id_by_user_dev_id(4096) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.device_get_bare_tgid() == (os.getpid(), 0)


def test_primary_ctx_state():
    # The session's fixture has set device 0.
    assert rt.get_primary_ctx_state(0) == (1, 0, 0)
    assert rt.get_primary_ctx_state(4096) == (0, 0, E.ACL_ERROR_RT_INVALID_DEVICEID)


def test_thread_last_task_id(stream):
    ptr, ret = rt.malloc(64, 0)
    assert ret == 0
    assert rt.memset_async(ptr, 64, 1, 64, stream) == 0
    first, ret = rt.get_thread_last_task_id()
    assert ret == 0
    assert rt.memset_async(ptr, 64, 2, 64, stream) == 0
    assert rt.get_thread_last_task_id() == (first + 1, 0)
    assert rt.synchronize_stream(stream) == 0
    assert rt.free(ptr) == 0


def test_overflow_modes_switches_and_status(stream):
    assert rt.get_device_sat_mode() == (acl.ACL_RT_OVERFLOW_MODE_INFNAN, 0)
    assert rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_SATURATION) == 0
    assert rt.get_device_sat_mode() == (acl.ACL_RT_OVERFLOW_MODE_SATURATION, 0)
    assert rt.set_device_sat_mode(2) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_INFNAN) == 0
    assert rt.get_stream_overflow_switch(stream) == (0, 0)
    assert rt.set_stream_overflow_switch(stream, 1) == 0
    assert rt.get_stream_overflow_switch(stream) == (1, 0)
    assert rt.set_stream_overflow_switch(stream, 2) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.get_stream_overflow_switch(0x1234) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)

    dev, ret = rt.malloc(64, 0)
    assert ret == 0 and rt.memset(dev, 64, 0x5A, 64) == 0
    assert rt.get_overflow_status(dev, 64, stream) == 0
    assert rt.reset_overflow_status(stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert util.ptr_to_bytes(dev, 64) == bytes(64)
    assert rt.get_overflow_status(dev, 32, stream) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.free(dev) == 0
    # Freed memory, and an address nobody handed out, are refused without touching them.
    assert rt.get_overflow_status(dev, 64, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.get_overflow_status(0x1000, 64, stream) == E.ACL_ERROR_INVALID_PARAM
    # A held bytearray is a valid host output, written in stream order.
    buf = bytearray(b"\xff" * 64)
    ptr = util.bytes_to_ptr(buf)
    assert rt.get_overflow_status(ptr, 64, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert bytes(buf) == bytes(64)


def test_reduce_async(stream):
    size = 16
    src, _ = rt.malloc(size, 0)
    dst, _ = rt.malloc(size, 0)
    ones = struct.pack("4f", 1.0, 2.0, 3.0, 4.0)
    host = bytearray(ones)
    hptr = util.bytes_to_ptr(host)
    assert rt.memcpy(src, size, hptr, size, H2D) == 0
    assert rt.memcpy(dst, size, hptr, size, H2D) == 0
    assert rt.reduce_async(dst, src, size, SUM, acl.ACL_FLOAT, stream, 0) == 0
    assert rt.synchronize_stream(stream) == 0
    assert struct.unpack("4f", util.ptr_to_bytes(dst, size)) == (2.0, 4.0, 6.0, 8.0)
    assert rt.reduce_async(dst, src, size, SUM, acl.ACL_INT64, stream, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.reduce_async(dst, src, 0, SUM, acl.ACL_FLOAT, stream, 0) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.reduce_async(dst, src, size, 9, acl.ACL_FLOAT, stream, 0) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.reduce_async(dst, 0x1000, size, SUM, acl.ACL_FLOAT, stream, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.free(src) == 0 and rt.free(dst) == 0
    assert rt.reduce_async(dst, src, size, SUM, acl.ACL_FLOAT, stream, 0) == E.ACL_ERROR_INVALID_PARAM
    with pytest.raises(TypeError):
        rt.reduce_async(dst, src, size, SUM, acl.ACL_FLOAT, stream)


def test_finalize_reference():
    out = run_child("""
        import acl
        print(acl.finalize_reference())
        assert acl.init() == 0
        assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
        print(acl.finalize_reference())
        print(acl.rt.get_device_count()[1])
        print(acl.finalize_reference())
        print(acl.rt.get_device_count()[1])
    """).stdout
    assert out.split() == ["(0,", f"{E.ACL_ERROR_REPEAT_FINALIZE})", "(1,", "0)", "0",
                           "(0,", "0)", str(E.ACL_ERROR_UNINITIALIZE)]


def test_stream_attributes_read_back_and_follow_the_calls_of_their_own(stream):
    value, ret = acl.rt.get_stream_attribute(stream, acl.ACL_STREAM_ATTR_FAILURE_MODE)
    assert ret == 0 and value["failureMode"] == acl.ACL_CONTINUE_ON_FAILURE
    assert sorted(value) == sorted(
        ["failureMode", "overflowSwitch", "userCustomTag", "cacheOpInfoSwitch", "streamPriority", "reserve"]
    )
    assert acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_FAILURE_MODE, {"failureMode": 1}) == 0
    assert acl.rt.get_stream_attribute(stream, acl.ACL_STREAM_ATTR_FAILURE_MODE)[0]["failureMode"] == 1
    # Once per stream, as aclrtSetStreamFailureMode.
    assert acl.rt.set_stream_failure_mode(stream, 0) == acl.ACL_ERROR_RT_PARAM_INVALID

    assert acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, {"overflowSwitch": 1}) == 0
    assert acl.rt.get_stream_overflow_switch(stream) == (1, 0)
    assert acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG, {"userCustomTag": 77}) == 0
    value, ret = acl.rt.get_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG)
    assert (value["userCustomTag"], value["reserve"], ret) == (77, [77, 0, 0, 0], 0)
    # An absent member is 0.
    assert acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG, {}) == 0
    assert acl.rt.get_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG)[0]["userCustomTag"] == 0
    assert acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_PRIORITY, {"streamPriority": 12}) == 0
    assert acl.rt.get_stream_attribute(stream, acl.ACL_STREAM_ATTR_PRIORITY)[0]["streamPriority"] == 7


def test_stream_attribute_errors(stream):
    code = acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_CACHE_OP_INFO, {"cacheOpInfoSwitch": 2})
    assert code == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.set_stream_attribute(stream, 6, {}) == acl.ACL_ERROR_RT_PARAM_INVALID
    value, ret = acl.rt.get_stream_attribute(stream, 0)
    assert ret == acl.ACL_ERROR_RT_PARAM_INVALID and value["failureMode"] == 0
    # The default stream (0) has no priority to set.
    assert acl.rt.set_stream_attribute(0, acl.ACL_STREAM_ATTR_PRIORITY, {"streamPriority": 1}) == (
        acl.ACL_ERROR_RT_PARAM_INVALID
    )
    with pytest.raises(TypeError):
        acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG, 5)

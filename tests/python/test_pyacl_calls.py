"""pyACL calls beyond streams and events: run mode and device queries, forced reset, app_log,
data buffers, element sizes, float16 conversion, DVPP memory and pyACL's thread helpers."""

import math
import re
import struct
import threading

import pytest

import acl
from acl import rt, util
from conftest import run_child

E = acl  # constants


# ---- constants ---------------------------------------------------------------------------


def test_vendor_values():
    assert (acl.ACL_DEBUG, acl.ACL_INFO, acl.ACL_WARNING, acl.ACL_ERROR) == (0, 1, 2, 3)
    assert (acl.ACL_DEVICE, acl.ACL_HOST) == (0, 1)
    assert acl.ACL_RT_DEVICE_STATUS_NORMAL == 0
    assert acl.ACL_RT_DEVICE_STATUS_ABNORMAL == 1
    assert acl.ACL_RT_DEVICE_STATUS_END == 0xFFFF
    assert (acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_INT8, acl.ACL_INT64) == (0, 1, 2, 9)
    assert acl.constants.ACL_DT_UNDEFINED == -1


# ---- devices -----------------------------------------------------------------------------


def test_run_mode_is_host():
    assert rt.get_run_mode() == (acl.ACL_HOST, 0)


def test_run_mode_needs_init():
    run_child("""
        import acl
        assert acl.rt.get_run_mode() == (acl.ACL_DEVICE, acl.ACL_ERROR_UNINITIALIZE)
        assert acl.init() == 0
        assert acl.rt.get_run_mode() == (acl.ACL_HOST, 0)
    """)


def test_query_device_status():
    assert rt.query_device_status(0) == (acl.ACL_RT_DEVICE_STATUS_NORMAL, 0)
    count, _ = rt.get_device_count()
    for bad in (count, -1, 2**31, 2**64 - 1, 2**70):
        assert rt.query_device_status(bad) == (acl.ACL_RT_DEVICE_STATUS_END, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert "out of range" in acl.get_recent_err_msg()
    with pytest.raises(TypeError):
        rt.query_device_status(None)


def test_device_utilization_rate():
    info, ret = rt.get_device_utilization_rate(0)
    assert ret == 0
    assert info == {
        "cube_utilization": 0,
        "vector_utilization": 0,
        "aicpu_utilization": 0,
        "memory_utilization": -1,
        "utilization_extend": 0,
    }
    info, ret = rt.get_device_utilization_rate(7)
    assert ret == E.ACL_ERROR_RT_INVALID_DEVICEID
    assert set(info.values()) == {0}


def test_reset_device_force():
    run_child("""
        import acl
        from acl import rt
        E = acl
        assert acl.init() == 0
        # Paired or not, one forced reset releases the device.
        for _ in range(3):
            assert rt.set_device(0) == 0
        s, ret = rt.create_stream()
        assert ret == 0
        assert acl.ext.live_objects()["streams"] == 2
        assert rt.reset_device_force(0) == 0
        assert acl.ext.live_objects()["contexts"] == 0
        assert acl.ext.live_objects()["streams"] == 0
        assert rt.get_device()[1] == E.ACL_ERROR_RT_CONTEXT_NULL
        assert rt.destroy_stream(s) == E.ACL_ERROR_RT_INVALID_HANDLE
        # Nothing left to release: as reset_device.
        assert rt.reset_device_force(0) == E.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
        assert rt.reset_device(0) == E.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
        # Mixed with reset_device: the forced reset after the counted ones.
        assert rt.set_device(0) == 0 and rt.set_device(0) == 0
        assert rt.reset_device(0) == 0
        assert rt.reset_device_force(0) == 0
        assert rt.reset_device(0) == E.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
        assert rt.get_last_error() == E.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
        # A successful forced reset leaves no error behind.
        assert rt.set_device(0) == 0
        assert rt.reset_device_force(0) == 0
        assert rt.get_last_error() == 0
        assert rt.reset_device_force(5) == E.ACL_ERROR_RT_INVALID_DEVICEID
        assert acl.finalize() == 0
        assert rt.reset_device_force(0) == E.ACL_ERROR_UNINITIALIZE
    """)


# ---- app_log -----------------------------------------------------------------------------

LINE = re.compile(r"\[(DEBUG|INFO|WARNING|ERROR)\] APP\((\d+),[^)]+\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} (.*)")


def logged(text):
    return [LINE.fullmatch(line).group(1, 3) for line in text.splitlines()]


def test_app_log_writes_errors_by_default(capsys, monkeypatch):
    monkeypatch.delenv("ASCEND_GLOBAL_LOG_LEVEL", raising=False)
    for level in (acl.ACL_DEBUG, acl.ACL_INFO, acl.ACL_WARNING, acl.ACL_ERROR):
        assert acl.app_log(level, f"message {level}") is None
    err = capsys.readouterr().err
    assert logged(err) == [("ERROR", "message 3")]
    import os

    assert LINE.fullmatch(err.splitlines()[0]).group(2) == str(os.getpid())


def test_app_log_level_from_environment(capsys, monkeypatch):
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "1")
    for level in range(-1, 6):
        acl.app_log(level, "[sample.py:12 main]text with {braces} and %s")
    assert logged(capsys.readouterr().err) == [
        ("INFO", "[sample.py:12 main]text with {braces} and %s"),
        ("WARNING", "[sample.py:12 main]text with {braces} and %s"),
        ("ERROR", "[sample.py:12 main]text with {braces} and %s"),
    ]
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "4")
    acl.app_log(3, "silent")
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "junk")
    acl.app_log(2, "below the default")
    acl.app_log(3, "default")
    assert logged(capsys.readouterr().err) == [("ERROR", "default")]


def test_app_log_arguments():
    with pytest.raises(TypeError):
        acl.app_log(3)
    with pytest.raises(TypeError):
        acl.app_log(None, "x")
    with pytest.raises(TypeError):
        acl.app_log(3, b"bytes")


# ---- data buffers ------------------------------------------------------------------------


def test_data_buffer_life():
    dev, _ = rt.malloc(256, 0)
    buf = acl.create_data_buffer(dev, 256)
    assert buf != 0
    assert acl.get_data_buffer_addr(buf) == dev
    assert acl.get_data_buffer_size_v2(buf) == 256
    assert acl.get_data_buffer_size(buf) == 256
    assert acl.update_data_buffer(buf, dev + 64, 2**40 + 5) == 0
    assert acl.get_data_buffer_addr(buf) == dev + 64
    assert acl.get_data_buffer_size_v2(buf) == 2**40 + 5
    assert acl.get_data_buffer_size(buf) == 5  # the deprecated getter truncates to 32 bits
    assert acl.destroy_data_buffer(buf) == 0
    assert rt.free(dev) == 0
    # A destroyed buffer: codes for the actions, 0 for the getters, with a message.
    assert acl.destroy_data_buffer(buf) == E.ACL_ERROR_INVALID_PARAM
    assert acl.update_data_buffer(buf, 1, 1) == E.ACL_ERROR_INVALID_PARAM
    assert acl.get_data_buffer_addr(buf) == 0
    assert "not a live aclDataBuffer" in acl.get_recent_err_msg()
    assert acl.get_data_buffer_size_v2(buf) == 0
    assert "aclGetDataBufferSizeV2" in acl.get_recent_err_msg()
    # NULL: silently 0 from the getters, 100000 from the actions.
    assert acl.get_data_buffer_addr(0) == 0
    assert acl.get_data_buffer_size_v2(0) == 0
    assert acl.get_recent_err_msg() is None
    assert acl.destroy_data_buffer(0) == E.ACL_ERROR_INVALID_PARAM


def test_data_buffer_arguments_convert_as_c():
    empty = acl.create_data_buffer(0, 0)
    assert (acl.get_data_buffer_addr(empty), acl.get_data_buffer_size_v2(empty)) == (0, 0)
    wrapped = acl.create_data_buffer(-1, -1)
    assert acl.get_data_buffer_addr(wrapped) == 2**64 - 1
    assert acl.get_data_buffer_size_v2(wrapped) == 2**64 - 1
    assert acl.destroy_data_buffer(empty) == 0 and acl.destroy_data_buffer(wrapped) == 0
    for bad in (None, 1.0, "1"):
        with pytest.raises(TypeError):
            acl.create_data_buffer(bad, 1)
        with pytest.raises(TypeError):
            acl.get_data_buffer_addr(bad)
    assert acl.get_data_buffer_size_v2(12345) == 0


def test_data_buffers_need_no_runtime():
    run_child("""
        import acl
        b = acl.create_data_buffer(0x1000, 8)
        assert acl.get_data_buffer_size_v2(b) == 8
        assert acl.init() == 0 and acl.finalize() == 0
        assert acl.get_data_buffer_addr(b) == 0x1000
        assert acl.destroy_data_buffer(b) == 0
    """)


# ---- element sizes and float16 -----------------------------------------------------------


def test_data_type_size():
    sizes = {
        acl.ACL_FLOAT: 4, acl.ACL_FLOAT16: 2, acl.ACL_INT8: 1, acl.ACL_INT32: 4, acl.ACL_UINT8: 1,
        acl.ACL_INT16: 2, acl.ACL_UINT16: 2, acl.ACL_UINT32: 4, acl.ACL_INT64: 8, acl.ACL_UINT64: 8,
        acl.ACL_DOUBLE: 8, acl.ACL_BOOL: 1, acl.ACL_STRING: 0, acl.ACL_COMPLEX64: 8,
        acl.ACL_COMPLEX128: 16, acl.ACL_BF16: 2, acl.ACL_INT4: 1, acl.ACL_UINT1: 1,
        acl.ACL_COMPLEX32: 4, acl.ACL_DT_UNDEFINED: 0, 1000: 8,
    }
    for dtype, size in sizes.items():
        assert acl.data_type_size(dtype) == size, dtype
    with pytest.raises(TypeError):
        acl.data_type_size(None)


def test_float_to_float16_rounds_to_nearest_even_and_saturates():
    cases = [
        (1.0, 0x3C00), (1.5, 0x3E00), (-2.0, 0xC000), (0.0, 0x0000), (-0.0, 0x8000),
        (65504.0, 0x7BFF), (65519.0, 0x7BFF), (65520.0, 0x7BFF), (1e9, 0x7BFF), (-1e9, 0xFBFF),
        (math.inf, 0x7BFF), (-math.inf, 0xFBFF), (math.nan, 0x7BFF),
        (2.0**-24, 0x0001), (2.0**-25, 0x0000), (3 * 2.0**-25, 0x0002), (2.0**-14, 0x0400),
        (1 + 2.0**-11, 0x3C00), (1 + 3 * 2.0**-11, 0x3C02), (1 + 2.0**-10, 0x3C01),
        (2, 0x4000), (True, 0x3C00), (1e300, 0x7BFF),
    ]
    for value, bits in cases:
        assert acl.float_to_float16(value) == bits, (value, hex(acl.float_to_float16(value)))
    for bad in (None, "1.0", b"1", [1.0]):
        with pytest.raises(TypeError):
            acl.float_to_float16(bad)


def test_float16_conversion_matches_ieee_for_every_finite_half():
    for bits in range(0x10000):
        if (bits >> 10) & 0x1F == 0x1F:
            continue  # the vendor reads the all-ones exponent as an ordinary one
        ieee = struct.unpack("<e", struct.pack("<H", bits))[0]
        value = acl.float16_to_float(bits)
        assert value == ieee and math.copysign(1, value) == math.copysign(1, ieee), hex(bits)
        assert acl.float_to_float16(value) == bits, hex(bits)


def test_float16_to_float_edges():
    assert acl.float16_to_float(0x7C00) == 65536.0
    assert acl.float16_to_float(0xFC00) == -65536.0
    assert acl.float16_to_float(0x7E00) == 98304.0
    assert acl.float16_to_float(0x13C00) == 1.0  # truncated to 16 bits, as pyACL's "H"
    assert acl.float16_to_float(-1) == acl.float16_to_float(0xFFFF) == -131008.0
    with pytest.raises(TypeError):
        acl.float16_to_float(1.0)


def test_float_to_float16_matches_ieee_rounding():
    import random

    rng = random.Random(7)
    for _ in range(20000):
        value = rng.uniform(-65504.0, 65504.0) * 2.0 ** rng.randrange(-30, 1)
        # pyACL narrows to a C float first (its "f" conversion), then to a half.
        single = struct.unpack("<f", struct.pack("<f", value))[0]
        assert acl.float_to_float16(value) == struct.unpack("<H", struct.pack("<e", single))[0], value


# ---- versions and attributes ------------------------------------------------------------


def test_versions_and_attributes_need_no_runtime():
    run_child("""
        import acl
        assert acl.get_version() == (1, 17, 0, 0)
        assert acl.get_version_str("runtime") == ("9.1.0", 0)
        assert acl.get_version_str("driver") == ("", acl.ACL_ERROR_INVALID_FILE)
        assert "not installed" in acl.get_recent_err_msg()
        version, ret = acl.get_cann_version(acl.ACL_PKG_NAME_CANN)
        assert ret == 0 and version == {
            "version": "9.1.0", "major_version": "9", "minor_version": "1",
            "release_version": "0", "patch_version": "0", "reserved": "",
        }
        assert acl.get_cann_version(acl.ACL_PKG_NAME_RUNTIME)[0]["version"] == "9.1.0"
        version, ret = acl.get_cann_version(acl.ACL_PKG_NAME_DRIVER)
        assert ret == acl.ACL_ERROR_INVALID_FILE and set(version.values()) == {""}
        assert acl.get_cann_version(999)[1] == acl.ACL_ERROR_INVALID_PARAM
        assert acl.get_cann_attribute_list() == ([acl.ACL_CANN_ATTR_INF_NAN, acl.ACL_CANN_ATTR_BF16], 2, 0)
        assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_BF16) == (1, 0)
        assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_JIT_COMPILE) == (0, 0)
        assert acl.get_cann_attribute(acl.ACL_CANN_ATTR_UNDEFINED) == (0, acl.ACL_ERROR_INVALID_PARAM)
    """)


# ---- DVPP memory -------------------------------------------------------------------------


def dvpp_size(size):
    return (size + 31) // 32 * 32 + 32


@pytest.mark.parametrize("size", [1, 31, 32, 100, 4096, 1920 * 1080 * 3 // 2])
def test_dvpp_memory_is_128_aligned_and_vendor_sized(size):
    ptr, ret = acl.media.dvpp_malloc(size)
    assert ret == 0 and ptr % 128 == 0
    usable = dvpp_size(size)
    assert rt.memset(ptr, usable, 0x5A, usable) == 0
    assert util.ptr_to_bytes(ptr, usable) == b"\x5a" * usable
    # At most 64 bytes of slack lie past the vendor's size, never more.
    assert rt.memset(ptr, usable + 65, 0, usable + 65) == E.ACL_ERROR_INVALID_PARAM
    attrs, ret = rt.pointer_get_attributes(ptr)
    assert (attrs["location"]["type"], ret) == (E.ACL_MEM_LOCATION_TYPE_DEVICE, 0)
    data = bytes(i % 251 for i in range(size))
    assert rt.memcpy(ptr, usable, util.bytes_to_ptr(data), size, E.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    out = bytearray(size)
    assert rt.memcpy(util.bytes_to_ptr(out), size, ptr, size, E.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert out == data
    assert acl.media.dvpp_free(ptr) == 0


def test_dvpp_addresses_follow_each_other_at_128_byte_boundaries():
    # ALIGN_UP(len, 32) + 32 bytes each, every start 128-byte aligned, for any mix of sizes.
    ptrs = []
    for size in (1, 33, 65, 97, 129, 161, 193, 225):
        ptr, ret = acl.media.dvpp_malloc(size)
        assert ret == 0 and ptr % 128 == 0
        assert rt.memset(ptr, dvpp_size(size), 1, dvpp_size(size)) == 0
        ptrs.append((ptr, dvpp_size(size)))
    spans = sorted(ptrs)
    for (a, n), (b, _) in zip(spans, spans[1:]):
        assert a + n <= b
    for ptr, _ in ptrs:
        assert acl.media.dvpp_free(ptr) == 0


def test_dvpp_free_rules():
    ptr, _ = acl.media.dvpp_malloc(64)
    assert rt.free(ptr) == E.ACL_ERROR_RT_MEMORY_FREE
    assert "free it with acldvppFree" in acl.get_recent_err_msg()
    dev, _ = rt.malloc(64, 0)
    assert acl.media.dvpp_free(dev) == E.ACL_ERROR_RT_MEMORY_FREE
    assert "not an address from acldvppMalloc" in acl.get_recent_err_msg()
    assert rt.free(dev) == 0
    assert acl.media.dvpp_free(ptr) == 0
    assert acl.media.dvpp_free(ptr) == E.ACL_ERROR_RT_MEMORY_FREE
    assert acl.media.dvpp_free(0) == E.ACL_ERROR_INVALID_PARAM
    assert acl.media.dvpp_malloc(0) == (0, E.ACL_ERROR_INVALID_PARAM)
    for huge in (2**62, 2**64 - 1, -1):
        assert acl.media.dvpp_malloc(huge) == (0, E.ACL_ERROR_RT_MEMORY_ALLOCATION)
    with pytest.raises(TypeError):
        acl.media.dvpp_malloc(None)


def test_dvpp_memory_needs_a_context():
    got = []
    t = threading.Thread(target=lambda: got.append(acl.media.dvpp_malloc(64)))
    t.start()
    t.join()
    assert got == [(0, E.ACL_ERROR_RT_CONTEXT_NULL)]


def test_dvpp_memory_is_released_by_finalize():
    run_child("""
        import acl
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        ptr, ret = acl.media.dvpp_malloc(1000)
        assert ret == 0
        assert acl.finalize() == 0
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        assert acl.media.dvpp_free(ptr) == acl.ACL_ERROR_RT_MEMORY_FREE
        assert acl.ext.live_objects()["allocations"] == 0
    """)


# ---- threads -----------------------------------------------------------------------------


def test_start_thread_checks_arguments_as_pyacl():
    with pytest.raises(TypeError, match=r"^function takes exactly 2 arguments \(0 given\)$"):
        util.start_thread()
    with pytest.raises(TypeError, match=r"^function takes exactly 2 arguments \(1 given\)$"):
        util.start_thread(print)
    with pytest.raises(TypeError, match=r"^function takes exactly 2 arguments \(3 given\)$"):
        util.start_thread(print, 1, 2)
    for bad in (None, 1, "f", b"f"):
        with pytest.raises(TypeError, match=r"^parameter must be callable$"):
            util.start_thread(bad, [])


def test_start_thread_with_none_calls_without_arguments():
    calls = []
    tid, ret = util.start_thread(lambda *a: calls.append(a), None)
    assert ret == 0
    assert util.stop_thread(tid) == 0
    assert calls == [()]


def test_stop_thread_raises_what_the_thread_raised(monkeypatch):
    import sys

    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(type(u.exc_value)))

    def bad(arg):
        raise KeyError(arg)

    tid, ret = util.start_thread(bad, "k")
    assert ret == 0
    with pytest.raises(RuntimeError, match=r"^exception=KeyError,msg=thread call failed;$"):
        util.stop_thread(tid)
    assert reported == [KeyError]
    assert util.stop_thread(tid) == E.ACL_ERROR_INVALID_PARAM

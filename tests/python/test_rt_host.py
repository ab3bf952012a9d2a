"""pyACL's host memory for the device: malloc_host_with_cfg and host registration, with exact
codes, the face's pointer policy (a registered buffer is kept alive until it is unregistered)
and pyACL's argument-error texts."""

import ctypes

import pytest

import acl
from acl import rt, util

E = acl
MAPPED = acl.ACL_HOST_REGISTER_MAPPED
D2H = acl.ACL_MEMCPY_DEVICE_TO_HOST


def cfg(*attrs):
    return {"numAttrs": len(attrs), "attrs": [{"attr": a, "value": v} for a, v in attrs]}


def test_malloc_host_with_cfg():
    for c in ({}, cfg((acl.ACL_RT_MEM_ATTR_MODULE_ID, {"moduleId": 7})),
              cfg((acl.ACL_RT_MEM_ATTR_VA_FLAG, {"deviceId": 1}))):
        ptr, ret = rt.malloc_host_with_cfg(256, c)
        assert ret == 0 and ptr != 0
        assert rt.host_get_device_pointer(ptr, 0) == (ptr, 0)
        assert rt.free_host(ptr) == 0
    bad_flag = cfg((acl.ACL_RT_MEM_ATTR_VA_FLAG, {"deviceId": 2}))
    assert rt.malloc_host_with_cfg(256, bad_flag) == (0, E.ACL_ERROR_INVALID_PARAM)
    other = cfg((acl.ACL_RT_MEM_ATTR_DEVICE_ID, {"deviceId": 0}))
    assert rt.malloc_host_with_cfg(256, other) == (0, E.ACL_ERROR_INVALID_PARAM)
    with pytest.raises(TypeError, match="^pyCfg is not dict!$"):
        rt.malloc_host_with_cfg(256, [])
    with pytest.raises(KeyError):
        rt.malloc_host_with_cfg(256, {"numAttrs": 2, "attrs": []})


def register_temporary(size):
    """Registers a bytearray the caller never sees: only the registration holds it."""
    buf = bytearray(size)
    ptr = util.bytes_to_ptr(buf)
    assert rt.host_register(ptr, size, MAPPED) == (ptr, 0)
    return ptr


def test_registered_buffer_lives_until_unregistered():
    before = acl.ext.live_objects()["host_registrations"]
    ptr = register_temporary(64)
    assert acl.ext.live_objects()["host_registrations"] == before + 1
    assert rt.host_get_device_pointer(ptr, 0) == (ptr, 0)
    dev, ret = rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    try:
        assert rt.memset(dev, 64, 0x5A, 64) == 0
        # The program holds no reference; the registration keeps the buffer and its address.
        util.bytes_to_ptr(bytearray(8))
        assert rt.memcpy(ptr, 64, dev, 64, D2H) == 0
        assert util.ptr_to_bytes(ptr, 64) == b"\x5a" * 64
        assert rt.host_unregister(ptr) == 0
        assert acl.ext.live_objects()["host_registrations"] == before
        assert rt.host_unregister(ptr) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.host_get_device_pointer(ptr, 0) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
        # Released: once forgotten (at the next address handed out) its address is refused.
        util.bytes_to_ptr(bytearray(8))
        assert rt.memcpy(ptr, 64, dev, 64, D2H) == E.ACL_ERROR_INVALID_PARAM
    finally:
        assert rt.free(dev) == 0


def test_register_v2_and_its_flags():
    buf = bytearray(128)
    ptr = util.bytes_to_ptr(buf)
    both = acl.ACL_HOST_REG_MAPPED | acl.ACL_HOST_REG_PINNED
    assert rt.host_register_v2(ptr, 128, acl.ACL_HOST_REG_READONLY) == (
        E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    )
    assert rt.host_register_v2(ptr, 128, 0x100) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.host_register_v2(ptr, 128, both) == 0
    # A range already registered, or overlapping one, is refused.
    assert rt.host_register_v2(ptr + 64, 64, 0) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.host_register(ptr, 128, MAPPED) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.host_get_device_pointer(ptr, 1) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.host_unregister(ptr) == 0


def test_register_refusals():
    buf = bytearray(64)
    ptr = util.bytes_to_ptr(buf)
    assert rt.host_register(ptr, 64, acl.ACL_HOST_REGISTER_IOMEMORY) == (
        0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    )
    assert rt.host_register(ptr, 64, 99) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    # Past the buffer's end, an address the face does not know.
    assert rt.host_register(ptr, 65, MAPPED) == (0, E.ACL_ERROR_INVALID_PARAM)
    raw = ctypes.create_string_buffer(64)
    assert rt.host_register(ctypes.addressof(raw), 64, MAPPED) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.host_register(0, 64, MAPPED) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.host_register(ptr, 0, MAPPED) == (0, E.ACL_ERROR_INVALID_PARAM)
    # Runtime memory is already the device's.
    dev, ret = rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    assert rt.host_register(dev, 64, MAPPED) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.free(dev) == 0
    assert rt.host_unregister(0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.host_get_device_pointer(0, 0) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert acl.ext.live_objects()["host_registrations"] == 0


def test_read_only_arrays_are_refused():
    np = pytest.importorskip("numpy")
    arr = np.zeros(64, dtype=np.uint8)
    arr.flags.writeable = False
    ptr = util.numpy_to_ptr(arr)
    assert rt.host_register(ptr, 64, MAPPED) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.host_register_v2(ptr, 64, 0) == E.ACL_ERROR_INVALID_PARAM
    assert acl.ext.live_objects()["host_registrations"] == 0


def test_raw_pointers_are_registered_as_pyacl_does():
    raw = ctypes.create_string_buffer(64)
    addr = ctypes.addressof(raw)
    assert acl.ext.set_raw_pointers(True) is False
    try:
        assert rt.host_register(addr, 64, MAPPED) == (addr, 0)
        # Nothing of the program's is held: the program keeps `raw` alive itself.
        assert acl.ext.live_objects()["host_registrations"] == 0
        assert rt.host_unregister(addr) == 0
    finally:
        acl.ext.set_raw_pointers(False)


def message(fn, *args):
    with pytest.raises(TypeError) as info:
        fn(*args)
    assert type(info.value) is TypeError
    return str(info.value)


def test_parse_failures_read_as_pyacls():
    assert message(rt.malloc_host_with_cfg, 1) == "acl.rt.malloc_host_with_cfg args parse failed"
    assert message(rt.host_register, 0, 0) == "acl.rt.host_register args parse failed"
    assert message(rt.host_register_v2, "p", 0, 0) == "acl.rt.host_register_v2 args parse failed"
    assert message(rt.host_get_device_pointer, 0) == "acl.rt.host_get_device_pointer parse failed"
    assert message(rt.host_unregister, None) == "acl.rt.host_unregister args parse failed"

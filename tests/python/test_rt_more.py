"""pyACL's resource-limit calls, 2D copies, malloc_with_cfg and the allocation granularity:
success and error paths with exact codes, and pyACL's argument-error texts."""

import threading

import pytest

import acl
from acl import rt

E = acl
CUBE, VECTOR = acl.ACL_RT_DEV_RES_CUBE_CORE, acl.ACL_RT_DEV_RES_VECTOR_CORE


def test_device_res_limits():
    cube, ret = rt.get_device_res_limit(0, CUBE)
    assert ret == 0 and cube > 0
    vector, ret = rt.get_device_res_limit(0, VECTOR)
    assert ret == 0 and vector > 0
    try:
        assert rt.set_device_res_limit(0, VECTOR, 4) == 0
        assert rt.get_device_res_limit(0, VECTOR) == (4, 0)
        assert rt.get_res_in_current_thread(VECTOR) == (4, 0)
        assert rt.set_device_res_limit(0, VECTOR, vector + 1) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.set_device_res_limit(0, 7, 1) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.get_device_res_limit(0, 7) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
        assert rt.get_device_res_limit(-1, CUBE) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
        assert rt.get_device_res_limit(99, CUBE) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    finally:
        assert rt.reset_device_res_limit(0) == 0
    assert rt.get_device_res_limit(0, VECTOR) == (vector, 0)
    assert rt.reset_device_res_limit(-1) == E.ACL_ERROR_RT_INVALID_DEVICEID


def test_stream_res_limits_and_the_current_thread(stream):
    cube, _ = rt.get_device_res_limit(0, CUBE)
    assert rt.get_stream_res_limit(stream, CUBE) == (cube, 0)
    assert rt.set_stream_res_limit(stream, CUBE, 2) == 0
    assert rt.get_stream_res_limit(stream, CUBE) == (2, 0)
    assert rt.get_res_in_current_thread(CUBE) == (cube, 0)
    assert rt.use_stream_res_in_current_thread(stream) == 0
    assert rt.get_res_in_current_thread(CUBE) == (2, 0)
    # Another thread does not use this thread's choice.
    seen = []
    worker = threading.Thread(target=lambda: seen.append(rt.get_res_in_current_thread(CUBE)))
    worker.start()
    worker.join()
    assert seen[0][0] in (cube, 0)
    assert rt.unuse_stream_res_in_current_thread(stream) == 0
    assert rt.get_res_in_current_thread(CUBE) == (cube, 0)
    assert rt.reset_stream_res_limit(stream) == 0
    assert rt.get_stream_res_limit(stream, CUBE) == (cube, 0)
    assert rt.set_stream_res_limit(stream, CUBE, cube + 1) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.get_stream_res_limit(stream, 9) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.get_res_in_current_thread(9) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    # NULL is the default stream.
    assert rt.get_stream_res_limit(0, CUBE) == (cube, 0)
    for bad in (12345, 2**64 - 1):
        assert rt.get_stream_res_limit(bad, CUBE) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
        assert rt.set_stream_res_limit(bad, CUBE, 1) == E.ACL_ERROR_RT_INVALID_HANDLE
        assert rt.reset_stream_res_limit(bad) == E.ACL_ERROR_RT_INVALID_HANDLE
        assert rt.use_stream_res_in_current_thread(bad) == E.ACL_ERROR_RT_INVALID_HANDLE
        assert rt.unuse_stream_res_in_current_thread(bad) == E.ACL_ERROR_RT_INVALID_HANDLE


@pytest.mark.parametrize("call, args, text", [
    (rt.get_device_res_limit, (0,), "acl.rt.get_device_res_limit args parse failed"),
    (rt.set_device_res_limit, (0, 0, "1"), "acl.rt.set_device_res_limit args parse failed"),
    (rt.reset_device_res_limit, (None,), "acl.rt.reset_device_res_limit args parse failed"),
    (rt.get_stream_res_limit, (0,), "acl.rt.get_stream_res_limit parse failed"),
    (rt.set_stream_res_limit, (0, 0), "acl.rt.set_stream_res_limit parse failed"),
    (rt.reset_stream_res_limit, (), "acl.rt.reset_stream_res_limit parse failed"),
    (rt.use_stream_res_in_current_thread, (1.5,),
     "acl.rt.use_stream_res_in_current_thread parse failed"),
    (rt.unuse_stream_res_in_current_thread, (0, 0),
     "acl.rt.unuse_stream_res_in_current_thread parse failed"),
    (rt.get_res_in_current_thread, ("0",), "acl.rt.get_res_in_current_thread parse failed"),
    (rt.memcpy2d, (0, 0, 0, 0, 0, 0), "acl.rt.memcpy2d args parse failed"),
    (rt.memcpy2d_async, (0, 0, 0, 0, 0, 0, 0, None), "acl.rt.memcpy2d_async args parse failed"),
    (rt.malloc_with_cfg, (1, 0), "acl.rt.malloc_with_cfg args parse failed!"),
    (rt.mem_get_allocation_granularity, ({},), "acl.rt.mem_get_allocation_granularity args parse failed"),
])
def test_argument_errors_use_pyacls_texts(call, args, text):
    with pytest.raises(TypeError) as info:
        call(*args)
    assert str(info.value) == text


W, H, SPITCH, DPITCH = 10, 6, 16, 24


def rows(data, pitch):
    return [bytes(data[r * pitch:r * pitch + W]) for r in range(H)]


def test_memcpy2d_round_trip_through_host_buffers(stream):
    src = bytearray((i * 7 + 3) % 256 for i in range(SPITCH * H))
    src_ptr = acl.util.bytes_to_ptr(src)
    dev, ret = rt.malloc(DPITCH * H, 0)
    assert ret == 0
    assert rt.memset(dev, DPITCH * H, 0xEE, DPITCH * H) == 0
    assert rt.memcpy2d(dev, DPITCH, src_ptr, SPITCH, W, H, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    on_device = acl.util.ptr_to_bytes(dev, DPITCH * H)
    assert rows(on_device, DPITCH) == rows(src, SPITCH)
    assert on_device[W:DPITCH] == b"\xee" * (DPITCH - W)
    back = bytearray(SPITCH * H)
    back_ptr = acl.util.bytes_to_ptr(back)
    assert rt.memcpy2d_async(back_ptr, SPITCH, dev, DPITCH, W, H,
                             acl.ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert rows(back, SPITCH) == rows(src, SPITCH)
    dev2, _ = rt.malloc(DPITCH * H, 0)
    assert rt.memcpy2d_async(dev2, DPITCH, dev, DPITCH, W, H,
                             acl.ACL_MEMCPY_DEVICE_TO_DEVICE, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert rows(acl.util.ptr_to_bytes(dev2, DPITCH * H), DPITCH) == rows(src, SPITCH)
    assert rt.free(dev) == 0 and rt.free(dev2) == 0


def test_memcpy2d_refuses_what_it_cannot_check(stream):
    h2d, d2h = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
    src = bytearray(SPITCH * H)
    src_ptr = acl.util.bytes_to_ptr(src)
    dev, _ = rt.malloc(DPITCH * H, 0)
    # A host address nobody handed out, a range running past a known buffer.
    assert rt.memcpy2d(dev, DPITCH, 0x12345678, SPITCH, W, H, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d(dev, DPITCH, src_ptr, SPITCH, W, H + 1, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d_async(0x12345678, SPITCH, dev, DPITCH, W, H, d2h, stream) \
        == E.ACL_ERROR_INVALID_PARAM
    # Pitches whose span does not fit in an address, huge and negative sizes, NULL, bad kinds.
    assert rt.memcpy2d(dev, 1 << 63, src_ptr, SPITCH, W, 3, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d(dev, DPITCH, src_ptr, -1, W, 3, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d(dev, DPITCH, src_ptr, SPITCH, 2**64 - 1, H, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d(0, DPITCH, src_ptr, SPITCH, W, H, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d(dev, 8, src_ptr, SPITCH, W, H, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d(dev, DPITCH, src_ptr, SPITCH, W, H, acl.ACL_MEMCPY_DEVICE_TO_DEVICE) \
        == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d_async(dev, DPITCH, src_ptr, SPITCH, W, H, h2d, 12345) \
        == E.ACL_ERROR_RT_INVALID_HANDLE
    # Freed device memory.
    assert rt.free(dev) == 0
    assert rt.memcpy2d(dev, DPITCH, src_ptr, SPITCH, W, H, h2d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy2d_async(dev, DPITCH, src_ptr, SPITCH, W, H, h2d, stream) \
        == E.ACL_ERROR_INVALID_PARAM
    assert rt.synchronize_stream(stream) == 0


def test_malloc_with_cfg():
    ptr, ret = rt.malloc_with_cfg(100, acl.ACL_MEM_MALLOC_HUGE_FIRST, {})
    assert ret == 0 and ptr != 0
    assert rt.free(ptr) == 0
    cfg = {"numAttrs": 2, "attrs": [
        {"attr": acl.ACL_RT_MEM_ATTR_DEVICE_ID, "value": {"deviceId": 0}},
        {"attr": acl.ACL_RT_MEM_ATTR_MODULE_ID, "value": {"moduleId": 7}},
    ]}
    ptr, ret = rt.malloc_with_cfg(100, 0, cfg)
    assert ret == 0 and ptr != 0
    assert rt.free(ptr) == 0
    other = {"numAttrs": 1, "attrs": [{"attr": acl.ACL_RT_MEM_ATTR_DEVICE_ID,
                                       "value": {"deviceId": 3}}]}
    assert rt.malloc_with_cfg(100, 0, other) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    va = {"numAttrs": 1, "attrs": [{"attr": acl.ACL_RT_MEM_ATTR_VA_FLAG, "value": {"rsv": [1]}}]}
    assert rt.malloc_with_cfg(100, 0, va) == (0, E.ACL_ERROR_INVALID_PARAM)
    rsv = {"numAttrs": 1, "attrs": [{"attr": acl.ACL_RT_MEM_ATTR_RSV, "value": {"rsv": []}}]}
    assert rt.malloc_with_cfg(100, 0, rsv) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.malloc_with_cfg(0, 0, {}) == (0, E.ACL_ERROR_INVALID_PARAM)


@pytest.mark.parametrize("cfg, error, text", [
    ([], TypeError, "pyCfg is not dict!"),
    ({"numAttrs": 1}, TypeError, "the aclrtMallocAttrValue argument is not dict"),
    ({"numAttrs": 2, "attrs": [{"attr": 1, "value": {"moduleId": 1}}]}, KeyError,
     "'The numAttrs inputed does not match the expected numAttrs'"),
    ({"numAttrs": 1, "attrs": [{"attr": 1, "value": {}}]}, KeyError,
     "'No valid key found in aclrtMallocAttrValue'"),
    ({"numAttrs": 1, "attrs": [5]}, TypeError, "the aclrtMallocWithCfg argument is not dict"),
    ({"numAttrs": 1, "attrs": [{"attr": 1, "value": 3}]}, TypeError,
     "the aclrtMallocAttrValue argument is not dict"),
    ({"numAttrs": 1, "attrs": [{"attr": 1, "value": {"moduleId": -1}}]}, ValueError,
     "PyLong_AsUnsignedLong failed"),
])
def test_malloc_with_cfg_dict_errors(cfg, error, text):
    with pytest.raises(error) as info:
        rt.malloc_with_cfg(100, 0, cfg)
    assert str(info.value) == text


def test_mem_get_allocation_granularity():
    prop = {"handleType": 0, "allocationType": 0, "memAttr": acl.ACL_HBM_MEM_HUGE,
            "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE}, "reserve": 0}
    minimum = acl.ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM
    assert rt.mem_get_allocation_granularity(prop, minimum) == (2 << 20, 0)
    huge1g = dict(prop, memAttr=acl.ACL_HBM_MEM_HUGE1G)
    assert rt.mem_get_allocation_granularity(huge1g, acl.ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) \
        == (1 << 30, 0)
    assert rt.mem_get_allocation_granularity({}, minimum) == (2 << 20, 0)
    assert rt.mem_get_allocation_granularity(prop, 9) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.mem_get_allocation_granularity(dict(prop, memAttr=999), minimum) \
        == (0, E.ACL_ERROR_INVALID_PARAM)
    with pytest.raises(TypeError) as info:
        rt.mem_get_allocation_granularity([], minimum)
    assert str(info.value) == "the aclrtPhysicalMemProp argument is not dict"
    with pytest.raises(TypeError) as info:
        rt.mem_get_allocation_granularity(dict(prop, location=1), minimum)
    assert str(info.value) == "the aclrtMemLocation argument is not dict"

"""pyACL's device-attribute, peer-access, stream, notify, value and allocation calls: success
and error paths with exact codes."""

import pytest

import acl
from acl import rt

E = acl


def test_soc_name_and_device_capability():
    assert acl.get_soc_name() == "Ascend910B3"
    assert acl.get_device_capability(0, acl.ACL_DEVICE_INFO_AI_CORE_NUM) == (20, 0)
    assert acl.get_device_capability(0, acl.ACL_DEVICE_INFO_L2_SIZE) == (201326592, 0)
    assert acl.get_device_capability(0, 99) == (0, E.ACL_ERROR_INVALID_PARAM)


def test_device_info_and_feature():
    assert rt.get_device_info(0, acl.ACL_DEV_ATTR_AICORE_CORE_NUM) == (20, 0)
    assert rt.get_device_info(0, acl.ACL_DEV_ATTR_AICPU_CORE_NUM) == (6, 0)
    assert rt.get_device_info(5, acl.ACL_DEV_ATTR_AICORE_CORE_NUM) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.get_device_capability(0, acl.ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV) == (
        acl.ACL_DEV_FEATURE_NOT_SUPPORT, 0)
    assert rt.get_device_capability(0, 12345) == (0, E.ACL_ERROR_RT_PARAM_INVALID)


def test_priority_range_and_uuid():
    assert rt.device_get_stream_priority_range() == (7, 0, 0)
    uuid, ret = rt.device_get_uuid(0)
    assert ret == 0
    assert uuid == {"bytes": list(b"aclrt-emu") + [0] * 7}
    assert rt.device_get_uuid(9) == ({"bytes": [0] * 16}, E.ACL_ERROR_RT_INVALID_DEVICEID)


def test_peer_access_on_a_single_device():
    # The test process has one emulated device: every peer id is out of range, the same id is
    # refused by the rule itself.
    assert rt.device_can_access_peer(0, 1) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.device_can_access_peer(0, 0) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.device_peer_access_status(0, 0) == (0, 0)
    assert rt.device_peer_access_status(0, 1) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.device_enable_peer_access(1, 0) == E.ACL_ERROR_RT_INVALID_DEVICEID
    assert rt.device_disable_peer_access(1) == E.ACL_ERROR_RT_INVALID_DEVICEID


def test_default_stream_and_available_streams(stream):
    default, ret = rt.ctx_get_current_default_stream()
    assert ret == 0 and default != 0
    assert rt.synchronize_stream(default) == 0
    count, ret = rt.get_stream_available_num()
    assert ret == 0
    s2, _ = rt.create_stream()
    assert rt.get_stream_available_num() == (count - 1, 0)
    assert rt.destroy_stream(s2) == 0


def test_stream_abort(stream):
    assert rt.stream_abort(stream) == 0
    # Work the abort discarded is reported to the next synchronisation.
    assert rt.synchronize_stream(stream) == E.ACL_ERROR_RT_STREAM_ABORT
    assert rt.stream_abort(0xDEAD) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_device_task_abort(stream):
    assert rt.device_task_abort(0, 0) == 0
    # Every stream of the device reports the abort to its next synchronisation, once.
    assert rt.synchronize_stream(stream) == E.ACL_ERROR_RT_STREAM_ABORT
    assert rt.synchronize_stream(stream) == 0
    default, ret = rt.ctx_get_current_default_stream()
    assert ret == 0
    assert rt.synchronize_stream(default) == E.ACL_ERROR_RT_STREAM_ABORT
    assert rt.synchronize_device() == 0
    assert rt.device_task_abort(0, 36 * 60 * 1000 + 1) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.device_task_abort(1, 0) == E.ACL_ERROR_RT_INVALID_DEVICEID


def test_devices_topo_and_ts_device():
    assert rt.get_devices_topo(0, 0) == (acl.ACL_RT_DEVS_TOPOLOGY_HCCS, 0)
    assert rt.get_devices_topo(0, 1) == (0, E.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.set_ts_device(acl.ACL_TS_ID_AICORE) == 0
    assert rt.set_ts_device(acl.ACL_TS_ID_AIVECTOR) == 0
    assert rt.set_ts_device(acl.ACL_TS_ID_RESERVED) == E.ACL_ERROR_INVALID_PARAM


def test_cmo_async(stream):
    dev, ret = rt.malloc(256, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    for kind in (acl.ACL_RT_CMO_TYPE_PREFETCH, acl.ACL_RT_CMO_TYPE_WRITEBACK,
                 acl.ACL_RT_CMO_TYPE_INVALID, acl.ACL_RT_CMO_TYPE_FLUSH):
        assert rt.cmo_async(dev, 256, kind, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert rt.cmo_async(0, 256, acl.ACL_RT_CMO_TYPE_PREFETCH, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.cmo_async(dev, 0, acl.ACL_RT_CMO_TYPE_PREFETCH, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.cmo_async(dev, 256, 4, stream) == E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert rt.cmo_async(dev, 257, acl.ACL_RT_CMO_TYPE_PREFETCH, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.free(dev) == 0


def test_notify_round_trip(stream):
    notify, ret = rt.create_notify(0)
    assert ret == 0 and notify != 0
    nid, ret = rt.get_notify_id(notify)
    assert ret == 0 and nid >= 0
    assert rt.record_notify(notify, stream) == 0
    assert rt.wait_and_reset_notify(notify, stream, 5) == 0
    assert rt.synchronize_stream(stream) == 0
    assert rt.notify_batch_reset([notify]) == 0
    assert rt.destroy_notify(notify) == 0
    assert rt.get_notify_id(notify) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.record_notify(notify, stream) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.notify_batch_reset([notify]) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_notify_argument_checks_use_pyacls_texts(stream):
    notify, _ = rt.create_notify(0)
    try:
        with pytest.raises(TypeError) as info:
            rt.wait_and_reset_notify(notify, stream, -1)
        assert str(info.value) == "timeout can't be a negative number!"
        with pytest.raises(TypeError) as info:
            rt.wait_and_reset_notify(notify, stream, 2**32)
        assert str(info.value) == "timeout should be less than 2**32!"
        with pytest.raises(ValueError) as info:
            rt.notify_batch_reset((notify,))
        assert str(info.value) == "argument only support the format of list"
        with pytest.raises(ValueError) as info:
            rt.notify_batch_reset([notify, "x"])
        assert str(info.value) == "get notify pointers from PyList failed"
        with pytest.raises(TypeError) as info:
            rt.create_notify()
        assert str(info.value) == "acl.rt.create_notify args parse failed"
    finally:
        assert rt.destroy_notify(notify) == 0


def test_value_write_and_wait(stream):
    ptr, ret = rt.malloc(64, 0)
    assert ret == 0
    try:
        assert rt.value_write(ptr, 7, 0, stream) == 0
        assert rt.value_wait(ptr, 7, acl.ACL_STREAM_WAIT_VALUE_GEQ, stream) == 0
        assert rt.synchronize_stream(stream) == 0
        host, _ = rt.malloc_host(8)
        assert rt.memcpy(host, 8, ptr, 8, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
        assert int.from_bytes(acl.util.ptr_to_bytes(host, 8), "little") == 7
        assert rt.free_host(host) == 0
        assert rt.value_write(ptr, 7, 1, stream) == E.ACL_ERROR_INVALID_PARAM
        assert rt.value_write(ptr + 4, 7, 0, stream) == E.ACL_ERROR_RT_ADDR_UNALIGNED
        assert rt.value_wait(ptr, 7, 99, stream) == E.ACL_ERROR_INVALID_PARAM
    finally:
        assert rt.free(ptr) == 0


def test_allocation_variants():
    ptr, ret = rt.malloc_align32(100, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0 and ptr % 64 == 0
    assert rt.mem_flush(ptr, 100) == 0
    assert rt.mem_invalidate(ptr, 100) == 0
    assert rt.mem_flush(ptr, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.mem_invalidate(0, 100) == E.ACL_ERROR_INVALID_PARAM
    attrs, ret = rt.pointer_get_attributes(ptr)
    assert ret == 0
    assert attrs == {"location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
                     "page_size": attrs["page_size"], "rsv": [0, 0, 0, 0]}
    assert attrs["page_size"] >= 4096
    assert rt.free(ptr) == 0
    cached, ret = rt.malloc_cached(10, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    assert ret == 0 and cached != 0
    assert rt.free(cached) == 0
    assert rt.malloc_cached(10, 99) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.malloc_align32(0, 0) == (0, E.ACL_ERROR_INVALID_PARAM)

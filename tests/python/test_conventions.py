"""pyACL calling conventions: return shapes, int handling, None and type refusal, constants."""

import pytest

import acl
from acl import rt

# Every rt function that takes arguments, with valid-looking ints for each parameter.
INT_ARGS = {
    "set_device": 1,
    "reset_device": 1,
    "create_context": 1,
    "destroy_context": 1,
    "set_context": 1,
    "create_stream_with_config": 2,
    "destroy_stream": 1,
    "destroy_stream_force": 1,
    "synchronize_stream": 1,
    "synchronize_stream_with_timeout": 2,
    "stream_query": 1,
    "stream_get_id": 1,
    "set_stream_failure_mode": 2,
    "synchronize_device_with_timeout": 1,
    "create_event_with_flag": 1,
    "create_event_ex_with_flag": 1,
    "destroy_event": 1,
    "record_event": 2,
    "reset_event": 2,
    "query_event": 1,
    "query_event_status": 1,
    "query_event_wait_status": 1,
    "synchronize_event": 1,
    "synchronize_event_with_timeout": 2,
    "event_elapsed_time": 2,
    "event_get_timestamp": 1,
    "stream_wait_event": 2,
    "stream_wait_event_with_timeout": 3,
    "get_event_id": 1,
    "subscribe_report": 2,
    "unsubscribe_report": 2,
    "process_report": 1,
    "get_task_id_from_exception_info": 1,
    "get_stream_id_from_exception_info": 1,
    "get_thread_id_from_exception_info": 1,
    "get_device_id_from_exception_info": 1,
    "get_error_code_from_exception_info": 1,
    "malloc": 2,
    "malloc_host": 1,
    "free": 1,
    "free_host": 1,
    "memcpy": 5,
    "memcpy_async": 6,
    "memset": 4,
    "memset_async": 5,
    "get_mem_info": 1,
}


# The calls whose parse failure pyACL words with a trailing "!".
BANG = {
    "set_stream_failure_mode",
    "stream_query",
    "synchronize_event_with_timeout",
    "synchronize_device_with_timeout",
}


@pytest.mark.parametrize("name,arity", sorted(INT_ARGS.items()))
def test_none_is_refused_with_type_error_in_every_position(name, arity):
    fn = getattr(rt, name)
    if name == "get_event_id":
        expected = "argument 1 must be int, not None"
    else:
        expected = f"acl.rt.{name} args parse failed" + ("!" if name in BANG else "")
    for pos in range(arity):
        args = [0] * arity
        args[pos] = None
        with pytest.raises(TypeError) as info:
            fn(*args)
        assert str(info.value) == expected


@pytest.mark.parametrize("bad", [1.5, "0", b"0", [0]])
def test_non_int_handles_are_refused(bad):
    with pytest.raises(TypeError):
        rt.synchronize_stream(bad)
    with pytest.raises(TypeError):
        rt.record_event(bad, 0)


def test_callables_are_required():
    with pytest.raises(TypeError):
        rt.launch_callback(None, 0, 0, 0)
    with pytest.raises(TypeError):
        rt.launch_callback(42, 0, 0, 0)
    with pytest.raises(TypeError):
        acl.util.start_thread("not callable", None)
    with pytest.raises(TypeError):
        acl.ext.launch_host_kernel(None, None, 0)
    with pytest.raises(TypeError):
        rt.set_exception_info_callback(3)


def test_negative_ints_pass_through_as_codes():
    assert rt.synchronize_stream_with_timeout(0, -5) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert rt.synchronize_device_with_timeout(-2) == acl.ACL_ERROR_RT_PARAM_INVALID
    # Event 0 is NULL, as in C: the NULL check comes before the timeout check.
    assert rt.synchronize_event_with_timeout(0, -3) == acl.ACL_ERROR_INVALID_PARAM
    assert rt.set_device(-1) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert rt.process_report(-9) == acl.ACL_ERROR_INVALID_PARAM
    ev, ret = rt.create_event_with_flag(-1)
    assert (ev, ret) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.launch_callback(print, None, -1, 0) == acl.ACL_ERROR_INVALID_PARAM
    assert rt.destroy_stream(-1) == acl.ACL_ERROR_RT_INVALID_HANDLE


def test_huge_ints_never_overflow():
    assert rt.synchronize_stream(2**100) == acl.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.destroy_event(-(2**80)) == acl.ACL_ERROR_RT_INVALID_HANDLE
    _, ret = rt.create_event_with_flag(2**64 + 0x40)
    assert ret == 0 or ret == acl.ACL_ERROR_RT_PARAM_INVALID


def test_bool_is_an_int_as_in_python():
    assert rt.synchronize_stream(False) == 0


def test_value_calls_return_value_ret_tuples():
    for call in (rt.get_device, rt.get_device_count, rt.get_context, rt.get_event_avail_num):
        out = call()
        assert isinstance(out, tuple) and len(out) == 2 and out[1] == 0
    s, ret = rt.create_stream()
    assert ret == 0 and isinstance(s, int) and s > 0
    status, ret = rt.stream_query(s)
    assert (status, ret) == (acl.ACL_STREAM_STATUS_COMPLETE, 0)
    assert rt.destroy_stream(s) == 0


def test_failed_value_calls_return_zero_value():
    assert rt.stream_query(12345) == (0, acl.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.create_context(77) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)
    assert rt.event_elapsed_time(1, 2) == (0.0, acl.ACL_ERROR_RT_INVALID_HANDLE)


def test_zero_is_the_default_stream():
    assert rt.synchronize_stream(0) == 0
    status, ret = rt.stream_query(0)
    assert ret == 0 and status == acl.ACL_STREAM_STATUS_COMPLETE
    task, ret = acl.ext.launch_host_kernel(lambda a: None, None, 0)
    assert ret == 0 and task >= 0
    assert rt.synchronize_stream(0) == 0


def test_official_constant_values():
    expected = {
        "ACL_SUCCESS": 0,
        "ACL_EVENT_SYNC": 0x1,
        "ACL_EVENT_CAPTURE_STREAM_PROGRESS": 0x2,
        "ACL_EVENT_TIME_LINE": 0x8,
        "ACL_EVENT_DEVICE_USE_ONLY": 0x10,
        "ACL_EVENT_EXTERNAL": 0x20,
        "ACL_EVENT_IPC": 0x40,
        "ACL_CALLBACK_NO_BLOCK": 0,
        "ACL_CALLBACK_BLOCK": 1,
        "ACL_MEMCPY_HOST_TO_HOST": 0,
        "ACL_MEMCPY_HOST_TO_DEVICE": 1,
        "ACL_MEMCPY_DEVICE_TO_HOST": 2,
        "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
        "ACL_MEM_MALLOC_HUGE_FIRST": 0,
        "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
        "ACL_STREAM_FAST_SYNC": 2,
        "ACL_STOP_ON_FAILURE": 1,
        "ACL_EVENT_RECORDED_STATUS_COMPLETE": 1,
        "ACL_EVENT_STATUS_COMPLETE": 0,
        "ACL_ERROR_INVALID_PARAM": 100000,
        "ACL_ERROR_UNINITIALIZE": 100001,
        "ACL_ERROR_REPEAT_INITIALIZE": 100002,
        "ACL_ERROR_REPEAT_FINALIZE": 100037,
        "ACL_ERROR_RT_PARAM_INVALID": 107000,
        "ACL_ERROR_RT_CONTEXT_NULL": 107002,
        "ACL_ERROR_RT_STREAM_NO_CB_REG": 107015,
        "ACL_ERROR_RT_INVALID_HANDLE": 107017,
        "ACL_ERROR_RT_FEATURE_NOT_SUPPORT": 207000,
        "ACL_ERROR_RT_AICORE_EXCEPTION": 507015,
        "ACL_ERROR_RT_REPORT_TIMEOUT": 507012,
        "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT": 507046,
        "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT": 507047,
    }
    for name, value in expected.items():
        assert getattr(acl, name) == value, name
        assert getattr(acl.constants, name) == value, name


def test_every_error_constant_agrees_with_the_runtime_table():
    names = [n for n in dir(acl.constants) if n.startswith("ACL_ERROR_")]
    assert len(names) > 150
    for n in names:
        value = getattr(acl.constants, n)
        primary = acl.ext.error_name(value)
        assert primary is not None, n
        assert getattr(acl.constants, primary) == value, n
    runtime = {getattr(acl.constants, n) for n in names if n.startswith("ACL_ERROR_RT")}
    assert {107000, 107017, 207000, 207008, 507000, 507047} <= runtime


def test_error_names_for_codes():
    assert acl.ext.error_name(107017) == "ACL_ERROR_RT_INVALID_HANDLE"
    assert acl.ext.error_name(123456789) is None
    assert acl.ext.error_description(100001)


def test_submodules_import_like_packages():
    import acl.rt as r
    from acl import util

    assert r is acl.rt and util is acl.util
    assert r.__name__ == "acl.rt"

"""Wrong arguments raise pyACL's exceptions, word for word: one `TypeError` naming the call
(`acl.rt.set_device args parse failed`) whether an argument is missing, extra or of the wrong
type; calls without parameters ignore extra arguments; a few calls keep pyACL's own texts."""

import pytest

import acl
from acl import rt, util


def message(fn, *args, **kwargs):
    with pytest.raises(TypeError) as info:
        fn(*args, **kwargs)
    assert type(info.value) is TypeError
    return str(info.value)


@pytest.mark.parametrize("args", [(), (0, 0), ("0",), (1.5,), (None,), (b"0",), ([0],)])
def test_count_and_type_errors_read_the_same(args):
    assert message(rt.set_device, *args) == "acl.rt.set_device args parse failed"


def test_every_module_names_the_call():
    assert message(acl.init, 1) == "acl.init args parse failed"
    assert message(acl.create_data_buffer, 0) == "acl.create_data_buffer args parse failed"
    assert message(acl.app_log, "x", "y") == "acl.app_log args parse failed"
    assert message(acl.float_to_float16, "1") == "acl.float_to_float16 args parse failed"
    assert message(rt.malloc, 64) == "acl.rt.malloc args parse failed"
    assert message(rt.memcpy, 0, 0, 0, 0) == "acl.rt.memcpy args parse failed"
    assert message(rt.memcpy_async, 0, 0, 0, 0, 0, "s") == "acl.rt.memcpy_async args parse failed"
    assert message(rt.record_event, 0) == "acl.rt.record_event args parse failed"
    assert message(rt.process_report) == "acl.rt.process_report args parse failed"
    assert message(util.stop_thread, "t") == "acl.util.stop_thread args parse failed"
    assert message(util.ptr_to_bytes, 0) == "acl.util.ptr_to_bytes args parse failed"
    assert message(util.bytes_to_ptr) == "acl.util.bytes_to_ptr args parse failed"
    assert message(acl.media.dvpp_free) == "acl.media.dvpp_free args parse failed"


def test_some_calls_end_with_an_exclamation_mark():
    assert message(rt.stream_query) == "acl.rt.stream_query args parse failed!"
    assert message(rt.set_stream_failure_mode, 0) == "acl.rt.set_stream_failure_mode args parse failed!"
    assert message(rt.synchronize_event_with_timeout, 0) == (
        "acl.rt.synchronize_event_with_timeout args parse failed!"
    )
    assert message(rt.synchronize_device_with_timeout, "1") == (
        "acl.rt.synchronize_device_with_timeout args parse failed!"
    )
    assert message(rt.get_last_error, "x") == "acl.rt.get_last_error args parse failed!"
    assert message(rt.peek_at_last_error, 1.5) == "acl.rt.peek_at_last_error args parse failed!"
    assert message(acl.media.dvpp_malloc) == "acl.media.dvpp_malloc args parse failed!"


def test_get_event_id_raises_pythons_own_texts():
    assert message(rt.get_event_id) == "function takes exactly 1 argument (0 given)"
    assert message(rt.get_event_id, 0, 0) == "function takes exactly 1 argument (2 given)"
    assert message(rt.get_event_id, "e") == "argument 1 must be int, not str"
    assert message(rt.get_event_id, None) == "argument 1 must be int, not None"


def test_callables_are_checked_after_the_arguments():
    assert message(rt.launch_callback, 42, None, 0, 0) == "parameter must be callable"
    assert message(rt.launch_callback, print, None, 0) == "acl.rt.launch_callback args parse failed"
    assert message(rt.launch_callback, 42, None, "0", 0) == "acl.rt.launch_callback args parse failed"
    assert message(rt.set_exception_info_callback, 3) == (
        "acl.rt.set_exception_info_callback args parse failed"
    )
    assert message(util.start_thread, print) == "function takes exactly 2 arguments (1 given)"
    assert message(util.start_thread, 3, None) == "parameter must be callable"


def test_calls_without_parameters_ignore_arguments():
    assert rt.get_device(1, "x", None) == rt.get_device()
    assert rt.get_run_mode(5) == (acl.ACL_HOST, 0)
    assert rt.get_device_count(None) == rt.get_device_count()


def test_value_errors_keep_their_text():
    with pytest.raises(ValueError, match=r"^needs an byte as argument"):
        util.bytes_to_ptr("text")


def test_functions_keep_their_names_and_signatures():
    import inspect

    assert rt.memcpy.__name__ == "memcpy"
    assert rt.memcpy.__module__ == "acl.rt"
    assert str(inspect.signature(rt.memcpy)) == "(dst, dest_max, src, count, kind)"
    assert str(inspect.signature(acl.app_log)) == "(log_level, message)"

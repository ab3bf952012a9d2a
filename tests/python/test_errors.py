"""Error state: recent message, last error, and the process lifecycle (in child interpreters)."""

import acl
from acl import rt
from conftest import run_child


def test_recent_message_is_returned_once():
    assert rt.destroy_stream(999) == acl.ACL_ERROR_RT_INVALID_HANDLE
    msg = acl.get_recent_err_msg()
    assert msg and "not a live stream" in msg
    assert acl.get_recent_err_msg() is None


def test_last_error_peek_and_get():
    assert rt.get_last_error() == 0
    assert rt.record_event(5, 0) == acl.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.peek_at_last_error() == acl.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.peek_at_last_error(acl.ACL_RT_THREAD_LEVEL) == acl.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.get_last_error(0) == acl.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.get_last_error() == 0
    # Successful calls leave it alone.
    assert rt.set_device(99) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert rt.synchronize_device() == 0
    assert rt.get_last_error() == acl.ACL_ERROR_RT_INVALID_DEVICEID


def test_error_state_is_per_thread():
    import threading

    assert rt.set_device(99) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    seen = []
    t = threading.Thread(target=lambda: seen.append((rt.peek_at_last_error(), acl.get_recent_err_msg())))
    t.start()
    t.join()
    assert seen == [(0, None)]
    assert rt.get_last_error() == acl.ACL_ERROR_RT_INVALID_DEVICEID


def test_repeat_init_counts():
    assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE


def test_lifecycle_in_a_fresh_process():
    run_child(
        """
        import acl
        from acl import rt
        assert acl.finalize() == acl.ACL_ERROR_REPEAT_FINALIZE
        assert rt.set_device(0) == acl.ACL_ERROR_UNINITIALIZE
        assert rt.create_stream() == (0, acl.ACL_ERROR_UNINITIALIZE)
        assert rt.synchronize_stream(0) == acl.ACL_ERROR_UNINITIALIZE
        assert rt.process_report(10) == acl.ACL_ERROR_UNINITIALIZE
        assert acl.init("/definitely/not/here.json") == acl.ACL_ERROR_INVALID_FILE
        assert "not a readable file" in acl.get_recent_err_msg()
        assert acl.init() == 0
        assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
        assert rt.set_device(0) == 0
        s, ret = rt.create_stream()
        assert ret == 0
        assert acl.finalize() == 0
        assert acl.finalize() == acl.ACL_ERROR_REPEAT_FINALIZE
        assert rt.synchronize_stream(s) == acl.ACL_ERROR_UNINITIALIZE
        assert acl.init() == 0
        assert rt.set_device(0) == 0
        assert rt.synchronize_stream(s) == acl.ACL_ERROR_RT_INVALID_HANDLE
        assert rt.reset_device(0) == 0
        assert rt.reset_device(0) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
        assert acl.finalize() == 0
        print("ok")
        """
    )


def test_config_file_that_exists_is_accepted(tmp_path):
    cfg = tmp_path / "acl.json"
    cfg.write_text("{}")
    run_child(
        f"""
        import acl
        assert acl.init({str(cfg)!r}) == 0
        assert acl.finalize() == 0
        """
    )


def test_exit_with_pending_python_work_is_clean():
    proc = run_child(
        """
        import acl, time
        acl.init(); acl.rt.set_device(0)
        s, _ = acl.rt.create_stream()
        for _ in range(5):
            acl.ext.launch_host_kernel(lambda a: time.sleep(0.05), None, s)
        print("leaving")
        """
    )
    assert "leaving" in proc.stdout

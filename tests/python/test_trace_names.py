"""Stream and thread names in traces: ``acl.ext.set_stream_name`` names a stream's track, and a
host thread's track carries the thread's OS name."""

import json
import os

import pytest

import acl

from conftest import run_child


def test_set_stream_name_validates_like_other_stream_calls(stream):
    assert acl.ext.set_stream_name(stream, "load") == 0
    assert acl.ext.set_stream_name(stream, "") == 0  # removes the name
    assert acl.ext.set_stream_name(0, "default") == 0
    assert acl.ext.set_stream_name(0x7777_0000_0001, "x") == acl.ACL_ERROR_RT_INVALID_HANDLE
    gone, ret = acl.rt.create_stream()
    assert ret == 0
    assert acl.rt.destroy_stream(gone) == 0
    assert acl.ext.set_stream_name(gone, "gone") == acl.ACL_ERROR_RT_INVALID_HANDLE
    with pytest.raises(TypeError):
        acl.ext.set_stream_name(stream, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        acl.ext.set_stream_name(None, "x")  # type: ignore[arg-type]


def test_uninitialised_set_stream_name_fails():
    run_child(
        """
        import acl
        assert acl.ext.set_stream_name(0, "x") == acl.ACL_ERROR_UNINITIALIZE
        """
    )


def test_names_appear_in_the_written_trace(tmp_path):
    path = tmp_path / "names.json"
    env_before = os.environ.get("ACLRT_TRACE")
    os.environ["ACLRT_TRACE"] = str(path)
    try:
        proc = run_child(
            """
            import ctypes, sys, threading, time
            import acl

            def os_name(name):
                # Python 3.14 names the OS thread after threading.Thread's name itself.
                if sys.version_info < (3, 14):
                    libc = ctypes.CDLL(None)
                    libc.pthread_setname_np(ctypes.c_ulong(threading.get_ident()), name.encode())

            stop = False
            def report():
                os_name(threading.current_thread().name)
                while not stop:
                    acl.rt.process_report(20)

            assert acl.init() == 0
            assert acl.rt.set_device(0) == 0
            load, ret = acl.rt.create_stream()
            store, ret = acl.rt.create_stream()
            assert acl.ext.set_stream_name(load, "load") == 0
            assert acl.ext.set_stream_name(store, "store") == 0
            reporter = threading.Thread(target=report, name="reporter")
            reporter.start()
            assert acl.rt.subscribe_report(reporter.ident, store) == 0
            acl.ext.launch_host_kernel(lambda _: time.sleep(0.002), None, load, name="fill")
            assert acl.rt.launch_callback(lambda _: None, None, acl.ACL_CALLBACK_BLOCK, store) == 0
            assert acl.rt.synchronize_device() == 0
            assert acl.rt.unsubscribe_report(reporter.ident, store) == 0
            stop = True
            reporter.join()
            load_id, _ = acl.rt.stream_get_id(load)
            store_id, _ = acl.rt.stream_get_id(store)
            print(load_id, store_id, reporter.native_id)
            acl.rt.destroy_stream(load)
            acl.rt.destroy_stream(store)
            acl.rt.reset_device(0)
            assert acl.finalize() == 0
            """
        )
    finally:
        if env_before is None:
            del os.environ["ACLRT_TRACE"]
        else:
            os.environ["ACLRT_TRACE"] = env_before
    load_id, store_id, reporter_tid = (int(v) for v in proc.stdout.split())
    events = json.loads(path.read_text())["traceEvents"]
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e["ph"] == "M" and e["name"] == "thread_name"
    }
    assert names[(0, load_id)] == f"load (stream {load_id})"
    assert names[(0, store_id)] == f"store (stream {store_id})"
    host = json.loads(path.read_text())["otherData"]["host_pid"]
    assert names[(host, reporter_tid)] == f"reporter ({reporter_tid})"
    # The slices on the named tracks are the program's.
    fill = [e for e in events if e["ph"] == "X" and e["name"] == "fill"]
    assert [(e["pid"], e["tid"]) for e in fill] == [(0, load_id)]

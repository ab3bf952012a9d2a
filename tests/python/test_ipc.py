"""IPC events and IPC notifies from Python: handles and keys, the vendor's restrictions, and
one event and one notify shared with a child interpreter, sequenced through its pipes."""

import os
import subprocess
import sys
import tempfile
import textwrap
import threading

import acl
from acl import rt

PAYLOAD = "written-before-the-record"

CHILD = textwrap.dedent(
    """
    import sys
    import acl
    from acl import rt
    assert acl.init() == 0 and rt.set_device(0) == 0
    s, ret = rt.create_stream()
    kind, name, path = sys.stdin.readline().split()
    if kind == "event":
        ev, ret = rt.ipc_open_event_handle(bytes.fromhex(name))
        assert ret == 0, ret
        assert rt.stream_wait_event(s, ev) == 0
    else:
        n, ret = rt.notify_import_by_key(name, 0)
        assert ret == 0, ret
    print("ready", flush=True)
    if kind == "event":
        sync = rt.synchronize_stream(s)
        print("read", sync, open(path).read(), flush=True)
        assert rt.destroy_event(ev) == 0
    else:
        with open(path, "w") as f:
            f.write(sys.argv[1])
        assert rt.record_notify(n, s) == 0
        print("recorded", rt.synchronize_stream(s), flush=True)
        assert rt.destroy_notify(n) == 0
    """
)


def spawn():
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, PAYLOAD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_an_ipc_event_orders_a_child_process_behind_this_ones_record(stream):
    ev, ret = rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC)
    assert ret == 0
    handle, ret = rt.ipc_get_event_handle(ev)
    assert ret == 0 and len(handle) == 64
    fd, path = tempfile.mkstemp(prefix="aclrt-ipc-py-")
    os.close(fd)
    gate = threading.Event()

    def produce(_):
        gate.wait()
        with open(path, "w") as f:
            f.write(PAYLOAD)

    assert rt.launch_host_func(stream, produce, None) == 0
    assert rt.record_event(ev, stream) == 0
    child = spawn()
    child.stdin.write(f"event {handle.hex()} {path}\n")
    child.stdin.flush()
    assert child.stdout.readline().split() == ["ready"]
    gate.set()
    assert child.stdout.readline().split() == ["read", "0", PAYLOAD]
    assert child.wait() == 0
    assert rt.synchronize_stream(stream) == 0
    assert rt.destroy_event(ev) == 0
    os.unlink(path)


def test_a_notify_shared_by_key_releases_this_processes_wait(stream):
    n, ret = rt.create_notify(0)
    assert ret == 0
    key, ret = rt.notify_get_export_key(n, acl.ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    assert ret == 0 and key
    fd, path = tempfile.mkstemp(prefix="aclrt-ipc-py-")
    os.close(fd)
    seen = []
    assert rt.wait_and_reset_notify(n, stream, 0) == 0
    assert rt.launch_host_func(stream, lambda _: seen.append(open(path).read()), None) == 0
    child = spawn()
    child.stdin.write(f"notify {key} {path}\n")
    child.stdin.flush()
    assert child.stdout.readline().split() == ["ready"]
    assert child.stdout.readline().split() == ["recorded", "0"]
    assert child.wait() == 0
    assert rt.synchronize_stream(stream) == 0
    assert seen == [PAYLOAD]
    assert rt.destroy_notify(n) == 0
    os.unlink(path)


def test_ipc_events_refuse_reset_and_ids_and_foreign_handles(stream):
    ev, ret = rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC)
    assert ret == 0
    assert rt.reset_event(ev, stream) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert rt.get_event_id(ev) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    plain, ret = rt.create_event()
    assert rt.ipc_get_event_handle(plain) == (b"", acl.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.ipc_open_event_handle(bytes(64)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    try:
        rt.ipc_open_event_handle(b"short")
        raise AssertionError("a short handle was taken")
    except ValueError as e:
        assert "64 bytes" in str(e)
    handle, ret = rt.ipc_get_event_handle(ev)
    opened, ret = rt.ipc_open_event_handle(bytearray(handle))
    assert ret == 0 and opened != ev
    assert rt.ipc_get_event_handle(opened) == (handle, 0)
    for e in (opened, ev, plain):
        assert rt.destroy_event(e) == 0


def test_notify_export_checks_and_the_allow_list():
    n, ret = rt.create_notify(0)
    assert ret == 0
    assert rt.notify_set_import_pid(n, [os.getpid()]) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert rt.notify_get_export_key(n, 1) == ("", acl.ACL_ERROR_RT_PARAM_INVALID)
    key, ret = rt.notify_get_export_key(n, acl.ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT)
    assert ret == 0
    assert rt.notify_set_import_pid(n, []) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert rt.notify_set_import_pid(n, [os.getpid()]) == 0
    assert rt.notify_import_by_key("name", 0) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    imported, ret = rt.notify_import_by_key(key, 0)
    assert ret == 0 and imported != n
    assert rt.destroy_notify(imported) == 0
    assert rt.destroy_notify(n) == 0
    assert rt.notify_import_by_key(key, 0) == (0, acl.ACL_ERROR_RT_IPC_ERROR)

"""End-to-end behaviour: callbacks holding streams, event ordering, timing, exceptions, threads."""

import sys
import threading
import time

import acl
from acl import rt, util

E = acl


def subscribed_loop(stream):
    """pyACL's callback-thread idiom: util.start_thread running process_report in a loop."""
    state = {"run": True, "threads": set()}

    def loop(st):
        while st["run"]:
            st["threads"].add(threading.get_ident())
            rt.process_report(20)

    tid, ret = util.start_thread(loop, state)
    assert ret == 0
    assert rt.subscribe_report(tid, stream) == 0

    def stop():
        assert rt.unsubscribe_report(tid, stream) == 0
        state["run"] = False
        assert util.stop_thread(tid) == 0

    return tid, state, stop


def test_blocking_callback_holds_the_stream_for_its_duration(stream):
    tid, _, stop = subscribed_loop(stream)
    calls = []

    def cb(data):
        calls.append((data, threading.get_ident()))
        time.sleep(2.0)

    t0 = time.monotonic()
    assert rt.launch_callback(cb, "payload", E.ACL_CALLBACK_BLOCK, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    elapsed = time.monotonic() - t0
    stop()
    assert 1.9 <= elapsed <= 4.0, elapsed
    assert calls == [("payload", tid)]


def test_non_blocking_callback_does_not_hold_the_stream(stream):
    _, _, stop = subscribed_loop(stream)
    done = threading.Event()

    def cb(data):
        time.sleep(2.0)
        done.set()

    t0 = time.monotonic()
    assert rt.launch_callback(cb, None, E.ACL_CALLBACK_NO_BLOCK, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert time.monotonic() - t0 < 1.0
    assert not done.is_set()
    assert done.wait(10)
    stop()


def test_callbacks_run_once_each_in_launch_order_on_a_python_thread(stream, report_thread):
    assert rt.subscribe_report(report_thread.ident, stream) == 0
    seen = []
    for i in range(20):
        block = E.ACL_CALLBACK_BLOCK if i % 2 else E.ACL_CALLBACK_NO_BLOCK
        assert rt.launch_callback(lambda d: seen.append((d, threading.get_ident())), i, block, stream) == 0
    rt.synchronize_stream(stream)
    deadline = time.monotonic() + 5
    while len(seen) < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen == [(i, report_thread.ident) for i in range(20)]
    assert rt.unsubscribe_report(report_thread.ident, stream) == 0


def test_blocking_calls_release_the_gil(stream, report_thread):
    rt.subscribe_report(report_thread.ident, stream)
    ticks = []
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    c = threading.Thread(target=counter)
    c.start()
    # The callback needs the GIL on the report thread while this thread waits in synchronize.
    rt.launch_callback(lambda d: time.sleep(0.3), None, E.ACL_CALLBACK_BLOCK, stream)
    before = len(ticks)
    assert rt.synchronize_stream(stream) == 0
    stop.set()
    c.join()
    assert len(ticks) - before > 10
    rt.unsubscribe_report(report_thread.ident, stream)


def test_two_streams_ordered_by_an_event():
    a, _ = rt.create_stream()
    b, _ = rt.create_stream()
    ev, _ = rt.create_event()
    order = []
    acl.ext.launch_host_kernel(lambda x: (time.sleep(0.3), order.append("a")), None, a)
    assert rt.record_event(ev, a) == 0
    assert rt.stream_wait_event(b, ev) == 0
    acl.ext.launch_host_kernel(lambda x: order.append("b"), None, b)
    assert rt.synchronize_stream(b) == 0
    assert order == ["a", "b"]
    # Without the wait, b does not wait for a.
    acl.ext.launch_host_kernel(lambda x: (time.sleep(0.3), order.append("a2")), None, a)
    acl.ext.launch_host_kernel(lambda x: order.append("b2"), None, b)
    assert rt.synchronize_device() == 0
    assert order[2:] == ["b2", "a2"]
    rt.destroy_event(ev)
    rt.destroy_stream(a)
    rt.destroy_stream(b)


def test_elapsed_time_around_a_sleeping_kernel(stream):
    start, _ = rt.create_event_with_flag(E.ACL_EVENT_TIME_LINE)
    end, _ = rt.create_event_with_flag(E.ACL_EVENT_TIME_LINE)
    assert rt.record_event(start, stream) == 0
    acl.ext.launch_host_kernel(lambda x: time.sleep(0.2), None, stream, name="sleep200")
    assert rt.record_event(end, stream) == 0
    assert rt.event_elapsed_time(start, end)[1] in (E.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, 0)
    assert rt.synchronize_event(end) == 0
    ms, ret = rt.event_elapsed_time(start, end)
    assert ret == 0
    assert 195.0 <= ms <= 1500.0, ms
    t0, _ = rt.event_get_timestamp(start)
    t1, _ = rt.event_get_timestamp(end)
    assert t1 > t0 and abs((t1 - t0) / 1000.0 - ms) < 1.0


def test_ex_events_are_reusable_without_reset():
    a, _ = rt.create_stream()
    b, _ = rt.create_stream()
    ev, _ = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC | E.ACL_EVENT_TIME_LINE)
    order = []
    for i in range(5):
        acl.ext.launch_host_kernel(lambda x: (time.sleep(0.05), order.append(("a", x))), i, a)
        assert rt.record_event(ev, a) == 0
        assert rt.stream_wait_event(b, ev) == 0
        acl.ext.launch_host_kernel(lambda x: order.append(("b", x)), i, b)
    assert rt.synchronize_stream(b) == 0
    for i in range(5):
        assert order.index(("a", i)) < order.index(("b", i))
    assert rt.query_event_status(ev) == (E.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    rt.destroy_event(ev)
    rt.destroy_stream(a)
    rt.destroy_stream(b)


def test_exception_callback_receives_ids_of_the_failed_task(stream):
    reports = []

    def on_exception(info):
        assert isinstance(info, int) and info != 0
        reports.append(
            dict(
                task=rt.get_task_id_from_exception_info(info),
                stream=rt.get_stream_id_from_exception_info(info),
                thread=rt.get_thread_id_from_exception_info(info),
                device=rt.get_device_id_from_exception_info(info),
                code=rt.get_error_code_from_exception_info(info),
                info=info,
            )
        )

    assert rt.set_exception_info_callback(on_exception) == 0
    sid, _ = rt.stream_get_id(stream)
    t0, _ = acl.ext.launch_host_kernel(lambda x: 0, None, stream)
    rec, _ = rt.create_event()
    rt.record_event(rec, stream)
    t2, ret = acl.ext.launch_host_kernel(lambda x: 42, None, stream, name="returns42")
    assert ret == 0 and (t0, t2) == (0, 2)
    assert rt.synchronize_stream(stream) == 42
    assert len(reports) == 1
    r = reports[0]
    assert (r["task"], r["stream"], r["device"], r["code"]) == (2, sid, 0, 42)
    assert r["thread"] == threading.get_native_id() & 0xFFFFFFFF
    # The pointer is only valid during the call.
    assert rt.get_task_id_from_exception_info(r["info"]) == 0xFFFFFFFF
    rt.destroy_event(rec)


def test_python_exception_in_a_kernel_is_reported(stream, capfd):
    reports = []
    rt.set_exception_info_callback(lambda info: reports.append(rt.get_error_code_from_exception_info(info)))

    def broken(x):
        raise ZeroDivisionError("kernel bug " + x)

    task, ret = acl.ext.launch_host_kernel(broken, "#7", stream, name="broken")
    assert ret == 0
    after = []
    acl.ext.launch_host_kernel(lambda x: after.append(1), None, stream)
    assert rt.synchronize_stream(stream) == E.ACL_ERROR_RT_AICORE_EXCEPTION
    msg = acl.get_recent_err_msg()
    assert "Traceback" in msg and "ZeroDivisionError: kernel bug #7" in msg and "broken" in msg
    assert reports == [E.ACL_ERROR_RT_AICORE_EXCEPTION]
    assert after == [1]  # continue mode: later tasks still ran
    assert rt.synchronize_stream(stream) == 0
    err = capfd.readouterr().err
    assert "ZeroDivisionError: kernel bug #7" in err


def test_python_exception_in_a_callback_is_reported(stream, monkeypatch):
    caught = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: caught.append(u))
    me = threading.get_ident()
    rt.subscribe_report(me, stream)

    def bad(data):
        raise KeyError(data)

    assert rt.launch_callback(bad, "missing", E.ACL_CALLBACK_BLOCK, stream) == 0
    assert rt.process_report(5000) == E.ACL_ERROR_RT_AICORE_EXCEPTION
    assert "KeyError: 'missing'" in acl.get_recent_err_msg()
    assert rt.peek_at_last_error() == E.ACL_ERROR_RT_AICORE_EXCEPTION
    assert len(caught) == 1 and isinstance(caught[0].exc_value, KeyError)
    # The stream is not stuck, and the loop goes on normally.
    assert rt.synchronize_stream(stream) == 0
    ok = []
    rt.launch_callback(ok.append, 1, E.ACL_CALLBACK_NO_BLOCK, stream)
    assert rt.process_report(5000) == 0 and ok == [1]
    rt.unsubscribe_report(me, stream)


def test_exception_in_the_exception_callback_is_reported(stream, monkeypatch):
    caught = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: caught.append(u))

    def bad(info):
        raise RuntimeError("handler bug")

    rt.set_exception_info_callback(bad)
    acl.ext.launch_host_kernel(lambda x: 5, None, stream)
    assert rt.synchronize_stream(stream) == 5
    assert len(caught) == 1 and "handler bug" in str(caught[0].exc_value)


def test_blocking_call_inside_a_callback_is_refused_not_deadlocked(stream, report_thread):
    rt.subscribe_report(report_thread.ident, stream)
    got = []
    ctx, _ = rt.get_context()
    rt.launch_callback(
        lambda d: got.append((rt.set_context(ctx), rt.synchronize_stream(stream))[1]),
        None,
        E.ACL_CALLBACK_BLOCK,
        stream,
    )
    assert rt.synchronize_stream(stream) == 0
    assert got == [E.ACL_ERROR_RT_PARAM_INVALID]
    got.clear()
    acl.ext.launch_host_kernel(
        lambda x: got.append((rt.set_context(ctx), rt.synchronize_device())[1]), None, stream
    )
    rt.synchronize_stream(stream)
    assert got == [E.ACL_ERROR_RT_PARAM_INVALID]
    rt.unsubscribe_report(report_thread.ident, stream)


def test_many_python_threads_use_the_api_at_once():
    errors = []
    results = {}

    def worker(n):
        try:
            assert rt.set_device(0) == 0
            s, ret = rt.create_stream()
            assert ret == 0
            ev, ret = rt.create_event_ex_with_flag(E.ACL_EVENT_SYNC | E.ACL_EVENT_TIME_LINE)
            assert ret == 0
            buf = bytearray(64)
            dev, ret = rt.malloc(64, 0)
            assert ret == 0
            me = threading.get_ident()
            assert rt.subscribe_report(me, s) == 0
            hits = []
            for i in range(20):
                acl.ext.launch_host_kernel(lambda x: hits.append(x), (n, i), s)
                rt.launch_callback(hits.append, ("cb", i), E.ACL_CALLBACK_NO_BLOCK, s)
                assert rt.process_report(5000) == 0
            assert rt.memset_async(dev, 64, n, 64, s) == 0
            assert rt.memcpy_async(util.bytes_to_ptr(buf), 64, dev, 64, 2, s) == 0
            assert rt.record_event(ev, s) == 0
            assert rt.synchronize_event(ev) == 0
            assert rt.synchronize_stream(s) == 0
            assert bytes(buf) == bytes([n]) * 64
            assert rt.unsubscribe_report(me, s) == 0
            assert rt.free(dev) == 0
            assert rt.destroy_event(ev) == 0
            assert rt.destroy_stream(s) == 0
            assert rt.reset_device(0) == 0
            results[n] = hits
        except BaseException as e:  # reported to the main thread
            errors.append((n, repr(e)))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sorted(results) == list(range(12))
    for n, hits in results.items():
        kernels = [h for h in hits if h[0] != "cb"]
        callbacks = [h for h in hits if h[0] == "cb"]
        assert kernels == [(n, i) for i in range(20)]
        assert callbacks == [("cb", i) for i in range(20)]

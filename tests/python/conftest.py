"""The runtime is process-global, as ACL's is: one init and device for the whole test run.
Tests that need init/finalize cycles run a child interpreter (see ``run_child``)."""

import os
import subprocess
import sys
import textwrap
import threading

import pytest

import acl


@pytest.fixture(scope="session", autouse=True)
def runtime():
    ret = acl.init()
    assert ret in (0, acl.ACL_ERROR_REPEAT_INITIALIZE)
    assert acl.rt.set_device(0) == 0
    yield
    acl.rt.set_exception_info_callback(None)


@pytest.fixture(autouse=True)
def clean_thread_state():
    """Each test starts on the device's default context with no pending error state."""
    acl.rt.set_device(0)
    acl.rt.get_last_error()
    acl.get_recent_err_msg()
    yield
    acl.rt.set_exception_info_callback(None)
    acl.rt.reset_device(0)


@pytest.fixture
def stream():
    s, ret = acl.rt.create_stream()
    assert ret == 0 and s != 0
    yield s
    acl.rt.destroy_stream(s)


class ReportThread:
    """A Python thread running the pyACL callback loop (process_report until stopped)."""

    def __init__(self):
        self.stop = False
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait()
        self.ident = self.thread.ident

    def _run(self):
        self.ready.set()
        while not self.stop:
            acl.rt.process_report(20)

    def close(self):
        self.stop = True
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture
def report_thread():
    t = ReportThread()
    yield t
    t.close()


def run_child(code: str, timeout: float = 60, env=None) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter (own runtime), with ``env`` added to the environment;
    fails the test if it exits non-zero."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, f"child failed:\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc

"""No call crashes the interpreter: ``fuzz_calls.py`` calls every function of ``acl``,
``acl.rt``, ``acl.util``, ``acl.media`` and ``acl.ext`` with random arguments in a child
interpreter, which must exit normally (a signal death, a Rust panic or a ``SystemError`` is a
failure).

By default two seeds of 100 000 calls each run on one thread, and 100 000 more are shared by
three threads calling at once (a few seconds in all). The long mode is chosen by the
environment: ``ACLRT_FUZZ_CALLS`` (calls per run), ``ACLRT_FUZZ_SEEDS`` (a comma list of seeds)
and ``ACLRT_FUZZ_THREADS`` (threads of the threaded run), e.g.
``ACLRT_FUZZ_CALLS=5000000 ACLRT_FUZZ_SEEDS=1,2,3,4 ACLRT_FUZZ_THREADS=8``.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

CALLS = int(os.environ.get("ACLRT_FUZZ_CALLS", "100000"))
SEEDS = [int(s) for s in os.environ.get("ACLRT_FUZZ_SEEDS", "20240611,7").split(",")]
THREADS = int(os.environ.get("ACLRT_FUZZ_THREADS", "3"))
DRIVER = pathlib.Path(__file__).with_name("fuzz_calls.py")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_calls_never_crash(seed):
    fuzz(seed, 1)


def test_random_calls_from_threads_never_crash():
    fuzz(SEEDS[0] + 1, THREADS)


def fuzz(seed, threads):
    env = {**os.environ, "ASCEND_GLOBAL_LOG_LEVEL": "4"}  # app_log calls stay quiet
    env.pop("ACLRT_PYTHON_RAW_POINTERS", None)
    proc = subprocess.run(
        [sys.executable, str(DRIVER), str(CALLS), str(seed), str(threads)],
        capture_output=True,
        text=True,
        timeout=max(300, CALLS / 1000),
        env=env,
    )
    if proc.returncode < 0:
        pytest.fail(
            f"seed {seed}: the interpreter died of {signal.Signals(-proc.returncode).name}\n"
            f"stderr:\n{proc.stderr[-4000:]}"
        )
    assert proc.returncode == 0, f"seed {seed}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-4000:]}"
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    print(json.dumps(summary))
    assert summary["calls"] == CALLS and summary["threads"] == threads
    assert summary["bad"] == []
    assert summary["functions"] >= 90
    outcomes = summary["outcomes"]
    assert sum(outcomes.values()) == CALLS
    # Both kinds of answer occur: codes (returned) and exceptions.
    assert outcomes["returned"] > CALLS // 10
    assert outcomes["TypeError"] > CALLS // 10
    assert set(outcomes) <= {"returned", "TypeError", "ValueError", "OverflowError", "AclError",
                             "RuntimeError", "MemoryError", "BufferError", "AttributeError"}

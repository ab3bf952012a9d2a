"""Calls every public function of ``acl``, ``acl.rt``, ``acl.util``, ``acl.media`` and ``acl.ext``
with random arguments and prints a JSON summary; run by ``test_fuzz.py`` in a child interpreter.

Arguments are drawn from: edge ints (0, negative, 2**31, 2**62, 2**64 - 1, wider than 64 bits),
random ints, None, floats (nan, inf), strings, bytes, containers, arbitrary objects, a function
that does nothing (never as a ``launch_callback`` function: a blocking callback would hold its
stream for ever, since this process runs no ``process_report`` loop), and live or
stale runtime handles and pointers (a stream, an event, device, host and DVPP memory, a data
buffer, a known bytearray, freed memory, a destroyed stream, addresses just past an allocation).
The argument count is usually the function's own, sometimes fewer or more; a few calls get an
unexpected keyword. Every few thousand calls the runtime is finalized and set up again.

A call may return anything or raise an ``Exception``; a ``SystemError`` (a binding that failed
without saying why) or a Rust panic surfacing as ``pyo3_runtime.PanicException`` counts as a
failure, and so does dying: the parent checks that this process exits normally.

Usage: ``python fuzz_calls.py CALLS SEED [THREADS]``. With more than one thread, the calls are
shared among threads calling at the same time (the main thread alone finalizes and sets up). Raw pointers stay off (``set_raw_pointers`` is not
called): with them on, a random int is a pointer the program vouches for, and a crash is the
documented outcome.
"""

import inspect
import json
import math
import os
import random
import sys
import threading
import time

import acl

SKIP = {
    # Trusting raw pointers turns a random int into a crash by design.
    ("acl.ext", "set_raw_pointers"),
}

EDGE_INTS = [
    0, 1, 2, 3, 7, 8, 64, 100, 4096, 65535, 65536,
    -1, -2, -7, -4096,
    2**31 - 1, 2**31, -(2**31), 2**32 - 1, 2**32,
    2**40, 2**47, 2**48, 2**62, 2**63 - 1, 2**63, -(2**63), 2**64 - 1, 2**64,
    2**100, -(2**100),
]

def noop(*args, **kwargs):
    return None


OTHER_VALUES = [
    None, True, False,
    0.0, -1.5, 1e300, float("nan"), float("inf"),
    "", "x", "0", "acl", "\x00", "/nonexistent/path",
    b"", b"abc", bytearray(3),
    [], [0], (1, 2), {}, {"a": 1},
    object(), sys, noop,
]


class Pool:
    """Live and stale handles of the current runtime."""

    def __init__(self):
        self.values = []
        self.keep = []

    def rebuild(self):
        acl.init()
        acl.rt.set_device(0)
        stream, _ = acl.rt.create_stream()
        event, _ = acl.rt.create_event()
        ctx, _ = acl.rt.get_context()
        dev, _ = acl.rt.malloc(4096, 0)
        host, _ = acl.rt.malloc_host(4096)
        dvpp, _ = acl.media.dvpp_malloc(1000)
        held = bytearray(256)
        held_ptr = acl.util.bytes_to_ptr(held)
        buf = acl.create_data_buffer(dev, 4096)
        freed, _ = acl.rt.malloc(128, 0)
        acl.rt.free(freed)
        dead_stream, _ = acl.rt.create_stream()
        acl.rt.destroy_stream(dead_stream)
        self.keep = [held]
        self.values = [
            stream, event, ctx, dev, host, dvpp, held_ptr, buf, freed, dead_stream,
            dev + 1, dev + 4095, dev + 4096, dev - 64, host + 4096, held_ptr + 255, held_ptr + 256,
        ]


def arity(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    return sum(1 for p in params if p.default is p.empty and p.kind is not p.VAR_KEYWORD)


def collect():
    targets = []
    modules = {"acl": acl, "acl.rt": acl.rt, "acl.util": acl.util, "acl.media": acl.media, "acl.ext": acl.ext}
    for mod_name, mod in modules.items():
        for name in sorted(dir(mod)):
            if name.startswith("_") or (mod_name, name) in SKIP:
                continue
            fn = getattr(mod, name)
            if inspect.ismodule(fn) or not callable(fn):
                continue
            targets.append((f"{mod_name}.{name}", fn, arity(fn)))
    return targets


def value(rng, pool):
    r = rng.random()
    if r < 0.35:
        return rng.choice(EDGE_INTS)
    if r < 0.50:
        return rng.randrange(-(2**64), 2**65)
    if r < 0.70 and pool.values:
        return rng.choice(pool.values)
    return rng.choice(OTHER_VALUES)


def arguments(rng, pool, name, n):
    if n is None or rng.random() < 0.25:
        n = rng.randrange(0, 7)
    args = [value(rng, pool) for _ in range(n)]
    # No call may block for ever. A blocking callback (any int can subscribe as a thread)
    # holds its stream until some process_report runs it, and this process runs none.
    if name == "acl.rt.launch_callback" and args and callable(args[0]):
        args[0] = None
    if name == "acl.rt.process_report" and args and isinstance(args[0], int):
        if not (0 < args[0] <= 20):
            args[0] = 1
    return args


def run(calls, rng, pool, targets, outcomes, bad, rebuild):
    for i in range(calls):
        if rebuild and i % 4000 == 3999:
            acl.finalize()
            pool.rebuild()
        name, fn, n = rng.choice(targets)
        args = arguments(rng, pool, name, n)
        kwargs = {"bogus": value(rng, pool)} if rng.random() < 0.02 else {}
        try:
            result = fn(*args, **kwargs)
            key = "returned"
            del result
        except (SystemError, SystemExit, KeyboardInterrupt):
            raise
        except Exception as e:  # noqa: BLE001 - any exception is an acceptable answer
            key = type(e).__name__
        except BaseException as e:  # PanicException derives from BaseException
            key = type(e).__name__
            bad.append(f"{name}{tuple(map(repr, args))!s:.300}: {key}: {e!s:.300}")
        outcomes[key] = outcomes.get(key, 0) + 1


def main():
    calls = int(sys.argv[1])
    seed = int(sys.argv[2])
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    assert acl.ext.set_raw_pointers(False) is False, "raw pointers must be off for the fuzz"
    pool = Pool()
    pool.rebuild()
    targets = collect()
    per_thread = [{} for _ in range(threads)]
    bad = []
    start = time.monotonic()
    # Thread 0 is the main thread and the only one that finalizes; with more threads the others
    # call concurrently (the interleaving then varies from run to run).
    others = [
        threading.Thread(
            target=run,
            args=(calls // threads, random.Random(seed + t), pool, targets, per_thread[t], bad, False),
        )
        for t in range(1, threads)
    ]
    for t in others:
        t.start()
    run(calls - (threads - 1) * (calls // threads), random.Random(seed), pool, targets, per_thread[0], bad, True)
    for t in others:
        t.join()
    outcomes = {}
    for counts in per_thread:
        for key, n in counts.items():
            outcomes[key] = outcomes.get(key, 0) + n
    elapsed = time.monotonic() - start
    # The runtime still works after all that.
    acl.finalize()
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    dev, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    data = bytes(range(64))
    assert acl.rt.memcpy(dev, 64, acl.util.bytes_to_ptr(data), 64, 1) == 0
    assert acl.util.ptr_to_bytes(dev, 64) == data
    assert acl.rt.free(dev) == 0
    assert acl.finalize() == 0
    print(json.dumps({
        "calls": sum(outcomes.values()),
        "seed": seed,
        "threads": threads,
        "functions": len(targets),
        "elapsed_s": round(elapsed, 3),
        "outcomes": outcomes,
        "bad": bad[:20],
    }))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Raw pointers: copies, sets and ptr_to_bytes touch only runtime memory and the buffers whose
addresses bytes_to_ptr / numpy_to_ptr gave out, unless raw pointers are allowed; no pointer or
size makes the interpreter crash."""

import ctypes
import gc
import threading
import weakref

import pytest

import acl
from acl import rt, util
from conftest import run_child

E = acl  # constants
H2D, D2H, H2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST, acl.ACL_MEMCPY_HOST_TO_HOST

HUGE_SIZES = [2**62, 2**63, 2**64 - 1, -1, 2**70]


@pytest.fixture
def dev():
    ptr, ret = rt.malloc(256, 0)
    assert ret == 0
    yield ptr
    rt.free(ptr)


def forget_dropped_buffers():
    """Registering a buffer forgets those the program no longer holds."""
    keep = bytes(1)
    util.bytes_to_ptr(keep)


# ---- sizes -------------------------------------------------------------------------------


def test_ptr_to_bytes_checks_the_size_before_allocating(dev):
    for size in HUGE_SIZES:
        with pytest.raises(ValueError):
            util.ptr_to_bytes(dev, size)
    with pytest.raises(ValueError, match="overruns its 256-byte allocation"):
        util.ptr_to_bytes(dev, 257)
    assert util.ptr_to_bytes(dev, 256) == bytes(256)
    host = bytearray(b"0123456789")
    p = util.bytes_to_ptr(host)
    for size in HUGE_SIZES + [11]:
        with pytest.raises(ValueError):
            util.ptr_to_bytes(p, size)
    assert util.ptr_to_bytes(p + 2, 8) == b"23456789"


def test_huge_sizes_in_a_fresh_interpreter():
    # The case that used to abort the process: a valid pointer and a size of 2**62.
    run_child("""
        import acl
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        dev, _ = acl.rt.malloc(64, 0)
        host, _ = acl.rt.malloc_host(64)
        for p in (dev, host):
            for size in (2**62, 2**64 - 1, -1):
                try:
                    acl.util.ptr_to_bytes(p, size)
                    raise SystemExit("accepted")
                except ValueError:
                    pass
                assert acl.rt.memset(p, size, 0, size) == acl.ACL_ERROR_INVALID_PARAM
                assert acl.rt.memcpy(p, size, p, size, 3) == acl.ACL_ERROR_INVALID_PARAM
        print("ok")
    """)


def test_huge_copies_are_refused(dev):
    data = bytes(64)
    src = util.bytes_to_ptr(data)
    for size in HUGE_SIZES:
        assert rt.memcpy(dev, size, src, size, H2D) == E.ACL_ERROR_INVALID_PARAM
        assert rt.memcpy(src, size, dev, size, D2H) == E.ACL_ERROR_INVALID_PARAM
        assert rt.memset(dev, size, 1, size) == E.ACL_ERROR_INVALID_PARAM
    assert util.ptr_to_bytes(dev, 4) == bytes(4)


# ---- freed and foreign pointers ----------------------------------------------------------


def test_freed_runtime_memory_is_refused():
    dev, _ = rt.malloc(128, 0)
    host, _ = rt.malloc_host(128)
    assert rt.free(dev) == 0 and rt.free_host(host) == 0
    for p in (dev, host, dev + 64):
        with pytest.raises(ValueError, match="freed"):
            util.ptr_to_bytes(p, 4)
        assert rt.memset(p, 4, 0, 4) == E.ACL_ERROR_INVALID_PARAM
        assert "freed" in acl.get_recent_err_msg()
    out = bytearray(4)
    assert rt.memcpy(util.bytes_to_ptr(out), 4, dev, 4, D2H) == E.ACL_ERROR_INVALID_PARAM


def test_foreign_pointers_are_refused_by_default(dev):
    foreign = ctypes.create_string_buffer(b"secret!!", 8)
    addr = ctypes.addressof(foreign)
    for p in (addr, 1, 4096, 0xDEADBEEF, 2**47, 2**64 - 1 - 8):
        with pytest.raises(ValueError, match="neither runtime memory nor inside a live buffer"):
            util.ptr_to_bytes(p, 8)
        assert rt.memcpy(dev, 8, p, 8, H2D) == E.ACL_ERROR_INVALID_PARAM
        assert "aclrtMemcpy: the source" in acl.get_recent_err_msg()
        assert rt.memcpy(p, 8, dev, 8, D2H) == E.ACL_ERROR_INVALID_PARAM
        assert "aclrtMemcpy: the destination" in acl.get_recent_err_msg()
        assert rt.memset(p, 8, 0, 8) == E.ACL_ERROR_INVALID_PARAM
        assert rt.memcpy_async(p, 8, dev, 8, D2H, 0) == E.ACL_ERROR_INVALID_PARAM
        assert rt.memset_async(p, 8, 0, 8, 0) == E.ACL_ERROR_INVALID_PARAM
    assert foreign.raw == b"secret!!"
    # NULL, a zero count, and a count beyond the maximum keep the runtime's own answers.
    assert rt.memcpy(0, 8, dev, 8, D2H) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy(addr, 8, dev, 0, D2H) == 0
    assert rt.memcpy(addr, 4, dev, 8, D2H) == E.ACL_ERROR_RT_PARAM_INVALID


def test_ranges_must_lie_inside_a_known_buffer(dev):
    host = bytearray(range(16))
    p = util.bytes_to_ptr(host)
    assert rt.memcpy(dev, 16, p, 16, H2D) == 0
    assert rt.memcpy(dev, 16, p + 8, 8, H2D) == 0
    assert rt.memcpy(dev, 16, p + 8, 9, H2D) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy(dev, 16, p - 1, 4, H2D) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memcpy(p + 12, 8, dev, 8, D2H) == E.ACL_ERROR_INVALID_PARAM
    assert rt.memset(p, 16, 7, 16) == 0
    assert host == bytearray(b"\x07" * 16)


def test_bytes_objects_can_be_written_as_in_pyacl(dev):
    # acllite copies device data into bytes_to_ptr(ndarray.tobytes()) and reads it back.
    assert rt.memset(dev, 8, 0x41, 8) == 0
    out = bytes(8)
    assert rt.memcpy(util.bytes_to_ptr(out), 8, dev, 8, D2H) == 0
    assert out == b"A" * 8


def test_dropped_buffers_are_forgotten():
    p = util.bytes_to_ptr(bytearray(b"temporary"))
    # Still known (and kept alive) until the next registration looks.
    assert util.ptr_to_bytes(p, 9) == b"temporary"
    forget_dropped_buffers()
    with pytest.raises(ValueError, match="neither runtime memory"):
        util.ptr_to_bytes(p, 9)


def test_a_held_buffer_stays_known_and_its_size_locked():
    buf = bytearray(b"held")
    p = util.bytes_to_ptr(buf)
    forget_dropped_buffers()
    assert util.ptr_to_bytes(p, 4) == b"held"
    # Its address was given out: it cannot move while the program holds it.
    with pytest.raises(BufferError):
        buf.extend(b"!")
    assert util.bytes_to_ptr(buf) == p
    assert acl.ext.live_objects()["host_buffers"] >= 1


def test_async_copies_keep_their_host_buffer_alive(dev, stream):
    class Buffer(bytearray):  # a bytearray that can be watched with a weak reference
        pass

    gate = threading.Event()
    acl.ext.launch_host_kernel(lambda _: gate.wait(10), None, stream)
    assert rt.memset(dev, 64, 0x42, 64) == 0
    target = Buffer(64)
    watch = weakref.ref(target)
    assert rt.memcpy_async(util.bytes_to_ptr(target), 64, dev, 64, D2H, stream) == 0
    src = bytes(b"\x01" * 64)
    assert rt.memcpy_async(dev + 64, 64, util.bytes_to_ptr(src), 64, H2D, stream) == 0
    del target, src
    forget_dropped_buffers()
    gc.collect()
    assert watch() is not None, "released while its copy was queued"
    assert bytes(watch()) == bytes(64)
    gate.set()
    assert rt.synchronize_stream(stream) == 0
    assert bytes(watch()) == b"\x42" * 64
    assert util.ptr_to_bytes(dev + 64, 64) == b"\x01" * 64
    # Once the copy has run and the program holds nothing, the buffer goes.
    acl.ext.live_objects()
    forget_dropped_buffers()
    gc.collect()
    assert watch() is None


# ---- raw pointers ------------------------------------------------------------------------


@pytest.fixture
def raw_pointers():
    assert acl.ext.set_raw_pointers(True) is False
    yield
    assert acl.ext.set_raw_pointers(False) is True


def test_raw_pointers_trust_any_address(dev, raw_pointers):
    foreign = ctypes.create_string_buffer(b"pyACL-style", 11)
    addr = ctypes.addressof(foreign)
    assert util.ptr_to_bytes(addr, 11) == b"pyACL-style"
    assert rt.memcpy(dev, 11, addr, 11, H2D) == 0
    assert rt.memset(addr, 5, ord("x"), 5) == 0
    assert foreign.raw == b"xxxxx-style"
    # Runtime memory is still bounds-checked.
    with pytest.raises(ValueError, match="overruns"):
        util.ptr_to_bytes(dev, 257)
    assert rt.memcpy(addr, 300, dev, 300, D2H) == E.ACL_ERROR_INVALID_PARAM


def test_raw_pointers_from_the_environment():
    run_child("""
        import acl
        assert acl.ext.set_raw_pointers(True) is True
        assert acl.ext.set_raw_pointers(False) is True
        assert acl.ext.set_raw_pointers(False) is False
    """, env={"ACLRT_PYTHON_RAW_POINTERS": "1"})
    run_child("""
        import acl
        assert acl.ext.set_raw_pointers(False) is False
    """, env={"ACLRT_PYTHON_RAW_POINTERS": "0"})


def test_pointers_work_before_init_only_for_known_buffers():
    run_child("""
        import acl
        data = bytearray(b"abcd")
        p = acl.util.bytes_to_ptr(data)
        assert acl.util.ptr_to_bytes(p, 4) == b"abcd"
        try:
            acl.util.ptr_to_bytes(p + 4096, 4)
            raise SystemExit("accepted")
        except ValueError:
            pass
        assert acl.rt.memcpy(p, 4, p, 4, 0) == acl.ACL_ERROR_UNINITIALIZE
    """)


# ---- NumPy arrays ------------------------------------------------------------------------


def test_numpy_arrays():
    np = pytest.importorskip("numpy")
    dev, _ = rt.malloc(64, 0)
    src = np.arange(16, dtype=np.int32)
    assert rt.memcpy(dev, 64, util.numpy_to_ptr(src), 64, H2D) == 0
    out = np.zeros(16, dtype=np.int32)
    assert rt.memcpy(util.numpy_to_ptr(out), 64, dev, 64, D2H) == 0
    assert (out == src).all()
    # Read-only arrays can be read, not written.
    frozen = np.zeros(16, dtype=np.int32)
    frozen.flags.writeable = False
    p = util.numpy_to_ptr(frozen)
    assert rt.memcpy(dev, 64, p, 64, H2D) == 0
    assert rt.memcpy(p, 64, dev, 64, D2H) == E.ACL_ERROR_INVALID_PARAM
    assert "read-only" in acl.get_recent_err_msg()
    # A reversed view: its elements lie below its data address, not above.
    rev = out[::-1]
    p = util.numpy_to_ptr(rev)
    assert p == util.numpy_to_ptr(out) + 60
    assert rt.memcpy(dev, 4, p, 4, H2D) == 0
    assert rt.memcpy(dev, 8, p, 8, H2D) == E.ACL_ERROR_INVALID_PARAM
    # A strided view covers its extent.
    strided = np.zeros(32, dtype=np.int32)[::2]
    p = util.numpy_to_ptr(strided)
    assert rt.memcpy(p, 124, dev, 64, D2H) == 0
    assert rt.memcpy(p, 125, dev, 125, D2H) == E.ACL_ERROR_INVALID_PARAM
    assert util.numpy_to_ptr(np.zeros(0)) != 0
    assert rt.free(dev) == 0


def test_objects_claiming_an_address_are_not_trusted():
    class Claims:
        __array_interface__ = {"data": (0x1000, False)}

    assert util.numpy_to_ptr(Claims()) == 0x1000
    with pytest.raises(ValueError):
        util.ptr_to_bytes(0x1000, 4)
    with pytest.raises(ValueError, match="needs an ndarray"):
        util.numpy_to_ptr(b"no interface")
    with pytest.raises(ValueError, match="needs an byte"):
        util.bytes_to_ptr("text")

"""acl.util.numpy_contiguous_to_ptr and ptr_to_numpy: round trips with NumPy (skipped without
it), pyACL's errors, checked pointers, and a clear ImportError where NumPy cannot be imported."""

import gc
import subprocess
import sys

import pytest

import acl
from acl import rt

NPY_UINT8, NPY_INT32, NPY_FLOAT32, NPY_OBJECT = 2, 5, 11, 17


@pytest.fixture
def np():
    return pytest.importorskip("numpy", reason="numpy is not installed: the NumPy helpers' "
                                               "round trips need it")


def test_contiguous_array_round_trip_through_the_device(np):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    ptr, same = acl.util.numpy_contiguous_to_ptr(a)
    assert same is a and ptr == a.ctypes.data
    dev, ret = rt.malloc(a.nbytes, 0)
    assert ret == 0
    assert rt.memcpy(dev, a.nbytes, ptr, a.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    host, ret = rt.malloc_host(a.nbytes)
    assert ret == 0
    assert rt.memcpy(host, a.nbytes, dev, a.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    view = acl.util.ptr_to_numpy(host, (3, 4), NPY_FLOAT32)
    assert view.dtype == np.float32 and view.shape == (3, 4)
    assert (view == a).all()
    # A view, not a copy: writing it writes the runtime memory.
    view[0, 0] = 99.0
    assert acl.util.ptr_to_bytes(host, 4) == np.float32(99.0).tobytes()
    assert rt.free(dev) == 0 and rt.free_host(host) == 0


def test_non_contiguous_array_is_copied(np):
    t = np.arange(12, dtype=np.int32).reshape(3, 4).T
    ptr, c = acl.util.numpy_contiguous_to_ptr(t)
    assert c is not t and c.flags.c_contiguous and (c == t).all()
    assert ptr == c.ctypes.data
    back = acl.util.ptr_to_numpy(ptr, (4, 3), NPY_INT32)
    assert (back == t).all()


def test_views_of_known_buffers_keep_them_alive_and_read_only(np):
    data = bytearray(b"abcd")
    view = acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(data), (4,), NPY_UINT8)
    assert view.flags.writeable
    del data
    gc.collect()
    assert bytes(view) == b"abcd"
    frozen = np.zeros(4, dtype=np.uint8)
    frozen.flags.writeable = False
    view = acl.util.ptr_to_numpy(acl.util.numpy_to_ptr(frozen), (2, 2), NPY_UINT8)
    assert not view.flags.writeable


def test_ptr_to_numpy_refusals(np):
    host, _ = rt.malloc_host(48)
    cases = [
        ((host, (100,), NPY_FLOAT32), ValueError, "overruns its 48-byte allocation"),
        ((0, (1,), NPY_FLOAT32), ValueError, "ptr_to_numpy: ptr is NULL (0)"),
        ((0x12345678, (1,), NPY_FLOAT32), ValueError, "neither runtime memory nor inside"),
        ((host, [3], NPY_FLOAT32), ValueError, "shape is empty"),
        ((host, (-1,), NPY_FLOAT32), ValueError, "negative or huge dimension"),
        ((host, (2**62, 2**62), NPY_FLOAT32), ValueError, "runs past the end of the address"),
        ((host, (1,), NPY_OBJECT), ValueError, "17 is not the number of a NumPy type"),
        ((host, (1,), 999), ValueError, "999 is not the number of a NumPy type"),
    ]
    for args, error, text in cases:
        with pytest.raises(error) as info:
            acl.util.ptr_to_numpy(*args)
        assert text in str(info.value), args
    with pytest.raises(TypeError) as info:
        acl.util.ptr_to_numpy(host, (3, "a"), NPY_FLOAT32)
    assert str(info.value) == "the second argument is not list of int"
    with pytest.raises(TypeError) as info:
        acl.util.ptr_to_numpy(host, (3,))
    assert str(info.value) == "acl.util.ptr_to_numpy args parse failed"
    assert acl.util.ptr_to_numpy(host, (0, 3), NPY_FLOAT32).shape == (0, 3)
    # Freed runtime memory is refused.
    assert rt.free_host(host) == 0
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(host, (1,), NPY_FLOAT32)


def test_numpy_contiguous_to_ptr_refusals(np):
    with pytest.raises(ValueError) as info:
        acl.util.numpy_contiguous_to_ptr([1, 2])
    assert str(info.value) == "needs an ndarray as argument"
    with pytest.raises(TypeError) as info:
        acl.util.numpy_contiguous_to_ptr()
    assert str(info.value) == "acl.util.numpy_contiguous_to_ptr args parse failed"


def test_without_numpy_the_helpers_raise_import_error():
    script = (
        "import sys\n"
        "sys.modules['numpy'] = None\n"
        "import acl\n"
        "for call, args in ((acl.util.ptr_to_numpy, (1, (1,), 11)),\n"
        "                   (acl.util.numpy_contiguous_to_ptr, (object(),))):\n"
        "    try:\n"
        "        call(*args)\n"
        "    except ImportError as e:\n"
        "        print(type(e).__name__, e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("ImportError acl.util.ptr_to_numpy needs NumPy, and numpy")
    assert lines[1].startswith(
        "ImportError acl.util.numpy_contiguous_to_ptr needs NumPy, and numpy")
